"""Servo-constraints: Appell's plate on the turntable (equations (5) and (6) from the same solver),
flat spring chains (index 5 and 7 against the flat-output input), a constant-speed motor against
hybrid dynamics, a ship stabiliser whose direct matrix E M^-1 D^T is singular, and the refusals."""
import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols

import artidyn as ad
from artidyn import servo
from artidyn.errors import InputError
from artidyn.servo import examples as ex

PLATE = dict(F=1.3, a=0.3, R=1.0, b=0.5, k=0.2, M=2.0, I1=1.5)


def _plate_state(beta, betadot):
    return np.array([beta + np.pi / 2, beta]), np.array([betadot, betadot])


def test_plate_motor_gives_appell_equation_5():
    """Motor on the turntable (D = [1, 0]): M (b^2 + k^2) betadd - M R b betad^2 + F a sin(beta) = 0,
    independent of I1; the motor torque mu = (I1 + M R^2) betadd + M R b betad^2 + F R sin(alpha)."""
    F, a, R, b, k, M, I1 = (PLATE[x] for x in ("F", "a", "R", "b", "k", "M", "I1"))
    probs = [ex.plate_on_turntable("motor", **{**PLATE, "I1": I}) for I in (I1, 4.0 * I1)]
    rng = np.random.default_rng(0)
    for _ in range(5):
        beta, bd = rng.uniform(-3, 3), rng.uniform(-2, 2)
        q, qd = _plate_state(beta, bd)
        outs = [p.accelerations(q, qd, 0.0) for p in probs]
        bdd = (M * R * b * bd ** 2 - F * a * np.sin(beta)) / (M * (b * b + k * k))
        for out, I in zip(outs, (I1, 4.0 * I1)):
            assert out.status == "determined" and out.index == (3,)
            assert abs(out.qdd[1] - bdd) < 1e-12 and abs(out.qdd[0] - bdd) < 1e-12
            mu = (I + M * R * R) * bdd + M * R * b * bd ** 2 + F * R * np.sin(beta + np.pi / 2)
            assert abs(out.mu[0] - mu) < 1e-12
        assert abs(outs[0].mu[0] - outs[1].mu[0]) > 1e-3 or abs(bdd) < 1e-6   # the torque depends on I1


def test_plate_rigid_link_gives_appell_equation_6():
    """The same relation by a rigid link (D = E): [M (R^2 + b^2 + k^2) + I1] betadd + F (a sin(beta)
    + R cos(beta)) = 0."""
    F, a, R, b, k, M, I1 = (PLATE[x] for x in ("F", "a", "R", "b", "k", "M", "I1"))
    prob = ex.plate_on_turntable("rigid", **PLATE)
    rng = np.random.default_rng(1)
    for _ in range(5):
        beta, bd = rng.uniform(-3, 3), rng.uniform(-2, 2)
        q, qd = _plate_state(beta, bd)
        out = prob.accelerations(q, qd)
        bdd = -F * (a * np.sin(beta) + R * np.cos(beta)) / (M * (R * R + b * b + k * k) + I1)
        assert out.status == "determined"
        assert abs(out.qdd[1] - bdd) < 1e-12


def test_plate_first_integral_and_energy_along_runs():
    """(5) has the first integral exp(-c beta) [betad^2 - K (c sin(beta) + cos(beta))], c = 2 R b /
    (b^2 + k^2), K = 2 F a / (M (b^2 + k^2) (1 + c^2)); (6) conserves T + U. Both to 1e-9 over a
    run; under (5) the motor's work equals the change of T + U (d(T + U)/dt = mu D qdot)."""
    F, a, R, b, k, M = (PLATE[x] for x in ("F", "a", "R", "b", "k", "M"))
    c = 2 * R * b / (b * b + k * k)
    K = 2 * F * a / (M * (b * b + k * k) * (1 + c * c))
    q0, qd0 = _plate_state(0.4, -0.7)      # beta decreasing: (5) slows it (increasing, betad blows up)
    run = ex.plate_on_turntable("motor", **PLATE).simulate(q0, qd0, t_final=3.0, dt=2e-3)
    beta, bd = run.q[:, 1], run.v[:, 1]
    first = np.exp(-c * beta) * (bd ** 2 - K * (c * np.sin(beta) + np.cos(beta)))
    assert np.ptp(first) < 1e-9
    assert np.abs(run.energy - run.energy[0] - run.servo_work).max() < 1e-7
    assert np.ptp(run.energy) > 1e-2                      # the motor does work
    assert np.abs(run.q[:, 0] - run.q[:, 1] - np.pi / 2).max() < 1e-9
    rigid = ex.plate_on_turntable("rigid", **PLATE).simulate(q0, qd0, t_final=3.0, dt=2e-3)
    assert np.ptp(rigid.energy) < 1e-9
    assert np.abs(rigid.servo_power).max() < 1e-10         # an ideal link does no work


