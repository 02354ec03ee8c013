"""First use: say so on stderr while numba compiles artidyn's kernels, and keep that time apart.

The compiled kernels (:mod:`artidyn.kernels`, the IK kernels) are compiled by numba for the
machine and cached on disk; the installation compiles them all ahead (:mod:`artidyn.warmup`,
``artidyn compile``), and a cached kernel loads in a fraction of a second. A kernel that still has
to compile at its first call (an installation that could not warm up, an edited kernel, a new
``NUMBA_CACHE_DIR``) takes from a few seconds to a minute, which looks like a hang without a word.

:func:`install_listener` (called by :mod:`artidyn.kernels._cache`, which every compiled module
imports before numba compiles anything, so from Python as from the command line) registers a
listener on numba's ``numba:compile`` event, which numba fires only when it compiles, not when it
loads a cached kernel. Once the compilations of the process have lasted ``DELAY`` (2) seconds in
all, one line (:data:`MESSAGE`) goes to stderr, once per process: a warm cache prints nothing.
The listener also sums the time spent compiling (:func:`compile_seconds`); :func:`clock` is a
``time.perf_counter`` that stops while numba compiles, so the wall times a run reports (e.g.
``SimulationResult.wall_time``) exclude the compilation.

``ARTIDYN_QUIET=1`` in the environment silences the line. It goes to stderr only, so the data a
command prints on stdout (piped to a file or another program) is never mixed with it.
"""
import os
import sys
import threading
import time

MESSAGE = ("artidyn: compiling numba kernels for this machine: up to a minute, once; cached for the next "
           "runs (`artidyn compile` compiles them all ahead)...")
DELAY = 2.0
_said = threading.Event()      # the message was printed in this process


def quiet():
    """True when ``ARTIDYN_QUIET`` is set to something other than '', '0' or 'false'."""
    return os.environ.get("ARTIDYN_QUIET", "").strip().lower() not in ("", "0", "false", "no")


def say(stream=None):
    """Print :data:`MESSAGE` on ``stream`` (default stderr), once per process, unless quiet."""
    if quiet() or _said.is_set():
        return False
    _said.set()
    stream = sys.stderr if stream is None else stream
    try:
        print(MESSAGE, file=stream, flush=True)
    except (OSError, ValueError, AttributeError):   # a closed or absent stderr: nothing to say it on
        pass
    return True


class _Listener:
    """numba ``numba:compile`` listener (see the module): sums the time of the outermost
    compilations and prints :data:`MESSAGE` once they have lasted ``delay`` seconds in all."""

    def __init__(self, delay, stream):
        self.delay, self.stream, self.depth, self.timer = delay, stream, 0, None
        self.spent, self.started = 0.0, None

    def on_start(self, event):
        self.depth += 1
        if self.depth == 1:
            self.started = time.perf_counter()
            if not _said.is_set():
                self.timer = threading.Timer(max(self.delay - self.spent, 0.0), say, kwargs={"stream": self.stream})
                self.timer.daemon = True
                self.timer.start()

    def on_end(self, event):
        self.depth = max(self.depth - 1, 0)
        if self.depth == 0:
            if self.started is not None:
                self.spent += time.perf_counter() - self.started
                self.started = None
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None

    def seconds(self):
        """Seconds spent compiling so far, the compilation under way included."""
        now = 0.0 if self.started is None else time.perf_counter() - self.started
        return self.spent + now


_LISTENER = []


def install_listener(delay=DELAY, stream=None):
    """Register (once) the numba ``numba:compile`` listener (see the module). Imports numba."""
    if _LISTENER:
        return _LISTENER[0]
    from numba.core import event

    class Listener(_Listener, event.Listener):
        pass

    listener = Listener(delay, stream)
    event.register("numba:compile", listener)
    _LISTENER.append(listener)
    return listener


def compile_seconds():
    """Seconds this process has spent compiling numba kernels (0 before the listener exists)."""
    return _LISTENER[0].seconds() if _LISTENER else 0.0


def clock():
    """``time.perf_counter()`` less :func:`compile_seconds`: differences of it time a computation
    without the compilation of its kernels."""
    return time.perf_counter() - compile_seconds()
