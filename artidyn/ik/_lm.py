"""Compiled Levenberg-Marquardt loop of the numeric inverse geometric model (numba).

One *attempt* iterates from one start (:mod:`artidyn.ik._batch` runs the attempts of a batch of
targets). See :mod:`artidyn.ik._kernels` for the error, the Jacobian and the step.

An attempt ends with one of the codes of :mod:`artidyn.ik._kernels`:
``CONVERGED`` (|e| <= tol on the returned q), ``UNREACHABLE`` (a stationary point of the error
with a full-rank Jacobian and a non-zero residual: no descent direction exists),
``SINGULAR`` (a stationary point where the Jacobian loses rank), ``LIMITS`` (stationary once the
joints resting on their limits are held there: the error would decrease only past a limit) or
``MAX_ITER``.
"""
import numpy as np
from numba import njit

from ..kernels import _cache  # noqa: F401  (one cache stamp over every compiled module)

from ._kernels import (CONVERGED, LIMITS, MAX_ITER, SINGULAR, UNREACHABLE, chol_solve, copy_into, fk_jac,
                       integrate_chain, local_jacobian, task_error)

STATIONARY_RTOL = 1e-7  # |projected gradient| <= this * |W^1/2 J|_F |W^1/2 e|: stationary
RANK_RTOL = 1e-6  # sigma_min / sigma_max below this: rank-deficient Jacobian
SECONDARY_TOL = 1e-6  # the null-space step is done when its largest entry is below this
STALL_WINDOW, STALL_DECREASE = 10, 0.1  # an attempt stops when E drops less than this in a window


@njit(cache=True)
def _energy(e, w):
    E = 0.0
    n2 = 0.0
    for i in range(6):
        E += 0.5 * w[i] * e[i] * e[i]
        if w[i] > 0:
            n2 += e[i] * e[i]
    return E, np.sqrt(n2)


@njit(cache=True)
def _normal_equations(J, w, e, H, g):
    """H = J^T W J, g = J^T W e; returns |W^1/2 J|_F."""
    n = J.shape[1]
    fro = 0.0
    for a in range(n):
        s = 0.0
        for i in range(6):
            s += J[i, a] * w[i] * e[i]
            fro += w[i] * J[i, a] * J[i, a]
        g[a] = s
        for b in range(a, n):
            s = 0.0
            for i in range(6):
                s += J[i, a] * w[i] * J[i, b]
            H[a, b] = s
            H[b, a] = s
    return np.sqrt(fro)


@njit(cache=True)
def _blocked(q, g, vq, lo, hi, blk):
    """Joints resting on a limit that the gradient pushes outwards (frozen for the step)."""
    nb = 0
    for j in range(g.shape[0]):
        blk[j] = False
        k = vq[j]
        if k < 0:
            continue
        if (q[k] <= lo[k] + 1e-12 * (1 + abs(lo[k])) and g[j] < 0) or \
                (q[k] >= hi[k] - 1e-12 * (1 + abs(hi[k])) and g[j] > 0):
            blk[j] = True
            nb += 1
    return nb


@njit(cache=True)
def _classify(J, w, g, blk, fro, enorm_w):
    """Kind of stationary point: LIMITS, SINGULAR or UNREACHABLE (see module docstring)."""
    n = J.shape[1]
    for j in range(n):
        if blk[j] and abs(g[j]) > STATIONARY_RTOL * fro * enorm_w:
            return LIMITS
    rows = 0
    for i in range(6):
        if w[i] > 0:
            rows += 1
    free = 0
    for j in range(n):
        if not blk[j]:
            free += 1
    if free == 0:
        return LIMITS
    A = np.zeros((rows, free))
    r = 0
    for i in range(6):
        if w[i] > 0:
            c = 0
            for j in range(n):
                if not blk[j]:
                    A[r, c] = np.sqrt(w[i]) * J[i, j]
                    c += 1
            r += 1
    k = min(free, rows)
    G = np.zeros((k, k))  # A^T A or A A^T, whichever is smaller
    for a in range(k):
        for b in range(k):
            s = 0.0
            if free <= rows:
                for i in range(rows):
                    s += A[i, a] * A[i, b]
            else:
                for i in range(free):
                    s += A[a, i] * A[b, i]
            G[a, b] = s
    lo, hi = sym_eig_range(G)
    if lo <= RANK_RTOL * RANK_RTOL * hi:
        return SINGULAR
    return UNREACHABLE


