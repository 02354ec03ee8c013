"""The simulation pipeline with contacts and everything beside them: controllers, tables, Python
functions, external wrenches, closed loops and rollouts; the compiled loop held equal to the
readable one step for step, and the energy balance that stops a diverging run."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.constraints import Point, from_model
from artidyn.contact import ContactSettings
from artidyn.geometry import Collision, HalfSpace, Sphere
from artidyn.sim import PD, ComputedTorque, TimeTable
from artidyn.sim.contact_run import simulate_contact
from test_contact import G, ball
from test_contact_compiled import assert_same

FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")


def both(model, q, v, t_final, **kw):
    kw.setdefault("contact", ContactSettings(friction=0.8))
    s, tau = kw.pop("contact"), kw.pop("tau", 0.0)
    c = simulate_contact(model, q, v, tau, t_final, 1e-3, s, route="compiled", **kw)
    r = simulate_contact(model, q, v, tau, t_final, 1e-3, s, route="reference", **kw)
    assert c.stats["route"] == "compiled" and r.stats["route"] == "reference"
    return c, r


@pytest.fixture(scope="module")
def solo():
    """example-robot-data's solo12 on four foot spheres, knees bent, feet on the ground."""
    model = ad.load("solo12")
    cols = [Collision("ground", 0, HalfSpace((0.0, 0.0, 1.0), 0.0), np.eye(4))]
    for f in FEET:
        fr = model.frame(f)
        cols.append(Collision(f"{f}_sphere", fr.body, Sphere(0.0175), np.asarray(fr.placement)))
    model = model.replace(collisions=cols, collision_exclusions=())
    q = ad.neutral(model)
    for leg, sg in (("FL", 1), ("FR", 1), ("HL", -1), ("HR", -1)):
        q[model.idx_q[model.joint_id(leg + "_HFE")]] = 0.8 * sg
        q[model.idx_q[model.joint_id(leg + "_KFE")]] = -1.6 * sg
    q[2] += 0.0175 - min(ad.frame_placement(model, q, f)[2, 3] for f in FEET)
    return model, q


def holding(model, q):
    """Joint torques that hold q on vertical foot forces (least norm), as a feed-forward."""
    g = ad.gravity_torque(model, q)
    Jz = np.array([ad.jacobian(model, q, f)[5] for f in FEET])
    f, *_ = np.linalg.lstsq(Jz[:, :6].T, g[:6], rcond=None)
    tau = np.zeros(model.nv)
    tau[6:] = g[6:] - Jz[:, 6:].T @ f
    return tau


# --- every input with contacts, compiled = readable ----------------------------------------------

def test_pd_controller_on_contacts_compiled_equals_reference(solo):
    model, q = solo
    q1 = q.copy()
    q1[2] += 0.005                                 # dropped 5 mm: impacts, then standing under the PD
    c, r = both(model, q1, None, 0.1, controller=PD(20.0, 0.5, q))
    assert_same(c, r, atol=1e-8)
    np.testing.assert_allclose(c.tau, r.tau, atol=1e-8)
    assert np.any(c.tau[:, 6:] != 0) and np.all(c.tau[:, :6] == 0)      # the PD acts on the actuated joints


def test_computed_torque_time_table_and_wrenches_compiled_equals_reference():
    model = ball()
    q = ad.neutral(model)
    q[2] = 0.3
    table = TimeTable(np.array([0.0, 0.05, 0.1]), np.array([[0, 0, 0, 1.0, 0, 0], [0, 0, 0, -1.0, 0, 0],
                                                            [0, 0, 0, 0, 0, 0]]), interpolation="linear")
    F = np.zeros((model.nb + 1, 6))
    F[1, 4] = 2.0                                  # a sideways force on the ball (body frame)
    c, r = both(model, q, None, 0.3, tau=table, f_ext=F)
    assert_same(c, r)
    # the input's work: the force along y and the table along x, integrated over the run
    assert c.input_work[-1] == pytest.approx(r.input_work[-1], rel=1e-9)
    ref_q = ad.neutral(model)
    ct = ComputedTorque(100.0, 20.0, ref_q)
    c, r = both(model, q, None, 0.2, controller=ct)
    assert_same(c, r)


