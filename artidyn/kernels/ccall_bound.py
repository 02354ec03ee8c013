"""C entry point of the constrained dynamics bound to one model and constraint list.

:class:`artidyn.constraints.ConstrainedDynamics` keeps the model's table, the constraints' table
and the kernel's scratch for its lifetime; it hands the small C extension ``artidyn._ccall`` a
read-only int64 array of their addresses and sizes (:func:`context`), and ``call_bound`` calls
:func:`constrained_c` with it and the three checked state vectors: one C call per state, instead
of numba's dispatcher checking the types of fourteen arguments (about 1.5 µs). Compiled on first
use of the evaluator, cached on disk.
"""
import numba as nb
import numpy as np
from numba import types as T
from numba.core.extending import intrinsic

from .constrained import OK
from .constrained_entry import constrained_into

_P = T.CPointer(T.float64)
_PI = T.CPointer(T.int64)
# (ctx, n_ctx, x1, x2, x3, n1, n2, n3, out, n_out) -> int32
SIG = T.int32(_PI, T.int64, _P, _P, _P, T.int64, T.int64, T.int64, _P, T.int64)
# ctx: B address, rows, cols | K address, rows, cols | TF address, nc | buf address, size | ints
# address, size | m | opts | the address of (alpha, beta) | the address of a (1, 6) f_ext (unused: no external wrenches)
CTX = 16


@intrinsic
def _f8(typingctx, addr):
    """The float64 pointer at the integer address ``addr``."""
    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(_P))
    return _P(T.int64), codegen


@intrinsic
def _i8(typingctx, addr):
    """The int64 pointer at the integer address ``addr``."""
    def codegen(context, builder, sig, args):
        return builder.inttoptr(args[0], context.get_value_type(_PI))
    return _PI(T.int64), codegen


@nb.cfunc(SIG, cache=True)
def constrained_c(ctx, n_ctx, x1, x2, x3, n1, n2, n3, out, n_out):
    """constrained_into(B, K, TF, q = x1, qd = x2, tau = x3, no f_ext, opts, alpha, beta, buf,
    ints, m, qdd = out) on the arrays of ``ctx`` (:func:`context`); 1 when it returned OK."""
    if n_ctx != CTX:
        return 0
    c = nb.carray(ctx, CTX)
    B = nb.carray(_f8(c[0]), (c[1], c[2]))
    K = nb.carray(_f8(c[3]), (c[4], c[5]))
    TF = nb.carray(_f8(c[6]), (c[7], 2, 4, 4))
    buf = nb.carray(_f8(c[8]), c[9])
    ints = nb.carray(_i8(c[10]), c[11])
    ab = nb.carray(_f8(c[14]), 2)
    fext = nb.carray(_f8(c[15]), (1, 6))
    try:                        # an exception (a zero pivot) cannot reach the C caller: the checked path reports it
        code = constrained_into(B, K, TF, nb.carray(x1, n1), nb.carray(x2, n2), nb.carray(x3, n3), fext, c[13],
                                ab[0], ab[1], buf, ints, c[12], nb.carray(out, n_out))
    except Exception:           # noqa: BLE001
        return 0
    return 1 if code == OK else 0


ADDRESS = constrained_c.address


def context(B, K, TF, buf, ints, m, opts, ab, fext):
    """The read-only int64 ctx of :func:`constrained_c` for arrays the caller keeps alive (and
    does not reallocate) as long as it calls with it: each C-contiguous, of the kernel's dtypes."""
    for a, dt in ((B, np.float64), (K, np.float64), (TF, np.float64), (buf, np.float64), (ints, np.int64),
                  (ab, np.float64), (fext, np.float64)):
        if a.dtype != dt or not a.flags.c_contiguous:
            raise ValueError("context: arrays must be C-contiguous of the kernel's dtypes")
    if B.ndim != 2 or K.ndim != 2 or TF.shape[1:] != (2, 4, 4) or ab.shape != (2,) or fext.shape != (1, 6):
        raise ValueError("context: arrays of the kernel's shapes")
    ctx = np.array([B.ctypes.data, B.shape[0], B.shape[1], K.ctypes.data, K.shape[0], K.shape[1], TF.ctypes.data,
                    TF.shape[0], buf.ctypes.data, buf.size, ints.ctypes.data, ints.size, m, opts, ab.ctypes.data,
                    fext.ctypes.data], dtype=np.int64)
    ctx.flags.writeable = False
    return ctx
