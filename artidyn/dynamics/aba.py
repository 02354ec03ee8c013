"""ABA: the articulated-body algorithm (forward dynamics), for trees and multi-dof joints.

Featherstone's algorithm (J. Reuss, "Modélisation des robots", French Wikipedia draft, 2013,
writes it for a simple chain with the articulated inertia K, the bias B, D and w = S^T K S),
here in the tree form of Featherstone RBDA Table 7.1. Symbols (per body i, p = lambda(i), all in body i's frame):

==========  ==================================================================================
X_up[i]     placement of body i in body p; A^t = motion p -> i, A = force i -> p
S           motion subspace (6 x nv_i): 1 column (revolute, prismatic), 3 (spherical), 6 (free)
v, c        velocity of body i and its velocity-product acceleration c_i = v_i (.) S qd_i
I_A, p_A    articulated inertia and bias force of the subtree at i (Reuss's K and B)
U, D, u     U = I_A S, D = S^T U + diag(armature) (nv_i x nv_i, Reuss's w), u = tau - S^T p_A
I_a, p_a    what the subtree passes to its father: I_A - U D^-1 U^T, p_A + I_a c + U D^-1 u
a           spatial acceleration, a_0 = -[0; g]
==========  ==================================================================================

Pass 1 (1 .. nb): ``v_i = A^t v_p + S qd_i``, ``c_i = v_i (.) S qd_i``, ``I_A = I_i``,
``p_A = v_i (+) I_i v_i - f_ext_i``.
Pass 2 (nb .. 1): ``U, D, u`` as above; ``I_A[p] += A I_a A^T``, ``p_A[p] += A p_a``.
Pass 3 (1 .. nb): ``a' = A^t a_p + c_i``, ``qdd_i = D^-1 (u - U^T a')``, ``a_i = a' + S qdd_i``.

``tau`` is the actuator torque; the joint springs' torque ``K (q - rest)`` (:mod:`.springs`) is
subtracted from it, and so is the model's joint friction (``damping``, ``coulomb``) unless
``friction=False`` (see :mod:`.actuation`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import unbatch
from ..spatial._num import matvec, result_dtype
from ..spatial.motion import cross_force, cross_motion, force_apply, inertia_transform, motion_apply_inv
from ..kernels import dispatch as _kernels
from . import _common
from .actuation import _friction_torque
from .springs import _spring_torque

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def first_pass(model, X_up, V, F_ext, dtype):
    """ABA's pass 1: velocities ``v``, velocity-product accelerations ``c``, rigid-body inertias
    ``I_A`` and bias forces ``p_A`` (external wrenches subtracted), each (N, nb+1, ...); shared
    with hybrid dynamics."""
    N, nb = X_up.shape[0], model.nb
    v = np.zeros((N, nb + 1, 6), dtype)
    c = np.zeros((N, nb + 1, 6), dtype)
    p_A = np.zeros((N, nb + 1, 6), dtype)
    I_A = np.zeros((N, nb + 1, 6, 6), dtype)
    for i in range(1, nb + 1):
        p, S = model.parent[i], model.S[i]
        dofs = slice(model.idx_v[i], model.idx_v[i] + model.nv_joint[i])
        vJ = V[:, dofs] @ S.T
        v[:, i] = motion_apply_inv(X_up[:, i], v[:, p]) + vJ
        c[:, i] = cross_motion(v[:, i], vJ)
        I_A[:, i] = model.I[i]
        p_A[:, i] = cross_force(v[:, i], matvec(model.I[i], v[:, i]))
        if F_ext is not None:
            p_A[:, i] = p_A[:, i] - F_ext[:, i]
    return v, c, I_A, p_A


def _aba(model, Q, V, Tau, F_ext=None, friction=True):
    """ABA for a batch: qdd (N, nv)."""
    N, nb = Q.shape[0], model.nb
    dtype = result_dtype(Q, V, Tau, F_ext)
    X_up = _common.joint_transforms(model, Q)
    U, D_inv, u = [None] * (nb + 1), [None] * (nb + 1), [None] * (nb + 1)
    tau = Tau - _friction_torque(model, V) if friction else Tau
    spring = _spring_torque(model, Q)
    if spring is not None:
        tau = tau - spring

    v, c, I_A, p_A = first_pass(model, X_up, V, F_ext, dtype)

    # pass 2: articulated inertias and bias forces, from the leaves to the root
    for i in range(nb, 0, -1):
        p, S = model.parent[i], model.S[i]
        dofs = slice(model.idx_v[i], model.idx_v[i] + model.nv_joint[i])
        U[i] = I_A[:, i] @ S                                              # (N, 6, nv_i)
        D = S.T @ U[i] + np.diag(model.armature[dofs])                    # (N, nv_i, nv_i)
        D_inv[i] = _common.inverse(D)
        u[i] = tau[:, dofs] - p_A[:, i] @ S                               # (N, nv_i)
        if p > 0:
            U_Dinv = U[i] @ D_inv[i]
            I_a = I_A[:, i] - U_Dinv @ np.swapaxes(U[i], 1, 2)
            p_a = p_A[:, i] + matvec(I_a, c[:, i]) + matvec(U_Dinv, u[i])
            I_A[:, p] = I_A[:, p] + inertia_transform(X_up[:, i], I_a)
            p_A[:, p] = p_A[:, p] + force_apply(X_up[:, i], p_a)

    # pass 3: accelerations, from the root to the leaves
    a = np.zeros((N, nb + 1, 6), dtype)
    a[:, 0] = _common.gravity_acceleration(model, N, dtype)
    qdd = np.zeros((N, model.nv), dtype)
    for i in range(1, nb + 1):
        p, S = model.parent[i], model.S[i]
        dofs = slice(model.idx_v[i], model.idx_v[i] + model.nv_joint[i])
        a_prime = motion_apply_inv(X_up[:, i], a[:, p]) + c[:, i]
        qdd[:, dofs] = matvec(D_inv[i], u[i] - matvec(np.swapaxes(U[i], 1, 2), a_prime))
        a[:, i] = a_prime + qdd[:, dofs] @ S.T
    return qdd


def aba(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike, f_ext: ArrayLike | None = None,
        friction: bool = True) -> Array:
    """Forward dynamics: the joint acceleration produced by the actuator torques ``tau``.

    Solves ``M(q) a + h(q, v) + damping v + coulomb sign(v) = tau + sum_i J_i^T f_ext_i`` in
    O(nb) (Featherstone, "Rigid Body Dynamics Algorithms", Table 7.1); ``h`` holds the joint
    springs ``K (q - rest)`` with gravity.

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq) configuration
    v : (nv,) or (N, nv) velocity
    tau : (nv,) or (N, nv) actuator torques (floating base: first 6 entries, a wrench
        [moment; force] on the base in the base frame, normally zero)
    f_ext : (nb+1, 6) or (N, nb+1, 6), optional
        wrench applied to each body by the environment, [moment; force] in the body frame about
        its origin; row 0 ignored.
    friction : bool
        subtract the model's joint friction from ``tau`` (armature and joint springs always count).

    Returns
    -------
    a : (nv,) or (N, nv) acceleration (floating base: spatial acceleration of the base in its
        frame, [omega_dot; v_dot], as pinocchio's).
    """
    try:
        a = _kernels.aba(model, q, v, tau, f_ext, friction)  # compiled; None: reference code below
    except (ZeroDivisionError, SystemError, FloatingPointError):
        raise singular_inertia(model, q) from None
    if a is not None:
        return a
    Q, (V, Tau), single = _common.batch_inputs(model, q, v=v, tau=tau)
    F = _common.external_forces(model, f_ext, Q.shape[0])
    try:
        with np.errstate(divide="ignore", invalid="ignore"):    # a singular D is reported below, by name
            out = _aba(model, Q, V, Tau, F, friction)
    except (ZeroDivisionError, np.linalg.LinAlgError):
        raise singular_inertia(model, q) from None
    if Q.dtype != object and not np.all(np.isfinite(out)):
        raise singular_inertia(model, q)
    return unbatch(out, single)


def singular_inertia(model, q):
    """The ModelError for a joint-space inertia that cannot be inverted at ``q``: the joints that
    move no inertia (a point mass on a revolute axis, a massless leaf body) are named."""
    from ..errors import ModelError
    from .crba import _crba

    Q, _ = _common.batch_inputs(model, q)[0], None
    Q = np.atleast_2d(np.asarray(Q, dtype=float))
    names = []
    for Qk in Q[:64]:
        M = _crba(model, Qk[None])[0]
        tol = 1e-12 * max(1.0, float(np.max(np.abs(np.diag(M)))))
        for k in np.flatnonzero(np.diag(M) <= tol):
            j = next(i for i in range(1, model.nb + 1) if model.idx_v[i] <= k < model.idx_v[i] + model.nv_joint[i])
            if model.joint_names[j] not in names:
                names.append(model.joint_names[j])
    what = (f"joint(s) {', '.join(repr(n) for n in names)} move(s) no inertia (the bodies they carry have no "
            f"mass off their axis and no rotational inertia about it)" if names else None)
    if what is None:
        return ModelError(f"model '{model.name}': forward dynamics gave a non-finite result: the joint-space inertia "
                          f"is singular at this configuration, or the inputs are so large that the result overflows")
    return ModelError(f"model '{model.name}': {what}; forward dynamics is undefined. Give those bodies inertia "
                      f"(or armature), or fix the joints")
