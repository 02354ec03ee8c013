"""Physically consistent estimation: every body's pseudo-inertia matrix positive definite.

Wensing, Kim & Slotine, "Linear matrix inequalities for physically consistent inertial parameter
identification", IEEE RA-L 2017: the 10 standard parameters of a body are those of a physical
mass distribution iff its 4x4 pseudo-inertia

    J = [[Sigma, h], [h^T, m]],   Sigma = tr(I_O)/2 1 - I_O   (I_O = tr(Sigma) 1 - Sigma)

is positive semidefinite (m >= 0, I_G >= 0 and the triangle inequalities at once).

Rucker & Wensing, "Smooth parameterization of rigid-body inertia", IEEE RA-L 2022: the
log-Cholesky parametrisation ``J = U U^T`` with

    U = e^alpha [[e^d1, s12, s13, t1], [0, e^d2, s23, t2], [0, 0, e^d3, t3], [0, 0, 0, 1]]

maps 10 unconstrained numbers onto the positive definite J, one to one and smoothly. The
estimate minimises, over those numbers (and Ia, Fv, Fc >= 0 by bounds; offsets free),

    |A (G pi) - y|^2 + lambda |pi - pi_prior|^2        (scipy.optimize.least_squares)

with A, y the weighted least-squares system of :func:`~.estimation.identify` (compressed by its
QR factorisation to r rows) and a small ``lambda`` (relative to the smallest nonzero singular
value of ``A G`` squared): the data fix the base parameters; the prior (the nominal model) fixes only
what the data cannot determine. The report says which directions those are: standard
parameters with no effect, standard parameters that appear only in combinations (their
split comes from the prior), and base parameters the data determine poorly (relative standard
deviation above a threshold; the weakest direction of the regressor).
"""
from typing import NamedTuple

import numpy as np

from ..errors import InputError
from .parameters import NB_BODY, body_columns, check_physical, dof_columns, n_parameters, parameter_names


def pseudo_inertia(p):
    """4x4 pseudo-inertia J of 10 standard parameters [m, mc, XX, XY, XZ, YY, YZ, ZZ]."""
    m, h = p[0], p[1:4]
    I_O = np.array([[p[4], p[5], p[6]], [p[5], p[7], p[8]], [p[6], p[8], p[9]]])
    J = np.zeros((4, 4))
    J[:3, :3] = 0.5 * np.trace(I_O) * np.eye(3) - I_O
    J[:3, 3] = J[3, :3] = h
    J[3, 3] = m
    return J


def parameters_of_pseudo_inertia(J):
    """The 10 standard parameters of a pseudo-inertia J (inverse of :func:`pseudo_inertia`)."""
    S = J[:3, :3]
    I_O = np.trace(S) * np.eye(3) - S
    return np.r_[J[3, 3], J[:3, 3], I_O[0, 0], I_O[0, 1], I_O[0, 2], I_O[1, 1], I_O[1, 2], I_O[2, 2]]


def _upper(theta):
    theta = np.r_[np.clip(theta[:4], -50.0, 50.0), theta[4:]]   # exp stays finite on wild trial steps
    alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3 = theta
    return np.exp(alpha) * np.array([[np.exp(d1), s12, s13, t1], [0.0, np.exp(d2), s23, t2],
                                     [0.0, 0.0, np.exp(d3), t3], [0.0, 0.0, 0.0, 1.0]])


def log_cholesky_to_parameters(theta):
    """10 standard parameters of the log-Cholesky vector theta = (alpha, d1, d2, d3, s12, s23,
    s13, t1, t2, t3) (Rucker & Wensing 2022): always physically consistent."""
    U = _upper(np.asarray(theta, dtype=float))
    return parameters_of_pseudo_inertia(U @ U.T)


def log_cholesky_jacobian(theta):
    """(10 x 10) d(standard parameters) / d(theta) of :func:`log_cholesky_to_parameters`:
    ``dJ = dU U^T + U dU^T`` with ``dU/dalpha = U``, ``dU/dd_i = e^alpha e^d_i E_ii``,
    ``dU/ds_ij = dU/dt_i = e^alpha E``."""
    theta = np.asarray(theta, dtype=float)
    U = _upper(theta)
    ea = np.exp(np.clip(theta[0], -50.0, 50.0))
    entries = [(0, 1), (1, 2), (0, 2), (0, 3), (1, 3), (2, 3)]       # s12, s23, s13, t1, t2, t3
    out = np.empty((NB_BODY, NB_BODY))
    for k in range(10):
        if k == 0:
            dU = U.copy()
        else:
            dU = np.zeros((4, 4))
            if k <= 3:
                dU[k - 1, k - 1] = U[k - 1, k - 1]
            else:
                dU[entries[k - 4]] = ea
        out[:, k] = parameters_of_pseudo_inertia(dU @ U.T + U @ dU.T)
    return out


