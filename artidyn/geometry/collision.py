"""Narrow phase: the signed distance and the contact points of two placed shapes.

``distance(a, T_a, b, T_b) -> (d, n, p_a, p_b)``: signed distance ``d`` (< 0 in penetration,
minus the penetration depth), unit normal ``n`` (world axes) pointing from b to a, witness points
``p_a`` on a and ``p_b`` on b (world), ``p_a - p_b = d n``. Moving a by ``-d n`` brings the shapes
to touching.

Exact closed forms (:mod:`.closed_form`, after Ericson, "Real-Time Collision Detection", 2005,
chapter 5) serve sphere-sphere, sphere-capsule, capsule-capsule, sphere-box and every shape
against a half-space (sphere, capsule, box, cylinder, mesh hull); the other pairs (box-box,
cylinders, meshes ...) go to coal's GJK/EPA (:mod:`.coal_backend`). The order of a pair does not
matter: ``distance(b, T_b, a, T_a)`` gives ``(d, -n, p_b, p_a)``.

``contacts(a, T_a, b, T_b, margin)`` lists the contacts ``(d, n, p_a, p_b)`` with ``d <= margin``:
one (the distance above) for most pairs, several for a flat face on a half-space: the box
corners, the capsule's two end spheres, the cylinder's rim points (``RIM_POINTS`` per cap) and at
most ``MESH_CONTACTS`` spread hull vertices of a mesh, within ``margin`` of the plane; and for a box
on a box the corners of the region they share (:func:`box_box_points`).
"""
import numpy as np

from ..errors import InputError, ShapeError
from . import closed_form as cf
from .coal_backend import coal_distance
from .shapes import Box, Capsule, Cylinder, HalfSpace, Mesh, Shape, Sphere

CLOSED_FORM = {
    (Sphere, Sphere): cf.sphere_sphere,
    (Sphere, Capsule): cf.sphere_capsule,
    (Capsule, Capsule): cf.capsule_capsule,
    (Sphere, Box): cf.sphere_box,
    (Sphere, HalfSpace): cf.sphere_halfspace,
    (Capsule, HalfSpace): cf.capsule_halfspace,
    (Box, HalfSpace): cf.box_halfspace,
    (Cylinder, HalfSpace): cf.cylinder_halfspace,
    (Mesh, HalfSpace): cf.mesh_halfspace,
}
EDGE_PARALLEL = 1e-6      # two box edges closer to parallel (sin of their angle) have no crossing
EDGE_END = 1e-9           # an edge crossing within this fraction of an edge's end is a corner's
EDGE_CONTACTS = 8         # the most edge crossings of two boxes (a face on a rotated face: 8)
FACE_BIAS = 1e-6          # m: a face axis within this of the best edge axis is taken (faces first)
SAME_POINT = 1e-9         # m: a corner of b this close to a contact already found is that contact


