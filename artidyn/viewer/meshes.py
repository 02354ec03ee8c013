"""Triangle meshes for the viewer: read a mesh file (STL, OBJ, DAE ...), and simplify it.

STL (binary or ASCII) and OBJ files are read here with numpy (fast); other formats (COLLADA
``.dae`` ...) by coal's mesh loader (assimp, already used for the collision meshes), which
applies the COLLADA node transforms and units. All triangles are kept (not only the convex
hull, as for collisions). Large meshes are simplified by vertex clustering (Rossignac and
Borrel, "Multi-resolution 3D approximations for rendering complex scenes", 1993): the vertices
are snapped to a regular grid, each cell's vertices merged into their mean, and the triangles
that collapse dropped; the grid is coarsened until the triangle budget is met.
"""
import functools
import os
import pathlib
import re

import numpy as np

from ..errors import ModelError


def grid_keys(P, cell):
    """One int64 per point: its cell of a grid of spacing ``cell`` (at most 2**21 cells per axis)."""
    k = np.floor((P - P.min(axis=0)) / cell).astype(np.int64)
    k = np.minimum(k, 2**21 - 1)
    return (k[:, 0] << 42) | (k[:, 1] << 21) | k[:, 2]


def _indexed(corners):
    """(vertices, triangles) from the (m, 3, 3) corners of m triangles (coincident corners merged)."""
    P = corners.reshape(-1, 3)
    extent = float(np.max(P.max(axis=0) - P.min(axis=0))) if len(P) else 0.0
    if extent <= 0:
        return P, np.arange(len(P)).reshape(-1, 3)
    _, first, inv = np.unique(grid_keys(P, extent / (2**21 - 2)), return_index=True, return_inverse=True)
    return P[first], inv.reshape(-1, 3)


def read_stl(path):
    """Triangles of an STL file, binary or ASCII: ``(vertices (n, 3), triangles (m, 3))``."""
    raw = pathlib.Path(path).read_bytes()
    if len(raw) >= 84:
        m = int(np.frombuffer(raw, "<u4", 1, 80)[0])
        if len(raw) == 84 + 50 * m:
            rec = np.frombuffer(raw, np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]), m, 84)
            return _indexed(rec["v"].astype(float))
    text = raw.decode("ascii", errors="replace")
    nums = re.findall(r"vertex\s+(\S+)\s+(\S+)\s+(\S+)", text)
    try:
        P = np.array(nums, dtype=float).reshape(-1, 3)
    except ValueError:
        raise ModelError(f"mesh file '{path}': not a valid STL file (bad vertex numbers)") from None
    if len(P) == 0 or len(P) % 3:
        raise ModelError(f"mesh file '{path}': not a valid STL file ({len(P)} vertices)")
    return _indexed(P.reshape(-1, 3, 3))


def read_obj(path):
    """Triangles of a Wavefront OBJ file (``v`` and ``f`` lines; polygons split into fans)."""
    V, F = [], []
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith("v "):
                V.append(line.split()[1:4])
            elif line.startswith("f "):
                idx = [int(tok.split("/")[0]) for tok in line.split()[1:]]
                idx = [k - 1 if k > 0 else len(V) + k for k in idx]
                F += [(idx[0], idx[j], idx[j + 1]) for j in range(1, len(idx) - 1)]
    try:
        V, F = np.array(V, dtype=float).reshape(-1, 3), np.array(F, dtype=np.int64).reshape(-1, 3)
    except ValueError:
        raise ModelError(f"mesh file '{path}': not a valid OBJ file (bad vertex or face line)") from None
    if F.size and (F.min() < 0 or F.max() >= len(V)):
        raise ModelError(f"mesh file '{path}': face indices out of range")
    return V, F


@functools.lru_cache(maxsize=256)
def _read(path, mtime_ns, size):
    suffix = pathlib.Path(path).suffix.lower()
    parts = None
    if suffix == ".stl":
        V, F = read_stl(path)
    elif suffix == ".obj":
        V, F = read_obj(path)
    elif suffix == ".dae":
        from .dae import UnsupportedDae, read_dae
        try:
            V, F, parts = read_dae(pathlib.Path(path).read_bytes())
        except UnsupportedDae:
            V, F = _read_assimp(path)
        except ModelError as exc:
            raise ModelError(f"mesh file '{path}': {exc}") from None
    else:
        V, F = _read_assimp(path)
    if len(V) == 0 or len(F) == 0:
        raise ModelError(f"mesh file '{path}': no triangles")
    V, F = np.asarray(V, dtype=float), np.asarray(F, dtype=np.int64)
    V.flags.writeable = F.flags.writeable = False
    return V, F, tuple(parts or [(0, len(F), None)])


