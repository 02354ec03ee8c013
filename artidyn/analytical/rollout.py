"""A readable time loop for any formulation: the same motion from each of them.

Classical Runge-Kutta in the chart of the configuration manifold (RKMK4, the model's velocities
as state), each stage's accelerations from :func:`~artidyn.analytical.accelerations` with the
chosen method; after each step the state is projected back onto the constraints (the rows with
a position form, then ``A v + b = 0``, mass-weighted: :func:`artidyn.constraints.projection.project`,
as the engine does). The drift before each projection is recorded. For long runs use
:func:`artidyn.simulate` with ``constraints=system.constraints`` (compiled where it applies);
this loop is for comparing formulations and for quasi-velocity systems.
"""
from typing import NamedTuple

import numpy as np

from ..configuration import rkmk4
from ..constraints.projection import project as _project
from ..constraints.solve import constraint_rows
from ..errors import InputError
from .results import accelerations


class Rollout(NamedTuple):
    """``t`` (S,), ``q`` (S, nq), ``v`` (S, nv), ``w`` (S, nv) the quasi-velocities, ``drift``
    (S, 2): max |phi| and max |A v + b| before each projection."""

    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    w: np.ndarray
    drift: np.ndarray


def rollout(system, q0, v0, t_final, dt, method="maggi", tau=None, project=True):
    """Integrate ``system`` from ``(q0, v0)`` with the formulation ``method``.

    ``tau``: None (zero), an (nv,) array or a function ``tau(t, q, v)``. Returns a :class:`Rollout`.
    """
    model = system.model
    if not (np.isfinite(dt) and dt > 0 and np.isfinite(t_final) and t_final > 0):
        raise InputError(f"rollout: dt and t_final must be positive, got dt={dt!r}, t_final={t_final!r}")
    n = int(np.ceil(t_final / dt - 1e-9))
    tau_of = tau if callable(tau) else (lambda t, q, v, c=np.zeros(model.nv) if tau is None else
                                        np.asarray(tau, dtype=float): c)

    def f(t, q, v):
        return accelerations(system, q, v, tau_of(t, q, v), method=method, t=t).dv

    q, v = np.asarray(q0, dtype=float), np.asarray(v0, dtype=float)
    if project:
        q, v, _ = _project(model, q, v, system.constraints, t=0.0)
    T, Qs, Vs, D = [0.0], [q], [v], [np.zeros(2)]
    for k in range(n):
        t = k * dt
        q, v = rkmk4(model, f, t, q, v, dt)
        r = constraint_rows(model, q, v, system.constraints, t + dt)
        D.append([float(np.max(np.abs(r.phi), initial=0.0)), float(np.max(np.abs(r.J @ v + r.b), initial=0.0))])
        if project:
            q, v, _ = _project(model, q, v, system.constraints, t=t + dt)
        T.append(t + dt)
        Qs.append(q)
        Vs.append(v)
    Qs, Vs = np.array(Qs), np.array(Vs)
    W = np.array([system.quasi_velocities(qq, vv) for qq, vv in zip(Qs, Vs)])
    return Rollout(np.array(T), Qs, Vs, W, np.array(D))
