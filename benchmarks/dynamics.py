"""Dynamics speed: artidyn's compiled kernels against pinocchio, measured in one run.

    python benchmarks/dynamics.py            # the table (about a minute)
    python benchmarks/dynamics.py --cold     # also the cold compile time (empty numba cache, ~1 min more)
    python benchmarks/dynamics.py --quick    # fewer robots and repeats

Columns (microseconds; "per state" = a batch of N states timed as one call, divided by N):

==============  ===========================================================================
single          one call from Python with one state: ``artidyn.rnea(model, q, v, a)``
bound           the bound evaluator: ``dyn.rnea(q, v, a, out=tau)`` with ``dyn = artidyn.Dynamics(model)``
batch/state     ``artidyn.rnea(model, Q, V, A)`` with Q (N, nq) ..., N = 10 000, all cores
pin single      ``pin.rnea(model, data, q, v, a)`` (``pin.aba``, ``pin.crba``)
pin par1/par2   ``pin.rneaInParallel(threads, ModelPool, Q, V, A, out)`` (``abaInParallel``)
                with 1 and 2 threads; for crba (no parallel version) a Python loop of ``pin.crba``
single ratio    single / pin single (bound ratio: bound / pin single)
batch ratio     batch/state / best of pin par1, par2
==============  ===========================================================================

Chains: random serial chains of revolute joints about their z axes (pinocchio's fastest joint
model, JointModelRZ), same inertias and placements in both libraries; the last column gives
batch/state per body (O(n) algorithms keep it flat; CRBA is O(n^2) on a chain).

The script asserts nothing: it prints the numbers and the machine.
"""
import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import artidyn
from artidyn.builder import ModelBuilder

N_BATCH = 10_000


def loops_for(f, min_time):
    """How many calls of f take at least ``min_time`` seconds."""
    f()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        t = time.perf_counter() - t0
        if t >= min_time:
            return n
        n = max(2 * n, int(n * min_time / max(t, 1e-9)) + 1)


def best_times(fs, min_time, rounds):
    """Best time of one call of each function of ``fs`` (seconds). The functions are timed in
    turn, round after round, so that a burst of load on a shared machine hits them all alike."""
    loops = [loops_for(f, min_time) for f in fs]
    best = [float("inf")] * len(fs)
    for _ in range(rounds):
        for k, (f, n) in enumerate(zip(fs, loops)):
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            best[k] = min(best[k], (time.perf_counter() - t0) / n)
    return best


def erd_path(stem):
    from importlib.metadata import distribution
    dist = distribution("example-robot-data")
    for f in dist.files or []:
        if str(f).endswith(f"/{stem}.urdf"):
            return Path(dist.locate_file(f))
    raise FileNotFoundError(stem)


def z_chain(n, seed=0):
    """A random chain of n revolute joints about their local z axes (an artidyn Model)."""
    rng = np.random.default_rng(seed)
    b = ModelBuilder(f"chain_{n}")
    parent = "world"
    for k in range(n):
        m = rng.uniform(0.5, 2.0)
        d = rng.uniform(0.01, 0.05, 3)
        inertia = m / 3 * np.diag([d[1] ** 2 + d[2] ** 2, d[0] ** 2 + d[2] ** 2, d[0] ** 2 + d[1] ** 2])
        b.add_body(f"b{k}", parent, "revolute", axis=(0, 0, 1), xyz=rng.uniform(-0.2, 0.2, 3),
                   rpy=rng.uniform(-np.pi, np.pi, 3), mass=m, com=rng.uniform(-0.05, 0.05, 3), inertia=inertia)
        parent = f"b{k}"
    return b.build()


def pin_chain(model):
    """The pinocchio twin of a z_chain."""
    import pinocchio as pin
    pm = pin.Model()
    pm.gravity = pin.Motion(np.asarray(model.gravity, dtype=float), np.zeros(3))
    for i in range(1, model.nb + 1):
        T = model.joint_placement[i]
        j = pm.addJoint(int(model.parent[i]), pin.JointModelRZ(), pin.SE3(T[:3, :3].copy(), T[:3, 3].copy()),
                        model.joint_names[i])
        pm.appendBodyToJoint(j, pin.Inertia(float(model.mass[i]), model.com[i].copy(), model.inertia_com[i].copy()),
                             pin.SE3.Identity())
    return pm


