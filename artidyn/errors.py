"""Exceptions raised by artidyn.

Every message names the file, body, joint or argument concerned and the wrong value.
"""
import numbers

import numpy as np


class ArtidynError(Exception):
    """Base class of artidyn's errors."""


class ModelError(ArtidynError, ValueError):
    """A model is physically or topologically inconsistent (mass, inertia, axis, tree)."""


class ParseError(ArtidynError, ValueError):
    """A model file is malformed; the message names the file and, when known, the line."""


class ShapeError(ArtidynError, ValueError):
    """An array argument has the wrong shape; the message names it and the expected size."""


class InputError(ArtidynError, ValueError):
    """A numeric input is invalid: NaN, infinite, an unnormalised quaternion ..."""


class PlausibilityWarning(UserWarning):
    """A model value looks like a unit mistake (e.g. revolute limits of -170 .. 170 or a DH angle of
    90: degrees typed as radians). The load report holds a note of kind "plausibility"; the
    readers' ``strict=True`` raises instead."""


class PenetrationWarning(UserWarning):
    """A contact run starts with two shapes overlapping deeper than the settings allow
    (:class:`~artidyn.contact.ContactSettings`' ``penetration``): the message names the shapes,
    their bodies and the depth."""


class NameNotFound(ArtidynError, KeyError):
    """An unknown frame, body or joint name; the message suggests the closest names."""

    def __str__(self):  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


def unknown_name(kind, name, known, model_name=""):
    """Build a :class:`NameNotFound` that suggests the closest known names."""
    import difflib

    close = difflib.get_close_matches(str(name), list(known), n=3, cutoff=0.4)
    where = f" in model '{model_name}'" if model_name else ""
    msg = f"unknown {kind} '{name}'{where}"
    if close:
        msg += "; did you mean " + ", ".join(f"'{c}'" for c in close) + "?"
    else:
        sample = list(known)[:8]
        msg += "; known: " + ", ".join(f"'{c}'" for c in sample) + (" ..." if len(known) > 8 else "")
    return NameNotFound(msg)


class SimulationError(ArtidynError, RuntimeError):
    """A simulation stopped: non-finite state, energy error above tolerance, step underflow.

    The message names the time, the step, the joint concerned and what to try; ``result`` holds
    the :class:`~artidyn.sim.SimulationResult` up to the failure.
    """

    def __init__(self, message, result=None):
        super().__init__(message)
        self.result = result


# --- argument checks that name the function and the argument --------------------------------------
# One helper per kind of argument, so that every public function words the same mistake the same
# way ("<function>: <argument> must be ..., got ...") instead of leaking numpy's or Python's own
# words ("could not broadcast", "invalid literal for int()", "unhashable type", "negative
# dimensions"), which name neither the function nor the argument. ``where`` is the prefix, e.g.
# "load_urdf: gravity".

def shown(x, width=40):
    """A wrong value as a message shows it: its type and the start of its repr."""
    text = repr(x)
    return f"{type(x).__name__} {text[:width]}{' ...' if len(text) > width else ''}"


def as_real(x, where, expected="real numbers", finite=False):
    """``x`` as a float array of any shape; InputError saying what was ``expected`` for anything
    that is not real numbers (a string, complex values, a dict, a ragged list, an int too large
    for a float) and, with ``finite``, for NaN or infinite entries."""
    try:
        arr = np.asarray(x)
        if arr.dtype.kind not in "biuf":        # strings, complex, objects: not real numbers
            raise TypeError
        arr = arr.astype(float)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{where} must be {expected}, got {shown(x)}") from None
    if finite and not np.all(np.isfinite(arr)):
        raise InputError(f"{where} contains NaN or infinite values: {shown(x, 80)}")
    return arr


def check_vector(x, n, where, bound=None):
    """``x`` as a float array of ``n`` finite real numbers (at most ``bound`` in magnitude,
    default :data:`artidyn.checks.MAX_STATE`). InputError for anything that is not real numbers
    and for NaN / inf / out-of-range entries; ShapeError for another number of entries."""
    from .checks import MAX_STATE, check_range

    arr = as_real(x, where, f"{n} real numbers")
    if arr.shape != (n,):
        raise ShapeError(f"{where} must be {n} numbers, got {arr.size} (shape {arr.shape})")
    check_range(arr, where, MAX_STATE if bound is None else bound)
    return arr


