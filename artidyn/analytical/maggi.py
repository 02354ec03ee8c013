"""Maggi's equations: the dynamics projected on the null space of the constraints.

With ``N`` a basis of the kernel of ``A`` (``A N = 0``: the virtual displacements the
constraints allow; Maggi 1896, Neimark & Fufaev ch. III)::

    N^T (M a + h - tau - C) = 0,       A a = gamma

so ``a = a_p + N z`` with ``a_p`` the least-norm solution of ``A a = gamma`` and
``(N^T M N) z = N^T (tau + C - h - M a_p)``. The multipliers do not appear (Maggi's equations
eliminate them); the generalized constraint force is ``M a + h - tau``.
"""
import numpy as np


def solve(T, rank_tol=1e-10):
    import scipy.linalg

    from ..dynamics import crba

    M = crba(T.model, T.q)
    A, gamma = T.A, T.gamma
    rhs = T.tau + T.C - T.h
    if A.shape[0] == 0:
        return T.to_quasi(np.linalg.solve(M, rhs)), None
    N = scipy.linalg.null_space(A, rcond=rank_tol)
    a_p = np.linalg.lstsq(A, gamma, rcond=rank_tol)[0]
    z = np.linalg.solve(N.T @ M @ N, N.T @ (rhs - M @ a_p)) if N.shape[1] else np.zeros(0)
    return T.to_quasi(a_p + N @ z), None
