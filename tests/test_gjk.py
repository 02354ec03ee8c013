"""The compiled narrow phase of cylinders and convex meshes (artidyn.kernels.gjk, .convex): GJK/EPA
against coal and against closed forms, the closed forms on a half-space against the reference's,
the contact manifold of a face resting on a face, and runs on the compiled route (equal to the
reference where both build the same contacts; a box resting on a mesh; solo12 on its mesh hulls).
"""
import dataclasses

import os

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.contact.compiled import compiled_contacts, compiled_distance, hull_polygons
from artidyn.geometry import Box, Capsule, Collision, Cylinder, HalfSpace, Mesh, Sphere, contacts, world_placements
from artidyn.geometry.coal_backend import _coal_call, coal_distance
from artidyn.sim.contact_run import simulate_contact
from test_contact import G
from test_contact_compiled import assert_same, both

CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
CUBE = Mesh(vertices=0.05 * CORNERS)                                         # a 10 cm cube as a hull
SLAB = Mesh(vertices=CORNERS * (0.5, 0.5, 0.05) - (0.0, 0.0, 0.05))           # top face at z = 0
ROCK = Mesh(vertices=np.random.default_rng(7).standard_normal((40, 3)) * (0.1, 0.07, 0.05))
SHAPES = {"rock": ROCK, "cube": CUBE, "box": Box((0.1, 0.15, 0.08)), "sphere": Sphere(0.05),
          "capsule": Capsule(0.04, 0.12), "cylinder": Cylinder(0.05, 0.12)}
POLYTOPE_PAIRS = [("rock", b) for b in ("rock", "cube", "box", "sphere", "capsule")] + \
    [("box", "rock"), ("sphere", "cube")]
CYLINDER_PAIRS = [("cylinder", b) for b in ("rock", "cube", "box", "capsule", "cylinder")] + [("rock", "cylinder")]


def placement(rng, spread=0.3):
    T = np.eye(4)
    T[:3, :3] = Rotation.random(random_state=rng).as_matrix()
    T[:3, 3] = rng.uniform(-spread, spread, 3)
    return T


def pose(z=0.0, x=0.0, rz=0.0, rx=0.0):
    T = np.eye(4)
    T[:3, :3] = Rotation.from_euler("zx", [rz, rx]).as_matrix()
    T[:3, 3] = (x, 0.0, z)
    return T