@njit(cache=True)
def sym_eig_range(G):
    """(smallest, largest) eigenvalue of a small symmetric matrix (cyclic Jacobi; G is overwritten)."""
    n = G.shape[0]
    for sweep in range(50):
        off = 0.0
        for p in range(n):
            for r in range(p + 1, n):
                off += G[p, r] * G[p, r]
        if off <= 1e-30 * (1.0 + G[0, 0] * G[0, 0]):
            break
        for p in range(n):
            for r in range(p + 1, n):
                if G[p, r] == 0.0:
                    continue
                theta = (G[r, r] - G[p, p]) / (2.0 * G[p, r])
                t = (1.0 if theta >= 0 else -1.0) / (abs(theta) + np.sqrt(theta * theta + 1.0))
                c = 1.0 / np.sqrt(t * t + 1.0)
                s = t * c
                for k in range(n):  # G <- G J (columns p, r)
                    gp, gr = G[k, p], G[k, r]
                    G[k, p], G[k, r] = c * gp - s * gr, s * gp + c * gr
                for k in range(n):  # G <- J^T G (rows p, r)
                    gp, gr = G[p, k], G[r, k]
                    G[p, k], G[r, k] = c * gp - s * gr, s * gp + c * gr
    lo, hi = G[0, 0], G[0, 0]
    for p in range(n):
        lo, hi = min(lo, G[p, p]), max(hi, G[p, p])
    return lo, hi


@njit(cache=True)
def _secondary(q, vq, q_ref, w_ref, w_lim, lo, hi, z, D):
    """Newton step z = -D^-1 grad h towards the minimum of the secondary objective
    h = w_ref/2 |q - q_ref|^2 + w_lim/2 sum((q - mid)/half)^2, with D = diag(hess h) (1 where 0)."""
    for j in range(z.shape[0]):
        z[j] = 0.0
        D[j] = 1.0
        k = vq[j]
        if k < 0:
            continue
        grad = w_ref * (q[k] - q_ref[k])
        hess = w_ref
        if w_lim > 0 and np.isfinite(lo[k]) and np.isfinite(hi[k]) and hi[k] > lo[k]:
            half = 0.5 * (hi[k] - lo[k])
            grad += w_lim * (q[k] - 0.5 * (hi[k] + lo[k])) / (half * half)
            hess += w_lim / (half * half)
        if hess > 0:
            z[j] = -grad / hess
            D[j] = hess


@njit(cache=True)
def _nullspace_step(q, z, D, H, vq, lo, hi, blk, A, L, b, dz):
    """Null-space step dz = (I - (H + lam D)^-1 H) z on the joints free to move, and its length.

    Projected in the metric D of the objective's Hessian, so that its fixed points are the
    constrained optima (grad h in range(J^T)). A joint that the step pushes against a limit it
    rests on is held (removed, step recomputed); returns (max |dz|, alpha) with alpha <= 1 the
    fraction of dz that keeps every joint within its limits (and |alpha dz| <= 0.2).
    """
    n = z.shape[0]
    lam = 1e-10
    for a in range(n):
        lam += 1e-10 * H[a, a]
        blk[a] = False
    for _ in range(n + 1):
        for a in range(n):
            for c in range(n):
                A[a, c] = 0.0 if (blk[a] or blk[c]) else H[a, c]
            A[a, a] = 1.0 if blk[a] else H[a, a] + lam * D[a]
            b[a] = 0.0
            if not blk[a]:
                for c in range(n):
                    if not blk[c]:
                        b[a] += H[a, c] * z[c]
        chol_solve(A, b, dz, L)
        size = 0.0
        for j in range(n):
            dz[j] = 0.0 if blk[j] else z[j] - dz[j]
            size = max(size, abs(dz[j]))
        alpha = 1.0 if size <= 0.2 else 0.2 / size
        held = False
        for j in range(n):
            k = vq[j]
            if k < 0 or dz[j] == 0.0:
                continue
            room = (hi[k] - q[k]) if dz[j] > 0 else (q[k] - lo[k])
            if room <= 1e-12 * (1 + abs(q[k])):
                blk[j] = True
                held = True
            else:
                alpha = min(alpha, room / abs(dz[j]))
        if not held:
            return size, alpha
    return 0.0, 0.0


