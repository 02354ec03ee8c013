"""Compiled signed distance of two convex shapes given by support functions: GJK for separated
shapes, EPA for penetrating ones.

Gilbert, Johnson & Keerthi, "A fast procedure for computing the distance between complex objects
in three-dimensional space", IEEE J. Robotics and Automation 4(2), 1988; van den Bergen,
"Collision Detection in Interactive 3D Environments", 2003, ch. 4 (GJK's termination test
``|v|^2 - v.w <= eps |v|^2``, the Expanding Polytope Algorithm); the closest point of a segment,
a triangle and a tetrahedron to a point after Ericson, "Real-Time Collision Detection", 2005, 5.1.

Each shape is a *core* and a radius (MuJoCo's and van den Bergen's split): a sphere is its centre
and its radius, a capsule its axis segment and its radius, a box, a cylinder and a convex mesh
themselves with radius 0. GJK and EPA run on the cores (polytopes stay exact: GJK ends in a
finite number of steps on them), then the radii move the witness points along the normal::

    d = d_core - r_a - r_b,   p_a = p_a,core - r_a n,   p_b = p_b,core + r_b n

Convex meshes come packed (:func:`artidyn.contact.compiled.packed_shapes`) in ``HULL = (HV, HN,
FO, FI, AO, AN)``: hull vertices (rows of HV, in the shape frame), the hull's faces merged into
planar polygons (HN: outward unit normal and offset, shape frame; polygon f has the vertex rows
``FI[FO[f]:FO[f + 1]]``, counter-clockwise seen from outside), and each vertex's neighbours along
the hull's edges (``AN[AO[k]:AO[k + 1]]``: the graph :func:`climb` walks for the support point). A
mesh's row of SH holds its first vertex row, vertex count, first face and face count.

The result ``(d, n, p_a, p_b)`` follows :mod:`artidyn.geometry.collision`: ``n`` (unit, world)
points from b to a, ``p_a - p_b = d n``, d < 0 in penetration.
"""
import math

import numba as nb
import numpy as np

from .contact_rows import BOX, CAPSULE, CYLINDER, MESH, SK, SP, SPHERE  # noqa: F401

GJK_EPS = 1e-13            # relative: stop when |v|^2 - v.w <= GJK_EPS |v|^2
GJK_ITER = 128
TOUCH = 1e-24              # |v|^2 (m^2) below which the cores touch or overlap: EPA
EPA_EPS = 1e-12            # EPA stops when the support gains less than EPA_EPS (1 + depth)
EPA_V = 128                # the most vertices of EPA's polytope


@nb.njit(_nrt=False)
def radius(SH, i):
    """The radius around shape i's core (sphere, capsule), else 0."""
    kind = int(SH[i, SK])
    return SH[i, SP] if kind == SPHERE or kind == CAPSULE else 0.0


@nb.njit
def climb(HV, AO, AN, k, l0, l1, l2):
    """The hull vertex furthest along l (hull frame), by climbing from vertex k along the hull's
    edges to a neighbour further along l until none is: on a convex polytope's edge graph a vertex
    that no neighbour improves maximises a linear function (the simplex method's argument), so the
    climb finds the support point in a few steps where a scan reads every vertex."""
    best = HV[k, 0] * l0 + HV[k, 1] * l1 + HV[k, 2] * l2
    moved = True
    while moved:
        moved = False
        for e in range(AO[k], AO[k + 1]):
            j = AN[e]
            s = HV[j, 0] * l0 + HV[j, 1] * l1 + HV[j, 2] * l2
            if s > best:
                best, k, moved = s, j, True
    return k


@nb.njit(_nrt=False)
def support(SH, i, T, HULL, d0, d1, d2):
    """The point of shape i's core (placed at T) furthest along the world direction d."""
    x0, x1, x2, _ = support_from(SH, i, T, HULL, d0, d1, d2, int(SH[i, SP]))
    return x0, x1, x2


