"""The MJCF reader's state: attributes and their numbers, orientations, default classes, and the
account of what it did (load-report notes, warnings, ``strict=True`` refusals).

Every message names the file (the included file an element came from), the line, the element
and the attribute. Three outcomes for something the reader does not take as written:

- a note in ``model.load_report`` only: what does not change the motion or lies outside the model
  (actuators, read by :func:`artidyn.io.mjcf.actuation`; sensors, appearance, solver settings);
- a note and a warning (:class:`UnknownAttributeWarning`, :class:`NotModelledWarning`,
  :class:`~artidyn.errors.PlausibilityWarning`): a misspelt or unknown attribute or element, a
  feature that moves a MuJoCo model and that artidyn does not model, a value that looks like a
  unit mistake;
- with ``strict=True``, each of the latter raises :class:`~artidyn.errors.ParseError` instead.
"""
import difflib

import numpy as np

from ...errors import ParseError, PlausibilityWarning
from ...spatial.motion import homogeneous
from ...spatial.rotations import quat_to_matrix
from ..safexml import xml_number

DEFAULTABLE = ("joint", "geom", "site", "mesh", "equality", "tendon")


class MjcfWarning(UserWarning):
    """Something of an MJCF file that artidyn does not take as MuJoCo would (see the load report)."""


class UnknownAttributeWarning(MjcfWarning):
    """An attribute or element that MJCF does not have (a misspelling?): not read. MuJoCo refuses
    such a file ("Schema violation"); ``strict=True`` refuses it too."""


class NotModelledWarning(MjcfWarning):
    """A feature that changes a MuJoCo model's motion and that artidyn does not model (tendon
    springs, nonlinear joint equalities, tendon equalities, fluid forces ...)."""


