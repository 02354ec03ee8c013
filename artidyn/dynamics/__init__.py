"""Dynamic models: RNEA, ABA, CRBA, GAHA, Lagrange terms, energies, non-recursive Newton-Euler
(with the joint reactions and the forward augmented solve)."""
from .rnea import gravity_torque, rnea  # noqa: F401
from .aba import aba  # noqa: F401
from .hybrid import HybridResult, hybrid_dynamics  # noqa: F401
from .crba import crba, mass_matrix  # noqa: F401
from .derivatives import AbaDerivatives, RneaDerivatives, aba_derivatives, rnea_derivatives  # noqa: F401
from .wrenches import external_wrench, joint_wrenches  # noqa: F401
from .actuation import actuation_matrix, friction_torque  # noqa: F401
from .springs import spring_energy, spring_torque  # noqa: F401
from .energy import (centroidal_momentum, kinetic_energy, mechanical_energy, momentum,  # noqa: F401
                     potential_energy)
from .gaha import acceleration_energy, gaha  # noqa: F401
from .lagrange import (christoffel, coriolis_matrix, gravity, mass_matrix_derivative,  # noqa: F401
                       nonlinear_effects)
from .nonrecursive import (JointReactions, NewtonEulerSystem, newton_euler_nonrecursive,  # noqa: F401
                           newton_euler_system, nonrecursive_terms)
from .reactions import newton_euler_forward, newton_euler_reactions  # noqa: F401

inverse_dynamics, forward_dynamics = rnea, aba
from .evaluator import Dynamics  # noqa: F401
