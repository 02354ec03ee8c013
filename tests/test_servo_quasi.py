"""Servo-constraints stated in quasi-velocities w = B(q) qdot (ServoProblem(quasi_velocities=...)):
Appell's ball on a plane driven so that its centre circles, stated in the ball's angular velocity
and solved by Gibbs-Appell in the quasi-accelerations, against the same problem in Euler-angle
rates; Appell's plate on the turntable in the relative rate, with the directions over the
quasi-displacements."""
import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols

from artidyn import servo
from artidyn.errors import InputError
from artidyn.servo import examples as ex

PLATE = dict(F=1.3, a=0.3, R=1.0, b=0.5, k=0.2, M=2.0, I1=1.5)
SPHERE = dict(radius=0.1, mass=1.0, plane_mass=3.0, rho=0.05, omega=1.0)


@pytest.fixture(scope="module")
def spheres():
    return ex.sphere_on_moving_plane(**SPHERE), ex.sphere_on_moving_plane(**SPHERE, quasi=True)


def test_sphere_in_angular_velocity_equals_the_euler_rate_statement(spheres):
    """At random states the quasi-velocity statement (T and S in omega, rolling in omega) gives the
    accelerations, servo forces and rolling reactions of the Euler-rate statement, by multipliers
    and by Gibbs-Appell in the quasi-accelerations; wdot = B qdd + Bdot qdot."""
    pq, pw = spheres
    rng = np.random.default_rng(3)
    for _ in range(4):
        q, qd, t = rng.uniform(-0.6, 0.6, 7), rng.normal(size=7), rng.uniform(0, 2)
        w = pw.quasi_velocities(q, qd)
        assert np.abs(pw.velocities(q, w) - qd).max() < 1e-13
        ref = pq.accelerations(q, qd, t)
        for method in ("lagrange", "gibbs_appell"):
            out = pw.accelerations(q, w, t, method=method)
            assert out.status == "determined"
            assert np.abs(out.qdd - ref.qdd).max() < 1e-11 * (1 + np.abs(ref.qdd).max())
            assert np.abs(out.mu - ref.mu).max() < 1e-11 and np.abs(out.Lambda - ref.Lambda).max() < 1e-11
            h = 1e-6        # wdot against the rate of w = B qdot along the motion (central differences)
            wp = pw.quasi_velocities(q + h * qd, qd + h * ref.qdd)
            wm = pw.quasi_velocities(q - h * qd, qd - h * ref.qdd)
            assert np.abs(out.wdot - (wp - wm) / (2 * h)).max() < 1e-7


def test_sphere_run_in_quasi_velocities(spheres):
    """The run in (q, w) (Gibbs-Appell in the quasi-accelerations, qdot = G(q) w) is the run in
    (q, qdot) to 1e-9; the angular velocity it carries is Appell's closed form omega_h(0) + m r rho
    W / I (e_r(t) - e_r(0)), omega_z constant; the plane's servo force m_p Vdot + m a."""
    pq, pw = spheres
    r, m, mp, rho, W = (SPHERE[k] for k in ("radius", "mass", "plane_mass", "rho", "omega"))
    I = 0.4 * m * r * r
    e_r = lambda t: np.array([np.cos(W * t), np.sin(W * t)])     # noqa: E731
    wz = 0.7
    w_ball = np.concatenate([-(rho * W / r) * e_r(0.0), [wz]])
    q0 = np.array([0.0, 0.0, rho, 0.0, 0.0, 0.0, 0.0])
    qd0 = np.array([0.0, 0.0, 0.0, rho * W, w_ball[2], w_ball[1], w_ball[0]])
    w0 = np.concatenate([[0.0, 0.0, 0.0, rho * W], w_ball])
    assert np.abs(pw.quasi_velocities(q0, qd0) - w0).max() < 1e-15
    ref = pq.simulate(q0, qd0, t_final=1.0, dt=2e-3)
    run = pw.simulate(q0, w0, t_final=1.0, dt=2e-3, method="gibbs_appell")
    assert np.abs(run.q - ref.q).max() < 1e-9 and np.abs(run.v - ref.v).max() < 1e-9
    assert np.abs(run.servo_forces - ref.servo_forces).max() < 1e-9
    er = np.array([e_r(s) for s in run.t])
    assert np.abs(run.w[:, 4:6] - (w_ball[:2] + (m * r * rho * W / I) * (er - e_r(0.0)))).max() < 1e-8
    assert np.abs(run.w[:, 6] - wz).max() < 1e-9
    assert np.abs(run.servo_forces - (mp * 3.5 + m) * (-rho * W ** 2) * er).max() < 1e-9
    assert np.abs(run.wdot[:, :2] + 3.5 * rho * W ** 2 * er).max() < 1e-9         # the plane's acceleration


