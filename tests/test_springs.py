"""Joint springs: stiffness * (q - rest) in the dynamics, 1/2 stiffness (q - rest)^2 in the energy."""
import numpy as np
import pytest
import scipy.optimize

import artidyn as ad
from artidyn.kernels import reference_only
from artidyn.models.zoo import random_tree

FLAT = ("revolute", "prismatic", "cylindrical")


def sprung(model, rng, scale=5.0):
    """``model`` with random springs (stiffness, rest) on every flat joint dof."""
    k, r = np.zeros(model.nv), np.zeros(model.nv)
    for i in range(1, model.nb + 1):
        if model.joint_kind[i] in FLAT + ("continuous",):
            s = model.v_slice(model.joint_names[i])
            k[s] = rng.uniform(0.5, 1.0, s.stop - s.start) * scale
            r[s] = rng.uniform(-0.5, 0.5, s.stop - s.start)
    return model.replace(stiffness=k, rest=r)


@pytest.fixture
def tree(rng):
    m = random_tree(rng, 8, joint_types=("revolute", "prismatic", "spherical", "cylindrical"))
    return sprung(m, rng)


@pytest.fixture
def floating(rng):
    return sprung(random_tree(rng, 6, floating=True, joint_types=FLAT), rng)


def oscillator(k=40.0, m=2.5, rest=0.0, gravity=(0, 0, 0), joint="prismatic", axis=(1, 0, 0), com=(0, 0, 0),
               inertia=None):
    b = ad.ModelBuilder("oscillator", gravity=gravity)
    b.add_body("mass", "world", joint, axis=axis, mass=m, com=com,
               inertia=np.zeros((3, 3)) if inertia is None else inertia, stiffness=k, rest=rest)
    return b.build()


# --- analytic cases ----------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["rk4", "dopri5"])
@pytest.mark.parametrize("v0", [-0.7, 0.0])
def test_mass_spring_oscillates_at_sqrt_k_over_m(method, v0):
    k, m, x0, rest = 40.0, 2.5, 0.3, 0.1
    model = oscillator(k, m, rest)
    w = np.sqrt(k / m)
    res = ad.simulate(model, [rest + x0], [v0], t_final=2.0, dt=1e-3, method=method)
    x = rest + x0 * np.cos(w * res.t) + v0 / w * np.sin(w * res.t)
    xd = -x0 * w * np.sin(w * res.t) + v0 * np.cos(w * res.t)
    assert np.abs(res.q[:, 0] - x).max() < 1e-6
    assert np.abs(res.v[:, 0] - xd).max() < 1e-5
    E = 0.5 * m * v0**2 + 0.5 * k * x0**2
    assert np.allclose(res.energy.total, E, rtol=0, atol=1e-6 * E)
    assert np.allclose(res.energy.potential, 0.5 * k * (res.q[:, 0] - rest) ** 2, atol=1e-12)


def test_mass_spring_accelerations_and_torques():
    model = oscillator(k=12.0, m=3.0, rest=-0.2)
    for q, v in [(0.5, 1.0), (-0.7, -2.0)]:
        a = ad.aba(model, [q], [v], [0.0])
        assert a[0] == pytest.approx(-12.0 * (q + 0.2) / 3.0, abs=1e-13)
        tau = ad.rnea(model, [q], [v], [0.4])
        assert tau[0] == pytest.approx(3.0 * 0.4 + 12.0 * (q + 0.2), abs=1e-13)
        with reference_only():
            assert ad.aba(model, [q], [v], [0.0])[0] == pytest.approx(a[0], abs=1e-13)
            assert ad.rnea(model, [q], [v], [0.4])[0] == pytest.approx(tau[0], abs=1e-13)


def pendulum(k, m=1.3, l=0.6, Ic=0.02, rest=0.0):
    """A rod turning about y at the origin, centre of mass l below it (hanging at q = 0)."""
    return oscillator(k, m, rest, gravity=(0, 0, -9.81), joint="revolute", axis=(0, 1, 0), com=(0, 0, -l),
                      inertia=np.diag([Ic, Ic, 1e-4]))


