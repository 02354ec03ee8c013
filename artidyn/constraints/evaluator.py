"""A bound evaluator of the constrained dynamics: one model, one constraint list, many states.

``cd = ConstrainedDynamics(model, constraints)`` checks the constraints once and keeps their
compiled form and the kernel's scratch, so a call is one compiled call (the tree-sparse route of
:func:`~artidyn.constraints.constrained_dynamics`, the same numbers)::

    cd = artidyn.constraints.ConstrainedDynamics(model, [Weld("left_sole_link", at=q0), ...])
    a = cd(q, v, tau)                      # accelerations, as constrained_dynamics(...).a
    cd(q, v, tau, out=a)                   # into a (C-contiguous float64, nv)
    cd.lambdas, cd.forces, cd.residual     # of the last call

The call goes through the small C extension ``artidyn._ccall`` when it was built (as
:class:`artidyn.Dynamics`; ``c_path`` says so; ``ARTIDYN_NO_CCALL=1`` in the environment turns
it off): the arrays checked through the buffer protocol, the kernel bound to this evaluator's
table, constraints and scratch called directly, about 1 µs less per call than numba's
dispatcher of fourteen arguments.

One state per call (1-D float64 arrays). Anything else (lists, batches, invalid values,
redundant constraints, a constraint without a compiled form, kernels switched off) goes to
:func:`~artidyn.constraints.constrained_dynamics`, which computes it or raises its clear error;
its result is then what ``lambdas``, ``forces``, ``residual``, ``rank`` and ``status`` report.
Like the public functions, not for concurrent threads on one model.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, ShapeError
from . import compiled as _compiled
from .solve import ConstrainedResult, _check, check_baumgarte, constrained_dynamics

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model
    from .solve import Constraints

_ND = np.ndarray
_F8 = np.dtype(np.float64)
_NONE, _FAST = object(), object()      # no call yet; the last call went through the kernel


class ConstrainedDynamics:
    """Constrained forward dynamics of ``model`` under ``constraints``, one state per call.

    Calling ``cd(q, v, tau, out=None)`` returns the accelerations (nv,); afterwards ``lambdas``
    (m,), ``forces`` (one wrench per constraint, or its multipliers), ``residual``, ``rank`` and
    ``status`` describe that call (the arrays are overwritten by the next one: copy to keep).

    Parameters
    ----------
    model : Model
    constraints : list of constraints (:mod:`artidyn.constraints.models`)
        Checked against the model here (an InputError names the constraint).
    friction : bool
        include the joint friction, as :func:`~artidyn.constraints.constrained_dynamics`.
    baumgarte : (alpha, beta), optional
        stabilisation gains, as :func:`~artidyn.constraints.constrained_dynamics`.
    """

    def __init__(self, model: Model, constraints: Constraints, friction: bool = True,
                 baumgarte: tuple[float, float] | None = None) -> None:
        from ..checks import as_model
        from ..kernels import dispatch

        self.model = as_model(model)
        self.constraints = tuple(_check(self.model, constraints))
        self.friction = bool(friction)
        self.baumgarte = check_baumgarte(baumgarte, "ConstrainedDynamics")
        self.nv = self.model.nv
        self.rows = sum(c.rows for c in self.constraints)
        self._last: ConstrainedResult | None | object = _NONE     # _FAST: the kernel's numbers in _work
        self._into = self._c = None
        self.c_path = False
        P = _compiled.packed(self.model, self.constraints) if dispatch._ON[0] else None
        if P is not None:
            self._P = P
            self._B = dispatch._table(self.model)
            self._work = _compiled.Work(self._B, P)     # its own scratch: not shared with the public function
            alpha, beta = self.baumgarte or (0.0, 0.0)
            self._args = (dispatch._NO_F, dispatch.FRICTION if self.friction else 0, alpha, beta)
            self._into = _compiled._K.constrained_into
            c = _compiled.c_bound()
            if c is not None:
                self._c, self._addr = c[0], c[1]
                self._ctx = self._work.context(self._B, P, (id(self._B), self.friction, alpha, beta), c[2])
                self.c_path = True

    def __repr__(self):
        return (f"ConstrainedDynamics({self.model.name!r}, {len(self.constraints)} constraints, {self.rows} rows, "
                f"friction={self.friction})")

    def __call__(self, q: ArrayLike, v: ArrayLike, tau: ArrayLike, out: Array | None = None) -> Array:
        """The accelerations at (q, v, tau), as ``constrained_dynamics(...).a``."""
        c = self._c
        if c is not None:
            a = np.empty(self.nv) if out is None else out
            if c(self._addr, self._ctx, q, v, tau, a):        # out checked (1-D, writable, float64) on the C side
                self._last = _FAST
                return a
        if out is None:
            a = np.empty(self.nv)
        elif (type(out) is not _ND or out.shape != (self.nv,) or out.dtype is not _F8 or not out.flags.writeable):
            raise ShapeError(f"out must be a writable C-contiguous float64 array of shape ({self.nv},) for model "
                             f"'{self.model.name}', got {type(out).__name__} {getattr(out, 'dtype', '')} "
                             f"{getattr(out, 'shape', '')}"
                             + (" (read-only)" if type(out) is _ND and not out.flags.writeable else ""))
        else:
            a = out                   # strided: the dispatcher refuses it, the public function's numbers copied in
        into = self._into
        if into is not None and c is None:    # the C path said no: the dispatcher would too
            w = self._work
            try:
                if into(self._B, self._P.K, self._P.TF, q, v, tau, *self._args, w.buf, w.ints, self.rows, a) == 0:
                    self._last = _FAST
                    return a
            except TypeError:          # not three 1-D float64 arrays (or a read-only out): the public function
                pass
        r = constrained_dynamics(self.model, q, v, tau, list(self.constraints), baumgarte=self.baumgarte,
                                 friction=self.friction)
        if np.ndim(r.a) != 1:
            raise ShapeError(f"ConstrainedDynamics of '{self.model.name}' takes one state (q (nq,), v (nv,), "
                             f"tau (nv,)); use constrained_dynamics for a batch")
        self._last = r
        if out is None:
            return r.a
        out[...] = r.a
        return out

    def _fast_last(self):
        """True when the last call went through the kernel; an InputError before any call."""
        if self._last is _FAST:
            return True
        if self._last is _NONE:
            raise InputError(f"{self!r}: no state evaluated yet (call it with q, v, tau first)")
        return False

    @property
    def lambdas(self) -> Array:
        """The multipliers of the last call (m,), in constraint order."""
        return self._work.lam if self._fast_last() else self._last.lambdas

    @property
    def forces(self) -> list:
        """The reactions of the last call, one per constraint, as ``constrained_dynamics(...).forces``."""
        if not self._fast_last():
            return self._last.forces
        return self._P.forces(self._work.W.copy(), self._work.lam.copy())

    @property
    def residual(self) -> float:
        """max |J a - gamma| of the last call."""
        return float(self._work.buf[-1]) if self._fast_last() else self._last.residual

    @property
    def rank(self) -> int:
        """The rank of J at the last call."""
        return self.rows if self._fast_last() else self._last.rank

    @property
    def status(self) -> str:
        """"ok", "redundant" or "inconsistent", as ``constrained_dynamics(...).status``."""
        return "ok" if self._fast_last() else self._last.status
