"""Kinematics: placements, frame velocities and accelerations, Jacobians, Jdot, centre of mass.

Checked against finite differences along ``integrate`` (the only correct way to move on q),
complex-step derivatives, an analytic planar 2R arm, batch == loop, and pinocchio on real robots.
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.spatial.rotations import log3, rotz

LABELS = ["chain_rev7", "chain_mixed6", "tree_8", "tree_sph_5", "floating_tree_6", "floating_chain_3"]
H = 1e-6  # central-difference step: truncation ~ H^2, round-off ~ 1e-16 / H
FD_TOL = 2e-7


@pytest.fixture(params=range(len(LABELS)), ids=LABELS)
def model(request, zoo):
    label, m = zoo[request.param]
    assert label == LABELS[request.param]
    return m


def states(model, n=3, seed=7):
    rng = np.random.default_rng(seed)
    return (ad.random_configuration(model, rng, size=n), ad.random_velocity(model, rng, size=n),
            ad.random_velocity(model, rng, size=n))


def frames_of(model):
    """A body frame, a lumped fixed body ("link") and an operational frame ("op")."""
    return [model.body_names[model.nb], "tool", "tcp"]


def fd_twist_world(model, q, v, frame):
    """[omega; v_O] in world axes by central differences of the frame placement along integrate."""
    Tp = ad.frame_placement(model, ad.integrate(model, q, H * v), frame)
    Tm = ad.frame_placement(model, ad.integrate(model, q, -H * v), frame)
    T0 = ad.frame_placement(model, q, frame)
    Rt = np.swapaxes(T0[..., :3, :3], -1, -2)
    w = (log3(Tp[..., :3, :3] @ Rt) - log3(Tm[..., :3, :3] @ Rt)) / (2 * H)
    return np.concatenate([w, (Tp[..., :3, 3] - Tm[..., :3, 3]) / (2 * H)], -1)


def rot_local(R, x):
    """diag(R^T, R^T) applied to [angular; linear] rows (vectors (6,) or matrices (6, n))."""
    Rt = R.T
    return np.concatenate([Rt @ x[:3], Rt @ x[3:]])


# --- first order ---------------------------------------------------------------------------


def test_jacobian_columns_match_finite_differences(model):
    Q, _, _ = states(model)
    E = np.eye(model.nv)
    for q in Q:
        for frame in frames_of(model):
            J = ad.jacobian(model, q, frame)
            J_fd = fd_twist_world(model, q, E, frame).T  # every column at once (a batch of v)
            assert np.allclose(J, J_fd, atol=FD_TOL), frame


def test_jacobian_complex_step(zoo):
    """Revolute/prismatic chains run on complex128: J[:, k] = Im(X(q + i h e_k)) / h exactly."""
    for label, model in zoo[:2]:
        assert model.nq == model.nv
        q = ad.random_configuration(model, 3)
        h = 1e-30
        Qc = q + 1j * h * np.eye(model.nv)
        T = ad.frame_placement(model, Qc, "tcp")  # (nv, 4, 4) complex
        R = ad.frame_placement(model, q, "tcp")[:3, :3]
        dR = T.imag[:, :3, :3] / h  # d R / dq_k = [w_k] R
        W = dR @ R.T
        w = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], -1)
        J_cs = np.concatenate([w, T.imag[:, :3, 3] / h], -1).T
        assert np.allclose(ad.jacobian(model, q, "tcp"), J_cs, atol=1e-12, rtol=0), label


def test_frame_velocity_equals_J_v(model):
    Q, V, _ = states(model)
    for frame in frames_of(model):
        for expressed in ("world", "local"):
            J = ad.jacobian(model, Q, frame, expressed)
            Jv = np.einsum("nij,nj->ni", J, V)
            assert np.allclose(ad.frame_velocity(model, Q, V, frame, expressed), Jv, atol=1e-12)


def test_frame_velocity_matches_finite_differences(model):
    Q, V, _ = states(model)
    for q, v in zip(Q, V):
        got = ad.frame_velocity(model, q, v, "tcp")
        assert np.allclose(got, fd_twist_world(model, q, v, "tcp"), atol=FD_TOL)


def test_world_and_local_agree(model):
    Q, V, A = states(model)
    for q, v, a in zip(Q, V, A):
        for frame in frames_of(model):
            R = ad.frame_placement(model, q, frame)[:3, :3]
            Jw, Jl = ad.jacobian(model, q, frame), ad.jacobian(model, q, frame, "local")
            assert np.allclose(rot_local(R, Jw), Jl, atol=1e-12)
            for kind in ("spatial", "classical"):
                aw = ad.frame_acceleration(model, q, v, a, frame, "world", kind)
                al = ad.frame_acceleration(model, q, v, a, frame, "local", kind)
                assert np.allclose(rot_local(R, aw), al, atol=1e-10)


def test_point_option(model):
    """J(point) moves the linear rows to the point: v_P = v_O + omega x (R p); FD of the point."""
    Q, V, _ = states(model)
    p = np.array([0.1, -0.2, 0.3])
    for q, v in zip(Q, V):
        T = ad.frame_placement(model, q, "tcp")
        J, Jp = ad.jacobian(model, q, "tcp"), ad.jacobian(model, q, "tcp", point=p)
        r = T[:3, :3] @ p
        assert np.allclose(Jp[:3], J[:3], atol=1e-14)
        assert np.allclose(Jp[3:], J[3:] - np.cross(r, J[:3].T).T, atol=1e-12)
        xp = ad.frame_placement(model, ad.integrate(model, q, H * v), "tcp")
        xm = ad.frame_placement(model, ad.integrate(model, q, -H * v), "tcp")
        v_fd = ((xp[:3, :3] @ p + xp[:3, 3]) - (xm[:3, :3] @ p + xm[:3, 3])) / (2 * H)
        assert np.allclose(Jp[3:] @ v, v_fd, atol=FD_TOL)
        assert np.allclose(ad.frame_velocity(model, q, v, "tcp", point=p), Jp @ v, atol=1e-12)
        Jpl = ad.jacobian(model, q, "tcp", "local", point=p)
        assert np.allclose(rot_local(T[:3, :3], Jp), Jpl, atol=1e-12)


def test_body_velocities_are_body_frame_twists(model):
    Q, V, _ = states(model)
    vb = ad.body_velocities(model, Q, V)
    assert vb.shape == (len(Q), model.nb + 1, 6) and np.all(vb[:, 0] == 0)
    for i in range(1, model.nb + 1):
        Jl = ad.jacobian(model, Q, model.body_names[i], "local")
        assert np.allclose(vb[:, i], np.einsum("nij,nj->ni", Jl, V), atol=1e-12)


def test_floating_base_velocity_is_v_root(zoo):
    """The base twist is v[0:6] = [omega_body, v_body] (the convention of integrate)."""
    for label, model in zoo[4:]:
        Q, V, _ = states(model)
        assert np.allclose(ad.frame_velocity(model, Q, V, "base", "local"), V[:, :6], atol=1e-14)


# --- second order --------------------------------------------------------------------------


def velocity_fd(model, q, v, a, frame, expressed):
    """d/dt of the frame velocity along q(t) = q (+) (v t + a t^2 / 2), v(t) = v + a t."""
    qp = ad.integrate(model, q, H * v + 0.5 * H * H * a)
    qm = ad.integrate(model, q, -H * v + 0.5 * H * H * a)
    Vp = ad.frame_velocity(model, qp, v + H * a, frame, expressed)
    Vm = ad.frame_velocity(model, qm, v - H * a, frame, expressed)
    return (Vp - Vm) / (2 * H)


def test_frame_acceleration_matches_finite_differences(model):
    """World axes: d/dt of [omega; v_O] is the classical acceleration; local axes: the spatial one."""
    Q, V, A = states(model)
    for q, v, a in zip(Q, V, A):
        for frame in frames_of(model):
            cw = ad.frame_acceleration(model, q, v, a, frame, "world", "classical")
            sl = ad.frame_acceleration(model, q, v, a, frame, "local", "spatial")
            assert np.allclose(cw, velocity_fd(model, q, v, a, frame, "world"), atol=1e-6)
            assert np.allclose(sl, velocity_fd(model, q, v, a, frame, "local"), atol=1e-6)
            # classical = spatial + [0; omega x v_O] (same axes)
            w = ad.frame_velocity(model, q, v, frame, "local")
            cl = ad.frame_acceleration(model, q, v, a, frame, "local", "classical")
            assert np.allclose(cl[3:] - sl[3:], np.cross(w[:3], w[3:]), atol=1e-12)
            assert np.allclose(cl[:3], sl[:3], atol=1e-14)


def test_jacobian_derivative_matches_finite_differences(model):
    Q, V, _ = states(model)
    for q, v in zip(Q, V):
        qp, qm = ad.integrate(model, q, H * v), ad.integrate(model, q, -H * v)
        for frame in ("tcp", model.body_names[model.nb]):
            for expressed in ("world", "local"):
                Jd_fd = (ad.jacobian(model, qp, frame, expressed) - ad.jacobian(model, qm, frame, expressed)) / (2 * H)
                Jd = ad.jacobian_derivative(model, q, v, frame, expressed)
                assert np.allclose(Jd, Jd_fd, atol=1e-6), (frame, expressed)


def test_bias_is_Jdot_v_and_acceleration_is_J_a_plus_bias(model):
    Q, V, A = states(model)
    for frame in frames_of(model):
        for expressed, kind in (("world", "classical"), ("local", "spatial")):
            Jd = ad.jacobian_derivative(model, Q, V, frame, expressed)
            b = ad.jacobian_bias(model, Q, V, frame, expressed)
            assert np.allclose(np.einsum("nij,nj->ni", Jd, V), b, atol=1e-10)
            J = ad.jacobian(model, Q, frame, expressed)
            acc = ad.frame_acceleration(model, Q, V, A, frame, expressed, kind)
            assert np.allclose(acc, np.einsum("nij,nj->ni", J, A) + b, atol=1e-10)


def test_point_option_second_order(model):
    Q, V, _ = states(model)
    p = np.array([0.05, 0.1, -0.2])
    q, v = Q[0], V[0]
    qp, qm = ad.integrate(model, q, H * v), ad.integrate(model, q, -H * v)
    Jd_fd = (ad.jacobian(model, qp, "tcp", point=p) - ad.jacobian(model, qm, "tcp", point=p)) / (2 * H)
    Jd = ad.jacobian_derivative(model, q, v, "tcp", point=p)
    assert np.allclose(Jd, Jd_fd, atol=1e-6)
    assert np.allclose(Jd @ v, ad.jacobian_bias(model, q, v, "tcp", point=p), atol=1e-10)


def planar_2r(l1=0.7, l2=0.4):
    b = ad.ModelBuilder("2r")
    I = np.diag([1e-3, 1e-3, 1e-3])
    b.add_body("l1", "world", "revolute", axis=(0, 0, 1), mass=1.0, inertia=I)
    b.add_body("l2", "l1", "revolute", axis=(0, 0, 1), xyz=(l1, 0, 0), mass=1.0, inertia=I)
    b.add_frame("tip", "l2", xyz=(l2, 0, 0))
    return b.build()


def test_planar_2r_analytic():
    """Tip of a planar 2R arm: x = l1 c1 + l2 c12, y = l1 s1 + l2 s12, differentiated by hand."""
    l1, l2 = 0.7, 0.4
    m = planar_2r(l1, l2)
    q, v, a = np.array([0.3, -1.1]), np.array([0.8, 1.7]), np.array([-0.4, 2.3])
    t1, t12 = q[0], q[0] + q[1]
    w1, w12 = v[0], v[0] + v[1]
    al1, al12 = a[0], a[0] + a[1]
    vel = np.array([-l1 * np.sin(t1) * w1 - l2 * np.sin(t12) * w12, l1 * np.cos(t1) * w1 + l2 * np.cos(t12) * w12])
    acc = np.array([
        -l1 * (np.cos(t1) * w1**2 + np.sin(t1) * al1) - l2 * (np.cos(t12) * w12**2 + np.sin(t12) * al12),
        -l1 * (np.sin(t1) * w1**2 - np.cos(t1) * al1) - l2 * (np.sin(t12) * w12**2 - np.cos(t12) * al12)])
    tw = ad.frame_velocity(m, q, v, "tip")
    assert np.allclose(tw, [0, 0, w12, vel[0], vel[1], 0], atol=1e-14)
    ac = ad.frame_acceleration(m, q, v, a, "tip", kind="classical")
    assert np.allclose(ac, [0, 0, al12, acc[0], acc[1], 0], atol=1e-13)
    # at a = 0 the tip accelerates centripetally only: the bias
    b = ad.jacobian_bias(m, q, v, "tip")
    cen = -np.array([l1 * np.cos(t1) * w1**2 + l2 * np.cos(t12) * w12**2,
                     l1 * np.sin(t1) * w1**2 + l2 * np.sin(t12) * w12**2])
    assert np.allclose(b, [0, 0, 0, cen[0], cen[1], 0], atol=1e-14)
    # centre of mass: the bodies' centres are at their origins, mass 1 each
    c = ad.center_of_mass(m, q)
    assert np.allclose(c, [l1 * np.cos(t1) / 2, l1 * np.sin(t1) / 2, 0], atol=1e-15)


def test_symbolic_jacobian_derivative_equals_sympy_diff():
    """The reference code runs on SymPy objects: Jdot = sum_k dJ/dq_k v_k, differentiated by SymPy."""
    sp = pytest.importorskip("sympy")
    m = planar_2r(0.7, 0.4)
    qs, vs = sp.symbols("q1 q2"), sp.symbols("v1 v2")
    q, v = np.array(qs, dtype=object), np.array(vs, dtype=object)
    J = sp.Matrix(ad.jacobian(m, q, "tip", "local"))
    Jd = sp.Matrix(ad.jacobian_derivative(m, q, v, "tip", "local"))
    by_hand = sum((J.diff(qk) * vk for qk, vk in zip(qs, vs)), sp.zeros(6, 2))
    for x in np.random.default_rng(0).uniform(-3, 3, size=(3, 4)):  # identically equal: test at points
        at = dict(zip(qs + vs, x))
        ours = np.array(Jd.xreplace(at), dtype=float)
        assert np.allclose(ours, np.array(by_hand.xreplace(at), dtype=float), atol=1e-13, rtol=0)
        assert np.allclose(ours, ad.jacobian_derivative(m, x[:2], x[2:], "tip", "local"), atol=1e-13, rtol=0)


# --- centre of mass -----------------------------------------------------------------------


def test_center_of_mass_is_mass_weighted_body_centres(model):
    Q, _, _ = states(model)
    T = ad.body_placements(model, Q)
    c = sum(model.mass[i] * (T[:, i, :3, :3] @ model.com[i] + T[:, i, :3, 3]) for i in range(1, model.nb + 1))
    assert np.allclose(ad.center_of_mass(model, Q), c / model.total_mass, atol=1e-13)


def test_com_jacobian_velocity_acceleration(model):
    Q, V, A = states(model)
    Jc = ad.com_jacobian(model, Q)
    assert Jc.shape == (len(Q), 3, model.nv)
    assert np.allclose(np.einsum("nij,nj->ni", Jc, V), ad.com_velocity(model, Q, V), atol=1e-12)
    for q, v, a, J in zip(Q, V, A, Jc):
        E = np.eye(model.nv)
        cp = ad.center_of_mass(model, ad.integrate(model, q, H * E))
        cm = ad.center_of_mass(model, ad.integrate(model, q, -H * E))
        assert np.allclose(J, ((cp - cm) / (2 * H)).T, atol=FD_TOL)
        qp = ad.integrate(model, q, H * v + 0.5 * H * H * a)
        qm = ad.integrate(model, q, -H * v + 0.5 * H * H * a)
        acc_fd = (ad.com_velocity(model, qp, v + H * a) - ad.com_velocity(model, qm, v - H * a)) / (2 * H)
        assert np.allclose(ad.com_acceleration(model, q, v, a), acc_fd, atol=1e-6)


def test_com_is_independent_of_base_placement(zoo):
    """Moving a floating base by T moves the centre of mass by T (and its Jacobian rows by R)."""
    label, model = zoo[5]
    q = ad.random_configuration(model, 4)
    q2 = q.copy()
    R = rotz(0.7)
    from artidyn.spatial.rotations import matrix_to_quat, quat_to_matrix
    q2[:3] = R @ q[:3] + [1, 2, 3]
    q2[3:7] = matrix_to_quat(R @ quat_to_matrix(q[3:7]))
    assert np.allclose(ad.center_of_mass(model, q2), R @ ad.center_of_mass(model, q) + [1, 2, 3], atol=1e-13)
    assert np.allclose(ad.com_jacobian(model, q2), R @ ad.com_jacobian(model, q), atol=1e-13)


# --- batches --------------------------------------------------------------------------------


def test_batch_equals_loop(model):
    Q, V, A = states(model, n=4)
    frame = "tcp"
    calls = {
        "body_placements": lambda q, v, a: ad.body_placements(model, q),
        "frame_placement": lambda q, v, a: ad.frame_placement(model, q, frame),
        "jacobian": lambda q, v, a: ad.jacobian(model, q, frame, "local", point=[0.1, 0, 0]),
        "body_velocities": lambda q, v, a: ad.body_velocities(model, q, v),
        "body_accelerations": lambda q, v, a: ad.body_accelerations(model, q, v, a),
        "frame_velocity": lambda q, v, a: ad.frame_velocity(model, q, v, frame),
        "frame_acceleration": lambda q, v, a: ad.frame_acceleration(model, q, v, a, frame, kind="classical"),
        "jacobian_bias": lambda q, v, a: ad.jacobian_bias(model, q, v, frame, "local"),
        "jacobian_derivative": lambda q, v, a: ad.jacobian_derivative(model, q, v, frame),
        "center_of_mass": lambda q, v, a: ad.center_of_mass(model, q),
        "com_velocity": lambda q, v, a: ad.com_velocity(model, q, v),
        "com_acceleration": lambda q, v, a: ad.com_acceleration(model, q, v, a),
        "com_jacobian": lambda q, v, a: ad.com_jacobian(model, q),
    }
    for name, f in calls.items():
        batch = f(Q, V, A)
        loop = np.stack([f(q, v, a) for q, v, a in zip(Q, V, A)])
        assert batch.shape == loop.shape and batch.shape[0] == len(Q), name
        assert np.allclose(batch, loop, atol=1e-13, rtol=0), name


def test_one_configuration_many_velocities(model):
    """A single q broadcasts against a batch of v (and the result is batched)."""
    Q, V, _ = states(model, n=3)
    got = ad.frame_velocity(model, Q[0], V, "tcp")
    assert got.shape == (3, 6)
    assert np.allclose(got, (ad.jacobian(model, Q[0], "tcp") @ V.T).T, atol=1e-13)


# --- pinocchio as a peer ---------------------------------------------------------------------

ROBOTS = {  # URDF stem: (floating base, frames compared)
    "ur5_robot": (False, ["tool0", "ee_link", "wrist_3_link"]),
    "panda": (False, ["panda_hand_tcp", "panda_link7", "panda_leftfinger"]),
    "solo12": (True, ["FL_FOOT", "HR_FOOT", "base_link"]),
}
PIN_TOL = 1e-10


@pytest.fixture(scope="module", params=list(ROBOTS), ids=list(ROBOTS))
def robot(request):
    pytest.importorskip("pinocchio")
    from conftest import erd_urdf
    import pin_utils
    floating, frames = ROBOTS[request.param]
    path = erd_urdf(request.param)
    model = ad.load_urdf(path, floating_base=floating)
    pm = pin_utils.pin_model(path, floating)
    return model, pm, frames


def pin_kinematics(model, pm, q, v, a):
    """pinocchio's data after forward kinematics (order 2), Jacobians and their variation."""
    import pinocchio as pin
    import pin_utils as pu
    pd = pm.createData()
    qp, vp, ap = pu.to_pin_q(model, pm, q), pu.to_pin_v(model, pm, v), pu.to_pin_v(model, pm, a)
    pin.forwardKinematics(pm, pd, qp, vp, ap)
    pin.updateFramePlacements(pm, pd)
    pin.computeJointJacobians(pm, pd, qp)
    pin.computeJointJacobiansTimeVariation(pm, pd, qp, vp)
    return pd, qp, vp, ap


