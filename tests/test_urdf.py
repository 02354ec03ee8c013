"""The URDF reader: real robots, the load report, strict mode, inertial frames, hostile input."""
import contextlib
import signal
import math
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import artidyn as ad
from artidyn.io import safexml
from artidyn.io.urdf import MIN_MASS, InertiaRepairWarning, from_string, repaired_inertia
from artidyn.spatial.rotations import rpy_to_matrix
from conftest import ERD, ERD_URDFS
from pin_utils import pin_model

erd = pytest.importorskip("artidyn.models.erd")


def line_of(text, needle):
    """1-based line of the first occurrence of ``needle`` in ``text``."""
    return text[:text.index(needle)].count("\n") + 1


LINK = '<link name="{n}"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>'


def joint(name, parent, child, jtype="revolute", extra='<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="5" velocity="2"/>'):
    return f'<joint name="{name}" type="{jtype}"><parent link="{parent}"/><child link="{child}"/>{extra}</joint>'


def robot(*items, name="t"):
    return f'<?xml version="1.0"?>\n<robot name="{name}">\n' + "\n".join(items) + "\n</robot>\n"


CHAIN = robot(LINK.format(n="base"), LINK.format(n="l1"), joint("j1", "base", "l1"),
              LINK.format(n="l2"), joint("j2", "l1", "l2"))


def write(tmp_path, text, name="robot.urdf"):
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return p


def load_fails(path, exc=ad.ParseError, **kwargs):
    """Load, expect ``exc`` (a reader that hangs fails after 60 s: no timing assertion); return the message."""
    with hang_guard(60.0), pytest.raises(exc) as info:
        ad.load_urdf(path, **kwargs)
    return str(info.value)


@contextlib.contextmanager
def hang_guard(seconds):
    """Fail the test when the block runs longer than ``seconds`` (SIGALRM; main thread only)."""
    def stop(signum, frame):
        raise AssertionError(f"still running after {seconds:g} s: the reader must not hang")
    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)


# --- every example-robot-data URDF ----------------------------------------------------------
def _rel(p):
    return str(p.relative_to(ERD)) if ERD else str(p)


def test_example_robot_data_count():
    if not ERD:
        pytest.skip("example-robot-data not installed")
    names = erd.example_robot_names()          # every URDF of the installed version has one name
    assert len(ERD_URDFS) >= 60 and len(names) == len(ERD_URDFS)
    assert set(erd.example_robot_path(n) for n in names) == set(ERD_URDFS)


@pytest.mark.parametrize("path", ERD_URDFS, ids=_rel)
def test_every_example_robot_loads(path):
    floating = erd.default_floating(next(n for n in erd.example_robot_names() if erd.example_robot_path(n) == path))
    tree = ET.parse(path).getroot()  # an independent reading of the names
    links = [e.get("name") for e in tree.findall("link")]
    if not links:  # ur3.urdf: a xacro left-over with neither name nor link
        msg = load_fails(path)
        assert f"{path}, line" in msg and "no <link>" in msg
        return
    with warnings.catch_warnings(record=True) as caught:  # default: repair=True, with a warning
        warnings.simplefilter("always")
        model = ad.load_urdf(path, floating_base=floating)
    assert model.name == tree.get("name")
    assert set(links) <= set(model.frame_names)
    moving = {j.find("child").get("link") for j in tree.findall("joint") if j.get("type") != "fixed"}
    assert set(model.body_names[1:]) == moving | ({model.body_names[1]} if floating else set())
    assert model.nv == sum(j.get("type") != "fixed" for j in tree.findall("joint")) + 6 * floating
    # without repair: loads, or refuses with the file, the line and the remedy
    repaired = [n for n in model.load_report if n.kind == "repaired"]
    repair_warnings = [w for w in caught if issubclass(w.category, InertiaRepairWarning)]
    assert len(repair_warnings) == (1 if repaired else 0)
    if repaired:
        assert str(path) in str(repair_warnings[0].message) and repaired[0].element in str(repair_warnings[0].message)
        msg = load_fails(path, ad.ModelError, floating_base=floating, repair=False)
        assert f"{path}, line" in msg and "repair=True" in msg
    else:
        ad.load_urdf(path, floating_base=floating, repair=False)
    # total mass, lumped bodies included, equals pinocchio's (plus the masses given by repair)
    pytest.importorskip("pinocchio")
    pm = pin_model(path, floating)
    given = sum("given mass" in n.message for n in repaired)
    assert math.isclose(model.mass.sum(), sum(I.mass for I in pm.inertias) + given * MIN_MASS, rel_tol=1e-12, abs_tol=1e-12)


