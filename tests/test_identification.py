"""Dynamic identification: regressor, energy regressors, parameter round trip, base parameters."""
import numpy as np
import pytest

import artidyn
from artidyn.dynamics import spring_torque
from artidyn.errors import ModelError
from artidyn.identification import (base_parameters, check_physical, energy_regressors,
                                    model_to_parameters, n_parameters, parameter_names,
                                    parameters_to_model, regressor)
from artidyn.identification.base import random_states
from artidyn.models.builtin import planar_2r
from artidyn.models.zoo import random_tree

JOINTS = ("revolute", "prismatic", "spherical", "cylindrical")


def with_friction(model, rng):
    """The model with random armature, viscous and Coulomb friction on every dof."""
    return model.replace(armature=rng.uniform(0.01, 0.5, model.nv), damping=rng.uniform(0, 1, model.nv),
                         coulomb=rng.uniform(0, 1, model.nv))


def trees():
    return [random_tree(seed, nb=7, floating=floating, joint_types=JOINTS, branching=0.5)
            for seed, floating in ((1, False), (2, True), (3, False), (4, True))]


def robots(names=("ur5_robot", "panda", "solo12")):
    """The example-robot-data robots that are installed."""
    out = []
    for name in names:
        try:
            out.append(artidyn.models.example_robot(name))
        except Exception:  # example-robot-data not installed
            pass
    return out


@pytest.fixture(scope="module")
def models():
    rng = np.random.default_rng(7)
    return [with_friction(m, rng) for m in trees() + robots()]


# --- regressor ------------------------------------------------------------------------------

def test_parameter_layout_and_names():
    m = planar_2r()
    names = parameter_names(m)
    assert n_parameters(m) == len(names) == 10 * 2 + 4 * 2
    assert names[:10] == ["link1.m", "link1.mcx", "link1.mcy", "link1.mcz", "link1.XX", "link1.XY",
                          "link1.XZ", "link1.YY", "link1.YZ", "link1.ZZ"]
    assert names[20:] == ["joint1.Ia", "joint1.Fv", "joint1.Fc", "joint1.off",
                          "joint2.Ia", "joint2.Fv", "joint2.Fc", "joint2.off"]
    pi = model_to_parameters(m)
    # uniform rod of mass 1, length 1, com at 0.5 along x: ZZ about the origin = 1/12 + 1/4
    assert pi[:4] == pytest.approx([1.0, 0.5, 0.0, 0.0])
    assert pi[9] == pytest.approx(1 / 3)
    mf = random_tree(2, nb=2, floating=True, joint_types=("revolute",))
    assert parameter_names(mf)[30:34] == [f"root_joint[0].{p}" for p in ("Ia", "Fv", "Fc", "off")]


def test_regressor_matches_rnea(models):
    rng = np.random.default_rng(0)
    for m in models:
        pi = model_to_parameters(m)
        q, v, a = random_states(m, 6, rng)
        Y = regressor(m, q, v, a)
        assert Y.shape == (6, m.nv, n_parameters(m))
        tau = artidyn.rnea(m, q, v, a)
        scale = 1 + np.abs(tau).max()
        assert np.abs(Y @ pi - tau).max() < 1e-10 * scale, m.name
        for n in range(2):  # a batch equals its single states
            assert np.array_equal(regressor(m, q[n], v[n], a[n]), Y[n])


def test_regressor_is_independent_of_inertias_and_gravity_enters_linearly(models):
    rng = np.random.default_rng(1)
    m = models[1]
    q, v, a = random_states(m, 3, rng)
    other = with_friction(random_tree(2, nb=7, floating=True, joint_types=JOINTS), rng)
    assert np.array_equal(regressor(m, q, v, a), regressor(other, q, v, a))
    # without velocity and acceleration, Y pi is the gravity torque, which scales with g
    z = np.zeros_like(v)
    Y0 = regressor(m.replace(gravity=np.zeros(3)), q, z, z)
    Yg, Y2g = regressor(m, q, z, z), regressor(m.replace(gravity=2 * np.asarray(m.gravity)), q, z, z)
    pi = model_to_parameters(m.replace(coulomb=np.zeros(m.nv)))  # no sign(0) term
    assert np.allclose((Y2g - Y0) @ pi, 2 * (Yg - Y0) @ pi, atol=1e-10)
    assert np.allclose(Yg @ pi, artidyn.gravity_torque(m, q), atol=1e-10)


def test_regressor_excludes_springs():
    rng = np.random.default_rng(2)
    m = with_friction(random_tree(5, nb=5, joint_types=("revolute", "prismatic")), rng)
    m = m.replace(stiffness=rng.uniform(1, 5, m.nv), rest=rng.uniform(-0.5, 0.5, m.nv))
    q, v, a = random_states(m, 4, rng)
    tau = artidyn.rnea(m, q, v, a)
    assert np.abs(regressor(m, q, v, a) @ model_to_parameters(m) - (tau - spring_torque(m, q))).max() < 1e-10
    assert np.abs(spring_torque(m, q)).max() > 0.1


