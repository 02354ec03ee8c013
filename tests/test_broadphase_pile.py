"""Piles of shapes on the compiled route (issue #32 items 2, 4, 5): the step's memory goes with the
contacts found (a pile whose candidate pairs could give tens of thousands of contacts runs in a few
MB), the broad phase keeps far pairs from the narrow phase without changing a contact, per-shape
friction and restitution (the larger of a pair's two, on both routes, from the builder, MJCF and
URDF), and a run that starts in penetration says so.
"""
import pathlib
import warnings

import numpy as np
import pytest

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.errors import InputError, PenetrationWarning
from artidyn.geometry import Box, HalfSpace, Sphere
from artidyn.sim.contact_run import simulate_contact
from test_contact_compiled import assert_same, both


def _benchmark(name):
    """A module of benchmarks/ by its path (benchmarks/ is not put on sys.path: its distributed.py
    would shadow dask's ``distributed`` for the tests that run after this one)."""
    import importlib.util
    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pile = _benchmark("broadphase_pile").pile

G = 9.81


# --- memory: the scratch sized by the contacts found ------------------------------------------

def test_49_resting_cubes_run_in_little_memory():
    """49 cubes resting in layers on the ground: the candidate pairs (every cube with every
    other) could give 49 * 8 + 1176 * 24 contacts, a Delassus matrix of (3 * 28616)^2 floats
    (55 GiB) if the scratch were sized by them; it holds the few hundred found."""
    from artidyn.contact.compiled import packed_shapes
    model, q = pile(49, "box", gap=0.002)
    assert packed_shapes(model)[4] == 49 * 8 + 49 * 48 // 2 * 24     # 16 corners and 8 edge crossings a pair
    r = simulate_contact(model, q, np.zeros(model.nv), 0.0, 0.01, 1e-3, ContactSettings(friction=0.5),
                         route="compiled")
    assert 0 < max(len(c.gap) for c in r.contacts) < 1000
    np.testing.assert_allclose(r.q[-1], q, atol=1e-3)          # they stay where they rest


def test_growing_scratch_and_broad_phase_keep_the_reference_results():
    """12 boxes on two layers (9 on the floor, 3 on them: 36 + 12 = 48 contacts, more than the first
    room of the scratch, so a step is taken again in a bigger one) and 27 balls in layers: the same
    contacts, impulses and states as the readable route (which tests every pair)."""
    model, q = pile(12, "box", gap=0.002)
    c, r = both(model, q, np.zeros(model.nv), ContactSettings(friction=0.5), 0.02)
    assert max(len(x.gap) for x in c.contacts) == 48
    assert_same(c, r)
    model, q = pile(27, "ball", gap=0.001, drop=0.002)
    c, r = both(model, q, np.zeros(model.nv), ContactSettings(friction=0.3), 0.05)
    assert max(len(x.gap) for x in c.contacts) > 9
    assert_same(c, r)


@pytest.mark.compiles      # the broad phase's kernels called alone (in a run they are inlined in the step)
def test_broad_phase_boxes_hold_their_shapes():
    """The compiled world boxes of each kind of shape contain the reference's exact ones
    (artidyn.geometry.aabb), and the overlap test keeps every pair the narrow phase would touch."""
    from artidyn.contact.compiled import pack_shapes
    from artidyn.geometry import Capsule, Cylinder, Mesh, aabb
    from artidyn.kernels.broadphase import overlap, world_bounds
    from artidyn.spatial import rpy_to_matrix
    rng = np.random.default_rng(3)
    corners = np.array([[x, y, z] for x in (-0.05, 0.05) for y in (-0.1, 0.1) for z in (-0.02, 0.02)])
    shapes = [Sphere(0.1), Capsule(0.05, 0.3), Box((0.2, 0.1, 0.3)), Cylinder(0.07, 0.2), Mesh(vertices=corners)]
    SH, HULL = pack_shapes([(1, s) for s in shapes] + [(0, HalfSpace())])
    W = np.zeros((len(shapes) + 1, 4, 4))
    for i in range(len(shapes)):
        W[i] = np.eye(4)
        W[i, :3, :3] = rpy_to_matrix(rng.uniform(-3, 3, 3))
        W[i, :3, 3] = rng.uniform(-0.3, 0.3, 3)
    W[-1] = np.eye(4)
    AB = np.zeros((len(shapes) + 1, 6))
    world_bounds(SH, W, AB)
    for i, s in enumerate(shapes):
        lo, hi = aabb(s, W[i])
        assert np.all(AB[i, :3] <= lo + 1e-12) and np.all(AB[i, 3:6] >= hi - 1e-12)
    for i in range(len(shapes)):
        for j in range(len(shapes) + 1):
            if i != j:
                far = ad.geometry.distance(shapes[i], W[i], (shapes + [HalfSpace()])[j], W[j])[0] > 0.01
                assert overlap(SH, AB, i, j, 0.01) or far