def test_example_robots_with_invalid_inertias_are_known():
    """The robots example-robot-data ships with invalid inertias (found by this reader)."""
    if not ERD:
        pytest.skip("example-robot-data not installed")
    def repaired(name):
        return [n.element for n in erd.example_robot(name).load_report if n.kind == "repaired"]
    assert repaired("tiago") == ["link 'base_antenna_left_link'", "link 'base_antenna_right_link'"]  # not PD
    assert repaired("pr2") == ["link 'sensor_mount_link'", "link 'double_stereo_link'"]  # c > a + b
    assert repaired("bolt") == ["link 'FL_FOOT'", "link 'FR_FOOT'"]  # zero mass, non-zero inertia
    assert len(repaired("romeo")) == 8  # massless moving finger links
    for name in ("panda", "ur5_robot", "solo12", "talos_full_v2", "icub"):
        assert repaired(name) == [], name


# --- the load report, strict mode -----------------------------------------------------------
REPORTED = robot(
    '<material name="grey"><color rgba="0.5 0.5 0.5 1"/></material>',
    '<link name="base"/>',
    '<link name="arm" type="odd"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>'
    '<visual><geometry><mesh filename="package://t/arm.stl"/></geometry><material name="grey"/></visual>'
    '<collision><geometry><box size="1 1 1"/></geometry></collision></link>',
    joint("shoulder", "base", "arm", extra='<limit effort="3"/>'),
    LINK.format(n="finger"),
    joint("finger_joint", "arm", "finger", "prismatic",
          '<axis xyz="0 1 0"/><limit lower="0" upper="0.1" effort="1" velocity="1"/><mimic joint="shoulder"/>'
          '<dynamics damping="0.5" friction="0.25"/><safety_controller k_velocity="1"/>'),
    '<transmission name="t1"><type>simple</type></transmission>',
    '<transmission name="t2"><type>simple</type></transmission>',
    '<gazebo reference="arm"><mu1>1</mu1></gazebo>')


def test_load_report_lists_defaults_and_ignored(tmp_path):
    path = write(tmp_path, REPORTED)
    model = ad.load_urdf(path)
    notes = {(n.kind, n.element, n.line): n.message for n in model.load_report}
    L = lambda needle: line_of(REPORTED, needle)  # noqa: E731
    assert "mass 0" in notes[("default", "link 'base'", L('<link name="base"'))]
    defaults = [n.message for n in model.load_report.defaults if n.element == "joint 'shoulder'"]
    assert {n.line for n in model.load_report.defaults if n.element == "joint 'shoulder'"} == {L('<joint name="shoulder"')}
    assert sorted(m.split(":")[0] for m in defaults) == ["<limit> without 'lower'", "<limit> without 'upper'",
                                                         "<limit> without 'velocity'", "no <axis xyz>"]
    assert "independent" in notes[("ignored", "joint 'finger_joint'", L("<mimic"))]
    ignored = {n.element: n for n in model.load_report.ignored}
    assert ignored["<transmission> in <robot>"].message.endswith("(2 elements)")
    assert ignored["<transmission> in <robot>"].line == L("<transmission")
    for key in ("<material> in <robot>", "<material> in <visual>", "<gazebo> in <robot>",
                "<safety_controller> in <joint>", "attribute 'type' of <link>", "<visual> geometry"):
        assert key in ignored, key
    assert "<visual>/<collision> geometry" not in ignored and len(model.collisions) == 1  # the box is read
    # the values read
    i = model.joint_id("shoulder")
    assert model.lower[model.idx_q[i]] == 0 and model.upper[model.idx_q[i]] == 0  # the URDF default
    assert model.effort_limit[model.idx_v[i]] == 3 and np.isinf(model.velocity_limit[model.idx_v[i]])
    np.testing.assert_allclose(model.joint_axis[i], [1, 0, 0])
    k = model.idx_v[model.joint_id("finger_joint")]
    assert (model.damping[k], model.coulomb[k]) == (0.5, 0.25)
    assert model.meshes == {"arm": ["package://t/arm.stl"]}
    text = str(model.load_report)
    assert str(path) in text and "transmission" in text


