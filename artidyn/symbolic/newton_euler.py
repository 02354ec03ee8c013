"""The customised Newton-Euler algorithm of Khalil and Kleinfinger, emitted as scalar assignments.

Khalil & Dombre, "Modeling, Identification and Control of Robots", section 9.5 (and Khalil &
Kleinfinger 1987). All vectors of body j are in its own axes; ``jA_i`` (here ``R^T``) projects
the parent's quantities, ``P_j`` is the origin of body j in its parent, ``a_j`` the joint axis::

    WI_j  = jA_i w_i                             (parent's angular velocity in j's axes)
    W_j   = WI_j + qd_j a_j                      (revolute part; the book's sigma-bar term)
    WP_j  = jA_i wd_i + qdd_j a_j + WI_j x qd_j a_j
    U_j   = [WP_j] + [W_j][W_j]                  (from DV_ab = w_a w_b)
    VP_j  = jA_i (VP_i + U_i P_j) + qdd_j a_j + 2 WI_j x qd_j a_j      (prismatic part)
    F_j   = M_j VP_j + U_j MS_j
    N_j   = J_j WP_j + W_j x (J_j W_j) + MS_j x VP_j
    FJ_j  = F_j + sum_k jA_k FJ_k,     NJ_j = N_j + sum_k (jA_k NJ_k + P_k x jA_k FJ_k)
    GAM_j = a_j . NJ_j (revolute) or a_j . FJ_j (prismatic) + IA_j qdd_j + FV_j qd_j + FC_j sign(qd_j)

with ``VP_0 = -g`` (gravity as a base acceleration). ``W x (J W)`` is written with the products
``DV`` already formed for ``U`` (book eq. 9.93), so a diagonal inertia costs three
multiplications. Joints with a motion subspace S = [S_w; S_v] (constant in the body's axes) of
any type go through the same formulas: ``qd a`` is ``S_w qd`` / ``S_v qd`` and the extra
``W_J x S_v qd`` term makes the free joint exact; the spherical joint and the floating base use
the quaternion rotation of the joint.
"""
import sympy as sp

from .context import cross, matTvec, matvec
from .expr import index_tag


def to_child(ctx, i, x, name):
    """jA_i x: the parent's vector x in body i's axes, R_J^T (R_P^T x), each step emitted."""
    tag = index_tag(i)
    y = ctx.E.vec(matTvec(ctx.RP(i), x), name + "A", tag)
    RJ = ctx.RJ(i)
    return y if RJ is None else ctx.E.vec(matTvec(RJ, y), name, tag)


def to_parent(ctx, i, x, name):
    """iA_j x: body i's vector x in the parent's axes, R_P (R_J x)."""
    tag = index_tag(i)
    RJ = ctx.RJ(i)
    y = x if RJ is None else ctx.E.vec(matvec(RJ, x), name + "A", tag)
    return ctx.E.vec(matvec(ctx.RP(i), y), name, tag)


def omega_products(ctx, w, tag):
    """DV_ab = w_a w_b (a <= b), emitted."""
    E = ctx.E
    return {(a, b): E.var(w[a] * w[b], f"DV{a + 1}{b + 1}{tag}") for a in range(3) for b in range(a, 3)}


def u_matrix(ctx, DV, wp, tag):
    """U = [wd] + [w][w] from the DV products (book eq. 9.90)."""
    E = ctx.E
    d = lambda a, b: DV[(min(a, b), max(a, b))]  # noqa: E731
    sk = [[0, -wp[2], wp[1]], [wp[2], 0, -wp[0]], [-wp[1], wp[0], 0]]
    U = []
    for r in range(3):
        row = []
        for c in range(3):
            ww = d(r, c) if r != c else -sum(d(k, k) for k in range(3) if k != r)
            row.append(E.var(sk[r][c] + ww, f"U{r + 1}{c + 1}{tag}"))
        U.append(row)
    return U


def w_cross_jw(ctx, J, DV, tag):
    """w x (J w) with the DV products (J symmetric)."""
    E = ctx.E
    XX, XY, XZ, YY, YZ, ZZ = J[0][0], J[0][1], J[0][2], J[1][1], J[1][2], J[2][2]
    dv = lambda a, b: DV[(a - 1, b - 1)]  # noqa: E731
    par = lambda e, n: E.var(e, n + tag)  # noqa: E731  (parameter combinations, once per body)
    dif = lambda e, n: E.var(e, n + tag)  # noqa: E731
    return [par(ZZ - YY, "ZZmYY") * dv(2, 3) + XZ * dv(1, 2) - XY * dv(1, 3) + YZ * dif(dv(2, 2) - dv(3, 3), "DVyz"),
            par(XX - ZZ, "XXmZZ") * dv(1, 3) + XY * dv(2, 3) - YZ * dv(1, 2) + XZ * dif(dv(3, 3) - dv(1, 1), "DVzx"),
            par(YY - XX, "YYmXX") * dv(1, 2) + YZ * dv(1, 3) - XZ * dv(2, 3) + XY * dif(dv(1, 1) - dv(2, 2), "DVxy")]


