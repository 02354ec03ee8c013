"""Frame Jacobians and their time derivatives.

Column ``k`` of the Jacobian of a frame with origin ``p`` (world coordinates) holds, for each dof
of a joint ``j`` on the path to the root, the joint's unit twist ``s = [w; v_0] = X_0j S_j[:, k]``
(world axes, about the world origin) moved to the frame origin: ``[w; v_0 + w x p]``.

Its time derivative follows from ``d/dt s = V_j (.) s`` (a body-fixed motion vector, ``V_j`` the
twist of body ``j`` in world coordinates about the world origin: the derivative of a motion vector
fixed in a moving body, Featherstone's ``S_dot = v x S``) and
``d/dt p = v_p`` (the world velocity of the frame origin)::

    Jdot[:, k] = [w_dot; v0_dot + w_dot x p + w x v_p],   [w_dot; v0_dot] = V_j (.) s.

In frame axes (``J_local = diag(R^T, R^T) J_world``, ``R_dot = R [omega_local]``):
``Jdot_local = diag(R^T, R^T) Jdot_world - omega_local x J_local`` (column-wise, both halves).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import as_q, unbatch
from ..spatial._num import cross, matvec
from ..spatial.motion import cross_motion, motion_apply
from .placements import (_check_expressed, _frame_on_body, _joint_transforms, _placements,
                         _placements_from, _states)
from .velocities import _body_velocities
from ..kernels import dispatch as _kernels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, FrameLike, Model


def _joint_twists_world(model, T, j):
    """Unit twists of joint j's dofs in world coordinates about the world origin: (N, nv_j, 6)."""
    return motion_apply(T[:, j][:, None], model.S[j].T[None])


def _columns(model, j):
    return slice(int(model.idx_v[j]), int(model.idx_v[j] + model.nv_joint[j]))


def _to_local(R, J):
    """diag(R^T, R^T) J for J (N, 6, n)."""
    Rt = np.swapaxes(R, 1, 2)
    return np.concatenate([Rt @ J[:, :3], Rt @ J[:, 3:]], axis=1)


def _jacobian(model, Q, T, frame, expressed="world", point=None):
    """6 x nv Jacobian of a frame for a batch, from precomputed placements T: (N, 6, nv)."""
    _check_expressed(expressed)
    body, P = _frame_on_body(model, frame, point)
    N = Q.shape[0]
    Tf = T[:, body] @ P
    p = Tf[:, :3, 3]
    J = np.zeros((N, 6, model.nv), dtype=T.dtype)
    for j in model.support(body):
        s = _joint_twists_world(model, T, j)
        w, v0 = s[..., :3], s[..., 3:]
        cols = _columns(model, j)
        J[:, :3, cols] = np.swapaxes(w, 1, 2)
        J[:, 3:, cols] = np.swapaxes(v0 + cross(w, p[:, None, :]), 1, 2)
    return _to_local(Tf[:, :3, :3], J) if expressed == "local" else J


def jacobian(model: Model, q: ArrayLike, frame: FrameLike, expressed: str = "world",
             point: ArrayLike | None = None) -> Array:
    """Jacobian (6 x nv, rows [angular; linear]) of a frame: ``frame_velocity = J v``.

    ``expressed="world"``: angular velocity and velocity of the frame origin (or of ``point``,
    given in frame coordinates), both in world axes (pinocchio's LOCAL_WORLD_ALIGNED).
    ``expressed="local"``: both in the frame's own axes. Returns (6, nv) or (N, 6, nv).
    """
    _check_expressed(expressed)
    J = _kernels.jacobian(model, q, *_frame_on_body(model, frame, point), expressed)  # compiled
    if J is not None:
        return J
    Q, single = as_q(model, q)
    return unbatch(_jacobian(model, Q, _placements(model, Q), frame, expressed, point), single)


def _jacobian_derivative(model, T, vb, frame, expressed="world", point=None):
    """Jdot (N, 6, nv) from placements T and body twists vb (N, nb+1, 6)."""
    _check_expressed(expressed)
    body, P = _frame_on_body(model, frame, point)
    N = T.shape[0]
    Tf = T[:, body] @ P
    R, p = Tf[:, :3, :3], Tf[:, :3, 3]
    V_body = motion_apply(T[:, body], vb[:, body])  # world coordinates, about the world origin
    omega = V_body[:, :3]
    v_p = V_body[:, 3:] + cross(omega, p)  # world velocity of the frame origin
    J = np.zeros((N, 6, model.nv), dtype=np.result_type(T, vb))
    Jd = np.zeros_like(J)
    for j in model.support(body):
        s = _joint_twists_world(model, T, j)
        s_dot = cross_motion(motion_apply(T[:, j], vb[:, j])[:, None], s)  # V_j (.) s
        w, v0, w_d, v0_d = s[..., :3], s[..., 3:], s_dot[..., :3], s_dot[..., 3:]
        cols = _columns(model, j)
        J[:, :3, cols] = np.swapaxes(w, 1, 2)
        J[:, 3:, cols] = np.swapaxes(v0 + cross(w, p[:, None]), 1, 2)
        Jd[:, :3, cols] = np.swapaxes(w_d, 1, 2)
        Jd[:, 3:, cols] = np.swapaxes(v0_d + cross(w_d, p[:, None]) + cross(w, v_p[:, None]), 1, 2)
    if expressed == "world":
        return Jd
    J_l = _to_local(R, J)
    omega_l = matvec(np.swapaxes(R, 1, 2), omega)[:, None]  # (N, 1, 3)
    wJ = np.concatenate([np.swapaxes(cross(omega_l, np.swapaxes(J_l[:, :3], 1, 2)), 1, 2),
                         np.swapaxes(cross(omega_l, np.swapaxes(J_l[:, 3:], 1, 2)), 1, 2)], axis=1)
    return _to_local(R, Jd) - wJ


def jacobian_derivative(model: Model, q: ArrayLike, v: ArrayLike, frame: FrameLike, expressed: str = "world",
                        point: ArrayLike | None = None) -> Array:
    """Time derivative ``Jdot`` (6 x nv) of :func:`jacobian` along the velocity ``v``.

    Computed analytically (module docstring), so that ``d/dt (J v) = J a + Jdot v``;
    ``Jdot v`` equals :func:`jacobian_bias`. Matches pinocchio's getFrameJacobianTimeVariation
    (LOCAL_WORLD_ALIGNED for "world", LOCAL for "local"). Returns (6, nv) or (N, 6, nv).
    """
    Q, (V,), single = _states(model, q, v=v)
    T_up = _joint_transforms(model, Q)
    T = _placements_from(model, T_up)
    return unbatch(_jacobian_derivative(model, T, _body_velocities(model, T_up, V), frame, expressed,
                                        point), single)
