"""The ``artidyn`` command line (also ``python -m artidyn``).

    artidyn info MODEL                 tree, joints, dof, masses, limits, DH table, load report
    artidyn fk MODEL --q ... [--frame F] [--deg]   placement of a frame: 4x4, xyz, rpy, quaternion
    artidyn robots                     the model names MODEL accepts: built-ins, example-robot-data
    artidyn compile [--jobs N]         compile every numba kernel now (the installation does it)
    artidyn report MODEL [--out DIR] [--no-files] [--traceback]
                                       model report (artidyn.report.build_report); a section that
                                       fails says so in the report (exit status 0, a warning)

MODEL is a built-in name (puma560, rx90, planar2r, pendulum, cart_pendulum), a model file
(.urdf, .xml / .mjcf (MJCF), or a DH table .toml / .yaml) or an example-robot-data name (e.g.
ur5_robot, solo12, anymal_c_simple_description/anymal; ``artidyn robots`` lists them). Every
command that takes MODEL takes ``--floating-base`` / ``--fixed-base`` (:func:`add_model_argument`);
without them an example-robot-data robot that walks or flies is floating, by name or by path
alike, and any other URDF is fixed (:func:`artidyn.load`).

Joint values (``fk --q``, ``ik --q0``, ``simulate --q0``, ``view --q``) are in radians and metres,
or degrees for the angles with ``--deg``; a value outside its joint's limits by more than
``LIMIT_MARGIN`` (1e-6 plus 2 % of the joint's range) is refused, naming the joint and its limits
and suggesting ``--deg`` when the angles look like degrees (:func:`check_limits`); ``--ignore-limits``
takes them anyway. Without values the default posture is used (:func:`artidyn.report.default_posture`).
The installation compiles the numba kernels (``artidyn compile`` does it again); a kernel that
still compiles at its first call says so on stderr (:mod:`artidyn.firstuse`; ``ARTIDYN_QUIET=1``
silences it), and the run times a command prints exclude the compilation.

Other modules add subcommands: each module of ``COMMAND_MODULES`` provides
``register(subparsers)``, which adds its parsers and sets ``func`` (``args -> int or None``) with
``parser.set_defaults(func=...)``; :func:`add_model_argument` and :func:`model_from` help.
Errors print one line ``artidyn: error: ...`` on stderr and exit with status 2 (usage errors,
unreadable files, bad numbers, and also unexpected internal errors, which say so; set
``ARTIDYN_TRACEBACK=1`` for their traceback); warnings print one line ``artidyn: warning: ...``.
Commands that write files refuse to overwrite an existing one unless given ``--force``
(:func:`refuse_overwrite`).
"""
import argparse
import importlib
import sys

import numpy as np

from .checks import LIMIT_MARGIN   # tolerance beyond a joint limit (the SRDF postures use it too)

COMMAND_MODULES = ["artidyn.ik.commands", "artidyn.sim.commands", "artidyn.symbolic.commands",
                   "artidyn.viewer.commands", "artidyn.identification.commands"]
EXIT_ERROR = 2


EXAMPLES = {
    "robots": ["artidyn robots", "artidyn models | grep solo"],
    "compile": ["artidyn compile", "artidyn compile --only simulation contact --jobs 1"],
    "info": ["artidyn info panda", "artidyn info solo12 --fixed-base", "artidyn info ur5_robot --floating-base"],
    "fk": ["artidyn fk puma560 --q 0 45 -90 0 0 0 --deg", "artidyn fk ur5_robot --q 0 -1.57 1.57 0 0 0 --frame tool0"],
    "ik": ["artidyn ik puma560 --xyz 0.5 0.2 0.3 --rpy 180 0 0 --deg --all",
           "artidyn ik panda --frame panda_hand --xyz 0.4 0 0.5"],
    "report": ["artidyn report puma560 --no-files", "artidyn report panda --out panda-report --force"],
    "simulate": ["artidyn simulate pendulum --q0 90 --deg --t-final 2 --out run",
                 "artidyn simulate solo12 --t-final 0.5 --out solo-run"],
    "torques": ["artidyn torques ur5_robot --trajectory traj.csv --out torques"],
    "view": ["artidyn view panda", "artidyn view puma560 --q 0 45 -90 0 0 0 --deg --out puma.html",
             "artidyn view pendulum --result run/simulation.npz"],
    "symbolic": ["artidyn symbolic planar2r --what M", "artidyn symbolic puma560 --what g --format c"],
    "identify": ["artidyn identify puma560 data.csv --out identification"],
}


