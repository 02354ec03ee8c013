"""artidyn.interop: pinocchio model round trip, state converters held against pinocchio on real
robots (talos_full_v2, pr2, a continuous-joint robot), SRDF reference postures, and the warning on
vectors in another library's convention."""
import sys
import warnings

import numpy as np
import pinocchio as pin
import pytest

import artidyn as ad
from artidyn.builder import ModelBuilder
from artidyn.errors import InputError, ShapeError
from artidyn.interop import ConventionWarning, Converter, check_configuration, from_pinocchio, to_pinocchio
from artidyn.io.srdf import find_srdf, load_postures
from artidyn.models import erd

ROBOTS = ["talos_full_v2", "pr2", "double_pendulum_continuous"]
FIELDS = ["parent", "joint_type", "joint_placement", "lower", "upper", "velocity_limit",
          "effort_limit", "armature", "damping", "coulomb", "gravity", "idx_q", "idx_v", "nq_joint", "nv_joint"]


def load(name):
    return ad.load(name, collisions=False) if name in erd.example_robot_names() else ad.load(name)


def cylindrical_model():
    """A small tree with every joint type, continuous and cylindrical included, and an op frame."""
    b = ModelBuilder("every_joint")
    I = np.diag([0.01, 0.02, 0.025])
    b.add_body("base", "world", "free", mass=3.0, com=(0.01, 0, 0.02), inertia=I)
    b.add_body("a", "base", "continuous", joint_name="ja", axis=(0, 1, 0), xyz=(0.1, 0, 0), mass=1.0, inertia=I)
    b.add_body("b", "a", "cylindrical", joint_name="jb", axis=(0.6, 0, 0.8), xyz=(0, 0.2, 0), mass=1.0,
               com=(0.05, 0, 0), inertia=I, lower=(-1, -0.1), upper=(1, 0.2))
    b.add_body("c", "b", "spherical", joint_name="jc", rpy=(0.1, 0.2, 0.3), xyz=(0, 0, 0.3), mass=0.5, inertia=I)
    b.add_body("d", "base", "prismatic", joint_name="jd", axis=(0, 0, -1), xyz=(-0.1, 0, 0), mass=0.7,
               inertia=I, lower=-0.3, upper=0.3, damping=0.2, armature=0.03, coulomb=0.1, velocity=2, effort=50)
    b.add_body("e", "d", "revolute", joint_name="je", axis=(0.3, 0.4, 0.866), mass=0.4, inertia=I, lower=-2, upper=2)
    b.add_fixed_body("e_tip", "e", xyz=(0, 0, 0.1), mass=0.1, inertia=I * 0.1)
    b.add_frame("tool", "e_tip", xyz=(0.01, 0, 0))
    return b.build()


def assert_same_model(m, m2):
    assert m2.body_names == m.body_names and m2.joint_names == m.joint_names
    assert m2.joint_kind == m.joint_kind and (m2.nq, m2.nv) == (m.nq, m.nv)
    for key in FIELDS:
        np.testing.assert_array_equal(np.asarray(getattr(m2, key)), np.asarray(getattr(m, key)), err_msg=key)
    np.testing.assert_allclose(m2.joint_axis, m.joint_axis, rtol=0, atol=2e-16)   # renormalised by pinocchio
    for key in ("mass", "com", "inertia_com"):          # recomputed from the spatial inertia: round-off
        np.testing.assert_allclose(getattr(m2, key)[1:], getattr(m, key)[1:], rtol=1e-13, atol=1e-15, err_msg=key)
    assert [(f.name, f.body, f.kind) for f in m2.frames] == [(f.name, f.body, f.kind) for f in m.frames]
    for f, f2 in zip(m.frames, m2.frames):
        np.testing.assert_allclose(f2.placement, f.placement, atol=1e-15)


@pytest.mark.parametrize("name", ROBOTS + ["solo12", "every_joint"])
def test_round_trip_through_pinocchio(name):
    m = cylindrical_model() if name == "every_joint" else load(name)
    pm = to_pinocchio(m)
    assert pm.nv == m.nv and pm.njoints == m.nb + 1
    assert_same_model(m, from_pinocchio(pm))


def pin_from_urdf(m):
    """pinocchio's own URDF model of m's file, carrying artidyn's inertias on the links artidyn
    repaired (pinocchio keeps the file's invalid ones)."""
    pm = (pin.buildModelFromUrdf(m.source, pin.JointModelFreeFlyer()) if m.has_floating_base
          else pin.buildModelFromUrdf(m.source))
    repaired = {n.element.split("'")[1] for n in m.load_report if n.kind == "repaired"}
    for i in range(1, m.nb + 1):
        if any(m.frame(link).body == i for link in repaired if link in m.frame_names):
            jid = pm.getJointId(m.joint_names[i])
            pm.inertias[jid] = pin.Inertia(float(m.mass[i]), np.array(m.com[i]), np.array(m.inertia_com[i]))
    return pm


