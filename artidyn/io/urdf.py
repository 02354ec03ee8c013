"""URDF reader: ``load_urdf(path)`` -> :class:`artidyn.Model`, built through :class:`ModelBuilder`.

``load_urdf`` takes a file name or the URDF text itself (a ``str`` or ``bytes`` starting with
``<``; :func:`from_string` insists on text). Elements are read by :mod:`.urdf_reader`.

What is read (URDF spec, http://wiki.ros.org/urdf/XML):

* ``<link>``: ``<inertial>`` (``origin xyz rpy``, ``mass``, ``inertia``). A rotated inertial
  frame is honoured: the tensor given in the inertial frame is rotated into the link axes,
  ``I_link = R I R^T``, and the centre of mass is ``xyz``. A link without ``<inertial>`` gets
  mass 0 (report note, kind "default"). Mesh file names of ``<visual>``/``<collision>`` are
  kept in ``model.meshes[link]``; visual shapes, origins and materials are not kept.
* ``<collision>`` (``origin``; ``box size``, ``sphere radius``, ``cylinder radius length``,
  ``capsule radius length``, ``mesh filename scale``) becomes a shape of ``model.collisions``
  (:mod:`artidyn.geometry`), named after its ``name`` attribute when unique in the model, else
  ``<link>_<k>`` (the k-th ``<collision>`` of the link, as pinocchio names them); a link lumped by a fixed joint hands its shapes to the body that absorbs it. A
  mesh is read with coal's loader and used as its convex hull; its file name is resolved by
  :mod:`artidyn.io.mesh_paths` (relative to the URDF file, ``package://`` through the parent
  folders, ``ROS_PACKAGE_PATH``, ``AMENT_PREFIX_PATH``; ``file://``). A mesh file that cannot be
  found or read, or a shape with a non-positive size, is skipped with a note of kind "ignored"
  (``strict=True`` raises). pinocchio's ``<collision_checking><capsule name=.../>`` reads that
  cylinder as a capsule. With a fixed base, the shapes of the links fixed to the world and of
  the links they carry through a moving joint are excluded from colliding (adjacent links, as
  the parent-child filter does for every other joint; an "info" note lists them).
  ``collisions=False`` skips all this (reported as ignored).
* ``<joint>``: revolute, continuous (an unbounded revolute, nq = 1), prismatic, fixed (the child
  is lumped into its parent by the builder and stays a frame of kind "link"), floating (a free
  joint, only between the root link and its child), planar (``<axis>`` is the plane normal; q =
  [x, y, theta] in-plane translations then the rotation about the normal, built as two
  prismatic joints and a revolute one ``<name>_x``, ``<name>_y``, ``<name>_theta`` through
  massless links ``<child>__x``, ``<child>__y``: see :mod:`artidyn.joints`; its ``<limit>`` is
  ignored, reported).
  ``<origin>``, ``<axis>`` (default (1, 0, 0), reported), ``<limit>`` (missing lower/upper: 0 as
  the spec says; missing velocity/effort: none; missing ``<limit>`` on revolute/prismatic: no
  limits; all reported), ``<dynamics damping friction>`` (viscous and Coulomb friction).
  ``<mimic joint="j" multiplier="r" offset="o">`` (defaults r = 1, o = 0) is declared as a
  coupling ``q = r q_j + o`` in ``model.constraint_specs``; the tree does not apply it (the joint
  stays a degree of freedom: a note of kind "ignored", so ``strict=True`` refuses it), and
  :func:`artidyn.constraints.from_model` gives the :class:`~artidyn.constraints.Coupling`
  to impose it. A mimic that cannot be a coupling (on a fixed joint, as in reduced models, or
  naming an unknown, non-1-dof or its own joint; real files have both) is only reported, with
  the reason. ``load_urdf(..., mimic="reduce")`` eliminates the mimicking joints instead
  (reduced coordinates, :mod:`artidyn.reduced`); ``mimic="ignore"`` drops the tags.
* Slips that urdfdom reads are read too, each with a note of kind "ignored" (``strict=True``
  refuses them): ``<limit>`` with lower > upper (a common way to write "no limit": no position
  limit, velocity and effort kept; pinocchio keeps the empty range); the same ``<axis>`` twice
  (read once; different axes stay an error); ``<visual>`` numbers that cannot be read, such as a
  4-number mesh ``scale`` (visuals do not enter the dynamics; the viewer skips that visual);
  blanks before the ``<?xml ...?>`` declaration (skipped; lines are counted from the file's
  first line).
* Everything else (transmission, gazebo, material, sensor, safety_controller, calibration,
  unknown tags and attributes) is reported once per kind (kind "ignored") in
  ``model.load_report``. ``strict=True`` raises ParseError on the first default applied, item
  ignored or data repaired.

Every URDF link becomes a named frame: moving links are bodies, fixed-joint children are frames
on their moving ancestor. Fixed base: the root link is fixed to the world body "world" (a root
link already named "world" *is* the world). Floating base: the root link is body 1 with a free
joint ``root_joint``.

Physically invalid data (inertia not positive semi-definite or breaking the triangle
inequality, zero mass with non-zero inertia, a moving link that carries no mass at all) raises
ModelError naming the file, line and link; with ``repair=True`` it is replaced by the nearest
valid data (:func:`repaired_inertia`; a massless moving leaf gets ``MIN_MASS`` and
``MIN_INERTIA``), each change recorded as a note of kind "repaired". Negative masses are
never repaired.

Ranges (:mod:`artidyn.checks`): lengths (origins, centres of mass, axes, shape sizes) and
angles within +/-1e6, masses up to 1e9 kg, inertia entries, damping and friction up to 1e15;
beyond them the dynamics would overflow, so the element is refused (ModelError naming the file,
line, element and attribute). Revolute limits between 4 pi and 1000 (e.g. -170 .. 170: degrees
typed as radians) get a note of kind "plausibility" and a
:class:`~artidyn.errors.PlausibilityWarning`; ``strict=True`` refuses them.

Safety: the XML goes through :mod:`artidyn.io.safexml` (defusedxml, no DTD, no entities, size,
depth and element-count limits). The bytes are decoded as the XML declaration says (UTF-8 by
default; ISO-8859-1, UTF-16 ...); bytes invalid in that encoding are refused with their line
and column. A xacro file (``xacro:`` elements, ``${...}`` in a value that is read) is refused:
run xacro first. Names with control characters (newline, tab) are refused. Errors name the file
and the line.
"""
from __future__ import annotations

