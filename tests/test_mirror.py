"""Sagittal symmetry (ModelBuilder.add_mirrored; seed: indirect frames and pseudovectors).

A leg mirrored through the plane y = 0 of the torso: at a symmetric configuration (equal values of
the mirrored joint variables) each mirrored body is the mirror image of its original,
``p' = M p`` and ``R' = M R D`` (M the reflection of the plane, D the local reflection that
makes the frame right-handed again), while every frame stays right-handed (det R = +1).
Velocities follow the seed's rule for pseudovectors: ``omega' = det(M) M omega = -M omega``.
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.spatial.motion import inv_homogeneous
from artidyn.spatial.rotations import matrix_to_quat, rpy_to_matrix

M = np.diag([1.0, -1.0, 1.0])  # reflection through y = 0 (also the local D for normal y)
LEFT = ["hip_l", "thigh_l", "shin_l", "slide_l", "foot_l"]


def rename(name):
    return name.replace("_l", "_r")


def inertia(rng, m):
    R = rpy_to_matrix(rng.uniform(-1, 1, 3))
    a, b, c = rng.uniform(0.05, 0.2, 3)
    return R @ np.diag(m / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])) @ R.T


def biped(floating=True, point=(0.0, 0.0, 0.0), spherical_hip=False):
    """A torso symmetric about y = 0 and one left leg (revolute axes in odd directions, a
    prismatic joint, a lumped foot and an operational frame), then its mirror image."""
    rng = np.random.default_rng(21)
    b = ad.ModelBuilder("biped")
    torso_I = np.array([[0.3, 0, 0.02], [0, 0.25, 0], [0.02, 0, 0.2]])  # symmetric about y = 0
    b.add_body("torso", "world", "free" if floating else "fixed", mass=8.0, com=(0.02, 0.0, 0.1), inertia=torso_I)
    hip = dict(joint="spherical") if spherical_hip else dict(joint="revolute", axis=(0.1, 0.2, 1.0))
    b.add_body("hip_l", "torso", joint_name="hip_yaw_l", xyz=(0.01, 0.12, -0.05), rpy=(0.2, -0.1, 0.3),
               mass=1.0, com=(0.01, 0.02, -0.03), inertia=inertia(rng, 1.0), lower=-0.5, upper=0.7, **hip)
    b.add_body("thigh_l", "hip_l", "revolute", joint_name="hip_roll_l", axis=(1.0, -0.3, 0.1),
               xyz=(0.0, 0.05, -0.1), rpy=(-0.4, 0.2, 0.1), mass=2.0, com=(0.0, 0.03, -0.2),
               inertia=inertia(rng, 2.0), damping=0.3)
    b.add_body("shin_l", "thigh_l", "revolute", joint_name="knee_l", axis=(0.2, 1.0, 0.3),
               xyz=(0.02, -0.01, -0.4), mass=1.5, com=(0.01, -0.02, -0.2), inertia=inertia(rng, 1.5))
    b.add_body("slide_l", "shin_l", "prismatic", joint_name="shock_l", axis=(0.3, 0.4, -1.0),
               xyz=(0.0, 0.02, -0.3), rpy=(0.3, 0.5, -0.2), mass=0.5, com=(0.03, 0.01, 0.0),
               inertia=inertia(rng, 0.5), lower=-0.05, upper=0.05)
    b.add_fixed_body("foot_l", "slide_l", xyz=(0.05, 0.01, -0.05), rpy=(0.1, 0.0, 0.4), mass=0.4,
                     com=(0.04, 0.01, -0.01), inertia=inertia(rng, 0.4))
    b.add_frame("sole_l", "foot_l", xyz=(0.02, -0.03, -0.02), rpy=(0.0, 0.3, 0.2))
    new = b.add_mirrored("hip_l", rename, normal=(0.0, 1.0, 0.0), point=point)
    assert new == [rename(n) for n in LEFT]
    return b.build()


def symmetric_state(model, rng, spherical_hip=False):
    """Random q and v with each right joint variable equal to its left twin."""
    q, v = ad.random_configuration(model, rng), ad.random_velocity(model, rng)
    for j in ["hip_yaw_l", "hip_roll_l", "knee_l", "shock_l"]:
        qs, vs = model.q_slice(j), model.v_slice(j)
        q[model.q_slice(rename(j))], v[model.v_slice(rename(j))] = q[qs], v[vs]
    if spherical_hip:  # D R D = R(-D u, theta): the vector part of the quaternion maps by -D
        ql = q[model.q_slice("hip_yaw_l")]
        q[model.q_slice("hip_yaw_r")] = np.concatenate([-M @ ql[:3], ql[3:]])
        v[model.v_slice("hip_yaw_r")] = -M @ v[model.v_slice("hip_yaw_l")]  # a pseudovector
    return q, v


def in_torso(model, q, frame):
    return inv_homogeneous(ad.frame_placement(model, q, "torso")) @ ad.frame_placement(model, q, frame)


@pytest.mark.parametrize("spherical_hip", [False, True], ids=["revolute_hip", "spherical_hip"])
def test_symmetric_configuration_gives_mirror_images(spherical_hip):
    model = biped(spherical_hip=spherical_hip)
    rng = np.random.default_rng(1)
    for _ in range(3):
        q, _ = symmetric_state(model, rng, spherical_hip)
        for name in LEFT + ["sole_l"]:
            Tl, Tr = in_torso(model, q, name), in_torso(model, q, rename(name))
            assert np.allclose(Tr[:3, 3], M @ Tl[:3, 3], atol=1e-14), name
            assert np.allclose(Tr[:3, :3], M @ Tl[:3, :3] @ M, atol=1e-14), name
        # an asymmetric configuration is not mirrored (the check above can fail)
        q[model.q_slice("knee_r")] += 0.3
        Tl, Tr = in_torso(model, q, "sole_l"), in_torso(model, q, "sole_r")
        assert not np.allclose(Tr[:3, 3], M @ Tl[:3, 3], atol=1e-3)


def test_plane_through_a_point():
    """Plane y = 0.03 of the torso: p' = M p + (0, 0.06, 0)."""
    model = biped(floating=False, point=(0.5, 0.03, -2.0))  # only the normal component matters
    q, _ = symmetric_state(model, np.random.default_rng(2))
    for name in LEFT + ["sole_l"]:
        Tl, Tr = in_torso(model, q, name), in_torso(model, q, rename(name))
        assert np.allclose(Tr[:3, 3], M @ Tl[:3, 3] + [0, 0.06, 0], atol=1e-14)
        assert np.allclose(Tr[:3, :3], M @ Tl[:3, :3] @ M, atol=1e-14)


