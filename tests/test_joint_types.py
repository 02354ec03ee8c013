"""Planar, helical (screw) and universal joints, and URDF ``<mimic>`` as reduced coordinates.

Oracles: pinocchio's own JointModelPlanar, JointModelHelicalUnaligned and JointModelUniversal on
the same trees (placements, Jacobians, rnea, crba, aba; the planar joint's velocity is converted,
pinocchio's being in the body frame), finite differences of the placements, the readable
reference algorithms against the compiled kernels, the constraint route (a Coupling) against
the reduced coordinates for a mimic gripper, and energy conservation in simulation.
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import InputError, ModelError
from artidyn.joints import HELICAL, joint_transform, motion_subspace, pitch_of, plane_axes
from artidyn.kernels import reference_only
from artidyn.models.zoo import _random_axis, _random_inertia
from artidyn.spatial.rotations import axis_angle_to_matrix, exp3

pin = pytest.importorskip("pinocchio")


def _orthonormal_pair(rng):
    a = _random_axis(rng)
    b = np.cross(a, _random_axis(rng))
    return a, b / np.linalg.norm(b)


def twin(kind, seed, normal=None):
    """(artidyn model, pinocchio model, planar info) for a chain revolute - ``kind`` - revolute -
    prismatic with random placements, axes and inertias; planar info: (pin joint id, v index)
    of the planar joint or None."""
    rng = np.random.default_rng(seed)
    b = ad.ModelBuilder(f"twin_{kind}")
    pm = pin.Model()
    pm.gravity.linear = np.array([0.0, 0.0, -9.81])
    parent, pid, Bp = "world", 0, np.eye(4)   # Bp: artidyn body frame in pinocchio's joint frame
    planar = None
    for k, jk in enumerate(("revolute", kind, "revolute", "prismatic")):
        name = f"b{k + 1}"
        m, c, I = _random_inertia(rng)
        P = np.eye(4)
        P[:3, :3], P[:3, 3] = exp3(rng.normal(size=3)), rng.uniform(-0.3, 0.3, 3)
        kw = dict(mass=m, com=c, inertia=I, placement=P)
        Bj = np.eye(4)
        if jk == "revolute" or jk == "prismatic":
            ax = _random_axis(rng)
            b.add_body(name, parent, jk, axis=ax, **kw)
            jm = (pin.JointModelRevoluteUnaligned if jk == "revolute" else pin.JointModelPrismaticUnaligned)(ax)
        elif jk == "helical":
            ax, p = _random_axis(rng), rng.uniform(-0.5, 0.5)
            b.add_body(name, parent, "helical", axis=ax, pitch=p, **kw)
            jm = pin.JointModelHelicalUnaligned(ax, p)
        elif jk == "universal":
            a1, a2 = _orthonormal_pair(rng)
            b.add_body(name, parent, "universal", axes=(a1, a2), **kw)
            jm = pin.JointModelUniversal(a1, a2)
        else:  # planar: pinocchio's plane is its joint frame's xy; ours has normal n, axes e1, e2
            n = _random_axis(rng) if normal is None else np.asarray(normal, dtype=float)
            b.add_body(name, parent, "planar", axis=n, **kw)
            e1, e2 = plane_axes(n)
            Bj[:3, :3] = np.column_stack([e1, e2, n]).T
            jm = pin.JointModelPlanar()
        Tp = Bp @ P @ np.linalg.inv(Bj)  # pinocchio joint placement in its parent joint frame
        jid = pm.addJoint(pid, jm, pin.SE3(Tp[:3, :3].copy(), Tp[:3, 3].copy()), name)
        pm.appendBodyToJoint(jid, pin.Inertia(float(m), c.copy(), I.copy()),
                             pin.SE3(Bj[:3, :3].copy(), Bj[:3, 3].copy()))
        if jk == "planar":
            planar = jid
        parent, pid, Bp = name, jid, Bj
    model = b.build()
    return model, pm, planar


def pin_state(model, pm, planar, q, v, a=None):
    """pinocchio's (q, v, a) of ours and G with v_pin = G v (planar: v_pin = [R^T xy_dot, th_dot])."""
    G, Gd = np.eye(model.nv), np.zeros((model.nv, model.nv))
    if planar is None:
        return q.copy(), v.copy(), None if a is None else a.copy(), G
    k = int(model.idx_v[model.body_id("b2__x")])   # our q: [x, y, theta] at k; pinocchio: [x, y, c, s]
    th, thd = q[k + 2], v[k + 2]
    c, s = np.cos(th), np.sin(th)
    G[k:k + 2, k:k + 2] = [[c, s], [-s, c]]
    Gd[k:k + 2, k:k + 2] = thd * np.array([[-s, c], [-c, -s]])
    qp = np.concatenate([q[:k + 2], [c, s], q[k + 3:]])
    return qp, G @ v, None if a is None else G @ a + Gd @ v, G


