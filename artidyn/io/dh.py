"""Denavit-Hartenberg tables: classic (1955) and modified (Khalil-Kleinfinger / Craig).

One row per joint i = 1..n, with the constant parameters ``a``, ``alpha``, ``d``, ``theta`` and the
joint variable q_i added to ``theta`` (revolute) or to ``d`` (prismatic). Frame F_i is attached to
link i, F_0 to the base (``base`` places F_0 in the world):

* classic:  T_{i-1,i} = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)    (joint i moves about z_{i-1})
* modified: T_{i-1,i} = Rx(alpha_i) Tx(a_i) Rz(theta_i) Tz(d_i)    (joint i moves about z_i)

Bodies and frames of the model
------------------------------
A joint of :mod:`artidyn.joints` turns about an axis through the origin of its body frame.
*Modified*: body i's frame IS F_i (joint placement Rx(alpha)Tx(a)Rz(theta)Tz(d), axis z).
*Classic*: the axis z_{i-1} of joint i does not pass through the origin of F_i when a_i != 0, so
body i's frame is the joint frame J_i = F_{i-1} Rz(theta_i + q_i) Tz(d_i) (on the joint axis, z
along it) and F_i = J_i Tx(a_i) Rx(alpha_i). The two coincide when a_i = alpha_i = 0 (e.g. the
last link of a Puma 560). Either way the frames ``"dh1" .. "dhn"`` are the DH frames F_i,
``"base"`` is F_0 and ``"tool"`` is F_n @ tool; inertial parameters are read in F_i and moved
into the body frame.

Row keys (mappings; file rows use the same keys)
------------------------------------------------
``joint`` (or ``type``): "revolute" | "prismatic"; ``a``, ``alpha``, ``d``, ``theta``: required
numbers (m, rad); ``name`` (body name, default ``link<i>``), ``joint_name`` (default
``joint<i>``); ``mass`` (kg), ``com`` (3, in F_i), ``inertia`` at the centre of mass in F_i axes:
3x3, or 6 values ``[ixx, iyy, izz, ixy, ixz, iyz]`` (URDF order; NOT the toolbox's xx, yy, zz,
xy, yz, xz), or 3 principal values, or a mapping {ixx=..., ...}; ``lower``, ``upper``,
``velocity``, ``effort``, ``armature``, ``damping``, ``coulomb``, ``actuated``.
Rows without ``mass`` are massless; a table with no inertial data at all (a purely kinematic
table) gets a nominal 1 kg and inertia 1e-3 * identity at each frame origin so that the dynamics
stay defined; both are written to the model's load report.

File format (TOML, or YAML when PyYAML is installed)
----------------------------------------------------
Top-level keys: ``name``, ``convention`` (required: "classic" | "modified"), ``gravity`` (3),
``angle_unit`` ("rad" default | "deg": the unit of ``alpha``, ``theta``, the revolute joints'
``lower`` / ``upper`` / ``velocity`` and a revolute coupling's ``offset``; lengths stay metres;
with "rad", an angle beyond 2 pi or a revolute limit between 4 pi and 1000, which look like
degrees, get a "plausibility" note and a warning, and ``strict=True`` refuses them),
``base`` and ``tool`` (a 4x4 list or a table {xyz = [..], rpy = [..]}, rpy as URDF: Rz Ry Rx),
``description`` / ``source`` (free text), the rows as ``[[joint]]`` tables (YAML: ``joints:``) and
optional loop closures as ``[[constraints]]`` tables (below).
See ``artidyn/models/data/puma560.toml``.

Loop closures: ``[[constraints]]``
----------------------------------
A closed chain is declared as the spanning tree of the table plus cut constraints, one
``[[constraints]]`` table each (YAML: a ``constraints:`` list). They are kept, checked, as plain
data in ``model.constraint_specs`` (:class:`artidyn.model.ConstraintSpec`);
:func:`artidyn.constraints.from_model` turns them into constraint objects. Fields:

* ``type`` (required): "point" | "weld" | "hinge" | "distance" | "coupling"; ``name`` (optional,
  unique): names the constraint in messages and results.
* point, weld, hinge, distance: ``frame_a`` (required) and either ``frame_b`` or ``target``
  (exactly one). Frame names are the model's frames: ``world``, ``base``, ``dh1 .. dhn``,
  ``tool`` and the link names. Without ``frame_b`` the other side is the world at ``target``:
  a world point ``[x, y, z]``; for weld and hinge also a placement, ``{xyz = [..], rpy = [..]}``
  (rpy in radians, as ``base``/``tool``) or a 4x4 list (a point means world-aligned axes).
* point (3 rows): the origins of frame_a and frame_b (or target) coincide.
* weld (6 rows): the two frames coincide.
* hinge (5 rows): the origins coincide and ``axis`` (3 numbers in frame_a's axes, default
  ``[0, 0, 1]``) stays aligned with the same axis of frame_b (or of the target's axes).
* distance (1 row): the origins stay ``length`` (m, > 0) apart. Without ``length``, the length is
  the distance at the model's neutral configuration (q = 0), measured by ``from_model``.
* coupling (1 row): ``q[joint_a] = ratio * q[joint_b] + offset`` between two joints named by
  their ``joint_name``; ``ratio`` defaults to 1 (taken as written: radian-based SI units),
  ``offset`` to 0 (in ``angle_unit`` when joint_a is revolute, else metres).

Numbers must be finite and within the documented ranges (:mod:`artidyn.checks`): lengths
(``a``, ``d``, ``com``, base/tool ``xyz``) and angles within +/-1e6, ``mass`` <= 1e9 kg, inertia
entries, armature, damping and Coulomb friction <= 1e15. Files are UTF-8; YAML is read with the
safe loader, refusing nesting deeper than 64 levels and alias expansions beyond 1e7 values.

Every field is checked: an unknown type or field, a missing or doubly given field, a bad number,
an unknown frame or joint raise ParseError naming the file and the constraint
("fourbar.toml: constraint 1 ('ground_pivot'): frame_a: unknown frame 'tol' ...; did you mean
'tool'?"). Example (``artidyn/models/data/fourbar.toml``)::

    [[constraints]]
    name = "ground_pivot"
    type = "point"
    frame_a = "tool"
    target = [3.0, 0.0, 0.0]
"""
from __future__ import annotations

