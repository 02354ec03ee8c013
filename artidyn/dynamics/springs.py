"""Joint springs: a linear spring on each flat joint dof, part of the model like gravity.

Two per-dof fields of :class:`artidyn.Model` (``ModelBuilder.add_body(..., stiffness=, rest=)``
or ``model.replace(stiffness=..., rest=...)``), on revolute, prismatic and cylindrical joints
(whose q and v have the same entries)::

    tau_spring = K (q - q_rest),        V_spring = 1/2 (q - q_rest)^T K (q - q_rest)

with ``K = diag(stiffness)`` (N·m/rad or N/m) and ``q_rest = rest`` (rad or m). The spring is a
conservative, passive generalized force, the gradient of V_spring: it joins gravity in the
potential part of the equations of motion (Lagrange's equations with ``V = V_gravity +
V_spring``)::

    M(q) a + C(q, v) v + g(q) + damping v + coulomb sign(v) = tau,
    g(q) = dV/dq = g_gravity(q) + K (q - q_rest).

Where it enters: :func:`~artidyn.dynamics.rnea` (and ``gravity_torque``, ``nonlinear_effects``)
adds it to tau, :func:`~artidyn.dynamics.aba` subtracts it from tau, the Lagrange term
:func:`~artidyn.dynamics.gravity` and the non-recursive Newton-Euler model add it to g, and
:func:`~artidyn.dynamics.potential_energy` adds V_spring (so ``simulate`` conserves T + V on a
conservative system); the compiled kernels do the same from the packed model (columns STIFF and
REST). ``friction=False`` leaves it in: it is not friction. The joint wrenches of
:func:`~artidyn.dynamics.joint_wrenches` do not include it (the spring acts between the two
bodies inside the joint, like the actuator).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import unbatch
from ..kinematics import _states

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def spring_dofs(model):
    """(v indices, q indices) of the dofs with a nonzero stiffness (flat joints: one q entry per
    dof); cached on the model."""
    key = "dynamics.spring_dofs"
    out = model._cache.get(key)
    if out is None:
        kv, kq = [], []
        for i in range(1, model.nb + 1):
            for j in range(int(model.nv_joint[i])):
                if model.stiffness[model.idx_v[i] + j] != 0:
                    kv.append(int(model.idx_v[i] + j))
                    kq.append(int(model.idx_q[i] + j))
        out = model._cache[key] = (np.array(kv, dtype=np.int64), np.array(kq, dtype=np.int64))
    return out


def _deflection(model, Q):
    """(stiffness, q - rest) of the sprung dofs for a batch Q (N, nq): (m,), (N, m)."""
    kv, kq = spring_dofs(model)
    return model.stiffness[kv], Q[:, kq] - model.rest[kv]


def _spring_torque(model, Q):
    """K (q - rest) for a batch Q (N, nq): (N, nv), dtype-generic; None when there is no spring
    (so that symbolic results stay clean)."""
    kv, _ = spring_dofs(model)
    if kv.size == 0:
        return None
    k, d = _deflection(model, Q)
    tau = np.zeros((Q.shape[0], model.nv), dtype=object if Q.dtype == object else np.result_type(Q, float))
    tau[:, kv] = k * d
    return tau


def _spring_energy(model, Q):
    """1/2 sum_k stiffness_k (q_k - rest_k)^2 for a batch Q (N, nq): (N,), or None without springs."""
    kv, _ = spring_dofs(model)
    if kv.size == 0:
        return None
    k, d = _deflection(model, Q)
    return 0.5 * np.sum(k * d * d, axis=1)


def spring_torque(model: Model, q: ArrayLike) -> Array:
    """Joint spring torque ``stiffness * (q - rest)``: (nv,) or (N, nv) (zero on other dofs).

    The actuators must supply it on top of ``M a + h_gravity`` to hold a deflected spring.
    """
    Q, _, single = _states(model, q)
    tau = _spring_torque(model, Q)
    return unbatch(np.zeros((Q.shape[0], model.nv)) if tau is None else tau, single)


def spring_energy(model: Model, q: ArrayLike) -> float | Array:
    """Potential energy of the joint springs, ``1/2 sum_k stiffness_k (q_k - rest_k)^2``: float or (N,)."""
    Q, _, single = _states(model, q)
    V = _spring_energy(model, Q)
    return unbatch(np.zeros(Q.shape[0]) if V is None else V, single)
