"""Compiled RNEA (inverse dynamics) for one state; batches go through :mod:`.batch`.

Mirrors :func:`artidyn.dynamics.rnea._rnea` in the internal frames of :mod:`.pack`. Montée
(1 .. nb)::

    v_i = A^t v_p + S qd_i
    a_i = A^t a_p + S qdd_i + v_i (.) S qd_i          a_0 = -[0; g]
    f_i = I_i a_i + v_i (+) I_i v_i - f_ext_i

Descente (nb .. 1): ``f_p += A f_i``; ``tau_i = S^T f_i + armature qdd_i + stiffness (q_i -
rest_i)`` (+ ``damping qd_i + coulomb sign(qd_i)`` when friction is on). The joint springs read
q from the QN columns (flat joints hold q there unchanged; other joints have no spring).
"""
import numba as nb

from .pack import A, ARM, C, COUL, DAMP, F, IV, JTYPE, NVJ, PARENT, QN, RA, REST, STIFF, V
from .spatial import (FMA, all_finite, cross_force_add, cross_joint_motion_add, force_to_parent_add, inertia_apply,
                      joint_motion, joint_transform, motion_to_child, s_dot)
from .spatial import world_at_rest
from .types import BUF, FRICTION, HAS_FEXT, I64, MAT, OUT1, VEC, inputs_ok


@nb.njit(fastmath=FMA)
def subtract_external(B, i, fext, Y):
    """B[i, Y] -= f_ext_i, the wrench of body i (body axes) turned to internal axes (Ra^T)."""
    for r in range(3):
        e0, e1, e2 = B[i, RA + r], B[i, RA + 3 + r], B[i, RA + 6 + r]  # column r of Ra
        B[i, Y + r] -= e0 * fext[i, 0] + e1 * fext[i, 1] + e2 * fext[i, 2]
        B[i, Y + 3 + r] -= e0 * fext[i, 3] + e1 * fext[i, 4] + e2 * fext[i, 5]


@nb.njit(_nrt=False, fastmath=FMA)
def rnea_state(B, qd, qdd, fext, opts, tau):
    """RNEA for the state whose q was loaded by ``load_q``: tau (nv) <- the joint torques."""
    nb1 = B.shape[0]
    world_at_rest(B)
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
        cross_joint_motion_add(B, i, V, C, A)
        inertia_apply(B, i, A, F)
        inertia_apply(B, i, V, C)                 # C: I v
        cross_force_add(B, i, V, C, F)
        if opts & HAS_FEXT:
            subtract_external(B, i, fext, F)
    for i in range(nb1 - 1, 0, -1):
        # f_i is complete (its children come after it): project it, then pass it on
        t, k = int(B[i, JTYPE]), int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            x = s_dot(B, i, t, j, F) + B[i, ARM + j] * qdd[k + j]
            if B[i, STIFF + j] != 0.0:
                x += B[i, STIFF + j] * (B[i, QN + j] - B[i, REST + j])
            if opts & FRICTION:
                s = 1.0 if qd[k + j] > 0 else (-1.0 if qd[k + j] < 0 else 0.0)
                x += B[i, DAMP + j] * qd[k + j] + B[i, COUL + j] * s
            tau[k + j] = x
        par = int(B[i, PARENT])
        if par > 0:
            force_to_parent_add(B, i, F, par, F)


@nb.njit(nb.boolean(BUF, VEC, VEC, VEC, MAT, I64, OUT1), cache=True)
def rnea_single(B, q, qd, qdd, fext, opts, tau):
    """One state, in the table's own work columns; False when the inputs or the result are not
    valid (the caller then lets the reference code report the error)."""
    if not inputs_ok(B, q, qd, qdd, fext, opts, tau):
        return False
    rnea_state(B, qd, qdd, fext, opts, tau)
    return all_finite(tau)
