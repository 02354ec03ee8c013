"""URDF <collision> elements: primitives, meshes (file names resolved like ROS, without ROS),
the load report, strict mode, and every example-robot-data robot against pinocchio's geometry."""
import math
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import artidyn as ad
from artidyn.geometry import Box, Capsule, Cylinder, Mesh, Sphere, contact_candidates, world_placements
from artidyn.spatial.motion import homogeneous
from artidyn.spatial.rotations import rpy_to_matrix
from conftest import ERD
from pin_utils import pin_model, to_pin_q

pytest.importorskip("coal")

INERTIAL = '<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>'
CUBE = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)


def link(name, *collisions, inertial=True):
    return f'<link name="{name}">{INERTIAL if inertial else ""}{"".join(collisions)}</link>'


def collision(shape, xyz=None, rpy=None, name=None):
    origin = f'<origin xyz="{xyz or "0 0 0"}" rpy="{rpy or "0 0 0"}"/>' if (xyz or rpy) else ""
    nm = f' name="{name}"' if name else ""
    return f"<collision{nm}>{origin}<geometry>{shape}</geometry></collision>"


def mesh(filename, scale=None):
    return f'<mesh filename="{filename}"' + (f' scale="{scale}"' if scale else "") + "/>"


def joint(name, parent, child, jtype="revolute", xyz="0 0 0", rpy="0 0 0"):
    extra = '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="5" velocity="2"/>' if jtype != "fixed" else ""
    return (f'<joint name="{name}" type="{jtype}"><origin xyz="{xyz}" rpy="{rpy}"/><parent link="{parent}"/>'
            f'<child link="{child}"/>{extra}</joint>')


def robot(*items):
    return '<?xml version="1.0"?>\n<robot name="r">\n' + "\n".join(items) + "\n</robot>\n"


def write_stl(path, V):
    from scipy.spatial import ConvexHull
    lines = ["solid t"]
    for f in ConvexHull(V).simplices:
        lines += ["facet normal 0 0 0", "outer loop"] + [f"vertex {x} {y} {z}" for x, y, z in V[f]] + ["endloop", "endfacet"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines + ["endsolid t"]) + "\n")
    return path


def write_obj(path, V):
    from scipy.spatial import ConvexHull
    lines = [f"v {x} {y} {z}" for x, y, z in V] + [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in ConvexHull(V).simplices]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


def line_of(text, needle):
    return text[:text.index(needle)].count("\n") + 1


# --- primitives --------------------------------------------------------------------------------
def test_primitive_shapes_origins_names_and_lumping():
    text = robot(
        link("base", collision('<box size="0.4 0.3 0.2"/>', xyz="0 0 0.1", name="chassis")),
        link("arm", collision('<sphere radius="0.05"/>', xyz="0.1 0 0", name="ball"),
             collision('<cylinder radius="0.02" length="0.3"/>', rpy="0 1.5707963267948966 0", name="twin"),
             collision('<capsule radius="0.03" length="0.2"/>', name="twin")),
        link("tool", collision('<box size="0.01 0.02 0.03"/>', xyz="0 0 0.05", rpy="0.1 0.2 0.3")),
        joint("j1", "base", "arm", xyz="0 0 0.3"),
        joint("tool_fixed", "arm", "tool", "fixed", xyz="0.5 0 0", rpy="0 0 0.4"))
    m = ad.load_urdf(text)
    col = {c.name: c for c in m.collisions}
    assert list(col) == ["chassis", "ball", "arm_1", "arm_2", "tool_0"]  # a name used twice: "<link>_<k>"
    assert col["chassis"].body == 0 and col["chassis"].shape == Box((0.4, 0.3, 0.2))  # the fixed base: world
    np.testing.assert_allclose(col["chassis"].placement, homogeneous(np.eye(3), (0, 0, 0.1)))
    assert col["ball"].shape == Sphere(0.05) and col["ball"].body == m.body_id("arm")
    assert col["arm_1"].shape == Cylinder(0.02, 0.3) and col["arm_2"].shape == Capsule(0.03, 0.2)
    np.testing.assert_allclose(col["arm_1"].placement[:3, :3], rpy_to_matrix((0, math.pi / 2, 0)), atol=1e-15)
    # the lumped tool: on the arm, placement = joint origin @ collision origin
    expect = homogeneous(rpy_to_matrix((0, 0, 0.4)), (0.5, 0, 0)) @ homogeneous(rpy_to_matrix((0.1, 0.2, 0.3)), (0, 0, 0.05))
    assert col["tool_0"].body == m.body_id("arm")
    np.testing.assert_allclose(col["tool_0"].placement, expect, atol=1e-15)
    q = np.array([0.7])
    np.testing.assert_allclose(world_placements(m, ad.body_placements(m, q))[4],
                               ad.frame_placement(m, q, "tool") @ homogeneous(rpy_to_matrix((0.1, 0.2, 0.3)), (0, 0, 0.05)),
                               atol=1e-14)
    info = [n.message for n in m.load_report if n.element == "collisions"]
    assert info[0] == "5 collision shape(s) read into model.collisions (box 2, sphere 1, cylinder 1, capsule 1)"
    # the fixed base's links don't collide with the links they carry (adjacent), and it is reported
    assert m.collision_exclusions == ((0, 1),) and "base-arm" in info[1]
    assert ad.load_urdf(text, floating_base=True).collision_exclusions == ()


