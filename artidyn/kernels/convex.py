"""Compiled contacts of cylinders and convex meshes: on a half-space (the closed forms of
:mod:`artidyn.geometry.closed_form`, point for point), and against any other bounded shape
(:mod:`.gjk`'s signed distance, then a contact manifold where a face rests on a face).

The manifold (the reference-face clipping of box-box collision, Gregorius, "The Separating Axis
Test between Convex Polyhedra", GDC 2013; ODE's ``dBoxBox``): with the normal n of GJK/EPA, each
shape offers the feature facing the other (a mesh's hull polygon, a box's face, a cylinder's cap
as a polygon of ``RIM`` points or its side as a segment, a capsule's axis or end, a sphere's
centre). When one of them is a face within ``FACE_TOL`` of n, it is the reference face: the other
feature is clipped against its side planes (Sutherland-Hodgman), and every clipped point within
the margin of the reference plane is a contact, at most ``MANIFOLD`` of them (the deepest, then
each the furthest from those chosen, as :func:`artidyn.geometry.closed_form._spread`). A box
resting on a mesh gets its four corners, a cylinder standing on a mesh four points of its rim. No
face along n (an edge on an edge, a curved side): the single GJK/EPA contact.
"""
import math

import numba as nb
import numpy as np

from .contact_rows import BOX, CAPSULE, CYLINDER, FALLBACK, FULL, MESH, SK, SP, SPHERE, put
from .contact_rows import plane as _plane
from .gjk import signed_distance

MESH_CONTACTS = 4        # as closed_form.MESH_CONTACTS: the most hull vertices of a mesh on a half-space
RIM_POINTS = 8           # as closed_form.RIM_POINTS: points per cap rim of a cylinder on a half-space
TIE = 1e-12              # as closed_form.TIE
TINY = 1e-12
FACE_TOL = 1e-2          # rad: a face within this angle of the contact normal is a reference face
COS_FACE = math.cos(FACE_TOL)
SIN_FACE = math.sin(FACE_TOL)
RIM = 8                  # points of a cylinder's cap as a polygon (manifold)
MANIFOLD = 4             # the most contacts of a manifold


@nb.njit
def _at(T, x0, x1, x2):
    """T applied to the point x (shape axes -> world)."""
    return (T[0, 3] + T[0, 0] * x0 + T[0, 1] * x1 + T[0, 2] * x2, T[1, 3] + T[1, 0] * x0 + T[1, 1] * x1 + T[1, 2] * x2,
            T[2, 3] + T[2, 0] * x0 + T[2, 1] * x1 + T[2, 2] * x2)


@nb.njit
def _spread(X, s, m, k, pick):
    """pick[:r] <- at most k of the m rows of X: the deepest (least s), then each the furthest
    from those chosen (closed_form._spread); returns r."""
    c = 0
    for r in range(1, m):
        if s[r] < s[c]:
            c = r
    pick[0] = c
    gap = np.empty(m)
    for r in range(m):
        gap[r] = math.sqrt((X[r, 0] - X[c, 0]) ** 2 + (X[r, 1] - X[c, 1]) ** 2 + (X[r, 2] - X[c, 2]) ** 2)
    n = 1
    while n < min(k, m):
        c = 0
        for r in range(1, m):
            if gap[r] > gap[c]:
                c = r
        if gap[c] <= TINY:
            break
        pick[n] = c
        n += 1
        for r in range(m):
            g = math.sqrt((X[r, 0] - X[c, 0]) ** 2 + (X[r, 1] - X[c, 1]) ** 2 + (X[r, 2] - X[c, 2]) ** 2)
            gap[r] = min(gap[r], g)
    return n


# --- on a half-space (b is the half-space): the reference's points ------------------------------------------
@nb.njit
def mesh_on_halfspace(CC, k, SH, i, Ta, j, Tb, margin, HULL):
    """The hull vertices within the margin, at most MESH_CONTACTS of them spread out
    (closed_form.mesh_halfspace_points)."""
    HV = HULL[0]
    n0, n1, n2, o = _plane(SH, j, Tb)
    v0, nv = int(SH[i, SP]), int(SH[i, SP + 1])
    X, s = np.empty((nv, 3)), np.empty(nv)
    m = 0
    for r in range(v0, v0 + nv):
        x0, x1, x2 = _at(Ta, HV[r, 0], HV[r, 1], HV[r, 2])
        sr = n0 * x0 + n1 * x1 + n2 * x2 - o
        if sr <= margin:
            X[m, 0], X[m, 1], X[m, 2], s[m] = x0, x1, x2, sr
            m += 1
    pick = np.arange(m)
    if m > MESH_CONTACTS:
        m = _spread(X, s, m, MESH_CONTACTS, pick)
    for r in range(m):
        c = pick[r]
        x0, x1, x2, sc = X[c, 0], X[c, 1], X[c, 2], s[c]
        if not put(CC, k, sc, n0, n1, n2, x0, x1, x2, x0 - sc * n0, x1 - sc * n1, x2 - sc * n2):
            return FULL
        k += 1
    return k


