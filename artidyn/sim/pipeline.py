"""The simulation pipeline of scenes with unilateral rows (contacts, enforced joint limits), with
bilateral constraints, controllers, tables and Python functions beside them; one run or N runs.

Each step goes down the same stages on both routes: inputs (:class:`.scene.Inputs`) ->
kinematics, collision, rows, dynamics terms and one solve (the Moreau-Jean step:
:func:`artidyn.contact.moreau_jean.moreau_jean_step` on the readable route,
:func:`artidyn.kernels.contact_sim.step` compiled) -> projection onto the closed loops -> the
energy balance. :func:`run_compiled` runs the whole loop in one compiled call
(:mod:`artidyn.kernels.scene_run`), :func:`run_reference` is the readable loop, step for step
the same, and :func:`run_rollout` runs N scenes in parallel.

The divergence check is the energy balance of the scene: the inputs (torques, controllers,
external wrenches) bring work ``W`` in, joint friction, damping, contacts and limits take energy
out, so ``E(t) - E(0) <= W(t)`` within the integration error. A run whose energy exceeds this by
more than ``energy_tol`` of its scale (the robot's weight times its size, the largest kinetic
energy, the absolute work of the inputs) stops with :class:`~artidyn.errors.SimulationError`.
"""
import numpy as np

from ..checks import MAX_STATE
from ..errors import InputError, SimulationError
from ..threads import chunks, run_chunks

# result codes of the compiled run, as artidyn.kernels.contact_sim / scene_run
_WHAT = {3: "the state became non-finite", 2: "the mass matrix is not positive definite",
         4: "the Delassus matrix is not positive semi-definite",
         8: "the energy grew beyond the work of the inputs (the energy balance failed)",
         9: "the projection onto the closed loops did not converge (|phi| > 1e-6: a singular "
            "configuration of the closed chain, or the step moved too far)"}


class Packed:
    """The kernels' arrays of a scene: shapes, limits, settings, constraints."""

    def __init__(self, model, s, constraints, projection, energy_tol, escale):
        from ..contact import compiled
        from ..contact.moreau_jean import limit_rows

        # a table of its own, never used by another kernel: each run starts from a copy of it, so
        # that a run does not depend on what was computed before it (work columns included)
        B = model._cache.get("sim.table")
        if B is None:
            from ..kernels.pack import pack
            B = model._cache["sim.table"] = pack(model)
        self.B = B
        self.SH, self.PL, self.HULL, self.PAIRS, self.cap = compiled.packed_shapes(model)
        self.LIM = np.array(limit_rows(model), dtype=float).reshape(-1, 4) if s.joint_limits else np.zeros((0, 4))
        self.ST = np.array([s.friction, s.restitution, s.margin, s.theta, s.gamma, s.tol, s.max_iter,
                            s.limit_restitution, 1.0 if s.solver == "pgs" else 0.0], dtype=float)
        from ..kernels.constrained import KWIDTH
        if constraints:
            from ..constraints import compiled as cc
            P = cc.packed(model, constraints)
            self.K, self.TF, self.mb = np.array(P.K), np.array(P.TF), P.m    # writable: one specialization
        else:
            self.K, self.TF, self.mb = np.zeros((0, KWIDTH)), np.zeros((0, 2, 4, 4)), 0
        self.PR = np.array([1e-12, 10.0 if projection else 0.0,
                            np.inf if energy_tol is None else float(energy_tol), escale])


def _grow(a, rows):
    out = np.empty((max(rows, 2 * a.shape[0]),) + a.shape[1:], dtype=a.dtype)
    out[:a.shape[0]] = a
    return out


def _culprits(model, v, forces, k):
    """Where a failing run was going: the joint moving fastest at the failing step's start, and the
    body that took the largest contact force in the step before (for the message)."""
    from .contact_run import _dof_joint

    vk = v[k] if k < len(v) else v[-1]
    out = []
    if vk.size and np.all(np.isfinite(vk)):
        i = int(np.argmax(np.abs(vk)))
        out.append(f"the fastest joint was '{_dof_joint(model, i)}' (|v| = {abs(vk[i]):.3g})")
    if k > 0:
        F = np.linalg.norm(forces[k - 1, 1:], axis=1)
        if F.size and np.all(np.isfinite(F)) and F.max() > 0:
            b = int(np.argmax(F)) + 1
            out.append(f"the largest contact force was on body '{model.body_names[b]}' ({F[b - 1]:.3g} N)")
    return "; " + " and ".join(out) if out else ""


