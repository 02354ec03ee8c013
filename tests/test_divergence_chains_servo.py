"""Every simulation stops when it diverges (issue #35 item 2, the routes left after the smooth engine):

- closed chains (``simulate(..., constraints=)``): the energy balance at every step whatever
  ``record_every`` (the compiled run goes in pieces of ``CHUNK_STEPS`` steps, which make the one
  run: the same samples, also without projection), on both routes, with the partial result; a
  joint that moves (nearly) no inertia named as ``aba`` names it; the inputs checked in the smooth
  engine's words;
- servo runs (``ServoProblem``, ``ModelServo``, ``simulate(..., servo=)``, ``NumericServo``): Jacobi's
  energy against the work of the servo forces, the given forces and the time dependence; a
  diverging run raises SimulationError with the run so far; sane runs pass a tight tolerance.
"""
import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols

import artidyn as ad
import artidyn.sim.constrained as constrained_sim
from artidyn import servo
from artidyn.constraints import Coupling, FramePath, JointPath, assemble
from artidyn.errors import InputError, ModelError, ShapeError, SimulationError

t = sp.Symbol("t")
x, y = dynamicsymbols("x y")
xd, yd = x.diff(t), y.diff(t)


# --- closed chains --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fourbar():
    model = ad.load("fourbar")
    return model, ad.neutral(model)


def test_record_every_and_pieces_give_the_one_run(fourbar, monkeypatch):
    """The balance needs every step: runs sampled every 5 steps, in pieces of 4096 or of 16 steps,
    hold exactly the samples of the run sampled at every step (also with Baumgarte and no
    projection, where a piece must not assemble its start again)."""
    model, q = fourbar
    kw = dict(t_final=1.0, dt=1e-3, constraints="model")
    every1 = ad.simulate(model, q, None, **kw)
    every5 = ad.simulate(model, q, None, record_every=5, **kw)
    assert every5.t.size == 201 and every5.stats["energy_excess"] < 1e-6
    np.testing.assert_array_equal(every5.t, every1.t[::5])
    np.testing.assert_allclose(every5.q, every1.q[::5], rtol=0, atol=1e-13)
    loose = dict(kw, record_every=3, projection=False, baumgarte=(5.0, 5.0))
    single = ad.simulate(model, q, None, energy_tol=None, **loose)          # one compiled call, no balance
    monkeypatch.setattr(constrained_sim, "CHUNK_STEPS", 16)
    pieces = ad.simulate(model, q, None, record_every=5, **kw)
    np.testing.assert_allclose(pieces.q, every5.q, rtol=0, atol=1e-13)
    np.testing.assert_allclose(pieces.constraint_forces, every5.constraint_forces, rtol=0, atol=1e-9)
    drifting = ad.simulate(model, q, None, **loose)
    np.testing.assert_allclose(drifting.q, single.q, rtol=0, atol=1e-13)
    np.testing.assert_allclose(drifting.drift, single.drift, rtol=0, atol=1e-15)
    assert drifting.stats["max_drift_position"] > 1e-13            # it did drift: nothing re-assembled it


@pytest.mark.parametrize("route", ["auto", "reference"])
@pytest.mark.parametrize("every", [1, 7])
def test_closed_chain_divergence_stops_whatever_record_every(fourbar, route, every, monkeypatch):
    """Joint damping 300 under semi-implicit Euler at 5 ms diverges at t = 0.025 s: it was seen only
    when every step was sampled; now on both routes, in pieces too, with the samples so far."""
    model, q = fourbar
    damped = model.replace(damping=np.full(3, 300.0))
    for chunk in (4096, 4):
        monkeypatch.setattr(constrained_sim, "CHUNK_STEPS", chunk)
        with pytest.raises(SimulationError, match=r"energy grew beyond the work of the inputs .* at t = 0\.025 s") \
                as err:
            ad.simulate_constrained(damped, q, np.array([1.0, 0.0, 0.0]), "model", t_final=0.5, dt=5e-3,
                                    method="semi-implicit", record_every=every, route=route)
        part = err.value.result
        assert part.t.size == (5 if every == 1 else 1) and np.all(part.t < 0.025)
        np.testing.assert_allclose(part.t, np.arange(part.t.size) * every * 5e-3, atol=1e-15)
        assert part.constraint_forces.shape[0] == part.t.size and np.all(np.isfinite(part.q))
        assert part.stats["energy_excess"] > 0.1                   # the excess that stopped it


