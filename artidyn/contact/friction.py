"""Coulomb friction as a second-order cone complementarity problem, and its two iterative solvers.

Per contact i (normal first): lam_i = (lam_n, lam_t1, lam_t2) lies in the Coulomb cone
``K_mu = {|lam_t| <= mu lam_n}``; the contact velocity is u = G lam + b and the law is

    K_mu  ∋  lam_i  ⊥  u_i + (mu |u_t,i|, 0, 0)  ∈  K_mu* = {mu |v_t| <= v_n}

(De Saxcé & Feng 1998; Acary & Brogliato 2008, ch. 12-13). mu = 0 is Signorini's law with
no tangential force. Both solvers below return (lam, u, residuals, iterations, status):

- :func:`nsgs`: non-smooth block Gauss-Seidel (Jean & Moreau 1992; Acary & Brogliato ch. 13),
  each 3x3 contact problem solved exactly: take-off, stick or slide (the sliding direction is the
  root of a degree-2 trigonometric polynomial), a projected fixed point as the last resort.
- :func:`admm`: the ADMM of Carpentier et al., "From Compliant to Rigid Contact Simulation: a
  Unified and Efficient Approach", RSS 2024, hal-04588906 (Pinocchio's ``ADMMContactSolver``),
  itself the CCP-ADMM of Le Lidec et al., "Contact Models in Robotics: a Comparative Analysis",
  arXiv 2304.06372 (2023) plus the De Saxcé shift s = (mu |u_t|, 0, 0) updated every iteration
  (the fixed point of Acary, Cadoux, Lemaréchal & Malick, ZAMM 91, 2011). G + (mu_prox + tau rho) I
  is positive definite even when G is singular (redundant contacts, e.g. a box on 4 corners).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, ShapeError
from .lcp import as_finite, as_square_system
from .polish import polish

NOT_PSD_MESSAGE = ("G is not positive semi-definite (no Cholesky factor of G + 1e-9 max(1, max G_ii) I); ADMM "
                   "needs a Delassus matrix J M^-1 J^T (try method='pgs')")
POLISH_FIRST = 8             # the iterate is polished after 8 ADMM iterations, then 16, 32, ...

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array


# --- cones ------------------------------------------------------------------------------------

def as_mu(mu, k) -> Array:
    """Friction coefficients as a (k,) array: a scalar or one finite value >= 0 per contact."""
    m = as_finite("mu", mu)
    if m.ndim == 0:
        m = np.full(k, float(m))
    if m.shape != (k,):
        raise ShapeError(f"mu has shape {m.shape}: expected a scalar or ({k},), one per contact")
    if np.any(m < 0):
        i = int(np.argmin(m))
        raise InputError(f"mu[{i}] = {m[i]}: friction coefficients must be >= 0")
    return m


def project_cone(lam: ArrayLike, mu: ArrayLike) -> Array:
    """Euclidean projection onto the Coulomb cone K_mu = {|lam_t| <= mu lam_n}.

    lam : (3,), (k, 3) or (3k,) forces, normal first; mu : scalar or (k,). Exact closed form of
    the second-order cone projection scaled by mu: inside -> lam; in the polar cone
    (mu |t| <= -n) -> 0; else n' = (n + mu |t|) / (1 + mu^2), t' = mu n' t / |t|.
    mu = 0 gives (max(n, 0), 0, 0).
    Returns an array of the shape of lam.
    """
    lam = as_finite("lam", lam)
    if lam.ndim not in (1, 2) or lam.size % 3 or (lam.ndim == 2 and lam.shape[1] != 3):
        raise ShapeError(f"lam has shape {lam.shape}: expected (3,), (k, 3) or (3k,)")
    L = lam.reshape(-1, 3)
    return _project_K(L, as_mu(mu, L.shape[0])).reshape(lam.shape)


def _project_K(L, mu):
    """Row-wise projection of (k, 3) forces onto K_mu (mu of shape (k,))."""
    n, t = L[:, 0], L[:, 1:]
    nt = np.linalg.norm(t, axis=1)
    inside = (nt <= mu * n) & (n >= 0)
    polar = mu * nt <= -n
    n2 = np.maximum((n + mu * nt) / (1 + mu ** 2), 0.0)
    unit = t / np.where(nt > 0, nt, 1.0)[:, None]
    P = np.column_stack([n2, (mu * n2)[:, None] * unit])
    P[polar] = 0.0
    P[inside] = L[inside]
    return P


def _project_dual(V, mu):
    """Row-wise projection onto the dual cone K_mu* = {mu |v_t| <= v_n} (a half-space if mu = 0)."""
    n, t = V[:, 0], V[:, 1:]
    nt = np.linalg.norm(t, axis=1)
    inside = mu * nt <= n
    polar = nt <= -mu * n
    r = (mu * n + nt) / (1 + mu ** 2)                # |t'| on the boundary of K_mu*
    unit = t / np.where(nt > 0, nt, 1.0)[:, None]
    P = np.column_stack([mu * r, r[:, None] * unit])
    P[polar] = 0.0
    P[inside] = V[inside]
    return P


def de_saxce(U, mu):
    """The De Saxcé modified velocity u + (mu |u_t|, 0, 0), row-wise on (k, 3)."""
    Uh = U.copy()
    Uh[:, 0] += mu * np.linalg.norm(U[:, 1:], axis=1)
    return Uh


# --- residuals --------------------------------------------------------------------------------

def contact_residuals(G: ArrayLike, b: ArrayLike, mu: ArrayLike, lam: ArrayLike) -> dict[str, float]:
    """Error measures of a candidate lam (3k,) of the frictional contact problem (G, b, mu).

    With u = G lam + b and u^ = u + (mu |u_t|, 0, 0), per contact, maximised over contacts:
    "signorini" |min(lam_n, u_n)|; "complementarity" |lam . u^| (zero exactly when friction
    dissipates maximally); "cone" dist(lam, K_mu) (primal feasibility); "dual" dist(u^, K_mu*)
    (De Saxcé dual feasibility); "natural map" |lam - P_K(lam - u^)|, zero exactly at solutions.
    Returns a dict of floats.
    """
    G, b = as_square_system(G, b, ("G", "b"))
    if b.size % 3:
        raise ShapeError(f"b has {b.size} entries: expected 3 per contact")
    lam = as_finite("lam", lam, ndim=1)
    if lam.size != b.size:
        raise ShapeError(f"lam has {lam.size} entries, expected {b.size}")
    mu = as_mu(mu, b.size // 3)
    return residuals(lam.reshape(-1, 3), (G @ lam + b).reshape(-1, 3), mu)


def residuals(L, U, mu):
    """The dict of :func:`contact_residuals` from (k, 3) forces L and velocities U."""
    if L.shape[0] == 0:
        return {"signorini": 0.0, "complementarity": 0.0, "cone": 0.0, "dual": 0.0,
                "natural map": 0.0}
    Uh = de_saxce(U, mu)
    return {"signorini": float(np.abs(np.minimum(L[:, 0], U[:, 0])).max()),
            "complementarity": float(np.abs(np.sum(L * Uh, axis=1)).max()),
            "cone": _max_norm(L - _project_K(L, mu)),
            "dual": _max_norm(Uh - _project_dual(Uh, mu)),
            "natural map": _max_norm(L - _project_K(L - Uh, mu))}


def _max_norm(X):
    """Largest Euclidean norm among the rows of X (k, 3)."""
    return float(np.linalg.norm(X, axis=1).max())


def converged(res, tol):
    """The stopping test: signorini, cone, dual and natural map all <= tol."""
    return max(res["signorini"], res["cone"], res["dual"], res["natural map"]) <= tol


# --- non-smooth Gauss-Seidel ------------------------------------------------------------------

def nsgs(G, b, mu, tol, max_iter, lam0=None):
    """Block Gauss-Seidel over contacts; each contact's 3x3 problem A lam_i + c solved exactly.

    c = b_i + sum_{j != i} G_ij lam_j is the velocity the other contacts leave to contact i.
    One iteration is one sweep over all contacts; u = G lam + b is refreshed after each sweep.
    A sweep that changes nothing without converging means a contact's own problem has no
    solution (e.g. G_ii = 0 with b_n < 0): status "no_solution".
    """
    k = mu.size
    lam = np.zeros(3 * k) if lam0 is None else _project_K(lam0.reshape(-1, 3), mu).ravel()
    u = G @ lam + b
    res = residuals(lam.reshape(-1, 3), u.reshape(-1, 3), mu)
    it, moved = 0, True
    while moved and not converged(res, tol) and it < max_iter:
        it, moved = it + 1, False
        for i in range(k):
            s = slice(3 * i, 3 * i + 3)
            A = G[s, s]
            c = u[s] - A @ lam[s]
            delta = _local_solve(A, c, mu[i], lam[s]) - lam[s]
            if np.any(delta):
                lam[s] += delta
                u += G[:, s] @ delta
                moved = True
        u = G @ lam + b
        res = residuals(lam.reshape(-1, 3), u.reshape(-1, 3), mu)
    if converged(res, tol):
        return lam, u, res, it, "converged"
    return lam, u, res, it, "max_iterations" if moved else "no_solution"


def _local_solve(A, c, mu, lam_prev):
    """One contact: K ∋ lam ⊥ A lam + c + (mu |u_t|, 0, 0) ∈ K*, A = G_ii (3x3)."""
    if c[0] >= 0:                                    # take-off: lam = 0, u = c, u_n >= 0
        return np.zeros(3)
    if mu == 0:                                      # Signorini: u_n = 0
        if A[0, 0] <= 1e-14 * max(1.0, np.abs(A).max()):
            return lam_prev                          # no local solution: left to the others
        return np.array([-c[0] / A[0, 0], 0.0, 0.0])
    lam = _stick(A, c)
    if lam is not None and np.linalg.norm(lam[1:]) <= mu * lam[0] * (1 + 1e-12):
        return _project_K(lam[None], np.array([mu]))[0]
    lam = _slide(A, c, mu, lam_prev)
    if lam is not None:
        return lam
    return _local_fixed_point(A, c, mu, lam_prev)


def _stick(A, c):
    """lam with A lam + c = 0 (u = 0), or None when A lam = -c has no solution."""
    lam = np.linalg.lstsq(A, -c, rcond=1e-12)[0]
    if np.linalg.norm(A @ lam + c) <= 1e-10 * max(np.linalg.norm(c), 1e-300):
        return lam
    return None


def _slide(A, c, mu, lam_prev):
    """Sliding: lam = lam_n (1, -mu s), u_n = 0, u_t = alpha s with alpha >= 0, |s| = 1.

    With d = A (1, -mu s), lam_n = -c_n / d_n and ``d_n u_t = v0 + V s`` where
    v0 = -c_n A_tn + A_nn c_t, V = mu (c_n A_tt - c_t A_nt^T). u_t parallel to s is
    h(theta) = s x (v0 + V s) = 0, a trigonometric polynomial of degree 2 whose roots are the
    unit-modulus roots of a quartic in z = exp(i theta). Among the valid roots the one nearest
    lam_prev is kept (continuity of the Gauss-Seidel sweeps).
    """
    v0 = -c[0] * A[1:, 0] + A[0, 0] * c[1:]
    V = mu * (c[0] * A[1:, 1:] - np.outer(c[1:], A[0, 1:]))
    a0, a1, b1 = (V[1, 0] - V[0, 1]) / 2, v0[1], -v0[0]
    a2, b2 = (V[1, 0] + V[0, 1]) / 2, (V[1, 1] - V[0, 0]) / 2
    coef = np.array([(a2 - 1j * b2) / 2, (a1 - 1j * b1) / 2, a0, (a1 + 1j * b1) / 2,
                     (a2 + 1j * b2) / 2])
    scale = np.abs(coef).max()
    if scale <= 1e-300:
        return None
    roots = np.roots(coef / scale)
    best, best_dist = None, np.inf
    for z in roots[np.abs(np.abs(roots) - 1) < 1e-3]:
        th = float(np.angle(z))
        for _ in range(4):                            # Newton polish of the root
            h, dh = _trig2(th, a0, a1, b1, a2, b2)
            if abs(dh) > 1e-300:
                th -= h / dh
        lam = _sliding_force(A, c, mu, th)
        if lam is not None and np.linalg.norm(lam - lam_prev) < best_dist:
            best, best_dist = lam, np.linalg.norm(lam - lam_prev)
    return best


def _trig2(t, a0, a1, b1, a2, b2):
    """h(t) = a0 + a1 cos t + b1 sin t + a2 cos 2t + b2 sin 2t and h'(t)."""
    c1, s1, c2, s2 = np.cos(t), np.sin(t), np.cos(2 * t), np.sin(2 * t)
    return (a0 + a1 * c1 + b1 * s1 + a2 * c2 + b2 * s2,
            -a1 * s1 + b1 * c1 - 2 * a2 * s2 + 2 * b2 * c2)


