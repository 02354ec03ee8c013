"""Constrained forward and inverse dynamics, and assembly on the constraint manifold.

The equations (J. Reuss, "Modélisation des robots", French Wikipedia draft, 2013, "Équations
avec contraintes"; Khalil & Dombre, ch. 9)::

    M(q) a + h(q, v) = tau + J^T lambda,        J a = gamma = -Jdot v (- Baumgarte terms)

``h`` is ``rnea(q, v, 0)`` with friction and external wrenches; the multipliers are the
reactions of the constraints. Three routes, held against each other in the tests:

* ``"sparse"``: the same system by the factorisation that follows the tree: ``M = L^T D L``
  (Featherstone, "Rigid Body Dynamics Algorithms", sec. 6.5: no fill-in outside each dof's
  ancestors), ``Z = L^-T J^T``, the Delassus matrix ``G = Z^T D^-1 Z`` and its Cholesky factors,
  ``a0 = M^-1 (tau - h)``, ``G lambda = gamma - J a0``, ``a = a0 + M^-1 J^T lambda``. Compiled
  (:mod:`artidyn.kernels.constrained`, batches in parallel) for Point, Weld, Hinge, Distance and
  Coupling; :func:`_sparse` is its readable reference;
* ``"kkt"``: the saddle-point system ``[[M, J^T], [J, 0]] [a; -lambda] = [tau - h; gamma]``
  solved whole (LU; least squares when it is singular);
* ``"schur"``: the elimination and recovery of the constraint forces of Nguyen Quang Hoang's
  non-recursive Newton-Euler lecture (slides 12-14):
  ``lambda = (J M^-1 J^T)^-1 (gamma - J M^-1 (tau - h))``, then ``a = M^-1 (tau - h + J^T lambda)``;
* ``"nullspace"``: the partition into independent and dependent velocities (Wehage & Haug's
  generalized coordinate partitioning, 1982; Reuss: "partition entre variables indépendantes et
  dépendantes"): ``v = S v_i`` with ``J S = 0``, the reduced equation
  ``S^T M S a_i = S^T (tau - h - M a_p)`` (``a_p`` a particular solution of
  ``J a = gamma``), then ``lambda`` from ``J^T lambda = M a + h - tau`` (least squares).

``"auto"`` (the default) takes the compiled sparse route, and the dense KKT system where it does
not apply (a :class:`Holonomic` constraint, kernels switched off) or finds the Delassus matrix
singular (redundant constraints: then the rank is found as below).

**Redundant constraints** (rank of J below its rows, tolerance ``rank_tol`` times its largest
singular value) are reported in ``status``; the motion is still unique and returned, with the
least-norm multipliers (pseudo-inverse of the Delassus matrix ``J M^-1 J^T``). Constraints that
contradict each other at the acceleration level leave a nonzero ``residual``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..configuration import as_q, as_batch, integrate
from ..dynamics import crba, rnea
from ..dynamics._common import external_forces
from ..errors import InputError, ShapeError, check_count, check_flag, check_number, shown
from ..kernels.dispatch import _ON
from . import compiled as _compiled

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

    from .._typing import Array, Model
    from .models import Constraint

    Constraints = Constraint | Iterable[Constraint]

METHODS = ("auto", "sparse", "kkt", "schur", "nullspace")


class ConstrainedResult(NamedTuple):
    """Result of :func:`constrained_dynamics` / :func:`constrained_inverse_dynamics`.

    ``forces[k]``: constraint k's reaction on its frame_a as a wrench [moment about frame_a's
    origin; force] in world axes (Point, Weld, Hinge, Distance), or its multipliers (Coupling: the
    generalized force on joint_a; Holonomic). ``lambdas``: all multipliers in constraint order.
    ``residual``: ``max(|J a - gamma|, |M a + h - tau - J^T lambda|)``; ``rank`` of J; ``status``
    "ok", "redundant" (rank < rows: least-norm multipliers) or "inconsistent" (residual above
    tolerance).
    """

    a: np.ndarray
    tau: np.ndarray
    forces: list
    lambdas: np.ndarray
    residual: float
    rank: int
    rows: int
    status: str


class _CompiledResult(ConstrainedResult):
    """The :class:`ConstrainedResult` of the compiled single-state route, ``forces`` formed on
    first access from the kernel's wrenches (a list of one array per constraint costs about a
    tenth of the call; most callers read ``a`` only). Reads, iterates, compares, prints and
    pickles as the plain result; the tuple's third slot holds ``(P, W, lam)`` until then."""

    @property
    def forces(self) -> list:
        d = self.__dict__
        f = d.get("_forces")
        if f is None:
            P, W, lam = tuple.__getitem__(self, 2)
            f = d["_forces"] = P.forces(W, lam)
        return f

    def _plain(self):
        return ConstrainedResult(self.a, self.tau, self.forces, *tuple.__getitem__(self, slice(3, None)))

    def __iter__(self):
        return iter(self._plain())

    def __getitem__(self, k):
        return self._plain()[k]

    def __eq__(self, other):
        return self._plain() == other

    def __ne__(self, other):
        return self._plain() != other

    __hash__ = None

    def __repr__(self):
        return repr(self._plain())

    def __reduce__(self):
        return ConstrainedResult, tuple(self._plain())

    def _asdict(self):
        return self._plain()._asdict()

    def _replace(self, **kw):
        return self._plain()._replace(**kw)