def test_plate_equilibria():
    """Appell's equilibrium conditions: under the motor (5), sin(beta) = 0 (two families, beta = 0
    and pi, each alpha = beta + pi/2) with the holding torque F R sin(alpha); under the rigid link
    (6), a sin(beta) + R cos(beta) = 0."""
    F, a, R = PLATE["F"], PLATE["a"], PLATE["R"]
    motor = ex.plate_on_turntable("motor", **PLATE)
    for guess in (0.2, 2.9):
        q, mu, _ = motor.equilibria([guess + np.pi / 2, guess])
        assert abs(np.sin(q[1])) < 1e-10 and abs(q[0] - q[1] - np.pi / 2) < 1e-10
        assert abs(mu[0] - F * R * np.sin(q[0])) < 1e-10
    rigid = ex.plate_on_turntable("rigid", **PLATE)
    q, _, _ = rigid.equilibria([-1.0 + np.pi / 2, -1.0])
    assert abs(a * np.sin(q[1]) + R * np.cos(q[1])) < 1e-10


def _flat_states(prob, path, masses, stiffness, rest, t):
    """Positions and velocities of the chain from the flat output y(t): x_n = y, then backwards
    x_{i} = x_{i+1} - rest - (m_{i+1} xdd_{i+1} + force from the next spring) / k_i."""
    ts = sp.Symbol("t")
    n = len(masses)
    xs = [None] * n
    xs[-1] = path
    for i in range(n - 2, -1, -1):
        # m_{i+1} xdd_{i+1} = -k_i (x_{i+1} - x_i - rest) + k_{i+1} (x_{i+2} - x_{i+1} - rest)
        nxt = stiffness[i + 1] * (xs[i + 2] - xs[i + 1] - rest) if i + 2 < n else 0
        xs[i] = xs[i + 1] - rest - (nxt - masses[i + 1] * sp.diff(xs[i + 1], ts, 2)) / stiffness[i]
    q = np.array([float(x.subs(ts, t)) for x in xs])
    v = np.array([float(sp.diff(x, ts).subs(ts, t)) for x in xs])
    return q, v


@pytest.mark.parametrize("n", [2, 3])
def test_spring_chain_flat_input(n):
    """A chain driven at its first mass so that the last follows y(t): index 5 (two masses) and
    7 (three); the servo force equals the flat-output input (Altmann & Heiland 2017):
    u = (m1 m2 / k) y'''' + (m1 + m2) y'' and u = m1 m2 m3 / (k1 k2) y^(6) + (m3 (m1 + m2) / k2 +
    m1 (m2 + m3) / k1) y'''' + (m1 + m2 + m3) y'' to 1e-8 along a run, and the last mass follows y."""
    ts = sp.Symbol("t")
    masses, stiffness = ((1.0, 2.0), (1.0,)) if n == 2 else ((1.0, 2.0, 1.5), (1.0, 3.0))
    rest = 0.5
    y = sp.sin(ts) / 2 + ts ** 2 / 10
    prob = ex.spring_chain(masses, stiffness, rest, path=y)
    assert prob.status == "determined" and prob.analyse().index == (2 * n + 1,)
    q0, v0 = _flat_states(prob, y, masses, stiffness, rest, 0.0)
    run = prob.simulate(q0, v0, t_final=2.0, dt=2e-3)
    d = [sp.lambdify(ts, sp.diff(y, ts, k)) for k in range(7)]
    if n == 2:
        m1, m2 = masses
        u = m1 * m2 / stiffness[0] * d[4](run.t) + (m1 + m2) * d[2](run.t)
    else:
        (m1, m2, m3), (k1, k2) = masses, stiffness
        u = m1 * m2 * m3 / (k1 * k2) * d[6](run.t) + (m3 * (m1 + m2) / k2 + m1 * (m2 + m3) / k1) * d[4](run.t) \
            + (m1 + m2 + m3) * d[2](run.t)
    assert np.abs(run.servo_forces[:, 0] - u).max() < 1e-8
    assert np.abs(run.q[:, -1] - d[0](run.t)).max() < 1e-8
    assert np.abs(run.energy - run.energy[0] - run.servo_work).max() < 1e-6


