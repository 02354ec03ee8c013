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
"""
from typing import NamedTuple

import numpy as np

from ..configuration import dintegrate, integrate
from ..errors import InputError


class StepDerivatives(NamedTuple):
    """``q_next``, ``v_next``; ``A`` (2 nv, 2 nv) = d[q+; v+] / d[q; v] and ``B`` (2 nv, nv) =
    d[q+; v+] / d tau, tangent coordinates for q."""

    q_next: np.ndarray
    v_next: np.ndarray
    A: np.ndarray
    B: np.ndarray


def step_derivatives(model, q, v, tau, h, method="semi-implicit", f_ext=None, friction=True):
    """The step ``(q, v) -> (q+, v+)`` of the engine under constant ``tau`` over ``h``, and its
    derivatives (module docstring). ``method``: "semi-implicit" (the only one so far)."""
    from ..dynamics import aba_derivatives

    if method != "semi-implicit":
        raise InputError(f"step_derivatives: method must be 'semi-implicit' (the engine's semi-implicit Euler), got "
                         f"{method!r}")
    if not (np.isfinite(h) and h > 0):
        raise InputError(f"step_derivatives: h must be a positive step, got {h!r}")
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
