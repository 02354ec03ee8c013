"""Compiled RNEA (inverse dynamics): one state, and a batch in parallel over states.

Mirrors :func:`artidyn.dynamics.rnea._rnea` in the internal frames of :mod:`.pack`. Montée
(1 .. nb)::

    v_i = A^t v_p + S qd_i
    a_i = A^t a_p + S qdd_i + v_i (.) S qd_i          a_0 = -[0; g]
    f_i = I_i a_i + v_i (+) I_i v_i - f_ext_i

Descente (nb .. 1): ``f_p += A f_i``; ``tau_i = S^T f_i + armature qdd_i`` (+ ``damping qd_i +
coulomb sign(qd_i)`` when friction is on).
"""
import numba as nb
import numpy as np

from .pack import A, ARM, C, COUL, DAMP, F, GRAVITY, IV, JTYPE, NVJ, PARENT, RA, V
from .spatial import (all_finite, cross_force_add, cross_motion_add, force_to_parent_add, inertia_apply,
                      joint_motion, joint_row, joint_transform, load_q, motion_to_child)
from .types import BUF, FRICTION, HAS_FEXT, MAT, OUT1, OUT2, TEN, VEC, I64, all_finite2, chunk_bounds


@nb.njit(cache=True)
def subtract_external(B, i, fext, Y):
    """B[i, Y] -= f_ext_i, the wrench of body i (body axes) turned to internal axes (Ra^T)."""
    for r in range(3):
        e0, e1, e2 = B[i, RA + r], B[i, RA + 3 + r], B[i, RA + 6 + r]  # column r of Ra
        B[i, Y + r] -= e0 * fext[i, 0] + e1 * fext[i, 1] + e2 * fext[i, 2]
        B[i, Y + 3 + r] -= e0 * fext[i, 3] + e1 * fext[i, 4] + e2 * fext[i, 5]


@nb.njit(cache=True)
def rnea_state(B, qd, qdd, fext, opts, tau):
    """RNEA for the state whose q was loaded by ``load_q``: tau (nv) <- the joint torques."""
    nb1 = B.shape[0]
    for r in range(3):
        B[0, V + r] = B[0, V + 3 + r] = B[0, A + r] = 0.0
        B[0, A + 3 + r] = -B[0, GRAVITY + r]
    for i in range(1, nb1):
        par = int(B[i, PARENT])
        joint_transform(B, i)
        joint_motion(B, i, qd, C)                 # C: vJ = S qd
        motion_to_child(B, i, par, V, V)
        motion_to_child(B, i, par, A, A)
        joint_motion(B, i, qdd, F)                # F: S qdd, for a moment
        for r in range(6):
            B[i, V + r] += B[i, C + r]
            B[i, A + r] += B[i, F + r]
        cross_motion_add(B, i, V, C, A)
        inertia_apply(B, i, A, F)
        inertia_apply(B, i, V, C)                 # C: I v
        cross_force_add(B, i, V, C, F)
        if opts & HAS_FEXT:
            subtract_external(B, i, fext, F)
    for i in range(nb1 - 1, 0, -1):
        par = int(B[i, PARENT])
        if par > 0:
            force_to_parent_add(B, i, F, par, F)
    for i in range(1, nb1):
        t, k = int(B[i, JTYPE]), int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            x = B[i, F + joint_row(t, j)] + B[i, ARM + j] * qdd[k + j]
            if opts & FRICTION:
                s = 1.0 if qd[k + j] > 0 else (-1.0 if qd[k + j] < 0 else 0.0)
                x += B[i, DAMP + j] * qd[k + j] + B[i, COUL + j] * s
            tau[k + j] = x


@nb.njit(cache=True)
def rnea_checked(B, q, qd, qdd, fext, opts, tau):
    """Check one state's inputs (sizes, finite, unit quaternions), run it, check tau; ok -> True."""
    nv = int(B[0, IV])
    if qd.shape[0] != nv or qdd.shape[0] != nv or tau.shape[0] != nv:
        return False
    if opts & HAS_FEXT and (fext.shape[0] != B.shape[0] or fext.shape[1] != 6 or not all_finite2(fext)):
        return False
    if not (load_q(B, q) and all_finite(qd) and all_finite(qdd)):
        return False
    rnea_state(B, qd, qdd, fext, opts, tau)
    return all_finite(tau)


@nb.njit(nb.boolean(BUF, VEC, VEC, VEC, MAT, I64, OUT1), cache=True)
def rnea_single(B, q, qd, qdd, fext, opts, tau):
    """One state, in the table's own work columns; False when the inputs or the result are not
    valid (the caller then lets the reference code report the error)."""
    return rnea_checked(B, q, qd, qdd, fext, opts, tau)


@nb.njit(cache=True)
def rnea_chunk(B, Q, Qd, Qdd, Fext, opts, tau, lo, hi):
    """States lo .. hi-1 on a private copy of the table; returns the first invalid state, or hi."""
    Bc = B.copy()
    for k in range(lo, hi):
        if not rnea_checked(Bc, Q[k], Qd[k], Qdd[k], Fext[k if opts & HAS_FEXT else 0], opts, tau[k]):
            return k
    return hi


@nb.njit(I64(BUF, MAT, MAT, MAT, TEN, I64, OUT2, I64), cache=True, parallel=True)
def rnea_batch(B, Q, Qd, Qdd, Fext, opts, tau, nchunk):
    """N states (rows; inputs broadcast to N rows beforehand), ``nchunk`` chunks in parallel.

    Returns -1, or the first state whose inputs or result are not valid.
    """
    N = Q.shape[0]
    if Qd.shape[0] != N or Qdd.shape[0] != N or tau.shape[0] != N or (opts & HAS_FEXT and Fext.shape[0] != N):
        return 0
    bounds = chunk_bounds(N, nchunk)
    first = np.full(bounds.shape[0] - 1, N)
    for c in nb.prange(bounds.shape[0] - 1):
        first[c] = rnea_chunk(B, Q, Qd, Qdd, Fext, opts, tau, bounds[c], bounds[c + 1])
    for c in range(first.shape[0]):
        if first[c] < N:
            return first[c]
    return -1
