"""MJCF (MuJoCo's XML model format) reader: :func:`load_mjcf`.

What is read, measured against MuJoCo's own compiler (MuJoCo XML reference):

- ``<include file>``: the files are assembled as MuJoCo assembles them (:mod:`.include`).
- ``<compiler>``: ``angle``, ``eulerseq``, ``autolimits``, ``inertiafromgeom``,
  ``inertiagrouprange``, ``meshdir`` / ``assetdir``, ``strippath``, ``settotalmass``
  (:mod:`.options`). ``<option gravity>`` and the ``<flag>`` s that change the model (gravity,
  spring, damper, frictionloss, limit, equality, contact, constraint).
- ``<default>`` classes (nested, ``class`` and ``childclass``) of joints, geoms, sites, meshes,
  equalities and tendons.
- ``<body>`` and ``<frame>`` (pos and one orientation: quat (w x y z), axisangle, euler, xyaxes,
  zaxis): bodies; without a joint a body is a fixed link of its parent (:mod:`.bodies`).
- ``<joint type="hinge|slide|ball|free">`` and ``<freejoint>`` (:mod:`.joints`): q is
  ``qpos - ref``, so limits are ``range - ref``; ``armature``, ``damping``, ``frictionloss``,
  ``stiffness`` / ``springref``, ``springdamper``.
- ``<inertial>``, or the inertia of the geoms: primitives (solid or ``shellinertia``) and meshes
  in MuJoCo's four modes ``legacy`` (MuJoCo's default), ``exact``, ``convex`` and ``shell``
  (:mod:`.inertia`, :mod:`.mesh`).
- ``<geom>`` sphere, box, capsule, cylinder, plane (world only) and mesh (its convex hull):
  collision shapes; ``contype=conaffinity=0`` geoms are visual only, other ``contype`` /
  ``conaffinity`` values are the shapes' bit masks (MuJoCo's filter). ``<contact><exclude body1
  body2>``: the pair in ``model.collision_exclusions``. As in MuJoCo, a body's shapes never touch
  its parent's (unless the parent is the world) nor those of the same body, and the world's
  shapes never touch each other; a body with several joints (a chain of bodies here) keeps that
  rule with its MJCF parent through ``collision_exclusions``.
- ``<site>``: operational frames. ``<equality>`` ``connect`` and ``weld``: loop constraints;
  ``joint`` with a linear ``polycoef`` (``a0 a1 0 0 0``): a coupling ``q1 = a0 + a1 q2`` (MuJoCo
  measures both joints from their reference values, as artidyn's q does) (``model.constraint_specs``,
  see :func:`artidyn.constraints.from_model`).
- ``<actuator>`` (not part of the model): :func:`actuation` reads motors, position and velocity
  servos and fixed-gain general actuators on hinge and slide joints into a map from MuJoCo's
  ``ctrl`` to generalized forces (:mod:`.actuators`).

What is not modelled, with a load-report note and a warning (:class:`NotModelledWarning`;
``strict=True`` refuses it): other equality constraints (nonlinear joint polynomials, a joint
held at a value without ``joint2``, tendon and flex equalities), tendon springs, dampers, friction,
armature and limits, springs on ball and free joints, ball-joint ranges (cones), plastic
springs, gravity compensation,
fluid forces, flexes, ``<composite>``, ``<flexcomp>``, ``<attach>``, ``<replicate>``, body
plugins, ``filterparent="disable"``, ``<contact><pair>``; MuJoCo's free-joint armature (it acts on the world-frame
linear acceleration, artidyn's on the body-frame one: :mod:`.joints`). Attributes and elements
MJCF does not have are not read, with a note and an :class:`UnknownAttributeWarning` naming the
closest known name (:mod:`.schema`). Revolute ranges that look like degrees under
``angle="radian"`` get a :class:`~artidyn.errors.PlausibilityWarning`. Actuators (see
:func:`actuation`), sensors, keyframes, cameras, lights and solver settings: a note each. Refused
(ParseError): ``boundmass``, ``boundinertia``, ``balanceinertia``, ``alignfree`` and
``<freejoint align>`` (they rewrite inertias or frames), an explicit weld ``relpose``, builtin
meshes, primitives fitted to meshes, height-field inertias.

MuJoCo's states differ from artidyn's: free joint qpos ``[p, w x y z]`` and qvel ``[v_world,
omega_body]``, ball qpos ``(w x y z)``, hinge and slide measured from ``ref``. Convert them with
:class:`artidyn.interop.MujocoConverter`. Files are read with artidyn's safe XML reader; errors
are ParseError naming the file, line, element and attribute.
"""
from __future__ import annotations

import pathlib
import warnings
from typing import TYPE_CHECKING

import numpy as np

