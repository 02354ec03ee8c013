"""Batches on a Dask cluster: the batched functions of artidyn and :func:`rollout`, chunk by chunk.

::

    client = ad.distributed.client()                         # a local cluster (worker processes)
    tau = ad.distributed.rnea(model, Q, V, A, chunk=20_000)  # numpy in -> numpy out (computed)
    tau = ad.distributed.rnea(model, dQ, dV, dA)             # dask arrays in -> dask array out (lazy)

Each function takes the arguments of its in-process namesake (:func:`artidyn.rnea` ...) plus
``chunk`` (states per task) and ``client`` (default: the current Dask client). A batch of N
states is cut along its leading axis into chunks; each chunk is one task running the compiled
batched function on a worker, so the numbers are those of the in-process call. With NumPy
inputs the chunks are scattered to the workers and the results gathered and concatenated; with
Dask arrays the result is a Dask array with the input's chunks along the batch axis (``chunk=``
rechunks), computed when asked. A single state (no batch axis) is computed here, in process.

The model is sent once per client and model, as a lean copy without collision shapes, meshes or
caches (which the dynamics do not read). An error on a worker comes back as the same artidyn
error (InputError, ShapeError ...) whose message names the function, the chunk and its states;
state and run numbers in the message count in the whole batch. Tasks on the workers of
:func:`client` run numba with ``threads_per_worker`` threads (environment variable
``ARTIDYN_TASK_THREADS``); for a remote cluster, start the workers likewise
(``ARTIDYN_TASK_THREADS=1 dask worker --nthreads 1 --nworkers <cores>``).

Dask (``pip install "dask[distributed]"``, the ``distributed`` extra of artidyn) is imported
inside the functions: importing this module costs nothing.
"""
import numpy as np

from ..errors import InputError, check_count, check_flag, check_number, shown

from ._core import DEFAULT_CHUNK, check_chunk, check_model, get_client, is_dask, lazy_array  # noqa: F401
from ._core import lean_model  # noqa: F401
from ._core import dask_chunks, run_dask, run_numpy
from ._rollout import compute, rollout  # noqa: F401

__all__ = ["client", "rnea", "aba", "crba", "rnea_derivatives", "aba_derivatives", "body_placements",
           "frame_placement", "jacobian", "regressor", "rollout", "compute", "lean_model"]


CONNECT_TIMEOUT = 5.0      # seconds to reach a remote scheduler (Dask's own default waits 30 s)


