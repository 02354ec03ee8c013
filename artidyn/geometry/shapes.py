"""Collision shapes: small immutable descriptions, each in its own local frame.

==============  ===========================================================================
shape           the solid, in the shape frame
==============  ===========================================================================
``Sphere``      ``|x| <= radius``
``Box``         ``|x_i| <= size_i / 2``: ``size`` are the full side lengths (x, y, z)
``Capsule``     points within ``radius`` of the segment from (0, 0, -length/2) to (0, 0, length/2)
``Cylinder``    ``x^2 + y^2 <= radius^2``, ``|z| <= length / 2``
``HalfSpace``   ``{x : n.x <= offset}``; its free side is ``n.x >= offset``, so
                ``HalfSpace((0, 0, 1), 0)`` is the ground ``z >= 0``
``Mesh``        the convex hull of a triangle mesh (a file read by coal's loader, or vertices)
==============  ===========================================================================

A shape is attached to a body with a placement (the 4x4 transform of the shape frame in the body
frame): :class:`Collision` is that record, kept by the model in ``model.collisions``. Shapes
compare and hash by value and pickle; arguments are checked (positive sizes, a non-zero normal,
a readable mesh file) and a wrong one raises :class:`artidyn.ModelError` naming it.
"""
import os
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError


def _positive(shape, name, value, allow_zero=False):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{shape}: {name} must be a number, got {value!r}") from None
    if not np.isfinite(x) or x < 0 or (x == 0 and not allow_zero):
        need = ">= 0" if allow_zero else "> 0"
        raise ModelError(f"{shape}: {name} must be finite and {need}, got {value!r}")
    return x


class Shape:
    """Base class of the collision shapes."""

    kind = "shape"

    def reflected_z(self):
        """The shape reflected through its local xy-plane (z -> -z), for mirrored limbs."""
        return self


@dataclass(frozen=True)
class Sphere(Shape):
    """A ball of ``radius`` centred at the shape origin."""

    radius: float
    kind = "sphere"

    def __post_init__(self):
        object.__setattr__(self, "radius", _positive("Sphere", "radius", self.radius))


@dataclass(frozen=True)
class Box(Shape):
    """A box centred at the shape origin; ``size`` = full side lengths (x, y, z) (a number: a cube)."""

    size: tuple
    kind = "box"

    def __post_init__(self):
        s = np.atleast_1d(np.asarray(self.size, dtype=float)) if _numeric(self.size) else None
        if s is not None and s.shape == (1,):
            s = np.repeat(s, 3)
        if s is None or s.shape != (3,):
            raise ModelError(f"Box: size must be 3 side lengths (x, y, z), got {self.size!r}")
        object.__setattr__(self, "size", tuple(_positive("Box", "size", v) for v in s))

    @property
    def half(self):
        """Half side lengths, (3,)."""
        return 0.5 * np.array(self.size)


@dataclass(frozen=True)
class Capsule(Shape):
    """Points within ``radius`` of the segment of ``length`` along the local z axis, centred."""

    radius: float
    length: float
    kind = "capsule"

    def __post_init__(self):
        object.__setattr__(self, "radius", _positive("Capsule", "radius", self.radius))
        object.__setattr__(self, "length", _positive("Capsule", "length", self.length, allow_zero=True))


@dataclass(frozen=True)
class Cylinder(Shape):
    """A solid cylinder of ``radius`` and ``length`` along the local z axis, centred."""

    radius: float
    length: float
    kind = "cylinder"

    def __post_init__(self):
        object.__setattr__(self, "radius", _positive("Cylinder", "radius", self.radius))
        object.__setattr__(self, "length", _positive("Cylinder", "length", self.length))


@dataclass(frozen=True)
class HalfSpace(Shape):
    """The solid ``{x : n.x <= offset}`` (free side ``n.x >= offset``).

    A non-unit ``normal`` is normalised and ``offset`` divided by its norm (the same set), as
    coal does.
    """

    normal: tuple = (0.0, 0.0, 1.0)
    offset: float = 0.0
    kind = "halfspace"

    def __post_init__(self):
        n = np.asarray(self.normal, dtype=float) if _numeric(self.normal) else None
        if n is None or n.shape != (3,) or not np.all(np.isfinite(n)):
            raise ModelError(f"HalfSpace: normal must be 3 finite numbers, got {self.normal!r}")
        norm = float(np.linalg.norm(n))
        if norm < 1e-12:
            raise ModelError(f"HalfSpace: normal {n.tolist()} is zero")
        try:
            d = float(self.offset)
        except (TypeError, ValueError):
            raise ModelError(f"HalfSpace: offset must be a number, got {self.offset!r}") from None
        if not np.isfinite(d):
            raise ModelError(f"HalfSpace: offset must be finite, got {self.offset!r}")
        object.__setattr__(self, "normal", tuple(float(v) for v in n / norm))
        object.__setattr__(self, "offset", d / norm)

    def reflected_z(self):
        n = self.normal
        return HalfSpace((n[0], n[1], -n[2]), self.offset)


