"""The symbolic dynamic model of a closed chain, reduced to its independent coordinates.

Khalil & Dombre, "Modeling, Identification and Control of Robots", ch. 10 (closed-loop
structures): the chain is the model's spanning tree plus cut constraints (Point, Weld) whose
velocity rows ``J qd = 0`` split the joints into independent ``a`` and dependent ``d`` ones::

    qd_d  = W qd_a,                 W = - J_d^-1 J_a
    qdd_d = W qdd_a - J_d^-1 (Jdot qd)
    tau_a = G^T tau_tree(q, qd, qdd) = tau_tree,a + W^T tau_tree,d      (G = [1; W])

``tau_tree`` is the customised Newton-Euler of the tree (:mod:`.newton_euler`) driven by the full
``qd``, ``qdd``; ``J_d^-1`` is a Gaussian elimination emitted as intermediate variables (its pivot
order fixed once at a sample assembled configuration); ``Jdot qd`` comes from the derivatives of
the emitted ``J``. The loop's geometric closure (the dependent q) is not solved symbolically: the
model takes the whole assembled ``q`` (e.g. from :func:`artidyn.assemble`) with ``qda`` and ``qdda``,
the independent velocities and accelerations.
"""
import numpy as np

from ..errors import InputError
from .expr import index_tag
from .models import _context, _require_flat, derivative, jacobian_entries
from .newton_euler import newton_euler
from .program import SymbolicModel


def _constraint_rows(ctx, constraints):
    """Symbolic rows of J (lists of nv expressions) of Point / Weld constraints."""
    from ..constraints.models import Point, Weld
    rows = []
    for c in constraints:
        if not isinstance(c, (Point, Weld)):
            raise InputError(f"symbolic.closed_loop: constraint {c!r} is a {type(c).__name__}; the symbolic "
                             f"closed-loop model takes Point and Weld loop closures")
        Ja, _ = jacobian_entries(ctx, c.frame_a)
        if c.frame_b is not None:
            Jb, _ = jacobian_entries(ctx, c.frame_b)
            Ja = [[a - b for a, b in zip(ra, rb)] for ra, rb in zip(Ja, Jb)]
        rows += Ja[3:] if isinstance(c, Point) else Ja
    return rows


def _pick(J, independent, nv, tol=1e-9):
    """Independent rows of the numeric J, and the dependent dofs (those not in ``independent``,
    chosen from the last dof backwards when ``independent`` is None) with J_d invertible."""
    rows = []
    for r in range(J.shape[0]):
        if np.linalg.matrix_rank(J[rows + [r]], tol) > len(rows):
            rows.append(r)
    nr = len(rows)
    Jr = J[rows]
    if independent is not None:
        dep = [k for k in range(nv) if k not in independent]
        if len(dep) != nr or np.linalg.matrix_rank(Jr[:, dep], tol) < nr:
            raise InputError(f"symbolic.closed_loop: the loop closures have {nr} independent rows; with independent "
                             f"dofs {sorted(independent)} the dependent ones {dep} do not make an invertible J_d "
                             f"(choose {nv - nr} independent dofs)")
        return rows, dep
    dep = []
    for k in range(nv - 1, -1, -1):
        if np.linalg.matrix_rank(Jr[:, dep + [k]], tol) > len(dep):
            dep.append(k)
        if len(dep) == nr:
            break
    return rows, sorted(dep)


def _solve(E, A, B, An, name):
    """X = A^-1 B by Gaussian elimination (pivots chosen on the numbers An), emitted."""
    n, m = len(A), len(B[0])
    A = [list(r) for r in A]
    B = [list(r) for r in B]
    An = np.array(An, dtype=float)
    inv = [None] * n
    for k in range(n):
        p = k + int(np.argmax(np.abs(An[k:, k])))
        A[k], A[p], B[k], B[p] = A[p], A[k], B[p], B[k]
        An[[k, p]] = An[[p, k]]
        inv[k] = E.var(1 / A[k][k], f"{name}PIV{index_tag(k + 1)}")
        for i in range(k + 1, n):
            if A[i][k] == 0:
                continue
            f = E.var(A[i][k] * inv[k], f"{name}F{index_tag(i + 1, k + 1)}")
            An[i, k + 1:] -= An[i, k] / An[k, k] * An[k, k + 1:]
            for j in range(k + 1, n):
                A[i][j] = E.var(A[i][j] - f * A[k][j], f"{name}A{index_tag(i + 1, j + 1)}")
            for c in range(m):
                B[i][c] = E.var(B[i][c] - f * B[k][c], f"{name}B{index_tag(i + 1, c + 1)}")
    X = [[0] * m for _ in range(n)]
    for k in range(n - 1, -1, -1):
        for c in range(m):
            X[k][c] = E.var((B[k][c] - sum(A[k][j] * X[j][c] for j in range(k + 1, n))) * inv[k],
                            f"{name}X{index_tag(k + 1, c + 1)}")
    return X


