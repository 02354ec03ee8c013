"""Compiled small spatial algebra on the rows of the packed table ``B`` (:mod:`.pack`).

Each helper reads and writes 6-vectors and 6x6 matrices stored in columns of ``B`` (``B[i, X:X+6]``
is the vector of body i in column group X), written out entry by entry (numba compiles ``np.dot``
on tiny arrays into slow generic code). Conventions as :mod:`artidyn.spatial.motion`: ``(R, p)``
(columns R, P of row i) is body i in its parent; motion ``[w; v]``, force ``[mu; f]``::

    A^t m = [R^T w; R^T (v - p x w)]        motion, parent -> child (Featherstone's X)
    A f   = [R mu + p x R f; R f]           force, child -> parent (X^T)

Joint codes as :mod:`artidyn.joints`; revolute, prismatic and cylindrical axes are the internal z
axis (a cylindrical joint's S is ``[e_z, 0; 0, e_z]``: rows 2 and 5; a helical joint's S is
``[e_z; p e_z]``, p in column PITCH: :func:`s_dot` and :func:`s_add` apply it).

Compilation: every helper is a separate compiled function; LLVM inlines the small ones into
their callers when it optimises the caller (the run time is the same as with numba's
``inline="always"``, measured on rnea / aba / crba and the simulation loop), while numba's own
inlining retyped every copy and made the first compilation about a third longer.

Reference counts: numba counts a reference (an atomic add) each time a function receives an array
or takes a view of one, and LLVM removes a pair of counts only when no call that may fail lies
between them. In the contact step these counts were a quarter of its time (a humanoid on its
collision meshes: about 1350 pairs a step, four per body and per step in the joint helpers alone).
The helpers the step calls for each body, shape, pair or row allocate nothing and return no
array, so they are compiled without the runtime's counts (``_nrt=False``, inherited by what they
call; one that allocates says ``_nrt=True``): talos_full_v2 standing on its meshes went from 2.02x
to 1.62x MuJoCo's step (same run), a stack of three boxes from 1.37x to 0.95x.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .pack import GRAVITY, H, IBAR, IQ, IV, JTYPE, MASS, NQJ, NVJ, P, PITCH, PP, PR, QN, R
from .pack import A as _A
from .pack import V as _V

# fastmath flag of the dynamics kernels: a * b + c compiled as one fused multiply-add (rounded
# once: as exact or more). No reordering of sums and no assumption on NaN or inf, so the
# finiteness checks (x - x, x * 0) still see every bad value. About 8-12% off rnea, aba, crba.
FMA = {"contract"}

REVOLUTE, PRISMATIC, SPHERICAL, FREE, CYLINDRICAL, HELICAL = 0, 1, 2, 3, 4, 5


@nb.njit(fastmath=FMA, inline="always")
def dot(a, b, n):
    """sum_k<n a[k] b[k] in four interleaved partial sums added at the end: a fixed order of the
    terms (the same bits on every call, wherever the arrays lie), and four independent chains
    that the processor runs side by side (3-5x a single running sum on the dense factorisations
    of the contact solver)."""
    s0 = s1 = s2 = s3 = 0.0
    k = 0
    while k + 4 <= n:
        s0 += a[k] * b[k]
        s1 += a[k + 1] * b[k + 1]
        s2 += a[k + 2] * b[k + 2]
        s3 += a[k + 3] * b[k + 3]
        k += 4
    while k < n:
        s0 += a[k] * b[k]
        k += 1
    return (s0 + s1) + (s2 + s3)
QUAT_TOL = 1e-6  # as artidyn.spatial.rotations.QUAT_TOL: |q| - 1 allowed before refusing

# sin and cos: x = k pi/2 + r, |r| <= pi/4, then the Taylor series of sin r and cos r (terms up to
# r^17 / 17! and r^16 / 16!: the first omitted term is below 1e-19). pi/2 is split Cody-Waite
# style into PIO2_1 + PIO2_2 + PIO2_3 (the first two hold 33 significant bits, so k * PIO2_1 and
# k * PIO2_2 are exact for |k| < 2^20; tests/test_kernels.py re-derives them with mpmath).
PIO2_1, PIO2_2, PIO2_3 = 1.5707963267341256, 6.077100506303966e-11, 2.0222662487959506e-21
TWO_OVER_PI = 0.6366197723675814
SIN_C = tuple((-1.0) ** k / math.factorial(2 * k + 1) for k in range(1, 9))  # r^3 .. r^17
COS_C = tuple((-1.0) ** k / math.factorial(2 * k) for k in range(1, 9))      # r^2 .. r^16


@nb.njit(fastmath=FMA)
def sin_cos(x):
    """(sin x, cos x) in one go, to within a few ulps (libm's for |x| >= 1e6 or non-finite x)."""
    if not abs(x) < 1e6:
        return np.sin(x), np.cos(x)
    k = np.round(x * TWO_OVER_PI)
    r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3
    z = r * r
    s = SIN_C[7]
    c = COS_C[7]
    for j in range(6, -1, -1):
        s = SIN_C[j] + z * s
        c = COS_C[j] + z * c
    s = r + r * z * s
    c = 1.0 + z * c
    n = int(k)
    swap = n & 1 == 1  # quadrants 1, 3: sin x = +-cos r, cos x = -+sin r
    sin_x = c if swap else s
    cos_x = s if swap else c
    return (-sin_x if n & 2 else sin_x), (-cos_x if (n + 1) & 2 else cos_x)


@nb.njit(fastmath=FMA)
def all_finite(x):
    """True when every entry of the 1-D array ``x`` is finite (x - x is NaN for NaN and inf)."""
    for k in range(x.shape[0]):
        if x[k] - x[k] != 0.0:
            return False
    return True


@nb.njit(fastmath=FMA)
def world_at_rest(B):
    """The world row (0) of the table before a pass from the root: at rest, its acceleration
    minus gravity (the forward passes carry gravity as a base acceleration, Featherstone's trick)."""
    for r in range(3):
        B[0, _V + r] = B[0, _V + 3 + r] = B[0, _A + r] = 0.0
        B[0, _A + 3 + r] = -B[0, GRAVITY + r]


@nb.njit(fastmath=FMA)
def load_q(B, q):
    """Copy q into the QN columns, joint by joint, normalising quaternions as ``as_q`` does.

    Returns False for a wrong size, a non-finite entry or a quaternion whose norm is off by more
    than QUAT_TOL: the caller then lets the reference checks raise the error.
    """
    if q.shape[0] != int(B[0, IQ]):
        return False
    for i in range(1, B.shape[0]):
        t, k = int(B[i, JTYPE]), int(B[i, IQ])
        for j in range(int(B[i, NQJ])):
            x = q[k + j]
            if x - x != 0.0:
                return False
            B[i, QN + j] = x
        if t == SPHERICAL or t == FREE:
            o = QN + (3 if t == FREE else 0)
            s = np.sqrt(B[i, o] ** 2 + B[i, o + 1] ** 2 + B[i, o + 2] ** 2 + B[i, o + 3] ** 2)
            if abs(s - 1.0) > QUAT_TOL:
                return False
            for j in range(4):
                B[i, o + j] /= s
    return True


@nb.njit(_nrt=False, fastmath=FMA)
def joint_transform(B, i):
    """(R, p) of row i <- body i in its parent (internal frames): T_up = P_i T_J(q_i).

    revolute: ``PR Rz(q)``; prismatic: ``PR``, ``Pp + q PR e_z``; cylindrical: ``PR Rz(q_0)``,
    ``Pp + q_1 PR e_z``; helical: ``PR Rz(q)``, ``Pp + p q PR e_z``; spherical: ``PR R(quat)``; free: ``PR R(quat)``, ``Pp + PR p``
    (quaternions (x, y, z, w), already normalised).
    """
    t = int(B[i, JTYPE])
    if t == REVOLUTE or t == CYLINDRICAL or t == HELICAL:
        s, c = sin_cos(B[i, QN])
        d = B[i, QN + 1] if t == CYLINDRICAL else (B[i, PITCH] * B[i, QN] if t == HELICAL else 0.0)
        for r in range(3):
            a0, a1 = B[i, PR + 3 * r], B[i, PR + 3 * r + 1]
            B[i, R + 3 * r] = c * a0 + s * a1
            B[i, R + 3 * r + 1] = c * a1 - s * a0
            B[i, R + 3 * r + 2] = B[i, PR + 3 * r + 2]
            B[i, P + r] = B[i, PP + r] + d * B[i, PR + 3 * r + 2]
    elif t == PRISMATIC:
        for r in range(3):
            for c in range(3):
                B[i, R + 3 * r + c] = B[i, PR + 3 * r + c]
            B[i, P + r] = B[i, PP + r] + B[i, QN] * B[i, PR + 3 * r + 2]
    else:
        o = QN + (3 if t == FREE else 0)
        x, y, z, w = B[i, o], B[i, o + 1], B[i, o + 2], B[i, o + 3]
        Q00, Q01, Q02 = 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)
        Q10, Q11, Q12 = 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)
        Q20, Q21, Q22 = 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)
        for r in range(3):
            a0, a1, a2 = B[i, PR + 3 * r], B[i, PR + 3 * r + 1], B[i, PR + 3 * r + 2]
            B[i, R + 3 * r] = a0 * Q00 + a1 * Q10 + a2 * Q20
            B[i, R + 3 * r + 1] = a0 * Q01 + a1 * Q11 + a2 * Q21
            B[i, R + 3 * r + 2] = a0 * Q02 + a1 * Q12 + a2 * Q22
            B[i, P + r] = B[i, PP + r]
            if t == FREE:
                B[i, P + r] += a0 * B[i, QN] + a1 * B[i, QN + 1] + a2 * B[i, QN + 2]


