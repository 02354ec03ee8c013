"""The compiled tree-sparse route of ``constrained_dynamics`` (:mod:`artidyn.kernels.constrained`)
held against independent computations.

* method="auto" / "sparse" with the kernels on (the compiled route; the dense fallbacks are
  blocked by :func:`compiled_only` where the compiled route must answer), the readable reference
  ``_sparse`` (method="sparse" under :func:`artidyn.kernels.reference_only`) and the dense KKT
  system (method="kkt") agree on random trees of the zoo with random mixes of Point, Weld, Hinge,
  Distance and Coupling, and the result satisfies the equations of motion built here from
  ``crba``, ``rnea`` and ``constraint_terms``;
* batches equal the single states (with broadcasting), with f_ext, friction and Baumgarte terms;
* redundant sets (status "redundant", least-norm split), Holonomic constraints (fallback) and bad
  inputs (errors, never NaN);
* the factorisation ``M = U D U^T`` of solve.py (``utdu``) and its compiled twin, on zoo trees and
  example-robot-data robots.
"""
import contextlib
import functools
from unittest import mock

import numpy as np
import pytest

import artidyn as ad
from artidyn.constraints import (Coupling, Distance, Hinge, Holonomic, Point, Weld, constrained_dynamics,
                                 constraint_rows, constraint_terms)
from artidyn.constraints import solve
from artidyn.errors import InputError, ShapeError
from artidyn.joints import PRISMATIC, REVOLUTE
from artidyn.kernels import reference_only
from artidyn.models import zoo as make_zoo
from artidyn.spatial.rotations import exp3
from conftest import ERD

KINDS = ("point", "weld", "hinge", "distance", "coupling")
TOL = 1e-9                 # relative to the scale of the compared quantity (absolute below 1)


@functools.lru_cache(maxsize=None)
def _zoo():
    return dict(make_zoo(0))


LABELS = tuple(_zoo())


def _model(label):
    return _zoo()[label]


# --- helpers ------------------------------------------------------------------------------------

@contextlib.contextmanager
def compiled_only():
    """Fail if constrained_dynamics leaves the compiled route (the reference route's solvers and
    the crba / rnea / constraint_rows it calls are blocked inside solve.py)."""
    def boom(*args, **kw):
        raise AssertionError("the compiled route was not taken (a dense reference solver was called)")
    with contextlib.ExitStack() as stack:
        for name in ("_kkt", "_schur", "_sparse", "_nullspace", "crba", "rnea", "constraint_terms", "constraint_rows"):
            stack.enter_context(mock.patch.object(solve, name, boom))
        yield


def _close(x, y, what, tol=TOL):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    assert x.shape == y.shape, f"{what}: shape {x.shape} != {y.shape}"
    assert np.all(np.isfinite(x)), f"{what}: not finite"
    scale = max(1.0, float(np.max(np.abs(y), initial=0.0)))
    err = float(np.max(np.abs(x - y), initial=0.0))
    assert err <= tol * scale, f"{what}: max difference {err:.3g} (scale {scale:.3g})"


def _same_result(r, ref, what, tol=TOL):
    _close(r.a, ref.a, f"{what}: a", tol)
    _close(r.lambdas, ref.lambdas, f"{what}: lambdas", tol)
    assert len(r.forces) == len(ref.forces)
    for k, (f, g) in enumerate(zip(r.forces, ref.forces)):
        _close(f, g, f"{what}: forces[{k}]", tol)


def _frames(model):
    """The frames on moving bodies."""
    return [f for f in model.frame_names if model.frame(f).body != 0]


def _one_dof_joints(model):
    return [model.joint_names[i] for i in range(1, model.nb + 1) if model.joint_type[i] in (REVOLUTE, PRISMATIC)]


def _placement(rng):
    T = np.eye(4)
    T[:3, :3] = exp3(rng.normal(size=3))
    T[:3, 3] = rng.uniform(-0.5, 0.5, 3)
    return T


def random_constraint(model, rng, kind, q0):
    """One constraint of ``kind`` between random frames (or a frame and the world); ``q0`` is
    the configuration where ``at=`` constraints are taken (not the state: phi != 0 there)."""
    if kind == "coupling":
        a, b = rng.choice(_one_dof_joints(model), 2, replace=False)
        return Coupling(str(a), str(b), ratio=rng.choice([-1, 1]) * rng.uniform(0.3, 2.0),
                        offset=rng.uniform(-0.3, 0.3))
    frames = _frames(model)
    fa = frames[rng.integers(len(frames))]
    others = [f for f in frames if model.frame(f).body != model.frame(fa).body]
    fb = others[rng.integers(len(others))] if others and rng.uniform() < 0.5 else None
    if kind == "distance":
        if fb is None:
            extra = dict(at=q0) if rng.uniform() < 0.5 else dict(length=rng.uniform(0.2, 1.0))
            return Distance(fa, target=rng.uniform(-0.8, 0.8, 3), **extra)
        return Distance(fa, fb, **(dict(at=q0) if rng.uniform() < 0.5 else dict(length=rng.uniform(0.2, 1.0))))
    world = {}
    if fb is None:
        world = dict(at=q0) if rng.uniform() < 0.5 else dict(target=_placement(rng))
        if kind == "point" and "target" in world and rng.uniform() < 0.5:
            world = dict(target=world["target"][:3, 3])
    if kind == "point":
        return Point(fa, fb, **world)
    if kind == "weld":
        return Weld(fa, fb, **world)
    axis = rng.normal(size=3)
    return Hinge(fa, fb, axis=axis, **world)


