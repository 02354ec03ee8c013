"""Threads of the batched kernels: how many, how they share the work, and how they wait.

Batches (``ad.rnea(model, Q, V, A)`` with a leading axis, rollouts, batched derivatives) run on
as many threads as the machine has cores by default. ``NUMBA_NUM_THREADS`` in the environment
(read when numba starts) sets that number for the process; :func:`set_num_threads` lowers it from
Python (numba's setting, which holds for the calling thread), :func:`get_num_threads` reads it.

Two kinds of batch share that number. The one-state algorithms (rnea, aba, crba, kinematics:
microseconds a state) run on numba's own threads (a ``prange`` over chunks of states, OpenMP).
The heavier ones (simulation runs and rollouts, constrained dynamics, the analytical
formulations, derivatives, the regressor: tens of microseconds a state and more) run a compiled
chunk function, which releases the GIL, on Python threads (:func:`run_chunks`): the same speed on
such work (a chunk is milliseconds, the hand-over microseconds), and numba compiles each of them
once, not a second time inside a parallel region (about 160 s less of compilation at installation).

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
import itertools
import operator
import os
import threading

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


_POOL = [None]
_POOL_LOCK = threading.Lock()


def _pool():
    """The process's worker threads (one fewer than the most threads a batch may use: the calling
    thread works too), started at the first parallel call."""
    with _POOL_LOCK:
        if _POOL[0] is None:
            import numba
            from concurrent.futures import ThreadPoolExecutor
            _POOL[0] = ThreadPoolExecutor(max(1, numba.config.NUMBA_NUM_THREADS - 1), "artidyn")
        return _POOL[0]


def chunks(N, per_thread=64):
    """How many chunks for N independent items: one per thread, four per thread above
    ``per_thread`` items a thread (the threads that finish first take the rest)."""
    threads = get_num_threads()
    return max(1, min(N, threads if N <= per_thread * threads else 4 * threads))


def run_chunks(kernel, m, *args):
    """``kernel(*args, c, m)`` for the chunks c = 0 .. m-1, on at most :func:`get_num_threads`
    threads at once, the calling thread one of them; their results in chunk order.

    ``kernel`` is a compiled function that releases the GIL (``nogil=True``), so that the chunks run
    at once. A thread takes the next chunk when it finishes one. An exception of a chunk is raised
    here, after every thread has stopped."""
    threads = min(get_num_threads(), m)
    if threads <= 1:
        return [kernel(*args, c, m) for c in range(m)]
    out = [None] * m
    order = itertools.count()           # next() on it is atomic under the GIL

    def work():
        for c in order:
            if c >= m:
                return
            out[c] = kernel(*args, c, m)

    helpers = [_pool().submit(work) for _ in range(threads - 1)]
    try:
        work()
    finally:
        errors = [h.exception() for h in helpers]       # waits for each
    for e in errors:
        if e is not None:
            raise e
    return out


configure_openmp()
