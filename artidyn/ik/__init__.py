"""Inverse geometric model q = G(X): numeric (Levenberg-Marquardt, multi-start), analytic (6R
arms with a spherical wrist or three parallel axes), singularities and workspace."""
from .numeric import ik, ik_all  # noqa: F401
from .results import STATUSES, IKResult, IKSolutions  # noqa: F401
