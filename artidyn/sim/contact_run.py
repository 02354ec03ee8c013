"""Simulation with unilateral contacts, impacts and friction (``simulate(..., contact=...)``).

``method="moreau_jean"``: the time-stepping scheme of :mod:`artidyn.contact.moreau_jean`, one
step per ``dt`` (the readable route: a Python loop over steps; collision detection, Jacobians and
the one-step contact problem at every step). ``method="event_driven"``: smooth phases and
located events (:mod:`artidyn.contact.event_driven`), compiled end to end when the run fits
(:mod:`artidyn.contact.event_compiled`).

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

from ..contact.moreau_jean import SLIP_TOL
from ..contact.settings import ContactSettings
from ..dynamics import kinetic_energy, potential_energy
from ..errors import InputError, SimulationError
from ..firstuse import clock
from .inputs import TimeTable
from .result import Energy, SimulationResult



class ContactEvent(NamedTuple):
    time: float
    kind: str
    body_a: str
    body_b: str


def _check_penetration(model, Q, s):
    """Warn (or raise: ``s.penetration``) when a starting state has shapes overlapping deeper than
    the margin plus :data:`~artidyn.contact.settings.PENETRATION_TOL`; the state is kept as it is
    (see :class:`ContactSettings`). With ``penetration="exclude_self"`` the overlapping pairs of two
    bodies of the model (not the world) are left out of the run (their body pairs added to
    ``collision_exclusions``, with a warning naming them), the others warned of: returns the model
    the run takes."""
    import warnings

    from ..contact.moreau_jean import initial_penetrations
    from ..contact.settings import PENETRATION_TOL
    from ..errors import PenetrationWarning
    C, names = model.collisions, model.body_names

    def described(deep):
        pairs = "; ".join(f"'{C[a].name}' (body '{names[C[a].body]}') and '{C[b].name}' (body '{names[C[b].body]}') "
                          f"overlap by {d * 1e3:.4g} mm" for a, b, d in deep[:5])
        return pairs + (f" (and {len(deep) - 5} more pairs)" if len(deep) > 5 else "")

    excluded = set()
    for r, q in enumerate(Q):
        deep = initial_penetrations(model, q, s)
        if s.penetration == "exclude_self":
            own = [x for x in deep if C[x[0]].body != 0 and C[x[1]].body != 0]
            excluded |= {tuple(sorted((C[a].body, C[b].body))) for a, b, _ in own}
            deep = [x for x in deep if x not in own]
        if not deep:
            continue
        run = f" (run {r})" if len(Q) > 1 else ""
        msg = (f"simulate '{model.name}' with contact: the initial state{run} starts in penetration, deeper than "
               f"the margin ({s.margin:.3g} m) + {PENETRATION_TOL:.3g} m: {described(deep)}. The run keeps the "
               f"overlap (Moreau-Jean acts on velocities: the shapes are neither pushed apart nor let sink further); "
               f"move them apart to start in contact, ContactSettings(penetration='raise') to stop here, or "
               f"penetration='exclude_self' to leave pairs of the model's own bodies out of the run")
        if s.penetration == "raise":
            raise InputError(msg)
        warnings.warn(msg, PenetrationWarning, stacklevel=4)
        break
    if not excluded:
        return model
    pairs = ", ".join(f"'{names[i]}'-'{names[j]}'" for i, j in sorted(excluded))
    warnings.warn(f"simulate '{model.name}' with contact: {len(excluded)} pair(s) of its own bodies overlap at the "
                  f"start and are left out of this run (penetration='exclude_self'): {pairs}", PenetrationWarning,
                  stacklevel=4)
    return model.replace(collision_exclusions=tuple(sorted(set(model.collision_exclusions) | excluded)))


def _dof_joint(model, dof):
    for i in range(1, model.nb + 1):
        if model.idx_v[i] <= dof < model.idx_v[i] + model.nv_joint[i]:
            return model.joint_names[i]
    return str(dof)


def _dof_joints(model):
    """The joint name of each dof (a run's limit events name theirs from it)."""
    out = [str(k) for k in range(model.nv)]
    for i in range(1, model.nb + 1):
        for k in range(model.idx_v[i], model.idx_v[i] + model.nv_joint[i]):
            out[k] = model.joint_names[i]
    return out


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
                     f_ext=None, friction=True, route="auto", controller=None, constraints=None, projection=True,
                     energy_tol=0.1, rollout=False, forces=None, servo=None):
    """Simulate with contacts from (q0, v0): see the module docstring. ``tau``: a constant, one row
    per step, a table over time or :class:`~artidyn.sim.TimeTable`, or a function
    ``tau(t, q, v)`` (held over the step; ``tau(t, q, v, contact_forces)`` also gets the contact
    forces of the previous step); ``controller``: a compiled PD or computed-torque law;
    ``constraints``: bilateral constraints (closed loops, welds, couplings) solved in the same
    problem as the contacts. ``route`` (Moreau-Jean): "auto" runs the whole loop compiled
    (:mod:`artidyn.kernels.scene_run`) when the run fits it (ADMM on the exact cone, simultaneous
    impacts, shapes among sphere, capsule, box, half-space, constraints with a compiled form) and
    the readable loop otherwise; "compiled" (an error when it does not fit) or "reference" force
    one. Both give the same results; ``stats["route"]`` says which ran. A batch of states (or
    ``rollout=True``) runs N scenes in parallel on the compiled route. ``servo``: a
    :class:`artidyn.servo.ModelServo` whose relations join each step's problem (their forces along
    its directions; its first-kind relations beside ``constraints``), on the reference route."""
    from ..contact import inputs
    from .setup import states as _states, time_grid

    if method not in ("moreau_jean", "event_driven"):
        raise InputError(f"simulate with contact: method must be 'moreau_jean' or 'event_driven', got {method!r}")
    if route not in ("auto", "compiled", "reference"):
        raise InputError(f"simulate with contact: route must be 'auto', 'compiled' or 'reference', got {route!r}")
    s = contact if contact is not None else ContactSettings()
    if not isinstance(s, ContactSettings):
        raise InputError(f"simulate: contact must be an artidyn.contact.ContactSettings, got {type(s).__name__}")
    grid = time_grid(t_final, dt)
    steps = grid.size - 1
    if not isinstance(tau, TimeTable):
        tau = inputs.torques(model, tau, "simulate with contact", steps)
    if f_ext is not None and not callable(f_ext) and not isinstance(f_ext, TimeTable):
        f_ext = inputs.wrenches(model, f_ext, "simulate with contact")
    if method == "event_driven":
        if constraints or callable(f_ext) or isinstance(f_ext, TimeTable) or servo is not None:
            raise InputError("simulate with contact, method 'event_driven': constraints=, servo= and f_ext that "
                             "changes over time run on method 'moreau_jean' (the default); the event-driven run "
                             "takes a constant f_ext")
        if controller is not None or isinstance(tau, TimeTable):
            tau = _law(model, tau, controller, grid, friction)
        if forces:
            raise InputError("simulate with contact, method 'event_driven': forces= (drag, springs) run on method "
                             "'moreau_jean' (the default)")
        return _event_driven(model, q0, v0, tau, t_final, dt, s, f_ext, friction, route)
    from ..contact.moreau_jean import limit_rows
    if not getattr(model, "collisions", ()) and not (s.joint_limits and limit_rows(model)):
        raise InputError(f"simulate with contact: model '{model.name}' has no collision shapes and no joint limits "
                         f"(add shapes with ModelBuilder.add_collision, or read a URDF with <collision> elements)")
    Q, V, N, single = _states(model, q0, v0)
    rollout = rollout or N > 1
    h = float(grid[1] - grid[0])
    if isinstance(tau, np.ndarray) and tau.ndim == 2 and tau.shape[0] < steps + 1:   # the last row held
        tau = np.vstack([tau, np.repeat(tau[-1:], steps + 1 - tau.shape[0], axis=0)])
    constraints = _constraints(model, constraints)
    servo_rows = None
    if servo is not None:
        if rollout or route == "compiled":
            raise InputError("simulate with contact and servo=: servo-constraints run on the reference route, one "
                             "state at a time (not route='compiled', not a batch of states or rollout=True)")
        constraints = constraints + list(servo.rolling)
        servo_rows = (list(servo.servo), np.asarray(servo.D, dtype=float))
    if constraints or servo_rows:
        Q, V = _assembled(model, Q, V, constraints + ([] if servo_rows is None else servo_rows[0]))
    if servo_rows:
        _check_servo_reach(model, Q[0], V[0], constraints, servo_rows)
    model = _check_penetration(model, Q, s)
    from ..contact import compiled
    from ..kernels.dispatch import kernels_enabled
    from .pipeline import Packed
    from .scene import Inputs
    from .setup import energy_scale as _energy_scale
    why = compiled.unfit(model, s)
    if not why and constraints:
        from ..constraints.compiled import compilable
        why = "" if compilable(constraints) else "constraints without a compiled form (Holonomic, moving planes)"
        if not why and s.solver == "pgs":
            why = "solver 'pgs' beside constraints= (its compiled Gauss-Seidel takes contacts and limits; use 'admm')"
    if not why and servo_rows:
        why = "servo-constraints"
    if not why and not kernels_enabled():
        why = "switched-off kernels"
    if (route == "compiled" or rollout) and why:
        raise InputError(f"simulate with contact: the compiled route{' of a rollout' if rollout else ''} does not "
                         f"take {why}")
    escale = _energy_scale(model, Q)
    packed = None if route == "reference" or why else Packed(model, s, constraints, projection, energy_tol, escale)
    scene = _Scene(Inputs(model, tau, f_ext, controller, grid, N, single and not rollout, friction, forces),
                   packed or _ReferencePacked(projection, energy_tol, escale))
    if rollout:
        return _rollout(model, scene, Q, V, grid, h, s)
    q, v = Q[0], V[0]
    if route != "reference" and not why:
        return _compiled(model, scene, q, v, grid, h, s, constraints)
    return _reference(model, scene, q, v, grid, h, s, constraints, servo_rows)


