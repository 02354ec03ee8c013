"""Compiled dynamic regressor ``tau = Y(q, v, a) pi`` for one state, and its parallel batch.

Mirrors :func:`artidyn.identification.regressor.regressor` (Atkeson, An & Hollerbach 1986;
Khalil & Dombre, "Modeling, identification and control of robots", ch. 12) on the packed table
(:mod:`.pack`). Montée (1 .. nb), as the RNEA (internal axes)::

    v_i = A^t v_p + S qd_i,    a_i = A^t a_p + S qdd_i + v_i (.) S qd_i,    a_0 = -[0; g]

then v_i, a_i are turned to body axes (``x = Ra x'``): the standard parameters ``pi_i`` are
defined in the body frame, about its origin. The reference's block for dof k of joint j and a
body i of j's subtree, ``S_k^T A_{j <- i} F_i``, is read the other way round::

    Y[k, cols i] = s_k,i . F_i,      s_k,i = A^t_{i <- j} S_k

the unit twist of dof k seen from body i, carried down j's subtree as the RNEA carries v (one
motion transform per (dof, body) instead of ten force transforms). With
``F_i pi_i = I_i a_i + v_i (+) I_i v_i`` and ``crf(v) = -crm(v)^T``::

    s . F_i pi_i = s . (I_i a_i) - (v_i (.) s) . (I_i v_i) = (y(s, a_i) - y(v_i (.) s, v_i)) . pi_i

where ``y(s, x)`` holds the 10 coefficients of ``s . (I x)`` (:func:`inertia_coefficients`).
Per dof k: ``a_k`` (armature), ``v_k`` (viscous), ``sign(v_k)`` (Coulomb), ``1`` (offset).

Work columns of the table: V, A, C, F (the montée, as the RNEA), IA (body-axis v_i and a_i:
VB, AB), U (the twist s), UU (marks j's subtree).
"""
import numba as nb
import numpy as np

from .pack import A, C, F, IA, IV, JTYPE, NVJ, PARENT, PITCH, RA, U, UU, V
from .spatial import (FMA, HELICAL, all_finite, cross_joint_motion_add, joint_motion, joint_row, joint_transform,
                      load_q, motion_to_child)
from .spatial import world_at_rest
from .types import BUF, I64, MAT, OUT2, OUT3, VEC

VB, AB, MARK = IA, IA + np.int64(6), UU
NB_BODY, NB_DOF = 10, 4    # as artidyn.identification.parameters


@nb.njit(fastmath=FMA)
def n_params(B):
    """10 nb + 4 nv."""
    return NB_BODY * (B.shape[0] - 1) + NB_DOF * int(B[0, IV])


@nb.njit(fastmath=FMA)
def to_body_axes(B, i, X, Y):
    """B[i, Y] <- the motion B[i, X] (internal axes) in body axes: both halves turned by Ra_i."""
    for h in range(0, 6, 3):
        x0, x1, x2 = B[i, X + h], B[i, X + h + 1], B[i, X + h + 2]
        for r in range(3):
            B[i, Y + h + r] = B[i, RA + 3 * r] * x0 + B[i, RA + 3 * r + 1] * x1 + B[i, RA + 3 * r + 2] * x2


@nb.njit(fastmath=FMA)
def body_axes(B, i, X):
    """The motion B[i, X] (internal axes) in body axes, as a 6-tuple."""
    w0, w1, w2, u0, u1, u2 = B[i, X], B[i, X + 1], B[i, X + 2], B[i, X + 3], B[i, X + 4], B[i, X + 5]
    e = RA
    return (B[i, e] * w0 + B[i, e + 1] * w1 + B[i, e + 2] * w2,
            B[i, e + 3] * w0 + B[i, e + 4] * w1 + B[i, e + 5] * w2,
            B[i, e + 6] * w0 + B[i, e + 7] * w1 + B[i, e + 8] * w2,
            B[i, e] * u0 + B[i, e + 1] * u1 + B[i, e + 2] * u2,
            B[i, e + 3] * u0 + B[i, e + 4] * u1 + B[i, e + 5] * u2,
            B[i, e + 6] * u0 + B[i, e + 7] * u1 + B[i, e + 8] * u2)


@nb.njit(fastmath=FMA)
def cross_motion(m, x):
    """m (.) x = [w x a; w x b + v x a] for the 6-tuples m = [w; v], x = [a; b]."""
    w0, w1, w2, v0, v1, v2 = m
    a0, a1, a2, b0, b1, b2 = x
    return (w1 * a2 - w2 * a1, w2 * a0 - w0 * a2, w0 * a1 - w1 * a0,
            w1 * b2 - w2 * b1 + v1 * a2 - v2 * a1, w2 * b0 - w0 * b2 + v2 * a0 - v0 * a2,
            w0 * b1 - w1 * b0 + v0 * a1 - v1 * a0)


@nb.njit(fastmath=FMA)
def inertia_coefficients(s, x):
    """y(s, x): ``s . (I x) = y . [m, mcx, mcy, mcz, XX, XY, XZ, YY, YZ, ZZ]`` for the motions
    s = [sw; su], x = [w; u] (body axes). From ``I x = [I_O w + h x u; m u + w x h]``::

        s . (I x) = m (su . u) + h . (u x sw + su x w) + sw . I_O w
    """
    s0, s1, s2, t0, t1, t2 = s
    w0, w1, w2, u0, u1, u2 = x
    return (t0 * u0 + t1 * u1 + t2 * u2,
            u1 * s2 - u2 * s1 + t1 * w2 - t2 * w1,
            u2 * s0 - u0 * s2 + t2 * w0 - t0 * w2,
            u0 * s1 - u1 * s0 + t0 * w1 - t1 * w0,
            s0 * w0, s0 * w1 + s1 * w0, s0 * w2 + s2 * w0, s1 * w1, s1 * w2 + s2 * w1, s2 * w2)


