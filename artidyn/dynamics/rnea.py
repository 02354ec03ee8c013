"""RNEA: the recursive Newton-Euler algorithm (inverse dynamics), tree version.

J. Reuss, "Modélisation des robots" (French Wikipedia draft, 2013), "Algorithme RNEA"
(modifications pour une chaîne arborescente); Featherstone RBDA Table 5.1.
Symbols (per body i, p = lambda(i) its father, all in body i's frame):

==========  ==================================================================================
X_up[i]     placement of body i in body p (4x4); A^t = motion p -> i, A = force i -> p
S           motion subspace of joint i (6 x nv_i), constant in the body frame
v, a        spatial velocity and acceleration [omega; v] of body i (v_0 = 0, a_0 = -[0; g])
f           Reuss's F_j: the wrench joint i transmits from p to i, [mu; f] about O_i
tau         tau_i = S^T f_i, plus armature * a, the joint springs (:mod:`.springs`) and friction
            (:mod:`.actuation`)
==========  ==================================================================================

Montée (1 .. nb)::

    v_i = A^t v_p + S qd_i
    a_i = A^t a_p + S qdd_i + v_i (.) S qd_i
    f_i = I_i a_i + v_i (+) I_i v_i - f_ext_i

Descente (nb .. 1)::

    tau_i = S^T f_i ;   f_p += A f_i

Gravity enters as the fictitious base acceleration a_0 = -[0; g] (Reuss: "obtenu par une
accélération du corps de base opposée à la pesanteur"), so the f_i are the true joint wrenches.
``f_ext[i]`` is the wrench APPLIED TO body i by the environment, [moment; force] in body i's
frame about its origin (row 0 ignored); build it with :func:`artidyn.dynamics.external_wrench`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import unbatch
from ..spatial._num import matvec, result_dtype
from ..spatial.motion import cross_force, cross_motion, force_apply, motion_apply_inv
from ..kernels import dispatch as _kernels
from . import _common
from .actuation import _friction_torque
from .springs import _spring_torque

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def _joint_wrenches(model, Q, V, A, F_ext=None):
    """Both passes of the RNEA for a batch: f (N, nb+1, 6), the wrench of each joint.

    Row 0 holds the sum of the root joints' wrenches in the world frame about the world origin
    (the wrench the world exerts on the robot through its joints).
    """
    N, nb = Q.shape[0], model.nb
    dtype = result_dtype(Q, V, A, F_ext)
    X_up = _common.joint_transforms(model, Q)
    v = np.zeros((N, nb + 1, 6), dtype)
    a = np.zeros((N, nb + 1, 6), dtype)
    f = np.zeros((N, nb + 1, 6), dtype)
    a[:, 0] = _common.gravity_acceleration(model, N, dtype)

    # montée: velocities, accelerations and the Newton-Euler wrench of each body
    for i in range(1, nb + 1):
        p, S = model.parent[i], model.S[i]
        dofs = slice(model.idx_v[i], model.idx_v[i] + model.nv_joint[i])
        vJ = V[:, dofs] @ S.T
        v[:, i] = motion_apply_inv(X_up[:, i], v[:, p]) + vJ
        a[:, i] = motion_apply_inv(X_up[:, i], a[:, p]) + A[:, dofs] @ S.T + cross_motion(v[:, i], vJ)
        I = model.I[i]
        f[:, i] = matvec(I, a[:, i]) + cross_force(v[:, i], matvec(I, v[:, i]))
        if F_ext is not None:
            f[:, i] = f[:, i] - F_ext[:, i]

    # descente: each body passes its joint wrench to its father
    for i in range(nb, 0, -1):
        p = model.parent[i]
        f[:, p] = f[:, p] + force_apply(X_up[:, i], f[:, i])
    return f


def _rnea(model, Q, V, A, F_ext=None, friction=True):
    """RNEA for a batch: tau (N, nv) = S_i^T f_i + armature * a + K (q - rest) (+ friction)."""
    f = _joint_wrenches(model, Q, V, A, F_ext)
    tau = np.zeros((Q.shape[0], model.nv), f.dtype)
    for i in range(1, model.nb + 1):
        dofs = slice(model.idx_v[i], model.idx_v[i] + model.nv_joint[i])
        tau[:, dofs] = f[:, i] @ model.S[i]
    if np.any(model.armature):
        tau = tau + model.armature * A
    spring = _spring_torque(model, Q)
    if spring is not None:
        tau = tau + spring
    if friction:
        tau = tau + _friction_torque(model, V)
    return tau


def rnea(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike, f_ext: ArrayLike | None = None,
         friction: bool = True) -> Array:
    """Inverse dynamics: the actuator torques that produce the acceleration ``a``.

    ``tau = M(q) a + h(q, v) + damping v + coulomb sign(v) - sum_i J_i^T f_ext_i`` with the
    gravity, joint spring, Coriolis and centrifugal terms in ``h`` (Featherstone, "Rigid Body
    Dynamics Algorithms", Table 5.1; springs: :mod:`artidyn.dynamics.springs`).

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq) configuration
    v, a : (nv,) or (N, nv) joint velocity and acceleration (floating base: [omega; v] and its
        spatial derivative, in the base frame)
    f_ext : (nb+1, 6) or (N, nb+1, 6), optional
        wrench applied to each body by the environment, [moment; force] in the body frame about
        its origin; row 0 ignored. See :func:`external_wrench`.
    friction : bool
        include the joint friction of the model (``damping``, ``coulomb``); armature and joint
        springs always count.

    Returns
    -------
    tau : (nv,) or (N, nv). For a floating base the first 6 entries are the wrench
        [moment; force] the base would need, in the base frame (zero for a feasible motion).

    Examples
    --------
    Gravity torques of a random arm: ``rnea(model, q, zeros(nv), zeros(nv))``.
    """
    tau = _kernels.rnea(model, q, v, a, f_ext, friction)  # compiled; None: reference code below
    if tau is not None:
        return tau
    Q, (V, A), single = _common.batch_inputs(model, q, v=v, a=a)
    F = _common.external_forces(model, f_ext, Q.shape[0])
    return unbatch(_rnea(model, Q, V, A, F, friction), single)


def gravity_torque(model: Model, q: ArrayLike) -> Array:
    """g(q) = rnea(q, 0, 0) without friction: the torques that hold the robot still (gravity and
    joint springs)."""
    g = _kernels.gravity_torque(model, q)  # compiled; None: reference code below
    if g is not None:
        return g
    Q, _, single = _common.batch_inputs(model, q)
    Z = np.zeros((Q.shape[0], model.nv))
    return unbatch(_rnea(model, Q, Z, Z, None, friction=False), single)

