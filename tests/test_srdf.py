"""SRDF: disabled collision pairs and named configurations, on small files and on the
example-robot-data robots."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import ParseError
from artidyn.geometry import Sphere, contact_candidates
from artidyn.io.srdf import apply_srdf, srdf_configurations, srdf_disabled_pairs
from conftest import ERD


def two_links():
    b = ad.ModelBuilder("two")
    b.add_body("l1", "world", "revolute", joint_name="j1", axis=(0, 0, 1), mass=1.0, com=(0.1, 0, 0),
               inertia=np.eye(3) * 0.01)
    b.add_body("l2", "l1", "revolute", joint_name="j2", axis=(0, 0, 1), xyz=(0.2, 0, 0), mass=1.0,
               inertia=np.eye(3) * 0.01)
    b.add_body("l3", "l2", "revolute", joint_name="j3", axis=(0, 0, 1), xyz=(0.2, 0, 0), mass=1.0,
               inertia=np.eye(3) * 0.01)
    for name in ("l1", "l2", "l3"):
        b.add_collision(name, Sphere(0.25))       # every sphere overlaps the others
    return b.build()


SRDF = """<?xml version="1.0"?>
<robot name="two">
  <group name="arm"><chain base_link="l1" tip_link="l3"/></group>
  <group_state name="bent" group="arm"><joint name="j1" value="0.5"/><joint name="j2" value="-1.0"/>
    <joint name="gripper" value="0.01"/></group_state>
  <disable_collisions link1="l1" link2="l3" reason="Never"/>
</robot>
"""


def test_disabled_pairs_and_configurations(tmp_path):
    model = two_links()
    f = tmp_path / "two.srdf"
    f.write_text(SRDF)
    C = contact_candidates(model, ad.body_placements(model, ad.neutral(model)))
    assert {(int(a), int(b)) for a, b in zip(C.body_a, C.body_b)} == {(3, 1)}     # l3-l1 (parents excluded)
    assert srdf_disabled_pairs(model, f) == [(1, 3)]
    m2 = apply_srdf(model, f)
    assert (1, 3) in m2.collision_exclusions
    assert len(contact_candidates(m2, ad.body_placements(m2, ad.neutral(m2))).distance) == 0
    q = srdf_configurations(model, f)["bent"]
    np.testing.assert_array_equal(q, [0.5, -1.0, 0.0])            # 'gripper' is not a joint of this model


@pytest.mark.parametrize("text, match", [
    ('<robot name="x"><disable_collisions link1="l1"/></robot>', "link1 and link2"),
    ('<robot name="x"><disable_collisions link1="l1" link2="nope"/></robot>', "link 'nope'"),
    ('<robo name="x"/>', "root element"),
    ('<robot name="x"><group_state name="a"><joint name="j1" value="x y"/></group_state></robot>', "numbers"),
    ('<robot name="x"><group_state name="a"><joint name="j1" value="1 2"/></group_state></robot>', "takes 1"),
    ('<!DOCTYPE r [<!ENTITY e "x">]><robot name="x"/>', None),
])
def test_bad_srdf_files_name_the_file_and_line(tmp_path, text, match):
    f = tmp_path / "bad.srdf"
    f.write_text(text)
    with pytest.raises(ParseError, match=match) as err:
        srdf_disabled_pairs(two_links(), f)
        srdf_configurations(two_links(), f)
    assert "bad.srdf" in str(err.value)


@pytest.mark.skipif(ERD is None, reason="example-robot-data not installed")
def test_example_robots_read_their_srdf():
    from artidyn.models import erd
    raw = erd.example_robot("talos_full_v2", srdf=False)
    model = erd.example_robot("talos_full_v2")
    assert len(model.collision_exclusions) > len(raw.collision_exclusions) + 100
    q = srdf_configurations(model, erd.example_robot_srdf("talos_full_v2"))["half_sitting"]
    T = ad.body_placements(model, q)
    before = len(contact_candidates(raw, T).distance)
    after = len(contact_candidates(model, T).distance)
    assert after < before                                          # the SRDF switches off touching neighbours
    assert erd.example_robot_srdf("solo12").name == "solo.srdf"


def limited_arm():
    b = ad.ModelBuilder("arm")
    b.add_body("base", "world", "free", mass=2.0, inertia=np.eye(3) * 0.02)
    for k, parent in ((1, "base"), (2, "l1"), (3, "l2")):
        b.add_body(f"l{k}", parent, "revolute", joint_name=f"shoulder_{k}", axis=(0, 0, 1), xyz=(0.2, 0, 0),
                   mass=1.0, inertia=np.eye(3) * 0.01, lower=-2.8, upper=2.8)
    return b.build()


def posture(tmp_path, joints):
    f = tmp_path / "arm.srdf"
    f.write_text('<robot name="arm"><group_state name="p" group="all">'
                 + "".join(f'<joint name="{n}" value="{v}"/>' for n, v in joints) + "</group_state></robot>")
    return f


def test_misspelt_joint_is_warned_with_the_closest_name(tmp_path):
    from artidyn.errors import PlausibilityWarning
    model = limited_arm()
    f = posture(tmp_path, [("shoulder_1", 0.1), ("shoulder_2", 0.2), ("shoulder_3", 0.3), ("sholder_3", 1.0)])
    with pytest.warns(PlausibilityWarning, match=r"posture 'p': joint 'sholder_3': is not a joint of model 'arm' "
                                                 r"\(did you mean 'shoulder_3'\?\)"):
        q = srdf_configurations(model, f)["p"]
    assert q[model.q_slice("shoulder_3")] == 0.3
    assert any("sholder_3" in str(n) for n in model.load_report.notes)


def test_a_posture_of_another_variant_is_read_quietly(tmp_path):
    # most of its joints are not the model's: a reduced or other variant of the robot, not a typo
    import warnings
    model = limited_arm()
    f = posture(tmp_path, [("shoulder_1", 0.1), ("leg_1", 0.2), ("leg_2", 0.3), ("leg_3", 0.4), ("shoulder_4", 1.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        q = srdf_configurations(model, f)["p"]
    assert q[model.q_slice("shoulder_1")] == 0.1


def test_zero_quaternion_skips_its_posture_and_values_beyond_limits_are_warned(tmp_path):
    from artidyn.errors import PlausibilityWarning
    model = limited_arm()
    f = posture(tmp_path, [("root_joint", "0 0 1 0 0 0 0"), ("shoulder_1", 0.1)])
    with pytest.warns(PlausibilityWarning, match=r"joint 'root_joint': the quaternion \[0.0, 0.0, 0.0, 0.0\] is zero"):
        assert "p" not in srdf_configurations(model, f)
    f = posture(tmp_path, [("root_joint", "0 0 1 0 0 0 2"), ("shoulder_2", 90.0)])
    with pytest.warns(PlausibilityWarning, match=r"posture 'p': joint 'shoulder_2'.*value 90 is outside the joint's "
                                                 r"limits \[-2.8, 2.8\] \(kept\)"):
        q = srdf_configurations(model, f)["p"]
    assert q[model.q_slice("shoulder_2")] == 90.0
    np.testing.assert_allclose(q[model.q_slice("root_joint")], [0, 0, 1, 0, 0, 0, 1])   # normalised