@nb.njit(fastmath=FMA)
def motion_to_child(B, i, src, X, Y):
    """B[i, Y] <- A_i^t B[src, X]: a motion vector of the parent (row src) in body i's coordinates."""
    w0, w1, w2 = B[src, X], B[src, X + 1], B[src, X + 2]
    p0, p1, p2 = B[i, P], B[i, P + 1], B[i, P + 2]
    u0 = B[src, X + 3] - (p1 * w2 - p2 * w1)
    u1 = B[src, X + 4] - (p2 * w0 - p0 * w2)
    u2 = B[src, X + 5] - (p0 * w1 - p1 * w0)
    for r in range(3):
        e0, e1, e2 = B[i, R + r], B[i, R + 3 + r], B[i, R + 6 + r]  # column r of R
        B[i, Y + r] = e0 * w0 + e1 * w1 + e2 * w2
        B[i, Y + 3 + r] = e0 * u0 + e1 * u1 + e2 * u2


@nb.njit(fastmath=FMA)
def force_to_parent_add(B, i, X, dst, Y):
    """B[dst, Y] += A_i B[i, X]: a force vector of body i, about the parent's origin."""
    m0, m1, m2, g0, g1, g2 = B[i, X], B[i, X + 1], B[i, X + 2], B[i, X + 3], B[i, X + 4], B[i, X + 5]
    f0 = B[i, R] * g0 + B[i, R + 1] * g1 + B[i, R + 2] * g2
    f1 = B[i, R + 3] * g0 + B[i, R + 4] * g1 + B[i, R + 5] * g2
    f2 = B[i, R + 6] * g0 + B[i, R + 7] * g1 + B[i, R + 8] * g2
    p0, p1, p2 = B[i, P], B[i, P + 1], B[i, P + 2]
    B[dst, Y] += B[i, R] * m0 + B[i, R + 1] * m1 + B[i, R + 2] * m2 + p1 * f2 - p2 * f1
    B[dst, Y + 1] += B[i, R + 3] * m0 + B[i, R + 4] * m1 + B[i, R + 5] * m2 + p2 * f0 - p0 * f2
    B[dst, Y + 2] += B[i, R + 6] * m0 + B[i, R + 7] * m1 + B[i, R + 8] * m2 + p0 * f1 - p1 * f0
    B[dst, Y + 3] += f0
    B[dst, Y + 4] += f1
    B[dst, Y + 5] += f2


