"""``artidyn identify``: dynamic identification from a CSV file of measurements.

    artidyn identify MODEL DATA.csv [--out DIR] [--physical] [--cutoff HZ] [--decimate K]
                     [--ols] [--base {auto,grouped,qr}] [--exclude KIND ...]

DATA.csv format (comma-separated, one header row, then one row per sample; blank lines and lines
starting with '#' are skipped):

* ``t``: time in seconds, increasing (uniformly sampled when qd / qdd must be computed);
* ``q_<joint>`` for every joint of the model (one-dof joints; rad or m);
* optional ``qd_<joint>`` and ``qdd_<joint>`` (``v_<joint>`` / ``a_<joint>`` also accepted):
  measured velocities and accelerations; missing ones are computed from q (low-pass filtered
  at ``--cutoff`` Hz when given, then central differences);
* ``tau_<joint>`` for every joint: measured joint torques (N·m) or forces (N).

Writes into ``--out`` (default ``./identification``): ``identification.md`` (report),
``parameters.png``, ``residuals.png``, ``torques.png`` and ``base_parameters.csv``; prints the
estimates. Exit status 0, or 2 with a message naming the file, line and column on bad input.
"""
import pathlib

import numpy as np

from ..errors import InputError


def register(subparsers):
    """Add the ``identify`` sub-command to an argparse ``subparsers`` object."""
    from ..cli import add_model_argument
    import argparse
    fmt = __doc__.split("DATA.csv format", 1)[1].split("\n\nWrites into", 1)[0]
    p = subparsers.add_parser("identify", help="identify the base dynamic parameters from measured q and tau",
                              description="Dynamic identification (weighted least squares of the base "
                                          "parameters) from a CSV of t, q_<joint>, [qd_<joint>, qdd_<joint>], "
                                          "tau_<joint>; writes a Markdown report with plots.",
                              epilog="DATA.csv format" + fmt, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_model_argument(p)
    p.add_argument("data", metavar="DATA.csv", help="measurements: t, q_<joint>..., optional qd_/qdd_, tau_<joint>...")
    p.add_argument("--out", default="identification", metavar="DIR", help="report folder (default ./identification)")
    p.add_argument("--physical", action="store_true",
                   help="also a physically consistent estimate (pseudo-inertias positive definite)")
    p.add_argument("--cutoff", type=float, default=None, metavar="HZ",
                   help="low-pass cutoff of q before differentiating (when qd/qdd are not in the file)")
    p.add_argument("--decimate", type=int, default=1, metavar="K", help="parallel filtering and decimation factor")
    p.add_argument("--ols", action="store_true", help="ordinary least squares (default: weighted per joint)")
    p.add_argument("--base", choices=("auto", "grouped", "qr"), default="auto",
                   help="named grouped base parameters (Gautier & Khalil rules) or numerical QR (default auto)")
    p.add_argument("--exclude", nargs="+", default=[], metavar="KIND",
                   choices=("armature", "viscous", "coulomb", "offset"),
                   help="per-joint parameters not to identify: armature viscous coulomb offset")
    p.set_defaults(func=cmd_identify)


def _number(text, path, line, column):
    try:
        x = float(text)
    except ValueError:
        raise InputError(f"{path}, line {line}, column '{column}': '{text.strip()}' is not a number") from None
    if not np.isfinite(x):
        raise InputError(f"{path}, line {line}, column '{column}': value {text.strip()} is not finite")
    return x


def read_identification_csv(model, path):
    """(t, q, qd or None, qdd or None, tau) from a CSV in the format of the module docstring.

    Raises InputError naming the file, the line and the column of a bad value, or the missing
    column (with the closest names found)."""
    import difflib

    from .excitation import dof_names

    path = pathlib.Path(path)
    try:
        lines = path.read_text().splitlines()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    rows = [(k + 1, s) for k, s in enumerate(lines) if s.strip() and not s.lstrip().startswith("#")]
    if not rows:
        raise InputError(f"{path}: empty file (expected a header row t, q_<joint>..., tau_<joint>...)")
    header_line, header = rows[0][0], [h.strip() for h in rows[0][1].split(",")]
    dup = [h for h in set(header) if header.count(h) > 1]
    if dup:
        raise InputError(f"{path}, line {header_line}: column '{dup[0]}' appears twice")
    col = {h: k for k, h in enumerate(header)}
    data = np.empty((len(rows) - 1, len(header)))
    for n, (line, text) in enumerate(rows[1:]):
        fields = text.split(",")
        if len(fields) != len(header):
            raise InputError(f"{path}, line {line}: {len(fields)} values, the header has {len(header)} columns")
        data[n] = [_number(f, path, line, header[c]) for c, f in enumerate(fields)]
    if data.shape[0] < 3:
        raise InputError(f"{path}: {data.shape[0]} data rows, at least 3 are needed")
    names = dof_names(model)

    def gather(prefixes, required):
        keys = []
        for n in names:
            key = next((f"{p}_{n}" for p in prefixes if f"{p}_{n}" in col), None)
            if key is None:
                if not required and not any(f"{p}_{m}" in col for p in prefixes for m in names):
                    return None
                want = f"{prefixes[0]}_{n}"
                close = difflib.get_close_matches(want, header, n=3, cutoff=0.5)
                hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else \
                    f"; columns: {', '.join(header)}"
                raise InputError(f"{path}, line {header_line}: no column '{want}' for joint '{n}' of model "
                                 f"'{model.name}'{hint}")
            keys.append(key)
        return data[:, [col[k] for k in keys]]

    if "t" not in col:
        raise InputError(f"{path}, line {header_line}: no 't' column (columns: {', '.join(header)})")
    t = data[:, col["t"]]
    bad = np.flatnonzero(np.diff(t) <= 0)
    if bad.size:
        line = rows[bad[0] + 2][0]
        raise InputError(f"{path}, line {line}: t = {t[bad[0] + 1]:g} does not increase (previous {t[bad[0]]:g})")
    return t, gather(("q",), True), gather(("qd", "v"), False), gather(("qdd", "a"), False), gather(("tau",), True)


def cmd_identify(args):
    from ..cli import model_from
    from .estimation import identify
    from .excitation import dof_names
    from .report import write_report

    model = model_from(args.model)
    if model.nq != model.nv or np.any(np.asarray(model.nv_joint[1:]) != 1):
        raise InputError(f"model '{model.name}': identify needs one-dof joints (revolute, prismatic)")
    t, q, qd, qdd, tau = read_identification_csv(model, args.data)
    ident = identify(model, q, tau, t=t, qd=qd, qdd=qdd, cutoff=args.cutoff, decimate=args.decimate,
                     weighted=not args.ols, base=args.base, exclude=tuple(args.exclude))
    physical = None
    if args.physical:
        from .physical import physical_estimate
        physical = physical_estimate(model, ident)
    out = pathlib.Path(args.out)
    path = write_report(ident, out, dof_names(model), physical, source=str(args.data))
    with open(out / "base_parameters.csv", "w") as fh:
        fh.write("name,estimate,std,rel_std_percent" + (",physical" if physical else "") + "\n")
        for k, n in enumerate(ident.names):
            fh.write(f"{n},{ident.beta[k]:.17g},{ident.std[k]:.17g},{ident.rel_std[k]:.6g}"
                     + (f",{physical.beta[k]:.17g}" if physical else "") + "\n")
    print(f"model '{model.name}', {tau.shape[0]} samples from {args.data}: {ident.method}")
    print(f"condition number {ident.cond:.4g}; {len(ident.names)} base parameters")
    width = max(len(n) for n in ident.names)
    for k, n in enumerate(ident.names):
        extra = f"   physical {physical.beta[k]: .6g}" if physical else ""
        print(f"  {n:<{width}} {ident.beta[k]: .6g} ± {1.96 * ident.std[k]:.3g} (95 %, rel. std "
              f"{ident.rel_std[k]:.3g} %){extra}")
    if physical is not None:
        print(physical.report)
    print(f"report: {path}")
    return 0
