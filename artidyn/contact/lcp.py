"""Linear complementarity problems: find z >= 0 with w = M z + q >= 0 and z . w = 0.

Frictionless contact is this problem with M = G = J M^-1 J^T (the Delassus matrix) and q = b.

- :func:`lemke`: complementary pivoting with a covering vector d (Lemke 1965; Cottle, Pang &
  Stone, *The Linear Complementarity Problem*, 1992, ch. 4), lexicographic ratio test against
  cycling. Exact for small problems. It always finds the solution when M is a P-matrix; when M
  is copositive-plus (e.g. positive semi-definite) ray termination proves that there is none.
- :func:`pgs_lcp`: projected Gauss-Seidel / SOR (Cottle, Pang & Stone ch. 5), which converges
  for symmetric positive semi-definite M with a positive diagonal and 0 < omega < 2.
- :func:`lcp_residual`: the error measures shared with the frictional solvers.

The input checks at the top of this module serve the whole ``artidyn.contact`` package.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..errors import InputError, ShapeError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array

STATUSES = ("converged", "max_iterations", "no_solution")


class LCPSolution(NamedTuple):
    """Result of an LCP solver.

    z : (n,) the unknown; w : (n,) = M z + q; residuals : dict of :func:`lcp_residual`;
    iterations : pivots (Lemke) or sweeps (PGS); status : one of "converged",
    "max_iterations", "no_solution" (Lemke's ray termination).
    """
    z: np.ndarray
    w: np.ndarray
    residuals: dict
    iterations: int
    status: str


# --- input checks (used by every solver of the package) ---------------------------------------

def as_finite(name, x, ndim=None) -> Array:
    """``x`` as a float64 array; ShapeError on a wrong ndim, InputError on NaN / inf."""
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as e:
        raise InputError(f"{name}: expected real numbers, got {type(x).__name__} ({e})") from None
    if ndim is not None and a.ndim != ndim:
        raise ShapeError(f"{name}: expected a {ndim}-D array, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        bad = np.argwhere(~np.isfinite(a))[0]
        where = f"[{', '.join(map(str, bad))}]" if a.ndim else ""
        raise InputError(f"{name}{where} = {a[tuple(bad)]}: every entry must be finite")
    return a


def as_square_system(M, q, names=("M", "q")) -> tuple[Array, Array]:
    """Check a matrix (n, n) and a vector (n,) for an LCP / contact problem."""
    M = as_finite(names[0], M, ndim=2)
    q = as_finite(names[1], q, ndim=1)
    if M.shape != (q.size, q.size):
        raise ShapeError(f"{names[0]} has shape {M.shape}, {names[1]} has {q.size} entries: "
                         f"expected {names[0]} of shape ({q.size}, {q.size})")
    return M, q


def check_tolerance(tol, max_iter):
    """Check a positive finite tolerance and a positive iteration count."""
    if not (isinstance(tol, (int, float, np.number)) and np.isfinite(tol) and tol > 0):
        raise InputError(f"tol = {tol!r}: expected a positive finite number")
    return float(tol), check_count(max_iter)


def check_count(max_iter, name="max_iter"):
    """A positive integer iteration limit."""
    if isinstance(max_iter, (bool, np.bool_)) or not isinstance(max_iter, (int, np.integer)) \
            or max_iter < 1:
        raise InputError(f"{name} = {max_iter!r}: expected a positive integer")
    return int(max_iter)


def check_start(name, x0, n) -> Array | None:
    """A warm start of n finite entries, or None."""
    if x0 is None:
        return None
    x0 = as_finite(name, x0, ndim=1)
    if x0.size != n:
        raise ShapeError(f"{name} has {x0.size} entries, expected {n}")
    return x0.copy()


# --- residuals --------------------------------------------------------------------------------

def lcp_residual(M: ArrayLike, q: ArrayLike, z: ArrayLike) -> dict[str, float]:
    """Error measures of a candidate z of LCP(M, q), each zero at a solution.

    Returns a dict of floats (max over the entries): "complementarity" max |z_i w_i|, "cone"
    (primal feasibility) max(0, -min z), "dual" max(0, -min w), "natural map" max |min(z_i, w_i)|
    (the natural-map residual; zero exactly at solutions).
    """
    M, q = as_square_system(M, q)
    z = as_finite("z", z, ndim=1)
    if z.size != q.size:
        raise ShapeError(f"z has {z.size} entries, expected {q.size}")
    return residuals_of(z, M @ z + q)


def residuals_of(z, w):
    """The dict of :func:`lcp_residual` from z and w = M z + q, without input checks."""
    if z.size == 0:
        return {"complementarity": 0.0, "cone": 0.0, "dual": 0.0, "natural map": 0.0}
    return {"complementarity": float(np.max(np.abs(z * w))),
            "cone": float(max(0.0, -z.min())),
            "dual": float(max(0.0, -w.min())),
            "natural map": float(np.max(np.abs(np.minimum(z, w))))}


def lcp_converged(res, tol):
    """The stopping test: cone, dual and natural map all <= tol."""
    return max(res["cone"], res["dual"], res["natural map"]) <= tol


# --- Lemke ------------------------------------------------------------------------------------

def lemke(M: ArrayLike, q: ArrayLike, max_iter: int | None = None, cover: ArrayLike | None = None) -> LCPSolution:
    """Solve LCP(M, q) by Lemke's complementary pivoting (Cottle, Pang & Stone, sec. 4.4).

    The tableau holds ``w - M z - d z0 = q`` over the columns (w, z, z0, rhs). z0 enters at the
    most negative q_i / d_i, then each pivot brings in the complement of the variable that left,
    until z0 leaves (a solution) or the entering column has no positive entry (a secondary ray:
    no solution when M is copositive-plus; for other M, Lemke's method may miss a solution).
    Ties in the ratio test are broken lexicographically with the rows of B^-1 (no cycling),
    z0 leaving first whenever it ties.

    Parameters
    ----------
    M : (n, n) matrix (need not be symmetric); q : (n,)
    max_iter : pivot limit, default 50 + 20 n.
    cover : (n,) positive covering vector d, default all ones.

    Returns
    -------
    LCPSolution; status "no_solution" on ray termination (z, w then hold z = 0, w = q).
    """
    M, q = as_square_system(M, q)
    n = q.size
    max_iter = 50 + 20 * n if max_iter is None else check_count(max_iter)
    d = np.ones(n) if cover is None else as_finite("cover", cover, ndim=1)
    if d.size != n or np.any(d <= 0):
        raise InputError(f"cover: expected {n} positive entries, got {d}")
    if n == 0 or q.min() >= 0:
        z = np.zeros(n)
        return LCPSolution(z, q.copy(), residuals_of(z, q), 0, "converged")
    sM, sq = max(np.abs(M).max(), 1e-300), np.abs(q).max()   # pivot on M / sM, q / sq
    T = np.hstack([np.eye(n), -M / sM, -d[:, None], q[:, None] / sq])
    basis = np.arange(n)                              # w basic; variable 2n is z0
    r = int(np.argmin(q / d))
    _pivot(T, r, 2 * n)
    leaving, basis[r] = basis[r], 2 * n
    status, it = "max_iterations", max_iter
    for it in range(1, max_iter + 1):
        entering = leaving + n if leaving < n else leaving - n   # the complement
        r0 = int(np.flatnonzero(basis == 2 * n)[0])               # z0's row
        r = _ratio_test(T, T[:, entering], n, r0)
        if r is None and T[r0, -1] > 1e-13:           # a secondary ray
            z = np.zeros(n)
            return LCPSolution(z, q.copy(), residuals_of(z, q), it, "no_solution")
        if r is not None:
            _pivot(T, r, entering)
            leaving, basis[r] = basis[r], entering
        if r is None or leaving == 2 * n:              # z0 left, or is already 0 on the ray
            status = "converged"
            break
    z = _basic_z(T, basis, n) * (sq / sM)
    if status == "converged":
        z = _polish(M, q, z)
    w = M @ z + q
    return LCPSolution(z, w, residuals_of(z, w), it, status)


def _pivot(T, r, e):
    """Gauss-Jordan pivot of tableau T on row r, column e."""
    T[r] /= T[r, e]
    col = T[:, e].copy()
    col[r] = 0.0
    T -= np.outer(col, T[r])


def _ratio_test(T, a, n, r0):
    """Blocking row of the entering column a: lexicographic min of (rhs, B^-1 rows) / a_i,
    except that z0 (row r0) leaves whenever it ties for the min ratio (then z0 = 0: solved)."""
    rows = np.flatnonzero(a > 1e-11 * max(1.0, np.abs(a).max()))
    if rows.size == 0:
        return None
    for j in [T.shape[1] - 1, *range(n)]:              # rhs first, then the columns of B^-1
        ratios = T[rows, j] / a[rows]
        best = ratios.min()
        rows = rows[ratios <= best + 1e-12 * max(1.0, abs(best))]
        if rows.size == 1 or r0 in rows:
            break
    return r0 if r0 in rows else int(rows[0])


def _basic_z(T, basis, n):
    z = np.zeros(n)
    for i, v in enumerate(basis):
        if n <= v < 2 * n:
            z[v - n] = T[i, -1]
    return np.maximum(z, 0.0)


def _polish(M, q, z):
    """One refinement on the active set: solve M_AA z_A = -q_A; kept only if it is better."""
    A = np.flatnonzero(z > 0)
    if A.size == 0:
        return z
    zA = np.linalg.lstsq(M[np.ix_(A, A)], -q[A], rcond=None)[0]
    z2 = np.zeros_like(z)
    z2[A] = zA
    if np.all(np.isfinite(z2)) and zA.min() >= 0:
        r_old = residuals_of(z, M @ z + q)["natural map"]
        if residuals_of(z2, M @ z2 + q)["natural map"] <= r_old:
            return z2
    return z


# --- projected Gauss-Seidel -------------------------------------------------------------------

def pgs_lcp(M: ArrayLike, q: ArrayLike, tol: float = 1e-10, max_iter: int = 10000, omega: float = 1.0,
            z0: ArrayLike | None = None) -> LCPSolution:
    """Solve LCP(M, q) by projected Gauss-Seidel with over-relaxation omega (PSOR).

    Sweep i = 1..n: ``z_i <- max(0, z_i - omega (q_i + M_i. z) / M_ii)``
    (Cottle, Pang & Stone, ch. 5). Converges for symmetric positive semi-definite M with a
    positive diagonal when 0 < omega < 2; rows with M_ii = 0 keep z_i = 0. Stops when the
    residuals "cone", "dual" and "natural map" are all <= tol. z0 : optional warm start.

    Returns LCPSolution with iterations = sweeps done; status "no_solution" when a sweep leaves
    z unchanged short of convergence (a row with M_ii = 0 and w_i < 0: for positive
    semi-definite M that row is zero and the LCP infeasible).
    """
    M, q = as_square_system(M, q)
    tol, max_iter = check_tolerance(tol, max_iter)
    if not (0 < omega < 2):
        raise InputError(f"omega = {omega}: over-relaxation needs 0 < omega < 2")
    D = np.diag(M).copy()
    scale = max(1.0, float(np.abs(D).max(initial=0.0)))
    if np.any(D < -1e-14 * scale):
        i = int(np.argmin(D))
        raise InputError(f"pgs_lcp: M[{i}, {i}] = {D[i]} < 0; projected Gauss-Seidel needs a "
                         "non-negative diagonal (use lemke)")
    active = D > 1e-14 * scale
    z = np.zeros(q.size) if z0 is None else np.maximum(check_start("z0", z0, q.size), 0.0)
    z[~active] = 0.0
    w = M @ z + q
    res = residuals_of(z, w)
    it, moved = 0, True
    while moved and not lcp_converged(res, tol) and it < max_iter:
        it, z_old = it + 1, z.copy()
        for i in np.flatnonzero(active):
            z[i] = max(0.0, z[i] - omega * (q[i] + M[i] @ z) / D[i])
        moved = bool(np.any(z != z_old))
        w = M @ z + q
        res = residuals_of(z, w)
    if lcp_converged(res, tol):
        return LCPSolution(z, w, res, it, "converged")
    return LCPSolution(z, w, res, it, "max_iterations" if moved else "no_solution")
