"""The contact problem's stick modes solved in the dofs' space: the polishing step of a scene with
many contacts (a pile of bodies), without the Delassus matrix.

With ``Y = D^-1/2 U^-1 J^T`` (the rows of :func:`.constrained.y_rows`, M = U D U^T) the velocities
of the contacts are ``u = G y + b = Y g``, ``g = Y^T y + t0`` (nv), ``t0 = D^1/2 U^T v_free``
(without restitution, ``b = J v_free = Y t0``). When every contact sticks (or, without friction,
keeps its normal row), the modes' equations are linear, ``u_A = Y_A g = 0`` on the active rows A,
and Newton's step of :mod:`.contact_polish` solves ``(Y_A Y_A^T + s I) x = Y_A g``. Its solution is

    x = Y_A h,   (Y_A^T Y_A + s I) h = g          (push Y_A through: Y_A (Y_A^T Y_A + s I) = (G_AA + s I) Y_A)

an nv x nv system in place of a 3k x 3k one. ``H = Y_A^T Y_A + s I`` is sparse: a row of Y is
nonzero only on the dofs of its two bodies and their ancestors, so H couples two joints only when
a contact's support holds both. H is factored by blocks (one block per joint with dofs), in the
order of least degree (the minimum degree ordering of George & Liu, "Computer Solution of Large
Sparse Positive Definite Systems", 1981, ch. 5), which leaves a pile's column of boxes or a robot's
tree without fill. Each solve removes the velocities along the active rows but a factor
``s / (lambda + s)`` of each of G_AA's eigenvalues lambda: the step is repeated (iterative
refinement on the same factor) until ``|u_A| <= tol / 100``. The forces keep the starting
iterate's component in G_AA's null space (redundant contacts: how a box's weight is shared
between its four corners stays as the warm start had it).

The modes come from the starting iterate and are corrected as :func:`.contact_polish.correct`
does; a contact that slides, a restitution coefficient, a non-positive pivot or a result whose
residuals miss the tolerance return False, and the caller forms the Delassus matrix as before.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .contact_admm import converged, residuals
from .contact_polish import NEWTON, NORMAL, ROUNDS, SEPARATED, SLIDE, correct, modes
from .pack import IV, NVJ, PARENT

SHIFT = 1e-8          # s = SHIFT * (the largest diagonal entry of Y_A^T Y_A)


@nb.njit
def joint_nodes(B, node, parent, first, size):
    """Each body with dofs a node: node[i] (-1: none), and per node its parent node (the nearest
    ancestor with dofs; -1 at a root), first dof and count. Returns the number of nodes."""
    n = 0
    for i in range(B.shape[0]):
        node[i] = -1
        if i > 0 and int(B[i, NVJ]) > 0:
            node[i] = n
            first[n], size[n] = int(B[i, IV]), int(B[i, NVJ])
            p = int(B[i, PARENT])
            while p > 0 and node[p] < 0:
                p = int(B[p, PARENT])
            parent[n] = node[p] if p > 0 else -1
            n += 1
    return n


@nb.njit
def _chain(x, parent, out, n):
    """out[n:] <- the node x and its ancestors not already in out[:n]; returns the new n."""
    while x >= 0:
        seen = False
        for j in range(n):
            if out[j] == x:
                seen = True
                break
        if seen:
            break                   # the rest of the chain is there too
        out[n] = x
        n += 1
        x = parent[x]
    return n


@nb.njit
def supports(B, CI, na, ldof, nl, node, parent, dnode, SUP):
    """SUP[c] <- (count, nodes ...): the nodes contact c (c < na; then the limits) can touch."""
    for c in range(na + nl):
        n = 0
        if c < na:
            for s in range(2):
                body = CI[c, s]
                while body > 0 and node[body] < 0:
                    body = int(B[body, PARENT])
                if body > 0:
                    n = _chain(node[body], parent, SUP[c, 1:], n)
        else:
            n = _chain(dnode[ldof[c - na]], parent, SUP[c, 1:], 0)
        SUP[c, 0] = n


@nb.njit
def order(nn, SUP, active, pos, CP, CN):
    """The minimum degree order of the nodes on the graph of the active contacts' supports:
    pos[node] its place; CP (nn + 1), CN the nodes of each column of the factor (those joined to
    it when it is eliminated), in elimination order. Returns the order (node at each place)."""
    adj = np.zeros((nn, nn), np.bool_)
    for c in range(SUP.shape[0]):
        if not active[c]:
            continue
        n = SUP[c, 0]
        for i in range(n):
            for j in range(n):
                adj[SUP[c, 1 + i], SUP[c, 1 + j]] = True
    deg = np.zeros(nn, np.int64)
    for i in range(nn):
        adj[i, i] = False
        for j in range(nn):
            if adj[i, j]:
                deg[i] += 1
    done = np.zeros(nn, np.bool_)
    seq = np.empty(nn, np.int64)
    nbr = np.empty(nn, np.int64)
    CP[0] = 0
    for k in range(nn):
        p, best = -1, nn + 1
        for i in range(nn):
            if not done[i] and deg[i] < best:
                p, best = i, deg[i]
        done[p], seq[k], pos[p] = True, p, k
        n = 0
        for i in range(nn):
            if adj[p, i] and not done[i]:
                nbr[n] = i
                n += 1
        for a in range(n):                  # the neighbours become a clique; p leaves the graph
            i = nbr[a]
            adj[i, p] = adj[p, i] = False
            deg[i] -= 1
            CN[CP[k] + a] = i
            for b in range(a):
                j = nbr[b]
                if not adj[i, j]:
                    adj[i, j] = adj[j, i] = True
                    deg[i] += 1
                    deg[j] += 1
        CP[k + 1] = CP[k] + n
    return seq


@nb.njit
def layout(nn, seq, pos, size, CP, CN, BLK):
    """BLK[i, j] <- the offset of block (i, j) of the factor (pos[i] >= pos[j]: size[i] x size[j],
    row-major) in one flat array, -1 where the block is structurally zero; returns its length."""
    for i in range(nn):
        for j in range(nn):
            BLK[i, j] = -1
    off = 0
    for k in range(nn):
        p = seq[k]
        BLK[p, p] = off
        off += size[p] * size[p]
        for e in range(CP[k], CP[k + 1]):
            i = CN[e]
            BLK[i, p] = off
            off += size[i] * size[p]
    return off


@nb.njit
def assemble(Y, rows, nrows, SUP, row_contact, first, size, pos, BLK, s, L):
    """L <- the blocks of H = Y_A^T Y_A + s I (rows[:nrows] the active rows)."""
    L[:] = 0.0
    for r0 in range(nrows):
        r = rows[r0]
        c = row_contact[r]
        n = SUP[c, 0]
        for a in range(n):
            i = SUP[c, 1 + a]
            for b in range(n):
                j = SUP[c, 1 + b]
                if pos[i] < pos[j]:
                    continue
                o, fi, fj, sj = BLK[i, j], first[i], first[j], size[j]
                for x in range(size[i]):
                    yx = Y[r, fi + x]
                    if yx != 0.0:
                        for z in range(sj):
                            L[o + x * sj + z] += yx * Y[r, fj + z]
    for p in range(first.shape[0]):
        o, sp = BLK[p, p], size[p]
        for x in range(sp):
            L[o + x * sp + x] += s


@nb.njit
def factor(nn, seq, size, CP, CN, BLK, L):
    """L <- the block Cholesky factor of H in place (right-looking: each eliminated block column
    updates the blocks of its neighbours); False on a pivot that is not positive."""
    for k in range(nn):
        p = seq[k]
        o, sp = BLK[p, p], size[p]
        for j in range(sp):                 # the diagonal block's lower factor
            for i in range(j, sp):
                x = L[o + i * sp + j]
                for t in range(j):
                    x -= L[o + i * sp + t] * L[o + j * sp + t]
                if i == j:
                    if not x > 0.0:
                        return False
                    L[o + j * sp + j] = math.sqrt(x)
                else:
                    L[o + i * sp + j] = x / L[o + j * sp + j]
        for e in range(CP[k], CP[k + 1]):   # L_ip = H_ip L_pp^-T
            i = CN[e]
            oi, si = BLK[i, p], size[i]
            for r in range(si):
                for j in range(sp):
                    x = L[oi + r * sp + j]
                    for t in range(j):
                        x -= L[oi + r * sp + t] * L[o + j * sp + t]
                    L[oi + r * sp + j] = x / L[o + j * sp + j]
        for e in range(CP[k], CP[k + 1]):   # H_ij -= L_ip L_jp^T
            i = CN[e]
            oi, si = BLK[i, p], size[i]
            for f in range(CP[k], CP[k + 1]):
                j = CN[f]
                t0 = BLK[i, j]
                if t0 < 0:
                    continue                # (i, j) with pos[i] < pos[j]: the other orientation
                oj, sj = BLK[j, p], size[j]
                for r in range(si):
                    for c in range(sj):
                        x = 0.0
                        for t in range(sp):
                            x += L[oi + r * sp + t] * L[oj + c * sp + t]
                        L[t0 + r * sj + c] -= x
    return True


@nb.njit
def solve(nn, seq, first, size, CP, CN, BLK, L, x):
    """x <- H^-1 x with the factor of :func:`factor`."""
    for k in range(nn):                     # L z = x
        p = seq[k]
        o, sp, fp = BLK[p, p], size[p], first[p]
        for j in range(sp):
            v = x[fp + j]
            for t in range(j):
                v -= L[o + j * sp + t] * x[fp + t]
            x[fp + j] = v / L[o + j * sp + j]
        for e in range(CP[k], CP[k + 1]):
            i = CN[e]
            oi, si, fi = BLK[i, p], size[i], first[i]
            for r in range(si):
                v = 0.0
                for t in range(sp):
                    v += L[oi + r * sp + t] * x[fp + t]
                x[fi + r] -= v
    for k in range(nn - 1, -1, -1):         # L^T x = z
        p = seq[k]
        o, sp, fp = BLK[p, p], size[p], first[p]
        for e in range(CP[k], CP[k + 1]):
            i = CN[e]
            oi, si, fi = BLK[i, p], size[i], first[i]
            for t in range(sp):
                v = 0.0
                for r in range(si):
                    v += L[oi + r * sp + t] * x[fi + r]
                x[fp + t] -= v
        for j in range(sp - 1, -1, -1):
            v = x[fp + j]
            for t in range(j + 1, sp):
                v -= L[o + t * sp + j] * x[fp + t]
            x[fp + j] = v / L[o + j * sp + j]


@nb.njit
def rows_times(Y, SUP, row_contact, first, size, y, g):
    """g += Y^T y over each row's support."""
    for r in range(y.shape[0]):
        yr = y[r]
        if yr == 0.0:
            continue
        c = row_contact[r]
        for a in range(SUP[c, 0]):
            i = SUP[c, 1 + a]
            for x in range(first[i], first[i] + size[i]):
                g[x] += Y[r, x] * yr


