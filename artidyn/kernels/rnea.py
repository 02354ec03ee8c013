"""Compiled RNEA (inverse dynamics), one state and a batch; mirrors :mod:`artidyn.dynamics.rnea`.

Montée (1 .. nb), internal frames (:mod:`.pack`)::

    v_i = A^t v_p + S qd_i
    a_i = A^t a_p + S qdd_i + v_i (.) S qd_i          a_0 = -[0; g]
    f_i = I_i a_i + v_i (+) I_i v_i - f_ext_i

Descente (nb .. 1): ``tau_i = S^T f_i + armature qdd_i (+ damping qd_i + coulomb sign(qd_i))``,
``f_p += A f_i``.
"""
import numba as nb
import numpy as np
from numba import types as T

from .spatial import (cross_force_add, cross_motion_add, force_to_parent_add, inertia_apply, joint_motion,
                      joint_row, joint_transform, motion_to_child)
from .views import all_finite, all_finite2, load_q, model_views, single_work, work_views
from .pack import work_size

FRICTION, HAS_FEXT = 1, 2  # bits of ``opts``

work_size_nb = nb.njit(cache=True)(work_size)

VEC = T.Array(T.float64, 1, "A", readonly=True)
MAT = T.Array(T.float64, 2, "A", readonly=True)
TEN = T.Array(T.float64, 3, "A", readonly=True)
BUF = T.Array(T.float64, 1, "C")
OUT1 = T.Array(T.float64, 1, "C")
OUT2 = T.Array(T.float64, 2, "C")
OUT3 = T.Array(T.float64, 3, "C")


@nb.njit(cache=True)
def body_wrench_ext(M, i, fext, y):
    """y -= f_ext_i re-expressed in internal axes (Ra_i^T on both halves)."""
    Ra = M.Ra[i]
    for r in range(3):
        y[r] -= Ra[0, r] * fext[i, 0] + Ra[1, r] * fext[i, 1] + Ra[2, r] * fext[i, 2]
        y[r + 3] -= Ra[0, r] * fext[i, 3] + Ra[1, r] * fext[i, 4] + Ra[2, r] * fext[i, 5]


@nb.njit(cache=True)
def joint_torques(M, W, qd, qdd, opts, tau):
    """tau_i = S^T f_i + armature qdd (+ friction), from the joint wrenches W.f."""
    for i in range(1, M.nb + 1):
        t, k = M.jtype[i], M.idx_v[i]
        for j in range(M.nv_joint[i]):
            tau[k + j] = W.f[i, joint_row(t, j)]
    for k in range(M.nv):
        tau[k] += M.armature[k] * qdd[k]
        if opts & FRICTION:
            s = 1.0 if qd[k] > 0 else (-1.0 if qd[k] < 0 else 0.0)
            tau[k] += M.damping[k] * qd[k] + M.coulomb[k] * s


@nb.njit(cache=True)
def rnea_state(M, W, qd, qdd, fext, opts, tau):
    """RNEA for one state whose normalised q is in W.qn; tau (nv) <- the joint torques."""
    q = W.qn
    for r in range(3):
        W.v[0, r] = W.v[0, r + 3] = W.a[0, r] = 0.0
        W.a[0, r + 3] = -M.gravity[r]
    for i in range(1, M.nb + 1):
        par = M.parent[i]
        R, p, v, a, f, vJ = W.R[i], W.p[i], W.v[i], W.a[i], W.f[i], W.c[i]
        joint_transform(M, i, q, R, p)
        joint_motion(M, i, qd, vJ)
        motion_to_child(R, p, W.v[par], v)
        motion_to_child(R, p, W.a[par], a)
        joint_motion(M, i, qdd, f)  # f holds S qdd for a moment
        for r in range(6):
            v[r] += vJ[r]
            a[r] += f[r]
        cross_motion_add(v, vJ, a)
        inertia_apply(M.mass[i], M.h[i], M.Ibar[i], a, f)
        inertia_apply(M.mass[i], M.h[i], M.Ibar[i], v, vJ)  # vJ now holds I v
        cross_force_add(v, vJ, f)
        if opts & HAS_FEXT:
            body_wrench_ext(M, i, fext, f)
    for i in range(M.nb, 0, -1):
        par = M.parent[i]
        if par > 0:
            force_to_parent_add(W.R[i], W.p[i], W.f[i], W.f[par])
    joint_torques(M, W, qd, qdd, opts, tau)


