"""Spatial algebra: rotations (Euler / Tait-Bryan, quaternions, exp/log), 6x6 transforms, inertia.

Peers: scipy.spatial.transform.Rotation for rotations; the seed's identities for the 6x6 algebra
(A^t = transpose of A, A^-1 its inverse, crf = -crm^T, X crm(v) X^-1 = crm(X v), kinetic energy
invariant under change of frame).
"""
import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from artidyn.spatial import (
    A, A_inv, A_inv_t, A_t, GimbalLockWarning, PROPER_ORDERS, TAIT_BRYAN_ORDERS,
    axis_angle_to_matrix, cross_force, cross_motion, crf, crm, euler_to_matrix, exp3, exp6,
    force_apply, force_apply_inv, homogeneous, inertia_parts, inertia_transform, inv_homogeneous,
    log3, log6, matrix_to_euler, matrix_to_quat, matrix_to_rpy, motion_apply, motion_apply_inv,
    quat_conjugate, quat_multiply, quat_to_matrix, quat_to_rotvec, rotvec_to_quat, rotx, roty,
    rotz, rpy_to_matrix, skew, spatial_inertia, transform_point, unskew,
)

ALL_ORDERS = [o for base in PROPER_ORDERS + TAIT_BRYAN_ORDERS for o in (base, base.upper())]
N = 8  # random samples per check


def wrap_diff(a, b):
    """Angle difference mapped to (-pi, pi]."""
    return np.angle(np.exp(1j * (np.asarray(a) - np.asarray(b))))


def random_rotations(rng, n):
    return Rotation.random(n, random_state=rng.integers(1 << 31)).as_matrix()


def random_transforms(rng, n):
    return homogeneous(random_rotations(rng, n), rng.normal(size=(n, 3)))


def random_inertias(rng, n):
    m = rng.uniform(0.5, 3.0, n)
    com = rng.normal(scale=0.3, size=(n, 3))
    L = rng.normal(size=(n, 3, 3))
    I_com = L @ np.swapaxes(L, -1, -2) + 0.1 * np.eye(3)
    return m, com, I_com


# --- Euler / Tait-Bryan ---------------------------------------------------------------------


def test_twelve_orders_listed():
    assert len(set(PROPER_ORDERS)) == 6 and len(set(TAIT_BRYAN_ORDERS)) == 6
    assert all(o[0] == o[2] for o in PROPER_ORDERS)
    assert all(len(set(o)) == 3 for o in TAIT_BRYAN_ORDERS)


@pytest.mark.parametrize("order", ALL_ORDERS)
def test_euler_to_matrix_matches_scipy(order, rng):
    angles = rng.uniform(-np.pi, np.pi, (N, 3))
    R = euler_to_matrix(angles, order)
    assert R.shape == (N, 3, 3)
    np.testing.assert_allclose(R, Rotation.from_euler(order, angles).as_matrix(), atol=1e-13)
    # single state
    np.testing.assert_allclose(euler_to_matrix(angles[0], order), R[0], atol=1e-15)


@pytest.mark.parametrize("order", ALL_ORDERS)
def test_matrix_to_euler_round_trip_and_scipy(order, rng):
    R = random_rotations(rng, N)
    angles, lock = matrix_to_euler(R, order, return_flag=True)
    assert angles.shape == (N, 3) and lock.shape == (N,) and not lock.any()
    np.testing.assert_allclose(euler_to_matrix(angles, order), R, atol=1e-13)
    # same branch as scipy (middle angle range, first/third in (-pi, pi])
    np.testing.assert_allclose(wrap_diff(angles, Rotation.from_matrix(R).as_euler(order)), 0, atol=1e-10)
    mid = angles[:, 1]
    if order.lower() in PROPER_ORDERS:
        assert np.all((mid >= 0) & (mid <= np.pi))
    else:
        assert np.all(np.abs(mid) <= np.pi / 2)
    assert np.all(np.abs(angles[:, [0, 2]]) <= np.pi)
    # angles -> matrix -> angles inside the principal ranges
    np.testing.assert_allclose(wrap_diff(matrix_to_euler(euler_to_matrix(angles, order), order), angles), 0,
                               atol=1e-10)


