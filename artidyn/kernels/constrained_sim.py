"""Compiled simulation under bilateral constraints: a whole run in one call.

Mirrors :func:`artidyn.sim.constrained.simulate_constrained` (the readable reference route).
Each stage evaluates the constrained dynamics of :mod:`.constrained` (the tree-sparse route,
Baumgarte terms included); the step is semi-implicit Euler or RKMK4 in the chart at the step's
start, as the engine of :mod:`.stepping`; after the step the state is projected back onto the
constraint manifold, mass-weighted (Gauss-Newton in the metric of M, the closest state in
kinetic energy; Featherstone, "Rigid Body Dynamics Algorithms", sec. 8.3)::

    q <- q (+) (-M^-1 J^T (J M^-1 J^T)^-1 phi)       until max |phi| <= tol (at most ``maxit``)
    v <- v - M^-1 J^T (J M^-1 J^T)^-1 J v

with the factors of :func:`.constrained.delassus`. The drift (max |phi|, max |J v| after the step,
before the projection) is recorded at every sample.
"""
import numba as nb
import numpy as np

from . import _cache  # noqa: F401
from .constrained import SINGULAR  # noqa: F401  (a code of the run, read by the Python side)
from .constrained import (BAD_INPUT, COUPLING, DEGENERATE, KTYPE, OK, add_rows_t, cholesky_solve, constrained_state,
                          constraint_rows, factor_state, scratch, solve_state, solve_ut, world_velocities)
from .crba import world_twists
from .kinematics import placements_state
from .manifold import dexp_inv_v, integrate_q
from .pack import IQ, IV
from .slots import CI_CTRL, NONE, W_ROWS
from .spatial import all_finite, load_q
from .stepping import controller_torque

SEMI_IMPLICIT, RK4 = 0, 1
NONFINITE, NOT_ASSEMBLED = 4, 5            # return codes beyond those of .constrained
SI_STEP, SI_CODE, SI_SIZE = 0, 1, 2


@nb.njit
def dynamics(B, K, TF, q, v, tau, fext, opts, alpha, beta, S, a, lam, phi, W, energy, factored):
    """a, lam, phi, W at (q, v, tau) (energy: the kinetic and potential energy, or None); with
    ``factored``, S already holds the factors at q (:func:`project` leaves them). A return code.
    Dependent constraint rows (a planar loop's out-of-plane rows, a constraint given twice) are
    dropped: zero multipliers."""
    if not (load_q(B, q) and all_finite(v)):
        return BAD_INPUT
    if factored:
        return solve_state(B, K, TF, q, v, tau, fext, opts, alpha, beta, S, a, lam, phi, W, energy, np.bool_(True),
                           np.bool_(False))
    return constrained_state(B, K, TF, q, v, tau, fext, opts, alpha, beta, S, a, lam, phi, W, np.bool_(False), energy)


@nb.njit
def couplings_only(K):
    """True when every constraint of K couples two joints (q_a = ratio q_b + offset)."""
    for c in range(K.shape[0]):
        if int(K[c, KTYPE]) != COUPLING:
            return False
    return True


@nb.njit
def rows_state(B, K, TF, q, v, S, phi):
    """Only the rows J, Jdot v and phi at (q, v) (no mass matrix): for the drift. Joint couplings
    (mimic joints) alone need no kinematics: their rows are constant, phi linear in q."""
    Jst, Ja, Jb, work, T2, sm, aux = S[4], S[6], S[7], S[9], S[10], S[11], S[12]
    if not load_q(B, q):
        return BAD_INPUT
    if not couplings_only(K):
        placements_state(B, B.shape[0] - 1)
        for i in range(1, B.shape[0]):
            world_twists(B, i)
        world_velocities(B, v)
    if not constraint_rows(B, K, TF, q, v, Jst, work[2, :phi.shape[0]], phi, aux, Ja, Jb, T2, sm):
        return DEGENERATE
    return OK


@nb.njit
def minv_jt(K, S, x, out):
    """out (nv) <- M^-1 J^T G^-1 x with the factors in S (x is overwritten by G^-1 x):
    U^-T D^-1/2 Y^T G^-1 x."""
    lam_dof, sub, span, M, Jst, Y, Ja, Jb, G, work, T2, sm, aux, path, Uc = S
    nv = M.shape[0]
    cholesky_solve(G, span[:, 2], x)
    for k in range(nv):
        out[k] = 0.0
    add_rows_t(K, path, Y, x, out)
    for k in range(nv):
        out[k] *= work[3, k]
    solve_ut(M, sub, out)


