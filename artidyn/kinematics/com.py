"""Centre of mass of the whole system, its velocity, acceleration and Jacobian.

Mass-weighted over the moving bodies 1..nb (``model.mass``, ``model.com`` with the fixed bodies
lumped in); the world row 0 (bodies welded to the ground) does not move and is excluded, as in
``model.total_mass`` and pinocchio's ``centerOfMass``:

    c = (1 / M) sum_i m_i (R_0i c_i + p_0i),   M = sum_i m_i.

The CoM Jacobian uses the subtree sums (one backward pass): joint ``j`` with world unit twist
``[w; v_0]`` (about the world origin) moves the CoM at ``(M_j v_0 + w x h_j) / M``, where ``M_j`` and
``h_j = sum_{i in subtree(j)} m_i c_i^world`` are the mass and first moment of j's subtree.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import as_q, unbatch
from ..errors import ModelError
from ..spatial._num import cross, matvec
from .jacobians import _columns, _joint_twists_world
from .placements import _joint_transforms, _placements, _placements_from, _states
from .velocities import _body_accelerations, _body_velocities

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def _total_mass(model):
    M = float(np.sum(model.mass[1:]))
    if not M > 0:
        raise ModelError(f"model '{model.name}' has no moving mass: its centre of mass is undefined")
    return M


def _com_world(model, T):
    """World coordinates of every body's centre of mass: (N, nb+1, 3)."""
    return matvec(T[..., :3, :3], model.com) + T[..., :3, 3]


def center_of_mass(model: Model, q: ArrayLike) -> Array:
    """Centre of mass of the moving bodies in world coordinates: (3,) or (N, 3)."""
    Q, single = as_q(model, q)
    c = _com_world(model, _placements(model, Q))
    M = _total_mass(model)
    return unbatch(np.einsum("i,nij->nj", model.mass[1:], c[:, 1:]) / M, single)


def com_velocity(model: Model, q: ArrayLike, v: ArrayLike) -> Array:
    """Velocity of the centre of mass in world coordinates: (3,) or (N, 3).

    Body by body: the world velocity of each body's centre ``R_0i (v_i + omega_i x c_i)``.
    """
    Q, (V,), single = _states(model, q, v=v)
    T_up = _joint_transforms(model, Q)
    T = _placements_from(model, T_up)
    vb = _body_velocities(model, T_up, V)
    v_c = vb[..., 3:] + cross(vb[..., :3], model.com)
    v_c = matvec(T[..., :3, :3], v_c)
    return unbatch(np.einsum("i,nij->nj", model.mass[1:], v_c[:, 1:]) / _total_mass(model), single)


def com_acceleration(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike) -> Array:
    """Acceleration of the centre of mass in world coordinates (gravity excluded): (3,) or (N, 3).

    Each body's centre accelerates at ``R_0i (a_sp + omega_dot x c + omega x (v + omega x c))``.
    """
    Q, (V, A), single = _states(model, q, v=v, a=a)
    T_up = _joint_transforms(model, Q)
    T = _placements_from(model, T_up)
    vb = _body_velocities(model, T_up, V)
    ab = _body_accelerations(model, T_up, vb, V, A)
    w, c = vb[..., :3], model.com
    v_c = vb[..., 3:] + cross(w, c)
    a_c = matvec(T[..., :3, :3], ab[..., 3:] + cross(ab[..., :3], c) + cross(w, v_c))
    return unbatch(np.einsum("i,nij->nj", model.mass[1:], a_c[:, 1:]) / _total_mass(model), single)


def com_jacobian(model: Model, q: ArrayLike) -> Array:
    """Jacobian of the centre of mass (world coordinates): (3, nv) or (N, 3, nv).

    Empty, (3, 0), for a model without degrees of freedom (as pinocchio): no column to fill,
    although the centre of mass of no moving body is undefined."""
    Q, single = as_q(model, q)
    if model.nv == 0:
        return unbatch(np.zeros((Q.shape[0], 3, 0)), single)
    T = _placements(model, Q)
    M = _total_mass(model)
    # subtree masses and first moments, leaves to root
    M_sub = np.array(model.mass, dtype=float)
    h = model.mass[None, :, None] * _com_world(model, T)
    for i in range(model.nb, 0, -1):
        M_sub[model.parent[i]] += M_sub[i]
        h[:, model.parent[i]] += h[:, i]
    J = np.zeros((Q.shape[0], 3, model.nv), dtype=T.dtype)
    for j in range(1, model.nb + 1):
        s = _joint_twists_world(model, T, j)  # (N, nv_j, 6)
        cols = M_sub[j] * s[..., 3:] + cross(s[..., :3], h[:, j][:, None])
        J[:, :, _columns(model, j)] = np.swapaxes(cols, 1, 2) / M
    return unbatch(J, single)
