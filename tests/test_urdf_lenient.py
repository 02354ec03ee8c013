"""URDF leniency where urdfdom is lenient (issue 34, item 5).

Four slips that urdfdom (and so pinocchio, ROS) reads: an inverted ``<limit>`` (lower > upper, a
common way to write "no limit"), the same ``<axis>`` twice, visual numbers that cannot be read
(a 4-number mesh ``scale``), a blank before the XML declaration. Each loads with a note in
``model.load_report``; ``strict=True`` refuses it naming the file and the joint or link; the
limits and dynamics equal pinocchio's for the same file (an inverted limit is the exception:
pinocchio keeps the empty range, artidyn reads no position limit).
"""
import warnings

import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import ParseError
from artidyn.viewer.scene import build_scene

LINK = ('<link name="{name}"><inertial><origin xyz="0.05 0 0.1"/><mass value="{mass}"/>'
        '<inertia ixx="0.1" ixy="0.01" ixz="0" iyy="0.12" iyz="0" izz="0.08"/></inertial>{extra}</link>')
AXIS = '<axis xyz="0 1 0"/>'
LIMIT = '<limit lower="-1" upper="1" effort="10" velocity="2"/>'


def urdf(joint_items=AXIS + LIMIT, arm_extra="", jtype="revolute", before=""):
    """A two-link URDF (base + arm on joint 'j1', line 5); ``joint_items`` inside the joint."""
    return (before + '<?xml version="1.0"?>\n<robot name="r">\n'
            + LINK.format(name="base", mass="2", extra="") + "\n"
            + LINK.format(name="arm", mass="1.5", extra=arm_extra) + "\n"
            + f'<joint name="j1" type="{jtype}"><parent link="base"/><child link="arm"/>'
            + f'<origin xyz="0 0 0.2" rpy="0.1 0 0"/>{joint_items}</joint>\n</robot>\n')


def write(tmp_path, text, name="robot.urdf"):
    path = tmp_path / name
    path.write_text(text)
    return path


def notes_about(model, text):
    return [n for n in model.load_report if text in n.message]


def refused(path, *names):
    """load_urdf(strict=True) raises ParseError naming the file and ``names``; the message."""
    with pytest.raises(ParseError) as exc:
        ad.load_urdf(path, strict=True)
    msg = str(exc.value)
    assert str(path) in msg and "(strict=True)" in msg, msg
    for name in names:
        assert name in msg, (name, msg)
    return msg


def pin_model(path):
    pin = pytest.importorskip("pinocchio")
    return pin, pin.buildModelFromUrdf(str(path))


def assert_dynamics_equal_pinocchio(model, path):
    """M(q), rnea(q, v, a) and the velocity and effort limits equal pinocchio's (one joint)."""
    pin, pm = pin_model(path)
    pd = pm.createData()
    q, v, a = np.array([0.3]), np.array([-0.7]), np.array([1.1])
    assert np.allclose(ad.crba(model, q), pin.crba(pm, pd, q), atol=1e-12)
    assert np.allclose(ad.rnea(model, q, v, a), pin.rnea(pm, pd, q, v, a), atol=1e-12)
    assert np.allclose(ad.aba(model, q, v, a), pin.aba(pm, pd, q, v, a), atol=1e-12)
    assert np.array_equal(model.velocity_limit, pm.velocityLimit)
    assert np.array_equal(model.effort_limit, pm.effortLimit)
    return pm


# --- (a) lower > upper: no position limit -------------------------------------------------------

@pytest.mark.parametrize("jtype, lo, hi", [("revolute", "1", "-1"), ("prismatic", "0.5", "-0.5")])
def test_inverted_limit_is_read_as_no_position_limit(tmp_path, jtype, lo, hi):
    path = write(tmp_path, urdf(AXIS + f'<limit lower="{lo}" upper="{hi}" effort="10" velocity="2"/>', jtype=jtype))
    model = ad.load_urdf(path)
    (note,) = notes_about(model, "lower > upper")
    assert note.kind == "ignored" and note.element == "joint 'j1'" and note.line == 5
    assert f'<limit lower="{lo}" upper="{hi}">' in note.message and "no position limit" in note.message
    assert model.lower.tolist() == [-np.inf] and model.upper.tolist() == [np.inf]
    assert ad.within_limits(model, np.array([5.0]))
    refused(path, "line 5", "joint 'j1'", "lower > upper")
    # pinocchio loads it too, keeping the empty range [lower, upper]; velocity, effort, dynamics agree
    pm = assert_dynamics_equal_pinocchio(model, path)
    assert pm.lowerPositionLimit[0] == float(lo) > pm.upperPositionLimit[0] == float(hi)


def test_ordered_limits_stay_limits_without_a_note(tmp_path):
    model = ad.load_urdf(write(tmp_path, urdf()))
    assert model.lower.tolist() == [-1] and model.upper.tolist() == [1] and not notes_about(model, "lower > upper")
    pm = assert_dynamics_equal_pinocchio(model, tmp_path / "robot.urdf")
    assert np.array_equal(model.lower, pm.lowerPositionLimit) and np.array_equal(model.upper, pm.upperPositionLimit)


def test_builder_still_refuses_an_inverted_range():
    # the leniency is the URDF reader's: a program that asks for lower > upper made a mistake
    with pytest.raises(ad.ModelError, match=r"joint 'j1': lower limit 1 > upper limit -1"):
        ad.ModelBuilder().add_body("l1", joint_name="j1", lower=1, upper=-1, mass=1, inertia=np.eye(3))


# --- (b) the same <axis> twice ---------------------------------------------------------------

