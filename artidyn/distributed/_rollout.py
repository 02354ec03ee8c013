""":func:`artidyn.rollout` on a Dask cluster: the runs cut in chunks, one task per chunk.

The method (``"auto"``) and the time step (``dt=None``) are resolved here from the first initial
state, as the in-process rollout does, so every chunk integrates with the same ones and the runs
equal those of the in-process call. Per-run inputs (``q0`` (N, nq), ``v0`` (N, nv), ``tau`` (N, k)
or (rows, N, k), ``f_ext`` (N, nb+1, 6)) are cut along their run axis; the others (one state,
inputs over time, controllers) go to every chunk whole. A TimeTable over runs is refused (yet).
"""
import time

import numpy as np

from ..errors import InputError, ShapeError
from ._core import check_chunk, check_model, get_client, is_dask, lazy_array, run_dask, run_numpy

MAX_CHUNK = 1000      # runs per task by default at most (the samples of a run are kept in memory)


def rollout(model, q0, v0=None, tau=0.0, t_final=1.0, dt=None, method="auto", chunk=None, client=None, **options):
    """:func:`artidyn.rollout` of N runs on a Dask cluster; the same :class:`SimulationResult`.

    ``chunk``: runs per task; default: the runs spread over twice the cluster's threads, at most
    1000 per task. ``options``: the other arguments of :func:`artidyn.rollout` (``f_ext``,
    ``controller``, ``record_every``, ``record``, ``contact``, ``constraints`` ...: a contact
    rollout runs the compiled pipeline in each task). With Dask arrays for ``q0`` / ``v0`` /
    ``tau`` the result is lazy: ``q``, ``v``, ``a``, ``tau``, ``energy`` and ``stats`` hold Dask
    arrays (N, S, ...) and ``wall_time`` is None; :func:`compute` makes an ordinary result.
    A failed run raises the SimulationError of its chunk (the chunk's partial result attached).
    """
    from ..configuration import as_q
    from ..sim import SimulationResult, rollout as fn
    from ..sim.setup import auto_method, grids as _grids
    from ..sim.simulate import METHODS, input_runs as _input_runs

    label = "distributed.rollout"
    check_model(model, label)
    if chunk is not None:
        chunk = check_chunk(chunk, label)
    if method not in METHODS or method == "scipy":
        return fn(model, q0, v0, tau, t_final, dt, method, **options)   # the in-process error
    f_ext = options.pop("f_ext", None)
    runs = {"q0": (q0, 2), "v0": (v0, 2), "tau": (tau, 2), "f_ext": (f_ext, 3)}
    N = _runs(model, q0, v0, tau, f_ext, _input_runs)
    if N <= 1:
        return fn(model, q0, v0, tau, t_final, dt, method, f_ext=f_ext, **options)
    first = _first_state(q0)
    Q1, _ = as_q(model, first, "q0")
    if options.get("contact") is not None or method == "moreau_jean":     # the contact pipeline: 1 ms default
        from ..sim.setup import time_grid
        method, dt = "moreau_jean", 1e-3 if dt is None else dt
        grid = t_out = time_grid(t_final, dt)
    else:
        if method == "auto":
            method = auto_method(model, Q1[0], options.get("friction", True))
        grid, t_out = _grids(model, Q1, t_final, dt, method, options.get("t_eval"), options.get("record_every", 1))[:2]
    if method != "dopri5":
        dt = grid[1] - grid[0]
    batched, shared = _split(runs, N, int(grid.size - 1))
    shared.update(options, t_final=t_final, dt=dt, method=method)
    client = get_client(client)
    if not any(is_dask(a) for a, _ in batched.values()):
        start = time.perf_counter()
        parts = run_numpy(client, _quiet_rollout, model, batched, shared, N, chunk or _default_chunk(client, N), label,
                          shapes=method == "moreau_jean")
        result = merge(parts, time.perf_counter() - start)
        _warn_limits(model, result.limit_events)
        return result
    from ._core import dask_chunks

    chunks = dask_chunks(batched, chunk, N, _default_chunk(client, N))
    tasks = run_dask(client, _quiet_rollout, model, batched, shared, N, chunks, label, shapes=method == "moreau_jean")
    return _lazy_result(SimulationResult, model, tasks, chunks, t_out, method, dt, options)


def compute(result):
    """An ordinary :class:`SimulationResult` from a lazy one of :func:`rollout` (Dask arrays)."""
    import dask

    arrays = {k: getattr(result, k) for k in ("q", "v", "a", "tau")}
    energy = tuple(result.energy) if result.energy is not None else None
    arrays, energy, stats = dask.compute(arrays, energy, result.stats)
    from ..sim import SimulationResult

    return SimulationResult(t=result.t, energy=energy, model_name=result.model_name, q_names=result.q_names,
                            v_names=result.v_names, method=result.method, dt=result.dt, stats=stats,
                            conservative=result.conservative, **arrays)


def _quiet_rollout(model, **arguments):
    """:func:`artidyn.rollout` on a worker: the joint-limit warnings are raised here, from the
    merged result's ``limit_events`` (a worker's warnings end in its log)."""
    import warnings

    from ..sim import JointLimitWarning, rollout

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JointLimitWarning)
        return rollout(model, **arguments)


def _warn_limits(model, events):
    """The warning of the in-process rollout about joint-limit crossings."""
    if events:
        import warnings

        from ..sim import JointLimitWarning

        joints = sorted({e.joint for e in events})
        warnings.warn(f"simulate: {len(events)} joint-limit crossing(s) on '{model.name}' ({', '.join(joints[:6])}"
                      f"{' ...' if len(joints) > 6 else ''}), first at t = {min(e.time for e in events):.4g} s: "
                      f"the simulator does not enforce position limits yet; see result.limit_events",
                      JointLimitWarning, stacklevel=3)


