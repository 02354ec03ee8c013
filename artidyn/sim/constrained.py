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
from ..errors import InputError, ShapeError, SimulationError, as_real, check_function, check_number
from ..firstuse import clock
from .integrate import rk4_step, semi_implicit_step
from .result import Energy, SimulationResult

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

    from .._typing import Input, Model
    from ..constraints.models import Constraint
    from .control import PD, ComputedTorque

STEPPERS = {"rk4": rk4_step, "semi-implicit": semi_implicit_step}


def simulate_constrained(model: Model, q0: ArrayLike, v0: ArrayLike | None = None,
                         constraints: Iterable[Constraint] | str = (), tau: Input = 0.0, t_final: float = 1.0,
                         dt: float = 1e-3, method: str = "rk4", f_ext: Input | None = None,
                         baumgarte: tuple[float, float] | None = None, projection: bool = True, tol: float = 1e-12,
                         record_every: int = 1, friction: bool = True, route: str = "auto",
                         energy_tol: float | None = 0.1,
                         controller: PD | ComputedTorque | None = None) -> SimulationResult:
    """Simulate a model with bilateral constraints from ``(q0, v0)`` (assembled first).

    ``tau``: a constant (nv,) or number, an array with one row per step (``ceil(t_final / dt)``
    rows, held over the step), or a function ``tau(t, q, v)`` called at every stage (the readable
    route); ``controller``: a compiled :class:`~artidyn.sim.PD` or
    :class:`~artidyn.sim.ComputedTorque`, its torque added to tau at every stage; ``method``: ``"rk4"`` or ``"semi-implicit"``; ``baumgarte=(alpha, beta)`` and/or
    ``projection`` (default) keep the state on the constraint manifold; ``record_every``: keep
    one sample every k steps; ``route``: ``"auto"``, ``"compiled"`` (an error when it does not
    apply) or ``"reference"``.

    Returns a :class:`SimulationResult` with ``constraint_forces`` (S, rows: the multipliers, in
    constraint order), ``drift`` (S, 2: max |phi| and max |J v| before each projection) and
    ``stats`` (``route`` says which ran; ``energy_excess``: the largest excess of the energy balance,
    as a fraction of its scale). ``energy_tol``: the energy balance of the run (ideal constraints do
    no work, friction only takes energy out: ``E - E0 <= W``, W the work of tau and f_ext by the
    trapezoid rule over the steps): a run whose energy outgrows W by more than ``energy_tol`` of its
    scale stops with :class:`~artidyn.errors.SimulationError` holding the run up to there (checked at
    every step whatever ``record_every``, when the constraints are ideal and fixed in time: points,
    welds, distances, hinges, couplings, rolling on a fixed plane; None: not checked). The compiled
    route then runs in pieces of :data:`CHUNK_STEPS` steps, each checked before the next.
    """
    from ..constraints.compiled import compilable
    from .setup import time_grid

    if method not in STEPPERS:
        raise InputError(f"simulate with constraints: method must be 'rk4' or 'semi-implicit', got {method!r}")
    if route not in ("auto", "compiled", "reference"):
        raise InputError(f"simulate with constraints: route must be 'auto', 'compiled' or 'reference', got {route!r}")
    if not (isinstance(record_every, (int, np.integer)) and not isinstance(record_every, bool) and record_every >= 1):
        raise InputError(f"simulate with constraints: record_every must be a positive integer, got {record_every!r}")
    if isinstance(constraints, str) and constraints == "model":     # as simulate(..., constraints="model")
        from ..constraints import from_model
        constraints = from_model(model)
    constraints = _check(model, constraints)
    baumgarte = check_baumgarte(baumgarte, "simulate with constraints")
    _check_inputs(model, tau, f_ext)
    if energy_tol is not None:
        energy_tol = check_number(energy_tol, "simulate with constraints: energy_tol", positive=True)
    # the balance holds for ideal, scleronomic constraints (those with a compiled form: a moving
    # plane or a user's function may do work)
    balance = energy_tol is not None and not callable(f_ext) and compilable(constraints)
    why = _compiled_unfit(model, constraints, tau, f_ext, time_grid(t_final, dt).size - 1)
    if route == "compiled" and why:
        raise InputError(f"simulate with constraints: the compiled route does not take {why}")
    run = _simulate_compiled if route != "reference" and not why else _simulate_reference
    ctrl = _controller(model, controller, friction, time_grid(t_final, dt))
    return run(model, q0, v0, constraints, tau, t_final, dt, method, f_ext, baumgarte, projection, tol, record_every,
               friction, _Balance(model, f_ext, energy_tol) if balance else None, ctrl)


