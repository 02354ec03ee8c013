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

from ..configuration import rkmk4
from ..constraints.projection import project
from ..constraints.solve import _check, constraint_rows
from ..dynamics import crba, kinetic_energy, potential_energy, rnea
from ..errors import InputError
from . import core
from .checks import check_times
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

    def accelerations(self, q, v, tau=None, t=0.0, f_ext=None, friction=True, method="lagrange"):
        """:class:`ServoResult` at one state; ``tau`` the other (known) joint torques.

        ``method="lagrange"``: the equations of :mod:`.core`; ``"gibbs_appell"``: Appell's form,
        ``dS/dqdd - Q`` orthogonal to the displacements the servo forces and the first-kind
        reactions do no work on (``D delta q = 0``, ``A delta q = 0``), with the relations; the
        same motion, the servo forces recovered from the residual."""
        m = self.model
        tau = np.zeros(m.nv) if tau is None else np.asarray(tau, dtype=float)
        M = crba(m, q)
        h = rnea(m, q, v, np.zeros(m.nv), f_ext, friction=friction) - tau
        s = constraint_rows(m, q, v, self.servo, t)
        a = constraint_rows(m, q, v, self.rolling, t)
        index = tuple(2 if (c.nonholonomic and not np.any(c.holonomic_rows)) else 3 for c in self.servo)
        if method == "gibbs_appell":
            return self._gibbs_appell(q, v, h, s, a, index)
        if method != "lagrange":
            raise InputError(f"ModelServo: method must be 'lagrange' or 'gibbs_appell', got {method!r}")
        try:
            sol = core.solve(M, h, s.J, -s.bias, self.D, a.J, -a.bias)
        except np.linalg.LinAlgError:                 # M singular on the free motions: name the joint, as aba does
            from ..dynamics.aba import singular_inertia
            raise singular_inertia(m, q) from None
        return ServoResult(sol.qdd, sol.mu, sol.Lambda, sol.status, sol.rank, index, sol.why())

    def _gibbs_appell(self, q, v, h, s, a, index):
        """Appell's equations on the restricted displacements (see :meth:`accelerations`)."""
        from ..dynamics import acceleration_energy
        m = self.model
        n = m.nv
        hh = 1e-30                        # S is quadratic in qdd: gradient by complex step
        probes = np.vstack([np.zeros(n), np.eye(n)])[:, None, :] + 1j * hh * np.eye(n)[None]
        grad = np.imag(acceleration_energy(m, np.broadcast_to(q, (n * (n + 1), m.nq)),
                                           np.broadcast_to(v, (n * (n + 1), n)), probes.reshape(-1, n)))
        grad = grad.reshape(n + 1, n) / hh
        g0, H = grad[0], (grad[1:] - grad[0]).T        # dS/dqdd = H qdd + g0
        Q = -(h - (rnea(self._m0(), q, v, np.zeros(n), friction=False)
                   - rnea(self._m0(), q, np.zeros(n), np.zeros(n), friction=False)))   # tau - (h - c)
        sol = core.gibbs_appell(H, g0 - Q, s.J, -s.bias, self.D, a.J, -a.bias)
        return ServoResult(sol.qdd, sol.mu, sol.Lambda, sol.status, sol.rank, index, sol.why())

    def _m0(self):
        if getattr(self, "_zero_g", None) is None:
            self._zero_g = self.model.replace(gravity=np.zeros(3))
        return self._zero_g

    def simulate(self, q0, v0, t_final, dt, tau=None):
        """RK4 in the chart of the configuration manifold (RKMK4), each step projected back onto the servo and the
        first-kind relations (mass-weighted): a :class:`~artidyn.servo.problem.ServoRun` (energy:
        kinetic + potential)."""
        m = self.model
        t_final, dt = check_times(t_final, dt, "ModelServo.simulate")
        cons = self.servo + self.rolling
        q, v, _ = project(m, np.asarray(q0, dtype=float), np.asarray(v0, dtype=float), cons)
        n_steps = int(np.ceil(t_final / dt - 1e-9))
        powers = []

        def accel(tt, x, w):
            r = self.accelerations(x, w, tau, tt)
            powers.append(float(r.mu @ (self.D @ w)))
            return r.qdd
        rows, work = [], 0.0
        for k in range(n_steps + 1):
            t = k * dt
            r1 = self.accelerations(q, v, tau, t)
            if r1.status != core.DETERMINED:
                raise InputError(f"ModelServo.simulate at t = {t:.6g}: {r1.why}")
            rows.append((t, q, v, r1.qdd, r1.mu, r1.Lambda, float(kinetic_energy(m, q, v) + potential_energy(m, q)),
                         float(r1.mu @ (self.D @ v)), work,
                         float(np.max(np.abs(constraint_rows(m, q, v, self.servo, t).phi), initial=0.0))))
            if k == n_steps:
                break
            powers.clear()
            q, v = rkmk4(m, accel, t, q, v, dt)
            work += dt / 6 * (powers[0] + 2 * powers[1] + 2 * powers[2] + powers[3])   # the servo's work, same stages
            q, v, _ = project(m, q, v, cons, t=t + dt)
        t, Q, V, A, MU, LAM, E, P, W, DR = (np.array(x) for x in zip(*rows))
        return ServoRun(t, Q, V, A, MU.reshape(len(t), self.j), LAM.reshape(len(t), -1), E, P, W, DR)
