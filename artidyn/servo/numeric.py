"""A servo problem from plain functions, for systems that are neither a model nor stated in SymPy.

``NumericServo(M, h, E, gamma, D, A=None, gamma_A=None)``: ``M(q, t)`` (n x n), ``h(q, qd, t)``
(``h - Q``: everything but ``M qdd``), the servo relations at the acceleration level ``E(q, qd, t)
qdd = gamma(q, qd, t)``, their directions ``D(q, t)`` (j x n), and optional first-kind relations
``A(q, qd, t) qdd = gamma_A(q, qd, t)``. The equations and the determinacy test of :mod:`.core`
(relations that the servo forces reach directly: index 3 for finite ones; the higher-index ones
need their derivatives, :class:`~artidyn.servo.ServoProblem` takes them symbolically).
"""
import numpy as np

from ..errors import InputError, as_real
from . import balance, core
from .checks import check_mass_matrix, check_times
from .problem import ServoResult


class NumericServo:
    def __init__(self, M, h, E, gamma, D, A=None, gamma_A=None, name="servo problem"):
        for f, what in ((M, "M"), (h, "h"), (E, "E"), (gamma, "gamma"), (D, "D")):
            if not callable(f):
                raise InputError(f"NumericServo: {what} must be a function")
        self.M, self.h, self.E, self.gamma, self.D, self.A, self.gA = M, h, E, gamma, D, A, gamma_A
        self.name = name

    def accelerations(self, q, qd, t=0.0):
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        M = np.atleast_2d(np.asarray(self.M(q, t), dtype=float))
        n = M.shape[0]
        if M.shape != (n, n) or q.shape != (n,) or qd.shape != (n,):
            raise InputError(f"NumericServo ({self.name}): M(q, t) is {M.shape}, q {q.shape}, qd {qd.shape}: they "
                             f"must agree (n x n, n, n)")
        check_mass_matrix(M, q, qd, t, f"NumericServo ({self.name}): M(q, t)")
        E = np.asarray(self.E(q, qd, t), dtype=float).reshape(-1, n)
        D = np.asarray(self.D(q, t), dtype=float).reshape(-1, n)
        A = None if self.A is None else np.asarray(self.A(q, qd, t), dtype=float).reshape(-1, n)
        gA = None if self.A is None else np.asarray(self.gA(q, qd, t), dtype=float).reshape(-1)
        sol = core.solve(M, np.asarray(self.h(q, qd, t), dtype=float), E,
                         np.asarray(self.gamma(q, qd, t), dtype=float).reshape(-1), D, A, gA)
        if not (np.all(np.isfinite(sol.qdd)) and np.all(np.isfinite(sol.mu))):
            raise InputError(f"NumericServo ({self.name}): the result is not finite at this state (a singular M, "
                             f"or values that overflow)")
        return ServoResult(sol.qdd, sol.mu, sol.Lambda, sol.status, sol.rank, (3,) * E.shape[0], sol.why())

    def simulate(self, q0, qd0, t_final, dt):
        """RK4 on (q, qd) (vector coordinates): a :class:`ServoRun` (energy not known here: NaN).

        Without an energy there is no energy balance: a run stops with
        :class:`~artidyn.errors.SimulationError` (``result``: the run so far) when its state or its
        forces stop being finite or the problem stops being determined."""
        where = f"NumericServo.simulate ({self.name})"
        t_final, dt = check_times(t_final, dt, where)
        q = as_real(q0, f"{where}: q0", "the coordinates (numbers)", finite=True)
        qd = as_real(qd0, f"{where}: qd0", "the velocities (numbers)", finite=True)
        n_steps = int(np.ceil(t_final / dt - 1e-9))
        rows, work = [], 0.0

        def f(t, x, w):
            if not balance.finite(x, w):
                raise balance.Stop(f"the state became non-finite near t = {t:.6g} s")
            r = self.accelerations(x, w, t)
            return r, float(r.mu @ (np.asarray(self.D(x, t), dtype=float).reshape(-1, x.size) @ w))
        try:
            for k in range(n_steps + 1):
                t = k * dt
                r1, p1 = f(t, q, qd)
                if r1.status != core.DETERMINED:
                    if not rows:
                        raise InputError(f"{where} at t = {t:.6g}: {r1.why}")
                    raise balance.Stop(f"the problem is no longer determined at t = {t:.6g} s: {r1.why}")
                rows.append((t, q, qd, r1.qdd, r1.mu, r1.Lambda, np.nan, p1, work, 0.0))
                if k == n_steps:
                    break
                r2, p2 = f(t + dt / 2, q + dt / 2 * qd, qd + dt / 2 * r1.qdd)
                r3, p3 = f(t + dt / 2, q + dt / 2 * (qd + dt / 2 * r1.qdd), qd + dt / 2 * r2.qdd)
                r4, p4 = f(t + dt, q + dt * (qd + dt / 2 * r2.qdd), qd + dt * r3.qdd)
                q = q + dt / 6 * (qd + 2 * (qd + dt / 2 * r1.qdd) + 2 * (qd + dt / 2 * r2.qdd) + (qd + dt * r3.qdd))
                qd = qd + dt / 6 * (r1.qdd + 2 * r2.qdd + 2 * r3.qdd + r4.qdd)
                work += dt / 6 * (p1 + 2 * p2 + 2 * p3 + p4)
        except (balance.Stop, InputError, ArithmeticError, np.linalg.LinAlgError) as stop:
            raise balance.stopped(where, stop, rows, -1, dt, balance=False) from None
        return balance.run_of(rows, -1)
