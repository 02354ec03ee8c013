"""Direct geometric model: world placements of bodies and frames, and state-argument checks.

The direct geometric model X = F(q) is "a simple product of matrices" (J. Reuss,
"Modélisation des robots", French Wikipedia draft, 2013, "Modélisation géométrique directe";
Khalil & Dombre, "Modeling, Identification and Control of Robots", ch. 3):
``T_0i = T_0,lambda(i) @ T_up[i]`` with ``T_up[i] = joint_placement[i] @ T_J(q_i)``, the
placement of body ``i`` in its parent ``lambda(i)``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import as_batch, as_q, batch_size, unbatch
from ..errors import InputError, as_real, shown
from ..joints import jcalc
from ..spatial._num import result_dtype
from ..spatial.motion import translation
from ..kernels import dispatch as _kernels

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, FrameLike, Model


def _states(model, q, **vectors):
    """Check ``q`` (nq) and the velocity-like ``vectors`` (nv each, e.g. v=..., a=...).

    Returns ``(Q, [V, A, ...], single)``: 2-D arrays broadcast to a common batch size N, and
    whether every input was a single state (then results are unbatched).
    """
    Q, single = as_q(model, q)
    out = []
    for name, x in vectors.items():
        X, s = as_batch(model, x, name, "nv")
        out.append(X)
        single = single and s
    N = batch_size(model, q=Q.shape[0], **{k: X.shape[0] for k, X in zip(vectors, out)})
    Q = np.broadcast_to(Q, (N, Q.shape[1]))
    out = [np.broadcast_to(X, (N, X.shape[1])) for X in out]
    return Q, out, single


def _check_expressed(expressed):
    if expressed not in ("world", "local"):
        raise InputError(f"expressed must be 'world' or 'local', got {expressed!r}")


def _frame_on_body(model, frame, point=None):
    """(body, placement of the frame in the body frame), moved to ``point`` (frame coordinates)."""
    try:
        f = model.frame(frame)
    except AttributeError:
        from ..checks import as_model
        as_model(model)                 # not a Model: says what to pass instead
        raise
    P = f.placement
    if point is not None:
        what = f"3 finite coordinates in frame '{f.name}'"
        arr = as_real(point, "point", what)
        if arr.shape != (3,) or not np.all(np.isfinite(arr)):
            raise InputError(f"point must be {what}, got {shown(point)}")
        P = P @ translation(arr)
    return f.body, P


def _joint_transforms(model, Q):
    """T_up[i] = joint_placement[i] @ T_J(q_i): body i in its parent, shape (N, nb+1, 4, 4)."""
    N = Q.shape[0]
    T_up = np.zeros((N, model.nb + 1, 4, 4), dtype=result_dtype(Q))
    T_up[:, 0] = np.eye(4)
    for i in range(1, model.nb + 1):
        T_J, _ = jcalc(model, i, Q)
        T_up[:, i] = model.joint_placement[i] @ T_J
    return T_up


def _placements_from(model, T_up):
    """World placements T_0i = T_0,lambda(i) @ T_up[i]: (N, nb+1, 4, 4)."""
    T = np.empty_like(T_up)
    T[:, 0] = T_up[:, 0]
    for i in range(1, model.nb + 1):
        T[:, i] = T[:, model.parent[i]] @ T_up[:, i]
    return T


def _placements(model, Q):
    """World placements of all bodies for a batch Q (N, nq): (N, nb+1, 4, 4)."""
    return _placements_from(model, _joint_transforms(model, Q))


def body_placements(model: Model, q: ArrayLike) -> Array:
    """4x4 placements in the world of every body.

    Parameters
    ----------
    q : (nq,) or (N, nq)

    Returns
    -------
    (nb+1, 4, 4) or (N, nb+1, 4, 4); row 0 is the world (identity).
    """
    T = _kernels.body_placements(model, q)  # compiled; None: reference code below
    if T is not None:
        return T
    Q, single = as_q(model, q)
    return unbatch(_placements(model, Q), single)


def frame_placement(model: Model, q: ArrayLike, frame: FrameLike) -> Array:
    """4x4 placement in the world of a named frame (or body): (4, 4) or (N, 4, 4)."""
    body, P = _frame_on_body(model, frame)
    T = _kernels.frame_placement(model, q, body, P)  # compiled; None: reference code below
    if T is not None:
        return T
    Q, single = as_q(model, q)
    return unbatch(_placements(model, Q)[:, body] @ P, single)
