"""Built-in robots and random test models."""
from .zoo import random_chain, random_tree, zoo  # noqa: F401
