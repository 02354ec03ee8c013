"""Compiled analytical formulations of constrained dynamics: Lagrange, Gibbs-Appell, Kane, Maggi,
Boltzmann-Hamel and Udwadia-Kalaba, one state or a batch. The readable references are the
modules of :mod:`artidyn.analytical` (one per method); the tests hold the two routes together.

For each state the terms that the methods share come from the compiled recursive algorithms
(:func:`terms`), not from per-state numerical derivatives:

* M (CRBA) and ``h = rnea(q, v, 0)`` with friction and external wrenches, in one pass
  (:func:`.constrained.crba_bias_state`); ``c``, the velocity-product part of h (the RNEA at
  qdd = 0 without gravity, friction, wrenches or springs): the applied forces are
  ``Q_app = tau + C - (h - c)`` (C: the non-ideal term);
* the constraint rows ``A`` and ``gamma = -(Adot v + bdot)`` (:func:`.constrained.constraint_rows`;
  the caller gives them for constraints that have no compiled form);
* Gibbs-Appell: M as the Hessian of Appell's acceleration energy S (:func:`.gaha.gaha_state`),
  and its gradient ``dS/da = M a + c`` (the GAHA seed's left-hand side);
* Boltzmann-Hamel: ``Mdot v`` and ``1/2 v^T (dM/dq_k) v``, the two contractions of the
  derivative of the CRBA that its equations use (:func:`.christoffel.mass_matrix_rates`).

Quasi-velocities ``w = B(q) v`` are a function of the user: the caller evaluates B, ``G = B^-1``,
``Bdot v`` and, for Boltzmann-Hamel, the rates of G (``X`` below); the kernel maps the terms
onto them: ``A_w = A G``, ``gamma_w = gamma + A_w Bdot v``, ``M* = G^T M G``, ``a = G (wdot - Bdot v)``.

Then each method's own equations, in the small dense algebra of :mod:`.dense` (Cholesky factors,
Householder QR with column pivoting), as in the readable modules:

* Lagrange: ``M a - A^T lambda = tau + C - h``, ``A a = gamma``, by elimination (:func:`range_space`);
* Gibbs-Appell and Kane: the independent quasi-velocities by QR with column pivoting of ``A_w``
  (``wdot = N u + wdot_0``, ``P = G N``), then ``(P^T M P) udot = P^T (...)``; Gibbs-Appell with
  GAHA's Hessian and the gradient of S, Kane with the generalized inertia forces of the CRBA and
  the RNEA (Kane's sums over the bodies of ``v_r^i . m_i a_Gi + omega_r^i . (I_i alpha_i +
  omega_i x I_i omega_i)`` are the rows of ``P^T (M a + c)``);
* Maggi: the null space of A from the QR of A^T, ``(N^T M N) z = N^T (tau + C - h - M a_p)``;
* Boltzmann-Hamel: ``M* wdot - A_w^T lambda = G^T Q_app - Mdot* w + f(T*) - hamel`` (module
  :mod:`artidyn.analytical.boltzmann_hamel`), the Hamel terms from the structure constants of the
  model's velocity basis (se(3), so(3)) and the rates of G;
* Udwadia-Kalaba: ``a = a_f + L^-T P^+ (gamma - A a_f) + L^-T (I - P^+ P) L^-1 C`` with ``M = L L^T``
  (the Cholesky factor in place of M^1/2: ``L^-T P^+ = M^-1 A^T (A M^-1 A^T)^+`` for any factor)
  and ``P^+ = P^T (P P^T)^+``.

Return codes as :mod:`.constrained` (OK, BAD_INPUT, SINGULAR, DEGENERATE): anything but OK sends
the state to the reference route, which reports the error (or solves the singular case its way).
"""
import numba as nb
import numpy as np

