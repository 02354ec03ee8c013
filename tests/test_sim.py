"""Simulation: integrators on the configuration manifold, results, plots, CLI commands.

Checks against analytic motions (pendulum period with the elliptic integral, free fall,
torque-free body: conserved energy and momentum), between integrators (drift ordering, orders of
convergence) and between algorithms (computed torque with RNEA inside an ABA simulation).
Horizons are short: every aba call of the reference implementation costs about a millisecond.
"""
import re

import numpy as np
import pytest
from scipy.special import ellipk

from artidyn import ModelBuilder, difference, integrate, random_configuration
from artidyn.dynamics import actuation_matrix, crba, momentum, rnea
from artidyn.errors import InputError, NameNotFound, ShapeError
from artidyn.kinematics import center_of_mass, com_velocity
from artidyn.models import cart_pendulum, pendulum, random_tree
from artidyn.spatial import quat_to_matrix
from artidyn.sim import (ComputedTorque, SimulationResult, plot_energy, plot_torques, quintic, quintic_motion,
                         simulate, velocities_from_positions)
from artidyn.sim.integrate import dexp_inv, lie_slices
from artidyn.sim.trajectories import read_trajectory_csv

G = 9.81


def double_pendulum(damping=0.0):
    """Two uniform-ish links of 1 m, 1 kg, swinging about y in the x-z plane."""
    b = ModelBuilder("double_pendulum")
    inertia = np.diag([0.08, 0.08, 0.002])
    b.add_body("link1", "world", "revolute", joint_name="j1", axis=(0, 1, 0), mass=1.0, com=(0, 0, -0.5),
               inertia=inertia, damping=damping)
    b.add_body("link2", "link1", "revolute", joint_name="j2", axis=(0, 1, 0), xyz=(0, 0, -1.0), mass=1.0,
               com=(0, 0, -0.5), inertia=inertia, damping=damping)
    return b.build()


def floating_box(gravity=(0.0, 0.0, -G), com=(0.1, -0.05, 0.2)):
    b = ModelBuilder("box", gravity=gravity)
    b.add_body("box", "world", "free", mass=2.0, com=com, inertia=np.diag([0.1, 0.2, 0.3]))
    return b.build()


Q0_DP = np.array([1.5, -0.5])


@pytest.fixture(scope="module")
def dp_runs():
    """The frictionless double pendulum, 0.5 s, with each integrator (shared by several tests)."""
    m = double_pendulum()
    runs = {(meth, dt): simulate(m, Q0_DP, t_final=0.5, dt=dt, method=meth)
            for meth, dt in (("rk4", 2e-3), ("rk4", 4e-3), ("semi-implicit", 2e-3), ("scipy", 2e-3))}
    return m, runs


# --- the chart ------------------------------------------------------------------------------------


def test_dexp_inv_is_the_chart_derivative(rng):
    # d/dt integrate(q, xi(t)) has body velocity v when d xi/dt = dexp_inv(xi, v)
    model = random_tree(rng, nb=3, floating=True, joint_types=("spherical", "revolute"))
    q = random_configuration(model, rng)
    xi = rng.normal(scale=0.4, size=model.nv)
    v = rng.normal(size=model.nv)
    xdot = dexp_inv(model, xi[None], v[None])[0]
    q_xi = integrate(model, q, xi)
    eps = 1e-5
    fd = (difference(model, q_xi, integrate(model, q, xi + eps * xdot))
          - difference(model, q_xi, integrate(model, q, xi - eps * xdot))) / (2 * eps)
    np.testing.assert_allclose(fd, v, atol=1e-8)
    # flat joints: the chart velocity is v itself
    flat = [k for k in range(model.nv) if not any(s.start <= k < s.stop for s, _ in lie_slices(model))]
    np.testing.assert_array_equal(xdot[flat], v[flat])


# --- energy ---------------------------------------------------------------------------------------


