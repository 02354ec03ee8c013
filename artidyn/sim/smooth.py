"""The smooth engine's route: one state or a batch on :mod:`artidyn.kernels.stepping` (semi-implicit,
RK4, implicit in the damping, adaptive Dormand-Prince), with tables, compiled controllers and
Python functions as inputs, the energy checks, and the result (partial on failure).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..checks import MAX_STATE
from ..configuration import _joint_at_q
from ..errors import InputError, ShapeError, SimulationError, check_count, check_number
from ..firstuse import clock
from ..joints import FREE, SPHERICAL
from ..kernels.dispatch import kernels_enabled
from .forces import pack_forces
from .inputs import NONE, stage_tables
from .progress import progress_bar, stderr_is_terminal
from .result import Energy, JointLimitWarning, LimitEvent, SimulationResult
from .setup import RECORD, check_memory, coordinate_names, energy_scale, grids, record_bits

_CODES = {"semi-implicit": 0, "rk4": 1, "implicit": 2, "dopri5": 3}
MAX_EVENTS = 256
_STATUS = {1: "non-finite state", 2: "energy error", 3: "step size underflow", 4: "step budget exhausted",
           6: "matrix not positive definite", 8: "diverged (energy balance)"}


class _Run:
    """The arrays of one simulation or rollout, prepared for the compiled engine."""

    def __init__(self, model, Q, V, N, single, tau, f_ext, controller, method, grid, t_out, every,
                 rtol, atol, energy_tol, friction, max_steps, h0, record=31, forces=()):
        from ..kernels import slots as K         # the codes and slots only: nothing compiled yet
        from ..kernels.pack import packed

        self.K, self.model, self.N, self.single = K, model, N, single
        self.B = packed(model)
        self.method, self.grid, self.t_out = method, grid, t_out
        (self.tau_mode, self.tau_t, self.tau_v, self.tau_fn, self.f_mode, self.f_t, self.f_v, self.f_fn, code, gains,
         ref) = stage_tables(model, tau, f_ext, controller, grid, N, single)
        self.python_inputs = self.tau_fn is not None or self.f_fn is not None
        self.gains = gains
        self.fe = pack_forces(model, forces)      # the force elements' table (no rows: none)
        self.ref_t, self.ref_q, self.ref_v, self.ref_a = ref
        lim = np.vstack([model.lower, model.upper]).astype(float)
        for i in range(1, model.nb + 1):   # quaternion entries carry -1 .. 1 "limits": not joint limits
            if model.joint_type[i] in (SPHERICAL, FREE):
                lim[:, model.idx_q[i]:model.idx_q[i] + model.nq_joint[i]] = np.inf * np.array([[-1.0], [1.0]])
        self.lim = lim
        conservative = (self.tau_mode == NONE and self.f_mode == NONE and code == 0 and not self.python_inputs
                        and self.fe.shape[0] == 0
                        and (not friction or not (np.any(model.damping) or np.any(model.coulomb))))
        ci = np.zeros(K.CI_SIZE, np.int64)
        ci[K.CI_METHOD], ci[K.CI_TAU], ci[K.CI_FEXT], ci[K.CI_CTRL] = _CODES[method], self.tau_mode, self.f_mode, code
        ci[K.CI_FRICTION], ci[K.CI_CONSERVATIVE] = int(bool(friction)), int(conservative and energy_tol is not None)
        ci[K.CI_EVERY], ci[K.CI_NSTEPS] = every, grid.size - 1
        ci[K.CI_STEP_LIMIT], ci[K.CI_MAX_STEPS] = np.iinfo(np.int64).max, max_steps
        ci[K.CI_CLAMP_SAMPLES] = int(self.python_inputs and method == "dopri5")
        ci[K.CI_COULOMB] = int(method == "implicit" and bool(friction) and bool(np.any(model.coulomb)))
        ci[K.CI_RECORD] = record
        ci[K.CI_BALANCE] = int(not conservative and energy_tol is not None)
        cf = np.zeros(K.CF_SIZE)
        cf[K.CF_DT], cf[K.CF_RTOL], cf[K.CF_ATOL] = grid[1] - grid[0] if grid.size > 1 else 0.0, rtol, atol
        cf[K.CF_ENERGY_TOL] = np.inf if energy_tol is None else energy_tol
        cf[K.CF_ESCALE] = energy_scale(model, Q) if conservative else 0.0
        cf[K.CF_BSCALE] = energy_scale(model, Q) if ci[K.CI_BALANCE] else 0.0
        self.ci, self.cf, self.conservative = ci, cf, bool(ci[K.CI_CONSERVATIVE])
        S = t_out.size
        # writable C arrays always (copied only when not): one compiled specialization of the engine
        # (a read-only or Fortran-ordered input would compile the whole engine again, about a minute)
        self.Q0, self.V0 = (np.require(x, float, ("C", "W")) for x in (Q, V))
        self.record = record
        rows = lambda bit: S if record & bit else 1  # noqa: E731  (1 row: not recorded, never written)
        self.q = np.zeros((N, S, model.nq))
        self.v = np.zeros((N, S, model.nv))
        self.a, self.tau = (np.zeros((N, rows(bit), model.nv)) for bit in (K.REC_A, K.REC_TAU))
        self.e = np.zeros((N, rows(K.REC_ENERGY), 2))
        self.events = np.zeros((N, MAX_EVENTS, 4))
        self.si = np.zeros((N, K.SI_SIZE), np.int64)
        self.sf = np.zeros((N, K.SF_SIZE))
        self.sf[:, K.SF_H] = h0

    def args(self, r):
        """The engine's arguments for run r (after B, ci, cf, q, v)."""
        return (self.tau_t, self.tau_v[r if self.tau_v.shape[0] > 1 else 0], self.f_t,
                self.f_v[r if self.f_v.shape[0] > 1 else 0], self.fe, self.gains, self.ref_t, self.ref_q,
                self.ref_v, self.ref_a, self.lim, self.t_out)

    def outputs(self, r):
        return (self.q[r], self.v[r], self.a[r], self.tau[r], self.e[r], self.events[r], self.si[r], self.sf[r])

    # -- one run, compiled or with Python inputs, with an optional progress bar
    def _guard(self, kernel, *args):
        """A compiled call whose arithmetic errors (a joint that moves no inertia) become the
        ModelError that names the joint, never an internal exception."""
        try:
            return kernel(*args)
        except (ZeroDivisionError, SystemError, FloatingPointError):
            from ..dynamics.aba import singular_inertia
            raise singular_inertia(self.model, self.Q0) from None

    @staticmethod
    def engine():
        """The compiled engine (:mod:`artidyn.kernels.stepping`), imported (compiled) when first run."""
        from ..kernels import stepping
        return stepping

    def run_single(self, progress):
        K, model = self.engine(), self.model
        q, v = self.Q0[0].copy(), self.V0[0].copy()
        work = K.work_arrays(model.nq, model.nv, model.nb + 1)
        S = self.t_out.size
        if self.python_inputs:
            return self._run_python(q, v, work)
        seg = S - 1 if progress is False else min(S - 1, 20)
        t_start = clock()
        self._guard(K.simulate_segment, self.B, self.ci, self.cf, q, v, *self.args(0), seg, *self.outputs(0), *work)
        bar = None
        while self.si[0, K.SI_STATUS] == 0 and self.si[0, K.SI_SAMPLE] < S:
            done = self.si[0, K.SI_SAMPLE]
            per_sample = (clock() - t_start) / max(done, 1)
            if bar is None:
                if progress is None and per_sample * (S - done) < 1.0:
                    seg = S - 1
                elif progress is not False:
                    bar = progress_bar(S, done, model.name)
            nxt = S - 1 if bar is None else min(S - 1, done + max(1, int(0.1 / max(per_sample, 1e-9))))
            self._guard(K.simulate_segment, self.B, self.ci, self.cf, q, v, *self.args(0), nxt, *self.outputs(0),
                        *work)
            if bar is not None:
                bar.update(self.si[0, K.SI_SAMPLE] - done)
        if bar is not None:
            bar.close()

    def _run_python(self, q, v, work):
        """Python inputs: call them at each step (each sample for dopri5), then step compiled.

        The functions get read-only views of the engine's state (no copy per step)."""
        from ..dynamics import actuation_matrix

        K, model = self.engine(), self.model
        S, nv = self.t_out.size, model.nv
        dopri = self.method == "dopri5"
        self.ci[K.CI_STEP_LIMIT] = np.iinfo(np.int64).max if dopri else 1
        h = self.cf[K.CF_DT]
        q_view, v_view = q.view(), v.view()
        q_view.flags.writeable = v_view.flags.writeable = False
        tau_fn, f_fn = getattr(self, "tau_fn", None), getattr(self, "f_fn", None)
        Bact = actuation_matrix(model)
        tau_row, f_row = self.tau_v[0, 0], self.f_v[0, 0]
        si, sf = self.si[0], self.sf[0]
        head = (self.B, self.ci, self.cf, q, v) + self.args(0)
        tail = self.outputs(0) + tuple(work)
        while si[K.SI_STATUS] == 0 and si[K.SI_SAMPLE] < S:
            t = sf[K.SF_T] if dopri else si[K.SI_STEP] * h
            if tau_fn is not None:
                out = tau_fn(t, q_view, v_view)
                if not (isinstance(out, np.ndarray) and out.shape == (nv,) and out.dtype == np.float64):
                    out = python_torque(model, Bact, torque_value(out, t))
                tau_row[:] = out
                if not (np.abs(tau_row) <= MAX_STATE).all():
                    raise InputError(f"tau(t, q, v) returned NaN, infinite or huge values (beyond +/-{MAX_STATE:g}) "
                                     f"at t = {t:.6g} s: {out}")
            if f_fn is not None:
                out = np.asarray(f_fn(t, q_view, v_view), dtype=float)
                if out.shape != (model.nb + 1, 6) or not np.all(np.isfinite(out)):
                    raise ShapeError(f"f_ext(t, q, v) returned shape {out.shape} (or non-finite values) at t = "
                                     f"{t:.6g} s; expected finite ({model.nb + 1}, 6)")
                f_row[:] = out
            si[K.SI_FSAL] = 0
            self._guard(K.simulate_segment, *head, si[K.SI_SAMPLE] if dopri else S - 1, *tail)  # dopri5: sample to sample

    def reference_fits(self):
        """True when the readable reference loop can run this: one state, the adaptive method, a
        constant (or no) torque, no external wrench, no controller."""
        K = self.K
        return (self.N == 1 and self.method == "dopri5" and self.tau_mode in (K.NONE, K.CONSTANT)
                and self.f_mode == K.NONE and self.ci[K.CI_CTRL] == 0 and not self.python_inputs
                and self.fe.shape[0] == 0)

    def run_reference(self):
        """The adaptive method on the readable reference code (:func:`.integrate.dopri5_run` with the
        reference aba and energies), writing the same arrays as the compiled engine; nothing compiles."""
        from ..dynamics import aba, kinetic_energy, potential_energy
        from .integrate import dopri5_run

        K, model, ci, cf = self.K, self.model, self.ci, self.cf
        si, sf, rec = self.si[0], self.sf[0], int(ci[K.CI_RECORD])
        tau = self.tau_v[0, 0].copy() if self.tau_mode == K.CONSTANT else np.zeros(model.nv)
        friction = bool(ci[K.CI_FRICTION])

        def f(t, q, v):
            try:
                with np.errstate(all="ignore"):
                    a = aba(model, q, v, tau, friction=friction)
            except InputError:       # q or v not finite (the compiled engine's NONFINITE)
                return None
            return (a, tau) if np.all(np.isfinite(a)) else None

        def sample(j, q, v, a, tau_j):   # as the engine's write_sample
            self.q[0, j], self.v[0, j] = q, v
            if rec & K.REC_A:
                self.a[0, j] = a
            if rec & K.REC_TAU:
                self.tau[0, j] = tau_j
            kin, pot = float(kinetic_energy(model, q, v)), float(potential_energy(model, q))
            if rec & K.REC_ENERGY:
                self.e[0, j] = kin, pot
            if j == 0:
                sf[K.SF_E0], sf[K.SF_TMAX], sf[K.SF_DUMAX], sf[K.SF_DRIFT], sf[K.SF_U0] = kin + pot, kin, 0.0, 0.0, pot
                sf[K.SF_ESCALE] = max(cf[K.CF_ESCALE], kin)
                return True
            sf[K.SF_TMAX] = max(sf[K.SF_TMAX], kin)
            sf[K.SF_DUMAX] = max(sf[K.SF_DUMAX], abs(pot - sf[K.SF_U0]))
            scale = max(sf[K.SF_TMAX], sf[K.SF_DUMAX], sf[K.SF_ESCALE])
            drift = abs(kin + pot - sf[K.SF_E0]) / scale if scale > 0.0 else 0.0
            sf[K.SF_DRIFT] = max(sf[K.SF_DRIFT], drift)
            return not (ci[K.CI_CONSERVATIVE] and drift > cf[K.CF_ENERGY_TOL])

        def step_done(q_prev, q, t):     # as the engine's check_limits: entries that left their range
            lo, up = self.lim
            for k in np.nonzero(((q < lo) & ~(q_prev < lo)) | ((q > up) & ~(q_prev > up)))[0]:
                for side, now, before in ((-1, q[k] < lo[k], q_prev[k] < lo[k]), (1, q[k] > up[k], q_prev[k] > up[k])):
                    if now and not before:
                        n = int(si[K.SI_EVENTS])
                        if n < self.events.shape[1]:
                            self.events[0, n] = k, t, q[k], side
                        si[K.SI_EVENTS] = n + 1

        def balance(q, v, work, absw):   # as the engine's balance (no controller, no wrench here)
            kin, pot = float(kinetic_energy(model, q, v)), float(potential_energy(model, q))
            if si[K.SI_CHECKS] == 0:
                sf[K.SF_BE0], sf[K.SF_KMAX], sf[K.SF_WORK], sf[K.SF_ABSW], sf[K.SF_EXCESS] = kin + pot, 0, 0, 0, 0
            si[K.SI_CHECKS] += 1
            sf[K.SF_WORK] += work
            sf[K.SF_ABSW] += absw
            sf[K.SF_KMAX] = max(sf[K.SF_KMAX], kin)
            scale = max(cf[K.CF_BSCALE], sf[K.SF_KMAX], sf[K.SF_ABSW])
            ratio = ((kin + pot - sf[K.SF_BE0]) - sf[K.SF_WORK]) / scale if scale > 0.0 else 0.0
            sf[K.SF_EXCESS] = max(sf[K.SF_EXCESS], ratio)
            return not ratio > cf[K.CF_ENERGY_TOL]

        status, (accepted, rejected, evals, samples), t, h = dopri5_run(
            model, f, self.t_out, self.Q0[0].copy(), self.V0[0].copy(), cf[K.CF_RTOL], cf[K.CF_ATOL], sf[K.SF_H],
            int(ci[K.CI_MAX_STEPS]), sample, step_done, balance if ci[K.CI_BALANCE] else None)
        si[K.SI_STATUS], si[K.SI_SAMPLE], si[K.SI_ACCEPTED], si[K.SI_STEP] = status, samples, accepted, accepted
        si[K.SI_REJECTED], si[K.SI_EVALS] = rejected, evals
        sf[K.SF_T], sf[K.SF_H] = t, h

    def run_batch(self):
        from ..threads import chunks, run_chunks

        K = self.engine()
        tv, fv = self.tau_v, self.f_v
        self._guard(run_chunks, K.rollout, chunks(self.N), self.B, self.ci, self.cf, self.Q0, self.V0, self.tau_t, tv,
                    self.f_t, fv, self.fe, self.gains, self.ref_t, self.ref_q, self.ref_v, self.ref_a, self.lim,
                    self.t_out, self.q, self.v, self.a, self.tau, self.e, self.events, self.si, self.sf)

