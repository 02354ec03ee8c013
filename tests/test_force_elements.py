"""Force elements (drag, nonlinear springs, joint springs) in simulate and rollout: closed forms
(terminal velocity under quadratic and linear drag, the period of the pure cubic oscillator),
energy conservation with the springs' energy, scipy's solve_ivp on a Duffing joint, the compiled
input stage against the readable evaluation, the contact pipeline's two routes, bad input."""
import numpy as np
import pytest
import scipy.integrate
import scipy.special

import artidyn as ad
from artidyn.configuration import integrate, neutral
from artidyn.constraints import Point
from artidyn.contact import ContactSettings
from artidyn.dynamics import aba, rnea
from artidyn.errors import InputError
from artidyn.io.mjcf.reader import NotModelledWarning
from artidyn.kinematics import body_placements, body_velocities
from artidyn.models.zoo import random_tree
from artidyn.sim.contact_run import simulate_contact
from artidyn.sim.forces import element_potential, element_power, element_wrenches, pack_forces
from artidyn.sim.integrate import rk4_step
from test_contact import G, ball, state


def slider(m=2.0, axis=(0, 0, 1), gravity=(0, 0, -G), name="mass"):
    """A point mass on a prismatic joint along ``axis`` (z: falling under gravity)."""
    b = ad.ModelBuilder("slider", gravity=gravity)
    b.add_body(name, "world", "prismatic", axis=axis, mass=m, inertia=np.zeros((3, 3)))
    return b.build()


# --- drag: closed forms ------------------------------------------------------------------------

def test_quadratic_drag_reaches_the_terminal_velocity_along_tanh():
    """m v' = -m g + c2 v^2 (falling, v < 0): v(t) = -v_t tanh(g t / v_t), v_t = sqrt(m g / c2)."""
    m, c2 = 2.0, 0.3
    model = slider(m)
    r = ad.simulate(model, np.zeros(1), np.zeros(1), t_final=3.0, dt=1e-3, method="rk4",
                    forces=[ad.Drag("mass", quadratic=c2)])
    vt = np.sqrt(m * G / c2)
    np.testing.assert_allclose(r.v[:, 0], -vt * np.tanh(G * r.t / vt), rtol=0, atol=1e-6 * vt)
    np.testing.assert_allclose(r.q[:, 0], -vt ** 2 / G * np.log(np.cosh(G * r.t / vt)), rtol=0, atol=1e-6)


def test_linear_drag_follows_the_exponential_approach():
    """m v' = -m g - c1 v: v(t) = -v_t (1 - exp(-c1 t / m)), v_t = m g / c1."""
    m, c1 = 1.5, 0.8
    model = slider(m)
    r = ad.simulate(model, np.zeros(1), np.zeros(1), t_final=4.0, dt=1e-3, method="rk4",
                    forces=[ad.Drag("mass", linear=c1)])
    vt = m * G / c1
    np.testing.assert_allclose(r.v[:, 0], -vt * (1 - np.exp(-c1 * r.t / m)), rtol=0, atol=1e-8 * vt)


def test_drag_on_a_spinning_free_ball_is_taken_in_the_body_frame():
    """A free ball (isotropic inertia I, no gravity) spinning and flying: the isotropic drag gives
    v(t) = v0 / (1 + c2 |v0| t / m) (quadratic, straight line in world) and the linear angular drag
    omega(t) = omega0 exp(-a1 t / I), whatever the body turns to."""
    m, R, c2, a1 = 1.0, 0.1, 0.4, 0.002
    model = ball(R, m, gravity=(0, 0, 0))
    I = 0.4 * m * R * R
    q = neutral(model)
    w0, v0 = np.array([3.0, -2.0, 5.0]), np.array([1.0, 2.0, 0.5])
    r = ad.simulate(model, q, np.concatenate([w0, v0]), t_final=1.0, dt=1e-3, method="rk4",
                    forces=[ad.Drag("ball", quadratic=c2, angular_linear=a1)])
    w_body = r.v[:, :3]
    np.testing.assert_allclose(w_body, np.exp(-a1 * r.t / I)[:, None] * w0, atol=1e-9)   # omega along its axis
    v_world = np.array([body_velocities(model, qk, vk)[1, 3:] @ body_placements(model, qk)[1, :3, :3].T
                        for qk, vk in zip(r.q, r.v)])
    s0 = np.linalg.norm(v0)
    np.testing.assert_allclose(v_world, v0 / (1 + c2 * s0 * r.t / m)[:, None], atol=1e-9)