def _well_posed(model, q, constraints):
    """Independent rows, and a Delassus matrix far from singular (so that routes agree to ~1e-10)."""
    try:
        _, J, _ = constraint_terms(model, q, np.zeros(model.nv), constraints)
    except InputError:       # a Distance whose points coincide: draw again
        return False
    s = np.linalg.svd(J, compute_uv=False)
    if s[-1] <= 1e-4 * s[0]:
        return False
    G = J @ np.linalg.solve(ad.crba(model, q), J.T)
    return np.linalg.cond(G) < 1e8


def random_set(model, rng, q, first="point", max_constraints=4):
    """A random list of independent constraints (the first of kind ``first``) at the state q."""
    for _ in range(300):
        q0 = ad.random_configuration(model, rng)
        n = int(rng.integers(1, max_constraints + 1))
        kinds = [first] + [KINDS[rng.integers(len(KINDS))] for _ in range(n - 1)]
        cs = [random_constraint(model, rng, k, q0) for k in kinds]
        if sum(c.rows for c in cs) <= model.nv and _well_posed(model, q, cs):
            return cs
    raise AssertionError(f"no independent {first} set found on {model.name}")   # a test problem


def random_state(model, rng):
    return ad.random_configuration(model, rng), rng.normal(size=model.nv), 5.0 * rng.normal(size=model.nv)


def check_equations(model, q, v, tau, constraints, r, f_ext=None, baumgarte=None, friction=True, tol=TOL):
    """M a + h = tau + J^T lambda and J a = gamma, built here from crba, rnea, constraint_rows (with
    the velocity offsets b of ``J v + b = 0``: Baumgarte's term is 2 alpha (J v + b))."""
    rows = constraint_rows(model, q, v, constraints)
    phi, J = rows.phi, rows.J
    gamma = -rows.bias
    if baumgarte is not None:
        gamma = gamma - 2.0 * baumgarte[0] * (J @ v + rows.b) - baumgarte[1] ** 2 * phi
    M = ad.crba(model, q)
    h = ad.rnea(model, q, v, np.zeros(model.nv), f_ext, friction=friction)
    _close(M @ r.a + h - J.T @ r.lambdas, tau, "equations of motion", tol)
    _close(J @ r.a, gamma, "acceleration constraint", tol)
    return J, gamma


# --- 1. random trees, random constraint mixes: compiled = reference sparse = kkt ------------------

@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("label", LABELS)
def test_compiled_equals_reference_and_kkt_on_random_trees(label, kind):
    model = _model(label)
    rng = np.random.default_rng([LABELS.index(label), KINDS.index(kind)])
    for _ in range(3):
        q, v, tau = random_state(model, rng)
        cs = random_set(model, rng, q, first=kind)
        m = sum(c.rows for c in cs)
        with compiled_only():
            auto = constrained_dynamics(model, q, v, tau, cs)
            sparse = constrained_dynamics(model, q, v, tau, cs, method="sparse")
            again = constrained_dynamics(model, q, v, tau, cs)          # the cached fast path
        with reference_only():
            ref = constrained_dynamics(model, q, v, tau, cs, method="sparse")
        kkt = constrained_dynamics(model, q, v, tau, cs, method="kkt")
        for r in (auto, sparse, again, ref, kkt):
            assert r.status == "ok" and r.rank == m and r.rows == m
        _same_result(auto, ref, f"{label} {cs}: compiled vs reference sparse")
        _same_result(auto, kkt, f"{label} {cs}: compiled vs kkt")
        _same_result(sparse, auto, f"{label} {cs}: sparse vs auto", tol=1e-11)
        _same_result(again, auto, f"{label} {cs}: cached vs first call", tol=1e-11)
        J, gamma = check_equations(model, q, v, tau, cs, auto)
        # 7. the residual the compiled route reports: |J a - gamma|, small, and rank = rows
        scale = 1.0 + float(np.max(np.abs(gamma))) + float(np.max(np.abs(tau)))
        assert 0.0 <= auto.residual < 1e-9 * scale
        assert abs(auto.residual - np.max(np.abs(J @ auto.a - gamma))) < 1e-9 * scale


