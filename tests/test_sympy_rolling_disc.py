"""Sanity of the SymPy rolling-disc oracle (Kane & Levinson, "Dynamics: Theory and Applications").

Steady straight rolling, steady turning on a circle, energy conservation along an integration,
the upright stability threshold Omega^2 = g / (3 r) of a thin disc by linearisation, and the
pose and velocity maps against finite differences of the integrated motion.
"""
import numpy as np
import pytest

pytest.importorskip("sympy")
solve_ivp = pytest.importorskip("scipy.integrate").solve_ivp
Rotation = pytest.importorskip("scipy.spatial.transform").Rotation

from sympy_rolling_disc import (disc_energy, disc_state_to_free_body, disc_state_to_pose,  # noqa: E402
                                disc_velocity, rolling_disc_oracle)

R, M, G = 0.3, 1.7, 9.81


@pytest.fixture(scope="module")
def f():
    return rolling_disc_oracle(R, M, G)


def rhs(f):
    def fun(t, x):
        qd, ud = f(x[:5], x[5:])
        return np.r_[qd, ud]
    return fun


def test_straight_rolling_is_steady(f):
    spin, q1 = 7.0, 0.4
    qd, ud = f([q1, 0.0, 1.2, 0.5, -0.2], [0.0, spin, 0.0])
    np.testing.assert_allclose(ud, 0, atol=1e-12)
    np.testing.assert_allclose(qd, [0, 0, spin, R * spin * np.cos(q1), R * spin * np.sin(q1)], atol=1e-12)


def steady_turn_spin(theta, psi_d):
    """u2 from the steady-turning relation of the oracle's docstring (thin disc)."""
    s, c = np.sin(theta), np.cos(theta)
    return (R / 4 * psi_d**2 * s * c - G * s) / (1.5 * R * psi_d * c)


@pytest.mark.parametrize("theta, psi_d", [(0.3, 2.0), (-0.5, 3.0), (0.2, -6.0)])
def test_steady_turning_relation(f, theta, psi_d):
    u2 = steady_turn_spin(theta, psi_d)
    q = [0.1, theta, 0.3, 0.0, 0.0]
    u = [0.0, u2, psi_d * np.cos(theta)]
    qd, ud = f(q, u)
    np.testing.assert_allclose(ud, 0, atol=1e-11)
    np.testing.assert_allclose(qd[:2], [psi_d, 0], atol=1e-12)
    # a spin 1 % off the relation is not steady: the lean starts to change
    _, ud_off = f(q, [0.0, 1.01 * u2, psi_d * np.cos(theta)])
    assert abs(ud_off[0]) > 1e-3
    # integrated, the contact point stays on a circle of radius r q3' / psi_d
    sol = solve_ivp(rhs(f), (0, 1.0), np.r_[q, u], rtol=1e-11, atol=1e-12, dense_output=True)
    xy = sol.sol(np.linspace(0, 1.0, 20))[3:5].T
    rho = R * qd[2] / psi_d
    centre = np.array([0.0, 0.0]) + rho * np.array([-np.sin(0.1), np.cos(0.1)])
    np.testing.assert_allclose(np.linalg.norm(xy - centre, axis=1), abs(rho), atol=1e-8)
    np.testing.assert_allclose(sol.y[1, -1], theta, atol=1e-8)


def test_energy_conserved(f):
    x0 = np.r_[0.2, 0.25, 0.0, 0.0, 0.0, 0.8, 6.0, -1.5]
    sol = solve_ivp(rhs(f), (0, 2.0), x0, rtol=1e-11, atol=1e-12, dense_output=True)
    assert sol.success
    E = [disc_energy(x[:5], x[5:], R, M, G) for x in sol.sol(np.linspace(0, 2.0, 50)).T]
    assert np.ptp(E) < 1e-8 * abs(E[0])
    assert np.ptp(sol.y[1]) > 0.05          # the lean did move: a non-trivial motion


def lean_jacobian(f, spin, h=1e-6):
    """Jacobian of (q2', u1', u2', u3') in (q2, u1, u2, u3) at upright straight rolling."""
    x0 = np.array([0.0, 0.0, spin, 0.0])

    def g(x):
        qd, ud = f([0.0, x[0], 0.0, 0.0, 0.0], x[1:])
        return np.r_[qd[1], ud]
    return np.column_stack([(g(x0 + h * e) - g(x0 - h * e)) / (2 * h) for e in np.eye(4)])


@pytest.mark.parametrize("ratio", [0.5, 0.95, 1.05, 2.0])
def test_upright_stability_threshold(f, ratio):
    """Omega^2 = ratio * g / (3 r): unstable below 1 (one real positive eigenvalue), stable above;
    the nonzero eigenvalues are +/- sqrt((4/5)(g/r - 3 Omega^2))."""
    spin = np.sqrt(ratio * G / (3 * R))
    lam = np.linalg.eigvals(lean_jacobian(f, spin))
    lam2 = 0.8 * (G / R - 3 * spin**2)
    expected = np.sqrt(complex(lam2)) * np.array([1, -1])
    nonzero = lam[np.argsort(-np.abs(lam))][:2]
    np.testing.assert_allclose(np.sort_complex(nonzero), np.sort_complex(expected), atol=1e-5)
    if ratio < 1:
        assert np.max(lam.real) > 0.1
    else:
        assert np.max(np.abs(lam.real)) < 1e-5


def test_pose_and_velocity_maps(f):
    """disc_velocity equals the time derivative of disc_state_to_pose along the motion."""
    x0 = np.r_[0.2, 0.35, 0.1, 0.4, -0.3, 0.5, 5.0, 1.0]
    sol = solve_ivp(rhs(f), (0, 0.5), x0, rtol=1e-12, atol=1e-13, dense_output=True)
    t, h = 0.3, 1e-5
    x = sol.sol(t)
    Rm, c = disc_state_to_pose(x[:5], R)
    Rp, cp = disc_state_to_pose(sol.sol(t + h)[:5], R)
    Rn, cn = disc_state_to_pose(sol.sol(t - h)[:5], R)
    W = (Rp - Rn) / (2 * h) @ Rm.T
    omega, v = disc_velocity(x[:5], x[5:], R)
    np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], omega, atol=1e-6)
    np.testing.assert_allclose((cp - cn) / (2 * h), v, atol=1e-6)
    # conventions: centre height r cos(lean), axis = second column, contact point below the centre
    np.testing.assert_allclose(c[2], R * np.cos(x[1]), atol=1e-14)
    np.testing.assert_allclose(Rm[:, 1], [-np.cos(x[1]) * np.sin(x[0]), np.cos(x[1]) * np.cos(x[0]), np.sin(x[1])],
                               atol=1e-14)
    np.testing.assert_allclose(np.linalg.norm(c - np.r_[x[3], x[4], 0]), R, atol=1e-14)
    assert abs((c - np.r_[x[3], x[4], 0]) @ Rm[:, 1]) < 1e-14      # contact point in the disc plane
    q7, v6 = disc_state_to_free_body(x[:5], x[5:], R)
    np.testing.assert_allclose(q7[:3], c, atol=1e-14)
    np.testing.assert_allclose(Rotation.from_quat(q7[3:]).as_matrix(), Rm, atol=1e-14)
    np.testing.assert_allclose(Rm @ v6[:3], omega, atol=1e-12)
    np.testing.assert_allclose(Rm @ v6[3:], v, atol=1e-12)
