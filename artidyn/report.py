"""Model report: a text (Markdown) document made of sections.

``SECTIONS`` lists the sections in order. An entry is a callable ``section(model, ctx)`` or a
string ``"package.module:function"`` imported when the report is built (a module that does not
exist yet is skipped). A section returns Markdown text (starting with a ``## `` title) or None.
``ctx`` carries ``out_dir`` (a :class:`pathlib.Path` or None: where a section may write files,
listed in ``ctx.files``), ``q`` (:func:`default_posture`: the neutral configuration, with joints
whose limits exclude 0 at the middle of their limits) and ``fmt`` (number formatting).
To add a section, append one entry to ``SECTIONS``, e.g. ``"artidyn.dynamics.report:section"``.

Sections are independent: one that raises (or cannot be imported) is replaced in the report by
its title (the function's ``title`` attribute, else its docstring's first line), the error and
a hint (its ``hint`` attribute, if any); the other sections are built as usual and report.md is
still written. Each failure is a :class:`SectionFailure` in ``ctx.failed`` and in the
``failed`` list given to :func:`build_report`.
"""
import importlib
import pathlib
import traceback
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from ._text import one_line

SECTIONS = [
    "artidyn.report:model_section",
    "artidyn.report:dh_section",
    "artidyn.report:geometry_section",
    "artidyn.sim.report_sections:dynamics_section",
    "artidyn.sim.report_sections:quintic_torques_section",
    "artidyn.sim.report_sections:free_fall_section",
]


def fmt(x, digits=6):
    """A number in short form: 6 significant digits, 'inf' / '-inf', '-' for None."""
    if x is None:
        return "-"
    x = float(x)
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}g}" if abs(x) > 1e-14 else "0"