@nb.njit(fastmath=FMA)
def regressor_montee(B, qd, qdd):
    """v_i, a_i of every body (gravity included) in internal axes (V, A) and body axes (VB, AB)."""
    world_at_rest(B)
    for i in range(1, B.shape[0]):
        par = int(B[i, PARENT])
        joint_transform(B, i)
        joint_motion(B, i, qd, C)                 # C: vJ = S qd
        motion_to_child(B, i, par, V, V)
        motion_to_child(B, i, par, A, A)
        joint_motion(B, i, qdd, F)                # F: S qdd
        for r in range(6):
            B[i, V + r] += B[i, C + r]
            B[i, A + r] += B[i, F + r]
        cross_joint_motion_add(B, i, V, C, A)
        to_body_axes(B, i, V, VB)
        to_body_axes(B, i, A, AB)


@nb.njit(fastmath=FMA)
def regressor_state(B, qd, qdd, Y):
    """Y (nv, n_params) <- the regressor of the state whose q was loaded by ``load_q``; True when
    every entry is finite (checked as it is written: ``y - y`` is 0, or NaN for inf and NaN)."""
    nb1, nv = B.shape[0], int(B[0, IV])
    regressor_montee(B, qd, qdd)
    nan = 0.0
    for k in range(Y.shape[0]):
        for c in range(Y.shape[1]):
            Y[k, c] = 0.0
    for j in range(1, nb1):
        t, k0 = int(B[j, JTYPE]), int(B[j, IV])
        for d in range(int(B[j, NVJ])):
            for r in range(6):
                B[j, U + r] = 0.0
            B[j, U + joint_row(t, d)] = 1.0       # S_k, internal axes of body j
            if t == HELICAL:                      # [e_z; p e_z]
                B[j, U + 5] = B[j, PITCH]
            B[j, MARK] = 1.0
            for i in range(j, nb1):
                if i > j:
                    # body i is in j's subtree when its parent is (parents come first)
                    par = int(B[i, PARENT])
                    B[i, MARK] = 1.0 if par >= j and B[par, MARK] == 1.0 else 0.0
                    if B[i, MARK] == 0.0:
                        continue
                    motion_to_child(B, i, par, U, U)
                s = body_axes(B, i, U)
                v = (B[i, VB], B[i, VB + 1], B[i, VB + 2], B[i, VB + 3], B[i, VB + 4], B[i, VB + 5])
                a = (B[i, AB], B[i, AB + 1], B[i, AB + 2], B[i, AB + 3], B[i, AB + 4], B[i, AB + 5])
                ya = inertia_coefficients(s, a)
                yv = inertia_coefficients(cross_motion(v, s), v)
                col = NB_BODY * (i - 1)
                for p in range(NB_BODY):
                    y = ya[p] - yv[p]
                    Y[k0 + d, col + p] = y
                    nan += y - y
    col = NB_BODY * (nb1 - 1)
    for k in range(nv):
        c = col + NB_DOF * k
        Y[k, c] = qdd[k]
        Y[k, c + 1] = qd[k]
        Y[k, c + 2] = 1.0 if qd[k] > 0 else (-1.0 if qd[k] < 0 else 0.0)
        Y[k, c + 3] = 1.0
    return nan == 0.0


@nb.njit(fastmath=FMA)
def state_ok(B, q, qd, qdd, Y):
    """Sizes, finite values, unit quaternions of one state (q is loaded into B)."""
    nv = int(B[0, IV])
    if qd.shape[0] != nv or qdd.shape[0] != nv or Y.shape[0] != nv or Y.shape[1] != n_params(B):
        return False
    return load_q(B, q) and all_finite(qd) and all_finite(qdd)


@nb.njit(nb.boolean(BUF, VEC, VEC, VEC, OUT2), cache=True)
def regressor_single(B, q, qd, qdd, Y):
    """One state, in the table's own work columns; False when the inputs or the result are not
    valid (the caller then lets the reference code report the error)."""
    return state_ok(B, q, qd, qdd, Y) and regressor_state(B, qd, qdd, Y)


@nb.njit  # a compiled function of its own, as batch.run_chunk
def run_chunk(B, Q, Qd, Qdd, out, lo, hi):
    """States lo .. hi-1 on a private copy of the table; the first invalid state, or -1."""
    Bc = B.copy()
    for k in range(lo, hi):
        if not state_ok(Bc, Q[k], Qd[k], Qdd[k], out[k]):
            return k
        if not regressor_state(Bc, Qd[k], Qdd[k], out[k]):
            return k
    return -1


@nb.njit(I64(BUF, MAT, MAT, MAT, OUT3, I64, I64), cache=True, nogil=True)
def regressor_batch(B, Q, Qd, Qdd, out, c, m):
    """Y for chunk c of m of N states (rows of Q, Qd, Qdd) into out (N, nv, n_params); the chunks
    run on threads at once (:func:`artidyn.threads.run_chunks`; it releases the GIL). Returns -1,
    or the first state whose inputs or result are not valid (0 for bad shapes)."""
    N = Q.shape[0]
    if Qd.shape[0] != N or Qdd.shape[0] != N or out.shape[0] != N:
        return 0
    return run_chunk(B, Q, Qd, Qdd, out, c * N // m, (c + 1) * N // m)
