"""Bilateral constraints and closed chains: constraint models, constrained forward and inverse
dynamics with the multipliers as reaction forces, assembly on the constraint manifold.

A closed chain is a spanning tree (the :class:`~artidyn.Model`) plus cut constraints::

    from artidyn.constraints import Point, Weld, constrained_dynamics
    res = constrained_dynamics(model, q, v, tau, [Weld("left_sole_link", at=q), Weld("right_sole_link", at=q)])
    res.a, res.forces          # accelerations; each foot's reaction wrench (world axes, about the sole)

Nonholonomic constraints ``A(q, t) v + b(q, t) = 0`` (rolling without slipping or pivoting, a
knife edge, user functions) take the same solvers and simulation (:mod:`.nonholonomic`).
"""
from .declared import from_model  # noqa: F401
from .evaluator import ConstrainedDynamics  # noqa: F401
from .models import Coupling, Distance, Hinge, Holonomic, Point, Weld  # noqa: F401
from .nonholonomic import (FramePath, JointPath, KnifeEdge, Nonholonomic, NoPivot, RollingDisk,  # noqa: F401
                           RollingSphere)
from .solve import (Assembly, ConstrainedResult, Rows, assemble, constrained_dynamics,  # noqa: F401
                    constrained_inverse_dynamics, constraint_rows, constraint_terms)
