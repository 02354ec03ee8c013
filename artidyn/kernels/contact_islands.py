"""The contact problem split into islands: contacts that share no moving body (nor an ancestor)
do not act on each other, so the Delassus matrix is block diagonal over the groups of contacts
linked through the trees they touch (the "simulation islands" of MuJoCo and Bullet). Each island
is solved alone by the ADMM of :mod:`.contact_admm`: 25 columns of cubes cost 25 small dense
problems rather than one 25 times larger (its factorisation costs the cube of its rows).
"""
import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .contact_admm import NOT_PSD, admm, converged, residuals
from .pack import IV, NVJ, PARENT
from .spatial import dot


@nb.njit
def _root(B, body):
    """The root body of body's tree (0: the world)."""
    while body > 0 and int(B[body, PARENT]) > 0:
        body = int(B[body, PARENT])
    return body


@nb.njit
def _find(up, x):
    while up[x] != x:
        up[x] = up[up[x]]
        x = up[x]
    return x


@nb.njit
def islands(B, CI, na, ldof, nl, isl):
    """isl[c] <- the island of contact c (c < na; then the limits), numbered from 0 in order of
    first appearance; returns their count. Two contacts share an island when a chain of
    contacts links their trees (the world links nothing)."""
    nb1 = B.shape[0]
    up = np.arange(nb1)
    tree = np.empty(na + nl, np.int64)
    for c in range(na + nl):
        if c < na:
            ra, rb = _root(B, CI[c, 0]), _root(B, CI[c, 1])
            if ra > 0 and rb > 0:
                up[_find(up, ra)] = _find(up, rb)
            tree[c] = ra if ra > 0 else rb
        else:
            for i in range(1, nb1):
                if B[i, IV] <= ldof[c - na] < B[i, IV] + B[i, NVJ]:
                    tree[c] = _root(B, i)
    label = np.full(nb1, -1, np.int64)
    n = 0
    for c in range(na + nl):
        r = _find(up, tree[c])
        if label[r] < 0:
            label[r] = n
            n += 1
        isl[c] = label[r]
    return n


@nb.njit(_nrt=True)        # (explicit: the step, its caller, counts no references; this allocates)
def solve(B, CI, na, ldof, nl, Y, span, b, mu, tol, max_iter, lam, u, Gbuf, res, info):
    """lam (3 (na + nl); in: the warm start, on the cones) <- the forces of ``u = Y Y^T lam + b``
    island by island (:func:`.contact_admm.admm` on each island's Delassus block, formed from its
    rows only; an island whose warm start already solves it, by its velocities u formed through
    the rows (:func:`.contact_warm.warm_solves`), is left as it is: a cube at rest beside the
    landing ones forms no block); res the largest residuals over the islands, info[0] the ADMM
    iterations summed.
    Returns the worst status (NOT_PSD first); -1 when the contacts form a single island (then
    nothing is done: the caller solves the whole problem)."""
    k = na + nl
    isl = np.empty(k, np.int64)
    n = islands(B, CI, na, ldof, nl, isl)
    if n < 2:
        return -1
    cnt = np.zeros(n + 1, np.int64)
    for c in range(k):
        cnt[isl[c] + 1] += 1
    for e in range(n):
        cnt[e + 1] += cnt[e]
    members = np.empty(k, np.int64)
    fill = cnt[:n].copy()
    for c in range(k):
        members[fill[isl[c]]] = c
        fill[isl[c]] += 1
    worst, total = 0, 0
    r6, it = np.zeros(6), np.zeros(1, np.int64)
    for r in range(6):
        res[r] = 0.0
    for e in range(n):
        ke = cnt[e + 1] - cnt[e]
        me = 3 * ke
        rows = np.empty(me, np.int64)
        for a in range(ke):
            c = members[cnt[e] + a]
            for j in range(3):
                rows[3 * a + j] = 3 * c + j
        be, ye, ue, mue = np.empty(me), np.empty(me), np.empty(me), np.empty(ke)
        for a in range(ke):
            mue[a] = mu[members[cnt[e] + a]]
        for a in range(me):
            ye[a], ue[a] = lam[rows[a]], u[rows[a]]
        residuals(ye, ue, mue, r6)
        if converged(r6, tol):        # admm's own first test, through the rows: no block to form
            for r in range(6):
                res[r] = max(res[r], r6[r])
            continue
        G = Gbuf[:me * me].reshape((me, me))
        for a in range(me):
            ra = rows[a]
            be[a] = b[ra]
            for d in range(a + 1):
                rd = rows[d]
                lo = max(span[ra, 0], span[rd, 0])
                x = dot(Y[ra, lo:], Y[rd, lo:], min(span[ra, 1], span[rd, 1]) - lo)
                G[a, d] = x
                G[d, a] = x
        status = admm(G, be, mue, tol, max_iter, ye, np.zeros((7, me)), r6, it)
        if status == NOT_PSD:
            return NOT_PSD
        worst, total = max(worst, status), total + it[0]
        for a in range(me):
            lam[rows[a]] = ye[a]
        for r in range(6):
            res[r] = max(res[r], r6[r])
    info[0] = total
    return worst
