"""Where a compiled contact step of a pile of boxes spends its time: a small numba harness that times
the step's stages one by one on the state of ``pile_scenes.resting(n)`` (cubes resting in layers):

- the broad phase (the world boxes of the shapes, then the sweep along x that keeps the pairs whose
  boxes overlap, as the step does them), with the pairs it keeps;
- the narrow phase (the closed-form contacts of the kept pairs);
- one dense Cholesky factorisation of the (3 k x 3 k) Delassus-sized matrix that the ADMM solver
  factors (k the contacts found; once at its start, again each time its penalty rho changes) and one
  ADMM iteration's triangular solves and product with G (O((3 k)^2));

beside the whole step's time measured on the pipeline (``pile_scenes.table``).

Run: ``python benchmarks/pile_profile.py [n ...]`` (default 10 20 50 100). Asserts nothing.
"""
import os
import sys
import time

import numba as nb
import numpy as np

import artidyn as ad
from artidyn.contact.compiled import packed_shapes
from artidyn.kernels.broadphase import candidates, sweep_table, world_bounds
from artidyn.kernels.contact_admm import cholesky_solve, shifted_cholesky
from artidyn.kernels.contact_geometry import pair_contacts
from artidyn.kernels.contact_polish import mat_vec

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pile_scenes import resting, scene  # noqa: E402


@nb.njit(cache=False)
def broad(SH, Wsh, HULL, AB, PAIRS, LOOK, order, margin, keep):
    world_bounds(SH, Wsh, AB)
    return candidates(SH, AB, margin, PAIRS, LOOK, order, keep)


@nb.njit(cache=False)
def narrow(SH, Wsh, HULL, PAIRS, keep, nk, margin, CC):
    kc = 0
    axis = np.zeros(5)
    for i in range(nk):
        a, b = PAIRS[keep[i], 0], PAIRS[keep[i], 1]
        k1 = pair_contacts(CC, kc, SH, a, Wsh[a], b, Wsh[b], margin, HULL, axis)
        if k1 < 0:
            return k1
        kc = k1
    return kc


@nb.njit(cache=False)
def iteration(F, G, x, b, u):
    cholesky_solve(F, x)
    mat_vec(G, x, b, u)


def timed(f, repeat=5):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best * 1e6, out


def profile(n):
    model, _, q = scene(resting(n))
    SH, PL, HULL, PAIRS, cap = packed_shapes(model)
    X = ad.body_placements(model, q)
    Wsh = np.ascontiguousarray(np.array([X[int(SH[s, 0])] @ PL[s] for s in range(len(SH))]))
    AB = np.zeros((len(SH), 6))
    keep = np.zeros(len(PAIRS), np.int64)
    margin = 1e-3
    LOOK, order = sweep_table(PAIRS, len(SH))
    t_broad, nk = timed(lambda: broad(SH, Wsh, HULL, AB, PAIRS, LOOK, order, margin, keep))
    CC = np.zeros((max(cap, 1), 10))
    t_narrow, kc = timed(lambda: narrow(SH, Wsh, HULL, PAIRS, keep, nk, margin, CC))
    m = 3 * kc
    rng = np.random.default_rng(0)
    A = rng.standard_normal((m, m))
    G = A @ A.T / m
    F = np.zeros((m, m))
    t_chol, _ = timed(lambda: shifted_cholesky(G, 1e-6, F), 3)
    x, b, u = rng.standard_normal(m), rng.standard_normal(m), np.zeros(m)
    t_it, _ = timed(lambda: iteration(F, G, x, b, u))
    print(f"N={n:4d}  pairs {len(PAIRS):6d}  kept {nk:5d}  contacts {kc:5d}   broad phase {t_broad:9.1f} us   "
          f"narrow phase {t_narrow:9.1f} us   Cholesky ({m} x {m}) {t_chol:12.1f} us   ADMM iteration "
          f"{t_it:10.1f} us", flush=True)


def main(argv=None):
    from simulate import load_average
    print(f"load average before: {load_average()}")
    for n in [int(a) for a in (argv or sys.argv[1:])] or (10, 20, 50, 100):
        profile(n)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
