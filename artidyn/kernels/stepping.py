"""Compiled time stepping: a whole simulation (or a segment of one) in one compiled call.

Mirrors :mod:`artidyn.sim.integrate` (the readable reference steppers) and extends it. The
dynamics stage is ``a = aba(q, v, tau(t, q, v), f_ext(t))`` (:mod:`.aba`) with the torque made of
the user's input (constant or a table over time) plus an optional compiled controller (PD or
computed torque, :func:`controller_torque`). The integrators work, like the reference, in the
local chart at the step's start, ``q(xi) = q_k (+) xi`` (:mod:`.manifold`)::

    semi-implicit Euler   v+ = v + h a(q, v);            q+ = q (+) h v+
    RK4 (RKMK4)           four stages in the chart, as sim.integrate.rk4_step
    implicit (fast)       (M + h D) (v+ - v) = h M a;    q+ = q (+) h v+
                          D = joint damping + the PD controller's kd (MuJoCo's "implicitfast":
                          the velocity derivative of the Coriolis terms is left out)
    Dormand-Prince 5(4)   adaptive, error per step <= atol + rtol |y|, FSAL, and the
                          4th-order continuous extension for samples between steps
                          (Hairer, Norsett & Wanner, "Solving Ordinary Differential Equations I",
                          sec. II.5 and II.6)

Samples (``t_out``) are written as the run reaches them: q, v, a, tau and the energies (T, V).
The run stops early, with a status code, on a non-finite state, an energy error above the
tolerance in a conservative run, a step-size underflow or the step budget; its state is kept in
``st_q``, ``st_v``, ``si``, ``sf`` so that the Python side can resume a segment (progress bars,
Python controllers) or report a partial result.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .aba import aba_state
from .crba import crba_state
from .energy import energy_after_dynamics
from .forces import element_wrenches
from .hybrid import hybrid_state
from .manifold import dexp_inv_v, difference_q, integrate_q
from .pack import C as SCRATCH, IQ, IV, PARENT, RA, V as TWIST
from .rnea import rnea_state
from .spatial import FMA, all_finite, joint_motion, joint_transform, load_q, motion_to_child
from .types import FRICTION, HAS_FEXT, NO_COULOMB
from .slots import (PRESCRIBED, BAD_INPUT, CF_ATOL, CF_BSCALE, CI_BALANCE, DIVERGED, SF_ABSW, SF_BE0, SF_EXCESS,
                    SF_KMAX, SF_P1, SF_WORK, SI_CHECKS, CF_DT, CF_ENERGY_TOL, CF_ESCALE, CF_RTOL, CF_SIZE, CF_T0, CI_CLAMP_SAMPLES,
                    CI_CONSERVATIVE, CI_COULOMB, CI_CTRL, CI_EVERY, CI_FEXT, CI_FRICTION, CI_MAX_STEPS, CI_METHOD,
                    CI_NSTEPS, CI_RECORD, CI_SIZE, CI_STEP_LIMIT, CI_TAU, COMPUTED_TORQUE, CONSTANT, DOPRI5, DP_A,
                    DP_C, DP_D, DP_E, ENERGY, G_ACT, G_COUL, G_DAMP, G_KD, G_KP, HOLD, IMPLICIT, LINEAR, MAX_STEPS,
                    NONE, NONFINITE, NOT_SPD, OK, PD, PGS_SWEEPS, REC_A, REC_ENERGY, REC_Q, REC_TAU, REC_V, RK4,
                    SEMI_IMPLICIT, SF_DRIFT, SF_DUMAX, SF_E0, SF_ESCALE, SF_H, SF_SIZE, SF_T, SF_TMAX, SF_U0,
                    SI_ACCEPTED, SI_EVALS, SI_EVENTS, SI_FSAL, SI_REJECTED, SI_SAMPLE, SI_SIZE, SI_STATUS, SI_STEP,
                    UNDERFLOW, W_A, W_AR, W_C1, W_C2, W_DA, W_DT, W_KV, W_KX, W_Q, W_QPREV, W_QR, W_ROWS, W_T1,
                    W_TAU, W_TS, W_V, W_VR, W_X, W_XI)  # noqa: F401  (also read from here)


@nb.njit(fastmath=FMA)
def finite_n(x, n):
    """True when x[0 .. n-1] are all finite (no slice: a view costs a reference count)."""
    for k in range(n):
        if x[k] - x[k] != 0.0:
            return False
    return True


# --- inputs over time --------------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def table_row(tt, t, left):
    """Index k of the table row in force at time t: the last tt[k] <= t (``left``: tt[k] < t, the
    value held up to a breakpoint), within a rounding tolerance; 0 before the table."""
    eps = 1e-9 * (abs(t) + (tt[tt.shape[0] - 1] - tt[0]) / max(1, tt.shape[0] - 1) + 1e-300)
    x = t - eps if left else t + eps
    lo, hi = 0, tt.shape[0] - 1
    if x < tt[0]:
        return 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if tt[mid] <= x:
            lo = mid
        else:
            hi = mid - 1
    return lo


@nb.njit(fastmath=FMA)
def table_weight(tt, t, k):
    """Linear interpolation weight s in [0, 1] between rows k and k + 1 at time t."""
    if k + 1 >= tt.shape[0]:
        return 0.0
    s = (t - tt[k]) / (tt[k + 1] - tt[k])
    return min(1.0, max(0.0, s))


@nb.njit(fastmath=FMA)
def input_vector(mode, tt, tv, t, left, out):
    """out <- a vector input (rows of tv (K, n)) at time t: constant row 0, held, or interpolated."""
    n = tv.shape[1]
    if mode == NONE:
        for c in range(n):
            out[c] = 0.0
        return
    k = 0 if mode == CONSTANT else table_row(tt, t, left)
    if mode == LINEAR:
        s = table_weight(tt, t, k)
        if s > 0.0:
            for c in range(n):
                out[c] = (1.0 - s) * tv[k, c] + s * tv[k + 1, c]
            return
    for c in range(n):
        out[c] = tv[k, c]


@nb.njit(fastmath=FMA)
def input_wrenches(mode, ft, fv, t, left, out):
    """out (nb+1, 6) <- external wrenches at time t (rows of fv (K, nb+1, 6))."""
    k = 0 if mode == CONSTANT else table_row(ft, t, left)
    s = table_weight(ft, t, k) if mode == LINEAR else 0.0
    for i in range(out.shape[0]):
        for r in range(6):
            out[i, r] = fv[k, i, r] if s == 0.0 else (1.0 - s) * fv[k, i, r] + s * fv[k + 1, i, r]


@nb.njit(fastmath=FMA)
def reference(B, ref_t, ref_q, ref_v, ref_a, t, W):
    """W[W_QR], W[W_VR], W[W_AR] <- the reference (q, v, a) at time t; q interpolated on the
    manifold, q_k (+) s (q_k+1 (-) q_k)."""
    nq, nv = int(B[0, IQ]), int(B[0, IV])
    k = table_row(ref_t, t, False)
    s = table_weight(ref_t, t, k)
    if s == 0.0:
        W[W_QR, :nq] = ref_q[k]
        W[W_VR, :nv] = ref_v[k]
        W[W_AR, :nv] = ref_a[k]
        return
    difference_q(B, ref_q[k], ref_q[k + 1], W[W_C1])
    integrate_q(B, ref_q[k], W[W_C1], s, W[W_QR])
    for c in range(nv):
        W[W_VR, c] = (1.0 - s) * ref_v[k, c] + s * ref_v[k + 1, c]
        W[W_AR, c] = (1.0 - s) * ref_a[k, c] + s * ref_a[k + 1, c]


@nb.njit(fastmath=FMA)
def controller_torque(B, ci, q, v, gains, ref_t, ref_q, ref_v, ref_a, t, W, Fs, tau):
    """tau += the controller's torque on the actuated dofs (gains rows: kp, kd, actuated 0/1)::

        PD:                kp (q_ref (-) q) + kd (v_ref - v)
        computed torque:   rnea(q, v, a_ref + kd (v_ref - v) + kp (q_ref (-) q))

    (A prescribed motion is no torque: :func:`prescribe` and the hybrid dynamics of :func:`accel`.)
    """
    nv = int(B[0, IV])
    if ci[CI_CTRL] == PRESCRIBED:
        return
    reference(B, ref_t, ref_q, ref_v, ref_a, t, W)
    difference_q(B, q, W[W_QR], W[W_C1])
    for c in range(nv):
        fb = gains[G_KP, c] * W[W_C1, c] + gains[G_KD, c] * (W[W_VR, c] - v[c])
        if ci[CI_CTRL] == PD:
            tau[c] += gains[G_ACT, c] * fb
        else:
            W[W_C2, c] = W[W_AR, c] + fb
    if ci[CI_CTRL] == COMPUTED_TORQUE:
        opts = FRICTION if ci[CI_FRICTION] else 0
        rnea_state(B, v, W[W_C2, :nv], Fs, opts, W[W_C1, :nv])
        for c in range(nv):
            tau[c] += gains[G_ACT, c] * W[W_C1, c]


@nb.njit(fastmath=FMA)
def element_inputs(B, ci, t, left, q, v, f_t, f_v, fe, Fs):
    """Fs <- the external wrenches at time t plus the force elements' at (q, v) (q loaded by
    ``load_q``); untouched without either. False when an element's wrench is not finite."""
    if ci[CI_FEXT] != NONE:
        input_wrenches(ci[CI_FEXT], f_t, f_v, t, left, Fs)
    elif fe.shape[0] > 0:
        for i in range(Fs.shape[0]):
            for r in range(6):
                Fs[i, r] = 0.0
    if fe.shape[0] == 0:
        return True
    element_wrenches(B, fe, q, v, Fs)
    for i in range(Fs.shape[0]):
        if not finite_n(Fs[i], 6):
            return False
    return True