import pathlib
import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..builder import ModelBuilder
from ..checks import MAX_LENGTH
from ..errors import InputError, ModelError, ParseError, PlausibilityWarning, check_flag, check_vector
from ..geometry import Box, Capsule, Cylinder, Mesh, Sphere
from ..model import ConstraintSpec
from .mesh_paths import resolve_mesh
from .safexml import blank_before_declaration, parse_xml, read_source
from .urdf_reader import UrdfReader, repaired_inertia  # noqa: F401

if TYPE_CHECKING:
    from os import PathLike

    from numpy.typing import ArrayLike

    from .._typing import Model
    from ..reduced import MimicReduced

MIN_MASS = 1e-6       # kg, given by repair=True to a moving link that carries no mass
MIN_INERTIA = 1e-9    # kg m^2 (about a 5 cm sphere of MIN_MASS), with MIN_MASS


def _massless_moving(reader, links, order, parent_joint, floating_base):
    """Raise (or, with repair, give MIN_MASS to) moving links whose whole subtree is massless."""
    root = order[0]
    sub = {n: links[n]["mass"] for n in order}
    for n in reversed(order):
        moving = floating_base if n == root else parent_joint[n]["kind"] != "fixed"
        if moving and sub[n] <= 0:
            el = links[n]["el"] if n == root else parent_joint[n]["el"]
            jname = "root_joint" if n == root else parent_joint[n]["name"]
            msg = (f"joint '{jname}' moves link '{n}', which carries no mass (nor do the links it "
                   f"carries): the mass matrix would be singular")
            if not reader.repair:
                raise reader.error(el, msg + "; give the link a mass, or load with repair=True", ModelError)
            links[n].update(mass=MIN_MASS, inertia=MIN_INERTIA * np.eye(3))
            reader.note("repaired", el, f"link '{n}'", f"{msg}; given mass {MIN_MASS:g} kg and "
                                                       f"inertia {MIN_INERTIA:g} kg m^2")
            sub[n] = MIN_MASS
        if n != root:
            sub[parent_joint[n]["parent"]] += sub[n]


def _add_body(builder, reader, el, **kw):
    """builder.add_body, with the file line added to ModelError messages."""
    try:
        return builder.add_body(**kw)
    except ModelError as exc:
        msg = str(exc)
        prefix = f"{reader.source}: "
        msg = msg[len(prefix):] if msg.startswith(prefix) else msg
        raise ModelError(f"{reader.where(el)}: {msg}") from None


