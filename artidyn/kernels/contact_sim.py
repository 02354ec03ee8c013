"""Compiled Moreau-Jean time stepping with contacts, Coulomb friction and joint limits: a whole
run in one call. Mirrors :func:`artidyn.contact.moreau_jean.moreau_jean_step` (the readable
reference) step for step::

    v_free = v_k + h M^-1 (tau - h(q_k, v_k))
    active = { i : g_i + gamma h u_n,i <= 1e-9 }     (contacts within margin + gamma h reach)
    u = W P + b,  W = J M^-1 J^T,  b = J v_free + e u_n,k (normal rows)   -> P (ADMM, exact cone)
    v_k+1 = v_free + M^-1 J^T P,   q_k+1 = q_k (+) h (theta v_k+1 + (1 - theta) v_k)

M is factored along the tree (``U D U^T``, Featherstone, "Rigid Body Dynamics Algorithms",
sec. 6.5) and W built from ``Y = D^-1/2 U^-1 J^T`` as in :mod:`.constrained`. Contacts come from
the closed forms of :mod:`.contact_geometry` (cylinders and meshes: GJK/EPA and manifolds,
:mod:`.convex`); a pair those cannot settle (two boxes edge to edge, a capsule near a box) returns
``FALLBACK`` with the step's index, and the caller takes that step on
the reference route and resumes.

The contacts of every step are stored one after the other (``OFF[k]`` .. ``OFF[k + 1]``): bodies
and key (CI: body_a, body_b, key), CF (cap, 25): point_a (3), point_b (3), frame (9, row-major, columns n, t1,
t2), gap, impulse (3), u_after (3), u_before (3); the active joint limits likewise (LOFF; LI:
dof; LF: side, gap, impulse). A full buffer returns ``FULL``: the caller grows it and resumes.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .constrained import (add_jacobian, correction, delassus, dof_parents, solve_m, solve_ut, subtree_sizes,
                          utdu)
from .contact_admm import NOT_PSD, admm
from .contact_geometry import FALLBACK, FULL, SB, pair_contacts
from .crba import crba_state, matrix_finite
from .energy import energy_after_dynamics
from .kinematics import frame_state
from .manifold import integrate_q
from .pack import IQ, IV, V
from .rnea import rnea_state
from .spatial import all_finite, load_q

OK, BAD_INPUT, SINGULAR, NONFINITE, SOLVER, CODE_FALLBACK, CODE_FULL = 0, 1, 2, 3, 4, 5, 6
ACTIVE_TOL = 1e-9
# settings ST: friction, restitution, margin, theta, gamma, tol, max_iter, limit_restitution
S_MU, S_E, S_MARGIN, S_THETA, S_GAMMA, S_TOL, S_MAXIT, S_LE = 0, 1, 2, 3, 4, 5, 6, 7
# info (per run, int): steps done, code, contacts stored, limits stored, solver iterations (sum)
I_STEP, I_CODE, I_NC, I_NL, I_ITER = 0, 1, 2, 3, 4
CFW = 25


@nb.njit
def _frame(n0, n1, n2):
    """t1, t2 completing n (as :func:`artidyn.contact.jacobian.contact_frames`)."""
    a0, a1, a2 = abs(n0), abs(n1), abs(n2)
    top = min(a0, min(a1, a2)) + 1e-12      # the first axis within AXIS_TIE of the least aligned
    k = 0 if a0 <= top else (1 if a1 <= top else 2)
    e0, e1, e2 = (1.0 if k == 0 else 0.0), (1.0 if k == 1 else 0.0), (1.0 if k == 2 else 0.0)
    t0, t1, t2 = n1 * e2 - n2 * e1, n2 * e0 - n0 * e2, n0 * e1 - n1 * e0
    s = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    t0, t1, t2 = t0 / s, t1 / s, t2 / s
    return t0, t1, t2, n1 * t2 - n2 * t1, n2 * t0 - n0 * t2, n0 * t1 - n1 * t0


@nb.njit
def _rows(B, body, p0, p1, p2, sign, Jst, r0, T4):
    """Jst rows r0 .. r0 + 2 += sign * the world linear Jacobian of the point p of ``body``."""
    if body == 0:
        return
    T4[0, 3], T4[1, 3], T4[2, 3] = p0, p1, p2
    add_jacobian(B, body, T4, sign, Jst, r0, 3)


@nb.njit
def step(B, SH, PL, HULL, PAIRS, LIM, q, v, tau, fext, opts, h, ST, S, out_q, out_v, CC, CI, res, info2, prev, energy):
    """One step from (q, v): out_q, out_v the next state; S the scratch of :func:`scratch`; SH, PL,
    HULL the shapes, their placements and the packed convex meshes (:mod:`.contact_geometry`,
    :mod:`.gjk`), PAIRS the candidate pairs of shapes.
    CC (cap, 10) / CI (cap, 3: body_a, body_b, key) receive the candidates (the active ones
    first, in order), res the solver's residuals; info2[0] <- the number of active contacts, [1]
    of active limits, [2] solver iterations. ``prev`` (keys, impulses, count of the previous
    step's contacts, then of its limits) starts the solver; energy (2) <- the kinetic and potential
    energy at (q, v). A return code."""
    (M, D, dis, lam_dof, sub, nle, zeros, vfree, tmp, Wsh, T4, Jall, Y, span, Gbuf, lam, bvec, mu, ev, Wk,
     ldof, lside, lgap, info) = S
    nv, ns = M.shape[0], SH.shape[0]
    if not (load_q(B, q) and all_finite(v) and all_finite(tau)):
        return BAD_INPUT
    rnea_state(B, v, zeros, fext, opts, nle)
    energy[0], energy[1] = energy_after_dynamics(B, v)
    crba_state(B, M)
    if not (matrix_finite(M) and all_finite(nle)):
        return BAD_INPUT
    if not utdu(M, lam_dof, sub, D, dis):           # dis: scratch until set below
        return SINGULAR
    for k in range(nv):
        dis[k] = 1.0 / math.sqrt(D[k])
        vfree[k] = tau[k] - nle[k]
    solve_m(M, sub, D, vfree)
    for k in range(nv):
        vfree[k] = v[k] + h * vfree[k]
    # candidates: shapes placed, the margin widened by how far a point may travel in gamma h
    reach = 0.0
    for i in range(1, B.shape[0]):
        w = math.sqrt(B[i, V] ** 2 + B[i, V + 1] ** 2 + B[i, V + 2] ** 2)
        u = math.sqrt(B[i, V + 3] ** 2 + B[i, V + 4] ** 2 + B[i, V + 5] ** 2)
        reach = max(reach, w + u)
    margin = ST[S_MARGIN] + ST[S_GAMMA] * h * reach
    for s in range(ns):
        body = int(SH[s, SB])
        if body == 0:
            for r in range(4):
                for c in range(4):
                    Wsh[s, r, c] = PL[s, r, c]
        else:
            frame_state(B, body, PL[s], Wsh[s])
    kc = 0
    for p in range(PAIRS.shape[0]):
        a, b = PAIRS[p, 0], PAIRS[p, 1]
        k1 = pair_contacts(CC, kc, SH, a, Wsh[a], b, Wsh[b], margin, HULL)
        if k1 == FULL:
            return CODE_FULL
        if k1 == FALLBACK:
            return CODE_FALLBACK
        for c in range(kc, k1):      # the key: as artidyn.contact.moreau_jean.contact_keys
            CI[c, 0], CI[c, 1], CI[c, 2] = int(SH[a, SB]), int(SH[b, SB]), (a * ns + b) * 64 + (c - kc)
        kc = k1
    # rows of every candidate (n, t1, t2), u_before, and the active set (compacted in place)
    na = 0
    for c in range(kc):
        r0 = 3 * na
        for r in range(3):
            for k in range(nv):
                Jall[r0 + r, k] = 0.0
        _rows(B, CI[c, 0], CC[c, 4], CC[c, 5], CC[c, 6], 1.0, Jall, r0, T4)
        _rows(B, CI[c, 1], CC[c, 7], CC[c, 8], CC[c, 9], -1.0, Jall, r0, T4)
        n0, n1, n2 = CC[c, 1], CC[c, 2], CC[c, 3]
        t0, t1, t2, s0, s1, s2 = _frame(n0, n1, n2)
        for k in range(nv):
            x, y, z = Jall[r0, k], Jall[r0 + 1, k], Jall[r0 + 2, k]
            Jall[r0, k] = n0 * x + n1 * y + n2 * z
            Jall[r0 + 1, k] = t0 * x + t1 * y + t2 * z
            Jall[r0 + 2, k] = s0 * x + s1 * y + s2 * z
        un = 0.0
        for k in range(nv):
            un += Jall[r0, k] * v[k]
        if CC[c, 0] + ST[S_GAMMA] * h * un <= ACTIVE_TOL:
            if na != c:
                for r in range(10):
                    CC[na, r] = CC[c, r]
                for r in range(3):
                    CI[na, r] = CI[c, r]
            na += 1
    # joint limits closing within gamma h (lower first, then upper, dof by dof)
    nl = 0
    for l in range(LIM.shape[0]):
        kv, kq, lo, hi = int(LIM[l, 0]), int(LIM[l, 1]), LIM[l, 2], LIM[l, 3]
        for side in (1.0, -1.0):
            gap = q[kq] - lo if side > 0 else hi - q[kq]
            if gap - gap == 0.0 and gap + ST[S_GAMMA] * h * side * v[kv] <= ACTIVE_TOL:
                if nl >= ldof.shape[0]:
                    return CODE_FULL
                ldof[nl], lside[nl], lgap[nl] = kv, side, gap
                nl += 1
    info2[0], info2[1], info2[2] = na, nl, 0
    for r in range(6):
        res[r] = 0.0
    m = 3 * (na + nl)
    if m == 0:
        for k in range(nv):
            out_v[k] = vfree[k]
            tmp[k] = h * (ST[S_THETA] * vfree[k] + (1.0 - ST[S_THETA]) * v[k])
        integrate_q(B, q, tmp, 1.0, out_q)
        return OK
    for l in range(nl):
        r0 = 3 * (na + l)
        for r in range(3):
            for k in range(nv):
                Jall[r0 + r, k] = 0.0
        Jall[r0, ldof[l]] = lside[l]
    J = Jall[:m]
    G = Gbuf[:m * m].reshape((m, m))
    delassus(M, lam_dof, J, dis, Y[:m], span[:m], G)
    for c in range(na + nl):
        if c < na:
            mu[c], ev[c] = ST[S_MU], ST[S_E]
        else:
            mu[c], ev[c] = 0.0, ST[S_LE]
    for r in range(m):
        x = y = 0.0
        for k in range(nv):
            x += J[r, k] * vfree[k]
            y += J[r, k] * v[k]
        bvec[r] = x
        if r % 3 == 0:
            bvec[r] += ev[r // 3] * y
        lam[r] = 0.0
    PK, PP, LK, LP, pcount = prev
    for c in range(na):               # warm start: the same contacts' impulses in the previous step
        for j in range(pcount[0]):
            if PK[j] == CI[c, 2]:
                lam[3 * c], lam[3 * c + 1], lam[3 * c + 2] = PP[j, 0], PP[j, 1], PP[j, 2]
                break
    for l in range(nl):
        key = 2 * ldof[l] + (1 if lside[l] > 0 else 0)
        for j in range(pcount[1]):
            if LK[j] == key:
                lam[3 * (na + l)] = LP[j]
                break
    status = admm(G, bvec[:m], mu[:na + nl], ST[S_TOL], int(ST[S_MAXIT]), lam[:m], Wk, res, info)
    info2[2] = info[0]
    if status == NOT_PSD:
        return SOLVER
    correction(Y[:m], span[:m], lam[:m], dis, tmp)       # M^-1 J^T P = U^-T D^-1/2 Y^T P
    solve_ut(M, sub, tmp)
    for k in range(nv):
        out_v[k] = vfree[k] + tmp[k]
        tmp[k] = h * (ST[S_THETA] * out_v[k] + (1.0 - ST[S_THETA]) * v[k])
    integrate_q(B, q, tmp, 1.0, out_q)
    return OK


@nb.njit
def scratch(B, cap, m_max, nl_max, ns):
    nv = int(B[0, IV])
    ns_rows = 3 * max(cap, 1) + 3 * nl_max
    lam_dof = np.empty(nv, np.int64)
    sub = np.empty(nv, np.int64)
    dof_parents(B, lam_dof)
    subtree_sizes(lam_dof, sub)
    m = max(m_max, 3)
    return (np.empty((nv, nv)), np.empty(nv), np.empty(nv), lam_dof, sub, np.empty(nv), np.zeros(nv), np.empty(nv),
            np.empty(nv), np.empty((ns, 4, 4)), np.eye(4), np.empty((ns_rows, nv)), np.empty((m, nv)),
            np.empty((m, 3), np.int64), np.empty(m * m), np.empty(m), np.empty(m), np.empty(m // 3 + 1),
            np.empty(m // 3 + 1), np.empty((7, m)), np.empty(nl_max, np.int64), np.empty(nl_max), np.empty(nl_max),
            np.zeros(1, np.int64))


@nb.njit(cache=True)
def moreau_jean_run(B, SH, PL, HULL, PAIRS, LIM, q, v, tau_v, fext, opts, h, k0, nsteps, ST, cap,
                    out_q, out_v, out_a, out_tau, e_out, forces, residual, iters, OFF, CI_out, CF_out, LOFF, LI_out,
                    LF_out, info):
    """Steps k0 .. nsteps from (q, v) (modified in place), samples k0 .. nsteps into the outputs
    (one row per step; at the last sample the contacts are computed, no step taken); e_out (S, 2)
    the kinetic and potential energy of each sample. ``cap``: the
    most candidate contacts of a step. OFF / LOFF (nsteps + 2): where each step's contacts / limits
    start in CI_out, CF_out / LI_out, LF_out; info: see I_*. A return code (the failing step in
    info[I_STEP])."""
    nq, nv = int(B[0, IQ]), int(B[0, IV])
    nl_max = 2 * LIM.shape[0]
    S = scratch(B, cap, 3 * (cap + nl_max), nl_max, SH.shape[0])
    CC = np.empty((max(cap, 1), 10))
    CI = np.empty((max(cap, 1), 3), np.int64)
    res = np.zeros(6)
    info2 = np.zeros(3, np.int64)
    qn, vn = np.empty(nq), np.empty(nv)
    nc, nlim = info[I_NC], info[I_NL]
    PK, PP = np.empty(max(cap, 1), np.int64), np.empty((max(cap, 1), 3))
    LK, LP = np.empty(max(nl_max, 1), np.int64), np.empty(max(nl_max, 1))
    pcount = np.zeros(2, np.int64)
    if k0 > 0:                      # resumed: the previous step's impulses from the stored ones
        lo, hi = OFF[k0 - 1], OFF[k0]
        for c in range(lo, hi):
            PK[c - lo] = CI_out[c, 2]
            PP[c - lo, 0], PP[c - lo, 1], PP[c - lo, 2] = CF_out[c, 16], CF_out[c, 17], CF_out[c, 18]
        lo2, hi2 = LOFF[k0 - 1], LOFF[k0]
        for l in range(lo2, hi2):
            LK[l - lo2] = 2 * LI_out[l] + (1 if LF_out[l, 0] > 0 else 0)
            LP[l - lo2] = LF_out[l, 2]
        pcount[0], pcount[1] = hi - lo, hi2 - lo2
    prev = (PK, PP, LK, LP, pcount)
    for k in range(k0, nsteps + 1):
        tau = tau_v[k if tau_v.shape[0] > 1 else 0]
        code = step(B, SH, PL, HULL, PAIRS, LIM, q, v, tau, fext, opts, h, ST, S, qn, vn, CC, CI, res, info2, prev, e_out[k])
        if code != OK:
            info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = k, code, nc, nlim
            return code
        na, nl = info2[0], info2[1]
        if nc + na > CI_out.shape[0] or nlim + nl > LI_out.shape[0]:
            info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = k, CODE_FULL, nc, nlim
            return CODE_FULL
        if not (all_finite(qn) and all_finite(vn)):
            info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = k, NONFINITE, nc, nlim
            return NONFINITE
        for c in range(nq):
            out_q[k, c] = q[c]
        for c in range(nv):
            out_v[k, c] = v[c]
            out_tau[k, c] = tau[c]
            out_a[k, c] = (vn[c] - v[c]) / h
        residual[k] = res[5]
        iters[k] = info2[2]
        info[I_ITER] += info2[2]
        # the step's contacts: impulses, velocities, total force per body (world)
        lam, J = S[15], S[11]
        OFF[k] = nc
        for r in range(forces.shape[1]):
            for c in range(3):
                forces[k, r, c] = 0.0
        for c in range(na):
            e = nc + c
            CI_out[e, 0], CI_out[e, 1], CI_out[e, 2] = CI[c, 0], CI[c, 1], CI[c, 2]
            PK[c] = CI[c, 2]
            PP[c, 0], PP[c, 1], PP[c, 2] = lam[3 * c], lam[3 * c + 1], lam[3 * c + 2]
            t0, t1, t2, s0, s1, s2 = _frame(CC[c, 1], CC[c, 2], CC[c, 3])
            for r in range(3):
                CF_out[e, r] = CC[c, 4 + r]
                CF_out[e, 3 + r] = CC[c, 7 + r]
            # frame (3x3 row-major, columns n, t1, t2)
            for r in range(3):
                CF_out[e, 6 + 3 * r] = CC[c, 1 + r]
            CF_out[e, 7], CF_out[e, 10], CF_out[e, 13] = t0, t1, t2
            CF_out[e, 8], CF_out[e, 11], CF_out[e, 14] = s0, s1, s2
            CF_out[e, 15] = CC[c, 0]
            for r in range(3):
                P = lam[3 * c + r]
                CF_out[e, 16 + r] = P
                ua = ub = 0.0
                for kk in range(nv):
                    ua += J[3 * c + r, kk] * vn[kk]
                    ub += J[3 * c + r, kk] * v[kk]
                CF_out[e, 19 + r] = ua
                CF_out[e, 22 + r] = ub
            Pn, P1, P2 = lam[3 * c], lam[3 * c + 1], lam[3 * c + 2]
            for r in range(3):
                f = (CF_out[e, 6 + 3 * r] * Pn + CF_out[e, 7 + 3 * r] * P1 + CF_out[e, 8 + 3 * r] * P2) / h
                forces[k, CI[c, 0], r] += f
                forces[k, CI[c, 1], r] -= f
        nc += na
        LOFF[k] = nlim
        ldof, lside, lgap = S[20], S[21], S[22]
        pcount[0], pcount[1] = na, nl
        for l in range(nl):
            LK[l] = 2 * ldof[l] + (1 if lside[l] > 0 else 0)
            LP[l] = lam[3 * (na + l)]
            LI_out[nlim + l] = ldof[l]
            LF_out[nlim + l, 0], LF_out[nlim + l, 1] = lside[l], lgap[l]
            LF_out[nlim + l, 2] = lam[3 * (na + l)]
        nlim += nl
        OFF[k + 1], LOFF[k + 1] = nc, nlim
        if k == nsteps:
            break
        for c in range(nq):
            q[c] = qn[c]
        for c in range(nv):
            v[c] = vn[c]
    info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = nsteps, OK, nc, nlim
    return OK


IMPACT, LIFT_OFF, SLIP, STICK, LIMIT = 0, 1, 2, 3, 4


@nb.njit
def _insert_sorted(out, n, key):
    """Insert ``key`` into the sorted distinct out[:n] unless there; returns the new n."""
    j = 0
    while j < n and out[j] < key:
        j += 1
    if j < n and out[j] == key:
        return n
    for i in range(n, j, -1):
        out[i] = out[i - 1]
    out[j] = key
    return n + 1


@nb.njit
def _pair_keys(CI, lo, hi, nb1, out):
    """out[:n] <- the distinct pair keys a (nb + 1) + b of contacts lo .. hi - 1, sorted; returns n."""
    n = 0
    for c in range(lo, hi):
        n = _insert_sorted(out, n, CI[c, 0] * nb1 + CI[c, 1])
    return n


@nb.njit
def _has(x, n, key):
    for j in range(n):
        if x[j] == key:
            return True
    return False


@nb.njit(cache=True)
def contact_events(OFF, CI, CF, LOFF, LI, LF, nsamples, nb1, with_friction, slip_tol):
    """The events of a run from its stored contacts, as :mod:`artidyn.sim.contact_run` finds them
    on the reference route: rows (sample, kind, a, b) of the returned (n, 4) array, kind IMPACT,
    LIFT_OFF, SLIP, STICK (a, b: the bodies) or LIMIT (a: the dof, b: +1 lower, -1 upper)."""
    nc, nl = OFF[nsamples], LOFF[nsamples]
    ev = np.empty((3 * nc + nl + 1, 4), np.int64)
    ne = 0
    width = 1
    for k in range(nsamples):
        width = max(width, OFF[k + 1] - OFF[k], LOFF[k + 1] - LOFF[k])
    prev, now = np.empty(width, np.int64), np.empty(width, np.int64)
    pkeys, keys = np.empty(width, np.int64), np.empty(width, np.int64)
    pslide, slide = np.zeros(width, np.bool_), np.zeros(width, np.bool_)
    plim, lim = np.empty(width, np.int64), np.empty(width, np.int64)
    n_prev = n_pk = n_pl = 0
    for k in range(nsamples):
        lo, hi = OFF[k], OFF[k + 1]
        n_now = _pair_keys(CI, lo, hi, nb1, now)
        for j in range(n_now):                  # new pairs closing: impacts
            key = now[j]
            if _has(prev, n_prev, key):
                continue
            a, b = key // nb1, key % nb1
            for c in range(lo, hi):
                if CI[c, 0] == a and CI[c, 1] == b and CF[c, 22] < 0:
                    ev[ne, 0], ev[ne, 1], ev[ne, 2], ev[ne, 3] = k, IMPACT, a, b
                    ne += 1
                    break
        for j in range(n_prev):
            if not _has(now, n_now, prev[j]):
                ev[ne, 0], ev[ne, 1], ev[ne, 2], ev[ne, 3] = k, LIFT_OFF, prev[j] // nb1, prev[j] % nb1
                ne += 1
        if with_friction:
            n = 0
            for c in range(lo, hi):             # pairs with a pushing contact, in order, and whether they slide
                if CF[c, 16] > 0:
                    key = CI[c, 0] * nb1 + CI[c, 1]
                    sl = math.sqrt(CF[c, 20] ** 2 + CF[c, 21] ** 2) > slip_tol
                    j = 0
                    while j < n and keys[j] != key:
                        j += 1
                    if j == n:
                        keys[n], slide[n] = key, sl
                        n += 1
                    elif sl:
                        slide[j] = True
            for j in range(n):
                for i in range(n_pk):
                    if pkeys[i] == keys[j] and pslide[i] != slide[j]:
                        ev[ne, 0], ev[ne, 1] = k, SLIP if slide[j] else STICK
                        ev[ne, 2], ev[ne, 3] = keys[j] // nb1, keys[j] % nb1
                        ne += 1
            for j in range(n):
                pkeys[j], pslide[j] = keys[j], slide[j]
            n_pk = n
        n_lim = 0
        for l in range(LOFF[k], LOFF[k + 1]):
            n_lim = _insert_sorted(lim, n_lim, 2 * LI[l] + (1 if LF[l, 0] > 0 else 0))
        for j in range(n_lim):
            if not _has(plim, n_pl, lim[j]):
                ev[ne, 0], ev[ne, 1], ev[ne, 2], ev[ne, 3] = k, LIMIT, lim[j] // 2, 1 if lim[j] % 2 == 1 else -1
                ne += 1
        for j in range(n_now):
            prev[j] = now[j]
        n_prev = n_now
        for j in range(n_lim):
            plim[j] = lim[j]
        n_pl = n_lim
    return ev[:ne]
