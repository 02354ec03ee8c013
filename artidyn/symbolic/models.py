"""The symbolic models of a Model: geometric, kinematic and dynamic (Khalil & Dombre, ch. 3-9).

* :func:`placement`: the direct geometric model ``T_0f(q)``, products of the joint transforms
  with consecutive parallel revolute axes merged (``C23 = cos(q2 + q3)``: the DH / MDH route).
* :func:`jacobian`: columns ``[R_0j s_w; R_0j s_v + (R_0j s_w) x (p_f - p_0j)]`` (world) or in
  the frame's axes (local).
* :func:`inverse_dynamics`, :func:`gravity`, :func:`coriolis` (``product=True``: ``C(q, qd) qd``):
  the customised Newton-Euler of :mod:`.newton_euler`.
* :func:`mass_matrix`: the composite rigid body algorithm in Khalil's 3-vector form (book eq. 9.101):
  ``JC_i``, ``MSC_i``, ``MC_i`` carried to the parent by ``J' = R J R^T - [P][R MS] - [R MS][P] - M [P][P]``.
* :func:`coriolis` (matrix) and :func:`lagrange`: Christoffel symbols and ``dV/dq`` by forward
  differentiation of the emitted program (each derivative an intermediate variable too).

Every function returns a :class:`~artidyn.symbolic.program.SymbolicModel`; ``parameters`` lists the
names left symbolic (see :mod:`artidyn.symbolic.context`).
"""
import sympy as sp

from ..errors import InputError
from ..joints import FLAT
from .context import Context, cross, is_identity, matvec
from .expr import index_tag
from .newton_euler import newton_euler, to_parent
from .program import SymbolicModel


def _context(model, parameters):
    from ..model import Model
    if not isinstance(model, Model):
        raise InputError(f"symbolic: expected an artidyn Model, got {type(model).__name__}")
    return Context(model, parameters)


def _outputs(ctx, exprs, name, idx):
    return [ctx.E.var(e, f"{name}{index_tag(*k)}") for e, k in zip(exprs, idx)]


def _require_flat(model, what):
    bad = [model.joint_names[i] for i in range(1, model.nb + 1) if model.joint_type[i] not in FLAT]
    if bad:
        raise InputError(f"symbolic.{what}: model '{model.name}' has spherical/free joints {bad}; their velocities "
                         f"are quasi-velocities and {what} (Christoffel symbols, dV/dq) is defined here for "
                         f"revolute, prismatic and cylindrical joints only")


# --- dynamics by Newton-Euler ---------------------------------------------------------------------


def inverse_dynamics(model, parameters=None, friction=True):
    """tau = ID(q, qd, qdd): the customised Newton-Euler (``GAM1 .. GAMn``), equal to
    ``artidyn.rnea(model, q, qd, qdd, friction=friction)``."""
    ctx = _context(model, parameters)
    tau = newton_euler(ctx, friction=friction)
    return SymbolicModel(ctx, "inverse_dynamics", _outputs(ctx, tau, "GAM", [(k + 1,) for k in range(model.nv)]),
                         (model.nv,), ("q", "qd", "qdd"))


def gravity(model, parameters=None):
    """g(q) (with joint springs), = ``artidyn.gravity`` / ``rnea(q, 0, 0)`` without friction."""
    ctx = _context(model, parameters)
    g = newton_euler(ctx, velocity=False, acceleration=False, friction=False)
    return SymbolicModel(ctx, "gravity", _outputs(ctx, g, "Q", [(k + 1,) for k in range(model.nv)]),
                         (model.nv,), ("q",))


def _coriolis_product(ctx):
    return newton_euler(ctx, acceleration=False, gravity=False, friction=False, springs=False)


# --- geometry ---------------------------------------------------------------------------------------


def _matmul(E, A, B, name, tag):
    return [E.vec([sum(A[r][k] * B[k][c] for k in range(3)) for c in range(3)], f"{name}{r + 1}", tag)
            for r in range(3)]


