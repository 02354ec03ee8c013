"""MJCF (MuJoCo's XML model format) reader: bodies, joints, inertials, geoms, sites, equality loops.

What is read, and how it maps onto an artidyn :class:`~artidyn.Model`:

- ``<body>`` (pos and one orientation: quat (w x y z), axisangle, euler, xyaxes, zaxis; and the
  body-less ``<frame>``): a body. Without a joint it is lumped into its parent (a fixed link).
- ``<joint type="hinge|slide|ball|free">`` and ``<freejoint>``: revolute, prismatic, spherical,
  free. MuJoCo rotates a body about its joint's ``pos``; artidyn rotates a body about its own
  origin, so a joint with ``pos != 0`` moves a massless body at the anchor which carries the
  MJCF body as a fixed link, and the MJCF body keeps its name as a frame. Several joints in one
  body become a chain of such anchor bodies (``"<body>/<joint>"``), in file order, as MuJoCo
  composes them. ``range`` (when limited), ``armature``, ``damping``, ``frictionloss``,
  ``stiffness`` / ``springref`` are read. A free joint's pos is ignored, as by MuJoCo: its q is
  the body's placement in the world.
- ``<inertial>`` (mass, pos, orientation, diaginertia or fullinertia), or the inertia of the
  primitive geoms (sphere, capsule, cylinder, box, ellipsoid: density 1000 or ``mass``) when
  ``<compiler inertiafromgeom>`` says so (``auto``: bodies without ``<inertial>``); a mesh geom
  then raises a ParseError (give the body an ``<inertial>``).
- ``<geom>`` sphere, box, capsule, cylinder (size or ``fromto``) and plane (world only):
  collision shapes (:mod:`artidyn.geometry.shapes`); ``contype=conaffinity=0`` geoms are
  visual only. Ellipsoids, meshes, height fields: a load-report note.
- ``<mesh>`` assets (inline ``vertex`` or a ``file`` under ``meshdir``): convex-hull collision
  shapes, and the hull's solid inertia when inertia comes from geoms (exact for convex meshes).
- ``<site>``: an operational frame. ``<equality>`` ``connect`` and ``weld`` (bodies with
  ``anchor``, default relative pose; or ``site1``/``site2``): loop constraints
  (``model.constraint_specs``, see :func:`artidyn.constraints.from_model`). Tendons, actuators,
  sensors, keyframes: a load-report note each.
- ``<compiler angle="degree|radian" eulerseq=... autolimits=... inertiafromgeom=...>`` (MuJoCo's
  ``eulerseq``: lower case = rotating axes, upper case = fixed axes, the opposite of scipy's and
  :func:`artidyn.spatial.euler_to_matrix`'s letters),
  ``<option gravity>``, ``<default>`` classes (nested, ``class`` and ``childclass``).

MuJoCo's states differ from artidyn's: free joint qpos ``[p, w x y z]`` and qvel ``[v_world,
omega_body]``, ball qpos ``(w x y z)``, hinge and slide measured from ``ref``. Convert them with
:class:`artidyn.interop.MujocoConverter`. The file is read with artidyn's safe XML reader;
errors are ParseError naming the file, line, element and attribute.
"""
from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING

import numpy as np

from ..builder import ModelBuilder
from ..errors import ModelError, ParseError
from ..geometry.shapes import Box, Capsule, Cylinder, HalfSpace, Mesh, Sphere
from ..model import ConstraintSpec
from ..spatial.motion import homogeneous, inv_homogeneous
from ..spatial.rotations import quat_to_matrix
from .safexml import parse_xml, read_source, xml_number

if TYPE_CHECKING:
    from os import PathLike

    from .._typing import Model

JOINT_KINDS = {"hinge": "revolute", "slide": "prismatic", "ball": "spherical", "free": "free"}
DEFAULTABLE = ("joint", "geom", "site", "inertial")


