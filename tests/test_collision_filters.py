"""Which shapes may touch: MuJoCo's contype / conaffinity bit masks on both contact routes, the
MJCF reader's masks (default classes included) and ``<contact><exclude>``, checked against
MuJoCo's own contacts; parent-child, same-body and world-world pairs left out.
"""
import warnings

import numpy as np
import pytest

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.errors import InputError, ModelError
from artidyn.geometry import Collision, HalfSpace, Sphere, collision_pairs, contact_candidates
from artidyn.io.mjcf import NotModelledWarning, load_mjcf
from test_contact import G
from test_contact_compiled import assert_same, both


def two_balls(masks_top=(1, 1), masks_ground=(1, 1)):
    """A ball resting on the ground and a second one falling onto it from 5 cm."""
    b = ad.ModelBuilder("two_balls", gravity=(0.0, 0.0, -G))
    for name in ("low", "top"):
        b.add_body(name, "world", "free", mass=1.0, inertia=np.eye(3) * 0.004)
    b.add_collision("low", Sphere(0.1))
    b.add_collision("top", Sphere(0.1), contype=masks_top[0], conaffinity=masks_top[1])
    b.add_collision("world", HalfSpace(), contype=masks_ground[0], conaffinity=masks_ground[1])
    m = b.build()
    q = ad.neutral(m)
    q[z_index(m, "low")], q[z_index(m, "top")] = 0.1, 0.35
    return m, q, np.zeros(m.nv)


def z_index(model, body):
    return model.q_slice(model.joint_names[model.body_names.index(body)]).start + 2


def body_pairs(model, C):
    return {tuple(sorted((model.body_names[a], model.body_names[b]))) for a, b in zip(C.body_a, C.body_b)}


def test_defaults_are_one_and_one_and_the_rule_is_mujocos():
    m, _, _ = two_balls()
    assert all((c.contype, c.conaffinity) == (1, 1) for c in m.collisions)
    assert len(collision_pairs(m)) == 3
    a = Collision("a", 0, Sphere(0.1), np.eye(4), contype=1, conaffinity=2)
    for ct, ca, ok in ((2, 0, True), (0, 1, True), (4, 4, False), (0, 0, False), (3, 0, True)):
        b = Collision("b", 0, Sphere(0.1), np.eye(4), contype=ct, conaffinity=ca)
        assert a.may_touch(b) is ok and b.may_touch(a) is ok
    assert a != Collision("a", 0, Sphere(0.1), np.eye(4))


@pytest.mark.parametrize("bad", [-1, 1.5, True, "1", None])
def test_masks_are_checked(bad):
    b = ad.ModelBuilder("m")
    b.add_body("ball", "world", "free", mass=1.0, inertia=np.eye(3) * 0.004)
    with pytest.raises(InputError, match="contype"):
        b.add_collision("ball", Sphere(0.1), contype=bad)
    with pytest.raises(InputError, match="conaffinity"):
        b.add_collision("ball", Sphere(0.1), conaffinity=bad)
    with pytest.raises(ModelError, match="contype"):
        Collision("a", 0, Sphere(0.1), np.eye(4), contype=bad)


def test_masks_that_forbid_the_pair_let_the_ball_fall_through_on_both_routes():
    s = ContactSettings()
    # top: contype 2, conaffinity 2 -> (2 & 1) | (1 & 2) = 0 with the low ball and the ground
    m, q, v = two_balls(masks_top=(2, 2))
    assert len(collision_pairs(m)) == 1                      # low ball - ground only
    c, r = both(m, q, v, s, 0.2)
    assert_same(c, r)
    top = z_index(m, "top")
    t = c.t
    np.testing.assert_allclose(c.q[:, top], 0.35 - 0.5 * G * t ** 2, atol=1e-2)   # free fall through
    assert not any(((m.body_names[a], m.body_names[b]) == ("top", "low")) for x in c.contacts
                   for a, b in zip(x.body_a, x.body_b))
    # the same masks allowing it (top: contype 2, conaffinity 1 -> 1 & 1 with both): it lands on the low ball
    m2, q2, v2 = two_balls(masks_top=(2, 1))
    assert len(collision_pairs(m2)) == 3
    c2, r2 = both(m2, q2, v2, s, 0.2)
    assert_same(c2, r2)
    top = z_index(m2, "top")
    assert c2.q[-1, top] > 0.29                                  # resting on the low ball (z = 0.3)
    assert any(((m2.body_names[a], m2.body_names[b]) == ("top", "low")) for x in c2.contacts
               for a, b in zip(x.body_a, x.body_b))
    # a ground that touches nothing: both balls fall
    m3, q3, v3 = two_balls(masks_ground=(0, 4))
    assert len(collision_pairs(m3)) == 1                         # the two balls only
    c3, r3 = both(m3, q3, v3, s, 0.05)
    assert_same(c3, r3)


