"""Boxes or balls resting in layers on the ground: microseconds per compiled contact step and
the peak memory of the run, for N = 1, 8, 27, 64 (and a pile of 100 boxes falling). Prints a
table; asserts nothing.

    python benchmarks/broadphase_pile.py [--quick] [--save FILE] [--check FILE]
"""
import argparse
import resource
import sys
import time

import numpy as np

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.geometry import Box, HalfSpace, Sphere
from artidyn.sim.contact_run import simulate_contact


def pile(n, kind="box", size=0.1, gap=0.0, drop=0.0, rng=None):
    """n shapes (edge ``size``) on a square grid, layer over layer (side ceil(n^(1/3))), resting
    on the ground (``gap`` between neighbours, ``drop`` above their resting height)."""
    side = int(np.ceil(round(n ** (1 / 3), 9)))
    b = ad.ModelBuilder(f"pile of {n} {kind}es")
    m = 1.0
    I = np.eye(3) * m * size * size / 6
    for k in range(n):
        b.add_body(f"{kind}{k}", "world", "free", mass=m, inertia=I)
        b.add_collision(f"{kind}{k}", Box((size,) * 3) if kind == "box" else Sphere(size / 2))
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    for k in range(n):
        i, j, l = k % side, (k // side) % side, k // (side * side)
        x = (i - (side - 1) / 2) * (size + gap)
        y = (j - (side - 1) / 2) * (size + gap)
        z = size / 2 + l * (size + drop) + drop
        sl = model.q_slice(model.joint_names[k + 1])
        q[sl][:3] = x, y, z
        if rng is not None:
            q[sl][:2] += rng.uniform(-0.2, 0.2, 2) * size
    return model, q


def per_step(model, q, s, nsteps, dt=1e-3):
    """us per step (best of 2 after a warm run) and the result."""
    v = np.zeros(model.nv)
    simulate_contact(model, q, v, 0.0, 2 * dt, dt, s, route="compiled")
    best = np.inf
    for _ in range(2):
        t0 = time.perf_counter()
        r = simulate_contact(model, q, v, 0.0, nsteps * dt, dt, s, route="compiled")
        best = min(best, time.perf_counter() - t0)
    return 1e6 * best / nsteps, r


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--save")
    p.add_argument("--check")
    a = p.parse_args(argv)
    s = ContactSettings(friction=0.5)
    rows, saved = [], {}
    for kind in ("ball", "box"):
        for n in ((1, 8) if a.quick else (1, 8, 27, 64)):
            model, q = pile(n, kind, gap=0.002)
            us, r = per_step(model, q, s, 50 if n > 8 else 200)
            nc = np.mean([len(c.gap) for c in r.contacts])
            rows.append((kind, n, model.collisions.__len__(), us, nc))
            saved[f"{kind}{n}"] = r.q
            print(f"{kind:4s} N={n:3d}  shapes {len(model.collisions):4d}  {us:10.1f} us/step  "
                  f"{nc:6.1f} contacts/step", flush=True)
    if not a.quick:
        model, q = pile(100, "box", gap=0.02, drop=0.05, rng=np.random.default_rng(0))
        t0 = time.perf_counter()
        r = simulate_contact(model, q, np.zeros(model.nv), 0.0, 0.3, 1e-3, s, route="compiled")
        dt = time.perf_counter() - t0
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"100 boxes falling into a pile, 0.3 s at 1 ms: {dt:.1f} s, peak RSS {rss:.0f} MB, "
              f"{max(len(c.gap) for c in r.contacts)} contacts at most")
    if a.save:
        np.savez(a.save, **saved)
    if a.check:
        ref = np.load(a.check)
        for k, x in saved.items():
            d = float(np.max(np.abs(ref[k] - x)))
            print(f"{k}: max |q - saved q| = {d:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