def test_bad_collision_elements(tmp_path):
    bad_radius = robot(link("a", collision('<sphere radius="-1"/>')))
    m = ad.load_urdf(bad_radius)
    note = next(n for n in m.load_report if n.kind == "ignored" and n.element == "link 'a'")
    assert "radius must be finite and > 0" in note.message and "collision skipped" in note.message
    assert note.line == line_of(bad_radius, "<sphere") and m.collisions == ()
    with pytest.raises(ad.ParseError, match=r"line 3: link 'a': <collision> <sphere>.*strict=True"):
        ad.load_urdf(bad_radius, strict=True)
    with pytest.raises(ad.ParseError, match="line 3: link 'a': <cylinder> has no 'length'"):
        ad.load_urdf(robot(link("a", collision('<cylinder radius="1"/>'))))
    with pytest.raises(ad.ParseError, match="more than one shape"):
        ad.load_urdf(robot(link("a", collision('<sphere radius="1"/><box size="1 1 1"/>'))))
    with pytest.raises(ad.ParseError, match="<mesh> has no 'filename'"):
        ad.load_urdf(robot(link("a", collision("<mesh/>"))))
    with pytest.raises(ad.ParseError, match="expected 3 number"):
        ad.load_urdf(robot(link("a", collision('<box size="1 1"/>'))))
    m = ad.load_urdf(robot(link("a", collision('<plane normal="0 0 1"/>'), "<collision/>")))
    msgs = [n.message for n in m.load_report if n.kind == "ignored"]
    assert any("<plane> unknown" in s for s in msgs) and any("without a shape" in s for s in msgs)


def test_collision_checking_capsules_and_collisions_false():
    text = robot(link("a", collision('<cylinder radius="0.1" length="0.5"/>', name="c"),
                      '<collision_checking><capsule name="c"/><convex name="whatever"/><capsule name="nope"/>'
                      '</collision_checking>'))
    m = ad.load_urdf(text)
    assert [c.shape for c in m.collisions] == [Capsule(0.1, 0.5)]
    assert any("cylinder 'c' read as a capsule" in n.message for n in m.load_report)
    assert any("no cylinder collision named 'nope'" in n.message for n in m.load_report.ignored)
    m = ad.load_urdf(text, collisions=False)
    assert m.collisions == () and any(n.element == "<collision> geometry" for n in m.load_report.ignored)