def _read_assimp(path):
    """Triangles of any format assimp reads, through coal's loader (no colours)."""
    import coal
    try:
        bvh = coal.MeshLoader(coal.BV_AABB).load(path, np.ones(3))
    except Exception as exc:  # coal reports every failure as a ValueError with a C++ trace
        msg = str(exc).split("message:", 1)[-1].strip().replace("\n", " ")
        raise ModelError(f"mesh file '{path}': cannot read it ({msg[:200]})") from None
    V = np.array(bvh.vertices(), dtype=float).reshape(-1, 3)
    F = np.array([[t[0], t[1], t[2]] for t in (bvh.tri_indices(k) for k in range(bvh.num_tris))],
                 dtype=np.int64).reshape(-1, 3)
    return V, F


def read_mesh(path):
    """``(vertices (n, 3), triangles (m, 3), parts)`` of a mesh file, cached per (path, mtime,
    size); ``parts``: ``[(first triangle, count, rgba or None)]`` (the colours of a COLLADA file's
    materials; one part without colour for the other formats).

    Raises FileNotFoundError (no such file) or ModelError (not a readable mesh).
    """
    p = pathlib.Path(os.fspath(path)).expanduser().resolve()
    if not p.is_file():
        raise FileNotFoundError(f"mesh file '{path}' not found")
    st = p.stat()
    return _read(str(p), st.st_mtime_ns, st.st_size)


def cluster(V, F, cell):
    """Vertex clustering on a grid of spacing ``cell``: ``(V', F', kept)`` without collapsed or
    repeated triangles (each cell's vertices replaced by their mean); ``kept``: the indices of
    the triangles kept, in order."""
    _, inv = np.unique(grid_keys(V, cell), return_inverse=True)
    inv = inv.reshape(-1)
    n = inv.max() + 1
    counts = np.bincount(inv, minlength=n)[:, None]
    W = np.stack([np.bincount(inv, weights=V[:, k], minlength=n) for k in range(3)], axis=1) / counts
    G = inv[F]
    kept = np.nonzero((G[:, 0] != G[:, 1]) & (G[:, 1] != G[:, 2]) & (G[:, 0] != G[:, 2]))[0]
    if len(kept):
        S = np.sort(G[kept], axis=1)
        if n < 2**21:
            _, first = np.unique((S[:, 0] * n + S[:, 1]) * n + S[:, 2], return_index=True)
        else:
            _, first = np.unique(S, axis=0, return_index=True)
        kept = kept[np.sort(first)]
    G = G[kept]
    used = np.unique(G)
    remap = np.full(n, -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    return W[used], remap[G], kept


def simplify(V, F, max_triangles):
    """``(V', F', kept)``: the mesh with at most ``max_triangles`` triangles (itself when already
    small enough); ``kept`` are the indices of the original triangles kept, in order."""
    V, F = np.asarray(V, dtype=float), np.asarray(F, dtype=np.int64)
    if len(F) <= max_triangles:
        return V, F, np.arange(len(F))
    extent = float(np.max(V.max(axis=0) - V.min(axis=0)))
    if extent <= 0:
        return V, F[:max_triangles], np.arange(max_triangles)
    # the number of surface cells grows as (extent / cell)^2: start near the budget, then coarsen
    cell = extent / max(4.0, np.sqrt(max_triangles / 2.0))
    for _ in range(40):
        W, G, kept = cluster(V, F, cell)
        if len(G) <= max_triangles:
            return W, G, kept
        cell *= 1.25
    return W, G[:max_triangles], kept[:max_triangles]


def regroup(parts, kept):
    """The parts ``[(first, count, rgba)]`` of a mesh after keeping the triangles ``kept`` (in order)."""
    ids = np.repeat(np.arange(len(parts)), [c for _, c, _ in parts])[kept]
    counts = np.bincount(ids, minlength=len(parts))
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    return [(int(s), int(c), p[2]) for s, c, p in zip(starts, counts, parts) if c > 0]


def scaled(V, F, scale):
    """Vertices scaled by ``scale`` (3,); a mirroring scale reverses the triangles' orientation."""
    s = np.asarray(scale, dtype=float)
    V = V * s
    return (V, F[:, ::-1]) if np.prod(s) < 0 else (V, F)
