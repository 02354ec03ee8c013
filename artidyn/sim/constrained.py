"""Simulation under bilateral constraints (closed chains, welded feet, gears): the reference route.

Each step integrates ``a = constrained_dynamics(q, v, tau)`` (:mod:`artidyn.constraints`) with
the readable steppers of :mod:`.integrate`, then projects the state back onto the constraint
manifold, mass-weighted (the closest state in kinetic-energy metric; Bayo & Ledesma's
projections, as in Featherstone, "Rigid Body Dynamics Algorithms", sec. 8.3)::

    q <- q (+) (-M^-1 J^T (J M^-1 J^T)^+ phi)      (Gauss-Newton, until |phi| <= tol)
    v <- v - M^-1 J^T (J M^-1 J^T)^+ J v

Baumgarte stabilisation (``J a = -Jdot v - 2 alpha J v - beta^2 phi``) is available instead of,
or with, the projection. The run records the constraint forces and the drift (the largest
``|phi|`` and ``|J v|`` met before each projection). This route calls Python at every stage; the
compiled engine (:mod:`artidyn.kernels.stepping`) does not take constraints yet.
"""
import time

import numpy as np

from ..configuration import as_batch, as_q, integrate
from ..constraints import constrained_dynamics, constraint_terms
from ..constraints.solve import _check
from ..dynamics import crba, kinetic_energy, potential_energy
from ..errors import InputError, SimulationError
from .integrate import rk4_step, semi_implicit_step
from .result import Energy, SimulationResult

STEPPERS = {"rk4": rk4_step, "semi-implicit": semi_implicit_step}


def project(model, q, v, constraints, tol=1e-12, max_iter=10):
    """``(q, v, residual)``: the state moved onto ``phi = 0`` and ``J v = 0``, mass-weighted."""
    res = np.inf
    for _ in range(max_iter):
        phi, J, _ = constraint_terms(model, q, v, constraints)
        res = float(np.max(np.abs(phi), initial=0.0))
        if res <= tol:
            break
        Minv_Jt = np.linalg.solve(crba(model, q), J.T)
        q = integrate(model, q, -Minv_Jt @ np.linalg.lstsq(J @ Minv_Jt, phi, rcond=1e-12)[0])
    _, J, _ = constraint_terms(model, q, v, constraints)
    if J.shape[0]:
        Minv_Jt = np.linalg.solve(crba(model, q), J.T)
        v = v - Minv_Jt @ np.linalg.lstsq(J @ Minv_Jt, J @ v, rcond=1e-12)[0]
    return q, v, res


def simulate_constrained(model, q0, v0=None, constraints=(), tau=0.0, t_final=1.0, dt=1e-3, method="rk4",
                         f_ext=None, baumgarte=None, projection=True, tol=1e-12):
    """Simulate a model with bilateral constraints from ``(q0, v0)`` (assembled first).

    ``tau``: a constant (nv,) or number, or a function ``tau(t, q, v)`` called at every stage;
    ``method``: ``"rk4"`` or ``"semi-implicit"``; ``baumgarte=(alpha, beta)`` and/or
    ``projection`` (default) keep the state on the constraint manifold.

    Returns a :class:`SimulationResult` with ``constraint_forces`` (S, rows: the multipliers, in
    constraint order), ``drift`` (S, 2: max |phi| and max |J v| before each projection) and
    ``stats``.
    """
    from .simulate import coordinate_names, time_grid

    if method not in STEPPERS:
        raise InputError(f"simulate with constraints: method must be 'rk4' or 'semi-implicit', got {method!r}")
    constraints = _check(model, constraints)
    Q, single = as_q(model, q0, "q0")
    V, single_v = as_batch(model, np.zeros(model.nv) if v0 is None else v0, "v0", "nv")
    if not (single and single_v):
        raise InputError("simulate with constraints takes one state (q0 (nq,), v0 (nv,))")
    q, v, res0 = project(model, Q[0], V[0], constraints, tol)
    if res0 > 1e-6:
        raise InputError(f"simulate with constraints: q0 cannot be assembled (|phi| = {res0:.3g} after "
                         f"Gauss-Newton); start closer to the constraint manifold (artidyn.assemble)")
    t = time_grid(t_final, dt)
    h = t[1] - t[0]
    tau_of = tau if callable(tau) else (lambda s, qq, vv, c=np.broadcast_to(np.asarray(tau, float), (model.nv,)): c)
    lams = []   # the multipliers of each stage of the current step

    def f(s, Qs, Vs):
        tq = np.asarray(tau_of(s, Qs[0], Vs[0]), dtype=float)
        r = constrained_dynamics(model, Qs[0], Vs[0], tq, constraints, f_ext=f_ext, baumgarte=baumgarte)
        lams.append(r.lambdas)
        return r.a[None], tq[None]

    S = t.size
    m = sum(c.rows for c in constraints)
    out_q, out_v = np.zeros((S, model.nq)), np.zeros((S, model.nv))
    out_a, out_tau = np.zeros((S, model.nv)), np.zeros((S, model.nv))
    lam, drift = np.zeros((S, m)), np.zeros((S, 2))
    step = STEPPERS[method]
    start = time.perf_counter()
    for k in range(S):
        out_q[k], out_v[k] = q, v
        lams.clear()
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
        phi, J, _ = constraint_terms(model, q, v, constraints)
        drift[k + 1] = float(np.max(np.abs(phi), initial=0.0)), float(np.max(np.abs(J @ v), initial=0.0))
        if projection:
            q, v, _ = project(model, q, v, constraints, tol)
    kin, pot = kinetic_energy(model, out_q, out_v), potential_energy(model, out_q)
    result = SimulationResult(t, out_q, out_v, out_a, out_tau, Energy(kin, pot, kin + pot), model_name=model.name,
                              q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
                              method=method, dt=h, wall_time=time.perf_counter() - start,
                              stats={"accepted_steps": S - 1, "max_drift_position": float(drift[:, 0].max()),
                                     "max_drift_velocity": float(drift[:, 1].max())})
    result.constraint_forces, result.drift = lam, drift
    return result
