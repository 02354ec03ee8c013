"""Collision geometry: shapes, closed-form distances against coal, contact points, the broad phase,
shapes on models (builder, lumping, mirroring, replace, pickling) and bad input."""
import itertools
import pickle

import numpy as np
import pytest

import artidyn as ad
from artidyn.geometry import (Box, Capsule, Collision, Contacts, Cylinder, HalfSpace, Mesh, Sphere, aabb,
                              collision_pairs, contact_candidates, contacts, distance, world_placements)
from artidyn.geometry import closed_form as cf
from artidyn.geometry.collision import CLOSED_FORM
from artidyn.geometry.coal_backend import coal_distance
from artidyn.spatial.motion import homogeneous
from artidyn.spatial.rotations import exp3, rpy_to_matrix

coal = pytest.importorskip("coal")

CUBE = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)


def random_T(rng, spread=0.5):
    return homogeneous(exp3(rng.normal(size=3) * 2.0), rng.normal(size=3) * spread)


def shape_zoo(rng):
    return {Sphere: Sphere(0.3), Capsule: Capsule(0.2, 0.5), Box: Box((0.3, 0.5, 0.7)),
            Cylinder: Cylinder(0.25, 0.6), HalfSpace: HalfSpace((0.2, 0.1, 1.0), 0.1),
            Mesh: Mesh(vertices=rng.normal(size=(40, 3)) * 0.3)}


def assert_result(res, ref, tol, label):
    d, n, p_a, p_b = res
    assert abs(d - ref[0]) <= tol, (label, d, ref[0])
    for got, want, what in ((n, ref[1], "normal"), (p_a, ref[2], "p_a"), (p_b, ref[3], "p_b")):
        assert np.abs(got - want).max() <= tol, (label, what, got, want)


# --- closed forms against coal ------------------------------------------------------------------
@pytest.mark.parametrize("pair", sorted(CLOSED_FORM, key=lambda p: (p[0].__name__, p[1].__name__)),
                         ids=lambda p: f"{p[0].__name__}-{p[1].__name__}")
def test_closed_forms_equal_coal(pair):
    """Every closed-form pair, both orders, on random placements (separated and penetrating):
    the distance, the normal and both witness points equal coal's to 1e-9."""
    rng = np.random.default_rng(7)
    zoo = shape_zoo(rng)
    a, b = zoo[pair[0]], zoo[pair[1]]
    signs = []
    for _ in range(200):
        T_a, T_b = random_T(rng), random_T(rng)
        res = distance(a, T_a, b, T_b)
        assert_result(res, coal_distance(a, T_a, b, T_b), 1e-9, pair)
        d, n, p_a, p_b = res
        assert abs(np.linalg.norm(n) - 1) < 1e-12 and np.allclose(p_a - p_b, d * n, atol=1e-12)
        assert_result(distance(b, T_b, a, T_a), (d, -n, p_b, p_a), 1e-13, "swapped")
        signs.append(d < 0)
    assert 0 < np.mean(signs) < 1, "both separated and penetrating placements must be tested"


@pytest.mark.parametrize("kinds", [(Box, Box), (Box, Cylinder), (Cylinder, Cylinder), (Capsule, Cylinder),
                                   (Sphere, Cylinder), (Capsule, Box), (Mesh, Mesh), (Mesh, Sphere),
                                   (Mesh, Box)], ids=lambda p: f"{p[0].__name__}-{p[1].__name__}")
def test_coal_pairs_follow_the_convention(kinds):
    """Pairs without a closed form (coal's GJK/EPA): unit normal from b to a, p_a - p_b = d n,
    witness points on the shapes, swap symmetry."""
    rng = np.random.default_rng(3)
    zoo = shape_zoo(rng)
    a, b = zoo[kinds[0]], zoo[kinds[1]]
    for _ in range(60):
        T_a, T_b = random_T(rng), random_T(rng)
        d, n, p_a, p_b = distance(a, T_a, b, T_b)
        assert abs(np.linalg.norm(n) - 1) < 1e-9 and np.allclose(p_a - p_b, d * n, atol=1e-8)
        d2, n2, q_b, q_a = distance(b, T_b, a, T_a)
        assert abs(d - d2) < 1e-6
        if d > 1e-2:  # GJK on curved shapes: direction error ~ sqrt(distance tolerance / d)
            assert np.allclose(n, -n2, atol=2e-4)
        if d > 1e-6:
            for p, s, T in ((p_a, a, T_a), (p_b, b, T_b)):
                assert _inside(s, T, p, 1e-7)