def _check(model, constraints) -> list[Any]:
    if hasattr(constraints, "rows"):
        constraints = [constraints]
    elif isinstance(constraints, str):             # its letters are no constraints
        raise InputError(f"constraints must be a constraint or a list of them, got str {constraints!r}"
                         + ("; the model's declared ones: artidyn.constraints.from_model(model)"
                            if constraints == "model" else ""))
    else:
        try:
            constraints = list(constraints)
        except TypeError:                          # None, a number: not a list of constraints
            raise InputError(f"constraints must be a constraint or a list of them, got {shown(constraints)}") from None
    for c in constraints:
        if not hasattr(c, "jacobian"):
            raise InputError(f"constraints: {c!r} is not a constraint (Point, Weld, Hinge, Distance, Coupling, "
                             f"Holonomic, Nonholonomic, RollingDisk, RollingSphere, NoPivot, KnifeEdge)")
        c.check(model)
    return constraints


class Rows(NamedTuple):
    """All constraints stacked at one state: ``phi`` (m,) (zero on rows without a position form),
    ``J`` (m, nv), ``b`` (m,) with ``J v + b = 0`` the velocity form, ``bias`` (m,) =
    ``Jdot v + bdot``, and ``holonomic`` (m,) the rows that have a position form."""

    phi: np.ndarray
    J: np.ndarray
    b: np.ndarray
    bias: np.ndarray
    holonomic: np.ndarray


def constraint_rows(model: Model, q: ArrayLike, v: ArrayLike, constraints: Constraints, t: float = 0.0) -> Rows:
    """The :class:`Rows` of all constraints at ``(q, v)`` and time ``t`` (one state)."""
    constraints = _check(model, constraints)
    if not constraints:
        return Rows(np.zeros(0), np.zeros((0, model.nv)), np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool))
    phi, J, b, bias, holo = [], [], [], [], []
    for c in constraints:
        phi.append(np.atleast_1d(c.phi(model, q, t) if c.nonholonomic else c.phi(model, q)))
        holo.append(np.asarray(c.holonomic_rows, dtype=bool))
        if c.nonholonomic:
            J.append(np.atleast_2d(c.jacobian(model, q, t)))
            b.append(np.atleast_1d(c.offset(model, q, t)))
            bias.append(np.atleast_1d(c.bias(model, q, v, t)))
        else:
            J.append(np.atleast_2d(c.jacobian(model, q)))
            b.append(np.zeros(c.rows))
            bias.append(np.atleast_1d(c.bias(model, q, v)))
    return Rows(*(np.concatenate(x) for x in (phi, J, b, bias, holo)))


def constraint_terms(model: Model, q: ArrayLike, v: ArrayLike, constraints: Constraints,
                     t: float = 0.0) -> tuple[Array, Array, Array]:
    """``(phi (m,), J (m, nv), Jdot v (m,))`` of all constraints stacked, for one state
    (:func:`constraint_rows` gives also the velocity offsets of nonholonomic constraints)."""
    r = constraint_rows(model, q, v, constraints, t)
    return r.phi, r.J, r.bias


def _state(model, q, v, x, name):
    Q, sq = as_q(model, q)
    V, sv = as_batch(model, v, "v", "nv")
    X, sx = as_batch(model, x, name, "nv")
    if not (sq and sv and sx):
        raise ShapeError("constrained dynamics takes one state (q (nq,), v (nv,)); loop over a batch")
    return Q[0], V[0], X[0]


