"""The torques and external wrenches of a contact problem, checked once at the front door.

The contact routes (``simulate(..., contact=...)`` on its compiled and readable routes and the
event-driven integrator, and :func:`artidyn.contact.contact_dynamics`) take the same inputs as
the smooth engine and refuse the same mistakes with the same words: not numbers, NaN or infinite
values, a wrong number of entries. A compiled run must never see an array of the wrong shape
(it would read past its end).
"""
import numpy as np

from ..errors import InputError, ShapeError, as_real


def torques(model, tau, where, steps=None):
    """``tau`` as a float array: a number, ``(nv,)`` (or ``(na,)`` actuator inputs, mapped through
    :func:`artidyn.dynamics.actuation_matrix`), or with ``steps`` also one row per step
    ``(rows, nv)`` with 1 <= rows <= steps + 1 (the last row held after the table). A callable
    ``tau(t, q, v)`` is returned as it is (checked at each call by the route)."""
    if callable(tau):
        return tau
    rows = "" if steps is None else f", ({steps}, {model.nv}) one row per step"
    arr = as_real(tau, f"{where}: tau", f"a number, ({model.nv},){rows} or a function tau(t, q, v)")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{where}: tau contains NaN or infinite values")
    if arr.ndim == 0:
        return arr
    from ..dynamics import actuation_matrix
    from ..sim.inputs import generalized
    if arr.ndim > (1 if steps is None else 2) or arr.shape[0] == 0:
        raise ShapeError(f"{where}: tau has shape {arr.shape}: expected a number or ({model.nv},){rows}")
    arr = generalized(model, actuation_matrix(model), arr, f"{where}: tau")
    if arr.ndim == 2 and arr.shape[0] > steps + 1:
        raise ShapeError(f"{where}: tau has {arr.shape[0]} rows for {steps} steps")
    return arr


def wrenches(model, f_ext, where):
    """``f_ext``: None, or one wrench [moment; force] per body, ``(nb + 1, 6)``, finite."""
    if f_ext is None:
        return None
    if callable(f_ext):
        raise InputError(f"{where}: f_ext must be an array of wrenches ({model.nb + 1}, 6) here, not a function")
    arr = as_real(f_ext, f"{where}: f_ext", f"wrenches (numbers) of shape ({model.nb + 1}, 6)")
    if arr.shape != (model.nb + 1, 6):
        raise ShapeError(f"{where}: f_ext has shape {arr.shape}; expected ({model.nb + 1}, 6) (one wrench per body, "
                         f"row 0 the world)")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{where}: f_ext contains NaN or infinite values")
    return arr
