"""Closed-form pieces of the analytic inverse geometric model (product-of-exponentials form).

Every joint is a line (point ``o``, unit direction ``z``) in the world at q = 0, and
``T(q) = exp(xi_1 q_1) ... exp(xi_6 q_6) M``. The pieces:

- :func:`rot`: Rodrigues' rotation about a unit axis;
- :func:`trig_solve`: the angles with ``a cos q + b sin q + c = 0`` (0, 1 or 2);
- :func:`subproblem1`: the angle turning u onto v about an axis (Paden-Kahan 1);
- :func:`subproblem2`: two rotations about intersecting axes (Paden-Kahan 2, 0 to 2 solutions);
- :func:`pieper_position`: joints 1-3 placing a point (Pieper: a quartic in tan(q3/2), or two
  quadratics when axes 1 and 2 meet or are parallel);
- :func:`planar_2r`: two parallel joints placing a point (law of cosines).
"""
import numpy as np

EPS = 1e-12


def rot(z, q):
    """Rotation by q about the unit axis z (Rodrigues)."""
    K = np.array([[0, -z[2], z[1]], [z[2], 0, -z[0]], [-z[1], z[0], 0]])
    return np.eye(3) + np.sin(q) * K + (1 - np.cos(q)) * (K @ K)


def perp(v, z):
    return v - z * np.dot(z, v)


def unit(v):
    return v / np.linalg.norm(v)


def trig_solve(a, b, c, tol=1e-9):
    """Angles q in (-pi, pi] with a cos q + b sin q + c = 0 (a tangency counts once)."""
    r = np.hypot(a, b)
    if r < EPS:
        return []
    x = -c / r
    if abs(x) > 1 + tol:
        return []
    phi = np.arctan2(b, a)
    d = np.arccos(np.clip(x, -1.0, 1.0))
    out = [phi + d] if d < 1e-9 else [phi + d, phi - d]
    return [float(np.arctan2(np.sin(t), np.cos(t))) for t in out]


def subproblem1(z, u, v):
    """The angle q with rot(z, q) u = v (components along z assumed equal); None if u is on the axis."""
    up, vp = perp(u, z), perp(v, z)
    if np.linalg.norm(up) < 1e-12 or np.linalg.norm(vp) < 1e-12:
        return None
    return float(np.arctan2(np.dot(z, np.cross(up, vp)), np.dot(up, vp)))


def subproblem2(w1, w2, p, q, tol=1e-9):
    """Pairs (t1, t2) with rot(w1, t1) rot(w2, t2) p = q for intersecting unit axes w1, w2.

    z = rot(w2, t2) p = rot(w1, -t1) q keeps w2.p, w1.q and |p|: z = alpha w1 + beta w2 +
    gamma (w1 x w2) with gamma = +- sqrt(...) (two solutions, one at a tangency).
    """
    c12 = np.dot(w1, w2)
    den = 1 - c12 * c12
    alpha = (np.dot(w1, q) - c12 * np.dot(w2, p)) / den
    beta = (np.dot(w2, p) - c12 * np.dot(w1, q)) / den
    w12 = np.cross(w1, w2)
    g2 = (np.dot(p, p) - alpha**2 - beta**2 - 2 * alpha * beta * c12) / np.dot(w12, w12)
    if g2 < -tol:
        return []
    g = np.sqrt(max(g2, 0.0))
    out = []
    for gamma in ((g, -g) if g > 1e-9 else (g,)):
        z = alpha * w1 + beta * w2 + gamma * w12
        t2 = subproblem1(w2, p, z)
        t1 = subproblem1(w1, z, q)
        out.append((0.0 if t1 is None else t1, 0.0 if t2 is None else t2))
    return out


def _lin(v, A, B, C):
    """Coefficients (cos, sin, 1) of v . (A cos q + B sin q + C)."""
    return np.array([np.dot(v, A), np.dot(v, B), np.dot(v, C)])


