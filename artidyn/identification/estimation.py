"""Estimation of the base parameters from measured data (Gautier's method; Khalil & Dombre ch. 12.5).

Data: samples (t_n, q_n, tau_n), n = 1..N, with or without measured velocities. The inverse
dynamic model linear in the base parameters gives the overdetermined system

    y = W beta + rho,      y = [tau_1; ...; tau_N],  W = [Y_b(q_1, qd_1, qdd_1); ...]

1. **Filtering and differentiation** (Gautier 1997, "Dynamic identification of robots with power
   model"): q is low-pass filtered without phase shift (Butterworth, forward and backward,
   ``scipy.signal.filtfilt``), then qd and qdd come from central differences of the filtered q.
2. **Parallel filtering and decimation**: tau has high-frequency content the model does not
   explain (noise, unmodelled dynamics); W and y are low-pass filtered by the same filter and
   resampled (``scipy.signal.decimate``), column by column, so the linear relation is kept.
3. **Ordinary least squares**: ``beta = W^+ y``, residual variance
   ``sigma^2 = |rho|^2 / (rows - r)``, covariance ``sigma^2 (W^T W)^-1``, standard deviations,
   relative standard deviations ``100 std / |beta|`` (%), condition number of W.
4. **Weighted least squares**: one standard deviation per joint, ``sigma_j^2 = |rho_j|^2 /
   (N - r_j)`` from the OLS residuals of joint j's rows (r_j: columns acting on joint j), rows of
   joint j divided by sigma_j, then OLS on the weighted system (covariance ``(W^T S^-1 W)^-1``).
"""
from typing import NamedTuple

import numpy as np

from ..errors import InputError, ShapeError


class LeastSquaresResult(NamedTuple):
    """Result of :func:`least_squares` (r base parameters, N samples, nv joints)."""

    beta: np.ndarray          # (r,) estimate
    std: np.ndarray           # (r,) standard deviations
    rel_std: np.ndarray       # (r,) 100 std / |beta| (%), inf where beta == 0
    cov: np.ndarray           # (r, r) covariance of beta
    cond: float               # condition number of the (weighted) W
    sigma: np.ndarray         # (nv,) noise standard deviation of each joint (weighted: the weights)
    residual: np.ndarray      # (N, nv) tau - Y_b beta (unweighted)
    weighted: bool


def lowpass(x, fs, cutoff, order=4, axis=0):
    """Zero-phase Butterworth low-pass of ``x`` sampled at ``fs`` (Hz), cutoff in Hz
    (``scipy.signal.filtfilt``: forward and backward, the order doubles, no delay)."""
    import scipy.signal

    if not 0 < cutoff < fs / 2:
        raise InputError(f"filter cutoff {cutoff:g} Hz must be in (0, {fs / 2:g}) (the Nyquist frequency "
                         f"of data sampled at {fs:g} Hz)")
    b, a = scipy.signal.butter(order, cutoff / (fs / 2))
    x = np.asarray(x, dtype=float)
    n = x.shape[axis]
    if n <= 3 * max(len(a), len(b)):
        raise InputError(f"{n} samples are too few to filter with an order-{order} Butterworth "
                         f"filter (need more than {3 * max(len(a), len(b))})")
    # a long odd extension (about 5 / cutoff seconds) keeps the end transients short
    return scipy.signal.filtfilt(b, a, x, axis=axis, padlen=min(n - 1, max(3 * len(a), int(5 * fs / cutoff))))


def edge_samples(fs, cutoff):
    """Samples to drop at each end of a filtered record: about one period of the cutoff, where the
    filter's start-up transients make derivatives unreliable (Gautier's practice)."""
    return int(np.ceil(fs / cutoff)) if cutoff is not None else 0


def sample_rate(t):
    """1 / the sampling period of uniformly sampled times t (raises InputError otherwise)."""
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size < 3:
        raise InputError(f"times t must be a 1-D array of at least 3 samples, got shape {t.shape}")
    h = np.diff(t)
    if np.any(h <= 0):
        k = int(np.flatnonzero(h <= 0)[0])
        raise InputError(f"times must increase: t[{k + 1}] = {t[k + 1]:g} follows t[{k}] = {t[k]:g}")
    if np.ptp(h) > 1e-6 * h.mean():
        raise InputError(f"times must be uniformly sampled to filter (steps from {h.min():g} to {h.max():g} s)")
    return 1.0 / h.mean()


