"""Actuators and joint friction, as model parameters.

J. Reuss ("Modélisation des robots", French Wikipedia draft, 2013) models actuators "as forces
or torques" and allows under-actuated systems ("certaines articulations sont dépourvues
d'actionneurs"); Siciliano, Sciavicco, Villani & Oriolo ("Robotics: Modelling, Planning and
Control", 2009, ch. 7) add Coulomb and viscous joint friction to the model. Four per-dof fields
of :class:`artidyn.Model` carry this (set them with ``ModelBuilder.add_body(..., armature=,
damping=, coulomb=, actuated=)`` or ``model.replace(damping=..., ...)``):

``actuated`` (nv,) bool
    which dofs have an actuator. :func:`actuation_matrix` gives B (nv x na) with
    ``tau = B u``; a passive joint (and a floating base) gets no torque.
``armature`` (nv,)
    rotor inertia reflected through the gearbox, J_rotor * ratio^2. It adds
    ``diag(armature)`` to the mass matrix: :func:`~artidyn.dynamics.crba` adds it to M,
    :func:`~artidyn.dynamics.aba` to each joint's D = S^T I_A S, :func:`~artidyn.dynamics.rnea`
    adds ``armature * a`` and the kinetic energy ``1/2 armature v^2``.
``damping`` (nv,)
    viscous friction, torque ``damping * v`` opposing the motion.
``coulomb`` (nv,)
    Coulomb (dry) friction, torque ``coulomb * sign(v)`` with sign(0) = 0 (no stiction model).

With friction and joint springs the equation of motion reads

    M(q) a + h(q, v) + stiffness * (q - rest) + damping * v + coulomb * sign(v) = tau + J^T f_ext,

where tau is the torque the actuators produce. ``rnea`` returns that tau (friction included),
``aba`` takes it and subtracts the friction torque; pass ``friction=False`` to either to leave
friction out (armature always counts: it is inertia, not friction). The spring term is
conservative and always counts, with gravity (:mod:`artidyn.dynamics.springs`: its potential
energy joins the model's).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import as_batch, unbatch

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def actuation_matrix(model: Model) -> Array:
    """B (nv x na): column k is the unit vector of the k-th actuated dof, ``tau = B @ u``.

    Parameters
    ----------
    model : Model

    Returns
    -------
    B : (nv, na) float array of 0 / 1; rows of passive dofs (and of a floating base) are zero.
    """
    act = np.flatnonzero(np.asarray(model.actuated, dtype=bool))
    B = np.zeros((model.nv, act.size))
    B[act, np.arange(act.size)] = 1.0
    return B


def sign(x):
    """sign(x) with sign(0) = 0, dtype-generic: the real part's sign for complex (complex step),
    ``sympy.sign`` for object arrays."""
    x = np.asarray(x)
    if x.dtype == object:
        import sympy
        return np.vectorize(sympy.sign, otypes=[object])(x)
    if np.issubdtype(x.dtype, np.complexfloating):
        return np.sign(x.real)
    return np.sign(x)


def _friction_torque(model, V):
    """damping * v + coulomb * sign(v) for a batch V (N, nv); terms with zero coefficients are
    left out so that symbolic results stay clean."""
    tau = np.zeros(V.shape, dtype=V.dtype) if V.dtype == object else np.zeros(V.shape, dtype=np.result_type(V, float))
    if np.any(model.damping):
        tau = tau + model.damping * V
    if np.any(model.coulomb):
        tau = tau + model.coulomb * sign(V)
    return tau


def friction_torque(model: Model, v: ArrayLike) -> Array:
    """Joint friction torque ``damping * v + coulomb * sign(v)`` (nv,) or (N, nv).

    It opposes the motion: the actuators must supply it on top of ``M a + h``.
    """
    V, single = as_batch(model, v, "v", "nv")
    return unbatch(_friction_torque(model, V), single)
