"""Command-line tools of the simulation package, registered on the ``artidyn`` CLI.

``artidyn torques MODEL --trajectory FILE.csv [--out DIR]``
    Inverse dynamics (RNEA) along a sampled trajectory: writes ``torques.csv`` and
    ``torques.png`` and prints the peak torque of each joint against its effort limit.
``artidyn simulate MODEL [--q0 ...] [--v0 ...] [--deg] [--t-final T] [--dt DT] [--method M] [--out DIR]``
    Unactuated simulation (gravity, friction): writes ``simulation.csv``, ``simulation.npz``,
    ``trajectory.png`` and ``energy.png`` and prints the energy balance. Without ``--dt`` the
    step comes from the model (:func:`artidyn.sim.default_dt`); ``--method auto`` (the default)
    takes RK4, or the implicit method when the joint damping limits RK4's step or the model has
    Coulomb friction (many real URDFs: tiny finger links with damping and friction).

``MODEL`` is anything :func:`artidyn.io.load` accepts (a URDF or DH file, a built-in name, an
example-robot-data stem). Each handler returns 0 on success; errors propagate as artidyn errors
(one line from the CLI: the trajectory file is checked first, naming the row of a bad value).
Existing output files are refused unless ``--force`` is given. ``--floating-base`` /
``--fixed-base`` as on every command (:func:`artidyn.cli.add_model_argument`; a DH table or a
built-in robot refuses ``--floating-base``). ``--q0`` (alias ``--q``) is checked against the joint
limits (:func:`artidyn.cli.check_limits`); with ``--deg`` the angles of ``--q0`` are in degrees
and the angular rates of ``--v0`` (alias ``--v``) in degrees per second.
"""
import pathlib
import sys
import warnings

import numpy as np

from .simulate import METHODS


def register(subparsers):
    """Add the ``torques`` and ``simulate`` sub-commands to an argparse ``subparsers`` object."""
    from ..cli import add_limits_argument, number
    p = subparsers.add_parser("torques", help="joint torques (inverse dynamics) along a trajectory file",
                              description="Inverse dynamics (RNEA) along a sampled trajectory: writes "
                                          "torques.csv and torques.png in --out.")
    _model_arguments(p)
    p.add_argument("--trajectory", required=True, metavar="FILE.csv",
                   help="CSV with a header: t, then q_<joint> (or bare joint names) and optional "
                        "v_<joint>, a_<joint> columns; missing v, a are obtained by finite differences")
    p.add_argument("--out", default=".", metavar="DIR", help="output folder (default: current folder)")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.set_defaults(func=cmd_torques)

    s = subparsers.add_parser("simulate", help="simulate the unactuated model (gravity and friction)",
                              description="Unactuated simulation (gravity, joint friction) from q0, v0: writes "
                                          "simulation.csv, simulation.npz, trajectory.png and energy.png in --out "
                                          "and prints the energy balance.")
    _model_arguments(s)
    s.add_argument("--q0", "--q", dest="q0", nargs="+", metavar="Q", help="initial configuration (nq numbers, "
                   "spaces or commas; default: the neutral configuration, joints whose limits exclude 0 at the "
                   "middle of their limits)")
    s.add_argument("--v0", "--v", dest="v0", type=number, nargs="+", metavar="V",
                   help="initial velocity (nv numbers; default 0)")
    s.add_argument("--deg", action="store_true", help="--q0 angles in degrees, --v0 angular rates in deg/s")
    add_limits_argument(s)
    s.add_argument("--t-final", type=number, default=1.0, help="duration in seconds (default 1)")
    s.add_argument("--dt", type=number, default=None,
                   help="time step in seconds (default: from the model's fastest mode, at most 0.001; for "
                        "dopri5 the sample spacing)")
    s.add_argument("--method", default="auto", choices=METHODS,
                   help="integrator (default auto: rk4, or implicit for stiff joint damping / Coulomb friction)")
    s.add_argument("--every", type=int, default=1, metavar="K", help="keep every K-th step (default 1)")
    s.add_argument("--out", default=".", metavar="DIR", help="output folder (default: current folder)")
    s.add_argument("--force", action="store_true", help="overwrite existing output files")
    s.set_defaults(func=cmd_simulate)


def _model_arguments(parser):
    from ..cli import add_model_argument

    add_model_argument(parser)       # MODEL, --floating-base / --fixed-base


def load_model(args):
    from ..cli import model_from

    return model_from(args)


