"""Distances through coal (the collision library of pinocchio): GJK for separated shapes, EPA for
penetrating ones, on the shapes of :mod:`.shapes` converted once (cached per shape).

coal's result is turned into this package's convention: coal's normal points from the first
object to the second, ours from b to a, so ``n = -normal``; coal's nearest points are already
the witness points on a and b in world coordinates. coal is imported on first use.

Precision: polytopes (boxes, meshes) are exact to rounding; with a curved shape (sphere, capsule,
cylinder) GJK stops at a distance tolerance ``GJK_TOLERANCE``, so distances are good to about
that, and normals (hence witness points) to about ``sqrt(GJK_TOLERANCE / d)``; EPA (penetration)
to about ``EPA_TOLERANCE``.
"""
import weakref

import numpy as np

from ..errors import ArtidynError, ModelError
from .shapes import Box, Capsule, Cylinder, HalfSpace, Mesh, Sphere

GJK_TOLERANCE = 1e-9   # separated shapes: distances to about 1e-9 (curved shapes) or exact (polytopes)
EPA_TOLERANCE = 1e-6   # coal's default: tighter EPA tolerances make EPA fail on curved shapes
_GEOMETRIES = weakref.WeakKeyDictionary()   # shape -> coal geometry


def coal_geometry(shape):
    """The coal ``CollisionGeometry`` of a shape (built once per shape)."""
    g = _GEOMETRIES.get(shape)
    if g is None:
        g = _build(shape)
        _GEOMETRIES[shape] = g
    return g


def _build(shape):
    import coal
    if isinstance(shape, Sphere):
        return coal.Sphere(shape.radius)
    if isinstance(shape, Box):
        return coal.Box(*shape.size)
    if isinstance(shape, Capsule):
        return coal.Capsule(shape.radius, shape.length)
    if isinstance(shape, Cylinder):
        return coal.Cylinder(shape.radius, shape.length)
    if isinstance(shape, HalfSpace):
        return coal.Halfspace(np.array(shape.normal), shape.offset)
    if isinstance(shape, Mesh):
        pts = coal.StdVec_Vec3s()
        for v in np.asarray(shape.vertices, dtype=float):
            pts.append(np.array(v))
        tris = coal.StdVec_Triangle()
        for f in np.asarray(shape.faces):
            tris.append(coal.Triangle(int(f[0]), int(f[1]), int(f[2])))
        return coal.Convex(pts, tris)
    raise ModelError(f"no coal geometry for {type(shape).__name__}")


def _finite(d, res):
    return bool(np.isfinite(d) and np.all(np.isfinite(res.getNearestPoint1()))
                and np.all(np.isfinite(res.getNearestPoint2())) and abs(d) < 1e100)


def _transform(T):
    import coal
    T = np.asarray(T, dtype=float)
    return coal.Transform3s(np.ascontiguousarray(T[:3, :3]), np.ascontiguousarray(T[:3, 3]))


def _coal_call(a, T_a, b, T_b, gjk_tolerance, epa_tolerance):
    import coal
    req = coal.DistanceRequest()
    req.enable_signed_distance = True
    req.gjk_tolerance = gjk_tolerance
    req.epa_tolerance = epa_tolerance
    res = coal.DistanceResult()
    d = coal.distance(coal_geometry(a), _transform(T_a), coal_geometry(b), _transform(T_b), req, res)
    return d, res


def coal_distance(a, T_a, b, T_b):
    """``(d, n, p_a, p_b)`` by coal.distance (GJK/EPA, signed), in this package's convention.

    A failed run (non-finite output) is retried with coal's default tolerances; a second failure
    raises ArtidynError naming the shapes.
    """
    d, res = _coal_call(a, T_a, b, T_b, GJK_TOLERANCE, EPA_TOLERANCE)
    if not _finite(d, res):
        d, res = _coal_call(a, T_a, b, T_b, 1e-6, 1e-6)
        if not _finite(d, res):
            raise ArtidynError(f"coal.distance failed between {a!r} and {b!r} (non-finite result)")
    p_a, p_b = np.array(res.getNearestPoint1()), np.array(res.getNearestPoint2())
    n = -np.array(res.normal, dtype=float)
    norm = np.linalg.norm(n)
    if not np.isfinite(norm) or norm < 1e-12:  # touching exactly: any unit normal along the witnesses
        w = p_a - p_b
        nw = np.linalg.norm(w)
        n = w / nw if nw > 1e-12 else np.array([0.0, 0.0, 1.0])
    else:
        n = n / norm
    return float(d), n, p_a, p_b
