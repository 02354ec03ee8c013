"""``artidyn ik``: the inverse geometric model on the command line.

    artidyn ik MODEL --frame F --xyz X Y Z [--rpy R P Y] [--deg] [--all] [--q0 Q ...]

Inverse geometric model: the joint values placing a frame at a target. ``--xyz`` alone is a position target; with ``--rpy`` (URDF roll-pitch-yaw, R = Rz(yaw) Ry(pitch)
Rx(roll)) a full pose. One solution by default (numeric, Levenberg-Marquardt with restarts);
``--all`` prints every solution: the closed form (up to 8) when the arm is a 6R of a known family
and the target a pose, multi-start otherwise. Exit status 0 when a solution was found, 1 when
not (the status says why: unreachable, singular, joint_limits, max_iterations), 2 on an error.
"""
import numpy as np


def register(subparsers):
    """Add the ``ik`` sub-command to an argparse ``subparsers`` object."""
    from ..cli import add_limits_argument, add_model_argument, number
    description = " ".join(__doc__.split("\n\n")[2].replace("``", "").split())   # not the usage line again
    p = subparsers.add_parser("ik", help="inverse geometric model: joint values placing a frame",
                              description=description)
    add_model_argument(p)
    p.add_argument("--frame", default=None, help="frame or body to place (default: the last body)")
    p.add_argument("--xyz", type=number, nargs=3, required=True, metavar=("X", "Y", "Z"),
                   help="target position in the world (m)")
    p.add_argument("--rpy", type=number, nargs=3, default=None, metavar=("R", "P", "Y"),
                   help="target orientation, roll pitch yaw (rad, or degrees with --deg)")
    p.add_argument("--deg", action="store_true", help="--rpy, --q0 and the printed angles in degrees")
    p.add_argument("--all", action="store_true", help="all solutions (closed form when available)")
    p.add_argument("--q0", nargs="+", default=None, metavar="Q",
                   help="start / reference configuration (nq numbers; checked against the joint limits)")
    add_limits_argument(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the random restarts (default 0)")
    p.set_defaults(func=cmd_ik)


def _target(args):
    from ..spatial.rotations import rpy_to_matrix
    xyz = np.array(args.xyz, dtype=float)
    if args.rpy is None:
        return xyz, "position"
    rpy = np.radians(args.rpy) if args.deg else np.array(args.rpy, dtype=float)
    T = np.eye(4)
    T[:3, :3] = rpy_to_matrix(rpy)
    T[:3, 3] = xyz
    return T, "pose"


def _angles(model, q, deg):
    """q for printing: revolute angles in degrees with --deg (the inverse of cli.parse_q)."""
    if not deg:
        return q
    from ..cli import angle_entries
    q = q.copy()
    angles = angle_entries(model)
    q[angles] = np.degrees(q[angles])
    return q


def cmd_ik(args):
    from ..cli import model_from, parse_q
    from ..errors import ModelError
    from .analytic import family, ik_analytic
    from .numeric import ik, ik_all
    model = model_from(args)
    frame = args.frame if args.frame is not None else model.body_names[-1]
    target, kind = _target(args)
    q0 = parse_q(model, args.q0, args.deg, "--q0", check=not args.ignore_limits) if args.q0 else None
    unit = "deg" if args.deg else "rad"
    print(f"model '{model.name}', frame '{frame}', {kind} target: xyz {np.round(args.xyz, 6).tolist()}"
          + ("" if args.rpy is None else f", rpy {list(args.rpy)} ({unit})"))
    if args.all:
        how = None
        if kind == "pose":
            try:
                how = family(model, frame)[0]
            except ModelError:
                how = None
        sols = ik_analytic(model, target, frame, q0) if how else ik_all(model, target, frame, q0, seed=args.seed)
        print(f"status: {sols.status} ({'closed form, ' + how if how else 'multi-start'}): {sols.message}")
        with np.printoptions(precision=6, suppress=True, linewidth=150):
            for k in range(len(sols)):
                lim = "within limits" if sols.within_limits[k] else "OUTSIDE the limits"
                br = f", {sols.branch[k]}" if sols.branch[k] else ""
                print(f"  {k + 1}: q ({unit}) = {_angles(model, sols.q[k], args.deg)}")
                print(f"     error {sols.position_error[k]:.2e} m, {sols.orientation_error[k]:.2e} rad; {lim}{br}")
        return 0 if len(sols) else 1
    res = ik(model, target, frame, q0, seed=args.seed)
    print(f"status: {res.status}")
    print(f"  {res.message}")
    with np.printoptions(precision=6, suppress=True, linewidth=150):
        print(f"q ({unit}) = {_angles(model, res.q, args.deg)}")
    return 0 if res.success else 1