def _rank(J, rank_tol):
    if J.shape[0] == 0:
        return 0
    s = np.linalg.svd(J, compute_uv=False)
    return int(np.sum(s > rank_tol * max(s[0], 1e-300)))


def _split(model, q, constraints, lam):
    forces, k = [], 0
    for c in constraints:
        forces.append(c.wrench(model, q, lam[k:k + c.rows]))
        k += c.rows
    return forces


def constrained_dynamics(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike, constraints: Constraints,
                         method: str = "auto", f_ext: ArrayLike | None = None,
                         baumgarte: tuple[float, float] | None = None, rank_tol: float = 1e-10, friction: bool = True,
                         t: float = 0.0) -> ConstrainedResult:
    """Forward dynamics under bilateral constraints: accelerations and constraint forces.

    Parameters
    ----------
    model : Model
    q, v, tau : (nq,), (nv,), (nv,), or batches (N, nq), (N, nv), (N, nv)
        The state(s) and the joint torques.
    constraints : list of constraints (:mod:`artidyn.constraints.models`)
    method : {"auto", "sparse", "kkt", "schur", "nullspace"}
        The route (see the module docstring); all give the same result for independent constraints.
    baumgarte : (alpha, beta), optional
        Stabilisation ``J a = -Jdot v - 2 alpha J v - beta^2 phi`` (Baumgarte 1972), e.g.
        ``(10, 10)`` for a simulation at 1 ms; None: the exact acceleration constraint.
    rank_tol : float
        Singular values of J below ``rank_tol`` times the largest count as zero (redundancy).
    t : float
        The time, for constraints that depend on it (:mod:`.nonholonomic`); nonholonomic rows
        ``J v + b = 0`` take ``J a = -(Jdot v + bdot) - 2 alpha (J v + b)`` with Baumgarte.

    Returns
    -------
    ConstrainedResult
        For a batch: ``a`` (N, nv), ``lambdas`` (N, m), ``forces`` entries with a leading N,
        ``residual`` and ``rank`` arrays (N,) and ``status`` the worst of the states ("ok" <
        "redundant" < "inconsistent").
    """
    baumgarte = check_baumgarte(baumgarte, "constrained_dynamics")
    friction = check_flag(friction, "constrained_dynamics: friction")
    if method in ("auto", "sparse") and _ON[0]:
        fast = _fast(model, q, v, tau, constraints, f_ext, baumgarte, friction)
        if fast is not None:
            return fast
    if method not in METHODS:
        raise InputError(f"constrained_dynamics: unknown method {method!r}; choose one of {', '.join(METHODS)}")
    constraints = _check(model, constraints)
    if np.ndim(q) == 2 or np.ndim(v) == 2 or np.ndim(tau) == 2:
        return _batched(model, q, v, tau, constraints, method, f_ext, baumgarte, rank_tol, friction, t)
    q, v, tau = _state(model, q, v, tau, "tau")
    P = _compiled.packed(model, constraints) if method in ("auto", "sparse") and _kernels_on() else None
    if P is not None:
        a, lam, phi, W, res, code = _compiled.single(model, P, q, v, tau, _fext(model, f_ext), baumgarte, friction)
        if code == _compiled.OK:
            return ConstrainedResult(a, tau, P.forces(W, lam), lam, res, P.m, P.m, "ok")
    phi, J, b, Jdv, _ = constraint_rows(model, q, v, constraints, t)
    gamma = -Jdv
    if baumgarte is not None:
        alpha, beta = baumgarte
        gamma = gamma - 2.0 * alpha * (J @ v + b) - beta ** 2 * phi
    M = crba(model, q)
    h = rnea(model, q, v, np.zeros(model.nv), f_ext, friction=friction)
    rhs = tau - h
    m = J.shape[0]
    rank = _rank(J, rank_tol)
    _check_free_inertia(model, q, M, J, rank)
    try:
        if m == 0:
            a, lam = np.linalg.solve(M, rhs), np.zeros(0)
        elif method == "sparse" and rank == m:
            a, lam = _sparse(model, M, J, rhs, gamma)
        elif method in ("kkt", "auto"):
            a, lam = _kkt(M, J, rhs, gamma, rank < m)
        elif method in ("schur", "sparse"):
            a, lam = _schur(M, J, rhs, gamma, rank_tol)
        else:
            a, lam = _nullspace(M, J, rhs, gamma, rank_tol)
    except np.linalg.LinAlgError:
        from ..dynamics.aba import singular_inertia
        raise singular_inertia(model, q) from None
    return _result(model, q, constraints, M, h, J, gamma, a, tau, lam, rank)


