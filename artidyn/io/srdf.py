"""SRDF (the Semantic Robot Description Format of MoveIt): collision pairs to ignore, and named
configurations.

A URDF robot with mesh hulls usually touches itself at rest (neighbouring links overlap); its
SRDF lists the link pairs whose collisions are meaningless (``<disable_collisions link1="..."
link2="..." reason="..."/>``) and named poses (``<group_state name="standing"> <joint
name="..." value="..."/> ... </group_state>``)::

    model = artidyn.load_urdf("solo12.urdf", floating_base=True)
    model = apply_srdf(model, "solo.srdf")                  # collision_exclusions extended
    q = srdf_configurations(model, "solo.srdf")["standing"]
    talos = artidyn.load("talos_full_v2")
    q = load_postures(talos)["half_sitting"]   # the SRDF found next to model.source (../srdf/)

Values are matched to the model's joints by NAME, so a posture is right whatever the joint order
(pinocchio's order differs from artidyn's on branched robots: pasting pinocchio's
``referenceConfigurations["half_sitting"]`` vector puts Talos's sole 6 cm off). A floating base
``root_joint`` takes [x, y, z, qx, qy, qz, qw]; a continuous joint takes its angle (or pinocchio's
(cos, sin) pair, converted).

Parsed with the same safe XML reader as URDF (no DTD, no entities, size limits); errors name the
file and the line. Links are the URDF's, mapped to the model's bodies (lumped links to the body
that carries them); pairs on one body are dropped (a body never collides with itself).
"""
import difflib
import pathlib

import numpy as np

from ..checks import LIMIT_MARGIN
from ..configuration import neutral
from ..errors import NameNotFound, ParseError, PlausibilityWarning
from .safexml import parse_xml, read_source, xml_number


def _root(path):
    data, source = read_source(path, "SRDF")
    root = parse_xml(data, source)
    if root.tag != "robot":
        raise ParseError(f"{source}:{root.line}: the root element is <{root.tag}>, an SRDF has <robot>")
    return root, source


def _body(model, link, source, line):
    try:
        return model.frame(link).body
    except NameNotFound:
        links = [n for n in model.frame_names if n != "world"]
        close = difflib.get_close_matches(str(link), links, 1, 0.6)
        hint = f"; did you mean '{close[0]}'?" if close else f" (its links: {', '.join(links[:8])}" + \
            (" ...)" if len(links) > 8 else ")")
        raise ParseError(f"{source}:{line}: link '{link}' is not in model '{model.name}'{hint}") from None


def srdf_disabled_pairs(model, path):
    """The body index pairs (i, j), i < j, of the SRDF's ``<disable_collisions>`` (two links
    carried by one body are dropped)."""
    root, source = _root(path)
    pairs = set()
    for el in root.children:
        if el.tag != "disable_collisions":
            continue
        a, b = el.attrib.get("link1"), el.attrib.get("link2")
        if not a or not b:
            raise ParseError(f"{source}:{el.line}: <disable_collisions> needs link1 and link2")
        i, j = _body(model, a, source, el.line), _body(model, b, source, el.line)
        if i != j:
            pairs.add((min(i, j), max(i, j)))
    return sorted(pairs)


def apply_srdf(model, path):
    """``model`` with the SRDF's disabled collision pairs added to ``collision_exclusions``."""
    pairs = set(model.collision_exclusions) | set(srdf_disabled_pairs(model, path))
    return model.replace(collision_exclusions=tuple(sorted(pairs)))