def check_count(x, where, minimum=0, maximum=2**62):
    """``x`` as an int in ``minimum .. maximum``: a whole number (an integral float is accepted;
    True / False, strings, NaN and arrays are not)."""
    whole = isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))
    if not whole and isinstance(x, (float, np.floating)) and np.isfinite(x) and float(x).is_integer():
        whole, x = True, int(x)
    if not whole:
        raise InputError(f"{where} must be a whole number >= {minimum}, got {shown(x)}")
    if int(x) < minimum:
        raise InputError(f"{where} must be >= {minimum}, got {int(x)}")
    if int(x) > maximum:
        raise InputError(f"{where} must be at most {maximum:.3g}, got {shown(int(x), 24)}")
    return int(x)


def check_number(x, where, minimum=None, positive=False):
    """``x`` as a finite float (``>= minimum``; ``> 0`` when ``positive``); InputError otherwise
    (a string, None, an array, complex, NaN)."""
    ok = isinstance(x, (numbers.Real, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
    if ok:
        try:
            ok = bool(np.isfinite(float(x)))
        except OverflowError:                   # an int of hundreds of digits
            ok = False
    if not ok:
        raise InputError(f"{where} must be a finite real number, got {shown(x)}")
    x = float(x)
    if positive and not x > 0:
        raise InputError(f"{where} must be > 0, got {x:.6g}")
    if minimum is not None and not x >= minimum:
        raise InputError(f"{where} must be >= {minimum:g}, got {x:.6g}")
    return x


def check_flag(x, where):
    """``x`` as a bool: True / False (or 1 / 0); InputError for anything else (a string, None,
    an array, whose truth value Python or numpy would take or refuse in its own words)."""
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, (numbers.Integral, np.integer)) and int(x) in (0, 1)):
        return bool(x)
    raise InputError(f"{where} must be True or False, got {shown(x)}")


def check_choice(x, choices, where):
    """``x`` when it is one of the strings ``choices``; InputError listing them otherwise (also
    for unhashable values such as lists, which a ``dict`` lookup would leak as a TypeError)."""
    if not isinstance(x, str) or x not in choices:
        raise InputError(f"{where} must be one of {', '.join(repr(c) for c in choices)}, got {shown(x)}")
    return x


def check_rigid(x, where, error=InputError):
    """``x`` as a float (4, 4) rigid transform: a proper rotation (``R^T R = 1`` within 1e-6,
    ``det R = +1``) and a last row (0, 0, 0, 1); ``error`` (InputError, or ModelError for model
    data) naming ``where`` otherwise."""
    T = as_real(x, where, "a 4x4 transform")
    if T.shape != (4, 4):
        raise error(f"{where} must be a 4x4 transform, got shape {T.shape}")
    if not np.all(np.isfinite(T)):
        raise error(f"{where} is not finite: {T.tolist()}")
    R = T[:3, :3]
    err, det = np.abs(R.T @ R - np.eye(3)).max(), np.linalg.det(R)
    if err > 1e-6 or det < 0 or np.abs(T[3] - [0, 0, 0, 1]).max() > 1e-12:
        raise error(f"{where} is not a rigid transform: rotation orthogonality error {err:.3g}, det {det:.6g}, "
                    f"last row {T[3].tolist()} (expected (0, 0, 0, 1))")
    return T


def check_function(f, where, form, nargs=(3,)):
    """``f`` when it is callable and takes one of ``nargs`` positional arguments (``form``, e.g.
    "tau(t, q, v)", says how it is called); InputError otherwise, naming its signature (a function
    of two arguments failed at its first call, in Python's words). A callable whose signature
    cannot be read (a builtin, a compiled function) is taken as it is."""
    import inspect

    if not callable(f):
        raise InputError(f"{where} must be a function {form}, got {shown(f)}")
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return f
    for n in nargs:
        try:
            sig.bind(*range(n))
            return f
        except TypeError:
            pass
    name = getattr(f, "__name__", type(f).__name__)
    raise InputError(f"{where} must be a function {form}, called with {' or '.join(map(str, nargs))} positional "
                     f"argument(s); {name}{sig} cannot take them")
