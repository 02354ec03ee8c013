"""Compiled kinetic and potential energy of one state; mirrors :mod:`artidyn.dynamics.energy`::

    T = sum_i 1/2 v_i . I_i v_i + sum_k 1/2 armature_k qd_k^2        (v_i body twists)
    V = - g . sum_i (m_i p_0i + R_0i h_i)                             (h_i = m_i c_i, first moment)

:func:`energy_after_dynamics` reads what an ABA or RNEA pass of the same state left in the table
(joint transforms R, P and body twists V) and carries gravity down the tree instead of world
placements: with ``g_i = R_i^T g_p`` (gravity in body i's axes) and ``s_i = s_p + P_i . g_p``
(``g . p_0i``), body i's term is ``-(m_i s_i + h_i . g_i)``: about a sixth of an ABA's work.
"""
import numba as nb

from .kinematics import placements_state
from .pack import A, ARM, C, GRAVITY, H, IV, MASS, NVJ, P, P0, PARENT, R, R0, V
from .spatial import inertia_apply, joint_motion, motion_to_child


@nb.njit
def energy_after_dynamics(B, qd):
    """(T, V) for the state of the last ABA / RNEA pass (uses the A column of every row for g_i, s_i)."""
    nb1 = B.shape[0]
    B[0, A], B[0, A + 1], B[0, A + 2], B[0, A + 3] = B[0, GRAVITY], B[0, GRAVITY + 1], B[0, GRAVITY + 2], 0.0
    kin = 0.0
    pot = 0.0
    for i in range(1, nb1):
        par = int(B[i, PARENT])
        gp0, gp1, gp2 = B[par, A], B[par, A + 1], B[par, A + 2]
        for r in range(3):  # g_i = R^T g_p (column r of R)
            B[i, A + r] = B[i, R + r] * gp0 + B[i, R + 3 + r] * gp1 + B[i, R + 6 + r] * gp2
        B[i, A + 3] = B[par, A + 3] + B[i, P] * gp0 + B[i, P + 1] * gp1 + B[i, P + 2] * gp2
        pot -= B[i, MASS] * B[i, A + 3] + B[i, H] * B[i, A] + B[i, H + 1] * B[i, A + 1] + B[i, H + 2] * B[i, A + 2]
        inertia_apply(B, i, V, C)
        for r in range(6):
            kin += 0.5 * B[i, V + r] * B[i, C + r]
        k = int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            kin += 0.5 * B[i, ARM + j] * qd[k + j] * qd[k + j]
    return kin, pot


@nb.njit
def energy_state(B, qd):
    """(T, V) for the state whose q was loaded by ``load_q`` (uses the R, P, R0, P0, V, C columns)."""
    nb1 = B.shape[0]
    placements_state(B, nb1 - 1)
    g0, g1, g2 = B[0, GRAVITY], B[0, GRAVITY + 1], B[0, GRAVITY + 2]
    for r in range(6):
        B[0, V + r] = 0.0
    kin = 0.0
    pot = 0.0
    for i in range(1, nb1):
        par = int(B[i, PARENT])
        motion_to_child(B, i, par, V, V)
        joint_motion(B, i, qd, C)
        for r in range(6):
            B[i, V + r] += B[i, C + r]
        inertia_apply(B, i, V, C)
        for r in range(6):
            kin += 0.5 * B[i, V + r] * B[i, C + r]
        k = int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            kin += 0.5 * B[i, ARM + j] * qd[k + j] * qd[k + j]
        m = B[i, MASS]
        for r in range(3):
            x = m * B[i, P0 + r] + (B[i, R0 + 3 * r] * B[i, H] + B[i, R0 + 3 * r + 1] * B[i, H + 1]
                                    + B[i, R0 + 3 * r + 2] * B[i, H + 2])
            pot -= (g0 if r == 0 else (g1 if r == 1 else g2)) * x
    return kin, pot