class _Reader:
    def __init__(self, source):
        self.source = source
        self.angle_scale = np.pi / 180.0        # MJCF's default angle unit is the degree
        self.eulerseq = "xyz"
        self.autolimits = True
        self.inertiafromgeom = "auto"
        self.defaults = {"main": {t: {} for t in DEFAULTABLE}}
        self.notes = []
        self.mesh_assets = {}       # name -> (element, attributes)
        self.mesh_cache = {}        # name -> Mesh (its convex hull, scale applied)
        self.meshdir = None
        self.site_frames = {}       # site name -> frame name

    def error(self, el, msg, attr=None):
        at = f" attribute '{attr}'" if attr else ""
        name = f" '{el.attrib['name']}'" if "name" in el.attrib else ""
        return ParseError(f"{self.source}:{el.line}: <{el.tag}>{name}{at}: {msg}")

    # --- attributes -----------------------------------------------------------------------
    def numbers(self, el, attrs, key, n=None, default=None):
        text = attrs.get(key)
        if text is None:
            return None if default is None else np.array(default, dtype=float)
        try:
            vals = np.array([xml_number(t) for t in text.split()], dtype=float)
        except ValueError:
            raise self.error(el, f"{text!r} is not a list of numbers", key) from None
        if n is not None and vals.size not in ((n,) if isinstance(n, int) else n):
            raise self.error(el, f"needs {n} numbers, got {vals.size} ({text!r})", key)
        return vals

    def flag(self, el, attrs, key, default):
        text = attrs.get(key)
        if text is None:
            return default
        if text not in ("true", "false", "auto"):
            raise self.error(el, f"expected true, false or auto, got {text!r}", key)
        return text

    def resolved(self, el, cls):
        """Attributes of ``el`` over the defaults of its class (``class``, else the inherited ``cls``)."""
        name = el.attrib.get("class", cls)
        if name not in self.defaults:
            raise self.error(el, f"unknown default class {name!r} (known: {', '.join(self.defaults)})", "class")
        out = dict(self.defaults[name].get(el.tag if el.tag != "freejoint" else "joint", {}))
        out.update(el.attrib)
        return out

    def orientation(self, el, attrs):
        """3x3 rotation of an element's quat / axisangle / euler / xyaxes / zaxis (identity if none)."""
        given = [k for k in ("quat", "axisangle", "euler", "xyaxes", "zaxis") if k in attrs]
        if len(given) > 1:
            raise self.error(el, f"gives several orientations ({', '.join(given)}); MuJoCo accepts one", given[1])
        if not given:
            return np.eye(3)
        key = given[0]
        if key == "quat":
            w = self.numbers(el, attrs, key, 4)
            norm = np.linalg.norm(w)
            if norm < 1e-12:
                raise self.error(el, "zero quaternion", key)
            return quat_to_matrix(np.r_[w[1:], w[0]] / norm)
        if key == "axisangle":
            a = self.numbers(el, attrs, key, 4)
            return _axis_rotation(self._unit(el, a[:3], key), a[3] * self.angle_scale)
        if key == "euler":
            e = self.numbers(el, attrs, key, 3) * self.angle_scale
            R = np.eye(3)
            for c, angle in zip(self.eulerseq, e):
                Ri = _axis_rotation(np.eye(3)["xyz".index(c.lower())], angle)
                R = R @ Ri if c.islower() else Ri @ R       # lower case: moving axes; upper: fixed axes
            return R
        if key == "xyaxes":
            v = self.numbers(el, attrs, key, 6)
            x = self._unit(el, v[:3], key)
            y = v[3:] - np.dot(v[3:], x) * x
            y = self._unit(el, y, key)
            return np.column_stack([x, y, np.cross(x, y)])
        z = self._unit(el, self.numbers(el, attrs, key, 3), key)
        return _z_to(z)

    def _unit(self, el, v, key):
        n = np.linalg.norm(v)
        if n < 1e-12:
            raise self.error(el, f"zero axis {v.tolist()}", key)
        return v / n

    def pose(self, el, attrs):
        pos = self.numbers(el, attrs, "pos", 3, default=(0.0, 0.0, 0.0))
        return homogeneous(self.orientation(el, attrs), pos)


def _axis_rotation(u, angle):
    """Rotation by ``angle`` about the unit axis ``u``."""
    from scipy.spatial.transform import Rotation
    return Rotation.from_rotvec(angle * np.asarray(u, dtype=float)).as_matrix()


