"""Joint models: data (a type code, an axis) plus one ``jcalc`` dispatcher.

A joint ``i`` connects body ``parent[i]`` to body ``i``. Its placement at q = 0 in the parent
body frame is ``joint_placement[i]`` (4x4); the body frame of ``i`` is the joint frame moved by
the joint transform ``T_J(q_i)``. The motion subspace ``S`` (6 x nv_i) is expressed in the body
frame and is constant for every joint type here, so that the velocity across the joint is
``S v_i`` and the acceleration ``S a_i`` (no ``S-dot`` term).

====================  ===========  ===  ===  ================================================
type                  code         nq   nv   q / v
====================  ===========  ===  ===  ================================================
revolute              REVOLUTE      1    1   angle about ``axis`` (continuous: no limits)
prismatic             PRISMATIC     1    1   displacement along ``axis``
spherical             SPHERICAL     4    3   quaternion (x, y, z, w) / omega in body frame
free (root_joint)     FREE          7    6   [p_world, quaternion] / [omega_body, v_body]
cylindrical           CYLINDRICAL   2    2   [angle about ``axis``, displacement along it]
====================  ===========  ===  ===  ================================================

A cylindrical joint is a revolute and a prismatic joint on the same axis through the same point
(the cylindrical pair of two dof of Khalil & Dombre, "Modeling, Identification and Control of
Robots"): ``T_J = [Rot(axis, q_0), q_1 axis]`` (the rotation leaves the axis fixed, so the
order does not matter) and ``S = [[axis, 0], [0, axis]]``. Revolute, prismatic and cylindrical
joints are *flat*: ``q`` and ``v`` have the same entries and ``integrate`` is ``q + v``.
"""
import numpy as np

from .spatial import _num
from .spatial.rotations import axis_angle_to_matrix, quat_to_matrix

REVOLUTE, PRISMATIC, SPHERICAL, FREE, CYLINDRICAL = 0, 1, 2, 3, 4
JOINT_NAMES = {REVOLUTE: "revolute", PRISMATIC: "prismatic", SPHERICAL: "spherical", FREE: "free",
               CYLINDRICAL: "cylindrical"}
JOINT_CODES = {
    "revolute": REVOLUTE, "continuous": REVOLUTE, "prismatic": PRISMATIC,
    "spherical": SPHERICAL, "ball": SPHERICAL, "free": FREE, "floating": FREE,
    "cylindrical": CYLINDRICAL,
}
NQ = {REVOLUTE: 1, PRISMATIC: 1, SPHERICAL: 4, FREE: 7, CYLINDRICAL: 2}
NV = {REVOLUTE: 1, PRISMATIC: 1, SPHERICAL: 3, FREE: 6, CYLINDRICAL: 2}
FLAT = (REVOLUTE, PRISMATIC, CYLINDRICAL)  # q and v alike (nq == nv), q (+) v = q + v


def motion_subspace(jtype, axis):
    """S (6 x nv) in the body frame."""
    if jtype == REVOLUTE:
        return np.concatenate([axis, np.zeros(3)])[:, None]
    if jtype == PRISMATIC:
        return np.concatenate([np.zeros(3), axis])[:, None]
    if jtype == SPHERICAL:
        return np.vstack([np.eye(3), np.zeros((3, 3))])
    if jtype == FREE:
        return np.eye(6)
    if jtype == CYLINDRICAL:
        S = np.zeros((6, 2))
        S[:3, 0], S[3:, 1] = axis, axis
        return S
    raise ValueError(f"unknown joint type code {jtype}")


def joint_transform(jtype, axis, qi):
    """T_J(q_i): the joint's 4x4 transform; ``qi`` has shape (N, nq_i). Returns (N, 4, 4)."""
    N = qi.shape[0]
    dtype = _num.result_dtype(qi)
    T = np.zeros((N, 4, 4), dtype=dtype)
    T[:, 3, 3] = 1
    if jtype == REVOLUTE:
        T[:, :3, :3] = axis_angle_to_matrix(axis, qi[:, 0])
    elif jtype == PRISMATIC:
        T[:, :3, :3] = np.eye(3)
        T[:, :3, 3] = qi[:, :1] * axis
    elif jtype == SPHERICAL:
        T[:, :3, :3] = quat_to_matrix(qi)
    elif jtype == FREE:
        T[:, :3, :3] = quat_to_matrix(qi[:, 3:7])
        T[:, :3, 3] = qi[:, :3]
    elif jtype == CYLINDRICAL:
        T[:, :3, :3] = axis_angle_to_matrix(axis, qi[:, 0])
        T[:, :3, 3] = qi[:, 1:2] * axis
    else:
        raise ValueError(f"unknown joint type code {jtype}")
    return T


def jcalc(model, i, q):
    """(T_J, S) of joint ``i`` for a batch ``q`` of shape (N, nq)."""
    qi = q[:, model.idx_q[i]: model.idx_q[i] + model.nq_joint[i]]
    return joint_transform(model.joint_type[i], model.joint_axis[i], qi), model.S[i]
