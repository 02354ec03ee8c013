"""Analytical derivatives of the inverse and forward dynamics (RNEA and ABA).

Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms" (RSS 2018),
the algorithm behind pinocchio's ``computeRNEADerivatives``: one forward pass and one backward
pass over the tree, written here in 6-D notation in the WORLD frame (every motion vector about
the world origin in world axes, Featherstone's crm/crf operators), where the motion subspace of
joint j is the 6 x nv_j block ``J_j = X_0j S_j`` of the world Jacobian.

Tangent space. ``q`` lives on a manifold (quaternions of spherical and free joints), so the
derivative with respect to q is taken along the velocity basis of the model: column k of
``dtau_dq`` is ``d/de tau(integrate(model, q, e * unit_k), v, a)`` at e = 0. A step along dof k
of joint j moves the whole subtree of j rigidly by ``exp(e s)``, with s = column k of J_j
(the perturbation is the twist of body j about its own joint, as pinocchio's). On revolute,
prismatic and cylindrical joints this is the ordinary partial derivative d/dq_k.

Symbols (per body i, p = lambda(i), j a joint on the path root..i; ``x`` motion cross product
crm, ``x*`` force cross product crf, ``f x* v := v x* f`` its "bar" form, RBDA eq. 2.40)::

    J_i      = X_0i S_i                          world motion subspace of joint i (6 x nv_i)
    v_i      = v_p + J_i qd_i                     velocity, v_0 = 0
    a_i      = a_p + J_i qdd_i + v_i x J_i qd_i   acceleration, a_0 = -[0; g]
    f_i      = I_i a_i + v_i x* I_i v_i - f_ext_i body wrench (I_i, f_ext_i in world)
    B_i      = v_i x* I_i - I_i v_i x + (I_i v_i) x-bar*   so that d f_i = B_i dv + I_i da
    dV/dq_j  = v_p(j) x J_j                      (the parent velocity seen moving by J_j)
    dA/dq_j  = a_p(j) x J_j + v_p(j) x dV/dq_j
    dA/dv_j  = dV/dq_j + v_j x J_j
    I^C, B^C, F   sums of I_i, B_i, f_i over the subtree of i (composite quantities)

Forward pass (1..nb): v, a, f, B and the three column blocks above. Backward pass (nb..1): with
the subtree sums complete at i, for every joint j on the path root..i (j = i included) ::

    dtau_i/dq_j = J_i^T (B^C_i dV/dq_j + I^C_i dA/dq_j)
    dtau_i/dv_j = J_i^T (B^C_i J_j    + I^C_i dA/dv_j)
    M_ij        = J_i^T I^C_i J_j

and for every strict ancestor j of i (the block above the diagonal) ::

    dtau_j/dq_i = J_j^T (J_i x* F_i + B^C_i dV/dq_i + I^C_i dA/dq_i)
    dtau_j/dv_i = J_j^T (B^C_i J_i + I^C_i dA/dv_i)

(the first family has no ``J_j x* F`` term: the rotation of J_i by the step cancels the
rotation of the subtree's wrench). Then the joint-space extras of :func:`~.rnea.rnea`:
``dtau/dq += diag(stiffness)`` (springs, flat dofs only), ``dtau/dv += diag(damping)``
(viscous friction), ``M += diag(armature)``. Coulomb friction ``coulomb * sign(v)`` is piecewise
constant: its derivative is 0 away from v = 0 (it is not differentiable at v = 0; 0 is
returned there too).

ABA derivatives (same paper, section IV): with a = aba(q, v, tau),
``da/dq = -M^-1 dtau/dq(q, v, a)``, ``da/dv = -M^-1 dtau/dv(q, v, a)``, ``da/dtau = M^-1``.
The code is dtype-generic (float64, complex128 for complex-step checks, SymPy object arrays).
Float inputs (one state or a batch) run the compiled twin, :mod:`artidyn.kernels.derivatives`
(tests/test_derivatives_compiled.py holds the two equal); anything else runs the code below.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..configuration import unbatch
from ..kinematics.placements import _placements_from
from ..spatial._num import matvec, result_dtype
from ..spatial.motion import crf, crm, force_apply, inertia_transform, motion_apply, skew
from . import _common
from . import _derivatives_kernels as _kernels
from ._derivatives_kernels import C_ABA_D, C_RNEA_D, ON as _ON  # module globals: one lookup each
from .aba import _aba

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Model


class RneaDerivatives(NamedTuple):
    """Partial derivatives of ``tau = rnea(q, v, a)``, each (nv, nv) or (N, nv, nv).

    dtau_dq : d tau / dq on the tangent space of q (column k: step along velocity dof k, see
        the module docstring)
    dtau_dv : d tau / dv
    M : d tau / da, the joint-space mass matrix (armature included)
    """
    dtau_dq: np.ndarray
    dtau_dv: np.ndarray
    M: np.ndarray


class AbaDerivatives(NamedTuple):
    """Partial derivatives of ``a = aba(q, v, tau)``, each (nv, nv) or (N, nv, nv).

    da_dq : d a / dq on the tangent space of q (column k: step along velocity dof k)
    da_dv : d a / dv
    Minv : d a / dtau, the inverse of the mass matrix
    """
    da_dq: np.ndarray
    da_dv: np.ndarray
    Minv: np.ndarray


def crf_bar(f):
    """6x6 matrix of ``m -> m x* f`` for a force f (..., 6): [[-[n], -[f]], [-[f], 0]]."""
    n, fo = skew(f[..., :3]), skew(f[..., 3:])
    return -np.concatenate([np.concatenate([n, fo], -1), np.concatenate([fo, np.zeros_like(fo)], -1)], -2)


def _dofs(model, i):
    return slice(model.idx_v[i], model.idx_v[i] + model.nv_joint[i])


def _support_dofs(model, i):
    """Velocity indices of the strict ancestors of joint i (root first)."""
    out, j = [], model.parent[i]
    while j > 0:
        out[:0] = range(model.idx_v[j], model.idx_v[j] + model.nv_joint[j])
        j = model.parent[j]
    return np.array(out, dtype=np.int64)


def _forward_pass(model, Q, V, A, F_ext):
    """World-frame J, v, a, inertias I, wrenches f, B and the column blocks dV/dq, dA/dq, dA/dv."""
    N, nb, nv = Q.shape[0], model.nb, model.nv
    dtype = result_dtype(Q, V, A, F_ext)
    T0 = _placements_from(model, _common.joint_transforms(model, Q))       # X_0i as 4x4
    J = np.zeros((N, 6, nv), dtype)
    dVdq, dAdq, dAdv = np.zeros_like(J), np.zeros_like(J), np.zeros_like(J)
    v = np.zeros((N, nb + 1, 6), dtype)
    a = np.zeros((N, nb + 1, 6), dtype)
    a[:, 0] = _common.gravity_acceleration(model, N, dtype)
    I = np.zeros((N, nb + 1, 6, 6), dtype)
    B = np.zeros((N, nb + 1, 6, 6), dtype)
    f = np.zeros((N, nb + 1, 6), dtype)
    for i in range(1, nb + 1):
        p, d = model.parent[i], _dofs(model, i)
        J_i = np.swapaxes(motion_apply(T0[:, i, None], model.S[i].T), 1, 2)    # (N, 6, nv_i)
        J[:, :, d] = J_i
        vJ = matvec(J_i, V[:, d])
        v[:, i] = v[:, p] + vJ
        a[:, i] = a[:, p] + matvec(J_i, A[:, d]) + matvec(crm(v[:, i]), vJ)
        dVdq[:, :, d] = crm(v[:, p]) @ J_i
        dAdq[:, :, d] = crm(a[:, p]) @ J_i + crm(v[:, p]) @ dVdq[:, :, d]
        dAdv[:, :, d] = dVdq[:, :, d] + crm(v[:, i]) @ J_i
        I[:, i] = inertia_transform(T0[:, i], model.I[i])
        h = matvec(I[:, i], v[:, i])
        f[:, i] = matvec(I[:, i], a[:, i]) + matvec(crf(v[:, i]), h)
        if F_ext is not None:
            f[:, i] = f[:, i] - force_apply(T0[:, i], F_ext[:, i])
        B[:, i] = crf(v[:, i]) @ I[:, i] - I[:, i] @ crm(v[:, i]) + crf_bar(h)
    return J, dVdq, dAdq, dAdv, I, B, f


def _backward_pass(model, J, dVdq, dAdq, dAdv, I_C, B_C, F):
    """dtau/dq, dtau/dv and M (rigid-body part) from the leaves to the root; I_C, B_C, F are
    accumulated in place into subtree sums."""
    N, nv = J.shape[0], model.nv
    dtau_dq = np.zeros((N, nv, nv), J.dtype)
    dtau_dv, M = np.zeros_like(dtau_dq), np.zeros_like(dtau_dq)
    for i in range(model.nb, 0, -1):
        p, d = model.parent[i], _dofs(model, i)
        anc = _support_dofs(model, i)
        path = np.concatenate([anc, np.arange(d.start, d.stop)])
        J_i = J[:, :, d]
        # row block i, columns of the joints on the path root..i
        JtI, JtB = np.swapaxes(J_i, 1, 2) @ I_C[:, i], np.swapaxes(J_i, 1, 2) @ B_C[:, i]
        dtau_dq[:, d, path] = JtB @ dVdq[:, :, path] + JtI @ dAdq[:, :, path]
        dtau_dv[:, d, path] = JtB @ J[:, :, path] + JtI @ dAdv[:, :, path]
        M[:, d, path] = JtI @ J[:, :, path]
        M[:, path, d] = np.swapaxes(M[:, d, path], 1, 2)
        # column block i, rows of the strict ancestors: the subtree's wrench derivative
        if anc.size:
            dF_dq = crf_bar(F[:, i]) @ J_i + B_C[:, i] @ dVdq[:, :, d] + I_C[:, i] @ dAdq[:, :, d]
            dF_dv = B_C[:, i] @ J_i + I_C[:, i] @ dAdv[:, :, d]
            J_anc_t = np.swapaxes(J[:, :, anc], 1, 2)
            dtau_dq[:, anc[:, None], np.arange(d.start, d.stop)] = J_anc_t @ dF_dq
            dtau_dv[:, anc[:, None], np.arange(d.start, d.stop)] = J_anc_t @ dF_dv
        if p > 0:
            I_C[:, p] = I_C[:, p] + I_C[:, i]
            B_C[:, p] = B_C[:, p] + B_C[:, i]
            F[:, p] = F[:, p] + F[:, i]
    return dtau_dq, dtau_dv, M


def _rnea_derivatives(model, Q, V, A, F_ext=None, friction=True):
    """Batch version: (dtau_dq, dtau_dv, M), each (N, nv, nv)."""
    J, dVdq, dAdq, dAdv, I, B, f = _forward_pass(model, Q, V, A, F_ext)
    dtau_dq, dtau_dv, M = _backward_pass(model, J, dVdq, dAdq, dAdv, I, B, f)
    if np.any(model.armature):
        M = M + np.diag(model.armature)
    if np.any(model.stiffness):      # springs: flat dofs only, where the tangent is dq
        dtau_dq = dtau_dq + np.diag(model.stiffness)
    if friction and np.any(model.damping):   # Coulomb: derivative 0 (away from v = 0)
        dtau_dv = dtau_dv + np.diag(model.damping)
    return dtau_dq, dtau_dv, M


def rnea_derivatives(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike, f_ext: ArrayLike | None = None,
                     friction: bool = True) -> RneaDerivatives:
    """Partial derivatives of the inverse dynamics ``tau = rnea(q, v, a, f_ext)``.

    Carpentier & Mansard's recursive algorithm (RSS 2018; see the module docstring for the
    passes), exact to rounding, O(nb * depth).

    The derivative with respect to ``q`` is on the tangent space: column k of ``dtau_dq`` is
    ``d/de rnea(integrate(model, q, e * unit_k), v, a)`` at e = 0, unit_k the k-th velocity dof
    (free joint: [omega_body; v_body], spherical: omega_body). It matches pinocchio's
    ``computeRNEADerivatives`` once pinocchio's free-flyer [v; omega] order is swapped. On
    revolute, prismatic and cylindrical joints it is the plain partial derivative.

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq) configuration
    v, a : (nv,) or (N, nv) velocity and acceleration
    f_ext : (nb+1, 6) or (N, nb+1, 6), optional
        wrench applied to each body, [moment; force] in the body frame about its origin (row 0
        ignored); it moves with its body, so it enters ``dtau_dq``.
    friction : bool
        include the viscous friction ``damping * v`` in ``dtau_dv``. Coulomb friction
        ``coulomb * sign(v)`` has derivative 0 (away from v = 0, where it jumps; 0 is returned
        there too). Joint springs (``stiffness``) always add ``diag(stiffness)`` to ``dtau_dq``,
        armature ``diag(armature)`` to ``M``.

    Returns
    -------
    RneaDerivatives(dtau_dq, dtau_dv, M), each (nv, nv) or (N, nv, nv).
    """
    try:            # one state of float64 arrays: the model's C call object (made by _kernels.derivatives)
        c = model._cache.get(C_RNEA_D[1 if friction else 0]) if f_ext is None and _ON[0] else None
    except AttributeError:
        c = None
    if c and (out := c(q, v, a)) is not None:
        return out
    out = _kernels.derivatives(model, _kernels.RNEA_D, q, v, a, f_ext, friction, RneaDerivatives)  # None: reference
    if out is not None:
        return out
    Q, (V, A), single = _common.batch_inputs(model, q, v=v, a=a)
    F = _common.external_forces(model, f_ext, Q.shape[0])
    return RneaDerivatives(*(unbatch(x, single) for x in _rnea_derivatives(model, Q, V, A, F, friction)))


def _aba_derivatives(model, Q, V, Tau, F_ext=None, friction=True):
    """Batch version: (da_dq, da_dv, Minv), each (N, nv, nv)."""
    A = _aba(model, Q, V, Tau, F_ext, friction)
    dtau_dq, dtau_dv, M = _rnea_derivatives(model, Q, V, A, F_ext, friction)
    Minv = _common.inverse(M)
    if Minv.dtype != object:
        Minv = (Minv + np.swapaxes(Minv, 1, 2)) / 2     # exactly symmetric
    return -Minv @ dtau_dq, -Minv @ dtau_dv, Minv


def aba_derivatives(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike, f_ext: ArrayLike | None = None,
                    friction: bool = True) -> AbaDerivatives:
    """Partial derivatives of the forward dynamics ``a = aba(q, v, tau, f_ext)``.

    Carpentier & Mansard's identity (RSS 2018, section IV): differentiating
    ``rnea(q, v, aba(q, v, tau)) = tau`` gives, with a = aba(q, v, tau) and the derivatives of
    :func:`rnea_derivatives` at (q, v, a)::

        da/dq = -M^-1 dtau/dq,   da/dv = -M^-1 dtau/dv,   da/dtau = M^-1.

    ``da_dq`` is on the tangent space of q (column k: step ``integrate(q, e * unit_k)``), as
    in :func:`rnea_derivatives`; friction, springs, armature and ``f_ext`` as there (Coulomb
    friction: derivative 0 away from v = 0).

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq) configuration
    v, tau : (nv,) or (N, nv) velocity and actuator torques
    f_ext : (nb+1, 6) or (N, nb+1, 6), optional, as in :func:`~.aba.aba`
    friction : bool, as in :func:`~.aba.aba`

    Returns
    -------
    AbaDerivatives(da_dq, da_dv, Minv), each (nv, nv) or (N, nv, nv).
    """
    try:            # one state of float64 arrays: the model's C call object (made by _kernels.derivatives)
        c = model._cache.get(C_ABA_D[1 if friction else 0]) if f_ext is None and _ON[0] else None
    except AttributeError:
        c = None
    if c and (out := c(q, v, tau)) is not None:
        return out
    out = _kernels.derivatives(model, _kernels.ABA_D, q, v, tau, f_ext, friction, AbaDerivatives)  # None: reference
    if out is not None:
        return out
    Q, (V, Tau), single = _common.batch_inputs(model, q, v=v, tau=tau)
    F = _common.external_forces(model, f_ext, Q.shape[0])
    return AbaDerivatives(*(unbatch(x, single) for x in _aba_derivatives(model, Q, V, Tau, F, friction)))