def _plate_quasi(link):
    al, be = dynamicsymbols("alpha beta")
    w1, w2 = dynamicsymbols("w1 w2")
    t = sp.Symbol("t")
    F, a, R, b, k, M, I1 = (PLATE[x] for x in ("F", "a", "R", "b", "k", "M", "I1"))
    ad_ = w1 + w2                                   # alphadot in the quasi-velocities
    T = sp.Rational(1, 2) * (I1 * ad_ ** 2 + M * (R ** 2 * ad_ ** 2 + (b ** 2 + k ** 2) * w2 ** 2
                                                   + 2 * R * b * ad_ * w2 * sp.cos(al - be)))
    U = -F * (R * sp.cos(al) + a * sp.cos(be))
    rel = [al - be - sp.pi / 2] if link != "velocity" else [w1]
    D = [[1, 0]] if link == "rigid" else [[1, 1]]   # over (delta pi_1, delta pi_2) = (d alpha - d beta, d beta)
    return servo.ServoProblem([al, be], T, U, servo=rel, directions=D,
                              quasi_velocities={w1: al.diff(t) - be.diff(t), w2: be.diff(t)})


@pytest.mark.parametrize("link", ["motor", "velocity", "rigid"])
def test_plate_in_the_relative_rate_gives_equations_5_and_6(link):
    """w = (alphadot - betadot, betadot): the motor on the turntable works on delta alpha =
    delta pi_1 + delta pi_2 (D_w = [1, 1]), the rigid link on delta pi_1 (D_w = [1, 0]); the
    relation finite (alpha - beta = pi/2) or in the quasi-velocity (w1 = 0). Equation (5), its
    motor torque, and equation (6), by both methods."""
    F, a, R, b, k, M, I1 = (PLATE[x] for x in ("F", "a", "R", "b", "k", "M", "I1"))
    prob = _plate_quasi(link)
    rng = np.random.default_rng(5)
    for _ in range(4):
        beta, bd = rng.uniform(-3, 3), rng.uniform(-2, 2)
        q, w = np.array([beta + np.pi / 2, beta]), np.array([0.0, bd])
        for method in ("lagrange", "gibbs_appell"):
            out = prob.accelerations(q, w, method=method)
            assert out.status == "determined" and abs(out.wdot[0]) < 1e-12
            if link == "rigid":
                bdd = -F * (a * np.sin(beta) + R * np.cos(beta)) / (M * (R * R + b * b + k * k) + I1)
            else:
                bdd = (M * R * b * bd ** 2 - F * a * np.sin(beta)) / (M * (b * b + k * k))
                mu = (I1 + M * R * R) * bdd + M * R * b * bd ** 2 + F * R * np.sin(beta + np.pi / 2)
                assert abs(out.mu[0] - mu) < 1e-12
            assert abs(out.wdot[1] - bdd) < 1e-12 and np.abs(out.qdd - bdd).max() < 1e-12


def test_quasi_velocities_are_checked():
    x, y = dynamicsymbols("x y")
    u, v = dynamicsymbols("u v")
    t = sp.Symbol("t")
    T = (x.diff(t) ** 2 + y.diff(t) ** 2) / 2
    with pytest.raises(InputError, match="needs 2 entries"):
        servo.ServoProblem([x, y], T, servo=[x - y], quasi_velocities={u: x.diff(t)})
    with pytest.raises(InputError, match="not of the form B"):
        servo.ServoProblem([x, y], T, servo=[x - y], quasi_velocities={u: x.diff(t) ** 2, v: y.diff(t)})
    with pytest.raises(InputError, match="not of the form B"):
        servo.ServoProblem([x, y], T, servo=[x - y], quasi_velocities={u: x.diff(t) + 1, v: y.diff(t)})
    degenerate = servo.ServoProblem([x, y], T, servo=[x - y], directions=[[1, 0]],
                                    quasi_velocities={u: x.diff(t) + y.diff(t), v: x * (x.diff(t) + y.diff(t))})
    with pytest.raises(InputError, match="singular"):
        degenerate.accelerations([1.0, 0.0], [1.0, 1.0])


