"""Homogeneous transforms and 6-D spatial algebra ("notations spatiales" of J. Reuss,
"Modélisation des robots", French Wikipedia draft, 2013; Featherstone, "Rigid Body Dynamics
Algorithms", ch. 2).

Conventions (fixed, see docs/conventions.md): a motion vector is ``[omega; v]``, a force vector is
``[mu; f]``. A homogeneous transform ``T`` (4x4) of frame 2 in frame 1 holds Reuss's
change-of-basis matrix ``P = R`` (columns: axes of frame 2 in frame 1) and ``xi = p`` (origin of
frame 2 in frame 1). From it come Reuss's four 6x6 matrices::

    V2 = A^t  V1      A^t  = [[R^T, 0], [R^T [p]^T, R^T]]   motion, frame 1 -> frame 2
    V1 = A^-t V2      A^-t = [[R, 0], [[p] R, R]]           motion, frame 2 -> frame 1
    F1 = A    F2      A    = [[R, [p] R], [0, R]]           force,  frame 2 -> frame 1
    F2 = A^-1 F1      A^-1 = [[R^T, R^T [p]^T], [0, R^T]]   force,  frame 1 -> frame 2

Every function accepts leading batch axes (``T`` of shape (..., 4, 4)) and any dtype.
The ``*_apply`` functions apply a transform to vectors without forming a 6x6 matrix.
"""
import numpy as np

from ._num import cross, matvec


def skew(v):
    """[v]: the 3x3 matrix with [v] b = v x b. ``v`` (..., 3) -> (..., 3, 3)."""
    v = np.asarray(v)
    z = np.zeros_like(v[..., 0])
    x, y, w = v[..., 0], v[..., 1], v[..., 2]
    return np.stack(
        [np.stack([z, -w, y], -1), np.stack([w, z, -x], -1), np.stack([-y, x, z], -1)], -2
    )


def unskew(S):
    """Inverse of :func:`skew` (uses the antisymmetric part)."""
    S = np.asarray(S)
    return 0.5 * np.stack(
        [S[..., 2, 1] - S[..., 1, 2], S[..., 0, 2] - S[..., 2, 0], S[..., 1, 0] - S[..., 0, 1]], -1
    )


def homogeneous(R=None, p=None):
    """4x4 transform from a rotation (..., 3, 3) and a translation (..., 3)."""
    if R is None:
        R = np.eye(3)
    if p is None:
        p = np.zeros(3)
    R = np.asarray(R)
    p = np.asarray(p)
    shape = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    dtype = np.result_type(R, p) if R.dtype != object and p.dtype != object else object
    T = np.zeros(shape + (4, 4), dtype=dtype)
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1
    return T


def inv_homogeneous(T):
    """The inverse homogeneous matrix [[R^T, -R^T p], [0, 1]]."""
    T = np.asarray(T)
    R = T[..., :3, :3]
    Rt = np.swapaxes(R, -1, -2)
    return homogeneous(Rt, -matvec(Rt, T[..., :3, 3]))


def translation(p):
    """Pure translation transform."""
    return homogeneous(None, p)


def transform_point(T, x):
    """Coordinates in frame 1 of a point with coordinates ``x`` in frame 2."""
    T = np.asarray(T)
    return matvec(T[..., :3, :3], x) + T[..., :3, 3]


# --- the four 6x6 transforms (A^t, A^-t, A, A^-1) --------------------------------------------


def _blocks(T):
    T = np.asarray(T)
    R = T[..., :3, :3]
    return R, skew(T[..., :3, 3])


def _assemble(a, b, c, d):
    return np.concatenate([np.concatenate([a, b], -1), np.concatenate([c, d], -1)], -2)


def A(T):
    """Force transform, frame 2 -> frame 1: F1 = A F2."""
    R, P = _blocks(T)
    return _assemble(R, P @ R, np.zeros_like(R), R)


def A_t(T):
    """Motion transform, frame 1 -> frame 2: V2 = A^t V1 (Featherstone's 2_X_1)."""
    R, P = _blocks(T)
    Rt = np.swapaxes(R, -1, -2)
    return _assemble(Rt, np.zeros_like(R), -Rt @ P, Rt)


def A_inv_t(T):
    """Motion transform, frame 2 -> frame 1: V1 = A^-t V2."""
    R, P = _blocks(T)
    return _assemble(R, np.zeros_like(R), P @ R, R)


def A_inv(T):
    """Force transform, frame 1 -> frame 2: F2 = A^-1 F1."""
    R, P = _blocks(T)
    Rt = np.swapaxes(R, -1, -2)
    return _assemble(Rt, -Rt @ P, np.zeros_like(R), Rt)


motion_to_child = A_t
motion_to_parent = A_inv_t
force_to_parent = A
force_to_child = A_inv


