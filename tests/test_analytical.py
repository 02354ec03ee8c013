"""Analytical mechanics: the five formulations against each other, against the KKT route, against
aba, and against the closed forms of the classical nonholonomic systems."""
import warnings
import zlib

import numpy as np
import pytest

import artidyn as ad
from artidyn import analytical as an
from artidyn.analytical import examples as ex
from artidyn.configuration import random_configuration, random_velocity
from artidyn.constraints import KnifeEdge, Nonholonomic, Point, RollingDisk, assemble
from artidyn.errors import InputError
from artidyn.models.zoo import random_tree
from artidyn.spatial.rotations import exp3, matrix_to_quat, quat_to_matrix

FIVE = ("gibbs_appell", "kane", "maggi", "boltzmann_hamel", "udwadia_kalaba")
ALL = FIVE + ("lagrange",)


def _assembled(system, rng, height=None):
    m = system.model
    q = random_configuration(m, rng)
    if height is not None:
        q[2] = height
    asm = assemble(m, q, system.constraints, v=rng.normal(size=m.nv))
    assert asm.status == "converged"
    return asm.q, asm.v


def _agree(system, q, v, tau, tol=1e-10, **kw):
    ref = an.accelerations(system, q, v, tau, method="lagrange", **kw)
    scale = 1.0 + np.abs(ref.dv).max()
    for method in FIVE:
        out = an.accelerations(system, q, v, tau, method=method, **kw)
        assert np.abs(out.dv - ref.dv).max() <= tol * scale, method
        assert np.abs(out.a - ref.a).max() <= tol * scale, method
        assert out.residual <= tol * scale, method
        if out.multipliers is not None:
            assert np.abs(out.multipliers - ref.multipliers).max() <= tol * (1 + np.abs(ref.multipliers).max()), method
    return ref


SYSTEMS = {
    "disk": lambda: ex.rolling_disk(),
    "sphere": lambda: ex.rolling_sphere(),
    "turntable": lambda: ex.rolling_sphere(plane_omega=1.5),
    "sleigh": lambda: ex.chaplygin_sleigh(),
    "diffdrive": lambda: ex.differential_drive(com_offset=0.08),
    "unicycle": lambda: ex.unicycle(),
}


@pytest.mark.parametrize("name", sorted(SYSTEMS))
@pytest.mark.parametrize("quasi", [None, "user"])
def test_five_formulations_agree_on_nonholonomic_systems(name, quasi, rng):
    system = SYSTEMS[name]()
    m = system.model
    if quasi == "user":          # a configuration-dependent, invertible B(q): Hamel terms from dB/dq
        K = rng.normal(size=(m.nv, m.nv)) * 0.3

        def B(q, K=K):
            return np.eye(m.nv) + K * np.sin(q[0] + 0.3) * 0.5 + np.diag(np.cos(q[1]) * 0.2 * np.ones(m.nv))
        system = an.System(m, system.constraints, quasi_velocities=B)
    for _ in range(3):
        q, v = _assembled(system, rng, height=0.3 if m.nq >= 7 else None)
        _agree(system, q, v, rng.normal(size=m.nv))


def test_redundant_rows_diffdrive():
    """Coaxial wheels: four tangential rows of rank 3; every method still gives the motion and
    the multiplier methods the same (least-norm) multipliers."""
    system = ex.differential_drive(com_offset=0.1)
    rng = np.random.default_rng(3)
    q, v = _assembled(system, rng)
    _, J, _ = ad.constraints.constraint_terms(system.model, q, v, system.constraints)
    assert J.shape[0] == 4 and np.linalg.matrix_rank(J) == 3
    _agree(system, q, v, rng.normal(size=system.model.nv))


def test_random_trees_with_mixed_constraints(rng):
    """A floating random tree with a loop closure (Point), a knife edge and a user Pfaffian
    constraint with a time-dependent offset; quasi-velocities in world axes."""
    m = random_tree(rng, nb=5, floating=True, joint_types=("revolute", "prismatic"))
    bodies = m.body_names[1:]
    w = np.zeros(m.nv)
    w[6:] = rng.normal(size=m.nv - 6)

    def A(q, t):
        return np.vstack([w, np.eye(m.nv)[2]])

    def b(q, t):
        return np.array([np.sin(t), 0.1 * np.cos(2 * t) * q[0]])
    cons = [Point(bodies[-1], bodies[1]), KnifeEdge(bodies[2]), Nonholonomic(A, b)]
    for quasi in (None, "world"):
        system = an.System(m, cons, quasi_velocities=quasi)
        for t in (0.0, 0.7):
            q = random_configuration(m, rng)
            asm = assemble(m, q, cons, v=rng.normal(size=m.nv), t=t)
            _agree(system, asm.q, asm.v, rng.normal(size=m.nv), t=t)


