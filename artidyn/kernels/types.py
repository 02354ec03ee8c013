"""Argument types of the compiled entry points, option bits, and small shared helpers.

Entry points are compiled for these types only (explicit signatures): inputs are read-only arrays
of any layout (a read-only or strided array needs no new compilation), outputs C-contiguous.
Anything else (lists, complex, object arrays) raises TypeError in the dispatcher, and
:mod:`.dispatch` converts or falls back to the reference code.
"""
import numba as nb
from numba import types as T

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .pack import IV
from .spatial import all_finite, load_q

BUF = T.Array(T.float64, 2, "C")                 # the packed table (:mod:`.pack`)
VEC = T.Array(T.float64, 1, "A", readonly=True)
MAT = T.Array(T.float64, 2, "A", readonly=True)
TEN = T.Array(T.float64, 3, "A", readonly=True)
OUT1 = T.Array(T.float64, 1, "C")
OUT2 = T.Array(T.float64, 2, "C")
OUT3 = T.Array(T.float64, 3, "C")
OUT4 = T.Array(T.float64, 4, "C")
I64 = T.int64

FRICTION, HAS_FEXT, LOCAL, NO_COULOMB = 1, 2, 4, 8  # bits of ``opts`` (NO_COULOMB: viscous friction only)


@nb.njit
def inputs_ok(B, q, x1, x2, fext, opts, out):
    """Sizes, finite values, unit quaternions of one state's inputs (q loaded into B by load_q)."""
    nv = int(B[0, IV])
    if x1.shape[0] != nv or x2.shape[0] != nv or out.shape[0] != nv:
        return False
    if opts & HAS_FEXT and (fext.shape[0] != B.shape[0] or fext.shape[1] != 6 or not all_finite2(fext)):
        return False
    return load_q(B, q) and all_finite(x1) and all_finite(x2)


@nb.njit
def all_finite2(x):
    """True when every entry of the 2-D array ``x`` is finite."""
    for k in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[k, j] - x[k, j] != 0.0:
                return False
    return True
