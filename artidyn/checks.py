"""Shared argument checks: a clear :class:`~artidyn.errors.InputError` naming the argument.

The numbers a model or a state may hold are bounded (documented ranges): beyond them products
such as ``m v^2`` or ``m |c|^2`` overflow double precision and the results would be inf or NaN
without a word. Readers (URDF, DH tables) and :class:`~artidyn.ModelBuilder` refuse model data
outside the ranges; the state checks (:func:`artidyn.configuration.as_batch`) refuse states
outside ``MAX_STATE``.

=====================  =========  ===============================================================
bound                  value      what
=====================  =========  ===============================================================
``MAX_LENGTH``         1e6 m      positions of joint frames, centres of mass, shape sizes, limits
                                  of prismatic joints
``MAX_MASS``           1e9 kg     the mass of one link
``MAX_INERTIA``        1e15 kg m2 an entry of a rotational inertia (at the centre of mass)
``MAX_STATE``          1e100      an entry of q, v, a, tau or f_ext given to the algorithms
=====================  =========  ===============================================================
"""
import numbers
import sys

import numpy as np

from .errors import InputError

MAX_LENGTH = 1e6
MAX_MASS = 1e9
MAX_INERTIA = 1e15
MAX_STATE = 1e100
LIMIT_MARGIN = (1e-6, 0.02)   # a joint value beyond its limit by more than 1e-6 (rad or m) + 2 % of the range


def as_model(model, what="model"):
    """``model`` itself when it is a :class:`~artidyn.Model`; InputError otherwise.

    A string gets the hint to load it first (``artidyn.load(name)``).
    """
    from .model import Model

    if isinstance(model, Model) or all(hasattr(model, k) for k in ("nq", "nv", "nb", "joint_type")):
        return model            # a Model, or an object standing for one (same fields)
    if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
        name = model.decode(errors="replace") if isinstance(model, bytes) else str(model)
        raise InputError(f"{what}: expected an artidyn.Model, got the string {name!r}; load it first: "
                         f"model = artidyn.load({name!r})")
    raise InputError(f"{what}: expected an artidyn.Model, got {type(model).__name__} "
                     f"(build one with artidyn.load(...) or artidyn.ModelBuilder)")


def _is_symbolic(x):
    sympy = sys.modules.get("sympy")
    return sympy is not None and isinstance(x, sympy.Basic)


def check_object_array(arr, name):
    """An object array may hold numbers and SymPy expressions only (the symbolic route)."""
    for x in arr.flat:
        if isinstance(x, (numbers.Number, np.number)) or _is_symbolic(x):
            continue
        raise InputError(f"{name}: an object array must hold numbers or SymPy expressions, found "
                         f"{type(x).__name__} {str(x)[:40]!r}")


def real_array(x, name, dtype=float):
    """``x`` as a real float array; InputError naming ``name`` for complex values (whose imaginary
    part would be dropped silently), object arrays of non-numbers, strings."""
    arr = np.asarray(x)
    if np.iscomplexobj(arr):
        raise InputError(f"{name}: complex values are not accepted here (the imaginary part would be dropped); "
                         f"pass real numbers")
    if arr.dtype == object:
        check_object_array(arr, name)
        if any(isinstance(v, complex) or np.iscomplexobj(v) for v in arr.flat):
            raise InputError(f"{name}: complex values are not accepted here; pass real numbers")
    try:
        return arr.astype(dtype)
    except (TypeError, ValueError, OverflowError) as exc:     # OverflowError: an int of 400 digits
        raise InputError(f"{name}: numbers expected ({exc})") from None


def finite_array(x, name, bound=MAX_STATE, dtype=float):
    """A real float array whose entries are finite and at most ``bound`` in magnitude."""
    arr = real_array(x, name, dtype)
    check_range(arr, name, bound)
    return arr


def check_range(arr, name, bound=MAX_STATE, where=""):
    """InputError unless every entry of ``arr`` (a numeric array) is finite with ``|x| <= bound``."""
    if arr.size and not bool(np.all(np.abs(arr) <= bound)):   # NaN fails the comparison too
        flat = np.abs(np.ravel(arr))
        k = int(np.argmax(~(flat <= bound)))
        val = np.ravel(arr)[k]
        pos = np.unravel_index(k, arr.shape) if arr.ndim > 1 else (k,)
        idx = ", ".join(str(int(i)) for i in pos)
        if not np.isfinite(val):
            raise InputError(f"{name} contains NaN or infinite values (first at [{idx}]){where}")
        raise InputError(f"{name}[{idx}] = {val:.6g} is beyond the accepted range +/-{bound:g}{where}: "
                         f"results would overflow")


def check_seed(seed, name="seed"):
    """An integer seed for numpy's generators: 0 .. 2**64 - 1 (or None / a Generator)."""
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise InputError(f"{name} must be an integer (or None, or a numpy Generator), got {seed!r}")
    if not 0 <= int(seed) < 2**64:
        raise InputError(f"{name} must be in 0 .. 2**64 - 1, got {seed}")
    return seed