def test_ship_stabiliser_velocity_servo_with_singular_direct_matrix():
    """p = c phidot with the rail on the roll axis: E M^-1 D^T = 0 (the force on the mass does not
    reach the relation's first derivative), yet the motion is determined at the next order (index
    3): solved, not refused. The relation holds along the run and the servo's work accounts for
    the change of energy."""
    prob = ex.ship_stabiliser("damping", gain=0.5)
    out = prob.analyse()
    assert out.status == "determined" and out.index == (3,)
    q, qd = prob.consistent_state([0.2, 0.0], [0.0, 0.0])
    assert abs(q[1] - 0.5 * qd[0]) < 1e-12
    run = prob.simulate(q, qd, t_final=3.0, dt=1e-3)
    assert np.abs(run.q[:, 1] - 0.5 * run.v[:, 0]).max() < 1e-8
    assert np.abs(run.energy - run.energy[0] - run.servo_work).max() < 1e-6
    period = ex.ship_stabiliser("period", gain=0.3)
    assert period.status == "determined" and period.analyse().index == (3,)


def test_constant_speed_motor_equals_hybrid_dynamics():
    """A double pendulum whose first joint a servo turns at constant speed (d theta_1 = omega dt,
    a velocity relation): the servo solver's accelerations equal hybrid dynamics (joint 1
    prescribed, joint 2 free), and mu equals the joint-1 torque rnea gives on that motion."""
    from artidyn.constraints import Nonholonomic
    model = ad.models.planar_2r() if hasattr(ad.models, "planar_2r") else ad.load("planar2r")
    omega = 1.7
    motor = Nonholonomic(lambda q, t: np.array([[1.0, 0.0]]), b=lambda q, t: np.array([-omega]))
    prob = servo.ModelServo(model, [motor], directions=np.array([[1.0, 0.0]]))
    rng = np.random.default_rng(4)
    for _ in range(4):
        q = rng.uniform(-2, 2, 2)
        v = np.array([omega, rng.uniform(-2, 2)])
        out = prob.accelerations(q, v)
        assert out.status == "determined" and out.index == (2,)
        assert abs(out.qdd[0]) < 1e-12
        hd = ad.hybrid_dynamics(model, q, v, np.zeros(2), np.zeros(2), prescribed=[model.joint_names[1]])
        assert np.abs(out.qdd - hd.a).max() < 1e-12
        tau = ad.rnea(model, q, v, out.qdd)
        assert abs(out.mu[0] - tau[0]) < 1e-12 and abs(tau[1]) < 1e-12


def test_refusals_name_the_ranks():
    """r > j with an independent extra relation: impossible; r < j: indeterminate; each with the
    ranks in its reason; a problem that is not determined is not simulated."""
    x, y = dynamicsymbols("x y")
    t = sp.Symbol("t")
    T = (x.diff(t) ** 2 + y.diff(t) ** 2) / 2
    two_relations = servo.ServoProblem([x, y], T, servo=[x - sp.sin(t), y - t ** 2], directions=[[1, 0]])
    out = two_relations.analyse()
    assert out.status == "impossible" and "rank W = 1 < r = 2" in out.why
    two_forces = servo.ServoProblem([x, y], T, servo=[x + y], directions=[[1, 0], [0, 1]])
    out = two_forces.analyse()
    assert out.status == "indeterminate" and "rank W = 1 < j = 2" in out.why
    with pytest.raises(InputError, match="indeterminate"):
        two_forces.simulate([0.0, 0.0], [0.0, 0.0], 1.0, 0.1)
    never = servo.ServoProblem([x, y], T, servo=[y - t], directions=[[1, 0]])   # the free motion keeps it
    assert never.analyse().status == "indeterminate" and "never act" in never.analyse().why
    unreachable = servo.ServoProblem([x, y], T, servo=[y - t ** 2], directions=[[1, 0]])
    assert unreachable.analyse().status == "impossible" and "never act" in unreachable.analyse().why
    with pytest.raises(InputError, match="accelerations"):
        servo.ServoProblem([x, y], T, servo=[x.diff(t, 2)], directions=[[1, 0]])
    with pytest.raises(InputError, match="2 entries"):
        servo.ServoProblem([x, y], T, servo=[x], directions=[[1, 0, 0]])


