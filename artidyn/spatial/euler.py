"""Euler (6 proper orders) and Tait-Bryan (6 orders) angles, intrinsic or extrinsic.

J. Reuss ("Modélisation des robots", French Wikipedia draft, 2013) lists the orders: proper
Euler z-x-z, x-y-x, y-z-y, z-y-z, x-z-x, y-x-y (precession - nutation - proper rotation) and
Tait-Bryan x-y-z, y-z-x, z-x-y, x-z-y, z-y-x, y-x-z (Cardan's
yaw-pitch-roll being z-y-x). The ``order`` string follows scipy's ``Rotation.from_euler``:

* uppercase, e.g. ``"ZYX"``: intrinsic (rotating axes), ``R = R_Z(a0) R_Y(a1) R_X(a2)``;
* lowercase, e.g. ``"zyx"``: extrinsic (fixed axes), ``R = R_x(a2) R_y(a1) R_z(a0)``.

An extrinsic sequence is the intrinsic sequence of the reversed axes with the angles reversed,
so every extraction is done on an intrinsic sequence ``(i, j, k)``.

Extraction (:func:`matrix_to_euler`) is done on the unit quaternion of ``R`` with half angles,
which keeps it accurate everywhere, including next to gimbal lock:

1. Relabel the axes so that ``i -> x``, ``j -> y`` (and ``k -> z`` or ``k = i -> x``). The
   relabelling matrix ``Pi`` has ``det Pi = s = +/-1``; since ``Pi [u] Pi^T = s [Pi u]``, a
   rotation by ``a`` about axis ``i`` becomes a rotation by ``s a`` about ``x``. On the
   quaternion: ``q' = (s Pi q_xyz, q_w)``.
2. A Tait-Bryan sequence ``X(a) Y(b) Z(c)`` is turned into the proper sequence
   ``X(a) Y(b + pi/2) X(-c)`` by right-multiplying with ``Y(pi/2)``, because
   ``Z(c) = Y(pi/2) X(-c) Y(-pi/2)``.
3. For the proper sequence ``X(a) Y(b) X(c)`` the quaternion is
   ``w = cos(b/2) cos(p), x = cos(b/2) sin(p), y = sin(b/2) cos(m), z = sin(b/2) sin(m)``
   with ``p = (a + c)/2``, ``m = (a - c)/2``, so
   ``b = 2 atan2(hypot(y, z), hypot(w, x))`` in [0, pi], ``p = atan2(x, w)``, ``m = atan2(z, y)``,
   ``a = p + m``, ``c = p - m``. The sign ambiguity ``q ~ -q`` shifts ``p`` and ``m`` by pi
   together, which changes ``a`` by 2 pi and leaves ``c``: no branch to choose.

Ranges: first and third angles in (-pi, pi]; the middle one in [0, pi] (proper Euler) or
[-pi/2, pi/2] (Tait-Bryan). At gimbal lock (middle angle 0 or pi for proper Euler, +/- pi/2 for
Tait-Bryan) only the sum or the difference of the first and third angles is defined: the third
angle of the returned array is set to 0 and the first one carries the rotation.
"""
import warnings

import numpy as np

from .rotations import matrix_to_quat, rotx, roty, rotz

PROPER_ORDERS = ("zxz", "xyx", "yzy", "zyz", "xzx", "yxy")
TAIT_BRYAN_ORDERS = ("xyz", "yzx", "zxy", "xzy", "zyx", "yxz")
GIMBAL_TOL = 1e-8  # |middle angle - singular value| below which an extraction is flagged


class GimbalLockWarning(UserWarning):
    """Euler / Tait-Bryan angles at gimbal lock: the first and third angles are not unique."""


_AXIS = {"x": 0, "y": 1, "z": 2}
_ROT = (rotx, roty, rotz)


def parse_order(order):
    """Check an order string; return (axes (i, j, k) as ints, intrinsic, proper).

    ``order`` is three letters among x, y, z, all uppercase (intrinsic) or all lowercase
    (extrinsic), with no two consecutive axes equal.
    """
    if not isinstance(order, str) or len(order) != 3 or order.lower() not in PROPER_ORDERS + TAIT_BRYAN_ORDERS \
            or not (order.isupper() or order.islower()):
        raise ValueError(
            f"Euler order {order!r} not understood: use one of the 6 proper orders "
            f"{', '.join(PROPER_ORDERS)} or the 6 Tait-Bryan orders {', '.join(TAIT_BRYAN_ORDERS)}, "
            "uppercase for intrinsic (rotating axes), lowercase for extrinsic (fixed axes)"
        )
    axes = tuple(_AXIS[c] for c in order.lower())
    return axes, order.isupper(), axes[0] == axes[2]


def _check_angles(angles, order):
    angles = np.asarray(angles)
    if angles.shape[-1:] != (3,):
        from ..errors import ShapeError

        raise ShapeError(f"Euler angles for order {order!r} must have shape (..., 3), got {angles.shape}")
    return angles


