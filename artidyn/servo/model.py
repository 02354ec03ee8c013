"""Servo-constraints on an artidyn :class:`~artidyn.Model`: relations on its joints and frames.

The relations are constraint objects (:mod:`artidyn.constraints`: ``Point``, ``Weld``,
``Coupling``, ``Holonomic``, or velocity relations ``Nonholonomic(A, b)`` such as a motor at
constant speed, ``A = e_k``, ``b = -omega``), realised by servo forces along ``directions`` (the
rows of D; default: the actuated dofs of the model, ``D = B^T``). First-kind relations (rolling,
closed loops) go in ``rolling``. The equations of :mod:`.core` with ``M = crba``, ``h - Q =
rnea(q, v, 0) - tau``, ``E``, ``gamma_E`` the servo relations' rows, ``A``, ``gamma_A`` the
first-kind rows (relations whose servo forces act directly: index 3 or 2).

Relations of any index (underactuated systems: the servo forces reach the relation only through
other coordinates) are written as SymPy expressions in the model's coordinates
(:func:`artidyn.servo.coordinates`) and t; the model's exact energies then state a
:class:`~artidyn.servo.ServoProblem` (:mod:`.model_sym`), which differentiates them up to the servo
forces. Its directions may depend on the state (rows of SymPy expressions), its first-kind
relations are SymPy expressions linear in the velocities.
"""
import sympy as sp

import numpy as np

from ..configuration import rkmk4
from ..constraints.projection import project
from ..constraints.solve import _check, constraint_rows
from ..dynamics import crba, kinetic_energy, potential_energy, rnea
from ..errors import InputError, as_real, check_vector
from . import balance, core
from .checks import check_times
from .problem import ServoResult