def _pin_twin_checks(model, pm, planar, rng):
    pd = pm.createData()
    assert pm.nv == model.nv
    for _ in range(3):
        q = ad.random_configuration(model, rng)
        v, a, tau = rng.normal(size=(3, model.nv))
        qp, vp, ap, G = pin_state(model, pm, planar, q, v, a)
        pin.forwardKinematics(pm, pd, qp)
        pin.computeJointJacobians(pm, pd, qp)
        T = ad.body_placements(model, q)
        for jid in range(1, pm.njoints):
            name = pm.names[jid]
            i = model.body_id(name)
            Bj = np.eye(4)
            if jid == planar:
                e1, e2 = plane_axes(model.joint_axis[i])
                Bj[:3, :3] = np.column_stack([e1, e2, model.joint_axis[i]]).T
            assert np.abs(T[i] - pd.oMi[jid].homogeneous @ Bj).max() < 1e-12
            Jp = pin.getJointJacobian(pm, pd, jid, pin.LOCAL_WORLD_ALIGNED)
            assert np.abs(ad.jacobian(model, q, name) - np.vstack([Jp[3:], Jp[:3]]) @ G).max() < 1e-11
        assert np.abs(ad.rnea(model, q, v, a) - G.T @ pin.rnea(pm, pd, qp, vp, ap)).max() < 1e-10
        Mp = pin.crba(pm, pd, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        assert np.abs(ad.crba(model, q) - G.T @ Mp @ G).max() < 1e-10
        a_pin = pin.aba(pm, pd, qp, vp, np.linalg.solve(G.T, tau))
        a_ours = ad.aba(model, q, v, tau)
        _, _, ap2, _ = pin_state(model, pm, planar, q, v, a_ours)
        assert np.abs(ap2 - a_pin).max() < 1e-9
        assert ad.kinetic_energy(model, q, v) == pytest.approx(pin.computeKineticEnergy(pm, pd, qp, vp), rel=1e-12)


@pytest.mark.parametrize("kind", ["planar", "helical", "universal"])
@pytest.mark.parametrize("seed", [0, 1])
def test_against_pinocchio(kind, seed, rng):
    model, pm, planar = twin(kind, seed)
    assert model.nq == pm.nv and model.nv == pm.nv
    _pin_twin_checks(model, pm, planar, rng)
    with reference_only():
        _pin_twin_checks(model, pm, planar, rng)


def test_planar_with_the_z_normal_against_pinocchio(rng):
    model, pm, planar = twin("planar", 3, normal=(0.0, 0.0, 1.0))
    assert np.allclose(plane_axes((0, 0, 1)), np.eye(3)[:2])
    _pin_twin_checks(model, pm, planar, rng)


def test_helical_slide_is_pitch_times_angle(rng):
    a, p = _random_axis(rng), 0.37
    th = rng.uniform(-7, 7, 5)
    T = joint_transform(HELICAL, a, th[:, None], p)
    assert np.abs(T[:, :3, 3] - (p * th)[:, None] * a).max() < 1e-15
    assert np.abs(T[:, :3, :3] - axis_angle_to_matrix(a, th)).max() < 1e-15
    S = motion_subspace(HELICAL, a, p)
    assert S.shape == (6, 1) and pitch_of(HELICAL, S) == pytest.approx(p, abs=1e-15)
    b = ad.ModelBuilder("screw")
    b.add_body("nut", "world", "screw", axis=2.0 * a, pitch=p, mass=1.0, inertia=np.eye(3) * 0.01)
    m = b.build()
    assert (m.nq, m.nv, m.joint_kind[1]) == (1, 1, "helical") and pitch_of(m.joint_type[1], m.S[1]) == pytest.approx(p)
    for t in th:
        Tb = ad.body_placements(m, [t])[1]
        assert np.abs(Tb[:3, 3] - p * t * a).max() < 1e-14                       # d = p theta, kernels
        with reference_only():
            assert np.abs(ad.body_placements(m, [t])[1] - Tb).max() < 1e-14
    # a free screw: the nut turns and advances, M = I_axis + m p^2
    assert ad.crba(m, [0.3])[0, 0] == pytest.approx(0.01 + p * p, rel=1e-12)


def _mixed_model(rng):
    b = ad.ModelBuilder("mixed")
    specs = [("a", "world", "planar", dict(axis=_random_axis(rng))),
             ("h", "a", "helical", dict(axis=_random_axis(rng), pitch=0.2, damping=0.1, armature=0.02)),
             ("u", "h", "universal", dict(axes=_orthonormal_pair(rng))),
             ("h2", "u", "helical", dict(axis=(1.0, 0, 0), pitch=-0.1, stiffness=2.0, rest=0.1)),
             ("c", "a", "cylindrical", dict(axis=_random_axis(rng))),
             ("s", "c", "spherical", {})]
    for name, parent, kind, kw in specs:
        m, c, I = _random_inertia(rng)
        b.add_body(name, parent, kind, xyz=rng.uniform(-0.3, 0.3, 3), rpy=rng.uniform(-3, 3, 3),
                   mass=m, com=c, inertia=I, **kw)
    b.add_frame("tcp", "h2", xyz=(0.1, 0.0, 0.05))
    return b.build()


def test_kernels_equal_reference(rng):
    model = _mixed_model(rng)
    N = 5
    Q = ad.random_configuration(model, rng, size=N)
    V, A, Tau = rng.normal(size=(3, N, model.nv))
    fs = [lambda q, v, a, t: ad.rnea(model, q, v, a), lambda q, v, a, t: ad.aba(model, q, v, t),
          lambda q, v, a, t: ad.crba(model, q), lambda q, v, a, t: ad.body_placements(model, q),
          lambda q, v, a, t: ad.jacobian(model, q, "tcp"), lambda q, v, a, t: ad.jacobian(model, q, "tcp", "local"),
          lambda q, v, a, t: ad.frame_placement(model, q, "tcp")]
    for f in fs:
        fast = [f(Q[k], V[k], A[k], Tau[k]) for k in range(N)]
        batch = f(Q, V, A, Tau)
        with reference_only():
            ref = f(Q, V, A, Tau)
        tol = 1e-12 * max(1.0, np.abs(ref).max())
        assert np.abs(np.asarray(fast) - ref).max() < tol
        assert np.abs(batch - ref).max() < tol


def test_constrained_kernels_equal_reference_with_a_helical_joint(rng):
    model = _mixed_model(rng)
    q = ad.random_configuration(model, rng)
    v, tau = rng.normal(size=(2, model.nv))
    cons = [ad.constraints.Point("tcp", None, at=q), ad.constraints.Coupling("u_joint_1", "a_joint_theta", 0.5)]
    fast = ad.constraints.constrained_dynamics(model, q, v, tau, cons)
    with reference_only():
        ref = ad.constraints.constrained_dynamics(model, q, v, tau, cons)
    assert fast.status == "ok" and np.abs(fast.a - ref.a).max() < 1e-10 * max(1.0, np.abs(ref.a).max())


def test_jacobians_against_finite_differences(rng):
    model = _mixed_model(rng)
    q = ad.random_configuration(model, rng)
    with reference_only():
        J = ad.jacobian(model, q, "tcp")
        h = 1e-20
        # central differences along each velocity direction (through integrate for the ball joint)
        T0 = ad.frame_placement(model, q, "tcp")
        for k in range(model.nv):
            dv = np.zeros(model.nv)
            dv[k] = 1e-6
            Tp = ad.frame_placement(model, ad.integrate(model, q, dv), "tcp")
            Tm = ad.frame_placement(model, ad.integrate(model, q, -dv), "tcp")
            dR = (Tp[:3, :3] - Tm[:3, :3]) / 2e-6 @ T0[:3, :3].T
            col = np.concatenate([[dR[2, 1], dR[0, 2], dR[1, 0]], (Tp[:3, 3] - Tm[:3, 3]) / 2e-6])
            assert np.abs(col - J[:, k]).max() < 1e-7
        # complex step through a flat-joint chain (no quaternion): exact derivatives of rnea
        flat = [i for i in range(1, model.nb + 1) if model.nq_joint[i] == model.nv_joint[i]]
        v = rng.normal(size=model.nv)
        M = ad.crba(model, q)
        for i in flat[:4]:
            k = int(model.idx_v[i])
            qc = q.astype(complex)
            a = np.zeros(model.nv, dtype=complex)
            a[k] += 1j * h
            dtau = ad.rnea(model, qc, v.astype(complex) * 0, a, friction=False).imag / h
            assert np.abs(dtau - M[:, k]).max() < 1e-12


def test_configuration_and_builder_checks(rng):
    model = _mixed_model(rng)
    assert model.nq == 3 + 1 + 2 + 1 + 2 + 4 and model.nv == 3 + 1 + 2 + 1 + 2 + 3
    assert [model.joint_kind[model.joint_id(j)] for j in ("a_joint_x", "a_joint_y", "a_joint_theta")] == \
        ["prismatic", "prismatic", "revolute"]
    assert model.mass[model.body_id("a__x")] == 0 and model.mass[model.body_id("u__1")] == 0
    q = ad.random_configuration(model, rng)
    v = rng.normal(size=model.nv)
    assert np.abs(ad.difference(model, q, ad.integrate(model, q, v)) - v).max() < 1e-12
    b = ad.ModelBuilder()
    with pytest.raises(ModelError, match="axes must be two 3-vectors"):
        b.add_body("u", "world", "universal", axes=(1, 0, 0), mass=1.0)
    with pytest.raises(ModelError, match="lower needs 1 or 3 values"):
        b.add_body("p", "world", "planar", lower=(0, 1), mass=1.0)
    with pytest.raises(ModelError, match="plane normal"):
        b.add_body("p", "world", "planar", axis=(0, 0, 0), mass=1.0)
    with pytest.raises(ModelError, match="pitch must be a finite number"):
        b.add_body("h", "world", "helical", pitch=np.nan, mass=1.0)
    with pytest.raises(ModelError, match="damping must be >= 0"):
        b.add_body("p", "world", "planar", damping=(0.1, 0.2, -1.0), mass=1.0)
    with pytest.raises(ModelError, match="positive"):
        b.add_body("p", "world", "universal", mass=-1.0)
    assert b._order == []          # nothing half-built is left behind
    b.add_body("p", "world", "planar", lower=(-1, -2, -3), upper=(1, 2, 3), mass=1.0, inertia=np.eye(3) * 0.01)
    m = b.build()
    assert np.array_equal(m.lower, [-1, -2, -3]) and np.array_equal(m.upper, [1, 2, 3])
    with pytest.raises(ModelError, match="duplicate name 'p__x'"):
        b.add_body("p__x", "world", "revolute", mass=1.0)


def test_ik_refuses_helical_joints_cleanly():
    from artidyn.ik.chain import support_chain
    b = ad.ModelBuilder()
    b.add_body("nut", "world", "helical", pitch=0.1, mass=1.0, inertia=np.eye(3) * 0.01)
    with pytest.raises(InputError, match="helical"):
        support_chain(b.build(), "nut")


def test_to_pinocchio_maps_the_helical_joint(rng):
    model = _mixed_model(rng)
    model = model.replace(stiffness=np.zeros(model.nv), rest=np.zeros(model.nv), armature=np.zeros(model.nv))
    pm = ad.interop.to_pinocchio(model)
    assert any(pm.joints[j].shortname() == "JointModelHelicalUnaligned" for j in range(1, pm.njoints))
    pd = pm.createData()
    conv = ad.interop.Converter(model, pm)
    for _ in range(2):
        q = ad.random_configuration(model, rng)
        v, a = rng.normal(size=(2, model.nv))
        tau_p = pin.rnea(pm, pd, conv.to_pin_q(q), conv.to_pin_v(v), conv.to_pin_v(a))
        assert np.abs(conv.from_pin_v(tau_p) - ad.rnea(model, q, v, a, friction=False)).max() < 1e-10


URDF_PLANAR = """<robot name="slider">
  <link name="table"/>
  <link name="puck"><inertial><mass value="2"/><origin xyz="0.1 0 0"/>
    <inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="glide" type="planar"><parent link="table"/><child link="puck"/>
    <origin xyz="0 0 0.5" rpy="0 0 0.3"/><axis xyz="0 2 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
    <dynamics damping="0.3"/></joint>
</robot>"""


def test_urdf_planar_joint():
    m = ad.load_urdf(URDF_PLANAR)
    assert (m.nq, m.nv) == (3, 3)
    assert m.joint_names[1:] == ["glide_x", "glide_y", "glide_theta"]
    assert np.all(m.damping == 0.3) and np.all(np.isinf(m.lower))
    assert any("<limit>" in str(n) and "planar" in str(n) for n in m.load_report)
    x, y, th = 0.2, -0.4, 0.7
    T = ad.frame_placement(m, [x, y, th], "puck")
    P = np.eye(4)
    P[:3, :3], P[2, 3] = axis_angle_to_matrix(np.array([0, 0, 1.0]), 0.3), 0.5
    e1, e2 = plane_axes(np.array([0, 1.0, 0]))
    J = np.eye(4)
    J[:3, :3], J[:3, 3] = axis_angle_to_matrix(np.array([0, 1.0, 0]), th), x * e1 + y * e2
    assert np.abs(T - P @ J).max() < 1e-14
    assert np.allclose(np.cross(e1, e2), [0, 1, 0])


GRIPPER = """<robot name="gripper">
  <link name="base"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="palm"><inertial><mass value="0.5"/><origin xyz="0 0 0.05"/>
    <inertia ixx="0.002" iyy="0.003" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="left"><inertial><mass value="0.1"/><origin xyz="0 0.01 0.03"/>
    <inertia ixx="1e-4" iyy="2e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="right"><inertial><mass value="0.15"/><origin xyz="0 -0.01 0.03"/>
    <inertia ixx="1e-4" iyy="2e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tip"><inertial><mass value="0.05"/><origin xyz="0 0 0.01"/>
    <inertia ixx="1e-5" iyy="1e-5" izz="1e-5" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="wrist" type="revolute"><parent link="base"/><child link="palm"/><origin xyz="0 0 0.1" rpy="0.2 0 0"/>
    <axis xyz="1 0 0"/><limit lower="-3" upper="3" effort="5" velocity="2"/></joint>
  <joint name="finger_left" type="prismatic"><parent link="palm"/><child link="left"/><origin xyz="0 0.02 0.1"/>
    <axis xyz="0 1 0"/><limit lower="0" upper="0.04" effort="5" velocity="1"/></joint>
  <joint name="finger_right" type="prismatic"><parent link="palm"/><child link="right"/><origin xyz="0 -0.02 0.1"/>
    <axis xyz="0 1 0"/><limit lower="-0.05" upper="0" effort="5" velocity="1"/>
    <mimic joint="finger_left" multiplier="-1.5" offset="0.01"/></joint>
  <joint name="tip_joint" type="revolute"><parent link="right"/><child link="tip"/><origin xyz="0 0 0.06"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
    <mimic joint="finger_right" multiplier="2.0" offset="-0.1"/></joint>
</robot>"""


def test_mimic_reduce_equals_the_constraint_route(rng):
    red = ad.load_urdf(GRIPPER, mimic="reduce")
    full = ad.load_urdf(GRIPPER)
    assert (red.nq, red.nv, full.nv) == (2, 2, 4) and red.joint_names == ["wrist", "finger_left"]
    # the chain tip -> right -> left resolves to q_tip = 2 (-1.5 q_left + 0.01) - 0.1
    assert red.mimic["tip_joint"] == ("finger_left", pytest.approx(-3.0), pytest.approx(-0.08))
    cons = ad.constraints.from_model(full)
    assert len(cons) == 2
    for _ in range(3):
        qr, vr, taur = rng.normal(size=(3, 2)) * [1.0, 0.01]
        q, v = red.expand_q(qr), red.expand_v(vr)
        assert np.abs([c.phi(full, q)[0] for c in cons]).max() < 1e-15
        tau = np.zeros(4)
        tau[red.independent] = taur
        res = ad.constraints.constrained_dynamics(full, q, v, tau, cons)
        ar = red.aba(qr, vr, taur)
        assert np.abs(red.expand_v(ar) - res.a).max() < 1e-9
        assert np.abs(red.rnea(qr, vr, ar) - taur).max() < 1e-9
        Mr = red.crba(qr)
        assert np.allclose(Mr, Mr.T) and np.all(np.linalg.eigvalsh(Mr) > 0)
        T = red.body_placements(qr)
        assert np.abs(T - ad.body_placements(full, q)).max() < 1e-15
        J = red.jacobian(qr, "tip")
        eps = 1e-7
        for k in range(2):
            d = np.zeros(2)
            d[k] = eps
            dp = (red.body_placements(qr + d)[-1][:3, 3] - red.body_placements(qr - d)[-1][:3, 3]) / (2 * eps)
            assert np.abs(dp - J[3:, k]).max() < 1e-7
    ign = ad.load_urdf(GRIPPER, mimic="ignore")
    assert ign.constraint_specs == () and ign.nv == 4
    assert sum("mimic='ignore'" in n.message for n in ign.load_report) == 2
    with pytest.raises(InputError, match="mimic must be"):
        ad.load_urdf(GRIPPER, mimic="gear")


def test_mimic_cycle_is_refused():
    from artidyn.reduced import MimicReduced
    m = ad.load_urdf(GRIPPER)
    with pytest.raises(ModelError, match="cycle"):
        MimicReduced(m, [("finger_right", "tip_joint", 1.0, 0.0), ("tip_joint", "finger_right", 1.0, 0.0)])


def _pendulum(kind, **kw):
    b = ad.ModelBuilder(kind)
    b.add_body("link", "world", kind, xyz=(0, 0, 1.0), mass=1.5, com=(0.1, 0.05, -0.4),
               inertia=np.diag([0.02, 0.03, 0.01]), **kw)
    b.add_body("tip", "link", "revolute", axis=(0, 1, 0), xyz=(0.1, 0, -0.5), mass=0.5, com=(0, 0, -0.2),
               inertia=np.diag([0.005, 0.005, 0.001]))
    return b.build()


@pytest.mark.parametrize("kind,kw", [("planar", dict(axis=(0, 1, 0))), ("helical", dict(axis=(0.3, 0, 1), pitch=0.05)),
                                     ("universal", dict(axes=((1, 0, 0), (0, 1, 0))))])
def test_simulate_conserves_energy(kind, kw, rng):
    m = _pendulum(kind, **kw)
    q0 = 0.5 * rng.uniform(-1, 1, m.nq)
    v0 = rng.normal(size=m.nv)
    r = ad.simulate(m, q0, v0, t_final=1.0, dt=1e-3, method="rk4")
    E = r.energy.total
    scale = max(np.abs(E).max(), np.ptp(r.energy.kinetic))
    assert np.ptp(E) < 1e-6 * scale
    assert np.ptp(r.q, axis=0).min() > 1e-3          # every coordinate moved


def test_symbolic_models_with_a_helical_joint(rng):
    from artidyn.symbolic import models
    m = _pendulum("helical", axis=(0.3, 0, 1), pitch=0.05)
    Q = ad.random_configuration(m, rng, size=3)
    V, A = rng.normal(size=(2, 3, m.nv))
    tau = models.inverse_dynamics(m).lambdify()
    assert np.abs(tau(Q, V, A) - ad.rnea(m, Q, V, A)).max() < 1e-11
    assert np.abs(models.placement(m, "tip").lambdify()(Q) - ad.frame_placement(m, Q, "tip")).max() < 1e-12


def test_mimic_reduced_simulation_conserves_energy_and_follows_the_constraint_route(rng):
    red = ad.load_urdf(GRIPPER, mimic="reduce")
    full = red.full.replace(lower=np.full(red.full.nq, -np.inf), upper=np.full(red.full.nq, np.inf))
    q0, v0 = np.array([0.3, 0.01]), np.array([1.0, 0.05])
    t, Q, V, E = red.simulate(q0, v0, t_final=1.0, dt=1e-3)
    assert np.ptp(E) < 1e-6 * max(np.abs(E).max(), np.ptp(ad.kinetic_energy(full, red.expand_q(Q), red.expand_v(V))))
    assert np.ptp(Q[:, 0]) > 0.1
    run = ad.simulate(full, red.expand_q(q0), red.expand_v(v0), t_final=0.2, dt=1e-3, method="rk4",
                      constraints=ad.constraints.from_model(full))
    assert np.abs(run.q[-1] - red.expand_q(Q[200])).max() < 1e-6
    with pytest.raises(InputError, match="whole number of steps"):
        red.simulate(q0, v0, t_final=1.0, dt=0.3)


def test_from_pinocchio_reads_a_helical_joint(rng):
    model, pm, _ = twin("helical", 5)
    back = ad.interop.from_pinocchio(pm)
    assert back.joint_kind[2] == "helical" and back.nv == model.nv
    q = ad.random_configuration(model, rng)
    v, a = rng.normal(size=(2, model.nv))
    assert np.abs(ad.rnea(back, q, v, a) - ad.rnea(model, q, v, a)).max() < 1e-10
    assert pitch_of(back.joint_type[2], back.S[2]) == pytest.approx(pitch_of(model.joint_type[2], model.S[2]), abs=1e-15)
