"""Compiled small spatial algebra on the rows of the packed table ``B`` (:mod:`.pack`).

Each helper reads and writes 6-vectors and 6x6 matrices stored in columns of ``B`` (``B[i, X:X+6]``
is the vector of body i in column group X), written out entry by entry (numba compiles ``np.dot``
on tiny arrays into slow generic code). Conventions as :mod:`artidyn.spatial.motion`: ``(R, p)``
(columns R, P of row i) is body i in its parent; motion ``[w; v]``, force ``[mu; f]``::

    A^t m = [R^T w; R^T (v - p x w)]        motion, parent -> child (Featherstone's X)
    A f   = [R mu + p x R f; R f]           force, child -> parent (X^T)

Joint codes as :mod:`artidyn.joints`; revolute and prismatic axes are the internal z axis.
"""
import numba as nb
import numpy as np

from .pack import H, IBAR, IQ, IV, JTYPE, MASS, NVJ, P, PP, PR, QN, R

REVOLUTE, PRISMATIC, SPHERICAL, FREE = 0, 1, 2, 3
QUAT_TOL = 1e-6  # as artidyn.spatial.rotations.QUAT_TOL: |q| - 1 allowed before refusing


@nb.njit(cache=True)
def all_finite(x):
    """True when every entry of the 1-D array ``x`` is finite (x - x is NaN for NaN and inf)."""
    for k in range(x.shape[0]):
        if x[k] - x[k] != 0.0:
            return False
    return True


@nb.njit(cache=True)
def load_q(B, q):
    """Copy q into the QN columns, joint by joint, normalising quaternions as ``as_q`` does.

    Returns False for a wrong size, a non-finite entry or a quaternion whose norm is off by more
    than QUAT_TOL: the caller then lets the reference checks raise the error.
    """
    if q.shape[0] != int(B[0, IQ]):
        return False
    for i in range(1, B.shape[0]):
        t, k = int(B[i, JTYPE]), int(B[i, IQ])
        nq = 1 if t < SPHERICAL else (4 if t == SPHERICAL else 7)
        for j in range(nq):
            x = q[k + j]
            if x - x != 0.0:
                return False
            B[i, QN + j] = x
        if t >= SPHERICAL:
            o = QN + (3 if t == FREE else 0)
            s = np.sqrt(B[i, o] ** 2 + B[i, o + 1] ** 2 + B[i, o + 2] ** 2 + B[i, o + 3] ** 2)
            if abs(s - 1.0) > QUAT_TOL:
                return False
            for j in range(4):
                B[i, o + j] /= s
    return True


@nb.njit(cache=True)
def joint_transform(B, i):
    """(R, p) of row i <- body i in its parent (internal frames): T_up = P_i T_J(q_i).

    revolute: ``PR Rz(q)``; prismatic: ``PR``, ``Pp + q PR e_z``; spherical: ``PR R(quat)``;
    free: ``PR R(quat)``, ``Pp + PR p`` (quaternions (x, y, z, w), already normalised).
    """
    t = int(B[i, JTYPE])
    if t == REVOLUTE:
        c, s = np.cos(B[i, QN]), np.sin(B[i, QN])
        for r in range(3):
            a0, a1 = B[i, PR + 3 * r], B[i, PR + 3 * r + 1]
            B[i, R + 3 * r] = c * a0 + s * a1
            B[i, R + 3 * r + 1] = c * a1 - s * a0
            B[i, R + 3 * r + 2] = B[i, PR + 3 * r + 2]
            B[i, P + r] = B[i, PP + r]
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


@nb.njit(cache=True)
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


@nb.njit(cache=True)
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


@nb.njit(cache=True)
def joint_row(t, j):
    """Entry of a 6-vector that dof j of a joint of type t picks (S^T x = x[rows])."""
    if t == REVOLUTE:
        return 2
    if t == PRISMATIC:
        return 5
    return j


@nb.njit(cache=True)
def joint_motion(B, i, x, Y):
    """B[i, Y] <- S_i x_i: the joint's motion for its dof values in the nv-vector x."""
    t, k = int(B[i, JTYPE]), int(B[i, IV])
    for r in range(6):
        B[i, Y + r] = 0.0
    for j in range(int(B[i, NVJ])):
        B[i, Y + joint_row(t, j)] = x[k + j]


@nb.njit(cache=True)
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


@nb.njit(cache=True)
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


@nb.njit(cache=True)
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


@nb.njit(cache=True)
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


