"""Simulation with servo-constraints through the engine's result: :func:`artidyn.simulate` with
``servo=ModelServo(...)`` (Appell and Béghin's servo-constraints on a model; the solver and its
Runge-Kutta loop are :class:`artidyn.servo.ModelServo`'s).

The :class:`SimulationResult` holds, besides ``t, q, v, a``: ``tau`` the generalized forces the
servo applies (``D^T mu``, plus the given torques), ``servo_forces`` (S, j) the servo forces mu
themselves, ``servo_power`` and ``servo_work`` (the energy they put in: ``T + U`` changes by exactly
that), ``multipliers`` of the first-kind relations and ``drift`` (max |phi| of the relations).
"""

import numpy as np

from ..dynamics import kinetic_energy
from ..errors import InputError, SimulationError
from ..firstuse import clock
from .result import Energy, SimulationResult


def simulate_servo(model, q0, v0, servo, tau, t_final, dt, energy_tol=0.1):
    """The run of ``servo`` (a ModelServo on ``model``) as a SimulationResult; a run that stops
    raises SimulationError with the SimulationResult so far (:mod:`artidyn.servo.balance`)."""
    from ..servo import ModelServo
    from .setup import one_state

    if not isinstance(servo, ModelServo):
        raise InputError(f"simulate: servo must be an artidyn.servo.ModelServo (relations on this model), got "
                         f"{type(servo).__name__}; a problem stated from energies has its own ServoProblem.simulate")
    if servo.model is not model:
        raise InputError("simulate: the ModelServo was built on another model")
    q, v = one_state(model, q0, v0, "simulate with servo-constraints")
    T = servo._torque(tau, "simulate with servo-constraints")
    start = clock()
    try:
        run = servo.simulate(q, v, t_final, 1e-3 if dt is None else dt, tau=T, energy_tol=energy_tol)
    except SimulationError as err:
        part = None if err.result is None else _result(model, servo, err.result, T, dt, clock() - start)
        raise SimulationError(f"simulate '{model.name}' with servo-constraints: {err}", result=part) from None
    return _result(model, servo, run, T, dt, clock() - start)


def _result(model, servo, run, T, dt, wall):
    from .setup import coordinate_names

    D = servo.D if servo.D is not None else \
        np.array([servo.directions_at(q, v, t) for q, v, t in zip(run.q, run.v, run.t)]).reshape(run.t.size, -1, T.size)
    applied = (run.servo_forces @ D if D.ndim == 2 else np.einsum("sj,sjn->sn", run.servo_forces, D)) + T
    kin = kinetic_energy(model, run.q, run.v) if run.t.size else np.zeros(0)
    pot = run.energy - kin
    result = SimulationResult(run.t, run.q, run.v, run.qdd, applied, Energy(kin, pot, run.energy),
                              model_name=model.name, q_names=coordinate_names(model, "q"),
                              v_names=coordinate_names(model, "v"), method="rk4 (servo)",
                              dt=float(run.t[1] - run.t[0]) if run.t.size > 1 else dt, wall_time=wall,
                              stats={"route": "reference", "accepted_steps": max(run.t.size - 1, 0),
                                     "max_drift_position": float(np.max(run.drift, initial=0.0))})
    result.servo_forces, result.servo_power, result.servo_work = run.servo_forces, run.servo_power, run.servo_work
    result.multipliers, result.drift = run.multipliers, run.drift
    return result
