"""artidyn: modelling and dynamics of articulated mechanical systems.

Conventions: SI units; motion vectors [omega; v], force vectors [mu; f]; quaternions (x, y, z, w);
body 0 is the world, parent[i] < i; per-body arrays have nb + 1 rows. See README.md.
"""
from .threads import get_num_threads, set_num_threads  # noqa: F401  (and GOMP_SPINCOUNT: see artidyn.threads)
from .errors import (ArtidynError, InputError, ModelError, NameNotFound, ParseError, PlausibilityWarning,  # noqa: F401
                     ShapeError, SimulationError)
from .model import Frame, LoadReport, Model  # noqa: F401
from .builder import ModelBuilder  # noqa: F401
from .configuration import (difference, integrate, neutral, random_configuration,  # noqa: F401
                            random_velocity, within_limits)
from .kinematics import body_placements, frame_placement, jacobian  # noqa: F401
from .kinematics import (body_accelerations, body_velocities, center_of_mass,  # noqa: F401
                         com_acceleration, com_jacobian, com_velocity, frame_acceleration,
                         frame_velocity, jacobian_bias, jacobian_derivative)
from .dynamics import (aba, actuation_matrix, centroidal_momentum, crba, external_wrench,  # noqa: F401
                       friction_torque, gravity_torque, joint_wrenches, kinetic_energy,
                       mechanical_energy, momentum, potential_energy, rnea, spring_energy, spring_torque)
from .dynamics import (christoffel, coriolis_matrix, gaha, gravity, mass_matrix_derivative,  # noqa: F401
                       newton_euler_forward, newton_euler_nonrecursive, newton_euler_reactions,
                       nonlinear_effects)
from .dynamics import Dynamics, aba_derivatives, hybrid_dynamics, rnea_derivatives  # noqa: F401
from .constraints import (ConstrainedDynamics, assemble, constrained_dynamics, constrained_inverse_dynamics,  # noqa: F401
                          constraint_terms)
from .sim import SimulationResult, default_dt, quintic, rollout, simulate, simulate_constrained  # noqa: F401
from .sim import Drag, JointSpring, Spring  # noqa: F401
from .io.urdf import load_urdf  # noqa: F401
from .io import load  # noqa: F401
from .io.dh import from_dh  # noqa: F401
from .viewer import view  # noqa: F401
from .io.mjcf import load_mjcf  # noqa: F401
from .ik import (IKResult, IKSolutions, condition_number, ik, ik_all, ik_analytic,  # noqa: F401
                 is_singular, manipulability, singularity, workspace)
from . import analytical, constraints, contact, geometry, identification, servo, spatial, models, symbolic  # noqa: F401
from . import distributed, interop  # noqa: F401

__version__ = "0.1.0"
