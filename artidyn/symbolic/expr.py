"""Straight-line programs of scalar assignments: the intermediate variables of Khalil & Kleinfinger.

Khalil & Kleinfinger ("Minimum operations and minimum parameters of the dynamic models of tree
structure robots", IEEE J. Robotics and Automation 3(6), 1987; Khalil & Dombre, "Modeling,
Identification and Control of Robots", ch. 9) compute a model as a list of assignments
``WI12 = S2*QP1``, ``DV33 = WI32*WI32`` ...: every non-trivial product or sum gets a name, entries
that are exactly 0 or +-1 cost nothing, and nothing is ever expanded. An :class:`Emitter`
records such a program. Each operand is a small SymPy expression over earlier names, inputs and
parameters; :meth:`Emitter.var` returns a name (or the operand itself when it is free: a number,
a name, minus a name) and shares equal right-hand sides (also up to the sign) across every
output, which is the common-subexpression sharing of the method.

Operation counts (:func:`count_ops`) follow the book: ``a*b*c`` is 2 multiplications, ``a+b-c``
2 additions (subtractions count as additions), a negation is free, a division counts as a
multiplication, ``x**2`` is one multiplication; sin, cos, sqrt and sign are functions.
"""
import sympy as sp

SNAP = 1e-12


def snap(x, tol=SNAP):
    """A numeric geometry entry as an exact 0, +-1 (within ``tol``) or a 53-bit SymPy Float."""
    x = float(x)
    if abs(x) < tol:
        return sp.Integer(0)
    if abs(x - 1) < tol:
        return sp.Integer(1)
    if abs(x + 1) < tol:
        return sp.Integer(-1)
    return sp.Float(x)


def num(x):
    """A numeric (non-geometric) value: exact 0 and +-1 become integers, others Floats."""
    x = float(x)
    if x in (0.0, 1.0, -1.0):
        return sp.Integer(int(x))
    return sp.Float(x)


def is_free(e):
    """True for operands that cost nothing: numbers, names, minus a name."""
    if e.is_Number or e.is_Symbol:
        return True
    if e.is_Mul and len(e.args) == 2 and e.args[0] == -1 and e.args[1].is_Symbol:
        return True
    return False


def index_tag(*idx):
    """Khalil's suffix: digits run together (``DV33`` + body 2 -> ``DV332``); an underscore before
    numbers >= 10 (``DV33_12``)."""
    out = ""
    for k in idx:
        out += str(k) if k < 10 else f"_{k}"
    return out


class Emitter:
    """An ordered list of assignments ``name = expr`` with sharing of equal right-hand sides."""

    def __init__(self):
        self.assignments = []        # [(Symbol, expr)]
        self._by_expr = {}           # expr -> Symbol
        self._names = set()

    def reserve(self, name):
        """Mark ``name`` as used (inputs and parameters)."""
        self._names.add(name)

    def _unique(self, name):
        if name not in self._names:
            self._names.add(name)
            return name
        k = 2
        while f"{name}_{k}" in self._names:
            k += 1
        self._names.add(f"{name}_{k}")
        return f"{name}_{k}"

    def var(self, expr, name):
        """``expr`` itself when free, else the name of an assignment holding it (shared)."""
        expr = sp.sympify(expr)
        if is_free(expr):
            return expr
        hit = self._by_expr.get(expr)
        if hit is not None:
            return hit
        hit = self._by_expr.get(-expr)
        if hit is not None:
            return -hit
        s = sp.Symbol(self._unique(name), real=True)
        self.assignments.append((s, expr))
        self._by_expr[expr] = s
        return s

    def vec(self, exprs, name, tag):
        """Each component k (1-based) as ``var(expr, name + k + tag)``."""
        return [self.var(e, f"{name}{k + 1}{tag}") for k, e in enumerate(exprs)]

    def live(self, outputs):
        """The assignments the outputs need, in order (dead ones dropped)."""
        need = set()
        for e in outputs:
            need |= sp.sympify(e).free_symbols
        out = []
        for s, e in reversed(self.assignments):
            if s in need:
                out.append((s, e))
                need |= e.free_symbols
        return out[::-1]


def count_ops(expr):
    """(mul, add, fun) of one expression, counted as in the module docstring."""
    mul = add = fun = 0
    stack = [sp.sympify(expr)]
    while stack:
        e = stack.pop()
        if e.is_Atom:
            continue
        if e.is_Add:
            add += len(e.args) - 1
            stack.extend(e.args)
        elif e.is_Mul:
            c, factors = e.as_coeff_mul()
            n = len(factors) + (0 if c in (1, -1) else 1)
            mul += n - 1
            for f in factors:
                if f.is_Pow and f.exp.is_Integer and f.exp < 0:   # a division: counted by n - 1
                    mul += -int(f.exp) - 1
                    stack.append(f.base)
                else:
                    stack.append(f)
        elif e.is_Pow:
            if e.exp.is_Integer:
                mul += abs(int(e.exp)) - 1 + (1 if e.exp < 0 else 0)
            else:
                fun += 1
            stack.append(e.base)
        elif isinstance(e, sp.Function):
            fun += 1
            stack.extend(e.args)
        else:
            stack.extend(e.args)
    return mul, add, fun


def count_program(assignments, outputs):
    """{"mul", "add", "fun"} of a program: its assignments plus the output expressions."""
    tot = [0, 0, 0]
    for _, e in assignments:
        for k, c in enumerate(count_ops(e)):
            tot[k] += c
    for e in outputs:
        for k, c in enumerate(count_ops(e)):
            tot[k] += c
    return {"mul": tot[0], "add": tot[1], "fun": tot[2]}