@nb.njit(fastmath=FMA)
def prescribe(B, ref_t, ref_q, ref_v, ref_a, gains, t, q, v, W):
    """A prescribed motion (the dofs with ``gains[G_ACT] = 1``): q <- q (+) S (q_ref(t) (-) q) and
    v <- v_ref(t) on those dofs (S: their selection), W[W_AR] their acceleration a_ref(t). The
    other dofs keep their state; whole joints are prescribed, so a ball or free joint's q is set
    to q_ref's on the manifold."""
    nq, nv = int(B[0, IQ]), int(B[0, IV])
    reference(B, ref_t, ref_q, ref_v, ref_a, t, W)
    difference_q(B, q, W[W_QR], W[W_C2])
    for c in range(nv):
        W[W_C2, c] *= gains[G_ACT, c]
        if gains[G_ACT, c] != 0.0:
            v[c] = W[W_VR, c]
    integrate_q(B, q, W[W_C2], 1.0, W[W_C1])
    for c in range(nq):
        q[c] = W[W_C1, c]


@nb.njit(fastmath=FMA)
def accel(B, ci, t, left, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, W, Fs, a, tau,
          extra=0):
    """The dynamics stage: tau <- tau(t, q, v), a <- aba(q, v, tau, f_ext(t) + the force elements'
    wrenches at (q, v)); False when q is not valid or a is not finite. ``extra``: more aba option
    bits (NO_COULOMB). ``fe``: the force elements' table (:mod:`.forces`; no rows: none).
    A prescribed motion (ci[CI_CTRL] == PRESCRIBED): its dofs of (q, v) are first set to the
    motion's at t (:func:`prescribe`), then the hybrid dynamics (Featherstone, "Rigid Body Dynamics
    Algorithms", sec. 9.2) give a on the free dofs and, in tau, the torques that the prescribed
    dofs need."""
    if ci[CI_CTRL] == PRESCRIBED:
        prescribe(B, ref_t, ref_q, ref_v, ref_a, gains, t, q, v, W)
    if not load_q(B, q):
        return False
    nv = int(B[0, IV])
    input_vector(ci[CI_TAU], tau_t, tau_v, t, left, tau)
    opts = (FRICTION | extra) if ci[CI_FRICTION] else 0
    if not element_inputs(B, ci, t, left, q, v, f_t, f_v, fe, Fs):
        return False
    if ci[CI_FEXT] != NONE or fe.shape[0] > 0:
        opts |= HAS_FEXT
    if ci[CI_CTRL] != NONE:
        controller_torque(B, ci, q, v, gains, ref_t, ref_q, ref_v, ref_a, t, W, Fs, tau)
    if not finite_n(tau, nv):
        return False
    if ci[CI_CTRL] == PRESCRIBED:
        hybrid_state(B, v, W[W_AR], tau, gains[G_ACT], Fs, opts, a, tau)
        return finite_n(a, nv) and finite_n(tau, nv)
    aba_state(B, v, tau, Fs, opts, a)
    return finite_n(a, nv)


