"""Rotations: elementary rotations, Rodrigues, quaternions (x, y, z, w), exp/log maps, rpy.

The "matrice de passage" P of J. Reuss ("Modélisation des robots", French Wikipedia draft,
2013) is the rotation matrix R whose columns are the axes of the new frame in the old one.
Functions accept leading batch axes. Quaternions are scalar-last ``(x, y, z, w)`` as in scipy
and pinocchio.
"""
import warnings

import numpy as np

from ._num import cos, sin
from .motion import skew

QUAT_TOL = 1e-6  # default tolerance on |q| - 1 before a quaternion is refused


def _rot(axis, angle):
    angle = np.asarray(angle)
    c, s = cos(angle), sin(angle)
    o, z = np.ones_like(c), np.zeros_like(c)
    if axis == 0:
        rows = [[o, z, z], [z, c, -s], [z, s, c]]
    elif axis == 1:
        rows = [[c, z, s], [z, o, z], [-s, z, c]]
    else:
        rows = [[c, -s, z], [s, c, z], [z, z, o]]
    return np.stack([np.stack(r, -1) for r in rows], -2)


def rotx(angle):
    """Rotation about x by ``angle`` (rad)."""
    return _rot(0, angle)


def roty(angle):
    """Rotation about y by ``angle`` (rad)."""
    return _rot(1, angle)


def rotz(angle):
    """Rotation about z by ``angle`` (rad)."""
    return _rot(2, angle)


def axis_angle_to_matrix(axis, angle):
    """Rodrigues: P = 1 + [u] sin(phi) + [u]^2 (1 - cos(phi)), ``u`` a unit axis."""
    u = np.asarray(axis)
    angle = np.asarray(angle)
    U = skew(u)
    s = sin(angle)[..., None, None]
    c = cos(angle)[..., None, None]
    return np.eye(3) + U * s + (U @ U) * (1 - c)


def exp3(w):
    """Rotation matrix of the rotation vector ``w`` (axis * angle), stable near zero."""
    w = np.asarray(w, dtype=float)
    th = np.linalg.norm(w, axis=-1)
    small = th < 1e-8
    ths = np.where(small, 1.0, th)
    a = np.where(small, 1 - th**2 / 6, np.sin(ths) / ths)
    b = np.where(small, 0.5 - th**2 / 24, (1 - np.cos(ths)) / ths**2)
    W = skew(w)
    return np.eye(3) + a[..., None, None] * W + b[..., None, None] * (W @ W)


def log3(R):
    """Rotation vector (axis * angle, angle in [0, pi]) of a rotation matrix."""
    R = np.asarray(R, dtype=float)
    tr = np.clip((np.trace(R, axis1=-2, axis2=-1) - 1) / 2, -1.0, 1.0)
    th = np.arccos(tr)
    v = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0], R[..., 1, 0] - R[..., 0, 1]], -1)
    small = th < 1e-6
    s = np.sin(th)
    factor = np.where(small, 0.5 + th**2 / 12, th / (2 * np.where(small, 1.0, s)))
    w = factor[..., None] * v
    # near pi the antisymmetric part vanishes: use the symmetric part (via the quaternion)
    near_pi = th > np.pi - 1e-3
    if np.any(near_pi):
        q = matrix_to_quat(R)
        wq = quat_to_rotvec(q)
        w = np.where(near_pi[..., None], wq, w)
    return w


def quat_to_rotvec(q):
    """Rotation vector of a unit quaternion (x, y, z, w), angle in [0, pi]."""
    q = np.asarray(q, dtype=float)
    q = np.where(q[..., 3:4] < 0, -q, q)
    n = np.linalg.norm(q[..., :3], axis=-1)
    ang = 2 * np.arctan2(n, q[..., 3])
    small = n < 1e-12
    f = np.where(small, 2.0 / np.where(q[..., 3] == 0, 1, q[..., 3]), ang / np.where(small, 1.0, n))
    return f[..., None] * q[..., :3]


def rotvec_to_quat(w):
    """Unit quaternion (x, y, z, w) of a rotation vector."""
    w = np.asarray(w, dtype=float)
    th = np.linalg.norm(w, axis=-1)
    small = th < 1e-8
    k = np.where(small, 0.5 - th**2 / 48, np.sin(th / 2) / np.where(small, 1.0, th))
    return np.concatenate([k[..., None] * w, np.cos(th / 2)[..., None]], -1)


def quat_to_matrix(q):
    """Rotation matrix of a unit quaternion (x, y, z, w). Works on any dtype."""
    q = np.asarray(q)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
            np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
            np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def matrix_to_quat(R):
    """Unit quaternion (x, y, z, w) with w >= 0 of a rotation matrix (Shepperd's method)."""
    R = np.asarray(R, dtype=float)
    shape = R.shape[:-2]
    R = R.reshape(-1, 3, 3)
    tr = np.trace(R, axis1=-2, axis2=-1)
    d = np.stack([R[:, 0, 0], R[:, 1, 1], R[:, 2, 2], tr], -1)
    k = np.argmax(d, axis=-1)
    q = np.empty((R.shape[0], 4))
    for case in range(4):
        m = k == case
        if not np.any(m):
            continue
        r = R[m]
        if case == 3:
            s = np.sqrt(1 + tr[m]) * 2
            q[m] = np.stack([(r[:, 2, 1] - r[:, 1, 2]) / s, (r[:, 0, 2] - r[:, 2, 0]) / s,
                             (r[:, 1, 0] - r[:, 0, 1]) / s, s / 4], -1)
        else:
            i, j, kk = case, (case + 1) % 3, (case + 2) % 3
            s = np.sqrt(1 + r[:, i, i] - r[:, j, j] - r[:, kk, kk]) * 2
            out = np.empty((r.shape[0], 4))
            out[:, i] = s / 4
            out[:, j] = (r[:, j, i] + r[:, i, j]) / s
            out[:, kk] = (r[:, kk, i] + r[:, i, kk]) / s
            out[:, 3] = (r[:, kk, j] - r[:, j, kk]) / s
            q[m] = out
    q = np.where(q[:, 3:4] < 0, -q, q)
    return q.reshape(shape + (4,))


