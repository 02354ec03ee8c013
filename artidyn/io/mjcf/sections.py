"""The MJCF sections beside the bodies: ``<equality>`` (connect and weld as loop constraints, a
linear joint equality as a coupling), ``<contact>`` (``<exclude body1 body2>``: the body pair in
``model.collision_exclusions``; ``<pair>``: not modelled), ``<tendon>``, ``<deformable>``, and
those the model does not hold (actuators: :func:`artidyn.io.mjcf.actuation`; sensors ...).

MuJoCo XML reference, "equality", "tendon", "deformable". What changes a MuJoCo model's motion and
is not modelled gets a warning (``strict=True`` refuses it): the equality constraints other than
``connect``, ``weld`` and linear ``joint`` ones (a nonlinear ``polycoef``, a joint held at a value
without ``joint2``, ``tendon``, ``flex`` ...), tendon springs, dampers,
friction, armature and limits, deformable flexes. Tendons that do none of that only route
actuators: a note.
"""
import numpy as np

from ...errors import ModelError
from ...model import ConstraintSpec
from ...spatial.motion import homogeneous, inv_homogeneous

NOT_READ = "not read (artidyn reads the bodies, joints, inertias, geoms, sites and equality loops)"
ACTUATORS_NOTE = "not part of the model: artidyn.io.mjcf.actuation(file, model) reads them (a ctrl -> torque map)"


def read_sections(r, s, builder, root, world_T):
    """Loop constraints from ``<equality>``; warnings and notes for the other sections."""
    for el in root.children:
        if el.tag == "equality":
            _equalities(r, s, builder, el, world_T)
        elif el.tag == "tendon":
            _tendons(r, s, el)
        elif el.tag == "contact":
            _contact(r, s, builder, el)
        elif el.tag == "deformable":
            for c in el.children:
                if c.tag == "flex":
                    r.not_modelled(c, "deformable flexes are not modelled")
        elif el.tag == "actuator":
            r.note("ignored", el, ACTUATORS_NOTE)
        elif el.tag in ("sensor", "keyframe"):
            r.note("ignored", el, NOT_READ)


# --- contact filters ------------------------------------------------------------------------------
def _contact(r, s, builder, el):
    """``<exclude>``: the two bodies' shapes never collide; ``<pair>``: not modelled (MuJoCo tests
    that geom pair whatever the filters, with its own contact parameters)."""
    for c in el.children:
        if c.tag == "exclude":
            a = c.attrib
            for key in ("body1", "body2"):
                if key not in a:
                    raise r.error(c, "needs body1 and body2", key)
            if s.off("contact"):
                continue
            try:
                builder.exclude_collision(a["body1"], a["body2"])
            except ModelError as exc:   # an unknown body name, naming the known ones
                raise r.error(c, str(exc), "body1") from None
        elif c.tag == "pair":
            if not s.off("contact"):
                r.not_modelled(c, "explicit contact pairs are not modelled (artidyn forms its pairs from the bodies, "
                                  "the contype/conaffinity masks and the exclusions)")


# --- tendons --------------------------------------------------------------------------------------
def _tendons(r, s, el):
    r.note("ignored", el, "not read: tendons route actuators, which artidyn does not read")
    for c in el.children:
        if c.tag in ("fixed", "spatial"):
            acts = _tendon_effects(r, s, c, r.resolved(c, "main", kind="tendon"))
            if acts:
                r.not_modelled(c, f"tendon {', '.join(acts)} not modelled")


def _tendon_effects(r, s, c, a):
    """What a tendon does to the motion in MuJoCo, given the flags."""
    out = []
    for key, what, flag in (("stiffness", "spring", "spring"), ("damping", "damping", "damper"),
                            ("frictionloss", "friction", "frictionloss"), ("armature", "armature", None)):
        if r.number(c, a, key) != 0 and not (flag and s.off(flag)):
            out.append(what)
    limited = r.flag(c, a, "limited", "auto")
    if (limited == "true" or (limited == "auto" and s.autolimits and "range" in a)) and not s.off("limit"):
        out.append("limits")
    return out