def test_python_function_equals_the_same_law_tabled_and_compiled():
    """A function of (t, q, v) called from the compiled loop gives the run of the same law as a
    compiled PD, and a function of t alone the run of the same values held in a table."""
    model = ball()
    q = ad.neutral(model)
    q[:3] = (0.0, 0.0, 0.2)
    q_ref = q.copy()
    q_ref[:3] = (0.3, -0.1, 0.2)
    kp, kd = 50.0, 5.0
    act = np.asarray(model.actuated, dtype=float)

    def law(t, qq, vv):
        return act * (kp * ad.difference(model, qq, q_ref) - kd * vv)

    s = ContactSettings(friction=0.3)
    fn = ad.simulate(model, q, None, law, t_final=0.3, contact=s)
    pd = ad.simulate(model, q, None, t_final=0.3, contact=s, controller=PD(kp, kd, q_ref))
    assert fn.stats["route"] == pd.stats["route"] == "compiled"
    np.testing.assert_allclose(fn.q, pd.q, atol=1e-13, rtol=0)
    np.testing.assert_allclose(fn.tau, pd.tau, atol=1e-11, rtol=0)
    steps = fn.t.size - 1
    rows = np.array([[0, 0, 0, np.sin(20 * t), np.cos(30 * t), 0] for t in fn.t[:-1]])
    tabled = ad.simulate(model, q, None, rows, t_final=0.3, contact=s)
    timed = ad.simulate(model, q, None, lambda t, qq, vv: np.array([0, 0, 0, np.sin(20 * t), np.cos(30 * t), 0]),
                        t_final=0.3, contact=s)
    assert rows.shape[0] == steps
    np.testing.assert_array_equal(timed.q, tabled.q)


def test_python_function_reads_the_previous_contact_forces():
    """tau(t, q, v, contact_forces): the forces of the previous step, as the result records them."""
    model = ball()
    q = ad.neutral(model)
    q[2] = 0.1                                      # resting on the ground
    seen = []

    def tau(t, qq, vv, forces):
        seen.append(forces.copy())
        return np.zeros(model.nv)

    r = ad.simulate(model, q, None, tau, t_final=0.02, contact=ContactSettings())
    assert len(seen) == r.t.size
    np.testing.assert_array_equal(seen[0], 0.0)
    np.testing.assert_array_equal(np.array(seen[1:]), r.contact_forces[:-1])
    assert r.contact_forces[-1, 1, 2] == pytest.approx(G, rel=1e-6)      # the ball's weight, at rest


def test_python_function_errors_come_out_with_the_step():
    model = ball()
    q = ad.neutral(model)
    q[2] = 0.1

    def broken(t, qq, vv):
        if t > 0.005:
            raise RuntimeError("controller fault")
        return np.zeros(model.nv)

    with pytest.raises(RuntimeError, match="controller fault"):
        ad.simulate(model, q, None, broken, t_final=0.02, contact=ContactSettings())
    with pytest.raises(ad.InputError, match="NaN"):
        ad.simulate(model, q, None, lambda t, qq, vv: np.full(model.nv, np.nan), t_final=0.02,
                    contact=ContactSettings())


# --- solo12 standing under a compiled PD --------------------------------------------------------

def test_solo12_stands_five_seconds_under_a_pd(solo):
    model, q = solo
    r = ad.simulate(model, q, None, holding(model, q), t_final=5.0, contact=ContactSettings(friction=0.8),
                    controller=PD(20.0, 0.5, q))
    assert r.stats["route"] == "compiled"
    assert np.max(np.abs(r.q[:, 2] - q[2])) < 1e-3             # the base height steady to 1 mm
    assert np.all(np.abs(r.q[:, :2] - q[:2]) < 1e-3)           # no sliding
    weight = model.total_mass * np.linalg.norm(model.gravity)
    assert -r.contact_forces[-1, 0, 2] == pytest.approx(weight, rel=1e-6)   # the ground carries the weight