@pytest.mark.parametrize("order", ALL_ORDERS)
def test_gimbal_lock(order, rng):
    proper = order.lower() in PROPER_ORDERS
    singular = (0.0, np.pi) if proper else (np.pi / 2, -np.pi / 2)
    angles = rng.uniform(-np.pi, np.pi, (4, 3))
    angles[:2, 1], angles[2:, 1] = singular
    R = euler_to_matrix(angles, order)
    out, lock = matrix_to_euler(R, order, return_flag=True)
    assert lock.all()
    assert np.all(np.isfinite(out))
    np.testing.assert_array_equal(out[:, 2], 0.0)
    np.testing.assert_allclose(euler_to_matrix(out, order), R, atol=1e-12)
    with pytest.warns(GimbalLockWarning):
        again = matrix_to_euler(R, order)
    np.testing.assert_allclose(again, out)


def test_near_gimbal_lock_is_accurate():
    # 1e-6 rad from lock: not flagged, first and third angles ill-conditioned but R reproduced
    for order in ("ZYX", "zxz", "xzy"):
        mid = (1e-6 if order.lower() in PROPER_ORDERS else np.pi / 2 - 1e-6)
        R = euler_to_matrix(np.array([0.3, mid, -1.1]), order)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = matrix_to_euler(R, order)
        np.testing.assert_allclose(euler_to_matrix(out, order), R, atol=1e-14)
        np.testing.assert_allclose(out[1], mid, atol=1e-9)


def test_euler_bad_order_and_shape():
    for bad in ("zzx", "xYz", "abc", "xy", 3):
        with pytest.raises(ValueError, match="order"):
            euler_to_matrix(np.zeros(3), bad)
    with pytest.raises(ValueError, match=r"\(\.\.\., 3\)"):
        euler_to_matrix(np.zeros(4), "xyz")
    with pytest.raises(ValueError, match="NaN"):
        matrix_to_euler(np.full((3, 3), np.nan), "xyz")


def test_euler_batch_shapes(rng):
    angles = rng.uniform(-1, 1, (2, 3, 3))
    R = euler_to_matrix(angles, "ZXZ")
    assert R.shape == (2, 3, 3, 3)
    back = matrix_to_euler(R, "ZXZ")
    assert back.shape == (2, 3, 3)
    np.testing.assert_allclose(euler_to_matrix(back, "ZXZ"), R, atol=1e-14)


# --- roll-pitch-yaw ---------------------------------------------------------------------------


def test_rpy_matches_scipy_extrinsic_xyz(rng):
    rpy = rng.uniform(-np.pi, np.pi, (N, 3))
    rpy[:, 1] /= 2
    R = rpy_to_matrix(rpy)
    np.testing.assert_allclose(R, Rotation.from_euler("xyz", rpy).as_matrix(), atol=1e-14)
    np.testing.assert_allclose(matrix_to_rpy(R), rpy, atol=1e-12)
    np.testing.assert_allclose(R, euler_to_matrix(rpy, "xyz"), atol=1e-15)


def test_rpy_gimbal_lock():
    R = rpy_to_matrix(np.array([[0.4, np.pi / 2, -0.2], [0.1, -np.pi / 2, 0.7]]))
    rpy, lock = matrix_to_rpy(R, return_flag=True)
    assert lock.all() and np.all(rpy[:, 2] == 0)
    np.testing.assert_allclose(rpy_to_matrix(rpy), R, atol=1e-12)
    with pytest.warns(GimbalLockWarning):
        matrix_to_rpy(R)


# --- elementary rotations, Rodrigues, quaternions, exp / log -----------------------------------


def test_elementary_rotations_and_rodrigues(rng):
    th = rng.uniform(-3, 3, N)
    for k, rot in enumerate((rotx, roty, rotz)):
        e = np.eye(3)[k]
        np.testing.assert_allclose(rot(th), Rotation.from_rotvec(th[:, None] * e).as_matrix(), atol=1e-14)
    u = rng.normal(size=(N, 3))
    u /= np.linalg.norm(u, axis=-1, keepdims=True)
    R = axis_angle_to_matrix(u, th)
    np.testing.assert_allclose(R, exp3(th[:, None] * u), atol=1e-14)
    np.testing.assert_allclose(R, Rotation.from_rotvec(th[:, None] * u).as_matrix(), atol=1e-14)


