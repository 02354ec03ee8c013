"""The analytical formulations (``artidyn.analytical.accelerations``, compiled) beside the compiled
``constrained_dynamics`` on the same problems.

    python benchmarks/analytical.py               # talos, talos_full_v2, solo12 (about a minute)
    python benchmarks/analytical.py --reference   # also the readable reference code (slow)
    python benchmarks/analytical.py --quick       # fewer rounds

Problems: talos (talos_reduced) and talos_full_v2 with both soles welded (``Weld("left_sole_link",
at=q)``, ``Weld("right_sole_link", at=q)``: 12 rows), solo12 with its four feet held (``Point(foot,
at=q)``: 12 rows); a random configuration, random velocities and torques.

Rows (microseconds; best of several rounds, every function timed in turn within a round):

========================  =======================================================================
constrained_dynamics      ``artidyn.constrained_dynamics(model, q, v, tau, constraints)``: the
                          compiled tree-sparse route, the yardstick
<method>                  ``analytical.accelerations(system, q, v, tau, method=...)``, system =
                          ``analytical.System(model, constraints)``: the whole public call
"x cd"                    that time over constrained_dynamics' (the target of issue #36: <= 10)
batch/state               the same on N = 1000 states in one call (q (N, nq) ...), divided by N,
                          and its ratio to constrained_dynamics' batch per state
reference                 the call inside ``artidyn.kernels.reference_only()`` (with --reference),
                          milliseconds, and how many times the compiled call is faster
========================  =======================================================================

The load average is printed before and after. The script asserts nothing.
"""
import argparse
import os
import platform
import sys
from pathlib import Path

import numpy as np

import artidyn as ad
from artidyn import analytical as an
from artidyn.constraints import Point, Weld
from artidyn.models import example_robot

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dynamics import best_times  # noqa: E402  (this folder: the timing rule of dynamics.py)

HELD = {"talos": ("weld", ("left_sole_link", "right_sole_link")),
        "talos_full_v2": ("weld", ("left_sole_link", "right_sole_link")),
        "solo12": ("point", ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"))}


def problem(name, n_batch):
    model = example_robot(name)
    rng = np.random.default_rng(0)
    q = ad.random_configuration(model, rng)
    kind, frames = HELD[name]
    cs = [Weld(f, at=q) if kind == "weld" else Point(f, at=q) for f in frames]
    v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
    Q = np.repeat(q[None], n_batch, 0)
    Q[:, 7:] += 0.01 * rng.normal(size=(n_batch, model.nq - 7))
    V, T = rng.normal(size=(n_batch, model.nv)), rng.normal(size=(n_batch, model.nv))
    return model, cs, an.System(model, cs), (q, v, tau), (Q, V, T)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, shorter timings")
    parser.add_argument("--reference", action="store_true", help="also time the readable reference code")
    parser.add_argument("--batch", type=int, default=1000, help="states of a batch")
    parser.add_argument("--robots", nargs="+", default=list(HELD), choices=list(HELD))
    args = parser.parse_args()
    min_time, rounds = (0.02, 3) if args.quick else (0.1, 7)
    print(f"artidyn {ad.__version__}, numpy {np.__version__}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    for name in args.robots:
        model, cs, system, one, many = problem(name, args.batch)
        N = args.batch
        fs = [lambda: ad.constrained_dynamics(model, *one, cs), lambda: ad.constrained_dynamics(model, *many, cs)]
        for method in an.METHODS:
            fs += [lambda m=method: an.accelerations(system, *one, method=m),
                   lambda m=method: an.accelerations(system, *many, method=m)]
        times = np.array(best_times(fs, min_time, rounds)) * 1e6
        times[1::2] /= N
        ref = {}
        if args.reference:
            def reference(m):
                with ad.kernels.reference_only():
                    an.accelerations(system, *one, method=m)
            ref = dict(zip(an.METHODS, best_times([lambda m=m: reference(m) for m in an.METHODS], 0.0, 2)))
        print(f"\n{name}: nv = {model.nv}, {sum(c.rows for c in cs)} constraint rows")
        print(f"  {'':22s} {'single us':>10s} {'x cd':>6s} {'batch/state us':>15s} {'x cd':>6s}"
              + (f" {'reference ms':>13s} {'speed-up':>9s}" if ref else ""))
        print(f"  {'constrained_dynamics':22s} {times[0]:10.1f} {'':6s} {times[1]:15.2f}")
        for k, method in enumerate(an.METHODS):
            s, b = times[2 + 2 * k], times[3 + 2 * k]
            line = f"  {method:22s} {s:10.1f} {s / times[0]:6.1f} {b:15.2f} {b / times[1]:6.1f}"
            if ref:
                line += f" {ref[method] * 1e3:13.2f} {ref[method] * 1e6 / s:9.0f}"
            print(line)
    print(f"\nload average after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


if __name__ == "__main__":
    main()