@nb.njit(fastmath=FMA)
def joint_row(t, j):
    """Entry of a 6-vector that dof j of a joint of type t picks (S^T x = x[rows])."""
    if t == REVOLUTE:
        return 2
    if t == PRISMATIC:
        return 5
    if t == CYLINDRICAL:
        return 2 + 3 * j
    if t == HELICAL:
        return 2  # and p times row 5: see s_dot, s_add
    return j


@nb.njit(fastmath=FMA)
def s_dot(B, i, t, j, X):
    """S_ij^T B[i, X]: dof j of body i's joint applied to the 6-vector (or matrix row) at X."""
    x = B[i, X + joint_row(t, j)]
    if t == HELICAL:
        x += B[i, PITCH] * B[i, X + 5]
    return x


@nb.njit(fastmath=FMA)
def s_add(B, i, t, j, Y, x):
    """B[i, Y] += S_ij x: the motion of dof j of body i's joint for the dof value x."""
    B[i, Y + joint_row(t, j)] += x
    if t == HELICAL:
        B[i, Y + 5] += B[i, PITCH] * x


@nb.njit(fastmath=FMA)
def dof_axis(t, j):
    """Column of the internal axes (0, 1, 2 = x, y, z) along or about which dof j of a joint of
    type t moves: z for revolute, prismatic, cylindrical and helical joints, x, y, z, x, y, z
    otherwise (a helical dof turns about u and slides along it: its twist adds p u, linear part)."""
    if t == REVOLUTE or t == PRISMATIC or t == CYLINDRICAL or t == HELICAL:
        return 2
    return j % 3


