"""Geometric and kinematic models: placements, frame velocities, Jacobians.

The direct geometric model X = F(q) is "a simple product of matrices" (seed, "Modélisation
géométrique directe"): ``T_0i = T_0,lambda(i) @ joint_placement[i] @ T_J(q_i)``.
Every function takes one state or a batch (leading axis N).
"""
import numpy as np

from .configuration import as_q, unbatch
from .joints import jcalc
from .spatial._num import cross, matvec, result_dtype
from .spatial.motion import motion_apply


def _placements(model, Q):
    """World placements of all bodies for a batch Q (N, nq): (N, nb+1, 4, 4)."""
    N = Q.shape[0]
    T = np.zeros((N, model.nb + 1, 4, 4), dtype=result_dtype(Q))
    T[:, 0] = np.eye(4)
    for i in range(1, model.nb + 1):
        TJ, _ = jcalc(model, i, Q)
        T[:, i] = T[:, model.parent[i]] @ model.joint_placement[i] @ TJ
    return T


def body_placements(model, q):
    """4x4 placements in the world of every body, shape (nb+1, 4, 4) (or (N, nb+1, 4, 4))."""
    Q, single = as_q(model, q)
    return unbatch(_placements(model, Q), single)


def frame_placement(model, q, frame):
    """4x4 placement in the world of a named frame (or body)."""
    f = model.frame(frame)
    Q, single = as_q(model, q)
    T = _placements(model, Q)[:, f.body] @ f.placement
    return unbatch(T, single)


def _jacobian(model, Q, T, frame, expressed="world", point=None):
    """6 x nv Jacobian of a frame for a batch, from precomputed placements T."""
    f = model.frame(frame)
    N = Q.shape[0]
    Tf = T[:, f.body] @ f.placement
    p = Tf[:, :3, 3]
    if point is not None:
        p = p + matvec(Tf[:, :3, :3], np.asarray(point, dtype=float))
    J = np.zeros((N, 6, model.nv), dtype=T.dtype)
    for j in model.support(f.body):
        S = model.S[j]
        cols = slice(model.idx_v[j], model.idx_v[j] + model.nv_joint[j])
        Sw = motion_apply(T[:, j][:, None], S.T[None])  # (N, nv_j, 6): [omega; v at world origin]
        w, vO = Sw[..., :3], Sw[..., 3:]
        J[:, :3, cols] = np.swapaxes(w, 1, 2)
        J[:, 3:, cols] = np.swapaxes(vO + cross(w, p[:, None, :]), 1, 2)
    if expressed == "local":
        Rt = np.swapaxes(Tf[:, :3, :3], 1, 2)
        J = np.concatenate([Rt @ J[:, :3], Rt @ J[:, 3:]], axis=1)
    elif expressed != "world":
        raise ValueError(f"expressed must be 'world' or 'local', got {expressed!r}")
    return J


def jacobian(model, q, frame, expressed="world", point=None):
    """Jacobian (6 x nv, rows [angular; linear]) of a frame.

    ``expressed="world"``: angular velocity and velocity of the frame origin (or of ``point``,
    given in frame coordinates), both in world axes (pinocchio's LOCAL_WORLD_ALIGNED).
    ``expressed="local"``: both in the frame's own axes.
    """
    Q, single = as_q(model, q)
    return unbatch(_jacobian(model, Q, _placements(model, Q), frame, expressed, point), single)
