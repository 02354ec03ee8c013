"""MJCF joints (MuJoCo XML reference, body/joint and body/freejoint) as artidyn joints.

- ``hinge``, ``slide``, ``ball``, ``free`` -> revolute, prismatic, spherical, free.
- artidyn's q of a hinge or slide is MuJoCo's ``qpos - ref``: q = 0 is the pose written in the
  file. Its limits are therefore ``range - ref`` and its spring rest position ``springref - ref``
  (both in radians under ``angle="degree"``).
- ``springdamper="timeconst dampratio"``: MuJoCo's compiler replaces the joint's stiffness and
  damping by ``k = m / (timeconst dampratio)^2`` and ``b = 2 m / timeconst``, where m is the
  joint's inertia in the reference configuration: ``ndof / trace`` of the joint's block of the
  inverse mass matrix at ``qpos0``, armature included (MuJoCo's ``dof_invweight0``). artidyn
  computes the same quantity here (:func:`apply_springdamper`).
- Springs on ball and free joints, the range of a ball joint (a cone) and ``springyield``
  (plastic springs) are not modelled: a warning each.
- Armature on a free joint: MuJoCo's multiplies the acceleration of the free joint's velocity
  coordinates, whose linear part is the world-frame velocity; artidyn's multiplies the
  derivative of the body-frame velocity ``[omega; v]``. The mass matrices agree; the
  accelerations differ: MuJoCo's motion is artidyn's under the extra force
  ``-armature (omega x v)`` on the free joint's linear rows. The reader keeps artidyn's rule,
  with a note and a warning.
"""
import numpy as np

from ...errors import PlausibilityWarning
from ...spatial.motion import skew
from ..urdf_reader import DEGREE_HINT, looks_like_degrees

JOINT_KINDS = {"hinge": "revolute", "slide": "prismatic", "ball": "spherical", "free": "free"}


class JointSpec:
    """One MJCF joint: the builder's keyword arguments ``kw``, its anchor ``pos`` in the body frame,
    its element ``el`` and its ``springdamper`` (timeconst, dampratio) or None."""

    def __init__(self, el, kw, pos, springdamper=None):
        self.el, self.kw, self.pos, self.springdamper = el, kw, pos, springdamper


def joint_spec(r, s, el, attrs, F):
    """The :class:`JointSpec` of one MJCF joint (``F``: the frame it sits in, in the body frame)."""
    jtype = attrs.get("type", "hinge")
    if jtype not in JOINT_KINDS:
        raise r.error(el, f"unknown joint type {jtype!r} (known: {', '.join(JOINT_KINDS)})", "type")
    kind = JOINT_KINDS[jtype]
    kw = {"joint": kind, "joint_name": attrs.get("name")}
    if kind in ("revolute", "prismatic"):
        _flat_joint(r, s, el, attrs, F, kw)
    else:
        _ball_or_free(r, s, el, attrs, jtype)
    kw["armature"] = r.number(el, attrs, "armature")
    kw["damping"] = 0.0 if s.off("damper") else r.number(el, attrs, "damping")
    kw["coulomb"] = 0.0 if s.off("frictionloss") else r.number(el, attrs, "frictionloss")
    if r.number(el, attrs, "springyield") > 0:
        r.not_modelled(el, "plastic joint springs (springyield) are not modelled: the spring stays elastic",
                       "springyield")
    if kind == "free" and kw["armature"] != 0:
        r.not_modelled(el, "MuJoCo's free-joint armature multiplies the world-frame linear acceleration, artidyn's "
                           "the body-frame one: the mass matrices agree, the accelerations differ by the force "
                           "-armature (omega x v) on the linear rows", "armature")
    sd = r.numbers(el, attrs, "springdamper", 2, default=(0.0, 0.0))
    pos = F[:3, :3] @ r.numbers(el, attrs, "pos", 3, default=(0.0, 0.0, 0.0)) + F[:3, 3]
    return JointSpec(el, kw, np.zeros(3) if kind == "free" else pos,
                     tuple(sd) if sd[0] > 0 and sd[1] > 0 else None)


def _flat_joint(r, s, el, attrs, F, kw):
    """Axis, limits and spring of a hinge or slide, measured from ``ref`` (artidyn's q = qpos - ref)."""
    revolute = kw["joint"] == "revolute"
    kw["axis"] = tuple(F[:3, :3] @ r.numbers(el, attrs, "axis", 3, default=(0.0, 0.0, 1.0)))
    scale = r.angle_scale if revolute else 1.0
    ref = r.number(el, attrs, "ref") * scale
    limited = r.flag(el, attrs, "limited", "auto")
    if limited == "true" or (limited == "auto" and s.autolimits and "range" in attrs):
        raw = r.numbers(el, attrs, "range", 2, default=(0.0, 0.0))
        if revolute and r.angle_scale == 1.0 and looks_like_degrees(*raw):
            r.warn(PlausibilityWarning, el, f"revolute range {raw[0]:g} .. {raw[1]:g} rad looks like degrees "
                                            f"(<compiler angle='radian'>; {DEGREE_HINT})", "range")
        if not s.off("limit"):
            kw["lower"], kw["upper"] = raw * scale - ref
    kw["stiffness"] = 0.0 if s.off("spring") else r.number(el, attrs, "stiffness")
    kw["rest"] = r.number(el, attrs, "springref") * scale - ref