def samples(a, b, n, seed):
    """n random placements of a and b, split into separated and penetrating ones by coal."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        Ta, Tb = placement(rng, 0.15), placement(rng, 0.15)
        out.append((Ta, Tb, coal_distance(SHAPES[a], Ta, SHAPES[b], Tb)))
    return out


def check_witnesses(d, n, p_a, p_b):
    assert abs(np.linalg.norm(n) - 1.0) < 1e-12
    np.testing.assert_allclose(p_a - p_b, d * n, atol=1e-12)


@pytest.mark.parametrize("a,b", POLYTOPE_PAIRS)
def test_polytopes_and_balls_equal_coal(a, b):
    """Hulls, boxes, spheres and capsules (exact cores): distances and witness points equal coal's
    to 1e-9 when separated, the depth to 1e-9 and the normal to 1e-7 in penetration."""
    seps = pens = 0
    for Ta, Tb, (d_r, n_r, pa_r, pb_r) in samples(a, b, 150, 1):
        d, n, p_a, p_b = compiled_distance(SHAPES[a], Ta, SHAPES[b], Tb)
        check_witnesses(d, n, p_a, p_b)
        assert d == pytest.approx(d_r, abs=1e-9)
        if d_r > 1e-6:
            seps += 1
            np.testing.assert_allclose(p_a, pa_r, atol=1e-9)
            np.testing.assert_allclose(p_b, pb_r, atol=1e-9)
        elif d_r < -1e-6:
            pens += 1
            np.testing.assert_allclose(n, n_r, atol=1e-7)
    assert seps > 10 and pens > 10


def prism(cylinder, sides=4000):
    """The cylinder as a hull of 2 x ``sides`` rim points (its distances within 2e-8 of the
    cylinder's for these sizes): an independent polytope for coal's EPA."""
    th = 2 * np.pi * np.arange(sides) / sides
    ring = cylinder.radius * np.column_stack([np.cos(th), np.sin(th)])
    h = 0.5 * cylinder.length
    return Mesh(vertices=np.vstack([np.column_stack([ring, np.full(sides, z)]) for z in (-h, h)]))


@pytest.mark.parametrize("a,b", CYLINDER_PAIRS)
def test_cylinders_equal_coal(a, b):
    """A curved side: separated, distances equal coal's to 1e-8 (coal's GJK tolerance is 1e-9,
    its witnesses good to about sqrt(1e-9 / d)); in penetration the depth and the normal equal
    coal's EPA (tolerance 1e-12) on the cylinder as a 4000-sided prism to 1e-7 and 2e-3 (the
    depth varies to second order with the direction near a rim: a depth good to d gives a normal
    good to about sqrt(d / radius))"""
    shapes = {k: (prism(v) if isinstance(v, Cylinder) else v) for k, v in SHAPES.items()}
    seps = pens = 0
    for Ta, Tb, (d_r, n_r, pa_r, pb_r) in samples(a, b, 60, 2):
        d, n, p_a, p_b = compiled_distance(SHAPES[a], Ta, SHAPES[b], Tb)
        check_witnesses(d, n, p_a, p_b)
        if d_r > 1e-4:
            seps += 1
            assert d == pytest.approx(d_r, abs=1e-8)
            np.testing.assert_allclose(p_a, pa_r, atol=1e-4)
        elif d_r < -1e-4:
            pens += 1
            d_p, res = _coal_call(shapes[a], Ta, shapes[b], Tb, 1e-12, 1e-12)    # polytopes: EPA to 1e-12
            assert d == pytest.approx(d_p, abs=1e-7)
            np.testing.assert_allclose(n, -np.asarray(res.normal), atol=2e-3)
    assert seps > 10 and pens > 5


def test_sphere_and_cylinder_equal_the_closed_form():
    """A sphere against a cylinder: d = the distance of the centre to the solid cylinder minus the
    radius (inside: minus the distance to the nearest face), to 1e-12, deep penetrations included
    (where coal's EPA is off by up to centimetres)."""
    rng = np.random.default_rng(3)
    cyl, ball = Cylinder(0.05, 0.12), Sphere(0.05)
    for _ in range(300):
        Tc, Ts = placement(rng, 0.1), placement(rng, 0.1)
        x = Tc[:3, :3].T @ (Ts[:3, 3] - Tc[:3, 3])
        rho, z = np.hypot(x[0], x[1]), abs(x[2])
        if rho <= 0.05 and z <= 0.06:
            exact = -min(0.05 - rho, 0.06 - z) - 0.05
        else:
            exact = np.hypot(max(rho - 0.05, 0.0), max(z - 0.06, 0.0)) - 0.05
        d, n, p_a, p_b = compiled_distance(ball, Ts, cyl, Tc)
        assert d == pytest.approx(exact, abs=1e-12)
        check_witnesses(d, n, p_a, p_b)


@pytest.mark.parametrize("shape", [ROCK, CUBE, Cylinder(0.05, 0.12)], ids=["rock", "cube", "cylinder"])
def test_on_a_half_space_the_points_of_the_reference(shape):
    """Mesh and cylinder on a (tilted) half-space: the same points, in the same order, as the
    reference's closed forms (closed_form.mesh_halfspace_points, cylinder_halfspace_points). A
    cube with more than 4 corners within the margin ties in the spread (corners at equal
    distances; rounding picks one): there the deepest corner, then corners within the margin."""
    rng = np.random.default_rng(4)
    ground = HalfSpace((0.1, -0.2, 1.0), 0.02)
    for k in range(100):
        Ta = placement(rng, 0.1)
        if k % 4 == 0:                                     # lying or standing on a face: ties
            Ta[:3, :3] = np.eye(3)
        Tb = placement(rng, 0.02)
        for margin in (0.0, 0.01):
            ref = contacts(shape, Ta, ground, Tb, margin)
            got = compiled_contacts(shape, Ta, ground, Tb, margin)
            assert len(got) == len(ref)
            n = len(ref) if shape is not CUBE or len(contacts(shape, Ta, ground, Tb, 1.0)) == 0 or \
                sum(1 for x in (0.05 * CORNERS @ Ta[:3, :3].T + Ta[:3, 3])
                    if contacts(Sphere(1e-9), _at(x), ground, Tb, margin)) <= 4 else 1
            for x, y in zip(got[:n], ref[:n]):
                assert x[0] == pytest.approx(y[0], abs=1e-12)
                for u, w in zip(x[1:], y[1:]):
                    np.testing.assert_allclose(u, w, atol=1e-12)
            for x in got[n:]:                              # (ties) a corner within the margin
                assert x[0] <= margin and np.abs(np.abs(Ta[:3, :3].T @ (x[2] - Ta[:3, 3])) - 0.05).max() < 1e-12
            flipped = compiled_contacts(ground, Tb, shape, Ta, margin)     # the half-space as a:
            for x, y in zip(flipped, got):                                 # normal negated, points swapped
                np.testing.assert_allclose(x[1], -y[1], atol=1e-12)
                np.testing.assert_allclose(x[2], y[3], atol=1e-12)


def _at(x):
    T = np.eye(4)
    T[:3, 3] = x
    return T


def corners_of(C):
    return np.array(sorted(tuple(np.round(c[2], 9)) for c in C))


def test_hull_polygons_merge_coplanar_triangles():
    normals, offsets, polys = hull_polygons(CUBE)
    assert len(polys) == 6 and all(len(p) == 4 for p in polys)
    np.testing.assert_allclose(np.sort(np.abs(normals).sum(axis=1)), np.ones(6), atol=1e-12)
    np.testing.assert_allclose(offsets, 0.05, atol=1e-12)
    normals, offsets, polys = hull_polygons(prism(Cylinder(0.05, 0.1), 16))
    assert sorted(len(p) for p in polys)[-2:] == [16, 16] and len(polys) == 2 + 16


def test_hull_polygons_leave_out_triangles_of_no_area():
    """centauro's pelvis hull (example-robot-data) holds a triangle of zero area: it makes no face
    (its plane would be NaN), and every face's plane supports the hull and holds its polygon."""
    from conftest import ERD
    mesh = Mesh(path=os.path.join(ERD, "centauro_description/meshes/simple/pelvis_reduced.stl"))
    V, F = mesh.vertices, mesh.faces
    area = np.linalg.norm(np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]]), axis=1)
    assert area.min() == 0.0                      # the sliver is there
    normals, offsets, polys = hull_polygons(mesh)
    assert np.all(np.isfinite(normals)) and np.all(np.isfinite(offsets))
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-12)
    size = np.ptp(V, axis=0).max()
    assert (V @ normals.T - offsets).max() <= 1e-9 * size
    for n, o, p in zip(normals, offsets, polys):
        np.testing.assert_allclose(V[p] @ n, o, atol=1e-6 * size)
    on = set(np.concatenate(polys).tolist())       # every hull vertex on a face, or in a face's plane inside it
    assert all(v in on or np.abs(V[v] @ normals.T - offsets).min() <= 1e-6 * size for v in range(len(V)))


