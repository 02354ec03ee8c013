"""Threads of the batched kernels: how many, and how they wait.

Batches (``ad.rnea(model, Q, V, A)`` with a leading axis, rollouts, batched derivatives) run on
numba's threads: as many as the machine has cores by default. ``NUMBA_NUM_THREADS`` in the
environment (read when numba starts) sets that number for the process; :func:`set_num_threads`
lowers it from Python (numba's setting, which holds for the calling thread), :func:`get_num_threads`
reads it.

How the threads wait (OpenMP, numba's default threading layer): between two batches, and at the
end of one while the slowest thread finishes, GNU OpenMP's threads spin on a core for a while
before they sleep (300,000 turns by default). On a machine where another process keeps a core
busy, that spinning holds the core a preempted thread needs: a batch that takes 70 us then waits a
whole scheduler slice (4 ms) one call in ten, 5-6x slower on average. artidyn sets
``GOMP_SPINCOUNT=300`` at import, unless the environment sets ``GOMP_SPINCOUNT`` or
``OMP_WAIT_POLICY`` itself: the threads still catch back-to-back batches on a quiet machine (no
measurable cost), and sleep almost at once on a busy one (about 2x, the bound with one of two cores
taken; ``benchmarks/busy.py``). OpenMP reads it when it starts, so it applies when artidyn is
imported before any other library that starts OpenMP in the process (pinocchio's parallel
calls share it then too).
"""
import operator
import os

SPINCOUNT = "300"


def configure_openmp():
    """Set ``GOMP_SPINCOUNT`` (see the module) unless the environment chose how OpenMP waits."""
    if "GOMP_SPINCOUNT" not in os.environ and "OMP_WAIT_POLICY" not in os.environ:
        os.environ["GOMP_SPINCOUNT"] = SPINCOUNT


def get_num_threads():
    """The number of threads a batch of the calling thread runs on."""
    import numba
    return numba.get_num_threads()


def set_num_threads(n):
    """Run the batches of the calling thread on ``n`` threads (1 .. ``NUMBA_NUM_THREADS``, the
    number the process started with: the cores, or that environment variable)."""
    import numba
    from .errors import InputError
    top = numba.config.NUMBA_NUM_THREADS
    try:
        n = operator.index(n)
    except TypeError:
        raise InputError(f"set_num_threads: n must be an integer from 1 to {top}, got {n!r}") from None
    if not 1 <= n <= top:
        raise InputError(f"set_num_threads: n = {n} is outside 1 .. {top} (NUMBA_NUM_THREADS, the most "
                         f"threads this process started with)")
    numba.set_num_threads(n)


configure_openmp()