def _three_links(scale):
    b = ad.ModelBuilder("light_tip")
    for k, parent in ((1, "world"), (2, "l1"), (3, "l2")):
        b.add_body(f"l{k}", parent=parent, axis=(0, 1, 0), xyz=(0, 0, 0) if k == 1 else (1, 0, 0), mass=1.0,
                   com=(0.5, 0, 0), inertia=np.eye(3) * 0.01)
    m = b.build()
    I = np.array(m.I)
    I[3] *= scale                 # the leaf l3: no inertia at all (0) or nearly none
    return m.replace(I=I)


@pytest.mark.parametrize("scale", [0.0, 1e-14])
@pytest.mark.parametrize("route", ["compiled", "reference"])
def test_closed_chain_names_a_joint_without_inertia(scale, route):
    """The compiled route said 'the mass matrix is not positive definite' or 'the dynamics could not
    be evaluated' (or, nearly massless, that the energy grew); the reference one blamed the
    projection. Both now raise aba's ModelError naming the joint."""
    m = _three_links(scale)
    with pytest.raises(ModelError, match=r"model 'light_tip': joint\(s\) 'l3_joint' move\(s\) no inertia"):
        ad.simulate_constrained(m, np.array([0.3, 0.2, 0.1]), np.zeros(3), [Coupling("l1_joint", "l2_joint")],
                                tau=np.array([0.0, 0.0, 1.0]), t_final=0.01, dt=1e-3, route=route)


@pytest.mark.parametrize("kw, error, match", [
    (dict(tau=np.full(3, np.nan)), InputError, r"simulate with constraints: tau contains NaN or infinite values"),
    (dict(f_ext=np.full((4, 6), np.inf)), InputError, r"simulate with constraints: f_ext contains NaN or infinite"),
    (dict(f_ext=np.zeros((3, 6))), ShapeError, r"simulate with constraints: f_ext has shape \(3, 6\); expected \(4, 6\)"),
    (dict(f_ext=lambda s, q, v: np.zeros((4, 6))), InputError, r"f_ext must be constant wrenches"),
    (dict(tau=lambda s, q: np.zeros(3)), InputError,
     r"simulate with constraints: tau must be a function tau\(t, q, v\), called with 3 positional argument"),
    (dict(tau="abc"), InputError, r"simulate with constraints: tau must be torques \(numbers\)"),
])
def test_closed_chain_inputs_checked_in_the_engines_words(fourbar, kw, error, match):
    """A NaN torque or wrench gave 'the dynamics could not be evaluated' at step 0 (a SimulationError
    blaming the state)."""
    model, q = fourbar
    with pytest.raises(error, match=match):
        ad.simulate(model, q, None, t_final=0.01, dt=1e-3, constraints="model", **kw)


# --- servo runs -----------------------------------------------------------------------------------

def _stiff_problem(k=1e6):
    """x on a stiff spring (omega = sqrt(k)), y driven along sin t by its servo force."""
    return servo.ServoProblem([x, y], (xd ** 2 + yd ** 2) / 2, k * x ** 2 / 2, servo=[y - sp.sin(t)],
                              directions=[[0, 1]], name="stiff")


def test_servo_problem_divergence_stops_with_the_run_so_far():
    """omega dt = 10: RK4 is unstable on the spring; the energy of the run went to 1e300 in silence."""
    prob = _stiff_problem()
    with pytest.raises(SimulationError, match=r"ServoProblem\.simulate \(stiff\): the energy grew beyond the work "
                                              r"of the servo and the given forces .* at t = 0\.01 s \(dt = 0\.01 s\)"):
        prob.simulate([1e-3, 0.0], [0.0, 1.0], 1.0, 1e-2)
    try:
        prob.simulate([1e-3, 0.0], [0.0, 1.0], 1.0, 1e-2)
    except SimulationError as err:
        part = err.result
    assert isinstance(part, servo.ServoRun) and part.t.tolist() == [0.0] and np.all(np.isfinite(part.q))
    run = prob.simulate([1e-3, 0.0], [0.0, 1.0], 0.02, 1e-4)          # omega dt = 0.1: sound
    np.testing.assert_allclose(run.energy - run.energy[0], run.servo_work, atol=1e-5)   # of 0.5 J
    off = prob.simulate([1e-3, 0.0], [0.0, 1.0], 0.03, 1e-2, energy_tol=None)      # as asked: unchecked
    assert off.energy[-1] > 1e3 * off.energy[0]


