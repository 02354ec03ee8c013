"""artidyn.io.mjcf.load_mjcf held against MuJoCo's own compiled model (mass matrix, bias forces,
body placements to 1e-9) on hand-written MJCF files and on example-robot-data URDFs that MuJoCo
converts to MJCF; loop constraints from <equality>; geoms as collision shapes; errors."""
import pathlib
import re

import mujoco
import numpy as np
import pytest

import artidyn as ad
from artidyn.constraints.declared import from_model
from artidyn.errors import ParseError
from artidyn.geometry import Box, Capsule, Cylinder, HalfSpace, Sphere
from artidyn.interop import MujocoConverter
from artidyn.io.mjcf import load_mjcf
from artidyn.models import erd

DATA = pathlib.Path(__file__).parent / "data" / "mjcf"
FILES = ["arm.xml", "quadruped.xml", "ball_slide.xml", "site_connect.xml"]


def random_state(m, seed):
    rng = np.random.default_rng(seed)
    q = ad.random_configuration(m, rng=seed)
    q = np.where(np.isfinite(q), q, rng.uniform(-1, 1, m.nq))       # unbounded entries (free base position)
    return q, rng.standard_normal(m.nv), rng.standard_normal(m.nv)


def full_mass_matrix(mj, d):
    """mj_fullM after mj_forward (MuJoCo 4 takes the data, MuJoCo 3 the sparse d.qM)."""
    M = np.zeros((mj.nv, mj.nv))
    if hasattr(d, "qM"):
        mujoco.mj_fullM(mj, M, d.qM)
    else:
        mujoco.mj_fullM(mj, d, M)
    return M


def compare_with_mujoco(path, seeds=(0, 1, 2), tol=1e-9):
    """load_mjcf(path) against mujoco's model of the same file; returns (model, MjModel, converter)."""
    m = load_mjcf(path)
    mj = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(mj)
    mj.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT     # no limit or loop forces in mj_inverse
    cv = MujocoConverter(m, mj)
    assert (m.nq, m.nv) == (mj.nq, mj.nv)
    np.testing.assert_allclose(m.total_mass, mj.body_mass.sum(), rtol=1e-12)
    np.testing.assert_allclose(m.gravity, mj.opt.gravity, rtol=0, atol=0)
    for seed in seeds:
        q, v, a = random_state(m, seed)
        d.qpos[:], d.qvel[:] = cv.to_mj_qpos(q), cv.to_mj_qvel(q, v)
        np.testing.assert_allclose(cv.from_mj_qpos(d.qpos), q, atol=1e-15)
        np.testing.assert_allclose(cv.from_mj_qvel(q, d.qvel), v, atol=1e-15)
        mujoco.mj_forward(mj, d)
        M = full_mass_matrix(mj, d)
        scale = max(1.0, np.abs(M).max())
        np.testing.assert_allclose(cv.from_mj_matrix(q, M), ad.crba(m, q), rtol=0, atol=tol * scale)
        # MuJoCo's bias c(q, qvel) is the force for qacc = 0 (free joint: constant world-frame velocity);
        # its joint springs are passive forces, inside artidyn's rnea
        spring = ad.spring_torque(m, q)
        np.testing.assert_allclose(cv.from_mj_qfrc(q, d.qfrc_spring), -spring, rtol=0, atol=tol * scale)
        a0 = cv.from_mj_qacc(q, v, np.zeros(mj.nv))
        bias = ad.rnea(m, q, v, a0, friction=False) - spring
        np.testing.assert_allclose(cv.from_mj_qfrc(q, d.qfrc_bias), bias, rtol=0, atol=tol * scale)
        # inverse dynamics at a random acceleration: M qacc + bias = qfrc_inverse + qfrc_passive
        d.qacc[:] = cv.to_mj_qacc(q, v, a)
        mujoco.mj_inverse(mj, d)
        tau = cv.from_mj_qfrc(q, d.qfrc_inverse + d.qfrc_passive)
        np.testing.assert_allclose(tau, ad.rnea(m, q, v, a, friction=False) - spring, rtol=0, atol=tol * scale * 10)
        for k in range(1, mj.nbody):
            T = ad.frame_placement(m, q, mj.body(k).name or f"body{k}")     # unnamed: body<k>
            np.testing.assert_allclose(T[:3, 3], d.xpos[k], atol=tol)
            np.testing.assert_allclose(T[:3, :3], d.xmat[k].reshape(3, 3), atol=tol)
    return m, mj, cv


