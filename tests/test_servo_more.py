"""Servo-constraints, continued (Appell, "Traité de mécanique rationnelle", t. II, ch. XXIII):
equilibria that need the first-kind (rolling) reactions, Appell's multiplier-free (Gibbs-Appell)
equations where the servo forces leave free directions (n > j), on Appell's examples with the
acceleration energy stated from the bodies' accelerations and on models, against the multiplier
route, the closed forms and RNEA."""
import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols

import artidyn as ad
from artidyn import servo
from artidyn.constraints import Holonomic, JointPath, Nonholonomic
from artidyn.errors import InputError
from artidyn.servo import examples as ex

t = sp.Symbol("t")
G = 9.81


# --- equilibria with rolling reactions -----------------------------------------------------------

def wheel_and_pendulum(alpha=0.3, r=0.1, m=1.0, I=0.005, mp=2.0, l=0.5, x0=0.4):
    """A wheel (centre x along a slope of angle alpha, spin phi) rolling without slipping
    (``xd = r phid``, a first-kind relation), a pendulum (angle theta from the downward vertical,
    bob mass mp at distance l) hinged at its centre, a motor between the two (torque mu on the
    pendulum, -mu on the wheel: D = [0, -1, 1]) servoed so that the wheel stays at x0."""
    x, ph, th = dynamicsymbols("x phi theta")
    e = sp.Matrix([np.cos(alpha), np.sin(alpha)])
    bob = x * e + l * sp.Matrix([sp.sin(th), -sp.cos(th)])
    vb = bob.diff(t)
    T = sp.Rational(1, 2) * (m * x.diff(t) ** 2 + I * ph.diff(t) ** 2 + mp * (vb.T * vb)[0])
    U = m * G * x * np.sin(alpha) + mp * G * bob[1]
    return servo.ServoProblem([x, ph, th], T, U, servo=[x - x0], directions=[[0, -1, 1]],
                              rolling=[x.diff(t) - r * ph.diff(t)], name="wheel and pendulum on a slope")


def test_equilibrium_on_a_slope_needs_the_rolling_reaction():
    """At rest on the slope the rolling reaction (the friction force along the slope) holds the
    wheel, Lambda = (m + mp) g sin(alpha); the motor passes its moment to the pendulum, mu =
    -r Lambda, which leans until its weight balances it: mp g l sin(theta) = mu. Without the rolling
    reaction in the balance there is no equilibrium; with it, equilibria finds the state where
    accelerations gives zero, with the same servo force and reaction; the spin phi is free (a
    family of equilibria) and stays at the guess."""
    alpha, r, m, mp, l, x0 = 0.3, 0.1, 1.0, 2.0, 0.5, 0.4
    prob = wheel_and_pendulum(alpha, r, m, 0.005, mp, l, x0)
    Lam = (m + mp) * G * np.sin(alpha)
    mu = -r * Lam
    theta = np.arcsin(mu / (mp * G * l))
    rest = prob.accelerations([x0, 1.3, theta], np.zeros(3))
    assert rest.status == "determined"
    assert np.abs(rest.qdd).max() < 1e-12
    assert abs(rest.mu[0] - mu) < 1e-12 and abs(rest.Lambda[0] - Lam) < 1e-12
    eq = prob.equilibria([x0 + 0.05, 1.3, 0.2])
    assert abs(eq.q[0] - x0) < 1e-12 and abs(eq.q[2] - theta) < 1e-10 and eq.q[1] == 1.3
    assert abs(eq.mu[0] - mu) < 1e-10 and abs(eq.Lambda[0] - Lam) < 1e-10
    q, mu_eq, lam_eq = eq                             # unpacks as (q, mu, Lambda)
    assert np.abs(prob.accelerations(q, np.zeros(3)).qdd).max() < 1e-9 and mu_eq is eq.mu and lam_eq is eq.Lambda
    # a flat floor: no reaction is needed, the pendulum hangs
    flat = wheel_and_pendulum(alpha=0.0).equilibria([0.3, 0.0, 0.4])
    assert abs(flat.q[2]) < 1e-10 and abs(flat.mu[0]) < 1e-10 and abs(flat.Lambda[0]) < 1e-10