class Reader:
    """Attributes, defaults and the account of one MJCF load (see the module docstring)."""

    def __init__(self, source, base_dir, strict=False):
        self.source, self.base_dir, self.strict = source, base_dir, strict
        self.angle_scale = np.pi / 180.0        # MJCF's default angle unit is the degree
        self.eulerseq = "xyz"
        self.defaults = {"main": {t: {} for t in DEFAULTABLE}}
        self.notes = []             # (kind, element, message, line) for the load report
        self.warned = []            # (warning class, message), issued once the model is built
        self.origin = {}            # id(element) -> the included file it came from
        self.mesh_elements, self.mesh_cache = {}, {}    # mesh name -> <mesh> element, MeshAsset
        self.site_frames = {}       # site name -> frame name
        self.world_geoms, self.world_sites = [], []     # (element, attributes, frame) of <worldbody>

    # --- where, and what was done --------------------------------------------------------------
    def where(self, el):
        return f"{self.origin.get(id(el), self.source)}:{el.line}"

    def label(self, el, file=True):
        """``<tag> 'name'`` of an element, with its file (``file``) when it came from an included file
        (the load report's notes have a line but no file)."""
        name = f" '{el.attrib['name']}'" if "name" in el.attrib else ""
        inc = f" (in {self.origin[id(el)]})" if file and id(el) in self.origin else ""
        return f"<{el.tag}>{name}{inc}"

    def error(self, el, msg, attr=None):
        at = f" attribute '{attr}'" if attr else ""
        return ParseError(f"{self.where(el)}: {self.label(el, file=False)}{at}: {msg}")

    def note(self, kind, el, msg, element=None):
        self.notes.append((kind, element or self.label(el), msg, el.line))

    def warn(self, category, el, msg, attr=None, element=None):
        """A note and a warning of ``category``; ParseError under ``strict=True``."""
        if self.strict:
            raise self.error(el, f"{msg} (strict=True refuses it)", attr)
        kind = "plausibility" if category is PlausibilityWarning else "ignored"
        at = f" attribute '{attr}'" if attr else ""
        self.note(kind, el, f"{at[1:]}: {msg}" if attr else msg, element)
        self.warned.append((category, f"{self.where(el)}: {self.label(el, file=False)}{at}: {msg}"))

    def not_modelled(self, el, msg, attr=None):
        self.warn(NotModelledWarning, el, msg, attr)

    def unknown(self, el, attr, known):
        """An attribute (``attr``) or element (``attr`` None) MJCF does not have: not read."""
        word = attr if attr is not None else el.tag
        close = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        what = "unknown attribute" if attr is not None else "unknown element"
        self.warn(UnknownAttributeWarning, el, f"{what}, not read (MuJoCo refuses it){hint}", attr)

    # --- attributes -----------------------------------------------------------------------------
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

    def number(self, el, attrs, key, default=0.0):
        return float(self.numbers(el, attrs, key, 1, default=(default,))[0])

    def flag(self, el, attrs, key, default, choices=("true", "false", "auto")):
        text = attrs.get(key)
        if text is None:
            return default
        if text not in choices:
            raise self.error(el, f"expected {', '.join(choices[:-1])} or {choices[-1]}, got {text!r}", key)
        return text

    def resolved(self, el, cls, kind=None):
        """Attributes of ``el`` over the defaults of its class (``class``, else the inherited ``cls``);
        ``kind``: the defaults' element when it is not ``el``'s tag (``tendon`` for ``<fixed>``)."""
        name = el.attrib.get("class", cls)
        if name not in self.defaults:
            raise self.error(el, f"unknown default class {name!r} (known: {', '.join(self.defaults)})", "class")
        out = dict(self.defaults[name].get(kind or el.tag, {}))
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
            return axis_rotation(self.unit(el, a[:3], key), a[3] * self.angle_scale)
        if key == "euler":
            e = self.numbers(el, attrs, key, 3) * self.angle_scale
            R = np.eye(3)
            for c, angle in zip(self.eulerseq, e):
                Ri = axis_rotation(np.eye(3)["xyz".index(c.lower())], angle)
                R = R @ Ri if c.islower() else Ri @ R       # lower case: moving axes; upper: fixed axes
            return R
        if key == "xyaxes":
            v = self.numbers(el, attrs, key, 6)
            x = self.unit(el, v[:3], key)
            y = self.unit(el, v[3:] - np.dot(v[3:], x) * x, key)
            return np.column_stack([x, y, np.cross(x, y)])
        return z_to(self.unit(el, self.numbers(el, attrs, key, 3), key))

    def unit(self, el, v, key):
        n = np.linalg.norm(v)
        if n < 1e-12:
            raise self.error(el, f"zero axis {v.tolist()}", key)
        return v / n

    def pose(self, el, attrs):
        pos = self.numbers(el, attrs, "pos", 3, default=(0.0, 0.0, 0.0))
        return homogeneous(self.orientation(el, attrs), pos)


def axis_rotation(u, angle):
    """Rotation by ``angle`` about the unit axis ``u``."""
    from scipy.spatial.transform import Rotation
    return Rotation.from_rotvec(angle * np.asarray(u, dtype=float)).as_matrix()


def z_to(d):
    """The minimal rotation taking e_z to the unit vector d (MuJoCo's choice for zaxis and fromto)."""
    z = np.array([0.0, 0.0, 1.0])
    axis = np.cross(z, d)
    s, c = np.linalg.norm(axis), float(np.dot(z, d))
    if s < 1e-14:
        return np.eye(3) if c > 0 else np.diag([1.0, -1.0, -1.0])
    return axis_rotation(axis / s, np.arctan2(s, c))


def read_defaults(r, el, parent_class):
    """The default classes of a ``<default>`` element and its nested ones (MuJoCo XML reference,
    "default": a nested class inherits its parent's values)."""
    name = el.attrib.get("class", "main")
    if name in r.defaults and name != "main":
        raise r.error(el, f"duplicate default class {name!r}", "class")
    base = r.defaults.get(parent_class, {t: {} for t in DEFAULTABLE})
    r.defaults[name] = {t: dict(base.get(t, {})) for t in DEFAULTABLE}
    for c in el.children:
        if c.tag in DEFAULTABLE:
            r.defaults[name][c.tag].update(c.attrib)
    for c in el.children:
        if c.tag == "default":
            read_defaults(r, c, name)