import math
import pathlib
import reprlib
from typing import TYPE_CHECKING

import numpy as np

from .._text import one_line
from ..builder import ModelBuilder
from ..checks import MAX_INERTIA, MAX_LENGTH, MAX_MASS
from ..errors import ModelError, ParseError
from ..model import CONSTRAINT_TYPES, ConstraintSpec
from ..spatial.motion import homogeneous, inv_homogeneous
from ..spatial.rotations import matrix_to_rpy, rotx, rotz, rpy_to_matrix

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from os import PathLike
    from typing import Any

    from numpy.typing import ArrayLike

    from .._typing import Model

CONVENTIONS = {"classic": "classic", "standard": "classic", "dh": "classic",
               "modified": "modified", "mdh": "modified", "craig": "modified",
               "khalil": "modified", "khalil-kleinfinger": "modified"}
JOINT_TYPES = ("revolute", "prismatic")
REQUIRED = ("a", "alpha", "d", "theta")
OPTIONAL = ("name", "joint_name", "joint", "type", "mass", "com", "inertia", "lower", "upper",
            "velocity", "effort", "armature", "damping", "coulomb", "actuated")
TOP_KEYS = ("name", "convention", "gravity", "angle_unit", "base", "tool", "joint", "joints",
            "constraints", "description", "source")
_FRAME_FIELDS = ("frame_a", "frame_b", "target")
CONSTRAINT_FIELDS = {"point": _FRAME_FIELDS, "weld": _FRAME_FIELDS, "hinge": _FRAME_FIELDS + ("axis",),
                     "distance": _FRAME_FIELDS + ("length",),
                     "coupling": ("joint_a", "joint_b", "ratio", "offset")}
INERTIA_KEYS = ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")
NOMINAL_MASS, NOMINAL_INERTIA = 1.0, 1e-3


def Tx(a):
    return homogeneous(None, (a, 0.0, 0.0))


def Tz(d):
    return homogeneous(None, (0.0, 0.0, d))


def Rx(alpha):
    return homogeneous(rotx(alpha), None)


def Rz(theta):
    return homogeneous(rotz(theta), None)


def dh_transform(convention, a, alpha, d, theta):
    """T_{i-1,i}: classic Rz(theta)Tz(d)Tx(a)Rx(alpha), modified Rx(alpha)Tx(a)Rz(theta)Tz(d)."""
    if _convention(convention) == "classic":
        return Rz(theta) @ Tz(d) @ Tx(a) @ Rx(alpha)
    return Rx(alpha) @ Tx(a) @ Rz(theta) @ Tz(d)


def _close(word, known):
    import difflib
    close = difflib.get_close_matches(str(word), list(known), n=2, cutoff=0.5)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def _convention(convention, err=ModelError, where=""):
    key = str(convention).strip().lower() if convention is not None else None
    if key not in CONVENTIONS:
        got = "no convention given" if convention is None else f"unknown DH convention {_short(convention)}"
        raise err(f"{where}{got}: use 'classic' (Denavit-Hartenberg 1955, Rz Tz Tx Rx) or "
                  f"'modified' (Khalil-Kleinfinger / Craig, Rx Tx Rz Tz)")
    return CONVENTIONS[key]