def forward(ctx, with_velocity=True, with_acceleration=True, gravity=True):
    """The forward recursion: per body (W, WP, VP, U, DV), dicts keyed by body number."""
    m, E = ctx.model, ctx.E
    zero = [sp.Integer(0)] * 3
    W, WP, VP, U, DV = {0: zero}, {0: zero}, {}, {0: None}, {}
    VP[0] = [-g for g in ctx.gravity] if gravity else zero
    for i in range(1, m.nb + 1):
        p, tag = int(m.parent[i]), index_tag(i)
        _, _, _, qd, qdd = ctx.joint(i)
        ang, lin = ctx.subspace(i)
        qd = qd if with_velocity else [0] * len(qd)
        qdd = qdd if with_acceleration else [0] * len(qdd)
        wJ = [sum(col[r] * v for col, v in zip(ang, qd)) for r in range(3)]
        wdJ = [sum(col[r] * v for col, v in zip(ang, qdd)) for r in range(3)]
        vJ = [sum(col[r] * v for col, v in zip(lin, qd)) for r in range(3)]
        vdJ = [sum(col[r] * v for col, v in zip(lin, qdd)) for r in range(3)]
        WI = to_child(ctx, i, W[p], "WI")
        W[i] = E.vec([WI[r] + wJ[r] for r in range(3)], "W", tag)
        WPI = to_child(ctx, i, WP[p], "WPI")
        WP[i] = E.vec([WPI[r] + wdJ[r] + c for r, c in enumerate(cross(WI, wJ))], "WP", tag)
        DV[i] = omega_products(ctx, W[i], tag)
        U[i] = u_matrix(ctx, DV[i], WP[i], tag)
        P = ctx.pos(i)
        VSP = VP[p] if U[p] is None else E.vec([VP[p][r] + sum(U[p][r][c] * P[c] for c in range(3))
                                                for r in range(3)], "VSP", tag)
        VPI = to_child(ctx, i, VSP, "VPI")
        cor = [2 * a + b for a, b in zip(cross(WI, vJ), cross(wJ, vJ))]
        VP[i] = E.vec([VPI[r] + vdJ[r] + cor[r] for r in range(3)], "VP", tag)
    return W, WP, VP, U, DV


def body_wrenches(ctx, W, WP, VP, U, DV):
    """F_j, N_j: the Newton and Euler terms of each body about its origin, in its axes."""
    m, E = ctx.model, ctx.E
    F, N = {}, {}
    for i in range(1, m.nb + 1):
        tag = index_tag(i)
        J, MS, M = ctx.inertia(i)
        F[i] = E.vec([M * VP[i][r] + sum(U[i][r][c] * MS[c] for c in range(3)) for r in range(3)], "F", tag)
        wjw = w_cross_jw(ctx, J, DV[i], tag)
        msv = cross(MS, VP[i])
        N[i] = E.vec([sum(J[r][c] * WP[i][c] for c in range(3)) + wjw[r] + msv[r] for r in range(3)], "N", tag)
    return F, N


def backward(ctx, F, N):
    """FJ_j, NJ_j: the wrench joint j transmits, summed from the leaves (book eq. 9.89)."""
    m, E = ctx.model, ctx.E
    FJ, NJ = {}, {}
    fsum = {i: list(F[i]) for i in F}
    nsum = {i: list(N[i]) for i in N}
    for i in range(m.nb, 0, -1):
        tag = index_tag(i)
        FJ[i] = E.vec(fsum[i], "FJ", tag)
        NJ[i] = E.vec(nsum[i], "NJ", tag)
        p = int(m.parent[i])
        if p == 0:
            continue
        FDI = to_parent(ctx, i, FJ[i], "FDI")
        NDI = to_parent(ctx, i, NJ[i], "NDI")
        pxf = cross(ctx.pos(i), FDI)
        fsum[p] = [a + b for a, b in zip(fsum[p], FDI)]
        nsum[p] = [a + b + c for a, b, c in zip(nsum[p], NDI, pxf)]
    return FJ, NJ


def joint_torques(ctx, FJ, NJ, qdd=True, friction=True, springs=True):
    """GAM: S_w^T NJ + S_v^T FJ (+ armature, friction, springs), one expression per dof."""
    m = ctx.model
    out = [None] * m.nv
    for i in range(1, m.nb + 1):
        _, _, qs, qd, qdd_i = ctx.joint(i)
        ang, lin = ctx.subspace(i)
        for j in range(len(qd)):
            e = sum(ang[j][r] * NJ[i][r] + lin[j][r] * FJ[i][r] for r in range(3))
            if qdd:
                e = e + ctx.dof_param("IA", i, j) * qdd_i[j]
            if friction:
                e = e + ctx.dof_param("FV", i, j) * qd[j] + ctx.dof_param("FC", i, j) * sp.sign(qd[j])
            dof = int(m.idx_v[i]) + j
            if springs and m.stiffness[dof] != 0:
                from .expr import num
                e = e + num(m.stiffness[dof]) * (ctx.q[qs[j]] - num(m.rest[dof]))
            out[dof] = e
    return out


def newton_euler(ctx, velocity=True, acceleration=True, gravity=True, friction=True, springs=True):
    """tau expressions (nv) of the customised Newton-Euler; flags drop terms (qd = 0, qdd = 0,
    g = 0) exactly, so that g(q), C(q, qd) qd and the columns of M come from the same code."""
    W, WP, VP, U, DV = forward(ctx, velocity, acceleration, gravity)
    F, N = body_wrenches(ctx, W, WP, VP, U, DV)
    FJ, NJ = backward(ctx, F, N)
    return joint_torques(ctx, FJ, NJ, qdd=acceleration, friction=friction and velocity, springs=springs)
