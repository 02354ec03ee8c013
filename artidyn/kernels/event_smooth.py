"""The smooth phases of the compiled event-driven run (:mod:`.event_run`): the acceleration-level
contact problem of a phase and the classical Runge-Kutta step on the configuration manifold.
Mirrors :func:`artidyn.contact.dynamics.contact_dynamics` (with the phase's ``keep`` and ``slides``
filters of :class:`artidyn.contact.event_driven.EventDriven`) and :func:`artidyn.configuration.rkmk4`.

``X``, the run's constant inputs: (B, SH, PL, HULL, PAIRS, LIM, SZ, TAU, FEXT, PR, opts, cap): the
packed model, shapes and candidate pairs (:mod:`.contact_geometry`), the joint limits (dof, q index,
lower, upper), each shape's size (what tells its contact points apart), the torque table, the
external wrenches, the parameters PR (columns below), the RNEA options and the most contacts.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .constrained import crba_bias_state
from .contact_admm import NOT_PSD as ADMM_NOT_PSD
from .contact_admm import solve as admm_solve
from .crba import matrix_finite
from .dense import chol_solve, cholesky
from .event_lcp import with_sliding
from .event_rows import BAD, bias, contact_set, identify
from .manifold import dexp_inv_v, integrate_q
from .spatial import all_finite, load_q

# PR: friction, restitution, limit restitution, solver tol, max_iter, joint limits (0/1), the table's
# step, gap_tol, vel_tol, event_tol, zeno_velocity, slide_tol, the smooth margin, max events per interval
MU, E, LE, TOL, MAXIT, JL, DT, GAP, VEL, EVT, ZENO, SLIDE, SMOOTH, MAXEV = range(14)
OK, BAD_STATE, SINGULAR, NOT_PSD, FALLBACK, EVENTS_FULL, TOO_MANY, NONFINITE = 0, 1, 2, 4, 5, 6, 7, 8


@nb.njit
def tau_at(X, t):
    """The torques at t: a constant (one row) or the row of the table held over its step."""
    TAU, PR = X[7], X[9]
    if TAU.shape[0] == 1:
        return TAU[0].copy()
    return TAU[min(int(t / PR[DT] + 1e-9), TAU.shape[0] - 1)].copy()


@nb.njit
def minv_rows(L, J, m):
    """(nv, m): M^-1 J[:m]^T from the Cholesky factor L of M."""
    nv = L.shape[0]
    out = np.zeros((nv, m))
    x = np.zeros(nv)
    for r in range(m):
        for j in range(nv):
            x[j] = J[r, j]
        chol_solve(L, nv, x)
        for j in range(nv):
            out[j, r] = x[j]
    return out


@nb.njit
def times(A, X):
    """A @ X."""
    out = np.zeros((A.shape[0], X.shape[1]))
    for i in range(A.shape[0]):
        for j in range(X.shape[1]):
            s = 0.0
            for p in range(A.shape[1]):
                s += A[i, p] * X[p, j]
            out[i, j] = s
    return out


@nb.njit
def active_limits(X, q, v, margin, vel_tol):
    """(n, dof, side, gap) of the joint limits closed within ``margin`` and not opening (side v_dof <=
    vel_tol): side +1 at a lower limit, -1 at an upper one (lower before upper, row by row)."""
    LIM = X[5]
    n = 0
    D, S, G = np.zeros(2 * LIM.shape[0] + 1, np.int64), np.zeros(2 * LIM.shape[0] + 1), np.zeros(2 * LIM.shape[0] + 1)
    for r in range(LIM.shape[0]):
        kv, kq = int(LIM[r, 0]), int(LIM[r, 1])
        for side in (1.0, -1.0):
            gap = q[kq] - LIM[r, 2] if side > 0 else LIM[r, 3] - q[kq]
            if gap - gap == 0.0 and gap <= margin and side * v[kv] <= vel_tol:
                D[n], S[n], G[n] = kv, side, gap
                n += 1
    return n, D, S, G


@nb.njit
def dynamics(X, t, q, v, CL, ncl, SL, nsl, held, LD, LSD, nl, a):
    """a <- the accelerations of the phase at (t, q, v): the contacts within the smooth margin that
    are the phase's closed ones (CL[:ncl]), the limits LD, LSD [:nl]; ``held``: the contacts of the
    phase's sliding list SL[:nsl] slide in its direction, the others stick (else: sliding where
    |u_t| > vel_tol). Returns (code, k, sel (kept candidates), lam, modes, status, residual, CC, CI)."""
    B, SH, PL, HULL, PAIRS, LIM, SZ, TAU, FEXT, PR, opts, cap = X
    nv = v.shape[0]
    M, h = np.zeros((nv, nv)), np.zeros(nv)
    none = np.zeros(0, np.int64)
    if not load_q(B, q) or not all_finite(v):
        return BAD_STATE, 0, none, np.zeros(0), none, 0, 0.0, np.zeros((1, 10)), np.zeros((1, 4), np.int64)
    crba_bias_state(B, v, FEXT, opts, M, h)
    if not (matrix_finite(M) and all_finite(h)):
        return NONFINITE, 0, none, np.zeros(0), none, 0, 0.0, np.zeros((1, 10)), np.zeros((1, 4), np.int64)
    if not cholesky(M, nv, 0.0):
        return SINGULAR, 0, none, np.zeros(0), none, 0, 0.0, np.zeros((1, 10)), np.zeros((1, 4), np.int64)
    afree = tau_at(X, t) - h
    chol_solve(M, nv, afree)
    k0, CC, CI, J0, U0, LOC, WSH = contact_set(B, SH, PL, HULL, PAIRS, cap, v, PR[SMOOTH])
    if k0 == BAD:
        return FALLBACK, 0, none, np.zeros(0), none, 0, 0.0, CC, CI
    sel = np.zeros(max(k0, 1), np.int64)
    k = 0
    for c in range(k0):
        j = identify(CL, ncl, CI[c, 2], CI[c, 3], LOC[c, 0], LOC[c, 1], LOC[c, 2]) if ncl > 0 else -1
        if j >= 0 and math.sqrt((CL[j, 2] - LOC[c, 0]) ** 2 + (CL[j, 3] - LOC[c, 1]) ** 2 +
                                (CL[j, 4] - LOC[c, 2]) ** 2) < 0.5 * SZ[CI[c, 2]]:
            sel[k] = c
            k += 1
    sel = sel[:k]
    modes = np.zeros(k, np.int64)
    if k == 0 and nl == 0:
        for j in range(nv):
            a[j] = afree[j]
        return OK, 0, sel, np.zeros(0), modes, 0, 0.0, CC, CI
    m = 3 * (k + nl)
    J, bvec, u = np.zeros((m, nv)), np.zeros(m), np.zeros((k + nl, 3))
    bb = np.zeros(3)
    for i in range(k):
        c = sel[i]
        for r in range(3):
            u[i, r] = U0[c, r]
            for j in range(nv):
                J[3 * i + r, j] = J0[3 * c + r, j]
        bias(B, SH, CC, CI, WSH, c, bb)
        for r in range(3):
            bvec[3 * i + r] = bb[r]
    for l in range(nl):
        J[3 * (k + l), LD[l]] = LSD[l]
    for r in range(m):
        x = 0.0
        for j in range(nv):
            x += J[r, j] * afree[j]
        bvec[r] = x + bvec[r]
    MJ = minv_rows(M, J, m)
    G = times(J, MJ)
    mu = PR[MU]
    slide = np.zeros(k + nl, np.bool_)
    if held and mu > 0 and k > 0:
        for i in range(k):
            c = sel[i]
            j = identify(SL, nsl, CI[c, 2], CI[c, 3], LOC[c, 0], LOC[c, 1], LOC[c, 2])
            if j >= 0:
                slide[i] = True
                u[i, 1], u[i, 2] = SL[j, 5], SL[j, 6]
    else:
        for i in range(k + nl):
            slide[i] = mu > 0 and math.hypot(u[i, 1], u[i, 2]) > PR[VEL]
    for i in range(k):
        modes[i] = 0 if mu == 0 else (2 if slide[i] else 1)
    if not slide.any():
        mus = np.zeros(k + nl)
        mus[:k] = mu
        lam = np.zeros(m)
        st, _, res = admm_solve(G, bvec, mus, PR[TOL], int(PR[MAXIT]), lam)
        if st == ADMM_NOT_PSD:
            return NOT_PSD, k, sel, lam, modes, 0, 0.0, CC, CI
        residual = max(max(res[0], res[1]), max(max(res[2], res[3]), res[4]))
    else:
        lam, st, residual = with_sliding(G, bvec, mu, slide, u, PR[TOL], int(PR[MAXIT]))
    for j in range(nv):
        x = 0.0
        for r in range(m):
            x += MJ[j, r] * lam[r]
        a[j] = afree[j] + x
    return OK, k, sel, lam, modes, st, residual, CC, CI


@nb.njit
def rk4(X, t, q, v, h, CL, ncl, SL, nsl, LD, LSD, nl):
    """One RKMK4 step with the phase of the step's start: (code, q_next, v_next)."""
    B = X[0]
    nv = v.shape[0]
    k1v, k2v, k3v, k4v = np.zeros(nv), np.zeros(nv), np.zeros(nv), np.zeros(nv)
    k2x, k3x, k4x = np.zeros(nv), np.zeros(nv), np.zeros(nv)
    qs, q1 = np.zeros(q.shape[0]), np.zeros(q.shape[0])
    HELD = np.bool_(True)           # not a literal: a literal argument is a compile of its own
    code = dynamics(X, t, q, v, CL, ncl, SL, nsl, HELD, LD, LSD, nl, k1v)[0]
    if code != OK:
        return code, q1, v.copy()
    x2, v2 = 0.5 * h * v, v + 0.5 * h * k1v
    dexp_inv_v(B, x2, v2, k2x)
    integrate_q(B, q, x2, 1.0, qs)
    code = dynamics(X, t + 0.5 * h, qs, v2, CL, ncl, SL, nsl, HELD, LD, LSD, nl, k2v)[0]
    if code != OK:
        return code, q1, v.copy()
    x3, v3 = 0.5 * h * k2x, v + 0.5 * h * k2v
    dexp_inv_v(B, x3, v3, k3x)
    integrate_q(B, q, x3, 1.0, qs)
    code = dynamics(X, t + 0.5 * h, qs, v3, CL, ncl, SL, nsl, HELD, LD, LSD, nl, k3v)[0]
    if code != OK:
        return code, q1, v.copy()
    x4, v4 = h * k3x, v + h * k3v
    dexp_inv_v(B, x4, v4, k4x)
    integrate_q(B, q, x4, 1.0, qs)
    code = dynamics(X, t + h, qs, v4, CL, ncl, SL, nsl, HELD, LD, LSD, nl, k4v)[0]
    if code != OK:
        return code, q1, v.copy()
    integrate_q(B, q, h / 6 * (v + 2 * k2x + 2 * k3x + k4x), 1.0, q1)
    return OK, q1, v + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