def test_a_wind_pushes_a_resting_body_and_the_balance_counts_its_work():
    """A body at rest in a wind u (linear drag): v(t) = u (1 - exp(-c1 t / m)); its energy grows,
    the inputs' work (the drag's) pays for it: no divergence reported."""
    m, c1, u = 1.0, 2.0, 3.0
    model = slider(m, axis=(1, 0, 0), gravity=(0, 0, 0))
    r = ad.simulate(model, np.zeros(1), np.zeros(1), t_final=2.0, dt=1e-3, method="rk4",
                    forces=[ad.Drag("mass", linear=c1, fluid_velocity=(u, 0, 0))])
    np.testing.assert_allclose(r.v[:, 0], u * (1 - np.exp(-c1 * r.t / m)), atol=1e-9)
    assert r.energy.kinetic[-1] > 4.0


# --- springs --------------------------------------------------------------------------------------

def cubic_period(m, k3, A):
    """The pure cubic oscillator m x'' = -k3 x^3 from rest at A: T = 4 sqrt(2 m / k3) / A * integral
    of du / sqrt(1 - u^4) over (0, 1), that integral being K(1/2) / sqrt(2) (K: the complete elliptic
    integral of the first kind, parameter m = k^2 = 1/2); T = 7.4163 sqrt(m / k3) / A."""
    return 4 * np.sqrt(2 * m / k3) / A * scipy.special.ellipk(0.5) / np.sqrt(2)


def crossings(t, x):
    """Times where x goes from positive to negative, linearly interpolated."""
    k = np.nonzero((x[:-1] > 0) & (x[1:] <= 0))[0]
    return t[k] + (t[k + 1] - t[k]) * x[k] / (x[k] - x[k + 1])


def test_cubic_spring_period_and_energy():
    """A mass on a pure cubic spring to a world point (rest length 0, along the slide): the period
    against the closed form, and the energy T + U_spring conserved by RK4."""
    m, k3, A = 0.5, 200.0, 0.3
    assert abs(cubic_period(1.0, 1.0, 1.0) - 7.4163) < 1e-4
    model = slider(m, axis=(1, 0, 0), gravity=(0, 0, 0))
    spring = ad.Spring("mass", body_b="world", stiffness=(0.0, 0.0, k3))
    r = ad.simulate(model, np.array([A]), np.zeros(1), t_final=5.0, dt=2e-4, method="rk4", forces=[spring])
    T = cubic_period(m, k3, A)
    periods = np.diff(crossings(r.t, r.q[:, 0]))
    assert periods.size >= 3
    np.testing.assert_allclose(periods, T, rtol=1e-7)
    E = r.energy.kinetic + np.array([element_potential(model, [spring], q) for q in r.q])
    np.testing.assert_allclose(E, k3 * A ** 4 / 4, rtol=1e-9)


def test_duffing_joint_spring_against_solve_ivp():
    """m x'' = -(k1 x + k3 x^3) - c x' on a JointSpring (rest x0) against scipy's solve_ivp."""
    m, k1, k3, c, x0 = 1.2, 5.0, 80.0, 0.3, 0.05
    model = slider(m, axis=(0, 1, 0), gravity=(0, 0, 0))
    js = ad.JointSpring(model.joint_names[1], stiffness=(k1, 0.0, k3), rest=x0, damping=c)
    r = ad.simulate(model, np.array([0.4]), np.array([-1.0]), t_final=2.0, dt=1e-3, method="rk4", forces=[js])

    def f(t, y):
        x = y[0] - x0
        return [y[1], -(k1 * x + k3 * x ** 3 + c * y[1]) / m]
    ref = scipy.integrate.solve_ivp(f, (0, 2.0), [0.4, -1.0], t_eval=r.t, rtol=1e-12, atol=1e-12, method="DOP853")
    np.testing.assert_allclose(r.q[:, 0], ref.y[0], atol=1e-9)
    np.testing.assert_allclose(r.v[:, 0], ref.y[1], atol=1e-8)


