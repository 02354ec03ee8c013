"""The compiled Moreau-Jean run against the readable one, step for step: the same contacts, impulses,
states, forces and events on scenes that use every compiled pair (sphere, capsule, box, half-space,
box on box), joint limits, restitution and friction, a real robot (solo12 on four foot spheres), the
steps handed back to the reference (two boxes edge to edge, a capsule near a box), and the buffers
grown during a run.
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.geometry import Box, Capsule, Cylinder, HalfSpace, Sphere
from artidyn.sim.contact_run import simulate_contact
from test_contact import G, ball, box, cradle, state


def both(model, q, v, s, t_final, dt=1e-3, tau=0.0):
    c = simulate_contact(model, q, v, tau, t_final, dt, s, route="compiled")
    r = simulate_contact(model, q, v, tau, t_final, dt, s, route="reference")
    assert c.stats["route"] == "compiled" and r.stats["route"] == "reference"
    return c, r


def assert_same(c, r, atol=1e-9):
    np.testing.assert_allclose(c.q, r.q, atol=atol, rtol=0)
    np.testing.assert_allclose(c.v, r.v, atol=1e3 * atol, rtol=0)
    np.testing.assert_allclose(c.a, r.a, atol=1e6 * atol, rtol=0)
    np.testing.assert_allclose(c.energy.total, r.energy.total, atol=1e3 * atol, rtol=1e-9)
    np.testing.assert_allclose(c.contact_forces, r.contact_forces, atol=1e6 * atol, rtol=0)
    assert len(c.contacts) == len(r.contacts) == c.t.size
    for k, (x, y) in enumerate(zip(c.contacts, r.contacts)):
        assert len(x.gap) == len(y.gap), k
        np.testing.assert_array_equal(x.body_a, y.body_a)
        np.testing.assert_array_equal(x.key, y.key)
        np.testing.assert_allclose(x.point_a, y.point_a, atol=atol)
        np.testing.assert_allclose(x.frames[:, :, 0], y.frames[:, :, 0], atol=atol)     # the normals
        # the impulses in world axes (the tangents of a normal off an axis by round-off may differ);
        # where the split among the contacts of a pair of bodies is statically indeterminate (two
        # points of a face sticking: an internal force along the line between them), the solvers
        # may split it differently: then the resultant force and moment of each pair must agree
        for name in ("u_before", "u_after"):       # the contacts' relative velocities, world axes
            np.testing.assert_allclose(np.einsum("kij,kj->ki", x.frames, getattr(x, name)),
                                       np.einsum("kij,kj->ki", y.frames, getattr(y, name)), atol=1e3 * atol,
                                       err_msg=f"{name}, step {k}")
        a, b = np.einsum("kij,kj->ki", x.frames, x.impulse), np.einsum("kij,kj->ki", y.frames, y.impulse)
        if not np.allclose(a, b, atol=1e3 * atol, rtol=0):
            for pair in set(zip(x.body_a.tolist(), x.body_b.tolist())):
                s = (x.body_a == pair[0]) & (x.body_b == pair[1])
                np.testing.assert_allclose(a[s].sum(0), b[s].sum(0), atol=1e3 * atol, err_msg=f"step {k}")
                np.testing.assert_allclose(np.cross(x.point_a[s], a[s]).sum(0), np.cross(y.point_a[s], b[s]).sum(0),
                                           atol=1e3 * atol, err_msg=f"step {k}")
    assert [(round(e.time, 9), e.kind, e.body_a, e.body_b) for e in c.events] == \
           [(round(e.time, 9), e.kind, e.body_a, e.body_b) for e in r.events]


def test_bouncing_ball_with_restitution():
    model = ball()
    q, v = state(model, 0.5)
    c, r = both(model, q, v, ContactSettings(restitution=0.8), 1.0)
    assert_same(c, r)
    assert [e.kind for e in c.events].count("impact") == 2        # at 0.29 s and 0.80 s


def test_box_thrown_spinning_slides_and_settles():
    model = box()
    q, v = state(model, 0.2, v_lin=(1.0, 0.0, 0.0), omega=(0.5, 1.0, 0.3))
    c, r = both(model, q, v, ContactSettings(friction=0.5), 0.6)
    assert_same(c, r)
    assert {"impact", "stick"} <= {e.kind for e in c.events}


def stack(top_size=(0.1, 0.1, 0.1), tilt=0.0, drop=0.02):
    """Three boxes of 3, 2 and 1 kg stacked on the ground, the top one ``drop`` above the middle one."""
    sizes, masses = [(0.3, 0.3, 0.1), (0.2, 0.2, 0.1), top_size], [3.0, 2.0, 1.0]
    b = ad.ModelBuilder("stack")
    for k, ((x, y, z), m) in enumerate(zip(sizes, masses)):
        b.add_body(f"box{k}", "world", "free", mass=m, inertia=np.diag([y * y + z * z, x * x + z * z, x * x + y * y]) * m / 12)
        b.add_collision(f"box{k}", Box((x, y, z)))
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    for k in range(3):
        sl = model.q_slice(model.joint_names[k + 1])
        q[sl][:3] = (0.0, 0.0, 0.05 + 0.1 * k + (drop if k == 2 else 0.0))
    if tilt:
        sl = model.q_slice(model.joint_names[3])
        q[sl][3:] = (np.sin(tilt / 2), 0.0, 0.0, np.cos(tilt / 2))
    return model, q


def test_stack_of_boxes_box_on_box_corners():
    model, q = stack()
    c, r = both(model, q, np.zeros(model.nv), ContactSettings(friction=0.5), 0.2)
    assert_same(c, r)
    assert c.stats["reference_steps"] == []
    assert len(c.contacts[-1].gap) == 12


def test_capsule_on_a_box_runs_compiled_and_rests_on_its_side():
    """A capsule dropped across a fixed box: a pair that the reference hands to coal's GJK/EPA;
    the compiled run settles it with its own GJK/EPA and the manifold of the capsule's side on the
    top face (two contacts), takes no step on the reference route, and comes to rest with its axis
    a radius above the top face (less the overlap of its landing, which a velocity-level step keeps:
    under h u_n / 2 = 0.4 mm at 0.77 m/s), level, the box carrying its weight."""
    b = ad.ModelBuilder("capsule_on_box")
    b.add_body("cap", "world", "free", mass=1.0, inertia=np.diag([8e-3, 8e-3, 1e-3]))
    b.add_collision("cap", Capsule(0.05, 0.3), rpy=(0.0, np.pi / 2, 0.3))
    b.add_collision("world", Box((0.4, 0.4, 0.2)), xyz=(0.0, 0.0, 0.1))
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    q[:3] = (0.05, 0.0, 0.2 + 0.05 + 0.03)                 # 3 cm above the box's top face
    c = simulate_contact(model, q, np.zeros(model.nv), 0.0, 0.5, 1e-3, ContactSettings(friction=0.5),
                         route="compiled")
    assert c.stats["reference_steps"] == []
    assert len(c.contacts[-1].gap) == 2
    assert c.q[-1, 2] == pytest.approx(0.25, abs=4e-4)
    assert abs(c.q[-1, 2] - c.q[-200, 2]) < 1e-9                    # at rest: no further sinking
    assert np.max(np.abs(c.v[-1])) < 1e-6
    np.testing.assert_allclose(-c.contact_forces[-1, 0], (0.0, 0.0, G), atol=1e-6)


def test_capsules_spheres_and_a_box():
    """A capsule and a sphere on the ground, a sphere resting on a fixed box, two spheres hitting."""
    b = ad.ModelBuilder("shapes")
    I = np.eye(3) * 1e-3
    b.add_body("cap", "world", "free", mass=1.0, inertia=I)
    b.add_collision("cap", Capsule(0.05, 0.3), rpy=(0.0, np.pi / 2 + 0.1, 0.0))
    b.add_body("s1", "world", "free", mass=0.5, inertia=I)
    b.add_collision("s1", Sphere(0.05))
    b.add_body("s2", "world", "free", mass=0.5, inertia=I)
    b.add_collision("s2", Sphere(0.05))
    b.add_collision("world", HalfSpace())
    b.add_collision("world", Box((0.2, 0.2, 0.2)), xyz=(1.0, 0.0, 0.1))
    model = b.build()
    q = ad.neutral(model)
    for j, p in ((1, (0.0, 0.0, 0.12)), (2, (1.0, 0.0, 0.26)), (3, (0.5, 0.0, 0.3))):
        q[model.q_slice(model.joint_names[j])][:3] = p
    v = np.zeros(model.nv)
    v[model.v_slice(model.joint_names[3])][3:] = (1.5, 0.0, 0.0)     # s2 flies toward s1
    c, r = both(model, q, v, ContactSettings(friction=0.3, restitution=0.2), 0.5)
    assert_same(c, r)
    kinds = {(e.body_a, e.body_b) for e in c.events if e.kind == "impact"}
    assert ("cap", "world") in kinds and ("s1", "world") in kinds


def test_joint_limit_stops_and_buffers_grow():
    """A pendulum lying on its upper stop for the whole run: the limit rows of every step outgrow
    the first buffer (grown and resumed); the events, impulses and states equal the reference's."""
    b = ad.ModelBuilder("pendulum_stop", gravity=(0.0, 0.0, -G))
    b.add_body("link", "world", "revolute", joint_name="hinge", axis=(0, 1, 0), mass=1.0, com=(0.5, 0, 0),
               inertia=np.diag([1e-4, 1e-4, 1e-4]), lower=-np.radians(120.0), upper=np.radians(30.0))
    model = b.build()
    c, r = both(model, np.array([0.0]), np.zeros(1), ContactSettings(limit_restitution=0.3), 0.8)
    assert_same(c, r)
    assert [e.kind for e in c.events][:1] == ["limit"]