def _z_to(d):
    """The minimal rotation taking e_z to the unit vector d (MuJoCo's choice for zaxis and fromto)."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(z, d)
    s, c = np.linalg.norm(axis), float(np.dot(z, d))
    if s < 1e-14:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    return _axis_rotation(axis / s, np.arctan2(s, c))


# --- defaults and compiler ------------------------------------------------------------------------
def _read_defaults(r, el, parent_class):
    name = el.attrib.get("class", "main")
    if name in r.defaults and name != "main":
        raise r.error(el, f"duplicate default class {name!r}", "class")
    base = r.defaults.get(parent_class, {t: {} for t in DEFAULTABLE})
    r.defaults[name] = {t: dict(base.get(t, {})) for t in DEFAULTABLE}
    for c in el.children:
        if c.tag == "default":
            continue
        if c.tag in DEFAULTABLE:
            r.defaults[name][c.tag].update(c.attrib)
    for c in el.children:
        if c.tag == "default":
            _read_defaults(r, c, name)


def _read_compiler(r, el):
    a = el.attrib
    if "angle" in a:
        if a["angle"] not in ("degree", "radian"):
            raise r.error(el, f"expected degree or radian, got {a['angle']!r}", "angle")
        r.angle_scale = np.pi / 180.0 if a["angle"] == "degree" else 1.0
    if "eulerseq" in a:
        seq = a["eulerseq"]
        if len(seq) != 3 or any(c not in "xyzXYZ" for c in seq):
            raise r.error(el, f"expected 3 letters among x y z X Y Z, got {seq!r}", "eulerseq")
        r.eulerseq = seq
    r.autolimits = r.flag(el, a, "autolimits", "true") == "true"
    r.inertiafromgeom = r.flag(el, a, "inertiafromgeom", "auto")
    if a.get("coordinate", "local") != "local":
        raise r.error(el, "only local coordinates are supported (MuJoCo removed 'global')", "coordinate")
    for key in ("alignfree", "balanceinertia"):
        if a.get(key) == "true":
            raise r.error(el, f"{key}='true' changes the bodies' frames or inertias; not supported", key)
    for key in ("boundmass", "boundinertia", "settotalmass"):
        if key in a and float(r.numbers(el, a, key, 1)[0]) > 0:
            raise r.error(el, f"{key} rewrites the inertias; not supported", key)


# --- geoms: shapes and inertias ------------------------------------------------------------------
def _geom_frame(r, el, attrs):
    """(4x4 placement in the body frame, size array) of a geom, honouring ``fromto``."""
    gtype = attrs.get("type", "sphere")
    size = r.numbers(el, attrs, "size", (1, 2, 3), default=(0.0, 0.0, 0.0))
    if "fromto" in attrs:
        if gtype not in ("capsule", "cylinder", "box", "ellipsoid"):
            raise r.error(el, f"fromto needs a capsule, cylinder, box or ellipsoid, not a {gtype}", "fromto")
        ft = r.numbers(el, attrs, "fromto", 6)
        d = ft[3:] - ft[:3]
        L = np.linalg.norm(d)
        if L < 1e-12:
            raise r.error(el, "the two points coincide", "fromto")
        if gtype in ("box", "ellipsoid"):       # half sizes x, y (one number: both), z from the length
            size = np.r_[size[0], size[1] if size.size > 1 else size[0], 0.0]
        else:
            size = np.r_[size[0], 0.0, 0.0]
        if gtype in ("capsule", "cylinder"):
            size[1] = L / 2
        else:
            size[2] = L / 2
        return homogeneous(_z_to(d / L), (ft[:3] + ft[3:]) / 2), size
    return r.pose(el, attrs), size


def _geom_inertia(r, el, gtype, size, attrs):
    """(mass, 3x3 inertia about the geom centre in geom axes) of a solid primitive geom."""
    s = np.r_[size, np.zeros(3)][:3]
    if gtype == "sphere":
        vol = 4 / 3 * np.pi * s[0] ** 3
    elif gtype == "box":
        vol = 8 * s[0] * s[1] * s[2]
    elif gtype == "cylinder":
        vol = np.pi * s[0] ** 2 * 2 * s[1]
    elif gtype == "capsule":
        vol = np.pi * s[0] ** 2 * 2 * s[1] + 4 / 3 * np.pi * s[0] ** 3
    elif gtype == "ellipsoid":
        vol = 4 / 3 * np.pi * s[0] * s[1] * s[2]
    else:
        raise r.error(el, f"artidyn cannot compute the inertia of a {gtype} geom; give its body an <inertial>",
                      "type")
    if "mass" in attrs:
        m = float(r.numbers(el, attrs, "mass", 1)[0])
    else:
        m = float(r.numbers(el, attrs, "density", 1, default=(1000.0,))[0]) * vol
    if gtype == "sphere":
        I = np.full(3, 2 / 5 * m * s[0] ** 2)
    elif gtype == "box":
        a, b, c = (2 * s) ** 2
        I = m / 12 * np.array([b + c, a + c, a + b])
    elif gtype == "cylinder":
        rr, L = s[0], 2 * s[1]
        I = np.array([m * (3 * rr ** 2 + L ** 2) / 12] * 2 + [m * rr ** 2 / 2])
    elif gtype == "capsule":      # a cylinder and two hemispheres, each about the capsule centre
        rr, L = s[0], 2 * s[1]
        m_s = m * (4 / 3 * rr) / (4 / 3 * rr + L)
        m_c = m - m_s
        Ixx = m_c * (3 * rr ** 2 + L ** 2) / 12 + m_s * (2 / 5 * rr ** 2 + L ** 2 / 4 + 3 * L * rr / 8)
        I = np.array([Ixx, Ixx, m_c * rr ** 2 / 2 + m_s * 2 / 5 * rr ** 2])
    else:
        a, b, c = s ** 2
        I = m / 5 * np.array([b + c, a + c, a + b])
    return m, np.diag(I)


def _read_assets(r, el):
    for c in el.children:
        if c.tag == "mesh":
            name = c.attrib.get("name") or (pathlib.Path(c.attrib["file"]).stem if "file" in c.attrib else None)
            if not name:
                raise r.error(c, "a mesh needs a name or a file", "name")
            r.mesh_assets[name] = c


def _mesh(r, el, attrs):
    """The artidyn Mesh (convex hull) of a mesh geom's asset: inline vertices or a file."""
    name = attrs.get("mesh")
    if name not in r.mesh_assets:
        raise r.error(el, f"unknown mesh {name!r} (known: {', '.join(r.mesh_assets) or 'none'})", "mesh")
    if name not in r.mesh_cache:
        a = r.mesh_assets[name]
        scale = tuple(r.numbers(a, a.attrib, "scale", 3, default=(1.0, 1.0, 1.0)))
        try:
            if "vertex" in a.attrib:
                v = r.numbers(a, a.attrib, "vertex").reshape(-1, 3)
                v = v.astype(np.float32).astype(float)      # MuJoCo keeps mesh vertices in single precision
                r.mesh_cache[name] = Mesh(vertices=v, scale=scale)
            elif "file" in a.attrib:
                base = r.meshdir if r.meshdir is not None else r.base_dir
                r.mesh_cache[name] = Mesh(base / a.attrib["file"], scale=scale)
            else:
                raise r.error(a, "a mesh needs vertex or file", "file")
        except (ModelError, FileNotFoundError, ValueError) as exc:
            raise r.error(a, f"{exc}", "file" if "file" in a.attrib else "vertex") from None
    return r.mesh_cache[name]


