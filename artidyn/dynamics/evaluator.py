"""A bound evaluator: the dynamics of one model, called many times with little overhead.

``dyn = Dynamics(model)`` keeps the model's packed table and the compiled functions, so a call is
one compiled call (no argument routing, no per-call lookups); ``out=`` writes into an array of the
caller's (no allocation)::

    dyn = artidyn.Dynamics(model)
    tau = dyn.rnea(q, v, a)                 # the same numbers as artidyn.rnea
    dyn.aba(q, v, tau, out=qdd)             # into qdd (C-contiguous float64, nv)
    M = dyn.crba(q)

One state per call (1-D float64 arrays); anything else (lists, batches, complex or SymPy numbers,
invalid values) goes to the public function, which computes it or raises its clear error. The
evaluator uses the model's own work table: like the public functions, not for concurrent
threads on one model.

The call goes through the small C extension ``artidyn._ccall`` when it was built (a C compiler at
installation): ``dyn.rnea``, ``dyn.aba`` and ``dyn.crba`` are then compiled call objects that check
the arrays (numpy's C API; the buffer protocol for other buffers) and run the kernel directly
(about 0.7 µs less per call
than numba's dispatcher, which checks the types of every argument, and no Python frame); what they
refuse goes to the checked methods of the class (their ``fallback``), which compute it or raise
the public functions' errors. Without the extension (or with ``ARTIDYN_NO_CCALL=1`` in the
environment when the evaluator is made), the methods call numba's dispatcher.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import ShapeError
from ..kernels.dispatch import native
from .derivatives import AbaDerivatives, RneaDerivatives

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model

_ND = np.ndarray
_F8 = np.dtype(np.float64)
_NAMED = (RneaDerivatives, AbaDerivatives)


class Dynamics:
    """rnea, aba, crba, their derivatives, gravity and nonlinear effects of ``model`` at one
    state per call.

    Methods take ``out=`` (a C-contiguous float64 array of the result's shape) to write into.

    Parameters
    ----------
    model : Model
    friction : bool
        include the joint friction (``damping``, ``coulomb``), as the public functions' ``friction``.
    """

    def __init__(self, model: Model, friction: bool = True) -> None:
        from ..checks import as_model
        from ..kernels import dispatch
        from ..kernels.dispatch import _K

        self.model = as_model(model)
        self.friction = bool(friction)
        self.nv = model.nv
        self._B = dispatch._table(model)
        self._opts = dispatch.FRICTION if friction else 0
        self._nof = dispatch._NO_F
        self._zeros = np.zeros(model.nv)
        self._zeros.flags.writeable = False
        self._rnea, self._aba, self._crba = _K.rnea, _K.aba, _K.crba     # numba dispatchers: typed in C
        self._v_shape, self._m_shape, self._d_shape = (self.nv,), (self.nv, self.nv), (3, self.nv, self.nv)
        c = dispatch.c_path() if model.nv else None    # nv = 0: the C objects take no empty shapes
        self.c_path = c is not None
        self._c = c[0].call if c else None
        A = c[1] if c else dict.fromkeys(("rnea", "aba", "crba", "rnea_derivatives", "aba_derivatives"), 0)
        self._c_rnea_d, self._c_aba_d = A["rnea_derivatives"], A["aba_derivatives"]
        self._views = [None, None]      # per derivative kind: (the last out, its named views)
        if c is not None:               # rnea, aba, crba: C objects in the instance, the methods below their fallbacks
            Kernel = c[0].Kernel
            for name, nin, shape in (("rnea", 3, self._v_shape), ("aba", 3, self._v_shape), ("crba", 1, self._m_shape)):
                method = getattr(self, name)
                setattr(self, name, Kernel(A[name], self._B, 0 if name == "crba" else self._opts, nin, shape,
                                           method, method.__doc__))

    def __repr__(self):
        return f"Dynamics({self.model.name!r}, friction={self.friction})"

    def _out(self, out, shape):
        if out is None:
            return np.empty(shape)
        if type(out) is not _ND or out.shape != shape or out.dtype is not _F8 or not out.flags.writeable:
            raise ShapeError(f"out must be a writable float64 array of shape {shape} for model "
                             f"'{self.model.name}', got {type(out).__name__} {getattr(out, 'dtype', '')} "
                             f"{getattr(out, 'shape', '')}"
                             + (" (read-only)" if type(out) is _ND and not out.flags.writeable else ""))
        return out                  # a strided out fails the compiled call's types: the public function, then a copy

    def _copy(self, result, out):
        if out is None:
            return result
        out[...] = result
        return out

    def rnea(self, q: ArrayLike, v: ArrayLike, a: ArrayLike, out: Array | None = None) -> Array:
        """Inverse dynamics, as :func:`artidyn.rnea` (no external wrenches: use the public one)."""
        tau = self._out(out, (self.nv,))
        try:
            if native(q, v, a) and self._rnea(self._B, q, v, a, self._nof, self._opts, tau):
                return tau
        except (TypeError, AttributeError):   # not three 1-D float64 arrays: the public function
            pass
        from .rnea import rnea
        return self._copy(rnea(self.model, q, v, a, friction=self.friction), out)

    def aba(self, q: ArrayLike, v: ArrayLike, tau: ArrayLike, out: Array | None = None) -> Array:
        """Forward dynamics, as :func:`artidyn.aba`."""
        qdd = self._out(out, (self.nv,))
        try:
            if native(q, v, tau) and self._aba(self._B, q, v, tau, self._nof, self._opts, qdd):
                return qdd
        except (TypeError, AttributeError, ZeroDivisionError, SystemError, FloatingPointError):
            pass                          # a singular articulated inertia: the public function names the joint
        from .aba import aba
        return self._copy(aba(self.model, q, v, tau, friction=self.friction), out)

    def crba(self, q: ArrayLike, out: Array | None = None) -> Array:
        """The joint-space mass matrix, as :func:`artidyn.crba`."""
        M = self._out(out, (self.nv, self.nv))
        try:
            if native(q) and self._crba(self._B, q, M):
                return M
        except (TypeError, AttributeError):
            pass
        from .crba import crba
        return self._copy(crba(self.model, q), out)

    def rnea_derivatives(self, q: ArrayLike, v: ArrayLike, a: ArrayLike, out: Array | None = None):
        """``RneaDerivatives(dtau_dq, dtau_dv, M)``, as :func:`artidyn.rnea_derivatives` (no
        external wrenches: use the public one); the three are views of ``out`` (3, nv, nv)."""
        return self._derivatives(0, q, v, a, out)

    def aba_derivatives(self, q: ArrayLike, v: ArrayLike, tau: ArrayLike, out: Array | None = None):
        """``AbaDerivatives(da_dq, da_dv, Minv)``, as :func:`artidyn.aba_derivatives`; the three
        are views of ``out`` (3, nv, nv)."""
        return self._derivatives(1, q, v, tau, out)

    def _derivatives(self, kind, q, x1, x2, out):
        named = _NAMED[kind]
        if self._c is not None:
            D = np.empty(self._d_shape) if out is None else out
            if self._c(self._c_aba_d if kind else self._c_rnea_d, self._B, self._opts, q, x1, x2, D):
                if out is None:
                    return named(D[0], D[1], D[2])
                last = self._views[kind]     # the same out again: the same views (making them costs ~0.6 µs)
                if last is not None and last[0] is out:
                    return last[1]
                r = named(D[0], D[1], D[2])
                self._views[kind] = (out, r)
                return r
        D = self._out(out, self._d_shape)
        from . import _derivatives_kernels as dk
        single = dk._kernels()["single"]
        try:
            if native(q, x1, x2) and single(self._B, kind, q, x1, x2, self._nof, self._opts, D) == 0:
                return named(D[0], D[1], D[2])
        except (TypeError, AttributeError):   # not three 1-D float64 arrays: the public function
            pass
        from .derivatives import aba_derivatives, rnea_derivatives
        r = (aba_derivatives if kind else rnea_derivatives)(self.model, q, x1, x2, friction=self.friction)
        if out is None:
            return r
        out[...] = np.stack(r)
        return named(out[0], out[1], out[2])

    def nonlinear_effects(self, q: ArrayLike, v: ArrayLike, out: Array | None = None) -> Array:
        """C(q, v) v + g(q) (and friction when on): rnea with a = 0."""
        return self.rnea(q, v, self._zeros, out=out)

    def gravity(self, q: ArrayLike, out: Array | None = None) -> Array:
        """g(q): rnea with v = a = 0 (friction plays no part at rest)."""
        return self.rnea(q, self._zeros, self._zeros, out=out)
