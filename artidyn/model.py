"""The robot model: a tree of rigid bodies with joints, frames, limits and physical parameters.

Numbering follows Featherstone ("Rigid Body Dynamics Algorithms", ch. 4) and Khalil & Dombre:
body 0 is the world (or the fixed base), moving bodies are ``1..nb`` with ``parent[i] < i``.
Per-body arrays have ``nb + 1`` rows so that code indices match the book's ``i`` and ``lambda(i)``. A ``Model`` is built by :class:`artidyn.ModelBuilder`
(which the URDF and DH readers use too) and is immutable afterwards: its arrays are read-only.
"""
from dataclasses import dataclass, field

import numpy as np

from ._text import one_line
from .errors import InputError, ModelError, shown, unknown_name
from .geometry.shapes import Collision
from .joints import FLAT, FREE, JOINT_NAMES, PRISMATIC, REVOLUTE, SPHERICAL


@dataclass(frozen=True)
class Frame:
    """A named frame rigidly attached to a body.

    ``placement`` is the 4x4 transform of the frame in the body frame. ``kind`` is one of
    ``"body"`` (the body frame itself), ``"link"`` (a URDF link lumped by a fixed joint),
    ``"joint"`` or ``"op"`` (an operational frame added by the user).
    """

    name: str
    body: int
    placement: np.ndarray
    kind: str = "op"


CONSTRAINT_TYPES = ("point", "weld", "hinge", "distance", "coupling")


@dataclass(frozen=True)
class ConstraintSpec:
    """A declared cut constraint (a loop closure), kept by the model as plain immutable data.

    The model layer only stores and name-checks it; :func:`artidyn.constraints.from_model` turns
    it into a :class:`~artidyn.constraints.Point`, ``Weld``, ``Hinge``, ``Distance`` or
    ``Coupling``. ``type`` is one of :data:`CONSTRAINT_TYPES`; ``frame_a`` / ``frame_b`` are frame
    (or body) names, ``frame_b`` None meaning the world at ``target``: a point ``(x, y, z)`` or a
    placement (a 4x4 tuple of rows). ``axis`` (hinge) is in frame_a's axes; ``length``
    (distance) None means "measured at the neutral configuration"; ``joint_a = ratio joint_b +
    offset`` (coupling). ``where`` says where it was declared (for messages; not compared).
    """

    type: str
    name: str | None = None
    frame_a: str | None = None
    frame_b: str | None = None
    target: tuple | None = None
    axis: tuple | None = None
    length: float | None = None
    joint_a: str | None = None
    joint_b: str | None = None
    ratio: float | None = None
    offset: float | None = None
    where: str = field(default="", compare=False)

    def label(self, k=None):
        """How messages name it: ``where`` or "constraint k ('name')"."""
        if self.where:
            return self.where
        num = f"constraint {k}" if k is not None else "constraint"
        return num + (f" ('{self.name}')" if self.name else "")

    def as_dict(self):
        """The declared fields (those not None), as in a model file's ``[[constraints]]`` table."""
        keys = ("type", "name", "frame_a", "frame_b", "target", "axis", "length", "joint_a", "joint_b",
                "ratio", "offset")
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}


