"""Compiled ABA (forward dynamics) for one state; mirrors :func:`artidyn.dynamics.aba._aba`.

Featherstone RBDA Table 7.1 in the internal frames of :mod:`.pack` (columns of row i)::

    pass 1 (1 .. nb):  v_i = A^t v_p + S qd_i;  c_i = v_i (.) S qd_i;  I_A = I_i;
                       p_A = v_i (+) I_i v_i - f_ext_i
    pass 2 (nb .. 1):  U = I_A S;  D = S^T U + diag(armature);
                       u = tau - S^T p_A - stiffness (q - rest) (- friction)
                       I_a = I_A - U D^-1 U^T;  p_a = p_A + I_a c + U D^-1 u
                       I_A[p] += A I_a A^T;  p_A[p] += A p_a
    pass 3 (1 .. nb):  a' = A^t a_p + c_i;  qdd_i = D^-1 (u - U^T a');  a_i = a' + S qdd_i

with a_0 = -[0; g]. Columns: V v, C c, F p_A, IA I_A (6x6 row-major), U (nv_i columns of 6),
DINV D^-1 (row stride 6), UU u, A a.
"""
import numba as nb

from .pack import A, ARM, C, COUL, DAMP, DINV, F, IA, IV, JTYPE, NVJ, PARENT, QN, REST, STIFF, U, UU, V
from .rnea import subtract_external
from .spatial import (FMA, all_finite, cross_force_add, cross_joint_motion_add, force_to_parent_add, inertia_apply,
                      inertia_matrix, inertia_to_parent_add, joint_motion, joint_transform, motion_to_child, s_add,
                      s_dot)
from .spatial import world_at_rest
from .types import BUF, FRICTION, HAS_FEXT, I64, MAT, NO_COULOMB, OUT1, VEC, inputs_ok


@nb.njit(fastmath=FMA)
def invert_spd(B, i, X, n):
    """B[i, X:] (n x n, row stride 6) <- its inverse, by Gauss-Jordan elimination in place
    (D is symmetric positive definite: no pivoting needed)."""
    for p in range(n):
        d = 1.0 / B[i, X + 7 * p]
        B[i, X + 7 * p] = 1.0
        for c in range(n):
            B[i, X + 6 * p + c] *= d
        for r in range(n):
            if r != p:
                g = B[i, X + 6 * r + p]
                B[i, X + 6 * r + p] = 0.0
                for c in range(n):
                    B[i, X + 6 * r + c] -= g * B[i, X + 6 * p + c]


@nb.njit(fastmath=FMA)
def aba_pass1(B, i, qd, fext, opts):
    """Velocity, velocity-product acceleration, rigid inertia and bias force of body i."""
    par = int(B[i, PARENT])
    joint_transform(B, i)
    joint_motion(B, i, qd, A)                     # A: vJ, for a moment
    motion_to_child(B, i, par, V, V)
    for r in range(6):
        B[i, V + r] += B[i, A + r]
        B[i, C + r] = 0.0
        B[i, F + r] = 0.0
    cross_joint_motion_add(B, i, V, A, C)
    inertia_matrix(B, i, IA)
    inertia_apply(B, i, V, A)                     # A: I v
    cross_force_add(B, i, V, A, F)
    if opts & HAS_FEXT:
        subtract_external(B, i, fext, F)


@nb.njit(fastmath=FMA)
def minus_joint_torques(B, i, j, qdk, opts, u):
    """``u`` minus the torques at dof j of joint i (velocity ``qdk``) that do not come from the
    bodies: the spring ``stiffness (q - rest)``, then with FRICTION the viscous ``damping qd``
    and (unless NO_COULOMB) the Coulomb ``coulomb sign(qd)``, subtracted in that order."""
    if B[i, STIFF + j] != 0.0:
        u -= B[i, STIFF + j] * (B[i, QN + j] - B[i, REST + j])
    if opts & FRICTION:
        u -= B[i, DAMP + j] * qdk
        if not opts & NO_COULOMB:
            u -= B[i, COUL + j] * (1.0 if qdk > 0 else (-1.0 if qdk < 0 else 0.0))
    return u