def parameters_to_log_cholesky(p, floor=1e-6):
    """theta of 10 standard parameters; a singular or indefinite J is first lifted to
    ``J + e 1`` with e = max(0, -lambda_min) + floor * max(1, |J|) (so a degenerate body, a thin rod
    or a point mass, gets the nearest definite one)."""
    J = pseudo_inertia(np.asarray(p, dtype=float))
    lam = np.linalg.eigvalsh(J)[0]
    scale = max(1.0, np.abs(J).max())
    J = J + (max(0.0, -lam) + floor * scale) * np.eye(4)
    # J = U U^T with U upper triangular: reverse the order, Cholesky, reverse back
    P = np.eye(4)[::-1]
    U = P @ np.linalg.cholesky(P @ J @ P) @ P
    alpha = np.log(U[3, 3])
    V = U / U[3, 3]
    return np.array([alpha, np.log(V[0, 0]), np.log(V[1, 1]), np.log(V[2, 2]), V[0, 1], V[1, 2], V[0, 2],
                     V[0, 3], V[1, 3], V[2, 3]])


class PhysicalEstimate(NamedTuple):
    """Result of :func:`physical_estimate`."""

    pi: np.ndarray            # (p,) physically consistent standard parameters
    beta: np.ndarray          # (r,) its base parameters G pi
    model: object             # the model with pi (offsets dropped), or None when building failed
    min_eigenvalue: np.ndarray  # (nb,) smallest eigenvalue of each body's pseudo-inertia (> 0)
    success: bool
    message: str
    no_effect: list           # standard parameters the torques do not depend on (value = prior)
    in_combinations: dict     # standard parameter -> the base parameters it appears in (split from prior)
    poorly_determined: list   # base parameters with relative std above the threshold
    weakest_direction: str    # the least excited combination of base parameters
    constrained: list         # base parameters moved by the constraints by more than 3 std
    report: str               # all of the above, in words


def structural_report(model, G, base_names):
    """(no_effect, in_combinations): standard parameters absent from every base parameter, and
    those present but not identifiable alone (e_k not in the row space of G)."""
    names = parameter_names(model)
    no_effect, combos = [], {}
    Q = np.linalg.qr(G.T)[0] if G.size else np.zeros((G.shape[1], 0))   # orthonormal basis of rowspace
    for k, n in enumerate(names):
        col = G[:, k]
        if np.all(col == 0):
            no_effect.append(n)
            continue
        e = np.zeros(G.shape[1])
        e[k] = 1.0
        if np.linalg.norm(e - Q @ (Q.T @ e)) > 1e-8:
            combos[n] = [base_names[i] for i in np.flatnonzero(col)]
    return no_effect, combos


