"""Sections of ``artidyn report MODEL`` (see :mod:`artidyn.report`) about dynamics and simulation.

Each section is ``section(model, ctx) -> Markdown``; with ``ctx.out_dir`` set, plots are saved
there as PNG and listed in ``ctx.files``.

* :func:`dynamics_section`: mass matrix M(q) and gravity torques g(q) at the neutral posture;
* :func:`quintic_torques_section`: RNEA torques along a rest-to-rest quintic motion from the
  neutral posture to a displaced one (:func:`report_posture`), peak values vs effort limits;
* :func:`free_fall_section`: a short unactuated, frictionless simulation released from that
  displaced posture by an adaptive integrator (:data:`FALL_METHOD`, tolerances
  :data:`FALL_RTOL` / :data:`FALL_ATOL`, samples every :data:`FALL_SAMPLE` s), with its energy
  balance. No fixed step: a fixed 0.01 s RK4 step with the joint friction diverged on 30 of the
  104 example-robot-data cases (68 fixed, 36 floating base), their joint damping being stiff
  (max eig(M⁻¹D) up to 1.3e7 1/s). If the integration fails, the section shows the samples it
  completed and says why (a nearly singular mass matrix, for instance).
"""
import contextlib
import warnings

import numpy as np

from ..configuration import difference, within_limits
from ..joints import CYLINDRICAL, FREE, HELICAL, PRISMATIC, REVOLUTE

QUINTIC_T = 2.0         # duration of the report's motion (s)
QUINTIC_SAMPLES = 201
FALL_T = 0.4            # duration of the free fall (s)
FALL_SAMPLE = 1e-2      # spacing of its output samples (s); the integrator chooses its own steps
FALL_METHOD = "dopri5"  # adaptive Dormand-Prince 5(4)
FALL_RTOL, FALL_ATOL = 1e-7, 1e-9
MAX_MATRIX = 12         # print M in full up to this many dof
REFERENCE_FALL_NV = 12  # up to this many dof a report's fall runs on the readable loop (about a second, no compilation)

_METHOD_TEXT = {
    "dopri5": "the adaptive Dormand-Prince 5(4) integrator of `artidyn.simulate` (method 'dopri5')",
    "scipy": "scipy's `solve_ivp` with its adaptive DOP853 (8th-order Runge-Kutta), in the local chart of the "
             "configuration manifold (`artidyn.simulate`, method 'scipy')",
}


def report_posture(model, q0):
    """A posture displaced from ``q0``: every joint angle (revolute, cylindrical, helical) by 0.5 rad, every
    slide (prismatic, cylindrical) by 0.1 m, inside the limits (towards the middle of the range when
    the step would leave it); quaternions kept."""
    q1 = np.array(q0, dtype=float)
    for i in range(1, model.nb + 1):
        t = model.joint_type[i]
        if t not in (REVOLUTE, PRISMATIC, CYLINDRICAL, HELICAL):
            continue
        for j in range(int(model.nq_joint[i])):
            k = int(model.idx_q[i]) + j
            step = 0.5 if t in (REVOLUTE, HELICAL) or (t == CYLINDRICAL and j == 0) else 0.1
            lo, up = float(model.lower[k]), float(model.upper[k])
            target = q0[k] + step if q0[k] + step <= up else q0[k] - step
            if not lo <= target <= up:
                target = 0.5 * (lo + up) if np.isfinite(lo) and np.isfinite(up) else float(np.clip(q0[k], lo, up))
            q1[k] = target
    return q1


_NO_DOF = "The model has no degree of freedom (nv = 0): nothing to compute."


def _names(model):
    from .setup import coordinate_names
    return coordinate_names(model, "v")


def _md(name):
    """A name in the report's prose (names come from model files: escaped; tables escape their cells)."""
    from ..symbolic.escape import markdown_cell
    return markdown_cell(name)


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
        return f"## {dynamics_section.title}\n\n{_NO_DOF}"
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


dynamics_section.title = "Dynamics at the neutral configuration"


def quintic_torques_section(model, ctx):
    """Torques along a quintic motion from the neutral posture to :func:`report_posture`."""
    from ..dynamics import rnea
    from ..report import table
    from .plots import plot_torques
    from .trajectories import quintic_motion

    if model.nv == 0:
        return f"## {quintic_torques_section.title}\n\n{_NO_DOF}"
    q1 = report_posture(model, ctx.q)
    if not np.any(difference(model, ctx.q, q1)):
        return (f"## {quintic_torques_section.title}\n\nNo motion: no revolute or prismatic joint can move from "
                f"the neutral posture (fixed limits, or only spherical / free / continuous joints).")
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
                  title=f"{model.name}: inverse dynamics along a {QUINTIC_T:g} s quintic motion", model=model)
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


