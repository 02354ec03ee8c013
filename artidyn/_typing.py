"""Type aliases for annotations of the public API.

Imported only under ``typing.TYPE_CHECKING`` (with ``from __future__ import annotations``), so that
``import artidyn`` does not pay for it and no import cycle arises.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

from numpy.typing import ArrayLike, NDArray

from .model import Frame, Model
from .sim.inputs import TimeTable

FrameLike = Union[str, int, Frame]
"""A frame given by name, by body index, or as a :class:`~artidyn.Frame`."""

Array = NDArray[Any]
"""An ndarray of any dtype: float64 in general, complex128 or object (SymPy) on the reference paths."""

Input = Union[ArrayLike, TimeTable, Callable[[float, Array, Array], ArrayLike]]
"""A simulation input (torques ``tau`` or wrenches ``f_ext``): a constant, an array over the time grid,
a :class:`~artidyn.sim.TimeTable`, or a function ``f(t, q, v)``."""

__all__ = ["Array", "ArrayLike", "FrameLike", "Input", "Model"]