def _hull_inertia(mesh, density):
    """(mass, com, inertia at com) of the solid convex hull of a Mesh: tetrahedra from the origin
    to each outward face (Tonon, "Explicit exact formulas for the 3-D tetrahedron inertia tensor
    in terms of its vertex coordinates", J. Math. Stat. 2004)."""
    V = np.asarray(mesh.vertices)
    vol, first, second = 0.0, np.zeros(3), np.zeros((3, 3))
    for f in np.asarray(mesh.faces):
        a, b, c = V[f]
        det = float(np.dot(a, np.cross(b, c)))
        s = a + b + c
        vol += det / 6
        first += det / 24 * s
        second += det / 120 * (np.outer(a, a) + np.outer(b, b) + np.outer(c, c) + np.outer(s, s))
    com = first / vol
    C = second - vol * np.outer(com, com)           # second moment about the centroid
    m = density * vol
    return m, com, m / vol * (np.trace(C) * np.eye(3) - C)


def _combine(parts):
    """(mass, com, inertia at com) of rigid parts [(m, placement 4x4, I at the part origin in its axes)]."""
    M = sum(p[0] for p in parts)
    if M <= 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    c = sum(m * T[:3, 3] for m, T, _ in parts) / M
    I = np.zeros((3, 3))
    for m, T, Ig in parts:
        d = T[:3, 3] - c
        I += T[:3, :3] @ Ig @ T[:3, :3].T + m * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
    return M, c, I


