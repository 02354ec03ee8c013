"""The machinery of :mod:`artidyn.distributed`: lean models, chunks, tasks and their errors.

A batch of N states is cut along its leading axis into chunks of ``chunk`` states; each chunk is
one Dask task that calls the in-process batched function (compiled, numba) on the worker. The
model travels once per client (``client.scatter(..., broadcast=True)``) as a lean copy without
collision shapes, meshes or caches. Errors raised on a worker come back as the same artidyn error
class, the message prefixed by the chunk and its states, the state numbers of the message counted
in the whole batch (as the in-process call would have counted them).

Dask is imported inside the functions: importing this module costs nothing.
"""
import copy
import os
import re
import sys
import weakref

import numpy as np

from ..errors import ArtidynError, InputError, check_count, shown

DEFAULT_CHUNK = 20_000

_LEAN = weakref.WeakKeyDictionary()        # model -> lean copy
_SCATTERED = weakref.WeakKeyDictionary()   # model -> {client id: Future of the lean copy}
_DROPPED = {"collisions": (), "collision_exclusions": (), "meshes": {}}


# --- the model ---------------------------------------------------------------------------------

def lean_model(model, shapes=False):
    """A copy of ``model`` for the workers: no collision shapes, meshes nor caches (``shapes``:
    the collision shapes kept, for contact runs).

    The dynamics and kinematics do not read them; they are most of a robot's pickle (talos_full_v2:
    0.92 MB with its meshes and collision shapes, 0.06 MB without).
    """
    if shapes:
        return model
    lean = _LEAN.get(model)
    if lean is None:
        fields = model.__dict__
        lean = model.replace(**{k: v for k, v in _DROPPED.items() if k in fields})
        _LEAN[model] = lean
    return lean


def model_future(client, model, shapes=False):
    """The Future of the lean copy of ``model`` on every worker of ``client`` (scattered once)."""
    held = _SCATTERED.setdefault(model, {})
    key = (client.id, bool(shapes))
    fut = held.get(key)
    if fut is None or fut.status in ("cancelled", "lost", "error"):
        fut = client.scatter(lean_model(model, shapes), broadcast=True, hash=False)
        held[key] = fut
    return fut


def get_client(client=None):
    """``client`` or the current default Dask client; InputError when there is none."""
    from distributed import Client, default_client

    if client is not None:
        if not isinstance(client, Client):
            raise InputError(f"artidyn.distributed: client must be a dask.distributed.Client (artidyn.distributed."
                             f"client(...)), got {shown(client)}")
        return client

    try:
        return default_client()
    except ValueError:
        raise InputError("artidyn.distributed: no Dask client is running; start one with "
                         "artidyn.distributed.client() (a local cluster) or client(address='tcp://...'), "
                         "or pass client=") from None


# --- inputs ------------------------------------------------------------------------------------

def is_dask(x):
    """True for a Dask collection (without importing Dask when it is not loaded)."""
    if "dask" not in sys.modules:
        return False
    import dask

    return dask.is_dask_collection(x)


def check_chunk(chunk, label):
    """``chunk`` (states or runs per task) as an int >= 1 (the shared check of :mod:`artidyn.errors`)."""
    return check_count(chunk, f"{label}: chunk (states per task)", minimum=1)


def check_model(model, label):
    """InputError unless ``model`` is an artidyn Model (a name or a path is loaded by ad.load first)."""
    from ..model import Model
    if not isinstance(model, Model):
        raise InputError(f"{label}: model must be an artidyn Model (ad.load(...)), got {shown(model)}")


def bounds(N, chunk):
    """[(start, stop)] of the chunks of a batch of N states."""
    return [(s, min(s + chunk, N)) for s in range(0, N, chunk)]


# --- the task run by a worker ------------------------------------------------------------------

_STATE = re.compile(r"\bstate (\d+)")
_RUN = re.compile(r"\brun (\d+) of (\d+)")


def _in_batch(message, start, N):
    """The message with the chunk's state (and run) numbers counted in the whole batch."""
    message = _STATE.sub(lambda m: f"state {start + int(m.group(1))}", message)
    return _RUN.sub(lambda m: f"run {start + int(m.group(1))} of {N}", message)


def chunk_error(exc, label, k, start, stop, N):
    """``exc`` as an artidyn error naming chunk ``k`` (states start .. stop - 1 of N)."""
    where = f"{label}, chunk {k} (states {start} to {stop - 1} of {N}): "
    if isinstance(exc, ArtidynError):
        new = copy.copy(exc)               # same class and attributes (SimulationError.result)
        text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
        new.args = (where + _in_batch(text, start, N),) + tuple(exc.args[1:])
        return new
    return ArtidynError(f"{where}{type(exc).__name__}: {exc}")


def call_chunk(k, arrays, fn=None, model=None, names=(), shared=None, start=0, stop=0, N=0, label=""):
    """Run ``fn(model, **shared, **dict(zip(names, arrays)))`` on one chunk (on a worker)."""
    kwargs = dict(shared or {})
    kwargs.update(zip(names, arrays))
    _task_threads()
    try:
        return fn(model, **kwargs)
    except Exception as exc:     # noqa: BLE001  re-raised as an artidyn error naming the chunk
        raise chunk_error(exc, label, k, start, stop, N) from None


