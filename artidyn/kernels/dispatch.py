"""Route the public functions to the compiled kernels; ``None`` means "use the reference code".

Every function here mirrors a public one (same arguments) and returns its result, or ``None``
when the kernels do not apply: kernels switched off (:func:`use_kernels`), inputs that are not
real numbers (complex for complex-step derivatives, object arrays of SymPy expressions), or
inputs the kernel finds invalid (wrong sizes, NaN, a quaternion that is not unit, a non-finite
result). The public function then runs the reference code, which raises the proper error (or
computes with complex / symbolic numbers). So error messages live in one place.

Single state (1-D float64 arrays): one call of a dedicated compiled function, with the table's
own work columns and no other allocation than the result. rnea, aba and crba without external
wrenches go through the C extension ``artidyn._ccall`` when it was built (a call object per model
and kernel, kept on ``model._cache``), which checks the buffers and calls the kernel's C entry
point; otherwise, and for what it declines, numba's dispatcher (it unboxes each argument in
~50 ns, ~0.5 us more per call).
Everything else (lists, other real dtypes, batches, a single state mixed with batches) goes
through the parallel batch kernel (one chunk per thread for small batches, four above 256
states). Numba is imported by the first call, not with artidyn.
"""
import contextlib
import importlib
import math
import os

import numpy as np

from .pack import packed

KEY = "kernels.B"
FRICTION, HAS_FEXT, LOCAL = 1, 2, 4                 # as .types (not imported: it imports numba)
RNEA, ABA, CRBA, PLACEMENTS, FRAME, JACOBIAN, GAHA, CHRISTOFFEL, HYBRID = 0, 1, 2, 3, 4, 5, 6, 7, 8  # as .batch
_ON = [True]


def _frozen(a):
    a.flags.writeable = False
    return a


_NO_F = _frozen(np.zeros((1, 6)))
_NO_F3 = _NO_F[None]
_EYE4 = _frozen(np.eye(4))
_ZERO = _frozen(np.zeros((1, 1)))


class _EntryPoints:
    """The compiled entry points, imported (compiled, or loaded from numba's cache) on first use."""

    _where = {"rnea": "rnea.rnea_single", "aba": "aba.aba_single", "crba": "crba.crba_single",
              "placements": "kinematics.placements_single", "frame": "kinematics.frame_single",
              "jacobian": "kinematics.jacobian_single", "batch": "batch.batch",
              "gaha": "gaha.gaha_single", "christoffel": "christoffel.christoffel_single",
              "hybrid": "hybrid.hybrid_single"}

    def __getattr__(self, name):
        module, attr = self._where[name].split(".")
        fn = getattr(importlib.import_module(f"{__package__}.{module}"), attr)
        setattr(self, name, fn)
        return fn


_K = _EntryPoints()


# --- the C call path -----------------------------------------------------------------------------

def c_path():
    """(the extension ``artidyn._ccall``, the kernels' C addresses), or None: the extension was not
    built (no C compiler at installation), or ``ARTIDYN_NO_CCALL`` is set in the environment now."""
    if os.environ.get("ARTIDYN_NO_CCALL", "").strip().lower() not in ("", "0", "false", "no"):
        return None
    try:
        from .. import _ccall
    except ImportError:
        return None
    from .ccall import ADDRESSES
    return _ccall, ADDRESSES


def _declined(*args, **kwargs):
    return None


def native(*xs):
    """True when every argument is None or an array of the machine's byte order (AttributeError for
    other objects). The numba paths take only such arrays: numba 0.68 keys its cache of argument
    types by a fingerprint without byte order or alignment, so once it has seen an unaligned array,
    a big-endian one of the same rank and layout is typed as that array and read as native (wrong
    numbers, no error). The C path declines non-native arrays itself; the batch path converts them."""
    for x in xs:
        if x is not None and not x.dtype.isnative:
            return False
    return True


_C_KEYS = {(name, opts): f"kernels.c.{name}.{opts}"
           for name in ("rnea", "aba", "crba", "gaha") for opts in (0, FRICTION)}
