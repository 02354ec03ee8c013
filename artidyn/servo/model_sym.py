"""A model's servo problem stated from its own symbolic energies, for relations of any index.

A servo relation that the servo forces reach only through other coordinates (an underactuated
system: a load hanging from a trolley, masses behind a spring) must be differentiated beyond the
accelerations, up to the order where the forces appear (its relative degree; the differentiation
index is one more). On a :class:`~artidyn.Model` with revolute, prismatic, cylindrical or helical
joints the kinetic and potential energies are exact expressions of the coordinates: the mass matrix
by the composite bodies and the potential of gravity and the joint springs, as the customised
symbolic model writes them (Khalil & Dombre, "Modeling, Identification and Control of Robots",
ch. 9; :mod:`artidyn.symbolic`). From them :class:`~artidyn.servo.ServoProblem` differentiates the
relations symbolically (Isidori's normal form, Silverman's structure algorithm where the decoupling
matrix is singular); the equations are Lagrange's with the servo forces, ``M qdd + h = D^T mu``,
the differential-algebraic system of Blajer & Kołodziejczyk ("A geometric approach to solving
problems of control constraints", 2004) solved here by index reduction.

:func:`coordinates` gives the model's coordinates as ``dynamicsymbols``-like functions of t (one
per dof, named after the joints) in which the relations, the directions and the first-kind
relations are written.
"""
import numpy as np
import sympy as sp

from ..errors import InputError
from ..joints import FLAT
from .problem import T_SYMBOL


def coordinates(model):
    """The model's coordinates as functions of ``t`` (``sympy.Symbol("t")``), one per dof, named
    after their joints (``<joint>_<k>`` for a joint of several dofs)."""
    bad = [model.joint_names[i] for i in range(1, model.nb + 1) if model.joint_type[i] not in FLAT]
    if bad:
        raise InputError(f"servo.coordinates: model '{model.name}' has spherical or free joints {bad}; relations "
                         f"written in coordinates need revolute, prismatic, cylindrical or helical joints")
    out = []
    for i in range(1, model.nb + 1):
        k = int(model.nv_joint[i])
        name = model.joint_names[i]
        out += [sp.Function(name if k == 1 else f"{name}_{j + 1}")(T_SYMBOL) for j in range(k)]
    return out


def energies(model):
    """``(q, T, U, Q)``: the coordinates, ``T = 1/2 qdot^T M(q) qdot``, ``U`` (gravity and joint
    springs) and the viscous joint damping ``Q = -FV qdot``, exact in the coordinates. A model with
    Coulomb friction is refused (not smooth: its sign switches where a joint stops)."""
    from ..symbolic.context import Context
    from ..symbolic.models import _mass_matrix_entries, _potential

    q = coordinates(model)
    if np.any(np.asarray(model.coulomb) != 0):
        dof = int(np.flatnonzero(np.asarray(model.coulomb))[0])
        raise InputError(f"ModelServo: model '{model.name}' has Coulomb friction (dof {dof}); the relations of higher "
                         f"index are differentiated, which a friction that switches sign does not allow")
    ctx = Context(model)
    M = _mass_matrix_entries(ctx)
    V = _potential(ctx)
    values = {}
    for s, e in ctx.E.assignments:
        values[s] = e.xreplace(values)
    to_q = dict(zip(ctx.q, q))
    n = model.nv
    qd = [c.diff(T_SYMBOL) for c in q]
    Mx = [[sp.sympify(M[r][c]).xreplace(values).xreplace(to_q) for c in range(n)] for r in range(n)]
    T = sp.Rational(1, 2) * sum((Mx[r][c] * qd[r] * qd[c] for r in range(n) for c in range(n)), sp.S(0))
    U = sp.sympify(V).xreplace(values).xreplace(to_q)
    Q = [-float(model.damping[k]) * qd[k] for k in range(n)]
    return q, T, U, Q


def problem(model, servo, directions, rolling, name):
    """The :class:`~artidyn.servo.ServoProblem` of the model with the relations ``servo`` (SymPy
    expressions in :func:`coordinates`), ``directions`` (rows: joint names or nv entries) and
    ``rolling`` (first-kind relations linear in the velocities)."""
    from .problem import ServoProblem

    q, T, U, Q = energies(model)
    rows = []
    for k, row in enumerate(directions):
        if isinstance(row, str):
            s = model.v_slice(row)
            rows.extend(np.eye(model.nv)[s].tolist())
        elif len(row) != model.nv:
            raise InputError(f"ModelServo: directions row {k} has {len(row)} entries, the model {model.nv} dofs")
        else:
            rows.append(list(row))
    return ServoProblem(q, T, U, Q, servo=list(servo), directions=rows, rolling=list(rolling), name=name)
