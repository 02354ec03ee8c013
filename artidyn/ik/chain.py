"""The support chain of a frame, packed for the inverse-geometric-model kernels.

Only the joints from the root to the frame's body move the frame (``model.support``); the
solvers work on their entries of q and v and leave the other entries as given. The packed
arrays are cached on the model (``model._cache``), one entry per frame.
"""
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..joints import CYLINDRICAL, FREE, HELICAL, PRISMATIC, REVOLUTE


@dataclass(frozen=True)
class Chain:
    """Support chain of ``frame``: arrays for :mod:`artidyn.ik._kernels`.

    Attributes
    ----------
    frame : str
    bodies : (nj,) body numbers, root first; a cylindrical joint is two entries of the chain (a
        revolute then a prismatic joint on its axis, the body listed twice)
    jtype, axis, X, iq, iv : joint codes, axes (joint frame), joint placements (nj, 4, 4) in the
        parent body frame, offsets of each joint in the chain's q and v
    vq : (nv_c,) index in the chain's q of each 1-dof velocity entry (-1 for quaternion joints)
    tool : (4, 4) placement of the frame in the last body
    q_index, v_index : (nq_c,), (nv_c,) entries of the model's q and v
    lo, hi : (nq_c,) limits (+-inf where none; quaternions unbounded)
    rlo, rhi : (nq_c,) finite sampling range of random starts
    wrap : (nq_c,) bool, continuous revolute joints (returned in (-pi, pi])
    reach : (centre (3,), radius) with |p_frame - centre| <= radius for every q, or None
    """

    frame: str
    bodies: np.ndarray
    jtype: np.ndarray
    axis: np.ndarray
    X: np.ndarray
    iq: np.ndarray
    iv: np.ndarray
    vq: np.ndarray
    tool: np.ndarray
    q_index: np.ndarray
    v_index: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    rlo: np.ndarray
    rhi: np.ndarray
    wrap: np.ndarray
    reach: tuple | None
    joint_names: tuple
    ci: np.ndarray = None
    cf: np.ndarray = None

    @property
    def nq(self):
        return self.q_index.size

    @property
    def nv(self):
        return self.v_index.size

    @property
    def revolute_only(self):
        return bool(np.all(self.jtype == REVOLUTE))


def support_chain(model, frame):
    """The packed :class:`Chain` of ``frame`` (a frame or body name), cached on the model."""
    hit = model._cache.get(("ik_chain", frame)) if isinstance(frame, str) else None
    if hit is not None:
        return hit
    f = model.frame(frame)
    key = ("ik_chain", f.name)
    if key in model._cache:
        return model._cache[key]
    bodies = np.array(model.support(f.body), dtype=np.int64)
    if bodies.size == 0:
        why = " (the model has no degree of freedom: nothing can move)" if model.nv == 0 else ""
        raise InputError(f"frame '{f.name}' is attached to the world of model '{model.name}': "
                         f"no joint moves it, there is nothing to solve{why}")
    # entries of the chain: one per joint, a cylindrical joint split into a revolute and a
    # prismatic entry on the same axis (the second at the first's frame: identity placement)
    entries = []  # (body, joint code, placement in the parent, first q / v entry of the joint)
    for b in bodies:
        if model.joint_type[b] == HELICAL:
            raise InputError(f"inverse kinematics: {model.describe_joint(b)} moves frame '{f.name}'; the IK "
                             f"solvers do not handle helical joints yet")
        if model.joint_type[b] == CYLINDRICAL:
            entries += [(b, REVOLUTE, model.joint_placement[b], 0), (b, PRISMATIC, np.eye(4), 1)]
        else:
            entries.append((b, int(model.joint_type[b]), model.joint_placement[b], 0))
    bodies = np.array([e[0] for e in entries], dtype=np.int64)
    jtype = np.array([e[1] for e in entries], dtype=np.int64)
    split = [model.joint_type[b] == CYLINDRICAL for b in bodies]
    nqj = np.array([1 if c else model.nq_joint[b] for b, c in zip(bodies, split)], dtype=np.int64)
    nvj = np.array([1 if c else model.nv_joint[b] for b, c in zip(bodies, split)], dtype=np.int64)
    iq = np.concatenate([[0], np.cumsum(nqj)[:-1]]).astype(np.int64)
    iv = np.concatenate([[0], np.cumsum(nvj)[:-1]]).astype(np.int64)
    q_index = np.concatenate([model.idx_q[b] + e[3] + np.arange(n) for b, e, n in zip(bodies, entries, nqj)])
    v_index = np.concatenate([model.idx_v[b] + e[3] + np.arange(n) for b, e, n in zip(bodies, entries, nvj)])
    vq = np.full(v_index.size, -1, dtype=np.int64)
    lo = np.full(q_index.size, -np.inf)
    hi = np.full(q_index.size, np.inf)
    rlo, rhi = np.zeros(q_index.size), np.zeros(q_index.size)
    wrap = np.zeros(q_index.size, dtype=bool)
    for k, b in enumerate(bodies):
        if jtype[k] in (REVOLUTE, PRISMATIC):
            o = iq[k]
            vq[iv[k]] = o
            lo[o], hi[o] = model.lower[q_index[o]], model.upper[q_index[o]]
            default = np.pi if jtype[k] == REVOLUTE else 1.0
            rlo[o] = lo[o] if np.isfinite(lo[o]) else -default
            rhi[o] = hi[o] if np.isfinite(hi[o]) else default
            wrap[o] = jtype[k] == REVOLUTE and not np.isfinite(lo[o]) and not np.isfinite(hi[o])
    chain = Chain(
        frame=f.name, bodies=bodies, jtype=jtype, axis=np.array([model.joint_axis[b] for b in bodies]),
        X=np.array([e[2] for e in entries]), iq=iq, iv=iv, vq=vq,
        tool=np.array(f.placement, dtype=float), q_index=q_index, v_index=v_index, lo=lo, hi=hi,
        rlo=rlo, rhi=rhi, wrap=wrap, reach=None,
        joint_names=tuple(model.joint_names[b] for b in bodies))
    chain = pack(_with_reach(chain))
    model._cache[key] = chain
    return chain