def _controller(model, controller, friction, grid):
    """The controller's input stage (:class:`.scene.Inputs` with no torque of its own), or None."""
    if controller is None:
        return None
    from .control import Prescribed
    from .scene import Inputs
    if isinstance(controller, Prescribed):
        raise InputError("simulate with constraints: a Prescribed motion runs without constraints= (the smooth "
                         "engine's hybrid dynamics); drive a closed chain with a PD or ComputedTorque controller")
    return Inputs(model, 0.0, None, controller, grid, 1, True, friction)


def _check_inputs(model, tau, f_ext):
    """tau and f_ext: numbers, finite, in the smooth engine's words (a function is checked where
    it is called)."""
    if callable(tau):
        check_function(tau, "simulate with constraints: tau", "tau(t, q, v)")
    else:
        T = as_real(tau, "simulate with constraints: tau", "torques (numbers) or a function tau(t, q, v)")
        if not np.all(np.isfinite(T)):
            raise InputError("simulate with constraints: tau contains NaN or infinite values")
    if callable(f_ext):
        raise InputError("simulate with constraints: f_ext must be constant wrenches, one per body (a function of "
                         "time is not supported with constraints)")
    if f_ext is not None:
        F = as_real(f_ext, "simulate with constraints: f_ext", "wrenches (numbers), one per body")
        if F.shape != (model.nb + 1, 6):
            raise ShapeError(f"simulate with constraints: f_ext has shape {F.shape}; expected ({model.nb + 1}, 6) "
                             f"(one wrench [moment; force] per body, row 0 the world)")
        if not np.all(np.isfinite(F)):
            raise InputError("simulate with constraints: f_ext contains NaN or infinite values")