@nb.njit(_nrt=False)
def support_from(SH, i, T, HULL, d0, d1, d2, start):
    """:func:`support` and, for a mesh, the hull vertex it is (climbed to from the vertex row
    ``start`` when that is one of the mesh's; else ``start``)."""
    kind = int(SH[i, SK])
    c0, c1, c2 = T[0, 3], T[1, 3], T[2, 3]
    if kind == SPHERE:
        return c0, c1, c2, start
    l0 = T[0, 0] * d0 + T[1, 0] * d1 + T[2, 0] * d2        # d in the shape's axes
    l1 = T[0, 1] * d0 + T[1, 1] * d1 + T[2, 1] * d2
    l2 = T[0, 2] * d0 + T[1, 2] * d1 + T[2, 2] * d2
    x0 = x1 = x2 = 0.0
    if kind == CAPSULE:
        x2 = 0.5 * SH[i, SP + 1] if l2 >= 0.0 else -0.5 * SH[i, SP + 1]
    elif kind == BOX:
        x0 = SH[i, SP] if l0 >= 0.0 else -SH[i, SP]
        x1 = SH[i, SP + 1] if l1 >= 0.0 else -SH[i, SP + 1]
        x2 = SH[i, SP + 2] if l2 >= 0.0 else -SH[i, SP + 2]
    elif kind == CYLINDER:
        r, hl = SH[i, SP], 0.5 * SH[i, SP + 1]
        x2 = hl if l2 >= 0.0 else -hl
        w = math.sqrt(l0 * l0 + l1 * l1)
        if w > 1e-14 * (abs(l2) + 1e-300):
            x0, x1 = r * l0 / w, r * l1 / w
    else:                                                    # MESH: the best hull vertex
        HV, v0 = HULL[0], int(SH[i, SP])
        if not v0 <= start < v0 + int(SH[i, SP + 1]):
            start = v0
        start = climb(HV, HULL[4], HULL[5], start, l0, l1, l2)
        x0, x1, x2 = HV[start, 0], HV[start, 1], HV[start, 2]
    return (c0 + T[0, 0] * x0 + T[0, 1] * x1 + T[0, 2] * x2, c1 + T[1, 0] * x0 + T[1, 1] * x1 + T[1, 2] * x2,
            c2 + T[2, 0] * x0 + T[2, 1] * x1 + T[2, 2] * x2, start)


@nb.njit
def _minkowski(SH, i, Ti, j, Tj, HULL, d0, d1, d2, W, A, B, k):
    """Row k of the simplex: w = s_a(d) - s_b(-d), with the two support points."""
    a0, a1, a2 = support(SH, i, Ti, HULL, d0, d1, d2)
    b0, b1, b2 = support(SH, j, Tj, HULL, -d0, -d1, -d2)
    A[k, 0], A[k, 1], A[k, 2] = a0, a1, a2
    B[k, 0], B[k, 1], B[k, 2] = b0, b1, b2
    W[k, 0], W[k, 1], W[k, 2] = a0 - b0, a1 - b1, a2 - b2


@nb.njit
def _dot(W, i, x0, x1, x2):
    return W[i, 0] * x0 + W[i, 1] * x1 + W[i, 2] * x2


@nb.njit
def _segment(W, i, j):
    """Barycentric weights of the closest point of segment W[i] W[j] to the origin (Ericson 5.1.2)."""
    e0, e1, e2 = W[j, 0] - W[i, 0], W[j, 1] - W[i, 1], W[j, 2] - W[i, 2]
    ee = e0 * e0 + e1 * e1 + e2 * e2
    if ee <= 0.0:
        return 1.0, 0.0
    t = -_dot(W, i, e0, e1, e2) / ee
    if t <= 0.0:
        return 1.0, 0.0
    if t >= 1.0:
        return 0.0, 1.0
    return 1.0 - t, t


