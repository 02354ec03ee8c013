"""Pinocchio models and states: ``to_pinocchio``, ``from_pinocchio`` and :class:`Converter`.

artidyn and pinocchio (Carpentier et al., "The Pinocchio C++ library", SII 2019) describe the same
rigid-body tree with different layouts:

================  ==========================================  ==========================================
item              artidyn                                     pinocchio
================  ==========================================  ==========================================
joint order       depth-first, children in file order         its own order (URDF: its child order)
continuous joint  nq = 1 (the angle)                          nq = 2: (cos, sin); nv = 1 in both
floating base     'root_joint', q = [p, quat (x, y, z, w)]    same q (JointModelFreeFlyer)
free-joint v      [omega_body; v_body]   (angular first)      [v_local; omega_local] (linear first)
spatial vectors   [angular; linear], Jacobian rows likewise   [linear; angular]
================  ==========================================  ==========================================

Joints are matched by NAME, so a pinocchio model built from the same URDF (any joint order)
works as well as one made by :func:`to_pinocchio`. Velocity-like vectors (v, a, tau) follow
one permutation ``P`` of the nv entries, ``v_pin = v_art[..., P]``; matrices over v (M, C) and
Jacobian columns use it on both axes. Every converter takes one vector ``(n,)`` or a batch
``(N, n)``::

    pm = to_pinocchio(model)                    # or pin.buildModelFromUrdf(...)
    cv = Converter(model, pm)
    qp, vp = cv.to_pin_q(q), cv.to_pin_v(v)
    tau = cv.from_pin_v(pin.rnea(pm, pm.createData(), qp, vp, cv.to_pin_v(a)))
    M = cv.from_pin_matrix(pin.crba(pm, data, qp))
    J = cv.from_pin_jacobian(pin.getFrameJacobian(pm, data, fid, pin.LOCAL_WORLD_ALIGNED))

``pinocchio`` is imported inside the functions: ``import artidyn`` never needs it.
"""
import numpy as np

from ..errors import InputError, ModelError, ShapeError
from ..joints import CYLINDRICAL, FREE, HELICAL, PRISMATIC, REVOLUTE, SPHERICAL, pitch_of

BIG = 1e300     # pinocchio's "no limit" is the largest double; artidyn's is inf


def _pin():
    try:
        import pinocchio
    except ImportError:
        raise InputError("pinocchio is not installed (pip install pin): artidyn.interop's pinocchio "
                         "converters need it") from None
    return pinocchio


def _unbounded(x):
    x = np.asarray(x, dtype=float)
    return np.where(np.abs(x) >= BIG, np.copysign(np.inf, x), x)


def _bounded(x):
    return np.clip(np.asarray(x, dtype=float), -np.finfo(float).max, np.finfo(float).max)


# --- artidyn -> pinocchio -----------------------------------------------------------------------
def _aligned(axis):
    """'X', 'Y' or 'Z' when ``axis`` is exactly +e_x, +e_y or +e_z, else None."""
    for k, c in enumerate("XYZ"):
        e = np.zeros(3)
        e[k] = 1.0
        if np.array_equal(np.asarray(axis, dtype=float), e):
            return c
    return None


def _joint_model(pin, model, i):
    jt, axis, kind = int(model.joint_type[i]), np.array(model.joint_axis[i], dtype=float), model.joint_kind[i]
    c = _aligned(axis)
    if jt == FREE:
        return pin.JointModelFreeFlyer()
    if jt == SPHERICAL:
        return pin.JointModelSpherical()
    if jt == REVOLUTE and kind == "continuous":
        if c is None:
            raise InputError(f"to_pinocchio: {model.describe_joint(i)} is continuous about {axis.tolist()}; "
                             f"pinocchio's Python API builds unbounded revolute joints about +x, +y or +z only "
                             f"(make the joint revolute without limits, or rotate its frame)")
        return getattr(pin, f"JointModelRUB{c}")()
    if jt == REVOLUTE:
        return getattr(pin, f"JointModelR{c}")() if c else pin.JointModelRevoluteUnaligned(axis)
    if jt == PRISMATIC:
        return getattr(pin, f"JointModelP{c}")() if c else pin.JointModelPrismaticUnaligned(axis)
    if jt == CYLINDRICAL:       # a revolute and a prismatic pair on one axis, q = [angle, slide]
        comp = pin.JointModelComposite()
        comp.addJoint(pin.JointModelRevoluteUnaligned(axis))
        comp.addJoint(pin.JointModelPrismaticUnaligned(axis))
        return comp
    if jt == HELICAL:           # pinocchio >= 3: the slide is pitch * angle, as here
        if not hasattr(pin, "JointModelHelicalUnaligned"):
            raise InputError(f"to_pinocchio: {model.describe_joint(i)} is helical; pinocchio {pin.__version__} "
                             f"has no helical joint (pinocchio >= 3 has)")
        return pin.JointModelHelicalUnaligned(axis, pitch_of(jt, model.S[i]))
    raise InputError(f"to_pinocchio: {model.describe_joint(i)} has no pinocchio counterpart")