# --- per-shape friction and restitution -------------------------------------------------------

def two_blocks(mu1, mu2, block_mu=None):
    """Two blocks, each on its own slab (world boxes of friction mu1 and mu2)."""
    b = ad.ModelBuilder("two surfaces")
    s = 0.1
    for k in (1, 2):
        b.add_body(f"block{k}", "world", "free", mass=1.0, inertia=np.eye(3) * s * s / 6)
        b.add_collision(f"block{k}", Box((s, s, s)), friction=block_mu)
    b.add_collision("world", Box((4.0, 0.5, 0.1)), xyz=(1.5, 0.0, -0.05), friction=mu1, name="ice")
    b.add_collision("world", Box((4.0, 0.5, 0.1)), xyz=(1.5, 1.0, -0.05), friction=mu2, name="rubber")
    model = b.build()
    q = ad.neutral(model)
    q[0:3] = (0.0, 0.0, 0.05)
    q[7:10] = (0.0, 1.0, 0.05)
    v = np.zeros(12)
    v[3] = v[9] = 2.0
    return model, q, v


def test_block_stops_where_each_surface_says():
    """A block launched at v on each of two surfaces (mu 0.2 and 0.6; the blocks have none, the
    settings' 0.05 is smaller) stops after v^2 / (2 mu g) on each, on both routes alike."""
    model, q, v = two_blocks(0.2, 0.6)
    s = ContactSettings(friction=0.05)
    c, r = both(model, q, v, s, 1.2, dt=2e-3)
    assert_same(c, r, atol=1e-8)
    for x, mu in ((c.q[-1, 0], 0.2), (c.q[-1, 7], 0.6)):
        np.testing.assert_allclose(x, 4.0 / (2 * mu * G), rtol=1e-2, atol=3e-3)
    assert np.all(np.abs(c.v[-1]) < 1e-6)


def test_pair_takes_the_larger_friction():
    """Block friction 0.6 on surfaces 0.2 and 0.6: both pairs take 0.6 (MuJoCo's maximum)."""
    model, q, v = two_blocks(0.2, 0.6, block_mu=0.6)
    r = simulate_contact(model, q, v, 0.0, 0.6, 2e-3, ContactSettings(friction=0.0), route="compiled")
    np.testing.assert_allclose(r.q[-1, [0, 7]], 4.0 / (2 * 0.6 * G), rtol=1e-2, atol=3e-3)


def test_per_shape_restitution_on_both_routes():
    b = ad.ModelBuilder("bouncy")
    b.add_body("ball", "world", "free", mass=1.0, inertia=np.eye(3) * 4e-3)
    b.add_collision("ball", Sphere(0.1), restitution=0.8)
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    q[2] = 0.5
    c, r = both(model, q, np.zeros(6), ContactSettings(), 0.5)
    assert_same(c, r)
    assert c.v[:, 5].max() > 0.8 * np.sqrt(2 * G * 0.4) * 0.95       # it bounces back up with e = 0.8


