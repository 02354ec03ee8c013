"""Built-in robots and random test models."""
from .zoo import random_chain, random_tree, zoo  # noqa: F401
from .erd import example_robot, example_robot_names, example_robot_path  # noqa: F401
from .flexible import cantilever_frequencies, cantilever_roots, flexible_beam  # noqa: F401
from .builtin import cart_pendulum, fourbar, get, names, pendulum, planar_2r, puma560, rx90  # noqa: F401
