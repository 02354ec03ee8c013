"""Servo-constraints (Appell and Béghin's "liaisons d'asservissement") and underactuated
inverse dynamics::

    import sympy as sp
    from sympy.physics.mechanics import dynamicsymbols
    from artidyn import servo
    al, be = dynamicsymbols("alpha beta")
    prob = servo.ServoProblem([al, be], kinetic_energy=T, generalized_forces=[Qa, Qb],
                              servo=[al - be - sp.pi / 2], directions=[[1, 0]])
    prob.status                        # "determined" | "impossible" | "indeterminate"
    out = prob.accelerations(q, qd, t) # out.qdd, out.mu (servo forces), out.Lambda, out.index
    run = prob.simulate(q0, qd0, t_final=5.0, dt=1e-3)

On a model: :class:`ModelServo` (relations are artidyn constraints, or SymPy expressions in
:func:`coordinates` for relations of any index; directions default to the actuated joints).
From plain functions M, h, E, gamma, D: :class:`NumericServo`. In quasi-velocities ``w = B(q) qdot``:
``ServoProblem(..., quasi_velocities={w1: ..., ...})`` (:mod:`artidyn.servo.quasi`) or
``ModelServo(..., quasi_velocities=B)``.
The equations and the determinacy test: :mod:`artidyn.servo.core`. SymPy is imported when a name of
this package is first used, not with ``import artidyn``.
"""
import importlib

_LAZY = {"DETERMINED": "core", "IMPOSSIBLE": "core", "INDETERMINATE": "core", "ServoSolution": "core",
         "solve": "core", "gibbs_appell": "core", "ModelServo": "model", "ServoProblem": "problem",
         "ServoResult": "problem", "ServoRun": "problem", "ServoEquilibrium": "problem", "NumericServo": "numeric",
         "examples": None, "core": None, "model": None, "problem": None, "numeric": None, "quasi": None,
         "states": None, "model_sym": None, "coordinates": "model_sym"}
__all__ = sorted(_LAZY)


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'artidyn.servo' has no attribute {name!r}")
    module = importlib.import_module(f".{_LAZY[name] or name}", __name__)
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value
    return value
