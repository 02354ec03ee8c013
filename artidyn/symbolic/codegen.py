"""Code generation from a symbolic model: Python/NumPy, numba and C (compiled, loaded by ctypes).

Every generated function evaluates the same straight-line program: the inputs unpacked
(``q1 = q[0]`` ...), the parameters left symbolic read from a vector ``p`` (in the order of
``SymbolicModel.parameters``), one assignment per intermediate variable, then the outputs.
Numbers are written with 17 significant digits (``repr``), so the generated code gives the
numeric algorithms' values to rounding. Generated files (C sources, shared libraries) go to a
cache folder keyed by a SHA-256 hash of the source: ``$ARTIDYN_CACHE`` or ``~/.cache/artidyn``
(a temporary folder when that is not writable), never into the package. Names from the model
(model, frame) appear only in comments, escaped for the language (:mod:`artidyn.symbolic.escape`);
the function's own name must be a plain identifier.
"""
import hashlib
import os
import shutil
import subprocess
import tempfile

import sympy as sp

from ..errors import InputError
from . import escape

# --- printing --------------------------------------------------------------------------------


def _number(e):
    if e.is_Integer:
        return f"{int(e)}.0"
    if e.is_Rational:
        return f"({e.p}.0/{e.q}.0)"
    return repr(float(e))


def code(e, lang):
    """Infix source of a SymPy expression; ``lang`` in ("c", "numpy", "numba")."""
    e = sp.sympify(e)
    if e.is_Symbol:
        return e.name
    if e.is_Number:
        s = _number(e)
        return f"({s})" if s.startswith("-") else s
    if e.is_Add:
        terms = list(e.args)
        out = code(terms[0], lang)
        for t in terms[1:]:
            if t.could_extract_minus_sign():
                out += " - " + _factor(-t, lang)
            else:
                out += " + " + code(t, lang)
        return out
    if e.is_Mul:
        c, fs = e.as_coeff_mul()
        neg = c < 0
        c = -c if neg else c
        num, den = ([] if c == 1 else [_number(c)]), []
        for f in fs:
            if f.is_Pow and f.exp.is_Integer and f.exp < 0:
                den.append(_factor(f.base ** (-f.exp), lang))
            else:
                num.append(_factor(f, lang))
        s = "*".join(num) if num else "1.0"
        if den:
            s += "/" + (den[0] if len(den) == 1 else "(" + "*".join(den) + ")")
        return ("-" + s) if neg else s
    if e.is_Pow:
        if e.exp.is_Integer:
            n = int(e.exp)
            b = _factor(e.base, lang)
            prod = "*".join([b] * abs(n))
            return prod if n > 0 else f"1.0/({prod})"
        if e.exp == sp.Rational(1, 2):
            return _call("sqrt", e.base, lang)
        return f"pow({code(e.base, lang)}, {code(e.exp, lang)})" if lang == "c" else \
            f"({_factor(e.base, lang)})**({code(e.exp, lang)})"
    if isinstance(e, sp.sign):
        x = _factor(e.args[0], lang)
        if lang == "c":
            return f"(({x} > 0) ? 1.0 : (({x} < 0) ? -1.0 : 0.0))"
        if lang == "numba":
            return f"(1.0 if {x} > 0 else (-1.0 if {x} < 0 else 0.0))"
        return f"np.sign({x})"
    if isinstance(e, (sp.sin, sp.cos)):
        return _call(type(e).__name__, e.args[0], lang)
    raise InputError(f"code generation: cannot print {e!r} ({type(e).__name__})")


def _call(fn, arg, lang):
    pre = {"c": "", "numpy": "np.", "numba": "math."}[lang]
    return f"{pre}{fn}({code(arg, lang)})"


def _factor(e, lang):
    s = code(e, lang)
    return f"({s})" if (e.is_Add or (e.is_Number and s.startswith("("))) else s


# --- sources ---------------------------------------------------------------------------------


def _unpack(sm, indent, lang, batch_index=None):
    lines = []
    for arg, syms in sm.inputs:
        for k, s in enumerate(syms):
            if lang == "numpy":
                lines.append(f"{s.name} = {arg}[..., {k}]")
            elif lang == "numba":
                lines.append(f"{s.name} = {arg.upper()}[n, {k}]")
            else:
                lines.append(f"const double {s.name} = {arg}[{k}];")
    for k, s in enumerate(sm.parameters):
        if lang == "c":
            lines.append(f"const double {s.name} = p[{k}];")
        else:
            lines.append(f"{s.name} = p[{k}]")
    for s, e in sm.assignments:
        lines.append(f"const double {s.name} = {code(e, 'c')};" if lang == "c" else f"{s.name} = {code(e, lang)}")
    return [indent + x for x in lines]


def python_source(sm, name="f"):
    """NumPy source: ``name(q, qd, qdd, p)``; inputs (..., n) broadcast, returns (..., n_out)."""
    name = escape.function_name(name)
    args = [a for a, _ in sm.inputs]
    head = [f"# {sm.title(escape.comment)}", f"# {sm.count_line()}", "import numpy as np", "", "",
            f"def {name}({', '.join(args + ['p'])}):",
            f"    _shape = np.broadcast_shapes({', '.join(f'np.shape({a})[:-1]' for a in args)})",
            f"    out = np.zeros(_shape + ({len(sm.outputs)},))"]
    body = _unpack(sm, "    ", "numpy")
    outs = [f"    out[..., {k}] = {code(e, 'numpy')}" for k, e in enumerate(sm.outputs) if e != 0]
    return "\n".join(head + body + outs + ["    return out", ""])