def test_quaternions_vs_scipy(rng):
    Rs = Rotation.random(N, random_state=1)
    q = Rs.as_quat()  # scalar last
    np.testing.assert_allclose(quat_to_matrix(q), Rs.as_matrix(), atol=1e-14)
    q_back = matrix_to_quat(Rs.as_matrix())
    assert np.all(q_back[:, 3] >= 0)
    np.testing.assert_allclose(q_back * np.sign(q[:, 3:4]), q, atol=1e-14)
    # Hamilton product: R(q1 q2) = R(q1) R(q2)
    R2 = Rotation.random(N, random_state=2)
    prod = quat_multiply(q, R2.as_quat())
    np.testing.assert_allclose(quat_to_matrix(prod), (Rs * R2).as_matrix(), atol=1e-14)
    np.testing.assert_allclose(quat_to_matrix(quat_conjugate(q)), Rs.inv().as_matrix(), atol=1e-14)
    # rotation vectors
    w = Rs.as_rotvec()
    np.testing.assert_allclose(quat_to_rotvec(q), w, atol=1e-13)
    np.testing.assert_allclose(quat_to_matrix(rotvec_to_quat(w)), Rs.as_matrix(), atol=1e-14)


def test_matrix_to_quat_every_shepperd_branch():
    # rotations by ~pi about x, y, z select the three diagonal branches; identity the trace one
    Rs = Rotation.from_rotvec(np.array([[3.1, 0.1, 0], [0, 3.1, 0.1], [0.1, 0, 3.1], [0.1, 0.2, 0.1]]))
    q = matrix_to_quat(Rs.as_matrix())
    np.testing.assert_allclose(quat_to_matrix(q), Rs.as_matrix(), atol=1e-14)
    np.testing.assert_allclose(np.abs(q), np.abs(Rs.as_quat()), atol=1e-14)


@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-7, 1e-3, 1.0, 3.0, np.pi - 1e-4, np.pi - 1e-9, np.pi])
def test_exp3_log3_near_zero_and_pi(angle, rng):
    u = rng.normal(size=3)
    u /= np.linalg.norm(u)
    w = angle * u
    R = exp3(w)
    np.testing.assert_allclose(R, Rotation.from_rotvec(w).as_matrix(), atol=1e-14)
    w_back = log3(R)
    assert np.all(np.isfinite(w_back))
    if angle < np.pi - 1e-6:
        np.testing.assert_allclose(w_back, w, atol=1e-9 if angle > 3 else 1e-14)
    else:  # axis sign is ambiguous at pi
        np.testing.assert_allclose(np.abs(w_back @ u), angle, atol=1e-7)
    np.testing.assert_allclose(exp3(w_back), R, atol=1e-12)


def test_exp6_log6_round_trip(rng):
    nu = rng.normal(size=(N, 6))
    nu[0, :3] = 0.0  # pure translation
    nu[1, :3] *= 1e-9
    T = exp6(nu)
    np.testing.assert_allclose(T[..., :3, :3], exp3(nu[:, :3]), atol=1e-14)
    np.testing.assert_allclose(T[0, :3, 3], nu[0, 3:], atol=1e-15)
    np.testing.assert_allclose(exp6(log6(T)), T, atol=1e-12)
    small = nu[:, :3].copy()
    ok = np.linalg.norm(small, axis=-1) < np.pi
    np.testing.assert_allclose(log6(T)[ok], nu[ok], atol=1e-12)


def test_exp6_is_the_flow_of_a_constant_twist():
    # d/dt exp6(t nu) = exp6(t nu) [nu]^  (body twist): central difference
    nu = np.array([0.3, -0.2, 0.5, 1.0, 0.4, -0.7])
    h = 1e-6
    dT = (exp6((1 + h) * nu) - exp6((1 - h) * nu)) / (2 * h)
    hat = np.zeros((4, 4))
    hat[:3, :3] = skew(nu[:3])
    hat[:3, 3] = nu[3:]
    np.testing.assert_allclose(dT, exp6(nu) @ hat, atol=1e-8)


# --- homogeneous transforms and the seed's four 6x6 matrices ----------------------------------


