"""Joint reactions and forward dynamics from the stacked Newton-Euler system of a tree (Nguyen
Quang Hoang, "Phương trình Newton-Euler: phương pháp không đệ quy", robot dynamics lecture
slides, Hanoi University of Science and Technology, slides 13-14), directly on the model's
joints: no rebuilding of the mechanism as free bodies held by joint constraints.

The bodies cut free obey (:mod:`.nonrecursive`, all world axes, translations then rotations)::

    Mbar(q) qdd + k(q, qd) = Q_a + B tau_J - H lambda,      Mbar = W J,   J^T H = 0

``W = diag(m_1 E_3, .., m_n E_3, I_C1, .., I_Cn)`` the bodies' mass matrix, ``tau_J`` the joint
torques that reach the bodies (``tau`` less the joint springs and friction), ``lambda`` the
components of the joint reactions in the bases ``T_i`` of :func:`.nonrecursive.constraint_basis`.

* Slide 13, the reactions without the accelerations: ``H^T W^-1 Mbar = H^T J = 0``, so

      lambda = (H^T W^-1 H)^-1 H^T W^-1 (Q_a + B tau_J - k)          (:func:`newton_euler_reactions`)

  (a 6n - nv square system; every moving body needs a mass and a regular rotational inertia).
  A rotor inertia (``armature``) makes the torque a joint passes on depend on qdd; the rotors
  are then bodies of their own, ``arm_r qdd_r = tau_r - tau_J,r``: W gains ``diag(arm_r)``, J the
  rows ``E_r`` (the rotors' accelerations), and the torques ``tau_J,r`` they pass on become
  unknowns with ``lambda`` (columns ``[-B_r; 1]``, ``J^T`` of which is still 0).
* Slide 14, the forward augmented solve: ``[Mbar  H] [qdd; lambda] = Q_a + B tau_J - k``, a
  6n x 6n system (:func:`newton_euler_forward`; rotor inertias enter as ``B diag(armature)``
  added to ``Mbar``).

Both give each joint's wrench on its child, ``f_i = S_i tau_J,i + T_i lambda_i`` (body i axes,
about the joint point O_i), as :func:`~artidyn.dynamics.joint_wrenches` does from rnea's
recursion at the accelerations of aba.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import unbatch
from ..errors import InputError
from ..kinematics.placements import _states
from ..spatial._num import matvec
from . import _common
from .actuation import _friction_torque
from .gaha import com_parts
from .nonrecursive import JointReactions, _solve, _split, _system, _world_inertias
from .springs import _spring_torque

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def _torques_on_bodies(model, Q, V, tau, friction):
    """tau_J = tau - K (q - rest) (- damping v - coulomb sign v): the joint torques the bodies receive."""
    spring = _spring_torque(model, Q)
    tau_J = tau if spring is None else tau - spring
    return tau_J - _friction_torque(model, V) if friction else tau_J


def _inverse_mass_apply(model, R, X):
    """W^-1 X for X (N, 6n, c): translation rows / m_k, rotation rows solved with I_Ck (world)."""
    n, N, c = model.nb, X.shape[0], X.shape[2]
    if n == 0:
        return X
    m, _, _ = com_parts(model)
    I_C = _world_inertias(model, R)[:, 1:]
    top = X[:, :3 * n].reshape(N, n, 3, c) / m[None, 1:, None, None]
    bottom = np.linalg.solve(I_C, X[:, 3 * n:].reshape(N, n, 3, c))
    return np.concatenate([top.reshape(N, 3 * n, c), bottom.reshape(N, 3 * n, c)], axis=1)


def _check_projected(model):
    """The projected formula needs W^-1: every moving body with a mass and a regular inertia."""
    m, _, I_G = com_parts(model)
    for i in range(1, model.nb + 1):
        w = np.linalg.eigvalsh(0.5 * (I_G[i] + I_G[i].T))
        if not (m[i] > 0 and w[0] > 1e-12 * max(w[-1], 1e-300)):
            raise InputError(f"newton_euler_reactions: body '{model.body_names[i]}' of model '{model.name}' has mass "
                             f"{m[i]:.6g} and rotational inertia eigenvalues {np.round(w, 9).tolist()} about its "
                             f"centre of mass: the bodies' mass matrix W is singular, so the reactions do not follow "
                             f"from the forces alone; use newton_euler_forward (the augmented solve)")


def newton_euler_reactions(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike, f_ext: ArrayLike | None = None,
                           friction: bool = True) -> JointReactions:
    """The joint reactions of a tree under the torques ``tau``, without its accelerations
    (Nguyen Quang Hoang's lecture, slide 13; module docstring)::

        lambda = (H^T W^-1 H)^-1 H^T W^-1 (Q_a + B tau_J - k)

    Parameters
    ----------
    model : Model, every moving body with a mass and a regular inertia (rotor inertias allowed)
    q : (nq,) or (N, nq);  v, tau : (nv,) or (N, nv)
    f_ext : (nb+1, 6) or (N, nb+1, 6), optional, as for rnea (body axes, about the body origin)
    friction : bool, the model's joint friction takes its part of tau (as aba)

    Returns
    -------
    JointReactions : ``wrench`` (the joint's whole wrench on its child, equal to
        :func:`~artidyn.dynamics.joint_wrenches` at ``aba(q, v, tau)``), ``reaction`` (its
        constrained part), ``reaction_world``, ``lam``; leading axis N for a batch.
    """
    _check_projected(model)
    Q, (V, TAU), single = _states(model, q, v=v, tau=tau)
    sys, R = _system(model, Q, V, _common.external_forces(model, f_ext, Q.shape[0]))
    tau_J = _torques_on_bodies(model, Q, V, TAU, friction)
    rotor = np.flatnonzero(model.armature)                          # dofs whose rotor is a body of its own
    free = np.setdiff1d(np.arange(model.nv), rotor)
    N, nr, c = Q.shape[0], rotor.size, sys.H.shape[2]
    B_r = sys.B[:, :, rotor]
    H_ext = np.concatenate([np.concatenate([-B_r, sys.H], axis=2),
                            np.concatenate([np.broadcast_to(np.eye(nr), (N, nr, nr)), np.zeros((N, nr, c))], axis=2)],
                           axis=1)                                  # unknowns [tau_J,r; lambda]
    rhs = np.concatenate([sys.Q_a + matvec(sys.B[:, :, free], tau_J[:, free]) - sys.k, tau_J[:, rotor]], axis=1)
    WH = np.concatenate([_inverse_mass_apply(model, R, H_ext[:, :6 * model.nb]),
                         H_ext[:, 6 * model.nb:] / model.armature[rotor][None, :, None]], axis=1)   # W^-1 H
    Ht = np.swapaxes(WH, 1, 2)                                       # H^T W^-1 (W symmetric)
    x = _solve(Ht @ H_ext, matvec(Ht, rhs))
    tau_J = np.array(tau_J, dtype=x.dtype)
    tau_J[:, rotor] = x[:, :nr]
    out = _split(model, R, tau_J, x[:, nr:])
    return JointReactions(*(unbatch(x, single) for x in out))


def newton_euler_forward(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike, f_ext: ArrayLike | None = None,
                         friction: bool = True) -> tuple[Array, JointReactions]:
    """Forward dynamics and joint reactions together from the augmented Newton-Euler system of
    the bodies cut free (Nguyen Quang Hoang's lecture, slide 14; module docstring)::

        [Mbar + B diag(armature)   H] [qdd; lambda] = Q_a + B tau_J - k        (6n x 6n)

    Parameters
    ----------
    model : Model (any tree; massless bodies allowed where the system stays regular)
    q : (nq,) or (N, nq);  v, tau : (nv,) or (N, nv)
    f_ext : (nb+1, 6) or (N, nb+1, 6), optional, as for rnea
    friction : bool, as for aba

    Returns
    -------
    a : (nv,) or (N, nv), equal to :func:`~artidyn.dynamics.aba`
    reactions : JointReactions, as :func:`newton_euler_reactions`
    """
    Q, (V, TAU), single = _states(model, q, v=v, tau=tau)
    sys, R = _system(model, Q, V, _common.external_forces(model, f_ext, Q.shape[0]))
    tau_J = _torques_on_bodies(model, Q, V, TAU, friction)
    Mbar = sys.Mbar + sys.B * model.armature if np.any(model.armature) else sys.Mbar
    x = _solve(np.concatenate([Mbar, sys.H], axis=2), sys.Q_a + matvec(sys.B, tau_J) - sys.k)
    a, lam = x[:, :model.nv], x[:, model.nv:]
    tau_J = tau_J - model.armature * a if np.any(model.armature) else tau_J
    out = _split(model, R, tau_J, lam)
    return unbatch(a, single), JointReactions(*(unbatch(x, single) for x in out))
