"""MJCF actuators and joint equalities held against MuJoCo (issue 34, item 3): the actuation map
(``artidyn.io.mjcf.actuation``) against ``qfrc_actuator``, a driven run against ``mj_step``, and
``<equality joint>`` as a coupling against MuJoCo's (stiff) equality constraint."""
import warnings

import numpy as np
import pytest
from peers import require

import artidyn as ad
from artidyn.errors import ParseError
from artidyn.interop import MujocoConverter
from artidyn.io.mjcf import NotModelledWarning, actuation, load_mjcf

mujoco = require("mujoco")

# hinges with ref, gears != 1, clamped ctrls and forces, a class default, a joint actuatorfrcrange,
# two actuators on one joint, a general actuator equivalent to a position servo with an offset
ARM = """<mujoco model="arm"><compiler angle="radian"/>
<option gravity="0 0 -9.81"><flag contact="disable"/></option>
<default><position kv="0.5"/><default class="stiff"><position kp="40"/></default></default>
<worldbody><body name="a"><joint name="j1" axis="0 1 0" ref="0.3"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
  <body name="b" pos="0.3 0 0"><joint name="j2" axis="0 1 0" ref="-0.2" actuatorfrcrange="-4 4"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.7"/>
    <body name="c" pos="0.3 0 0"><joint name="j3" axis="1 0 0" ref="0.4"/>
      <geom type="sphere" pos="0 0 -0.1" size="0.05" mass="0.5"/>
      <body name="d" pos="0 0 -0.1"><joint name="s4" type="slide" axis="0 0 1" ref="0.05"/>
        <geom type="sphere" size="0.03" mass="0.2"/></body></body></body></body>
</worldbody>
<actuator>
  <motor name="m1" joint="j1" gear="2" ctrlrange="-1 1"/>
  <position name="p2" class="stiff" joint="j2" gear="1.5" kv="2" ctrlrange="-0.5 0.8" forcerange="-6 6"/>
  <velocity name="v3" joint="j3" gear="0.7" kv="3"/>
  <general name="g4" joint="s4" gainprm="5" biasprm="0.1 -30 -1" biastype="affine" ctrlrange="-1 1"
           ctrllimited="true" forcerange="-20 20"/>
  <position name="p1" joint="j1" kp="5"/>
</actuator></mujoco>"""


def arm():
    m = load_mjcf(ARM)
    mj = mujoco.MjModel.from_xml_string(ARM)
    return m, actuation(ARM, m), mj, mujoco.MjData(mj), MujocoConverter(m, mj)


def run_mujoco(mj, d, cv, q0, v0, ctrl, integrator, steps, dt=1e-3):
    mujoco.mj_resetData(mj, d)
    mj.opt.integrator, mj.opt.timestep = integrator, dt
    d.qpos[:], d.qvel[:], d.ctrl[:] = cv.to_mj_qpos(q0), cv.to_mj_qvel(q0, v0), ctrl
    for _ in range(steps):
        mujoco.mj_step(mj, d)
    return cv.from_mj_qpos(d.qpos)


def test_actuation_reads_gains_and_gears():
    m, act, mj, _, _ = arm()
    assert act.names == ["m1", "p2", "v3", "g4", "p1"] and act.B.shape == (m.nv, 5)
    B = np.zeros((mj.nv, mj.nu))                 # d qfrc / d ctrl of MuJoCo's fixed gains
    for k in range(mj.nu):
        B[mj.actuator_trnid[k, 0], k] = mj.actuator_gear[k, 0] * mj.actuator_gainprm[k, 0]
    np.testing.assert_allclose(act.B, B, rtol=0, atol=1e-15)


def test_actuator_torque_equals_mujoco_qfrc_actuator():
    """``tau(ctrl, q, v)`` is MuJoCo's ``qfrc_actuator`` at random states and ctrls (half of them
    outside ctrlrange), with refs, gears, force and joint ranges: to rounding (1e-10)."""
    m, act, mj, d, cv = arm()
    rng = np.random.default_rng(0)
    ctrls, qs, vs, taus = [], [], [], []
    for _ in range(30):
        q, v, u = rng.uniform(-1, 1, m.nq), rng.uniform(-2, 2, m.nv), rng.uniform(-2, 2, act.nu)
        d.qpos[:], d.qvel[:], d.ctrl[:] = cv.to_mj_qpos(q), cv.to_mj_qvel(q, v), u
        mujoco.mj_forward(mj, d)
        np.testing.assert_allclose(act.force(u, q, v), d.actuator_force, rtol=0, atol=1e-10)
        np.testing.assert_allclose(act.tau(u, q, v), d.qfrc_actuator, rtol=0, atol=1e-10)
        ctrls.append(u), qs.append(q), vs.append(v), taus.append(d.qfrc_actuator.copy())
    np.testing.assert_allclose(act.tau(np.array(ctrls), np.array(qs), np.array(vs)), taus, atol=1e-10)  # a batch