def box_axis_gaps(a, T_a, b, T_b):
    """The gaps of the two boxes along the 15 axes of the separating-axis test (Ericson, sec.
    4.4.1; Gottschalk, Lin & Manocha, SIGGRAPH 1996): a's three face normals, b's, then the cross
    products of an edge direction of a with one of b (-inf for a pair of parallel edges)."""
    Ra, Rb, d = T_a[:3, :3], T_b[:3, :3], T_b[:3, 3] - T_a[:3, 3]
    out = np.full(15, -np.inf)
    for ax in range(15):
        if ax < 3:
            axis = Ra[:, ax]
        elif ax < 6:
            axis = Rb[:, ax - 3]
        else:
            axis = np.cross(Ra[:, (ax - 6) // 3], Rb[:, (ax - 6) % 3])
            nl = np.linalg.norm(axis)
            if nl < 1e-9:
                continue
            axis = axis / nl
        ra = np.sum(a.half * np.abs(axis @ Ra))
        rb = np.sum(b.half * np.abs(axis @ Rb))
        out[ax] = abs(d @ axis) - ra - rb
    return out


def _corners_on_face(A, TA, Bx, TB, axis, margin):
    """The corners of box A over face ``axis`` of box Bx (the side facing A's centre), within
    ``margin`` of it or inside it but not deeper than Bx's smallest half side: (d, m, corner,
    its projection on the face), m the face's outward normal."""
    R, o, h = TB[:3, :3], TB[:3, 3], Bx.half
    j, k = (axis + 1) % 3, (axis + 2) % 3
    s_ = 1.0 if (TA[:3, 3] - o) @ R[:, axis] >= 0 else -1.0
    m = s_ * R[:, axis]
    out = []
    for c in cf.box_corners(A, TA):
        p = R.T @ (c - o)
        if abs(p[j]) > h[j] + margin or abs(p[k]) > h[k] + margin:
            continue
        d = s_ * p[axis] - h[axis]
        if d > margin or d < -np.min(h):
            continue
        out.append((d, m, c, c - d * m))
    return out


def box_box_points(a, T_a, b, T_b, margin):
    """Box on box. When a face axis separates the two boxes best (the separating-axis test,
    :func:`box_axis_gaps`, faces taken first within ``FACE_BIAS``): the corners of a over the
    best face of b, then those of b over the best face of a (one already found left out), within
    ``margin`` of the face or inside; unless four corners of one box were found (its face lies
    wholly on the other's: that face is the overlap), the crossings of their edges
    (:func:`box_edge_points`: a face resting on a rotated face gives the other corners of the
    overlap polygon, two edges across each other their closest points). None found: the single
    GJK/EPA point of coal."""
    g = box_axis_gaps(a, T_a, b, T_b)
    out = []
    if g[:6].max() + FACE_BIAS >= g[6:].max():
        out += _corners_on_face(a, T_a, b, T_b, int(np.argmax(g[3:6])), margin)
        if len(out) >= 4:               # a whole face of a over b's: the overlap is that face
            return out
        found, n_a = [x[3] for x in out], len(out)
        for d, m, c, f in _corners_on_face(b, T_b, a, T_a, int(np.argmax(g[:3])), margin):
            if not any(np.linalg.norm(c - x) <= SAME_POINT for x in found):
                out.append((d, -m, f, c))
        if len(out) - n_a >= 4:
            return out
    out += box_edge_points(a, T_a, b, T_b, margin)
    if out:
        return out
    c = distance(a, T_a, b, T_b)
    return [c] if c[0] <= margin else []


def _box_edges(C):
    """The 12 edges (start corner, end corner) of a box's corners C (``box_corners``' order)."""
    return [(C[c], C[c | bit]) for c in range(8) for bit in (4, 2, 1) if not c & bit]


def _within(p, T, h, margin):
    """True when the point p lies in the box of half sides h placed at T, widened by margin."""
    return bool(np.all(np.abs(T[:3, :3].T @ (p - T[:3, 3])) <= h + margin))


def box_edge_points(a, T_a, b, T_b, margin):
    """The crossings of an edge of box a with an edge of box b within ``margin``: the closest
    points of the two edges' lines (Ericson, sec. 5.1.8) when both lie inside their edges (not at
    a corner) and each lies in the other box (widened by the margin), the normal along the edges'
    cross product, away from b's centre; none deeper than the smallest half side, at most
    ``EDGE_CONTACTS``."""
    out = []
    hmin = min(np.min(a.half), np.min(b.half))
    Eb = _box_edges(cf.box_corners(b, T_b))
    for p, pe in _box_edges(cf.box_corners(a, T_a)):
        e = pe - p
        for r, rf in Eb:
            f = rf - r
            n = np.cross(e, f)
            nn = np.linalg.norm(n)
            ee, ff, ef = e @ e, f @ f, e @ f
            if nn <= EDGE_PARALLEL * np.sqrt(ee * ff):
                continue
            w = p - r
            we, wf = w @ e, w @ f
            den = nn * nn          # |e|^2 |f|^2 - (e.f)^2, without its cancellation for near-parallel edges
            s_, t_ = (ef * wf - ff * we) / den, (ee * wf - ef * we) / den
            if not (EDGE_END < s_ < 1.0 - EDGE_END and EDGE_END < t_ < 1.0 - EDGE_END):
                continue
            pa, pb = p + s_ * e, r + t_ * f
            if not (_within(pa, T_b, b.half, margin) and _within(pb, T_a, a.half, margin)):
                continue
            n = n / nn
            if (pb - T_b[:3, 3]) @ n < 0.0:
                n = -n
            d = (pa - pb) @ n
            if d > margin or d < -hmin:
                continue
            out.append((d, n, pa, pb))
            if len(out) == EDGE_CONTACTS:
                return out
    return out


MULTI_POINT = {
    (Box, Box): box_box_points,
    (Capsule, HalfSpace): cf.capsule_halfspace_points,
    (Box, HalfSpace): cf.box_halfspace_points,
    (Cylinder, HalfSpace): cf.cylinder_halfspace_points,
    (Mesh, HalfSpace): cf.mesh_halfspace_points,
}


def _check(a, T_a, b, T_b):
    for s, label in ((a, "shape_a"), (b, "shape_b")):
        if not isinstance(s, Shape):
            raise InputError(f"{label} must be a collision shape (Sphere, Box, ...), got {type(s).__name__}")
    out = []
    for T, label in ((T_a, "T_a"), (T_b, "T_b")):
        T = np.asarray(T, dtype=float)
        if T.shape != (4, 4):
            raise ShapeError(f"{label} must be a 4x4 placement, got shape {T.shape}")
        if not np.all(np.isfinite(T)):
            raise InputError(f"{label} is not finite")
        out.append(T)
    if isinstance(a, HalfSpace) and isinstance(b, HalfSpace):
        raise InputError("distance between two half-spaces: not defined (they always intersect "
                         "unless parallel); give one of them a bounded shape")
    return out


def _flip(result):
    d, n, p_b, p_a = result
    return d, -n, p_a, p_b


def distance(shape_a, T_a, shape_b, T_b):
    """``(d, n, p_a, p_b)``: signed distance, unit normal from b to a, witness points (world)."""
    T_a, T_b = _check(shape_a, T_a, shape_b, T_b)
    f = CLOSED_FORM.get((type(shape_a), type(shape_b)))
    if f is not None:
        return f(shape_a, T_a, shape_b, T_b)
    f = CLOSED_FORM.get((type(shape_b), type(shape_a)))
    if f is not None:
        return _flip(f(shape_b, T_b, shape_a, T_a))
    return coal_distance(shape_a, T_a, shape_b, T_b)


def contacts(shape_a, T_a, shape_b, T_b, margin=0.0):
    """The contacts ``[(d, n, p_a, p_b), ...]`` of two shapes with ``d <= margin`` (maybe none).

    A flat face on a half-space gives several (a box resting on the ground: its 4 lower
    corners); other pairs give at most one, :func:`distance`.
    """
    margin = float(margin)
    if not np.isfinite(margin) or margin < 0:
        raise InputError(f"margin must be finite and >= 0, got {margin}")
    T_a, T_b = _check(shape_a, T_a, shape_b, T_b)
    f = MULTI_POINT.get((type(shape_a), type(shape_b)))
    if f is not None:
        return f(shape_a, T_a, shape_b, T_b, margin)
    f = MULTI_POINT.get((type(shape_b), type(shape_a)))
    if f is not None:
        return [_flip(c) for c in f(shape_b, T_b, shape_a, T_a, margin)]
    c = distance(shape_a, T_a, shape_b, T_b)
    return [c] if c[0] <= margin else []