def _sliding_force(A, c, mu, theta):
    """lam for the slip direction s(theta) if it satisfies the sliding conditions, else None."""
    s = np.array([np.cos(theta), np.sin(theta)])
    g = np.array([1.0, -mu * s[0], -mu * s[1]])
    d = A @ g
    if d[0] <= 0:
        return None
    lam = (-c[0] / d[0]) * g
    u_t = (A @ lam + c)[1:]
    alpha = u_t @ s
    tol = 1e-9 * max(np.linalg.norm(c), np.abs(A).max() * np.linalg.norm(lam))
    if alpha < -tol or np.linalg.norm(u_t - alpha * s) > tol:
        return None
    return lam


def _local_fixed_point(A, c, mu, lam_prev, n_iter=200):
    """lam <- P_K(lam - rho (A lam + c)^) with rho = 1 / lambda_max(A): the last resort."""
    top = np.linalg.eigvalsh(A)[-1]
    if top <= 1e-14 * max(1.0, np.abs(c).max()):
        return lam_prev                              # A = 0: nothing to solve locally
    rho = 1.0 / top
    mu1 = np.array([mu])
    lam = _project_K(lam_prev[None], mu1)[0]
    for _ in range(n_iter):
        uh = de_saxce((A @ lam + c)[None], mu1)[0]
        new = _project_K((lam - rho * uh)[None], mu1)[0]
        if np.linalg.norm(new - lam) <= 1e-15 * (1 + np.linalg.norm(lam)):
            return new
        lam = new
    return lam


