"""Model topology, configuration space (q/v slices, neutral, integrate, difference, random
states), Model.replace, lumping of fixed bodies and frames."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.spatial.motion import homogeneous, skew
from artidyn.spatial.rotations import exp3, quat_to_matrix, rpy_to_matrix


def box_inertia(m, a, b, c):
    return m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def small_tree():
    """world - a (free) - {b (revolute) - c (spherical) + fixed f ; d (prismatic) - e (revolute)}."""
    b = ad.ModelBuilder("small_tree")
    I = box_inertia(1.0, 0.1, 0.2, 0.3)
    b.add_body("a", "world", "free", mass=2.0, inertia=2 * I)
    b.add_body("b", "a", "revolute", axis=(0, 1, 0), xyz=(0.1, 0, 0), mass=1.0, inertia=I, lower=-1, upper=1)
    b.add_body("d", "a", "prismatic", axis=(1, 0, 0), xyz=(0, 0.2, 0), mass=1.0, inertia=I)
    b.add_body("c", "b", "spherical", xyz=(0, 0, 0.3), mass=1.0, inertia=I)
    b.add_fixed_body("f", "b", xyz=(0, 0.1, 0), rpy=(0.1, 0.2, 0.3), mass=0.5, inertia=0.5 * I)
    b.add_body("e", "d", "continuous", axis=(0, 0, 1), xyz=(0, 0, 0.2), mass=1.0, inertia=I)
    b.add_frame("tcp", "e", xyz=(0, 0, 0.1))
    return b.build()


# --- topology -------------------------------------------------------------------------------


def test_depth_first_numbering_and_topology():
    m = small_tree()
    assert m.body_names == ["world", "a", "b", "c", "d", "e"]  # depth first, insertion order
    assert list(m.parent) == [-1, 0, 1, 2, 1, 4]
    assert m.children[1] == (2, 4) and m.children[3] == () and m.children[0] == (1,)
    assert m.support("e") == [1, 4, 5] and m.support("c") == [1, 2, 3] and m.support("world") == []
    assert m.subtree("b") == [2, 3] and m.subtree("a") == [1, 2, 3, 4, 5] and m.subtree(4) == [4, 5]
    assert m.support("f") == m.support("b")  # a fixed body is a frame on its moving ancestor
    assert m.joint_names[1] == "root_joint" and m.has_floating_base
    assert m.joint_kind[1:] == ["free", "revolute", "spherical", "prismatic", "continuous"]
    assert m.joint_id("e_joint") == 5 and m.body_id("tcp") == 5


def test_topology_helpers_agree_on_the_zoo(zoo):
    for label, m in zoo:
        assert m.parent[0] == -1 and all(m.parent[i] < i for i in range(1, m.nb + 1)), label
        for i in range(1, m.nb + 1):
            sup = m.support(i)
            assert sup[-1] == i and all(m.parent[sup[k]] == (sup[k - 1] if k else 0) for k in range(len(sup)))
            assert m.subtree(i) == [k for k in range(1, m.nb + 1) if i in m.support(k)]
            assert set(m.children[i]) == {k for k in range(1, m.nb + 1) if m.parent[k] == i}


def test_q_and_v_slices_partition_the_vectors(zoo):
    for label, m in zoo:
        qs = [m.q_slice(m.joint_names[i]) for i in range(1, m.nb + 1)]
        vs = [m.v_slice(m.joint_names[i]) for i in range(1, m.nb + 1)]
        assert [s.start for s in qs] == [0] + [s.stop for s in qs[:-1]] and qs[-1].stop == m.nq
        assert [s.start for s in vs] == [0] + [s.stop for s in vs[:-1]] and vs[-1].stop == m.nv
        for i, (sq, sv) in enumerate(zip(qs, vs), start=1):
            n = {"free": (7, 6), "spherical": (4, 3)}.get(m.joint_kind[i], (1, 1))
            assert (sq.stop - sq.start, sv.stop - sv.start) == n, label
    m = small_tree()
    assert m.q_slice("root_joint") == slice(0, 7) and m.v_slice("root_joint") == slice(0, 6)
    assert m.q_slice("c_joint") == slice(8, 12) and m.v_slice("c_joint") == slice(7, 10)
    assert m.quaternion_slices == [slice(3, 7), slice(8, 12)]


def test_neutral_and_placements_at_neutral():
    m = small_tree()
    q0 = ad.neutral(m)
    assert q0.shape == (m.nq,)
    assert np.all(q0[3:7] == [0, 0, 0, 1]) and np.all(q0[8:12] == [0, 0, 0, 1])
    assert np.count_nonzero(q0) == 2
    T = ad.body_placements(m, q0)
    for i in range(1, m.nb + 1):  # every joint transform is the identity at neutral
        assert np.allclose(T[i], T[m.parent[i]] @ m.joint_placement[i], atol=1e-15)


# --- integrate / difference -----------------------------------------------------------------


def test_integrate_difference_round_trip(zoo):
    rng = np.random.default_rng(3)
    for label, m in zoo:
        Q0 = ad.random_configuration(m, rng, size=5)
        V = rng.normal(size=(5, m.nv))  # |omega| < pi mostly; scale to be sure
        V *= 0.5
        Q1 = ad.integrate(m, Q0, V)
        for s in m.quaternion_slices:
            assert np.allclose(np.linalg.norm(Q1[:, s], axis=1), 1, atol=1e-15), label
        assert np.allclose(ad.difference(m, Q0, Q1), V, atol=1e-10), label
        Q2 = ad.random_configuration(m, rng, size=5)
        back = ad.integrate(m, Q0, ad.difference(m, Q0, Q2))
        assert np.allclose(ad.body_placements(m, back), ad.body_placements(m, Q2), atol=1e-10), label
        # single states give the same as the batch
        assert np.allclose(ad.integrate(m, Q0[1], V[1]), Q1[1], atol=1e-15)
        assert np.allclose(ad.difference(m, Q0[1], Q1[1]), V[1], atol=1e-10)
        assert np.allclose(ad.difference(m, Q0, Q0), 0, atol=1e-12)
        assert np.allclose(ad.integrate(m, Q0, np.zeros(m.nv)), Q0, atol=1e-15)


def test_integrate_free_joint_is_body_frame_screw():
    """Free joint: T' = T exp6([omega; v]) with v in the base frame (pinocchio's convention)."""
    m = small_tree()
    rng = np.random.default_rng(4)
    q = ad.random_configuration(m, rng)
    v = np.zeros(m.nv)
    v[3:6] = [0.3, -0.2, 0.5]  # pure translation, base axes
    q1 = ad.integrate(m, q, v)
    R = quat_to_matrix(q[3:7])
    assert np.allclose(q1[:3], q[:3] + R @ v[3:6], atol=1e-15) and np.allclose(q1[3:7], q[3:7])
    v[:3] = [0.0, 0.0, 0.4]  # add a rotation about base z: orientation R exp3(w)
    q2 = ad.integrate(m, q, v)
    assert np.allclose(quat_to_matrix(q2[3:7]), R @ exp3(v[:3]), atol=1e-14)
    # spherical joint: R' = R exp3(omega)
    w = np.array([0.2, -0.1, 0.7])
    v = np.zeros(m.nv)
    v[m.v_slice("c_joint")] = w
    q3 = ad.integrate(m, q, v)
    sl = m.q_slice("c_joint")
    assert np.allclose(quat_to_matrix(q3[sl]), quat_to_matrix(q[sl]) @ exp3(w), atol=1e-14)


def test_integrate_broadcasts_one_q_against_many_v():
    m = small_tree()
    q = ad.random_configuration(m, 1)
    V = ad.random_velocity(m, 2, size=4)
    Q = ad.integrate(m, q, V)
    assert Q.shape == (4, m.nq)
    assert np.allclose(Q[2], ad.integrate(m, q, V[2]))


# --- random states --------------------------------------------------------------------------


def test_random_configuration_within_limits():
    m = small_tree()
    Q = ad.random_configuration(m, 0, size=2000)
    assert Q.shape == (2000, m.nq) and np.all(ad.within_limits(m, Q))
    b = Q[:, m.q_slice("b_joint")][:, 0]
    assert b.min() >= -1 and b.max() <= 1 and b.min() < -0.9 and b.max() > 0.9
    e = Q[:, m.q_slice("e_joint")][:, 0]  # continuous: [-pi, pi]
    assert e.min() >= -np.pi and e.max() <= np.pi and e.min() < -3.0 and e.max() > 3.0
    d = Q[:, m.q_slice("d_joint")][:, 0]  # unlimited prismatic: [-1, 1] m
    assert np.abs(d).max() <= 1 and np.abs(d).max() > 0.95
    assert np.all(np.abs(Q[:, :3]) <= 1)
    for s in m.quaternion_slices:
        assert np.allclose(np.linalg.norm(Q[:, s], axis=1), 1, atol=1e-15)
    # reproducible from the seed
    assert np.array_equal(ad.random_configuration(m, 5), ad.random_configuration(m, 5))
    q = ad.random_configuration(m, 6)
    assert q.shape == (m.nq,) and ad.within_limits(m, q)
    q[m.q_slice("b_joint")] = 1.5
    assert not ad.within_limits(m, q)


def test_random_configuration_one_sided_limit():
    b = ad.ModelBuilder("one_sided")
    b.add_body("l1", "world", "revolute", mass=1, inertia=np.eye(3) * 1e-3, lower=3.5)
    b.add_body("l2", "l1", "prismatic", mass=1, inertia=np.eye(3) * 1e-3, upper=-2.0)
    m = b.build()
    Q = ad.random_configuration(m, 1, size=500)
    assert np.all(ad.within_limits(m, Q))
    assert Q[:, 0].min() >= 3.5 and Q[:, 1].max() <= -2.0


def test_random_quaternions_are_uniform():
    """Uniform unit quaternions have E[q q^T] = I / 4 and no preferred sign or axis."""
    m = small_tree()
    Q = ad.random_configuration(m, 11, size=4000)
    for s in m.quaternion_slices:
        u = Q[:, s]
        C = np.einsum("ni,nj->ij", u, u) / len(u)
        assert np.allclose(C, np.eye(4) / 4, atol=0.02)
        assert np.allclose(u.mean(axis=0), 0, atol=0.04)
        # the rotation angle of a uniform rotation has density (1 - cos t) / pi: mean pi/2 + 2/pi
        t = 2 * np.arccos(np.clip(np.abs(u[:, 3]), 0, 1))
        assert abs(t.mean() - (np.pi / 2 + 2 / np.pi)) < 0.04


def test_random_velocity():
    m = small_tree()
    assert ad.random_velocity(m, 0).shape == (m.nv,)
    V = ad.random_velocity(m, 0, size=3000, scale=2.0)
    assert V.shape == (3000, m.nv) and abs(V.std() - 2.0) < 0.05


# --- Model.replace and immutability ----------------------------------------------------------


def test_model_replace():
    m = small_tree()
    d = np.arange(m.nv, dtype=float)
    m2 = m.replace(damping=d, armature=0.1, gravity=(0, 0, -1.62))
    assert np.array_equal(m2.damping, d) and np.all(m2.armature == 0.1) and m2.armature.shape == (m.nv,)
    assert np.array_equal(m2.gravity, [0, 0, -1.62])
    assert np.all(m.damping == 0) and np.all(m.armature == 0) and m.gravity[2] == -9.81
    assert m2.body_names == m.body_names and np.array_equal(m2.I, m.I) and m2.nq == m.nq
    assert m2.frame("tcp").body == m.frame("tcp").body
    assert np.allclose(ad.frame_placement(m2, ad.neutral(m), "tcp"), ad.frame_placement(m, ad.neutral(m), "tcp"))
    with pytest.raises(ad.ShapeError, match=f"damping has 3 entries.*needs {m.nv}"):
        m.replace(damping=[1, 2, 3])
    with pytest.raises(ad.ModelError, match="coulomb must be finite and >= 0"):
        m.replace(coulomb=-1.0)
    with pytest.raises(AttributeError, match="no field 'dampig'"):
        m.replace(dampig=d)


def test_model_is_immutable():
    m = small_tree()
    with pytest.raises(AttributeError, match="immutable"):
        m.nb = 3
    with pytest.raises(ValueError):
        m.mass[1] = 3.0
    with pytest.raises(ValueError):
        m.joint_placement[1][0, 3] = 1.0


# --- lumping and frames ---------------------------------------------------------------------


def parallel_axis(m, d):
    """Inertia of a point mass m at d about the origin: m (|d|^2 1 - d d^T)."""
    return m * (d @ d * np.eye(3) - np.outer(d, d))


def test_lumping_of_fixed_bodies_by_hand():
    """A moving body A with a fixed child F and grandchild G (fixed on fixed): mass, com, inertia."""
    rng = np.random.default_rng(8)
    mA, cA, IA = 2.0, np.array([0.1, 0.0, -0.2]), box_inertia(2.0, 0.2, 0.3, 0.4)
    mF, cF, IF = 0.7, np.array([0.0, 0.05, 0.02]), box_inertia(0.7, 0.1, 0.1, 0.3)
    mG, cG, IG = 0.3, np.array([0.02, 0.0, 0.0]), box_inertia(0.3, 0.05, 0.2, 0.1)
    RF, pF = rpy_to_matrix(np.array([0.3, -0.4, 1.1])), np.array([0.2, -0.1, 0.3])
    RG, pG = rpy_to_matrix(np.array([-0.2, 0.5, 0.1])), np.array([0.0, 0.1, 0.05])
    b = ad.ModelBuilder("lump")
    b.add_fixed_body("pedestal", "world", xyz=(0, 0, 0.5), mass=5.0, inertia=box_inertia(5, 1, 1, 1))
    b.add_body("A", "pedestal", "revolute", axis=(0, 0, 1), mass=mA, com=cA, inertia=IA)
    b.add_fixed_body("F", "A", placement=homogeneous(RF, pF), mass=mF, com=cF, inertia=IF)
    b.add_fixed_body("G", "F", placement=homogeneous(RG, pG), mass=mG, com=cG, inertia=IG)
    b.add_body("B", "G", "prismatic", axis=(1, 0, 0), xyz=(0.1, 0, 0), mass=1.0, inertia=box_inertia(1, .1, .1, .1))
    b.add_frame("tcp", "G", xyz=(0, 0, 0.2))
    m = b.build()
    assert m.nb == 2 and m.body_names == ["world", "A", "B"]
    # hand computation, all in A's frame
    RG_A, pG_A = RF @ RG, RF @ pG + pF
    parts = [(mA, cA, IA), (mF, RF @ cF + pF, RF @ IF @ RF.T), (mG, RG_A @ cG + pG_A, RG_A @ IG @ RG_A.T)]
    M = sum(p[0] for p in parts)
    c = sum(p[0] * p[1] for p in parts) / M
    I_c = sum(I + parallel_axis(mi, ci - c) for mi, ci, I in parts)
    assert np.isclose(m.mass[1], M, rtol=1e-15) and np.isclose(m.total_mass, M + 1.0)
    assert np.allclose(m.com[1], c, atol=1e-15) and np.allclose(m.inertia_com[1], I_c, atol=1e-14)
    # spatial inertia about A's origin: [[I_c + m [c][c]^T, m [c]], [m [c]^T, m 1]]
    C = skew(c)
    assert np.allclose(m.I[1][:3, :3], I_c + M * C @ C.T, atol=1e-14)
    assert np.allclose(m.I[1][:3, 3:], M * C, atol=1e-15)
    # the pedestal is lumped into the world (row 0) and leaves the moving mass alone
    assert np.isclose(m.mass[0], 5.0) and np.allclose(m.com[0], [0, 0, 0.5])
    # B hangs from G: its joint placement in A is F @ G @ xyz
    assert np.allclose(m.joint_placement[2], homogeneous(RG_A, pG_A) @ homogeneous(np.eye(3), [0.1, 0, 0]))
    assert np.allclose(m.joint_placement[1], homogeneous(np.eye(3), [0, 0, 0.5]))
    # frames: fixed bodies are "link" frames on their moving ancestor, added frames are "op"
    kinds = {f.name: (f.kind, f.body) for f in m.frames}
    assert kinds["world"] == ("body", 0) and kinds["A"] == ("body", 1) and kinds["B"] == ("body", 2)
    assert kinds["pedestal"] == ("link", 0) and kinds["F"] == ("link", 1) and kinds["G"] == ("link", 1)
    assert kinds["tcp"] == ("op", 1)
    assert np.allclose(m.frame("G").placement, homogeneous(RG_A, pG_A))
    q = np.array([0.7, 0.1])
    T_A = ad.body_placements(m, q)[1]
    assert np.allclose(ad.frame_placement(m, q, "tcp"), T_A @ homogeneous(RG_A, pG_A) @ homogeneous(np.eye(3), [0, 0, 0.2]))
    assert m.frame_names[:3] == ["world", "A", "B"] and "tcp" in m.frame_names


def test_massless_moving_body_with_massive_child_is_reported():
    b = ad.ModelBuilder("massless")
    b.add_body("link1", "world", "revolute")  # zero mass but it carries link2
    b.add_body("link2", "link1", "revolute", axis=(1, 0, 0), xyz=(0.3, 0, 0), mass=1.0, inertia=np.eye(3) * 1e-2)
    m = b.build()
    assert m.mass[1] == 0 and np.allclose(m.I[1][3:, 3:], 0)
    assert any("link1" in n.element and "massless" in n.message for n in m.load_report)


def test_summary_lists_bodies():
    m = small_tree()
    s = m.summary()
    for name in m.body_names[1:] + m.joint_names[1:]:
        assert name in s
    assert "f" in s.splitlines()[-1] and "tcp" in s
