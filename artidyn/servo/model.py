"""Servo-constraints on an artidyn :class:`~artidyn.Model`: relations on its joints and frames.

The relations are constraint objects (:mod:`artidyn.constraints`: ``Point``, ``Weld``,
``Coupling``, ``Holonomic``, or velocity relations ``Nonholonomic(A, b)`` such as a motor at
constant speed, ``A = e_k``, ``b = -omega``), realised by servo forces along ``directions`` (the
rows of D; default: the actuated dofs of the model, ``D = B^T``). First-kind relations (rolling,
closed loops) go in ``rolling``. The equations of :mod:`.core` with ``M = crba``, ``h - Q =
rnea(q, v, 0) - tau``, ``E``, ``gamma_E`` the servo relations' rows, ``A``, ``gamma_A`` the
first-kind rows (relations whose servo forces act directly: index 3 or 2; the underactuated
problems of higher index are stated from energies, :class:`~artidyn.servo.ServoProblem`).
"""
import numpy as np

from ..configuration import integrate
from ..constraints.projection import project
from ..constraints.solve import _check, constraint_rows
from ..dynamics import crba, kinetic_energy, potential_energy, rnea
from ..errors import InputError
from . import core
from .problem import ServoResult, ServoRun


class ModelServo:
    """Servo relations on a model (module docstring).

    Parameters
    ----------
    model : Model
    servo : list of constraints (the servo relations)
    directions : None (the actuated dofs), a list of joint names (their dofs), or a (j, nv) array
    rolling : list of first-kind constraints
    """

    def __init__(self, model, servo, directions=None, rolling=()):
        self.model = model
        self.servo = _check(model, servo)
        self.rolling = _check(model, rolling)
        if directions is None:
            act = np.asarray(model.actuated, dtype=bool)
            D = np.eye(model.nv)[act]
        elif len(directions) and isinstance(directions[0], str):
            rows = []
            for name in directions:
                s = model.v_slice(name)
                rows.extend(np.eye(model.nv)[s])
            D = np.array(rows)
        else:
            D = np.atleast_2d(np.asarray(directions, dtype=float))
        if D.ndim != 2 or D.shape[1] != model.nv or not np.all(np.isfinite(D)):
            raise InputError(f"ModelServo: directions must be (j, nv = {model.nv}) finite, got shape {D.shape}")
        self.D = D
        self.r, self.j = sum(c.rows for c in self.servo), D.shape[0]

    def accelerations(self, q, v, tau=None, t=0.0, f_ext=None, friction=True):
        """:class:`ServoResult` at one state; ``tau`` the other (known) joint torques."""
        m = self.model
        tau = np.zeros(m.nv) if tau is None else np.asarray(tau, dtype=float)
        M = crba(m, q)
        h = rnea(m, q, v, np.zeros(m.nv), f_ext, friction=friction) - tau
        s = constraint_rows(m, q, v, self.servo, t)
        a = constraint_rows(m, q, v, self.rolling, t)
        sol = core.solve(M, h, s.J, -s.bias, self.D, a.J, -a.bias)
        index = tuple(2 if c.nonholonomic else 3 for c in self.servo)
        return ServoResult(sol.qdd, sol.mu, sol.Lambda, sol.status, sol.rank, index, sol.why())

    def simulate(self, q0, v0, t_final, dt, tau=None):
        """RK4 on the configuration manifold, each step projected back onto the servo and the
        first-kind relations (mass-weighted): a :class:`~artidyn.servo.problem.ServoRun` (energy:
        kinetic + potential)."""
        m = self.model
        cons = self.servo + self.rolling
        q, v, _ = project(m, np.asarray(q0, dtype=float), np.asarray(v0, dtype=float), cons)
        n_steps = int(np.ceil(t_final / dt - 1e-9))
        f = lambda t, x, w: self.accelerations(x, w, tau, t)  # noqa: E731
        rows = []
        for k in range(n_steps + 1):
            t = k * dt
            r1 = f(t, q, v)
            if r1.status != core.DETERMINED:
                raise InputError(f"ModelServo.simulate at t = {t:.6g}: {r1.why}")
            rows.append((t, q, v, r1.qdd, r1.mu, r1.Lambda, float(kinetic_energy(m, q, v) + potential_energy(m, q)),
                         float(r1.mu @ (self.D @ v)),
                         float(np.max(np.abs(constraint_rows(m, q, v, self.servo, t).phi), initial=0.0))))
            if k == n_steps:
                break
            a1 = r1.qdd
            q2, v2 = integrate(m, q, 0.5 * dt * v), v + 0.5 * dt * a1
            a2 = f(t + 0.5 * dt, q2, v2).qdd
            q3, v3 = integrate(m, q, 0.5 * dt * v2), v + 0.5 * dt * a2
            a3 = f(t + 0.5 * dt, q3, v3).qdd
            q4, v4 = integrate(m, q, dt * v3), v + dt * a3
            a4 = f(t + dt, q4, v4).qdd
            q = integrate(m, q, dt / 6 * (v + 2 * v2 + 2 * v3 + v4))
            v = v + dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
            q, v, _ = project(m, q, v, cons, t=t + dt)
        t, Q, V, A, MU, LAM, E, P, DR = (np.array(x) for x in zip(*rows))
        work = np.concatenate([[0.0], np.cumsum(0.5 * (P[1:] + P[:-1]) * np.diff(t))])
        return ServoRun(t, Q, V, A, MU.reshape(len(t), self.j), LAM.reshape(len(t), -1), E, P, work, DR)