def _task_threads():
    """numba threads of this task: ``ARTIDYN_TASK_THREADS`` of the worker (set by :func:`client`).

    ``NUMBA_NUM_THREADS`` alone does not do: a worker process may import numba (through the
    script it re-imports) before its nanny sets the environment.
    """
    n = os.environ.get("ARTIDYN_TASK_THREADS")
    if n:
        import numba

        numba.set_num_threads(max(1, min(int(n), numba.config.NUMBA_NUM_THREADS)))


def _first_error(futures):
    """Raise the error of the first failed future (lowest chunk), if any."""
    for fut in futures:
        if fut.status == "error":
            fut.result()        # re-raises the worker's exception


# --- running a batch ---------------------------------------------------------------------------

def run_numpy(client, fn, model, batched, shared, N, chunk, label, shapes=False):
    """The chunks of NumPy inputs as tasks; the list of per-chunk results (in order).

    ``batched``: {name: (array, axis)}, cut along ``axis`` into chunks of ``chunk`` states.
    """
    names = tuple(batched)
    parts = bounds(N, chunk)
    pieces = [tuple(np.ascontiguousarray(_take(a, ax, s, e)) for a, ax in batched.values()) for s, e in parts]
    for attempt in range(1 + RETRIES):
        try:
            return _submit_all(client, fn, model, names, shared, N, label, parts, pieces, shapes)
        except Exception as exc:          # a worker that died takes its chunks and the scattered data with it
            if not _worker_lost(exc):
                raise
            if attempt == RETRIES:
                raise WorkerLost(f"{label}: a Dask worker died while computing the batch ({type(exc).__name__}: "
                                 f"{exc}), again after {RETRIES} retr{'y' if RETRIES == 1 else 'ies'} of the whole "
                                 f"batch; look at the workers' logs (memory_limit, a crash in a task?)") from None
            _SCATTERED.get(model, {}).pop((client.id, shapes), None)   # scattered anew: it may have left with a worker


RETRIES = 1     # the chunks are pure: a batch a dead worker interrupted is computed again once


class WorkerLost(ArtidynError, RuntimeError):
    """A Dask worker died during a batch, and the batch failed again when computed anew."""


def _worker_lost(exc):
    """True for what Dask raises when a worker dies under a task or its data (cancelled futures,
    a killed worker, a lost connection)."""
    from distributed import KilledWorker
    names = {"FuturesCancelledError", "CancelledError", "CommClosedError"}
    return isinstance(exc, KilledWorker) or type(exc).__name__ in names


def _submit_all(client, fn, model, names, shared, N, label, parts, pieces, shapes=False):
    from distributed import wait

    mf = model_future(client, model, shapes)
    data = client.scatter(pieces, hash=False)
    futs = [client.submit(call_chunk, k, d, fn=fn, model=mf, names=names, shared=shared, start=s, stop=e, N=N,
                          label=label, pure=False)
            for k, ((s, e), d) in enumerate(zip(parts, data))]
    wait(futs)
    _first_error(futs)
    return client.gather(futs)


def run_dask(client, fn, model, batched, shared, N, chunks, label, shapes=False):
    """The blocks of Dask inputs as delayed tasks (lazy); the list of per-chunk delayed results.

    ``chunks``: the sizes of the chunks along the batch axis; every batched input is rechunked to
    them (one block along the other axes).
    """
    import dask
    import dask.array as da

    mf = model_future(client, model, shapes)
    names = tuple(batched)
    blocks = []
    for a, ax in batched.values():
        a = a if is_dask(a) else da.from_array(a, chunks=-1)
        spec = {i: -1 for i in range(a.ndim)}
        spec[ax] = chunks
        blocks.append(a.rechunk(spec).to_delayed().reshape(-1))
    tasks, start = [], 0
    for k, n in enumerate(chunks):
        args = tuple(b[k] for b in blocks)
        tasks.append(dask.delayed(call_chunk, pure=True)(
            k, args, fn=fn, model=mf, names=names, shared=shared, start=start, stop=start + n, N=N, label=label))
        start += n
    return tasks


def lazy_array(tasks, chunks, trailing, dtype, index=None):
    """One Dask array (N, *trailing) from per-chunk delayed results (``index``: an item of a tuple)."""
    import dask.array as da

    parts = [da.from_delayed(t if index is None else t[index], shape=(n,) + tuple(trailing), dtype=dtype)
             for t, n in zip(tasks, chunks)]
    return parts[0] if len(parts) == 1 else da.concatenate(parts, axis=0)


def dask_chunks(batched, chunk, N, default=DEFAULT_CHUNK):
    """Chunk sizes along the batch axis: ``chunk`` when given, else those of the first Dask input."""
    if chunk is not None:
        return tuple(e - s for s, e in bounds(N, chunk))
    for a, ax in batched.values():
        if is_dask(a):
            return tuple(int(c) for c in a.chunks[ax])
    return tuple(e - s for s, e in bounds(N, default))


def _take(a, axis, s, e):
    return a[s:e] if axis == 0 else a[(slice(None),) * axis + (slice(s, e),)]
