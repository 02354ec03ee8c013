"""Small dense linear algebra for the compiled analytical formulations (:mod:`.formulations`).

Cholesky factors and triangular solves, and Householder QR with column pivoting (Golub & Van
Loan, "Matrix Computations", 4th ed., alg. 4.2.1 and 5.4.1), in plain loops on row-major
arrays: at the sizes of a robot (tens of rows) they cost less than a call into LAPACK. A
factorisation works in place on the leading block of a work array, so that one scratch serves
every size.
"""
import math

import numba as nb

from .constrained import FAST    # contraction, no reassociation: the same bits on every call
from .spatial import dot
RANK_TOL = 1e-10                 # as the readable references: |R_kk| <= 1e-10 |R_00| counts as zero


@nb.njit(fastmath=FAST)
def cholesky(A, n, tol):
    """A[:n, :n] <- its lower Cholesky factor L (``A = L L^T``; the strict upper triangle keeps
    A's entries). False when a pivot is not above ``tol`` times the largest diagonal entry (A not
    positive definite, or too close to singular)."""
    big = 0.0
    for k in range(n):
        big = max(big, A[k, k])
    for j in range(n):
        Aj = A[j]
        d = A[j, j] - dot(Aj, Aj, j)
        if not d > tol * big:
            return False
        d = math.sqrt(d)
        A[j, j] = d
        for i in range(j + 1, n):
            A[i, j] = (A[i, j] - dot(A[i], Aj, j)) / d
    return True


@nb.njit(fastmath=FAST)
def forward(L, n, x):
    """x[:n] <- L^-1 x[:n] (L lower triangular)."""
    for i in range(n):
        x[i] = (x[i] - dot(L[i], x, i)) / L[i, i]


@nb.njit(fastmath=FAST)
def backward(L, n, x):
    """x[:n] <- L^-T x[:n] (L lower triangular)."""
    for i in range(n - 1, -1, -1):
        s = x[i]
        for p in range(i + 1, n):
            s -= L[p, i] * x[p]
        x[i] = s / L[i, i]


@nb.njit(fastmath=FAST)
def chol_solve(L, n, x):
    """x[:n] <- (L L^T)^-1 x[:n]."""
    forward(L, n, x)
    backward(L, n, x)


@nb.njit(fastmath=FAST)
def qr_pivoted(X, p, s, piv, beta):
    """X[:p, :s] <- its Householder QR with column pivoting, ``X Pi = Q R``: R in the upper
    triangle, the reflectors' vectors below the diagonal (``v_k = [1; X[k+1:p, k]]``, ``H_k = I -
    beta_k v_k v_k^T``, ``Q = H_0 H_1 ...``); ``piv[j]`` the original column of column j. Each step
    takes the remaining column of largest norm, so ``|R_kk|`` decreases. Returns the rank: the
    number of ``|R_kk| > RANK_TOL |R_00|``."""
    for j in range(s):
        piv[j] = j
    n = min(p, s)
    r = 0
    for k in range(n):
        best, jb = -1.0, k
        for j in range(k, s):          # the remaining norms, computed again (small matrices)
            x = 0.0
            for i in range(k, p):
                x += X[i, j] * X[i, j]
            if x > best:
                best, jb = x, j
        if jb != k:
            for i in range(p):
                X[i, k], X[i, jb] = X[i, jb], X[i, k]
            piv[k], piv[jb] = piv[jb], piv[k]
        alpha = math.sqrt(best)
        if alpha == 0.0:
            beta[k] = 0.0
            continue
        if X[k, k] > 0.0:
            alpha = -alpha
        v0 = X[k, k] - alpha
        for i in range(k + 1, p):
            X[i, k] /= v0
        beta[k] = -v0 / alpha
        X[k, k] = alpha
        for j in range(k + 1, s):
            t = X[k, j]
            for i in range(k + 1, p):
                t += X[i, k] * X[i, j]
            t *= beta[k]
            X[k, j] -= t
            for i in range(k + 1, p):
                X[i, j] -= t * X[i, k]
    top = abs(X[0, 0]) if n > 0 else 0.0
    for k in range(n):
        if abs(X[k, k]) > RANK_TOL * top:
            r += 1
    return r


@nb.njit(fastmath=FAST)
def apply_qt(X, p, nref, beta, y):
    """y[:p] <- Q^T y[:p] with the first ``nref`` reflectors of :func:`qr_pivoted`."""
    for k in range(nref):
        t = y[k]
        for i in range(k + 1, p):
            t += X[i, k] * y[i]
        t *= beta[k]
        y[k] -= t
        for i in range(k + 1, p):
            y[i] -= t * X[i, k]


@nb.njit(fastmath=FAST)
def apply_q(X, p, nref, beta, y):
    """y[:p] <- Q y[:p] with the first ``nref`` reflectors of :func:`qr_pivoted`."""
    for k in range(nref - 1, -1, -1):
        t = y[k]
        for i in range(k + 1, p):
            t += X[i, k] * y[i]
        t *= beta[k]
        y[k] -= t
        for i in range(k + 1, p):
            y[i] -= t * X[i, k]


@nb.njit(fastmath=FAST)
def solve_r(X, r, y):
    """y[:r] <- R^-1 y[:r], R the upper triangle of X[:r, :r]."""
    for i in range(r - 1, -1, -1):
        s = y[i]
        for j in range(i + 1, r):
            s -= X[i, j] * y[j]
        y[i] = s / X[i, i]


@nb.njit(fastmath=FAST)
def solve_rt(X, r, y):
    """y[:r] <- R^-T y[:r], R the upper triangle of X[:r, :r]."""
    for i in range(r):
        s = y[i]
        for j in range(i):
            s -= X[j, i] * y[j]
        y[i] = s / X[i, i]


@nb.njit(fastmath=FAST)
def matvec(M, x, out):
    """out <- M x."""
    for i in range(M.shape[0]):
        s = 0.0
        for j in range(M.shape[1]):
            s += M[i, j] * x[j]
        out[i] = s


@nb.njit(fastmath=FAST)
def matvec_t(M, x, out):
    """out <- M^T x."""
    for j in range(M.shape[1]):
        out[j] = 0.0
    for i in range(M.shape[0]):
        xi = x[i]
        for j in range(M.shape[1]):
            out[j] += M[i, j] * xi


@nb.njit(fastmath=FAST)
def matmul(X, Y, out):
    """out <- X Y."""
    for i in range(X.shape[0]):
        for j in range(Y.shape[1]):
            out[i, j] = 0.0
        for p in range(X.shape[1]):
            x = X[i, p]
            if x != 0.0:
                for j in range(Y.shape[1]):
                    out[i, j] += x * Y[p, j]


@nb.njit(fastmath=FAST)
def congruence(P, M, MP, out):
    """out <- P^T M P (symmetric, k x k for P (n, k)), with the work MP (n, k) <- M P; row by row of
    P and MP, so that the inner loops run along contiguous rows."""
    matmul(M, P, MP)
    k = P.shape[1]
    for a in range(k):
        for b in range(a + 1):
            out[a, b] = 0.0
    for i in range(P.shape[0]):
        for a in range(k):
            x = P[i, a]
            if x != 0.0:
                for b in range(a + 1):
                    out[a, b] += x * MP[i, b]
    for a in range(k):
        for b in range(a):
            out[b, a] = out[a, b]
