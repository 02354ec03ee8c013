"""``<compiler>`` and ``<option>`` (with its ``<flag>``): the settings that change the model.

MuJoCo XML reference, "compiler", "option" and "option/flag". What artidyn reads:

- ``<compiler>``: ``angle``, ``eulerseq``, ``autolimits``, ``inertiafromgeom``,
  ``inertiagrouprange``, ``meshdir`` / ``assetdir``, ``strippath``, ``settotalmass`` (masses and
  inertias scaled, as MuJoCo does); ``boundmass``, ``boundinertia``, ``balanceinertia`` and
  ``alignfree`` rewrite inertias or frames and are refused; ``coordinate`` must be ``local``.
- ``<option gravity>``; ``density``, ``viscosity`` (fluid forces, with ``wind``) are not modelled:
  a warning when they would act.
- ``<flag>``: ``gravity="disable"`` (gravity zero), ``spring`` / ``damper`` (joint stiffness /
  damping zero; ``passive``, MuJoCo 2's flag for both, is read too), ``frictionloss`` (no joint
  friction), ``limit`` (no joint limits), ``equality`` (no loop constraints), ``contact`` (no
  collision shapes), ``constraint`` (all four). ``filterparent="disable"`` (contacts between a
  parent and its child) is not modelled: a warning. The others set the simulator (solver,
  integrator, sensors, actuation, energy): a note.
"""
import numpy as np

FLAG_DEFAULT = {f: "enable" for f in ("constraint equality frictionloss limit contact spring damper gravity "
                                      "clampctrl warmstart filterparent actuation refsafe sensor midphase "
                                      "eulerdamp autoreset nativeccd island multiccd passive").split()}
FLAG_DEFAULT.update({f: "disable" for f in
                     "override energy fwdinv invdiscrete sleep diagexact ipc speculative".split()})
HONOURED = {"gravity": "gravity is zero", "spring": "no joint springs (stiffness 0)",
            "damper": "no joint damping", "passive": "no joint springs nor damping (MuJoCo 2's flag for spring "
                                                     "and damper)",
            "frictionloss": "no joint friction (frictionloss, artidyn's coulomb)", "limit": "no joint limits",
            "equality": "no loop constraints from <equality>", "contact": "no collision shapes",
            "constraint": "no joint limits, friction, loop constraints nor collision shapes"}


class Settings:
    """The compiler and option settings of one MJCF file (MuJoCo's defaults until read)."""

    def __init__(self):
        self.autolimits, self.inertiafromgeom = True, "auto"
        self.groups = (0, 5)            # inertiagrouprange
        self.settotalmass = -1.0
        self.strippath = False
        self.meshdir = None
        self.gravity = np.array([0.0, 0.0, -9.81])
        self.fluid = False              # density or viscosity set
        self.disabled = set()           # flags set to "disable" among HONOURED

    def off(self, *what):
        """True when one of the named features is disabled (``constraint`` covers the four kinds of
        constraint, ``passive`` both springs and dampers)."""
        cover = {"limit": "constraint", "equality": "constraint", "frictionloss": "constraint",
                 "contact": "constraint", "spring": "passive", "damper": "passive"}
        return any(w in self.disabled or cover.get(w) in self.disabled for w in what)

    @property
    def no_passive(self):
        """Springs and dampers both off: MuJoCo then turns every passive force off (gravity
        compensation and fluid forces too; MuJoCo XML reference, option/flag/spring)."""
        return self.off("spring") and self.off("damper")


def read_compiler(r, s, el):
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
    s.autolimits = r.flag(el, a, "autolimits", "true" if s.autolimits else "false", ("true", "false")) == "true"
    s.inertiafromgeom = r.flag(el, a, "inertiafromgeom", s.inertiafromgeom)
    s.strippath = r.flag(el, a, "strippath", "true" if s.strippath else "false", ("true", "false")) == "true"
    if "inertiagrouprange" in a:
        lo, hi = r.numbers(el, a, "inertiagrouprange", 2)
        s.groups = (int(lo), int(hi))
    if "settotalmass" in a:
        s.settotalmass = r.number(el, a, "settotalmass")
    d = a.get("meshdir", a.get("assetdir"))
    if d is not None:
        s.meshdir = r.base_dir / d
    if a.get("coordinate", "local") != "local":
        raise r.error(el, "only local coordinates are supported (MuJoCo removed 'global')", "coordinate")
    for key in ("alignfree", "balanceinertia"):
        if a.get(key) == "true":
            raise r.error(el, f"{key}='true' changes the bodies' frames or inertias; not supported", key)
    for key in ("boundmass", "boundinertia"):
        if key in a and r.number(el, a, key) > 0:
            raise r.error(el, f"{key} rewrites the inertias; not supported", key)


def read_option(r, s, el):
    a = el.attrib
    if "gravity" in a:
        s.gravity = r.numbers(el, a, "gravity", 3)
    s.fluid = s.fluid or any(r.number(el, a, k) != 0 for k in ("density", "viscosity"))
    for c in el.children:
        if c.tag == "flag":
            _read_flags(r, s, c)


def _read_flags(r, s, el):
    quiet = []
    for key, value in el.attrib.items():
        if key not in FLAG_DEFAULT:
            continue                                    # unknown: reported by the schema check
        if value not in ("enable", "disable"):
            raise r.error(el, f"expected enable or disable, got {value!r}", key)
        if value == FLAG_DEFAULT[key]:
            continue
        if key in HONOURED:
            s.disabled.add(key)
            r.note("info", el, f"{key}='disable': {HONOURED[key]}", element=f"<flag {key}>")
        elif key == "filterparent":
            r.not_modelled(el, "contacts between a body and its parent are not modelled (MuJoCo: "
                               "filterparent='disable'); artidyn's collision filtering is its own", key)
        else:
            quiet.append(f"{key}='{value}'")
    if quiet:
        r.note("ignored", el, f"{', '.join(quiet)}: simulator settings, not read", element="<flag>")


def finish_options(r, s, root_el):
    """Warnings for what the options turn on and artidyn does not model (fluid forces)."""
    if s.fluid and not s.no_passive:
        opt = next(c for c in root_el.children if c.tag == "option" and
                   any(r.number(c, c.attrib, k) != 0 for k in ("density", "viscosity")))
        r.not_modelled(opt, "fluid forces (density, viscosity, wind) are not modelled")


def gravity(s):
    """The model's gravity vector: ``<option gravity>``, zero when the gravity flag is disabled."""
    return (0.0, 0.0, 0.0) if s.off("gravity") else tuple(float(g) for g in s.gravity)
