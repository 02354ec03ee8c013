"""Compiled non-smooth Gauss-Seidel on a sparse Delassus matrix: the ``solver="pgs"`` route of the
contact step, for scenes with many contacts. Mirrors :func:`artidyn.contact.friction.nsgs` (Jean &
Moreau 1992; Acary & Brogliato, "Numerical Methods for Nonsmooth Dynamical Systems", 2008, ch. 13)
sweep for sweep: each contact's 3x3 problem ``K ∋ lam ⊥ A lam + c + (mu |u_t|, 0, 0) ∈ K*`` solved
exactly (take-off, stick, or slide along the root of a degree-2 trigonometric polynomial, a
projected fixed point as the last resort), u = G lam + b refreshed after each sweep.

The Delassus matrix is never formed whole. With ``Y = D^-1/2 U^-1 J^T`` (the rows of
:func:`.constrained.y_rows`), a contact's rows are nonzero only on the dofs of its bodies and their
ancestors (its *support*); the block ``G_cd = Y_c Y_d^T`` of two contacts is nonzero only when
their supports meet. Free bodies in a pile meet only through the contacts they share, so G has a
few blocks per contact and a sweep costs with the contacts, where the dense matrix costs with their
square (and its factorisation, the ADMM's, with their cube).
"""
import math

import numba as nb
import numpy as np

from .contact_admm import CONVERGED, MAX_ITERATIONS, NO_SOLUTION, converged, project_cones, project_k, residuals


# --- the sparse Delassus matrix -----------------------------------------------------------------

@nb.njit
def blocks(Y, span, k, nv):
    """The 3x3 blocks of G = Y Y^T between groups of 3 rows (contact c: rows 3c .. 3c + 2) whose
    supports meet: (BO (k + 1), BC (nnz), BV (nnz, 3, 3)), block row c in BO[c] .. BO[c + 1], its
    diagonal block first."""
    SN = np.zeros(k, np.int64)
    SUP = np.empty((k, nv), np.int64)
    DC = np.zeros(nv + 1, np.int64)
    for c in range(k):              # each group's support: the dofs where one of its rows is nonzero
        lo = min(span[3 * c, 0], min(span[3 * c + 1, 0], span[3 * c + 2, 0]))
        hi = max(span[3 * c, 1], max(span[3 * c + 1, 1], span[3 * c + 2, 1]))
        n = 0
        for t in range(lo, hi):
            if Y[3 * c, t] != 0.0 or Y[3 * c + 1, t] != 0.0 or Y[3 * c + 2, t] != 0.0:
                SUP[c, n] = t
                n += 1
                DC[t + 1] += 1
        SN[c] = n
    for t in range(nv):             # the groups on each dof (CSR)
        DC[t + 1] += DC[t]
    DG = np.empty(DC[nv], np.int64)
    fill = DC[:nv].copy()
    bound = 0
    for c in range(k):
        for s in range(SN[c]):
            t = SUP[c, s]
            DG[fill[t]] = c
            fill[t] += 1
    for c in range(k):
        for s in range(SN[c]):
            t = SUP[c, s]
            bound += DC[t + 1] - DC[t]
    BO = np.zeros(k + 1, np.int64)
    BC = np.empty(max(bound, k), np.int64)
    mark = np.full(k, -1, np.int64)
    nb_ = 0
    for c in range(k):              # the groups meeting c: diagonal first, then in dof order
        BC[nb_] = c
        mark[c] = c
        nb_ += 1
        for s in range(SN[c]):
            t = SUP[c, s]
            for e in range(DC[t], DC[t + 1]):
                d = DG[e]
                if mark[d] != c:
                    mark[d] = c
                    BC[nb_] = d
                    nb_ += 1
        BO[c + 1] = nb_
    BV = np.zeros((nb_, 3, 3))
    for c in range(k):
        for e in range(BO[c], BO[c + 1]):
            d = BC[e]
            for i in range(3):
                for j in range(3):
                    x = 0.0
                    for s in range(SN[c]):
                        t = SUP[c, s]
                        x += Y[3 * c + i, t] * Y[3 * d + j, t]
                    BV[e, i, j] = x
    return BO, BC[:nb_], BV