def world_placements(ctx, bodies=None):
    """R_0i (3x3) and p_0i (3) of the bodies on the way to ``bodies`` (default all), memoised.

    Consecutive revolute joints about the same axis with an identity placement rotation form a
    group: ``R_0j = R_base Rot(a, q_i + ... + q_j)`` with S/C of the sum (``S23``, ``C23``).
    """
    m, E = ctx.model, ctx.E
    memo = ctx._memo.setdefault("world", {0: ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0], None)})
    need = set()
    for b in (range(1, m.nb + 1) if bodies is None else bodies):
        need |= set(m.support(b))
    for i in sorted(need):
        if i in memo:
            continue
        p, tag = int(m.parent[i]), index_tag(i)
        Rp, pp, group = memo[p]
        t, a, qs, _, _ = ctx.joint(i)
        P = ctx.pos(i)
        p0 = E.vec([pp[r] + sum(Rp[r][c] * P[c] for c in range(3)) for r in range(3)], "PO", tag)
        RP = ctx.RP(i)
        if t == 0 and group is not None and group[1] == a and is_identity(RP):   # parallel revolute axes
            base, ks = group[0], group[2] + [qs[0]]
            R0 = _matmul(E, base, ctx.rot_axis(a, ks, "".join(str(k + 1) for k in ks)), "RO", tag)
            memo[i] = (R0, p0, (base, a, ks))
            continue
        base = _matmul(E, Rp, RP, "RB", tag) if not is_identity(RP) else Rp
        RJ = ctx.RJ(i)
        R0 = base if RJ is None else _matmul(E, base, RJ, "RO", tag)
        memo[i] = (R0, p0, (base, a, [qs[0]]) if t == 0 else None)
    return {i: memo[i][:2] for i in memo}


def _frame_world(ctx, frame):
    """(R_0f, p_0f, body) of a frame (its constant placement in its body applied)."""
    f = ctx.model.frame(frame)
    R0, p0 = world_placements(ctx, [f.body])[f.body]
    from .expr import snap
    Pf = [[snap(f.placement[r][c]) for c in range(4)] for r in range(3)]
    E = ctx.E
    tag = ""
    pf = E.vec([p0[r] + sum(R0[r][c] * Pf[c][3] for c in range(3)) for r in range(3)], "PF", tag)
    Rf = R0 if is_identity([row[:3] for row in Pf]) else _matmul(E, R0, [row[:3] for row in Pf], "RF", tag)
    return Rf, pf, f


def placement(model, frame, parameters=None):
    """T_0f(q): the 4x4 placement of a frame (or body) in the world (outputs ``T11 .. T34``)."""
    ctx = _context(model, parameters)
    Rf, pf, f = _frame_world(ctx, frame)
    T = [Rf[r][:] + [pf[r]] for r in range(3)] + [[0, 0, 0, 1]]
    flat = [T[r][c] for r in range(4) for c in range(4)]
    idx = [(r + 1, c + 1) for r in range(4) for c in range(4)]
    return SymbolicModel(ctx, "placement", _outputs(ctx, flat, "T", idx), (4, 4), ("q",), frame=f.name)


def jacobian_entries(ctx, frame, expressed="world"):
    """J of a frame as 6 x nv lists of expressions (rows [angular; linear]) in the context ``ctx``."""
    m, E = ctx.model, ctx.E
    Rf, pf, f = _frame_world(ctx, frame)
    W = world_placements(ctx, [f.body])
    cols = [[0] * 6 for _ in range(m.nv)]
    for j in m.support(f.body):
        R0, p0 = W[j]
        tag = index_tag(j)
        L = E.vec([pf[r] - p0[r] for r in range(3)], "L", tag)
        ang, lin = ctx.subspace(j)
        for c in range(len(ang)):
            dof = int(m.idx_v[j]) + c
            z = E.vec(matvec(R0, ang[c]), f"Z{c + 1}_", tag) if any(x != 0 for x in ang[c]) else [0, 0, 0]
            v = [a + b for a, b in zip(matvec(R0, lin[c]), cross(z, L))]
            if expressed == "local":
                z, v = [sum(Rf[k][r] * z[k] for k in range(3)) for r in range(3)], \
                       [sum(Rf[k][r] * v[k] for k in range(3)) for r in range(3)]
            cols[dof] = list(z) + list(v)
    return [[cols[c][r] for c in range(m.nv)] for r in range(6)], f


def jacobian(model, frame, expressed="world", parameters=None):
    """J(q) (6 x nv, rows [angular; linear]) of a frame, as ``artidyn.jacobian(model, q, frame, expressed)``."""
    if expressed not in ("world", "local"):
        raise InputError(f"expressed must be 'world' or 'local', got {expressed!r}")
    ctx = _context(model, parameters)
    m = ctx.model
    J, f = jacobian_entries(ctx, frame, expressed)
    flat = [J[r][c] for r in range(6) for c in range(m.nv)]
    idx = [(r + 1, c + 1) for r in range(6) for c in range(m.nv)]
    return SymbolicModel(ctx, "jacobian", _outputs(ctx, flat, "J", idx), (6, m.nv), ("q",),
                         label=expressed, frame=f.name)


# --- mass matrix by the composite rigid body algorithm ---------------------------------------------