def _fail(model, code, k, h, extra=""):
    what = _WHAT.get(code, "the dynamics could not be evaluated (invalid state or input)")
    tips = ("try a smaller dt, smaller gains, or check the inputs" if code == 8 else "try a smaller dt")
    return (f"simulate '{model.name}' with contact: {what} at t = {k * h:.6g} s (step {k}, dt = {h:.3g} s){extra}; "
            f"{tips}. The result up to there is in error.result")


def _kernel(model, t0, m, *args):
    """The compiled contact runs from time t0 (:func:`artidyn.kernels.scene_run.contact_chunk` in
    ``m`` chunks, on threads: :func:`artidyn.threads.run_chunks`). An arithmetic fault inside it (numba
    raises Python's ZeroDivisionError on a float division by zero, LAPACK refuses a non-finite
    block) comes out as numba's bare SystemError: it becomes a SimulationError that names the
    model and the time, and the way round it."""
    from ..kernels.scene_run import contact_chunk
    try:
        return run_chunks(contact_chunk, m, *args)
    except (ArithmeticError, SystemError, ValueError, np.linalg.LinAlgError) as e:
        cause = e.__cause__ if e.__cause__ is not None else e
        raise SimulationError(f"simulate '{model.name}' with contact: the compiled step failed after t = {t0:.6g} s "
                              f"({type(cause).__name__}: {cause}), a defect of artidyn's kernels (please report the "
                              f"scene); route='reference' runs it on the readable route") from e


