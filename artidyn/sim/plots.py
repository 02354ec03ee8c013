"""Plots of trajectories, torques and energies (matplotlib, Agg canvas, no window).

Library code never calls ``pyplot``: figures are :class:`matplotlib.figure.Figure` objects on an
Agg canvas, saved to files and returned; nothing global (backend, current figure) is touched.

A trajectory figure has one row of panels per limb or group of joints (see
:mod:`artidyn.sim.plot_groups`) and one column per quantity (q, v, a, tau): every panel has one
unit and its own y-scale, the row's legend (outside, on the right) names every line, joint
limits are dashed lines in the joint's colour (``--`` lower, ``-.`` upper). A free flyer is
shown as roll-pitch-yaw angles and a position, never as raw quaternion entries. A last row
shows the energies and their relative drift ``(E(t) - E(0)) / max T``.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from .plot_groups import MAX_SIZE, UNITS, rows_from_model, rows_from_names, row_values, split_by_size

if TYPE_CHECKING:
    from collections.abc import Sequence
    from os import PathLike

    from matplotlib.figure import Figure
    from numpy.typing import ArrayLike

    from .._typing import Model
    from .result import SimulationResult

_LABELS = {"q": "q [rad | m]", "v": "v [rad/s | m/s]", "a": "a [rad/s² | m/s²]", "tau": "τ [N·m | N]",
           "energy": "energy [J]", "contact": "contact force [N]"}
_COLUMNS = ("q", "v", "a", "tau")
_ROW_HEIGHT, _COL_WIDTH, _LEGEND_WIDTH = 1.8, 3.5, 2.1
TORQUE_ROWS = 8                # plot_torques: more panels than this go in two columns
_LIMIT_STYLE = {"lower": "--", "upper": "-."}


# --- building blocks ---------------------------------------------------------------------------
def _names_as_text(plot):
    """Run ``plot`` with matplotlib's mathtext off: joint and body names come from model files, and
    one holding ``$`` (``$\\frac$``) would be parsed as TeX math and fail the figure. artidyn's own
    labels use Unicode (τ, ², E₀), not mathtext."""
    @functools.wraps(plot)
    def wrapped(*args, **kwargs):
        from matplotlib import rc_context
        with rc_context({"text.parse_math": False}):
            return plot(*args, **kwargs)
    return wrapped


def new_figure(n_panels, width=8.0, height_per_panel=2.4):
    """A Figure with ``n_panels`` stacked axes sharing the time axis, on an Agg canvas."""
    fig = _figure(width, max(2.8, height_per_panel * n_panels))
    axes = fig.subplots(n_panels, 1, sharex=True, squeeze=False)[:, 0]
    return fig, axes


def _figure(width, height):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save(fig, path):
    """Save when ``path`` is given (format from the suffix, PNG by default); return the figure."""
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def _colors(k):
    from matplotlib import colormaps

    cmap = colormaps["tab10" if k <= 10 else "tab20"]
    return [cmap(j % cmap.N) for j in range(k)]


def _legend_outside(ax, handles, labels, fontsize=7):
    """A legend right of ``ax``, one name per line (two columns past 14 names)."""
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                  fontsize=fontsize, frameon=False, ncol=1 if len(handles) <= 14 else 2, handlelength=1.6)


def draw_lines(ax, t, Y, names, ylabel):
    """One line per column of ``Y`` (n, k), labelled with ``names``; all of them, legend outside."""
    Y = np.asarray(Y).reshape(len(t), -1)
    k = Y.shape[1]
    lines = [ax.plot(t, Y[:, j], label=names[j] if j < len(names) else str(j), linewidth=1.1, color=c)[0]
             for j, c in zip(range(k), _colors(k))]
    ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(True, alpha=0.3)
    _legend_outside(ax, lines, [ln.get_label() for ln in lines])
    return lines


def _plain_formatter():
    """Tick labels with the fewest decimals that give each tick exactly (exponent notation for
    very large or very fine ticks), and no offset or multiplier above the axes (which would
    collide with the panel titles)."""
    from matplotlib.ticker import Formatter

    class Plain(Formatter):
        def __call__(self, x, pos=None):
            return f"{x:.6g}"

        def format_ticks(self, values):
            vals = np.asarray(values, dtype=float)
            if vals.size < 2:
                return [f"{v:.6g}" for v in vals]
            step = float(np.min(np.abs(np.diff(vals)))) or 1.0
            big = float(np.max(np.abs(vals)))
            for d in range(0, 16):
                if big >= 1e5 or step < 1e-4:
                    labels = [f"{v:.{d}e}" for v in vals]
                else:
                    labels = [f"{v:.{d}f}" for v in vals]
                if all(abs(float(lab) - v) <= 1e-6 * step for lab, v in zip(labels, vals)):
                    break
            return ["0" if float(lab) == 0 else lab for lab in labels]

    return Plain()


def _fmt_number(x):
    return f"{x:.4g}"


def _scale(ax, Y, limits, unit):
    """Y-limits from the data and the joint limits near it; limits far away are drawn but left
    out of view, with a note. Returns True when some limit line is in view."""
    finite = Y[np.isfinite(Y)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    reach = max(hi - lo, 0.25 * max(abs(lo), abs(hi)), 1e-3)
    bounds = limits[np.isfinite(limits)]
    near = bounds[(bounds >= lo - reach) & (bounds <= hi + reach)]
    far = np.unique(bounds[(bounds < lo - reach) | (bounds > hi + reach)])
    vmin, vmax = min([lo, *near]), max([hi, *near])
    span = vmax - vmin
    if span <= 1e-12 * max(1.0, abs(vmin), abs(vmax)):
        pad = max(0.05 * abs(vmax), 1e-3)
    else:
        pad = 0.06 * span
    ax.set_ylim(vmin - pad, vmax + pad)
    if far.size:
        values = ", ".join(_fmt_number(x) for x in far[:4]) + (" ..." if far.size > 4 else "")
        ax.set_title(f"limits out of view: {values} {unit}", loc="right", fontsize=6, color="0.35")
    return near.size > 0


def _draw_limits(ax, limits, colors, labels):
    """Dashed lines at each finite (lower, upper) pair, in the line's colour; gid
    ``limit:<label>:lower`` / ``:upper`` so that they can be found again."""
    for (low, up), c, name in zip(limits, colors, labels):
        for side, value in (("lower", low), ("upper", up)):
            if np.isfinite(value):
                ax.axhline(value, color=c, linestyle=_LIMIT_STYLE[side], linewidth=0.8, alpha=0.8,
                           gid=f"limit:{name}:{side}", label=f"_{name} {side} limit")


def _limit_proxies():
    from matplotlib.lines import Line2D

    return [Line2D([], [], color="0.3", linestyle=_LIMIT_STYLE[s], linewidth=0.8) for s in ("lower", "upper")], \
        ["lower limit", "upper limit"]


def _draw_panel(ax, t, Y, row, w):
    """The lines of quantity ``w`` of ``row``; returns (lines, a limit line is in view)."""
    labels = row.labels[w]
    colors = _colors(len(labels))
    lines = [ax.plot(t, Y[:, j], color=colors[j], linewidth=1.1, label=labels[j])[0] for j in range(Y.shape[1])]
    limits = row.limits.get(w, np.full((len(labels), 2), np.inf))
    _draw_limits(ax, limits, colors, labels)
    unit = row.ylabels[w].rsplit("[", 1)[-1].rstrip("]") if "[" in row.ylabels[w] else ""
    in_view = _scale(ax, Y, limits, unit)
    if Y.size and np.all(np.ptp(Y, axis=0) <= 1e-12 * max(1.0, float(np.max(np.abs(Y))))):
        ax.text(0.5, 0.75, "zero throughout" if not np.any(Y) else "constant", transform=ax.transAxes,
                ha="center", va="center", fontsize=7, color="0.35")
    ax.set_ylabel(row.ylabels[w], fontsize=8)
    ax.tick_params(labelsize=7)
    ax.yaxis.set_major_formatter(_plain_formatter())
    ax.grid(True, alpha=0.3)
    ax.set_label(f"{w}:{row.name}")
    return lines, in_view


def _row_legend(ax, lines_by_w, row, any_limit):
    """One legend for a row: ``roll / ωx / τx`` when the quantities name a line differently."""
    first = next(iter(lines_by_w.values()))
    labels = []
    for j in range(len(first)):
        names = [row.labels[w][j] for w in lines_by_w if j < len(row.labels[w])]
        labels.append(" / ".join(dict.fromkeys(names)))
    handles = list(first)
    if any_limit:
        extra, extra_labels = _limit_proxies()
        handles, labels = handles + extra, labels + extra_labels
    _legend_outside(ax, handles, labels)


def _time_axis(ax, t):
    """The run's time span, at most 6 ticks (the axes sharing it follow: they share the ticker)."""
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10]))
    if t.size > 1:
        ax.set_xlim(t[0], t[-1])