# --- cheap application -----------------------------------------------------------------------


def motion_apply(T, m):
    """A^-t m: a motion vector in frame-2 coordinates, re-expressed in frame 1."""
    T = np.asarray(T)
    m = np.asarray(m)
    R, p = T[..., :3, :3], T[..., :3, 3]
    w = matvec(R, m[..., :3])
    return np.concatenate([w, matvec(R, m[..., 3:]) + cross(p, w)], -1)


def motion_apply_inv(T, m):
    """A^t m: a motion vector in frame-1 coordinates, re-expressed in frame 2."""
    T = np.asarray(T)
    m = np.asarray(m)
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    p = T[..., :3, 3]
    w = m[..., :3]
    return np.concatenate([matvec(Rt, w), matvec(Rt, m[..., 3:] - cross(p, w))], -1)


def force_apply(T, f):
    """A f: a force vector in frame-2 coordinates (about O2), expressed in frame 1 about O1."""
    T = np.asarray(T)
    f = np.asarray(f)
    R, p = T[..., :3, :3], T[..., :3, 3]
    fo = matvec(R, f[..., 3:])
    return np.concatenate([matvec(R, f[..., :3]) + cross(p, fo), fo], -1)


def force_apply_inv(T, f):
    """A^-1 f: a force vector in frame 1 (about O1), expressed in frame 2 about O2."""
    T = np.asarray(T)
    f = np.asarray(f)
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    p = T[..., :3, 3]
    fo = f[..., 3:]
    return np.concatenate([matvec(Rt, f[..., :3] - cross(p, fo)), matvec(Rt, fo)], -1)


# --- cross products: (.) on motions, (+) on forces ---------------------------------------------


def cross_motion(m1, m2):
    """Motion cross product V1 (.) V2 = [w1 x w2; w1 x v2 + v1 x w2] (Featherstone's crm(v1) v2)."""
    m1 = np.asarray(m1)
    m2 = np.asarray(m2)
    w1, v1 = m1[..., :3], m1[..., 3:]
    w2, v2 = m2[..., :3], m2[..., 3:]
    return np.concatenate([cross(w1, w2), cross(w1, v2) + cross(v1, w2)], -1)


def cross_force(m, f):
    """Force cross product V (+) F = [w x mu + v x f; w x f] (Featherstone's crf(v) f)."""
    m = np.asarray(m)
    f = np.asarray(f)
    w, v = m[..., :3], m[..., 3:]
    mu, fo = f[..., :3], f[..., 3:]
    return np.concatenate([cross(w, mu) + cross(v, fo), cross(w, fo)], -1)


def crm(m):
    """6x6 matrix of the motion cross product: crm(m) @ x == cross_motion(m, x)."""
    m = np.asarray(m)
    W, V = skew(m[..., :3]), skew(m[..., 3:])
    return _assemble(W, np.zeros_like(W), V, W)


def crf(m):
    """6x6 matrix of the force cross product: crf(m) = -crm(m)^T."""
    m = np.asarray(m)
    W, V = skew(m[..., :3]), skew(m[..., 3:])
    return _assemble(W, V, np.zeros_like(W), W)


# --- spatial inertia -------------------------------------------------------------------------


def spatial_inertia(mass, com, I_com):
    """6x6 inertia about the frame origin from mass, centre of mass and inertia at the com.

    Featherstone's m [[I~ - [rho]^2, [rho]], [-[rho], 1]] (RBDA ch. 2) with I~ = I_G / m,
    rho = com.
    """
    mass = np.asarray(mass)
    com = np.asarray(com)
    I_com = np.asarray(I_com)
    C = skew(com)
    m = mass[..., None, None]
    Ct = np.swapaxes(C, -1, -2)
    eye = np.broadcast_to(np.eye(3), C.shape)
    return _assemble(I_com + m * (C @ Ct), m * C, m * Ct, m * eye)


def inertia_parts(I6):
    """(mass, com, I_com) from a 6x6 spatial inertia about the frame origin."""
    I6 = np.asarray(I6)
    m = I6[..., 5, 5]
    mC = I6[..., :3, 3:]
    com = unskew(mC) / np.asarray(m)[..., None]
    C = skew(com)
    I_com = I6[..., :3, :3] - m[..., None, None] * (C @ np.swapaxes(C, -1, -2))
    return m, com, I_com


def inertia_transform(T, I6):
    """Inertia of frame-2 coordinates re-expressed in frame 1: A I A^t... i.e. A I2 A^-1^T.

    For a body inertia ``I2`` about O2 in frame-2 axes, returns the same inertia about O1 in
    frame-1 axes: I1 = A I2 A^t with A = force transform 2 -> 1.
    """
    Af = A(T)
    return Af @ I6 @ np.swapaxes(Af, -1, -2)
