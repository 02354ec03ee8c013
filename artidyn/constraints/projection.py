"""Projection of a state onto the constraints, mass-weighted (Bayo & Ledesma's projections, as in
Featherstone, "Rigid Body Dynamics Algorithms", sec. 8.3: the closest state in the kinetic-energy
metric)::

    q <- q (+) (-M^-1 J^T (J M^-1 J^T)^+ phi)      (Gauss-Newton, until |phi| <= tol)
    v <- v - M^-1 J^T (J M^-1 J^T)^+ (J v + b)
"""
import numpy as np

from ..configuration import integrate
from ..dynamics import crba
from ..errors import SimulationError
from .solve import constraint_rows


def project(model, q, v, constraints, tol=1e-12, max_iter=10, t=0.0):
    """``(q, v, residual)``: the state moved onto ``phi = 0`` (the rows that have a position
    form) and ``J v + b = 0`` (all rows, nonholonomic ones included), mass-weighted."""
    res = np.inf
    try:
        for _ in range(max_iter):
            r = constraint_rows(model, q, v, constraints, t)
            res = float(np.max(np.abs(r.phi), initial=0.0))
            if res <= tol:
                break
            J, phi = r.J[r.holonomic], r.phi[r.holonomic]
            Minv_Jt = np.linalg.solve(crba(model, q), J.T)
            q = integrate(model, q, -Minv_Jt @ np.linalg.lstsq(J @ Minv_Jt, phi, rcond=1e-12)[0])
        r = constraint_rows(model, q, v, constraints, t)
        if r.J.shape[0]:
            Minv_Jt = np.linalg.solve(crba(model, q), r.J.T)
            v = v - Minv_Jt @ np.linalg.lstsq(r.J @ Minv_Jt, r.J @ v + r.b, rcond=1e-12)[0]
    except np.linalg.LinAlgError:
        from ..dynamics.aba import singular_inertia
        err = singular_inertia(model, q) if np.all(np.isfinite(q)) else None
        if err is not None and "move(s) no inertia" in str(err):     # a joint without inertia: as aba names it
            raise err from None
        raise SimulationError("simulate with constraints: the mass matrix became singular during the projection "
                              "onto the constraints (a non-finite or degenerate state)") from None
    return q, v, res
