"""MJCF actuators as an actuation map: MuJoCo's ``ctrl`` vector -> artidyn's generalized forces.

MuJoCo XML reference, "actuator", and MuJoCo's documentation, "Computation / Actuation model":
an actuator's force is ``gain * ctrl + bias0 + bias1 * length + bias2 * velocity`` (a fixed gain,
an affine bias), clamped to ``forcerange``; a joint transmission has ``length = gear * qpos`` and
``velocity = gear * qvel``, and applies ``gear * force`` to its joint. ``ctrl`` is first clamped to
``ctrlrange``. The shortcuts set the gain and bias (MuJoCo XML reference, actuator/motor,
position, velocity):

- ``<motor>``: gain 1, no bias: ``qfrc = gear * ctrl``;
- ``<position kp kv>``: ``force = kp (ctrl - gear qpos) - kv gear qvel``;
- ``<velocity kv>``: ``force = kv (ctrl - gear qvel)``;
- ``<general>`` with ``gaintype="fixed"``, ``biastype="none|affine"`` and ``dyntype="none"``.

The model holds no actuators (artidyn's ``tau`` is a generalized force), so :func:`actuation`
reads the file's ``<actuator>`` section beside the model. artidyn's q is ``qpos - ref``, so the
servo's length is ``gear (q + ref)``: a position servo drives ``qpos`` (not q) to ``ctrl / gear``.

Not modelled (a :class:`~artidyn.io.mjcf.NotModelledWarning`, ``strict=True`` refuses it; the
actuator keeps its place in ``ctrl`` and applies nothing): transmissions other than a hinge or
slide joint (tendon, site, body, slider-crank, ball and free joints), activation dynamics
(``dyntype``, ``intvelocity``, ``cylinder``, ``muscle``), other gain and bias types
(``damper``, ``adhesion``, ...), ``dampratio`` and ``inheritrange`` of a position servo, joint
``actuatorgravcomp``.
"""
from __future__ import annotations

import pathlib
import warnings
from dataclasses import dataclass

import numpy as np

from ...errors import ModelError, ParseError
from ..safexml import parse_xml, read_source
from .bodies import collect_bodies
from .include import expand_includes
from .joints import JOINT_KINDS
from .reader import Reader

SHORTCUTS = ("general", "motor", "position", "velocity")
OTHER_KINDS = ("intvelocity", "damper", "cylinder", "muscle", "adhesion", "plugin", "dcmotor", "pid", "orientation")


@dataclass(frozen=True)
class Actuator:
    """One MuJoCo actuator on a hinge or slide joint, as MuJoCo compiles it.

    ``dof`` / ``qi``: the joint's index in artidyn's v and q (None: applies nothing, not
    modelled); ``ref``: the joint's ``ref`` (MuJoCo's qpos = q + ref); ``gain``, ``bias``:
    gainprm[0] and biasprm[0:3]; ``ctrlrange`` / ``forcerange``: None when not limited.
    """

    name: str
    kind: str
    joint: str | None
    dof: int | None
    qi: int | None
    gear: float
    ref: float
    gain: float
    bias: tuple
    ctrlrange: tuple | None
    forcerange: tuple | None


