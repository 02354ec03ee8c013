"""Compiled analytical derivatives of RNEA and ABA, one state or a batch.

Mirrors :mod:`artidyn.dynamics.derivatives` (Carpentier & Mansard, "Analytical Derivatives of
Rigid Body Dynamics Algorithms", RSS 2018): every quantity in the WORLD frame, about the world
origin, the motion subspace of dof k being its world twist ``s_k`` (:func:`.crba.world_twists`)::

    forward (1 .. nb):  v_i = v_p + sum s_k qd_k;  a_i = a_p + sum s_k qdd_k + v_i x vJ_i
                        dV_k = v_p x s_k;  dA_k = a_p x s_k + v_p x dV_k;  dAv_k = dV_k + v_i x s_k
                        I_i (world), h_i = I_i v_i, f_i = I_i a_i + v_i x* h_i - f_ext_i
                        Idot_i = v_i x* I_i - I_i v_i x
    backward (nb .. 1): the subtree sums I^C, Idot^C, h^C, f^C of i are complete; with
                        B^C x = Idot^C x + x x* h^C  (the reference's B^C = sum of B_i, as
                        f x-bar* v = v x* f is linear in f) and per dof k of joint i
                        zI = I^C s_k,  zB = B^C^T s_k = Idot^C s_k - s_k x* h^C:
        columns c on the path root..i:   dtau_k/dq_c = zB.dV_c + zI.dA_c
                                         dtau_k/dv_c = zB.s_c + zI.dAv_c;   M_kc = M_ck = zI.s_c
        rows c of the strict ancestors:  dtau_c/dq_k = s_c.(s_k x* f^C + B^C dV_k + I^C dA_k)
                                         dtau_c/dv_k = s_c.(B^C s_k + I^C dAv_k)

``Idot_i`` (the rate of the world inertia of a body moving with the twist [w; u]) is again of
the rigid-body form with zero mass: first moment ``w x c + m u``, rotational part
``[w] Ibar - Ibar [w] - (c u^T + u c^T) + 2 (u.c) 1`` (c the first moment); both sums are
stored as 13 numbers (m, c, Ibar) and applied by :func:`.spatial.rigid_inertia_apply`.
Then ``diag(stiffness)``, ``diag(damping)`` (friction on) and ``diag(armature)``.

ABA: the forward pass at qdd = 0 gives, summed over subtrees, the composite inertias and bias
wrenches, hence M and ``b(q, v)`` (the torques at qdd = 0); ``M = U D U^T`` by the tree-sparse
factorisation (:func:`.constrained.utdu`, Featherstone, "Rigid Body Dynamics Algorithms", sec.
6.5), ``a = M^-1 (tau - b)``; the forward quantities that depend on qdd (accelerations,
wrenches, dA) are linear in it and are moved to qdd = a; then the backward pass above at (q, v,
a), and ``da/dq = -M^-1 dtau/dq``, ``da/dv = -M^-1 dtau/dv``, ``Minv = M^-1`` by solves with
the same factor along the dof tree. No separate ABA pass: the factor of M serves both.

Entry points return a code (``OK``, ``BAD_INPUT``: sizes, NaN, quaternion, non-finite result;
``SINGULAR``: M not positive definite); the Python side then runs the reference code.
Results: ``out`` (3, nv, nv) (single) or (3, N, nv, nv) (batch): dtau/dq, dtau/dv, M or
da/dq, da/dv, M^-1.
"""
import numba as nb
import numpy as np

from .aba import minus_joint_torques
from .constrained import FAST, dof_parents, solve_m, subtree_sizes, utdu
from .crba import world_twists
from .kinematics import body_rotation, placements_state
from .pack import ARM, DAMP, GRAVITY, IA, IV, MASS, NVJ, P0, PARENT, R0, STIFF, U
from .spatial import FMA, all_finite, rigid_inertia_apply, rigid_inertia_transform_add
from .types import BUF, FRICTION, HAS_FEXT, I64, MAT, OUT3, OUT4, TEN, VEC, inputs_ok

