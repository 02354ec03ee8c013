"""The small problems of the compiled event-driven run with sliding contacts: Lemke's method on the
normal LCP (Cottle, Pang & Stone, "The Linear Complementarity Problem", sec. 4.4, with the
lexicographic ratio test), the P-matrix test (Painlevé's cases), and projected Gauss-Seidel on a
problem with sliding and sticking contacts. Mirror :func:`artidyn.contact.lcp.lemke` and
:func:`artidyn.contact.dynamics._with_sliding` step for step.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .contact_admm import project_k

CONVERGED, MAX_ITERATIONS, NO_SOLUTION = 0, 1, 2
ST_OK, ST_INCONSISTENT, ST_INDETERMINATE = 0, 3, 4      # the status codes of a smooth problem


@nb.njit
def _pivot(T, r, e):
    """Gauss-Jordan pivot of tableau T on row r, column e."""
    d = T[r, e]
    for j in range(T.shape[1]):
        T[r, j] /= d
    col = T[:, e].copy()
    col[r] = 0.0
    for i in range(T.shape[0]):
        for j in range(T.shape[1]):
            T[i, j] -= col[i] * T[r, j]


@nb.njit
def _ratio_test(T, e, n, r0):
    """The blocking row of column e (lexicographic; z0's row r0 leaves whenever it ties); -1."""
    m = T.shape[0]
    big = 0.0
    for i in range(m):
        big = max(big, abs(T[i, e]))
    rows = np.zeros(m, np.int64)
    nr = 0
    for i in range(m):
        if T[i, e] > 1e-11 * max(1.0, big):
            rows[nr] = i
            nr += 1
    if nr == 0:
        return -1
    for jj in range(n + 1):
        j = T.shape[1] - 1 if jj == 0 else jj - 1
        best = np.inf
        for p in range(nr):
            best = min(best, T[rows[p], j] / T[rows[p], e])
        cut = best + 1e-12 * max(1.0, abs(best))
        kept = 0
        has_r0 = False
        for p in range(nr):
            i = rows[p]
            if T[i, j] / T[i, e] <= cut:
                rows[kept] = i
                kept += 1
                has_r0 = has_r0 or i == r0
        nr = kept
        if nr == 1 or has_r0:
            break
    for p in range(nr):
        if rows[p] == r0:
            return r0
    return rows[0]


@nb.njit
def natural_map(M, q, z):
    """max |min(z, M z + q)|."""
    out = 0.0
    for i in range(q.shape[0]):
        w = q[i]
        for j in range(q.shape[0]):
            w += M[i, j] * z[j]
        out = max(out, abs(min(z[i], w)))
    return out


@nb.njit
def _polish(M, q, z):
    """One refinement on the active set (M_AA z_A = -q_A), kept when it is no worse."""
    n = q.shape[0]
    A = np.flatnonzero(z > 0)
    if A.size == 0:
        return z
    MA, qA = np.zeros((A.size, A.size)), np.zeros(A.size)
    for i in range(A.size):
        qA[i] = -q[A[i]]
        for j in range(A.size):
            MA[i, j] = M[A[i], A[j]]
    zA = np.linalg.lstsq(MA, qA, rcond=2.220446049250313e-16 * A.size)[0]
    z2 = np.zeros(n)
    for i in range(A.size):
        z2[A[i]] = zA[i]
    if np.all(np.isfinite(z2)) and zA.min() >= 0:
        if natural_map(M, q, z2) <= natural_map(M, q, z):
            return z2
    return z


@nb.njit
def lemke(M, q):
    """LCP(M, q) by Lemke's method (covering vector of ones, at most 50 + 20 n pivots): (status, z)."""
    n = q.shape[0]
    if n == 0 or q.min() >= 0:
        return CONVERGED, np.zeros(n)
    sM = max(np.abs(M).max(), 1e-300)
    sq = np.abs(q).max()
    T = np.zeros((n, 2 * n + 2))
    for i in range(n):
        T[i, i] = 1.0
        for j in range(n):
            T[i, n + j] = -M[i, j] / sM
        T[i, 2 * n] = -1.0
        T[i, 2 * n + 1] = q[i] / sq
    basis = np.arange(n)
    r = int(np.argmin(q))
    _pivot(T, r, 2 * n)
    leaving = basis[r]
    basis[r] = 2 * n
    status = MAX_ITERATIONS
    for _ in range(50 + 20 * n):
        entering = leaving + n if leaving < n else leaving - n
        r0 = 0
        for i in range(n):
            if basis[i] == 2 * n:
                r0 = i
                break
        r = _ratio_test(T, entering, n, r0)
        if r < 0 and T[r0, 2 * n + 1] > 1e-13:
            return NO_SOLUTION, np.zeros(n)
        if r >= 0:
            _pivot(T, r, entering)
            leaving = basis[r]
            basis[r] = entering
        if r < 0 or leaving == 2 * n:
            status = CONVERGED
            break
    z = np.zeros(n)
    for i in range(n):
        if n <= basis[i] < 2 * n:
            z[basis[i] - n] = T[i, 2 * n + 1]
    for i in range(n):
        z[i] = max(z[i], 0.0) * (sq / sM)
    if status == CONVERGED:
        z = _polish(M, q, z)
    return status, z


@nb.njit
def is_p_matrix(A):
    """All principal minors positive."""
    n = A.shape[0]
    for mask in range(1, 1 << n):
        idx = np.array([i for i in range(n) if mask >> i & 1])
        S = np.zeros((idx.size, idx.size))
        for i in range(idx.size):
            for j in range(idx.size):
                S[i, j] = A[idx[i], idx[j]]
        if not np.linalg.det(S) > 0:
            return False
    return True


@nb.njit
def with_sliding(G, b, mu, slide, u, tol, max_iter):
    """Forces of a smooth problem with sliding contacts (lambda_t = -mu lambda_n u_t / |u_t|):
    (lam, status, residual). Only sliding: the normal LCP by Lemke and the P-matrix test; mixed:
    projected Gauss-Seidel over contacts."""
    k = slide.shape[0]
    E = np.zeros((k, 3))            # a sliding contact's column (1, -mu d) in its own rows
    for i in range(k):
        if slide[i]:
            s = math.hypot(u[i, 1], u[i, 2])
            E[i, 0], E[i, 1], E[i, 2] = 1.0, -mu * (u[i, 1] / s), -mu * (u[i, 2] / s)
    lam = np.zeros(3 * k)
    if slide.all():
        A, c = np.zeros((k, k)), np.zeros(k)
        for i in range(k):
            c[i] = b[3 * i]
            for j in range(k):
                A[i, j] = G[3 * i, 3 * j] * E[j, 0] + G[3 * i, 3 * j + 1] * E[j, 1] + G[3 * i, 3 * j + 2] * E[j, 2]
        status, x = lemke(A, c)
        if status != CONVERGED:
            return lam, ST_INCONSISTENT, np.inf
        residual = max(natural_map(A, c, x), 0.0)
        for i in range(k):
            for r in range(3):
                lam[3 * i + r] = E[i, r] * x[i]
        return lam, ST_OK if is_p_matrix(A) else ST_INDETERMINATE, residual
    acc = np.zeros(3)
    for _ in range(max_iter):
        old = lam.copy()
        for i in range(k):
            for r in range(3):
                x = b[3 * i + r]
                for j in range(3 * k):
                    x += G[3 * i + r, j] * lam[j]
                acc[r] = x
            if slide[i]:
                ge = G[3 * i, 3 * i] * E[i, 0] + G[3 * i, 3 * i + 1] * E[i, 1] + G[3 * i, 3 * i + 2] * E[i, 2]
                xn = max(0.0, lam[3 * i] - acc[0] / max(ge, 1e-300))
                for r in range(3):
                    lam[3 * i + r] = E[i, r] * xn
            else:
                d = max(abs(G[3 * i, 3 * i]), max(abs(G[3 * i + 1, 3 * i + 1]), abs(G[3 * i + 2, 3 * i + 2])))
                rr = 1.0 / max(d, 1e-300)
                ut = math.hypot(acc[1], acc[2])
                x0 = lam[3 * i] - rr * (acc[0] + mu * ut)
                x1, x2 = lam[3 * i + 1] - rr * acc[1], lam[3 * i + 2] - rr * acc[2]
                lam[3 * i], lam[3 * i + 1], lam[3 * i + 2] = project_k(x0, x1, x2, mu)
        step, big = 0.0, 0.0
        for j in range(3 * k):
            step = max(step, abs(lam[j] - old[j]))
            big = max(big, abs(lam[j]))
        if step <= tol * (1.0 + big):
            break
    residual = 0.0
    for i in range(k):
        x = b[3 * i]
        for j in range(3 * k):
            x += G[3 * i, j] * lam[j]
        residual = max(residual, abs(min(lam[3 * i], x)))
    return lam, ST_OK if residual < 1e-6 else ST_INDETERMINATE, residual
