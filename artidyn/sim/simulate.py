"""Forward simulation: ``M(q) a + h(q, v) + friction(v) = tau + J^T f_ext`` over time.

:func:`simulate` runs one state, :func:`rollout` many in parallel (the same engine: a batch given
to ``simulate`` is a rollout). This module is the front door: it checks the arguments and hands
the scene to its route. Smooth scenes run :mod:`.smooth` (the whole time loop in one compiled
call of :mod:`artidyn.kernels.stepping`; a Python input is called once per step, zero-order hold
like a digital controller); scenes with contacts or enforced limits run the simulation pipeline
(:mod:`.contact_run`); smooth closed chains :mod:`.constrained`; servo-constraints
:mod:`.servo_run`. ``method="scipy"`` keeps the readable reference route (:mod:`.scipy_route`).
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, check_flag
from .control import Prescribed
from .result import JointLimitWarning, SimulationResult
from .scipy_route import simulate_scipy
from .setup import RECORD, auto_method, coordinate_names, default_dt, states, time_grid  # noqa: F401
from .forces import check_forces
from .smooth import simulate_smooth

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

    from .._typing import Input, Model
    from ..constraints.models import Constraint
    from ..contact.settings import ContactSettings
    from ..servo.model import ModelServo
    from .control import PD, ComputedTorque

METHODS = ("auto", "rk4", "semi-implicit", "implicit", "dopri5", "scipy")
__all__ = ["simulate", "rollout", "METHODS", "JointLimitWarning", "auto_method", "coordinate_names", "default_dt",
           "time_grid"]





def simulate(model: Model, q0: ArrayLike, v0: ArrayLike | None = None, tau: Input = 0.0, t_final: float = 1.0,
             dt: float | None = None, method: str = "auto", f_ext: Input | None = None,
             controller: PD | ComputedTorque | None = None, t_eval: ArrayLike | None = None, record_every: int = 1,
             rtol: float = 1e-7, atol: float = 1e-9, energy_tol: float | None = 0.1, friction: bool = True,
             max_steps: int = 50_000_000, progress: bool | None = None, ivp_options: dict[str, Any] | None = None,
             record: tuple[str, ...] = RECORD, constraints: Sequence[Constraint] | str | None = None,
             baumgarte: tuple[float, float] | None = None, projection: bool = True,
             contact: ContactSettings | None = None, servo: ModelServo | None = None,
             forces: Sequence[Any] | None = None) -> SimulationResult:
    """Simulate the model from ``(q0, v0)`` under torques, a controller and external wrenches.

    Parameters
    ----------
    model : Model
    q0 : (nq,) or (N, nq)
        Initial configuration(s); quaternions are checked and normalised. A batch runs as
        :func:`rollout` (results with a leading run axis).
    v0 : (nv,) or (N, nv), optional
        Initial velocity (zero by default).
    tau : float, array, TimeTable or callable
        Generalized torques (nv entries) or actuator inputs (na entries, mapped through
        :func:`~artidyn.dynamics.actuation_matrix`): a constant; an array over the time grid,
        one row per step (held over the step) or one per grid time (interpolated), optionally
        with a run axis ``(rows, N, k)``; a :class:`~artidyn.sim.TimeTable` at any times; or a
        Python function ``tau(t, q, v)``, called once per step and held over it (the slow path:
        a few microseconds per step on top of the function). The model's joint friction is
        subtracted as in :func:`~artidyn.dynamics.aba` (``friction=False`` ignores it).
    t_final : float
        Duration (s).
    dt : float, optional
        Fixed-step methods: the step (``ceil(t_final / dt)`` equal steps; default
        :func:`default_dt`). ``"dopri5"``: the spacing of the output samples (default 1 ms).
    method : {"auto", "rk4", "semi-implicit", "implicit", "dopri5", "scipy"}
        ``"auto"`` (:func:`auto_method`): RK4, or the implicit method when the joint damping
        limits RK4's step or the model has Coulomb friction; with ``contact=`` (unilateral rows:
        contacts, enforced joint limits), Moreau-Jean. ``"rk4"``: classical Runge-Kutta on the manifold (RKMK4, 4 aba calls per step).
        ``"semi-implicit"``: symplectic Euler (1 call). ``"implicit"``: implicit in the joint
        damping and the PD controller's kd (MuJoCo's "implicitfast"): stable for stiff damping.
        ``"dopri5"``: adaptive Dormand-Prince 5(4) with ``rtol``/``atol``, samples by its
        continuous extension. ``"scipy"``: the readable reference route (``solve_ivp`` restarted
        at each step, ``ivp_options``), slow.
    f_ext : array (nb+1, 6), over time, TimeTable, or callable ``f_ext(t, q, v)``, optional
        Wrenches [moment; force] on each body, body frame, about the body origin.
    controller : :class:`~artidyn.sim.PD` or :class:`~artidyn.sim.ComputedTorque`, optional
        A compiled control law whose torque adds to ``tau`` on the actuated dofs.
    forces : list of :class:`~artidyn.sim.Drag`, :class:`~artidyn.sim.Spring` or :class:`~artidyn.sim.JointSpring`
        Force elements evaluated from the state at every stage, in the compiled input stage
        (smooth methods and ``contact=``): linear and quadratic drag, nonlinear point-to-point
        springs, nonlinear joint springs; their wrenches add to ``f_ext`` (and their work enters
        the energy balance as the inputs' does).
    t_eval : array, optional
        ``"dopri5"`` only: the sample times (from 0 to ``t_final``).
    record_every : int
        Fixed-step methods: keep every k-th step (and the last).
    energy_tol : float or None
        In a conservative run (no input, friction or external force), stop with
        :class:`~artidyn.errors.SimulationError` once ``|E - E0|`` exceeds this fraction of the
        run's energy scale (largest kinetic energy or potential change, at least m g times the
        robot's size). In a run with inputs, controller, friction or damping, the energy balance:
        stop (status 8) once ``E - E0`` (E with a PD controller's spring ``kp |q_ref (-) q|^2 / 2``)
        exceeds the inputs' work (torques, computed torque, the PD's power at its reference's
        velocity, external wrenches; the integrator's own quadrature) by this fraction of the
        scale (the largest of m g times the robot's size, the largest kinetic or PD spring energy,
        the inputs' absolute work): the run diverges. ``stats["energy_excess"]`` is the largest
        excess reached. None: no check. A computed-torque controller is an input like a torque
        table: its motors really do the work ``tau . v``, which W counts (its feedback included),
        so the balance stops an integration that has left its equations (an absurd gain at a large
        step), not a controller that really drives the robot hard; a PD, which is a spring and a
        damper, is counted as one (its spring's energy in E). Closed chains (``constraints=``) and
        servo runs (``servo=``) keep their own balance, checked at every step likewise.
    progress : bool or None
        A progress bar (tqdm, on stderr) for runs longer than about a second; None: only when
        stderr is a terminal.
    record : tuple of str
        What the samples keep: ``"q"``, ``"v"`` (always) and any of ``"a"``, ``"tau"``,
        ``"energy"`` (default all); the others are None in the result. Long rollouts of big
        robots: ``record=("q", "v")`` halves the memory (talos, 1000 runs x 2000 steps: 3.2 GB
        with everything).
    constraints : list of constraints, or "model", optional
        Bilateral constraints (:mod:`artidyn.constraints`: closed loops, welded feet, gears;
        ``"model"``: those the model file declares, :func:`artidyn.constraints.from_model`; a model
        that declares loop closures simulated without them warns once):
        the run goes to :func:`~artidyn.sim.simulate_constrained` (one state; ``"rk4"`` (the
        default for ``"auto"``) or ``"semi-implicit"``; no controller), compiled for Point, Weld,
        Hinge, Distance and Coupling. ``baumgarte=(alpha, beta)`` and ``projection`` (mass-weighted,
        after every step; default on) keep the state on the constraints. The result also holds
        ``constraint_forces`` and ``drift``.

    contact : :class:`artidyn.contact.ContactSettings`, optional
        Unilateral contacts between the model's collision shapes, with Coulomb friction and
        Newton restitution: the run goes down the simulation pipeline of
        :func:`~artidyn.sim.contact_run.simulate_contact` (``method="moreau_jean"``, the default for
        "auto", or ``"event_driven"``: smooth phases, located impacts and stick events,
        :mod:`artidyn.contact.event_driven`; one state; ``dt`` default 1 ms), compiled end to end,
        with ``tau``, ``f_ext``, ``controller`` and ``constraints`` beside the contacts (a Python
        ``tau(t, q, v)`` is called from the compiled loop). The result also holds ``contacts``,
        ``contact_forces``, ``events`` and ``input_work``; a run whose energy outgrows the work of
        its inputs by ``energy_tol`` stops with :class:`~artidyn.errors.SimulationError`.

    servo : :class:`artidyn.servo.ModelServo`, optional
        Servo-constraints (relations kept by regulated actuators along given directions, Appell):
        the run of :mod:`artidyn.sim.servo_run`; the result also holds ``servo_forces``,
        ``servo_power``, ``servo_work`` and ``drift``; ``tau`` is the (constant) known torque.
        With ``contact=`` the relations join the Moreau-Jean pipeline instead (one problem per
        step with the contacts, limits and ``constraints``, the servo forces along the
        directions; the reference route): ``tau``, ``controller``, ``f_ext`` and ``forces`` as
        for any contact run. Relations written in SymPy (any index) keep the symbolic solver
        and are refused there.

    Returns
    -------
    SimulationResult
        ``t`` (S,), ``q`` (S, nq), ``v``, ``a``, ``tau`` (S, nv), ``energy``; for a batch, a leading
        run axis: ``q`` (N, S, nq). Also ``limit_events``, ``stats`` and ``wall_time``.

    Raises
    ------
    SimulationError
        The state became non-finite, the energy error exceeded ``energy_tol`` (or the energy
        grew beyond the inputs' work: the run diverged), or the adaptive
        step underflowed: the message names the time, step and joint and what to try; the
        partial result is ``error.result``.
    """
    friction = check_flag(friction, "simulate: friction")
    projection = check_flag(projection, "simulate: projection")
    progress = None if progress is None else check_flag(progress, "simulate: progress (or None)")
    forces = check_forces(forces, "simulate")
    if forces and ((servo is not None and contact is None) or method == "scipy"):
        raise InputError("simulate: forces= (drag, springs) run on the engine's own methods and with contact=, not "
                         "with servo= alone or method='scipy'")
    if servo is not None and contact is not None:
        return _servo_with_contact(model, q0, v0, tau, t_final, dt, contact, method, f_ext, friction, controller,
                                   constraints, projection, energy_tol, forces, servo, t_eval)
    if servo is not None:
        if contact is not None or constraints is not None or controller is not None:
            raise InputError("simulate with servo=: constraints= and controller= run with it through the contact "
                             "pipeline (give contact=ContactSettings(...)); alone, the servo run is RK4 (put "
                             "first-kind relations in the ModelServo's rolling=)")
        unused = [name for name, given in (("f_ext", f_ext is not None), ("t_eval", t_eval is not None),
                                           ("record_every", record_every != 1),
                                           ("method", method not in ("auto", "rk4"))) if given]
        if unused:
            raise InputError(f"simulate with servo=: {', '.join(unused)} not supported (the servo run is RK4, "
                             f"sampled at every step, under constant torques tau)")
        from .servo_run import simulate_servo
        return simulate_servo(model, q0, v0, servo, tau, t_final, dt, energy_tol)
    _check_prescribed(controller, contact, constraints, method)
    if contact is not None or method in ("moreau_jean", "event_driven"):
        from .contact_run import simulate_contact
        if constraints is None:
            _warn_declared(model)
        if t_eval is not None:
            raise InputError("simulate with contact: t_eval is for the adaptive method 'dopri5'; a contact run "
                             "samples every step")
        return simulate_contact(model, q0, v0, tau, t_final, 1e-3 if dt is None else dt, contact,
                                "moreau_jean" if method == "auto" else method, f_ext, friction, controller=controller,
                                constraints=constraints, projection=projection, energy_tol=energy_tol, forces=forces)
    if method not in METHODS:
        raise InputError(f"simulate: unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if isinstance(constraints, str):
        if constraints != "model":
            raise InputError(f"simulate: constraints must be a list of constraints or 'model' (those the model file "
                             f"declares), got {constraints!r}")
        from ..constraints import from_model
        constraints = from_model(model)
    elif constraints is None:
        _warn_declared(model)
    if constraints is not None and len(constraints) > 0:
        if forces:
            raise InputError("simulate: forces= (drag, springs) with constraints= run with contact= (the Moreau-Jean "
                             "pipeline), not on the smooth constrained route")
        return _simulate_with_constraints(model, q0, v0, tau, t_final, dt, method, f_ext, controller, t_eval,
                                          record_every, friction, constraints, baumgarte, projection, energy_tol)
    Q, V, N, single = states(model, q0, v0)
    if method == "auto":
        method = "rk4" if isinstance(controller, Prescribed) else auto_method(model, Q[0], friction)
    if method == "scipy":
        return simulate_scipy(model, Q, V, N, single, tau, f_ext, t_final, dt, ivp_options)
    return simulate_smooth(model, Q, V, N, single, tau, f_ext, controller, t_final, dt, method, t_eval, record_every,
                     rtol, atol, energy_tol, friction, max_steps, progress, record=record, forces=forces)

def _check_prescribed(controller, contact, constraints, method):
    """A prescribed motion runs on the smooth engine's explicit and adaptive methods only."""
    if not isinstance(controller, Prescribed):
        return
    if contact is not None or constraints is not None:
        raise InputError("simulate: a Prescribed motion runs without contact= and constraints= (the smooth engine's "
                         "hybrid dynamics); drive those scenes with a PD or ComputedTorque controller")
    if method not in ("auto", "rk4", "semi-implicit", "dopri5"):
        raise InputError(f"simulate: a Prescribed motion runs with method 'rk4', 'semi-implicit' or 'dopri5' (or "
                         f"'auto': rk4), got {method!r}")


def _warn_declared(model):
    """A model file that declares loop closures or couplings (URDF ``<mimic>``, MJCF joint
    equalities) simulated without them: say so (once per model)."""
    specs = getattr(model, "constraint_specs", ())
    if not specs or model._cache.get("sim.warned_declared"):
        return
    model._cache["sim.warned_declared"] = True
    loops = [s for s in specs if s.type != "coupling"]
    couplings = [s for s in specs if s.type == "coupling"]
    what = []
    if loops:
        what.append(f"{len(loops)} loop closure(s) ({', '.join(s.label() for s in loops[:3])}) that this run "
                    f"ignores (an open tree)")
    if couplings:
        what.append(f"{len(couplings)} joint coupling(s) ({', '.join(s.label() for s in couplings[:3])}"
                    f"{', ...' if len(couplings) > 3 else ''}) that this run leaves free (the coupled joints move "
                    f"on their own)")
    warnings.warn(f"{model.name}: the model declares {' and '.join(what)}; pass constraints='model' to enforce "
                  f"them", stacklevel=3)


def _simulate_with_constraints(model, q0, v0, tau, t_final, dt, method, f_ext, controller, t_eval, record_every,
                               friction, constraints, baumgarte, projection, energy_tol=0.1):
    from .constrained import simulate_constrained

    if method == "auto":
        method = "rk4"
    if method not in ("rk4", "semi-implicit"):
        raise InputError(f"simulate with constraints: method must be 'rk4' or 'semi-implicit' (or 'auto'), got "
                         f"{method!r}")
    if t_eval is not None:
        raise InputError("simulate with constraints: t_eval= is for the adaptive method 'dopri5'; a run with "
                         "constraints samples every step (record_every= thins it)")
    if dt is None:
        Q, _, _, _ = states(model, q0, v0)
        dt = default_dt(model, Q[0], method)
    return simulate_constrained(model, q0, v0, constraints, tau=tau, t_final=t_final, dt=dt, method=method,
                                f_ext=f_ext, baumgarte=baumgarte, projection=projection, record_every=record_every,
                                friction=friction, energy_tol=energy_tol, controller=controller)

def rollout(model: Model, q0: ArrayLike, v0: ArrayLike | None = None, tau: Input = 0.0, t_final: float = 1.0,
            dt: float | None = None, method: str = "auto", f_ext: Input | None = None,
            controller: PD | ComputedTorque | None = None, t_eval: ArrayLike | None = None, record_every: int = 1,
            rtol: float = 1e-7, atol: float = 1e-9, energy_tol: float | None = 0.1, friction: bool = True,
            max_steps: int = 50_000_000, record: tuple[str, ...] = RECORD, contact: ContactSettings | None = None,
            constraints: Sequence[Constraint] | str | None = None, projection: bool = True,
            forces: Sequence[Any] | None = None) -> SimulationResult:
    """Simulate N initial states and/or input sequences in parallel (like ``mujoco.rollout``).

    Arguments as :func:`simulate`; ``q0`` (N, nq) and/or ``v0`` (N, nv) (a single one is shared),
    ``tau`` constant, per run (N, k), or over time with a run axis (rows, N, k). The runs are
    split in chunks over one thread per core. Returns a :class:`SimulationResult` whose arrays have a
    leading run axis: ``q`` (N, S, nq), ``v``, ``a``, ``tau`` (N, S, nv), energies (N, S).
    Runs that fail are reported in ``result.status`` (per run) and raise a
    :class:`~artidyn.errors.SimulationError` naming them, with the whole result attached.
    ``contact=`` (and ``constraints=`` beside it): N contact scenes on the compiled Moreau-Jean
    pipeline, with the contact forces per body ``(N, S, nb + 1, 3)`` and ``stats["status"]`` per
    run (0: ok); each run equals its single :func:`simulate` bit for bit.
    """
    friction = check_flag(friction, "rollout: friction")
    projection = check_flag(projection, "rollout: projection")
    _check_prescribed(controller, contact, constraints, method)
    forces = check_forces(forces, "rollout")
    if contact is not None or method == "moreau_jean":
        from .contact_run import simulate_contact
        if method not in ("auto", "moreau_jean"):
            raise InputError(f"rollout with contact: method must be 'moreau_jean' (or 'auto'), got {method!r}")
        return simulate_contact(model, q0, v0, tau, t_final, 1e-3 if dt is None else dt, contact, "moreau_jean",
                                f_ext, friction, controller=controller, constraints=constraints,
                                projection=projection, energy_tol=energy_tol, rollout=True, forces=forces)
    if constraints is not None:
        raise InputError("rollout: constraints= runs with contact= (the Moreau-Jean pipeline); for a smooth closed "
                         "chain, simulate one state at a time")
    if method not in METHODS or method == "scipy":
        raise InputError(f"rollout: unknown method {method!r}; choose one of {', '.join(METHODS[:-1])}")
    Q, V, N, _ = states(model, q0, v0)
    if method == "auto":
        method = "rk4" if isinstance(controller, Prescribed) else auto_method(model, Q[0], friction)
    runs = input_runs(tau, f_ext)
    if N == 1 and runs > 1:          # one initial state, N input sequences
        Q, V, N = np.repeat(Q, runs, 0), np.repeat(V, runs, 0), runs
    return simulate_smooth(model, Q, V, N, False, tau, f_ext, controller, t_final, dt, method, t_eval, record_every,
                     rtol, atol, energy_tol, friction, max_steps, False, rollout=True, record=record,
                     forces=forces)

def input_runs(tau, f_ext):
    """The run axis of inputs given over time with one (rows, N, k) array per run, or 1."""
    from .inputs import TimeTable

    n = 1
    for x in (tau, f_ext):
        if isinstance(x, TimeTable):
            x = x.values
        if callable(x) or x is None:
            continue
        arr = np.asarray(x)
        if arr.ndim == 3 and x is tau:
            n = max(n, arr.shape[1])
        elif arr.ndim == 4:
            n = max(n, arr.shape[1])
    return n


def _servo_with_contact(model, q0, v0, tau, t_final, dt, contact, method, f_ext, friction, controller, constraints,
                        projection, energy_tol, forces, servo, t_eval):
    """``simulate(..., servo=, contact=)``: the servo relations as rows of the Moreau-Jean steps."""
    from ..servo import ModelServo
    from .contact_run import simulate_contact
    if not isinstance(servo, ModelServo):
        raise InputError(f"simulate: servo must be an artidyn.servo.ModelServo (relations on this model), got "
                         f"{type(servo).__name__}")
    if servo.model is not model:
        raise InputError("simulate: the ModelServo was built on another model")
    if servo.problem is not None or servo.system is not None or servo.D is None:
        raise InputError("simulate with contact and servo=: relations written in SymPy (any index) or over "
                         "quasi-velocities need the symbolic solver, whose RK4 run takes no contacts; give the "
                         "relations as constraint objects (JointPath, FramePath, Coupling, Nonholonomic ...) with "
                         "constant directions")
    if method not in ("auto", "moreau_jean") or t_eval is not None:
        raise InputError("simulate with contact and servo=: the servo relations join the Moreau-Jean steps (method "
                         "'moreau_jean' or 'auto', sampled at every step)")
    return simulate_contact(model, q0, v0, tau, t_final, 1e-3 if dt is None else dt, contact, "moreau_jean", f_ext,
                            friction, controller=controller, constraints=constraints, projection=projection,
                            energy_tol=energy_tol, forces=forces, servo=servo)
