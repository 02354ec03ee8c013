"""Numeric inverse kinematics: artidyn.ik against the Robotics Toolbox's compiled ik_LM.

Same targets for both (poses of random postures within the joint limits, checked to be the same
4x4 matrices in both models): Puma 560 (artidyn's built-in DH model vs rtb.models.DH.Puma560,
frame "tool" = the toolbox's fkine) and Panda (example-robot-data URDF, frame "panda_hand_tcp",
vs rtb.models.Panda, whose end effector is the same point).

Success is judged independently for both solvers, each against its own model: the returned q
is within the joint limits and reproduces the target with |p - p*| + angle(R^T R*) <= 1e-9.
artidyn runs with its default tolerance (|log6 error| <= 1e-10); the toolbox is run with its
default tol (1e-6 on E = e^T e / 2, i.e. |e| <= 1.4e-3) and with tol = 5e-21 (|e| <= 1e-10, the
same accuracy as artidyn). Times are per target, single calls from Python, median over targets
(the first calls, which load the compiled code, are excluded); "batch" is artidyn's one call for
all targets divided by their number.

Run: python benchmarks/ik.py [N]
"""
import sys
import time

import numpy as np

import artidyn as ad
from artidyn.ik import ik
from artidyn.spatial.rotations import log3

ACCURACY = 1e-9


def pose_error(Ta, Tb):
    ang = np.linalg.norm(log3(Ta[:3, :3].T @ Tb[:3, :3]))  # accurate at small angles (no arccos)
    return np.linalg.norm(Ta[:3, 3] - Tb[:3, 3]) + ang


def within(q, lo, hi):
    return bool(np.all(q >= lo - 1e-12) and np.all(q <= hi + 1e-12))


def run_artidyn(model, frame, targets, nq_arm):
    ik(model, targets[0], frame)  # load the compiled kernels
    ok, times, its = [], [], []
    for T in targets:
        t0 = time.perf_counter()
        r = ik(model, T, frame)
        times.append(time.perf_counter() - t0)
        Tr = ad.frame_placement(model, r.q, frame)
        ok.append(within(r.q, model.lower, model.upper) and pose_error(Tr, T) <= ACCURACY)
        its.append(r.iterations)
    t0 = time.perf_counter()
    rb = ik(model, np.array(targets), frame)
    t_batch = (time.perf_counter() - t0) / len(targets)
    okb = [within(q, model.lower, model.upper) and pose_error(ad.frame_placement(model, q, frame), T) <= ACCURACY
           for q, T in zip(rb.q, targets)]
    return np.mean(ok), np.median(times), np.mean(times), np.median(its), np.mean(okb), t_batch


def run_rtb(robot, targets, tol):
    robot.ik_LM(targets[0], tol=tol)
    ok, times, its = [], [], []
    lo, hi = robot.qlim
    for T in targets:
        t0 = time.perf_counter()
        s = robot.ik_LM(T, tol=tol)
        times.append(time.perf_counter() - t0)
        ok.append(within(s.q, lo, hi) and pose_error(robot.fkine(s.q).A, T) <= ACCURACY)
        its.append(s.iterations)
    return np.mean(ok), np.median(times), np.mean(times), np.median(its)


def main(N=200):
    import roboticstoolbox as rtb

    cases = [("Puma 560", ad.models.puma560(), "tool", rtb.models.DH.Puma560(), 6),
             ("Panda", ad.load("panda"), "panda_hand_tcp", rtb.models.Panda(), 7)]
    rows = []
    for label, model, frame, robot, n in cases:
        rng = np.random.default_rng(2024)
        Q = ad.random_configuration(model, rng, size=N)
        targets = [ad.frame_placement(model, q, frame) for q in Q]
        gap = max(np.abs(robot.fkine(q[:n]).A - T).max() for q, T in zip(Q, targets))
        assert gap < 1e-9, f"{label}: the two models disagree by {gap:g}"
        s, t, tm, it, sb, tb = run_artidyn(model, frame, targets, n)
        rows.append((label, "artidyn ik (tol 1e-10)", s, t, tm, it))
        rows.append((label, "artidyn ik, one batch call", sb, float("nan"), tb, float("nan")))
        for tol, name in ((5e-21, "rtb ik_LM (tol 5e-21)"), (1e-6, "rtb ik_LM (default tol 1e-6)")):
            rows.append((label, name) + run_rtb(robot, targets, tol))
    print(f"\n{N} targets per robot, success = within limits and pose error <= {ACCURACY:g}; times per "
          f"target (the batch row: one call / N)\n")
    print(f"{'robot':<10} {'solver':<30} {'success':>8} {'median time':>12} {'mean time':>12} {'median its':>11}")
    for label, name, s, t, tm, it in rows:
        med = "" if np.isnan(t) else f"{t * 1e6:.1f} us"
        print(f"{label:<10} {name:<30} {100 * s:7.1f}% {med:>12} {tm * 1e6:9.1f} us {it:11.1f}")
    print()
    for label in dict.fromkeys(r[0] for r in rows):
        ours = next(r for r in rows if r[0] == label and r[1].startswith("artidyn ik ("))
        ref = next(r for r in rows if r[0] == label and "5e-21" in r[1])
        print(f"{label}: success {100 * ours[2]:.1f}% vs {100 * ref[2]:.1f}%, median time ratio "
              f"artidyn / rtb = {ours[3] / ref[3]:.2f} (same accuracy); vs rtb default tol: "
              f"{ours[3] / next(r for r in rows if r[0] == label and 'default' in r[1])[3]:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