def test_friction_read_from_mjcf_urdf_and_checked():
    xml = """<mujoco><worldbody><geom name="floor" type="plane" size="1 1 0.1" friction="0.9 0.005 0.0001"/>
      <body name="b" pos="0 0 1"><freejoint/><geom name="g" type="sphere" size="0.1"/>
      <geom name="h" type="box" size="0.1 0.1 0.1" friction="0.3"/></body></worldbody></mujoco>"""
    m = ad.load_mjcf(xml)
    got = {c.name: c.friction for c in m.collisions}
    assert got == {"floor": 0.9, "g": None, "h": 0.3}
    urdf = """<robot name="r"><link name="base"><inertial><mass value="1"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
      <collision><geometry><sphere radius="0.1"/></geometry></collision>
      <contact><lateral_friction value="0.7"/><restitution value="0.2"/><rolling_friction value="0.01"/></contact>
      </link></robot>"""
    m = ad.load_urdf(urdf, floating_base=True)
    assert [(c.friction, c.restitution) for c in m.collisions] == [(0.7, 0.2)]
    b = ad.ModelBuilder("bad")
    b.add_body("x", "world", "free", mass=1.0, inertia=np.eye(3))
    with pytest.raises(InputError, match="friction"):
        b.add_collision("x", Sphere(0.1), friction=-1.0)
    with pytest.raises(InputError, match="restitution"):
        b.add_collision("x", Sphere(0.1), restitution=1.5)


# --- starting in penetration ------------------------------------------------------------------

def test_ball_starting_inside_the_ground_warns():
    b = ad.ModelBuilder("sunk")
    b.add_body("ball", "world", "free", mass=1.0, inertia=np.eye(3) * 4e-3)
    b.add_collision("ball", Sphere(0.1), name="ball_shape")
    b.add_collision("world", HalfSpace(), name="ground")
    model = b.build()
    q = ad.neutral(model)
    q[2] = 0.1 - 0.6
    with pytest.warns(PenetrationWarning, match=r"'ball_shape' \(body 'ball'\) and 'ground' .*overlap by 600 mm"):
        simulate_contact(model, q, np.zeros(6), 0.0, 0.01, 1e-3, ContactSettings())
    with pytest.raises(InputError, match="overlap by 600 mm"):
        simulate_contact(model, q, np.zeros(6), 0.0, 0.01, 1e-3, ContactSettings(penetration="raise"))
    q[2] = 0.1 - 5e-4                        # within margin + 1 mm: silent
    with warnings.catch_warnings():
        warnings.simplefilter("error", PenetrationWarning)
        simulate_contact(model, q, np.zeros(6), 0.0, 0.01, 1e-3, ContactSettings())


def test_two_overlapping_balls_warn_naming_both():
    b = ad.ModelBuilder("overlap", gravity=(0.0, 0.0, 0.0))
    for k in (1, 2):
        b.add_body(f"ball{k}", "world", "free", mass=1.0, inertia=np.eye(3) * 4e-3)
        b.add_collision(f"ball{k}", Sphere(0.1))
    model = b.build()
    q = ad.neutral(model)
    q[0], q[7] = 0.0, 0.15                   # 5 cm overlap
    with pytest.warns(PenetrationWarning, match=r"body 'ball2'.*body 'ball1'.*overlap by 50 mm"):
        r = simulate_contact(model, q, np.zeros(12), 0.0, 0.01, 1e-3, ContactSettings())
    np.testing.assert_allclose(r.q[-1], q, atol=1e-12)          # kept as it is: not pushed apart