def check_constraint_specs(model, specs):
    """Every frame and joint a spec names exists in ``model`` (coupled joints: 1-dof); a tuple.

    Raises ModelError naming the model's source, the constraint (index from 1, name) and the
    unknown name with the closest known ones.
    """
    specs = tuple(specs)
    src = f"{model.source}: " if getattr(model, "source", "") else ""
    for k, s in enumerate(specs, start=1):
        if not isinstance(s, ConstraintSpec):
            raise ModelError(f"{src}constraint {k}: expected a ConstraintSpec, got {type(s).__name__}")
        if s.type not in CONSTRAINT_TYPES:
            raise ModelError(f"{src}{s.label(k)}: unknown constraint type {s.type!r} "
                             f"(known: {', '.join(CONSTRAINT_TYPES)})")
        at = f"{src}{s.label(k)}"
        if s.type == "coupling":
            for key in ("joint_a", "joint_b"):
                j = getattr(s, key)
                if j not in model._joint_index:
                    msg = str(unknown_name("joint", j, list(model._joint_index), model.name))
                    raise ModelError(f"{at}: {key}: {msg}")
                i = model._joint_index[j]
                if model.joint_type[i] not in (REVOLUTE, PRISMATIC):
                    raise ModelError(f"{at}: {key} '{j}' is {model.joint_kind[i]}; a coupling needs 1-dof "
                                     f"(revolute, continuous or prismatic) joints")
            if s.joint_a == s.joint_b:
                raise ModelError(f"{at}: joint_a and joint_b are the same joint '{s.joint_a}'")
        else:
            for key in ("frame_a", "frame_b"):
                f = getattr(s, key)
                if (f is not None or key == "frame_a") and f not in model._frame_index:
                    msg = str(unknown_name("frame", f, list(model._frame_index), model.name))
                    raise ModelError(f"{at}: {key}: {msg}")
            if s.frame_a == s.frame_b:
                raise ModelError(f"{at}: frame_a and frame_b are the same frame '{s.frame_a}'")
    return specs


def check_springs(model):
    """Joint springs: ``stiffness`` finite and >= 0, ``rest`` finite, both (nv,); a stiffness only
    on flat joints (revolute, prismatic, cylindrical), where ``q - rest`` has a meaning.

    Raises ModelError naming the joint and the wrong value.
    """
    src = f"{model.source}: " if getattr(model, "source", "") else ""
    for i in range(1, model.nb + 1):
        dofs = slice(int(model.idx_v[i]), int(model.idx_v[i] + model.nv_joint[i]))
        k, r = model.stiffness[dofs], model.rest[dofs]
        if not (np.all(np.isfinite(k)) and np.all(k >= 0)):
            raise ModelError(f"{src}{model.describe_joint(i)}: stiffness must be finite and >= 0, got {k.tolist()}")
        if not np.all(np.isfinite(r)):
            raise ModelError(f"{src}{model.describe_joint(i)}: spring rest position must be finite, got {r.tolist()}")
        if model.joint_type[i] not in FLAT and (np.any(k != 0) or np.any(r != 0)):
            raise ModelError(f"{src}{model.describe_joint(i)}: joint springs are defined on revolute, prismatic and "
                             f"cylindrical joints only (a {JOINT_NAMES.get(int(model.joint_type[i]), '?')} joint has "
                             f"no rest angle q - rest); got stiffness {k.tolist()}, rest {r.tolist()}")


def check_spatial_inertias(I, body_names, source="", psd=True):
    """Each body's 6x6 spatial inertia (rows 1..nb of ``I``) is finite and, with ``psd``,
    symmetric and positive semi-definite (relative tolerance 1e-9); row 0 (the world) is not
    checked. Raises ModelError naming the body.

    Every model is checked for finiteness (a non-finite inertia makes the dynamics NaN, whatever
    the path that made it); :meth:`ModelBuilder.build` (every reader) also checks positive
    semi-definiteness. ``Model.replace(I=...)`` does not, on purpose: identification builds
    models from estimated, possibly non-physical parameters
    (``artidyn.identification.parameters_to_model(check=False)``).
    """
    I = np.asarray(I)
    if I.ndim != 3 or I.shape[1:] != (6, 6) or I.dtype == object or len(I) < 2:
        return
    src = f"{source}: " if source else ""
    J = I[1:]
    finite = np.isfinite(J).all(axis=(1, 2))
    if not finite.all():
        k = int(np.argmin(finite)) + 1
        raise ModelError(f"{src}body '{body_names[k]}': spatial inertia is not finite (mass, centre of mass and "
                         f"inertia overflow: mass {I[k, 5, 5]:.6g}); check the link's mass, com and inertia")
    if not psd:
        return
    scale = np.maximum(np.abs(J).max(axis=(1, 2)), 1e-300)
    asym = np.abs(J - np.swapaxes(J, 1, 2)).max(axis=(1, 2)) > 1e-9 * scale
    if asym.any():
        k = int(np.argmax(asym)) + 1
        raise ModelError(f"{src}body '{body_names[k]}': spatial inertia is not symmetric")
    eig = np.linalg.eigvalsh(0.5 * (J + np.swapaxes(J, 1, 2)))
    bad = eig[:, 0] < -1e-9 * scale
    if bad.any():
        k = int(np.argmax(bad)) + 1
        raise ModelError(f"{src}body '{body_names[k]}': spatial inertia is not positive semi-definite, eigenvalues "
                         f"({', '.join(f'{e:.6g}' for e in eig[k - 1])})")