def _number(value, what, err, bound=None):
    """A finite float (``|x| <= bound`` when given: the documented ranges of :mod:`artidyn.checks`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise err(f"{what} must be a number, got {_short(value)}")
    try:
        x = float(value)
    except OverflowError:           # an integer beyond the double range
        raise err(f"{what} must be finite, got an integer of {len(str(value))} digits") from None
    if not math.isfinite(x):
        raise err(f"{what} must be finite, got {_short(value)}")
    if bound is not None and abs(x) > bound:
        raise err(f"{what} = {x:g} is beyond the accepted range +/-{bound:g} (artidyn.checks; larger values "
                  f"overflow the dynamics)")
    return x


def _numbers(value, n, what, err, bound=None):
    vals = value.tolist() if isinstance(value, np.ndarray) else value
    if not isinstance(vals, (list, tuple)) or len(vals) != n:
        raise err(f"{what} must be a list of {n} numbers, got {_short(value)}")
    return [_number(v, f"{what}[{k}]", err, bound) for k, v in enumerate(vals)]


def _short(value, n=60):
    """repr(value), cut to ``n`` characters (a huge or deeply nested value must not flood a message)."""
    try:
        text = reprlib.repr(value)
    except Exception:  # noqa: BLE001  (a message must not fail)
        text = f"<{type(value).__name__}>"
    return text if len(text) <= n else text[:n] + "..."


def _inertia(value, what, err):
    """3x3 inertia from 3x3, 6 values (ixx, iyy, izz, ixy, ixz, iyz), 3 principal values or a mapping."""
    if isinstance(value, dict):
        bad = [k for k in value if k not in INERTIA_KEYS]
        if bad:
            raise err(f"{what}: unknown key {bad[0]!r} (keys: {', '.join(INERTIA_KEYS)}){_close(bad[0], INERTIA_KEYS)}")
        value = [value.get(k, 0.0) for k in INERTIA_KEYS]
    arr = np.asarray(value, dtype=object)
    if arr.shape == (3, 3):
        return np.array([_numbers(list(r), 3, f"{what} row {k}", err) for k, r in enumerate(arr)])
    if arr.shape == (6,):
        xx, yy, zz, xy, xz, yz = _numbers(list(arr), 6, what, err)
        return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    if arr.shape == (3,):
        return np.diag(_numbers(list(arr), 3, what, err))
    raise err(f"{what} must be 3x3, 6 values [ixx, iyy, izz, ixy, ixz, iyz] or 3 principal values, got {_short(value)}")


def _transform(value, what, err):
    """A 4x4 transform from None, a 4x4 array or a mapping {xyz, rpy}."""
    if value is None:
        return np.eye(4)
    if isinstance(value, dict):
        bad = [k for k in value if k not in ("xyz", "rpy")]
        if bad:
            raise err(f"{what}: unknown key {bad[0]!r} (use xyz and rpy)")
        xyz = _numbers(value.get("xyz", [0, 0, 0]), 3, f"{what}.xyz", err, MAX_LENGTH)
        rpy = _numbers(value.get("rpy", [0, 0, 0]), 3, f"{what}.rpy", err, MAX_LENGTH)
        return homogeneous(rpy_to_matrix(np.array(rpy)), np.array(xyz))
    T = np.asarray(value, dtype=object)
    if T.shape != (4, 4):
        raise err(f"{what} must be a 4x4 transform or {{xyz, rpy}}, got shape {T.shape}")
    T = np.array([_numbers(list(r), 4, f"{what} row {k}", err, MAX_LENGTH) for k, r in enumerate(T)])
    R = T[:3, :3]
    if np.abs(R.T @ R - np.eye(3)).max() > 1e-9 or abs(np.linalg.det(R) - 1) > 1e-9 or np.any(T[3] != [0, 0, 0, 1]):
        raise err(f"{what} is not a rigid transform (rotation block not orthonormal or last row not 0 0 0 1)")
    return T


def normalize_row(row, i, err=ModelError, where="", angle_scale=1.0):
    """Check one table row (1-based ``i``); return a dict in SI units and radians."""
    at = f"{where}joint row {i}"
    if not isinstance(row, dict):
        raise err(f"{at}: a row must be a mapping with keys a, alpha, d, theta, joint, got {_short(row)}")
    at += f" ('{row['name']}')" if isinstance(row.get("name"), str) and row["name"].isprintable() else ""
    for key in row:
        if key not in REQUIRED + OPTIONAL:
            raise err(f"{at}: unknown key {key!r}{_close(key, REQUIRED + OPTIONAL)}")
    for key in REQUIRED:
        if key not in row:
            raise err(f"{at}: missing key '{key}' (each row needs a, alpha, d, theta and joint)")
    kinds = {str(row[k]).strip().lower() for k in ("joint", "type") if k in row}
    if not kinds:
        raise err(f"{at}: missing key 'joint' (\"revolute\" or \"prismatic\")")
    if len(kinds) > 1:
        raise err(f"{at}: 'joint' and 'type' disagree ({sorted(kinds)})")
    kind = kinds.pop()
    if kind not in JOINT_TYPES:
        raise err(f"{at}: unknown joint type {_short(kind)} (DH rows are 'revolute' or 'prismatic')"
                  f"{_close(kind, JOINT_TYPES)}")
    out = {"name": str(row.get("name", f"link{i}")), "joint_name": str(row.get("joint_name", f"joint{i}")),
           "joint": kind}
    for key in REQUIRED:   # lengths (a, d) and angles, both within +/-1e6
        out[key] = _number(row[key], f"{at}: '{key}'", err, MAX_LENGTH) * (angle_scale if key in ("alpha", "theta") else 1.0)
    lim_scale = angle_scale if kind == "revolute" else 1.0
    for key in ("lower", "upper", "velocity"):
        out[key] = None if row.get(key) is None else _number(row[key], f"{at}: '{key}'", err) * lim_scale
    for key in ("effort", "armature", "damping", "coulomb"):
        bound = MAX_INERTIA if key != "effort" else None
        out[key] = None if row.get(key) is None else _number(row[key], f"{at}: '{key}'", err, bound)
    act = row.get("actuated", True)
    if not isinstance(act, (bool, np.bool_)):
        raise err(f"{at}: 'actuated' must be true or false (a boolean, not {_short(act)}: the string \"false\" would "
                  f"read as true)")
    out["actuated"] = bool(act)
    for key in ("name", "joint_name"):
        if key in row and not isinstance(row[key], str):
            raise err(f"{at}: '{key}' must be a string, got {_short(row[key])}")
        if key in row and (not row[key].strip() or any(ord(ch) < 32 or ord(ch) == 127 for ch in row[key])):
            raise err(f"{at}: '{key}' {_short(row[key])} is empty or holds a control character (newline, tab ...)")
    for key in ("velocity", "effort"):
        if out[key] is not None and out[key] < 0:
            raise err(f"{at}: '{key}' limit must be >= 0, got {_short(row[key])}")
    if "mass" in row:
        out["mass"] = _number(row["mass"], f"{at}: 'mass'", err, MAX_MASS)
        out["com"] = _numbers(row.get("com", [0, 0, 0]), 3, f"{at}: 'com'", err, MAX_LENGTH)
        out["inertia"] = _inertia(row.get("inertia", np.zeros((3, 3))), f"{at}: 'inertia'", err).tolist()
    elif "com" in row or "inertia" in row:
        raise err(f"{at}: 'com' or 'inertia' given without 'mass'")
    else:
        out["mass"] = out["com"] = out["inertia"] = None
    return out


def _name_field(c, key, at, err, required=True):
    if key not in c:
        if required:
            raise err(f"{at}: missing field '{key}'")
        return None
    if not isinstance(c[key], str) or not c[key].strip():
        raise err(f"{at}: '{key}' must be a non-empty name, got {_short(c[key])}")
    return c[key].strip()


def _target(value, kind, at, err):
    """A world point (3-tuple), or for weld / hinge a placement (4x4 tuple of rows)."""
    if kind in ("weld", "hinge") and (isinstance(value, dict) or np.shape(value) == (4, 4)):
        return tuple(tuple(r) for r in _transform(value, f"{at}: 'target'", err).tolist())
    what = "a point [x, y, z]" + (", {xyz = [..], rpy = [..]} or a 4x4 placement" if kind in ("weld", "hinge") else "")
    vals = value.tolist() if isinstance(value, np.ndarray) else value
    if not isinstance(vals, (list, tuple)) or len(vals) != 3:
        raise err(f"{at}: 'target' must be {what}, got {_short(value)}")
    return tuple(_numbers(vals, 3, f"{at}: 'target'", err))


def normalize_constraint(c, k, err=ModelError, where="", angle_scale=1.0, joint_kinds=None):
    """Check one ``[[constraints]]`` table (1-based ``k``); return a :class:`ConstraintSpec`.

    ``joint_kinds`` maps joint names to "revolute" / "prismatic" (for the unit of a coupling's
    offset). Frame and joint names are checked against the model when it is built.
    """
    at = f"{where}constraint {k}"
    if not isinstance(c, dict):
        raise err(f"{at}: a constraint must be a table with a 'type' (one of {', '.join(CONSTRAINT_TYPES)}), "
                  f"got {_short(c)}")
    name = _name_field(c, "name", at, err, required=False)
    at += f" ('{name}')" if name else ""
    if "type" not in c:
        raise err(f"{at}: missing field 'type' (one of {', '.join(CONSTRAINT_TYPES)})")
    kind = str(c["type"]).strip().lower()
    if kind not in CONSTRAINT_TYPES:
        raise err(f"{at}: unknown constraint type {_short(c['type'])} (known: {', '.join(CONSTRAINT_TYPES)})"
                  f"{_close(kind, CONSTRAINT_TYPES)}")
    fields = ("type", "name") + CONSTRAINT_FIELDS[kind]
    for key in c:
        if key not in fields:
            other = [t for t, f in CONSTRAINT_FIELDS.items() if key in f]
            hint = f" (a field of {' / '.join(other)} constraints)" if other else _close(key, fields)
            raise err(f"{at}: unknown field {key!r} for a {kind} constraint{hint}; "
                      f"fields: {', '.join(fields)}")
    out = {"type": kind, "name": name, "where": at[len(where):]}
    if kind == "coupling":
        out["joint_a"] = _name_field(c, "joint_a", at, err)
        out["joint_b"] = _name_field(c, "joint_b", at, err)
        out["ratio"] = _number(c.get("ratio", 1.0), f"{at}: 'ratio'", err)
        scale = angle_scale if (joint_kinds or {}).get(out["joint_a"]) == "revolute" else 1.0
        out["offset"] = _number(c.get("offset", 0.0), f"{at}: 'offset'", err) * scale
        return ConstraintSpec(**out)
    out["frame_a"] = _name_field(c, "frame_a", at, err)
    world = "point" if kind in ("point", "distance") else "point or placement"
    if "frame_b" in c and "target" in c:
        raise err(f"{at}: give 'frame_b' or 'target' (a world {world}), not both")
    if "frame_b" not in c and "target" not in c:
        raise err(f"{at}: missing field 'frame_b' or 'target' (the other side: a frame, or the world at a "
                  f"target {world})")
    out["frame_b"] = _name_field(c, "frame_b", at, err, required=False)
    if "target" in c:
        out["target"] = _target(c["target"], kind, at, err)
    if kind == "hinge":
        axis = _numbers(c.get("axis", [0.0, 0.0, 1.0]), 3, f"{at}: 'axis'", err)
        norm = math.sqrt(sum(a * a for a in axis))
        if norm < 1e-12:
            raise err(f"{at}: 'axis' must be a nonzero 3-vector, got {_short(c['axis'])}")
        out["axis"] = tuple(a / norm for a in axis)
    if kind == "distance" and "length" in c:
        out["length"] = _number(c["length"], f"{at}: 'length'", err)
        if out["length"] <= 0:
            raise err(f"{at}: 'length' must be positive, got {_short(c['length'])} (omit it to measure the "
                      f"distance at the neutral configuration)")
    return ConstraintSpec(**out)


def normalize_constraints(items, err=ModelError, where="", angle_scale=1.0, joint_kinds=None):
    """The ``[[constraints]]`` list as a tuple of :class:`ConstraintSpec` (names unique)."""
    if items is None:
        return ()
    if not isinstance(items, (list, tuple)):
        raise err(f"{where}'constraints' must be a list of tables ([[constraints]]), got {_short(items)}")
    specs = tuple(normalize_constraint(c, k, err, where, angle_scale, joint_kinds)
                  for k, c in enumerate(items, start=1))
    seen = {}
    for k, sp in enumerate(specs, start=1):
        if sp.name is not None and sp.name in seen:
            raise err(f"{where}constraint {k} ('{sp.name}'): duplicate constraint name (also constraint "
                      f"{seen[sp.name]})")
        seen.setdefault(sp.name, k)
    return specs


def from_dh(rows: Sequence[Mapping[str, Any]] | str | PathLike[str], convention: str | None = None,
            name: str | None = None, gravity: ArrayLike | None = None,
            base: ArrayLike | Mapping[str, Any] | None = None, tool: ArrayLike | Mapping[str, Any] | None = None,
            angle_unit: str | None = None,
            constraints: Sequence[Mapping[str, Any]] | None = None, strict: bool = False) -> Model:
    """Build a :class:`~artidyn.Model` from a DH table, or from a TOML / YAML table file.

    Parameters
    ----------
    rows : list of mappings (see the module docstring), or a path to a .toml / .yaml / .yml file
    convention : "classic" (Rz Tz Tx Rx, 1955) or "modified" (Rx Tx Rz Tz, Khalil-Kleinfinger).
        Required for rows (never guessed: the two give different robots); overrides the file's.
    name, gravity (3,), base (4x4 or {xyz, rpy}: F_0 in the world), tool (4x4 or {xyz, rpy}: the
    tool frame in F_n), angle_unit ("rad" or "deg"): override the file's values when given.
    constraints : list of mappings like the file's ``[[constraints]]`` tables (module docstring):
        loop closures, added to the file's.
    strict : bool
        Refuse (ParseError for a file, ModelError for rows) values that look like a unit mistake
        instead of noting them: with ``angle_unit = "rad"``, a constant angle ``alpha`` or
        ``theta`` beyond 2 pi (90 is degrees), or a revolute limit between 4 pi and 1000
        (-170 .. 170 is degrees). Without it each such value is a note of kind "plausibility" in
        ``model.load_report`` and a :class:`~artidyn.errors.PlausibilityWarning`.

    Returns
    -------
    Model with bodies ``link1 .. linkn`` (or the rows' names), frames ``base``, ``dh1 .. dhn``
    (the DH frames F_i) and ``tool``; ``model.dh`` holds the normalised rows, ``model.dh_convention``
    the convention, ``model.constraint_specs`` the declared loop closures.
    """
    source, err, spec = "", ModelError, {}
    if isinstance(rows, (str, pathlib.Path)):
        source, err = str(rows), ParseError
        spec = read_dh_file(rows)
        rows = spec["joint"]
    where = f"{source}: " if source else ""
    conv = _convention(convention if convention is not None else spec.get("convention"), err, where)
    unit = angle_unit if angle_unit is not None else spec.get("angle_unit", "rad")
    if unit not in ("rad", "deg"):
        raise err(f"{where}angle_unit must be 'rad' or 'deg', got {_short(unit)}")
    scale = math.pi / 180 if unit == "deg" else 1.0
    if not isinstance(rows, (list, tuple)) or not rows:
        raise err(f"{where}a DH table needs at least one joint row, got {_short(rows)}")
    table = [normalize_row(r, i, err, where, scale) for i, r in enumerate(rows, start=1)]
    name = name if name is not None else spec.get("name", "dh_robot")
    if not isinstance(name, str) or not name.strip() or not name.isprintable():
        raise err(f"{where}name must be a non-empty string without control characters, got {_short(name)}")
    g = gravity if gravity is not None else spec.get("gravity", (0.0, 0.0, -9.81))
    g = _numbers(g, 3, f"{where}gravity", err, MAX_LENGTH)
    T_base = _transform(base if base is not None else spec.get("base"), f"{where}base", err)
    T_tool = _transform(tool if tool is not None else spec.get("tool"), f"{where}tool", err)
    items = spec.get("constraints")
    if constraints is not None:
        if not isinstance(constraints, (list, tuple)):
            raise err(f"{where}constraints must be a list of mappings, got {_short(constraints)}")
        items = list(items or []) + list(constraints)
    kinds = {r["joint_name"]: r["joint"] for r in table}
    specs = normalize_constraints(items, err, where, scale, kinds)
    suspects = _unit_suspects(table, rows, unit)
    if suspects and strict:
        raise err(f"{where}{suspects[0][0]}: {suspects[0][1]} (strict=True)")
    b = ModelBuilder(str(name), gravity=g, source=source)
    for element, msg in suspects:
        b.report.add("plausibility", element, msg)
    if suspects:
        import warnings
        from ..errors import PlausibilityWarning
        warnings.warn(f"{where}{len(suspects)} value(s) look like degrees typed as radians, e.g. {suspects[0][0]}: "
                      f"{suspects[0][1]}; see model.load_report (strict=True refuses them)", PlausibilityWarning,
                      stacklevel=2)
    try:
        _add_rows(b, table, conv, T_base, T_tool)
        b.dh, b.dh_convention = table, conv
        b.constraint_specs = list(specs)
        return b.build()
    except ModelError as exc:
        if err is ModelError:
            raise
        raise ParseError(str(exc)) from None


def _unit_suspects(table, rows, unit):
    """(element, message) for each value that looks like degrees in a table read in radians."""
    if unit != "rad":
        return []
    from .urdf_reader import looks_like_degrees
    out = []
    for i, (r, raw) in enumerate(zip(table, rows), start=1):
        at = f"joint row {i} ('{r['name']}')"
        for key in ("alpha", "theta"):
            if abs(r[key]) > 2 * math.pi + 1e-9:
                out.append((at, f"'{key}' = {raw[key]:g} rad is more than a turn: degrees? (set angle_unit = "
                                f"\"deg\" or convert: radians = degrees * pi / 180)"))
        if r["joint"] == "revolute" and looks_like_degrees(r["lower"], r["upper"]):
            out.append((at, f"revolute limits {r['lower']} .. {r['upper']} rad look like degrees (set angle_unit = "
                            f"\"deg\" or convert)"))
    return out


def _add_rows(b, table, conv, T_base, T_tool):
    """Bodies link_i with the placements of the module docstring; frames base, dh_i, tool."""
    kinematic = all(r["mass"] is None for r in table)
    if kinematic:
        b.report.add("default", "DH table", f"no inertial parameters: nominal mass {NOMINAL_MASS} kg and "
                     f"inertia {NOMINAL_INERTIA} * identity at each DH frame origin")
    K_prev = T_base  # constant transform from the previous body frame to the next joint's frame
    parent = b.world
    for i, r in enumerate(table, start=1):
        if conv == "classic":
            P = K_prev @ Rz(r["theta"]) @ Tz(r["d"])
            K = Tx(r["a"]) @ Rx(r["alpha"])  # F_i in the body frame J_i
        else:
            P = K_prev @ Rx(r["alpha"]) @ Tx(r["a"]) @ Rz(r["theta"]) @ Tz(r["d"])
            K = np.eye(4)
        if r["mass"] is None and kinematic:
            m, c, I = NOMINAL_MASS, np.zeros(3), NOMINAL_INERTIA * np.eye(3)
        elif r["mass"] is None:
            m, c, I = 0.0, np.zeros(3), np.zeros((3, 3))
            b.report.add("default", f"joint row {i} ('{r['name']}')", "no mass given: massless link")
        else:
            m, c, I = r["mass"], np.array(r["com"]), np.array(r["inertia"])
        R = K[:3, :3]
        b.add_body(r["name"], parent, r["joint"], joint_name=r["joint_name"], axis=(0, 0, 1), placement=P,
                   mass=m, com=R @ c + K[:3, 3], inertia=R @ I @ R.T, lower=r["lower"], upper=r["upper"],
                   velocity=r["velocity"], effort=r["effort"], armature=r["armature"] or 0.0,
                   damping=r["damping"] or 0.0, coulomb=r["coulomb"] or 0.0, actuated=r["actuated"])
        b.add_frame(f"dh{i}", r["name"], K, kind="link")
        K_prev, parent = K, r["name"]
    b.add_frame("base", b.world, T_base, kind="op")
    b.add_frame("tool", f"dh{len(table)}", T_tool, kind="op")


# --- files -------------------------------------------------------------------------------------
def read_dh_file(path):
    """Read a TOML / YAML DH table file into a dict (keys checked, rows under ``"joint"``)."""
    path = pathlib.Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such DH table file")
    ext = path.suffix.lower()
    if ext not in (".toml", ".yaml", ".yml"):
        raise ParseError(f"{path}: unknown DH table file type '{ext}' (use .toml, .yaml or .yml)")
    text = _decoded(path)
    spec = _load_toml(text, path) if ext == ".toml" else _load_yaml(text, path)
    _check_depth(spec, path)
    if not isinstance(spec, dict):
        raise ParseError(f"{path}: the file must hold a table of keys (name, convention, joint rows ...)")
    for key in spec:
        if key not in TOP_KEYS:
            raise ParseError(f"{path}: unknown key {key!r}{_close(key, TOP_KEYS)} (known: {', '.join(TOP_KEYS)})")
    if "joint" in spec and "joints" in spec:
        raise ParseError(f"{path}: give the rows as 'joint' or 'joints', not both")
    spec["joint"] = spec.pop("joints", spec.get("joint"))
    if not spec["joint"]:
        raise ParseError(f"{path}: no joint rows (add [[joint]] tables)")
    if "convention" not in spec:
        raise ParseError(f"{path}: missing key 'convention' ('classic' or 'modified'): the two conventions "
                         f"give different robots, so it is never guessed")
    return spec


MAX_FILE_BYTES = 50 * 2**20   # largest DH table file read
MAX_DEPTH = 64                # deepest nesting of lists / tables (a DH table needs 4)
MAX_NODES = 10_000_000        # most values in a file, YAML aliases expanded (1e7)


def _decoded(path):
    """The file's text: UTF-8 (a BOM allowed), strictly; ParseError with the line and column of a
    byte that is not UTF-8 (never replaced by U+FFFD)."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ParseError(f"{path}: file of {size} bytes exceeds the limit of {MAX_FILE_BYTES} bytes")
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ParseError(f"{path}, line {line}, column {col} (byte {exc.start}): byte 0x{data[exc.start]:02x} is not "
                         f"valid UTF-8 (DH table files are UTF-8 text)") from None


def _load_toml(text, path):
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ParseError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:   # the parser recurses once per nested array / inline table
        raise ParseError(f"{path}: invalid TOML: arrays or inline tables nested too deeply (at most {MAX_DEPTH} "
                         f"levels)") from None


def _load_yaml(text, path):
    """YAML with PyYAML's safe loader, after a scan of its events (which does not recurse): nesting
    deeper than MAX_DEPTH, more than MAX_NODES values (aliases expanded: no "billion laughs") and
    recursive aliases are refused before anything is built."""
    try:
        import yaml
    except ModuleNotFoundError:
        raise ParseError(f"{path}: reading YAML needs PyYAML (pip install pyyaml); or use TOML") from None
    try:
        _scan_yaml(yaml, text, path)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        _count_yaml(yaml, node, path)
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ParseError(f"{path}: invalid YAML: {exc}") from None
    except RecursionError:
        raise ParseError(f"{path}: invalid YAML: nested too deeply (at most {MAX_DEPTH} levels)") from None


def _scan_yaml(yaml, text, path):
    depth = 0
    for ev in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise ParseError(f"{path}, line {ev.start_mark.line + 1}: invalid YAML: lists or mappings nested "
                                 f"deeper than {MAX_DEPTH} levels")
        elif isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def _count_yaml(yaml, root, path):
    """Values of the document with every alias expanded (memoised per node, so linear in the
    file): more than MAX_NODES, an expanded nesting deeper than MAX_DEPTH or a recursive alias
    is refused."""
    if root is None:
        return
    size, depth, state = {}, {}, {}
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        kids = []
        if isinstance(node, yaml.SequenceNode):
            kids = node.value
        elif isinstance(node, yaml.MappingNode):
            kids = [x for pair in node.value for x in pair]
        if done:
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            state[key] = 2
            if size[key] > MAX_NODES or depth[key] > MAX_DEPTH + 1:
                what = f"more than {MAX_NODES} values" if size[key] > MAX_NODES else f"deeper than {MAX_DEPTH} levels"
                raise ParseError(f"{path}, line {node.start_mark.line + 1}: invalid YAML: with its aliases expanded "
                                 f"the document holds {what} (an alias / anchor bomb?)")
            continue
        if state.get(key) == 2:
            continue
        if state.get(key) == 1:
            raise ParseError(f"{path}, line {node.start_mark.line + 1}: invalid YAML: a recursive alias (a list or "
                             f"mapping that contains itself)")
        state[key] = 1
        stack.append((node, True))
        for k in kids:
            if state.get(id(k)) == 1:
                raise ParseError(f"{path}, line {k.start_mark.line + 1}: invalid YAML: a recursive alias (a list or "
                                 f"mapping that contains itself)")
            if state.get(id(k)) != 2:
                stack.append((k, False))


def _check_depth(spec, path):
    """Lists / tables nested at most MAX_DEPTH deep (walked without recursion)."""
    stack = [(spec, 1)]
    while stack:
        x, d = stack.pop()
        if d > MAX_DEPTH:
            raise ParseError(f"{path}: values nested deeper than {MAX_DEPTH} levels")
        if isinstance(x, dict):
            stack.extend((v, d + 1) for v in x.values())
        elif isinstance(x, list):
            stack.extend((v, d + 1) for v in x)


def _fmt(x):
    return repr(float(f"{float(x):.15g}"))


def _toml_string(text):
    """A TOML basic string of any text: backslash, quote and every control character escaped
    (a newline in a model name would otherwise end the string and break, or reshape, the file)."""
    out = []
    for ch in text:
        if ch in '\\"':
            out.append("\\" + ch)
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_value(v):
    if isinstance(v, str):
        return _toml_string(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return _fmt(v)


def to_toml(model, angle_unit="deg", header=""):
    """TOML text of a model built from a DH table (``model.dh``), readable by :func:`from_dh`."""
    if not getattr(model, "dh", None):
        raise ModelError(f"model '{model.name}' was not built from a DH table (model.dh is empty)")
    scale = 180 / math.pi if angle_unit == "deg" else 1.0
    lines = [f"# {one_line(ln)}" for ln in str(header).splitlines()]
    lines += [f"name = {_toml_value(model.name)}", f"convention = {_toml_value(model.dh_convention)}",
              f"angle_unit = {_toml_value(angle_unit)}", f"gravity = {_toml_value(list(model.gravity))}"]
    n = len(model.dh)
    placements = {"base": model.frame("base").placement,
                  "tool": inv_homogeneous(model.frame(f"dh{n}").placement) @ model.frame("tool").placement}
    for key, T in placements.items():
        if not np.allclose(T, np.eye(4), atol=1e-15):
            rpy = matrix_to_rpy(T[:3, :3])
            lines += ["", f"[{key}]", f"xyz = {_toml_value(T[:3, 3])}", f"rpy = {_toml_value(rpy)}"]
    for r in model.dh:
        lines += ["", "[[joint]]"]
        ang = scale if r["joint"] == "revolute" else 1.0
        for key in ("name", "joint_name", "joint"):
            lines.append(f"{key} = {_toml_value(r[key])}")
        order = ("theta", "d", "a", "alpha") if model.dh_convention == "classic" else ("alpha", "a", "theta", "d")
        for key in order:
            lines.append(f"{key} = {_fmt(r[key] * (scale if key in ('alpha', 'theta') else 1.0))}")
        if r["mass"] is not None:
            I = np.array(r["inertia"])
            lines += [f"mass = {_fmt(r['mass'])}", f"com = {_toml_value(r['com'])}",
                      "inertia = " + _toml_value([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]])
                      + "  # ixx, iyy, izz, ixy, ixz, iyz at the com, F_i axes"]
        for key in ("lower", "upper", "velocity", "effort", "armature", "damping", "coulomb"):
            if r[key] is not None:
                lines.append(f"{key} = {_fmt(r[key] * (ang if key in ('lower', 'upper', 'velocity') else 1.0))}")
        if not r["actuated"]:
            lines.append("actuated = false")
    kinds = {r["joint_name"]: r["joint"] for r in model.dh}
    for sp in getattr(model, "constraint_specs", ()):
        lines += ["", "[[constraints]]"]
        for key, val in sp.as_dict().items():
            if key == "target" and np.shape(val) == (4, 4):
                T = np.array(val)
                val = f"{{xyz = {_toml_value(T[:3, 3])}, rpy = {_toml_value(matrix_to_rpy(T[:3, :3]))}}}"
                lines.append(f"target = {val}")
                continue
            if key == "offset" and kinds.get(sp.joint_a) == "revolute":
                val = val * scale
            lines.append(f"{key} = {_toml_value(val)}")
    return "\n".join(lines) + "\n"