def _check_free_inertia(model, q, M, J, rank):
    """The constrained motion is defined when M is positive definite on the velocities the
    constraints leave free (the null space of J). A joint that moves no inertia (a massless
    subtree, a point mass on its axis) and that the constraints leave free makes it singular:
    the ModelError of :func:`artidyn.aba`, naming the joint, rather than a least-norm answer
    reported "redundant" or "inconsistent" (which would blame the constraints). A massless joint
    that the constraints do drive (a massless coupler in a closed loop) passes."""
    N = np.linalg.svd(J)[2][rank:].T if J.shape[0] else np.eye(model.nv)
    if N.shape[1] == 0:
        return
    w = np.linalg.eigvalsh(N.T @ (0.5 * (M + M.T)) @ N)
    if not w[0] > 1e-12 * max(float(np.max(np.abs(np.diag(M)))), 1e-300):     # relative to M's scale
        from ..dynamics.aba import singular_inertia
        raise singular_inertia(model, q)


def check_baumgarte(baumgarte, where):
    """None, or (alpha, beta) as two finite numbers >= 0; an InputError otherwise."""
    if baumgarte is None:
        return None
    try:
        alpha, beta = (float(x) for x in baumgarte)
    except (TypeError, ValueError):
        raise InputError(f"{where}: baumgarte must be (alpha, beta), two numbers, got {baumgarte!r}") from None
    if not (np.isfinite(alpha) and np.isfinite(beta) and alpha >= 0 and beta >= 0):
        raise InputError(f"{where}: baumgarte gains must be finite and >= 0, got (alpha, beta) = ({alpha}, {beta})")
    return alpha, beta


def _kernels_on():
    return _ON[0]


def _fext(model, f_ext):
    """One state's f_ext, (nb + 1, 6) floats, checked as every dynamics function checks it."""
    if f_ext is None:
        return None
    return np.ascontiguousarray(external_forces(model, f_ext, 1)[0], dtype=float)


def _fast(model, q, v, tau, constraints, f_ext, baumgarte, friction):
    """The compiled route without the checks, for constraint lists already seen (cached) and one
    state of 1-D float64 arrays (the compiled call's types: anything else raises TypeError
    there); None otherwise (then the full path checks and reports)."""
    if type(constraints) is not list and type(constraints) is not tuple:
        return None
    P = _compiled.cached(model, constraints)
    if P is None:
        return None
    try:
        a, lam, phi, W, res, code = _compiled.single(model, P, q, v, tau, f_ext, baumgarte, friction)
    except TypeError:
        return None
    if code != _compiled.OK:
        return None
    return _CompiledResult(a, tau, (P, W, lam), lam, res, P.m, P.m, "ok")


_WORST = {"ok": 0, "redundant": 1, "inconsistent": 2}


def _batched(model, q, v, tau, constraints, method, f_ext, baumgarte, rank_tol, friction, t=0.0):
    """Batches: the parallel kernel for the compiled route; other routes, and the states the
    kernel hands back (redundant constraints), one state at a time."""
    Q, _ = as_q(model, q)
    V, _ = as_batch(model, v, "v", "nv")
    T, _ = as_batch(model, tau, "tau", "nv")
    N = max(Q.shape[0], V.shape[0], T.shape[0])
    if any(x.shape[0] not in (1, N) for x in (Q, V, T)):
        raise ShapeError(f"constrained_dynamics: batches of different sizes (q {Q.shape[0]}, v {V.shape[0]}, "
                         f"tau {T.shape[0]})")
    Q, V, T = (np.ascontiguousarray(np.broadcast_to(x, (N, x.shape[1]))) for x in (Q, V, T))
    F = None if f_ext is None else np.ascontiguousarray(external_forces(model, f_ext, N), dtype=float)
    m = sum(c.rows for c in constraints)
    A, LAM = np.empty((N, model.nv)), np.empty((N, m))
    res, rank = np.zeros(N), np.full(N, 0, dtype=int)
    status = "ok"
    todo = range(N)
    P = _compiled.packed(model, constraints) if method in ("auto", "sparse") and _kernels_on() else None
    forces = None
    if P is not None:
        A, LAM, _, W, res, codes = _compiled.batch(model, P, Q, V, T, F, baumgarte, friction)
        rank[:] = m
        todo = np.flatnonzero(codes != _compiled.OK)
        forces = P.forces(W, LAM)
    else:
        forces = [np.zeros((N,) + np.shape(c.wrench(model, Q[0], np.zeros(c.rows)))) for c in constraints]
    for k in todo:
        r = constrained_dynamics(model, Q[k], V[k], T[k], constraints, method, None if F is None else F[k], baumgarte,
                                 rank_tol, friction, t)
        A[k], LAM[k], res[k], rank[k] = r.a, r.lambdas, r.residual, r.rank
        for f, g in zip(forces, r.forces):
            f[k] = g
        status = max(status, r.status, key=_WORST.get)
    return ConstrainedResult(A, T, forces, LAM, res, rank, m, status)