def test_mirrored_inertial_parameters_joints_and_frames():
    model = biped()
    for name in LEFT[:4]:
        i, k = model.body_id(name), model.body_id(rename(name))
        assert model.mass[k] == model.mass[i]  # the foot is lumped into slide_l / slide_r
        assert np.allclose(model.com[k], M @ model.com[i], atol=1e-15)
        assert np.allclose(model.inertia_com[k], M @ model.inertia_com[i] @ M, atol=1e-15)
        assert model.joint_kind[k] == model.joint_kind[i]
        assert model.joint_names[k] == rename(model.joint_names[i])
        if model.joint_kind[i] == "revolute":
            assert np.allclose(model.joint_axis[k], -M @ model.joint_axis[i])  # pseudovector
        else:
            assert np.allclose(model.joint_axis[k], M @ model.joint_axis[i])  # true vector
    for j in ["hip_yaw_l", "shock_l"]:
        assert model.lower[model.q_slice(rename(j))] == model.lower[model.q_slice(j)]
        assert model.upper[model.q_slice(rename(j))] == model.upper[model.q_slice(j)]
    assert model.damping[model.v_slice("hip_roll_r")] == 0.3
    kinds = {f.name: f.kind for f in model.frames}
    assert kinds["foot_r"] == "link" and kinds["sole_r"] == "op"
    assert model.nq == 7 + 8 and model.nv == 6 + 8


