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
most ``MESH_CONTACTS`` spread hull vertices of a mesh, within ``margin`` of the plane.
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
def box_box_points(a, T_a, b, T_b, margin):
    """Box on box: the corners of each box that lie over a face of the other, within ``margin``
    of it or inside (vertex-face contacts; a face resting on a face gives its corners, as a box on
    the ground does); none found (an edge on an edge): the single GJK/EPA point of coal."""
    out = []
    for A, TA, Bx, TB, flip in ((a, T_a, b, T_b, False), (b, T_b, a, T_a, True)):
        R, o, h = TB[:3, :3], TB[:3, 3], Bx.half
        for c in cf.box_corners(A, TA):
            p = R.T @ (c - o)
            best = None
            for i in range(3):
                j, k = (i + 1) % 3, (i + 2) % 3
                if abs(p[j]) > h[j] + margin or abs(p[k]) > h[k] + margin:
                    continue
                s_ = 1.0 if p[i] >= 0 else -1.0
                d = s_ * p[i] - h[i]
                if best is None or d > best[0]:
                    best = (d, s_ * R[:, i])
            if best is None or best[0] > margin or np.all(np.abs(p) <= h) and best[0] < -np.min(h):
                continue
            d, m = best                     # m: the outward normal of the face, from Bx toward c
            on_face = c - d * m
            out.append((d, -m, on_face, c) if flip else (d, m, c, on_face))
    if out:
        return out
    c = distance(a, T_a, b, T_b)
    return [c] if c[0] <= margin else []


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
