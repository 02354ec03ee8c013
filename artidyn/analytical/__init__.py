"""Analytical mechanics: nonholonomic systems, quasi-velocities, and five formulations of the
constrained equations of motion, each callable on the same system::

    from artidyn import analytical
    from artidyn.constraints import RollingDisk
    system = analytical.System(model, constraints=[RollingDisk("disk", 0.3)])
    out = analytical.accelerations(system, q, v, tau, method="gibbs_appell")
    out.a, out.multipliers

``method``: ``"gibbs_appell"`` (Appell's acceleration energy), ``"kane"`` (generalized active
and inertia forces), ``"maggi"`` (projection on the constraints' null space),
``"boltzmann_hamel"`` (Hamel's coefficients), ``"udwadia_kalaba"`` (the Moore-Penrose form),
and ``"lagrange"`` (the KKT system with multipliers, the reference). All give the same motion.

Each method runs compiled (:mod:`artidyn.kernels.formulations`, reached through
:mod:`.compiled`), for one state or a batch (``q`` (N, nq), ``v`` and ``tau`` (N, nv)); the
modules named after the methods are their readable references, which
``artidyn.kernels.reference_only()`` runs.
"""
from .results import METHODS, AnalyticalResult, accelerations  # noqa: F401
from .system import System, Terms  # noqa: F401
from .gibbs_appell import acceleration_energy_quasi  # noqa: F401
from .boltzmann_hamel import hamel_coefficients, structure_constants  # noqa: F401
from .rollout import Rollout, rollout  # noqa: F401
from . import examples  # noqa: F401
