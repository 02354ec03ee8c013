"""COLLADA (``.dae``) meshes for the viewer: triangles and the diffuse colour of each part.

Reads what robot description files use (COLLADA 1.4/1.5 specification, Khronos Group): the
``<triangles>``, ``<polylist>`` and ``<polygons>`` of each ``<geometry>`` (polygons split into
fans), placed by the ``<node>`` tree of the visual scene (``<matrix>``, ``<translate>``,
``<rotate>``, ``<scale>``, ``<instance_geometry>``, ``<instance_node>``), scaled by
``<unit meter>``; ``<up_axis>`` is ignored, as ROS tools and coal/assimp do for robot meshes.
Each part's colour is the ``<diffuse><color>`` of the effect its material binds to (None for a
texture). Anything else (``<tristrips>``, missing sources ...) raises :class:`UnsupportedDae`;
the caller then falls back to coal's loader (triangles without colours).
"""
import numpy as np

from ..errors import ModelError


class UnsupportedDae(ModelError):
    """A COLLADA feature this reader does not handle."""


def _tag(el):
    return el.tag.rsplit("}", 1)[-1]


def _kids(el, tag):
    return [c for c in el if _tag(c) == tag]


def _kid(el, tag):
    found = _kids(el, tag)
    return found[0] if found else None


def _numbers(el, dtype=float):
    text = (el.text or "").strip()
    if not text:
        return np.zeros(0, dtype=dtype)
    try:
        return np.fromstring(text, dtype=dtype, sep=" ")  # fast text parsing (whitespace separated)
    except (ValueError, DeprecationWarning):
        return np.array(text.split(), dtype=dtype)


def _ref(url):
    return (url or "").lstrip("#")


def _index(root):
    """{id: element} of every element with an id."""
    return {el.get("id"): el for el in root.iter() if el.get("id")}


def _source_array(src):
    arr = _kid(src, "float_array")
    acc = _kid(_kid(src, "technique_common"), "accessor") if _kid(src, "technique_common") is not None else None
    if arr is None:
        raise UnsupportedDae("a <source> without <float_array>")
    data = _numbers(arr)
    stride = int(acc.get("stride", 1)) if acc is not None else 3
    offset = int(acc.get("offset", 0)) if acc is not None else 0
    n = (len(data) - offset) // stride
    return data[offset:offset + n * stride].reshape(n, stride)[:, :3]


