"""The compiled time loop of a scene with unilateral rows: one run, or N runs in parallel.

Each step goes down the stages once (DESIGN's pipeline, MuJoCo's ``mj_step`` order)::

    inputs     tau = table(t) + controller(t, q, v) [+ a Python function], f_ext = table(t)
               [+ the force elements' wrenches at (q, v), :mod:`.forces`]
    step       kinematics -> collision -> rows (contacts, limits, bilateral) -> M, h -> one
               solve on the Delassus matrix -> Moreau-Jean update   (:func:`.contact_sim.step`)
    project    closed loops: the new (q, v) back onto phi = 0, J v = 0, mass-weighted (when it
               is off them by more than the tolerance)
               (:func:`.constrained_sim.project`)
    balance    the energy E = T + U against the work of the inputs (see :func:`balance`)

The inputs are those of the smooth engine (:mod:`.stepping`: tables held or interpolated,
compiled PD and computed-torque controllers). A Python function of the user is called once per
step from inside the loop (numba's object mode: the run never returns to Python), with the state
and the contact forces of the previous step.

A step that the compiled narrow phase cannot settle returns ``FALLBACK`` (the caller takes that
step on the readable route and resumes); a full contact log returns ``FULL``. The step's scratch
is sized by the contacts found, not by every pair that might touch: it starts with room for
``ROOM`` contacts and doubles (the step taken again) when a step finds more, up to ``cap``, the
most the candidate pairs can give; the memory of a run goes as the square of its contacts.
"""
import numba as nb
import numpy as np

from ..checks import MAX_STATE
from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .constrained import scratch as c_scratch
from .constrained_sim import on_manifold, project
from .broadphase import sweep_table
from .contact_jacobian import _frame, relative_velocity, twists
from .contact_sim import (BAD_INPUT, CODE_FALLBACK, CODE_FULL, CFW, I_CHORD, I_CODE, I_ITER, I_NC, I_NL, I_STEP,
                          NONFINITE, OK, S_MARGIN, S_THETA, W_NEXT, scratch, step)
from .pack import IQ, IV
from .rnea import rnea_state
from .slots import CI_CTRL, CI_FEXT, CI_TAU, G_ACT, G_KD, NONE, PD, W_ROWS
from .spatial import all_finite, load_q
from .forces import element_wrenches
from .stepping import controller_torque, input_vector, input_wrenches
from .types import FRICTION, HAS_FEXT

PY_ERROR, DIVERGED, NOT_ASSEMBLED, PY_RANGE = 7, 8, 9, 10     # return codes beyond those of .contact_sim
ROOM = 32                                       # the contacts a run's scratch first holds
PY_TAU, PY_FEXT = 1, 2                          # bits of ``python``: which inputs are Python functions
# PR (settings of the run, float): projection tolerance, its most iterations, balance tolerance,
# energy scale (the floor of the balance), the first step of the balance check
P_TOL, P_MAXIT, P_BAL_TOL, P_ESCALE = 0, 1, 2, 3

# the Python functions of the run in progress (set by artidyn.sim.pipeline around a run), and the
# exception one of them raised (re-raised by the caller)
PYTHON = [None]
PYTHON_ERROR = [None]


def python_inputs(t):
    """Object mode: the user's functions at time t, on the run's exchange buffer (see
    :func:`contact_run`); an exception is kept for the caller rather than unwound through the
    compiled loop."""
    try:
        PYTHON[0](t)
    except BaseException as e:  # noqa: BLE001 - re-raised by the caller, with its traceback
        PYTHON_ERROR[0] = e
        return 1
    return 0


@nb.njit
def call_python(t):
    """:func:`python_inputs` in object mode, from a function of its own: numba keeps the object-mode
    block's function serialized in the code and makes a bytes object of it at every call; lifted from
    the whole run, that was 600 kB copied a step (20-30 us), from here it is a few hundred bytes."""
    with nb.objmode(failed="int64"):
        failed = python_inputs(t)
    return failed


@nb.njit(cache=True)
def bilateral(B, K, TF, mb):
    """The bilateral tuple of a run: K, TF, the scratch of :mod:`.constrained` for mb rows, phi,
    G_bb's factor, its dropped rows and the impulses."""
    return K, TF, c_scratch(B, K, mb), np.zeros(mb), np.zeros((mb, mb)), np.zeros(mb, np.int64), np.zeros(mb)