@pytest.mark.parametrize("kinds", [("point", "weld", "distance", "coupling"), ("distance", "hinge", "coupling")])
def test_forces_are_the_wrenches_of_the_multipliers(kinds):
    """Each entry of ``forces`` from the compiled route is the constraint's own ``wrench`` of its
    multipliers (world axes, on frame_a), recomputed here from the Python constraint models."""
    model = _model("floating_tree_6")
    rng = np.random.default_rng(len(kinds))
    q, v, tau = random_state(model, rng)
    for _ in range(300):
        q0 = ad.random_configuration(model, rng)
        cs = [random_constraint(model, rng, k, q0) for k in kinds]
        if _well_posed(model, q, cs):
            break
    else:
        raise AssertionError(f"no independent set of kinds {kinds}")   # a test problem
    with compiled_only():
        r = constrained_dynamics(model, q, v, tau, cs)
    assert r.status == "ok"
    k = 0
    for c, f in zip(cs, r.forces):
        lam = r.lambdas[k:k + c.rows]
        _close(f, c.wrench(model, q, lam), f"{c!r}: wrench", 1e-12)
        k += c.rows
        if isinstance(c, Coupling):
            assert f.shape == (1,)
        elif isinstance(c, Point):               # [0; lambda]
            assert np.all(f[:3] == 0.0)
            _close(f[3:], lam, "point force", 0.0)
        elif isinstance(c, Distance):            # the force lies along the two points
            pa = ad.frame_placement(model, q, c.frame_a)[:3, 3]
            pb = (np.asarray(c.target, dtype=float) if c.frame_b is None
                  else ad.frame_placement(model, q, c.frame_b)[:3, 3])
            assert np.all(f[:3] == 0.0)
            _close(np.cross(f[3:], pa - pb), np.zeros(3), "distance force along the rod", 1e-12)
            _close(f[3:] @ (pa - pb) / np.linalg.norm(pa - pb), lam[0], "distance multiplier", 1e-12)
        elif isinstance(c, Hinge):               # no moment about the hinge axis
            axis = ad.frame_placement(model, q, c.frame_a)[:3, :3] @ c.axis
            assert abs(f[:3] @ axis) <= 1e-12 * (1.0 + np.max(np.abs(f)))
            _close(f[3:], lam[:3], "hinge force", 0.0)
    assert k == r.rows


@pytest.mark.parametrize("angle", [0.0, 1e-9, 0.5, np.pi - 1e-3, np.pi - 1e-7, np.pi])
def test_weld_rotation_error_with_baumgarte(angle):
    """phi's rotation part (log of R_a R_b^T) enters gamma through beta^2 phi: the compiled log3
    equals the reference on each branch (small angle, generic, near pi)."""
    model = _model("floating_tree_6")
    rng = np.random.default_rng(12)
    q, v, tau = random_state(model, rng)
    T = ad.frame_placement(model, q, "tcp")
    axis = rng.normal(size=3)
    target = T.copy()
    target[:3, :3] = exp3(axis / np.linalg.norm(axis) * angle) @ T[:3, :3]
    target[:3, 3] += (0.01, -0.02, 0.03)
    cs = [Weld("tcp", target=target), Distance("body2", target=(0.1, 0.2, 0.3), length=0.4)]
    phi = constraint_terms(model, q, v, cs)[0]
    _close(np.linalg.norm(phi[:3]), angle, "rotation error", 1e-7)     # arccos: ~1e-8 near pi
    with compiled_only():
        r = constrained_dynamics(model, q, v, tau, cs, baumgarte=(1.0, 3.0))
    kkt = constrained_dynamics(model, q, v, tau, cs, method="kkt", baumgarte=(1.0, 3.0))
    with reference_only():
        ref = constrained_dynamics(model, q, v, tau, cs, method="sparse", baumgarte=(1.0, 3.0))
    _same_result(r, kkt, f"angle {angle}: compiled vs kkt")
    _same_result(r, ref, f"angle {angle}: compiled vs reference")
    check_equations(model, q, v, tau, cs, r, baumgarte=(1.0, 3.0))


# --- 2. batches ----------------------------------------------------------------------------------

def _batch_equals_singles(model, Q, V, T, cs, F=None, **kw):
    N = max(np.shape(x)[0] for x in (Q, V, T) if np.ndim(x) == 2)
    pick = lambda X, k: X[k] if np.ndim(X) == 2 else X                      # noqa: E731
    with compiled_only():
        b = constrained_dynamics(model, Q, V, T, cs, f_ext=F, **kw)
        singles = [constrained_dynamics(model, pick(Q, k), pick(V, k), pick(T, k), cs,
                                        f_ext=None if F is None else (F[k] if np.ndim(F) == 3 else F), **kw)
                   for k in range(N)]
    m = sum(c.rows for c in cs)
    assert b.status == "ok" and b.rows == m
    assert b.a.shape == (N, model.nv) and b.lambdas.shape == (N, m)
    assert np.shape(b.residual) == (N,) and np.shape(b.rank) == (N,) and np.all(b.rank == m)
    assert len(b.forces) == len(cs)
    for k, s in enumerate(singles):
        assert s.status == "ok"
        _close(b.a[k], s.a, f"state {k}: a", 1e-11)
        _close(b.lambdas[k], s.lambdas, f"state {k}: lambdas", 1e-11)
        for j, (f, g) in enumerate(zip(b.forces, s.forces)):
            assert f.shape == (N,) + g.shape, f"forces[{j}] shape {f.shape}"
            _close(f[k], g, f"state {k}: forces[{j}]", 1e-11)
        assert abs(b.residual[k] - s.residual) <= 1e-12 * (1.0 + np.max(np.abs(s.a)))
    return b, singles