@nb.njit(fastmath=FMA)
def dof_slides(t, j):
    """True when dof j of a joint of type t is a translation (its twist is [0; u])."""
    return t == PRISMATIC or (t == CYLINDRICAL and j == 1) or (t == FREE and j >= 3)


@nb.njit(fastmath=FMA)
def joint_motion(B, i, x, Y):
    """B[i, Y] <- S_i x_i: the joint's motion for its dof values in the nv-vector x."""
    t, k = int(B[i, JTYPE]), int(B[i, IV])
    for r in range(6):
        B[i, Y + r] = 0.0
    if t < SPHERICAL:
        B[i, Y + (2 if t == REVOLUTE else 5)] = x[k]
    elif t == CYLINDRICAL:
        B[i, Y + 2] = x[k]
        B[i, Y + 5] = x[k + 1]
    elif t == HELICAL:
        B[i, Y + 2] = x[k]
        B[i, Y + 5] = B[i, PITCH] * x[k]
    else:
        for j in range(int(B[i, NVJ])):
            B[i, Y + j] = x[k + j]


@nb.njit(_nrt=False, fastmath=FMA)
def cross_joint_motion_add(B, i, Mv, X, Y):
    """B[i, Y] += m (.) x for x = B[i, X] = S qd of body i's joint: for a revolute (prismatic)
    joint x = qd e_z in the angular (linear) half, and m (.) x has four (two) nonzero entries."""
    t = int(B[i, JTYPE])
    if t == REVOLUTE:
        qd = B[i, X + 2]
        B[i, Y] += qd * B[i, Mv + 1]
        B[i, Y + 1] -= qd * B[i, Mv]
        B[i, Y + 3] += qd * B[i, Mv + 4]
        B[i, Y + 4] -= qd * B[i, Mv + 3]
    elif t == PRISMATIC:
        qd = B[i, X + 5]
        B[i, Y + 3] += qd * B[i, Mv + 1]
        B[i, Y + 4] -= qd * B[i, Mv]
    else:
        cross_motion_add(B, i, Mv, X, Y)


@nb.njit(fastmath=FMA)
def cross_motion_add(B, i, Mv, X, Y):
    """B[i, Y] += m (.) x = [w x xw; w x xv + v x xw] with m = B[i, Mv], x = B[i, X] (crm(m) x)."""
    w0, w1, w2, v0, v1, v2 = B[i, Mv], B[i, Mv + 1], B[i, Mv + 2], B[i, Mv + 3], B[i, Mv + 4], B[i, Mv + 5]
    a0, a1, a2, b0, b1, b2 = B[i, X], B[i, X + 1], B[i, X + 2], B[i, X + 3], B[i, X + 4], B[i, X + 5]
    B[i, Y] += w1 * a2 - w2 * a1
    B[i, Y + 1] += w2 * a0 - w0 * a2
    B[i, Y + 2] += w0 * a1 - w1 * a0
    B[i, Y + 3] += w1 * b2 - w2 * b1 + v1 * a2 - v2 * a1
    B[i, Y + 4] += w2 * b0 - w0 * b2 + v2 * a0 - v0 * a2
    B[i, Y + 5] += w0 * b1 - w1 * b0 + v0 * a1 - v1 * a0


