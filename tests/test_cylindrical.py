"""The cylindrical joint: rotation about and translation along one axis (q = [angle, displacement]).

The main oracle: a cylindrical joint is a revolute joint followed by a prismatic joint on the same
axis through an exactly massless intermediate body; both models share q and v entry for entry.
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.joints import CYLINDRICAL, jcalc
from artidyn.kernels import reference_only
from artidyn.models.zoo import _random_axis, _random_inertia, random_tree

KINDS = ("cylindrical", "revolute", "prismatic", "spherical", "cylindrical")


def twin_models(seed, nb=7, floating=False, springs=True):
    """(model with cylindrical joints, the same with each one split into revolute + prismatic).

    Random tree of ``nb`` bodies (joint kinds drawn from KINDS), each split joint's intermediate
    body ``<name>_r`` massless; springs and limits per dof on the flat joints.
    """
    rng = np.random.default_rng(seed)
    a, b = ad.ModelBuilder("cyl"), ad.ModelBuilder("split")
    names = ["world"]
    if floating:
        m, c, I = _random_inertia(rng, 3.0)
        for bld in (a, b):
            bld.add_body("base", "world", "free", mass=m, com=c, inertia=I)
        names = ["base"]
    for k in range(nb):
        parent = names[-1] if rng.uniform() < 0.5 else names[rng.integers(len(names))]
        kind = KINDS[rng.integers(len(KINDS))]
        m, c, I = _random_inertia(rng)
        axis, xyz, rpy = _random_axis(rng), rng.uniform(-0.3, 0.3, 3), rng.uniform(-np.pi, np.pi, 3)
        name = f"body{k + 1}"
        kw = dict(mass=m, com=c, inertia=I)
        if kind == "cylindrical":
            st, rest = rng.uniform(0, 5, 2) if springs else np.zeros(2), rng.uniform(-0.5, 0.5, 2)
            lo, hi = rng.uniform(-2, -1, 2), rng.uniform(1, 2, 2)
            a.add_body(name, parent, "cylindrical", axis=axis, xyz=xyz, rpy=rpy, stiffness=st, rest=rest,
                       lower=lo, upper=hi, damping=(0.1, 0.2), armature=(0.01, 0.02), **kw)
            b.add_body(f"{name}_r", parent, "revolute", axis=axis, xyz=xyz, rpy=rpy, stiffness=st[0], rest=rest[0],
                       lower=lo[0], upper=hi[0], damping=0.1, armature=0.01, mass=0.0)
            b.add_body(name, f"{name}_r", "prismatic", axis=axis, stiffness=st[1], rest=rest[1], lower=lo[1],
                       upper=hi[1], damping=0.2, armature=0.02, **kw)
        else:
            st = rng.uniform(0, 5) if springs and kind != "spherical" else 0.0
            for bld in (a, b):
                bld.add_body(name, parent, kind, axis=axis, xyz=xyz, rpy=rpy, stiffness=st, **kw)
        names.append(name)
    for bld in (a, b):
        bld.add_fixed_body("tool", names[-1], xyz=(0.1, -0.05, 0.2), rpy=(0.3, 0.2, 0.1), mass=0.2,
                           inertia=np.eye(3) * 1e-3)
        bld.add_frame("tcp", "tool", xyz=(0, 0, 0.1))
    A, B = a.build(), b.build()
    assert A.nq == B.nq and A.nv == B.nv and np.sum(A.joint_type == CYLINDRICAL) > 0
    return A, B


SEEDS = [(1, False), (2, False), (3, True), (4, False)]


@pytest.fixture(params=SEEDS, ids=lambda s: f"seed{s[0]}{'_floating' if s[1] else ''}")
def twins(request):
    return twin_models(request.param[0], floating=request.param[1])


def states(model, rng, N=4):
    Q = ad.random_configuration(model, rng, size=N)
    V, A, T = rng.normal(size=(3, N, model.nv))
    return Q, V, A, T


def test_joint_data():
    axis = np.array([0.0, 0.6, 0.8])
    S = ad.joints.motion_subspace(CYLINDRICAL, axis)
    assert S.shape == (6, 2) and np.array_equal(S[:3, 0], axis) and np.array_equal(S[3:, 1], axis)
    assert np.all(S[3:, 0] == 0) and np.all(S[:3, 1] == 0)
    T = ad.joints.joint_transform(CYLINDRICAL, axis, np.array([[0.4, 0.25]]))[0]
    R = ad.spatial.rotations.axis_angle_to_matrix(axis, 0.4)
    assert np.allclose(T[:3, :3], R, atol=1e-15) and np.allclose(T[:3, 3], 0.25 * axis, atol=1e-15)
    assert ad.joints.NQ[CYLINDRICAL] == ad.joints.NV[CYLINDRICAL] == 2
    assert ad.joints.JOINT_CODES["cylindrical"] == CYLINDRICAL


def test_single_joint_analytic():
    """A body on a vertical cylindrical joint: it falls freely along the axis and spins with
    tau / I_zz about it (centre of mass on the axis), whatever the angle."""
    b = ad.ModelBuilder("c")
    Izz = 0.3
    b.add_body("b", "world", "cylindrical", axis=(0, 0, 1), mass=2.0, com=(0, 0, 0.4),
               inertia=np.diag([0.5, 0.5, Izz]), joint_name="cyl")
    m = b.build()
    assert m.nq == m.nv == 2 and m.joint_kind[1] == "cylindrical" and m.q_slice("cyl") == slice(0, 2)
    for use in (True, False):
        prev = ad.kernels.use_kernels(use)
        try:
            for q in ([0.0, 0.0], [1.2, -0.3]):
                a = ad.aba(m, q, [0.7, 0.1], [0.6, 1.0])
                assert a == pytest.approx([0.6 / Izz, 1.0 / 2.0 - 9.81], abs=1e-13)
                assert ad.crba(m, q) == pytest.approx(np.diag([Izz, 2.0]), abs=1e-14)
                T = ad.frame_placement(m, q, "b")
                assert T[:3, 3] == pytest.approx([0, 0, q[1]], abs=1e-15)
                assert T[:3, :2] == pytest.approx(ad.spatial.rotations.axis_angle_to_matrix([0, 0, 1], q[0])[:, :2],
                                                  abs=1e-15)
        finally:
            ad.kernels.use_kernels(prev)


def test_twins_kinematics(twins, rng):
    A, B = twins
    Q, V, _, _ = states(A, rng)
    names = [n for n in A.body_names[1:]]
    for use in (True, False):
        prev = ad.kernels.use_kernels(use)
        try:
            PA, PB = ad.body_placements(A, Q), ad.body_placements(B, Q)
            for n in names:
                assert np.abs(PA[:, A.body_id(n)] - PB[:, B.body_id(n)]).max() < 1e-12
            for frame in ("tcp", names[-1]):
                for expressed in ("world", "local"):
                    JA = ad.jacobian(A, Q, frame, expressed=expressed)
                    JB = ad.jacobian(B, Q, frame, expressed=expressed)
                    assert np.abs(JA - JB).max() < 1e-12
            va, vb = ad.frame_velocity(A, Q[0], V[0], "tcp"), ad.frame_velocity(B, Q[0], V[0], "tcp")
            assert np.abs(va - vb).max() < 1e-12
        finally:
            ad.kernels.use_kernels(prev)


def test_twins_dynamics(twins, rng):
    A, B = twins
    Q, V, Acc, Tau = states(A, rng)
    for use in (True, False):
        prev = ad.kernels.use_kernels(use)
        try:
            pairs = [(ad.rnea(A, Q, V, Acc), ad.rnea(B, Q, V, Acc)), (ad.aba(A, Q, V, Tau), ad.aba(B, Q, V, Tau)),
                     (ad.crba(A, Q), ad.crba(B, Q)), (ad.gravity_torque(A, Q), ad.gravity_torque(B, Q)),
                     (ad.nonlinear_effects(A, Q, V), ad.nonlinear_effects(B, Q, V)),
                     (ad.rnea(A, Q[0], V[0], Acc[0]), ad.rnea(B, Q[0], V[0], Acc[0])),
                     (ad.aba(A, Q[0], V[0], Tau[0]), ad.aba(B, Q[0], V[0], Tau[0])),
                     (ad.kinetic_energy(A, Q, V), ad.kinetic_energy(B, Q, V)),
                     (ad.potential_energy(A, Q), ad.potential_energy(B, Q)),
                     (ad.momentum(A, Q, V), ad.momentum(B, Q, V))]
            for x, y in pairs:
                assert np.abs(x - y).max() < 1e-12 * max(1.0, np.abs(y).max())
        finally:
            ad.kernels.use_kernels(prev)
    pairs = [(ad.gravity(A, Q), ad.gravity(B, Q)), (ad.coriolis_matrix(A, Q, V), ad.coriolis_matrix(B, Q, V)),
             (ad.mass_matrix_derivative(A, Q, V), ad.mass_matrix_derivative(B, Q, V)),
             (ad.newton_euler_nonrecursive(A, Q, V, Acc), ad.newton_euler_nonrecursive(B, Q, V, Acc)),
             (ad.gaha(A, Q), ad.gaha(B, Q))]
    for x, y in pairs:
        assert np.abs(x - y).max() < 1e-11 * max(1.0, np.abs(y).max())


def test_compiled_equals_reference_on_random_trees(rng):
    for floating in (False, True):
        model = random_tree(rng, 9, floating=floating, joint_types=("cylindrical", "revolute", "prismatic",
                                                                    "spherical"))
        assert "cylindrical" in model.joint_kind
        k = np.zeros(model.nv)
        for i in range(1, model.nb + 1):
            if model.joint_kind[i] == "cylindrical":
                k[model.v_slice(model.joint_names[i])] = (3.0, 40.0)
        model = model.replace(stiffness=k, rest=0.1 * k)
        Q, V, Acc, Tau = states(model, rng)
        q, v = Q[0], V[0]
        calls = [lambda: ad.rnea(model, Q, V, Acc), lambda: ad.aba(model, Q, V, Tau), lambda: ad.crba(model, Q),
                 lambda: ad.rnea(model, q, v, Acc[0]), lambda: ad.aba(model, q, v, Tau[0]), lambda: ad.crba(model, q),
                 lambda: ad.body_placements(model, Q), lambda: ad.jacobian(model, q, "tcp"),
                 lambda: ad.jacobian(model, Q, "tcp", expressed="local"), lambda: ad.frame_placement(model, q, "tcp")]
        got = [f() for f in calls]
        with reference_only():
            ref = [f() for f in calls]
        for x, y in zip(got, ref):
            assert np.abs(x - y).max() < 1e-12 * max(1.0, np.abs(y).max())


def test_crba_columns_and_rnea(rng):
    """Pinocchio-style checks: M symmetric positive definite, its columns are RNEA's without gravity."""
    model = random_tree(rng, 7, joint_types=("cylindrical", "revolute")).replace(gravity=np.zeros(3))
    q = ad.random_configuration(model, rng)
    M = ad.crba(model, q)
    assert np.allclose(M, M.T, atol=1e-14) and np.linalg.eigvalsh(M).min() > 0
    E = np.eye(model.nv)
    cols = ad.rnea(model, np.broadcast_to(q, (model.nv, model.nq)), np.zeros((model.nv, model.nv)), E).T
    assert np.abs(cols - M).max() < 1e-12
    v = rng.normal(size=model.nv)
    assert ad.kinetic_energy(model, q, v) == pytest.approx(0.5 * v @ M @ v, rel=1e-13)
    # Christoffel symbols are exact here (v = qd for flat joints)
    C1 = ad.coriolis_matrix(model, q, v)
    C2 = ad.coriolis_matrix(model, q, v, method="christoffel")
    assert np.abs(C1 @ v - C2 @ v).max() < 1e-10
    Md = ad.mass_matrix_derivative(model, q, v)
    assert np.abs(Md - 2 * C1 + (Md - 2 * C1).T).max() < 1e-10