def test_strict_mode_raises_on_first_default_or_ignored(tmp_path):
    path = write(tmp_path, REPORTED)
    msg = load_fails(path, strict=True)
    assert f"{path}, line {line_of(REPORTED, '<material')}" in msg and "<material> in <robot>" in msg
    clean = write(tmp_path, CHAIN, "clean.urdf")
    assert len(ad.load_urdf(clean, strict=True).load_report) == 0
    no_inertial = write(tmp_path, robot('<link name="a"/>'), "b.urdf")
    assert "link 'a'" in load_fails(no_inertial, strict=True)


# --- inertial frames --------------------------------------------------------------------------
def _inertial(xyz, rpy, I=(2.0, 0.1, 0.2, 2.5, 0.3, 3.0), m=2.0):
    ixx, ixy, ixz, iyy, iyz, izz = I
    return (f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{m}"/><inertia ixx="{ixx}" ixy="{ixy}" '
            f'ixz="{ixz}" iyy="{iyy}" iyz="{iyz}" izz="{izz}"/></inertial>')


def test_rotated_inertial_origin_analytic():
    text = robot(f'<link name="b">{_inertial("0.1 0.2 0.3", f"0 0 {math.pi / 2}", (1, 0, 0, 2, 0, 3))}</link>')
    model = ad.load_urdf(text, floating_base=True)
    np.testing.assert_allclose(model.inertia_com[1], np.diag([2.0, 1.0, 3.0]), atol=1e-12)  # x and y swap
    np.testing.assert_allclose(model.com[1], [0.1, 0.2, 0.3])
    assert any("rotated inertial" in n.message for n in model.load_report)


def test_rotated_inertial_origin_against_pinocchio(tmp_path):
    pin = pytest.importorskip("pinocchio")
    text = robot(f'<link name="base">{_inertial("0.3 -0.1 0.2", "0.4 -0.7 1.1")}</link>',
                 f'<link name="arm">{_inertial("0.05 0.1 -0.2", "1.2 0.3 -0.5", (0.5, -0.05, 0.02, 0.6, 0.04, 0.7), 1.5)}</link>',
                 joint("j", "base", "arm", extra='<origin xyz="0.1 0 0.5" rpy="0.2 0.1 0"/><axis xyz="0 1 0"/>'
                                                 '<limit lower="-1" upper="1" effort="1" velocity="1"/>'),
                 f'<link name="tool">{_inertial("0.01 0.02 0.03", "-0.3 0.8 0.6", (0.02, 0.001, 0, 0.03, 0.002, 0.04), 0.4)}</link>',
                 joint("tool_joint", "arm", "tool", "fixed", '<origin xyz="0 0 0.3" rpy="0.5 0 0.2"/>'))
    path = write(tmp_path, text)
    pm = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    model = ad.load_urdf(path, floating_base=True)
    swap = np.block([[np.zeros((3, 3)), np.eye(3)], [np.eye(3), np.zeros((3, 3))]])
    for body in ("base", "arm"):
        jid = pm.getJointId("root_joint" if body == "base" else "j")
        np.testing.assert_allclose(model.I[model.body_id(body)], swap @ pm.inertias[jid].matrix() @ swap, atol=1e-12)
    # and a direct check of R I R^T on the base link
    R = rpy_to_matrix(np.array([0.4, -0.7, 1.1]))
    I = np.array([[2.0, 0.1, 0.2], [0.1, 2.5, 0.3], [0.2, 0.3, 3.0]])
    np.testing.assert_allclose(model.inertia_com[1], R @ I @ R.T, atol=1e-12)


def test_repaired_inertia_is_valid_and_minimal():
    I = np.diag([0.001, 0.001, 0.01])  # pr2's sensor mount: c > a + b
    J = repaired_inertia(0.05, I)
    np.testing.assert_allclose(np.linalg.eigvalsh(J), [0.005, 0.005, 0.01])
    assert np.array_equal(repaired_inertia(0.0, I), np.zeros((3, 3)))
    good = np.diag([1.0, 2.0, 2.5])
    np.testing.assert_allclose(repaired_inertia(1.0, good), good)