@pytest.mark.parametrize("name", FILES)
def test_hand_written_models_match_mujoco(name):
    m, mj, _ = compare_with_mujoco(DATA / name)
    for j in range(mj.njnt):                       # limits (degrees converted), armature, damping, friction
        i = m.joint_id(mj.joint(j).name)
        if mj.jnt_type[j] in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
            a = int(m.idx_q[i])
            if mj.jnt_limited[j]:
                np.testing.assert_allclose([m.lower[a], m.upper[a]], mj.jnt_range[j], rtol=1e-15)
            else:
                assert np.isinf(m.lower[a]) and np.isinf(m.upper[a])
        dofs = slice(int(mj.jnt_dofadr[j]), int(mj.jnt_dofadr[j]) + int(m.nv_joint[i]))
        np.testing.assert_allclose(m.armature[m.v_slice(i)], mj.dof_armature[dofs], rtol=1e-15)
        np.testing.assert_allclose(m.damping[m.v_slice(i)], mj.dof_damping[dofs], rtol=1e-15)


def test_mujoco_test_model():
    """MuJoCo's own test model (shipped in the mujoco package): free bodies, two-hinge bodies, a ball,
    a slide, springs, an inline mesh (inertia of its hull), fromto boxes, a weld, unnamed bodies."""
    path = pathlib.Path(mujoco.__file__).parent / "testdata" / "model.xml"
    m, mj, _ = compare_with_mujoco(path)
    assert m.total_mass > 0 and sum(j == "free" for j in m.joint_kind) == 5
    assert any(c.shape.kind == "mesh" for c in m.collisions) and len(from_model(m)) == 1
    ignored = {n.element for n in m.load_report if n.kind == "ignored"}
    assert {"<tendon>", "<actuator>"} <= ignored


def test_quadruped_is_floating_and_reads_defaults():
    m = load_mjcf(DATA / "quadruped.xml")
    assert m.has_floating_base and m.joint_names[1] == "root"
    knee = m.q_slice("fl_knee")
    np.testing.assert_allclose([m.lower[knee][0], m.upper[knee][0]], [-150 * np.pi / 180, 0.0])
    assert m.armature[m.v_slice("fl_knee")][0] == 0.005 and m.damping[m.v_slice("fl_hip")][0] == 0.5
    kinds = sorted(c.shape.kind for c in m.collisions)
    assert kinds == ["box"] + ["capsule"] * 6 + ["cylinder", "sphere"]     # the ellipsoid has no shape
    assert any(n.kind == "ignored" and "ellipsoid" in n.message for n in m.load_report)
    caps = [c for c in m.collisions if c.shape.kind == "capsule"]
    np.testing.assert_allclose(caps[0].shape.length, 0.2) and np.testing.assert_allclose(caps[0].shape.radius, 0.02)


def test_geoms_become_collision_shapes():
    m = load_mjcf(DATA / "arm.xml")
    floor = [c for c in m.collisions if c.name == "floor"][0]
    assert floor.body == 0 and floor.shape == HalfSpace((0, 0, 1), 0)
    box = [c for c in m.collisions if isinstance(c.shape, Box)][0]
    assert box.shape.size == (0.4, 0.06, 0.06)
    cap = [c for c in m.collisions if isinstance(c.shape, Capsule)][0]
    assert cap.shape == Capsule(0.04, 0.3)
    np.testing.assert_allclose(cap.placement[:3, 3], [0, 0, 0.15], atol=1e-15)     # fromto: midpoint
    assert "tool" in m.frame_names
    assert all(isinstance(c.shape, (Sphere, Box, Capsule, Cylinder, HalfSpace)) for c in m.collisions)


