"""Build the pinocchio model equivalent to an artidyn Model (for peer tests on the random zoo).

Joints are added in artidyn's body order, so pinocchio's joint i is artidyn's body i and the
q / v layouts agree except for the free joint, whose velocity pinocchio orders [v; omega]
(artidyn: [omega; v]). Spatial vectors: pinocchio [linear; angular], artidyn [angular; linear].
"""
import numpy as np

from artidyn.joints import FREE, PRISMATIC, REVOLUTE, SPHERICAL

pin = None


def _pin():
    global pin
    if pin is None:
        import pinocchio
        pin = pinocchio
    return pin


def _joint_model(jtype, axis):
    p = _pin()
    if jtype == REVOLUTE:
        return p.JointModelRevoluteUnaligned(np.asarray(axis, dtype=float))
    if jtype == PRISMATIC:
        return p.JointModelPrismaticUnaligned(np.asarray(axis, dtype=float))
    if jtype == SPHERICAL:
        return p.JointModelSpherical()
    if jtype == FREE:
        return p.JointModelFreeFlyer()
    raise ValueError(f"joint type {jtype} has no pinocchio twin here")


def pin_from_artidyn(model):
    """A pinocchio Model with the same tree, joints, placements, inertias and gravity."""
    p = _pin()
    pm = p.Model()
    pm.name = model.name
    pm.gravity = p.Motion(np.asarray(model.gravity, dtype=float), np.zeros(3))
    for i in range(1, model.nb + 1):
        T = model.joint_placement[i]
        jid = pm.addJoint(int(model.parent[i]), _joint_model(model.joint_type[i], model.joint_axis[i]),
                          p.SE3(T[:3, :3].copy(), T[:3, 3].copy()), model.joint_names[i])
        assert jid == i
        inertia = p.Inertia(float(model.mass[i]), model.com[i].copy(), model.inertia_com[i].copy())
        pm.appendBodyToJoint(jid, inertia, p.SE3.Identity())
    return pm


def _free_blocks(model):
    return [int(model.idx_v[i]) for i in range(1, model.nb + 1) if model.joint_type[i] == FREE]


def v_to_pin(model, v):
    """artidyn velocity-like vector (nv,) -> pinocchio's (free joint [omega; v] -> [v; omega])."""
    out = np.array(v, dtype=float)
    for k in _free_blocks(model):
        out[..., k:k + 6] = np.concatenate([out[..., k + 3:k + 6], out[..., k:k + 3]], axis=-1)
    return out


v_from_pin = v_to_pin  # the swap is its own inverse


def spatial_from_pin(x):
    """pinocchio [linear; angular] 6-vector(s) -> artidyn [angular; linear]."""
    x = np.asarray(x)
    return np.concatenate([x[..., 3:], x[..., :3]], axis=-1)


def forces_to_pin(model, f_ext):
    """artidyn f_ext (nb+1, 6) -> pinocchio StdVec_Force (one Force per joint, local frame)."""
    p = _pin()
    out = p.StdVec_Force()
    out.append(p.Force.Zero())
    for i in range(1, model.nb + 1):
        out.append(p.Force(np.asarray(f_ext[i, 3:], dtype=float), np.asarray(f_ext[i, :3], dtype=float)))
    return out
