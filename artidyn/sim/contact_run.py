"""Simulation with unilateral contacts, impacts and friction (``simulate(..., contact=...)``).

``method="moreau_jean"``: the time-stepping scheme of :mod:`artidyn.contact.moreau_jean`, one
step per ``dt`` (the readable route: a Python loop over steps; collision detection, Jacobians and
the one-step contact problem at every step).

The result holds, besides q, v (``a`` is the mean acceleration of each step, impulses included),
``contacts`` (per sample: the :class:`~artidyn.contact.moreau_jean.ActiveContacts` of the step
that starts there), ``contact_forces`` (S, nb+1, 3): the total contact force on each body (world
axes; the step's impulses divided by dt) and ``events``: (time, kind, body_a, body_b) with kind
"impact" (a contact closes with a negative normal velocity), "lift-off" (an active pair opens),
"stick" / "slip" (the tangential velocity of a frictional pair becomes zero / nonzero), "limit"
(a joint reaches a position limit: body_a is the joint's name, body_b "lower" or "upper").
"""
from typing import NamedTuple

import numpy as np

from ..contact.moreau_jean import SLIP_TOL, moreau_jean_step
from ..contact.settings import ContactSettings
from ..dynamics import kinetic_energy, potential_energy
from ..errors import InputError, SimulationError
from ..firstuse import clock
from .result import Energy, SimulationResult



class ContactEvent(NamedTuple):
    time: float
    kind: str
    body_a: str
    body_b: str


def _dof_joint(model, dof):
    for i in range(1, model.nb + 1):
        if model.idx_v[i] <= dof < model.idx_v[i] + model.nv_joint[i]:
            return model.joint_names[i]
    return str(dof)


def _pairs(model, C):
    return {(int(a), int(b)) for a, b in zip(C.body_a, C.body_b)}


def _sliding(C):
    out = {}
    for a, b, u, P in zip(C.body_a, C.body_b, C.u_after, C.impulse):
        if P[0] > 0:
            key = (int(a), int(b))
            out[key] = out.get(key, False) or bool(np.hypot(u[1], u[2]) > SLIP_TOL)
    return out