from ..joints import FREE, SPHERICAL
from .christoffel import christoffel_stack, mass_matrix_rates
from .constrained import BAD_INPUT, DEGENERATE, OK, SINGULAR, constraint_rows, crba_bias_state
from .crba import matrix_finite
from .dense import (apply_q, apply_qt, backward, chol_solve, cholesky, congruence, forward, matmul, matvec, matvec_t,
                    qr_pivoted, solve_r, solve_rt)
from .gaha import gaha_state, gaha_work
from .pack import GRAVITY, IV, JTYPE, NVJ, QN, REST, STIFF
from .rnea import rnea_state
from .spatial import all_finite
from .types import FRICTION, HAS_FEXT, inputs_ok

LAGRANGE, GIBBS_APPELL, KANE, MAGGI, BOLTZMANN_HAMEL, UDWADIA_KALABA = 0, 1, 2, 3, 4, 5
QUASI, ROWS = 16, 32          # bits of opts beside FRICTION and HAS_FEXT: quasi-velocities, rows given
PD_TOL = 1e-12                # a Cholesky pivot of M or of a reduced mass matrix below this (relative): SINGULAR
DELASSUS_TOL = 1e-11          # below this, A M^-1 A^T is taken as singular: its pseudo-inverse


# --- the terms ---------------------------------------------------------------------------------

@nb.njit
def velocity_products(B, v, zero, fext, c):
    """c <- the velocity-product part of h for the state loaded by ``load_q``: the RNEA at qdd = 0
    with gravity set to zero for the pass, without friction, wrenches, and springs taken off."""
    g0, g1, g2 = B[0, GRAVITY], B[0, GRAVITY + 1], B[0, GRAVITY + 2]
    B[0, GRAVITY] = B[0, GRAVITY + 1] = B[0, GRAVITY + 2] = 0.0
    rnea_state(B, v, zero, fext, 0, c)
    B[0, GRAVITY], B[0, GRAVITY + 1], B[0, GRAVITY + 2] = g0, g1, g2
    for i in range(1, B.shape[0]):
        k = int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            if B[i, STIFF + j] != 0.0:
                c[k + j] -= B[i, STIFF + j] * (B[i, QN + j] - B[i, REST + j])


@nb.njit
def terms(B, K, TF, q, v, fext, opts, J_in, g_in, M, h, c, A, gamma, with_c):
    """M, h, A, gamma and (``with_c``; else zeros) c of the state loaded by ``load_q`` (module
    docstring); a return code."""
    nv, m = M.shape[0], A.shape[0]
    c[:] = 0.0
    if with_c:
        velocity_products(B, v, np.zeros(nv), fext, c)
    crba_bias_state(B, v, fext, opts & (FRICTION | HAS_FEXT), M, h)
    if opts & ROWS:
        A[:, :] = J_in
        gamma[:] = g_in
    elif m > 0:               # the rows need the placements, twists and world velocities left above
        A[:, :] = 0.0
        if not constraint_rows(B, K, TF, q, v, A, gamma, np.empty(m), np.empty((K.shape[0], 6)), np.empty((6, nv)),
                               np.empty((6, nv)), np.empty((2, 4, 4)), np.empty(21)):
            return DEGENERATE
        for r in range(m):
            gamma[r] = -gamma[r]
    if not (matrix_finite(M) and all_finite(h) and all_finite(c) and matrix_finite(A) and all_finite(gamma)):
        return BAD_INPUT
    return OK


# --- shared steps --------------------------------------------------------------------------------

@nb.njit
def pseudo_solve(D, y, out):
    """out <- D^+ y for the symmetric positive semi-definite D (m, m): Cholesky, or the
    Moore-Penrose inverse when D is singular (redundant constraints: least-norm multipliers)."""
    m = D.shape[0]
    F = D.copy()
    if cholesky(F, m, DELASSUS_TOL):
        out[:] = y
        chol_solve(F, m, out)
    else:
        matvec(np.linalg.pinv(D, 1e-12), y, out)