def test_equilibria_refuse_a_state_with_no_balance():
    """A wheel pushed along a level floor by a constant force and servoed to stay put by a motor
    on its spin: the rolling reaction takes the force (Lambda = F, mu = r F), an equilibrium; the
    same force with the servo on the spin relation 'phi = 0' and no rolling has none."""
    x, ph = dynamicsymbols("x phi")
    r, F = 0.2, 1.5
    T = (x.diff(t) ** 2 + 0.01 * ph.diff(t) ** 2) / 2
    rolling = servo.ServoProblem([x, ph], T, generalized_forces=[F, 0], servo=[x - 1.0], directions=[[0, 1]],
                                 rolling=[x.diff(t) - r * ph.diff(t)])
    eq = rolling.equilibria([0.7, 0.0])
    assert abs(eq.q[0] - 1.0) < 1e-12 and abs(eq.Lambda[0] - (-F)) < 1e-12 and abs(eq.mu[0] - (-r * F)) < 1e-12
    assert np.abs(rolling.accelerations(eq.q, np.zeros(2)).qdd).max() < 1e-12
    sliding = servo.ServoProblem([x, ph], T, generalized_forces=[F, 0], servo=[ph], directions=[[0, 1]])
    with pytest.raises(InputError, match="no equilibrium"):
        sliding.equilibria([0.7, 0.0])


# --- Gibbs-Appell without multipliers on Appell's examples (n > j) -----------------------------

PLATE = dict(F=1.3, a=0.3, R=1.0, b=0.5, k=0.2, M=2.0, I1=1.5)


def test_plate_gibbs_appell_gives_equations_5_and_6():
    """The plate (n = 2, j = 1): Appell's equation in the free direction (delta alpha = 0 under
    the motor, delta alpha = delta beta under the rigid link), from the acceleration energy of the
    bodies, gives (5) and (6) in closed form; the servo torque from the residual equals the
    multiplier route's."""
    F, a, R, b, k, M, I1 = (PLATE[x] for x in ("F", "a", "R", "b", "k", "M", "I1"))
    motor, rigid = ex.plate_on_turntable("motor", **PLATE), ex.plate_on_turntable("rigid", **PLATE)
    rng = np.random.default_rng(3)
    for _ in range(4):
        beta, bd = rng.uniform(-3, 3), rng.uniform(-2, 2)
        q, qd = np.array([beta + np.pi / 2, beta]), np.array([bd, bd])
        ga, lag = motor.accelerations(q, qd, method="gibbs_appell"), motor.accelerations(q, qd)
        bdd5 = (M * R * b * bd ** 2 - F * a * np.sin(beta)) / (M * (b * b + k * k))
        assert ga.status == "determined" and np.abs(ga.qdd - bdd5).max() < 1e-12
        mu = (I1 + M * R * R) * bdd5 + M * R * b * bd ** 2 + F * R * np.sin(beta + np.pi / 2)
        assert abs(ga.mu[0] - mu) < 1e-11 and abs(ga.mu[0] - lag.mu[0]) < 1e-11
        ga6 = rigid.accelerations(q, qd, method="gibbs_appell")
        bdd6 = -F * (a * np.sin(beta) + R * np.cos(beta)) / (M * (R * R + b * b + k * k) + I1)
        assert np.abs(ga6.qdd - bdd6).max() < 1e-12
        assert abs(ga6.mu[0] - rigid.accelerations(q, qd).mu[0]) < 1e-11
    # off the relation (a state the servo has not reached): the same motion from both routes
    q, qd = np.array([0.4, -0.7]), np.array([0.3, -1.1])
    assert np.abs(motor.accelerations(q, qd, method="gibbs_appell").qdd - motor.accelerations(q, qd).qdd).max() < 1e-12


def test_gibbs_appell_from_kinetic_energy_equals_the_stated_acceleration_energy():
    """Without an acceleration energy, Appell's identity dS/dqdd = d/dt dT/dqdot - dT/dq gives it:
    the same motion as the S stated from the bodies (two statements of the plate)."""
    stated = ex.plate_on_turntable("motor", **PLATE)
    al, be = dynamicsymbols("alpha beta")
    plain = servo.ServoProblem([al, be], stated._T, stated._U, servo=[al - be - sp.pi / 2], directions=[[1, 0]])
    q, qd = np.array([0.9, -0.4]), np.array([0.5, 0.2])
    x, y = stated.accelerations(q, qd, method="gibbs_appell"), plain.accelerations(q, qd, method="gibbs_appell")
    assert np.abs(x.qdd - y.qdd).max() < 1e-12 and abs(x.mu[0] - y.mu[0]) < 1e-12


def test_disc_and_ring_gibbs_appell():
    """Appell §470 by the multiplier-free equations: under the servo the free direction is the
    disc's (delta alpha_1 = 0): alpha'' = torque / I_disc, motor I_ring alpha'' + torque; by
    contact the free direction is delta alpha = delta alpha_1 and the pair stays at rest."""
    s = ex.disc_and_ring(I_disc=2.0, I_ring=1.0, spring_torque=0.1, link="servo")
    out = s.accelerations([0.3, 0.3], [0.2, 0.2], method="gibbs_appell")
    assert np.abs(out.qdd - 0.05).max() < 1e-15 and abs(out.mu[0] - 0.15) < 1e-15
    c = ex.disc_and_ring(I_disc=2.0, I_ring=1.0, spring_torque=0.1, link="contact")
    out = c.accelerations([0.3, 0.3], [0.0, 0.0], method="gibbs_appell")
    assert np.abs(out.qdd).max() < 1e-15 and abs(out.mu[0] - (-0.1)) < 1e-15