def _shape(gtype, size, T):
    """(artidyn shape, placement) of a collision geom, or None."""
    if gtype == "sphere":
        return Sphere(size[0]), T
    if gtype == "box":
        return Box(2 * np.r_[size, np.zeros(3)][:3]), T
    if gtype == "capsule":
        return Capsule(size[0], 2 * size[1]), T
    if gtype == "cylinder":
        return Cylinder(size[0], 2 * size[1]), T
    if gtype == "plane":
        return HalfSpace((0.0, 0.0, 1.0), 0.0), T
    return None


# --- bodies --------------------------------------------------------------------------------------
class _Body:
    """What the reader gathered on one MJCF body before handing it to the builder."""

    def __init__(self, name, parent, T, world_T):
        self.name, self.parent, self.T, self.world_T = name, parent, T, world_T
        self.joints, self.inertial, self.geoms, self.sites = [], None, [], []


def _collect(r, el, parent, T_parent_frame, world_T_parent, cls, bodies, counter):
    """Walk a <body> / <frame> element; append _Body records (parents first)."""
    if el.tag == "frame":
        F = T_parent_frame @ r.pose(el, el.attrib)
        for c in el.children:
            _walk_child(r, c, parent, F, world_T_parent, el.attrib.get("childclass", cls), bodies, counter)
        return
    attrs = el.attrib
    cls = attrs.get("childclass", cls)
    if cls not in r.defaults:
        raise r.error(el, f"unknown default class {cls!r}", "childclass")
    counter[0] += 1
    name = attrs.get("name") or f"body{counter[0]}"     # unnamed: "body<k>", k its MuJoCo body id
    T = T_parent_frame @ r.pose(el, attrs)
    b = _Body(name, parent, T, world_T_parent @ T)
    b.line = el.line
    bodies.append(b)
    for c in el.children:
        _walk_child(r, c, b, np.eye(4), b.world_T, cls, bodies, counter)


def _walk_child(r, c, body, F, world_T, cls, bodies, counter):
    if c.tag in ("body", "frame"):
        _collect(r, c, body, F, world_T, cls, bodies, counter)
    elif c.tag in ("joint", "freejoint"):
        if body is None:
            raise r.error(c, "a joint belongs in a <body>, not in <worldbody>")
        attrs = r.resolved(c, cls)
        if c.tag == "freejoint":
            attrs = {"type": "free", **({"name": c.attrib["name"]} if "name" in c.attrib else {})}
        body.joints.append((c, attrs, F))
    elif c.tag == "inertial":
        if body is None:
            raise r.error(c, "the world has no inertia")
        body.inertial = (c, r.resolved(c, cls), F)
    elif c.tag == "geom":
        (body.geoms if body is not None else r.world_geoms).append((c, r.resolved(c, cls), F))
    elif c.tag == "site":
        (body.sites if body is not None else r.world_sites).append((c, r.resolved(c, cls), F))
    elif c.tag in ("camera", "light", "plugin", "composite", "flexcomp", "attach", "replicate"):
        r.notes.append((c.tag, c.line, "ignored"))
    else:
        raise r.error(c, "unknown element inside a body")


def _body_inertia(r, b):
    """(mass, com, inertia at com) of an MJCF body in its own frame."""
    use_geoms = r.inertiafromgeom == "true" or (r.inertiafromgeom == "auto" and b.inertial is None)
    if not use_geoms:
        if b.inertial is None:
            return 0.0, np.zeros(3), np.zeros((3, 3))
        el, attrs, F = b.inertial
        if "mass" not in attrs:
            raise r.error(el, "missing mass", "mass")
        m = float(r.numbers(el, attrs, "mass", 1)[0])
        T = F @ r.pose(el, attrs)
        if "fullinertia" in attrs:
            if "diaginertia" in attrs:
                raise r.error(el, "give diaginertia or fullinertia, not both", "fullinertia")
            a = r.numbers(el, attrs, "fullinertia", 6)
            Ii = np.array([[a[0], a[3], a[4]], [a[3], a[1], a[5]], [a[4], a[5], a[2]]])
        elif "diaginertia" in attrs:
            Ii = np.diag(r.numbers(el, attrs, "diaginertia", 3))
        else:
            raise r.error(el, "missing diaginertia or fullinertia", "diaginertia")
        return m, T[:3, 3].copy(), T[:3, :3] @ Ii @ T[:3, :3].T
    parts = []
    for el, attrs, F in b.geoms:
        gtype = attrs.get("type", "sphere")
        if gtype == "plane":
            continue
        Tg, size = _geom_frame(r, el, attrs)
        if gtype == "mesh":
            mesh = _mesh(r, el, attrs)
            vol = _hull_inertia(mesh, 1.0)[0]
            if "mass" in attrs:
                density = float(r.numbers(el, attrs, "mass", 1)[0]) / vol
            else:
                density = float(r.numbers(el, attrs, "density", 1, default=(1000.0,))[0])
            m, c, Ic = _hull_inertia(mesh, density)
            parts.append((m, F @ Tg @ homogeneous(np.eye(3), c), Ic))
            continue
        m, Ig = _geom_inertia(r, el, gtype, size, attrs)
        parts.append((m, F @ Tg, Ig))
    return _combine(parts)