@nb.njit
def factor_rows(L, A):
    """(Z, D): ``Z = A L^-T`` (m, n), a row per constraint row, and ``D = Z Z^T = A M^-1 A^T``."""
    n, m = L.shape[0], A.shape[0]
    Z = A.copy()
    for r in range(m):
        forward(L, n, Z[r])
    D = np.empty((m, m))
    for r in range(m):
        for s in range(r + 1):
            x = 0.0
            for k in range(n):
                x += Z[r, k] * Z[s, k]
            D[r, s] = D[s, r] = x
    return Z, D


@nb.njit
def range_space(L, A, g, r0, x, lam):
    """The saddle-point system ``M x - A^T lam = r0, A x = g`` with ``M = L L^T``: ``x0 = M^-1
    r0``, ``lam = (A M^-1 A^T)^+ (g - A x0)``, ``x = x0 + M^-1 A^T lam`` (the least-norm
    multipliers; the solution of the whole KKT system, as the references' LU or least squares)."""
    n, m = L.shape[0], A.shape[0]
    x[:] = r0
    chol_solve(L, n, x)
    if m == 0:
        return
    Z, D = factor_rows(L, A)
    y = np.empty(m)
    matvec(A, x, y)
    for r in range(m):
        y[r] = g[r] - y[r]
    pseudo_solve(D, y, lam)
    t = np.empty(n)
    matvec_t(Z, lam, t)
    backward(L, n, t)
    for k in range(n):
        x[k] += t[k]


@nb.njit
def partition(A_w, gamma_w, named):
    """Independent and dependent quasi-velocities, as the readable ``Terms.partition``: ``wdot = N
    wdot_i + wdot_0`` for all ``wdot_i``. The dependent ones are the pivots of the QR with column
    pivoting of A_w (``A_w Pi = Q R``, ``R = [R11 R12]``: ``N_dep = -R11^-1 R12``, ``wdot_0,dep =
    R11^-1 (Q^T gamma_w)[:r]``), or the complement of the ``named`` independent ones (then by the
    QR of their columns, least squares). Returns ``(N (n, k), wdot_0, k)``; k < 0 when the named
    ones do not fit the constraints (the reference says why)."""
    m, n = A_w.shape
    X = A_w.copy()
    piv, beta = np.empty(n, np.int64), np.empty(max(1, min(m, n)))
    r = qr_pivoted(X, m, n, piv, beta)
    k = n - r
    wdot0 = np.zeros(n)
    y = np.empty(max(m, n))
    if named.shape[0] == 0:
        N = np.zeros((n, k))
        for j in range(k):
            N[piv[r + j], j] = 1.0
            y[:r] = X[:r, r + j]
            solve_r(X, r, y)
            for i in range(r):
                N[piv[i], j] = -y[i]
        y[:m] = gamma_w
        apply_qt(X, m, min(m, n), beta, y)
        solve_r(X, r, y)
        for i in range(r):
            wdot0[piv[i]] = y[i]
        return N, wdot0, k
    if named.shape[0] != k:
        return np.zeros((n, 0)), wdot0, -1
    ind = np.sort(named)
    free = np.ones(n, np.bool_)
    for j in range(k):
        free[ind[j]] = False
    dep = np.flatnonzero(free)
    if dep.shape[0] != r:            # a dof named twice
        return np.zeros((n, 0)), wdot0, -1
    Xd = np.empty((m, r))
    for i in range(m):
        for j in range(r):
            Xd[i, j] = A_w[i, dep[j]]
    pd, bd = np.empty(max(1, r), np.int64), np.empty(max(1, min(m, r)))
    if qr_pivoted(Xd, m, r, pd, bd) < r:
        return np.zeros((n, 0)), wdot0, -1
    N = np.zeros((n, k))
    for j in range(k + 1):       # the columns of the independent ones, then gamma_w
        for i in range(m):
            y[i] = A_w[i, ind[j]] if j < k else gamma_w[i]
        apply_qt(Xd, m, min(m, r), bd, y)
        solve_r(Xd, r, y)
        for i in range(r):
            if j < k:
                N[dep[pd[i]], j] = -y[i]
            else:
                wdot0[dep[pd[i]]] = y[i]
        if j < k:
            N[ind[j], j] = 1.0
    return N, wdot0, k


