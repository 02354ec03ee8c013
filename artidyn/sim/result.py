"""Simulation results: arrays over time, energy, CSV / NPZ files and plots.

Array layout: (for a batch of runs) the run axis first, then time, then the coordinates, like
every batched function of artidyn and ``mujoco.rollout``::

    t (S,)    q ([N,] S, nq)    v, a, tau ([N,] S, nv)    energy.* ([N,] S)

CSV layout: one row per time (and run), columns ``t``, [``run``], ``q_<name>`` ...,
``v_<name>`` ..., ``a_<name>`` ..., ``tau_<name>`` ..., ``kinetic``, ``potential``, ``total``,
with the coordinate names of :func:`artidyn.sim.setup.coordinate_names` (``shoulder``,
``root_joint.qw`` ...). Numbers are written with 17 significant digits (exact round trip).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Optional

import numpy as np

from ..errors import InputError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from os import PathLike
    from typing import Any

    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

    from .._typing import Array


class Energy(NamedTuple):
    """Kinetic, potential (gravity) and total mechanical energy (J) over time."""

    kinetic: np.ndarray
    potential: np.ndarray
    total: np.ndarray


class JointLimitWarning(UserWarning):
    """A simulated joint went past its position limit (limits are not enforced yet)."""


class LimitEvent(NamedTuple):
    """A joint leaving its position range during a simulation (limits are not enforced yet)."""

    joint: str
    time: float
    value: float
    limit: float
    side: str                    # "lower" or "upper"
    run: Optional[int] = None    # the run of a batch


_FIELDS = ("q", "v", "a", "tau")


class SimulationResult:
    """Trajectory of a simulation (see the module docstring for shapes)."""

    def __init__(self, t: ArrayLike, q: ArrayLike, v: ArrayLike, a: ArrayLike | None, tau: ArrayLike | None,
                 energy: Sequence[ArrayLike] | None, model_name: str = "", q_names: Sequence[str] | None = None,
                 v_names: Sequence[str] | None = None, method: str = "", dt: float | None = None,
                 limit_events: Sequence[LimitEvent] = (), stats: dict[str, Any] | None = None,
                 wall_time: float | None = None, conservative: bool | None = None) -> None:
        self.t = np.asarray(t, dtype=float)
        self.q, self.v, self.a, self.tau = (None if x is None else np.asarray(x, dtype=float) for x in (q, v, a, tau))
        self.energy = None if energy is None else Energy(*(np.asarray(e, dtype=float) for e in energy))
        self.model_name = model_name
        self.q_names = list(q_names) if q_names is not None else [f"{k}" for k in range(self.q.shape[-1])]
        self.v_names = list(v_names) if v_names is not None else [f"{k}" for k in range(self.v.shape[-1])]
        self.method = method
        self.dt = float(dt) if dt is not None else (float(self.t[1] - self.t[0]) if self.t.size > 1 else 0.0)
        self.limit_events = list(limit_events)
        self.stats = dict(stats or {})
        self.wall_time = wall_time
        self.conservative = conservative

    # --- summaries -----------------------------------------------------------------------------
    @property
    def n_steps(self):
        return self.t.size - 1

    @property
    def batch(self):
        """Number of runs, or None for a single run."""
        return self.q.shape[0] if self.q.ndim == 3 else None

    def energy_drift(self) -> float | Array:
        """Largest ``|E(t) - E(0)|`` divided by the largest kinetic energy of the run ((N,) for a batch).

        The kinetic energy is the scale of the energy exchanged, independent of the zero level of
        the potential. Meaningful for runs without actuation, friction or external forces.
        """
        if self.energy is None:
            raise InputError("energy_drift: the energies were not recorded (record=... without 'energy')")
        E = self.energy.total
        scale = np.maximum(np.max(np.abs(self.energy.kinetic), axis=-1), np.finfo(float).tiny)
        return np.max(np.abs(E - E[..., :1]), axis=-1) / scale

    def __repr__(self):
        runs = f", {self.batch} runs" if self.batch else ""
        steps = (f"{self.t.size} samples" if self.method == "dopri5" else f"{self.n_steps} samples every "
                 f"{self.dt:.3g} s")
        return (f"SimulationResult(model '{self.model_name}', {steps} to t = {self.t[-1]:.6g} s{runs}, "
                f"method '{self.method}')")

    def summary(self) -> str:
        """A few lines: samples, method, wall time, steps, energy error, limit crossings."""
        lines = [repr(self)]
        if self.wall_time is not None:
            lines.append(f"wall time {self.wall_time:.4g} s")
        for key in ("accepted_steps", "rejected_steps", "dynamics_evaluations"):
            if key in self.stats:
                lines.append(f"{key.replace('_', ' ')}: {self.stats[key]}")
        if self.limit_events:
            lines.append(f"{len(self.limit_events)} joint-limit crossing(s): " + ", ".join(
                f"{e.joint} ({e.side}) at t = {e.time:.4g} s" for e in self.limit_events[:5]))
        return "\n".join(lines)

    # --- files ---------------------------------------------------------------------------------
    def columns(self) -> list[str]:
        """CSV column names."""
        cols = ["t"] + (["run"] if self.batch else [])
        for field in _FIELDS:
            if getattr(self, field) is not None:
                names = self.q_names if field == "q" else self.v_names
                cols += [f"{field}_{n}" for n in names]
        return cols + (list(Energy._fields) if self.energy is not None else [])

    def table(self) -> Array:
        """The CSV rows as one 2-D array ((n + 1) * N, len(columns))."""
        n1, runs = self.t.size, self.batch or 1
        parts = [np.tile(self.t, runs)[:, None]]
        if self.batch:
            parts.append(np.repeat(np.arange(runs), n1)[:, None].astype(float))
        for x in (self.q, self.v, self.a, self.tau):
            if x is not None:
                parts.append(x.reshape(n1 * runs, -1))
        parts += [e.reshape(n1 * runs, 1) for e in (self.energy or ())]
        return np.hstack(parts)

    def to_csv(self, path: str | PathLike[str]) -> str | PathLike[str]:
        """Write the trajectory as CSV (header row, then one row per time and run); returns path.
        Column names holding a comma or a quote (joint names come from model files) are quoted as
        RFC 4180 says, so that :meth:`from_csv` reads the columns back where they were."""
        import csv
        import io
        head = io.StringIO()
        csv.writer(head, lineterminator="").writerow(self.columns())
        np.savetxt(path, self.table(), delimiter=",", header=head.getvalue(), comments="", fmt="%.17g")
        return path

    def to_npz(self, path: str | PathLike[str]) -> str | PathLike[str]:
        """Write all arrays and metadata to a NumPy ``.npz`` file; returns path."""
        arrays = {k: getattr(self, k) for k in _FIELDS if getattr(self, k) is not None}
        if self.energy is not None:
            arrays.update(self.energy._asdict())
        np.savez(path, t=self.t, **arrays, model_name=self.model_name, q_names=np.array(self.q_names),
                 v_names=np.array(self.v_names), method=self.method, dt=self.dt)
        return path

    @classmethod
    def from_npz(cls, path: str | PathLike[str]) -> SimulationResult:
        with np.load(path, allow_pickle=False) as d:
            get = lambda k: d[k] if k in d else None  # noqa: E731
            energy = (d["kinetic"], d["potential"], d["total"]) if "kinetic" in d else None
            return cls(d["t"], d["q"], d["v"], get("a"), get("tau"), energy,
                       model_name=str(d["model_name"]), q_names=[str(s) for s in d["q_names"]],
                       v_names=[str(s) for s in d["v_names"]], method=str(d["method"]), dt=float(d["dt"]))

    @classmethod
    def from_csv(cls, path: str | PathLike[str]) -> SimulationResult:
        """Read a file written by :meth:`to_csv`."""
        import csv
        with open(path, newline="") as fh:
            header = next(csv.reader(fh), [])
        data = np.atleast_2d(np.loadtxt(path, delimiter=",", skiprows=1))
        missing = [c for c in ("t",) if c not in header]
        if missing:
            raise InputError(f"{path}: not a simulation CSV, missing column(s) {', '.join(missing)}")
        col = {c: k for k, c in enumerate(header)}
        runs = int(data[:, col["run"]].max()) + 1 if "run" in col else 1
        n1 = data.shape[0] // runs
        shape = (runs, n1) if "run" in col else (n1,)

        def block(prefix):
            idx = [k for k, c in enumerate(header) if c.startswith(prefix + "_")]
            return data[:, idx].reshape(shape + (len(idx),)), [header[k][len(prefix) + 1:] for k in idx]

        (q, q_names), (v, v_names) = block("q"), block("v")
        a, tau = (x if x.shape[-1] else None for x in (block("a")[0], block("tau")[0]))
        energy = [data[:, col[e]].reshape(shape) for e in Energy._fields] if "total" in col else None
        return cls(data[:n1, col["t"]], q, v, a, tau, energy, q_names=q_names, v_names=v_names)

    # --- plots ---------------------------------------------------------------------------------
    def plot(self, path: str | PathLike[str] | None = None, what: Sequence[str] = ("q", "v", "tau", "energy"),
             run: int = 0, **options: Any) -> Figure:
        """A figure with one row of panels per limb or group of joints and one column per item of
        ``what`` (among q, v, a, tau, energy, and contact for runs with contacts: the contact force
        on each touching body, impacts dotted); ``options`` as :func:`artidyn.sim.plots.plot_result`
        (``model=`` for the tree's groups, units and limits, ``html=``, ``angles=``).

        Saved as PNG (or any matplotlib format, from the suffix) when ``path`` is given.
        Returns the matplotlib Figure (Agg canvas: no window is opened).
        """
        from .plots import plot_result

        return plot_result(self, path=path, what=what, run=run, **options)
