"""Contact-aware inverse dynamics: least-effort torques and forces in the Coulomb cone, and the
feasibility report (a box on the ground and on a slope, a 2R arm pushing on the ground with its
tip, a body that would need the ground to pull), cross-checked against contact_dynamics.
"""

import numpy as np
import pytest

import artidyn as ad
from artidyn.contact import ContactSettings, contact_dynamics, contact_inverse_dynamics
from artidyn.geometry import Box, HalfSpace, Sphere

G = 9.81


def box(size=(0.3, 0.2, 0.1), m=2.0, gravity=(0.0, 0.0, -G)):
    b = ad.ModelBuilder("box", gravity=gravity)
    x, y, z = size
    b.add_body("box", "world", "free", mass=m, inertia=np.diag([y * y + z * z, x * x + z * z, x * x + y * y]) * m / 12)
    b.add_collision("box", Box(size))
    b.add_collision("world", HalfSpace(normal=(0, 0, 1), offset=0.0))
    model = b.build()
    q = ad.neutral(model)
    q[2] = z / 2
    return model, q


def world_forces(res):
    return np.einsum("kij,kj->ki", res.frames, res.forces)


@pytest.mark.parametrize("cone", ["soc", "pyramid"])
def test_box_at_rest_on_four_corners(cone):
    m = 2.0
    model, q = box(m=m)
    z = np.zeros(model.nv)
    res = contact_inverse_dynamics(model, q, z, z, ContactSettings(friction=0.5, cone=cone))
    assert res.status == "ok" and res.forces.shape == (4, 3)
    assert model.actuated.sum() == 0 and np.all(res.tau == 0.0)            # floating base: nothing actuated
    F = world_forces(res)
    np.testing.assert_allclose(F.sum(axis=0), [0.0, 0.0, m * G], atol=1e-9)
    C = ad.geometry.contact_candidates(model, ad.body_placements(model, q), margin=1e-3)
    moment = np.cross(C.point_a - q[:3], F).sum(axis=0)                   # about the COM (the box's centre)
    np.testing.assert_allclose(moment, 0.0, atol=1e-9)
    np.testing.assert_allclose(res.forces[:, 0], m * G / 4, rtol=1e-8)      # least norm: shared equally
    assert res.residual < 1e-9 and res.cone_violation == 0.0
    back = contact_dynamics(model, q, z, res.tau, ContactSettings(friction=0.5))
    np.testing.assert_allclose(back.a, 0.0, atol=1e-8)


@pytest.mark.parametrize("cone", ["soc", "pyramid"])
@pytest.mark.parametrize("theta_deg, mu, ok", [(20.0, 0.5, True), (30.0, np.tan(np.radians(30.0)), True),
                                               (30.0, 0.5, False), (20.0, 0.3, False)])
def test_box_on_a_slope_holds_when_mu_ge_tan_theta(theta_deg, mu, ok, cone):
    th = np.radians(theta_deg)
    m = 2.0
    model, q = box(m=m, gravity=(G * np.sin(th), 0.0, -G * np.cos(th)))
    z = np.zeros(model.nv)
    res = contact_inverse_dynamics(model, q, z, z, ContactSettings(friction=mu, cone=cone))
    assert np.all(np.isfinite(res.forces)) and np.all(np.isfinite(res.tau))
    if not ok:
        assert res.status == "infeasible" and res.residual > 1e-3
        return
    assert res.status == "ok" and res.residual < 1e-8 and res.cone_violation < 1e-9
    F = world_forces(res).sum(axis=0)
    np.testing.assert_allclose(F, [-m * G * np.sin(th), 0.0, m * G * np.cos(th)], atol=1e-8)
    np.testing.assert_allclose(np.hypot(F[0], F[1]), m * G * np.sin(th), rtol=1e-9)


