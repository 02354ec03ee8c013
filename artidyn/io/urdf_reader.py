"""URDF elements -> link and joint records, with the load report (used by :mod:`.urdf`).

The reader walks the element tree of :mod:`artidyn.io.safexml`, reads numbers with their
checks (count, finiteness), records every default applied and every element or attribute it
does not read, and checks each link's inertial data (raise, or repair and report).
"""
import math
import pathlib

import numpy as np

from ..builder import check_inertia
from ..checks import MAX_INERTIA, MAX_LENGTH, MAX_MASS
from ..errors import ModelError, ParseError
from ..spatial.rotations import rpy_to_matrix
from .safexml import XACRO_HINT, Element, line_breaks, xml_number

JOINT_KINDS = {"revolute": "revolute", "continuous": "continuous", "prismatic": "prismatic",
               "fixed": "fixed", "floating": "free", "planar": "planar"}
# attributes read, per element tag; anything else is reported as ignored
_ATTRS = {"robot": {"name"}, "link": {"name"}, "joint": {"name", "type"}, "origin": {"xyz", "rpy"},
          "mass": {"value"}, "inertia": {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"},
          "parent": {"link"}, "child": {"link"}, "axis": {"xyz"},
          "limit": {"lower", "upper", "effort", "velocity"}, "dynamics": {"damping", "friction"},
          "mimic": {"joint", "multiplier", "offset"}, "collision": {"name"}, "box": {"size"},
          "sphere": {"radius"}, "cylinder": {"radius", "length"}, "capsule": {"radius", "length"},
          "mesh": {"filename", "scale"}, "contact": set(), "lateral_friction": {"value"}, "restitution": {"value"}}
SHAPE_TAGS = ("box", "sphere", "cylinder", "capsule", "mesh")
# the numbers of each <visual> shape, read by the viewer: attribute -> count
_VISUAL_NUMBERS = {"box": {"size": 3}, "sphere": {"radius": 1}, "cylinder": {"radius": 1, "length": 1},
                   "capsule": {"radius": 1, "length": 1}, "mesh": {"scale": 3}}
_WHY = {"transmission": "transmissions are not modelled", "gazebo": "simulator settings",
        "material": "appearance", "sensor": "sensors are not modelled",
        "ros2_control": "controller settings", "safety_controller": "soft limits are not modelled",
        "calibration": "calibration is not modelled"}


class UrdfReader:
    """Turns the element tree into link and joint records, with a report of what it assumed."""

    def __init__(self, root, source, strict, repair, collisions=True):
        self.source, self.strict, self.repair = source, strict, repair
        self.read_collisions = collisions
        self.notes = []        # (kind, element, message, line)
        self.ignored = {}      # kind key -> [line, count, message]
        self.root = root

    def where(self, el):
        return f"{self.source}, line {el.line}"

    def error(self, el, msg, cls=ParseError):
        return cls(f"{self.where(el)}: {msg}")

    def note(self, kind, el, element, msg):
        if self.strict and kind in ("default", "ignored", "repaired", "plausibility"):
            raise self.error(el, f"{element}: {msg} (strict=True)")
        self.notes.append((kind, element, msg, el.line))

    def ignore(self, el, context, key=None, msg=None):
        key = key or f"<{el.tag}> in <{context}>"
        if key in self.ignored:
            self.ignored[key][1] += 1
            return
        msg = msg or _WHY.get(el.tag, "unknown element, not read")
        if self.strict:
            raise self.error(el, f"{key} ignored: {msg} (strict=True)")
        self.ignored[key] = [el.line, 1, msg]

    def blank_before_declaration(self, blank):
        """Note the blank (``blank``, bytes) skipped before the XML declaration (see
        :func:`artidyn.io.safexml.blank_before_declaration`)."""
        lines = line_breaks(blank)
        what = f"{lines} blank line(s)" if lines else f"{len(blank)} blank character(s)"
        self.note("ignored", Element("?xml", {}, lines + 1), "<?xml ...?>",
                  f"{what} before the XML declaration, skipped (XML wants the declaration first)")

    def check_attrs(self, el):
        for a in el.attrib:
            if a not in _ATTRS.get(el.tag, ()):
                self.ignore(el, "", key=f"attribute '{a}' of <{el.tag}>", msg="unknown attribute, not read")

    def floats(self, el, attr, n, default=None, what="", bound=None, unit=""):
        """``n`` finite floats from attribute ``attr`` of ``el`` (``default`` when absent), each at
        most ``bound`` in magnitude when given (the documented ranges of :mod:`artidyn.checks`)."""
        text = el.attrib.get(attr) if el is not None else None
        if text is None:
            if default is None:
                raise self.error(el, f"{what}<{el.tag}> has no '{attr}' attribute")
            return np.array(default, dtype=float)
        try:
            vals = [xml_number(t) for t in text.split()]
        except ValueError:
            bad = next(t for t in text.split() if _bad_number(t))
            if "${" in text or "$(" in text:
                raise self.error(el, f"{what}<{el.tag} {attr}=\"{text[:40]}\">: a xacro expression, not a number: "
                                     f"{XACRO_HINT}") from None
            raise self.error(el, f"{what}<{el.tag} {attr}=\"{text[:40]}\">: {bad!r} is not a number (plain decimal "
                                 f"or exponent notation, ASCII digits)") from None
        if len(vals) != n:
            raise self.error(el, f"{what}<{el.tag} {attr}=\"{text[:40]}\">: expected {n} number(s), got {len(vals)}")
        if not all(math.isfinite(v) for v in vals):
            raise self.error(el, f"{what}<{el.tag} {attr}=\"{text[:40]}\">: values must be finite")
        if bound is not None and any(abs(v) > bound for v in vals):
            raise self.error(el, f"{what}<{el.tag} {attr}=\"{text[:40]}\">: beyond the accepted range +/-{bound:g}"
                                 f"{unit} (artidyn.checks; larger values overflow the dynamics)", ModelError)
        return np.array(vals)

    def child(self, el, tag):
        found = [c for c in el.children if c.tag == tag]
        if len(found) > 1:
            raise self.error(found[1], f"<{el.tag} name='{el.attrib.get('name', '')}'> has more than one <{tag}>")
        return found[0] if found else None

    def origin(self, el, what):
        o = self.child(el, "origin")
        if o is None:
            return np.zeros(3), np.zeros(3)
        self.check_attrs(o)
        return (self.floats(o, "xyz", 3, (0, 0, 0), what, MAX_LENGTH, " m"),
                self.floats(o, "rpy", 3, (0, 0, 0), what, MAX_LENGTH, " rad"))

    def name(self, el, attr="name"):
        name = el.attrib.get(attr, "").strip()
        if not name:
            raise self.error(el, f"<{el.tag}> without a name" if attr == "name" else f"<{el.tag}> has no '{attr}'")
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
            raise self.error(el, f"<{el.tag} {attr}={name[:40]!r}>: a name with a control character (newline, tab ...)")
        return name

    # -- links ----------------------------------------------------------------------------
    def link(self, el):
        name = self.name(el)
        what = f"link '{name}': "
        rec = {"name": name, "el": el, "mass": 0.0, "com": np.zeros(3), "inertia": np.zeros((3, 3)),
               "meshes": [], "rotated": False, "collisions": []}
        self.check_attrs(el)
        inertial = self.child(el, "inertial")
        checking = []
        for c in el.children:
            if c.tag == "visual" or (c.tag == "collision" and not self.read_collisions):
                self.geometry(c, rec)
            elif c.tag == "collision":
                self.collision(c, rec)
            elif c.tag == "collision_checking" and self.read_collisions:
                checking.append(c)
            elif c.tag == "contact" and self.read_collisions:
                self.contact(c, rec)
            elif c.tag != "inertial":
                self.ignore(c, "link")
        for c in checking:
            self.collision_checking(c, rec)
        if inertial is not None:
            self.inertial(inertial, rec, what)
        elif name != "world":  # a link 'world' is the world frame
            self.note("default", el, f"link '{name}'", "no <inertial>: mass 0, zero inertia")
        return rec

    def inertial(self, el, rec, what):
        xyz, rpy = self.origin(el, what)
        m, I_el = self.child(el, "mass"), self.child(el, "inertia")
        if m is None or I_el is None:
            raise self.error(el, f"{what}<inertial> needs <mass> and <inertia>")
        for c in el.children:
            if c.tag not in ("origin", "mass", "inertia"):
                self.ignore(c, "inertial")
        self.check_attrs(m)
        self.check_attrs(I_el)
        mass = float(self.floats(m, "value", 1, what=what, bound=MAX_MASS, unit=" kg")[0])
        ixx, ixy, ixz, iyy, iyz, izz = (float(self.floats(I_el, k, 1, what=what, bound=MAX_INERTIA, unit=" kg m^2")[0])
                                        for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"))
        I_c = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        rotated = bool(np.any(rpy != 0))
        if rotated:
            R = rpy_to_matrix(rpy)
            I_c = R @ I_c @ R.T
        rec.update(mass=mass, com=xyz, inertia=I_c, rotated=rotated)
        self.physical(el, rec)

    def physical(self, el, rec):
        """Check a link's (mass, inertia at the com); raise, or repair and report."""
        where = f"{self.where(el)}: link '{rec['name']}'"
        if rec["mass"] < 0:
            raise ModelError(f"{where}: negative mass {rec['mass']:g}")
        try:
            check_inertia(where, rec["mass"], rec["com"], rec["inertia"])
            return
        except ModelError as exc:
            if not self.repair:
                raise ModelError(f"{exc}; fix the file, or load with repair=True to use the nearest "
                                 f"valid inertia (reported in model.load_report)") from None
            problem = str(exc)[len(where) + 2:]
        rec["inertia"] = repaired_inertia(rec["mass"], rec["inertia"])
        moments = ", ".join(f"{e:.6g}" for e in np.linalg.eigvalsh(rec["inertia"]))
        self.note("repaired", el, f"link '{rec['name']}'", f"{problem}; replaced by the nearest valid "
                                                             f"inertia, principal moments ({moments})")

    def geometry(self, el, rec):
        for c in el.children:
            if c.tag == "geometry":
                for g in c.children:
                    if el.tag == "visual":
                        self.visual_numbers(g, rec)
                    f = g.attrib.get("filename") if g.tag == "mesh" else None
                    if f and f not in rec["meshes"]:
                        rec["meshes"].append(f)
            elif c.tag != "origin":
                self.ignore(c, el.tag)
        if el.tag == "visual":
            self.ignore(el, "link", key="<visual> geometry",
                        msg="shapes, origins, scales not kept (mesh file names are in model.meshes)")
        else:
            self.ignore(el, "link", key="<collision> geometry", msg="not read (load_urdf(collisions=False))")

    def visual_numbers(self, g, rec):
        """Note the numbers of a ``<visual>`` shape that cannot be read (a 4-number mesh ``scale``
        ...): visuals do not enter the dynamics, so the model loads (urdfdom drops such a visual
        and pinocchio loads the model); the viewer skips that visual."""
        for attr, n in _VISUAL_NUMBERS.get(g.tag, {}).items():
            text = g.attrib.get(attr)
            if text is None:
                continue
            tokens = text.split()
            if len(tokens) != n or any(_bad_number(t) or not math.isfinite(float(t)) for t in tokens):
                self.note("ignored", g, f"link '{rec['name']}'",
                          f"<visual> <{g.tag} {attr}=\"{text[:40]}\">: expected {n} finite number(s); visuals "
                          f"are not used by the dynamics (the viewer skips this one)")

    def collision(self, el, rec):
        """``<collision name><origin/><geometry><box|sphere|cylinder|capsule|mesh/></geometry>``: a
        record ``{name, el, tag, xyz, rpy, size | radius, length | filename, scale}`` in
        ``rec["collisions"]`` (shapes and files are made by :mod:`.urdf`)."""
        what = f"link '{rec['name']}': "
        self.check_attrs(el)
        xyz, rpy = self.origin(el, what)
        geom = self.child(el, "geometry")
        for c in el.children:
            if c.tag not in ("origin", "geometry"):
                self.ignore(c, "collision")
        shapes = geom.children if geom is not None else []
        if len(shapes) > 1:
            raise self.error(shapes[1], f"{what}<geometry> holds more than one shape "
                                        f"(<{shapes[0].tag}>, <{shapes[1].tag}>)")
        if not shapes:
            self.note("ignored", el, f"link '{rec['name']}'", "<collision> without a shape in <geometry>: skipped")
            return
        g = shapes[0]
        if g.tag not in SHAPE_TAGS:
            self.note("ignored", g, f"link '{rec['name']}'", f"<collision> shape <{g.tag}> unknown "
                                                              f"(known: {', '.join(SHAPE_TAGS)}): skipped")
            return
        self.check_attrs(g)
        item = {"name": el.attrib.get("name", "").strip() or None, "el": g, "tag": g.tag, "xyz": xyz, "rpy": rpy}
        if g.tag == "box":
            item["size"] = self.floats(g, "size", 3, what=what, bound=MAX_LENGTH, unit=" m")
        elif g.tag == "sphere":
            item["radius"] = float(self.floats(g, "radius", 1, what=what, bound=MAX_LENGTH, unit=" m")[0])
        elif g.tag in ("cylinder", "capsule"):
            item["radius"] = float(self.floats(g, "radius", 1, what=what, bound=MAX_LENGTH, unit=" m")[0])
            item["length"] = float(self.floats(g, "length", 1, what=what, bound=MAX_LENGTH, unit=" m")[0])
        else:
            f = g.attrib.get("filename", "").strip()
            if not f:
                raise self.error(g, f"{what}<mesh> has no 'filename' attribute")
            item["filename"] = f
            item["scale"] = self.floats(g, "scale", 3, (1, 1, 1), what, MAX_LENGTH)
            if f not in rec["meshes"]:
                rec["meshes"].append(f)
        rec["collisions"].append(item)

    def contact(self, el, rec):
        """PyBullet's ``<contact><lateral_friction value/><restitution value/></contact>``: the
        friction and restitution of the link's collision shapes (``rec["friction"]``,
        ``rec["restitution"]``); its other children (rolling and spinning friction, stiffness ...)
        are noted and left aside."""
        what = f"link '{rec['name']}': <contact> "
        self.check_attrs(el)
        for c in el.children:
            if c.tag in ("lateral_friction", "restitution"):
                self.check_attrs(c)
                x = float(self.floats(c, "value", 1, what=what + f"<{c.tag}>")[0])
                if not (np.isfinite(x) and x >= 0 and (c.tag != "restitution" or x <= 1)):
                    raise self.error(c, f"{what}<{c.tag}> value must be >= 0{' and <= 1' if c.tag == 'restitution' else ''}, got {x}")
                rec["friction" if c.tag == "lateral_friction" else "restitution"] = x
            else:
                self.ignore(c, "contact", msg="not modelled (lateral_friction and restitution are read)")

    def collision_checking(self, el, rec):
        """pinocchio's ``<collision_checking>``: ``<capsule name="n"/>`` reads the cylinder collision
        'n' as a capsule of the same radius and length; ``<convex>`` is what meshes are anyway."""
        for c in el.children:
            name = c.attrib.get("name", "")
            if c.tag == "capsule":
                hits = [it for it in rec["collisions"] if it["name"] == name and it["tag"] == "cylinder"]
                if hits:
                    hits[0]["tag"] = "capsule"
                    self.notes.append(("info", f"link '{rec['name']}'", f"cylinder '{name}' read as a capsule "
                                       f"(<collision_checking>)", c.line))
                else:
                    self.note("ignored", c, f"link '{rec['name']}'",
                              f"<collision_checking><capsule name='{name}'>: no cylinder collision named "
                              f"'{name}' in this link")
            elif c.tag != "convex":  # meshes are always used as their convex hulls
                self.ignore(c, "collision_checking")

    # -- joints ---------------------------------------------------------------------------
    def joint(self, el):
        name = self.name(el)
        what = f"joint '{name}': "
        self.check_attrs(el)
        jtype = el.attrib.get("type")
        if jtype not in JOINT_KINDS:
            raise self.error(el, f"{what}unknown joint type {jtype!r} (known: {', '.join(JOINT_KINDS)})")
        rec = {"name": name, "el": el, "kind": JOINT_KINDS[jtype], "damping": 0.0, "coulomb": 0.0,
               "lower": None, "upper": None, "velocity": None, "effort": None, "axis": np.array([1.0, 0, 0])}
        for tag in ("parent", "child"):
            c = self.child(el, tag)
            if c is None or not c.attrib.get("link"):
                raise self.error(c or el, f"{what}no <{tag} link=...>")
            self.check_attrs(c)
            rec[tag] = self.name(c, "link")
        rec["xyz"], rec["rpy"] = self.origin(el, what)
        moving = rec["kind"] in ("revolute", "continuous", "prismatic", "planar")
        axis = self.axis(el, rec, what) if moving else None     # a fixed joint's axes: ignored below
        for c in el.children:
            if c.tag in ("parent", "child", "origin") or (c.tag == "axis" and moving):
                continue
            if c.tag == "limit" and moving and rec["kind"] != "planar":
                self.limit(c, rec, what)
            elif c.tag == "dynamics" and moving:
                self.check_attrs(c)
                rec["damping"] = float(self.floats(c, "damping", 1, (0,), what, MAX_INERTIA)[0])
                rec["coulomb"] = float(self.floats(c, "friction", 1, (0,), what, MAX_INERTIA)[0])
            elif c.tag == "mimic":
                self.mimic(c, rec, what)
            elif c.tag in ("axis", "limit", "dynamics"):
                self.ignore(c, f"joint type='{jtype}'", msg=f"not used by a {jtype} joint")
            else:
                self.ignore(c, "joint")
        if moving and (axis is None or "xyz" not in axis.attrib):
            self.note("default", el if axis is None else axis, f"joint '{name}'", "no <axis xyz>: URDF default (1, 0, 0)")
        if rec["kind"] in ("revolute", "prismatic") and self.child(el, "limit") is None:
            self.note("default", el, f"joint '{name}'", f"{jtype} joint without <limit>: no position, "
                                                         f"velocity or effort limits")
        return rec

    def axis(self, el, rec, what):
        """Read the joint's ``<axis xyz>`` into ``rec``; return the element (None when absent).

        The same axis written twice (a copy-paste slip) is read once, with a note, as urdfdom
        reads only the first; different axes stay an error: which one was meant is unknown."""
        found = [c for c in el.children if c.tag == "axis"]
        if not found:
            return None
        values = []
        for c in found:
            self.check_attrs(c)
            values.append(self.floats(c, "xyz", 3, (1, 0, 0), what, MAX_LENGTH))
        if any(not np.array_equal(x, values[0]) for x in values[1:]):
            raise self.error(found[1], f"<{el.tag} name='{rec['name']}'> has more than one <axis>, and they "
                                       f"differ ({values[0].tolist()} at line {found[0].line}, "
                                       f"{values[1].tolist()}): keep the one that is meant")
        if len(found) > 1:
            self.note("ignored", found[1], f"joint '{rec['name']}'",
                      f"<axis> repeated {len(found)} times with the same xyz {values[0].tolist()}: read once")
        rec["axis"] = values[0]
        return found[0]

    def mimic(self, el, rec, what):
        """``<mimic joint multiplier offset>``: q = multiplier q_joint + offset (defaults 1, 0)."""
        if "mimic" in rec:
            raise self.error(el, f"{what}more than one <mimic>")
        self.check_attrs(el)
        other = el.attrib.get("joint", "").strip()
        if not other:
            raise self.error(el, f"{what}<mimic> has no 'joint' attribute")
        r = float(self.floats(el, "multiplier", 1, (1.0,), what)[0])
        o = float(self.floats(el, "offset", 1, (0.0,), what)[0])
        rec["mimic"] = {"el": el, "joint": other, "multiplier": r, "offset": o}  # see urdf._mimic_specs

    def limit(self, el, rec, what):
        self.check_attrs(el)
        jname = rec["name"]
        for key in ("velocity", "effort"):
            if key in el.attrib:
                rec[key] = float(self.floats(el, key, 1, what=what)[0])
                if rec[key] < 0:
                    raise self.error(el, f"{what}<limit {key}=\"{el.attrib[key]}\">: must be >= 0")
            else:
                self.note("default", el, f"joint '{jname}'", f"<limit> without '{key}': no {key} limit")
        for key in ("lower", "upper"):
            if rec["kind"] == "continuous":
                if key in el.attrib:
                    self.ignore(el, "", key=f"'{key}' of a continuous joint's <limit>", msg="continuous joints are unbounded")
            elif key in el.attrib:
                rec[key] = float(self.floats(el, key, 1, what=what)[0])
            else:
                rec[key] = 0.0
                self.note("default", el, f"joint '{jname}'", f"<limit> without '{key}': URDF default 0")
        if rec["lower"] is not None and rec["upper"] is not None and rec["lower"] > rec["upper"]:
            given = f"<limit lower=\"{rec['lower']:g}\" upper=\"{rec['upper']:g}\">"
            self.note("ignored", el, f"joint '{jname}'", f"{given}: lower > upper, read as no position limit (a "
                      f"common way to write 'no limit'; the velocity and effort limits are kept)")
            rec["lower"] = rec["upper"] = None
        if rec["kind"] == "revolute" and looks_like_degrees(rec["lower"], rec["upper"]):
            self.note("plausibility", el, f"joint '{jname}'", f"revolute limits {rec['lower']:g} .. {rec['upper']:g} "
                      f"rad look like degrees (URDF angles are radians; {DEGREE_HINT})")

    # -- the tree -------------------------------------------------------------------------
    def read(self):
        root = self.root
        if root.tag != "robot":
            hint = " (an MJCF file? URDF files start with <robot>)" if root.tag == "mujoco" else ""
            raise self.error(root, f"the root element is <{root.tag}>, expected <robot>{hint}")
        self.check_attrs(root)
        name = root.attrib.get("name", "").strip()
        if name:
            name = self.name(root)   # refuses control characters
        else:
            name = pathlib.Path(self.source).stem if self.source != "<string>" else "robot"
            self.note("default", root, "robot", f"<robot> without a name: named '{name}'")
        links, joints = {}, {}
        for c in root.children:
            if c.tag in ("link", "joint"):
                rec = self.link(c) if c.tag == "link" else self.joint(c)
                table = links if c.tag == "link" else joints
                if rec["name"] in table:
                    first = table[rec["name"]]["el"].line
                    raise self.error(c, f"duplicate {c.tag} name '{rec['name']}' (first defined at line {first})", ModelError)
                table[rec["name"]] = rec
            else:
                self.ignore(c, "robot")
        if not links:
            raise self.error(root, f"robot '{name}' has no <link>: nothing to build")
        return name, links, joints

    def tree(self, links, joints):
        """(root link, links in depth-first order, parent joint of each link)."""
        parent_joint = {}
        children = {n: [] for n in links}
        for j in joints.values():
            for tag in ("parent", "child"):
                if j[tag] not in links:
                    raise self.error(j["el"], f"joint '{j['name']}': {tag} link '{j[tag]}' does not exist", ModelError)
            if j["parent"] == j["child"]:
                raise self.error(j["el"], f"joint '{j['name']}' connects link '{j['parent']}' to itself", ModelError)
            if j["child"] in parent_joint:
                other = parent_joint[j["child"]]["name"]
                raise self.error(j["el"], f"link '{j['child']}' has two parent joints, '{other}' and "
                                          f"'{j['name']}' (a URDF is a tree; closed loops are not allowed)", ModelError)
            parent_joint[j["child"]] = j
            children[j["parent"]].append(j["child"])
        roots = [n for n in links if n not in parent_joint]
        if len(roots) > 1:
            raise self.error(links[roots[1]]["el"], f"several root links (links without a parent joint): "
                                                    f"{', '.join(repr(r) for r in roots[:10])}; a URDF has one", ModelError)
        order, stack = [], list(roots)
        while stack:
            n = stack.pop()
            order.append(n)
            stack.extend(reversed(children[n]))
        if len(order) < len(links):
            start = next(n for n in links if n not in set(order))
            cycle, n = [], start
            while n not in cycle:
                cycle.append(n)
                n = parent_joint[n]["parent"]
            cycle = cycle[cycle.index(n):]
            raise self.error(links[n]["el"], "kinematic cycle through links " + " -> ".join(
                repr(c) for c in cycle[::-1] + [cycle[-1]]), ModelError)
        return roots[0], order, parent_joint

    def finish(self, builder):
        for kind, element, msg, line in self.notes:
            builder.report.add(kind, element, msg, line)
        for key, (line, count, msg) in self.ignored.items():
            builder.report.add("ignored", key, f"{msg} ({count} element{'s' if count > 1 else ''})", line)


ANGLE_LIMIT_SUSPECT = (4 * math.pi, 1000.0)   # |revolute limit| in this range: degrees typed as radians?
DEGREE_HINT = "radians = degrees * pi / 180"


def looks_like_degrees(*angles):
    """True when a revolute limit lies in ANGLE_LIMIT_SUSPECT (above two turns, below a "no limit"
    sentinel such as 1e16): -170 .. 170 is degrees; real robots go up to about +/-10 rad."""
    lo, hi = ANGLE_LIMIT_SUSPECT
    return any(a is not None and lo < abs(a) <= hi for a in angles)


def repaired_inertia(mass, I):
    """The nearest physically valid rotational inertia (3x3, at the com) to ``I``.

    Zero mass: zero inertia. Otherwise, in the principal axes of ``I``: negative moments are
    set to 0, then if the largest moment c exceeds a + b, a and b are raised by (c - a - b) / 2
    each (the triangle inequality becomes an equality, as for a flat plate). Axes are kept.
    """
    if mass == 0:
        return np.zeros((3, 3))
    lam, V = np.linalg.eigh(0.5 * (I + I.T))
    a, b, c = np.clip(lam, 0.0, None)
    d = max(0.0, (c - a - b) / 2)
    return (V * np.array([a + d, b + d, c])) @ V.T


def _bad_number(token):
    try:
        xml_number(token)
        return False
    except ValueError:
        return True