class _Scene:
    """The inputs of a run and its packed arrays (the kernels', or the readable route's settings)."""

    def __init__(self, inputs, packed):
        self.inputs, self.packed = inputs, packed


class _ReferencePacked:
    """The settings the readable route reads from a scene (no kernel arrays)."""

    mb = 0

    def __init__(self, projection, energy_tol, escale):
        self.PR = np.array([1e-12, 10.0 if projection else 0.0, np.inf if energy_tol is None else float(energy_tol),
                            escale])


def _constraints(model, constraints):
    if constraints is None:
        return []
    if isinstance(constraints, str):
        if constraints != "model":
            raise InputError(f"simulate: constraints must be a list of constraints or 'model' (those the model file "
                             f"declares), got {constraints!r}")
        from ..constraints import from_model
        return list(from_model(model))
    from ..constraints.solve import _check
    return list(_check(model, constraints))


def _assembled(model, Q, V, constraints):
    """The initial states moved onto the constraints (as the constrained route does)."""
    from ..constraints.projection import project
    Q, V = Q.copy(), V.copy()
    for r in range(Q.shape[0]):
        Q[r], V[r], res = project(model, Q[r], V[r], constraints, 1e-12, max_iter=50)
        if res > 1e-6:
            raise InputError(f"simulate with constraints: q0 cannot be assembled (|phi| = {res:.3g} after "
                             f"Gauss-Newton); start closer to the constraint manifold (artidyn.assemble)")
    return Q, V


