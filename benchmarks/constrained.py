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
artidyn evaluator   ``cd(q, v, tau, out=a)`` with ``cd = artidyn.constraints.ConstrainedDynamics(model,
                    constraints, friction=False)`` made once: one compiled call, the multipliers in
                    ``cd.lambdas`` (the wrenches on access, ``cd.forces``)
pinocchio single    ``pin.constraintDynamics(model, data, q, v, tau, contact_models, contact_datas,
                    prox)`` with ``ProximalSettings(1e-12, 1e-12, mu=0, max_iter=1)`` (a direct
                    sparse Cholesky solve of the KKT system, no proximal iteration), after
                    ``initConstraintDynamics`` once; the forces stay in ``contact_datas``
artidyn batch       the same public call on N = 1000 states (``q`` (N, nq) ...), 2 threads, per state
pinocchio loop      a Python loop of the pinocchio call over the N states (pinocchio has no batched
                    constrained dynamics), per state
==================  ==============================================================================

Then whole simulations, 1 s at dt = 1 ms (1000 steps), semi-implicit Euler: the robot stands on
its held feet in the first random configuration, from rest, under the constant torques that hold
it there (``constrained_inverse_dynamics`` at rest, least norm). Such a posture is an unstable
equilibrium: pushed by 0.1 rad/s, solo12 collapses within a second (500 rad/s, and the projection
fails to converge at dt = 1 ms, as it should say); from rest, rounding errors grow but stay small
in 1 s, and every step still costs a full constrained dynamics and projection:

==================  ==============================================================================
artidyn simulate    ``artidyn.simulate(model, q, v, t_final=1, dt=1e-3, method="semi-implicit",
                    constraints=..., friction=False)``: compiled, projection onto the constraints
                    after every step (default), and with ``projection=False, baumgarte=(10, 10)``
pinocchio loop      ``v += dt * pin.constraintDynamics(...); q = pin.integrate(pm, q, dt * v)`` in
                    Python, Baumgarte gains Kp = 100, Kd = 20 (the same correction), no projection
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


