"""Contacts, impacts and friction: Moreau-Jean time stepping against published numbers (Siconos'
bouncing ball) and closed forms (bounce heights, Zeno accumulation, a puck stopping, a sphere
starting to roll, a block on an incline, a box resting on four corners), and the
acceleration-level contact dynamics (a box at rest, Painlevé's rod).
"""
import pathlib

import numpy as np
import pytest

import artidyn as ad
from artidyn.contact import ContactSettings, contact_dynamics
from artidyn.geometry import Box, HalfSpace, Sphere
from artidyn.spatial import quat_to_matrix

G = 9.81
DATA = pathlib.Path(__file__).parent / "data"


def ball(R=0.1, m=1.0, gravity=(0.0, 0.0, -G)):
    b = ad.ModelBuilder("ball", gravity=gravity)
    b.add_body("ball", "world", "free", mass=m, inertia=np.eye(3) * 0.4 * m * R * R)
    b.add_collision("ball", Sphere(R))
    b.add_collision("world", HalfSpace(normal=(0, 0, 1), offset=0.0))
    return b.build()


def box(size=(0.2, 0.2, 0.1), m=1.0, gravity=(0.0, 0.0, -G)):
    b = ad.ModelBuilder("box", gravity=gravity)
    x, y, z = size
    b.add_body("box", "world", "free", mass=m, inertia=np.diag([y * y + z * z, x * x + z * z, x * x + y * y]) * m / 12)
    b.add_collision("box", Box(size))
    b.add_collision("world", HalfSpace(normal=(0, 0, 1), offset=0.0))
    return b.build()


def state(model, z, v_lin=(0.0, 0.0, 0.0), omega=(0.0, 0.0, 0.0)):
    q = ad.neutral(model)
    q[:3] = (0.0, 0.0, z)
    v = np.concatenate([omega, v_lin])          # free joint: [omega; v] in the body frame (= world here)
    return q, v


# --- Moreau-Jean against Siconos' bouncing ball ---------------------------------------------------

def test_bouncing_ball_matches_siconos_moreau_jean_step_for_step():
    """h = 0.005, theta = 0.5, e = 0.9, m = 1, R = 0.1, the gap starting at 1: the time-stepping
    scheme's own trajectory (impacts, the Zeno accumulation, resting with theta's small
    penetration), not only the physics, for 2000 steps."""
    ref = np.load(DATA / "siconos_bouncing_ball_ts.npz")
    model = ball(R=0.1)
    q0, v0 = state(model, 1.0 + 0.1)
    run = ad.simulate(model, q0, v0, t_final=ref["t"][-1], dt=0.005,
                      contact=ContactSettings(restitution=0.9, theta=0.5, solver="lemke"))
    np.testing.assert_allclose(run.t, ref["t"], atol=1e-12)
    np.testing.assert_allclose(run.q[:, 2] - 0.1, ref["q"], atol=1e-10)
    np.testing.assert_allclose(run.v[:, 5], ref["v"], atol=1e-9)
    impulse = np.array([c.impulse[:, 0].sum() if len(c.gap) else 0.0 for c in run.contacts])
    np.testing.assert_allclose(impulse[:-1], ref["p"][1:], atol=1e-9)   # Siconos prints a step's impulse at its end
    kinds = [e.kind for e in run.events]
    assert kinds[0] == "impact" and run.events[0].time == pytest.approx(0.45)


def test_bounce_heights_and_zeno_accumulation():
    """Apex heights h e^(2k); the impacts accumulate at t = sqrt(2h/g) (1+e)/(1-e), after which the
    ball rests (fixed steps: the run ends, nothing hangs)."""
    h0, e, R = 0.5, 0.8, 0.05
    model = ball(R=R)
    q0, v0 = state(model, h0 + R)
    dt = 5e-4
    t_inf = np.sqrt(2 * h0 / G) * (1 + e) / (1 - e)
    run = ad.simulate(model, q0, v0, t_final=t_inf + 0.5, dt=dt, contact=ContactSettings(restitution=e))
    z = run.q[:, 2] - R
    impacts = [ev.time for ev in run.events if ev.kind == "impact"]
    for k in range(1, 4):          # apexes between impacts
        seg = (run.t > impacts[k - 1]) & (run.t < impacts[k])
        assert z[seg].max() == pytest.approx(h0 * e ** (2 * k), rel=0.01)
    assert impacts[-1] < t_inf + 0.02
    rest = run.t > t_inf + 0.05
    assert np.max(np.abs(run.v[rest, 5])) < 1e-8 and np.max(np.abs(z[rest])) < 1e-4
    np.testing.assert_allclose(run.contact_forces[rest, 1, 2], G, rtol=1e-6)   # resting: the ground carries m g


