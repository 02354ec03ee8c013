"""The Gibbs-Appell equations in independent quasi-velocities.

Appell ("Traité de mécanique rationnelle", t. II; "Sur une forme générale des équations de la
dynamique", 1900): with ``S`` the acceleration energy of the whole system (as in the GAHA of
Mata et al., 2002; :func:`artidyn.dynamics.acceleration_energy`) written as a function of the
independent quasi-accelerations ``wdot_i`` (the constraints give the others,
``wdot = N wdot_i + wdot_0``)::

    dS / dwdot_i = Q_i,        Q_i = N^T G^T Q_app

``Q_app`` the applied generalized forces (torques, gravity, external wrenches, friction,
springs, non-ideal constraint work), ``G^T`` maps them onto the quasi-velocities and ``N^T`` onto
the independent ones. ``S`` is quadratic in ``wdot_i``: its gradient is taken by complex step
(exact to rounding), its Hessian (the reduced mass matrix, as GAHA builds M) as the differences
of gradients; then one linear solve. No multipliers (Appell's equations do not contain them).

This is the readable reference; the compiled route (:mod:`artidyn.kernels.formulations`) takes
the Hessian from the compiled GAHA and the gradient as its seed states it, ``dS/da = M a + C v``.
"""
import numpy as np

from ..dynamics.gaha import acceleration_energy

_H = 1e-30


def acceleration_energy_quasi(T, wdot):
    """``S(q, w, wdot)`` at the state of the :class:`~artidyn.analytical.system.Terms` ``T``
    (gravity excluded); ``wdot`` (nv,) or (K, nv), real or complex."""
    a = (np.asarray(wdot) - T.Bdot_v) @ T.G.T
    v = np.broadcast_to(T.v, a.shape)
    q = np.broadcast_to(T.q, a.shape[:-1] + (T.q.size,))
    return acceleration_energy(T.model, q, v, a)


def solve(T):
    ind, N, wdot0 = T.partition()
    k = ind.size
    # gradients at wdot_i = 0 and at each unit vector, all in one complex batch
    base = np.vstack([np.zeros(k), np.eye(k)])                             # (k + 1, k)
    probes = base[:, None, :] + 1j * _H * np.eye(k)[None]                  # (k + 1, k, k)
    wdots = wdot0 + probes.reshape(-1, k) @ N.T
    grad = np.imag(acceleration_energy_quasi(T, wdots)).reshape(k + 1, k) / _H
    g0, H = grad[0], (grad[1:] - grad[0]).T
    Q_i = N.T @ (T.G.T @ T.Q_app)
    wdot_i = np.linalg.solve(0.5 * (H + H.T), Q_i - g0)
    return N @ wdot_i + wdot0, None