def test_energy_conservation_and_drift_ordering(dp_runs):
    m, runs = dp_runs
    drift = {k: float(r.energy_drift()) for k, r in runs.items()}
    r = runs[("rk4", 2e-3)]
    assert r.q.shape == (251, 2) and r.energy.total.shape == (251,)
    assert np.max(r.energy.kinetic) > 5.0  # a real swing, not a trivial motion
    assert drift[("rk4", 2e-3)] < 1e-8
    assert drift[("scipy", 2e-3)] < 1e-8
    # semi-implicit Euler: bounded O(dt) oscillation, orders of magnitude above rk4
    assert 1e-4 < drift[("semi-implicit", 2e-3)] < 0.05
    assert drift[("semi-implicit", 2e-3)] > 1e4 * drift[("rk4", 2e-3)]
    # rk4: halving dt divides the drift by about 2^4
    assert drift[("rk4", 4e-3)] / drift[("rk4", 2e-3)] > 8
    # integrators agree on the motion
    np.testing.assert_allclose(r.q[-1], runs[("scipy", 2e-3)].q[-1], atol=1e-7)
    # energies are those of the dynamics module: T = v.M.v / 2
    M = crba(m, r.q[::50])
    np.testing.assert_allclose(r.energy.kinetic[::50], 0.5 * np.einsum("ni,nij,nj->n", r.v[::50], M, r.v[::50]),
                               rtol=1e-12)


def test_viscous_friction_dissipates_energy():
    d = np.array([0.3, 0.2])
    m = double_pendulum().replace(damping=d)
    r = simulate(m, Q0_DP, t_final=0.4, dt=2e-3)
    E = r.energy.total
    assert np.all(np.diff(E) < 1e-12)
    assert E[0] - E[-1] > 0.1
    # power balance: dE/dt = -sum d v^2 (Simpson-like accuracy with the trapezoid at 2 ms)
    loss = np.trapezoid(np.sum(d * r.v**2, axis=1), r.t) if hasattr(np, "trapezoid") else \
        np.trapz(np.sum(d * r.v**2, axis=1), r.t)
    np.testing.assert_allclose(E[0] - E[-1], loss, rtol=1e-4)
    # the recorded tau is zero (friction is not an actuator torque) and a solves the friction model
    np.testing.assert_array_equal(r.tau, 0.0)
    np.testing.assert_allclose(rnea(m, r.q[::50], r.v[::50], r.a[::50]), 0.0, atol=1e-10)


def test_pendulum_period_exact_and_small_angle():
    # seed's pendulum: point mass m at l, (m l^2) q'' + m l g sin q = 0; two amplitudes in one batch
    l = 1.0
    model = pendulum(m=1.0, l=l, g=G)
    amps = np.array([0.01, 1.0])
    T_exact = 4 * np.sqrt(l / G) * ellipk(np.sin(amps / 2) ** 2)
    r = simulate(model, amps[:, None], t_final=0.8 * T_exact.max(), dt=5e-3)
    assert r.q.shape == (2, r.t.size, 1)            # a batch: runs first
    q, v = r.q[:, :, 0].T, r.v[:, :, 0].T
    periods = []
    for k in range(2):
        # first two zero crossings (T/4 and 3T/4), refined by one Newton step t* = t_j - q_j / v_j
        j = np.flatnonzero(np.sign(q[:-1, k]) != np.sign(q[1:, k]))[:2]
        j = np.where(np.abs(q[j, k]) < np.abs(q[j + 1, k]), j, j + 1)
        t_zero = r.t[j] - q[j, k] / v[j, k]
        periods.append(2 * (t_zero[1] - t_zero[0]))
    np.testing.assert_allclose(periods, T_exact, rtol=1e-6)
    # small angle: 2 pi sqrt(l / g) (the elliptic correction is 1 + amp^2 / 16 = 1 + 6e-6)
    np.testing.assert_allclose(periods[0], 2 * np.pi * np.sqrt(l / G), rtol=1e-5)
    assert periods[1] > 1.05 * 2 * np.pi * np.sqrt(l / G)


# --- floating base --------------------------------------------------------------------------------


