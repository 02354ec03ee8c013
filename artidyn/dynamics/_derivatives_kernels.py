"""Route :func:`~.derivatives.rnea_derivatives` and :func:`~.derivatives.aba_derivatives` to the
compiled kernels (:mod:`artidyn.kernels.derivatives`); ``None`` means "use the reference code".

As :mod:`artidyn.kernels.dispatch`: float inputs run compiled; complex, SymPy objects, kernels
switched off (:func:`artidyn.kernels.use_kernels`) or inputs a kernel refuses (sizes, NaN, a
quaternion that is not unit, M not positive definite: a return code, never an exception) go
to the reference code, which computes or raises the proper error. One state: one compiled call
into a freshly allocated (3, nv, nv) result. Batches: (3, N, nv, nv), chunks of states in
parallel. Numba is imported by the first call, not with artidyn.
"""
import numpy as np

from ..kernels import dispatch as _dispatch
from ..kernels.pack import packed

KEY = "kernels.B"
FRICTION, HAS_FEXT = 1, 2          # as artidyn.kernels.types
RNEA_D, ABA_D = 0, 1               # as artidyn.kernels.derivatives
_K = {}


def _kernels():
    if not _K:
        from ..kernels import derivatives as kd
        _K["single"], _K["batch"] = kd.derivatives_single, kd.derivatives_batch
    return _K



def _f_rows(model, f_ext, N):
    """f_ext as a read-only float (N, nb+1, 6) array (or None when not usable here)."""
    F = _dispatch._real(f_ext)
    if F is None or F.ndim not in (2, 3):
        return None
    F = F[None] if F.ndim == 2 else F
    if F.shape[0] not in (1, N) or F.shape[1:] != (model.nb + 1, 6):
        return None
    return F if F.shape[0] == N else np.broadcast_to(F, (N, model.nb + 1, 6))


def _batch(model, kind, B, q, x1, x2, f_ext, opts):
    Q, single = _dispatch._rows(q, model.nq)
    if Q is None:
        return None
    X1, s1 = _dispatch._rows(x1, model.nv)
    X2, s2 = _dispatch._rows(x2, model.nv)
    if X1 is None or X2 is None:
        return None
    single = single and s1 and s2
    rows = (Q.shape[0], X1.shape[0], X2.shape[0])
    N = max(rows)
    if any(n not in (1, N) for n in rows):
        return None
    Q, X1, X2 = (X if X.shape[0] == N else np.broadcast_to(X, (N, X.shape[1])) for X in (Q, X1, X2))
    F = _dispatch._NO_F3
    if f_ext is not None:
        F = _f_rows(model, f_ext, N)
        if F is None:
            return None
        opts |= HAS_FEXT
    nv = model.nv
    out = np.empty((3, N, nv, nv))
    codes = np.empty(N, np.int64)
    from ..threads import get_num_threads, run_chunks
    # many small chunks, a thread taking the next when it finishes one: a thread that the OS holds
    # back (a loaded machine) delays the call by one chunk, not by its static share of the batch
    if any(run_chunks(_kernels()["batch"], min(N, 8 * get_num_threads()), B, kind, Q, X1, X2, F, opts, out, codes)) \
            or np.any(codes != 0):
        return None
    return (out[0, 0], out[1, 0], out[2, 0]) if single else (out[0], out[1], out[2])


_C_KEYS = {(kind, opts): f"kernels.c.derivatives.{kind}.{opts}" for kind in (RNEA_D, ABA_D) for opts in (0, FRICTION)}
# the keys of the C objects by friction (False, True), for the public functions' first look
C_RNEA_D = (_C_KEYS[RNEA_D, 0], _C_KEYS[RNEA_D, FRICTION])
C_ABA_D = (_C_KEYS[ABA_D, 0], _C_KEYS[ABA_D, FRICTION])
ON = _dispatch._ON                 # [kernels on]


def _c_single(model, kind, opts, B, result):
    """The C object (``artidyn._ccall.Kernel``) running derivative kernel ``kind`` on the model's
    table for one state of 1-D float64 arrays, returning ``result(d/dq, d/dv, M or M^-1)``,
    views of one new (3, nv, nv) array (None when the C side declines: the caller goes on with
    numba's path). Made on first use and kept on ``model._cache``; False without the C path, and
    for a model without degrees of freedom (the C object takes no empty result shape)."""
    c = _dispatch.c_path()
    if c is None or model.nv == 0:
        k = False
    else:
        name = ("rnea_derivatives", "aba_derivatives")[kind]
        k = c[0].Kernel(c[1][name], B, opts, 3, (3, model.nv, model.nv), _dispatch._declined, None, result)
    model._cache[_C_KEYS[kind, opts]] = k
    return k


def derivatives(model, kind, q, x1, x2, f_ext, friction, result):
    """``result(d/dq, d/dv, M or M^-1)`` through the kernels (``result`` the named tuple), or None."""
    if not _dispatch._ON[0]:
        return None
    B = model._cache.get(KEY)
    if B is None:
        B = packed(model)
    opts = FRICTION if friction else 0
    if f_ext is None:           # one state of float64 arrays: the C call, ~1 us less than numba's
        c = model._cache.get(_C_KEYS[kind, opts])
        if c is None:
            c = _c_single(model, kind, opts, B, result)
        if c and (r := c(q, x1, x2)) is not None:
            return r
    try:
        if (q.ndim == 1 and x1.ndim == 1 and x2.ndim == 1 and (f_ext is None or f_ext.ndim == 2)
                and _dispatch.native(q, x1, x2, f_ext)):
            nv = model.nv
            out = np.empty((3, nv, nv))
            single = _K.get("single") or _kernels()["single"]
            if f_ext is None:
                code = single(B, kind, q, x1, x2, _dispatch._NO_F, opts, out)
            else:
                code = single(B, kind, q, x1, x2, f_ext, opts | HAS_FEXT, out)
            return result(out[0], out[1], out[2]) if code == 0 else None
    except (AttributeError, TypeError):
        pass
    out = _batch(model, kind, B, q, x1, x2, f_ext, opts)
    return None if out is None else result._make(out)
