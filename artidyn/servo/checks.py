"""The checks a servo problem's statement gets before it is solved.

A servo problem stated from energies trusts nothing it cannot see: a kinetic energy that is not
quadratic in the velocities, or not positive, gives equations of motion that are not Lagrange's
(an indefinite one lets a body fall upwards and is still reported "determined"); a symbol that is
neither a coordinate, a velocity, the time nor a declared parameter only fails at the first
numeric call, in SymPy's words; a relation in the time alone constrains nothing. Each is refused
here with an :class:`~artidyn.errors.InputError` naming the problem and the item. The step and
the duration of the runs (:func:`check_times`) are shared by the three servo classes.
"""
import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef

from ..errors import InputError, check_number


def _velocity_name(v):
    """``xdot`` for ``Derivative(x(t), t)``, ``xddot`` for the second derivative: how a message
    names a velocity or an acceleration."""
    return f"{v.expr.func.__name__}{'d' * (v.derivative_count - 1)}dot"


def check_symbols(expressions, coordinates, t, where):
    """Every free symbol of each ``(what, expression)`` is the time ``t``, and every function of
    t in it is a coordinate (its derivatives included): anything else is refused, naming the
    symbol and where it appears, with the way to declare it (``parameters={k: value}``)."""
    known = set(coordinates)
    for what, e in expressions:
        stray = sorted((str(s) for s in e.free_symbols - {t}), key=str)
        stray += sorted(str(f) for f in e.atoms(AppliedUndef) - known)
        if stray:
            raise InputError(f"{where}: the {what} contains {', '.join(stray)}, which is not a coordinate, a velocity, "
                             f"the time t or a declared parameter; give its value in parameters={{{stray[0]}: value}} "
                             f"or list it among the coordinates")


def check_quadratic(T, velocities, where, what="kinetic energy", rates="velocities"):
    """T must be a polynomial of degree at most 2 in the velocities, ``T = T2 + T1 + T0`` (the
    linear and constant parts of rheonomic coordinates are allowed): every third derivative in
    the velocities vanishes, i.e. the Hessian ``M = d2T/dqdot2`` does not depend on them.
    Otherwise Lagrange's equations are not linear in the accelerations and ``M`` below is not the
    system's mass matrix. The same test holds Gibbs-Appell's acceleration energy ``S`` to degree 2
    in the accelerations (``what="acceleration energy"``, ``rates="accelerations"``)."""
    n = len(velocities)
    for i in range(n):
        Ti = T.diff(velocities[i])
        for j in range(i, n):
            Tij = Ti.diff(velocities[j])
            for k in range(j, n):
                d = Tij.diff(velocities[k])
                if d != 0 and sp.simplify(d) != 0:
                    names = ", ".join(_velocity_name(velocities[x]) for x in (i, j, k))
                    raise InputError(f"{where}: the {what} must be quadratic in the {rates} (a polynomial "
                                     f"of degree at most 2 in them), but its third derivative in "
                                     f"({names}) is {d}, not 0")


def check_relations(servo, rolling, coordinates, velocities, where):
    """A servo relation must involve a coordinate or a velocity, a rolling relation a velocity:
    a relation in the time alone constrains nothing (it would be reported "indeterminate" or
    "impossible", blaming the servo forces)."""
    for k, s in enumerate(servo):
        if not any(s.has(c) for c in coordinates):
            raise InputError(f"{where}: servo relation {k} ({s} = 0) contains no coordinate and no velocity: it "
                             f"constrains nothing (a relation must involve the motion, e.g. x - sin(t))")
    for k, x in enumerate(rolling):
        if not any(x.has(v) for v in velocities):
            raise InputError(f"{where}: rolling relation {k} ({x} = 0) contains no velocity: a first-kind relation "
                             f"is A qdot + a = 0 with A not zero")


def check_mass_matrix(M, q, qd, t, where):
    """``M`` (the Hessian of T in the velocities, evaluated at the state) must be positive
    definite: T > 0 for every nonzero velocity. A Cholesky factorisation decides; the refusal
    names the state and the smallest eigenvalue."""
    try:
        np.linalg.cholesky(M)
        return
    except np.linalg.LinAlgError:
        pass
    w = np.linalg.eigvalsh(0.5 * (M + M.T)) if np.all(np.isfinite(M)) else np.array([np.nan])
    raise InputError(f"{where}: the kinetic energy is not positive definite at q = {np.round(q, 6).tolist()}, "
                     f"qdot = {np.round(qd, 6).tolist()}, t = {t:.6g}: the mass matrix d2T/dqdot2 has smallest "
                     f"eigenvalue {w[0]:.6g} (it must be > 0: every motion has a positive kinetic energy)")


def check_times(t_final, dt, where):
    """``dt > 0`` and ``t_final >= 0``, both finite: the step and the duration of a run."""
    dt = check_number(dt, f"{where}: dt", positive=True)
    t_final = check_number(t_final, f"{where}: t_final", minimum=0.0)
    return t_final, dt
