"""Compiled Christoffel symbols of the mass matrix for one state; mirrors
:func:`artidyn.dynamics.lagrange._christoffel`::

    Gamma[i, j, k] = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i)

``dM/dq_k`` is, as in the reference, ``Mdot(q, e_k)``: the rate of M along the motion with
velocity ``v = e_k`` (for spherical and free joints, the local coordinate v_k, a
quasi-velocity). It comes from the derivative of the world-frame CRBA (:mod:`.crba`): with ``s_a``
the world twist of dof a (about the world origin) and ``I^C_i`` the world composite inertia of
the subtree of body i, ``M_ab = s_a^T I^C_a s_b`` for b on the path from a to the root (``I^C_a``:
of a's body). Along ``v = e_k`` the bodies below joint k turn with the twist ``s_k`` and the rest
stay still, so ``ds_l/dt = s_k x s_l`` when k is on l's path (joint l's own dofs included: S is
fixed in the child), and ``dI^C_i/dt = s_k x* I^C - I^C s_k x`` summed over the moving part of the
subtree. For b on the path of a (b's joint above a's or the same), three cases:

* joint(k) strictly below a's body:  ``dM_ab/dq_k = s_a^T (s_k x* I^C_k - I^C_k s_k x) s_b``
  (``I^C_k``: composite inertia of k's body; the matrix is symmetric, so the case covers every
  pair a, b of dofs strictly above joint(k));
* joint(k) on the path of a (a's joint included) and strictly below joint(b):
  ``dM_ab/dq_k = (I^C_a s_a) . (s_b x s_k) = (s_k x* F_a) . s_b``, ``F_a = I^C_a s_a``;
* otherwise 0 (k above both, or on another branch: the pair moves as one rigid body).

The dofs of the path from the root to the current body are kept as a stack in the depth-first
order of the bodies (:mod:`.gaha` does the same): T (6, nv) their world twists, root first.
``E[k, a, b] = dM_ab/dq_k`` (the matrices dM/dq_k one after the other) is a work array
(nv, nv, nv) zeroed and filled per state; then ``Gamma[i, j, k] = 1/2 (E[k, i, j] + E[j, i, k] -
E[i, j, k])``. :func:`mass_matrix_rates` contracts the same partials with a velocity as they come
(``Mdot v`` and ``1/2 v^T E[k] v``, for Boltzmann-Hamel's equations) without the nv^3 array.
"""
import numba as nb
import numpy as np

from .crba import crba_bodies
from .pack import IA, IV, NVJ, PARENT, U
from .spatial import FMA, load_q, rigid_inertia_apply
from .types import BUF, OUT3, VEC

BIG = 1e300


@nb.njit(fastmath=FMA)
def cross_motion6(s, x):
    """s x x for motion 6-tuples: [w x xw; w x xv + v x xw] (crm(s) x)."""
    w0, w1, w2, v0, v1, v2 = s
    a0, a1, a2, b0, b1, b2 = x
    return (w1 * a2 - w2 * a1, w2 * a0 - w0 * a2, w0 * a1 - w1 * a0,
            w1 * b2 - w2 * b1 + v1 * a2 - v2 * a1, w2 * b0 - w0 * b2 + v2 * a0 - v0 * a2,
            w0 * b1 - w1 * b0 + v0 * a1 - v1 * a0)


@nb.njit(fastmath=FMA)
def cross_force6(s, f):
    """s x* f for a motion s and a force f (6-tuples): [w x mu + v x f; w x f] (crf(s) f)."""
    w0, w1, w2, v0, v1, v2 = s
    a0, a1, a2, b0, b1, b2 = f
    return (w1 * a2 - w2 * a1 + v1 * b2 - v2 * b1, w2 * a0 - w0 * a2 + v2 * b0 - v0 * b2,
            w0 * a1 - w1 * a0 + v0 * b1 - v1 * b0,
            w1 * b2 - w2 * b1, w2 * b0 - w0 * b2, w0 * b1 - w1 * b0)


@nb.njit(fastmath=FMA)
def column(T, a):
    return (T[0, a], T[1, a], T[2, a], T[3, a], T[4, a], T[5, a])