@nb.njit
def _across(u0, u1, u2, w0, w1, w2):
    """A unit vector across the axis u: -w normalised, or (|w| ~ 0) u x e_k, e_k the axis least along u."""
    wn = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    if wn > TIE:
        return -w0 / wn, -w1 / wn, -w2 / wn
    a0, a1, a2 = abs(u0), abs(u1), abs(u2)
    k = 0 if a0 <= min(a1, a2) else (1 if a1 <= a2 else 2)
    c0, c1, c2 = (0.0, u2, -u1) if k == 0 else ((-u2, 0.0, u0) if k == 1 else (u1, -u0, 0.0))
    cn = math.sqrt(c0 * c0 + c1 * c1 + c2 * c2)
    return c0 / cn, c1 / cn, c2 / cn


@nb.njit
def cylinder_on_halfspace(CC, k, SH, i, Ta, j, Tb, margin):
    """RIM_POINTS points of each cap rim, the first toward the half-space, those within the margin
    (closed_form.cylinder_halfspace_points)."""
    n0, n1, n2, o = _plane(SH, j, Tb)
    r, hl = SH[i, SP], 0.5 * SH[i, SP + 1]
    u0, u1, u2 = Ta[0, 2], Ta[1, 2], Ta[2, 2]
    nu = n0 * u0 + n1 * u1 + n2 * u2
    e0, e1, e2 = _across(u0, u1, u2, n0 - nu * u0, n1 - nu * u1, n2 - nu * u2)
    f0, f1, f2 = u1 * e2 - u2 * e1, u2 * e0 - u0 * e2, u0 * e1 - u1 * e0
    for cap in range(2):
        sg = -1.0 if cap == 0 else 1.0
        c0, c1, c2 = Ta[0, 3] + sg * hl * u0, Ta[1, 3] + sg * hl * u1, Ta[2, 3] + sg * hl * u2
        for t in range(RIM_POINTS):
            th = 2.0 * math.pi * t / RIM_POINTS
            ct, st = math.cos(th), math.sin(th)
            x0, x1, x2 = c0 + r * (ct * e0 + st * f0), c1 + r * (ct * e1 + st * f1), c2 + r * (ct * e2 + st * f2)
            s = n0 * x0 + n1 * x1 + n2 * x2 - o
            if s <= margin:
                if not put(CC, k, s, n0, n1, n2, x0, x1, x2, x0 - s * n0, x1 - s * n1, x2 - s * n2):
                    return FULL
                k += 1
    return k


# --- features and clipping ------------------------------------------------------------------------------------
@nb.njit
def feature_size(SH, i, HULL):
    """The most points :func:`feature` may write for shape i."""
    if int(SH[i, SK]) != MESH:
        return RIM
    FO = HULL[2]
    f0, nf = int(SH[i, SP + 2]), int(SH[i, SP + 3])
    most = 3
    for f in range(f0, f0 + nf):
        most = max(most, FO[f + 1] - FO[f])
    return most


