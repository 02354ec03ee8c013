"""Compiled kernels of the numeric inverse geometric model (numba, ``cache=True``).

They work on the *support chain* of the target frame only (the joints from the root to the
frame's body), packed by :mod:`artidyn.ik.chain`: ``jtype``, ``axis``, ``X`` (joint placement in
the parent body frame), ``iq`` / ``iv`` (offsets in the chain's q and v), ``tool`` (frame in the
last body). One pass from the root gives the frame placement and its Jacobian (world axes, at
the frame origin; the reference is :func:`artidyn.jacobian`, against which tests hold it).

The solver is Levenberg-Marquardt on the error e (6,) between the frame placement T(q) and the
target T*:

- ``mode 0`` (pose): ``e = log6(T(q)^-1 T*)``, the body twist that carries T(q) onto T*;
- ``mode 1`` (position and/or orientation): ``e = [log3(R^T R*); R^T (p* - p)]``, rows weighted
  by ``w`` (a zero weight drops a row).

With the local Jacobian J (``T(q + dq) ~ T(q) exp(J dq)``) each step solves
``(J^T W J + mu I) dq = J^T W e`` (Nielsen's update of ``mu``); joints resting on a limit whose
gradient pushes outwards are frozen for the step (an active set), the others are clipped. In
the null space of the task, ``N z`` with ``N = I - (H + lambda D)^-1 H`` (D: the Hessian of the
secondary objective) moves towards a reference posture and away from the limits (redundant arms).
"""
import numpy as np
from numba import njit

from ..kernels import _cache  # noqa: F401  (one cache stamp over every compiled module)

REVOLUTE, PRISMATIC, SPHERICAL, FREE = 0, 1, 2, 3
# outcome of one attempt (REACH: the target is beyond the chain's reach bound, no attempt made)
CONVERGED, UNREACHABLE, SINGULAR, LIMITS, MAX_ITER, REACH = 0, 1, 2, 3, 4, 5


@njit(cache=True)
def _axis_rot(a, th, R):
    """Rodrigues: R = rotation by angle th about the unit axis a."""
    c, s = np.cos(th), np.sin(th)
    t = 1.0 - c
    x, y, z = a[0], a[1], a[2]
    R[0, 0] = c + x * x * t
    R[0, 1] = x * y * t - z * s
    R[0, 2] = x * z * t + y * s
    R[1, 0] = y * x * t + z * s
    R[1, 1] = c + y * y * t
    R[1, 2] = y * z * t - x * s
    R[2, 0] = z * x * t - y * s
    R[2, 1] = z * y * t + x * s
    R[2, 2] = c + z * z * t


@njit(cache=True)
def _quat_rot(x, y, z, w, R):
    R[0, 0] = 1 - 2 * (y * y + z * z)
    R[0, 1] = 2 * (x * y - z * w)
    R[0, 2] = 2 * (x * z + y * w)
    R[1, 0] = 2 * (x * y + z * w)
    R[1, 1] = 1 - 2 * (x * x + z * z)
    R[1, 2] = 2 * (y * z - x * w)
    R[2, 0] = 2 * (x * z - y * w)
    R[2, 1] = 2 * (y * z + x * w)
    R[2, 2] = 1 - 2 * (x * x + y * y)