def test_free_fall_of_a_spinning_body():
    model = floating_box()
    q0 = np.array([0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 1.0])
    v0 = np.array([1.0, 3.0, -2.0, 0.5, 0.0, -0.3])
    r = simulate(model, q0, v0, t_final=0.5, dt=5e-3)
    # quaternion stays unit
    np.testing.assert_allclose(np.linalg.norm(r.q[:, 3:], axis=1), 1.0, atol=1e-14)
    # the centre of mass follows c0 + vc0 t + g t^2 / 2
    c = center_of_mass(model, r.q)
    c0, vc0 = center_of_mass(model, q0), com_velocity(model, q0, v0)
    ref = c0 + r.t[:, None] * vc0 + 0.5 * r.t[:, None] ** 2 * np.array([0, 0, -G])
    np.testing.assert_allclose(c, ref, atol=1e-7)
    assert np.max(np.abs(c[-1] - c0)) > 1.0
    # without spin and with the com at the body origin, the base position itself is a parabola
    m2 = floating_box(com=(0, 0, 0))
    r2 = simulate(m2, q0, np.array([0, 0, 0, 0.4, -0.2, 1.0]), t_final=0.3, dt=0.01, method="semi-implicit",
                  energy_tol=None)   # its O(dt) energy error is the point here
    p = q0[:3] + r2.t[:, None] * np.array([0.4, -0.2, 1.0]) + 0.5 * r2.t[:, None] ** 2 * np.array([0, 0, -G])
    # semi-implicit Euler on a constant acceleration: q_n = exact + g t dt / 2
    np.testing.assert_allclose(r2.q[:, :3], p + 0.5 * 0.01 * r2.t[:, None] * np.array([0, 0, -G]), atol=1e-12)


def test_external_force_cancels_gravity():
    model = floating_box()
    q0 = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0])
    v0 = np.array([0.7, -0.4, 1.1, 0.0, 0.2, 0.0])
    mg_up = np.array([0.0, 0.0, 2.0 * G])
    com = np.asarray(model.com[1])

    def lift(t, q, v):  # the weight's opposite, applied at the com, in body axes about the origin
        f = quat_to_matrix(q[3:]).T @ mg_up
        F = np.zeros((2, 6))
        F[1] = np.concatenate([np.cross(com, f), f])
        return F

    # a Python function is held over each step (zero-order hold): O(dt) from the body's turn
    r = simulate(model, q0, v0, t_final=0.3, dt=1e-3, f_ext=lift)
    c, c0 = center_of_mass(model, r.q), center_of_mass(model, q0)
    drift = np.abs(c - (c0 + r.t[:, None] * com_velocity(model, q0, v0))).max()
    assert 1e-6 < drift < 3e-4
    # ... and the error is first order in dt
    r2 = simulate(model, q0, v0, t_final=0.3, dt=5e-4, f_ext=lift)
    drift2 = np.abs(center_of_mass(model, r2.q) - (c0 + r2.t[:, None] * com_velocity(model, q0, v0))).max()
    assert 1.8 < drift / drift2 < 2.2


def test_torque_free_body_rk4_order_and_momentum():
    model = floating_box(gravity=(0, 0, 0))
    q0 = np.array([0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 1.0])
    v0 = np.array([1.0, 3.0, -2.0, 0.5, 0.0, -0.3])
    ref = simulate(model, q0, v0, t_final=0.5, dt=0.05, method="scipy", ivp_options=dict(rtol=1e-12, atol=1e-13))
    h = momentum(model, ref.q, ref.v)
    np.testing.assert_allclose(h, np.broadcast_to(h[0], h.shape), atol=1e-9)  # spatial momentum conserved
    assert ref.energy_drift() < 1e-10
    # a coarse grid (0.9 rad of rotation per step): the chart is re-centred at every step
    coarse = simulate(model, q0, v0, t_final=0.5, dt=0.25, method="scipy")
    np.testing.assert_allclose(difference(model, coarse.q[-1], ref.q[-1]), 0, atol=1e-8)
    err = []
    for dt in (0.05, 0.025):
        r = simulate(model, q0, v0, t_final=0.5, dt=dt)
        err.append(np.max(np.abs(difference(model, r.q[-1], ref.q[-1]))))
    assert err[1] < 1e-5 and 12 < err[0] / err[1] < 20  # fourth order on SE(3)


# --- torques: controllers, tables, actuation ------------------------------------------------------