def test_driven_run_matches_mj_step():
    """A 0.2 s run under a constant ctrl. artidyn's semi-implicit Euler is MuJoCo's Euler integrator
    (no joint damping, so no implicit term): the same arithmetic, to 1e-10. artidyn's RK4 holds a
    Python ``tau(t, q, v)`` over the step while MuJoCo's RK4 re-evaluates the servos at every stage:
    a first-order difference (measured 4.9e-4 rad at 1 ms), so it is checked to 2e-3 and to halve
    with the step, which a wrong map would not do."""
    m, act, mj, d, cv = arm()
    q0, v0 = np.array([0.2, -0.3, 0.1, 0.02]), np.array([0.5, -0.2, 0.3, 0.1])
    ctrl = np.array([1.4, 0.3, -0.5, 0.2, 0.1])          # m1 clamped
    res = ad.simulate(m, q0, v0, tau=act.controller(ctrl), t_final=0.2, dt=1e-3, method="semi-implicit")
    q_mj = run_mujoco(mj, d, cv, q0, v0, ctrl, mujoco.mjtIntegrator.mjINT_EULER, 200)
    np.testing.assert_allclose(res.q[-1], q_mj, rtol=0, atol=1e-10)
    errs = []
    for dt in (1e-3, 5e-4):
        res = ad.simulate(m, q0, v0, tau=act.controller(lambda t: ctrl), t_final=0.2, dt=dt, method="rk4")
        q_mj = run_mujoco(mj, d, cv, q0, v0, ctrl, mujoco.mjtIntegrator.mjINT_RK4, round(0.2 / dt), dt)
        errs.append(np.abs(res.q[-1] - q_mj).max())
    assert errs[0] < 2e-3 and 0.4 < errs[1] / errs[0] < 0.6, errs


def test_actuation_flags_and_not_modelled():
    """``<flag clampctrl="disable">`` keeps ctrl unclamped, ``actuation="disable"`` zeroes the map; a
    tendon actuator keeps its place in ctrl and applies nothing, with a warning (strict refuses it)."""
    q, v, u = np.array([0.1, 0.2, 0.3, 0.01]), np.array([0.1, -0.2, 0.3, 0.4]), np.array([3.0, 2, 0, -4, 1])
    for flag in ('clampctrl="disable"', 'actuation="disable"'):
        xml = ARM.replace('<flag contact="disable"/>', f'<flag contact="disable" {flag}/>')
        m, mj = load_mjcf(xml), mujoco.MjModel.from_xml_string(xml)
        d, cv = mujoco.MjData(mj), MujocoConverter(m, mj)
        d.qpos[:], d.qvel[:], d.ctrl[:] = cv.to_mj_qpos(q), v, u
        mujoco.mj_forward(mj, d)
        np.testing.assert_allclose(actuation(xml, m).tau(u, q, v), d.qfrc_actuator, rtol=0, atol=1e-12)
    assert not np.any(d.qfrc_actuator)
    m = load_mjcf(ARM)
    tendon = ARM.replace("</worldbody>", '</worldbody><tendon><fixed name="t"><joint joint="j1" coef="1"/>'
                                         '</fixed></tendon>').replace("</actuator>",
                                                                      '<motor name="mt" tendon="t"/></actuator>')
    with pytest.warns(NotModelledWarning, match="tendon transmission"):
        act = actuation(tendon, m)
    assert act.names[-1] == "mt" and not np.any(act.B[:, -1])
    with pytest.raises(ParseError, match="strict"):
        actuation(tendon, m, strict=True)


