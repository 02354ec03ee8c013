"""A convex mesh's hull as planar polygons, the faces the compiled narrow phase clips
(:mod:`artidyn.kernels.convex`): the hull's triangles that share an edge and lie in one plane are
merged into one polygon, its vertices in counter-clockwise order seen from outside.

Done once per mesh when a model's shapes are packed for the kernels, with numpy over all the
triangles at once (a robot's meshes hold tens of thousands: talos_full_v2's 47 hulls have 22 854
triangles, almost all of them faces of their own), so that a first contact run does not wait on a
Python loop over them.
"""
import functools

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

COPLANAR = 1e-6        # two hull triangles whose normals differ by less (rad) and ... are one polygon


def _dot(a, b):
    """The dot products of the rows of a and b (..., 3)."""
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1] + a[..., 2] * b[..., 2]


def _groups(V, F, N, size):
    """The label of each triangle's polygon: a triangle joins the first triangle that has one of
    its edges when their normals differ by less than COPLANAR and that triangle's far vertex lies
    within COPLANAR times the mesh's size of its plane; polygons are the connected sets."""
    nf = len(F)
    E = np.sort(np.stack([F, np.roll(F, -1, axis=1)], axis=2), axis=2).reshape(-1, 2)   # edge e: f[e], f[e+1]
    owner = np.repeat(np.arange(nf), 3)
    order = np.lexsort((owner, E[:, 1], E[:, 0]))
    E, owner = E[order], owner[order]
    new = np.ones(len(E), bool)
    new[1:] = (E[1:] != E[:-1]).any(axis=1)
    first = np.maximum.accumulate(np.where(new, np.arange(len(E)), 0))       # the edge's first triangle
    t, u, key = owner[~new], owner[first[~new]], E[~new]
    t, u, key = t[t != u], u[t != u], key[t != u]
    off = (F[u] != key[:, :1]) & (F[u] != key[:, 1:])
    far = F[u][np.arange(len(u)), np.argmax(off, axis=1)]
    join = (np.linalg.norm(N[t] - N[u], axis=1) < COPLANAR) & \
        (np.abs(_dot(V[far] - V[F[t, 0]], N[t])) <= COPLANAR * size)
    graph = coo_matrix((np.ones(int(join.sum())), (t[join], u[join])), shape=(nf, nf))
    return connected_components(graph, directed=False)[1]


def _triangles(V, F, N, area, size, tri):
    """The polygons of the triangles ``tri`` that are faces of their own, all at once: (kept
    (bool), normals, offsets, polygons (k, 3)); a triangle of no area makes no face."""
    n = N[tri] * area[tri, None]
    norm = np.linalg.norm(n, axis=1)
    kept = norm > 1e-12 * size * size
    n = n[kept] / norm[kept, None]
    idx = np.sort(F[tri[kept]], axis=1)
    P = V[idx]
    D = P - P.mean(axis=1)[:, None]
    e1 = D[np.arange(len(D)), np.argmax(np.linalg.norm(D, axis=2), axis=1)]
    e1 = e1 - _dot(e1, n)[:, None] * n
    e1 = e1 / np.maximum(np.linalg.norm(e1, axis=1), 1e-300)[:, None]
    e2 = np.cross(n, e1)
    angle = np.arctan2(_dot(D, e2[:, None]), _dot(D, e1[:, None]))
    order = np.argsort(angle, axis=1, kind="stable")
    return kept, n, _dot(P, n[:, None]).max(axis=1), np.take_along_axis(idx, order, axis=1)