class Actuation:
    """MuJoCo's ctrl -> generalized force map of an MJCF file's actuators (see the module docstring).

    ``names`` (nu,): the actuators in MuJoCo's order (unnamed: ``actuator<k>``); ``B`` (nv, nu):
    ``gear * gain`` on each actuator's dof, the part of the force linear in ctrl (before clamping);
    ``tau(ctrl, q, v)``: the generalized force MuJoCo applies (``qfrc_actuator``);
    ``controller(ctrl)``: a function ``tau(t, q, v)`` for :func:`artidyn.simulate`.
    """

    def __init__(self, model, actuators, joint_ranges=None, clampctrl=True, enabled=True):
        self.model, self.actuators = model, tuple(actuators)
        self.names = [a.name for a in self.actuators]
        self.joint_ranges = dict(joint_ranges or {})    # dof -> (lo, hi): joint actuatorfrcrange
        self.clampctrl, self.enabled = clampctrl, enabled
        self.nu, self.nv = len(self.actuators), model.nv
        self.B = np.zeros((self.nv, self.nu))
        for k, a in enumerate(self.actuators):
            if a.dof is not None and enabled:
                self.B[a.dof, k] = a.gear * a.gain

    def __repr__(self):
        return f"Actuation({self.nu} actuators: {', '.join(self.names)})"

    def force(self, ctrl, q, v):
        """Each actuator's force (..., nu), MuJoCo's ``actuator_force``: ``ctrl`` clamped to
        ``ctrlrange``, ``gain ctrl + bias0 + bias1 length + bias2 velocity`` clamped to ``forcerange``."""
        ctrl, q, v = self._inputs(ctrl, q, v)
        out = np.zeros(np.broadcast_shapes(ctrl.shape[:-1], q.shape[:-1], v.shape[:-1]) + (self.nu,))
        for k, a in enumerate(self.actuators):
            if a.dof is None or not self.enabled:
                continue
            u = ctrl[..., k]
            if a.ctrlrange is not None and self.clampctrl:
                u = np.clip(u, *a.ctrlrange)
            length, velocity = a.gear * (q[..., a.qi] + a.ref), a.gear * v[..., a.dof]
            f = a.gain * u + a.bias[0] + a.bias[1] * length + a.bias[2] * velocity
            out[..., k] = f if a.forcerange is None else np.clip(f, *a.forcerange)
        return out

    def tau(self, ctrl, q, v):
        """The generalized force (..., nv) MuJoCo applies for ``ctrl`` at ``(q, v)`` (its
        ``qfrc_actuator``): each force times its gear on its dof, each joint's sum clamped to the
        joint's ``actuatorfrcrange``."""
        f = self.force(ctrl, q, v)
        out = np.zeros(f.shape[:-1] + (self.nv,))
        for k, a in enumerate(self.actuators):
            if a.dof is not None:
                out[..., a.dof] += a.gear * f[..., k]
        for dof, (lo, hi) in self.joint_ranges.items():
            out[..., dof] = np.clip(out[..., dof], lo, hi)
        return out

    def controller(self, ctrl):
        """A function ``tau(t, q, v)`` for :func:`artidyn.simulate` (``tau=``) that applies the
        constant ``ctrl`` (nu,), or ``ctrl(t)`` when ``ctrl`` is a function of time."""
        if callable(ctrl):
            return lambda t, q, v: self.tau(ctrl(t), q, v)
        ctrl = self._ctrl(ctrl)
        return lambda t, q, v: self.tau(ctrl, q, v)

    def _ctrl(self, ctrl):
        ctrl = np.asarray(ctrl, dtype=float)
        if ctrl.shape[-1:] != (self.nu,):
            raise ValueError(f"{self.model.source}: ctrl needs {self.nu} entries (one per actuator: "
                             f"{', '.join(self.names)}), got shape {ctrl.shape}")
        return ctrl

    def _inputs(self, ctrl, q, v):
        q, v = np.asarray(q, dtype=float), np.asarray(v, dtype=float)
        if q.shape[-1:] != (self.model.nq,) or v.shape[-1:] != (self.model.nv,):
            raise ValueError(f"{self.model.source}: q and v need {self.model.nq} and {self.model.nv} entries, "
                             f"got shapes {q.shape} and {v.shape}")
        return self._ctrl(ctrl), q, v


# --- reading ---------------------------------------------------------------------------------------
def actuation(path, model=None, strict=False):
    """The :class:`Actuation` of an MJCF file's ``<actuator>`` section (``path``: a file or MJCF
    text, as :func:`~artidyn.io.mjcf.load_mjcf` takes), for ``model`` (the artidyn model of the
    same file; loaded when None).

    ``strict``: refuse (ParseError) the actuators that are not modelled instead of a
    :class:`~artidyn.io.mjcf.NotModelledWarning` (they keep their place in ctrl, applying nothing).
    """
    from . import _settings, load_mjcf      # the package's face imports this module
    if model is None:
        model = load_mjcf(path, strict=strict)
    data, source = read_source(path, "MJCF")
    root = parse_xml(data, source)
    r = Reader(source, pathlib.Path(source).parent if source != "<string>" else pathlib.Path.cwd(), False)
    expand_includes(r, root, len(data))
    s = _settings(r, root)
    joints = _joints(r, s, root)
    r.notes, r.warned, r.strict = [], [], strict        # the model's own notes are load_mjcf's
    defaults = _actuator_defaults(r, root)
    acts, flags = [], _flags(root)
    for el in root.children:
        if el.tag == "actuator":
            for c in el.children:
                acts.append(_actuator(r, s, model, joints, defaults, c, len(acts)))
    ranges = _joint_force_ranges(r, s, model, joints)
    for category, message in dict.fromkeys(r.warned):
        warnings.warn(message, category, stacklevel=2)
    return Actuation(model, acts, ranges, clampctrl=flags.get("clampctrl") != "disable",
                     enabled=flags.get("actuation") != "disable")


