"""The contact step's solve with the Delassus matrix held: the step solved on the Delassus matrix
W of the last step that formed it, with the step's own velocities evaluated through the rows.

A robot standing on its feet keeps its contacts' modes from step to step: the same contacts
stick, and the same one slides along its cone's edge. When one slides, the warm start (the
previous step's impulses) does not solve the step to the tolerance, and the dense route forms
W (O(m^2 nv); with bilateral rows, its Schur complement too) only for the polish
(:mod:`.contact_polish`) to find the same modes again. Here the polish runs without forming W:
the modes guessed from the warm start, their equations ``F(x) = 0``
(:func:`.contact_polish.equations`: a stick's u = 0, a slide's u_n = 0 and u_t on its force's
line) solved by Newton's method, the modes the result contradicts changed, with

- F evaluated exactly, through the rows (``u = Y Y^T P + b``, the bilateral rows' impulses
  eliminated: :func:`.contact_warm.through_rows`), O(m nv) an iteration;
- Newton's matrix formed on W_0, the matrix the dense route last solved (a chord method in W:
  Ortega & Rheinboldt, "Iterative Solution of Nonlinear Equations in Several Variables",
  sec. 7.1), on the iterate's own modes, angles and normal forces, so a slide's angle, ill
  determined when it barely slides, converges as in the polish.

W moves little in a step, so each iteration still divides F by about a thousand. The result is
kept only when the problem's residuals are within the tolerance, the same test as the warm
start's and the polish's; else the dense route runs, from the warm start, and leaves its W here.
A problem of fewer than 6 contacts and limits without bilateral rows forms its own W: it costs
less there than this polish's evaluations (:func:`worth`).

CH (:func:`scratch`): W_0, Newton's matrix and its interchanges, the modes and angles, the
unknowns' offsets, x, F, the theta-derivatives, the forces' derivatives (3, n), the keys of the
contacts and limits of W_0's rows, the warm start's copy, meta: [formed, W_0's contacts and
limits], the places of the step's contacts and limits among W_0's, and W_0 on them.
"""
import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .contact_polish import (NEWTON, ROUNDS, advance, correct, equations, forces, lu_solve, matrix, modes, offsets,
                             unknowns)
from .contact_warm import through_rows

M_FORMED, M_ROWS = 0, 1
FROM_ROWS = 18                # from 6 contacts and limits, or with bilateral rows: below, without them, forming
                              # W (solo12 on its four feet: 12 x 12) costs less than this polish's evaluations


@nb.njit(_nrt=False)
def worth(mc, mb):
    """True when a problem of mc rows of contacts and limits and mb bilateral rows is solved here
    first (and its W held for the next steps) rather than on its own W."""
    return mb > 0 or mc >= FROM_ROWS


@nb.njit
def scratch(n):
    """CH for problems of up to n rows of contacts and limits (n // 3 of them)."""
    k = n // 3
    return (np.zeros((n, n)), np.zeros((n, n)), np.zeros(n, np.int64), np.zeros(k, np.int64), np.zeros(k),
            np.zeros(k + 1, np.int64), np.zeros(n), np.zeros(n), np.zeros(n), np.zeros((3, n)), np.zeros(k, np.int64),
            np.zeros(n), np.zeros(2, np.int64), np.zeros(k, np.int64), np.zeros((n, n)))


@nb.njit(_nrt=False)
def form(G, CH, CI, na, ldof, lside, nl):
    """CH's W_0 <- G (mc x mc: W, or its Schur complement when bilateral rows were eliminated, as
    the dense route solved it), its rows' keys those of these contacts and limits (:func:`matches`)."""
    W0, meta = CH[0], CH[12]
    mc = G.shape[0]
    meta[M_FORMED] = 0
    if mc > W0.shape[0]:             # (more rows than room: no W_0, the keys' room too small alike)
        return
    for i in range(mc):
        for j in range(mc):
            W0[i, j] = G[i, j]
    meta[M_FORMED] = 1
    matches(CH, CI, na, ldof, lside, nl, True)


@nb.njit(_nrt=False)
def matches(CH, CI, na, ldof, lside, nl, store):
    """True when W_0 has a row of each of these contacts (keys CI[:, 2]) and limits (dof, side):
    then CH's idx <- their rows' places in W_0 (W on a subset of W_0's rows is W_0's entries on
    them, and so is the Schur complement: a limit that let go, a corner that lifted, keep it).
    ``store``: record them as W_0's rows (after :func:`form`) and return True."""
    keys, meta, idx = CH[10], CH[12], CH[13]
    if na + nl > keys.shape[0] or not (store or meta[M_FORMED] == 1):
        return False
    n0 = meta[M_ROWS]
    for c in range(na + nl):          # a limit's key: negative, apart from the contacts'
        key = CI[c, 2] if c < na else -1 - 2 * ldof[c - na] - (1 if lside[c - na] > 0 else 0)
        if store:
            keys[c] = key
            continue
        j = c if c < n0 and keys[c] == key else -1         # the same order, mostly
        if j < 0:
            for i in range(n0):
                if keys[i] == key:
                    j = i
                    break
        if j < 0:
            return False
        idx[c] = j
    if store:
        meta[M_ROWS] = na + nl
    return True