def _se3(pin, T):
    T = np.asarray(T, dtype=float)
    return pin.SE3(T[:3, :3].copy(), T[:3, 3].copy())


def to_pinocchio(model):
    """A ``pinocchio.Model`` of ``model``: same joints (ids = artidyn body numbers, same names),
    placements, lumped inertias, limits, armature, damping, Coulomb friction and gravity.

    Frames: each artidyn body and lumped link becomes a BODY frame, each operational frame an
    OP_FRAME, each joint a JOINT frame; the world's own inertia (fixed links lumped into the world)
    is ``inertias[0]``. Continuous joints become pinocchio's unbounded joints (q = (cos, sin)),
    cylindrical ones a composite (revolute, prismatic), helical ones pinocchio's helical joint;
    planar and universal joints, chains of 1-dof joints here, stay such chains. Use :class:`Converter` for states.
    Raises InputError without pinocchio, or for a joint pinocchio's Python API cannot build.
    """
    pin = _pin()
    pm = pin.Model()
    pm.name = model.name
    pm.gravity = pin.Motion(np.concatenate([np.asarray(model.gravity, dtype=float), np.zeros(3)]))
    pm.inertias[0] = pin.Inertia(float(model.mass[0]), np.array(model.com[0]), np.array(model.inertia_com[0]))
    for i in range(1, model.nb + 1):
        jid = pm.addJoint(int(model.parent[i]), _joint_model(pin, model, i), _se3(pin, model.joint_placement[i]),
                          model.joint_names[i])
        assert jid == i
        pm.appendBodyToJoint(jid, pin.Inertia(float(model.mass[i]), np.array(model.com[i]),
                                              np.array(model.inertia_com[i])), pin.SE3.Identity())
    cv = Converter(model, pm)
    lo = cv.to_pin_q(np.where(np.isfinite(model.lower), model.lower, 0.0), check=False)
    hi = cv.to_pin_q(np.where(np.isfinite(model.upper), model.upper, 0.0), check=False)
    for i, jid, kind in cv.joint_map:
        p, n = pm.joints[jid].idx_q, pm.joints[jid].nq
        a = int(model.idx_q[i])
        if kind == "unbounded":
            lo[p:p + 2], hi[p:p + 2] = -1.0, 1.0
        else:
            inf_lo, inf_hi = ~np.isfinite(model.lower[a:a + n]), ~np.isfinite(model.upper[a:a + n])
            lo[p:p + n][inf_lo], hi[p:p + n][inf_hi] = -np.inf, np.inf
    pm.lowerPositionLimit, pm.upperPositionLimit = _bounded(lo), _bounded(hi)
    vel, eff = cv.to_pin_v(model.velocity_limit), cv.to_pin_v(model.effort_limit)
    if hasattr(pm, "upperVelocityLimit"):
        pm.upperVelocityLimit, pm.lowerVelocityLimit = _bounded(vel), _bounded(-vel)
        pm.upperEffortLimit, pm.lowerEffortLimit = _bounded(eff), _bounded(-eff)
        pm.upperDryFrictionLimit, pm.lowerDryFrictionLimit = cv.to_pin_v(model.coulomb), -cv.to_pin_v(model.coulomb)
    else:       # pinocchio 2 and 3
        pm.velocityLimit, pm.effortLimit, pm.friction = _bounded(vel), _bounded(eff), cv.to_pin_v(model.coulomb)
    pm.armature, pm.damping = cv.to_pin_v(model.armature), cv.to_pin_v(model.damping)
    _add_frames(pin, model, pm)
    return pm