def simulate_contact(model, q0, v0=None, tau=0.0, t_final=1.0, dt=1e-3, contact=None, method="moreau_jean",
                     f_ext=None, friction=True, route="auto"):
    """Simulate with contacts from (q0, v0): see the module docstring. ``tau``: a constant, one row
    per step, or a function ``tau(t, q, v)`` (held over the step). ``route`` (Moreau-Jean):
    "auto" runs the whole loop compiled (:mod:`artidyn.contact.compiled`) when the run fits it
    (ADMM on the exact cone, simultaneous impacts, torques constant or tabled, shapes among
    sphere, capsule, box, half-space) and the readable loop otherwise; "compiled" (an error when it
    does not fit) or "reference" force one. Both give the same results; ``stats["route"]`` says
    which ran."""
    from .simulate import coordinate_names, one_state, time_grid

    if method not in ("moreau_jean", "event_driven"):
        raise InputError(f"simulate with contact: method must be 'moreau_jean' or 'event_driven', got {method!r}")
    if route not in ("auto", "compiled", "reference"):
        raise InputError(f"simulate with contact: route must be 'auto', 'compiled' or 'reference', got {route!r}")
    s = contact if contact is not None else ContactSettings()
    if not isinstance(s, ContactSettings):
        raise InputError(f"simulate: contact must be an artidyn.contact.ContactSettings, got {type(s).__name__}")
    from ..contact import inputs
    steps = time_grid(t_final, dt).size - 1
    tau = inputs.torques(model, tau, "simulate with contact", steps)
    f_ext = inputs.wrenches(model, f_ext, "simulate with contact")
    if method == "event_driven":
        return _event_driven(model, q0, v0, tau, t_final, dt, s, f_ext, friction)
    from ..contact.moreau_jean import limit_rows
    if not getattr(model, "collisions", ()) and not (s.joint_limits and limit_rows(model)):
        raise InputError(f"simulate with contact: model '{model.name}' has no collision shapes and no joint limits "
                         f"(add shapes with ModelBuilder.add_collision, or read a URDF with <collision> elements)")
    q, v = one_state(model, q0, v0, "simulate with contact")
    t = time_grid(t_final, dt)
    h = float(t[1] - t[0])
    S = t.size
    from ..contact import compiled
    why = compiled.unfit(model, s, tau)
    if route == "compiled" and why:
        raise InputError(f"simulate with contact: the compiled route does not take {why}")
    if route != "reference" and not why:
        return _compiled(model, q, v, tau, t, h, s, f_ext, friction)
    table = None if callable(tau) else np.asarray(tau, dtype=float)
    out_q, out_v, out_a, out_tau = (np.zeros((S, n)) for n in (model.nq, model.nv, model.nv, model.nv))
    forces = np.zeros((S, model.nb + 1, 3))
    contacts, events = [], []
    prev_pairs, prev_slide, prev_limits = set(), {}, set()
    worst = 0.0
    step = None
    start = clock()
    for k in range(S):
        if callable(tau):
            tk = np.asarray(tau(t[k], q, v), dtype=float)
        elif table.ndim == 2:
            tk = table[min(k, table.shape[0] - 1)]
        else:
            tk = np.broadcast_to(table, (model.nv,))
        out_q[k], out_v[k], out_tau[k] = q, v, tk
        step = moreau_jean_step(model, q, v, tk, h, s, f_ext=f_ext, friction=friction, warm=step)
        if not (np.all(np.isfinite(step.q)) and np.all(np.isfinite(step.v))):
            raise SimulationError(f"simulate with contact: the state became non-finite at t = {t[k]:.6g} s (step {k}, "
                                  f"dt = {h:.3g} s); try a smaller dt")
        C = step.contacts
        contacts.append(C)
        worst = max(worst, step.residual)
        world_force = np.einsum("kij,kj->ki", C.frames, C.impulse) / h
        for a, b, f in zip(C.body_a, C.body_b, world_force):
            forces[k, int(a)] += f
            forces[k, int(b)] -= f
        pairs = _pairs(model, C)
        for a, b in sorted(pairs - prev_pairs):
            closing = [u[0] < 0 for aa, bb, u in zip(C.body_a, C.body_b, C.u_before) if (aa, bb) == (a, b)]
            if any(closing):
                events.append(ContactEvent(float(t[k]), "impact", model.body_names[a], model.body_names[b]))
        for a, b in sorted(prev_pairs - pairs):
            events.append(ContactEvent(float(t[k]), "lift-off", model.body_names[a], model.body_names[b]))
        if s.friction > 0:
            slide = _sliding(C)
            for key, sl in slide.items():
                if key in prev_slide and prev_slide[key] != sl:
                    events.append(ContactEvent(float(t[k]), "slip" if sl else "stick", model.body_names[key[0]],
                                               model.body_names[key[1]]))
            prev_slide = slide
        prev_pairs = pairs
        lim = step.limits
        now_limits = set() if lim is None else {(int(d), float(sd)) for d, sd in zip(lim.dof, lim.side)}
        for d, sd in sorted(now_limits - prev_limits):
            events.append(ContactEvent(float(t[k]), "limit", _dof_joint(model, d), "lower" if sd > 0 else "upper"))
        prev_limits = now_limits
        out_a[k] = (step.v - v) / h
        if k < S - 1:
            q, v = step.q, step.v
    wall = clock() - start
    kin, pot = kinetic_energy(model, out_q, out_v), potential_energy(model, out_q)
    result = SimulationResult(t, out_q, out_v, out_a, out_tau, Energy(kin, pot, kin + pot), model_name=model.name,
                              q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
                              method=method, dt=h, wall_time=wall,
                              stats={"accepted_steps": S - 1, "route": "reference", "max_solver_residual": worst})
    result.contacts, result.contact_forces, result.events = contacts, forces, events
    result.contact_body_names = list(model.body_names)
    return result


def _compiled(model, q, v, tau, t, h, s, f_ext, friction):
    """The Moreau-Jean run on the compiled route (:func:`artidyn.contact.compiled.run`)."""
    from ..contact import compiled
    from ..kernels.contact_sim import IMPACT, LIFT_OFF, LIMIT, SLIP, STICK
    from .simulate import coordinate_names

    S = t.size
    T = np.asarray(tau, dtype=float)
    if T.ndim > 2 or (T.ndim >= 1 and T.shape[-1] != model.nv and T.size != 1):
        raise InputError(f"simulate with contact: tau must be a number, ({model.nv},) or (steps, {model.nv}), "
                         f"got shape {T.shape}")
    # a writable C array always (copied only when not): one compiled specialization of the run
    tau_v = np.require(np.broadcast_to(T, (1, model.nv)) if T.ndim <= 1 else
                       np.vstack([T, np.repeat(T[-1:], max(0, S - T.shape[0]), axis=0)])[:S], float, ("C", "W"))
    start = clock()
    out = compiled.run(model, q, v, tau_v, f_ext, friction, h, S - 1, s)
    wall = clock() - start
    names = model.body_names
    events = []
    for k, kind, a, b in out["events"]:
        if kind == LIMIT:
            events.append(ContactEvent(float(t[k]), "limit", _dof_joint(model, a), "lower" if b > 0 else "upper"))
        else:
            label = {IMPACT: "impact", LIFT_OFF: "lift-off", SLIP: "slip", STICK: "stick"}[kind]
            events.append(ContactEvent(float(t[k]), label, names[a], names[b]))
    out_q, out_v = out["q"], out["v"]
    kin, pot = out["energy"][:, 0].copy(), out["energy"][:, 1].copy()
    result = SimulationResult(t, out_q, out_v, out["a"], out["tau"], Energy(kin, pot, kin + pot),
                              model_name=model.name, q_names=coordinate_names(model, "q"),
                              v_names=coordinate_names(model, "v"), method="moreau_jean", dt=h, wall_time=wall,
                              stats={"accepted_steps": S - 1, "route": "compiled",
                                     "max_solver_residual": float(out["residual"].max(initial=0.0)),
                                     "solver_iterations": int(out["iterations"].sum()),
                                     "reference_steps": out["fallback"]})
    result.contacts, result.contact_forces, result.events = out["contacts"], out["forces"], events
    result.contact_body_names = list(model.body_names)
    return result