def test_frames_match_pinocchio(robot):
    """Placement, velocity, spatial and classical acceleration, J and Jdot of link frames, in
    world-aligned (LOCAL_WORLD_ALIGNED) and local (LOCAL) axes."""
    import pinocchio as pin
    import pin_utils as pu
    model, pm, frames = robot
    fid = pu.pin_body_frames(pm)
    Q, V, A = states(model, n=3, seed=5)
    for q, v, a in zip(Q, V, A):
        pd, *_ = pin_kinematics(model, pm, q, v, a)
        for name in frames:
            k = fid[name]
            assert np.allclose(pd.oMf[k].homogeneous, ad.frame_placement(model, q, name), atol=PIN_TOL, rtol=0)
            for rf, expressed in ((pin.LOCAL_WORLD_ALIGNED, "world"), (pin.LOCAL, "local")):
                peer = {
                    "velocity": pu.from_pin_spatial(pin.getFrameVelocity(pm, pd, k, rf).vector),
                    "spatial": pu.from_pin_spatial(pin.getFrameAcceleration(pm, pd, k, rf).vector),
                    "classical": pu.from_pin_spatial(pin.getFrameClassicalAcceleration(pm, pd, k, rf).vector),
                    "J": pu.from_pin_jacobian(model, pm, pin.getFrameJacobian(pm, pd, k, rf)),
                    "Jdot": pu.from_pin_jacobian(model, pm, pin.getFrameJacobianTimeVariation(pm, pd, k, rf)),
                }
                ours = {
                    "velocity": ad.frame_velocity(model, q, v, name, expressed),
                    "spatial": ad.frame_acceleration(model, q, v, a, name, expressed, "spatial"),
                    "classical": ad.frame_acceleration(model, q, v, a, name, expressed, "classical"),
                    "J": ad.jacobian(model, q, name, expressed),
                    "Jdot": ad.jacobian_derivative(model, q, v, name, expressed),
                }
                for key in peer:
                    assert np.allclose(ours[key], peer[key], atol=PIN_TOL, rtol=0), (name, expressed, key)