def test_regressor_symbolic_planar_2r():
    sympy = pytest.importorskip("sympy")
    m = planar_2r(l1=1.0)
    q1, q2, v1, v2, a1, a2 = sympy.symbols("q1 q2 v1 v2 a1 a2")
    Y = regressor(m, np.array([q1, q2], dtype=object), np.array([v1, v2], dtype=object),
                  np.array([a1, a2], dtype=object))
    col = {n: k for k, n in enumerate(parameter_names(m))}
    # tau_1 column of link2.m: l1^2 a1 + l1 g cos q1 (gravity -g y, joint about z)
    assert sympy.simplify(Y[0, col["link2.m"]] - (a1 + 9.81 * sympy.cos(q1))) == 0
    assert sympy.simplify(Y[1, col["link2.m"]]) == 0
    assert sympy.simplify(Y[1, col["link2.ZZ"]] - (a1 + a2)) == 0
    assert sympy.simplify(Y[0, col["link1.ZZ"]] - a1) == 0


# --- energies ------------------------------------------------------------------------------

def test_energy_regressors(models):
    rng = np.random.default_rng(3)
    for m in models:
        pi = model_to_parameters(m)
        q, v, _ = random_states(m, 5, rng)
        y_kin, y_pot = energy_regressors(m, q, v)
        T, V = artidyn.kinetic_energy(m, q, v), artidyn.potential_energy(m, q)
        assert np.abs(y_kin @ pi - T).max() < 1e-10 * (1 + np.abs(T).max()), m.name
        assert np.abs(y_pot @ pi - V).max() < 1e-10 * (1 + np.abs(V).max()), m.name
        k0, p0 = energy_regressors(m, q[0], v[0])
        assert np.array_equal(k0, y_kin[0]) and np.array_equal(p0, y_pot[0])
        # the kinetic energy is 1/2 v^T M v
        M = artidyn.crba(m, q[0])
        assert k0 @ pi == pytest.approx(0.5 * v[0] @ M @ v[0], rel=1e-10)


# --- round trip ---------------------------------------------------------------------------

def test_round_trip_exact(models):
    rng = np.random.default_rng(4)
    for m in models:
        pi = model_to_parameters(m)
        back = parameters_to_model(m, pi)
        for field in ("I", "mass", "com", "inertia_com", "armature", "damping", "coulomb"):
            assert np.array_equal(getattr(back, field), getattr(m, field)), (m.name, field)
        # new parameters (those of another, physical model) go through exactly
        other = with_friction(random_tree(9, nb=m.nb, joint_types=("revolute",)), rng)
        pi2 = np.concatenate([model_to_parameters(other)[:10 * m.nb], rng.uniform(0, 1, 4 * m.nv)])
        pi2[10 * m.nb + 3::4] = 0.0  # offsets
        m2 = parameters_to_model(m, pi2)
        assert np.array_equal(model_to_parameters(m2), pi2)
        # the derived fields agree with I
        assert np.allclose(m2.mass[1:], pi2[0:10 * m.nb:10])
        assert np.allclose(m2.mass[1:, None] * m2.com[1:], pi2[:10 * m.nb].reshape(-1, 10)[:, 1:4])
        # and the dynamics follow
        q, v, a = random_states(m, 2, rng)
        assert np.allclose(regressor(m, q, v, a) @ pi2, artidyn.rnea(m2, q, v, a), atol=1e-10)


def test_parameters_to_model_checks():
    m = planar_2r()
    pi = model_to_parameters(m)
    bad = pi.copy()
    bad[-1] = 0.5
    with pytest.raises(ModelError, match="joint2.off"):
        parameters_to_model(m, bad)
    assert np.array_equal(model_to_parameters(parameters_to_model(m, bad, offsets="drop")), pi)
    neg = pi.copy()
    neg[10] = -1.0
    with pytest.raises(ModelError, match="link2"):
        parameters_to_model(m, neg)
    # a point mass at 0.5 with no inertia about the origin: I_O must hold m c^2, so it is not physical
    thin = pi.copy()
    thin[14:20] = 0.0
    with pytest.raises(ModelError, match="pseudo-inertia"):
        parameters_to_model(m, thin)
    assert np.array_equal(model_to_parameters(parameters_to_model(m, thin, check=False)), thin)
    check_physical("rod", pi[:10])  # the thin rod itself is consistent (degenerate)
    with pytest.raises(Exception, match="needs"):
        parameters_to_model(m, pi[:-1])


# --- base parameters ------------------------------------------------------------------------

