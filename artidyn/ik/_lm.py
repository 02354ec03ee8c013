"""Compiled Levenberg-Marquardt loop of the numeric inverse geometric model (numba).

One *attempt* iterates from one start; :func:`solve_many` runs, for every target of a batch
(a compiled loop, no Python loop over targets), attempts from ``Q0`` then from random postures
until one converges. See :mod:`artidyn.ik._kernels` for the error, the Jacobian and the step.

An attempt ends with one of the codes of :mod:`artidyn.ik._kernels`:
``CONVERGED`` (|e| <= tol on the returned q), ``UNREACHABLE`` (a stationary point of the error
with a full-rank Jacobian and a non-zero residual: no descent direction exists),
``SINGULAR`` (a stationary point where the Jacobian loses rank), ``LIMITS`` (stationary once the
joints resting on their limits are held there: the error would decrease only past a limit) or
``MAX_ITER``.
"""
import numpy as np
from numba import njit

from ._kernels import (CONVERGED, LIMITS, MAX_ITER, REACH, SINGULAR, UNREACHABLE, chol_solve,
                       fk_jac, integrate_chain, local_jacobian, task_error)

STATIONARY_RTOL = 1e-7  # |projected gradient| <= this * |W^1/2 J|_F |W^1/2 e|: stationary
RANK_RTOL = 1e-6  # sigma_min / sigma_max below this: rank-deficient Jacobian
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
    G = A.T @ A if free <= rows else A @ A.T
    ev = np.linalg.eigvalsh(G)
    if ev[0] <= RANK_RTOL * RANK_RTOL * ev[-1]:
        return SINGULAR
    return UNREACHABLE


@njit(cache=True)
def _secondary(q, vq, q_ref, w_ref, w_lim, lo, hi, z):
    """z = Newton step towards the minimum of h = w_ref/2 |q - q_ref|^2 + w_lim/2 sum((q - mid)/half)^2."""
    for j in range(z.shape[0]):
        z[j] = 0.0
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
    g, gb, dq, z, dz = np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n)
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
                q[:] = q2
                Tf[:, :] = Tf2
                Jw[:, :] = Jw2
                e[:] = e2
                E, enorm = E2, enorm2
                mu *= max(1.0 / 3.0, 1.0 - (2.0 * rho - 1.0) ** 3)
                nu = 2.0
            else:
                mu *= nu
                nu *= 2.0
                if mu > 1e16 * (1.0 + H[0, 0]):
                    return _classify(J, w, g, blk, fro, np.sqrt(2 * E)), it + 1
        if sec:
            # null-space step towards the secondary objective: dz = (I - (H + lam I)^-1 H) z
            _secondary(q, vq, q_ref, w_ref, w_lim, lo, hi, z)
            local_jacobian(Tf, Jw, J)
            _normal_equations(J, w, e, H, g)
            lam = 1e-10
            for a in range(n):
                lam += 1e-10 * H[a, a]
            for a in range(n):
                for b in range(n):
                    A[a, b] = H[a, b]
                A[a, a] += lam
                gb[a] = 0.0
                for b in range(n):
                    gb[a] += H[a, b] * z[b]
            chol_solve(A, gb, dz, L)
            size = 0.0
            for j in range(n):
                dz[j] = z[j] - dz[j]
                size = max(size, abs(dz[j]))
            sec_budget -= 1
            if (size < 1e-9 and enorm < 1e-6) or sec_budget <= 0:
                sec = False
            elif size > 0:
                scale = min(1.0, 0.2 / size)
                for j in range(n):
                    dz[j] *= scale
                integrate_chain(q, dz, jtype, iq, iv, lo, hi, q2)
                q[:] = q2
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


@njit(cache=True)
def random_start(q, q_seed, jtype, iq, rlo, rhi):
    """A random posture of the chain: 1-dof joints uniform in [rlo, rhi], uniform unit quaternions,
    a free joint's position within 1 m of the seed."""
    for k in range(jtype.shape[0]):
        t, o = jtype[k], iq[k]
        if t <= 1:
            q[o] = np.random.uniform(rlo[o], rhi[o])
            continue
        a = o if t == 2 else o + 3
        if t == 3:
            for i in range(3):
                q[o + i] = q_seed[o + i] + np.random.uniform(-1.0, 1.0)
        n = 0.0
        for i in range(4):
            q[a + i] = np.random.normal()
            n += q[a + i] ** 2
        for i in range(4):
            q[a + i] /= np.sqrt(n)


@njit(cache=True)
def unpack(ci, cf):
    """Views of the packed chain (see :func:`artidyn.ik.chain.pack`)."""
    nj, nq, nv = ci[0], ci[1], ci[2]
    o = 3
    jtype = ci[o:o + nj]
    iq = ci[o + nj:o + 2 * nj]
    iv = ci[o + 2 * nj:o + 3 * nj]
    o += 3 * nj
    vq = ci[o:o + nv]
    wrap = ci[o + nv:o + nv + nq]
    q_index = ci[o + nv + nq:o + nv + 2 * nq]
    axis = cf[0:3 * nj].reshape((nj, 3))
    o = 3 * nj
    X = cf[o:o + 16 * nj].reshape((nj, 4, 4))
    o += 16 * nj
    tool = cf[o:o + 16].reshape((4, 4))
    o += 16
    lo, hi, rlo, rhi = cf[o:o + nq], cf[o + nq:o + 2 * nq], cf[o + 2 * nq:o + 3 * nq], cf[o + 3 * nq:o + 4 * nq]
    o += 4 * nq
    reach = cf[o:o + 4]  # centre (3), radius (< 0: no bound)
    return jtype, iq, iv, vq, wrap, q_index, axis, X, tool, lo, hi, rlo, rhi, reach


