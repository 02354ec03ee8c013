"""The energy balance of the smooth engine's runs with inputs (issue #35 item 2).

A run with torques, a controller, external wrenches, friction or damping stops with
SimulationError (status 8) once its energy, with a PD controller's spring, grows beyond the work
of its inputs by more than ``energy_tol`` of its scale; sane runs never come near it (their
excess stays below 1e-2 of the scale where the tolerance is 0.1).
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import SimulationError
from artidyn.sim import PD, ComputedTorque, TimeTable, rollout, simulate
from test_sim import double_pendulum

erd = pytest.importorskip("artidyn.models.erd")
METHODS = ("semi-implicit", "rk4", "implicit", "dopri5")
SANE = 1e-2          # the largest excess of a sane run, as a fraction of the scale (tolerance 0.1)
Q0_DP = np.array([1.5, -0.5])


@pytest.fixture(scope="module")
def robots():
    return {name: erd.example_robot(name) for name in ("ur5_robot", "solo12", "panda")}


def _posture(model, offset=0.3):
    q = ad.neutral(model)
    if model.nq > model.nv:      # floating base: the joints after the free joint
        q[7:] += offset
    else:
        q += offset
    return q


# --- sane runs: no false alarm --------------------------------------------------------------------

@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", ("ur5_robot", "solo12", "panda"))
def test_tracking_controllers_pass_the_balance(robots, name, method):
    """Moderate PD and computed torque, with and without a gravity feed-forward (tau), every method.
    (solo12's light legs and panda's light wrist: kd = 20 at dt = 1 ms is unstable for the explicit
    methods, h kd / I >> 2, and the check rightly stops those runs; their PD gains are lower.)"""
    model = robots[name]
    kp, kd = {"solo12": (5.0, 0.1), "panda": (20.0, 0.5)}.get(name, (100.0, 20.0))
    q0, q_ref = _posture(model), ad.neutral(model)
    g = ad.gravity_torque(model, q_ref) * np.asarray(model.actuated, float)
    for controller in (PD(kp, kd, q_ref), ComputedTorque(100.0, 20.0, q_ref)):
        for tau in (0.0, g):
            r = simulate(model, q0, controller=controller, tau=tau, method=method, dt=1e-3, t_final=0.3,
                         progress=False)
            assert r.stats["status"] == 0 and r.stats["energy_excess"] < SANE, (controller, tau)


@pytest.mark.parametrize("method", ("semi-implicit", "rk4", "implicit"))
def test_damping_friction_and_tables_pass_the_balance(method):
    """Joint damping and Coulomb friction only take energy out; a TimeTable torque brings work in."""
    model = double_pendulum(damping=0.5).replace(coulomb=np.array([0.3, 0.2]))
    t = np.linspace(0.0, 1.0, 11)
    for tau in (0.0, TimeTable(t, np.sin(3 * t)[:, None] * [2.0, -1.0]),
                TimeTable(t, np.cos(5 * t)[:, None] * [1.0, 1.0], "hold")):
        r = simulate(model, Q0_DP, tau=tau, method=method, dt=1e-3, t_final=1.0, progress=False)
        assert r.stats["status"] == 0 and r.stats["energy_excess"] < SANE


def test_rollout_and_external_wrenches_pass_the_balance(robots):
    model = robots["ur5_robot"]
    q_ref = ad.neutral(model)
    rng = np.random.default_rng(3)
    Q0 = q_ref + 0.3 * rng.standard_normal((6, model.nq))
    r = rollout(model, Q0, controller=PD(200.0, 30.0, q_ref), method="rk4", dt=1e-3, t_final=0.3)
    assert np.all(r.stats["status"] == 0) and np.all(r.stats["energy_excess"] < SANE)
    f = np.zeros((model.nb + 1, 6))
    f[-1, 3:] = (5.0, -3.0, 10.0)       # a force on the last body: its work is an input
    for method in METHODS:
        r = simulate(model, q_ref + 0.2, f_ext=f, controller=PD(100.0, 20.0, q_ref), method=method, dt=1e-3,
                     t_final=0.3, progress=False)
        assert r.stats["status"] == 0 and r.stats["energy_excess"] < SANE, method


def test_the_work_of_a_wrench_on_a_rotated_joint_axis():
    """A prismatic joint along x (the table's internal axes differ from the body's): a 4 N force
    does the work that the kinetic energy shows, so the run passes (it failed at step 1 before the
    wrench was turned to the internal axes)."""
    b = ad.ModelBuilder("slider", gravity=(0.0, 0.0, 0.0))
    b.add_body("mass", "world", "prismatic", joint_name="x", axis=(1, 0, 0), mass=2.0)
    model = b.build()
    F = np.zeros((2, 6))
    F[1, 3] = 4.0
    for method in METHODS:
        r = simulate(model, np.zeros(1), f_ext=F, method=method, t_final=0.5, dt=1e-3, progress=False)
        assert r.stats["status"] == 0 and r.stats["energy_excess"] < 1e-6, method


# --- divergent runs: stopped early, with the partial result ----------------------------------------

@pytest.mark.parametrize("method", ("rk4", "semi-implicit", "implicit"))
@pytest.mark.parametrize("t_final", (0.002, 0.01))
def test_an_absurd_pd_gain_stops_the_run(robots, method, t_final):
    """PD(1e7) at dt = 1 ms: finite but meaningless (1e15 rad) before; now a SimulationError."""
    for model, q0 in ((double_pendulum(), Q0_DP), (robots["ur5_robot"], _posture(robots["ur5_robot"]))):
        with pytest.raises(SimulationError) as err:
            simulate(model, q0, controller=PD(1e7, 0.0, ad.neutral(model)), method=method, dt=1e-3,
                     t_final=t_final, progress=False)
        msg, r = str(err.value), err.value.result
        assert "diverged at step" in msg and f"method '{method}'" in msg and "energy_tol=None" in msg
        assert "t = " in msg and "smaller dt" in msg
        assert r.stats["status"] == 8 and r.stats["energy_excess"] > 0.5
        assert np.all(np.abs(r.q) < 10.0)          # the partial result ends before the blow-up


@pytest.mark.parametrize("method", ("rk4", "semi-implicit"))
def test_stiff_damping_at_a_large_step_stops_the_run(method):
    """Joint damping 1e3 at dt = 10 ms: explicit methods diverge (1e120 J before); implicit is sound."""
    model = double_pendulum(damping=1e3)
    with pytest.raises(SimulationError) as err:
        simulate(model, Q0_DP, method=method, dt=1e-2, t_final=0.5, progress=False)
    assert err.value.result.stats["status"] == 8 and np.all(np.abs(err.value.result.q) < 10.0)
    r = simulate(model, Q0_DP, method="implicit", dt=1e-2, t_final=0.5, progress=False)
    assert r.stats["status"] == 0


def test_computed_torque_with_an_absurd_gain_stops_the_run(robots):
    model = robots["ur5_robot"]
    for method in ("rk4", "semi-implicit"):
        with pytest.raises(SimulationError) as err:
            simulate(model, _posture(model), controller=ComputedTorque(1e7, 0.0, ad.neutral(model)), method=method,
                     dt=1e-3, t_final=0.01, progress=False)
        assert err.value.result.stats["status"] == 8 and np.all(np.abs(err.value.result.q) < 1e3)


def test_the_balance_is_off_with_energy_tol_none():
    r = simulate(double_pendulum(), Q0_DP, controller=PD(1e7, 0.0, np.zeros(2)), method="rk4", dt=1e-3,
                 t_final=0.002, energy_tol=None, progress=False)
    assert r.stats["status"] == 0 and np.max(np.abs(r.q)) > 1e10


def test_a_rollout_names_its_diverging_runs(robots):
    model = robots["ur5_robot"]
    kp = 1e7
    with pytest.raises(SimulationError) as err:
        rollout(model, np.stack([ad.neutral(model) + 0.1] * 3), controller=PD(kp, 0.0, ad.neutral(model)),
                method="rk4", dt=1e-3, t_final=0.01)
    assert np.all(err.value.result.stats["status"] == 8) and "run 0 of 3" in str(err.value)


def test_the_reference_dopri5_route_keeps_the_balance(monkeypatch):
    """The readable dopri5 loop (kernels off) computes the same excess as the compiled one."""
    import importlib
    module = importlib.import_module("artidyn.sim.smooth")
    model = double_pendulum(damping=0.5)
    compiled = simulate(model, Q0_DP, tau=0.5, method="dopri5", t_final=0.5, progress=False)
    monkeypatch.setattr(module, "kernels_enabled", lambda: False)
    ref = simulate(model, Q0_DP, tau=0.5, method="dopri5", t_final=0.5, progress=False)
    assert ref.stats["status"] == 0
    assert ref.stats["energy_excess"] == pytest.approx(compiled.stats["energy_excess"], abs=1e-9)
    np.testing.assert_allclose(ref.q, compiled.q, atol=1e-9)


# --- smooth closed chains (simulate with constraints=, no contact) ------------------------------

def test_closed_chain_balance_stops_explicit_stiff_damping_with_the_partial_result():
    """The built-in four-bar with joint damping 300 under semi-implicit Euler at 5 ms (h d / M far
    past 2): the energy grows while no input works; RK4 at the same step stays sane."""
    model = ad.load("fourbar").replace(damping=np.full(3, 300.0))
    q = ad.neutral(model)
    with pytest.raises(ad.SimulationError, match="energy grew beyond the work of the inputs") as err:
        ad.simulate(model, q, np.array([1.0, 0.0, 0.0]), t_final=0.5, dt=5e-3, constraints="model",
                    method="semi-implicit")
    part = err.value.result
    assert 0 < part.t.size < 101 and np.all(np.isfinite(part.q))
    assert part.constraint_forces.shape[0] == part.t.size
    r = ad.simulate(model, q, np.array([1.0, 0.0, 0.0]), t_final=0.5, dt=5e-3, constraints="model", method="rk4")
    assert r.energy.total[-1] < r.energy.total[0]


def test_closed_chain_balance_quiet_on_a_sane_run_and_with_torques():
    """The four-bar falling for 2 s, and driven by a crank torque: no alarm (the torque's work is
    counted); a failed projection also gives its partial result."""
    model = ad.load("fourbar")
    q = ad.neutral(model)
    r = ad.simulate(model, q, None, t_final=2.0, dt=1e-3, constraints="model")
    assert abs(r.energy.total[-1] - r.energy.total[0]) < 1e-6
    r = ad.simulate(model, q, None, tau=np.array([5.0, 0.0, 0.0]), t_final=1.0, dt=1e-3, constraints="model")
    assert r.energy.total[-1] - r.energy.total[0] > 1.0          # the crank's torque did work
    stiff = model.replace(damping=np.full(3, 1e4))
    with pytest.raises(ad.SimulationError, match="projection onto the constraints") as err:
        ad.simulate(stiff, q, np.array([1.0, 0.0, 0.0]), t_final=0.5, dt=1e-2, constraints="model",
                    method="rk4")
    assert err.value.result is not None and err.value.result.t.size >= 1
