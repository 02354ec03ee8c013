"""Simulation under bilateral constraints (closed chains, welded feet, gears): the reference route.

Each step integrates ``a = constrained_dynamics(q, v, tau)`` (:mod:`artidyn.constraints`) with
the readable steppers of :mod:`.integrate`, then projects the state back onto the constraint
manifold, mass-weighted (the closest state in kinetic-energy metric; Bayo & Ledesma's
projections, as in Featherstone, "Rigid Body Dynamics Algorithms", sec. 8.3)::

    q <- q (+) (-M^-1 J^T (J M^-1 J^T)^+ phi)      (Gauss-Newton, until |phi| <= tol)
    v <- v - M^-1 J^T (J M^-1 J^T)^+ J v

Baumgarte stabilisation (``J a = -Jdot v - 2 alpha J v - beta^2 phi``) is available instead of,
or with, the projection. The run records the constraint forces and the drift (the largest
``|phi|`` and ``|J v|`` met before each projection).

Two routes, held equal in the tests: the whole run compiled (:mod:`artidyn.kernels.constrained_sim`:
Point, Weld, Hinge, Distance, Coupling; constant torques or one row per step; constant external
wrenches), and this module's readable loop (any constraint, ``tau`` a Python function), which
calls Python at every stage. ``route="auto"`` takes the compiled one when it applies, and the
readable one for what it does not take. Dependent (redundant) constraint rows: the compiled run
drops them (zero multipliers), the readable one keeps the least-norm multipliers; the motion
is the same.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..constraints import constrained_dynamics, constraint_rows
from ..constraints.projection import project
from ..constraints.solve import _check, check_baumgarte
from ..dynamics import kinetic_energy, potential_energy
from ..errors import InputError, ShapeError, SimulationError, as_real, check_number
from ..firstuse import clock
from .integrate import rk4_step, semi_implicit_step
from .result import Energy, SimulationResult

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

    from .._typing import Input, Model
    from ..constraints.models import Constraint

STEPPERS = {"rk4": rk4_step, "semi-implicit": semi_implicit_step}


def simulate_constrained(model: Model, q0: ArrayLike, v0: ArrayLike | None = None,
                         constraints: Iterable[Constraint] | str = (), tau: Input = 0.0, t_final: float = 1.0,
                         dt: float = 1e-3, method: str = "rk4", f_ext: Input | None = None,
                         baumgarte: tuple[float, float] | None = None, projection: bool = True, tol: float = 1e-12,
                         record_every: int = 1, friction: bool = True, route: str = "auto",
                         energy_tol: float | None = 0.1) -> SimulationResult:
    """Simulate a model with bilateral constraints from ``(q0, v0)`` (assembled first).

    ``tau``: a constant (nv,) or number, an array with one row per step (``ceil(t_final / dt)``
    rows, held over the step), or a function ``tau(t, q, v)`` called at every stage (the readable
    route); ``method``: ``"rk4"`` or ``"semi-implicit"``; ``baumgarte=(alpha, beta)`` and/or
    ``projection`` (default) keep the state on the constraint manifold; ``record_every``: keep
    one sample every k steps; ``route``: ``"auto"``, ``"compiled"`` (an error when it does not
    apply) or ``"reference"``.

    Returns a :class:`SimulationResult` with ``constraint_forces`` (S, rows: the multipliers, in
    constraint order), ``drift`` (S, 2: max |phi| and max |J v| before each projection) and
    ``stats`` (``route`` says which ran). ``energy_tol``: the energy balance of the run (ideal
    constraints do no work, friction only takes energy out: ``E - E0 <= W``, W the work of tau and
    f_ext by the trapezoid rule over the samples): a run whose energy outgrows W by more than
    ``energy_tol`` of its scale raises :class:`~artidyn.errors.SimulationError` with the run up to
    there (checked when every step is sampled and the constraints are ideal and fixed in time:
    points, welds, distances, hinges, couplings, rolling on a fixed plane; None: not checked).
    """
    from .simulate import time_grid

    if method not in STEPPERS:
        raise InputError(f"simulate with constraints: method must be 'rk4' or 'semi-implicit', got {method!r}")
    if route not in ("auto", "compiled", "reference"):
        raise InputError(f"simulate with constraints: route must be 'auto', 'compiled' or 'reference', got {route!r}")
    if not (isinstance(record_every, (int, np.integer)) and record_every >= 1):
        raise InputError(f"simulate with constraints: record_every must be a positive integer, got {record_every!r}")
    constraints = _check(model, constraints)
    baumgarte = check_baumgarte(baumgarte, "simulate with constraints")
    why = _compiled_unfit(model, constraints, tau, f_ext, time_grid(t_final, dt).size - 1)
    if route == "compiled" and why:
        raise InputError(f"simulate with constraints: the compiled route does not take {why}")
    if route != "reference" and not why:
        out = _simulate_compiled(model, q0, v0, constraints, tau, t_final, dt, method, f_ext, baumgarte, projection,
                                 tol, record_every, friction)
    else:
        out = _simulate_reference(model, q0, v0, constraints, tau, t_final, dt, method, f_ext, baumgarte, projection,
                                  tol, record_every, friction)
    from ..constraints.compiled import compilable
    # the balance holds for ideal, scleronomic constraints (those with a compiled form: a moving
    # plane or a user's function may do work)
    if energy_tol is not None and record_every == 1 and not callable(f_ext) and compilable(constraints):
        _balance(model, out, f_ext, check_number(energy_tol, "simulate with constraints: energy_tol", positive=True))
    return out


def _balance(model, r, f_ext, energy_tol):
    """SimulationError with the run up to its first sample where the energy outgrows the inputs'
    work by more than energy_tol of the scale (as the contact pipeline's balance)."""
    from ..dynamics import rnea
    from .simulate import _energy_scale

    E = r.energy.total
    P = np.einsum("sk,sk->s", r.tau, r.v)
    if f_ext is not None:
        F = np.asarray(f_ext, dtype=float)
        if F.ndim == 2:
            Z = np.zeros_like(r.v)
            P = P + np.einsum("sk,sk->s", rnea(model, r.q, Z, Z, friction=False) -
                              rnea(model, r.q, Z, Z, np.broadcast_to(F, (len(r.t),) + F.shape), friction=False), r.v)
    h = np.diff(r.t)
    W = np.concatenate([[0.0], np.cumsum(0.5 * h * (P[1:] + P[:-1]))])
    absW = np.concatenate([[0.0], np.cumsum(0.5 * h * (np.abs(P[1:]) + np.abs(P[:-1])))])
    scale = np.maximum(np.maximum.accumulate(r.energy.kinetic), absW)
    scale = np.maximum(scale, _energy_scale(model, r.q[:1]))
    bad = np.nonzero((E - E[0]) - W > energy_tol * scale)[0]
    if not bad.size:
        return
    k = int(bad[0])
    part = SimulationResult(r.t[:k], r.q[:k], r.v[:k], r.a[:k], r.tau[:k],
                            Energy(*(x[:k] for x in r.energy)), model_name=r.model_name, q_names=r.q_names,
                            v_names=r.v_names, method=r.method, dt=r.dt, wall_time=r.wall_time, stats=r.stats)
    part.constraint_forces, part.drift = r.constraint_forces[:k], r.drift[:k]
    raise SimulationError(f"simulate '{model.name}' with constraints: the energy grew beyond the work of the inputs "
                          f"(the energy balance failed: {((E - E[0]) - W)[k]:.3g} J more than the inputs brought, "
                          f"tolerance energy_tol = {energy_tol:g} of the scale {scale[k]:.3g} J) at t = {r.t[k]:.6g} s "
                          f"(method '{r.method}', dt = {r.dt:.3g} s); try a smaller dt, smaller Baumgarte gains or "
                          f"inputs, or energy_tol=None. The result up to t = {r.t[max(k - 1, 0)]:.6g} s is in "
                          f"error.result", result=part)


def _compiled_unfit(model, constraints, tau, f_ext, nsteps):
    """Why the compiled route does not apply ("" when it does)."""
    from ..constraints.compiled import compilable
    from ..kernels.dispatch import kernels_enabled

    if not kernels_enabled():
        return "switched-off kernels"
    if not compilable(constraints):
        return "Holonomic or nonholonomic constraints (no compiled form)"
    if callable(tau):
        return "a Python function for tau"
    if f_ext is not None and (callable(f_ext) or np.shape(f_ext) != (model.nb + 1, 6)):
        return "external wrenches that change over time"
    T = as_real(tau, "tau", "torques (numbers) or a function tau(t, q, v)") if not callable(tau) else None
    if T is not None and not (T.ndim == 0 or T.shape == (model.nv,) or T.shape == (nsteps, model.nv)):
        return f"tau of shape {T.shape} (give a number, (nv,) or one row per step ({nsteps}, nv))"
    return ""


def _start(model, q0, v0, constraints, tol):
    from .simulate import one_state
    q, v = one_state(model, q0, v0, "simulate with constraints")
    q, v, res0 = project(model, q, v, constraints, tol)
    if res0 > 1e-6:
        raise InputError(f"simulate with constraints: q0 cannot be assembled (|phi| = {res0:.3g} after "
                         f"Gauss-Newton); start closer to the constraint manifold (artidyn.assemble)")
    return q, v


def _simulate_compiled(model, q0, v0, constraints, tau, t_final, dt, method, f_ext, baumgarte, projection, tol,
                       every, friction):
    from ..constraints import compiled
    from ..kernels import dispatch
    from ..kernels.constrained_sim import NONFINITE, NOT_ASSEMBLED, OK, RK4, SEMI_IMPLICIT, SI_SIZE, \
        SI_STEP, SINGULAR, simulate_constrained_run
    from .simulate import coordinate_names, one_state, time_grid

    q, v = one_state(model, q0, v0, "simulate with constraints")    # assembled, then moved, in place
    P = compiled.packed(model, constraints)
    t = time_grid(t_final, dt)
    h, nsteps = t[1] - t[0], t.size - 1
    T = np.asarray(tau, dtype=float)
    # writable C arrays always (copied only when not): one compiled specialization of the run
    tau_v = np.require(np.broadcast_to(T, (1, model.nv)) if T.ndim <= 1 else np.vstack([T, T[-1:]]), float, ("C", "W"))
    F = np.zeros((1, 6)) if f_ext is None else np.require(f_ext, float, ("C", "W"))
    opts = compiled.options(f_ext, friction)
    alpha, beta = (0.0, 0.0) if baumgarte is None else (float(baumgarte[0]), float(baumgarte[1]))
    ts = t[::every]
    S = ts.size
    out_q, out_v = np.zeros((S, model.nq)), np.zeros((S, model.nv))
    out_a, out_tau = np.zeros((S, model.nv)), np.zeros((S, model.nv))
    lam, drift, energy = np.zeros((S, P.m)), np.zeros((S, 2)), np.zeros((S, 2))
    si = np.zeros(SI_SIZE, dtype=np.int64)
    start = clock()
    code = simulate_constrained_run(dispatch._table(model), P.K, P.TF, q, v, tau_v, F, opts, alpha, beta,
                                    RK4 if method == "rk4" else SEMI_IMPLICIT, float(h), int(nsteps), int(every),
                                    bool(projection), float(tol), 10, out_q, out_v, out_a, out_tau, lam, drift,
                                    energy, si)
    wall = clock() - start
    if code == NOT_ASSEMBLED and int(si[SI_STEP]) == 0:
        raise InputError("simulate with constraints: q0 cannot be assembled (|phi| > 1e-6 after 50 Gauss-Newton "
                         "iterations); start closer to the constraint manifold (artidyn.assemble)")
    if code != OK:
        k = int(si[SI_STEP])
        what = {NONFINITE: "the state became non-finite", SINGULAR: "the mass matrix is not positive definite",
                NOT_ASSEMBLED: "the projection onto the constraints "
                "did not converge (|phi| > 1e-6 after 10 Gauss-Newton iterations: the constraint Jacobian is nearly "
                "singular there, a kinematic singularity of the closed chain, or the step moved too far)"}.get(
            code, "the dynamics could not be evaluated (invalid state or a constraint without direction)")
        n = 0 if k == 0 else (k - 1) // every + 1          # the samples written before the failing step
        part = SimulationResult(ts[:n], out_q[:n], out_v[:n], out_a[:n], out_tau[:n],
                                Energy(energy[:n, 0], energy[:n, 1], energy[:n, 0] + energy[:n, 1]),
                                model_name=model.name, q_names=coordinate_names(model, "q"),
                                v_names=coordinate_names(model, "v"), method=method, dt=h, wall_time=wall,
                                stats={"accepted_steps": max(k - 1, 0), "route": "compiled"})
        part.constraint_forces, part.drift = lam[:n], drift[:n]
        raise SimulationError(f"simulate with constraints: {what} at t = {k * h:.6g} s (step {k}, dt = {h:.3g} s); "
                              f"try a smaller dt. The result up to there is in error.result", result=part)
    kin, pot = energy[:, 0], energy[:, 1]
    result = SimulationResult(ts, out_q, out_v, out_a, out_tau, Energy(kin, pot, kin + pot), model_name=model.name,
                              q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
                              method=method, dt=h, wall_time=wall,
                              stats={"accepted_steps": nsteps, "route": "compiled",
                                     "max_drift_position": float(drift[:, 0].max()),
                                     "max_drift_velocity": float(drift[:, 1].max())})
    result.constraint_forces, result.drift = lam, drift
    return result


def _simulate_reference(model, q0, v0, constraints, tau, t_final, dt, method, f_ext, baumgarte, projection, tol,
                        every, friction):
    from .simulate import coordinate_names, time_grid

    q, v = _start(model, q0, v0, constraints, tol)
    t = time_grid(t_final, dt)
    h = t[1] - t[0]
    row = [0]   # the step being taken: a table of torques is held over it
    if callable(tau):
        tau_of = tau
    else:
        table = as_real(tau, "tau", "torques (numbers) or a function tau(t, q, v)")
        if table.ndim == 2 and table.shape[1] == model.nv:
            tau_of = (lambda s, qq, vv: table[min(row[0], table.shape[0] - 1)])
        elif table.ndim == 0 or table.shape in ((model.nv,), (1,)):
            c = np.broadcast_to(table, (model.nv,))
            tau_of = (lambda s, qq, vv: c)
        else:
            raise ShapeError(f"simulate with constraints: tau has shape {table.shape}; give a number, ({model.nv},) "
                             f"or one row per step (K, {model.nv})")
    lams = []   # the multipliers of each stage of the current step

    def f(s, Qs, Vs):
        tq = np.asarray(tau_of(s, Qs[0], Vs[0]), dtype=float)
        r = constrained_dynamics(model, Qs[0], Vs[0], tq, constraints, method="kkt", f_ext=f_ext, baumgarte=baumgarte,
                                 friction=friction, t=s)
        lams.append(r.lambdas)
        return r.a[None], tq[None]

    S = t.size
    m = sum(c.rows for c in constraints)
    out_q, out_v = np.zeros((S, model.nq)), np.zeros((S, model.nv))
    out_a, out_tau = np.zeros((S, model.nv)), np.zeros((S, model.nv))
    lam, drift = np.zeros((S, m)), np.zeros((S, 2))
    step = STEPPERS[method]
    start = clock()
    for k in range(S):
        out_q[k], out_v[k] = q, v
        lams.clear()
        row[0] = k
        if k == S - 1:
            a, tq = f(t[k], q[None], v[None])
            out_a[k], out_tau[k], lam[k] = a[0], tq[0], lams[0]
            break
        Qn, Vn, A, T = step(model, f, t[k], q[None], v[None], h)
        out_a[k], out_tau[k], lam[k] = A[0], T[0], lams[0]   # the first stage: the step's start
        q, v = Qn[0], Vn[0]
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            raise SimulationError(f"simulate with constraints: the state became non-finite at t = {t[k + 1]:.6g} s "
                                  f"(dt = {h:.3g} s)")
        r = constraint_rows(model, q, v, constraints, t[k + 1])
        drift[k + 1] = float(np.max(np.abs(r.phi), initial=0.0)), float(np.max(np.abs(r.J @ v + r.b), initial=0.0))
        if projection:
            q, v, _ = project(model, q, v, constraints, tol, t=t[k + 1])
    wall = clock() - start
    t, out_q, out_v, out_a, out_tau, lam, drift = (x[::every] for x in (t, out_q, out_v, out_a, out_tau, lam, drift))
    kin, pot = kinetic_energy(model, out_q, out_v), potential_energy(model, out_q)
    result = SimulationResult(t, out_q, out_v, out_a, out_tau, Energy(kin, pot, kin + pot), model_name=model.name,
                              q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
                              method=method, dt=h, wall_time=wall,
                              stats={"accepted_steps": S - 1, "route": "reference",
                                     "max_drift_position": float(drift[:, 0].max()),
                                     "max_drift_velocity": float(drift[:, 1].max())})
    result.constraint_forces, result.drift = lam, drift
    return result