def test_torsion_spring_pendulum_small_oscillation_frequency():
    k, m, l, Ic, g = 3.0, 1.3, 0.6, 0.02, 9.81
    model = pendulum(k, m, l, Ic)
    w = np.sqrt((k + m * g * l) / (Ic + m * l * l))
    th0 = 1e-4
    res = ad.simulate(model, [th0], [0.0], t_final=3.0, dt=5e-4, method="rk4")
    # nonlinear frequency shift ~ th0^2: far below the tolerance
    assert np.abs(res.q[:, 0] / th0 - np.cos(w * res.t)).max() < 1e-6
    # the linearisation: d tau / d q at rest = k + m g l
    eps = 1e-6
    K = (ad.gravity_torque(model, [eps]) - ad.gravity_torque(model, [-eps]))[0] / (2 * eps)
    assert K == pytest.approx(k + m * g * l, rel=1e-8)
    M = ad.crba(model, [0.0])[0, 0]
    assert M == pytest.approx(Ic + m * l * l, rel=1e-12)


def test_spring_with_gravity_equilibrium():
    """k (q - rest) + m g l sin q = 0: the rest position of the spring is not the equilibrium."""
    k, m, l, g, rest = 4.0, 1.3, 0.6, 9.81, 1.2
    model = pendulum(k, m, l, rest=rest)
    q_eq = scipy.optimize.brentq(lambda q: k * (q - rest) + m * g * l * np.sin(q), 0.0, rest)
    assert 0 < q_eq < rest
    for fn in (ad.gravity_torque, ad.gravity):
        assert abs(fn(model, [q_eq])[0]) < 1e-12
        assert fn(model, [rest])[0] == pytest.approx(m * g * l * np.sin(rest), rel=1e-12)
    assert np.abs(ad.aba(model, [q_eq], [0.0], [0.0])).max() < 1e-11
    res = ad.simulate(model, [q_eq], [0.0], t_final=0.5, method="rk4")
    assert np.abs(res.q[:, 0] - q_eq).max() < 1e-10


# --- cross-checks on random trees --------------------------------------------------------------

def test_rnea_aba_round_trip_with_springs(tree, floating, rng):
    for model in (tree, floating):
        Q = ad.random_configuration(model, rng, size=6)
        V, A = rng.normal(size=(2, 6, model.nv))
        tau = ad.rnea(model, Q, V, A)
        assert np.abs(ad.aba(model, Q, V, tau) - A).max() < 1e-9
        with reference_only():
            tau_ref = ad.rnea(model, Q, V, A)
            assert np.abs(ad.aba(model, Q, V, tau_ref) - A).max() < 1e-9
        # M a + h with h = rnea(q, v, 0), and the spring inside h: g changes by K (q - rest)
        M = ad.crba(model, Q)
        h = ad.nonlinear_effects(model, Q, V)
        assert np.abs(np.einsum("nij,nj->ni", M, A) + h + ad.friction_torque(model, V) - tau).max() < 1e-10
        bare = model.replace(stiffness=np.zeros(model.nv))
        spring = ad.spring_torque(model, Q)
        assert np.abs(ad.gravity_torque(model, Q) - ad.gravity_torque(bare, Q) - spring).max() < 1e-12
        assert np.abs(ad.rnea(model, Q, V, A) - ad.rnea(bare, Q, V, A) - spring).max() < 1e-11


def test_spring_torque_values(tree, rng):
    q = ad.random_configuration(tree, rng)
    tau = ad.spring_torque(tree, q)
    for i in range(1, tree.nb + 1):
        sq, sv = tree.q_slice(tree.joint_names[i]), tree.v_slice(tree.joint_names[i])
        if tree.joint_kind[i] == "spherical":
            assert np.all(tau[sv] == 0)
        else:
            assert np.allclose(tau[sv], tree.stiffness[sv] * (q[sq] - tree.rest[sv]), rtol=0, atol=1e-15)


