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
import pathlib

import numpy as np

from ..configuration import neutral
from ..errors import NameNotFound, ParseError
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
        raise ParseError(f"{source}:{line}: link '{link}' is not in model '{model.name}'") from None


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
    a free joint ``root_joint`` given with 7 values is taken as [p, quaternion xyzw])."""
    root, source = _root(path)
    out = {}
    for el in root.children:
        if el.tag != "group_state":
            continue
        name = el.attrib.get("name")
        if not name:
            raise ParseError(f"{source}:{el.line}: <group_state> needs a name")
        q = neutral(model)
        for j in el.children:
            if j.tag != "joint":
                continue
            jn, val = j.attrib.get("name"), j.attrib.get("value")
            try:
                values = np.array([xml_number(x) for x in (val or "").split()])
            except ValueError:
                raise ParseError(f"{source}:{j.line}: joint '{jn}': value {val!r} is not a list of numbers") from None
            if jn not in model.joint_names:
                continue        # a joint of another model variant (reduced, fixed) or a fixed one: not ours
            sl = model.q_slice(jn)
            if values.size == 2 and model.joint_kind[model.joint_id(jn)] == "continuous":
                values = np.array([np.arctan2(values[1], values[0])])     # pinocchio's (cos, sin)
            if values.size != sl.stop - sl.start:
                raise ParseError(f"{source}:{j.line}: joint '{jn}' takes {sl.stop - sl.start} values, got {values.size}")
            q[sl] = values
        out[name] = q
    return out


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