OK, BAD_INPUT, SINGULAR = 0, 1, 2
RNEA_D, ABA_D = 0, 1
# per-body work columns of W: world v, a; subtree sums of f, h (momentum), I (13), Idot (13) (up
# to WSUM); ABA's composite inertia, bias wrench (subtree sums) and acceleration increment
WV, WA, WF, WH, WI, WD = 0, 6, 12, 18, 24, 37
WSUM = 50
WIC, WFC, WDL = 50, 63, 69
WWIDTH = 75
# per-dof work columns of S: world twist s, dV, dA, dAv
DS, DV, DA, DW = 0, 6, 12, 18


# --- 6-vectors as tuples -----------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def row6(X, i, o):
    return X[i, o], X[i, o + 1], X[i, o + 2], X[i, o + 3], X[i, o + 4], X[i, o + 5]


@nb.njit(fastmath=FMA)
def put6(X, i, o, x):
    X[i, o], X[i, o + 1], X[i, o + 2], X[i, o + 3], X[i, o + 4], X[i, o + 5] = x


@nb.njit(fastmath=FMA)
def crm(m, x):
    """m x x (motion cross product): [w x a; w x b + v x a]."""
    return (m[1] * x[2] - m[2] * x[1], m[2] * x[0] - m[0] * x[2], m[0] * x[1] - m[1] * x[0],
            m[1] * x[5] - m[2] * x[4] + m[4] * x[2] - m[5] * x[1],
            m[2] * x[3] - m[0] * x[5] + m[5] * x[0] - m[3] * x[2],
            m[0] * x[4] - m[1] * x[3] + m[3] * x[1] - m[4] * x[0])


@nb.njit(fastmath=FMA)
def crf(m, f):
    """m x* f (force cross product): [w x n + v x f; w x f]."""
    return (m[1] * f[2] - m[2] * f[1] + m[4] * f[5] - m[5] * f[4],
            m[2] * f[0] - m[0] * f[2] + m[5] * f[3] - m[3] * f[5],
            m[0] * f[1] - m[1] * f[0] + m[3] * f[4] - m[4] * f[3],
            m[1] * f[5] - m[2] * f[4], m[2] * f[3] - m[0] * f[5], m[0] * f[4] - m[1] * f[3])


@nb.njit(fastmath=FMA)
def add6(x, y):
    return x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3], x[4] + y[4], x[5] + y[5]


@nb.njit(fastmath=FMA)
def sub6(x, y):
    return x[0] - y[0], x[1] - y[1], x[2] - y[2], x[3] - y[3], x[4] - y[4], x[5] - y[5]


@nb.njit(fastmath=FMA)
def dot6(x, y):
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3] + x[4] * y[4] + x[5] * y[5]


@nb.njit(fastmath=FMA)
def dot6r(X, k, o, y):
    """X[k, o:o+6] . y, summed as two halves (two chains of three multiply-adds, not one of six)"""
    return ((X[k, o] * y[0] + X[k, o + 1] * y[1] + X[k, o + 2] * y[2])
            + (X[k, o + 3] * y[3] + X[k, o + 4] * y[4] + X[k, o + 5] * y[5]))


@nb.njit(fastmath=FMA)
def next_on_path(c, k0, n, first, lam):
    """The column after c on the path of a dof of the joint whose dofs are k0 .. k0 + n - 1: the
    joint's own dofs, then its ancestors ``first = lam[k0]``, ``lam[first]`` ... (-1: done)."""
    if k0 <= c < k0 + n - 1:
        return c + 1
    if c >= k0:
        return first
    return lam[c]