def test_unconstrained_equals_aba_with_every_quasi_velocity_choice(rng):
    m = random_tree(rng, nb=6, floating=True)
    q, v, tau = random_configuration(m, rng), random_velocity(m, rng), rng.normal(size=m.nv)
    a = ad.aba(m, q, v, tau)
    for quasi in (None, "world"):
        system = an.System(m, quasi_velocities=quasi)
        for method in ALL:
            out = an.accelerations(system, q, v, tau, method=method)
            assert np.abs(out.dv - a).max() < 1e-10 * (1 + np.abs(a).max()), (quasi, method)


def _floating_robots():
    from artidyn.models import erd
    return [n for n in erd.example_robot_names() if erd.default_floating(n)]


@pytest.mark.parametrize("name", _floating_robots())
def test_boltzmann_hamel_equals_aba_on_floating_robots(name):
    """The floating base's angular velocity in body axes as quasi-velocities (Hamel's
    coefficients of se(3)): Boltzmann-Hamel reproduces aba, compiled and readable. Backward error
    (M times the difference, relative to the torques) below 1e-13 on every robot; forward error
    below 1e-12 relative, widened by the condition number of M where it exceeds 1e3 (the forward
    error of a backward-stable solve grows with it: a1's cond(M) of 3700 puts the compiled route,
    whose world-frame sums round differently, at 2.4e-12; romeo and icub carry finger links of
    ~1e-6 kg m^2, cond(M) up to 1e16)."""
    from artidyn.models import erd
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = erd.example_robot(name)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    q, v = random_configuration(m, rng), random_velocity(m, rng)
    tau = ad.rnea(m, q, v, rng.normal(size=m.nv))
    a = ad.aba(m, q, v, tau)
    M = ad.crba(m, q)
    cond = np.linalg.cond(M)
    system = an.System(m, quasi_velocities="base")
    for compiled in (True, False):
        previous = ad.kernels.use_kernels(compiled)
        try:
            out = an.accelerations(system, q, v, tau, method="boltzmann_hamel")
        finally:
            ad.kernels.use_kernels(previous)
        assert np.abs(M @ (out.dv - a)).max() <= 1e-13 * np.abs(tau).max(), compiled
        assert np.abs(out.dv - a).max() <= 1e-12 * max(1.0, np.abs(a).max()) * max(1.0, cond / 1e3), compiled


def test_hamel_coefficients_closed_forms():
    """Free body: the structure constants of se(3). Planar base with body-axis quasi-velocities
    w = (forward, lateral, yaw rate) = B(theta) (xdot, ydot, thetadot): those of se(2),
    [f_yaw, f_fwd] = f_lat, [f_yaw, f_lat] = -f_fwd, at any theta."""
    b = ad.ModelBuilder("free")
    b.add_body("body", "world", "free", mass=1.0, inertia=np.eye(3))
    m = b.build()
    k = an.structure_constants(m)
    eps = lambda i, j, l: np.linalg.det(np.eye(3)[[i, j, l]])  # noqa: E731
    for i in range(3):
        for j in range(3):
            for l in range(3):
                assert k[l, i, j] == eps(i, j, l)                 # [e_wi, e_wj] = eps_ijl e_wl
                assert k[3 + l, i, 3 + j] == eps(i, j, l)         # [e_wi, e_vj] = eps_ijl e_vl
                assert k[3 + l, 3 + i, j] == eps(i, j, l)         # [e_vi, e_wj] = eps_ijl e_vl
    assert np.all(k[:, 3:, 3:] == 0)

    s = ex.unicycle()

    def B(q):
        c, sn = np.cos(q[2]), np.sin(q[2])
        out = np.eye(4, dtype=np.result_type(q, float))
        out[:2, :2] = np.array([[c, sn], [-sn, c]])
        return out
    system = an.System(s.model, s.constraints, quasi_velocities=B)
    for theta in (0.0, 0.4, 2.5):
        q = np.array([0.3, -0.2, theta, 1.0])
        T = an.Terms(system, q, np.zeros(4), np.zeros(4))
        c = an.hamel_coefficients(T)
        expect = np.zeros((4, 4, 4))
        expect[1, 2, 0], expect[1, 0, 2] = 1.0, -1.0     # [f_yaw, f_fwd] = f_lat
        expect[0, 2, 1], expect[0, 1, 2] = -1.0, 1.0     # [f_yaw, f_lat] = -f_fwd
        assert np.abs(c - expect).max() < 1e-14