def _selector(result, run):
    if result.batch:
        if not 0 <= run < result.batch:
            raise ValueError(f"plot: run {run} out of range 0..{result.batch - 1}")
        return lambda x: None if x is None else x[run]
    return lambda x: x


def run_title(result, run=0):
    """``solo · rk4, dt = 0.001 s · t = 0 to 0.02 s (20 steps)``: what a reader needs, no repr."""
    name = result.model_name or "simulation"
    n = result.t.size - 1
    if result.method == "dopri5":
        step = f"adaptive step ({result.t.size} samples)"
    else:
        step = f"dt = {result.dt:.3g} s"
    span = f"t = {result.t[0]:.4g} to {result.t[-1]:.4g} s"
    if result.method != "dopri5":
        span += f" ({n} step{'s' if n != 1 else ''})"
    parts = [name, ", ".join(p for p in (result.method, step) if p), span]
    if result.batch:
        parts.append(f"run {run + 1} of {result.batch}")
    return " · ".join(parts)


# --- energy ------------------------------------------------------------------------------------
def draw_energy(ax_energy, ax_drift, t, E, conservative=None):
    """Kinetic, potential and total energy (J) on one axes, ``(E - E0) / max T`` on the other
    (the scale of :meth:`SimulationResult.energy_drift`; ``E - E0`` in J when nothing moves).
    ``conservative=False`` (torques, friction or external forces at work) titles the second
    axes "energy change" rather than "drift"."""
    lines = []
    for name, c in zip(("kinetic", "potential", "total"), ("C0", "C1", "k")):
        lines.append(ax_energy.plot(t, getattr(E, name), color=c, label=name,
                                    linewidth=1.5 if name == "total" else 1.0)[0])
    ax_energy.set_ylabel("energy [J]", fontsize=8)
    ax_energy.set_label("energy")
    ax_energy.set_title("energy", loc="left", fontsize=8, fontweight="bold")
    dE = E.total - E.total[0]
    scale = float(np.max(np.abs(E.kinetic))) if E.kinetic.size else 0.0
    if scale > 1e-12 * max(1.0, abs(float(E.total[0]))):
        ax_drift.plot(t, dE / scale, color="k", linewidth=1.1, label="(E − E₀) / max T")
        ax_drift.set_ylabel("(E − E₀) / max T [-]", fontsize=8)
        worst = float(np.max(np.abs(dE))) / scale
        what = "relative energy drift" if conservative is not False else "relative energy change (work done)"
        ax_drift.set_title(f"{what} (max {worst:.2e})", loc="left", fontsize=8, fontweight="bold")
    else:
        ax_drift.plot(t, dE, color="k", linewidth=1.1, label="E − E₀")
        ax_drift.set_ylabel("E − E₀ [J]", fontsize=8)
        ax_drift.set_title("energy drift (nothing moves: not relative)", loc="left", fontsize=8, fontweight="bold")
    ax_drift.set_label("drift")
    for ax in (ax_energy, ax_drift):
        ax.yaxis.set_major_formatter(_plain_formatter())
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=7)
    return lines


