"""Servo-constraints through the Moreau-Jean pipeline (``simulate(..., servo=, contact=)``): the
relations become rows of each step beside the contacts, their forces along the servo's directions
(Appell's servo-constraints; Béghin's realisation by regulated actuators)."""
import numpy as np
import pytest
import sympy as sp

import artidyn as ad
from artidyn import servo
from artidyn.constraints import Coupling, JointPath
from artidyn.contact import ContactSettings
from artidyn.errors import InputError
from artidyn.geometry import Collision, HalfSpace, Sphere
from artidyn.sim.contact_run import simulate_contact

R = 0.05                       # the tool's ball


def arm_over_ground(floor_y):
    """The planar 2R arm (1 m links, gravity -y) with a ball of radius R at its tool and the ground
    y >= floor_y (a half-space whose normal is +y)."""
    arm = ad.models.planar_2r()
    T2 = ad.kinematics.body_placements(arm, np.zeros(2))[2]
    tool = np.linalg.solve(T2, ad.kinematics.frame_placement(arm, np.zeros(2), "tool"))
    ground = np.array([[1.0, 0, 0, 0], [0, 0, 1, floor_y], [0, -1, 0, 0], [0, 0, 0, 1]])   # its z along +y
    return arm.replace(collisions=[Collision("ball", 2, Sphere(R), tool), Collision("ground", 0, HalfSpace(), ground)])


def tip(arm, q):
    return ad.kinematics.frame_placement(arm, q, "tool")[:3, 3]


