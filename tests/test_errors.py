"""Bad input: every error names the body, joint, frame or argument and the wrong value.

Builder (mass, inertia, axis, names, tree), model look-ups (close-name suggestions), and state
arguments of the configuration and kinematics functions (shape, NaN/inf, quaternions).
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.spatial.motion import homogeneous
from artidyn.spatial.rotations import rotz

I3 = np.diag([0.02, 0.03, 0.04])


def arm(name="arm"):
    b = ad.ModelBuilder(name)
    b.add_body("shoulder_link", "world", "revolute", joint_name="shoulder_joint", mass=1, inertia=I3)
    b.add_body("elbow_link", "shoulder_link", "revolute", joint_name="elbow_joint", axis=(0, 1, 0),
               xyz=(0, 0, 0.3), mass=1, inertia=I3)
    b.add_frame("tool0", "elbow_link", xyz=(0, 0, 0.2))
    return b


def floating(name="walker"):
    b = ad.ModelBuilder(name)
    b.add_body("trunk", "world", "free", mass=5, inertia=I3 * 10)
    b.add_body("hip", "trunk", "spherical", joint_name="hip_ball", xyz=(0, 0.1, -0.1), mass=1, inertia=I3)
    b.add_body("shin", "hip", "revolute", joint_name="knee", axis=(0, 1, 0), xyz=(0, 0, -0.3), mass=1, inertia=I3)
    return b.build()


# --- mass and inertia ---------------------------------------------------------------------


@pytest.mark.parametrize("mass, shown", [(-1.0, "-1"), (-1e-9, "-1e-09")])
def test_negative_mass(mass, shown):
    with pytest.raises(ad.ModelError, match=rf"body 'wrist_link': mass must be positive, got {shown}$"):
        arm().add_body("wrist_link", "elbow_link", mass=mass, inertia=np.zeros((3, 3)))
    with pytest.raises(ad.ModelError, match=r"body 'flange': mass must be positive"):
        arm().add_fixed_body("flange", "elbow_link", mass=mass)


def test_non_finite_mass_or_inertia():
    with pytest.raises(ad.ModelError, match=r"body 'l1': mass, centre of mass and inertia must be finite.*nan"):
        ad.ModelBuilder().add_body("l1", mass=np.nan, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"body 'l1'.*inf"):
        ad.ModelBuilder().add_body("l1", mass=1.0, com=(0, np.inf, 0), inertia=I3)


def test_zero_mass_moving_leaf():
    b = arm()
    b.add_body("wrist_link", "elbow_link", "revolute", joint_name="wrist_joint", mass=0.0)
    with pytest.raises(ad.ModelError, match=r"body 'wrist_link' moves \(joint 'wrist_joint'\).*zero mass.*singular"):
        b.build()


def test_zero_mass_chain_names_its_first_body():
    """A moving body whose whole subtree is massless: the error names that body."""
    b = arm()
    b.add_body("wrist_1", "elbow_link", "revolute", mass=0.0)
    b.add_body("wrist_2", "wrist_1", "revolute", mass=0.0)
    b.add_fixed_body("flange", "wrist_2", mass=0.0)
    with pytest.raises(ad.ModelError, match=r"body 'wrist_1' moves"):
        b.build()


def test_zero_mass_moving_body_carried_mass_is_fine():
    """A massless moving body is fine when a fixed child lumped into it has mass."""
    b = arm()
    b.add_body("wrist_1", "elbow_link", "revolute", mass=0.0)
    b.add_fixed_body("flange", "wrist_1", xyz=(0, 0, 0.1), mass=0.2, inertia=I3 / 10)
    m = b.build()
    assert np.isclose(m.mass[m.body_id("wrist_1")], 0.2)


def test_inertia_not_symmetric():
    I = I3.copy()
    I[0, 1] = 1e-3
    with pytest.raises(ad.ModelError, match=r"body 'l1': inertia is not symmetric"):
        ad.ModelBuilder().add_body("l1", mass=1.0, inertia=I)


def test_inertia_not_positive_definite_names_body_and_eigenvalues():
    with pytest.raises(ad.ModelError,
                       match=r"body 'l1': inertia not positive definite, eigenvalues \(-0\.1, 1, 1\)"):
        ad.ModelBuilder().add_body("l1", mass=1.0, inertia=np.diag([1.0, 1.0, -0.1]))
    # a wrong-signed off-diagonal term that keeps the diagonal positive (issue AlphaDog#30)
    bad = np.array([[0.1, 0.2, 0], [0.2, 0.1, 0], [0, 0, 0.1]])
    with pytest.raises(ad.ModelError, match=r"body 'l2': inertia not positive definite, eigenvalues \(-0\.1,"):
        ad.ModelBuilder().add_body("l2", mass=1.0, inertia=bad)


def test_inertia_triangle_inequality():
    with pytest.raises(ad.ModelError, match=r"body 'rod': inertia breaks the triangle inequality, "
                                            r"principal moments \(0\.1, 0\.1, 1\)"):
        ad.ModelBuilder().add_body("rod", mass=1.0, inertia=np.diag([0.1, 1.0, 0.1]))
    # the limiting case of a thin rod (A + B == C) is allowed
    ad.ModelBuilder().add_body("rod", mass=1.0, inertia=np.diag([0.1, 0.1, 1e-12]))


def test_inertia_and_com_shapes():
    with pytest.raises(ad.ModelError, match=r"body 'l1': inertia must be 3x3, got shape \(3,\)"):
        ad.ModelBuilder().add_body("l1", mass=1.0, inertia=[1, 1, 1])
    with pytest.raises(ad.ModelError, match=r"body 'l1': centre of mass must have 3 entries"):
        ad.ModelBuilder().add_body("l1", mass=1.0, com=(0, 0), inertia=I3)
    with pytest.raises(ad.ModelError, match=r"body 'l1': zero mass with a non-zero inertia"):
        ad.ModelBuilder().add_body("l1", mass=0.0, inertia=I3)


# --- joints, placements and names --------------------------------------------------------


def test_zero_axis():
    for joint in ("revolute", "prismatic", "continuous"):
        with pytest.raises(ad.ModelError, match=r"joint 'j1': axis \[0\.0, 0\.0, 0\.0\] is zero"):
            ad.ModelBuilder().add_body("l1", "world", joint, joint_name="j1", axis=(0, 0, 0), mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"joint 'j1': axis must be 3 finite numbers"):
        ad.ModelBuilder().add_body("l1", joint_name="j1", axis=(0, np.nan, 1), mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"joint 'j1': axis must be 3 finite numbers"):
        ad.ModelBuilder().add_body("l1", joint_name="j1", axis=(0, 1), mass=1, inertia=I3)


def test_axis_is_normalised():
    b = ad.ModelBuilder()
    b.add_body("l1", axis=(0, 0, 3.0), mass=1, inertia=I3)
    assert np.allclose(b.build().joint_axis[1], [0, 0, 1])


def test_missing_parent_suggests_close_names():
    with pytest.raises(ad.ModelError, match=r"body 'wrist_link': parent 'elbow_lnk' does not exist.*'elbow_link'"):
        arm().add_body("wrist_link", "elbow_lnk", mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"frame 'tcp': parent 'hand' does not exist"):
        arm().add_frame("tcp", "hand")


def test_duplicate_names():
    with pytest.raises(ad.ModelError, match=r"duplicate name 'elbow_link'"):
        arm().add_body("elbow_link", "shoulder_link", mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"duplicate joint name 'elbow_joint' \(body 'wrist_link'\)"):
        arm().add_body("wrist_link", "elbow_link", joint_name="elbow_joint", mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"duplicate name 'tool0'"):
        arm().add_frame("tool0", "shoulder_link")
    with pytest.raises(ad.ModelError, match=r"duplicate name 'tool0'"):
        arm().add_body("tool0", "elbow_link", mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"duplicate name 'world'"):
        arm().add_body("world", "elbow_link", mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"non-empty strings"):
        arm().add_body("", "elbow_link", mass=1, inertia=I3)


def test_unknown_joint_type():
    with pytest.raises(ad.ModelError, match=r"body 'l1': unknown joint type 'hinge' \(known: revolute"):
        ad.ModelBuilder().add_body("l1", "world", "hinge", mass=1, inertia=I3)


def test_bad_limits_and_friction():
    with pytest.raises(ad.ModelError, match=r"joint 'j1': lower limit 1 > upper limit -1"):
        ad.ModelBuilder().add_body("l1", joint_name="j1", lower=1, upper=-1, mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"joint 'j1': damping must be >= 0, got -0.5"):
        ad.ModelBuilder().add_body("l1", joint_name="j1", damping=-0.5, mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"joint 'j1': armature must be >= 0, got nan"):
        ad.ModelBuilder().add_body("l1", joint_name="j1", armature=np.nan, mass=1, inertia=I3)


def test_bad_placements():
    with pytest.raises(ad.ModelError, match=r"body 'l1': placement is not a rigid transform: rotation orthogonality error 0.21"):
        ad.ModelBuilder().add_body("l1", placement=homogeneous(1.1 * rotz(0.3), [0, 0, 1]), mass=1, inertia=I3)
    mirror = homogeneous(np.diag([1.0, -1.0, 1.0]), [0, 0, 0])
    with pytest.raises(ad.ModelError, match=r"body 'l1': placement is not a rigid transform.*det -1"):
        ad.ModelBuilder().add_body("l1", placement=mirror, mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"body 'l1': placement must be a 4x4 transform, got shape \(3, 3\)"):
        ad.ModelBuilder().add_body("l1", placement=np.eye(3), mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"joint 'l1_joint': placement is not finite"):
        ad.ModelBuilder().add_body("l1", xyz=(0, np.nan, 0), mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"body 'l1': placement: xyz and rpy need 3 entries"):
        ad.ModelBuilder().add_body("l1", xyz=(0, 1), mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"frame 'f': placement is not a rigid transform"):
        arm().add_frame("f", "elbow_link", 2 * np.eye(4))


def test_free_joint_only_from_the_world():
    b = arm()
    b.add_body("drone", "elbow_link", "free", joint_name="drone_joint", mass=1, inertia=I3)
    with pytest.raises(ad.ModelError, match=r"free \(floating\) joint moves a body relative to the world: its "
                                            r"parent must be 'world'.*'drone'"):
        b.build()


def test_builder_errors_name_the_source_file():
    b = ad.ModelBuilder("r", source="robots/r.urdf")
    with pytest.raises(ad.ModelError, match=r"^robots/r\.urdf: body 'l1': parent 'base' does not exist"):
        b.add_body("l1", "base", mass=1, inertia=I3)


def test_mirror_unknown_root():
    with pytest.raises(ad.NameNotFound, match=r"unknown body 'elbow_lnk'.*did you mean 'elbow_link'"):
        arm().add_mirrored("elbow_lnk", rename={})


# --- names in a built model ----------------------------------------------------------------


def test_unknown_names_suggest_close_ones():
    m = arm("ur").build()
    q = ad.neutral(m)
    cases = [
        (lambda: m.body_id("elbow_lnk"), r"unknown body 'elbow_lnk' in model 'ur'; did you mean 'elbow_link'"),
        (lambda: m.joint_id("elbow"), r"unknown joint 'elbow' in model 'ur'; did you mean 'elbow_joint'"),
        (lambda: m.frame("tool"), r"unknown frame 'tool' in model 'ur'; did you mean 'tool0'"),
        (lambda: m.q_slice("shoulder"), r"unknown joint 'shoulder'.*'shoulder_joint'"),
        (lambda: m.v_slice("shoulder"), r"unknown joint 'shoulder'.*'shoulder_joint'"),
        (lambda: ad.frame_placement(m, q, "tool_0"), r"unknown frame 'tool_0'.*'tool0'"),
        (lambda: ad.jacobian(m, q, "tol0"), r"unknown frame 'tol0'.*'tool0'"),
        (lambda: ad.frame_velocity(m, q, q, "tool1"), r"unknown frame 'tool1'.*'tool0'"),
        (lambda: ad.jacobian_derivative(m, q, q, "tool1"), r"unknown frame 'tool1'.*'tool0'"),
        (lambda: m.frame("zzzzzz"), r"unknown frame 'zzzzzz' in model 'ur'; known: 'world', 'shoulder_link'"),
    ]
    for call, pattern in cases:
        with pytest.raises(KeyError) as info:
            call()
        assert isinstance(info.value, ad.NameNotFound)
        assert info.match(pattern)
    with pytest.raises(IndexError, match=r"body index 7 out of range 0\.\.2"):
        m.body_id(7)


# --- state arguments ------------------------------------------------------------------------


def test_wrong_sizes_name_the_argument_and_nq_nv():
    m = floating("x")
    q, v = ad.neutral(m), np.zeros(m.nv)
    assert (m.nq, m.nv) == (12, 10)
    with pytest.raises(ad.ShapeError, match=r"^q has 11 entries, model 'x' needs nq = 12 \(one state of shape \(12,\)"):
        ad.jacobian(m, q[:-1], "shin")
    with pytest.raises(ad.ShapeError, match=r"^v has 9 entries, model 'x' needs nv = 10"):
        ad.frame_velocity(m, q, v[:-1], "shin")
    with pytest.raises(ad.ShapeError, match=r"^a has 3 entries, model 'x' needs nv = 10"):
        ad.frame_acceleration(m, q, v, [0, 0, 0], "shin")
    with pytest.raises(ad.ShapeError, match=r"q has 10 entries.*nq = 12.*a velocity passed as a configuration"):
        ad.center_of_mass(m, v)
    with pytest.raises(ad.ShapeError, match=r"v has 12 entries.*nv = 10.*a configuration passed as a velocity"):
        ad.integrate(m, q, q)
    with pytest.raises(ad.ShapeError, match=r"got shape \(2, 3, 12\)"):
        ad.body_placements(m, np.zeros((2, 3, 12)))
    with pytest.raises(ad.ShapeError, match=r"q0 has 3 entries"):
        ad.difference(m, [0, 0, 1], q)
    with pytest.raises(ad.ShapeError, match=r"batch sizes do not match.*q has 3 states, v has 2 states"):
        ad.com_velocity(m, np.tile(q, (3, 1)), np.zeros((2, m.nv)))
    with pytest.raises(ad.ShapeError, match=r"batch sizes do not match.*q has 3 states, v has 2 states"):
        ad.integrate(m, np.tile(q, (3, 1)), np.zeros((2, m.nv)))
    with pytest.raises(ad.ShapeError, match=r"batch sizes do not match.*q0 has 2 states, q1 has 3 states"):
        ad.difference(m, np.tile(q, (2, 1)), np.tile(q, (3, 1)))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_states(bad):
    m = floating("x")
    q, v = ad.neutral(m), np.zeros(m.nv)
    qb = q.copy()
    qb[1] = bad
    with pytest.raises(ad.InputError, match=r"^q contains NaN or infinite values \(first at state 0, entry 1\) for model 'x'"):
        ad.body_placements(m, qb)
    vb = np.zeros((3, m.nv))
    vb[2, 4] = bad
    with pytest.raises(ad.InputError, match=r"^v contains NaN or infinite values \(first at state 2, entry 4\)"):
        ad.body_velocities(m, q, vb)
    with pytest.raises(ad.InputError, match=r"^a contains NaN"):
        ad.frame_acceleration(m, q, v, vb[2], "shin")
    with pytest.raises(ad.InputError, match=r"^v contains NaN"):
        ad.integrate(m, q, vb)
    with pytest.raises(ad.InputError, match=r"point must be 3 finite coordinates in frame 'shin'"):
        ad.jacobian(m, q, "shin", point=[0, bad, 0])


def test_non_numeric_state():
    m = floating("x")
    with pytest.raises(ad.InputError, match=r"^q: cannot convert to numbers"):
        ad.body_placements(m, ["a"] * m.nq)


def test_quaternion_normalised_within_tolerance():
    m = floating("x")
    q = ad.random_configuration(m, 2)
    q_off = q.copy()
    q_off[3:7] *= 1 + 5e-7
    q_off[m.q_slice("hip_ball")] *= 1 - 5e-7
    assert np.allclose(ad.body_placements(m, q_off), ad.body_placements(m, q), atol=1e-15)
    assert np.allclose(ad.integrate(m, q_off, np.zeros(m.nv)), q, atol=1e-15)


def test_unnormalised_quaternion_is_refused_naming_the_joint():
    m = floating("x")
    q = ad.random_configuration(m, 2)
    q_bad = q.copy()
    q_bad[3:7] *= 1.01
    with pytest.raises(ad.InputError, match=r"^q\[3:7\] \(joint 'root_joint'\) is not a unit quaternion \(x, y, z, w\): "
                                            r"norm 1\.01, allowed 1 \+/- 1e-06"):
        ad.jacobian(m, q_bad, "shin")
    Q = np.tile(q, (4, 1))
    Q[2, m.q_slice("hip_ball")] *= 0.9
    with pytest.raises(ad.InputError, match=r"q\[7:11\] \(joint 'hip_ball'\).*norm 0\.9 in state 2"):
        ad.center_of_mass(m, Q)
    q0 = q.copy()
    q0[m.q_slice("hip_ball")] = 0
    with pytest.raises(ad.InputError, match=r"joint 'hip_ball'\) is not a unit quaternion.*norm 0,"):
        ad.frame_placement(m, q0, "shin")
    with pytest.raises(ad.InputError, match=r"^q1\[3:7\] \(joint 'root_joint'\)"):
        ad.difference(m, q, q_bad)


def test_bad_options():
    m = floating("x")
    q, v = ad.neutral(m), np.zeros(m.nv)
    with pytest.raises(ad.InputError, match=r"expressed must be 'world' or 'local', got 'body'"):
        ad.jacobian(m, q, "shin", expressed="body")
    with pytest.raises(ad.InputError, match=r"expressed must be 'world' or 'local', got 'LOCAL'"):
        ad.frame_velocity(m, q, v, "shin", expressed="LOCAL")
    with pytest.raises(ad.InputError, match=r"kind must be 'spatial' or 'classical', got 'linear'"):
        ad.frame_acceleration(m, q, v, v, "shin", kind="linear")
    with pytest.raises(ad.InputError, match=r"expressed must be 'world' or 'local'"):
        ad.jacobian_derivative(m, q, v, "shin", expressed="pinocchio")


def test_center_of_mass_without_moving_mass():
    m = ad.ModelBuilder("empty").build()
    with pytest.raises(ad.ModelError, match=r"model 'empty' has no moving mass"):
        ad.center_of_mass(m, np.zeros(0))


def test_errors_are_value_errors():
    """Callers that catch ValueError (or KeyError for names) keep working."""
    for cls in (ad.ModelError, ad.ShapeError, ad.InputError, ad.ParseError):
        assert issubclass(cls, ValueError) and issubclass(cls, ad.ArtidynError)
    assert issubclass(ad.NameNotFound, KeyError)