def test_torque_free_symmetric_body_precesses():
    """I1 = I2: omega_3 stays constant and (omega_1, omega_2) turns at lambda = (I3 - I1) / I1
    omega_3 in body axes (Euler's closed form), by every formulation through the same RK4."""
    I1, I3 = 0.3, 0.5
    b = ad.ModelBuilder("top")
    b.add_body("top", "world", "free", mass=2.0, inertia=np.diag([I1, I1, I3]))
    m = b.build().replace(gravity=np.zeros(3))
    system = an.System(m)
    w0 = np.array([0.3, -0.1, 4.0])
    q0 = np.concatenate([[0.0, 0.0, 0.0], matrix_to_quat(exp3(np.array([0.2, -0.4, 0.1])))])
    v0 = np.concatenate([w0, [0.1, 0.0, 0.2]])
    lam = (I3 - I1) / I1 * w0[2]
    tf = 0.5
    for method in FIVE:
        r = an.rollout(system, q0, v0, tf, 0.01, method=method, project=False)
        w = r.v[:, :3]
        z = (w0[0] + 1j * w0[1]) * np.exp(1j * lam * r.t)
        assert np.abs(w[:, 0] - z.real).max() < 1e-7, method
        assert np.abs(w[:, 1] - z.imag).max() < 1e-7, method
        assert np.abs(w[:, 2] - w0[2]).max() < 1e-9, method


# --- the rolling disk -------------------------------------------------------------------------

def _disk_state(system, theta, rho, sigma, Omega, r):
    """The steady turning state (module docstring of the test below): lean theta, centre on a
    horizontal circle of radius rho about the vertical axis through (0, sigma rho, 0)... here
    e1 = -x, e2 = cos(theta) z + sin(theta) y (contact -> centre), e3 = e1 x e2 (disk axis)."""
    e1 = np.array([-1.0, 0.0, 0.0])
    e2 = np.array([0.0, np.sin(theta), np.cos(theta)])
    e3 = np.cross(e1, e2)
    R = np.column_stack([e1, e3, -e2])                  # body x, y (the disk axis), z
    c = r * e2                                           # contact point at the origin
    w3 = -Omega * rho * sigma / r
    omega = Omega * np.cos(theta) * e2 + w3 * e3
    vC = np.cross(omega, c)                              # rolling: the contact point is still
    q = np.concatenate([c, matrix_to_quat(R)])
    v = np.concatenate([R.T @ omega, R.T @ vC])
    e_h = sigma * np.array([0.0, 1.0, 0.0])
    return q, v, R, omega, vC, e_h