def _joint_spec(r, b, el, attrs, F):
    """Builder keyword arguments of one MJCF joint, and its anchor in the body frame (a joint
    inside a <frame> has its pos and axis in that frame, ``F``)."""
    jtype = attrs.get("type", "hinge")
    if jtype not in JOINT_KINDS:
        raise r.error(el, f"unknown joint type {jtype!r} (known: {', '.join(JOINT_KINDS)})", "type")
    kind = JOINT_KINDS[jtype]
    kw = {"joint": kind, "joint_name": attrs.get("name")}
    if kind in ("revolute", "prismatic"):
        kw["axis"] = tuple(F[:3, :3] @ r.numbers(el, attrs, "axis", 3, default=(0.0, 0.0, 1.0)))
        scale = r.angle_scale if kind == "revolute" else 1.0
        limited = attrs.get("limited", "auto")
        has_range = "range" in attrs
        if limited == "true" or (limited == "auto" and r.autolimits and has_range):
            rng = r.numbers(el, attrs, "range", 2, default=(0.0, 0.0)) * scale
            kw["lower"], kw["upper"] = rng
        kw["stiffness"] = float(r.numbers(el, attrs, "stiffness", 1, default=(0.0,))[0])
        ref = float(r.numbers(el, attrs, "ref", 1, default=(0.0,))[0])      # q = 0 is the file's pose: qpos = ref
        kw["rest"] = (float(r.numbers(el, attrs, "springref", 1, default=(0.0,))[0]) - ref) * scale
    for key, arg in (("armature", "armature"), ("damping", "damping"), ("frictionloss", "coulomb")):
        kw[arg] = float(r.numbers(el, attrs, key, 1, default=(0.0,))[0])
    pos = F[:3, :3] @ r.numbers(el, attrs, "pos", 3, default=(0.0, 0.0, 0.0)) + F[:3, 3]
    return kw, (np.zeros(3) if kind == "free" else pos)


def _add_body(r, builder, b, artidyn_parent):
    """Add one MJCF body (its joints as a chain of anchor bodies); returns the name children attach to."""
    m, c, Ic = _body_inertia(r, b)
    inert = {"mass": m, "com": c, "inertia": Ic}
    if not b.joints:
        builder.add_fixed_body(b.name, artidyn_parent, placement=b.T, **inert)
        return b.name
    specs = [_joint_spec(r, b, el, attrs, F) for el, attrs, F in b.joints]
    if any(kw["joint"] == "free" for kw, _ in specs) and len(specs) > 1:
        raise r.error(b.joints[0][0], f"body '{b.name}': a free joint must be the body's only joint")
    parent, prev = artidyn_parent, None
    for k, (kw, p) in enumerate(specs):
        last = k == len(specs) - 1
        if kw["joint_name"] is None and kw["joint"] != "free":
            kw["joint_name"] = f"{b.name}_joint" if len(specs) == 1 else f"{b.name}_joint{k}"
        if kw["joint"] == "free":
            if b.parent is not None:
                raise r.error(b.joints[0][0], f"body '{b.name}': a free joint needs a body at the top level")
            placement = np.eye(4)       # q is the body's placement in the world
        else:
            placement = b.T @ homogeneous(np.eye(3), p) if prev is None else homogeneous(np.eye(3), p - prev)
        at_origin = last and not np.any(p)
        name = b.name if at_origin else f"{b.name}/{kw['joint_name'] or 'free'}"
        builder.add_body(name, parent, placement=placement, **kw, **(inert if at_origin else {}))
        parent, prev = name, p
    if parent != b.name:           # the MJCF body frame, offset from the last joint's anchor
        builder.add_fixed_body(b.name, parent, placement=homogeneous(np.eye(3), -prev), **inert)
    return b.name