def _sparse(model, M, J, rhs, gamma):
    """The readable reference of the compiled sparse route (module docstring)."""
    lam_dof = dof_parents(model)
    sub = subtree_sizes(lam_dof)
    U, D = utdu(M, lam_dof, sub)
    a0 = utdu_solve(U, D, sub, rhs)
    Y = np.stack([_solve_u(U, sub, row) for row in J]) / np.sqrt(D)       # D^-1/2 U^-1 J^T, (m, nv)
    G = Y @ Y.T                                                           # J M^-1 J^T
    C = np.linalg.cholesky(G)
    lam = np.linalg.solve(C.T, np.linalg.solve(C, gamma - J @ a0))
    return a0 + _solve_ut(U, sub, (Y.T @ lam) / np.sqrt(D)), lam


def dof_parents(model):
    """The parent dof of each dof (-1 at a root): the previous dof of its joint, or the last dof
    of the nearest ancestor joint."""
    lam = np.full(model.nv, -1, dtype=int)
    for i in range(1, model.nb + 1):
        k, n = int(model.idx_v[i]), int(model.nv_joint[i])
        if n == 0:
            continue
        p = int(model.parent[i])
        while p > 0 and model.nv_joint[p] == 0:
            p = int(model.parent[p])
        lam[k] = int(model.idx_v[p] + model.nv_joint[p] - 1) if p > 0 else -1
        lam[k + 1:k + n] = np.arange(k, k + n - 1)
    return lam


def subtree_sizes(lam):
    """Dofs in the subtree of each dof (itself included): k .. k + sub[k] - 1 in depth-first order."""
    sub = np.ones(lam.size, dtype=int)
    for k in range(lam.size - 1, -1, -1):
        if lam[k] >= 0:
            sub[lam[k]] += sub[k]
    return sub


def utdu(M, lam, sub):
    """``M = U D U^T`` with U unit upper triangular, ``U[i, k]`` nonzero only for k in the
    subtree of i (Featherstone RBDA Table 6.3 with ``U = L^T``: no fill-in). Returns (U, D)."""
    n = M.shape[0]
    U, D = np.eye(n), np.zeros(n)
    for j in range(n - 1, -1, -1):
        s = slice(j + 1, j + sub[j])                     # the proper descendants of j
        D[j] = M[j, j] - np.sum(U[j, s] ** 2 * D[s])
        i = lam[j]
        while i >= 0:                                    # the ancestors of j
            U[i, j] = (M[i, j] - np.sum(U[i, s] * D[s] * U[j, s])) / D[j]
            i = lam[i]
    return U, D


def _solve_u(U, sub, b):
    x = np.array(b, dtype=float)
    for i in range(x.size - 1, -1, -1):
        x[i] -= U[i, i + 1:i + sub[i]] @ x[i + 1:i + sub[i]]
    return x


def _solve_ut(U, sub, b):
    x = np.array(b, dtype=float)
    for i in range(x.size):
        x[i + 1:i + sub[i]] -= U[i, i + 1:i + sub[i]] * x[i]
    return x


def utdu_solve(U, D, sub, b):
    """``M^-1 b`` from the factors of :func:`utdu`."""
    return _solve_ut(U, sub, _solve_u(U, sub, b) / D)