quintic_torques_section.title = "Torques along a quintic motion"


def run_fall(model, q1):
    """``(result, error, warnings)``: the frictionless fall from rest at ``q1`` to :data:`FALL_T`.

    If the integration fails (:class:`~artidyn.errors.SimulationError`), ``error`` is that error
    and ``result`` the samples it completed (the error's partial result).
    """
    from ..errors import SimulationError
    from ..kernels import dispatch
    from .simulate import simulate

    # the report runs on the reference code (no compilation) unless asked otherwise; its fall too, up to
    # REFERENCE_FALL_NV dof: beyond, the readable loop would take longer than compiling the engine once.
    # Both routes take the same steps (held equal in the tests): the text does not depend on the route
    # (but for round-off, e.g. in the energy error of a fall).
    compiled = dispatch.kernels_enabled() or model.nv > REFERENCE_FALL_NV
    with _kernels(compiled), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            r = simulate(model, q1, t_final=FALL_T, dt=FALL_SAMPLE, method=FALL_METHOD, rtol=FALL_RTOL,
                         atol=FALL_ATOL)
            return r, None, caught
        except SimulationError as exc:
            if exc.result is None or np.size(exc.result.t) < 2:
                raise
            return exc.result, exc, caught


@contextlib.contextmanager
def _kernels(flag):
    from ..kernels import dispatch
    previous = dispatch.use_kernels(flag)
    try:
        yield
    finally:
        dispatch.use_kernels(previous)


def _friction_note(model, q1):
    """A sentence on the model's joint friction, which the free fall leaves out (or '')."""
    if not (np.any(model.damping) or np.any(model.coulomb)):
        return ""
    from ..dynamics import crba
    fmt = _fmt()
    parts = []
    if np.any(model.damping):
        parts.append(f"viscous damping up to {fmt(np.max(model.damping))} N·m·s/rad")
    if np.any(model.coulomb):
        parts.append(f"Coulomb friction up to {fmt(np.max(model.coulomb))} N·m")
    why = "so that the energy balance measures the integration error alone"
    if np.any(model.damping):
        try:
            import scipy.linalg
            rate = float(np.max(scipy.linalg.eigh(np.diag(model.damping), crba(model, q1), eigvals_only=True)))
        except (np.linalg.LinAlgError, ValueError):
            rate = 0.0
        if rate > 2e3:  # an explicit step would have to stay below 1 ms
            why += (f"; with it the fall would be stiff: the damping's fastest rate at q1, max eig(M⁻¹D) = "
                    f"{fmt(rate, 3)} 1/s, keeps explicit steps below about 2 / rate = {fmt(2.0 / rate, 2)} s")
    if np.any(model.coulomb):
        why += "; Coulomb's sign(v) is discontinuous at rest"
    return f"The model's joint friction ({', '.join(parts)}) is left out, {why}."


def _fmt():
    from ..report import fmt
    return fmt


def free_fall_section(model, ctx):
    """A short frictionless simulation released at rest from :func:`report_posture`."""
    from .plots import plot_energy

    if model.nv == 0:
        return f"## {free_fall_section.title}\n\n{_NO_DOF}"
    q1 = report_posture(model, ctx.q)
    method = FALL_METHOD
    free = model.replace(damping=np.zeros(model.nv), coulomb=np.zeros(model.nv))
    r, error, caught = run_fall(free, q1)
    lines = ["## Free-fall simulation", "", _fall_header(r, method)]
    note = _friction_note(model, q1)
    if note:
        lines += ["", note]
    if error is not None:
        from ..report import error_message
        lines += ["", f"**The integration stopped before t = {_fmt()(FALL_T)} s**: {error_message(error)}", "",
                  f"Shown: the samples it completed, to t = {_fmt()(r.t[-1])} s. {_last_state(free, r)}"]
    lines += [""] + _motion_lines(model, q1, r) + _energy_lines(r.energy)
    outside = _outside_limits(model, r.q)
    if outside:
        lines.append(f"- past their position limits during the fall (not enforced by the simulator): "
                     f"{', '.join(map(_md, outside[:8]))}{' ...' if len(outside) > 8 else ''}")
    other = sorted({str(w.message).splitlines()[0] for w in caught if "limit" not in type(w.message).__name__.lower()})
    lines += [f"- warning: {_md(w)}" for w in other[:3]]
    image = _save(ctx, plot_energy, "free_fall_energy.png", r)
    if image:
        lines += ["", image]
    return "\n".join(lines)


