"""The contact step's solve without the Delassus matrix, when it can: the warm start tested
through the rows, and the bilateral rows (loops, mimic joints) eliminated from the cone problem.

With ``Y = D^-1/2 U^-1 J^T`` (:mod:`.constrained`), the step's velocities are ``u = Y Y^T P + b``.
:func:`warm_solves` forms them as ``t = Y^T P`` (on the rows' ranges), then ``u = Y t + b``: O(m nv)
for rows on a few bodies, where the Delassus matrix ``W = Y Y^T`` costs O(m^2 nv). The bilateral
rows are free (``u_b = 0``): their impulses follow from the contacts' by the Schur complement of
their block (Featherstone, "Rigid Body Dynamics Algorithms", sec. 8.1: the constraint forces of a
closed loop),

    P_b = -W_bb^-1 (b_b + W_bc P_c),

formed through the rows too in the warm test (``W_bc P_c = Y_b (Y_c^T P_c)``) and in the chord
steps of :mod:`.contact_chord`, and on W in :func:`bilateral_solve`, which then solves the cone
problem on ``W_cc - W_cb W_bb^-1 W_bc``.
"""
import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .constrained import cholesky, cholesky_solve, gram, solve_m
from .contact_admm import NOT_PSD, admm, converged, project_cones, residuals
from .contact_jacobian import generalized_forces, ranged_add, rows_velocity, twists
from .spatial import dot


@nb.njit(_nrt=False)
def without_rows(B, CC, CI, na, ldof, lside, nl, M, sub, D, b, mu, tol, lam, x, TW, u, res):
    """The warm test of :func:`warm_solves` before any row is formed, for contacts and limits (no
    bilateral rows): lam projected onto the cones, ``x = M^-1 J^T lam`` (J^T lam by the bodies'
    wrenches, :func:`.contact_jacobian.generalized_forces`; M factored), ``u = J x + b`` from the
    bodies' twists at x (TW[2]; TW[3] the wrenches). O(nb + contacts): a scene at rest forms
    neither J nor Y. True when the residuals (res) are within tol; then v_k+1 = v_free + x."""
    project_cones(lam, mu)
    generalized_forces(B, CC, CI, na, lam, TW[3], x)
    for l in range(nl):               # a limit's row: side e_dof
        x[ldof[l]] += lside[l] * lam[3 * (na + l)]
    solve_m(M, sub, D, x)
    twists(B, x, TW[2])
    rows_velocity(B, CC, CI, na, ldof, lside, nl, TW[2], x, u)
    for r in range(3 * (na + nl)):
        u[r] += b[r]
    residuals(lam, u, mu, res)
    return converged(res, tol)


@nb.njit(_nrt=False)
def warm_solves(Y, JR, span, b, mu, tol, lam, t, u, res, CN):
    """1 when the warm start lam (projected onto the cones here, as :func:`.contact_admm.admm`
    does first) solves the problem ``u = Y Y^T lam + b`` to ``tol`` (res: its residuals), u formed
    through the rows Y (:func:`through_rows`): O(m) for rows on a few bodies, where forming the
    Delassus matrix costs O(m^2) (a pile of 50 resting cubes: 200 contacts, 600 rows). The last mb
    rows are bilateral (CN: the constraints, their block's factor Gb and dropped rows): their
    impulses lam[mc:] are those the contacts' lam[:mc] call for, not the warm start's, and their
    block's factor is left in Gb for :func:`bilateral_solve` and :mod:`.contact_chord`. Returns 1
    (solved), 0 (not), -1 (the bilateral block is not finite: the step fails)."""
    m, mb = b.shape[0], CN[4].shape[0]
    project_cones(lam, mu)
    if mb > 0:
        gram(Y[m - mb:], span[m - mb:], CN[4])     # W_bb, each entry summed as the dense route sums it
        if cholesky(CN[4], np.bool_(False), CN[5]) < 0:
            return -1
    return 1 if through_rows(Y, JR, span, b, mu, tol, lam, t, u, res, CN[4], CN[5]) else 0


