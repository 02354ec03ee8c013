"""ModelBuilder: the one way to make a :class:`artidyn.Model` (the URDF and DH readers use it).

Example
-------
>>> b = ModelBuilder("pendulum")
>>> b.add_body("rod", parent="world", joint="revolute", axis=(0, 1, 0),
...            mass=1.0, com=(0, 0, -0.5), inertia=np.diag([1e-3, 1e-3, 1e-6]))
'rod'
>>> model = b.build()
"""
import numpy as np

from .checks import MAX_INERTIA, MAX_LENGTH, MAX_MASS
from .errors import InputError, ModelError, check_rigid, check_vector, unknown_name
from .geometry.shapes import SHAPES, Collision, Shape, check_coefficient, check_mask
from .joints import (COMPOSITES, CYLINDRICAL, FLAT, FREE, HELICAL, JOINT_CODES, NQ, NV, REVOLUTE, SPHERICAL,
                     motion_subspace, plane_axes)
from .model import Frame, LoadReport, Model, check_spatial_inertias
from .spatial.motion import homogeneous, inertia_parts, inertia_transform, inv_homogeneous, spatial_inertia
from .spatial.rotations import rpy_to_matrix

INERTIA_TOL = 1e-9  # relative tolerance of the physical-consistency checks


def placement_from(placement=None, xyz=None, rpy=None, where="placement"):
    """A 4x4 transform from either ``placement`` or (``xyz``, ``rpy``).

    A given ``placement`` must be a rigid transform: a proper rotation (R^T R = 1 within 1e-6,
    det R = +1), last row (0, 0, 0, 1); ``where`` names it in the error message.
    """
    if placement is not None:
        T = check_rigid(placement, where, ModelError)
        _check_length(where, T[:3, 3])
        return T
    xyz = np.asarray(xyz if xyz is not None else (0, 0, 0), dtype=float)
    rpy = np.asarray(rpy if rpy is not None else (0, 0, 0), dtype=float)
    if xyz.shape != (3,) or rpy.shape != (3,):
        raise ModelError(f"{where}: xyz and rpy need 3 entries each, got {xyz.tolist()} and {rpy.tolist()}")
    _check_length(where, xyz)
    R = np.eye(3) if not rpy.any() else rpy_to_matrix(rpy)  # no rotation: skip the trigonometry
    return homogeneous(R, xyz)


def _check_length(where, xyz, what="translation"):
    if np.abs(xyz).max() > MAX_LENGTH:
        raise ModelError(f"{where}: {what} {np.asarray(xyz).tolist()} beyond the accepted range +/-{MAX_LENGTH:g} m "
                         f"(artidyn.checks.MAX_LENGTH)")


def check_ranges(where, mass, com, inertia):
    """Mass, centre of mass and inertia inside the documented ranges (:mod:`artidyn.checks`):
    beyond them the spatial inertia m |c|^2 and the dynamics overflow. Raises ModelError."""
    if not abs(mass) <= MAX_MASS:
        raise ModelError(f"{where}: mass {mass:g} kg beyond the accepted range 0 .. {MAX_MASS:g} kg "
                         f"(artidyn.checks.MAX_MASS)")
    _check_length(where, com, "centre of mass")
    if not np.abs(inertia).max() <= MAX_INERTIA:
        raise ModelError(f"{where}: inertia entry {np.abs(inertia).max():g} kg m^2 beyond the accepted range "
                         f"+/-{MAX_INERTIA:g} kg m^2 (artidyn.checks.MAX_INERTIA)")