def srdf_configurations(model, path):
    """{name: q} of the SRDF's ``<group_state>`` poses (joints not named keep the neutral value;
    a free joint ``root_joint`` given with 7 values is taken as [p, quaternion xyzw]).

    Checked against the model, each with a ``PlausibilityWarning`` and a load-report note:

    - a joint the model lacks is skipped; it is warned, with the closest joint of the model, when it
      is no joint of the model's URDF either, is close to one of the model's, and the posture names
      few such joints (a misspelling, rather than the posture of another variant of the robot);
    - a quaternion that is zero or not finite skips its posture (no orientation to take);
    - a value outside its joint's limits (beyond 1e-6 and 2 % of the range) is kept, and warned.
    """
    root, source = _root(path)
    known = []          # the URDF's joint names, read only if a posture names a joint the model lacks
    out = {}
    for el in root.children:
        if el.tag != "group_state":
            continue
        name = el.attrib.get("name")
        if not name:
            raise ParseError(f"{source}:{el.line}: <group_state> needs a name")
        q = neutral(model)
        ok = True
        joints = [j for j in el.children if j.tag == "joint"]
        unknown = [j for j in joints if j.attrib.get("name") not in model.joint_names]
        suspect = len(unknown) <= max(1, len(joints) // 4)   # a few: misspelt; many: another variant's posture
        for j in joints:
            jn, val = j.attrib.get("name"), j.attrib.get("value")
            where = f"{source}:{j.line}: posture '{name}': joint '{jn}'"
            try:
                values = np.array([xml_number(x) for x in (val or "").split()])
            except ValueError:
                raise ParseError(f"{where}: value {val!r} is not a list of numbers") from None
            if jn not in model.joint_names:
                if suspect:
                    _unknown_joint(model, jn, where, known)
                continue
            sl = model.q_slice(jn)
            if values.size == 2 and model.joint_kind[model.joint_id(jn)] == "continuous":
                values = np.array([np.arctan2(values[1], values[0])])     # pinocchio's (cos, sin)
            if values.size != sl.stop - sl.start:
                raise ParseError(f"{where}: takes {sl.stop - sl.start} values, got {values.size}")
            if not _quaternion_ok(model, jn, values, where):
                ok = False
                break
            q[sl] = values
        if ok:
            _within_limits(model, q, name, source)
            out[name] = q
    return out


def _tell(model, where, message):
    """A PlausibilityWarning and a load-report note."""
    import warnings
    model.load_report.add("ignored", where, message)
    warnings.warn(f"{where}: {message}", PlausibilityWarning, stacklevel=4)


def _urdf_joint_names(model):
    """Every joint name of the model's URDF file (fixed ones too), or an empty set."""
    src = getattr(model, "source", None)
    try:
        root = parse_xml(*read_source(src, "URDF")) if src and pathlib.Path(src).is_file() else None
    except (OSError, ValueError, ParseError):
        root = None
    return {el.attrib.get("name") for el in root.children if el.tag == "joint"} if root is not None else set()


def _unknown_joint(model, joint, where, known):
    if not known:
        known.append(_urdf_joint_names(model))
    if joint in known[0]:
        return                   # a joint the model fixed or reduced away: the posture does not need it
    close = difflib.get_close_matches(str(joint), list(model.joint_names[1:]), 1, 0.8)
    if close:
        _tell(model, where, f"is not a joint of model '{model.name}' (did you mean '{close[0]}'?); its value is "
                            f"not used")


def _quaternion_ok(model, joint, values, where):
    """False (warned) for a free or spherical joint's zero or non-finite quaternion."""
    kind = model.joint_kind[model.joint_id(joint)]
    quat = values[3:7] if kind == "free" else values if kind == "spherical" else None
    if quat is None:
        return True
    norm = float(np.linalg.norm(quat)) if np.all(np.isfinite(quat)) else float("nan")
    if not norm > 1e-9:
        _tell(model, where, f"the quaternion {[float(x) for x in quat]} is zero or not finite: the posture is "
                            f"skipped")
        return False
    values[-4:] = quat / norm if kind == "free" else values / norm
    return True


def _within_limits(model, q, posture, source):
    """Warn of every joint value of posture ``q`` outside its joint's limits (kept)."""
    lo, up = np.asarray(model.lower, dtype=float), np.asarray(model.upper, dtype=float)
    span = np.where(np.isfinite(up - lo), up - lo, 0.0)
    tol = LIMIT_MARGIN[0] + LIMIT_MARGIN[1] * span
    for i in range(1, model.nb + 1):
        if model.nq_joint[i] != model.nv_joint[i]:
            continue            # quaternion joints have no position limits
        for k in range(model.idx_q[i], model.idx_q[i] + model.nq_joint[i]):
            if q[k] < lo[k] - tol[k] or q[k] > up[k] + tol[k]:
                _tell(model, f"{source}: posture '{posture}': joint '{model.joint_names[i]}'",
                      f"value {q[k]:g} is outside the joint's limits [{lo[k]:g}, {up[k]:g}] (kept)")


def find_srdf(urdf):
    """The SRDF of a URDF file, or None: in the URDF's folder or its package's ``srdf`` folder
    (``<package>/urdf/x.urdf`` -> ``<package>/srdf/``), the file named like the URDF, else the one
    whose name starts the URDF's (``solo.srdf`` for ``solo12.urdf``), the longest such name first.
    ``urdf`` is a path or a model (its ``source``)."""
    urdf = pathlib.Path(getattr(urdf, "source", urdf) or "")
    for folder in (urdf.parent, urdf.parent.parent / "srdf"):
        if not folder.is_dir():
            continue
        files = sorted(folder.glob("*.srdf"))
        for f in files:
            if f.stem == urdf.stem:
                return f
        prefixed = [f for f in files if urdf.stem.startswith(f.stem)]
        if prefixed:
            return max(prefixed, key=lambda f: len(f.stem))
    return None


def load_postures(model, path=None):
    """The SRDF's reference postures ``{name: q}`` (``<group_state>``) in artidyn's convention.

    ``path`` None: the SRDF found next to the model's URDF (:func:`find_srdf` of
    ``model.source``; for an example-robot-data robot, its package's SRDF). Joints are matched
    by name; joints the SRDF leaves out keep their neutral value. Raises FileNotFoundError when
    no SRDF is found, ParseError (file:line) for a malformed one.
    """
    if path is None:
        path = find_srdf(model)
        if path is None:
            raise FileNotFoundError(f"no SRDF found for model '{model.name}' next to {model.source!r} "
                                    f"(looked in its folder and in ../srdf); pass path=")
    return srdf_configurations(model, path)
