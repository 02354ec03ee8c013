"""Built-in robots: sizes, masses, frames, and the seed's equations of motion (seed 002)."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.models import builtin

EXPECTED = {  # name: (nq, joint kinds, total mass)
    "puma560": (6, ["revolute"] * 6, 10 + 17.4 + 4.8 + 0.82 + 0.34 + 0.09),
    "rx90": (6, ["revolute"] * 6, sum(builtin.RX90_MASS)),
    "planar2r": (2, ["revolute"] * 2, 2.0),
    "pendulum": (1, ["revolute"], 1.0),
    "cart_pendulum": (2, ["prismatic", "revolute"], 2.0),
    "flexible_beam": (10, ["revolute"] * 10, 1.0),
}


def test_names_and_get():
    assert ad.models.names() == list(EXPECTED)
    assert ad.models.get("planar_2r").name == "planar2r" and ad.models.get("Puma-560").name == "puma560"
    with pytest.raises(ad.NameNotFound, match="did you mean 'rx90'"):
        ad.models.get("rx9")


@pytest.mark.parametrize("name", list(EXPECTED))
def test_builtin_builds(name, rng):
    model = ad.models.get(name)
    nq, kinds, mass = EXPECTED[name]
    assert model.nq == model.nv == model.nb == nq
    assert model.joint_kind[1:] == kinds
    assert model.total_mass == pytest.approx(mass)
    assert "tool" in model.frame_names
    assert model.body_names[-1] in model.frame_names
    for i in range(1, model.nb + 1):  # physically valid inertias (principal moments, triangle)
        e = np.linalg.eigvalsh(model.inertia_com[i])
        assert e.min() >= -1e-12 and e[0] + e[1] >= e[2] - 1e-12
    if model.dh:
        dh_frames = [n for n in model.frame_names if n.startswith("dh") or n == "base"]
        assert dh_frames == [f"dh{i}" for i in range(1, nq + 1)] + ["base"]
    T = ad.body_placements(model, rng.uniform(-1, 1, (2, nq)))
    assert T.shape == (2, nq + 1, 4, 4) and np.all(np.isfinite(T))


def test_puma560_options():
    plain = ad.models.puma560(motors=False)
    fric = ad.models.puma560(friction=True)
    assert np.all(plain.armature == 0) and np.all(plain.damping == 0)
    G, B = np.array(builtin.PUMA560_G), np.array(builtin.PUMA560_B)
    assert fric.damping == pytest.approx(B * G**2)
    assert fric.coulomb == pytest.approx(np.abs(G) * np.abs(builtin.PUMA560_TC).mean(axis=1))
    assert np.degrees(plain.upper) == pytest.approx([q[1] for q in builtin.PUMA560_QLIM_DEG])


def test_rx90_wrist_centre_analytic(rng):
    """Khalil's RX-90: O_4 = Rz(q1) (D3 c2 + RL4 s23, 0, -D3 s2 + RL4 c23), D3 = RL4 = 0.5."""
    model = ad.models.rx90()
    Q = rng.uniform(-np.pi, np.pi, (5, 6))
    p = ad.frame_placement(model, Q, "link4")[:, :3, 3]
    q1, q2, q23 = Q[:, 0], Q[:, 1], Q[:, 1] + Q[:, 2]
    r = 0.5 * np.cos(q2) + 0.5 * np.sin(q23)
    expect = np.stack([np.cos(q1) * r, np.sin(q1) * r, -0.5 * np.sin(q2) + 0.5 * np.cos(q23)], 1)
    assert np.abs(p - expect).max() < 1e-14
    # spherical wrist: frames 4, 5, 6 share the origin
    for f in ("link5", "link6", "tool"):
        assert np.abs(ad.frame_placement(model, Q, f)[:, :3, 3] - p).max() < 1e-14


# --- seed 002: equations of motion of the examples, through inverse dynamics -------------------
needs_rnea = pytest.mark.skipif(not hasattr(ad, "rnea"), reason="artidyn.rnea not available")


