"""Prescribed motions in simulate (artidyn.sim.Prescribed): the engine sets the named joints to
their motion and integrates the others by hybrid dynamics (Featherstone, "Rigid Body Dynamics
Algorithms", sec. 9.2). Checked against the readable hybrid dynamics integrated by scipy, against
the RNEA when every joint is prescribed, and against the conservation of momentum of a floating
robot whose joints move with no gravity."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import artidyn as ad
from artidyn.errors import InputError, NameNotFound
from artidyn.kernels import reference_only
from artidyn.sim import PD, Prescribed, quintic_motion

A, W = 0.1, 2 * np.pi          # the cart's motion x = A sin(W t)
DT = 1e-3


def cart(t):
    return A * np.sin(W * t), A * W * np.cos(W * t), -A * W * W * np.sin(W * t)


def test_a_pendulum_on_a_driven_cart_equals_the_readable_hybrid_dynamics():
    """The built-in cart-pendulum (seed 002), its slider driven along x = A sin(W t): the hinge's
    angle equals scipy's integration of the readable hybrid dynamics (1e-9), and result.tau on the
    slider is the force that the motion needs, the readable hybrid's at each sample (1e-8)."""
    model = ad.models.cart_pendulum()
    t_ref = np.arange(0, 2.0 + DT / 4, DT / 2)             # the rk4 stages fall on samples
    x, xd, xdd = cart(t_ref)
    q_ref = np.stack([x, np.zeros_like(x)], 1)
    motion = Prescribed("slider", q_ref, np.stack([xd, 0 * x], 1), np.stack([xdd, 0 * x], 1), t_ref)
    r = ad.simulate(model, [0.0, 0.3], [A * W, 0.0], t_final=2.0, dt=DT, method="rk4", controller=motion)
    np.testing.assert_allclose(r.q[:, 0], cart(r.t)[0], atol=1e-12)

    def f(t, y):
        x, xd, xdd = cart(t)
        with reference_only():
            h = ad.hybrid_dynamics(model, [x, y[0]], [xd, y[1]], [xdd, 0.0], [0.0, 0.0], ["slider"])
        return [y[1], h.a[1]]
    ref = solve_ivp(f, (0, 2.0), [0.3, 0.0], method="DOP853", rtol=1e-12, atol=1e-12, t_eval=r.t)
    np.testing.assert_allclose(r.q[:, 1], ref.y[0], atol=1e-9)
    np.testing.assert_allclose(r.v[:, 1], ref.y[1], atol=1e-8)
    for k in (0, 500, 1500, 2000):
        x, xd, xdd = cart(r.t[k])
        with reference_only():
            h = ad.hybrid_dynamics(model, r.q[k], r.v[k], [xdd, 0.0], [0.0, 0.0], ["slider"])
        assert r.tau[k, 0] == pytest.approx(h.tau[0], abs=1e-8)
        assert r.tau[k, 1] == 0.0 and r.a[k, 0] == pytest.approx(xdd, abs=1e-12)


def test_every_joint_prescribed_is_inverse_dynamics():
    """ur5 with all its joints on a quintic: the run follows it exactly, and the torques are the
    RNEA's along it."""
    model = ad.load("ur5_robot")
    q0, q1 = ad.neutral(model), np.array([0.5, -1.0, 1.2, -0.4, 0.8, 0.3])
    t = np.arange(0, 0.5 + DT / 4, DT / 2)
    q, v, a = quintic_motion(model, q0, q1, 0.5, t)
    motion = Prescribed(model.joint_names[1:], q, v, a, t)
    r = ad.simulate(model, q0, t_final=0.5, dt=DT, method="rk4", controller=motion)
    np.testing.assert_allclose(r.q, q[::2], atol=1e-12)
    np.testing.assert_allclose(r.tau, ad.rnea(model, q[::2], v[::2], a[::2]), rtol=1e-9, atol=1e-9)


def test_a_floating_robot_moving_its_joints_keeps_its_momentum():
    """solo12 with no gravity, its joints on a quintic, its base free (the astronaut's problem):
    the centre of mass does not move and the momentum stays zero (1e-9), while the base turns and
    moves; the base needs no force (its torques are zero: it is free)."""
    model = ad.load("solo12").replace(gravity=np.zeros(3))
    q0 = ad.neutral(model)
    q1 = q0.copy()
    q1[7:] = np.tile([0.3, 0.9, -1.6], 4)
    t = np.arange(0, 0.4 + DT / 4, DT / 2)
    q, v, a = quintic_motion(model, q0, q1, 0.4, t)
    joints = [n for n in model.joint_names[1:] if n != "root_joint"]
    r = ad.simulate(model, q0, t_final=0.4, dt=DT, method="rk4", controller=Prescribed(joints, q, v, a, t))
    np.testing.assert_allclose(r.q[-1, 7:], q1[7:], atol=1e-12)
    c = ad.center_of_mass(model, r.q)
    np.testing.assert_allclose(c - c[0], 0.0, atol=1e-9)
    np.testing.assert_allclose(ad.centroidal_momentum(model, r.q, r.v), 0.0, atol=1e-9)
    assert np.abs(r.q[-1, :7] - q0[:7]).max() > 1e-3          # the base moved to keep the balance
    np.testing.assert_allclose(r.tau[:, :6], 0.0)


def test_prescribed_motions_refuse_what_they_cannot_do():
    model = ad.models.cart_pendulum()
    with pytest.raises(NameNotFound, match="slider"):
        ad.simulate(model, [0, 0], controller=Prescribed("slidr", [0.0, 0.0]), t_final=0.01)
    with pytest.raises(InputError, match="method 'rk4', 'semi-implicit' or 'dopri5'"):
        ad.simulate(model, [0, 0], controller=Prescribed("slider", [0.0, 0.0]), t_final=0.01, method="implicit")
    with pytest.raises(InputError, match="without contact= and constraints="):
        ad.simulate(model, [0, 0], controller=Prescribed("slider", [0.0, 0.0]), t_final=0.01,
                    contact=ad.contact.ContactSettings())
    with pytest.raises(InputError, match="joint name or a list"):
        Prescribed(3, [0.0, 0.0])
    held = ad.simulate(model, [0.0, 0.5], controller=Prescribed("slider", [0.0, 0.0]), t_final=0.2, dt=DT)
    assert np.all(held.q[:, 0] == 0.0) and held.method == "rk4"    # a constant q_ref holds the joint
    assert isinstance(PD(1.0, 1.0, [0, 0]), ad.sim.PD)