@nb.njit
def sparse_mat_vec(BO, BC, BV, x, b, out):
    """out <- G x + b on the blocks."""
    k = BO.shape[0] - 1
    for c in range(k):
        u0, u1, u2 = b[3 * c], b[3 * c + 1], b[3 * c + 2]
        for e in range(BO[c], BO[c + 1]):
            d = 3 * BC[e]
            x0, x1, x2 = x[d], x[d + 1], x[d + 2]
            u0 += BV[e, 0, 0] * x0 + BV[e, 0, 1] * x1 + BV[e, 0, 2] * x2
            u1 += BV[e, 1, 0] * x0 + BV[e, 1, 1] * x1 + BV[e, 1, 2] * x2
            u2 += BV[e, 2, 0] * x0 + BV[e, 2, 1] * x1 + BV[e, 2, 2] * x2
        out[3 * c], out[3 * c + 1], out[3 * c + 2] = u0, u1, u2


# --- one contact's problem (as artidyn.contact.friction._local_solve) -----------------------------

@nb.njit
def _stick(A, c, out):
    """out <- lam with A lam + c = 0 (u = 0); False when there is none (to 1e-10 |c|). The least
    squares solution of numpy's lstsq (rcond 1e-12), as the readable route; by Cramer's rule
    when A is well conditioned (then the same solution, without a LAPACK call)."""
    m00, m01, m02 = A[1, 1] * A[2, 2] - A[1, 2] * A[2, 1], A[1, 2] * A[2, 0] - A[1, 0] * A[2, 2], \
        A[1, 0] * A[2, 1] - A[1, 1] * A[2, 0]
    det = A[0, 0] * m00 + A[0, 1] * m01 + A[0, 2] * m02
    top = 0.0
    for i in range(3):
        for j in range(3):
            top = max(top, abs(A[i, j]))
    total = abs(c[0]) + abs(c[1]) + abs(c[2])
    for i in range(3):
        for j in range(3):
            total += abs(A[i, j])
    if not total < math.inf:
        return False                # a non-finite problem (NaN too): nothing for LAPACK
    if abs(det) > 1e-8 * top * top * top:
        lam = np.empty(3)
        for i in range(3):          # lam = A^-1 (-c): the adjugate's rows over det
            x = 0.0
            for j in range(3):
                cof = A[(j + 1) % 3, (i + 1) % 3] * A[(j + 2) % 3, (i + 2) % 3] - \
                    A[(j + 1) % 3, (i + 2) % 3] * A[(j + 2) % 3, (i + 1) % 3]
                x -= cof * c[j]
            lam[i] = x / det
    else:
        lam = np.linalg.lstsq(A, -c, rcond=1e-12)[0]
    r = 0.0
    for i in range(3):
        x = c[i] + A[i, 0] * lam[0] + A[i, 1] * lam[1] + A[i, 2] * lam[2]
        r += x * x
    if math.sqrt(r) <= 1e-10 * max(math.sqrt(c[0] ** 2 + c[1] ** 2 + c[2] ** 2), 1e-300):
        out[0], out[1], out[2] = lam[0], lam[1], lam[2]
        return True
    return False


@nb.njit
def _sliding_force(A, c, mu, th, out):
    """out <- lam for the slip direction (cos th, sin th) when it meets the sliding conditions."""
    s0, s1 = math.cos(th), math.sin(th)
    g0, g1, g2 = 1.0, -mu * s0, -mu * s1
    d0 = A[0, 0] * g0 + A[0, 1] * g1 + A[0, 2] * g2
    if d0 <= 0:
        return False
    f = -c[0] / d0
    l0, l1, l2 = f * g0, f * g1, f * g2
    u1 = A[1, 0] * l0 + A[1, 1] * l1 + A[1, 2] * l2 + c[1]
    u2 = A[2, 0] * l0 + A[2, 1] * l1 + A[2, 2] * l2 + c[2]
    alpha = u1 * s0 + u2 * s1
    top = 0.0
    for i in range(3):
        for j in range(3):
            top = max(top, abs(A[i, j]))
    tol = 1e-9 * max(math.sqrt(c[0] ** 2 + c[1] ** 2 + c[2] ** 2), top * math.sqrt(l0 * l0 + l1 * l1 + l2 * l2))
    if alpha < -tol or math.sqrt((u1 - alpha * s0) ** 2 + (u2 - alpha * s1) ** 2) > tol:
        return False
    out[0], out[1], out[2] = l0, l1, l2
    return True


