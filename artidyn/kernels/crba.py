"""Compiled CRBA (joint-space mass matrix) for one state; mirrors :func:`artidyn.dynamics.crba._crba`.

Featherstone RBDA Table 6.2, written in world coordinates (RBDA sec. 6.2: the algorithm works in
any frame; pinocchio's choice): with every quantity about the world origin in world axes, the
composite inertias add up without transforms and an entry of M is one dot product::

    I_C[i] = A_0i I_i A_0i^T (rigid body: 13 numbers m, h, Ibar);  I_C[p] += I_C[i]  (i = nb .. 1)
    s_ik = A_0i^-t S_i[:, k]   (world twist of dof k of joint i: [w; p x w] or [0; u])
    M[(i, k), (l, m)] = s_lm^T (I_C[i] s_ik)   for l = i and every ancestor l of i

plus ``diag(armature)``. O(n) transforms and 6 products per (dof, ancestor dof) pair, where the
body-frame version carries a 6-vector down the tree with a transform per pair. Columns: R0, P0
world placements, IA the world composite inertia (13 numbers), U the world twists (6 per dof).
"""
import numba as nb

from .kinematics import placements_state
from .pack import ARM, IA, IV, JTYPE, MASS, NVJ, P0, PARENT, PITCH, R0, U
from .spatial import FMA, HELICAL, dof_axis, dof_slides, load_q, rigid_inertia_apply, rigid_inertia_transform_add
from .types import BUF, OUT2, VEC


@nb.njit(fastmath=FMA)
def world_twists(B, i):
    """U columns of row i <- the world twists s_ik of the joint's dofs (about the world origin)."""
    t = int(B[i, JTYPE])
    for j in range(int(B[i, NVJ])):
        a = dof_axis(t, j)  # internal z for flat joints, x, y, z otherwise
        u = (B[i, R0 + a], B[i, R0 + 3 + a], B[i, R0 + 6 + a])
        o = U + 6 * j
        if dof_slides(t, j):
            B[i, o], B[i, o + 1], B[i, o + 2] = 0.0, 0.0, 0.0
            B[i, o + 3], B[i, o + 4], B[i, o + 5] = u
        else:
            p = (B[i, P0], B[i, P0 + 1], B[i, P0 + 2])
            B[i, o], B[i, o + 1], B[i, o + 2] = u
            B[i, o + 3] = p[1] * u[2] - p[2] * u[1]
            B[i, o + 4] = p[2] * u[0] - p[0] * u[2]
            B[i, o + 5] = p[0] * u[1] - p[1] * u[0]
            if t == HELICAL:  # the screw's slide: + p u
                h = B[i, PITCH]
                B[i, o + 3] += h * u[0]
                B[i, o + 4] += h * u[1]
                B[i, o + 5] += h * u[2]


@nb.njit(fastmath=FMA)
def crba_state(B, M):
    """CRBA for the state whose q was loaded by ``load_q``: M (nv, nv) <- the mass matrix; True
    when every entry is finite."""
    crba_bodies(B)
    return crba_matrix(B, M)


@nb.njit(_nrt=False, fastmath=FMA)
def crba_bodies(B):
    """The first half of :func:`crba_state`: world placements, each body's own inertia in world
    coordinates (IA, before the composites) and the world twists (U)."""
    nb1 = B.shape[0]
    placements_state(B, nb1 - 1)
    for i in range(1, nb1):
        for j in range(13):
            B[i, IA + j] = 0.0
        rigid_inertia_transform_add(B, i, MASS, R0, P0, i, IA)  # (m, h, Ibar) are contiguous
        world_twists(B, i)


@nb.njit(fastmath=FMA)
def crba_matrix(B, M):
    """The second half of :func:`crba_state`: the composite inertias (IA) and M from them; True
    when every entry of M is finite (the sum of ``x * 0`` over the entries is NaN otherwise)."""
    for r in range(M.shape[0]):
        for c in range(M.shape[1]):
            M[r, c] = 0.0
    return crba_entries(B, M)


@nb.njit(_nrt=False, fastmath=FMA)
def crba_entries(B, M):
    """:func:`crba_matrix` without clearing M first: only the entries of M that can be nonzero
    (pairs of dofs of a joint and its ancestors) are written, the others left as they are (zero
    in a buffer that only ever receives a tree's mass matrix: a pile of 100 bodies skips 360 000
    stores)."""
    nb1 = B.shape[0]
    for i in range(nb1 - 1, 0, -1):
        par = int(B[i, PARENT])
        if par > 0:
            for j in range(13):
                B[par, IA + j] += B[i, IA + j]
    chk = 0.0
    for i in range(1, nb1):
        k, n = int(B[i, IV]), int(B[i, NVJ])
        for j in range(n):
            o = U + 6 * j
            F = rigid_inertia_apply(B, i, IA, (B[i, o], B[i, o + 1], B[i, o + 2], B[i, o + 3], B[i, o + 4],
                                               B[i, o + 5]))
            l = i
            while l > 0:
                kl = int(B[l, IV])
                for jj in range(j + 1 if l == i else int(B[l, NVJ])):  # diagonal block: jj <= j, mirrored
                    s = U + 6 * jj
                    x = (B[l, s] * F[0] + B[l, s + 1] * F[1] + B[l, s + 2] * F[2] + B[l, s + 3] * F[3]
                         + B[l, s + 4] * F[4] + B[l, s + 5] * F[5])
                    M[kl + jj, k + j] = x
                    M[k + j, kl + jj] = x
                    chk += x * 0.0
                l = int(B[l, PARENT])
            M[k + j, k + j] += B[i, ARM + j]
            chk += B[i, ARM + j] * 0.0
    return chk == 0.0


@nb.njit(fastmath={"reassoc", "contract"})
def matrix_finite(M):
    """True when every entry of M (2-D) is finite: the sum of ``M[r, c] * 0`` is NaN when one is
    inf or NaN, 0 otherwise (no early exit, so the loop vectorises; the flags keep NaN and inf)."""
    s = 0.0
    for r in range(M.shape[0]):
        for c in range(M.shape[1]):
            s += M[r, c] * 0.0
    return s == 0.0


@nb.njit(nb.boolean(BUF, VEC, OUT2), cache=True)
def crba_single(B, q, M):
    """One state, in the table's own work columns; False when q or the result is not valid."""
    nv = int(B[0, IV])
    if M.shape[0] != nv or M.shape[1] != nv or not load_q(B, q):
        return False
    return crba_state(B, M)