def test_energy_is_never_created_and_kept_with_e_1():
    model = ball(R=0.1)
    q0, v0 = state(model, 0.6, v_lin=(0.3, 0.0, 0.0))
    run = ad.simulate(model, q0, v0, t_final=2.0, dt=1e-3, contact=ContactSettings(restitution=1.0))
    E = run.energy.total
    assert np.max(E - E[0]) < 1e-9 * abs(E[0]) + 1e-9            # never created
    assert np.max(np.abs(E - E[0])) < 2e-2 * abs(E[0])            # kept, to the scheme's O(h) at the impacts
    run = ad.simulate(model, q0, v0, t_final=2.0, dt=1e-3, contact=ContactSettings(restitution=0.5, friction=0.3))
    E = run.energy.total
    impacts = [int(round(ev.time / 1e-3)) for ev in run.events if ev.kind == "impact"]
    assert len(impacts) > 3
    for k in impacts:                                             # every impact step dissipates
        assert E[k + 1] < E[k]
    # in flight a spinning ball's explicit body-frame forces leave an O(h^2) error per step, no more
    assert np.max(E - np.minimum.accumulate(E)) < 1e-4 * E[0]


# --- friction ---------------------------------------------------------------------------------------

def test_puck_stops_after_v0_squared_over_2_mu_g():
    mu, v0 = 0.4, 1.5
    model = box(size=(0.2, 0.2, 0.02))
    q0, v = state(model, 0.01, v_lin=(v0, 0.0, 0.0))
    run = ad.simulate(model, q0, v, t_final=0.5, dt=5e-4, contact=ContactSettings(friction=mu))
    d = v0 ** 2 / (2 * mu * G)
    assert run.q[-1, 0] == pytest.approx(d, rel=2e-3)
    t_stop = v0 / (mu * G)
    after = run.t > t_stop + 0.01
    assert np.max(np.abs(run.v[after, 3])) < 1e-8                 # it stays
    assert "stick" in [e.kind for e in run.events]


def test_sphere_launched_sliding_starts_rolling():
    """A sphere sliding without spin rolls after t = 2 v0 / (7 mu g), at 5 v0 / 7."""
    mu, v0, R = 0.2, 2.0, 0.1
    model = ball(R=R)
    q0, v = state(model, R, v_lin=(v0, 0.0, 0.0))
    dt = 1e-4
    run = ad.simulate(model, q0, v, t_final=0.4, dt=dt, contact=ContactSettings(friction=mu, solver="pgs"))
    t_roll = 2 * v0 / (7 * mu * G)
    Rs = np.array([quat_to_matrix(q[3:7]) for q in run.q])
    v_world = np.einsum("kij,kj->ki", Rs, run.v[:, 3:])          # the free joint's v is in the body frame
    w_world = np.einsum("kij,kj->ki", Rs, run.v[:, :3])
    # rolling from t_roll on, at 5 v0 / 7; the forces taken at the step's start (explicit in the
    # body-frame velocity product omega x v of the free joint) let a spinning body's speed creep by
    # O(h): 0.2 % over the run at dt = 1e-4 (1.2 % at 5e-4)
    late = run.t > t_roll + 0.005
    np.testing.assert_allclose(v_world[late, 0], 5 * v0 / 7, rtol=2.5e-3)
    np.testing.assert_allclose(w_world[late, 1] * R, v_world[late, 0], rtol=1e-5)   # rolling: v = omega R
    slip = np.abs(v_world[:, 0] - w_world[:, 1] * R)
    t_onset = run.t[np.argmax(slip < 1e-5)]
    assert abs(t_onset - t_roll) < 10 * dt                         # the roll starts at 2 v0 / (7 mu g)
    early = (run.t > 0.01) & (run.t < 0.8 * t_roll)
    np.testing.assert_allclose(np.diff(v_world[early, 0]) / dt, -mu * G, rtol=1e-2)   # sliding: -mu g (same creep)


@pytest.mark.parametrize("theta_deg, mu", [(20.0, 0.5), (30.0, 0.3)])
def test_block_on_an_incline_sticks_or_slides(theta_deg, mu):
    """Gravity tilted by theta: the block sticks when tan(theta) <= mu, otherwise it slides with
    a = g (sin theta - mu cos theta)."""
    th = np.radians(theta_deg)
    model = box(size=(0.2, 0.2, 0.05), gravity=(G * np.sin(th), 0.0, -G * np.cos(th)))
    q0, v = state(model, 0.025)
    run = ad.simulate(model, q0, v, t_final=0.3, dt=1e-3, contact=ContactSettings(friction=mu))
    x = run.q[:, 0]
    if np.tan(th) <= mu:
        assert np.max(np.abs(x)) < 1e-9
    else:
        a = G * (np.sin(th) - mu * np.cos(th))
        np.testing.assert_allclose(x, 0.5 * a * run.t ** 2, rtol=1e-9, atol=1e-12)   # exact: theta = 1/2


