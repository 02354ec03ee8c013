"""The contact solvers: one entry point, :func:`solve_contacts`, and the names it rests on.

Given the Delassus matrix G = J M^-1 J^T (3k, 3k; rows per contact: normal, tangent 1,
tangent 2), the free velocity (or acceleration) b (3k,) and friction coefficients mu, find the
contact forces (or impulses) lam (3k,) and u = G lam + b satisfying Coulomb's law in De Saxcé's
form (see :mod:`artidyn.contact.friction`), or with cone="pyramid" its linearisation

    lam_t = D beta, D = [e1, -e1, e2, -e2], beta >= 0, sum(beta) <= mu lam_n,

the 4-edge pyramid inscribed in the cone (|lam_t1| + |lam_t2| <= mu lam_n), posed as the LCP of
Stewart & Trinkle (IJNME 39, 1996) and Anitescu & Potra (Nonlinear Dynamics 14, 1997) in
x = (lam_n, beta, gamma), gamma being the sliding-speed multiplier::

    u_n                  = G_nn lam_n + G_nD beta + b_n  >= 0  ⊥  lam_n >= 0
    D^T u_t + gamma                                      >= 0  ⊥  beta  >= 0
    mu lam_n - sum(beta)                                 >= 0  ⊥  gamma >= 0

Its matrix is copositive and Lemke's method processes it (Anitescu & Potra 1997). Also
re-exported here: :func:`lemke`, :func:`pgs_lcp`, :func:`lcp_residual` (:mod:`.lcp`),
:func:`project_cone`, :func:`contact_residuals` (:mod:`.friction`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..errors import InputError, ShapeError
from ..kernels.dispatch import kernels_enabled
from .friction import (NOT_PSD_MESSAGE, admm, as_mu, contact_residuals, nsgs, positive_semidefinite, project_cone,
                       residuals)
from .lcp import (LCPSolution, as_square_system, check_count, check_start, check_tolerance,
                  lcp_converged, lcp_residual, lemke, pgs_lcp, residuals_of)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array

__all__ = ["ContactSolution", "LCPSolution", "contact_residuals", "lcp_residual", "lemke",
           "pgs_lcp", "project_cone", "solve_contacts"]

METHODS = ("pgs", "admm", "lemke")
CONES = ("soc", "pyramid")
DEFAULT_MAX_ITER = {"pgs": 2000, "admm": 5000}


class ContactSolution(NamedTuple):
    """Result of :func:`solve_contacts`.

    lam : (3k,) forces, per contact (normal, tangent 1, tangent 2); u : (3k,) = G lam + b;
    residuals : dict ("signorini", "complementarity", "cone", "dual", "natural map"), see
    :func:`contact_residuals` (for cone="pyramid" those of the pyramid LCP, see
    :func:`lcp_residual`, plus "signorini"); iterations : sweeps ("pgs"), ADMM steps, or Lemke
    pivots; status : "converged", "max_iterations" or "no_solution".
    """
    lam: np.ndarray
    u: np.ndarray
    residuals: dict
    iterations: int
    status: str


def solve_contacts(G: ArrayLike, b: ArrayLike, mu: ArrayLike, method: str | None = None, cone: str = "soc",
                   tol: float = 1e-10, max_iter: int | None = None,
                   warm_start: ArrayLike | None = None) -> ContactSolution:
    """Contact forces for Delassus matrix G, free term b and friction coefficients mu.

    Parameters
    ----------
    G : (3k, 3k) symmetric positive semi-definite Delassus matrix (singular allowed: prefer
        "admm" for redundant contacts).
    b : (3k,) free contact velocity (or acceleration).
    mu : scalar or (k,) friction coefficients >= 0; mu = 0 is a frictionless contact.
    method : "pgs" (block non-smooth Gauss-Seidel; on the pyramid, each contact's LCP by
        Lemke), "admm" (cone="soc" only), or "lemke" (exact pivoting on the whole problem:
        frictionless contacts or cone="pyramid", small k). Default: "pgs" for cone="soc",
        "lemke" for cone="pyramid".
    cone : "soc" (the exact Coulomb cone) or "pyramid" (4 facets, an LCP).
    tol : convergence when the residuals "signorini", "cone", "dual" and "natural map" are all
        <= tol (absolute, in the units of lam and u); not used by "lemke".
    max_iter : default 2000 sweeps (pgs), 5000 steps (admm), 50 + 20 n pivots (lemke).
    warm_start : (3k,) initial lam (projected onto the cone); ignored by "lemke".

    Returns
    -------
    ContactSolution(lam, u, residuals, iterations, status). A problem without solution is
    reported (status "no_solution" or "max_iterations"), never raised; inputs with NaN / inf or
    wrong shapes raise :class:`~artidyn.InputError` / :class:`~artidyn.ShapeError`.

    Examples
    --------
    A block on a plane pushed sideways faster than friction can hold slides with
    |lam_t| = mu lam_n:

    >>> sol = solve_contacts(np.eye(3), [-1.0, 2.0, 0.0], 0.5)
    >>> sol.lam.round(12) + 0.0, sol.status
    (array([ 1. , -0.5,  0. ]), 'converged')
    """
    G, b, mu, method = _check(G, b, mu, method, cone)
    tol, _ = check_tolerance(tol, 1)
    if max_iter is not None or method != "lemke":
        max_iter = check_count(DEFAULT_MAX_ITER[method] if max_iter is None else max_iter)
    lam0 = check_start("warm_start", warm_start, b.size)
    if b.size == 0:
        empty = np.zeros((0, 3))
        return ContactSolution(np.zeros(0), np.zeros(0), residuals(empty, empty, mu), 0, "converged")
    if cone == "pyramid":
        solve = _pyramid_lemke if method == "lemke" else _pyramid_pgs
        return solve(G, b, mu, tol, max_iter, lam0)
    if method == "lemke":
        return _frictionless_lemke(G, b, mu, max_iter)
    if method == "admm" and not positive_semidefinite(G):      # refused whether the polish would solve it or not
        raise InputError(NOT_PSD_MESSAGE)
    if method == "admm" and kernels_enabled():
        return _compiled_admm(G, b, mu, tol, max_iter, lam0)
    solver = nsgs if method == "pgs" else admm
    return ContactSolution(*solver(G, b, mu, tol, max_iter, lam0))


_STATUS = ("converged", "max_iterations", "no_solution")


def _compiled_admm(G, b, mu, tol, max_iter, lam0):
    """The compiled twin of :func:`artidyn.contact.friction.admm` (the readable one runs inside
    ``artidyn.kernels.reference_only()``)."""
    from ..kernels.contact_admm import NOT_PSD, solve

    y = np.zeros(b.size) if lam0 is None else np.array(lam0, dtype=float)
    c = np.ascontiguousarray
    status, iterations, res = solve(c(G, dtype=float), c(b, dtype=float), c(mu, dtype=float), float(tol),
                                    int(max_iter), y)
    if status == NOT_PSD:
        raise InputError(NOT_PSD_MESSAGE)
    names = ("signorini", "complementarity", "cone", "dual", "natural map")     # the kernel's res[0:5]
    return ContactSolution(y, G @ y + b, {k: float(r) for k, r in zip(names, res)}, int(iterations), _STATUS[status])


def _check(G, b, mu, method, cone) -> tuple[Array, Array, Array, str]:
    G, b = as_square_system(G, b, ("G", "b"))
    if b.size % 3:
        raise ShapeError(f"b has {b.size} entries: expected 3 per contact (normal, t1, t2)")
    asym = np.abs(G - G.T).max(initial=0.0)
    if asym > 1e-9 * max(1.0, np.abs(G).max(initial=0.0)):
        raise InputError(f"G is not symmetric (max |G - G^T| = {asym:.3g}); expected the "
                         "Delassus matrix J M^-1 J^T")
    mu = as_mu(mu, b.size // 3)
    if cone not in CONES:
        raise InputError(f"cone = {cone!r}: expected one of {CONES}")
    if method is None:
        method = "lemke" if cone == "pyramid" else "pgs"
    if method not in METHODS:
        raise InputError(f"method = {method!r}: expected one of {METHODS}")
    if cone == "pyramid" and method == "admm":
        raise InputError("cone='pyramid' is an LCP: use method='lemke' (whole problem) or "
                         "'pgs' (contact by contact), not 'admm'")
    if method == "lemke" and cone == "soc" and np.any(mu > 0):
        raise InputError("method='lemke' solves linear complementarity problems: frictionless "
                         "contacts (mu = 0) or cone='pyramid'; use 'pgs' or 'admm' for the cone")
    return G, b, mu, method


def _frictionless_lemke(G, b, mu, max_iter):
    """mu = 0 everywhere: LCP(G_nn, b_n) in the normal forces, lam_t = 0."""
    n = np.arange(0, b.size, 3)
    sol = lemke(G[np.ix_(n, n)], b[n], max_iter=max_iter)
    lam = np.zeros(b.size)
    lam[n] = sol.z
    u = G @ lam + b
    return ContactSolution(lam, u, residuals(lam.reshape(-1, 3), u.reshape(-1, 3), mu),
                           sol.iterations, sol.status)


# --- the friction pyramid ---------------------------------------------------------------------

def _pyramid_lcp(G, b, mu):
    """The Stewart-Trinkle LCP (M, q) in x = (lam_n (k), beta (4 kf), gamma (kf)) and P with
    lam = P x[:k + 4 kf]; contacts with mu = 0 get no beta, gamma."""
    k = mu.size
    fr = np.flatnonzero(mu > 0)
    nf = fr.size
    P = np.zeros((3 * k, k + 4 * nf))
    P[3 * np.arange(k), np.arange(k)] = 1.0
    D = np.array([[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]])
    E = np.zeros((k + 4 * nf, nf))
    F = np.zeros((nf, k + 4 * nf))
    for j, i in enumerate(fr):
        cols = k + 4 * j + np.arange(4)
        P[3 * i + 1:3 * i + 3, cols] = D
        E[cols, j] = 1.0
        F[j, i], F[j, cols] = mu[i], -1.0
    M = np.block([[P.T @ G @ P, E], [F, np.zeros((nf, nf))]])
    q = np.concatenate([P.T @ b, np.zeros(nf)])
    return M, q, P


def _pyramid_solution(M, q, P, G, b, x, iterations, status):
    lam = P @ x[:P.shape[1]]
    u = G @ lam + b
    res = residuals_of(x, M @ x + q)
    res["signorini"] = float(np.abs(np.minimum(lam[0::3], u[0::3])).max(initial=0.0))
    return ContactSolution(lam, u, res, iterations, status)


def _pyramid_lemke(G, b, mu, tol, max_iter, lam0):
    """The whole pyramid LCP by Lemke (warm start and tol unused)."""
    M, q, P = _pyramid_lcp(G, b, mu)
    sol = lemke(M, q, max_iter=max_iter)
    return _pyramid_solution(M, q, P, G, b, sol.z, sol.iterations, sol.status)


def _pyramid_pgs(G, b, mu, tol, max_iter, lam0):
    """Block Gauss-Seidel over contacts on the pyramid LCP, each contact's 6x6 LCP by Lemke."""
    M, q, P = _pyramid_lcp(G, b, mu)
    k, fr = mu.size, np.flatnonzero(mu > 0)
    nf = fr.size
    idx = [np.array([i]) for i in range(k)]           # entries of x owned by each contact
    for j, i in enumerate(fr):
        idx[i] = np.concatenate([[i], k + 4 * j + np.arange(4), [k + 4 * nf + j]])
    x = np.zeros(M.shape[0]) if lam0 is None else _pyramid_start(lam0, mu, idx, P.shape[1])
    res, it, moved = residuals_of(x, M @ x + q), 0, True
    while moved and not lcp_converged(res, tol) and it < max_iter:
        it, moved = it + 1, False
        for i in range(k):
            n_i = idx[i].size
            rest = M[idx[i]] @ x + q[idx[i]] - M[np.ix_(idx[i], idx[i])] @ x[idx[i]]
            sol = lemke(M[np.ix_(idx[i], idx[i])], rest)
            if sol.status == "converged" and np.any(sol.z != x[idx[i]]):
                x[idx[i]], moved = sol.z[:n_i], True
        res = residuals_of(x, M @ x + q)
    if lcp_converged(res, tol):
        return _pyramid_solution(M, q, P, G, b, x, it, "converged")
    return _pyramid_solution(M, q, P, G, b, x, it, "max_iterations" if moved else "no_solution")


def _pyramid_start(lam0, mu, idx, n_force):
    """x from a warm-start lam: beta the positive and negative parts of lam_t, shrunk into the
    pyramid; gamma = 0."""
    x = np.zeros(n_force + int(np.sum(mu > 0)))
    L = lam0.reshape(-1, 3)
    for i, ii in enumerate(idx):
        x[i] = max(L[i, 0], 0.0)
        if ii.size > 1:
            beta = np.maximum([L[i, 1], -L[i, 1], L[i, 2], -L[i, 2]], 0.0)
            cap = mu[i] * x[i]
            x[ii[1:5]] = beta * min(1.0, cap / beta.sum()) if beta.sum() > 0 else 0.0
    return x