_C_RNEA = (_C_KEYS["rnea", 0], _C_KEYS["rnea", FRICTION])
_C_ABA = (_C_KEYS["aba", 0], _C_KEYS["aba", FRICTION])
_C_CRBA = C_CRBA = _C_KEYS["crba", 0]
_C_GAHA = _C_KEYS["gaha", 0]
_C_HYBRID = "kernels.c.hybrid"


def _c_single(model, name, opts):
    """The C object running kernel ``name`` (rnea, aba, crba, gaha) on the model's table for one state of
    1-D float64 arrays, made on first use and kept on ``model._cache``: it returns the result, or
    None when the C side declines (other types, shapes, invalid values: the caller goes on with
    numba's path). False when there is no C path (the choice is kept for the model's lifetime), and
    for a model without degrees of freedom (nv = 0: the C object takes no empty result shape;
    numba's path returns the empty arrays)."""
    c = c_path()
    if c is None or model.nv == 0:
        k = False
    else:
        matrix = name in ("crba", "gaha")
        shape = (model.nv, model.nv) if matrix else (model.nv,)
        k = c[0].Kernel(c[1][name], _table(model), opts, 1 if matrix else 3, shape, _declined)
    model._cache[_C_KEYS[name, opts]] = k
    return k


def use_kernels(flag=True):
    """Switch the compiled kernels on or off (off: every public function runs its reference code).

    Returns the previous setting. :func:`reference_only` is the context-manager form.
    """
    previous = _ON[0]
    _ON[0] = bool(flag)
    return previous


@contextlib.contextmanager
def reference_only():
    """``with artidyn.kernels.reference_only(): ...`` runs the readable reference code."""
    previous = use_kernels(False)
    try:
        yield
    finally:
        use_kernels(previous)


def kernels_enabled():
    return _ON[0]


def _table(model):
    B = model._cache.get(KEY)
    return packed(model) if B is None else B


def _real(x):
    """x as a float64 array, or None for complex / object / non-numeric input."""
    try:
        x = np.asarray(x)
    except (TypeError, ValueError):         # ragged lists: the reference code names the argument
        return None
    if x.dtype.kind not in "fiub":
        return None
    return x.astype(np.float64, copy=False)


# --- batches ---------------------------------------------------------------------------------

def _chunks(N):
    """Chunks of states for N states: one per thread, four per thread above 128 states a thread (as
    the heavier batches that run on Python threads, :func:`artidyn.threads.chunks`)."""
    from ..threads import chunks
    return chunks(N, 128)


def _rows(x, width):
    """(2-D array, was 1-D) for a state vector argument, or (None, None) when not usable here."""
    x = _real(x)
    if x is None or x.ndim not in (1, 2) or x.shape[-1] != width:
        return None, None
    return (x[None] if x.ndim == 1 else x), x.ndim == 1


def _batch(model, kind, q, x1=None, x2=None, f_ext=None, body=0, Tf=_EYE4, opts=0, shape=()):
    """Run ``kind`` through the parallel kernel; result (N, *shape), or (*shape) for one state."""
    B = _table(model)
    Q, single = _rows(q, model.nq)
    if Q is None:
        return None
    X = []
    for x in (x1, x2):
        if x is None:
            X.append(_ZERO)
            continue
        Xk, s = _rows(x, model.nv)
        if Xk is None:
            return None
        X.append(Xk)
        single = single and s
    rows = [Q.shape[0]] + [Xk.shape[0] for Xk in X if Xk is not _ZERO]
    N = max(rows)
    if any(n not in (1, N) for n in rows):
        return None
    if Q.shape[0] != N:
        Q = np.broadcast_to(Q, (N, model.nq))
    X = [Xk if Xk is _ZERO or Xk.shape[0] == N else np.broadcast_to(Xk, (N, model.nv)) for Xk in X]
    F = _NO_F3
    if f_ext is not None:  # (nb+1, 6) or (1 or N, nb+1, 6), as the reference's external_forces
        F = _real(f_ext)
        if F is None or F.ndim not in (2, 3):
            return None
        F = F[None] if F.ndim == 2 else F
        if F.shape[0] not in (1, N) or F.shape[1:] != (model.nb + 1, 6):
            return None
        if F.shape[0] != N:
            F = np.broadcast_to(F, (N, model.nb + 1, 6))
        opts |= HAS_FEXT
    out = np.empty((N, math.prod(shape)))
    if _K.batch(B, kind, Q, X[0], X[1], F, body, np.asarray(Tf, dtype=float), opts, out, _chunks(N)) != -1:
        return None
    out = out.reshape((N,) + tuple(shape))
    return out[0] if single else out