@nb.njit
def reduced_solve(Mx, P, F, u):
    """u <- (P^T Mx P)^-1 F by Cholesky; False when P^T Mx P is not positive definite."""
    k = P.shape[1]
    K = np.empty((k, k))
    congruence(P, Mx, np.empty(P.shape), K)
    if not cholesky(K, k, PD_TOL):
        return False
    u[:] = F
    chol_solve(K, k, u)
    return True


@nb.njit
def structure_terms(B, p, v, out):
    """out <- ``sum_{c,b} p_c k[c, a, b] v_b``: the Hamel coefficients of the model's own velocity
    basis (:func:`artidyn.analytical.structure_constants`) contracted; nonzero on spherical joints
    (so(3): ``omega x p_omega``) and free joints (se(3): ``[omega x p_omega + v x p_v; omega x p_v]``)."""
    out[:] = 0.0
    for i in range(1, B.shape[0]):
        t, k = int(B[i, JTYPE]), int(B[i, IV])
        if t != SPHERICAL and t != FREE:
            continue
        w0, w1, w2 = v[k], v[k + 1], v[k + 2]
        out[k] = w1 * p[k + 2] - w2 * p[k + 1]
        out[k + 1] = w2 * p[k] - w0 * p[k + 2]
        out[k + 2] = w0 * p[k + 1] - w1 * p[k]
        if t == FREE:
            u0, u1, u2, f0, f1, f2 = v[k + 3], v[k + 4], v[k + 5], p[k + 3], p[k + 4], p[k + 5]
            out[k] += u1 * f2 - u2 * f1
            out[k + 1] += u2 * f0 - u0 * f2
            out[k + 2] += u0 * f1 - u1 * f0
            out[k + 3] = w1 * f2 - w2 * f1
            out[k + 4] = w2 * f0 - w0 * f2
            out[k + 5] = w0 * f1 - w1 * f0


# --- the methods ---------------------------------------------------------------------------------
# Each returns a code and fills a (the model's accelerations) or wdot (the quasi-accelerations).

@nb.njit
def lagrange(M, A, gamma, r0, a, lam):
    """Lagrange's equations with multipliers: ``M a - A^T lambda = tau + C - h = r0``, ``A a = gamma``."""
    L = M.copy()
    if not cholesky(L, M.shape[0], PD_TOL):
        return SINGULAR
    range_space(L, A, gamma, r0, a, lam)
    return OK


@nb.njit
def independent_speeds(Mx, P, N, wdot0, F, wdot):
    """``(P^T Mx P) u = F``, ``wdot = N u + wdot_0``: the closing step of Gibbs-Appell and Kane."""
    u = np.empty(P.shape[1])
    if not reduced_solve(Mx, P, F, u):
        return SINGULAR
    matvec(N, u, wdot)
    for k in range(wdot.shape[0]):
        wdot[k] += wdot0[k]
    return OK


@nb.njit
def gibbs_appell(M_S, c, Q_app, P, N, wdot0, a0, wdot):
    """Appell's equations ``dS/dwdot_i = Q_i``: S quadratic, Hessian ``P^T M_S P`` (M_S by GAHA),
    gradient at ``wdot_i = 0`` ``P^T (M_S a0 + c)``, ``Q_i = P^T Q_app``."""
    g = np.empty(c.shape[0])
    matvec(M_S, a0, g)                      # dS/da at a0: M a0 + c
    for k in range(g.shape[0]):
        g[k] = Q_app[k] - (g[k] + c[k])
    F = np.empty(P.shape[1])
    matvec_t(P, g, F)
    return independent_speeds(M_S, P, N, wdot0, F, wdot)