@pytest.mark.parametrize("label", ["tree_8", "floating_tree_6"])
def test_batch_equals_single_states(label):
    model = _model(label)
    rng = np.random.default_rng(7)
    N = 6
    Q = ad.random_configuration(model, rng, size=N)
    V, T = rng.normal(size=(N, model.nv)), 5.0 * rng.normal(size=(N, model.nv))
    for _ in range(50):                          # a set independent at every state of the batch
        cs = random_set(model, rng, Q[0], first="hinge")
        if all(_well_posed(model, q, cs) for q in Q):
            break
    else:
        raise AssertionError("no set independent at all states")     # a test problem
    b, _ = _batch_equals_singles(model, Q, V, T, cs)
    # the batch through the reference route (kernels off) gives the same numbers
    with reference_only():
        ref = constrained_dynamics(model, Q, V, T, cs, method="sparse")
    assert ref.status == "ok" and ref.a.shape == b.a.shape
    _same_result(b, ref, "batch: compiled vs reference")


def test_batch_broadcasts_a_single_state():
    model = _model("floating_chain_3")
    rng = np.random.default_rng(8)
    q, v, _ = random_state(model, rng)
    cs = random_set(model, rng, q, first="point", max_constraints=2)
    N = 5
    T = 5.0 * rng.normal(size=(N, model.nv))
    b, singles = _batch_equals_singles(model, q, v, T, cs)               # one q, one v, N taus
    assert not np.allclose(b.a[0], b.a[1])                                # the taus did change the motion
    _batch_equals_singles(model, np.broadcast_to(q, (N, model.nq)), v, T[0], cs)   # N q's, one tau
    V = rng.normal(size=(N, model.nv))
    _batch_equals_singles(model, q, V, T, cs)                             # one q, N v's and taus
    with pytest.raises(ShapeError, match="different sizes"):
        constrained_dynamics(model, np.broadcast_to(q, (3, model.nq)), V, T, cs)


def test_large_batch_in_chunks_and_a_batch_of_one():
    """Above 256 states the kernel splits the batch into more chunks than threads; N = 1 keeps its
    leading axis."""
    model = _model("floating_chain_3")
    rng = np.random.default_rng(11)
    N = 301
    Q = ad.random_configuration(model, rng, size=N)
    V, T = rng.normal(size=(N, model.nv)), 5.0 * rng.normal(size=(N, model.nv))
    cs = [Point("tcp", at=Q[0]), Coupling(*_one_dof_joints(model)[:2], ratio=-1.3)]
    with compiled_only():
        b = constrained_dynamics(model, Q, V, T, cs)
        for k in range(N):
            s = constrained_dynamics(model, Q[k], V[k], T[k], cs)
            _close(b.a[k], s.a, f"state {k}: a", 1e-11)
            _close(b.lambdas[k], s.lambdas, f"state {k}: lambdas", 1e-11)
        one = constrained_dynamics(model, Q[:1], V[:1], T[:1], cs)
    assert b.status == "ok" and b.a.shape == (N, model.nv) and b.forces[1].shape == (N, 1)
    assert one.a.shape == (1, model.nv) and one.residual.shape == (1,) and one.forces[0].shape == (1, 6)
    _close(one.a[0], b.a[0], "batch of one", 1e-12)


def test_no_constraint_is_the_unconstrained_dynamics():
    """An empty list: the compiled route's a = M^-1 (tau - h) by the tree factorisation equals ABA."""
    model = _model("floating_tree_6")
    rng = np.random.default_rng(10)
    q, v, tau = random_state(model, rng)
    F = rng.normal(size=(model.nb + 1, 6))
    with reference_only():
        a_ref = ad.aba(model, q, v, tau, F)
    for _ in range(2):                           # first call, then the cached (empty) list
        with compiled_only():
            r = constrained_dynamics(model, q, v, tau, [], f_ext=F)
        assert r.status == "ok" and r.rank == 0 and r.rows == 0 and r.lambdas.shape == (0,) and r.forces == []
        _close(r.a, a_ref, "a without constraints", 1e-12)
    Q = ad.random_configuration(model, rng, size=3)
    with compiled_only():
        b = constrained_dynamics(model, Q, v, tau, [], method="sparse")
    assert b.a.shape == (3, model.nv) and b.lambdas.shape == (3, 0) and np.all(b.rank == 0)
    with reference_only():
        _close(b.a, ad.aba(model, Q, v, tau), "batch without constraints", 1e-12)


def test_batch_with_f_ext_per_state_friction_and_baumgarte():
    model = _model("tree_8")
    rng = np.random.default_rng(9)
    model = model.replace(damping=rng.uniform(0.1, 1.0, model.nv), coulomb=rng.uniform(0.1, 0.5, model.nv))
    N = 4
    Q = ad.random_configuration(model, rng, size=N)
    V, T = rng.normal(size=(N, model.nv)), 5.0 * rng.normal(size=(N, model.nv))
    for _ in range(50):
        cs = random_set(model, rng, Q[0], first="distance")
        if all(_well_posed(model, q, cs) for q in Q):
            break
    else:
        raise AssertionError("no set independent at all states")     # a test problem
    F = rng.normal(size=(N, model.nb + 1, 6))
    _batch_equals_singles(model, Q, V, T, cs, F=F, baumgarte=(3.0, 4.0))
    _batch_equals_singles(model, Q, V, T, cs, F=F[0], friction=False)     # one f_ext for all states


