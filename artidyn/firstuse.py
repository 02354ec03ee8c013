"""First use: say so on stderr while numba compiles artidyn's kernels.

The compiled kernels (:mod:`artidyn.kernels`, the IK kernels) are compiled by numba for the
machine on their first call and cached on disk (``__pycache__``); later runs load them in a
fraction of a second. The first compilation takes about a minute, which looks like a hang
without a word. Two ways to say it, both printing one line on stderr, once per process, and only
when a compilation is still running ``DELAY`` (2) seconds after it started, so a warm cache
prints nothing:

- :func:`compile_notice` (the command line wraps every command in it): a background thread
  looks, every 0.25 s after the first 2 s, at what the main thread runs; numba's compiler on its
  stack means a compilation. Nothing is imported, nothing costs when the kernels are cached.
- :func:`install_listener` (for library use, once numba is imported): a listener on numba's
  ``numba:compile`` event, which numba fires only when it compiles (not when it loads a cached
  kernel), starting a 2 s timer that the end of the compilation cancels.

``ARTIDYN_QUIET=1`` in the environment silences both. The message goes to stderr only, so the
data a command prints on stdout (piped to a file or another program) is never mixed with it.
"""
import contextlib
import os
import sys
import threading

MESSAGE = ("artidyn: compiling the numba kernels for this machine (once, about a minute; cached "
           "for the next runs)...")
DELAY = 2.0
_POLL = 0.25
_COMPILER_FILES = ("compiler.py", "compiler_machinery.py", "typed_passes.py", "typeinfer.py",
                   "lowering.py", "codegen.py")
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
    except (OSError, ValueError):       # a closed stderr: nothing to say it on
        pass
    return True


def compiling(thread_id):
    """True when the thread ``thread_id`` is inside numba's compiler (a frame of one of its
    compiler modules on its stack)."""
    frame = sys._current_frames().get(thread_id)
    while frame is not None:
        path = frame.f_code.co_filename
        if os.path.basename(path) in _COMPILER_FILES and f"numba{os.sep}core" in path:
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def compile_notice(delay=DELAY, stream=None):
    """Within the block, print :data:`MESSAGE` once when, ``delay`` seconds or more after the
    block started, the calling thread is found inside numba's compiler (looked at every 0.25 s)."""
    if quiet() or _said.is_set():
        yield
        return
    target = threading.get_ident()
    stop = threading.Event()

    def watch():
        if stop.wait(delay):
            return
        while not stop.is_set() and not _said.is_set():
            if compiling(target):
                say(stream)
                return
            stop.wait(_POLL)

    thread = threading.Thread(target=watch, name="artidyn-compile-notice", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()


class _Listener:
    """numba ``numba:compile`` listener: a timer per outermost compilation (see the module)."""

    def __init__(self, delay, stream):
        self.delay, self.stream, self.depth, self.timer = delay, stream, 0, None

    def on_start(self, event):
        self.depth += 1
        if self.depth == 1 and not _said.is_set():
            self.timer = threading.Timer(self.delay, say, kwargs={"stream": self.stream})
            self.timer.daemon = True
            self.timer.start()

    def on_end(self, event):
        self.depth = max(self.depth - 1, 0)
        if self.depth == 0 and self.timer is not None:
            self.timer.cancel()
            self.timer = None


_LISTENER = []


def install_listener(delay=DELAY, stream=None):
    """Register (once) a numba ``numba:compile`` listener printing :data:`MESSAGE` when a
    compilation lasts more than ``delay`` seconds. Imports numba: call it where numba is about to
    be used (e.g. before the kernels' first import)."""
    if _LISTENER:
        return _LISTENER[0]
    from numba.core import event

    class Listener(_Listener, event.Listener):
        pass

    listener = Listener(delay, stream)
    event.register("numba:compile", listener)
    _LISTENER.append(listener)
    return listener
