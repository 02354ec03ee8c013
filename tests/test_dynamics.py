"""RNEA, ABA, CRBA, joint wrenches, external wrenches, friction and armature.

Cross-checks between independent algorithms (ABA against RNEA, CRBA against RNEA columns,
Jacobians against external wrenches, kinematics against joint wrenches), analytic cases (double
pendulum, torque-free and falling rigid bodies), complex-step derivatives, SymPy, and pinocchio
as a peer (random model zoo and example-robot-data URDFs).
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.dynamics.aba import _aba
from artidyn.dynamics.rnea import _rnea
from artidyn.errors import InputError, ShapeError
from artidyn.models.zoo import zoo as make_zoo
from artidyn.spatial.motion import cross_force, force_apply, inv_homogeneous

import pin_build as pb
import pin_utils as pu
from conftest import erd_urdf

TOL = 1e-9          # relative, consistency between algorithms and against pinocchio
CS_TOL = 1e-11      # complex step
N_STATES = 4
ZOO_LABELS = [label for label, _ in make_zoo(0)]

try:
    import pinocchio as pin
except ImportError:  # pinocchio is a test peer, not a dependency
    pin = None
needs_pin = pytest.mark.skipif(pin is None, reason="pinocchio not installed")


@pytest.fixture(params=ZOO_LABELS)
def model(request, zoo):
    return dict(zoo)[request.param]


def states(model, rng, n=N_STATES):
    q = ad.random_configuration(model, rng, size=n)
    v = ad.random_velocity(model, rng, size=n)
    a = ad.random_velocity(model, rng, size=n)
    return q, v, a


def random_f_ext(model, rng, n=N_STATES):
    return rng.normal(size=(n, model.nb + 1, 6))


def with_friction(model, rng):
    return model.replace(armature=rng.uniform(0.05, 0.5, model.nv), damping=rng.uniform(0.1, 1.0, model.nv),
                         coulomb=rng.uniform(0.1, 1.0, model.nv))


def close(x, y, tol=TOL):
    x, y = np.asarray(x), np.asarray(y)
    scale = max(1.0, float(np.max(np.abs(y))))
    np.testing.assert_allclose(x, y, rtol=0, atol=tol * scale)


# --- cross-algorithm identities on the zoo --------------------------------------------------

def test_aba_inverts_rnea(model, rng):
    m = with_friction(model, rng)
    q, v, a = states(m, rng)
    f = random_f_ext(m, rng)
    tau = ad.rnea(m, q, v, a, f)
    close(ad.aba(m, q, v, tau, f), a)


def test_crba_columns_are_rnea_differences(model, rng):
    q = ad.random_configuration(model, rng)
    zero = np.zeros(model.nv)
    g = ad.rnea(model, q, zero, zero)
    M = ad.crba(model, q)
    for k in range(model.nv):
        close(M[:, k], ad.rnea(model, q, zero, np.eye(model.nv)[k]) - g)


def test_mass_matrix_symmetric_positive_definite(model, rng):
    M = ad.crba(model, ad.random_configuration(model, rng, size=N_STATES))
    np.testing.assert_array_equal(M, np.swapaxes(M, 1, 2))
    assert np.all(np.linalg.eigvalsh(M) > 0)


def test_rnea_is_mass_matrix_times_a_plus_bias(model, rng):
    q, v, a = states(model, rng)
    M = ad.crba(model, q)
    close(ad.rnea(model, q, v, a), np.einsum("nij,nj->ni", M, a) + ad.rnea(model, q, v, 0 * a))
    close(ad.gravity_torque(model, q), ad.rnea(model, q, 0 * v, 0 * a))


def test_batch_equals_single_states(model, rng):
    q, v, a = states(model, rng, 3)
    f = random_f_ext(model, rng, 3)
    tau = ad.rnea(model, q, v, a, f)
    acc = ad.aba(model, q, v, tau, f)
    M = ad.crba(model, q)
    F = ad.joint_wrenches(model, q, v, a, f)
    for n in range(3):
        np.testing.assert_allclose(ad.rnea(model, q[n], v[n], a[n], f[n]), tau[n], rtol=1e-13, atol=1e-12)
        np.testing.assert_allclose(ad.aba(model, q[n], v[n], tau[n], f[n]), acc[n], rtol=1e-13, atol=1e-12)
        np.testing.assert_allclose(ad.crba(model, q[n]), M[n], rtol=1e-13, atol=1e-12)
        np.testing.assert_allclose(ad.joint_wrenches(model, q[n], v[n], a[n], f[n]), F[n], rtol=1e-13, atol=1e-12)
    # a single state broadcasts against a batch
    np.testing.assert_allclose(ad.rnea(model, q[0], v, a), ad.rnea(model, np.tile(q[0], (3, 1)), v, a))


# --- wrenches -----------------------------------------------------------------------------

def test_joint_wrenches_balance_each_body(model, rng):
    """Newton-Euler on each body, from kinematics alone: F_i - sum_c A_c F_c + f_ext_i + gravity
    = I a_i + v_i (+) I v_i; and the joint torques are S^T F."""
    q, v, a = states(model, rng, 2)
    f_ext = random_f_ext(model, rng, 2)
    F = ad.joint_wrenches(model, q, v, a, f_ext)
    T = ad.body_placements(model, q)
    vb = ad.body_velocities(model, q, v)
    ab = ad.body_accelerations(model, q, v, a)
    tau = ad.rnea(model, q, v, a, f_ext)
    for i in range(1, model.nb + 1):
        I = model.I[i]
        g_body = np.einsum("nji,j->ni", T[:, i, :3, :3], model.gravity)
        gravity = np.einsum("ij,nj->ni", I, np.concatenate([np.zeros_like(g_body), g_body], 1))
        total = F[:, i] + f_ext[:, i] + gravity
        for c in model.children[i]:
            X_ic = inv_homogeneous(T[:, i]) @ T[:, c]
            total -= force_apply(X_ic, F[:, c])
        close(total, ab[:, i] @ I.T + cross_force(vb[:, i], vb[:, i] @ I.T))
        close(tau[:, model.v_slice(model.joint_names[i])], F[:, i] @ model.S[i])


def test_external_wrench_is_jacobian_transpose(model, rng):
    q, v, a = states(model, rng, 2)
    w = rng.normal(size=(2, 6))
    point = rng.normal(size=3)
    base = ad.rnea(model, q, v, a)
    for expressed in ("world", "local"):
        for pt in (None, point):
            f = ad.external_wrench(model, q, "tcp", w, point=pt, expressed=expressed)
            assert f.shape == (2, model.nb + 1, 6)
            J = ad.jacobian(model, q, "tcp", expressed=expressed, point=pt)
            close(ad.rnea(model, q, v, a, f), base - np.einsum("nij,ni->nj", J, w))
    # the arrays add up: two wrenches on two frames
    f2 = ad.external_wrench(model, q[0], "tcp", w[0]) + ad.external_wrench(model, q[0], model.body_names[1], w[1])
    J1 = ad.jacobian(model, q[0], "tcp")
    J2 = ad.jacobian(model, q[0], model.body_names[1])
    close(ad.rnea(model, q[0], v[0], a[0], f2), base[0] - J1.T @ w[0] - J2.T @ w[1])


def test_world_reaction_of_a_fixed_robot_at_rest(rng):
    """Row 0 of the joint wrenches: at rest, the world carries the whole weight at the com."""
    m = dict(make_zoo(0))["tree_8"]
    q = ad.random_configuration(m, rng)
    F0 = ad.joint_wrenches(m, q, np.zeros(m.nv), np.zeros(m.nv))[0]
    weight = m.total_mass * np.asarray(m.gravity)
    c = ad.center_of_mass(m, q)
    close(F0, np.concatenate([-np.cross(c, weight), -weight]))


# --- analytic cases -----------------------------------------------------------------------

def double_pendulum(m1=1.3, m2=0.7, l1=0.9, c1=0.4, c2=0.35, I1=0.02, I2=0.03):
    b = ad.ModelBuilder("double_pendulum")
    J1, J2 = np.diag([I1, I1, I1]), np.diag([I2, I2, I2])
    b.add_body("link1", "world", "revolute", axis=(0, 1, 0), mass=m1, com=(0, 0, -c1), inertia=J1)
    b.add_body("link2", "link1", "revolute", axis=(0, 1, 0), xyz=(0, 0, -l1), mass=m2, com=(0, 0, -c2), inertia=J2)
    return b.build(), (m1, m2, l1, c1, c2, I1, I2)


def double_pendulum_textbook(p, g, q, v, a):
    """Planar 2R arm hanging down, angles from the downward vertical (Spong, Robot Modeling)."""
    m1, m2, l1, c1, c2, I1, I2 = p
    M11 = I1 + I2 + m1 * c1**2 + m2 * (l1**2 + c2**2 + 2 * l1 * c2 * np.cos(q[1]))
    M12 = I2 + m2 * (c2**2 + l1 * c2 * np.cos(q[1]))
    M22 = I2 + m2 * c2**2
    h = m2 * l1 * c2 * np.sin(q[1])
    tau1 = M11 * a[0] + M12 * a[1] - h * (2 * v[0] * v[1] + v[1] ** 2) \
        + (m1 * c1 + m2 * l1) * g * np.sin(q[0]) + m2 * c2 * g * np.sin(q[0] + q[1])
    tau2 = M12 * a[0] + M22 * a[1] + h * v[0] ** 2 + m2 * c2 * g * np.sin(q[0] + q[1])
    return np.array([tau1, tau2])


def test_double_pendulum_textbook(rng):
    m, p = double_pendulum()
    for _ in range(3):
        q, v, a = rng.normal(size=(3, 2))
        close(ad.rnea(m, q, v, a), double_pendulum_textbook(p, 9.81, q, v, a))


def single_free_body(rng, com=(0.0, 0.0, 0.0), gravity=(0.0, 0.0, 0.0)):
    b = ad.ModelBuilder("free_body", gravity=gravity)
    R = ad.spatial.exp3(rng.normal(size=3))
    I = R @ np.diag([0.3, 0.5, 0.7]) @ R.T
    b.add_body("body", "world", "free", joint_name="root_joint", mass=2.5, com=com, inertia=I)
    return b.build(), I


def test_torque_free_rigid_body_follows_euler_equations(rng):
    m, I = single_free_body(rng)
    q = ad.random_configuration(m, rng)
    v = rng.normal(size=6)
    omega, vel = v[:3], v[3:]
    acc = ad.aba(m, q, v, np.zeros(6))
    close(acc[:3], np.linalg.solve(I, np.cross(I @ omega, omega)))
    close(acc[3:], -np.cross(omega, vel))      # classical acceleration of the com (= origin) is 0
    close(ad.rnea(m, q, v, acc), np.zeros(6))


def test_falling_body_accelerates_at_g(rng):
    m, _ = single_free_body(rng, com=(0.1, -0.2, 0.05), gravity=(0.3, -0.4, -9.81))
    q = ad.random_configuration(m, rng)
    R = ad.spatial.quat_to_matrix(q[3:7])
    expected = np.concatenate([np.zeros(3), R.T @ m.gravity])
    close(ad.aba(m, q, np.zeros(6), np.zeros(6)), expected)
    close(ad.rnea(m, q, np.zeros(6), expected), np.zeros(6))


# --- actuation, armature and friction ------------------------------------------------------

def test_friction_and_armature_terms(model, rng):
    mf = with_friction(model, rng)
    q, v, a = states(model, rng)
    v[0, 0] = 0.0                                    # sign(0) = 0: no Coulomb torque there
    extra = mf.armature * a + mf.damping * v + mf.coulomb * np.sign(v)
    close(ad.rnea(mf, q, v, a) - ad.rnea(model, q, v, a), extra)
    close(ad.rnea(mf, q, v, a, friction=False) - ad.rnea(model, q, v, a), mf.armature * a)
    close(ad.friction_torque(mf, v), mf.damping * v + mf.coulomb * np.sign(v))
    # aba subtracts friction from the actuator torque and sees the armature in M
    tau = rng.normal(size=(N_STATES, model.nv))
    M = ad.crba(mf, q)
    close(M - ad.crba(model, q), np.broadcast_to(np.diag(mf.armature), M.shape))
    rhs = tau - ad.rnea(mf, q, v, 0 * v, friction=False) - ad.friction_torque(mf, v)
    close(ad.aba(mf, q, v, tau), np.linalg.solve(M, rhs[..., None])[..., 0])
    close(ad.aba(mf, q, v, tau, friction=False), ad.aba(mf.replace(damping=0, coulomb=0), q, v, tau))


def test_actuation_matrix(zoo):
    m = dict(zoo)["floating_tree_6"]
    B = ad.actuation_matrix(m)
    assert B.shape == (m.nv, m.nv - 6)
    np.testing.assert_array_equal(B[:6], 0)            # the floating base has no actuator
    np.testing.assert_array_equal(B[6:], np.eye(m.nv - 6))
    passive = np.array(m.actuated)
    passive[7] = False
    B2 = ad.actuation_matrix(m.replace(actuated=passive))
    assert B2.shape == (m.nv, m.nv - 7)
    np.testing.assert_array_equal(B2[7], 0)
    np.testing.assert_array_equal(B2.sum(axis=0), 1)


# --- complex step and SymPy ---------------------------------------------------------------

def test_complex_step_derivatives(zoo, rng):
    """d tau / d a = M (complex step in a), d a / d tau = M^-1 (in tau), d tau / d v (in v) = the
    finite-difference slope."""
    m = dict(zoo)["chain_mixed6"]
    q, v, a = states(m, rng, 1)
    h = 1e-30
    E = np.eye(m.nv) * 1j * h
    M = ad.crba(m, q[0])
    dtau_da = np.imag(_rnea(m, np.repeat(q, m.nv, 0), np.repeat(v, m.nv, 0), a + E)) / h
    close(dtau_da.T, M, CS_TOL)
    tau = ad.rnea(m, q, v, a)
    da_dtau = np.imag(_aba(m, np.repeat(q, m.nv, 0), np.repeat(v, m.nv, 0), tau + E)) / h
    close(da_dtau.T, np.linalg.inv(M), CS_TOL)
    dtau_dv = np.imag(_rnea(m, np.repeat(q, m.nv, 0), v + E, np.repeat(a, m.nv, 0))) / h
    eps = 1e-6
    fd = (ad.rnea(m, q, v + np.eye(m.nv) * eps, a) - ad.rnea(m, q, v - np.eye(m.nv) * eps, a)) / (2 * eps)
    close(dtau_dv, fd, 1e-7)


def test_sympy_rnea_is_the_textbook_double_pendulum(rng):
    import sympy as sp
    m, p = double_pendulum()
    sq, sv, sa = (np.array(sp.symbols(f"{x}1 {x}2"), dtype=object) for x in "qva")
    tau = ad.rnea(m, sq, sv, sa)
    assert tau.dtype == object and tau.shape == (2,)
    M = ad.crba(m, sq)
    num_q, num_v, num_a = rng.normal(size=(3, 2))
    subs = dict(zip(list(sq) + list(sv) + list(sa), list(num_q) + list(num_v) + list(num_a)))
    got = np.array([float(t.subs(subs)) for t in tau])
    close(got, double_pendulum_textbook(p, 9.81, num_q, num_v, num_a))
    close(np.array([[float(sp.sympify(x).subs(subs)) for x in row] for row in M]), ad.crba(m, num_q))
    assert sp.sympify(M[1, 1]).free_symbols == set()                     # M22 is a constant
    assert {str(s) for s in sp.sympify(M[0, 0]).free_symbols} == {"q2"}    # M11 depends on q2 only


# --- input checks -------------------------------------------------------------------------

def test_bad_inputs_raise_clear_errors(zoo):
    m = dict(zoo)["chain_rev7"]
    q, z = ad.neutral(m), np.zeros(m.nv)
    with pytest.raises(ShapeError, match="v has 3 entries"):
        ad.rnea(m, q, np.zeros(3), z)
    with pytest.raises(ShapeError, match="f_ext"):
        ad.rnea(m, q, z, z, np.zeros((m.nb, 6)))
    bad = np.zeros((m.nb + 1, 6))
    bad[2, 4] = np.nan
    with pytest.raises(InputError, match="body2"):
        ad.aba(m, q, z, z, bad)
    with pytest.raises(InputError, match="NaN"):
        ad.aba(m, q, z, np.full(m.nv, np.inf))
    with pytest.raises(ShapeError, match="batch sizes"):
        ad.rnea(m, np.tile(q, (2, 1)), np.zeros((3, m.nv)), z)
    with pytest.raises(KeyError, match="tcp"):
        ad.external_wrench(m, q, "tpc", np.zeros(6))
    with pytest.raises(InputError, match="expressed"):
        ad.external_wrench(m, q, "tcp", np.zeros(6), expressed="body")


# --- pinocchio on the zoo -----------------------------------------------------------------

@needs_pin
@pytest.mark.parametrize("label", ZOO_LABELS)
def test_zoo_against_pinocchio(label, zoo, rng):
    """rnea (with f_ext), aba, crba against pinocchio, armature included (pinocchio adds it too)."""
    m = dict(zoo)[label]
    m = m.replace(armature=rng.uniform(0.05, 0.5, m.nv))
    pm = pb.pin_from_artidyn(m)
    pm.armature = pb.v_to_pin(m, m.armature)
    data = pm.createData()
    q, v, a = states(m, rng, 3)
    f = random_f_ext(m, rng, 3)
    P = pb.v_to_pin(m, np.eye(m.nv))
    for n in range(3):
        fp = pb.forces_to_pin(m, f[n])
        vp, ap = pb.v_to_pin(m, v[n]), pb.v_to_pin(m, a[n])
        tau = ad.rnea(m, q[n], v[n], a[n], f[n])
        close(tau, pb.v_from_pin(m, pin.rnea(pm, data, q[n], vp, ap, fp)))
        acc = pin.aba(pm, data, q[n], vp, pb.v_to_pin(m, tau), fp)
        close(ad.aba(m, q[n], v[n], tau, f[n]), pb.v_from_pin(m, acc))
        Mp = pin.crba(pm, data, q[n])
        close(ad.crba(m, q[n]), P.T @ (np.triu(Mp) + np.triu(Mp, 1).T) @ P)


# --- pinocchio on example-robot-data URDFs ------------------------------------------------

URDF_ROBOTS = [("ur5_robot", False), ("panda", False), ("solo12", True)]


@pytest.fixture(scope="module")
def urdf_robots():
    """{stem: (artidyn model, pinocchio model)}, each URDF loaded once."""
    out = {}
    for stem, floating in URDF_ROBOTS:
        path = erd_urdf(stem)
        m = ad.load_urdf(path, floating_base=floating)
        out[stem] = (m, pu.pin_model(path, floating, inertias_from=m if pu.repaired_links(m) else None))
    return out


def pin_forces(m, pm, f_ext):
    """artidyn f_ext (nb+1, 6) -> pinocchio forces per joint id, in the joint (= body) frame."""
    out = pin.StdVec_Force()
    for _ in range(pm.njoints):
        out.append(pin.Force.Zero())
    for i, jid, _ in pu.joint_map(m, pm):
        out[jid] = pin.Force(f_ext[i, 3:].copy(), f_ext[i, :3].copy())
    return out


@needs_pin
@pytest.mark.parametrize("stem", [s for s, _ in URDF_ROBOTS])
def test_urdf_robots_against_pinocchio(stem, urdf_robots, rng):
    """rnea (with f_ext), gravity, aba, crba, kinetic and potential energy; friction left out
    (pinocchio's algorithms ignore the URDF <dynamics damping friction> that artidyn reads)."""
    m, pm = urdf_robots[stem]
    data = pm.createData()
    q, v, a = states(m, rng, 3)
    f_ext = random_f_ext(m, rng, 3)
    tau_all = ad.rnea(m, q, v, a, f_ext, friction=False)
    acc_all = ad.aba(m, q, v, tau_all, f_ext, friction=False)
    M_all = ad.crba(m, q)
    g_all = ad.gravity_torque(m, q)
    for n in range(3):
        qp, vp, ap = pu.to_pin_q(m, pm, q[n]), pu.to_pin_v(m, pm, v[n]), pu.to_pin_v(m, pm, a[n])
        fp = pin_forces(m, pm, f_ext[n])
        close(tau_all[n], pu.from_pin_v(m, pm, pin.rnea(pm, data, qp, vp, ap, fp)))
        close(g_all[n], pu.from_pin_v(m, pm, pin.computeGeneralizedGravity(pm, data, qp)))
        acc = pin.aba(pm, data, qp, vp, pu.to_pin_v(m, pm, tau_all[n]), fp)
        close(acc_all[n], pu.from_pin_v(m, pm, acc))
        Mp = pin.crba(pm, data, qp)
        close(M_all[n], pu.from_pin_matrix(m, pm, np.triu(Mp) + np.triu(Mp, 1).T))
        close(ad.kinetic_energy(m, q[n], v[n]), pin.computeKineticEnergy(pm, data, qp, vp))
        close(ad.potential_energy(m, q[n]), pin.computePotentialEnergy(pm, data, qp))