def test_sphere_on_moving_plane_gibbs_appell():
    """Appell's ball on a moving plane (n = 7, j = 2 servo forces on the plane, p = 2 rolling
    relations): the acceleration energy of the ball and the plane on the 3 displacements that
    neither the servo forces nor the rolling reactions work on; equal to the multiplier route
    (accelerations, servo forces, rolling reactions) at random states, and along a run the
    friction force is the centripetal one, Lambda = m a_c (the plane's mass enters mu only)."""
    r, m, mp, rho, W = 0.1, 1.0, 3.0, 0.05, 1.0
    prob = ex.sphere_on_moving_plane(radius=r, mass=m, plane_mass=mp, rho=rho, omega=W)
    rng = np.random.default_rng(5)
    for _ in range(4):
        q, qd, tt = rng.uniform(-1, 1, 7), rng.normal(size=7), rng.uniform(0, 3)
        ga, lag = prob.accelerations(q, qd, tt, method="gibbs_appell"), prob.accelerations(q, qd, tt)
        assert ga.status == "determined"
        assert np.abs(ga.qdd - lag.qdd).max() < 1e-10
        assert np.abs(ga.mu - lag.mu).max() < 1e-10 and np.abs(ga.Lambda - lag.Lambda).max() < 1e-10
    q0 = np.array([0.0, 0.0, rho, 0.0, 0.0, 0.0, 0.0])
    qd0 = np.array([0.0, 0.0, 0.0, rho * W, 0.7, 0.0, -rho * W / r])
    run = prob.simulate(q0, qd0, t_final=0.4, dt=2e-3)
    for k in (0, 50, 200):
        ga = prob.accelerations(run.q[k], run.v[k], run.t[k], method="gibbs_appell")
        a_c = -rho * W ** 2 * np.array([np.cos(W * run.t[k]), np.sin(W * run.t[k])])
        assert np.abs(ga.qdd[2:4] - a_c).max() < 1e-9
        assert np.abs(ga.Lambda - m * a_c).max() < 1e-9          # A^T Lambda acts on (x, y) with +1
        assert np.abs(ga.mu - run.servo_forces[k]).max() < 1e-9


def test_gibbs_appell_refuses_relations_reached_late():
    """The spring chain's servo reaches the last mass only through the spring (index 5): the
    multiplier-free form at the acceleration level does not determine the motion; refused with
    the index, the multiplier route still answers."""
    chain = ex.spring_chain()
    q, qd = np.array([0.0, 0.5]), np.zeros(2)
    with pytest.raises(InputError, match="index"):
        chain.accelerations(q, qd, method="gibbs_appell")
    assert chain.accelerations(q, qd).status == "determined"
    with pytest.raises(InputError, match="method"):
        chain.accelerations(q, qd, method="kane")


# --- Gibbs-Appell on models, n > j ----------------------------------------------------------------

def arm3(**joint2):
    """A 3-dof spatial arm: yaw, then two pitch joints (the second with the options given)."""
    b = ad.ModelBuilder("arm3", gravity=(0, 0, -G))
    b.add_body("l1", "world", "revolute", axis=(0, 0, 1), mass=2.0, com=(0, 0, 0.1), inertia=np.diag([.02, .03, .01]))
    b.add_body("l2", "l1", "revolute", axis=(0, 1, 0), xyz=(0, 0, 0.3), mass=1.5, com=(0.2, 0.02, 0),
               inertia=np.diag([.01, .02, .03]), **joint2)
    b.add_body("l3", "l2", "revolute", axis=(0, 1, 0), xyz=(0.4, 0, 0), mass=1.0, com=(0.15, 0.01, 0.02),
               inertia=np.diag([.01, .015, .02]))
    b.add_frame("tool", "l3", xyz=(0.3, 0, 0))
    return b.build()


def _path(A=0.3, w=2.0, c=0.1):
    return (lambda s: c + A * np.sin(w * s), lambda s: A * w * np.cos(w * s), lambda s: -A * w * w * np.sin(w * s))