def closed_loop(model, constraints=None, independent=None, parameters=None, q_sample=None, friction=True):
    """Reduced inverse dynamics ``tau_a(q, qda, qdda)`` of a closed chain (module docstring).

    Parameters
    ----------
    model : Model (revolute / prismatic / cylindrical joints)
    constraints : Point / Weld loop closures; default: those the model declares
        (:func:`artidyn.constraints.from_model`)
    independent : the independent dofs (v indices or joint names); default: chosen so that J_d is
        invertible at ``q_sample`` (dependent dofs taken from the end of the chain)
    q_sample : a configuration near the loop (default: the neutral one), assembled once to choose
        the rows of J, the dependent dofs and the pivots

    Returns
    -------
    SymbolicModel with inputs ``q`` (nq, assembled), ``qda``, ``qdda`` (the independent entries)
    and outputs ``tau_a``; ``sm.independent``, ``sm.dependent``: the dof indices.
    """
    from ..configuration import neutral
    from ..constraints import assemble, constraint_terms, from_model
    _require_flat(model, "closed_loop")
    constraints = list(from_model(model) if constraints is None else constraints)
    if not constraints:
        raise InputError(f"symbolic.closed_loop: model '{model.name}' declares no loop closure; give constraints=")
    if independent is not None:
        independent = [model.v_slice(d).start if isinstance(d, str) else int(d) for d in independent]
    qs = assemble(model, neutral(model) if q_sample is None else q_sample, constraints).q
    Jn = constraint_terms(model, qs, np.zeros(model.nv), constraints)[1]
    rows, dep = _pick(np.asarray(Jn), independent, model.nv)
    ind = [k for k in range(model.nv) if k not in dep]
    ctx = _context(model, parameters)
    E = ctx.E
    J = [_constraint_rows(ctx, constraints)[r] for r in rows]
    J = [[E.var(e, f"JL{index_tag(r + 1, c + 1)}") for c, e in enumerate(row)] for r, row in enumerate(J)]
    # Jdot qd, with qd the full (symbolic) velocity: sum_k dJ/dq_k qd_k qd
    qda, qdda = [ctx.qd[k] for k in ind], [ctx.qdd[k] for k in ind]
    flat = [J[r][c] for r in range(len(rows)) for c in range(model.nv)]
    n = model.nv
    Ja = [[J[r][c] for c in ind] for r in range(len(rows))]
    Jd = [[J[r][c] for c in dep] for r in range(len(rows))]
    Jdn = np.asarray(Jn)[rows][:, dep]
    W = _solve(E, Jd, [[-x for x in row] for row in Ja], Jdn, "W")            # W = -J_d^-1 J_a
    qd = list(ctx.qd)
    for i, k in enumerate(dep):
        qd[k] = E.var(sum(W[i][j] * qda[j] for j in range(len(ind))), f"QPD{index_tag(k + 1)}")
    dJ = [derivative(ctx, flat, k) for k in range(n)]
    bias = [E.var(sum(sum(dJ[k][r * n + c] * qd[k] for k in range(n)) * qd[c] for c in range(n)),
                  f"JPQP{index_tag(r + 1)}") for r in range(len(rows))]
    e = _solve(E, Jd, [[-b] for b in bias], Jdn, "K")                          # -J_d^-1 Jdot qd
    qdd = list(ctx.qdd)
    for i, k in enumerate(dep):
        qdd[k] = E.var(sum(W[i][j] * qdda[j] for j in range(len(ind))) + e[i][0], f"QDPD{index_tag(k + 1)}")
    ctx.qd, ctx.qdd = qd, qdd
    tau = newton_euler(ctx, friction=friction)
    out = [tau[a] + sum(W[i][j] * tau[k] for i, k in enumerate(dep)) for j, a in enumerate(ind)]
    ctx.qda, ctx.qdda = qda, qdda
    out = [E.var(x, f"GAMA{index_tag(a + 1)}") for x, a in zip(out, ind)]
    sm = SymbolicModel(ctx, "closed_loop", out, (len(ind),), ("q", "qda", "qdda"))
    sm.independent, sm.dependent = ind, dep
    return sm