@nb.njit
def _triangle(W, i, j, k):
    """Barycentric weights of the closest point of triangle W[i] W[j] W[k] to the origin
    (Ericson 5.1.5, ClosestPtPointTriangle with p = 0)."""
    ab0, ab1, ab2 = W[j, 0] - W[i, 0], W[j, 1] - W[i, 1], W[j, 2] - W[i, 2]
    ac0, ac1, ac2 = W[k, 0] - W[i, 0], W[k, 1] - W[i, 1], W[k, 2] - W[i, 2]
    d1, d2 = -_dot(W, i, ab0, ab1, ab2), -_dot(W, i, ac0, ac1, ac2)
    if d1 <= 0.0 and d2 <= 0.0:
        return 1.0, 0.0, 0.0
    d3, d4 = -_dot(W, j, ab0, ab1, ab2), -_dot(W, j, ac0, ac1, ac2)
    if d3 >= 0.0 and d4 <= d3:
        return 0.0, 1.0, 0.0
    vc = d1 * d4 - d3 * d2
    if vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        t = d1 / (d1 - d3)
        return 1.0 - t, t, 0.0
    d5, d6 = -_dot(W, k, ab0, ab1, ab2), -_dot(W, k, ac0, ac1, ac2)
    if d6 >= 0.0 and d5 <= d6:
        return 0.0, 0.0, 1.0
    vb = d5 * d2 - d1 * d6
    if vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        t = d2 / (d2 - d6)
        return 1.0 - t, 0.0, t
    va = d3 * d6 - d5 * d4
    if va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        return 0.0, 1.0 - t, t
    s = va + vb + vc
    if s <= 0.0:                                  # a degenerate (flat) triangle: its best edge
        return _best_edge(W, i, j, k)
    v, w = vb / s, vc / s
    return 1.0 - v - w, v, w


@nb.njit
def _best_edge(W, i, j, k):
    best, out = 1e300, (1.0, 0.0, 0.0)
    for e in range(3):
        p, q = (i, j) if e == 0 else ((i, k) if e == 1 else (j, k))
        s, t = _segment(W, p, q)
        x0, x1, x2 = s * W[p, 0] + t * W[q, 0], s * W[p, 1] + t * W[q, 1], s * W[p, 2] + t * W[q, 2]
        dd = x0 * x0 + x1 * x1 + x2 * x2
        if dd < best:
            best = dd
            out = (s, t, 0.0) if e == 0 else ((s, 0.0, t) if e == 1 else (0.0, s, t))
    return out


@nb.njit
def _normal(W, i, j, k):
    ab0, ab1, ab2 = W[j, 0] - W[i, 0], W[j, 1] - W[i, 1], W[j, 2] - W[i, 2]
    ac0, ac1, ac2 = W[k, 0] - W[i, 0], W[k, 1] - W[i, 1], W[k, 2] - W[i, 2]
    return ab1 * ac2 - ab2 * ac1, ab2 * ac0 - ab0 * ac2, ab0 * ac1 - ab1 * ac0


