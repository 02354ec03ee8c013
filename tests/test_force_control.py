"""Hybrid position/force control (artidyn.sim.HybridForceControl): the torque law against a hand
computation on a Cartesian (gantry) robot, its null-space damping, and the UR5 example pushing on
a table with 20 N while it slides 15 cm."""
import importlib.util
import pathlib

import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import InputError
from artidyn.sim import HybridForceControl, straight_path

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"
M1, M2, M3, G = 3.0, 2.0, 1.5, 9.81


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def gantry():
    """Three prismatic joints x, y, z in series: M = diag(m1 + m2 + m3, m2 + m3, m3), J = I."""
    b = ad.ModelBuilder("gantry")
    b.add_body("cx", "world", "prismatic", axis=(1, 0, 0), mass=M1, inertia=np.eye(3) * 0.1)
    b.add_body("cy", "cx", "prismatic", axis=(0, 1, 0), mass=M2, inertia=np.eye(3) * 0.1)
    b.add_body("cz", "cy", "prismatic", axis=(0, 0, 1), mass=M3, inertia=np.eye(3) * 0.1)
    return b.build()


def test_torque_by_hand_on_a_gantry():
    model = gantry()
    kp, kd, kf, ki, fd = 100.0, 20.0, 0.5, 50.0, 10.0
    start, end = np.array([0.0, 0.0, 0.3]), np.array([1.0, 0.5, 0.3])
    path = straight_path(start, end, 2.0)
    ctl = HybridForceControl(model, "cz", (0, 0, 1), fd, path, kp=kp, kd=kd, kf=kf, ki=ki, damping=0.0)
    q, v, t = np.array([0.1, 0.2, 0.3]), np.array([0.5, -0.2, 0.1]), 0.5
    forces = np.zeros((model.nb + 1, 3))
    forces[3] = (1.0, -2.0, 8.0)                        # the table pushes the z carriage up with 8 N
    p_d, v_d, a_d = path(t)
    u = t / 2.0                                         # the quintic law by hand
    assert p_d == pytest.approx(start + (10 * u ** 3 - 15 * u ** 4 + 6 * u ** 5) * (end - start))
    assert v_d == pytest.approx(30 * u ** 2 * (1 - u) ** 2 / 2.0 * (end - start))
    assert a_d == pytest.approx(60 * u * (1 - u) * (1 - 2 * u) / 4.0 * (end - start))
    tau = ctl(t, q, v, forces)
    a_star = a_d + kd * (v_d - v) + kp * (p_d - q)
    expected = [(M1 + M2 + M3) * a_star[0], (M2 + M3) * a_star[1], -(fd + kf * (fd - 8.0)) + M3 * G]
    np.testing.assert_allclose(tau, expected, rtol=1e-12, atol=1e-12)
    forces[3, 2] = 9.0                                  # a step later: the integral holds (fd - 9) dt
    tau2 = ctl(t + 0.01, q, v, forces)
    assert tau2[2] == pytest.approx(-(fd + kf * (fd - 9.0) + ki * (fd - 9.0) * 0.01) + M3 * G, rel=1e-12)
    assert ctl.log[-1][1:] == pytest.approx((9.0, fd + kf * 1.0 + ki * 0.01))
    ctl.reset()
    assert ctl(t, q, v, forces)[2] == pytest.approx(-(fd + kf * 1.0) + M3 * G)


def test_null_space_damping_moves_no_task_coordinate():
    """The damping torque -(I - J^T Jbar^T) D v gives the tip no acceleration (J M^-1 tau_null = 0)."""
    model = ad.load("ur5_robot")
    q = np.array([0.1, -1.2, 1.6, -2.0, -1.57, 0.3])
    v = np.array([0.3, -0.2, 0.5, 0.4, -0.6, 0.7])
    path = straight_path(np.zeros(3), np.ones(3), 1.0)
    forces = np.zeros((model.nb + 1, 3))
    damped = HybridForceControl(model, "tool0", (0, 0, 1), 5.0, path, damping=3.0)
    free = HybridForceControl(model, "tool0", (0, 0, 1), 5.0, path, damping=0.0)
    t_null = damped(0.2, q, v, forces) - free(0.2, q, v, forces)
    J = ad.jacobian(model, q, "tool0", "world")[3:]
    assert np.linalg.norm(t_null) > 0.5                            # it does act (3 free dofs here) ...
    np.testing.assert_allclose(J @ np.linalg.solve(ad.crba(model, q), t_null), 0.0, atol=1e-12)   # ... not on the tip
    assert t_null @ v < 0                                          # and it dissipates


def test_bad_arguments():
    model = gantry()
    path = straight_path(np.zeros(3), np.ones(3), 1.0)
    with pytest.raises(InputError, match="normal"):
        HybridForceControl(model, "cz", (0, 0, 0), 1.0, path)
    with pytest.raises(InputError, match="kf"):
        HybridForceControl(model, "cz", (0, 0, 1), 1.0, path, kf=-1.0)
    with pytest.raises(InputError, match="path"):
        HybridForceControl(model, "cz", (0, 0, 1), 1.0, None)
    with pytest.raises(InputError, match="duration"):
        straight_path(np.zeros(3), np.ones(3), 0.0)


@pytest.fixture(scope="module")
def pushing(tmp_path_factory):
    example = load("force_control")
    out = tmp_path_factory.mktemp("fc") / "fc.png"
    return example, example.main([str(out)]), out