def check_collisions(model, collisions):
    """Every record is a :class:`~artidyn.geometry.Collision` on a body of ``model``, names unique; a tuple."""
    collisions = tuple(collisions)
    src = f"{model.source}: " if getattr(model, "source", "") else ""
    seen = set()
    for k, c in enumerate(collisions):
        if not isinstance(c, Collision):
            raise ModelError(f"{src}collision {k}: expected an artidyn.geometry.Collision, got {type(c).__name__}")
        if not 0 <= c.body <= model.nb:
            raise ModelError(f"{src}collision '{c.name}': body index {c.body} out of range 0..{model.nb}")
        if c.name in seen:
            raise ModelError(f"{src}duplicate collision name '{c.name}'")
        seen.add(c.name)
    return collisions


def check_postures(model, postures):
    """A copy of ``postures`` ({name: q}) with each q a read-only float (nq,) array; ShapeError
    naming the posture when a q has the wrong size."""
    out = {}
    for name, q in dict(postures or {}).items():
        q = np.array(q, dtype=float)
        if q.shape != (model.nq,):
            from .errors import ShapeError
            raise ShapeError(f"posture '{name}' has {q.size} values, model '{model.name}' needs nq = {model.nq}")
        out[str(name)] = _ro(q)
    return out


def check_collision_exclusions(model, pairs):
    """Body pairs (names or indices) -> sorted tuple of distinct ``(i, j)`` with i < j."""
    out = set()
    for pair in pairs:
        try:
            a, b = pair
        except (TypeError, ValueError):
            raise ModelError(f"collision exclusions are pairs of bodies, got {pair!r}") from None
        i, j = sorted((model.body_id(a), model.body_id(b)))
        if i != j:
            out.add((i, j))
    return tuple(sorted(out))


@dataclass
class LoadNote:
    """One entry of a model's load report: a default applied or a tag ignored by a reader."""

    kind: str  # "default" | "ignored" | "info"
    element: str  # e.g. "link 'base_link'" or "joint 'elbow'"
    message: str
    line: int | None = None

    def __str__(self):
        where = f" (line {self.line})" if self.line else ""
        return f"[{self.kind}] {self.element}{where}: {self.message}"


@dataclass
class LoadReport:
    """What a reader did without being told: defaults applied, tags ignored."""

    source: str = ""
    notes: list = field(default_factory=list)

    def add(self, kind, element, message, line=None):
        self.notes.append(LoadNote(kind, element, message, line))

    @property
    def defaults(self):
        return [n for n in self.notes if n.kind == "default"]

    @property
    def ignored(self):
        return [n for n in self.notes if n.kind == "ignored"]

    def __len__(self):
        return len(self.notes)

    def __iter__(self):
        return iter(self.notes)

    def __str__(self):
        if not self.notes:
            return f"{self.source}: nothing to report"
        return "\n".join([f"{self.source}: {len(self.notes)} note(s)"] + [f"  {n}" for n in self.notes])


