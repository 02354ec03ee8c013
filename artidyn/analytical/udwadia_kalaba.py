"""The Udwadia-Kalaba equation (Udwadia & Kalaba, "A new perspective on constrained motion",
Proc. R. Soc. Lond. A 439, 1992; non-ideal constraints: "On the foundations of analytical
dynamics", Int. J. Non-Linear Mech. 37, 2002)::

    a = a_f + M^-1/2 (A M^-1/2)^+ (gamma - A a_f) + M^-1/2 (I - P^+ P) M^-1/2 C,    P = A M^-1/2

with ``a_f = M^-1 (tau - h)`` the unconstrained acceleration, ``^+`` the Moore-Penrose inverse
(so redundant, even inconsistent-in-form but consistent constraints are fine) and ``C`` the
non-ideal term (the work of the constraint forces on virtual displacements, zero for ideal
constraints). The ideal constraint force is ``M^1/2 P^+ (gamma - A a_f)``; the multipliers
reported are the least-norm ``lambda`` with ``A^T lambda`` equal to it.
"""
import numpy as np


def solve(T, rank_tol=1e-12):
    from ..dynamics import crba

    M = crba(T.model, T.q)
    w, U = np.linalg.eigh(M)
    if not np.all(w > 0):
        raise np.linalg.LinAlgError("the mass matrix is not positive definite")
    M_half, M_mhalf = (U * np.sqrt(w)) @ U.T, (U / np.sqrt(w)) @ U.T
    a_f = M_mhalf @ (M_mhalf @ (T.tau - T.h))
    A, gamma = T.A, T.gamma
    if A.shape[0] == 0:
        return T.to_quasi(a_f + M_mhalf @ (M_mhalf @ T.C)), np.zeros(0)
    P = A @ M_mhalf
    P_pinv = np.linalg.pinv(P, rcond=rank_tol)
    Qc_ideal = M_half @ (P_pinv @ (gamma - A @ a_f))
    Qc_nonideal = M_half @ ((np.eye(M.shape[0]) - P_pinv @ P) @ (M_mhalf @ T.C))
    a = a_f + M_mhalf @ (M_mhalf @ (Qc_ideal + Qc_nonideal))
    lam = np.linalg.lstsq(A.T, Qc_ideal, rcond=None)[0]
    return T.to_quasi(a), lam