def test_ideal_relation_is_the_constraint_case():
    """D = E: the servo relation is an ordinary ideal constraint; the solver equals the KKT route
    of the constraints package on the same model."""
    from artidyn.constraints import Coupling, constrained_dynamics
    model = ad.load("planar2r")
    c = Coupling(model.joint_names[2], model.joint_names[1], ratio=-0.5, offset=0.2)
    prob = servo.ModelServo(model, [c], directions=c.jacobian(model, np.zeros(2)))
    rng = np.random.default_rng(6)
    q = np.array([0.4, -0.5 * 0.4 + 0.2])
    v = np.array([0.3, -0.15])
    tau = rng.normal(size=2)
    out = prob.accelerations(q, v, tau)
    ref = constrained_dynamics(model, q, v, tau, [c], method="kkt")
    assert np.abs(out.qdd - ref.a).max() < 1e-12
    assert abs(out.mu[0] - ref.lambdas[0]) < 1e-12


def test_end_effector_path_servo_on_a_model():
    """The planar 2R arm's tool follows a circle (FramePath, a relation on an operational
    quantity), its two actuated joints the directions: determined (r = j = 2); the servo forces
    are the torques rnea gives on that motion; Gibbs-Appell's form gives the same; the run keeps
    the tool on the circle."""
    from artidyn.constraints import FramePath
    model = ad.load("planar2r")
    frame = "tool"
    c, rad, w = np.array([1.2, 0.3, 0.0]), 0.25, 1.5

    def target(t):
        return c + rad * np.array([np.cos(w * t), np.sin(w * t), 0.0 * t])
    path = FramePath(frame, target)
    prob = servo.ModelServo(model, [path])
    from artidyn.constraints import assemble
    asm = assemble(model, np.array([0.3, 1.0]), [path], v=np.zeros(2))
    q, v = asm.q, asm.v
    assert abs(asm.residual) < 1e-12
    lag = prob.accelerations(q, v)
    ga = prob.accelerations(q, v, method="gibbs_appell")
    assert lag.status == "determined" and lag.index == (3,)
    assert np.abs(lag.qdd - ga.qdd).max() < 1e-10 and np.abs(lag.mu - ga.mu).max() < 1e-9
    assert np.abs(lag.mu - ad.rnea(model, q, v, lag.qdd)).max() < 1e-10
    run = prob.simulate(q, v, t_final=1.0, dt=1e-2)
    tips = np.array([ad.kinematics.frame_placement(model, qq, frame)[:3, 3] for qq in run.q])
    assert np.abs(tips - np.array([target(t) for t in run.t])).max() < 1e-9
    assert np.abs(run.servo_forces - np.array([ad.rnea(model, qq, vv, aa) for qq, vv, aa in
                                               zip(run.q, run.v, run.qdd)])).max() < 1e-9


def test_disc_and_ring_servo_versus_contact():
    """Appell §470: under the servo the spring on the ring turns the pair uniformly accelerated
    (alpha'' = torque / I_disc, the motor giving I_ring alpha'' + torque); by contact it rests."""
    servo_run = ex.disc_and_ring(I_disc=2.0, I_ring=1.0, spring_torque=0.1, link="servo").simulate(
        np.zeros(2), np.zeros(2), t_final=2.0, dt=1e-2)
    assert np.abs(servo_run.q[:, 0] - 0.5 * 0.05 * servo_run.t ** 2).max() < 1e-12
    assert np.abs(servo_run.servo_forces[:, 0] - 0.15).max() < 1e-12
    contact = ex.disc_and_ring(link="contact").simulate(np.zeros(2), np.zeros(2), t_final=2.0, dt=1e-2)
    assert np.abs(contact.q).max() < 1e-12