class _Balance:
    """The energy balance of a run, fed the samples of its steps in order, piece by piece: the
    energy E (kinetic + potential) may not outgrow E0 + W, W the work of tau and f_ext (the
    trapezoid rule on their power), by more than ``energy_tol`` of the scale (the largest kinetic
    energy so far, the absolute work so far, the robot's weight times its size), as the contact
    pipeline's balance."""

    def __init__(self, model, f_ext, energy_tol):
        self.model, self.tol = model, energy_tol
        self.F = None if f_ext is None else np.asarray(f_ext, dtype=float)
        self.floor = self.E0 = self.P = self.t = None
        self.W = self.absW = self.kmax = self.excess = 0.0
        self.why = ""

    def power(self, q, v, tau):
        """tau . v, plus the external wrenches' power (their generalized force . v)."""
        from ..dynamics import rnea
        P = np.einsum("sk,sk->s", tau, v)
        if self.F is not None and np.any(self.F):
            Z = np.zeros_like(v)
            F = np.broadcast_to(self.F, (len(q),) + self.F.shape)
            P = P + np.einsum("sk,sk->s", rnea(self.model, q, Z, Z, friction=False) -
                              rnea(self.model, q, Z, Z, F, friction=False), v)
        return P

    def first_failure(self, t, q, v, tau, kin, pot):
        """The index of the first of these samples (consecutive steps, after those fed before)
        where the balance fails, or None; ``self.why`` then says by how much and when."""
        from .setup import energy_scale as _energy_scale
        if not t.size:
            return None
        E, P = kin + pot, self.power(q, v, tau)
        if self.E0 is None:
            self.E0, self.P, self.t = float(E[0]), float(P[0]), float(t[0])
            self.floor = _energy_scale(self.model, q[:1])
        tt, PP = np.concatenate([[self.t], t]), np.concatenate([[self.P], P])
        h = np.diff(tt)
        W = self.W + np.cumsum(0.5 * h * (PP[1:] + PP[:-1]))
        absW = self.absW + np.cumsum(0.5 * h * (np.abs(PP[1:]) + np.abs(PP[:-1])))
        kmax = np.maximum(self.kmax, np.maximum.accumulate(kin))
        scale = np.maximum(np.maximum(kmax, absW), self.floor)
        excess = (E - self.E0) - W
        ratio = excess / scale
        bad = np.nonzero(~(ratio <= self.tol))[0]          # NaN energies fail too
        if bad.size:
            k = int(bad[0])
            self.excess = max(self.excess, float(np.nanmax(ratio[:k + 1], initial=0.0)))
            self.why = (f"the energy grew beyond the work of the inputs (the energy balance failed: {excess[k]:.3g} J "
                        f"more than the inputs brought, tolerance energy_tol = {self.tol:g} of the scale "
                        f"{scale[k]:.3g} J) at t = {t[k]:.6g} s")
            return k
        self.W, self.absW, self.kmax = float(W[-1]), float(absW[-1]), float(kmax[-1])
        self.P, self.t = float(P[-1]), float(t[-1])
        self.excess = max(self.excess, float(ratio.max()))
        return None

    def error(self, model, part, method, h):
        """The SimulationError of a failed balance, with the run up to there (``part``)."""
        upto = float(part.t[-1]) if part.t.size else 0.0
        return SimulationError(f"simulate '{model.name}' with constraints: {self.why} (method '{method}', dt = "
                               f"{h:.3g} s); try a smaller dt, smaller Baumgarte gains or inputs, or energy_tol=None. "
                               f"The result up to t = {upto:.6g} s is in error.result", result=part)


def _massless(model, Q):
    """aba's ModelError when a joint of ``model`` moves no inertia at one of the states Q, else None."""
    from ..dynamics.aba import singular_inertia
    Q = [x for x in Q if np.all(np.isfinite(x))]
    if not Q:
        return None
    err = singular_inertia(model, np.asarray(Q))
    return err if "move(s) no inertia" in str(err) else None


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
    from .setup import one_state
    q, v = one_state(model, q0, v0, "simulate with constraints")
    q, v, res0 = project(model, q, v, constraints, tol)
    if res0 > 1e-6:
        raise InputError(f"simulate with constraints: q0 cannot be assembled (|phi| = {res0:.3g} after "
                         f"Gauss-Newton); start closer to the constraint manifold (artidyn.assemble)")
    return q, v


CHUNK_STEPS = 4096      # steps per compiled call when the energy balance is checked (its samples kept meanwhile)