@nb.njit(cache=True)
def inertia_to_parent_add(B, i, X, dst, Y, S):
    """B[dst, Y] += A X A^T for the symmetric 6x6 force-type X = B[i, X] (an articulated inertia).

    With ``A = [[1, P], [0, 1]] diag(R, R)``, ``P = [p]``: rotate the blocks, ``B_jk = R X_jk
    R^T``, then shift the origin::

        A X A^T = [[B11 + E + E^T + P B22 P^T, B12 + P B22], [(B12 + P B22)^T, B22]],
        E = B12 P^T  (row r of E = p x row r of B12).

    Scratch: 27 entries of row 0 from column S (the world row's unused work columns).
    """
    for blk in range(3):
        r0 = 0 if blk < 2 else 3
        c0 = 0 if blk == 0 else 3
        for r in range(3):
            e0, e1, e2 = B[i, R + 3 * r], B[i, R + 3 * r + 1], B[i, R + 3 * r + 2]
            t0 = e0 * B[i, X + 6 * r0 + c0] + e1 * B[i, X + 6 * (r0 + 1) + c0] + e2 * B[i, X + 6 * (r0 + 2) + c0]
            t1 = (e0 * B[i, X + 6 * r0 + c0 + 1] + e1 * B[i, X + 6 * (r0 + 1) + c0 + 1]
                  + e2 * B[i, X + 6 * (r0 + 2) + c0 + 1])
            t2 = (e0 * B[i, X + 6 * r0 + c0 + 2] + e1 * B[i, X + 6 * (r0 + 1) + c0 + 2]
                  + e2 * B[i, X + 6 * (r0 + 2) + c0 + 2])
            t = (t0, t1, t2)
            for c in range(3):
                B[0, S + 9 * blk + 3 * r + c] = t[0] * B[i, R + 3 * c] + t[1] * B[i, R + 3 * c + 1] + t[2] * B[i, R + 3 * c + 2]
    B11, B12, B22 = S, S + 9, S + 18
    p0, p1, p2 = B[i, P], B[i, P + 1], B[i, P + 2]
    for r in range(3):
        # B11, then E and E^T (row r of E = p x B12[r, :]); bottom-right B22
        b0, b1, b2 = B[0, B12 + 3 * r], B[0, B12 + 3 * r + 1], B[0, B12 + 3 * r + 2]
        e = (p1 * b2 - p2 * b1, p2 * b0 - p0 * b2, p0 * b1 - p1 * b0)
        for c in range(3):
            B[dst, Y + 6 * r + c] += B[0, B11 + 3 * r + c] + e[c]
            B[dst, Y + 6 * c + r] += e[c]
            B[dst, Y + 6 * (r + 3) + c + 3] += B[0, B22 + 3 * r + c]
    for c in range(3):
        # top-right T12 = B12 + P B22 (column c: B12[:, c] + p x B22[:, c]) and its transpose
        b0, b1, b2 = B[0, B22 + c], B[0, B22 + 3 + c], B[0, B22 + 6 + c]
        t = (B[0, B12 + c] + p1 * b2 - p2 * b1, B[0, B12 + 3 + c] + p2 * b0 - p0 * b2,
             B[0, B12 + 6 + c] + p0 * b1 - p1 * b0)
        for r in range(3):
            B[dst, Y + 6 * r + c + 3] += t[r]
            B[dst, Y + 6 * (c + 3) + r] += t[r]
    # P B22 P^T: G = B22 P^T (row r = p x B22[r, :]) into the B11 scratch, then columns p x G[:, c]
    for r in range(3):
        b0, b1, b2 = B[0, B22 + 3 * r], B[0, B22 + 3 * r + 1], B[0, B22 + 3 * r + 2]
        B[0, B11 + 3 * r] = p1 * b2 - p2 * b1
        B[0, B11 + 3 * r + 1] = p2 * b0 - p0 * b2
        B[0, B11 + 3 * r + 2] = p0 * b1 - p1 * b0
    for c in range(3):
        a0, a1, a2 = B[0, B11 + c], B[0, B11 + 3 + c], B[0, B11 + 6 + c]
        B[dst, Y + c] += p1 * a2 - p2 * a1
        B[dst, Y + 6 + c] += p2 * a0 - p0 * a2
        B[dst, Y + 12 + c] += p0 * a1 - p1 * a0


@nb.njit(cache=True)
def rigid_inertia_to_parent_add(B, i, X, dst):
    """Add the rigid-body inertia (m, h, Ibar) = B[i, X:X+13] of body i to B[dst, X:X+13] (parent).

    ``m' = m``, ``h' = R h + m p``, ``Ibar' = R Ibar R^T - ([p][Rh] + [Rh][p] + m [p]^2)`` with
    ``[a][b] = b a^T - (a.b) 1``: the 6x6 ``A I A^T`` for a rigid-body inertia, in 10 numbers.
    """
    m = B[i, X]
    hh = (B[i, X + 1], B[i, X + 2], B[i, X + 3])
    g = (B[i, R] * hh[0] + B[i, R + 1] * hh[1] + B[i, R + 2] * hh[2],
         B[i, R + 3] * hh[0] + B[i, R + 4] * hh[1] + B[i, R + 5] * hh[2],
         B[i, R + 6] * hh[0] + B[i, R + 7] * hh[1] + B[i, R + 8] * hh[2])
    p = (B[i, P], B[i, P + 1], B[i, P + 2])
    B[dst, X] += m
    for r in range(3):
        B[dst, X + 1 + r] += g[r] + m * p[r]
    gp = g[0] * p[0] + g[1] * p[1] + g[2] * p[2]
    pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2]
    for r in range(3):
        # row r of R Ibar
        e0, e1, e2 = B[i, R + 3 * r], B[i, R + 3 * r + 1], B[i, R + 3 * r + 2]
        t0 = e0 * B[i, X + 4] + e1 * B[i, X + 7] + e2 * B[i, X + 10]
        t1 = e0 * B[i, X + 5] + e1 * B[i, X + 8] + e2 * B[i, X + 11]
        t2 = e0 * B[i, X + 6] + e1 * B[i, X + 9] + e2 * B[i, X + 12]
        for c in range(3):
            val = t0 * B[i, R + 3 * c] + t1 * B[i, R + 3 * c + 1] + t2 * B[i, R + 3 * c + 2]
            val -= p[r] * g[c] + g[r] * p[c] + m * p[r] * p[c]
            if r == c:
                val += 2.0 * gp + m * pp
            B[dst, X + 4 + 3 * r + c] += val