def _numeric(x):
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return False
    return a.ndim <= 1


class Mesh(Shape):
    """The convex hull of a triangle mesh, used for collision (GJK/EPA through coal).

    Give either ``path`` (an STL, OBJ, DAE ... file read by coal's assimp loader) or
    ``vertices`` ((n, 3), with optional ``faces`` (m, 3) vertex indices, checked but not needed:
    the hull is computed from the vertices). ``scale`` (3 non-zero numbers; negative ones mirror)
    multiplies the vertex coordinates. After construction ``vertices`` (k, 3) are the hull's
    vertices in the shape frame (scale applied) and ``faces`` (f, 3) its triangles, counter-
    clockwise seen from outside. ``path`` is kept as the absolute file name (None for vertices).

    Raises FileNotFoundError for a missing file, ModelError for an unreadable file or a degenerate
    point set (fewer than 4 points, or all on a line).
    """

    kind = "mesh"

    def __init__(self, path=None, vertices=None, faces=None, scale=(1.0, 1.0, 1.0)):
        from . import meshes
        sc = np.asarray(scale, dtype=float) if _numeric(scale) else None
        if sc is None or sc.shape != (3,) or not np.all(np.isfinite(sc)) or np.any(sc == 0):
            raise ModelError(f"Mesh: scale must be 3 finite non-zero numbers, got {scale!r}")
        if (path is None) == (vertices is None):
            raise ModelError("Mesh: give either a file path or vertices (not both, not neither)")
        if path is not None:
            if not isinstance(path, (str, os.PathLike)):
                raise ModelError(f"Mesh: path must be a file name, got {path!r}")
            path, (hull_v, hull_f) = meshes.file_hull(path)
        else:
            hull_v, hull_f = meshes.convex_hull(meshes.check_points(vertices, faces), where="Mesh(vertices)")
        hull_v = hull_v * sc
        if np.prod(sc) < 0:  # a mirror turns the triangles inside out
            hull_f = hull_f[:, ::-1]
        self._set(path, tuple(float(v) for v in sc), hull_v, hull_f)

    def _set(self, path, scale, vertices, faces):
        vertices, faces = np.array(vertices, dtype=float), np.array(faces, dtype=np.int64)
        vertices.flags.writeable = faces.flags.writeable = False
        for key, value in (("path", path), ("scale", scale), ("vertices", vertices), ("faces", faces),
                           ("_hash", hash((path, scale, vertices.shape, vertices.tobytes())))):
            object.__setattr__(self, key, value)

    @classmethod
    def _from_hull(cls, path, scale, vertices, faces):
        m = cls.__new__(cls)
        m._set(path, tuple(scale), vertices, faces)
        return m

    def __setattr__(self, key, value):
        raise AttributeError("a Mesh is immutable")

    def __reduce__(self):
        return (Mesh._from_hull, (self.path, self.scale, np.array(self.vertices), np.array(self.faces)))

    def __eq__(self, other):
        if not isinstance(other, Mesh):
            return NotImplemented
        return (self.path == other.path and self.scale == other.scale
                and np.array_equal(self.vertices, other.vertices) and np.array_equal(self.faces, other.faces))

    def __hash__(self):
        return self._hash

    def __repr__(self):
        src = repr(self.path) if self.path else "vertices"
        return f"Mesh({src}, {len(self.vertices)} hull vertices, scale={self.scale})"

    def reflected_z(self):
        v = np.array(self.vertices) * (1.0, 1.0, -1.0)
        scale = (self.scale[0], self.scale[1], -self.scale[2])
        return Mesh._from_hull(self.path, scale, v, np.array(self.faces)[:, ::-1])


SHAPES = (Sphere, Box, Capsule, Cylinder, HalfSpace, Mesh)


