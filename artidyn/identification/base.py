"""Base parameters: the identifiable linear combinations of the standard parameters pi.

Gautier (1990), Khalil & Dombre ch. 12.3, numerical method. Stack the regressor over random
states (``W``, (N nv) x p) and factor it by QR with column pivoting, ``W P = Q R``::

    W P = [W_1 W_2],  R = [[R11, R12], [0, R22]],   |R22| ~ 0 (rank r)

The r columns ``W_1`` (the first r of the permutation) are independent; the others are
combinations of them, ``W_2 = W_1 K`` with ``K = R11^-1 R12``. Hence for every state

    Y pi = Y_1 pi_1 + Y_2 pi_2 = Y_1 (pi_1 + K pi_2) = Y_1 beta,     beta = G pi

with the grouping matrix ``G`` (r x p): ``G[:, P[:r]] = 1``, ``G[:, P[r:]] = K``.

Rank rule: r = the number of diagonal entries of R with ``|R_kk| > tol``, default
``tol = max(W.shape) * eps * |R_00|`` (the rule of ``numpy.linalg.matrix_rank`` and of Gautier);
``R_diag`` is returned so the gap can be inspected. Entries of K below ``1e-10 max(1, |K|)``
are set to zero (they are round-off: structurally zero in exact arithmetic).

Which columns are kept is the pivoting's choice (largest remaining norm first), not Khalil's
symbolic rule (which keeps the parameters of the lowest-numbered link); the span of beta is the
same.
"""
from typing import NamedTuple

import numpy as np

from ..configuration import random_configuration
from .parameters import n_parameters, parameter_names
from .regressor import _regressor


class BaseParameters(NamedTuple):
    """Result of :func:`base_parameters` (p standard parameters, r base parameters)."""

    rank: int                 # r
    independent: np.ndarray   # (r,) indices in pi of the kept columns, P[:r]
    dependent: np.ndarray     # (p - r,) indices of the others, P[r:] (zero columns included)
    permutation: np.ndarray   # (p,) the QR column permutation P
    K: np.ndarray             # (r, p - r): pi_dependent regroups into beta by K
    G: np.ndarray             # (r, p): beta = G pi
    names: list               # (r,) readable beta_k, e.g. "link1.ZZ + 1*link2.m + 1*joint1.Ia"
    tol: float                # the rank tolerance used
    R_diag: np.ndarray        # (p,) |R_kk|, the gap at r shows the rank decision

    def beta(self, pi):
        """Base parameters beta = G pi of a standard parameter vector (or (M, p) batch)."""
        return np.asarray(pi) @ self.G.T

    def regressor(self, Y):
        """Base regressor Y_1 = Y[..., independent]: Y_1 @ beta == Y @ pi."""
        return np.asarray(Y)[..., self.independent]


def random_states(model, n_samples, rng=None):
    """(q, v, a) batches of n_samples random states: q from :func:`random_configuration`, v and
    a standard normal."""
    rng = np.random.default_rng(rng)
    q = random_configuration(model, rng, size=n_samples)
    return q, rng.standard_normal((n_samples, model.nv)), rng.standard_normal((n_samples, model.nv))


def _names(names, independent, dependent, K):
    out = []
    for k, c in enumerate(independent):
        terms = [names[c]] + [f"{K[k, j]:+.6g}*{names[d]}" for j, d in enumerate(dependent) if K[k, j] != 0]
        out.append(" ".join(terms))
    return out


def base_parameters(model, n_samples=None, rng=None, tol=None):
    """The base parameters of a model by QR with column pivoting of a stacked regressor.

    Parameters
    ----------
    model : Model
    n_samples : int, optional
        random states to stack (default ``ceil(3 p / nv) + 20``, so W has about 3x more rows
        than columns)
    rng : seed or numpy Generator
    tol : float, optional
        rank tolerance on |R_kk| (default ``max(W.shape) * eps * |R_00|``, module docstring)

    Returns
    -------
    BaseParameters (rank, independent, dependent, permutation, K, G, names, tol, R_diag).
    ``Y[..., independent] @ (G @ pi) == Y @ pi`` for every state.
    """
    import scipy.linalg

    p = n_parameters(model)
    if n_samples is None:
        n_samples = int(np.ceil(3 * p / max(model.nv, 1))) + 20
    q, v, a = random_states(model, n_samples, rng)
    W = _regressor(model, q, v, a).reshape(-1, p)
    _, R, P = scipy.linalg.qr(W, mode="economic", pivoting=True)
    R_diag = np.zeros(p)
    d = np.abs(np.diag(R))
    R_diag[:d.size] = d
    if tol is None:
        tol = max(W.shape) * np.finfo(float).eps * (d[0] if d.size else 0.0)
    r = int(np.sum(d > tol))
    K = scipy.linalg.solve_triangular(R[:r, :r], R[:r, r:]) if r < p else np.zeros((r, 0))
    K[np.abs(K) < 1e-10 * max(1.0, np.abs(K).max(initial=0.0))] = 0.0
    independent, dependent = P[:r], P[r:]
    G = np.zeros((r, p))
    G[np.arange(r), independent] = 1.0
    G[:, dependent] = K
    return BaseParameters(r, independent, dependent, P, K, G,
                          _names(parameter_names(model), independent, dependent, K), float(tol), R_diag)
