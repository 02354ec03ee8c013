"""Compiled GAHA (mass matrix as the Hessian of the Gibbs-Appell function) for one state; mirrors
:func:`artidyn.dynamics.gaha._gaha`.

Mata, Provenzano, Cuadrado & Valero (Mech. Mach. Theory 37, 2002)::

    M = sum_i [ m_i Gamma_i^T Gamma_i + Omega_i^T I_Gi Omega_i ] + diag(armature)

with the partial accelerations ``Omega_i = d alpha_i / d qdd`` and ``Gamma_i = d a_Gi / d qdd``
(3 x nv, nonzero only in the columns of the joints on the path from body i to the root). The
reference writes them in body i's axes; here they are in world axes (each term of the sum is a
scalar product, the same in any axes), where a column is read off the world twist of its dof
(:func:`.crba.world_twists`, ``s_k = [w_k; v0_k]`` about the world origin)::

    Omega_i[:, k] = w_k,      Gamma_i[:, k] = v0_k + w_k x G_i

with ``G_i`` the centre of mass of body i in the world and ``I_Gi`` its central inertia in world
axes (``R0 I_G R0^T``, ``I_G = Ibar - m ([c]^T [c])``, c the centre of mass in body axes). Per body,
the ``d`` dofs of its path give the columns ``P = [Omega; Gamma]`` and ``Y = [I_G Omega; m Gamma]``
(6 x d, columns of the work arrays), and body i adds ``P^T Y`` to the rows and columns of those
dofs (lower triangle, mirrored at the end). The sum is gathered in path coordinates (L, one row
per dof of the path) and goes to M when a dof leaves the path (:func:`gaha_state`).
"""
import numba as nb
import numpy as np

from .crba import matrix_finite, world_twists
from .kinematics import placements_state
from .pack import ARM, H, IBAR, IV, MASS, NVJ, P0, PARENT, R0, U
from .spatial import FMA, load_q
from .types import BUF, OUT2, VEC


@nb.njit(fastmath=FMA)
def central_inertia_world(B, i):
    """(m, G (3-tuple), I_G (row-major 9-tuple)): mass, world centre of mass and central inertia
    in world axes of body i (internal axes of :mod:`.pack` turned by R0). A massless body keeps
    its rotational inertia about its origin (G = origin), as the reference's ``com_parts``."""
    m = B[i, MASS]
    c0 = c1 = c2 = 0.0
    if m > 0.0:
        c0, c1, c2 = B[i, H] / m, B[i, H + 1] / m, B[i, H + 2] / m
    # I_G = Ibar - m (|c|^2 1 - c c^T)  (internal axes)
    cc = m * (c0 * c0 + c1 * c1 + c2 * c2)
    g = (B[i, IBAR] - cc + m * c0 * c0, B[i, IBAR + 1] + m * c0 * c1, B[i, IBAR + 2] + m * c0 * c2,
         B[i, IBAR + 3] + m * c1 * c0, B[i, IBAR + 4] - cc + m * c1 * c1, B[i, IBAR + 5] + m * c1 * c2,
         B[i, IBAR + 6] + m * c2 * c0, B[i, IBAR + 7] + m * c2 * c1, B[i, IBAR + 8] - cc + m * c2 * c2)
    Rw = (B[i, R0], B[i, R0 + 1], B[i, R0 + 2], B[i, R0 + 3], B[i, R0 + 4], B[i, R0 + 5],
          B[i, R0 + 6], B[i, R0 + 7], B[i, R0 + 8])
    G = (B[i, P0] + Rw[0] * c0 + Rw[1] * c1 + Rw[2] * c2,
         B[i, P0 + 1] + Rw[3] * c0 + Rw[4] * c1 + Rw[5] * c2,
         B[i, P0 + 2] + Rw[6] * c0 + Rw[7] * c1 + Rw[8] * c2)
    # R0 I_G R0^T: T = R0 I_G, then T R0^T
    t = (Rw[0] * g[0] + Rw[1] * g[3] + Rw[2] * g[6], Rw[0] * g[1] + Rw[1] * g[4] + Rw[2] * g[7],
         Rw[0] * g[2] + Rw[1] * g[5] + Rw[2] * g[8],
         Rw[3] * g[0] + Rw[4] * g[3] + Rw[5] * g[6], Rw[3] * g[1] + Rw[4] * g[4] + Rw[5] * g[7],
         Rw[3] * g[2] + Rw[4] * g[5] + Rw[5] * g[8],
         Rw[6] * g[0] + Rw[7] * g[3] + Rw[8] * g[6], Rw[6] * g[1] + Rw[7] * g[4] + Rw[8] * g[7],
         Rw[6] * g[2] + Rw[7] * g[5] + Rw[8] * g[8])
    I00 = t[0] * Rw[0] + t[1] * Rw[1] + t[2] * Rw[2]
    I01 = t[0] * Rw[3] + t[1] * Rw[4] + t[2] * Rw[5]
    I02 = t[0] * Rw[6] + t[1] * Rw[7] + t[2] * Rw[8]
    I11 = t[3] * Rw[3] + t[4] * Rw[4] + t[5] * Rw[5]
    I12 = t[3] * Rw[6] + t[4] * Rw[7] + t[5] * Rw[8]
    I22 = t[6] * Rw[6] + t[7] * Rw[7] + t[8] * Rw[8]
    return m, G, (I00, I01, I02, I01, I11, I12, I02, I12, I22)