# --- passes ------------------------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def world_external(B, i, fext):
    """f_ext of body i (body axes, about its origin) in world axes about the world origin."""
    n0 = n1 = n2 = g0 = g1 = g2 = 0.0
    for c in range(3):
        e0, e1, e2 = body_rotation(B, i, 0, c), body_rotation(B, i, 1, c), body_rotation(B, i, 2, c)
        n0 += e0 * fext[i, c]
        n1 += e1 * fext[i, c]
        n2 += e2 * fext[i, c]
        g0 += e0 * fext[i, 3 + c]
        g1 += e1 * fext[i, 3 + c]
        g2 += e2 * fext[i, 3 + c]
    p0, p1, p2 = B[i, P0], B[i, P0 + 1], B[i, P0 + 2]
    return n0 + p1 * g2 - p2 * g1, n1 + p2 * g0 - p0 * g2, n2 + p0 * g1 - p1 * g0, g0, g1, g2


@nb.njit(fastmath=FMA)
def inertia_rate(W, i, v):
    """W[i, WD:WD+13] <- Idot_i = v x* I - I v x for the world inertia W[i, WI:WI+13]."""
    w0, w1, w2, u0, u1, u2 = v
    c0, c1, c2 = W[i, WI + 1], W[i, WI + 2], W[i, WI + 3]
    m = W[i, WI]
    W[i, WD] = 0.0
    W[i, WD + 1] = w1 * c2 - w2 * c1 + m * u0
    W[i, WD + 2] = w2 * c0 - w0 * c2 + m * u1
    W[i, WD + 3] = w0 * c1 - w1 * c0 + m * u2
    b = WI + 4
    # C = [w] Ibar (row r of [w] times the columns of Ibar)
    C = (w1 * W[i, b + 6] - w2 * W[i, b + 3], w1 * W[i, b + 7] - w2 * W[i, b + 4], w1 * W[i, b + 8] - w2 * W[i, b + 5],
         w2 * W[i, b] - w0 * W[i, b + 6], w2 * W[i, b + 1] - w0 * W[i, b + 7], w2 * W[i, b + 2] - w0 * W[i, b + 8],
         w0 * W[i, b + 3] - w1 * W[i, b], w0 * W[i, b + 4] - w1 * W[i, b + 1], w0 * W[i, b + 5] - w1 * W[i, b + 2])
    c = (c0, c1, c2)
    u = (u0, u1, u2)
    uc2 = 2.0 * (u0 * c0 + u1 * c1 + u2 * c2)
    for r in range(3):
        for s in range(3):
            x = C[3 * r + s] + C[3 * s + r] - c[r] * u[s] - u[r] * c[s]
            if r == s:
                x += uc2
            W[i, WD + 4 + 3 * r + s] = x


@nb.njit(fastmath=FMA)
def forward_pass(B, W, S, qd, qdd, fext, opts):
    """World v, a, twists, dV, dA, dAv (S rows per dof), I, Idot, h, f (W rows per body)."""
    nb1 = B.shape[0]
    placements_state(B, nb1 - 1)
    for r in range(6):
        W[0, WV + r] = 0.0
        W[0, WA + r] = 0.0
    for r in range(3):
        W[0, WA + 3 + r] = -B[0, GRAVITY + r]
    for i in range(1, nb1):
        p, k0, n = int(B[i, PARENT]), int(B[i, IV]), int(B[i, NVJ])
        world_twists(B, i)
        vp, ap = row6(W, p, WV), row6(W, p, WA)
        vJ = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        aJ = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for j in range(n):
            s = row6(B, i, U + 6 * j)
            x, y = qd[k0 + j], qdd[k0 + j]
            vJ = (vJ[0] + s[0] * x, vJ[1] + s[1] * x, vJ[2] + s[2] * x, vJ[3] + s[3] * x, vJ[4] + s[4] * x,
                  vJ[5] + s[5] * x)
            aJ = (aJ[0] + s[0] * y, aJ[1] + s[1] * y, aJ[2] + s[2] * y, aJ[3] + s[3] * y, aJ[4] + s[4] * y,
                  aJ[5] + s[5] * y)
        v = add6(vp, vJ)
        a = add6(add6(ap, aJ), crm(v, vJ))
        put6(W, i, WV, v)
        put6(W, i, WA, a)
        for j in range(n):
            k = k0 + j
            s = row6(B, i, U + 6 * j)
            dV = crm(vp, s)
            put6(S, k, DS, s)
            put6(S, k, DV, dV)
            put6(S, k, DA, add6(crm(ap, s), crm(vp, dV)))
            put6(S, k, DW, add6(dV, crm(v, s)))
        # world inertia (m, c, Ibar), momentum, wrench, inertia rate
        for j in range(13):
            B[i, IA + j] = 0.0
        rigid_inertia_transform_add(B, i, MASS, R0, P0, i, IA)
        for j in range(13):
            W[i, WI + j] = B[i, IA + j]
        h = rigid_inertia_apply(W, i, WI, v)
        f = add6(rigid_inertia_apply(W, i, WI, a), crf(v, h))
        if opts & HAS_FEXT:
            f = sub6(f, world_external(B, i, fext))
        put6(W, i, WH, h)
        put6(W, i, WF, f)
        inertia_rate(W, i, v)