def test_jacobian_against_finite_differences(rng):
    model = random_tree(rng, 6, joint_types=("cylindrical", "prismatic", "revolute"))
    q = ad.random_configuration(model, rng)
    v = rng.normal(size=model.nv)
    J = ad.jacobian(model, q, "tcp")
    h = 1e-6
    Tp, Tm = ad.frame_placement(model, q + h * v, "tcp"), ad.frame_placement(model, q - h * v, "tcp")
    lin = (Tp[:3, 3] - Tm[:3, 3]) / (2 * h)
    W = (Tp[:3, :3] - Tm[:3, :3]) / (2 * h) @ ad.frame_placement(model, q, "tcp")[:3, :3].T
    ang = np.array([W[2, 1], W[0, 2], W[1, 0]])
    assert np.abs(J @ v - np.concatenate([ang, lin])).max() < 1e-7


@pytest.mark.compiles  # the engine's manifold helpers called from Python, as no public call does
def test_configuration_functions(rng):
    A, _ = twin_models(7)
    Q = ad.random_configuration(A, rng, size=200)
    assert np.all(ad.within_limits(A, Q))
    i = next(i for i in range(1, A.nb + 1) if A.joint_kind[i] == "cylindrical")
    s = A.q_slice(A.joint_names[i])
    assert np.all(Q[:, s] >= A.lower[s]) and np.all(Q[:, s] <= A.upper[s]) and np.all(np.isfinite(A.lower[s]))
    q, v = Q[0], rng.normal(size=A.nv)
    assert np.allclose(ad.integrate(A, q, v)[s], q[s] + v[A.v_slice(A.joint_names[i])], atol=1e-15)
    assert np.allclose(ad.difference(A, q, ad.integrate(A, q, 0.1 * v)), 0.1 * v, atol=1e-12)
    with reference_only():
        assert np.allclose(ad.difference(A, q, ad.integrate(A, q, 0.1 * v)), 0.1 * v, atol=1e-12)
    # the compiled manifold kernels (the engine's) agree with the reference integrate / difference
    from artidyn.kernels import manifold
    from artidyn.kernels.pack import packed
    out = np.empty(A.nq)
    manifold.integrate_q(packed(A), q, v, 0.1, out)
    assert np.abs(out - ad.integrate(A, q, 0.1 * v)).max() < 1e-14
    d = np.empty(A.nv)
    manifold.difference_q(packed(A), q, out, d)
    assert np.abs(d - 0.1 * v).max() < 1e-12


