"""Interoperability with pinocchio and MuJoCo: models and state converters, convention checks.

- :func:`to_pinocchio`, :func:`from_pinocchio`: exact model round trip (pinocchio imported
  only when called); :class:`Converter`: q, v, a, tau, M and Jacobians between the orderings;
- :class:`MujocoConverter`: qpos, qvel, qfrc and M of a model read by :func:`artidyn.load_mjcf`;
- :func:`check_configuration`: a :class:`ConventionWarning` when a q looks like another
  library's convention (pinocchio's (cos, sin), MuJoCo's (w, x, y, z), a misplaced quaternion).
"""
from .convention import ConventionWarning, check_configuration  # noqa: F401
from .pinocchio import Converter, from_pinocchio, to_pinocchio  # noqa: F401
from .mujoco import MujocoConverter  # noqa: F401

__all__ = ["Converter", "ConventionWarning", "MujocoConverter", "check_configuration", "from_pinocchio",
           "to_pinocchio"]