def test_rolling_disk_steady_turning_closed_form():
    """Steady turning of a thin uniform disk (radius r, lean theta from the vertical, centre on a
    horizontal circle of radius rho, yaw rate Omega): Euler's equations about the centre with
    the rolling condition give

        Omega^2 cos(theta) [ I_d sin(theta) - sigma rho (I_a / r + m r) ] = m g r sin(theta),

    I_a = m r^2 / 2, I_d = m r^2 / 4 (for rho >> r: tan(theta) = 3 v^2 / (2 g rho), the rolling
    coin). On such a state the angular velocity turns rigidly with the yaw (omega_dot = Omega z x
    omega) and the centre accelerates centripetally (-Omega^2 rho e_h), by every formulation; a
    state with another Omega does not."""
    r, mass, g = 0.3, 1.2, 9.81
    system = ex.rolling_disk(radius=r, mass=mass, g=g)
    Ia, Id = mass * r * r / 2, mass * r * r / 4
    for theta, rho, sigma in ((0.3, 2.0, -1.0), (0.6, 0.8, -1.0), (-0.2, 1.5, 1.0)):
        Omega = np.sqrt(mass * g * r * np.sin(theta) / (np.cos(theta) * (Id * np.sin(theta)
                                                                        - sigma * rho * (Ia / r + mass * r))))
        q, v, R, omega, vC, e_h = _disk_state(system, theta, rho, sigma, Omega, r)
        assert np.abs(system.constraints[0].residual(system.model, q, v)).max() < 1e-14
        for method in ALL:
            out = an.accelerations(system, q, v, method=method)
            wdot_world = R @ out.dv[:3]
            aC = R @ (np.cross(v[:3], v[3:]) + out.dv[3:])
            assert np.abs(wdot_world - Omega * np.cross([0, 0, 1.0], omega)).max() < 1e-10, method
            assert np.abs(aC - (-Omega ** 2 * rho * e_h)).max() < 1e-10, method
        q, v, R, omega, vC, e_h = _disk_state(system, theta, rho, sigma, 1.1 * Omega, r)
        out = an.accelerations(system, q, v, method="kane")
        aC = R @ (np.cross(v[:3], v[3:]) + out.dv[3:])
        assert np.abs(aC - (-(1.1 * Omega) ** 2 * rho * e_h)).max() > 1e-3


def _lean_growth(factor, t_final=3.0):
    """Max |lean| over a run of a thin disk rolling straight, slightly tilted, at
    ``factor`` times the critical spin sqrt(g / (3 r))."""
    r, g = 0.5, 9.81
    system = ex.rolling_disk(radius=r, g=g)
    q0, v0 = ex.rolling_disk_state(r, factor * np.sqrt(g / (3 * r)), lean=0.02)
    run = ad.simulate(system.model, q0, v0, constraints=system.constraints, t_final=t_final, dt=5e-3)
    axis_z = np.array([quat_to_matrix(qq[3:][None])[0][2, 1] for qq in run.q])
    return np.abs(np.arcsin(axis_z)).max(), run


def test_rolling_disk_straight_rolling_stable_above_critical_speed():
    """A thin uniform disk rolling upright is stable when its spin exceeds sqrt(g / (3 r))
    (Appell; Korteweg; Neimark & Fufaev ch. IV): at 1.3x the initial 0.02 rad lean stays
    bounded, at 0.7x it falls over. Energy is conserved (rolling forces do no work)."""
    stable, run = _lean_growth(1.3)
    unstable, _ = _lean_growth(0.7)
    assert stable < 0.1
    assert unstable > 0.3
    assert np.ptp(run.energy.total) < 1e-6 * abs(run.energy.total[0])
    assert run.stats["max_drift_velocity"] < 1e-8


# --- spheres, sleigh, wheeled robots ------------------------------------------------------------

def _ball_state(system, c_xy, v_xy, spin_z=0.0, r=0.1):
    """A rolling ball at horizontal position c_xy with centre velocity v_xy, the angular velocity
    that makes it roll on the plane (assembled by the velocity projection)."""
    q = np.concatenate([[c_xy[0], c_xy[1], r], [0.0, 0.0, 0.0, 1.0]])
    v = np.concatenate([[0.0, 0.0, spin_z], [v_xy[0], v_xy[1], 0.0]])
    asm = assemble(system.model, q, system.constraints, v=v)
    return asm.q, asm.v


def test_sphere_on_fixed_plane_moves_straight_at_constant_velocity():
    system = ex.rolling_sphere(radius=0.1)
    q, v = _ball_state(system, (0.2, -0.1), (0.5, 0.3), spin_z=2.0)
    assert np.abs(q[3:] - [0, 0, 0, 1]).max() == 0          # body axes = world axes at the start
    for method in ALL:
        out = an.accelerations(system, q, v, method=method)
        assert np.abs(out.dv[:3]).max() < 1e-12, method                          # omega_dot = 0
        assert np.abs(np.cross(v[:3], v[3:]) + out.dv[3:]).max() < 1e-12, method  # centre: a = 0
    run = ad.simulate(system.model, q, v, constraints=system.constraints, t_final=1.0, dt=1e-2)
    assert np.abs(run.q[:, :3] - (q[:3] + run.t[:, None] * v[3:])).max() < 1e-10


