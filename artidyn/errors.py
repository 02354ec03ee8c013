"""Exceptions raised by artidyn.

Every message names the file, body, joint or argument concerned and the wrong value.
"""


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