def test_center_of_mass_matches_pinocchio(robot):
    """com, its velocity, acceleration and Jacobian; pinocchio also leaves out the world's lumped links."""
    import pinocchio as pin
    import pin_utils as pu
    model, pm, _ = robot
    Q, V, A = states(model, n=3, seed=6)
    inv = np.argsort(pu.v_permutation(model, pm))
    for q, v, a in zip(Q, V, A):
        pd, qp, vp, ap = pin_kinematics(model, pm, q, v, a)
        c = pin.centerOfMass(pm, pd, qp, vp, ap)
        assert np.isclose(pd.mass[0], model.total_mass, rtol=1e-14, atol=0)
        assert np.allclose(ad.center_of_mass(model, q), c, atol=PIN_TOL, rtol=0)
        assert np.allclose(ad.com_velocity(model, q, v), pd.vcom[0], atol=PIN_TOL, rtol=0)
        assert np.allclose(ad.com_acceleration(model, q, v, a), pd.acom[0], atol=PIN_TOL, rtol=0)
        Jc = pin.jacobianCenterOfMass(pm, pd, qp)
        assert np.allclose(ad.com_jacobian(model, q), Jc[:, inv], atol=PIN_TOL, rtol=0)


def test_zoo_matches_pinocchio(zoo):
    """Spherical joints, trees and floating bases: the zoo rebuilt in pinocchio (tests/pin_build.py)."""
    pin = pytest.importorskip("pinocchio")
    from pin_build import pin_from_artidyn, v_to_pin
    for label, model in zoo:
        pm = pin_from_artidyn(model)
        f = model.frame("tcp")
        k = pm.addFrame(pin.Frame("tcp", int(f.body), pin.SE3(f.placement[:3, :3].copy(), f.placement[:3, 3].copy()),
                                  pin.FrameType.OP_FRAME))
        pd = pm.createData()
        Q, V, A = states(model, n=2, seed=8)
        for q, v, a in zip(Q, V, A):
            vp = v_to_pin(model, v)
            pin.forwardKinematics(pm, pd, q, vp, v_to_pin(model, a))
            pin.updateFramePlacements(pm, pd)
            pin.computeJointJacobiansTimeVariation(pm, pd, q, vp)
            for rf, expressed in ((pin.LOCAL_WORLD_ALIGNED, "world"), (pin.LOCAL, "local")):
                cl = np.concatenate([pin.getFrameClassicalAcceleration(pm, pd, k, rf).angular,
                                     pin.getFrameClassicalAcceleration(pm, pd, k, rf).linear])
                assert np.allclose(ad.frame_acceleration(model, q, v, a, "tcp", expressed, "classical"), cl,
                                   atol=PIN_TOL, rtol=0), (label, expressed)
                Jd = pin.getFrameJacobianTimeVariation(pm, pd, k, rf)
                P = v_to_pin(model, np.arange(model.nv)).astype(int)  # v_pin = v[P]: columns likewise
                ours = ad.jacobian_derivative(model, q, v, "tcp", expressed)[:, P]
                assert np.allclose(ours, np.concatenate([Jd[3:], Jd[:3]]), atol=PIN_TOL, rtol=0), (label, expressed)
            c = pin.centerOfMass(pm, pd, q, vp, v_to_pin(model, a))
            assert np.allclose(ad.center_of_mass(model, q), c, atol=PIN_TOL, rtol=0), label
            assert np.allclose(ad.com_acceleration(model, q, v, a), pd.acom[0], atol=PIN_TOL, rtol=0), label
