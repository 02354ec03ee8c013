"""artidyn: modelling and dynamics of articulated mechanical systems.

Conventions: SI units; motion vectors [omega; v], force vectors [mu; f]; quaternions (x, y, z, w);
body 0 is the world, parent[i] < i; per-body arrays have nb + 1 rows. See README.md.
"""
from .errors import ArtidynError, InputError, ModelError, NameNotFound, ParseError, ShapeError  # noqa: F401
from .model import Frame, LoadReport, Model  # noqa: F401
from .builder import ModelBuilder  # noqa: F401
from .configuration import (difference, integrate, neutral, random_configuration,  # noqa: F401
                            random_velocity, within_limits)
from .kinematics import body_placements, frame_placement, jacobian  # noqa: F401
from . import spatial, models  # noqa: F401

__version__ = "0.1.0"