def test_simulate_cylindrical_twins_agree_and_conserve_energy(rng):
    A, B = twin_models(3, nb=5, floating=False)
    A, B = (m.replace(damping=np.zeros(m.nv), lower=np.full(m.nq, -np.inf), upper=np.full(m.nq, np.inf))
            for m in (A, B))
    q0, v0 = ad.random_configuration(A, rng), 0.3 * rng.normal(size=A.nv)
    ra = ad.simulate(A, q0, v0, t_final=0.3, dt=5e-4, method="rk4")
    rb = ad.simulate(B, q0, v0, t_final=0.3, dt=5e-4, method="rk4")
    assert np.abs(ra.q - rb.q).max() < 1e-9 and np.abs(ra.v - rb.v).max() < 1e-8
    assert np.ptp(ra.energy.total) < 1e-6 * max(1.0, np.abs(ra.energy.total).max())
    assert any(n.endswith(".angle") for n in ra.q_names) and any(n.endswith(".d") for n in ra.q_names)
    rd = ad.simulate(A, q0, v0, t_final=0.3, method="dopri5", rtol=1e-10, atol=1e-12)
    assert np.abs(rd.q[-1] - ra.q[-1]).max() < 1e-6  # RK4 at 0.5 ms: ~2e-7 here (order 4 in dt)