def test_cube_resting_on_a_half_space_and_on_a_mesh():
    """A mesh cube resting face-on, 1 mm deep, turned about z: 4 contacts at its lower corners,
    each at depth 1 mm, normal +z; on a mesh slab the same; overhanging the slab's edge the
    manifold is the clipped square (two corners on the edge)."""
    for rz in (0.0, 0.3):
        Ta = pose(0.049, rz=rz)
        lower = (Ta[:3, :3] @ (0.05 * CORNERS[CORNERS[:, 2] < 0]).T).T + Ta[:3, 3]
        for ground, Tg in ((HalfSpace(), np.eye(4)), (SLAB, np.eye(4))):
            C = compiled_contacts(CUBE, Ta, ground, Tg, margin=1e-3)
            assert len(C) == 4
            for d, n, p_a, p_b in C:
                assert d == pytest.approx(-1e-3, abs=1e-12)
                np.testing.assert_allclose(n, [0, 0, 1], atol=1e-12)
                np.testing.assert_allclose(p_b[2], 0.0, atol=1e-12)
                check_witnesses(d, n, p_a, p_b)
            np.testing.assert_allclose(corners_of(C), corners_of([(0, 0, x) for x in lower]), atol=1e-9)
    C = compiled_contacts(CUBE, pose(0.0505, x=0.48), SLAB, np.eye(4), margin=1e-3)   # 5 mm over the edge... of 10 cm
    xs = sorted(np.round(c[2][0], 9) for c in C)
    assert len(C) == 4 and xs == [0.43, 0.43, 0.5, 0.5]
    assert all(c[0] == pytest.approx(5e-4, abs=1e-12) for c in C)
    C = compiled_contacts(SLAB, pose(-0.0501), CUBE, np.eye(4), margin=1e-3)         # the mesh on top: b's face
    assert len(C) == 4 and all(np.allclose(c[1], [0, 0, -1]) for c in C)