@nb.njit
def on_manifold(B, K, TF, q, v, S, phi, tol, drift):
    """drift (2) <- max |phi|, max |J v| at (q, v); True when both are within tol, so that
    :func:`project` would leave the state as it is (a step whose solve holds J v = 0 on loops
    that are linear in q, e.g. coupled or mimic joints): the contact pipeline then skips it."""
    if rows_state(B, K, TF, q, v, S, phi) != OK:
        return False
    res = 0.0
    for r in range(phi.shape[0]):
        res = max(res, abs(phi[r]))
    drift[0], drift[1] = res, max_jv(S[4], v)
    return drift[0] <= tol and drift[1] <= tol


@nb.njit
def max_jv(Jst, v):
    out = 0.0
    for r in range(Jst.shape[0]):
        x = 0.0
        for k in range(v.shape[0]):
            x += Jst[r, k] * v[k]
        out = max(out, abs(x))
    return out


@nb.njit
def project(B, K, TF, q, v, S, phi, tol, maxit, do_project, drift, tmp):
    """Drift at (q, v) into drift (2); then, when ``do_project``, (q, v) moved onto the manifold,
    leaving the factors at the final q in S. tmp (3, max(nq, nv, m)) scratch. A return code
    (NOT_ASSEMBLED when |phi| stays above 1e-6)."""
    Jst = S[4]
    m, nq, nv = phi.shape[0], q.shape[0], v.shape[0]
    if not do_project:
        code = rows_state(B, K, TF, q, v, S, phi)
        res = 0.0
        for r in range(m):
            res = max(res, abs(phi[r]))
        drift[0], drift[1] = res, max_jv(Jst, v)
        return code
    res = 0.0
    for it in range(maxit + 1):
        if not load_q(B, q):
            return BAD_INPUT
        code = factor_state(B, K, TF, q, v, S, phi, np.bool_(False))
        if code != OK:
            return code
        res = 0.0
        for r in range(m):
            res = max(res, abs(phi[r]))
        if it == 0:
            drift[0], drift[1] = res, max_jv(Jst, v)
        if res <= tol or it == maxit:
            break
        x = tmp[0, :m]                 # Gauss-Newton in the metric of M: dq = -M^-1 J^T G^-1 phi
        for r in range(m):
            x[r] = phi[r]
        minv_jt(K, S, x, tmp[1, :nv])
        for k in range(nv):
            tmp[1, k] = -tmp[1, k]
        integrate_q(B, q, tmp[1, :nv], 1.0, tmp[2, :nq])
        for k in range(nq):
            q[k] = tmp[2, k]
    if res > 1e-6:
        return NOT_ASSEMBLED
    x = tmp[0, :m]                   # the factors at the final q: v <- v - M^-1 J^T G^-1 J v
    for r in range(m):
        s = 0.0
        for k in range(nv):
            s += Jst[r, k] * v[k]
        x[r] = s
    minv_jt(K, S, x, tmp[1, :nv])
    for k in range(nv):
        v[k] -= tmp[1, k]
    return OK


@nb.njit
def stage_torque(B, tau, ctrl, t, q, v, W, fext, out):
    """out <- tau plus the controller's torque at (t, q, v) (:func:`.stepping.controller_torque`;
    ``ctrl`` = (ci, gains, ref_t, ref_q, ref_v, ref_a), ci[CI_CTRL] NONE: no controller)."""
    ci, gains, ref_t, ref_q, ref_v, ref_a = ctrl
    for c in range(out.shape[0]):
        out[c] = tau[c]
    if ci[CI_CTRL] != NONE:
        load_q(B, q)
        controller_torque(B, ci, q, v, gains, ref_t, ref_q, ref_v, ref_a, t, W, fext, out)