def test_a_full_limit_log_grows_alone(monkeypatch):
    """The same pendulum on its stop, 2000 steps: its limit log fills again and again (doubled each
    time) while the contact log, which no step uses, keeps its first size (it was doubled at every
    refill of the limit log: a robot resting on 17 limits spent 2.9 ms a step copying it)."""
    from artidyn.sim import pipeline
    from test_event_driven import _stop_pendulum
    model = _stop_pendulum()                  # with a ball on the link, far above the ground
    grown = []
    real = pipeline._grow
    monkeypatch.setattr(pipeline, "_grow", lambda a, rows: grown.append((a.ndim, a.dtype.kind)) or real(a, rows))
    c = simulate_contact(model, np.array([np.radians(30.0)]), np.zeros(1), 0.0, 2.0, 1e-3, ContactSettings(),
                         route="compiled")
    assert len(c.t) == 2001 and [e.kind for e in c.events] == ["limit"]
    np.testing.assert_allclose(c.q[:, 0], np.radians(30.0), atol=1e-9)             # on its stop throughout
    assert grown and set(grown) == {(1, "i"), (2, "f")}     # LI (k,) int and LF (k, 3): never CI, CF


def test_gapped_cradle_sphere_pairs():
    model = cradle(gap=2e-3)
    c, r = both(model, np.zeros(3), np.array([1.0, 0.0, 0.0]), ContactSettings(restitution=1.0), 0.02, dt=1e-4)
    assert_same(c, r)
    np.testing.assert_allclose(c.v[-1], [0.0, 0.0, 1.0], atol=1e-6)


