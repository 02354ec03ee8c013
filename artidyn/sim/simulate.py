"""Forward simulation: ``M(q) a + h(q, v) + friction(v) = tau + J^T f_ext`` over time.

:func:`simulate` runs one state, :func:`rollout` many in parallel (the same engine: a batch given
to ``simulate`` is a rollout). The whole time loop runs in one compiled call
(:mod:`artidyn.kernels.stepping`), except when an input is a Python function, which is then
called once per step (zero-order hold, like a digital controller) between compiled steps.
``method="scipy"`` keeps the readable reference route (:mod:`.integrate`, ``solve_ivp``).
"""
from __future__ import annotations

import math
import os
import sys
import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..checks import MAX_STATE
from ..configuration import _joint_at_q, as_batch, as_q
from ..errors import InputError, ShapeError, SimulationError, check_count, check_flag, check_number
from ..firstuse import clock
from ..joints import CYLINDRICAL, FREE, SPHERICAL
from ..kernels.dispatch import kernels_enabled
from .forces import check_forces, pack_forces
from .inputs import CONSTANT, HOLD, LINEAR, NONE, stage_tables, torque_table, wrench_table
from .result import Energy, LimitEvent, SimulationResult

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

    from .._typing import Input, Model
    from ..constraints.models import Constraint
    from ..contact.settings import ContactSettings
    from ..servo.model import ModelServo
    from .control import PD, ComputedTorque

METHODS = ("auto", "rk4", "semi-implicit", "implicit", "dopri5", "scipy")
RECORD = ("q", "v", "a", "tau", "energy")
_CODES = {"semi-implicit": 0, "rk4": 1, "implicit": 2, "dopri5": 3}
DEFAULT_IVP = {"method": "DOP853", "rtol": 1e-10, "atol": 1e-12}
MAX_EVENTS = 256
MAX_GRID_STEPS = 1e9   # most steps of a fixed-step grid (t_final / dt)
_STATUS = {1: "non-finite state", 2: "energy error", 3: "step size underflow", 4: "step budget exhausted",
           6: "matrix not positive definite", 8: "diverged (energy balance)"}


class JointLimitWarning(UserWarning):
    """A simulated joint went past its position limit (limits are not enforced yet)."""


def time_grid(t_final, dt):
    """Uniform grid 0 .. t_final with steps of at most ``dt``: (n_steps + 1,) array."""
    for name, val in (("t_final", t_final), ("dt", dt)):
        if not isinstance(val, (int, float, np.floating, np.integer)) or isinstance(val, (bool, np.bool_)) or \
                not np.isfinite(val) or val <= 0:
            raise InputError(f"simulate: {name} must be a positive finite number of seconds, got {val!r}")
    ratio = float(t_final) / float(dt)
    if not ratio <= MAX_GRID_STEPS:
        raise InputError(f"simulate: t_final / dt = {t_final:g} / {dt:g} = {ratio:.3g} steps, more than "
                         f"{MAX_GRID_STEPS:.0e}: the time grid alone would not fit in memory; use a larger dt or "
                         f"a shorter t_final")
    n_steps = max(1, int(np.ceil(ratio - 1e-9)))
    check_memory((n_steps + 1) * 8, "the time grid")
    return np.linspace(0.0, float(t_final), n_steps + 1)