@nb.njit(fastmath=FMA)
def backward_pass(B, W, S, lam, opts, dq, dv, M, with_m):
    """dq, dv (nv, nv) <- d tau/dq, d tau/dv from the forward pass, and M (nv, nv) <- M when
    ``with_m`` (else M is not touched); W's I, Idot, h, f rows become subtree sums."""
    nv = dq.shape[0]
    for r in range(nv):
        for c in range(nv):
            dq[r, c] = 0.0
            dv[r, c] = 0.0
    if with_m:
        for r in range(nv):
            for c in range(nv):
                M[r, c] = 0.0
    for i in range(B.shape[0] - 1, 0, -1):
        p, k0, n = int(B[i, PARENT]), int(B[i, IV]), int(B[i, NVJ])
        hC, fC = row6(W, i, WH), row6(W, i, WF)
        first = lam[k0] if n > 0 else -1          # last dof of the nearest ancestor with dofs
        for j in range(n):
            k = k0 + j
            s = row6(S, k, DS)
            zI = rigid_inertia_apply(W, i, WI, s)
            zB = sub6(rigid_inertia_apply(W, i, WD, s), crf(s, hC))
            # row k, columns of the joint itself and of its ancestors
            c = k0
            while c >= 0:
                y0 = dot6r(S, c, DV, zB) + dot6r(S, c, DA, zI)
                y1 = dot6r(S, c, DS, zB) + dot6r(S, c, DW, zI)
                dq[k, c] = y0
                dv[k, c] = y1
                if with_m:
                    x = dot6r(S, c, DS, zI)
                    M[k, c] = x
                    M[c, k] = x
                c = next_on_path(c, k0, n, first, lam)
            if first < 0:
                continue
            # column k, rows of the strict ancestors: the derivative of the subtree's wrench
            dV, dA, dW = row6(S, k, DV), row6(S, k, DA), row6(S, k, DW)
            dFq = add6(add6(crf(s, fC), rigid_inertia_apply(W, i, WD, dV)),
                       add6(crf(dV, hC), rigid_inertia_apply(W, i, WI, dA)))
            dFv = add6(add6(rigid_inertia_apply(W, i, WD, s), crf(s, hC)), rigid_inertia_apply(W, i, WI, dW))
            c = first
            while c >= 0:
                y0 = dot6r(S, c, DS, dFq)
                y1 = dot6r(S, c, DS, dFv)
                dq[c, k] = y0
                dv[c, k] = y1
                c = lam[c]
        if p > 0:
            for j in range(WF, WSUM):
                W[p, j] += W[i, j]
    for i in range(1, B.shape[0]):
        k0 = int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            k = k0 + j
            if with_m:
                M[k, k] += B[i, ARM + j]
            dq[k, k] += B[i, STIFF + j]
            if opts & FRICTION:
                dv[k, k] += B[i, DAMP + j]