def test_center_of_mass_in_the_plane_at_symmetric_q():
    model = biped()
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, v = symmetric_state(model, rng)
        T0 = ad.frame_placement(model, q, "torso")
        c = inv_homogeneous(T0) @ np.append(ad.center_of_mass(model, q), 1)
        assert abs(c[1]) < 1e-14
    # fixed torso: the centre of mass also moves in the plane at a symmetric velocity
    fixed = biped(floating=False)
    q, v = symmetric_state(fixed, rng)
    assert abs(ad.center_of_mass(fixed, q)[1]) < 1e-14
    assert abs(ad.com_velocity(fixed, q, v)[1]) < 1e-13
    q[fixed.q_slice("knee_r")] += 0.2
    assert abs(ad.center_of_mass(fixed, q)[1]) > 1e-4


def test_velocities_follow_the_pseudovector_rule():
    """Fixed torso, symmetric q and v: v' = M v (true vector), omega' = -M omega (pseudovector)."""
    model = biped(floating=False)
    q, v = symmetric_state(model, np.random.default_rng(4))
    for name in LEFT + ["sole_l"]:
        tl, tr = ad.frame_velocity(model, q, v, name), ad.frame_velocity(model, q, v, rename(name))
        assert np.allclose(tr[3:], M @ tl[3:], atol=1e-13)
        assert np.allclose(tr[:3], -M @ tl[:3], atol=1e-13)


def test_every_frame_stays_right_handed():
    model = biped(spherical_hip=True)
    Q = ad.random_configuration(model, 5, size=4)  # any q, symmetric or not
    T = ad.body_placements(model, Q)
    assert np.allclose(np.linalg.det(T[..., :3, :3]), 1, atol=1e-13)
    assert np.allclose(np.linalg.det(model.joint_placement[:, :3, :3]), 1, atol=1e-14)
    for f in model.frames:
        assert np.isclose(np.linalg.det(f.placement[:3, :3]), 1, atol=1e-14), f.name
    # the quaternion of a mirrored frame is a proper one (matrix_to_quat would fail otherwise)
    R = ad.frame_placement(model, Q[0], "sole_r")[:3, :3]
    assert np.isclose(np.linalg.norm(matrix_to_quat(R)), 1)


def test_mirror_with_dict_rename_and_missing_name():
    b = ad.ModelBuilder("arm")
    b.add_body("base", "world", "fixed", mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_body("link_a", "base", "revolute", axis=(0, 0, 1), xyz=(0, 0.2, 0), mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_mirrored("link_a", {"link_a": "link_b", "link_a_joint": "link_b_joint"})
    m = b.build()
    assert m.body_names == ["world", "link_a", "link_b"] and m.joint_names[2] == "link_b_joint"
    assert np.allclose(m.joint_placement[2][:3, 3], [0, -0.2, 0])
    b.add_body("link_c", "link_a", "revolute", mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_frame("tip_c", "link_c", xyz=(0.1, 0.1, 0))
    b.add_frame("tip_c2", "tip_c", xyz=(0, 0.1, 0))  # a frame on a frame is mirrored too
    with pytest.raises(ad.ModelError, match=r"add_mirrored\('link_c'\): rename has no entry for 'link_c_joint'"):
        b.add_mirrored("link_c", {"link_c": "link_d"})
    with pytest.raises(ad.ModelError, match=r"rename maps 'link_c' to 'link_c'"):
        b.add_mirrored("link_c", lambda s: s)
    with pytest.raises(ad.ModelError, match=r"plane normal must be a non-zero 3-vector"):
        b.add_mirrored("link_c", lambda s: s + "_m", normal=(0, 0, 0))
    b.add_mirrored("link_c", lambda s: s + "_m", normal=(1, 0, 0))  # nothing was added by the failures
    m = b.build()
    assert m.body_names == ["world", "link_a", "link_c", "link_c_m", "link_b"]
    for f in ("tip_c", "tip_c2"):
        P, Pm = m.frame(f).placement, m.frame(f + "_m").placement
        D = np.diag([-1.0, 1.0, 1.0])
        assert m.frame(f + "_m").body == m.body_id("link_c_m")
        assert np.allclose(Pm[:3, 3], D @ P[:3, 3]) and np.allclose(Pm[:3, :3], D @ P[:3, :3] @ D)