def test_solo12_on_its_feet():
    """example-robot-data's solo12 with a sphere at each foot, knees bent, dropped 1 cm: the
    compiled run equals the reference one (impacts, then standing on four feet)."""
    from artidyn.geometry import Collision
    model = ad.load("solo12")                      # example-robot-data, floating base
    cols = [Collision("ground", 0, HalfSpace((0.0, 0.0, 1.0), 0.0), np.eye(4))]
    for f in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"):
        fr = model.frame(f)
        cols.append(Collision(f"{f}_sphere", fr.body, Sphere(0.0175), np.asarray(fr.placement)))
    model = model.replace(collisions=cols, collision_exclusions=())
    q = ad.neutral(model)
    for leg, sg in (("FL", 1), ("FR", 1), ("HL", -1), ("HR", -1)):
        q[model.idx_q[model.joint_id(leg + "_HFE")]] = 0.8 * sg
        q[model.idx_q[model.joint_id(leg + "_KFE")]] = -1.6 * sg
    feet = [ad.frame_placement(model, q, f)[2, 3] for f in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")]
    q[2] += 0.0175 - min(feet) + 0.01
    c, r = both(model, q, np.zeros(model.nv), ContactSettings(friction=0.8), 0.15)
    assert_same(c, r, atol=1e-8)
    assert max(len(x.gap) for x in c.contacts) == 4


def test_routes_chosen_and_refused():
    model = ball()
    q, v = state(model, 0.3)
    assert ad.simulate(model, q, v, t_final=0.01, contact=ContactSettings()).stats["route"] == "compiled"
    run = simulate_contact(model, q, v, lambda t, q, v: np.zeros(6), 0.01, 1e-3, ContactSettings())
    assert run.stats["route"] == "compiled"              # a torque function: called from the compiled loop
    with pytest.raises(ad.InputError, match="compiled route does not take solver"):
        simulate_contact(model, q, v, 0.0, 0.01, 1e-3, ContactSettings(solver="lemke"), route="compiled")
    run = simulate_contact(model, q, v, 0.0, 0.01, 1e-3, ContactSettings(solver="pgs"))
    assert run.stats["route"] == "compiled"              # Gauss-Seidel on the Delassus blocks (test_contact_nsgs)
    b = ad.ModelBuilder("disk")
    b.add_body("disk", "world", "free", mass=1.0, inertia=np.eye(3) * 1e-3)
    b.add_collision("disk", Cylinder(0.1, 0.02))
    b.add_collision("world", HalfSpace())
    disk = b.build()
    q, v = state(disk, 0.3)
    assert ad.simulate(disk, q, v, t_final=0.01, contact=ContactSettings()).stats["route"] == "compiled"  # tests/test_gjk.py


def test_contact_log_behaves_as_a_list():
    model = ball()
    q, v = state(model, 0.1001)
    run = ad.simulate(model, q, v, t_final=0.3, contact=ContactSettings())
    log = run.contacts
    assert len(log) == run.t.size and len(log[-1].gap) == 1 and len(log[0].gap) == 0
    assert log[-1].gap[0] == log[len(log) - 1].gap[0] and len(log[-3:]) == 3 and len(list(log)) == len(log)
    with pytest.raises(IndexError):
        log[len(log)]
    F = run.contact_forces[-1, 1]
    np.testing.assert_allclose(F, [0.0, 0.0, G], atol=1e-8)      # at rest: the ball's weight