def test_cylinder_and_box_resting_on_a_mesh():
    """A cylinder standing on a mesh: 4 rim points; lying on its side: its 2 lowest line's ends; a
    box lying on a mesh cube: the 4 corners of the cube's top face (clipped by the box)."""
    cyl = Cylinder(0.05, 0.1)
    C = compiled_contacts(cyl, pose(0.0499), SLAB, np.eye(4), margin=1e-3)
    assert len(C) == 4 and all(c[0] == pytest.approx(-1e-4, abs=1e-12) for c in C)
    np.testing.assert_allclose(np.linalg.norm([c[2][:2] for c in C], axis=1), 0.05, atol=1e-12)
    C = compiled_contacts(cyl, pose(0.0499, rx=np.pi / 2), SLAB, np.eye(4), margin=1e-3)
    assert len(C) == 2 and sorted(round(c[2][1], 9) for c in C) == [-0.05, 0.05]
    C = compiled_contacts(Box((0.2, 0.2, 0.02)), pose(0.0599), CUBE, np.eye(4), margin=1e-3)
    assert len(C) == 4 and all(c[0] == pytest.approx(-1e-4, abs=1e-12) for c in C)
    np.testing.assert_allclose(np.abs([c[2][:2] for c in C]), 0.05, atol=1e-12)


def test_corners_edges_and_balls_give_single_points():
    """A cube on a corner (margin 0: the corner alone), two cubes edge across edge 0.2 mm apart (no
    face along the normal), a sphere on a mesh: the one GJK/EPA contact, equal to coal's."""
    corner = np.eye(4)
    corner[:3, :3] = Rotation.from_euler("xy", [0.6, 0.5]).as_matrix()
    corner[2, 3] = 0.08
    up, across = pose(0.0, rx=np.pi / 4), pose(0.1416, rz=np.pi / 2, rx=np.pi / 4)
    for a, Ta, b, Tb in ((CUBE, corner, SLAB, np.eye(4)), (CUBE, across, CUBE, up),
                         (Sphere(0.05), pose(0.049), SLAB, np.eye(4))):
        C = compiled_contacts(a, Ta, b, Tb, margin=1e-3 if a is b else 0.0)
        d_r, n_r, _, _ = coal_distance(a, Ta, b, Tb)
        assert len(C) == 1 and C[0][0] == pytest.approx(d_r, abs=1e-12) and (d_r > 0) == (a is b)
        np.testing.assert_allclose(C[0][1], n_r, atol=1e-9)


def at_distance(a, Ta, b, Tb, target):
    """Ta moved along z until coal's distance of the pair is ``target`` (a few secant steps)."""
    Ta = Ta.copy()
    for _ in range(6):
        Ta[2, 3] += target - coal_distance(a, Ta, b, Tb)[0]
    return Ta


def test_boxes_edge_to_edge_and_a_capsule_on_a_box_equal_coal():
    """Pairs of primitives that the reference hands to coal (two boxes edge across edge, a capsule
    touching a box with its end or across an edge) run the compiled GJK/EPA: one contact, its depth,
    normal and points equal to coal's (1e-9), and to the reference's contacts."""
    box, cap = Box((0.1, 0.1, 0.1)), Capsule(0.03, 0.2)
    up, across = pose(0.0, rx=np.pi / 4), np.eye(4)            # an edge along x under an edge along y
    across[:3, :3], across[2, 3] = Rotation.from_euler("y", np.pi / 4).as_matrix(), 0.1414
    end_on = pose(0.2, x=0.01, rx=0.2)
    cross_edge = pose(0.1, x=0.05)
    cross_edge[:3, :3] = Rotation.from_euler("xz", [np.pi / 2 + 0.3, 0.4]).as_matrix()
    for a, Ta, b, Tb, target in ((box, across, box, up, 2e-4), (cap, end_on, box, np.eye(4), -5e-4),
                                 (cap, cross_edge, box, np.eye(4), 3e-4), (cap, cross_edge, box, np.eye(4), -2e-4)):
        Ta = at_distance(a, Ta, b, Tb, target)
        C = compiled_contacts(a, Ta, b, Tb, margin=1e-3)
        d_r, n_r, pa_r, pb_r = coal_distance(a, Ta, b, Tb)
        assert len(C) == 1 and d_r == pytest.approx(target, abs=2e-5)
        d, n, pa, pb = C[0]
        assert d == pytest.approx(d_r, abs=1e-9)
        np.testing.assert_allclose(n, n_r, atol=1e-9)
        np.testing.assert_allclose(pa, pa_r, atol=1e-9)
        np.testing.assert_allclose(pb, pb_r, atol=1e-9)
        ref = contacts(a, Ta, b, Tb, margin=1e-3)
        assert len(ref) == 1 and ref[0][0] == pytest.approx(d, abs=1e-9)