def _result(model, q, constraints, M, h, J, gamma, a, tau, lam, rank):
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(lam))):
        from ..dynamics.aba import singular_inertia
        err = singular_inertia(model, q)
        if "move(s) no inertia" in str(err):        # a joint without inertia: named as aba names it
            raise err
        raise InputError(f"constrained dynamics of '{model.name}': the result is not finite (a non-finite input, or "
                         f"a mass matrix that is singular at this q)")
    res = max(float(np.max(np.abs(J @ a - gamma), initial=0.0)),
              float(np.max(np.abs(M @ a + h - tau - J.T @ lam), initial=0.0)))
    scale = 1.0 + float(np.max(np.abs(M @ a), initial=0.0)) + float(np.max(np.abs(gamma), initial=0.0))
    m = J.shape[0]
    status = "inconsistent" if res > 1e-8 * scale else ("redundant" if rank < m else "ok")
    return ConstrainedResult(a, tau, _split(model, q, constraints, lam), lam, res, rank, m, status)


def _kkt(M, J, rhs, gamma, singular):
    n, m = M.shape[0], J.shape[0]
    K = np.block([[M, J.T], [J, np.zeros((m, m))]])
    y = np.concatenate([rhs, gamma])
    x = np.linalg.lstsq(K, y, rcond=None)[0] if singular else np.linalg.solve(K, y)
    return x[:n], -x[n:]


def _schur(M, J, rhs, gamma, rank_tol):
    L = np.linalg.cholesky(M)
    Minv_rhs = _chol_solve(L, rhs)
    MinvJt = _chol_solve(L, J.T)
    G = J @ MinvJt                                   # the Delassus matrix J M^-1 J^T
    lam = _pinv_psd(G, _rank(J, rank_tol)) @ (gamma - J @ Minv_rhs)
    return Minv_rhs + MinvJt @ lam, lam


def _pinv_psd(G, rank):
    """Pseudo-inverse of the symmetric positive semi-definite G keeping its ``rank`` largest
    eigenpairs: the rank comes from J's singular values (G's eigenvalues are their squares
    scaled by M^-1, so a relative cut on G would have to be squared and lose the small ones)."""
    w, U = np.linalg.eigh(0.5 * (G + G.T))
    keep = np.argsort(w)[::-1][:rank]
    Uk = U[:, keep]
    return (Uk / w[keep]) @ Uk.T


def _chol_solve(L, b):
    return np.linalg.solve(L.T, np.linalg.solve(L, b))


def _nullspace(M, J, rhs, gamma, rank_tol):
    # coordinate partitioning (Wehage & Haug): dependent dofs = the pivot columns of J (pivoted QR)
    import scipy.linalg

    n = M.shape[0]
    _, R, piv = scipy.linalg.qr(J, pivoting=True, mode="economic")
    d = np.abs(np.diag(R)) if R.size else np.zeros(0)
    r = int(np.sum(d > rank_tol * max(d[0] if d.size else 0.0, 1e-300)))
    dep, ind = np.sort(piv[:r]), np.sort(piv[r:])
    # rows that carry the rank (redundant rows dropped)
    rows = scipy.linalg.qr(J[:, dep].T, pivoting=True, mode="economic")[2][:r]
    Jd, Ji = J[np.ix_(rows, dep)], J[np.ix_(rows, ind)]
    S = np.zeros((n, n - r))                          # v = S v_i: v_d = -Jd^-1 Ji v_i
    S[ind, np.arange(n - r)] = 1.0
    S[dep] = -np.linalg.solve(Jd, Ji)
    a_p = np.zeros(n)                                 # a particular solution: a_i = 0
    a_p[dep] = np.linalg.solve(Jd, gamma[rows])
    a_i = np.linalg.solve(S.T @ M @ S, S.T @ (rhs - M @ a_p))
    a = a_p + S @ a_i
    lam = np.linalg.lstsq(J.T, M @ a - rhs, rcond=None)[0]  # least norm among equal reactions
    return a, lam