# --- joints, bases, names ---------------------------------------------------------------------
def test_joint_kinds_and_frames():
    text = robot(LINK.format(n="base"), LINK.format(n="wheel"), joint("spin", "base", "wheel", "continuous", '<axis xyz="0 0 2"/>'),
                 LINK.format(n="slide"), joint("rail", "base", "slide", "prismatic",
                                               '<axis xyz="1 0 0"/><limit lower="-0.5" upper="0.5" effort="1" velocity="1"/>'),
                 '<link name="sensor"/>', joint("mount", "slide", "sensor", "fixed", '<origin xyz="0 0 1"/>'))
    model = ad.load_urdf(text)
    assert (model.nq, model.nv, model.nb) == (2, 2, 2)
    assert model.joint_kind[1:] == ["continuous", "prismatic"]
    assert np.isinf(model.lower[0]) and np.isinf(model.upper[0]) and model.lower[1] == -0.5
    np.testing.assert_allclose(model.joint_axis[1], [0, 0, 1])           # normalised, and reported
    assert any(n.kind == "info" and "normalised" in n.message for n in model.load_report)
    f = model.frame("sensor")
    assert f.kind == "link" and f.body == model.body_id("slide")
    np.testing.assert_allclose(ad.frame_placement(model, [0.3, 0.2], "sensor")[:3, 3], [0.2, 0, 1])
    base = model.frame("base")
    assert base.kind == "link" and base.body == 0 and model.mass[0] == 1.0  # fixed root: lumped in the world


def test_axis_default_is_x():
    model = ad.load_urdf(robot(LINK.format(n="a"), LINK.format(n="b"), joint("j", "a", "b", "continuous", "")))
    T = ad.frame_placement(model, [math.pi / 2], "b")
    np.testing.assert_allclose(T[:3, :3], [[1, 0, 0], [0, 0, -1], [0, 1, 0]], atol=1e-12)


def test_floating_base_and_floating_joint():
    model = ad.load_urdf(CHAIN, floating_base=True)
    assert model.has_floating_base and model.joint_names[1] == "root_joint" and model.body_names[1] == "base"
    assert model.nq == 9 and model.nv == 8
    text = robot(LINK.format(n="dummy"), LINK.format(n="torso"), joint("float", "dummy", "torso", "floating", ""))
    m2 = ad.load_urdf(text)
    assert m2.has_floating_base and m2.joint_names[1] == "float" and m2.frame("dummy").body == 0
    msg = load_fails(text, ad.ModelError, floating_base=True)
    assert "joint 'float' is floating" in msg and f"line {line_of(text, '<joint')}" in msg


def test_root_link_named_world():
    text = robot('<link name="world"/>', LINK.format(n="a"), joint("j", "world", "a"))
    model = ad.load_urdf(text)
    assert model.body_names == ["world", "a"]
    assert "named 'world'" in load_fails(text, ad.ModelError, floating_base=True)
    # a non-root link called 'world' does not clash with the world body
    text2 = robot(LINK.format(n="base"), LINK.format(n="world"), joint("j", "base", "world"))
    m2 = ad.load_urdf(text2)
    assert m2.body_names[0] != "world" and m2.frame("world").body == 1 and m2.frame("base").body == 0


def test_string_and_file_give_the_same_model(tmp_path):
    a, b, c = ad.load_urdf(CHAIN), ad.load_urdf(write(tmp_path, CHAIN)), from_string(CHAIN.encode())
    for m in (b, c):
        assert m.body_names == a.body_names
        np.testing.assert_array_equal(m.I, a.I)
        np.testing.assert_array_equal(m.joint_placement, a.joint_placement)
    assert a.source == "<string>" and b.source == str(tmp_path / "robot.urdf")


def test_panda_meshes_are_kept():
    if not ERD:
        pytest.skip("example-robot-data not installed")
    model = erd.example_robot("panda")
    assert any("link1" in f for f in model.meshes["panda_link1"])
    assert all(isinstance(f, str) for fs in model.meshes.values() for f in fs)