def _composite(ctx):
    """JC, MSC, MC of each composite body i (body i and its subtree), in i's axes about O_i."""
    m, E = ctx.model, ctx.E
    acc = {}
    for i in range(1, m.nb + 1):
        J, MS, M = ctx.inertia(i)
        acc[i] = [[J[r][c] for c in range(3)] for r in range(3)], list(MS), M
    out = {}
    for i in range(m.nb, 0, -1):
        tag = index_tag(i)
        J, MS, M = acc[i]
        J = [[E.var(J[r][c], f"JC{min(r, c) + 1}{max(r, c) + 1}{tag}") for c in range(3)] for r in range(3)]
        MS = E.vec(MS, "MSC", tag)
        M = E.var(M, f"MC{tag}")
        out[i] = J, MS, M
        p = int(m.parent[i])
        if p == 0:
            continue
        MSr = to_parent(ctx, i, MS, "MSR")
        RJc = [to_parent(ctx, i, [J[r][c] for r in range(3)], f"JR{c + 1}_") for c in range(3)]   # R J, by column
        Jr = [to_parent(ctx, i, [RJc[c][r] for c in range(3)], f"JRR{r + 1}_") for r in range(3)]  # R (R J)^T
        P = ctx.pos(i)
        pm = sum(P[k] * MSr[k] for k in range(3))
        pp = sum(P[k] * P[k] for k in range(3))
        Jp, MSp, Mp = acc[p]
        for r in range(3):
            for c in range(3):
                d = 1 if r == c else 0
                Jp[r][c] = Jp[r][c] + Jr[r][c] - (P[r] * MSr[c] + MSr[r] * P[c]) + d * 2 * pm \
                    - M * (P[r] * P[c] - d * pp)
        acc[p] = Jp, [MSp[k] + MSr[k] + M * P[k] for k in range(3)], Mp + M
    return out


def _mass_matrix_entries(ctx):
    """M(q) entries (nv x nv lists), armature on the diagonal."""
    m, E = ctx.model, ctx.E
    comp = _composite(ctx)
    M = [[0] * m.nv for _ in range(m.nv)]
    for i in range(1, m.nb + 1):
        J, MS, Mc = comp[i]
        ang, lin = ctx.subspace(i)
        for c in range(len(ang)):
            col = int(m.idx_v[i]) + c
            tag = index_tag(col + 1)
            f = E.vec([Mc * lin[c][r] + x for r, x in enumerate(cross(ang[c], MS))], f"KF{tag}_", index_tag(i))
            n = E.vec([sum(J[r][k] * ang[c][k] for k in range(3)) + x for r, x in enumerate(cross(MS, lin[c]))],
                      f"KN{tag}_", index_tag(i))
            k = i
            while True:
                ak, lk = ctx.subspace(k)
                for j in range(len(ak)):
                    row = int(m.idx_v[k]) + j
                    if row <= col:
                        M[row][col] = M[col][row] = sum(ak[j][r] * n[r] + lk[j][r] * f[r] for r in range(3))
                p = int(m.parent[k])
                if p == 0:
                    break
                fp = to_parent(ctx, k, f, f"KF{tag}_")
                n = E.vec([a + b for a, b in zip(to_parent(ctx, k, n, f"KNA{tag}_"), cross(ctx.pos(k), fp))],
                          f"KN{tag}_", index_tag(p))
                f, k = fp, p
    for i in range(1, m.nb + 1):
        for j in range(int(m.nv_joint[i])):
            d = int(m.idx_v[i]) + j
            M[d][d] = M[d][d] + ctx.dof_param("IA", i, j)
    return [[E.var(M[r][c], f"A{index_tag(min(r, c) + 1, max(r, c) + 1)}") for c in range(m.nv)]
            for r in range(m.nv)]


def mass_matrix(model, parameters=None):
    """M(q) by the composite rigid body algorithm (outputs ``A11 .. Ann``), = ``artidyn.crba``."""
    ctx = _context(model, parameters)
    M = _mass_matrix_entries(ctx)
    return SymbolicModel(ctx, "mass_matrix", [M[r][c] for r in range(model.nv) for c in range(model.nv)],
                         (model.nv, model.nv), ("q",))


# --- derivatives of a program: Christoffel symbols, dV/dq ------------------------------------------


def derivative(ctx, outputs, k):
    """d/dq_k of the expressions ``outputs`` (forward differentiation through the program; every
    nonzero derivative of an intermediate variable becomes one, named ``<name>D<k>``)."""
    E, qk = ctx.E, ctx.q[k]
    d = {qk: sp.Integer(1)}
    qindex = {s: j for j, s in enumerate(ctx.q)}
    for s, e in E.live(outputs):
        if isinstance(e, (sp.sin, sp.cos)):
            arg = e.args[0]
            da = arg.diff(qk)
            if da == 0:
                continue
            S, C = ctx.sincos(sorted(qindex[a] for a in arg.free_symbols))
            de = (C if isinstance(e, sp.sin) else -S) * da
        else:
            de = sum((e.diff(a) * d[a] for a in e.free_symbols if a in d), sp.Integer(0))
        if de != 0:
            d[s] = E.var(de, f"{s.name}D{index_tag(k + 1)}")
    return [sum((o.diff(a) * d[a] for a in sp.sympify(o).free_symbols if a in d), sp.Integer(0)) for o in outputs]