@nb.njit
def _room(B, room, nl_max, ns, mb):
    """The step's scratch and candidate buffers (CC, CI) for ``room`` contacts."""
    return (scratch(B, room, 3 * (room + nl_max), nl_max, ns, mb), np.zeros((max(room, 1), 10)),
            np.zeros((max(room, 1), 3), np.int64))


@nb.njit
def inputs(B, IN, t, q, v, W, Fs, tau):
    """tau <- the input torques at (t, q, v); Fs <- the external wrenches; True when Fs is set."""
    ci, tau_t, tau_v, f_t, f_v, gains, ref_t, ref_q, ref_v, ref_a, fe = IN
    input_vector(ci[CI_TAU], tau_t, tau_v, t, False, tau)
    has_f = ci[CI_FEXT] != NONE
    if has_f:
        input_wrenches(ci[CI_FEXT], f_t, f_v, t, False, Fs)
    if ci[CI_CTRL] != NONE:
        load_q(B, q)
        controller_torque(B, ci, q, v, gains, ref_t, ref_q, ref_v, ref_a, t, W, Fs, tau)
    return has_f


@nb.njit
def implicit_damping(IN, nv):
    """The damping the Moreau-Jean step takes implicitly beside the joints' (nv): a PD
    controller's kd on its actuated dofs (MuJoCo's "implicitfast" likewise), so that the gains a
    light link needs do not drive it unstable at the step (h kd / m > 2 would, explicitly)."""
    ci, gains = IN[0], IN[5]
    dx = np.zeros(nv)
    if ci[CI_CTRL] == PD:
        for c in range(nv):
            dx[c] = gains[G_KD, c] * gains[G_ACT, c]
    return dx


@nb.njit
def external_power(B, q, vm, Fs, z, g0, g1):
    """The power of the external wrenches Fs at the velocity vm: (J^T f) . vm, with J^T f the
    difference of two static RNEAs (with and without Fs)."""
    load_q(B, q)
    rnea_state(B, z, z, Fs, 0, g0)
    rnea_state(B, z, z, Fs, HAS_FEXT, g1)
    p = 0.0
    for k in range(vm.shape[0]):
        p += (g0[k] - g1[k]) * vm[k]
    return p


@nb.njit
def balance(E, E0, work, absw, tmax, PR):
    """True while the energy balance holds. The inputs, friction, damping, contacts and limits
    can only bring ``work`` into the scene or take energy out of it, so that
    ``E - E0 <= work`` up to the integration error; a run whose energy grows beyond the work of
    its inputs by more than ``P_BAL_TOL`` of the scale (the larger of the energy scale of the
    robot, the largest kinetic energy and all the work the inputs did, in absolute value) has
    left the equations: it diverges."""
    excess = (E - E0) - work
    scale = max(PR[P_ESCALE], max(tmax, absw))
    return not excess > PR[P_BAL_TOL] * scale