# --- dynamics ----------------------------------------------------------------------------------
# The fast path: three 1-D arrays (a failed numba call costs ~0.15 ms, as numba formats an error
# message, so the attribute tests come first); AttributeError: lists and scalars.

def rnea(model, q, v, a, f_ext=None, friction=True):
    """:func:`artidyn.dynamics.rnea` through the kernels, or None."""
    if not _ON[0]:
        return None
    try:
        cache = model._cache
    except AttributeError:      # not a Model: the reference code names the mistake
        return None
    opts = FRICTION if (friction is True or (friction is not False and _flag(friction))) else 0
    if f_ext is None:               # one state of float64 arrays: the C call, ~0.5 us less than numba's
        c = cache.get(_C_RNEA[opts])
        if c is None:
            c = _c_single(model, "rnea", opts)
        if c and (tau := c(q, v, a)) is not None:
            return tau
    B = cache.get(KEY)
    if B is None:
        B = packed(model)
    try:
        if q.ndim == 1 and v.ndim == 1 and a.ndim == 1 and (f_ext is None or f_ext.ndim == 2) and native(q, v, a, f_ext):
            tau = np.empty(model.nv)
            if f_ext is None:
                return tau if _K.rnea(B, q, v, a, _NO_F, opts, tau) else None
            return tau if _K.rnea(B, q, v, a, f_ext, opts | HAS_FEXT, tau) else None
    except (AttributeError, TypeError):
        pass
    return _batch(model, RNEA, q, v, a, f_ext, opts=opts, shape=(model.nv,))


def aba(model, q, v, tau, f_ext=None, friction=True):
    """:func:`artidyn.dynamics.aba` through the kernels, or None."""
    if not _ON[0]:
        return None
    try:
        cache = model._cache
    except AttributeError:      # not a Model: the reference code names the mistake
        return None
    opts = FRICTION if (friction is True or (friction is not False and _flag(friction))) else 0
    if f_ext is None:
        c = cache.get(_C_ABA[opts])
        if c is None:
            c = _c_single(model, "aba", opts)
        if c and (qdd := c(q, v, tau)) is not None:
            return qdd
    B = cache.get(KEY)
    if B is None:
        B = packed(model)
    try:
        if q.ndim == 1 and v.ndim == 1 and tau.ndim == 1 and (f_ext is None or f_ext.ndim == 2) and native(q, v, tau, f_ext):
            qdd = np.empty(model.nv)
            if f_ext is None:
                return qdd if _K.aba(B, q, v, tau, _NO_F, opts, qdd) else None
            return qdd if _K.aba(B, q, v, tau, f_ext, opts | HAS_FEXT, qdd) else None
    except (AttributeError, TypeError):
        pass
    return _batch(model, ABA, q, v, tau, f_ext, opts=opts, shape=(model.nv,))


def crba(model, q):
    """:func:`artidyn.dynamics.crba` through the kernels, or None."""
    return _matrix_of_q(model, q, _C_CRBA, "crba", CRBA)


def _matrix_of_q(model, q, c_key, name, kind):
    """An (nv, nv) matrix of q (``name``: "crba" or "gaha") through the kernels, or None: the C
    call object kept under ``c_key``, then the numba kernel ``_K.<name>``, then a batch."""
    if not _ON[0]:
        return None
    try:
        c = model._cache.get(c_key)
    except AttributeError:      # not a Model: the reference code names the mistake
        return None
    if c is None:
        c = _c_single(model, name, 0)
    if c and (M := c(q)) is not None:
        return M
    B = _table(model)
    try:
        if q.ndim == 1 and q.dtype.isnative:      # see native()
            M = np.empty((model.nv, model.nv))
            return M if getattr(_K, name)(B, q, M) else None
    except (AttributeError, TypeError):
        pass
    return _batch(model, kind, q, shape=(model.nv, model.nv))


