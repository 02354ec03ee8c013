"""Kane's equations: generalized active and inertia forces with partial velocities.

Kane & Levinson, "Dynamics: Theory and Applications" (1985), ch. 5-6. The generalized speeds
are the independent quasi-velocities ``u = w_i`` (``v = G (N u + w_0)``, the constraints giving
the dependent ones). For each body i with mass m_i, centre of mass G_i and central inertia I_i
(body axes), the partial angular velocities ``omega_r^i`` and the partial velocities of G_i,
``v_r^i``, are the columns of ``Omega_i G N`` and ``Gamma_i G N`` (the body's Jacobians).
Kane's equations, one per generalized speed::

    F_r + F_r* = 0
    F_r  = sum_i v_r^i . m_i g  +  (N^T G^T (tau + C - friction - springs + J^T f_ext))_r
    F_r* = - sum_i [ v_r^i . m_i a_Gi + omega_r^i . (I_i alpha_i + omega_i x I_i omega_i) ]
           - (N^T G^T (armature * a))_r

The accelerations are affine in ``udot``: ``a_Gi = a_Gi^0 + sum_r v_r^i udot_r`` (likewise
``alpha_i``) where ``a_Gi^0`` is G_i's acceleration when ``udot = 0`` (the dependent speeds' and
the quasi-velocities' rates only). Body by body, without forming M: an independent route from
the recursive algorithms. No multipliers (Kane's method does not contain them).

This is the readable reference; the compiled route (:mod:`artidyn.kernels.formulations`) forms
the same sums with the compiled CRBA and RNEA: ``sum_i`` over the bodies of the partial
velocities' inertia products is ``P^T M P``, and ``F_r + F_r*(udot = 0)`` is ``P^T (tau + C - h -
M a0)`` (P = G N, the partial velocities of the generalized speeds).
"""
import numpy as np

from ..dynamics.gaha import _body_jacobians, com_parts
from ..kinematics.placements import _joint_transforms, _placements_from
from ..kinematics.velocities import _body_accelerations, _body_velocities


def solve(T):
    model = T.model
    ind, N, wdot0 = T.partition()
    P = T.G @ N                                   # d v / d u (nv, k)
    a0 = T.from_quasi(wdot0)                      # dof accelerations at udot = 0
    Q, V, A0 = T.q[None], T.v[None], a0[None]
    T_up = _joint_transforms(model, Q)
    R = _placements_from(model, T_up)[0, :, :3, :3]
    vb = _body_velocities(model, T_up, V)
    ab = _body_accelerations(model, T_up, vb, V, A0)[0]
    vb = vb[0]
    Jb = _body_jacobians(model, T_up)[0]          # (nb+1, 6, nv), body axes about the origin
    m, c, I_G = com_parts(model)
    k = N.shape[1]
    K = np.zeros((k, k))                          # sum of the partial velocities' inertia products
    F = np.zeros(k)                               # F_r + F_r*(udot = 0)
    g = np.asarray(model.gravity, dtype=float)
    for i in range(1, model.nb + 1):
        Om = Jb[i, :3] @ P                        # partial angular velocities (3, k)
        Ga = (Jb[i, 3:] - _skew(c[i]) @ Jb[i, :3]) @ P    # partial velocities of G_i (3, k)
        omega, v_O = vb[i, :3], vb[i, 3:]
        alpha, a_sp = ab[i, :3], ab[i, 3:]
        a_G = a_sp + np.cross(omega, v_O) + np.cross(alpha, c[i]) + np.cross(omega, np.cross(omega, c[i]))
        Iw = I_G[i] @ omega
        K += m[i] * Ga.T @ Ga + Om.T @ I_G[i] @ Om
        F += Ga.T @ (m[i] * (R[i].T @ g - a_G)) - Om.T @ (I_G[i] @ alpha + np.cross(omega, Iw))
        if T.f_ext is not None:
            F += (Jb[i] @ P).T @ np.asarray(T.f_ext, dtype=float)[i]
    joint = T.tau + T.C - _passive(T)             # joint torques, non-ideal term, friction, springs
    K += P.T @ (model.armature[:, None] * P)
    F += P.T @ (joint - model.armature * a0)
    udot = np.linalg.solve(0.5 * (K + K.T), F)
    return N @ udot + wdot0, None


def _skew(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def _passive(T):
    """Friction and spring torques (nv,): the joint-space forces that are neither inertia,
    gravity nor external wrenches."""
    from ..dynamics import rnea

    zero = np.zeros(T.model.nv)
    m0 = T.system._m0
    spring = rnea(m0, T.q, zero, zero, friction=False)
    if not T.friction:
        return spring
    return spring + rnea(m0, T.q, T.v, zero, friction=True) - rnea(m0, T.q, T.v, zero, friction=False)