# --- 3. f_ext, friction, Baumgarte: compiled = kkt -----------------------------------------------

@pytest.mark.parametrize("label", ["chain_mixed6", "tree_sph_5", "floating_tree_6"])
def test_f_ext_friction_and_baumgarte(label):
    rng = np.random.default_rng(LABELS.index(label) + 100)
    model = _model(label)
    model = model.replace(damping=rng.uniform(0.2, 2.0, model.nv), coulomb=rng.uniform(0.1, 1.0, model.nv))
    q, v, tau = random_state(model, rng)
    cs = random_set(model, rng, q, first="weld" if model.nv > 7 else "hinge")
    F = np.zeros((model.nb + 1, 6))
    F[1:] = rng.normal(size=(model.nb, 6))
    base = constrained_dynamics(model, q, v, tau, cs, friction=False)
    for kw in (dict(f_ext=F), dict(friction=True), dict(baumgarte=(5.0, 7.0)),
               dict(f_ext=F, friction=True, baumgarte=(2.0, 3.0))):
        with compiled_only():
            r = constrained_dynamics(model, q, v, tau, cs, **{"friction": False, **kw})
        kkt = constrained_dynamics(model, q, v, tau, cs, method="kkt", **{"friction": False, **kw})
        with reference_only():
            ref = constrained_dynamics(model, q, v, tau, cs, method="sparse", **{"friction": False, **kw})
        assert r.status == kkt.status == ref.status == "ok"
        _same_result(r, kkt, f"{kw}: compiled vs kkt")
        _same_result(r, ref, f"{kw}: compiled vs reference")
        check_equations(model, q, v, tau, cs, r, **{"friction": False, **kw})
        # each option changes the answer (it is not silently ignored)
        assert np.max(np.abs(r.a - base.a)) > 1e-3 * (1.0 + np.max(np.abs(base.a)))


def test_friction_on_a_builder_model_with_damping():
    # a 3-dof arm whose tip is pinned (Point) to a carriage on three prismatic axes; viscous and
    # Coulomb friction on every joint
    b = ad.ModelBuilder("damped_loop", gravity=(0.0, 0.0, -9.81))
    rod = dict(mass=1.0, com=(0.25, 0, 0), inertia=np.diag([1e-3, 0.02, 0.02]))
    b.add_body("a0", "world", "revolute", axis=(0, 0, 1), damping=0.3, coulomb=0.1, **rod)
    b.add_body("a1", "a0", "revolute", axis=(0, 1, 0), damping=0.7, coulomb=0.3, **rod)
    b.add_body("a2", "a1", "revolute", axis=(0, 1, 0), xyz=(0.5, 0, 0), damping=0.4, coulomb=0.2, **rod)
    b.add_frame("a2_tip", "a2", xyz=(0.5, 0, 0))
    b.add_body("sx", "world", "prismatic", axis=(1, 0, 0), damping=1.5, coulomb=0.5, mass=2.0)
    b.add_body("sy", "sx", "prismatic", axis=(0, 1, 0), damping=0.9, coulomb=0.1, mass=0.3)
    b.add_body("sz", "sy", "prismatic", axis=(0, 0, 1), damping=0.2, mass=0.5)
    model = b.build()
    q = np.array([0.2, 0.3, -0.6, 0.0, 0.0, 0.0])
    q[3:] = ad.frame_placement(model, q, "a2_tip")[:3, 3]               # close the loop
    cs = [Point("a2_tip", "sz")]
    J = J_of(model, q, cs)
    v = np.array([1.0, -0.5, 0.8, 0.0, 0.0, 0.0])
    v[3:] = J[:, :3] @ v[:3]                                               # the carriage follows the tip
    _close(J @ v, np.zeros(3), "closed velocities", 1e-12)
    tau = np.array([0.5, -0.2, 1.0, 0.3, 0.0, -0.4])
    with compiled_only():
        r = constrained_dynamics(model, q, v, tau, cs, friction=True)
        r0 = constrained_dynamics(model, q, v, tau, cs, friction=False)
    for fr, res in ((True, r), (False, r0)):
        kkt = constrained_dynamics(model, q, v, tau, cs, method="kkt", friction=fr)
        assert res.status == kkt.status == "ok" and res.rank == 3
        _same_result(res, kkt, f"friction={fr}: compiled vs kkt")
        check_equations(model, q, v, tau, cs, res, friction=fr)
    # the friction torques damping v + coulomb sign(v) make the whole difference
    M = ad.crba(model, q)
    fr = model.damping * v + model.coulomb * np.sign(v)
    assert np.max(np.abs(fr)) > 0.5
    _close(M @ (r0.a - r.a) - J.T @ (r0.lambdas - r.lambdas), fr, "friction torque", 1e-9)