def _result(model, t, q, v, a, tau, energy, h, wall, stats, route):
    from .setup import coordinate_names
    kin, pot = energy[:, 0].copy(), energy[:, 1].copy()
    result = SimulationResult(t, q, v, a, tau, Energy(kin, pot, kin + pot), model_name=model.name,
                              q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
                              method="moreau_jean", dt=h, wall_time=wall, stats=dict(stats, route=route))
    result.input_work = energy[:, 2].copy()
    return result


def _check_servo_reach(model, q, v, constraints, servo_rows):
    """Refuse servo-constraints whose forces do not reach their relations within a step: the free
    rows' matrix ``[J_b; E] M^-1 [J_b; D]^T`` singular at the start (a relation of higher index, its
    forces acting through other coordinates only: the symbolic solver of ServoProblem takes it)."""
    from ..constraints import constraint_rows
    from ..dynamics import crba
    Jb = constraint_rows(model, q, v, constraints, 0.0).J if constraints else np.zeros((0, model.nv))
    E = constraint_rows(model, q, v, servo_rows[0], 0.0).J
    D = servo_rows[1]
    if D.shape[0] != E.shape[0]:
        raise InputError(f"simulate with contact and servo=: {E.shape[0]} servo relation rows and {D.shape[0]} "
                         f"directions; the step takes as many directions as relation rows")
    K = np.vstack([Jb, E]) @ np.linalg.solve(crba(model, q), np.vstack([Jb, D]).T)
    sv = np.linalg.svd(K, compute_uv=False)
    if sv.size and not sv[-1] > 1e-9 * max(sv[0], 1e-300):
        raise InputError(f"simulate with contact and servo=: the servo forces do not reach their relations within a "
                         f"step ([J_b; E] M^-1 [J_b; D]^T is singular at the start, smallest singular value "
                         f"{sv[-1]:.3g}): a servo-constraint of higher index; write its relations in SymPy for "
                         f"ServoProblem's symbolic solver (without contact=)")


