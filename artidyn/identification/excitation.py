"""Exciting trajectories for identification: finite Fourier series (Swevers, Ganseman, Tukel,
De Schutter & Van Brussel, "Optimal robot excitation and identification", IEEE Trans. Robotics
and Automation 13(5), 1997), optimised for the condition number of the base regressor.

Joint i, L harmonics of the fundamental pulsation w_f = 2 pi / T (periodic, so measurements can
be averaged over periods and the ends join smoothly)::

    q_i(t)   = q0_i + sum_l  a_il / (w_f l) sin(w_f l t) - b_il / (w_f l) cos(w_f l t)
    qd_i(t)  =        sum_l  a_il cos(w_f l t) + b_il sin(w_f l t)
    qdd_i(t) =        sum_l -a_il w_f l sin(w_f l t) + b_il w_f l cos(w_f l t)

The coefficients (a, b, q0) minimise ``cond(W_b)`` of the base regressor stacked over a time grid
(Gautier & Khalil 1992: the condition number bounds the sensitivity of the estimate to errors),
subject to the joint position, velocity, acceleration and torque limits on that grid. q0 is the
middle of each joint's range; any (a, b) is scaled to use ``margin`` of the tightest kinematic
limit (positions, velocities and accelerations are linear in (a, b)), the torque limits enter
as a penalty and a final shrink. L-BFGS-B (``scipy.optimize.minimize``, finite-difference
gradients) within a wall-clock budget; the best feasible point seen is kept.
"""
import time
from typing import NamedTuple

import numpy as np

from ..errors import InputError


