"""The constraints as the compiled kernels see them, and the route to those kernels.

:func:`pack` turns a list of constraints into the table of :mod:`artidyn.kernels.constrained`
(one row per constraint: its type, bodies, first row, parameters) and the frames' placements
(``(nc, 2, 4, 4)``: frame_a in its body, frame_b in its body, or the world target in body 0).
Packing is cached on the model, keyed by the constraint objects themselves (constraints are not
changed after creation). :class:`Holonomic` (a Python function) has no compiled form: the
caller then takes the reference route.
"""
import numpy as np

from ..kernels import dispatch
from ..threads import run_chunks
from .models import Coupling, Distance, Hinge, Point, Weld
from .nonholonomic import KnifeEdge, NoPivot, RollingDisk, RollingSphere

_KEY = "constraints.packed"
_CACHE_SIZE = 64
_TYPES = {Point: 0, Weld: 1, Distance: 2, Hinge: 3, Coupling: 4, RollingDisk: 5, RollingSphere: 5, KnifeEdge: 6,
          NoPivot: 7}
OK, BAD_INPUT, SINGULAR, DEGENERATE = 0, 1, 2, 3     # as artidyn.kernels.constrained


class Packed:
    """The compiled form of a constraint list: ``K``, ``TF``, ``m`` rows, ``nc`` constraints,
    and which constraints report multipliers rather than a wrench (Coupling)."""

    def __init__(self, model, constraints):
        from ..kernels.constrained import KBA, KBB, KN, KP0, KP1, KQA, KQB, KROW, KTYPE, KVA, KVB, KWIDTH

        self.constraints = tuple(constraints)
        nc = len(constraints)
        K = np.zeros((nc, KWIDTH))
        TF = np.tile(np.eye(4), (nc, 2, 1, 1))
        self.multipliers = []
        row = 0
        for k, c in enumerate(constraints):
            t = _TYPES[type(c)]
            K[k, KTYPE], K[k, KROW] = t, row
            if t >= 5:
                _nonholonomic(model, c, t, K[k], TF[k])
            elif t == 4:
                (qa, va), (qb, vb) = c._dofs(model)
                K[k, [KQA, KQB, KVA, KVB]] = qa, qb, va, vb
                K[k, KP0], K[k, KP1] = c.ratio, c.offset
                self.multipliers.append((k, row))
            else:
                fa = model.frame(c.frame_a)
                K[k, KBA], TF[k, 0] = fa.body, fa.placement
                if c.frame_b is None:
                    K[k, KBB], TF[k, 1] = 0, c._target(model)
                else:
                    fb = model.frame(c.frame_b)
                    K[k, KBB], TF[k, 1] = fb.body, fb.placement
                if t == 2:
                    K[k, KP0] = c._length(model)
                if t == 3:
                    K[k, KN:KN + 6] = c._n_local.ravel()
            row += c.rows
        self.m, self.nc = row, nc
        self._work = None
        self.K, self.TF = _frozen(K), _frozen(TF)

    def work(self, B):
        """The kept scratch of the single-state kernel (:class:`Work`), made on first use."""
        w = self._work
        if w is None:
            w = self._work = Work(B, self)
        return w

    def forces(self, W, lam):
        """One entry per constraint from the kernel's wrenches W (nc, 6) or (N, nc, 6): the
        wrench on frame_a (world axes), or the multipliers (Coupling)."""
        out = list(W) if W.ndim == 2 else list(W.transpose(1, 0, 2))
        for k, row in self.multipliers:
            out[k] = lam[..., row:row + 1]
        return out


def _nonholonomic(model, c, t, k_row, tf):
    """The table row of a rolling contact, knife edge or no-pivot condition (fixed plane)."""
    from ..kernels.constrained import KBA, KN, KP0, KP1, KQA

    f = model.frame(c.frame)
    k_row[KBA], tf[0] = f.body, f.placement
    if t == 5:
        k_row[KP0], k_row[KP1], k_row[KQA] = c.radius, c.d, c.rows
        if isinstance(c, RollingDisk):
            k_row[KN:KN + 3] = c.axis
        k_row[KN + 3:KN + 6] = c.n
        k_row[KN + 6:KN + 9], k_row[KN + 9:KN + 12] = c.R[0], c.R[1]
    elif t == 6:
        k_row[KN:KN + 3] = c.lateral
        if c.point is not None:
            k_row[KN + 6:KN + 9] = c.point
            moved = np.eye(4)
            moved[:3, 3] = c.point
            tf[0] = f.placement @ moved
    else:
        k_row[KN + 3:KN + 6] = c.n


def _frozen(a):
    a.flags.writeable = False
    return a


def compilable(constraints):
    """True when every constraint has a compiled form (rolling and no-pivot conditions: on a
    plane that does not move)."""
    return all(type(c) in _TYPES and getattr(c, "static", True) for c in constraints)


def packed(model, constraints):
    """The :class:`Packed` form of ``constraints`` (a list already checked against the model),
    cached on the model; None when one of them has no compiled form."""
    cache = model._cache.get(_KEY)
    if cache is None:
        cache = model._cache[_KEY] = {}
    key = tuple(map(id, constraints))
    hit = cache.get(key)
    if hit is not None and hit.constraints == tuple(constraints):
        return hit
    if not compilable(constraints):
        return None
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    P = cache[key] = Packed(model, constraints)
    return P