def _zeros_v(model):
    z = model._cache.get("kernels.zeros_v")
    if z is None:
        z = model._cache["kernels.zeros_v"] = _frozen(np.zeros(model.nv))
    return z


def gravity_torque(model, q):
    """g(q) = rnea(q, 0, 0) without friction, through the kernels, or None."""
    z = _zeros_v(model)
    return rnea(model, q, z if np.ndim(q) == 1 else z[None], z, None, friction=False)


def nonlinear_effects(model, q, v):
    """h(q, v) = rnea(q, v, 0) without friction, through the kernels, or None."""
    z = _zeros_v(model)
    return rnea(model, q, v, z if np.ndim(q) == 1 and np.ndim(v) == 1 else z[None], None, friction=False)


# --- other formulations: GAHA, Christoffel symbols, hybrid dynamics ------------------------------

def gaha(model, q):
    """:func:`artidyn.dynamics.gaha` through the kernels, or None."""
    return _matrix_of_q(model, q, _C_GAHA, "gaha", GAHA)


def christoffel(model, q):
    """:func:`artidyn.dynamics.christoffel` through the kernels, or None."""
    if not _ON[0]:
        return None
    try:
        B = model._cache.get(KEY)
    except AttributeError:      # not a Model: the reference code names the mistake
        return None
    if B is None:
        B = packed(model)
    try:
        if q.ndim == 1 and q.dtype.isnative:      # see native()
            E = model._cache.get("kernels.christoffel.E")    # work array, as the table's work columns
            if E is None:
                E = model._cache["kernels.christoffel.E"] = np.empty((model.nv, model.nv, model.nv))
            G = np.empty((model.nv, model.nv, model.nv))
            return G if _K.christoffel(B, q, E, G) else None
    except (AttributeError, TypeError):
        pass
    return _batch(model, CHRISTOFFEL, q, shape=(model.nv, model.nv, model.nv))


def _c_hybrid(model):
    """(artidyn._ccall.call, the hybrid kernel's C address), or False (no C path), kept on the model."""
    c = c_path()
    c = (c[0].call, c[1]["hybrid"]) if c is not None and model.nv > 0 else False
    model._cache[_C_HYBRID] = c
    return c


def _hybrid_c(model, c, B, q, v, a, tau, mask, known, opts):
    """One state through the C call: x = [a on the prescribed dofs, tau on the others; known], out =
    [qdd; tau] (2 nv); (qdd, tau) or None (declined: other types, shapes, invalid values)."""
    nv = model.nv
    try:
        if a.ndim != 1 or tau.ndim != 1 or a.shape != tau.shape or a.dtype != np.float64 or tau.dtype != np.float64:
            return None
        x = np.empty(2 * nv)
        x[:nv] = tau
        np.copyto(x[:nv], a, where=mask)
        x[nv:] = known
    except (AttributeError, ValueError, TypeError):
        return None
    out = np.empty(2 * nv)
    if not c[0](c[1], B, opts, q, v, x, out):
        return None
    return out[:nv], out[nv:]