def _christoffel_coriolis(ctx, M):
    """C_ij = sum_k 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) qd_k (nv x nv lists)."""
    n, E = ctx.model.nv, ctx.E
    flat = [M[r][c] for r in range(n) for c in range(n)]
    dM = [derivative(ctx, flat, k) for k in range(n)]
    D = lambda i, j, k: dM[k][i * n + j]  # noqa: E731
    half = sp.Rational(1, 2)
    C = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            C[i][j] = E.var(sum(E.var(half * (D(i, j, k) + D(i, k, j) - D(j, k, i)), f"GA{index_tag(i + 1, j + 1, k + 1)}")
                                * ctx.qd[k] for k in range(n)), f"CC{index_tag(i + 1, j + 1)}")
    return C


def coriolis(model, parameters=None, product=False):
    """C(q, qd) (nv x nv, Christoffel symbols of the symbolic M; = ``artidyn.coriolis_matrix``) or,
    with ``product=True``, the vector ``C(q, qd) qd`` by Newton-Euler (qdd = 0, g = 0)."""
    ctx = _context(model, parameters)
    n = model.nv
    if product:
        h = _coriolis_product(ctx)
        return SymbolicModel(ctx, "coriolis_product", _outputs(ctx, h, "H", [(k + 1,) for k in range(n)]), (n,),
                             ("q", "qd"))
    _require_flat(model, "coriolis")
    C = _christoffel_coriolis(ctx, _mass_matrix_entries(ctx))
    return SymbolicModel(ctx, "coriolis", [C[r][c] for r in range(n) for c in range(n)], (n, n), ("q", "qd"))


def _potential(ctx):
    """V(q) = - g . sum_i (M_i p_0i + R_0i MS_i) + 1/2 sum K (q - rest)^2."""
    m = ctx.model
    W = world_placements(ctx)
    V = 0
    for i in range(1, m.nb + 1):
        _, MS, M = ctx.inertia(i)
        R0, p0 = W[i]
        r = [M * p0[k] + x for k, x in enumerate(matvec(R0, MS))]
        V = V - sum(ctx.gravity[k] * r[k] for k in range(3))
    from .expr import num
    for i in range(1, m.nb + 1):
        _, _, qs, _, _ = ctx.joint(i)
        for j in range(int(m.nv_joint[i])):
            dof = int(m.idx_v[i]) + j
            if m.stiffness[dof] != 0:
                V = V + num(m.stiffness[dof]) / 2 * (ctx.q[qs[j]] - num(m.rest[dof])) ** 2
    return ctx.E.var(V, "V")


def lagrange(model, parameters=None, friction=True):
    """Lagrange's equations ``M(q) qdd + C(q, qd) qd + dV/dq (+ friction) = tau``.

    M by the composite bodies, C from its Christoffel symbols and the gravity torques as the
    derivative of the potential energy ``V`` (not from Newton-Euler: an independent route).
    ``sm.terms`` holds the pieces: {"M": nv x nv, "C": nv x nv, "g": nv, "V": V} (expressions over
    the program's variables).
    """
    _require_flat(model, "lagrange")
    ctx = _context(model, parameters)
    n = model.nv
    M = _mass_matrix_entries(ctx)
    C = _christoffel_coriolis(ctx, M)
    V = _potential(ctx)
    g = [ctx.E.var(e, f"DVQ{index_tag(k + 1)}") for k, e in enumerate(derivative(ctx, [V], k)[0] for k in range(n))]
    tau = []
    for i in range(n):
        e = sum(M[i][j] * ctx.qdd[j] + C[i][j] * ctx.qd[j] for j in range(n)) + g[i]
        if friction:
            b = next(b for b in range(1, model.nb + 1) if model.idx_v[b] <= i < model.idx_v[b] + model.nv_joint[b])
            j = i - int(model.idx_v[b])
            e = e + ctx.dof_param("FV", b, j) * ctx.qd[i] + ctx.dof_param("FC", b, j) * sp.sign(ctx.qd[i])
        tau.append(e)
    sm = SymbolicModel(ctx, "lagrange", _outputs(ctx, tau, "GAM", [(k + 1,) for k in range(n)]), (n,),
                       ("q", "qd", "qdd"))
    sm.terms = {"M": M, "C": C, "g": g, "V": V}
    return sm