def check_mask(value, what, error=ModelError):
    """A collision bit mask (``contype`` / ``conaffinity``): a non-negative int (bools refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise error(f"{what} must be a non-negative int (a bit mask), got {value!r}")
    return int(value)


@dataclass(frozen=True, eq=False)
class Collision:
    """A collision shape attached to a body: the records of ``model.collisions``.

    ``name`` (unique in the model), ``body`` (body index, 0 = the world: fixed scenery),
    ``shape`` (a :class:`Shape`) and ``placement`` (4x4, the shape frame in the body frame,
    read-only); ``contype`` and ``conaffinity`` (non-negative int bit masks, 1 and 1 by default:
    MuJoCo's rule, two shapes may touch when ``contype_a & conaffinity_b`` or
    ``contype_b & conaffinity_a`` is nonzero); ``friction`` and ``restitution`` (None: the
    :class:`~artidyn.contact.ContactSettings` of the run): the shape's own Coulomb and Newton
    coefficients, combined per pair by :func:`pair_parameters`. Records compare by value.
    """

    name: str
    body: int
    shape: Shape
    placement: np.ndarray
    contype: int = 1
    conaffinity: int = 1
    friction: float | None = None
    restitution: float | None = None

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ModelError(f"collision names must be non-empty strings, got {self.name!r}")
        if not isinstance(self.shape, Shape):
            raise ModelError(f"collision '{self.name}': shape must be one of "
                             f"{', '.join(s.__name__ for s in SHAPES)}, got {type(self.shape).__name__}")
        T = np.array(self.placement, dtype=float)
        if T.shape != (4, 4) or not np.all(np.isfinite(T)):
            raise ModelError(f"collision '{self.name}': placement must be a finite 4x4 transform")
        R = T[:3, :3]
        rigid = np.abs(R.T @ R - np.eye(3)).max() <= 1e-6 and np.linalg.det(R) > 0
        if not rigid or np.abs(T[3] - [0, 0, 0, 1]).max() > 1e-12:
            raise ModelError(f"collision '{self.name}': placement is not a rigid transform (a rotation and a "
                             f"translation, last row (0, 0, 0, 1))")
        T.flags.writeable = False
        object.__setattr__(self, "body", int(self.body))
        object.__setattr__(self, "placement", T)
        for key in ("contype", "conaffinity"):
            object.__setattr__(self, key, check_mask(getattr(self, key), f"collision '{self.name}': {key}", ModelError))
        for key, hi in (("friction", np.inf), ("restitution", 1.0)):
            object.__setattr__(self, key, check_coefficient(getattr(self, key), f"collision '{self.name}': {key}",
                                                            hi, ModelError))

    def may_touch(self, other):
        """MuJoCo's bit-mask rule: ``(contype & other.conaffinity) or (other.contype & conaffinity)``."""
        return bool((self.contype & other.conaffinity) or (other.contype & self.conaffinity))

    def __eq__(self, other):
        if not isinstance(other, Collision):
            return NotImplemented
        return (self.name, self.body, self.shape, self.contype, self.conaffinity, self.friction, self.restitution) == \
            (other.name, other.body, other.shape, other.contype, other.conaffinity, other.friction,
             other.restitution) and \
            np.array_equal(self.placement, other.placement)

    def __hash__(self):
        return hash((self.name, self.body, self.shape))

    def __repr__(self):
        xyz = ", ".join(f"{v:.6g}" for v in self.placement[:3, 3])
        rot = "" if np.allclose(self.placement[:3, :3], np.eye(3)) else ", rotated"
        masks = "" if (self.contype, self.conaffinity) == (1, 1) else \
            f", contype={self.contype}, conaffinity={self.conaffinity}"
        laws = "".join(f", {k}={getattr(self, k):.6g}" for k in ("friction", "restitution")
                       if getattr(self, k) is not None)
        return f"Collision({self.name!r}, body={self.body}, {self.shape!r}, xyz=({xyz}){rot}{masks}{laws})"


def check_coefficient(value, what, hi, error):
    """None, or a finite float in [0, hi] (a friction or restitution coefficient)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not 0.0 <= float(value) <= hi:
        raise error(f"{what} must be None or a number in [0, {hi}], got {value!r}")
    return float(value)


def pair_parameters(a, b, friction, restitution):
    """The Coulomb and Newton coefficients of the contacts between collisions a and b: each
    shape's own value (its :class:`Collision`'s ``friction`` / ``restitution``), or the run's
    default (``friction`` / ``restitution``, :class:`~artidyn.contact.ContactSettings`) where it has
    none; the pair takes the larger of the two (MuJoCo's rule for friction, and the same for
    restitution, so that a pair is as rough and as bouncy as its rougher, bouncier shape)."""
    fa = friction if a.friction is None else a.friction
    fb = friction if b.friction is None else b.friction
    ea = restitution if a.restitution is None else a.restitution
    eb = restitution if b.restitution is None else b.restitution
    return max(fa, fb), max(ea, eb)


def aabb(shape, T):
    """World axis-aligned bounding box ``(lo, hi)`` (two (3,) arrays) of ``shape`` placed at ``T``.

    Exact for spheres, capsules, cylinders, boxes and meshes (hull vertices); a half-space is
    unbounded: (-inf, +inf).
    """
    R, p = T[:3, :3], T[:3, 3]
    if isinstance(shape, Sphere):
        e = np.full(3, shape.radius)
    elif isinstance(shape, Box):
        e = np.abs(R) @ shape.half
    elif isinstance(shape, Capsule):
        e = 0.5 * shape.length * np.abs(R[:, 2]) + shape.radius
    elif isinstance(shape, Cylinder):
        u = R[:, 2]
        e = 0.5 * shape.length * np.abs(u) + shape.radius * np.sqrt(np.clip(1.0 - u * u, 0.0, 1.0))
    elif isinstance(shape, Mesh):
        w = shape.vertices @ R.T + p
        return w.min(axis=0), w.max(axis=0)
    elif isinstance(shape, HalfSpace):
        return np.full(3, -np.inf), np.full(3, np.inf)
    else:
        raise ModelError(f"aabb: unknown shape {type(shape).__name__}")
    return p - e, p + e