@nb.njit
def feature(SH, i, T, HULL, d0, d1, d2, X):
    """The feature of shape i's core facing the world direction d (unit): its points in X (world)
    and (m, f): m the number of points, f (3) the outward normal when m >= 3 (a face)."""
    kind = int(SH[i, SK])
    l0 = T[0, 0] * d0 + T[1, 0] * d1 + T[2, 0] * d2
    l1 = T[0, 1] * d0 + T[1, 1] * d1 + T[2, 1] * d2
    l2 = T[0, 2] * d0 + T[1, 2] * d1 + T[2, 2] * d2
    if kind == SPHERE:
        X[0, 0], X[0, 1], X[0, 2] = T[0, 3], T[1, 3], T[2, 3]
        return 1, d0, d1, d2
    if kind == CAPSULE or kind == CYLINDER:
        hl = 0.5 * SH[i, SP + 1]
        r = SH[i, SP] if kind == CYLINDER else 0.0
        w = math.sqrt(l0 * l0 + l1 * l1)
        e0, e1 = (l0 / w, l1 / w) if w > TINY else (1.0, 0.0)
        if abs(l2) <= SIN_FACE:                          # the side: a segment along the axis
            for e in range(2):
                X[e, 0], X[e, 1], X[e, 2] = _at(T, r * e0, r * e1, -hl if e == 0 else hl)
            return 2, d0, d1, d2
        z = hl if l2 > 0.0 else -hl
        if kind == CAPSULE:
            X[0, 0], X[0, 1], X[0, 2] = _at(T, 0.0, 0.0, z)
            return 1, d0, d1, d2
        for t in range(RIM):                             # the cap, from the rim point along d
            th = 2.0 * math.pi * t / RIM
            ct, st = math.cos(th), math.sin(th)
            X[t, 0], X[t, 1], X[t, 2] = _at(T, r * (ct * e0 - st * e1), r * (ct * e1 + st * e0), z)
        sg = 1.0 if l2 > 0.0 else -1.0
        return RIM, sg * T[0, 2], sg * T[1, 2], sg * T[2, 2]
    if kind == BOX:
        h = (SH[i, SP], SH[i, SP + 1], SH[i, SP + 2])
        ll = (l0, l1, l2)
        a = 0 if abs(l0) >= max(abs(l1), abs(l2)) else (1 if abs(l1) >= abs(l2) else 2)
        b, c = (a + 1) % 3, (a + 2) % 3
        sg = 1.0 if ll[a] >= 0.0 else -1.0
        for t in range(4):
            x = [0.0, 0.0, 0.0]
            x[a] = sg * h[a]
            x[b] = h[b] if t == 0 or t == 3 else -h[b]
            x[c] = h[c] if t < 2 else -h[c]
            X[t, 0], X[t, 1], X[t, 2] = _at(T, x[0], x[1], x[2])
        return 4, sg * T[0, a], sg * T[1, a], sg * T[2, a]
    HV, HN, FO, FI = HULL[0], HULL[1], HULL[2], HULL[3]   # MESH: the hull polygon most along d
    f0, nf = int(SH[i, SP + 2]), int(SH[i, SP + 3])
    best, fb = -2.0, f0
    for f in range(f0, f0 + nf):
        s = HN[f, 0] * l0 + HN[f, 1] * l1 + HN[f, 2] * l2
        if s > best:
            best, fb = s, f
    m = FO[fb + 1] - FO[fb]
    for t in range(m):
        r = FI[FO[fb] + t]
        X[t, 0], X[t, 1], X[t, 2] = _at(T, HV[r, 0], HV[r, 1], HV[r, 2])
    g0, g1, g2 = HN[fb, 0], HN[fb, 1], HN[fb, 2]
    return m, T[0, 0] * g0 + T[0, 1] * g1 + T[0, 2] * g2, T[1, 0] * g0 + T[1, 1] * g1 + T[1, 2] * g2, \
        T[2, 0] * g0 + T[2, 1] * g1 + T[2, 2] * g2


@nb.njit
def _clip(X, m, R, nr, f0, f1, f2, Y, Z):
    """The points of X[:m] (a point, a segment or a convex polygon) inside the prism over the
    convex polygon R[:nr] of normal f: written in Y, their count returned."""
    for t in range(m):
        Y[t, 0], Y[t, 1], Y[t, 2] = X[t, 0], X[t, 1], X[t, 2]
    g0 = g1 = g2 = 0.0
    for t in range(nr):
        g0, g1, g2 = g0 + R[t, 0] / nr, g1 + R[t, 1] / nr, g2 + R[t, 2] / nr
    for e in range(nr):
        p0, p1, p2 = R[e, 0], R[e, 1], R[e, 2]
        q = (e + 1) % nr
        a0, a1, a2 = R[q, 0] - p0, R[q, 1] - p1, R[q, 2] - p2
        s0, s1, s2 = a1 * f2 - a2 * f1, a2 * f0 - a0 * f2, a0 * f1 - a1 * f0     # the side plane's normal
        if s0 * (g0 - p0) + s1 * (g1 - p1) + s2 * (g2 - p2) > 0.0:
            s0, s1, s2 = -s0, -s1, -s2                                           # turned outward
        k = 0
        closed = m >= 3
        for t in range(m if closed else 1 if m == 1 else 2):
            u = (t + 1) % m
            hu = s0 * (Y[u, 0] - p0) + s1 * (Y[u, 1] - p1) + s2 * (Y[u, 2] - p2)
            ht = s0 * (Y[t, 0] - p0) + s1 * (Y[t, 1] - p1) + s2 * (Y[t, 2] - p2)
            if m == 1:
                if ht <= 0.0:
                    Z[k, 0], Z[k, 1], Z[k, 2] = Y[t, 0], Y[t, 1], Y[t, 2]
                    k += 1
                continue
            if not closed and t == 1:
                break
            if k + 3 > Z.shape[0]:
                break                                                            # (rounding on a sliver)
            if ht <= 0.0:
                Z[k, 0], Z[k, 1], Z[k, 2] = Y[t, 0], Y[t, 1], Y[t, 2]
                k += 1
            if (ht <= 0.0) != (hu <= 0.0):                                       # the edge crosses the plane
                w = ht / (ht - hu)
                Z[k, 0] = Y[t, 0] + w * (Y[u, 0] - Y[t, 0])
                Z[k, 1] = Y[t, 1] + w * (Y[u, 1] - Y[t, 1])
                Z[k, 2] = Y[t, 2] + w * (Y[u, 2] - Y[t, 2])
                k += 1
            if not closed and hu <= 0.0:
                Z[k, 0], Z[k, 1], Z[k, 2] = Y[u, 0], Y[u, 1], Y[u, 2]
                k += 1
        m = k
        for t in range(m):
            Y[t, 0], Y[t, 1], Y[t, 2] = Z[t, 0], Z[t, 1], Z[t, 2]
        if m == 0:
            return 0
    return m


