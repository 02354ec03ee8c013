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
helical (screw)       HELICAL       1    1   angle about ``axis``, with a slide ``pitch * angle``
====================  ===========  ===  ===  ================================================

A cylindrical joint is a revolute and a prismatic joint on the same axis through the same point
(the cylindrical pair of two dof of Khalil & Dombre, "Modeling, Identification and Control of
Robots"): ``T_J = [Rot(axis, q_0), q_1 axis]`` (the rotation leaves the axis fixed, so the
order does not matter) and ``S = [[axis, 0], [0, axis]]``. A helical (screw) joint is the same
pair with the slide tied to the angle, ``d = p theta`` (the screw pair of Khalil & Dombre; the
helical joint of Featherstone, "Rigid Body Dynamics Algorithms", Table 4.1): ``T_J = [Rot(axis,
q), p q axis]`` and ``S = [axis; p axis]`` (``p`` in metres per radian, read back from ``S`` by
:func:`pitch_of`). Revolute, prismatic, cylindrical and helical joints are *flat*: ``q`` and ``v``
have the same entries and ``integrate`` is ``q + v``.

Planar and universal joints are not joint types of their own: :class:`artidyn.ModelBuilder`
(and the URDF reader for ``type="planar"``) builds them as chains of these joints through
massless intermediate bodies (:data:`COMPOSITES`), which gives the same q, v and dynamics as a
single joint with a configuration-dependent ``S``:

* planar, normal ``n`` (``axis``): q = [x, y, theta], two prismatic joints along the in-plane
  axes ``e1, e2`` (:func:`plane_axes`), then a revolute joint about ``n``; the body sits at
  ``x e1 + y e2`` turned by ``Rot(n, theta)`` (pinocchio's JointModelPlanar with q = [x, y,
  cos theta, sin theta], whose v = [R^T (xdot, ydot), thetadot] is in the body frame: here
  ``v = qdot``).
* universal, axes ``(a1, a2)``: q = [q1, q2], ``R = Rot(a1, q1) Rot(a2, q2)`` (pinocchio's
  JointModelUniversal, the Cardan joint).
"""
import numpy as np

from .spatial import _num
from .spatial.rotations import axis_angle_to_matrix, quat_to_matrix

REVOLUTE, PRISMATIC, SPHERICAL, FREE, CYLINDRICAL, HELICAL = 0, 1, 2, 3, 4, 5
JOINT_NAMES = {REVOLUTE: "revolute", PRISMATIC: "prismatic", SPHERICAL: "spherical", FREE: "free",
               CYLINDRICAL: "cylindrical", HELICAL: "helical"}
JOINT_CODES = {
    "revolute": REVOLUTE, "continuous": REVOLUTE, "prismatic": PRISMATIC,
    "spherical": SPHERICAL, "ball": SPHERICAL, "free": FREE, "floating": FREE,
    "cylindrical": CYLINDRICAL, "helical": HELICAL, "screw": HELICAL,
}
NQ = {REVOLUTE: 1, PRISMATIC: 1, SPHERICAL: 4, FREE: 7, CYLINDRICAL: 2, HELICAL: 1}
NV = {REVOLUTE: 1, PRISMATIC: 1, SPHERICAL: 3, FREE: 6, CYLINDRICAL: 2, HELICAL: 1}
FLAT = (REVOLUTE, PRISMATIC, CYLINDRICAL, HELICAL)  # q and v alike (nq == nv), q (+) v = q + v
COMPOSITES = {"planar": 3, "universal": 2}  # built as chains of 1-dof joints (nv each), see above


def plane_axes(normal):
    """Two unit vectors ``(e1, e2)`` spanning the plane of unit normal ``n`` with ``e1 x e2 = n``:
    x and y for n = z (in general the first two columns of the rotation taking z to n along the
    shortest arc, n = -z: a half turn about x)."""
    n = np.asarray(normal, dtype=float)
    b = -n if n[2] < 0 else n
    K = np.array([[0.0, 0.0, b[0]], [0.0, 0.0, b[1]], [-b[0], -b[1], 0.0]])
    R = np.eye(3) + K + K @ K / (1.0 + b[2])
    if n[2] < 0:
        R = R @ np.diag([1.0, -1.0, -1.0])
    return R[:, 0], R[:, 1]


def pitch_of(jtype, S):
    """The pitch p (m / rad) of a helical joint from its ``S = [a; p a]``; 0 for other types."""
    if jtype != HELICAL:
        return 0.0
    S = np.asarray(S, dtype=float)
    return float(S[3:, 0] @ S[:3, 0])


def motion_subspace(jtype, axis, pitch=0.0):
    """S (6 x nv) in the body frame (``pitch``: helical joints only)."""
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
    if jtype == HELICAL:
        return np.concatenate([axis, pitch * np.asarray(axis, dtype=float)])[:, None]
    raise ValueError(f"unknown joint type code {jtype}")


def joint_transform(jtype, axis, qi, pitch=0.0):
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
    elif jtype == HELICAL:
        T[:, :3, :3] = axis_angle_to_matrix(axis, qi[:, 0])
        T[:, :3, 3] = (pitch * qi[:, :1]) * axis
    else:
        raise ValueError(f"unknown joint type code {jtype}")
    return T


def jcalc(model, i, q):
    """(T_J, S) of joint ``i`` for a batch ``q`` of shape (N, nq)."""
    qi = q[:, model.idx_q[i]: model.idx_q[i] + model.nq_joint[i]]
    t = model.joint_type[i]
    return joint_transform(t, model.joint_axis[i], qi, pitch_of(t, model.S[i])), model.S[i]