def test_box_resting_on_four_corners_stays_and_carries_its_weight():
    m = 2.0
    model = box(size=(0.3, 0.2, 0.1), m=m)
    q0, v = state(model, 0.05)
    run = ad.simulate(model, q0, v, t_final=0.5, dt=1e-3, contact=ContactSettings(friction=0.5))
    np.testing.assert_allclose(run.q, np.broadcast_to(run.q[0], run.q.shape), atol=1e-6)
    np.testing.assert_allclose(run.contact_forces[5:, 1], np.broadcast_to([0, 0, m * G], (run.t.size - 5, 3)),
                               atol=1e-6)
    assert all(len(c.gap) == 4 for c in run.contacts[1:])
    res = contact_dynamics(model, run.q[-1], np.zeros(model.nv), np.zeros(model.nv), ContactSettings(friction=0.5))
    assert res.status == "ok" and len(res.modes) == 4
    np.testing.assert_allclose(res.a, 0.0, atol=1e-8)
    np.testing.assert_allclose(res.forces[:, 0].sum(), m * G, rtol=1e-9)


# --- Painlevé ---------------------------------------------------------------------------------------

def painleve_rod(theta, L=1.0, m=1.0):
    """A thin rod (length L) leaning at angle theta on the ground, sliding along +x at its lower
    end: a sphere of tiny radius at that end is the contact."""
    b = ad.ModelBuilder("rod")
    b.add_body("rod", "world", "free", mass=m, inertia=np.diag([m * L * L / 12, m * L * L / 12, 1e-6]))
    b.add_collision("rod", Sphere(1e-4), xyz=(0.0, 0.0, -L / 2))
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    c, s = np.cos(theta), np.sin(theta)
    # the rod's axis (local z) tilted by (90 deg - theta) about y, its lower end on the ground
    tilt = np.pi / 2 - theta
    q[3:7] = (0.0, np.sin(tilt / 2), 0.0, np.cos(tilt / 2))
    q[:3] = (L / 2 * c, 0.0, L / 2 * s + 1e-4)
    return model, q


def test_painleve_rod_solved_below_the_critical_friction_and_reported_above():
    """Sliding with the lower end moving toward the rod's foot side, the normal problem is
    a lambda + b with a = (1 + 3 cos^2 th - 3 mu sin th cos th) / m: for mu above 4/3 (at some
    angles) a < 0 and the LCP has no solution or two (Painlevé's paradox)."""
    th = np.radians(30.0)
    model, q = painleve_rod(th)
    R = ad.frame_placement(model, q, "rod")[:3, :3]
    v = np.zeros(model.nv)
    v[3:] = R.T @ np.array([-1.0, 0.0, 0.0])          # sliding along -x, in the body frame
    ok = contact_dynamics(model, q, v, np.zeros(model.nv), ContactSettings(friction=0.3, margin=1e-3))
    assert ok.status == "ok" and ok.modes == ["slide"] and ok.forces[0, 0] > 0
    bad = contact_dynamics(model, q, v, np.zeros(model.nv), ContactSettings(friction=5.0, margin=1e-3))
    assert bad.status in ("inconsistent", "indeterminate")


# --- joint limits as unilateral constraints -----------------------------------------------------------

@pytest.mark.parametrize("e", [0.0, 0.5])
def test_pendulum_stops_or_bounces_at_its_joint_limit(e):
    """A pendulum released horizontally swings down onto a stop at -30 deg: with e = 0 it stays on
    the stop, with e = 0.5 it leaves it at half the arrival speed; the limit is never crossed."""
    b = ad.ModelBuilder("pendulum_stop", gravity=(0.0, 0.0, -G))
    b.add_body("link", "world", "revolute", joint_name="hinge", axis=(0, 1, 0), mass=1.0, com=(0.5, 0, 0),
               inertia=np.diag([1e-4, 1e-4, 1e-4]), lower=-np.radians(120.0), upper=np.radians(30.0))
    model = b.build()
    dt = 1e-3
    run = ad.simulate(model, np.array([0.0]), np.zeros(1), t_final=0.8, dt=dt,
                      contact=ContactSettings(limit_restitution=e))
    th = run.q[:, 0]
    # velocity-level scheme: the stop is reached within one step's travel (h |w| / 2), never further
    assert th.max() <= np.radians(30.0) + 0.5 * dt * np.max(np.abs(run.v[:, 0])) + 1e-12
    hits = [ev for ev in run.events if ev.kind == "limit"]
    assert hits and hits[0].body_a == "hinge" and hits[0].body_b == "upper"
    k = int(round(hits[0].time / dt))
    w_in = run.v[k, 0]                                                 # arriving speed (rad/s), > 0
    # the free swing before the stop: energy m g (0.5 sin th) = 1/2 I w^2
    I = 1.0 * 0.25 + 1e-4
    assert w_in == pytest.approx(np.sqrt(2 * G * 0.5 * np.sin(th[k] if th[k] > 0 else 0) / I), rel=0.05)
    assert run.v[k + 1, 0] == pytest.approx(-e * w_in, rel=1e-6, abs=1e-9)


