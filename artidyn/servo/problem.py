"""A servo problem stated from energies, in the style of ``sympy.physics.mechanics``.

Lagrange's equations of the first kind from the kinetic energy ``T(q, qdot, t)``, the potential
energy ``U(q, t)`` and generalized forces ``Q``::

    d/dt dT/dqdot - dT/dq + dU/dq - Q = M(q) qdd + h(q, qdot, t)

plus the servo relations ``s(q, qdot, t) = 0`` (finite, or in the velocities), their directions
``D`` (Appell's ``D delta q = 0``) and the first-kind relations ``A qdot + a = 0`` (rolling).
The relations are differentiated symbolically until the servo forces ``mu`` appear (the relative
degree ``rho_k`` of each relation; Isidori's normal form): a finite relation whose forces act
directly (``E M^-1 D^T`` invertible) appears at its second derivative, an index-3 problem as for
ordinary constraints; an underactuated one (the forces act through springs or a pendulum) later:
the differentiation index is ``rho + 1`` (5 for a two-mass spring chain driven at one end, 7 for
three masses). The ``rho_k``-th derivatives give the decoupling matrix ``B`` (r x j) and
``y^(rho) = a + B mu``; determinacy is decided by the rank of ``B`` at the state (with the
first-kind relations, by the rank of ``E N (N^T M N)^-1 N^T D^T``, :mod:`.core`).

Simulation (:meth:`ServoProblem.simulate`) integrates ``qdd(q, qdot, t)`` with RK4; optional
stabilisation replaces the target ``y^(rho) = 0`` by ``y^(rho) + sum_l c_l y^(l) = 0`` with the
coefficients of ``(s + lambda)^rho`` (all roots at ``-lambda``).
"""
from typing import NamedTuple

import numpy as np
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols

from ..errors import InputError, as_real, check_number
from . import checks, core

T_SYMBOL = dynamicsymbols._t


class ServoResult(NamedTuple):
    """One state: ``qdd`` (n,), ``mu`` (j,) servo forces, ``Lambda`` (p,) first-kind
    multipliers, ``status``, ``rank``, ``index`` (the differentiation index, per relation),
    ``why`` (a sentence); ``wdot`` the quasi-accelerations of a problem stated in quasi-velocities
    (else None)."""

    qdd: np.ndarray
    mu: np.ndarray
    Lambda: np.ndarray
    status: str
    rank: int
    index: tuple
    why: str
    wdot: np.ndarray = None


class ServoEquilibrium(NamedTuple):
    """An equilibrium (:meth:`ServoProblem.equilibria`): ``q`` (n,), ``mu`` (j,) the servo forces
    that hold it, ``Lambda`` (p,) the first-kind (rolling) reactions."""

    q: np.ndarray
    mu: np.ndarray
    Lambda: np.ndarray


