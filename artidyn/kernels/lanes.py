"""Batched RNEA, ABA and CRBA on blocks of states side by side: one instruction, several states.

The per-state kernels (:mod:`.rnea`, :mod:`.aba`, :mod:`.crba`) walk the tree once per state. Here
a block of up to ``LANES`` states walks it together: every quantity of body i is a row of
``LANES`` numbers, one per state (structure of arrays, ``W[i, column, lane]``), and every
statement of the per-state code becomes a loop over the lanes that LLVM turns into vector
instructions (4 or 8 doubles at a time). The model's constants (placements, inertias, joint
types) are the same for every lane: they are read once per body, before the lane loop, so the
lane loops hold no branch. The algebra is the per-state kernels', line for line (same internal
frames of :mod:`.pack`, same order of operations up to the sine and cosine, written here without
branches), and the tests hold the two to round-off.

RNEA and ABA run every lane of a block (a last, partial block has its empty lanes filled with a
copy of its first state), so the lane loops have a constant trip count; their busiest functions
(the articulated inertia to the parent, forces to the parent, motions to the child, the
articulated update of a one-dof joint) read a body's row as one flat array with the constant
stride ``LANES`` (:func:`row`). With both, LLVM addresses every column from one pointer and
vectorises loops over dozens of columns; with ``W[i, column, lane]`` and a run-time lane count
each address is computed from the strides, and ABA spent about half its time in the inertia
transform. CRBA runs blocks of ``L <= LANES`` states (:func:`block_size`) on the 3-D indexing.

Columns of ``W`` (per body, each ``LANES`` wide):

==========  ====  ===========================================================================
WR, WP      9, 3  body i in its parent (R row-major, p)
WV, WA      6, 6  velocity, acceleration
WF, WC      6, 6  wrench (RNEA's f, ABA's p_A) and ABA's c = v (.) S qd
WIA         36    ABA's articulated inertia (6x6 row-major); CRBA's world composite inertia (13)
WU          36    ABA's U = I_A S (nv_i columns of 6); CRBA's world joint twists
WD          36    ABA's D^-1 (row stride 6)
WUU         6     ABA's u = tau - S^T p_A, then u - U^T a'
WR0, WP0    9, 3  CRBA's world placement
WS          12    scratch (sine and cosine of the joint angle, ABA's W = U D^-1 for one dof ...)
==========  ====  ===========================================================================
"""
import math

import numba as nb
import numpy as np

from .pack import (ARM, COUL, DAMP, GRAVITY, H, IBAR, IQ, IV, JTYPE, MASS, NVJ, PARENT, PITCH, PP, PR,
                   REST, STIFF)
from .spatial import (FMA, COS_C, CYLINDRICAL, FREE, HELICAL, PIO2_1, PIO2_2, PIO2_3, PRISMATIC, QUAT_TOL, REVOLUTE,
                      SIN_C, SPHERICAL, TWO_OVER_PI, cross_cols, cross_rows, dof_axis, dof_slides, joint_row, mat_mul,
                      mat_mul_t)
from .types import FRICTION, NO_COULOMB

LANES = 64
WR, WP, WV, WA, WF, WC = 0, 9, 12, 18, 24, 30
WIA, WU, WD, WUU = 36, 72, 108, 144
WR0, WP0, WS = 150, 159, 162
WCOLS = 174

S1, S2, S3, S4, S5, S6, S7, S8 = SIN_C[:8]
C1, C2, C3, C4, C5, C6, C7, C8 = COS_C[:8]


@nb.njit(fastmath=FMA)
def work(B, L):
    """A work array for blocks of L states of the model packed in B (every column is written
    before it is read)."""
    return np.empty((B.shape[0], WCOLS, L))


# --- flat rows ------------------------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def row(W, i):
    """Row i of W as one flat array: column c of lane l at ``c * LANES + l``. With the lane
    stride a constant, LLVM addresses every column from one base pointer (indexing ``W[i, c, l]``
    computes each address from the runtime strides: ~3x slower where a loop reads many columns)."""
    return W[i].reshape(WCOLS * LANES)


@nb.njit(fastmath=FMA)
def flat(A):
    """A block's (n, LANES) array as one flat array (row r of lane l at ``r * LANES + l``)."""
    return A.reshape(A.shape[0] * LANES)


@nb.njit(fastmath=FMA)
def rotation_flat(X, l):
    """R (row-major 9-tuple) of lane l of a flat row."""
    return (X[WR * LANES + l], X[(WR + 1) * LANES + l], X[(WR + 2) * LANES + l], X[(WR + 3) * LANES + l],
            X[(WR + 4) * LANES + l], X[(WR + 5) * LANES + l], X[(WR + 6) * LANES + l],
            X[(WR + 7) * LANES + l], X[(WR + 8) * LANES + l])


@nb.njit(fastmath=FMA)
def block_flat(X, c, l):
    """The 3x3 block at column c (row-major 6x6) of lane l of a flat row, as a 9-tuple."""
    return (X[c * LANES + l], X[(c + 1) * LANES + l], X[(c + 2) * LANES + l], X[(c + 6) * LANES + l],
            X[(c + 7) * LANES + l], X[(c + 8) * LANES + l], X[(c + 12) * LANES + l],
            X[(c + 13) * LANES + l], X[(c + 14) * LANES + l])


# --- loading a block ----------------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def load_block(B, Q, X1, X2, nx, s, nl, Qb, X1b, X2b):
    """Qb[:, l] <- Q[s + l] (quaternions normalised as :func:`.spatial.load_q`), and with nx = 2
    X1b, X2b the same for the rows of X1, X2 (v and a, or v and tau); the first state whose
    inputs are not finite or whose quaternion is not unit, or -1."""
    for l in range(nl):
        k = s + l
        for j in range(Q.shape[1]):
            x = Q[k, j]
            if x - x != 0.0:
                return k
            Qb[j, l] = x
        if nx == 2:
            for j in range(X1.shape[1]):
                x, y = X1[k, j], X2[k, j]
                if x - x != 0.0 or y - y != 0.0:
                    return k
                X1b[j, l] = x
                X2b[j, l] = y
        for i in range(1, B.shape[0]):
            t = int(B[i, JTYPE])
            if t == SPHERICAL or t == FREE:
                o = int(B[i, IQ]) + (3 if t == FREE else 0)
                n = math.sqrt(Qb[o, l] ** 2 + Qb[o + 1, l] ** 2 + Qb[o + 2, l] ** 2 + Qb[o + 3, l] ** 2)
                if abs(n - 1.0) > QUAT_TOL:
                    return k
                for j in range(4):
                    Qb[o + j, l] /= n
    if nx == 2:                           # RNEA, ABA run every lane: those after the last state copy the first
        for l in range(nl, Qb.shape[1]):
            for j in range(Qb.shape[0]):
                Qb[j, l] = Qb[j, 0]
            for j in range(X1b.shape[0]):
                X1b[j, l] = X1b[j, 0]
                X2b[j, l] = X2b[j, 0]
    return -1