@nb.njit
def _closest(W, A, B, lam, n):
    """The closest point of the simplex W[:n] to the origin: weights in lam, the simplex reduced
    to the vertices it uses (in place); returns (n, inside): inside when the origin lies in a
    tetrahedron."""
    for r in range(4):
        lam[r] = 0.0
    if n == 1:
        lam[0] = 1.0
    elif n == 2:
        lam[0], lam[1] = _segment(W, 0, 1)
    elif n == 3:
        lam[0], lam[1], lam[2] = _triangle(W, 0, 1, 2)
    else:
        n0, n1, n2 = _normal(W, 0, 1, 2)
        vol = n0 * (W[3, 0] - W[0, 0]) + n1 * (W[3, 1] - W[0, 1]) + n2 * (W[3, 2] - W[0, 2])
        scale = 0.0
        for r in range(4):
            scale = max(scale, abs(W[r, 0]) + abs(W[r, 1]) + abs(W[r, 2]))
        flat = abs(vol) <= 1e-12 * scale * scale * scale
        best, found = 1e300, False
        for f in range(4):              # face (p, q, s) opposite vertex o
            p, q, s, o = (0, 1, 2, 3) if f == 0 else ((0, 1, 3, 2) if f == 1 else
                                                      ((0, 2, 3, 1) if f == 2 else (1, 2, 3, 0)))
            m0, m1, m2 = _normal(W, p, q, s)
            side_o = -(m0 * W[p, 0] + m1 * W[p, 1] + m2 * W[p, 2])
            side_v = m0 * (W[o, 0] - W[p, 0]) + m1 * (W[o, 1] - W[p, 1]) + m2 * (W[o, 2] - W[p, 2])
            if not flat and side_o * side_v >= 0.0:
                continue                # the origin on the inner side of this face
            found = True
            a, b, c = _triangle(W, p, q, s)
            x0 = a * W[p, 0] + b * W[q, 0] + c * W[s, 0]
            x1 = a * W[p, 1] + b * W[q, 1] + c * W[s, 1]
            x2 = a * W[p, 2] + b * W[q, 2] + c * W[s, 2]
            dd = x0 * x0 + x1 * x1 + x2 * x2
            if dd < best:
                best = dd
                for r in range(4):
                    lam[r] = 0.0
                lam[p], lam[q], lam[s] = a, b, c
        if not found:
            return 4, True
    m = 0
    for r in range(n):                  # keep the vertices in use
        if lam[r] > 0.0:
            if m != r:
                for c in range(3):
                    W[m, c], A[m, c], B[m, c] = W[r, c], A[r, c], B[r, c]
                lam[m] = lam[r]
            m += 1
    return m, False


@nb.njit
def _combine(X, lam, n):
    x0 = x1 = x2 = 0.0
    for r in range(n):
        x0 += lam[r] * X[r, 0]
        x1 += lam[r] * X[r, 1]
        x2 += lam[r] * X[r, 2]
    return x0, x1, x2


@nb.njit
def gjk(SH, i, Ti, j, Tj, HULL, W, A, B, lam, cut):
    """GJK on the cores of shapes i and j: (n, overlap, |v|^2) with the simplex W[:n] (supports
    A, B, weights lam) whose combination is the closest point v = p_a - p_b; overlap: the origin
    in the simplex, or |v|^2 < TOUCH (hand it to :func:`epa`). It stops early once the cores are
    proved further apart than ``cut`` (the lower bound v.w / |v| of the distance beyond it, van
    den Bergen's separating-axis test): then |v| > cut, and v is only an upper bound."""
    d0, d1, d2 = Ti[0, 3] - Tj[0, 3], Ti[1, 3] - Tj[1, 3], Ti[2, 3] - Tj[2, 3]
    if d0 * d0 + d1 * d1 + d2 * d2 <= 0.0:
        d0 = 1.0
    _minkowski(SH, i, Ti, j, Tj, HULL, -d0, -d1, -d2, W, A, B, 0)
    n, lam[0] = 1, 1.0
    v0, v1, v2 = W[0, 0], W[0, 1], W[0, 2]
    vv = v0 * v0 + v1 * v1 + v2 * v2
    for _ in range(GJK_ITER):
        if vv < TOUCH:
            return n, True, vv
        _minkowski(SH, i, Ti, j, Tj, HULL, -v0, -v1, -v2, W, A, B, n)
        vw = v0 * W[n, 0] + v1 * W[n, 1] + v2 * W[n, 2]
        if vw > 0.0 and vw * vw > cut * cut * vv:
            break                       # -v separates the cores by more than cut
        if vv - vw <= GJK_EPS * vv:
            break                       # w is no further along -v than v: converged
        again = False
        for r in range(n):
            if W[r, 0] == W[n, 0] and W[r, 1] == W[n, 1] and W[r, 2] == W[n, 2]:
                again = True
        if again:
            break
        n, inside = _closest(W, A, B, lam, n + 1)
        if inside:
            return 4, True, 0.0
        v0, v1, v2 = _combine(W, lam, n)
        last = vv
        vv = v0 * v0 + v1 * v1 + v2 * v2
        if vv >= last:
            break                       # no progress (rounding)
    return n, vv < TOUCH, vv


