"""The compiled simulation engine (artidyn.kernels.stepping behind simulate / rollout).

Closed forms (the pendulum by Jacobi's elliptic functions, the torque-free symmetric top),
orders of convergence, the compiled steppers against the readable reference ones step by step,
rollouts against single runs, inputs (tables, TimeTable, Python functions, compiled PD and
computed torque), the implicit method on stiff damping and on Coulomb stick-slip, failures
(SimulationError with the partial result), joint-limit events, the default step and the
progress bar.
"""
import warnings

import numpy as np
import pytest
from scipy.special import ellipj, ellipk

import artidyn as ad
from artidyn import ModelBuilder, SimulationError
from artidyn.errors import InputError, ShapeError
from artidyn.models import pendulum, random_tree
from artidyn.sim import PD, ComputedTorque, JointLimitWarning, TimeTable, default_dt, rollout, simulate
from artidyn.sim.integrate import dopri5_step, rk4_step, semi_implicit_step
from artidyn.sim.report_sections import report_posture

G = 9.81
FIXED = ("semi-implicit", "rk4", "implicit")


def pendulum_exact(theta0, t, g=G, l=1.0):
    """Released at rest from theta0: sin(theta/2) = k sn(K - w t | k^2), k = sin(theta0/2)."""
    k = np.sin(theta0 / 2)
    m = k * k
    sn, _, _, _ = ellipj(ellipk(m) - np.sqrt(g / l) * t, m)
    return 2 * np.arcsin(k * sn)


def symmetric_top(I=0.2, I3=0.3):
    b = ModelBuilder("top", gravity=(0.0, 0.0, 0.0))
    b.add_body("top", "world", "free", mass=1.0, inertia=np.diag([I, I, I3]))
    return b.build()


def stiff_damped_arm(damping=5.0):
    """Two light links with heavy joint damping: gamma = d / I of about 1e4 1/s."""
    b = ModelBuilder("stiff")
    inertia = np.diag([1e-4, 1e-4, 1e-4])
    b.add_body("l1", "world", "revolute", joint_name="j1", axis=(0, 1, 0), mass=0.05, com=(0, 0, -0.05),
               inertia=inertia, damping=damping)
    b.add_body("l2", "l1", "revolute", joint_name="j2", axis=(0, 1, 0), xyz=(0, 0, -0.1), mass=0.05,
               com=(0, 0, -0.05), inertia=inertia, damping=damping)
    return b.build()


# --- closed forms and orders ----------------------------------------------------------------------

@pytest.mark.parametrize("method, dt, tol", [("rk4", 1e-3, 1e-10), ("semi-implicit", 1e-4, 2e-3),
                                             ("implicit", 1e-4, 2e-3), ("dopri5", 1e-2, 1e-6)])
def test_pendulum_against_jacobi_elliptic_solution(method, dt, tol):
    model = pendulum()
    r = simulate(model, np.array([1.2]), t_final=2.0, dt=dt, method=method, rtol=1e-9, atol=1e-11)
    exact = pendulum_exact(1.2, r.t)
    assert np.max(np.abs(r.q[:, 0] - exact)) < tol
    # the recorded acceleration is the dynamics' own: -g sin(q)
    np.testing.assert_allclose(r.a[:, 0], -G * np.sin(r.q[:, 0]), atol=1e-12)


@pytest.mark.parametrize("method, order", [("semi-implicit", 2.0), ("implicit", 2.0), ("rk4", 16.0)])
def test_order_of_convergence_on_the_pendulum(method, order):
    model = pendulum()
    errors = []
    for dt in (4e-3, 2e-3, 1e-3):
        r = simulate(model, np.array([1.2]), t_final=1.0, dt=dt, method=method)
        errors.append(abs(r.q[-1, 0] - pendulum_exact(1.2, 1.0)))
    ratios = [errors[0] / errors[1], errors[1] / errors[2]]
    assert all(abs(x / order - 1) < 0.15 for x in ratios), ratios