def test_limit_events_name_the_cylindrical_joint():
    b = ad.ModelBuilder("slide", gravity=(0, 0, -9.81))
    b.add_body("b", "world", "cylindrical", axis=(0, 0, 1), mass=1.0, inertia=np.eye(3) * 0.01,
               lower=(-10.0, -0.05), upper=(10.0, 0.05), joint_name="cyl")
    m = b.build()
    with pytest.warns(Warning):
        res = ad.simulate(m, [0.0, 0.0], [1.0, 0.0], t_final=0.2, method="rk4")
    ev = res.limit_events
    assert len(ev) == 1 and ev[0].joint == "cyl" and ev[0].side == "lower" and ev[0].limit == -0.05
    assert ev[0].time == pytest.approx(np.sqrt(2 * 0.05 / 9.81), abs=2e-3)


def test_builder_checks_for_cylindrical_joints():
    b = ad.ModelBuilder("c")
    with pytest.raises(ad.ModelError, match=r"joint 'b_joint': axis \[0.0, 0.0, 0.0\] is zero"):
        b.add_body("b", "world", "cylindrical", axis=(0, 0, 0), mass=1.0)
    with pytest.raises(ad.ModelError, match=r"lower limit .* > upper limit"):
        b.add_body("b", "world", "cylindrical", mass=1.0, lower=(-1, 0.5), upper=(1, 0.2))
    with pytest.raises(ad.ModelError, match=r"damping needs 1 or 2 values \(one per dof\)"):
        b.add_body("b", "world", "cylindrical", mass=1.0, damping=(1, 2, 3))
    b.add_body("b", "world", "cylindrical", axis=(0, 0, 2.0), mass=1.0, lower=-0.5, upper=0.5, damping=0.3)
    m = b.build()
    assert m.joint_axis[1].tolist() == [0, 0, 1.0] and m.lower.tolist() == [-0.5, -0.5]
    assert m.damping.tolist() == [0.3, 0.3] and "cylindrical" in m.summary()