def test_ideal_servo_equals_the_constraint():
    """Directions equal to the relation's rows (D = E): the servo is an ideal constraint, and the
    pipeline's run equals the same relation given as constraints=, step for step; the servo forces
    equal the constraint forces."""
    arm = arm_over_ground(-10.0)
    gear = Coupling("joint2", "joint1", ratio=-0.5, offset=0.2)          # q2 = -0.5 q1 + 0.2
    q0, v0 = np.array([0.4, 0.0]), np.array([0.6, -0.3])
    s = ContactSettings(friction=0.0)
    a = ad.simulate(arm, q0, v0, t_final=0.2, dt=1e-3, contact=s,
                    servo=servo.ModelServo(arm, [gear], directions=gear.jacobian(arm, q0)))
    b = simulate_contact(arm, q0, v0, 0.0, 0.2, 1e-3, s, route="reference", constraints=[gear])
    assert a.stats["route"] == "reference"
    np.testing.assert_allclose(a.q, b.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(a.v, b.v, rtol=0, atol=1e-11)
    np.testing.assert_allclose(a.servo_forces[:, 0], b.constraint_forces[:, 0], rtol=1e-9, atol=1e-9)
    assert np.abs(a.q[:, 1] + 0.5 * a.q[:, 0] - 0.2).max() < 1e-9      # the relation held


def test_underactuated_servo_converges_to_the_rk4_servo_run():
    """The hanging arm's joint 1 swings as -pi/2 + 0.2 sin 2t with the force on joint 2 only (E = e_1,
    D = e_2: not ideal; the elbow swings to move the shoulder), far above the ground: the Moreau-Jean
    run converges at first order to the servo solver's RK4 run (its error halves with the step), keeps
    the relation, and its energy balance holds with the servo's work."""
    arm = arm_over_ground(-10.0)
    path = JointPath("joint1", lambda t: -np.pi / 2 + 0.2 * np.sin(2.0 * t))
    ms = servo.ModelServo(arm, [path], directions="joint2")
    q0, v0 = np.array([-np.pi / 2, 0.3]), np.array([0.4, 0.0])
    ref = ad.simulate(arm, q0, v0, t_final=0.4, dt=5e-4, servo=ms)          # RK4: exact to ~1e-12 here
    errs = []
    for dt in (2e-3, 1e-3):
        r = ad.simulate(arm, q0, v0, t_final=0.4, dt=dt, servo=ms, contact=ContactSettings())
        assert np.abs(r.q[:, 0] - (-np.pi / 2 + 0.2 * np.sin(2.0 * r.t))).max() < 1e-9
        errs.append(np.abs(r.q[-1] - ref.q[-1]).max())
        np.testing.assert_allclose(r.servo_forces[-1], ref.servo_forces[-1], rtol=0.05)
        E = r.energy.kinetic + r.energy.potential
        assert abs(E[-1] - E[0] - r.servo_work[-1]) < 2e-2 * np.abs(r.servo_work).max()
    assert errs[1] < 0.6 * errs[0] and errs[1] < 5e-4         # first order: the error halves with dt


def test_servo_holding_an_arm_resting_on_the_ground_balances_gravity():
    """The tool's ball rests on a frictionless ground; joint 1 is held at its angle by a force on joint
    2 (a non-ideal servo). At rest the statics close: joint 1 has only the contact's moment,
    g_1 = (J^T n)_1 f_n, and the servo force is what joint 2 lacks, mu = g_2 - (J^T n)_2 f_n."""
    q = np.array([-0.3, -0.5])
    arm = arm_over_ground(0.0)
    floor = tip(arm, q)[1] - R
    arm = arm_over_ground(floor)
    ms = servo.ModelServo(arm, [JointPath("joint1", lambda t: -0.3 + 0.0 * t)], directions="joint2")
    r = ad.simulate(arm, q, np.zeros(2), t_final=0.3, dt=1e-3, servo=ms, contact=ContactSettings(friction=0.0))
    assert np.abs(r.v[-50:]).max() < 1e-9 and np.abs(r.q[-1] - q).max() < 1e-9
    g = ad.gravity_torque(arm, q)
    Jn = ad.jacobian(arm, q, "tool")[4]          # the world y row of the tool's velocity (the ball's lowest point too)
    f_n = g[0] / Jn[0]
    assert f_n > 0
    np.testing.assert_allclose(r.contact_forces[-1, 2, 1], f_n, rtol=1e-8)
    np.testing.assert_allclose(r.servo_forces[-1, 0], g[1] - Jn[1] * f_n, rtol=1e-8, atol=1e-9)
    assert abs(r.servo_work[-1]) < 1e-9                          # at rest the servo does no work


def test_servo_with_contact_refusals_name_the_reason():
    arm = arm_over_ground(-10.0)
    ms = servo.ModelServo(arm, [JointPath("joint1", np.sin)], directions="joint2")
    q0, v0 = np.array([0.0, 0.3]), np.array([1.0, 0.0])
    with pytest.raises(InputError, match="reference route"):
        simulate_contact(arm, q0, v0, 0.0, 0.01, 1e-3, ContactSettings(), route="compiled", servo=ms)
    with pytest.raises(InputError, match="Moreau-Jean"):
        ad.simulate(arm, q0, v0, t_final=0.01, servo=ms, contact=ContactSettings(), method="event_driven")
    x1, _ = servo.coordinates(arm)
    t = sp.Symbol("t")
    symbolic = servo.ModelServo(arm, [x1 - sp.sin(t)], directions="joint2")
    with pytest.raises(InputError, match="symbolic solver"):
        ad.simulate(arm, q0, v0, t_final=0.01, servo=symbolic, contact=ContactSettings())
    # no direction at all: E M^-1 D^T = 0, the servo force cannot reach the relation
    far = servo.ModelServo(arm, [JointPath("joint1", np.sin)], directions=np.array([[0.0, 0.0]]))
    with pytest.raises(InputError, match="do not reach their relations"):
        ad.simulate(arm, q0, v0, t_final=0.01, servo=far, contact=ContactSettings())


def test_event_driven_takes_a_controller_and_time_tables():
    """The event-driven run takes a compiled controller and TimeTable torques (as one law tau(t, q, v)
    of the input stage, on the readable route): the arm pressed by a PD onto a frictionless ground
    records the PD's torque at every sample, satisfies M a + h = tau + J^T n f_n there, and follows
    Moreau-Jean's run to its first-order error; a TimeTable of a constant torque is that constant."""
    from artidyn.sim import PD, TimeTable
    q = np.array([-0.3, -0.5])
    arm = arm_over_ground(tip(arm_over_ground(0.0), q)[1] - R)
    kp, kd, q_ref = 40.0, 14.0, q - np.array([0.02, 0.05])           # aims below the ground: presses
    pd = PD([kp, kp], [kd, kd], q_ref)
    s = ContactSettings(friction=0.0)
    ev = ad.simulate(arm, q, np.zeros(2), t_final=0.3, dt=1e-3, contact=s, controller=pd, method="event_driven")
    mj = ad.simulate(arm, q, np.zeros(2), t_final=0.3, dt=1e-3, contact=s, controller=pd)
    assert ev.stats["route"] == "reference"
    np.testing.assert_allclose(ev.tau, kp * (q_ref - ev.q) - kd * ev.v, rtol=0, atol=1e-12)
    for k in range(1, ev.t.size, 10):
        Jn = ad.jacobian(arm, ev.q[k], "tool")[4]
        f_n = ev.contact_forces[k, 2, 1]
        assert f_n > 1.0
        lhs = ad.rnea(arm, ev.q[k], ev.v[k], ev.a[k])
        np.testing.assert_allclose(lhs, ev.tau[k] + Jn * f_n, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ev.q, mj.q, atol=5e-4)
    np.testing.assert_allclose(ev.contact_forces[-100:], mj.contact_forces[-100:], atol=0.05)
    const = np.array([0.3, -0.2])
    a = ad.simulate(arm, q, np.zeros(2), const, t_final=0.05, dt=1e-3, contact=s, method="event_driven")
    b = ad.simulate(arm, q, np.zeros(2), TimeTable([0.0, 1.0], [const, const]), t_final=0.05, dt=1e-3, contact=s,
                    method="event_driven")
    np.testing.assert_allclose(a.q, b.q, atol=1e-12)