def _inside(shape, T, p, tol):
    x = T[:3, :3].T @ (p - T[:3, 3])
    if isinstance(shape, Box):
        return np.all(np.abs(x) <= shape.half + tol)
    if isinstance(shape, Cylinder):
        return np.hypot(x[0], x[1]) <= shape.radius + tol and abs(x[2]) <= shape.length / 2 + tol
    if isinstance(shape, Capsule):
        z = np.clip(x[2], -shape.length / 2, shape.length / 2)
        return np.linalg.norm(x - [0, 0, z]) <= shape.radius + tol
    if isinstance(shape, Sphere):
        return np.linalg.norm(x) <= shape.radius + tol
    if isinstance(shape, Mesh):
        V, F = shape.vertices, shape.faces
        nrm = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]])
        nrm /= np.linalg.norm(nrm, axis=1)[:, None]
        return np.all(np.einsum("ij,ij->i", nrm, x - V[F[:, 0]]) <= tol)
    raise AssertionError(shape)


def test_sphere_inside_box_and_degenerate_placements():
    box, ball = Box((1.0, 2.0, 3.0)), Sphere(0.1)
    T_b = homogeneous(rpy_to_matrix((0.3, -0.2, 0.5)), (0.1, 0.2, 0.3))
    for x in ([0.2, 0.1, 0.0], [0.45, 0.0, 0.0], [0.0, 0.0, -1.2], [0.0, 0.0, 0.0]):  # centre inside
        T_a = homogeneous(np.eye(3), T_b[:3, :3] @ np.array(x) + T_b[:3, 3])
        assert_result(distance(ball, T_a, box, T_b), coal_distance(ball, T_a, box, T_b), 1e-9, x)
    d, n, p_a, p_b = distance(ball, T_a, box, T_b)  # at the centre: out through the nearest face (x)
    assert np.isclose(d, -0.6) and np.allclose(n, T_b[:3, 0])
    d, n, _, _ = distance(Sphere(0.2), np.eye(4), Sphere(0.3), np.eye(4))  # concentric: any normal
    assert d == -0.5 and np.isclose(np.linalg.norm(n), 1)
    T = homogeneous(np.eye(3), (0.0, 0.0, 0.1))  # parallel capsules: a witness pair, the right distance
    d, n, p_a, p_b = distance(Capsule(0.05, 1.0), T, Capsule(0.05, 0.4), np.eye(4))
    assert np.isclose(d, -0.1) and np.allclose(p_a - p_b, d * n)
    Ta = homogeneous(rpy_to_matrix((np.pi / 2, 0, 0)), (0.0, 0.0, 0.3))  # a point-like capsule is a sphere
    assert np.isclose(distance(Capsule(0.1, 0.0), Ta, Sphere(0.1), np.eye(4))[0], 0.1)


# --- resting contacts -------------------------------------------------------------------------
def test_sphere_resting_on_a_plane():
    ground = HalfSpace((0, 0, 1), 0.0)
    for r, z in ((0.1, 0.1), (0.5, 0.5)):
        T = homogeneous(rpy_to_matrix((0.4, 0.1, 2.0)), (0.3, -0.2, z))
        d, n, p_a, p_b = distance(Sphere(r), T, ground, np.eye(4))
        assert abs(d) < 1e-15 and np.allclose(n, [0, 0, 1]) and np.allclose(p_a, [0.3, -0.2, 0]) and np.allclose(p_b, p_a)
    # a tilted, offset plane (the plane placed by its own transform): distance along its normal
    Tp = homogeneous(rpy_to_matrix((0.2, -0.3, 0.0)), (0.0, 0.0, 0.5))
    plane = HalfSpace((0.0, 0.0, 2.0), 0.2)           # normalised: n = z, offset 0.1
    assert plane.normal == (0.0, 0.0, 1.0) and plane.offset == 0.1
    nw = Tp[:3, 2]                                     # the plane's normal in the world
    w = np.array([0.3, 0.1, 0.0])
    along = w - (w @ nw) * nw                          # a step along the plane
    c = Tp[:3, 3] + (0.1 + 0.35) * nw + along          # centre 0.35 above the surface
    d, n, p_a, p_b = distance(Sphere(0.25), homogeneous(np.eye(3), c), plane, Tp)
    assert np.isclose(d, 0.1) and np.allclose(n, nw) and np.allclose(p_a, c - 0.25 * nw)
    assert np.allclose(p_b, Tp[:3, 3] + 0.1 * nw + along)