# --- ADMM -------------------------------------------------------------------------------------

POWER_ITERATIONS, POWER_TOL = 100, 1e-4


def largest_eigenvalue(G):
    """The largest eigenvalue of the symmetric positive semi-definite G (>= 0) by power iteration
    from the unit vector of ones: Rayleigh quotients until two agree to POWER_TOL (relative)."""
    m = G.shape[0]
    x = np.full(m, 1.0 / np.sqrt(m)) if m else np.zeros(0)
    L = 0.0
    for _ in range(POWER_ITERATIONS):
        y = G @ x
        ny = float(np.sqrt(y @ y))
        if ny == 0.0:
            return 0.0
        L_new = float(x @ y)
        x = y / ny
        if abs(L_new - L) <= POWER_TOL * abs(L_new):
            return max(L_new, 0.0)
        L = L_new
    return max(L, 0.0)


def positive_semidefinite(G):
    """True when G + 1e-9 max(1, max G_ii) I has a Cholesky factor."""
    if not G.size:
        return True
    try:
        np.linalg.cholesky(G + 1e-9 * max(1.0, float(np.max(np.diag(G)))) * np.eye(G.shape[0]))
    except np.linalg.LinAlgError:
        return False
    return True


def _polish(G, b, mu, y, tol):
    """:func:`artidyn.contact.polish.polish` with this module's residuals; None on a singular
    Newton matrix too."""
    try:
        return polish(G, b, mu, y, tol, residuals, converged)
    except np.linalg.LinAlgError:
        return None


