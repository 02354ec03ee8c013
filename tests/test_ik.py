"""Inverse geometric model: numeric (LM), analytic (Pieper, parallel axes), singularities, workspace.

Every solution is checked against the reference direct geometric model (artidyn.frame_placement),
never against the solver's own numbers; analytic and multi-start numeric solutions are held
against each other; the compiled chain kernel is held against artidyn.jacobian.
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import InputError, ModelError, NameNotFound, ShapeError
from artidyn.ik import _kernels as K
from artidyn.ik._batch import chain_fk_jac_many
from artidyn.ik.analytic import family, screw_axes
from artidyn.ik.chain import support_chain
from artidyn.spatial.rotations import log3, log6, rotx, rpy_to_matrix
from conftest import erd_urdf

ROBOTS = [("puma560", "tool"), ("rx90", "tool"), ("ur5_robot", "tool0"), ("panda", "panda_hand_tcp")]


def _load(name):
    if name in ("ur5_robot", "panda"):
        erd_urdf(name)  # skips when example-robot-data is missing
    return ad.load(name)


@pytest.fixture(scope="module")
def robots():
    return {name: _load(name) for name, _ in ROBOTS}


def pose_error(model, q, frame, T):
    """(position error, rotation angle) of the frame at q against T, from the reference FK."""
    F = ad.frame_placement(model, q, frame)
    return (np.linalg.norm(F[..., :3, 3] - T[..., :3, 3], axis=-1),
            np.linalg.norm(log3(np.swapaxes(F[..., :3, :3], -1, -2) @ T[..., :3, :3]), axis=-1))


def dh_arm(rows, name):
    return ad.from_dh([dict(joint="revolute", theta=0.0, d=d, a=a, alpha=al) for d, a, al in rows], "classic",
                      name=name)


def same_set(A, B, tol=1e-6):
    """Every row of A matches a row of B (angles mod 2 pi) and conversely."""
    if len(A) != len(B):
        return False
    D = np.abs((A[:, None, :] - B[None, :, :] + np.pi) % (2 * np.pi) - np.pi).max(axis=-1)
    return bool(np.all(D.min(axis=1) < tol) and np.all(D.min(axis=0) < tol))


# --- the compiled chain kernel against the reference -------------------------------------------
def test_chain_kernel_matches_reference_fk_and_jacobian(zoo, rng):
    for label, m in zoo:
        for frame in ("tool", "tcp"):
            ch = support_chain(m, frame)
            Q = ad.random_configuration(m, rng, size=3)
            T, J = np.empty((3, 4, 4)), np.empty((3, 6, ch.nv))
            chain_fk_jac_many(np.ascontiguousarray(Q[:, ch.q_index]), ch.jtype, ch.axis, ch.X, ch.iq, ch.iv,
                              ch.tool, ch.nv, T, J)
            assert np.allclose(T, ad.frame_placement(m, Q, frame), atol=1e-12), label
            Jref = ad.jacobian(m, Q, frame, expressed="world")
            assert np.allclose(J, Jref[:, :, ch.v_index], atol=1e-12), label
            others = np.setdiff1d(np.arange(m.nv), ch.v_index)
            assert np.all(Jref[:, :, others] == 0), label


def test_task_error_is_log6_and_local_jacobian_is_its_derivative(robots, rng):
    m = robots["puma560"]
    ch = support_chain(m, "tool")
    q = ad.random_configuration(m, rng)
    Tf, Tt = ad.frame_placement(m, q, "tool"), ad.frame_placement(m, q + 0.3, "tool")
    e = np.empty(6)
    K.task_error(Tf, Tt, 0, e)
    assert np.allclose(e, log6(np.linalg.inv(Tf) @ Tt), atol=1e-13)
    perr, rerr = K.task_error(Tf, Tt, 1, e)
    assert np.allclose(e[:3], log3(Tf[:3, :3].T @ Tt[:3, :3]), atol=1e-13)
    assert np.allclose(e[3:], Tf[:3, :3].T @ (Tt[:3, 3] - Tf[:3, 3]), atol=1e-13)
    assert np.isclose(perr, np.linalg.norm(Tt[:3, 3] - Tf[:3, 3])) and np.isclose(rerr, np.linalg.norm(e[:3]))
    # T(q + h dq) ~ T(q) exp(J_local dq h): central differences of the body twist
    J = np.empty((6, 6))
    K.local_jacobian(Tf, ad.jacobian(m, q, "tool"), J)
    h = 1e-6
    for j in range(6):
        dq = np.zeros(6)
        dq[j] = h
        d = (log6(np.linalg.inv(Tf) @ ad.frame_placement(m, q + dq, "tool"))
             - log6(np.linalg.inv(Tf) @ ad.frame_placement(m, q - dq, "tool"))) / (2 * h)
        assert np.allclose(d, J[:, j], atol=1e-8)


# --- numeric solver ------------------------------------------------------------------------------
@pytest.mark.parametrize("name,frame", ROBOTS)
def test_random_reachable_targets_converge(robots, name, frame):
    m = robots[name]
    Q = ad.random_configuration(m, np.random.default_rng(7), size=12)
    T = ad.frame_placement(m, Q, frame)
    res = ad.ik(m, T, frame)  # one batch call
    assert res.success.mean() >= 0.99 and np.all(res.status == "converged")
    pe, re = pose_error(m, res.q, frame, T)
    assert np.all(pe < 1e-9) and np.all(re < 1e-9)
    assert np.all(res.position_error < 1e-9) and np.all(res.orientation_error < 1e-9)
    assert ad.within_limits(m, res.q).all()
    one = ad.ik(m, T[3], frame, seed=3)  # target 3 of a batch uses seed + 3: same answer
    assert one.success and one.status == "converged" and np.allclose(one.q, res.q[3], atol=1e-12)


def test_far_targets_are_unreachable_never_converged(robots, rng):
    for name, frame in ROBOTS:
        m = robots[name]
        ch = support_chain(m, frame)
        centre, radius = ch.reach
        dirs = rng.normal(size=(6, 3))
        dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
        T = np.repeat(np.eye(4)[None], 6, axis=0)
        T[:, :3, 3] = centre + radius * rng.uniform(1.05, 5, size=(6, 1)) * dirs
        for kind, target in (("pose", T), ("position", T[:, :3, 3])):
            res = ad.ik(m, target, frame)
            assert np.all(res.status == "unreachable") and not res.success.any(), (name, kind)
            assert np.all(res.attempts == 0) and np.all(np.isfinite(res.q))
            assert "reaches at most" in res.message[0]


def test_reach_bound_holds_and_is_close_on_the_puma(robots):
    for name, frame in ROBOTS:
        m = robots[name]
        ws = ad.workspace(m, frame, n=3000, rng=1)
        assert ws.radius <= ws.reach_bound * (1 + 1e-12), name
        assert np.allclose(ws.lower, ws.points.min(axis=0)) and np.allclose(ws.upper, ws.points.max(axis=0))
    ws = ad.workspace(robots["puma560"], "tool", n=3000, rng=1)
    assert ws.radius > 0.95 * ws.reach_bound


def planar_arm(n=2, tool_z=0.0, limits=None):
    """Planar nR arm in the x-y plane (axes z, links of 0.5 m along x), tool offset tool_z along z."""
    b = ad.ModelBuilder("planar")
    parent = "world"
    for k in range(n):
        lim = {} if limits is None else dict(lower=limits[0], upper=limits[1])
        b.add_body(f"l{k}", parent, "revolute", axis=(0, 0, 1), xyz=(0.5 * (k > 0), 0, 0), mass=1.0,
                   inertia=np.eye(3) * 1e-3, **lim)
        parent = f"l{k}"
    b.add_frame("tip", parent, xyz=(0.5, 0, tool_z))
    return b.build()


def test_unreachable_decided_at_a_full_rank_stationary_point():
    m = planar_arm(3)
    T = ad.frame_placement(m, np.array([0.3, 0.6, -0.4]), "tip")
    T[:3, :3] = T[:3, :3] @ rotx(0.5)  # tilted out of the plane: no q gives this orientation
    res = ad.ik(m, T, "tip")
    assert res.status == "unreachable" and not res.success and res.attempts > 0
    assert np.isclose(res.orientation_error, 0.5, atol=1e-6)  # best: the in-plane part matched
    out = ad.ik(planar_arm(2), np.array([0.5, 0.2, 0.3]), "tip")  # out of the plane, inside the ball
    assert out.status == "unreachable" and np.isclose(out.position_error, 0.3, atol=1e-8)


def test_singular_status_when_stuck_stretched():
    m = planar_arm(2, tool_z=0.4)  # bound l1 + sqrt(l2^2 + 0.4^2) is loose in the plane z = 0.4
    assert support_chain(m, "tip").reach[1] > 1.1
    res = ad.ik(m, np.array([1.05, 0.0, 0.4]), "tip")
    assert res.status == "singular" and res.attempts > 0
    assert np.isclose(res.position_error, 0.05, atol=1e-6)
    assert ad.is_singular(m, res.q, "tip", part="position", tol=1e-4)


def test_joint_limits_status_and_opt_out():
    m = planar_arm(1, limits=(-0.5, 0.5))
    T = ad.frame_placement(m, np.array([1.0]), "tip")
    res = ad.ik(m, T, "tip", kind="pose")
    assert res.status == "joint_limits" and not res.success
    assert np.isclose(res.q[0], 0.5) and ad.within_limits(m, res.q)
    free = ad.ik(m, T, "tip", respect_limits=False)
    assert free.success and np.isclose(free.q[0], 1.0)


def test_position_orientation_and_weighted_targets(robots, rng):
    m, frame = robots["panda"], "panda_hand_tcp"
    q = ad.random_configuration(m, rng)
    T = ad.frame_placement(m, q, frame)
    p = ad.ik(m, T[:3, 3], frame)
    assert p.success and p.kind == "position" and p.orientation_error == 0.0
    assert pose_error(m, p.q, frame, T)[0] < 1e-9
    o = ad.ik(m, T[:3, :3], frame, kind="orientation")
    assert o.success and pose_error(m, o.q, frame, T)[1] < 1e-9
    w = ad.ik(m, T, frame, weights=(0.0, 1.0))  # the orientation rows weigh nothing
    assert w.success and pose_error(m, w.q, frame, T)[0] < 1e-9
    full = ad.ik(m, T, frame, weights=(2.0, 0.5))
    assert full.success and max(pose_error(m, full.q, frame, T)) < 1e-9


def test_prismatic_spherical_and_floating_chains(zoo, rng):
    for label, m in zoo:
        if label not in ("chain_mixed6", "tree_sph_5", "floating_chain_3"):
            continue
        q = ad.random_configuration(m, rng)
        T = ad.frame_placement(m, q, "tcp")
        res = ad.ik(m, T, "tcp", q0=ad.neutral(m))
        assert res.success, label
        assert max(pose_error(m, res.q, "tcp", T)) < 1e-9
        for s in m.quaternion_slices:
            assert np.isclose(np.linalg.norm(res.q[s]), 1.0)


def test_bad_inputs_are_refused(robots):
    m = robots["puma560"]
    T = ad.frame_placement(m, np.zeros(6), "tool")
    with pytest.raises(InputError, match="NaN"):
        ad.ik(m, np.full((4, 4), np.nan), "tool")
    bad = T.copy()
    bad[:3, :3] *= 1.1
    with pytest.raises(InputError, match="not a rotation"):
        ad.ik(m, bad, "tool")
    with pytest.raises(InputError, match="ambiguous"):
        ad.ik(m, np.eye(3), "tool")
    with pytest.raises(ShapeError):
        ad.ik(m, np.zeros(5), "tool")
    with pytest.raises(ShapeError):
        ad.ik(m, T, "tool", q0=np.zeros(5))
    with pytest.raises(InputError):
        ad.ik(m, T, "tool", weights=(-1, 1))
    with pytest.raises(NameNotFound, match="did you mean"):
        ad.ik(m, T, "tol")
    with pytest.raises(InputError, match="world"):
        ad.ik(m, T, "world")


def test_null_space_posture_and_limit_objectives(robots):
    m, frame = robots["panda"], "panda_hand_tcp"
    rng = np.random.default_rng(3)
    q = ad.random_configuration(m, rng)
    T = ad.frame_placement(m, q, frame)
    q_ref = q.copy()
    q_ref[:7] += 0.3 * rng.normal(size=7)
    plain = ad.ik(m, T, frame, q0=q_ref)
    near = ad.ik(m, T, frame, q0=q_ref, q_ref=q_ref)
    assert plain.success and near.success and max(pose_error(m, near.q, frame, T)) < 1e-9
    J = ad.jacobian(m, near.q, frame)[:, :7]
    N = np.eye(7) - np.linalg.pinv(J) @ J  # first-order optimality of min |q - q_ref| on the solutions
    assert np.linalg.norm(N @ (near.q - q_ref)[:7]) < 1e-5
    assert np.linalg.norm(near.q - q_ref) <= np.linalg.norm(plain.q - q_ref) + 1e-9
    away = ad.ik(m, T, frame, q0=q_ref, avoid_limits=1.0)
    lo, hi = m.lower[:7], m.upper[:7]
    cost = lambda x: np.sum(((x[:7] - (lo + hi) / 2) / ((hi - lo) / 2)) ** 2)
    assert away.success and cost(away.q) < cost(plain.q)
    J = ad.jacobian(m, away.q, frame)[:, :7]
    grad = (away.q[:7] - (lo + hi) / 2) / ((hi - lo) / 2) ** 2
    assert np.linalg.norm((np.eye(7) - np.linalg.pinv(J) @ J) @ grad) < 1e-4


# --- analytic solver and multi-start -------------------------------------------------------------
def test_puma_generic_pose_has_8_distinct_exact_solutions(robots, rng):
    m = robots["puma560"]
    for _ in range(3):
        q = ad.random_configuration(m, rng)
        T = ad.frame_placement(m, q, "tool")
        sols = ad.ik_analytic(m, T, "tool")
        assert sols.family == "spherical_wrist" and len(sols) == 8
        assert len(set(sols.branch)) == 8
        pe, re = pose_error(m, sols.q, "tool", T)
        assert np.all(pe < 1e-10) and np.all(re < 1e-10)
        assert np.all(np.abs(ad.frame_placement(m, sols.q, "tool") - T) < 1e-10)
        assert same_set(sols.q, np.unique(np.round(sols.q, 6), axis=0), 1e-5)  # 8 distinct rows
        assert np.abs((sols.q - q + np.pi) % (2 * np.pi) - np.pi).max(axis=1).min() < 1e-8  # q is one of them
        assert sols.within_limits.any() and np.all(ad.within_limits(m, sols.q) == sols.within_limits)


ARMS = {
    "pieper_general": [(0.3, 0.15, 1.2), (0.1, 0.5, -0.4), (0.05, 0.1, 1.4), (0.45, 0, np.pi / 2),
                       (0, 0, -np.pi / 2), (0.1, 0, 0)],  # quartic in tan(q3/2)
    "pieper_parallel_12": [(0.3, 0.2, 0.0), (0.1, 0.5, np.pi / 2), (0.05, 0.1, 1.4), (0.45, 0, np.pi / 2),
                           (0, 0, -np.pi / 2), (0.1, 0, 0)],
    "ur_like": [(0.089159, 0, np.pi / 2), (0, -0.425, 0), (0, -0.39225, 0), (0.10915, 0, np.pi / 2),
                (0.09465, 0, -np.pi / 2), (0.0823, 0, 0)],
}


@pytest.mark.parametrize("arm", sorted(ARMS))
def test_analytic_on_constructed_arms_matches_multistart(arm, rng):
    m = dh_arm(ARMS[arm], arm)
    assert family(m, "tool")[0] == ("parallel_axes" if arm == "ur_like" else "spherical_wrist")
    for _ in range(4):
        q = ad.random_configuration(m, rng)
        T = ad.frame_placement(m, q, "tool")
        sols = ad.ik_analytic(m, T, "tool")
        assert 1 <= len(sols) <= 8 and sols.status == "converged"
        assert np.all(np.abs(ad.frame_placement(m, sols.q, "tool") - T) < 1e-10)
        assert np.abs((sols.q - q + np.pi) % (2 * np.pi) - np.pi).max(axis=1).min() < 1e-8
    numeric = ad.ik_all(m, T, "tool", starts=150, seed=1)
    assert same_set(sols.q, numeric.q, 1e-6)  # two independent algorithms, the same solution set


@pytest.mark.parametrize("name,frame", [("rx90", "tool"), ("ur5_robot", "tool0")])
def test_analytic_on_rx90_and_ur5(robots, name, frame, rng):
    m = robots[name]
    expected = "spherical_wrist" if name == "rx90" else "parallel_axes"
    q = ad.random_configuration(m, rng)
    T = ad.frame_placement(m, q, frame)
    sols = ad.ik_analytic(m, T, frame)
    assert sols.family == expected and len(sols) >= 2
    assert np.all(np.abs(ad.frame_placement(m, sols.q, frame) - T) < 1e-10)
    numeric = ad.ik_all(m, T, frame, starts=150, seed=2)
    inside = sols.q[sols.within_limits]
    assert same_set(inside, numeric.q, 1e-6)


def test_family_comes_from_geometry_not_name(robots):
    renamed = dh_arm(ARMS["ur_like"], "puma560")
    assert family(renamed, "tool")[0] == "parallel_axes"
    o, z, M = screw_axes(robots["puma560"], "tool")
    assert np.allclose(M, ad.frame_placement(robots["puma560"], np.zeros(6), "tool"))
    with pytest.raises(ModelError, match="6 revolute joints"):
        ad.ik_analytic(robots["panda"], np.eye(4), "panda_hand_tcp")
    other = dh_arm([(0.3, 0.15, 1.2), (0.1, 0.5, -0.4), (0.05, 0.1, 1.4), (0.45, 0.1, np.pi / 2),
                    (0, 0.1, -np.pi / 2), (0.1, 0, 0)], "generic")
    with pytest.raises(ModelError, match="no closed-form family"):
        ad.ik_analytic(other, np.eye(4), "tool")


def test_analytic_unreachable_pose(robots):
    m = robots["puma560"]
    T = np.eye(4)
    T[:3, 3] = (3.0, 0, 0)
    sols = ad.ik_analytic(m, T, "tool")
    assert len(sols) == 0 and sols.status == "unreachable"


def test_ik_all_redundant_panda_distinct_solutions(robots, rng):
    m, frame = robots["panda"], "panda_hand_tcp"
    T = ad.frame_placement(m, ad.random_configuration(m, rng), frame)
    sols = ad.ik_all(m, T, frame, starts=40)
    assert len(sols) >= 2 and sols.status == "converged"
    pe, re = pose_error(m, sols.q, frame, T)
    assert np.all(pe < 1e-9) and np.all(re < 1e-9) and sols.within_limits.all()
    D = np.abs(sols.q[:, None] - sols.q[None]).max(axis=-1) + np.eye(len(sols))
    assert D.min() > 1e-6


# --- singularities and workspace -----------------------------------------------------------------
def test_singular_postures_are_flagged(robots):
    from scipy.optimize import brentq
    puma, ur5 = robots["puma560"], robots["ur5_robot"]
    q = np.array([0.3, 0.5, -0.7, 0.4, 0.8, 0.6])
    assert not ad.singularity(puma, q, "tool").singular
    wrist = ad.singularity(puma, np.r_[q[:4], 0.0, q[5]], "tool")  # q5 = 0: axes 4 and 6 coincide
    assert wrist.singular and wrist.rank == 5 and any("'joint4' and 'joint6' coincide" in a for a in wrist.aligned)
    assert set(wrist.joints) == {"joint4", "joint6"}
    det = lambda t: np.linalg.det(ad.jacobian(puma, np.r_[q[:2], t, q[3:]], "tool"))
    t = brentq(det, -2.0, -1.0, xtol=1e-15)  # arm stretched: the elbow singularity
    elbow = ad.singularity(puma, np.r_[q[:2], t, q[3:]], "tool")
    assert elbow.singular and any("coplanar" in a for a in elbow.aligned)
    stretched = ad.singularity(ur5, np.array([0.3, -1.0, 0.0, 0.4, 0.7, 0.6]), "tool0")
    assert stretched.singular and any("lie in one plane" in a for a in stretched.aligned)
    ur_wrist = ad.singularity(ur5, np.array([0.3, -1.0, 1.2, 0.4, 0.0, 0.6]), "tool0")
    assert ur_wrist.singular and any("4 parallel axes" in a for a in ur_wrist.aligned)
    Q = np.array([q, np.r_[q[:4], 0.0, q[5]]])
    assert list(ad.is_singular(puma, Q, "tool")) == [False, True]
    assert np.isinf(ad.condition_number(puma, Q[1], "tool")) or ad.condition_number(puma, Q[1], "tool") > 1e12


def test_parallel_prismatic_axes_are_flagged():
    b = ad.ModelBuilder("pprp")
    b.add_body("a", "world", "prismatic", axis=(1, 0, 0), mass=1.0, inertia=np.eye(3) * 1e-3)
    b.add_body("d", "a", "prismatic", axis=(0, 1, 0), mass=1.0, inertia=np.eye(3) * 1e-3)
    b.add_body("b", "d", "revolute", axis=(0, 1, 0), xyz=(0, 0, 0.1), mass=1.0, inertia=np.eye(3) * 1e-3)
    b.add_body("c", "b", "prismatic", axis=(1, 0, 0), mass=1.0, inertia=np.eye(3) * 1e-3)
    m = b.build()  # at q_c = 0 the point c is on the axis of b: only a, d and c move it
    s = ad.singularity(m, np.array([0.1, 0.2, 0.0, 0.0]), "c", part="position")  # b = 0: a and c parallel
    assert s.singular and s.rank == 2 and np.allclose(np.abs(s.lost), [[0, 0, 1]])
    assert any("prismatic axes of 'a_joint' and 'c_joint' are parallel" in a for a in s.aligned)
    assert not ad.singularity(m, np.array([0.1, 0.2, 0.7, 0.0]), "c", part="position").singular


def test_manipulability_cross_checks(robots, rng):
    puma, panda = robots["puma560"], robots["panda"]
    Q = ad.random_configuration(puma, rng, size=3)
    w = ad.manipulability(puma, Q, "tool")
    assert np.allclose(w, np.abs(np.linalg.det(ad.jacobian(puma, Q, "tool"))))
    q = ad.random_configuration(panda, rng)
    J = ad.jacobian(panda, q, "panda_hand_tcp")[:, :7]
    assert np.isclose(ad.manipulability(panda, q, "panda_hand_tcp"), np.sqrt(np.linalg.det(J @ J.T)))
    s = np.linalg.svd(J[3:], compute_uv=False)
    assert np.isclose(ad.condition_number(panda, q, "panda_hand_tcp", part="position"), s[0] / s[-1])


def test_workspace_plot(robots, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    ws = ad.workspace(robots["puma560"], "tool", n=500, rng=0)
    ax = ws.plot(path=tmp_path / "ws.png")
    assert (tmp_path / "ws.png").stat().st_size > 1000 and ax.get_title().startswith("reachable")
    assert ws.points.shape == (500, 3) and ws.manipulability.shape == (500,)


# --- command line --------------------------------------------------------------------------------
def test_cli_ik(capsys):
    from artidyn.cli import main
    rc = main(["ik", "puma560", "--frame", "tool", "--xyz", "0.5", "0.2", "0.3", "--rpy", "0", "90", "0",
               "--deg", "--all"])
    out = capsys.readouterr().out
    assert rc == 0 and "spherical_wrist" in out and "8 solution(s)" in out
    T = np.eye(4)
    T[:3, :3] = rpy_to_matrix(np.radians([0, 90, 0]))
    T[:3, 3] = (0.5, 0.2, 0.3)
    m = ad.load("puma560")
    q1 = np.radians([float(x) for x in out.split("q (deg) = [")[1].split("]")[0].split()])
    assert max(pose_error(m, q1, "tool", T)) < 1e-5  # printed with 6 decimals
    rc = main(["ik", "puma560", "--frame", "tool", "--xyz", "3", "0", "0"])
    out = capsys.readouterr().out
    assert rc == 1 and "status: unreachable" in out
    rc = main(["ik", "puma560", "--frame", "tool", "--xyz", "0.4", "0.1", "0.3"])
    assert rc == 0 and "status: converged" in capsys.readouterr().out


def test_solutions_checked_by_pinocchio(robots, rng):
    """The analytic UR5 solutions and a numeric Panda solution, placed by pinocchio (a peer)."""
    pin = pytest.importorskip("pinocchio")
    from pin_utils import pin_model, to_pin_q
    for name, frame, solve in (("ur5_robot", "tool0", ad.ik_analytic), ("panda", "panda_hand_tcp", ad.ik)):
        m = robots[name]
        pm = pin_model(erd_urdf(name))
        pd = pm.createData()
        T = ad.frame_placement(m, ad.random_configuration(m, rng), frame)
        res = solve(m, T, frame)
        for q in np.atleast_2d(res.q):
            pin.framesForwardKinematics(pm, pd, to_pin_q(m, pm, q))
            assert np.abs(pd.oMf[pm.getFrameId(frame)].homogeneous - T).max() < 1e-9, name