def _ball_arm():
    import artidyn as ad
    b = ad.ModelBuilder("ball_arm", gravity=(0, 0, -9.81))
    b.add_body("l1", "world", "spherical", mass=2.0, com=(0, 0, 0.1), inertia=np.diag([.02, .03, .01]))
    b.add_body("l2", "l1", "revolute", axis=(0, 1, 0), xyz=(0, 0, 0.3), mass=1.5, com=(0.2, 0, 0),
               inertia=np.diag([.01, .02, .03]))
    b.add_body("l3", "l2", "prismatic", axis=(1, 0, 0), xyz=(0.4, 0, 0), mass=1.0, com=(0.15, 0.01, 0),
               inertia=np.diag([.01, .015, .02]))
    return b.build()


def test_model_servo_in_quasi_velocities():
    """A spherical base, a revolute and a prismatic joint (n = 5), a servo on the prismatic joint
    driven along a mixed direction, a first-kind velocity relation: in the base's angular velocity in
    world axes and in a user's q-dependent B(q), by multipliers and by Gibbs-Appell in
    the quasi-accelerations, the motion, the servo force and the reaction equal those of the model's
    own velocities with the directions D_w B(q) over delta q; wdot = B qdd + Bdot v. The default
    directions (the actuated dofs) stay over delta q."""
    import artidyn as ad
    from artidyn.constraints import JointPath, Nonholonomic
    model = _ball_arm()
    path = JointPath(model.joint_names[3], lambda s: 0.05 + 0.1 * np.sin(1.5 * s),
                     lambda s: 0.15 * np.cos(1.5 * s), lambda s: -0.225 * np.sin(1.5 * s))
    A = np.array([[1.0, 0.5, 0.0, 0.2, 0.0]])
    roll = Nonholonomic(lambda q, s: A, b=lambda q, s: np.array([0.3]))
    D_w = np.array([[0.0, 0.3, 1.0, 0.2, 0.4]])

    def B_world(q):                                 # the base's angular velocity in world axes: R omega_body
        from artidyn.spatial.rotations import quat_to_matrix
        B = np.eye(5, dtype=np.result_type(q, float))
        B[:3, :3] = quat_to_matrix(np.asarray(q)[None, :4])[0]
        return B

    def B_user(q):                                  # the revolute's rate mixed with the prismatic's, q-dependent
        B = np.eye(5, dtype=np.result_type(q, float))
        B[3, 4] = 0.5 * np.cos(q[4])
        B[4, 3] = 0.2 * q[5]
        return B
    rng = np.random.default_rng(9)
    for quasi in (B_world, B_user):
        probe = ad.analytical.System(model, quasi_velocities=quasi)
        for _ in range(3):
            q = ad.random_configuration(model, rng)
            v, tau, tt = rng.normal(size=5), rng.normal(size=5), rng.uniform(0, 2)
            B = probe.B(q)
            prob = servo.ModelServo(model, [path], directions=D_w, rolling=[roll], quasi_velocities=quasi)
            assert np.abs(prob.directions_at(q, v) - D_w @ B).max() < 1e-15
            want = servo.ModelServo(model, [path], directions=D_w @ B, rolling=[roll]).accelerations(q, v, tau, tt)
            w = B @ v
            for method in ("lagrange", "gibbs_appell"):
                out = prob.accelerations(q, w, tau, tt, method=method)
                assert out.status == "determined"
                assert np.abs(out.qdd - want.qdd).max() < 1e-9 * (1 + np.abs(want.qdd).max())
                assert np.abs(out.mu - want.mu).max() < 1e-9 and np.abs(out.Lambda - want.Lambda).max() < 1e-9
                assert np.abs(out.wdot - (B @ want.qdd + probe.Bdot_v(q, v))).max() < 1e-9
    default = servo.ModelServo(model, [path], quasi_velocities=B_user)
    assert np.abs(default.directions_at(q, v) - np.eye(5)).max() == 0
    quasi_run = servo.ModelServo(model, [path], directions=D_w, quasi_velocities=B_user)
    q0 = ad.random_configuration(model, rng)
    q0[5] = 0.05                                    # on the path at t = 0
    run = quasi_run.simulate(q0, np.array([0.1, 0.0, 0.2, 0.0, 0.15]), 0.2, 1e-2)
    assert np.abs(run.q[:, 5] - (0.05 + 0.1 * np.sin(1.5 * run.t))).max() < 1e-9
    assert np.abs(run.w - np.array([B_user(x) @ y for x, y in zip(run.q, run.v)])).max() < 1e-15