def _add_frames(pin, model, pm):
    body_frame = {}
    world = model.body_names[0]
    if world != "universe":
        body_frame[0] = pm.addFrame(pin.Frame(world, 0, 0, pin.SE3.Identity(), pin.FrameType.BODY), False)
    else:
        body_frame[0] = 0
    for i in range(1, model.nb + 1):
        jf = pm.addJointFrame(i, body_frame[int(model.parent[i])])
        body_frame[i] = pm.addFrame(pin.Frame(model.body_names[i], i, jf, pin.SE3.Identity(), pin.FrameType.BODY), False)
    for f in model.frames:
        if f.kind == "body":
            continue
        ftype = pin.FrameType.BODY if f.kind == "link" else pin.FrameType.OP_FRAME
        pm.addFrame(pin.Frame(f.name, f.body, body_frame[f.body], _se3(pin, f.placement), ftype), False)


# --- pinocchio -> artidyn -----------------------------------------------------------------------
def _joint_kind(pin, jm, name):
    """(builder joint kind, axis) of a pinocchio joint model; InputError when artidyn has none."""
    s = jm.shortname()
    basis = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
    if s == "JointModelFreeFlyer":
        return "free", (0.0, 0.0, 1.0)
    if s == "JointModelSpherical":
        return "spherical", (0.0, 0.0, 1.0)
    for prefix, kind in (("JointModelRUB", "continuous"), ("JointModelR", "revolute"), ("JointModelP", "prismatic")):
        if s.startswith(prefix) and s[len(prefix):] in basis:
            return kind, basis[s[len(prefix):]]
    if s in ("JointModelRevoluteUnaligned", "JointModelPrismaticUnaligned", "JointModelRevoluteUnboundedUnaligned"):
        kind = {"JointModelRevoluteUnaligned": "revolute", "JointModelPrismaticUnaligned": "prismatic"}.get(s, "continuous")
        return kind, tuple(np.array(jm.extract().axis, dtype=float))
    if s == "JointModelHelicalUnaligned":
        return "helical", tuple(np.array(jm.extract().axis, dtype=float))
    if s == "JointModelComposite":
        comp = jm.extract()
        subs = [j.shortname() for j in comp.joints]
        if subs == ["JointModelRevoluteUnaligned", "JointModelPrismaticUnaligned"]:
            a, b = (np.array(j.extract().axis, dtype=float) for j in comp.joints)
            same = all(np.allclose(np.asarray(P.homogeneous), np.eye(4)) for P in comp.jointPlacements)
            if np.allclose(a, b) and same:
                return "cylindrical", tuple(a)
    raise InputError(f"from_pinocchio: joint '{name}' is a pinocchio {s}, which artidyn has no joint type for "
                     f"(known: revolute, continuous, prismatic, helical, spherical, free flyer, and a cylindrical "
                     f"composite)")


def _body_names(pin, pm):
    """{joint id: name of its body} (the BODY frame at the joint, identity placement) and the world's name."""
    names, used = {}, set()
    for f in pm.frames:
        if f.type == pin.FrameType.BODY and f.parentJoint not in names and np.allclose(f.placement.homogeneous, np.eye(4)):
            if f.parentJoint == 0 and f.name == "universe":
                continue
            names[f.parentJoint] = f.name
            used.add(f.name)
    world = names.pop(0, "world")
    for jid in range(1, pm.njoints):
        if jid not in names:
            base = f"{pm.names[jid]}_body"
            name, k = base, 1
            while name in used:
                name, k = f"{base}{k}", k + 1
            names[jid] = name
            used.add(name)
    return names, world


