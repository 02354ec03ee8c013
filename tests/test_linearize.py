"""Derivatives of the engine's semi-implicit Euler step and of integrate, against finite differences
on the manifold and against the engine's own step."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.configuration import difference, dintegrate, integrate
from artidyn.errors import InputError
from artidyn.models.zoo import random_tree
from artidyn.sim import step_derivatives


def _fd_state(model, q, v, tau, h, dx=None, du=None, eps=1e-6):
    """Central differences of (q+, v+) in the tangent coordinates at the unperturbed q+."""
    from artidyn.sim.integrate import semi_implicit_step
    f = lambda t, Q, V: (ad.aba(model, Q, V, np.broadcast_to(tau_of[0], V.shape)), None)  # noqa: E731
    tau_of = [tau]
    q0n, v0n, _, _ = semi_implicit_step(model, f, 0.0, q[None], v[None], h)
    n = model.nv
    cols = []
    for k in range(2 * n + n):
        out = []
        for sgn in (1.0, -1.0):
            dq, dv, du_ = np.zeros(n), np.zeros(n), np.zeros(n)
            if k < n:
                dq[k] = sgn * eps
            elif k < 2 * n:
                dv[k - n] = sgn * eps
            else:
                du_[k - 2 * n] = sgn * eps
            tau_of[0] = tau + du_
            qn, vn, _, _ = semi_implicit_step(model, f, 0.0, integrate(model, q, dq)[None], (v + dv)[None], h)
            out.append(np.concatenate([difference(model, q0n[0], qn[0]), vn[0] - v0n[0]]))
        tau_of[0] = tau
        cols.append((out[0] - out[1]) / (2 * eps))
    J = np.array(cols).T
    return q0n[0], v0n[0], J[:, :2 * n], J[:, 2 * n:]


@pytest.mark.parametrize("floating", [False, True])
def test_step_derivatives_against_finite_differences(floating, rng):
    model = random_tree(rng, nb=4, floating=floating, joint_types=("revolute", "prismatic", "spherical"))
    q, v = ad.random_configuration(model, rng), ad.random_velocity(model, rng)
    tau = rng.normal(size=model.nv)
    h = 0.01
    d = step_derivatives(model, q, v, tau, h)
    qn, vn, A, B = _fd_state(model, q, v, tau, h)
    assert np.abs(d.q_next - qn).max() < 1e-14 and np.abs(d.v_next - vn).max() < 1e-14 * (1 + np.abs(vn).max())
    assert np.abs(d.A - A).max() < 1e-6 * (1 + np.abs(A).max())
    assert np.abs(d.B - B).max() < 1e-6 * (1 + np.abs(B).max())


def test_step_derivatives_on_a_real_robot():
    model = ad.models.example_robot("solo12")
    rng = np.random.default_rng(3)
    q, v = ad.random_configuration(model, rng), ad.random_velocity(model, rng)
    tau = rng.normal(size=model.nv)
    d = step_derivatives(model, q, v, tau, 1e-3)
    qn, vn, A, B = _fd_state(model, q, v, tau, 1e-3)
    assert np.abs(d.A - A).max() < 1e-5 * (1 + np.abs(A).max())
    assert np.abs(d.B - B).max() < 1e-5 * (1 + np.abs(B).max())


def test_dintegrate_against_finite_differences(rng):
    model = random_tree(rng, nb=4, floating=True, joint_types=("revolute", "spherical"))
    q, v = ad.random_configuration(model, rng), rng.normal(size=model.nv) * 0.7
    Jq, Jv = dintegrate(model, q, v)
    base, eps = integrate(model, q, v), 1e-6
    for k in range(model.nv):
        e = np.zeros(model.nv)
        e[k] = eps
        fq = (difference(model, base, integrate(model, integrate(model, q, e), v))
              - difference(model, base, integrate(model, integrate(model, q, -e), v))) / (2 * eps)
        fv = (difference(model, base, integrate(model, q, v + e)) - difference(model, base, integrate(model, q, v - e))) \
            / (2 * eps)
        assert np.abs(fq - Jq[:, k]).max() < 1e-8 and np.abs(fv - Jv[:, k]).max() < 1e-8


def test_step_derivatives_errors():
    model = ad.load("planar2r")
    with pytest.raises(InputError, match="semi-implicit"):
        step_derivatives(model, np.zeros(2), np.zeros(2), np.zeros(2), 0.01, method="dopri5")
    with pytest.raises(InputError, match="positive"):
        step_derivatives(model, np.zeros(2), np.zeros(2), np.zeros(2), -1.0)


def test_rk4_step_derivatives_against_finite_differences(rng):
    """The engine's RK4 step (readable stepper) and its derivatives on a fixed-base random tree of
    revolute, prismatic and cylindrical joints, against central differences (1e-7 relative)."""
    from artidyn.sim.integrate import rk4_step
    model = random_tree(rng, nb=5, floating=False, joint_types=("revolute", "prismatic", "cylindrical"))
    model = model.replace(damping=np.full(model.nv, 0.3))
    q, v = ad.random_configuration(model, rng), ad.random_velocity(model, rng)
    tau, h = rng.normal(size=model.nv), 0.01
    n = model.nv

    def step(x, u):
        f = lambda t, Q, V: (ad.aba(model, Q, V, np.broadcast_to(u, V.shape)), None)  # noqa: E731
        qn, vn, _, _ = rk4_step(model, f, 0.0, x[:n][None], x[n:][None], h)
        return np.concatenate([qn[0], vn[0]])
    d = step_derivatives(model, q, v, tau, h, method="rk4")
    x0 = np.concatenate([q, v])
    assert np.abs(np.concatenate([d.q_next, d.v_next]) - step(x0, tau)).max() < 1e-13
    eps = 1e-6
    A = np.column_stack([(step(x0 + eps * e, tau) - step(x0 - eps * e, tau)) / (2 * eps) for e in np.eye(2 * n)])
    B = np.column_stack([(step(x0, tau + eps * e) - step(x0, tau - eps * e)) / (2 * eps) for e in np.eye(n)])
    assert np.abs(d.A - A).max() < 1e-7 * (1 + np.abs(A).max())
    assert np.abs(d.B - B).max() < 1e-7 * (1 + np.abs(B).max())


@pytest.mark.parametrize("h", [0.01, 0.05])
def test_rkmk4_step_derivatives_on_curved_charts(h, rng):
    """Free flyer and spherical joints (a curved chart): the RKMK4 step's derivatives against central
    differences on the manifold (perturbed q = q (+) dq, q+ compared in the tangent space at q+),
    with a longer step (0.05 s: chart rotations of tenths of a radian, where the dexp^-1 terms count) too."""
    from artidyn.sim.integrate import rk4_step
    model = random_tree(rng, nb=4, floating=True, joint_types=("spherical", "revolute", "prismatic"))
    q, v = ad.random_configuration(model, rng), 2.0 * ad.random_velocity(model, rng)
    tau, n = rng.normal(size=model.nv), model.nv

    def step(dq, dv, du):
        f = lambda t, Q, V: (ad.aba(model, Q, V, np.broadcast_to(tau + du, V.shape)), None)  # noqa: E731
        qn, vn, _, _ = rk4_step(model, f, 0.0, integrate(model, q, dq)[None], (v + dv)[None], h)
        return qn[0], vn[0]
    q0n, v0n = step(np.zeros(n), np.zeros(n), np.zeros(n))
    d = step_derivatives(model, q, v, tau, h, method="rk4")
    assert np.abs(d.q_next - q0n).max() < 1e-13 and np.abs(d.v_next - v0n).max() < 1e-12
    eps, cols = 1e-6, []
    for k in range(3 * n):
        out = []
        for sgn in (1.0, -1.0):
            e = np.zeros(3 * n)
            e[k] = sgn * eps
            qn, vn = step(e[:n], e[n:2 * n], e[2 * n:])
            out.append(np.concatenate([difference(model, q0n, qn), vn - v0n]))
        cols.append((out[0] - out[1]) / (2 * eps))
    J = np.array(cols).T
    assert np.abs(J[:n, :n] - np.eye(n)).max() > 1e-2, "the step must move the chart: a real check"
    assert np.abs(d.A - J[:, :2 * n]).max() < 1e-7 * (1 + np.abs(J).max())
    assert np.abs(d.B - J[:, 2 * n:]).max() < 1e-7 * (1 + np.abs(J).max())


def test_dexp_inv_jacobians_against_the_series(rng):
    from artidyn.configuration import dexp_inv, dexp_inv_jacobians
    model = random_tree(rng, nb=3, floating=True, joint_types=("spherical", "revolute"))
    xi, v = 0.8 * rng.normal(size=model.nv), rng.normal(size=model.nv)
    G, D = dexp_inv_jacobians(model, xi, v)
    np.testing.assert_allclose(G @ v, dexp_inv(model, xi, v), atol=1e-14)
    eps = 1e-6
    fd = np.column_stack([(dexp_inv(model, xi + eps * e, v) - dexp_inv(model, xi - eps * e, v)) / (2 * eps)
                          for e in np.eye(model.nv)])
    np.testing.assert_allclose(D, fd, atol=1e-8)
    assert np.abs(D).max() > 0.1
