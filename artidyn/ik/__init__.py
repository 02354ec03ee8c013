"""Inverse geometric model q = G(X) (Khalil & Dombre, "Modeling, Identification and Control of
Robots", ch. 4).

- :func:`ik`: numeric (Levenberg-Marquardt on the SE(3) log error, joint limits, random
  restarts, null-space secondary objective), one target or a batch, honest ``status``;
- :func:`ik_all`: distinct solutions by multi-start;
- :func:`ik_analytic`: every closed-form solution of 6R arms with a spherical wrist or three
  parallel axes (family detected from the geometry);
- :func:`manipulability`, :func:`condition_number`, :func:`is_singular`, :func:`singularity`;
- :func:`workspace`: sampled reachable workspace with bounds and a plot.
"""
from .analytic import family, ik_analytic  # noqa: F401
from .numeric import ik, ik_all  # noqa: F401
from .results import STATUSES, IKResult, IKSolutions  # noqa: F401
from .singular import (condition_number, is_singular, manipulability, singular_values,  # noqa: F401
                       singularity)
from .workspace import Workspace, workspace  # noqa: F401