def test_joint_anchor_off_the_body_origin_keeps_the_body_frame():
    m = load_mjcf(DATA / "ball_slide.xml")
    assert m.frame("bob").kind == "link" and m.body_names[m.frame("bob").body] == "bob/ball"
    assert m.joint_kind[m.joint_id("ball")] == "spherical" and "tip/u1" in m.body_names    # two hinges: a chain


def test_equality_connect_and_weld_are_loop_constraints():
    m, mj, cv = compare_with_mujoco(DATA / "ball_slide.xml", seeds=(0,))
    loop, weld = from_model(m)
    assert (type(loop).__name__, type(weld).__name__) == ("Point", "Weld") and loop.name == "loop"
    q0 = cv.from_mj_qpos(mj.qpos0)                   # MuJoCo's reference configuration satisfies them
    np.testing.assert_allclose(loop.phi(m, q0), 0, atol=1e-14)
    np.testing.assert_allclose(weld.phi(m, q0), 0, atol=1e-14)
    mj.opt.disableflags = 0                          # constraints back on: MuJoCo's residuals
    d = mujoco.MjData(mj)
    q, _, _ = random_state(m, 4)
    d.qpos[:] = cv.to_mj_qpos(q)
    mujoco.mj_forward(mj, d)
    eq = d.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
    pos = d.efc_pos[eq]                              # connect: 3 rows; weld: 3 position rows, then rotation
    np.testing.assert_allclose(loop.phi(m, q), pos[:3], atol=1e-12)
    np.testing.assert_allclose(weld.phi(m, q)[3:], pos[3:6], atol=1e-12)


def test_site_connect_matches_mujoco_residual():
    m, mj, cv = compare_with_mujoco(DATA / "site_connect.xml", seeds=(0,))
    (loop,) = from_model(m)
    assert (loop.frame_a, loop.frame_b) == ("sb", "sc")
    mj.opt.disableflags = 0
    d = mujoco.MjData(mj)
    for seed in range(3):
        q, _, _ = random_state(m, seed)
        d.qpos[:] = cv.to_mj_qpos(q)
        mujoco.mj_forward(mj, d)
        eq = d.efc_type == mujoco.mjtConstraint.mjCNSTR_EQUALITY
        np.testing.assert_allclose(loop.phi(m, q), d.efc_pos[eq], atol=1e-12)


def test_inertia_from_geoms_and_degrees(tmp_path):
    """Every primitive geom's inertia (inertiafromgeom=true overrides an <inertial>), euler in
    degrees with an intrinsic sequence, a hinge in a <frame>."""
    f = tmp_path / "geoms.xml"
    f.write_text("""<mujoco model="geoms"><compiler angle="degree" eulerseq="zyx" inertiafromgeom="true"/>
      <option gravity="0.5 -1 -9"/>
      <worldbody><frame pos="0.1 0 0" euler="0 0 30"><body name="a" pos="0 0.2 0" euler="30 45 60">
        <joint name="ja" axis="1 1 0" range="-45 60"/>
        <inertial pos="0 0 0" mass="100" diaginertia="1 1 1"/>
        <geom type="sphere" size="0.1" pos="0.1 0 0"/>
        <geom type="box" size="0.1 0.2 0.3" euler="10 0 0"/>
        <geom type="cylinder" size="0.05 0.2" pos="0 0.3 0" quat="0.8 0.6 0 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0.1 0.2" size="0.04" density="500"/>
        <geom type="ellipsoid" size="0.1 0.05 0.2" pos="-0.1 0 0" mass="0.7"/>
        <body name="b" pos="0.3 0 0"><joint name="jb" type="ball" pos="0 0 0.1"/>
          <geom type="box" size="0.05 0.05 0.2" pos="0 0 -0.2"/></body>
      </body></frame></worldbody></mujoco>""")
    m, mj, _ = compare_with_mujoco(f)
    assert m.total_mass < 100                                         # the <inertial> was overridden
    np.testing.assert_allclose(m.upper[m.q_slice("ja")], [np.pi / 3], rtol=1e-15)