def test_torque_free_symmetric_top_precession():
    # I1 = I2 = I: omega_3 constant, (omega_1, omega_2) turns at k = (I3 - I) / I omega_3
    I, I3, w0, w3 = 0.2, 0.3, 0.7, 2.0
    model = symmetric_top(I, I3)
    q0 = ad.neutral(model)
    v0 = np.array([w0, 0.0, w3, 0.1, -0.2, 0.3])
    k = (I3 - I) / I * w3
    for method, dt, tol in (("rk4", 1e-3, 1e-10), ("dopri5", 1e-2, 1e-7), ("semi-implicit", 1e-4, 2e-3)):
        r = simulate(model, q0, v0, t_final=2.0, dt=dt, method=method, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(r.v[:, 0], w0 * np.cos(k * r.t), atol=tol)
        np.testing.assert_allclose(r.v[:, 1], w0 * np.sin(k * r.t), atol=tol)
        np.testing.assert_allclose(r.v[:, 2], w3, atol=tol)
    # RK4 on the manifold: error / 16 when dt / 2
    errs = []
    for dt in (2e-2, 1e-2):
        r = simulate(model, q0, v0, t_final=2.0, dt=dt, method="rk4")
        errs.append(abs(r.v[-1, 0] - w0 * np.cos(k * 2.0)))
    assert 12 < errs[0] / errs[1] < 20


def test_energy_drift_of_a_frictionless_tree_is_bounded_and_reported(rng):
    model = random_tree(rng, nb=6, floating=False, joint_types=("revolute", "spherical", "prismatic"))
    q0 = ad.random_configuration(model, rng)
    v0 = rng.normal(size=model.nv)
    drifts = {}
    for method, dt in (("rk4", 1e-3), ("dopri5", 1e-2), ("semi-implicit", 1e-4)):
        r = simulate(model, q0, v0, t_final=1.0, dt=dt, method=method, rtol=1e-10, atol=1e-12)
        drifts[method] = r.energy_drift()
        assert r.stats["energy_error"] >= 0 and r.conservative
        # the energies written by the engine are the reference energies of the written states
        np.testing.assert_allclose(r.energy.kinetic, ad.kinetic_energy(model, r.q, r.v), rtol=1e-11, atol=1e-11)
        np.testing.assert_allclose(r.energy.potential, ad.potential_energy(model, r.q), rtol=1e-11, atol=1e-11)
    assert drifts["rk4"] < 1e-6 and drifts["dopri5"] < 1e-6 and drifts["semi-implicit"] < 2e-2


# --- compiled = reference -------------------------------------------------------------------------

@pytest.mark.parametrize("method, step", [("rk4", rk4_step), ("semi-implicit", semi_implicit_step)])
def test_compiled_steps_equal_the_reference_steppers(rng, method, step):
    model = random_tree(rng, nb=5, floating=True, joint_types=("spherical", "revolute", "prismatic"))
    model = model.replace(damping=np.full(model.nv, 0.3))
    q0 = ad.random_configuration(model, rng)
    v0 = rng.normal(size=model.nv)
    tau = rng.normal(size=model.nv)
    f_ext = rng.normal(size=(model.nb + 1, 6))
    r = simulate(model, q0, v0, tau=tau, f_ext=f_ext, t_final=0.05, dt=1e-3, method=method)
    with ad.kernels.reference_only():
        def f(t, Q, V):
            T = np.broadcast_to(tau, V.shape)
            return ad.aba(model, Q, V, T, f_ext), T
        Q, V = q0[None], v0[None]
        for k in range(r.n_steps):
            np.testing.assert_allclose(r.q[k], Q[0], atol=1e-12)
            np.testing.assert_allclose(r.v[k], V[0], atol=1e-12)
            Q, V, A, _ = step(model, f, r.t[k], Q, V, r.dt)
            np.testing.assert_allclose(r.a[k], A[0], atol=1e-11)


def test_compiled_dopri5_step_equals_the_reference(rng):
    # the first step has the size of the first sample interval (1 ms) and is accepted: sample 1 is
    # the step's end (the continuous extension at theta = 1)
    model = random_tree(rng, nb=4, floating=True, joint_types=("spherical", "revolute"))
    q0, v0 = ad.random_configuration(model, rng), rng.normal(size=model.nv)
    tau = rng.normal(size=model.nv)
    r = simulate(model, q0, v0, tau=tau, method="dopri5", t_eval=[0.0, 1e-3], rtol=1e-3, atol=1e-3)
    assert r.stats["accepted_steps"] == 1 and r.stats["rejected_steps"] == 0
    with ad.kernels.reference_only():
        f = lambda t, Q, V: (ad.aba(model, Q, V, np.broadcast_to(tau, V.shape)), None)  # noqa: E731
        Q1, V1, A0, _, err = dopri5_step(model, f, 0.0, q0[None], v0[None], 1e-3)
    np.testing.assert_allclose(r.q[1], Q1[0], atol=1e-13)
    np.testing.assert_allclose(r.v[1], V1[0], atol=1e-12)
    np.testing.assert_allclose(r.a[0], A0[0], atol=1e-11)
    # the embedded error estimate is small against the tolerance that accepted it
    assert np.max(np.abs(err[1])) < 1e-3 * (1 + np.max(np.abs(V1)))


def test_implicit_step_equals_its_equation(rng):
    # (M + h D)(v+ - v) = h M a(q, v);  q+ = q (+) h v+
    model = stiff_damped_arm().replace(armature=[0.01, 0.02])
    q0, v0, h = np.array([0.3, -0.2]), np.array([1.0, -2.0]), 1e-3
    r = simulate(model, q0, v0, tau=np.array([0.1, 0.05]), t_final=h, dt=h, method="implicit")
    M = ad.crba(model, q0)
    a = ad.aba(model, q0, v0, np.array([0.1, 0.05]))
    v1 = v0 + np.linalg.solve(M + h * np.diag(model.damping), h * M @ a)
    np.testing.assert_allclose(r.v[1], v1, atol=1e-13)
    np.testing.assert_allclose(r.q[1], q0 + h * v1, atol=1e-15)


# --- rollouts ------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", ["rk4", "dopri5", "implicit"])
def test_rollout_equals_single_runs(rng, method):
    model = random_tree(rng, nb=4, floating=True)
    N = 4
    Q0 = ad.random_configuration(model, rng, size=N)
    V0 = rng.normal(size=(N, model.nv))
    tau = rng.normal(size=(N, model.nv))
    batch = rollout(model, Q0, V0, tau=tau, t_final=0.05, dt=1e-2 if method == "dopri5" else 1e-3, method=method)
    assert batch.q.shape == (N, batch.t.size, model.nq) and batch.batch == N
    for k in range(N):
        one = simulate(model, Q0[k], V0[k], tau=tau[k], t_final=0.05, dt=1e-2 if method == "dopri5" else 1e-3,
                       method=method)
        np.testing.assert_array_equal(batch.q[k], one.q)
        np.testing.assert_array_equal(batch.v[k], one.v)
        np.testing.assert_array_equal(batch.energy.total[k], one.energy.total)
    # simulate with a batch is a rollout
    np.testing.assert_array_equal(simulate(model, Q0, V0, tau=tau, t_final=0.05, dt=1e-3).q,
                                  rollout(model, Q0, V0, tau=tau, t_final=0.05, dt=1e-3).q)


def test_rollout_records_what_is_asked(rng, tmp_path):
    model = random_tree(rng, nb=3, floating=True)
    Q0 = ad.random_configuration(model, rng, size=3)
    full = rollout(model, Q0, t_final=0.05, dt=1e-3)
    lean = rollout(model, Q0, t_final=0.05, dt=1e-3, record=("q", "v"))
    np.testing.assert_array_equal(lean.q, full.q)
    np.testing.assert_array_equal(lean.v, full.v)
    assert lean.a is None and lean.tau is None and lean.energy is None
    assert lean.stats["energy_error"][0] == full.stats["energy_error"][0]   # the check runs all the same
    with pytest.raises(InputError, match="not recorded"):
        lean.energy_drift()
    back = ad.SimulationResult.from_csv(lean.to_csv(tmp_path / "lean.csv"))
    np.testing.assert_array_equal(back.q, lean.q)
    assert back.a is None and back.energy is None
    with pytest.raises(ValueError, match="not recorded"):
        lean.plot(what=("q", "a"))
    with pytest.raises(InputError, match="record"):
        simulate(model, Q0[0], t_final=0.01, record=("a",))


def test_rollout_input_sequences_per_run(rng):
    model = pendulum()
    n_steps, N = 20, 3
    U = rng.normal(size=(n_steps, N, 1))
    r = rollout(model, np.zeros(1), tau=U, t_final=0.02, dt=1e-3, method="semi-implicit")
    for k in range(N):
        one = simulate(model, np.zeros(1), tau=U[:, k], t_final=0.02, dt=1e-3, method="semi-implicit")
        np.testing.assert_array_equal(r.q[k], one.q)
        np.testing.assert_array_equal(r.tau[k, :n_steps], U[:, k])


# --- inputs ----------------------------------------------------------------------------------------

def sliding_mass(m=2.0):
    b = ModelBuilder("slider", gravity=(0.0, 0.0, 0.0))
    b.add_body("mass", "world", "prismatic", joint_name="x", axis=(1, 0, 0), mass=m)
    return b.build()


def test_torque_tables_hold_and_interpolate():
    model, m = sliding_mass(), 2.0
    n, T = 100, 1.0
    grid = np.linspace(0, T, n + 1)
    # a ramp F = c t sampled at the grid times, interpolated: x = c t^3 / (6 m) (RK4 exact on a cubic)
    c = 3.0
    r = simulate(model, np.zeros(1), tau=(c * grid)[:, None], t_final=T, dt=T / n, method="rk4")
    np.testing.assert_allclose(r.q[:, 0], c * grid**3 / (6 * m), atol=1e-13)
    # the same ramp as a TimeTable at other times; dopri5 samples at t_eval
    table = TimeTable([0.0, 0.37, 2.0], [[0.0], [0.37 * c], [2.0 * c]])
    t_eval = np.array([0.0, 0.1, 0.55, 0.9, 1.0])
    d = simulate(model, np.zeros(1), tau=table, t_final=T, method="dopri5", t_eval=t_eval, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(d.t, t_eval)
    np.testing.assert_allclose(d.q[:, 0], c * t_eval**3 / (6 * m), atol=1e-11)
    # one row per step: held over the step (a staircase), exact with any method
    u = np.arange(n, dtype=float)[:, None]
    for method in ("rk4", "semi-implicit", "dopri5"):
        h = simulate(model, np.zeros(1), tau=u, t_final=T, dt=T / n, method=method, rtol=1e-12, atol=1e-14)
        x = np.concatenate([[0.0], np.cumsum(u[:, 0] / m * (T / n))])   # velocity at the grid
        pos = np.concatenate([[0.0], np.cumsum((x[:-1] + 0.5 * u[:, 0] / m * T / n) * T / n)])
        tol = 1e-10 if method != "semi-implicit" else 0.3
        np.testing.assert_allclose(h.v[:, 0], x, atol=1e-9 if method != "semi-implicit" else 1e-12)
        np.testing.assert_allclose(h.q[:, 0], pos, atol=tol)


def test_external_wrench_tables_and_functions():
    model, m = sliding_mass(), 2.0
    F = np.zeros((2, 6))
    F[1, 3] = 4.0                                   # 4 N along x on the mass
    r = simulate(model, np.zeros(1), f_ext=F, t_final=0.5, dt=1e-3)
    np.testing.assert_allclose(r.q[:, 0], 0.5 * 4.0 / m * r.t**2, atol=1e-12)
    g = simulate(model, np.zeros(1), f_ext=lambda t, q, v: F, t_final=0.5, dt=1e-3)
    np.testing.assert_allclose(g.q, r.q, atol=1e-12)
    table = TimeTable([0.0, 1.0], np.stack([F, F]))
    np.testing.assert_allclose(simulate(model, np.zeros(1), f_ext=table, t_final=0.5, dt=1e-3).q, r.q, atol=1e-12)
    with pytest.raises(ShapeError, match="f_ext"):
        simulate(model, np.zeros(1), f_ext=np.zeros((3, 6)), t_final=0.01, dt=1e-3)


def test_compiled_pd_equals_the_same_law_in_python():
    # semi-implicit Euler evaluates the torque once per step: the Python function (held over the
    # step) and the compiled PD give the same run
    model = ad.load("planar2r")
    q_ref = np.array([0.5, -0.3])
    kp, kd = np.array([50.0, 30.0]), np.array([8.0, 5.0])
    ctrl = PD(kp, kd, q_ref)
    r = simulate(model, np.zeros(2), controller=ctrl, t_final=0.5, dt=1e-3, method="semi-implicit")
    p = simulate(model, np.zeros(2), tau=lambda t, q, v: kp * (q_ref - q) - kd * v, t_final=0.5, dt=1e-3,
                 method="semi-implicit")
    np.testing.assert_allclose(r.q, p.q, atol=1e-12)
    np.testing.assert_allclose(r.tau, p.tau, atol=1e-10)


def test_computed_torque_tracks_a_quintic_to_integration_error():
    model = ad.load("puma560")
    q0 = np.zeros(6)
    q1 = np.array([0.5, -0.4, 0.3, 0.2, -0.5, 0.4])
    ctrl = ComputedTorque.tracking(model, q0, q1, 1.0, kp=100.0, kd=20.0, t_final=1.2)
    r = simulate(model, q0, controller=ctrl, t_final=1.2, dt=1e-3, method="rk4")
    ref = ad.sim.quintic_motion(model, q0, q1, 1.0, np.minimum(r.t, 1.0))[0]
    assert np.max(np.abs(r.q - ref)) < 1e-6
    # the torque is the inverse dynamics of the motion it produced (friction included)
    np.testing.assert_allclose(ad.rnea(model, r.q, r.v, r.a), r.tau, atol=1e-9)


def test_python_torque_function_is_called_once_per_step():
    model = pendulum()
    calls = []

    def tau(t, q, v):
        calls.append(t)
        return np.array([0.0])
    simulate(model, np.array([0.2]), tau=tau, t_final=0.1, dt=1e-2, method="rk4")
    np.testing.assert_allclose(calls, np.linspace(0, 0.1, 11))


# --- the implicit method: stiff damping, Coulomb stick-slip ----------------------------------------

def test_implicit_handles_stiff_damping_where_explicit_diverges():
    model = stiff_damped_arm()
    q0 = np.array([0.5, -0.5])
    with pytest.raises(SimulationError):
        simulate(model, q0, t_final=0.1, dt=1e-3, method="semi-implicit")
    imp = simulate(model, q0, t_final=0.3, dt=1e-3, method="implicit")
    ref = simulate(model, q0, t_final=0.3, dt=1e-5, method="rk4", record_every=100)
    np.testing.assert_allclose(imp.q[-1], ref.q[-1], atol=2e-3)
    # the default step respects the damping for explicit methods, not for the implicit one
    assert default_dt(model, q0, "rk4") < 1e-4 <= default_dt(model, q0, "implicit")


def test_implicit_coulomb_friction_sticks_and_slips():
    # a pendulum held by Coulomb friction: sticks when m g a sin(q0) < mu, slips otherwise, and
    # while slipping the friction torque is -mu sign(v)
    model = pendulum()
    mu = 0.5
    stuck = simulate(model.replace(coulomb=[mu]), np.array([0.04]), t_final=0.5, dt=1e-3, method="implicit")
    np.testing.assert_allclose(stuck.q[:, 0], 0.04, atol=1e-12)          # 9.81 sin(0.04) = 0.39 < 0.5
    slip = simulate(model.replace(coulomb=[mu]), np.array([1.0]), t_final=0.2, dt=1e-4, method="implicit")
    free = simulate(model, np.array([1.0]), tau=mu, t_final=0.2, dt=1e-4, method="implicit")
    np.testing.assert_allclose(slip.q, free.q, atol=1e-12)                # v < 0 all along: friction = +mu
    assert np.all(slip.v[1:, 0] < 0)
    with pytest.raises(InputError, match="Coulomb"):
        simulate(model.replace(coulomb=[mu]), np.array([1.0]), method="dopri5")


# --- failures, limits, defaults, progress ------------------------------------------------------------

def test_divergence_raises_with_the_partial_result():
    model = stiff_damped_arm()
    with pytest.raises(SimulationError) as err:
        simulate(model, np.array([0.5, -0.5]), t_final=1.0, dt=1e-3, method="rk4")
    msg = str(err.value)
    assert "dt = 0.001" in msg and "'rk4'" in msg and "dopri5" in msg and "t = " in msg
    assert "'j1'" in msg or "'j2'" in msg
    part = err.value.result
    assert 0 <= part.t[-1] < 1.0 and np.all(np.isfinite(part.q))   # the energy balance stops it at step 1
    assert part.stats["status"] == 8
    assert part.q.shape[0] == part.t.size


def test_energy_error_stops_a_conservative_run():
    model = ad.load("planar2r")
    with pytest.raises(SimulationError, match="energy error") as err:
        simulate(model, np.array([1.5, -1.0]), t_final=3.0, dt=5e-2, method="semi-implicit", energy_tol=0.01)
    assert err.value.result.t[-1] < 3.0
    r = simulate(model, np.array([1.5, -1.0]), t_final=3.0, dt=5e-2, method="semi-implicit", energy_tol=None)
    assert r.t[-1] == 3.0


def test_limit_crossings_are_recorded_and_warned_once():
    # released at 0.3 rad with 1 rad/s, the pendulum swings to +-0.44 rad
    model = pendulum().replace(lower=[-0.3], upper=[0.4])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = simulate(model, np.array([0.3]), np.array([1.0]), t_final=4.5, dt=1e-3)
    assert sum(issubclass(w.category, JointLimitWarning) for w in caught) == 1
    ev = r.limit_events
    assert ev[0].joint == "pivot" and ev[0].side == "upper" and ev[0].limit == 0.4 and ev[0].value > 0.4
    assert ev[0].time == r.t[np.argmax(r.q[:, 0] > 0.4)]          # the end of the step that left the range
    assert ev[1].side == "lower" and ev[1].time == r.t[np.argmax(r.q[:, 0] < -0.3)]
    assert [e.side for e in ev[:4]] == ["upper", "lower", "upper", "lower"]
    assert "pivot (upper)" in r.summary()


def test_default_step_from_the_fastest_mode():
    assert default_dt(pendulum()) == 1e-3                                  # omega = 3.1: 0.3 / omega >> 1 ms
    b = ModelBuilder("whip", gravity=(0.0, 0.0, -G))
    b.add_body("heavy", "world", "revolute", axis=(0, 1, 0), mass=10.0, com=(0.5, 0, 0), inertia=np.eye(3) * 0.1)
    b.add_body("light", "heavy", "revolute", axis=(0, 1, 0), xyz=(1, 0, 0), mass=1e-3, com=(0.5, 0, 0),
               inertia=np.eye(3) * 1e-9)
    model = b.build()
    dt = default_dt(model)
    omega = np.sqrt(G * 0.5 * 1e-3 / (1e-9 + 1e-3 * 0.25))   # the light link's own pendulum frequency
    assert dt <= 0.3 / omega and dt in (1e-4, 2e-4, 5e-4, 1e-3, 5e-5, 2e-5, 1e-5)
    r = simulate(model, np.array([0.0, 1.0]), t_final=0.2)               # the default step works
    assert r.dt == dt


def test_progress_bar_on_request_only(capsys):
    model = pendulum()
    simulate(model, np.array([0.1]), t_final=0.05, dt=1e-3, progress=True)
    assert "simulate pendulum" in capsys.readouterr().err
    simulate(model, np.array([0.1]), t_final=0.05, dt=1e-3)              # not a terminal: silent
    assert capsys.readouterr().err == ""


def test_bad_engine_arguments():
    model = pendulum()
    with pytest.raises(InputError, match="t_eval"):
        simulate(model, np.zeros(1), method="rk4", t_eval=[0.0, 0.1])
    with pytest.raises(InputError, match="record_every"):
        simulate(model, np.zeros(1), record_every=0)
    with pytest.raises(InputError, match="rtol"):
        simulate(model, np.zeros(1), method="dopri5", rtol=-1.0)
    with pytest.raises(InputError, match="controller"):
        simulate(model, np.zeros(1), controller=lambda t, q, v: 0.0)
    with pytest.raises(ShapeError, match="kp"):
        simulate(model, np.zeros(1), controller=PD(np.ones(3), 1.0, np.zeros(1)))
    with pytest.raises(InputError, match="parallel"):
        rollout(model, np.zeros((2, 1)), tau=lambda t, q, v: np.zeros(1))
    with pytest.raises(InputError, match="increasing"):
        TimeTable([0.0, 0.0], [[1.0], [2.0]])
    with pytest.raises(InputError, match="NaN"):
        simulate(model, np.zeros(1), tau=lambda t, q, v: np.array([np.nan]), t_final=0.01)


# --- every real robot ------------------------------------------------------------------------------
from conftest import ERD  # noqa: E402

erd = pytest.importorskip("artidyn.models.erd")
NAMES = [n for n in (erd.example_robot_names() if ERD else []) if n != "ur3"]   # ur3.urdf: no <link>
CASES = [(n, False) for n in NAMES] + [(n, True) for n in NAMES if erd.default_floating(n)]
# zero-mass finger links (repaired to 1e-6 kg, 1e-9 kg m^2): the mass matrix is singular to 1e-11
KNOWN_SINGULAR = {("romeo", False): "Finger"}


@pytest.mark.parametrize("name, floating", CASES, ids=[f"{n}-{'floating' if f else 'fixed'}" for n, f in CASES])
def test_every_example_robot_simulates_with_the_defaults(name, floating):
    """The default method and step (no dt given) on every URDF of example-robot-data."""
    model = erd.example_robot(name, floating_base=floating)
    q0 = report_posture(model, ad.neutral(model))
    if (name, floating) in KNOWN_SINGULAR:
        with pytest.raises(SimulationError) as err:
            simulate(model, q0, t_final=0.3)
        msg = str(err.value)
        assert "nearly singular" in msg and KNOWN_SINGULAR[(name, floating)] in msg
        assert err.value.result.t[-1] > 0.02
        return
    r = simulate(model, q0, t_final=0.3)
    assert r.t[-1] == pytest.approx(0.3) and np.all(np.isfinite(r.q))
    if model.nv:
        assert r.method in ("rk4", "implicit") and r.dt <= 1e-3