def test_sphere_on_turntable_circles_at_two_sevenths_of_the_table_rate():
    """A uniform ball on a table turning at Omega: its centre moves on a fixed circle at 2 Omega / 7
    (v_dot = K / (1 + K) Omega z x v, K = I / (m r^2) = 2/5), by every formulation; and the
    simulated centre stays on the circle."""
    Om, r = 1.5, 0.1
    system = ex.rolling_sphere(radius=r, plane_omega=Om)
    q, v = _ball_state(system, (0.4, 0.0), (0.0, 0.2), r=r)
    vC = quat_to_matrix(q[3:][None])[0] @ v[3:]
    for method in ALL:
        out = an.accelerations(system, q, v, method=method)
        R = quat_to_matrix(q[3:][None])[0]
        aC = R @ (np.cross(v[:3], v[3:]) + out.dv[3:])
        assert np.abs(aC - 2 * Om / 7 * np.cross([0, 0, 1.0], vC)).max() < 1e-12, method
    run = ad.simulate(system.model, q, v, constraints=system.constraints, t_final=2.0, dt=5e-3)
    w = 2 * Om / 7
    centre = q[:2] + np.array([-vC[1], vC[0]]) / w                    # centre of the circle
    radius = np.linalg.norm(vC[:2]) / w
    d = np.linalg.norm(run.q[:, :2] - centre, axis=1)
    assert np.abs(d - radius).max() < 1e-7 * radius          # RK4 at 5 ms over 2 s
    ang = np.unwrap(np.arctan2(run.q[:, 1] - centre[1], run.q[:, 0] - centre[0]))
    assert abs((ang[-1] - ang[0]) / run.t[-1] - w) < 1e-7 * w


def test_chaplygin_sleigh_closed_form():
    """Chaplygin sleigh (blade at the origin, centre of mass a ahead): u_dot = a w^2, w_dot =
    -m a u w / (I + m a^2); so u(t) = U tanh(lambda t + c) with U = sqrt(2 E / m), lambda =
    m a U / (I + m a^2), and w^2 = m (U^2 - u^2) / (I + m a^2) (Neimark & Fufaev; Bloch)."""
    m_, I, a = 1.3, 0.08, 0.4
    system = ex.chaplygin_sleigh(mass=m_, inertia=I, a=a)
    u0, w0, th0 = 0.1, 2.0, 0.3
    q0 = np.array([0.0, 0.0, th0])
    v0 = np.array([u0 * np.cos(th0), u0 * np.sin(th0), w0])
    J = I + m_ * a * a
    E = 0.5 * m_ * u0 ** 2 + 0.5 * J * w0 ** 2
    U = np.sqrt(2 * E / m_)
    lam = m_ * a * U / J
    for method in FIVE:
        r = an.rollout(system, q0, v0, 1.5, 5e-3, method=method)
        th = r.q[:, 2]
        u = r.v[:, 0] * np.cos(th) + r.v[:, 1] * np.sin(th)
        assert np.abs(u - U * np.tanh(lam * r.t + np.arctanh(u0 / U))).max() < 1e-8, method
        assert np.abs(r.v[:, 2] - np.sqrt(m_ * (U ** 2 - u ** 2) / J)).max() < 1e-8, method
        assert np.abs(-r.v[:, 0] * np.sin(th) + r.v[:, 1] * np.cos(th)).max() < 1e-12      # no side slip


