"""model.postures: the SRDF's reference postures, read by artidyn.load for example-robot-data
robots and for a URDF with an SRDF next to it; a broken SRDF is a load-report note."""
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import artidyn as ad
from artidyn.models import erd


def srdf_values(path, posture):
    """{joint: [values]} of a <group_state> of an SRDF, read with the standard library."""
    root = ET.parse(path).getroot()
    state = next(g for g in root.iter("group_state") if g.get("name") == posture)
    return {j.get("name"): [float(x) for x in j.get("value").split()] for j in state.iter("joint")}


def check_by_name(model, posture, srdf):
    """Every joint of the model that the SRDF names has the SRDF's value; the others are neutral."""
    q, n = model.postures[posture], ad.neutral(model)
    values = srdf_values(srdf, posture)
    named = 0
    for name in model.joint_names[1:]:
        sl = model.q_slice(name)
        if name in values:
            assert np.allclose(q[sl], values[name]), name
            named += 1
        else:
            assert np.array_equal(q[sl], n[sl]), name
    return named


@pytest.mark.parametrize("name", ["talos", "talos_full_v2"])
def test_talos_half_sitting(name):
    m = ad.load(name)
    assert "half_sitting" in m.postures
    named = check_by_name(m, "half_sitting", erd.example_robot_srdf(name))
    assert named >= 30
    q = m.postures["half_sitting"]
    knee = q[m.q_slice("leg_left_4_joint")][0]
    assert knee > 0.5                                            # knees bent: it is half sitting
    assert np.isclose(np.linalg.norm(q[3:7]), 1.0)               # base quaternion (x, y, z, w)


def test_solo12_standing_by_name_and_path():
    path = erd.example_robot_path("solo12")
    for m in (ad.load("solo12"), ad.load(path)):
        assert {"standing", "straight_standing"} <= set(m.postures)
        assert check_by_name(m, "standing", erd.example_robot_srdf("solo12")) >= 12


def test_postures_are_kept_by_replace_and_read_only():
    m = ad.load("solo12")
    r = m.replace(damping=np.zeros(m.nv))
    assert r.postures.keys() == m.postures.keys()
    assert all(np.array_equal(r.postures[k], m.postures[k]) for k in m.postures)
    with pytest.raises(ValueError):
        m.postures["standing"][0] = 1.0
    with pytest.raises(ad.errors.ShapeError, match="posture 'bad'"):
        m.replace(postures={"bad": np.zeros(3)})


def test_neutral_is_unchanged_and_builtins_have_no_postures():
    m = ad.load("puma560")
    assert m.postures == {} and np.array_equal(ad.neutral(m), np.zeros(6))


URDF = """<robot name="arm">
  <link name="base"/>
  <link name="l1"><inertial><mass value="1"/><origin xyz="0.5 0 0"/>
    <inertia ixx="0.01" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l2"><inertial><mass value="1"/><origin xyz="0.5 0 0"/>
    <inertia ixx="0.01" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="10" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/><origin xyz="1 0 0"/>
    <axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="10" velocity="1"/></joint>
</robot>
"""


def test_urdf_with_srdf_next_to_it(tmp_path):
    (tmp_path / "arm.urdf").write_text(URDF)
    (tmp_path / "arm.srdf").write_text('<robot name="arm"><group_state name="up" group="all">'
                                       '<joint name="j2" value="1.25"/><joint name="j1" value="-0.5"/>'
                                       '</group_state></robot>')
    m = ad.load(tmp_path / "arm.urdf")
    assert np.allclose(m.postures["up"], [-0.5, 1.25])        # matched by name, not by order


def test_a_broken_srdf_is_a_note_not_an_error(tmp_path):
    (tmp_path / "arm.urdf").write_text(URDF)
    (tmp_path / "arm.srdf").write_text('<robot name="arm"><group_state name="up" group="all">'
                                       '<joint name="j1" value="one"/></group_state></robot>')
    m = ad.load(tmp_path / "arm.urdf")
    assert m.postures == {}
    notes = [str(n) for n in m.load_report]
    assert any("arm.srdf" in n and "postures not read" in n and "j1" in n for n in notes)
