"""Analytic inverse geometric model of 6R arms: all solutions (up to 8) in closed form.

Two classic families, recognised from the geometry of the joint axes at q = 0 (never from the
model's name), in product-of-exponentials form T(q) = exp(xi_1 q_1) ... exp(xi_6 q_6) M:

``spherical_wrist`` (Pieper; Puma 560, Staubli RX-90): axes 4, 5, 6 meet at the wrist centre c.
    Joints 4-6 fix c, so exp(xi_1 q_1) exp(xi_2 q_2) exp(xi_3 q_3) c = T* M^-1 c places the wrist
    centre with joints 1-3 (up to 4 solutions), then the wrist orientation gives (q4, q5) by
    Paden-Kahan's subproblem 2 (2 solutions) and q6 by subproblem 1: 4 x 2 = 8.
``parallel_axes`` (UR arms): axes 2, 3, 4 are parallel (direction n) and axes 5, 6 meet at p56.
    Joints 2-4 are a planar motion about n, which keeps n-components: the point p56 gives q1
    (2 solutions), the direction of axis 6 gives q5 (2), n gives q6, and the planar 2R problem of
    joints 2, 3 (2) then q4: 2 x 2 x 2 = 8.

Each closed-form solution is refined by a few Gauss-Newton steps (the compiled numeric kernel)
so that it reproduces the target to round-off, then angles are wrapped by 2 pi into the joint
limits where possible; solutions outside the limits are returned and flagged.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModelError, check_number
from ..joints import REVOLUTE
from . import _kernels as K
from ._lm import attempt
from ._subproblems import pieper_position, planar_2r, rot, subproblem1, subproblem2, trig_solve, unit
from .chain import support_chain
from .numeric import _configurations, _neutral, _solutions, distinct
from .targets import parse_target

if TYPE_CHECKING:
    from typing import Any

    from numpy.typing import ArrayLike

    from .._typing import FrameLike, Model
    from .results import IKSolutions

GEOM_TOL = 1e-9  # relative (lengths / reach) and angular tolerance of the family tests


def screw_axes(model, frame):
    """Joint lines at q = 0 of the frame's chain: points o (nj, 3), unit directions z (nj, 3), and
    the frame placement M (4, 4) at q = 0 (product-of-exponentials form)."""
    ch = support_chain(model, frame)
    nj = ch.jtype.size
    Rs, ps = np.empty((nj + 1, 3, 3)), np.empty((nj + 1, 3))
    M, Jw = np.empty((4, 4)), np.empty((6, ch.nv))
    q = np.zeros(ch.nq)
    K.fk_jac(q, ch.jtype, ch.axis, ch.X, ch.iq, ch.iv, ch.tool, M, Jw, Rs, ps, False)
    z = np.array([Rs[k] @ ch.axis[k] for k in range(nj)])
    return ps[:nj].copy(), z, M.copy()


def _line_distance(o1, z1, o2, z2):
    w = np.cross(z1, z2)
    if np.linalg.norm(w) < 1e-12:
        d = o2 - o1
        return np.linalg.norm(d - z1 * np.dot(z1, d))
    return abs(np.dot(o2 - o1, w)) / np.linalg.norm(w)


def _meeting_point(o, z):
    """Least-squares common point of lines (o_k, z_k) and the largest distance to it."""
    A = sum(np.eye(3) - np.outer(zk, zk) for zk in z)
    b = sum((np.eye(3) - np.outer(zk, zk)) @ ok for ok, zk in zip(o, z))
    c = np.linalg.lstsq(A, b, rcond=None)[0]
    dist = max(np.linalg.norm((np.eye(3) - np.outer(zk, zk)) @ (c - ok)) for ok, zk in zip(o, z))
    return c, dist


def _parallel(z1, z2, tol):
    return np.linalg.norm(np.cross(z1, z2)) < tol


def family(model: Model, frame: FrameLike) -> tuple[str, dict[str, Any]]:
    """Closed-form family of the frame's chain: ("spherical_wrist" | "parallel_axes", data).

    Raises ModelError, saying what the geometry lacks, for any other chain.
    """
    ch = support_chain(model, frame)
    where = f"frame '{ch.frame}' of model '{model.name}'"
    if ch.jtype.size != 6 or not np.all(ch.jtype == REVOLUTE):
        kinds = [model.joint_kind[b] for b in dict.fromkeys(ch.bodies.tolist())]  # a cylindrical joint: 2 entries
        raise ModelError(f"{where}: analytic inverse kinematics needs a chain of 6 revolute joints; this one "
                         f"has {len(kinds)} joints ({', '.join(kinds)}): use artidyn.ik / ik_all")
    o, z, M = screw_axes(model, frame)
    L = max(1.0, ch.reach[1] if ch.reach else 1.0)
    ltol, atol = GEOM_TOL * L, GEOM_TOL
    c, dist = _meeting_point(o[3:], z[3:])
    wrist_ok = (dist < ltol and not _parallel(z[3], z[4], 1e-6) and not _parallel(z[4], z[5], 1e-6)
                and _line_distance(o[0], z[0], o[1], z[1]) + np.linalg.norm(np.cross(z[0], z[1])) > ltol)
    if wrist_ok:
        return "spherical_wrist", dict(o=o, z=z, M=M, c=c)
    par = _parallel(z[1], z[2], atol) and _parallel(z[1], z[3], atol)
    d56 = _line_distance(o[4], z[4], o[5], z[5])
    planar_ok = (_line_distance(o[1], z[1], o[2], z[2]) > ltol and _line_distance(o[2], z[2], o[3], z[3]) > ltol)
    if par and d56 < ltol and not _parallel(z[4], z[5], 1e-6) and not _parallel(z[0], z[1], 1e-6) and planar_ok:
        p56, _ = _meeting_point(o[4:], z[4:])
        return "parallel_axes", dict(o=o, z=z, M=M, p56=p56)
    ang = [np.degrees(np.arcsin(min(1.0, np.linalg.norm(np.cross(z[1], z[k]))))) for k in (2, 3)]
    raise ModelError(
        f"{where}: no closed-form family: axes 4, 5, 6 do not meet in one point (up to {dist:.3g} m apart), "
        f"and axes 2, 3, 4 are not parallel with axes 5, 6 meeting (angles of axes 3, 4 to axis 2: "
        f"{ang[0]:.3g}, {ang[1]:.3g} deg; axes 5, 6 {d56:.3g} m apart). Use artidyn.ik_all (multi-start) instead")


def _spherical_wrist(d, G):
    o, z, c0 = d["o"], d["z"], d["c"]
    ct = G[:3, :3] @ c0 + G[:3, 3]
    out = []
    arms = pieper_position(o[:3], z[:3], c0, ct)
    for i, (q1, q2, q3) in enumerate(arms):
        Rw = (rot(z[0], q1) @ rot(z[1], q2) @ rot(z[2], q3)).T @ G[:3, :3]
        for j, (q4, q5) in enumerate(subproblem2(z[3], z[4], z[5], Rw @ z[5])):
            u = unit(np.cross(z[5], [1.0, 0, 0] if abs(z[5][0]) < 0.9 else [0, 1.0, 0]))
            q6 = subproblem1(z[5], u, (rot(z[3], q4) @ rot(z[4], q5)).T @ Rw @ u)
            out.append(([q1, q2, q3, q4, q5, 0.0 if q6 is None else q6], f"arm {i + 1}/{len(arms)}, wrist {'+-'[j]}"))
    return out


def _parallel_axes(d, G):
    o, z, p56 = d["o"], d["z"], d["p56"]
    n = z[1]
    sg = [np.sign(np.dot(z[k], n)) for k in (1, 2, 3)]
    RG = G[:3, :3]
    P = RG @ p56 + G[:3, 3]
    dvec = P - o[0]
    npar = z[0] * np.dot(z[0], n)
    nperp = n - npar
    out = []
    for i, q1 in enumerate(trig_solve(np.dot(nperp, dvec), np.dot(np.cross(z[0], nperp), dvec),
                                      np.dot(npar, dvec) - np.dot(n, p56 - o[0]))):
        R1 = rot(z[0], q1)
        z5, z6 = z[4], z[5]
        A5 = z6 - z5 * np.dot(z5, z6)
        B5 = np.cross(z5, z6)
        rhs = np.dot(R1 @ n, RG @ z6)
        for j, q5 in enumerate(trig_solve(np.dot(n, A5), np.dot(n, B5), np.dot(n, z5) * np.dot(z5, z6) - rhs)):
            q6 = subproblem1(z6, RG.T @ R1 @ n, rot(z5, q5).T @ n)
            q6 = 0.0 if q6 is None else q6
            E1 = _exp(o[0], z[0], q1)
            H = np.linalg.inv(E1) @ G @ np.linalg.inv(_exp(o[5], z6, q6)) @ np.linalg.inv(_exp(o[4], z5, q5))
            u = unit(np.cross(n, [1.0, 0, 0] if abs(n[0]) < 0.9 else [0, 1.0, 0]))
            theta = subproblem1(n, u, H[:3, :3] @ u)
            Pt = H[:3, :3] @ o[3] + H[:3, 3]
            for k, (phi2, phi3) in enumerate(planar_2r(n, o[1], o[2], o[3], Pt)):
                q2, q3 = sg[0] * phi2, sg[1] * phi3
                q4 = sg[2] * ((0.0 if theta is None else theta) - phi2 - phi3)
                out.append(([q1, q2, q3, q4, q5, q6], f"shoulder {'+-'[i]}, wrist {'+-'[j]}, elbow {'+-'[k]}"))
    return out


def _exp(o, z, q):
    """exp(xi q) for the revolute joint of line (o, z): a rotation about the line."""
    T = np.eye(4)
    R = rot(z, q)
    T[:3, :3] = R
    T[:3, 3] = o - R @ o
    return T


def _wrap_into_limits(q, lo, hi, ref):
    """Each angle moved by a multiple of 2 pi into [lo, hi], nearest to ref; (q, inside)."""
    out = np.arctan2(np.sin(q), np.cos(q))
    inside = True
    for i in range(q.size):
        cands = out[i] + 2 * np.pi * np.arange(-3, 4)
        ok = cands[(cands >= lo[i] - 1e-12) & (cands <= hi[i] + 1e-12)]
        if ok.size:
            out[i] = ok[np.argmin(np.abs(ok - ref[i]))]
        else:
            inside = False
    return out, inside


def ik_analytic(model: Model, target: ArrayLike, frame: FrameLike, q0: ArrayLike | None = None, *,
                tol: float = 1e-10) -> IKSolutions:
    """All closed-form solutions (up to 8) of a 6R arm's frame for one 4x4 pose.

    The family (spherical wrist / three parallel axes) is detected from the joint axes; any other
    chain raises ModelError. ``q0`` gives the other joints' entries and the reference to which
    angles are wrapped (by 2 pi, within the limits); with ``q0`` the solutions come nearest
    first. Every solution reproduces the pose to ``tol`` (checked with the compiled direct model
    after a few Gauss-Newton steps); at a singular pose, where solutions form continua (e.g.
    q4 + q6 fixed when q5 = 0), one representative of each is returned. Returns
    :class:`IKSolutions` (status "unreachable" with no solution, "joint_limits" when every
    solution breaks a limit; ``within_limits`` flags each one; ``branch`` labels the choices).
    """
    tol = check_number(tol, "ik_analytic: tol", positive=True)   # a float: the compiled solver's type
    fam, d = family(model, frame)
    ch = support_chain(model, frame)
    Tt, single, kind, mode, w = parse_target(target, "pose")
    if not single:
        raise ModelError("ik_analytic takes one pose; loop over poses or use artidyn.ik for a batch")
    base = _neutral(model) if q0 is None else _configurations(model, q0, "q0", 1)[0]
    G = Tt[0] @ np.linalg.inv(d["M"])
    raw = _spherical_wrist(d, G) if fam == "spherical_wrist" else _parallel_axes(d, G)
    sols, labels = [], []
    inf = np.full(6, np.inf)
    for q, label in raw:
        q = np.array(q, dtype=float)
        code, _ = attempt(q, Tt[0], 0, np.ones(6), ch.jtype, ch.axis, ch.X, ch.iq, ch.iv, ch.vq, ch.tool,
                          -inf, inf, tol, 8, np.zeros(6), 0.0, 0.0)
        if code == K.CONVERGED:
            sols.append(q)
            labels.append(label)
    ref = base[ch.q_index]
    Q, inside = np.zeros((len(sols), 6)), np.zeros(len(sols), dtype=bool)
    for k, q in enumerate(sols):
        Q[k], inside[k] = _wrap_into_limits(q, ch.lo, ch.hi, ref)
    keep = distinct(ch, Q) if len(Q) else np.zeros(0, dtype=np.int64)
    if q0 is not None and len(keep):  # nearest to q0 first
        keep = keep[np.argsort(np.abs(Q[keep] - ref).sum(axis=1), kind="stable")]
    Q, inside, labels = Q[keep], inside[keep], [labels[k] for k in keep]
    if not len(Q):
        status, msg = "unreachable", f"{fam}: the closed form has no real solution for this pose"
    elif not inside.any():
        status, msg = "joint_limits", f"{fam}: {len(Q)} solution(s), none within the joint limits"
    else:
        status, msg = "converged", f"{fam}: {len(Q)} solution(s), {int(inside.sum())} within the joint limits"
    res = _solutions(ch, base, Q, Tt, kind, status, msg, family=fam, branch=labels)
    res.within_limits = inside
    return res
