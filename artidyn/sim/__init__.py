"""Simulation: the engine (:func:`simulate`, :func:`rollout`), inputs (:class:`TimeTable`,
:class:`PD`, :class:`ComputedTorque`), force elements (:class:`Drag`, :class:`Spring`,
:class:`JointSpring`), results, reference motions, plots.

The time loop runs compiled (:mod:`artidyn.kernels.stepping`); :mod:`.integrate` keeps the
readable reference steppers the tests hold it against.
"""
from .result import Energy, LimitEvent, SimulationResult  # noqa: F401
from .simulate import METHODS, JointLimitWarning, auto_method, coordinate_names, default_dt, rollout, simulate  # noqa: F401
from .inputs import TimeTable  # noqa: F401
from .control import PD, ComputedTorque, Prescribed  # noqa: F401
from .force_control import HybridForceControl, straight_path  # noqa: F401
from .forces import Drag, JointSpring, Spring  # noqa: F401
from .constrained import simulate_constrained  # noqa: F401
from .trajectories import quintic, quintic_motion, velocities_from_positions  # noqa: F401
from .plots import plot_energy, plot_result, plot_torques  # noqa: F401
from .linearize import StepDerivatives, step_derivatives  # noqa: F401
