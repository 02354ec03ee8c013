"""Appell's cyclist (Traité de mécanique rationnelle, §470): the legs keep the rear wheel's angular
speed constant, the muscles of the body keep the frame's lean a given function of t; the bicycle's
wheels roll without slipping (first-kind relations)."""
import numpy as np
import pytest
import sympy as sp

from artidyn.errors import InputError
from artidyn.servo import examples as ex

P = dict(wheel_radius=0.35, wheel_mass=2.0, bike_mass=10.0, bike_height=0.6, bike_inertia=0.5, rider_mass=50.0,
         hip_height=0.9, trunk=0.4, trunk_inertia=3.0, g=9.81)


def _linearised(W):
    """The roll plane linearised about the upright state (test_lean_servo_against_the_linearised_roll_dynamics)."""
    m, l, hs, Ir = P["rider_mass"], P["trunk"], P["hip_height"], P["trunk_inertia"]
    mw, a, g = P["wheel_mass"], P["wheel_radius"], P["g"]
    A = P["bike_mass"] * P["bike_height"] + 2 * mw * a + m * hs
    M11 = P["bike_inertia"] + P["bike_mass"] * P["bike_height"] ** 2 + 2 * (mw * a * a + mw * a * a / 2) \
        + m * (hs + l) ** 2 + Ir
    M12, M22 = Ir + m * l * l + m * hs * l, Ir + m * l * l
    return M11, M12, M22, g * m * l / M12, (g * (A + m * l) + M11 * W * W) / M12


def _total():
    return P["bike_mass"] + P["rider_mass"] + 2 * P["wheel_mass"]


@pytest.mark.parametrize("slope", [0.0, 0.05, -0.08])
def test_constant_wheel_speed_needs_the_climbing_torque(slope):
    """phi_rdot = omega by the legs: the bicycle runs at a x = a omega t, the legs' torque is
    M g a sin(slope) (zero on a flat road: no torque keeps a constant speed without dissipation),
    the front wheel follows, and the legs' work equals the change of the potential energy."""
    omega, a = 8.0, P["wheel_radius"]
    prob = ex.cyclist("speed", omega=omega, slope=slope, **P)
    assert prob.status == "determined" and prob.analyse().index == (2,)
    q0, v0 = np.zeros(5), np.array([a * omega, omega, omega, 0.0, 0.0])
    run = prob.simulate(q0, v0, t_final=2.0, dt=1e-2)
    assert np.abs(run.v[:, 1] - omega).max() < 1e-12
    assert np.abs(run.q[:, 0] - a * omega * run.t).max() < 1e-11
    assert np.abs(run.q[:, 2] - omega * run.t).max() < 1e-11
    torque = _total() * P["g"] * a * np.sin(slope)
    assert np.abs(run.servo_forces[:, 0] - torque).max() < 1e-10
    assert np.abs(run.energy - run.energy[0] - run.servo_work).max() < 1e-9 * (1 + np.abs(run.servo_work).max())
    if slope == 0.0:
        assert np.abs(run.servo_forces).max() < 1e-12 and np.abs(run.multipliers).max() < 1e-12


def test_lean_servo_against_the_linearised_roll_dynamics():
    """theta = eps sin(W t) by the trunk muscles (torque on beta only). Linearised about the upright
    state, the roll equation (free of the servo torque) is M11 thetadd + M12 betadd = g (A theta +
    m l (theta + beta)), so betadd - k beta = eps c sin(W t) with k = g m l / M12, c = (g (A + m l) +
    M11 W^2) / M12: from betadot(0) = -eps c W / (W^2 + k) the trunk swings opposite to the frame,
    beta = -eps c / (W^2 + k) sin(W t) (no growing mode), and the muscle torque is M12 thetadd +
    M22 betadd - g m l (theta + beta). The nonlinear run matches to O(eps^3)."""
    eps, W = 1e-4, 2.0
    ts = sp.Symbol("t")
    prob = ex.cyclist("lean", lean=eps * sp.sin(W * ts), **P)
    M11, M12, M22, k, c = _linearised(W)
    m, l, g = P["rider_mass"], P["trunk"], P["g"]
    amp = -eps * c / (W * W + k)
    q0 = np.zeros(5)
    v0 = np.array([0.0, 0.0, 0.0, eps * W, amp * W])
    run = prob.simulate(q0, v0, t_final=3.0, dt=5e-3)
    assert np.abs(run.q[:, 3] - eps * np.sin(W * run.t)).max() < 1e-13
    beta = amp * np.sin(W * run.t)
    assert np.abs(run.q[:, 4] - beta).max() < 1e-6 * abs(amp)
    theta, thdd, bdd = eps * np.sin(W * run.t), -W * W * eps * np.sin(W * run.t), -W * W * beta
    mu = M12 * thdd + M22 * bdd - g * m * l * (theta + beta)
    assert np.abs(run.servo_forces[:, 0] - mu).max() < 1e-6 * np.abs(mu).max()
    assert np.abs(run.energy - run.energy[0] - run.servo_work).max() < 1e-6 * np.ptp(run.energy)


def test_both_servos_at_once_hold_their_relations_and_balance_the_energy():
    """The legs and the trunk together (r = j = 2) on a slope, a lean 0.05 sin(2 t) (the trunk
    started at the linearised rate that keeps it from drifting: the roll's internal dynamics are
    unstable, a trunk started at rest falls away): both relations hold to 1e-9, the two servo
    torques' work is the change of T + U, the legs' torque stays M g a sin(slope) whatever the lean
    (the planes decouple)."""
    ts = sp.Symbol("t")
    slope, omega, a = 0.03, 6.0, P["wheel_radius"]
    _, _, _, k, c = _linearised(2.0)
    prob = ex.cyclist(("speed", "lean"), omega=omega, lean=0.05 * sp.sin(2 * ts), slope=slope, **P)
    out = prob.analyse()
    assert out.status == "determined" and out.index == (2, 3)
    q0, v0 = np.zeros(5), np.array([a * omega, omega, omega, 0.1, -0.05 * 2 * c / (4 + k)])
    run = prob.simulate(q0, v0, t_final=1.5, dt=2e-3)
    assert np.abs(run.q[:, 4]).max() < 0.3
    assert np.abs(run.v[:, 1] - omega).max() < 1e-9
    assert np.abs(run.q[:, 3] - 0.05 * np.sin(2 * run.t)).max() < 1e-9
    assert np.abs(run.servo_forces[:, 0] - _total() * P["g"] * a * np.sin(slope)).max() < 1e-9
    assert np.abs(run.servo_forces[:, 1]).max() > 1.0                        # the trunk works
    assert np.abs(run.energy - run.energy[0] - run.servo_work).max() < 1e-6 * np.ptp(run.energy)
    with pytest.raises(InputError, match="'speed' and/or 'lean'"):
        ex.cyclist("pedal")