def _reference(model, scene, q, v, t, h, s, constraints, servo_rows=None):
    """The readable pipeline (:func:`artidyn.sim.pipeline.run_reference`) and its result."""
    from .pipeline import run_reference

    S = t.size
    start = clock()
    steps, energy, drift, servo_power = run_reference(model, scene, q, v, h, S - 1, s, constraints, servo_rows)
    wall = clock() - start
    out_q = np.array([x[0] for x in steps])
    out_v = np.array([x[1] for x in steps])
    out_tau = np.array([x[2] for x in steps])
    out_a = np.array([(st.v - vk) / h for _, vk, _, st in steps])
    forces = np.zeros((S, model.nb + 1, 3))
    contacts, events = [], []
    prev_pairs, prev_slide, prev_limits = set(), {}, set()
    from ..contact.moreau_jean import any_friction
    with_friction = any_friction(model, s)
    worst = 0.0
    for k, (_, _, _, step) in enumerate(steps):
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
        if with_friction:
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
    result = _result(model, t, out_q, out_v, out_a, out_tau, energy, h, wall,
                     {"accepted_steps": S - 1, "max_solver_residual": worst}, "reference")
    result.contacts, result.contact_forces, result.events = contacts, forces, events
    result.contact_body_names = list(model.body_names)
    if constraints:
        result.constraint_forces = np.array([st.bilateral / h for *_, st in steps])
    if constraints or servo_rows:
        result.drift = drift
    if servo_rows:                # the servo forces mu (S, j), their power D^T mu . v and its work
        result.servo_forces = np.array([st.servo / h for *_, st in steps])
        result.servo_power = servo_power
        result.servo_work = np.concatenate([[0.0], np.cumsum(h * result.servo_power)[:-1]])
        result.stats["max_drift_position"] = float(np.max(drift[:, 0], initial=0.0))
    return result


def _compiled(model, scene, q, v, t, h, s, constraints):
    """The run on the compiled route (:func:`artidyn.sim.pipeline.run_compiled`) and its result."""
    from ..kernels.contact_sim import IMPACT, LIFT_OFF, LIMIT, SLIP, STICK
    from .pipeline import run_compiled

    start = clock()
    try:
        out = run_compiled(model, scene, q, v, h, t.size - 1, s, constraints)
    except SimulationError as e:
        part = e.result
        if isinstance(part, dict):
            n = max(len(part["q"]), 1)
            e.result = _result(model, t[:n], part["q"], part["v"], part["a"], part["tau"], part["energy"], h,
                               clock() - start, {"accepted_steps": n - 1}, "compiled")
            e.result.contact_forces = part["forces"]
        raise
    wall = clock() - start
    names, joints = model.body_names, _dof_joints(model)
    events = []
    for k, kind, a, b in out["events"]:
        if kind == LIMIT:
            events.append(ContactEvent(float(t[k]), "limit", joints[a], "lower" if b > 0 else "upper"))
        else:
            label = {IMPACT: "impact", LIFT_OFF: "lift-off", SLIP: "slip", STICK: "stick"}[kind]
            events.append(ContactEvent(float(t[k]), label, names[a], names[b]))
    result = _result(model, t, out["q"], out["v"], out["a"], out["tau"], out["energy"], h, wall,
                     {"accepted_steps": t.size - 1, "max_solver_residual": float(out["residual"].max(initial=0.0)),
                      "solver_iterations": int(out["iterations"].sum()), "reference_steps": out["fallback"],
                      "chord_steps": out["chord_steps"]},
                     "compiled")
    result.contacts, result.contact_forces, result.events = out["contacts"], out["forces"], events
    result.contact_body_names = list(model.body_names)
    if constraints:
        result.constraint_forces, result.drift = out["lam"], out["drift"]
    return result