def test_box_resting_on_the_ground_gives_its_four_lower_corners():
    box, ground = Box((0.4, 0.2, 0.1)), HalfSpace()
    R = rpy_to_matrix((0, 0, 0.7))
    T = homogeneous(R, (1.0, 2.0, 0.05))
    C = contacts(box, T, ground, np.eye(4), margin=1e-3)
    assert len(C) == 4
    corners = np.array([[sx * 0.2, sy * 0.1, -0.05] for sx in (-1, 1) for sy in (-1, 1)]) @ R.T + T[:3, 3]
    got = np.array(sorted(c[2].tolist() for c in C))
    np.testing.assert_allclose(got, np.array(sorted(corners.tolist())), atol=1e-15)
    for d, n, p_a, p_b in C:
        assert abs(d) < 1e-15 and np.allclose(n, [0, 0, 1]) and np.allclose(p_b, p_a)
    # the order of the pair flips the normal, not the points
    C2 = contacts(ground, np.eye(4), box, T, margin=1e-3)
    assert len(C2) == 4 and all(np.allclose(c[1], [0, 0, -1]) for c in C2)
    # the single distance: the centre of the resting face
    d, n, p_a, p_b = distance(box, T, ground, np.eye(4))
    assert abs(d) < 1e-15 and np.allclose(p_a, [1.0, 2.0, 0.0])
    # tilted about x: two corners within a small margin; sunk by 1 cm: the depth
    T = homogeneous(rpy_to_matrix((0.3, 0, 0)), (0, 0, 0.0))
    T[2, 3] -= box_corners_min_z(box, T) + 0.01
    C = contacts(box, T, ground, np.eye(4), margin=1e-6)
    assert len(C) == 2 and all(np.isclose(c[0], -0.01) for c in C)
    assert contacts(box, homogeneous(np.eye(3), (0, 0, 0.2)), ground, np.eye(4), margin=0.1) == []


def box_corners_min_z(box, T):
    return cf.box_corners(box, T)[:, 2].min()


def test_cylinder_capsule_and_mesh_resting_contacts():
    ground = HalfSpace()
    # standing cylinder: its lower rim, RIM_POINTS points at radius r, height 0
    T = homogeneous(rpy_to_matrix((0, 0, 0.3)), (0.5, 0.0, 0.2))
    C = contacts(Cylinder(0.1, 0.4), T, ground, np.eye(4), margin=1e-9)
    P = np.array([c[2] for c in C])
    assert len(C) == cf.RIM_POINTS and np.allclose(P[:, 2], 0)
    assert np.allclose(np.hypot(P[:, 0] - 0.5, P[:, 1]), 0.1)
    # lying cylinder: the two ends of its lowest line; the distance is exact
    T = homogeneous(rpy_to_matrix((np.pi / 2, 0, 0.4)), (0.0, 0.0, 0.1))
    C = contacts(Cylinder(0.1, 0.4), T, ground, np.eye(4), margin=1e-9)
    assert len(C) == 2 and np.isclose(np.linalg.norm(C[0][2] - C[1][2]), 0.4)
    d, n, p_a, _ = distance(Cylinder(0.1, 0.4), T, ground, np.eye(4))
    assert abs(d) < 1e-15 and np.allclose(p_a, [0, 0, 0], atol=1e-15)  # the middle of the line
    # lying capsule: both end spheres
    C = contacts(Capsule(0.05, 0.3), homogeneous(rpy_to_matrix((0, np.pi / 2, 0)), (0, 0, 0.05)), ground,
                 np.eye(4), margin=1e-9)
    assert len(C) == 2 and sorted(round(c[2][0], 12) for c in C) == [-0.15, 0.15]
    # a mesh box on the ground: its 4 lower hull vertices (at most MESH_CONTACTS of a big flat face)
    m = Mesh(vertices=CUBE, scale=(0.2, 0.1, 0.05))
    C = contacts(m, homogeneous(np.eye(3), (0, 0, 0.05)), ground, np.eye(4), margin=1e-9)
    assert len(C) == 4 and np.allclose(sorted(np.abs(np.array([c[2] for c in C])).sum(axis=0)), [0, 0.4, 0.8])
    disc = Mesh(vertices=np.c_[np.cos(np.linspace(0, 6, 40)), np.sin(np.linspace(0, 6, 40)), np.zeros(40)]
                .tolist() + [[0, 0, 1]])
    C = contacts(disc, np.eye(4), ground, np.eye(4), margin=1e-9)
    assert len(C) == cf.MESH_CONTACTS
    P = np.array([c[2] for c in C])
    assert min(np.linalg.norm(P[i] - P[j]) for i, j in itertools.combinations(range(4), 2)) > 1.0  # spread