# --- equality constraints -------------------------------------------------------------------------
def _equalities(r, s, builder, el, world_T):
    """ConstraintSpec of each active <connect>, <weld> and linear <joint> (frames added on the bodies)."""
    for k, c in enumerate(el.children, start=1):
        a = r.resolved(c, "main", kind="equality")
        if a.get("active", "true") == "false":
            r.note("ignored", c, "inactive", element=f"equality <{c.tag}>")
        elif s.off("equality"):
            r.note("ignored", c, "equality constraints disabled (<flag equality='disable'>)",
                   element=f"equality <{c.tag}>")
        elif c.tag == "joint":
            _joint_equality(r, builder, c, a, k)
        elif c.tag not in ("connect", "weld"):
            r.not_modelled(c, f"equality <{c.tag}> is not modelled (connect, weld and linear joint equalities are "
                              f"constraints)")
        elif "site1" in a or "site2" in a:    # the two site frames coincide (connect: their origins)
            _site_equality(r, builder, c, a, k)
        else:
            _body_equality(r, builder, c, a, k, world_T)


def _site_equality(r, builder, c, a, k):
    frames = []
    for key in ("site1", "site2"):
        if a.get(key) not in r.site_frames:
            raise r.error(c, f"unknown site {a.get(key)!r} (known: {', '.join(r.site_frames) or 'none'})", key)
        frames.append(r.site_frames[a[key]])
    builder.constraint_specs.append(ConstraintSpec("point" if c.tag == "connect" else "weld",
                                                   name=a.get("name") or f"{c.tag}{k}", frame_a=frames[0],
                                                   frame_b=frames[1], where=f"{r.where(c)}: <{c.tag}>"))


def _body_equality(r, builder, c, a, k, world_T):
    b1, b2 = a.get("body1"), a.get("body2")
    if not b1:
        raise r.error(c, "missing body1", "body1")
    for key, body in (("body1", b1), ("body2", b2)):
        if body and body not in world_T:
            raise r.error(c, f"unknown body {body!r}", key)
    tag = a.get("name") or f"{c.tag}{k}"
    W2 = world_T[b2] if b2 else np.eye(4)
    anchor = homogeneous(np.eye(3), r.numbers(c, a, "anchor", 3, default=(0.0, 0.0, 0.0)))
    if c.tag == "connect":          # the anchor is on body1; body2's point is where it is at the reference
        W = world_T[b1] @ anchor
    else:                           # the anchor is on body2 (MuJoCo's weld point)
        rel = r.numbers(c, a, "relpose", 7, default=(0, 1, 0, 0, 0, 0, 0))
        if np.any(rel[3:]):
            raise r.error(c, "an explicit relpose is not supported (the default, the pose at the reference "
                             "configuration, is)", "relpose")
        W = W2 @ anchor
    fa = builder.add_frame(f"{tag}_a", b1, inv_homogeneous(world_T[b1]) @ W, kind="op")
    if b2 and b2 != "world":
        fb, target = builder.add_frame(f"{tag}_b", b2, inv_homogeneous(W2) @ W, kind="op"), None
    else:
        fb = None
        target = tuple(map(float, W[:3, 3])) if c.tag == "connect" else tuple(tuple(map(float, row)) for row in W)
    builder.constraint_specs.append(ConstraintSpec("point" if c.tag == "connect" else "weld", name=tag,
                                                   frame_a=fa, frame_b=fb, target=target,
                                                   where=f"{r.where(c)}: <{c.tag}>"))


def _joint_equality(r, builder, c, a, k):
    """A ``<joint>`` equality as a Coupling ``q1 = c0 + c1 q2`` where its polynomial is linear.

    MuJoCo XML reference, equality/joint: ``y - y0 = a0 + a1 (x - x0) + ... + a4 (x - x0)^4`` with
    y0, x0 the joints' values in the model's initial configuration (qpos0, which is ``ref`` for
    a hinge or slide). artidyn's q is ``qpos - ref``, so the refs cancel: ``q1 = a0 + a1 q2``.
    """
    j1, j2 = a.get("joint1"), a.get("joint2")
    if not j1:
        raise r.error(c, "missing joint1", "joint1")
    coef = r.numbers(c, a, "polycoef", 5, default=(0.0, 1.0, 0.0, 0.0, 0.0))
    if not j2:
        r.not_modelled(c, f"equality <joint> holding joint '{j1}' at {coef[0]:g} from its reference (no joint2) is "
                          f"not modelled (declared constraints relate two joints)", "joint2")
    elif np.any(coef[2:] != 0):
        r.not_modelled(c, f"a nonlinear joint equality (polycoef {' '.join(f'{x:g}' for x in coef)}) is not "
                          f"modelled (a coupling is linear: polycoef a0 a1 0 0 0)", "polycoef")
    else:
        builder.constraint_specs.append(ConstraintSpec("coupling", name=a.get("name") or f"joint{k}", joint_a=j1,
                                                       joint_b=j2, ratio=float(coef[1]), offset=float(coef[0]),
                                                       where=f"{r.where(c)}: <joint>"))