@nb.njit(fastmath=FMA)
def mass_and_bias(B, W, S, lam, opts, qd, tau, M, u):
    """M (nv, nv) and u = tau - b(q, v) (nv), b the joint torques at qdd = 0, from a forward pass
    run with qdd = 0: the composite inertias and bias wrenches are summed over subtrees in the
    WIC, WFC columns (the per-body ones stay for the backward pass). Per dof k of joint i, with
    ``zI = I^C_i s_k``: ``M_kc = M_ck = zI.s_c`` on the path root..i, ``b_k = s_k.f^C_i`` plus
    the joint's spring, damping and Coulomb terms (:func:`.aba.minus_joint_torques`, as ABA
    subtracts them); armature on M's diagonal."""
    nv = M.shape[0]
    for r in range(nv):
        for c in range(nv):
            M[r, c] = 0.0
    nb1 = B.shape[0]
    for i in range(1, nb1):
        for j in range(13):
            W[i, WIC + j] = W[i, WI + j]
        for j in range(6):
            W[i, WFC + j] = W[i, WF + j]
    for i in range(nb1 - 1, 0, -1):
        p, k0, n = int(B[i, PARENT]), int(B[i, IV]), int(B[i, NVJ])
        first = lam[k0] if n > 0 else -1
        for j in range(n):
            k = k0 + j
            s = row6(S, k, DS)
            zI = rigid_inertia_apply(W, i, WIC, s)
            c = k0
            while c >= 0:
                x = dot6r(S, c, DS, zI)
                M[k, c] = x
                M[c, k] = x
                c = next_on_path(c, k0, n, first, lam)
            u[k] = minus_joint_torques(B, i, j, qd[k], opts, tau[k] - dot6r(W, i, WFC, s))
            M[k, k] += B[i, ARM + j]
        if p > 0:
            for j in range(WIC, WDL):
                W[p, j] += W[i, j]


@nb.njit(fastmath=FMA)
def add_acceleration(B, W, S, qdd):
    """Turn a forward pass run with qdd = 0 into one with ``qdd``: the world accelerations grow
    by ``delta_i = delta_p + sum_k s_k qdd_k`` (column WDL; the WA columns keep qdd = 0's, the
    backward pass does not read them), the wrenches by ``I_i delta_i`` and each dA_k by
    ``delta_p x s_k``: the quantities that depend on qdd, all linearly."""
    for r in range(6):
        W[0, WDL + r] = 0.0
    for i in range(1, B.shape[0]):
        p, k0, n = int(B[i, PARENT]), int(B[i, IV]), int(B[i, NVJ])
        dp = row6(W, p, WDL)
        d = dp
        for j in range(n):
            k = k0 + j
            s = row6(S, k, DS)
            put6(S, k, DA, add6(row6(S, k, DA), crm(dp, s)))
            x = qdd[k]
            d = (d[0] + s[0] * x, d[1] + s[1] * x, d[2] + s[2] * x, d[3] + s[3] * x, d[4] + s[4] * x,
                 d[5] + s[5] * x)
        put6(W, i, WDL, d)
        put6(W, i, WF, add6(row6(W, i, WF), rigid_inertia_apply(W, i, WI, d)))


@nb.njit(fastmath=FAST)
def finite_sum(X):
    """The sum of the entries of the C-contiguous matrix X (NaN when one is not finite), in any
    order: one vectorised loop over the flat array, not a chain of additions. (:func:`.crba.
    matrix_finite`, row by row over ``x * 0``, takes 2.5x as long from 18 dof: 1.9 against
    0.73 us for the three 50 x 50 results of a talos state.)"""
    x = X.reshape(X.size)
    s = 0.0
    for k in range(x.shape[0]):
        s += x[k]
    return s


# --- solves with many right-hand sides ----------------------------------------------------------

