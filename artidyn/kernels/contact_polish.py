"""Compiled polishing of an iterate of the frictional contact problem; mirrors
:mod:`artidyn.contact.polish` step for step (the modes separated, stick, slide and normal, Newton's
method on their equations, the modes the result contradicts changed, the result accepted only
when the problem's residuals are within the tolerance).

Scratch P (:func:`scratch`): the modes (k) and angles (k) of the contacts, the offsets of their
unknowns (k + 1), and for p <= 3k unknowns: x (p), F (p), the theta-derivatives (p), Newton's
matrix (p, p), the forces' derivatives (3, p: each unknown's, in its contact's three rows), the
pivots (p), the velocities (3k); then a force and a velocity buffer (3k each) for
:func:`.contact_admm.polish`. Newton's matrix is solved by Cholesky's factorisation when every
mode is stick or normal (the matrix is then symmetric, ``D^T G D`` plus the regularisation), by
Gaussian elimination with partial pivoting otherwise.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .dense import chol_solve, cholesky
from .spatial import dot

SEPARATED, STICK, SLIDE, NORMAL = 0, 1, 2, 3
NEWTON, ROUNDS, EPS, INSIDE = 8, 4, 1e-10, 1e-6


@nb.njit
def scratch(m):
    k = m // 3
    return (np.zeros(k, np.int64), np.zeros(k), np.zeros(k + 1, np.int64), np.zeros(m), np.zeros(m), np.zeros(m),
            np.empty((m, m)), np.empty((3, m)), np.zeros(m, np.int64), np.zeros(m), np.zeros(m), np.zeros(m))


@nb.njit
def _unknowns(md):
    if md == STICK:
        return 3
    if md == SLIDE:
        return 2
    if md == NORMAL:
        return 1
    return 0


@nb.njit
def modes(y, mu, mode, theta):
    """The modes guessed from the forces y (as :func:`artidyn.contact.polish.modes`)."""
    for i in range(mu.shape[0]):
        n, t1, t2 = y[3 * i], y[3 * i + 1], y[3 * i + 2]
        theta[i] = 0.0
        if not n > 0.0:
            mode[i] = SEPARATED
        elif mu[i] == 0.0:
            mode[i] = NORMAL
        elif math.hypot(t1, t2) < (1.0 - INSIDE) * mu[i] * n:
            mode[i] = STICK
        else:
            mode[i], theta[i] = SLIDE, math.atan2(t2, t1)


@nb.njit
def offsets(mode, off):
    off[0] = 0
    for i in range(mode.shape[0]):
        off[i + 1] = off[i] + _unknowns(mode[i])
    return off[mode.shape[0]]


@nb.njit
def forces(y, mu, mode, theta, x, off):
    for i in range(mode.shape[0]):
        j, r, md = off[i], 3 * i, mode[i]
        if md == SEPARATED:
            y[r], y[r + 1], y[r + 2] = 0.0, 0.0, 0.0
        elif md == STICK:
            y[r], y[r + 1], y[r + 2] = x[j], x[j + 1], x[j + 2]
        elif md == NORMAL:
            y[r], y[r + 1], y[r + 2] = x[j], 0.0, 0.0
        else:
            y[r], y[r + 1], y[r + 2] = x[j], mu[i] * x[j] * math.cos(x[j + 1]), mu[i] * x[j] * math.sin(x[j + 1])


@nb.njit(_nrt=False)
def lu_solve(A, x, piv):
    """x <- A^-1 x by Gaussian elimination with partial pivoting (A overwritten); False on a zero
    pivot."""
    p = x.shape[0]
    for c in range(p):
        r = c
        for i in range(c + 1, p):
            if abs(A[i, c]) > abs(A[r, c]):
                r = i
        piv[c] = r
        if A[r, c] == 0.0:
            return False
        if r != c:
            for j in range(p):
                A[c, j], A[r, j] = A[r, j], A[c, j]
            x[c], x[r] = x[r], x[c]
        d = A[c, c]
        for i in range(c + 1, p):
            f = A[i, c] / d
            if f != 0.0:
                for j in range(c + 1, p):
                    A[i, j] -= f * A[c, j]
                x[i] -= f * x[c]
    for c in range(p - 1, -1, -1):
        s = x[c]
        for j in range(c + 1, p):
            s -= A[c, j] * x[j]
        x[c] = s / A[c, c]
    return True


@nb.njit
def mat_vec(G, x, b, out):
    """out <- G x + b."""
    m = x.shape[0]
    for r in range(m):
        out[r] = b[r] + dot(G[r], x, m)


@nb.njit
def unknowns(y, mode, theta, off, x):
    """x <- the unknowns of the modes (off: their offsets) from the forces y: a stick's three
    components, a slide's normal force and angle theta, a normal mode's normal force."""
    for i in range(mode.shape[0]):
        j, r, md = off[i], 3 * i, mode[i]
        if md == STICK:
            x[j], x[j + 1], x[j + 2] = y[r], y[r + 1], y[r + 2]
        elif md == NORMAL:
            x[j] = y[r]
        elif md == SLIDE:
            x[j], x[j + 1] = y[r], theta[i]


@nb.njit
def equations(u, mode, theta, off, F, dth):
    """F <- the modes' equations at the velocities u (a stick: u = 0; a slide: u_n = 0 and u_t
    along the force's line; a normal mode: u_n = 0) and dth <- the slides' derivatives in theta
    (the diagonal Newton's matrix adds); returns max |F|."""
    fmax = 0.0
    for i in range(mode.shape[0]):
        j, r, md = off[i], 3 * i, mode[i]
        if md == STICK:
            F[j], F[j + 1], F[j + 2] = u[r], u[r + 1], u[r + 2]
            dth[j], dth[j + 1], dth[j + 2] = 0.0, 0.0, 0.0
        elif md == NORMAL or md == SLIDE:
            F[j], dth[j] = u[r], 0.0
        if md == SLIDE:
            c, s = math.cos(theta[i]), math.sin(theta[i])
            F[j + 1] = u[r + 1] * s - u[r + 2] * c
            dth[j + 1] = u[r + 1] * c + u[r + 2] * s
    for j in range(off[mode.shape[0]]):
        fmax = max(fmax, abs(F[j]))
    return fmax


@nb.njit
def matrix(G, mu, y, mode, theta, off, dth, D, A):
    """A <- Newton's matrix of the modes' equations at the forces y: ``E G D + diag(dth)`` (D:
    the forces' derivatives in the unknowns, E: the equations' in the velocities), plus the
    regularisation 1e-10 max |A_jj| on its diagonal."""
    k = mode.shape[0]
    p = off[k]
    for i in range(k):                   # D[0:3, j] = dlam_i/dx_j for the unknowns j of contact i
        j, md = off[i], mode[i]
        for col in range(j, off[i + 1]):
            D[0, col], D[1, col], D[2, col] = 0.0, 0.0, 0.0
        if md == STICK:
            D[0, j], D[1, j + 1], D[2, j + 2] = 1.0, 1.0, 1.0
        elif md == NORMAL:
            D[0, j] = 1.0
        elif md == SLIDE:
            c, s = math.cos(theta[i]), math.sin(theta[i])
            D[0, j], D[1, j], D[2, j] = 1.0, mu[i] * c, mu[i] * s
            D[0, j + 1], D[1, j + 1], D[2, j + 1] = 0.0, -mu[i] * y[3 * i] * s, mu[i] * y[3 * i] * c
    for ic in range(k):                  # A = E G D + diag(dth): the columns of contact ic touch
        c0 = 3 * ic                      # G's columns c0 .. c0 + 2 only
        for col in range(off[ic], off[ic + 1]):
            d0, d1, d2 = D[0, col], D[1, col], D[2, col]
            for i in range(k):
                j, r, md = off[i], 3 * i, mode[i]
                if md == SEPARATED:
                    continue
                g0 = G[r, c0] * d0 + G[r, c0 + 1] * d1 + G[r, c0 + 2] * d2
                if md == STICK:
                    A[j, col] = g0
                    A[j + 1, col] = G[r + 1, c0] * d0 + G[r + 1, c0 + 1] * d1 + G[r + 1, c0 + 2] * d2
                    A[j + 2, col] = G[r + 2, c0] * d0 + G[r + 2, c0 + 1] * d1 + G[r + 2, c0 + 2] * d2
                else:
                    A[j, col] = g0
                    if md == SLIDE:
                        c, s = math.cos(theta[i]), math.sin(theta[i])
                        g1 = G[r + 1, c0] * d0 + G[r + 1, c0 + 1] * d1 + G[r + 1, c0 + 2] * d2
                        g2 = G[r + 2, c0] * d0 + G[r + 2, c0 + 1] * d1 + G[r + 2, c0 + 2] * d2
                        A[j + 1, col] = g1 * s - g2 * c
    top = 0.0
    for j in range(p):
        A[j, j] += dth[j]
        top = max(top, abs(A[j, j]))
    reg = EPS * max(top, 1e-300)
    for j in range(p):
        A[j, j] += reg


@nb.njit
def newton(G, b, mu, y, mode, theta, tol, P):
    """y <- forces solving the equations of the modes from y (as
    :func:`artidyn.contact.polish.newton`); theta updated. False when Newton's matrix was singular."""
    off, x, F, dth, A, D, piv, u = P[2], P[3], P[4], P[5], P[6], P[7], P[8], P[9]
    k = mode.shape[0]
    p = offsets(mode, off)
    unknowns(y, mode, theta, off, x)
    forces(y, mu, mode, theta, x, off)       # on the modes' forces (a slide: on the cone)
    for _ in range(NEWTON):
        mat_vec(G, y, b, u)
        fmax = equations(u, mode, theta, off, F, dth)
        if p == 0 or fmax <= 0.01 * tol:
            break
        matrix(G, mu, y, mode, theta, off, dth, D, A)
        symmetric = True                     # stick and normal modes only: A = D^T G D + reg I
        for i in range(k):
            if mode[i] == SLIDE:
                symmetric = False
        if symmetric:
            if not cholesky(A, p, 0.0):
                return False
            chol_solve(A, p, F)
        elif not lu_solve(A[:p, :p], F[:p], piv):
            return False
        advance(y, mu, mode, theta, off, x, F)
    return True


@nb.njit
def advance(y, mu, mode, theta, off, x, dx):
    """Newton's step: x <- x - dx, the slides' angles and the forces y from it."""
    for j in range(off[mode.shape[0]]):
        x[j] -= dx[j]
    for i in range(mode.shape[0]):
        if mode[i] == SLIDE:
            theta[i] = x[off[i] + 1]
    forces(y, mu, mode, theta, x, off)


@nb.njit
def correct(y, u, mu, mode, theta, tol):
    """Change the modes that the forces y and velocities u contradict (as
    :func:`artidyn.contact.polish.correct`); True when one changed."""
    changed = False
    for i in range(mode.shape[0]):
        r, md = 3 * i, mode[i]
        n, t1, t2 = y[r], y[r + 1], y[r + 2]
        if md != SEPARATED and n < 0.0:
            mode[i] = SEPARATED
        elif md == SEPARATED and u[r] < -tol:
            mode[i] = NORMAL if mu[i] == 0.0 else STICK
        elif md == STICK and math.hypot(t1, t2) > mu[i] * n:
            mode[i], theta[i] = SLIDE, math.atan2(t2, t1)
        elif md == SLIDE and u[r + 1] * math.cos(theta[i]) + u[r + 2] * math.sin(theta[i]) > tol:
            mode[i] = STICK
        else:
            continue
        changed = True
    return changed