@nb.njit(_nrt=False)
def solve(Y, JR, span, b, mu, tol, lam, t, u, res, Gb, dropped, CH):
    """lam (the warm start, projected; its last mb = len(Gb) rows bilateral) <- the step's
    solution by the polish on W_0 with the velocities through the rows, u (in: the warm start's,
    from :func:`.contact_warm.warm_solves`) and res its velocities and residuals; True when they
    are within tol. Else lam is the warm start again, for the dense route."""
    W0, A, piv, mode, theta, off, x, F, dth, D, keys, L0, meta, idx, Gk = CH
    k = mu.shape[0]
    mc = 3 * k
    G = Gk[:mc, :mc]
    for i in range(k):                # W_0 on the rows of this step's contacts and limits
        for j in range(k):
            for a in range(3):
                for c in range(3):
                    G[3 * i + a, 3 * j + c] = W0[3 * idx[i] + a, 3 * idx[j] + c]
    md, th, of = mode[:k], theta[:k], off[:k + 1]
    for r in range(mc):
        L0[r] = lam[r]
    modes(lam, mu, md, th)
    solved = False
    for rnd in range(ROUNDS):
        p = offsets(md, of)
        unknowns(lam, md, th, of, x)
        forces(lam, mu, md, th, x, of)
        moved, top = 0.0, 0.0
        for r in range(mc):
            moved, top = max(moved, abs(lam[r] - L0[r])), max(top, abs(L0[r]))
        known = rnd == 0 and moved <= 1e-13 * top     # u: the warm test's, at the same forces to round-off
        last = np.inf
        for _ in range(NEWTON):
            if known:
                known = False
            elif through_rows(Y, JR, span, b, mu, tol, lam, t, u, res, Gb, dropped):
                return True
            fmax = equations(u, md, th, of, F, dth)
            if not fmax < 0.5 * last:         # not converging (or NaN): the dense route
                break
            last = fmax
            if fmax <= 0.01 * tol:            # solved on modes that the residuals reject
                solved = True
                break
            matrix(G, mu, lam, md, th, of, dth, D, A)
            if not lu_solve(A[:p, :p], F[:p], piv):
                break
            advance(lam, mu, md, th, of, x, F)
        if not (solved and correct(lam, u, mu, md, th, tol)):
            break
        solved = False
    for r in range(mc):
        lam[r] = L0[r]
    return False


@nb.njit(_nrt=False)
def predict(mu, lam, u, ub, CH, w):
    """w <- the change of the warm start that the next step's problem calls for, after this step
    solved on W_0 (:func:`solve`, its gathered W_0 in CH) with forces lam and velocities u, ub the
    velocities before the step (J v_k). The next step's ``b`` is this one's plus ``u - ub`` (its
    free velocities start from v_k+1, not v_k), so at lam its velocities are ``2 u - ub``: one
    Newton step of this step's modes from there. The impulse that stopped the velocities ub (a
    landing, or the drift the tolerance let through) is taken out of the warm start, where reused
    as is it would set the bodies moving again, and the scene back at rest would take this polish
    every other step. Zero where Newton's matrix is singular."""
    W0, A, piv, mode, theta, off, x, F, dth, D, keys, L0, meta, idx, Gk = CH
    k = mu.shape[0]
    mc = 3 * k
    for r in range(mc):
        w[r] = 0.0
    md, th, of = mode[:k], theta[:k], off[:k + 1]
    modes(lam, mu, md, th)
    p = offsets(md, of)
    if p == 0:
        return
    for r in range(mc):
        L0[r] = 2.0 * u[r] - ub[r]
    unknowns(lam, md, th, of, x)
    equations(L0, md, th, of, F, dth)
    matrix(Gk[:mc, :mc], mu, lam, md, th, of, dth, D, A)
    if not lu_solve(A[:p, :p], F[:p], piv):
        return
    for r in range(mc):
        L0[r] = lam[r]
    advance(L0, mu, md, th, of, x, F)
    for r in range(mc):
        w[r] = L0[r] - lam[r]