@needs_rnea
@pytest.mark.parametrize("rod", [False, True])
def test_pendulum_seed_equation(rod, rng):
    """(I_1z + m a^2) q'' + m a g sin q = u, x axis down, q = 0 hanging (seed 002, example 1)."""
    m, l, izz, g = 1.3, 0.8, 0.02, 9.81
    model = ad.models.pendulum(m=m, l=l, izz=izz, g=g, rod=rod)
    a, I = (l / 2, m * l**2 / 12) if rod else (l, izz)
    q, v, acc = rng.uniform(-3, 3, (3, 4, 1))
    u = ad.rnea(model, q, v, acc)
    assert np.abs(u - ((I + m * a**2) * acc + m * a * g * np.sin(q))).max() < 1e-12
    assert ad.frame_placement(model, np.zeros(1), "tool")[:3, 3] == pytest.approx([l, 0, 0])


@needs_rnea
def test_cart_pendulum_seed_equation(rng):
    """M = [[m1+m2, -m2 a2 s], [-m2 a2 s, I2z + m2 a2^2]], k = (-m2 a2 phi'^2 c, 0),
    g = (0, m2 g a2 c) (seed 002, example 2)."""
    m1, m2, a2, d, i2z, g = 2.0, 0.7, 0.6, 0.15, 0.03, 9.81
    model = ad.models.cart_pendulum(m1=m1, m2=m2, a2=a2, d=d, i2z=i2z, g=g)
    Q, V, A = rng.uniform(-2, 2, (3, 4, 2))
    s, c = np.sin(Q[:, 1]), np.cos(Q[:, 1])
    tau = ad.rnea(model, Q, V, A)
    t1 = (m1 + m2) * A[:, 0] - m2 * a2 * s * A[:, 1] - m2 * a2 * V[:, 1] ** 2 * c
    t2 = -m2 * a2 * s * A[:, 0] + (i2z + m2 * a2**2) * A[:, 1] + m2 * g * a2 * c
    assert np.abs(tau - np.stack([t1, t2], 1)).max() < 1e-12
    # hinge A at x + d, centre of mass C2 at a2 from A
    com = ad.frame_placement(model, Q, "pendulum")[:, :3, :3] @ np.array([a2, 0, 0])
    pivot = ad.frame_placement(model, Q, "pendulum")[:, :3, 3]
    assert np.allclose(pivot[:, 0], Q[:, 0] + d) and np.allclose(com[:, :2], a2 * np.stack([c, s], 1))


@needs_rnea
def test_planar_2r_equation(rng):
    """Planar 2R, gravity -y: the classic M, Coriolis and gravity terms (seed 002, example 3)."""
    l1, m1, m2, a1, a2, I1, I2, g = 0.9, 1.5, 0.8, 0.4, 0.3, 0.05, 0.02, 9.81
    model = ad.models.planar_2r(l1=l1, l2=0.6, m1=m1, m2=m2, a1=a1, a2=a2, i1z=I1, i2z=I2, g=g)
    Q, V, A = rng.uniform(-2, 2, (3, 4, 2))
    c2, s2 = np.cos(Q[:, 1]), np.sin(Q[:, 1])
    c1, c12 = np.cos(Q[:, 0]), np.cos(Q.sum(1))
    M11 = I1 + m1 * a1**2 + I2 + m2 * (l1**2 + a2**2 + 2 * l1 * a2 * c2)
    M12 = I2 + m2 * (a2**2 + l1 * a2 * c2)
    M22 = I2 + m2 * a2**2
    h = m2 * l1 * a2 * s2
    t1 = M11 * A[:, 0] + M12 * A[:, 1] - h * (2 * V[:, 0] * V[:, 1] + V[:, 1] ** 2) \
        + (m1 * a1 + m2 * l1) * g * c1 + m2 * a2 * g * c12
    t2 = M12 * A[:, 0] + M22 * A[:, 1] + h * V[:, 0] ** 2 + m2 * a2 * g * c12
    assert np.abs(ad.rnea(model, Q, V, A) - np.stack([t1, t2], 1)).max() < 1e-12
