"""Derivatives of a simulation step, to linearise a simulation: ``d x_{k+1} / d (x_k, u_k)``.

For the engine's semi-implicit Euler step (``method="semi-implicit"``)::

    v+ = v + h a(q, v, tau),      q+ = q (+) h v+

with ``a = aba`` and its analytical derivatives (Carpentier & Mansard,
:func:`artidyn.aba_derivatives`) and the Jacobians of ``integrate`` on the configuration
manifold (:func:`artidyn.configuration.dintegrate`)::

    dv+/dq = h da/dq,    dv+/dv = I + h da/dv,    dv+/dtau = h M^-1
    dq+/dq = J_q(h v+) + J_v(h v+) h dv+/dq,    dq+/dv = J_v h dv+/dv,    dq+/dtau = J_v h dv+/dtau

All derivatives with respect to q are in the tangent space (a perturbation ``dq`` moves ``q`` to
``q (+) dq``, and ``q+`` moves to ``q+ (+) dq+``), as in pinocchio.

For the classical Runge-Kutta step (``method="rk4"``) of a model whose joints are all vector
joints (revolute, prismatic, cylindrical: the chart is flat), the stages are differentiated in
turn: with ``f(x) = [v; a(q, v, tau)]`` and ``Df = [[0, I], [da/dq, da/dv]]``::

    dk1 = Df(x1),   dk2 = Df(x2) (I + h/2 dk1),   dk3 = Df(x3) (I + h/2 dk2),   dk4 = Df(x4) (I + h dk3)
    dx+/dx = I + h/6 (dk1 + 2 dk2 + 2 dk3 + dk4)       (and the same with d/dtau, whose stage term is [0; M^-1])
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..configuration import dintegrate, integrate
from ..errors import InputError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Model


class StepDerivatives(NamedTuple):
    """``q_next``, ``v_next``; ``A`` (2 nv, 2 nv) = d[q+; v+] / d[q; v] and ``B`` (2 nv, nv) =
    d[q+; v+] / d tau, tangent coordinates for q."""

    q_next: np.ndarray
    v_next: np.ndarray
    A: np.ndarray
    B: np.ndarray


def step_derivatives(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike, h: float, method: str = "semi-implicit",
                     f_ext: ArrayLike | None = None, friction: bool = True) -> StepDerivatives:
    """The step ``(q, v) -> (q+, v+)`` of the engine under constant ``tau`` over ``h``, and its
    derivatives (module docstring). ``method``: "semi-implicit" (any model) or "rk4" (models with
    vector joints only)."""
    from ..dynamics import aba_derivatives

    if method not in ("semi-implicit", "rk4"):
        raise InputError(f"step_derivatives: method must be 'semi-implicit' or 'rk4' (the engine's steps), got "
                         f"{method!r}")
    if not (np.isfinite(h) and h > 0):
        raise InputError(f"step_derivatives: h must be a positive step, got {h!r}")
    if method == "rk4":
        return _rk4(model, q, v, tau, h, f_ext, friction)
    d = aba_derivatives(model, q, v, tau, f_ext=f_ext, friction=friction)
    from ..dynamics import aba
    a = aba(model, q, v, tau, f_ext, friction=friction)
    n = model.nv
    v_next = np.asarray(v, dtype=float) + h * a
    q_next = integrate(model, q, h * v_next)
    dv_dq, dv_dv, dv_du = h * d.da_dq, np.eye(n) + h * d.da_dv, h * d.Minv
    Jq, Jv = dintegrate(model, q, h * v_next)
    A = np.block([[Jq + h * Jv @ dv_dq, h * Jv @ dv_dv], [dv_dq, dv_dv]])
    B = np.vstack([h * Jv @ dv_du, dv_du])
    return StepDerivatives(q_next, v_next, A, B)


def _rk4(model, q, v, tau, h, f_ext, friction):
    """The classical RK4 step of a flat-chart model and its derivatives (module docstring)."""
    from ..dynamics import aba, aba_derivatives
    from ..joints import FREE, SPHERICAL

    curved = [model.joint_names[i] for i in range(1, model.nb + 1) if model.joint_type[i] in (SPHERICAL, FREE)]
    if curved:
        raise InputError(f"step_derivatives(method='rk4'): joints {', '.join(curved[:4])} are spherical or free (a "
                         f"curved chart); use method='semi-implicit' for them")
    n = model.nv
    q, v, tau = (np.asarray(x, dtype=float) for x in (q, v, tau))
    Z, I = np.zeros((n, n)), np.eye(n)

    def stage(x):
        d = aba_derivatives(model, x[:n], x[n:], tau, f_ext=f_ext, friction=friction)
        k = np.concatenate([x[n:], aba(model, x[:n], x[n:], tau, f_ext, friction=friction)])
        return k, np.block([[Z, I], [d.da_dq, d.da_dv]]), np.vstack([Z, d.Minv])
    x = np.concatenate([q, v])
    k1, D1, E1 = stage(x)
    k2, D2, E2 = stage(x + 0.5 * h * k1)
    k3, D3, E3 = stage(x + 0.5 * h * k2)
    k4, D4, E4 = stage(x + h * k3)
    I2 = np.eye(2 * n)
    dk1 = D1
    dk2 = D2 @ (I2 + 0.5 * h * dk1)
    dk3 = D3 @ (I2 + 0.5 * h * dk2)
    dk4 = D4 @ (I2 + h * dk3)
    du1 = E1
    du2 = E2 + D2 @ (0.5 * h * du1)
    du3 = E3 + D3 @ (0.5 * h * du2)
    du4 = E4 + D4 @ (h * du3)
    x_next = x + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    A = I2 + h / 6 * (dk1 + 2 * dk2 + 2 * dk3 + dk4)
    B = h / 6 * (du1 + 2 * du2 + 2 * du3 + du4)
    return StepDerivatives(x_next[:n], x_next[n:], A, B)
