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

For the classical Runge-Kutta step (``method="rk4"``: RKMK4, the four stages in the chart at q,
``q_s = q (+) xi_s``, chart velocity ``kx_s = dexp_inv(xi_s, v_s) = G(xi_s) v_s``), the stages are
differentiated in turn, every differential a matrix over ``[dq; dv; dtau]`` (dq tangent at q)::

    dq_s  = J_q(xi_s) dq + J_v(xi_s) dxi_s                      (dintegrate: tangent at q_s)
    dkv_s = da/dq(q_s) dq_s + da/dv dv_s + M^-1(q_s) dtau
    dkx_s = G(xi_s) dv_s + D(xi_s, v_s) dxi_s                   (D = d dexp_inv / d xi)
    xi_(s+1) = c_s h kx_s,  v_(s+1) = v + c_s h kv_s            (c = 1/2, 1/2, 1)
    xi+ = h/6 (kx_1 + 2 kx_2 + 2 kx_3 + kx_4),  q+ = q (+) xi+,  dq+ = J_q(xi+) dq + J_v(xi+) dxi+

For vector joints only (a flat chart: J_q = J_v = G = I, D = 0) this is the textbook differentiation
of RK4, ``dk2 = Df(x2) (I + h/2 dk1)`` etc.; spherical and free joints (a curved chart) add the
J and D terms (Munthe-Kaas' RKMK methods; the derivative of the dexp^-1 series term by term).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..configuration import dexp_inv_jacobians, dintegrate, integrate
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
    derivatives (module docstring). ``method``: "semi-implicit" or "rk4" (RKMK4), any model."""
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
    """The RKMK4 step and its derivatives (module docstring), every differential a matrix over
    the inputs ``[dq; dv; dtau]`` (3 nv columns, dq in the tangent space at q)."""
    from ..dynamics import aba, aba_derivatives

    n = model.nv
    q, v, tau = (np.asarray(x, dtype=float) for x in (q, v, tau))
    I, Z = np.eye(n), np.zeros((n, n))
    dq0, dv0, dtau = np.hstack([I, Z, Z]), np.hstack([Z, I, Z]), np.hstack([Z, Z, I])

    def stage(xi, dxi, vs, dvs):
        """(kx, kv) of the stage at the chart point xi with velocity vs, and their differentials."""
        qs = integrate(model, q, xi)
        Jq, Jv = dintegrate(model, q, xi)
        dqs = Jq @ dq0 + Jv @ dxi                      # the stage configuration, tangent at qs
        d = aba_derivatives(model, qs, vs, tau, f_ext=f_ext, friction=friction)
        kv = aba(model, qs, vs, tau, f_ext, friction=friction)
        dkv = d.da_dq @ dqs + d.da_dv @ dvs + d.Minv @ dtau
        G, D = dexp_inv_jacobians(model, xi, vs)        # kx = dexp_inv(xi, vs) = G vs
        return G @ vs, kv, G @ dvs + D @ dxi, dkv

    xi, dxi, vs, dvs = np.zeros(n), np.zeros((n, 3 * n)), v, dv0
    kx, kv, dkx, dkv = [], [], [], []
    for c in (0.5, 0.5, 1.0, None):
        k = stage(xi, dxi, vs, dvs)
        for lst, x in zip((kx, kv, dkx, dkv), k):
            lst.append(x)
        if c is not None:
            xi, dxi = c * h * k[0], c * h * k[2]
            vs, dvs = v + c * h * k[1], dv0 + c * h * k[3]
    w = (1.0, 2.0, 2.0, 1.0)
    xi = h / 6 * sum(a * x for a, x in zip(w, kx))
    dxi = h / 6 * sum(a * x for a, x in zip(w, dkx))
    v_next = v + h / 6 * sum(a * x for a, x in zip(w, kv))
    dv_next = dv0 + h / 6 * sum(a * x for a, x in zip(w, dkv))
    Jq, Jv = dintegrate(model, q, xi)
    dq_next = Jq @ dq0 + Jv @ dxi
    A = np.vstack([dq_next[:, :2 * n], dv_next[:, :2 * n]])
    B = np.vstack([dq_next[:, 2 * n:], dv_next[:, 2 * n:]])
    return StepDerivatives(integrate(model, q, xi), v_next, A, B)