@nb.njit
def _blow_up(SH, i, Ti, j, Tj, HULL, W, A, B, n):
    """Grow a simplex of 1 to 3 points around the origin into a tetrahedron (the start of EPA);
    False when the Minkowski difference is flat there."""
    if n == 1:
        for k in range(6):
            e = 1.0 if k < 3 else -1.0
            _minkowski(SH, i, Ti, j, Tj, HULL, e if k % 3 == 0 else 0.0, e if k % 3 == 1 else 0.0,
                       e if k % 3 == 2 else 0.0, W, A, B, 1)
            dx, dy, dz = W[1, 0] - W[0, 0], W[1, 1] - W[0, 1], W[1, 2] - W[0, 2]
            if dx * dx + dy * dy + dz * dz > 1e-24:
                n = 2
                break
        if n == 1:
            return False
    if n == 2:
        e0, e1, e2 = W[1, 0] - W[0, 0], W[1, 1] - W[0, 1], W[1, 2] - W[0, 2]
        ee = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
        e0, e1, e2 = e0 / ee, e1 / ee, e2 / ee
        k = 0 if abs(e0) <= min(abs(e1), abs(e2)) else (1 if abs(e1) <= abs(e2) else 2)
        a0, a1, a2 = (1.0 if k == 0 else 0.0), (1.0 if k == 1 else 0.0), (1.0 if k == 2 else 0.0)
        p0, p1, p2 = e1 * a2 - e2 * a1, e2 * a0 - e0 * a2, e0 * a1 - e1 * a0
        q0, q1, q2 = e1 * p2 - e2 * p1, e2 * p0 - e0 * p2, e0 * p1 - e1 * p0
        for r in range(6):
            c, s = math.cos(r * math.pi / 3.0), math.sin(r * math.pi / 3.0)
            _minkowski(SH, i, Ti, j, Tj, HULL, c * p0 + s * q0, c * p1 + s * q1, c * p2 + s * q2, W, A, B, 2)
            m0, m1, m2 = _normal(W, 0, 1, 2)
            if m0 * m0 + m1 * m1 + m2 * m2 > 1e-24 * ee * ee:
                n = 3
                break
        if n == 2:
            return False
    m0, m1, m2 = _normal(W, 0, 1, 2)
    for sg in (1.0, -1.0):
        _minkowski(SH, i, Ti, j, Tj, HULL, sg * m0, sg * m1, sg * m2, W, A, B, 3)
        h = m0 * (W[3, 0] - W[0, 0]) + m1 * (W[3, 1] - W[0, 1]) + m2 * (W[3, 2] - W[0, 2])
        if abs(h) > 1e-12 * math.sqrt(m0 * m0 + m1 * m1 + m2 * m2):
            return True
    return False


@nb.njit
def _face(P, F, FN, f, a, b, c):
    """Face f = (a, b, c) of EPA's polytope: its outward unit normal and distance to the origin."""
    F[f, 0], F[f, 1], F[f, 2] = a, b, c
    m0, m1, m2 = _normal(P, a, b, c)
    mm = math.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
    if mm <= 0.0:
        FN[f, 0], FN[f, 1], FN[f, 2], FN[f, 3] = 0.0, 0.0, 0.0, 1e300
        return
    m0, m1, m2 = m0 / mm, m1 / mm, m2 / mm
    FN[f, 0], FN[f, 1], FN[f, 2] = m0, m1, m2
    FN[f, 3] = m0 * P[a, 0] + m1 * P[a, 1] + m2 * P[a, 2]