def check_inertia(where, mass, com, inertia, allow_zero_mass=True):
    """Physical consistency of one body's (mass, com, inertia at com); raises ModelError.

    Also the documented ranges of :func:`check_ranges` (mass <= 1e9 kg, |com| <= 1e6 m, inertia
    entries <= 1e15 kg m^2)."""
    mass = float(mass)
    com = np.asarray(com, dtype=float)
    I = np.asarray(inertia, dtype=float)
    if com.shape != (3,):
        raise ModelError(f"{where}: centre of mass must have 3 entries, got shape {com.shape}")
    if I.shape != (3, 3):
        raise ModelError(f"{where}: inertia must be 3x3, got shape {I.shape}")
    if not np.isfinite(mass) or not np.all(np.isfinite(com)) or not np.all(np.isfinite(I)):
        raise ModelError(f"{where}: mass, centre of mass and inertia must be finite "
                         f"(mass={mass}, com={com.tolist()}, inertia={I.tolist()})")
    if mass < 0 or (mass == 0 and not allow_zero_mass):
        raise ModelError(f"{where}: mass must be positive, got {mass:g}")
    check_ranges(where, mass, com, I)
    scale = max(1e-12, np.abs(I).max())
    if np.abs(I - I.T).max() > INERTIA_TOL * scale + 1e-14:
        raise ModelError(f"{where}: inertia is not symmetric: {I.tolist()}")
    eig = np.linalg.eigvalsh(0.5 * (I + I.T))
    tol = INERTIA_TOL * scale + 1e-14
    if eig.min() < -tol:
        raise ModelError(f"{where}: inertia not positive definite, eigenvalues "
                         f"({', '.join(f'{e:.6g}' for e in eig)})")
    a, b, c = eig
    if a + b < c - tol or a + c < b - tol or b + c < a - tol:
        raise ModelError(f"{where}: inertia breaks the triangle inequality, principal moments "
                         f"({a:.6g}, {b:.6g}, {c:.6g}): each must be at most the sum of the other two")
    if mass == 0 and np.abs(I).max() > 0:
        raise ModelError(f"{where}: zero mass with a non-zero inertia {I.tolist()}")
    return mass, com, 0.5 * (I + I.T)


class _Node:
    __slots__ = ("name", "parent", "moving", "joint_name", "jtype", "kind", "axis", "pitch", "T", "mass", "com",
                 "inertia", "lower", "upper", "velocity", "effort", "armature", "damping", "coulomb",
                 "stiffness", "rest", "actuated", "extra")