def test_force_held_while_sliding(pushing):
    example, run, out = pushing
    res, ctl = run["result"], run["controller"]
    assert out.stat().st_size > 0 and res.t[-1] == pytest.approx(1.6)
    f = res.contact_forces[:, ctl.body]
    settled = res.t >= 2 * example.RAMP
    assert np.abs(f[settled, 2] - example.FORCE).max() < 0.05 * example.FORCE      # within 5 % throughout
    # away from the stick/slip transitions (the friction jumps), within 0.1 %
    switches = [e.time for e in res.events if e.kind in ("stick", "slip")]
    assert switches and switches[0] == pytest.approx(example.T_MOVE, abs=0.05)   # it slides once the path starts
    quiet = settled & np.all(np.abs(res.t[:, None] - np.array(switches)[None]) > 0.05, axis=1)
    assert np.abs(f[quiet, 2] - example.FORCE).max() < 1e-3 * example.FORCE
    # the tip follows the path along the table (x, y) within half a millimetre
    err = np.abs(run["tip"] - run["reference"])[settled, :2]
    assert err.max() < 5e-4
    # it travelled the stroke, and the friction opposes the sliding with mu f_n
    assert run["tip"][-1, 0] - run["tip"][0, 0] == pytest.approx(example.STROKE, abs=1e-3)
    tip_v = np.gradient(run["tip"][:, 0], res.t)
    sliding = (res.t > example.T_MOVE + 0.1) & (res.t < example.T_MOVE + example.DURATION - 0.1)
    assert np.all(tip_v[sliding] > 0.01) and np.all(f[sliding, 0] < 0)
    np.testing.assert_allclose(-f[sliding, 0], 0.3 * f[sliding, 2], rtol=1e-6)
    assert np.all(np.abs(f[:, 1]) <= 0.3 * f[:, 2] + 1e-9)         # the whole run inside the cone


def test_force_control_run_is_deterministic(pushing):
    example, run, _ = pushing
    model = run["model"]
    again = ad.simulate(model, example.start(model), np.zeros(model.nv), tau=example.controller(model),
                        t_final=0.5, dt=example.DT, contact=ad.contact.ContactSettings())
    n = again.t.size
    assert np.array_equal(again.q, run["result"].q[:n]) and np.array_equal(again.contact_forces,
                                                                            run["result"].contact_forces[:n])


def test_a_loaded_contact_holds_through_a_long_stick_phase():
    """The example's scene without its preload (the table exactly at the tip) and with soft gains
    (kp = 400, kd = 40, kf = 0.2, ki = 20): the tip, held by friction while the motion command
    grows, creeps up by about a nanometre. Its contact, active the step before, stays active
    (hysteresis to 1e-6 m): once the force has built up, the measured force never reads 0 (before
    the hysteresis it fell to 0 N for one step, then 50 N at the next step's impact)."""
    example = load("force_control")
    example.PRELOAD = 0.0
    model = example.scene()
    path = straight_path(example.START, example.START + (example.STROKE, 0, 0), example.DURATION, example.T_MOVE)
    ctl = HybridForceControl(model, "tool0", (0, 0, 1), lambda t: example.FORCE * min(1.0, t / example.RAMP), path,
                             point=(0, 0, example.R_TIP), orientation=example.DOWN, kp=400.0, kd=40.0, kf=0.2, ki=20.0)
    res = ad.simulate(model, example.start(model), np.zeros(model.nv), tau=ctl, t_final=0.8, dt=example.DT,
                      contact=ad.contact.ContactSettings())
    f = res.contact_forces[:, ctl.body, 2]
    loaded = np.nonzero(f > 5.0)[0][0]
    assert f[loaded:].min() > 5.0 and f[loaded:].max() < 1.5 * example.FORCE


@pytest.mark.parametrize("kf, ki_h, stable", [(0.5, 0.9, True), (0.5, 1.1, False), (0.9, 0.15, True),
                                              (0.9, 0.25, False)])
def test_force_loop_stability_bound(kf, ki_h, stable):
    """On a rigid surface the measured force is the previous command plus a disturbance d: the error
    follows z^2 + (kf - 1 + ki h) z - kf (its ratio from one step to the next tends to the dominant
    root), and converges to 0 iff 0 <= kf < 1 and 0 < ki h < 2 (1 - kf) (the docstring's bound)."""
    model, h, fd, d = gantry(), 1e-3, 10.0, 1.5
    ctl = HybridForceControl(model, "cz", (0, 0, 1), fd, straight_path(np.zeros(3), np.ones(3), 1.0),
                             kf=kf, ki=ki_h / h, damping=0.0)
    forces = np.zeros((model.nb + 1, 3))
    q, v = np.array([0.0, 0.0, 0.3]), np.zeros(3)
    errors = []
    for k in range(200):
        f_n = M3 * G - ctl(k * h, q, v, forces)[2]      # the commanded normal force (tau_z = -f_n + m3 g)
        forces[3, 2] = f_n + d                          # the surface's reaction at the next step
        errors.append(fd - forces[3, 2])
    roots = np.roots([1.0, kf - 1 + ki_h, -kf])
    dominant = roots[np.argmax(np.abs(roots))].real
    assert errors[-1] / errors[-2] == pytest.approx(dominant, rel=1e-3)
    assert (abs(dominant) < 1) == stable == (ki_h < 2 * (1 - kf))