@njit(cache=True)
def fk_jac(q, jtype, axis, X, iq, iv, tool, Tf, Jw, Rs, ps, with_jac):
    """Frame placement Tf (4, 4) and, if ``with_jac``, Jacobian Jw (6, nv) in world axes.

    ``T_k = T_{k-1} X_k T_J(q_k)``; column of a joint with body-frame subspace s = [s_w; s_v]:
    ``[R_k s_w; R_k s_v + (R_k s_w) x (p_f - p_k)]``. ``Rs`` (nj + 1, 3, 3) and ``ps``
    (nj + 1, 3) are scratch: the body rotations and origins, row nj is the joint transform.
    """
    nj = jtype.shape[0]
    RJ = Rs[nj]
    pJ = ps[nj]
    for k in range(nj):
        t = jtype[k]
        o = iq[k]
        pJ[0] = pJ[1] = pJ[2] = 0.0
        if t == REVOLUTE:
            _axis_rot(axis[k], q[o], RJ)
        elif t == PRISMATIC:
            for i in range(3):
                for j in range(3):
                    RJ[i, j] = 1.0 if i == j else 0.0
                pJ[i] = axis[k, i] * q[o]
        elif t == SPHERICAL:
            _quat_rot(q[o], q[o + 1], q[o + 2], q[o + 3], RJ)
        else:
            _quat_rot(q[o + 3], q[o + 4], q[o + 5], q[o + 6], RJ)
            for i in range(3):
                pJ[i] = q[o + i]
        # (R, p) <- (R, p) X_k T_J, with (R, p) = identity before the first joint
        if k == 0:
            for i in range(3):
                ps[0, i] = X[0, i, 3] + X[0, i, 0] * pJ[0] + X[0, i, 1] * pJ[1] + X[0, i, 2] * pJ[2]
                for j in range(3):
                    Rs[0, i, j] = X[0, i, 0] * RJ[0, j] + X[0, i, 1] * RJ[1, j] + X[0, i, 2] * RJ[2, j]
            continue
        R = Rs[k - 1]
        p = ps[k - 1]
        for i in range(3):
            pi = p[i]
            for j in range(3):
                pi += R[i, j] * (X[k, j, 3] + X[k, j, 0] * pJ[0] + X[k, j, 1] * pJ[1] + X[k, j, 2] * pJ[2])
            ps[k, i] = pi
        for i in range(3):
            rx0 = R[i, 0] * X[k, 0, 0] + R[i, 1] * X[k, 1, 0] + R[i, 2] * X[k, 2, 0]
            rx1 = R[i, 0] * X[k, 0, 1] + R[i, 1] * X[k, 1, 1] + R[i, 2] * X[k, 2, 1]
            rx2 = R[i, 0] * X[k, 0, 2] + R[i, 1] * X[k, 1, 2] + R[i, 2] * X[k, 2, 2]
            for j in range(3):
                Rs[k, i, j] = rx0 * RJ[0, j] + rx1 * RJ[1, j] + rx2 * RJ[2, j]
    R = Rs[nj - 1]
    p = ps[nj - 1]
    for i in range(3):
        for j in range(3):
            Tf[i, j] = R[i, 0] * tool[0, j] + R[i, 1] * tool[1, j] + R[i, 2] * tool[2, j]
        Tf[i, 3] = p[i] + R[i, 0] * tool[0, 3] + R[i, 1] * tool[1, 3] + R[i, 2] * tool[2, 3]
        Tf[3, i] = 0.0
    Tf[3, 3] = 1.0
    if not with_jac:
        return
    for i in range(6):
        for c in range(Jw.shape[1]):
            Jw[i, c] = 0.0
    for k in range(nj):
        t = jtype[k]
        ncol = 1 if t <= PRISMATIC else (3 if t == SPHERICAL else 6)
        r0, r1, r2 = Tf[0, 3] - ps[k, 0], Tf[1, 3] - ps[k, 1], Tf[2, 3] - ps[k, 2]
        for c in range(ncol):
            # body-frame subspace column s = [s_w; s_v] -> world axes: w = R s_w, v = R s_v
            col = iv[k] + c
            for i in range(3):
                if t == REVOLUTE:
                    w, v = Rs[k, i, 0] * axis[k, 0] + Rs[k, i, 1] * axis[k, 1] + Rs[k, i, 2] * axis[k, 2], 0.0
                elif t == PRISMATIC:
                    w, v = 0.0, Rs[k, i, 0] * axis[k, 0] + Rs[k, i, 1] * axis[k, 1] + Rs[k, i, 2] * axis[k, 2]
                elif c < 3:
                    w, v = Rs[k, i, c], 0.0
                else:
                    w, v = 0.0, Rs[k, i, c - 3]
                Jw[i, col] = w
                Jw[3 + i, col] = v
            w0, w1, w2 = Jw[0, col], Jw[1, col], Jw[2, col]
            Jw[3, col] += w1 * r2 - w2 * r1
            Jw[4, col] += w2 * r0 - w0 * r2
            Jw[5, col] += w0 * r1 - w1 * r0