def _ro(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


def _check_key(name, kind, model_name):
    """A body, joint or frame is named by a string or numbered by an int. Anything else (a list
    such as ``["tool"]``, an array) would reach the name tables and leak Python's "unhashable
    type"; refused here, naming the argument."""
    if isinstance(name, (str, int, np.integer)) and not isinstance(name, (bool, np.bool_)):
        return
    extra = ", a body index (int) or an artidyn.Frame" if kind == "frame" else " or a body index (int)"
    raise InputError(f"{kind}: expected the name (str) of a {kind} of model '{model_name}'{extra}; got {shown(name)}")


class Model:
    """Immutable description of a rigid-body tree. Build it with :class:`artidyn.ModelBuilder`.

    Attributes (``nb`` moving bodies, rows indexed by body number, row 0 = world)
    ----------
    name : str
    nb, nq, nv : int
    body_names, joint_names : list of str (length nb + 1; ``joint_names[0] == ""``)
    parent : (nb+1,) int, ``parent[0] == -1``
    joint_type : (nb+1,) int codes of :mod:`artidyn.joints` (row 0: -1)
    joint_kind : list of str: "revolute", "continuous", "prismatic", "cylindrical", "spherical", "free"
    joint_axis : (nb+1, 3) unit axis in the joint frame
    joint_placement : (nb+1, 4, 4) joint frame in the parent body frame at q = 0
    idx_q, nq_joint, idx_v, nv_joint : (nb+1,) int
    S : list of (6, nv_i) motion subspaces (row 0: empty)
    mass : (nb+1,), com : (nb+1, 3), inertia_com : (nb+1, 3, 3) (body axes), I : (nb+1, 6, 6)
        inertia of each body (fixed children lumped in), about the body origin
    lower, upper : (nq,) position limits (+-inf when none; quaternions: -1 .. 1)
    velocity_limit, effort_limit : (nv,) (inf when none)
    armature, damping, coulomb : (nv,) rotor inertia, viscous and Coulomb joint friction
    stiffness, rest : (nv,) joint springs, torque ``stiffness * (q - rest)`` on the flat joints
        (revolute, prismatic, cylindrical; zero elsewhere), see :mod:`artidyn.dynamics.springs`
    actuated : (nv,) bool
    gravity : (3,)
    frames : list of :class:`Frame`
    constraint_specs : tuple of :class:`ConstraintSpec`, the loop closures declared by the model
        file (``[[constraints]]`` of a DH table, URDF ``<mimic>``); empty for a tree.
        :func:`artidyn.constraints.from_model` makes the constraint objects.
    collisions : tuple of :class:`artidyn.geometry.Collision` (name, body index, shape, 4x4
        placement in the body frame); body 0 (the world) holds fixed scenery such as the ground.
    collision_exclusions : tuple of body index pairs ``(i, j)``, i < j, whose shapes never collide
        (besides same-body and parent-child pairs, see :func:`artidyn.geometry.contact_candidates`).
    postures : dict name -> (nq,) read-only q, the named reference postures of the model (the
        SRDF's ``<group_state>``, e.g. ``model.postures["half_sitting"]``, filled by
        :func:`artidyn.load`); empty by default. Kept by :meth:`replace`.
    """

    def __init__(self, **fields):
        object.__setattr__(self, "_cache", {})
        fields.setdefault("constraint_specs", ())
        fields.setdefault("collisions", ())
        fields.setdefault("collision_exclusions", ())
        fields.setdefault("postures", {})
        fields.setdefault("stiffness", np.zeros(fields["nv"]))
        fields.setdefault("rest", np.zeros(fields["nv"]))
        for key, value in fields.items():
            if isinstance(value, np.ndarray):
                value = _ro(value)
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_frame_index", {f.name: k for k, f in enumerate(self.frames)})
        object.__setattr__(self, "_body_index", {n: k for k, n in enumerate(self.body_names)})
        object.__setattr__(self, "_joint_index", {n: k for k, n in enumerate(self.joint_names) if k > 0})
        check_springs(self)
        check_spatial_inertias(self.I, self.body_names, getattr(self, "source", ""), psd=False)
        object.__setattr__(self, "constraint_specs", check_constraint_specs(self, self.constraint_specs))
        object.__setattr__(self, "collisions", check_collisions(self, self.collisions))
        object.__setattr__(self, "collision_exclusions", check_collision_exclusions(self, self.collision_exclusions))
        object.__setattr__(self, "postures", check_postures(self, self.postures))
        children = [[] for _ in range(self.nb + 1)]
        for i in range(1, self.nb + 1):
            children[self.parent[i]].append(i)
        object.__setattr__(self, "children", [tuple(c) for c in children])

    def __setattr__(self, key, value):
        raise AttributeError("a Model is immutable; build a new one with ModelBuilder")

    def __getstate__(self):
        """Pickles and copies leave the cache behind (work tables, compiled call objects): the
        copy builds its own on first use."""
        return {k: v for k, v in self.__dict__.items() if k != "_cache"}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__["_cache"] = {}

    def replace(self, **changes):
        """A copy of the model with some fields replaced, e.g. ``model.replace(damping=d)``.

        ``constraint_specs`` (a sequence of :class:`ConstraintSpec`) is checked against the model's
        frame and joint names; ``collisions`` (a sequence of :class:`artidyn.geometry.Collision`)
        against its bodies; ``collision_exclusions`` (pairs of body names or indices) is normalised.
        Per-dof parameters (armature, damping, coulomb, stiffness, rest, velocity_limit,
        effort_limit: (nv,); actuated: (nv,) bool; lower, upper: (nq,)) and gravity (3,) are
        checked for shape; springs (stiffness, rest) as :func:`check_springs`.
        """
        sizes = {"armature": self.nv, "damping": self.nv, "coulomb": self.nv, "actuated": self.nv,
                 "stiffness": self.nv, "rest": self.nv,
                 "velocity_limit": self.nv, "effort_limit": self.nv, "lower": self.nq, "upper": self.nq,
                 "gravity": 3}
        fields = {k: v for k, v in self.__dict__.items() if not k.startswith("_") and k != "children"}
        for key, value in changes.items():
            if key not in fields:
                raise AttributeError(f"Model has no field '{key}'")
            if key in sizes:
                arr = np.array(value, dtype=bool if key == "actuated" else float)
                arr = np.broadcast_to(arr, (sizes[key],)).copy() if arr.ndim == 0 else arr
                if arr.shape != (sizes[key],):
                    from .errors import ShapeError
                    raise ShapeError(f"{key} has {arr.size} entries, model '{self.name}' needs {sizes[key]}")
                if key in ("armature", "damping", "coulomb") and (np.any(arr < 0) or not np.all(np.isfinite(arr))):
                    from .errors import ModelError
                    raise ModelError(f"{key} must be finite and >= 0, got {arr.tolist()}")
                # NaN anywhere, inf in gravity (springs: their own check below names the joint)
                if key == "gravity" and not np.all(np.isfinite(arr)) or (
                        key not in ("actuated", "stiffness", "rest") and np.any(np.isnan(arr))):
                    raise InputError(f"Model.replace: {key} of model '{one_line(self.name)}' contains NaN"
                                     + (" or infinite values" if key == "gravity" else "") + f": {arr.tolist()}")
                value = arr
            fields[key] = value
        return Model(**fields)

    # --- sizes and topology ----------------------------------------------------------------
    @property
    def has_floating_base(self):
        return self.nb > 0 and self.joint_type[1] == FREE

    @property
    def dof(self):
        return self.nv

    def body_id(self, name):
        """Body number of a body name (or of the body a frame is attached to)."""
        _check_key(name, "body", self.name)
        if isinstance(name, (int, np.integer)):
            if not 0 <= name <= self.nb:
                raise IndexError(f"body index {name} out of range 0..{self.nb} in model '{self.name}'")
            return int(name)
        if name in self._body_index:
            return self._body_index[name]
        if name in self._frame_index:
            return self.frames[self._frame_index[name]].body
        raise unknown_name("body", name, self.body_names, self.name)

    def joint_id(self, name):
        """Body number ``i`` of the joint named ``name`` (joint i moves body i)."""
        _check_key(name, "joint", self.name)
        if isinstance(name, (int, np.integer)):
            return self.body_id(name)
        if name in self._joint_index:
            return self._joint_index[name]
        raise unknown_name("joint", name, list(self._joint_index), self.name)

    def frame(self, name):
        """The :class:`Frame` named ``name`` (a body name works too)."""
        if isinstance(name, Frame):
            return name
        _check_key(name, "frame", self.name)
        if name in self._frame_index:
            return self.frames[self._frame_index[name]]
        if isinstance(name, (int, np.integer)):
            return Frame(self.body_names[self.body_id(name)], self.body_id(name), np.eye(4), "body")
        raise unknown_name("frame", name, list(self._frame_index), self.name)

    @property
    def frame_names(self):
        return [f.name for f in self.frames]

    def q_slice(self, joint):
        i = self.joint_id(joint)
        return slice(int(self.idx_q[i]), int(self.idx_q[i] + self.nq_joint[i]))

    def v_slice(self, joint):
        i = self.joint_id(joint)
        return slice(int(self.idx_v[i]), int(self.idx_v[i] + self.nv_joint[i]))

    def support(self, body):
        """Bodies from the root to ``body`` (inclusive), world excluded: the path to the root."""
        i = self.body_id(body)
        path = []
        while i > 0:
            path.append(i)
            i = int(self.parent[i])
        return path[::-1]

    def subtree(self, body):
        """``body`` and all its descendants, in increasing order."""
        i = self.body_id(body)
        out, stack = [], [i]
        while stack:
            k = stack.pop()
            out.append(k)
            stack.extend(self.children[k])
        return sorted(out)

    def dof_of_body(self, body):
        """Indices in v of the joint moving ``body``."""
        i = self.body_id(body)
        return list(range(int(self.idx_v[i]), int(self.idx_v[i] + self.nv_joint[i])))

    @property
    def total_mass(self):
        return float(np.sum(self.mass[1:]))

    def __repr__(self):
        base = "floating" if self.has_floating_base else "fixed"
        return (f"Model('{one_line(self.name)}', {self.nb} bodies, nq={self.nq}, nv={self.nv}, {base} base, "
                f"mass={self.total_mass:.4g} kg)")

    def summary(self):
        """A multi-line text description: tree, joints, dof, masses."""
        lines = [repr(self)]
        lines.append(f"  gravity: {np.array2string(np.asarray(self.gravity), precision=4)}")
        lines.append(f"  {'#':>3} {'body':<24} {'parent':<18} {'joint':<22} {'type':<11} {'q idx':<7} {'mass':>9}")
        for i in range(1, self.nb + 1):
            p = self.body_names[self.parent[i]]
            q0 = int(self.idx_q[i])
            qs = f"{q0}" if self.nq_joint[i] == 1 else f"{q0}:{q0 + self.nq_joint[i]}"
            lines.append(f"  {i:>3} {self.body_names[i]:<24} {p:<18} {self.joint_names[i]:<22} "
                         f"{self.joint_kind[i]:<11} {qs:<7} {self.mass[i]:>9.4g}")
        if self.collisions:
            kinds = {}
            for c in self.collisions:
                kinds[c.shape.kind] = kinds.get(c.shape.kind, 0) + 1
            lines.append(f"  collisions: {len(self.collisions)} ({', '.join(f'{k} {n}' for k, n in kinds.items())}), "
                         f"{len(self.collision_exclusions)} excluded body pair(s)")
        extra = [f.name for f in self.frames if f.kind in ("link", "op")]
        if extra:
            lines.append(f"  other frames: {', '.join(extra[:20])}{' ...' if len(extra) > 20 else ''}")
        return "\n".join(lines)

    def describe_joint(self, i):
        return f"joint '{self.joint_names[i]}' ({JOINT_NAMES.get(int(self.joint_type[i]), '?')}) of body '{self.body_names[i]}'"

    @property
    def quaternion_slices(self):
        """Slices of q that hold unit quaternions (spherical and free joints)."""
        out = []
        for i in range(1, self.nb + 1):
            if self.joint_type[i] == SPHERICAL:
                out.append(slice(int(self.idx_q[i]), int(self.idx_q[i]) + 4))
            elif self.joint_type[i] == FREE:
                out.append(slice(int(self.idx_q[i]) + 3, int(self.idx_q[i]) + 7))
        return out
