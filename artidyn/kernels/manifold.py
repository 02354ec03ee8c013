"""Compiled motion on the configuration manifold; mirrors :func:`artidyn.configuration.integrate`,
:func:`~artidyn.configuration.difference` and :func:`artidyn.sim.integrate.dexp_inv`.

Joint by joint (codes and q/v offsets from the packed table, :mod:`.pack`)::

    revolute, prismatic,
    cylindrical (flat):   q' = q + x
    spherical:            Q' = Q exp(w)                     (quaternion (x, y, z, w), w body frame)
    free:                 T' = T exp6([w; u])               (R' = R exp(w), p' = p + R V(w) u)

with ``V(w) = 1 + (1 - cos t) / t^2 [w] + (t - sin t) / t^3 [w]^2`` (t = |w|), the left Jacobian
of SO(3) (Murray, Li & Sastry, "A Mathematical Introduction to Robotic Manipulation", eq. 2.36).
``difference`` inverts it with ``V^-1 = 1 - [w]/2 + (1 - t sin t / (2 (1 - cos t))) / t^2 [w]^2``.
``dexp_inv`` is the truncated Bernoulli series of :mod:`artidyn.sim.integrate`.
"""
import math

import numba as nb

from .pack import IQ, IV, JTYPE, NVJ
from .spatial import FMA, FREE, SPHERICAL

# B_k / k! of the right-trivialised dexp^-1 (as artidyn.sim.integrate._DEXPINV): k = 1, 2, 4, 6, 8
DEXPINV = (0.5, 1.0 / 12, 0.0, -1.0 / 720, 0.0, 1.0 / 30240, 0.0, -1.0 / 1209600)


@nb.njit(fastmath=FMA)
def rotvec_quat(w0, w1, w2):
    """Unit quaternion (x, y, z, w) of the rotation vector w."""
    t = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    if t < 1e-8:
        k = 0.5 - t * t / 48.0
        c = 1.0 - t * t / 8.0
    else:
        k = math.sin(0.5 * t) / t
        c = math.cos(0.5 * t)
    return k * w0, k * w1, k * w2, c


@nb.njit(fastmath=FMA)
def quat_mul(a0, a1, a2, a3, b0, b1, b2, b3):
    """Hamilton product a b of quaternions (x, y, z, w)."""
    return (a3 * b0 + a0 * b3 + a1 * b2 - a2 * b1,
            a3 * b1 - a0 * b2 + a1 * b3 + a2 * b0,
            a3 * b2 + a0 * b1 - a1 * b0 + a2 * b3,
            a3 * b3 - a0 * b0 - a1 * b1 - a2 * b2)


@nb.njit(fastmath=FMA)
def quat_rotate(x, y, z, w, v0, v1, v2):
    """R(quat) v for a unit quaternion."""
    t0 = 2.0 * (y * v2 - z * v1)
    t1 = 2.0 * (z * v0 - x * v2)
    t2 = 2.0 * (x * v1 - y * v0)
    return (v0 + w * t0 + y * t2 - z * t1, v1 + w * t1 + z * t0 - x * t2, v2 + w * t2 + x * t1 - y * t0)


@nb.njit(fastmath=FMA)
def quat_log(x, y, z, w):
    """Rotation vector of a unit quaternion, angle in [0, pi] (as spatial.quat_to_rotvec)."""
    if w < 0.0:
        x, y, z, w = -x, -y, -z, -w
    n = math.sqrt(x * x + y * y + z * z)
    if n < 1e-12:
        f = 2.0 / w if w != 0.0 else 2.0
    else:
        f = 2.0 * math.atan2(n, w) / n
    return f * x, f * y, f * z


@nb.njit(fastmath=FMA)
def so3_left_jacobian_apply(w0, w1, w2, u0, u1, u2, inverse):
    """V(w) u, or V(w)^-1 u when ``inverse``."""
    t2 = w0 * w0 + w1 * w1 + w2 * w2
    c0, c1, c2 = w1 * u2 - w2 * u1, w2 * u0 - w0 * u2, w0 * u1 - w1 * u0          # w x u
    d0, d1, d2 = w1 * c2 - w2 * c1, w2 * c0 - w0 * c2, w0 * c1 - w1 * c0          # w x (w x u)
    if inverse:
        a = -0.5
        if t2 < 1e-8:
            b = 1.0 / 12.0 + t2 / 720.0
        else:
            t = math.sqrt(t2)
            b = (1.0 - t * math.sin(t) / (2.0 * (1.0 - math.cos(t)))) / t2
    elif t2 < 1e-8:
        a, b = 0.5 - t2 / 24.0, 1.0 / 6.0 - t2 / 120.0
    else:
        t = math.sqrt(t2)
        a, b = (1.0 - math.cos(t)) / t2, (t - math.sin(t)) / (t2 * t)
    return u0 + a * c0 + b * d0, u1 + a * c1 + b * d1, u2 + a * c2 + b * d2


