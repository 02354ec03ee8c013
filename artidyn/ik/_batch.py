"""Compiled batch driver of the numeric inverse geometric model (numba, ``cache=True``).

:func:`solve_many` loops over the targets of a batch (a compiled loop, no Python loop over
targets) and, for each, runs :func:`artidyn.ik._lm.attempt` from the given start, then from
random postures, until one converges. The chain comes packed in two arrays (``ci``, ``cf``, see
:func:`artidyn.ik.chain.pack`) to keep the call cheap.
"""
import numpy as np
from numba import njit

from ..kernels import _cache  # noqa: F401  (one cache stamp over every compiled module)

from ._kernels import CONVERGED, MAX_ITER, REACH, copy_into, fk_jac, task_error
from ._lm import _energy, attempt


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
def wrap_into_limits(q, jtype, iq, lo, hi, wrap):
    """Move revolute angles by multiples of 2 pi into [lo, hi] (continuous joints into (-pi, pi]),
    then clip what is still outside; True when nothing had to be clipped."""
    inside = True
    for k in range(jtype.shape[0]):
        o = iq[k]
        if jtype[k] == 0:
            if wrap[o]:
                q[o] = q[o] - 2 * np.pi * np.ceil((q[o] - np.pi) / (2 * np.pi))
            elif q[o] < lo[o]:
                q[o] += 2 * np.pi * np.ceil((lo[o] - q[o]) / (2 * np.pi))
            elif q[o] > hi[o]:
                q[o] -= 2 * np.pi * np.ceil((q[o] - hi[o]) / (2 * np.pi))
        if jtype[k] <= 1 and (q[o] < lo[o] or q[o] > hi[o]):
            q[o] = min(max(q[o], lo[o]), hi[o])
            inside = False
    return inside


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
    nolo, nohi = np.full(nq, -np.inf), np.full(nq, np.inf)
    lo, hi = (lo0, hi0) if pi[5] != 0 else (nolo, nohi)
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
        copy_into(out_q[k], Q0[k0])
        for i in range(nq):
            qs[i] = Q0[k0, q_index[i]]
        out_i[k, 0], out_i[k, 1], out_i[k, 2] = MAX_ITER, 0, 0
        if reach[3] >= 0 and pos_w:
            d = np.sqrt((Tt[k, 0, 3] - reach[0]) ** 2 + (Tt[k, 1, 3] - reach[1]) ** 2 + (Tt[k, 2, 3] - reach[2]) ** 2)
            if d > reach[3] * (1 + 1e-9) + 1e-12:
                out_i[k, 0] = REACH
                fk_jac(qs, jtype, axis, X, iq, iv, tool, Tf, Jw, Rs, ps, False)
                perr, rerr = task_error(Tf, Tt[k], mode, e)
                out_e[k, 0] = perr if pos_w else 0.0
                out_e[k, 1] = rerr if rot_w else 0.0
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
            # every other random attempt iterates without limits (it may pass through a
            # forbidden region), then its revolute angles are moved by 2 pi into the limits
            free = pi[5] != 0 and a % 2 == 1
            code, its = attempt(q, Tt[k], mode, w, jtype, axis, X, iq, iv, vq, tool,
                                nolo if free else lo, nohi if free else hi, tol, max_iter, Qref[kr], w_ref, w_lim)
            total += its
            if not wrap_into_limits(q, jtype, iq, lo, hi, wrap) and free:
                # converged (or stopped) outside the limits: go on from the clipped posture
                code, its = attempt(q, Tt[k], mode, w, jtype, axis, X, iq, iv, vq, tool, lo, hi, tol,
                                    max_iter, Qref[kr], w_ref, w_lim)
                total += its
                wrap_into_limits(q, jtype, iq, lo, hi, wrap)
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
    for k in range(Qc.shape[0]):
        fk_jac(Qc[k], jtype, axis, X, iq, iv, tool, out_T[k], out_J[k], Rs, ps, True)
