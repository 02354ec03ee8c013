"""Compiled hybrid dynamics for one state; mirrors :func:`artidyn.dynamics.hybrid._hybrid`.

Featherstone RBDA section 9.2: the ABA of :mod:`.aba` (same columns, same passes) in which a joint
whose acceleration is prescribed (``known[k] != 0`` on its dofs) does not reduce the articulated
inertia of its subtree::

    pass 1 (1 .. nb):  as ABA (v, c, I_A = I_i, p_A)
    pass 2 (nb .. 1):  free joint:        as ABA (U, D^-1, u; I_a, p_a in place of I_A, p_A)
                       prescribed joint:  I_a = I_A,  p_a = p_A + I_A (c + S qdd_i)   (p_a in U)
                       I_A[p] += A I_a A^T;  p_A[p] += A p_a
    pass 3 (1 .. nb):  a' = A^t a_p + c_i
                       free joint:        qdd_i = D^-1 (u - U^T a'),  a_i = a' + S qdd_i
                       prescribed joint:  a_i = a' + S qdd_i,
                                          tau_i = S^T (I_A a_i + p_A) + armature qdd_i + springs (+ friction)

A prescribed joint keeps I_A and p_A in its IA and F columns (its p_a goes to the U columns, which
only free joints use), so that pass 3 finds the wrench ``I_A a_i + p_A`` it transmits.
"""
import numba as nb

from .aba import aba_pass1, aba_pass2, aba_pass3, minus_joint_torques
from .pack import A, ARM, C, F, IA, IV, JTYPE, NVJ, PARENT, U, V
from .spatial import (FMA, all_finite, force_to_parent_add, inertia_to_parent_add, joint_motion, load_q,
                      motion_to_child, s_add, s_dot)
from .spatial import world_at_rest
from .types import BUF, HAS_FEXT, I64, MAT, OUT1, VEC, all_finite2


@nb.njit(fastmath=FMA)
def prescribed(B, i, known):
    """True when joint i's acceleration is given (a joint without dofs counts as prescribed)."""
    return int(B[i, NVJ]) == 0 or known[int(B[i, IV])] != 0.0


@nb.njit(fastmath=FMA)
def hybrid_pass2_prescribed(B, i, a):
    """p_a = p_A + I_A (c + S qdd_i) into the U columns; I_A and p_a passed to the parent."""
    joint_motion(B, i, a, A)                      # A: c + S qdd_i, for a moment
    for r in range(6):
        B[i, A + r] += B[i, C + r]
    for r in range(6):
        x = B[i, F + r]
        for c in range(6):
            x += B[i, IA + 6 * r + c] * B[i, A + c]
        B[i, U + r] = x
    par = int(B[i, PARENT])
    if par > 0:
        inertia_to_parent_add(B, i, IA, par, IA)
        force_to_parent_add(B, i, U, par, F)


@nb.njit(fastmath=FMA)
def hybrid_pass3_prescribed(B, i, qd, a, opts, qdd, tau):
    """a_i = A^t a_p + c + S qdd_i;  tau_i = S^T (I_A a_i + p_A) + armature qdd_i + springs (+ friction)."""
    par = int(B[i, PARENT])
    t, k, n = int(B[i, JTYPE]), int(B[i, IV]), int(B[i, NVJ])
    motion_to_child(B, i, par, A, A)
    for r in range(6):
        B[i, A + r] += B[i, C + r]
    for j in range(n):
        qdd[k + j] = a[k + j]
        s_add(B, i, t, j, A, a[k + j])
    for r in range(6):                            # U: the wrench I_A a_i + p_A
        x = B[i, F + r]
        for c in range(6):
            x += B[i, IA + 6 * r + c] * B[i, A + c]
        B[i, U + r] = x
    for j in range(n):
        tau[k + j] = (s_dot(B, i, t, j, U) + B[i, ARM + j] * a[k + j]
                      - minus_joint_torques(B, i, j, qd[k + j], opts, 0.0))


@nb.njit(fastmath=FMA)
def hybrid_state(B, qd, a, tau_in, known, fext, opts, qdd, tau):
    """Hybrid dynamics for the state whose q was loaded by ``load_q``: qdd, tau (nv) <- the complete
    accelerations and torques. ``a`` is read on the prescribed dofs (``known != 0``), ``tau_in`` on
    the others (they may be the same array)."""
    nb1 = B.shape[0]
    world_at_rest(B)
    for i in range(1, nb1):
        aba_pass1(B, i, qd, fext, opts)
    for i in range(nb1 - 1, 0, -1):
        if prescribed(B, i, known):
            hybrid_pass2_prescribed(B, i, a)
        else:
            aba_pass2(B, i, qd, tau_in, opts)
    for i in range(1, nb1):
        if prescribed(B, i, known):
            hybrid_pass3_prescribed(B, i, qd, a, opts, qdd, tau)
        else:
            aba_pass3(B, i, qdd)
            k = int(B[i, IV])
            for j in range(int(B[i, NVJ])):
                tau[k + j] = tau_in[k + j]


@nb.njit(fastmath=FMA)
def hybrid_inputs_ok(B, q, qd, a, tau_in, known, fext, opts, qdd, tau):
    """Sizes, finite values (of the entries that are read), unit quaternions; loads q."""
    nv = int(B[0, IV])
    if (qd.shape[0] != nv or a.shape[0] != nv or tau_in.shape[0] != nv or known.shape[0] != nv
            or qdd.shape[0] != nv or tau.shape[0] != nv):
        return False
    if opts & HAS_FEXT and (fext.shape[0] != B.shape[0] or fext.shape[1] != 6 or not all_finite2(fext)):
        return False
    for k in range(nv):
        x = a[k] if known[k] != 0.0 else tau_in[k]
        if x - x != 0.0:
            return False
    return load_q(B, q) and all_finite(qd)


@nb.njit(nb.boolean(BUF, VEC, VEC, VEC, VEC, VEC, MAT, I64, OUT1, OUT1), cache=True)
def hybrid_single(B, q, qd, a, tau_in, known, fext, opts, qdd, tau):
    """One state, in the table's own work columns; False when the inputs or the results are not
    valid (the caller then lets the reference code report the error)."""
    if not hybrid_inputs_ok(B, q, qd, a, tau_in, known, fext, opts, qdd, tau):
        return False
    hybrid_state(B, qd, a, tau_in, known, fext, opts, qdd, tau)
    return all_finite(qdd) and all_finite(tau)
