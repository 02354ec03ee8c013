"""Model report: a text (Markdown) document made of sections.

``SECTIONS`` lists the sections in order. An entry is a callable ``section(model, ctx)`` or a
string ``"package.module:function"`` imported when the report is built (a module that does not
exist yet is skipped). A section returns Markdown text (starting with a ``## `` title) or None.
``ctx`` carries ``out_dir`` (a :class:`pathlib.Path` or None: where a section may write files,
listed in ``ctx.files``), ``q`` (the neutral configuration) and ``fmt`` (number formatting).
To add a section, append one entry to ``SECTIONS``, e.g. ``"artidyn.dynamics.report:section"``.
"""
import importlib
import pathlib
from types import SimpleNamespace

import numpy as np

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
    """A Markdown table (aligned columns) from a header and rows of strings."""
    cols = [list(header)] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[k]) for r in cols) for k in range(len(header))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    return "\n".join([line(cols[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in cols[1:]])


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


def build_report(model, out_dir=None):
    """The report of ``model`` as Markdown text; with ``out_dir`` also written to report.md there."""
    from .configuration import neutral
    ctx = SimpleNamespace(out_dir=None if out_dir is None else pathlib.Path(out_dir),
                          q=neutral(model), fmt=fmt, files=[])
    if ctx.out_dir is not None:
        ctx.out_dir.mkdir(parents=True, exist_ok=True)
    parts = [f"# artidyn report: {model.name}"]
    for entry in SECTIONS:
        section = _resolve(entry)
        text = section(model, ctx) if section is not None else None
        if text:
            parts.append(text.rstrip())
    text = "\n\n".join(parts) + "\n"
    if ctx.out_dir is not None:
        (ctx.out_dir / "report.md").write_text(text, encoding="utf-8")
        ctx.files.append("report.md")
    return text


# --- sections ----------------------------------------------------------------------------------
def joints_table(model):
    """Joints with their q/v indices, limits, friction and armature."""
    rows = []
    for i in range(1, model.nb + 1):
        qs, vs = model.q_slice(model.joint_names[i]), model.v_slice(model.joint_names[i])
        one = model.nq_joint[i] == 1
        lo, up = (model.lower[qs.start], model.upper[qs.start]) if one else (None, None)
        v0 = vs.start
        rows.append([model.joint_names[i], model.joint_kind[i], model.body_names[i],
                     f"{qs.start}" if one else f"{qs.start}:{qs.stop}", fmt(lo), fmt(up),
                     fmt(model.velocity_limit[v0]), fmt(model.effort_limit[v0]), fmt(model.armature[v0]),
                     fmt(model.damping[v0]), fmt(model.coulomb[v0])])
    return table(["joint", "type", "body", "q", "lower", "upper", "velocity", "effort", "armature",
                  "damping", "coulomb"], rows)


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
        lines += ["```"] + [str(n) for n in report] + ["```"]
    else:
        lines.append("nothing to report (no defaults applied, nothing ignored)")
    return "\n".join(lines)


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


def placement_row(name, kind, body, T):
    from .spatial.rotations import matrix_to_rpy
    rpy, lock = matrix_to_rpy(T[:3, :3], return_flag=True)
    return [name, kind, body] + [fmt(x) for x in T[:3, 3]] + [fmt(np.degrees(a)) for a in rpy] + \
        (["gimbal lock"] if lock else [""])


def geometry_section(model, ctx):
    """Direct geometric model at the neutral configuration: world placement of every frame."""
    from .kinematics import body_placements
    T = body_placements(model, ctx.q)
    rows = [placement_row(f.name, f.kind, model.body_names[f.body], T[f.body] @ f.placement) for f in model.frames]
    q = " ".join(fmt(x) for x in ctx.q)
    return "\n".join([f"## Geometric model at the neutral configuration q = [{q}]", "",
                      "World placements: position (m) and roll-pitch-yaw (deg, R = Rz(yaw) Ry(pitch) Rx(roll)).",
                      "", table(["frame", "kind", "body", "x", "y", "z", "roll", "pitch", "yaw", "note"], rows)])
