"""GAHA, Christoffel symbols and hybrid dynamics: compiled kernels beside crba / aba and pinocchio.

    python benchmarks/formulations.py             # talos and solo12 (about a minute)
    python benchmarks/formulations.py --reference # also the readable reference code (slow: ~0.1 s a call)
    python benchmarks/formulations.py --quick     # fewer repeats

Rows (microseconds; best of several rounds, every function timed in turn within a round, so that
a burst of load on a shared machine hits them all alike):

====================  =============================================================================
crba, aba             ``artidyn.crba(model, q)``, ``artidyn.aba(model, q, v, tau)``: the yardsticks
gaha                  ``artidyn.gaha(model, q)`` (mass matrix as the Gibbs-Appell Hessian)
christoffel           ``artidyn.christoffel(model, q)`` (nv^3 symbols from dM/dq)
hybrid                ``artidyn.hybrid_dynamics(model, q, v, a, tau, joints)``: every joint but the
                      floating base prescribed (the base free, its wrench zero)
... batch/state       the same on N states in one call, divided by N
... reference         the same inside ``artidyn.kernels.reference_only()`` (with --reference)
pin crba, pin aba     ``pin.crba``, ``pin.aba`` on the same URDF
pin coriolis          ``pin.computeCoriolisMatrix`` (C(q, v), O(n^2)); pinocchio has no Christoffel
                      tensor and no hybrid dynamics
====================  =============================================================================

"x crba" / "x aba": the row's time over crba's (gaha, christoffel) or aba's (hybrid) in the same
run. The load average is printed before and after. The script asserts nothing.
"""
import argparse
import os
import platform

import numpy as np

import artidyn
from artidyn.models import example_robot
from artidyn.models.erd import example_robot_path
from dynamics import best_times          # this folder (the script's): the timing rule of dynamics.py

ROBOTS = ("talos", "solo12")


def cases(name, n_batch, with_reference):
    """[(label, function, divisor, yardstick label)] for one robot."""
    model = example_robot(name)
    rng = np.random.default_rng(0)
    q = artidyn.random_configuration(model, rng)
    v, a = artidyn.random_velocity(model, rng), artidyn.random_velocity(model, rng)
    tau = np.zeros(model.nv)
    Q = artidyn.random_configuration(model, rng, n_batch)
    V, A = artidyn.random_velocity(model, rng, n_batch), artidyn.random_velocity(model, rng, n_batch)
    T = np.zeros((n_batch, model.nv))
    joints = [j for j in model.joint_names[1:] if j != "root_joint"]
    nc = max(1, n_batch // 10)      # Christoffel batches: nv^3 numbers a state
    out = [("crba", lambda: artidyn.crba(model, q), 1, None),
           ("gaha", lambda: artidyn.gaha(model, q), 1, "crba"),
           ("christoffel", lambda: artidyn.christoffel(model, q), 1, "crba"),
           ("aba", lambda: artidyn.aba(model, q, v, tau), 1, None),
           ("hybrid", lambda: artidyn.hybrid_dynamics(model, q, v, a, tau, joints), 1, "aba"),
           ("crba batch/state", lambda: artidyn.crba(model, Q), n_batch, None),
           ("gaha batch/state", lambda: artidyn.gaha(model, Q), n_batch, "crba batch/state"),
           ("christoffel batch/state", lambda: artidyn.christoffel(model, Q[:nc]), nc, "crba batch/state"),
           ("aba batch/state", lambda: artidyn.aba(model, Q, V, T), n_batch, None),
           ("hybrid batch/state", lambda: artidyn.hybrid_dynamics(model, Q, V, A, T, joints), n_batch,
            "aba batch/state")]
    if with_reference:
        def ref(f):
            def g():
                with artidyn.kernels.reference_only():
                    f()
            return g
        out += [("gaha reference", ref(lambda: artidyn.gaha(model, q)), 1, "crba"),
                ("christoffel reference", ref(lambda: artidyn.christoffel(model, q)), 1, "crba"),
                ("hybrid reference", ref(lambda: artidyn.hybrid_dynamics(model, q, v, a, tau, joints)), 1, "aba")]
    try:
        import pinocchio as pin
    except ImportError:
        return model, out
    path = str(example_robot_path(name))
    floating = model.joint_names[1] == "root_joint"
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
    pd = pm.createData()
    pq = pin.integrate(pm, pin.neutral(pm), 0.5 * rng.normal(size=pm.nv))
    pv, pt = rng.normal(size=pm.nv), np.zeros(pm.nv)
    out += [("pin crba", lambda: pin.crba(pm, pd, pq), 1, None),
            ("pin aba", lambda: pin.aba(pm, pd, pq, pv, pt), 1, None),
            ("pin coriolis", lambda: pin.computeCoriolisMatrix(pm, pd, pq, pv), 1, None)]
    return model, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, shorter timings")
    parser.add_argument("--reference", action="store_true", help="also time the readable reference code")
    parser.add_argument("--batch", type=int, default=1000, help="states of a batch (Christoffel: a tenth)")
    args = parser.parse_args()
    min_time, rounds = (0.02, 3) if args.quick else (0.1, 7)
    print(f"artidyn {artidyn.__version__}, numpy {np.__version__}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    for name in ROBOTS:
        model, rows = cases(name, args.batch, args.reference)
        times = best_times([f for _, f, _, _ in rows], min_time, rounds)
        us = {label: t / div * 1e6 for (label, _, div, _), t in zip(rows, times)}
        print(f"\n{name}: nb = {model.nb}, nq = {model.nq}, nv = {model.nv}")
        print(f"  {'':26s} {'us':>10s} {'ratio':>12s}")
        for label, _, _, yard in rows:
            ratio = f"{us[label] / us[yard]:7.1f} x {yard.split()[0]}" if yard else ""
            print(f"  {label:26s} {us[label]:10.2f} {ratio}")
    print(f"\nload average after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


if __name__ == "__main__":
    main()