def _mimic_specs(reader, joints, mode="constraint"):
    """A coupling ConstraintSpec for each usable ``<mimic>``: q_joint = multiplier q_mimicked + offset.

    Each mimic gets a note of kind "ignored" (the tree does not apply it; ``strict=True`` raises):
    "declared as a Coupling constraint", or why it cannot be (the mimicking joint is not 1-dof,
    e.g. fixed in a reduced model; the mimicked joint is unknown, not 1-dof or the joint itself).
    """
    from .dh import _close
    one_dof = ("revolute", "continuous", "prismatic")
    specs = []
    for name, j in joints.items():
        m = j.get("mimic")
        if m is None:
            continue
        el, other, r, o = m["el"], m["joint"], m["multiplier"], m["offset"]
        head = f"<mimic joint='{other}'> (q = {r:g} q_{other} + {o:g}): "
        why = None
        if j["kind"] not in one_dof:
            why = f"on a {j['kind']} joint (only revolute, continuous and prismatic joints can mimic)"
        elif other == name:
            why = "names the joint itself"
        elif other not in joints:
            why = f"unknown joint '{other}'{_close(other, joints)}"
        elif joints[other]["kind"] not in one_dof:
            why = (f"joint '{other}' is {joints[other]['kind']} (a mimic needs a revolute, continuous or "
                   f"prismatic joint)")
        if why:
            reader.note("ignored", el, f"joint '{name}'", head + f"not modelled: {why}")
            continue
        if mode == "ignore":
            reader.note("info", el, f"joint '{name}'", head + "ignored (mimic='ignore'): the joint is an "
                        "independent degree of freedom")
            continue
        if mode == "reduce":
            reader.note("info", el, f"joint '{name}'", head + "eliminated (mimic='reduce'): no coordinate of its "
                        "own in the reduced model")
            specs.append(ConstraintSpec("coupling", joint_a=name, joint_b=other, ratio=r, offset=o,
                                        where=f"joint '{name}' <mimic> (line {el.line})"))
            continue
        reader.note("ignored", el, f"joint '{name}'", head + "not applied to the tree, the joint stays an "
                    "independent degree of freedom; declared as a Coupling constraint in model.constraint_specs "
                    "(impose it with artidyn.constraints.from_model)")
        specs.append(ConstraintSpec("coupling", joint_a=name, joint_b=other, ratio=r, offset=o,
                                    where=f"joint '{name}' <mimic> (line {el.line})"))
    return specs


def _shape(item, base_dir):
    """The geometry shape of a ``<collision>`` record; FileNotFoundError / ModelError if it cannot be."""
    tag = item["tag"]
    if tag == "box":
        return Box(item["size"])
    if tag == "sphere":
        return Sphere(item["radius"])
    if tag == "cylinder":
        return Cylinder(item["radius"], item["length"])
    if tag == "capsule":
        return Capsule(item["radius"], item["length"])
    return Mesh(resolve_mesh(item["filename"], base_dir), scale=item["scale"])


def _collisions(builder, reader, links, order, base_dir):
    """Add each link's ``<collision>`` shapes to the builder; unusable ones become notes."""
    counts, skipped, first = {}, 0, None
    from collections import Counter
    names = Counter(it["name"] for n in order for it in links[n]["collisions"] if it["name"])
    used = set(names)
    for n in order:
        for k, it in enumerate(links[n]["collisions"]):
            name = it["name"] if it["name"] and names[it["name"]] == 1 else f"{n}_{k}"
            name = None if name in used and name != it["name"] else name  # None: the builder picks one
            used.add(name)
            try:
                shape = _shape(it, base_dir)
            except (FileNotFoundError, ModelError) as exc:
                what = f"mesh '{it['filename']}'" if it["tag"] == "mesh" else f"<{it['tag']}>"
                reader.note("ignored", it["el"], f"link '{n}'", f"<collision> {what}: {exc}; collision skipped")
                skipped += 1
                first = first or f"link '{n}': <collision> {what}: {exc}"
                continue
            builder.add_collision(n, shape, xyz=it["xyz"], rpy=it["rpy"], name=name,
                                  friction=links[n].get("friction"), restitution=links[n].get("restitution"))
            counts[it["tag"]] = counts.get(it["tag"], 0) + 1
    if counts or skipped:
        kinds = ", ".join(f"{k} {v}" for k, v in counts.items())
        msg = f"{sum(counts.values())} collision shape(s) read into model.collisions ({kinds or 'none'})"
        if counts.get("mesh"):
            msg += "; meshes are used as their convex hulls"
        if skipped:
            msg += f"; {skipped} skipped (see the notes)"
            import warnings    # contacts will not see those links: more than a note
            warnings.warn(f"{reader.source}: {skipped} collision shape(s) skipped, contacts will not see them "
                          f"(first: {first}); see model.load_report", PlausibilityWarning, stacklevel=4)
        reader.notes.append(("info", "collisions", msg, None))


