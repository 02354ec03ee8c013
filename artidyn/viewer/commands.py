"""``artidyn view``: write the 3D viewer page of a model, a posture or a simulation.

    artidyn view MODEL [--q Q ... [--deg] [--ignore-limits]] [--result run.npz] [--out FILE.html] [--floating-base]
                 [--collisions] [--frames] [--com] [--no-autoplay]
    artidyn view MODEL --teach [--q Q ...] [--port 8080]

One self-contained HTML file (open it in a browser; no server, no network). ``--q`` gives a
posture (default: the neutral configuration), ``--result`` a simulation written by
``artidyn simulate`` (``simulation.npz`` or ``.csv``), shown with a time slider and play/pause.
``--teach`` instead starts a live teach pendant (viser: a slider per joint) until Ctrl-C.
"""
import pathlib
import re


def register(subparsers):
    """Add the ``view`` sub-command to an argparse ``subparsers`` object."""
    from ..cli import add_deg_argument, add_limits_argument, add_model_argument
    p = subparsers.add_parser("view", help="3D view of a model, a posture or a simulation (an HTML page)",
                              description=" ".join(__doc__.split("\n\n")[2].replace("``", "").split()))
    add_model_argument(p)
    what = p.add_mutually_exclusive_group()
    what.add_argument("--q", nargs="+", default=None, metavar="Q",
                      help="configuration (nq numbers, spaces or commas); default: neutral")
    what.add_argument("--result", default=None, metavar="RUN.npz",
                      help="simulation result (.npz or .csv of `artidyn simulate`) to animate")
    add_deg_argument(p)
    add_limits_argument(p)
    p.add_argument("--out", default=None, metavar="FILE.html", help="page to write (default: <model>.html)")
    p.add_argument("--collisions", action="store_true", help="show the collision shapes when the page opens")
    p.add_argument("--frames", action="store_true", help="show the link frames when the page opens")
    p.add_argument("--com", action="store_true", help="show the centres of mass when the page opens")
    p.add_argument("--no-autoplay", action="store_true", help="do not start playing a trajectory")
    p.add_argument("--teach", action="store_true",
                   help="live teach pendant in the browser instead of a page: a slider per joint (needs viser)")
    p.add_argument("--port", type=int, default=8080, help="--teach: the local port to serve on (default 8080)")
    p.set_defaults(func=cmd_view)


def read_result(path):
    """A :class:`~artidyn.sim.SimulationResult` from a ``.npz`` or ``.csv`` file."""
    from ..errors import InputError
    from ..sim.result import SimulationResult
    p = pathlib.Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"--result {path}: no such file")
    if p.suffix.lower() == ".npz":
        return SimulationResult.from_npz(p)
    if p.suffix.lower() == ".csv":
        return SimulationResult.from_csv(p)
    raise InputError(f"--result {path}: expected a .npz or .csv file written by `artidyn simulate`")


def default_out(model):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", model.name or "robot") + ".html"


def cmd_view(args):
    from ..cli import model_from, parse_q
    from ..errors import ShapeError
    from . import view
    model = model_from(args)         # MODEL, --floating-base / --fixed-base as on every command
    if args.result is not None:
        data = read_result(args.result)
        if data.q.shape[-1] != model.nq:
            raise ShapeError(f"--result {args.result}: q has {data.q.shape[-1]} entries per sample, model "
                             f"'{model.name}' needs nq = {model.nq}" + ("" if args.floating_base else
                                                                       " (--floating-base?)"))
    else:
        data = parse_q(model, args.q, args.deg, check=not args.ignore_limits)
    if args.teach:
        if args.result is not None:
            raise ShapeError("--teach shows one posture (--q), not a --result")
        return teach_until_interrupted(model, data, args.port)
    out = args.out or default_out(model)
    page = view(model, data, out, collisions=True if args.collisions else None, frames=args.frames, com=args.com,
                autoplay=not args.no_autoplay)
    frames = f", {len(data.t)} samples" if args.result is not None else ""
    print(f"wrote {page} ({page.stat().st_size / 1e6:.2f} MB{frames}); open it in a web browser")
    return 0


def teach_until_interrupted(model, q, port):
    """Serve the teach pendant (sliders in degrees and metres) until Ctrl-C (SIGINT) or SIGTERM.

    Both signals are handled here whatever the process inherited: a program started in the
    background by a non-interactive shell inherits SIGINT *ignored*, and Python then raises no
    KeyboardInterrupt: the server would never stop on Ctrl-C or on a supervisor's SIGINT."""
    import signal
    import time

    from .teach import teach

    def stop(signum, frame):
        raise KeyboardInterrupt

    pendant = teach(model, q, port=port)
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        print(f"teach pendant of '{model.name}' at {pendant.url} (Ctrl-C to stop)", flush=True)
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        pendant.close()
    return 0