def test_computed_torque_tracks_a_quintic():
    model = double_pendulum(damping=0.1)
    q_start, q_goal, T = np.array([0.2, -0.3]), np.array([1.2, 0.6]), 0.25

    kp, kd = 400.0, 40.0

    def controller(t, q, v):
        qr, vr, ar = quintic(q_start, q_goal, T, t)
        return rnea(model, q, v, ar + kd * (vr - v) + kp * (qr - q))

    # the compiled computed-torque law, its reference sampled every 0.1 ms (linear in between)
    t_ref = np.linspace(0.0, 0.3, 3001)
    ctrl = ComputedTorque(kp, kd, *quintic(q_start, q_goal, T, np.minimum(t_ref, T)), t_ref=t_ref)
    e0 = 0.01
    r = simulate(model, q_start + np.array([e0, -e0]), controller=ctrl, t_final=0.3, dt=2e-3)
    qr, _, _ = quintic(q_start, q_goal, T, r.t)
    e = np.abs(r.q - qr).max(axis=1)
    # the model is exact, so the error obeys e'' + kd e' + kp e = 0: critically damped at 20 rad/s
    np.testing.assert_allclose(e, e0 * (1 + 20 * r.t) * np.exp(-20 * r.t), atol=1e-7)
    assert e[-1] < 2e-4 and np.abs(r.q[-1] - q_goal).max() < 2e-4
    # recorded torques are what the controller returned
    np.testing.assert_allclose(r.tau[10], controller(r.t[10], r.q[10], r.v[10]), rtol=1e-12)


def test_torque_table_on_an_underactuated_model():
    model = cart_pendulum().replace(actuated=[True, False])
    B = actuation_matrix(model)
    assert B.shape == (2, 1)
    n = 30
    u = np.sin(np.linspace(0, 3, n))[:, None] * 5.0  # force on the cart only: (n_steps, na)
    q0 = np.array([0.0, -1.2])
    r = simulate(model, q0, tau=u, t_final=0.06, dt=2e-3)
    assert r.tau.shape == (n + 1, 2)
    np.testing.assert_array_equal(r.tau[:n, 0], u[:, 0])
    np.testing.assert_array_equal(r.tau[:, 1], 0.0)
    # a solves the dynamics with that tau (ABA in the loop, RNEA as the check)
    np.testing.assert_allclose(rnea(model, r.q, r.v, r.a), r.tau, atol=1e-10)
    # scipy restarts at each step for a torque table: same motion
    rs = simulate(model, q0, tau=u, t_final=0.06, dt=2e-3, method="scipy")
    np.testing.assert_allclose(rs.q, r.q, atol=1e-9)
    # the full (n_steps, nv) form gives the same run
    np.testing.assert_allclose(simulate(model, q0, tau=u @ B.T, t_final=0.06, dt=2e-3).q, r.q, atol=0)


def test_bad_arguments():
    model = cart_pendulum()
    with pytest.raises(ShapeError, match=r"nv = 2.*na = 2"):
        simulate(model, np.zeros(2), tau=np.zeros(3), t_final=0.01)
    with pytest.raises(ShapeError, match="over the 10 time steps"):
        simulate(model, np.zeros(2), tau=np.zeros((7, 2)), t_final=0.01, dt=1e-3)
    with pytest.raises(InputError, match="unknown method"):
        simulate(model, np.zeros(2), method="euler")
    with pytest.raises(InputError, match="dt"):
        simulate(model, np.zeros(2), dt=0.0)
    with pytest.raises(ShapeError, match="q0"):
        simulate(model, np.zeros(3))
    with pytest.raises(InputError, match="NaN"):
        simulate(model, np.zeros(2), tau=np.array([np.nan, 0.0]))
    with pytest.raises(InputError, match="unit quaternion"):
        simulate(floating_box(), np.array([0, 0, 0, 0, 0, 0, 2.0]))