def client(address=None, n_workers=None, threads_per_worker=1, processes=True, timeout=None, **cluster_options):
    """A ``dask.distributed.Client``: on a new local cluster, or connected to ``address``.

    Parameters
    ----------
    address : str, optional
        a scheduler address (``"tcp://host:8786"``); then the other arguments are ignored but
        ``cluster_options``, passed to ``Client``.
    n_workers : int, optional
        worker processes of the local cluster (default: the number of CPU cores divided by
        ``threads_per_worker``).
    threads_per_worker : int
        tasks run at once by a worker, and numba threads of each task (``NUMBA_NUM_THREADS`` and
        ``ARTIDYN_TASK_THREADS`` of the worker processes).
    processes : bool
        worker processes (default) or threads of this process.
    timeout : float, optional
        seconds to reach the scheduler at ``address`` (default :data:`CONNECT_TIMEOUT`, 5 s, or
        ``ARTIDYN_DASK_TIMEOUT`` in the environment); past it a ``ConnectionError`` says which address
        did not answer.
    cluster_options
        more options of ``dask.distributed.LocalCluster`` (``memory_limit`` ...). No dashboard
        unless ``dashboard_address`` is given.

    Returns
    -------
    dask.distributed.Client
        The default client from now on; ``client.close()`` also shuts its local cluster down.
    """
    import os

    from distributed import Client

    if address is not None:
        return _connect(Client, address, timeout, cluster_options)
    threads = check_count(threads_per_worker, "client: threads_per_worker", minimum=1)
    processes = check_flag(processes, "client: processes")
    if n_workers is None:
        n_workers = max(1, (os.cpu_count() or 1) // threads)
    n_workers = check_count(n_workers, "client: n_workers", minimum=1)
    env = dict(cluster_options.pop("env", {}) or {})
    env.setdefault("NUMBA_NUM_THREADS", str(threads))
    env.setdefault("ARTIDYN_TASK_THREADS", str(threads))
    cluster_options.setdefault("dashboard_address", None)
    if processes:
        cluster_options["env"] = env
    return Client(n_workers=int(n_workers), threads_per_worker=threads, processes=processes, **cluster_options)


# --- the batched functions ---------------------------------------------------------------------

def _run(fn, label, model, inputs, shared, chunk, client):
    """Run ``fn(model, **inputs, **shared)`` chunk by chunk over the batch axis of ``inputs``.

    ``inputs``: {name: (value, ndim of a batch)}; a value with fewer dimensions (one state) or a
    batch of 1 goes to every chunk whole.
    """
    from ..configuration import batch_size

    check_model(model, label)
    if chunk is not None:
        chunk = check_chunk(chunk, label)
    batched, shared = {}, dict(shared)
    for name, (x, nd) in inputs.items():
        if x is not None and is_dask(x) and (x.ndim < nd or x.shape[0] == 1):
            x = np.asarray(x.compute())
        if x is not None and np.ndim(x) >= nd and np.shape(x)[0] != 1:
            batched[name] = (x if is_dask(x) else np.asarray(x), 0)
        else:
            shared[name] = x
    if not batched:
        return fn(model, **shared)
    N = batch_size(model, **{name: a.shape[0] for name, (a, _) in batched.items()})
    client = get_client(client)
    if not any(is_dask(a) for a, _ in batched.values()):
        fn(model, **_probe(model, batched), **shared)          # arguments checked here, before sending
        parts = run_numpy(client, fn, model, batched, shared, N, chunk or DEFAULT_CHUNK, label)
        if isinstance(parts[0], tuple):
            return tuple(np.concatenate([p[j] for p in parts]) for j in range(len(parts[0])))
        return np.concatenate(parts)
    out = fn(model, **_probe(model, batched), **shared)         # shapes of the results
    chunks = dask_chunks(batched, chunk, N)
    tasks = run_dask(client, fn, model, batched, shared, N, chunks, label)
    if isinstance(out, tuple):
        return tuple(lazy_array(tasks, chunks, o.shape[1:], o.dtype, j) for j, o in enumerate(out))
    return lazy_array(tasks, chunks, out.shape[1:], out.dtype)


def _probe(model, batched):
    """One valid state shaped like the batched inputs (neutral q, zeros elsewhere)."""
    from ..configuration import neutral

    probe = {}
    for name, (a, ax) in batched.items():
        trailing = tuple(a.shape[1:])
        probe[name] = (neutral(model)[None] if name == "q" and trailing == (model.nq,)
                       else np.zeros((1,) + trailing))
    return probe


def _connect(Client, address, timeout, options):
    """``Client(address)`` within ``timeout`` seconds, or a ConnectionError naming the address."""
    import os
    if timeout is None and os.environ.get("ARTIDYN_DASK_TIMEOUT"):
        text = os.environ["ARTIDYN_DASK_TIMEOUT"]
        try:
            timeout = float(text)
        except ValueError:
            raise InputError(f"client: the environment variable ARTIDYN_DASK_TIMEOUT must be a number of seconds, "
                             f"got {text!r}") from None
        where = "client: ARTIDYN_DASK_TIMEOUT (seconds)"
    else:
        timeout, where = (CONNECT_TIMEOUT if timeout is None else timeout), "client: timeout (seconds)"
    timeout = check_number(timeout, where, positive=True)
    if not isinstance(address, str):
        raise InputError(f"client: address must be a scheduler address such as 'tcp://host:8786', got {shown(address)}")
    try:
        from distributed.comm.addressing import parse_address, parse_host_port
        from distributed.comm.registry import get_backend
        scheme, location = parse_address(address)
        get_backend(scheme)
        if scheme in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)              # a host and a port
    except ValueError as exc:                  # an unknown scheme, a malformed address
        raise InputError(f"client: address {address!r} is not a Dask scheduler address ({exc}); "
                         f"e.g. 'tcp://host:8786'") from None
    try:
        _reach(address, timeout)
        return Client(address, timeout=timeout, **options)
    except (OSError, TimeoutError) as exc:
        raise ConnectionError(f"client: no Dask scheduler answered at {address!r} within {timeout:g} s "
                              f"({type(exc).__name__}); is it running and reachable? (timeout= or "
                              f"ARTIDYN_DASK_TIMEOUT for a slow network)") from None
    except (MemoryError, EOFError, ValueError, TypeError, KeyError, RuntimeError) as exc:
        raise ConnectionError(f"client: what answers at {address!r} is not a Dask scheduler (its reply could not "
                              f"be read: {type(exc).__name__}); check the host and the port") from None