@nb.njit
def row_dot(Y, r, SUP, row_contact, first, size, g):
    """Y[r] . g over the row's support."""
    c = row_contact[r]
    x = 0.0
    for a in range(SUP[c, 0]):
        i = SUP[c, 1 + a]
        for k in range(first[i], first[i] + size[i]):
            x += Y[r, k] * g[k]
    return x


@nb.njit
def times_rows(Y, SUP, row_contact, first, size, g, u):
    """u <- Y g over each row's support."""
    for r in range(u.shape[0]):
        u[r] = row_dot(Y, r, SUP, row_contact, first, size, g)


@nb.njit
def scaled_velocity(U, lam_dof, D, v, t0):
    """t0 <- D^1/2 U^T v: the velocity whose image by the rows is J v (``J_r v = Y_r . t0``)."""
    for k in range(v.shape[0]):
        x = v[k]
        i = lam_dof[k]
        while i >= 0:
            x += U[i, k] * v[i]
            i = lam_dof[i]
        t0[k] = math.sqrt(D[k]) * x


@nb.njit(_nrt=True)        # (explicit: the step, its caller, counts no references; this allocates)
def polish(B, CI, na, ldof, nl, U, lam_dof, D, vfree, Y, mu, tol, lam, res):
    """lam (3 (na + nl); in: the warm start, on the cones), res <- the forces solving the step's
    contact problem (``u = Y Y^T lam + b``, b = J v_free) when the stick modes of lam, corrected,
    solve it to ``tol`` in the dofs' space; True then, False (lam kept) otherwise."""
    k = na + nl
    m, nv = 3 * k, Y.shape[1]
    nb_ = B.shape[0]
    node, parent = np.empty(nb_, np.int64), np.empty(nb_, np.int64)
    first, size = np.empty(nb_, np.int64), np.empty(nb_, np.int64)
    nn = joint_nodes(B, node, parent, first, size)
    first, size, parent = first[:nn], size[:nn], parent[:nn]
    dnode = np.empty(nv, np.int64)
    for i in range(nn):
        for x in range(first[i], first[i] + size[i]):
            dnode[x] = i
    depth = 1
    for i in range(nn):
        d, p = 1, parent[i]
        while p >= 0:
            d, p = d + 1, parent[p]
        depth = max(depth, d)
    SUP = np.empty((k, 2 * depth + 1), np.int64)
    supports(B, CI, na, ldof, nl, node, parent, dnode, SUP)
    row_contact = np.empty(m, np.int64)
    for r in range(m):
        row_contact[r] = r // 3
    mode, theta = np.empty(k, np.int64), np.empty(k)
    y, u, g, t0, h = lam[:m].copy(), np.empty(m), np.empty(nv), np.empty(nv), np.empty(nv)
    modes(y, mu, mode, theta)
    scaled_velocity(U, lam_dof, D, vfree, t0)
    active, rows = np.empty(k, np.bool_), np.empty(m, np.int64)
    pos, seq = np.empty(nn, np.int64), np.empty(nn, np.int64)
    CP, BLK = np.empty(nn + 1, np.int64), np.empty((nn, nn), np.int64)
    CN = np.empty(nn * nn, np.int64)
    r6 = np.zeros(6)
    for _ in range(ROUNDS + 1):
        nrows = 0
        for c in range(k):
            if mode[c] == SLIDE:
                return False
            active[c] = mode[c] != SEPARATED
            if mode[c] == SEPARATED:
                y[3 * c] = y[3 * c + 1] = y[3 * c + 2] = 0.0
            elif mode[c] == NORMAL:
                rows[nrows] = 3 * c
                y[3 * c + 1] = y[3 * c + 2] = 0.0
                nrows += 1
            else:
                for j in range(3):
                    rows[nrows + j] = 3 * c + j
                nrows += 3
        seq[:] = order(nn, SUP[:k], active, pos, CP, CN)
        L = np.empty(layout(nn, seq, pos, size, CP, CN, BLK))
        top = 0.0
        for r0 in range(nrows):
            r = rows[r0]
            c = row_contact[r]
            for a in range(SUP[c, 0]):
                i = SUP[c, 1 + a]
                for x in range(first[i], first[i] + size[i]):
                    top = max(top, Y[r, x] * Y[r, x])
        assemble(Y, rows, nrows, SUP, row_contact, first, size, pos, BLK, SHIFT * max(top, 1e-300), L)
        if not factor(nn, seq, size, CP, CN, BLK, L):
            return False
        for _ in range(NEWTON):
            g[:] = t0
            rows_times(Y, SUP, row_contact, first, size, y, g)
            fmax = 0.0
            for r0 in range(nrows):                  # u_A = Y_A g
                fmax = max(fmax, abs(row_dot(Y, rows[r0], SUP, row_contact, first, size, g)))
            if nrows == 0 or fmax <= 0.01 * tol:
                break
            h[:] = g
            solve(nn, seq, first, size, CP, CN, BLK, L, h)
            for r0 in range(nrows):                  # y_A -= Y_A h
                y[rows[r0]] -= row_dot(Y, rows[r0], SUP, row_contact, first, size, h)
        g[:] = t0
        rows_times(Y, SUP, row_contact, first, size, y, g)
        times_rows(Y, SUP, row_contact, first, size, g, u)
        for r in range(m):
            if not (y[r] - y[r] == 0.0 and u[r] - u[r] == 0.0):
                return False
        residuals(y, u, mu, r6)
        if converged(r6, tol):
            lam[:m] = y
            res[:] = r6
            return True
        if not correct(y, u, mu, mode, theta, tol):
            return False
    return False