def test_tabulated_spring_equals_the_polynomial_it_samples_where_linear():
    """A table (length, tension) sampled from a linear law k (l - l0) equals Spring(stiffness=k)."""
    k, l0 = 30.0, 0.8
    model = slider(1.0, axis=(1, 0, 0), gravity=(0, 0, 0))
    L = np.array([0.0, 0.5, 1.0, 2.0])
    table = ad.Spring("mass", (0, 0, 0), "world", (-1.0, 0, 0), table=np.c_[L, k * (L - l0)])
    poly = ad.Spring("mass", (0, 0, 0), "world", (-1.0, 0, 0), stiffness=k, rest_length=l0)
    a = ad.simulate(model, np.array([0.3]), np.zeros(1), t_final=1.0, dt=1e-3, method="rk4", forces=[table])
    b = ad.simulate(model, np.array([0.3]), np.zeros(1), t_final=1.0, dt=1e-3, method="rk4", forces=[poly])
    assert a.q[:, 0].min() < -0.5                # lengths from 0.3 to 1.3: over three of the table's segments
    np.testing.assert_allclose(a.q, b.q, atol=1e-10)
    # the table's energy is its integral: from the first length, 1/2 k ((l - l0)^2 - l0^2)
    assert abs(table.energy(0.8) - 0.5 * k * ((0.8 - l0) ** 2 - l0 ** 2)) < 1e-12


# --- the compiled stage against the readable one ----------------------------------------------------

@pytest.fixture
def robot():
    return sample_robot()


def sample_robot():
    """A floating random tree (revolute, prismatic, spherical joints, turned body axes) with a drag
    (per-axis coefficients, a wind), a cubic and a tabulated spring, and joint springs."""
    rng = np.random.default_rng(7)
    model = random_tree(rng, 6, floating=True, joint_types=("revolute", "prismatic", "spherical"))
    names = model.body_names
    flat = [model.joint_names[i] for i in range(1, model.nb + 1) if model.joint_kind[i] in ("revolute", "prismatic")]
    forces = [ad.Drag(names[2], linear=[0.3, 0.5, 0.7], quadratic=0.2, point=(0.1, -0.2, 0.3), angular_linear=0.1,
                      angular_quadratic=[0.1, 0.2, 0.3], fluid_velocity=(1.0, 2.0, 0.5)),
              ad.Spring(names[3], (0.1, 0.2, 0.0), names[5], (0.0, 0.1, 0.3), stiffness=(10.0, 2.0, 30.0),
                        rest_length=0.2, damping=0.5),
              ad.Spring(names[4], (0.1, 0.2, 0.0), "world", (1.0, 0.1, 0.3),
                        table=[[0.0, -1.0], [0.5, 2.0], [1.0, 5.0], [3.0, 6.0]], damping=0.3)]
    forces += [ad.JointSpring(j, (3.0, 1.0, 2.0), rest=0.1, damping=0.2) for j in flat]
    q = integrate(model, neutral(model), 0.5 * rng.normal(size=model.nv))
    v = rng.normal(size=model.nv)
    return model, forces, q, v


@pytest.mark.compiles
def test_compiled_wrenches_equal_the_readable_ones(robot):
    from artidyn.kernels import forces as KF
    from artidyn.kernels.pack import packed
    from artidyn.kernels.spatial import load_q
    model, forces, q, v = robot
    B = packed(model).copy()
    Fs = np.zeros((model.nb + 1, 6))
    load_q(B, q)
    KF.element_wrenches(B, pack_forces(model, forces), q, v, Fs)
    np.testing.assert_allclose(Fs, element_wrenches(model, forces, q, v), rtol=0, atol=1e-12)


def test_readable_wrenches_are_the_point_forces_and_joint_torques(robot):
    """Each element's generalized force J^T F: a joint spring's is its torque on its own dof
    alone; a drag's power is f . v_point + m . omega (the point's velocity from the Jacobian)."""
    model, forces, q, v = robot
    z = np.zeros(model.nv)
    for e in forces:
        F = element_wrenches(model, [e], q, v)
        g = rnea(model, q, z, z, friction=False) - rnea(model, q, z, z, F, friction=False)    # J^T F
        assert abs(g @ v - element_power(model, [e], q, v)) < 1e-10
        if isinstance(e, ad.JointSpring):
            i = model.joint_id(e.joint)
            want = np.zeros(model.nv)
            want[model.idx_v[i]] = e.torque(q[model.idx_q[i]], v[model.idx_v[i]])
            np.testing.assert_allclose(g, want, atol=1e-12)
    drag = forces[0]
    i = model.body_id(drag.body)
    T, Vb = body_placements(model, q)[i], body_velocities(model, q, v)[i]
    vp = T[:3, :3] @ (Vb[3:] + np.cross(Vb[:3], drag.point))
    vr = T[:3, :3].T @ (vp - drag.fluid_velocity)
    f = -(drag.linear + drag.quadratic * np.linalg.norm(vr)) * vr
    np.testing.assert_allclose(element_wrenches(model, [drag], q, v)[i, 3:], f, atol=1e-14)