# --- Newton's cradle: which impact law -------------------------------------------------------------

def cradle(gap, n=3, R=0.05):
    """n equal balls on x slides (no gravity), spaced 2R + gap."""
    b = ad.ModelBuilder("cradle", gravity=(0.0, 0.0, 0.0))
    for k in range(n):
        b.add_body(f"ball{k}", "world", "prismatic", joint_name=f"x{k}", axis=(1, 0, 0), xyz=(k * (2 * R + gap), 0, 0),
                   mass=1.0, inertia=np.eye(3) * 1e-3)
        b.add_collision(f"ball{k}", Sphere(R))
    return b.build()


def test_newtons_cradle_gapped_impacts_transfer_the_velocity():
    """Gapped balls (e = 1): the impacts are sequential in time, each a two-ball exchange: the
    velocity goes through the chain to the last ball."""
    model = cradle(gap=2e-3)
    run = ad.simulate(model, np.zeros(3), np.array([1.0, 0.0, 0.0]), t_final=0.02, dt=1e-4,
                      contact=ContactSettings(restitution=1.0, solver="lemke"))
    np.testing.assert_allclose(run.v[-1], [0.0, 0.0, 1.0], atol=1e-9)
    assert [e.kind for e in run.events].count("impact") == 2


def test_newtons_cradle_touching_balls_take_the_simultaneous_law():
    """Touching balls: Moreau-Jean applies Newton's law to both contacts at once (the simultaneous
    law, documented): with e = 1 the LCP gives v = (-1/3, 2/3, 2/3), energy kept, not the
    textbook cradle."""
    model = cradle(gap=0.0)
    run = ad.simulate(model, np.zeros(3), np.array([1.0, 0.0, 0.0]), t_final=0.002, dt=1e-4,
                      contact=ContactSettings(restitution=1.0, solver="lemke"))
    np.testing.assert_allclose(run.v[-1], [-1 / 3, 2 / 3, 2 / 3], atol=1e-9)
    np.testing.assert_allclose(run.energy.kinetic[-1], 0.5, rtol=1e-12)


@pytest.mark.parametrize("mu", [0.3, 0.05])
def test_disk_on_an_incline_rolls_or_slips(mu):
    """A disk on a 20 deg incline rolls with a = (2/3) g sin(theta) when mu >= tan(theta) / 3
    (0.121), otherwise slips with a = g (sin theta - mu cos theta)."""
    from artidyn.geometry import Cylinder
    th, R, w = np.radians(20.0), 0.1, 0.02
    b = ad.ModelBuilder("disk", gravity=(G * np.sin(th), 0.0, -G * np.cos(th)))
    b.add_body("disk", "world", "free", mass=1.0, inertia=np.diag([(3 * R * R + w * w) / 12] * 2 + [R * R / 2]))
    b.add_collision("disk", Cylinder(R, w))
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    q[3:7] = (np.sin(np.pi / 4), 0.0, 0.0, np.cos(np.pi / 4))      # the disk's axis (local z) along world y
    q[2] = R
    run = ad.simulate(model, q, np.zeros(6), t_final=0.3, dt=1e-3, contact=ContactSettings(friction=mu))
    a = 2 * np.polyfit(run.t, run.q[:, 0], 2)[0]
    expected = 2 / 3 * G * np.sin(th) if mu >= np.tan(th) / 3 else G * (np.sin(th) - mu * np.cos(th))
    assert a == pytest.approx(expected, rel=2e-3)                  # (the O(dt) creep of a spinning body)
    assert all(len(c.gap) == 2 for c in run.contacts)               # one point on each rim


