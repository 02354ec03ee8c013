"""Identification report: Markdown and PNG plots (matplotlib on an Agg canvas, no window).

Names come from model files and may hold anything: the Markdown escapes them, the plots show them
on one line as plain text (never as matplotlib math, where ``$\\frac$`` would stop the report).

``write_report(ident, folder)`` writes ``identification.md`` (summary, base parameters with 95 %
confidence intervals and relative standard deviations, per-joint residual statistics, the
physically consistent estimate and what the data cannot determine) and three plots:
``parameters.png`` (estimates with 95 % intervals), ``residuals.png`` (per joint) and
``torques.png`` (measured versus predicted, per joint).
"""
import pathlib

import numpy as np

from ..symbolic.escape import markdown as md
from ..symbolic.escape import markdown_code, one_line


def _fig(n_panels, width=8.0, height=2.2):
    from ..sim.plots import new_figure
    return new_figure(n_panels, width, height)


def plot_parameters(ident, path=None, truth=None, physical=None):
    """Each base parameter with its 95 % confidence interval (symlog axis: scales differ)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    lo, hi = ident.confidence(0.95)
    r = len(ident.beta)
    fig = Figure(figsize=(max(6.0, 0.28 * r + 2), 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    x = np.arange(r)
    ax.errorbar(x, ident.beta, yerr=[ident.beta - lo, hi - ident.beta], fmt="o", ms=3, capsize=2,
                label="least squares, 95 % interval")
    if physical is not None:
        ax.plot(x, physical, "s", ms=3, mfc="none", label="physically consistent")
    if truth is not None:
        ax.plot(x, truth, "x", ms=4, label="reference")
    ax.set_yscale("symlog", linthresh=max(1e-3, 1e-3 * np.abs(ident.beta).max()))
    ax.set_xticks(x, ident.names, rotation=90, fontsize=6, parse_math=False)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(f"{one_line(ident.model_name)}: base parameters", fontsize=9, parse_math=False)
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def plot_residuals(ident, joint_names, path=None):
    """Residual tau - Y_b beta of each joint over time."""
    from ..sim.plots import save
    fig, axes = _fig(len(joint_names))
    res = ident.residual
    for j, ax in enumerate(axes):
        ax.plot(ident.t, res[:, j], linewidth=0.8)
        ax.set_ylabel(f"{one_line(joint_names[j])}\nres. [N·m|N]", fontsize=7, parse_math=False)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("t [s]")
    axes[0].set_title(f"{one_line(ident.model_name)}: residuals", fontsize=9, parse_math=False)
    return save(fig, path)


def plot_torques(ident, joint_names, path=None):
    """Measured and predicted torques of each joint over time."""
    from ..sim.plots import save
    fig, axes = _fig(len(joint_names))
    for j, ax in enumerate(axes):
        ax.plot(ident.t, ident.tau[:, j], linewidth=0.8, label="measured")
        ax.plot(ident.t, ident.tau_pred[:, j], linewidth=0.8, linestyle="--", label="predicted")
        ax.set_ylabel(f"{one_line(joint_names[j])}\nτ [N·m|N]", fontsize=7, parse_math=False)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    axes[-1].set_xlabel("t [s]")
    axes[0].set_title(f"{one_line(ident.model_name)}: measured vs predicted torques", fontsize=9, parse_math=False)
    return save(fig, path)


def _markdown_list(text):
    """Plain text whose lines are "- item" (the physical estimate's report) as Markdown: the names
    in it come from the model file, so each line is escaped, its list marker kept."""
    return "\n".join("- " + md(ln[2:]) if ln.startswith("- ") else md(ln) for ln in text.split("\n"))


def markdown(ident, joint_names, physical=None, truth=None, source=None):
    """The report text (Markdown). Names (model, joints, bodies) and the data path are escaped:
    they come from files and must not add HTML, links or table cells to the page."""
    lo, hi = ident.confidence(0.95)
    res = ident.residual
    lines = [f"# Identification of '{md(ident.model_name)}'", ""]
    if source:
        lines.append(f"Data: {markdown_code(source)}, {res.shape[0]} samples used, {res.shape[1]} joints.")
    lines += [f"Method: {ident.method}. Condition number of the base regressor: {ident.cond:.4g}.",
              f"Base parameters: {len(ident.beta)}.", "",
              "## Base parameters (95 % confidence intervals)", ""]
    head = "| name | estimate | std | 95 % interval | rel. std (%) |"
    sep = "| --- | ---: | ---: | --- | ---: |"
    if physical is not None:
        head, sep = head + " physical |", sep + " ---: |"
    if truth is not None:
        head, sep = head + " reference |", sep + " ---: |"
    lines += [head, sep]
    for k, n in enumerate(ident.names):
        row = (f"| {md(n)} | {ident.beta[k]:.6g} | {ident.std[k]:.3g} | [{lo[k]:.6g}, {hi[k]:.6g}] | "
               f"{ident.rel_std[k]:.3g} |")
        if physical is not None:
            row += f" {physical.beta[k]:.6g} |"
        if truth is not None:
            row += f" {truth[k]:.6g} |"
        lines.append(row)
    lines += ["", "What each base parameter is, in the standard parameters:", "", "```"]
    lines += [one_line(e) for e in ident.expressions]      # one line each: none can close the fence
    lines += ["```", "", "## Residuals per joint", "",
              "| joint | weight sigma | residual RMS | max abs | relative RMS (%) |",
              "| --- | ---: | ---: | ---: | ---: |"]
    for j, n in enumerate(joint_names):
        rms, tau_rms = np.sqrt(np.mean(res[:, j] ** 2)), np.sqrt(np.mean(ident.tau[:, j] ** 2))
        rel = 100 * rms / tau_rms if tau_rms > 0 else np.inf
        lines.append(f"| {md(n)} | {ident.sigma[j]:.4g} | {rms:.4g} | {np.abs(res[:, j]).max():.4g} | {rel:.3g} |")
    if physical is not None:
        lines += ["", "## Physically consistent estimate", "", _markdown_list(physical.report)]
    lines += ["", "![parameters](parameters.png)", "", "![residuals](residuals.png)", "",
              "![torques](torques.png)", ""]
    return "\n".join(lines)


def write_report(ident, folder, joint_names=None, physical=None, truth=None, source=None):
    """Write ``identification.md`` and the three plots into ``folder`` (created); returns the
    path of the Markdown file. ``truth``: reference base parameters shown next to the estimate."""
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if joint_names is None:
        joint_names = [f"joint {j + 1}" for j in range(ident.tau.shape[1])]
    plot_parameters(ident, folder / "parameters.png", truth, None if physical is None else physical.beta)
    plot_residuals(ident, joint_names, folder / "residuals.png")
    plot_torques(ident, joint_names, folder / "torques.png")
    path = folder / "identification.md"
    path.write_text(markdown(ident, joint_names, physical, truth, source))
    return path