# --- shapes: validation, equality, pickling, AABB -----------------------------------------------
@pytest.mark.parametrize("make, match", [
    (lambda: Sphere(-1), "radius must be finite and > 0"),
    (lambda: Sphere(0.0), "radius"),
    (lambda: Sphere("a"), "radius must be a number"),
    (lambda: Box((1, 2)), "3 side lengths"),
    (lambda: Box((1, 0, 2)), "size must be finite and > 0"),
    (lambda: Capsule(0.1, -1), "length must be finite and >= 0"),
    (lambda: Cylinder(0.1, 0), "length must be finite and > 0"),
    (lambda: Cylinder(np.nan, 1), "radius"),
    (lambda: HalfSpace((0, 0, 0)), "is zero"),
    (lambda: HalfSpace((0, 1)), "3 finite numbers"),
    (lambda: HalfSpace((0, 0, 1), np.inf), "offset must be finite"),
    (lambda: Mesh(), "either a file path or vertices"),
    (lambda: Mesh("a.stl", vertices=CUBE), "either a file path or vertices"),
    (lambda: Mesh(vertices=CUBE, scale=(1, 0, 1)), "scale"),
    (lambda: Mesh(vertices=CUBE[:3]), "at least 4 vertices"),
    (lambda: Mesh(vertices=np.outer(np.arange(5), [1, 2, 3])), "on a line"),
    (lambda: Mesh(vertices=CUBE, faces=[[0, 1, 9]]), "face indices"),
    (lambda: Mesh(vertices=[[0, 0, np.nan]] * 4), "finite"),
])
def test_bad_shapes_are_refused(make, match):
    with pytest.raises(ad.ModelError, match=match):
        make()


def test_mesh_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.stl"):
        Mesh(tmp_path / "nope.stl")
    (tmp_path / "junk.stl").write_text("not a mesh")
    with pytest.raises(ad.ModelError, match="junk.stl.*cannot read"):
        Mesh(tmp_path / "junk.stl")
    path = write_stl(tmp_path / "cube.stl", CUBE * 0.5)
    m = Mesh(path, scale=(1, 2, -3))
    assert m.path == str(path.resolve()) and m.scale == (1.0, 2.0, -3.0)
    np.testing.assert_allclose(np.sort(np.abs(m.vertices), axis=0)[0], [0.5, 1.0, 1.5])
    _assert_outward(m)
    flat = Mesh(vertices=np.c_[np.random.default_rng(0).normal(size=(20, 2)), np.zeros(20)])  # a flat hull
    assert np.ptp(flat.vertices[:, 2]) < 1e-6


def _assert_outward(m):
    V, F = m.vertices, m.faces
    c = V.mean(axis=0)
    nrm = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]])
    assert np.all(np.einsum("ij,ij->i", nrm, V[F[:, 0]] - c) > 0)


def write_stl(path, V):
    """An ASCII STL of the convex hull of the points V."""
    from scipy.spatial import ConvexHull
    h = ConvexHull(V)
    lines = ["solid t"]
    for f in h.simplices:
        lines += ["facet normal 0 0 0", "outer loop"] + [f"vertex {x} {y} {z}" for x, y, z in V[f]] + ["endloop", "endfacet"]
    path.write_text("\n".join(lines + ["endsolid t"]) + "\n")
    return path