def J_of(model, q, cs):
    return constraint_terms(model, q, np.zeros(model.nv), cs)[1]


# --- 4. redundant constraints ------------------------------------------------------------------

@pytest.mark.parametrize("label", ["chain_rev7", "floating_tree_6"])
def test_redundant_point_twice_least_norm_halves(label):
    model = _model(label)
    rng = np.random.default_rng(LABELS.index(label) + 200)
    q, v, tau = random_state(model, rng)
    for _ in range(100):
        p = random_constraint(model, rng, "point", ad.random_configuration(model, rng))
        if _well_posed(model, q, [p]):
            break
    else:
        raise AssertionError("no independent Point")                  # a test problem
    one = constrained_dynamics(model, q, v, tau, [p])
    p2 = Point(p.frame_a, p.frame_b, target=p.target, at=p.at)             # an equal copy
    for twice in ([p, p], [p, p2]):
        r = constrained_dynamics(model, q, v, tau, twice)
        assert r.status == "redundant" and r.rows == 6 and r.rank == 3
        assert np.all(np.isfinite(r.a)) and np.all(np.isfinite(r.lambdas))
        _close(r.a, one.a, "a with the Point twice", 1e-9)
        _close(r.lambdas[:3], 0.5 * one.lambdas, "first copy carries half", 1e-9)
        _close(r.lambdas[3:], 0.5 * one.lambdas, "second copy carries half", 1e-9)
        _close(r.forces[0], 0.5 * one.forces[0], "forces[0]", 1e-9)
        # the "sparse" method (kernels on) also falls back and agrees
        s = constrained_dynamics(model, q, v, tau, twice, method="sparse")
        assert s.status == "redundant"
        _same_result(s, r, "sparse vs auto (redundant)", 1e-8)
    # a batch holding the redundant set: every state falls back, status and ranks per state
    Q = ad.random_configuration(model, rng, size=3)
    Q[0] = q
    b = constrained_dynamics(model, Q, v, tau, [p, p])
    assert b.status == "redundant" and b.rows == 6 and np.all(b.rank == 3)
    _close(b.a[0], one.a, "batch state 0", 1e-9)
    assert np.all(np.isfinite(b.a)) and np.all(np.isfinite(b.lambdas))


def test_redundant_weld_plus_point_on_the_same_frame():
    model = _model("floating_tree_6")
    rng = np.random.default_rng(300)
    q, v, tau = random_state(model, rng)
    w = Weld("tcp", at=ad.random_configuration(model, rng))
    assert _well_posed(model, q, [w])
    p = Point("tcp", target=w._target(model)[:3, 3])
    one = constrained_dynamics(model, q, v, tau, [w])
    r = constrained_dynamics(model, q, v, tau, [w, p])
    kkt = constrained_dynamics(model, q, v, tau, [w, p], method="kkt")
    assert r.status == "redundant" and r.rows == 9 and r.rank == 6
    assert np.all(np.isfinite(r.lambdas))
    _close(r.a, one.a, "a", 1e-9)
    _close(r.forces[0][:3], one.forces[0][:3], "the moment stays with the weld", 1e-9)
    _close(r.forces[0][3:], 0.5 * one.forces[0][3:], "the force is shared: half on the weld", 1e-9)
    _close(r.forces[1][3:], 0.5 * one.forces[0][3:], "half on the point", 1e-9)
    _same_result(r, kkt, "auto vs kkt", 1e-9)


# --- 5. Holonomic constraints: the dense fallback ------------------------------------------------

def test_holonomic_in_the_list_falls_back_and_equals_kkt():
    model = _model("floating_chain_3")
    rng = np.random.default_rng(400)
    q, v, tau = random_state(model, rng)
    ja, jb = _one_dof_joints(model)[:2]
    qa, qb = model.q_slice(ja).start, model.q_slice(jb).start
    va, vb = model.v_slice(ja).start, model.v_slice(jb).start
    ratio, offset = 1.7, 0.2
    Jh = np.zeros((1, model.nv))
    Jh[0, va], Jh[0, vb] = 1.0, -ratio
    twin = Holonomic(lambda x: np.array([x[qa] - ratio * x[qb] - offset]), jacobian=lambda x: Jh, rows=1)
    for _ in range(100):
        p = random_constraint(model, rng, "point", ad.random_configuration(model, rng))
        if _well_posed(model, q, [p, Coupling(ja, jb, ratio, offset)]):
            break
    else:
        raise AssertionError("no independent set")                    # a test problem
    coupling = [p, Coupling(ja, jb, ratio, offset)]
    with compiled_only():
        compiled = constrained_dynamics(model, q, v, tau, coupling)
    r = constrained_dynamics(model, q, v, tau, [p, twin])                  # auto: falls back
    kkt = constrained_dynamics(model, q, v, tau, [p, twin], method="kkt")
    assert r.status == kkt.status == compiled.status == "ok"
    _same_result(r, kkt, "holonomic: auto vs kkt", 1e-12)
    _same_result(r, compiled, "holonomic twin vs compiled coupling")
    with compiled_only(), pytest.raises(AssertionError, match="compiled route was not taken"):
        constrained_dynamics(model, q, v, tau, [p, twin])                   # it did leave the compiled route
    # a batch with a Holonomic: one state at a time, same numbers
    Q = np.stack([q, ad.random_configuration(model, rng)])
    b = constrained_dynamics(model, Q, v, tau, [p, twin])
    _close(b.a[0], r.a, "batch with a holonomic", 1e-12)
    assert b.lambdas.shape == (2, 4) and b.forces[1].shape == (2, 1)