def test_sphere_on_plane_driven_so_the_centre_circles():
    """The plane is translated (servo forces on X, Y) so that the ball's centre runs on a circle of
    radius rho at rate W; starting from rest the plane moves with V = 7/2 rho W (e_theta(t) -
    e_theta(0)) (X traces a cycloid: 7/2 rho [(e_r(t) - e_r(0)) - W t e_theta(0)]), the friction
    force is the centripetal m a = -m rho W^2 e_r, the horizontal spin grows as omega_h(0) +
    m r rho W / I (e_r(t) - e_r(0)) and the vertical spin stays; the plane's mass changes the
    servo force (mu = m_p Vdot + m a), not the motion."""
    r, m, mp, rho, W = 0.1, 1.0, 3.0, 0.05, 1.0
    prob = ex.sphere_on_moving_plane(radius=r, mass=m, plane_mass=mp, rho=rho, omega=W)
    I = 0.4 * m * r * r
    e_r = lambda t: np.array([np.cos(W * t), np.sin(W * t)])     # noqa: E731
    e_th = lambda t: np.array([-np.sin(W * t), np.cos(W * t)])   # noqa: E731
    wz = 0.7
    w0 = np.concatenate([-(rho * W / r) * e_r(0.0), [wz]])
    # Euler rates from omega at zero angles: omega = [phid, thetad, psid] (Z-Y-X at psi = theta = 0)
    q0 = np.array([0.0, 0.0, rho, 0.0, 0.0, 0.0, 0.0])
    qd0 = np.array([0.0, 0.0, 0.0, rho * W, w0[2], w0[1], w0[0]])
    run = prob.simulate(q0, qd0, t_final=1.0, dt=2e-3)
    t = run.t
    X = 3.5 * rho * (np.array([e_r(s) for s in t]) - e_r(0.0) - W * t[:, None] * e_th(0.0))
    assert np.abs(run.q[:, :2] - X).max() < 1e-9
    V = 3.5 * rho * W * (np.array([e_th(s) for s in t]) - e_th(0.0))
    assert np.abs(run.v[:, :2] - V).max() < 1e-9
    omega = np.array([prob.angular_velocity(qq[4:], vv[4:]) for qq, vv in zip(run.q, run.v)])
    wh = w0[:2] + (m * r * rho * W / I) * (np.array([e_r(s) for s in t]) - e_r(0.0))
    assert np.abs(omega[:, :2] - wh).max() < 1e-8 and np.abs(omega[:, 2] - wz).max() < 1e-8
    a_c = -rho * W ** 2 * np.array([e_r(s) for s in t])
    Vdot = -3.5 * rho * W ** 2 * np.array([e_r(s) for s in t])
    assert np.abs(run.servo_forces - (mp * Vdot + m * a_c)).max() < 1e-9
    heavy = ex.sphere_on_moving_plane(radius=r, mass=m, plane_mass=10 * mp, rho=rho, omega=W).simulate(
        q0, qd0, t_final=0.5, dt=2e-3)
    assert np.abs(heavy.q - run.q[:heavy.q.shape[0]]).max() < 1e-12


def test_overhead_crane_load_follows_its_path():
    """Trolley force and winch torque make the load of an overhead crane follow a smooth path
    (Altmann & Heiland's set-up: m_t = 10, J = 0.1, m = 100, r = 0.1, from (0, 4) to (1, 5) in
    6 s; the rope an ideal relation): index 5 (the tension reaches the horizontal relation only
    through the rope's direction; the structure algorithm carries it two orders further); the
    load on its path to 1e-8; the trolley where the flat output puts it, s = x + z xdd / (g - zdd)
    (z downwards), and the rope as long as the winch says."""
    prob = ex.overhead_crane()
    assert prob.status == "determined" and max(prob.analyse().index) == 5
    q0, v0 = np.array([0.0, 40.0, 0.0, 4.0]), np.zeros(4)
    run = prob.simulate(q0, v0, t_final=6.0, dt=1e-2)
    px = np.array([prob.path[0](s) for s in run.t])
    pz = np.array([prob.path[1](s) for s in run.t])
    assert np.abs(run.q[:, 2] - px).max() < 1e-8 and np.abs(run.q[:, 3] - pz).max() < 1e-8
    ts = sp.Symbol("t")
    path = ex.smooth_step(0, 6.0, 0.0, 1.0), ex.smooth_step(0, 6.0, 4.0, 5.0)
    xdd = sp.lambdify(ts, sp.diff(path[0], ts, 2))
    zdd = sp.lambdify(ts, sp.diff(path[1], ts, 2))
    s_flat = px + pz * np.array([xdd(s) for s in run.t]) / (9.81 - np.array([zdd(s) for s in run.t]))
    assert np.abs(run.q[:, 0] - s_flat).max() < 1e-7
    length = np.hypot(run.q[:, 2] - run.q[:, 0], run.q[:, 3])
    assert np.abs(0.1 * run.q[:, 1] - length).max() < 1e-8
    assert abs(run.servo_forces[0, 1] - (-100.0 * 9.81 * 0.1)) < 1e-9        # holding the load at rest