@nb.njit(fastmath=FMA)
def dot6(x, y):
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3] + x[4] * y[4] + x[5] * y[5]


@nb.njit(fastmath=FMA)
def put(E, R, a, b, k, x):
    """dM_ab/dq_k = dM_ba/dq_k = x, stored in E (nv, nv, nv) when R is None; otherwise (E None)
    contracted with v = R[0] as it comes: ``Mdot v = sum_k v_k E[k] v`` into R[1] and ``g_k = 1/2
    v^T E[k] v`` into R[2] (the velocity terms of Boltzmann-Hamel, without the nv^3 array; each
    pair a, b comes once). numba compiles the branch of the argument that is not None only.
    False when x is not finite or beyond 1e300 (so that the sums of
    :func:`christoffel_from_partials` stay finite)."""
    if E is not None:
        E[k, a, b] = x
        E[k, b, a] = x
    if R is not None:
        vk = R[0, k]
        R[1, a] += vk * x * R[0, b]
        if a != b:
            R[1, b] += vk * x * R[0, a]
            R[2, k] += x * R[0, a] * R[0, b]
        else:
            R[2, k] += 0.5 * x * R[0, a] * R[0, a]
    return abs(x) <= BIG


@nb.njit(fastmath=FMA)
def composite_inertias(B):
    """IA of every row <- the world composite inertia of its subtree (13 numbers), from the bodies'
    own world inertias left there by :func:`.crba.crba_bodies`."""
    for i in range(B.shape[0] - 1, 0, -1):
        par = int(B[i, PARENT])
        if par > 0:
            for j in range(13):
                B[par, IA + j] += B[i, IA + j]


@nb.njit(fastmath=FMA)
def below_joint(B, i, st, T, G, dofs, E, R):
    """First case, k a dof of joint i, for every pair a, b of dofs above joint i (stack positions
    0 .. st-1): ``dM_ab/dq_k = s_a^T (s_k x* I^C_i - I^C_i s_k x) s_b`` (G: work columns)."""
    k0 = int(B[i, IV])
    ok = True
    for j in range(int(B[i, NVJ])):
        o = U + 6 * j
        s = (B[i, o], B[i, o + 1], B[i, o + 2], B[i, o + 3], B[i, o + 4], B[i, o + 5])
        k = k0 + j
        for b in range(st):
            sb = column(T, b)
            x = cross_force6(s, rigid_inertia_apply(B, i, IA, sb))
            y = rigid_inertia_apply(B, i, IA, cross_motion6(s, sb))
            for r in range(6):
                G[r, b] = x[r] - y[r]
        for a in range(st):
            ka = dofs[a]
            sa = column(T, a)
            for b in range(a + 1):
                ok &= put(E, R, ka, dofs[b], k, dot6(sa, column(G, b)))
    return ok


@nb.njit(fastmath=FMA)
def on_path(B, i, d, T, start, dofs, E, R):
    """Second case, a a dof of joint i, k a dof of the path (stack positions 0 .. d-1, joint i's
    included) and b a dof strictly above k's joint: ``dM_ab/dq_k = dM_ba/dq_k = (s_k x* F_a) . s_b``
    with ``F_a = I^C_i s_a``."""
    k0 = int(B[i, IV])
    ok = True
    for j in range(int(B[i, NVJ])):
        o = U + 6 * j
        ka = k0 + j
        F = rigid_inertia_apply(B, i, IA, (B[i, o], B[i, o + 1], B[i, o + 2], B[i, o + 3], B[i, o + 4],
                                           B[i, o + 5]))
        for pk in range(d):
            top = start[pk]
            if top == 0:
                continue
            k = dofs[pk]
            H = cross_force6(column(T, pk), F)
            for b in range(top):
                ok &= put(E, R, ka, dofs[b], k, dot6(H, column(T, b)))
    return ok