def test_shapes_compare_hash_and_pickle():
    rng = np.random.default_rng(0)
    V = rng.normal(size=(30, 3))
    shapes = [Sphere(0.1), Box((1, 2, 3)), Box(0.5), Capsule(0.1, 0.2), Cylinder(0.1, 0.2), HalfSpace(), Mesh(vertices=V)]
    assert Box(0.5) == Box((0.5, 0.5, 0.5)) and Sphere(1) == Sphere(1.0) and Sphere(1) != Sphere(2)
    assert Mesh(vertices=V) == Mesh(vertices=V) and hash(Mesh(vertices=V)) == hash(Mesh(vertices=V))
    assert Mesh(vertices=V) != Mesh(vertices=V, scale=(1, 1, 2))
    for s in shapes:
        s2 = pickle.loads(pickle.dumps(s))
        assert s2 == s and hash(s2) == hash(s)
    with pytest.raises(AttributeError):
        shapes[-1].scale = (2, 2, 2)
    with pytest.raises(ValueError):
        shapes[-1].vertices[0, 0] = 1.0
    c = Collision("c", 1, Sphere(0.1), np.eye(4))
    assert pickle.loads(pickle.dumps(c)) == c and c != Collision("c", 1, Sphere(0.1), homogeneous(np.eye(3), (0, 0, 1)))
    assert "Collision('c', body=1, Sphere" in repr(c)


def test_aabb_is_tight_and_contains_the_shape():
    rng = np.random.default_rng(5)
    zoo = shape_zoo(rng)
    for kind, s in zoo.items():
        T = random_T(rng)
        lo, hi = aabb(s, T)
        if kind is HalfSpace:
            assert np.all(np.isinf(lo)) and np.all(np.isinf(hi))
            continue
        for k in range(3):  # each face of the box touches the shape, which is inside
            e = np.eye(3)[k]
            assert abs(distance(s, T, HalfSpace(-e, -hi[k]), np.eye(4))[0]) < 1e-9, (kind, k)
            assert abs(distance(s, T, HalfSpace(e, lo[k]), np.eye(4))[0]) < 1e-9, (kind, k)


# --- shapes on a model -------------------------------------------------------------------------
def two_legged(exclude=True):
    """A floating torso (box) with a lumped head (sphere), two legs (capsule thighs, box feet on a
    lumped sole link), an arm carrying a mesh hand on an operational frame, and the ground."""
    b = ad.ModelBuilder("walker")
    I = np.eye(3) * 0.01
    b.add_body("torso", "world", "free", mass=5, inertia=I)
    b.add_fixed_body("head", "torso", xyz=(0, 0, 0.4))
    b.add_collision("torso", Box((0.3, 0.2, 0.5)), name="chest")
    b.add_collision("head", Sphere(0.1), xyz=(0, 0, 0.05))
    for side, y in (("l", 0.1), ("r", -0.1)):
        b.add_body(f"thigh_{side}", "torso", "revolute", axis=(0, 1, 0), xyz=(0, y, -0.25), mass=1, inertia=I)
        b.add_collision(f"thigh_{side}", Capsule(0.04, 0.3), xyz=(0, 0, -0.2))
        b.add_body(f"shin_{side}", f"thigh_{side}", "revolute", axis=(0, 1, 0), xyz=(0, 0, -0.4), mass=1, inertia=I)
        b.add_fixed_body(f"sole_{side}", f"shin_{side}", xyz=(0, 0, -0.4), rpy=(0, 0, 0.1))
        b.add_collision(f"sole_{side}", Box((0.2, 0.1, 0.04)), xyz=(0.03, 0, -0.02))
    b.add_body("arm", "torso", "revolute", axis=(0, 1, 0), xyz=(0, 0.2, 0.2), mass=1, inertia=I)
    b.add_frame("palm", "arm", xyz=(0, 0, -0.5), rpy=(0.2, 0.1, 0))
    b.add_collision("palm", Mesh(vertices=CUBE, scale=(0.05, 0.04, 0.03)), name="hand")
    b.add_collision("world", HalfSpace(), name="ground")
    if exclude:
        b.exclude_collision("head", "sole_l")  # lumped links stand for their bodies (torso, shin_l)
    return b.build()


