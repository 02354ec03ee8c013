"""The compiled route of :func:`~artidyn.analytical.accelerations` (:mod:`artidyn.kernels.formulations`).

:func:`accelerations` offers its arguments here first. Float inputs run the kernel: one state
through the single-state entry point, a batch (q (N, nq), v (N, nv) ...) through the parallel one.
None sends the call to the readable reference: kernels switched off
(``artidyn.kernels.reference_only()``), inputs that are not real numbers, ``friction`` not a bool;
a state that the kernel declines (invalid input, a singular system, a degenerate constraint)
goes alone to the reference, which reports the error or solves the case its own way.

The kernel evaluates the constraints that have a compiled form (Point, Weld, Hinge, Distance,
Coupling, rolling contacts, knife edges and no-pivot conditions on a fixed plane); for any other
(Holonomic, Nonholonomic, a moving plane, paths) the readable rows are evaluated here, state by
state, and handed to it. So are the user's functions: the quasi-velocity map B(q) (B, G = B^-1,
``Bdot v``; for Boltzmann-Hamel the rates ``f_r(G)`` of G along the fields, by ``directional`` on
B, as :func:`~artidyn.analytical.hamel_coefficients`) and the non-ideal term C(q, v, t).
"""
import numpy as np

from ..configuration import as_q
from ..constraints import compiled as _constraints
from ..constraints.nonholonomic import directional
from ..constraints.solve import constraint_rows
from ..errors import InputError
from ..kernels import dispatch
from ..threads import run_chunks

CODES = {"lagrange": 0, "gibbs_appell": 1, "kane": 2, "maggi": 3, "boltzmann_hamel": 4, "udwadia_kalaba": 5}
WITH_MULTIPLIERS = ("lagrange", "boltzmann_hamel", "udwadia_kalaba")
QUASI, ROWS = 16, 32             # as artidyn.kernels.formulations (not imported: it imports numba)
_NO_X4 = dispatch._frozen(np.zeros((1, 1, 1, 1)))     # no quasi-velocities, no rows given
_NO_J, _NO_G = dispatch._frozen(np.zeros((1, 0, 1))), dispatch._frozen(np.zeros((1, 0)))
_EMPTY_K, _EMPTY_TF = dispatch._frozen(np.zeros((0, 22))), dispatch._frozen(np.zeros((0, 2, 4, 4)))


class _Kernels:
    """The entry points of :mod:`artidyn.kernels.formulations_entry`, imported on first use."""

    def __getattr__(self, name):
        from ..kernels import formulations_entry
        fn = getattr(formulations_entry, name)
        setattr(self, name, fn)
        return fn


_K = _Kernels()


def _kept(system):
    """What the kernel needs of the system, made once: (the packed constraints or None, the rows m,
    zeros (2, nv) for Y, the named independent quasi-velocities as int64)."""
    kept = system._cache.get("compiled")
    if kept is None:
        model = system.model
        P = _constraints.packed(model, system.constraints)
        named = np.zeros(0, np.int64) if system.independent is None else system.independent.astype(np.int64)
        m = P.m if P is not None else sum(c.rows for c in system.constraints)
        kept = system._cache["compiled"] = (P, m, dispatch._frozen(np.zeros((2, model.nv))), dispatch._frozen(named))
    return kept


def _rows(x, width):
    """(2-D float64 array of the machine's byte order, was 1-D), or (None, None)."""
    x = dispatch._real(x)
    if x is None or x.ndim not in (1, 2) or x.shape[-1] != width:
        return None, None
    if not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    return (x[None] if x.ndim == 1 else x), x.ndim == 1


