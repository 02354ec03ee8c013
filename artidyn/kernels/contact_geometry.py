"""Compiled narrow phase for primitive shapes; mirrors :mod:`artidyn.geometry.closed_form` and
:func:`artidyn.geometry.collision.contacts` (Ericson, "Real-Time Collision Detection", 2005, ch. 5).

The shapes of a model are packed in a table ``SH`` (one row per collision shape: body, kind, then
the parameters) and their placements in their bodies ``PL`` (ns, 4, 4):

========== ===================================================================
kind       parameters (columns 2 ..)
========== ===================================================================
SPHERE     radius
CAPSULE    radius, length (along the shape's z axis)
BOX        half side lengths x, y, z
HALFSPACE  unit normal (3), offset: the solid ``n . x <= offset`` (shape axes)
CYLINDER   radius, length (along the shape's z axis)
MESH       first vertex row, vertex count, first face, face count (in ``HULL``, :mod:`.gjk`)
========== ===================================================================

:func:`pair_contacts` appends the contacts ``(d, n, p_a, p_b)`` of one pair with ``d <= margin``
to a buffer, in the order of the reference code (so that both routes build the same contact
problem): one contact for most pairs, a box's corners or a capsule's end spheres on a half-space,
the corners of two boxes over the faces of the separating-axis test's best face axis and the
crossings of their edges (a face on a rotated face: the corners of the overlap polygon). Two boxes
within the margin with none of these, a capsule near a box, cylinders and meshes go to
:mod:`.convex` (closed forms on a half-space, GJK/EPA on the support functions, and a
face-on-face manifold otherwise), where the reference takes coal's GJK/EPA. :data:`FALLBACK` (the
step taken on the reference route) is left for a GJK/EPA that does not converge.
"""
import math

import numba as nb
import numpy as np

from .contact_rows import (BOX, CAPSULE, CYLINDER, FALLBACK, FULL, HALFSPACE, MESH, SB, SK,  # noqa: F401
                           SP, SPHERE)
from .contact_rows import flip_from as _flip_from
from .contact_rows import plane as _plane
from .contact_rows import put as _put
from .convex import convex_contacts, cylinder_on_halfspace, mesh_on_halfspace

TINY = 1e-12
TIE = 1e-12
EDGE_PARALLEL = 1e-6      # two box edges closer to parallel (sin of their angle) have no crossing
EDGE_END = 1e-9           # an edge crossing within this fraction of an edge's end is a corner's
EDGE_CONTACTS = 8         # the most edge crossings of two boxes (a face on a rotated face: 8)
FACE_BIAS = 1e-6          # m: a face axis within this of the best edge axis is taken (faces first)
SAME_POINT = 1e-9         # m: a corner of b this close to a contact already found is that contact


@nb.njit
def _balls(CC, k, c0, c1, c2, ra, e0, e1, e2, rb, margin):
    """Two balls: d = |c - e| - ra - rb, n from e to c."""
    w0, w1, w2 = c0 - e0, c1 - e1, c2 - e2
    dist = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    if dist > TINY:
        n0, n1, n2 = w0 / dist, w1 / dist, w2 / dist
    else:
        n0, n1, n2 = 0.0, 0.0, 1.0
    d = dist - ra - rb
    if d > margin:
        return k
    if not _put(CC, k, d, n0, n1, n2, c0 - ra * n0, c1 - ra * n1, c2 - ra * n2, e0 + rb * n0, e1 + rb * n1,
                e2 + rb * n2):
        return FULL
    return k + 1


@nb.njit
def _clamp(x):
    return min(1.0, max(0.0, x))