def torque_value(out, t):
    """The value of a Python torque function as a float array; InputError for None, complex values
    (whose imaginary part would be dropped), strings and other objects."""
    if out is None:
        raise InputError(f"tau(t, q, v) returned None at t = {t:.6g} s (did the function forget to return?)")
    arr = np.asarray(out)
    if np.iscomplexobj(arr):
        raise InputError(f"tau(t, q, v) returned complex values at t = {t:.6g} s; torques are real")
    if arr.dtype.kind not in "fiub":
        raise InputError(f"tau(t, q, v) returned {type(out).__name__} {str(out)[:40]!r} at t = {t:.6g} s; "
                         f"expected an array of numbers")
    return arr.astype(float)


def python_torque(model, Bact, out):
    """The value of a Python torque function as generalized torques (nv,), or a clear error."""
    from .inputs import generalized

    if out.ndim != 1:
        raise ShapeError(f"tau(t, q, v) returned shape {out.shape}; expected ({model.nv},) generalized torques "
                         f"or ({Bact.shape[1]},) actuator inputs")
    if not np.all(np.abs(out) <= MAX_STATE):
        raise InputError(f"tau(t, q, v) returned NaN, infinite or huge values (beyond +/-{MAX_STATE:g}): {out}")
    out = generalized(model, Bact, out, "tau(t, q, v)")
    if not np.all(np.isfinite(out)):
        raise InputError(f"tau(t, q, v) returned NaN or infinite values: {out}")
    return out

