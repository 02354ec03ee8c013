"""Inputs of a simulation over time: joint torques, external wrenches, controllers.

Every input becomes a *table* the compiled engine reads at any time ``t`` (:mod:`artidyn.kernels.stepping`):
a mode (none, constant, held, linearly interpolated), the times ``tt`` (K,) and the values
``tv`` (R, K, ...) with R = 1 (shared by every run) or N (one per run of a batch).

A plain array over time is matched against the run's time grid (``grid``: the step times of a
fixed-step method, the sample times of the adaptive one): one row per interval is held over that
interval (a digital controller's zero-order hold), one row per grid time is interpolated
linearly. :class:`TimeTable` gives values at arbitrary times.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, ShapeError, as_real, check_function

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

NONE, CONSTANT, HOLD, LINEAR = 0, 1, 2, 3   # as artidyn.kernels.stepping


class TimeTable:
    """Values given at arbitrary times: ``TimeTable(t, values, interpolation="linear")``.

    ``t`` (K,) increasing; ``values`` (K, k) or, for a batch of runs, (K, N, k), k = nv or na for
    torques, (K, nb + 1, 6) or (K, N, nb + 1, 6) for external wrenches. ``"linear"`` interpolates
    between rows, ``"hold"`` keeps row k over [t_k, t_k+1). Before ``t[0]`` and after ``t[-1]``
    the first and last rows hold.
    """

    def __init__(self, t: ArrayLike, values: ArrayLike, interpolation: str = "linear") -> None:
        self.t = np.asarray(t, dtype=float).ravel()
        self.values = np.asarray(values, dtype=float)
        if interpolation not in ("linear", "hold"):
            raise InputError(f"TimeTable: interpolation must be 'linear' or 'hold', got {interpolation!r}")
        self.interpolation = interpolation
        if self.t.size < 1 or self.values.shape[:1] != (self.t.size,):
            raise ShapeError(f"TimeTable: values of shape {self.values.shape} do not have one row per time "
                             f"({self.t.size} times)")
        if not (np.all(np.isfinite(self.t)) and np.all(np.isfinite(self.values))):
            raise InputError("TimeTable: times and values must be finite (NaN or inf found)")
        if np.any(np.diff(self.t) <= 0):
            raise InputError("TimeTable: times must be strictly increasing")

    def __repr__(self):
        return (f"TimeTable({self.t.size} rows from t = {self.t[0]:.6g} to {self.t[-1]:.6g} s, "
                f"values {self.values.shape[1:]}, {self.interpolation})")


def _finite(arr, what):
    if not np.all(np.isfinite(arr)):
        raise InputError(f"simulate: {what} contains NaN or infinite values")


def generalized(model, B, x, what):
    """Torques (..., nv) or actuator inputs (..., na) -> generalized torques (..., nv)."""
    nv, na = B.shape
    if x.shape[-1] == nv:
        return x
    if x.shape[-1] == na:
        return x @ B.T
    act = [model.joint_names[i] for i in range(1, model.nb + 1)
           if np.any(np.asarray(model.actuated)[model.v_slice(model.joint_names[i])])]
    raise ShapeError(f"{what} has {x.shape[-1]} entries per state; model '{model.name}' needs nv = {nv} "
                     f"(generalized torques) or na = {na} (one per actuated dof: {', '.join(act)})")


def torque_table(model, tau, grid, N, single):
    """``(mode, tt, tv)`` for the ``tau`` argument of simulate, or ``("python", tau, None)`` for a
    callable. ``tv`` has shape (1 or N, K, nv)."""
    from ..dynamics import actuation_matrix

    if callable(tau):
        return "python", check_function(tau, "tau", "tau(t, q, v) (or tau(t, q, v, contact_forces) in a contact run)",
                                        (3, 4)), None
    B = actuation_matrix(model)
    nv, n_int = model.nv, grid.size - 1
    if isinstance(tau, TimeTable):
        vals = generalized(model, B, tau.values, "tau")
        if vals.ndim == 3 and vals.shape[1] not in (1, N):
            raise ShapeError(f"TimeTable for tau has {vals.shape[1]} runs; the simulation has {N}")
        tv = vals[:, None] if vals.ndim == 2 else vals
        return (LINEAR if tau.interpolation == "linear" else HOLD), tau.t, np.ascontiguousarray(tv.transpose(1, 0, 2))
    arr = as_real(tau, "tau", "torques (numbers), a TimeTable or a function tau(t, q, v)")
    _finite(arr, "tau")
    if arr.ndim == 0:
        return (NONE if arr == 0 else CONSTANT), grid[:1], np.full((1, 1, nv), float(arr))
    arr = generalized(model, B, arr, "tau")
    rows = arr.shape[0]
    over_time = arr.ndim in (2, 3) and rows in (n_int, n_int + 1)
    expected = (f"expected ({nv},) or ({N}, {nv}) constant, or ({n_int}, {nv}) / ({n_int + 1}, {nv}) / "
                f"({n_int}, {N}, {nv}) over the {n_int} time steps (or na = {B.shape[1]} columns), or a TimeTable")
    if arr.ndim == 1:
        return CONSTANT, grid[:1], arr.reshape(1, 1, nv).copy()
    if arr.ndim == 2 and not single and rows == N and not over_time:
        return CONSTANT, grid[:1], np.ascontiguousarray(arr[:, None, :])
    if arr.ndim == 2 and not single and rows == N:
        raise ShapeError(f"tau of shape {arr.shape} is ambiguous ({N} states, {n_int} steps): "
                         f"pass ({rows}, {N}, {nv}) for torques over time")
    if not over_time or (arr.ndim == 3 and arr.shape[1] not in (1, N)):
        raise ShapeError(f"tau has shape {arr.shape}: {expected}")
    tv = arr[:, None] if arr.ndim == 2 else arr
    tv = np.ascontiguousarray(tv.transpose(1, 0, 2))
    return (HOLD if rows == n_int else LINEAR), (grid[:-1] if rows == n_int else grid), tv


def wrench_table(model, f_ext, grid, N, single):
    """``(mode, tt, fv)`` for the ``f_ext`` argument, fv of shape (1 or N, K, nb + 1, 6); or
    ``("python", f_ext, None)`` for a callable."""
    shape = (model.nb + 1, 6)
    if f_ext is None:
        return NONE, grid[:1], np.zeros((1, 1) + shape)
    if callable(f_ext):
        return "python", check_function(f_ext, "f_ext", "f_ext(t, q, v)", (3, 4)), None
    n_int = grid.size - 1
    if isinstance(f_ext, TimeTable):
        vals = f_ext.values
        if vals.shape[-2:] != shape or vals.ndim not in (3, 4) or (vals.ndim == 4 and vals.shape[1] not in (1, N)):
            raise ShapeError(f"TimeTable for f_ext has values {vals.shape}; expected (K, {shape[0]}, 6) or "
                             f"(K, {N}, {shape[0]}, 6)")
        fv = vals[:, None] if vals.ndim == 3 else vals
        mode = LINEAR if f_ext.interpolation == "linear" else HOLD
        return mode, f_ext.t, np.ascontiguousarray(fv.transpose(1, 0, 2, 3))
    arr = as_real(f_ext, "f_ext", "wrenches (numbers), a TimeTable or a function f_ext(t, q, v)")
    _finite(arr, "f_ext")
    if arr.shape[-2:] != shape or arr.ndim not in (2, 3):
        raise ShapeError(f"f_ext has shape {arr.shape}; expected ({shape[0]}, 6) (one wrench per body, row 0 "
                         f"the world), ({N}, {shape[0]}, 6) per run, ({n_int} or {n_int + 1}, {shape[0]}, 6) over "
                         f"time, or a TimeTable")
    if arr.ndim == 2:
        return CONSTANT, grid[:1], arr.reshape((1, 1) + shape).copy()
    rows = arr.shape[0]
    if not single and rows == N and rows not in (n_int, n_int + 1):
        return CONSTANT, grid[:1], np.ascontiguousarray(arr[:, None])
    if rows not in (n_int, n_int + 1):
        raise ShapeError(f"f_ext has {rows} rows: expected {n_int} (held over each step) or {n_int + 1} "
                         f"(interpolated) over time, or {N} (one per run)")
    return (HOLD if rows == n_int else LINEAR), (grid[:-1] if rows == n_int else grid), arr[None].copy()


def stage_tables(model, tau, f_ext, controller, grid, N, single):
    """The input stage as the compiled engines read it (:mod:`artidyn.kernels.stepping`'s
    ``accel`` and :mod:`artidyn.kernels.scene_run`'s ``inputs``): ``(tau_mode, tau_t, tau_v,
    tau_fn, f_mode, f_t, f_v, f_fn, code, gains, ref)``. A Python function for ``tau`` or
    ``f_ext`` is returned as ``tau_fn`` / ``f_fn`` with a constant zero table that the run writes
    its values into (None otherwise); ``code``: the controller's (0: none); ``gains`` (5, nv): kp,
    kd, actuated, joint damping, Coulomb friction; ``ref``: the reference's (t, q, v, a)."""
    tau_mode, tau_t, tau_v = torque_table(model, tau, grid, N, single)
    f_mode, f_t, f_v = wrench_table(model, f_ext, grid, N, single)
    tau_fn = f_fn = None
    if tau_mode == "python":
        tau_fn, tau_mode, tau_t, tau_v = tau_t, CONSTANT, grid[:1], np.zeros((1, 1, model.nv))
    if f_mode == "python":
        f_fn, f_mode, f_t, f_v = f_t, CONSTANT, grid[:1], np.zeros((1, 1, model.nb + 1, 6))
    if controller is None:
        code, gains = 0, np.zeros((5, model.nv))
        gains[3], gains[4] = model.damping, model.coulomb
        ref = (np.zeros(1), np.zeros((1, model.nq)), np.zeros((1, model.nv)), np.zeros((1, model.nv)))
    else:
        if not hasattr(controller, "tables"):
            raise InputError(f"simulate: controller must be artidyn.sim.PD or ComputedTorque, got "
                             f"{type(controller).__name__} (a Python function goes in tau=f(t, q, v))")
        code = controller.code
        gains, *ref = controller.tables(model)
    ref = tuple(np.ascontiguousarray(x, dtype=float) for x in ref)
    return tau_mode, tau_t, tau_v, tau_fn, f_mode, f_t, f_v, f_fn, code, np.ascontiguousarray(gains), ref