def numba_source(sm, name="f"):
    """numba source: ``name(Q, QD, QDD, p, OUT)`` loops over the rows of OUT (N, n_out)."""
    name = escape.function_name(name)
    args = [a.upper() for a, _ in sm.inputs]
    head = [f"# {sm.title(escape.comment)}", f"# {sm.count_line()}", "import math", "import numba", "", "",
            "@numba.njit(cache=False)",
            f"def {name}({', '.join(args + ['p', 'OUT'])}):",
            "    for n in range(OUT.shape[0]):"]
    body = _unpack(sm, "        ", "numba")
    outs = [f"        OUT[n, {k}] = {code(e, 'numba')}" for k, e in enumerate(sm.outputs)]
    return "\n".join(head + body + outs + [""])


def c_source(sm, name="f"):
    """C source: ``void name(q, qd, qdd, p, out)`` and ``void name_batch(long n, Q, QD, QDD, p, OUT)``."""
    name = escape.function_name(name)
    args = [a for a, _ in sm.inputs]
    sizes = [len(s) for _, s in sm.inputs]
    sig = ", ".join([f"const double *{a}" for a in args] + ["const double *p", "double *out"])
    lines = [f"/* {sm.title(escape.c_comment)} */", f"/* {sm.count_line()} */", "#include <math.h>", "",
             f"void {name}({sig})", "{"]
    lines += _unpack(sm, "    ", "c")
    lines += [f"    out[{k}] = {code(e, 'c')};" for k, e in enumerate(sm.outputs)]
    lines += ["}", ""]
    bsig = ", ".join(["long n"] + [f"const double *{a.upper()}" for a in args] + ["const double *p", "double *OUT"])
    call = ", ".join([f"{a.upper()} + k * {n}" for a, n in zip(args, sizes)] + ["p", f"OUT + k * {len(sm.outputs)}"])
    lines += [f"void {name}_batch({bsig})", "{", "    for (long k = 0; k < n; ++k)", f"        {name}({call});",
              "}", ""]
    return "\n".join(lines)


# --- compiling ---------------------------------------------------------------------------------


def cache_dir():
    """$ARTIDYN_CACHE, else ~/.cache/artidyn/symbolic, else a temporary folder; created."""
    for d in (os.environ.get("ARTIDYN_CACHE"), os.path.join(os.path.expanduser("~"), ".cache", "artidyn", "symbolic"),
              os.path.join(tempfile.gettempdir(), "artidyn-symbolic")):
        if not d:
            continue
        try:
            os.makedirs(d, exist_ok=True)
            if os.access(d, os.W_OK):
                return d
        except OSError:
            continue
    raise InputError("no writable cache folder for generated code (set ARTIDYN_CACHE)")


def find_compiler():
    """Path of a C compiler: $CC, cc, gcc or clang; InputError when there is none."""
    for c in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if c and shutil.which(c):
            return shutil.which(c)
    raise InputError("no C compiler found (looked for $CC, cc, gcc, clang): install one (e.g. gcc) or use "
                     "lambdify(backend='numpy') / backend='numba'")


def compile_c(src, name="f", flags=("-O2", "-fPIC", "-shared")):
    """Compile ``src`` into a shared library in the cache (reused when the hash matches); its path."""
    name = escape.function_name(name)      # it names files in the cache
    cc = find_compiler()
    key = hashlib.sha256((src + cc + " ".join(flags)).encode()).hexdigest()[:20]
    d = os.path.join(cache_dir(), key)
    lib = os.path.join(d, f"{name}.so")
    if os.path.exists(lib):
        return lib
    os.makedirs(d, exist_ok=True)
    c_file = os.path.join(d, f"{name}.c")
    with open(c_file, "w", encoding="utf-8") as fh:
        fh.write(src)
    tmp = lib + f".{os.getpid()}.tmp"
    res = subprocess.run([cc, *flags, "-o", tmp, c_file, "-lm"], capture_output=True, text=True)
    if res.returncode != 0:
        raise InputError(f"C compiler {cc} failed on {c_file}:\n{res.stderr[-2000:]}")
    os.replace(tmp, lib)
    return lib


def load_c(sm, name="f"):
    """ctypes handle of the compiled batch function of ``sm``."""
    import ctypes
    lib = ctypes.CDLL(compile_c(c_source(sm, name), name))
    fn = getattr(lib, f"{name}_batch")
    fn.argtypes = [ctypes.c_long] + [ctypes.c_void_p] * (len(sm.inputs) + 2)   # addresses of float64 arrays
    fn.restype = None
    fn._lib = lib
    return fn


def load_python(src, name="f"):
    """Execute generated Python source in a fresh namespace; the function ``name``."""
    ns = {}
    exec(compile(src, f"<artidyn.symbolic {name}>", "exec"), ns)
    return ns[name]
