"""SymbolicModel: a straight-line program (intermediate variables) with its inputs and outputs.

It prints (LaTeX, Markdown), counts its operations and turns into numeric functions (NumPy,
numba, C). Inputs are the vectors ``q``, ``qd``, ``qdd`` (those the model needs); a function made
by :meth:`SymbolicModel.lambdify` takes them as (n,) or (N, n) arrays and returns (shape) or
(N, shape), plus ``params``: values of the parameters left symbolic (a dict by name or a vector in
the order of ``parameters``; default: the model's own numbers).
"""
import numpy as np
import sympy as sp

from ..errors import InputError, ShapeError
from . import codegen
from .expr import count_program


class SymbolicModel:
    """A symbolic model: ``assignments`` (name, expr), ``outputs`` (exprs over them), ``shape``.

    Attributes
    ----------
    kind : str ("inverse_dynamics", "mass_matrix", "placement", ...)
    model : the artidyn Model it was built from
    inputs : list of (name, [symbols]) e.g. [("q", [q1 ..]), ("qd", ...), ("qdd", ...)]
    parameters : list of the parameter symbols left symbolic (sorted by name)
    parameter_values : {name: the model's number} for them
    ops : {"mul", "add", "fun"} of the whole program
    frame : the frame's name (placement, jacobian), else None; label : a note for the title ("world")
    """

    def __init__(self, ctx, kind, outputs, shape, inputs, label="", frame=None):
        self.model = ctx.model
        self.kind = kind
        self.label = label
        self.frame = frame
        self.shape = tuple(shape)
        self.outputs = [sp.sympify(e) for e in outputs]
        self.assignments = ctx.E.live(self.outputs)
        self.inputs = [(n, getattr(ctx, n)) for n in inputs]
        used = set()
        for _, e in self.assignments:
            used |= e.free_symbols
        for e in self.outputs:
            used |= e.free_symbols
        names = sorted(ctx.symbolic)
        self.parameters = [sp.Symbol(n, real=True) for n in names]
        self.parameter_values = {n: ctx.values[n] for n in names}
        self.ops = count_program(self.assignments, self.outputs)
        self._compiled = {}

    # --- description ---------------------------------------------------------------------------
    def title(self, esc=str):
        """What this is and of which model: ``jacobian of frame 'tool' (world), model 'ur5'``.

        ``esc`` escapes the names (they come from model files and may hold anything) for the text
        the title goes into: :mod:`artidyn.symbolic.escape` has one helper per target language.
        """
        of = f" of frame '{esc(self.frame)}'" if self.frame is not None else ""
        note = f" ({self.label})" if self.label else ""
        return f"{self.kind}{of}{note}, model '{esc(self.model.name)}'"

    def count_line(self):
        o = self.ops
        return (f"{o['mul']} multiplications, {o['add']} additions, {o['fun']} functions, "
                f"{len(self.assignments)} intermediate variables")

    def __repr__(self):
        from .escape import one_line
        return f"SymbolicModel({self.title(one_line)}: {self.count_line()})"

    def expression(self):
        """The outputs with every intermediate variable substituted (a SymPy Matrix of ``shape``;
        expanded trees: use it on small models only)."""
        val = {}
        for s, e in self.assignments:
            val[s] = e.xreplace(val)
        out = [e.xreplace(val) for e in self.outputs]
        return sp.Matrix(out).reshape(*self.shape) if len(self.shape) == 2 else sp.Matrix(out)

    # --- printing ------------------------------------------------------------------------------
    def to_latex(self):
        from .latex import to_latex
        return to_latex(self)

    def to_markdown(self):
        from .latex import to_markdown
        return to_markdown(self)

    def to_python(self, name="f"):
        """NumPy source (see :func:`artidyn.symbolic.codegen.python_source`)."""
        return codegen.python_source(self, name)

    def to_numba(self, name="f"):
        """numba source (see :func:`artidyn.symbolic.codegen.numba_source`)."""
        return codegen.numba_source(self, name)

    def to_c(self, name="f"):
        """C source (see :func:`artidyn.symbolic.codegen.c_source`)."""
        return codegen.c_source(self, name)

    # --- numeric functions -----------------------------------------------------------------------
    def _params(self, params):
        if params is None:
            if "_default_params" not in self.__dict__:
                self._default_params = np.array([self.parameter_values[s.name] for s in self.parameters] or [0.0])
            return self._default_params
        if isinstance(params, dict):
            known = {s.name for s in self.parameters}
            bad = [k for k in params if str(k).upper() not in known]
            if bad:
                raise InputError(f"params: {bad} are not symbolic parameters of this model "
                                 f"(those are {sorted(known)})")
            up = {str(k).upper(): v for k, v in params.items()}
            return np.array([float(up.get(s.name, self.parameter_values[s.name])) for s in self.parameters])
        p = np.asarray(params, dtype=float).reshape(-1)
        if p.size != len(self.parameters):
            raise ShapeError(f"params has {p.size} entries, the model has {len(self.parameters)} symbolic "
                             f"parameters {[s.name for s in self.parameters]}")
        return p

    def _batch(self, args):
        if len(args) != len(self.inputs):
            raise InputError(f"{self.kind} takes {len(self.inputs)} arrays ({', '.join(n for n, _ in self.inputs)}), "
                             f"got {len(args)}")
        arrs, single = [], True
        for (name, syms), a in zip(self.inputs, args):
            a = a if type(a) is np.ndarray and a.dtype == np.float64 else np.asarray(a, dtype=float)
            if a.shape[-1:] != (len(syms),) or a.ndim > 2:
                raise ShapeError(f"{name} has shape {a.shape}, model '{self.model.name}' needs ({len(syms)},) "
                                 f"or (N, {len(syms)})")
            single = single and a.ndim == 1
            arrs.append(np.atleast_2d(a))
        N = max(a.shape[0] for a in arrs)
        if single:
            return [np.ascontiguousarray(a) for a in arrs], 1, True
        for (name, _), a in zip(self.inputs, arrs):
            if a.shape[0] not in (1, N):
                raise ShapeError(f"{name} has {a.shape[0]} states, others have {N}")
        return [np.ascontiguousarray(np.broadcast_to(a, (N, a.shape[1]))) for a in arrs], N, single

    def _shape_out(self, out, N, single):
        out = out.reshape((N,) + self.shape)
        return out[0] if single else out

    def lambdify(self, backend="numpy"):
        """A numeric function ``f(*inputs, params=None)`` of this model.

        backend: "numpy" (generated NumPy code, vectorised over the batch), "numba" (a compiled
        loop) or "c" (C compiled with the system compiler, batch loop in C; InputError when no
        compiler is found).
        """
        if backend not in ("numpy", "numba", "c"):
            raise InputError(f"lambdify: backend must be 'numpy', 'numba' or 'c', got {backend!r}")
        if backend not in self._compiled:
            if backend == "numpy":
                self._compiled[backend] = codegen.load_python(self.to_python())
            elif backend == "numba":
                self._compiled[backend] = codegen.load_python(self.to_numba())
            else:
                self._compiled[backend] = codegen.load_c(self)
        kernel = self._compiled[backend]
        nout = len(self.outputs)
        sizes = [len(s) for _, s in self.inputs]
        if backend == "c":      # one state, default parameters: fixed buffers whose addresses are known
            import threading
            bufs = [np.zeros(n) for n in sizes]
            pdef, out1 = self._params(None), np.zeros(nout)
            addr = [b.ctypes.data for b in bufs] + [pdef.ctypes.data, out1.ctypes.data]
            lock = threading.Lock()

        def f(*args, params=None):
            if backend == "c" and params is None and len(args) == len(sizes) and all(
                    type(a) is np.ndarray and a.shape == (n,) for a, n in zip(args, sizes)):
                with lock:
                    for b, a in zip(bufs, args):
                        b[:] = a
                    kernel(1, *addr)
                    return out1.reshape(self.shape).copy()
            arrs, N, single = self._batch(args)
            p = self._params(params)
            if backend == "numpy":
                out = kernel(*arrs, p)
            elif backend == "numba":
                out = np.empty((N, nout))
                kernel(*arrs, p, out)
            else:
                out = np.empty((N, nout))
                kernel(N, *[a.ctypes.data for a in arrs], p.ctypes.data, out.ctypes.data)
            return self._shape_out(out, N, single)

        f.__doc__ = f"{self.title()} ({backend}): f({', '.join(n for n, _ in self.inputs)}, params=None)"
        return f

    def compile_c(self):
        """Same as ``lambdify("c")``."""
        return self.lambdify("c")