def _add_geoms(r, builder, on, geoms):
    for el, attrs, F in geoms:
        gtype = attrs.get("type", "sphere")
        if attrs.get("contype", "1") == "0" and attrs.get("conaffinity", "1") == "0":
            continue
        if gtype == "plane" and on != builder.world:
            raise r.error(el, "a plane geom belongs to the world body")
        Tg, size = _geom_frame(r, el, attrs)
        try:
            got = (_mesh(r, el, attrs), F @ Tg) if gtype == "mesh" else _shape(gtype, size, F @ Tg)
        except ModelError as exc:
            raise r.error(el, str(exc), "size") from None
        if got is None:
            builder.report.add("ignored", f"geom '{attrs.get('name', '')}'", f"{gtype} geoms have no artidyn collision "
                               f"shape", el.line)
            continue
        try:
            builder.add_collision(on, got[0], placement=got[1], name=attrs.get("name"))
        except ModelError as exc:
            raise r.error(el, str(exc)) from None


def _add_sites(r, builder, on, sites):
    for el, attrs, F in sites:
        name = attrs.get("name")
        if not name:
            continue
        try:
            r.site_frames[name] = builder.add_frame(name, on, F @ r.pose(el, attrs))
        except ModelError:          # MuJoCo names sites apart from bodies; artidyn's frames share one namespace
            r.site_frames[name] = builder.add_frame(f"{name}_site", on, F @ r.pose(el, attrs))
            builder.report.add("info", f"site '{name}'", f"named '{name}_site' (a body has its name)", el.line)


def _site_equality(r, builder, c, k):
    a = c.attrib
    frames = []
    for key in ("site1", "site2"):
        if a.get(key) not in r.site_frames:
            raise r.error(c, f"unknown site {a.get(key)!r} (known: {', '.join(r.site_frames) or 'none'})", key)
        frames.append(r.site_frames[a[key]])
    if a.get("active", "true") == "false":
        builder.report.add("ignored", f"equality <{c.tag}>", "inactive", c.line)
        return
    builder.constraint_specs.append(ConstraintSpec("point" if c.tag == "connect" else "weld",
                                                   name=a.get("name") or f"{c.tag}{k}", frame_a=frames[0],
                                                   frame_b=frames[1], where=f"{r.source}:{c.line}: <{c.tag}>"))


def _equalities(r, builder, el, world_T):
    """ConstraintSpec of each <connect> and <weld> (frames added on the bodies)."""
    for k, c in enumerate(el.children, start=1):
        if c.tag not in ("connect", "weld"):
            builder.report.add("ignored", f"equality <{c.tag}>", "not read (connect and weld are)", c.line)
            continue
        a = c.attrib
        if "site1" in a or "site2" in a:    # the two site frames coincide (connect: their origins)
            _site_equality(r, builder, c, k)
            continue
        b1, b2 = a.get("body1"), a.get("body2")
        for key, body in (("body1", b1), ("body2", b2)):
            if key == "body1" and not body:
                raise r.error(c, "missing body1", "body1")
            if body and body not in world_T:
                raise r.error(c, f"unknown body {body!r}", key)
        if a.get("active", "true") == "false":
            builder.report.add("ignored", f"equality <{c.tag}>", "inactive", c.line)
            continue
        tag = a.get("name") or f"{c.tag}{k}"
        W2 = world_T[b2] if b2 else np.eye(4)
        if c.tag == "connect":          # the anchor is on body1; body2's point is where it is at the reference
            W = world_T[b1] @ homogeneous(np.eye(3), r.numbers(c, a, "anchor", 3, default=(0.0, 0.0, 0.0)))
        else:                           # the anchor is on body2 (MuJoCo's weld point)
            rel = r.numbers(c, a, "relpose", 7, default=(0, 1, 0, 0, 0, 0, 0))
            if np.any(rel[3:]):
                raise r.error(c, "an explicit relpose is not supported (the default, the pose at the reference "
                                 "configuration, is)", "relpose")
            W = W2 @ homogeneous(np.eye(3), r.numbers(c, a, "anchor", 3, default=(0.0, 0.0, 0.0)))
        fa = builder.add_frame(f"{tag}_a", b1, inv_homogeneous(world_T[b1]) @ W, kind="op")
        if b2 and b2 != "world":
            fb = builder.add_frame(f"{tag}_b", b2, inv_homogeneous(W2) @ W, kind="op")
            target = None
        else:
            fb = None
            target = tuple(map(float, W[:3, 3])) if c.tag == "connect" else tuple(tuple(map(float, row)) for row in W)
        builder.constraint_specs.append(ConstraintSpec("point" if c.tag == "connect" else "weld", name=tag,
                                                       frame_a=fa, frame_b=fb, target=target,
                                                       where=f"{r.source}:{c.line}: <{c.tag}>"))