def _joints(r, s, root):
    """name -> (element, resolved attributes) of every named joint (defaults applied)."""
    out = {}
    for el in root.children:
        if el.tag == "worldbody":
            for b in collect_bodies(r, s, el):
                for c, attrs, _ in b.joints:
                    if "name" in attrs:
                        out[attrs["name"]] = (c, attrs)
    return out


def _flags(root):
    out = {}
    for el in root.children:
        if el.tag == "option":
            for c in el.children:
                if c.tag == "flag":
                    out.update(c.attrib)
    return out


def _blank():
    """MuJoCo's default actuator: gain 1 (fixed), no bias, gear (1, 0, ...)."""
    return {"gain": [1.0] + [0.0] * 9, "bias": [0.0] * 10, "gaintype": "fixed", "biastype": "none",
            "dyntype": "none", "attrs": {}}


def _actuator_defaults(r, root):
    """class -> the default actuator of each ``<default>`` class: in MuJoCo every actuator shortcut
    of a class writes one shared default actuator, in the file's order (MuJoCo XML reference,
    "default"), and a nested class starts from its parent's."""
    out = {}

    def walk(el, parent):
        name = el.attrib.get("class", "main")
        rec = _copy(out.get(parent, _blank()))
        for c in el.children:
            if c.tag in SHORTCUTS + OTHER_KINDS:
                _apply(r, c, c.attrib, rec)
        out[name] = rec
        for c in el.children:
            if c.tag == "default":
                walk(c, name)

    for el in root.children:
        if el.tag == "default":
            walk(el, "main")
    out.setdefault("main", _blank())
    return out


def _copy(rec):
    return {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v) for k, v in rec.items()}


def _apply(r, el, attrs, rec):
    """What one actuator element sets, as MuJoCo's XML reader does (its shortcuts overwrite the
    gain and bias of the defaults: a ``<motor>`` has gain 1 and no bias whatever the class)."""
    rec["attrs"].update({k: v for k, v in attrs.items() if k not in ("class", "name")})
    tag = el.tag
    if tag == "general":
        for key in ("gaintype", "biastype", "dyntype"):
            rec[key] = attrs.get(key, rec[key])
        for key, n in (("gainprm", "gain"), ("biasprm", "bias")):
            if key in attrs:
                vals = r.numbers(el, attrs, key)
                rec[n][:vals.size] = vals.tolist()
    elif tag == "motor":
        rec["gain"][0], rec["gaintype"], rec["biastype"], rec["dyntype"] = 1.0, "fixed", "none", "none"
    elif tag == "position":
        if "kp" in attrs:
            rec["gain"][0] = r.number(el, attrs, "kp")
        rec["bias"][1] = -rec["gain"][0]
        if "kv" in attrs:
            kv = r.number(el, attrs, "kv")
            if kv < 0:
                raise r.error(el, f"kv cannot be negative, got {kv:g}", "kv")
            rec["bias"][2] = -kv
        rec["gaintype"], rec["biastype"], rec["dyntype"] = "fixed", "affine", "none"
    elif tag == "velocity":
        rec["bias"] = [0.0] * 10
        if "kv" in attrs:
            rec["gain"][0] = r.number(el, attrs, "kv")
        rec["bias"][2] = -rec["gain"][0]
        rec["gaintype"], rec["biastype"], rec["dyntype"] = "fixed", "affine", "none"
    else:
        rec["dyntype"] = f"<{tag}>"     # a kind artidyn does not map: marked, refused per actuator