def quat_multiply(q1, q2):
    """Hamilton product q1 * q2 (x, y, z, w): the rotation q2 applied after q1 in body axes."""
    q1 = np.asarray(q1)
    q2 = np.asarray(q2)
    x1, y1, z1, w1 = (q1[..., i] for i in range(4))
    x2, y2, z2, w2 = (q2[..., i] for i in range(4))
    return np.stack(
        [
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        ],
        -1,
    )


def quat_conjugate(q):
    """Conjugate (inverse of a unit quaternion)."""
    q = np.asarray(q)
    return np.concatenate([-q[..., :3], q[..., 3:]], -1)


def rpy_to_matrix(rpy):
    """URDF roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll) (fixed axes x, then y, then z)."""
    rpy = np.asarray(rpy)
    return rotz(rpy[..., 2]) @ roty(rpy[..., 1]) @ rotx(rpy[..., 0])


def matrix_to_rpy(R, return_flag=False):
    """Inverse of :func:`rpy_to_matrix`: the extrinsic ``"xyz"`` angles (roll, pitch, yaw).

    Pitch in [-pi/2, pi/2], roll and yaw in (-pi, pi]. At gimbal lock (pitch = +/- pi/2) yaw is
    set to 0 and a :class:`~artidyn.spatial.euler.GimbalLockWarning` is issued, unless
    ``return_flag`` is True, which also returns the boolean lock flags (see
    :func:`~artidyn.spatial.euler.matrix_to_euler`).
    """
    from .euler import GimbalLockWarning, matrix_to_euler

    rpy, lock = matrix_to_euler(R, "xyz", return_flag=True)
    if return_flag:
        return rpy, lock
    if np.any(lock):
        warnings.warn(f"gimbal lock in matrix_to_rpy ({int(np.sum(lock))} of {lock.size} matrices): "
                      "pitch = +/- pi/2, roll and yaw not unique; yaw was set to 0",
                      GimbalLockWarning, stacklevel=2)
    return rpy


def exp6(nu):
    """SE(3) exponential of a twist ``[omega; v]`` (body frame): a 4x4 transform."""
    nu = np.asarray(nu, dtype=float)
    w, v = nu[..., :3], nu[..., 3:]
    th = np.linalg.norm(w, axis=-1)
    small = th < 1e-6
    ths = np.where(small, 1.0, th)
    b = np.where(small, 0.5 - th**2 / 24, (1 - np.cos(ths)) / ths**2)
    c = np.where(small, 1.0 / 6 - th**2 / 120, (ths - np.sin(ths)) / ths**3)
    W = skew(w)
    V = np.eye(3) + b[..., None, None] * W + c[..., None, None] * (W @ W)
    T = np.zeros(nu.shape[:-1] + (4, 4))
    T[..., :3, :3] = exp3(w)
    T[..., :3, 3] = (V @ v[..., None])[..., 0]
    T[..., 3, 3] = 1
    return T


def log6(T):
    """SE(3) logarithm: the twist ``[omega; v]`` with exp6(log6(T)) == T."""
    T = np.asarray(T, dtype=float)
    w = log3(T[..., :3, :3])
    th = np.linalg.norm(w, axis=-1)
    small = th < 1e-6
    ths = np.where(small, 1.0, th)
    # V^-1 = I - W/2 + (1/th^2)(1 - (th/2) cot(th/2)) W^2
    coef = np.where(small, 1.0 / 12 + th**2 / 720,
                    (1 - (ths / 2) * np.cos(ths / 2) / np.where(small, 1.0, np.sin(ths / 2))) / ths**2)
    W = skew(w)
    Vinv = np.eye(3) - 0.5 * W + coef[..., None, None] * (W @ W)
    v = (Vinv @ T[..., :3, 3][..., None])[..., 0]
    return np.concatenate([w, v], -1)


def check_quaternion(q, name="quaternion", tol=QUAT_TOL, where=""):
    """Normalise quaternions whose norm is within ``tol`` of 1; refuse the others with a clear error."""
    from ..errors import InputError

    q = np.asarray(q, dtype=float)
    n = np.linalg.norm(q, axis=-1)
    bad = np.abs(n - 1) > tol
    if np.any(bad):
        idx = np.argwhere(np.atleast_1d(bad))[0]
        val = np.atleast_1d(n)[tuple(idx)]
        loc = f" (state {tuple(int(i) for i in idx)})" if np.ndim(n) else ""
        raise InputError(
            f"{name}{where} is not a unit quaternion (x, y, z, w): norm {val:.9g}{loc}, "
            f"allowed 1 +/- {tol:g}; normalise it or use artidyn.integrate to move on the sphere"
        )
    return q / n[..., None]