def readable_rk4(model, forces, q, v, h, n):
    def f(t, Q, V):
        return aba(model, Q, V, np.zeros(model.nv), f_ext=element_wrenches(model, forces, Q, V)), None
    out = [q]
    for k in range(n):
        q, v, _, _ = rk4_step(model, f, k * h, q, v, h)
        out.append(q)
    return np.array(out), v


def test_compiled_run_equals_the_readable_rk4(robot):
    model, forces, q, v = robot
    h, n = 1e-3, 50
    r = ad.simulate(model, q, v, t_final=n * h, dt=h, method="rk4", forces=forces)
    Q, vn = readable_rk4(model, forces, q, v, h, n)
    np.testing.assert_allclose(r.q, Q, rtol=0, atol=1e-10)
    np.testing.assert_allclose(r.v[-1], vn, rtol=0, atol=1e-10)


@pytest.mark.parametrize("method", ["semi-implicit", "implicit", "dopri5"])
def test_rollout_equals_single_runs_with_forces(robot, method):
    model, forces, q, v = robot
    Q = np.stack([q, integrate(model, q, 0.1 * np.ones(model.nv))])
    R = ad.rollout(model, Q, np.stack([v, -v]), t_final=0.05, dt=1e-3, method=method, forces=forces)
    for k in range(2):
        s = ad.simulate(model, Q[k], [v, -v][k], t_final=0.05, dt=1e-3, method=method, forces=forces)
        np.testing.assert_allclose(R.q[k], s.q, rtol=0, atol=1e-12)


# --- contact scenes ---------------------------------------------------------------------------------

def test_a_ball_falling_with_drag_then_bouncing_on_both_contact_routes():
    model = ball(0.1, 1.0)
    q, v = state(model, 1.0, v_lin=(0.5, 0.0, 0.0), omega=(0.0, 2.0, 0.0))
    forces = [ad.Drag("ball", linear=0.2, quadratic=0.1, angular_linear=1e-3),
              ad.Spring("ball", (0.0, 0.0, 0.1), "world", (0.0, 0.0, 2.0), stiffness=(1.0, 0.0, 2.0), damping=0.1)]
    s = ContactSettings(restitution=0.5, friction=0.3)
    c = simulate_contact(model, q, v, 0.0, 0.8, 1e-3, s, route="compiled", forces=forces)
    r = simulate_contact(model, q, v, 0.0, 0.8, 1e-3, s, route="reference", forces=forces)
    np.testing.assert_allclose(c.q, r.q, atol=1e-10, rtol=0)
    np.testing.assert_allclose(c.v, r.v, atol=1e-8, rtol=0)
    assert any(e.kind == "impact" for e in c.events)
    # the drag and the spring slow the fall: higher than the free fall at 0.3 s, before either lands
    free = simulate_contact(model, q, v, 0.0, 0.8, 1e-3, s, route="compiled")
    assert c.q[300, 2] > free.q[300, 2] + 0.05
    # the same in a rollout, through the public API
    R = ad.rollout(model, np.stack([q, q]), np.stack([v, v]), t_final=0.8, dt=1e-3, contact=s, forces=forces)
    np.testing.assert_allclose(R.q[1], c.q, atol=1e-10, rtol=0)


# --- bad input ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("make, match", [
    (lambda: ad.Drag("mass", linear=-1.0), r"Drag on 'mass': linear: must be >= 0"),
    (lambda: ad.Drag("mass", quadratic=[1.0, 2.0]), r"Drag on 'mass': quadratic: a finite number or 3"),
    (lambda: ad.Drag("mass", point=(0, 0)), r"Drag on 'mass': point"),
    (lambda: ad.Drag("mass", angular_quadratic=np.nan), r"Drag on 'mass': angular_quadratic"),
    (lambda: ad.Spring("mass", damping=-0.1), r"Spring 'mass'-'world': damping"),
    (lambda: ad.Spring("mass", stiffness=(-1.0, 2.0)), r"Spring 'mass'-'world': stiffness: .*k1"),
    (lambda: ad.Spring("mass", table=[[0.0, 1.0]]), r"Spring 'mass'-'world': table"),
    (lambda: ad.Spring("mass", table=[[1.0, 1.0], [0.5, 2.0]]), r"strictly increasing"),
    (lambda: ad.Spring("mass", stiffness=1.0, table=[[0.0, 1.0], [1.0, 2.0]]), r"either stiffness or table"),
    (lambda: ad.JointSpring("j", stiffness=[[1.0]]), r"JointSpring on 'j': stiffness"),
])
def test_bad_elements_are_refused_naming_the_element_and_argument(make, match):
    with pytest.raises(InputError, match=match):
        make()