@nb.njit(cache=True)
def rnea_single(buf, q, qd, qdd, fext, opts, tau):
    """One state; returns 0, or 1 when the inputs (sizes, NaN, quaternion norms) or the result
    are not valid (the caller then lets the reference code report the error)."""
    M = model_views(buf)
    W = single_work(buf)
    if q.shape[0] != M.nq or qd.shape[0] != M.nv or qdd.shape[0] != M.nv or tau.shape[0] != M.nv:
        return 1
    if opts & HAS_FEXT and (fext.shape[0] != M.nb + 1 or fext.shape[1] != 6 or not all_finite2(fext)):
        return 1
    if not (load_q(M, q, W.qn) and all_finite(qd) and all_finite(qdd)):
        return 1
    rnea_state(M, W, qd, qdd, fext, opts, tau)
    return 0 if all_finite(tau) else 1


@nb.njit(cache=True)
def rnea_chunk(buf, Q, Qd, Qdd, Fext, opts, tau, lo, hi):
    """States lo .. hi-1 with their own scratch; returns the first invalid state, or hi."""
    M = model_views(buf)
    W = work_views(np.empty(work_size_nb(M.nb, M.nq, M.nv)), M.nb, M.nq, M.nv)
    bad = hi
    for k in range(lo, hi):
        fk = Fext[k] if opts & HAS_FEXT else Fext[0]
        if not (load_q(M, Q[k], W.qn) and all_finite(Qd[k]) and all_finite(Qdd[k])):
            bad = min(bad, k)
        elif opts & HAS_FEXT and not all_finite2(fk):
            bad = min(bad, k)
        else:
            rnea_state(M, W, Qd[k], Qdd[k], fk, opts, tau[k])
            if not all_finite(tau[k]):
                bad = min(bad, k)
    return bad


@nb.njit(cache=True)
def batch_sizes_ok(buf, Q, n2, X2, X3, F, opts, out, has_fext):
    """Shapes of a batch call: Q (N, nq), X2 and X3 (N, n2), F (N, nb+1, 6) if used, out (N, n2)."""
    M = model_views(buf)
    N = Q.shape[0]
    if Q.shape[1] != M.nq or X2.shape != (N, n2) or X3.shape != (N, n2) or out.shape[0] != N:
        return False
    if opts & has_fext and F.shape != (N, M.nb + 1, 6):
        return False
    return True


@nb.njit(cache=True, parallel=True)
def rnea_batch(buf, Q, Qd, Qdd, Fext, opts, tau, nchunk):
    """N states (rows; all inputs already broadcast to N rows), ``nchunk`` chunks of states in
    parallel (a few per thread).

    Returns -1, or the first state whose inputs or result are not valid (0 for wrong shapes).
    """
    N = Q.shape[0]
    if not batch_sizes_ok(buf, Q, tau.shape[1], Qd, Qdd, Fext, opts, tau, HAS_FEXT) or tau.shape[1] != Qd.shape[1]:
        return 0
    nchunk = max(1, min(N, nchunk))
    bad = np.full(nchunk, N)
    for c in nb.prange(nchunk):
        bad[c] = rnea_chunk(buf, Q, Qd, Qdd, Fext, opts, tau, c * N // nchunk, (c + 1) * N // nchunk)
    first = bad.min()
    return -1 if first >= N else first