@nb.njit(_nrt=False)
def through_rows(Y, JR, span, b, mu, tol, lam, t, u, res, Gb, dropped):
    """u <- ``Y Y^T lam + b`` formed through the rows (``t = Y^T lam`` (nv) on their ranges JR,
    then ``u = Y t + b`` over their spans, summed as the dense route sums them: a solution at the
    tolerance passes or fails alike on both), the last mb = len(Gb) rows' impulses lam[mc:] first
    set to those the contacts' lam[:mc] call for (:func:`bilateral_impulses`; Gb: W_bb's factor);
    res <- the residuals, the bilateral rows' |u| in res[0]. True when they are within tol."""
    m, mb = b.shape[0], Gb.shape[0]
    mc = m - mb
    for k in range(t.shape[0]):
        t[k] = 0.0
    for r in range(mc):
        if lam[r] != 0.0:
            ranged_add(Y, r, JR, lam[r], t)
    if mb > 0:
        bilateral_impulses(Y, JR, span, b, lam, t, Gb, dropped)
    for r in range(m):                # (over the row's span, as the dense route sums it: the same bits)
        lo = span[r, 0]
        u[r] = b[r] + dot(Y[r, lo:], t[lo:], span[r, 1] - lo)
    residuals(lam, u, mu, res)
    for r in range(mc, m):
        res[0] = max(res[0], abs(u[r]))
    res[5] = max(res[5], res[0])
    return converged(res, tol)


@nb.njit(_nrt=False)
def bilateral_impulses(Y, JR, span, b, lam, t, Gb, dropped):
    """lam[mc:] <- the bilateral rows' impulses ``-W_bb^-1 (b_b + Y_b t)`` for t = Y_c^T lam_c, and
    t += Y_b^T lam_b (mb = Gb's rows, W_bb's factor; dependent rows dropped: zero impulse)."""
    m, mb = b.shape[0], Gb.shape[0]
    mc = m - mb
    for r in range(mb):
        r0, r1 = span[mc + r, 0], span[mc + r, 1]
        lam[mc + r] = -b[mc + r] - dot(Y[mc + r, r0:], t[r0:], r1 - r0)
    cholesky_solve(Gb, dropped, lam[mc:])
    for r in range(mb):
        if lam[mc + r] != 0.0:
            ranged_add(Y, mc + r, JR, lam[mc + r], t)


@nb.njit(_nrt=True)        # (explicit: the step, its caller, counts no references; this allocates)
def bilateral_solve(G, CN, Gr, Xb, b, mu, tol, maxit, lam, Wk, res, info):
    """The contacts' and limits' impulses lam[:mc] (mc = 3 len(mu)) and the bilateral rows'
    lam[mc:] for ``u = G lam + b`` with u = 0 on the bilateral rows: those are eliminated by the
    Schur complement of their block, ``P_b = -G_bb^-1 (b_b + G_bc P_c)``, the cone problem solved
    on ``G_cc - G_cb G_bb^-1 G_bc`` with ``b_c - G_cb G_bb^-1 b_b`` (dependent rows dropped: zero
    impulse; b_c is overwritten) by :func:`.contact_admm.admm` (Wk its scratch, info[0] its
    iterations). G: the rows' products with the contacts' rows (:func:`.constrained.bordered_gram`); G_bb's
    factor: in CN's Gb (:func:`warm_solves` left it). False when the solver fails (a matrix not
    positive semi-definite)."""
    Gb, dropped = CN[4], CN[5]
    mb = Gb.shape[0]
    mc = b.shape[0] - mb
    for j in range(mc + 1):           # columns of G_bc, then b_b: X = G_bb^-1 [G_bc, b_b]
        for r in range(mb):
            Xb[r, j] = G[mc + r, j] if j < mc else b[mc + r]
        cholesky_solve(Gb, dropped, Xb[:, j])
    Gc = Gr[:mc * mc].reshape((mc, mc))
    for i in range(mc):
        for j in range(mc):
            x = G[i, j]
            for r in range(mb):
                x -= G[i, mc + r] * Xb[r, j]
            Gc[i, j] = x
        x = b[i]
        for r in range(mb):
            x -= G[i, mc + r] * Xb[r, mc]
        b[i] = x
    info[0] = 0
    if mc > 0 and admm(Gc, b[:mc], mu, tol, maxit, lam[:mc], Wk, res, info) == NOT_PSD:
        return False
    for r in range(mb):
        x = -Xb[r, mc]
        for j in range(mc):
            x -= Xb[r, j] * lam[j]
        lam[mc + r] = 0.0 if dropped[r] else x
    return True
