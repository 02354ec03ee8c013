"""Geometric and kinematic models: placements, frame velocities and accelerations, Jacobians
and their time derivatives, centre of mass.

Every function takes one state (``q`` of shape (nq,)) or a batch ((N, nq), likewise ``v``, ``a``)
and returns results with the same leading axis. Gravity is not part of kinematics.

=================  ==========================================================================
module             holds
=================  ==========================================================================
``placements``     direct geometric model X = F(q): body and frame placements
``velocities``     forward recursion of twists and accelerations; frame velocity/acceleration
``jacobians``      frame Jacobians J and their analytic time derivatives Jdot
``com``            centre of mass, its velocity, acceleration and Jacobian
=================  ==========================================================================
"""
from .placements import (_frame_on_body, _joint_transforms, _placements, _placements_from,  # noqa: F401
                         _states, body_placements, frame_placement)
from .velocities import (_body_accelerations, _body_velocities, body_accelerations,  # noqa: F401
                         body_velocities, frame_acceleration, frame_velocity, jacobian_bias)
from .jacobians import _jacobian, _jacobian_derivative, jacobian, jacobian_derivative  # noqa: F401
from .com import center_of_mass, com_acceleration, com_jacobian, com_velocity  # noqa: F401