def pack(chain):
    """Add the packed arrays ``ci`` (int64) and ``cf`` (float64) read by ``_lm.unpack``."""
    nj = chain.jtype.size
    ci = np.concatenate([[nj, chain.nq, chain.nv], chain.jtype, chain.iq, chain.iv, chain.vq,
                         chain.wrap.astype(np.int64), chain.q_index]).astype(np.int64)
    reach = np.array([0.0, 0.0, 0.0, -1.0]) if chain.reach is None else np.append(chain.reach[0], chain.reach[1])
    cf = np.concatenate([chain.axis.ravel(), chain.X.ravel(), chain.tool.ravel(), chain.lo, chain.hi,
                         chain.rlo, chain.rhi, reach]).astype(float)
    return Chain(**{**chain.__dict__, "ci": ci, "cf": cf})


def _with_reach(chain):
    """Add an upper bound of the reach (triangle inequality along the chain).

    A revolute or spherical joint keeps the distance between its origin and the next joint's
    origin (|t_k+1|); a prismatic joint adds at most max |q|. For a revolute first joint the
    centre is the foot, on its axis, of the second joint's origin, which turns on a circle of
    radius r about it. No bound with a floating base or an unlimited prismatic joint.
    """
    jt, X = chain.jtype, chain.X
    if np.any(jt == FREE):
        return chain
    stroke = np.zeros(jt.size)
    for k in np.flatnonzero(jt == PRISMATIC):
        o = chain.iq[k]
        if not (np.isfinite(chain.lo[o]) and np.isfinite(chain.hi[o])):
            return chain
        stroke[k] = max(abs(chain.lo[o]), abs(chain.hi[o]))
    T0 = X[0]
    nxt = (T0 @ (X[1] if jt.size > 1 else chain.tool))[:3, 3]
    o0 = T0[:3, 3]
    if jt[0] == REVOLUTE:
        a = T0[:3, :3] @ chain.axis[0]
        centre = o0 + a * np.dot(nxt - o0, a)
        r = np.linalg.norm(nxt - centre)
    else:
        centre = o0
        r = np.linalg.norm(nxt - o0) + stroke[0]
    if jt.size > 1:
        r += sum(np.linalg.norm(X[k][:3, 3]) for k in range(2, jt.size)) + np.linalg.norm(chain.tool[:3, 3])
        r += stroke[1:].sum()
    return Chain(**{**chain.__dict__, "reach": (centre, float(r))})