# --- <equality joint> ------------------------------------------------------------------------------
COUPLED = """<mujoco><compiler angle="radian"/><option gravity="0 0 -9.81"><flag contact="disable"/></option>
<worldbody><body name="a"><joint name="j1" axis="0 1 0" ref="0.3"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
  <body name="b" pos="0.3 0 0"><joint name="j2" axis="0 1 0" ref="-0.2"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="0.7"/></body></body>
  <body name="c" pos="0 0.5 0"><joint name="j3" axis="1 0 0" ref="0.1"/>
    <geom type="sphere" pos="0 0 -0.2" size="0.05" mass="0.5"/></body>
</worldbody>
<equality><joint name="gear" joint1="j3" joint2="j1" polycoef="0.05 -0.8 0 0 0"
  solref="0.0005 1" solimp="0.9999 0.9999 0.001 0.5 2"/>{extra}</equality></mujoco>"""


def coupled_state(rng):
    q, v = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)
    q[2], v[2] = 0.05 - 0.8 * q[0], -0.8 * v[0]
    return q, v


def test_joint_equality_is_a_coupling():
    m = load_mjcf(COUPLED.format(extra=""))
    (spec,) = m.constraint_specs
    assert (spec.type, spec.name, spec.joint_a, spec.joint_b, spec.ratio, spec.offset) == \
        ("coupling", "gear", "j3", "j1", -0.8, 0.05)


def test_joint_equality_accelerations_match_mujoco():
    """MuJoCo measures both joints from qpos0 (= ref), artidyn's q is qpos - ref: the constraint holds
    in MuJoCo too (efc_pos 0). MuJoCo's equality is soft: with solimp d = 0.9999 (its maximum) the
    regularisation is about (1 - d) / d = 1e-4 of the constraint's effective mass, so the
    accelerations agree to 1e-3 of the constraint's effect ``|a - a_free|`` (measured 1.1e-4)."""
    xml = COUPLED.format(extra="")
    m, mj = load_mjcf(xml), mujoco.MjModel.from_xml_string(xml)
    d, cv = mujoco.MjData(mj), MujocoConverter(m, mj)
    rng = np.random.default_rng(1)
    for _ in range(5):
        q, v = coupled_state(rng)
        tau = rng.uniform(-1, 1, 3)
        d.qpos[:], d.qvel[:], d.qfrc_applied[:] = cv.to_mj_qpos(q), v, tau
        mujoco.mj_forward(mj, d)
        assert abs(d.efc_pos[0]) < 1e-12
        a = ad.constrained_dynamics(m, q, v, tau, ad.constraints.from_model(m)).a
        effect = np.abs(a - ad.aba(m, q, v, tau)).max()
        assert effect > 1.0 and np.abs(a - d.qacc).max() < 1e-3 * effect


def test_joint_equality_run_stays_coupled():
    """``constraints="model"`` keeps q3 = 0.05 - 0.8 q1 over 0.2 s (projection: to 1e-8) and follows
    MuJoCo's stiff equality to 1e-3 rad (MuJoCo's constraint is soft: see above)."""
    xml = COUPLED.format(extra="")
    m, mj = load_mjcf(xml), mujoco.MjModel.from_xml_string(xml)
    d, cv = mujoco.MjData(mj), MujocoConverter(m, mj)
    q0, v0 = coupled_state(np.random.default_rng(2))
    res = ad.simulate(m, q0, v0, t_final=0.2, dt=1e-3, method="rk4", constraints="model")
    np.testing.assert_allclose(res.q[:, 2], 0.05 - 0.8 * res.q[:, 0], rtol=0, atol=1e-8)
    q_mj = run_mujoco(mj, d, cv, q0, v0, [], mujoco.mjtIntegrator.mjINT_RK4, 200)
    np.testing.assert_allclose(res.q[-1], q_mj, rtol=0, atol=1e-3)


@pytest.mark.parametrize("extra, match", [
    ('<joint joint1="j2" joint2="j1" polycoef="0 1 0.5 0 0"/>', "nonlinear joint equality"),
    ('<joint joint1="j2" polycoef="0.1 0 0 0 0"/>', "no joint2"),
])
def test_joint_equality_not_modelled(extra, match):
    xml = COUPLED.format(extra=extra)
    with pytest.warns(NotModelledWarning, match=match):
        m = load_mjcf(xml)
    assert [s.name for s in m.constraint_specs] == ["gear"]
    with pytest.raises(ParseError, match="strict"):
        load_mjcf(xml, strict=True)


def test_inactive_joint_equality_is_skipped_with_a_note():
    xml = COUPLED.format(extra='<joint name="off" joint1="j2" joint2="j1" active="false"/>')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = load_mjcf(xml, strict=True)
    assert [s.name for s in m.constraint_specs] == ["gear"]
    assert "inactive" in str(m.load_report)