def pin_problem(pm, pin, kind, frames, anchor_q=None, gains=(0.0, 0.0)):
    """pinocchio's constraint models; with ``anchor_q``, each held to its world placement there
    (joint2 = the universe at that placement: what Baumgarte's position term pulls back to)."""
    ctype = pin.ContactType.CONTACT_6D if kind == "6D" else pin.ContactType.CONTACT_3D
    cms = pin.StdVec_RigidConstraintModel()
    if anchor_q is not None:
        d = pm.createData()
        pin.framesForwardKinematics(pm, d, anchor_q)
    for f in frames:
        fid = pm.getFrameId(f)
        F = pm.frames[fid]
        if anchor_q is None:
            cm = pin.RigidConstraintModel(ctype, pm, F.parentJoint, F.placement, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        else:
            cm = pin.RigidConstraintModel(ctype, pm, F.parentJoint, F.placement, 0, d.oMf[fid],
                                          pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        bp = cm.m_baumgarte_parameters
        bp.Kp, bp.Kd = gains
        cm.m_baumgarte_parameters = bp
        cms.append(cm)
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

    cd = ad.constraints.ConstrainedDynamics(model, cons, friction=False)
    a_out = np.empty(model.nv)
    ra = ours().a                       # the evaluator: the public function's numbers
    err_a = max(err_a, float(np.max(np.abs(cd(q, v, tau) - ra))) / max(1.0, float(np.max(np.abs(ra)))))

    def ours_ev():
        return cd(q, v, tau, out=a_out)

    def theirs():
        return pin.constraintDynamics(pm, data, pQ[0], pV[0], pT[0], cms, cds, prox)

    def ours_batch():
        return ad.constrained_dynamics(model, Q, V, TAU, cons, friction=False)

    def theirs_loop():
        for k in range(n_batch):
            pin.constraintDynamics(pm, data, pQ[k], pV[k], pT[k], cms, cds, prox)

    t_ours, t_ev, t_pin = best_times([ours, ours_ev, theirs], 0.05, rounds)
    t_b, t_l = best_times([ours_batch, theirs_loop], 0.1, max(2, rounds // 2))
    sim = simulation(model, pm, pin, kind, frames, cons, Q[0], pQ[0])
    return (f"{stem}, {label}", model.nv, sum(c.rows for c in cons), t_ours * 1e6, t_ev * 1e6, t_pin * 1e6,
            t_b / n_batch * 1e6, t_l / n_batch * 1e6, max(err_a, err_f)), sim


def simulation(model, pm, pin, kind, frames, cons, q, pq, steps=1000, dt=1e-3):
    """Seconds for 1 s of simulation: artidyn (projection), artidyn (Baumgarte), pinocchio loop."""
    from pin_utils import from_pin_q, to_pin_v

    v = np.zeros(model.nv)
    tau = ad.constrained_inverse_dynamics(model, q, np.zeros(model.nv), np.zeros(model.nv), cons, friction=False).tau
    kw = dict(t_final=steps * dt, dt=dt, method="semi-implicit", constraints=cons, friction=False, tau=tau)
    ad.simulate(model, q, v, **kw)
    t0 = time.perf_counter()
    r1 = ad.simulate(model, q, v, **kw)
    t1 = time.perf_counter()
    r2 = ad.simulate(model, q, v, projection=False, baumgarte=(10.0, 10.0), **kw)
    t2 = time.perf_counter()
    data, cms, cds, prox = pin_problem(pm, pin, kind, frames, anchor_q=pq, gains=(100.0, 20.0))
    qp, vp, tau = pq.copy(), to_pin_v(model, pm, v), to_pin_v(model, pm, tau)
    t3 = time.perf_counter()
    for _ in range(steps):
        a = pin.constraintDynamics(pm, data, qp, vp, tau, cms, cds, prox)
        vp = vp + dt * a
        qp = pin.integrate(pm, qp, dt * vp)
    t4 = time.perf_counter()
    diff = float(np.max(np.abs(from_pin_q(model, pm, qp)[7:] - r2.q[-1][7:])))
    return t1 - t0, t2 - t1, t4 - t3, r1.stats["max_drift_position"], r2.stats["max_drift_position"], diff


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, smaller batch")
    args = parser.parse_args()
    n_batch, rounds = (200, 3) if args.quick else (1000, 7)
    t0 = time.perf_counter()
    rows = [measure(stem, n_batch, rounds) for stem in PROBLEMS]
    print(machine())
    print(f"\ntimes in µs per call / per state; batch N = {n_batch}; ratio = artidyn / pinocchio\n")
    print("| problem | nv | rows | artidyn single | artidyn evaluator | pinocchio single | single ratio "
          "| evaluator ratio | artidyn batch/state | pinocchio loop/state | batch ratio | max rel. diff |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (name, nv, m, t1, te, p1, tb, pl, err), _ in rows:
        print(f"| {name} | {nv} | {m} | {t1:.2f} | {te:.2f} | {p1:.2f} | {t1 / p1:.2f} | {te / p1:.2f} | {tb:.2f} "
              f"| {pl:.2f} | {tb / pl:.2f} | {err:.1e} |")
    print("\n1 s of simulation at dt = 1 ms, semi-implicit; ms; drift = max |phi| before projection / with "
          "Baumgarte alone; last column: max |q_artidyn - q_pinocchio| over the joints (Baumgarte runs)\n")
    print("| problem | artidyn (projection) | artidyn (Baumgarte) | pinocchio loop (Baumgarte) | ratio (Baumgarte) "
          "| drift (projection) | drift (Baumgarte) | joints apart |")
    print("|---|---|---|---|---|---|---|---|")
    for (name, *_), (a1, a2, p, d1, d2, diff) in rows:
        print(f"| {name} | {a1 * 1e3:.1f} | {a2 * 1e3:.1f} | {p * 1e3:.1f} | {a2 / p:.2f} | {d1:.1e} | {d2:.1e} "
              f"| {diff:.1e} |")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