def _reach(address, timeout):
    """Open a comm to ``address`` and read its handshake, all within ``timeout`` seconds, then
    close it. Dask's ``Client`` bounds the connection by its timeout but then waits for the
    handshake without limit: a port that accepts connections and says nothing (a proxy, another
    service) would hang it. Run in a thread of its own (the caller may be inside an event loop)."""
    import asyncio
    import concurrent.futures

    from distributed.comm import connect

    async def once():
        comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout)
        await comm.close()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, once()).result()


def rnea(model, q, v, a, f_ext=None, friction=True, chunk=None, client=None):
    """:func:`artidyn.rnea` on a Dask cluster: tau (N, nv). ``chunk``: states per task (default
    20 000 for NumPy inputs; the input's chunks for Dask arrays)."""
    from ..dynamics import rnea as fn

    return _run(fn, "distributed.rnea", model, {"q": (q, 2), "v": (v, 2), "a": (a, 2), "f_ext": (f_ext, 3)},
                {"friction": friction}, chunk, client)


def aba(model, q, v, tau, f_ext=None, friction=True, chunk=None, client=None):
    """:func:`artidyn.aba` on a Dask cluster: the accelerations (N, nv)."""
    from ..dynamics import aba as fn

    return _run(fn, "distributed.aba", model, {"q": (q, 2), "v": (v, 2), "tau": (tau, 2), "f_ext": (f_ext, 3)},
                {"friction": friction}, chunk, client)


def crba(model, q, chunk=None, client=None):
    """:func:`artidyn.crba` on a Dask cluster: the mass matrices (N, nv, nv)."""
    from ..dynamics import crba as fn

    return _run(fn, "distributed.crba", model, {"q": (q, 2)}, {}, chunk, client)


def rnea_derivatives(model, q, v, a, f_ext=None, friction=True, chunk=None, client=None):
    """:func:`artidyn.rnea_derivatives` on a Dask cluster: (dtau_dq, dtau_dv, M), each (N, nv, nv).

    With Dask inputs: three Dask arrays sharing their tasks (``dask.compute(*result)`` runs each
    chunk once)."""
    from ..dynamics import rnea_derivatives as fn

    return _run(fn, "distributed.rnea_derivatives", model,
                {"q": (q, 2), "v": (v, 2), "a": (a, 2), "f_ext": (f_ext, 3)}, {"friction": friction}, chunk, client)


def aba_derivatives(model, q, v, tau, f_ext=None, friction=True, chunk=None, client=None):
    """:func:`artidyn.aba_derivatives` on a Dask cluster: (da_dq, da_dv, Minv), each (N, nv, nv)."""
    from ..dynamics import aba_derivatives as fn

    return _run(fn, "distributed.aba_derivatives", model,
                {"q": (q, 2), "v": (v, 2), "tau": (tau, 2), "f_ext": (f_ext, 3)}, {"friction": friction},
                chunk, client)


def body_placements(model, q, chunk=None, client=None):
    """:func:`artidyn.body_placements` on a Dask cluster: (N, nb+1, 4, 4)."""
    from ..kinematics import body_placements as fn

    return _run(fn, "distributed.body_placements", model, {"q": (q, 2)}, {}, chunk, client)


def frame_placement(model, q, frame, chunk=None, client=None):
    """:func:`artidyn.frame_placement` on a Dask cluster: (N, 4, 4)."""
    from ..kinematics import frame_placement as fn

    return _run(fn, "distributed.frame_placement", model, {"q": (q, 2)}, {"frame": frame}, chunk, client)


def jacobian(model, q, frame, expressed="world", point=None, chunk=None, client=None):
    """:func:`artidyn.jacobian` on a Dask cluster: (N, 6, nv)."""
    from ..kinematics import jacobian as fn

    return _run(fn, "distributed.jacobian", model, {"q": (q, 2)},
                {"frame": frame, "expressed": expressed, "point": point}, chunk, client)


def regressor(model, q, v, a, chunk=None, client=None):
    """:func:`artidyn.identification.regressor` on a Dask cluster: (N, nv, 10 nb), the rows of
    identification data sets too large for one machine."""
    from ..identification import regressor as fn

    return _run(fn, "distributed.regressor", model, {"q": (q, 2), "v": (v, 2), "a": (a, 2)}, {}, chunk, client)