class ModelBuilder:
    """Collects bodies, joints and frames, then builds a validated, immutable :class:`Model`.

    Bodies are added parent first. A body is *moving* (it has a joint with at least one degree
    of freedom) or *fixed* (rigidly attached: its inertia is lumped into its nearest moving
    ancestor and it stays available as a named frame).
    """

    def __init__(self, name="robot", gravity=(0.0, 0.0, -9.81), world="world", source=""):
        self.name = name
        self.gravity = check_vector(gravity, 3, "ModelBuilder: gravity", MAX_LENGTH)
        self.world = world
        self.source = source
        self.report = LoadReport(source or name)
        self._nodes = {}
        self._order = []
        self._frames = []  # (name, parent, placement, kind)
        self._frame_names = set()  # names in _frames (name checks in constant time: big models load in linear time)
        self._joint_names = set()  # joint names of the moving bodies
        self._has_free = False     # a free joint was added (the first one is 'root_joint')
        self.dh = None
        self.dh_convention = None
        self.meshes = {}
        self.constraint_specs = []  # ConstraintSpec records (loop closures), checked by build()
        self._collisions = []  # (name, body or frame name, shape, placement)
        self._masks = {}       # collision name -> (contype, conaffinity), when not (1, 1)
        self._laws = {}        # collision name -> (friction, restitution), when either is its own
        self._exclusions = []  # (body or frame name, body or frame name)

    def _where(self, what):
        src = f"{self.source}: " if self.source else ""
        return f"{src}{what}"

    def _known(self, name):
        return name == self.world or name in self._nodes

    def _require_parent(self, parent, child):
        if not self._known(parent):
            hint = unknown_name("body", parent, [self.world] + self._order).args[0].split(";", 1)[-1]
            raise ModelError(self._where(
                f"body '{child}': parent '{parent}' does not exist (add the parent first);{hint}"))

    def _check_new_name(self, name):
        if not isinstance(name, str) or not name:
            raise ModelError(self._where(f"body names must be non-empty strings, got {name!r}"))
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
            raise ModelError(self._where(f"name {name!r} contains a control character (newline, tab ...)"))
        if self._known(name) or name in self._frame_names:
            raise ModelError(self._where(f"duplicate name '{name}'"))

    def add_body(self, name, parent="world", joint="revolute", *, joint_name=None, axis=(0, 0, 1),
                 placement=None, xyz=None, rpy=None, mass=0.0, com=(0, 0, 0), inertia=None,
                 lower=None, upper=None, velocity=None, effort=None, armature=0.0, damping=0.0,
                 coulomb=0.0, stiffness=0.0, rest=0.0, actuated=True, pitch=0.0, axes=None):
        """Add a body moved by a joint relative to ``parent``; returns its name.

        ``joint``: "revolute", "continuous", "prismatic", "cylindrical" (rotation about and
        translation along ``axis``: q = [angle, displacement]), "helical" or "screw" (rotation
        about ``axis`` with the translation ``pitch * angle`` along it, ``pitch`` in m/rad),
        "spherical", "free" (a floating base, whose joint is named ``root_joint`` by default),
        "fixed", or the composites "planar" (q = [x, y, theta]: translations along two in-plane
        axes of the plane of normal ``axis``, then the rotation about it; joints ``<joint>_x``,
        ``<joint>_y``, ``<joint>_theta``) and "universal" (q = [q1, q2], rotations about
        ``axes = (a1, a2)``, default x then y; joints ``<joint>_1``, ``<joint>_2``), built as
        1-dof joints through massless bodies ``<name>__x``, ``<name>__y`` / ``<name>__1``
        (see :mod:`artidyn.joints`). ``placement`` (or
        ``xyz`` and ``rpy``) places the joint frame in the parent frame; ``axis`` is in the joint
        frame. ``mass``, ``com`` (body frame) and ``inertia`` (3x3 at the centre of mass, body
        axes) describe the body. ``stiffness`` and ``rest`` make a joint spring, torque
        ``stiffness * (q - rest)`` (revolute, prismatic, cylindrical joints only). Per-dof values
        (limits, ``armature`` ... ``rest``) are a number for every dof of the joint or, for a
        cylindrical joint, a pair (rotation, translation); for a composite, one per coordinate.
        """
        self._check_new_name(name)
        self._require_parent(parent, name)
        kind = str(joint).lower()
        if kind in COMPOSITES:
            return self._add_composite(
                name, parent, kind, joint_name=joint_name, axis=axis, axes=axes, placement=placement, xyz=xyz,
                rpy=rpy, body=dict(mass=mass, com=com, inertia=inertia, actuated=actuated),
                per_dof=dict(lower=lower, upper=upper, velocity=velocity, effort=effort, armature=armature,
                             damping=damping, coulomb=coulomb, stiffness=stiffness, rest=rest))
        if kind not in JOINT_CODES and kind != "fixed":
            raise ModelError(self._where(
                f"body '{name}': unknown joint type '{joint}' (known: revolute, continuous, prismatic, "
                f"cylindrical, helical, spherical, free, planar, universal, fixed)"))
        n = _Node()
        n.name, n.parent, n.kind = name, parent, kind
        n.moving = kind != "fixed"
        n.jtype = JOINT_CODES.get(kind, -1)
        n.joint_name = joint_name or ("root_joint" if n.jtype == FREE and not self._has_free else f"{name}_joint")
        if not isinstance(n.joint_name, str) or any(ord(ch) < 32 or ord(ch) == 127 for ch in n.joint_name):
            raise ModelError(self._where(f"body '{name}': joint name {n.joint_name!r} must be a string without "
                                         f"control characters"))
        if n.moving and n.joint_name in self._joint_names:
            raise ModelError(self._where(f"duplicate joint name '{n.joint_name}' (body '{name}')"))
        n.T = placement_from(placement, xyz, rpy, where=self._where(f"body '{name}': placement"))
        if not np.all(np.isfinite(n.T)):
            raise ModelError(self._where(f"joint '{n.joint_name}': placement is not finite: {n.T.tolist()}"))
        ax = np.asarray(axis, dtype=float)
        if ax.shape != (3,) or not np.all(np.isfinite(ax)):
            raise ModelError(self._where(f"joint '{n.joint_name}': axis must be 3 finite numbers, got {axis!r}"))
        if n.jtype in FLAT:
            big = np.abs(ax).max()
            norm = big * np.linalg.norm(ax / big) if big > 0 else 0.0  # scaled: |(1e308, 1e308, 0)| does not overflow
            if norm < 1e-12:
                raise ModelError(self._where(f"joint '{n.joint_name}': axis {ax.tolist()} is zero"))
            ax = (ax / big) / (norm / big)
        n.axis = ax
        n.pitch = 0.0
        if n.jtype == HELICAL:
            n.pitch = float(pitch)
            if not np.isfinite(n.pitch):
                raise ModelError(self._where(f"joint '{n.joint_name}': pitch must be a finite number, got {pitch!r}"))
        inertia = np.zeros((3, 3)) if inertia is None else inertia
        n.mass, n.com, n.inertia = check_inertia(self._where(f"body '{name}'"), mass, com, inertia)
        nv = NV.get(n.jtype, 0)
        per_dof = lambda key, val: self._per_dof(n, key, val, nv)  # noqa: E731
        n.lower, n.upper, n.velocity, n.effort = (None if x is None else per_dof(key, x) for key, x in (
            ("lower", lower), ("upper", upper), ("velocity", velocity), ("effort", effort)))
        if n.jtype in FLAT and lower is not None and upper is not None:
            if not np.all(n.lower <= n.upper):
                raise ModelError(self._where(f"joint '{n.joint_name}': lower limit {lower} > upper limit {upper}"))
        if kind == "continuous":
            n.lower = n.upper = None
        for key, val in (("armature", armature), ("damping", damping), ("coulomb", coulomb), ("stiffness", stiffness)):
            arr = per_dof(key, val)
            if not np.all(np.isfinite(arr)) or np.any(arr < 0):
                raise ModelError(self._where(f"joint '{n.joint_name}': {key} must be >= 0, got {val}"))
            setattr(n, key, arr)
        n.rest = per_dof("rest", rest)
        if not np.all(np.isfinite(n.rest)):
            raise ModelError(self._where(f"joint '{n.joint_name}': spring rest position must be finite, got {rest}"))
        if n.moving and n.jtype not in FLAT and (np.any(n.stiffness != 0) or np.any(n.rest != 0)):
            raise ModelError(self._where(f"joint '{n.joint_name}': joint springs (stiffness, rest) are defined on "
                                         f"revolute, prismatic and cylindrical joints only, not on a {kind} joint"))
        n.actuated = bool(actuated)
        n.extra = {}
        self._has_free = self._has_free or n.jtype == FREE
        if n.moving:
            self._joint_names.add(n.joint_name)
        self._nodes[name] = n
        self._order.append(name)
        return name

    def _add_composite(self, name, parent, kind, *, joint_name, axis, axes, placement, xyz, rpy, body, per_dof):
        """A planar or universal joint as a chain of 1-dof joints through massless bodies."""
        jn = joint_name or f"{name}_joint"
        where = self._where(f"joint '{jn}' ({kind})")
        if kind == "planar":
            nrm = np.asarray(axis, dtype=float)
            if nrm.shape != (3,) or not np.all(np.isfinite(nrm)) or np.linalg.norm(nrm) < 1e-12:
                raise ModelError(f"{where}: the plane normal (axis) must be 3 finite numbers, not zero; got {axis!r}")
            nrm = nrm / np.linalg.norm(nrm)
            e1, e2 = plane_axes(nrm)
            parts = [("__x", "_x", "prismatic", e1), ("__y", "_y", "prismatic", e2), ("", "_theta", "revolute", nrm)]
        else:
            a = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)) if axes is None else axes
            try:
                a = np.array(a, dtype=float)
            except (TypeError, ValueError):
                a = np.zeros(0)
            if a.shape != (2, 3) or not np.all(np.isfinite(a)):
                raise ModelError(f"{where}: axes must be two 3-vectors (a1, a2), got {axes!r}")
            parts = [("__1", "_1", "revolute", a[0]), ("", "_2", "revolute", a[1])]
        k = len(parts)
        split = {}
        for key, val in per_dof.items():
            if val is None:
                split[key] = [None] * k
                continue
            arr = np.array(val, dtype=float)
            if arr.ndim == 0:
                arr = np.full(k, float(arr))
            if arr.shape != (k,):
                raise ModelError(f"{where}: {key} needs 1 or {k} values (one per coordinate), got {val!r}")
            split[key] = list(arr)
        for name_part in [name + suffix for suffix, *_ in parts[:-1]]:
            self._check_new_name(name_part)
        saved = (dict(self._nodes), list(self._order), set(self._joint_names), self._has_free)
        up = parent
        try:  # all or nothing: a bad value on a later part leaves no half-built joint behind
            for j, (bsuffix, jsuffix, jkind, ax) in enumerate(parts):
                last = j == k - 1
                extra = dict(placement=placement, xyz=xyz, rpy=rpy) if j == 0 else dict(placement=np.eye(4))
                extra.update(body if last else dict(actuated=body["actuated"]))
                up = self.add_body(name + bsuffix, up, jkind, joint_name=jn + jsuffix, axis=ax,
                                   **{key: vals[j] for key, vals in split.items()}, **extra)
        except ModelError:
            self._nodes, self._order, self._joint_names, self._has_free = saved
            raise
        return name

    def _per_dof(self, n, key, val, nv):
        """``val`` (a number, or one per dof of the joint) as a float array of the joint's nv
        entries (a number: every dof). A fixed joint (nv = 0) keeps what it is given, unused."""
        try:
            arr = np.array(val, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(self._where(f"joint '{n.joint_name}': {key} must be a number, got {val!r}")) from None
        if nv == 0:
            return arr.reshape(-1)
        if arr.ndim == 0:
            return np.full(nv, float(arr))
        if arr.shape != (nv,):
            need = "1 value" if nv == 1 else f"1 or {nv} values (one per dof)"
            raise ModelError(self._where(f"joint '{n.joint_name}': {key} needs {need}, got {arr.tolist()}"))
        return arr

    def add_fixed_body(self, name, parent, *, placement=None, xyz=None, rpy=None, mass=0.0,
                       com=(0, 0, 0), inertia=None, joint_name=None):
        """A body rigidly attached to ``parent``: lumped into it, kept as a named frame."""
        return self.add_body(name, parent, "fixed", joint_name=joint_name, placement=placement,
                             xyz=xyz, rpy=rpy, mass=mass, com=com, inertia=inertia)

    def add_frame(self, name, parent, placement=None, *, xyz=None, rpy=None, kind="op"):
        """An operational frame on ``parent`` (a body or frame name) with a fixed placement."""
        self._check_new_name(name)
        if not self._known(parent) and parent not in self._frame_names:
            raise ModelError(self._where(f"frame '{name}': parent '{parent}' does not exist"))
        self._frames.append((name, parent, placement_from(placement, xyz, rpy, self._where(f"frame '{name}': placement")), kind))
        self._frame_names.add(name)
        return name

    def _is_target(self, name):
        return self._known(name) or name in self._frame_names

    def add_collision(self, body, shape, *, xyz=None, rpy=None, placement=None, name=None, contype=1,
                      conaffinity=1, friction=None, restitution=None):
        """Attach a collision ``shape`` to ``body``; returns the collision's name.

        ``body`` is a body name, a frame name, or the world (``"world"``: fixed scenery such as the
        ground ``HalfSpace()``). ``placement`` (or ``xyz``, ``rpy``) places the shape frame in the
        body (or frame) frame. A body lumped by a fixed joint hands its shapes to the moving body
        that absorbs it, with the composed placement. ``name`` defaults to ``"<body>_<k>"``.
        ``contype`` and ``conaffinity`` (non-negative int bit masks, default 1 and 1) filter pairs
        as MuJoCo does: two shapes may touch when ``(contype_a & conaffinity_b) or
        (contype_b & conaffinity_a)`` is nonzero. ``friction`` and ``restitution`` (None: the
        run's :class:`~artidyn.contact.ContactSettings`): the shape's own coefficients; a pair takes
        the larger of its two shapes' (:func:`artidyn.geometry.shapes.pair_parameters`).
        """
        laws = tuple(check_coefficient(x, self._where(f"add_collision('{body}'): {key}"), hi, InputError)
                     for key, x, hi in (("friction", friction, np.inf), ("restitution", restitution, 1.0)))
        masks = tuple(check_mask(m, self._where(f"add_collision('{body}'): {key}"), InputError)
                      for key, m in (("contype", contype), ("conaffinity", conaffinity)))
        if not isinstance(shape, Shape):
            raise ModelError(self._where(f"add_collision('{body}'): shape must be one of "
                                         f"{', '.join(s.__name__ for s in SHAPES)}, got {type(shape).__name__}"))
        if not isinstance(body, str) or not self._is_target(body):
            known = [self.world] + self._order + [f[0] for f in self._frames]
            msg = unknown_name("body", body, known).args[0]
            raise ModelError(self._where(f"add_collision: {msg}"))
        taken = {c[0] for c in self._collisions}
        if name is None:
            k = sum(c[1] == body for c in self._collisions)
            while f"{body}_{k}" in taken:
                k += 1
            name = f"{body}_{k}"
        elif not isinstance(name, str) or not name:
            raise ModelError(self._where(f"add_collision('{body}'): name must be a non-empty string, got {name!r}"))
        elif name in taken:
            raise ModelError(self._where(f"add_collision('{body}'): duplicate collision name '{name}'"))
        T = placement_from(placement, xyz, rpy, where=self._where(f"collision '{name}': placement"))
        self._collisions.append((name, body, shape, T))
        if masks != (1, 1):
            self._masks[name] = masks
        if laws != (None, None):
            self._laws[name] = laws
        return name

    def exclude_collision(self, body_a, body_b):
        """Never test the shapes of ``body_a`` against those of ``body_b`` (names; "world" allowed).

        Names of bodies lumped by fixed joints (or of frames) stand for the body that carries them.
        """
        for b in (body_a, body_b):
            if not isinstance(b, str) or not self._is_target(b):
                known = [self.world] + self._order + [f[0] for f in self._frames]
                msg = unknown_name("body", b, known).args[0]
                raise ModelError(self._where(f"exclude_collision: {msg}"))
        self._exclusions.append((body_a, body_b))

    def set_mass(self, body, mass, com=(0, 0, 0), inertia=None):
        n = self._nodes[body]
        n.mass, n.com, n.inertia = check_inertia(self._where(f"body '{body}'"), mass, com,
                                                 np.zeros((3, 3)) if inertia is None else inertia)

    # --- sagittal symmetry ------------------------------------------------------------------
    def add_mirrored(self, root, rename, normal=(0.0, 1.0, 0.0), point=(0.0, 0.0, 0.0)):
        """Add the mirror image of the limb rooted at body ``root`` (the indirect frames
        of J. Reuss, "Modélisation des robots", 2013).

        The plane of symmetry passes through ``point`` with unit ``normal``, both in the frame of
        ``root``'s parent. ``rename`` maps each name of the limb to the mirrored name (a callable
        or a dict). Each mirrored frame is the reflected frame made right-handed again by a local
        reflection D (same ``normal``): ``W' = Refl W D``. Hence revolute axes become ``-D u``,
        prismatic axes ``D u``, centres of mass ``D c`` and inertias ``D I D``, so that equal
        values of the mirrored 1-dof joint variables give mirror-image placements. A spherical
        joint's rotation R becomes D R D = R(-D u, theta): the mirror-image configuration takes
        the quaternion (-D xyz, w) and the angular velocity -D omega (a pseudovector). A
        cylindrical joint turns about ``-D u`` as a revolute one, so its slide is mirrored as
        ``(q_0, -q_1)`` (limits and spring rest position follow). Frames
        added on the limb's bodies (or on such frames) are mirrored too. Returns the list of new
        body names.
        """
        if root not in self._nodes:
            raise unknown_name("body", root, self._order, self.name)
        nrm = np.asarray(normal, dtype=float)
        if nrm.shape != (3,) or not np.all(np.isfinite(nrm)) or np.linalg.norm(nrm) < 1e-12:
            raise ModelError(self._where(f"add_mirrored('{root}'): the plane normal must be a non-zero "
                                         f"3-vector, got {nrm.tolist()}"))
        nrm = nrm / np.linalg.norm(nrm)
        D = np.eye(3) - 2 * np.outer(nrm, nrm)
        D4 = homogeneous(D, np.zeros(3))
        refl = homogeneous(D, 2 * np.dot(np.asarray(point, float), nrm) * nrm)

        def name_of(s):
            try:
                out = rename(s) if callable(rename) else rename[s]
            except KeyError:
                raise ModelError(self._where(f"add_mirrored('{root}'): rename has no entry for '{s}'")) from None
            if not isinstance(out, str) or not out or out == s:
                raise ModelError(self._where(f"add_mirrored('{root}'): rename maps '{s}' to {out!r}; "
                                             f"the mirrored name must be a new non-empty string"))
            return out
        limb = [root]
        for name in self._order:
            if self._nodes[name].parent in limb and name not in limb:
                limb.append(name)
        for name in limb:  # every new name first, so that a bad rename changes nothing
            name_of(name)
            if self._nodes[name].moving:
                name_of(self._nodes[name].joint_name)
        new = []
        for name in limb:
            n = self._nodes[name]
            T = (refl if name == root else D4) @ n.T @ D4
            parent = n.parent if name == root else name_of(n.parent)
            axis = -D @ n.axis if n.jtype in (REVOLUTE, CYLINDRICAL, HELICAL) else D @ n.axis
            jname = name_of(n.joint_name) if n.moving else None
            lower, upper, rest = n.lower, n.upper, n.rest
            if n.jtype == CYLINDRICAL:  # the slide runs along -D u: q_1 -> -q_1
                lo = np.full(2, -np.inf) if lower is None else lower
                hi = np.full(2, np.inf) if upper is None else upper
                lower, upper, rest = np.array([lo[0], -hi[1]]), np.array([hi[0], -lo[1]]), n.rest * [1.0, -1.0]
            self.add_body(name_of(name), parent, n.kind, joint_name=jname, axis=axis, placement=T,
                          mass=n.mass, com=D @ n.com, inertia=D @ n.inertia @ D, lower=lower,
                          upper=upper, velocity=n.velocity, effort=n.effort, armature=n.armature,
                          damping=n.damping, coulomb=n.coulomb, stiffness=n.stiffness, rest=rest,
                          actuated=n.actuated, pitch=-n.pitch)  # a mirrored screw turns the other way
            new.append(name_of(name))
        members = set(limb)
        for fname, parent, P, kind in list(self._frames):
            if parent in members:
                self.add_frame(name_of(fname), name_of(parent), D4 @ P @ D4, kind=kind)
                members.add(fname)
        self._mirror_collisions(members, name_of, rename, D4)
        return new

    def _mirror_collisions(self, members, name_of, rename, D4):
        """Shapes on the limb, reflected: placement D P Dz on the mirrored body, shape reflected in
        its own z (every primitive is symmetric in its xy-plane; a mesh's z is negated)."""
        Dz = np.diag([1.0, 1.0, -1.0, 1.0])
        for cname, on, shape, P in list(self._collisions):
            if on in members:
                try:
                    new = rename(cname) if callable(rename) else rename.get(cname)
                except KeyError:
                    new = None
                new = new if isinstance(new, str) and new and new != cname else None
                ct, ca = self._masks.get(cname, (1, 1))
                mu, e = self._laws.get(cname, (None, None))
                self.add_collision(name_of(on), shape.reflected_z(), placement=D4 @ P @ Dz, name=new, contype=ct,
                                   conaffinity=ca, friction=mu, restitution=e)
        for a, b in list(self._exclusions):
            if a in members or b in members:
                self.exclude_collision(name_of(a) if a in members else a, name_of(b) if b in members else b)

    # --- build ----------------------------------------------------------------------------------
    def build(self):
        """Validate and number the tree (depth-first, parent < child); return the Model."""
        # moving ancestor of each node and its placement in that ancestor's frame
        anchor = {self.world: (self.world, np.eye(4))}
        for name in self._order:
            n = self._nodes[name]
            if n.moving:
                anchor[name] = (name, np.eye(4))
            else:
                a, Ta = anchor[n.parent]
                anchor[name] = (a, Ta @ n.T)
        moving_children = {self.world: []}
        for name in self._order:
            if self._nodes[name].moving:
                moving_children[name] = []
        for name in self._order:
            n = self._nodes[name]
            if n.moving:
                moving_children[anchor[n.parent][0]].append(name)
        order = []  # depth-first, children in insertion order
        stack = [self.world]
        while stack:
            k = stack.pop()
            order.append(k)
            stack.extend(reversed(moving_children[k]))
        index = {name: i for i, name in enumerate(order)}
        nb = len(order) - 1

        # lumped inertias: every node's spatial inertia moved into its moving ancestor's frame
        I = np.zeros((nb + 1, 6, 6))
        for name in self._order:
            n = self._nodes[name]
            a, Ta = anchor[name]
            I[index[a]] += inertia_transform(Ta, spatial_inertia(n.mass, n.com, n.inertia))
        check_spatial_inertias(I, order, self.source)
        mass = I[:, 5, 5].copy()
        com = np.zeros((nb + 1, 3))
        Icom = np.zeros((nb + 1, 3, 3))
        for i in range(nb + 1):
            if mass[i] > 0:
                _, com[i], Icom[i] = inertia_parts(I[i])
        # every moving body must carry inertia through its subtree, else M is singular
        sub_mass = mass.copy()
        parent = np.full(nb + 1, -1, dtype=np.int64)
        for i in range(1, nb + 1):
            parent[i] = index[anchor[self._nodes[order[i]].parent][0]]
        for i in range(nb, 0, -1):
            sub_mass[parent[i]] += sub_mass[i]
        for i in range(1, nb + 1):
            if sub_mass[i] <= 0:
                n = self._nodes[order[i]]
                raise ModelError(self._where(
                    f"body '{order[i]}' moves (joint '{n.joint_name}') but it and everything it carries "
                    f"have zero mass: the mass matrix would be singular; give it a positive mass"))
            if mass[i] <= 0:
                self.report.add("info", f"body '{order[i]}'", "massless moving body (its children carry the inertia)")

        jtype = np.full(nb + 1, -1, dtype=np.int64)
        axis = np.zeros((nb + 1, 3))
        Xtree = np.zeros((nb + 1, 4, 4))
        Xtree[0] = np.eye(4)
        nq_j = np.zeros(nb + 1, dtype=np.int64)
        nv_j = np.zeros(nb + 1, dtype=np.int64)
        kinds, jnames, S = [""], [""], [np.zeros((6, 0))]
        for i in range(1, nb + 1):
            n = self._nodes[order[i]]
            jtype[i], axis[i] = n.jtype, n.axis
            Xtree[i] = anchor[n.parent][1] @ n.T
            nq_j[i], nv_j[i] = NQ[n.jtype], NV[n.jtype]
            kinds.append({FREE: "free", SPHERICAL: "spherical", HELICAL: "helical"}.get(n.jtype, n.kind))  # aliases
            jnames.append(n.joint_name)
            S.append(motion_subspace(n.jtype, n.axis, getattr(n, 'pitch', 0.0)))
        bad = [order[i] for i in range(2, nb + 1) if jtype[i] == FREE and self._nodes[order[i]].parent != "world"]
        if bad:
            raise ModelError(self._where(f"a free (floating) joint moves a body relative to the world: its parent "
                                         f"must be 'world', found on {bad}"))
        idx_q = np.zeros(nb + 1, dtype=np.int64)
        idx_v = np.zeros(nb + 1, dtype=np.int64)
        for i in range(2, nb + 1):
            idx_q[i] = idx_q[i - 1] + nq_j[i - 1]
            idx_v[i] = idx_v[i - 1] + nv_j[i - 1]
        if nb:
            idx_q[0] = idx_v[0] = 0
        nq, nv = int(nq_j.sum()), int(nv_j.sum())

        lower, upper = np.full(nq, -np.inf), np.full(nq, np.inf)
        vel, eff = np.full(nv, np.inf), np.full(nv, np.inf)
        arm, damp, coul = np.zeros(nv), np.zeros(nv), np.zeros(nv)
        stiff, rest = np.zeros(nv), np.zeros(nv)
        act = np.ones(nv, dtype=bool)
        for i in range(1, nb + 1):
            n = self._nodes[order[i]]
            qs, vs = slice(idx_q[i], idx_q[i] + nq_j[i]), slice(idx_v[i], idx_v[i] + nv_j[i])
            if n.jtype in FLAT:
                if n.lower is not None:
                    lower[qs] = n.lower
                if n.upper is not None:
                    upper[qs] = n.upper
            elif n.jtype == SPHERICAL:
                lower[qs], upper[qs] = -1.0, 1.0
            else:
                lower[idx_q[i] + 3: idx_q[i] + 7], upper[idx_q[i] + 3: idx_q[i] + 7] = -1.0, 1.0
            if n.velocity is not None:
                vel[vs] = n.velocity
            if n.effort is not None:
                eff[vs] = n.effort
            arm[vs], damp[vs], coul[vs] = n.armature, n.damping, n.coulomb
            stiff[vs], rest[vs] = n.stiffness, n.rest
            act[vs] = n.actuated and n.jtype != FREE

        frames = [Frame(self.world, 0, np.eye(4), "body")]
        for i in range(1, nb + 1):
            frames.append(Frame(order[i], i, np.eye(4), "body"))
        for name in self._order:
            if not self._nodes[name].moving:
                a, Ta = anchor[name]
                frames.append(Frame(name, index[a], Ta, "link"))
        resolved = {f.name: f for f in frames}
        for fname, on, P, kind in self._frames:
            if on in resolved:
                base = resolved[on]
            else:
                a, Ta = anchor[on]
                base = Frame(on, index[a], Ta, "link")
            f = Frame(fname, base.body, base.placement @ P, kind)
            frames.append(f)
            resolved[fname] = f

        collisions = []
        for cname, on, shape, P in self._collisions:  # on a lumped link: on the body absorbing it
            ct, ca = self._masks.get(cname, (1, 1))
            mu, e = self._laws.get(cname, (None, None))
            collisions.append(Collision(cname, resolved[on].body, shape, resolved[on].placement @ P, ct, ca, mu, e))
        exclusions = [(resolved[a].body, resolved[b].body) for a, b in self._exclusions]

        return Model(
            name=self.name, nb=nb, nq=nq, nv=nv, body_names=list(order), joint_names=jnames,
            parent=parent, joint_type=jtype, joint_kind=kinds, joint_axis=axis,
            joint_placement=Xtree, idx_q=idx_q, nq_joint=nq_j, idx_v=idx_v, nv_joint=nv_j, S=S,
            mass=mass, com=com, inertia_com=Icom, I=I, lower=lower, upper=upper,
            velocity_limit=vel, effort_limit=eff, armature=arm, damping=damp, coulomb=coul,
            stiffness=stiff, rest=rest, actuated=act, gravity=self.gravity.copy(), frames=frames, source=self.source,
            load_report=self.report, dh=self.dh, dh_convention=self.dh_convention,
            meshes=dict(self.meshes), constraint_specs=tuple(self.constraint_specs),
            collisions=tuple(collisions), collision_exclusions=exclusions,
        )


def inverse_placement(T):
    return inv_homogeneous(T)