@nb.njit
def kane(M, r0, P, N, wdot0, a0, wdot):
    """Kane's equations ``F_r + F_r* = 0``: the generalized active forces and the inertia forces at
    ``udot = 0`` are ``P^T (tau + C - h - M a0) = P^T r0 - P^T M a0`` (the RNEA's residual at a0
    projected on the partial velocities), the generalized mass ``P^T M P``."""
    f = np.empty(r0.shape[0])
    matvec(M, a0, f)
    for k in range(f.shape[0]):
        f[k] = r0[k] - f[k]
    F = np.empty(P.shape[1])
    matvec_t(P, f, F)
    return independent_speeds(M, P, N, wdot0, F, wdot)


@nb.njit
def maggi(M, A, gamma, r0, a):
    """Maggi's equations: ``A^T Pi = Q R`` (QR with column pivoting, rank r), the null space of A
    ``N = Q[:, r:]``, the least-norm ``a_p = Q[:, :r] R11^-T gamma_sel``; then ``(N^T M N) z =
    N^T (r0 - M a_p)``, ``a = a_p + N z`` (r0 = tau + C - h)."""
    m, n = A.shape
    X = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            X[i, j] = A[j, i]
    piv, beta = np.empty(max(1, m), np.int64), np.empty(max(1, min(m, n)))
    r = qr_pivoted(X, n, m, piv, beta)
    nref = min(m, n)
    N = np.empty((n, n - r))
    col = np.empty(n)
    for j in range(n - r):
        col[:] = 0.0
        col[r + j] = 1.0
        apply_q(X, n, nref, beta, col)
        N[:, j] = col
    a[:] = 0.0
    for i in range(r):
        a[i] = gamma[piv[i]]
    solve_rt(X, r, a)
    apply_q(X, n, nref, beta, a)                   # a_p
    f = np.empty(n)
    matvec(M, a, f)
    for k in range(n):
        f[k] = r0[k] - f[k]
    F, z = np.empty(n - r), np.empty(n - r)
    matvec_t(N, f, F)
    if not reduced_solve(M, N, F, z):
        return SINGULAR
    for k in range(n):
        for j in range(n - r):
            a[k] += N[k, j] * z[j]
    return OK


@nb.njit
def boltzmann_hamel(B, M, v, Q_app, A_w, gamma_w, quasi, X, wdot, lam):
    """Boltzmann-Hamel: ``M* wdot - A_w^T lambda = G^T Q_app - Mdot* w + f(T*) - hamel``, with
    ``p = M* w = G^T M v``, ``Mdot* w = Gdot^T M v + G^T Mdot v + G^T M Gdot w``, ``f_r(T*) = (f_r(G)
    w) . M v + (G^T g)_r`` (``g_k = 1/2 v^T dM/dq_k v``) and ``hamel_r = sum c^l_rs w_s p_l = (G^T
    k(B^T p, v))_r + (f_r(G) w) . B^T p - (Gdot^T B^T p)_r``. Without quasi-velocities (B = G = I)
    it is ``M vdot - A^T lambda = Q_app - Mdot v + g - k(p, v)``. X: B, G, Y (column r: f_r(G) w)
    and Gdot = f_w(G), (4, nv, nv)."""
    n = M.shape[0]
    T, Gw, dofs, start, depth = christoffel_stack(B.shape[0], n)
    R = np.empty((3, n))
    R[0] = v
    if not mass_matrix_rates(B, T, Gw, dofs, start, depth, R):
        return BAD_INPUT
    Mdv, g = R[1], R[2]
    Mv, kt, rhs = np.empty(n), np.empty(n), np.empty(n)
    matvec(M, v, Mv)
    if quasi:
        Bq, G, Y, Gdot = X[0], X[1], X[2], X[3]
        p, pb, w, Gdw, t = np.empty(n), np.empty(n), np.empty(n), np.empty(n), np.empty(n)
        matvec_t(G, Mv, p)
        matvec_t(Bq, p, pb)
        matvec(Bq, v, w)
        matvec(Gdot, w, Gdw)
        matvec(M, Gdw, t)                            # M Gdot w
        structure_terms(B, pb, v, kt)
        for k in range(n):
            t[k] = Q_app[k] - Mdv[k] - t[k] + g[k] - kt[k]
        matvec_t(G, t, rhs)
        for k in range(n):
            t[k] = Mv[k] - pb[k]
        matvec_t(Y, t, w)                            # f_r(G) w . (M v - B^T p)
        matvec_t(Gdot, Mv, Gdw)
        matvec_t(Gdot, pb, p)
        for k in range(n):
            rhs[k] += w[k] - Gdw[k] + p[k]
        Ms, GM = np.empty((n, n)), np.empty((n, n))
        congruence(G, M, GM, Ms)
    else:
        structure_terms(B, Mv, v, kt)
        for k in range(n):
            rhs[k] = Q_app[k] - Mdv[k] + g[k] - kt[k]
        Ms = M.copy()
    if not cholesky(Ms, n, PD_TOL):
        return SINGULAR
    range_space(Ms, A_w, gamma_w, rhs, wdot, lam)
    return OK


