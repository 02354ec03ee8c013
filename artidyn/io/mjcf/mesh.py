"""MJCF mesh assets (MuJoCo XML reference, asset/mesh): vertices and triangles as MuJoCo compiles
them, their mass properties (:mod:`.inertia`) and their collision shape.

A mesh is given inline (``vertex``, and ``face`` or else the convex hull's triangles) or by a
``file`` under ``<compiler meshdir>`` (read by coal's loader: STL, OBJ ...). MuJoCo stores the
vertices in single precision, then moves them by ``refpos``, turns them by ``refquat`` and scales
them by ``scale`` (a mirror reverses the triangles); artidyn does the same, so that the masses
agree to rounding. The collision shape is the convex hull, as MuJoCo collides meshes.
"""
import functools
import os
import pathlib

import numpy as np

from ...errors import ModelError
from ...geometry.meshes import convex_hull
from ...geometry.shapes import Mesh
from ...spatial.rotations import quat_to_matrix
from .inertia import MESH_MODES, mesh_inertia, mujoco_principal, orientation_error


class MeshAsset:
    """One ``<mesh>`` asset: ``V`` (n, 3) vertices in the geom frame, ``F`` (f, 3) outward triangles,
    ``mode`` (MuJoCo's ``inertia`` attribute); :meth:`mass_properties` and :meth:`shape` on demand."""

    def __init__(self, el, V, F, mode, make_shape):
        self.el, self.V, self.F, self.mode = el, V, F, mode
        self._make_shape, self._shape, self._props = make_shape, None, None

    def mass_properties(self, r):
        """(volume, com, inertia per unit density about the com) in the asset's inertia mode."""
        if self._props is None:
            V, F, mode = self.V, self.F, self.mode
            if mode == "convex":
                V, F = convex_hull(V, where=r.label(self.el))
                mode = "exact"
            elif mode == "exact" and orientation_error(F) is not None:
                i, j = orientation_error(F)
                raise r.error(self.el, f"triangles with inconsistent orientation share the edge from vertex {i} to "
                                       f"{j}: the exact inertia needs a closed, oriented mesh", "inertia")
            try:
                volume, com, I_unit = mesh_inertia(V, F, mode)
            except ValueError as exc:
                raise r.error(self.el, str(exc), "inertia") from None
            self._props = volume, com, mujoco_principal(I_unit)
        return self._props

    def shape(self, r):
        if self._shape is None:
            try:
                self._shape = self._make_shape()
            except (ModelError, FileNotFoundError, ValueError) as exc:
                raise r.error(self.el, str(exc)) from None
        return self._shape


def read_mesh(r, s, el, attrs):
    """The :class:`MeshAsset` of a ``<mesh>`` element (``attrs``: its attributes over its class's)."""
    if "builtin" in attrs:
        raise r.error(el, "MuJoCo's builtin meshes are not supported: give vertex or file", "builtin")
    mode = r.flag(el, attrs, "inertia", "legacy", MESH_MODES)
    scale = r.numbers(el, attrs, "scale", 3, default=(1.0, 1.0, 1.0))
    refpos = r.numbers(el, attrs, "refpos", 3, default=(0.0, 0.0, 0.0))
    refquat = r.numbers(el, attrs, "refquat", 4, default=(1.0, 0.0, 0.0, 0.0))
    moved = bool(np.any(refpos != 0) or np.any(refquat != (1.0, 0.0, 0.0, 0.0)))
    if "vertex" in attrs:
        V0, F0, path = _inline(r, el, attrs), _faces(r, el, attrs), None
    elif "file" in attrs:
        name = pathlib.Path(attrs["file"]).name if s.strippath else attrs["file"]
        path = (s.meshdir if s.meshdir is not None else r.base_dir) / name
        try:
            V0, F0 = _file_triangles(path)
        except (ModelError, FileNotFoundError) as exc:
            raise r.error(el, str(exc), "file") from None
    else:
        raise r.error(el, "a mesh needs vertex or file", "file")
    V = _placed(V0, refpos, refquat, scale)
    try:
        if F0 is None:                  # no triangles: MuJoCo takes the convex hull's
            V, F = convex_hull(V, where=r.label(el))
        else:
            F = F0[:, ::-1] if np.prod(scale) < 0 else F0
    except ModelError as exc:
        raise r.error(el, str(exc), "vertex" if path is None else "file") from None
    if moved:
        make = functools.partial(Mesh, vertices=V)
    elif path is None:
        make = functools.partial(Mesh, vertices=V0, scale=tuple(scale))
    else:
        make = functools.partial(Mesh, path, scale=tuple(scale))
    return MeshAsset(el, V, F, mode, make)


def _inline(r, el, attrs):
    v = r.numbers(el, attrs, "vertex")
    if v.size % 3 or v.size < 12:
        raise r.error(el, f"needs at least 4 vertices of 3 numbers, got {v.size} numbers", "vertex")
    return v.reshape(-1, 3).astype(np.float32).astype(float)      # MuJoCo keeps vertices in single precision


def _faces(r, el, attrs):
    if "face" not in attrs:
        return None
    f = r.numbers(el, attrs, "face")
    if not np.all(f == np.round(f)):
        raise r.error(el, "face indices must be integers", "face")
    f = f.astype(np.int64)
    nv = len(attrs["vertex"].split()) // 3
    if f.size % 3 or f.size == 0 or f.min() < 0 or f.max() >= nv:
        raise r.error(el, f"needs triples of vertex indices in 0..{nv - 1}", "face")
    return f.reshape(-1, 3)


def _placed(V, refpos, refquat, scale):
    """MuJoCo's vertex transform: minus refpos, rotated by the inverse of refquat, scaled."""
    R = quat_to_matrix(np.r_[refquat[1:], refquat[0]] / np.linalg.norm(refquat))
    return ((V - refpos) @ R) * scale


def _file_triangles(path):
    """(vertices (n, 3), triangles (f, 3)) of a mesh file, read once per file version."""
    p = pathlib.Path(os.fspath(path)).expanduser().resolve()
    if not p.is_file():
        raise FileNotFoundError(f"mesh file '{path}' not found")
    st = p.stat()
    return _cached_triangles(str(p), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=256)
def _cached_triangles(path, mtime_ns, size):
    import coal
    try:
        bvh = coal.MeshLoader(coal.BV_AABB).load(path, np.ones(3))
    except Exception as exc:            # coal reports every failure as a ValueError with a C++ trace
        msg = str(exc).split("message:", 1)[-1].strip().replace("\n", " ")
        raise ModelError(f"mesh file '{path}': cannot read it ({msg[:200]})") from None
    V = np.array(bvh.vertices(), dtype=float).reshape(-1, 3).astype(np.float32).astype(float)
    F = np.array([[t[0], t[1], t[2]] for t in (bvh.tri_indices(i) for i in range(bvh.num_tris))], dtype=np.int64)
    if len(V) < 4 or len(F) == 0:
        raise ModelError(f"mesh file '{path}': needs at least 4 vertices and a triangle")
    V.flags.writeable = F.flags.writeable = False
    return V, F.reshape(-1, 3)