def _rollout(model, scene, Q, V, t, h, s):
    """N scenes in parallel (:func:`artidyn.sim.pipeline.run_rollout`): arrays with a leading run
    axis and ``result.status`` per run; failed runs raise SimulationError with the whole result."""
    from .pipeline import _WHAT, run_rollout

    start = clock()
    out = run_rollout(model, scene, Q, V, h, t.size - 1)
    wall = clock() - start
    status = out["status"]
    for r in np.nonzero(status)[0]:                # a failed run: NaN after its last sample
        k = int(out["failed_step"][r])
        for key in ("q", "v", "a", "tau", "energy", "forces"):
            out[key][r, k:] = np.nan
    e = out["energy"]
    result = SimulationResult(t, out["q"], out["v"], out["a"], out["tau"],
                              Energy(e[..., 0], e[..., 1], e[..., 0] + e[..., 1]), model_name=model.name,
                              q_names=_names(model, "q"), v_names=_names(model, "v"), method="moreau_jean", dt=h,
                              wall_time=wall, stats={"route": "compiled", "status": status.copy(),
                                                     "max_solver_residual": np.nanmax(out["residual"], axis=1)})
    result.contact_forces, result.contact_body_names = out["forces"], list(model.body_names)
    result.input_work = e[..., 2]
    if scene.packed.mb:
        result.constraint_forces, result.drift = out["lam"], out["drift"]
    failed = np.nonzero(status)[0]
    if failed.size:
        r = int(failed[0])
        what = _WHAT.get(int(status[r]), "the dynamics could not be evaluated")
        raise SimulationError(f"rollout '{model.name}' with contact: {failed.size} of {Q.shape[0]} runs failed "
                              f"({', '.join(map(str, failed[:8]))}{'...' if failed.size > 8 else ''}); run {r}: {what} "
                              f"at t = {out['failed_step'][r] * h:.6g} s; see error.result.stats['status']",
                              result=result)
    return result


def _names(model, kind):
    from .setup import coordinate_names
    return coordinate_names(model, kind)


def _law(model, tau, controller, grid, friction):
    """The torque of a run's inputs and controller as one function ``tau(t, q, v)`` (the input
    stage's readable values, :meth:`artidyn.sim.scene.Inputs.reference`): the event-driven run
    calls it at each of its stages, on the readable route. A PD's damping is explicit there."""
    from .scene import Inputs
    inp = Inputs(model, tau, None, controller, grid, 1, True, friction)
    nothing = np.zeros((model.nb + 1, 3))

    def law(t, q, v):
        return inp.reference(t, q, v, nothing)[0]
    return law


def _event_driven(model, q0, v0, tau, t_final, dt, s, f_ext, friction, route="auto"):
    """The run of :mod:`artidyn.contact.event_driven`, sampled on the time grid: compiled
    (:mod:`artidyn.contact.event_compiled`) when the run fits it (``route`` "auto"; "compiled": an
    error when it does not), else (or with "reference") the readable loop."""
    from ..contact.event_compiled import run_compiled, unfit
    from ..contact.event_driven import EventDriven, check_supported
    from .setup import coordinate_names, one_state, time_grid

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
    start = clock()
    why = unfit(model, s, tau)
    if route == "compiled" and why:
        raise InputError(f"simulate with contact, method 'event_driven': the compiled route does not take {why}")
    out = None if why or route == "reference" else run_compiled(model, q, v, t, s, tau, f_ext, friction, ed)
    route = "reference" if out is None else "compiled"
    if out is None:
        out = _event_reference(ed, model, q, v, t, tau_of)
    out_q, out_v, out_a, out_tau, contacts, after, n_events = out
    forces = np.zeros((S, model.nb + 1, 3))
    events = []
    prev_pairs, prev_modes = set(), {}
    worst = 0.0
    for k in range(S):
        res = contacts[k]
        worst = max(worst, float(res.residual))
        pairs = set()
        modes = {}
        world = np.einsum("kij,kj->ki", res.frames, res.forces) if len(res.modes) else ()
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
        for te, kind, a, b in after[k]:
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
                              stats={"accepted_steps": S - 1, "route": route, "max_solver_residual": worst,
                                     "events": n_events})
    result.contacts, result.contact_forces, result.events = contacts, forces, events
    result.contact_body_names = list(model.body_names)
    return result


def _event_reference(ed, model, q, v, t, tau_of):
    """The readable loop: (q, v, a, tau samples, the contacts of each sample, the events after each
    sample, the number of events)."""
    S = t.size
    out_q, out_v, out_a, out_tau = (np.zeros((S, n)) for n in (model.nq, model.nv, model.nv, model.nv))
    contacts, after = [], []
    for k in range(S):
        res = ed.dynamics(t[k], q, v, ed.phase(q, v))
        out_q[k], out_v[k], out_a[k], out_tau[k] = q, v, res.a, tau_of(t[k], q, v)
        contacts.append(res)
        n_before = len(ed.events)
        if k < S - 1:
            q, v = ed.advance(float(t[k]), q, v, float(t[k + 1]))
        after.append(ed.events[n_before:])
    return out_q, out_v, out_a, out_tau, contacts, after, len(ed.events)
