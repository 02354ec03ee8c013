"""Newton-Euler equations, non-recursive approach (Nguyen Quang Hoang, "Phương trình
Newton-Euler: phương pháp không đệ quy", robot dynamics lecture slides, Hanoi University of
Science and Technology), with the joint reaction forces.

Steps of the lecture (slide 17), all vectors in the world frame R_0:

1. kinematics: for each body k, the centre of mass C_k, the translational and rotational
   Jacobians ``J_Tk = d r_Ck / dq`` and ``J_Rk = d omega_k / dqd`` (3 x nv) and their time
   derivatives, so that ``a_Ck = J_Tk qdd + Jd_Tk qd`` and ``alpha_k = J_Rk qdd + Jd_Rk qd``.
   For a dof of joint j with unit twist ``[w; u]`` (world axes, at the origin O_j of body j)::

       J_R[:, col] = w,                 J_T[:, col] = u + w x (r_Ck - r_Oj)
       Jd_R[:, col] = omega_j x w,      Jd_T[:, col] = omega_j x u + (omega_j x w) x (r_Ck - r_Oj)
                                                        + w x (v_Ck - v_Oj)

2.-3. Newton-Euler for each body, cut free, with applied (a) and constraint (c) forces::

       m_k (J_Tk qdd + Jd_Tk qd) = f^a_k + f^c_k
       I_Ck (J_Rk qdd + Jd_Rk qd) + omega_k x I_Ck omega_k = m^a_k + m^c_k     (about C_k)

   ``I_Ck = R_k I^(k)_Ck R_k^T``.
4. stacked (translations of all bodies, then rotations): ``Mbar(q) qdd + k(q, qd) = Q_a + Q_c``,
   ``Mbar`` 6n x nv, ``k`` 6n.
5. the ideal constraint forces do no virtual work, ``J^T Q_c = 0`` with ``J = [J_T1; ..; J_Tn;
   J_R1; ..; J_Rn]``, so ``J^T Mbar qdd + J^T k = J^T Q_a``: M qdd + C qd + g = tau, with
   (slide 15) ``M = sum J_T^T m J_T + J_R^T I_C J_R``, ``C = sum J_T^T m Jd_T + J_R^T I_C Jd_R +
   J_R^T [omega] I_C J_R``, ``g = - sum m J_T^T g_0``; ``Mdot - 2C`` is skew (slide 16).
6. reactions: ``Q_c = -H(q) lambda`` and ``[B  -H] [tau; lambda] = Mbar qdd + k - Q_a`` (the
   lecture's ``[M H] [qdd; lambda] = Q_a - k`` of slide 14, solved for the inverse problem).

Joint i transmits the wrench ``f_i = S_i tau_i + T_i lambda_i`` from its parent to body i
([moment; force] in body i axes about O_i, the joint point): ``S_i`` is the actuated part (the
motion subspace), ``T_i`` (6 x (6 - nv_i), orthonormal, ``S_i^T T_i = 0``) the constrained
directions, ``lambda_i`` the reaction components. On body i the wrench acts at O_i, on its parent
with the opposite sign (action-reaction). Rotor inertia (``armature``), joint springs and joint
friction are joint torques: added to tau as in :func:`~artidyn.dynamics.rnea` (springs also to g).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..configuration import unbatch
from ..kinematics.placements import _joint_transforms, _placements_from, _states
from ..kinematics.velocities import _body_velocities
from ..spatial._num import cross, matvec
from ..spatial.motion import skew
from . import _common
from .actuation import _friction_torque
from .gaha import com_parts
from .springs import _spring_torque

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


class NewtonEulerSystem(NamedTuple):
    """The stacked system of the non-recursive Newton-Euler method (Nguyen Quang Hoang's lecture),
    one state or a batch (leading axis N). n = nb bodies.

    Mbar (6n, nv), k (6n,), Q_a (6n,) applied forces (gravity, f_ext), J (6n, nv) = [J_T; J_R],
    B (6n, nv) actuation (generalized force tau_J -> body wrenches), H (6n, sum 6 - nv_i)
    constraints (Q_c = -H lambda). Rows: 3 force rows per body (bodies 1..n), then 3 moment
    rows (about C_k) per body; world axes.
    """

    Mbar: np.ndarray
    k: np.ndarray
    Q_a: np.ndarray
    J: np.ndarray
    B: np.ndarray
    H: np.ndarray


class JointReactions(NamedTuple):
    """Joint wrenches from the augmented system; rows indexed by body / joint (row 0 zero).

    wrench (nb+1, 6): total wrench of joint i on body i (= S_i tau_i + reaction), body i axes,
        about O_i: equals :func:`~artidyn.dynamics.joint_wrenches`.
    reaction (nb+1, 6): the constraint part T_i lambda_i (S_i^T reaction = 0), same frame.
    reaction_world (nb+1, 6): the same in world axes, still about the joint point O_i.
    lam (sum 6 - nv_i,): the components lambda_i in the bases T_i (:func:`constraint_basis`).
    """

    wrench: np.ndarray
    reaction: np.ndarray
    reaction_world: np.ndarray
    lam: np.ndarray


def constraint_basis(model, i):
    """T_i (6 x (6 - nv_i)): orthonormal basis of the wrenches joint i transmits without working
    (``S_i^T T_i = 0``); for a revolute joint the two moments normal to the axis and the force."""
    S = model.S[i]
    _, _, Vt = np.linalg.svd(S.T)
    return np.ascontiguousarray(Vt[S.shape[1]:].T)


def _com_kinematics(model, Q, V):
    """World kinematics: R (N, nb+1, 3, 3), r_C, omega (N, nb+1, 3), J_T, J_R, Jd_T, Jd_R
    (N, nb+1, 3, nv) (module docstring, step 1)."""
    _, c, _ = com_parts(model)
    T_up = _joint_transforms(model, Q)
    T = _placements_from(model, T_up)
    vb = _body_velocities(model, T_up, V)
    R, r_O = T[..., :3, :3], T[..., :3, 3]
    omega, v_O = matvec(R, vb[..., :3]), matvec(R, vb[..., 3:])
    r_C = r_O + matvec(R, c)
    v_C = v_O + cross(omega, r_C - r_O)
    shape = (Q.shape[0], model.nb + 1, 3, model.nv)
    dtype = np.result_type(T, vb)
    J_T, J_R, Jd_T, Jd_R = (np.zeros(shape, dtype=dtype) for _ in range(4))
    for j in range(1, model.nb + 1):
        sub = model.subtree(j)
        cols = slice(int(model.idx_v[j]), int(model.idx_v[j] + model.nv_joint[j]))
        S = model.S[j]
        w = np.swapaxes(R[:, j] @ S[:3], 1, 2)[:, None]           # (N, 1, nv_j, 3)
        u = np.swapaxes(R[:, j] @ S[3:], 1, 2)[:, None]
        om = omega[:, j, None, None]                               # (N, 1, 1, 3)
        d = (r_C[:, sub] - r_O[:, j, None])[:, :, None]            # (N, len(sub), 1, 3)
        dv = (v_C[:, sub] - v_O[:, j, None])[:, :, None]
        w_d, u_d = cross(om, w), cross(om, u)
        J_R[:, sub, :, cols] = np.swapaxes(np.broadcast_to(w, d.shape[:2] + w.shape[2:]), 2, 3)
        J_T[:, sub, :, cols] = np.swapaxes(u + cross(w, d), 2, 3)
        Jd_R[:, sub, :, cols] = np.swapaxes(np.broadcast_to(w_d, d.shape[:2] + w.shape[2:]), 2, 3)
        Jd_T[:, sub, :, cols] = np.swapaxes(u_d + cross(w_d, d) + cross(w, dv), 2, 3)
    return R, r_O, r_C, omega, J_T, J_R, Jd_T, Jd_R


def _world_inertias(model, R):
    """I_Ck = R_k I^(k)_Ck R_k^T (N, nb+1, 3, 3)."""
    _, _, I_G = com_parts(model)
    return R @ I_G @ np.swapaxes(R, -1, -2)


def _stack(top, bottom):
    """The lecture's row order: the translational blocks of bodies 1..n, then the rotational ones."""
    N, rows = top.shape[0], (top.shape[1] - 1) * top.shape[2]   # not -1: no body (nb = 0) gives 0 rows
    return np.concatenate([top[:, 1:].reshape((N, rows) + top.shape[3:]),
                           bottom[:, 1:].reshape((N, rows) + bottom.shape[3:])], axis=1)


def _system(model, Q, V, F_ext=None):
    """The stacked system (NewtonEulerSystem) for a batch, plus R and O (joint points)."""
    m, _, _ = com_parts(model)
    R, r_O, r_C, omega, J_T, J_R, Jd_T, Jd_R = _com_kinematics(model, Q, V)
    I_C = _world_inertias(model, R)
    mk = m[None, :, None, None]
    Mbar = _stack(mk * J_T, I_C @ J_R)
    Iw = matvec(I_C, omega)
    k = _stack(m[None, :, None] * matvec(Jd_T, V[:, None]),
               matvec(I_C, matvec(Jd_R, V[:, None])) + cross(omega, Iw))
    f_a = np.broadcast_to(m[:, None] * np.asarray(model.gravity, dtype=float), omega.shape)  # weights
    m_a = np.zeros(f_a.shape, dtype=f_a.dtype)
    if F_ext is not None:                                                   # body axes, about O_k
        f_w = matvec(R, F_ext[..., 3:])
        f_a = f_a + f_w
        m_a = m_a + matvec(R, F_ext[..., :3]) + cross(r_O - r_C, f_w)
    Q_a = _stack(f_a, m_a)
    J = _stack(J_T, J_R)
    G = _joint_wrench_map(model, R, r_O, r_C)
    n = model.nb
    B = np.zeros(J.shape, dtype=G.dtype)
    H = np.zeros((Q.shape[0], 6 * n, 6 * n - model.nv), dtype=G.dtype)
    col = 0
    for i in range(1, n + 1):
        Gi = G[:, :, 6 * (i - 1):6 * i]
        k0 = int(model.idx_v[i])
        B[:, :, k0:k0 + model.nv_joint[i]] = Gi @ model.S[i]
        Ti = constraint_basis(model, i)
        H[:, :, col:col + Ti.shape[1]] = -(Gi @ Ti)
        col += Ti.shape[1]
    return NewtonEulerSystem(Mbar, k, Q_a, J, B, H), R


def _joint_wrench_map(model, R, r_O, r_C):
    """G (N, 6n, 6n): body equations <- joint wrenches [mu; f] (body i axes, about O_i).

    On body i: force R f, moment about C_i: R mu + (O_i - C_i) x R f; on its parent p > 0 the
    opposite, moment about C_p."""
    n, N = model.nb, R.shape[0]
    G = np.zeros((N, 6 * n, 6 * n), dtype=R.dtype)
    for i in range(1, n + 1):
        cols = slice(6 * (i - 1), 6 * i)
        Ri = R[:, i]
        for body, sign in ((i, 1), (int(model.parent[i]), -1)):
            if body == 0:
                continue
            f_rows = slice(3 * (body - 1), 3 * body)
            m_rows = slice(3 * n + 3 * (body - 1), 3 * n + 3 * body)
            G[:, f_rows, cols.start + 3:cols.stop] = sign * Ri
            G[:, m_rows, cols.start:cols.start + 3] = sign * Ri
            G[:, m_rows, cols.start + 3:cols.stop] = sign * (skew(r_O[:, i] - r_C[:, body]) @ Ri)
    return G


def _solve(W, b):
    """x with W x = b for a batch (N, m, m), (N, m); SymPy object arrays state by state."""
    if W.dtype != object:
        return np.linalg.solve(W, b[..., None])[..., 0]
    import sympy
    return np.array([np.array(sympy.Matrix(W[n]).LUsolve(sympy.Matrix(b[n])), dtype=object)[:, 0]
                     for n in range(W.shape[0])], dtype=object)  # symbolic slow path


def _reactions(model, sys, R, rhs):
    """Solve [B -H] [tau_J; lambda] = rhs and split the joint wrenches (JointReactions)."""
    x = _solve(np.concatenate([sys.B, -sys.H], axis=2), rhs)
    tau_J, lam = x[:, :model.nv], x[:, model.nv:]
    return tau_J, _split(model, R, tau_J, lam)


def _split(model, R, tau_J, lam):
    """JointReactions from the joint torques on the bodies tau_J and the components lambda."""
    N = lam.shape[0]
    wrench = np.zeros((N, model.nb + 1, 6), dtype=np.result_type(tau_J, lam))
    reaction = np.zeros_like(wrench)
    col = 0
    for i in range(1, model.nb + 1):
        Ti = constraint_basis(model, i)
        k0 = int(model.idx_v[i])
        reaction[:, i] = lam[:, col:col + Ti.shape[1]] @ Ti.T
        wrench[:, i] = reaction[:, i] + tau_J[:, k0:k0 + model.nv_joint[i]] @ model.S[i].T
        col += Ti.shape[1]
    world = np.concatenate([matvec(R, reaction[..., :3]), matvec(R, reaction[..., 3:])], axis=-1)
    world[:, 0] = 0
    return JointReactions(wrench, reaction, world, lam)


def _joint_torque_extras(model, Q, V, A, friction):
    """armature * a + K (q - rest) (+ damping v + coulomb sign v): joint-level torques outside the bodies."""
    extra = model.armature * A if np.any(model.armature) else 0 * A
    spring = _spring_torque(model, Q)
    extra = extra if spring is None else extra + spring
    return extra + _friction_torque(model, V) if friction else extra


def newton_euler_nonrecursive(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike, f_ext: ArrayLike | None = None,
                              reactions: bool = False,
                              friction: bool = True) -> Array | tuple[Array, JointReactions]:
    """Inverse dynamics by Nguyen Quang Hoang's non-recursive Newton-Euler method (module
    docstring).

    ``tau = J^T (Mbar a + k - Q_a)`` (+ armature a + friction), equal to :func:`rnea`.

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq);  v, a : (nv,) or (N, nv)
    f_ext : (nb+1, 6) or (N, nb+1, 6), optional, as for rnea (body axes, about the body origin)
    reactions : bool
        also solve the augmented system for the joint reactions.
    friction : bool
        add the model's joint friction to tau (as rnea).

    Returns
    -------
    tau : (nv,) or (N, nv)
    reactions : JointReactions (only when ``reactions=True``), arrays with leading axis N for a
        batch. For a planar example in the xy plane, a revolute joint's in-plane reaction force is
        ``reaction_world[i, 3:5]`` and a prismatic joint's reaction moment ``reaction_world[i, 2]``.
    """
    Q, (V, A), single = _states(model, q, v=v, a=a)
    F = _common.external_forces(model, f_ext, Q.shape[0])
    sys, R = _system(model, Q, V, F)
    rhs = matvec(sys.Mbar, A) + sys.k - sys.Q_a
    tau = matvec(np.swapaxes(sys.J, 1, 2), rhs) + _joint_torque_extras(model, Q, V, A, friction)
    if not reactions:
        return unbatch(tau, single)
    _, reac = _reactions(model, sys, R, rhs)
    return unbatch(tau, single), JointReactions(*(unbatch(x, single) for x in reac))


def newton_euler_system(model: Model, q: ArrayLike, v: ArrayLike, f_ext: ArrayLike | None = None) -> NewtonEulerSystem:
    """The stacked matrices Mbar, k, Q_a, J, B, H of the non-recursive Newton-Euler method
    (Nguyen Quang Hoang's lecture; :class:`NewtonEulerSystem`).

    ``J^T H = 0`` (ideal constraints do no virtual work) and ``J^T B = 1``.
    """
    Q, (V,), single = _states(model, q, v=v)
    sys, _ = _system(model, Q, V, _common.external_forces(model, f_ext, Q.shape[0]))
    return NewtonEulerSystem(*(unbatch(x, single) for x in sys))


def nonrecursive_terms(model: Model, q: ArrayLike, v: ArrayLike) -> tuple[Array, Array, Array]:
    """(M, C, g) of Nguyen Quang Hoang's non-recursive Newton-Euler lecture, slide 15:
    ``M = J^T Mbar``, ``C qd = J^T k`` with the lecture's C, ``g``.

    ``C = sum_k J_Tk^T m_k Jd_Tk + J_Rk^T I_Ck Jd_Rk + J_Rk^T [omega_k] I_Ck J_Rk`` (Mdot - 2C
    skew, slide 16; for planar arms it is the Christoffel C); ``g = - sum_k m_k J_Tk^T g_0``
    (+ the joint springs' ``K (q - rest)``).
    M includes diag(armature). Returns (nv, nv), (nv, nv), (nv,) or with a leading N.
    """
    Q, (V,), single = _states(model, q, v=v)
    m, _, _ = com_parts(model)
    R, _, _, omega, J_T, J_R, Jd_T, Jd_R = _com_kinematics(model, Q, V)
    I_C = _world_inertias(model, R)
    JTt, JRt = np.swapaxes(J_T, -1, -2), np.swapaxes(J_R, -1, -2)
    mk = m[None, :, None, None]
    M = np.sum(mk * (JTt @ J_T) + JRt @ I_C @ J_R, axis=1)
    C = np.sum(mk * (JTt @ Jd_T) + JRt @ I_C @ Jd_R + JRt @ skew(omega) @ I_C @ J_R, axis=1)
    g = -np.sum(m[None, :, None] * matvec(JTt, np.asarray(model.gravity, dtype=float)), axis=1)
    spring = _spring_torque(model, Q)
    g = g if spring is None else g + spring
    if np.any(model.armature):
        M = M + np.diag(model.armature)
    return unbatch(M, single), unbatch(C, single), unbatch(g, single)