# --- 6. degenerate and bad inputs: errors, never NaN ---------------------------------------------

def _setup_bad():
    model = _model("floating_tree_6")
    rng = np.random.default_rng(500)
    q, v, tau = random_state(model, rng)
    cs = [Point("tcp", at=ad.random_configuration(model, rng)),
          Distance("body2", target=(0.3, 0.1, 0.2), length=0.6)]
    return model, q, v, tau, cs


@pytest.mark.parametrize("cached", [False, True])
def test_bad_inputs_raise(cached):
    model, q, v, tau, cs = _setup_bad()
    if cached:                                   # the same list seen before: the unchecked fast path first
        assert constrained_dynamics(model, q, v, tau, cs).status == "ok"
    else:
        model = model.replace()                  # a fresh model cache: nothing packed yet
    nan_q = q.copy()
    nan_q[8] = np.nan
    with pytest.raises(InputError, match="NaN"):
        constrained_dynamics(model, nan_q, v, tau, cs)
    with pytest.raises(InputError, match="NaN"):
        constrained_dynamics(model, q, v, np.where(np.arange(model.nv) == 2, np.inf, tau), cs)
    with pytest.raises(InputError, match="NaN"):
        constrained_dynamics(model, np.stack([q, nan_q, q]), v, tau, cs)
    with pytest.raises(ShapeError, match="tau"):
        constrained_dynamics(model, q, v, tau[:-1], cs)
    with pytest.raises(ShapeError, match="tau"):
        constrained_dynamics(model, np.stack([q, q]), v, np.zeros((2, model.nv + 1)), cs)
    bad_quat = q.copy()
    bad_quat[model.q_slice("root_joint")][3:] *= 1.01
    with pytest.raises(InputError, match="unit quaternion"):
        constrained_dynamics(model, bad_quat, v, tau, cs)
    with pytest.raises(InputError, match="unit quaternion"):
        constrained_dynamics(model, np.stack([q, bad_quat]), v, tau, cs)
    with pytest.raises(ShapeError, match="f_ext"):
        constrained_dynamics(model, q, v, tau, cs, f_ext=np.zeros((model.nb, 6)))
    F = np.zeros((model.nb + 1, 6))
    F[2, 4] = np.nan
    with pytest.raises(InputError, match="f_ext"):
        constrained_dynamics(model, q, v, tau, cs, f_ext=F)
    with pytest.raises(InputError, match="f_ext"):
        constrained_dynamics(model, np.stack([q, q]), v, tau, cs, f_ext=F)
    # a slightly off quaternion (within tolerance) is normalised alike on both routes
    near = q.copy()
    near[model.q_slice("root_joint")][3:] *= 1 + 5e-7
    with compiled_only():
        r = constrained_dynamics(model, near, v, tau, cs)
    _same_result(r, constrained_dynamics(model, q, v, tau, cs, method="kkt"), "near-unit quaternion")


def test_distance_whose_points_coincide_raises():
    model, q, v, tau, _ = _setup_bad()
    p = ad.frame_placement(model, q, "tcp")[:3, 3]
    d = [Distance("tcp", target=p, length=0.5)]
    for _ in range(2):                           # first call, then the cached list
        with pytest.raises(InputError, match="coincide"):
            constrained_dynamics(model, q, v, tau, d)
    with pytest.raises(InputError, match="coincide"):
        constrained_dynamics(model, np.stack([ad.random_configuration(model, 1), q]), v, tau, d)
    # two frames at the same point (a frame and its body's origin when they coincide)
    b = ad.ModelBuilder("coincide")
    b.add_body("l1", "world", "revolute", axis=(0, 0, 1), mass=1.0, com=(0.2, 0, 0), inertia=np.eye(3) * 0.01)
    b.add_body("l2", "world", "revolute", axis=(0, 1, 0), mass=1.0, com=(0.2, 0, 0), inertia=np.eye(3) * 0.01)
    two = b.build()
    with pytest.raises(InputError, match="coincide"):
        constrained_dynamics(two, np.array([0.1, 0.2]), np.zeros(2), np.zeros(2), [Distance("l1", "l2", length=1.0)])


def test_integer_f_ext_on_the_cached_path():
    model, q, v, tau, cs = _setup_bad()
    first = constrained_dynamics(model, q, v, tau, cs, f_ext=np.ones((model.nb + 1, 6), dtype=int))
    again = constrained_dynamics(model, q, v, tau, cs, f_ext=np.ones((model.nb + 1, 6), dtype=int))
    _same_result(again, first, "int f_ext, second call")


