"""Servo problems in quasi-velocities (Appell, "Traité de mécanique rationnelle", t. II: the
equations of motion in the quasi-velocities ``w = B(q) qdot``, whose rates need not be the
derivatives of any coordinates, e.g. a body's angular velocity).

The statement (:class:`~artidyn.servo.ServoProblem` with ``quasi_velocities={w_k: B_k(q) qdot}``)
may write the servo relations, the first-kind relations, the kinetic and acceleration energies in
``w`` and ``wdot``, and the j directions over the quasi-displacements ``delta pi = B delta q``:
the servo forces do no work on the displacements with ``D_w delta pi = 0``, i.e. ``D_q = D_w B``.
With ``qdot = G w`` (``G = B^-1``) and ``qdd = G (wdot - Bdot qdot)`` the equations of :mod:`.core`
become, in the quasi-accelerations::

    M_w wdot + h_w = D_w^T mu + A_w^T Lambda,   E_w wdot = gamma_E + E G Bdot qdot,   A_w = A G, ...

``M_w = G^T M G``, ``h_w = G^T (h - Q - M G Bdot qdot)``: the servo forces ``mu`` and the first-kind
reactions are the same numbers as in the coordinates. Appell's own route
(``method="gibbs_appell"``) takes the acceleration energy as stated, ``S(q, w, wdot, t)``: its
Hessian in ``wdot`` and its gradient at ``wdot = 0`` against the given forces on the
quasi-displacements ``Pi = G^T (Q - dU/dq)``, with no multiplier (:func:`.core.gibbs_appell`); when
S is not given it follows from T by Appell's identity, ``dS/dwdot = G^T dS/dqdd``.
"""
import numpy as np
import sympy as sp

from ..errors import InputError


def parse(quasi_velocities, qd, t, where):
    """``(w symbols, their expressions, B (sympy n x n))`` of the statement ``{w_k: B_k(q) qdot}``:
    n distinct ``dynamicsymbols``, each expression linear and homogeneous in the velocities with
    coefficients free of them."""
    items = list(quasi_velocities.items()) if hasattr(quasi_velocities, "items") else list(quasi_velocities)
    n = len(qd)
    if len(items) != n:
        raise InputError(f"{where}: quasi_velocities needs {n} entries {{w_k: expression in the velocities}} (one per "
                         f"coordinate), got {len(items)}")
    ws, exprs = [], []
    for w, e in items:
        if not isinstance(w, sp.core.function.AppliedUndef) or w.args != (t,):
            raise InputError(f"{where}: quasi-velocity {w} is not a function of t (use dynamicsymbols)")
        try:
            e = sp.sympify(e)
        except (sp.SympifyError, TypeError) as exc:
            raise InputError(f"{where}: the expression of quasi-velocity {w} is not a SymPy expression "
                             f"({exc})") from None
        ws.append(w)
        exprs.append(e)
    if len(set(ws)) != n:
        raise InputError(f"{where}: the quasi-velocities must be distinct symbols")
    B = sp.Matrix(n, n, lambda k, i: exprs[k].diff(qd[i]))
    for k, e in enumerate(exprs):
        rest = sp.simplify(e - sum((B[k, i] * qd[i] for i in range(n)), sp.S(0)))
        if rest != 0 or any(B[k, i].has(v) for i in range(n) for v in qd):
            raise InputError(f"{where}: quasi-velocity {ws[k]} = {e} is not of the form B(q) qdot (linear and "
                             f"homogeneous in the velocities, coefficients free of them)")
    return ws, exprs, B


def substitution(ws, exprs, t):
    """``{w: B qdot, wdot: d/dt (B qdot)}``: a statement in quasi-velocities back in the coordinates."""
    out = {}
    for w, e in zip(ws, exprs):
        out[w.diff(t)] = e.diff(t)
    for w, e in zip(ws, exprs):
        out[w] = e
    return out


def to_coordinates(e, to_q):
    """``e`` with ``wdot`` then ``w`` replaced by their expressions in the coordinates."""
    rates = {k: v for k, v in to_q.items() if isinstance(k, sp.Derivative)}
    return e.xreplace(rates).xreplace({k: v for k, v in to_q.items() if k not in rates})


