"""Mesh files and convex hulls for :class:`artidyn.geometry.Mesh`.

Files are read by coal's mesh loader (assimp: STL, OBJ, DAE, PLY ...); only the vertices are
kept, and only their convex hull (scipy's Qhull), which is what collision detection uses. A file
is read once per process: hulls are cached by (absolute path, modification time, size), so that
loading a robot twice, or a robot whose links share a mesh, reads each file once.
"""
import functools
import os
import pathlib

import numpy as np

from ..errors import ModelError

MAX_VALENCE = 250  # coal's convex shapes store at most 255 neighbours per vertex


def check_points(vertices, faces=None):
    """Vertices as a finite (n, 3) float array; ``faces`` (m, 3) indices, checked if given."""
    try:
        V = np.asarray(vertices, dtype=float)
    except (TypeError, ValueError):
        raise ModelError("Mesh: vertices must be an (n, 3) array of numbers") from None
    if V.ndim != 2 or V.shape[1] != 3 or not np.all(np.isfinite(V)):
        raise ModelError(f"Mesh: vertices must be a finite (n, 3) array, got shape {V.shape}")
    if faces is not None:
        F = np.asarray(faces)
        if F.ndim != 2 or F.shape[1] != 3 or not np.issubdtype(F.dtype, np.integer):
            raise ModelError(f"Mesh: faces must be an (m, 3) integer array, got shape {F.shape} ({F.dtype})")
        if F.size and (F.min() < 0 or F.max() >= len(V)):
            raise ModelError(f"Mesh: face indices must be in 0..{len(V) - 1}, got {F.min()}..{F.max()}")
    return V


def convex_hull(points, where="Mesh"):
    """``(vertices (k, 3), faces (f, 3))`` of the convex hull of ``points``, faces outward (CCW).

    Flat point sets get a hull of (almost) zero thickness (Qhull's joggle, ``QJ``), and so do
    hulls whose triangulation fans a large flat face out of one vertex (coal allows at most 255
    neighbours per vertex); fewer than 4 points, or points all on a line, raise ModelError.
    """
    from scipy.spatial import ConvexHull, QhullError
    P = np.asarray(points, dtype=float)
    if not np.all(np.isfinite(P)):
        k = int(np.argmax(~np.all(np.isfinite(P.reshape(len(P), -1)), axis=1)))
        raise ModelError(f"{where}: vertex {k} is NaN or infinite ({P[k].tolist()})")
    if len(P) < 4:
        raise ModelError(f"{where}: a convex hull needs at least 4 vertices, got {len(P)}")
    s = np.linalg.svd(P - P.mean(axis=0), compute_uv=False)
    if s[1] <= 1e-12 * max(s[0], 1e-300):
        raise ModelError(f"{where}: the vertices are all on a line (or at one point): no volume nor area")
    try:
        hull = ConvexHull(P)
    except QhullError:
        hull = ConvexHull(P, qhull_options="QJ")  # flat: joggle to a thin hull
    if np.bincount(hull.simplices.ravel()).max() > MAX_VALENCE:
        hull = ConvexHull(P, qhull_options="QJ")  # a flat face fanned out of one vertex: joggle
        if np.bincount(hull.simplices.ravel()).max() > MAX_VALENCE:
            raise ModelError(f"{where}: a hull vertex has more than {MAX_VALENCE} neighbours (coal's limit)")
    F = hull.simplices.copy()
    a, b, c = P[F[:, 0]], P[F[:, 1]], P[F[:, 2]]
    inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), hull.equations[:, :3]) < 0
    F[inward] = F[inward][:, ::-1]
    keep = np.unique(F)
    remap = np.full(len(P), -1, dtype=np.int64)
    remap[keep] = np.arange(len(keep))
    return P[keep], remap[F]


def read_vertices(path):
    """All vertices of the mesh file ``path`` (n, 3), read by coal's loader (assimp)."""
    import coal
    try:
        bvh = coal.MeshLoader(coal.BV_AABB).load(str(path), np.ones(3))
    except Exception as exc:  # coal reports every failure as a ValueError with a long C++ trace
        text = str(exc)
        msg = text.split("message:", 1)[-1].strip().replace("\n", " ")
        raise ModelError(f"mesh file '{path}': cannot read it ({msg[:200]})") from None
    V = np.array(bvh.vertices(), dtype=float).reshape(-1, 3)
    if len(V) == 0:
        raise ModelError(f"mesh file '{path}': no vertices")
    return V


@functools.lru_cache(maxsize=1024)
def _cached_hull(path, mtime_ns, size):
    V, F = convex_hull(read_vertices(path), where=f"mesh file '{path}'")
    V.flags.writeable = F.flags.writeable = False
    return V, F


def file_hull(path):
    """``(absolute path, (hull vertices, hull faces))`` of a mesh file, unscaled, cached.

    Raises FileNotFoundError (no such file) or ModelError (not a readable mesh).
    """
    p = pathlib.Path(os.fspath(path)).expanduser().resolve()
    if not p.is_file():
        raise FileNotFoundError(f"mesh file '{path}' not found")
    st = p.stat()
    return str(p), _cached_hull(str(p), st.st_mtime_ns, st.st_size)
