"""Constraint objects from the loop closures a model file declares (``model.constraint_specs``).

A model file may declare its closed loops as cut constraints on its spanning tree: the
``[[constraints]]`` tables of a DH table file (:mod:`artidyn.io.dh`) and the ``<mimic>`` tags of
a URDF (couplings). The model keeps them as plain data (:class:`artidyn.model.ConstraintSpec`,
the model layer knows no constraint class); :func:`from_model` makes the objects::

    model = artidyn.load("fourbar")
    loop = from_model(model)                      # [Point('tool' - world)]
    asm = assemble(model, q0, loop)
    res = constrained_dynamics(model, asm.q, asm.v, tau, loop)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import neutral
from ..errors import ModelError
from ..kinematics import frame_placement
from .models import Coupling, Distance, Hinge, Point, Weld

if TYPE_CHECKING:
    from .._typing import Model
    from .models import Constraint


def _target(spec):
    return None if spec.target is None else np.array(spec.target, dtype=float)


def _measured_length(model, spec, at):
    """|p_a - p_b| at the neutral configuration (frame_b None: the target point)."""
    q0 = neutral(model)
    pa = frame_placement(model, q0, spec.frame_a)[:3, 3]
    pb = np.array(spec.target, float)[:3] if spec.frame_b is None else frame_placement(model, q0, spec.frame_b)[:3, 3]
    L = float(np.linalg.norm(pa - pb))
    if not L > 1e-12:
        raise ModelError(f"{at}: no 'length' given and the two points coincide at the neutral configuration "
                         f"(measured length {L:.3g}); declare the length")
    return L


def from_spec(model, spec, k=None):
    """The constraint object (Point, Weld, Hinge, Distance or Coupling) of one ConstraintSpec."""
    src = f"{model.source}: " if getattr(model, "source", "") else ""
    at = f"{src}{spec.label(k)}"
    if spec.type == "point":
        c = Point(spec.frame_a, spec.frame_b, target=_target(spec))
    elif spec.type == "weld":
        c = Weld(spec.frame_a, spec.frame_b, target=_target(spec))
    elif spec.type == "hinge":
        c = Hinge(spec.frame_a, spec.frame_b, axis=spec.axis if spec.axis is not None else (0.0, 0.0, 1.0),
                  target=_target(spec))
    elif spec.type == "distance":
        length = spec.length if spec.length is not None else _measured_length(model, spec, at)
        c = Distance(spec.frame_a, spec.frame_b, length=length, target=_target(spec))
    elif spec.type == "coupling":
        c = Coupling(spec.joint_a, spec.joint_b, 1.0 if spec.ratio is None else spec.ratio,
                     0.0 if spec.offset is None else spec.offset)
    else:
        raise ModelError(f"{at}: unknown constraint type {spec.type!r}")
    if spec.name:
        c.name = spec.name
    c.check(model)
    return c


def from_model(model: Model) -> list[Constraint]:
    """The constraint objects of the loop closures declared by ``model``'s file, in file order.

    ``model.constraint_specs`` (``[[constraints]]`` of a DH table file, URDF ``<mimic>``) becomes
    a list of :class:`Point`, :class:`Weld`, :class:`Hinge`, :class:`Distance` and
    :class:`Coupling`; each keeps the declared ``name``. A distance without a declared length
    takes the distance at the neutral configuration. An empty list for a model without any.
    """
    return [from_spec(model, s, k) for k, s in enumerate(getattr(model, "constraint_specs", ()), start=1)]
