"""Compiled ADMM for the frictional contact problem on the exact Coulomb cone; mirrors
:func:`artidyn.contact.friction.admm` (Carpentier et al., "From Compliant to Rigid Contact
Simulation: a Unified and Efficient Approach", RSS 2024; the De Saxcé shift of Acary, Cadoux,
Lemaréchal & Malick, ZAMM 91, 2011), with the same parameters, iterates and stopping rule::

    s = (mu |z_t|, 0, 0)
    (G + (mu_prox + tau rho) I) x = -(b + s) + tau rho y + mu_prox x + z
    y = P_K(x - z / (tau rho));   z <- z - tau rho (x - y)

Residuals per contact, the largest over the contacts (as :func:`artidyn.contact.friction.residuals`):
Signorini |min(lam_n, u_n)|, complementarity |lam . u^|, cone dist(lam, K), dual dist(u^, K*),
natural map |lam - P_K(lam - u^)|, with u = G lam + b and u^ its De Saxcé modification.
"""
import math

import numba as nb
import numpy as np

from .contact_polish import ROUNDS, correct, mat_vec, modes, newton
from .contact_polish import scratch as polish_scratch
from .spatial import dot

MU_PROX, TAU, RHO_POWER, RHO_POWER_FACTOR, RATIO = 1e-6, 0.5, 0.2, 0.05, 10.0
POWER_ITERATIONS, POWER_TOL = 100, 1e-4
POLISH_FIRST = 8             # the iterate is polished after 8 ADMM iterations, then 16, 32, ...
CONVERGED, MAX_ITERATIONS, NO_SOLUTION, NOT_PSD = 0, 1, 2, 3
# res (6): signorini, complementarity, cone, dual, natural map, and the largest of the five


@nb.njit
def project_k(n, t1, t2, mu):
    """Projection of (n, t1, t2) onto the cone |t| <= mu n."""
    nt = math.sqrt(t1 * t1 + t2 * t2)
    if nt <= mu * n and n >= 0:
        return n, t1, t2
    if mu * nt <= -n:
        return 0.0, 0.0, 0.0
    n2 = max((n + mu * nt) / (1.0 + mu * mu), 0.0)
    if nt > 0:
        f = mu * n2 / nt
        return n2, f * t1, f * t2
    return n2, 0.0, 0.0


@nb.njit
def project_cones(lam, mu):
    """lam (3k) <- each contact's (n, t1, t2) projected onto its cone (mu (k)): how a warm start
    enters the solvers."""
    for i in range(mu.shape[0]):
        lam[3 * i], lam[3 * i + 1], lam[3 * i + 2] = project_k(lam[3 * i], lam[3 * i + 1], lam[3 * i + 2], mu[i])


@nb.njit
def project_dual(n, t1, t2, mu):
    """Projection onto the dual cone mu |t| <= n."""
    nt = math.sqrt(t1 * t1 + t2 * t2)
    if mu * nt <= n:
        return n, t1, t2
    if nt <= -mu * n:
        return 0.0, 0.0, 0.0
    r = (mu * n + nt) / (1.0 + mu * mu)
    if nt > 0:
        return mu * r, r * t1 / nt, r * t2 / nt
    return mu * r, 0.0, 0.0


@nb.njit
def residuals(L, U, mu, res):
    """res[0:6] <- the residuals of forces L (3k) with velocities U (3k)."""
    for r in range(6):
        res[r] = 0.0
    for i in range(mu.shape[0]):
        ln, l1, l2 = L[3 * i], L[3 * i + 1], L[3 * i + 2]
        un, u1, u2 = U[3 * i], U[3 * i + 1], U[3 * i + 2]
        m = mu[i]
        hn = un + m * math.sqrt(u1 * u1 + u2 * u2)
        res[0] = max(res[0], abs(min(ln, un)))
        res[1] = max(res[1], abs(ln * hn + l1 * u1 + l2 * u2))
        p0, p1, p2 = project_k(ln, l1, l2, m)
        res[2] = max(res[2], math.sqrt((ln - p0) ** 2 + (l1 - p1) ** 2 + (l2 - p2) ** 2))
        p0, p1, p2 = project_dual(hn, u1, u2, m)
        res[3] = max(res[3], math.sqrt((hn - p0) ** 2 + (u1 - p1) ** 2 + (u2 - p2) ** 2))
        p0, p1, p2 = project_k(ln - hn, l1 - u1, l2 - u2, m)
        res[4] = max(res[4], math.sqrt((ln - p0) ** 2 + (l1 - p1) ** 2 + (l2 - p2) ** 2))
    res[5] = max(res[0], max(res[1], max(res[2], max(res[3], res[4]))))