def test_servo_balance_counts_given_forces_and_the_time_dependence(monkeypatch):
    """A spring whose stiffness varies in time, an anti-damping force that pumps energy in, a
    moving servo relation: T + U is far from conserved, yet the balance holds to RK4's accuracy
    (a tight energy_tol passes) because Jacobi's energy is held against qdot . Q - dL/dt and the
    servo's work."""
    prob = servo.ServoProblem([x, y], (xd ** 2 + yd ** 2) / 2 + x * yd / 4,      # T has a gyroscopic part
                              (2 + sp.sin(3 * t)) * x ** 2 / 2 + y ** 2, generalized_forces=[0.4 * xd, 0],
                              servo=[y - sp.sin(2 * t)], directions=[[0, 1]], name="pumped")
    q0, qd0 = np.array([0.5, 0.0]), np.array([0.0, 2.0])
    run = prob.simulate(q0, qd0, 3.0, 1e-2, energy_tol=1e-4)
    assert np.ptp(run.energy) > 0.5                                   # the energy moved a lot
    monkeypatch.setattr(prob, "Pg_f", lambda *state: 0.0)              # forget Q's power and dL/dt
    with pytest.raises(SimulationError, match="energy balance failed"):
        prob.simulate(q0, qd0, 3.0, 1e-2, energy_tol=1e-4)


def test_model_servo_divergence_through_simulate():
    """A joint spring of 1e5 at dt = 10 ms on the servoed arm: the ModelServo run and ad.simulate's
    servo route stop at their first step, the latter with a SimulationResult."""
    arm = ad.models.planar_2r().replace(stiffness=np.array([0.0, 1e5]))
    prob = servo.ModelServo(arm, [JointPath("joint1", np.sin)], directions="joint1")     # a name alone
    q0, v0 = np.array([0.0, 0.01]), np.array([1.0, 0.0])
    with pytest.raises(SimulationError, match=r"ModelServo\.simulate: the energy grew .* at t = 0\.01 s") as err:
        prob.simulate(q0, v0, 1.0, 1e-2)
    assert err.value.result.t.tolist() == [0.0]
    with pytest.raises(SimulationError, match=r"simulate 'planar2r' with servo-constraints: ModelServo\.simulate: "
                                              r"the energy grew") as err:
        ad.simulate(arm, q0, v0, t_final=1.0, dt=1e-2, servo=prob)
    part = err.value.result
    assert isinstance(part, ad.sim.SimulationResult) and part.t.size == 1 and part.servo_forces.shape == (1, 1)
    run = prob.simulate(q0, v0, 0.05, 1e-4)
    np.testing.assert_allclose(run.energy - run.energy[0], run.servo_work, atol=1e-6)


def test_model_servo_sane_run_with_torques_passes_a_tight_balance():
    arm = ad.load("planar2r")
    circle = FramePath("tool", lambda s: np.array([1.2 + 0.25 * np.cos(s), 0.3 + 0.25 * np.sin(s), 0.0]))
    start = assemble(arm, np.array([0.3, 1.0]), [circle])
    r = ad.simulate(arm, start.q, start.v, t_final=0.5, dt=1e-3, servo=servo.ModelServo(arm, [circle]),
                    tau=np.array([0.5, -0.2]), energy_tol=1e-6)
    assert r.t.size == 501 and np.all(np.isfinite(r.q))


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning", "ignore:invalid value:RuntimeWarning")
def test_numeric_servo_stops_when_its_state_overflows():
    """No energy known: the run stops when the state or the forces stop being finite (an InputError
    blaming a 'singular M' before), with the run so far."""
    ns = servo.NumericServo(lambda q, s: np.eye(2), lambda q, qd, s: np.array([1e6 * q[0], 0.0]),
                            lambda q, qd, s: np.array([[0.0, 1.0]]), lambda q, qd, s: np.array([np.sin(s)]),
                            lambda q, s: np.array([[0.0, 1.0]]), name="ns")
    with pytest.raises(SimulationError, match=r"NumericServo\.simulate \(ns\): the (state|run|acc).* try a smaller "
                                              r"dt\. The run up to t = ") as err:
        ns.simulate(np.array([1e-3, 0.0]), np.array([0.0, 1.0]), 5.0, 1e-2)
    part = err.value.result
    assert 10 < part.t.size < 500 and np.all(np.isfinite(part.q))
