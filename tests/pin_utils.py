"""Pinocchio as a peer for URDF robots: build it once, convert states and results by NAME.

artidyn and pinocchio read the same URDF into different layouts:

================  ==========================================  ==========================================
item              artidyn                                     pinocchio
================  ==========================================  ==========================================
joint order       depth-first, children in file order         depth-first, its own child order
continuous joint  nq = 1 (the angle)                          nq = 2: (cos, sin); nv = 1 in both
floating base     joint 'root_joint', q = [p, quat xyzw]      same q; built with JointModelFreeFlyer
free-joint v      [omega_body; v_body]   (ANGULAR FIRST)      [v_local; omega_local] (LINEAR FIRST)
spatial vectors   [angular; linear], Jacobian rows likewise   [linear; angular]
================  ==========================================  ==========================================

Joints are matched by name (URDF joint names; 'root_joint' for the floating base), so any
joint order works. Velocity-like vectors (v, a, tau) follow one permutation ``P`` of the nv
entries: ``v_pin = v_art[..., P]``; matrices over v (M, C) and Jacobian columns use its
inverse. Every converter takes one vector (n,) or a batch (N, n).

Usage (a test)::

    pm = pin_model(path, floating)                  # cached: do not modify it
    pd = pm.createData()
    qp = to_pin_q(model, pm, q)
    pin.computeAllTerms(pm, pd, qp, to_pin_v(model, pm, v))
    M = from_pin_matrix(model, pm, pd.M)            # artidyn's v ordering
    J = from_pin_jacobian(model, pm, pin.getFrameJacobian(pm, pd, fid, pin.LOCAL))

Robots whose URDF has invalid inertias are repaired by artidyn (``repair=True``, notes of kind
"repaired" in ``model.load_report``; see :func:`repaired_links`) but not by pinocchio: for
dynamics comparisons on them use ``pin_model(path, floating, inertias_from=model)``, which
returns a copy of pinocchio's model carrying artidyn's body inertias.
"""
import functools

import numpy as np

from artidyn.joints import FREE


def _pin():
    import pinocchio
    return pinocchio


@functools.lru_cache(maxsize=None)
def _cached_pin_model(path, floating):
    pin = _pin()
    if floating:
        return pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    return pin.buildModelFromUrdf(path)


def pin_model(urdf_path, floating=False, inertias_from=None):
    """pinocchio Model of a URDF (free flyer 'root_joint' when ``floating``).

    Built once per (path, floating) and cached: treat the result as read-only. With
    ``inertias_from`` (an artidyn Model of the same URDF), a fresh copy whose joint inertias
    (universe included) are artidyn's lumped body inertias ``model.mass/com/inertia_com``.
    """
    pm = _cached_pin_model(str(urdf_path), bool(floating))
    if inertias_from is None:
        return pm
    pin, model = _pin(), inertias_from
    pm = pin.Model(pm)
    for i, jid in [(0, 0)] + [(i, jid) for i, jid, _ in joint_map(model, pm)]:
        pm.inertias[jid] = pin.Inertia(float(model.mass[i]), np.array(model.com[i]), np.array(model.inertia_com[i]))
    return pm


def joint_map(model, pmodel):
    """[(artidyn body i, pinocchio joint id, kind)] with kind 'free', 'unbounded' (cos, sin) or 'scalar'.

    Raises AssertionError if a joint is missing on either side or the sizes disagree.
    """
    out = []
    for i in range(1, model.nb + 1):
        name = model.joint_names[i]
        jid = pmodel.getJointId(name)
        assert jid < pmodel.njoints, f"joint '{name}' of artidyn is not in pinocchio's model"
        pj = pmodel.joints[jid]
        assert pj.nv == model.nv_joint[i], f"joint '{name}': nv {model.nv_joint[i]} vs pinocchio {pj.nv}"
        if model.joint_type[i] == FREE:
            kind = "free"
        elif pj.nq == 2 and model.nq_joint[i] == 1:
            kind = "unbounded"
        else:
            assert pj.nq == model.nq_joint[i], f"joint '{name}': nq {model.nq_joint[i]} vs pinocchio {pj.nq}"
            kind = "scalar"
        out.append((i, jid, kind))
    assert pmodel.nv == model.nv and len(out) == pmodel.njoints - 1, (
        f"{model.name}: artidyn nv={model.nv}, {model.nb} joints; pinocchio nv={pmodel.nv}, {pmodel.njoints - 1} joints")
    return out