def test_batch_f_ext_of_the_wrong_shape_raises_shape_error():
    model, q, v, tau, cs = _setup_bad()
    with pytest.raises(ShapeError, match="f_ext"):
        constrained_dynamics(model, np.stack([q, q]), v, tau, cs, f_ext=np.zeros((model.nb, 6)))


def test_nan_baumgarte_gain_is_refused():
    model, q, v, tau, cs = _setup_bad()
    with pytest.raises(InputError, match="baumgarte"):
        constrained_dynamics(model, q, v, tau, cs, baumgarte=(np.nan, 1.0))


# --- 8. M = U D U^T (solve.utdu) and its compiled twin --------------------------------------------

def _dof_bodies(model):
    body = np.empty(model.nv, dtype=int)
    for i in range(1, model.nb + 1):
        body[model.idx_v[i]:model.idx_v[i] + model.nv_joint[i]] = i
    return body


def _ancestor_dofs(model):
    """A[i, k]: dof i is a proper ancestor of dof k (from the body tree, independently of
    ``dof_parents``): i on a body strictly above k's body, or earlier in the same joint."""
    body = _dof_bodies(model)
    A = np.zeros((model.nv, model.nv), dtype=bool)
    for k in range(model.nv):
        for i in range(model.nv):
            if body[i] == body[k]:
                A[i, k] = i < k
            else:
                p = int(model.parent[body[k]])
                while p > 0 and p != body[i]:
                    p = int(model.parent[p])
                A[i, k] = p == body[i]
    return A


def check_utdu(model, q):
    from artidyn.kernels import constrained as kc
    from artidyn.kernels.dispatch import _table

    lam = solve.dof_parents(model)
    sub = solve.subtree_sizes(lam)
    A = _ancestor_dofs(model)
    # lam is the nearest proper ancestor, and the subtree of k is the contiguous range k .. k + sub[k] - 1
    for k in range(model.nv):
        anc = np.flatnonzero(A[:, k])
        assert lam[k] == (anc.max() if anc.size else -1), f"dof {k}: parent {lam[k]}, ancestors {anc}"
        assert set(np.flatnonzero(A[k])) == set(range(k + 1, k + sub[k])), f"dof {k}: subtree"
    M = ad.crba(model, q)
    U, D = solve.utdu(M, lam, sub)
    scale = np.max(np.abs(M))
    assert np.all(D > 0)
    assert np.max(np.abs(U @ np.diag(D) @ U.T - M)) <= 1e-12 * scale
    np.testing.assert_array_equal(np.diag(U), 1.0)
    outside = ~(A | np.eye(model.nv, dtype=bool))
    assert np.all(U[outside] == 0.0), "U has fill-in outside the ancestor pattern"
    b = np.random.default_rng(0).normal(size=model.nv)
    x = solve.utdu_solve(U, D, sub, b)
    assert np.max(np.abs(M @ x - b)) <= 1e-10 * (1 + np.max(np.abs(b)))
    # the compiled twins: dof_parents from the packed table, utdu in place (U in the upper triangle)
    lam_c, sub_c = np.empty(model.nv, np.int64), np.empty(model.nv, np.int64)
    kc.dof_parents(_table(model), lam_c)
    kc.subtree_sizes(lam_c, sub_c)
    np.testing.assert_array_equal(lam_c, lam)
    np.testing.assert_array_equal(sub_c, sub)
    Mc, Dc = M.copy(), np.empty(model.nv)
    assert kc.utdu(Mc, lam_c, sub_c, Dc, np.empty(model.nv))      # the last: scratch
    _close(Dc, D, "compiled D", 1e-12)
    _close(np.triu(Mc, 1), np.triu(U, 1), "compiled U", 1e-12)


@pytest.mark.compiles  # the factorisation helpers called from Python, as no public call does
@pytest.mark.parametrize("label", LABELS)
def test_utdu_on_zoo_trees(label):
    model = _model(label)
    check_utdu(model, ad.random_configuration(model, np.random.default_rng(LABELS.index(label))))


@pytest.mark.skipif(ERD is None, reason="example-robot-data not installed")
@pytest.mark.parametrize("name", ["solo12", "talos_full_v2"])
def test_utdu_and_compiled_route_on_example_robots(name):
    erd = pytest.importorskip("artidyn.models.erd")
    if name not in erd.example_robot_names():
        pytest.skip(f"{name} not in example-robot-data")
    model = erd.example_robot(name)
    rng = np.random.default_rng(600)
    q, v, tau = random_state(model, rng)
    check_utdu(model, q)
    if name == "solo12":
        cs = [Point(f, at=q) for f in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")]
    else:
        cs = [Weld("left_sole_link", at=q), Weld("right_sole_link", at=q)]
    with compiled_only():
        r = constrained_dynamics(model, q, v, tau, cs)
    kkt = constrained_dynamics(model, q, v, tau, cs, method="kkt")
    with reference_only():
        ref = constrained_dynamics(model, q, v, tau, cs, method="sparse")
    assert r.status == "ok" and r.rank == r.rows == sum(c.rows for c in cs)
    _same_result(r, kkt, f"{name}: compiled vs kkt")
    _same_result(r, ref, f"{name}: compiled vs reference")
    check_equations(model, q, v, tau, cs, r)