@pytest.mark.parametrize("options", [{}, dict(armature=0.05, damping=0.2, stiffness=3.0, rest=0.2)])
def test_arm_with_one_servo_relation(options):
    """A 3-dof arm (n = 3), one servo relation, one direction (j = 1), so two free directions:
    the third joint follows a path, driven by the motor of the first or the third joint, or by a
    mixed direction; the tool height follows a path, driven by the second joint. Gibbs-Appell
    (acceleration energy of the bodies, gradient by complex step) equals the multiplier route;
    RNEA on the motion leaves exactly D^T mu on top of the other torques (the servo forces act
    along D only); the relation's acceleration is met; and where the servo drives its own joint,
    hybrid dynamics (that joint prescribed) gives the same motion."""
    model = arm3(**options)
    names = model.joint_names[1:]
    rng = np.random.default_rng(11)
    f, fd, fdd = _path()
    path = JointPath(names[2], f, fd, fdd)
    height = Holonomic(lambda q: [ad.kinematics.frame_placement(model, q, "tool")[2, 3] - 0.35], rows=1)
    for rel, D in ((path, [names[0]]), (path, [names[2]]), (path, np.array([[0.3, 1.0, -0.5]])),
                   (height, [names[1]])):
        prob = servo.ModelServo(model, [rel], directions=D)
        for _ in range(3):
            q, v, tau, tt = rng.uniform(-1, 1, 3), rng.normal(size=3), rng.normal(size=3), rng.uniform(0, 2)
            f_ext = rng.normal(size=(model.nb + 1, 6))
            lag = prob.accelerations(q, v, tau, tt, f_ext=f_ext)
            ga = prob.accelerations(q, v, tau, tt, f_ext=f_ext, method="gibbs_appell")
            assert lag.status == ga.status == "determined"
            assert np.abs(ga.qdd - lag.qdd).max() < 1e-9 * (1 + np.abs(lag.qdd).max())
            assert abs(ga.mu[0] - lag.mu[0]) < 1e-9 * (1 + abs(lag.mu[0]))
            left = ad.rnea(model, q, v, ga.qdd, f_ext) - tau
            assert np.abs(left - prob.D.T @ ga.mu).max() < 1e-9 * (1 + np.abs(left).max())
            if rel is path:
                assert abs(ga.qdd[2] - fdd(tt)) < 1e-9
            if rel is path and isinstance(D, list) and D == [names[2]]:
                hd = ad.hybrid_dynamics(model, q, v, np.array([0, 0, fdd(tt)]), tau, prescribed=[names[2]],
                                        f_ext=f_ext)
                assert np.abs(hd.a - ga.qdd).max() < 1e-9 and abs(hd.tau[2] - tau[2] - ga.mu[0]) < 1e-9


def test_spherical_base_with_servo_and_rolling_relation():
    """n = 5 (a spherical joint, a revolute, a prismatic one; nq = 6), one servo relation with a
    mixed direction and a first-kind velocity relation: Gibbs-Appell on the 3 displacements left
    free equals the multiplier route, reactions included, and RNEA balances D^T mu + A^T Lambda."""
    b = ad.ModelBuilder("ball_arm", gravity=(0, 0, -G))
    b.add_body("l1", "world", "spherical", mass=2.0, com=(0, 0, 0.1), inertia=np.diag([.02, .03, .01]))
    b.add_body("l2", "l1", "revolute", axis=(0, 1, 0), xyz=(0, 0, 0.3), mass=1.5, com=(0.2, 0, 0),
               inertia=np.diag([.01, .02, .03]))
    b.add_body("l3", "l2", "prismatic", axis=(1, 0, 0), xyz=(0.4, 0, 0), mass=1.0, com=(0.15, 0.01, 0),
               inertia=np.diag([.01, .015, .02]))
    model = b.build()
    rng = np.random.default_rng(2)
    f, fd, fdd = _path(0.1, 1.5, 0.05)
    rel = JointPath(model.joint_names[3], f, fd, fdd)
    A = np.array([[1.0, 0.5, 0.0, 0.2, 0.0]])
    roll = Nonholonomic(lambda q, s: A, b=lambda q, s: np.array([0.3]))
    prob = servo.ModelServo(model, [rel], directions=np.array([[0.0, 0.3, 1.0, 0.2, 0.4]]), rolling=[roll])
    for _ in range(3):
        q = ad.random_configuration(model, rng)
        v, tau, tt = rng.normal(size=5), rng.normal(size=5), rng.uniform(0, 2)
        lag = prob.accelerations(q, v, tau, tt)
        ga = prob.accelerations(q, v, tau, tt, method="gibbs_appell")
        assert np.abs(ga.qdd - lag.qdd).max() < 1e-9 * (1 + np.abs(lag.qdd).max())
        assert abs(ga.mu[0] - lag.mu[0]) < 1e-9 and abs(ga.Lambda[0] - lag.Lambda[0]) < 1e-9
        left = ad.rnea(model, q, v, ga.qdd) - tau
        assert np.abs(left - prob.D.T @ ga.mu - A.T @ ga.Lambda).max() < 1e-9
        assert abs(A @ ga.qdd)[0] < 1e-9 and abs(ga.qdd[4] - fdd(tt)) < 1e-9