# --- small linear algebra (implicit step) ------------------------------------------------------

@nb.njit(fastmath=FMA)
def cholesky(M):
    """M <- its lower Cholesky factor L (M = L L^T, lower triangle); False when M is not
    positive definite."""
    n = M.shape[0]
    for j in range(n):
        d = M[j, j]
        for k in range(j):
            d -= M[j, k] * M[j, k]
        if not d > 0.0:
            return False
        d = math.sqrt(d)
        M[j, j] = d
        for i in range(j + 1, n):
            s = M[i, j]
            for k in range(j):
                s -= M[i, k] * M[j, k]
            M[i, j] = s / d
    return True


@nb.njit(fastmath=FMA)
def cholesky_solve(L, b):
    """b <- (L L^T)^-1 b for the factor of :func:`cholesky`."""
    n = L.shape[0]
    M = L
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= M[i, k] * b[k]
        b[i] = s / M[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for k in range(i + 1, n):
            s -= M[k, i] * b[k]
        b[i] = s / M[i, i]


@nb.njit(fastmath=FMA)
def coulomb_box(nv, h, gains, L, G, v, lam):
    """Joint Coulomb friction as impulses in the implicit step (MuJoCo's "frictionloss" idea).

    With ``A = M + h D`` (factor L) and the friction-free step ``v`` on input, the step with
    friction is ``v+ = v + A^-1 lam``, each dof's impulse ``|lam_j| <= h coulomb_j`` and opposed
    to ``v+_j``, zero ``v+_j`` while it sticks (Coulomb's law, stick and slip). That is the box-
    constrained problem ``min 1/2 lam^T G lam + lam^T v``, ``G = A^-1``, solved by projected
    Gauss-Seidel over the dofs with friction (G's columns for them in G). v <- v+.
    """
    for j in range(nv):
        lam[j] = 0.0
        if gains[G_COUL, j] > 0.0:
            for r in range(nv):
                G[r, j] = 1.0 if r == j else 0.0
            cholesky_solve(L, G[:, j])
    for sweep in range(PGS_SWEEPS):
        change = 0.0
        for j in range(nv):
            c = h * gains[G_COUL, j]
            if c <= 0.0:
                continue
            new = min(c, max(-c, lam[j] - v[j] / G[j, j]))
            d = new - lam[j]
            if d != 0.0:
                for r in range(nv):
                    v[r] += G[r, j] * d
                lam[j] = new
                change = max(change, abs(d) / c)
        if change < 1e-12:
            break


# --- bookkeeping: samples, limits, energy --------------------------------------------------------

@nb.njit(fastmath=FMA)
def write_sample(B, ci, cf, j, q, v, a, tau, q_out, v_out, a_out, tau_out, e_out, sf):
    """Sample j <- the state (q, v) with the acceleration and torque a, tau there (the arrays
    that ci[CI_RECORD] selects); energy check. The dynamics pass that gave a must be the
    table's last (its energies are read from it). Returns False when a conservative run's
    energy error exceeds its tolerance."""
    nq, nv, rec = int(B[0, IQ]), int(B[0, IV]), ci[CI_RECORD]
    if rec & REC_Q:
        for c in range(nq):
            q_out[j, c] = q[c]
    for c in range(nv):
        if rec & REC_V:
            v_out[j, c] = v[c]
        if rec & REC_A:
            a_out[j, c] = a[c]
        if rec & REC_TAU:
            tau_out[j, c] = tau[c]
    kin, pot = energy_after_dynamics(B, v)
    if rec & REC_ENERGY:
        e_out[j, 0] = kin
        e_out[j, 1] = pot
    if j == 0:   # the energy scale's floor: m g (robot size) from Python, or the initial kinetic energy
        sf[SF_E0], sf[SF_TMAX], sf[SF_DUMAX], sf[SF_DRIFT], sf[SF_U0] = kin + pot, kin, 0.0, 0.0, pot
        sf[SF_ESCALE] = max(cf[CF_ESCALE], kin)
        return True
    sf[SF_TMAX] = max(sf[SF_TMAX], kin)
    sf[SF_DUMAX] = max(sf[SF_DUMAX], abs(pot - sf[SF_U0]))
    scale = max(sf[SF_TMAX], sf[SF_DUMAX], sf[SF_ESCALE])
    drift = abs(kin + pot - sf[SF_E0]) / scale if scale > 0.0 else 0.0
    sf[SF_DRIFT] = max(sf[SF_DRIFT], drift)
    return not (ci[CI_CONSERVATIVE] and drift > cf[CF_ENERGY_TOL])


@nb.njit(fastmath=FMA)
def input_power(B, ci, t, left, q, v, tau, f_t, f_v, fe, gains, W, Fs, fresh):
    """The power of the inputs at (t, q, v): ``tau . v`` (tau: the input with the controller's
    torque, as :func:`accel` leaves it; the joint friction and damping are no inputs) plus the
    external wrenches' ``sum_i f_i . v_i`` (body twists, body frames). A PD controller is a spring
    and a damper towards its reference (:func:`balance` counts the spring's energy): its input is
    the power at the reference's velocity, ``tau_pd . v_ref``, so that the term
    ``tau_pd . (v_ref - v)`` replaces its ``tau_pd . v``. ``fresh``: the table, Fs and the
    controller's rows of W hold the dynamics pass of (t, q, v); else (the Euler steps: the torque
    of the step at its new velocity v) the twists are computed here and Fs, the wrenches of the
    step's start pass, held over the step as its torque. The force elements' wrenches (in Fs) are
    inputs too: their power, the drag's dissipation and the springs' work, enters the balance as
    work (so the springs' energy needs no term of its own in E)."""
    nv = int(B[0, IV])
    p = 0.0
    for c in range(nv):
        p += tau[c] * v[c]
    if ci[CI_CTRL] == PD:       # W_C1: q_ref (-) q, W_VR: v_ref of the step's (or stage's) pass
        for c in range(nv):
            if gains[G_ACT, c] != 0.0:
                tpd = gains[G_KP, c] * W[W_C1, c] + gains[G_KD, c] * (W[W_VR, c] - (v[c] if fresh else W[W_X, c]))
                p += gains[G_ACT, c] * tpd * (W[W_VR, c] - v[c])
    if ci[CI_FEXT] == NONE and fe.shape[0] == 0:
        return p
    if not fresh:    # Fs: the step's start pass (its wrenches, and the elements' at the start's velocity)
        load_q(B, q)
        for r in range(6):
            B[0, TWIST + r] = 0.0
        for i in range(1, B.shape[0]):
            joint_transform(B, i)
            joint_motion(B, i, v, SCRATCH)
            motion_to_child(B, i, int(B[i, PARENT]), TWIST, TWIST)
            for r in range(6):
                B[i, TWIST + r] += B[i, SCRATCH + r]
    for i in range(1, B.shape[0]):      # the wrench turned to the table's internal axes (Ra^T), as aba does
        for r in range(3):
            e0, e1, e2 = B[i, RA + r], B[i, RA + 3 + r], B[i, RA + 6 + r]
            p += (e0 * Fs[i, 0] + e1 * Fs[i, 1] + e2 * Fs[i, 2]) * B[i, TWIST + r]
            p += (e0 * Fs[i, 3] + e1 * Fs[i, 4] + e2 * Fs[i, 5]) * B[i, TWIST + 3 + r]
    return p


@nb.njit(fastmath=FMA)
def balance(B, ci, cf, v, gains, W, sf, si):
    """The energy balance of a run with inputs, at the state of the table's last dynamics pass.

    The inputs (torques, a computed-torque controller's torque, the reference of a PD controller,
    external wrenches) bring the work ``W`` into the system; the joint friction and damping and the
    PD's damping only take energy out of it, so that ``E - E0 <= W`` up to the integration error,
    with ``E = T + U (+ 1/2 kp |q_ref (-) q|^2 with a PD controller, its spring)``. A run whose
    energy exceeds this by more than ``energy_tol`` of its scale (the robot's weight times its
    size, the largest kinetic (or PD spring) energy, the absolute work of the inputs so far) has
    left its equations: False (it diverges)."""
    if not ci[CI_BALANCE]:
        return True
    kin, pot = energy_after_dynamics(B, v)
    spring = 0.0
    if ci[CI_CTRL] == PD:
        for c in range(int(B[0, IV])):
            spring += 0.5 * gains[G_ACT, c] * gains[G_KP, c] * W[W_C1, c] * W[W_C1, c]
    e = kin + pot + spring
    if si[SI_CHECKS] == 0:
        sf[SF_BE0], sf[SF_KMAX], sf[SF_WORK], sf[SF_ABSW], sf[SF_EXCESS] = e, 0.0, 0.0, 0.0, 0.0
    si[SI_CHECKS] += 1
    sf[SF_KMAX] = max(sf[SF_KMAX], kin, spring)
    scale = max(cf[CF_BSCALE], sf[SF_KMAX], sf[SF_ABSW])
    ratio = ((e - sf[SF_BE0]) - sf[SF_WORK]) / scale if scale > 0.0 else 0.0
    sf[SF_EXCESS] = max(sf[SF_EXCESS], ratio)
    return not ratio > cf[CF_ENERGY_TOL]


@nb.njit(fastmath=FMA)
def check_limits(B, lim, q_prev, q, t, events, si):
    """Record every entry of q that left its range during the step: (q index, t, value, side).
    Quaternion entries come with infinite limits (the Python side sets them), so only the flat
    joints' variables (revolute, prismatic, cylindrical) are ever recorded."""
    for k in range(int(B[0, IQ])):
        for side in range(2):
            bound = lim[side, k]
            if not math.isfinite(bound):
                continue
            out_now = q[k] < bound if side == 0 else q[k] > bound
            out_before = q_prev[k] < bound if side == 0 else q_prev[k] > bound
            if out_now and not out_before:
                n = si[SI_EVENTS]
                if n < events.shape[0]:
                    events[n, 0], events[n, 1], events[n, 2], events[n, 3] = k, t, q[k], 2 * side - 1
                si[SI_EVENTS] = n + 1


# --- one step of each fixed-step method ----------------------------------------------------------

@nb.njit(fastmath=FMA)
def fixed_step(B, ci, t, h, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, W, Fs, M, G, sf):
    """(q, v) <- one step of the fixed-step method from (t, q, v); W[W_A], W[W_TAU] hold a and tau
    at (t, q, v), and the table that dynamics pass. Returns a status code (OK, NONFINITE, NOT_SPD).
    With ci[CI_BALANCE], adds the inputs' work over the step to sf[SF_WORK] (and its absolute
    value to sf[SF_ABSW]) by the method's own quadrature: RK4 ``h/6 (P1 + 2 P2 + 2 P3 + P4)`` of
    the stages' powers, the Euler steps ``h P(t, q, v+)`` with the torque of the step."""
    nq, nv = int(B[0, IQ]), int(B[0, IV])
    method = ci[CI_METHOD]
    if method == SEMI_IMPLICIT or method == IMPLICIT:
        for c in range(nv):
            W[W_X, c] = v[c]     # the velocity at the step's start (the PD's torque of the step)
        if method == IMPLICIT:
            # (M + h D) dv = h M a, D = damping + the PD controller's kd on actuated dofs; with
            # Coulomb friction, a without it and the friction impulses from coulomb_box
            a0 = W[W_A]
            if ci[CI_COULOMB]:
                if not accel(B, ci, t, False, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a,
                             W, Fs, W[W_DA], W[W_DT], NO_COULOMB):
                    return NONFINITE
                a0 = W[W_DA]
            load_q(B, q)
            crba_state(B, M)
            for r in range(nv):
                x = 0.0
                for c in range(nv):
                    x += M[r, c] * a0[c]
                W[W_T1, r] = h * x
            for r in range(nv):
                d = gains[G_DAMP, r] if ci[CI_FRICTION] else 0.0
                if ci[CI_CTRL] == PD:
                    d += gains[G_KD, r] * gains[G_ACT, r]
                M[r, r] += h * d
            if not cholesky(M):
                return NOT_SPD
            cholesky_solve(M, W[W_T1, :nv])
            for c in range(nv):
                v[c] += W[W_T1, c]
            if ci[CI_COULOMB]:
                coulomb_box(nv, h, gains, M, G, v, W[W_C2])
        else:
            for c in range(nv):
                v[c] += h * W[W_A, c]
        if ci[CI_BALANCE]:   # the torque held over the step at the velocity it leads to
            p = input_power(B, ci, t, False, q, v, W[W_TAU], f_t, f_v, fe, gains, W, Fs, False)
            sf[SF_WORK] += h * p
            sf[SF_ABSW] += h * abs(p)
        integrate_q(B, q, v, h, W[W_Q])
        for c in range(nq):
            q[c] = W[W_Q, c]
        return OK
    # RK4 in the chart at q (as sim.integrate.rk4_step); stage rates in W_KX.., W_KV..
    bal = ci[CI_BALANCE] != 0
    if bal:
        p = input_power(B, ci, t, False, q, v, W[W_TAU], f_t, f_v, fe, gains, W, Fs, True)
        work, absw = p, abs(p)
    for c in range(nv):
        W[W_KX, c] = v[c]
        W[W_KV, c] = W[W_A, c]
    for s in range(1, 4):
        f = 0.5 if s < 3 else 1.0
        for c in range(nv):
            W[W_XI, c] = f * h * W[W_KX + s - 1, c]
            W[W_V, c] = v[c] + f * h * W[W_KV + s - 1, c]
        integrate_q(B, q, W[W_XI], 1.0, W[W_Q])
        if not accel(B, ci, t + f * h, True, W[W_Q], W[W_V], tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q,
                     ref_v, ref_a, W, Fs, W[W_KV + s], W[W_TS]):
            return NONFINITE
        if bal:
            p = input_power(B, ci, t + f * h, True, W[W_Q], W[W_V], W[W_TS], f_t, f_v, fe, gains, W, Fs, True)
            work += (1.0 if s == 3 else 2.0) * p
            absw += (1.0 if s == 3 else 2.0) * abs(p)
        dexp_inv_v(B, W[W_XI], W[W_V], W[W_KX + s])
    if bal:
        sf[SF_WORK] += h / 6.0 * work
        sf[SF_ABSW] += h / 6.0 * absw
    for c in range(nv):
        W[W_XI, c] = h / 6.0 * (W[W_KX, c] + 2.0 * W[W_KX + 1, c] + 2.0 * W[W_KX + 2, c] + W[W_KX + 3, c])
        v[c] += h / 6.0 * (W[W_KV, c] + 2.0 * W[W_KV + 1, c] + 2.0 * W[W_KV + 2, c] + W[W_KV + 3, c])
    integrate_q(B, q, W[W_XI], 1.0, W[W_Q])
    for c in range(nq):
        q[c] = W[W_Q, c]
    return OK


# --- the run ------------------------------------------------------------------------------------

@nb.njit(fastmath=FMA)
def fsal(B, ci, t, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, W, Fs, si):
    """Make W[W_A], W[W_TAU] the acceleration and torque at (t, q, v) unless they already are."""
    if si[SI_FSAL]:
        return True
    si[SI_EVALS] += 1
    ok = accel(B, ci, t, False, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, W, Fs,
               W[W_A], W[W_TAU])
    si[SI_FSAL] = 1 if ok else 0
    return ok


@nb.njit(fastmath=FMA)
def run_fixed(B, ci, cf, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, lim, t_out, j_stop,
              q_out, v_out, a_out, tau_out, e_out, events, si, sf, W, Fs, M, G):
    """Fixed-step run from step si[SI_STEP] until sample j_stop is written (or the step limit)."""
    nq = int(B[0, IQ])
    h, t0, every, nsteps = cf[CF_DT], cf[CF_T0], ci[CI_EVERY], ci[CI_NSTEPS]
    taken = 0
    while si[SI_SAMPLE] <= j_stop and taken < ci[CI_STEP_LIMIT]:
        j, k = si[SI_SAMPLE], si[SI_STEP]
        t = t0 + k * h
        if k == min(j * every, nsteps):
            si[SI_FSAL] = 0   # write_sample reads the table the dynamics pass leaves: recompute here
            if not fsal(B, ci, t, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, W, Fs, si):
                return NONFINITE
            if not balance(B, ci, cf, v, gains, W, sf, si):
                return DIVERGED       # before the sample: the result ends at the last sound state
            ok = write_sample(B, ci, cf, j, q, v, W[W_A], W[W_TAU], q_out, v_out, a_out, tau_out, e_out, sf)
            si[SI_SAMPLE] = j + 1
            if not ok:
                return ENERGY
            continue
        fresh = si[SI_FSAL] == 0     # not yet evaluated (nor balanced) at this step's start
        if not fsal(B, ci, t, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, W, Fs, si):
            return NONFINITE
        if fresh and not balance(B, ci, cf, v, gains, W, sf, si):
            return DIVERGED
        for c in range(nq):
            W[W_QPREV, c] = q[c]
        status = fixed_step(B, ci, t, h, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, W, Fs,
                            M, G, sf)
        si[SI_FSAL] = 0
        si[SI_EVALS] += 3 if ci[CI_METHOD] == RK4 else 0
        if status != OK:
            return status
        if not (all_finite(q) and all_finite(v)):
            return NONFINITE
        si[SI_STEP] = k + 1
        si[SI_ACCEPTED] += 1
        taken += 1
        check_limits(B, lim, W[W_QPREV], q, t0 + (k + 1) * h, events, si)
    return OK


@nb.njit(fastmath=FMA)
def dopri_error(nv, h, W, v, atol, rtol):
    """RMS of the local error estimate h sum_i e_i k_i over the scale atol + rtol |y|."""
    acc = 0.0
    for c in range(nv):
        ex = 0.0
        ev = 0.0
        for s in range(7):
            ex += DP_E[s] * W[W_KX + s, c]
            ev += DP_E[s] * W[W_KV + s, c]
        sx = atol + rtol * abs(W[W_XI, c])
        sv = atol + rtol * max(abs(v[c]), abs(W[W_V, c]))
        acc += (h * ex / sx) ** 2 + (h * ev / sv) ** 2
    return math.sqrt(acc / (2 * nv)) if nv > 0 else 0.0


@nb.njit(fastmath=FMA)
def dense_sample(B, nv, h, theta, q0, v0, W, qs, vs):
    """(qs, vs) <- the continuous extension at t + theta h of the accepted step held in W."""
    for c in range(nv):
        for part in range(2):
            K = W_KX if part == 0 else W_KV
            y0 = 0.0 if part == 0 else v0[c]
            y1 = W[W_XI, c] if part == 0 else W[W_V, c]
            r2 = y1 - y0
            r3 = h * W[K, c] - r2
            r4 = r2 - h * W[K + 6, c] - r3
            r5 = 0.0
            for s in range(7):
                r5 += DP_D[s] * W[K + s, c]
            r5 *= h
            y = y0 + theta * (r2 + (1.0 - theta) * (r3 + theta * (r4 + (1.0 - theta) * r5)))
            if part == 0:
                W[W_X, c] = y
            else:
                vs[c] = y
    integrate_q(B, q0, W[W_X], 1.0, qs)


@nb.njit(fastmath=FMA)
def run_dopri(B, ci, cf, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, lim, t_out, j_stop,
              q_out, v_out, a_out, tau_out, e_out, events, si, sf, W, Fs, qs, vs):
    """Adaptive Dormand-Prince run from sf[SF_T] until sample j_stop is written."""
    nq, nv = int(B[0, IQ]), int(B[0, IV])
    rtol, atol = cf[CF_RTOL], cf[CF_ATOL]
    t_end = t_out[t_out.shape[0] - 1]
    breaks = ci[CI_TAU] == HOLD
    rejected_last = False
    tiny = 0
    bal = ci[CI_BALANCE] != 0
    P = np.zeros(7)            # the inputs' power at the stages (the energy balance)
    while si[SI_SAMPLE] <= j_stop:
        t, h = sf[SF_T], sf[SF_H]
        if si[SI_SAMPLE] == 0:
            si[SI_FSAL] = 0
            if not fsal(B, ci, t, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, W, Fs, si):
                return NONFINITE
            if not balance(B, ci, cf, v, gains, W, sf, si):
                return DIVERGED
            if bal:
                sf[SF_P1] = input_power(B, ci, t, False, q, v, W[W_TAU], f_t, f_v, fe, gains, W, Fs, True)
            si[SI_SAMPLE] = 1
            if not write_sample(B, ci, cf, 0, q, v, W[W_A], W[W_TAU], q_out, v_out, a_out, tau_out, e_out, sf):
                return ENERGY
            continue
        if si[SI_ACCEPTED] + si[SI_REJECTED] >= ci[CI_MAX_STEPS]:
            return MAX_STEPS
        # the step may not pass the end, a held table's breakpoint, or (Python inputs) the next sample
        stop = t_end
        if ci[CI_CLAMP_SAMPLES]:
            stop = min(stop, t_out[si[SI_SAMPLE]])
        if breaks:
            kb = table_row(tau_t, t, False) + 1
            if kb < tau_t.shape[0] and tau_t[kb] > t:
                stop = min(stop, tau_t[kb])
        at_break = False
        if t + 1.01 * h >= stop:
            h = stop - t
            at_break = True
        if not h > 1e-14 * max(1.0, abs(t)):
            return UNDERFLOW
        fresh = si[SI_FSAL] == 0
        if not fsal(B, ci, t, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, W, Fs, si):
            return NONFINITE
        if bal and fresh:      # else sf[SF_P1] holds the power at the last step's stage 7 (FSAL)
            sf[SF_P1] = input_power(B, ci, t, False, q, v, W[W_TAU], f_t, f_v, fe, gains, W, Fs, True)
        P[0] = sf[SF_P1]
        for c in range(nv):
            W[W_KX, c] = v[c]
            W[W_KV, c] = W[W_A, c]
        good = True
        for s in range(1, 7):
            for c in range(nv):
                x = 0.0
                y = 0.0
                for l in range(s):
                    x += DP_A[s][l] * W[W_KX + l, c]
                    y += DP_A[s][l] * W[W_KV + l, c]
                W[W_XI, c] = h * x
                W[W_V, c] = v[c] + h * y
            integrate_q(B, q, W[W_XI], 1.0, W[W_Q])
            si[SI_EVALS] += 1
            if not accel(B, ci, t + DP_C[s] * h, True, W[W_Q], W[W_V], tau_t, tau_v, f_t, f_v, fe, gains, ref_t,
                         ref_q, ref_v, ref_a, W, Fs, W[W_KV + s], W[W_TS]):
                good = False
                break
            if bal:
                P[s] = input_power(B, ci, t + DP_C[s] * h, True, W[W_Q], W[W_V], W[W_TS], f_t, f_v, fe, gains, W, Fs,
                                   True)
            dexp_inv_v(B, W[W_XI], W[W_V], W[W_KX + s])
        # W_XI, W_V now hold the 5th-order solution (stage 7 = b), W_KV + 6 its acceleration
        err = dopri_error(nv, h, W, v, atol, rtol) if good else np.inf
        if not err <= 1.0:
            si[SI_REJECTED] += 1
            fac = 0.2 if not good or not err < np.inf else max(0.2, 0.9 * err ** -0.2)
            sf[SF_H] = h * fac
            rejected_last = True
            if not sf[SF_H] > 1e-14 * max(1.0, abs(t)):
                return UNDERFLOW if good else NONFINITE
            continue
        # accepted: the energy balance at t + h (stage 7's pass, the work by the weights b), then
        # the samples inside (t, t + h] from the continuous extension
        if bal:
            work = 0.0
            absw = 0.0
            for l in range(6):
                work += DP_A[6][l] * P[l]
                absw += abs(DP_A[6][l] * P[l])
            sf[SF_WORK] += h * work
            sf[SF_ABSW] += h * absw
            sf[SF_P1] = P[6]
            if not balance(B, ci, cf, W[W_V], gains, W, sf, si):
                return DIVERGED
        t_new = stop if at_break else t + h
        # a stalled run (steps below 1e-12 of the horizon, 1000 times in a row) is an underflow too
        tiny = 0 if h > 1e-12 * (t_end - t_out[0]) else tiny + 1
        if tiny > 1000:
            return UNDERFLOW
        while si[SI_SAMPLE] < t_out.shape[0] and t_out[si[SI_SAMPLE]] <= t_new + 1e-12 * max(1.0, abs(t_new)):
            j = si[SI_SAMPLE]
            dense_sample(B, nv, h, min(1.0, (t_out[j] - t) / h), q, v, W, qs, vs)
            si[SI_EVALS] += 1
            if not accel(B, ci, t_out[j], False, qs, vs, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v,
                         ref_a, W, Fs, W[W_DA], W[W_DT]):
                return NONFINITE
            ok = write_sample(B, ci, cf, j, qs, vs, W[W_DA], W[W_DT], q_out, v_out, a_out, tau_out, e_out, sf)
            si[SI_SAMPLE] = j + 1
            if not ok:
                return ENERGY
        for c in range(nq):
            W[W_QPREV, c] = q[c]
        integrate_q(B, W[W_QPREV], W[W_XI], 1.0, q)
        for c in range(nv):
            v[c] = W[W_V, c]
            W[W_A, c] = W[W_KV + 6, c]
            W[W_TAU, c] = W[W_TS, c]
        # FSAL: stage 7 is a(t + h, q+, v+) unless the torque jumps at t + h (held table, sample)
        si[SI_FSAL] = 0 if (at_break and (breaks or ci[CI_CLAMP_SAMPLES])) else 1
        if not (all_finite(q) and all_finite(v)):
            return NONFINITE
        si[SI_ACCEPTED] += 1
        si[SI_STEP] += 1
        check_limits(B, lim, W[W_QPREV], q, t_new, events, si)
        sf[SF_T] = t_new
        fac = min(5.0, max(0.2, 0.9 * err ** -0.2)) if err > 0.0 else 5.0
        if rejected_last:
            fac = min(fac, 1.0)
        rejected_last = False
        sf[SF_H] = sf[SF_H] if at_break and sf[SF_H] > h else h * fac
    return OK


@nb.njit(fastmath=FMA)
def run_state(B, ci, cf, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, lim, t_out, j_stop,
              q_out, v_out, a_out, tau_out, e_out, events, si, sf, W, Fs, M, G, qs, vs):
    """One run (or segment): dispatch on the method; sets and returns si[SI_STATUS]."""
    if ci[CI_METHOD] == DOPRI5:
        status = run_dopri(B, ci, cf, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, lim,
                           t_out, j_stop, q_out, v_out, a_out, tau_out, e_out, events, si, sf, W, Fs, qs, vs)
    else:
        status = run_fixed(B, ci, cf, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, lim,
                           t_out, j_stop, q_out, v_out, a_out, tau_out, e_out, events, si, sf, W, Fs, M, G)
    si[SI_STATUS] = status
    return status


def work_arrays(nq, nv, nb1):
    """Scratch arrays of one run: W, Fs, M, G, qs, vs."""
    n = max(nq, nv, 1)
    return np.zeros((W_ROWS, n)), np.zeros((nb1, 6)), np.zeros((nv, nv)), np.zeros((nv, nv)), np.zeros(nq), np.zeros(nv)


@nb.njit(cache=True)
def simulate_segment(B, ci, cf, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, lim, t_out,
                     j_stop, q_out, v_out, a_out, tau_out, e_out, events, si, sf, W, Fs, M, G, qs, vs):
    """One run, or the segment of it up to sample j_stop, on the table's own work columns."""
    return run_state(B, ci, cf, q, v, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, lim, t_out,
                     j_stop, q_out, v_out, a_out, tau_out, e_out, events, si, sf, W, Fs, M, G, qs, vs)


@nb.njit(fastmath=FMA, cache=True, nogil=True)
def rollout(B, ci, cf, Q0, V0, tau_t, tau_v, f_t, f_v, fe, gains, ref_t, ref_q, ref_v, ref_a, lim, t_out,
            q_out, v_out, a_out, tau_out, e_out, events, si, sf, c, m):
    """Chunk c of m of N runs (rows of Q0, V0; tau_v (1 or N, K, nv), f_v (1 or N, K, nb+1, 6)), on a
    private copy of the table and private scratch; the chunks run on threads at once
    (:func:`artidyn.threads.run_chunks`; it releases the GIL)."""
    N = Q0.shape[0]
    lo, hi = c * N // m, (c + 1) * N // m
    Bc = B.copy()
    nq, nv = Q0.shape[1], V0.shape[1]
    n = max(nq, nv, 1)
    W = np.zeros((W_ROWS, n))
    Fs = np.zeros((B.shape[0], 6))
    M = np.zeros((nv, nv))
    G = np.zeros((nv, nv))
    qs = np.zeros(nq)
    vs = np.zeros(nv)
    S = t_out.shape[0]
    for r in range(lo, hi):
        q = Q0[r].copy()
        v = V0[r].copy()
        tv = tau_v[r] if tau_v.shape[0] > 1 else tau_v[0]
        fv = f_v[r] if f_v.shape[0] > 1 else f_v[0]
        run_state(Bc, ci, cf, q, v, tau_t, tv, f_t, fv, fe, gains, ref_t, ref_q, ref_v, ref_a, lim, t_out, S - 1,
                  q_out[r], v_out[r], a_out[r], tau_out[r], e_out[r], events[r], si[r], sf[r], W, Fs, M, G, qs, vs)