def from_pinocchio(pin_model, name=None):
    """An artidyn :class:`~artidyn.Model` of a ``pinocchio.Model``: the same joints (names, types,
    placements, axes), the joint inertias, limits, armature, damping, Coulomb friction, gravity,
    and its BODY frames (as bodies and lumped links) and OP_FRAMEs (as operational frames).

    Body names are those of the BODY frame at each joint (a URDF link name), else
    ``"<joint>_body"``. Continuous (unbounded) joints take one angle. The inertia of the universe
    (pinocchio's joint 0) is not kept. Raises InputError without pinocchio or for a joint type
    artidyn has no single joint for (planar, universal: chains here, see :mod:`artidyn.joints`;
    mimic ...).
    """
    pin = _pin()
    from ..builder import ModelBuilder
    pm = pin_model
    names, world = _body_names(pin, pm)
    g = np.array(pm.gravity.linear, dtype=float)
    b = ModelBuilder(name or pm.name or "robot", gravity=g, world=world, source=f"pinocchio model '{pm.name}'")
    vel = pm.upperVelocityLimit if hasattr(pm, "upperVelocityLimit") else pm.velocityLimit
    eff = pm.upperEffortLimit if hasattr(pm, "upperEffortLimit") else pm.effortLimit
    fric = pm.upperDryFrictionLimit if hasattr(pm, "upperDryFrictionLimit") else pm.friction
    for jid in range(1, pm.njoints):
        jm, jname = pm.joints[jid], pm.names[jid]
        kind, axis = _joint_kind(pin, jm, jname)
        iq, iv, nv = jm.idx_q, jm.idx_v, jm.nv
        vs = slice(iv, iv + nv)
        lower = upper = None
        if kind in ("revolute", "prismatic", "cylindrical", "helical"):
            lower = _unbounded(pm.lowerPositionLimit[iq:iq + jm.nq])
            upper = _unbounded(pm.upperPositionLimit[iq:iq + jm.nq])
        I = pm.inertias[jid]
        parent = world if pm.parents[jid] == 0 else names[pm.parents[jid]]
        b.add_body(names[jid], parent, kind, joint_name=jname, axis=axis,
                   placement=np.array(pm.jointPlacements[jid].homogeneous), mass=float(I.mass),
                   com=np.array(I.lever), inertia=np.array(I.inertia), lower=lower, upper=upper,
                   velocity=_unbounded(vel[vs]), effort=_unbounded(eff[vs]),
                   armature=np.array(pm.armature[vs]), damping=np.array(pm.damping[vs]),
                   coulomb=np.array(fric[vs]), actuated=kind != "free",
                   pitch=float(jm.extract().pitch) if kind == "helical" else 0.0)
    taken = set(names.values()) | {world}
    for f in pm.frames:
        if f.name in taken or f.type not in (pin.FrameType.BODY, pin.FrameType.OP_FRAME):
            continue
        on = world if f.parentJoint == 0 else names[f.parentJoint]
        b.add_frame(f.name, on, np.array(f.placement.homogeneous),
                    kind="link" if f.type == pin.FrameType.BODY else "op")
        taken.add(f.name)
    try:
        return b.build()
    except ModelError as exc:
        raise InputError(f"from_pinocchio: {exc}") from None