@njit(cache=True)
def log3_entries(r00, r01, r02, r10, r11, r12, r20, r21, r22):
    """Rotation vector (angle in [0, pi]) of R through its quaternion (Shepperd), stable at 0 and pi."""
    tr = r00 + r11 + r22
    if tr >= r00 and tr >= r11 and tr >= r22:
        s = np.sqrt(1.0 + tr) * 2.0
        w, x, y, z = s / 4, (r21 - r12) / s, (r02 - r20) / s, (r10 - r01) / s
    elif r00 >= r11 and r00 >= r22:
        s = np.sqrt(1.0 + r00 - r11 - r22) * 2.0
        x, y, z, w = s / 4, (r01 + r10) / s, (r02 + r20) / s, (r21 - r12) / s
    elif r11 >= r22:
        s = np.sqrt(1.0 + r11 - r00 - r22) * 2.0
        y, x, z, w = s / 4, (r01 + r10) / s, (r12 + r21) / s, (r02 - r20) / s
    else:
        s = np.sqrt(1.0 + r22 - r00 - r11) * 2.0
        z, x, y, w = s / 4, (r02 + r20) / s, (r12 + r21) / s, (r10 - r01) / s
    if w < 0:
        x, y, z, w = -x, -y, -z, -w
    n = np.sqrt(x * x + y * y + z * z)
    f = 2.0 / w if n < 1e-12 else 2.0 * np.arctan2(n, w) / n
    return f * x, f * y, f * z


@njit(cache=True)
def _dot_cols(A, B, i, j):
    """(A^T B)[i, j] over the rotation blocks."""
    return A[0, i] * B[0, j] + A[1, i] * B[1, j] + A[2, i] * B[2, j]


@njit(cache=True)
def task_error(Tf, Tt, mode, e):
    """Error e (6,) of Tf against the target Tt; returns (position error, orientation error)."""
    # R_e = R_f^T R_t, p_e = R_f^T (p_t - p_f)
    d0, d1, d2 = Tt[0, 3] - Tf[0, 3], Tt[1, 3] - Tf[1, 3], Tt[2, 3] - Tf[2, 3]
    p0 = Tf[0, 0] * d0 + Tf[1, 0] * d1 + Tf[2, 0] * d2
    p1 = Tf[0, 1] * d0 + Tf[1, 1] * d1 + Tf[2, 1] * d2
    p2 = Tf[0, 2] * d0 + Tf[1, 2] * d1 + Tf[2, 2] * d2
    w0, w1, w2 = log3_entries(_dot_cols(Tf, Tt, 0, 0), _dot_cols(Tf, Tt, 0, 1), _dot_cols(Tf, Tt, 0, 2),
                              _dot_cols(Tf, Tt, 1, 0), _dot_cols(Tf, Tt, 1, 1), _dot_cols(Tf, Tt, 1, 2),
                              _dot_cols(Tf, Tt, 2, 0), _dot_cols(Tf, Tt, 2, 1), _dot_cols(Tf, Tt, 2, 2))
    th = np.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    perr = np.sqrt(p0 * p0 + p1 * p1 + p2 * p2)
    e[0], e[1], e[2] = w0, w1, w2
    if mode == 1:
        e[3], e[4], e[5] = p0, p1, p2
        return perr, th
    # log6: v = V^-1 p,  V^-1 = I - W/2 + coef W^2  (see artidyn.spatial.rotations.log6)
    if th < 1e-6:
        coef = 1.0 / 12 + th * th / 720
    else:
        coef = (1 - (th / 2) * np.cos(th / 2) / np.sin(th / 2)) / (th * th)
    wxp0 = w1 * p2 - w2 * p1
    wxp1 = w2 * p0 - w0 * p2
    wxp2 = w0 * p1 - w1 * p0
    e[3] = p0 - 0.5 * wxp0 + coef * (w1 * wxp2 - w2 * wxp1)
    e[4] = p1 - 0.5 * wxp1 + coef * (w2 * wxp0 - w0 * wxp2)
    e[5] = p2 - 0.5 * wxp2 + coef * (w0 * wxp1 - w1 * wxp0)
    return perr, th


@njit(cache=True)
def local_jacobian(Tf, Jw, J):
    """J = blockdiag(R^T, R^T) Jw: the Jacobian in the frame's own axes."""
    n = Jw.shape[1]
    for c in range(n):
        for i in range(3):
            J[i, c] = Tf[0, i] * Jw[0, c] + Tf[1, i] * Jw[1, c] + Tf[2, i] * Jw[2, c]
            J[3 + i, c] = Tf[0, i] * Jw[3, c] + Tf[1, i] * Jw[4, c] + Tf[2, i] * Jw[5, c]