def table(header, rows):
    """A Markdown table (aligned columns) from a header and rows of strings (each cell on one line,
    with what would end it or open HTML escaped: names come from model files)."""
    from .symbolic.escape import markdown_cell
    cols = [[markdown_cell(c) for c in header]] + [[markdown_cell(c) for c in r] for r in rows]
    widths = [max(len(r[k]) for r in cols) for k in range(len(header))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    return "\n".join([line(cols[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in cols[1:]])


class SectionFailure(NamedTuple):
    """A report section that raised: its title, the exception and the formatted traceback."""

    title: str
    error: BaseException
    traceback: str


FAILED = "This section failed"
DEFAULT_HINT = ("The other sections do not depend on this one; `artidyn report MODEL --traceback` prints "
                "where it failed.")


def _resolve(entry):
    """The callable of a SECTIONS entry, or None when its module does not exist (yet)."""
    if callable(entry):
        return entry
    module, _, func = str(entry).partition(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            return None
        raise
    return getattr(mod, func)


def section_title(section, entry=None):
    """The title of a section: its ``title`` attribute, its docstring's first line or its name."""
    title = getattr(section, "title", None)
    if not title:
        doc = (getattr(section, "__doc__", None) or "").strip()
        title = doc.splitlines()[0].rstrip(".") if doc else ""
    if not title:
        title = getattr(section, "__name__", None) or str(entry).rpartition(":")[2] or str(entry)
    return str(title)


def error_message(exc):
    """``Type: message`` of an exception (a KeyError's message without its quotes), for the
    Markdown report: on one line, escaped (messages quote names from the model file)."""
    from .symbolic.escape import markdown_cell
    msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
    return markdown_cell(f"{type(exc).__name__}: {msg}")


def failed_section(title, exc, hint=None):
    """The Markdown that replaces a section which raised ``exc``."""
    return "\n".join([f"## {title}", "", f"{FAILED}: {error_message(exc)}", "", hint or DEFAULT_HINT])


def _run_section(entry, model, ctx):
    """(text or None, SectionFailure or None) of one SECTIONS entry."""
    section = None
    try:
        section = _resolve(entry)
        if section is None:
            return None, None
        text = section(model, ctx)
        return (text.rstrip() if text else None), None
    except Exception as exc:  # a section's bug or a numerical failure: reported in its place
        title = section_title(section, entry) if section is not None else str(entry).rpartition(":")[2]
        failure = SectionFailure(title, exc, traceback.format_exc())
        return failed_section(title, exc, getattr(section, "hint", None)), failure


def default_posture(model):
    """The configuration the report and the command line use when none is given: the neutral
    configuration (:func:`artidyn.neutral`), with each joint value that lies outside the joint's
    limits (the Panda's fourth joint: 0 is outside [-3.07, -0.07] rad) put at the middle of them."""
    from .configuration import neutral
    q = np.array(neutral(model), dtype=float)
    lo, up = np.asarray(model.lower, dtype=float), np.asarray(model.upper, dtype=float)
    for i in range(1, model.nb + 1):
        if model.nq_joint[i] != model.nv_joint[i]:        # quaternion joints: neutral is the identity
            continue
        for k in range(int(model.idx_q[i]), int(model.idx_q[i] + model.nq_joint[i])):
            if np.isfinite(lo[k]) and np.isfinite(up[k]) and not lo[k] <= q[k] <= up[k]:
                q[k] = 0.5 * (lo[k] + up[k])
            elif np.isfinite(lo[k]) and q[k] < lo[k]:
                q[k] = lo[k]
            elif np.isfinite(up[k]) and q[k] > up[k]:
                q[k] = up[k]
    return q


def build_report(model, out_dir=None, failed=None, compiled=False):
    """The report of ``model`` as Markdown text; with ``out_dir`` also written to report.md there.

    A section that raises is reported in its place (see the module docstring) and, when
    ``failed`` is a list, appended to it as a :class:`SectionFailure`.

    ``compiled=False`` (the default) runs the sections on the readable reference code
    (:func:`artidyn.kernels.reference_only`): a report evaluates a handful of states (one posture,
    a sampled quintic), which the reference code does in well under a second even for Talos,
    whereas the first call of the compiled kernels compiles them for the machine (about a minute
    on two cores, once). The free fall (a few hundred dynamics evaluations) runs on the readable
    adaptive loop up to 12 dof (about a second: the Puma 560's whole report takes ~2 s on a fresh
    install, nothing compiled) and on the compiled engine above. The text is the same either way
    (but for round-off in the energy error, ~1e-14 J), the kernels being held equal to the
    reference code step for step. ``compiled=True`` uses the kernels throughout (compiled on first use).
    """
    import contextlib

    from .kernels import reference_only
    ctx = SimpleNamespace(out_dir=None if out_dir is None else pathlib.Path(out_dir),
                          q=default_posture(model), fmt=fmt, files=[], failed=[])
    if ctx.out_dir is not None:
        ctx.out_dir.mkdir(parents=True, exist_ok=True)
    from .symbolic.escape import markdown_cell
    parts = [f"# artidyn report: {markdown_cell(model.name)}"]
    with contextlib.nullcontext() if compiled else reference_only():
        for entry in SECTIONS:
            text, failure = _run_section(entry, model, ctx)
            if failure is not None:
                ctx.failed.append(failure)
            if text:
                parts.append(text)
    if failed is not None:
        failed.extend(ctx.failed)
    text = "\n\n".join(parts) + "\n"
    if ctx.out_dir is not None:
        (ctx.out_dir / "report.md").write_text(text, encoding="utf-8")
        ctx.files.append("report.md")
    return text


# --- sections ----------------------------------------------------------------------------------
def joints_table(model):
    """Joints with their q/v indices, limits, friction, armature and springs (a cylindrical
    joint's two dofs as "rotation / translation")."""
    rows = []
    for i in range(1, model.nb + 1):
        qs, vs = model.q_slice(model.joint_names[i]), model.v_slice(model.joint_names[i])
        one = model.nq_joint[i] == 1
        flat = model.nq_joint[i] == model.nv_joint[i]  # revolute, prismatic, cylindrical
        per_dof = (lambda x, s=vs: " / ".join(fmt(y) for y in x[s])) if flat else (lambda x, s=vs: fmt(x[s.start]))
        lo, up = (per_dof(model.lower, qs), per_dof(model.upper, qs)) if flat else (fmt(None), fmt(None))
        rows.append([model.joint_names[i], model.joint_kind[i], model.body_names[i],
                     f"{qs.start}" if one else f"{qs.start}:{qs.stop}", lo, up,
                     per_dof(model.velocity_limit), per_dof(model.effort_limit), per_dof(model.armature),
                     per_dof(model.damping), per_dof(model.coulomb), per_dof(model.stiffness), per_dof(model.rest)])
    return table(["joint", "type", "body", "q", "lower", "upper", "velocity", "effort", "armature",
                  "damping", "coulomb", "stiffness", "rest"], rows)


def model_section(model, ctx):
    """Tree, joints, dof, masses, limits and the load report."""
    lines = ["## Model", "", "```", model.summary(), "```", "",
             f"dof (nv) = {model.nv}, nq = {model.nq}, total mass = {fmt(model.total_mass)} kg, "
             f"gravity = {[float(g) for g in model.gravity]}", ""]
    bodies = [[str(i), model.body_names[i], fmt(model.mass[i]), " ".join(fmt(c) for c in model.com[i]),
               " ".join(fmt(v) for v in np.linalg.eigvalsh(model.inertia_com[i]))] for i in range(1, model.nb + 1)]
    lines += ["### Bodies (fixed children lumped; com and inertia in the body frame)", "",
              table(["#", "body", "mass", "com", "principal inertia at com"], bodies), ""]
    if model.nb:
        lines += ["### Joints", "", joints_table(model), ""]
    report = model.load_report
    lines += ["### Load report", ""]
    if len(report):
        lines += ["```"] + [one_line(n) for n in report] + ["```"]   # a note per line: none closes the fence
    else:
        lines.append("nothing to report (no defaults applied, nothing ignored)")
    return "\n".join(lines)


model_section.title = "Model"


def dh_section(model, ctx):
    """The Denavit-Hartenberg table the model was built from (if any)."""
    if not getattr(model, "dh", None):
        return None
    conv = model.dh_convention
    keys = ("theta", "d", "a", "alpha") if conv == "classic" else ("alpha", "a", "theta", "d")
    formula = "Rz(theta) Tz(d) Tx(a) Rx(alpha)" if conv == "classic" else "Rx(alpha) Tx(a) Rz(theta) Tz(d)"
    rows = []
    for i, r in enumerate(model.dh, start=1):
        cells = []
        for k in keys:
            val = r[k] if k in ("a", "d") else np.degrees(r[k])
            var = (k == "theta" and r["joint"] == "revolute") or (k == "d" and r["joint"] == "prismatic")
            cells.append((f"q{i}" + (f" + {fmt(val)}" if fmt(val) != "0" else "")) if var else fmt(val))
        rows.append([str(i), r["name"], r["joint"]] + cells)
    head = ["i", "link", "joint"] + [f"{k} (deg)" if k in ("alpha", "theta") else f"{k} (m)" for k in keys]
    return "\n".join([f"## Denavit-Hartenberg table ({conv}: T_(i-1,i) = {formula})", "", table(head, rows)])


dh_section.title = "Denavit-Hartenberg table"


def placement_row(name, kind, body, T):
    from .spatial.rotations import matrix_to_rpy
    rpy, lock = matrix_to_rpy(T[:3, :3], return_flag=True)
    return [name, kind, body] + [fmt(x) for x in T[:3, 3]] + [fmt(np.degrees(a)) for a in rpy] + \
        (["gimbal lock"] if lock else [""])


def geometry_section(model, ctx):
    """Direct geometric model at the neutral configuration: world placement of every frame."""
    from .configuration import neutral
    from .kinematics import body_placements
    T = body_placements(model, ctx.q)
    rows = [placement_row(f.name, f.kind, model.body_names[f.body], T[f.body] @ f.placement) for f in model.frames]
    q = " ".join(fmt(x) for x in ctx.q)
    note = []
    if np.any(ctx.q != neutral(model)):
        note = ["Joints whose limits exclude 0 are at the middle of their limits.", ""]
    return "\n".join([f"## Geometric model at the neutral configuration q = [{q}]", ""] + note + [
                      "World placements: position (m) and roll-pitch-yaw (deg, R = Rz(yaw) Ry(pitch) Rx(roll)).",
                      "", table(["frame", "kind", "body", "x", "y", "z", "roll", "pitch", "yaw", "note"], rows)])


geometry_section.title = "Geometric model at the neutral configuration"