@nb.njit(fastmath=FMA)
def push_joint(B, i, d, T, dofs, L):
    """Put the world twists of joint i's dofs at positions d .. on the path stack (T columns,
    dofs) and clear their rows of L; returns the new path length."""
    k = int(B[i, IV])
    for j in range(int(B[i, NVJ])):
        o = U + 6 * j
        for r in range(6):
            T[r, d] = B[i, o + r]
        dofs[d] = k + j
        for b in range(d + 1):
            L[d, b] = 0.0
        d += 1
    return d


@nb.njit(fastmath=FMA)
def pop_joints(keep, d, dofs, L, M):
    """Leave the path down to ``keep`` dofs: the rows of L of the dofs above go to M (lower triangle)."""
    for a in range(keep, d):
        ka = dofs[a]
        for b in range(a + 1):
            M[ka, dofs[b]] += L[a, b]
    return keep


@nb.njit(fastmath=FMA)
def partial_accelerations(B, i, d, T, P, Y):
    """Columns 0 .. d-1 (the dofs of body i's path, root first) of ``P = [Omega; Gamma]`` (P's
    first three rows are T's: Omega_i[:, a] = w_a) and ``Y = [I_G Omega; m Gamma]``, world axes."""
    m, G, Ig = central_inertia_world(B, i)
    for a in range(d):
        w0, w1, w2 = T[0, a], T[1, a], T[2, a]
        g0 = T[3, a] + w1 * G[2] - w2 * G[1]
        g1 = T[4, a] + w2 * G[0] - w0 * G[2]
        g2 = T[5, a] + w0 * G[1] - w1 * G[0]
        P[3, a], P[4, a], P[5, a] = g0, g1, g2
        Y[0, a] = Ig[0] * w0 + Ig[1] * w1 + Ig[2] * w2
        Y[1, a] = Ig[3] * w0 + Ig[4] * w1 + Ig[5] * w2
        Y[2, a] = Ig[6] * w0 + Ig[7] * w1 + Ig[8] * w2
        Y[3, a], Y[4, a], Y[5, a] = m * g0, m * g1, m * g2


@nb.njit(fastmath=FMA)
def add_body(d, T, P, Y, L):
    """L[a, b] += P[:, a] . Y[:, b] for b <= a < d: body i's ``m Gamma^T Gamma + Omega^T I_G Omega``
    in path coordinates (row a of L: the dof at position a of the path)."""
    for a in range(d):
        p0, p1, p2, p3, p4, p5 = T[0, a], T[1, a], T[2, a], P[3, a], P[4, a], P[5, a]
        for b in range(a + 1):
            L[a, b] += p0 * Y[0, b] + p1 * Y[1, b] + p2 * Y[2, b] + p3 * Y[3, b] + p4 * Y[4, b] + p5 * Y[5, b]


@nb.njit(fastmath=FMA)
def gaha_state(B, T, P, Y, dofs, depth, L, M):
    """GAHA for the state whose q was loaded by ``load_q``: M (nv, nv) <- the mass matrix; True when
    every entry is finite.

    Bodies in their (depth-first) order, with the path from the root as a stack: T (6, nv) the
    world twists of its dofs, root first (dof indices increasing), ``dofs`` their indices, ``depth``
    (nb+1) the path length below each body; L (nv, nv) accumulates each body's terms in path
    coordinates, so that an entry of M is written once per (dof, ancestor dof) when its dof leaves
    the stack rather than once per body. P, Y (6, nv) are work arrays."""
    nb1, nv = B.shape[0], M.shape[0]
    placements_state(B, nb1 - 1)
    for r in range(nv):
        for c in range(nv):
            M[r, c] = 0.0
    d = 0
    depth[0] = 0
    for i in range(1, nb1):
        world_twists(B, i)
        d = pop_joints(depth[int(B[i, PARENT])], d, dofs, L, M)
        d = push_joint(B, i, d, T, dofs, L)
        depth[i] = d
        partial_accelerations(B, i, d, T, P, Y)
        add_body(d, T, P, Y, L)
    pop_joints(0, d, dofs, L, M)
    for i in range(1, nb1):
        k = int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            M[k + j, k + j] += B[i, ARM + j]
    for r in range(nv):
        for c in range(r):
            M[c, r] = M[r, c]
    return matrix_finite(M)


@nb.njit(fastmath=FMA)
def gaha_work(nb1, nv):
    """The work arrays of :func:`gaha_state`: T, P, Y (6, nv), dofs (nv), depth (nb+1), L (nv, nv)."""
    n = max(nv, 1)
    return (np.empty((6, n)), np.empty((6, n)), np.empty((6, n)), np.empty(n, np.int64),
            np.empty(nb1, np.int64), np.empty((n, n)))


@nb.njit(nb.boolean(BUF, VEC, OUT2), cache=True)
def gaha_single(B, q, M):
    """One state, in the table's own work columns; False when q or the result is not valid."""
    nv = int(B[0, IV])
    if M.shape[0] != nv or M.shape[1] != nv or not load_q(B, q):
        return False
    T, P, Y, dofs, depth, L = gaha_work(B.shape[0], nv)
    return gaha_state(B, T, P, Y, dofs, depth, L, M)
