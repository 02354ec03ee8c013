"""The ``artidyn`` command line (also ``python -m artidyn``).

    artidyn info MODEL                 tree, joints, dof, masses, limits, DH table, load report
    artidyn fk MODEL --q ... [--frame F] [--deg]   placement of a frame: 4x4, xyz, rpy, quaternion
    artidyn robots                     the model names MODEL accepts: built-ins, example-robot-data
    artidyn report MODEL [--out DIR] [--no-files] [--traceback]
                                       model report (artidyn.report.build_report); a section that
                                       fails says so in the report (exit status 0, a warning)

MODEL is a built-in name (puma560, rx90, planar2r, pendulum, cart_pendulum), a model file
(.urdf, or a DH table .toml / .yaml) or an example-robot-data URDF stem (e.g. ur5_robot).

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

COMMAND_MODULES = ["artidyn.ik.commands", "artidyn.sim.commands", "artidyn.symbolic.commands",
                   "artidyn.viewer.commands", "artidyn.identification.commands"]
EXIT_ERROR = 2


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
    parser.add_argument("model", metavar="MODEL",
                        help="built-in name, .urdf / .toml / .yaml file or example-robot-data stem")


def model_from(name):
    """The model named on the command line (see :func:`artidyn.load`)."""
    from .io import load
    return load(name)


def parse_q(model, values, deg=False, what="--q"):
    """A configuration from command-line numbers (commas or spaces); degrees for revolute joints."""
    from .configuration import neutral
    from .errors import InputError, ShapeError
    if not values:
        return neutral(model)
    from .io.safexml import xml_number
    items = [v for s in values for v in str(s).replace(",", " ").split()]
    try:
        q = np.array([xml_number(v) for v in items])
    except ValueError:
        bad = next(v for v in items if not _is_number(v))
        raise InputError(f"{what}: numbers expected, {bad!r} is not a finite number (values: "
                         f"{' '.join(items)[:80]!r})") from None
    if q.shape != (model.nq,):
        raise ShapeError(f"{what} has {q.size} values, model '{model.name}' needs nq = {model.nq} "
                         f"(joints: {', '.join(model.joint_names[1:])})")
    if deg:
        angles = angle_entries(model)
        q[angles] = np.radians(q[angles])
    return q


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
    model = model_from(args.model)
    parts = [model_section(model, None), dh_section(model, None)]
    print("\n\n".join(p for p in parts if p))
    return 0


def cmd_fk(args):
    from .kinematics import frame_placement
    from .spatial.rotations import matrix_to_quat, matrix_to_rpy
    model = model_from(args.model)
    q = parse_q(model, args.q, args.deg)
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
        model = model_from(args.model)
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
    return 0


def _register_core(sub):
    p = sub.add_parser("robots", help="list the model names MODEL accepts (built-ins, example-robot-data)")
    p.set_defaults(func=cmd_robots)
    p = sub.add_parser("info", help="describe a model: tree, joints, masses, limits, DH table")
    add_model_argument(p)
    p.set_defaults(func=cmd_info)
    p = sub.add_parser("fk", help="direct geometric model: placement of a frame")
    add_model_argument(p)
    p.add_argument("--q", nargs="+", default=None, metavar="Q",
                   help="configuration (nq numbers, spaces or commas); default: neutral")
    p.add_argument("--frame", default=None, help="frame or body name (default: the last body)")
    p.add_argument("--deg", action="store_true", help="revolute joint values in degrees")
    p.set_defaults(func=cmd_fk)
    p = sub.add_parser("report", help="model report (Markdown)")
    add_model_argument(p)
    p.add_argument("--out", default="artidyn-report", metavar="DIR",
                   help="folder for report.md and the PNG plots (default: ./artidyn-report)")
    p.add_argument("--no-files", action="store_true", help="print the report only, write no file")
    p.add_argument("--traceback", action="store_true", help="print the traceback of each section that failed")
    add_force_argument(p)
    p.set_defaults(func=cmd_report)


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
    parser = OneLineParser(prog="artidyn", description="Modelling and dynamics of articulated systems.")
    from . import __version__
    parser.add_argument("--version", action="version", version=f"artidyn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _register_core(sub)
    _register_plugins(sub)
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
    show = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        status = args.func(args)
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