@nb.njit
def _slide(A, c, mu, prev, out):
    """out <- the sliding solution nearest prev (readable :func:`artidyn.contact.friction._slide`)."""
    v00 = -c[0] * A[1, 0] + A[0, 0] * c[1]
    v01 = -c[0] * A[2, 0] + A[0, 0] * c[2]
    V00 = mu * (c[0] * A[1, 1] - c[1] * A[0, 1])
    V01 = mu * (c[0] * A[1, 2] - c[1] * A[0, 2])
    V10 = mu * (c[0] * A[2, 1] - c[2] * A[0, 1])
    V11 = mu * (c[0] * A[2, 2] - c[2] * A[0, 2])
    a0, a1, b1 = (V10 - V01) / 2, v01, -v00
    a2, b2 = (V10 + V01) / 2, (V11 - V00) / 2
    if not abs(a0) + abs(a1) + abs(b1) + abs(a2) + abs(b2) < math.inf:
        return False
    coef = np.array([(a2 - 1j * b2) / 2, (a1 - 1j * b1) / 2, a0 + 0j, (a1 + 1j * b1) / 2, (a2 + 1j * b2) / 2])
    scale = 0.0
    for z in coef:
        scale = max(scale, abs(z))
    if not (1e-300 < scale < math.inf):
        return False
    i0, i1 = 0, 4                                 # zero leading and trailing terms off (as numpy's roots;
    while coef[i0] == 0:                          # a root at 0 is not on the unit circle)
        i0 += 1
    while coef[i1] == 0:
        i1 -= 1
    if i1 == i0:
        return False
    roots = np.roots(coef[i0:i1 + 1] / scale)
    found, best = False, math.inf
    lam = np.empty(3)
    for z in roots:
        if not abs(abs(z) - 1.0) < 1e-3:
            continue
        th = math.atan2(z.imag, z.real)
        for _ in range(4):                            # Newton polish of the root
            c1, s1, c2, s2 = math.cos(th), math.sin(th), math.cos(2 * th), math.sin(2 * th)
            h = a0 + a1 * c1 + b1 * s1 + a2 * c2 + b2 * s2
            dh = -a1 * s1 + b1 * c1 - 2 * a2 * s2 + 2 * b2 * c2
            if abs(dh) > 1e-300:
                th -= h / dh
        if _sliding_force(A, c, mu, th, lam):
            dist = math.sqrt((lam[0] - prev[0]) ** 2 + (lam[1] - prev[1]) ** 2 + (lam[2] - prev[2]) ** 2)
            if dist < best:
                best, found = dist, True
                out[0], out[1], out[2] = lam[0], lam[1], lam[2]
    return found


@nb.njit
def _fixed_point(A, c, mu, prev, out):
    """out <- P_K(lam - rho (A lam + c)^), rho = 1 / lambda_max(A), 200 times at most."""
    big = max(abs(c[0]), max(abs(c[1]), abs(c[2])))
    total = abs(c[0]) + abs(c[1]) + abs(c[2])
    for i in range(3):
        for j in range(3):
            total += abs(A[i, j])
    top = np.linalg.eigvalsh(A)[-1] if total < math.inf else 0.0
    if not top > 1e-14 * max(1.0, big):
        out[0], out[1], out[2] = prev[0], prev[1], prev[2]
        return
    rho = 1.0 / top
    l0, l1, l2 = project_k(prev[0], prev[1], prev[2], mu)
    for _ in range(200):
        u0 = A[0, 0] * l0 + A[0, 1] * l1 + A[0, 2] * l2 + c[0]
        u1 = A[1, 0] * l0 + A[1, 1] * l1 + A[1, 2] * l2 + c[1]
        u2 = A[2, 0] * l0 + A[2, 1] * l1 + A[2, 2] * l2 + c[2]
        u0 += mu * math.sqrt(u1 * u1 + u2 * u2)
        n0, n1, n2 = project_k(l0 - rho * u0, l1 - rho * u1, l2 - rho * u2, mu)
        step = math.sqrt((n0 - l0) ** 2 + (n1 - l1) ** 2 + (n2 - l2) ** 2)
        l0, l1, l2 = n0, n1, n2
        if step <= 1e-15 * (1 + math.sqrt(l0 * l0 + l1 * l1 + l2 * l2)):
            break
    out[0], out[1], out[2] = l0, l1, l2


