"""Symbolic models: operation counts and the speed of generated code.

    python benchmarks/symbolic.py [--kane] [--batch N]

Prints (1) the operations of the customised Newton-Euler (Khalil & Kleinfinger) for the n-link
planar pendulum, n = 2 .. 12, numeric parameters and all parameters symbolic (masses, first
moments, inertias, friction, gravity, lengths), with SymPy KanesMethod's count for small n when
``--kane`` is given (slow); (2) the Puma 560's counts; (3) the time per state of its inverse
dynamics: generated C (batch loop in C), numba, NumPy, against ``artidyn.rnea`` (compiled
kernel) on a batch and on single states. Asserts nothing.
"""
import argparse
import time

import numpy as np

import artidyn as ad
from artidyn.symbolic import counts, models


def best(fn, repeat=5):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def table_chain(kane):
    print("n-link planar pendulum, customised inverse dynamics (mul / add / fun)")
    print(f"{'n':>3} {'numeric params':>18} {'symbolic params':>18} {'total sym':>10}" + ("  KanesMethod count_ops" if kane else ""))
    for n in range(2, 13):
        m = counts.planar_chain(n)
        a = models.inverse_dynamics(m).ops
        b = models.inverse_dynamics(m, parameters=["all", "lengths"]).ops
        row = (f"{n:>3} {a['mul']:>6} {a['add']:>5} {a['fun']:>5} {b['mul']:>6} {b['add']:>5} {b['fun']:>5} "
               f"{sum(b.values()):>10}")
        if kane and n <= 4:
            row += f"  {counts.kane_ops(n):>8}"
        print(row)
    print("(KanesMethod at n = 6, from the issue: 21 805 operations for M and the forcing)\n")


def table_puma():
    m = ad.load("puma560")
    print("Puma 560 (mul / add / fun)")
    for label, params in (("inverse dynamics, numeric parameters", None),
                          ("inverse dynamics, inertial parameters symbolic", ["inertial"]),
                          ("inverse dynamics, all parameters symbolic", ["all"])):
        o = models.inverse_dynamics(m, parameters=params).ops
        print(f"  {label:<48} {o['mul']:>5} {o['add']:>5} {o['fun']:>4}")
    for label, sm in (("mass matrix (CRBA)", models.mass_matrix(m)), ("gravity", models.gravity(m)),
                      ("C(q, qd) qd", models.coriolis(m, product=True)),
                      ("placement of the last body", models.placement(m, m.body_names[-1])),
                      ("Jacobian of the last body", models.jacobian(m, m.body_names[-1]))):
        o = sm.ops
        print(f"  {label:<48} {o['mul']:>5} {o['add']:>5} {o['fun']:>4}")
    print("  (numeric recursive Newton-Euler for 6 dof: 852 / 738; Khalil's customised: about 224 / 174)\n")


def table_speed(N):
    m = ad.load("puma560")
    sm = models.inverse_dynamics(m)
    rng = np.random.default_rng(0)
    Q = ad.random_configuration(m, rng=rng, size=N)
    V, A = rng.normal(size=(N, 6)), rng.normal(size=(N, 6))
    ref = ad.rnea(m, Q, V, A)
    print(f"Puma 560 inverse dynamics, time per state (batch of {N}; single: one call)")
    print(f"  {'code':<26} {'batch (us)':>11} {'single (us)':>12} {'max |err|':>11}")
    rows = []
    for backend in ("c", "numba", "numpy"):
        f = sm.lambdify(backend)
        f(Q[:2], V[:2], A[:2])
        tb = best(lambda: f(Q, V, A)) / N
        ts = best(lambda: [f(Q[k], V[k], A[k]) for k in range(200)]) / 200
        rows.append((f"generated {backend}", tb, ts, np.abs(f(Q, V, A) - ref).max()))
    ad.rnea(m, Q[:2], V[:2], A[:2])
    tb = best(lambda: ad.rnea(m, Q, V, A)) / N
    ts = best(lambda: [ad.rnea(m, Q[k], V[k], A[k]) for k in range(200)]) / 200
    rows.append(("artidyn.rnea (kernel)", tb, ts, 0.0))
    for name, tb, ts, err in rows:
        print(f"  {name:<26} {tb * 1e6:>11.3f} {ts * 1e6:>12.2f} {err:>11.1e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kane", action="store_true", help="also count SymPy KanesMethod's operations (n <= 4; slow)")
    ap.add_argument("--batch", type=int, default=20000, help="batch size of the timings")
    args = ap.parse_args()
    table_chain(args.kane)
    table_puma()
    table_speed(args.batch)


if __name__ == "__main__":
    main()