free_fall_section.title = "Free-fall simulation"
free_fall_section.hint = ("The other sections do not depend on this one. `artidyn simulate MODEL` runs a "
                          "simulation with the method and step of your choice.")


def _fall_header(r, method):
    """The sentence saying what was simulated, how, and how many samples and steps it took."""
    fmt = _fmt()
    stats = getattr(r, "stats", None) or {}
    count = ", ".join(f"{stats[k]} {k.replace('_', ' ')}" for k in ("accepted_steps", "rejected_steps",
                                                                     "dynamics_evaluations") if k in stats)
    return (f"Released at rest from q1 (the end of the quintic motion) with no actuator torque, under gravity "
            f"alone: {_METHOD_TEXT.get(method, f'method {method!r}')}, rtol = {fmt(FALL_RTOL)}, "
            f"atol = {fmt(FALL_ATOL)} (the integrator chooses its steps), sampled every {fmt(FALL_SAMPLE)} s: "
            f"{r.t.size} samples to t = {fmt(r.t[-1])} s" + (f" ({count})." if count else "."))


def _motion_lines(model, q1, r):
    """How far the joints (or the floating base) went, and how fast."""
    fmt, names = _fmt(), _names(model)
    t_end = float(r.t[-1])
    dq = np.abs(difference(model, q1, r.q[-1]))
    if not (model.has_floating_base and int(model.joint_type[1]) == FREE):
        k = int(np.argmax(dq))
        k_t, k_v = np.unravel_index(int(np.argmax(np.abs(r.v))), r.v.shape)
        return [f"- largest joint displacement after {fmt(t_end)} s: {fmt(dq[k])} (rad or m, '{_md(names[k])}')",
                f"- fastest motion: '{_md(names[k_v])}' at {fmt(abs(r.v[k_t, k_v]))} rad/s or m/s "
                f"(t = {fmt(r.t[k_t], 3)} s)"]
    rest = np.delete(dq, np.r_[model.v_slice(model.joint_names[1])])
    moved = r.q[-1][:3] - r.q[0][:3]
    expected = 0.5 * np.asarray(model.gravity, dtype=float) * t_end ** 2
    return [f"- the floating base's origin moved {fmt(np.linalg.norm(moved))} m; a free fall g t²/2 is "
            f"{fmt(np.linalg.norm(expected))} m (difference {fmt(np.linalg.norm(moved - expected), 3)} m)",
            "- largest displacement of the other joints: " +
            (f"{fmt(np.max(rest), 3)} (rad or m): a robot falling freely in uniform gravity keeps its shape, so "
             f"this is the integration error" if rest.size else "none (no other joint)")]


def _energy_lines(E):
    fmt = _fmt()
    return [f"- kinetic energy at the end: {fmt(E.kinetic[-1])} J; potential {fmt(E.potential[0])} -> "
            f"{fmt(E.potential[-1])} J",
            f"- total energy {fmt(E.total[0], 9)} -> {fmt(E.total[-1], 9)} J; max |E(t) - E(0)| = "
            f"{fmt(np.max(np.abs(E.total - E.total[0])), 3)} J, {_drift(E):.3g} of the largest kinetic energy "
            f"(without friction E is conserved: this is the integration error)"]


def _drift(E):
    """max |E(t) - E(0)| over the largest kinetic energy of the run."""
    return float(np.max(np.abs(E.total - E.total[0])) / max(float(np.max(np.abs(E.kinetic))), np.finfo(float).tiny))


def _last_state(model, r):
    """What the mass matrix and the velocities look like at the last completed sample."""
    from ..dynamics import crba
    fmt = _fmt()
    eig = np.linalg.eigvalsh(crba(model, r.q[-1]))
    k = int(np.argmax(np.abs(r.v[-1])))
    text = (f"There the mass matrix has eigenvalues from {fmt(eig[0], 3)} to {fmt(eig[-1], 3)} (condition number "
            f"{fmt(eig[-1] / eig[0], 3) if eig[0] > 0 else 'inf'}) and the fastest dof is '{_md(_names(model)[k])}' at "
            f"{fmt(abs(r.v[-1][k]), 3)} rad/s or m/s")
    if not eig[0] > 1e-10 * eig[-1]:
        text += ": the model is nearly singular there (tiny or repaired inertias: see the load report)"
    return text + "."


def _outside_limits(model, Q, tol=1e-9):
    """Names of the 1-dof joints whose value leaves [lower, upper] somewhere in ``Q`` (S, nq)."""
    from .setup import coordinate_names
    Q = np.atleast_2d(Q)
    out = np.any((Q < model.lower - tol) | (Q > model.upper + tol), axis=0)
    names = coordinate_names(model, "q")
    return [names[k] for k in np.nonzero(out)[0]]
