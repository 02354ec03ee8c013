"""Energies and momenta of the whole system (J. Reuss, "Modélisation des robots",
French Wikipedia draft, 2013, "Énergies").

Sums over the moving bodies 1..nb (fixed bodies lumped in, the world row 0 excluded):

* kinetic energy ``T = sum_i 1/2 v_i . I_i v_i + sum_k 1/2 armature_k v_k^2`` with the body
  twist ``v_i`` and 6x6 inertia ``I_i`` in the body frame; this equals König's
  ``1/2 [m |v_G|^2 + omega . I_G omega]`` and ``1/2 v^T M(q) v`` (the rotor term matches the
  ``diag(armature)`` that :func:`~artidyn.dynamics.crba` adds to M);
* potential energy of gravity ``V = - sum_i m_i g . r_i`` with ``r_i`` the world position of
  body i's centre of mass: zero level at the world origin; plus that of the joint springs,
  ``1/2 sum_k stiffness_k (q_k - rest_k)^2`` (zero at the rest position, :mod:`.springs`);
* momentum ``h = sum_i A_0i (I_i v_i)``: the spatial momentum [angular; linear] in world axes,
  the angular part about the world origin; the centroidal momentum is the same taken about
  the centre of mass (pinocchio's ``hg``, angular first). Rotor (armature) momentum is not
  included: the model does not say which way the rotors spin.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import unbatch
from ..kinematics import _body_velocities, _placements_from, _states
from ..spatial._num import cross, matvec
from ..spatial.motion import force_apply
from . import _common
from .springs import _spring_energy

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def _kinetic_energy(model, Q, V):
    """T for a batch: (N,)."""
    v = _body_velocities(model, _common.joint_transforms(model, Q), V)[:, 1:]
    T = 0.5 * np.sum(v * matvec(model.I[1:], v), axis=(1, 2))
    if np.any(model.armature):
        T = T + 0.5 * np.sum(model.armature * V * V, axis=1)
    return T


def _com_positions(model, T):
    """World positions of the bodies' centres of mass r_i: (N, nb+1, 3)."""
    return matvec(T[..., :3, :3], model.com) + T[..., :3, 3]


def _potential_energy(model, Q):
    """V for a batch: (N,), gravity and joint springs."""
    r = _com_positions(model, _placements_from(model, _common.joint_transforms(model, Q)))[:, 1:]
    V = -np.sum(model.mass[1:] * (r @ np.asarray(model.gravity, dtype=float)), axis=1)
    spring = _spring_energy(model, Q)
    return V if spring is None else V + spring


def _momentum(model, Q, V, about_com=False):
    """Spatial momentum [angular; linear] in world axes for a batch: (N, 6)."""
    T_up = _common.joint_transforms(model, Q)
    T = _placements_from(model, T_up)
    v = _body_velocities(model, T_up, V)
    h = np.sum(force_apply(T[:, 1:], matvec(model.I[1:], v[:, 1:])), axis=1)
    if about_com and model.nb:      # no body (nv = 0): no linear momentum, the moment is the same about any point
        m = model.mass[1:]
        c = np.einsum("i,nij->nj", m, _com_positions(model, T)[:, 1:]) / np.sum(m)
        h = np.concatenate([h[:, :3] - cross(c, h[:, 3:]), h[:, 3:]], axis=1)
    return h


def kinetic_energy(model: Model, q: ArrayLike, v: ArrayLike) -> float | Array:
    """Kinetic energy T(q, v) = 1/2 v^T M(q) v (armature included): float or (N,).

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq); v : (nv,) or (N, nv)
    """
    Q, (V,), single = _states(model, q, v=v)
    return unbatch(_kinetic_energy(model, Q, V), single)


def potential_energy(model: Model, q: ArrayLike) -> float | Array:
    """Potential energy V(q) = -sum_i m_i g . r_i (gravity, zero at the world origin) + 1/2 sum_k
    stiffness_k (q_k - rest_k)^2 (joint springs): float or (N,)."""
    Q, _, single = _states(model, q)
    return unbatch(_potential_energy(model, Q), single)


def mechanical_energy(model: Model, q: ArrayLike, v: ArrayLike) -> float | Array:
    """T + V (gravity and springs): float or (N,). Constant along a motion without friction or actuation."""
    Q, (V,), single = _states(model, q, v=v)
    return unbatch(_kinetic_energy(model, Q, V) + _potential_energy(model, Q), single)


def momentum(model: Model, q: ArrayLike, v: ArrayLike) -> Array:
    """Total spatial momentum [angular about the world origin; linear] in world axes: (6,) or (N, 6).

    Its time derivative is the total external wrench (gravity, joint reactions of the world,
    f_ext) about the world origin.
    """
    Q, (V,), single = _states(model, q, v=v)
    return unbatch(_momentum(model, Q, V), single)


def centroidal_momentum(model: Model, q: ArrayLike, v: ArrayLike) -> Array:
    """Spatial momentum [angular about the centre of mass; linear] in world axes: (6,) or (N, 6).

    Same as pinocchio's ``computeCentroidalMomentum`` (``hg``) with the angular part first. A model
    without degrees of freedom has none: zero (pinocchio: NaN, its centre of mass being undefined).
    """
    Q, (V,), single = _states(model, q, v=v)
    return unbatch(_momentum(model, Q, V, about_com=True), single)
