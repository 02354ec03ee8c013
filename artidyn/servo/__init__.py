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

On a model: :class:`ModelServo` (relations are artidyn constraints; directions default to the
actuated joints). The equations and the determinacy test: :mod:`artidyn.servo.core`.
"""
from .core import DETERMINED, IMPOSSIBLE, INDETERMINATE, ServoSolution, solve  # noqa: F401
from .model import ModelServo  # noqa: F401
from .problem import ServoProblem, ServoResult, ServoRun  # noqa: F401
from . import examples  # noqa: F401