def test_talos_stands_on_its_collision_meshes_under_a_pd():
    """talos_full_v2 with the collision meshes of its URDF (self-collision as its SRDF allows) on
    the ground, its grippers' mimic couplings enforced (constraints='model'), a compiled PD holding
    the SRDF's half_sitting posture over a quasi-static feed-forward (two sole wrenches carrying the
    weight): it stays up for 5 s at 1 ms, the base within 1 cm of its start (rigid contacts: a
    millimetre of settling), the feet on the ground, the mimic joints following their masters."""
    from artidyn.io.srdf import load_postures
    model = ad.load("talos_full_v2")
    model = model.replace(collisions=list(model.collisions) + [Collision("ground", 0, HalfSpace(), np.eye(4))])
    q = load_postures(model)["half_sitting"]
    W = ad.geometry.world_placements(model, ad.body_placements(model, q))
    q[2] -= min(float((c.shape.vertices @ T[:3, :3].T + T[:3, 3])[:, 2].min())
                for c, T in zip(model.collisions, W) if hasattr(c.shape, "vertices"))
    g = ad.gravity_torque(model, q)
    Js = [ad.jacobian(model, q, f) for f in ("left_sole_link", "right_sole_link")]
    wrenches, *_ = np.linalg.lstsq(np.hstack([J[:, :6].T for J in Js]), g[:6], rcond=None)
    ff = np.zeros(model.nv)
    ff[6:] = g[6:] - sum(J[:, 6:].T @ wrenches[6 * i:6 * i + 6] for i, J in enumerate(Js))
    d = np.diag(ad.crba(model, q))
    kp = d * (2 * np.pi * 7.0) ** 2
    legs = np.zeros(model.nv, bool)
    for j in range(2, model.nb + 1):
        legs[model.idx_v[j]] = model.joint_names[j].startswith("leg_")
    kp[legs] = np.maximum(kp[legs], 2000.0)
    kd = 2 * 0.7 * np.sqrt(kp * d)
    kd[legs] = np.maximum(kd[legs], 20.0)
    kp[:6] = kd[:6] = 0.0
    r = ad.simulate(model, q, None, ff, t_final=5.0, dt=1e-3, contact=ContactSettings(friction=0.8),
                    controller=PD(kp, kd, q), constraints="model")
    assert r.stats["route"] == "compiled" and len(r.t) == 5001
    # a sole's corner on its cone's edge: most steps polished on the last dense step's Delassus matrix
    assert r.stats["chord_steps"] > 0.8 * 5000
    assert np.max(np.abs(r.q[:, 2] - q[2])) < 0.01
    assert np.linalg.norm(r.q[-1, :2] - q[:2]) < 0.01
    feet = {model.body_names.index(b) for b in ("leg_left_6_link", "leg_right_6_link")}
    assert {int(b) for b in r.contacts[-1].body_a} | {int(b) for b in r.contacts[-1].body_b} >= feet
    weight = model.total_mass * np.linalg.norm(model.gravity)
    lift = -r.contact_forces[:, 0, 2]
    assert lift[-1000:].mean() == pytest.approx(weight, rel=1e-3)   # the ground carries the weight (1 s mean)
    for c in from_model(model):
        np.testing.assert_allclose(c.phi(model, r.q[-1]), 0.0, atol=1e-9)