def test_builder_lumps_collisions_with_the_composed_placement():
    m = two_legged()
    names = [c.name for c in m.collisions]
    assert names == ["chest", "head_0", "thigh_l_0", "sole_l_0", "thigh_r_0", "sole_r_0", "hand", "ground"]
    col = {c.name: c for c in m.collisions}
    assert col["head_0"].body == m.body_id("torso") and col["ground"].body == 0
    assert col["sole_l_0"].body == m.body_id("shin_l") and col["hand"].body == m.body_id("arm")
    q = ad.random_configuration(m, np.random.default_rng(1))
    T = ad.body_placements(m, q)
    W = world_placements(m, T)
    for name, frame, local in (("head_0", "head", (0, 0, 0.05)), ("sole_l_0", "sole_l", (0.03, 0, -0.02)),
                               ("hand", "palm", (0, 0, 0))):
        np.testing.assert_allclose(W[names.index(name)], ad.frame_placement(m, q, frame) @ homogeneous(np.eye(3), local),
                                   atol=1e-14)
    assert m.collision_exclusions == ((m.body_id("torso"), m.body_id("shin_l")),) == ((1, 3),)
    assert "collisions: 8 (box 3, sphere 1, capsule 2, mesh 1, halfspace 1)" in m.summary()


def test_model_replace_pickle_and_equality_keep_collisions():
    m = two_legged()
    m2 = pickle.loads(pickle.dumps(m))
    assert m2.collisions == m.collisions and m2.collision_exclusions == m.collision_exclusions
    m3 = m.replace(collisions=m.collisions[:-1], collision_exclusions=[("shin_l", "shin_r"), (3, 5), ("arm", "arm")])
    assert len(m3.collisions) == 7 and m3.collision_exclusions == ((3, 5),)
    assert len(m.collisions) == 8  # the original is untouched
    ground = Collision("ground2", 0, HalfSpace(), np.eye(4))
    assert m.replace(collisions=m.collisions + (ground,)).collisions[-1] == ground
    with pytest.raises(ad.ModelError, match="duplicate collision name 'chest'"):
        m.replace(collisions=m.collisions + (m.collisions[0],))
    with pytest.raises(ad.ModelError, match="body index 99 out of range"):
        m.replace(collisions=(Collision("x", 99, Sphere(1), np.eye(4)),))
    with pytest.raises(ad.ModelError, match="collision 'x': placement is not a rigid transform"):
        Collision("x", 1, Sphere(1), np.diag([1.0, 1.0, -1.0, 1.0]))
    with pytest.raises(ad.ModelError, match="finite 4x4"):
        Collision("x", 1, Sphere(1), np.eye(3))
    with pytest.raises(ad.ModelError, match="expected an artidyn.geometry.Collision"):
        m.replace(collisions=(Sphere(1),))
    with pytest.raises(ad.NameNotFound, match="unknown body 'nope'"):
        m.replace(collision_exclusions=[("nope", "arm")])
    with pytest.raises(ad.ModelError, match="pairs of bodies"):
        m.replace(collision_exclusions=[("arm",)])
    assert ad.models.get("puma560").collisions == ()


def test_builder_errors():
    b = ad.ModelBuilder("t")
    b.add_body("a", "world", mass=1, inertia=np.eye(3))
    with pytest.raises(ad.ModelError, match="unknown body 'aa'.*did you mean 'a'"):
        b.add_collision("aa", Sphere(1))
    with pytest.raises(ad.ModelError, match="shape must be one of Sphere, Box"):
        b.add_collision("a", "sphere")
    b.add_collision("a", Sphere(1), name="a_1")
    with pytest.raises(ad.ModelError, match="duplicate collision name 'a_1'"):
        b.add_collision("a", Sphere(1), name="a_1")
    with pytest.raises(ad.ModelError, match="not a rigid transform"):
        b.add_collision("a", Sphere(1), placement=np.diag([1, 1, -1, 1]))
    with pytest.raises(ad.ModelError, match="exclude_collision: unknown body 'x'"):
        b.exclude_collision("a", "x")
    assert b.add_collision("a", Sphere(1)) == "a_2"  # "a_<k>", k = shapes already on a; taken names skipped
    assert b.add_collision("world", HalfSpace()) == "world_0"
    assert [c.name for c in b.build().collisions] == ["a_1", "a_2", "world_0"]