def test_batch_equals_single_runs(rng):
    model = random_tree(rng, nb=3, floating=True)
    Q0 = random_configuration(model, rng, size=2)
    V0 = rng.normal(size=(2, model.nv))
    tau = rng.normal(size=(2, model.nv))
    batch = simulate(model, Q0, V0, tau=tau, t_final=0.03, dt=0.01)
    assert batch.q.shape == (2, 4, model.nq) and batch.batch == 2
    for k in range(2):
        one = simulate(model, Q0[k], V0[k], tau=tau[k], t_final=0.03, dt=0.01)
        np.testing.assert_allclose(batch.q[k], one.q, atol=1e-13)
        np.testing.assert_allclose(batch.energy.total[k], one.energy.total, atol=1e-12)


# --- reference motions ----------------------------------------------------------------------------


def test_quintic():
    q0, q1, T = np.array([0.5, -1.0]), np.array([2.0, 1.0]), 1.5
    t = np.linspace(-0.2, 1.7, 400)
    q, qd, qdd = quintic(q0, q1, T, t)
    assert q.shape == (400, 2)
    for x, y in ((0.0, q0), (T, q1), (-0.2, q0), (1.7, q1)):
        qq, vv, aa = quintic(q0, q1, T, x)
        np.testing.assert_allclose(qq, y, atol=1e-15)
        np.testing.assert_allclose(vv, 0, atol=1e-15)
        np.testing.assert_allclose(aa, 0, atol=1e-12)
    # peak velocity 15/8 (q1 - q0) / T at T / 2
    np.testing.assert_allclose(quintic(q0, q1, T, T / 2)[1], 15 / 8 * (q1 - q0) / T)
    # derivatives by central differences
    h = 1e-6
    tm = np.array([0.3, 0.9, 1.2])
    fd_v = (quintic(q0, q1, T, tm + h)[0] - quintic(q0, q1, T, tm - h)[0]) / (2 * h)
    fd_a = (quintic(q0, q1, T, tm + h)[1] - quintic(q0, q1, T, tm - h)[1]) / (2 * h)
    np.testing.assert_allclose(fd_v, quintic(q0, q1, T, tm)[1], rtol=1e-8)
    np.testing.assert_allclose(fd_a, quintic(q0, q1, T, tm)[2], rtol=1e-7)
    with pytest.raises(InputError):
        quintic(q0, q1, 0.0, 0.1)


def test_quintic_motion_on_the_manifold_and_finite_differences(rng):
    model = random_tree(rng, nb=2, floating=True, joint_types=("spherical", "prismatic"))
    q0, q1 = random_configuration(model, rng, size=2)
    t = np.linspace(0, 1.0, 201)
    q, v, a = quintic_motion(model, q0, q1, 1.0, t)
    np.testing.assert_allclose(difference(model, q[-1], q1), 0, atol=1e-12)
    v_fd, a_fd = velocities_from_positions(model, t, q)
    np.testing.assert_allclose(v_fd[1:-1], v[1:-1], atol=2e-4 * np.abs(v).max())
    np.testing.assert_allclose(a_fd[5:-5], a[5:-5], atol=5e-3 * np.abs(a).max())


# --- files, plots, command line -------------------------------------------------------------------


def test_csv_npz_round_trip(tmp_path, rng):
    model = random_tree(rng, nb=2, floating=True, joint_types=("spherical", "revolute"))
    for q0 in (random_configuration(model, rng), random_configuration(model, rng, size=2)):
        r = simulate(model, q0, t_final=0.02, dt=0.01)
        for path, read in ((tmp_path / "r.csv", SimulationResult.from_csv),
                           (tmp_path / "r.npz", SimulationResult.from_npz)):
            (r.to_csv if path.suffix == ".csv" else r.to_npz)(path)
            back = read(path)
            for name in ("t", "q", "v", "a", "tau"):
                np.testing.assert_array_equal(getattr(back, name), getattr(r, name))
            for e, f in zip(back.energy, r.energy):
                np.testing.assert_array_equal(e, f)
            assert back.q_names == r.q_names and back.v_names == r.v_names
    header = (tmp_path / "r.csv").read_text().splitlines()[0].split(",")
    assert header[:2] == ["t", "run"] and "q_root_joint.qw" in header and "v_root_joint.wx" in header