@nb.njit
def contact_run(B, SH, PL, HULL, PAIRS, LIM, CN, IN, python, friction, h, k0, nsteps, ST, cap, PR,
                out_q, out_v, out_a, out_tau, e_out, forces, residual, iters, lam_out, drift_out,
                OFF, CI_out, CF_out, LOFF, LI_out, LF_out, info, store, Fs, X, bal):
    """Steps k0 .. nsteps from (q, v) = (out_q[k0], out_v[k0]) (set by the caller), one sample
    per step into the outputs; at the last sample the contacts are computed, no step taken.
    e_out (S, 3): kinetic and potential energy, and the work of the inputs since the start.
    ``store``: keep every step's contacts (OFF, CI_out, CF_out) and limits (LOFF, LI_out,
    LF_out); a rollout keeps none. bal (4): E0, work, |work|, largest kinetic energy (kept across
    resumptions). X: the buffer the Python functions read and write (``python`` != 0): q, v,
    the previous step's contact forces (nb + 1, 3), tau, f_ext (nb + 1, 6), one after the other
    (the Python side holds views of it: nothing is boxed per call). A return code (the failing
    step in info[I_STEP])."""
    nq, nv = int(B[0, IQ]), int(B[0, IV])
    nl_max = 2 * LIM.shape[0]
    K, TF, Sc, phib, Gb, dropped, lam_b = CN
    mb = phib.shape[0]
    room = min(cap, ROOM)           # the contacts the scratch holds, grown when a step finds more
    if k0 > 0 and store:
        room = min(cap, max(room, OFF[k0] - OFF[k0 - 1]))
    S, CC, CI = _room(B, room, nl_max, SH.shape[0], mb)
    res = np.zeros(6)
    info2 = np.zeros(4, np.int64)
    qn, vn, q, v = np.zeros(nq), np.zeros(nv), out_q[k0].copy(), out_v[k0].copy()
    tau, vm, z, g0, g1 = np.zeros(nv), np.zeros(nv), np.zeros(nv), np.zeros(nv), np.zeros(nv)
    W = np.zeros((W_ROWS, max(nq, nv, 1)))
    drift = np.zeros(2)
    tmp = np.zeros((3, max(nq, nv, mb, 1)))
    energy = np.zeros(2)
    nc, nlim = info[I_NC], info[I_NL]
    PK, PP = np.zeros(max(room, 1), np.int64), np.zeros((max(room, 1), 3))
    LK, LP = np.zeros(max(nl_max, 1), np.int64), np.zeros(max(nl_max, 1))
    pcount = np.zeros(2, np.int64)
    LOOK, order = sweep_table(PAIRS, SH.shape[0])     # the broad phase's state (.broadphase)
    BP = (np.zeros((max(PAIRS.shape[0], 1), 5)), LOOK, order, np.zeros(max(PAIRS.shape[0], 1), np.int64))
    if k0 > 0 and store:            # resumed: the previous step's impulses from the stored ones
        lo, hi = OFF[k0 - 1], OFF[k0]
        for c in range(lo, hi):
            PK[c - lo] = CI_out[c, 2]
            PP[c - lo, 0], PP[c - lo, 1], PP[c - lo, 2] = CF_out[c, 16], CF_out[c, 17], CF_out[c, 18]
        lo2, hi2 = LOFF[k0 - 1], LOFF[k0]
        for l in range(lo2, hi2):
            LK[l - lo2] = 2 * LI_out[l] + (1 if LF_out[l, 0] > 0 else 0)
            LP[l - lo2] = LF_out[l, 2]
        pcount[0], pcount[1] = hi - lo, hi2 - lo2
    prev = (PK, PP, LK, LP, pcount, BP)
    theta = ST[S_THETA]
    dx = implicit_damping(IN, nv)
    for k in range(k0, nsteps + 1):
        t = k * h
        has_f = inputs(B, IN, t, q, v, W, Fs, tau)
        if python != 0:
            o = 0
            for c in range(nq):
                X[o + c] = q[c]
            o += nq
            for c in range(nv):
                X[o + c] = v[c]
            o += nv
            for i in range(forces.shape[1]):
                for c in range(3):
                    X[o + 3 * i + c] = forces[k - 1, i, c] if k > 0 else 0.0
            o += 3 * forces.shape[1]
            for c in range(nv):
                X[o + c] = tau[c]
            failed = call_python(t)
            if failed != 0:
                info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = k, PY_ERROR, nc, nlim
                return PY_ERROR
            for c in range(nv):
                tau[c] = X[o + c]
                if not abs(tau[c]) <= MAX_STATE:          # NaN fails the comparison too
                    info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = k, PY_RANGE, nc, nlim
                    return PY_RANGE
            if python & PY_FEXT:
                o += nv
                for i in range(Fs.shape[0]):
                    for c in range(6):
                        Fs[i, c] = X[o + 6 * i + c]
                has_f = True
        fe = IN[10]
        if fe.shape[0] > 0:         # the force elements' wrenches at (q, v), beside f_ext
            if not has_f:
                Fs[:, :] = 0.0
            load_q(B, q)
            element_wrenches(B, fe, q, v, Fs)
            has_f = True
        opts = (FRICTION if friction else 0) | (HAS_FEXT if has_f else 0)
        for c in range(nv):
            out_tau[k, c] = tau[c]      # the inputs (a fallback step reads them), then the torque applied
        code = step(B, SH, PL, HULL, PAIRS, LIM, CN, q, v, tau, dx, Fs, opts, h, ST, S, qn, vn, CC, CI, res, info2,
                    prev, energy)
        while code == CODE_FULL and room < cap:     # more contacts than room: grow, take the step again
            room = min(cap, 2 * room)
            S, CC, CI = _room(B, room, nl_max, SH.shape[0], mb)
            PK2, PP2 = np.zeros(room, np.int64), np.zeros((room, 3))
            PK2[:PK.shape[0]] = PK
            PP2[:PP.shape[0]] = PP
            PK, PP = PK2, PP2
            prev = (PK, PP, LK, LP, pcount, BP)
            code = step(B, SH, PL, HULL, PAIRS, LIM, CN, q, v, tau, dx, Fs, opts, h, ST, S, qn, vn, CC, CI, res, info2,
                        prev, energy)
        if code != OK:
            info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = k, code, nc, nlim
            return code
        na, nl = info2[0], info2[1]
        if store and (nc + na > CI_out.shape[0] or nlim + nl > LI_out.shape[0]):
            info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = k, CODE_FULL, nc, nlim
            return CODE_FULL
        if not (all_finite(qn) and all_finite(vn)):
            info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = k, NONFINITE, nc, nlim
            return NONFINITE
        # the balance at the start of this step (work: up to here)
        if k == 0:
            bal[0] = energy[0] + energy[1]
        bal[3] = max(bal[3], energy[0])
        e_out[k, 0], e_out[k, 1], e_out[k, 2] = energy[0], energy[1], bal[1]
        if not balance(energy[0] + energy[1], bal[0], bal[1], bal[2], bal[3], PR):
            info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = k, DIVERGED, nc, nlim
            return DIVERGED
        p = 0.0                         # the inputs' work over this step, at the mean velocity
        for c in range(nv):
            out_tau[k, c] = tau[c] - dx[c] * (vn[c] - v[c])      # the PD's torque with its implicit part
            vm[c] = theta * vn[c] + (1.0 - theta) * v[c]
            p += out_tau[k, c] * vm[c]
        if has_f:
            p += external_power(B, q, vm, Fs, z, g0, g1)
        bal[1] += h * p
        bal[2] += h * abs(p)
        for c in range(nq):
            out_q[k, c] = q[c]
        for c in range(nv):
            out_v[k, c] = v[c]
            out_a[k, c] = (vn[c] - v[c]) / h
        residual[k] = res[5]
        iters[k] = info2[2]
        info[I_ITER] += info2[2]
        info[I_CHORD] += info2[3]
        for r in range(mb):
            lam_out[k, r] = lam_b[r] / h
        lam, TW, WN = S[15], S[29], S[19][W_NEXT:]
        for r in range(forces.shape[1]):
            for c in range(3):
                forces[k, r, c] = 0.0
        if store:
            OFF[k] = nc
            if na > 0:
                twists(B, vn, TW[2])       # the contacts' velocities after the step (TW[0]: before)
        for c in range(na):
            t0, t1, t2, s0, s1, s2 = _frame(CC[c, 1], CC[c, 2], CC[c, 3])
            n0, n1, n2 = CC[c, 1], CC[c, 2], CC[c, 3]
            Pn, P1, P2 = lam[3 * c], lam[3 * c + 1], lam[3 * c + 2]
            PK[c] = CI[c, 2]
            PP[c, 0], PP[c, 1], PP[c, 2] = Pn + WN[0, 3 * c], P1 + WN[0, 3 * c + 1], P2 + WN[0, 3 * c + 2]
            f0 = (n0 * Pn + t0 * P1 + s0 * P2) / h
            f1 = (n1 * Pn + t1 * P1 + s1 * P2) / h
            f2 = (n2 * Pn + t2 * P1 + s2 * P2) / h
            forces[k, CI[c, 0], 0] += f0
            forces[k, CI[c, 0], 1] += f1
            forces[k, CI[c, 0], 2] += f2
            forces[k, CI[c, 1], 0] -= f0
            forces[k, CI[c, 1], 1] -= f1
            forces[k, CI[c, 1], 2] -= f2
            if not store:
                continue
            e = nc + c
            CI_out[e, 0], CI_out[e, 1], CI_out[e, 2] = CI[c, 0], CI[c, 1], CI[c, 2]
            for r in range(3):
                CF_out[e, r] = CC[c, 4 + r]
                CF_out[e, 3 + r] = CC[c, 7 + r]
                CF_out[e, 6 + 3 * r] = CC[c, 1 + r]    # frame (3x3 row-major, columns n, t1, t2)
            CF_out[e, 7], CF_out[e, 10], CF_out[e, 13] = t0, t1, t2
            CF_out[e, 8], CF_out[e, 11], CF_out[e, 14] = s0, s1, s2
            CF_out[e, 15] = CC[c, 0]
            for r in range(3):
                CF_out[e, 16 + r] = lam[3 * c + r]
            for r, tw in ((19, TW[2]), (22, TW[0])):       # u_after, u_before in the contact's frame
                w0, w1, w2 = relative_velocity(B, CC, CI, c, tw)
                CF_out[e, r] = n0 * w0 + n1 * w1 + n2 * w2
                CF_out[e, r + 1] = t0 * w0 + t1 * w1 + t2 * w2
                CF_out[e, r + 2] = s0 * w0 + s1 * w1 + s2 * w2
        ldof, lside, lgap = S[20], S[21], S[22]
        pcount[0], pcount[1] = na, nl
        for l in range(nl):
            LK[l] = 2 * ldof[l] + (1 if lside[l] > 0 else 0)
            LP[l] = lam[3 * (na + l)] + WN[0, 3 * (na + l)]
        if store:
            nc += na
            LOFF[k] = nlim
            for l in range(nl):
                LI_out[nlim + l] = ldof[l]
                LF_out[nlim + l, 0], LF_out[nlim + l, 1] = lside[l], lgap[l]
                LF_out[nlim + l, 2] = lam[3 * (na + l)]
            nlim += nl
            OFF[k + 1], LOFF[k + 1] = nc, nlim
        if k == nsteps:
            break
        if mb > 0 and PR[P_MAXIT] >= 0:     # closed loops: back onto the constraints (when off them)
            if not (PR[P_MAXIT] > 0 and on_manifold(B, K, TF, qn, vn, Sc, phib, PR[P_TOL], drift)):
                code = project(B, K, TF, qn, vn, Sc, phib, PR[P_TOL], int(PR[P_MAXIT]), PR[P_MAXIT] > 0, drift, tmp)
                if code != OK:
                    info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = k + 1, NOT_ASSEMBLED, nc, nlim
                    return NOT_ASSEMBLED
            drift_out[k + 1, 0], drift_out[k + 1, 1] = drift[0], drift[1]
        for c in range(nq):
            q[c] = qn[c]
        for c in range(nv):
            v[c] = vn[c]
        for c in range(nq):
            out_q[k + 1, c] = q[c]
        for c in range(nv):
            out_v[k + 1, c] = v[c]
    info[I_STEP], info[I_CODE], info[I_NC], info[I_NL] = nsteps, OK, nc, nlim
    return OK


