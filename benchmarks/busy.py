"""Batches on a busy machine: batched RNEA / ABA of N states, quiet and with a CPU hog beside them.

    python benchmarks/busy.py [--robot ur5_robot] [--n 1000] [--calls 400] [--hogs 1]

For each algorithm, the mean wall time per state over ``--calls`` calls (mean, not best: a stall
of one call in ten is what a busy machine does to a batch), and the worst call, for:

artidyn            ``artidyn.rnea(model, Q, V, A)`` (numba's threads, as configured)
pin par            ``pin.rneaInParallel(threads, ModelPool, Q, V, A, out)`` (OpenMP), same threads

first on a quiet machine, then while ``--hogs`` processes each keep one core busy (a Python loop
``while True: pass``). The ratio busy / quiet is the slowdown; with one of two cores taken, 2x is
the bound. Load average printed before and after. artidyn sets ``GOMP_SPINCOUNT=300`` at import
(:mod:`artidyn.threads`); pinocchio's OpenMP threads, in the same process, share that setting.
Run with ``GOMP_SPINCOUNT=300000`` (GNU OpenMP's default) to see both without it.
"""
import argparse
import os
import platform
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import artidyn  # noqa: E402

HOG = "while True: pass"


def timed(fn, calls):
    """(mean, worst) seconds per call over ``calls`` calls, after three warm-up calls."""
    for _ in range(3):
        fn()
    times = np.empty(calls)
    for k in range(calls):
        t0 = time.perf_counter()
        fn()
        times[k] = time.perf_counter() - t0
    return times.mean(), times.max()


def cases(model, pm, n, threads):
    import pinocchio as pin
    from dynamics import pin_states
    rng = np.random.default_rng(0)
    Q = artidyn.random_configuration(model, rng, n)
    V, A = artidyn.random_velocity(model, rng, n), artidyn.random_velocity(model, rng, n)
    pQ, pV, pA = pin_states(pm, rng, n)
    pool = pin.ModelPool(pm, threads)
    out = np.zeros((pm.nv, n), order="F")
    return {
        ("rnea", "artidyn"): lambda: artidyn.rnea(model, Q, V, A),
        ("rnea", "pin par"): lambda: pin.rneaInParallel(threads, pool, pQ, pV, pA, out),
        ("aba", "artidyn"): lambda: artidyn.aba(model, Q, V, A),
        ("aba", "pin par"): lambda: pin.abaInParallel(threads, pool, pQ, pV, pA, out),
    }


def main():
    import numba
    import pinocchio as pin
    from dynamics import erd_path
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--robot", default="ur5_robot")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--hogs", type=int, default=1)
    args = parser.parse_args()
    threads = numba.get_num_threads()
    path = str(erd_path(args.robot))
    model = artidyn.load_urdf(path)
    pm = pin.buildModelFromUrdf(path)
    runs = cases(model, pm, args.n, threads)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; numba "
          f"{numba.__version__} ({numba.threading_layer() if hasattr(numba, 'threading_layer') else '?'} "
          f"threads: {threads}), pinocchio {pin.__version__}")
    print("load average (1, 5, 15 min) before: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    quiet = {key: timed(fn, args.calls) for key, fn in runs.items()}
    try:
        import numba.np.ufunc.parallel as par
        layer = par._threading_layer
    except Exception:
        layer = "?"
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hogs)]
    try:
        time.sleep(0.5)
        busy = {key: timed(fn, args.calls) for key, fn in runs.items()}
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    print("load average (1, 5, 15 min) after:  " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"{args.robot}, N = {args.n} states a call, {args.calls} calls, {args.hogs} hog(s); numba layer "
          f"{layer}; microseconds per state (mean over the calls), worst call in ms\n")
    print(f"{'algorithm':9s} {'who':8s} {'quiet':>8s} {'busy':>8s} {'busy/quiet':>10s} {'worst quiet':>12s} "
          f"{'worst busy':>11s}")
    for (alg, who), (mq, wq) in quiet.items():
        mb, wb = busy[alg, who]
        print(f"{alg:9s} {who:8s} {1e6 * mq / args.n:8.3f} {1e6 * mb / args.n:8.3f} {mb / mq:10.2f} "
              f"{1e3 * wq:12.3f} {1e3 * wb:11.3f}")
    for alg in ("rnea", "aba"):
        print(f"{alg}: artidyn busy / pinocchio busy = {busy[alg, 'artidyn'][0] / busy[alg, 'pin par'][0]:.2f}")


if __name__ == "__main__":
    main()
