"""Plots of trajectories, torques and energies (matplotlib, Agg canvas, no window).

Library code never calls ``pyplot``: figures are :class:`matplotlib.figure.Figure` objects on an
Agg canvas, saved to files and returned; nothing global (backend, current figure) is touched.
"""
import numpy as np

_LABELS = {"q": "q [rad | m]", "v": "v [rad/s | m/s]", "a": "a [rad/s² | m/s²]", "tau": "τ [N·m | N]",
           "energy": "energy [J]", "contact": "contact force [N]"}
_MAX_LINES = 12  # more coordinates than this: only the first ones are drawn, with a note


def new_figure(n_panels, width=8.0, height_per_panel=2.4):
    """A Figure with ``n_panels`` stacked axes sharing the time axis, on an Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, max(2.8, height_per_panel * n_panels)), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(n_panels, 1, sharex=True, squeeze=False)[:, 0]
    return fig, axes


def draw_lines(ax, t, Y, names, ylabel):
    """One line per column of ``Y`` (n, k), labelled with ``names``."""
    Y = np.asarray(Y).reshape(len(t), -1)
    k = Y.shape[1]
    for j in range(min(k, _MAX_LINES)):
        ax.plot(t, Y[:, j], label=names[j] if j < len(names) else str(j), linewidth=1.2)
    if k > _MAX_LINES:
        ax.set_title(f"first {_MAX_LINES} of {k} coordinates", fontsize=8, loc="right")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if 0 < k <= _MAX_LINES:
        ax.legend(fontsize=7, ncol=min(k, 4), loc="best")


def save(fig, path):
    """Save when ``path`` is given; return the figure."""
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def plot_energy(result, path=None, run=0):
    """Kinetic, potential and total energy over time."""
    fig, (ax,) = new_figure(1)
    E = result.energy
    sel = (lambda x: x[run]) if result.batch else (lambda x: x)
    for name in E._fields:
        ax.plot(result.t, sel(getattr(E, name)), label=name, linewidth=1.4 if name == "total" else 1.0)
    ax.set_ylabel(_LABELS["energy"])
    ax.set_xlabel("t [s]")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    step = "adaptive" if result.method == "dopri5" else f"dt = {result.dt:.3g} s"
    ax.set_title(f"{result.model_name}: energy (method {result.method}, {step})", fontsize=9)
    return save(fig, path)


def plot_result(result, path=None, what=("q", "v", "tau", "energy"), run=0):
    """One panel per item of ``what`` (q, v, a, tau, energy) for one run of a result."""
    what = [what] if isinstance(what, str) else list(what)
    unknown = [w for w in what if w not in _LABELS]
    if unknown:
        raise ValueError(f"plot: unknown panel(s) {unknown}; choose among {', '.join(_LABELS)}")
    absent = [w for w in what if (result.energy if w == "energy" else getattr(result, w if w != "contact" else
                                                                                  "contact_forces", None)) is None]
    if absent:
        raise ValueError(f"plot: {', '.join(absent)} not recorded in this result (see simulate's record=...)")
    fig, axes = new_figure(len(what))
    sel = (lambda x: x[run]) if result.batch else (lambda x: x)
    for ax, w in zip(axes, what):
        if w == "contact":
            draw_contact(ax, result)
        elif w == "energy":
            for name in result.energy._fields:
                ax.plot(result.t, sel(getattr(result.energy, name)), label=name)
            ax.set_ylabel(_LABELS[w])
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        else:
            names = result.q_names if w == "q" else result.v_names
            draw_lines(ax, result.t, sel(getattr(result, w)), names, _LABELS[w])
    axes[-1].set_xlabel("t [s]")
    axes[0].set_title(repr(result), fontsize=8)
    return save(fig, path)


def draw_contact(ax, result):
    """The magnitude of the total contact force on each body that ever touches (the world left
    out), and a dotted line at each impact / limit event."""
    F = np.linalg.norm(result.contact_forces, axis=2)             # (S, nb+1)
    names = getattr(result, "contact_body_names", [str(i) for i in range(F.shape[1])])
    cols = [i for i in range(1, F.shape[1]) if np.any(F[:, i] > 0)]
    draw_lines(ax, result.t, F[:, cols], [names[i] for i in cols], _LABELS["contact"])
    for ev in getattr(result, "events", []):
        if ev.kind in ("impact", "limit"):
            ax.axvline(ev.time, color="0.6", linestyle=":", linewidth=0.8)


def plot_torques(t, tau, names, path=None, title="", limits=None):
    """Joint torques over time, with the effort limits as dashed lines when given."""
    fig, (ax,) = new_figure(1, height_per_panel=3.2)
    draw_lines(ax, t, tau, names, _LABELS["tau"])
    if limits is not None:
        lim = np.asarray(limits, dtype=float)
        finite = lim[np.isfinite(lim) & (lim > 0)]
        tau_max = np.max(np.abs(tau)) if np.size(tau) else 0.0
        for value in np.unique(finite[finite < 3 * max(tau_max, 1e-12)]):
            ax.axhline(value, color="k", linestyle="--", linewidth=0.6)
            ax.axhline(-value, color="k", linestyle="--", linewidth=0.6)
    ax.set_xlabel("t [s]")
    if title:
        ax.set_title(title, fontsize=9)
    return save(fig, path)
