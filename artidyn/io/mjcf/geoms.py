"""MJCF geoms and sites: their frames, their masses (when a body's inertia comes from its geoms)
and their collision shapes; sites as operational frames.

MuJoCo XML reference, body/geom: ``size`` or ``fromto`` (capsule, cylinder, box, ellipsoid),
``mass`` or ``density`` (1000), ``shellinertia`` (the mass on the surface), ``group`` (with
``<compiler inertiagrouprange>``), ``contype`` / ``conaffinity`` (both 0: visual only; otherwise
the collision's bit masks, MuJoCo's filter: :class:`artidyn.geometry.Collision`). Mesh geoms
take their inertia mode from the mesh asset (:mod:`.mesh`).
"""
import numpy as np

from ...errors import ModelError
from ...geometry.shapes import Box, Capsule, Cylinder, HalfSpace, Sphere
from ...spatial.motion import homogeneous
from .inertia import primitive_inertia, primitive_volume
from .mesh import read_mesh
from .reader import z_to


def geom_frame(r, el, attrs):
    """(4x4 placement in the body frame, half sizes (3,)) of a geom or site, honouring ``fromto``."""
    gtype = attrs.get("type", "sphere")
    size = np.r_[r.numbers(el, attrs, "size", (1, 2, 3), default=(0.0, 0.0, 0.0)), np.zeros(3)][:3]
    if "fromto" not in attrs:
        return r.pose(el, attrs), size
    if gtype not in ("capsule", "cylinder", "box", "ellipsoid"):
        raise r.error(el, f"fromto needs a capsule, cylinder, box or ellipsoid, not a {gtype}", "fromto")
    ft = r.numbers(el, attrs, "fromto", 6)
    d = ft[3:] - ft[:3]
    L = np.linalg.norm(d)
    if L < 1e-12:
        raise r.error(el, "the two points coincide", "fromto")
    given = r.numbers(el, attrs, "size", (1, 2, 3), default=(0.0,))
    if gtype in ("box", "ellipsoid"):       # half sizes x, y (one number: both), z from the length
        size = np.r_[given[0], given[1] if given.size > 1 else given[0], L / 2]
    else:
        size = np.r_[given[0], L / 2, 0.0]
    return homogeneous(z_to(d / L), (ft[:3] + ft[3:]) / 2), size


def mesh_asset(r, s, el, attrs):
    """The :class:`~.mesh.MeshAsset` a mesh geom names (read on first use)."""
    name = attrs.get("mesh")
    if name not in r.mesh_elements:
        raise r.error(el, f"unknown mesh {name!r} (known: {', '.join(r.mesh_elements) or 'none'})", "mesh")
    if name not in r.mesh_cache:
        a = r.mesh_elements[name]
        r.mesh_cache[name] = read_mesh(r, s, a, r.resolved(a, "main", kind="mesh"))
    return r.mesh_cache[name]


def in_inertia_groups(r, s, el, attrs):
    """Whether a geom counts in its body's inertia (``<compiler inertiagrouprange>``)."""
    group = r.number(el, attrs, "group")
    return s.groups[0] <= group <= s.groups[1]


def geom_mass(r, s, el, attrs, F):
    """(mass, placement of its com frame in the body frame, 3x3 inertia about it) of one geom."""
    gtype = attrs.get("type", "sphere")
    Tg, size = geom_frame(r, el, attrs)
    shell = r.flag(el, attrs, "shellinertia", "false", ("true", "false")) == "true"
    if gtype == "mesh":
        if shell:
            raise r.error(el, "for mesh geoms MuJoCo takes the inertia from the mesh asset (asset/mesh inertia="
                              "'shell')", "shellinertia")
        vol, com, I_unit = mesh_asset(r, s, el, attrs).mass_properties(r)
        density = r.number(el, attrs, "mass") / vol if "mass" in attrs else r.number(el, attrs, "density", 1000.0)
        return density * vol, F @ Tg @ homogeneous(np.eye(3), com), density * I_unit
    if "mesh" in attrs:
        raise r.error(el, f"MuJoCo fits this {gtype} to the mesh's size; artidyn does not fit primitives to meshes: "
                          f"give the geom its size, or type='mesh'", "mesh")
    vol = primitive_volume(gtype, size, shell)
    if vol is None:
        raise r.error(el, f"artidyn cannot compute the inertia of a {gtype} geom; give its body an <inertial>",
                      "type")
    m = r.number(el, attrs, "mass") if "mass" in attrs else r.number(el, attrs, "density", 1000.0) * vol
    return m, F @ Tg, np.diag(primitive_inertia(gtype, size, m, shell))