# --- meshes ------------------------------------------------------------------------------------
def test_mesh_files_are_resolved_like_ros(tmp_path, monkeypatch):
    pkg = tmp_path / "ws" / "src" / "my_pkg"
    stl = write_stl(pkg / "meshes" / "cube.stl", CUBE * 0.5)
    write_obj(pkg / "meshes" / "cube.obj", CUBE * 0.25)
    other = write_stl(tmp_path / "elsewhere" / "other_pkg" / "m.stl", CUBE)
    names = ["../meshes/cube.stl", "package://my_pkg/meshes/cube.stl", f"file://{stl}", "meshes/cube.stl",
             "package://renamed_on_install/meshes/cube.stl", "package:///my_pkg/meshes/cube.obj",
             "package://other_pkg/m.stl"]
    text = robot(link("base", *[collision(mesh(n, "1 2 3" if k == 1 else None)) for k, n in enumerate(names)]))
    path = pkg / "urdf" / "r.urdf"
    path.parent.mkdir()
    path.write_text(text)
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    m = ad.load_urdf(path)
    assert len(m.collisions) == 6 and all(isinstance(c.shape, Mesh) for c in m.collisions)
    assert {c.shape.path for c in m.collisions} == {str(stl.resolve()), str((pkg / "meshes" / "cube.obj").resolve())}
    ext = [np.ptp(c.shape.vertices, axis=0) for c in m.collisions]
    np.testing.assert_allclose(ext[0], [1, 1, 1])
    np.testing.assert_allclose(ext[1], [1, 2, 3])  # scale="1 2 3"
    np.testing.assert_allclose(ext[5], [0.5, 0.5, 0.5])  # the OBJ file
    note = next(n for n in m.load_report.ignored if "other_pkg" in n.message)
    assert "package 'other_pkg' looked up" in note.message and "collision skipped" in note.message
    assert note.line == line_of(text, "package://other_pkg")
    assert "6 collision shape(s)" in str(m.load_report) and "1 skipped" in str(m.load_report)
    assert m.meshes["base"] == names
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "elsewhere"))
    m = ad.load_urdf(path)
    assert len(m.collisions) == 7 and m.collisions[6].shape.path == str(other.resolve())
    # URDF text: names relative to the current folder
    monkeypatch.chdir(pkg)
    m = ad.load_urdf(robot(link("base", collision(mesh("meshes/cube.stl")))))
    assert m.collisions[0].shape.path == str(stl.resolve())


def test_unreadable_meshes_are_skipped_with_a_note(tmp_path):
    (tmp_path / "junk.stl").write_text("not a mesh\n")
    write_stl(tmp_path / "ok.stl", CUBE)
    text = robot(link("a", collision(mesh("junk.stl")), collision(mesh("missing.stl")), collision(mesh("ok.stl"))))
    path = tmp_path / "r.urdf"
    path.write_text(text)
    m = ad.load_urdf(path)
    assert len(m.collisions) == 1 and m.collisions[0].name == "a_2"
    notes = [n for n in m.load_report.ignored if n.element == "link 'a'"]
    assert [n.line for n in notes] == [line_of(text, "junk.stl"), line_of(text, "missing.stl")]
    assert "cannot read it" in notes[0].message and "junk.stl" in notes[0].message
    assert "not found" in notes[1].message and "collision skipped" in notes[1].message
    with pytest.raises(ad.ParseError, match=rf"{path}, line {line_of(text, 'junk.stl')}: link 'a': <collision> mesh 'junk.stl'"):
        ad.load_urdf(path, strict=True)


def test_a_box_on_the_ground_from_a_urdf():
    """A floating crate read from a URDF, plus a ground added to the model: 4 contacts."""
    m = ad.load_urdf(robot(link("crate", collision('<box size="0.4 0.3 0.2"/>'))), floating_base=True)
    from artidyn.geometry import Collision, HalfSpace
    m = m.replace(collisions=m.collisions + (Collision("ground", 0, HalfSpace(), np.eye(4)),))
    q = ad.neutral(m)
    q[2] = 0.1
    C = contact_candidates(m, ad.body_placements(m, q), margin=1e-6)
    assert len(C.distance) == 4 and np.all(C.body_b == 0) and np.allclose(C.point_a[:, 2], 0)


# --- example-robot-data -------------------------------------------------------------------------
def test_every_example_robot_loads_its_collisions():
    """Every URDF of example-robot-data loads with its collisions: as many as the file's
    <collision> elements, none skipped (every mesh file found and read)."""
    if not ERD:
        pytest.skip("example-robot-data not installed")
    from artidyn.models import erd
    total, kinds = 0, {}
    for name in erd.example_robot_names():
        path = erd.example_robot_path(name)
        tree = ET.parse(path).getroot()
        expected = sum(len(lk.findall("collision")) for lk in tree.findall("link"))
        if not tree.findall("link"):  # ur3.urdf: no link at all (tested in test_urdf.py)
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = erd.example_robot(name)
        skipped = [n for n in m.load_report.ignored if "collision" in n.message]
        assert skipped == [], (name, skipped[:2])
        assert len(m.collisions) == expected, name
        total += len(m.collisions)
        for c in m.collisions:
            kinds[c.shape.kind] = kinds.get(c.shape.kind, 0) + 1
    assert total == 1606 and kinds == {"box": 240, "cylinder": 292, "sphere": 123, "mesh": 950, "capsule": 1}


