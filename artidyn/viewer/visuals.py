"""URDF ``<visual>`` elements -> shape records for the viewer (the model keeps no visuals).

The URDF reader keeps only the mesh file names of the visuals (``model.meshes``); the viewer reads
the file again (``model.source``) through the same safe XML parser and takes, per link, each
``<visual>``: ``<origin xyz rpy>``, the shape (``box size``, ``sphere radius``, ``cylinder radius
length``, ``capsule radius length``, ``mesh filename scale``) and the colour of its
``<material>`` (an inline ``<color rgba>``, or a material of that name declared at the top of
the file). Mesh names are resolved like the collision meshes (:mod:`artidyn.io.mesh_paths`).
"""
import pathlib

import numpy as np

from ..io.safexml import parse_xml, read_source, xml_number
from ..spatial.rotations import rpy_to_matrix

SHAPES = ("box", "sphere", "cylinder", "capsule", "mesh")


def _floats(el, attr, n, default):
    text = el.attrib.get(attr) if el is not None else None
    if text is None:
        return np.array(default, dtype=float)
    try:
        vals = [xml_number(t) for t in text.split()]
    except ValueError:
        return None
    return np.array(vals) if len(vals) == n and np.all(np.isfinite(vals)) else None


def placement(xyz, rpy):
    """4x4 transform from a URDF ``<origin xyz rpy>``."""
    T = np.eye(4)
    T[:3, :3] = rpy_to_matrix(np.asarray(rpy, dtype=float))
    T[:3, 3] = xyz
    return T


def _color(material, named):
    """rgba of a ``<material>`` element (inline colour first, then the named one), or None."""
    if material is None:
        return None
    for c in material.children:
        if c.tag == "color":
            rgba = _floats(c, "rgba", 4, None)
            if rgba is not None:
                return np.clip(rgba, 0.0, 1.0)
    return named.get(material.attrib.get("name", ""))


def read_visuals(source):
    """The visuals of the URDF file ``source``: ``(records, notes)``.

    Each record is a dict ``link, placement (4x4 in the link frame), kind (one of SHAPES),
    size | radius | length, filename, scale (3,), rgba (4,) or None``; ``notes`` lists the
    visuals skipped (unknown shape, bad numbers) as strings.
    """
    data, name = read_source(source)
    root = parse_xml(data, name)
    named = {}
    for el in root.children:  # top-level materials: <material name><color rgba/></material>
        if el.tag == "material":
            rgba = _color(el, {})
            if rgba is not None:
                named[el.attrib.get("name", "")] = rgba
    records, notes = [], []
    for link in root.children:
        if link.tag != "link":
            continue
        lname = link.attrib.get("name", "")
        for vis in link.children:
            if vis.tag != "visual":
                continue
            rec = _visual(vis, lname, named, notes)
            if rec is not None:
                records.append(rec)
    return records, notes


def _visual(vis, lname, named, notes):
    origin = geometry = material = None
    for c in vis.children:
        if c.tag == "origin":
            origin = c
        elif c.tag == "geometry":
            geometry = c
        elif c.tag == "material":
            material = c
    xyz, rpy = _floats(origin, "xyz", 3, (0, 0, 0)), _floats(origin, "rpy", 3, (0, 0, 0))
    shapes = [g for g in (geometry.children if geometry is not None else []) if g.tag in SHAPES]
    where = f"link '{lname}', <visual> line {vis.line}"
    if xyz is None or rpy is None or not shapes:
        notes.append(f"{where}: no usable origin or shape, skipped")
        return None
    g = shapes[0]
    rec = {"link": lname, "placement": placement(xyz, rpy), "kind": g.tag, "rgba": _color(material, named)}
    if g.tag == "box":
        rec["size"] = _floats(g, "size", 3, None)
        ok = rec["size"] is not None and np.all(rec["size"] > 0)
    elif g.tag == "sphere":
        r = _floats(g, "radius", 1, None)
        rec["radius"] = None if r is None else float(r[0])
        ok = r is not None and r[0] > 0
    elif g.tag in ("cylinder", "capsule"):
        r, L = _floats(g, "radius", 1, None), _floats(g, "length", 1, None)
        ok = r is not None and L is not None and r[0] > 0 and L[0] >= 0
        if ok:
            rec["radius"], rec["length"] = float(r[0]), float(L[0])
    else:
        rec["filename"] = g.attrib.get("filename", "").strip()
        rec["scale"] = _floats(g, "scale", 3, (1, 1, 1))
        ok = bool(rec["filename"]) and rec["scale"] is not None and np.all(rec["scale"] != 0)
    if not ok:
        notes.append(f"{where}: <{g.tag}> with missing or invalid numbers, skipped")
        return None
    return rec


def model_visuals(model):
    """``(records, notes, base_dir)`` of the model's URDF visuals; no records when the model was
    not read from a URDF file (a built-in, a DH table, URDF text)."""
    src = getattr(model, "source", None)
    if not src or src == "<string>":
        return [], [], None
    path = pathlib.Path(str(src))
    if path.suffix.lower() not in (".urdf", ".xml") or not path.is_file():
        return [], [], None
    records, notes = read_visuals(path)
    return records, notes, path.parent