def _shape(gtype, size, T):
    """(artidyn shape, placement) of a primitive collision geom, or None."""
    if gtype == "sphere":
        return Sphere(size[0]), T
    if gtype == "box":
        return Box(2 * size), T
    if gtype == "capsule":
        return Capsule(size[0], 2 * size[1]), T
    if gtype == "cylinder":
        return Cylinder(size[0], 2 * size[1]), T
    if gtype == "plane":
        return HalfSpace((0.0, 0.0, 1.0), 0.0), T
    return None


def _mask(r, el, attrs, key):
    """A geom's ``contype`` or ``conaffinity`` (default 1): a non-negative int."""
    value = r.number(el, attrs, key, 1.0)
    if value != int(value) or value < 0 or value >= 2 ** 31:
        raise r.error(el, f"expected a non-negative 32-bit integer bit mask, got {attrs.get(key)!r}", key)
    return int(value)


def add_geoms(r, s, builder, on, geoms):
    """Collision shapes of the geoms of one body (``on``); none when contacts are disabled."""
    for el, attrs, F in geoms:
        gtype = attrs.get("type", "sphere")
        if s.off("contact"):
            continue
        contype, conaffinity = _mask(r, el, attrs, "contype"), _mask(r, el, attrs, "conaffinity")
        if contype == 0 and conaffinity == 0:       # visual only: it touches nothing
            continue
        if gtype == "plane" and on != builder.world:
            raise r.error(el, "a plane geom belongs to the world body")
        Tg, size = geom_frame(r, el, attrs)
        try:
            got = (mesh_asset(r, s, el, attrs).shape(r), F @ Tg) if gtype == "mesh" else _shape(gtype, size, F @ Tg)
        except ModelError as exc:
            raise r.error(el, str(exc), "size") from None
        if got is None:
            r.note("ignored", el, f"{gtype} geoms have no artidyn collision shape",
                   element=f"geom '{attrs.get('name', '')}'")
            continue
        mu = r.numbers(el, attrs, "friction", (1, 2, 3))      # sliding, torsional, rolling: the first
        if mu is not None and not (np.isfinite(mu[0]) and mu[0] >= 0):
            raise r.error(el, f"friction must be >= 0, got {attrs.get('friction')!r}", "friction")
        try:
            builder.add_collision(on, got[0], placement=got[1], name=attrs.get("name"), contype=contype,
                                  conaffinity=conaffinity, friction=None if mu is None else float(mu[0]))
        except ModelError as exc:
            raise r.error(el, str(exc)) from None


def add_sites(r, builder, on, sites):
    """Named sites as frames (MuJoCo names sites apart from bodies; artidyn's frames share one
    namespace, so a site named like a body becomes ``<name>_site``)."""
    for el, attrs, F in sites:
        name = attrs.get("name")
        if not name:
            continue
        T = F @ geom_frame(r, el, attrs)[0]
        try:
            r.site_frames[name] = builder.add_frame(name, on, T)
        except ModelError:
            r.site_frames[name] = builder.add_frame(f"{name}_site", on, T)
            r.note("info", el, f"named '{name}_site' (a body has its name)", element=f"site '{name}'")
