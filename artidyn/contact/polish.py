"""Polishing an iterate of the frictional contact problem: guess each contact's mode, solve the
equations of those modes by Newton's method, check the result with the problem's residuals.

The idea is the solution polishing of OSQP (Stellato, Banjac, Goulart, Bemporad & Boyd, "OSQP:
an operator splitting solver for quadratic programs", Math. Prog. Comp. 12, 2020): a first-order
iterate tells which constraints are active long before it is accurate, and the equations of the
active set then give the solution to rounding in one solve. For Coulomb's law each contact has
one of four modes, each a set of smooth equations in u = G lam + b (Alart & Curnier, CMAME 92,
1991; Acary & Brogliato, "Numerical Methods for Nonsmooth Dynamical Systems", 2008, ch. 13):

==========  ==============================  =============================================
mode        unknowns                        equations
==========  ==============================  =============================================
separated   none (lam_i = 0)                none
stick       lam_i (3)                       u_i = 0
slide       lam_n, theta (lam_t = mu lam_n  u_n = 0, u_t parallel to the force:
            (cos theta, sin theta))         u_t1 sin theta - u_t2 cos theta = 0
normal      lam_n (mu = 0: no friction)     u_n = 0
==========  ==============================  =============================================

Newton's matrix is regularised by ``EPS`` times its largest diagonal entry, so that redundant
contacts (a face resting on four corners: G singular) keep the distribution of the start and
change only what the equations fix. A mode that the result contradicts is changed (a negative
normal force separates, a penetrating separated contact sticks, a force outside the cone slides,
a slip along the friction force sticks) and the equations are solved again, ``ROUNDS`` times at
most. The result is accepted only when every residual of :func:`artidyn.contact.friction.residuals`
is within the tolerance: a wrong guess costs one solve and changes nothing.

The compiled twin is :mod:`artidyn.kernels.contact_polish`, step for step (it solves Newton's
system by Cholesky's factorisation where the matrix is symmetric: stick and normal modes only).
"""
from __future__ import annotations

import numpy as np

SEPARATED, STICK, SLIDE, NORMAL = 0, 1, 2, 3
UNKNOWNS = (0, 3, 2, 1)            # per mode
NEWTON, ROUNDS, EPS, INSIDE = 8, 4, 1e-10, 1e-6


def modes(L, mu):
    """(mode (k,), theta (k,)) guessed from forces L (k, 3): zero normal force separates, a force
    strictly inside the cone (by a relative ``INSIDE``) sticks, one on its boundary slides in the
    direction of the force."""
    k = L.shape[0]
    mode, theta = np.zeros(k, np.int64), np.zeros(k)
    for i in range(k):
        n, t1, t2 = L[i]
        if not n > 0.0:
            mode[i] = SEPARATED
        elif mu[i] == 0.0:
            mode[i] = NORMAL
        elif np.hypot(t1, t2) < (1.0 - INSIDE) * mu[i] * n:
            mode[i] = STICK
        else:
            mode[i], theta[i] = SLIDE, np.arctan2(t2, t1)
    return mode, theta


def _offsets(mode):
    off = np.zeros(mode.size + 1, np.int64)
    for i, md in enumerate(mode):
        off[i + 1] = off[i] + UNKNOWNS[md]
    return off


def _force_columns(L, mu, mode, theta, off):
    """dlam/dx (3k, p): the forces' derivatives by the unknowns."""
    D = np.zeros((L.size, off[-1]))
    for i, md in enumerate(mode):
        j, r = off[i], 3 * i
        if md == STICK:
            D[r:r + 3, j:j + 3] = np.eye(3)
        elif md == NORMAL:
            D[r, j] = 1.0
        elif md == SLIDE:
            c, s = np.cos(theta[i]), np.sin(theta[i])
            D[r:r + 3, j] = (1.0, mu[i] * c, mu[i] * s)
            D[r + 1:r + 3, j + 1] = (-mu[i] * L[i, 0] * s, mu[i] * L[i, 0] * c)
    return D