def accelerations(system, q, v, w, tau, method, t, f_ext, friction, reference):
    """:func:`artidyn.analytical.accelerations` through the kernels, or None. ``reference(k, q, v,
    w, tau, f_ext)``: the reference route for one state (a state the kernel declines)."""
    from .results import AnalyticalResult

    if not dispatch._ON[0] or (friction is not True and friction is not False):
        return None
    model = system.model
    nv = model.nv
    try:
        P, m, Y0, named = _kept(system)
    except (AttributeError, TypeError):
        return None
    Q, sq = _rows(q, model.nq)
    V, sv = _rows(v if w is None else w, nv)
    T, st = _rows(np.zeros(nv) if tau is None else tau, nv)
    if Q is None or V is None or T is None:
        return None
    F, sf = dispatch._NO_F3, True
    if f_ext is not None:
        F = dispatch._real(f_ext)
        if F is None or F.ndim not in (2, 3) or F.shape[-2:] != (model.nb + 1, 6):
            return None
        F, sf = (F[None], True) if F.ndim == 2 else (F, False)
    N = max(Q.shape[0], V.shape[0], T.shape[0], F.shape[0])
    if any(x.shape[0] not in (1, N) for x in (Q, V, T, F)):
        return None
    opts = (1 if friction else 0) | (2 if f_ext is not None else 0)
    X, Y, J, G = _NO_X4, Y0[None], _NO_J, _NO_G
    if P is None or system.quasi or system.nonideal is not None:
        Q = as_q(model, Q)[0]
        Q, V = np.broadcast_to(Q, (N, model.nq)), np.broadcast_to(V, (N, nv))
        V, X, Y, J, G = _per_state(system, Q, V, w is not None, t, method, m if P is None else 0)
        opts |= (QUASI if system.quasi else 0) | (ROWS if P is None else 0)
    K, TF = (P.K, P.TF) if P is not None else (_EMPTY_K, _EMPTY_TF)
    code = CODES[method]
    B = dispatch._table(model)
    if N == 1 and sq and sv and st and sf:
        wdot, a, force, lam, info = np.empty(nv), np.empty(nv), np.empty(nv), np.empty(m), np.empty(1)
        if _K.formulation_single(B, K, TF, code, Q[0], V[0], T[0], F[0], opts, X[0], Y[0], J[0], G[0], named, wdot,
                                 a, lam, force, info) != 0:
            return None
        lam = lam if method in WITH_MULTIPLIERS else None
        return AnalyticalResult(wdot if system.quasi else a, a, lam, force, float(info[0]), method)
    Q, V, T = (np.broadcast_to(x, (N, x.shape[1])) for x in (Q, V, T))
    WD, A, FO, LAM, INFO = (np.empty((N, nv)), np.empty((N, nv)), np.empty((N, nv)), np.empty((N, m)),
                            np.empty((N, 1)))
    codes = np.empty(N, dtype=np.int64)
    run_chunks(_K.formulation_batch, dispatch._chunks(N), B, K, TF, code, Q, V, T, F, opts, X, Y, J, G, named, WD, A,
               LAM, FO, INFO, codes)
    if np.any(codes):
        for k in np.flatnonzero(codes):
            r = reference(k)
            WD[k], A[k], FO[k], INFO[k, 0] = r.a, r.dv, r.constraint_force, r.residual
            if r.multipliers is not None:
                LAM[k] = r.multipliers
    return AnalyticalResult(WD if system.quasi else A, A, LAM if method in WITH_MULTIPLIERS else None, FO,
                            INFO[:, 0], method)



def _per_state(system, Q, V, given_w, t, method, m):
    """What the kernel cannot compute, state by state: v (from w), the quasi-velocity matrices X (N,
    4, nv, nv) (B, G, f_r(G) w by columns, Gdot), Y (N, 2, nv) (C, Bdot v), and with m > 0 the
    readable rows J (N, m, nv) and gamma (N, m) (constraints without a compiled form)."""
    model, N, nv = system.model, Q.shape[0], system.model.nv
    X = np.zeros((N, 4, nv, nv)) if system.quasi else _NO_X4
    Y = np.zeros((N, 2, nv))
    J, G = (np.zeros((N, m, nv)), np.zeros((N, m))) if m else (_NO_J, _NO_G)
    Vout = np.array(V)
    for k in range(N):
        q, v = Q[k], V[k]
        if system.quasi:
            Bk, Gk = system.B(q), system.G(q)
            if given_w:
                v = Vout[k] = Gk @ v
            X[k, 0], X[k, 1] = Bk, Gk
            Y[k, 1] = system.Bdot_v(q, v)
            if method == "boltzmann_hamel":
                X[k, 2], X[k, 3] = _rates_of_G(system, q, v, Bk, Gk)
        if system.nonideal is not None:
            C = np.asarray(system.nonideal(q, v, t), dtype=float)
            if C.shape != (nv,) or not np.all(np.isfinite(C)):
                raise InputError(f"System: nonideal(q, v, t) must return {nv} finite numbers, got shape {C.shape}")
            Y[k, 0] = C
        if m:
            r = constraint_rows(model, q, v, system.constraints, t)
            J[k], G[k] = r.J, -r.bias
    return Vout, X, Y, J, G


def _rates_of_G(system, q, v, B, G):
    """(Y, Gdot): ``Y[:, r] = f_r(G) w`` and ``Gdot = sum_r w_r f_r(G)``, with ``f_r(G) = -G f_r(B) G``
    along the fields ``f_r`` = the columns of G (:func:`~artidyn.analytical.hamel_coefficients`)."""
    model, Bf = system.model, system.B_of
    DG = np.stack([-G @ directional(lambda qq, tt: np.asarray(Bf(qq)), model, q, G[:, r]) @ G
                   for r in range(model.nv)])                     # DG[r] = f_r(G)
    w = B @ v
    return np.einsum("ras,s->ar", DG, w), np.einsum("r,ras->as", w, DG)
