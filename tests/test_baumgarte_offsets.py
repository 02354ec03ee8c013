"""Baumgarte stabilisation of constraints with a velocity offset b (``J v + b = 0``): the
stabilised acceleration constraint is ``J a = -(Jdot v + bdot) - 2 alpha (J v + b) - beta^2 phi``
(Baumgarte 1972). A driven joint (``JointPath``) has a closed form for its own acceleration, a
user ``Nonholonomic(A, b)`` row likewise; every route must keep b, not only ``Jdot v``."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.constraints import FramePath, JointPath, Nonholonomic, constraint_rows
from artidyn.kernels import reference_only

ALPHA, BETA = 3.0, 4.0
ROUTES = ["auto", "sparse", "kkt", "schur", "nullspace"]


def arm_state():
    model = ad.load("planar2r")
    return model, np.array([0.3, 0.7]), np.array([0.4, -0.9]), np.array([0.5, -0.2])


def driven(t):
    """joint1 follows 0.2 sin(2t): target, velocity, acceleration."""
    return JointPath("joint1", lambda s: 0.2 * np.sin(2 * s), lambda s: 0.4 * np.cos(2 * s),
                     lambda s: -0.8 * np.sin(2 * s))


def expected_driven(q, v, t):
    """a_1 from J a = bdot-free closed form: acc - 2 alpha (v1 - vel) - beta^2 (q1 - target)."""
    target, vel, acc = 0.2 * np.sin(2 * t), 0.4 * np.cos(2 * t), -0.8 * np.sin(2 * t)
    return acc - 2 * ALPHA * (v[0] - vel) - BETA ** 2 * (q[0] - target)


def equations(model, q, v, tau, cs, res, t):
    """M a + h = tau + J^T lambda, and the stabilised J a = -bias - 2 alpha (J v + b) - beta^2 phi,
    from crba, rnea and the constraint rows (b included)."""
    r = constraint_rows(model, q, v, cs, t)
    M = ad.crba(model, q)
    h = ad.rnea(model, q, v, np.zeros(model.nv))
    np.testing.assert_allclose(M @ res.a + h - r.J.T @ res.lambdas, tau, atol=1e-10)
    gamma = -r.bias - 2 * ALPHA * (r.J @ v + r.b) - BETA ** 2 * r.phi
    np.testing.assert_allclose(r.J @ res.a, gamma, atol=1e-10)
    return r


@pytest.mark.parametrize("route", ROUTES)
def test_joint_path_keeps_its_velocity_offset(route):
    model, q, v, tau = arm_state()
    t = 0.6
    cs = [driven(t)]
    for reference in (False, True):
        if reference:
            with reference_only():
                res = ad.constrained_dynamics(model, q, v, tau, cs, method=route, baumgarte=(ALPHA, BETA), t=t)
        else:
            res = ad.constrained_dynamics(model, q, v, tau, cs, method=route, baumgarte=(ALPHA, BETA), t=t)
        assert res.a[0] == pytest.approx(expected_driven(q, v, t), abs=1e-10)
        r = equations(model, q, v, tau, cs, res, t)
        assert abs(r.b[0]) > 0.1       # the offset is there to be kept


@pytest.mark.parametrize("route", ROUTES)
def test_nonholonomic_row_keeps_its_offset(route):
    # v_1 + 2 v_2 + 0.7 = 0: b = 0.7, A constant, so Adot v + bdot = 0 and J a = -2 alpha (J v + b)
    model, q, v, tau = arm_state()
    A = np.array([[1.0, 2.0]])
    cs = [Nonholonomic(lambda q_, t_: A, lambda q_, t_: np.array([0.7]), bias=lambda q_, v_, t_: np.zeros(1))]
    res = ad.constrained_dynamics(model, q, v, tau, cs, method=route, baumgarte=(ALPHA, BETA))
    assert (A @ res.a)[0] == pytest.approx(-2 * ALPHA * ((A @ v)[0] + 0.7), abs=1e-10)
    equations(model, q, v, tau, cs, res, 0.0)


def test_frame_path_keeps_its_offset_and_the_offset_matters():
    # the tool follows a circle: with b dropped, joint 1's acceleration would be another number
    model, q, v, tau = arm_state()
    t = 0.3
    circle = FramePath("tool", lambda s: np.array([1.2 + 0.25 * np.cos(s), 0.3 + 0.25 * np.sin(s), 0.0]),
                       lambda s: np.array([-0.25 * np.sin(s), 0.25 * np.cos(s), 0.0]),
                       lambda s: np.array([-0.25 * np.cos(s), -0.25 * np.sin(s), 0.0]))
    res = ad.constrained_dynamics(model, q, v, tau, [circle], baumgarte=(ALPHA, BETA), t=t)
    r = equations(model, q, v, tau, [circle], res, t)
    # the same solve without b in the stabilisation term (what a dropped offset would give)
    M, h = ad.crba(model, q), ad.rnea(model, q, v, np.zeros(model.nv))
    rows = np.flatnonzero(np.abs(r.J).sum(axis=1) > 0)
    J = r.J[rows]
    wrong = -r.bias[rows] - 2 * ALPHA * (J @ v) - BETA ** 2 * r.phi[rows]
    K = np.block([[M, -J.T], [J, np.zeros((len(rows), len(rows)))]])
    a_wrong = np.linalg.solve(K, np.concatenate([tau - h, wrong]))[:model.nv]
    assert abs(a_wrong[0] - res.a[0]) > 0.1


def test_simulated_driven_joint_follows_its_law():
    # a run with the stabilised path: joint 1 stays on 0.2 sin(2t) from a start on it
    model, _, _, _ = arm_state()
    path = driven(0.0)
    q0, v0 = np.array([0.0, 0.7]), np.array([0.4, 0.0])
    run = ad.simulate(model, q0, v0, t_final=1.0, dt=1e-3, constraints=[path], baumgarte=(ALPHA, BETA))
    np.testing.assert_allclose(run.q[:, 0], 0.2 * np.sin(2 * run.t), atol=1e-6)
    np.testing.assert_allclose(run.v[:, 0], 0.4 * np.cos(2 * run.t), atol=1e-5)