@nb.njit
def udwadia_kalaba(M, A, gamma, f, C, a, lam):
    """The Udwadia-Kalaba equation with ``M = L L^T``, ``P = A L^-T``, ``P^+ = P^T (P P^T)^+``:
    ``a = a_f + L^-T P^+ (gamma - A a_f) + L^-T (I - P^+ P) L^-1 C``, ``a_f = M^-1 f`` (f = tau - h);
    the multipliers ``(P P^T)^+ (gamma - A a_f)`` (``A^T lambda`` = the ideal constraint force)."""
    n, m = A.shape[1], A.shape[0]
    L = M.copy()
    if not cholesky(L, n, PD_TOL):
        return SINGULAR
    a[:] = f
    chol_solve(L, n, a)                               # a_f
    x = C.copy()
    forward(L, n, x)                                  # L^-1 C
    if m > 0:
        Z, D = factor_rows(L, A)                      # P, P P^T
        y, u = np.empty(m), np.empty(n)
        matvec(A, a, y)
        for r in range(m):
            y[r] = gamma[r] - y[r]
        pseudo_solve(D, y, lam)
        matvec_t(Z, lam, u)                           # P^+ (gamma - A a_f)
        matvec(Z, x, y)
        pseudo_solve(D, y.copy(), y)
        for k in range(n):
            x[k] += u[k]
        matvec_t(Z, y, u)                             # P^+ P L^-1 C
        for k in range(n):
            x[k] -= u[k]
    backward(L, n, x)
    for k in range(n):
        a[k] += x[k]
    return OK


# --- one state -----------------------------------------------------------------------------------