def _primitive_triangles(prim, positions_of):
    """(position indices (m, 3), material symbol) of one primitive element."""
    inputs = _kids(prim, "input")
    if not inputs:
        raise UnsupportedDae(f"<{_tag(prim)}> without <input>")
    stride = max(int(i.get("offset", 0)) for i in inputs) + 1
    vin = [i for i in inputs if i.get("semantic") == "VERTEX"]
    if not vin:
        raise UnsupportedDae(f"<{_tag(prim)}> without a VERTEX input")
    off, source = int(vin[0].get("offset", 0)), _ref(vin[0].get("source"))
    kind = _tag(prim)
    if kind == "triangles":
        p = _kid(prim, "p")
        idx = _numbers(p, np.int64)[off::stride] if p is not None else np.zeros(0, np.int64)
        tris = idx[: len(idx) // 3 * 3].reshape(-1, 3)
    else:
        if kind == "polylist":
            p = _kid(prim, "p")
            counts = _numbers(_kid(prim, "vcount"), np.int64) if _kid(prim, "vcount") is not None else np.zeros(0, int)
            flat = _numbers(p, np.int64)[off::stride] if p is not None else np.zeros(0, np.int64)
            starts = np.r_[0, np.cumsum(counts)[:-1]]
            polys = [flat[s:s + c] for s, c in zip(starts, counts)]
        else:  # polygons: one <p> per polygon
            polys = [_numbers(p, np.int64)[off::stride] for p in _kids(prim, "p")]
        fans = [np.stack([np.full(len(q) - 2, q[0]), q[1:-1], q[2:]], -1) for q in polys if len(q) >= 3]
        tris = np.concatenate(fans) if fans else np.zeros((0, 3), np.int64)
    return positions_of(source), tris, prim.get("material")


def _geometry(geom):
    """[(positions (n, 3), triangles (m, 3), material symbol)] of a <geometry>."""
    mesh = _kid(geom, "mesh")
    if mesh is None:
        raise UnsupportedDae(f"geometry '{geom.get('id')}' is not a <mesh>")
    sources = {s.get("id"): s for s in _kids(mesh, "source")}
    verts = {v.get("id"): v for v in _kids(mesh, "vertices")}

    def positions_of(ref):
        if ref in verts:
            pos = [i for i in _kids(verts[ref], "input") if i.get("semantic") == "POSITION"]
            ref = _ref(pos[0].get("source")) if pos else None
        if ref not in sources:
            raise UnsupportedDae(f"geometry '{geom.get('id')}': positions source '{ref}' not found")
        return _source_array(sources[ref])

    parts = []
    for prim in mesh:
        kind = _tag(prim)
        if kind in ("triangles", "polylist", "polygons"):
            parts.append(_primitive_triangles(prim, positions_of))
        elif kind in ("tristrips", "trifans"):
            raise UnsupportedDae(f"<{kind}> primitives")
    return parts


def _node_matrix(node):
    """The node's own transform: its <matrix> / <translate> / <rotate> / <scale> in document order."""
    M = np.eye(4)
    for c in node:
        t = _tag(c)
        if t == "matrix":
            M = M @ _numbers(c).reshape(4, 4)
        elif t == "translate":
            T = np.eye(4)
            T[:3, 3] = _numbers(c)
            M = M @ T
        elif t == "rotate":
            x, y, z, deg = _numbers(c)
            a = np.array([x, y, z]) / (np.linalg.norm([x, y, z]) or 1.0)
            th = np.radians(deg)
            K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
            T = np.eye(4)
            T[:3, :3] = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K   # Rodrigues
            M = M @ T
        elif t == "scale":
            M = M @ np.diag(np.r_[_numbers(c), 1.0])
    return M


def _colour(ids, material_id):
    """Diffuse rgba of a material (through its effect), or None (texture, missing)."""
    mat = ids.get(material_id)
    inst = _kid(mat, "instance_effect") if mat is not None else None
    effect = ids.get(_ref(inst.get("url"))) if inst is not None else None
    if effect is None:
        return None
    for el in effect.iter():
        if _tag(el) == "diffuse":
            col = _kid(el, "color")
            if col is not None:
                c = _numbers(col)
                if len(c) >= 3:
                    return np.clip(np.r_[c[:3], c[3] if len(c) > 3 else 1.0], 0.0, 1.0)
            return None
    return None


def read_dae(data):
    """``(vertices (n, 3), triangles (m, 3), parts)`` of COLLADA text ``data`` (bytes); ``parts``:
    ``[(first triangle, count, rgba or None)]`` in triangle order."""
    from defusedxml.ElementTree import fromstring
    try:
        root = fromstring(data, forbid_dtd=True)
    except Exception as exc:  # defusedxml / expat errors
        raise ModelError(f"not a readable COLLADA file ({type(exc).__name__}: {exc})") from None
    ids = _index(root)
    unit = next((float(u.get("meter", 1.0)) for u in root.iter() if _tag(u) == "unit"), 1.0)
    scenes = [el for el in root.iter() if _tag(el) == "visual_scene"]
    inst_scene = next((el for el in root.iter() if _tag(el) == "instance_visual_scene"), None)
    scene = ids.get(_ref(inst_scene.get("url"))) if inst_scene is not None else (scenes[0] if scenes else None)
    placed = []   # (geometry element, 4x4, {symbol: material id})

    def walk(node, M, depth):
        if depth > 64:
            raise UnsupportedDae("node tree deeper than 64 levels (a cycle of <instance_node>?)")
        M = M @ _node_matrix(node)
        for c in node:
            t = _tag(c)
            if t == "instance_geometry":
                binds = {im.get("symbol"): _ref(im.get("target")) for im in c.iter() if _tag(im) == "instance_material"}
                geom = ids.get(_ref(c.get("url")))
                if geom is None:
                    raise UnsupportedDae(f"geometry '{c.get('url')}' not found")
                placed.append((geom, M, binds))
            elif t == "instance_node":
                target = ids.get(_ref(c.get("url")))
                if target is None:
                    raise UnsupportedDae(f"node '{c.get('url')}' not found")
                walk(target, M, depth + 1)
            elif t == "node":
                walk(c, M, depth + 1)

    if scene is not None:
        for node in _kids(scene, "node"):
            walk(node, np.eye(4), 0)
    else:
        placed = [(g, np.eye(4), {}) for g in root.iter() if _tag(g) == "geometry"]
    Vs, Fs, parts, n, m = [], [], [], 0, 0
    for geom, M, binds in placed:
        for P, tris, symbol in _geometry(geom):
            if len(tris) == 0:
                continue
            if tris.min() < 0 or tris.max() >= len(P):
                raise ModelError(f"geometry '{geom.get('id')}': triangle indices out of range")
            W = P @ M[:3, :3].T + M[:3, 3]
            if np.linalg.det(M[:3, :3]) < 0:
                tris = tris[:, ::-1]
            Vs.append(W * unit)
            Fs.append(tris + n)
            parts.append((m, len(tris), _colour(ids, binds.get(symbol, symbol))))
            n, m = n + len(P), m + len(tris)
    if not Fs:
        raise ModelError("no triangles")
    V, F = np.concatenate(Vs), np.concatenate(Fs)
    used = np.unique(F)              # drop the positions no triangle uses
    remap = np.zeros(len(V), dtype=np.int64)
    remap[used] = np.arange(len(used))
    return V[used], remap[F], parts