def _simulate_compiled(model, q0, v0, constraints, tau, t_final, dt, method, f_ext, baumgarte, projection, tol,
                       every, friction, balance, ctrl=None):
    """The compiled run: one call, or (with the energy balance) calls of CHUNK_STEPS steps that
    sample every step, each checked before the next and thinned to every ``every``-th step; the
    later calls take the state as the earlier one left it (no new assembly), so the pieces make
    the one run."""
    from ..constraints import compiled
    from ..kernels import dispatch
    from ..kernels.constrained_sim import NOT_ASSEMBLED, OK, RK4, SEMI_IMPLICIT, SI_SIZE, SI_STEP, \
        simulate_constrained_run
    from .setup import one_state, time_grid

    q, v = one_state(model, q0, v0, "simulate with constraints")    # assembled, then moved, in place
    q_start = q.copy()
    P = compiled.packed(model, constraints)
    t = time_grid(t_final, dt)
    h, nsteps = t[1] - t[0], t.size - 1
    T = np.asarray(tau, dtype=float)
    # writable C arrays always (copied only when not): one compiled specialization of the run
    tau_v = np.require(np.broadcast_to(T, (1, model.nv)) if T.ndim <= 1 else np.vstack([T, T[-1:]]), float, ("C", "W"))
    F = np.zeros((1, 6)) if f_ext is None else np.require(f_ext, float, ("C", "W"))
    opts = compiled.options(f_ext, friction)
    if ctrl is None:
        from .scene import Inputs
        ctrl = Inputs(model, 0.0, None, None, t[:2], 1, True, friction)
    ctrl_tables = (ctrl.ci, ctrl.gains) + ctrl.ref
    alpha, beta = (0.0, 0.0) if baumgarte is None else (float(baumgarte[0]), float(baumgarte[1]))
    step_every = every if balance is None else 1
    chunk = nsteps if balance is None else max(every, CHUNK_STEPS // every * every)     # a multiple of every
    kept = _Samples(model, method, h)
    si = np.zeros(SI_SIZE, dtype=np.int64)
    start, s0 = clock(), 0
    while True:
        n = min(chunk, nsteps - s0)
        S = n // step_every + 1
        out = [np.zeros((S, k)) for k in (model.nq, model.nv, model.nv, model.nv, P.m, 2, 2)]
        tab = tau_v if tau_v.shape[0] == 1 else tau_v[s0:s0 + n + 1]
        code = simulate_constrained_run(dispatch._table(model), P.K, P.TF, q, v, tab, F, ctrl_tables, opts, alpha,
                                        beta, RK4 if method == "rk4" else SEMI_IMPLICIT, float(h), int(n),
                                        int(step_every), bool(projection), float(tol), 10, s0 == 0, float(t[s0]),
                                        *out, si)
        if code == NOT_ASSEMBLED and s0 == 0 and int(si[SI_STEP]) == 0:
            raise InputError("simulate with constraints: q0 cannot be assembled (|phi| > 1e-6 after 50 Gauss-Newton "
                             "iterations); start closer to the constraint manifold (artidyn.assemble)")
        k = int(si[SI_STEP])
        written = S if code == OK else (0 if k == 0 else (k - 1) // step_every + 1)
        first = 0 if s0 == 0 else 1                 # a later piece's first sample is the last one of the piece before
        steps = s0 + np.arange(first, written) * step_every
        rows = [x[first:written] for x in out]
        bad = None if balance is None else balance.first_failure(t[steps], rows[0], rows[1], rows[3],
                                                                 rows[6][:, 0], rows[6][:, 1])
        kept.add(steps, rows, every, len(steps) if bad is None else bad)
        if bad is not None or code != OK:
            # a joint that moves no inertia (or nearly none) is what failed: named as aba names it
            err = _massless(model, [q_start] + ([rows[0][bad - 1]] if bad else []) + ([q] if bad is None else []))
            if err is not None:
                raise err
            part = kept.result(t, clock() - start, balance)
            raise balance.error(model, part, method, h) if bad is not None else _failure(code, s0 + k, h, part)
        s0 += n
        if s0 >= nsteps:
            break
    result = kept.result(t, clock() - start, balance)
    result.stats["accepted_steps"] = nsteps
    return result


def _failure(code, k, h, part):
    """The SimulationError of a compiled run that stopped at step k (return code ``code``)."""
    from ..kernels.constrained_sim import NONFINITE, NOT_ASSEMBLED, SINGULAR
    what = {NONFINITE: "the state became non-finite", SINGULAR: "the mass matrix is not positive definite",
            NOT_ASSEMBLED: "the projection onto the constraints did not converge (|phi| > 1e-6 after 10 Gauss-Newton "
            "iterations: the constraint Jacobian is nearly singular there, a kinematic singularity of the closed "
            "chain, or the step moved too far)"}.get(
        code, "the dynamics could not be evaluated (invalid state or a constraint without direction)")
    return SimulationError(f"simulate with constraints: {what} at t = {k * h:.6g} s (step {k}, dt = {h:.3g} s); "
                           f"try a smaller dt. The result up to there is in error.result", result=part)


class _Samples:
    """The samples a compiled run keeps (every ``every``-th step), gathered piece by piece."""

    def __init__(self, model, method, h):
        self.model, self.method, self.h = model, method, h
        self.steps, self.q, self.v, self.a, self.tau, self.lam, self.drift, self.e = ([] for _ in range(8))

    def add(self, steps, rows, every, n):
        keep = np.flatnonzero(steps[:n] % every == 0)
        self.steps.append(steps[keep])
        for dest, x in zip((self.q, self.v, self.a, self.tau, self.lam, self.drift, self.e), rows):
            dest.append(x[keep])

    def result(self, t, wall, balance):
        from .setup import coordinate_names
        model = self.model
        q, v, a, tau, lam, drift, e = (np.concatenate(x) for x in (self.q, self.v, self.a, self.tau, self.lam,
                                                                   self.drift, self.e))
        steps = np.concatenate(self.steps).astype(int)
        kin, pot = e[:, 0], e[:, 1]
        stats = {"accepted_steps": max(int(steps[-1]) if steps.size else 0, 0), "route": "compiled",
                 "max_drift_position": float(drift[:, 0].max(initial=0.0)),
                 "max_drift_velocity": float(drift[:, 1].max(initial=0.0))}
        if balance is not None:
            stats["energy_excess"] = balance.excess
        result = SimulationResult(t[steps], q, v, a, tau, Energy(kin, pot, kin + pot), model_name=model.name,
                                  q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
                                  method=self.method, dt=self.h, wall_time=wall, stats=stats)
        result.constraint_forces, result.drift = lam, drift
        return result


def _simulate_reference(model, q0, v0, constraints, tau, t_final, dt, method, f_ext, baumgarte, projection, tol,
                        every, friction, balance, ctrl=None):
    from .setup import coordinate_names, time_grid

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
        if ctrl is not None:
            tq = tq + ctrl.reference(s, Qs[0], Vs[0], None)[0]
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

    def result(n, stats):
        """The samples of the first n steps, every ``every``-th one."""
        keep = slice(0, n, every)
        tt, Q, V, A, TQ, L, D = (x[keep] for x in (t, out_q, out_v, out_a, out_tau, lam, drift))
        kin, pot = kinetic_energy(model, Q, V), potential_energy(model, Q)
        r = SimulationResult(tt, Q, V, A, TQ, Energy(kin, pot, kin + pot), model_name=model.name,
                             q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
                             method=method, dt=h, wall_time=clock() - start,
                             stats={"accepted_steps": max(n - 1, 0), "route": "reference",
                                    "max_drift_position": float(D[:, 0].max(initial=0.0)),
                                    "max_drift_velocity": float(D[:, 1].max(initial=0.0)), **stats})
        r.constraint_forces, r.drift = L, D
        return r
    checked = [0]        # the samples the balance has seen

    def check(n):
        """The balance over samples checked .. n - 1 (every step, before the samples are thinned)."""
        if balance is None or n <= checked[0]:
            return
        a, checked[0] = checked[0], n
        Q, V = out_q[a:n], out_v[a:n]
        bad = balance.first_failure(t[a:n], Q, V, out_tau[a:n], kinetic_energy(model, Q, V), potential_energy(model, Q))
        if bad is not None:
            raise balance.error(model, result(a + bad, {"energy_excess": balance.excess}), method, h)
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
        if k % 64 == 63:
            check(k + 1)
        q, v = Qn[0], Vn[0]
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            check(k + 1)                                     # a divergence seen before is the better reason
            raise SimulationError(f"simulate with constraints: the state became non-finite at t = {t[k + 1]:.6g} s "
                                  f"(dt = {h:.3g} s); try a smaller dt. The result up to t = {t[k]:.6g} s is in "
                                  f"error.result", result=result(k + 1, {}))
        r = constraint_rows(model, q, v, constraints, t[k + 1])
        drift[k + 1] = float(np.max(np.abs(r.phi), initial=0.0)), float(np.max(np.abs(r.J @ v + r.b), initial=0.0))
        if projection:
            q, v, _ = project(model, q, v, constraints, tol, t=t[k + 1])
    check(S)
    stats = {} if balance is None else {"energy_excess": balance.excess}
    return result(S, stats)