def planar_groups(l1):
    """Khalil's base parameters of a planar 2R arm (joints about z, gravity in the plane):
    ZZ1R = ZZ1 + Ia1 + l1^2 M2, MX1R = MX1 + l1 M2, MY1, ZZ2, MX2, MY2 (M1, XX, XY, XZ, YY,
    YZ, MZ of both links do not appear; Ia1 adds to ZZ1), plus Ia2, Fv, Fc, off of both joints:
    13 rows; without gravity MX1R and MY1 vanish: 11."""
    m = planar_2r(l1=l1)
    col = {n: k for k, n in enumerate(parameter_names(m))}
    rows = [{"link1.ZZ": 1, "joint1.Ia": 1, "link2.m": l1 ** 2}, {"link1.mcx": 1, "link2.m": l1},
            {"link1.mcy": 1}, {"link2.ZZ": 1}, {"link2.mcx": 1}, {"link2.mcy": 1}, {"joint2.Ia": 1}]
    rows += [{f"joint{j}.{p}": 1} for j in (1, 2) for p in ("Fv", "Fc", "off")]
    G = np.zeros((len(rows), n_parameters(m)))
    for k, r in enumerate(rows):
        for n, c in r.items():
            G[k, col[n]] = c
    return G


@pytest.mark.parametrize("l1", [1.0, 0.7])
def test_base_parameters_planar_2r(l1):
    m = planar_2r(l1=l1, l2=0.5) if l1 != 1.0 else artidyn.load("planar2r")
    b = base_parameters(m, rng=0)
    assert b.rank == 13
    assert b.R_diag[b.rank - 1] > 1e6 * b.tol > b.R_diag[b.rank]  # a clear gap
    G = planar_groups(l1)
    # the numerical base parameters span exactly Khalil's combinations
    assert np.linalg.matrix_rank(np.vstack([G, b.G]), tol=1e-8) == 13
    # another seed and an SVD of a fresh stacked regressor agree on the rank
    q, v, a = random_states(m, 200, np.random.default_rng(99))
    s = np.linalg.svd(regressor(m, q, v, a).reshape(-1, n_parameters(m)), compute_uv=False)
    assert np.sum(s > 1e-9 * s[0]) == 13 and s[12] > 1e-3 * s[0]
    assert base_parameters(m, rng=5).rank == 13
    # without gravity the first link's first moments are lost
    assert base_parameters(m.replace(gravity=np.zeros(3)), rng=0).rank == 11
    # inertial parameters alone: 6
    assert np.linalg.matrix_rank(regressor(m, q, v, a)[:, :, :20].reshape(-1, 20)) == 6


def test_base_parameters_reproduce_tau(models):
    rng = np.random.default_rng(5)
    for m in models:
        b = base_parameters(m, rng=rng)
        pi = model_to_parameters(m)
        assert b.G.shape == (b.rank, pi.size) and sorted(np.r_[b.independent, b.dependent]) == list(range(pi.size))
        q, v, a = random_states(m, 8, rng)
        Y = regressor(m, q, v, a)
        tau = artidyn.rnea(m, q, v, a)
        assert np.abs(b.regressor(Y) @ b.beta(pi) - tau).max() < 1e-9 * (1 + np.abs(tau).max()), m.name
        # the base regressor has full column rank, the full one does not
        Wb = b.regressor(regressor(m, *random_states(m, 60, rng))).reshape(-1, b.rank)
        assert np.linalg.matrix_rank(Wb) == b.rank < pi.size


def test_least_squares_recovers_base_parameters():
    rng = np.random.default_rng(6)
    m = with_friction(artidyn.load("planar2r"), rng)
    b = base_parameters(m, rng=0)
    beta = b.beta(model_to_parameters(m))
    q, v, a = random_states(m, 2000, rng)
    tau = artidyn.rnea(m, q, v, a)
    sigma = 1e-3
    W = b.regressor(regressor(m, q, v, a)).reshape(-1, b.rank)
    noisy = (tau + sigma * rng.standard_normal(tau.shape)).ravel()
    beta_hat, *_ = np.linalg.lstsq(W, noisy, rcond=None)
    # the error is that of least squares: sigma^2 (W^T W)^-1 (a few standard deviations at most)
    std = sigma * np.sqrt(np.diag(np.linalg.inv(W.T @ W)))
    assert np.all(np.abs(beta_hat - beta) < 5 * std)
    assert np.abs(beta_hat - beta).max() < 1e-3
    # a full-pi least squares (minimum norm) gives different pi but the same beta
    Wf = regressor(m, q, v, a).reshape(-1, n_parameters(m))
    pi_hat, *_ = np.linalg.lstsq(Wf, noisy, rcond=None)
    assert np.abs(b.beta(pi_hat) - beta_hat).max() < 1e-6


def test_base_parameters_ur5_identification():
    found = robots(("ur5_robot",))
    if not found:
        pytest.skip("example-robot-data's ur5_robot is not installed")
    m = found[0]
    rng = np.random.default_rng(8)
    m = with_friction(m, rng)
    b = base_parameters(m, rng=0)
    beta = b.beta(model_to_parameters(m))
    q, v, a = random_states(m, 400, rng)
    tau = artidyn.rnea(m, q, v, a)
    W = b.regressor(regressor(m, q, v, a)).reshape(-1, b.rank)
    beta_hat, *_ = np.linalg.lstsq(W, tau.ravel(), rcond=None)
    assert np.abs(beta_hat - beta).max() < 1e-8 * (1 + np.abs(beta).max())
