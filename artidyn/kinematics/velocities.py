"""First- and second-order kinematics: body and frame twists and accelerations.

The kinematic ascent of the RNEA (J. Reuss, "Modélisation des robots", French Wikipedia draft,
2013, "Montée cinématique"; Featherstone RBDA Table 5.1), all in body frames::

    V_j    = A^t V_i + S_j qd_j                            (i = lambda(j), the parent)
    Vdot_j = A^t Vdot_i + S_j qdd_j + V_j (.) S_j qd_j

``A^t`` is the motion transform from the parent frame to body ``j`` (``X_up``) and ``(.)`` the
motion cross product. ``S_j`` is constant in the body frame (no S-dot term). Gravity is NOT part
of these accelerations (dynamics adds it as a fictitious base acceleration).

Two accelerations of a frame F with origin O, angular velocity omega and origin velocity v:

* **spatial** ``[omega_dot; a_sp]``: the time derivative of the twist components in F's own
  (moving) axes; ``a_sp`` is NOT the acceleration of the point O.
* **classical** ``[omega_dot; gamma]``: ``gamma = a_sp + omega x v`` is the acceleration of the
  point O, i.e. the time derivative of O's velocity in the world. This is Reuss's
  ``Vdot_1 = [omega_dot; gamma - omega ^ v]`` (RNEA initial conditions).

``expressed="world"`` rotates both parts into world axes (still at the frame origin: pinocchio's
LOCAL_WORLD_ALIGNED); ``expressed="local"`` keeps the frame's own axes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import unbatch
from ..spatial._num import cross, matvec
from ..spatial.motion import cross_motion, motion_apply_inv
from .placements import (_check_expressed, _frame_on_body, _joint_transforms, _placements_from,
                         _states)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, FrameLike, Model

KINDS = ("spatial", "classical")


def _joint_velocity(model, i, V):
    """S_i qd_i for a batch V (N, nv): (N, 6)."""
    k = model.idx_v[i]
    return V[:, k:k + model.nv_joint[i]] @ model.S[i].T


def _body_velocities(model, T_up, V):
    """V_i = A^t V_lambda(i) + S_i qd_i: body twists in body frames, (N, nb+1, 6)."""
    v = np.zeros(T_up.shape[:2] + (6,), dtype=np.result_type(T_up, V))
    for i in range(1, model.nb + 1):
        v[:, i] = motion_apply_inv(T_up[:, i], v[:, model.parent[i]]) + _joint_velocity(model, i, V)
    return v


def _body_accelerations(model, T_up, v, V, A):
    """Vdot_i = A^t Vdot_lambda(i) + S_i qdd_i + V_i (.) S_i qd_i: spatial accelerations, (N, nb+1, 6)."""
    a = np.zeros_like(v, dtype=np.result_type(v, A))
    for i in range(1, model.nb + 1):
        vJ = _joint_velocity(model, i, V)
        a[:, i] = (motion_apply_inv(T_up[:, i], a[:, model.parent[i]]) + _joint_velocity(model, i, A)
                   + cross_motion(v[:, i], vJ))
    return a


def body_velocities(model: Model, q: ArrayLike, v: ArrayLike) -> Array:
    """Twists ``[omega; v_origin]`` of every body in its own frame.

    Parameters
    ----------
    q : (nq,) or (N, nq);  v : (nv,) or (N, nv)

    Returns
    -------
    (nb+1, 6) or (N, nb+1, 6); row 0 (world) is zero.
    """
    Q, (V,), single = _states(model, q, v=v)
    return unbatch(_body_velocities(model, _joint_transforms(model, Q), V), single)


def body_accelerations(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike) -> Array:
    """Spatial accelerations ``[omega_dot; a_sp]`` of every body in its own frame (no gravity).

    Returns (nb+1, 6) or (N, nb+1, 6). ``a_sp`` is the spatial (not classical) linear part.
    """
    Q, (V, A), single = _states(model, q, v=v, a=a)
    T_up = _joint_transforms(model, Q)
    return unbatch(_body_accelerations(model, T_up, _body_velocities(model, T_up, V), V, A), single)


def _to_frame(P, m):
    """A motion vector of the body (body frame) re-expressed at a body-fixed frame P."""
    return motion_apply_inv(P, m)


def _rotate(R, m):
    """Rotate both halves of motion vectors m (N, 6) by R (N, 3, 3)."""
    return np.concatenate([matvec(R, m[:, :3]), matvec(R, m[:, 3:])], -1)


def frame_velocity(model: Model, q: ArrayLike, v: ArrayLike, frame: FrameLike, expressed: str = "world",
                   point: ArrayLike | None = None) -> Array:
    """Twist ``[omega; v_O]`` of a frame: angular velocity and velocity of its origin O.

    Parameters
    ----------
    frame : frame or body name
    expressed : "world" (world axes, pinocchio LOCAL_WORLD_ALIGNED) or "local" (frame axes)
    point : optional (3,) point in frame coordinates used instead of the frame origin

    Returns
    -------
    (6,) or (N, 6). Equals ``jacobian(model, q, frame, expressed, point) @ v``.
    """
    _check_expressed(expressed)
    body, P = _frame_on_body(model, frame, point)
    Q, (V,), single = _states(model, q, v=v)
    T_up = _joint_transforms(model, Q)
    vf = _to_frame(P, _body_velocities(model, T_up, V)[:, body])
    if expressed == "world":
        vf = _rotate((_placements_from(model, T_up)[:, body] @ P)[:, :3, :3], vf)
    return unbatch(vf, single)


def frame_acceleration(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike, frame: FrameLike,
                       expressed: str = "world", kind: str = "spatial", point: ArrayLike | None = None) -> Array:
    """Acceleration of a frame (gravity excluded), rows ``[angular; linear]``.

    kind="spatial": ``[omega_dot; a_sp]``, the derivative of the frame's twist components in its
    own axes (pinocchio getFrameAcceleration). kind="classical": ``[omega_dot; gamma]`` with
    ``gamma = a_sp + omega x v_O`` the acceleration of the frame origin, d/dt of its world velocity
    (pinocchio getFrameClassicalAcceleration). ``expressed`` rotates the result into world axes
    ("world") or keeps the frame's axes ("local"). Returns (6,) or (N, 6).
    """
    _check_expressed(expressed)
    if kind not in KINDS:
        from ..errors import InputError
        raise InputError(f"kind must be 'spatial' or 'classical', got {kind!r}")
    body, P = _frame_on_body(model, frame, point)
    Q, (V, A), single = _states(model, q, v=v, a=a)
    T_up = _joint_transforms(model, Q)
    vb = _body_velocities(model, T_up, V)
    af = _to_frame(P, _body_accelerations(model, T_up, vb, V, A)[:, body])
    if kind == "classical":
        vf = _to_frame(P, vb[:, body])
        af = np.concatenate([af[:, :3], af[:, 3:] + cross(vf[:, :3], vf[:, 3:])], -1)
    if expressed == "world":
        af = _rotate((_placements_from(model, T_up)[:, body] @ P)[:, :3, :3], af)
    return unbatch(af, single)


def jacobian_bias(model: Model, q: ArrayLike, v: ArrayLike, frame: FrameLike, expressed: str = "world",
                  point: ArrayLike | None = None) -> Array:
    """``Jdot v``, the part of the frame acceleration that does not depend on ``a``.

    ``d/dt (J v) = J a + Jdot v`` with ``J = jacobian(..., expressed)``. Hence
    expressed="world": the classical acceleration at a = 0 (world axes);
    expressed="local": the spatial acceleration at a = 0 (the derivative of the local twist
    components; its linear part differs from the origin's acceleration by ``omega x v``).
    Returns (6,) or (N, 6).
    """
    kind = "classical" if expressed == "world" else "spatial"
    a = np.zeros_like(np.asarray(v, dtype=np.result_type(np.asarray(v), float)))
    return frame_acceleration(model, q, v, a, frame, expressed, kind, point)