@nb.njit
def local_solve(A, c, mu, prev, out):
    """out <- the solution of one contact's problem (readable :func:`artidyn.contact.friction._local_solve`)."""
    if c[0] >= 0:                                   # take-off
        out[0] = out[1] = out[2] = 0.0
        return
    if mu == 0:                                     # Signorini: u_n = 0
        top = 1.0
        for i in range(3):
            for j in range(3):
                top = max(top, abs(A[i, j]))
        if A[0, 0] <= 1e-14 * top:
            out[0], out[1], out[2] = prev[0], prev[1], prev[2]
        else:
            out[0], out[1], out[2] = -c[0] / A[0, 0], 0.0, 0.0
        return
    if _stick(A, c, out) and math.sqrt(out[1] ** 2 + out[2] ** 2) <= mu * out[0] * (1 + 1e-12):
        out[0], out[1], out[2] = project_k(out[0], out[1], out[2], mu)
        return
    if _slide(A, c, mu, prev, out):
        return
    _fixed_point(A, c, mu, prev, out)


# --- the sweeps ---------------------------------------------------------------------------------

@nb.njit
def nsgs(BO, BC, BV, b, mu, tol, max_iter, lam, u, res, info):
    """lam (3k; in: the warm start) <- the forces, u <- G lam + b, res (6) the residuals, info[0]
    the sweeps; a status code (as :func:`.contact_admm.admm`)."""
    k = mu.shape[0]
    project_cones(lam, mu)
    sparse_mat_vec(BO, BC, BV, lam, b, u)
    residuals(lam, u, mu, res)
    A, cv, prev, new = np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3)
    it, moved = 0, True
    while moved and not converged(res, tol) and it < max_iter:
        it += 1
        moved = False
        for i in range(k):
            e0 = BO[i]                               # the diagonal block
            for r in range(3):
                prev[r] = lam[3 * i + r]
                for s in range(3):
                    A[r, s] = BV[e0, r, s]
            for r in range(3):
                cv[r] = u[3 * i + r] - (A[r, 0] * prev[0] + A[r, 1] * prev[1] + A[r, 2] * prev[2])
            local_solve(A, cv, mu[i], prev, new)
            d0, d1, d2 = new[0] - prev[0], new[1] - prev[1], new[2] - prev[2]
            if d0 != 0.0 or d1 != 0.0 or d2 != 0.0:
                lam[3 * i], lam[3 * i + 1], lam[3 * i + 2] = prev[0] + d0, prev[1] + d1, prev[2] + d2
                for e in range(BO[i], BO[i + 1]):   # u_j += G_ji delta = G_ij^T delta
                    j = 3 * BC[e]
                    for s in range(3):
                        u[j + s] += BV[e, 0, s] * d0 + BV[e, 1, s] * d1 + BV[e, 2, s] * d2
                moved = True
        sparse_mat_vec(BO, BC, BV, lam, b, u)
        residuals(lam, u, mu, res)
    info[0] = it
    if converged(res, tol):
        return CONVERGED
    return MAX_ITERATIONS if moved else NO_SOLUTION


@nb.njit(_nrt=True)        # (explicit: its callers without reference counting call it)
def solve_blocks(Y, span, k, b, mu, tol, max_iter, lam, u, res, info):
    """:func:`blocks` of the rows Y (3k, nv) then :func:`nsgs` on them: the status (the blocks
    are made and freed here, not returned)."""
    BO, BC, BV = blocks(Y, span, k, Y.shape[1])
    return nsgs(BO, BC, BV, b, mu, tol, max_iter, lam, u, res, info)


@nb.njit(cache=True)
def solve_rows(Y, span, b, mu, tol, max_iter, lam):
    """:func:`blocks` of the rows Y (3k, nv) and :func:`nsgs` on them, lam (in: the warm start)
    <- the forces: (status, sweeps, u, residuals, BO, BC, BV) (the entry point of the tests)."""
    k = mu.shape[0]
    BO, BC, BV = blocks(Y, span, k, Y.shape[1])
    u, res, info = np.zeros(3 * k), np.zeros(6), np.zeros(1, np.int64)
    status = nsgs(BO, BC, BV, b, mu, tol, max_iter, lam, u, res, info)
    return status, info[0], u, res, BO, BC, BV
