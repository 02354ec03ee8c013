"""LaTeX and Markdown of a symbolic model: the intermediate variables, then the outputs.

Names print as in Khalil & Dombre (``WI12`` -> ``WI_{12}``); ``q1``, ``qd1``, ``qdd1`` print as
``q_{1}``, ``\\dot{q}_{1}``, ``\\ddot{q}_{1}``.
"""
import sympy as sp

from . import escape


def _names(sm):
    deco = {"q": "q_{{{}}}", "qd": r"\dot{{q}}_{{{}}}", "qdd": r"\ddot{{q}}_{{{}}}"}
    out = {}
    for arg, syms in sm.inputs:
        for s in syms:
            kind, num = s.name.rstrip("0123456789"), s.name[len(s.name.rstrip("0123456789")):]
            if kind in deco:
                out[s] = deco[kind].format(num)
    return out


def _lines(sm):
    names = _names(sm)
    tex = lambda e: sp.latex(e, symbol_names=names)  # noqa: E731
    lines = [f"{tex(s)} = {tex(e)}" for s, e in sm.assignments]
    outs = []
    if len(sm.shape) == 2:
        r, c = sm.shape
        outs = [f"{_out_name(sm)}_{{{i + 1}{j + 1}}} = {tex(sm.outputs[i * c + j])}" for i in range(r) for j in range(c)]
    else:
        outs = [f"{_out_name(sm)}_{{{i + 1}}} = {tex(e)}" for i, e in enumerate(sm.outputs)]
    return lines, outs


def _out_name(sm):
    return {"inverse_dynamics": r"\tau", "lagrange": r"\tau", "gravity": "g", "coriolis_product": "h",
            "mass_matrix": "M", "coriolis": "C", "placement": "T", "jacobian": "J", "closed_loop": r"\tau_{a}"}.get(sm.kind, "y")


def to_latex(sm):
    """A LaTeX ``align*`` block: one line per intermediate variable, then the outputs."""
    lines, outs = _lines(sm)
    body = " \\\\\n".join(x.replace(" = ", " &= ", 1) for x in lines + outs)
    return (f"% {sm.title(escape.comment)}\n% {sm.count_line()}\n"
            f"\\begin{{align*}}\n{body}\n\\end{{align*}}\n")


def to_markdown(sm):
    """Markdown: a title, the operation counts, then one ``$...$`` line per equation."""
    lines, outs = _lines(sm)
    o = sm.ops
    head = [f"### {sm.title(escape.markdown)}", "",
            f"{o['mul']} multiplications, {o['add']} additions, {o['fun']} functions "
            f"({len(sm.assignments)} intermediate variables).", ""]
    params = ", ".join(s.name for s in sm.parameters)
    if params:
        head += [f"Symbolic parameters: {params}.", ""]
    return "\n".join(head + [f"${x}$  " for x in lines] + ["", "Outputs:", ""] + [f"${x}$  " for x in outs]) + "\n"
