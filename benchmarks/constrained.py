"""Constrained forward dynamics: artidyn against pinocchio's ``constraintDynamics``, in one run.

    python benchmarks/constrained.py            # the table (about a minute on 2 cores)
    python benchmarks/constrained.py --quick

Problems (example-robot-data URDFs, floating base, read by both libraries from the same file):

==================================  ==============================================================
talos_full_v2, both feet welded     ``[Weld("left_sole_link", at=q), Weld("right_sole_link", at=q)]``
                                    (12 rows); pinocchio: two CONTACT_6D, LOCAL_WORLD_ALIGNED
solo12, four point contacts         ``[Point(foot, at=q) for foot in FL/FR/HL/HR_FOOT]`` (12 rows);
                                    pinocchio: four CONTACT_3D, LOCAL_WORLD_ALIGNED
==================================  ==============================================================

==================  ==============================================================================
artidyn single      ``artidyn.constrained_dynamics(model, q, v, tau, constraints, friction=False)``
                    (the default ``method="auto"``: the compiled tree-sparse route), the whole
                    public call, result object with the per-constraint wrenches included
pinocchio single    ``pin.constraintDynamics(model, data, q, v, tau, contact_models, contact_datas,
                    prox)`` with ``ProximalSettings(1e-12, 1e-12, mu=0, max_iter=1)`` (a direct
                    sparse Cholesky solve of the KKT system, no proximal iteration), after
                    ``initConstraintDynamics`` once; the forces stay in ``contact_datas``
artidyn batch       the same public call on N = 1000 states (``q`` (N, nq) ...), 2 threads, per state
pinocchio loop      a Python loop of the pinocchio call over the N states (pinocchio has no batched
                    constrained dynamics), per state
==================  ==============================================================================

Both evaluate M(q), the bias forces, the constraint Jacobians and ``Jdot v`` at every call (no
reuse between calls). Times are the best of several rounds (µs). The sanity column is the max
difference of the accelerations and of the contact forces between the two (random states; the
welded-feet velocities are projected on ``J v = 0``, where the two libraries' 6-D contact
acceleration conventions agree). The script asserts nothing; it prints the numbers and the machine.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

import artidyn as ad
from artidyn.constraints import Point, Weld, constraint_terms

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from dynamics import best_times, erd_path, machine  # noqa: E402

PROBLEMS = {
    "talos_full_v2": ("both feet welded", "6D", ("left_sole_link", "right_sole_link")),
    "solo12": ("four point contacts", "3D", ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")),
}


def setup(stem):
    import pinocchio as pin
    from pin_utils import pin_model, repaired_links

    path = erd_path(stem)
    model = ad.load_urdf(str(path), floating_base=True)
    pm = pin_model(str(path), True, inertias_from=model if repaired_links(model) else None)
    return model, pm, pin


def pin_problem(pm, pin, kind, frames):
    ctype = pin.ContactType.CONTACT_6D if kind == "6D" else pin.ContactType.CONTACT_3D
    cms = pin.StdVec_RigidConstraintModel()
    for f in frames:
        F = pm.frames[pm.getFrameId(f)]
        cms.append(pin.RigidConstraintModel(ctype, pm, F.parentJoint, F.placement, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED))
    cds = pin.StdVec_RigidConstraintData()
    for cm in cms:
        cds.append(cm.createData())
    data = pm.createData()
    pin.initConstraintDynamics(pm, data, cms, cds)
    return data, cms, cds, pin.ProximalSettings(1e-12, 1e-12, 0.0, 1)


def measure(stem, n_batch, rounds):
    from pin_utils import from_pin_v, to_pin_q, to_pin_v

    label, kind, frames = PROBLEMS[stem]
    model, pm, pin = setup(stem)
    rng = np.random.default_rng(0)
    Q = ad.random_configuration(model, rng, size=n_batch)
    cons = [(Weld if kind == "6D" else Point)(f, at=Q[0]) for f in frames]
    V = rng.normal(size=(n_batch, model.nv))
    if kind == "6D":   # velocities the welds allow (J v = 0)
        for k in range(n_batch):
            _, J, _ = constraint_terms(model, Q[k], V[k], cons)
            V[k] -= np.linalg.pinv(J) @ (J @ V[k])
    TAU = rng.normal(size=(n_batch, model.nv))
    q, v, tau = Q[0], V[0], TAU[0]
    data, cms, cds, prox = pin_problem(pm, pin, kind, frames)
    pQ = [to_pin_q(model, pm, x) for x in Q]
    pV = [to_pin_v(model, pm, x) for x in V]
    pT = [to_pin_v(model, pm, x) for x in TAU]

    # sanity: accelerations and forces on a few states
    err_a = err_f = 0.0
    for k in range(5):
        r = ad.constrained_dynamics(model, Q[k], V[k], TAU[k], cons, friction=False)
        ap = from_pin_v(model, pm, pin.constraintDynamics(pm, data, pQ[k], pV[k], pT[k], cms, cds, prox))
        fp = [np.concatenate([cd.contact_force.angular, cd.contact_force.linear]) for cd in cds]
        err_a = max(err_a, float(np.max(np.abs(r.a - ap))) / max(1.0, float(np.max(np.abs(ap)))))
        err_f = max(err_f, max(float(np.max(np.abs(f - g))) / max(1.0, float(np.max(np.abs(g))))
                               for f, g in zip(r.forces, fp)))

    def ours():
        return ad.constrained_dynamics(model, q, v, tau, cons, friction=False)

    def theirs():
        return pin.constraintDynamics(pm, data, pQ[0], pV[0], pT[0], cms, cds, prox)

    def ours_batch():
        return ad.constrained_dynamics(model, Q, V, TAU, cons, friction=False)

    def theirs_loop():
        for k in range(n_batch):
            pin.constraintDynamics(pm, data, pQ[k], pV[k], pT[k], cms, cds, prox)

    t_ours, t_pin = best_times([ours, theirs], 0.05, rounds)
    t_b, t_l = best_times([ours_batch, theirs_loop], 0.1, max(2, rounds // 2))
    return (f"{stem}, {label}", model.nv, sum(c.rows for c in cons), t_ours * 1e6, t_pin * 1e6,
            t_b / n_batch * 1e6, t_l / n_batch * 1e6, max(err_a, err_f))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, smaller batch")
    args = parser.parse_args()
    n_batch, rounds = (200, 3) if args.quick else (1000, 7)
    t0 = time.perf_counter()
    rows = [measure(stem, n_batch, rounds) for stem in PROBLEMS]
    print(machine())
    print(f"\ntimes in µs per call / per state; batch N = {n_batch}; ratio = artidyn / pinocchio\n")
    print("| problem | nv | rows | artidyn single | pinocchio single | single ratio | artidyn batch/state "
          "| pinocchio loop/state | batch ratio | max rel. diff |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, nv, m, t1, p1, tb, pl, err in rows:
        print(f"| {name} | {nv} | {m} | {t1:.2f} | {p1:.2f} | {t1 / p1:.2f} | {tb:.2f} | {pl:.2f} | {tb / pl:.2f} "
              f"| {err:.1e} |")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