def differentiate(t, q, cutoff=None, order=4):
    """(q_f, qd, qdd) from sampled positions: zero-phase low-pass (when ``cutoff`` in Hz is given)
    then central differences (``numpy.gradient``, second order inside, first at the ends).

    q : (N, nv) positions of one-dof joints (angles or lengths)
    """
    t = np.asarray(t, dtype=float)
    q = np.asarray(q, dtype=float)
    if q.ndim != 2 or q.shape[0] != t.size:
        raise ShapeError(f"q must have shape (N, nv) with N = len(t) = {t.size}, got {q.shape}")
    fs = sample_rate(t)
    qf = lowpass(q, fs, cutoff, order) if cutoff is not None else q
    qd = np.gradient(qf, t, axis=0)
    return qf, qd, np.gradient(qd, t, axis=0)


def parallel_decimate(W, tau, factor):
    """Gautier's parallel filtering: the same low-pass decimation (Chebyshev, zero phase,
    ``scipy.signal.decimate``) applied to tau (N, nv) and to every column of W (N, nv, r); keeps
    one sample in ``factor``. Returns (W_d, tau_d)."""
    import scipy.signal

    factor = int(factor)
    if factor <= 1:
        return np.asarray(W), np.asarray(tau)
    if tau.shape[0] <= 27 * factor:
        raise InputError(f"{tau.shape[0]} samples are too few to decimate by {factor}")
    Wd = scipy.signal.decimate(np.asarray(W, dtype=float), factor, axis=0, zero_phase=True)
    return Wd, scipy.signal.decimate(np.asarray(tau, dtype=float), factor, axis=0, zero_phase=True)


def _check(W, tau):
    W, tau = np.asarray(W, dtype=float), np.asarray(tau, dtype=float)
    if W.ndim != 3 or tau.shape != W.shape[:2]:
        raise ShapeError(f"W must be (N, nv, r) and tau (N, nv) with the same N, nv; got {W.shape} and {tau.shape}")
    if not (np.all(np.isfinite(W)) and np.all(np.isfinite(tau))):
        raise InputError("the regressor or the torques contain NaN or infinite values")
    N, nv, r = W.shape
    if N * nv <= r:
        raise InputError(f"{N * nv} equations for {r} parameters: more samples are needed")
    return W, tau