def _actuator(r, s, model, joints, defaults, el, k):
    """The :class:`Actuator` of one ``<actuator>`` child (dof None when not modelled)."""
    cls = el.attrib.get("class", "main")
    if cls not in defaults:
        raise r.error(el, f"unknown default class {cls!r} (known: {', '.join(defaults)})", "class")
    rec = _copy(defaults[cls])
    if el.tag not in SHORTCUTS + OTHER_KINDS:
        raise r.error(el, f"unknown actuator <{el.tag}> (MuJoCo XML reference, actuator)")
    _apply(r, el, el.attrib, rec)
    a = rec["attrs"]
    name = el.attrib.get("name") or f"actuator{k + 1}"
    gear = r.numbers(el, a, "gear", (1, 2, 3, 4, 5, 6), default=(1.0,))
    common = dict(name=name, kind=el.tag, gear=float(gear[0]), gain=rec["gain"][0],
                  bias=tuple(rec["bias"][:3]) if rec["biastype"] == "affine" else (0.0, 0.0, 0.0),
                  ctrlrange=_range(r, s, el, a, "ctrl"), forcerange=_range(r, s, el, a, "force"))
    why = _unmodelled(el, a, rec, joints)
    if why:
        r.not_modelled(el, why)
        return Actuator(joint=a.get("joint") or a.get("jointinparent"), dof=None, qi=None, ref=0.0, **common)
    jname = a.get("joint") or a.get("jointinparent")
    if jname not in joints:
        raise r.error(el, f"unknown joint {jname!r}", "joint")
    jel, jattrs = joints[jname]
    try:
        qi, dof = model.q_slice(jname).start, model.v_slice(jname).start
    except (KeyError, ValueError, ModelError):
        raise ParseError(f"{r.where(el)}: {r.label(el, file=False)}: joint {jname!r} is not in the model "
                         f"'{model.name}' (the model of another file?)") from None
    scale = r.angle_scale if jattrs.get("type", "hinge") == "hinge" else 1.0
    return Actuator(joint=jname, dof=dof, qi=qi, ref=r.number(jel, jattrs, "ref") * scale, **common)


def _unmodelled(el, a, rec, joints):
    """Why an actuator is not modelled (None if it is)."""
    if rec["dyntype"].startswith("<"):
        return f"actuator <{el.tag}> is not modelled (motor, position, velocity and fixed-gain general are)"
    if rec["dyntype"] != "none":
        return f"activation dynamics (dyntype '{rec['dyntype']}') are not modelled"
    if rec["gaintype"] != "fixed" or rec["biastype"] not in ("none", "affine"):
        return f"gaintype '{rec['gaintype']}' / biastype '{rec['biastype']}' are not modelled (fixed / affine are)"
    if el.tag == "position" and ("dampratio" in a or "inheritrange" in a):
        return "a position servo's dampratio and inheritrange are not modelled (kp and kv are)"
    for key in ("tendon", "site", "body", "cranksite"):
        if key in a:
            return f"a {key} transmission is not modelled (a hinge or slide joint transmission is)"
    jname = a.get("joint") or a.get("jointinparent")
    if jname is None:
        return "an actuator without a transmission applies nothing"
    if jname in joints and JOINT_KINDS.get(joints[jname][1].get("type", "hinge")) not in ("revolute", "prismatic"):
        kind = joints[jname][1].get("type")
        return f"a transmission on the {kind} joint '{jname}' is not modelled (hinge and slide are)"
    return None


def _range(r, s, el, a, what):
    """``ctrlrange`` / ``forcerange`` when limited (``ctrllimited`` / ``forcelimited``: true, or auto
    with ``<compiler autolimits>`` and a range given), else None."""
    key, flag = f"{what}range", f"{what}limited"
    limited = r.flag(el, a, flag, "auto")
    if limited == "false" or (limited == "auto" and not (s.autolimits and key in a)):
        return None
    lo, hi = r.numbers(el, a, key, 2, default=(0.0, 0.0))
    if not lo < hi:
        raise r.error(el, f"{key} {lo:g} {hi:g}: the lower bound must be below the upper one", key)
    return float(lo), float(hi)


def _joint_force_ranges(r, s, model, joints):
    """dof -> joint ``actuatorfrcrange`` (MuJoCo XML reference, body/joint: clamps the total
    actuator force on the joint), for the hinges and slides of the model that limit it."""
    out = {}
    for name, (el, attrs) in joints.items():
        if JOINT_KINDS.get(attrs.get("type", "hinge")) not in ("revolute", "prismatic"):
            continue
        if attrs.get("actuatorgravcomp") == "true":
            r.not_modelled(el, "actuatorgravcomp (gravity compensation through the actuators) is not modelled",
                           "actuatorgravcomp")
        limited = r.flag(el, attrs, "actuatorfrclimited", "auto")
        if limited == "true" or (limited == "auto" and s.autolimits and "actuatorfrcrange" in attrs):
            lo, hi = r.numbers(el, attrs, "actuatorfrcrange", 2, default=(0.0, 0.0))
            out[model.v_slice(name).start] = (float(lo), float(hi))
    return out