def test_a_capsule_lying_on_a_box_gets_two_contacts():
    """A capsule lying along a box's top face, 1 mm into it: the manifold of its side, two
    points at its segment's ends, each 1 mm deep, the normal the face's."""
    cap, box = Capsule(0.03, 0.2), Box((0.4, 0.4, 0.1))
    Tc = pose(0.05 + 0.03 - 0.001, rz=0.3)
    Tc[:3, :3] = Rotation.from_euler("zy", [0.3, np.pi / 2]).as_matrix()
    C = compiled_contacts(cap, Tc, box, np.eye(4), margin=1e-3)
    assert len(C) == 2
    ends = sorted((Tc[:3, 3] + sg * 0.1 * Tc[:3, 2] for sg in (-1, 1)), key=tuple)
    for (d, n, pa, pb), e in zip(sorted(C, key=lambda c: tuple(c[2])), ends):
        assert d == pytest.approx(-0.001, abs=1e-12)
        np.testing.assert_allclose(np.abs(n), (0.0, 0.0, 1.0), atol=1e-12)
        np.testing.assert_allclose(pa[:2], e[:2], atol=1e-9)


def scene():
    """A rock (a hull of 40 random points) thrown spinning on the ground, a cylinder tipping over
    from a rim, a mesh cube resting: pairs with the ground only (the same contacts on both routes)."""
    b = ad.ModelBuilder("hulls")
    for name, shape in (("rock", ROCK), ("can", Cylinder(0.05, 0.12)), ("cube", CUBE)):
        b.add_body(name, "world", "free", mass=1.0, inertia=np.diag([2e-3, 3e-3, 4e-3]))
        b.add_collision(name, shape)
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    for j, (p, rpy) in enumerate((((0.0, 0.0, 0.2), (0.3, 0.2, 0.0)), ((1.0, 0.0, 0.1), (1.2, 0.0, 0.0)),
                                  ((2.0, 0.0, 0.05), (0.0, 0.0, 0.0)))):
        sl = model.q_slice(model.joint_names[j + 1])
        q[sl][:3] = p
        q[sl][3:] = Rotation.from_euler("xyz", rpy).as_quat()
    v = np.zeros(model.nv)
    v[:6] = (2.0, 1.0, 3.0, 0.5, 0.0, 0.0)                 # the rock: spinning, sliding along x
    return model, q, v


def test_compiled_run_equals_the_reference_with_a_mesh_and_a_cylinder():
    model, q, v = scene()
    c, r = both(model, q, v, ContactSettings(friction=0.6, restitution=0.2), 0.4)
    assert_same(c, r)
    assert c.stats["reference_steps"] == []
    assert {"impact", "stick"} <= {e.kind for e in c.events}


def test_cube_rests_on_a_mesh_slab():
    """A mesh cube set down on a fixed mesh slab: four contacts, nothing moves, the contact force
    holds the weight (the compiled route; the reference gives coal's single point there)."""
    b = ad.ModelBuilder("cube_on_slab")
    b.add_body("cube", "world", "free", mass=1.0, inertia=np.eye(3) * 1e-3 * 5 / 3)
    b.add_collision("cube", CUBE)
    b.add_collision("world", SLAB)
    model = b.build()
    q = ad.neutral(model)
    q[:3] = (0.1, 0.05, 0.05)
    q[3:7] = Rotation.from_euler("z", 0.4).as_quat()
    run = simulate_contact(model, q, np.zeros(6), 0.0, 0.3, 1e-3, ContactSettings(friction=0.5), route="compiled")
    assert run.stats["route"] == "compiled" and run.stats["reference_steps"] == []
    np.testing.assert_allclose(run.q, np.broadcast_to(q, run.q.shape), atol=1e-6)
    assert all(len(x.gap) == 4 for x in run.contacts[1:])
    np.testing.assert_allclose(run.contact_forces[-1, 1], [0.0, 0.0, G], atol=1e-6)


