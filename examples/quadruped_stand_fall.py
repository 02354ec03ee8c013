"""A quadruped stands, then its torques are switched off and it collapses.

    python examples/quadruped_stand_fall.py                      # plot to ./quadruped.png (~15 s)
    python examples/quadruped_stand_fall.py out.png --t-final 1.2 --stand 0.5

solo12 (example-robot-data, floating base) with one sphere (r = 17.5 mm) at each FOOT frame, a
box around the base (its mesh's bounding box, so that the body lands on the ground instead of
passing through it) and a ground plane; the URDF's own collision meshes are left out (the legs'
hulls touch each other at rest). It starts with the knees bent (HFE / KFE = +-0.8 / -+1.6), the
feet touching the ground, and is held by the constant joint torques that balance gravity on
vertical foot forces; at ``--stand`` seconds the torques drop to zero. Moreau-Jean time stepping
(``artidyn.simulate(..., contact=ContactSettings(friction=0.8))``, dt = 1 ms, rigid contacts).

It prints the contact events (impact / lift-off / stick / slip, per body pair) and saves a plot
of the base height and of the total normal force of the ground (matplotlib, Agg backend).
``main(argv)`` returns the simulation result and the standing phase's base-height drift.
"""
import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's artidyn

import artidyn as ad  # noqa: E402
from artidyn.contact import ContactSettings  # noqa: E402
from artidyn.geometry import Box, Collision, HalfSpace, Sphere  # noqa: E402
from artidyn.models import erd  # noqa: E402

FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
FOOT_RADIUS = 0.0175
BASE_BOX = ((0.448, 0.219, 0.053), (0.0, 0.0, 0.0015))   # size, centre: the base mesh's bounding box
DT = 1e-3


def solo12():
    """solo12 with foot spheres, a base box and the ground (no URDF collision meshes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ad.load(str(erd.example_robot_path("solo12")), floating_base=True, collisions=False)
    cols = [Collision("ground", 0, HalfSpace((0.0, 0.0, 1.0), 0.0), np.eye(4))]
    T = np.eye(4)
    T[:3, 3] = BASE_BOX[1]
    cols.append(Collision("base_box", model.body_id("base_link"), Box(BASE_BOX[0]), T))
    names = [f.name for f in model.frames]
    for f in FEET:
        fr = model.frames[names.index(f)]
        cols.append(Collision(f"{f}_sphere", fr.body, Sphere(FOOT_RADIUS), np.asarray(fr.placement)))
    return model.replace(collisions=cols)


def standing(model):
    """Knees bent, the base at the height where the four foot spheres touch the ground; and the joint
    torques that hold it on vertical foot forces (least norm): g(q) = S^T tau + sum_i J_z,i^T f_i."""
    q = ad.neutral(model)
    for leg, s in (("FL", 1), ("FR", 1), ("HL", -1), ("HR", -1)):
        q[model.idx_q[model.joint_id(leg + "_HFE")]] = 0.8 * s
        q[model.idx_q[model.joint_id(leg + "_KFE")]] = -1.6 * s
    q[2] = 0.0
    q[2] = FOOT_RADIUS - min(ad.frame_placement(model, q, f)[2, 3] for f in FEET)
    g = ad.gravity_torque(model, q)
    Jz = np.array([ad.jacobian(model, q, f)[5] for f in FEET])
    f, *_ = np.linalg.lstsq(Jz[:, :6].T, g[:6], rcond=None)
    tau = np.zeros(model.nv)
    tau[6:] = g[6:] - Jz[:, 6:].T @ f
    return q, tau


def plot(res, t_stand, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    ax1.plot(res.t, res.q[:, 2] * 1e3)
    ax1.set_ylabel("base height (mm)")
    ax2.plot(res.t, normal_force(res))
    ax2.set_ylabel("ground normal force (N)")
    ax2.set_xlabel("t (s)")
    for ax in (ax1, ax2):
        ax.axvline(t_stand, color="grey", ls="--", lw=0.8)
        ax.grid(alpha=0.3)
    ax1.set_title("solo12: standing, torques off at the dashed line")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def normal_force(res):
    """Total vertical force of the ground on the robot per step (N): the ground is horizontal."""
    return -res.contact_forces[:, 0, 2]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="quadruped.png", help="plot file (./quadruped.png)")
    parser.add_argument("--t-final", type=float, default=1.2, help="simulated seconds (1.2)")
    parser.add_argument("--stand", type=float, default=0.5, help="seconds with the holding torques (0.5)")
    parser.add_argument("--max-events", type=int, default=40, help="events printed in full (40)")
    args = parser.parse_args(argv)

    model = solo12()
    q0, tau_hold = standing(model)

    def tau(t, q, v):
        return tau_hold if t < args.stand - 0.5 * DT else np.zeros(model.nv)

    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # joint limits are not enforced: crossings are warned of
        res = ad.simulate(model, q0, np.zeros(model.nv), tau=tau, t_final=args.t_final, dt=DT,
                          contact=ContactSettings(friction=0.8))
    seconds = time.perf_counter() - start
    stand = res.t < args.stand - 0.5 * DT
    drift = float(np.max(np.abs(res.q[stand, 2] - q0[2])))
    print(f"solo12: {model.nq} q, {model.nv} v, {len(model.collisions)} collision shapes; start height "
          f"{q0[2]:.4f} m; {res.t.size - 1} steps of {DT * 1e3:g} ms in {seconds:.1f} s "
          f"({seconds / (res.t.size - 1) * 1e3:.1f} ms per step)")
    print(f"standing phase (t < {args.stand:g} s): max |base height - start| = {drift:.2e} m")
    lines = []                                  # the events of one step and kind on one line
    for e in res.events:
        pair = f"{e.body_a}/{e.body_b}"
        if lines and lines[-1][0] == e.time and lines[-1][1] == e.kind:
            lines[-1][2].append(pair)
        else:
            lines.append((e.time, e.kind, [pair]))
    kinds = {k: sum(e.kind == k for e in res.events) for k in ("impact", "lift-off", "stick", "slip")}
    print(f"\n{len(res.events)} contact events ({', '.join(f'{n} {k}' for k, n in kinds.items())}):")
    for t, kind, pairs in lines[:args.max_events]:
        print(f"  t = {t:6.3f} s  {kind:8s}  {', '.join(pairs)}")
    if len(lines) > args.max_events:
        print(f"  ... {len(lines) - args.max_events} more lines; the last: t = {lines[-1][0]:.3f} s {lines[-1][1]} "
              f"{', '.join(lines[-1][2])}")
    F = normal_force(res)
    print(f"\nfinal base height {res.q[-1, 2]:.4f} m; normal force: {F[stand].mean():.2f} N standing "
          f"(weight {float(np.sum(model.mass)) * 9.81:.2f} N), {F[-1]:.2f} N at the end")
    plot(res, args.stand, args.out)
    print(f"plot: {args.out}")
    return {"result": res, "stand_drift": drift, "q0": q0, "model": model}


if __name__ == "__main__":
    main()
