"""Sections of ``artidyn report MODEL`` (see :mod:`artidyn.report`) about dynamics and simulation.

Each section is ``section(model, ctx) -> Markdown``; with ``ctx.out_dir`` set, plots are saved
there as PNG and listed in ``ctx.files``.

* :func:`dynamics_section`: mass matrix M(q) and gravity torques g(q) at the neutral posture;
* :func:`quintic_torques_section`: RNEA torques along a rest-to-rest quintic motion from the
  neutral posture to a displaced one (:func:`report_posture`), peak values vs effort limits;
* :func:`free_fall_section`: a short unactuated simulation (RK4) released from that displaced
  posture, with its energy balance.
"""
import numpy as np

from ..configuration import difference, within_limits
from ..joints import PRISMATIC, REVOLUTE

QUINTIC_T = 2.0         # duration of the report's motion (s)
QUINTIC_SAMPLES = 201
FALL_T, FALL_DT = 0.4, 1e-2
MAX_MATRIX = 12         # print M in full up to this many dof


def report_posture(model, q0):
    """A posture displaced from ``q0``: every revolute joint by 0.5 rad, prismatic by 0.1 m, inside
    the limits (towards the middle of the range when the step would leave it); quaternions kept."""
    q1 = np.array(q0, dtype=float)
    for i in range(1, model.nb + 1):
        if model.joint_type[i] not in (REVOLUTE, PRISMATIC):
            continue
        k = int(model.idx_q[i])
        step = 0.5 if model.joint_type[i] == REVOLUTE else 0.1
        lo, up = float(model.lower[k]), float(model.upper[k])
        target = q0[k] + step if q0[k] + step <= up else q0[k] - step
        if not lo <= target <= up:
            target = 0.5 * (lo + up) if np.isfinite(lo) and np.isfinite(up) else float(np.clip(q0[k], lo, up))
        q1[k] = target
    return q1


def _names(model):
    from .simulate import coordinate_names
    return coordinate_names(model, "v")


def _save(ctx, fig_function, name, *args, **kwargs):
    """Save a plot in ctx.out_dir (if any); returns a Markdown image line or ''."""
    if getattr(ctx, "out_dir", None) is None:
        return ""
    fig_function(*args, path=ctx.out_dir / name, **kwargs)
    ctx.files.append(name)
    return f"![{name}]({name})"


def dynamics_section(model, ctx):
    """Mass matrix and gravity torques at the neutral configuration."""
    from ..dynamics import crba, gravity_torque
    from ..report import table

    if model.nv == 0:
        return None
    fmt = ctx.fmt
    M = crba(model, ctx.q)
    g = gravity_torque(model, ctx.q)
    names = _names(model)
    eig = np.linalg.eigvalsh(M)
    lines = ["## Dynamics at the neutral configuration", "",
             f"Mass matrix M(q) ({model.nv} x {model.nv}, armature included): eigenvalues from {fmt(eig[0])} "
             f"to {fmt(eig[-1])}, condition number {fmt(eig[-1] / eig[0]) if eig[0] > 0 else 'inf'}.", ""]
    if model.nv <= MAX_MATRIX:
        lines += [table(["M"] + names, [[n] + [fmt(x, 4) for x in row] for n, row in zip(names, M)]), ""]
    else:
        lines += [table(["dof", "M_kk"], [[n, fmt(x)] for n, x in zip(names, np.diag(M))]), ""]
    rows = []
    for k, n in enumerate(names):
        lim = float(model.effort_limit[k])
        share = f"{100 * abs(g[k]) / lim:.1f} %" if np.isfinite(lim) and lim > 0 else "-"
        rows.append([n, fmt(g[k]), fmt(lim), share])
    lines += ["Gravity torques g(q) = rnea(q, 0, 0) (N·m or N; a floating base's entries are the "
              "wrench that would hold it):", "", table(["dof", "g(q)", "effort limit", "of limit"], rows)]
    return "\n".join(lines)


def quintic_torques_section(model, ctx):
    """Torques along a quintic motion from the neutral posture to :func:`report_posture`."""
    from ..dynamics import rnea
    from ..report import table
    from .plots import plot_torques
    from .trajectories import quintic_motion

    q1 = report_posture(model, ctx.q)
    if model.nv == 0 or not np.any(difference(model, ctx.q, q1)):
        return None
    fmt = ctx.fmt
    t = np.linspace(0.0, QUINTIC_T, QUINTIC_SAMPLES)
    q, v, a = quintic_motion(model, ctx.q, q1, QUINTIC_T, t)
    tau = rnea(model, q, v, a)
    names = _names(model)
    peak_at = np.argmax(np.abs(tau), axis=0)
    rows = []
    for k, n in enumerate(names):
        lim, peak = float(model.effort_limit[k]), float(abs(tau[peak_at[k], k]))
        ok = "-" if not (np.isfinite(lim) and lim > 0) else ("EXCEEDED" if peak > lim else f"{100 * peak / lim:.1f} %")
        rows.append([n, fmt(peak), fmt(t[peak_at[k]], 3), fmt(lim), ok])
    image = _save(ctx, plot_torques, "torques_quintic.png", t, tau, names, limits=model.effort_limit,
                  title=f"{model.name}: inverse dynamics along a {QUINTIC_T:g} s quintic motion")
    inside = bool(np.all(within_limits(model, q)))
    lines = ["## Torques along a quintic motion", "",
             f"Rest-to-rest quintic (s = 10u³ - 15u⁴ + 6u⁵) in {QUINTIC_T:g} s from the neutral posture to "
             f"q1 = [{' '.join(fmt(x, 4) for x in q1)}] (revolute joints +0.5 rad, prismatic +0.1 m, kept "
             f"inside the limits: {'yes' if inside else 'NO'}); torques by RNEA (friction included) at "
             f"{QUINTIC_SAMPLES} samples.", "",
             table(["dof", "peak torque", "at t (s)", "effort limit", "of limit"], rows)]
    if image:
        lines += ["", image]
    return "\n".join(lines)


def free_fall_section(model, ctx):
    """A short unactuated simulation released at rest from :func:`report_posture`."""
    from .plots import plot_energy
    from .simulate import simulate

    if model.nv == 0:
        return None
    fmt = ctx.fmt
    q1 = report_posture(model, ctx.q)
    r = simulate(model, q1, t_final=FALL_T, dt=FALL_DT, method="rk4")
    E = r.energy
    moved = np.max(np.abs(difference(model, q1, r.q[-1])))
    friction = bool(np.any(model.damping) or np.any(model.coulomb))
    image = _save(ctx, plot_energy, "free_fall_energy.png", r)
    lines = ["## Free-fall simulation", "",
             f"Released at rest from q1 with no actuator torque (gravity{', joint friction' if friction else ''} "
             f"only): {r.n_steps} RK4 steps of {fmt(r.dt)} s on the configuration manifold.", "",
             f"- largest joint displacement after {FALL_T:g} s: {fmt(moved)} (rad or m)",
             f"- kinetic energy at the end: {fmt(E.kinetic[-1])} J; potential {fmt(E.potential[0])} -> "
             f"{fmt(E.potential[-1])} J",
             f"- total energy {fmt(E.total[0], 9)} -> {fmt(E.total[-1], 9)} J; drift / max kinetic energy = "
             f"{fmt(r.energy_drift(), 3)}" + (" (friction dissipates energy)" if friction else "")]
    if image:
        lines += ["", image]
    return "\n".join(lines)