def test_penetration_check_on_the_compiled_narrow_phase_equals_the_readable_one():
    """The starting check measures each overlapping pair on the compiled narrow phase: the depths of
    ``initial_penetrations`` equal those of the readable candidates (boxes face to face and edge to
    edge, a capsule, a cylinder and a convex mesh in a cluster that overlaps at random poses)."""
    from artidyn.contact.moreau_jean import initial_penetrations
    from artidyn.geometry import Capsule, Cylinder, Mesh, contact_candidates
    rng = np.random.default_rng(7)
    cube = np.array([[x, y, z] for x in (-0.08, 0.08) for y in (-0.06, 0.06) for z in (-0.05, 0.05)])
    shapes = [Box((0.1, 0.1, 0.1)), Box((0.12, 0.05, 0.08)), Capsule(0.05, 0.2), Cylinder(0.06, 0.15),
              Mesh(vertices=cube), Sphere(0.07)]
    b = ad.ModelBuilder("cluster")
    for k, sh in enumerate(shapes):
        b.add_body(f"b{k}", "world", "free", mass=1.0, inertia=np.eye(3) * 1e-2)
        b.add_collision(f"b{k}", sh, name=f"s{k}")
    b.add_collision("world", HalfSpace(), name="ground")
    model = b.build()
    s = ContactSettings(margin=1e-3)
    seen = 0
    for trial in range(6):
        q = ad.neutral(model)
        for k in range(len(shapes)):
            q[7 * k:7 * k + 3] = rng.uniform(-0.08, 0.08, 3) + (0, 0, 0.06)
            quat = rng.standard_normal(4)
            q[7 * k + 3:7 * k + 7] = quat / np.linalg.norm(quat)
        C = contact_candidates(model, ad.body_placements(model, q), margin=s.margin)
        want = {}
        for a, c, d in zip(C.shape_a, C.shape_b, C.distance):
            if -d > s.margin + 1e-3:
                want[(int(a), int(c))] = max(want.get((int(a), int(c)), 0.0), -float(d))
        got = {(a, c): d for a, c, d in initial_penetrations(model, q, s)}
        assert got.keys() == want.keys()
        for key in want:          # to 1 um: the EPA of a cylinder or mesh stops at its tolerance
            assert got[key] == pytest.approx(want[key], abs=1e-6), (trial, key)
        seen += len(want)
    assert seen >= 20                     # the cluster overlaps: pairs of every kind were measured


def test_exclude_self_leaves_a_robots_own_overlapping_pairs_out():
    """penetration='exclude_self': the hulls of a base and its grandchild that overlap at the start
    (not parent and child: a pair the filters keep) are left out of the run with a warning naming the
    bodies; the foot that starts 5 mm in the ground is still warned of and held; without the option
    the self pair is in the run's contacts."""
    b = ad.ModelBuilder("legs")
    b.add_body("base", "world", "free", mass=2.0, inertia=np.eye(3) * 1e-2)
    b.add_body("thigh", "base", "revolute", axis=(0, 1, 0), xyz=(0, 0, -0.1), mass=0.5, inertia=np.eye(3) * 1e-3)
    b.add_body("shin", "thigh", "revolute", axis=(0, 1, 0), xyz=(0, 0, -0.2), mass=0.5, inertia=np.eye(3) * 1e-3)
    b.add_collision("base", Box((0.1, 0.1, 0.1)), name="base_box")
    b.add_collision("shin", Sphere(0.12), name="shin_ball", xyz=(0.0, 0.0, 0.2))     # reaches into the base
    b.add_collision("shin", Sphere(0.03), name="foot", xyz=(0.0, 0.0, -0.2))
    b.add_collision("world", HalfSpace(), name="ground")
    model = b.build()
    q = ad.neutral(model)
    q[2] = 0.5 + 0.03 - 0.005                # the foot 5 mm in the ground
    tau = np.zeros(model.nv)
    tau[6] = 0.5                             # a hip torque that folds the leg
    with pytest.warns(PenetrationWarning) as caught:
        r = ad.simulate(model, q, None, tau, t_final=0.05, dt=1e-3,
                        contact=ContactSettings(friction=0.0, penetration="exclude_self"))
    text = [str(w.message) for w in caught]
    assert any("left out of this run" in m and "'base'-'shin'" in m for m in text)
    assert any("'foot' (body 'shin') and 'ground'" in m and "overlap by 5 mm" in m for m in text)
    assert not any("'shin_ball'" in m for m in text)
    assert all(("base", "shin") != (r.contact_body_names[a], r.contact_body_names[c]) and
               ("shin", "base") != (r.contact_body_names[a], r.contact_body_names[c])
               for C in r.contacts for a, c in zip(C.body_a, C.body_b))
    assert r.q[-1, 7] > 1e-3                 # the hip folds
    with pytest.warns(PenetrationWarning, match="exclude_self"):
        kept = ad.simulate(model, q, None, tau, t_final=0.05, dt=1e-3, contact=ContactSettings(friction=0.0))
    names = kept.contact_body_names
    C0 = kept.contacts[0]
    assert any({names[a], names[c]} == {"base", "shin"} for a, c in zip(C0.body_a, C0.body_b))
    with pytest.raises(InputError, match="exclude_self"):
        ContactSettings(penetration="push")