class Quasi:
    """The quasi-velocity side of a :class:`~artidyn.servo.ServoProblem` (module docstring).

    ``problem``: the problem in the coordinates (built from the substituted statement); ``D_w``:
    the directions over the quasi-displacements (sympy, entries in q, qdot, t; None: the default
    D = E); ``S_w``: the
    acceleration energy as stated (in q, w, wdot, t; None: from T)."""

    def __init__(self, problem, ws, exprs, B, D_w, S_w, Q_given):
        t = sp.Symbol("t")
        p = self.problem = problem
        self.ws, self.n = ws, problem.n
        n = self.n
        self._wsym = list(sp.symbols(f"w0:{n}"))
        self._wdsym = list(sp.symbols(f"wd0:{n}"))
        self.B_f = p._fn(B)
        self.Bdot_qd_f = p._fn(sp.Matrix([e.diff(t) for e in exprs]).subs({a: 0 for a in p.qdd}))
        self.Dw_f = None if D_w is None else p._fn(D_w)      # None: the default D = E, over delta q
        self.Pi_f = p._fn(sp.Matrix([sp.sympify(Qi) - p._U.diff(c) for Qi, c in zip(Q_given, p.q)]))
        self.S_given = S_w is not None
        if S_w is not None:
            S = S_w.xreplace({w.diff(t): s for w, s in zip(ws, self._wdsym)}).xreplace(dict(zip(ws, self._wsym)))
            grad = [S.diff(a) for a in self._wdsym]
            H = sp.Matrix(n, n, lambda i, k: grad[i].diff(self._wdsym[k]))
            zero = {a: 0 for a in self._wdsym}
            g = sp.Matrix([x.subs(zero) for x in grad])
            args = (p._qs, p._u, self._wsym, t)
            self.HS_f = sp.lambdify(args, p._plain(H), modules="numpy")
            self.gS_f = sp.lambdify(args, p._plain(g), modules="numpy")

    def B(self, q, t=0.0):
        return np.asarray(self.B_f(q, np.zeros(self.n), t), dtype=float).reshape(self.n, self.n)

    def velocities(self, q, w, t=0.0):
        """``qdot = G(q) w``; refused where B is singular (the quasi-velocities are not independent there)."""
        B = self.B(q, t)
        if not np.all(np.isfinite(B)) or np.linalg.cond(B) > 1e12:
            raise InputError(f"ServoProblem ({self.problem.name}): B(q) of the quasi-velocities is singular at q = "
                             f"{np.round(q, 6).tolist()} (they are not independent there)")
        return np.linalg.solve(B, np.asarray(w, dtype=float))

    def accelerations(self, q, w, t, stabilization, method):
        """The :class:`~artidyn.servo.problem.ServoResult` at ``(q, w, t)`` with ``wdot`` filled."""
        from . import core
        p, n = self.problem, self.n
        qd = self.velocities(q, w, t)
        B = self.B(q, t)
        bq = np.asarray(self.Bdot_qd_f(q, qd, t), dtype=float).reshape(n)
        if method != "gibbs_appell":
            res = p._accelerations_q(q, qd, t, stabilization, method)
            return res._replace(wdot=B @ res.qdd + bq)
        p._direct_only()
        G = np.linalg.inv(B)
        D_w = p._mats(q, qd, t)[2] @ G if self.Dw_f is None else \
            np.asarray(self.Dw_f(q, qd, t), dtype=float).reshape(p.j, n)
        E, gE, A, gA = p._rows(q, qd, t, stabilization)
        Gb = G @ bq
        E_w, A_w = E @ G, A @ G
        gE_w, gA_w = gE + E @ Gb, gA + A @ Gb
        if self.S_given:
            H = np.asarray(self.HS_f(q, qd, w, t), dtype=float).reshape(n, n)
            g = np.asarray(self.gS_f(q, qd, w, t), dtype=float).reshape(n)
            g = g - G.T @ np.asarray(self.Pi_f(q, qd, t), dtype=float).reshape(n)
        else:                             # Appell's identity: dS/dwdot = G^T (M qdd + h), qdd = G (wdot - Bdot qdot)
            M, h, _ = p._mats(q, qd, t)
            H, g = G.T @ M @ G, G.T @ (h - M @ Gb)
        sol = core.gibbs_appell(H, g, E_w, gE_w, D_w, A_w, gA_w)
        index = tuple(3 - o for o in p._order)
        from .problem import ServoResult
        wdot = sol.qdd
        return ServoResult(G @ (wdot - bq), sol.mu, sol.Lambda, sol.status, sol.rank, index, sol.why(), wdot)