@_names_as_text
def plot_energy(result: SimulationResult, path: str | PathLike[str] | None = None, run: int = 0) -> Figure:
    """Kinetic, potential and total energy over time, and the relative drift of the total."""
    if result.energy is None:
        raise ValueError("plot_energy: the energies were not recorded (record=... without 'energy')")
    sel = _selector(result, run)
    fig, (ax_e, ax_d) = new_figure(2, width=8.0, height_per_panel=2.2)
    E = type(result.energy)(*(sel(e) for e in result.energy))
    lines = draw_energy(ax_e, ax_d, result.t, E, result.conservative)
    _legend_outside(ax_e, lines, [ln.get_label() for ln in lines], fontsize=8)
    ax_d.set_xlabel("t [s]", fontsize=8)
    _time_axis(ax_d, result.t)
    fig.suptitle(f"energy: {run_title(result, run)}", fontsize=9)
    return save(fig, path)


# --- the trajectory figure ---------------------------------------------------------------------
def _rows_for(result, model, angles, max_per_panel):
    if model is None:
        return rows_from_names(result.q_names, result.v_names, angles=angles, max_size=max_per_panel)
    from ..errors import InputError

    nq, nv = result.q.shape[-1], result.v.shape[-1]
    if (model.nq, model.nv) != (nq, nv):
        raise InputError(f"plot: model '{model.name}' has nq = {model.nq}, nv = {model.nv}; the result of "
                         f"'{result.model_name}' has nq = {nq}, nv = {nv}")
    return rows_from_model(model, angles=angles, max_size=max_per_panel)


