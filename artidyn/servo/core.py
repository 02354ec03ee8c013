"""The servo-constrained equations at one state (Appell, "Traité de mécanique rationnelle",
t. II, ch. XXIII, the "liaisons d'asservissement"; Béghin's servo-motors)::

    M qdd + h - Q = A^T Lambda + D^T mu,      A qdd = gamma_A,      E qdd = gamma_E

``A``: the first-kind (ideal, e.g. rolling) relations, whose reactions do no work; ``E``: the r
servo relations (differentiated to the acceleration level); ``D``: the j directions on which
the servo forces act, the rows of ``D delta q = 0`` being the virtual displacements on which
they do no work. Ordinary ideal constraints are the case ``D = E``. The system is not symmetric
(``D`` differs from ``E``): it is reduced on ``N``, a basis of the kernel of ``A``,
``qdd = qdd_p + N z``, to

    W mu = gamma_E - E qdd_0,      W = E N (N^T M N)^-1 N^T D^T   (r x j)

with ``qdd_0`` the motion without servo forces. **Determined** when ``rank W = r = j``;
**impossible** when the servo relations cannot all be met (``W mu = rhs`` has no solution: more
independent relations than servo forces can act on); **indeterminate** when they can but ``mu``
is not unique (fewer relations than forces, or dependent directions). The rank is taken, not
the counts.

The same motion without multipliers (:func:`gibbs_appell`): Appell's equations in the
displacements on which neither the servo forces nor the first-kind reactions work.
"""
from typing import NamedTuple

import numpy as np
import scipy.linalg

DETERMINED, IMPOSSIBLE, INDETERMINATE = "determined", "impossible", "indeterminate"


class ServoSolution(NamedTuple):
    """``qdd`` (n,), ``mu`` (j,) the servo forces, ``Lambda`` (p,) the first-kind multipliers,
    ``status``, ``rank`` of W, ``r`` relations, ``j`` directions, ``residual`` of the servo
    relations at the acceleration level, and ``W``."""

    qdd: np.ndarray
    mu: np.ndarray
    Lambda: np.ndarray
    status: str
    rank: int
    r: int
    j: int
    residual: float
    W: np.ndarray

    def why(self):
        """A sentence that says what the status means here, with the ranks."""
        if self.status == DETERMINED:
            return f"determined: rank W = r = j = {self.rank}"
        if self.status == IMPOSSIBLE:
            return (f"impossible: the {self.r} servo relations cannot all be realised by {self.j} servo "
                    f"force(s) (rank W = {self.rank} < r = {self.r}, residual {self.residual:.3g})")
        return (f"indeterminate: the servo forces are not unique (rank W = {self.rank} < j = {self.j}; r = {self.r}); "
                f"the motion {'is' if self.rank == self.r else 'may not be'} determined")


def status_of(W, rhs, rank_tol=1e-10):
    """(status, rank, mu least-norm, residual) of ``W mu = rhs``."""
    r, j = W.shape
    if r == 0 and j == 0:
        return DETERMINED, 0, np.zeros(0), 0.0
    s = np.linalg.svd(W, compute_uv=False) if W.size else np.zeros(0)
    rank = int(np.sum(s > rank_tol * max(s[0] if s.size else 0.0, 1e-300))) if s.size else 0
    mu = np.linalg.lstsq(W, rhs, rcond=rank_tol)[0] if W.size else np.zeros(j)
    res = float(np.max(np.abs(W @ mu - rhs), initial=0.0))
    scale = 1.0 + float(np.max(np.abs(rhs), initial=0.0))
    if res > 1e-8 * scale:
        return IMPOSSIBLE, rank, mu, res
    if rank < j:
        return INDETERMINATE, rank, mu, res
    return DETERMINED, rank, mu, res