def cached(model, constraints):
    """The cached :class:`Packed` of exactly these constraint objects, or None (no checks)."""
    cache = model._cache.get(_KEY)
    if cache is None:
        return None
    return cache.get(tuple(map(id, constraints)))    # P keeps its constraints alive: no other object has their ids


def options(f_ext, friction):
    return (dispatch.FRICTION if friction else 0) | (dispatch.HAS_FEXT if f_ext is not None else 0)


class _Kernels:
    def __getattr__(self, name):
        from ..kernels import constrained_entry
        fn = getattr(constrained_entry, name)
        setattr(self, name, fn)
        return fn


_K = _Kernels()


def single(model, P, q, v, tau, f_ext, baumgarte, friction):
    """``(a, lam, phi, wrenches, residual, code)`` for one state through the compiled kernel (the
    scratch kept on P, :meth:`Packed.work`; lam and the wrenches copied out of it, phi a view of
    it that the next call overwrites)."""
    B = model._cache.get(dispatch.KEY)
    if B is None:
        B = dispatch._table(model)
    alpha, beta = (0.0, 0.0) if baumgarte is None else (float(baumgarte[0]), float(baumgarte[1]))
    w = P._work
    if w is None:
        w = P.work(B)
    a = np.empty(model.nv)
    if f_ext is None:
        c = _bound()
        if c is not None:       # the C call (artidyn._ccall): no dispatcher of 14 arguments
            key = (id(B), friction, alpha, beta)
            ctx = w.ctx.get(key)
            if ctx is None:
                ctx = w.context(B, P, key, c[2])
            if ctx is not None and c[0](c[1], ctx, q, v, tau, a):
                return a, w.lam.copy(), w.phi, w.W.copy(), float(w.buf[-1]), OK
        code = _K.constrained_into(B, P.K, P.TF, q, v, tau, dispatch._NO_F, dispatch.FRICTION if friction else 0,
                                   alpha, beta, w.buf, w.ints, P.m, a)
    else:
        code = _K.constrained_into(B, P.K, P.TF, q, v, tau, f_ext, options(f_ext, friction), alpha, beta, w.buf,
                                   w.ints, P.m, a)
    return a, w.lam.copy(), w.phi, w.W.copy(), float(w.buf[-1]), code


class Work:
    """The scratch of :func:`artidyn.kernels.constrained_entry.constrained_into` for one model and
    constraint list, and views of its outputs: ``lam`` (m), ``phi`` (m), ``W`` (nc, 6), ``buf[-1]``
    the residual (overwritten by every call); the C call's contexts by (table, friction, alpha, beta)."""

    def __init__(self, B, P):
        self.buf, self.ints = _K.new_scratch(B, P.K, P.m)
        o = self.buf.size - 2 * P.m - 6 * P.nc - 1
        self.lam, self.phi = self.buf[o:o + P.m], self.buf[o + P.m:o + 2 * P.m]
        self.W = self.buf[o + 2 * P.m:o + 2 * P.m + 6 * P.nc].reshape(P.nc, 6)
        self.ctx, self._keep = {}, []

    def context(self, B, P, key, make):
        """The C call's context for ``key = (id(B), friction, alpha, beta)``, made once and cached
        with the arrays it points to (so an id is not reused while its context is cached); None
        once 16 are cached (the caller then takes numba's dispatcher)."""
        if len(self.ctx) >= 16:          # many gains in turn: numba's dispatcher, no context kept
            return None
        _, friction, alpha, beta = key
        ab = np.array([alpha, beta])
        self._keep += [B, ab]
        ctx = self.ctx[key] = make(B, P.K, P.TF, self.buf, self.ints, P.m, dispatch.FRICTION if friction else 0, ab,
                                   dispatch._NO_F)
        return ctx


def c_bound():
    """(call_bound, the kernel's address, context) of the C call path, or None (the extension not
    built, or ARTIDYN_NO_CCALL set now)."""
    if dispatch.c_path() is None:
        return None
    from .._ccall import call_bound
    from ..kernels import ccall_bound
    return call_bound, ccall_bound.ADDRESS, ccall_bound.context


_C = []


def _bound():
    """:func:`c_bound` as first asked (the public function's hot path reads no environment)."""
    if not _C:
        _C.append(c_bound())
    return _C[0]


def batch(model, P, Q, V, TAU, f_ext, baumgarte, friction):
    """``(A, LAM, PHI, W, residual, codes)`` for N states (rows), in chunks on threads
    (:func:`artidyn.threads.run_chunks`)."""
    B = dispatch._table(model)
    N = Q.shape[0]
    alpha, beta = (0.0, 0.0) if baumgarte is None else (float(baumgarte[0]), float(baumgarte[1]))
    A, LAM, PHI, INFO = np.empty((N, model.nv)), np.empty((N, P.m)), np.empty((N, P.m)), np.empty((N, 1))
    W = np.empty((N, P.nc, 6))
    codes = np.empty(N, dtype=np.int64)
    F = dispatch._NO_F3 if f_ext is None else f_ext
    run_chunks(_K.constrained_batch, dispatch._chunks(N), B, P.K, P.TF, Q, V, TAU, F, options(f_ext, friction), alpha,
               beta, A, LAM, PHI, W, INFO, codes)
    return A, LAM, PHI, W, INFO[:, 0], codes
