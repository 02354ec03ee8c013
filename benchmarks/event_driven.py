"""The event-driven contact run: the readable loop (artidyn.contact.event_driven) as it ran before
the compiled one (its solver and dynamics terms compiled: route="reference") and all readable
(inside ``artidyn.kernels.reference_only()``), against the compiled run (artidyn.kernels.event_run),
in one process, best of ``--repeat``, on the cases of the event-driven tests.

    python benchmarks/event_driven.py              # dt = 10 ms (the tests' grid)
    python benchmarks/event_driven.py --dt 1e-3    # a finer grid: more samples, as many events

Both routes give the same events, times and states (tests/test_event_compiled.py); the compiled
route's first call in a process loads its kernels from numba's cache (the installation compiled
them), and the timings below leave that call out.
"""
import argparse
import os
import time

import numpy as np

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.geometry import Box, HalfSpace, Sphere
from artidyn.sim.contact_run import simulate_contact


def _ball(R=0.1):
    b = ad.ModelBuilder("ball")
    b.add_body("ball", "world", "free", mass=1.0, inertia=np.eye(3) * 0.4 * R * R)
    b.add_collision("ball", Sphere(R))
    b.add_collision("world", HalfSpace(normal=(0, 0, 1)))
    return b.build()


def _puck():
    b = ad.ModelBuilder("puck")
    b.add_body("puck", "world", "free", mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_collision("puck", Box((0.2, 0.2, 0.05)))
    b.add_collision("world", HalfSpace(normal=(0, 0, 1)))
    return b.build()


def _stop():
    b = ad.ModelBuilder("pendulum_stop")
    b.add_body("link", "world", "revolute", joint_name="hinge", axis=(0, 1, 0), mass=1.0, com=(0.5, 0, 0),
               inertia=np.diag([1e-4, 1e-4, 1e-4]), lower=-np.radians(120.0), upper=np.radians(30.0))
    b.add_collision("link", Sphere(0.05), xyz=(0.5, 0.0, 0.0))
    b.add_collision("world", HalfSpace(normal=(0, 0, 1), offset=-2.0))
    return b.build()


CASES = [
    ("bouncing ball, e = 0.8, 4.5 s", _ball, [0, 0, 1.1, 0, 0, 0, 1], np.zeros(6), 4.5,
     ContactSettings(restitution=0.8)),
    ("elastic ball, 1.5 s", _ball, [0, 0, 0.6, 0, 0, 0, 1], [0, 0, 0, 0.3, 0, 0], 1.5,
     ContactSettings(restitution=1.0)),
    ("sliding puck (4 corners), 1 s", _puck, [0, 0, 0.025, 0, 0, 0, 1], [0, 0, 0, 2, 0, 0], 1.0,
     ContactSettings(friction=0.3)),
    ("ball sliding then rolling, 0.5 s", _ball, [0, 0, 0.1, 0, 0, 0, 1], [0, 0, 0, 2, 0, 0], 0.5,
     ContactSettings(friction=0.3)),
    ("pendulum on a stop, e = 0.5, 0.6 s", _stop, [0.0], [0.0], 0.6, ContactSettings(limit_restitution=0.5)),
]


def best(f, repeat):
    out = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        out = min(out, time.perf_counter() - t0)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dt", type=float, default=1e-2)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; dt = {a.dt:g} s; "
          f"best of {a.repeat}")
    print(f"{'case':36s} {'events':>6s} {'readable':>9s} {'(all)':>9s} {'compiled':>9s} {'speed-up':>8s} {'(all)':>6s}")
    tot_r = tot_a = tot_c = 0.0
    for name, make, q0, v0, tf, s in CASES:
        model = make()
        q0, v0 = np.array(q0, dtype=float), np.array(v0, dtype=float)

        def go(route="auto"):
            return simulate_contact(model, q0, v0, t_final=tf, dt=a.dt, method="event_driven", contact=s, route=route)
        run = go()                                   # the compiled kernels loaded
        assert run.stats["route"] == "compiled" and go("reference").stats["route"] == "reference"
        tr = best(lambda: go("reference"), a.repeat)
        with ad.kernels.reference_only():
            ta = best(go, a.repeat)
        tc = best(go, a.repeat)
        tot_r, tot_a, tot_c = tot_r + tr, tot_a + ta, tot_c + tc
        print(f"{name:36s} {run.stats['events']:6d} {tr:8.3f}s {ta:8.3f}s {tc * 1e3:7.2f}ms {tr / tc:7.0f}x "
              f"{ta / tc:5.0f}x")
    print(f"{'all':36s} {'':6s} {tot_r:8.3f}s {tot_a:8.3f}s {tot_c * 1e3:7.2f}ms {tot_r / tot_c:7.0f}x "
          f"{tot_a / tot_c:5.0f}x")
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()
