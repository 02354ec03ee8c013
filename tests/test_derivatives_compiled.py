"""Compiled derivatives of RNEA and ABA (artidyn.kernels.derivatives) against the readable
reference (artidyn.dynamics.derivatives, itself held against complex step in
tests/test_derivatives.py) and against pinocchio's computeRNEADerivatives / computeABADerivatives.
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.dynamics import _derivatives_kernels as route
from artidyn.dynamics.derivatives import AbaDerivatives, RneaDerivatives
from artidyn.errors import InputError
from artidyn.kernels import reference_only

import pin_utils as pu
from conftest import ERD, erd_urdf

TOL = 1e-10         # kernels against the reference, relative to the largest entry
PIN_TOL = 1e-9      # against pinocchio
ROBOTS = ["ur5_robot", "panda", "solo12", "talos_full_v2"]

try:
    import pinocchio as pin
except ImportError:  # pinocchio is a test peer, not a dependency
    pin = None
needs_pin = pytest.mark.skipif(pin is None, reason="pinocchio not installed")


def close(x, y, tol=TOL):
    x, y = np.asarray(x), np.asarray(y)
    assert x.shape == y.shape
    scale = max(1.0, float(np.max(np.abs(y))))
    np.testing.assert_allclose(x, y, rtol=0, atol=tol * scale)


def with_extras(model, rng):
    """Armature, viscous and Coulomb friction on every dof, springs on the flat dofs."""
    flat = np.zeros(model.nv, bool)
    for i in range(1, model.nb + 1):
        if model.joint_type[i] in ad.joints.FLAT:
            flat[model.idx_v[i]: model.idx_v[i] + model.nv_joint[i]] = True
    return model.replace(armature=rng.uniform(0.05, 0.5, model.nv), damping=rng.uniform(0.1, 1.0, model.nv),
                         coulomb=rng.uniform(0.1, 1.0, model.nv),
                         stiffness=np.where(flat, rng.uniform(1, 10, model.nv), 0.0),
                         rest=np.where(flat, rng.uniform(-0.5, 0.5, model.nv), 0.0))


def state(model, rng, N=None):
    shape = (model.nv,) if N is None else (N, model.nv)
    return ad.random_configuration(model, rng, size=N), rng.normal(size=shape), rng.normal(size=shape)


def compiled(model, kind, q, x1, x2, f_ext=None, friction=True):
    """The kernel route itself (asserting that it did not hand over to the reference)."""
    out = route.derivatives(model, kind, q, x1, x2, f_ext, friction, (RneaDerivatives, AbaDerivatives)[kind])
    assert type(out) is (RneaDerivatives, AbaDerivatives)[kind]
    assert out is not None, "the kernels refused valid inputs"
    return out


def reference(fn, model, *args, **kw):
    with reference_only():
        return fn(model, *args, **kw)


def check_both(model, q, v, x, F, friction):
    for kind, fn in ((route.RNEA_D, ad.rnea_derivatives), (route.ABA_D, ad.aba_derivatives)):
        got = compiled(model, kind, q, v, x, F, friction)
        want = reference(fn, model, q, v, x, F, friction=friction)
        for g, w in zip(got, want):
            close(g, w)
        public = fn(model, q, v, x, F, friction=friction)   # the public function takes the same route
        for g, p in zip(got, public):
            np.testing.assert_array_equal(g, p)


@pytest.mark.parametrize("extras", [False, True])
def test_zoo_equals_reference(zoo, extras, rng):
    for label, m in zoo:
        if extras:
            m = with_extras(m, rng)
        q, v, x = state(m, rng)
        F = rng.normal(size=(m.nb + 1, 6))
        for f_ext, friction in ((None, True), (F, True), (F, False)):
            check_both(m, q, v, x, f_ext, friction)


@pytest.mark.parametrize("name", ROBOTS)
def test_robots_equal_reference(name, rng):
    m = with_extras(ad.load(name), rng)
    q, v, x = state(m, rng)
    check_both(m, q, v, x, rng.normal(size=(m.nb + 1, 6)), True)


def test_batches_equal_single_calls(zoo, rng):
    m = with_extras(dict(zoo)["floating_tree_6"], rng)
    N = 5
    Q, V, X = state(m, rng, N)
    F = rng.normal(size=(N, m.nb + 1, 6))
    for fn in (ad.rnea_derivatives, ad.aba_derivatives):
        batch = fn(m, Q, V, X, F)
        assert all(b.shape == (N, m.nv, m.nv) for b in batch)
        for n in range(N):
            for b, s in zip(batch, fn(m, Q[n], V[n], X[n], F[n])):
                close(b[n], s, 1e-13)
        # one configuration and one f_ext for a batch of velocities; lists; a batch of one
        one = fn(m, Q[0], V, X, F[0])
        for o, s in zip(one, fn(m, Q[0], V[3], X[3], F[0])):
            close(o[3], s, 1e-13)
        for o, s in zip(fn(m, list(Q[1]), list(V[1]), list(X[1])), fn(m, Q[1], V[1], X[1])):
            close(o, s, 1e-13)
        for o, s in zip(fn(m, Q[2:3], V[2:3], X[2:3]), fn(m, Q[2], V[2], X[2])):
            assert o.shape == (1, m.nv, m.nv)
            close(o[0], s, 1e-13)


def test_refusals_go_to_the_reference(zoo):
    m = dict(zoo)["floating_tree_6"]
    q, z = ad.neutral(m), np.zeros(m.nv)
    nan = np.full(m.nv, np.nan)
    assert route.derivatives(m, route.RNEA_D, q, z, nan, None, True, RneaDerivatives) is None
    with pytest.raises(InputError):
        ad.rnea_derivatives(m, q, z, nan)
    bad = q.copy()
    bad[3:7] = [0, 0, 0, 2.0]
    assert route.derivatives(m, route.ABA_D, bad, z, z, None, True, AbaDerivatives) is None
    with pytest.raises(InputError, match="unit quaternion"):
        ad.aba_derivatives(m, bad, z, z)
    # complex inputs (complex step) run the reference code
    d = ad.rnea_derivatives(m, q, z + 0j, z)
    assert d.dtau_dq.dtype == complex
    close(d.dtau_dq.real, ad.rnea_derivatives(m, q, z, z).dtau_dq)


def test_singular_mass_matrix_is_refused(rng):
    """A point mass on the axis of its revolute joint, no armature: M is singular, the kernel
    says so (a code, not an exception) and the rnea derivatives still run."""
    from artidyn.builder import ModelBuilder
    b = ModelBuilder("massless_leaf")
    b.add_body("a", "world", "revolute", axis=(0, 0, 1), mass=1.0, com=(0.1, 0, 0), inertia=np.eye(3) * 0.01)
    b.add_body("b", "a", "revolute", axis=(0, 1, 0), xyz=(0.3, 0, 0), mass=1.0, inertia=np.zeros((3, 3)))
    m = b.build()
    q, v, x = state(m, rng)
    assert route.derivatives(m, route.ABA_D, q, v, x, None, True, AbaDerivatives) is None
    got = compiled(m, route.RNEA_D, q, v, x)
    for g, w in zip(got, reference(ad.rnea_derivatives, m, q, v, x)):
        close(g, w)


# --- pinocchio ----------------------------------------------------------------------------------

def pin_forces(m, pm, f_ext):
    """artidyn f_ext (nb+1, 6) -> pinocchio forces per joint id, in the joint (= body) frame."""
    out = pin.StdVec_Force()
    for _ in range(pm.njoints):
        out.append(pin.Force.Zero())
    for i, jid, _ in pu.joint_map(m, pm):
        out[jid] = pin.Force(f_ext[i, 3:].copy(), f_ext[i, :3].copy())
    return out


def symmetric(X):
    X = np.asarray(X)
    return np.triu(X) + np.triu(X, 1).T


@needs_pin
@pytest.mark.parametrize("stem, floating", [("ur5_robot", False), ("solo12", True)])
def test_against_pinocchio(stem, floating, rng):
    path = erd_urdf(stem)
    m = ad.load_urdf(path, floating_base=floating)
    pm = pu.pin_model(path, floating, inertias_from=m if pu.repaired_links(m) else None)
    data = pm.createData()
    N = 3
    Q, V, X = state(m, rng, N)
    F = rng.normal(size=(N, m.nb + 1, 6))
    rb = compiled(m, route.RNEA_D, Q, V, X, F, False)
    ab = compiled(m, route.ABA_D, Q, V, X, F, False)
    back = lambda Y: pu.from_pin_matrix(m, pm, Y)          # noqa: E731
    for n in range(N):
        qp, vp, xp = pu.to_pin_q(m, pm, Q[n]), pu.to_pin_v(m, pm, V[n]), pu.to_pin_v(m, pm, X[n])
        fp = pin_forces(m, pm, F[n])
        single = compiled(m, route.RNEA_D, Q[n], V[n], X[n], F[n], False)
        pin.computeRNEADerivatives(pm, data, qp, vp, xp, fp)
        for got in (single, [r[n] for r in rb]):
            close(got[0], back(data.dtau_dq), PIN_TOL)
            close(got[1], back(data.dtau_dv), PIN_TOL)
            close(got[2], back(symmetric(data.M)), PIN_TOL)
        single = compiled(m, route.ABA_D, Q[n], V[n], X[n], F[n], False)
        pin.computeABADerivatives(pm, data, qp, vp, xp, fp)
        for got in (single, [r[n] for r in ab]):
            close(got[0], back(data.ddq_dq), PIN_TOL)
            close(got[1], back(data.ddq_dv), PIN_TOL)
            close(got[2], back(symmetric(data.Minv)), PIN_TOL)


def test_helical_joints():
    """Screw joints (turn and slide, [a; p a]) in the compiled derivatives: equal to the reference."""
    b = ad.ModelBuilder("screws")
    b.add_body("nut", "world", "helical", axis=(0, 0, 1), pitch=0.01, mass=1.0, com=(0.1, 0, 0),
               inertia=np.diag([1e-3, 2e-3, 3e-3]))
    b.add_body("arm", "nut", "revolute", axis=(1, 0, 0), xyz=(0.2, 0, 0), mass=0.5, com=(0, 0.1, 0),
               inertia=np.diag([1e-3, 1e-3, 1e-3]))
    b.add_body("tip", "arm", "helical", axis=(0, 1, 0), pitch=-0.02, xyz=(0, 0.3, 0), mass=0.2, com=(0, 0, 0.05),
               inertia=np.diag([2e-4, 1e-4, 3e-4]))
    m = b.build()
    q, v, a = np.random.default_rng(4).normal(size=(3, m.nv))
    got = [np.asarray(x) for x in ad.rnea_derivatives(m, q, v, a)] + [np.asarray(x) for x in ad.aba_derivatives(m, q, v, a)]
    with ad.kernels.reference_only():
        ref = [np.asarray(x) for x in ad.rnea_derivatives(m, q, v, a)] + [np.asarray(x) for x in ad.aba_derivatives(m, q, v, a)]
    for x, y in zip(got, ref):
        np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-10 * max(1.0, float(np.abs(y).max())))


ERD_NAMES = [n for n in (ad.models.erd.example_robot_names() if ERD else []) if n != "ur3"]  # ur3.urdf: no links


@needs_pin
@pytest.mark.parametrize("name", ERD_NAMES)
def test_every_robot_against_pinocchio(name):
    """The public one-state calls (the compiled C path) on every example-robot-data URDF that
    loads, base as the package decides, against pinocchio at one random state; friction off
    (pinocchio's derivatives have none). ABA's derivatives solve with M: their tolerance is
    1e-9 or 10 eps cond(M), whichever is larger (iCub's hands make cond(M) 6e8, and artidyn's
    reference code and pinocchio then differ by 2e-8 of the largest entry)."""
    m = ad.models.erd.example_robot(name)
    path = ad.models.erd.example_robot_path(name)
    pm = pu.pin_model(path, m.has_floating_base, inertias_from=m if pu.repaired_links(m) else None)
    data = pm.createData()
    q, v, x = state(m, np.random.default_rng(11))
    qp, vp, xp = pu.to_pin_q(m, pm, q), pu.to_pin_v(m, pm, v), pu.to_pin_v(m, pm, x)
    back = lambda Y: pu.from_pin_matrix(m, pm, Y)          # noqa: E731
    got = ad.rnea_derivatives(m, q, v, x, friction=False)
    pin.computeRNEADerivatives(pm, data, qp, vp, xp)
    close(got.dtau_dq, back(data.dtau_dq), PIN_TOL)
    close(got.dtau_dv, back(data.dtau_dv), PIN_TOL)
    close(got.M, back(symmetric(data.M)), PIN_TOL)
    tol = max(PIN_TOL, 10 * np.finfo(float).eps * np.linalg.cond(got.M))
    got = ad.aba_derivatives(m, q, v, x, friction=False)
    pin.computeABADerivatives(pm, data, qp, vp, xp)
    close(got.da_dq, back(data.ddq_dq), tol)
    close(got.da_dv, back(data.ddq_dv), tol)
    close(got.Minv, back(symmetric(data.Minv)), tol)


def test_every_loadable_robot_is_compared():
    if not ERD:
        pytest.skip("example-robot-data not installed")
    assert len(ERD_NAMES) == 68, "example-robot-data 6.0.0 ships 69 URDFs, one of them (ur3.urdf) empty"