def simulate_smooth(model, Q, V, N, single, tau, f_ext, controller, t_final, dt, method, t_eval, record_every, rtol,
              atol, energy_tol, friction, max_steps, progress, rollout=False, record=None, forces=()):
    rtol = check_number(rtol, "simulate: rtol", positive=True)
    atol = check_number(atol, "simulate: atol", positive=True)
    if isinstance(energy_tol, (float, np.floating)) and energy_tol == np.inf:
        energy_tol = None                           # no bound: as None
    if energy_tol is not None:
        energy_tol = check_number(energy_tol, "simulate: energy_tol (or None)", positive=True)
    max_steps = check_count(max_steps, "simulate: max_steps", minimum=1)
    if method == "dopri5" and friction and np.any(model.coulomb):
        joints = [model.joint_names[i] for i in range(1, model.nb + 1)
                  if np.any(model.coulomb[model.v_slice(model.joint_names[i])])]
        raise InputError(f"simulate: method 'dopri5' cannot integrate the Coulomb friction of '{model.name}' "
                         f"({', '.join(joints[:4])}{' ...' if len(joints) > 4 else ''}): sign(v) is discontinuous "
                         f"at rest and the adaptive step collapses there. Use method='implicit' (stick-slip "
                         f"solved at each step), a fixed-step method, or friction=False")
    grid, t_out, every, h0 = grids(model, Q, t_final, dt, method, t_eval, record_every)
    bits = record_bits(record or RECORD)
    per_sample = model.nq + model.nv * (1 + bool(bits & 4) + bool(bits & 8)) + 2 * bool(bits & 16)
    check_memory(8 * N * t_out.size * per_sample, f"the recorded samples ({N} run(s) x {t_out.size} samples)")
    if model.nv == 0:   # nothing moves (a fixed-base model without joints)
        return _motionless(model, N, single and not rollout, t_out, method, grid)
    run = _Run(model, Q, V, N, single, tau, f_ext, controller, method, grid, t_out, every, rtol, atol, energy_tol,
               friction, max_steps, h0, record_bits(record or RECORD), forces)
    if run.python_inputs and (N > 1 or rollout):
        raise InputError("rollout: Python functions for tau or f_ext cannot run in parallel; use a table, a "
                         "TimeTable or a compiled controller (PD, ComputedTorque), or simulate one state at a time")
    start = clock()
    if N == 1 and not rollout and not kernels_enabled() and run.reference_fits():
        run.run_reference()         # kernels switched off (reference_only): the readable loop, nothing compiles
    elif N == 1 and not rollout:
        run.run_single(progress if progress is not None else (None if stderr_is_terminal() else False))
    else:
        run.run_batch()
    wall = clock() - start
    return _finish(run, wall, single and not rollout)


