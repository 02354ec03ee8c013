"""Wrenches: external wrenches on bodies, and the wrenches the joints transmit.

The RNEA of J. Reuss ("Modélisation des robots", French Wikipedia draft, 2013) takes "l'effort
exercé par l'environnement sur le point de contact O_{N+1} du corps terminal, projeté dans le
repère R_{N+1} attaché à ce point". :func:`external_wrench` turns
such a wrench, given at a named frame (or a point of it), into the per-body array ``f_ext``
(nb+1, 6) that :func:`~artidyn.dynamics.rnea` and :func:`~artidyn.dynamics.aba` take: one
wrench [moment; force] per body, in the body frame about the body origin. The arrays add up, so
several contacts are ``external_wrench(...) + external_wrench(...)``.

:func:`joint_wrenches` returns Reuss's F_j of the RNEA backward pass: the full 6-component
wrench each joint transmits (actuator torque + constraint reaction), of which the joint torque
is only the projection tau_j = S_j^T F_j.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import as_batch, as_q, unbatch
from ..errors import InputError
from ..kinematics import _placements
from ..kinematics.placements import _frame_on_body
from ..spatial.motion import force_apply
from . import _common
from .rnea import _joint_wrenches

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, FrameLike, Model


def external_wrench(model: Model, q: ArrayLike, frame: FrameLike, wrench: ArrayLike, point: ArrayLike | None = None,
                    expressed: str = "world") -> Array:
    """The f_ext array of one wrench applied to the body that carries ``frame``.

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq) configuration (used for ``expressed="world"``; sets the batch size)
    frame : str or int
        a frame, link or body name (or body index); the wrench acts on its body.
    wrench : (6,) or (N, 6)
        [moment; force] applied TO the body BY the environment, the moment taken about the frame
        origin (or about ``point``).
    point : (3,), optional
        point of application in the frame's coordinates (default: the frame origin).
    expressed : "world" or "local"
        the axes of ``wrench``: world axes, or the frame's own axes.

    Returns
    -------
    f_ext : (nb+1, 6) or (N, nb+1, 6), zero except for the row of the frame's body, which holds
        the wrench in the body frame about the body origin.
    """
    if expressed not in ("world", "local"):
        raise InputError(f"expressed must be 'world' or 'local', got {expressed!r}")
    body, T_bp = _frame_on_body(model, frame, point)      # checks the frame name and the point
    Q, single_q = as_q(model, q)
    W, single_w = as_batch(model, wrench, "wrench", 6)
    N = max(Q.shape[0], W.shape[0])
    W = np.broadcast_to(W, (N, 6))
    if expressed == "world":
        R = (_placements(model, Q)[:, body] @ T_bp)[:, :3, :3]
        Rt = np.swapaxes(np.broadcast_to(R, (N, 3, 3)), 1, 2)
        W = np.concatenate([(Rt @ W[:, :3, None])[..., 0], (Rt @ W[:, 3:, None])[..., 0]], axis=1)
    out = np.zeros((N, model.nb + 1, 6), dtype=W.dtype)
    out[:, body] = force_apply(T_bp, W)
    return unbatch(out, single_q and single_w)


def joint_wrenches(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike, f_ext: ArrayLike | None = None) -> Array:
    """The wrench each joint transmits from the parent body to the child body.

    Parameters
    ----------
    model : Model
    q : (nq,) or (N, nq); v, a : (nv,) or (N, nv); f_ext : (nb+1, 6) or (N, nb+1, 6), optional
        as for :func:`~artidyn.dynamics.rnea`.

    Returns
    -------
    F : (nb+1, 6) or (N, nb+1, 6)
        row i: the wrench [moment; force] applied to body i by its parent through joint i, in
        body i's frame about its origin (Featherstone's f_i; ``tau_i = S_i^T F_i`` without armature
        and friction). Row 0: the total wrench the world applies to the robot through its joints,
        in the world frame about the world origin (the base reaction).

    Each body's balance holds: ``F_i - sum_children A_c F_c + f_ext_i + (gravity) = I_i a_i +
    v_i (+) I_i v_i`` (Newton-Euler).
    """
    Q, (V, A), single = _common.batch_inputs(model, q, v=v, a=a)
    F = _common.external_forces(model, f_ext, Q.shape[0])
    return unbatch(_joint_wrenches(model, Q, V, A, F), single)