def test_joint_damping_is_implicit_in_the_contact_step():
    """A spinning wheel (its centre of mass on its axis, I = 2e-4) with damping d = 1 at h = 1 ms,
    d h / I = 5, in a contact scene: explicit damping would multiply v by 1 - 5 = -4 each step;
    Moreau-Jean with M + h D divides it by 1 + 5, exactly, on both routes."""
    b = ad.ModelBuilder("wheel")
    b.add_body("wheel", "world", "revolute", axis=(0, 0, 1), mass=1.0, inertia=np.diag([1e-4, 1e-4, 2e-4]),
               damping=1.0)
    b.add_collision("wheel", Sphere(0.05))
    b.add_collision("world", HalfSpace((0.0, 0.0, 1.0), -1.0))
    model = b.build()
    c, r = both(model, np.zeros(1), np.ones(1), 0.01)
    expected = (1.0 / 6.0) ** np.arange(11)
    np.testing.assert_allclose(c.v[:, 0], expected, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(r.v[:, 0], expected, rtol=1e-12, atol=1e-300)


def test_a_pd_controllers_damping_is_implicit_in_the_contact_step():
    """The same wheel without joint damping under PD(kp=0, kd=1): h kd / I = 5 again. An explicit
    kd would multiply v by -4 each step; the step takes it into M + h (D + kd), dividing v by 6
    on both routes, and the recorded torque is the one applied, -kd v_k+1."""
    b = ad.ModelBuilder("wheel")
    b.add_body("wheel", "world", "revolute", axis=(0, 0, 1), mass=1.0, inertia=np.diag([1e-4, 1e-4, 2e-4]))
    b.add_collision("wheel", Sphere(0.05))
    b.add_collision("world", HalfSpace((0.0, 0.0, 1.0), -1.0))
    model = b.build()
    c, r = both(model, np.zeros(1), np.ones(1), 0.01, controller=PD(0.0, 1.0, np.zeros(1)))
    expected = (1.0 / 6.0) ** np.arange(11)
    for x in (c, r):
        np.testing.assert_allclose(x.v[:, 0], expected, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(x.tau[:-1, 0], -expected[1:], rtol=1e-12)
    assert np.all(np.diff(c.energy.kinetic) < 0)


def test_a_light_floating_robot_under_stiff_pd_gains_stays_up():
    """g1 (example-robot-data) on its own collision geometry under a PD of 5 Hz per joint
    (kp = M_ii (2 pi 5)^2, kd = 2 0.7 sqrt(kp M_ii)): its light wrist and ankle links have
    h kd / m_eff > 2, which an explicit kd drove unstable at step 10 (the energy balance stopped
    the run); with the PD's damping implicit it stands 0.3 s, the pelvis within 3 cm."""
    model = ad.load("g1_29dof_rev_1_0")
    q = ad.neutral(model)
    W = ad.geometry.world_placements(model, ad.body_placements(model, q))
    q[2] -= min(float(ad.geometry.shapes.aabb(c.shape, T)[0][2]) for c, T in zip(model.collisions, W))
    model = model.replace(collisions=list(model.collisions) + [Collision("ground", 0, HalfSpace(), np.eye(4))])
    d = np.diag(ad.crba(model, q))
    kp = d * (2 * np.pi * 5.0) ** 2
    kd = 2 * 0.7 * np.sqrt(kp * d)
    ff = ad.gravity_torque(model, q)
    kp[:6] = kd[:6] = ff[:6] = 0.0
    r = ad.simulate(model, q, None, ff, t_final=0.3, dt=1e-3, contact=ContactSettings(friction=0.8),
                    controller=PD(kp, kd, q))
    assert r.stats["route"] == "compiled" and len(r.t) == 301
    assert np.max(np.abs(r.q[:, 2] - q[2])) < 0.03
    assert np.max(np.abs(r.v[-1])) < 1.0


# --- a closed chain touching the ground ----------------------------------------------------------

def fourbar_on_ground():
    """The built-in four-bar with a ball at its coupler's middle and a floor 2 cm below it."""
    model = ad.load("fourbar")
    q = ad.neutral(model)
    at = np.eye(4)
    at[:3, 3] = (1.5, 0.0, 0.0)
    y = ad.body_placements(model, q)[2] @ at
    floor = y[1, 3] - 0.1 - 0.02
    cols = [Collision("floor", 0, HalfSpace((0.0, 1.0, 0.0), floor), np.eye(4)),
            Collision("knob", model.body_names.index("coupler"), Sphere(0.1), at)]
    return model.replace(collisions=cols), q, floor


def test_fourbar_coupler_lands_on_the_floor_and_rests():
    model, q, floor = fourbar_on_ground()
    loop = from_model(model)
    r = ad.simulate(model, q, None, t_final=2.0, contact=ContactSettings(friction=0.5), constraints=loop)
    assert r.stats["route"] == "compiled"
    phi = np.array([np.abs(ad.constraints.constraint_rows(model, qk, np.zeros(3), loop).phi).max() for qk in r.q])
    assert phi.max() < 1e-9                                    # the loop stays closed
    knob = np.array([(ad.body_placements(model, qk)[2] @ np.r_[1.5, 0, 0, 1])[1] for qk in r.q])
    assert knob.min() - 0.1 - floor > -1e-3 - 1e-9             # no penetration beyond the margin
    assert any(e.kind == "impact" for e in r.events)
    assert np.abs(r.v[-1]).max() < 1e-6                        # at rest
    # at rest: gravity carried by the loop's pin and the floor, g(q) = J_c^T f_c + J_b^T lambda
    qf = r.q[-1]
    rows = ad.constraints.constraint_rows(model, qf, np.zeros(3), loop)
    C = r.contacts[-1]
    assert len(C.gap) == 1
    p_world = C.point_a[0] if C.body_a[0] == 2 else C.point_b[0]
    T = ad.body_placements(model, qf)[2]
    Jc = ad.jacobian(model, qf, "coupler", point=T[:3, :3].T @ (p_world - T[:3, 3]))[3:]
    f_world = r.contact_forces[-1, 2]
    lam = r.constraint_forces[-1]
    residual = ad.gravity_torque(model, qf) - Jc.T @ f_world - rows.J.T @ lam
    assert np.abs(residual).max() < 1e-6 * np.abs(ad.gravity_torque(model, qf)).max()
    assert f_world[1] > 0                                      # the floor pushes up


def test_fourbar_on_ground_compiled_equals_reference():
    model, q, _ = fourbar_on_ground()
    c, r = both(model, q, None, 0.5, contact=ContactSettings(friction=0.5), constraints=from_model(model))
    assert_same(c, r, atol=1e-9)
    np.testing.assert_allclose(c.constraint_forces, r.constraint_forces, atol=1e-6)


# --- rollouts of contact scenes ------------------------------------------------------------------

def test_contact_rollouts_equal_single_runs(solo):
    """Each run of a rollout is the run alone, bit for bit, and a run again is the same run: no
    kernel of the step reorders its sums (a vectorised reduction's order would depend on where
    the scratch lies in memory)."""
    model, q = solo
    rng = np.random.default_rng(3)
    Q = np.repeat(q[None], 5, axis=0)
    Q[:, 2] += rng.uniform(0.0, 0.01, 5)
    Q[:, 7:] += rng.normal(0.0, 0.05, (5, 12))
    s = ContactSettings(friction=0.8)
    pd = PD(20.0, 0.5, q)
    R = ad.rollout(model, Q, None, t_final=0.1, contact=s, controller=pd)
    assert R.q.shape == (5, 101, model.nq) and R.contact_forces.shape == (5, 101, model.nb + 1, 3)
    np.testing.assert_array_equal(R.stats["status"], 0)
    for n in range(5):
        one = ad.simulate(model, Q[n], None, t_final=0.1, contact=s, controller=pd)
        again = ad.simulate(model, Q[n], None, t_final=0.1, contact=s, controller=pd)
        for a, b in ((R.q[n], one.q), (R.v[n], one.v), (R.contact_forces[n], one.contact_forces),
                     (again.q, one.q), (again.contact_forces, one.contact_forces)):
            np.testing.assert_array_equal(a, b)


def test_rollout_refuses_python_functions_and_reports_failed_runs():
    model = ball()
    Q = np.repeat(ad.neutral(model)[None], 3, axis=0)
    Q[:, 2] = 0.2
    with pytest.raises(ad.InputError, match="cannot run in parallel"):
        ad.rollout(model, Q, None, lambda t, q, v: np.zeros(6), t_final=0.01, contact=ContactSettings())
    V = np.zeros((3, 6))
    V[1, 0] = 1e99                                             # run 1 fails (non-finite), the others run
    with pytest.raises(ad.SimulationError, match="1 of 3 runs failed") as err:
        ad.rollout(model, Q, V, t_final=0.01, contact=ContactSettings())
    status = err.value.result.stats["status"]
    assert status[0] == status[2] == 0 and status[1] != 0
    assert np.all(np.isfinite(err.value.result.q[[0, 2]]))


# --- the energy balance -------------------------------------------------------------------------

def test_a_diverging_controlled_contact_run_raises_with_its_partial_result(solo):
    """A PD with an absurd gain at 1 ms: the energy outgrows the work of the inputs (the run would
    otherwise go on, finite and meaningless); the error says when, with the run up to there."""
    model, q = solo
    q1 = q.copy()
    q1[7:] += 0.1
    with pytest.raises(ad.SimulationError, match="energy grew beyond the work of the inputs") as err:
        ad.simulate(model, q1, None, t_final=1.0, contact=ContactSettings(friction=0.8),
                    controller=PD(1e6, 0.0, q))
    part = err.value.result
    assert 0 < part.t.size < 1001 and np.all(np.isfinite(part.q))
    msg = str(err.value)                              # where it was going: the joint that ran away
    assert f"(step {part.t.size}," in msg
    named = [j for j in model.joint_names[2:] if f"the fastest joint was '{j}' (|v| = " in msg]
    assert len(named) == 1, msg


def test_energy_balance_holds_on_sane_runs(solo):
    """A bouncing ball (restitution) and solo12 under a PD with feed-forward: E - E0 <= W."""
    model = ball()
    q = ad.neutral(model)
    q[2] = 0.5
    r = ad.simulate(model, q, None, t_final=1.0, contact=ContactSettings(restitution=0.9))
    assert np.all(r.energy.total - r.energy.total[0] <= 1e-9)
    model, q = solo
    r = ad.simulate(model, q, None, holding(model, q), t_final=0.5, contact=ContactSettings(friction=0.8),
                    controller=PD(20.0, 0.5, q))
    gain = (r.energy.total - r.energy.total[0]) - r.input_work
    assert gain.max() < 1e-3 * model.total_mass * G


def test_flags_given_as_arrays_are_refused_by_name():
    model = ball()
    q = ad.neutral(model)
    flag = np.array([True, False])
    for call in (lambda: ad.simulate(model, q, None, t_final=0.01, friction=flag),
                 lambda: ad.simulate(model, q, None, t_final=0.01, contact=ContactSettings(), projection=flag),
                 lambda: ad.rollout(model, np.stack([q, q]), None, t_final=0.01, friction=flag),
                 lambda: ad.aba(model, q, np.zeros(6), np.zeros(6), friction=flag),
                 lambda: ad.rnea(model, q, np.zeros(6), np.zeros(6), friction=flag)):
        with pytest.raises(ad.InputError, match="must be True or False"):
            call()
