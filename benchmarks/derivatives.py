"""Speed of the analytical derivatives of RNEA and ABA: artidyn's kernels against pinocchio, in one run.

    python benchmarks/derivatives.py            # the table (about a minute)
    python benchmarks/derivatives.py --quick    # fewer repeats, smaller batches
    python benchmarks/derivatives.py --cpu      # process CPU time instead of wall time
    python benchmarks/derivatives.py --threads 1   # numba threads for the batches (default: all)

Columns (microseconds; "per state" = a batch of N states timed as one call, divided by N):

==============  ===========================================================================
single          ``artidyn.rnea_derivatives(model, q, v, a)`` (``aba_derivatives(model, q, v, tau)``)
                from Python, one state: the three (nv, nv) matrices
bound           ``dyn.rnea_derivatives(q, v, a, out=D)`` (``aba_derivatives``) of the bound evaluator
                ``dyn = artidyn.Dynamics(model)``, into a preallocated (3, nv, nv) ``D``
batch/state     the same with Q (N, nq), V, A (N, nv): one call, all cores
pin single      ``pin.computeRNEADerivatives(model, data, q, v, a)`` (``computeABADerivatives``),
                which also returns the three matrices
pin loop        a Python loop of the pinocchio call over N states, per state (pinocchio has no
                parallel version of the derivatives)
single ratio    single / pin single          (target of issue 16: <= 1.0)
bound ratio     bound / pin single
batch ratio     batch/state / pin single     (target: <= 0.5)
==============  ===========================================================================

Same robots, states and pinocchio models as ``benchmarks/dynamics.py``. Many short rounds
(a few ms each), best of them: on a loaded machine some rounds run undisturbed. ``--cpu`` times
with the process CPU time (summed over threads: for batches the work per state, not the wall
time), which leaves out the time spent waiting for a core. The script asserts nothing
(DESIGN.md): it prints the numbers, the machine and its load.
"""
import argparse
import os
import time

import numpy as np

import artidyn
from dynamics import erd_path, machine, pin_states

N_BATCH = 1000
ROBOTS = [("ur5_robot", False), ("panda", False), ("solo12", True), ("talos_full_v2", True)]


def best_times(fs, min_time, rounds, clock=time.perf_counter):
    """Best time of one call of each function of ``fs`` (seconds), timed in turn round after
    round (as benchmarks/dynamics.py), with ``clock``."""
    loops = []
    for f in fs:
        f()
        n = 1
        while True:
            t0 = clock()
            for _ in range(n):
                f()
            t = clock() - t0
            if t >= min_time:
                break
            n = max(2 * n, int(n * min_time / max(t, 1e-9)) + 1)
        loops.append(n)
    best = [float("inf")] * len(fs)
    for _ in range(rounds):
        for k, (f, n) in enumerate(zip(fs, loops)):
            t0 = clock()
            for _ in range(n):
                f()
            best[k] = min(best[k], (clock() - t0) / n)
    return best


def robots():
    import pinocchio as pin
    out = []
    for stem, floating in ROBOTS:
        path = str(erd_path(stem))
        model = artidyn.load_urdf(path, floating_base=floating)
        pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
        out.append((stem + (" (floating)" if floating else ""), model, pm))
    return out


def measure(label, model, pm, n_batch, repeat, clock):
    import pinocchio as pin
    rng = np.random.default_rng(0)
    q = artidyn.random_configuration(model, rng)
    v, a = artidyn.random_velocity(model, rng), artidyn.random_velocity(model, rng)
    Q = artidyn.random_configuration(model, rng, n_batch)
    V, A = artidyn.random_velocity(model, rng, n_batch), artidyn.random_velocity(model, rng, n_batch)
    data = pm.createData()
    pQ, pV, pA = pin_states(pm, rng, n_batch)
    pq, pv, pa = pQ[:, 0].copy(), pV[:, 0].copy(), pA[:, 0].copy()
    cols = [(pQ[:, k].copy(), pV[:, k].copy(), pA[:, k].copy()) for k in range(n_batch)]
    rows = []
    dyn = artidyn.Dynamics(model)
    D = np.empty((3, model.nv, model.nv))
    for name, fn, pfn, bfn in (("rnea", artidyn.rnea_derivatives, pin.computeRNEADerivatives, dyn.rnea_derivatives),
                               ("aba", artidyn.aba_derivatives, pin.computeABADerivatives, dyn.aba_derivatives)):
        single = lambda: fn(model, q, v, a)                           # noqa: E731
        bound = lambda: bfn(q, v, a, out=D)                           # noqa: E731
        batch = lambda: fn(model, Q, V, A)                            # noqa: E731
        p_single = lambda: pfn(pm, data, pq, pv, pa)                  # noqa: E731

        def p_loop():
            for x in cols:
                pfn(pm, data, *x)
        t_single, t_bound, t_pin = best_times([single, bound, p_single], 0.002, 3 * repeat, clock)
        t_batch, t_loop = best_times([batch, p_loop], 0.002, repeat, clock)
        rows.append((label, name, model.nv, t_single, t_bound, t_batch / n_batch, t_pin, t_loop / n_batch))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller batches")
    parser.add_argument("--cpu", action="store_true", help="time with the process CPU time")
    parser.add_argument("--threads", type=int, default=0, help="numba threads for the batches (0: all)")
    args = parser.parse_args()
    if args.threads:
        import numba
        numba.set_num_threads(args.threads)
    repeat = 3 if args.quick else 10
    clock = time.process_time if args.cpu else time.perf_counter
    n_batch = 200 if args.quick else N_BATCH

    load_before = os.getloadavg()
    rows = []
    for label, model, pm in robots():
        artidyn.rnea_derivatives(model, artidyn.neutral(model), np.zeros(model.nv), np.zeros(model.nv))  # compile
        rows += measure(label, model, pm, n_batch, repeat, clock)
    load_after = os.getloadavg()

    print(f"machine: {machine()}")
    print(f"load average (1, 5, 15 min): before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    what = "process CPU time" if args.cpu else "wall time"
    print(f"N = {n_batch} states per batch; {what} in microseconds (best of {3 * repeat} interleaved rounds "
          f"for single calls, {repeat} for batches)\n")
    head = (f"{'model':<26}{'deriv':<6}{'nv':>4} {'single':>8} {'bound':>8} {'batch/st':>9} {'pin single':>11} "
            f"{'pin loop':>9} {'single ratio':>13} {'bound ratio':>12} {'batch ratio':>12}")
    print(head)
    print("-" * len(head))
    us = 1e6
    for label, name, nv, t_s, t_d, t_b, t_p, t_l in rows:
        print(f"{label:<26}{name:<6}{nv:>4} {t_s * us:8.2f} {t_d * us:8.2f} {t_b * us:9.3f} {t_p * us:11.2f} "
              f"{t_l * us:9.2f} {t_s / t_p:13.2f} {t_d / t_p:12.2f} {t_b / t_p:12.2f}")


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"\n(run took {time.perf_counter() - t0:.0f} s)")