@nb.njit(cache=True)
def simulate_constrained_run(B, K, TF, q, v, tau_v, fext, ctrl, opts, alpha, beta, method, h, nsteps, every,
                             do_project, tol, maxit, assemble, t0, q_out, v_out, a_out, tau_out, lam_out, drift_out,
                             e_out, si):
    """A run of ``nsteps`` steps from (q, v), modified in place; samples every ``every`` steps
    (``q_out`` ... with ``nsteps // every + 1`` rows). ``tau_v`` (1 or nsteps + 1, nv): constant, or
    one row per step (held); ``ctrl``: a compiled controller's tables, its torque added at every
    stage (:func:`stage_torque`; the run's time starts at t0). e_out (S, 2): kinetic and potential
    energy of each sample. With
    ``assemble``, the initial state is first assembled (projected, up to 50 iterations); without,
    it is taken as it is (a run carried on from the end of another: the Python side runs long
    runs in pieces). si[SI_STEP] <- steps taken, si[SI_CODE] <- the return code."""
    nq, nv, m = int(B[0, IQ]), int(B[0, IV]), lam_out.shape[1]
    S = scratch(B, K, m)
    n = max(nq, nv, m, 1)
    Wk = np.zeros((2 * 4 + 6, n))          # rows 0-3: stage rates KX, 4-7: KV; 8: xi, 9: stage v, 10: stage q
    lam, phi, wr = np.zeros(m), np.zeros(m), np.zeros((K.shape[0], 6))
    lam_s = np.zeros(m)
    tmp = np.zeros((3, n))
    drift = np.zeros(2)
    energy, e_stage = np.zeros(2), np.zeros(2)
    Wc, tau = np.zeros((W_ROWS, n)), np.zeros(nv)
    factored = False
    if assemble:
        code = project(B, K, TF, q, v, S, phi, tol, 50, True, drift, tmp)    # the initial state, assembled
        drift[0] = drift[1] = 0.0
        if code != OK:
            si[SI_STEP], si[SI_CODE] = 0, code
            return code
        factored = True
    j = 0
    for k in range(nsteps + 1):
        stage_torque(B, tau_v[k if tau_v.shape[0] > 1 else 0], ctrl, t0 + k * h, q, v, Wc, fext, tau)
        code = dynamics(B, K, TF, q, v, tau, fext, opts, alpha, beta, S, Wk[4, :nv], lam, phi, wr, energy, factored)
        if code != OK:
            si[SI_STEP], si[SI_CODE] = k, code
            return code
        if k % every == 0:
            for c in range(nq):
                q_out[j, c] = q[c]
            for c in range(nv):
                v_out[j, c] = v[c]
                a_out[j, c] = Wk[4, c]
                tau_out[j, c] = tau[c]
            for r in range(m):
                lam_out[j, r] = lam[r]
            drift_out[j, 0], drift_out[j, 1] = drift[0], drift[1]
            e_out[j, 0], e_out[j, 1] = energy[0], energy[1]
            j += 1
        if k == nsteps:
            break
        if method == SEMI_IMPLICIT:
            for c in range(nv):
                v[c] += h * Wk[4, c]
            integrate_q(B, q, v, h, Wk[10, :nq])
        else:   # RKMK4 in the chart at q (as stepping.fixed_step)
            for c in range(nv):
                Wk[0, c] = v[c]
            for s in range(1, 4):
                f = 0.5 if s < 3 else 1.0
                for c in range(nv):
                    Wk[8, c] = f * h * Wk[s - 1, c]
                    Wk[9, c] = v[c] + f * h * Wk[4 + s - 1, c]
                integrate_q(B, q, Wk[8, :nv], 1.0, Wk[10, :nq])
                stage_torque(B, tau_v[k if tau_v.shape[0] > 1 else 0], ctrl, t0 + (k + f) * h, Wk[10, :nq],
                             Wk[9, :nv], Wc, fext, tau)
                code = dynamics(B, K, TF, Wk[10, :nq], Wk[9, :nv], tau, fext, opts, alpha, beta, S, Wk[4 + s, :nv],
                                lam_s, phi, wr, e_stage, False)    # (energies unused: one specialization)
                if code != OK:
                    si[SI_STEP], si[SI_CODE] = k, code
                    return code
                dexp_inv_v(B, Wk[8, :nv], Wk[9, :nv], Wk[s, :nv])
            for c in range(nv):
                Wk[8, c] = h / 6.0 * (Wk[0, c] + 2.0 * Wk[1, c] + 2.0 * Wk[2, c] + Wk[3, c])
                v[c] += h / 6.0 * (Wk[4, c] + 2.0 * Wk[5, c] + 2.0 * Wk[6, c] + Wk[7, c])
            integrate_q(B, q, Wk[8, :nv], 1.0, Wk[10, :nq])
        for c in range(nq):
            q[c] = Wk[10, c]
        if not (all_finite(q) and all_finite(v)):
            si[SI_STEP], si[SI_CODE] = k + 1, NONFINITE
            return NONFINITE
        code = project(B, K, TF, q, v, S, phi, tol, maxit, do_project, drift, tmp)
        factored = do_project     # the projection leaves the factors at the new q
        if code != OK:
            si[SI_STEP], si[SI_CODE] = k + 1, code
            return code
    si[SI_STEP], si[SI_CODE] = nsteps, OK
    return OK