def _motionless(model, N, single, t_out, method, grid):
    S = t_out.size
    shape = (S,) if single else (N, S)
    z = np.zeros(shape + (0,))
    e = np.zeros(shape)
    return SimulationResult(t=t_out, q=z, v=z, a=z, tau=z, energy=Energy(e, e, e), model_name=model.name,
                            q_names=[], v_names=[], method=method, dt=grid[1] - grid[0] if method != "dopri5" else None,
                            stats={}, wall_time=0.0, conservative=True)


def _finish(run, wall, single):
    """Assemble the SimulationResult (partial on failure), warn about limits, raise on failure."""
    K, model = run.K, run.model
    si, sf = run.si, run.sf
    S = run.t_out.size
    n = max(int(si[0, K.SI_SAMPLE]), 1) if single else S     # a failed single run: its first n samples
    kept = [x for x in (run.q, run.v, run.a, run.tau, run.e) if x.shape[1] == S]
    for r in range(run.N):                                     # a failed run of a batch: NaN after its last sample
        for x in kept:
            x[r, si[r, K.SI_SAMPLE]:] = np.nan

    def pick(x):
        if x.shape[1] != S:
            return None
        return x[0, :n] if single else x[:, :n]
    events = []
    for r in range(run.N):
        for kq, t, value, side in run.events[r, :min(int(si[r, K.SI_EVENTS]), MAX_EVENTS)]:
            k = int(kq)  # the entry of q (a cylindrical joint has two)
            i = _joint_at_q(model, k)
            events.append(LimitEvent(model.joint_names[i], float(t), float(value),
                                     float(model.lower[k] if side < 0 else model.upper[k]),
                                     "lower" if side < 0 else "upper", None if single else r))
    stats = {"accepted_steps": si[:, K.SI_ACCEPTED].copy(), "rejected_steps": si[:, K.SI_REJECTED].copy(),
             "dynamics_evaluations": si[:, K.SI_EVALS].copy(), "energy_error": sf[:, K.SF_DRIFT].copy(),
             "energy_excess": sf[:, K.SF_EXCESS].copy(), "status": si[:, K.SI_STATUS].copy()}
    if single:
        stats = {k: v[0].item() for k, v in stats.items()}
    T, U = pick(run.e[..., 0]), pick(run.e[..., 1])
    result = SimulationResult(
        t=run.t_out[:n], q=pick(run.q), v=pick(run.v), a=pick(run.a), tau=pick(run.tau),
        energy=None if T is None else Energy(T, U, T + U), model_name=model.name, q_names=coordinate_names(model, "q"),
        v_names=coordinate_names(model, "v"), method=run.method,
        dt=run.cf[K.CF_DT] if run.method != "dopri5" else None, limit_events=events, stats=stats,
        wall_time=wall, conservative=run.conservative)
    n_ev = int(np.sum(si[:, K.SI_EVENTS]))
    if n_ev:
        joints = sorted({e.joint for e in events})
        warnings.warn(f"simulate: {n_ev} joint-limit crossing(s) on '{model.name}' ({', '.join(joints[:6])}"
                      f"{' ...' if len(joints) > 6 else ''}), first at t = {min(e.time for e in events):.4g} s: "
                      f"the simulator does not enforce position limits yet; see result.limit_events",
                      JointLimitWarning, stacklevel=4)
    failed = np.nonzero(si[:, K.SI_STATUS])[0]
    if failed.size:
        raise SimulationError(_failure_message(run, failed, result), result=result)
    return result


