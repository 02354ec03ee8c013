"""A smooth closed chain under a compiled controller (simulate(..., constraints=, controller=)): the
compiled run equals the readable one, the recorded torque is the control law, and a PD brings the
four-bar to a static equilibrium in which its torque holds gravity through the loop."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.constraints import constrained_dynamics, from_model
from artidyn.errors import InputError
from artidyn.sim import PD, ComputedTorque, Prescribed
from artidyn.sim.constrained import simulate_constrained



@pytest.fixture(scope="module")
def fourbar():
    model = ad.load("fourbar")
    q = ad.neutral(model)
    q_ref = q.copy()
    q_ref[0] += 0.3
    return model, q, q_ref


def _pd(model, q_ref, kp=40.0, kd=6.0):
    act = np.zeros(model.nv)
    act[0] = 1.0                                  # the crank alone is driven
    return PD(kp * act, kd * act, q_ref)


@pytest.mark.parametrize("method", ["rk4", "semi-implicit"])
def test_compiled_equals_reference(fourbar, method):
    model, q, q_ref = fourbar
    kw = dict(constraints=from_model(model), t_final=0.5, dt=1e-3, method=method, controller=_pd(model, q_ref))
    c = simulate_constrained(model, q, None, route="compiled", **kw)
    r = simulate_constrained(model, q, None, route="reference", **kw)
    assert c.stats["route"] == "compiled" and r.stats["route"] == "reference"
    np.testing.assert_allclose(c.q, r.q, atol=1e-10)
    np.testing.assert_allclose(c.tau, r.tau, atol=1e-8)
    assert np.ptp(c.q[:, 0]) > 0.1                # the controller moved the crank


def test_recorded_torque_is_the_law_and_the_table_adds(fourbar):
    model, q, q_ref = fourbar
    kp, kd, bias = 40.0, 6.0, 0.7
    tau = np.array([bias, 0.0, 0.0])
    res = ad.simulate(model, q, None, tau, t_final=0.3, dt=1e-3, constraints="model",
                      controller=_pd(model, q_ref, kp, kd))
    law = bias + kp * (q_ref[0] - res.q[:, 0]) - kd * res.v[:, 0]
    np.testing.assert_allclose(res.tau[:, 0], law, atol=1e-12)
    np.testing.assert_allclose(res.tau[:, 1:], 0.0, atol=0)


def test_pd_reaches_a_static_equilibrium_through_the_loop(fourbar):
    """After 6 s of a damped PD, the four-bar is at rest where the PD torque balances gravity
    through the closed loop: the constrained accelerations at (q_end, 0, tau_end) vanish, and the
    crank sits off its reference by the torque it must hold (kp (q_ref - q) = that torque)."""
    model, q, q_ref = fourbar
    kp = 200.0
    res = ad.simulate(model, q, None, t_final=6.0, dt=1e-3, constraints="model",
                      controller=_pd(model, q_ref, kp, kd=20.0))
    q_end, tau_end = res.q[-1], res.tau[-1]
    assert np.max(np.abs(res.v[-1])) < 1e-10
    a = constrained_dynamics(model, q_end, np.zeros(model.nv), tau_end, from_model(model)).a
    assert np.max(np.abs(a)) < 1e-8
    assert abs(q_end[0] - q_ref[0]) > 1e-3        # gravity pulls it off the reference ...
    assert tau_end[0] == pytest.approx(kp * (q_ref[0] - q_end[0]), abs=1e-9)   # ... by what the PD holds
    assert res.drift[:, 0].max() < 1e-9


def test_computed_torque_runs_compiled_and_refusals(fourbar):
    model, q, q_ref = fourbar
    ct = ComputedTorque(np.array([25.0, 0, 0]), np.array([10.0, 0, 0]), q_ref)
    kw = dict(constraints=from_model(model), t_final=0.2, dt=1e-3, controller=ct)
    c = simulate_constrained(model, q, None, route="compiled", **kw)
    r = simulate_constrained(model, q, None, route="reference", **kw)
    np.testing.assert_allclose(c.q, r.q, atol=1e-10)
    with pytest.raises(InputError, match="Prescribed"):
        ad.simulate(model, q, None, t_final=0.1, constraints="model",
                    controller=Prescribed([model.joint_names[1]], [[0.0], [0.1]], t_ref=[0.0, 1.0]))
    with pytest.raises(InputError, match="t_eval"):
        ad.simulate(model, q, None, t_final=0.1, constraints="model", controller=_pd(model, q_ref), t_eval=[0.05])