# --- states ---------------------------------------------------------------------------------------
class Converter:
    """State converters between an artidyn model and a pinocchio model of the same robot.

    Joints are matched by name (``joint_map``: (artidyn body i, pinocchio joint id, kind) with
    kind 'free', 'unbounded' (pinocchio (cos, sin)) or 'scalar'); ``P`` is the permutation with
    ``v_pin = v_art[..., P]``. Methods take one vector or a batch (leading axes kept):

    - ``to_pin_q`` / ``from_pin_q``: configurations (continuous: angle <-> (cos, sin));
    - ``to_pin_v`` / ``from_pin_v``: v, a, tau (aliases ``*_a``, ``*_tau``);
    - ``to_pin_matrix`` / ``from_pin_matrix``: (nv, nv) matrices over v (M, C, dtau/dq ...);
    - ``to_pin_jacobian`` / ``from_pin_jacobian``: 6 x nv Jacobians (rows [omega; v] <-> [v; omega],
      columns permuted); the frame convention is unchanged (artidyn "world" is pinocchio's
      LOCAL_WORLD_ALIGNED, "local" is LOCAL);
    - ``to_pin_motion`` / ``from_pin_motion``: 6-vectors and 6-row arrays (also wrenches).

    ``to_pin_q`` runs :func:`artidyn.interop.check_configuration` on its input (``check=False``
    skips it) and ``from_pin_q`` checks that its input has pinocchio's size.
    """

    def __init__(self, model, pin_model):
        self.model, self.pin_model = model, pin_model
        self.joint_map = self._joint_map()
        P = np.empty(model.nv, dtype=int)
        for i, jid, kind in self.joint_map:
            a, p = int(model.idx_v[i]), pin_model.joints[jid].idx_v
            if kind == "free":
                P[p:p + 6] = [a + 3, a + 4, a + 5, a, a + 1, a + 2]
            else:
                n = int(model.nv_joint[i])
                P[p:p + n] = np.arange(a, a + n)
        self.P, self.P_inv = P, np.argsort(P)

    def _joint_map(self):
        model, pm = self.model, self.pin_model
        out = []
        for i in range(1, model.nb + 1):
            name = model.joint_names[i]
            if not pm.existJointName(name):
                raise InputError(f"Converter: joint '{name}' of artidyn model '{model.name}' is not in pinocchio "
                                 f"model '{pm.name}' (joints are matched by name)")
            jid = pm.getJointId(name)
            pj = pm.joints[jid]
            if pj.nv != model.nv_joint[i]:
                raise InputError(f"Converter: joint '{name}' has nv {model.nv_joint[i]} in artidyn, {pj.nv} in pinocchio")
            if model.joint_type[i] == FREE:
                kind = "free"
            elif pj.nq == 2 and model.nq_joint[i] == 1:
                kind = "unbounded"
            elif pj.nq == model.nq_joint[i]:
                kind = "scalar"
            else:
                raise InputError(f"Converter: joint '{name}' has nq {model.nq_joint[i]} in artidyn, {pj.nq} in pinocchio")
            out.append((i, jid, kind))
        if pm.nv != model.nv or len(out) != pm.njoints - 1:
            raise InputError(f"Converter: artidyn '{model.name}' has nv={model.nv} and {model.nb} joints, pinocchio "
                             f"'{pm.name}' nv={pm.nv} and {pm.njoints - 1} joints")
        return out

    @staticmethod
    def _vec(x, n, what):
        x = np.asarray(x, dtype=float)
        if x.ndim == 0 or x.shape[-1] != n:
            raise ShapeError(f"{what}: expected {n} entries in the last axis, got shape {x.shape}")
        return x

    # configurations
    def to_pin_q(self, q, check=True):
        """artidyn q (nq,) or (N, nq) -> pinocchio q (continuous: angle -> (cos, sin))."""
        model, pm = self.model, self.pin_model
        q = self._vec(q, model.nq, "to_pin_q: q")
        if check:
            from .convention import check_configuration
            check_configuration(model, q)
        out = np.zeros(q.shape[:-1] + (pm.nq,))
        for i, jid, kind in self.joint_map:
            a, p, n = int(model.idx_q[i]), pm.joints[jid].idx_q, int(model.nq_joint[i])
            if kind == "unbounded":
                out[..., p], out[..., p + 1] = np.cos(q[..., a]), np.sin(q[..., a])
            else:
                out[..., p:p + n] = q[..., a:a + n]
        return out

    def from_pin_q(self, qp):
        """pinocchio q -> artidyn q (continuous: (cos, sin) -> angle by atan2)."""
        model, pm = self.model, self.pin_model
        qp = self._vec(qp, pm.nq, "from_pin_q: q (pinocchio)")
        out = np.zeros(qp.shape[:-1] + (model.nq,))
        for i, jid, kind in self.joint_map:
            a, p, n = int(model.idx_q[i]), pm.joints[jid].idx_q, int(model.nq_joint[i])
            if kind == "unbounded":
                out[..., a] = np.arctan2(qp[..., p + 1], qp[..., p])
            else:
                out[..., a:a + n] = qp[..., p:p + n]
        return out

    # velocities, accelerations, generalised forces
    def to_pin_v(self, v):
        """artidyn v / a / tau -> pinocchio's ordering (free joint [omega; v] -> [v; omega])."""
        return self._vec(v, self.model.nv, "to_pin_v")[..., self.P]

    def from_pin_v(self, vp):
        """pinocchio v / a / tau -> artidyn's ordering."""
        return self._vec(vp, self.model.nv, "from_pin_v")[..., self.P_inv]

    to_pin_a = to_pin_tau = to_pin_v
    from_pin_a = from_pin_tau = from_pin_v

    # matrices over v
    def to_pin_matrix(self, M):
        """(.., nv, nv) artidyn matrix over v (mass matrix ...) -> pinocchio's ordering."""
        M = np.asarray(M, dtype=float)
        return M[..., self.P, :][..., :, self.P]

    def from_pin_matrix(self, Mp):
        """(.., nv, nv) pinocchio matrix over v -> artidyn's ordering."""
        Mp = np.asarray(Mp, dtype=float)
        return Mp[..., self.P_inv, :][..., :, self.P_inv]

    # spatial vectors and Jacobians
    @staticmethod
    def to_pin_motion(x):
        """artidyn 6-vector(s) / 6-row array [angular; linear] -> pinocchio [linear; angular] (axis 0)."""
        x = np.asarray(x, dtype=float)
        return np.concatenate([x[3:6], x[0:3]], axis=0)

    from_pin_motion = to_pin_motion        # the swap is its own inverse

    def to_pin_jacobian(self, J):
        """artidyn 6 x nv Jacobian -> pinocchio's (rows [v; omega], pinocchio's columns)."""
        return self.to_pin_motion(J)[:, self.P]

    def from_pin_jacobian(self, Jp):
        """pinocchio 6 x nv Jacobian -> artidyn's (rows [omega; v], artidyn's columns)."""
        return self.from_pin_motion(Jp)[:, self.P_inv]
