"""MJCF bodies (MuJoCo XML reference, body and frame): the tree, each body's inertia, and the
bodies artidyn builds for them.

A body without a joint is a fixed link of its parent. MuJoCo rotates a body about its joint's
``pos``; artidyn rotates a body about its own origin, so a joint with ``pos != 0`` moves a
massless body at the anchor which carries the MJCF body as a fixed link (the MJCF body keeps its
name as a frame). Several joints in one body become a chain of such anchor bodies
(``"<body>/<joint>"``), in file order, as MuJoCo composes them.
"""
import numpy as np

from ...spatial.motion import homogeneous
from .geoms import geom_mass, in_inertia_groups
from .inertia import EPS, combine, total_mass_scale
from .joints import joint_spec


class Body:
    """What the reader gathered on one MJCF body before handing it to the builder."""

    def __init__(self, el, name, parent, T, world_T):
        self.el, self.name, self.parent, self.T, self.world_T = el, name, parent, T, world_T
        self.joints, self.inertial, self.geoms, self.sites = [], None, [], []


def collect_bodies(r, s, worldbody):
    """The MJCF bodies under ``<worldbody>``, parents first (MuJoCo's body order)."""
    bodies = []
    for c in worldbody.children:
        _walk_child(r, s, c, None, np.eye(4), np.eye(4), "main", bodies)
    return bodies


def _collect(r, s, el, parent, T_parent_frame, world_T_parent, cls, bodies):
    """Walk a <body> / <frame> element; append Body records (parents first)."""
    cls = el.attrib.get("childclass", cls)
    if cls not in r.defaults:
        raise r.error(el, f"unknown default class {cls!r}", "childclass")
    if el.tag == "frame":
        F = T_parent_frame @ r.pose(el, el.attrib)
        for c in el.children:
            _walk_child(r, s, c, parent, F, world_T_parent, cls, bodies)
        return
    name = el.attrib.get("name") or f"body{len(bodies) + 1}"     # unnamed: "body<k>", k its MuJoCo body id
    T = T_parent_frame @ r.pose(el, el.attrib)
    b = Body(el, name, parent, T, world_T_parent @ T)
    _body_flags(r, s, el)
    bodies.append(b)
    for c in el.children:
        _walk_child(r, s, c, b, np.eye(4), b.world_T, cls, bodies)


def _body_flags(r, s, el):
    if el.attrib.get("mocap") == "true":
        r.note("info", el, "a mocap body: fixed to its parent here (MuJoCo moves it by mjData.mocap_pos)")
    if r.number(el, el.attrib, "gravcomp") != 0 and not s.no_passive:
        r.not_modelled(el, "gravity compensation (gravcomp) is not modelled", "gravcomp")


NOT_MODELLED = {
    "plugin": "a body plugin (its passive forces) is not modelled",
    "composite": "a <composite> makes bodies, joints and tendons that are not read (MuJoCo 3's element)",
    "flexcomp": "a <flexcomp> makes a deformable flex that is not modelled",
    "attach": "the bodies an <attach> inserts from another model are not read",
    "replicate": "the bodies a <replicate> repeats are not read",
}


def _walk_child(r, s, c, body, F, world_T, cls, bodies):
    if c.tag in ("body", "frame"):
        _collect(r, s, c, body, F, world_T, cls, bodies)
    elif c.tag in ("joint", "freejoint"):
        if body is None:
            raise r.error(c, "a joint belongs in a <body>, not in <worldbody>")
        attrs = r.resolved(c, cls)
        if c.tag == "freejoint":        # MuJoCo's shortcut for a free joint, untouched by defaults
            if c.attrib.get("align") == "true":
                raise r.error(c, "align='true' moves the body frame to its inertial frame; not supported", "align")
            attrs = {"type": "free", **({"name": c.attrib["name"]} if "name" in c.attrib else {})}
        body.joints.append((c, attrs, F))
    elif c.tag == "inertial":
        if body is None:
            raise r.error(c, "the world has no inertia")
        body.inertial = (c, dict(c.attrib), F)
    elif c.tag == "geom":
        (body.geoms if body is not None else r.world_geoms).append((c, r.resolved(c, cls), F))
    elif c.tag == "site":
        (body.sites if body is not None else r.world_sites).append((c, r.resolved(c, cls), F))
    elif c.tag in NOT_MODELLED:
        r.not_modelled(c, NOT_MODELLED[c.tag])
    elif c.tag in ("camera", "light"):
        r.note("ignored", c, "not read (appearance)")
    # any other element is unknown, and reported by the schema check


# --- inertias ------------------------------------------------------------------------------------
def body_inertias(r, s, bodies):
    """(mass, com, inertia at com) of every body in its own frame, scaled by ``settotalmass``."""
    out = [body_inertia(r, s, b) for b in bodies]
    if s.settotalmass > 0:
        k = total_mass_scale([m for m, _, _ in out], s.settotalmass)
        out = [(k * m, c, k * I) for m, c, I in out]
        r.notes.append(("info", "<compiler settotalmass>", f"masses and inertias scaled by {k:.9g} to a total of "
                        f"{s.settotalmass:g}", None))
    return out


def body_inertia(r, s, b):
    """(mass, com, inertia at com) of an MJCF body: its <inertial>, or its geoms (MuJoCo XML
    reference, compiler/inertiafromgeom)."""
    use_geoms = s.inertiafromgeom == "true" or (s.inertiafromgeom == "auto" and b.inertial is None)
    if use_geoms:
        parts = [geom_mass(r, s, el, attrs, F) for el, attrs, F in b.geoms
                 if attrs.get("type", "sphere") != "plane" and in_inertia_groups(r, s, el, attrs)]
        return combine([p for p in parts if p[0] > EPS])
    if b.inertial is None:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    el, attrs, F = b.inertial
    if "mass" not in attrs:
        raise r.error(el, "missing mass", "mass")
    m = r.number(el, attrs, "mass")
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


# --- the builder's bodies ------------------------------------------------------------------------
def joint_specs(r, s, b):
    specs = [joint_spec(r, s, el, attrs, F) for el, attrs, F in b.joints]
    if any(js.kw["joint"] == "free" for js in specs):
        if len(specs) > 1:
            raise r.error(b.joints[0][0], f"body '{b.name}': a free joint must be the body's only joint")
        if b.parent is not None:
            raise r.error(b.joints[0][0], f"body '{b.name}': a free joint needs a body at the top level")
    return specs


def add_body(builder, b, inertia, specs, artidyn_parent):
    """Add one MJCF body (its joints as a chain of anchor bodies); returns the name children attach to."""
    m, c, Ic = inertia
    inert = {"mass": m, "com": c, "inertia": Ic}
    if not specs:
        builder.add_fixed_body(b.name, artidyn_parent, placement=b.T, **inert)
        return b.name
    parent, prev = artidyn_parent, None
    for k, js in enumerate(specs):
        kw, p = dict(js.kw), js.pos
        last = k == len(specs) - 1
        if kw["joint_name"] is None and kw["joint"] != "free":
            kw["joint_name"] = f"{b.name}_joint" if len(specs) == 1 else f"{b.name}_joint{k}"
        if kw["joint"] == "free":
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