# --- joint transforms -----------------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def sin_cos_lanes(W, i, x, nl):
    """W[i, WS] <- sin x, W[i, WS + 1] <- cos x for the lanes of the row x: the reduction and
    polynomials of :func:`.spatial.sin_cos` without branches (|x| >= 1e6 or non-finite: libm)."""
    for l in range(nl):
        xl = x[l]
        k = math.floor(xl * TWO_OVER_PI + 0.5)
        r = ((xl - k * PIO2_1) - k * PIO2_2) - k * PIO2_3
        z = r * r
        s = r + r * z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * (S6 + z * (S7 + z * S8)))))))
        c = 1.0 + z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * (C6 + z * (C7 + z * C8)))))))
        n = np.int64(k) & 3
        sx = c if n & 1 == 1 else s
        cx = s if n & 1 == 1 else c
        W[i, WS, l] = -sx if n & 2 else sx
        W[i, WS + 1, l] = -cx if (n + 1) & 2 else cx
    for l in range(nl):
        if not abs(x[l]) < 1e6:
            W[i, WS, l] = np.sin(x[l])
            W[i, WS + 1, l] = np.cos(x[l])


@nb.njit(fastmath=FMA)
def transform_lanes(B, W, i, Qb, nl):
    """W[i, WR], W[i, WP] <- body i in its parent, T = P_i T_J(q_i), in every lane (as
    :func:`.spatial.joint_transform`)."""
    t, k = int(B[i, JTYPE]), int(B[i, IQ])
    a0, a1, a2, a3, a4, a5, a6, a7, a8 = (B[i, PR], B[i, PR + 1], B[i, PR + 2], B[i, PR + 3], B[i, PR + 4],
                                          B[i, PR + 5], B[i, PR + 6], B[i, PR + 7], B[i, PR + 8])
    p0, p1, p2 = B[i, PP], B[i, PP + 1], B[i, PP + 2]
    if t == REVOLUTE or t == CYLINDRICAL or t == HELICAL:
        sin_cos_lanes(W, i, Qb[k], nl)
        dq = k + 1 if t == CYLINDRICAL else k
        hd = 1.0 if t == CYLINDRICAL else (B[i, PITCH] if t == HELICAL else 0.0)
        for l in range(nl):
            s, c = W[i, WS, l], W[i, WS + 1, l]
            d = hd * Qb[dq, l]
            W[i, WR, l] = c * a0 + s * a1
            W[i, WR + 1, l] = c * a1 - s * a0
            W[i, WR + 2, l] = a2
            W[i, WR + 3, l] = c * a3 + s * a4
            W[i, WR + 4, l] = c * a4 - s * a3
            W[i, WR + 5, l] = a5
            W[i, WR + 6, l] = c * a6 + s * a7
            W[i, WR + 7, l] = c * a7 - s * a6
            W[i, WR + 8, l] = a8
            W[i, WP, l] = p0 + d * a2
            W[i, WP + 1, l] = p1 + d * a5
            W[i, WP + 2, l] = p2 + d * a8
    elif t == PRISMATIC:
        for l in range(nl):
            d = Qb[k, l]
            W[i, WR, l], W[i, WR + 1, l], W[i, WR + 2, l] = a0, a1, a2
            W[i, WR + 3, l], W[i, WR + 4, l], W[i, WR + 5, l] = a3, a4, a5
            W[i, WR + 6, l], W[i, WR + 7, l], W[i, WR + 8, l] = a6, a7, a8
            W[i, WP, l] = p0 + d * a2
            W[i, WP + 1, l] = p1 + d * a5
            W[i, WP + 2, l] = p2 + d * a8
    else:
        o = k + (3 if t == FREE else 0)
        f = 1.0 if t == FREE else 0.0
        for l in range(nl):
            x, y, z, w = Qb[o, l], Qb[o + 1, l], Qb[o + 2, l], Qb[o + 3, l]
            Q00, Q01, Q02 = 1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)
            Q10, Q11, Q12 = 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)
            Q20, Q21, Q22 = 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)
            W[i, WR, l] = a0 * Q00 + a1 * Q10 + a2 * Q20
            W[i, WR + 1, l] = a0 * Q01 + a1 * Q11 + a2 * Q21
            W[i, WR + 2, l] = a0 * Q02 + a1 * Q12 + a2 * Q22
            W[i, WR + 3, l] = a3 * Q00 + a4 * Q10 + a5 * Q20
            W[i, WR + 4, l] = a3 * Q01 + a4 * Q11 + a5 * Q21
            W[i, WR + 5, l] = a3 * Q02 + a4 * Q12 + a5 * Q22
            W[i, WR + 6, l] = a6 * Q00 + a7 * Q10 + a8 * Q20
            W[i, WR + 7, l] = a6 * Q01 + a7 * Q11 + a8 * Q21
            W[i, WR + 8, l] = a6 * Q02 + a7 * Q12 + a8 * Q22
            tx, ty, tz = f * Qb[k, l], f * Qb[k + 1, l], f * Qb[k + 2, l]
            W[i, WP, l] = p0 + a0 * tx + a1 * ty + a2 * tz
            W[i, WP + 1, l] = p1 + a3 * tx + a4 * ty + a5 * tz
            W[i, WP + 2, l] = p2 + a6 * tx + a7 * ty + a8 * tz