def _tpoly(L):
    """(1 + t^2) L(cos q, sin q) as a polynomial in t = tan(q/2) (highest degree first)."""
    lc, ls, l1 = L
    return np.array([l1 - lc, 2 * ls, lc + l1])


def pieper_position(o, z, c0, ct, tol=1e-9):
    """Triples (q1, q2, q3) with exp(xi1 q1) exp(xi2 q2) exp(xi3 q3) c0 = ct (joints 1-3).

    With p1, p2 the feet of the common normal of axes 1 and 2 (length a, direction n), m = z2 x n,
    v(q3) = rot(z3, q3)(c0 - o3) + o3 - p2 and x = n.v, y = m.v, U = x c2 - y s2, V = x s2 + y c2:
        |ct - p1|^2 = a^2 + |v|^2 + 2 a U,     z1.(ct - p1) = (z1.z2)(z2.v) + (z1.m) V,
    and U^2 + V^2 = x^2 + y^2 (Pieper's method, coordinate-free).
    """
    o1, o2, o3 = o
    z1, z2, z3 = z
    p1, p2, n, a = _common_normal(o1, z1, o2, z2)
    m = np.cross(z2, n)
    ca, sa = np.dot(z1, z2), np.dot(z1, m)
    rho, h = np.dot(ct - p1, ct - p1), np.dot(z1, ct - p1)
    u = c0 - o3
    A = perp(u, z3)
    B = np.cross(z3, A)
    C = u - A + (o3 - p2)
    X, Y, Z = _lin(n, A, B, C), _lin(m, A, B, C), _lin(z2, A, B, C)
    V2 = np.array([2 * np.dot(A, C), 2 * np.dot(B, C), np.dot(A, A) + np.dot(C, C)])  # |v|^2
    cand = []  # (q3, [(U, V), ...])
    if a < tol:  # axes 1 and 2 meet: |v|^2 = rho fixes q3, then V from h and U = +-sqrt
        for q3 in trig_solve(V2[0], V2[1], V2[2] - rho, tol):
            cand.append(q3)
    elif abs(sa) < tol:  # parallel axes 1 and 2: h fixes q3, then U from rho and V = +-sqrt
        for q3 in trig_solve(ca * Z[0], ca * Z[1], ca * Z[2] - h, tol):
            cand.append(q3)
    else:  # general: ((rho - a^2 - |v|^2) / 2a)^2 + ((h - ca z2.v) / sa)^2 = x^2 + y^2, quartic
        LU = np.array([-V2[0], -V2[1], rho - a * a - V2[2]]) / (2 * a)
        LV = np.array([-ca * Z[0], -ca * Z[1], h - ca * Z[2]]) / sa
        P = sum(s * np.polymul(_tpoly(L), _tpoly(L)) for s, L in ((1, LU), (1, LV), (-1, X), (-1, Y)))
        F = lambda q: (LU @ [np.cos(q), np.sin(q), 1]) ** 2 + (LV @ [np.cos(q), np.sin(q), 1]) ** 2 - \
            (X @ [np.cos(q), np.sin(q), 1]) ** 2 - (Y @ [np.cos(q), np.sin(q), 1]) ** 2
        scale = np.abs(P).max()
        P = np.trim_zeros(np.where(np.abs(P) < 1e-14 * scale, 0.0, P), "f")
        roots = np.roots(P) if P.size > 1 else np.array([])
        qs = [2 * np.arctan(r.real) for r in roots if abs(r.imag) <= 1e-6 * (1 + abs(r))]
        if abs(F(np.pi)) <= 1e-9 * scale:
            qs.append(np.pi)
        cand = [_newton_scalar(F, q) for q in qs]
    out = []
    for q3 in cand:
        cs = np.array([np.cos(q3), np.sin(q3), 1.0])
        x, y, vz, v2 = X @ cs, Y @ cs, Z @ cs, V2 @ cs
        r2 = x * x + y * y
        if a < tol:
            Vs = (h - ca * vz) / sa
            UV = [(s * np.sqrt(max(r2 - Vs * Vs, 0.0)), Vs) for s in ((1, -1) if r2 - Vs * Vs > 1e-12 else (1,))
                  if r2 - Vs * Vs > -1e-7 * max(r2, 1e-12)]
        elif abs(sa) < tol:
            Us = (rho - a * a - v2) / (2 * a)
            UV = [(Us, s * np.sqrt(max(r2 - Us * Us, 0.0))) for s in ((1, -1) if r2 - Us * Us > 1e-12 else (1,))
                  if r2 - Us * Us > -1e-7 * max(r2, 1e-12)]
        else:
            UV = [((rho - a * a - v2) / (2 * a), (h - ca * vz) / sa)]
        for U, V in UV:
            q2 = float(np.arctan2(x * V - y * U, x * U + y * V)) if r2 > 1e-20 else 0.0
            w = p2 + rot(z2, q2) @ (rot(z3, q3) @ (c0 - o3) + o3 - p2)
            q1 = subproblem1(z1, w - p1, ct - p1)
            out.append((0.0 if q1 is None else q1, q2, float(q3)))
    return out