class ModelServo:
    """Servo relations on a model (module docstring).

    With SymPy relations (module docstring) the directions are joint names or rows of nv numbers
    or expressions, and ``problem`` is the :class:`~artidyn.servo.ServoProblem` that solves them.

    Parameters
    ----------
    model : Model
    servo : list of constraints (the servo relations), or of SymPy relations in
        :func:`artidyn.servo.coordinates` and t
    directions : None (the actuated dofs), a list of joint names (their dofs), or a (j, nv) array
    rolling : list of first-kind constraints (SymPy ones, linear in the velocities, with SymPy
        relations)
    quasi_velocities : None, "world" or a function ``B(q) -> (nv, nv)`` (as
        :class:`artidyn.analytical.System` takes them): :meth:`accelerations` then takes the state
        ``(q, w)``, ``w = B(q) v``, and fills ``wdot``; ``method="gibbs_appell"`` writes Appell's
        equations in the quasi-accelerations; given ``directions`` are rows over the
        quasi-displacements ``delta pi = B delta q`` (default: the actuated dofs, over ``delta q``)
    """

    def __init__(self, model, servo, directions=None, rolling=(), quasi_velocities=None):
        self.model = model
        self.problem = self.system = None
        items = list(servo) if isinstance(servo, (list, tuple)) else [servo]
        if any(isinstance(x, sp.Basic) for x in items):
            self._symbolic(items, directions, rolling)
            return
        self.servo = _check(model, servo)
        self.rolling = _check(model, rolling)
        if directions is None:
            act = np.asarray(model.actuated, dtype=bool)
            D = np.eye(model.nv)[act]
        elif isinstance(directions, str) or (len(directions) and isinstance(directions[0], str)):
            directions = [directions] if isinstance(directions, str) else directions
            rows = []
            for name in directions:
                s = model.v_slice(name)
                rows.extend(np.eye(model.nv)[s])
            D = np.array(rows)
        else:
            D = np.atleast_2d(as_real(directions, "ModelServo: directions", "joint names or a (j, nv) array"))
        if D.ndim != 2 or D.shape[1] != model.nv or not np.all(np.isfinite(D)):
            raise InputError(f"ModelServo: directions must be (j, nv = {model.nv}) finite, got shape {D.shape}")
        self.D = D
        self.r, self.j = sum(c.rows for c in self.servo), D.shape[0]
        if quasi_velocities is not None:
            from ..analytical.system import System
            if isinstance(quasi_velocities, str) and quasi_velocities != "world":
                raise InputError(f"ModelServo: quasi_velocities must be 'world' or a function B(q), got "
                                 f"{quasi_velocities!r}")
            self.system = System(model, quasi_velocities=quasi_velocities)
            self._D_w = None if directions is None else D        # rows over delta pi
            self.D = D if directions is None else None

    def _symbolic(self, items, directions, rolling):
        """The route of the relations of any index (:mod:`.model_sym`)."""
        from . import model_sym
        m = self.model
        bad = [k for k, x in enumerate(items) if not isinstance(x, sp.Basic)]
        if bad:
            raise InputError(f"ModelServo: servo relations {bad} are constraint objects among SymPy relations; write "
                             f"them all in servo.coordinates(model) (SymPy) or all as constraints")
        rolling = list(rolling)
        if any(not isinstance(x, sp.Basic) for x in rolling):
            raise InputError("ModelServo: with SymPy servo relations the first-kind relations are SymPy expressions "
                             "too (linear in the velocities of servo.coordinates(model))")
        if directions is None:
            rows = np.eye(m.nv)[np.asarray(m.actuated, dtype=bool)].tolist()
        elif isinstance(directions, str):
            rows = [directions]
        elif isinstance(directions, np.ndarray):
            rows = np.atleast_2d(directions).tolist()
        else:
            rows = list(directions)
        self.problem = model_sym.problem(m, items, rows, rolling, f"ModelServo ({m.name})")
        self.servo, self.rolling = items, rolling
        self.r, self.j = len(items), self.problem.j
        D = self.problem._D
        self.D = np.array(D.tolist(), dtype=float) if not D.free_symbols and not D.atoms(sp.Function) else None

    def directions_at(self, q, v, t=0.0):
        """D (j, nv) over delta q at a state (constant unless SymPy directions depend on it, or
        directions over quasi-displacements, ``D_w B(q)``)."""
        if self.D is not None:
            return self.D
        if self.system is not None:
            return self._D_w @ self.system.B(q)
        return self.problem._mats(np.asarray(q, dtype=float), np.asarray(v, dtype=float), t)[2]

    def _plain(self, tau, f_ext, where):
        """The SymPy route's statement has its forces in its energies: no torques or wrenches per call."""
        if (tau is not None and np.any(np.asarray(tau, dtype=float) != 0)) or f_ext is not None:
            raise InputError(f"{where}: with SymPy servo relations the given forces are the model's gravity, joint "
                             f"springs and damping; tau and f_ext are not taken (give them as a joint spring's rest "
                             f"or state the problem as a ServoProblem)")

    def accelerations(self, q, v, tau=None, t=0.0, f_ext=None, friction=True, method="lagrange"):
        """:class:`ServoResult` at one state; ``tau`` the other (known) joint torques.

        ``method="lagrange"``: the equations of :mod:`.core`; ``"gibbs_appell"``: Appell's form,
        ``dS/dqdd - Q`` orthogonal to the displacements the servo forces and the first-kind
        reactions do no work on (``D delta q = 0``, ``A delta q = 0``), with the relations; the
        same motion, the servo forces recovered from the residual.

        With ``quasi_velocities``, ``v`` is the state's ``w`` and the result's ``wdot`` the
        quasi-accelerations."""
        if self.problem is not None:
            self._plain(tau, f_ext, "ModelServo.accelerations")
            return self.problem.accelerations(q, v, t, method=method)
        if self.system is not None:
            q = np.asarray(q, dtype=float)
            return self._solve(q, self.system.velocities(q, v), tau, t, f_ext, friction, method, True)
        return self._solve(q, v, tau, t, f_ext, friction, method, False)

    def _solve(self, q, v, tau, t, f_ext, friction, method, quasi):
        """:meth:`accelerations` at ``(q, v)``; ``quasi``: fill ``wdot`` (and Gibbs-Appell in it)."""
        m = self.model
        tau = self._torque(tau, "ModelServo.accelerations")
        M = crba(m, q)
        h = rnea(m, q, v, np.zeros(m.nv), f_ext, friction=friction) - tau
        s = constraint_rows(m, q, v, self.servo, t)
        a = constraint_rows(m, q, v, self.rolling, t)
        index = tuple(2 if (c.nonholonomic and not np.any(c.holonomic_rows)) else 3 for c in self.servo)
        D = self.directions_at(q, v, t)
        if method == "gibbs_appell":
            return self._gibbs_appell(q, v, h, s, a, index, D, quasi)
        if method != "lagrange":
            raise InputError(f"ModelServo: method must be 'lagrange' or 'gibbs_appell', got {method!r}")
        try:
            sol = core.solve(M, h, s.J, -s.bias, D, a.J, -a.bias)
        except np.linalg.LinAlgError:                 # M singular on the free motions: name the joint, as aba does
            from ..dynamics.aba import singular_inertia
            raise singular_inertia(m, q) from None
        wdot = self.system.B(q) @ sol.qdd + self.system.Bdot_v(q, v) if quasi else None
        return ServoResult(sol.qdd, sol.mu, sol.Lambda, sol.status, sol.rank, index, sol.why(), wdot)

    def _gibbs_appell(self, q, v, h, s, a, index, D, quasi):
        """Appell's equations on the restricted displacements (see :meth:`accelerations`), in the
        quasi-accelerations ``wdot`` when ``quasi`` (``qdd = G (wdot - Bdot v)``; the relations'
        rows ``J G``, the directions ``D G``, the forces ``G^T Q``)."""
        from ..dynamics import acceleration_energy
        m = self.model
        n = m.nv
        G, bv = (self.system.G(q), self.system.Bdot_v(q, v)) if quasi else (np.eye(n), np.zeros(n))
        hh = 1e-30                        # S is quadratic in the accelerations: gradient by complex step
        probes = np.vstack([np.zeros(n), np.eye(n)])[:, None, :] + 1j * hh * np.eye(n)[None]
        acc = (probes.reshape(-1, n) - bv) @ G.T
        grad = np.imag(acceleration_energy(m, np.broadcast_to(q, (n * (n + 1), m.nq)),
                                           np.broadcast_to(v, (n * (n + 1), n)), acc))
        grad = grad.reshape(n + 1, n) / hh
        g0, H = grad[0], (grad[1:] - grad[0]).T        # dS/dwdot = H wdot + g0
        Q = -(h - (rnea(self._m0(), q, v, np.zeros(n), friction=False)
                   - rnea(self._m0(), q, np.zeros(n), np.zeros(n), friction=False)))   # tau - (h - c)
        Gb = G @ bv
        sol = core.gibbs_appell(H, g0 - G.T @ Q, s.J @ G, -s.bias + s.J @ Gb, D @ G, a.J @ G, -a.bias + a.J @ Gb)
        if not quasi:
            return ServoResult(sol.qdd, sol.mu, sol.Lambda, sol.status, sol.rank, index, sol.why())
        return ServoResult(G @ sol.qdd - Gb, sol.mu, sol.Lambda, sol.status, sol.rank, index, sol.why(), sol.qdd)

    def _m0(self):
        if getattr(self, "_zero_g", None) is None:
            self._zero_g = self.model.replace(gravity=np.zeros(3))
        return self._zero_g

    def _torque(self, tau, where):
        """The known joint torques: None (zero), a number or nv finite numbers."""
        if tau is None:
            return np.zeros(self.model.nv)
        if callable(tau):
            raise InputError(f"{where}: tau must be constant torques (a number or nv = {self.model.nv} numbers), got "
                             f"a function")
        T = as_real(tau, f"{where}: tau", f"torques (a number or nv = {self.model.nv} numbers)", finite=True)
        if T.ndim == 0:
            return np.full(self.model.nv, float(T))
        return check_vector(T, self.model.nv, f"{where}: tau")

    def simulate(self, q0, v0, t_final, dt, tau=None, energy_tol=0.1):
        """RK4 in the chart of the configuration manifold (RKMK4), each step projected back onto the servo and the
        first-kind relations (mass-weighted): a :class:`~artidyn.servo.problem.ServoRun` (energy:
        kinetic + potential). ``tau``: constant known torques (nv,).

        A run that diverges stops with :class:`~artidyn.errors.SimulationError` (``result``: the
        run so far): a state that is no longer finite, a problem no longer determined, or an energy
        that outgrows the work of the servo forces, the torques and the first-kind reactions by
        more than ``energy_tol`` of its scale (:mod:`.balance`; None: not checked).

        The state is ``(q, v)`` whatever the quasi-velocities; with them the run's ``w``, ``wdot``
        are filled."""
        from ..sim.setup import energy_scale as _energy_scale
        m = self.model
        where = "ModelServo.simulate"
        if self.problem is not None:        # the SymPy route: the problem's RK4 in the coordinates
            self._plain(tau, None, where)
            return self.problem.simulate(q0, v0, t_final, dt, energy_tol=energy_tol)
        t_final, dt = check_times(t_final, dt, where)
        tau = self._torque(tau, where)
        cons = self.servo + self.rolling
        q, v, _ = project(m, np.asarray(q0, dtype=float), np.asarray(v0, dtype=float), cons)
        bal = balance.EnergyBalance(energy_tol, where, _energy_scale(m, q[None]))
        n_steps = int(np.ceil(t_final / dt - 1e-9))
        powers = []

        def step(tt, x, w):
            """The accelerations at a stage; its (servo power, power of every input) kept in powers."""
            if not balance.finite(x, w):
                raise balance.Stop(f"the state became non-finite near t = {tt:.6g} s")
            r = self._solve(x, w, tau, tt, None, True, "lagrange", False)
            if not balance.finite(r.qdd, r.mu, r.Lambda):
                raise balance.Stop(f"the accelerations or forces became non-finite near t = {tt:.6g} s")
            p = float(r.mu @ (self.directions_at(x, w, tt) @ w))
            other = float(tau @ w)
            if self.rolling:
                other += float(r.Lambda @ (constraint_rows(m, x, w, self.rolling, tt).J @ w))
            powers.append((p, p + other))
            return r
        rows, work, W, absW = [], 0.0, 0.0, 0.0
        try:
            for k in range(n_steps + 1):
                t = k * dt
                powers.clear()
                r1 = step(t, q, v)
                if r1.status != core.DETERMINED:
                    raise balance.Stop(f"the problem is {'no longer' if k else 'not'} determined at t = {t:.6g} s: "
                                       f"{r1.why}")
                kin = float(kinetic_energy(m, q, v))
                E = kin + float(potential_energy(m, q))
                bal.check(t, E, kin, W, absW)
                rows.append((t, q, v, r1.qdd, r1.mu, r1.Lambda, E, powers[0][0], work,
                             float(np.max(np.abs(constraint_rows(m, q, v, self.servo, t).phi), initial=0.0))))
                if k == n_steps:
                    break
                powers.clear()
                q, v = rkmk4(m, lambda tt, x, w: step(tt, x, w).qdd, t, q, v, dt)
                (p1, P1), (p2, P2), (p3, P3), (p4, P4) = powers
                work += dt / 6 * (p1 + 2 * p2 + 2 * p3 + p4)     # the servo's work, same stages
                W += dt / 6 * (P1 + 2 * P2 + 2 * P3 + P4)
                absW += dt / 6 * (abs(P1) + 2 * abs(P2) + 2 * abs(P3) + abs(P4))
                if not balance.finite(q, v):
                    raise balance.Stop(f"the state became non-finite at t = {t + dt:.6g} s")
                q, v, _ = project(m, q, v, cons, t=t + dt)
        except (balance.Stop, InputError, ArithmeticError, np.linalg.LinAlgError) as stop:
            raise balance.stopped(where, stop, rows, self.j, dt) from None
        run = balance.run_of(rows, self.j)
        if self.system is not None:
            sy = self.system
            run = run._replace(w=np.array([sy.B(x) @ w for x, w in zip(run.q, run.v)]),
                               wdot=np.array([sy.B(x) @ a + sy.Bdot_v(x, w) for x, w, a in zip(run.q, run.v, run.qdd)]))
        return run