@nb.njit
def formulation_state(B, K, TF, method, q, v, tau, fext, opts, X, Y, J_in, g_in, named, wdot, a, lam, force,
                      info):
    """``method`` at one state: wdot, a (nv), lam (m, the multipliers of Lagrange, Boltzmann-Hamel
    and Udwadia-Kalaba), force = M a + h - tau (nv), info[0] = max |A a - gamma|; a return code.

    X (4, nv, nv): B, G, f_r(G) w by columns, Gdot (read with ``QUASI`` in opts); Y (2, nv): the
    non-ideal term C and Bdot v; J_in (m, nv), g_in (m): the rows (read with ``ROWS``); named: the
    independent quasi-velocities (empty: chosen by QR)."""
    nv, m = v.shape[0], lam.shape[0]
    info[0] = 0.0
    quasi = (opts & QUASI) != 0
    if Y.shape[0] != 2 or Y.shape[1] != nv or (quasi and (X.shape[0] != 4 or X.shape[1] != nv or X.shape[2] != nv)):
        return BAD_INPUT
    if (opts & ROWS) and (J_in.shape[0] != m or J_in.shape[1] != nv or g_in.shape[0] != m):
        return BAD_INPUT
    if not (inputs_ok(B, q, v, tau, fext, opts, a) and wdot.shape[0] == nv and force.shape[0] == nv):
        return BAD_INPUT
    M, h, c, A, gamma = np.empty((nv, nv)), np.empty(nv), np.empty(nv), np.empty((m, nv)), np.empty(m)
    code = terms(B, K, TF, q, v, fext, opts, J_in, g_in, M, h, c, A, gamma,
                 method == GIBBS_APPELL or method == BOLTZMANN_HAMEL)
    if code != OK:
        return code
    C, Bdv = Y[0], Y[1]
    r0, Q_app = np.empty(nv), np.empty(nv)
    for k in range(nv):
        r0[k] = tau[k] + C[k] - h[k]
        Q_app[k] = r0[k] + c[k]
    A_w, gamma_w = A, gamma
    if quasi:
        A_w, gamma_w = np.empty((m, nv)), np.empty(m)
        matmul(A, X[1], A_w)
        matvec(A_w, Bdv, gamma_w)
        for r in range(m):
            gamma_w[r] += gamma[r]
    in_model_velocities = method == LAGRANGE or method == MAGGI or method == UDWADIA_KALABA
    if method == LAGRANGE:
        code = lagrange(M, A, gamma, r0, a, lam)
    elif method == MAGGI:
        code = maggi(M, A, gamma, r0, a)
    elif method == UDWADIA_KALABA:
        code = udwadia_kalaba(M, A, gamma, r0 - C, C, a, lam)
    elif method == BOLTZMANN_HAMEL:
        code = boltzmann_hamel(B, M, v, Q_app, A_w, gamma_w, quasi, X, wdot, lam)
    elif method == GIBBS_APPELL or method == KANE:
        N, wdot0, k = partition(A_w, gamma_w, named)
        if k < 0:
            return BAD_INPUT
        P, a0 = N, wdot0
        if quasi:
            P, a0 = np.empty(N.shape), np.empty(nv)
            matmul(X[1], N, P)
            matvec(X[1], wdot0 - Bdv, a0)
        if method == KANE:
            code = kane(M, r0, P, N, wdot0, a0, wdot)
        else:
            M_S = np.empty((nv, nv))
            T, Pw, Yw, dofs, depth, Lw = gaha_work(B.shape[0], nv)
            if not gaha_state(B, T, Pw, Yw, dofs, depth, Lw, M_S):
                return BAD_INPUT
            code = gibbs_appell(M_S, c, Q_app, P, N, wdot0, a0, wdot)
    else:
        return BAD_INPUT
    if code != OK:
        return code
    if in_model_velocities:                  # wdot = B a + Bdot v
        if quasi:
            matvec(X[0], a, wdot)
            for k in range(nv):
                wdot[k] += Bdv[k]
        else:
            wdot[:] = a
    elif quasi:                              # a = G (wdot - Bdot v)
        matvec(X[1], wdot - Bdv, a)
    else:
        a[:] = wdot
    matvec(M, a, force)
    for k in range(nv):
        force[k] += h[k] - tau[k]
    res = 0.0
    for r in range(m):
        x = -gamma[r]
        for k in range(nv):
            x += A[r, k] * a[k]
        res = max(res, abs(x))
    info[0] = res
    ok = all_finite(wdot) and all_finite(a) and all_finite(force) and res - res == 0.0
    has_lam = method == LAGRANGE or method == BOLTZMANN_HAMEL or method == UDWADIA_KALABA
    return OK if ok and (not has_lam or all_finite(lam)) else BAD_INPUT