def test_mirrored_limbs_keep_their_masks():
    b = ad.ModelBuilder("m")
    b.add_body("base", "world", "free", mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_body("left", "base", "revolute", axis=(0, 0, 1), xyz=(0, 0.2, 0), mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_collision("left", Sphere(0.05), contype=2, conaffinity=4)
    b.add_mirrored("left", lambda n: n.replace("left", "right"))
    m = b.build()
    masks = {c.name: (c.contype, c.conaffinity) for c in m.collisions}
    assert masks == {"left_0": (2, 4), "right_0": (2, 4)}


MJCF = """
<mujoco model="filters">
  <default>
    <default class="odd"><geom contype="3" conaffinity="3"/></default>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <geom name="block" type="box" pos="1 0 0" size="0.2 0.2 0.2"/>
    <body name="A" pos="0 0 0.1">
      <freejoint/>
      <geom type="sphere" size="0.2"/>
      <body name="D" pos="0 0.15 0.1">
        <joint type="hinge" axis="0 0 1"/>
        <geom class="odd" type="sphere" size="0.15"/>
      </body>
    </body>
    <body name="B" pos="0.15 0 0.1">
      <freejoint/>
      <geom type="sphere" size="0.2" contype="2" conaffinity="2"/>
    </body>
    <body name="C" pos="-0.15 0 0.1">
      <freejoint/>
      <geom type="sphere" size="0.2" contype="2" conaffinity="1"/>
    </body>
    <body name="E" pos="1 0 0.25">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1"/>
    </body>
  </worldbody>
  <contact>
    <exclude body1="C" body2="A"/>
  </contact>
</mujoco>
"""


def test_mjcf_masks_and_excludes_give_mujocos_contacts(tmp_path):
    mujoco = pytest.importorskip("mujoco")
    from artidyn.interop import MujocoConverter
    path = tmp_path / "filters.xml"
    path.write_text(MJCF)
    m = load_mjcf(path)
    masks = {m.body_names[c.body]: (c.contype, c.conaffinity) for c in m.collisions if c.body}
    assert masks == {"A": (1, 1), "B": (2, 2), "C": (2, 1), "D": (3, 3), "E": (1, 1)}
    assert m.collision_exclusions == ((m.body_names.index("A"), m.body_names.index("C")),)
    mj = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(mj)
    mujoco.mj_forward(mj, d)
    expected = {tuple(sorted((mj.body(mj.geom_bodyid[c.geom1]).name,
                              mj.body(mj.geom_bodyid[c.geom2]).name))) for c in d.contact[:d.ncon]}
    q = MujocoConverter(m, mj).from_mj_qpos(d.qpos)
    got = body_pairs(m, contact_candidates(m, ad.body_placements(m, q)))
    assert got == expected
    # what the scene holds: masks that forbid (B-A, B-world), an <exclude> (C-A), parent-child
    # (D-A), world-world (floor-block), and the pairs that touch
    assert expected == {("A", "world"), ("C", "world"), ("B", "C"), ("B", "D"), ("C", "D"),
                        ("E", "world")}


def test_mjcf_contact_pair_is_not_modelled_and_an_unknown_exclude_body_is_refused(tmp_path):
    path = tmp_path / "pair.xml"
    path.write_text(MJCF.replace('<exclude body1="C" body2="A"/>',
                                 '<exclude body1="C" body2="A"/><pair geom1="floor" geom2="block"/>'))
    with pytest.warns(NotModelledWarning, match="pair"):
        load_mjcf(path)
    path.write_text(MJCF.replace('body2="A"', 'body2="Z"'))
    with pytest.raises(ad.ParseError, match="Z"):
        load_mjcf(path)
    path.write_text(MJCF.replace('contype="2" conaffinity="2"', 'contype="-2" conaffinity="2"'))
    with pytest.raises(ad.ParseError, match="contype"):
        load_mjcf(path)
    path.write_text(MJCF.replace("<freejoint/>\n      <geom type=\"box\"", "<freejoint/>\n      <geom contype=\"0\" "
                                 "conaffinity=\"0\" type=\"box\""))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = load_mjcf(path)
    assert "E" not in {m.body_names[c.body] for c in m.collisions}