def test_ik_chain_splits_a_cylindrical_joint(rng):
    """The IK chain holds a cylindrical joint as a revolute and a prismatic entry on its axis: its
    compiled FK and Jacobian equal the reference ones, and a reachable pose is solved."""
    from artidyn.ik._batch import chain_fk_jac_many
    from artidyn.ik.chain import support_chain
    A, _ = twin_models(1, springs=False)
    ch = support_chain(A, "tcp")
    cyl = [b for b in set(ch.bodies.tolist()) if A.joint_kind[b] == "cylindrical"]
    assert cyl and ch.nq == ch.nv and ch.nv == len(ch.v_index)
    Q = ad.random_configuration(A, rng, size=3)
    T, J = np.empty((3, 4, 4)), np.empty((3, 6, ch.nv))
    chain_fk_jac_many(np.ascontiguousarray(Q[:, ch.q_index]), ch.jtype, ch.axis, ch.X, ch.iq, ch.iv, ch.tool,
                      ch.nv, T, J)
    assert np.abs(T - ad.frame_placement(A, Q, "tcp")).max() < 1e-12
    assert np.abs(J - ad.jacobian(A, Q, "tcp")[:, :, ch.v_index]).max() < 1e-12
    target = ad.frame_placement(A, Q[0], "tcp")
    res = ad.ik(A, target, "tcp", q0=ad.integrate(A, Q[0], 0.05 * rng.normal(size=A.nv)))
    assert res.success
    F = ad.frame_placement(A, res.q, "tcp")
    assert np.abs(F - target).max() < 1e-8
    assert np.all(ad.within_limits(A, res.q, tol=1e-12))


def test_jcalc_of_a_model():
    A, _ = twin_models(2)
    i = next(i for i in range(1, A.nb + 1) if A.joint_kind[i] == "cylindrical")
    q = np.zeros((1, A.nq))
    q[0, A.idx_q[i]:A.idx_q[i] + 2] = (np.pi / 2, 0.3)
    T, S = jcalc(A, i, q)
    a = A.joint_axis[i]
    assert np.allclose(T[0, :3, :3] @ a, a) and np.allclose(T[0, :3, 3], 0.3 * a) and S.shape == (6, 2)


def test_report_and_summary_list_both_dofs():
    from artidyn.report import joints_table
    A, _ = twin_models(3, floating=True)
    i = next(i for i in range(1, A.nb + 1) if A.joint_kind[i] == "cylindrical")
    row = next(r for r in joints_table(A).splitlines() if f" {A.joint_names[i]} " in r)
    s = A.v_slice(A.joint_names[i])
    assert "cylindrical" in row and "0.01 / 0.02" in row and "0.1 / 0.2" in row
    assert f"{A.stiffness[s][0]:.6g} / {A.stiffness[s][1]:.6g}" in row
    q = A.q_slice(A.joint_names[i])
    assert f"{q.start}:{q.stop}" in row and f"{A.lower[q][0]:.6g} / {A.lower[q][1]:.6g}" in row


def test_constrained_dynamics_with_cylindrical_joints_and_springs(rng):
    """The compiled constrained solver (tree-sparse route) against the twin model and the KKT route."""
    from artidyn.constraints import Point
    A, B = twin_models(2)
    q, v, tau = ad.random_configuration(A, rng), rng.normal(size=A.nv), rng.normal(size=A.nv)
    ra = ad.constrained_dynamics(A, q, v, tau, [Point("tcp", at=q)])
    rb = ad.constrained_dynamics(B, q, v, tau, [Point("tcp", at=q)])
    rk = ad.constrained_dynamics(A, q, v, tau, [Point("tcp", at=q)], method="kkt")
    assert np.abs(ra.a - rb.a).max() < 1e-9 * max(1.0, np.abs(rb.a).max())
    assert np.abs(ra.a - rk.a).max() < 1e-9 * max(1.0, np.abs(rk.a).max())
    assert np.abs(ad.jacobian(A, q, "tcp")[3:] @ ra.a + ad.jacobian_bias(A, q, v, "tcp")[3:]).max() < 1e-8