def test_plots_are_written(tmp_path, dp_runs):
    m, runs = dp_runs
    r = runs[("rk4", 2e-3)]
    files = [tmp_path / "all.png", tmp_path / "energy.png", tmp_path / "tau.png"]
    fig = r.plot(files[0])
    assert len(fig.axes) == 5   # q, v, tau of the double pendulum's one group, then energy and its drift
    plot_energy(r, files[1])
    plot_torques(r.t, r.v, ["j1", "j2"], files[2], limits=[1.0, np.inf])
    for f in files:
        assert f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 5000
    with pytest.raises(ValueError, match="unknown panel"):
        r.plot(what=("q", "jerk"))


def _cli(*argv):
    from artidyn.cli import main
    return main([str(a) for a in argv])


def test_cli_simulate_and_torques(tmp_path, capsys):
    out = tmp_path / "sim"
    assert _cli("simulate", "pendulum", "--q0", "0.5", "--t-final", "0.1", "--dt", "0.01", "--out", out) == 0
    for name in ("simulation.csv", "simulation.npz", "trajectory.png", "energy.png"):
        assert (out / name).stat().st_size > 0
    r = SimulationResult.from_csv(out / "simulation.csv")
    assert r.q.shape == (11, 1) and r.q[0, 0] == 0.5
    assert "drift" in capsys.readouterr().out
    # torques of the simulated (unactuated) motion: zero, from the file's own v and a
    assert _cli("torques", "pendulum", "--trajectory", out / "simulation.csv", "--out", out) == 0
    tau = np.loadtxt(out / "torques.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(tau[:, 1], 0.0, atol=1e-10)
    # a trajectory with bare joint names and positions only: finite differences, vs exact RNEA
    model = cart_pendulum()
    t = np.linspace(0, 1, 401)
    q, v, a = quintic(np.array([0.0, -1.5]), np.array([0.4, 0.5]), 1.0, t)
    traj = tmp_path / "traj.csv"
    np.savetxt(traj, np.column_stack([t, q[:, 1], q[:, 0]]), delimiter=",", header="t,hinge,slider", comments="")
    assert _cli("torques", "cart_pendulum", "--trajectory", traj, "--out", tmp_path / "tq") == 0
    tau = np.loadtxt(tmp_path / "tq" / "torques.csv", delimiter=",", skiprows=1)[:, 1:]
    exact = rnea(model, q, v, a)
    np.testing.assert_allclose(tau[5:-5], exact[5:-5], atol=1e-3 * np.abs(exact).max())
    assert "finite differences" in capsys.readouterr().out
    assert (tmp_path / "tq" / "torques.png").stat().st_size > 0
    # unknown column: a clear error with suggestions
    np.savetxt(traj, np.column_stack([t, q]), delimiter=",", header="t,slidr,hinge", comments="")
    assert _cli("torques", "cart_pendulum", "--trajectory", traj, "--out", tmp_path) == 2
    assert "no column for coordinate 'slider'" in capsys.readouterr().err
    with pytest.raises(NameNotFound, match="did you mean 'slidr'"):
        read_trajectory_csv(model, traj)


def test_report_sections(tmp_path):
    from artidyn.report import build_report, fmt
    model = pendulum(m=1.0, l=1.0, g=G)
    text = build_report(model, tmp_path)
    for title in ("## Dynamics at the neutral configuration", "## Torques along a quintic motion",
                  "## Free-fall simulation"):
        assert title in text
    # the motion ends at rest at q1 = 0.5 rad, where the motor holds m g l sin(0.5)
    assert f"| pivot | {fmt(G * np.sin(0.5))} | 2 |" in re.sub(" +", " ", text)
    for name in ("torques_quintic.png", "free_fall_energy.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"


def test_cli_simulate_lists_limit_crossings_once(tmp_path, capsys):
    # talos's grippers leave their ranges at once: listed in the summary, not warned a second time
    import warnings
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert _cli("simulate", "talos_full_v2", "--t-final", "0.01", "--out", tmp_path / "t") == 0
    out = capsys.readouterr().out
    assert out.count("joint-limit crossing") == 1 and "gripper_left_joint" in out
    assert not [w for w in seen if "joint-limit" in str(w.message)]