def v_permutation(model, pmodel):
    """Integer array P (nv,) with ``v_pin = v_art[..., P]`` (free joint: [v, omega] <- [omega, v])."""
    P = np.empty(model.nv, dtype=int)
    for i, jid, kind in joint_map(model, pmodel):
        a, p = int(model.idx_v[i]), pmodel.joints[jid].idx_v
        if kind == "free":
            P[p:p + 6] = [a + 3, a + 4, a + 5, a, a + 1, a + 2]
        else:
            P[p] = a
    return P


def to_pin_q(model, pmodel, q):
    """artidyn q (nq,) or (N, nq) -> pinocchio q (unbounded joints: angle -> (cos, sin))."""
    q = np.asarray(q, dtype=float)
    out = np.zeros(q.shape[:-1] + (pmodel.nq,))
    for i, jid, kind in joint_map(model, pmodel):
        a, p, n = int(model.idx_q[i]), pmodel.joints[jid].idx_q, int(model.nq_joint[i])
        if kind == "unbounded":
            out[..., p], out[..., p + 1] = np.cos(q[..., a]), np.sin(q[..., a])
        else:
            out[..., p:p + n] = q[..., a:a + n]
    return out


def from_pin_q(model, pmodel, qp):
    """pinocchio q -> artidyn q (unbounded joints: (cos, sin) -> angle)."""
    qp = np.asarray(qp, dtype=float)
    out = np.zeros(qp.shape[:-1] + (model.nq,))
    for i, jid, kind in joint_map(model, pmodel):
        a, p, n = int(model.idx_q[i]), pmodel.joints[jid].idx_q, int(model.nq_joint[i])
        if kind == "unbounded":
            out[..., a] = np.arctan2(qp[..., p + 1], qp[..., p])
        else:
            out[..., a:a + n] = qp[..., p:p + n]
    return out


def to_pin_v(model, pmodel, v):
    """artidyn v / a / tau (nv,) or (N, nv) -> pinocchio's ordering."""
    return np.asarray(v, dtype=float)[..., v_permutation(model, pmodel)]


def from_pin_v(model, pmodel, vp):
    """pinocchio v / a / tau -> artidyn's ordering."""
    return np.asarray(vp, dtype=float)[..., np.argsort(v_permutation(model, pmodel))]


to_pin_tau, from_pin_tau = to_pin_v, from_pin_v


def from_pin_matrix(model, pmodel, Mp):
    """An (nv, nv) matrix over v (mass matrix, Coriolis matrix) -> artidyn's ordering."""
    inv = np.argsort(v_permutation(model, pmodel))
    return np.asarray(Mp)[np.ix_(inv, inv)]


def from_pin_spatial(x):
    """pinocchio 6-vector(s) or 6-row matrix [linear; angular] -> artidyn [angular; linear]."""
    x = np.asarray(x)
    return np.concatenate([x[3:6], x[0:3]], axis=0)


def from_pin_jacobian(model, pmodel, Jp):
    """pinocchio 6 x nv Jacobian (rows [linear; angular], pinocchio columns) -> artidyn's."""
    return from_pin_spatial(Jp)[:, np.argsort(v_permutation(model, pmodel))]


def pin_body_frames(pmodel):
    """{link name: frame id} of pinocchio's BODY frames (URDF links), 'universe' excluded."""
    pin = _pin()
    return {f.name: k for k, f in enumerate(pmodel.frames) if f.type == pin.FrameType.BODY and f.name != "universe"}


def repaired_links(model):
    """Links whose inertial data artidyn repaired while loading (notes of kind 'repaired')."""
    return [n.element for n in model.load_report if n.kind == "repaired"]
