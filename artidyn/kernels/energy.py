"""Compiled kinetic and potential energy of one state; mirrors :mod:`artidyn.dynamics.energy`::

    T = sum_i 1/2 v_i . I_i v_i + sum_k 1/2 armature_k qd_k^2        (v_i body twists)
    V = - g . sum_i (m_i p_0i + R_0i h_i)                             (h_i = m_i c_i, first moment)
        + sum_k 1/2 stiffness_k (q_k - rest_k)^2                      (joint springs)

The engine reads the energies off the dynamics pass it has just made: :func:`energy_after_dynamics`
reads what an ABA or RNEA pass of the same state left in the table
(joint transforms R, P and body twists V) and carries gravity down the tree instead of world
placements: with ``g_i = R_i^T g_p`` (gravity in body i's axes) and ``s_i = s_p + P_i . g_p``
(``g . p_0i``), body i's term is ``-(m_i s_i + h_i . g_i)``: about a sixth of an ABA's work.
"""
import numba as nb

from .pack import A, ARM, C, GRAVITY, H, IV, MASS, NVJ, P, PARENT, QN, R, REST, STIFF, V
from .spatial import FMA, inertia_apply


@nb.njit(_nrt=False, fastmath=FMA)
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
            if B[i, STIFF + j] != 0.0:
                d = B[i, QN + j] - B[i, REST + j]
                pot += 0.5 * B[i, STIFF + j] * d * d
    return kin, pot
