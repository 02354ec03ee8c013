"""The Boltzmann-Hamel equations in quasi-velocities.

Hamel, "Die Lagrange-Eulerschen Gleichungen der Mechanik" (1904); Neimark & Fufaev, "Dynamics
of Nonholonomic Systems", ch. II; Bloch, "Nonholonomic Mechanics and Control", sec. 5.2. The
velocity is ``qdot = sum_r w_r f_r(q)``, the vector fields ``f_r`` being the columns of ``G =
B^-1`` over the model's own velocity basis ``e_a``; the kinetic energy in quasi-velocities is
``T*(q, w) = 1/2 w^T M* w`` with ``M* = G^T M G``. The equations::

    d/dt (dT*/dw_r) - f_r(T*) + sum_{s,l} c^l_rs w_s dT*/dw_l = Q*_r + (A_w^T lambda)_r

``f_r(T*)`` is the derivative of T* along the field f_r at fixed w, ``Q* = G^T Q_app`` the
generalized forces (gravity included) and the **Hamel coefficients** ``c^l_rs`` are the
structure functions of the fields, ``[f_r, f_s] = sum_l c^l_rs f_l`` (the transitivity
equations). With ``f_r = sum_a G_ar e_a``::

    c^l_rs = sum_a B_la ( sum_{a',b} G_a'r G_bs k^a_a'b + f_r(G_as) - f_s(G_ar) ),

``k`` being the structure constants of the model's own basis: zero for revolute and prismatic
joints, those of so(3) for a spherical joint and of se(3) for a floating base (its velocity is
the body twist, [omega_body; v_body]: left-invariant fields, ``[e_wi, e_wj] = eps_ijk e_wk``,
``[e_wi, e_vj] = eps_ijk e_vk``). With the model's own quasi-velocities (``B = I``) the equations
are Euler's and Newton's for the base and must equal the articulated-body algorithm exactly.
The derivatives of ``M*`` and ``G`` along the fields are taken by complex step on the readable
(dtype-generic) composite-rigid-body algorithm, exact to rounding. This is the readable
reference; the compiled route (:mod:`artidyn.kernels.formulations`) needs only ``Mdot v`` and
``1/2 v^T (dM/dq_k) v`` of the model's fields, which the derivative of the compiled CRBA gives
(:func:`artidyn.kernels.christoffel.mass_matrix_rates`), and maps them through G and its rates.
"""
import numpy as np

from ..configuration import as_q
from ..constraints.nonholonomic import directional, qdot
from ..dynamics.crba import _crba
from ..joints import FREE, SPHERICAL

_EPS = np.zeros((3, 3, 3))
_EPS[0, 1, 2] = _EPS[1, 2, 0] = _EPS[2, 0, 1] = 1.0
_EPS[0, 2, 1] = _EPS[2, 1, 0] = _EPS[1, 0, 2] = -1.0


def structure_constants(model):
    """``k[c, a, b]``: ``[e_a, e_b] = sum_c k[c, a, b] e_c`` for the model's velocity basis."""
    n = model.nv
    k = np.zeros((n, n, n))
    for i in range(1, model.nb + 1):
        t, iv = model.joint_type[i], int(model.idx_v[i])
        if t not in (SPHERICAL, FREE):
            continue
        w = slice(iv, iv + 3)
        k[w, w, w] = np.transpose(_EPS, (2, 0, 1))            # k[c, a, b] = eps_abc
        if t == FREE:
            lin = slice(iv + 3, iv + 6)
            k[lin, w, lin] = np.transpose(_EPS, (2, 0, 1))    # [e_wa, e_vb] = eps_abc e_vc
            k[lin, lin, w] = -np.transpose(_EPS, (2, 1, 0))   # [e_va, e_wb] = -[e_wb, e_va]
    return k


def _mass(model, q):
    Q, _ = as_q(model, q)
    return _crba(model, Q)[0]


def hamel_coefficients(T):
    """``c[l, r, s]`` at the state of the :class:`~artidyn.analytical.system.Terms` ``T``."""
    model, G, B = T.model, T.G, T.B
    k = structure_constants(model)
    c = np.einsum("cab,ar,bs->crs", k, G, G)
    if T.system.B_of is not None:
        Bf = T.system.B_of
        DG = np.stack([-G @ directional(lambda qq, tt: np.asarray(Bf(qq)), model, T.q, G[:, r]) @ G
                       for r in range(model.nv)])            # DG[r] = f_r(G)
        c += np.transpose(DG, (1, 0, 2)) - np.transpose(DG, (1, 2, 0))   # f_r(G_cs) - f_s(G_cr)
    return np.einsum("lc,crs->lrs", B, c)


def solve(T):
    model, G = T.model, T.G
    n = model.nv
    Bf = T.system.B_of

    def M_star(qq, tt):
        Gq = np.eye(n) if Bf is None else np.linalg.inv(np.asarray(Bf(qq)))
        return Gq.T @ _mass(model, qq) @ Gq

    Ms = M_star(T.q, T.t)
    if Bf is None:      # the model's own fields: all n complex steps in one batch of the CRBA
        h = 1e-30
        Qc = T.q + 1j * h * np.stack([qdot(model, T.q, G[:, r]) for r in range(n)])
        D = np.imag(_crba(model, as_q(model, Qc)[0])) / h                       # D[r] = f_r(M*)
    else:
        D = np.stack([directional(M_star, model, T.q, G[:, r]) for r in range(n)])
    w = T.w
    p = Ms @ w                                              # dT*/dw
    Ms_dot = np.einsum("r,rij->ij", w, D)
    grad_T = 0.5 * np.einsum("i,rij,j->r", w, D, w)        # f_r(T*)
    hamel = np.einsum("lrs,s,l->r", hamel_coefficients(T), w, p)
    rhs = G.T @ T.Q_app - Ms_dot @ w + grad_T - hamel
    A_w, gamma_w = T.quasi_rows()
    m = A_w.shape[0]
    if m == 0:
        return np.linalg.solve(Ms, rhs), np.zeros(0)
    K = np.block([[Ms, A_w.T], [A_w, np.zeros((m, m))]])
    y = np.concatenate([rhs, gamma_w])
    redundant = np.linalg.matrix_rank(A_w, tol=1e-10 * max(np.linalg.norm(A_w, 2), 1e-300)) < m
    x = np.linalg.lstsq(K, y, rcond=None)[0] if redundant else np.linalg.solve(K, y)
    return x[:n], -x[n:]
