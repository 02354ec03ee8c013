"""Compiled Moreau-Jean time stepping with contacts, Coulomb friction and joint limits: a whole
run in one call. Mirrors :func:`artidyn.contact.moreau_jean.moreau_jean_step` (the readable
reference) step for step::

    v_free = v_k + h M^-1 (tau - h(q_k, v_k))        (M + h D: the joints' and the PD's damping implicit)
    active = { i : g_i + gamma h u_n,i <= 1e-9 }     (contacts within margin + gamma h reach; 1e-6 m
                                                      for those active at the previous step)
    u = W P + b,  W = J M^-1 J^T,  b = J v_free + e u_n,k (normal rows)   -> P (ADMM, exact cone;
                                                      or Gauss-Seidel on W's blocks, :mod:`.contact_nsgs`)
    v_k+1 = v_free + M^-1 J^T P,   q_k+1 = q_k (+) h (theta v_k+1 + (1 - theta) v_k)

M is factored along the tree (``U D U^T``, Featherstone, "Rigid Body Dynamics Algorithms",
sec. 6.5). The contacts' velocities (u_n for the active set, b) come from the bodies' twists, and
the warm start (the previous step's impulses) is first tested without any row: ``J^T P`` by the
bodies' wrenches, ``u = J M^-1 J^T P + b`` by the twists at ``M^-1 J^T P``
(:func:`.contact_warm.without_rows`; no bilateral rows): a scene at rest forms neither J nor W.
Otherwise J's rows are formed, and W from ``Y = D^-1/2 U^-1 J^T`` as in :mod:`.constrained`, only
when the warm start (bilateral rows' included) does not solve the step through the rows
(``u = Y (Y^T P) + b``), nor the
polish on the Delassus matrix of the last step that formed it, with the step's velocities through
the rows (:mod:`.contact_chord`, from 6 contacts or with bilateral rows: a robot standing with a
sole's corner sliding); from DOF_ROWS rows, the
warm start's sticking modes are then solved in the dofs' space (:mod:`.contact_dofs`), and the
ADMM runs island by island (:mod:`.contact_islands`). Contacts come from the closed forms of
:mod:`.contact_geometry` (cylinders and meshes: GJK/EPA and manifolds, :mod:`.convex`); a pair
those cannot settle (two boxes edge to edge, a capsule near a box) returns ``FALLBACK`` with the
step's index, and the caller takes that step on the reference route and resumes.

The contacts of every step are stored one after the other (``OFF[k]`` .. ``OFF[k + 1]``): bodies
and key (CI: body_a, body_b, key), CF (cap, 25): point_a (3), point_b (3), frame (9, row-major, columns n, t1,
t2), gap, impulse (3), u_after (3), u_before (3); the active joint limits likewise (LOFF; LI:
dof; LF: side, gap, impulse). A full buffer returns ``FULL``: the caller grows it and resumes.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .constrained import bordered_gram, correction, dof_parents, gram, solve_m, solve_ut, subtree_sizes, utdu
from .constrained_sim import rows_state
from .broadphase import apart, candidates, place_shapes, world_bounds
from .contact_admm import NOT_PSD, admm
from .contact_chord import form as chord_form
from .contact_chord import matches as chord_matches
from .contact_chord import scratch as chord_scratch
from .contact_chord import solve as chord_solve
from .contact_chord import predict as chord_predict
from .contact_chord import worth as chord_worth
from .contact_dofs import polish as dofs_polish
from .contact_jacobian import (chain_range, clear_rows, normal_velocity, ranged_dot, ranged_frame_rows, ranged_y_rows,
                               rows_velocity, twists)
from .contact_geometry import FALLBACK, FULL, SB, pair_contacts
from .contact_islands import solve as island_solve
from .contact_nsgs import solve_blocks
from .contact_rows import SE, SMU
from .contact_warm import bilateral_solve, warm_solves, without_rows
from .crba import crba_bodies, crba_entries
from .energy import energy_after_dynamics
from .manifold import integrate_q
from .pack import DAMP, IQ, IV, NVJ, V
from .rnea import rnea_state
from .spatial import all_finite, load_q
from .types import FRICTION

OK, BAD_INPUT, SINGULAR, NONFINITE, SOLVER, CODE_FALLBACK, CODE_FULL = 0, 1, 2, 3, 4, 5, 6
ACTIVE_TOL = 1e-9
KEEP_TOL = 1e-6       # m: a contact active at the previous step stays active to this predicted gap
# settings ST: friction, restitution, margin, theta, gamma, tol, max_iter, limit_restitution, solver
S_MU, S_E, S_MARGIN, S_THETA, S_GAMMA, S_TOL, S_MAXIT, S_LE, S_SOLVER = 0, 1, 2, 3, 4, 5, 6, 7, 8
ADMM, PGS = 0.0, 1.0          # ST[S_SOLVER]: the ADMM on the dense Delassus matrix, or Gauss-Seidel on its blocks
DOF_ROWS = 96                 # from 32 contacts, the stick modes are polished in the dofs' space first (.contact_dofs)
# info (per run, int): steps done, code, contacts stored, limits stored, solver iterations (sum), steps solved on
# the last dense step's W (.contact_chord)
I_STEP, I_CODE, I_NC, I_NL, I_ITER, I_CHORD = 0, 1, 2, 3, 4, 5
INFO = 6
W_NEXT = 7                    # Wk's rows from here: the next step's warm start's change, J v_k (.contact_chord)
CFW = 25


@nb.njit
def _laws(SH, ST, pair, ns):
    """(mu, e) of the contacts of shapes a, b (pair = a ns + b): each shape's own (SH's columns
    SMU, SE) or the settings' where it has none (NaN), the larger of the two
    (:func:`artidyn.geometry.shapes.pair_parameters`)."""
    a, b = pair // ns, pair % ns
    fa, fb, ea, eb = SH[a, SMU], SH[b, SMU], SH[a, SE], SH[b, SE]
    fa = ST[S_MU] if fa != fa else fa
    fb = ST[S_MU] if fb != fb else fb
    ea = ST[S_E] if ea != ea else ea
    eb = ST[S_E] if eb != eb else eb
    return max(fa, fb), max(ea, eb)


@nb.njit(_nrt=False)      # (no reference counts: :mod:`.spatial`; the callees that allocate say _nrt=True)
def step(B, SH, PL, HULL, PAIRS, LIM, CN, q, v, tau, dx, fext, opts, h, ST, S, out_q, out_v, CC, CI, res, info2,
         prev, energy):
    """One step from (q, v): out_q, out_v the next state; dx (nv) a damping implicit in the step
    beside the joints' (a PD controller's kd on its actuated dofs: its torque tau holds
    ``-kd v_k``, and ``-kd (v_k+1 - v_k)`` joins ``M + h (D + dx)``); S the scratch of :func:`scratch`; SH, PL,
    HULL the shapes, their placements and the packed convex meshes (:mod:`.contact_geometry`,
    :mod:`.gjk`), PAIRS the candidate pairs of shapes.
    CN: the bilateral constraints (K, TF, Sc, phi, Gb, dropped, lam_b) (:mod:`.constrained`'s
    table and scratch; no rows: K empty): their rows join the step's problem as free rows with
    ``J_b v+ = 0``, eliminated by the Schur complement of their Delassus block before the cone
    solve; lam_b receives their impulses.
    CC (cap, 10) / CI (cap, 3: body_a, body_b, key) receive the candidates (the active ones
    first, in order), res the solver's residuals; info2[0] <- the number of active contacts, [1]
    of active limits, [2] solver iterations, [3] 1 when :mod:`.contact_chord` solved the step.
    ``prev`` (keys, impulses, count of the previous step's contacts, then of its limits; the broad
    phase's (SEP, LOOK, order, cand): each pair's separating axis (npairs, 5;
    :func:`.broadphase.apart`), :func:`.broadphase.sweep_table` and room for the candidate pairs)
    starts the solver; energy (2) <- the kinetic and potential energy at (q, v). A return code."""
    (M, D, dis, lam_dof, sub, nle, zeros, vfree, tmp, Wsh, T4, Jall, Y, span, Gbuf, lam, bvec, mu, ev, Wk,
     ldof, lside, lgap, info, Gr, Xb, AB, JR, CH, TW) = S
    WN = Wk[W_NEXT:]                  # the next warm start's change (.contact_chord.predict), scratch
    K, TF, Sc, phib, Gb, dropped, lam_b = CN
    mb = phib.shape[0]
    nv, ns = M.shape[0], SH.shape[0]
    if not (load_q(B, q) and all_finite(v) and all_finite(tau)):
        return BAD_INPUT
    rnea_state(B, v, zeros, fext, opts, nle)
    energy[0], energy[1] = energy_after_dynamics(B, v)
    crba_bodies(B)                      # M's entries off the tree's pairs stay zero in the scratch
    if not (crba_entries(B, M) and all_finite(nle)):
        return BAD_INPUT
    if opts & FRICTION:                 # joint damping implicit: M + h D (as the reference)
        for i in range(1, B.shape[0]):
            k = int(B[i, IV])
            for j in range(int(B[i, NVJ])):
                M[k + j, k + j] += h * B[i, DAMP + j]
    for k in range(nv):                 # and the controller's: M + h (D + dx)
        M[k, k] += h * dx[k]
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
    place_shapes(B, SH, PL, Wsh)
    world_bounds(SH, Wsh, AB)                   # the broad phase: pairs whose boxes overlap go on,
    SEP, LOOK, order, cand = prev[5]            # unless the axis that separated them still does
    kc = _narrow(CC, CI, SH, HULL, PAIRS, Wsh, SEP, cand, candidates(SH, AB, margin, PAIRS, LOOK, order, cand), margin)
    if kc == FULL:
        return CODE_FULL
    if kc == FALLBACK:
        return CODE_FALLBACK
    # the active set (compacted in place), by u_n before the step; the contacts' velocities from the
    # bodies' twists (TW[0] at v_k, TW[1] at v_free, the loop's TW[2] at v_k+1), their rows formed below
    na = 0
    PK, pcount = prev[0], prev[4]
    if kc > 0:
        twists(B, v, TW[0])
    for c in range(kc):
        un = normal_velocity(B, CC, CI, c, TW[0])
        gp = CC[c, 0] + ST[S_GAMMA] * h * un
        if ACTIVE_TOL < gp <= KEEP_TOL and _seen(PK, pcount[0], CI[c, 2], c) >= 0:
            gp = 0.0                            # the previous step's contact stays (hysteresis)
        if gp <= ACTIVE_TOL:
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
    info2[0], info2[1], info2[2], info2[3] = na, nl, 0, 0
    for r in range(6):
        res[r] = 0.0
    mc = 3 * (na + nl)
    m = mc + mb
    if mb > 0:                         # the bilateral rows J_b, after the contacts' and limits', on 0 .. their
        if rows_state(B, K, TF, q, v, Sc, phib) != OK:        # last nonzero (closed under the parent dof)
            return BAD_INPUT
        Jb = Sc[4]
        for r in range(mb):
            hi = 0
            for k in range(nv):
                if Jb[r, k] != 0.0:
                    hi = k + 1
            clear_rows(Jall, Y, mc + r, 1, JR, 0, hi, 0, 0)
            for k in range(hi):
                Jall[mc + r, k] = Jb[r, k]
    if m == 0:
        tmp[:] = 0.0
        _advance(B, q, v, vfree, tmp, ST[S_THETA], h, out_q, out_v)
        return OK
    J = Jall[:m]
    pgs = ST[S_SOLVER] == PGS and mb == 0
    for c in range(na + nl):
        if c < na:            # the pair's laws: as artidyn.contact.moreau_jean.contact_laws
            mu[c], ev[c] = _laws(SH, ST, CI[c, 2] // 64, ns)
        else:
            mu[c], ev[c] = 0.0, ST[S_LE]
    if na > 0:
        twists(B, vfree, TW[1])
    rows_velocity(B, CC, CI, na, ldof, lside, nl, TW[1], vfree, bvec)      # b = J v_free + e u_n,k (normal rows)
    for c in range(na):
        if ev[c] != 0.0:
            bvec[3 * c] += ev[c] * normal_velocity(B, CC, CI, c, TW[0])
    for l in range(nl):
        bvec[3 * (na + l)] += ev[na + l] * lside[l] * v[ldof[l]]
    for r in range(mc, m):            # the bilateral rows'
        bvec[r] = ranged_dot(J, r, JR, vfree)
    for r in range(m):
        lam[r] = 0.0
        WN[0, r] = 0.0
    PK, PP, LK, LP, pcount = prev[0], prev[1], prev[2], prev[3], prev[4]
    for c in range(na):               # warm start: the same contacts' impulses in the previous step
        j = _seen(PK, pcount[0], CI[c, 2], c)
        if j >= 0:
            lam[3 * c], lam[3 * c + 1], lam[3 * c + 2] = PP[j, 0], PP[j, 1], PP[j, 2]
    for l in range(nl):
        key = 2 * ldof[l] + (1 if lside[l] > 0 else 0)
        for j in range(pcount[1]):
            if LK[j] == key:
                lam[3 * (na + l)] = LP[j]
                break
    if not pgs and mb == 0 and without_rows(B, CC, CI, na, ldof, lside, nl, M, sub, D, bvec[:m], mu[:na + nl],
                                            ST[S_TOL], lam[:m], tmp, TW, Wk[3, :m], res):
        _advance(B, q, v, vfree, tmp, ST[S_THETA], h, out_q, out_v)    # at rest: tmp = M^-1 J^T P, no row formed
        return OK
    for c in range(na):               # the rows (n, t1, t2) of the contacts, then of the limits
        ranged_frame_rows(B, CC, CI, c, Jall, Y, 3 * c, T4, JR)
    for l in range(nl):
        r0 = 3 * (na + l)
        lo, hi = nv, 0                # the range: the chain of the dof's joint
        for i in range(1, B.shape[0]):
            if B[i, IV] <= ldof[l] < B[i, IV] + B[i, NVJ]:
                lo, hi = chain_range(B, i, lo, hi)
        clear_rows(Jall, Y, r0, 3, JR, lo, hi, 0, 0)
        Jall[r0, ldof[l]] = lside[l]
    ranged_y_rows(M, lam_dof, J, JR, dis, Y[:m], span[:m])       # W = Y Y^T formed below, when needed
    warm = 0 if pgs else warm_solves(Y[:m], JR, span[:m], bvec[:m], mu[:na + nl], ST[S_TOL], lam[:m], tmp,
                                      Wk[3, :m], res, CN)
    if pgs:
        solve_blocks(Y[:m], span[:m], na + nl, bvec[:mc], mu[:na + nl], ST[S_TOL], int(ST[S_MAXIT]), lam[:mc],
                     Wk[3, :mc], res, info)
        info2[2] = info[0]
    elif warm > 0:
        info2[2] = 0                  # at rest: the previous step's impulses solve this one (admm's own first test)
    elif warm < 0:
        return SOLVER
    elif mc < DOF_ROWS and chord_worth(mc, mb) and chord_matches(CH, CI, na, ldof, lside, nl, False) and \
            chord_solve(Y[:m], JR, span[:m], bvec[:m], mu[:na + nl], ST[S_TOL], lam[:m], tmp, Wk[3, :m], res, Gb,
                        dropped, CH):
        info2[3] = 1                  # polished on the last dense step's W, through the rows (.contact_chord)
        rows_velocity(B, CC, CI, na, ldof, lside, nl, TW[0], v, WN[1])       # J v_k: the next step's warm start
        chord_predict(mu[:na + nl], lam[:mc], Wk[3, :mc], WN[1, :mc], CH, WN[0, :mc])    # without what stopped it
    elif mb > 0:
        G = Gbuf[:m * m].reshape((m, m))
        bordered_gram(Y[:m], span[:m], G, mc)
        if not bilateral_solve(G, CN, Gr, Xb, bvec[:m], mu[:na + nl], ST[S_TOL], int(ST[S_MAXIT]), lam[:m], Wk, res,
                               info):
            return SOLVER
        info2[2] = info[0]
        if mc < DOF_ROWS:             # its matrix, for the next steps' polish (.contact_chord; mb > 0: worth it)
            chord_form(Gr[:mc * mc].reshape((mc, mc)), CH, CI, na, ldof, lside, nl)
    elif mc >= DOF_ROWS and _plastic(ev, na + nl) and \
            dofs_polish(B, CI, na, ldof, nl, M, lam_dof, D, vfree, Y[:m], mu[:na + nl], ST[S_TOL], lam[:mc], res):
        info2[2] = 0                  # the warm start's stick modes, solved in the dofs' space: no Delassus matrix
    else:
        status = -1                   # from 32 contacts, island by island when they make several
        if mc >= DOF_ROWS:
            status = island_solve(B, CI, na, ldof, nl, Y[:m], span[:m], bvec[:mc], mu[:na + nl], ST[S_TOL],
                                  int(ST[S_MAXIT]), lam[:mc], Wk[3, :mc], Gbuf, res, info)
        if status < 0:
            G = Gbuf[:m * m].reshape((m, m))
            gram(Y[:m], span[:m], G)
            status = admm(G, bvec[:mc], mu[:na + nl], ST[S_TOL], int(ST[S_MAXIT]), lam[:mc], Wk, res, info)
            if mc < DOF_ROWS and chord_worth(mc, mb):
                chord_form(G, CH, CI, na, ldof, lside, nl)
        info2[2] = info[0]
        if status == NOT_PSD:
            return SOLVER
    for r in range(mb):
        lam_b[r] = lam[mc + r]
    correction(Y[:m], span[:m], lam[:m], dis, tmp)       # M^-1 J^T P = U^-T D^-1/2 Y^T P
    solve_ut(M, sub, tmp)
    _advance(B, q, v, vfree, tmp, ST[S_THETA], h, out_q, out_v)
    return OK


@nb.njit(_nrt=False)
def _narrow(CC, CI, SH, HULL, PAIRS, Wsh, SEP, cand, n, margin):
    """The narrow phase of the candidate pairs cand[:n] (rows of PAIRS): CC, CI <- their contacts,
    keyed as artidyn.contact.moreau_jean.contact_keys; their count, or FULL / FALLBACK. A pair
    that the axis of the step before still separates (:func:`.broadphase.apart`) is skipped."""
    ns = SH.shape[0]
    kc = 0
    for t in range(n):
        p = cand[t]
        a, b = PAIRS[p, 0], PAIRS[p, 1]
        if apart(SH, HULL, a, Wsh[a], b, Wsh[b], margin, SEP[p]):
            continue
        k1 = pair_contacts(CC, kc, SH, a, Wsh[a], b, Wsh[b], margin, HULL, SEP[p])
        if k1 == FULL or k1 == FALLBACK:
            return k1
        for c in range(kc, k1):
            CI[c, 0], CI[c, 1], CI[c, 2] = int(SH[a, SB]), int(SH[b, SB]), (a * ns + b) * 64 + (c - kc)
        kc = k1
    return kc


@nb.njit(_nrt=False)
def _advance(B, q, v, vfree, dv, theta, h, out_q, out_v):
    """out_v <- v_free + dv (dv = M^-1 J^T P), out_q <- q (+) h (theta out_v + (1 - theta) v); dv is
    overwritten."""
    for k in range(v.shape[0]):
        out_v[k] = vfree[k] + dv[k]
        dv[k] = h * (theta * out_v[k] + (1.0 - theta) * v[k])
    integrate_q(B, q, dv, 1.0, out_q)


@nb.njit(_nrt=False)
def _seen(PK, n, key, c):
    """The index of ``key`` in PK[:n] (-1: none), looked up at c first: a resting scene finds its
    contacts in the same order from step to step, so the search is O(1) where a scan would be O(n)."""
    if c < n and PK[c] == key:
        return c
    for j in range(n):
        if PK[j] == key:
            return j
    return -1


@nb.njit
def _plastic(ev, k):
    """True when no contact or limit of the step has a restitution coefficient."""
    for c in range(k):
        if ev[c] != 0.0:
            return False
    return True


@nb.njit
def scratch(B, cap, m_max, nl_max, ns, mb=0):
    """The step's scratch for ``cap`` candidate contacts, ``m_max`` rows of contacts and limits,
    ``nl_max`` limit sides, ``ns`` shapes and ``mb`` bilateral rows. Its size goes as (3 cap)^2
    (the Delassus matrix): the loop (:func:`.scene_run.contact_run`) starts with room for a few
    contacts and grows it when a step finds more (``CODE_FULL``, the step taken again)."""
    nv = int(B[0, IV])
    ns_rows = 3 * max(cap, 1) + 3 * nl_max + mb
    lam_dof = np.zeros(nv, np.int64)
    sub = np.zeros(nv, np.int64)
    dof_parents(B, lam_dof)
    subtree_sizes(lam_dof, sub)
    m = max(m_max, 3) + mb
    return (np.zeros((nv, nv)), np.zeros(nv), np.zeros(nv), lam_dof, sub, np.zeros(nv), np.zeros(nv), np.zeros(nv),
            np.zeros(nv), np.zeros((ns, 4, 4)), np.eye(4), np.zeros((ns_rows, nv)), np.zeros((m, nv)),
            np.zeros((m, 3), np.int64), np.zeros(m * m), np.zeros(m), np.zeros(m), np.zeros(m // 3 + 1),
            np.zeros(m // 3 + 1), np.zeros((W_NEXT + 2, m)), np.zeros(nl_max, np.int64), np.zeros(nl_max), np.zeros(nl_max),
            np.zeros(1, np.int64), np.zeros(0 if mb == 0 else m * m), np.zeros((mb, m + 1)), np.zeros((ns, 6)),
            np.zeros((ns_rows, 4), np.int64), chord_scratch(min(max(m_max, 3), DOF_ROWS)),
            np.zeros((4, B.shape[0], 6)))


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
