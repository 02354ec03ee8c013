"""``artidyn symbolic``: symbolic models on the command line (customised Newton-Euler).

    artidyn symbolic MODEL [--what id|M|g|C|h|fk|jacobian|lagrange|closed] [--format markdown|latex|c|python|numba|ops]
                           [--frame F] [--expressed world|local] [--parameters NAME ...]

``--what``: id = inverse dynamics tau(q, qd, qdd), M = mass matrix, g = gravity torques, C = Coriolis
matrix, h = C(q, qd) qd, fk = placement of ``--frame``, jacobian = its Jacobian, lagrange =
Lagrange's equations, closed = the reduced model of a closed chain (its declared loop closures)
in its independent coordinates. ``--parameters`` leaves the named parameters symbolic (XX3, MX3,
M3, IA3, FV3, FC3, PX3, G1..G3 or G; groups inertial, friction, lengths, all). The operation counts come first
(as a comment for code formats).
"""

WHAT = {"id": "inverse_dynamics", "M": "mass_matrix", "g": "gravity", "C": "coriolis", "h": "coriolis_product",
        "fk": "placement", "jacobian": "jacobian", "lagrange": "lagrange",
        "closed": "closed_loop"}
FORMATS = ("markdown", "latex", "c", "python", "numba", "ops")


def register(subparsers):
    """Add the ``symbolic`` sub-command to an argparse ``subparsers`` object."""
    from ..cli import add_model_argument
    p = subparsers.add_parser("symbolic", help="symbolic models (customised Newton-Euler): LaTeX, Markdown, C, Python",
                              description=__doc__.split("\n\n")[1].strip())
    add_model_argument(p)
    p.add_argument("--what", default="id", choices=list(WHAT), help="which model (default id)")
    p.add_argument("--format", default="markdown", choices=FORMATS, help="output format (default markdown)")
    p.add_argument("--frame", default=None, help="frame or body for fk / jacobian (default: the last body)")
    p.add_argument("--expressed", default="world", choices=("world", "local"), help="jacobian axes (default world)")
    p.add_argument("--parameters", nargs="+", default=None, metavar="NAME", help="parameters left symbolic")
    p.set_defaults(func=cmd_symbolic)


def build(model, what, frame=None, expressed="world", parameters=None):
    """The SymbolicModel the command prints."""
    from . import models
    if what in ("fk", "jacobian"):
        frame = frame if frame is not None else model.body_names[-1]
        if what == "fk":
            return models.placement(model, frame, parameters=parameters)
        return models.jacobian(model, frame, expressed, parameters=parameters)
    if what == "closed":
        from .loops import closed_loop
        return closed_loop(model, parameters=parameters)
    if what == "h":
        return models.coriolis(model, parameters=parameters, product=True)
    return getattr(models, WHAT[what])(model, parameters=parameters)


def cmd_symbolic(args):
    from ..cli import model_from
    model = model_from(args.model)
    sm = build(model, args.what, args.frame, args.expressed, args.parameters)
    fmt = args.format
    if fmt == "ops":
        from .escape import one_line
        print(f"{sm.title(one_line)}: {sm.count_line()}")      # no control character reaches the terminal
    elif fmt == "markdown":
        print(sm.to_markdown())
    elif fmt == "latex":
        print(sm.to_latex())
    elif fmt == "c":
        print(sm.to_c())
    elif fmt == "python":
        print(sm.to_python())
    else:
        print(sm.to_numba())
    return 0