def test_differential_drive_closed_form():
    """Centre of mass on the axle: T = 1/2 (m + 2 J / r^2) v^2 + 1/2 (I_z + 2 J b^2 / r^2) w^2
    (m the total mass, I_z the yaw inertia about the axle centre, J a wheel's spin inertia, b
    half the track), and the wheel torques give (tau_r + tau_l) / r and b (tau_r - tau_l) / r:
    v_dot and w_dot decouple. Torque-free, the robot drives on a circle of radius
    b (phi_r + phi_l) / (phi_r - phi_l) (rates)."""
    rw, track, mc, Ic, mw = 0.1, 0.4, 4.0, 0.2, 0.5
    system = ex.differential_drive(radius=rw, track=track, chassis_mass=mc, chassis_inertia=Ic, wheel_mass=mw)
    bh = track / 2
    Jw = mw * rw ** 2 / 2
    Iw_diam = mw * rw ** 2 / 4
    m_tot = mc + 2 * mw
    Iz = Ic + 2 * (Iw_diam + mw * bh ** 2)
    rng = np.random.default_rng(5)
    q, v = _assembled(system, rng)
    tau = np.zeros(5)
    tau[3], tau[4] = 0.7, -0.2                          # left, right wheel torques
    th = q[2]
    w = v[2]
    for method in ALL:
        out = an.accelerations(system, q, v, tau, method=method)
        a = out.dv
        # d/dt of the forward speed: (xddot cos + yddot sin) + w * (lateral speed = 0)
        vf_dot = a[0] * np.cos(th) + a[1] * np.sin(th) + w * (-v[0] * np.sin(th) + v[1] * np.cos(th))
        assert abs(vf_dot - (tau[3] + tau[4]) / rw / (m_tot + 2 * Jw / rw ** 2)) < 1e-10, method
        assert abs(a[2] - bh * (tau[4] - tau[3]) / rw / (Iz + 2 * Jw * bh ** 2 / rw ** 2)) < 1e-10, method
    run = ad.simulate(system.model, q, v, constraints=system.constraints, t_final=2.0, dt=1e-2)
    pl, pr = v[3], v[4]
    R = bh * (pr + pl) / (pr - pl)
    centre = q[:2] + R * np.array([-np.sin(th), np.cos(th)])
    assert np.abs(np.linalg.norm(run.q[:, :2] - centre, axis=1) - abs(R)).max() < 1e-8
    assert np.abs(run.v[:, 3:] - v[3:]).max() < 1e-9              # the wheel rates stay


def test_unicycle_circle():
    rw = 0.3
    system = ex.unicycle(radius=rw)
    q0 = np.array([0.0, 0.0, 0.5, 0.0])
    v0 = np.array([0.0, 0.0, 0.8, 2.0])
    asm = assemble(system.model, q0, system.constraints, v=v0)
    run = ad.simulate(system.model, asm.q, asm.v, constraints=system.constraints, t_final=2.0, dt=1e-2)
    R = rw * asm.v[3] / asm.v[2]
    th = asm.q[2]
    centre = asm.q[:2] + R * np.array([-np.sin(th), np.cos(th)])
    assert np.abs(np.linalg.norm(run.q[:, :2] - centre, axis=1) - R).max() < 1e-8
    assert np.abs(run.q[-1, 2] - (th + asm.v[2] * run.t[-1])) < 1e-9


# --- user constraints, non-ideal constraints, quasi-velocity kinematics --------------------------

def test_user_pfaffian_equals_knife_edge():
    """The sleigh's blade written by hand, A = [-sin th, cos th, 0], gives the built-in rows; its
    Adot v by complex step equals the analytic one (the sleigh's is -cos th thd xd - sin th thd yd)."""
    s = ex.chaplygin_sleigh()
    A = lambda q, t: np.array([[-np.sin(q[2]), np.cos(q[2]), 0.0]])  # noqa: E731
    user = Nonholonomic(A)
    user.check(s.model)
    rng = np.random.default_rng(1)
    for _ in range(3):
        q, v = rng.normal(size=3), rng.normal(size=3)
        assert np.abs(user.jacobian(s.model, q) - s.constraints[0].jacobian(s.model, q)).max() < 1e-15
        exact = -np.cos(q[2]) * v[2] * v[0] - np.sin(q[2]) * v[2] * v[1]
        assert abs(user.bias(s.model, q, v)[0] - exact) < 1e-14
        assert abs(s.constraints[0].bias(s.model, q, v)[0] - exact) < 1e-14
    t_dep = Nonholonomic(A, b=lambda q, t: np.array([0.3 * np.sin(2 * t)]))   # a blade that is pushed sideways
    t_dep.check(s.model)
    q, v = rng.normal(size=3), rng.normal(size=3)
    exact = -np.cos(q[2]) * v[2] * v[0] - np.sin(q[2]) * v[2] * v[1] + 0.6 * np.cos(2 * 0.4)
    assert abs(t_dep.bias(s.model, q, v, 0.4)[0] - exact) < 1e-14
    system = an.System(s.model, [t_dep])
    asm = assemble(s.model, q, [t_dep], v=v, t=0.4)
    _agree(system, asm.q, asm.v, rng.normal(size=3), t=0.4)


