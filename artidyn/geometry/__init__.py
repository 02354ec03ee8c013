"""Collision geometry: shapes attached to bodies, and collision detection.

Shapes (immutable, each in its own frame): :class:`Sphere`, :class:`Box`, :class:`Capsule`,
:class:`Cylinder` (axis local z, centred), :class:`HalfSpace` (the solid n.x <= offset; the
ground is ``HalfSpace((0, 0, 1), 0)``), :class:`Mesh` (convex hull of a mesh file or vertices).
Attach them with :meth:`artidyn.ModelBuilder.add_collision`, or read URDF ``<collision>``;
the model keeps them in ``model.collisions`` (:class:`Collision` records).

Detection::

    d, n, p_a, p_b = distance(Sphere(0.1), T_a, HalfSpace(), np.eye(4))   # n from b to a
    C = contact_candidates(model, ad.body_placements(model, q), margin=1e-3)
    C.body_a, C.body_b, C.distance, C.normal, C.point_a, C.point_b
"""
from .shapes import Box, Capsule, Collision, Cylinder, HalfSpace, Mesh, Shape, Sphere, aabb  # noqa: F401
from .collision import contacts, distance  # noqa: F401
from .broadphase import Contacts, collision_pairs, contact_candidates, world_placements  # noqa: F401

__all__ = ["Shape", "Sphere", "Box", "Capsule", "Cylinder", "HalfSpace", "Mesh", "Collision", "aabb",
           "distance", "contacts", "Contacts", "contact_candidates", "collision_pairs", "world_placements"]