def test_internal_dynamics_decide_the_stabiliser():
    """The ship's roll is the internal dynamics of the servo p = c phidot: damped for c > 0 (the
    eigenvalues of the zero dynamics at the upright equilibrium have negative real parts and the
    roll decays), growing for c < 0, which simulate refuses with the eigenvalue; a flat chain
    has no internal dynamics."""
    damped = ex.ship_stabiliser("damping", gain=0.5)
    eig = damped.internal_dynamics(np.zeros(2), np.zeros(2))
    assert eig.size == 2 and np.all(eig.real < -1e-3)
    q, qd = damped.consistent_state([0.1, 0.0], [0.0, 0.0])
    run = damped.simulate(q, qd, t_final=10.0, dt=1e-2)
    assert np.abs(run.q[-200:, 0]).max() < 0.5 * np.abs(run.q[:200, 0]).max()
    assert run.servo_work[-1] < 0                              # the servo takes energy out
    growing = ex.ship_stabiliser("damping", gain=-0.5)
    assert np.max(growing.internal_dynamics(np.zeros(2), np.zeros(2)).real) > 1e-3
    with pytest.raises(InputError, match="internal dynamics are unstable"):
        growing.simulate(*growing.consistent_state([0.1, 0.0], [0.0, 0.0]), t_final=1.0, dt=1e-2)
    chain = ex.spring_chain()
    assert chain.internal_dynamics(np.array([0.0, 0.5]), np.zeros(2)).size == 0


def test_servo_through_simulate():
    """ad.simulate(model, q, v, servo=ModelServo(...)): the engine's result with the servo forces,
    their work, and tau = D^T mu; the same motion as ModelServo.simulate."""
    from artidyn.constraints import JointPath
    model = ad.load("planar2r")
    path = JointPath(model.joint_names[1], lambda t: 0.3 * np.sin(2.0 * t))
    prob = servo.ModelServo(model, [path], directions=[model.joint_names[1]])
    q0, v0 = np.array([0.0, 0.2]), np.array([0.6, 0.0])
    res = ad.simulate(model, q0, v0, t_final=1.0, dt=1e-2, servo=prob)
    run = prob.simulate(q0, v0, 1.0, 1e-2)
    assert np.abs(res.q - run.q).max() == 0 and np.abs(res.servo_forces - run.servo_forces).max() == 0
    assert np.abs(res.q[:, 0] - 0.3 * np.sin(2.0 * res.t)).max() < 1e-9
    assert np.abs(res.tau[:, 0] - res.servo_forces[:, 0]).max() == 0 and np.abs(res.tau[:, 1]).max() == 0
    assert np.abs(res.energy.total - res.energy.total[0] - res.servo_work).max() < 1e-6   # RK4 + projection
    with pytest.raises(InputError, match="ModelServo"):
        ad.simulate(model, q0, v0, t_final=0.1, servo="motor")


def test_numeric_servo_from_plain_functions():
    """The plate of Appell written as plain functions (M, h - Q, the relation's E and gamma, D)
    gives the same accelerations, servo force and run as the SymPy statement."""
    F, a, R, b, k, M_, I1 = (PLATE[x] for x in ("F", "a", "R", "b", "k", "M", "I1"))

    def M(q, t):
        c = M_ * R * b * np.cos(q[0] - q[1])
        return np.array([[I1 + M_ * R * R, c], [c, M_ * (b * b + k * k)]])

    def h(q, qd, t):       # velocity terms and -Q (Q = -dU/dq, U = -F (R cos(alpha) + a cos(beta)))
        s = M_ * R * b * np.sin(q[0] - q[1])
        return np.array([s * qd[1] ** 2 + F * R * np.sin(q[0]), -s * qd[0] ** 2 + F * a * np.sin(q[1])])
    num = servo.NumericServo(M, h, E=lambda q, qd, t: np.array([[1.0, -1.0]]), gamma=lambda q, qd, t: np.zeros(1),
                             D=lambda q, t: np.array([[1.0, 0.0]]))
    sym = ex.plate_on_turntable("motor", **PLATE)
    q, qd = _plate_state(0.7, -0.4)
    x, y = num.accelerations(q, qd), sym.accelerations(q, qd)
    assert x.status == "determined" and np.abs(x.qdd - y.qdd).max() < 1e-12 and abs(x.mu[0] - y.mu[0]) < 1e-12
    rx, ry = num.simulate(q, qd, 0.5, 1e-2), sym.simulate(q, qd, 0.5, 1e-2)
    assert np.abs(rx.q - ry.q).max() < 1e-12 and np.abs(rx.servo_work - ry.servo_work).max() < 1e-12
    with pytest.raises(InputError, match="function"):
        servo.NumericServo(M, h, E=None, gamma=None, D=None)