@_names_as_text
def plot_result(result: SimulationResult, path: str | PathLike[str] | None = None,
                what: Sequence[str] = ("q", "v", "tau", "energy"), run: int = 0, model: Model | None = None,
                html: str | PathLike[str] | None = None, angles: str = "rpy", max_per_panel: int = MAX_SIZE,
                split_torques: bool = True) -> Figure:
    """The trajectory of one run: one row of panels per limb or group of joints and one column
    per quantity of ``what`` among q, v, a, tau (each panel with its unit and y-scale, joint
    limits dashed), then the energy and its relative drift (``energy``) and the contact forces
    (``contact``: the force on each touching body, impacts dotted).

    Parameters
    ----------
    result : SimulationResult
    path : str or Path, optional
        Image file to write (PNG, or any matplotlib format from the suffix).
    run : int
        The run shown, for a batch of runs.
    model : Model, optional
        Groups the joints by the kinematic tree and gives units and limits (default:
        ``result.model`` when present, else the coordinate names of the result are grouped by
        prefix and units are ``rad | m``).
    html : str or Path, optional
        Also write a self-contained HTML page with the image and the run's summary (the image
        goes to ``path``, or next to the page with the suffix ``.png``).
    angles : "rpy" or "rotvec"
        How the orientation of a free flyer or spherical joint is shown (unwrapped over time).
    max_per_panel : int
        Most coordinates on one panel.
    split_torques : bool
        Cut a row whose torques differ by more than 10 times into rows of similar torques (see
        :func:`artidyn.sim.plot_groups.split_by_size`), so that small torques do not look flat.

    Returns
    -------
    matplotlib.figure.Figure
        Agg canvas: no window is opened.
    """
    what = [what] if isinstance(what, str) else list(what)
    unknown = [w for w in what if w not in _LABELS]
    if unknown:
        raise ValueError(f"plot: unknown panel(s) {unknown}; choose among {', '.join(_LABELS)}")
    absent = [w for w in what if (result.energy if w == "energy" else
                                  getattr(result, "contact_forces" if w == "contact" else w, None)) is None]
    if absent:
        raise ValueError(f"plot: {', '.join(absent)} not recorded in this result (see simulate's record=...)")
    sel = _selector(result, run)
    model = model if model is not None else getattr(result, "model", None)
    columns = [w for w in _COLUMNS if w in what]
    rows = _rows_for(result, model, angles, max_per_panel) if columns else []
    if "tau" in columns and split_torques:
        rows = split_by_size(rows, sel(result.tau))
    extra = [w for w in ("energy", "contact") if w in what]
    ncols = max(len(columns), 2 if "energy" in what else 1)
    nrows = len(rows) + len(extra)
    if nrows == 0:
        raise ValueError(f"plot: nothing to draw for {what} (model '{result.model_name}' has no coordinates)")
    fig = _figure(_COL_WIDTH * ncols + _LEGEND_WIDTH, _ROW_HEIGHT * nrows + 0.6)
    grid = max(len(columns), 2 if "energy" in what else 1)
    gs = fig.add_gridspec(nrows, grid)          # one grid: the columns line up from row to row
    t = result.t
    data = {w: sel(getattr(result, w)) for w in _COLUMNS}
    all_axes, shared = [], None

    def axes_at(spec):
        nonlocal shared
        ax = fig.add_subplot(spec, sharex=shared)
        shared = shared or ax
        all_axes.append(ax)
        return ax

    for r, row in enumerate(rows):
        lines_by_w, any_limit = {}, False
        for c, w in enumerate(columns):
            ax = axes_at(gs[r, c] if len(columns) > 1 else gs[r, :])
            Y = row_values(row, w, **data, angles=angles)
            lines_by_w[w], in_view = _draw_panel(ax, t, np.asarray(Y).reshape(t.size, -1), row, w)
            any_limit |= in_view
            if c == 0:
                ax.set_title(row.name, loc="left", fontsize=8, fontweight="bold")
        _row_legend(ax, lines_by_w, row, any_limit)
    for k, w in enumerate(extra):
        r = len(rows) + k
        if w == "energy":
            half = (grid + 1) // 2
            ax_e, ax_d = axes_at(gs[r, :half]), axes_at(gs[r, half:])
            E = type(result.energy)(*(sel(e) for e in result.energy))
            lines = draw_energy(ax_e, ax_d, t, E, result.conservative)
            _legend_outside(ax_d, lines, [ln.get_label() for ln in lines])
        else:
            draw_contact(axes_at(gs[r, :]), result)
    for ax in all_axes:
        if ax.get_subplotspec().rowspan.stop == nrows:
            ax.set_xlabel("t [s]", fontsize=8)
        else:
            ax.tick_params(labelbottom=False)
    _time_axis(all_axes[0], t)
    fig.suptitle(run_title(result, run), fontsize=10)
    if html is not None:
        import pathlib

        path = pathlib.Path(html).with_suffix(".png") if path is None else path
        save(fig, path)
        lines = result.summary().splitlines()
        if result.energy is not None:
            drift = result.energy_drift()
            lines.append(f"energy drift (max |E - E0| / max T): {float(np.ravel(drift)[run if result.batch else 0]):.3g}")
        write_html(html, [path], title=run_title(result, run), lines=lines)
        return fig
    return save(fig, path)