def euler_to_matrix(angles, order):
    """Rotation matrix of three Euler / Tait-Bryan angles.

    Parameters
    ----------
    angles : array (..., 3)
        Angles (rad), in the order of the sequence letters.
    order : str
        E.g. ``"ZXZ"`` (intrinsic: ``R = R_Z(a0) R_X(a1) R_Z(a2)``) or ``"zyx"`` (extrinsic:
        ``R = R_x(a2) R_y(a1) R_z(a0)``).

    Returns
    -------
    R : array (..., 3, 3)
        Columns: the axes of the rotated frame in the fixed frame (the "matrice de passage" P).
        Any dtype (float, complex, SymPy objects).
    """
    axes, intrinsic, _ = parse_order(order)
    angles = _check_angles(angles, order)
    R1, R2, R3 = (_ROT[a](angles[..., n]) for n, a in enumerate(axes))
    return R1 @ R2 @ R3 if intrinsic else R3 @ R2 @ R1


def _wrap(a):
    """Angle to (-pi, pi]."""
    return np.pi - np.mod(np.pi - a, 2 * np.pi)


def _intrinsic_angles(q, axes, zero_first, tol):
    """Angles (a, b, c) of the intrinsic sequence ``axes`` from quaternions (..., 4) (x, y, z, w).

    At gimbal lock the angle ``a`` (``zero_first``) or ``c`` is set to 0.
    Returns (angles (..., 3), lock (...)).
    """
    i, j, k = axes
    proper = i == k
    if proper:
        k = 3 - i - j
    # 1. relabel i -> x, j -> y, k -> z: q' = (s Pi q_xyz, w), s = det Pi (+1 for cyclic (i, j, k))
    s = 1.0 if (j - i) % 3 == 1 else -1.0
    x, y, z, w = s * q[..., i], s * q[..., j], s * q[..., k], q[..., 3]
    if not proper:
        # 2. q'' = q' * q_Y(pi/2), q_Y(pi/2) = (0, r, 0, r) with r = 1/sqrt(2)
        r = np.sqrt(0.5)
        x, y, z, w = r * (x - z), r * (y + w), r * (z + x), r * (w - y)
    # 3. proper X(a) Y(b) X(c)
    b = 2 * np.arctan2(np.hypot(y, z), np.hypot(w, x))
    p = np.arctan2(x, w)
    m = np.arctan2(z, y)
    lock0 = np.abs(b) <= tol
    lockpi = np.abs(b - np.pi) <= tol
    a = p + m
    c = p - m
    if proper and s < 0:
        # the final middle angle s b must lie in [0, pi]: use X(a + pi) Y(-b) X(c + pi) == X(a) Y(b) X(c)
        a, b, c = a + np.pi, -b, c + np.pi
    # gimbal lock: only p = (a + c)/2 (b = 0) or m = (a - c)/2 (b = pi) is defined
    if zero_first:
        a = np.where(lock0 | lockpi, 0.0, a)
        c = np.where(lock0, 2 * p, np.where(lockpi, -2 * m, c))
    else:
        c = np.where(lock0 | lockpi, 0.0, c)
        a = np.where(lock0, 2 * p, np.where(lockpi, 2 * m, a))
    if not proper:
        b = b - np.pi / 2
        c = -c
    angles = s * np.stack([_wrap(a), b, _wrap(c)], -1)
    return angles, lock0 | lockpi


def matrix_to_euler(R, order, return_flag=False, tol=GIMBAL_TOL):
    """Euler / Tait-Bryan angles of rotation matrices (inverse of :func:`euler_to_matrix`).

    Parameters
    ----------
    R : array (..., 3, 3)
        Rotation matrices.
    order : str
        Intrinsic (uppercase) or extrinsic (lowercase) sequence, as :func:`euler_to_matrix`.
    return_flag : bool
        Also return the gimbal-lock flags; no warning is issued then.
    tol : float
        A middle angle within ``tol`` (rad) of its singular values is flagged as gimbal lock;
        the returned angles then reproduce ``R`` to about ``2 tol``.

    Returns
    -------
    angles : array (..., 3)
        First and third angles in (-pi, pi]; middle angle in [0, pi] (proper Euler) or
        [-pi/2, pi/2] (Tait-Bryan). At gimbal lock ``angles[..., 2] = 0``.
    lock : bool array (...)
        Only with ``return_flag=True``.

    Warns
    -----
    GimbalLockWarning
        When some matrix is at gimbal lock and ``return_flag`` is False.
    """
    axes, intrinsic, _ = parse_order(order)
    R = np.asarray(R, dtype=float)
    if R.shape[-2:] != (3, 3):
        from ..errors import ShapeError

        raise ShapeError(f"rotation matrices must have shape (..., 3, 3), got {R.shape}")
    if not np.all(np.isfinite(R)):
        from ..errors import InputError

        raise InputError("matrix_to_euler: rotation matrix contains NaN or infinite values")
    q = matrix_to_quat(R)
    if intrinsic:
        angles, lock = _intrinsic_angles(q, axes, zero_first=False, tol=tol)
    else:
        # extrinsic (i, j, k) with angles (a0, a1, a2) = intrinsic (k, j, i) with (a2, a1, a0)
        angles, lock = _intrinsic_angles(q, axes[::-1], zero_first=True, tol=tol)
        angles = angles[..., ::-1]
    if return_flag:
        return angles, lock
    if np.any(lock):
        warnings.warn(
            f"gimbal lock in matrix_to_euler (order {order!r}, {int(np.sum(lock))} of {lock.size} "
            "matrices): the first and third angles are not unique; the third was set to 0",
            GimbalLockWarning, stacklevel=2,
        )
    return angles
