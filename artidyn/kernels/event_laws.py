"""The laws applied at the events of the compiled event-driven run (:mod:`.event_run`): Newton's
impact law with Coulomb friction in one impulse problem, the stick of a contact whose sliding
reversed, and the settling of the contacts that stayed closed. Mirror ``EventDriven.impact``,
``stick`` and ``settle`` of :mod:`artidyn.contact.event_driven`.

The event log EV (cap, 5): time, kind (IMPACT, LIMIT, STICK), body a (or the dof), body b (or the
side: +1 lower, -1 upper), the sample after which it happened.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .contact_admm import NOT_PSD as ADMM_NOT_PSD
from .contact_admm import solve as admm_solve
from .crba import crba_state
from .dense import cholesky
from .event_rows import BAD, contacts_at, identify
from .event_smooth import (E, EVENTS_FULL, FALLBACK, GAP, LE, MAXIT, MU, NOT_PSD, OK, SINGULAR, SLIDE, TOL, VEL,
                           ZENO, active_limits, minv_rows, times)
from .manifold import integrate_q
from .spatial import load_q

IMPACT, LIMIT, STICK = 0, 1, 2


@nb.njit
def mass_factor(B, q, nv):
    """(ok, L): the Cholesky factor of M(q)."""
    M = np.zeros((nv, nv))
    if not load_q(B, q):
        return False, M
    crba_state(B, M)
    return cholesky(M, nv, 0.0), M


@nb.njit
def correction(L, Jr, rhs):
    """M^-1 Jr^T x, x the least-squares solution of (Jr M^-1 Jr^T) x = rhs (rcond 1e-12): unique
    whichever solution x is taken when the rows are dependent (a face on its corners)."""
    m = Jr.shape[0]
    MJ = minv_rows(L, Jr, m)
    x = np.linalg.lstsq(times(Jr, MJ), rhs, rcond=1e-12)[0]
    out = np.zeros(L.shape[0])
    for j in range(L.shape[0]):
        s = 0.0
        for r in range(m):
            s += MJ[j, r] * x[r]
        out[j] = s
    return out


@nb.njit
def log_event(EV, nev, t, kind, a, b, sample):
    """Append an event; False when the log is full."""
    if nev >= EV.shape[0]:
        return False
    EV[nev, 0], EV[nev, 1], EV[nev, 2], EV[nev, 3], EV[nev, 4] = t, kind, a, b, sample
    return True


@nb.njit
def impact(X, t, q, v, EV, nev, sample):
    """Newton's law with Coulomb friction on the closed contacts that approach and on the joint
    limits reached (frictionless, the limit restitution), one impulse problem: (code, v+, nev)."""
    B, SH, PL, HULL, PAIRS, LIM, SZ, TAU, FEXT, PR, opts, cap = X
    nv = v.shape[0]
    near = 10 * PR[GAP]
    k0, CC, CI, J0, U, LOC, WSH = contacts_at(B, SH, PL, HULL, PAIRS, cap, q, v, near)
    if k0 == BAD:
        return FALLBACK, v.copy(), nev
    nl, D, S, Gl = active_limits(X, q, v, near, np.inf)
    any_act = False
    for c in range(k0):
        any_act = any_act or U[c, 0] < -PR[VEL]
    for j in range(nl):
        any_act = any_act or S[j] * v[D[j]] < -PR[VEL]
    if not any_act:
        return OK, v.copy(), nev
    closed = np.zeros(k0, np.int64)
    k = 0
    for c in range(k0):
        if CC[c, 0] <= near:
            closed[k] = c
            k += 1
    m = 3 * (k + nl)
    J, un = np.zeros((m, nv)), np.zeros(k + nl)
    for i in range(k):
        c = closed[i]
        un[i] = U[c, 0]
        for r in range(3):
            for j in range(nv):
                J[3 * i + r, j] = J0[3 * c + r, j]
    for j in range(nl):
        J[3 * (k + j), D[j]] = S[j]
        un[k + j] = S[j] * v[D[j]]
    ok, L = mass_factor(B, q, nv)
    if not ok:
        return SINGULAR, v.copy(), nev
    MJ = minv_rows(L, J, m)
    W = times(J, MJ)
    speed = 0.0
    for i in range(k + nl):
        speed = max(speed, -un[i])
    plastic = speed < PR[ZENO]
    b, mus = np.zeros(m), np.zeros(k + nl)
    for r in range(m):
        x = 0.0
        for j in range(nv):
            x += J[r, j] * v[j]
        b[r] = x
    for i in range(k + nl):
        e = 0.0 if plastic else (PR[E] if i < k else PR[LE])
        b[3 * i] += e * min(un[i], 0.0)
        mus[i] = PR[MU] if i < k else 0.0
    lam = np.zeros(m)
    st, _, _ = admm_solve(W, b, mus, PR[TOL], int(PR[MAXIT]), lam)
    if st == ADMM_NOT_PSD:
        return NOT_PSD, v.copy(), nev
    out = v.copy()
    for j in range(nv):
        x = 0.0
        for r in range(m):
            x += MJ[j, r] * lam[r]
        out[j] = v[j] + x
    for i in range(k):
        c = closed[i]
        if U[c, 0] < -PR[VEL]:
            if not log_event(EV, nev, t, IMPACT, CI[c, 0], CI[c, 1], sample):
                return EVENTS_FULL, out, nev
            nev += 1
    for j in range(nl):
        if un[k + j] < -PR[VEL]:
            if not log_event(EV, nev, t, LIMIT, D[j], S[j], sample):
                return EVENTS_FULL, out, nev
            nev += 1
    return OK, out, nev


@nb.njit
def stick(X, t, q, v, SL, nsl, EV, nev, sample):
    """The tangential velocity of the contacts that stopped sliding set to zero (mass-weighted):
    (code, v, nev)."""
    B, SH, PL, HULL, PAIRS, LIM, SZ, TAU, FEXT, PR, opts, cap = X
    nv = v.shape[0]
    k, CC, CI, J, U, LOC, WSH = contacts_at(B, SH, PL, HULL, PAIRS, cap, q, v, PR[GAP])
    if k == BAD:
        return FALLBACK, v.copy(), nev
    rows = np.zeros(2 * max(k, 1), np.int64)
    n = 0
    for c in range(k):
        e = identify(SL, nsl, CI[c, 2], CI[c, 3], LOC[c, 0], LOC[c, 1], LOC[c, 2])
        if e >= 0 and U[c, 1] * SL[e, 5] + U[c, 2] * SL[e, 6] <= 0.05 * (SL[e, 5] * SL[e, 5] + SL[e, 6] * SL[e, 6]):
            rows[n], rows[n + 1] = 3 * c + 1, 3 * c + 2
            n += 2
            if not log_event(EV, nev, t, STICK, CI[c, 0], CI[c, 1], sample):
                return EVENTS_FULL, v.copy(), nev
            nev += 1
    if n == 0:
        return OK, v.copy(), nev
    Jr, rhs = np.zeros((n, nv)), np.zeros(n)
    for i in range(n):
        for j in range(nv):
            Jr[i, j] = J[rows[i], j]
            rhs[i] += Jr[i, j] * v[j]
    ok, L = mass_factor(B, q, nv)
    if not ok:
        return SINGULAR, v.copy(), nev
    return OK, v - correction(L, Jr, rhs), nev


@nb.njit
def settle(X, q, v, CL, ncl, LD, LSD, nl):
    """The drift of the contacts (and joint limits) that stayed closed over the step closed: gaps to
    zero, then the normal velocities (and the tangential ones of sticking contacts) unless opening:
    (code, q, v)."""
    B, SH, PL, HULL, PAIRS, LIM, SZ, TAU, FEXT, PR, opts, cap = X
    nv = v.shape[0]
    if ncl == 0 and nl == 0:
        return OK, q.copy(), v.copy()
    vmax = 0.0
    for j in range(nv):
        vmax = max(vmax, abs(v[j]))
    slow = 1e-3 * (1.0 + vmax)
    na, D, S, Gl = active_limits(X, q, v, 1e-3, slow)
    lim = np.zeros(max(na, 1), np.int64)
    nlim = 0
    for i in range(na):
        for j in range(nl):
            if LD[j] == D[i] and LSD[j] == S[i]:
                lim[nlim] = i
                nlim += 1
                break
    k, CC, CI, J, U, LOC, WSH = contacts_at(B, SH, PL, HULL, PAIRS, cap, q, v, 1e-3)
    if k == BAD:
        return FALLBACK, q.copy(), v.copy()
    rows = np.zeros(max(k, 1), np.int64)
    nr = 0
    for c in range(k):
        if identify(CL, ncl, CI[c, 2], CI[c, 3], LOC[c, 0], LOC[c, 1], LOC[c, 2]) >= 0 and U[c, 0] <= slow:
            rows[nr] = c
            nr += 1
    if nr == 0 and nlim == 0:
        return OK, q.copy(), v.copy()
    Jn, g = np.zeros((nr + nlim, nv)), np.zeros(nr + nlim)
    for i in range(nr):
        g[i] = CC[rows[i], 0]
        for j in range(nv):
            Jn[i, j] = J[3 * rows[i], j]
    for i in range(nlim):
        Jn[nr + i, D[lim[i]]] = S[lim[i]]
        g[nr + i] = Gl[lim[i]]
    ok, L = mass_factor(B, q, nv)
    if not ok:
        return SINGULAR, q.copy(), v.copy()
    dq = -correction(L, Jn, g)
    q2 = np.zeros(q.shape[0])
    integrate_q(B, q, dq, 1.0, q2)
    sel = np.zeros(3 * max(nr, 1), np.int64)
    ns = 0
    for i in range(nr):
        sel[ns] = 3 * rows[i]
        ns += 1
    for i in range(nr):
        c = rows[i]
        if PR[MU] > 0 and math.hypot(U[c, 1], U[c, 2]) <= PR[SLIDE]:
            sel[ns], sel[ns + 1] = 3 * c + 1, 3 * c + 2
            ns += 2
    Js, rhs = np.zeros((ns + nlim, nv)), np.zeros(ns + nlim)
    for i in range(ns):
        for j in range(nv):
            Js[i, j] = J[sel[i], j]
    for i in range(nlim):
        Js[ns + i, D[lim[i]]] = S[lim[i]]
    for i in range(ns + nlim):
        for j in range(nv):
            rhs[i] += Js[i, j] * v[j]
    ok, L = mass_factor(B, q2, nv)
    if not ok:
        return SINGULAR, q2, v.copy()
    return OK, q2, v - correction(L, Js, rhs)