def test_homogeneous_inverse(rng):
    T = random_transforms(rng, N)
    Ti = inv_homogeneous(T)
    np.testing.assert_allclose(T @ Ti, np.broadcast_to(np.eye(4), T.shape), atol=1e-14)
    np.testing.assert_allclose(Ti, np.linalg.inv(T), atol=1e-13)
    x = rng.normal(size=(N, 3))
    np.testing.assert_allclose(transform_point(Ti, transform_point(T, x)), x, atol=1e-14)


def test_skew_unskew(rng):
    a, b = rng.normal(size=(2, N, 3))
    np.testing.assert_allclose((skew(a) @ b[..., None])[..., 0], np.cross(a, b), atol=1e-15)
    np.testing.assert_allclose(unskew(skew(a)), a)


def test_six_by_six_transforms(rng):
    T = random_transforms(rng, N)
    At, Ai, Ait, Af = A_t(T), A_inv(T), A_inv_t(T), A(T)
    eye6 = np.broadcast_to(np.eye(6), (N, 6, 6))
    np.testing.assert_allclose(At, np.swapaxes(Af, -1, -2), atol=1e-15)
    np.testing.assert_allclose(Ai @ Af, eye6, atol=1e-14)
    np.testing.assert_allclose(Ait, np.swapaxes(Ai, -1, -2), atol=1e-15)
    np.testing.assert_allclose(Ait @ At, eye6, atol=1e-14)
    # the transform of the inverse placement
    np.testing.assert_allclose(A_t(inv_homogeneous(T)), Ait, atol=1e-14)
    m, f = rng.normal(size=(2, N, 6))
    mv = lambda M, x: (M @ x[..., None])[..., 0]  # noqa: E731
    np.testing.assert_allclose(motion_apply(T, m), mv(Ait, m), atol=1e-14)
    np.testing.assert_allclose(motion_apply_inv(T, m), mv(At, m), atol=1e-14)
    np.testing.assert_allclose(force_apply(T, f), mv(Af, f), atol=1e-14)
    np.testing.assert_allclose(force_apply_inv(T, f), mv(Ai, f), atol=1e-14)
    # power f . m is frame independent
    np.testing.assert_allclose(np.sum(force_apply(T, f) * motion_apply(T, m), -1), np.sum(f * m, -1), atol=1e-13)


def test_motion_transform_is_a_rigid_velocity_field(rng):
    # a body twist [w; v_O2] given in frame 2 gives, in frame 1, w1 = R w and the velocity of O1
    T = random_transforms(rng, 1)[0]
    R, p = T[:3, :3], T[:3, 3]
    w2, v2 = rng.normal(size=(2, 3))
    V1 = motion_apply(T, np.concatenate([w2, v2]))
    w1 = R @ w2
    v_O2_in_1 = R @ v2
    np.testing.assert_allclose(V1[:3], w1)
    np.testing.assert_allclose(V1[3:], v_O2_in_1 + np.cross(w1, 0 - p), atol=1e-14)


def test_cross_products(rng):
    v, x, f = rng.normal(size=(3, N, 6))
    mv = lambda M, y: (M @ y[..., None])[..., 0]  # noqa: E731
    np.testing.assert_allclose(mv(crm(v), x), cross_motion(v, x), atol=1e-14)
    np.testing.assert_allclose(mv(crf(v), f), cross_force(v, f), atol=1e-14)
    np.testing.assert_allclose(crf(v), -np.swapaxes(crm(v), -1, -2), atol=0)
    np.testing.assert_allclose(cross_motion(v, v), 0, atol=1e-15)
    # the seed's operators: crm(v) w = [w1 x w2; w1 x v2 + v1 x w2]
    np.testing.assert_allclose(cross_motion(v, x)[:, :3], np.cross(v[:, :3], x[:, :3]), atol=1e-15)
    # X crm(v) X^-1 = crm(X v), and the dual statement for forces
    T = random_transforms(rng, N)
    X, Xi = A_inv_t(T), A_t(T)
    np.testing.assert_allclose(X @ crm(v) @ Xi, crm(mv(X, v)), atol=1e-13)
    np.testing.assert_allclose(A(T) @ crf(v) @ A_inv(T), crf(mv(X, v)), atol=1e-13)


# --- spatial inertia ----------------------------------------------------------------------------