def test_example_robot_helpers(monkeypatch):
    if not ERD:
        pytest.skip("example-robot-data not installed")
    assert erd.default_floating("solo12") and erd.default_floating("talos_full_v2")
    assert not erd.default_floating("panda") and not erd.default_floating("talos_left_arm")
    assert erd.example_robot("solo12").has_floating_base
    assert not erd.example_robot("solo12", floating_base=False).has_floating_base
    with pytest.raises(ad.NameNotFound, match="did you mean 'panda'"):
        erd.example_robot_path("pandaa")
    with pytest.raises(ad.NameNotFound, match="ambiguous"):
        erd.example_robot_path("anymal")
    import importlib.metadata as md

    def missing(name):
        raise md.PackageNotFoundError(name)
    erd.robots_dir.cache_clear()
    erd._index.cache_clear()
    monkeypatch.setattr(md, "distribution", missing)
    try:
        with pytest.raises(ImportError, match="pip install example-robot-data"):
            erd.example_robot_names()
    finally:
        erd.robots_dir.cache_clear()
        erd._index.cache_clear()


# --- errors: topology -------------------------------------------------------------------------
TOPOLOGY = {
    "missing parent": (robot(LINK.format(n="a"), joint("j", "nope", "a")), '<joint name="j"', "parent link 'nope' does not exist"),
    "missing child": (robot(LINK.format(n="a"), joint("j", "a", "nope")), '<joint name="j"', "child link 'nope' does not exist"),
    "two parents": (robot(LINK.format(n="a"), LINK.format(n="b"), LINK.format(n="c"), joint("j1", "a", "c"), joint("j2", "b", "c")),
                    '<joint name="j2"', "two parent joints, 'j1' and 'j2'"),
    "cycle": (robot(LINK.format(n="r"), LINK.format(n="a"), LINK.format(n="b"), joint("j1", "a", "b"), joint("j2", "b", "a")),
              '<link name="a"', "cycle"),
    "self loop": (robot(LINK.format(n="a"), joint("j", "a", "a")), '<joint name="j"', "to itself"),
    "several roots": (robot(LINK.format(n="a"), LINK.format(n="b")), '<link name="b"', "several root links"),
    "duplicate link": (robot(LINK.format(n="a"), LINK.format(n="a")), '<link name="a"', "duplicate link name 'a'"),
    "duplicate joint": (robot(LINK.format(n="a"), LINK.format(n="b"), LINK.format(n="c"), joint("j", "a", "b"), joint("j", "a", "c")),
                        '<joint name="j"', "duplicate joint name 'j'"),
    "zero axis": (robot(LINK.format(n="a"), LINK.format(n="b"), joint("j", "a", "b", extra='<axis xyz="0 0 0"/>')), '<joint name="j"', "zero"),
    # lower > upper in <limit> reads as no position limit, with a note: tests/test_urdf_lenient.py
    "massless moving leaf": (robot(LINK.format(n="a"), '<link name="b"/>', joint("j", "a", "b")), '<joint name="j"', "carries no mass"),
    "negative mass": (robot(LINK.format(n="a").replace('value="1"', 'value="-1"')), "<inertial>", "negative mass"),
    "not positive definite": (robot(LINK.format(n="a").replace('ixx="0.1"', 'ixx="-0.1"')), "<inertial>", "positive definite"),
    "triangle inequality": (robot(LINK.format(n="a").replace('izz="0.1"', 'izz="0.5"')), "<inertial>", "triangle inequality"),
    "mass 0 with inertia": (robot(LINK.format(n="a").replace('value="1"', 'value="0"')), "<inertial>", "zero mass"),
}


@pytest.mark.parametrize("case", sorted(TOPOLOGY))
def test_model_errors_name_file_line_and_item(tmp_path, case):
    text, needle, expected = TOPOLOGY[case]
    path = write(tmp_path, text)
    msg = load_fails(path, ad.ModelError, repair=False)
    line = text[:text.rindex(needle)].count("\n") + 1  # the last occurrence: the offending one
    assert f"{path}, line {line}:" in msg, msg
    assert expected in msg, msg
    if case in ("negative mass", "not positive definite", "triangle inequality", "mass 0 with inertia"):
        assert "link 'a'" in msg