def admm(G, b, mu, tol, max_iter, lam0=None, mu_prox=1e-6, tau=0.5, rho_power=0.2,
         rho_power_factor=0.05, ratio_primal_dual=10.0):
    """ADMM on min 1/2 x'Gx + (b + s)'x, x = y ∈ K, with the De Saxcé shift s updated each step.

    Iteration (Pinocchio's ``ADMMContactSolverTpl::solve``; z estimates u^ = G y + b + s):
        s = (mu |z_t|, 0, 0)
        (G + (mu_prox + tau rho) I) x = -(b + s) + tau rho y + mu_prox x + z
        y = P_K(x - z / (tau rho));   z <- z - tau rho (x - y)
    Spectral rho = sqrt(L m) (L / m)^rho_power with L the largest eigenvalue of G + mu_prox (power
    iteration) and m = mu_prox (G is only semi-definite: a redundant contact makes it singular);
    rho_power moves by rho_power_factor when the primal and dual ADMM residuals differ by more
    than ratio_primal_dual. The defaults are Pinocchio's. One iteration is one (x, y, z) update.

    The start, and the iterate after 8, 16, 32, ... iterations, are polished
    (:mod:`artidyn.contact.polish`: the contacts' modes guessed from the forces, their equations
    solved by Newton's method); a polished iterate that satisfies the stopping rule ends the run.
    """
    from scipy.linalg import cho_factor, cho_solve   # here: scipy.linalg costs 0.2 s at import artidyn

    y = np.zeros(b.size) if lam0 is None else _project_K(lam0.reshape(-1, 3), mu).ravel()
    x = y.copy()
    u = G @ y + b
    z = de_saxce(u.reshape(-1, 3), mu).ravel()
    res = residuals(y.reshape(-1, 3), u.reshape(-1, 3), mu)
    if converged(res, tol):          # the start solves it (a warm start at rest): nothing to factor
        return y, u, res, 0, "converged"
    P = _polish(G, b, mu, y, tol)
    if P is not None:                # the modes of the start solve it: no ADMM
        return P[0], P[1], P[2], 0, "converged"
    if not positive_semidefinite(G):
        raise InputError(NOT_PSD_MESSAGE)
    L, m = largest_eigenvalue(G) + mu_prox, mu_prox
    rho = max(np.sqrt(L * m) * (L / m) ** rho_power, 1e-8)
    factor = cho_factor(G + (mu_prox + tau * rho) * np.eye(b.size))
    it, status, next_polish = 0, None, POLISH_FIRST
    while not converged(res, tol) and it < max_iter:
        it += 1
        s = de_saxce(z.reshape(-1, 3), mu).ravel() - z
        x_prev, y_prev = x, y
        x = cho_solve(factor, -(b + s) + tau * rho * y + mu_prox * x + z)
        y = _project_K((x - z / (tau * rho)).reshape(-1, 3), mu).ravel()
        z = z - tau * rho * (x - y)
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(z))):
            y, status = y_prev, "no_solution"         # diverged: keep the last finite iterate
            break
        u = G @ y + b
        res = residuals(y.reshape(-1, 3), u.reshape(-1, 3), mu)
        if it == next_polish and not converged(res, tol):
            next_polish *= 2
            P = _polish(G, b, mu, y, tol)
            if P is not None:
                y = P[0]
                break
        primal = np.abs(x - y).max()
        dual = np.abs(mu_prox * (x - x_prev) + tau * rho * (y - y_prev)).max()
        step = 0.0
        if primal > ratio_primal_dual * dual:
            step = rho_power_factor
        elif dual > ratio_primal_dual * primal:
            step = -rho_power_factor
        if step and L > m:
            rho_power += step
            rho = max(np.sqrt(L * m) * (L / m) ** rho_power, 1e-8)
            factor = cho_factor(G + (mu_prox + tau * rho) * np.eye(b.size))
    u = G @ y + b
    res = residuals(y.reshape(-1, 3), u.reshape(-1, 3), mu)
    if status is None:
        status = "converged" if converged(res, tol) else "max_iterations"
    return y, u, res, it, status