@pytest.mark.parametrize("name", ["panda", "ur5_robot", "solo12", "tiago", "talos_reduced",
                                  "anymal_c_simple_description/anymal", "simple_humanoid"])
def test_collisions_equal_pinocchios(name):
    """The shapes and their world placements at a random configuration equal pinocchio's
    GeometryModel (buildGeomFromUrdf, COLLISION); meshes: the same bounding box of the vertices."""
    pin = pytest.importorskip("pinocchio")
    coal = pytest.importorskip("coal")
    if not ERD:
        pytest.skip("example-robot-data not installed")
    from artidyn.models import erd
    path = erd.example_robot_path(name)
    floating = erd.default_floating(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = erd.example_robot(name)
    pm = pin_model(path, floating)
    gm = pin.buildGeomFromUrdf(pm, str(path), pin.GeometryType.COLLISION,
                               package_dirs=[str(ERD.parent.parent), str(ERD)])
    q = ad.random_configuration(m, np.random.default_rng(4))
    pd, gd = pm.createData(), pin.GeometryData(gm)
    pin.updateGeometryPlacements(pm, pd, gm, gd, to_pin_q(m, pm, q))
    W = world_placements(m, ad.body_placements(m, q))
    assert gm.ngeoms == len(m.collisions)
    unmatched = list(range(len(m.collisions)))
    for k, g in enumerate(gm.geometryObjects):
        Tp = gd.oMg[k].homogeneous
        hits = [i for i in unmatched if np.abs(W[i] - Tp).max() < 1e-9 and _same_shape(m.collisions[i].shape, g.geometry, coal)]
        assert hits, (name, g.name)
        unmatched.remove(hits[0])


def _same_shape(s, g, coal):
    if isinstance(g, coal.Box):
        return isinstance(s, Box) and np.allclose(2 * g.halfSide, s.size, atol=1e-12)
    if isinstance(g, coal.Sphere):
        return isinstance(s, Sphere) and math.isclose(g.radius, s.radius)
    if isinstance(g, coal.Capsule):
        return isinstance(s, Capsule) and math.isclose(g.radius, s.radius) and math.isclose(2 * g.halfLength, s.length)
    if isinstance(g, coal.Cylinder):
        return isinstance(s, Cylinder) and math.isclose(g.radius, s.radius) and math.isclose(2 * g.halfLength, s.length)
    if not isinstance(s, Mesh):
        return False
    V = np.array(g.points() if hasattr(g, "points") else g.vertices()).reshape(-1, 3)
    return np.allclose(V.min(axis=0), s.vertices.min(axis=0), atol=1e-9) and np.allclose(V.max(axis=0), s.vertices.max(axis=0), atol=1e-9)


def _arm_with_collision_mesh(tmp_path, mesh):
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(f"""<robot name="arm">
  <link name="base"/>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial><collision><geometry><mesh filename="{mesh}"/></geometry></collision>
    <collision><geometry><sphere radius="0.1"/></geometry></collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>""")
    return urdf


def test_missing_collision_mesh_is_a_warning_not_only_a_note(tmp_path):
    from artidyn.errors import PlausibilityWarning
    urdf = _arm_with_collision_mesh(tmp_path, "no_such_mesh.stl")
    with pytest.warns(PlausibilityWarning, match=r"arm.urdf: 1 collision shape\(s\) skipped, contacts will not see "
                                                 r"them \(first: link 'arm': <collision> mesh 'no_such_mesh.stl'"):
        model = ad.load_urdf(urdf)
    assert [type(c.shape).__name__ for c in model.collisions] == ["Sphere"]


def test_collision_mesh_with_a_nan_vertex_is_named(tmp_path):
    from artidyn.errors import ModelError, PlausibilityWarning
    from artidyn.geometry.meshes import convex_hull
    mesh = tmp_path / "bad.obj"
    mesh.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv nan 0 1\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 5\nf 2 3 5\n")
    with pytest.raises(ModelError, match=r"vertex 1 is NaN or infinite"):
        convex_hull([[0, 0, 0], [np.nan, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    with pytest.warns(PlausibilityWarning, match="collision shape"):
        model = ad.load_urdf(_arm_with_collision_mesh(tmp_path, str(mesh)))
    notes = " ".join(str(n) for n in model.load_report.notes)
    assert "bad.obj" in notes and ("NaN" in notes or "nan" in notes)