def hybrid_dynamics(model, q, v, a, tau, mask, known, f_ext=None, friction=True):
    """:func:`artidyn.dynamics.hybrid_dynamics` through the kernels: (a, tau), or None.

    ``mask`` (bool) and ``known`` (float64, 1.0) mark the prescribed dofs (nv,), from the public
    function; ``a`` (or None: zeros) is read on them, ``tau`` (or None: zeros) on the others."""
    if not _ON[0]:
        return None
    try:
        B = model._cache.get(KEY)
    except AttributeError:      # not a Model: the reference code names the mistake
        return None
    if B is None:
        B = packed(model)
    opts = FRICTION if (friction is True or (friction is not False and _flag(friction))) else 0
    z = _zeros_v(model)
    a = z if a is None else a
    tau = z if tau is None else tau
    if f_ext is None:           # one state of float64 arrays: the C call (numba's dispatcher takes ~2 us more)
        c = model._cache.get(_C_HYBRID)
        if c is None:
            c = _c_hybrid(model)
        if c:
            out = _hybrid_c(model, c, B, q, v, a, tau, mask, known, opts)
            if out is not None:
                return out
    try:
        if (q.ndim == 1 and v.ndim == 1 and a.ndim == 1 and tau.ndim == 1 and (f_ext is None or f_ext.ndim == 2)
                and native(q, v, a, tau, f_ext)):
            qdd, tau_out = np.empty(model.nv), np.empty(model.nv)
            if f_ext is None:
                ok = _K.hybrid(B, q, v, a, tau, known, _NO_F, opts, qdd, tau_out)
            else:
                ok = _K.hybrid(B, q, v, a, tau, known, f_ext, opts | HAS_FEXT, qdd, tau_out)
            return (qdd, tau_out) if ok else None
    except (AttributeError, TypeError):
        pass
    # batches: one known vector, a on the prescribed dofs and tau on the others
    A, _ = _rows(a, model.nv)
    T, _ = _rows(tau, model.nv)
    if A is None or T is None or (A.shape[0] != T.shape[0] and 1 not in (A.shape[0], T.shape[0])):
        return None
    X = np.where(mask, A, T)
    if X.shape[0] == 1 and np.ndim(a) == 1 and np.ndim(tau) == 1:
        X = X[0]
    out = _batch(model, HYBRID, q, v, X, f_ext, Tf=known[None], opts=opts, shape=(2 * model.nv,))
    if out is None:
        return None
    return np.ascontiguousarray(out[..., :model.nv]), np.ascontiguousarray(out[..., model.nv:])


# --- kinematics --------------------------------------------------------------------------------

def body_placements(model, q):
    """:func:`artidyn.kinematics.body_placements` through the kernels, or None."""
    if not _ON[0]:
        return None
    try:
        B = model._cache.get(KEY)
    except AttributeError:      # not a Model: the reference code names the mistake
        return None
    if B is None:
        B = packed(model)
    try:
        if q.ndim == 1 and q.dtype.isnative:      # see native()
            T = np.empty((model.nb + 1, 4, 4))
            return T if _K.placements(B, q, T) else None
    except (AttributeError, TypeError):
        pass
    return _batch(model, PLACEMENTS, q, shape=(model.nb + 1, 4, 4))


def frame_placement(model, q, body, Tf):
    """World placement of the frame ``Tf`` (4x4 in body ``body``), or None."""
    if not _ON[0]:
        return None
    try:
        B = model._cache.get(KEY)
    except AttributeError:      # not a Model: the reference code names the mistake
        return None
    if B is None:
        B = packed(model)
    try:
        if q.ndim == 1 and q.dtype.isnative:      # see native()
            T = np.empty((4, 4))
            return T if _K.frame(B, q, body, Tf, T) else None
    except (AttributeError, TypeError):
        pass
    return _batch(model, FRAME, q, body=body, Tf=Tf, shape=(4, 4))


def jacobian(model, q, body, Tf, expressed="world"):
    """Jacobian (6, nv) of the frame ``Tf`` on ``body``, or None (also for a bad ``expressed``)."""
    if not _ON[0] or expressed not in ("world", "local"):
        return None
    try:
        B = model._cache.get(KEY)
    except AttributeError:      # not a Model: the reference code names the mistake
        return None
    if B is None:
        B = packed(model)
    opts = LOCAL if expressed == "local" else 0
    try:
        if q.ndim == 1 and q.dtype.isnative:      # see native()
            J = np.empty((6, model.nv))
            T = model._cache.get("kernels.T4")
            if T is None:
                T = model._cache["kernels.T4"] = np.empty((4, 4))
            return J if _K.jacobian(B, q, body, Tf, opts, T, J) else None
    except (AttributeError, TypeError):
        pass
    return _batch(model, JACOBIAN, q, body=body, Tf=Tf, opts=opts, shape=(6, model.nv))


def _flag(x):
    """``friction`` given as something else than True / False: a bool, or the InputError of
    :func:`artidyn.errors.check_flag` (an array's truth value would leak numpy's words)."""
    from ..errors import check_flag
    return check_flag(x, "friction")