def test_compiled_equals_reference_with_springs(tree, floating, rng):
    for model in (tree, floating.replace(damping=0.3, coulomb=0.1)):
        q = ad.random_configuration(model, rng)
        v, a, tau = rng.normal(size=(3, model.nv))
        Q = ad.random_configuration(model, rng, size=4)
        V, A = rng.normal(size=(2, 4, model.nv))
        got = [ad.rnea(model, q, v, a), ad.aba(model, q, v, tau), ad.gravity_torque(model, q),
               ad.nonlinear_effects(model, q, v), ad.rnea(model, Q, V, A), ad.aba(model, Q, V, A),
               ad.rnea(model, q, v, a, friction=False)]
        with reference_only():
            ref = [ad.rnea(model, q, v, a), ad.aba(model, q, v, tau), ad.gravity_torque(model, q),
                   ad.nonlinear_effects(model, q, v), ad.rnea(model, Q, V, A), ad.aba(model, Q, V, A),
                   ad.rnea(model, q, v, a, friction=False)]
        for x, y in zip(got, ref):
            assert np.abs(x - y).max() < 1e-12 * max(1.0, np.abs(y).max())


def test_lagrange_and_nonrecursive_include_springs(tree, rng):
    q = ad.random_configuration(tree, rng)
    v, a = rng.normal(size=(2, tree.nv))
    g = ad.gravity(tree, q)
    assert np.abs(g - ad.gravity_torque(tree, q)).max() < 1e-12
    # g = dV/dq, V = gravity + springs: central differences along integrate
    eps = 1e-6
    E = np.eye(tree.nv) * eps
    Vp = ad.potential_energy(tree, ad.integrate(tree, np.broadcast_to(q, (tree.nv, tree.nq)), E))
    Vm = ad.potential_energy(tree, ad.integrate(tree, np.broadcast_to(q, (tree.nv, tree.nq)), -E))
    assert np.abs((Vp - Vm) / (2 * eps) - g).max() < 1e-7
    C = ad.coriolis_matrix(tree, q, v)
    assert np.abs(ad.crba(tree, q) @ a + C @ v + g - ad.rnea(tree, q, v, a)).max() < 1e-10
    assert np.abs(ad.newton_euler_nonrecursive(tree, q, v, a) - ad.rnea(tree, q, v, a)).max() < 1e-10
    _, _, g_nr = ad.dynamics.nonrecursive_terms(tree, q, v)
    assert np.abs(g_nr - g).max() < 1e-10


def test_potential_energy_adds_spring_energy(tree, rng):
    Q = ad.random_configuration(tree, rng, size=5)
    bare = tree.replace(stiffness=np.zeros(tree.nv))
    kv = np.flatnonzero(tree.stiffness)
    kq = np.array([tree.idx_q[i] + j for i in range(1, tree.nb + 1) for j in range(tree.nv_joint[i])
                   if tree.stiffness[tree.idx_v[i] + j] != 0])
    expected = 0.5 * np.sum(tree.stiffness[kv] * (Q[:, kq] - tree.rest[kv]) ** 2, axis=1)
    assert np.allclose(ad.potential_energy(tree, Q) - ad.potential_energy(bare, Q), expected, rtol=1e-12, atol=1e-12)
    assert np.allclose(ad.spring_energy(tree, Q), expected, rtol=1e-13, atol=0)


@pytest.mark.parametrize("method", ["rk4", "dopri5"])
def test_simulate_conserves_kinetic_gravity_and_spring_energy(tree, method, rng):
    q0 = ad.random_configuration(tree, rng)
    v0 = 0.5 * rng.normal(size=tree.nv)
    res = ad.simulate(tree, q0, v0, t_final=0.5, dt=2e-4 if method == "rk4" else 1e-3, method=method,
                      rtol=1e-10, atol=1e-12)
    E = res.energy.total
    spring_part = ad.spring_energy(tree, res.q)
    assert np.ptp(spring_part) > 1e-2 * np.abs(E).max()  # the springs do work: a real test
    assert np.ptp(E) < 1e-6 * max(1.0, np.abs(E).max())
    # the engine's compiled energies equal the reference functions along the run
    with reference_only():
        assert np.allclose(res.energy.potential, ad.potential_energy(tree, res.q), rtol=1e-12, atol=1e-11)
        assert np.allclose(res.energy.kinetic, ad.kinetic_energy(tree, res.q, res.v), rtol=1e-12, atol=1e-11)