def test_repeated_identical_axis_is_read_once(tmp_path):
    path = write(tmp_path, urdf(AXIS + LIMIT + '<axis xyz="0 1.0 0"/>'))
    model = ad.load_urdf(path)
    (note,) = notes_about(model, "<axis> repeated")
    assert note.kind == "ignored" and note.element == "joint 'j1'" and "[0.0, 1.0, 0.0]" in note.message
    assert model.joint_axis[1].tolist() == [0, 1, 0]
    refused(path, "joint 'j1'", "<axis> repeated")
    pm = assert_dynamics_equal_pinocchio(model, path)
    assert np.array_equal(model.lower, pm.lowerPositionLimit) and np.array_equal(model.upper, pm.upperPositionLimit)


def test_repeated_axis_of_a_fixed_joint_is_ignored_with_it():
    model = ad.load_urdf(urdf(AXIS + AXIS, jtype="fixed"))
    (note,) = notes_about(model, "not used by a fixed joint")
    assert model.nv == 0 and "(2 elements)" in note.message


def test_repeated_different_axes_stay_an_error(tmp_path):
    # urdfdom takes the first; which one was meant is unknown, so artidyn refuses, naming both
    path = write(tmp_path, urdf(AXIS + '<axis xyz="1 0 0"/>' + LIMIT))
    for strict in (False, True):
        with pytest.raises(ParseError) as exc:
            ad.load_urdf(path, strict=strict)
        msg = str(exc.value)
        assert str(path) in msg and "<joint name='j1'> has more than one <axis>" in msg
        assert "[0.0, 1.0, 0.0]" in msg and "[1.0, 0.0, 0.0]" in msg


# --- (c) visual numbers the dynamics does not use ------------------------------------------------

VISUAL = '<visual><geometry><mesh filename="m.obj" scale="{scale}"/></geometry></visual>'
OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n"


def test_visual_mesh_scale_of_four_numbers_is_noted(tmp_path):
    path = write(tmp_path, urdf(arm_extra=VISUAL.format(scale="1 1 1 1")))
    model = ad.load_urdf(path)
    (note,) = notes_about(model, 'scale="1 1 1 1"')
    assert note.kind == "ignored" and note.element == "link 'arm'" and note.line == 4
    assert "expected 3" in note.message and "not used by the dynamics" in note.message
    assert model.meshes["arm"] == ["m.obj"]
    refused(path, "line 4", "link 'arm'", 'scale="1 1 1 1"')
    pm = assert_dynamics_equal_pinocchio(model, path)
    assert np.array_equal(model.lower, pm.lowerPositionLimit) and np.array_equal(model.upper, pm.upperPositionLimit)


@pytest.mark.parametrize("shape, attr", [('<box size="0.1 0.2"/>', 'size="0.1 0.2"'),
                                         ('<cylinder radius="0.1" length="x"/>', 'length="x"')])
def test_other_unreadable_visual_numbers_are_noted(tmp_path, shape, attr):
    path = write(tmp_path, urdf(arm_extra=f"<visual><geometry>{shape}</geometry></visual>"))
    model = ad.load_urdf(path)
    (note,) = notes_about(model, attr)
    assert note.element == "link 'arm'"
    refused(path, "link 'arm'", attr)
    assert_dynamics_equal_pinocchio(model, path)


def test_viewer_uses_three_number_scales_and_skips_the_others(tmp_path):
    (tmp_path / "m.obj").write_text(OBJ)
    base = VISUAL.format(scale="2 2 3")
    text = urdf(arm_extra=VISUAL.format(scale="1 1 1 1")).replace('</inertial></link>', f'</inertial>{base}</link>', 1)
    model = ad.load_urdf(write(tmp_path, text))
    scene = build_scene(model)
    (V, _, _), = scene.meshes                    # the base's mesh, scaled; the arm's skipped with a note
    assert np.allclose(V.max(axis=0), [2, 2, 3])
    assert any("link 'arm'" in n and "skipped" in n for n in scene.notes)


# --- (d) a blank before the XML declaration ---------------------------------------------------

@pytest.mark.parametrize("before, lines", [("\n\n", 2), ("  \t\r\n", 1), ("   ", 0), ("\r\n \n", 2)])
def test_blank_before_the_declaration_is_skipped(tmp_path, before, lines):
    path = write(tmp_path, urdf(before=before))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = ad.load_urdf(path)
    (note,) = notes_about(model, "before the XML declaration")
    assert note.kind == "ignored" and note.line == lines + 1 and note.element == "<?xml ...?>"
    refused(path, f"line {lines + 1}", "before the XML declaration")
    pm = assert_dynamics_equal_pinocchio(model, path)
    assert np.array_equal(model.lower, pm.lowerPositionLimit) and np.array_equal(model.upper, pm.upperPositionLimit)


def test_blank_before_the_declaration_keeps_error_lines(tmp_path):
    path = write(tmp_path, urdf(AXIS + '<limit lower="abc" upper="1" effort="10" velocity="2"/>', before="\n\n\n"))
    with pytest.raises(ParseError, match=r"robot\.urdf, line 8: joint 'j1': <limit lower=\"abc\""):
        ad.load_urdf(path)
    with pytest.raises(ParseError, match=r"line 5, column \d+: malformed XML"):
        ad.load_urdf(urdf(before="\n\n\n").replace("<robot", "<robot <", 1))


def test_blank_before_the_declaration_in_text_and_bytes():
    text = urdf(before="\n \n")
    for src in (text, text.encode()):
        model = ad.load_urdf(src)
        assert model.nv == 1 and notes_about(model, "2 blank line(s) before the XML declaration")