def test_solo12_on_its_mesh_hulls_stays_above_the_ground():
    """example-robot-data's solo12 with its 17 mesh hulls (robot-ground pairs only: its hulls
    overlap each other at the hips), dropped 1 cm with no torque: a few hundred steps on the
    compiled route: it folds down onto its belly and rests, no hull vertex more than 5 mm under the
    ground (the impacts, at about 1 m/s over dt = 1 ms: Moreau-Jean keeps what an impact sank,
    on both routes)."""
    model = ad.load("solo12")
    # robot-ground pairs only; the restitution 0.5 its URDF gives the feet (<contact><restitution>) left out:
    # the test is about resting on the hulls
    cols = [dataclasses.replace(c, contype=1, conaffinity=2, restitution=None) for c in model.collisions]
    assert sum(isinstance(c.shape, Mesh) for c in cols) == 17
    cols.append(Collision("ground", 0, HalfSpace(), np.eye(4), contype=2, conaffinity=1))
    model = model.replace(collisions=cols)
    q = ad.neutral(model)
    for leg, sg in (("FL", 1), ("FR", 1), ("HL", -1), ("HR", -1)):
        q[model.idx_q[model.joint_id(leg + "_HFE")]] = 0.8 * sg
        q[model.idx_q[model.joint_id(leg + "_KFE")]] = -1.6 * sg

    def lowest(q):
        W = world_placements(model, ad.body_placements(model, q))
        return min(float((c.shape.vertices @ T[:3, :3].T + T[:3, 3])[:, 2].min()) for c, T in zip(cols[:-1], W))

    q[2] += 0.01 - lowest(q)
    run = ad.simulate(model, q, np.zeros(model.nv), t_final=0.4, dt=1e-3, contact=ContactSettings(friction=0.8))
    assert run.stats["route"] == "compiled" and run.stats["reference_steps"] == []
    assert min(lowest(x) for x in run.q[::10]) > -5e-3
    assert run.q[-1, 2] > 0.0 and abs(run.q[-1, 2] - run.q[-51, 2]) < 1e-4                  # at rest
    assert max(len(x.gap) for x in run.contacts) >= 4


def test_hull_polygons_of_a_robots_meshes_are_its_hulls_faces():
    """solo12's 17 hulls (15 708 triangles; the polygons are found for all triangles at once):
    each polygon lies in a supporting plane of its hull and is convex, counter-clockwise about its
    normal (a vertex raised above a merged face by less than the coplanar tolerance projects
    inside it and is left out: it made polygons fold back); each triangle of nonzero area lies in
    the plane of a polygon with its own normal that shares one of its vertices."""
    model = ad.load("solo12")
    meshes = [c.shape for c in model.collisions if isinstance(c.shape, Mesh)]
    assert len(meshes) == 17
    merged = 0
    for mesh in meshes:
        V, F = mesh.vertices, mesh.faces
        size = np.ptp(V, axis=0).max()
        normals, offsets, polys = hull_polygons(mesh)
        assert (V @ normals.T - offsets).max() <= 1e-9 * size
        home = {}
        for k, (n, o, p) in enumerate(zip(normals, offsets, polys)):
            np.testing.assert_allclose(V[p] @ n, o, atol=1e-6 * size)
            P = V[p]
            E = np.roll(P, -1, axis=0) - P
            E2 = np.roll(E, -1, axis=0)
            sine = np.cross(E, E2) @ n / (np.linalg.norm(E, axis=1) * np.linalg.norm(E2, axis=1))
            assert sine.min() >= -1e-5                                               # convex, counter-clockwise
            merged += len(p) > 3
            for v in p:
                home.setdefault(int(v), []).append(k)
        N = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]])
        area = np.linalg.norm(N, axis=1)
        for t in np.flatnonzero(area > 1e-12 * size * size):
            n = N[t] / area[t]
            near = {k for v in F[t] for k in home.get(int(v), [])}
            assert any(np.linalg.norm(normals[k] - n) < 1e-5 and np.abs(V[F[t]] @ normals[k] - offsets[k]).max()
                       <= 1e-6 * size for k in near), t
    assert merged > 100                          # merged faces, not only the triangles themselves