@nb.njit
def _segment_point(x0, x1, x2, T, half):
    """Closest point to x on the segment of the z axis of T, of half length ``half``."""
    u0, u1, u2 = half * T[0, 2], half * T[1, 2], half * T[2, 2]
    p0, p1, p2 = T[0, 3] - u0, T[1, 3] - u1, T[2, 3] - u2
    d0, d1, d2 = 2.0 * u0, 2.0 * u1, 2.0 * u2
    dd = d0 * d0 + d1 * d1 + d2 * d2
    t = 0.0 if dd <= TINY * TINY else _clamp(((x0 - p0) * d0 + (x1 - p1) * d1 + (x2 - p2) * d2) / dd)
    return p0 + t * d0, p1 + t * d1, p2 + t * d2


@nb.njit
def _segments(Ta, ha, Tb, hb):
    """Closest points of two capsule axes (Ericson 5.1.9)."""
    ua0, ua1, ua2 = ha * Ta[0, 2], ha * Ta[1, 2], ha * Ta[2, 2]
    ub0, ub1, ub2 = hb * Tb[0, 2], hb * Tb[1, 2], hb * Tb[2, 2]
    p10, p11, p12 = Ta[0, 3] - ua0, Ta[1, 3] - ua1, Ta[2, 3] - ua2
    p20, p21, p22 = Tb[0, 3] - ub0, Tb[1, 3] - ub1, Tb[2, 3] - ub2
    d10, d11, d12 = 2.0 * ua0, 2.0 * ua1, 2.0 * ua2
    d20, d21, d22 = 2.0 * ub0, 2.0 * ub1, 2.0 * ub2
    r0, r1, r2 = p10 - p20, p11 - p21, p12 - p22
    a = d10 * d10 + d11 * d11 + d12 * d12
    e = d20 * d20 + d21 * d21 + d22 * d22
    f = d20 * r0 + d21 * r1 + d22 * r2
    eps = TINY * TINY
    s = t = 0.0
    if a <= eps and e <= eps:
        pass
    elif a <= eps:
        t = _clamp(f / e)
    else:
        c = d10 * r0 + d11 * r1 + d12 * r2
        if e <= eps:
            s = _clamp(-c / a)
        else:
            b = d10 * d20 + d11 * d21 + d12 * d22
            denom = a * e - b * b
            s = _clamp((b * f - c * e) / denom) if denom > eps * a * e else 0.0
            t = (b * s + f) / e
            if t < 0.0:
                t, s = 0.0, _clamp(-c / a)
            elif t > 1.0:
                t, s = 1.0, _clamp((b - c) / a)
    return (p10 + s * d10, p11 + s * d11, p12 + s * d12, p20 + t * d20, p21 + t * d21, p22 + t * d22)