def draw_contact(ax, result):
    """The magnitude of the total contact force on each body that ever touches (the world left
    out), and a dotted line at each impact / limit event."""
    F = np.linalg.norm(result.contact_forces, axis=2)             # (S, nb+1)
    names = getattr(result, "contact_body_names", [str(i) for i in range(F.shape[1])])
    cols = [i for i in range(1, F.shape[1]) if np.any(F[:, i] > 0)]
    draw_lines(ax, result.t, F[:, cols], [names[i] for i in cols], _LABELS["contact"])
    ax.set_label("contact")
    for ev in getattr(result, "events", []):
        if ev.kind in ("impact", "limit"):
            ax.axvline(ev.time, color="0.6", linestyle=":", linewidth=0.8)


# --- torques along a given motion --------------------------------------------------------------
@_names_as_text
def plot_torques(t: ArrayLike, tau: ArrayLike, names: Sequence[str], path: str | PathLike[str] | None = None,
                 title: str = "", limits: ArrayLike | None = None, model: Model | None = None,
                 max_per_panel: int = MAX_SIZE, split_torques: bool = True) -> Figure:
    """Joint torques over time, one panel per limb or group of joints (own y-scale, N m or N),
    with the effort limits ``+-limits`` as dashed lines (default: the model's, when given).
    Torques more than 10 times smaller than the largest of their group get a panel of their
    own (``split_torques``).

    ``names`` are the v coordinate names; with ``model`` the groups follow its kinematic tree and
    the units its joint types, otherwise the names are grouped by prefix (units ``N m | N``).
    """
    t = np.asarray(t, dtype=float)
    tau = np.asarray(tau, dtype=float).reshape(t.size, -1)
    if model is not None and model.nv == tau.shape[1]:
        rows = rows_from_model(model, max_size=max_per_panel)
        if limits is not None:
            lim = np.asarray(limits, dtype=float)
            for row in rows:
                e = lim[list(row.v_index)]
                row.limits["tau"] = np.column_stack([-e, e])
    else:
        names = list(names) + [str(j) for j in range(len(names), tau.shape[1])]
        rows = rows_from_names(None, names[:tau.shape[1]], max_size=max_per_panel, limits=limits)
    if split_torques:
        rows = split_by_size(rows, tau)
    # past TORQUE_ROWS panels (a humanoid), two columns of panels: half the height
    ncol = 1 if len(rows) <= TORQUE_ROWS else 2
    nrow = -(-len(rows) // ncol)
    fig = _figure((_COL_WIDTH * 2 + _LEGEND_WIDTH) * ncol, _ROW_HEIGHT * nrow + 0.6)
    grid = fig.subplots(nrow, ncol, sharex=True, squeeze=False)
    axes = [grid[k % nrow, k // nrow] for k in range(len(rows))]     # down the first column, then the next
    for ax, row in zip(axes, rows):
        lines, in_view = _draw_panel(ax, t, tau[:, list(row.v_index)], row, "tau")
        ax.set_title(row.name, loc="left", fontsize=8, fontweight="bold")
        _row_legend(ax, {"tau": lines}, row, in_view)
    for ax in grid.flat[len(rows):]:
        ax.set_visible(False)
    for c in range(ncol):
        bottom = [k for k in range(len(rows)) if k // nrow == c][-1]
        axes[bottom].set_xlabel("t [s]", fontsize=8)
        axes[bottom].tick_params(labelbottom=True)
    _time_axis(axes[0], t)
    if title:
        fig.suptitle(title, fontsize=10)
    return save(fig, path)


# --- a page gathering the images of a run ------------------------------------------------------
def write_html(path, images, title="", lines=()):
    """A self-contained HTML page (images inlined as base64, no network) showing ``images``
    (PNG files or Figures) under ``title``, with ``lines`` of text above them; returns path."""
    import base64
    import html as html_escape
    import io
    import pathlib

    parts = []
    for k, image in enumerate(images):
        if hasattr(image, "savefig"):
            buf = io.BytesIO()
            image.savefig(buf, format="png", dpi=110)
            raw, name = buf.getvalue(), f"figure {k + 1}"
        else:
            raw, name = pathlib.Path(image).read_bytes(), pathlib.Path(image).name
        data = base64.b64encode(raw).decode("ascii")
        parts.append(f'<figure><img alt="{html_escape.escape(name)}" src="data:image/png;base64,{data}">'
                     f"<figcaption>{html_escape.escape(name)}</figcaption></figure>")
    text = "".join(f"<li>{html_escape.escape(str(s))}</li>" for s in lines)
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{html_escape.escape(title or 'artidyn run')}</title>"
            "<style>body{font-family:sans-serif;margin:1.5em}img{max-width:100%}"
            "figcaption{color:#555;font-size:0.9em}</style></head><body>"
            f"<h1>{html_escape.escape(title or 'artidyn run')}</h1>"
            + (f"<ul>{text}</ul>" if text else "") + "".join(parts) + "</body></html>\n")
    pathlib.Path(path).write_text(page, encoding="utf-8")
    return path


__all__ = ["plot_result", "plot_energy", "plot_torques", "draw_energy", "draw_contact", "draw_lines",
           "new_figure", "save", "run_title", "write_html", "UNITS"]