@nb.njit(cache=True, nogil=True)
def contact_chunk(B, SH, PL, HV, HN, FO, FI, AO, AN, PAIRS, LIM, K, TF, PR, ci, tau_t, tau_v, f_t, f_v, gains,
                 ref_t, ref_q, ref_v, ref_a, fe, python, friction, h, k0, nsteps, ST, cap, out_q, out_v, out_a,
                 out_tau, e_out, forces, residual, iters, lam_out, drift_out, OFF, CI_out, CF_out, LOFF, LI_out,
                 LF_out, info, store, Fs, X, bal, ch, m):
    """Chunk ``ch`` of ``m`` of N runs (tau_v (1 or N, K, nv), f_v (1 or N, K, nb+1, 6); fe: the
    force elements' table, :mod:`.forces`) from (out_q[r, k0], out_v[r, k0]), on a private copy of
    the table and scratch (the chunks run on threads at once: :func:`artidyn.threads.run_chunks`;
    it releases the GIL, and takes it back to call a Python function); info (N, 5) and bal
    (N, 4) per run (:func:`contact_run`; the code of each run in info[:, I_CODE]). A single run
    is the same call with N = 1 (``store``: its contact log kept; ``python``: its Python
    functions): a run alone and in a rollout run the same code from the same table. (They agree
    to rounding, not always to the last bit: the vectorised sums of the Delassus kernels take a
    scalar path when two scratch arrays happen to lie close in memory.)"""
    N = out_q.shape[0]
    mb = lam_out.shape[2]
    Bc = B.copy()
    CN = bilateral(Bc, K, TF, mb)
    HULL = (HV, HN, FO, FI, AO, AN)
    for r in range(ch * N // m, (ch + 1) * N // m):
        Bc[:, :] = B           # each run from the same table as a run alone (no state carried over)
        tv = tau_v[r] if tau_v.shape[0] > 1 else tau_v[0]
        fv = f_v[r] if f_v.shape[0] > 1 else f_v[0]
        IN = (ci, tau_t, tv, f_t, fv, gains, ref_t, ref_q, ref_v, ref_a, fe)
        contact_run(Bc, SH, PL, HULL, PAIRS, LIM, CN, IN, python, friction, h, k0, nsteps, ST, cap, PR,
                    out_q[r], out_v[r], out_a[r], out_tau[r], e_out[r], forces[r], residual[r], iters[r],
                    lam_out[r], drift_out[r], OFF, CI_out, CF_out, LOFF, LI_out, LF_out, info[r], store, Fs[r],
                    X, bal[r])
    return 0