def test_nonideal_constraints():
    """Udwadia-Kalaba with a non-ideal term C (e.g. a sliding resistance along the blade): every
    formulation gives the same motion, and the constraint force does the prescribed work on the
    allowed virtual displacements: N^T (M a + h - tau) = N^T C."""
    s = ex.chaplygin_sleigh()
    mu = 0.7

    def C(q, v, t):          # a drag along the blade on the contact point
        d = np.array([np.cos(q[2]), np.sin(q[2]), 0.0])
        return -mu * (d @ v) * d
    system = an.System(s.model, s.constraints, nonideal=C)
    rng = np.random.default_rng(8)
    q, v = _assembled(system, rng)
    tau = rng.normal(size=3)
    ref = _agree(system, q, v, tau)
    N = __import__("scipy").linalg.null_space(s.constraints[0].jacobian(s.model, q))
    assert np.abs(N.T @ (ref.constraint_force - C(q, v, 0.0))).max() < 1e-12
    ideal = an.accelerations(an.System(s.model, s.constraints), q, v, tau, method="udwadia_kalaba")
    assert np.abs(ideal.dv - ref.dv).max() > 1e-3


def test_quasi_velocity_kinematics(rng):
    """qdot = G(q) w agrees with the motion integrate() produces, and w = B v round-trips."""
    m = random_tree(rng, nb=3, floating=True)
    system = an.System(m, quasi_velocities="world")
    q, v = random_configuration(m, rng), random_velocity(m, rng)
    w = system.quasi_velocities(q, v)
    assert np.abs(system.velocities(q, w) - v).max() < 1e-14
    h = 1e-6
    fd = (ad.integrate(m, q, h * v) - ad.integrate(m, q, -h * v)) / (2 * h)
    assert np.abs(system.qdot(q, w) - fd).max() < 1e-8
    # world quasi-velocities of the base: omega and the origin's velocity in world axes
    R = quat_to_matrix(q[3:7][None])[0]
    assert np.abs(w[:3] - R @ v[:3]).max() < 1e-14 and np.abs(w[3:6] - R @ v[3:6]).max() < 1e-14


def test_errors():
    s = ex.chaplygin_sleigh()
    q, v = np.zeros(3), np.zeros(3)
    with pytest.raises(InputError, match="unknown method"):
        an.accelerations(s, q, v, method="hamilton")
    with pytest.raises(InputError, match="rows, nv = 3"):
        an.System(s.model, [Nonholonomic(lambda q, t: np.ones((1, 4)))])
    with pytest.raises(InputError, match="singular"):
        an.accelerations(an.System(s.model, quasi_velocities=lambda q: np.zeros((3, 3))), q, v)
    with pytest.raises(InputError, match="floating base"):
        an.System(s.model, quasi_velocities="world")
    with pytest.raises(InputError, match="v or the quasi-velocities"):
        an.accelerations(s, q)
    d = ex.rolling_disk()
    flat = np.array([0.0, 0.0, 0.0, *matrix_to_quat(exp3(np.array([np.pi / 2, 0.0, 0.0])))])
    with pytest.raises(InputError, match="lies flat"):
        d.constraints[0].jacobian(d.model, flat)
    with pytest.raises(InputError, match="radius"):
        RollingDisk("disk", -1.0)
    with pytest.raises(InputError, match="move in itself"):
        RollingDisk("disk", 1.0, plane_omega=(1.0, 0.0, 0.0))


