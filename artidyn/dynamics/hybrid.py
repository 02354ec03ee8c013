"""Hybrid dynamics: prescribed accelerations on some joints, given torques on the others.

Featherstone, "Rigid Body Dynamics Algorithms" (2008), section 9.2 "Hybrid Dynamics": the
articulated-body algorithm (Table 7.1) in which a joint whose acceleration is known does not
reduce the articulated inertia of its subtree, so that it passes it to its father unchanged.
The unknown torques of the prescribed joints come out of the same three passes. Symbols as in
:mod:`.aba` (per body i, p = lambda(i), all in body i's frame):

==========  ==================================================================================
X_up[i]     placement of body i in body p; A^t = motion p -> i, A = force i -> p
S           motion subspace (6 x nv_i)
v, c        velocity of body i and c_i = v_i (.) S qd_i
I_A, p_A    articulated inertia and bias force of the subtree at i: f_i = I_A a_i + p_A
U, D, u     free joints only: U = I_A S, D = S^T U + diag(armature), u = tau - S^T p_A
I_a, p_a    what the subtree passes to its father
a           spatial acceleration, a_0 = -[0; g]
==========  ==================================================================================

Pass 1 (1 .. nb), as ABA: ``v_i``, ``c_i``, ``I_A = I_i``, ``p_A = v_i (+) I_i v_i - f_ext_i``.

Pass 2 (nb .. 1)::

    free joint:        I_a = I_A - U D^-1 U^T,   p_a = p_A + I_a c + U D^-1 u
    prescribed joint:  I_a = I_A,                 p_a = p_A + I_A (c + S qdd_i)
    I_A[p] += A I_a A^T,   p_A[p] += A p_a

Pass 3 (1 .. nb)::

    a' = A^t a_p + c_i
    free joint:        qdd_i = D^-1 (u - U^T a'),  a_i = a' + S qdd_i
    prescribed joint:  a_i = a' + S qdd_i  (qdd_i given),
                       tau_i = S^T (I_A a_i + p_A) + armature qdd_i + springs (+ friction)

``I_A a_i + p_A`` is the wrench joint i transmits to its subtree (RBDA eq. 7.6), whichever
joints below it are free or prescribed, so the prescribed torques need no fourth pass.
With every joint prescribed this is the RNEA; with none, the ABA.

:func:`hybrid_dynamics` runs the compiled mirror of :func:`_hybrid` (:mod:`artidyn.kernels.hybrid`)
on real inputs; ``artidyn.kernels.reference_only()`` runs this code.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..configuration import unbatch
from ..errors import InputError, ShapeError
from ..kernels import dispatch as _kernels
from ..spatial._num import matvec, result_dtype
from ..spatial.motion import force_apply, inertia_transform, motion_apply_inv
from . import _common
from .actuation import _friction_torque
from .aba import first_pass
from .springs import _spring_torque

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from .._typing import Model


class HybridResult(NamedTuple):
    """Solution of the hybrid problem: the complete acceleration and torque vectors.

    ``a[prescribed]`` and ``tau[~prescribed]`` repeat the inputs; the other entries are solved.
    """
    a: np.ndarray
    tau: np.ndarray


def prescribed_mask(model, prescribed):
    """The boolean mask (nv,) of the prescribed dofs.

    ``prescribed`` is a joint name, a sequence of joint names (each selects all its dofs), or a
    boolean array over the nv dofs. A joint is prescribed as a whole: a mask that selects only
    some dofs of a spherical or free joint is refused.
    """
    if isinstance(prescribed, str):
        prescribed = [prescribed]
    arr = np.asarray(prescribed)
    if arr.dtype == bool:
        if arr.shape != (model.nv,):
            raise ShapeError(f"prescribed: a boolean mask over the dofs needs shape ({model.nv},) "
                             f"for model '{model.name}', got shape {arr.shape}")
        mask = arr.copy()
        if np.array_equal(mask, mask[_joint_first_dof(model)]):   # every joint wholly in or out
            return mask
    else:
        mask = np.zeros(model.nv, dtype=bool)
        for name in np.ravel(arr).tolist():
            if not isinstance(name, str):
                raise InputError(f"prescribed: expected joint names or a boolean mask of {model.nv} dofs "
                                 f"for model '{model.name}', got {name!r}")
            mask[model.v_slice(name)] = True   # NameNotFound names the joint and suggests others
    for i in range(1, model.nb + 1):
        dofs = mask[model.idx_v[i]:model.idx_v[i] + model.nv_joint[i]]
        if dofs.any() and not dofs.all():
            raise InputError(f"prescribed: {model.describe_joint(i)} is partly prescribed (dofs "
                             f"{dofs.astype(int).tolist()}); prescribe all its {model.nv_joint[i]} dofs or none")
    return mask


def _joint_first_dof(model):
    """(nv,) int: for each dof, the first dof of its joint (cached on the model)."""
    first = model._cache.get("hybrid.first_dof")
    if first is None:
        first = np.arange(model.nv)
        for i in range(1, model.nb + 1):
            first[model.idx_v[i]:model.idx_v[i] + model.nv_joint[i]] = model.idx_v[i]
        model._cache["hybrid.first_dof"] = first
    return first


_MASKS = "hybrid.masks"


def _masks(model, prescribed):
    """(mask, known): :func:`prescribed_mask` and the same as float64 (1.0 on the prescribed dofs)
    for the kernels. Masks given by joint names are kept on the model (at most 64 of them): the
    names are looked up once."""
    key = None
    if type(prescribed) is str:
        key = (prescribed,)
    elif type(prescribed) in (list, tuple) and prescribed and type(prescribed[0]) is str:
        key = tuple(prescribed)     # all names, or not in the cache (only names go in)
    masks = model._cache.get(_MASKS)
    if masks is None:
        masks = model._cache[_MASKS] = {}
    if key is not None:
        hit = masks.get(key)
        if hit is not None:
            return hit
    mask = prescribed_mask(model, prescribed)
    known = mask.astype(float)
    mask.flags.writeable = known.flags.writeable = False
    if key is not None and len(masks) < 64 and all(type(n) is str for n in key):
        masks[key] = (mask, known)
    return mask, known


def _known(model, x, mask):
    """x with the ignored entries (outside ``mask``) set to 0, so that they may hold NaN."""
    if x is None:
        return np.zeros(model.nv)
    arr = np.asarray(x)
    if arr.dtype != object and arr.ndim in (1, 2) and arr.shape[-1] == model.nv:
        arr = np.where(mask, arr, np.zeros((), arr.dtype))
    return arr


def _hybrid(model, Q, V, A, Tau, mask, F_ext=None, friction=True):
    """Hybrid dynamics for a batch: (qdd (N, nv), tau (N, nv))."""
    N, nb = Q.shape[0], model.nb
    dtype = result_dtype(Q, V, A, Tau, F_ext)
    X_up = _common.joint_transforms(model, Q)
    U, D_inv, u = [None] * (nb + 1), [None] * (nb + 1), [None] * (nb + 1)
    # joint torques that are not the actuators': friction (unless friction=False), springs
    passive = _friction_torque(model, V) if friction else np.zeros(V.shape, dtype)
    spring = _spring_torque(model, Q)
    if spring is not None:
        passive = passive + spring
    qdd = np.array(A, dtype=dtype)         # prescribed entries known now, free ones solved in pass 3
    tau = np.array(Tau, dtype=dtype)       # free entries known now, prescribed ones solved in pass 3
    known = [bool(mask[model.idx_v[i]]) if model.nv_joint[i] else True for i in range(nb + 1)]

    # pass 1: velocities, velocity-product accelerations, rigid-body inertias and bias forces
    v, c, I_A, p_A = first_pass(model, X_up, V, F_ext, dtype)

    # pass 2: articulated inertias and bias forces; a prescribed joint passes I_A through
    for i in range(nb, 0, -1):
        p, S = model.parent[i], model.S[i]
        dofs = slice(model.idx_v[i], model.idx_v[i] + model.nv_joint[i])
        if known[i]:
            I_a = I_A[:, i]
            p_a = p_A[:, i] + matvec(I_A[:, i], c[:, i] + qdd[:, dofs] @ S.T)
        else:
            U[i] = I_A[:, i] @ S                                              # (N, 6, nv_i)
            D = S.T @ U[i] + np.diag(model.armature[dofs])                    # (N, nv_i, nv_i)
            D_inv[i] = _common.inverse(D)
            u[i] = tau[:, dofs] - passive[:, dofs] - p_A[:, i] @ S           # (N, nv_i)
            U_Dinv = U[i] @ D_inv[i]
            I_a = I_A[:, i] - U_Dinv @ np.swapaxes(U[i], 1, 2)
            p_a = p_A[:, i] + matvec(I_a, c[:, i]) + matvec(U_Dinv, u[i])
        if p > 0:
            I_A[:, p] = I_A[:, p] + inertia_transform(X_up[:, i], I_a)
            p_A[:, p] = p_A[:, p] + force_apply(X_up[:, i], p_a)

    # pass 3: accelerations from the root to the leaves; torques of the prescribed joints
    a = np.zeros((N, nb + 1, 6), dtype)
    a[:, 0] = _common.gravity_acceleration(model, N, dtype)
    for i in range(1, nb + 1):
        p, S = model.parent[i], model.S[i]
        dofs = slice(model.idx_v[i], model.idx_v[i] + model.nv_joint[i])
        a_prime = motion_apply_inv(X_up[:, i], a[:, p]) + c[:, i]
        if not known[i]:
            qdd[:, dofs] = matvec(D_inv[i], u[i] - matvec(np.swapaxes(U[i], 1, 2), a_prime))
        a[:, i] = a_prime + qdd[:, dofs] @ S.T
        if known[i]:
            f = matvec(I_A[:, i], a[:, i]) + p_A[:, i]                       # joint i's wrench
            tau[:, dofs] = f @ S + model.armature[dofs] * qdd[:, dofs] + passive[:, dofs]
    return qdd, tau


def hybrid_dynamics(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike | None, tau: ArrayLike | None,
                    prescribed: str | Sequence[str] | ArrayLike, f_ext: ArrayLike | None = None,
                    friction: bool = True) -> HybridResult:
    """Hybrid dynamics: accelerations of the free joints and torques of the prescribed ones.

    Solves ``M(q) a + h(q, v) + damping v + coulomb sign(v) = tau + sum_i J_i^T f_ext_i`` for
    the unknown half of (a, tau) in O(nb) (Featherstone, "Rigid Body Dynamics Algorithms",
    section 9.2; ``h`` holds gravity, velocity products and the joint springs, as in ``rnea``): ``a`` is given on the prescribed dofs, ``tau`` on the others. All prescribed
    gives the RNEA, none the ABA. The classic use: a floating-base robot whose actuated joints
    follow a planned motion, the base left free (its 6 torques zero), gives the base acceleration
    and the joint torques that the motion needs.

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq) configuration
    v : (nv,) or (N, nv) velocity
    a : (nv,) or (N, nv), or None (zeros)
        accelerations; only the prescribed entries are read (the others may be NaN).
    tau : (nv,) or (N, nv), or None (zeros)
        actuator torques; only the free entries are read (the others may be NaN). A free floating
        base takes the wrench [moment; force] applied to it in its frame, normally zero.
    prescribed : str, sequence of str, or (nv,) bool
        the joints whose motion is prescribed, by name (all their dofs), or a mask over the dofs
        that covers each joint wholly. The floating base ``root_joint`` may be either.
    f_ext : (nb+1, 6) or (N, nb+1, 6), optional
        wrench applied to each body by the environment, [moment; force] in the body frame about
        its origin; row 0 ignored.
    friction : bool
        the model's joint friction counts (subtracted from the free torques, added to the solved
        ones, as in ``aba`` and ``rnea``); armature and joint springs always count.

    Returns
    -------
    HybridResult (a, tau), each (nv,) or (N, nv): the complete acceleration and torque vectors,
    satisfying ``rnea(model, q, v, a, f_ext) == tau``.
    """
    mask, known = _masks(model, prescribed)
    out = _kernels.hybrid_dynamics(model, q, v, a, tau, mask, known, f_ext, friction)  # compiled; None: below
    if out is not None:
        return HybridResult(*out)
    a, tau = _known(model, a, mask), _known(model, tau, ~mask)
    Q, (V, A, Tau), single = _common.batch_inputs(model, q, v=v, a=a, tau=tau)
    F = _common.external_forces(model, f_ext, Q.shape[0])
    qdd, tau_out = _hybrid(model, Q, V, A, Tau, mask, F, friction)
    return HybridResult(unbatch(qdd, single), unbatch(tau_out, single))