def merge(parts, wall):
    """One SimulationResult of N runs from the results of the chunks (in order)."""
    from ..sim import Energy, SimulationResult

    first, offsets = parts[0], np.cumsum([0] + [p.q.shape[0] for p in parts])
    cat = {k: (None if getattr(first, k) is None else np.concatenate([getattr(p, k) for p in parts]))
           for k in ("q", "v", "a", "tau")}
    energy = None if first.energy is None else Energy(*(np.concatenate([p.energy[j] for p in parts])
                                                         for j in range(3)))
    stats = {k: np.concatenate([p.stats[k] for p in parts]) if np.ndim(first.stats[k]) else first.stats[k]
             for k in first.stats}                                           # per run, or one (a route's name)
    events = [e._replace(run=e.run + int(o)) for p, o in zip(parts, offsets) for e in p.limit_events]
    out = SimulationResult(t=first.t, energy=energy, model_name=first.model_name, q_names=first.q_names,
                           v_names=first.v_names, method=first.method, dt=first.dt, limit_events=events,
                           stats=stats, wall_time=wall, conservative=all(p.conservative for p in parts), **cat)
    for k in ("contact_forces", "input_work", "constraint_forces", "drift"):     # contact rollouts
        if getattr(first, k, None) is not None:
            setattr(out, k, np.concatenate([getattr(p, k) for p in parts]))
    if hasattr(first, "contact_body_names"):
        out.contact_body_names = first.contact_body_names
    return out


# --- helpers -----------------------------------------------------------------------------------

def _runs(model, q0, v0, tau, f_ext, input_runs):
    """N, the number of runs, as the in-process rollout counts them."""
    n = [np.shape(x)[0] for x in (q0, v0) if x is not None and not callable(x) and np.ndim(x) == 2]
    N = max(n) if n else 1
    if any(k not in (1, N) for k in n):
        raise ShapeError(f"q0 has {n[0]} states and v0 {n[-1]}: they must match (or one be single)")
    if N == 1:
        N = input_runs(tau if not is_dask(tau) else np.empty(tau.shape), f_ext)
    return N


def _first_state(q0):
    q = q0[0] if np.ndim(q0) == 2 else q0
    return np.asarray(q.compute() if is_dask(q) else q, dtype=float)


def _split(runs, N, n_int):
    """{name: (array, run axis)} of the per-run inputs, and the shared ones."""
    from ..sim import TimeTable

    batched, shared = {}, {}
    for name, (x, nd) in runs.items():
        if isinstance(x, TimeTable) and np.ndim(x.values) == 3 and np.shape(x.values)[1] == N:
            raise InputError("distributed.rollout: a TimeTable over runs is not supported yet; pass its values "
                             "as an array (rows, N, k) sampled on the time grid")
        shape = () if x is None or callable(x) or isinstance(x, TimeTable) else np.shape(x)
        axis = None
        over_time = N in (n_int, n_int + 1)
        if len(shape) == nd and shape[0] == N and name == "tau" and over_time:
            raise ShapeError(f"tau of shape {shape} is ambiguous ({N} states, {n_int} steps): "
                             f"pass ({shape[0]}, {N}, {shape[-1]}) for torques over time")
        if len(shape) == nd and shape[0] == N and not (name == "f_ext" and over_time):
            axis = 0                                  # one row per run
        elif len(shape) == 3 and shape[1] == N and name == "tau":
            axis = 1                                  # (rows, N, k) over time
        if axis is None:
            shared[name] = x.compute() if is_dask(x) else x
        else:
            batched[name] = (x if is_dask(x) else np.asarray(x), axis)
    return batched, shared


def _default_chunk(client, N):
    threads = sum(client.nthreads().values()) or 1
    return int(min(MAX_CHUNK, max(1, -(-N // (2 * threads)))))


def _lazy_result(SimulationResult, model, tasks, chunks, t_out, method, dt, options):
    from ..sim import Energy
    from ..sim.setup import coordinate_names

    S = t_out.size
    record = options.get("record", ("q", "v", "a", "tau", "energy"))
    record = (record,) if isinstance(record, str) else tuple(record)

    def field(get, trailing):
        import dask

        parts = [dask.delayed(get, pure=True)(t) for t in tasks]
        return lazy_array(parts, chunks, trailing, float)

    arrays = {k: (field(_Get(k), (S, model.nq if k == "q" else model.nv)) if k in record or k in ("q", "v") else None)
              for k in ("q", "v", "a", "tau")}
    energy = (Energy(*(field(_Get("energy", j), (S,)) for j in range(3))) if "energy" in record else None)
    stats = {k: field(_Get("stats", k), ()) for k in ("accepted_steps", "rejected_steps", "dynamics_evaluations",
                                                      "energy_error", "status")}
    res = SimulationResult.__new__(SimulationResult)
    res.__dict__.update(t=np.asarray(t_out, dtype=float), energy=energy, model_name=model.name,
                        q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"), method=method,
                        dt=dt, limit_events=[], stats=stats, wall_time=None, conservative=None, **arrays)
    return res


class _Get:
    """A picklable getter of one field of a chunk's SimulationResult."""

    def __init__(self, name, item=None):
        self.name, self.item = name, item

    def __call__(self, result):
        x = getattr(result, self.name)
        return x if self.item is None else x[self.item]