# --- real robots: MuJoCo converts the URDF, both readers agree ------------------------------------
def urdf_to_mjcf(name, tmp_path, free=False):
    """example-robot-data URDF -> MJCF written by MuJoCo (meshes stripped; ``free``: keep the root link
    as a body and give it a free joint)."""
    txt = pathlib.Path(erd.example_robot_path(name)).read_text()
    txt = re.sub(r"<(visual|collision)\b.*?</\1>", "", txt, flags=re.S)
    if free:
        txt = re.sub(r"(<robot\b[^>]*>)", r'\1<mujoco><compiler fusestatic="false"/></mujoco>', txt, count=1)
    urdf = tmp_path / f"{name}.urdf"
    urdf.write_text(txt)
    out = tmp_path / f"{name}.xml"
    mujoco.mj_saveLastXML(str(out), mujoco.MjModel.from_xml_path(str(urdf)))
    if free:
        out.write_text(re.sub(r"(<worldbody>\s*<body[^>]*>)", r'\1<freejoint name="root_joint"/>', out.read_text(),
                              count=1))
    return out


@pytest.mark.parametrize("name, free", [("ur5_robot", False), ("panda", False), ("solo12", True)])
def test_robots_converted_by_mujoco(name, free, tmp_path):
    m, mj, _ = compare_with_mujoco(urdf_to_mjcf(name, tmp_path, free), seeds=(0, 1))
    # the same robot read from its URDF by artidyn: MuJoCo writes 6 significant digits
    u = ad.load(name, collisions=False, floating_base=free)
    assert sorted(u.joint_names) == sorted(m.joint_names)
    perm_q = np.concatenate([np.arange(m.nq)[m.q_slice(n)] for n in u.joint_names[1:]])
    perm_v = np.concatenate([np.arange(m.nv)[m.v_slice(n)] for n in u.joint_names[1:]])
    q_u, _, _ = random_state(u, 5)
    q_m = np.empty(m.nq)
    q_m[perm_q] = q_u
    np.testing.assert_allclose(ad.crba(m, q_m)[np.ix_(perm_v, perm_v)], ad.crba(u, q_u), rtol=0,
                               atol=2e-5 * np.abs(ad.crba(u, q_u)).max())
    for i in range(1, u.nb + 1):
        name_i = u.body_names[i]
        np.testing.assert_allclose(ad.frame_placement(m, q_m, name_i), ad.frame_placement(u, q_u, name_i), atol=2e-5)


# --- errors ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("body, match", [
    ('<body name="b"><joint name="j" axis="1 x 0"/><geom size="0.1"/></body>', r":3: <joint> 'j' attribute 'axis'"),
    ('<body name="b"><joint type="screw"/><geom size="0.1"/></body>', r"unknown joint type 'screw'"),
    ('<body name="b"><joint/><geom type="hfield" hfield="h"/></body>', r"<geom> attribute 'type'.*hfield.*<inertial>"),
    ('<body name="b"><joint/><geom type="mesh" mesh="m"/></body>', r"<geom> attribute 'mesh': unknown mesh 'm'"),
    ('<body name="b"><joint class="nope"/><geom size="0.1"/></body>', r"unknown default class 'nope'"),
    ('<body name="b"><body name="c"><freejoint/><geom size="0.1"/></body></body>', r"free joint needs a body at the top"),
    ('<body name="b" quat="1 0 0 0" euler="0 0 1"><geom size="0.1"/></body>', r"several orientations"),
    ('<body name="b"><inertial mass="1"/></body>', r"<inertial> attribute 'diaginertia'"),
])
def test_errors_name_file_line_element_attribute(tmp_path, body, match):
    f = tmp_path / "bad.xml"
    f.write_text(f'<mujoco model="bad">\n<worldbody>\n{body}\n</worldbody></mujoco>')
    with pytest.raises(ParseError, match=match) as info:
        load_mjcf(f)
    assert str(f) in str(info.value)


def test_not_mjcf_and_missing_file(tmp_path):
    with pytest.raises(ParseError, match="root element is <robot>"):
        load_mjcf('<robot name="x"/>')
    with pytest.raises(FileNotFoundError):
        load_mjcf(tmp_path / "none.xml")
