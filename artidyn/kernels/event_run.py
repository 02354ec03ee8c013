"""The compiled event-driven contact run: smooth phases, located events and impacts, the whole run
in one call. Mirrors :class:`artidyn.contact.event_driven.EventDriven` (see its docstring for the
laws: Pfeiffer & Glocker, "Multibody Dynamics with Unilateral Contacts", ch. 7) and the sampling
loop of :func:`artidyn.sim.contact_run.simulate_contact`, step for step:

    advance    from one grid time to the next: an RKMK4 step with the phase of its start; an impact
               (a gap closing) or a stick (a sliding contact's tangential velocity reversing) found
               at its end is located by bisection, Newton's law applied there, and the step
               restarted; the contacts that stayed closed are settled (drift to zero)
    sample     at each grid time, the smooth problem: accelerations, forces, modes

:func:`run` returns a code (:mod:`.event_smooth`'s); FALLBACK (a pair the compiled narrow phase
hands on) and EVENTS_FULL (more events than the log holds) send the caller back to the readable
route or to a larger log.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .event_laws import impact, settle, stick
from .event_rows import BAD, contacts_at, frame_of, identify, identities
from .event_smooth import (EVT, FALLBACK, GAP, JL, MAXEV, MU, NONFINITE, OK, SLIDE, TOO_MANY, VEL,
                           active_limits, dynamics, rk4, tau_at)
from .spatial import all_finite


@nb.njit
def phase_sets(X, q, v):
    """(code, CL, ncl, SL, nsl, LD, LSD, nl): the contacts closed at (q, v) (u_n <= vel_tol), those
    sliding (|u_n| <= 1e-6, |u_t| > slide_tol; with friction) and the closed joint limits."""
    B, SH, PL, HULL, PAIRS, LIM, SZ, TAU, FEXT, PR, opts, cap = X
    k, CC, CI, J, U, LOC, WSH = contacts_at(B, SH, PL, HULL, PAIRS, cap, q, v, PR[GAP])
    n = max(k, 1)
    CL, SL = np.zeros((n, 7)), np.zeros((n, 7))
    ncl = nsl = 0
    if k == BAD:
        return FALLBACK, CL, 0, SL, 0, np.zeros(1, np.int64), np.zeros(1), 0
    for c in range(k):
        if U[c, 0] <= PR[VEL]:
            identities(1, CI[c:], U[c:], LOC[c:], CL[ncl:], False)
            ncl += 1
        if PR[MU] > 0 and abs(U[c, 0]) <= 1e-6 and math.hypot(U[c, 1], U[c, 2]) > PR[SLIDE]:
            identities(1, CI[c:], U[c:], LOC[c:], SL[nsl:], True)
            nsl += 1
    nl, LD, LSD, _ = active_limits(X, q, v, PR[GAP], PR[VEL])
    return OK, CL, ncl, SL, nsl, LD, LSD, nl if PR[JL] > 0 else 0


@nb.njit
def gap(X, q, v, margin, CL, ncl, LD, LSD, nl):
    """(code, g): the smallest gap of the approaching contacts not closed at the step's start, and of
    the approached joint limits not closed then; +inf when none."""
    B, SH, PL, HULL, PAIRS, LIM, SZ, TAU, FEXT, PR, opts, cap = X
    k, CC, CI, J, U, LOC, WSH = contacts_at(B, SH, PL, HULL, PAIRS, cap, q, v, margin)
    if k == BAD:
        return FALLBACK, 0.0
    g = np.inf
    for c in range(k):
        if U[c, 0] < -PR[VEL] and identify(CL, ncl, CI[c, 2], CI[c, 3], LOC[c, 0], LOC[c, 1], LOC[c, 2]) < 0:
            g = min(g, CC[c, 0])
    if PR[JL] > 0:
        n, D, S, G = active_limits(X, q, v, np.inf, -PR[VEL])
        for i in range(n):
            closed = False
            for j in range(nl):
                closed = closed or (LD[j] == D[i] and LSD[j] == S[i])
            if not closed:
                g = min(g, G[i])
    return OK, g


@nb.njit
def reversal(X, SL, nsl, q, v):
    """(code, r): the smallest u_t(now) . u_t(start) / |u_t(start)|^2 over the contacts sliding at
    the start (SL), found again by identity; +inf when none slid."""
    B, SH, PL, HULL, PAIRS, LIM, SZ, TAU, FEXT, PR, opts, cap = X
    if nsl == 0:
        return OK, np.inf
    k, CC, CI, J, U, LOC, WSH = contacts_at(B, SH, PL, HULL, PAIRS, cap, q, v, 1e-3)
    if k == BAD:
        return FALLBACK, 0.0
    now = np.zeros((max(k, 1), 7))
    identities(k, CI, U, LOC, now, True)
    out = np.inf
    for e in range(nsl):
        o = identify(now, k, int(SL[e, 0]), int(SL[e, 1]), SL[e, 2], SL[e, 3], SL[e, 4])
        if o >= 0:
            out = min(out, (now[o, 5] * SL[e, 5] + now[o, 6] * SL[e, 6]) / (SL[e, 5] ** 2 + SL[e, 6] ** 2))
    return OK, out


@nb.njit
def crossed(X, q, v, margin, P):
    """(code, the step crossed an event): a gap below -gap_tol or a sliding contact reversed."""
    CL, ncl, SL, nsl, LD, LSD, nl = P
    code, g = gap(X, q, v, margin, CL, ncl, LD, LSD, nl)
    if code != OK:
        return code, False
    if g < -X[9][GAP]:
        return OK, True
    code, r = reversal(X, SL, nsl, q, v)
    return code, r <= 0.0


@nb.njit
def locate(X, t, q, v, h, margin, P):
    """(code, s, q(s), v(s)): the smallest s in (0, h] where the step crosses, bisected to event_tol."""
    CL, ncl, SL, nsl, LD, LSD, nl = P
    lo, hi = 0.0, h
    code, qh, vh = rk4(X, t, q, v, h, CL, ncl, SL, nsl, LD, LSD, nl)
    while code == OK and hi - lo > X[9][EVT]:
        mid = 0.5 * (lo + hi)
        code, qm, vm = rk4(X, t, q, v, mid, CL, ncl, SL, nsl, LD, LSD, nl)
        if code != OK:
            break
        code, cr = crossed(X, qm, vm, margin, P)
        if cr:
            hi, qh, vh = mid, qm, vm
        else:
            lo = mid
    return code, hi, qh, vh


@nb.njit
def advance(X, t, q, v, t_end, EV, nev, sample):
    """Integrate from t to t_end, every event on the way handled: (code, q, v, nev, t)."""
    PR = X[9]
    n_events = 0
    while t_end - t > 1e-15:
        h = t_end - t
        vmax = 0.0
        for j in range(v.shape[0]):
            vmax = max(vmax, abs(v[j]))
        margin = PR[GAP] + 2.0 * h * (1.0 + vmax) + 0.05
        code, CL, ncl, SL, nsl, LD, LSD, nl = phase_sets(X, q, v)
        if code != OK:
            return code, q, v, nev, t
        P = (CL, ncl, SL, nsl, LD, LSD, nl)
        code, q1, v1 = rk4(X, t, q, v, h, CL, ncl, SL, nsl, LD, LSD, nl)
        if code != OK:
            return code, q, v, nev, t
        code, cr = crossed(X, q1, v1, margin, P)
        if code != OK:
            return code, q, v, nev, t
        if not cr:
            code, q, v = settle(X, q1, v1, CL, ncl, LD, LSD, nl)
            return code, q, v, nev, t_end
        code, s, qe, ve = locate(X, t, q, v, h, margin, P)
        if code != OK:
            return code, q, v, nev, t
        t = t + s
        code, g = gap(X, qe, ve, margin, CL, ncl, LD, LSD, nl)
        hit = g <= PR[GAP]
        rev = False
        if code == OK and nsl > 0:
            code, r = reversal(X, SL, nsl, qe, ve)
            rev = r <= 0.0
        if code == OK and rev:
            code, ve, nev = stick(X, t, qe, ve, SL, nsl, EV, nev, sample)
        if code == OK:
            code, qe, ve = settle(X, qe, ve, CL, ncl, LD, LSD, nl)
        if code == OK and hit:
            code, ve, nev = impact(X, t, qe, ve, EV, nev, sample)
        if code != OK:
            return code, qe, ve, nev, t
        q, v = qe, ve
        n_events += 1
        if n_events > PR[MAXEV]:
            return TOO_MANY, q, v, nev, t_end
        if not (all_finite(q) and all_finite(v)):
            return NONFINITE, q, v, nev, t
    return OK, q, v, nev, t


@nb.njit(cache=True)
def run(B, SH, PL, HV, HN, FO, FI, AO, AN, PAIRS, LIM, SZ, TAU, FEXT, PR, opts, cap, T, q0, v0, OQ, OV, OA, OTAU,
        OFF, CRI, CRF, LOFF, LR, SST, SRES, EV, info):
    """The event-driven run over the grid T from (q0, v0): the samples OQ, OV, OA, OTAU; each
    sample's contacts (OFF[k] .. OFF[k + 1] in CRI: body a, body b, mode (0 frictionless, 1 stick,
    2 slide); CRF: force (3, contact frame), frame (9, row-major, columns n, t1, t2), point a (3))
    and joint limits (LOFF, LR: dof, side, force), the smooth problem's status and residual; the
    event log EV. HV .. AN: the packed convex hulls (:mod:`.gjk`). info <- (code, events logged, the
    sample reached); returns the time reached."""
    HULL = (HV, HN, FO, FI, AO, AN)
    X = (B, SH, PL, HULL, PAIRS, LIM, SZ, TAU, FEXT, PR, opts, cap)
    q, v = q0.copy(), v0.copy()
    nev, nc, nlr = 0, 0, 0
    OFF[0] = LOFF[0] = 0
    info[0], info[1], info[2] = OK, 0, 0
    t_now = T[0]
    FREE = np.bool_(False)          # not a literal: a literal argument is a compile of its own
    for k in range(T.shape[0]):
        info[2] = k
        code, CL, ncl, SL, nsl, LD, LSD, nl = phase_sets(X, q, v)
        if code != OK:
            info[0], info[1] = code, nev
            return T[k]
        code, kc, sel, lam, modes, st, residual, CC, CI = dynamics(X, T[k], q, v, CL, ncl, SL, nsl, FREE, LD, LSD,
                                                                   nl, OA[k])
        if code != OK:
            info[0], info[1] = code, nev
            return T[k]
        OQ[k], OV[k], OTAU[k] = q, v, tau_at(X, T[k])
        for i in range(kc):
            c = sel[i]
            CRI[nc, 0], CRI[nc, 1], CRI[nc, 2] = CI[c, 0], CI[c, 1], modes[i]
            F = frame_of(CC, c)
            for r in range(3):
                CRF[nc, r] = lam[3 * i + r]
                CRF[nc, 12 + r] = CC[c, 4 + r]
                for j in range(3):
                    CRF[nc, 3 + 3 * r + j] = F[r, j]
            nc += 1
        for j in range(nl):
            LR[nlr, 0], LR[nlr, 1], LR[nlr, 2] = LD[j], LSD[j], lam[3 * (kc + j)]
            nlr += 1
        OFF[k + 1], LOFF[k + 1] = nc, nlr
        SST[k], SRES[k] = st, residual
        if k == T.shape[0] - 1:
            break
        code, q, v, nev, t_now = advance(X, T[k], q, v, T[k + 1], EV, nev, k)
        if code != OK:
            info[0], info[1] = code, nev
            return t_now
    info[1] = nev
    return t_now