def pin_twin(model):
    """The pinocchio model of ``model``, a cylindrical joint as pinocchio's composite joint of a
    revolute and a prismatic joint on the same axis (no floating base here)."""
    import pinocchio as pin
    from pin_build import _joint_model
    pm = pin.Model()
    pm.gravity = pin.Motion(np.asarray(model.gravity, dtype=float), np.zeros(3))
    for i in range(1, model.nb + 1):
        a = np.asarray(model.joint_axis[i], dtype=float)
        if model.joint_type[i] == CYLINDRICAL:
            jm = pin.JointModelComposite(2)
            jm.addJoint(pin.JointModelRevoluteUnaligned(a))
            jm.addJoint(pin.JointModelPrismaticUnaligned(a))
        else:
            jm = _joint_model(model.joint_type[i], a)
        T = model.joint_placement[i]
        jid = pm.addJoint(int(model.parent[i]), jm, pin.SE3(T[:3, :3].copy(), T[:3, 3].copy()), model.joint_names[i])
        pm.appendBodyToJoint(jid, pin.Inertia(float(model.mass[i]), model.com[i].copy(), model.inertia_com[i].copy()),
                             pin.SE3.Identity())
    return pm


@pytest.mark.parametrize("seed", [1, 2, 4])
def test_against_pinocchio_composite_joint(seed, rng):
    import pinocchio as pin
    A, _ = twin_models(seed, springs=False)
    A = A.replace(damping=np.zeros(A.nv), armature=np.zeros(A.nv))
    pm = pin_twin(A)
    pd = pm.createData()
    assert pm.nq == A.nq and pm.nv == A.nv
    for _ in range(3):
        q = ad.random_configuration(A, rng)
        v, a, tau = rng.normal(size=(3, A.nv))
        assert np.abs(ad.rnea(A, q, v, a) - pin.rnea(pm, pd, q, v, a)).max() < 1e-10
        assert np.abs(ad.aba(A, q, v, tau) - pin.aba(pm, pd, q, v, tau)).max() < 1e-9
        M = pin.crba(pm, pd, q)
        assert np.abs(ad.crba(A, q) - np.triu(M) - np.triu(M, 1).T).max() < 1e-10
        pin.forwardKinematics(pm, pd, q)
        pin.computeJointJacobians(pm, pd, q)
        T = ad.body_placements(A, q)
        for i in range(1, A.nb + 1):
            assert np.abs(T[i] - pd.oMi[i].homogeneous).max() < 1e-12
            Jp = pin.getJointJacobian(pm, pd, i, pin.LOCAL_WORLD_ALIGNED)
            assert np.abs(ad.jacobian(A, q, A.body_names[i]) - np.vstack([Jp[3:], Jp[:3]])).max() < 1e-12
        assert ad.kinetic_energy(A, q, v) == pytest.approx(pin.computeKineticEnergy(pm, pd, q, v), rel=1e-12)


def test_constrained_run_compiled_equals_reference(rng):
    """A closed loop (the tcp pinned where it starts) with cylindrical joints and springs: the
    compiled constrained run equals the readable one and conserves T + V (springs included)."""
    from artidyn.constraints import Point
    A, _ = twin_models(2)
    A = A.replace(damping=np.zeros(A.nv))
    q0 = ad.random_configuration(A, rng)
    loop = [Point("tcp", at=q0)]
    rc = ad.simulate_constrained(A, q0, np.zeros(A.nv), loop, t_final=0.2, route="compiled")
    rr = ad.simulate_constrained(A, q0, np.zeros(A.nv), loop, t_final=0.2, route="reference")
    assert np.abs(rc.q - rr.q).max() < 1e-10
    assert np.abs(rc.energy.potential - ad.potential_energy(A, rc.q)).max() < 1e-11
    assert np.ptp(ad.spring_energy(A, rc.q)) > 0.1  # the springs work
    assert np.ptp(rc.energy.total) < 1e-6 * max(1.0, np.abs(rc.energy.total).max())