@nb.njit(fastmath=FMA)
def cross_force_add(B, i, Mv, X, Y):
    """B[i, Y] += m (+) f = [w x mu + v x f; w x f] with m = B[i, Mv], f = B[i, X] (crf(m) f)."""
    w0, w1, w2, v0, v1, v2 = B[i, Mv], B[i, Mv + 1], B[i, Mv + 2], B[i, Mv + 3], B[i, Mv + 4], B[i, Mv + 5]
    a0, a1, a2, b0, b1, b2 = B[i, X], B[i, X + 1], B[i, X + 2], B[i, X + 3], B[i, X + 4], B[i, X + 5]
    B[i, Y] += w1 * a2 - w2 * a1 + v1 * b2 - v2 * b1
    B[i, Y + 1] += w2 * a0 - w0 * a2 + v2 * b0 - v0 * b2
    B[i, Y + 2] += w0 * a1 - w1 * a0 + v0 * b1 - v1 * b0
    B[i, Y + 3] += w1 * b2 - w2 * b1
    B[i, Y + 4] += w2 * b0 - w0 * b2
    B[i, Y + 5] += w0 * b1 - w1 * b0


@nb.njit(fastmath=FMA)
def inertia_apply(B, i, X, Y):
    """B[i, Y] <- I_i B[i, X] = [Ibar w + h x v; m v - h x w] (the body's own inertia)."""
    w0, w1, w2, v0, v1, v2 = B[i, X], B[i, X + 1], B[i, X + 2], B[i, X + 3], B[i, X + 4], B[i, X + 5]
    m, h0, h1, h2 = B[i, MASS], B[i, H], B[i, H + 1], B[i, H + 2]
    for r in range(3):
        B[i, Y + r] = B[i, IBAR + 3 * r] * w0 + B[i, IBAR + 3 * r + 1] * w1 + B[i, IBAR + 3 * r + 2] * w2
    B[i, Y] += h1 * v2 - h2 * v1
    B[i, Y + 1] += h2 * v0 - h0 * v2
    B[i, Y + 2] += h0 * v1 - h1 * v0
    B[i, Y + 3] = m * v0 - (h1 * w2 - h2 * w1)
    B[i, Y + 4] = m * v1 - (h2 * w0 - h0 * w2)
    B[i, Y + 5] = m * v2 - (h0 * w1 - h1 * w0)


@nb.njit(fastmath=FMA)
def inertia_matrix(B, i, Y):
    """B[i, Y:Y+36] <- the 6x6 spatial inertia of body i, [[Ibar, [h]], [[h]^T, m 1]], row-major."""
    m, h0, h1, h2 = B[i, MASS], B[i, H], B[i, H + 1], B[i, H + 2]
    for r in range(3):
        for c in range(3):
            B[i, Y + 6 * r + c] = B[i, IBAR + 3 * r + c]
            B[i, Y + 6 * (r + 3) + c + 3] = m if r == c else 0.0
    hx = ((0.0, -h2, h1), (h2, 0.0, -h0), (-h1, h0, 0.0))
    for r in range(3):
        for c in range(3):
            B[i, Y + 6 * r + c + 3] = hx[r][c]
            B[i, Y + 6 * (c + 3) + r] = hx[r][c]


@nb.njit(fastmath=FMA)
def mat_mul(X, Y):
    """X Y for 3x3 matrices as row-major 9-tuples."""
    return (X[0] * Y[0] + X[1] * Y[3] + X[2] * Y[6], X[0] * Y[1] + X[1] * Y[4] + X[2] * Y[7],
            X[0] * Y[2] + X[1] * Y[5] + X[2] * Y[8],
            X[3] * Y[0] + X[4] * Y[3] + X[5] * Y[6], X[3] * Y[1] + X[4] * Y[4] + X[5] * Y[7],
            X[3] * Y[2] + X[4] * Y[5] + X[5] * Y[8],
            X[6] * Y[0] + X[7] * Y[3] + X[8] * Y[6], X[6] * Y[1] + X[7] * Y[4] + X[8] * Y[7],
            X[6] * Y[2] + X[7] * Y[5] + X[8] * Y[8])


@nb.njit(fastmath=FMA)
def mat_mul_t(X, Y):
    """X Y^T for 3x3 matrices as row-major 9-tuples."""
    return (X[0] * Y[0] + X[1] * Y[1] + X[2] * Y[2], X[0] * Y[3] + X[1] * Y[4] + X[2] * Y[5],
            X[0] * Y[6] + X[1] * Y[7] + X[2] * Y[8],
            X[3] * Y[0] + X[4] * Y[1] + X[5] * Y[2], X[3] * Y[3] + X[4] * Y[4] + X[5] * Y[5],
            X[3] * Y[6] + X[4] * Y[7] + X[5] * Y[8],
            X[6] * Y[0] + X[7] * Y[1] + X[8] * Y[2], X[6] * Y[3] + X[7] * Y[4] + X[8] * Y[5],
            X[6] * Y[6] + X[7] * Y[7] + X[8] * Y[8])