@nb.njit(fastmath=FMA)
def mass_matrix_partials(B, T, G, dofs, start, depth, E, R):
    """E (nv, nv, nv) <- ``E[k, a, b] = dM_ab/dq_k`` for the state whose q was loaded by ``load_q``;
    or, with R (3, nv) and E None, their contractions with v = R[0] (:func:`put`).
    T, G (6, nv), dofs, start (nv), depth (nb+1): work arrays (``start[p]``: the stack position of
    the first dof of the joint at position p)."""
    nb1 = B.shape[0]
    crba_bodies(B)
    composite_inertias(B)
    if E is not None:
        for k in range(E.shape[0]):
            for a in range(E.shape[1]):
                for b in range(E.shape[2]):
                    E[k, a, b] = 0.0
    if R is not None:
        for a in range(R.shape[1]):
            R[1, a] = R[2, a] = 0.0
    ok = True
    depth[0] = 0
    for i in range(1, nb1):
        st = depth[int(B[i, PARENT])]
        d = st
        k0 = int(B[i, IV])
        for j in range(int(B[i, NVJ])):      # push joint i
            o = U + 6 * j
            for r in range(6):
                T[r, d] = B[i, o + r]
            dofs[d] = k0 + j
            start[d] = st
            d += 1
        depth[i] = d
        ok &= below_joint(B, i, st, T, G, dofs, E, R)
        ok &= on_path(B, i, d, T, start, dofs, E, R)
    return ok


@nb.njit(fastmath=FMA)
def christoffel_from_partials(E, Gam):
    """Gam[i, j, k] <- 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) = 1/2 (E[k, i, j] + E[j, i, k] -
    E[i, j, k]) (E[k] = dM/dq_k is symmetric)."""
    nv = E.shape[0]
    for i in range(nv):
        for j in range(nv):
            for k in range(nv):
                Gam[i, j, k] = 0.5 * (E[k, i, j] + E[j, i, k] - E[i, j, k])


@nb.njit(fastmath=FMA)
def christoffel_stack(nb1, nv):
    """The path stack's work arrays: T, G (6, nv), dofs, start (nv), depth (nb+1)."""
    n = max(nv, 1)
    return np.empty((6, n)), np.empty((6, n)), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(nb1, np.int64)


@nb.njit(fastmath=FMA)
def christoffel_work(nb1, nv):
    """All the work arrays: those of :func:`christoffel_stack` and E (nv, nv, nv)."""
    T, G, dofs, start, depth = christoffel_stack(nb1, nv)
    return T, G, dofs, start, depth, np.empty((nv, nv, nv))


@nb.njit(fastmath=FMA)
def christoffel_state(B, T, G, dofs, start, depth, E, Gam):
    """Christoffel symbols (nv, nv, nv) of the state whose q was loaded by ``load_q``; True when
    every entry is finite (every dM_ab/dq_k finite and below 1e300)."""
    if not mass_matrix_partials(B, T, G, dofs, start, depth, E, None):
        return False
    christoffel_from_partials(E, Gam)
    return True


@nb.njit(fastmath=FMA)
def mass_matrix_rates(B, T, G, dofs, start, depth, R):
    """R[1] <- ``Mdot v = sum_k v_k dM/dq_k v`` and R[2] <- ``g_k = 1/2 v^T dM/dq_k v`` for v = R[0]
    (the state loaded by ``load_q``; work arrays of :func:`christoffel_stack`): the two
    contractions of the partials that Boltzmann-Hamel's equations use. True when every partial
    is finite."""
    return mass_matrix_partials(B, T, G, dofs, start, depth, None, R)


@nb.njit(nb.boolean(BUF, VEC, OUT3, OUT3), cache=True)
def christoffel_single(B, q, E, Gam):
    """One state, in the table's own work columns and the work array E (nv, nv, nv), kept by the
    caller (a new one costs page faults at every call); False when q or the result is not valid."""
    nv = int(B[0, IV])
    if (Gam.shape[0] != nv or Gam.shape[1] != nv or Gam.shape[2] != nv or E.shape[0] != nv or E.shape[1] != nv
            or E.shape[2] != nv or not load_q(B, q)):
        return False
    T, G, dofs, start, depth = christoffel_stack(B.shape[0], nv)
    return christoffel_state(B, T, G, dofs, start, depth, E, Gam)