def _newton_scalar(F, q, steps=6):
    for _ in range(steps):
        h = 1e-7
        d = (F(q + h) - F(q - h)) / (2 * h)
        if d == 0:
            break
        q = q - F(q) / d
    return float(np.arctan2(np.sin(q), np.cos(q)))


def _common_normal(o1, z1, o2, z2):
    """Feet p1, p2 of the common normal of two lines, its unit direction n and length a."""
    w = np.cross(z1, z2)
    if np.linalg.norm(w) < 1e-12:  # parallel: any normal; n points from line 1 to line 2
        p1 = o1
        p2 = o2 + z2 * np.dot(z2, o1 - o2)
        d = p2 - p1
        a = np.linalg.norm(d)
        return p1, p2, (d / a if a > 0 else unit(np.cross(z1, [1.0, 0, 0] if abs(z1[0]) < 0.9 else [0, 1.0, 0]))), a
    # minimise |o1 + s z1 - o2 - t z2|
    b = np.dot(z1, z2)
    d = o1 - o2
    den = 1 - b * b
    s = (b * np.dot(z2, d) - np.dot(z1, d)) / den
    t = (np.dot(z2, d) - b * np.dot(z1, d)) / den
    p1, p2 = o1 + s * z1, o2 + t * z2
    a = np.linalg.norm(p2 - p1)
    n = (p2 - p1) / a if a > 1e-12 else unit(w)
    return p1, p2, n, a


def planar_2r(n, o2, o3, o4, P, tol=1e-9):
    """Pairs (phi2, phi3): rotations about the parallel lines (o2, n) then... placing o4 at P.

    rot about (o3, n) by phi3 then about (o2, n) by phi2 carries o4 onto P (law of cosines on
    the components perpendicular to n). Angles are about +n.
    """
    r2v, r3v, dv = perp(o3 - o2, n), perp(o4 - o3, n), perp(P - o2, n)
    r2, r3, d = np.linalg.norm(r2v), np.linalg.norm(r3v), np.linalg.norm(dv)
    c = (d * d - r2 * r2 - r3 * r3) / (2 * r2 * r3)
    if abs(c) > 1 + tol:
        return []
    psi0 = np.arctan2(np.dot(n, np.cross(r2v, r3v)), np.dot(r2v, r3v))
    acc = np.arccos(np.clip(c, -1, 1))
    out = []
    for psi in ((acc, -acc) if acc > 1e-9 else (acc,)):
        phi3 = psi - psi0
        w = r2v + rot(n, phi3) @ r3v
        phi2 = subproblem1(n, w, dv)
        out.append((0.0 if phi2 is None else phi2, float(phi3)))
    return out