@nb.njit
def converged(res, tol):
    return max(res[0], max(res[2], max(res[3], res[4]))) <= tol


@nb.njit
def shifted_cholesky(G, shift, F):
    """F <- the lower Cholesky factor of G + shift I (positive definite for shift > 0 and G positive
    semi-definite). False when a pivot was not positive (then taken as 1e-300)."""
    m = G.shape[0]
    ok = True
    for j in range(m):
        Fj = F[j]
        d = G[j, j] + shift - dot(Fj, Fj, j)
        if not d > 0.0:
            ok = False
        d = math.sqrt(max(d, 1e-300))
        F[j, j] = d
        for r in range(j + 1, m):
            F[r, j] = (G[r, j] - dot(F[r], Fj, j)) / d
        for r in range(j):
            F[r, j] = 0.0
    return ok


@nb.njit
def cholesky_solve(F, x):
    m = x.shape[0]
    for r in range(m):
        x[r] = (x[r] - dot(F[r], x, r)) / F[r, r]
    for r in range(m - 1, -1, -1):
        s = x[r]
        for k in range(r + 1, m):
            s -= F[k, r] * x[k]
        x[r] = s / F[r, r]


@nb.njit
def largest_eigenvalue(G, x, y):
    """Power iteration from the unit vector of ones (as :func:`artidyn.contact.friction.largest_eigenvalue`);
    x, y scratch."""
    m = G.shape[0]
    for r in range(m):
        x[r] = 1.0 / math.sqrt(m)
    L = 0.0
    for _ in range(POWER_ITERATIONS):
        ny = xy = 0.0
        for r in range(m):
            s = dot(G[r], x, m)
            y[r] = s
            ny += s * s
            xy += x[r] * s
        ny = math.sqrt(ny)
        if ny == 0.0:
            return 0.0
        for r in range(m):
            x[r] = y[r] / ny
        if abs(xy - L) <= POWER_TOL * abs(xy):
            return max(xy, 0.0)
        L = xy
    return max(L, 0.0)


@nb.njit
def positive_semidefinite(G, F):
    """True when G + 1e-9 max(1, max G_ii) I has a Cholesky factor (F: scratch)."""
    top = 1.0
    for r in range(G.shape[0]):
        top = max(top, G[r, r])
    return shifted_cholesky(G, 1e-9 * top, F)


@nb.njit
def polish(G, b, mu, y, tol, P, res):
    """y, res <- the polished forces and their residuals when polishing y solves the problem
    (:mod:`.contact_polish`; as :func:`artidyn.contact.polish.polish`); True then."""
    mode, theta, yt, ut = P[0], P[1], P[10], P[11]
    m = b.shape[0]
    r6 = np.zeros(6)
    for r in range(m):
        yt[r] = y[r]
    modes(yt, mu, mode, theta)
    for _ in range(ROUNDS):
        if not newton(G, b, mu, yt, mode, theta, tol, P):
            return False
        mat_vec(G, yt, b, ut)
        for r in range(m):
            if not (yt[r] - yt[r] == 0.0 and ut[r] - ut[r] == 0.0):
                return False
        residuals(yt, ut, mu, r6)
        if converged(r6, tol):
            for r in range(m):
                y[r] = yt[r]
            for r in range(6):
                res[r] = r6[r]
            return True
        if not correct(yt, ut, mu, mode, theta, tol):
            return False
    return False


