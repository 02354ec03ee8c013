"""What the MJCF reader knows of each element: the attributes it reads, the attributes it knows
and leaves aside on purpose, and the child elements it expects (MuJoCo XML reference, and the
schema MuJoCo 4 prints with ``mujoco.mj_printSchema``).

An attribute or element outside these lists does not exist in MJCF: MuJoCo refuses the file
("Schema violation: unrecognized attribute"). artidyn reads the file without it, with a
load-report note and an :class:`~artidyn.io.mjcf.UnknownAttributeWarning` that names the closest
known name (``armture`` -> ``armature``); ``strict=True`` refuses it.

Left aside on purpose: appearance (``rgba``, ``material``, ``group``, cameras, lights,
textures), contact and constraint-solver parameters (``solref``, ``solimp``,
``margin``, ``condim`` ...; a geom's ``friction`` is read: its first number, the sliding friction), actuator-side joint settings (``actuatorfrcrange`` ...), user data
and compiler settings that change no mass, inertia or joint. Elements whose contents artidyn does
not read at all (``<actuator>``, ``<sensor>``, ``<visual>`` ...) are not checked below their own
name.
"""

_POSE = "pos quat axisangle euler xyaxes zaxis"
_LOOK = "group rgba material user"
_CONSTRAINT = "solreflimit solimplimit solreffriction solimpfriction margin"
_ACTUATOR_SIDE = "actuatorfrclimited actuatorfrcrange actuatorgravcomp"
_CONTACT = "condim priority friction solmix solref solimp margin gap adhesion surfacevel"

# element key: (attributes read, attributes known and left aside on purpose)
ATTRIBUTES = {
    "mujoco": ("model", ""),
    "include": ("file", ""),
    "compiler": ("angle eulerseq autolimits inertiafromgeom inertiagrouprange meshdir assetdir settotalmass "
                 "coordinate alignfree balanceinertia boundmass boundinertia strippath",
                 "fusestatic discardvisual texturedir usethread fitaabb saveinertial conflict passthrough "
                 "savecanonical savecompiled"),
    "option": ("gravity density viscosity wind",
               "timestep impratio tolerance ls_tolerance noslip_tolerance ccd_tolerance sleep_tolerance magnetic "
               "o_margin o_solref o_solimp o_friction integrator cone jacobian solver iterations ls_iterations "
               "noslip_iterations ccd_iterations sdf_iterations sdf_initpoints actuatorgroupdisable"),
    "flag": ("constraint equality frictionloss limit contact spring damper gravity filterparent passive",
             "clampctrl warmstart actuation refsafe sensor midphase eulerdamp autoreset nativeccd island multiccd "
             "override energy fwdinv invdiscrete sleep diagexact ipc speculative"),
    "default": ("class", ""),
    "worldbody": ("", ""),
    "body": (f"name childclass mocap gravcomp {_POSE}", "sleep simple fuse user"),
    "frame": (f"name childclass {_POSE}", ""),
    "inertial": (f"mass diaginertia fullinertia {_POSE}", ""),
    "joint": ("name class type pos axis springdamper limited stiffness range ref springref armature damping "
              "frictionloss springyield", f"{_LOOK} {_CONSTRAINT} {_ACTUATOR_SIDE}"),
    "freejoint": ("name align", "group"),
    "geom": (f"name class type contype conaffinity friction size mass density shellinertia fromto mesh hfield {_POSE}",
             f"{_LOOK} {_CONTACT.replace(' friction', '')} castshadow fitscale fluidshape fluidcoef"),
    "site": (f"name class type size fromto {_POSE}", f"{_LOOK} mesh"),
    "asset/mesh": ("name class file vertex face scale inertia refpos refquat builtin params",
                   "normal texcoord smoothnormal maxhullvert material content_type"),
    "equality/connect": ("name class active body1 body2 anchor site1 site2", "solref solimp"),
    "equality/weld": ("name class active body1 body2 anchor site1 site2 relpose", "solref solimp torquescale"),
    "equality/joint": ("name class active joint1 joint2 polycoef", "solref solimp"),
    "tendon/fixed": ("name class limited range stiffness damping frictionloss armature springlength springyield",
                     f"{_LOOK} {_CONSTRAINT} {_ACTUATOR_SIDE}"),
    "tendon/spatial": ("name class limited range stiffness damping frictionloss armature springlength springyield",
                       f"{_LOOK} {_CONSTRAINT} {_ACTUATOR_SIDE} width"),
}
# defaults hold an element's attributes but its name and class (<default><tendon> serves both tendon kinds)
for _tag, _key in (("joint", "joint"), ("geom", "geom"), ("site", "site"), ("mesh", "asset/mesh"),
                   ("tendon", "tendon/spatial")):
    ATTRIBUTES[f"default/{_tag}"] = tuple(" ".join(w for w in s.split() if w not in ("name", "class"))
                                          for s in ATTRIBUTES[_key])
ATTRIBUTES["default/equality"] = ("active", "solref solimp")
ATTRIBUTES["contact/exclude"] = ("name body1 body2", "")
ATTRIBUTES["contact/pair"] = ("name class geom1 geom2", "condim friction solref solreffriction solimp gap margin adhesion")

_ACTUATORS = "general motor position velocity intvelocity orientation pid damper cylinder muscle adhesion dcmotor"
_BODY_CHILDREN = ("body frame replicate joint freejoint geom site inertial camera light plugin attach composite "
                  "flexcomp include")
CHILDREN = {
    "mujoco": "compiler option size statistic visual default extension custom asset worldbody contact "
              "deformable equality tendon actuator sensor keyframe include",
    "option": "flag include",
    "compiler": "lengthrange include",
    "default": f"default mesh texture material joint geom site camera light pair equality tendon {_ACTUATORS} include",
    "asset": "mesh hfield skin texture material model include",
    "worldbody": _BODY_CHILDREN,
    "body": _BODY_CHILDREN,
    "frame": _BODY_CHILDREN,
    "equality": "connect weld joint tendon flex flexvert flexstrain include",
    "tendon": "fixed spatial include",
    "contact": "pair exclude include",
}
CHILDREN = {k: frozenset(v.split()) for k, v in CHILDREN.items()}
KNOWN = {k: frozenset(read.split()) | frozenset(aside.split()) for k, (read, aside) in ATTRIBUTES.items()}


def child_key(parent_key, tag):
    """The schema key of a ``tag`` element inside an element of key ``parent_key``."""
    if parent_key in ("default", "asset", "equality", "tendon", "contact"):
        return f"{parent_key}/{tag}"
    return tag


def check_tree(r, el, key="mujoco"):
    """Report (``r.unknown``) every attribute and element of ``el``'s tree that MJCF does not have,
    down the elements artidyn reads (``CHILDREN``); the others are not checked below their name."""
    known = KNOWN.get(key)
    if known is not None:
        for attr in el.attrib:
            if attr not in known:
                r.unknown(el, attr, known)
    allowed = CHILDREN.get(key)
    if allowed is None:
        return
    for c in el.children:
        if c.tag not in allowed:
            r.unknown(c, None, allowed)
        else:
            check_tree(r, c, child_key(key, c.tag))