class ServoRun(NamedTuple):
    """``t`` (S,), ``q``, ``v`` (S, n), ``qdd`` (S, n), ``servo_forces`` (S, j), ``multipliers``
    (S, p), ``energy`` (S,) T + U, ``servo_power`` (S,) ``mu . D qdot``, ``servo_work`` (S,) its
    integral (by the same Runge-Kutta stages as the motion), ``drift`` (S,) max |y^(l)|, l < rho, over the
    relations; ``w``, ``wdot`` (S, n) the quasi-velocities and their rates of a problem stated in them
    (else None)."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    qdd: np.ndarray
    servo_forces: np.ndarray
    multipliers: np.ndarray
    energy: np.ndarray
    servo_power: np.ndarray
    servo_work: np.ndarray
    drift: np.ndarray
    w: np.ndarray = None
    wdot: np.ndarray = None


def _sym(x, what):
    try:
        return sp.sympify(x)
    except (sp.SympifyError, TypeError) as exc:
        raise InputError(f"ServoProblem: {what} is not a SymPy expression ({exc})") from None


class ServoProblem:
    """A system with servo-constraints, from its energies (module docstring).

    Parameters
    ----------
    coordinates : list of ``dynamicsymbols`` (functions of ``sympy.Symbol("t")``)
    kinetic_energy : SymPy expression in the coordinates, their derivatives and t: a polynomial
        of degree at most 2 in the velocities (``T2 + T1 + T0``, rheonomic parts allowed) whose
        Hessian in them, the mass matrix, is positive definite at every state evaluated
    potential_energy : optional SymPy expression in the coordinates and t
    generalized_forces : optional list (one per coordinate)
    servo : list of relations ``s = 0``: finite (coordinates and t) or in the velocities
    directions : rows of D (j lists of n expressions or numbers); default: D = E, the servo
        relations realised as ideal constraints
    rolling : optional first-kind relations, linear in the velocities (``A qdot + a = 0``)
    acceleration_energy : optional Gibbs-Appell acceleration energy ``S(q, qdot, qdd, t)`` (a
        polynomial of degree at most 2 in the accelerations; terms free of them may be left
        out), used by ``accelerations(..., method="gibbs_appell")``; default: Appell's identity
        ``dS/dqdd = d/dt dT/dqdot - dT/dq`` for the coordinates
    parameters : optional {symbol: value} substituted everywhere; every other symbol must be a
        coordinate, its derivative or the time t (:mod:`.checks`)
    quasi_velocities : optional {w_k: B_k(q) qdot} (n ``dynamicsymbols`` and their expressions,
        linear in the velocities): the energies, the relations and the acceleration energy may then
        be written in ``w`` and ``wdot``, the rows of ``directions`` are over the quasi-displacements
        (``D_w delta pi = 0``, ``delta pi = B delta q``), and :meth:`accelerations` and
        :meth:`simulate` take the state ``(q, w)`` (:mod:`.quasi`); the other methods keep ``qdot``
    """

    def __init__(self, coordinates, kinetic_energy, potential_energy=0, generalized_forces=None, servo=(),
                 directions=None, rolling=None, parameters=None, name="servo problem",
                 acceleration_energy=None, quasi_velocities=None):
        t = T_SYMBOL
        self.name = name
        self.q = [c for c in coordinates]
        n = self.n = len(self.q)
        if n == 0 or len(set(self.q)) != n:
            raise InputError("ServoProblem: coordinates must be distinct dynamicsymbols")
        for c in self.q:
            if not (isinstance(c, sp.Function) or isinstance(c, sp.core.function.AppliedUndef)) or c.args != (t,):
                raise InputError(f"ServoProblem: coordinate {c} is not a function of t (use dynamicsymbols)")
        self.qd = [c.diff(t) for c in self.q]
        self.qdd = [c.diff(t, 2) for c in self.q]
        subs = {sp.sympify(k): v for k, v in (parameters or {}).items()}
        fix = (lambda e: _sym(e, "an energy, force or relation").subs(subs)) if subs else \
            (lambda e: _sym(e, "an energy, force or relation"))
        quasi = None
        if quasi_velocities is not None:
            from . import quasi as qv
            quasi = qv.parse(quasi_velocities, self.qd, t, f"ServoProblem ({name})")
            to_q, fix0 = qv.substitution(quasi[0], quasi[1], t), fix
            fix = (lambda e: qv.to_coordinates(fix0(e), to_q))    # noqa: E731  statement in w -> in qdot
            S_w = None if acceleration_energy is None else fix0(acceleration_energy)
        T = fix(kinetic_energy)
        U = fix(potential_energy)
        Q = [0] * n if generalized_forces is None else [fix(x) for x in generalized_forces]
        if len(Q) != n:
            raise InputError(f"ServoProblem: {len(Q)} generalized forces for {n} coordinates")
        eom = [T.diff(self.qd[i]).diff(t) - T.diff(self.q[i]) + U.diff(self.q[i]) - Q[i] for i in range(n)]
        self._M = sp.Matrix(n, n, lambda i, k: eom[i].diff(self.qdd[k]))
        zero_acc = {a: 0 for a in self.qdd}
        self._h = sp.Matrix([e.subs(zero_acc) for e in eom])          # h - Q
        self._T, self._U = T, U
        self._S = None if acceleration_energy is None else fix(acceleration_energy)
        self._Q = Q
        self.servo = [fix(s) for s in servo]
        for s in self.servo:
            if any(s.has(a) for a in self.qdd):
                raise InputError(f"ServoProblem: servo relation {s} contains accelerations; give it in the "
                                 f"coordinates, the velocities and t")
        self.r = len(self.servo)
        self._order = [1 if any(s.has(v) for v in self.qd) else 0 for s in self.servo]
        if directions is None:
            rows = [[(s if o == 1 else s.diff(t)).diff(v) for v in self.qd] for s, o in zip(self.servo, self._order)]
        else:
            rows = [[fix(x) for x in row] for row in directions]
            if any(len(row) != n for row in rows):
                raise InputError(f"ServoProblem: each row of directions needs {n} entries (one per coordinate)")
        D_w = None
        if quasi is not None and directions is not None:   # rows over delta pi = B delta q: D_q = D_w B
            D_w = sp.Matrix(rows) if rows else sp.zeros(0, n)
            rows = (D_w * quasi[2]).tolist() if rows else rows
        self._D = sp.Matrix(rows) if rows else sp.zeros(0, n)
        self.j = self._D.shape[0]
        self.rolling = [fix(x) for x in (rolling or [])]
        for x in self.rolling:
            if any(x.has(a) for a in self.qdd) or any(sp.diff(x, v, 2) != 0 for v in self.qd):
                raise InputError(f"ServoProblem: rolling relation {x} must be linear in the velocities")
        self._check_statement(Q)
        self._build()
        self.quasi = None
        if quasi is not None:
            from .quasi import Quasi
            self.quasi = Quasi(self, quasi[0], quasi[1], quasi[2], D_w, S_w, Q)

    def _check_statement(self, Q):
        """The statement's symbols, the kinetic energy's form, the relations' content (:mod:`.checks`)."""
        where = f"ServoProblem ({self.name})"
        items = [("kinetic energy", self._T), ("potential energy", self._U)]
        items += [(f"generalized force {i}", sp.sympify(x)) for i, x in enumerate(Q)]
        items += [(f"servo relation {k}", s) for k, s in enumerate(self.servo)]
        items += [(f"directions row {k}", x) for k, row in enumerate(self._D.tolist()) for x in row]
        items += [(f"rolling relation {k}", x) for k, x in enumerate(self.rolling)]
        checks.check_symbols(items, self.q, T_SYMBOL, where)
        checks.check_quadratic(self._T, self.qd, where)
        if self._S is not None:
            checks.check_symbols([("acceleration energy", self._S)], self.q, T_SYMBOL, where)
            checks.check_quadratic(self._S, self.qdd, where, what="acceleration energy", rates="accelerations")
        checks.check_relations(self.servo, self.rolling, self.q, self.qd, where)

    # --- symbols and compiled functions -----------------------------------------------------
    def _plain(self, expr):
        """Coordinates, velocities and accelerations replaced by plain symbols."""
        e = sp.sympify(expr).xreplace(dict(zip(self.qdd, self._a)))
        e = e.xreplace(dict(zip(self.qd, self._u)))
        return e.xreplace(dict(zip(self.q, self._qs)))

    def _fn(self, expr):
        return sp.lambdify((self._qs, self._u, T_SYMBOL), self._plain(expr), modules="numpy")

    def _build(self):
        n, t = self.n, T_SYMBOL
        self._qs = list(sp.symbols(f"q0:{n}"))
        self._u = list(sp.symbols(f"u0:{n}"))
        self._a = list(sp.symbols(f"a0:{n}"))
        self._mu = list(sp.symbols(f"mu0:{self.j}"))
        self.M_f, self.h_f, self.D_f = self._fn(self._M), self._fn(self._h), self._fn(self._D)
        self.T_f, self.U_f = self._fn(self._T), self._fn(self._U)
        zero_acc = {a: 0 for a in self.qdd}
        # index-1 form: E qdd = gamma_E (second derivative of finite relations, first of velocity ones)
        E_rows, g_rows = [], []
        for s, o in zip(self.servo, self._order):
            d = s.diff(t, 2 - o)
            E_rows.append([d.diff(a) for a in self.qdd])
            g_rows.append(-d.subs(zero_acc))
        self.E_f = self._fn(sp.Matrix(E_rows) if E_rows else sp.zeros(0, n))
        self.gE_f = self._fn(sp.Matrix(g_rows) if g_rows else sp.zeros(0, 1))
        A_rows = [[x.diff(v) for v in self.qd] for x in self.rolling]
        gA = [-x.diff(t).subs(zero_acc) for x in self.rolling]
        self.A_f = self._fn(sp.Matrix(A_rows) if A_rows else sp.zeros(0, n))
        self.gA_f = self._fn(sp.Matrix(gA) if gA else sp.zeros(0, 1))
        # Gibbs-Appell: dS/dqdd = H_S qdd + g_S, and the given forces Q - dU/dq (h - Q form: g_S - Q + dU/dq)
        if self._S is None:
            self.HS_f, self.gS_f = self.M_f, self.h_f
        else:
            grad = [self._S.diff(a) for a in self.qdd]
            H_S = sp.Matrix(n, n, lambda i, k: grad[i].diff(self.qdd[k]))
            g_S = sp.Matrix([g.subs(zero_acc) + self._U.diff(self.q[i]) - self._Q[i] for i, g in enumerate(grad)])
            self.HS_f, self.gS_f = self._fn(H_S), self._fn(g_S)
        self.a_f = self._fn(sp.Matrix([x.subs({v: 0 for v in self.qd}) for x in self.rolling])
                            if self.rolling else sp.zeros(0, 1))
        # the energy balance of the runs (:mod:`.balance`): Jacobi's energy H = qdot . dT/dqdot - T + U,
        # and the power of the given forces and of the energies' explicit time dependence, -dL/dt
        self.H_f = self._fn(sum((v * self._T.diff(v) for v in self.qd), sp.S(0)) - self._T + self._U)
        self.Pg_f = self._fn(sum((v * sp.sympify(Qi) for v, Qi in zip(self.qd, self._Q)), sp.S(0))
                             - self._plain(self._T - self._U).diff(t))
        self._degrees = None

    def _relative_degrees(self):
        """Per relation: (rho, [the mu-free expressions that vanish on consistent states, as
        functions], a function, B-row function) with ``a + B mu = 0`` the row that determines the
        servo forces; ``rho`` the number of differentiations (None where mu never appears: then
        the acceleration-level form under the free motion, and no B row).

        Each relation is differentiated, with ``qdd = M^-1 (-h + D^T mu)``, until mu appears. When
        the rows so found are dependent in mu (a singular decoupling matrix: the forces reach two
        relations only through one combination, e.g. a crane's rope tension), the dependent row
        is replaced by its combination with the others that cancels mu (Silverman's structure
        algorithm), a hidden relation which is differentiated further. Ranks are taken at a
        generic probe state."""
        if self._degrees is not None:
            return self._degrees
        n, t = self.n, T_SYMBOL
        mu = sp.Matrix(self._mu)
        rng = np.random.default_rng(12345)
        probe = {**{s_: sp.Float(rng.uniform(0.3, 1.1)) for s_ in self._qs + self._u}, t: sp.Float(0.37)}
        self._mass_matrix(*(np.array([float(probe[s_]) for s_ in syms]) for syms in (self._qs, self._u)), 0.37)
        qdd_expr = self._M.LUsolve(-self._h + self._D.T * mu)      # M is regular: checked at the probe state
        acc = dict(zip(self.qdd, qdd_expr))
        no_mu = {m: 0 for m in self._mu}
        limit = 2 * n + 2

        def value(e):             # numbers in, numbers out: xreplace folds the tree as it goes
            return complex(self._plain(e).xreplace(probe).evalf())

        def climb(y, count):
            """Differentiate the mu-free y until mu appears: (d with mu, count, [mu-free levels])."""
            levels = [y]
            while count < limit:
                d = y.diff(t).xreplace(acc)
                count += 1
                if any(abs(value(d.diff(m))) > 1e-12 for m in self._mu):
                    return d, count, levels
                y = d.subs(no_mu)
                levels.append(y)
            return None, count, levels
        rows = []                                     # [d (with mu) or None, count, levels]
        for s_, o in zip(self.servo, self._order):
            d, count, levels = climb(s_, 0)
            rows.append([d, count, levels, o])
        for _ in range(limit):
            live = [k for k, r_ in enumerate(rows) if r_[0] is not None]
            if not live or not self._mu:
                break
            Bnum = np.array([[value(rows[k][0].diff(m)).real for m in self._mu] for k in live])
            independent, dependent = [], None
            for idx, k in enumerate(live):            # the first row dependent on those before it
                trial = Bnum[[live.index(x) for x in independent] + [idx]]
                if np.linalg.matrix_rank(trial, tol=1e-9 * max(np.abs(Bnum).max(), 1e-300)) == len(independent) + 1:
                    independent.append(k)
                else:
                    dependent = k
                    break
            if dependent is None or not independent:
                break
            Bs = sp.Matrix([[rows[k][0].diff(m) for m in self._mu] for k in independent])
            cols = [c for c in range(self.j)]
            sub = np.array([[value(Bs[a, c]).real for c in cols] for a in range(len(independent))])
            chosen, keep = [], []
            for c in cols:                            # columns that make B_S square and regular
                if np.linalg.matrix_rank(sub[:, keep + [c]], tol=1e-9) == len(keep) + 1:
                    keep.append(c)
                if len(keep) == len(independent):
                    break
            chosen = keep
            bi = sp.Matrix([[rows[dependent][0].diff(self._mu[c]) for c in chosen]])
            # b_i = c^T B_S on the chosen columns, c = adj(B_S^T) b_i / det: multiplied through by
            # the determinant, so that the hidden relation has no pole where B_S degenerates
            BsT = Bs[:, chosen].T
            coef = BsT.adjugate() * bi.T
            e = BsT.det() * rows[dependent][0] - sum((coef[a] * rows[k][0] for a, k in enumerate(independent)),
                                                     sp.S(0))
            e = sp.expand(e.subs(no_mu))
            d, count, levels = climb(e, rows[dependent][1])
            rows[dependent] = [d, count, rows[dependent][2] + levels, rows[dependent][3]]
        out = []
        for (d, count, levels, o), s_ in zip(rows, self.servo):
            if d is None:             # never reached: the acceleration-level form under the free motion
                dd = s_.diff(t, 2 - o).xreplace(acc).subs(no_mu)
                out.append((None, [self._fn(s_)], self._fn(dd), None))
            else:
                coeffs = [d.diff(m) for m in self._mu]
                out.append((count, [self._fn(x) for x in levels], self._fn(d.subs(no_mu)),
                            self._fn(sp.Matrix([coeffs]))))
        self._degrees = out
        return out

    # --- one state --------------------------------------------------------------------------
    def _state(self, q, qd, t):
        where = f"ServoProblem ({self.name})"
        q = as_real(q, f"{where}: q", f"{self.n} real numbers (the coordinates)")
        qd = as_real(qd, f"{where}: qdot", f"{self.n} real numbers (the velocities)")
        if q.shape != (self.n,) or qd.shape != (self.n,):
            raise InputError(f"ServoProblem: q and qdot need {self.n} entries each, got {q.shape} and {qd.shape}")
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(qd))):
            raise InputError("ServoProblem: q, qdot and t must be finite")
        return q, qd, check_number(t, f"{where}: t")

    def _mass_matrix(self, q, qd, t):
        """M at a state, refused unless positive definite there (:func:`.checks.check_mass_matrix`)."""
        M = np.asarray(self.M_f(q, qd, t), dtype=float).reshape(self.n, self.n)
        checks.check_mass_matrix(M, q, qd, t, f"ServoProblem ({self.name})")
        return M

    def _mats(self, q, qd, t):
        M = self._mass_matrix(q, qd, t)
        h = np.asarray(self.h_f(q, qd, t), dtype=float).reshape(self.n)
        D = np.asarray(self.D_f(q, qd, t), dtype=float).reshape(self.j, self.n)
        return M, h, D

    def accelerations(self, q, qd, t=0.0, stabilization=0.0, method="lagrange"):
        """The motion at one state: a :class:`ServoResult`. ``stabilization``: the rate lambda
        of the relations' error dynamics (0: the exact derivatives).

        ``method="lagrange"``: with multipliers (:mod:`.core`, and the relative degrees for the
        relations the servo forces reach only through other coordinates); ``"gibbs_appell"``:
        Appell's equations without multipliers (:func:`.core.gibbs_appell`) from the acceleration
        energy (given, or from T by Appell's identity), for relations the servo forces reach
        directly (index 3 finite, 2 in the velocities); the servo forces and the first-kind
        reactions follow from the residual.

        Stated in quasi-velocities, the second argument is ``w`` and the result's ``wdot`` holds
        the quasi-accelerations (``qdd`` those of the coordinates); ``"gibbs_appell"`` then takes
        Appell's equations in the quasi-accelerations (:mod:`.quasi`)."""
        if method not in ("lagrange", "gibbs_appell"):
            raise InputError(f"ServoProblem ({self.name}): method must be 'lagrange' or 'gibbs_appell', got {method!r}")
        q, qd, t = self._state(q, qd, t)
        stabilization = check_number(stabilization, f"ServoProblem ({self.name}): stabilization")
        if self.quasi is not None:
            return self.quasi.accelerations(q, qd, t, stabilization, method)
        return self._accelerations_q(q, qd, t, stabilization, method)

    def velocities(self, q, w, t=0.0):
        """``qdot = G(q) w`` of a problem stated in quasi-velocities (else ``w`` itself)."""
        return np.asarray(w, dtype=float) if self.quasi is None else self.quasi.velocities(q, w, t)

    def quasi_velocities(self, q, qd, t=0.0):
        """``w = B(q) qdot`` of a problem stated in quasi-velocities (else ``qdot`` itself)."""
        return np.asarray(qd, dtype=float) if self.quasi is None else self.quasi.B(q, t) @ np.asarray(qd, dtype=float)

    def _accelerations_q(self, q, qd, t, stabilization, method):
        """:meth:`accelerations` at ``(q, qdot)``, checked inputs."""
        M, h, D = self._mats(q, qd, t)
        if method == "gibbs_appell":
            return self._gibbs_appell(q, qd, t, D, stabilization)
        if method != "lagrange":
            raise InputError(f"ServoProblem ({self.name}): method must be 'lagrange' or 'gibbs_appell', got {method!r}")
        if self.rolling:
            return self._index1(q, qd, t, M, h, D, stabilization)
        degrees = self._relative_degrees()
        missing = [k for k, d in enumerate(degrees) if d[0] is None]
        Bm = np.zeros((self.r, self.j))
        rhs = np.zeros(self.r)
        for k, (rho, lower, a_f, b_f) in enumerate(degrees):
            if rho is None:           # never reached: its acceleration-level form must hold by itself
                rhs[k] = -float(a_f(q, qd, t))
                continue
            Bm[k] = np.asarray(b_f(q, qd, t), dtype=float).reshape(self.j)
            rhs[k] = -float(a_f(q, qd, t))
            if stabilization:
                c = np.poly1d([1.0, stabilization]) ** rho
                coef = c.coeffs[::-1]                     # coef[l] multiplies y^(l)
                for lev, f in enumerate(lower):
                    rhs[k] -= coef[lev] * float(f(q, qd, t))
        status, rank, mu, res = core.status_of(Bm, rhs)
        qdd = np.linalg.solve(M, -h + D.T @ mu)
        index = tuple(None if d[0] is None else d[0] + 1 for d in degrees)   # differentiations to reach mu, + 1
        why = core.ServoSolution(qdd, mu, np.zeros(0), status, rank, self.r, self.j, res, Bm).why()
        if missing:
            why += (f"; the servo forces never act on relation(s) {missing} (no derivative up to order "
                    f"{2 * self.n + 2} contains them)")
        return ServoResult(qdd, mu, np.zeros(0), status, rank, index, why)

    def _gibbs_appell(self, q, qd, t, D, stabilization):
        """Appell's multiplier-free equations (see :meth:`accelerations`)."""
        self._direct_only()
        H = np.asarray(self.HS_f(q, qd, t), dtype=float).reshape(self.n, self.n)
        g = np.asarray(self.gS_f(q, qd, t), dtype=float).reshape(self.n)
        E, gE, A, gA = self._rows(q, qd, t, stabilization)
        sol = core.gibbs_appell(H, g, E, gE, D, A, gA)
        index = tuple(3 - o for o in self._order)
        return ServoResult(sol.qdd, sol.mu, sol.Lambda, sol.status, sol.rank, index, sol.why())

    def _direct_only(self):
        """Refuse Gibbs-Appell's form for relations the servo forces reach later than directly."""
        if not self.rolling:
            index = tuple(None if d[0] is None else d[0] + 1 for d in self._relative_degrees())
            late = [k for k, (i, o) in enumerate(zip(index, self._order)) if i != 3 - o]
            if late:
                raise InputError(f"ServoProblem ({self.name}): method='gibbs_appell' takes relations that the servo "
                                 f"forces reach directly (index 3, or 2 for a relation in the velocities); relation(s) "
                                 f"{late} have index {[index[k] for k in late]}: use method='lagrange'")

    def _rows(self, q, qd, t, stabilization):
        """(E, gamma_E, A, gamma_A): the relations at the acceleration level, the servo rows
        stabilised at the rate ``stabilization``."""
        E = np.asarray(self.E_f(q, qd, t), dtype=float).reshape(self.r, self.n)
        gE = np.asarray(self.gE_f(q, qd, t), dtype=float).reshape(self.r)
        A = np.asarray(self.A_f(q, qd, t), dtype=float).reshape(len(self.rolling), self.n)
        gA = np.asarray(self.gA_f(q, qd, t), dtype=float).reshape(len(self.rolling))
        if stabilization:
            for k, (s, o) in enumerate(zip(self.servo, self._order)):
                y = float(self._fn(s)(q, qd, t))
                if o == 0:
                    yd = float(self._fn(s.diff(T_SYMBOL))(q, qd, t))
                    gE[k] -= 2 * stabilization * yd + stabilization ** 2 * y
                else:
                    gE[k] -= stabilization * y
        return E, gE, A, gA

    def _index1(self, q, qd, t, M, h, D, stabilization):
        E, gE, A, gA = self._rows(q, qd, t, stabilization)
        sol = core.solve(M, h, E, gE, D, A, gA)
        index = tuple(3 - o for o in self._order)
        return ServoResult(sol.qdd, sol.mu, sol.Lambda, sol.status, sol.rank, index, sol.why())

    @property
    def status(self):
        """The determinacy at a generic state (random coordinates and velocities): "determined",
        "impossible" or "indeterminate"; :meth:`analyse` gives the ranks and the reason."""
        return self.analyse().status

    def analyse(self, q=None, qd=None, t=0.37):
        """The :class:`ServoResult` at a state (default: a generic random one; ``qd``: the velocities)."""
        rng = np.random.default_rng(2024)
        q = rng.uniform(0.2, 1.0, self.n) if q is None else q
        qd = rng.uniform(0.2, 1.0, self.n) if qd is None else qd
        return self._accelerations_q(*self._state(q, qd, t), 0.0, "lagrange")

    # --- energy, runs, equilibria -------------------------------------------------------------
    def energy(self, q, qd, t=0.0):
        """T + U at a state."""
        return float(self.T_f(q, qd, t)) + float(self.U_f(q, qd, t))

    def relation_errors(self, q, qd, t=0.0):
        """max |y^(l)| over the relations and their derivatives below the order where the servo
        forces act (zero on a consistent state)."""
        if self.rolling:
            return max([abs(float(self._fn(s)(q, qd, t))) for s in self.servo], default=0.0)
        out = 0.0
        for d in self._relative_degrees():
            out = max([out] + [abs(float(f(q, qd, t))) for f in d[1]])
        return out

    def simulate(self, q0, qd0, t_final, dt, stabilization=0.0, tol=1e-8, allow_unstable=False, energy_tol=0.1,
                 method="lagrange"):
        """RK4 from ``(q0, qd0)`` (which must satisfy the relations and their lower derivatives
        to ``tol``): a :class:`ServoRun`. Refuses a problem that is not determined at the start,
        and, when the servo acts through other coordinates (underactuated: a relation reached
        later than directly), one whose internal dynamics are unstable at the equilibrium nearest
        the start (:meth:`internal_dynamics`; ``allow_unstable=True`` runs it anyway).

        A run that diverges stops with :class:`~artidyn.errors.SimulationError` (``result``: the
        run so far): a state or force that is no longer finite, a problem no longer determined, or
        an energy that outgrows the work of the servo forces, the given forces and the time
        dependence by more than ``energy_tol`` of its scale (:mod:`.balance`; None: not checked).

        ``method``: that of :meth:`accelerations`. Stated in quasi-velocities, ``qd0`` is ``w0``, the
        state ``(q, w)`` is integrated with ``qdot = G(q) w``, and the run's ``w``, ``wdot`` are
        filled (``v``, ``qdd`` stay the coordinates' rates)."""
        from .run import simulate
        return simulate(self, q0, qd0, t_final, dt, stabilization, tol, allow_unstable, energy_tol, method)

    def internal_dynamics(self, q, qd, t=0.0):
        """Eigenvalues of the internal (zero) dynamics linearised at ``(q, qdot, t)`` (meaningful at
        an equilibrium of the servo-constrained motion): the closed-loop Jacobian restricted to the
        tangent space of the manifold where the relations and their lower derivatives vanish.
        Empty for a flat problem (no internal dynamics)."""
        from . import states
        return states.internal_dynamics(self, q, qd, t)

    def _underactuated(self, res):
        """True when some relation is reached by the servo forces later than directly (index above
        3 for a finite relation, 2 for a velocity one): the servo then acts through the dynamics
        of other coordinates, whose internal dynamics may diverge."""
        return self.rolling == [] and any(i is not None and i > 3 - o for i, o in zip(res.index, self._order))

    def _check_internal(self, q):
        """Refuse when the internal dynamics at the equilibrium nearest ``q`` are unstable."""
        from . import states
        return states.check_internal(self, q)

    def consistent_state(self, q, qd, t=0.0, tol=1e-12, max_iter=50):
        """``(q, qdot)`` near the given ones on which the relations and their derivatives below
        the servo forces' order vanish (Gauss-Newton, least change)."""
        from . import states
        return states.consistent_state(self, q, qd, t, tol, max_iter)

    def equilibria(self, q_guess, t=0.0, tol=1e-9, max_iter=100):
        """Appell's equilibrium conditions: ``qdot = 0``, ``qdd = 0``: the servo relations hold,
        the first-kind relations hold at rest (``a(q, t) = 0`` in ``A qdot + a = 0``), and the
        given forces are balanced by the servo forces and the first-kind reactions together,
        ``h(q, 0) - Q = D^T mu + A^T Lambda``. Solved from ``q_guess`` by Gauss-Newton with
        least-change steps on the part of ``h - Q`` outside the span of ``[D^T  A^T]`` (a smooth
        residual, so no multiplier is guessed); a rolling system at rest has a family of
        equilibria (a wheel anywhere along its path), of which the one nearest the guess is
        returned. Returns a :class:`ServoEquilibrium` ``(q, mu, Lambda)``, ``mu`` (j,) the servo
        forces, ``Lambda`` (p,) the first-kind reactions (least-norm where they are not unique)."""
        from . import states
        return states.equilibria(self, q_guess, t, tol, max_iter)