@nb.njit(fastmath=FAST)
def solve_m_rows(Uf, lam, sub, D, Y, o0, o1, o2):
    """o0 <- -M^-1 R0, o1 <- -M^-1 R1, o2 <- M^-1 R2 (each (nv, nv)) for M = U D U^T factored by
    ``utdu`` and the right-hand sides interleaved column by column in Y (nv, 3 nv), ``Y[r, 3 c +
    j] = Rj[r, c]`` (the backward pass writes dtau/dq and dtau/dv there, the identity is the
    third): row operations along the dof tree, Y overwritten.

    With the interleaving a row operation is one loop over ``3 e`` entries, e the first column
    that is zero in all three. The right-hand sides have M's pattern: row r nonzero only at its
    ancestors, r and its subtree, all of them below ``r + sub[r]`` in depth-first order, and U^-1
    keeps that bound row by row (U^-T fills the rows). Each sweep moves along rows k and touches
    only k and its ancestors (a few rows that stay in the L1 cache): U^-1 pushes the finished
    row k into its ancestors (bottom up), then scales it by 1 / D_k; U^-T pulls the finished
    ancestor rows into row k (top down)."""
    n = Y.shape[0]
    for k in range(n - 1, -1, -1):               # U^-1, then D^-1
        e = 3 * (k + sub[k])
        i = lam[k]
        while i >= 0:
            u = Uf[i, k]
            for c in range(e):
                Y[i, c] -= u * Y[k, c]
            i = lam[i]
        d = 1.0 / D[k]
        for c in range(3 * n):
            Y[k, c] *= d
    for k in range(n):                           # U^-T
        i = lam[k]
        while i >= 0:
            u = Uf[i, k]
            for c in range(3 * n):
                Y[k, c] -= u * Y[i, c]
            i = lam[i]
    for r in range(n):
        for c in range(n):
            o0[r, c] = -Y[r, 3 * c]
            o1[r, c] = -Y[r, 3 * c + 1]
            o2[r, c] = Y[r, 3 * c + 2]


# --- one state ------------------------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def scratch_size(B):
    """Length of the float work buffer of one state."""
    nv = int(B[0, IV])
    return B.shape[0] * WWIDTH + max(nv, 1) * 24 + 4 * nv * nv + 2 * nv


@nb.njit(fastmath=FMA)
def new_scratch(B):
    """(work, tree): the float work buffer of one state and the dof tree (lam, sub: 2 nv ints)."""
    nv = int(B[0, IV])
    tree = np.empty(2 * nv, np.int64)
    dof_parents(B, tree[:nv])
    subtree_sizes(tree[:nv], tree[nv:])
    return np.empty(scratch_size(B)), tree


@nb.njit(fastmath=FMA)
def views(B, work, tree):
    """Work arrays of one state, views of ``work``: W (nb+1, WWIDTH), S (nv, 24), Mw (nv, nv),
    D (2 nv: pivots and a), Y (nv, 3 nv: the solves); lam and sub (nv each, the dof tree) from
    ``tree``."""
    nv, n = int(B[0, IV]), B.shape[0]
    o1 = n * WWIDTH
    o2 = o1 + max(nv, 1) * 24
    o3 = o2 + nv * nv
    o4 = o3 + 2 * nv
    return (work[:o1].reshape((n, WWIDTH)), work[o1:o2].reshape((max(nv, 1), 24)), work[o2:o3].reshape((nv, nv)),
            work[o3:o4], work[o4:o4 + 3 * nv * nv].reshape((nv, 3 * nv)), tree[:nv], tree[nv:2 * nv])