def solve(M, h_minus_Q, E, gamma_E, D, A=None, gamma_A=None, rank_tol=1e-10):
    """The accelerations, servo forces and first-kind multipliers at one state (module
    docstring). ``h_minus_Q``: ``h - Q`` (n,); ``E`` (r, n), ``D`` (j, n), ``A`` (p, n)."""
    n = M.shape[0]
    A = np.zeros((0, n)) if A is None else np.atleast_2d(np.asarray(A, dtype=float)).reshape(-1, n)
    gamma_A = np.zeros(A.shape[0]) if gamma_A is None else np.asarray(gamma_A, dtype=float)
    E = np.asarray(E, dtype=float).reshape(-1, n)
    D = np.asarray(D, dtype=float).reshape(-1, n)
    f = -np.asarray(h_minus_Q, dtype=float)
    if A.shape[0]:
        N = scipy.linalg.null_space(A, rcond=rank_tol)
        qdd_p = np.linalg.lstsq(A, gamma_A, rcond=rank_tol)[0]
    else:
        N, qdd_p = np.eye(n), np.zeros(n)
    K = N.T @ M @ N
    # qdd = qdd_p + N z,  K z = N^T (f - M qdd_p) + N^T D^T mu
    z0 = np.linalg.solve(K, N.T @ (f - M @ qdd_p))
    Z = np.linalg.solve(K, N.T @ D.T)                    # dz / dmu
    qdd0 = qdd_p + N @ z0
    W = E @ N @ Z
    status, rank, mu, res = status_of(W, gamma_E - E @ qdd0, rank_tol)
    qdd = qdd0 + N @ (Z @ mu)
    Lam = np.linalg.lstsq(A.T, M @ qdd - f - D.T @ mu, rcond=None)[0] if A.shape[0] else np.zeros(0)
    return ServoSolution(qdd, mu, Lam, status, rank, E.shape[0], D.shape[0], res, W)


def gibbs_appell(H, g_minus_Q, E, gamma_E, D, A=None, gamma_A=None, rank_tol=1e-10):
    """Appell's servo equations without multipliers (Appell, "Traité de mécanique rationnelle",
    t. II, the equations of Gibbs-Appell extended to servo-constraints).

    ``dS/dqdd = H qdd + g_S`` is the gradient of the acceleration energy, ``Q`` the given forces,
    ``g_minus_Q = g_S - Q``. The servo forces do no work on the displacements with ``D delta q =
    0``, the first-kind reactions none on those with ``A delta q = 0``: on a basis ``N_D`` of
    both, ``N_D^T (dS/dqdd - Q) = 0`` (n - j - p equations, no multiplier), completed by the
    relations ``A qdd = gamma_A`` (p) and ``E qdd = gamma_E`` (r). Square when r = j and the rows
    of ``[D; A]`` are independent: regular exactly when the problem is determined; the forces
    then follow from the residual, ``H qdd + g_S - Q = D^T mu + A^T Lambda``. Otherwise (r != j,
    dependent directions, a singular system) the status is :func:`solve`'s. ``W`` of the
    returned :class:`ServoSolution` is the multiplier-free system matrix (n x n)."""
    n = H.shape[0]
    A = np.zeros((0, n)) if A is None else np.atleast_2d(np.asarray(A, dtype=float)).reshape(-1, n)
    gamma_A = np.zeros(A.shape[0]) if gamma_A is None else np.asarray(gamma_A, dtype=float).reshape(-1)
    E = np.asarray(E, dtype=float).reshape(-1, n)
    D = np.asarray(D, dtype=float).reshape(-1, n)
    g = np.asarray(g_minus_Q, dtype=float).reshape(n)
    gamma_E = np.asarray(gamma_E, dtype=float).reshape(-1)
    DA = np.vstack([D, A])
    N_D = scipy.linalg.null_space(DA, rcond=rank_tol) if DA.shape[0] else np.eye(n)
    K = np.vstack([N_D.T @ H, A, E])
    y = np.concatenate([-N_D.T @ g, gamma_A, gamma_E])
    s = np.linalg.svd(K, compute_uv=False) if K.shape[0] == n else np.zeros(0)
    if K.shape[0] != n or s[-1] <= rank_tol * s[0]:
        return solve(H, g, E, gamma_E, D, A, gamma_A, rank_tol)
    qdd = np.linalg.solve(K, y)
    forces = np.linalg.lstsq(DA.T, H @ qdd + g, rcond=None)[0]
    j = D.shape[0]
    res = float(np.max(np.abs(E @ qdd - gamma_E), initial=0.0))
    return ServoSolution(qdd, forces[:j], forces[j:], DETERMINED, E.shape[0], E.shape[0], j, res, K)