@nb.njit(_nrt=False, fastmath=FMA)
def integrate_q(B, q, x, h, out):
    """out (nq) <- q (+) h x: the configuration reached from q along the velocity x in time h."""
    for i in range(1, B.shape[0]):
        t, kq, kv = int(B[i, JTYPE]), int(B[i, IQ]), int(B[i, IV])
        if t != SPHERICAL and t != FREE:
            for j in range(int(B[i, NVJ])):
                out[kq + j] = q[kq + j] + h * x[kv + j]
            continue
        o = kq + (3 if t == FREE else 0)
        w0, w1, w2 = h * x[kv], h * x[kv + 1], h * x[kv + 2]
        qx, qy, qz, qw = q[o], q[o + 1], q[o + 2], q[o + 3]
        if t == FREE:
            u = so3_left_jacobian_apply(w0, w1, w2, h * x[kv + 3], h * x[kv + 4], h * x[kv + 5], False)
            s = math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw)
            d = quat_rotate(qx / s, qy / s, qz / s, qw / s, u[0], u[1], u[2])
            for r in range(3):
                out[kq + r] = q[kq + r] + d[r]
        e = rotvec_quat(w0, w1, w2)
        n = quat_mul(qx, qy, qz, qw, e[0], e[1], e[2], e[3])
        s = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] + n[3] * n[3])
        for r in range(4):
            out[o + r] = n[r] / s


@nb.njit(fastmath=FMA)
def difference_q(B, q0, q1, out):
    """out (nv) <- the velocity x with integrate(q0, x) = q1 (shortest rotation)."""
    for i in range(1, B.shape[0]):
        t, kq, kv = int(B[i, JTYPE]), int(B[i, IQ]), int(B[i, IV])
        if t != SPHERICAL and t != FREE:
            for j in range(int(B[i, NVJ])):
                out[kv + j] = q1[kq + j] - q0[kq + j]
            continue
        o = kq + (3 if t == FREE else 0)
        ax, ay, az, aw = q0[o], q0[o + 1], q0[o + 2], q0[o + 3]
        sa = math.sqrt(ax * ax + ay * ay + az * az + aw * aw)
        ax, ay, az, aw = ax / sa, ay / sa, az / sa, aw / sa
        bx, by, bz, bw = q1[o], q1[o + 1], q1[o + 2], q1[o + 3]
        sb = math.sqrt(bx * bx + by * by + bz * bz + bw * bw)
        r = quat_mul(-ax, -ay, -az, aw, bx / sb, by / sb, bz / sb, bw / sb)
        w = quat_log(r[0], r[1], r[2], r[3])
        out[kv], out[kv + 1], out[kv + 2] = w
        if t == FREE:
            d = quat_rotate(-ax, -ay, -az, aw, q1[kq] - q0[kq], q1[kq + 1] - q0[kq + 1], q1[kq + 2] - q0[kq + 2])
            u = so3_left_jacobian_apply(w[0], w[1], w[2], d[0], d[1], d[2], True)
            out[kv + 3], out[kv + 4], out[kv + 5] = u


@nb.njit(fastmath=FMA)
def dexp_inv_v(B, xi, v, out):
    """out (nv) <- d xi / dt for the body velocity v at the chart point xi (flat joints: v)."""
    for k in range(v.shape[0]):
        out[k] = v[k]
    for i in range(1, B.shape[0]):
        t, kv = int(B[i, JTYPE]), int(B[i, IV])
        if t != SPHERICAL and t != FREE:
            continue
        x0, x1, x2 = xi[kv], xi[kv + 1], xi[kv + 2]
        a0, a1, a2 = v[kv], v[kv + 1], v[kv + 2]
        b0 = b1 = b2 = 0.0
        y0 = y1 = y2 = 0.0
        if t == FREE:
            y0, y1, y2 = xi[kv + 3], xi[kv + 4], xi[kv + 5]
            b0, b1, b2 = v[kv + 3], v[kv + 4], v[kv + 5]
        for p in range(8):
            # term <- ad_xi term: [x] a (spherical); [x a; x b + y a] (free, crm)
            n0, n1, n2 = x1 * a2 - x2 * a1, x2 * a0 - x0 * a2, x0 * a1 - x1 * a0
            if t == FREE:
                m0 = x1 * b2 - x2 * b1 + y1 * a2 - y2 * a1
                m1 = x2 * b0 - x0 * b2 + y2 * a0 - y0 * a2
                m2 = x0 * b1 - x1 * b0 + y0 * a1 - y1 * a0
                b0, b1, b2 = m0, m1, m2
            a0, a1, a2 = n0, n1, n2
            c = DEXPINV[p]
            if c != 0.0:
                out[kv] += c * a0
                out[kv + 1] += c * a1
                out[kv + 2] += c * a2
                if t == FREE:
                    out[kv + 3] += c * b0
                    out[kv + 4] += c * b1
                    out[kv + 5] += c * b2
