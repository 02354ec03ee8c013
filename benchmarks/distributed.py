"""Batches on a local Dask cluster against the in-process batch, measured in one run.

    python benchmarks/distributed.py            # rnea on 200 000 states of ur5_robot, 64 rollouts x 1000 steps
    python benchmarks/distributed.py --quick    # 50 000 states, 16 rollouts

Rows: the in-process call with numba's threads (``in-process``) and with one thread (``1 thread``,
the compute cost of the tasks), then ``artidyn.distributed`` on local clusters of 1 and 2 worker
processes (one thread each). Columns:

==================  =========================================================================
wall s              best of the repeats, the whole call (scatter, tasks, gather, concatenation)
throughput          states (or rollout steps) per second
scaling             1-thread time / wall (the speed-up over one thread of compiled code)
overhead/task us    (wall x workers - 1-thread time) / tasks: the worker time a task costs beyond
                    its computation (transfers, scheduling, (un)pickling, concatenation), amortised
==================  =========================================================================

A last line times tiny tasks (chunk=1) on 2 workers: the round trip of one task. The machine's
cores and load average are printed: on a shared machine the scaling is bounded by the idle cores.
The script asserts nothing.
"""
import argparse
import os
import platform
import sys
import time
import warnings

# this file's name would shadow the package dask.distributed: drop its folder from the path
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import numpy as np  # noqa: E402

import artidyn as ad  # noqa: E402
import artidyn.distributed as dist  # noqa: E402


def best(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def one_thread(fn):
    import numba

    n = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        return fn()
    finally:
        numba.set_num_threads(n)


def row(name, wall, work, unit, t1, workers=None, tasks=None):
    over = "" if workers is None else f"{(wall * workers - t1) / tasks * 1e6:16.0f}"
    print(f"{name:<22}{wall:10.3f}{work / wall:14.4g} {unit:<9}{t1 / wall:9.2f}{over}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    warnings.simplefilter("ignore", ad.sim.JointLimitWarning)     # free motions cross the joint limits
    N, runs, steps = (50_000, 16, 1000) if args.quick else (200_000, 64, 1000)
    chunk = 20_000
    m = ad.load("ur5_robot")
    rng = np.random.default_rng(0)
    Q = ad.random_configuration(m, rng=rng, size=N)
    V, A = rng.normal(size=(N, m.nv)), rng.normal(size=(N, m.nv))
    Q0 = ad.random_configuration(m, rng=rng, size=runs)
    roll = dict(tau=0.0, t_final=steps * 1e-3, dt=1e-3)

    import dask
    import numba
    print(f"artidyn.distributed, ur5_robot (nv = {m.nv}); python {platform.python_version()}, dask {dask.__version__}, "
          f"numba threads {numba.get_num_threads()}, {os.cpu_count()} cores")
    print("load average before (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))

    ad.rnea(m, Q[:10], V[:10], A[:10])
    ad.rollout(m, Q0[:2], **roll)
    t_rnea = best(lambda: ad.rnea(m, Q, V, A), args.repeats)
    t1_rnea = one_thread(lambda: best(lambda: ad.rnea(m, Q, V, A), args.repeats))
    t_roll = best(lambda: ad.rollout(m, Q0, **roll), args.repeats)
    t1_roll = one_thread(lambda: best(lambda: ad.rollout(m, Q0, **roll), args.repeats))

    head = f"{'':<22}{'wall s':>10}{'throughput':>14} {'':<9}{'scaling':>9}{'overhead/task us':>17}"
    results = {}
    for workers in (1, 2):
        c = dist.client(n_workers=workers, threads_per_worker=1)
        try:
            dist.rnea(m, Q[:100], V[:100], A[:100], chunk=50)                 # workers load the kernels
            dist.rollout(m, Q0[:4], **roll, chunk=2)
            results[workers] = (best(lambda: dist.rnea(m, Q, V, A, chunk=chunk), args.repeats),
                                best(lambda: dist.rollout(m, Q0, **roll), args.repeats),
                                dist._rollout._default_chunk(c, runs))
            if workers == 2:
                n_tiny = 400
                t_tiny = best(lambda: dist.rnea(m, Q[:n_tiny], V[:n_tiny], A[:n_tiny], chunk=1), 1)
        finally:
            c.close()

    tasks = -(-N // chunk)
    print(f"\nrnea, {N} states, chunk = {chunk} ({tasks} tasks)")
    print(head)
    row("in-process", t_rnea, N, "states/s", t1_rnea)
    row("in-process, 1 thread", t1_rnea, N, "states/s", t1_rnea)
    for w, (t, _, _) in results.items():
        row(f"{w} worker(s)", t, N, "states/s", t1_rnea, w, tasks)

    rc = results[2][2]
    print(f"\nrollout, {runs} runs x {steps} steps (rk4), chunk = {rc} runs on 2 workers, "
          f"{results[1][2]} on 1 (twice the threads)")
    print(head)
    work = runs * steps
    row("in-process", t_roll, work, "steps/s", t1_roll)
    row("in-process, 1 thread", t1_roll, work, "steps/s", t1_roll)
    for w, (_, t, c_runs) in results.items():
        row(f"{w} worker(s)", t, work, "steps/s", t1_roll, w, -(-runs // c_runs))

    print(f"\ntiny tasks: rnea of {n_tiny} states with chunk = 1 on 2 workers: {t_tiny:.3f} s, "
          f"{t_tiny / n_tiny * 1e6:.0f} us per task (wall), {2 * t_tiny / n_tiny * 1e6:.0f} us of worker time")
    print("load average after (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