@nb.njit(_nrt=True)        # (explicit: the step, its caller, counts no references; this allocates)
def admm(G, b, mu, tol, max_iter, y, W, res, info):
    """Forces y (3k; in: the warm start, projected onto the cone) for (G, b, mu). W (7, 3k) and
    a (3k, 3k) factor buffer in G's shape are scratch: W rows x, z, s / rhs, u, x_prev, y_prev.
    res (6) the final residuals; info[0] <- iterations. Returns a status code."""
    m = b.shape[0]
    k = m // 3
    x, z, rhs, u, xp, yp = W[0, :m], W[1, :m], W[2, :m], W[3, :m], W[4, :m], W[5, :m]
    project_cones(y, mu)
    mat_vec(G, y, b, u)
    residuals(y, u, mu, res)
    info[0] = 0
    if converged(res, tol):          # the start solves it (a warm start at rest): nothing to factor
        return CONVERGED
    P = polish_scratch(m)
    if polish(G, b, mu, y, tol, P, res):    # the modes of the start solve it: no ADMM
        return CONVERGED
    F = np.zeros((m, m))
    if not positive_semidefinite(G, F):
        return NOT_PSD
    L, mn = largest_eigenvalue(G, x, z) + MU_PROX, MU_PROX
    rho_power = RHO_POWER
    rho = max(math.sqrt(L * mn) * (L / mn) ** rho_power, 1e-8)
    for r in range(m):
        x[r] = y[r]
    for i in range(k):
        z[3 * i] = u[3 * i] + mu[i] * math.sqrt(u[3 * i + 1] ** 2 + u[3 * i + 2] ** 2)
        z[3 * i + 1], z[3 * i + 2] = u[3 * i + 1], u[3 * i + 2]
    shifted_cholesky(G, MU_PROX + TAU * rho, F)
    it, status, next_polish = 0, -1, POLISH_FIRST
    while not converged(res, tol) and it < max_iter:
        it += 1
        tr = TAU * rho
        for r in range(m):
            xp[r], yp[r] = x[r], y[r]
        for i in range(k):           # rhs = -(b + s) + tau rho y + mu_prox x + z, s = (mu |z_t|, 0, 0)
            s = mu[i] * math.sqrt(z[3 * i + 1] ** 2 + z[3 * i + 2] ** 2)
            for c in range(3):
                r = 3 * i + c
                rhs[r] = -b[r] + tr * y[r] + MU_PROX * x[r] + z[r]
            rhs[3 * i] -= s
        cholesky_solve(F, rhs)
        for r in range(m):
            x[r] = rhs[r]
        for i in range(k):
            y[3 * i], y[3 * i + 1], y[3 * i + 2] = project_k(x[3 * i] - z[3 * i] / tr, x[3 * i + 1] - z[3 * i + 1] / tr,
                                                             x[3 * i + 2] - z[3 * i + 2] / tr, mu[i])
        finite = True
        for r in range(m):
            z[r] -= tr * (x[r] - y[r])
            if not (x[r] - x[r] == 0.0 and z[r] - z[r] == 0.0):
                finite = False
        if not finite:
            for r in range(m):
                y[r] = yp[r]
            status = NO_SOLUTION
            break
        mat_vec(G, y, b, u)
        residuals(y, u, mu, res)
        if it == next_polish and not converged(res, tol):
            next_polish *= 2
            if polish(G, b, mu, y, tol, P, res):
                break
        primal = dual = 0.0
        for r in range(m):
            primal = max(primal, abs(x[r] - y[r]))
            dual = max(dual, abs(MU_PROX * (x[r] - xp[r]) + tr * (y[r] - yp[r])))
        step = 0.0
        if primal > RATIO * dual:
            step = RHO_POWER_FACTOR
        elif dual > RATIO * primal:
            step = -RHO_POWER_FACTOR
        if step != 0.0 and L > mn:
            rho_power += step
            rho = max(math.sqrt(L * mn) * (L / mn) ** rho_power, 1e-8)
            shifted_cholesky(G, MU_PROX + TAU * rho, F)
    mat_vec(G, y, b, u)
    residuals(y, u, mu, res)
    info[0] = it
    if status < 0:
        status = CONVERGED if converged(res, tol) else MAX_ITERATIONS
    return status


@nb.njit(cache=True)
def solve(G, b, mu, tol, max_iter, y):
    """The compiled ADMM on one problem (the "admm" route of
    :func:`artidyn.contact.solvers.solve_contacts`): y (in: the warm start) <- the forces.
    Returns (status, iterations, residuals (6))."""
    W = np.zeros((7, max(b.shape[0], 1)))
    res = np.zeros(6)
    info = np.zeros(1, np.int64)
    status = admm(G, b, mu, tol, max_iter, y, W, res, info)
    return status, info[0], res