@nb.njit(fastmath=FMA)
def aba_pass2(B, i, qd, tau, opts):
    """U, D^-1, u of joint i; then what its subtree passes to the parent (I_a, p_a)."""
    t, k, n = int(B[i, JTYPE]), int(B[i, IV]), int(B[i, NVJ])
    for j in range(n):
        for r in range(6):
            B[i, U + 6 * j + r] = s_dot(B, i, t, j, IA + 6 * r)
        B[i, UU + j] = minus_joint_torques(B, i, j, qd[k + j], opts, tau[k + j] - s_dot(B, i, t, j, F))
        for jj in range(n):
            B[i, DINV + 6 * j + jj] = s_dot(B, i, t, jj, U + 6 * j)
        B[i, DINV + 7 * j] += B[i, ARM + j]
    if n == 1:
        B[i, DINV] = 1.0 / B[i, DINV]
    else:
        invert_spd(B, i, DINV, n)
    par = int(B[i, PARENT])
    if par == 0:
        return
    if n == 1:
        one_dof_articulated(B, i)
    else:
        multi_dof_articulated(B, i, n)
    inertia_to_parent_add(B, i, IA, par, IA)
    force_to_parent_add(B, i, F, par, F)


@nb.njit(fastmath=FMA)
def one_dof_articulated(B, i):
    """I_a = I_A - U U^T / D, p_a = p_A + I_a c + U u / D in place (IA, F columns), one dof."""
    d = B[i, DINV]
    Ucol = (B[i, U], B[i, U + 1], B[i, U + 2], B[i, U + 3], B[i, U + 4], B[i, U + 5])
    c = (B[i, C], B[i, C + 1], B[i, C + 2], B[i, C + 3], B[i, C + 4], B[i, C + 5])
    du = d * B[i, UU]
    for r in range(6):
        w = Ucol[r] * d
        pa = Ucol[r] * du
        for cc in range(6):
            x = B[i, IA + 6 * r + cc] - w * Ucol[cc]
            B[i, IA + 6 * r + cc] = x
            pa += x * c[cc]
        B[i, F + r] += pa


@nb.njit(fastmath=FMA)
def multi_dof_articulated(B, i, n):
    """As one_dof_articulated for n dofs: W = U D^-1, I_a = I_A - W U^T, p_a = p_A + I_a c + W u."""
    # W_j = sum_l U_l Dinv[l, j] (row 0's DINV columns as scratch), d = Dinv u
    for j in range(n):
        du = 0.0
        for r in range(6):
            w = 0.0
            for l in range(n):
                w += B[i, U + 6 * l + r] * B[i, DINV + 6 * l + j]
            B[0, DINV + 6 * j + r] = w
        for l in range(n):
            du += B[i, DINV + 6 * j + l] * B[i, UU + l]
        B[0, UU + j] = du
    # I_a = I_A - W U^T (in place), p_a = p_A + I_a c + U d
    for r in range(6):
        pa = 0.0
        for c in range(6):
            x = B[i, IA + 6 * r + c]
            for j in range(n):
                x -= B[0, DINV + 6 * j + r] * B[i, U + 6 * j + c]
            B[i, IA + 6 * r + c] = x
            pa += x * B[i, C + c]
        for j in range(n):
            pa += B[i, U + 6 * j + r] * B[0, UU + j]
        B[i, F + r] += pa


@nb.njit(fastmath=FMA)
def aba_pass3(B, i, qdd):
    """a' = A^t a_p + c; qdd_i = D^-1 (u - U^T a'); a_i = a' + S qdd_i."""
    par = int(B[i, PARENT])
    t, k, n = int(B[i, JTYPE]), int(B[i, IV]), int(B[i, NVJ])
    motion_to_child(B, i, par, A, A)
    for r in range(6):
        B[i, A + r] += B[i, C + r]
    for j in range(n):
        x = B[i, UU + j]
        for r in range(6):
            x -= B[i, U + 6 * j + r] * B[i, A + r]
        B[0, UU + j] = x
    for j in range(n):
        x = 0.0
        for l in range(n):
            x += B[i, DINV + 6 * j + l] * B[0, UU + l]
        qdd[k + j] = x
        s_add(B, i, t, j, A, x)


@nb.njit(fastmath=FMA)
def aba_state(B, qd, tau, fext, opts, qdd):
    """ABA for the state whose q was loaded by ``load_q``: qdd (nv) <- the joint accelerations."""
    nb1 = B.shape[0]
    world_at_rest(B)
    for i in range(1, nb1):
        aba_pass1(B, i, qd, fext, opts)
    for i in range(nb1 - 1, 0, -1):
        aba_pass2(B, i, qd, tau, opts)
    for i in range(1, nb1):
        aba_pass3(B, i, qdd)


@nb.njit(nb.boolean(BUF, VEC, VEC, VEC, MAT, I64, OUT1), cache=True)
def aba_single(B, q, qd, tau, fext, opts, qdd):
    """One state, in the table's own work columns; False when the inputs or the result are not
    valid (the caller then lets the reference code report the error)."""
    if not inputs_ok(B, q, qd, tau, fext, opts, qdd):
        return False
    aba_state(B, qd, tau, fext, opts, qdd)
    return all_finite(qdd)