def test_energy_drift_shrinks_with_the_step(tree, rng):
    q0 = ad.random_configuration(tree, rng)
    drift = [np.ptp(ad.simulate(tree, q0, np.zeros(tree.nv), t_final=0.4, dt=dt, method="rk4").energy.total)
             for dt in (2e-3, 1e-3)]
    assert drift[1] < drift[0] / 8  # RK4: order 4


def test_friction_false_keeps_the_spring(tree, rng):
    model = tree.replace(damping=0.5)
    bare = model.replace(stiffness=np.zeros(model.nv))
    q = ad.random_configuration(model, rng)
    v = rng.normal(size=model.nv)
    z = np.zeros(model.nv)
    spring = ad.spring_torque(model, q)
    assert np.abs(spring).max() > 0.1
    tau = ad.rnea(model, q, v, z, friction=False)
    assert np.abs(tau - ad.rnea(bare, q, v, z, friction=False) - spring).max() < 1e-12
    # in the forward dynamics the spring acts as the torque -K (q - rest)
    a = ad.aba(model, q, v, z, friction=False)
    assert np.abs(a - ad.aba(bare, q, v, -spring, friction=False)).max() < 1e-10


def test_symbolic_mass_spring():
    import sympy
    x, xd, xdd, k, m = sympy.symbols("x xd xdd k m")
    model = oscillator(k=7.0, m=2.0, rest=0.5)
    q = np.array([x], dtype=object)
    tau = ad.rnea(model, q, np.array([xd], dtype=object), np.array([xdd], dtype=object))
    assert sympy.simplify(tau[0] - (2.0 * xdd + 7.0 * (x - 0.5))) == 0
    V = ad.potential_energy(model, q)
    assert sympy.simplify(V - 3.5 * (x - 0.5) ** 2) == 0


def test_complex_step_derivative_of_spring_torque():
    model = pendulum(3.0, rest=0.3)
    h = 1e-30
    g = ad.gravity_torque(model, np.array([0.7 + 1j * h]))
    assert g.imag[0] / h == pytest.approx(3.0 + 1.3 * 9.81 * 0.6 * np.cos(0.7), rel=1e-13)


# --- builder and model checks ------------------------------------------------------------------