def physical_estimate(model, ident, prior=None, regularization=1e-4, rel_std_threshold=30.0,
                      ftol=1e-10, max_nfev=600):
    """Physically consistent standard parameters fitting the data of an identification.

    Parameters
    ----------
    model : Model (the one identified)
    ident : :class:`~.estimation.Identification` (its regressor W, torques, weights sigma, G)
    prior : (p,) standard parameters (default: the model's own, :func:`model_to_parameters`)
        the estimate keeps them where the data say nothing
    regularization : lambda relative to the smallest (r-th) singular value of ``A G`` squared:
        the prior shifts a base parameter by about ``regularization`` x (its prior value minus the
        data's) at most
    rel_std_threshold : %, base parameters above it are reported as poorly determined
    ftol : relative decrease of the cost that stops the optimiser (flat directions, held by the
        small regularisation only, otherwise creep for many iterations)
    max_nfev : optimiser evaluations (each with an analytic Jacobian)

    Returns
    -------
    PhysicalEstimate (module docstring); ``check_physical`` holds for every body of ``pi``.
    """
    import scipy.optimize

    from .parameters import model_to_parameters, parameters_to_model

    p, nb = n_parameters(model), model.nb
    G = np.asarray(ident.G)
    if G.shape[1] != p:
        raise InputError(f"the identification has {G.shape[1]} standard parameters, model '{model.name}' {p}")
    prior = model_to_parameters(model) if prior is None else np.asarray(prior, dtype=float)
    sigma = np.asarray(ident.sigma, dtype=float)
    A = (ident.W / sigma[:, None]).reshape(-1, G.shape[0])
    y = (ident.tau / sigma).ravel()
    Qa, Ra = np.linalg.qr(A)
    z = Qa.T @ y
    RG = Ra @ G
    s_min = np.linalg.svd(RG, compute_uv=False)[G.shape[0] - 1]   # weakest direction the data fix
    w_reg = np.sqrt(regularization) * s_min
    bounded = np.concatenate([dof_columns(model, k) for k in ("Ia", "Fv", "Fc")])

    def unpack(x):
        pi = np.empty(p)
        for i in range(1, nb + 1):
            pi[body_columns(model, i)] = log_cholesky_to_parameters(x[NB_BODY * (i - 1):NB_BODY * i])
        pi[NB_BODY * nb:] = x[NB_BODY * nb:]
        return pi

    def residual(x):
        pi = unpack(x)
        return np.concatenate([RG @ pi - z, w_reg * (pi - prior)])

    def jacobian(x):
        D = np.eye(p)                   # d pi / d x: block diagonal (bodies), identity (per-dof)
        for i in range(1, nb + 1):
            c = body_columns(model, i)
            D[c, c] = log_cholesky_jacobian(x[c])
        return np.vstack([RG @ D, w_reg * D])

    x0 = np.concatenate([parameters_to_log_cholesky(prior[body_columns(model, i)]) for i in range(1, nb + 1)]
                        + [prior[NB_BODY * nb:]])
    lb = np.full(x0.size, -np.inf)
    lb[bounded] = 0.0
    x0[bounded] = np.maximum(x0[bounded], 1e-12)
    # lsmr: no SVD of the Jacobian per iteration (cheap, and no multi-threaded LAPACK on small systems)
    res = scipy.optimize.least_squares(residual, x0, jac=jacobian, bounds=(lb, np.inf), ftol=ftol, xtol=1e-10,
                                       x_scale="jac", tr_solver="lsmr", max_nfev=max_nfev)
    pi = unpack(res.x)
    beta = G @ pi
    min_eig = np.array([np.linalg.eigvalsh(pseudo_inertia(pi[body_columns(model, i)]))[0] for i in range(1, nb + 1)])
    for i in range(1, nb + 1):
        check_physical(f"physical estimate of model '{model.name}', body '{model.body_names[i]}'",
                       pi[body_columns(model, i)])
    try:
        model2 = parameters_to_model(model, pi, offsets="drop")
    except ValueError:
        model2 = None
    no_effect, combos = structural_report(model, G, ident.names)
    poor = [f"{n} ({r:.3g} %)" for n, r in zip(ident.names, ident.rel_std) if r > rel_std_threshold]
    _, s, Vt = np.linalg.svd(A, full_matrices=False)
    v = Vt[-1]
    top = np.argsort(-np.abs(v))[:4]
    weakest = (f"{' '.join(f'{v[k]:+.3g}*{ident.names[k]}' for k in top)} "
               f"(singular value {s[-1]:.3g}, {s[0] / s[-1]:.3g} times below the largest)")
    moved = [f"{n} (least squares {b:.6g}, physical {c:.6g}, std {d:.3g})"
             for n, b, c, d in zip(ident.names, ident.beta, beta, ident.std) if abs(c - b) > 3 * d]
    report = _report_text(no_effect, combos, poor, weakest, moved, rel_std_threshold, res)
    return PhysicalEstimate(pi, beta, model2, min_eig, bool(res.success), str(res.message), no_effect, combos,
                            poor, weakest, moved, report)


def _report_text(no_effect, combos, poor, weakest, moved, threshold, res):
    lines = [f"Physically consistent estimate (log-Cholesky, least_squares: {res.message}; "
             f"{res.nfev} evaluations)."]
    if no_effect:
        lines.append(f"- No effect on the torques ({len(no_effect)}), kept at the prior: {', '.join(no_effect)}.")
    if combos:
        lines.append(f"- Only in combinations ({len(combos)}), split as the prior suggests: "
                     + "; ".join(f"{k} in {', '.join(v)}" for k, v in combos.items()) + ".")
    if poor:
        lines.append(f"- Poorly determined by these data (relative std > {threshold:g} %): {', '.join(poor)}.")
    else:
        lines.append(f"- Every base parameter is determined by the data (relative std <= {threshold:g} %).")
    lines.append(f"- Weakest direction of the data: {weakest}.")
    if moved:
        lines.append(f"- Moved by the consistency constraints by more than 3 std: {', '.join(moved)}.")
    return "\n".join(lines)
