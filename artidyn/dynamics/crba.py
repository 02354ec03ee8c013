"""CRBA: the composite-rigid-body algorithm (joint-space mass matrix M(q)).

The Composite Rigid Body Method (Walker & Orin, 1982): the tree is made rigid except at one
joint, for each joint in turn. Featherstone RBDA Table 6.2. Symbols (all in body i's frame):

==========  ==================================================================================
X_up[i]     placement of body i in its father p; A = force transform i -> p
I_C[i]      Featherstone's I^c_i: inertia of the composite body made of the subtree rooted at i
S           motion subspace of joint i (6 x nv_i)
F           the wrench(es) I_C S, carried down to the root: F <- A F
M           nv x nv, block (i, j) = S_i^T I_C[i] S_i on the diagonal, F^T S_j off it
==========  ==================================================================================

For j = nb .. 1::

    I_C[p] += A I_C[j] A^T
    F = I_C[j] S_j ;  M_jj = S_j^T F
    l = j ; while lambda(l) > 0: F = A_l F ; l = lambda(l) ; M_jl = F^T S_l ; M_lj = M_jl^T

plus ``diag(armature)`` (rotor inertias, see :mod:`.actuation`). M is symmetric positive definite.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import unbatch
from ..spatial.motion import force_apply, inertia_transform
from ..kernels import dispatch as _kernels
from ..kernels.dispatch import _ON, C_CRBA  # module globals: one lookup each on the one-state path
from . import _common

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def _crba(model, Q):
    """CRBA for a batch: M (N, nv, nv)."""
    N, nb = Q.shape[0], model.nb
    X_up = _common.joint_transforms(model, Q)
    I_C = np.array(np.broadcast_to(model.I, (N, nb + 1, 6, 6)), dtype=X_up.dtype)
    M = np.zeros((N, model.nv, model.nv), X_up.dtype)

    # from the leaves to the root: I_C[i] is complete once its children are done
    for i in range(nb, 0, -1):
        p, S = model.parent[i], model.S[i]
        if p > 0:
            I_C[:, p] = I_C[:, p] + inertia_transform(X_up[:, i], I_C[:, i])
        di = slice(model.idx_v[i], model.idx_v[i] + model.nv_joint[i])
        F = np.swapaxes(I_C[:, i] @ S, 1, 2)                       # (N, nv_i, 6), one wrench per row
        M_ii = F @ S
        M[:, di, di] = M_ii if S.shape[1] == 1 else (M_ii + np.swapaxes(M_ii, 1, 2)) / 2  # exactly symmetric
        # carry F down the support path: off-diagonal blocks
        j = i
        while model.parent[j] > 0:
            F = force_apply(X_up[:, j, None], F)
            j = model.parent[j]
            dj = slice(model.idx_v[j], model.idx_v[j] + model.nv_joint[j])
            M[:, di, dj] = F @ model.S[j]
            M[:, dj, di] = np.swapaxes(M[:, di, dj], 1, 2)
    if np.any(model.armature):
        M = M + np.diag(model.armature)
    return M


def crba(model: Model, q: ArrayLike) -> Array:
    """Joint-space mass (inertia) matrix M(q), symmetric, including the rotor armature.

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq) configuration

    Returns
    -------
    M : (nv, nv) or (N, nv, nv), such that the kinetic energy is ``v @ M @ v / 2``.
    """
    try:            # one state of float64 arrays: the model's C call object (made by _kernels.crba)
        c = model._cache.get(C_CRBA) if _ON[0] else None
    except AttributeError:
        c = None
    if c and (M := c(q)) is not None:
        return M
    M = _kernels.crba(model, q)  # compiled; None: reference code below
    if M is not None:
        return M
    Q, _, single = _common.batch_inputs(model, q)
    return unbatch(_crba(model, Q), single)


mass_matrix = crba