@nb.njit
def epa(SH, i, Ti, j, Tj, HULL, W, A, B, n):
    """Penetration of the cores from GJK's simplex W[:n] (origin inside or touching): (depth,
    m, p_a, p_b) with m the unit normal of the Minkowski difference's boundary nearest the origin
    (p_a - p_b = depth m; the cores separate when a moves by -depth m); depth -1 when EPA fails."""
    P, PA, PB = np.empty((EPA_V, 3)), np.empty((EPA_V, 3)), np.empty((EPA_V, 3))
    for r in range(n):
        for c in range(3):
            P[r, c], PA[r, c], PB[r, c] = W[r, c], A[r, c], B[r, c]
    if n < 4 and not _blow_up(SH, i, Ti, j, Tj, HULL, P, PA, PB, n):
        return -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    nf_max = 2 * EPA_V + 8
    F, FN = np.empty((nf_max, 3), np.int64), np.empty((nf_max, 4))
    alive = np.zeros(nf_max, np.bool_)
    E = np.empty((3 * nf_max, 2), np.int64)
    g0 = 0.25 * (P[0, 0] + P[1, 0] + P[2, 0] + P[3, 0])
    g1 = 0.25 * (P[0, 1] + P[1, 1] + P[2, 1] + P[3, 1])
    g2 = 0.25 * (P[0, 2] + P[1, 2] + P[2, 2] + P[3, 2])
    for f in range(4):                  # the tetrahedron's faces, turned outward
        a, b, c = (0, 1, 2) if f == 0 else ((0, 3, 1) if f == 1 else ((0, 2, 3) if f == 2 else (1, 3, 2)))
        m0, m1, m2 = _normal(P, a, b, c)
        if m0 * (P[a, 0] - g0) + m1 * (P[a, 1] - g1) + m2 * (P[a, 2] - g2) < 0.0:
            b, c = c, b
        _face(P, F, FN, f, a, b, c)
        alive[f] = True
    nv, nf, best = 4, 4, 0
    while True:
        best, dmin = -1, 1e300
        for f in range(nf):
            if alive[f] and FN[f, 3] < dmin:
                best, dmin = f, FN[f, 3]
        m0, m1, m2 = FN[best, 0], FN[best, 1], FN[best, 2]
        if nv >= EPA_V:
            break
        _minkowski(SH, i, Ti, j, Tj, HULL, m0, m1, m2, P, PA, PB, nv)
        gain = m0 * P[nv, 0] + m1 * P[nv, 1] + m2 * P[nv, 2] - dmin
        if gain <= EPA_EPS * (1.0 + abs(dmin)):
            break
        ne = 0                          # remove the faces that see the new point; keep their rim
        for f in range(nf):
            if not alive[f]:
                continue
            h = FN[f, 0] * (P[nv, 0] - P[F[f, 0], 0]) + FN[f, 1] * (P[nv, 1] - P[F[f, 0], 1]) + \
                FN[f, 2] * (P[nv, 2] - P[F[f, 0], 2])
            if h <= 1e-14 * (1.0 + abs(FN[f, 3])):
                continue
            alive[f] = False
            for e in range(3):
                a, b = F[f, e], F[f, (e + 1) % 3]
                shared = -1
                for r in range(ne):
                    if E[r, 0] == b and E[r, 1] == a:
                        shared = r
                        break
                if shared >= 0:
                    ne -= 1
                    E[shared, 0], E[shared, 1] = E[ne, 0], E[ne, 1]
                else:
                    E[ne, 0], E[ne, 1] = a, b
                    ne += 1
        f = 0
        for r in range(ne):             # a new face on every rim edge, in the freed slots first
            while f < nf and alive[f]:
                f += 1
            if f >= nf_max:
                break
            _face(P, F, FN, f, E[r, 0], E[r, 1], nv)
            alive[f] = True
            if f == nf:
                nf += 1
        nv += 1
    # the witnesses: the origin's projection on the nearest face, in barycentric weights
    a, b, c = F[best, 0], F[best, 1], F[best, 2]
    d = FN[best, 3]
    x0, x1, x2 = d * m0, d * m1, d * m2
    u0, u1, u2 = P[b, 0] - P[a, 0], P[b, 1] - P[a, 1], P[b, 2] - P[a, 2]
    w0, w1, w2 = P[c, 0] - P[a, 0], P[c, 1] - P[a, 1], P[c, 2] - P[a, 2]
    y0, y1, y2 = x0 - P[a, 0], x1 - P[a, 1], x2 - P[a, 2]
    d00, d01, d11 = u0 * u0 + u1 * u1 + u2 * u2, u0 * w0 + u1 * w1 + u2 * w2, w0 * w0 + w1 * w1 + w2 * w2
    d20, d21 = y0 * u0 + y1 * u1 + y2 * u2, y0 * w0 + y1 * w1 + y2 * w2
    den = d00 * d11 - d01 * d01
    lb = (d11 * d20 - d01 * d21) / den if den > 0.0 else 0.0
    lc = (d00 * d21 - d01 * d20) / den if den > 0.0 else 0.0
    la = 1.0 - lb - lc
    pa0 = la * PA[a, 0] + lb * PA[b, 0] + lc * PA[c, 0]
    pa1 = la * PA[a, 1] + lb * PA[b, 1] + lc * PA[c, 1]
    pa2 = la * PA[a, 2] + lb * PA[b, 2] + lc * PA[c, 2]
    return (max(d, 0.0), m0, m1, m2, pa0, pa1, pa2, pa0 - d * m0, pa1 - d * m1, pa2 - d * m2)