def _failure_message(run, failed, result):
    K, model = run.K, run.model
    r = int(failed[0])
    status = int(run.si[r, K.SI_STATUS])
    j = max(int(run.si[r, K.SI_SAMPLE]) - 1, 0)
    t_fail = run.sf[r, K.SF_T] if run.method == "dopri5" else run.si[r, K.SI_STEP] * run.cf[K.CF_DT]
    names = coordinate_names(model, "v")
    v_last = run.v[r, j]
    dof = int(np.argmax(np.abs(v_last))) if np.all(np.isfinite(v_last)) and model.nv else 0
    joint = names[dof] if names else "-"
    who = f"run {r} of {run.N}: " if run.N > 1 else ""
    step = (f"method 'dopri5', rtol = {run.cf[K.CF_RTOL]:.3g}, last step {run.sf[r, K.SF_H]:.3g} s"
            if run.method == "dopri5" else f"method '{run.method}', dt = {run.cf[K.CF_DT]:.3g} s")
    fast = f"the fastest joint at the last sample (t = {run.t_out[j]:.6g} s) is '{joint}' (|v| = {abs(v_last[dof]):.3g})"
    if status == 2:
        what = (f"the energy error reached {run.sf[r, K.SF_DRIFT]:.3g} of the energy scale (tolerance "
                f"energy_tol = {run.cf[K.CF_ENERGY_TOL]:.3g}) in this conservative run")
    elif status == 8:
        k = int(run.si[r, K.SI_STEP])
        what = (f"the run diverged at step {k}: its energy{' (with the PD spring)' if run.ci[K.CI_CTRL] == 1 else ''} "
                f"grew beyond the work of its inputs by {run.sf[r, K.SF_EXCESS]:.3g} of the energy scale (tolerance "
                f"energy_tol = {run.cf[K.CF_ENERGY_TOL]:.3g}; the friction, damping and feedback can only take energy "
                f"out)")
    elif status == 3:
        what = "the adaptive step size fell below 1e-14 s (a discontinuous input or a singular mass matrix?)"
    elif status == 4:
        what = "the step budget max_steps was exhausted"
    elif status == 6:
        what = "the implicit step's matrix M + h D is not positive definite (negative damping?)"
    else:
        what = "the state became NaN or infinite"
    tips = ("Try a smaller dt (e.g. default_dt(model) / 4), the adaptive method (method='dopri5'), or "
            "method='implicit' for stiff joint damping" if run.method != "dopri5" else
            "Check the inputs and the model's inertias (load report); a tighter rtol rarely helps here")
    if status == 8:
        tips = ("Try a smaller dt (e.g. default_dt(model) / 4), method='implicit' for stiff joint damping or PD gains, "
                "the adaptive method (method='dopri5'), or lower controller gains (kp, kd) if they are a mistake; "
                "energy_tol=None switches this check off" if run.method != "dopri5" else
                "Check the controller's gains and the inputs (a tighter rtol may help); energy_tol=None switches this "
                "check off")
    n_failed = f" ({failed.size} runs failed: {', '.join(map(str, failed[:8]))}{'...' if failed.size > 8 else ''})" \
        if run.N > 1 else ""
    return (f"simulate '{model.name}': {who}{what} at t = {t_fail:.6g} s ({step}); {fast}{_conditioning(model, run.q[r, j])}. "
            f"{tips}. The result up to t = {run.t_out[j]:.6g} s is in error.result{n_failed}.")


def _conditioning(model, q):
    """A note when the mass matrix at q is nearly singular (the usual cause of a blow-up on real
    URDFs: links with no or repaired inertia), naming the dofs of its softest mode; or ''."""
    from ..dynamics import crba

    try:
        w, V = np.linalg.eigh(crba(model, q))
    except Exception:  # noqa: BLE001 - a diagnostic only; q may be unusable
        return ""
    if not w[0] < 1e-9 * w[-1]:
        return ""
    names = coordinate_names(model, "v")
    soft = [names[k] for k in np.argsort(-np.abs(V[:, 0]))[:3]]
    return (f"; the mass matrix there is nearly singular (eigenvalues {w[0]:.3g} to {w[-1]:.3g}), its softest mode "
            f"moves {', '.join(repr(n) for n in soft)}: those links carry almost no inertia (zero-mass or repaired "
            f"links, see the model's load report): give them realistic inertias or make those joints fixed")


