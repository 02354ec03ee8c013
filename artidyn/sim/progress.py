"""A progress bar for long runs (tqdm, on stderr), which never stops a run."""
import sys

# stderr absent (None: pythonw, some daemons and services), closed, or a broken pipe: a progress
# bar is a comfort, never a reason to stop a run
_STDERR_ERRORS = (AttributeError, ValueError, OSError)


def stderr_is_terminal():
    """True when stderr is an open terminal (where a bar shows by default)."""
    try:
        return bool(sys.stderr.isatty())
    except _STDERR_ERRORS:
        return False


class _ProgressBar:
    """A tqdm bar on stderr that goes quiet, and lets the run go on, the first time stderr
    refuses a write."""

    def __init__(self, bar):
        self.bar = bar

    def update(self, n):
        self._call("update", n)

    def close(self):
        self._call("close")

    def _call(self, what, *args):
        if self.bar is None:
            return
        try:
            getattr(self.bar, what)(*args)
        except _STDERR_ERRORS:
            self.bar = None


def progress_bar(total, done, name):
    """A :class:`_ProgressBar`, or None when stderr cannot take one (then no bar at all)."""
    from tqdm import tqdm

    if sys.stderr is None:
        return None
    try:
        return _ProgressBar(tqdm(total=total, initial=done, desc=f"simulate {name}", unit="sample", leave=False,
                                 file=sys.stderr))
    except _STDERR_ERRORS:
        return None