def arm(q1_deg=20.0):
    """A planar 2R arm in the x-z plane (joints about y), links of 1 m, the tip a small sphere;
    the base at height 1.2 and the ground below; the elbow bent back, so that the ground can hold
    the arm up at rest."""
    b = ad.ModelBuilder("arm2r")
    b.add_body("l1", "world", "revolute", axis=(0, 1, 0), xyz=(0, 0, 1.2), mass=1.0, com=(0.5, 0, 0),
               inertia=np.diag([0.01, 0.1, 0.1]))
    b.add_body("l2", "l1", "revolute", axis=(0, 1, 0), xyz=(1.0, 0, 0), mass=1.0, com=(0.5, 0, 0),
               inertia=np.diag([0.01, 0.1, 0.1]))
    b.add_collision("l2", Sphere(0.01), xyz=(1.0, 0, 0))
    b.add_collision("world", HalfSpace())
    model = b.build()
    # tip on the ground: z_tip = 1.2 - sin(q1) - sin(q1 + q2) = 0.01 (rotation about y: z goes down)
    q1 = np.radians(q1_deg)
    q12 = np.pi - np.arcsin(1.2 - 0.01 - np.sin(q1))
    q = np.array([q1, q12 - q1])
    return model, q


def test_arm_tip_pushing_on_the_ground_frictionless_is_the_hand_least_norm_split():
    model, q = arm()
    T = ad.body_placements(model, q)
    C = ad.geometry.contact_candidates(model, T, margin=1e-3)
    assert len(C.distance) == 1
    z = np.zeros(model.nv)
    a = np.array([0.3, -0.2])                 # any motion: the actuated rows take the rest
    w = 1e-3
    res = contact_inverse_dynamics(model, q, z, a, ContactSettings(friction=0.0), weight=w)
    assert res.status == "ok"
    # by hand: tip Jacobian along the normal (0, 0, 1): z_tip = 1.2 - sin q1 - sin(q1 + q2)
    q1, q2 = q
    Jn = np.array([-np.cos(q1) - np.cos(q1 + q2), -np.cos(q1 + q2)])
    r = ad.rnea(model, q, z, a)
    lam_n = max(Jn @ r / (Jn @ Jn + w), 0.0)  # argmin |r - Jn lam|^2 + w lam^2 over lam >= 0
    assert lam_n > 1.0                        # the ground carries part of the load: it pushes
    np.testing.assert_allclose(res.forces[0], [lam_n, 0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(res.tau, r - Jn * lam_n, atol=1e-9)
    np.testing.assert_allclose(Jn @ res.tau, w * lam_n, atol=1e-9)          # optimality of the split


def test_arm_tip_sticking_with_friction_and_cross_check_with_forward_dynamics():
    model, q = arm()
    z = np.zeros(model.nv)
    s = ContactSettings(friction=0.8)
    w = 1e-6
    res = contact_inverse_dynamics(model, q, z, z, s, weight=w)
    assert res.status == "ok" and res.cone_violation == 0.0
    J = ad.contact.contact_jacobian(model, q, ad.geometry.contact_candidates(model, ad.body_placements(model, q),
                                                                           margin=1e-3))
    r = ad.rnea(model, q, z, z)
    lam = np.linalg.solve(J @ J.T + w * np.eye(3), J @ r)                 # inside the cone: unconstrained optimum
    assert np.hypot(lam[1], lam[2]) < 0.8 * lam[0]
    np.testing.assert_allclose(res.forces[0], lam, atol=1e-9)
    np.testing.assert_allclose(res.tau, r - J.T @ lam, atol=1e-9)
    assert np.max(np.abs(res.tau)) < 1e-4 * np.max(np.abs(r))             # the ground takes (almost) all the load
    back = contact_dynamics(model, q, z, res.tau, s)
    assert back.status == "ok" and back.modes == ["stick"]
    np.testing.assert_allclose(back.a, 0.0, atol=1e-8)
    np.testing.assert_allclose(back.forces[0, [0, 1]], res.forces[0, [0, 1]], atol=1e-6)


def two_feet(m=3.0):
    b = ad.ModelBuilder("biped")
    b.add_body("body", "world", "free", mass=m, inertia=np.eye(3) * 0.05)
    for y in (-0.1, 0.1):
        b.add_collision("body", Sphere(0.05), xyz=(0.0, y, -0.3))
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    q[2] = 0.35
    return model, q


@pytest.mark.parametrize("acc, ok", [((0, 0, 0, 0, 0, 4.0), True), ((0, 0, 0, 0, 0, -2 * G), False),
                                      ((0, 0, 0, 0, 1.0, 0), True), ((0, 0, 0, 0, 0.5 * G, 0), False),
                                      ((1000.0, 0, 0, 0, 0, 0), False)])
def test_two_feet_push_but_never_pull(acc, ok):
    m = 3.0
    model, q = two_feet(m)
    z = np.zeros(model.nv)
    a = np.array(acc, dtype=float)
    res = contact_inverse_dynamics(model, q, z, a, ContactSettings(friction=0.3))
    assert res.forces.shape == (2, 3) and np.all(np.isfinite(res.forces))
    if ok:
        assert res.status == "ok"
        np.testing.assert_allclose(world_forces(res).sum(axis=0), m * (np.array(acc[3:]) + [0, 0, G]), atol=1e-8)
    else:
        assert res.status == "infeasible" and res.residual > 1e-3


def test_no_contact_and_explicit_contacts_and_bad_input():
    model, q = two_feet()
    z = np.zeros(model.nv)
    high = q.copy()
    high[2] = 1.0
    g = np.array([0, 0, 0, 0, 0, -G])
    res = contact_inverse_dynamics(model, high, z, g)                       # free fall: nothing needed
    assert res.status == "ok" and res.forces.shape == (0, 3) and res.residual < 1e-12
    assert contact_inverse_dynamics(model, high, z, z).status == "infeasible"   # hovering needs a force
    C = ad.geometry.contact_candidates(model, ad.body_placements(model, q), margin=1e-3)
    one = type(C)(*(np.asarray(x)[:1] for x in C))
    res = contact_inverse_dynamics(model, q, z, z, ContactSettings(friction=0.5), contacts=one)
    assert res.status == "infeasible"                                       # one foot off the COM line tips over
    with pytest.raises(ad.errors.InputError, match="contacts"):
        contact_inverse_dynamics(model, q, z, z, contacts=[1, 2])
    with pytest.raises(ad.errors.InputError, match="weight"):
        contact_inverse_dynamics(model, q, z, z, weight=0.0)
    with pytest.raises(ValueError, match="actuated"):
        contact_inverse_dynamics(model, q, z, z, actuated=np.ones(3, bool))
    with pytest.raises(ValueError, match="a"):
        contact_inverse_dynamics(model, q, z, np.full(model.nv, np.nan))
    with pytest.raises(ValueError, match="settings"):
        contact_inverse_dynamics(model, q, z, z, settings={"friction": 0.5})


def test_a_box_at_rest_is_solved_exactly():
    """A box at rest on four corners: the least-effort forces carry its weight, in the cones."""
    model, q = box()
    z = np.zeros(model.nv)
    res = contact_inverse_dynamics(model, q, z, z, ContactSettings(friction=0.5))
    assert res.status == "ok" and res.cone_violation <= 1e-9 and res.residual <= 1e-8
    assert np.sum(res.forces[:, 0]) == pytest.approx(float(np.sum(model.mass)) * 9.81, rel=1e-8)


def test_arm_tip_on_the_cone_boundary_matches_a_generic_optimiser():
    """mu below |lambda_t| / lambda_n of the unconstrained optimum: the answer lies on the cone's
    boundary; SLSQP on the same objective (smooth there) agrees."""
    from scipy.optimize import minimize
    model, q = arm()
    z = np.zeros(model.nv)
    mu, w = 0.2, 1e-6
    res = contact_inverse_dynamics(model, q, z, z, ContactSettings(friction=mu), weight=w)
    assert res.status == "ok" and res.cone_violation < 1e-9
    lam = res.forces[0]
    assert np.hypot(lam[1], lam[2]) == pytest.approx(mu * lam[0], rel=1e-8)
    J = ad.contact.contact_jacobian(model, q, ad.geometry.contact_candidates(model, ad.body_placements(model, q),
                                                                           margin=1e-3))
    r = ad.rnea(model, q, z, z)
    f = lambda x: np.sum((r - J.T @ x) ** 2) + w * x @ x                 # noqa: E731
    ref = minimize(f, lam + [1.0, 0.0, 0.5], method="SLSQP", tol=1e-14,
                   constraints=[{"type": "ineq", "fun": lambda x: mu * x[0] - np.hypot(x[1], x[2])}]).x
    assert f(lam) <= f(ref) + 1e-9
    np.testing.assert_allclose(lam, ref, atol=1e-5)
    np.testing.assert_allclose(res.tau, r - J.T @ lam, atol=1e-12)