@nb.njit
def _corner(SH, i, T, c):
    """World position of corner c (0 .. 7) of box i placed at T, in the order of the reference's
    ``box_corners``: signs sx, sy, sz = -1, 1, x slowest."""
    sx = -1.0 if c < 4 else 1.0
    sy = -1.0 if (c // 2) % 2 == 0 else 1.0
    sz = -1.0 if c % 2 == 0 else 1.0
    h0, h1, h2 = sx * SH[i, SP], sy * SH[i, SP + 1], sz * SH[i, SP + 2]
    return (T[0, 3] + T[0, 0] * h0 + T[0, 1] * h1 + T[0, 2] * h2,
            T[1, 3] + T[1, 0] * h0 + T[1, 1] * h1 + T[1, 2] * h2,
            T[2, 3] + T[2, 0] * h0 + T[2, 1] * h1 + T[2, 2] * h2)


@nb.njit
def _on_halfspace(CC, k, SH, i, Ta, j, Tb, margin, HULL):
    """Shape i (not a half-space) on half-space j: the closed forms of the reference."""
    kind = int(SH[i, SK])
    if kind == MESH:
        return mesh_on_halfspace(CC, k, SH, i, Ta, j, Tb, margin, HULL)
    if kind == CYLINDER:
        return cylinder_on_halfspace(CC, k, SH, i, Ta, j, Tb, margin)
    n0, n1, n2, o = _plane(SH, j, Tb)
    if kind == SPHERE:
        r = SH[i, SP]
        c0, c1, c2 = Ta[0, 3], Ta[1, 3], Ta[2, 3]
        s = n0 * c0 + n1 * c1 + n2 * c2 - o
        if s - r > margin:
            return k
        if not _put(CC, k, s - r, n0, n1, n2, c0 - r * n0, c1 - r * n1, c2 - r * n2, c0 - s * n0, c1 - s * n1,
                    c2 - s * n2):
            return FULL
        return k + 1
    if kind == CAPSULE:             # the two end spheres, each within the margin
        r, hl = SH[i, SP], 0.5 * SH[i, SP + 1]
        for e in range(2):
            sg = -1.0 if e == 0 else 1.0
            x0, x1, x2 = Ta[0, 3] + sg * hl * Ta[0, 2], Ta[1, 3] + sg * hl * Ta[1, 2], Ta[2, 3] + sg * hl * Ta[2, 2]
            s = n0 * x0 + n1 * x1 + n2 * x2 - o
            if s - r <= margin:
                if not _put(CC, k, s - r, n0, n1, n2, x0 - r * n0, x1 - r * n1, x2 - r * n2, x0 - s * n0,
                            x1 - s * n1, x2 - s * n2):
                    return FULL
                k += 1
        return k
    # BOX: the corners within the margin
    for c in range(8):
        x0, x1, x2 = _corner(SH, i, Ta, c)
        s = n0 * x0 + n1 * x1 + n2 * x2 - o
        if s <= margin:
            if not _put(CC, k, s, n0, n1, n2, x0, x1, x2, x0 - s * n0, x1 - s * n1, x2 - s * n2):
                return FULL
            k += 1
    return k


@nb.njit
def _sphere_box(CC, k, r, Ta, SH, j, Tb, margin):
    """Sphere (centre of Ta) on box j (Ericson 5.1.4); a centre inside leaves by the nearest face."""
    h = (SH[j, SP], SH[j, SP + 1], SH[j, SP + 2])
    c0, c1, c2 = Ta[0, 3], Ta[1, 3], Ta[2, 3]
    w0, w1, w2 = c0 - Tb[0, 3], c1 - Tb[1, 3], c2 - Tb[2, 3]
    x = (Tb[0, 0] * w0 + Tb[1, 0] * w1 + Tb[2, 0] * w2, Tb[0, 1] * w0 + Tb[1, 1] * w1 + Tb[2, 1] * w2,
         Tb[0, 2] * w0 + Tb[1, 2] * w1 + Tb[2, 2] * w2)
    if abs(x[0]) > h[0] or abs(x[1]) > h[1] or abs(x[2]) > h[2]:
        q0, q1, q2 = min(max(x[0], -h[0]), h[0]), min(max(x[1], -h[1]), h[1]), min(max(x[2], -h[2]), h[2])
        e0, e1, e2 = x[0] - q0, x[1] - q1, x[2] - q2
        v0 = Tb[0, 0] * e0 + Tb[0, 1] * e1 + Tb[0, 2] * e2
        v1 = Tb[1, 0] * e0 + Tb[1, 1] * e1 + Tb[1, 2] * e2
        v2 = Tb[2, 0] * e0 + Tb[2, 1] * e1 + Tb[2, 2] * e2
        dist = math.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
        n0, n1, n2 = v0 / dist, v1 / dist, v2 / dist
        d = dist - r
    else:
        kk, best = 0, h[0] - abs(x[0])
        for a in range(1, 3):
            g = h[a] - abs(x[a])
            if g < best:
                kk, best = a, g
        sg = 1.0 if x[kk] >= 0 else -1.0
        q0, q1, q2 = x[0], x[1], x[2]
        if kk == 0:
            q0 = sg * h[0]
        elif kk == 1:
            q1 = sg * h[1]
        else:
            q2 = sg * h[2]
        n0, n1, n2 = sg * Tb[0, kk], sg * Tb[1, kk], sg * Tb[2, kk]
        d = -best - r
    if d > margin:
        return k
    p0 = Tb[0, 3] + Tb[0, 0] * q0 + Tb[0, 1] * q1 + Tb[0, 2] * q2
    p1 = Tb[1, 3] + Tb[1, 0] * q0 + Tb[1, 1] * q1 + Tb[1, 2] * q2
    p2 = Tb[2, 3] + Tb[2, 0] * q0 + Tb[2, 1] * q1 + Tb[2, 2] * q2
    if not _put(CC, k, d, n0, n1, n2, c0 - r * n0, c1 - r * n1, c2 - r * n2, p0, p1, p2):
        return FULL
    return k + 1


@nb.njit
def _axis_gap(ha, Ta, hb, Tb, ax):
    """The gap of two boxes (half sides ha, hb) along axis ax of the separating-axis test (0 .. 2:
    a's face normals, 3 .. 5: b's, 6 .. 14: an edge of a times an edge of b; -1e300 for parallel
    edges), as the reference's ``box_axis_gaps``."""
    d0, d1, d2 = Tb[0, 3] - Ta[0, 3], Tb[1, 3] - Ta[1, 3], Tb[2, 3] - Ta[2, 3]
    if ax < 3:
        l0, l1, l2 = Ta[0, ax], Ta[1, ax], Ta[2, ax]
    elif ax < 6:
        l0, l1, l2 = Tb[0, ax - 3], Tb[1, ax - 3], Tb[2, ax - 3]
    else:
        a, b = (ax - 6) // 3, (ax - 6) % 3
        x0, x1, x2 = Ta[0, a], Ta[1, a], Ta[2, a]
        y0, y1, y2 = Tb[0, b], Tb[1, b], Tb[2, b]
        l0, l1, l2 = x1 * y2 - x2 * y1, x2 * y0 - x0 * y2, x0 * y1 - x1 * y0
        nl = math.sqrt(l0 * l0 + l1 * l1 + l2 * l2)
        if nl < 1e-9:
            return -1e300
        l0, l1, l2 = l0 / nl, l1 / nl, l2 / nl
    ra = rb = 0.0
    for c in range(3):
        ra += ha[c] * abs(Ta[0, c] * l0 + Ta[1, c] * l1 + Ta[2, c] * l2)
        rb += hb[c] * abs(Tb[0, c] * l0 + Tb[1, c] * l1 + Tb[2, c] * l2)
    return abs(d0 * l0 + d1 * l1 + d2 * l2) - ra - rb


@nb.njit
def _box_separation(ha, Ta, hb, Tb):
    """A lower bound of the distance of two boxes (half sides ha, hb): the largest gap along the
    15 axes of the separating-axis test (<= 0 when they overlap)."""
    best = -1e300
    for ax in range(15):
        best = max(best, _axis_gap(ha, Ta, hb, Tb, ax))
    return best


@nb.njit
def _half(SH, i):
    """Half sides of the box of shape i, or of the box around a capsule (its own axes)."""
    if int(SH[i, SK]) == CAPSULE:
        r = SH[i, SP]
        return (r, r, 0.5 * SH[i, SP + 1] + r)
    return (SH[i, SP], SH[i, SP + 1], SH[i, SP + 2])


@nb.njit
def _corners_on_face(CC, k, SH, A, TA, Bx, TB, axis, margin, flip, k_dup):
    """Append the corners of box A over face ``axis`` of box Bx (the side facing A's centre) within
    the margin or inside, not deeper than Bx's smallest half side (as the reference's
    ``_corners_on_face``); flip: stored as contacts of (Bx, A), a corner within SAME_POINT of the
    contacts' points on b from k_dup to k left out. The new count or FULL."""
    h = (SH[Bx, SP], SH[Bx, SP + 1], SH[Bx, SP + 2])
    hmin = min(h[0], min(h[1], h[2]))
    j, l = (axis + 1) % 3, (axis + 2) % 3
    w0, w1, w2 = TA[0, 3] - TB[0, 3], TA[1, 3] - TB[1, 3], TA[2, 3] - TB[2, 3]
    s_ = 1.0 if w0 * TB[0, axis] + w1 * TB[1, axis] + w2 * TB[2, axis] >= 0 else -1.0
    m0, m1, m2 = s_ * TB[0, axis], s_ * TB[1, axis], s_ * TB[2, axis]
    k_end = k
    for c in range(8):
        c0, c1, c2 = _corner(SH, A, TA, c)
        w0, w1, w2 = c0 - TB[0, 3], c1 - TB[1, 3], c2 - TB[2, 3]
        p = (TB[0, 0] * w0 + TB[1, 0] * w1 + TB[2, 0] * w2, TB[0, 1] * w0 + TB[1, 1] * w1 + TB[2, 1] * w2,
             TB[0, 2] * w0 + TB[1, 2] * w1 + TB[2, 2] * w2)
        if abs(p[j]) > h[j] + margin or abs(p[l]) > h[l] + margin:
            continue
        d = s_ * p[axis] - h[axis]
        if d > margin or d < -hmin:
            continue
        same = False
        for kk in range(k_dup, k_end):
            e0, e1, e2 = c0 - CC[kk, 7], c1 - CC[kk, 8], c2 - CC[kk, 9]
            if math.sqrt(e0 * e0 + e1 * e1 + e2 * e2) <= SAME_POINT:
                same = True
        if same:
            continue
        f0, f1, f2 = c0 - d * m0, c1 - d * m1, c2 - d * m2
        if flip:
            ok = _put(CC, k, d, -m0, -m1, -m2, f0, f1, f2, c0, c1, c2)
        else:
            ok = _put(CC, k, d, m0, m1, m2, c0, c1, c2, f0, f1, f2)
        if not ok:
            return FULL
        k += 1
    return k


@nb.njit
def _box_box(CC, k, SH, i, Ta, j, Tb, margin, HULL, axis):
    """Box on box (as the reference's ``box_box_points``): when a face axis separates them best
    (faces first within FACE_BIAS), the corners of i over the best face of j, then those of j over
    the best face of i (one already found left out), and the crossings of their edges unless four
    corners of one box were found (its face lies wholly on the other's: that face is the overlap).
    None while the boxes are within the margin: the GJK/EPA contact of :func:`.convex.convex_contacts`,
    as the reference takes coal's."""
    NO, YES = np.bool_(False), np.bool_(True)  # not literals: a literal argument is a compile of its own
    ha, hb = _half(SH, i), _half(SH, j)
    best, ga, gb, ge, aa, ab = -1e300, -1e300, -1e300, -1e300, 0, 0
    for ax in range(15):
        g = _axis_gap(ha, Ta, hb, Tb, ax)
        best = max(best, g)
        if ax < 3 and g > ga:
            ga, aa = g, ax
        elif 3 <= ax < 6 and g > gb:
            gb, ab = g, ax - 3
        elif ax >= 6:
            ge = max(ge, g)
    if best > margin:
        return k
    k_start = k
    if max(ga, gb) + FACE_BIAS >= ge:
        k = _corners_on_face(CC, k, SH, i, Ta, j, Tb, ab, margin, NO, k)
        if k == FULL:
            return FULL
        if k - k_start >= 4:           # a whole face of i over j's: the overlap is that face
            return k
        k1 = k
        k = _corners_on_face(CC, k, SH, j, Tb, i, Ta, aa, margin, YES, k_start)
        if k == FULL:
            return FULL
        if k - k1 >= 4:
            return k
    k = _box_edges(CC, k, SH, i, Ta, j, Tb, margin)
    if k == FULL:
        return FULL
    if k == k_start:
        return convex_contacts(CC, k, SH, i, Ta, j, Tb, margin, HULL, axis)
    return k


@nb.njit
def _within(SH, s, T, x0, x1, x2, margin):
    """True when the point x lies in box s placed at T, widened by margin."""
    w0, w1, w2 = x0 - T[0, 3], x1 - T[1, 3], x2 - T[2, 3]
    for c in range(3):
        if abs(T[0, c] * w0 + T[1, c] * w1 + T[2, c] * w2) > SH[s, SP + c] + margin:
            return False
    return True


@nb.njit
def _box_edges(CC, k, SH, i, Ta, j, Tb, margin):
    """The crossings of an edge of box i (a) with an edge of box j (b) within the margin (as the
    reference's ``box_edge_points``): the closest points of the two edges' lines when both lie
    inside their edges (not at a corner) and each in the other box (widened by the margin), the
    normal along their cross product away from b's centre; none deeper than the smallest half side,
    at most EDGE_CONTACTS."""
    hmin = min(min(SH[i, SP], SH[i, SP + 1]), min(min(SH[i, SP + 2], SH[j, SP]), min(SH[j, SP + 1], SH[j, SP + 2])))
    found = 0
    for ca in range(8):
        for ba in (4, 2, 1):
            if ca & ba:
                continue
            p0, p1, p2 = _corner(SH, i, Ta, ca)
            e0, e1, e2 = _corner(SH, i, Ta, ca | ba)
            e0, e1, e2 = e0 - p0, e1 - p1, e2 - p2
            for cb in range(8):
                for bb in (4, 2, 1):
                    if cb & bb:
                        continue
                    r0, r1, r2 = _corner(SH, j, Tb, cb)
                    f0, f1, f2 = _corner(SH, j, Tb, cb | bb)
                    f0, f1, f2 = f0 - r0, f1 - r1, f2 - r2
                    n0, n1, n2 = e1 * f2 - e2 * f1, e2 * f0 - e0 * f2, e0 * f1 - e1 * f0
                    nn = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
                    ee, ff, ef = e0 * e0 + e1 * e1 + e2 * e2, f0 * f0 + f1 * f1 + f2 * f2, e0 * f0 + e1 * f1 + e2 * f2
                    if nn <= EDGE_PARALLEL * math.sqrt(ee * ff):
                        continue
                    w0, w1, w2 = p0 - r0, p1 - r1, p2 - r2
                    we, wf = w0 * e0 + w1 * e1 + w2 * e2, w0 * f0 + w1 * f1 + w2 * f2
                    den = nn * nn      # |e|^2 |f|^2 - (e.f)^2 without its cancellation (near-parallel edges)
                    s_ = (ef * wf - ff * we) / den
                    t_ = (ee * wf - ef * we) / den
                    if not (EDGE_END < s_ < 1.0 - EDGE_END and EDGE_END < t_ < 1.0 - EDGE_END):
                        continue
                    a0, a1, a2 = p0 + s_ * e0, p1 + s_ * e1, p2 + s_ * e2
                    b0, b1, b2 = r0 + t_ * f0, r1 + t_ * f1, r2 + t_ * f2
                    if not (_within(SH, j, Tb, a0, a1, a2, margin) and _within(SH, i, Ta, b0, b1, b2, margin)):
                        continue
                    n0, n1, n2 = n0 / nn, n1 / nn, n2 / nn
                    if (b0 - Tb[0, 3]) * n0 + (b1 - Tb[1, 3]) * n1 + (b2 - Tb[2, 3]) * n2 < 0.0:
                        n0, n1, n2 = -n0, -n1, -n2
                    d = (a0 - b0) * n0 + (a1 - b1) * n1 + (a2 - b2) * n2
                    if d > margin or d < -hmin:
                        continue
                    if not _put(CC, k, d, n0, n1, n2, a0, a1, a2, b0, b1, b2):
                        return FULL
                    k += 1
                    found += 1
                    if found == EDGE_CONTACTS:
                        return k
    return k


@nb.njit(_nrt=True)        # (explicit: its callers without reference counting call it)
def pair_contacts(CC, k, SH, i, Ti, j, Tj, margin, HULL, axis):
    """Append the contacts of shapes i (a) and j (b) at world placements Ti, Tj; returns the new
    count, FULL when the buffer is full, FALLBACK for a pair the compiled code does not resolve.
    ``HULL``: the packed convex meshes (:mod:`.gjk`). axis (5): a pair that GJK finds apart leaves
    its separating axis in axis[:3] (:func:`.convex.convex_contacts`); axis[3:] is the scratch of
    :func:`.broadphase.apart`."""
    ki, kj = int(SH[i, SK]), int(SH[j, SK])
    if kj == HALFSPACE:
        return _on_halfspace(CC, k, SH, i, Ti, j, Tj, margin, HULL)
    if ki == HALFSPACE:
        k1 = _on_halfspace(CC, k, SH, j, Tj, i, Ti, margin, HULL)
        if k1 > k:
            _flip_from(CC, k, k1)
        return k1
    if ki >= CYLINDER or kj >= CYLINDER:
        return convex_contacts(CC, k, SH, i, Ti, j, Tj, margin, HULL, axis)
    if ki == SPHERE and kj == SPHERE:
        return _balls(CC, k, Ti[0, 3], Ti[1, 3], Ti[2, 3], SH[i, SP], Tj[0, 3], Tj[1, 3], Tj[2, 3], SH[j, SP], margin)
    if ki == SPHERE and kj == CAPSULE:
        x0, x1, x2 = _segment_point(Ti[0, 3], Ti[1, 3], Ti[2, 3], Tj, 0.5 * SH[j, SP + 1])
        return _balls(CC, k, Ti[0, 3], Ti[1, 3], Ti[2, 3], SH[i, SP], x0, x1, x2, SH[j, SP], margin)
    if ki == CAPSULE and kj == SPHERE:
        x0, x1, x2 = _segment_point(Tj[0, 3], Tj[1, 3], Tj[2, 3], Ti, 0.5 * SH[i, SP + 1])
        k1 = _balls(CC, k, Tj[0, 3], Tj[1, 3], Tj[2, 3], SH[j, SP], x0, x1, x2, SH[i, SP], margin)
        if k1 > k:
            _flip_from(CC, k, k1)
        return k1
    if ki == CAPSULE and kj == CAPSULE:
        a0, a1, a2, b0, b1, b2 = _segments(Ti, 0.5 * SH[i, SP + 1], Tj, 0.5 * SH[j, SP + 1])
        return _balls(CC, k, a0, a1, a2, SH[i, SP], b0, b1, b2, SH[j, SP], margin)
    if ki == SPHERE and kj == BOX:
        return _sphere_box(CC, k, SH[i, SP], Ti, SH, j, Tj, margin)
    if ki == BOX and kj == SPHERE:
        k1 = _sphere_box(CC, k, SH[j, SP], Tj, SH, i, Ti, margin)
        if k1 > k:
            _flip_from(CC, k, k1)
        return k1
    if ki == BOX and kj == BOX:
        return _box_box(CC, k, SH, i, Ti, j, Tj, margin, HULL, axis)
    # capsule-box: GJK/EPA on the support functions (the manifold of the capsule's side on a face)
    if _box_separation(_half(SH, i), Ti, _half(SH, j), Tj) > margin:
        return k
    return convex_contacts(CC, k, SH, i, Ti, j, Tj, margin, HULL, axis)


@nb.njit(cache=True)
def contacts_of_pair(CC, SH, i, Ti, j, Tj, margin, HULL, axis):
    """:func:`pair_contacts` from an empty buffer (the entry point of
    :func:`artidyn.contact.compiled.compiled_contacts`); axis (5) <- the separating axis of a pair
    found apart (:func:`.broadphase.apart`), zero otherwise."""
    ZERO = np.int64(0)  # not literals: a literal argument is a compile of its own
    return pair_contacts(CC, ZERO, SH, i, Ti, j, Tj, margin, HULL, axis)