def compare_with_pinocchio(m, pm, seed):
    rng = np.random.default_rng(seed)
    cv = Converter(m, pm)
    d = pm.createData()
    q = ad.random_configuration(m, rng=seed)
    v, a = rng.standard_normal(m.nv), rng.standard_normal(m.nv)
    qp = cv.to_pin_q(q)
    np.testing.assert_allclose(cv.from_pin_q(qp), q, atol=1e-14)
    tau = cv.from_pin_v(pin.rnea(pm, d, qp, cv.to_pin_v(v), cv.to_pin_v(a)))
    np.testing.assert_allclose(tau, ad.rnea(m, q, v, a, friction=False), rtol=1e-10, atol=1e-9)
    Mp = pin.crba(pm, d, qp)
    Mp = np.triu(Mp) + np.triu(Mp, 1).T
    np.testing.assert_allclose(cv.from_pin_matrix(Mp), ad.crba(m, q), rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(cv.to_pin_matrix(ad.crba(m, q)), Mp, rtol=1e-10, atol=1e-11)
    pin.computeJointJacobians(pm, d, qp)
    pin.framesForwardKinematics(pm, d, qp)
    T = ad.body_placements(m, q)
    for i in range(1, m.nb + 1):
        fid = pm.getFrameId(m.body_names[i], pin.BODY)
        np.testing.assert_allclose(d.oMf[fid].homogeneous, T[i], atol=1e-12)
    tip = m.body_names[m.nb]
    fid = pm.getFrameId(tip, pin.BODY)
    for ref, art in ((pin.LOCAL_WORLD_ALIGNED, "world"), (pin.LOCAL, "local")):
        Jp = pin.getFrameJacobian(pm, d, fid, ref)
        np.testing.assert_allclose(cv.from_pin_jacobian(Jp), ad.jacobian(m, q, tip, expressed=art), atol=1e-12)
        np.testing.assert_allclose(cv.to_pin_jacobian(ad.jacobian(m, q, tip, expressed=art)), Jp, atol=1e-12)
    return cv


@pytest.mark.parametrize("name", ROBOTS)
def test_converted_states_agree_with_pinocchio(name):
    m = load(name)
    cv = compare_with_pinocchio(m, pin_from_urdf(m), seed=1)          # pinocchio's URDF reader, its order
    compare_with_pinocchio(m, to_pinocchio(m), seed=2)                # the converted model
    if name == "talos_full_v2":
        assert not np.array_equal(cv.P, np.arange(m.nv))              # the orders differ: a real test
        assert list(cv.P[:6]) == [3, 4, 5, 0, 1, 2]                   # free flyer [v; omega] <- [omega; v]
    if name == "double_pendulum_continuous":
        assert cv.pin_model.nq == m.nq + 2                             # (cos, sin) for each joint


@pytest.mark.parametrize("name", ["talos_full_v2", "pr2"])
def test_from_pinocchio_of_its_urdf_model(name):
    """pinocchio's own URDF model, read back: its joint order, the same robot as artidyn's reader."""
    m = load(name)
    pm = pin_from_urdf(m)
    m2 = from_pinocchio(pm)
    assert m2.joint_names[1:] == list(pm.names)[1:] and sorted(m2.joint_names) == sorted(m.joint_names)
    compare_with_pinocchio(m2, pm, seed=4)
    q = ad.random_configuration(m, rng=5)
    q2 = Converter(m2, pm).from_pin_q(Converter(m, pm).to_pin_q(q))
    for link in ("left_sole_link", "gripper_left_base_link") if name == "talos_full_v2" else ("r_gripper_palm_link",):
        np.testing.assert_allclose(ad.frame_placement(m2, q2, link), ad.frame_placement(m, q, link), atol=1e-12)


def test_every_joint_type_agrees_with_pinocchio():
    m = cylindrical_model()
    cv = compare_with_pinocchio(m, to_pinocchio(m), seed=3)
    q = np.stack([ad.random_configuration(m, rng=k) for k in range(4)])    # a batch
    assert cv.to_pin_q(q).shape == (4, cv.pin_model.nq)
    np.testing.assert_allclose(cv.from_pin_q(cv.to_pin_q(q)), q, atol=1e-14)
    v = np.random.default_rng(0).standard_normal((4, m.nv))
    np.testing.assert_array_equal(cv.from_pin_v(cv.to_pin_v(v)), v)


def test_converter_names_what_is_wrong():
    m = load("double_pendulum_continuous")
    cv = Converter(m, to_pinocchio(m))
    with pytest.raises(ShapeError, match="expected 4 entries"):
        cv.from_pin_q(np.zeros(2))
    other = load("ur5_robot")
    with pytest.raises(InputError, match="not in pinocchio model"):
        Converter(other, cv.pin_model)


def test_unsupported_joints_and_missing_pinocchio(monkeypatch):
    pm = pin.Model()
    pm.addJoint(0, pin.JointModelPlanar(), pin.SE3.Identity(), "slider_plane")
    with pytest.raises(InputError, match="joint 'slider_plane' is a pinocchio JointModelPlanar"):
        from_pinocchio(pm)
    b = ModelBuilder("neg")
    b.add_body("l", "world", "continuous", joint_name="wheel", axis=(0, 0, -1), mass=1.0, inertia=np.eye(3))
    with pytest.raises(InputError, match="joint 'wheel'.*continuous about"):
        to_pinocchio(b.build())
    monkeypatch.setitem(sys.modules, "pinocchio", None)              # as if not installed
    with pytest.raises(InputError, match="pinocchio is not installed"):
        to_pinocchio(load("ur5_robot"))


# --- SRDF reference postures -------------------------------------------------------------------
def test_talos_half_sitting_matches_pinocchio():
    m = load("talos_full_v2")
    srdf = find_srdf(m)
    assert srdf is not None and srdf.name == "talos.srdf"
    assert srdf == erd.example_robot_srdf("talos_full_v2")
    q = load_postures(m)["half_sitting"]
    assert not check_configuration(m, q)                             # in artidyn's convention: no warning
    pm = pin_from_urdf(m)
    pin.loadReferenceConfigurations(pm, str(srdf))
    qp = pm.referenceConfigurations["half_sitting"]
    np.testing.assert_array_equal(Converter(m, pm).to_pin_q(q), qp)
    d = pm.createData()
    pin.framesForwardKinematics(pm, d, qp)
    for sole in ("left_sole_link", "right_sole_link"):
        np.testing.assert_allclose(ad.frame_placement(m, q, sole), d.oMf[pm.getFrameId(sole)].homogeneous,
                                   atol=1e-12)
        assert abs(ad.frame_placement(m, q, sole)[2, 3]) < 1e-3     # the soles on the ground
    # pasting pinocchio's vector (its joint order) moves the sole, and is reported
    with pytest.warns(ConventionWarning, match="outside their limits.*another library's joint order"):
        check_configuration(m, qp)
    assert abs(ad.frame_placement(m, qp, "left_sole_link")[2, 3]) > 0.01


def test_postures_of_a_continuous_joint_accept_cos_sin(tmp_path):
    m = load("double_pendulum_continuous")
    f = tmp_path / "dp.srdf"
    f.write_text('<robot name="x"><group_state name="p" group="all"><joint name="joint1" value="0.6 0.8"/>'
                 '<joint name="joint2" value="-0.5"/></group_state></robot>')
    q = load_postures(m, f)["p"]
    np.testing.assert_allclose(q, [np.arctan2(0.8, 0.6), -0.5], atol=1e-15)
    with pytest.raises(FileNotFoundError, match="no SRDF found"):
        load_postures(cylindrical_model())


# --- convention warnings -------------------------------------------------------------------------
def test_pinocchio_layout_of_continuous_joints_is_reported():
    m = load("double_pendulum_continuous")
    cv = Converter(m, to_pinocchio(m))
    qp = cv.to_pin_q(np.array([0.3, -0.2]))
    with pytest.warns(ConventionWarning, match="pinocchio's layout.*2 continuous joint"):
        msgs = check_configuration(m, qp)
    assert len(msgs) == 1
    with pytest.raises(ShapeError, match="q has 3 entries"):
        check_configuration(m, np.zeros(3))


def test_misplaced_and_mujoco_quaternions_are_reported():
    m = load("solo12")
    q = ad.neutral(m)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_configuration(m, q) == []
    mj = q.copy()
    mj[3:7] = [1.0, 0.0, 0.0, 0.0]                                 # MuJoCo's identity (w, x, y, z)
    assert "half turn about x" in check_configuration(m, mj, warn=False)[0]
    bad = np.r_[0, 0, 0, 1, 0.3, 0, 0.235, q[7:]]                  # quaternion first, position after
    msgs = check_configuration(m, bad, warn=False)
    assert "norm" in msgs[0] and "q[0:4] has norm 1" in msgs[0]
    with pytest.warns(ConventionWarning, match="root_joint"):
        Converter(m, to_pinocchio(m)).to_pin_q(bad)
    assert check_configuration(m, np.stack([q, q]), warn=False) == []


def test_interop_and_mjcf_import_no_peer_library():
    import subprocess
    code = ("import sys, artidyn, artidyn.interop, artidyn.io.mjcf; "
            "print(sorted(m for m in ('pinocchio', 'mujoco') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