def run_compiled(model, scene, q, v, h, nsteps, s, constraints):
    """One run on the compiled route: a dict of the outputs (q, v, a, tau, energy (S, 3: kinetic,
    potential, the inputs' work), forces (S, nb + 1, 3), residual, iterations, ``lam`` (S, m_b) the
    bilateral forces, ``drift`` (S, 2), contacts (a :class:`~artidyn.contact.compiled.ContactLog`),
    limits, event tuples (sample, kind, a, b), fallback steps); a failure raises SimulationError
    with the partial dict as ``error.result``."""
    from ..contact.compiled import ContactLog, _stored_step
    from ..contact.moreau_jean import NO_LIMITS, SLIP_TOL, ActiveLimits, any_friction, moreau_jean_step
    from ..kernels import contact_sim as K
    from ..kernels import scene_run as R

    P, inp = scene.packed, scene.inputs
    S = nsteps + 1
    # one run: the arrays of a rollout of one (the same compiled call, :func:`run_rollout`)
    Out_q, Out_v = np.zeros((1, S, model.nq)), np.zeros((1, S, model.nv))
    Out_a, Out_tau = np.zeros((1, S, model.nv)), np.zeros((1, S, model.nv))
    Forces, Energy_ = np.zeros((1, S, model.nb + 1, 3)), np.zeros((1, S, 3))
    Residual, Iters = np.zeros((1, S)), np.zeros((1, S), dtype=np.int64)
    Lam, Drift = np.zeros((1, S, P.mb)), np.zeros((1, S, 2))
    Info, FS, Bal = np.zeros((1, K.INFO), dtype=np.int64), np.zeros((1, model.nb + 1, 6)), np.zeros((1, 4))
    out_q, out_v, out_a, out_tau, forces, energy = Out_q[0], Out_v[0], Out_a[0], Out_tau[0], Forces[0], Energy_[0]
    residual, iters, lam, drift, info, Fs = Residual[0], Iters[0], Lam[0], Drift[0], Info[0], FS[0]
    OFF, LOFF = np.zeros(S + 1, dtype=np.int64), np.zeros(S + 1, dtype=np.int64)
    guess = max(64, min(P.cap * S, 1 << 14))        # the log grows (FULL) as the run finds contacts
    CI, CF = np.empty((guess, 3), dtype=np.int64), np.empty((guess, K.CFW))
    LI, LF = np.zeros(max(16, S // 8), dtype=np.int64), np.zeros((max(16, S // 8), 3))
    X, call = inp.exchange()
    out_q[0], out_v[0] = q, v
    c = inp
    fallback = []
    dx = inp.implicit_damping()          # the PD damping a readable (fallback) step takes implicitly
    k0 = 0
    R.PYTHON[0], R.PYTHON_ERROR[0] = call, None
    try:
        while True:
            _kernel(model, k0 * h, 1, P.B, P.SH, P.PL, *P.HULL, P.PAIRS, P.LIM, P.K, P.TF, P.PR, c.ci,
                    c.tau_t, c.tau_v, c.f_t, c.f_v, c.gains, *c.ref, c.fe, inp.python, inp.friction, h, k0, nsteps,
                    P.ST, P.cap, Out_q, Out_v, Out_a, Out_tau, Energy_, Forces, Residual, Iters, Lam, Drift, OFF, CI,
                    CF, LOFF, LI, LF, Info, True, FS, X, Bal)
            code = int(info[K.I_CODE])
            k = int(info[K.I_STEP])
            if code == K.OK:
                break
            if code == K.CODE_FULL:
                # the log that is full: a step adds at most P.cap contacts and 2 per limit row
                if int(info[K.I_NC]) + P.cap + 1 > CI.shape[0]:
                    CI, CF = _grow(CI, CI.shape[0] + P.cap + 1), _grow(CF, CF.shape[0] + P.cap + 1)
                if int(info[K.I_NL]) + 2 * len(P.LIM) + 1 > LI.shape[0]:
                    LI, LF = _grow(LI, LI.shape[0] + 2 * len(P.LIM) + 1), _grow(LF, LF.shape[0] + 2 * len(P.LIM) + 1)
                k0 = k
                continue
            if code == R.PY_ERROR:
                raise R.PYTHON_ERROR[0]
            if code == R.PY_RANGE:
                o = model.nq + model.nv + 3 * (model.nb + 1)          # tau in the exchange buffer
                raise InputError(f"tau(t, q, v) returned NaN, infinite or huge values (beyond +/-{MAX_STATE:g}) at "
                                 f"t = {k * h:.6g} s (step {k}): with the other inputs, tau = {X[o:o + model.nv]}")
            if code == K.CODE_FALLBACK:      # this step on the readable route, then on again
                fallback.append(k)
                qk, vk = out_q[k].copy(), out_v[k].copy()
                tk, F = out_tau[k].copy(), (Fs.copy() if inp.f_mode or inp.f_fn else None)
                st = moreau_jean_step(model, qk, vk, tk, h, s, f_ext=F, friction=inp.friction,
                                      warm=_stored_step(OFF, CI, CF, LOFF, LI, LF, k - 1) if k > 0 else None,
                                      constraints=constraints, t=k * h, damping=dx)
                tk = tk - dx * (st.v - vk)
                out_tau[k] = tk
                _store_step(model, st, k, h, qk, vk, tk, out_a, energy, residual, iters, forces, lam, OFF, LOFF,
                            info, K)
                CI, CF, LI, LF = _store_log(st, info, OFF, LOFF, k, CI, CF, LI, LF, K)
                if k == nsteps:
                    break
                qn, vn = st.q, st.v
                if constraints and P.PR[1] > 0:
                    from ..constraints.projection import project
                    qn, vn, _ = project(model, qn, vn, constraints, P.PR[0], t=(k + 1) * h)
                out_q[k + 1], out_v[k + 1] = qn, vn
                k0 = k + 1
                continue
            partial = _outputs(out_q, out_v, out_a, out_tau, energy, forces, residual, iters, lam, drift, k)
            raise SimulationError(_fail(model, code, k, h, _culprits(model, out_v, forces, k)), result=partial)
    finally:
        R.PYTHON[0] = R.PYTHON_ERROR[0] = None
    nc, nl = int(info[K.I_NC]), int(info[K.I_NL])
    CI, CF, LI, LF = CI[:nc], CF[:nc], LI[:nl], LF[:nl]
    limits = [NO_LIMITS if LOFF[k] == LOFF[k + 1] else
              ActiveLimits(LI[LOFF[k]:LOFF[k + 1]].copy(), LF[LOFF[k]:LOFF[k + 1], 0].copy(),
                           LF[LOFF[k]:LOFF[k + 1], 1].copy(), LF[LOFF[k]:LOFF[k + 1], 2].copy())
              for k in range(S)] if nl else None
    events = K.contact_events(OFF, CI, CF, LOFF, LI, LF, S, model.nb + 1, any_friction(model, s), SLIP_TOL)
    out = _outputs(out_q, out_v, out_a, out_tau, energy, forces, residual, iters, lam, drift, S)
    out.update(contacts=ContactLog(OFF, CI, CF), limits=limits, events=events.tolist(), fallback=fallback,
               chord_steps=int(info[K.I_CHORD]))
    return out


def _outputs(q, v, a, tau, energy, forces, residual, iters, lam, drift, n):
    return dict(q=q[:n], v=v[:n], a=a[:n], tau=tau[:n], energy=energy[:n], forces=forces[:n], residual=residual[:n],
                iterations=iters[:n], lam=lam[:n], drift=drift[:n])


def _store_step(model, st, k, h, q, v, tk, out_a, energy, residual, iters, forces, lam, OFF, LOFF, info, K):
    from ..dynamics import kinetic_energy, potential_energy

    C = st.contacts
    out_a[k] = (st.v - v) / h
    energy[k, :2] = kinetic_energy(model, q, v), potential_energy(model, q)
    energy[k, 2] = energy[k - 1, 2] + h * float(tk @ (0.5 * (st.v + v))) if k > 0 else 0.0
    residual[k], iters[k] = st.residual, st.iterations
    if st.bilateral is not None and lam.shape[1]:
        lam[k] = st.bilateral / h
    world = np.einsum("kij,kj->ki", C.frames, C.impulse) / h
    forces[k] = 0.0
    for a, b, f in zip(C.body_a, C.body_b, world):
        forces[k, int(a)] += f
        forces[k, int(b)] -= f


def _store_log(st, info, OFF, LOFF, k, CI, CF, LI, LF, K):
    C, L = st.contacts, st.limits
    nc, nl = int(info[K.I_NC]), int(info[K.I_NL])
    if nc + len(C.gap) > CI.shape[0]:
        CI, CF = _grow(CI, nc + len(C.gap)), _grow(CF, nc + len(C.gap))
    if nl + len(L.dof) > LI.shape[0]:
        LI, LF = _grow(LI, nl + len(L.dof)), _grow(LF, nl + len(L.dof))
    OFF[k], LOFF[k] = nc, nl
    kc = len(C.gap)
    CI[nc:nc + kc, 0], CI[nc:nc + kc, 1], CI[nc:nc + kc, 2] = C.body_a, C.body_b, C.key
    if kc:
        CF[nc:nc + kc] = np.column_stack([C.point_a, C.point_b, C.frames.reshape(-1, 9), C.gap, C.impulse,
                                          C.u_after, C.u_before])
    kl = len(L.dof)
    LI[nl:nl + kl] = L.dof
    if kl:
        LF[nl:nl + kl] = np.column_stack([L.side, L.gap, L.impulse])
    info[K.I_NC], info[K.I_NL] = nc + kc, nl + kl
    OFF[k + 1], LOFF[k + 1] = nc + kc, nl + kl
    return CI, CF, LI, LF


def run_reference(model, scene, q, v, h, nsteps, s, constraints, servo=None):
    """The same run on the readable route: a list of (q, v, tau, StepResult) per step, plus the
    energies, work and drift (as :func:`run_compiled`'s arrays) and the servo forces' power (S,).
    ``servo`` (relations, D): the servo-constraints' rows join each step
    (:func:`artidyn.contact.moreau_jean.moreau_jean_step`); their work counts in the balance, and
    the projection takes their relations beside the constraints'."""
    from ..constraints.projection import project
    from ..contact.moreau_jean import moreau_jean_step
    from ..dynamics import kinetic_energy, potential_energy

    inp, P = scene.inputs, scene.packed
    S = nsteps + 1
    steps, energy, drift, servo_power = [], np.zeros((S, 3)), np.zeros((S, 2)), np.zeros(S)
    forces = np.zeros((model.nb + 1, 3))
    step = None
    E0 = None
    work = absw = tmax = 0.0
    dx = inp.implicit_damping()
    for k in range(S):
        t = k * h
        tk, F = inp.reference(t, q, v, forces)
        step = moreau_jean_step(model, q, v, tk, h, s, f_ext=F, friction=inp.friction, warm=step,
                                constraints=constraints, t=t, damping=dx, servo=servo)
        if not (np.all(np.isfinite(step.q)) and np.all(np.isfinite(step.v))):
            raise SimulationError(_fail(model, 3, k, h))
        kin, pot = float(kinetic_energy(model, q, v)), float(potential_energy(model, q))
        E0 = kin + pot if E0 is None else E0
        tmax = max(tmax, kin)
        energy[k] = kin, pot, work
        if (kin + pot - E0) - work > P.PR[2] * max(P.PR[3], tmax, absw):
            raise SimulationError(_fail(model, 8, k, h))
        vm = s.theta * step.v + (1 - s.theta) * v
        tk = tk - dx * (step.v - v)           # the torque applied: the PD's damping implicit
        p = float(tk @ vm)
        if servo is not None:                 # the servo forces' power D^T mu . v
            servo_power[k] = float(step.servo @ (servo[1] @ vm)) / h
            p += servo_power[k]
        if F is not None:
            from ..dynamics import rnea
            z = np.zeros(model.nv)
            p += float((rnea(model, q, z, z, friction=False) - rnea(model, q, z, z, F, friction=False)) @ vm)
        work += h * p
        absw += h * abs(p)
        steps.append((q, v, tk, step))
        C = step.contacts
        forces = np.zeros((model.nb + 1, 3))
        for a, b, f in zip(C.body_a, C.body_b, np.einsum("kij,kj->ki", C.frames, C.impulse) / h):
            forces[int(a)] += f
            forces[int(b)] -= f
        if k == nsteps:
            break
        q, v = step.q, step.v
        held = list(constraints) + ([] if servo is None else list(servo[0]))
        if held and P.PR[1] > 0:
            from ..constraints import constraint_rows
            r = constraint_rows(model, q, v, held, t + h)
            drift[k + 1] = float(np.max(np.abs(r.phi), initial=0.0)), float(np.max(np.abs(r.J @ v + r.b), initial=0.0))
            if drift[k + 1].max() > P.PR[0]:       # off the loops: back onto them (as the compiled run)
                q, v, res = project(model, q, v, held, P.PR[0], t=t + h)
                if res > 1e-6:
                    raise SimulationError(_fail(model, 9, k + 1, h))
    return steps, energy, drift, servo_power


def run_rollout(model, scene, Q, V, h, nsteps):
    """N runs in parallel on the compiled route: a dict of (N, S, ...) arrays and ``status``
    (N,) (0: ok; otherwise the code of :data:`_WHAT`) and ``failed_step`` (N,)."""
    from ..kernels import contact_sim as K

    P, inp = scene.packed, scene.inputs
    if inp.python:
        raise InputError("rollout: Python functions for tau or f_ext cannot run in parallel; use a table, a "
                         "TimeTable or a compiled controller (PD, ComputedTorque), or simulate one state at a time")
    N, S = Q.shape[0], nsteps + 1
    out_q, out_v = np.zeros((N, S, model.nq)), np.zeros((N, S, model.nv))
    out_a, out_tau = np.zeros((N, S, model.nv)), np.zeros((N, S, model.nv))
    forces, energy = np.zeros((N, S, model.nb + 1, 3)), np.zeros((N, S, 3))
    residual, iters = np.zeros((N, S)), np.zeros((N, S), dtype=np.int64)
    lam, drift = np.zeros((N, S, P.mb)), np.zeros((N, S, 2))
    info = np.zeros((N, K.INFO), dtype=np.int64)
    out_q[:, 0], out_v[:, 0] = Q, V
    c = inp
    log = (np.zeros(1, np.int64), np.zeros((1, 3), np.int64), np.zeros((1, K.CFW)), np.zeros(1, np.int64),
           np.zeros(1, np.int64), np.zeros((1, 3)))
    _kernel(model, 0.0, chunks(N), P.B, P.SH, P.PL, *P.HULL, P.PAIRS, P.LIM, P.K, P.TF, P.PR, c.ci, c.tau_t,
            c.tau_v, c.f_t, c.f_v, c.gains, *c.ref, c.fe, 0, c.friction, h, 0, nsteps, P.ST, P.cap, out_q, out_v,
            out_a, out_tau, energy, forces, residual, iters, lam, drift, *log, info, False,
            np.zeros((N, model.nb + 1, 6)), np.zeros(1), np.zeros((N, 4)))
    return dict(q=out_q, v=out_v, a=out_a, tau=out_tau, energy=energy, forces=forces, residual=residual,
                iterations=iters, lam=lam, drift=drift, status=info[:, K.I_CODE].copy(),
                failed_step=info[:, K.I_STEP].copy())