@nb.njit
def signed_distance(SH, i, Ti, j, Tj, HULL, cut):
    """``(d, n0, n1, n2, a0, a1, a2, b0, b1, b2)``: the signed distance of shapes i and j (cores
    and radii), the unit normal n from b to a, the witness points p_a, p_b (world); d is NaN when
    EPA fails (a flat Minkowski difference). A pair proved further apart than ``cut`` returns
    an upper bound d > cut (and its witnesses) without refining it (``math.inf``: exact)."""
    W, A, B, lam = np.empty((5, 3)), np.empty((5, 3)), np.empty((5, 3)), np.zeros(5)
    ra, rb = radius(SH, i), radius(SH, j)
    n, overlap, vv = gjk(SH, i, Ti, j, Tj, HULL, W, A, B, lam, cut + ra + rb)
    if not overlap:
        a0, a1, a2 = _combine(A, lam, n)
        b0, b1, b2 = _combine(B, lam, n)
        dist = math.sqrt(vv)
        n0, n1, n2 = (a0 - b0) / dist, (a1 - b1) / dist, (a2 - b2) / dist
        d = dist
    else:
        depth, m0, m1, m2, a0, a1, a2, b0, b1, b2 = epa(SH, i, Ti, j, Tj, HULL, W, A, B, n)
        if depth < 0.0:
            return math.nan, 0.0, 0.0, 1.0, a0, a1, a2, b0, b1, b2
        n0, n1, n2, d = -m0, -m1, -m2, -depth
    return (d - ra - rb, n0, n1, n2, a0 - ra * n0, a1 - ra * n1, a2 - ra * n2, b0 + rb * n0, b1 + rb * n1,
            b2 + rb * n2)


@nb.njit(cache=True)
def distance_of_pair(SH, i, Ti, j, Tj, HULL, out):
    """out (10) <- :func:`signed_distance` (the entry point of
    :func:`artidyn.contact.compiled.compiled_distance`)."""
    r = signed_distance(SH, i, Ti, j, Tj, HULL, math.inf)
    for k in range(10):
        out[k] = r[k]