def test_bad_bodies_and_lists_are_refused():
    model = slider()
    with pytest.raises(InputError, match=r"Drag on 'wing': body: unknown body 'wing'"):
        ad.simulate(model, np.zeros(1), t_final=0.01, forces=[ad.Drag("wing", linear=1.0)])
    with pytest.raises(InputError, match=r"Drag on 'world': body: the world does not move"):
        ad.simulate(model, np.zeros(1), t_final=0.01, forces=[ad.Drag("world", linear=1.0)])
    with pytest.raises(InputError, match=r"Spring 'mass'-'nowhere': body_b"):
        ad.rollout(model, np.zeros((2, 1)), t_final=0.01, forces=[ad.Spring("mass", body_b="nowhere")])
    with pytest.raises(InputError, match=r"forces\[1\] must be a Drag"):
        ad.simulate(model, np.zeros(1), t_final=0.01, forces=[ad.Drag("mass"), (1, 2)])
    with pytest.raises(InputError, match=r"JointSpring on 'nope': joint"):
        ad.simulate(model, np.zeros(1), t_final=0.01, forces=[ad.JointSpring("nope", 1.0)])
    with pytest.raises(InputError, match=r"method='scipy'"):
        ad.simulate(model, np.zeros(1), t_final=0.01, method="scipy", forces=[ad.Drag("mass", linear=1.0)])
    drag = [ad.Drag("mass", linear=1.0)]
    with pytest.raises(InputError, match=r"forces= .* with constraints= run with contact="):
        ad.simulate(model, np.zeros(1), t_final=0.01, constraints=[Point("mass", None, target=(0, 0, 0))], forces=drag)
    with pytest.raises(InputError, match=r"'event_driven': forces="):
        ad.simulate(model, np.zeros(1), t_final=0.01, contact=ContactSettings(), method="event_driven", forces=drag)
    spherical = random_tree(np.random.default_rng(0), 2, joint_types=("spherical",))
    with pytest.raises(InputError, match=r"a revolute, continuous or prismatic joint, got spherical"):
        pack_forces(spherical, [ad.JointSpring(spherical.joint_names[1], 1.0)])


# --- MuJoCo -------------------------------------------------------------------------------------------

TENDON_ARM = """<mujoco model="tendon arm"><option gravity="0 0 0"/><worldbody>
  <site name="anchor" pos="0.3 0.2 0.5"/>
  <body name="l1"><joint name="j1" type="hinge" axis="0 0 1"/>
    <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03"/>
    <body name="l2" pos="0.4 0 0"><joint name="j2" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03"/>
      <body name="l3" pos="0.4 0 0" quat="0.9 0.1 0.3 0.2"><joint name="j3" type="hinge" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <site name="tip" pos="0.2 0.05 0.1"/>
      </body></body></body></worldbody>
  <tendon><spatial stiffness="40" springlength="0.3" damping="2">
    <site site="anchor"/><site site="tip"/></spatial></tendon></mujoco>"""


def test_linear_spring_equals_a_mujoco_spatial_tendon():
    """A spatial tendon with stiffness k, spring length l0 and damping c between two sites gives
    MuJoCo's passive force -J_l^T (k (l - l0) + c dl/dt): the linear Spring's generalized force."""
    import mujoco

    mj = mujoco.MjModel.from_xml_string(TENDON_ARM)
    d = mujoco.MjData(mj)
    with pytest.warns(NotModelledWarning, match="tendon spring"):     # the model has no tendons: the Spring is it
        model = ad.load_mjcf(TENDON_ARM)
    spring = ad.Spring("l3", (0.2, 0.05, 0.1), "world", (0.3, 0.2, 0.5), stiffness=40.0, rest_length=0.3,
                       damping=2.0)
    z = np.zeros(model.nv)
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, v = rng.uniform(-1, 1, 3), rng.uniform(-2, 2, 3)
        d.qpos[:], d.qvel[:] = q, v
        mujoco.mj_forward(mj, d)
        F = element_wrenches(model, [spring], q, v)
        g = rnea(model, q, z, z, friction=False) - rnea(model, q, z, z, F, friction=False)     # J^T F
        np.testing.assert_allclose(g, d.qfrc_passive, rtol=0, atol=1e-10)
        assert np.abs(g).max() > 1.0