@njit(cache=True)
def attempt(q, Tt, mode, w, jtype, axis, X, iq, iv, vq, tool, lo, hi, tol, max_iter,
            q_ref, w_ref, w_lim):
    """Levenberg-Marquardt from q (modified in place). Returns (code, iterations)."""
    nj = jtype.shape[0]
    n = vq.shape[0]
    Tf, Tf2 = np.empty((4, 4)), np.empty((4, 4))
    Jw, Jw2, J = np.empty((6, n)), np.empty((6, n)), np.empty((6, n))
    Rs, ps = np.empty((nj + 1, 3, 3)), np.empty((nj + 1, 3))
    e, e2 = np.empty(6), np.empty(6)
    H, A, L = np.empty((n, n)), np.empty((n, n)), np.empty((n, n))
    g, gb, dq, z, dz, D = np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    blk = np.zeros(n, dtype=np.bool_)
    q2 = np.empty_like(q)
    sec = w_ref > 0 or w_lim > 0
    sec_budget = max_iter // 2

    fk_jac(q, jtype, axis, X, iq, iv, tool, Tf, Jw, Rs, ps, True)
    task_error(Tf, Tt, mode, e)
    E, enorm = _energy(e, w)
    mu = -1.0
    nu = 2.0
    E_window = E
    for it in range(max_iter):
        if enorm <= tol and not sec:
            return CONVERGED, it
        local_jacobian(Tf, Jw, J)
        fro = _normal_equations(J, w, e, H, g)
        nblk = _blocked(q, g, vq, lo, hi, blk)
        gp = 0.0
        for j in range(n):
            if not blk[j]:
                gp += g[j] * g[j]
        gp = np.sqrt(gp)
        if enorm > tol and gp <= STATIONARY_RTOL * fro * np.sqrt(2 * E):
            return _classify(J, w, g, blk, fro, np.sqrt(2 * E)), it
        if mu < 0:
            dmax = 0.0
            for j in range(n):
                dmax = max(dmax, H[j, j])
            mu = 1e-3 * dmax + 1e-12
        if enorm > tol:
            # (H + mu I) dq = g on the free joints; blocked joints get dq = 0
            for a in range(n):
                for b in range(n):
                    A[a, b] = 0.0 if (blk[a] or blk[b]) else H[a, b]
                A[a, a] = 1.0 if blk[a] else H[a, a] + mu
                gb[a] = 0.0 if blk[a] else g[a]
            chol_solve(A, gb, dq, L)
            integrate_chain(q, dq, jtype, iq, iv, lo, hi, q2)
            fk_jac(q2, jtype, axis, X, iq, iv, tool, Tf2, Jw2, Rs, ps, True)
            task_error(Tf2, Tt, mode, e2)
            E2, enorm2 = _energy(e2, w)
            pred = 0.0
            for j in range(n):
                pred += 0.5 * dq[j] * (mu * dq[j] + gb[j])
            rho = (E - E2) / pred if pred > 0 else -1.0
            if rho > 0 and E2 < E:
                copy_into(q, q2)
                copy_into(Tf, Tf2)
                copy_into(Jw, Jw2)
                copy_into(e, e2)
                E, enorm = E2, enorm2
                mu *= max(1.0 / 3.0, 1.0 - (2.0 * rho - 1.0) ** 3)
                nu = 2.0
            else:
                mu *= nu
                nu *= 2.0
                if mu > 1e16 * (1.0 + H[0, 0]):
                    return _classify(J, w, g, blk, fro, np.sqrt(2 * E)), it + 1
        if sec:
            # null-space step towards the secondary objective, projected in the metric D of its
            # Hessian (so that its fixed points are the constrained optima, grad h in range(J^T)):
            # dz = (I - (H + lam D)^-1 H) z
            _secondary(q, vq, q_ref, w_ref, w_lim, lo, hi, z, D)
            local_jacobian(Tf, Jw, J)
            _normal_equations(J, w, e, H, g)
            size, alpha = _nullspace_step(q, z, D, H, vq, lo, hi, blk, A, L, gb, dz)
            sec_budget -= 1
            if (size < SECONDARY_TOL and enorm < 1e-6) or sec_budget <= 0:
                sec = False
            elif size > 0 and alpha > 0:
                for j in range(n):
                    dz[j] *= alpha
                integrate_chain(q, dz, jtype, iq, iv, lo, hi, q2)
                copy_into(q, q2)
                fk_jac(q, jtype, axis, X, iq, iv, tool, Tf, Jw, Rs, ps, True)
                task_error(Tf, Tt, mode, e)
                E, enorm = _energy(e, w)
                mu = max(mu, 1e-12)
        elif (it + 1) % STALL_WINDOW == 0:
            # stalled: less than STALL_DECREASE over the window, far from the target
            if E > (1 - STALL_DECREASE) * E_window and enorm > 1e3 * tol:
                return MAX_ITER, it + 1
            E_window = E
    if enorm <= tol and not sec:
        return CONVERGED, max_iter
    return MAX_ITER, max_iter