def test_mirrored_limbs_carry_mirrored_shapes():
    """add_mirrored reflects the limb's shapes: at a symmetric configuration, every point of a
    mirrored shape is the reflection of a point of the original (box corners, mesh vertices)."""
    b = ad.ModelBuilder("m")
    I = np.eye(3) * 0.01
    b.add_body("torso", "world", "fixed", mass=1, inertia=I)
    b.add_body("leg_l", "torso", "revolute", axis=(0.2, 1, 0.3), xyz=(0.1, 0.2, -0.1), rpy=(0.3, 0.1, -0.2),
               mass=1, inertia=I)
    b.add_fixed_body("foot_l", "leg_l", xyz=(0.0, 0.05, -0.4), rpy=(0.1, 0.4, 0.2))
    V = np.random.default_rng(2).normal(size=(20, 3)) * 0.05
    b.add_collision("leg_l", Box((0.05, 0.08, 0.3)), xyz=(0.01, 0.02, -0.2), rpy=(0.2, 0.3, 0.1))
    b.add_collision("foot_l", Mesh(vertices=V), xyz=(0.03, 0, 0), rpy=(0.5, -0.2, 0.3), name="foot_l_mesh")
    b.add_collision("foot_l", Cylinder(0.02, 0.1), rpy=(0.4, 0.0, 0.7))
    b.add_collision("foot_l", HalfSpace((0.3, 0.2, 1.0), 0.01), rpy=(0.4, 0.0, 0.7))
    b.exclude_collision("leg_l", "torso")
    b.add_mirrored("leg_l", lambda s: s.replace("_l", "_r"), normal=(0, 1, 0))
    m = b.build()
    names = [c.name for c in m.collisions]
    assert names[4:] == ["leg_r_0", "foot_r_mesh", "foot_r_1", "foot_r_2"]
    assert m.collision_exclusions == ((0, 1), (0, 2))  # the torso is fixed to the world
    q = np.array([0.4, 0.4])
    W = world_placements(m, ad.body_placements(m, q))
    M = np.diag([1.0, -1.0, 1.0])
    for k in range(4):
        c, c2 = m.collisions[k], m.collisions[k + 4]
        assert np.isclose(np.linalg.det(W[k + 4][:3, :3]), 1)
        if isinstance(c.shape, HalfSpace):  # a half-space: the reflected plane
            n1, o1 = cf._plane(c.shape, W[k])
            n2, o2 = cf._plane(c2.shape, W[k + 4])
            assert np.allclose(n2, M @ n1) and np.isclose(o1, o2)
            continue
        P1, P2 = _points(c.shape, W[k]), _points(c2.shape, W[k + 4])
        np.testing.assert_allclose(np.array(sorted((P1 @ M).round(12).tolist())), np.array(sorted(P2.round(12).tolist())),
                                   atol=1e-12)


def _points(shape, T):
    """Points that a reflection maps onto the reflected shape's: box corners, mesh vertices,
    cylinder axis end points."""
    if isinstance(shape, Box):
        return cf.box_corners(shape, T)
    if isinstance(shape, Mesh):
        return shape.vertices @ T[:3, :3].T + T[:3, 3]
    return cf._segment(shape, T)


# --- the broad phase ---------------------------------------------------------------------------
def test_pair_filters():
    m = two_legged()
    col = {c.name: k for k, c in enumerate(m.collisions)}
    pairs = {tuple(p) for p in collision_pairs(m)}
    names = {(m.collisions[a].name, m.collisions[b].name) for a, b in pairs}
    assert all(m.collisions[a].body > m.collisions[b].body for a, b in pairs)
    assert ("chest", "head_0") not in names and ("head_0", "chest") not in names  # same body
    assert ("thigh_l_0", "chest") not in names and ("sole_l_0", "thigh_l_0") not in names  # parent-child
    assert ("chest", "ground") in names and ("head_0", "ground") in names  # parent = world: kept
    assert ("hand", "chest") not in names and ("shin_l", "thigh_l") not in names  # parent-child
    assert ("sole_l_0", "chest") not in names and ("sole_l_0", "head_0") not in names  # excluded (torso, shin_l)
    assert ("sole_r_0", "chest") in names and ("sole_r_0", "sole_l_0") in names and ("hand", "ground") in names
    assert len(pairs) == 28 - 1 - 8 - 2  # all pairs of 8, same body, parent-child, excluded
    assert len(collision_pairs(two_legged(exclude=False))) == 19
    assert col["ground"] == 7


