"""Reference motions: quintic point-to-point trajectories, and reading trajectory files.

The quintic ("minimum jerk" profile) goes from rest to rest::

    s(u) = 10 u^3 - 15 u^4 + 6 u^5,   u = t / T in [0, 1]
    q(t) = q0 + s(u) (q1 - q0),  qd = s'(u) (q1 - q0) / T,  qdd = s''(u) (q1 - q0) / T^2

with zero velocity and acceleration at both ends; before 0 and after T the motion holds still.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import as_q, difference, integrate
from ..errors import InputError, ShapeError, as_real, check_number

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


def _profile(T, t):
    """s, ds/dt, d2s/dt2 of the quintic time scaling at times ``t`` (clamped to [0, T])."""
    T = check_number(T, "quintic: the duration T (seconds)", positive=True)
    t = as_real(t, "quintic: t", "a time or an array of times (seconds)")
    u = np.clip(t / T, 0.0, 1.0)
    inside = (t > 0) & (t < T)
    s = u**3 * (10 - 15 * u + 6 * u**2)
    ds = np.where(inside, 30 * u**2 * (1 - u) ** 2 / T, 0.0)
    dds = np.where(inside, 60 * u * (1 - u) * (1 - 2 * u) / T**2, 0.0)
    return s, ds, dds


def quintic(q0: ArrayLike, q1: ArrayLike, T: float, t: ArrayLike) -> tuple[Array, Array, Array]:
    """Rest-to-rest quintic from ``q0`` to ``q1`` in ``T`` seconds, evaluated at ``t``.

    Parameters
    ----------
    q0, q1 : float or array (n,)
        Start and goal (vectors: joint angles, positions).
    T : float
        Duration (s).
    t : float or array (M,)
        Times (s); values outside [0, T] give the end points at rest.

    Returns
    -------
    q, qd, qdd : arrays of shape ``t.shape + q0.shape``
    """
    q0 = as_real(q0, "quintic: q0", "a number or an array of numbers")
    q1 = as_real(q1, "quintic: q1", "a number or an array of numbers")
    if q0.shape != q1.shape:
        raise ShapeError(f"quintic: q0 has shape {q0.shape} and q1 {q1.shape}; they must match")
    s, ds, dds = _profile(T, t)
    d = q1 - q0
    ex = (...,) + (None,) * d.ndim
    return q0 + s[ex] * d, ds[ex] * d, dds[ex] * d


def quintic_motion(model: Model, q0: ArrayLike, q1: ArrayLike, T: float,
                   t: ArrayLike) -> tuple[Array, Array, Array]:
    """Quintic from ``q0`` to ``q1`` on the configuration manifold of ``model``.

    ``q(t) = integrate(q0, s(t) d)`` with ``d = difference(q0, q1)``; the velocity ``s'(t) d`` and
    acceleration ``s''(t) d`` are exact for every joint type (for spherical and free joints the
    motion is a one-parameter subgroup, whose body velocity is constant in direction).

    Returns
    -------
    q : (M, nq) (or (nq,) for a scalar t), v, a : (M, nv) (or (nv,))
    """
    d = difference(model, q0, q1)
    if d.ndim != 1:
        raise ShapeError("quintic_motion: q0 and q1 must be single configurations (nq,)")
    s, ds, dds = _profile(T, t)
    single = np.ndim(t) == 0
    s, ds, dds = np.atleast_1d(s), np.atleast_1d(ds), np.atleast_1d(dds)
    q = integrate(model, np.asarray(q0, dtype=float)[None], s[:, None] * d)
    v, a = ds[:, None] * d, dds[:, None] * d
    return (q[0], v[0], a[0]) if single else (q, v, a)


def velocities_from_positions(model: Model, t: ArrayLike, q: ArrayLike) -> tuple[Array, Array]:
    """Velocities and accelerations of a sampled trajectory by finite differences on the manifold.

    ``v`` at interior samples is the second-order central estimate built from
    ``difference(q_k, q_k+1) / (t_k+1 - t_k)``; ``a = np.gradient(v, t)``.
    """
    t = np.asarray(t, dtype=float)
    if t.size < 3 or np.any(np.diff(t) <= 0):
        raise InputError("a trajectory needs at least 3 samples with increasing times to differentiate")
    h = np.diff(t)
    mid = difference(model, q[:-1], q[1:]) / h[:, None]                   # velocities between samples
    v = np.empty((t.size, model.nv))
    w0, w1 = h[1:, None], h[:-1, None]
    v[1:-1] = (mid[:-1] * w0 + mid[1:] * w1) / (w0 + w1)                   # weighted central difference
    v[0], v[-1] = 2 * mid[0] - v[1], 2 * mid[-1] - v[-2]
    return v, np.gradient(v, t, axis=0)


def read_trajectory_csv(model, path):
    """(t, q, v or None, a or None) from a CSV with a header row.

    Columns: ``t``, then configuration columns named ``q_<coordinate>`` (as written by
    :meth:`SimulationResult.to_csv`) or, for one-dof joints, the bare joint name; optional
    ``v_<coordinate>`` and ``a_<coordinate>`` columns. Coordinates are matched by name, in any order.
    """
    import difflib

    from ..errors import NameNotFound
    from .setup import coordinate_names

    with open(path) as fh:
        header = [h.strip() for h in fh.readline().strip().split(",")]
    try:
        data = np.atleast_2d(np.loadtxt(path, delimiter=",", skiprows=1))
    except ValueError as exc:
        raise InputError(f"{path}: cannot read numbers ({exc})") from None
    if "t" not in header:
        raise InputError(f"{path}: no 't' column (columns: {', '.join(header)})")
    col = {c: k for k, c in enumerate(header)}
    if data.shape[1] != len(header):
        raise InputError(f"{path}: {len(header)} column names but {data.shape[1]} values per row")

    def gather(prefix, names, required):
        keys = [f"{prefix}_{n}" for n in names]
        if prefix == "q" and not any(k in col for k in keys):
            keys = names  # bare joint names
        found = [k in col for k in keys]
        if not any(found) and not required:
            return None
        if not all(found):
            missing = names[found.index(False)]
            close = difflib.get_close_matches(missing, header, n=3, cutoff=0.4)
            hint = (f"; did you mean {', '.join(repr(c) for c in close)}?" if close
                    else f"; columns: {', '.join(header)}")
            raise NameNotFound(f"{path}: no column for coordinate '{missing}' of model '{model.name}' "
                               f"(expected '{prefix}_{missing}'{' or the bare name' if prefix == 'q' else ''}){hint}")
        return data[:, [col[k] for k in keys]]

    t = data[:, col["t"]]
    q, _ = as_q(model, gather("q", coordinate_names(model, "q"), True), f"q in {path}")
    v_names = coordinate_names(model, "v")
    return t, q, gather("v", v_names, False), gather("a", v_names, False)