# --- the compiled route -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["disk", "sphere", "sleigh", "diffdrive", "unicycle", "pivot", "knife_point"])
def test_compiled_rows_equal_the_readable_ones(name, rng):
    """Rolling (disk, sphere), knife-edge and no-pivot rows in the compiled constrained dynamics
    equal the readable ones: accelerations, multipliers and reaction wrenches; and a compiled run
    equals the readable run."""
    from artidyn.constraints import NoPivot, RollingSphere, constrained_dynamics
    from artidyn.constraints.compiled import compilable
    if name == "pivot":
        base = ex.rolling_sphere()
        system = an.System(base.model, [RollingSphere("ball", 0.1), NoPivot("ball")])
    elif name == "knife_point":
        base = ex.chaplygin_sleigh()
        system = an.System(base.model, [KnifeEdge("sleigh", lateral=(0.0, 1.0, 0.0), point=(0.3, 0.1, 0.0))])
    else:
        system = SYSTEMS[name]()
    m, cons = system.model, system.constraints
    assert compilable(cons)
    for _ in range(3):
        q, v = _assembled(system, rng, height=0.3 if m.nq >= 7 else None)
        tau = rng.normal(size=m.nv)
        ref = constrained_dynamics(m, q, v, tau, cons, method="kkt")
        if name == "diffdrive":       # redundant rows: the kernel hands the state back (least-norm multipliers)
            fast = constrained_dynamics(m, q, v, tau, cons)
        else:
            from unittest import mock
            with mock.patch("artidyn.constraints.solve.constraint_rows", side_effect=AssertionError("not compiled")):
                fast = constrained_dynamics(m, q, v, tau, cons)
        assert np.abs(fast.a - ref.a).max() < 1e-10 * (1 + np.abs(ref.a).max())
        if ref.status == "ok":
            assert np.abs(fast.lambdas - ref.lambdas).max() < 1e-9 * (1 + np.abs(ref.lambdas).max())
            for f, g in zip(fast.forces, ref.forces):
                assert np.abs(np.asarray(f) - np.asarray(g)).max() < 1e-9 * (1 + np.abs(g).max())
    q, v = _assembled(system, rng, height=0.3 if m.nq >= 7 else None)
    runs = [ad.simulate_constrained(m, q, v, cons, t_final=0.2, dt=1e-2, route=route) for route in
            ("compiled", "reference")]
    assert runs[0].stats["route"] == "compiled" and runs[1].stats["route"] == "reference"
    assert np.abs(runs[0].q - runs[1].q).max() < 1e-9
    assert np.abs(runs[0].v - runs[1].v).max() < 1e-8


def test_moving_plane_takes_the_readable_route():
    from artidyn.constraints.compiled import compilable
    system = ex.rolling_sphere(plane_omega=1.0)
    assert not compilable(system.constraints)
    q, v = _ball_state(system, (0.3, 0.0), (0.0, 0.1))
    run = ad.simulate(system.model, q, v, constraints=system.constraints, t_final=0.05, dt=1e-2)
    assert run.stats["route"] == "reference"


def test_rolling_disk_against_sympy_kanes_method():
    """The rolling disc of SymPy's documentation (KanesMethod, yaw-lean-spin coordinates and the
    contact point; an independent symbolic model, tests/sympy_rolling_disc.py): from the same
    initial state, the disk of artidyn (a free body with a RollingDisk, compiled run) and the
    SymPy model integrated by scipy at tight tolerance reach the same pose and velocity."""
    import scipy.integrate
    from sympy_rolling_disc import disc_state_to_free_body, disc_state_to_pose, rolling_disc_oracle

    r, m, g = 0.4, 1.3, 9.81
    system = ex.rolling_disk(radius=r, mass=m, g=g)
    f = rolling_disc_oracle(r, m, g)
    q0 = np.array([0.3, 0.25, 0.1, 0.2, -0.1])             # yaw, lean, spin, contact x, y
    u0 = np.array([0.4, -0.3, 5.0])
    T = 1.0
    sol = scipy.integrate.solve_ivp(lambda t, x: np.concatenate(f(x[:5], x[5:])), (0, T), np.r_[q0, u0],
                                    rtol=1e-12, atol=1e-12, method="DOP853")
    qT, uT = sol.y[:5, -1], sol.y[5:, -1]
    x0, v0 = disc_state_to_free_body(q0, u0, r)
    for method in ("gibbs_appell", "kane", "lagrange"):                     # the instant: same accelerations
        out = an.accelerations(system, x0, v0, method=method)
        assert out.residual < 1e-12
    run = ad.simulate(system.model, x0, v0, constraints=system.constraints, t_final=T, dt=1e-3)
    assert run.stats["route"] == "compiled"
    R_ref, c_ref = disc_state_to_pose(qT, r)
    xT, vT = disc_state_to_free_body(qT, uT, r)
    R = quat_to_matrix(run.q[-1, 3:][None])[0]
    assert np.abs(run.q[-1, :3] - c_ref).max() < 1e-8
    assert np.abs(R - R_ref).max() < 1e-8
    assert np.abs(run.v[-1] - vT).max() < 1e-7