def check_memory(nbytes, what):
    """InputError before allocating ``nbytes`` for ``what`` when that exceeds half the machine's memory."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        total = 16 * 2**30
    if nbytes > total / 2:
        raise InputError(f"simulate: {what} would take {nbytes / 2**30:.3g} GiB, more than half of this machine's "
                         f"{total / 2**30:.3g} GiB; keep fewer samples (record_every=k, record=('q', 'v')), use a "
                         f"larger dt or a shorter t_final")


# --- the default step ----------------------------------------------------------------------------

def _nice_floor(x):
    """The largest 1, 2 or 5 x 10^k not above x."""
    e = math.floor(math.log10(x))
    for m in (5.0, 2.0, 1.0):
        if m * 10.0 ** e <= x * (1 + 1e-12):
            return m * 10.0 ** e
    return 10.0 ** e


def default_dt(model: Model, q: ArrayLike | None = None, method: str = "rk4", largest: float = 1e-3) -> float:
    """A time step for ``model`` from its fastest linearised mode at ``q`` (neutral by default).

    The gravity stiffness ``K = dg/dq`` (central differences of the gravity torques on the
    manifold) and the joint damping ``D`` against the mass matrix ``M``: ``omega^2 = max |eig(K, M)|``
    and ``gamma = max eig(D, M)``. The step resolves the fastest oscillation with about 20 steps
    per period (``0.3 / omega``) and, for the explicit methods, stays inside their stability
    region for the damping (``1 / gamma``); it is at most ``largest`` (1 ms) and rounded down to
    1, 2 or 5 x 10^k s. For ``method="implicit"`` the damping is integrated implicitly: its
    modes are taken against ``M + h D`` (which also tames a singular M, e.g. coaxial joints
    around a massless link) and the damping rate does not bound the step. Fast motions can still need less: the adaptive method ``"dopri5"``
    chooses its steps itself.
    """
    import scipy.linalg

    from ..configuration import integrate, neutral
    from ..dynamics import crba, gravity_torque

    largest = check_number(largest, "default_dt: largest", positive=True)
    if model.nv == 0:
        return largest
    if q is None:
        q = neutral(model)
    else:
        Q, single = as_q(model, q, "default_dt: q")
        if not single:
            raise ShapeError(f"default_dt takes one configuration q ({model.nq},), got a batch of {Q.shape[0]}")
        q = Q[0]
    M = crba(model, q)
    eps = 1e-6
    E = np.eye(model.nv) * eps
    gp = gravity_torque(model, integrate(model, np.broadcast_to(q, (model.nv, model.nq)), E))
    gm = gravity_torque(model, integrate(model, np.broadcast_to(q, (model.nv, model.nq)), -E))
    K = (np.atleast_2d(gp) - np.atleast_2d(gm)).T / (2 * eps)
    K = 0.5 * (K + K.T)
    D = np.diag(model.damping)
    h = largest
    for _ in range(8):
        # the implicit method integrates against M + h D: damping also bounds a singular M's modes
        M_eff = M + h * D if method == "implicit" else M
        rates = [1.0 / largest]
        try:
            w2 = scipy.linalg.eigh(K, M_eff, eigvals_only=True)
            rates.append(np.sqrt(np.max(np.abs(w2))) / 0.3)
            if method != "implicit" and np.any(model.damping):
                rates.append(np.max(scipy.linalg.eigh(D, M, eigvals_only=True)))
        except (np.linalg.LinAlgError, ValueError):  # M singular (a dof without inertia)
            rates.append(1e7)
        h_new = _nice_floor(max(1e-7, 1.0 / max(r for r in rates if np.isfinite(r))))
        if h_new >= h or method != "implicit":
            return h_new
        h = h_new
    return h


def auto_method(model: Model, q0: ArrayLike | None = None, friction: bool = True) -> str:
    """The method ``"auto"`` stands for: ``"rk4"``, or ``"implicit"`` when the joint damping is
    what limits RK4's step (the implicit method's default step is longer) or the model has
    Coulomb friction (RK4 chatters on sign(v); the implicit step solves stick and slip)."""
    if not friction or model.nv == 0:
        return "rk4"
    if np.any(model.coulomb):
        return "implicit"
    if np.any(model.damping) and default_dt(model, q0, "implicit") > default_dt(model, q0, "rk4"):
        return "implicit"
    return "rk4"


# --- running the engine --------------------------------------------------------------------------

def _states(model, q0, v0):
    for name, x in (("q0", q0), ("v0", v0)):   # complex: the imaginary part would be dropped silently
        if x is not None and not callable(x) and np.iscomplexobj(x):
            raise InputError(f"simulate: {name} is complex; pass real numbers (the imaginary part would be dropped)")
    Q, single = as_q(model, q0, "q0")
    V, single_v = as_batch(model, np.zeros(model.nv) if v0 is None else v0, "v0", "nv")
    N = max(Q.shape[0], V.shape[0])
    if Q.shape[0] not in (1, N) or V.shape[0] not in (1, N):
        raise ShapeError(f"q0 has {Q.shape[0]} states and v0 {V.shape[0]}: they must match (or one be single)")
    Q = np.array(np.broadcast_to(Q, (N, model.nq)), dtype=float)
    V = np.array(np.broadcast_to(V, (N, model.nv)), dtype=float)
    return Q, V, N, single and single_v


def one_state(model, q0, v0, what):
    """(q, v): fresh float copies of a single initial state (v0 None: zero); an InputError
    naming ``what`` for a batch."""
    Q, V, _, single = _states(model, q0, v0)
    if not single:
        raise InputError(f"{what} takes one state (q0 (nq,), v0 (nv,))")
    return Q[0], V[0]


def _energy_scale(model, Q):
    """A floor for the energy-error check: m_total |g| (size of the robot + 0.1 m), or the joint
    springs' initial energy if larger; the engine raises it to the initial kinetic energy if that
    is larger."""
    from ..dynamics import spring_energy
    from ..kinematics import body_placements

    T = body_placements(model, Q[0])
    c = np.einsum("nij,nj->ni", T[1:, :3, :3], model.com[1:]) + T[1:, :3, 3]
    size = float(np.max(np.linalg.norm(c - c.mean(axis=0), axis=1))) if len(c) else 0.0
    springs = float(spring_energy(model, Q[0])) if np.any(model.stiffness) else 0.0
    return max(float(np.linalg.norm(model.gravity)) * float(model.total_mass) * (2 * size + 0.1), springs, 1e-12)


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
        cf[K.CF_ESCALE] = _energy_scale(model, Q) if conservative else 0.0
        cf[K.CF_BSCALE] = _energy_scale(model, Q) if ci[K.CI_BALANCE] else 0.0
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
                self.f_v[r if self.f_v.shape[0] > 1 else 0], self.fe, self.gains, self.ref_t, self.ref_q, self.ref_v,
                self.ref_a, self.lim, self.t_out)

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
                    bar = _progress_bar(S, done, model.name)
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
                    out = _python_torque(model, Bact, _torque_value(out, t))
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
        import numba

        K = self.engine()
        threads = numba.get_num_threads()
        nchunk = threads if self.N <= 64 * threads else 4 * threads
        tv, fv = self.tau_v, self.f_v
        self._guard(K.rollout, self.B, self.ci, self.cf, self.Q0, self.V0, self.tau_t, tv, self.f_t, fv, self.fe,
                    self.gains, self.ref_t, self.ref_q, self.ref_v, self.ref_a, self.lim, self.t_out, self.q, self.v,
                    self.a, self.tau, self.e, self.events, self.si, self.sf, nchunk)


def _torque_value(out, t):
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


def _python_torque(model, Bact, out):
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


# stderr absent (None: pythonw, some daemons and services), closed, or a broken pipe: a progress
# bar is a comfort, never a reason to stop a run
_STDERR_ERRORS = (AttributeError, ValueError, OSError)


def _stderr_is_terminal():
    """True when stderr is an open terminal (where a bar shows by default)."""
    try:
        return bool(sys.stderr.isatty())
    except _STDERR_ERRORS:
        return False


class _ProgressBar:
    """A tqdm bar on stderr that goes quiet, and lets the run go on, the first time stderr
    refuses a write."""

    def __init__(self, bar):
        self.bar = bar

    def update(self, n):
        self._call("update", n)

    def close(self):
        self._call("close")

    def _call(self, what, *args):
        if self.bar is None:
            return
        try:
            getattr(self.bar, what)(*args)
        except _STDERR_ERRORS:
            self.bar = None


def _progress_bar(total, done, name):
    """A :class:`_ProgressBar`, or None when stderr cannot take one (then no bar at all)."""
    from tqdm import tqdm

    if sys.stderr is None:
        return None
    try:
        return _ProgressBar(tqdm(total=total, initial=done, desc=f"simulate {name}", unit="sample", leave=False,
                                 file=sys.stderr))
    except _STDERR_ERRORS:
        return None


# --- the public functions -----------------------------------------------------------------------

def simulate(model: Model, q0: ArrayLike, v0: ArrayLike | None = None, tau: Input = 0.0, t_final: float = 1.0,
             dt: float | None = None, method: str = "auto", f_ext: Input | None = None,
             controller: PD | ComputedTorque | None = None, t_eval: ArrayLike | None = None, record_every: int = 1,
             rtol: float = 1e-7, atol: float = 1e-9, energy_tol: float | None = 0.1, friction: bool = True,
             max_steps: int = 50_000_000, progress: bool | None = None, ivp_options: dict[str, Any] | None = None,
             record: tuple[str, ...] = RECORD, constraints: Sequence[Constraint] | str | None = None,
             baumgarte: tuple[float, float] | None = None, projection: bool = True,
             contact: ContactSettings | None = None, servo: ModelServo | None = None,
             forces: Sequence[Any] | None = None) -> SimulationResult:
    """Simulate the model from ``(q0, v0)`` under torques, a controller and external wrenches.

    Parameters
    ----------
    model : Model
    q0 : (nq,) or (N, nq)
        Initial configuration(s); quaternions are checked and normalised. A batch runs as
        :func:`rollout` (results with a leading run axis).
    v0 : (nv,) or (N, nv), optional
        Initial velocity (zero by default).
    tau : float, array, TimeTable or callable
        Generalized torques (nv entries) or actuator inputs (na entries, mapped through
        :func:`~artidyn.dynamics.actuation_matrix`): a constant; an array over the time grid,
        one row per step (held over the step) or one per grid time (interpolated), optionally
        with a run axis ``(rows, N, k)``; a :class:`~artidyn.sim.TimeTable` at any times; or a
        Python function ``tau(t, q, v)``, called once per step and held over it (the slow path:
        a few microseconds per step on top of the function). The model's joint friction is
        subtracted as in :func:`~artidyn.dynamics.aba` (``friction=False`` ignores it).
    t_final : float
        Duration (s).
    dt : float, optional
        Fixed-step methods: the step (``ceil(t_final / dt)`` equal steps; default
        :func:`default_dt`). ``"dopri5"``: the spacing of the output samples (default 1 ms).
    method : {"auto", "rk4", "semi-implicit", "implicit", "dopri5", "scipy"}
        ``"auto"`` (:func:`auto_method`): RK4, or the implicit method when the joint damping
        limits RK4's step or the model has Coulomb friction; with ``contact=`` (unilateral rows:
        contacts, enforced joint limits), Moreau-Jean. ``"rk4"``: classical Runge-Kutta on the manifold (RKMK4, 4 aba calls per step).
        ``"semi-implicit"``: symplectic Euler (1 call). ``"implicit"``: implicit in the joint
        damping and the PD controller's kd (MuJoCo's "implicitfast"): stable for stiff damping.
        ``"dopri5"``: adaptive Dormand-Prince 5(4) with ``rtol``/``atol``, samples by its
        continuous extension. ``"scipy"``: the readable reference route (``solve_ivp`` restarted
        at each step, ``ivp_options``), slow.
    f_ext : array (nb+1, 6), over time, TimeTable, or callable ``f_ext(t, q, v)``, optional
        Wrenches [moment; force] on each body, body frame, about the body origin.
    controller : :class:`~artidyn.sim.PD` or :class:`~artidyn.sim.ComputedTorque`, optional
        A compiled control law whose torque adds to ``tau`` on the actuated dofs.
    forces : list of :class:`~artidyn.sim.Drag`, :class:`~artidyn.sim.Spring` or :class:`~artidyn.sim.JointSpring`
        Force elements evaluated from the state at every stage, in the compiled input stage
        (smooth methods and ``contact=``): linear and quadratic drag, nonlinear point-to-point
        springs, nonlinear joint springs; their wrenches add to ``f_ext`` (and their work enters
        the energy balance as the inputs' does).
    t_eval : array, optional
        ``"dopri5"`` only: the sample times (from 0 to ``t_final``).
    record_every : int
        Fixed-step methods: keep every k-th step (and the last).
    energy_tol : float or None
        In a conservative run (no input, friction or external force), stop with
        :class:`~artidyn.errors.SimulationError` once ``|E - E0|`` exceeds this fraction of the
        run's energy scale (largest kinetic energy or potential change, at least m g times the
        robot's size). In a run with inputs, controller, friction or damping, the energy balance:
        stop (status 8) once ``E - E0`` (E with a PD controller's spring ``kp |q_ref (-) q|^2 / 2``)
        exceeds the inputs' work (torques, computed torque, the PD's power at its reference's
        velocity, external wrenches; the integrator's own quadrature) by this fraction of the
        scale (the largest of m g times the robot's size, the largest kinetic or PD spring energy,
        the inputs' absolute work): the run diverges. ``stats["energy_excess"]`` is the largest
        excess reached. None: no check. A computed-torque controller is an input like a torque
        table: its motors really do the work ``tau . v``, which W counts (its feedback included),
        so the balance stops an integration that has left its equations (an absurd gain at a large
        step), not a controller that really drives the robot hard; a PD, which is a spring and a
        damper, is counted as one (its spring's energy in E). Closed chains (``constraints=``) and
        servo runs (``servo=``) keep their own balance, checked at every step likewise.
    progress : bool or None
        A progress bar (tqdm, on stderr) for runs longer than about a second; None: only when
        stderr is a terminal.
    record : tuple of str
        What the samples keep: ``"q"``, ``"v"`` (always) and any of ``"a"``, ``"tau"``,
        ``"energy"`` (default all); the others are None in the result. Long rollouts of big
        robots: ``record=("q", "v")`` halves the memory (talos, 1000 runs x 2000 steps: 3.2 GB
        with everything).
    constraints : list of constraints, or "model", optional
        Bilateral constraints (:mod:`artidyn.constraints`: closed loops, welded feet, gears;
        ``"model"``: those the model file declares, :func:`artidyn.constraints.from_model`; a model
        that declares loop closures simulated without them warns once):
        the run goes to :func:`~artidyn.sim.simulate_constrained` (one state; ``"rk4"`` (the
        default for ``"auto"``) or ``"semi-implicit"``; no controller), compiled for Point, Weld,
        Hinge, Distance and Coupling. ``baumgarte=(alpha, beta)`` and ``projection`` (mass-weighted,
        after every step; default on) keep the state on the constraints. The result also holds
        ``constraint_forces`` and ``drift``.

    contact : :class:`artidyn.contact.ContactSettings`, optional
        Unilateral contacts between the model's collision shapes, with Coulomb friction and
        Newton restitution: the run goes down the simulation pipeline of
        :func:`~artidyn.sim.contact_run.simulate_contact` (``method="moreau_jean"``, the default for
        "auto", or ``"event_driven"``: smooth phases, located impacts and stick events,
        :mod:`artidyn.contact.event_driven`; one state; ``dt`` default 1 ms), compiled end to end,
        with ``tau``, ``f_ext``, ``controller`` and ``constraints`` beside the contacts (a Python
        ``tau(t, q, v)`` is called from the compiled loop). The result also holds ``contacts``,
        ``contact_forces``, ``events`` and ``input_work``; a run whose energy outgrows the work of
        its inputs by ``energy_tol`` stops with :class:`~artidyn.errors.SimulationError`.

    servo : :class:`artidyn.servo.ModelServo`, optional
        Servo-constraints (relations kept by regulated actuators along given directions, Appell):
        the run of :mod:`artidyn.sim.servo_run`; the result also holds ``servo_forces``,
        ``servo_power``, ``servo_work`` and ``drift``; ``tau`` is the (constant) known torque.

    Returns
    -------
    SimulationResult
        ``t`` (S,), ``q`` (S, nq), ``v``, ``a``, ``tau`` (S, nv), ``energy``; for a batch, a leading
        run axis: ``q`` (N, S, nq). Also ``limit_events``, ``stats`` and ``wall_time``.

    Raises
    ------
    SimulationError
        The state became non-finite, the energy error exceeded ``energy_tol`` (or the energy
        grew beyond the inputs' work: the run diverged), or the adaptive
        step underflowed: the message names the time, step and joint and what to try; the
        partial result is ``error.result``.
    """
    friction = check_flag(friction, "simulate: friction")
    projection = check_flag(projection, "simulate: projection")
    progress = None if progress is None else check_flag(progress, "simulate: progress (or None)")
    forces = check_forces(forces, "simulate")
    if forces and (servo is not None or method == "scipy"):
        raise InputError("simulate: forces= (drag, springs) run on the engine's own methods and with contact=, not "
                         "with servo= or method='scipy'")
    if servo is not None:
        if contact is not None or constraints is not None or controller is not None:
            raise InputError("simulate with servo=: contact=, constraints= and controller= are not supported together "
                             "with it (put first-kind relations in the ModelServo's rolling=)")
        unused = [name for name, given in (("f_ext", f_ext is not None), ("t_eval", t_eval is not None),
                                           ("record_every", record_every != 1),
                                           ("method", method not in ("auto", "rk4"))) if given]
        if unused:
            raise InputError(f"simulate with servo=: {', '.join(unused)} not supported (the servo run is RK4, "
                             f"sampled at every step, under constant torques tau)")
        from .servo_run import simulate_servo
        return simulate_servo(model, q0, v0, servo, tau, t_final, dt, energy_tol)
    if contact is not None or method in ("moreau_jean", "event_driven"):
        from .contact_run import simulate_contact
        if constraints is None:
            _warn_declared(model)
        if t_eval is not None:
            raise InputError("simulate with contact: t_eval is for the adaptive method 'dopri5'; a contact run "
                             "samples every step")
        return simulate_contact(model, q0, v0, tau, t_final, 1e-3 if dt is None else dt, contact,
                                "moreau_jean" if method == "auto" else method, f_ext, friction, controller=controller,
                                constraints=constraints, projection=projection, energy_tol=energy_tol, forces=forces)
    if method not in METHODS:
        raise InputError(f"simulate: unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if isinstance(constraints, str):
        if constraints != "model":
            raise InputError(f"simulate: constraints must be a list of constraints or 'model' (those the model file "
                             f"declares), got {constraints!r}")
        from ..constraints import from_model
        constraints = from_model(model)
    elif constraints is None:
        _warn_declared(model)
    if constraints is not None and len(constraints) > 0:
        if forces:
            raise InputError("simulate: forces= (drag, springs) with constraints= run with contact= (the Moreau-Jean "
                             "pipeline), not on the smooth constrained route")
        return _simulate_with_constraints(model, q0, v0, tau, t_final, dt, method, f_ext, controller, t_eval,
                                          record_every, friction, constraints, baumgarte, projection, energy_tol)
    Q, V, N, single = _states(model, q0, v0)
    if method == "auto":
        method = auto_method(model, Q[0], friction)
    if method == "scipy":
        return _simulate_scipy(model, Q, V, N, single, tau, f_ext, t_final, dt, ivp_options)
    return _simulate(model, Q, V, N, single, tau, f_ext, controller, t_final, dt, method, t_eval, record_every,
                     rtol, atol, energy_tol, friction, max_steps, progress, record=record, forces=forces)


def _warn_declared(model):
    """A model file that declares loop closures or couplings (URDF ``<mimic>``, MJCF joint
    equalities) simulated without them: say so (once per model)."""
    specs = getattr(model, "constraint_specs", ())
    if not specs or model._cache.get("sim.warned_declared"):
        return
    model._cache["sim.warned_declared"] = True
    loops = [s for s in specs if s.type != "coupling"]
    couplings = [s for s in specs if s.type == "coupling"]
    what = []
    if loops:
        what.append(f"{len(loops)} loop closure(s) ({', '.join(s.label() for s in loops[:3])}) that this run "
                    f"ignores (an open tree)")
    if couplings:
        what.append(f"{len(couplings)} joint coupling(s) ({', '.join(s.label() for s in couplings[:3])}"
                    f"{', ...' if len(couplings) > 3 else ''}) that this run leaves free (the coupled joints move "
                    f"on their own)")
    warnings.warn(f"{model.name}: the model declares {' and '.join(what)}; pass constraints='model' to enforce "
                  f"them", stacklevel=3)


def _simulate_with_constraints(model, q0, v0, tau, t_final, dt, method, f_ext, controller, t_eval, record_every,
                               friction, constraints, baumgarte, projection, energy_tol=0.1):
    from .constrained import simulate_constrained

    if method == "auto":
        method = "rk4"
    if method not in ("rk4", "semi-implicit"):
        raise InputError(f"simulate with constraints: method must be 'rk4' or 'semi-implicit' (or 'auto'), got "
                         f"{method!r}")
    if controller is not None or t_eval is not None:
        raise InputError("simulate with constraints: controller= and t_eval= are not supported; give tau as a "
                         "table or a function")
    if dt is None:
        Q, _, _, _ = _states(model, q0, v0)
        dt = default_dt(model, Q[0], method)
    return simulate_constrained(model, q0, v0, constraints, tau=tau, t_final=t_final, dt=dt, method=method,
                                f_ext=f_ext, baumgarte=baumgarte, projection=projection, record_every=record_every,
                                friction=friction, energy_tol=energy_tol)


def rollout(model: Model, q0: ArrayLike, v0: ArrayLike | None = None, tau: Input = 0.0, t_final: float = 1.0,
            dt: float | None = None, method: str = "auto", f_ext: Input | None = None,
            controller: PD | ComputedTorque | None = None, t_eval: ArrayLike | None = None, record_every: int = 1,
            rtol: float = 1e-7, atol: float = 1e-9, energy_tol: float | None = 0.1, friction: bool = True,
            max_steps: int = 50_000_000, record: tuple[str, ...] = RECORD, contact: ContactSettings | None = None,
            constraints: Sequence[Constraint] | str | None = None, projection: bool = True,
            forces: Sequence[Any] | None = None) -> SimulationResult:
    """Simulate N initial states and/or input sequences in parallel (like ``mujoco.rollout``).

    Arguments as :func:`simulate`; ``q0`` (N, nq) and/or ``v0`` (N, nv) (a single one is shared),
    ``tau`` constant, per run (N, k), or over time with a run axis (rows, N, k). The runs are
    split in chunks over numba's threads. Returns a :class:`SimulationResult` whose arrays have a
    leading run axis: ``q`` (N, S, nq), ``v``, ``a``, ``tau`` (N, S, nv), energies (N, S).
    Runs that fail are reported in ``result.status`` (per run) and raise a
    :class:`~artidyn.errors.SimulationError` naming them, with the whole result attached.
    ``contact=`` (and ``constraints=`` beside it): N contact scenes on the compiled Moreau-Jean
    pipeline, with the contact forces per body ``(N, S, nb + 1, 3)`` and ``stats["status"]`` per
    run (0: ok); each run equals its single :func:`simulate` bit for bit.
    """
    friction = check_flag(friction, "rollout: friction")
    projection = check_flag(projection, "rollout: projection")
    forces = check_forces(forces, "rollout")
    if contact is not None or method == "moreau_jean":
        from .contact_run import simulate_contact
        if method not in ("auto", "moreau_jean"):
            raise InputError(f"rollout with contact: method must be 'moreau_jean' (or 'auto'), got {method!r}")
        return simulate_contact(model, q0, v0, tau, t_final, 1e-3 if dt is None else dt, contact, "moreau_jean",
                                f_ext, friction, controller=controller, constraints=constraints,
                                projection=projection, energy_tol=energy_tol, rollout=True, forces=forces)
    if constraints is not None:
        raise InputError("rollout: constraints= runs with contact= (the Moreau-Jean pipeline); for a smooth closed "
                         "chain, simulate one state at a time")
    if method not in METHODS or method == "scipy":
        raise InputError(f"rollout: unknown method {method!r}; choose one of {', '.join(METHODS[:-1])}")
    Q, V, N, _ = _states(model, q0, v0)
    if method == "auto":
        method = auto_method(model, Q[0], friction)
    runs = _input_runs(tau, f_ext)
    if N == 1 and runs > 1:          # one initial state, N input sequences
        Q, V, N = np.repeat(Q, runs, 0), np.repeat(V, runs, 0), runs
    return _simulate(model, Q, V, N, False, tau, f_ext, controller, t_final, dt, method, t_eval, record_every,
                     rtol, atol, energy_tol, friction, max_steps, False, rollout=True, record=record, forces=forces)


def _record_bits(record):
    """The engine's bit mask for the ``record`` argument (q and v are always kept)."""
    bits = {"q": 1, "v": 2, "a": 4, "tau": 8, "energy": 16}
    try:
        items = (record,) if isinstance(record, str) else tuple(record)
    except TypeError:                               # a number: not a list of names
        items = ()
    unknown = [x for x in items if not isinstance(x, str) or x not in bits]
    if unknown or "q" not in items or "v" not in items:
        raise InputError(f"simulate: record must list 'q', 'v' and any of 'a', 'tau', 'energy'; got {record!r}")
    return sum(bits[x] for x in set(items))


def _input_runs(tau, f_ext):
    """The run axis of inputs given over time with one (rows, N, k) array per run, or 1."""
    from .inputs import TimeTable

    n = 1
    for x in (tau, f_ext):
        if isinstance(x, TimeTable):
            x = x.values
        if callable(x) or x is None:
            continue
        arr = np.asarray(x)
        if arr.ndim == 3 and x is tau:
            n = max(n, arr.shape[1])
        elif arr.ndim == 4:
            n = max(n, arr.shape[1])
    return n


def _grids(model, Q, t_final, dt, method, t_eval, record_every):
    """(step grid, sample times, record_every, first dopri step)."""
    if method == "dopri5":
        if t_eval is not None:
            t_out = np.asarray(t_eval, dtype=float).ravel()
            if t_out.size < 2 or not np.all(np.isfinite(t_out)) or np.any(np.diff(t_out) <= 0) or t_out[0] != 0.0:
                raise InputError("simulate: t_eval must be finite, strictly increasing, start at 0 and hold at "
                                 "least 2 times")
        else:
            t_out = time_grid(t_final, 1e-3 if dt is None else dt)
        return t_out, t_out, 1, min(1e-3, t_out[1] - t_out[0])
    if t_eval is not None:
        raise InputError(f"simulate: t_eval is for the adaptive method 'dopri5'; method {method!r} samples every "
                         f"record_every steps")
    grid = time_grid(t_final, default_dt(model, Q[0], method) if dt is None else dt)
    if not isinstance(record_every, (int, np.integer)) or record_every < 1:
        raise InputError(f"simulate: record_every must be a positive integer, got {record_every!r}")
    n = grid.size - 1
    steps = np.unique(np.minimum(np.arange(0, n + record_every, record_every), n))
    return grid, grid[steps], int(record_every), 0.0


def _simulate(model, Q, V, N, single, tau, f_ext, controller, t_final, dt, method, t_eval, record_every, rtol,
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
    grid, t_out, every, h0 = _grids(model, Q, t_final, dt, method, t_eval, record_every)
    bits = _record_bits(record or RECORD)
    per_sample = model.nq + model.nv * (1 + bool(bits & 4) + bool(bits & 8)) + 2 * bool(bits & 16)
    check_memory(8 * N * t_out.size * per_sample, f"the recorded samples ({N} run(s) x {t_out.size} samples)")
    if model.nv == 0:   # nothing moves (a fixed-base model without joints)
        return _motionless(model, N, single and not rollout, t_out, method, grid)
    run = _Run(model, Q, V, N, single, tau, f_ext, controller, method, grid, t_out, every, rtol, atol, energy_tol,
               friction, max_steps, h0, _record_bits(record or RECORD), forces)
    if run.python_inputs and (N > 1 or rollout):
        raise InputError("rollout: Python functions for tau or f_ext cannot run in parallel; use a table, a "
                         "TimeTable or a compiled controller (PD, ComputedTorque), or simulate one state at a time")
    start = clock()
    if N == 1 and not rollout and not kernels_enabled() and run.reference_fits():
        run.run_reference()         # kernels switched off (reference_only): the readable loop, nothing compiles
    elif N == 1 and not rollout:
        run.run_single(progress if progress is not None else (None if _stderr_is_terminal() else False))
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


def _simulate_scipy(model, Q, V, N, single, tau, f_ext, t_final, dt, ivp_options):
    """The reference route: reference aba in solve_ivp, restarted at every step for held tables."""
    from ..dynamics import aba, actuation_matrix, kinetic_energy, potential_energy
    from .integrate import scipy_run

    t = time_grid(t_final, 1e-3 if dt is None else dt)
    n_steps = t.size - 1
    mode, tt, tv = torque_table(model, tau, t, N, single)
    fmode, ft, fv = wrench_table(model, f_ext, t, N, single)

    def table_at(mode, tt, tv, k, s):
        if mode == "python":
            return None
        if mode in (NONE, CONSTANT):
            return tv[:, 0]
        if mode == HOLD:
            return tv[:, min(k, tv.shape[1] - 1)]
        return np.stack([np.array([np.interp(s, tt, tv[r, :, c]) for c in range(tv.shape[2])])
                         for r in range(tv.shape[0])]) if tv.ndim == 3 else None

    def f(k, s, Qs, Vs):
        if mode == "python":
            Tau = np.broadcast_to(_python_torque(model, actuation_matrix(model), np.asarray(tau(s, Qs[0], Vs[0]),
                                                                                          dtype=float)), (N, model.nv))
        else:
            Tau = np.broadcast_to(table_at(mode, tt, tv, k, s), (N, model.nv))
        if fmode == "python":
            F = f_ext(s, Qs[0], Vs[0])
        elif fmode == NONE:
            F = None
        elif fmode == LINEAR:
            F = np.apply_along_axis(lambda col: np.interp(s, ft, col), 1, fv.reshape(fv.shape[0], fv.shape[1], -1)
                                    ).reshape((fv.shape[0],) + fv.shape[2:])
        else:
            F = fv[:, 0] if fmode == CONSTANT else fv[:, min(k, fv.shape[1] - 1)]
        return aba(model, Qs, Vs, Tau, F), Tau

    options = dict(DEFAULT_IVP, **(ivp_options or {}))
    start = clock()
    held = mode in (HOLD, "python") or fmode in (HOLD, "python")
    q_out, v_out = scipy_run(model, f, t, Q, V, held, options)
    a_out = np.empty((n_steps + 1, N, model.nv))
    tau_out = np.empty((n_steps + 1, N, model.nv))
    for k in range(n_steps + 1):
        a_out[k], tau_out[k] = f(k, t[k], q_out[k], v_out[k])
    flat_q, flat_v = q_out.reshape(-1, model.nq), v_out.reshape(-1, model.nv)
    T = np.asarray(kinetic_energy(model, flat_q, flat_v)).reshape(n_steps + 1, N)
    U = np.asarray(potential_energy(model, flat_q)).reshape(n_steps + 1, N)
    lay = (lambda x: x[:, 0]) if single else (lambda x: np.swapaxes(x, 0, 1))
    return SimulationResult(
        t=t, q=lay(q_out), v=lay(v_out), a=lay(a_out), tau=lay(tau_out), energy=Energy(lay(T), lay(U), lay(T + U)),
        model_name=model.name, q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
        method="scipy", dt=t[1] - t[0], wall_time=clock() - start)


_LABELS = {("q", SPHERICAL): ("qx", "qy", "qz", "qw"), ("v", SPHERICAL): ("wx", "wy", "wz"),
           ("q", FREE): ("x", "y", "z", "qx", "qy", "qz", "qw"),
           ("v", FREE): ("wx", "wy", "wz", "vx", "vy", "vz"),
           ("q", CYLINDRICAL): ("angle", "d"), ("v", CYLINDRICAL): ("w", "v")}


def coordinate_names(model: Model, kind: str) -> list[str]:
    """Names of the entries of q (``kind="q"``) or v: the joint name, with ``.x``, ``.qw``, ``.wx``
    ... for the entries of spherical, free and cylindrical joints."""
    names = []
    for i in range(1, model.nb + 1):
        labels = _LABELS.get((kind, int(model.joint_type[i])))
        names += [model.joint_names[i]] if labels is None else [f"{model.joint_names[i]}.{s}" for s in labels]
    return names
