"""C entry points of the single-state kernels, for the bound evaluator's C call path.

A numba dispatcher spends about 0.1 µs per argument on type checks before the compiled code
runs, more than pinocchio's bindings. These ``cfunc`` wrappers take raw pointers and lengths,
so that the small C extension ``artidyn._ccall`` can check the arrays itself (float64 in the
machine's byte order, C-contiguous, a writable output) and call them directly. Each returns 1 when
the kernel accepted the inputs and its result is finite, 0 otherwise (the caller then takes the
checked path, which reports the error); an exception of a kernel (a division by a zero pivot)
is caught here and returns 0 as well, since a C caller could not take it. No external wrenches
here (the public functions take them). Compiled on first use, cached on disk.
"""
import numba as nb
from numba import types as T

from .aba import aba_single
from .crba import crba_single
from .derivatives import ABA_D, OK, RNEA_D, derivatives_single
from .gaha import gaha_single
from .hybrid import hybrid_single
from .pack import IV
from .rnea import rnea_single
from .types import HAS_FEXT

_P = T.CPointer(T.float64)
# (B, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts) -> int32
OUT_MATRIX = 1 << 20      # set by the C side when out is a square matrix (crba), refused otherwise
OUT_TRIPLE = 1 << 21      # set by the C side when out is (3, n, n) (the derivatives)
SIG = T.int32(_P, T.int64, T.int64, _P, _P, _P, T.int64, T.int64, T.int64, _P, T.int64, T.int64)


@nb.cfunc(SIG, cache=True)
def rnea_c(Bp, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts):
    """rnea_single(B, q = x1, v = x2, a = x3, no f_ext, opts, tau = out)."""
    if opts & OUT_MATRIX:
        return 0
    B = nb.carray(Bp, (rows, cols))
    try:
        ok = rnea_single(B, nb.carray(x1, n1), nb.carray(x2, n2), nb.carray(x3, n3), nb.carray(Bp, (0, 6)),
                         opts & ~HAS_FEXT, nb.carray(out, n_out))
    except Exception:           # noqa: BLE001 (a C caller cannot take it: the checked path reports it)
        return 0
    return 1 if ok else 0


@nb.cfunc(SIG, cache=True)
def aba_c(Bp, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts):
    """aba_single(B, q = x1, v = x2, tau = x3, no f_ext, opts, qdd = out)."""
    if opts & OUT_MATRIX:
        return 0
    B = nb.carray(Bp, (rows, cols))
    try:                        # a singular articulated inertia divides by zero
        ok = aba_single(B, nb.carray(x1, n1), nb.carray(x2, n2), nb.carray(x3, n3), nb.carray(Bp, (0, 6)),
                        opts & ~HAS_FEXT, nb.carray(out, n_out))
    except Exception:           # noqa: BLE001
        return 0
    return 1 if ok else 0


@nb.cfunc(SIG, cache=True)
def crba_c(Bp, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts):
    """crba_single(B, q = x1, M = out, a square matrix); x2, x3 unused."""
    if not opts & OUT_MATRIX:
        return 0
    B = nb.carray(Bp, (rows, cols))
    nv = int(B[0, IV])
    if n_out != nv * nv:
        return 0
    try:
        ok = crba_single(B, nb.carray(x1, n1), nb.carray(out, (nv, nv)))
    except Exception:           # noqa: BLE001
        return 0
    return 1 if ok else 0


@nb.cfunc(SIG, cache=True)
def gaha_c(Bp, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts):
    """gaha_single(B, q = x1, M = out, a square matrix); x2, x3 unused."""
    if not opts & OUT_MATRIX:
        return 0
    B = nb.carray(Bp, (rows, cols))
    nv = int(B[0, IV])
    if n_out != nv * nv:
        return 0
    try:
        ok = gaha_single(B, nb.carray(x1, n1), nb.carray(out, (nv, nv)))
    except Exception:           # noqa: BLE001
        return 0
    return 1 if ok else 0


@nb.cfunc(SIG, cache=True)
def hybrid_c(Bp, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts):
    """hybrid_single(B, q = x1, v = x2, a = tau = x3[:nv], known = x3[nv:], no f_ext, opts,
    qdd = out[:nv], tau = out[nv:]): x3 holds a on the prescribed dofs and tau on the others, then
    the mask of the prescribed dofs (nonzero); out (2 nv) gets [qdd, tau]."""
    if opts & (OUT_MATRIX | OUT_TRIPLE):
        return 0
    B = nb.carray(Bp, (rows, cols))
    nv = int(B[0, IV])
    if n3 != 2 * nv or n_out != 2 * nv:
        return 0
    x = nb.carray(x3, n3)
    o = nb.carray(out, n_out)
    try:
        ok = hybrid_single(B, nb.carray(x1, n1), nb.carray(x2, n2), x[:nv], x[:nv], x[nv:], nb.carray(Bp, (0, 6)),
                           opts & ~HAS_FEXT, o[:nv], o[nv:])
    except Exception:           # noqa: BLE001
        return 0
    return 1 if ok else 0


@nb.njit
def _derivatives(kind, Bp, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts):
    if not opts & OUT_TRIPLE:
        return 0
    B = nb.carray(Bp, (rows, cols))
    nv = int(B[0, IV])
    if n_out != 3 * nv * nv:
        return 0
    try:
        code = derivatives_single(B, kind, nb.carray(x1, n1), nb.carray(x2, n2), nb.carray(x3, n3),
                                  nb.carray(Bp, (0, 6)), opts & ~(HAS_FEXT | OUT_TRIPLE), nb.carray(out, (3, nv, nv)))
    except Exception:           # noqa: BLE001
        return 0
    return 1 if code == OK else 0


@nb.cfunc(SIG, cache=True)
def rnea_derivatives_c(Bp, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts):
    """derivatives_single(B, RNEA_D, q = x1, v = x2, a = x3, no f_ext, opts, out (3, nv, nv))."""
    return _derivatives(RNEA_D, Bp, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts)


@nb.cfunc(SIG, cache=True)
def aba_derivatives_c(Bp, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts):
    """derivatives_single(B, ABA_D, q = x1, v = x2, tau = x3, no f_ext, opts, out (3, nv, nv))."""
    return _derivatives(ABA_D, Bp, rows, cols, x1, x2, x3, n1, n2, n3, out, n_out, opts)


ADDRESSES = {"rnea": rnea_c.address, "aba": aba_c.address, "crba": crba_c.address, "gaha": gaha_c.address,
             "hybrid": hybrid_c.address,
             "rnea_derivatives": rnea_derivatives_c.address, "aba_derivatives": aba_derivatives_c.address}