@nb.njit
def convex_contacts(CC, k, SH, i, Ti, j, Tj, margin, HULL, axis):
    """The contacts of shapes i (a) and j (b), bounded, at least one a cylinder or a mesh: the
    GJK/EPA contact, or the manifold of a face resting on a face (module docstring). axis[:3] <-
    a unit axis (world, from b to a) that separates them by more than the margin, or zero (in
    contact): :func:`.broadphase.apart` tests it at the next step."""
    d, n0, n1, n2, a0, a1, a2, b0, b1, b2 = signed_distance(SH, i, Ti, j, Tj, HULL, margin)
    if d != d:
        return FALLBACK
    if d > margin:
        axis[0], axis[1], axis[2] = n0, n1, n2
        return k
    axis[0] = axis[1] = axis[2] = 0.0
    Xa = np.empty((feature_size(SH, i, HULL), 3))
    Xb = np.empty((feature_size(SH, j, HULL), 3))
    ma, fa0, fa1, fa2 = feature(SH, i, Ti, HULL, -n0, -n1, -n2, Xa)
    mb, fb0, fb1, fb2 = feature(SH, j, Tj, HULL, n0, n1, n2, Xb)
    al_a = -(fa0 * n0 + fa1 * n1 + fa2 * n2) if ma >= 3 else -2.0
    al_b = fb0 * n0 + fb1 * n1 + fb2 * n2 if mb >= 3 else -2.0
    if max(al_a, al_b) >= COS_FACE and min(ma, mb) >= 2:   # a face along n, and a segment or a face
        on_b = al_b >= al_a                      # the reference face: b's (else a's, the incident b's)
        if on_b:
            R, nr, f0, f1, f2, X, m, inc = Xb, mb, fb0, fb1, fb2, Xa, ma, i
        else:
            R, nr, f0, f1, f2, X, m, inc = Xa, ma, fa0, fa1, fa2, Xb, mb, j
        r_inc = SH[inc, SP] if int(SH[inc, SK]) == CAPSULE else 0.0
        Y, Z = np.empty((2 * (m + nr) + 4, 3)), np.empty((2 * (m + nr) + 4, 3))
        m = _clip(X, m, R, nr, f0, f1, f2, Y, Z)
        s = np.empty(max(m, 1))
        keep = 0
        for t in range(m):                       # the clipped points within the margin
            st = f0 * (Y[t, 0] - R[0, 0]) + f1 * (Y[t, 1] - R[0, 1]) + f2 * (Y[t, 2] - R[0, 2]) - r_inc
            if st <= margin:
                Y[keep, 0], Y[keep, 1], Y[keep, 2], s[keep] = Y[t, 0], Y[t, 1], Y[t, 2], st
                keep += 1
        if keep > 0:
            pick = np.arange(keep)
            if keep > MANIFOLD:
                keep = _spread(Y, s, keep, MANIFOLD, pick)
            for t in range(keep):
                c = pick[t]
                st = s[c]
                x0, x1, x2 = Y[c, 0] - r_inc * f0, Y[c, 1] - r_inc * f1, Y[c, 2] - r_inc * f2   # incident surface
                y0, y1, y2 = x0 - st * f0, x1 - st * f1, x2 - st * f2                          # reference face
                if on_b:
                    ok = put(CC, k, st, f0, f1, f2, x0, x1, x2, y0, y1, y2)
                else:
                    ok = put(CC, k, st, -f0, -f1, -f2, y0, y1, y2, x0, x1, x2)
                if not ok:
                    return FULL
                k += 1
            return k
    if not put(CC, k, d, n0, n1, n2, a0, a1, a2, b0, b1, b2):
        return FULL
    return k + 1
