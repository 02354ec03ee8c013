"""GAHA: the Gibbs-Appell Hessian algorithm (joint-space mass matrix M(q)).

The mass matrix is the Hessian, with respect to the accelerations, of
the Gibbs-Appell acceleration energy (Mata, Provenzano, Cuadrado, Valero, "Serial-robot
dynamics algorithms for moderately large numbers of joints", Mech. Mach. Theory 37, 2002)::

    S(q, qd, qdd) = sum_i [ 1/2 m_i |a_Gi|^2 + 1/2 alpha_i . I_Gi alpha_i
                            + alpha_i . (omega_i x I_Gi omega_i) ]  + 1/2 sum_k armature_k qdd_k^2

The Gibbs-Appell equations are ``dS/dqdd = Q`` (the generalized forces); ``a_Gi`` (acceleration
of the centre of mass G_i) and ``alpha_i`` are affine in qdd, so

    M = d^2 S / dqdd^2 = sum_i [ m_i Gamma_i^T Gamma_i + Omega_i^T I_Gi Omega_i ] + diag(armature)

with the partial accelerations ``Omega_i = d alpha_i / d qdd`` and ``Gamma_i = d a_Gi / d qdd``
(3 x nv each, body i axes). As in Mata et al. they are built recursively from the root, in the
frame of each body: the 6-D partial acceleration ``J_i = d a_i / d qdd = [Omega_i; d a_Oi / d qdd]``
(the body Jacobian, body axes, about the body origin O_i) obeys

    J_i = A^t J_lambda(i)   (columns of the joints on the path to the root)
    J_i[:, joint i] = S_i
    Omega_i = J_i[:3],   Gamma_i = J_i[3:] + Omega_i x c_i  = J_i[3:] - [c_i] Omega_i

``c_i`` is the centre of mass in body i axes. This route never forms composite inertias, so it
is independent of :mod:`.crba`; the tests hold the two together to 1e-12.

:func:`gaha` runs the compiled mirror of :func:`_gaha` (:mod:`artidyn.kernels.gaha`, the same sums in
world axes) on real inputs; ``artidyn.kernels.reference_only()`` runs this code.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import unbatch
from ..kernels import dispatch as _kernels
from ..kinematics.placements import _joint_transforms, _states
from ..kinematics.velocities import _body_accelerations, _body_velocities
from ..spatial._num import cross, matvec
from ..spatial.motion import inertia_parts, motion_apply_inv, skew

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def com_parts(model):
    """(m, c, I_G) per body, (nb+1,), (nb+1, 3), (nb+1, 3, 3), from the lumped spatial inertias.

    A massless body keeps its rotational inertia about its origin (c = 0). Cached on the model.
    """
    key = "gaha_com_parts"
    if key not in model._cache:
        I6 = np.asarray(model.I, dtype=float)
        m = I6[:, 5, 5].copy()
        c = np.zeros((model.nb + 1, 3))
        I_G = I6[:, :3, :3].copy()
        for i in range(model.nb + 1):
            if m[i] > 0:
                _, c[i], I_G[i] = inertia_parts(I6[i])
        model._cache[key] = (m, c, I_G)
    return model._cache[key]


def _body_jacobians(model, X_up):
    """Partial accelerations J_i = d a_i / d qdd (N, nb+1, 6, nv): body axes, about O_i.

    ``J_i = A^t J_lambda(i)`` with the joint's own columns ``S_i``; row 0 (world) is zero.
    """
    N = X_up.shape[0]
    J = np.zeros((N, model.nb + 1, 6, model.nv), X_up.dtype)
    for i in range(1, model.nb + 1):
        p = model.parent[i]
        if p > 0:
            cols = np.swapaxes(J[:, p], 1, 2)                           # (N, nv, 6)
            J[:, i] = np.swapaxes(motion_apply_inv(X_up[:, i, None], cols), 1, 2)
        k = model.idx_v[i]
        J[:, i, :, k:k + model.nv_joint[i]] = model.S[i]
    return J


def _partials(model, J, i):
    """(Omega_i, Gamma_i): d alpha_i / d qdd and d a_Gi / d qdd, (N, 3, nv) each, body axes."""
    _, c, _ = com_parts(model)
    Omega = J[:, i, :3]
    Gamma = J[:, i, 3:] - skew(c[i]) @ Omega
    return Omega, Gamma


def _gaha(model, Q):
    """GAHA for a batch: M (N, nv, nv) = sum_i m_i Gamma_i^T Gamma_i + Omega_i^T I_Gi Omega_i."""
    X_up = _joint_transforms(model, Q)
    J = _body_jacobians(model, X_up)
    m, _, I_G = com_parts(model)
    M = np.zeros((Q.shape[0], model.nv, model.nv), J.dtype)
    for i in range(1, model.nb + 1):
        Omega, Gamma = _partials(model, J, i)
        Om_t, Ga_t = np.swapaxes(Omega, 1, 2), np.swapaxes(Gamma, 1, 2)
        if m[i] != 0:
            M = M + m[i] * (Ga_t @ Gamma)
        M = M + Om_t @ (I_G[i] @ Omega)
    if np.any(model.armature):
        M = M + np.diag(model.armature)
    return M


def gaha(model: Model, q: ArrayLike) -> Array:
    """Joint-space mass matrix M(q) by the Gibbs-Appell Hessian algorithm (module docstring).

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq) configuration

    Returns
    -------
    M : (nv, nv) or (N, nv, nv), symmetric, rotor ``armature`` on the diagonal (as
        :func:`~artidyn.dynamics.crba`). Floating base and spherical joints: M is expressed in the
        local velocity coordinates ``v`` ([omega; v] in the base / body frame).
    """
    M = _kernels.gaha(model, q)  # compiled (artidyn.kernels.gaha); None: reference code below
    if M is not None:
        return M
    Q, _, single = _states(model, q)
    return unbatch(_gaha(model, Q), single)


def _acceleration_energy(model, Q, V, A):
    """S (N,) for a batch (module docstring). Accelerations are classical (absolute) ones."""
    m, c, I_G = com_parts(model)
    T_up = _joint_transforms(model, Q)
    v = _body_velocities(model, T_up, V)
    a = _body_accelerations(model, T_up, v, V, A)
    S = 0.5 * np.sum(model.armature * A * A, axis=1) if np.any(model.armature) else 0
    for i in range(1, model.nb + 1):
        omega, v_O = v[:, i, :3], v[:, i, 3:]
        alpha, a_sp = a[:, i, :3], a[:, i, 3:]
        # a_G = a_O + alpha x c + omega x (omega x c),  a_O = a_sp + omega x v_O (classical)
        a_G = a_sp + cross(omega, v_O) + cross(alpha, c[i]) + cross(omega, cross(omega, c[i]))
        I_alpha, I_omega = matvec(I_G[i], alpha), matvec(I_G[i], omega)
        S = S + 0.5 * m[i] * np.sum(a_G * a_G, axis=1) + 0.5 * np.sum(alpha * I_alpha, axis=1) \
            + np.sum(alpha * cross(omega, I_omega), axis=1)
    return S


def acceleration_energy(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike) -> float | Array:
    """The Gibbs-Appell acceleration energy ``S(q, v, a)`` (module docstring), gravity excluded.

    Its Hessian in ``a`` is :func:`gaha`'s M; its gradient in ``a`` is the Gibbs-Appell
    left-hand side ``M a + C v`` (= RNEA without gravity and friction).

    Parameters
    ----------
    q : (nq,) or (N, nq);  v, a : (nv,) or (N, nv)

    Returns
    -------
    S : float or (N,) array, in J/s^2.
    """
    Q, (V, A), single = _states(model, q, v=v, a=a)
    S = _acceleration_energy(model, Q, V, A)
    S = np.broadcast_to(S, (Q.shape[0],))
    return S[0] if single else np.array(S)