@njit(cache=True)
def chol_solve(A, b, x, L):
    """Solve the SPD system A x = b by Cholesky; False when A is not positive definite."""
    n = A.shape[0]
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if s <= 0.0:
            return False
        L[j, j] = np.sqrt(s)
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / L[j, j]
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * x[k]
        x[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, n):
            s -= L[k, i] * x[k]
        x[i] = s / L[i, i]
    return True


@njit(cache=True)
def integrate_chain(q, dq, jtype, iq, iv, lo, hi, out):
    """out = q (+) dq on the chain, then clipped to [lo, hi] (1-dof joints)."""
    for i in range(q.shape[0]):
        out[i] = q[i]
    for k in range(jtype.shape[0]):
        t, o, v = jtype[k], iq[k], iv[k]
        if t <= PRISMATIC:
            x = q[o] + dq[v]
            out[o] = min(max(x, lo[o]), hi[o])
            continue
        a = o if t == SPHERICAL else o + 3
        wa = v if t == SPHERICAL else v
        if t == FREE:  # p += R v_body (a retraction of SE(3))
            R = np.empty((3, 3))
            _quat_rot(q[a], q[a + 1], q[a + 2], q[a + 3], R)
            for i in range(3):
                out[o + i] = q[o + i] + R[i, 0] * dq[v + 3] + R[i, 1] * dq[v + 4] + R[i, 2] * dq[v + 5]
        wx, wy, wz = dq[wa], dq[wa + 1], dq[wa + 2]
        th = np.sqrt(wx * wx + wy * wy + wz * wz)
        kk = 0.5 - th * th / 48 if th < 1e-8 else np.sin(th / 2) / th
        bx, by, bz, bw = kk * wx, kk * wy, kk * wz, np.cos(th / 2)
        x1, y1, z1, w1 = q[a], q[a + 1], q[a + 2], q[a + 3]
        x2 = w1 * bx + x1 * bw + y1 * bz - z1 * by
        y2 = w1 * by - x1 * bz + y1 * bw + z1 * bx
        z2 = w1 * bz + x1 * by - y1 * bx + z1 * bw
        w2 = w1 * bw - x1 * bx - y1 * by - z1 * bz
        n = np.sqrt(x2 * x2 + y2 * y2 + z2 * z2 + w2 * w2)
        out[a], out[a + 1], out[a + 2], out[a + 3] = x2 / n, y2 / n, z2 / n, w2 / n


@njit(cache=True)
def pose_defects(T):
    """Worst defects of a batch of 4x4 transforms T (N, 4, 4): (|R^T R - I|max, |det R - 1|,
    |last row - (0, 0, 0, 1)|max, any non-finite entry)."""
    orth, det, row = 0.0, 0.0, 0.0
    bad = False
    for k in range(T.shape[0]):
        for i in range(4):
            for j in range(4):
                if not np.isfinite(T[k, i, j]):
                    bad = True
        for i in range(3):
            for j in range(3):
                d = T[k, 0, i] * T[k, 0, j] + T[k, 1, i] * T[k, 1, j] + T[k, 2, i] * T[k, 2, j]
                orth = max(orth, abs(d - (1.0 if i == j else 0.0)))
        R = T[k]
        dt = (R[0, 0] * (R[1, 1] * R[2, 2] - R[1, 2] * R[2, 1]) - R[0, 1] * (R[1, 0] * R[2, 2] - R[1, 2] * R[2, 0])
              + R[0, 2] * (R[1, 0] * R[2, 1] - R[1, 1] * R[2, 0]))
        det = max(det, abs(dt - 1.0))
        row = max(row, abs(T[k, 3, 0]), abs(T[k, 3, 1]), abs(T[k, 3, 2]), abs(T[k, 3, 3] - 1.0))
    return orth, det, row, bad


@njit(cache=True)
def copy_into(dst, src):
    """dst[...] = src for same-shape C-contiguous arrays (explicit loop: cheap to compile)."""
    d = dst.reshape(-1)
    s = src.reshape(-1)
    for i in range(d.shape[0]):
        d[i] = s[i]
