"""The terms of Lagrange's equations: g(q), C(q, v), Mdot(q, v), Christoffel symbols.

J. Reuss, "Modélisation des robots" (French Wikipedia draft, 2013), "Équations de Lagrange"
(sans contrainte); Siciliano, Sciavicco, Villani & Oriolo, "Robotics: Modelling, Planning and
Control" (2009), ch. 7::

    M(q) qdd + C(q, qd) qd + g(q) = tau,      g_k = dV/dq_k,   V = - sum_i m_i g . r_Gi

(plus, with joint springs, ``1/2 (q - rest)^T K (q - rest)`` in V and ``K (q - rest)`` in g:
see :mod:`.springs`).

    Gamma_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i),     C_ij = sum_k Gamma_ijk qd_k

(Reuss writes the same symbols with the equation index last: its Gamma_ijk is our
Gamma_kij). Everything is built from the body Jacobians of :mod:`.gaha` (``J_i``, body axes,
about the body origin, ``M = sum_i J_i^T I_i J_i``) and one more recursion, for the world
derivative of the Jacobian columns expressed in body i axes::

    Jh_i = A^t Jh_lambda(i),      Jh_i[:, joint i] = v_i (.) S_i

(``d/dt`` of a joint's world twist is ``V_j (.) s``, Featherstone RBDA eq. 2.41). The true time
derivative of the body-axes Jacobian is ``Jdot_i = Jh_i - v_i (.) J_i`` (the axes turn).

* ``Mdot = sum_i (Jdot_i^T I_i J_i + J_i^T I_i Jdot_i)``: the time derivative of GAHA's sum
  (I_i is constant in body axes); no finite differences.
* ``C = sum_i J_i^T (I_i Jh_i + B_i J_i)``, ``B_i = 1/2 [v_i (+) I_i - I_i v_i (.) + (I_i v_i) (x)]``
  with ``(f (x)) u = u (+) f``: the Coriolis matrix of Echeandia & Wensing ("Numerical methods
  to compute the Coriolis matrix and Christoffel symbols for rigid-body systems", J. Comput.
  Nonlinear Dyn. 16, 2021), also pinocchio's computeCoriolisMatrix. ``C v`` is RNEA's velocity
  term (B_i v_i = v_i (+) I_i v_i); ``B_i + B_i^T`` is the inertia rate ``v_i (+) I_i - I_i v_i (.)``
  so ``Mdot - 2C`` is skew for every joint type. With 1-dof joints (v = qd) it equals the
  Christoffel C above; it is the construction used for spherical joints and the floating base,
  where v is a quasi-velocity and Christoffel's formula misses Boltzmann-Hamel terms.

:func:`christoffel` runs the compiled :mod:`artidyn.kernels.christoffel` on real inputs (dM/dq_k
from the derivative of the world-frame CRBA, the same ``Mdot(q, e_k)``);
``artidyn.kernels.reference_only()`` runs this code.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import unbatch
from ..errors import InputError
from ..joints import FREE, SPHERICAL
from ..kinematics.placements import _joint_transforms, _placements_from, _states
from ..kinematics.velocities import _body_velocities
from ..spatial._num import matvec
from ..spatial.motion import crf, crm, cross_motion, motion_apply_inv, skew
from .gaha import _body_jacobians, _partials, com_parts
from ..kernels import dispatch as _kernels
from .springs import _spring_torque

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def _columns_cross(v, J):
    """v (.) J column-wise: v (N, 6), J (N, 6, n) -> (N, 6, n)."""
    return np.swapaxes(cross_motion(v[:, None], np.swapaxes(J, 1, 2)), 1, 2)


def _jacobians_and_rates(model, Q, V):
    """(J, Jh, v): body Jacobians, their world derivative in body axes (N, nb+1, 6, nv) and the
    body twists (N, nb+1, 6)."""
    X_up = _joint_transforms(model, Q)
    J = _body_jacobians(model, X_up)
    v = _body_velocities(model, X_up, V)
    Jh = np.zeros(J.shape, dtype=np.result_type(J, v))
    for i in range(1, model.nb + 1):
        p = model.parent[i]
        if p > 0:
            Jh[:, i] = np.swapaxes(motion_apply_inv(X_up[:, i, None], np.swapaxes(Jh[:, p], 1, 2)), 1, 2)
        k = model.idx_v[i]
        Jh[:, i, :, k:k + model.nv_joint[i]] = _columns_cross(v[:, i], np.broadcast_to(
            model.S[i], (Q.shape[0],) + model.S[i].shape))
    return J, Jh, v


def _mass_matrix_derivative(model, Q, V):
    """Mdot (N, nv, nv) = sum_i Jdot_i^T I_i J_i + J_i^T I_i Jdot_i, Jdot_i = Jh_i - v_i (.) J_i."""
    J, Jh, v = _jacobians_and_rates(model, Q, V)
    Md = np.zeros((Q.shape[0], model.nv, model.nv), dtype=Jh.dtype)
    for i in range(1, model.nb + 1):
        Jdot = Jh[:, i] - _columns_cross(v[:, i], J[:, i])
        X = np.swapaxes(J[:, i], 1, 2) @ (model.I[i] @ Jdot)  # J^T I Jdot
        Md = Md + X + np.swapaxes(X, 1, 2)
    return Md


def _bar_cross(f):
    """(f (x)): the 6x6 matrix with (f (x)) u = u (+) f, f = [mu; phi] (N, 6)."""
    Mu, Phi = skew(f[..., :3]), skew(f[..., 3:])
    return -np.concatenate([np.concatenate([Mu, Phi], -1),
                            np.concatenate([Phi, np.zeros_like(Phi)], -1)], -2)


def _coriolis(model, Q, V):
    """C (N, nv, nv) = sum_i J_i^T (I_i Jh_i + B_i J_i) (Echeandia & Wensing 2021)."""
    J, Jh, v = _jacobians_and_rates(model, Q, V)
    C = np.zeros((Q.shape[0], model.nv, model.nv), dtype=Jh.dtype)
    for i in range(1, model.nb + 1):
        I = model.I[i]
        B = 0.5 * (crf(v[:, i]) @ I - I @ crm(v[:, i]) + _bar_cross(matvec(I, v[:, i])))
        C = C + np.swapaxes(J[:, i], 1, 2) @ (I @ Jh[:, i] + B @ J[:, i])
    return C


def _has_quasi_velocities(model):
    return any(model.joint_type[i] in (SPHERICAL, FREE) for i in range(1, model.nb + 1))


def _christoffel(model, Q):
    """Gamma (N, nv, nv, nv) with dM/dq_k = Mdot(q, e_k), all k at once (batch N * nv)."""
    N, nv = Q.shape[0], model.nv
    E = np.tile(np.eye(nv, dtype=Q.dtype if Q.dtype == object else float), (N, 1))
    dM = _mass_matrix_derivative(model, np.repeat(Q, nv, axis=0), E).reshape(N, nv, nv, nv)
    D = np.transpose(dM, (0, 2, 3, 1))                  # D[n, i, j, k] = dM_ij / dq_k
    return 0.5 * (D + np.transpose(D, (0, 1, 3, 2)) - np.transpose(D, (0, 3, 1, 2)))


def _gravity(model, Q):
    """g (N, nv) = dV/dq = - sum_i m_i Gamma_i^T (R_i^T g0): partial COM velocities, body axes."""
    X_up = _joint_transforms(model, Q)
    J = _body_jacobians(model, X_up)
    T = _placements_from(model, X_up)
    m, _, _ = com_parts(model)
    g0 = np.asarray(model.gravity, dtype=float)
    G = np.zeros((Q.shape[0], model.nv), dtype=J.dtype)
    for i in range(1, model.nb + 1):
        if m[i] == 0:
            continue
        _, Gamma = _partials(model, J, i)
        g_i = matvec(np.swapaxes(T[:, i, :3, :3], 1, 2), g0)  # gravity in body i axes
        G = G - m[i] * matvec(np.swapaxes(Gamma, 1, 2), g_i)
    spring = _spring_torque(model, Q)
    return G if spring is None else G + spring


def gravity(model: Model, q: ArrayLike) -> Array:
    """Generalized gravity g(q) = dV/dq (Reuss's V_k), = rnea(q, 0, 0) without friction.

    Computed from the potential energy ``V = - sum_i m_i g . r_Gi`` as ``g = - sum_i m_i
    J_Gi^T g`` (J_Gi: Jacobian of the centre of mass G_i), independently of RNEA, plus the
    joint springs' ``K (q - rest)`` (the gradient of their energy).

    Parameters
    ----------
    q : (nq,) or (N, nq)

    Returns
    -------
    g : (nv,) or (N, nv); floating base: the base wrench [moment; force] in base axes.
    """
    Q, _, single = _states(model, q)
    return unbatch(_gravity(model, Q), single)


def nonlinear_effects(model: Model, q: ArrayLike, v: ArrayLike) -> Array:
    """h(q, v) = C(q, v) v + g(q) = rnea(q, v, 0) without friction, (nv,) or (N, nv)."""
    from .rnea import _rnea
    h = _kernels.nonlinear_effects(model, q, v)  # compiled; None: reference code below
    if h is not None:
        return h
    Q, (V,), single = _states(model, q, v=v)
    return unbatch(_rnea(model, Q, V, np.zeros(V.shape, dtype=V.dtype), None, friction=False), single)


def mass_matrix_derivative(model: Model, q: ArrayLike, v: ArrayLike) -> Array:
    """Time derivative of the mass matrix along the velocity v, analytic (module docstring).

    ``Mdot(q, v) = d/dt M(q(t))`` for a motion through ``q`` with velocity ``v`` (on the
    manifold for spherical joints and the floating base). It is linear in ``v``.

    Parameters
    ----------
    q : (nq,) or (N, nq);  v : (nv,) or (N, nv)

    Returns
    -------
    Mdot : (nv, nv) or (N, nv, nv), symmetric.
    """
    Q, (V,), single = _states(model, q, v=v)
    return unbatch(_mass_matrix_derivative(model, Q, V), single)


def christoffel(model: Model, q: ArrayLike) -> Array:
    """Christoffel symbols of the first kind, ``Gamma[i, j, k] = 1/2 (dM_ij/dq_k + dM_ik/dq_j -
    dM_jk/dq_i)``, symmetric in (j, k).

    ``dM/dq_k`` is computed analytically as ``Mdot(q, e_k)``. For 1-dof joints (v = qd),
    ``sum_k Gamma[i, j, k] v_k`` is the Coriolis matrix and ``Gamma[i, j, k] v_j v_k`` the
    Coriolis and centrifugal torques. Spherical joints / floating base: v is a quasi-velocity
    (body-frame angular velocity); the symbols are then defined with ``d/dq_k`` read as the
    derivative along the local coordinate ``v_k`` (``Mdot(q, e_k)``), and they do NOT give the
    Coriolis terms (Lagrange's equations in quasi-velocities carry extra Boltzmann-Hamel terms):
    use :func:`coriolis_matrix` there.

    Parameters
    ----------
    q : (nq,) or (N, nq)

    Returns
    -------
    Gamma : (nv, nv, nv) or (N, nv, nv, nv)
    """
    G = _kernels.christoffel(model, q)  # compiled (artidyn.kernels.christoffel); None: reference code below
    if G is not None:
        return G
    Q, _, single = _states(model, q)
    return unbatch(_christoffel(model, Q), single)


def coriolis_matrix(model: Model, q: ArrayLike, v: ArrayLike, method: str = "recursive") -> Array:
    """Coriolis matrix C(q, v) with ``C v + g = rnea(q, v, 0)`` and ``Mdot - 2C`` skew.

    Parameters
    ----------
    q : (nq,) or (N, nq);  v : (nv,) or (N, nv)
    method : "recursive" (default, any joint type) or "christoffel"
        "recursive": Echeandia & Wensing's construction (module docstring); for 1-dof joints it
        equals the Christoffel one. "christoffel": ``C_ij = sum_k Gamma_ijk v_k`` from
        :func:`christoffel`; refused for models with spherical or free joints.

    Returns
    -------
    C : (nv, nv) or (N, nv, nv)
    """
    Q, (V,), single = _states(model, q, v=v)
    if method == "recursive":
        return unbatch(_coriolis(model, Q, V), single)
    if method != "christoffel":
        raise InputError(f"coriolis_matrix: method must be 'recursive' or 'christoffel', got {method!r}")
    if _has_quasi_velocities(model):
        bad = [model.joint_names[i] for i in range(1, model.nb + 1) if model.joint_type[i] in (SPHERICAL, FREE)]
        raise InputError(f"coriolis_matrix(method='christoffel'): model '{model.name}' has spherical/free "
                         f"joints {bad} whose velocities are quasi-velocities; Christoffel symbols do not give "
                         f"their Coriolis terms. Use method='recursive'.")
    G = _christoffel(model, Q)
    return unbatch(np.einsum("nijk,nk->nij", G, V) if G.dtype != object else (G @ V[:, None, :, None])[..., 0],
                   single)