def test_repair_fixes_what_can_be_fixed():
    text = robot(LINK.format(n="a").replace('izz="0.1"', 'izz="0.5"'), '<link name="b"/>', joint("j", "a", "b"))
    with pytest.warns(InertiaRepairWarning, match="link 'a'"):
        model = ad.load_urdf(text)  # repair is the default
    notes = [n for n in model.load_report if n.kind == "repaired"]
    assert [n.element for n in notes] == ["link 'a'", "link 'b'"]
    assert model.mass[1] == MIN_MASS
    with pytest.raises(ad.ParseError, match="strict"):
        ad.load_urdf(text, repair=True, strict=True)
    with pytest.raises(ad.ModelError, match="negative mass"):
        ad.load_urdf(robot(LINK.format(n="a").replace('value="1"', 'value="-1"')), repair=True)


# --- errors: hostile or malformed files -------------------------------------------------------
BAD_NUMBERS = {"abc": 'xyz="abc 0 0"', "arity": 'xyz="1 2"', "nan": 'xyz="nan 0 0"', "inf": 'rpy="0 inf 0"',
               "empty": 'xyz=""'}


@pytest.mark.parametrize("case", sorted(BAD_NUMBERS))
def test_bad_numbers(tmp_path, case):
    text = robot(LINK.format(n="a"), LINK.format(n="b"), joint("j", "a", "b", extra=f"<origin {BAD_NUMBERS[case]}/>"))
    path = write(tmp_path, text)
    msg = load_fails(path)
    assert f"{path}, line {line_of(text, '<origin')}: joint 'j': <origin" in msg, msg


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol9 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
]>
<robot name="&lol9;"><link name="a"/></robot>
"""
EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE robot [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<robot name="x"><link name="&xxe;"/></robot>
"""
HOSTILE = {
    "billion laughs": (BILLION_LAUGHS.encode(), 2, "DTDs, entities"),
    "external entity": (EXTERNAL.encode(), 2, "DTDs, entities"),
    "empty file": (b"", 1, "malformed XML"),
    "binary junk": (np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8).tobytes(), 1, "malformed XML"),
    "truncated": (CHAIN[:-30].encode(), None, "malformed XML"),
    "deep nesting": (b'<robot name="x">' + b"<a>" * 100_000 + b"</a>" * 100_000 + b"</robot>", 1, "nested deeper"),
    "not a urdf": (b'<mujoco model="x"><worldbody/></mujoco>', 1, "expected <robot>"),
    "no links": (b'<robot name="x"></robot>', 1, "no <link>"),
    "unknown joint type": (robot(LINK.format(n="a"), LINK.format(n="b"), joint("j", "a", "b", "hinge", "")).encode(), 5, "unknown joint type 'hinge'"),
    "no child": (robot(LINK.format(n="a"), '<joint name="j" type="fixed"><parent link="a"/></joint>').encode(), 4, "no <child"),
    "negative velocity limit": (robot(LINK.format(n="a"), LINK.format(n="b"),
                                      joint("j", "a", "b", extra='<limit lower="0" upper="1" effort="1" velocity="-2"/>')).encode(),
                                5, "must be >= 0"),
    "no mass value": (robot('<link name="a"><inertial><mass/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>').encode(),
                      3, "<mass> has no 'value'"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_input_fails_cleanly(tmp_path, case):
    data, line, expected = HOSTILE[case]
    path = write(tmp_path, data)
    msg = load_fails(path)
    assert str(path) in msg and (line is None or f"line {line}" in msg), msg
    assert expected in msg, msg


def test_size_and_element_limits(tmp_path, monkeypatch):
    big = robot(LINK.format(n="a"), "<!--" + "x" * 3000 + "-->")
    path = write(tmp_path, big)
    monkeypatch.setattr(safexml, "MAX_BYTES", 2000)
    assert "exceeds the limit of 2000 bytes" in load_fails(path)
    assert "exceeds the limit" in load_fails(big)
    monkeypatch.setattr(safexml, "MAX_BYTES", 50 * 2**20)
    monkeypatch.setattr(safexml, "MAX_ELEMENTS", 3)
    assert "more than 3 elements" in load_fails(path)


def test_missing_file_and_default_limits(tmp_path):
    with pytest.raises(FileNotFoundError, match="URDF file not found"):
        ad.load_urdf(tmp_path / "none.urdf")
    assert safexml.MAX_BYTES == 50 * 2**20