@nb.njit(fastmath=FMA)
def cross_rows(p, X):
    """The 3x3 matrix whose row r is p x (row r of X), i.e. X [p]^T (9-tuples)."""
    return (p[1] * X[2] - p[2] * X[1], p[2] * X[0] - p[0] * X[2], p[0] * X[1] - p[1] * X[0],
            p[1] * X[5] - p[2] * X[4], p[2] * X[3] - p[0] * X[5], p[0] * X[4] - p[1] * X[3],
            p[1] * X[8] - p[2] * X[7], p[2] * X[6] - p[0] * X[8], p[0] * X[7] - p[1] * X[6])


@nb.njit(fastmath=FMA)
def cross_cols(p, X):
    """The 3x3 matrix whose column c is p x (column c of X), i.e. [p] X (9-tuples)."""
    return (p[1] * X[6] - p[2] * X[3], p[1] * X[7] - p[2] * X[4], p[1] * X[8] - p[2] * X[5],
            p[2] * X[0] - p[0] * X[6], p[2] * X[1] - p[0] * X[7], p[2] * X[2] - p[0] * X[8],
            p[0] * X[3] - p[1] * X[0], p[0] * X[4] - p[1] * X[1], p[0] * X[5] - p[1] * X[2])


@nb.njit(fastmath=FMA)
def block(B, i, X):
    """The 3x3 block at B[i, X] of a row-major 6x6 matrix, as a 9-tuple."""
    return (B[i, X], B[i, X + 1], B[i, X + 2], B[i, X + 6], B[i, X + 7], B[i, X + 8],
            B[i, X + 12], B[i, X + 13], B[i, X + 14])


@nb.njit(fastmath=FMA)
def inertia_to_parent_add(B, i, X, dst, Y):
    """B[dst, Y] += A X A^T for the symmetric 6x6 force-type X = B[i, X] (an articulated inertia).

    With ``A = [[1, P], [0, 1]] diag(R, R)``, ``P = [p]``: rotate the blocks, ``B_jk = R X_jk
    R^T``, then shift the origin::

        A X A^T = [[B11 + E + E^T + P B22 P^T, B12 + P B22], [(B12 + P B22)^T, B22]],
        E = B12 P^T  (row r of E = p x row r of B12).
    """
    Rm = (B[i, R], B[i, R + 1], B[i, R + 2], B[i, R + 3], B[i, R + 4], B[i, R + 5], B[i, R + 6],
          B[i, R + 7], B[i, R + 8])
    p = (B[i, P], B[i, P + 1], B[i, P + 2])
    B11 = mat_mul_t(mat_mul(Rm, block(B, i, X)), Rm)
    B12 = mat_mul_t(mat_mul(Rm, block(B, i, X + 3)), Rm)
    B22 = mat_mul_t(mat_mul(Rm, block(B, i, X + 21)), Rm)
    E = cross_rows(p, B12)
    T12 = cross_cols(p, B22)
    PBP = cross_cols(p, cross_rows(p, B22))
    for r in range(3):
        for c in range(3):
            k = 3 * r + c
            B[dst, Y + 6 * r + c] += B11[k] + E[k] + E[3 * c + r] + PBP[k]
            t = B12[k] + T12[k]
            B[dst, Y + 6 * r + c + 3] += t
            B[dst, Y + 6 * (c + 3) + r] += t
            B[dst, Y + 6 * (r + 3) + c + 3] += B22[k]