class FourierTrajectory(NamedTuple):
    """A finite Fourier series per joint (module docstring)."""

    a: np.ndarray      # (nv, L)
    b: np.ndarray      # (nv, L)
    q0: np.ndarray     # (nv,)
    wf: float          # fundamental pulsation (rad/s); period 2 pi / wf

    @property
    def period(self):
        return 2 * np.pi / self.wf

    def __call__(self, t):
        """(q, qd, qdd), each (len(t), nv)."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        w = self.wf * np.arange(1, self.a.shape[1] + 1)            # (L,)
        s, c = np.sin(np.outer(t, w)), np.cos(np.outer(t, w))      # (N, L)
        q = self.q0 + (s / w) @ self.a.T - (c / w) @ self.b.T
        qd = c @ self.a.T + s @ self.b.T
        qdd = (-s * w) @ self.a.T + (c * w) @ self.b.T
        return q, qd, qdd


class ExcitationResult(NamedTuple):
    """Result of :func:`optimize_excitation`."""

    trajectory: FourierTrajectory
    cond_initial: float       # cond(W_b) of the initial (feasible) trajectory
    cond: float               # cond(W_b) of the returned one
    feasible: bool            # every limit holds on the grid
    violation: dict           # per kind, <= 1 when the limits hold: "qd", "qdd", "tau": max |x| / limit;
                              # "q": 1 + the largest excess beyond a position limit / the range
    t: np.ndarray             # the time grid
    evaluations: int
    message: str


def limits_of(model, q_min=None, q_max=None, qd_max=None, qdd_max=None, tau_max=None):
    """Joint limits: the given ones, else the model's (``lower``, ``upper``, ``velocity_limit``,
    ``effort_limit``; inf means no limit). Returns a dict of (nv,) arrays."""
    def arr(x, default):
        x = np.broadcast_to(np.asarray(default if x is None else x, dtype=float), (model.nv,)).copy()
        return x
    lim = {"q_min": arr(q_min, model.lower), "q_max": arr(q_max, model.upper),
           "qd_max": arr(qd_max, model.velocity_limit), "qdd_max": arr(qdd_max, np.inf),
           "tau_max": arr(tau_max, model.effort_limit)}
    if np.any(lim["q_min"] >= lim["q_max"]):
        k = int(np.flatnonzero(lim["q_min"] >= lim["q_max"])[0])
        raise InputError(f"joint '{dof_names(model)[k]}': position limits [{lim['q_min'][k]:g}, {lim['q_max'][k]:g}] leave no room to move")
    for key in ("qd_max", "qdd_max", "tau_max"):
        if np.any(lim[key] <= 0):
            raise InputError(f"{key} must be positive, got {lim[key].tolist()}")
    return lim


def dof_names(model):
    """One name per dof (the joint's name; ``name[k]`` for multi-dof joints)."""
    from .parameters import NB_BODY, NB_DOF, parameter_names
    return [n.rsplit(".", 1)[0] for n in parameter_names(model)[NB_BODY * model.nb::NB_DOF]]


class _Problem:
    """The optimisation problem on the coefficient direction x = (a, b) (q0 fixed).

    Positions (about q0), velocities and accelerations are linear in (a, b): every x is scaled
    by the largest factor that keeps them within ``margin`` of their limits, so only the torque
    limits remain as constraints (a quadratic penalty on their excess, checked at the end).
    """

    def __init__(self, model, columns, pi, t, L, wf, lim, q0, margin=0.95):
        self.model, self.columns, self.pi, self.t, self.L, self.wf, self.lim = model, columns, pi, t, L, wf, lim
        self.nv, self.q0, self.margin = model.nv, q0, margin
        self._x, self._val, self.evaluations = None, None, 0
        names = dof_names(model)
        room = np.minimum(lim["q_max"] - q0, q0 - lim["q_min"])
        for k in range(self.nv):
            if not (np.isfinite(room[k]) or np.isfinite(lim["qd_max"][k]) or np.isfinite(lim["qdd_max"][k])):
                raise InputError(f"joint '{names[k]}' has no position, velocity or acceleration limit: give "
                                 f"limits (q_min/q_max, qd_max or qdd_max) to bound its excitation")
        self.room = room

    def trajectory(self, x, shrink=1.0):
        n, L = self.nv, self.L
        traj = FourierTrajectory(x[:n * L].reshape(n, L), x[n * L:].reshape(n, L), self.q0, self.wf)
        q, qd, qdd = traj(self.t)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = max(np.nanmax(np.abs(q - self.q0).max(0) / self.room),
                        np.nanmax(np.abs(qd).max(0) / self.lim["qd_max"]),
                        np.nanmax(np.abs(qdd).max(0) / self.lim["qdd_max"]))
        scale = shrink * self.margin / ratio if ratio > 0 else 1.0
        return traj._replace(a=traj.a * scale, b=traj.b * scale)

    def evaluate(self, x, shrink=1.0):
        """(cond, torque ratio max |tau| / tau_max, violations per kind) of the scaled trajectory."""
        key = np.r_[x, shrink]
        if self._x is not None and np.array_equal(key, self._x):
            return self._val
        from .regressor import regressor
        self.evaluations += 1
        traj = self.trajectory(x, shrink)
        q, qd, qdd = traj(self.t)
        Y = regressor(self.model, q, qd, qdd)
        Wb = Y[..., self.columns].reshape(-1, len(self.columns))
        ev = np.linalg.eigvalsh(Wb.T @ Wb)
        cond = np.sqrt(ev[-1] / ev[0]) if ev[0] > 0 else np.inf
        lim = self.lim
        with np.errstate(divide="ignore", invalid="ignore"):
            viol = {"q": np.nanmax(np.maximum((q.max(0) - lim["q_max"]) / (lim["q_max"] - lim["q_min"]),
                                              (lim["q_min"] - q.min(0)) / (lim["q_max"] - lim["q_min"])) + 1),
                    "qd": np.nanmax(np.abs(qd).max(0) / lim["qd_max"]),
                    "qdd": np.nanmax(np.abs(qdd).max(0) / lim["qdd_max"]),
                    "tau": np.nanmax(np.abs(Y @ self.pi).max(0) / lim["tau_max"])}
        viol = {k: float(np.nan_to_num(v, nan=0.0)) for k, v in viol.items()}
        self._x, self._val = key, (float(cond), viol["tau"], viol)
        return self._val

    def objective(self, x):
        cond, tau_ratio, _ = self.evaluate(x)
        return np.log(cond) + 100.0 * max(0.0, tau_ratio - 1.0) ** 2

    def feasible_shrink(self, x):
        """The largest shrink factor in (0, 1] meeting the torque limits (bisection)."""
        if self.evaluate(x)[1] <= 1.0:
            return 1.0
        lo, hi = 0.0, 1.0
        for _ in range(30):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if self.evaluate(x, mid)[1] <= 1.0 else (lo, mid)
        if lo == 0.0:
            raise InputError("no feasible excitation trajectory: the torque limits are exceeded even by "
                             "small motions about the middle of the joint ranges (gravity?)")
        return lo


def optimize_excitation(model, n_harmonics=5, period=10.0, n_samples=100, limits=None, base="auto",
                        max_time=10.0, maxiter=100, margin=0.95, rng=0):
    """A Fourier excitation trajectory with a small condition number of the base regressor.

    Parameters
    ----------
    model : Model (its parameters give the torques checked against the torque limits)
    n_harmonics : L;  period : T (s), w_f = 2 pi / T
    n_samples : time grid over one period on which cond and the limits are evaluated
    limits : dict, optional, keys of :func:`limits_of` (q_min, q_max, qd_max, qdd_max, tau_max);
        missing ones come from the model (its infinite limits constrain nothing)
    base : base parameters (see :func:`~.estimation.choose_base`)
    max_time : wall-clock budget (s) of the optimiser; maxiter : its iteration limit
    margin : fraction of the position room / velocity / acceleration limits used (scaling)
    rng : seed of the random initial coefficients

    Returns
    -------
    ExcitationResult (trajectory, cond_initial, cond, feasible, violation, t, evaluations, message)
    """
    import scipy.optimize

    from .estimation import choose_base
    from .parameters import model_to_parameters

    rng = np.random.default_rng(rng)
    lim = limits_of(model, **(limits or {}))
    _, _, _, columns, _ = choose_base(model, base)
    t = np.linspace(0.0, period, int(n_samples), endpoint=False)
    q0 = np.where(np.isfinite(lim["q_min"] + lim["q_max"]), 0.5 * (lim["q_min"] + lim["q_max"]), 0.0)
    problem = _Problem(model, columns, model_to_parameters(model), t, int(n_harmonics), 2 * np.pi / period,
                       lim, q0, margin)
    x0 = rng.standard_normal(2 * model.nv * int(n_harmonics))
    shrink0 = problem.feasible_shrink(x0)
    cond0 = problem.evaluate(x0, shrink0)[0]
    best = {"x": x0, "cond": cond0 if shrink0 == 1.0 else np.inf}
    deadline = time.perf_counter() + max_time

    class _Stop(Exception):
        pass

    def objective(x):
        f = problem.objective(x)
        cond, tau_ratio, _ = problem.evaluate(x)
        if tau_ratio <= 1.0 and cond < best["cond"]:
            best.update(x=x.copy(), cond=cond)
        if time.perf_counter() > deadline:
            raise _Stop
        return f

    message = "converged"
    try:
        res = scipy.optimize.minimize(objective, x0, method="L-BFGS-B",
                                      options={"maxiter": int(maxiter), "maxfun": 100 * int(maxiter)})
        message = res.message
    except _Stop:
        message = f"time budget of {max_time:g} s reached"
    if not np.isfinite(best["cond"]):           # nothing met the torque limits unshrunk: shrink the initial one
        best["x"] = x0
    shrink = problem.feasible_shrink(best["x"])
    cond, _, violation = problem.evaluate(best["x"], shrink)
    return ExcitationResult(problem.trajectory(best["x"], shrink), float(cond0), float(cond),
                            max(violation.values()) <= 1.0 + 1e-9, violation, t, problem.evaluations, str(message))
