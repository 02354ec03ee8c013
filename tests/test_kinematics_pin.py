"""URDF robots against pinocchio: placements of every link frame and Jacobians.

Every example-robot-data URDF that pinocchio loads is read by artidyn (floating base as
``artidyn.models.erd.default_floating`` decides) and by pinocchio (the same base); at 3 random
states, the world placement of every pinocchio BODY frame (one per URDF link) must equal
artidyn's placement of the frame of the same name (body placement times frame placement, i.e.
``frame_placement``, which is called on a few frames per robot to keep the time linear). Joints are matched by name
(tests/pin_utils.py), so this also checks the q layouts (continuous joints, free flyer).
"""
import numpy as np
import pytest

import artidyn as ad
from conftest import ERD
from pin_utils import (from_pin_jacobian, pin_body_frames, pin_model, to_pin_q, to_pin_v)

pin = pytest.importorskip("pinocchio")
erd = pytest.importorskip("artidyn.models.erd")

TOL = 1e-10
NAMES = [n for n in (erd.example_robot_names() if ERD else []) if n != "ur3"]  # ur3.urdf: no links


def _case(name):
    model = erd.example_robot(name)
    return model, pin_model(erd.example_robot_path(name), model.has_floating_base)


@pytest.mark.parametrize("name", NAMES)
def test_link_placements_match_pinocchio(name):
    model, pm = _case(name)
    pd = pm.createData()
    Q = ad.random_configuration(model, np.random.default_rng(7), size=3)
    frames = pin_body_frames(pm)
    assert set(frames) <= set(model.frame_names), f"links missing in artidyn: {set(frames) - set(model.frame_names)}"
    T_body = ad.body_placements(model, Q)
    ours = {f: T_body[:, model.frame(f).body] @ model.frame(f).placement for f in frames}
    for f in list(frames)[::max(1, len(frames) // 6)]:  # the public function on a few (same product)
        np.testing.assert_allclose(ad.frame_placement(model, Q, f), ours[f], rtol=0, atol=1e-14)
    for k in range(3):
        pin.framesForwardKinematics(pm, pd, to_pin_q(model, pm, Q[k]))
        for f, fid in frames.items():
            np.testing.assert_allclose(ours[f][k], pd.oMf[fid].homogeneous, rtol=0, atol=TOL, err_msg=f"frame '{f}'")


def test_every_loadable_robot_was_compared():
    if not ERD:
        pytest.skip("example-robot-data not installed")
    assert len(NAMES) == 68, "example-robot-data 6.0.0 ships 69 URDFs, one of them (ur3.urdf) empty"


JACOBIAN_CASES = {
    "ur5_robot": ["tool0", "wrist_1_link", "ee_link"],
    "panda": ["panda_hand", "panda_link4", "panda_rightfinger"],
    "solo12": ["FL_FOOT", "HR_LOWER_LEG", "base_link"],
    "talos_full_v2": ["gripper_left_fingertip_3_link", "left_sole_link", "head_2_link"],
}


@pytest.mark.parametrize("name", sorted(JACOBIAN_CASES))
def test_jacobians_match_pinocchio(name):
    if name not in NAMES:
        pytest.skip(f"{name} not available")
    model, pm = _case(name)
    assert model.has_floating_base == (name in ("solo12", "talos_full_v2"))
    pd = pm.createData()
    Q = ad.random_configuration(model, np.random.default_rng(3), size=3)
    for frame in JACOBIAN_CASES[name]:
        fid = pm.getFrameId(frame)
        assert fid < pm.nframes, frame
        J_world = ad.jacobian(model, Q, frame, expressed="world")
        J_local = ad.jacobian(model, Q, frame, expressed="local")
        for k in range(3):
            qp = to_pin_q(model, pm, Q[k])
            for ref, ours in ((pin.LOCAL_WORLD_ALIGNED, J_world[k]), (pin.LOCAL, J_local[k])):
                Jp = from_pin_jacobian(model, pm, pin.computeFrameJacobian(pm, pd, qp, fid, ref))
                np.testing.assert_allclose(ours, Jp, rtol=0, atol=TOL, err_msg=f"{frame} {ref}")


def test_velocity_conversion_roundtrip_and_frame_velocity():
    """to_pin_v puts the free-flyer [omega; v] in pinocchio's [v; omega] order: J v agrees."""
    if "solo12" not in NAMES:
        pytest.skip("solo12 not available")
    model, pm = _case("solo12")
    pd = pm.createData()
    rng = np.random.default_rng(5)
    q, v = ad.random_configuration(model, rng), rng.normal(size=model.nv)
    qp, vp = to_pin_q(model, pm, q), to_pin_v(model, pm, v)
    pin.forwardKinematics(pm, pd, qp, vp)
    pin.updateFramePlacements(pm, pd)
    fid = pm.getFrameId("FL_FOOT")
    nu = pin.getFrameVelocity(pm, pd, fid, pin.LOCAL).vector  # [linear; angular], local axes
    twist = ad.jacobian(model, q, "FL_FOOT", expressed="local") @ v
    np.testing.assert_allclose(twist, np.concatenate([nu[3:], nu[:3]]), atol=TOL)


@pytest.mark.parametrize("name", ["tiago", "solo12"])  # continuous joints; a free flyer
def test_pin_utils_conversions_are_consistent(name):
    """Round trips, and invariants that any correct permutation keeps: v.M.v and J v."""
    if name not in NAMES:
        pytest.skip(f"{name} not available")
    from pin_utils import from_pin_matrix, from_pin_q, from_pin_spatial, from_pin_v
    model, pm = _case(name)
    pd = pm.createData()
    rng = np.random.default_rng(11)
    Q = ad.random_configuration(model, rng, size=2)
    V = rng.normal(size=(2, model.nv))
    Qp, Vp = to_pin_q(model, pm, Q), to_pin_v(model, pm, V)
    assert Qp.shape == (2, pm.nq)
    np.testing.assert_allclose(from_pin_q(model, pm, Qp), Q, atol=1e-12)  # angles drawn in [-pi, pi]
    np.testing.assert_array_equal(from_pin_v(model, pm, Vp), V)
    M_p = pin.crba(pm, pd, Qp[0])
    M_p = np.triu(M_p) + np.triu(M_p, 1).T
    M = from_pin_matrix(model, pm, M_p)
    assert np.isclose(V[0] @ M @ V[0], Vp[0] @ M_p @ Vp[0], rtol=1e-12)
    frame = model.body_names[-1]
    fid = pm.getFrameId(frame)
    Jp = pin.computeFrameJacobian(pm, pd, Qp[0], fid, pin.LOCAL)
    np.testing.assert_allclose(from_pin_jacobian(model, pm, Jp) @ V[0], from_pin_spatial(Jp @ Vp[0]), atol=1e-12)
