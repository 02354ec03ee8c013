"""Lagrange's equations with multipliers (the KKT system), the reference the others are held to.

J. Reuss, "Modélisation des robots" (French Wikipedia draft, 2013), "Équations avec contraintes"::

    M a + h = tau + C + A^T lambda,        A a = gamma

solved whole (LU; least squares when the constraints are redundant: the motion is unique, the
multipliers least-norm). Valid for nonholonomic constraints too when they are ideal (the
multipliers are then not those of a Lagrangian with constraints but of d'Alembert's principle).
"""
import numpy as np


def solve(T, rank_tol=1e-10):
    """``(wdot, multipliers)`` from :class:`~artidyn.analytical.system.Terms`."""
    M = _mass(T)
    A, gamma = T.A, T.gamma
    n, m = M.shape[0], A.shape[0]
    rhs = T.tau + T.C - T.h
    if m == 0:
        return T.to_quasi(np.linalg.solve(M, rhs)), np.zeros(0)
    K = np.block([[M, A.T], [A, np.zeros((m, m))]])
    y = np.concatenate([rhs, gamma])
    redundant = np.linalg.matrix_rank(A, tol=rank_tol * max(np.linalg.norm(A, 2), 1e-300)) < m
    x = np.linalg.lstsq(K, y, rcond=None)[0] if redundant else np.linalg.solve(K, y)
    return T.to_quasi(x[:n]), -x[n:]


def _mass(T):
    from ..dynamics import crba
    return crba(T.model, T.q)