@njit(cache=True)
def solve_many(Tt, Q0, Qref, ci, cf, pf, pi, out_q, out_i, out_e):
    """Solve every target Tt[k] (N, 4, 4) for the packed chain (ci, cf).

    pf = [tol, w_ref, w_lim, w (6)], pi = [mode, max_iter, n_attempts, seed, use_q0,
    respect_limits]. Q0 (N or 1, nq) full configurations (the other joints are copied to out_q),
    Qref (N or 1, nq_c). Target k: reach test (code REACH, no iteration), then attempts from Q0
    (if use_q0) and from random postures seeded by ``seed + k`` until one converges.
    out_i[k] = (code, iterations, attempts), out_e[k] = (position error, orientation error).
    """
    jtype, iq, iv, vq, wrap, q_index, axis, X, tool, lo0, hi0, rlo, rhi, reach = unpack(ci, cf)
    tol, w_ref, w_lim, w = pf[0], pf[1], pf[2], pf[3:9]
    mode, max_iter, n_attempts, seed, use_q0 = pi[0], pi[1], pi[2], pi[3], pi[4] != 0
    nq = q_index.shape[0]
    if pi[5] != 0:
        lo, hi = lo0, hi0
    else:
        lo, hi = np.full(nq, -np.inf), np.full(nq, np.inf)
    pos_w = w[3] > 0 or w[4] > 0 or w[5] > 0
    rot_w = w[0] > 0 or w[1] > 0 or w[2] > 0
    N = Tt.shape[0]
    nj = jtype.shape[0]
    n = vq.shape[0]
    q = np.empty(nq)
    qs = np.empty(nq)
    Tf = np.empty((4, 4))
    Jw = np.empty((6, n))
    Rs, ps = np.empty((nj + 1, 3, 3)), np.empty((nj + 1, 3))
    e = np.empty(6)
    for k in range(N):
        k0 = k if Q0.shape[0] > 1 else 0
        kr = k if Qref.shape[0] > 1 else 0
        out_q[k] = Q0[k0]
        for i in range(nq):
            qs[i] = Q0[k0, q_index[i]]
        out_i[k, 0], out_i[k, 1], out_i[k, 2] = MAX_ITER, 0, 0
        if reach[3] >= 0 and pos_w:
            d = np.sqrt((Tt[k, 0, 3] - reach[0]) ** 2 + (Tt[k, 1, 3] - reach[1]) ** 2 + (Tt[k, 2, 3] - reach[2]) ** 2)
            if d > reach[3] * (1 + 1e-9) + 1e-12:
                out_i[k, 0] = REACH
                fk_jac(qs, jtype, axis, X, iq, iv, tool, Tf, Jw, Rs, ps, False)
                perr, rerr = task_error(Tf, Tt[k], mode, e)
                out_e[k, 0], out_e[k, 1] = perr, rerr
                continue
        np.random.seed(seed + k)
        best = np.inf
        total = 0
        for a in range(n_attempts):
            if a == 0 and use_q0:
                for i in range(nq):
                    q[i] = min(max(qs[i], lo[i]), hi[i])
            else:
                random_start(q, qs, jtype, iq, rlo, rhi)
            code, its = attempt(q, Tt[k], mode, w, jtype, axis, X, iq, iv, vq, tool, lo, hi, tol,
                                max_iter, Qref[kr], w_ref, w_lim)
            total += its
            for i in range(nq):  # continuous joints back to (-pi, pi]
                if wrap[i]:
                    q[i] = q[i] - 2 * np.pi * np.ceil((q[i] - np.pi) / (2 * np.pi))
            fk_jac(q, jtype, axis, X, iq, iv, tool, Tf, Jw, Rs, ps, False)
            perr, rerr = task_error(Tf, Tt[k], mode, e)
            E, enorm = _energy(e, w)
            if code == CONVERGED and enorm > tol:
                code = MAX_ITER
            if code == CONVERGED or E < best:
                best = E
                for i in range(nq):
                    out_q[k, q_index[i]] = q[i]
                out_i[k, 0] = code
                out_e[k, 0] = perr if pos_w else 0.0
                out_e[k, 1] = rerr if rot_w else 0.0
            out_i[k, 2] = a + 1
            if code == CONVERGED:
                break
        out_i[k, 1] = total


@njit(cache=True)
def chain_fk_many(Qc, jtype, axis, X, iq, iv, tool, out):
    """Frame placements out (N, 4, 4) for chain configurations Qc (N, nq_c)."""
    nj = jtype.shape[0]
    Jw = np.empty((6, 1))
    Rs, ps = np.empty((nj + 1, 3, 3)), np.empty((nj + 1, 3))
    for k in range(Qc.shape[0]):
        fk_jac(Qc[k], jtype, axis, X, iq, iv, tool, out[k], Jw, Rs, ps, False)


@njit(cache=True)
def chain_fk_jac_many(Qc, jtype, axis, X, iq, iv, tool, nv, out_T, out_J):
    """Placements (N, 4, 4) and world-axes Jacobians (N, 6, nv_c) of the chain's frame."""
    nj = jtype.shape[0]
    Rs, ps = np.empty((nj + 1, 3, 3)), np.empty((nj + 1, 3))
    Jw = np.empty((6, nv))
    for k in range(Qc.shape[0]):
        fk_jac(Qc[k], jtype, axis, X, iq, iv, tool, out_T[k], Jw, Rs, ps, True)
        out_J[k] = Jw
