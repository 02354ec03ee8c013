"""The common entry point: one state, one method, one result."""
from typing import NamedTuple, Optional

import numpy as np

from ..errors import InputError
from . import boltzmann_hamel, gibbs_appell, kane, lagrange, maggi, udwadia_kalaba
from . import compiled as _compiled
from .system import Terms

METHODS = {"gibbs_appell": gibbs_appell.solve, "kane": kane.solve, "maggi": maggi.solve,
           "boltzmann_hamel": boltzmann_hamel.solve, "udwadia_kalaba": udwadia_kalaba.solve,
           "lagrange": lagrange.solve}


class AnalyticalResult(NamedTuple):
    """Result of :func:`accelerations`.

    ``a``: the accelerations of the quasi-velocities ``wdot`` (the model's ``a`` when the system
    has none); ``dv``: the model's accelerations ``a`` (nv,); ``multipliers``: the constraint
    multipliers in constraint-row order where the formulation has them (Lagrange, Boltzmann-Hamel,
    Udwadia-Kalaba), else None; ``constraint_force``: the generalized constraint force
    ``M a + h - tau`` (nv,), which every method implies; ``residual``: ``max |A a - gamma|``.
    """

    a: np.ndarray
    dv: np.ndarray
    multipliers: Optional[np.ndarray]
    constraint_force: np.ndarray
    residual: float
    method: str


def accelerations(system, q, v=None, tau=None, method="gibbs_appell", t=0.0, w=None, f_ext=None, friction=True):
    """Accelerations of a constrained system by one of the analytical formulations.

    Compiled (:mod:`artidyn.kernels.formulations`, one kernel per method on the compiled mass
    matrix, bias forces and constraint rows); ``artidyn.kernels.reference_only()`` runs the
    readable modules (:mod:`.gibbs_appell`, :mod:`.kane`, ...), which the tests hold it to.

    Parameters
    ----------
    system : :class:`~artidyn.analytical.System`
    q : (nq,) or a batch (N, nq)
    v : (nv,) or (N, nv) the model's velocities, or ``w=`` the quasi-velocities (``v = G(q) w``)
    tau : (nv,) or (N, nv) joint torques (default zero)
    method : one of ``METHODS`` ("gibbs_appell", "kane", "maggi", "boltzmann_hamel",
        "udwadia_kalaba", "lagrange")
    t : time, for time-dependent constraints
    f_ext : (nb + 1, 6) or (N, nb + 1, 6) external wrenches (body frame, about the body origin)

    Returns
    -------
    AnalyticalResult
        For a batch: ``a``, ``dv``, ``constraint_force`` (N, nv), ``multipliers`` (N, m) or None,
        ``residual`` (N,).
    """
    if method not in METHODS:
        raise InputError(f"analytical.accelerations: unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if (v is None) == (w is None):
        raise InputError("analytical.accelerations: give the velocities v or the quasi-velocities w (one of them)")
    batch = np.ndim(q) == 2 or np.ndim(v if w is None else w) == 2 or np.ndim(tau) == 2 or np.ndim(f_ext) == 3

    def one(k):
        """The reference route for state k of a batch."""
        def row(x, ndim):
            return x if x is None or np.ndim(x) < ndim else np.asarray(x)[k if len(x) > 1 else 0]
        return _reference(system, row(q, 2), row(v, 2), row(tau, 2), method, t, row(w, 2), row(f_ext, 3), friction)

    out = _compiled.accelerations(system, q, v, w, tau, method, t, f_ext, friction, one)
    if out is not None:
        return out
    if not batch:
        return _reference(system, q, v, tau, method, t, w, f_ext, friction)
    N = max(len(x) for x, nd in ((q, 2), (v, 2), (w, 2), (tau, 2), (f_ext, 3)) if x is not None and np.ndim(x) == nd)
    rs = [one(k) for k in range(N)]
    lam = None if rs[0].multipliers is None else np.array([r.multipliers for r in rs])
    return AnalyticalResult(np.array([r.a for r in rs]), np.array([r.dv for r in rs]), lam,
                            np.array([r.constraint_force for r in rs]), np.array([r.residual for r in rs]), method)


def _reference(system, q, v, tau, method, t, w, f_ext, friction):
    """One state by the readable modules."""
    model = system.model
    if v is None:
        v = system.velocities(q, w)
    tau = np.zeros(model.nv) if tau is None else tau
    T = Terms(system, q, v, tau, t, f_ext, friction)
    try:
        wdot, lam = METHODS[method](T)
    except np.linalg.LinAlgError as exc:
        raise InputError(f"analytical.accelerations ({method}) on '{model.name}': a singular system at this state "
                         f"({exc}); the constraints may be degenerate here") from None
    a = T.from_quasi(wdot)
    if not (np.all(np.isfinite(a)) and (lam is None or np.all(np.isfinite(lam)))):
        raise InputError(f"analytical.accelerations ({method}) on '{model.name}': the result is not finite")
    from ..dynamics import rnea
    force = rnea(model, T.q, T.v, a, f_ext, friction=friction) - T.tau
    res = float(np.max(np.abs(T.A @ a - T.gamma), initial=0.0))
    return AnalyticalResult(wdot if system.quasi else a, a, lam, force, res, method)
