"""Argument types of the compiled entry points, option bits, and small shared helpers.

Entry points are compiled for these types only (explicit signatures): inputs are read-only arrays
of any layout (a read-only or strided array needs no new compilation), outputs C-contiguous.
Anything else (lists, complex, object arrays) raises TypeError in the dispatcher, and
:mod:`.dispatch` converts or falls back to the reference code.
"""
import numba as nb
import numpy as np
from numba import types as T

BUF = T.Array(T.float64, 2, "C")                 # the packed table (:mod:`.pack`)
VEC = T.Array(T.float64, 1, "A", readonly=True)
MAT = T.Array(T.float64, 2, "A", readonly=True)
TEN = T.Array(T.float64, 3, "A", readonly=True)
OUT1 = T.Array(T.float64, 1, "C")
OUT2 = T.Array(T.float64, 2, "C")
OUT3 = T.Array(T.float64, 3, "C")
OUT4 = T.Array(T.float64, 4, "C")
I64 = T.int64

FRICTION, HAS_FEXT, LOCAL = 1, 2, 4  # bits of ``opts``


@nb.njit(cache=True)
def all_finite2(x):
    """True when every entry of the 2-D array ``x`` is finite."""
    for k in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[k, j] - x[k, j] != 0.0:
                return False
    return True


@nb.njit(cache=True)
def chunk_bounds(N, nchunk):
    """Boundaries of ``nchunk`` (at most N, at least 1) nearly equal chunks of range(N)."""
    m = max(1, min(N, nchunk))
    out = np.empty(m + 1, np.int64)
    for c in range(m + 1):
        out[c] = c * N // m
    return out