def _equations(U, mode, theta, off):
    """F (p,) and the selection E (p, 3k) of the rows of u they are made of (the sliding equation
    u_t1 sin theta - u_t2 cos theta); the theta-derivative of a sliding equation comes apart."""
    p = off[-1]
    F, E, dth = np.zeros(p), np.zeros((p, U.size)), np.zeros(p)
    for i, md in enumerate(mode):
        j, r = off[i], 3 * i
        if md == STICK:
            F[j:j + 3] = U[i]
            E[j:j + 3, r:r + 3] = np.eye(3)
        elif md in (NORMAL, SLIDE):
            F[j], E[j, r] = U[i, 0], 1.0
        if md == SLIDE:
            c, s = np.cos(theta[i]), np.sin(theta[i])
            F[j + 1] = U[i, 1] * s - U[i, 2] * c
            E[j + 1, r + 1], E[j + 1, r + 2] = s, -c
            dth[j + 1] = U[i, 1] * c + U[i, 2] * s
    return F, E, dth


def _forces(L, mu, mode, theta, x, off):
    """The forces (k, 3) of the unknowns x."""
    L = L.copy()
    for i, md in enumerate(mode):
        j = off[i]
        if md == SEPARATED:
            L[i] = 0.0
        elif md == STICK:
            L[i] = x[j:j + 3]
        elif md == NORMAL:
            L[i] = (x[j], 0.0, 0.0)
        else:
            L[i] = (x[j], mu[i] * x[j] * np.cos(x[j + 1]), mu[i] * x[j] * np.sin(x[j + 1]))
    return L


def _unknowns(L, mode, theta, off):
    x = np.zeros(off[-1])
    for i, md in enumerate(mode):
        j = off[i]
        if md == STICK:
            x[j:j + 3] = L[i]
        elif md == NORMAL:
            x[j] = L[i, 0]
        elif md == SLIDE:
            x[j], x[j + 1] = L[i, 0], theta[i]
    return x


def newton(G, b, mu, L, mode, theta, tol):
    """Forces (k, 3) solving the equations of the modes from L (Newton, at most ``NEWTON``
    steps, until the equations are within tol / 100); theta is updated in place."""
    off = _offsets(mode)
    x = _unknowns(L, mode, theta, off)
    L = _forces(L, mu, mode, theta, x, off)          # on the modes' forces (a slide: on the cone)
    for _ in range(NEWTON):
        U = (G @ L.ravel() + b).reshape(-1, 3)
        F, E, dth = _equations(U, mode, theta, off)
        if not F.size or np.abs(F).max() <= 0.01 * tol:
            break
        A = E @ G @ _force_columns(L, mu, mode, theta, off) + np.diag(dth)
        A += EPS * max(np.abs(np.diag(A)).max(), 1e-300) * np.eye(F.size)
        x = x - np.linalg.solve(A, F)
        for i in np.nonzero(mode == SLIDE)[0]:
            theta[i] = x[off[i] + 1]
        L = _forces(L, mu, mode, theta, x, off)
    return L


def correct(L, U, mu, mode, theta, tol):
    """Change the modes that the forces L and velocities U contradict; True when one changed."""
    changed = False
    for i in range(mode.size):
        n, t1, t2 = L[i]
        md = mode[i]
        if md != SEPARATED and n < 0.0:
            mode[i] = SEPARATED
        elif md == SEPARATED and U[i, 0] < -tol:
            mode[i] = NORMAL if mu[i] == 0.0 else STICK
        elif md == STICK and np.hypot(t1, t2) > mu[i] * n:
            mode[i], theta[i] = SLIDE, np.arctan2(t2, t1)
        elif md == SLIDE and U[i, 1] * np.cos(theta[i]) + U[i, 2] * np.sin(theta[i]) > tol:
            mode[i] = STICK
        else:
            continue
        changed = True
    return changed


def polish(G, b, mu, lam, tol, residuals, converged):
    """(lam (3k,), u, residuals) solving the problem from the modes of ``lam``, or None when the
    modes' equations do not give a solution within tol. ``residuals(L, U, mu)`` and
    ``converged(res, tol)`` are the solver's own."""
    L = lam.reshape(-1, 3)
    mode, theta = modes(L, mu)
    with np.errstate(all="ignore"):                  # a non-finite result is refused below
        return _rounds(G, b, mu, L, mode, theta, tol, residuals, converged)


def _rounds(G, b, mu, L, mode, theta, tol, residuals, converged):
    for _ in range(ROUNDS):
        L = newton(G, b, mu, L, mode, theta, tol)
        U = (G @ L.ravel() + b).reshape(-1, 3)
        if not (np.all(np.isfinite(L)) and np.all(np.isfinite(U))):
            return None
        res = residuals(L, U, mu)
        if converged(res, tol):
            return L.ravel(), U.ravel(), res
        if not correct(L, U, mu, mode, theta, tol):
            return None
    return None