def _ball_or_free(r, s, el, attrs, jtype):
    """Warnings for what MuJoCo gives a ball or free joint and artidyn does not model."""
    if r.number(el, attrs, "stiffness") != 0 and not s.off("spring"):
        r.not_modelled(el, f"the spring of a {jtype} joint is not modelled (artidyn's joint springs act on hinge "
                           f"and slide joints)", "stiffness")
    limited = r.flag(el, attrs, "limited", "auto")
    if jtype == "ball" and not s.off("limit") and (limited == "true" or (limited == "auto" and s.autolimits
                                                                          and "range" in attrs)):
        r.not_modelled(el, "the range of a ball joint (a cone around its reference orientation) is not modelled",
                       "range")


# --- springdamper ---------------------------------------------------------------------------------
def apply_springdamper(r, s, bodies, inertias, specs):
    """Stiffness and damping of the joints with ``springdamper``, from the inverse mass matrix at the
    reference configuration (MuJoCo XML reference, body/joint/springdamper)."""
    if not any(js.springdamper for jss in specs for js in jss):
        return
    Minv, blocks = _reference_inverse_mass(bodies, inertias, specs)
    for jss, cols in zip(specs, blocks):
        for js, c in zip(jss, cols):
            if js.springdamper is None:
                continue
            timeconst, dampratio = js.springdamper
            m = len(c) / max(1e-15, np.trace(Minv[np.ix_(c, c)]))
            k, b = m / max(1e-15, (timeconst * dampratio) ** 2), 2 * m / max(1e-15, timeconst)
            if js.kw["joint"] in ("revolute", "prismatic"):
                js.kw["stiffness"] = 0.0 if s.off("spring") else k
            elif not s.off("spring"):
                r.not_modelled(js.el, f"springdamper gives this {js.kw['joint']} joint a spring (stiffness {k:.6g}): "
                                      f"not modelled (artidyn's joint springs act on hinge and slide joints)",
                               "springdamper")
            js.kw["damping"] = 0.0 if s.off("damper") else b
            r.note("info", js.el, f"springdamper {timeconst:g} {dampratio:g}: stiffness {k:.6g}, damping {b:.6g} "
                                  f"(joint inertia {m:.6g} at the reference configuration)")


def _reference_inverse_mass(bodies, inertias, specs):
    """(M^-1 at the reference configuration, per body the dof indices of each of its joints).

    The mass matrix is assembled in world-aligned coordinates, ``M = sum_b J_b^T I_b J_b`` with
    the spatial inertia ``I_b`` of each body about the world origin and ``J_b`` the motion
    subspaces of the joints from the root to the body; armature on the diagonal. Each joint's
    block of M^-1 does not depend on how the other joints' velocities are written."""
    columns, blocks, arm = [], [], []
    for jss, b in zip(specs, bodies):
        cols = []
        for js in jss:
            S = _motion_subspace(js, b.world_T)
            cols.append(list(range(len(columns), len(columns) + S.shape[1])))
            columns.extend(S.T)
            arm.extend([js.kw["armature"]] * S.shape[1])
        blocks.append(cols)
    nv = len(columns)
    S_all = np.array(columns).T.reshape(6, nv)
    index = {id(b): k for k, b in enumerate(bodies)}
    own = [[c for cols in blocks[k] for c in cols] for k in range(len(bodies))]
    M = np.diag(np.array(arm, dtype=float))
    chains = []
    for k, b in enumerate(bodies):
        chain = (chains[index[id(b.parent)]] if b.parent is not None else []) + own[k]
        chains.append(chain)
        J = S_all[:, chain]
        M[np.ix_(chain, chain)] += J.T @ _spatial_inertia(b.world_T, *inertias[k]) @ J
    try:
        return np.linalg.inv(M), blocks
    except np.linalg.LinAlgError:
        return np.linalg.pinv(M), blocks


def _motion_subspace(js, world_T):
    """(6, n) motion subspace of a joint at the reference configuration, [omega; velocity of the
    point at the world origin], world axes."""
    R, kind = world_T[:3, :3], js.kw["joint"]
    p = (world_T @ np.r_[js.pos, 1.0])[:3]
    if kind == "prismatic":
        return np.r_[np.zeros(3), R @ np.asarray(js.kw["axis"]) / np.linalg.norm(js.kw["axis"])][:, None]
    axes = [R @ np.asarray(js.kw["axis"]) / np.linalg.norm(js.kw["axis"])] if kind == "revolute" else list(R.T)
    S = [np.r_[a, np.cross(p, a)] for a in axes]
    if kind == "free":
        S += [np.r_[np.zeros(3), e] for e in np.eye(3)]
    return np.array(S).T


def _spatial_inertia(world_T, m, com, Ic):
    """6x6 spatial inertia about the world origin, world axes, of a body (mass, com and inertia at
    the com in its own frame)."""
    R = world_T[:3, :3]
    c = (world_T @ np.r_[com, 1.0])[:3]
    C = skew(c)
    return np.block([[R @ Ic @ R.T + m * C @ C.T, m * C], [m * C.T, m * np.eye(3)]])