def _polygon(V, F, N, area, size, ts):
    """The polygon of the coplanar triangles ts: (normal, offset, vertices), None when they have
    no area (a hull's sliver: no plane, no face)."""
    n = (N[ts] * area[ts, None]).sum(axis=0)
    norm = np.linalg.norm(n)
    if not norm > 1e-12 * size * size:
        return None
    n /= norm
    idx = np.unique(F[ts])
    P = V[idx]
    g = P.mean(axis=0)
    e1 = P[np.argmax(np.linalg.norm(P - g, axis=1))] - g
    e1 -= (e1 @ n) * n
    e1 /= max(np.linalg.norm(e1), 1e-300)
    e2 = np.cross(n, e1)
    x, y = (P - g) @ e1, (P - g) @ e2
    order = np.argsort(np.arctan2(y, x), kind="stable")
    order = order[_on_boundary(x[order], y[order], 1e-9 * size)]
    return n, float((P @ n).max()), idx[order]


def _on_boundary(x, y, tol):
    """Which of the points (x, y) lie on the boundary of their convex hull (within tol): the
    others, a vertex of the hull raised above a face less than COPLANAR, project inside the
    merged polygon and would make it fold back (827 of the 655 117 faces of example-robot-data's
    hulls held such vertices). Andrew's monotone chain, then each point's distance to the
    nearest side."""
    pts = sorted(zip(x.tolist(), y.tolist()))
    if len(pts) < 3:
        return np.ones(len(x), bool)

    def chain(seq):
        h = []
        for p in seq:
            while len(h) >= 2 and (h[-1][0] - h[-2][0]) * (p[1] - h[-2][1]) - \
                    (h[-1][1] - h[-2][1]) * (p[0] - h[-2][0]) <= 0.0:
                h.pop()
            h.append(p)
        return h[:-1]

    H = np.array(chain(pts) + chain(pts[::-1]))
    if len(H) < 3:
        return np.ones(len(x), bool)
    A, D = H, np.roll(H, -1, axis=0) - H                          # sides A + s D, counter-clockwise
    inside = (D[:, 0] * (y[:, None] - A[:, 1]) - D[:, 1] * (x[:, None] - A[:, 0])) / np.hypot(D[:, 0], D[:, 1])
    return inside.min(axis=1) <= tol


@functools.lru_cache(maxsize=256)
def hull_polygons(mesh):
    """The faces of a :class:`Mesh`'s hull as planar convex polygons: (normals (f, 3), offsets (f,),
    polygons: f arrays of vertex indices, counter-clockwise seen from outside), in the order of
    their first triangles. Hull triangles that share an edge and lie in one plane (normals within
    COPLANAR, the far vertex within COPLANAR times the mesh's size of the plane) are merged; a
    group of triangles of no area (a sliver of the hull) has no plane and makes no face."""
    V, F = np.asarray(mesh.vertices, dtype=float), np.asarray(mesh.faces, dtype=np.int64)
    N = np.cross(V[F[:, 1]] - V[F[:, 0]], V[F[:, 2]] - V[F[:, 0]])
    area = np.linalg.norm(N, axis=1)
    N = N / np.maximum(area, 1e-300)[:, None]
    size = float(np.ptp(V, axis=0).max())
    label = _groups(V, F, N, size)
    ng = int(label.max()) + 1 if len(F) else 0
    start = np.full(ng, len(F))
    np.minimum.at(start, label, np.arange(len(F)))          # each polygon's first triangle
    count = np.bincount(label, minlength=ng)
    alone = (count[label] == 1) & (F[:, 0] != F[:, 1]) & (F[:, 1] != F[:, 2]) & (F[:, 0] != F[:, 2])
    out = {}
    tri = np.flatnonzero(alone)
    kept, n, d, P = _triangles(V, F, N, area, size, tri)
    for t, k in zip(tri[kept], range(len(P))):
        out[t] = (n[k], float(d[k]), P[k])
    members = np.argsort(label, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(count)])
    for g in np.flatnonzero(~alone[start] if ng else []):
        face = _polygon(V, F, N, area, size, members[bounds[g]:bounds[g + 1]])
        if face is not None:
            out[start[g]] = face
    faces = [out[t] for t in sorted(out)]
    return np.array([f[0] for f in faces]), np.array([f[1] for f in faces]), [f[2] for f in faces]