def test_contact_candidates_finds_what_the_pairs_give():
    """The AABB broad phase drops no pair within the margin (against every allowed pair tested),
    the output is ordered (b nearer the root; the world is b) and follows the convention."""
    m = two_legged()
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(40):
        q = ad.random_configuration(m, rng)
        q[:3] = rng.normal(size=3) * [0.05, 0.05, 0.3] + [0, 0, 0.7]
        T = ad.body_placements(m, q)
        for margin in (0.0, 0.05):
            C = contact_candidates(m, T, margin)
            W = world_placements(m, T)
            brute = [(a, b, c) for a, b in collision_pairs(m)
                     for c in contacts(m.collisions[a].shape, W[a], m.collisions[b].shape, W[b], margin)]
            assert len(C.distance) == len(brute)
            for k, (a, b, (d, n, p_a, p_b)) in enumerate(brute):
                assert (C.shape_a[k], C.shape_b[k]) == (a, b)
                assert (C.body_a[k], C.body_b[k]) == (m.collisions[a].body, m.collisions[b].body)
                assert C.distance[k] == d and np.array_equal(C.normal[k], n) and np.array_equal(C.point_a[k], p_a)
            assert np.all(C.distance <= margin) and np.all(C.body_a > C.body_b)
            found += len(C.distance)
    assert found > 20


def test_contact_candidates_on_a_box_resting_on_the_ground():
    b = ad.ModelBuilder("crate")
    b.add_body("crate", "world", "free", mass=2.0, inertia=np.eye(3) * 0.1)
    b.add_collision("crate", Box((0.4, 0.3, 0.2)))
    b.add_collision("crate", Sphere(0.01), xyz=(0, 0, 0.5))  # high above: not a contact
    b.add_collision("world", HalfSpace(), name="ground")
    b.add_collision("world", Box((1, 1, 1)), xyz=(5, 0, 0.5), name="wall")  # far away: AABBs apart
    m = b.build()
    q = ad.neutral(m)
    q[2] = 0.1
    C = contact_candidates(m, ad.body_placements(m, q), margin=1e-4)
    assert isinstance(C, Contacts) and len(C.distance) == 4
    assert np.all(C.body_a == 1) and np.all(C.body_b == 0) and np.all(C.shape_a == 0) and np.all(C.shape_b == 2)
    np.testing.assert_allclose(C.normal, np.tile([0, 0, 1.0], (4, 1)))
    np.testing.assert_allclose(np.sort(np.abs(C.point_a[:, :2]), axis=0), [[0.2, 0.15]] * 4)
    assert np.allclose(C.distance, 0) and np.allclose(C.point_b, C.point_a)
    assert C.body_a.dtype == np.int64 and C.point_a.shape == (4, 3)
    q[2] = 1.0
    C = contact_candidates(m, ad.body_placements(m, q))
    assert len(C.distance) == 0 and C.normal.shape == (0, 3) and C.body_a.dtype == np.int64
    assert len(contact_candidates(ad.models.get("pendulum"), ad.body_placements(ad.models.get("pendulum"),
                                                                              np.zeros(1))).distance) == 0


def test_bad_input_is_refused():
    m = two_legged()
    T = ad.body_placements(m, ad.neutral(m))
    with pytest.raises(ad.ShapeError, match=r"T_bodies must have shape \(7, 4, 4\)"):
        contact_candidates(m, T[1:])
    with pytest.raises(ad.ShapeError, match="a batch is not accepted"):
        contact_candidates(m, np.stack([T, T]))
    with pytest.raises(ad.InputError, match="margin must be finite and >= 0"):
        contact_candidates(m, T, margin=-1)
    bad = T.copy()
    bad[2, 0, 3] = np.nan
    with pytest.raises(ad.InputError, match="not finite"):
        contact_candidates(m, bad)
    with pytest.raises(ad.InputError, match="two half-spaces"):
        distance(HalfSpace(), np.eye(4), HalfSpace(), np.eye(4))
    with pytest.raises(ad.InputError, match="shape_b must be a collision shape"):
        distance(Sphere(1), np.eye(4), "ground", np.eye(4))
    with pytest.raises(ad.ShapeError, match="T_a must be a 4x4"):
        distance(Sphere(1), np.eye(3), Sphere(1), np.eye(4))
    with pytest.raises(ad.InputError, match="margin"):
        contacts(Sphere(1), np.eye(4), Sphere(1), np.eye(4), margin=np.nan)