def _event_driven(model, q0, v0, tau, t_final, dt, s, f_ext, friction):
    """The run of :mod:`artidyn.contact.event_driven`, sampled on the time grid."""
    from ..contact.event_driven import EventDriven, check_supported
    from .simulate import coordinate_names, one_state, time_grid

    if not getattr(model, "collisions", ()):
        raise InputError(f"simulate with contact: model '{model.name}' has no collision shapes (add shapes with "
                         f"ModelBuilder.add_collision, or read a URDF with <collision> elements)")
    check_supported(model, s)
    q, v = one_state(model, q0, v0, "simulate with contact")
    t = time_grid(t_final, dt)
    S = t.size
    if callable(tau):
        tau_of = tau
    else:
        table = np.asarray(tau, dtype=float)
        if table.ndim == 2:
            tau_of = (lambda tt, qq, vv: table[min(int(tt / (t[1] - t[0]) + 1e-9), table.shape[0] - 1)])
        else:
            c = np.broadcast_to(table, (model.nv,))
            tau_of = (lambda tt, qq, vv: c)
    ed = EventDriven(model, s, tau_of, f_ext, friction)
    out_q, out_v, out_a, out_tau = (np.zeros((S, n)) for n in (model.nq, model.nv, model.nv, model.nv))
    forces = np.zeros((S, model.nb + 1, 3))
    contacts, events = [], []
    prev_pairs, prev_modes = set(), {}
    worst = 0.0
    start = clock()
    for k in range(S):
        res = ed.dynamics(t[k], q, v, ed.phase(q, v))
        out_q[k], out_v[k], out_a[k], out_tau[k] = q, v, res.a, tau_of(t[k], q, v)
        contacts.append(res)
        worst = max(worst, float(res.residual))
        world = np.einsum("kij,kj->ki", res.frames, res.forces)
        pairs = set()
        modes = {}
        for a, b, f, mode in zip(res.body_a, res.body_b, world, res.modes):
            forces[k, int(a)] += f
            forces[k, int(b)] -= f
            pairs.add((int(a), int(b)))
            modes[(int(a), int(b))] = mode
        for a, b in sorted(prev_pairs - pairs):
            events.append(ContactEvent(float(t[k]), "lift-off", model.body_names[a], model.body_names[b]))
        for key, mode in modes.items():
            if prev_modes.get(key) == "stick" and mode == "slide":
                events.append(ContactEvent(float(t[k]), "slip", model.body_names[key[0]], model.body_names[key[1]]))
        prev_pairs, prev_modes = pairs, modes
        if k == S - 1:
            break
        n_before = len(ed.events)
        q, v = ed.advance(float(t[k]), q, v, float(t[k + 1]))
        for te, kind, a, b in ed.events[n_before:]:
            if kind == "limit":           # a: the dof, b: +1 lower, -1 upper
                events.append(ContactEvent(float(te), kind, _dof_joint(model, a), "lower" if b > 0 else "upper"))
            else:
                events.append(ContactEvent(float(te), kind, model.body_names[a], model.body_names[b]))
    wall = clock() - start
    events.sort(key=lambda e: e.time)
    kin, pot = kinetic_energy(model, out_q, out_v), potential_energy(model, out_q)
    result = SimulationResult(t, out_q, out_v, out_a, out_tau, Energy(kin, pot, kin + pot), model_name=model.name,
                              q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
                              method="event_driven", dt=float(t[1] - t[0]), wall_time=wall,
                              stats={"accepted_steps": S - 1, "route": "reference", "max_solver_residual": worst,
                                     "events": len(ed.events)})
    result.contacts, result.contact_forces, result.events = contacts, forces, events
    result.contact_body_names = list(model.body_names)
    return result