@nb.njit(fastmath=FMA)
def rigid_inertia_transform_add(B, i, X, RX, PX, dst, Y):
    """B[dst, Y:Y+13] += the rigid-body inertia (m, h, Ibar) = B[i, X:X+13] moved by the
    transform (R, p) = (B[i, RX:RX+9], B[i, PX:PX+3]) of row i (e.g. R, P: to the parent).

    ``m' = m``, ``h' = R h + m p``, ``Ibar' = R Ibar R^T - ([p][Rh] + [Rh][p] + m [p]^2)`` with
    ``[a][b] = b a^T - (a.b) 1``: the 6x6 ``A I A^T`` for a rigid-body inertia, in 10 numbers
    (Ibar symmetric: its six distinct entries are computed, then mirrored). The inputs are read
    into locals before the results are added (a store into B would make them load again).
    """
    m = B[i, X]
    h0, h1, h2 = B[i, X + 1], B[i, X + 2], B[i, X + 3]
    i00, i01, i02 = B[i, X + 4], B[i, X + 5], B[i, X + 6]
    i10, i11, i12 = B[i, X + 7], B[i, X + 8], B[i, X + 9]
    i20, i21, i22 = B[i, X + 10], B[i, X + 11], B[i, X + 12]
    e00, e01, e02 = B[i, RX], B[i, RX + 1], B[i, RX + 2]
    e10, e11, e12 = B[i, RX + 3], B[i, RX + 4], B[i, RX + 5]
    e20, e21, e22 = B[i, RX + 6], B[i, RX + 7], B[i, RX + 8]
    p0, p1, p2 = B[i, PX], B[i, PX + 1], B[i, PX + 2]
    g0, g1, g2 = e00 * h0 + e01 * h1 + e02 * h2, e10 * h0 + e11 * h1 + e12 * h2, e20 * h0 + e21 * h1 + e22 * h2
    d = 2.0 * (g0 * p0 + g1 * p1 + g2 * p2) + m * (p0 * p0 + p1 * p1 + p2 * p2)
    # T = R Ibar, row by row; Ibar' = T R^T - (p g^T + g p^T + m p p^T) + d 1
    t00, t01, t02 = e00 * i00 + e01 * i10 + e02 * i20, e00 * i01 + e01 * i11 + e02 * i21, e00 * i02 + e01 * i12 + e02 * i22
    t10, t11, t12 = e10 * i00 + e11 * i10 + e12 * i20, e10 * i01 + e11 * i11 + e12 * i21, e10 * i02 + e11 * i12 + e12 * i22
    t20, t21, t22 = e20 * i00 + e21 * i10 + e22 * i20, e20 * i01 + e21 * i11 + e22 * i21, e20 * i02 + e21 * i12 + e22 * i22
    m0, m1, m2 = m * p0, m * p1, m * p2
    c00 = t00 * e00 + t01 * e01 + t02 * e02 - (2.0 * p0 * g0 + m0 * p0) + d
    c11 = t10 * e10 + t11 * e11 + t12 * e12 - (2.0 * p1 * g1 + m1 * p1) + d
    c22 = t20 * e20 + t21 * e21 + t22 * e22 - (2.0 * p2 * g2 + m2 * p2) + d
    c01 = t00 * e10 + t01 * e11 + t02 * e12 - (p0 * g1 + g0 * p1 + m0 * p1)
    c02 = t00 * e20 + t01 * e21 + t02 * e22 - (p0 * g2 + g0 * p2 + m0 * p2)
    c12 = t10 * e20 + t11 * e21 + t12 * e22 - (p1 * g2 + g1 * p2 + m1 * p2)
    x = (m, g0 + m0, g1 + m1, g2 + m2, c00, c01, c02, c01, c11, c12, c02, c12, c22)
    for k in range(13):
        B[dst, Y + k] += x[k]


@nb.njit(fastmath=FMA)
def rigid_inertia_apply(B, i, X, x):
    """I x as a 6-tuple, for the rigid-body inertia (m, h, Ibar) = B[i, X:X+13] and a 6-tuple x:
    ``[Ibar w + h x v; m v - h x w]``."""
    m, h0, h1, h2 = B[i, X], B[i, X + 1], B[i, X + 2], B[i, X + 3]
    w0, w1, w2, v0, v1, v2 = x
    b = X + 4
    return (B[i, b] * w0 + B[i, b + 1] * w1 + B[i, b + 2] * w2 + h1 * v2 - h2 * v1,
            B[i, b + 3] * w0 + B[i, b + 4] * w1 + B[i, b + 5] * w2 + h2 * v0 - h0 * v2,
            B[i, b + 6] * w0 + B[i, b + 7] * w1 + B[i, b + 8] * w2 + h0 * v1 - h1 * v0,
            m * v0 - (h1 * w2 - h2 * w1), m * v1 - (h2 * w0 - h0 * w2), m * v2 - (h0 * w1 - h1 * w0))