def _exclude_fixed_base_neighbours(builder, reader, links, order, parent_joint, floating_base):
    """Fixed base: the links fixed to the world don't collide with the links they carry by a moving
    joint (adjacent links; the model's parent-child filter spares the world, which is scenery)."""
    root = order[0]
    fixed = {root} if not floating_base else set()
    for n in order[1:]:
        if parent_joint[n]["parent"] in fixed and parent_joint[n]["kind"] == "fixed":
            fixed.add(n)
    if not any(links[n]["collisions"] for n in fixed):
        return
    pairs = [(parent_joint[n]["parent"], n) for n in order[1:]
             if parent_joint[n]["parent"] in fixed and n not in fixed]
    for a, b in pairs:
        builder.exclude_collision(a, b)
    if pairs:
        reader.notes.append(("info", "collisions", f"fixed base: collisions between the links fixed to the world "
                             f"and the links they carry excluded ({', '.join(f'{a}-{b}' for a, b in pairs[:6])}"
                             f"{' ...' if len(pairs) > 6 else ''})", None))


class InertiaRepairWarning(UserWarning):
    """A URDF's inertial data was physically invalid and has been repaired (see the load report)."""


def load_urdf(path: str | PathLike[str], floating_base: bool = False, strict: bool = False,
              gravity: ArrayLike = (0.0, 0.0, -9.81), repair: bool = True, collisions: bool = True,
              mimic: str = "constraint") -> Model | MimicReduced:
    """Read a URDF file (or URDF text) into a :class:`artidyn.Model`.

    Parameters
    ----------
    path : str or path-like
        A file name, or the URDF text itself when the string starts with ``<``.
    floating_base : bool
        Give the root link a free joint ``root_joint`` (q: [p_world, quaternion xyzw]).
        Otherwise the root link is fixed to the world.
    strict : bool
        Raise :class:`ParseError` on any default applied, any element ignored or any value that
        looks like a unit mistake (revolute limits in degrees), instead of recording it in
        ``model.load_report``.
    gravity : (3,) gravity in the world frame.
    repair : bool, default True
        Replace physically invalid inertias (not positive semi-definite, triangle inequality
        broken, zero mass with non-zero inertia) by the nearest valid ones, and give a massless
        moving leaf a tiny mass; each change is a "repaired" note in ``model.load_report`` and
        an :class:`InertiaRepairWarning` names the links. Real URDFs need it: 18 of the 68
        robots of example-robot-data (pr2, tiago, romeo, go1, anymal, ...) ship such data.
        ``repair=False`` raises ModelError instead (file, line, link, eigenvalues), and so does
        ``strict=True``. Negative masses are never repaired.
    collisions : bool, default True
        Read ``<collision>`` shapes into ``model.collisions`` (mesh files are read: with meshes,
        loading takes longer the first time). False: reported as ignored, ``model.collisions`` empty.
    mimic : {"constraint", "reduce", "ignore"}, default "constraint"
        ``<mimic>`` tags. "constraint": each usable one is a coupling ``q = r q_j + o`` in
        ``model.constraint_specs`` (:func:`artidyn.constraints.from_model` imposes it; the tree
        keeps the joint as a coordinate). "reduce": the mimicking joints are eliminated: returns a
        :class:`artidyn.reduced.MimicReduced` (its ``full`` is the tree model, with the couplings
        in ``constraint_specs``) whose q, v hold the independent coordinates only and whose
        ``rnea``, ``aba``, ``crba``, ... are the projected equations. "ignore": every mimic is
        dropped (a note each), the joints are independent.

    Raises
    ------
    ParseError : malformed or hostile XML, bad numbers, missing required items (file and line named).
    ModelError : inconsistent tree or physics (missing links, cycles, bad inertia, zero axis ...).
    FileNotFoundError : ``path`` is not a file.
    """
    gravity = check_vector(gravity, 3, "load_urdf: gravity", MAX_LENGTH)
    floating_base, strict = check_flag(floating_base, "load_urdf: floating_base"), check_flag(strict, "load_urdf: strict")
    repair, collisions = check_flag(repair, "load_urdf: repair"), check_flag(collisions, "load_urdf: collisions")
    data, source = read_source(path)
    reader = UrdfReader(parse_xml(data, source), source, strict, repair, collisions)
    blank = blank_before_declaration(data)
    if blank:
        reader.blank_before_declaration(blank)
    name, links, joints = reader.read()
    root, order, parent_joint = reader.tree(links, joints)
    if floating_base and root == "world":
        raise reader.error(links[root]["el"], "the root link is named 'world', i.e. fixed to the world: "
                                              "load it with floating_base=False", ModelError)
    _massless_moving(reader, links, order, parent_joint, floating_base)
    world = "world" if (root == "world" or "world" not in links) else "universe"
    builder = ModelBuilder(name, gravity=gravity, world=world, source=source)
    rotated = [n for n in order if links[n]["rotated"]]
    for n in order:
        L = links[n]
        inertia = dict(mass=L["mass"], com=L["com"], inertia=L["inertia"])
        if L["meshes"]:
            builder.meshes[n] = list(L["meshes"])
        if n == root:
            if n == world:
                if L["mass"] > 0:
                    reader.note("ignored", L["el"], f"link '{n}'", "inertia of the root link 'world' (fixed) not used")
            elif floating_base:
                _add_body(builder, reader, L["el"], name=n, parent=world, joint="free", **inertia)
            else:
                _add_body(builder, reader, L["el"], name=n, parent=world, joint="fixed",
                          joint_name=f"{n}_fixed_to_world", **inertia)
            continue
        j = parent_joint[n]
        if j["kind"] == "free" and (j["parent"] != root or floating_base):
            raise reader.error(j["el"], f"joint '{j['name']}' is floating: allowed only on the root link's "
                                        f"child, with floating_base=False", ModelError)
        _add_body(builder, reader, j["el"], name=n, parent=j["parent"], joint=j["kind"], joint_name=j["name"],
                  axis=j["axis"], xyz=j["xyz"], rpy=j["rpy"], lower=j["lower"], upper=j["upper"],
                  velocity=j["velocity"], effort=j["effort"], damping=j["damping"], coulomb=j["coulomb"], **inertia)
        if j["kind"] in ("revolute", "continuous", "prismatic", "planar") and abs(np.linalg.norm(j["axis"]) - 1) > 1e-6:
            reader.notes.append(("info", f"joint '{j['name']}'", f"axis {j['axis'].tolist()} normalised", j["el"].line))
    if rotated:
        reader.notes.append(("info", "links", f"{len(rotated)} link(s) with a rotated inertial frame (e.g. "
                             f"'{rotated[0]}'): inertia rotated into the link axes", links[rotated[0]]["el"].line))
    if mimic not in ("constraint", "reduce", "ignore"):
        raise InputError(f"load_urdf: mimic must be 'constraint', 'reduce' or 'ignore', got {mimic!r}")
    builder.constraint_specs = _mimic_specs(reader, joints, mimic)
    if collisions:
        base_dir = pathlib.Path(source).parent if source != "<string>" else pathlib.Path.cwd()
        _collisions(builder, reader, links, order, base_dir)
        _exclude_fixed_base_neighbours(builder, reader, links, order, parent_joint, floating_base)
    reader.finish(builder)
    try:
        model = builder.build()
    except ModelError as exc:
        raise ModelError(f"{exc} [while building {source}]") from None
    suspect = [n for n in model.load_report if n.kind == "plausibility"]
    if suspect:
        warnings.warn(f"{source}: {len(suspect)} value(s) look like a unit mistake, e.g. {suspect[0].element}: "
                      f"{suspect[0].message}; see model.load_report (strict=True refuses them)",
                      PlausibilityWarning, stacklevel=2)
    repaired = [n.element for n in model.load_report if n.kind == "repaired"]
    if repaired:
        warnings.warn(f"{source}: physically invalid inertial data repaired on {len(repaired)} link(s) "
                      f"({', '.join(repaired[:4])}{' ...' if len(repaired) > 4 else ''}); see model.load_report, "
                      f"or load with repair=False to refuse such data", InertiaRepairWarning, stacklevel=2)
    if mimic == "reduce":
        from ..reduced import reduce_mimic
        return reduce_mimic(model)
    return model


def from_string(text, **kwargs):
    """``load_urdf`` on URDF text (also accepted directly by ``load_urdf`` when it starts with '<')."""
    if not isinstance(text, (str, bytes)) or (text.lstrip()[:1] not in ("<", b"<")):
        raise ParseError("<string>: URDF text must start with '<'")
    return load_urdf(text, **kwargs)