@nb.njit(fastmath=FMA)
def derivatives_state(B, kind, q, x1, x2, fext, opts, W, S, Mw, D, Y, lam, sub, o0, o1, o2):
    """One state (RNEA_D: x1, x2 = v, a; ABA_D: v, tau) into o0, o1, o2 (nv, nv), C-contiguous;
    a code."""
    nv = int(B[0, IV])
    if not inputs_ok(B, q, x1, x2, fext, opts, D[:nv]):
        return BAD_INPUT
    if kind == RNEA_D:
        forward_pass(B, W, S, x1, x2, fext, opts)
        backward_pass(B, W, S, lam, opts, o0, o1, o2, True)
        chk = finite_sum(o0) + finite_sum(o1) + finite_sum(o2)
        return OK if chk - chk == 0.0 else BAD_INPUT
    # the forward pass at qdd = 0, M and u = tau - b, M = U D U^T, a = M^-1 u, the forward pass
    # moved to qdd = a, the derivatives of the RNEA at (q, v, a) into Y's first two interleaved
    # columns (M is already there)
    D, a = D[:nv], D[nv:2 * nv]
    for k in range(nv):
        a[k] = 0.0
    forward_pass(B, W, S, x1, a, fext, opts)
    mass_and_bias(B, W, S, lam, opts, x1, x2, Mw, a)
    chk = finite_sum(Mw)
    if not chk - chk == 0.0:
        return BAD_INPUT
    if not utdu(Mw, lam, sub, D, o2[0]):            # o2: scratch until the solves
        return SINGULAR
    solve_m(Mw, sub, D, a)
    if not all_finite(a):
        return SINGULAR
    add_acceleration(B, W, S, a)
    backward_pass(B, W, S, lam, opts, Y[:, 0::3], Y[:, 1::3], Mw, False)
    for r in range(nv):
        for c in range(nv):
            Y[r, 3 * c + 2] = 1.0 if r == c else 0.0
    solve_m_rows(Mw, lam, sub, D, Y, o0, o1, o2)
    for r in range(nv):                          # exactly symmetric
        for c in range(r):
            x = 0.5 * (o2[r, c] + o2[c, r])
            o2[r, c] = x
            o2[c, r] = x
    chk = finite_sum(o0) + finite_sum(o1) + finite_sum(o2)    # NaN or inf in dtau/dq or dtau/dv reach o0, o1
    return OK if chk - chk == 0.0 else BAD_INPUT


@nb.njit(I64(BUF, I64, VEC, VEC, VEC, MAT, I64, OUT3), cache=True)
def derivatives_single(B, kind, q, x1, x2, fext, opts, out):
    """One state in the table's own work columns and a fresh scratch: out (3, nv, nv); a code."""
    nv = int(B[0, IV])
    if out.shape[0] != 3 or out.shape[1] != nv or out.shape[2] != nv:
        return BAD_INPUT
    work, tree = new_scratch(B)
    W, S, Mw, D, Y, lam, sub = views(B, work, tree)
    return derivatives_state(B, kind, q, x1, x2, fext, opts, W, S, Mw, D, Y, lam, sub, out[0], out[1], out[2])


@nb.njit(fastmath=FMA)
def run_chunk(B, kind, Q, X1, X2, Fext, opts, out, codes, lo, hi):
    Bc = B.copy()
    work, tree = new_scratch(Bc)
    W, S, Mw, D, Y, lam, sub = views(Bc, work, tree)
    for k in range(lo, hi):
        fk = Fext[k] if opts & HAS_FEXT else Fext[0]
        codes[k] = derivatives_state(Bc, kind, Q[k], X1[k], X2[k], fk, opts, W, S, Mw, D, Y, lam, sub,
                                     out[0, k], out[1, k], out[2, k])


@nb.njit(I64(BUF, I64, MAT, MAT, MAT, TEN, I64, OUT4, nb.int64[::1], I64, I64), cache=True, nogil=True)
def derivatives_batch(B, kind, Q, X1, X2, Fext, opts, out, codes, c, m):
    """Chunk c of m of N states (rows of Q, X1, X2; Fext (N, nb+1, 6) when opts & HAS_FEXT) on a
    private copy of the table: out (3, N, nv, nv), codes (N). The chunks run on threads at once
    (:func:`artidyn.threads.run_chunks`; it releases the GIL). Returns 1 for bad shapes, else 0."""
    N, nv = Q.shape[0], int(B[0, IV])
    if (X1.shape[0] != N or X2.shape[0] != N or codes.shape[0] != N or out.shape[0] != 3 or out.shape[1] != N
            or out.shape[2] != nv or out.shape[3] != nv):
        return 1
    if opts & HAS_FEXT and (Fext.shape[0] != N or Fext.shape[1] != B.shape[0] or Fext.shape[2] != 6):
        return 1
    run_chunk(B, kind, Q, X1, X2, Fext, opts, out, codes, c * N // m, (c + 1) * N // m)
    return 0