def constrained_inverse_dynamics(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike, constraints: Constraints,
                                 actuated: ArrayLike | None = None, rank_tol: float = 1e-10,
                                 f_ext: ArrayLike | None = None, friction: bool = True,
                                 t: float = 0.0) -> ConstrainedResult:
    """Torques and constraint forces that produce the accelerations ``a``.

    Solves ``M a + h = B tau_a + J^T lambda`` for the actuated torques ``tau_a`` (``actuated``: a
    boolean mask over the dofs, default ``model.actuated``) and the multipliers: exact when the
    split is unique, least norm over ``[tau_a; lambda]`` when it is not (a humanoid on two feet).
    ``a`` must satisfy the constraints (``J a + Jdot v = 0``) and be reachable with the actuated
    dofs; otherwise an InputError says which. Returns a :class:`ConstrainedResult` whose ``tau``
    is the full (nv,) torque vector (zero on unactuated dofs).
    """
    q, v, a = _state(model, q, v, a, "a")
    constraints = _check(model, constraints)
    rank_tol = check_number(rank_tol, "constrained_inverse_dynamics: rank_tol", minimum=0.0)
    phi, J, Jdv = constraint_terms(model, q, v, constraints, t)
    act = np.asarray(model.actuated if actuated is None else actuated, dtype=bool)
    if act.shape != (model.nv,):
        raise ShapeError(f"actuated must be {model.nv} booleans, got shape {act.shape}")
    scale = 1.0 + float(np.max(np.abs(a), initial=0.0)) + float(np.max(np.abs(Jdv), initial=0.0))
    viol = float(np.max(np.abs(J @ a + Jdv), initial=0.0))
    if viol > 1e-8 * scale:
        raise InputError(f"constrained_inverse_dynamics: a violates the constraints (|J a + Jdot v| = {viol:.3g}); "
                         f"project it or use constrained_dynamics")
    M = crba(model, q)
    r = rnea(model, q, v, a, f_ext, friction=friction)       # M a + h
    B = np.eye(model.nv)[:, act]
    A = np.hstack([B, J.T])
    x, *_ = np.linalg.lstsq(A, r, rcond=rank_tol)
    res = float(np.max(np.abs(A @ x - r), initial=0.0))
    if res > 1e-8 * (1.0 + float(np.max(np.abs(r), initial=0.0))):
        free = [n for n, on in zip(_names(model), act) if not on]
        raise InputError(f"constrained_inverse_dynamics: the motion needs {res:.3g} N or N·m more than the "
                         f"actuated dofs and the constraints can give (unactuated: {', '.join(free[:6])}); it is not "
                         f"reachable")
    tau = np.zeros(model.nv)
    tau[act] = x[:int(act.sum())]
    lam = x[int(act.sum()):]
    h = rnea(model, q, v, np.zeros(model.nv), f_ext, friction=friction)
    return _result(model, q, constraints, M, h, J, -Jdv, a, tau, lam, _rank(J, rank_tol))


def _names(model):
    from ..sim.setup import coordinate_names
    return coordinate_names(model, "v")


class Assembly(NamedTuple):
    """Result of :func:`assemble`: ``q`` on the constraint manifold, ``v`` with ``J v = 0``,
    ``residual`` = max |phi(q)|, ``iterations``, ``status`` "converged" or "not converged"."""

    q: np.ndarray
    v: np.ndarray
    residual: float
    iterations: int
    status: str


def assemble(model: Model, q: ArrayLike, constraints: Constraints, v: ArrayLike | None = None, tol: float = 1e-12,
             max_iter: int = 50, t: float = 0.0) -> Assembly:
    """A configuration on the constraint manifold near ``q`` and velocities that satisfy it.

    Gauss-Newton on the manifold, ``q <- q (+) (-J^+ phi)`` (least-norm steps: the closest
    assembly in the metric of v; the rows with a position form only) until ``max |phi| <= tol``;
    then ``v`` projected on ``J v + b = 0`` (least change; all rows, nonholonomic ones included).
    Returns an :class:`Assembly`.
    """
    Q, single = as_q(model, q)
    if not single:
        raise ShapeError("assemble takes one configuration")
    q = Q[0]
    constraints = _check(model, constraints)
    tol = check_number(tol, "assemble: tol", minimum=0.0)
    max_iter = check_count(max_iter, "assemble: max_iter")
    V, single = (np.zeros((1, model.nv)), True) if v is None else as_batch(model, v, "v", "nv")
    if not single:
        raise ShapeError("assemble takes one velocity v (nv,)")
    v = V[0]
    status, it = "not converged", 0
    for it in range(max_iter + 1):
        r = constraint_rows(model, q, v, constraints, t)
        res = float(np.max(np.abs(r.phi), initial=0.0))
        if res <= tol:
            status = "converged"
            break
        if it == max_iter:
            break
        q = integrate(model, q, -np.linalg.lstsq(r.J[r.holonomic], r.phi[r.holonomic], rcond=1e-12)[0])
    r = constraint_rows(model, q, v, constraints, t)
    if r.J.shape[0]:
        v = v - np.linalg.lstsq(r.J, r.J @ v + r.b, rcond=1e-12)[0]
    return Assembly(q, v, res, it, status)