def _out_dir(args, names=(), make=True):
    """The output folder (made if needed; ``make=False`` only checks, so that a command refused
    later for its inputs leaves no empty folder), after refusing to overwrite ``names`` without
    --force."""
    from ..errors import InputError

    out = pathlib.Path(args.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {out}: exists and is not a folder")
    if not getattr(args, "force", False):
        for name in names:
            if (out / name).exists():
                raise InputError(f"{out / name} exists; pass --force to overwrite it")
    if make:
        out.mkdir(parents=True, exist_ok=True)
    return out


def check_trajectory_csv(path):
    """Refuse, naming the file and the row, what the CSV reader would misread: bytes that are not
    UTF-8, no header, a header without rows, a row with non-numbers, NaN / infinite values, time
    stamps that do not increase."""
    from ..errors import InputError
    from ..io.safexml import xml_number

    path = pathlib.Path(path)
    if not path.is_file():
        raise InputError(f"--trajectory {path}: no such file")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        row = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{path}, row {row}: byte 0x{data[exc.start]:02x} is not UTF-8 text (a CSV file is "
                         f"expected)") from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise InputError(f"{path}: empty file (expected a header row 't, q_<joint> ...' and data rows)")
    header = [h.strip() for h in lines[0].split(",")]
    if all(_numeric(h) for h in header):
        raise InputError(f"{path}, row 1: no header row (expected column names 't, q_<joint> ...')")
    rows = [(k, ln) for k, ln in enumerate(lines[1:], start=2) if ln.strip()]
    if not rows:
        raise InputError(f"{path}: a header and no data rows")
    t_col = header.index("t") if "t" in header else None
    last = None
    for k, ln in rows:
        cells = [c.strip() for c in ln.split(",")]
        if len(cells) != len(header):
            raise InputError(f"{path}, row {k}: {len(cells)} values for {len(header)} columns")
        for name, c in zip(header, cells):
            try:
                xml_number(c)
            except ValueError:
                raise InputError(f"{path}, row {k}, column '{name}': {c[:30]!r} is not a finite number") from None
        if t_col is not None:
            t = float(cells[t_col])
            if last is not None and not t > last:
                raise InputError(f"{path}, row {k}: time stamp {t:g} does not increase (previous {last:g})")
            last = t


def _numeric(text):
    from ..io.safexml import xml_number
    try:
        xml_number(text)
        return True
    except ValueError:
        return False


def cmd_torques(args):
    """``artidyn torques``: RNEA along the trajectory of a CSV file."""
    from ..dynamics import rnea
    from .plots import plot_torques
    from .setup import coordinate_names
    from .trajectories import read_trajectory_csv, velocities_from_positions

    check_trajectory_csv(args.trajectory)
    _out_dir(args, ("torques.csv", "torques.png"), make=False)   # refuse to overwrite before computing
    model = load_model(args)
    t, q, v, a = read_trajectory_csv(model, args.trajectory)
    how = "from the file"
    if v is None or a is None:
        v_fd, a_fd = velocities_from_positions(model, t, q)
        v = v_fd if v is None else v
        a = a_fd if a is None else a
        how = "by finite differences of q"
    tau = np.atleast_2d(rnea(model, q, v, a))
    out = _out_dir(args, ("torques.csv", "torques.png"))
    names = coordinate_names(model, "v")
    np.savetxt(out / "torques.csv", np.column_stack([t, tau]), delimiter=",", comments="", fmt="%.17g",
               header=",".join(["t"] + [f"tau_{n}" for n in names]))
    plot_torques(t, tau, names, out / "torques.png", limits=model.effort_limit,
                 title=f"{model.name}: inverse dynamics along {pathlib.Path(args.trajectory).name}")
    print(f"{model.name}: {t.size} samples from t = {t[0]:.6g} to {t[-1]:.6g} s (v, a {how})")
    print(f"{'joint':<28} {'max |tau|':>12} {'effort limit':>13}")
    peak = np.max(np.abs(tau), axis=0)
    for k, n in enumerate(names):
        lim = float(model.effort_limit[k])
        flag = "  EXCEEDED" if np.isfinite(lim) and lim > 0 and peak[k] > lim else ""
        print(f"{n:<28} {peak[k]:>12.6g} {lim:>13.6g}{flag}")
    print(f"wrote {out / 'torques.csv'} and {out / 'torques.png'}")
    return 0


def cmd_simulate(args):
    """``artidyn simulate``: free motion from q0, v0 under gravity and the model's friction."""
    from ..cli import parse_q, parse_v
    from .plots import plot_energy
    from ..errors import SimulationError
    from .simulate import JointLimitWarning, auto_method, default_dt, simulate

    files = ("simulation.csv", "simulation.npz", "trajectory.png", "energy.png")
    _out_dir(args, files, make=False)   # refuse to overwrite before computing
    model = load_model(args)
    q0 = parse_q(model, args.q0, args.deg, what="--q0", check=not args.ignore_limits)
    v0 = None if args.v0 is None else parse_v(model, args.v0, args.deg, what="--v0")
    method = auto_method(model, q0) if args.method == "auto" else args.method
    print(f"{model.name}: method {method}, " + (f"dt = {args.dt:g} s" if args.dt else
          f"dt = {default_dt(model, q0, method):g} s (from the model)" if method != "dopri5" else "adaptive"))
    failure = None
    try:
        with warnings.catch_warnings():  # the crossings are listed once, in the summary below
            warnings.simplefilter("ignore", JointLimitWarning)
            result = simulate(model, q0, v0, t_final=args.t_final, dt=args.dt, method=method,
                              record_every=args.every if method not in ("dopri5", "scipy") else 1)
    except SimulationError as exc:       # keep what was computed, then report the failure
        failure, result = exc, exc.result
    out = _out_dir(args, files)
    result.to_csv(out / "simulation.csv")
    result.to_npz(out / "simulation.npz")
    result.plot(out / "trajectory.png", what=("q", "v", "energy"))
    plot_energy(result, out / "energy.png")
    E = result.energy
    print(repr(result))
    print(f"energy: kinetic {E.kinetic[-1]:.6g} J, potential {E.potential[-1]:.6g} J, "
          f"total {E.total[0]:.9g} -> {E.total[-1]:.9g} J (drift / max kinetic = {result.energy_drift():.3g})")
    print(f"wall time {result.wall_time:.3g} s ({result.stats.get('accepted_steps', 0)} steps)")
    if result.limit_events:
        joints = sorted({e.joint for e in result.limit_events})
        print(f"{len(result.limit_events)} joint-limit crossing(s) (limits are not enforced yet): {', '.join(joints[:8])}"
              + (" ..." if len(joints) > 8 else ""))
    print(f"wrote {out / 'simulation.csv'}, simulation.npz, trajectory.png, energy.png")
    if failure is not None:
        print(f"artidyn: error: {failure} (the files hold the run up to there)", file=sys.stderr)
        return 2
    return 0