from ...builder import ModelBuilder
from ...errors import ModelError, ParseError, check_flag
from ..safexml import parse_xml, read_source
from .actuators import Actuation, actuation
from .bodies import add_body, body_inertias, collect_bodies, joint_specs
from .geoms import add_geoms, add_sites
from .include import expand_includes
from .joints import apply_springdamper
from .options import Settings, finish_options, gravity, read_compiler, read_option
from .reader import MjcfWarning, NotModelledWarning, Reader, UnknownAttributeWarning, read_defaults
from .schema import check_tree
from .sections import read_sections

if TYPE_CHECKING:
    from os import PathLike

    from ..._typing import Model

__all__ = ["load_mjcf", "actuation", "Actuation", "MjcfWarning", "NotModelledWarning", "UnknownAttributeWarning"]


def load_mjcf(path: str | PathLike[str], strict: bool = False) -> Model:
    """Read an MJCF file (or MJCF text starting with '<') into an artidyn :class:`~artidyn.Model`.

    See the module docstring for what is read. ``model.source`` is the file; the MJCF body names
    are frames (bodies, or fixed links when a joint's anchor is off the body origin); states
    from MuJoCo go through :class:`artidyn.interop.MujocoConverter`.

    ``strict``: refuse (ParseError) what otherwise gets a warning: unknown or misspelt attributes
    and elements, features artidyn does not model, values that look like a unit mistake.

    Raises ParseError (file:line, element, attribute) for malformed or unsupported content,
    FileNotFoundError for a missing file. ``model.load_report`` holds what was left aside.
    """
    strict = check_flag(strict, "load_mjcf: strict")
    data, source = read_source(path, "MJCF")
    root = parse_xml(data, source)
    if root.tag != "mujoco":
        raise ParseError(f"{source}:{root.line}: the root element is <{root.tag}>, an MJCF file has <mujoco>")
    r = Reader(source, pathlib.Path(source).parent if source != "<string>" else pathlib.Path.cwd(), strict)
    expand_includes(r, root, len(data))
    check_tree(r, root)
    s = _settings(r, root)
    builder = ModelBuilder(root.attrib.get("model", "mjcf"), gravity=gravity(s), source=source)
    try:
        _build_tree(r, s, builder, root)
        for kind, element, message, line in r.notes:
            builder.report.add(kind, element, message, line)
        model = builder.build()
    except ModelError as exc:
        raise ParseError(f"{source}: {exc}") from None
    for category, message in dict.fromkeys(r.warned):
        warnings.warn(message, category, stacklevel=2)
    return model


def _settings(r, root):
    """Compiler, options, default classes and mesh assets (read first, wherever they stand)."""
    s = Settings()
    for el in root.children:
        if el.tag == "compiler":
            read_compiler(r, s, el)
    for el in root.children:
        if el.tag == "option":
            read_option(r, s, el)
        elif el.tag == "default":
            read_defaults(r, el, "main")
        elif el.tag == "asset":
            _mesh_elements(r, el)
    finish_options(r, s, root)
    return s


def _mesh_elements(r, el):
    for c in el.children:
        if c.tag == "mesh":
            name = c.attrib.get("name") or (pathlib.Path(c.attrib["file"]).stem if "file" in c.attrib else None)
            if not name:
                raise r.error(c, "a mesh needs a name or a file", "name")
            r.mesh_elements[name] = c


def _build_tree(r, s, builder, root):
    """Bodies, joints, geoms, sites and loop constraints, in MuJoCo's order."""
    bodies = []
    for el in root.children:
        if el.tag == "worldbody":
            bodies += collect_bodies(r, s, el)
    names = set()
    for b in bodies:
        if b.name in names or b.name == builder.world:
            raise r.error(b.el, f"duplicate body name '{b.name}'")
        names.add(b.name)
    inertias = body_inertias(r, s, bodies)
    specs = [joint_specs(r, s, b) for b in bodies]
    apply_springdamper(r, s, bodies, inertias, specs)
    for b, inertia, js in zip(bodies, inertias, specs):
        add_body(builder, b, inertia, js, builder.world if b.parent is None else b.parent.name)
        if b.parent is not None and len(js) > 1:
            # a body with several joints is a chain of bodies here: its shapes and its MJCF parent's are
            # no longer parent and child, so MuJoCo's parent filter is kept as an exclusion
            builder.exclude_collision(b.name, b.parent.name)
        add_geoms(r, s, builder, b.name, b.geoms)
        add_sites(r, builder, b.name, b.sites)
    add_geoms(r, s, builder, builder.world, r.world_geoms)
    add_sites(r, builder, builder.world, r.world_sites)
    world_T = {b.name: b.world_T for b in bodies}
    world_T[builder.world] = np.eye(4)
    read_sections(r, s, builder, root, world_T)