def test_builder_and_replace_store_the_springs():
    b = ad.ModelBuilder("s")
    b.add_body("a", "world", "revolute", mass=1.0, stiffness=2.0, rest=0.1)
    b.add_body("b", "a", "spherical", mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_body("c", "b", "cylindrical", mass=1.0, inertia=np.eye(3) * 0.01, stiffness=(3.0, 4.0), rest=(0.2, -0.3))
    m = b.build()
    assert m.stiffness.tolist() == [2.0, 0, 0, 0, 3.0, 4.0]
    assert m.rest.tolist() == [0.1, 0, 0, 0, 0.2, -0.3]
    m2 = m.replace(stiffness=[1.0, 0, 0, 0, 0, 5.0])
    assert m2.stiffness.tolist() == [1.0, 0, 0, 0, 0, 5.0] and m2.rest.tolist() == m.rest.tolist()
    assert not m2.stiffness.flags.writeable
    assert np.all(random_tree(0, 3).stiffness == 0) and np.all(random_tree(0, 3).rest == 0)


@pytest.mark.parametrize("kw, words", [
    (dict(stiffness=-1.0), ["'a_joint'", "stiffness", ">= 0"]),
    (dict(stiffness=np.nan), ["'a_joint'", "stiffness"]),
    (dict(rest=np.inf), ["'a_joint'", "rest", "finite"]),
    (dict(stiffness=(1.0, 2.0)), ["'a_joint'", "stiffness", "needs 1 value"]),
])
def test_builder_refuses_bad_springs(kw, words):
    b = ad.ModelBuilder("s")
    with pytest.raises(ad.ModelError) as e:
        b.add_body("a", "world", "revolute", mass=1.0, **kw)
    for w in words:
        assert w in str(e.value)


def test_builder_refuses_springs_on_spherical_and_free_joints():
    for kind in ("spherical", "free"):
        b = ad.ModelBuilder("s")
        with pytest.raises(ad.ModelError, match=f"revolute, prismatic and cylindrical joints only, not on a {kind}"):
            b.add_body("a", "world", kind, mass=1.0, inertia=np.eye(3), stiffness=1.0, joint_name="j")


def test_replace_refuses_bad_springs():
    b = ad.ModelBuilder("s")
    b.add_body("a", "world", "spherical", mass=1.0, inertia=np.eye(3) * 0.01, joint_name="ball")
    b.add_body("b", "a", "prismatic", mass=1.0, joint_name="slide")
    m = b.build()
    with pytest.raises(ad.ModelError, match=r"joint 'slide' \(prismatic\).*stiffness must be finite and >= 0"):
        m.replace(stiffness=[0, 0, 0, -2.0])
    with pytest.raises(ad.ModelError, match=r"joint 'slide'.*rest position must be finite"):
        m.replace(rest=[0, 0, 0, np.nan])
    with pytest.raises(ad.ModelError, match=r"joint 'ball' \(spherical\).*revolute, prismatic and cylindrical"):
        m.replace(stiffness=[1.0, 0, 0, 0])
    with pytest.raises(ad.ModelError, match=r"joint 'ball'"):
        m.replace(rest=[0, 0.3, 0, 0])
    with pytest.raises(ad.ShapeError, match="stiffness has 3 entries"):
        m.replace(stiffness=[1.0, 2.0, 3.0])
    assert m.replace(stiffness=[0, 0, 0, 2.0]).stiffness[3] == 2.0


def test_mirrored_limb_keeps_its_springs():
    b = ad.ModelBuilder("m")
    b.add_body("torso", "world", "revolute", mass=2.0, inertia=np.eye(3) * 0.1)
    b.add_body("l_hip", "torso", "revolute", axis=(1, 0, 0), xyz=(0, 0.2, 0), mass=1.0, com=(0, 0.1, -0.2),
               inertia=np.eye(3) * 0.01, stiffness=5.0, rest=0.2)
    b.add_body("l_leg", "l_hip", "cylindrical", axis=(0, 1, 1), xyz=(0, 0, -0.4), mass=1.0, com=(0.05, 0, -0.1),
               inertia=np.eye(3) * 0.01, stiffness=(2.0, 30.0), rest=(0.1, 0.05), lower=(-1.0, -0.1),
               upper=(1.0, 0.2))
    b.add_mirrored("l_hip", lambda s: s.replace("l_", "r_"))
    m = b.build()
    ql = m.q_slice("l_hip_joint"), m.q_slice("l_leg_joint")
    qr = m.q_slice("r_hip_joint"), m.q_slice("r_leg_joint")
    assert m.stiffness[qr[1]].tolist() == [2.0, 30.0] and m.rest[qr[1]].tolist() == [0.1, -0.05]
    assert m.lower[qr[1]].tolist() == [-1.0, -0.2] and m.upper[qr[1]].tolist() == [1.0, 0.1]
    # mirror-image configurations (cylindrical slide negated) give mirror-image placements and
    # equal spring energies per side
    q = np.zeros(m.nq)
    q[ql[0]], q[ql[1]] = 0.3, (0.4, 0.07)
    q[qr[0]], q[qr[1]] = 0.3, (0.4, -0.07)
    D = np.diag([1.0, -1.0, 1.0])
    for body in ("leg",):
        Tl = ad.frame_placement(m, q, f"l_{body}")
        Tr = ad.frame_placement(m, q, f"r_{body}")
        assert np.allclose(Tr[:3, 3], D @ Tl[:3, 3], atol=1e-12)
    tau = ad.spring_torque(m, q)
    assert tau[m.v_slice("l_leg_joint")] == pytest.approx(tau[m.v_slice("r_leg_joint")] * [1, -1])