def _solve(A, y):
    """beta, (A^T A)^-1 and cond(A) by SVD (raises when A is rank deficient)."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    if s[-1] <= max(A.shape) * np.finfo(float).eps * s[0]:
        raise InputError(f"the regressor is rank deficient (condition number {s[0] / max(s[-1], 1e-300):.3g}): "
                         f"the trajectory does not excite every base parameter")
    beta = Vt.T @ ((U.T @ y) / s)
    return beta, (Vt.T / s ** 2) @ Vt, s[0] / s[-1]


def least_squares(W, tau, weights=None):
    """Ordinary (``weights=None``) or weighted least squares of ``tau = W beta``.

    W : (N, nv, r) base regressor per sample;  tau : (N, nv)
    weights : (nv,) standard deviations of the joints' errors (rows of joint j divided by it)

    Returns LeastSquaresResult; with weights the covariance is ``(W^T S^-1 W)^-1`` (the weights
    are taken as the true standard deviations), without it ``sigma^2 (W^T W)^-1``.
    """
    W, tau = _check(W, tau)
    N, nv, r = W.shape
    if weights is None:
        beta, inv, cond = _solve(W.reshape(-1, r), tau.ravel())
        res = tau - W @ beta
        sigma2 = np.sum(res ** 2) / (N * nv - r)
        cov, sigma = sigma2 * inv, np.full(nv, np.sqrt(sigma2))
    else:
        sigma = np.asarray(weights, dtype=float)
        if sigma.shape != (nv,) or np.any(sigma <= 0):
            raise InputError(f"weights must be {nv} positive standard deviations, got {sigma.tolist()}")
        beta, cov, cond = _solve((W / sigma[:, None]).reshape(-1, r), (tau / sigma).ravel())
        res = tau - W @ beta
    std = np.sqrt(np.diag(cov))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(beta != 0, 100 * std / np.abs(beta), np.inf)
    return LeastSquaresResult(beta, std, rel, cov, float(cond), sigma, res, weights is not None)


def joint_sigmas(W, residual):
    """Gautier's per-joint standard deviations ``sigma_j^2 = |rho_j|^2 / (N - r_j)``, r_j the
    number of base parameters acting on joint j (nonzero columns of its rows)."""
    N, nv, r = W.shape
    out = np.empty(nv)
    for j in range(nv):
        rj = int(np.sum(np.any(W[:, j] != 0, axis=0)))
        out[j] = np.sqrt(np.sum(residual[:, j] ** 2) / max(N - rj, 1))
    floor = 1e-12 * max(1.0, out.max())
    return np.maximum(out, floor)   # noise-free data: avoid dividing by 0


def weighted_least_squares(W, tau, passes=3):
    """Gautier's weighted least squares: OLS, then weights = the per-joint standard deviations of
    its residuals (:func:`joint_sigmas`), then the weighted solution; the weights are estimated
    again from the weighted residuals ``passes - 1`` more times (the OLS residuals of a quiet
    joint carry some of the noisy joints' error through the shared parameters)."""
    W = np.asarray(W, dtype=float)
    fit = least_squares(W, tau)
    for _ in range(max(1, int(passes))):
        fit = least_squares(W, tau, joint_sigmas(W, fit.residual))
    return fit


class Identification(NamedTuple):
    """Result of :func:`identify`: base parameters estimated from data."""

    model_name: str
    names: list               # (r,) base parameter names ("ZZR1", ... or QR combinations)
    expressions: list         # (r,) what each is in the standard parameters
    beta: np.ndarray          # (r,) estimate
    std: np.ndarray           # (r,) standard deviations
    rel_std: np.ndarray       # (r,) relative standard deviations (%)
    cond: float               # condition number of the (weighted) base regressor
    sigma: np.ndarray         # (nv,) per-joint noise standard deviation (the weights)
    G: np.ndarray             # (r, p): beta = G pi
    columns: np.ndarray       # (r,) regressor columns: tau = Y[..., columns] @ beta
    t: np.ndarray             # (N,) times of the equations used (after decimation)
    tau: np.ndarray           # (N, nv) torques used (after decimation)
    tau_pred: np.ndarray      # (N, nv) Y_b beta
    W: np.ndarray             # (N, nv, r) base regressor used
    cov: np.ndarray           # (r, r)
    method: str               # "weighted" or "ordinary" least squares, the base kind

    @property
    def residual(self):
        return self.tau - self.tau_pred

    def predict(self, model, q, qd, qdd):
        """Torques of the identified model at other states: Y[..., columns] @ beta."""
        from .regressor import regressor
        return regressor(model, q, qd, qdd)[..., self.columns] @ self.beta

    def confidence(self, level=0.95):
        """(low, high) bounds of the normal confidence interval (1.96 std at 95 %)."""
        from scipy.stats import norm
        z = norm.ppf(0.5 + level / 2)
        return self.beta - z * self.std, self.beta + z * self.std


EXCLUDE_KINDS = {"armature": "Ia", "viscous": "Fv", "coulomb": "Fc", "offset": "off"}


def choose_base(model, base="auto", rng=0):
    """The base parameters used by :func:`identify`: ``"grouped"`` (named, Gautier & Khalil's rules,
    :func:`~.grouping.grouped_parameters`), ``"qr"`` (numerical, :func:`~.base.base_parameters`),
    ``"auto"`` (grouped when the rules apply to the model and resolve it, QR otherwise), or a
    ready GroupedParameters / BaseParameters. Returns (names, expressions, G, columns, kind)."""
    from ..errors import ModelError
    from .base import base_parameters
    from .grouping import grouped_parameters

    if base in ("auto", "grouped"):
        try:
            g = grouped_parameters(model, rng=rng)
            if not g.unresolved:
                return list(g.names), list(g.expressions), g.G, np.asarray(g.columns), "grouped"
            if base == "grouped":
                raise ModelError(f"model '{model.name}': the grouping rules leave {', '.join(g.unresolved)} "
                                 f"unresolved; use base='qr'")
        except ModelError:
            if base == "grouped":
                raise
        base = "qr"
    if base == "qr":
        base = base_parameters(model, rng=rng)
    if hasattr(base, "independent"):
        names = [f"beta{k + 1}" for k in range(base.rank)]
        return names, [f"{n} = {e}" for n, e in zip(names, base.names)], base.G, np.asarray(base.independent), "qr"
    if hasattr(base, "columns"):
        return list(base.names), list(base.expressions), base.G, np.asarray(base.columns), "grouped"
    raise ValueError(f"base must be 'auto', 'grouped', 'qr' or a base-parameter object, got {base!r}")


def _drop_excluded(model, G, exclude):
    """Rows of G to keep: those not supported only on the excluded per-dof kinds."""
    from .parameters import dof_columns

    bad = []
    for kind in exclude:
        if kind not in EXCLUDE_KINDS:
            raise InputError(f"exclude: unknown kind {kind!r} (known: {', '.join(EXCLUDE_KINDS)})")
        bad.extend(dof_columns(model, EXCLUDE_KINDS[kind]))
    mask = np.zeros(G.shape[1], dtype=bool)
    mask[bad] = True
    return np.flatnonzero(np.any(G[:, ~mask] != 0, axis=1))


def identify(model, q, tau, t=None, qd=None, qdd=None, cutoff=None, decimate=1, weighted=True,
             base="auto", exclude=()):
    """Estimate the base parameters of ``model`` from measured (q, tau) (module docstring).

    Parameters
    ----------
    model : Model (its kinematics and gravity are used, not its inertias)
    q, tau : (N, nv) measured positions and torques (one-dof joints)
    t : (N,) uniformly sampled times (needed unless qd and qdd are given)
    qd, qdd : (N, nv) measured velocities / accelerations; missing ones come from
        :func:`differentiate` (filtered with ``cutoff`` Hz when given): qd and qdd from q, or qdd
        from the measured qd
    cutoff : float, Hz, low-pass cutoff of q before differentiating (None: no filter); the
        samples within :func:`edge_samples` of the ends are then dropped
    decimate : int, parallel filtering and decimation factor of W and tau (1: none)
    weighted : bool, Gautier's weighted least squares (else ordinary)
    base : "auto", "grouped", "qr" or a base-parameter object (:func:`choose_base`)
    exclude : kinds of per-dof parameters not in the data: any of "armature", "viscous",
        "coulomb", "offset" (base parameters made only of those are dropped)

    Returns
    -------
    Identification
    """
    from .regressor import regressor

    q, tau = np.asarray(q, dtype=float), np.asarray(tau, dtype=float)
    if q.ndim != 2 or q.shape[1] != model.nq or model.nq != model.nv:
        raise ShapeError(f"q must be (N, {model.nq}) for model '{model.name}' (one-dof joints), got {q.shape}")
    if tau.shape != (q.shape[0], model.nv):
        raise ShapeError(f"tau must be (N, {model.nv}) with N = {q.shape[0]} like q, got {tau.shape}")
    if qd is None or qdd is None:
        if t is None:
            raise InputError("times t are needed to differentiate q (or give qd and qdd)")
        t = np.asarray(t, dtype=float)
        if qd is None:
            q, qd, qdd2 = differentiate(t, q, cutoff)
        else:                                  # measured velocities: differentiate them once
            qd = np.asarray(qd, dtype=float)
            qd_f = lowpass(qd, sample_rate(t), cutoff) if cutoff is not None else qd
            qdd2 = np.gradient(qd_f, t, axis=0)
        qdd = qdd2 if qdd is None else np.asarray(qdd, dtype=float)
        e = edge_samples(sample_rate(t), cutoff)
        if e and q.shape[0] > 4 * e:
            q, qd, qdd, tau, t = q[e:-e], qd[e:-e], qdd[e:-e], tau[e:-e], t[e:-e]
    if t is None:
        t = np.arange(q.shape[0], dtype=float)
    t = np.asarray(t, dtype=float)
    names, expressions, G, columns, kind = choose_base(model, base)
    keep = _drop_excluded(model, G, exclude)
    names, expressions = [names[k] for k in keep], [expressions[k] for k in keep]
    G, columns = G[keep], columns[keep]
    W = regressor(model, q, qd, qdd)[..., columns]
    if decimate > 1:
        W, tau = parallel_decimate(W, tau, decimate)
        t = t[::int(decimate)][:tau.shape[0]]
    ls = weighted_least_squares(W, tau) if weighted else least_squares(W, tau)
    return Identification(model.name, names, expressions, ls.beta, ls.std, ls.rel_std, ls.cond, ls.sigma,
                          G, columns, t, tau, W @ ls.beta, W, ls.cov,
                          f"{'weighted' if weighted else 'ordinary'} least squares, {kind} base parameters")