def test_contact_runs_plot_their_forces(tmp_path):
    model = ball(R=0.1)
    q0, v0 = state(model, 0.3)
    run = ad.simulate(model, q0, v0, t_final=0.6, dt=2e-3, contact=ContactSettings(restitution=0.5))
    fig = run.plot(tmp_path / "ball.png", what=("q", "contact"))
    assert (tmp_path / "ball.png").stat().st_size > 1000
    (ax,) = [a for a in fig.axes if a.get_label() == "contact"]             # the contact-force panel
    assert [line.get_label() for line in ax.get_lines()][0] == "ball"          # the body that touches
    assert sum(1 for line in ax.get_lines() if line.get_linestyle() == ":") >= 2   # the impacts
    with pytest.raises(ValueError, match="not recorded"):
        ad.simulate(model, q0, v0, t_final=0.01, dt=1e-3).plot(what=("contact",))


def test_a_stack_of_three_boxes_stands():
    """Three free boxes stacked on the ground (box-box faces give their corners): nothing moves and
    the net contact force on each box balances its weight."""
    sizes, masses = [(0.3, 0.3, 0.1), (0.2, 0.2, 0.1), (0.1, 0.1, 0.1)], [3.0, 2.0, 1.0]
    b = ad.ModelBuilder("stack")
    for k, ((x, y, z), m) in enumerate(zip(sizes, masses)):
        b.add_body(f"box{k}", "world", "free", mass=m, inertia=np.diag([y * y + z * z, x * x + z * z, x * x + y * y]) * m / 12)
        b.add_collision(f"box{k}", Box((x, y, z)))
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    for k in range(3):
        sl = model.q_slice(model.joint_names[k + 1])
        q[sl][:3] = (0.0, 0.0, 0.05 + 0.1 * k)
    run = ad.simulate(model, q, np.zeros(model.nv), t_final=0.3, dt=1e-3, contact=ContactSettings(friction=0.5))
    np.testing.assert_allclose(run.q, np.broadcast_to(run.q[0], run.q.shape), atol=1e-6)
    F = run.contact_forces[-1]
    np.testing.assert_allclose(F[1:, 2], np.array(masses) * G, rtol=1e-8)        # each box: its weight, held
    np.testing.assert_allclose(F[1:, :2], 0.0, atol=1e-6)     # the solver's tol, 1e-10 N s per contact, over dt
    assert all(len(c.gap) == 12 for c in run.contacts[1:])                         # 3 faces x 4 corners


def test_newtons_cradle_touching_balls_with_sequential_impacts():
    """The sequential option: the same touching balls pass the velocity to the last one."""
    model = cradle(gap=0.0)
    run = ad.simulate(model, np.zeros(3), np.array([1.0, 0.0, 0.0]), t_final=0.002, dt=1e-4,
                      contact=ContactSettings(restitution=1.0, impacts="sequential"))
    np.testing.assert_allclose(run.v[-1], [0.0, 0.0, 1.0], atol=1e-9)
    with pytest.raises(ad.InputError, match="impacts"):
        ContactSettings(impacts="both")


@pytest.mark.parametrize("seed", range(4))
def test_frictionless_impacts_never_create_energy(seed):
    """A tilted, spinning box thrown at the ground (no gravity), e in [0, 1], simultaneous or
    sequential law: every impact step lowers the kinetic energy."""
    rng = np.random.default_rng(seed)
    model = box(size=(0.3, 0.2, 0.1), gravity=(0.0, 0.0, 0.0))
    q = ad.neutral(model)
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    ang = rng.uniform(0.1, 0.5)
    q[3:7] = np.concatenate([np.sin(ang / 2) * axis, [np.cos(ang / 2)]])
    q[2] = 0.3
    v_world = np.concatenate([rng.normal(size=2) * 0.5, [-2.0]])
    v = np.concatenate([rng.normal(size=3) * 1.0, quat_to_matrix(q[3:7]).T @ v_world])   # v in the body frame
    for impacts in ("simultaneous", "sequential"):
        e = rng.uniform(0.0, 1.0)
        run = ad.simulate(model, q, v, t_final=0.5, dt=1e-3,
                          contact=ContactSettings(restitution=e, impacts=impacts, solver="lemke"))
        T = run.energy.kinetic
        k = [int(round(ev.time / 1e-3)) for ev in run.events if ev.kind == "impact"]
        assert k, "no impact"
        for i in k:                                  # across each impact step the energy drops
            assert T[i + 1] <= T[i] * (1 + 1e-9), (impacts, e, i)
        # in free flight the spinning box's explicit gyroscopic term lets T creep (O(h) per unit time,
        # growing with the spin: see the README); bounded here, not zero
        assert np.max(np.diff(T)) < 1e-3 * T[0]