def load_mjcf(path: str | PathLike[str]) -> Model:
    """Read an MJCF file (or MJCF text starting with '<') into an artidyn :class:`~artidyn.Model`.

    See the module docstring for what is read. ``model.source`` is the file; the MJCF body names
    are frames (bodies, or fixed links when a joint's anchor is off the body origin); states
    from MuJoCo go through :class:`artidyn.interop.MujocoConverter`. Raises ParseError (file:line,
    element, attribute) for malformed or unsupported content, FileNotFoundError for a missing file.
    """
    data, source = read_source(path, "MJCF")
    root = parse_xml(data, source)
    if root.tag != "mujoco":
        raise ParseError(f"{source}:{root.line}: the root element is <{root.tag}>, an MJCF file has <mujoco>")
    r = _Reader(source)
    r.world_geoms, r.world_sites = [], []
    r.base_dir = pathlib.Path(source).parent if source != "<string>" else pathlib.Path.cwd()
    gravity = (0.0, 0.0, -9.81)
    for el in root.children:
        if el.tag == "include":
            raise r.error(el, "<include> is not supported: merge the files first", "file")
        if el.tag == "compiler":
            _read_compiler(r, el)
            d = el.attrib.get("meshdir", el.attrib.get("assetdir"))
            r.meshdir = None if d is None else r.base_dir / d
        elif el.tag == "asset":
            _read_assets(r, el)
        elif el.tag in ("tendon", "actuator", "contact", "keyframe", "sensor"):
            r.notes.append((el.tag, el.line, "not read (artidyn reads the bodies, joints, inertias, geoms, "
                                             "sites and equality loops)"))
        elif el.tag == "option" and "gravity" in el.attrib:
            gravity = tuple(r.numbers(el, el.attrib, "gravity", 3))
    for el in root.children:
        if el.tag == "default":
            if el.attrib.get("class", "main") != "main":
                r.defaults.setdefault("main", {t: {} for t in DEFAULTABLE})
            _read_defaults(r, el, "main")
    builder = ModelBuilder(root.attrib.get("model", "mjcf"), gravity=gravity, source=source)
    bodies, counter = [], [0]
    for el in root.children:
        if el.tag == "worldbody":
            for c in el.children:
                _walk_child(r, c, None, np.eye(4), np.eye(4), el.attrib.get("childclass", "main"), bodies, counter)
    names = {}
    for b in bodies:
        if b.name in names or b.name == builder.world:
            raise ParseError(f"{source}:{b.line}: <body>: duplicate body name '{b.name}'")
        names[b.name] = b
    try:
        for b in bodies:
            attach = builder.world if b.parent is None else b.parent.name
            _add_body(r, builder, b, attach)
            _add_geoms(r, builder, b.name, b.geoms)
            _add_sites(r, builder, b.name, b.sites)
        _add_geoms(r, builder, builder.world, r.world_geoms)
        _add_sites(r, builder, builder.world, r.world_sites)
        world_T = {b.name: b.world_T for b in bodies}
        world_T[builder.world] = np.eye(4)
        for el in root.children:
            if el.tag == "equality":
                _equalities(r, builder, el, world_T)
        for tag, line, what in r.notes:
            builder.report.add("ignored", f"<{tag}>", what, line)
        return builder.build()
    except ModelError as exc:
        raise ParseError(f"{source}: {exc}") from None