def test_spatial_inertia(rng):
    m, com, I_com = random_inertias(rng, N)
    I6 = spatial_inertia(m, com, I_com)
    assert I6.shape == (N, 6, 6)
    np.testing.assert_allclose(I6, np.swapaxes(I6, -1, -2), atol=1e-15)
    assert np.all(np.linalg.eigvalsh(I6) > 0)
    m2, com2, I2 = inertia_parts(I6)
    np.testing.assert_allclose(m2, m)
    np.testing.assert_allclose(com2, com, atol=1e-14)
    np.testing.assert_allclose(I2, I_com, atol=1e-13)
    # kinetic energy of a twist about the origin: m |v_G|^2 / 2 + w.I_G w / 2
    V = rng.normal(size=(N, 6))
    w, v = V[:, :3], V[:, 3:]
    vG = v + np.cross(w, com)
    T_ref = 0.5 * m * np.sum(vG * vG, -1) + 0.5 * np.einsum("ni,nij,nj->n", w, I_com, w)
    np.testing.assert_allclose(0.5 * np.einsum("ni,nij,nj->n", V, I6, V), T_ref, rtol=1e-13)


def test_inertia_transform(rng):
    m, com, I_com = random_inertias(rng, N)
    I2 = spatial_inertia(m, com, I_com)
    T = random_transforms(rng, N)
    I1 = inertia_transform(T, I2)
    np.testing.assert_allclose(I1, A(T) @ I2 @ A_t(T), atol=1e-13)
    # the same body described in frame 1: com moved, inertia rotated
    R, p = T[:, :3, :3], T[:, :3, 3]
    com1 = (R @ com[..., None])[..., 0] + p
    np.testing.assert_allclose(I1, spatial_inertia(m, com1, R @ I_com @ np.swapaxes(R, -1, -2)), atol=1e-12)
    # kinetic energy invariant: V2 = A^t V1
    V1 = rng.normal(size=(N, 6))
    V2 = motion_apply_inv(T, V1)
    e1 = np.einsum("ni,nij,nj->n", V1, I1, V1)
    e2 = np.einsum("ni,nij,nj->n", V2, I2, V2)
    np.testing.assert_allclose(e1, e2, rtol=1e-12)
    # the seed's Newton-Euler bias term: crf(V) I V is a force with zero power on V
    np.testing.assert_allclose(np.sum(cross_force(V1, (I1 @ V1[..., None])[..., 0]) * V1, -1), 0, atol=1e-11)


# --- dtype genericity ---------------------------------------------------------------------------


def test_complex_step_derivatives():
    h = 1e-30
    th = 0.7
    for k, rot in enumerate((rotx, roty, rotz)):
        dR = rot(th + 1j * h).imag / h
        np.testing.assert_allclose(dR, skew(np.eye(3)[k]) @ rot(th), atol=1e-15)
    # d/da of the intrinsic ZYX matrix: R_Z'(a) ...
    angles = np.array([0.3, -0.4, 1.2])
    dR = euler_to_matrix(angles + 1j * h * np.array([0, 1, 0]), "ZYX").imag / h
    ref = rotz(angles[0]) @ skew([0, 1, 0]) @ roty(angles[1]) @ rotx(angles[2])
    np.testing.assert_allclose(dR, ref, atol=1e-15)
    # quaternion -> matrix, and a 6x6 transform / cross product on complex input
    q = np.array([0.1, 0.2, 0.3, 0.0])
    q[3] = np.sqrt(1 - q @ q)
    dq = np.array([0.3, -0.1, 0.2, 0.5])
    dR = quat_to_matrix(q + 1j * h * dq).imag / h
    fd = (quat_to_matrix(q + 1e-6 * dq) - quat_to_matrix(q - 1e-6 * dq)) / 2e-6
    np.testing.assert_allclose(dR, fd, atol=1e-8)
    T = homogeneous(rotz(0.5 + 1j * h), np.array([1.0, 2.0, 3.0]))
    assert A(T).dtype == np.complex128 and crm(np.ones(6) * (1 + 1j)).dtype == np.complex128
    dX = A_inv_t(T).imag / h
    X = A_inv_t(T.real)
    S = np.zeros(6)
    S[2] = 1.0
    # R(theta) = Rz(theta) with p fixed: dX/dtheta = X crm(S), S = rotation about body z
    np.testing.assert_allclose(dX, X @ crm(S), atol=1e-14)