MAIN_EPILOG = """examples:
  artidyn report puma560 --no-files       the model report of the Puma 560
  artidyn fk panda --q 0 -45 0 -135 0 90 45 0 0 --deg
  artidyn robots                          the names MODEL accepts

MODEL: a built-in name, a .urdf / .xml / .mjcf / .toml / .yaml file, or an example-robot-data
name. Floating base: with --floating-base, or for an example-robot-data robot that walks or
flies (solo12, talos ..., by name or by the path of its URDF alike; --fixed-base fixes it).
Joint values are in rad and m (--deg: angles in degrees); values outside the joint limits by
more than 1e-6 + 2 % of the range are refused (--ignore-limits takes them).
'artidyn COMMAND --help' describes each command."""


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, keeping the lines of an "examples:" epilog as written."""

    def _fill_text(self, text, width, indent):
        head, sep, examples = text.partition("examples:\n")
        if not sep:
            return super()._fill_text(text, width, indent)
        head = super()._fill_text(head, width, indent) + "\n\n" if head.strip() else ""
        return head + "".join(indent + line for line in (sep + examples).splitlines(keepends=True))


class OneLineParser(argparse.ArgumentParser):
    """argparse, with a usage error as one line ``artidyn: error: ...`` (exit status 2)."""

    def error(self, message):
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def number(text):
    """An argparse ``type``: a plain decimal or exponent number (``1``, ``-0.5``, ``2e-3``); refuses
    ``1_5``, non-ASCII digits, 'nan' and 'inf', which Python's float() would take."""
    from .io.safexml import xml_number
    try:
        return xml_number(str(text).strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number") from None


def refuse_overwrite(paths, force):
    """InputError when one of ``paths`` exists and ``force`` is false: name it, hint --force."""
    import pathlib

    from .errors import InputError
    if force:
        return
    for p in paths:
        if pathlib.Path(p).exists():
            raise InputError(f"{p} exists; pass --force to overwrite it")


def add_force_argument(parser):
    parser.add_argument("--force", action="store_true", help="overwrite existing output files")


def add_model_argument(parser):
    """The MODEL argument and the base options every command that loads a model takes:
    ``--floating-base`` / ``--fixed-base`` (``args.floating_base``: True, False or None = the
    rule of :func:`artidyn.load`)."""
    parser.add_argument("model", metavar="MODEL",
                        help="built-in name (puma560 ...), model file (.urdf, .xml/.mjcf, .toml/.yaml DH table) "
                             "or example-robot-data name (solo12, anymal_c ...); `artidyn robots` lists them")
    base = parser.add_mutually_exclusive_group()
    base.add_argument("--floating-base", dest="floating_base", action="store_const", const=True, default=None,
                      help="URDF: add a free root joint (default: only for the example-robot-data robots "
                           "that walk or fly, by name or by path alike)")
    base.add_argument("--fixed-base", dest="floating_base", action="store_const", const=False,
                      help="keep the base fixed, also for a walking example-robot-data robot")
    add = parser.add_argument

    def add_argument(*args, **kwargs):
        # a command module written before add_model_argument added --floating-base adds its own:
        # keep this one (same destination, same meaning) instead of an argparse conflict
        if args == ("--floating-base",):
            return parser._option_string_actions["--floating-base"]
        return add(*args, **kwargs)
    parser.add_argument = add_argument


def add_deg_argument(parser, what="--q"):
    parser.add_argument("--deg", action="store_true",
                        help=f"{what}: revolute angles in degrees (prismatic values stay in metres)")


def add_limits_argument(parser):
    parser.add_argument("--ignore-limits", action="store_true",
                        help="accept joint values outside the joint limits (refused by default)")


_CURRENT = [None]     # the parsed arguments of the running command (see model_from)


def model_from(args_or_name, floating_base=None):
    """The model named on the command line (see :func:`artidyn.load`).

    ``args_or_name``: the parsed arguments (``args.model``, ``args.floating_base``) or the name;
    given the bare name of the running command's MODEL, its ``--floating-base`` / ``--fixed-base``
    still applies, so every command follows the same rule.
    """
    from .io import load
    if isinstance(args_or_name, argparse.Namespace):
        name, floating_base = args_or_name.model, getattr(args_or_name, "floating_base", None)
    else:
        name = args_or_name
        current = _CURRENT[0]
        if floating_base is None and current is not None and getattr(current, "model", None) == name:
            floating_base = getattr(current, "floating_base", None)
    return load(name, floating_base=floating_base)


def parse_numbers(values, what):
    """The numbers of command-line values (commas or spaces); InputError naming ``what``."""
    from .errors import InputError
    from .io.safexml import xml_number
    items = [v for s in values for v in str(s).replace(",", " ").split()]
    try:
        return np.array([xml_number(v) for v in items], dtype=float)
    except ValueError:
        bad = next(v for v in items if not _is_number(v))
        raise InputError(f"{what}: numbers expected, {bad!r} is not a finite number (values: "
                         f"{' '.join(items)[:80]!r})") from None


def parse_q(model, values, deg=False, what="--q", check=True):
    """A configuration from command-line numbers (commas or spaces); degrees for the angles with
    ``deg``. No values: the default posture (:func:`artidyn.report.default_posture`). ``check``:
    refuse values outside the joint limits (:func:`check_limits`)."""
    from .errors import ShapeError
    if not values:
        from .report import default_posture
        return default_posture(model)
    q = parse_numbers(values, what)
    if q.shape != (model.nq,):
        raise ShapeError(f"{what} has {q.size} values, model '{model.name}' needs nq = {model.nq} "
                         f"(joints: {', '.join(model.joint_names[1:])})")
    if check:
        check_limits(model, q, deg, what)
    if deg:
        angles = angle_entries(model)
        q[angles] = np.radians(q[angles])
    return q


def parse_v(model, values, deg=False, what="--v0"):
    """A velocity (nv numbers) from the command line; angular rates in deg/s with ``deg``."""
    from .errors import ShapeError
    v = parse_numbers(values, what)
    if v.shape != (model.nv,):
        raise ShapeError(f"{what} has {v.size} values, model '{model.name}' needs nv = {model.nv}")
    if deg:
        rates = [int(model.idx_v[i]) for i in range(1, model.nb + 1)
                 if model.joint_kind[i] in ("revolute", "continuous", "cylindrical")]
        v[rates] = np.radians(v[rates])
    return v


def check_limits(model, q_user, deg=False, what="--q"):
    """InputError when a value of ``q_user`` (as typed: degrees for the angles when ``deg``) is
    outside its joint's limits by more than ``LIMIT_MARGIN`` (1e-6 + 2 % of the range). The
    message names the joint, its value and limits, and suggests --deg when the angles look like
    degrees (an angle above 2 pi in magnitude)."""
    from .errors import InputError
    angles = set(angle_entries(model))
    scale = np.ones(model.nq)
    if deg:
        scale[list(angles)] = 180.0 / np.pi
    bad = []
    for i in range(1, model.nb + 1):
        if model.nq_joint[i] != model.nv_joint[i]:       # quaternion joints: no limits
            continue
        for k in range(int(model.idx_q[i]), int(model.idx_q[i] + model.nq_joint[i])):
            lo, up = float(model.lower[k]), float(model.upper[k])
            x = float(q_user[k]) / scale[k]
            if not (np.isfinite(lo) or np.isfinite(up)):
                continue
            rng = up - lo if np.isfinite(up - lo) else 0.0
            tol = LIMIT_MARGIN[0] + LIMIT_MARGIN[1] * rng
            if x < lo - tol or x > up + tol:
                bad.append((i, k, lo, up))
    if not bad:
        return
    i, k, lo, up = bad[0]
    unit = "deg" if deg and k in angles else ("rad" if k in angles else "m")
    s = scale[k]
    more = f" (and {len(bad) - 1} more joint value(s) outside their limits)" if len(bad) > 1 else ""
    hint = ""
    if not deg and any(abs(q_user[a]) > 2 * np.pi for a in angles):
        hint = "; the angles look like degrees: pass --deg"
    raise InputError(f"{what}: joint '{model.joint_names[i]}' = {q_user[k]:g} {unit} is outside its limits "
                     f"[{lo * s:.6g}, {up * s:.6g}] {unit}{more}{hint} (--ignore-limits accepts it)")


def _is_number(text):
    try:
        number(text)
        return True
    except argparse.ArgumentTypeError:
        return False


def angle_entries(model):
    """Indices in q of the revolute, continuous and cylindrical joint angles (what --deg converts)."""
    return [int(model.idx_q[i]) for i in range(1, model.nb + 1)
            if model.joint_kind[i] in ("revolute", "continuous", "cylindrical")]


# --- commands ----------------------------------------------------------------------------------
def cmd_info(args):
    from .report import dh_section, model_section
    model = model_from(args)
    parts = [model_section(model, None), dh_section(model, None)]
    print("\n\n".join(p for p in parts if p))
    return 0


def cmd_fk(args):
    from .kinematics import frame_placement
    from .spatial.rotations import matrix_to_quat, matrix_to_rpy
    model = model_from(args)
    q = parse_q(model, args.q, args.deg, check=not args.ignore_limits)
    frame = args.frame if args.frame is not None else model.body_names[-1]
    T = frame_placement(model, q, frame)
    rpy, lock = matrix_to_rpy(T[:3, :3], return_flag=True)
    quat = matrix_to_quat(T[:3, :3])
    T, rpy, quat = T + 0.0, rpy + 0.0, quat + 0.0  # no "-0." in the print-out
    with np.printoptions(precision=6, suppress=True):
        print(f"model '{model.name}', frame '{frame}', q = {q}")
        print("placement in the world (4x4):")
        print(T)
        print(f"xyz (m):              {T[:3, 3]}")
        print(f"rpy (rad):            {rpy}   (R = Rz(yaw) Ry(pitch) Rx(roll))" + ("  gimbal lock" if lock else ""))
        print(f"rpy (deg):            {np.degrees(rpy)}")
        print(f"quaternion (x y z w): {quat}")
    return 0


def cmd_report(args):
    """The report; exit 0 even when some sections failed (each says why, a warning on stderr)."""
    from .report import build_report
    try:
        model = model_from(args)
    except (KeyError, ValueError, OSError):
        raise  # artidyn's own errors: one line from main()
    except Exception as exc:  # e.g. ImportError: example-robot-data not installed
        print(f"artidyn: error: cannot load model {args.model!r}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_ERROR
    out = None if args.no_files else args.out
    if out:
        import pathlib
        refuse_overwrite([pathlib.Path(out) / "report.md"], args.force)
    failed = []
    text = build_report(model, out, failed=failed)
    print(text, end="")
    if failed:
        names = ", ".join(f"'{f.title}' ({type(f.error).__name__})" for f in failed)
        print(f"artidyn: warning: {len(failed)} report section(s) failed: {names}; each says why in the report"
              + ("" if args.traceback else " (--traceback for details)"), file=sys.stderr)
        if args.traceback:
            for f in failed:
                print(f"--- section '{f.title}':\n{f.traceback}", file=sys.stderr, end="")
    if out:
        print(f"(report and plots written to {out}/)", file=sys.stderr)
    return 0


def cmd_robots(args):
    """The names MODEL accepts: built-in models and example-robot-data robots (floating base where
    they walk or fly)."""
    from .models import builtin, erd
    print("built-in models (artidyn.models):")
    for name in builtin.names():
        print(f"  {name}")
    for name in builtin.CLOSED_CHAINS:
        print(f"  {name}  (closed chain: its loop closure is declared in the model)")
    try:
        names = erd.example_robot_names()
    except Exception as exc:       # the package is a dependency; say so if it cannot be read
        print(f"example-robot-data: not readable ({exc})")
        return 0
    print(f"example-robot-data ({len(names)} robots; * floating base):")
    for name in names:
        print(f"  {name}{' *' if erd.default_floating(name) else ''}")
    aliases = ", ".join(f"{a} = {b}" for a, b in getattr(erd, "ALIASES", {}).items())
    if aliases:
        print(f"short names: {aliases}")
    return 0


def cmd_compile(args):
    """Compile every numba kernel now (:mod:`artidyn.warmup`); exit 1 when a group failed."""
    from .warmup import warm_up
    results = warm_up(args.jobs, args.only)
    return 0 if all(err is None for _, err in results.values()) else 1


def _register_core(sub):
    from .warmup import JOBS
    p = sub.add_parser("compile", help="compile the numba kernels for this machine now (the installation does it)",
                       description="Compile (or load from numba's cache) every compiled kernel, a few processes at "
                                   "once, so that no first call waits. `pip install -e .` does it; run it after "
                                   "an installation that could not, or after editing a kernel.")
    p.add_argument("--jobs", "-j", type=int, default=None, help="processes at once (default: the cores, at most 4)")
    p.add_argument("--only", nargs="+", choices=list(JOBS), metavar="GROUP",
                   help=f"only these groups of kernels ({', '.join(JOBS)})")
    p.set_defaults(func=cmd_compile)
    p = sub.add_parser("robots", aliases=["models"], help="list the model names MODEL accepts (built-ins, "
                       "example-robot-data)", description="The model names MODEL accepts: the built-in robots and "
                       "the robots of example-robot-data (* = floating base by default).")
    p.set_defaults(func=cmd_robots)
    p = sub.add_parser("info", help="describe a model: tree, joints, masses, limits, DH table",
                       description="Describe a model: kinematic tree, joints with their limits, masses, the DH "
                                   "table it came from, and the load report (defaults applied, tags ignored).")
    add_model_argument(p)
    p.set_defaults(func=cmd_info)
    p = sub.add_parser("fk", help="direct geometric model: placement of a frame",
                       description="Direct geometric model: the placement of a frame in the world (4x4, xyz, "
                                   "roll-pitch-yaw, quaternion) at a configuration.")
    add_model_argument(p)
    p.add_argument("--q", nargs="+", default=None, metavar="Q",
                   help="configuration (nq numbers, spaces or commas); default: the neutral configuration "
                        "(joints whose limits exclude 0 at the middle of their limits)")
    p.add_argument("--frame", default=None, help="frame or body name (default: the last body)")
    add_deg_argument(p)
    add_limits_argument(p)
    p.set_defaults(func=cmd_fk)
    p = sub.add_parser("report", help="model report (Markdown)",
                       description="Model report (Markdown): model, DH table, geometric model, dynamics, "
                                   "torques along a quintic motion, free fall; PNG plots with --out.")
    add_model_argument(p)
    p.add_argument("--out", default="artidyn-report", metavar="DIR",
                   help="folder for report.md and the PNG plots (default: ./artidyn-report)")
    p.add_argument("--no-files", action="store_true", help="print the report only, write no file")
    p.add_argument("--traceback", action="store_true", help="print the traceback of each section that failed")
    add_force_argument(p)
    p.set_defaults(func=cmd_report)


def _add_examples(sub):
    """Give every sub-command an "examples:" epilog (:data:`EXAMPLES`) and the formatter keeping it."""
    for name, parser in sub.choices.items():
        lines = EXAMPLES.get(name)
        if not lines or "examples:" in (parser.epilog or ""):
            continue
        text = "examples:\n" + "\n".join(f"  {x}" for x in lines)
        parser.epilog = f"{parser.epilog.rstrip()}\n\n{text}" if parser.epilog else text
        if parser.formatter_class is argparse.HelpFormatter:
            parser.formatter_class = _HelpFormatter


def _register_plugins(sub):
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # not written yet: skip only that module (or its package)
            if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
                continue
            raise
        module.register(sub)


def build_parser():
    parser = OneLineParser(prog="artidyn", description="Modelling and dynamics of articulated systems.",
                           formatter_class=_HelpFormatter, epilog=MAIN_EPILOG)
    from . import __version__
    parser.add_argument("--version", action="version", version=f"artidyn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _register_core(sub)
    _register_plugins(sub)
    _add_examples(sub)
    return parser


def _one_line(text):
    """A message on one line (a multi-line error or warning is joined with ' | ')."""
    return " | ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"artidyn: warning: {_one_line(message)} ({category.__name__})", file=sys.stderr)


def main(argv=None):
    """Run the command line; returns the exit status (0, or 2 on an error).

    Every failure is one line on stderr: ``artidyn: error: ...`` (artidyn's errors name the file,
    row or argument; an unexpected exception is reported as an internal error, its traceback
    only with ``ARTIDYN_TRACEBACK=1``). Warnings are one line each as well.
    """
    import os
    import warnings

    from .errors import ArtidynError

    parser = build_parser()
    args = parser.parse_args(argv)
    _CURRENT[0] = args
    show = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        status = args.func(args)    # a kernel compiled at first use says so on stderr (artidyn.firstuse)
        sys.stdout.flush()
    except BrokenPipeError:          # `artidyn info X | head`: the reader left; stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (KeyError, ValueError, OSError, ArtidynError) as exc:  # artidyn's errors (ValueError, KeyError ...)
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        if isinstance(exc, OSError) and exc.filename and str(exc.filename) not in str(msg):
            msg = f"{exc.filename}: {exc.strerror or msg}"
        print(f"artidyn: error: {_one_line(msg)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("artidyn: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001  (a bug or an unforeseen input: still one line, exit 2)
        if os.environ.get("ARTIDYN_TRACEBACK"):
            raise
        print(f"artidyn: error: internal error {type(exc).__name__}: {_one_line(exc)[:300]} (please report it; "
              f"ARTIDYN_TRACEBACK=1 shows the traceback)", file=sys.stderr)
        return EXIT_ERROR
    finally:
        warnings.showwarning = show
    return 0 if status is None else int(status)


if __name__ == "__main__":
    sys.exit(main())