def robots(quick):
    import pinocchio as pin
    out = []
    for stem, floating in [("ur5_robot", False), ("panda", False), ("solo12", True), ("talos_full_v2", True)]:
        if quick and stem in ("solo12",):
            continue
        path = str(erd_path(stem))
        model = artidyn.load_urdf(path, floating_base=floating)
        pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
        out.append((stem + (" (floating)" if floating else ""), model, pm))
    for n in (8, 32, 128):
        model = z_chain(n)
        out.append((f"chain {n}", model, pin_chain(model)))
    return out


def pin_states(pm, rng, n):
    import pinocchio as pin
    q0 = pin.neutral(pm)
    Q = np.stack([pin.integrate(pm, q0, 0.5 * rng.normal(size=pm.nv)) for _ in range(n)], axis=1)
    return np.asfortranarray(Q), rng.normal(size=(pm.nv, n), ), rng.normal(size=(pm.nv, n))


def measure(label, model, pm, n_batch, repeat):
    import pinocchio as pin
    rng = np.random.default_rng(0)
    q = artidyn.random_configuration(model, rng)
    v, a = artidyn.random_velocity(model, rng), artidyn.random_velocity(model, rng)
    Q = artidyn.random_configuration(model, rng, n_batch)
    V, A = artidyn.random_velocity(model, rng, n_batch), artidyn.random_velocity(model, rng, n_batch)
    data = pm.createData()
    pQ, pV, pA = pin_states(pm, rng, n_batch)
    pq, pv, pa = pQ[:, 0].copy(), pV[:, 0].copy(), pA[:, 0].copy()
    pool = pin.ModelPool(pm, 2)
    out = np.zeros((pm.nv, n_batch), order="F")
    n_crba = max(200, n_batch // 20)
    rows = []
    dyn = artidyn.Dynamics(model)
    o_v, o_m = np.empty(model.nv), np.empty((model.nv, model.nv))
    for name in ("rnea", "aba", "crba"):
        if name == "rnea":
            single = lambda: artidyn.rnea(model, q, v, a)                        # noqa: E731
            bound = lambda: dyn.rnea(q, v, a, out=o_v)                           # noqa: E731
            batch = lambda: artidyn.rnea(model, Q, V, A)                         # noqa: E731
            p_single = lambda: pin.rnea(pm, data, pq, pv, pa)                    # noqa: E731
            p_par = lambda t: pin.rneaInParallel(t, pool, pQ, pV, pA, out)       # noqa: E731
        elif name == "aba":
            single = lambda: artidyn.aba(model, q, v, a)                         # noqa: E731
            bound = lambda: dyn.aba(q, v, a, out=o_v)                            # noqa: E731
            batch = lambda: artidyn.aba(model, Q, V, A)                          # noqa: E731
            p_single = lambda: pin.aba(pm, data, pq, pv, pa)                     # noqa: E731
            p_par = lambda t: pin.abaInParallel(t, pool, pQ, pV, pA, out)        # noqa: E731
        else:
            single = lambda: artidyn.crba(model, q)                              # noqa: E731
            bound = lambda: dyn.crba(q, out=o_m)                                 # noqa: E731
            batch = lambda: artidyn.crba(model, Q)                               # noqa: E731
            p_single = lambda: pin.crba(pm, data, pq)                            # noqa: E731

            def p_par(t):
                for k in range(n_crba):
                    pin.crba(pm, data, pQ[:, k])
        t_single, t_bound, t_pin = best_times([single, bound, p_single], 0.02, repeat)
        if name == "crba":
            t_batch, t_loop = best_times([batch, lambda: p_par(1)], 0.05, repeat)
            t_batch, t_par = t_batch / n_batch, [t_loop / n_crba] * 2
        else:
            t_batch, t1, t2 = best_times([batch, lambda: p_par(1), lambda: p_par(2)], 0.05, repeat)
            t_batch, t_par = t_batch / n_batch, [t1 / n_batch, t2 / n_batch]
        rows.append((label, name, model.nv, model.nb, t_single, t_bound, t_batch, t_pin, t_par[0], t_par[1]))
    return rows


def first_call_seconds(cold):
    """Seconds for ``import artidyn`` and the first rnea / aba / crba call in a new process."""
    code = ("import time; t0 = time.perf_counter(); import artidyn, numpy as np; t1 = time.perf_counter();"
            "from artidyn.models.zoo import random_chain; m = random_chain(0, 6); q = np.zeros(m.nq);"
            "t2 = time.perf_counter(); artidyn.rnea(m, q, q, q); t3 = time.perf_counter();"
            "artidyn.aba(m, q, q, q); artidyn.crba(m, q); artidyn.jacobian(m, q, 'tcp'); t4 = time.perf_counter();"
            "artidyn.rnea(m, q[None], q[None], q[None]); t5 = time.perf_counter();"
            "print(t1 - t0, t3 - t2, t4 - t3, t5 - t4)")
    env = dict(os.environ)
    tmp = None
    if cold:
        tmp = tempfile.TemporaryDirectory()
        env["NUMBA_CACHE_DIR"] = tmp.name
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - t0
    if tmp is not None:
        tmp.cleanup()
    imp, rnea_first, others_first, batch_first = (float(x) for x in res.stdout.split())
    return imp, rnea_first, others_first, batch_first, wall


def machine():
    name = platform.processor() or platform.machine()
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name"):
                name = line.split(":", 1)[1].strip()
    except OSError:
        pass
    import numba
    import pinocchio as pin
    return (f"{name}, {os.cpu_count()} cores, numba {numba.__version__} ({numba.threading_layer()} threads: "
            f"{numba.get_num_threads()}), pinocchio {pin.__version__}, numpy {np.__version__}, "
            f"Python {platform.python_version()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", action="store_true", help="also time a cold compile (empty numba cache)")
    parser.add_argument("--quick", action="store_true", help="fewer robots, fewer repeats")
    args = parser.parse_args()
    repeat = 3 if args.quick else 9
    n_batch = 2000 if args.quick else N_BATCH

    first = first_call_seconds(cold=False)
    rows = []
    for label, model, pm in robots(args.quick):
        rows += measure(label, model, pm, n_batch, repeat)

    print(f"machine: {machine()}")
    print(f"N = {n_batch} states per batch; times in microseconds (best of {repeat} interleaved rounds)\n")
    head = (f"{'model':<24}{'algo':<6}{'nv':>4} {'single':>8} {'bound':>7} {'batch/st':>9} {'pin single':>11} "
            f"{'pin par1':>9} {'pin par2':>9} {'single ratio':>13} {'bound ratio':>12} {'batch ratio':>12} "
            f"{'batch/body':>11}")
    print(head)
    print("-" * len(head))
    us = 1e6
    for label, name, nv, nbody, t_s, t_o, t_b, t_p, p1, p2 in rows:
        par = "" if name != "crba" else "*"
        print(f"{label:<24}{name:<6}{nv:>4} {t_s * us:8.2f} {t_o * us:7.2f} {t_b * us:9.3f} {t_p * us:11.2f} "
              f"{p1 * us:8.3f}{par:1} {p2 * us:8.3f}{par:1} {t_s / t_p:13.2f} {t_o / t_p:12.2f} "
              f"{t_b / min(p1, p2):12.2f} {t_b / nbody * 1e9:9.1f} ns")
    print("* crba: a Python loop of pin.crba (pinocchio has no crbaInParallel); same number in both columns")
    print()
    imp, r1, o1, b1, wall = first
    print(f"new process, compile cache warm: import artidyn {imp:.2f} s; first rnea call {r1:.2f} s; "
          f"first aba + crba + jacobian {o1:.2f} s; first batch call {b1:.2f} s (process {wall:.1f} s)")
    if args.cold:
        imp, r1, o1, b1, wall = first_call_seconds(cold=True)
        print(f"new process, cold (empty numba cache): first rnea call {r1:.1f} s; aba + crba + jacobian "
              f"{o1:.1f} s; first batch call (compiles every batch kernel) {b1:.1f} s; total {r1 + o1 + b1:.1f} s")


if __name__ == "__main__":
    main()