@nb.njit(fastmath=FMA)
def joint_map(B, i):
    """(rows, coefs), two 6-tuples: component c of S x_i is coefs[c] * x[rows[c]] (coefs 0 where S
    has no entry), for the joint of body i and an nv-vector x."""
    t, k = int(B[i, JTYPE]), int(B[i, IV])
    if t == FREE:
        return (k, k + 1, k + 2, k + 3, k + 4, k + 5), (1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    if t == SPHERICAL:
        return (k, k + 1, k + 2, k, k, k), (1.0, 1.0, 1.0, 0.0, 0.0, 0.0)
    if t == PRISMATIC:
        return (k, k, k, k, k, k), (0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    if t == CYLINDRICAL:
        return (k, k, k, k, k, k + 1), (0.0, 0.0, 1.0, 0.0, 0.0, 1.0)
    h = B[i, PITCH] if t == HELICAL else 0.0
    return (k, k, k, k, k, k), (0.0, 0.0, 1.0, 0.0, 0.0, h)


# --- spatial algebra on lanes ---------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def motion_to_child_lanes(W, i, src, X, Y, Xb, rows, coefs):
    """W[i, Y] <- A_i^t W[src, X] + S x_i (x = the block's nv x lanes array Xb); every lane."""
    Wi, Ws, Xbf = row(W, i), row(W, src), flat(Xb)
    r0, r1, r2, r3, r4, r5 = rows[0], rows[1], rows[2], rows[3], rows[4], rows[5]
    c0, c1, c2, c3, c4, c5 = coefs[0], coefs[1], coefs[2], coefs[3], coefs[4], coefs[5]
    for l in range(LANES):
        w0, w1, w2 = Ws[X * LANES + l], Ws[(X + 1) * LANES + l], Ws[(X + 2) * LANES + l]
        p0, p1, p2 = Wi[WP * LANES + l], Wi[(WP + 1) * LANES + l], Wi[(WP + 2) * LANES + l]
        u0 = Ws[(X + 3) * LANES + l] - (p1 * w2 - p2 * w1)
        u1 = Ws[(X + 4) * LANES + l] - (p2 * w0 - p0 * w2)
        u2 = Ws[(X + 5) * LANES + l] - (p0 * w1 - p1 * w0)
        e0, e1, e2, e3, e4, e5, e6, e7, e8 = rotation_flat(Wi, l)
        Wi[Y * LANES + l] = e0 * w0 + e3 * w1 + e6 * w2 + c0 * Xbf[r0 * LANES + l]
        Wi[(Y + 1) * LANES + l] = e1 * w0 + e4 * w1 + e7 * w2 + c1 * Xbf[r1 * LANES + l]
        Wi[(Y + 2) * LANES + l] = e2 * w0 + e5 * w1 + e8 * w2 + c2 * Xbf[r2 * LANES + l]
        Wi[(Y + 3) * LANES + l] = e0 * u0 + e3 * u1 + e6 * u2 + c3 * Xbf[r3 * LANES + l]
        Wi[(Y + 4) * LANES + l] = e1 * u0 + e4 * u1 + e7 * u2 + c4 * Xbf[r4 * LANES + l]
        Wi[(Y + 5) * LANES + l] = e2 * u0 + e5 * u1 + e8 * u2 + c5 * Xbf[r5 * LANES + l]


@nb.njit(fastmath=FMA)
def velocity_product_lanes(W, i, Vd, rows, coefs, Y, add, nl):
    """W[i, Y] += v_i (.) S qd_i (add) or W[i, Y] <- v_i (.) S qd_i, v_i = W[i, WV], qd the
    block's Vd."""
    r0, r1, r2, r3, r4, r5 = rows[0], rows[1], rows[2], rows[3], rows[4], rows[5]
    c0, c1, c2, c3, c4, c5 = coefs[0], coefs[1], coefs[2], coefs[3], coefs[4], coefs[5]
    if not add:
        for r in range(6):
            for l in range(nl):
                W[i, Y + r, l] = 0.0
    for l in range(nl):
        a0, a1, a2 = c0 * Vd[r0, l], c1 * Vd[r1, l], c2 * Vd[r2, l]
        b0, b1, b2 = c3 * Vd[r3, l], c4 * Vd[r4, l], c5 * Vd[r5, l]
        w0, w1, w2 = W[i, WV, l], W[i, WV + 1, l], W[i, WV + 2, l]
        v0, v1, v2 = W[i, WV + 3, l], W[i, WV + 4, l], W[i, WV + 5, l]
        W[i, Y, l] += w1 * a2 - w2 * a1
        W[i, Y + 1, l] += w2 * a0 - w0 * a2
        W[i, Y + 2, l] += w0 * a1 - w1 * a0
        W[i, Y + 3, l] += w1 * b2 - w2 * b1 + v1 * a2 - v2 * a1
        W[i, Y + 4, l] += w2 * b0 - w0 * b2 + v2 * a0 - v0 * a2
        W[i, Y + 5, l] += w0 * b1 - w1 * b0 + v0 * a1 - v1 * a0


@nb.njit(fastmath=FMA)
def body_force_lanes(B, W, i, Y, acc, nl):
    """W[i, Y] <- (I_i a_i if acc) + v_i (+) I_i v_i: the body's inertia (constants of B) applied
    to its acceleration W[i, WA] and velocity W[i, WV]."""
    m, h0, h1, h2 = B[i, MASS], B[i, H], B[i, H + 1], B[i, H + 2]
    I0, I1, I2, I3, I4, I5, I6, I7, I8 = (B[i, IBAR], B[i, IBAR + 1], B[i, IBAR + 2], B[i, IBAR + 3],
                                          B[i, IBAR + 4], B[i, IBAR + 5], B[i, IBAR + 6], B[i, IBAR + 7],
                                          B[i, IBAR + 8])
    if not acc:                   # p_A = v (+) I v: the acceleration columns are not read
        for r in range(6):
            for l in range(nl):
                W[i, WA + r, l] = 0.0
    for l in range(nl):
        aw0, aw1, aw2 = W[i, WA, l], W[i, WA + 1, l], W[i, WA + 2, l]
        av0, av1, av2 = W[i, WA + 3, l], W[i, WA + 4, l], W[i, WA + 5, l]
        vw0, vw1, vw2 = W[i, WV, l], W[i, WV + 1, l], W[i, WV + 2, l]
        vv0, vv1, vv2 = W[i, WV + 3, l], W[i, WV + 4, l], W[i, WV + 5, l]
        fa0 = I0 * aw0 + I1 * aw1 + I2 * aw2 + h1 * av2 - h2 * av1
        fa1 = I3 * aw0 + I4 * aw1 + I5 * aw2 + h2 * av0 - h0 * av2
        fa2 = I6 * aw0 + I7 * aw1 + I8 * aw2 + h0 * av1 - h1 * av0
        fa3 = m * av0 - (h1 * aw2 - h2 * aw1)
        fa4 = m * av1 - (h2 * aw0 - h0 * aw2)
        fa5 = m * av2 - (h0 * aw1 - h1 * aw0)
        c0 = I0 * vw0 + I1 * vw1 + I2 * vw2 + h1 * vv2 - h2 * vv1
        c1 = I3 * vw0 + I4 * vw1 + I5 * vw2 + h2 * vv0 - h0 * vv2
        c2 = I6 * vw0 + I7 * vw1 + I8 * vw2 + h0 * vv1 - h1 * vv0
        c3 = m * vv0 - (h1 * vw2 - h2 * vw1)
        c4 = m * vv1 - (h2 * vw0 - h0 * vw2)
        c5 = m * vv2 - (h0 * vw1 - h1 * vw0)
        W[i, Y, l] = fa0 + vw1 * c2 - vw2 * c1 + vv1 * c5 - vv2 * c4
        W[i, Y + 1, l] = fa1 + vw2 * c0 - vw0 * c2 + vv2 * c3 - vv0 * c5
        W[i, Y + 2, l] = fa2 + vw0 * c1 - vw1 * c0 + vv0 * c4 - vv1 * c3
        W[i, Y + 3, l] = fa3 + vw1 * c5 - vw2 * c4
        W[i, Y + 4, l] = fa4 + vw2 * c3 - vw0 * c5
        W[i, Y + 5, l] = fa5 + vw0 * c4 - vw1 * c3


@nb.njit(fastmath=FMA)
def force_to_parent_lanes(W, i, X, dst, Y):
    """W[dst, Y] += A_i W[i, X]: a force of body i, about its parent's origin; every lane."""
    S, D = row(W, i), row(W, dst)
    for l in range(LANES):
        m0, m1, m2 = S[X * LANES + l], S[(X + 1) * LANES + l], S[(X + 2) * LANES + l]
        g0, g1, g2 = S[(X + 3) * LANES + l], S[(X + 4) * LANES + l], S[(X + 5) * LANES + l]
        e0, e1, e2, e3, e4, e5, e6, e7, e8 = rotation_flat(S, l)
        p0, p1, p2 = S[WP * LANES + l], S[(WP + 1) * LANES + l], S[(WP + 2) * LANES + l]
        f0 = e0 * g0 + e1 * g1 + e2 * g2
        f1 = e3 * g0 + e4 * g1 + e5 * g2
        f2 = e6 * g0 + e7 * g1 + e8 * g2
        D[Y * LANES + l] += e0 * m0 + e1 * m1 + e2 * m2 + p1 * f2 - p2 * f1
        D[(Y + 1) * LANES + l] += e3 * m0 + e4 * m1 + e5 * m2 + p2 * f0 - p0 * f2
        D[(Y + 2) * LANES + l] += e6 * m0 + e7 * m1 + e8 * m2 + p0 * f1 - p1 * f0
        D[(Y + 3) * LANES + l] += f0
        D[(Y + 4) * LANES + l] += f1
        D[(Y + 5) * LANES + l] += f2


@nb.njit(fastmath=FMA)
def joint_torque_lanes(B, W, i, j, X, Qb, Vd, Ad, opts, Tb, sign, nl):
    """Tb[k + j] <- sign * S_ij^T W[i, X] + armature a + spring + friction (RNEA's projection:
    sign 1, Ad = qdd); with sign -1 and Ad = None-like zeros it is ABA's u - tau part."""
    t, k = int(B[i, JTYPE]), int(B[i, IV])
    row = joint_row(t, j)
    hp = B[i, PITCH] if t == HELICAL else 0.0
    arm, kst, rest = B[i, ARM + j], B[i, STIFF + j], B[i, REST + j]
    damp = B[i, DAMP + j] if opts & FRICTION else 0.0
    coul = B[i, COUL + j] if opts & FRICTION and not opts & NO_COULOMB else 0.0
    kq = int(B[i, IQ]) + j                  # springs live on flat joints only: q_j is q[iq + j]
    for l in range(nl):
        x = sign * (W[i, X + row, l] + hp * W[i, X + 5, l]) + arm * Ad[k + j, l]
        qd = Vd[k + j, l]
        s = 1.0 if qd > 0 else (-1.0 if qd < 0 else 0.0)
        Tb[k + j, l] = x + damp * qd + coul * s
    if kst != 0.0:
        for l in range(nl):
            Tb[k + j, l] += kst * (Qb[kq, l] - rest)


# --- RNEA -----------------------------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def root_lanes(B, W, nl):
    """The world row: v_0 = 0, a_0 = -[0; g]."""
    for r in range(6):
        g = -B[0, GRAVITY + r - 3] if r >= 3 else 0.0
        for l in range(nl):
            W[0, WV + r, l] = 0.0
            W[0, WA + r, l] = g


@nb.njit(fastmath=FMA)
def rnea_lanes(B, W, Qb, Vd, Ad, opts, Tb):
    """RNEA (as :func:`.rnea.rnea_state`, no external wrenches) on every lane of the block (W, Qb,
    Vd, Ad LANES wide): Tb (nv, LANES) <- the joint torques."""
    nl = LANES                  # every lane: load_block fills the lanes after the last state
    nb1 = B.shape[0]
    root_lanes(B, W, nl)
    for i in range(1, nb1):
        par = int(B[i, PARENT])
        rows, coefs = joint_map(B, i)
        transform_lanes(B, W, i, Qb, nl)
        motion_to_child_lanes(W, i, par, WV, WV, Vd, rows, coefs)
        motion_to_child_lanes(W, i, par, WA, WA, Ad, rows, coefs)
        velocity_product_lanes(W, i, Vd, rows, coefs, WA, True, nl)
        body_force_lanes(B, W, i, WF, True, nl)
    for i in range(nb1 - 1, 0, -1):
        for j in range(int(B[i, NVJ])):
            joint_torque_lanes(B, W, i, j, WF, Qb, Vd, Ad, opts, Tb, 1.0, nl)
        par = int(B[i, PARENT])
        if par > 0:
            force_to_parent_lanes(W, i, WF, par, WF)


# --- ABA ------------------------------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def inertia_matrix_lanes(B, W, i, nl):
    """W[i, WIA] <- the 6x6 spatial inertia of body i, [[Ibar, [h]], [[h]^T, m 1]], every lane."""
    m, h0, h1, h2 = B[i, MASS], B[i, H], B[i, H + 1], B[i, H + 2]
    hx = ((0.0, -h2, h1), (h2, 0.0, -h0), (-h1, h0, 0.0))
    for r in range(3):
        for c in range(3):
            ib, mm, hh = B[i, IBAR + 3 * r + c], (m if r == c else 0.0), hx[r][c]
            for l in range(nl):
                W[i, WIA + 6 * r + c, l] = ib
                W[i, WIA + 6 * (r + 3) + c + 3, l] = mm
                W[i, WIA + 6 * r + c + 3, l] = hh
                W[i, WIA + 6 * (c + 3) + r, l] = hh


@nb.njit(fastmath=FMA)
def joint_bias_lanes(B, W, i, j, Qb, Vd, Tau, opts, nl):
    """W[i, WUU + j] <- u_j = tau_j - S_ij^T p_A - spring - friction (as :func:`.aba.aba_pass2`)."""
    t, k = int(B[i, JTYPE]), int(B[i, IV])
    row = joint_row(t, j)
    hp = B[i, PITCH] if t == HELICAL else 0.0
    kst, rest = B[i, STIFF + j], B[i, REST + j]
    damp = B[i, DAMP + j] if opts & FRICTION else 0.0
    coul = B[i, COUL + j] if opts & FRICTION and not opts & NO_COULOMB else 0.0
    kq = int(B[i, IQ]) + j
    for l in range(nl):
        qd = Vd[k + j, l]
        s = 1.0 if qd > 0 else (-1.0 if qd < 0 else 0.0)
        W[i, WUU + j, l] = Tau[k + j, l] - (W[i, WF + row, l] + hp * W[i, WF + 5, l]) - damp * qd - coul * s
    if kst != 0.0:
        for l in range(nl):
            W[i, WUU + j, l] -= kst * (Qb[kq, l] - rest)


@nb.njit(fastmath=FMA)
def invert_lanes(W, i, X, n, nl):
    """W[i, X:] (n x n, row stride 6, every lane) <- its inverse: Gauss-Jordan as
    :func:`.aba.invert_spd`, with row 0's WS columns holding the pivots' factors."""
    for p in range(n):
        for l in range(nl):
            W[0, WS, l] = 1.0 / W[i, X + 7 * p, l]
            W[i, X + 7 * p, l] = 1.0
        for c in range(n):
            for l in range(nl):
                W[i, X + 6 * p + c, l] *= W[0, WS, l]
        for r in range(n):
            if r != p:
                for l in range(nl):
                    W[0, WS + 1, l] = W[i, X + 6 * r + p, l]
                    W[i, X + 6 * r + p, l] = 0.0
                for c in range(n):
                    for l in range(nl):
                        W[i, X + 6 * r + c, l] -= W[0, WS + 1, l] * W[i, X + 6 * p + c, l]


@nb.njit(fastmath=FMA)
def inertia_to_parent_lanes(W, i, dst):
    """W[dst, WIA] += A W[i, WIA] A^T for the symmetric articulated inertia of body i, as
    :func:`.spatial.inertia_to_parent_add`: rotated blocks ``R X_jk R^T``, then the origin shift;
    every lane."""
    X, Y = row(W, i), row(W, dst)
    for l in range(LANES):
        Rm = rotation_flat(X, l)
        p = (X[WP * LANES + l], X[(WP + 1) * LANES + l], X[(WP + 2) * LANES + l])
        B11 = mat_mul_t(mat_mul(Rm, block_flat(X, WIA, l)), Rm)
        B12 = mat_mul_t(mat_mul(Rm, block_flat(X, WIA + 3, l)), Rm)
        B22 = mat_mul_t(mat_mul(Rm, block_flat(X, WIA + 21, l)), Rm)
        E = cross_rows(p, B12)
        T12 = cross_cols(p, B22)
        PBP = cross_cols(p, cross_rows(p, B22))
        for r in range(3):
            for c in range(3):
                k = 3 * r + c
                Y[(WIA + 6 * r + c) * LANES + l] += B11[k] + E[k] + E[3 * c + r] + PBP[k]
                t = B12[k] + T12[k]
                Y[(WIA + 6 * r + c + 3) * LANES + l] += t
                Y[(WIA + 6 * (c + 3) + r) * LANES + l] += t
                Y[(WIA + 6 * (r + 3) + c + 3) * LANES + l] += B22[k]


@nb.njit(fastmath=FMA)
def articulated_lanes(W, i, n, nl):
    """I_a = I_A - U D^-1 U^T, p_a = p_A + I_a c + U D^-1 u in place (WIA, WF of row i), as
    :func:`.aba.multi_dof_articulated` (row 0's WD, WUU columns hold W = U D^-1 and D^-1 u)."""
    for j in range(n):
        for r in range(6):
            for l in range(nl):
                W[0, WD + 6 * j + r, l] = 0.0
            for q in range(n):
                for l in range(nl):
                    W[0, WD + 6 * j + r, l] += W[i, WU + 6 * q + r, l] * W[i, WD + 6 * q + j, l]
        for l in range(nl):
            W[0, WUU + j, l] = 0.0
        for q in range(n):
            for l in range(nl):
                W[0, WUU + j, l] += W[i, WD + 6 * j + q, l] * W[i, WUU + q, l]
    for r in range(6):
        for c in range(6):
            for j in range(n):
                for l in range(nl):
                    W[i, WIA + 6 * r + c, l] -= W[0, WD + 6 * j + r, l] * W[i, WU + 6 * j + c, l]
        for l in range(nl):
            W[i, WF + r, l] += (W[i, WIA + 6 * r, l] * W[i, WC, l] + W[i, WIA + 6 * r + 1, l] * W[i, WC + 1, l]
                                + W[i, WIA + 6 * r + 2, l] * W[i, WC + 2, l]
                                + W[i, WIA + 6 * r + 3, l] * W[i, WC + 3, l]
                                + W[i, WIA + 6 * r + 4, l] * W[i, WC + 4, l]
                                + W[i, WIA + 6 * r + 5, l] * W[i, WC + 5, l])
        for j in range(n):
            for l in range(nl):
                W[i, WF + r, l] += W[i, WU + 6 * j + r, l] * W[0, WUU + j, l]


@nb.njit(fastmath=FMA)
def articulated_one_lanes(W, i):
    """:func:`articulated_lanes` for a joint of one dof (D^-1 a scalar), on the flat row: the 36
    entries of I_a and the 6 of p_a in one lane loop."""
    X = row(W, i)
    for l in range(LANES):
        d, u = X[WD * LANES + l], X[WUU * LANES + l]
        U = (X[WU * LANES + l], X[(WU + 1) * LANES + l], X[(WU + 2) * LANES + l], X[(WU + 3) * LANES + l],
             X[(WU + 4) * LANES + l], X[(WU + 5) * LANES + l])
        C = (X[WC * LANES + l], X[(WC + 1) * LANES + l], X[(WC + 2) * LANES + l], X[(WC + 3) * LANES + l],
             X[(WC + 4) * LANES + l], X[(WC + 5) * LANES + l])
        du = d * u
        for r in range(6):
            w = U[r] * d
            acc = 0.0
            for c in range(6):
                a = X[(WIA + 6 * r + c) * LANES + l] - w * U[c]
                X[(WIA + 6 * r + c) * LANES + l] = a
                acc += a * C[c]
            X[(WF + r) * LANES + l] += acc + U[r] * du


@nb.njit(fastmath=FMA)
def aba_lanes(B, W, Qb, Vd, Tau, opts, Ab):
    """ABA (as :func:`.aba.aba_state`, no external wrenches) on every lane of the block (W, Qb,
    Vd, Tau LANES wide): Ab (nv, LANES) <- the joint accelerations."""
    nl = LANES                  # every lane: load_block fills the lanes after the last state
    nb1 = B.shape[0]
    root_lanes(B, W, nl)
    zero = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for i in range(1, nb1):
        par = int(B[i, PARENT])
        rows, coefs = joint_map(B, i)
        transform_lanes(B, W, i, Qb, nl)
        motion_to_child_lanes(W, i, par, WV, WV, Vd, rows, coefs)
        velocity_product_lanes(W, i, Vd, rows, coefs, WC, False, nl)
        inertia_matrix_lanes(B, W, i, nl)
        body_force_lanes(B, W, i, WF, False, nl)
    for i in range(nb1 - 1, 0, -1):
        t, n = int(B[i, JTYPE]), int(B[i, NVJ])
        hp = B[i, PITCH] if t == HELICAL else 0.0
        for j in range(n):
            row = joint_row(t, j)
            for r in range(6):
                for l in range(nl):
                    W[i, WU + 6 * j + r, l] = W[i, WIA + 6 * r + row, l] + hp * W[i, WIA + 6 * r + 5, l]
            joint_bias_lanes(B, W, i, j, Qb, Vd, Tau, opts, nl)
        for j in range(n):
            arm = B[i, ARM + j]
            for jj in range(n):
                row = joint_row(t, jj)
                a = arm if jj == j else 0.0
                for l in range(nl):
                    W[i, WD + 6 * j + jj, l] = W[i, WU + 6 * j + row, l] + hp * W[i, WU + 6 * j + 5, l] + a
        if n == 1:
            for l in range(nl):
                W[i, WD, l] = 1.0 / W[i, WD, l]
        else:
            invert_lanes(W, i, WD, n, nl)
        par = int(B[i, PARENT])
        if par == 0:
            continue
        if n == 1:
            articulated_one_lanes(W, i)
        else:
            articulated_lanes(W, i, n, nl)
        inertia_to_parent_lanes(W, i, par)
        force_to_parent_lanes(W, i, WF, par, WF)
    for i in range(1, nb1):
        par = int(B[i, PARENT])
        t, k, n = int(B[i, JTYPE]), int(B[i, IV]), int(B[i, NVJ])
        hp = B[i, PITCH] if t == HELICAL else 0.0
        motion_to_child_lanes(W, i, par, WA, WA, Vd, (k, k, k, k, k, k), zero)
        for r in range(6):
            for l in range(nl):
                W[i, WA + r, l] += W[i, WC + r, l]
        for j in range(n):
            for l in range(nl):
                W[0, WUU + j, l] = W[i, WUU + j, l] - (
                    W[i, WU + 6 * j, l] * W[i, WA, l] + W[i, WU + 6 * j + 1, l] * W[i, WA + 1, l]
                    + W[i, WU + 6 * j + 2, l] * W[i, WA + 2, l] + W[i, WU + 6 * j + 3, l] * W[i, WA + 3, l]
                    + W[i, WU + 6 * j + 4, l] * W[i, WA + 4, l] + W[i, WU + 6 * j + 5, l] * W[i, WA + 5, l])
        for j in range(n):
            row = joint_row(t, j)
            for l in range(nl):
                Ab[k + j, l] = 0.0
            for q in range(n):
                for l in range(nl):
                    Ab[k + j, l] += W[i, WD + 6 * j + q, l] * W[0, WUU + q, l]
            for l in range(nl):
                W[i, WA + row, l] += Ab[k + j, l]
                W[i, WA + 5, l] += hp * Ab[k + j, l]


# --- CRBA -----------------------------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def placements_lanes(B, W, Qb, nl):
    """W[i, WR0], W[i, WP0] <- the world placement of every body (internal frames), every lane,
    as :func:`.kinematics.placements_state`."""
    for r in range(3):
        for c in range(3):
            e = 1.0 if r == c else 0.0
            for l in range(nl):
                W[0, WR0 + 3 * r + c, l] = e
        for l in range(nl):
            W[0, WP0 + r, l] = 0.0
    for i in range(1, B.shape[0]):
        par = int(B[i, PARENT])
        transform_lanes(B, W, i, Qb, nl)
        for r in range(3):
            for l in range(nl):
                a0, a1, a2 = W[par, WR0 + 3 * r, l], W[par, WR0 + 3 * r + 1, l], W[par, WR0 + 3 * r + 2, l]
                W[i, WR0 + 3 * r, l] = a0 * W[i, WR, l] + a1 * W[i, WR + 3, l] + a2 * W[i, WR + 6, l]
                W[i, WR0 + 3 * r + 1, l] = a0 * W[i, WR + 1, l] + a1 * W[i, WR + 4, l] + a2 * W[i, WR + 7, l]
                W[i, WR0 + 3 * r + 2, l] = a0 * W[i, WR + 2, l] + a1 * W[i, WR + 5, l] + a2 * W[i, WR + 8, l]
                W[i, WP0 + r, l] = W[par, WP0 + r, l] + a0 * W[i, WP, l] + a1 * W[i, WP + 1, l] + a2 * W[i, WP + 2, l]


@nb.njit(fastmath=FMA)
def world_inertia_lanes(B, W, i, nl):
    """W[i, WIA:WIA+13] <- (m, h, Ibar) of body i about the world origin in world axes, as
    :func:`.spatial.rigid_inertia_transform_add` with the world placement (R0, P0)."""
    m, hb0, hb1, hb2 = B[i, MASS], B[i, H], B[i, H + 1], B[i, H + 2]
    I0, I1, I2, I3, I4, I5, I6, I7, I8 = (B[i, IBAR], B[i, IBAR + 1], B[i, IBAR + 2], B[i, IBAR + 3],
                                          B[i, IBAR + 4], B[i, IBAR + 5], B[i, IBAR + 6], B[i, IBAR + 7],
                                          B[i, IBAR + 8])
    for l in range(nl):
        e0, e1, e2, e3, e4, e5, e6, e7, e8 = (W[i, WR0, l], W[i, WR0 + 1, l], W[i, WR0 + 2, l], W[i, WR0 + 3, l],
                                              W[i, WR0 + 4, l], W[i, WR0 + 5, l], W[i, WR0 + 6, l],
                                              W[i, WR0 + 7, l], W[i, WR0 + 8, l])
        p0, p1, p2 = W[i, WP0, l], W[i, WP0 + 1, l], W[i, WP0 + 2, l]
        g0 = e0 * hb0 + e1 * hb1 + e2 * hb2
        g1 = e3 * hb0 + e4 * hb1 + e5 * hb2
        g2 = e6 * hb0 + e7 * hb1 + e8 * hb2
        W[i, WIA, l] = m
        W[i, WIA + 1, l] = g0 + m * p0
        W[i, WIA + 2, l] = g1 + m * p1
        W[i, WIA + 3, l] = g2 + m * p2
        gp = g0 * p0 + g1 * p1 + g2 * p2
        pp = p0 * p0 + p1 * p1 + p2 * p2
        d = 2.0 * gp + m * pp
        # R Ibar (rows), then (R Ibar) R^T
        t0, t1, t2 = e0 * I0 + e1 * I3 + e2 * I6, e0 * I1 + e1 * I4 + e2 * I7, e0 * I2 + e1 * I5 + e2 * I8
        t3, t4, t5 = e3 * I0 + e4 * I3 + e5 * I6, e3 * I1 + e4 * I4 + e5 * I7, e3 * I2 + e4 * I5 + e5 * I8
        t6, t7, t8 = e6 * I0 + e7 * I3 + e8 * I6, e6 * I1 + e7 * I4 + e8 * I7, e6 * I2 + e7 * I5 + e8 * I8
        W[i, WIA + 4, l] = t0 * e0 + t1 * e1 + t2 * e2 - (2.0 * p0 * g0 + m * p0 * p0) + d
        W[i, WIA + 5, l] = t0 * e3 + t1 * e4 + t2 * e5 - (p0 * g1 + g0 * p1 + m * p0 * p1)
        W[i, WIA + 6, l] = t0 * e6 + t1 * e7 + t2 * e8 - (p0 * g2 + g0 * p2 + m * p0 * p2)
        W[i, WIA + 7, l] = t3 * e0 + t4 * e1 + t5 * e2 - (p1 * g0 + g1 * p0 + m * p1 * p0)
        W[i, WIA + 8, l] = t3 * e3 + t4 * e4 + t5 * e5 - (2.0 * p1 * g1 + m * p1 * p1) + d
        W[i, WIA + 9, l] = t3 * e6 + t4 * e7 + t5 * e8 - (p1 * g2 + g1 * p2 + m * p1 * p2)
        W[i, WIA + 10, l] = t6 * e0 + t7 * e1 + t8 * e2 - (p2 * g0 + g2 * p0 + m * p2 * p0)
        W[i, WIA + 11, l] = t6 * e3 + t7 * e4 + t8 * e5 - (p2 * g1 + g2 * p1 + m * p2 * p1)
        W[i, WIA + 12, l] = t6 * e6 + t7 * e7 + t8 * e8 - (2.0 * p2 * g2 + m * p2 * p2) + d


@nb.njit(fastmath=FMA)
def world_twists_lanes(B, W, i, nl):
    """W[i, WU + 6 j] <- the world twist of dof j of body i's joint, every lane, as
    :func:`.crba.world_twists`."""
    t = int(B[i, JTYPE])
    h = B[i, PITCH] if t == HELICAL else 0.0
    for j in range(int(B[i, NVJ])):
        a = dof_axis(t, j)
        o = WU + 6 * j
        if dof_slides(t, j):
            for l in range(nl):
                W[i, o, l] = W[i, o + 1, l] = W[i, o + 2, l] = 0.0
                W[i, o + 3, l] = W[i, WR0 + a, l]
                W[i, o + 4, l] = W[i, WR0 + 3 + a, l]
                W[i, o + 5, l] = W[i, WR0 + 6 + a, l]
        else:
            for l in range(nl):
                u0, u1, u2 = W[i, WR0 + a, l], W[i, WR0 + 3 + a, l], W[i, WR0 + 6 + a, l]
                p0, p1, p2 = W[i, WP0, l], W[i, WP0 + 1, l], W[i, WP0 + 2, l]
                W[i, o, l], W[i, o + 1, l], W[i, o + 2, l] = u0, u1, u2
                W[i, o + 3, l] = p1 * u2 - p2 * u1 + h * u0
                W[i, o + 4, l] = p2 * u0 - p0 * u2 + h * u1
                W[i, o + 5, l] = p0 * u1 - p1 * u0 + h * u2


@nb.njit(cache=True)
def crba_pairs(B):
    """The structural nonzeros of M in the order :func:`crba_lanes` computes them: for each dof
    c (body i, dof j) the dofs r of its ancestors' joints (and of its own up to j), pairs p with
    (R[p], C[p]) = (r, c), r <= c; and ``where`` (nv * nv,): the pair of each entry of M
    (row-major, either triangle), or the number of pairs for a structural zero."""
    nb1, nv = B.shape[0], int(B[0, IV])
    n = 0
    for i in range(1, nb1):
        for j in range(int(B[i, NVJ])):
            a = i
            while a > 0:
                n += j + 1 if a == i else int(B[a, NVJ])
                a = int(B[a, PARENT])
    R, C = np.empty(n, np.int64), np.empty(n, np.int64)
    where = np.full(nv * nv, n, np.int64)
    p = 0
    for i in range(1, nb1):
        k = int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            a = i
            while a > 0:
                ka = int(B[a, IV])
                for jj in range(j + 1 if a == i else int(B[a, NVJ])):
                    R[p], C[p] = ka + jj, k + j
                    where[(ka + jj) * nv + k + j] = where[(k + j) * nv + ka + jj] = p
                    p += 1
                a = int(B[a, PARENT])
    return R, C, where


@nb.njit(fastmath=FMA)
def crba_lanes(B, W, Qb, Mb, where, out, s0, nl):
    """CRBA (as :func:`.crba.crba_state`) for the nl states of the block: rows s0 .. s0+nl-1 of
    ``out`` (N, nv * nv) <- the mass matrices, row-major. The structural nonzeros go to ``Mb``
    (pairs + 1, lanes; the last row zeros) in the order of :func:`crba_pairs`, then each state's
    matrix is written in one sweep from ``where`` (scattered writes across the states' rows would
    leave the cache for all but the smallest models)."""
    nb1 = B.shape[0]
    placements_lanes(B, W, Qb, nl)
    for i in range(1, nb1):
        world_inertia_lanes(B, W, i, nl)
        world_twists_lanes(B, W, i, nl)
    for i in range(nb1 - 1, 0, -1):
        par = int(B[i, PARENT])
        if par > 0:
            for j in range(13):
                for l in range(nl):
                    W[par, WIA + j, l] += W[i, WIA + j, l]
    p = 0
    for i in range(1, nb1):
        n = int(B[i, NVJ])
        for j in range(n):
            o = WU + 6 * j
            for l in range(nl):   # F = I_C s_ij into the scratch columns
                m, h0, h1, h2 = W[i, WIA, l], W[i, WIA + 1, l], W[i, WIA + 2, l], W[i, WIA + 3, l]
                w0, w1, w2 = W[i, o, l], W[i, o + 1, l], W[i, o + 2, l]
                v0, v1, v2 = W[i, o + 3, l], W[i, o + 4, l], W[i, o + 5, l]
                b = WIA + 4
                W[i, WS, l] = W[i, b, l] * w0 + W[i, b + 1, l] * w1 + W[i, b + 2, l] * w2 + h1 * v2 - h2 * v1
                W[i, WS + 1, l] = W[i, b + 3, l] * w0 + W[i, b + 4, l] * w1 + W[i, b + 5, l] * w2 + h2 * v0 - h0 * v2
                W[i, WS + 2, l] = W[i, b + 6, l] * w0 + W[i, b + 7, l] * w1 + W[i, b + 8, l] * w2 + h0 * v1 - h1 * v0
                W[i, WS + 3, l] = m * v0 - (h1 * w2 - h2 * w1)
                W[i, WS + 4, l] = m * v1 - (h2 * w0 - h0 * w2)
                W[i, WS + 5, l] = m * v2 - (h0 * w1 - h1 * w0)
            d = p + j     # the diagonal: the walk starts with this joint's dofs 0 .. j
            a = i
            while a > 0:
                for jj in range(j + 1 if a == i else int(B[a, NVJ])):
                    s = WU + 6 * jj
                    for l in range(nl):
                        Mb[p, l] = (W[a, s, l] * W[i, WS, l] + W[a, s + 1, l] * W[i, WS + 1, l]
                                    + W[a, s + 2, l] * W[i, WS + 2, l] + W[a, s + 3, l] * W[i, WS + 3, l]
                                    + W[a, s + 4, l] * W[i, WS + 4, l] + W[a, s + 5, l] * W[i, WS + 5, l])
                    p += 1
                a = int(B[a, PARENT])
            arm = B[i, ARM + j]
            for l in range(nl):
                Mb[d, l] += arm
    for l in range(nl):
        o = out[s0 + l]
        for r in range(where.shape[0]):
            o[r] = Mb[where[r], l]


# --- a run of blocks --------------------------------------------------------------------------------

RNEA, ABA, CRBA = 0, 1, 2  # as .batch
CRBA_BLOCK_BYTES = 1 << 20


@nb.njit(cache=True)
def block_size(B, kind):
    """The number of states of a block: ``LANES``, and for CRBA fewer when the block's nonzeros
    would outgrow ``CRBA_BLOCK_BYTES`` (about a cache's worth; at least 16 states)."""
    L = LANES
    if kind == CRBA:
        n = crba_pairs(B)[0].shape[0] + 1
        while L > 16 and n * L * 8 > CRBA_BLOCK_BYTES:
            L //= 2
    return L


@nb.njit(cache=True)
def run_lanes(B, kind, Q, X1, X2, opts, out, lo, hi, L=LANES):
    """States lo .. hi-1 of RNEA, ABA or CRBA (no external wrenches), block after block of
    LANES states; results to the rows of ``out`` as the per-state kernels write them. Returns the
    first state whose inputs or result are not valid, or -1."""
    nv = int(B[0, IV])
    L = min(L, LANES)
    W = work(B, L if kind == CRBA else LANES)
    if kind == CRBA:
        R, _, where = crba_pairs(B)
        Mb = np.empty((R.shape[0] + 1, L))
        Mb[R.shape[0]] = 0.0
    else:
        where, Mb = np.empty(0, np.int64), np.empty((0, L))
    Qb = np.empty((Q.shape[1], LANES))
    X1b, X2b, Yb = np.empty((nv, LANES)), np.empty((nv, LANES)), np.empty((nv, LANES))
    for s in range(lo, hi, L):
        nl = min(L, hi - s)
        bad = load_block(B, Q, X1, X2, 0 if kind == CRBA else 2, s, nl, Qb, X1b, X2b)
        if bad >= 0:
            return bad
        if kind == RNEA:
            rnea_lanes(B, W, Qb, X1b, X2b, opts, Yb)
        elif kind == ABA:
            aba_lanes(B, W, Qb, X1b, X2b, opts, Yb)
        else:
            crba_lanes(B, W, Qb, Mb, where, out, s, nl)
        if kind == CRBA:          # a NaN or inf among the pairs makes the lane's sum NaN
            for l in range(nl):
                Yb[0, l] = 0.0
            for p in range(Mb.shape[0] - 1):
                for l in range(nl):
                    Yb[0, l] += Mb[p, l] * 0.0
            for l in range(nl):
                if Yb[0, l] != 0.0:
                    return s + l
            continue
        for l in range(nl):
            o = out[s + l]
            for r in range(nv):
                o[r] = Yb[r, l]
            for r in range(nv):
                if o[r] - o[r] != 0.0:
                    return s + l
    return -1
