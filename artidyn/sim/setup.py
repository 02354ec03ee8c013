"""The arguments of a run made into its pieces: the initial states, the time grid and the
sample times, the default step and method, what the samples keep, the coordinates' names.
Every route of :func:`~artidyn.sim.simulate` (smooth, closed chains, contacts, servo) uses them.
"""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

import numpy as np

from ..configuration import as_batch, as_q
from ..errors import InputError, ShapeError, check_number
from ..joints import CYLINDRICAL, FREE, SPHERICAL

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Model

RECORD = ("q", "v", "a", "tau", "energy")
MAX_GRID_STEPS = 1e9   # most steps of a fixed-step grid (t_final / dt)


def time_grid(t_final, dt):
    """Uniform grid 0 .. t_final with steps of at most ``dt``: (n_steps + 1,) array."""
    for name, val in (("t_final", t_final), ("dt", dt)):
        if not isinstance(val, (int, float, np.floating, np.integer)) or isinstance(val, (bool, np.bool_)) or \
                not np.isfinite(val) or val <= 0:
            raise InputError(f"simulate: {name} must be a positive finite number of seconds, got {val!r}")
    ratio = float(t_final) / float(dt)
    if not ratio <= MAX_GRID_STEPS:
        raise InputError(f"simulate: t_final / dt = {t_final:g} / {dt:g} = {ratio:.3g} steps, more than "
                         f"{MAX_GRID_STEPS:.0e}: the time grid alone would not fit in memory; use a larger dt or "
                         f"a shorter t_final")
    n_steps = max(1, int(np.ceil(ratio - 1e-9)))
    check_memory((n_steps + 1) * 8, "the time grid")
    return np.linspace(0.0, float(t_final), n_steps + 1)


def check_memory(nbytes, what):
    """InputError before allocating ``nbytes`` for ``what`` when that exceeds half the machine's memory."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        total = 16 * 2**30
    if nbytes > total / 2:
        raise InputError(f"simulate: {what} would take {nbytes / 2**30:.3g} GiB, more than half of this machine's "
                         f"{total / 2**30:.3g} GiB; keep fewer samples (record_every=k, record=('q', 'v')), use a "
                         f"larger dt or a shorter t_final")


# --- the default step ----------------------------------------------------------------------------

def _nice_floor(x):
    """The largest 1, 2 or 5 x 10^k not above x."""
    e = math.floor(math.log10(x))
    for m in (5.0, 2.0, 1.0):
        if m * 10.0 ** e <= x * (1 + 1e-12):
            return m * 10.0 ** e
    return 10.0 ** e


def default_dt(model: Model, q: ArrayLike | None = None, method: str = "rk4", largest: float = 1e-3) -> float:
    """A time step for ``model`` from its fastest linearised mode at ``q`` (neutral by default).

    The gravity stiffness ``K = dg/dq`` (central differences of the gravity torques on the
    manifold) and the joint damping ``D`` against the mass matrix ``M``: ``omega^2 = max |eig(K, M)|``
    and ``gamma = max eig(D, M)``. The step resolves the fastest oscillation with about 20 steps
    per period (``0.3 / omega``) and, for the explicit methods, stays inside their stability
    region for the damping (``1 / gamma``); it is at most ``largest`` (1 ms) and rounded down to
    1, 2 or 5 x 10^k s. For ``method="implicit"`` the damping is integrated implicitly: its
    modes are taken against ``M + h D`` (which also tames a singular M, e.g. coaxial joints
    around a massless link) and the damping rate does not bound the step. Fast motions can still need less: the adaptive method ``"dopri5"``
    chooses its steps itself.
    """
    import scipy.linalg

    from ..configuration import integrate, neutral
    from ..dynamics import crba, gravity_torque

    largest = check_number(largest, "default_dt: largest", positive=True)
    if model.nv == 0:
        return largest
    if q is None:
        q = neutral(model)
    else:
        Q, single = as_q(model, q, "default_dt: q")
        if not single:
            raise ShapeError(f"default_dt takes one configuration q ({model.nq},), got a batch of {Q.shape[0]}")
        q = Q[0]
    M = crba(model, q)
    eps = 1e-6
    E = np.eye(model.nv) * eps
    gp = gravity_torque(model, integrate(model, np.broadcast_to(q, (model.nv, model.nq)), E))
    gm = gravity_torque(model, integrate(model, np.broadcast_to(q, (model.nv, model.nq)), -E))
    K = (np.atleast_2d(gp) - np.atleast_2d(gm)).T / (2 * eps)
    K = 0.5 * (K + K.T)
    D = np.diag(model.damping)
    h = largest
    for _ in range(8):
        # the implicit method integrates against M + h D: damping also bounds a singular M's modes
        M_eff = M + h * D if method == "implicit" else M
        rates = [1.0 / largest]
        try:
            w2 = scipy.linalg.eigh(K, M_eff, eigvals_only=True)
            rates.append(np.sqrt(np.max(np.abs(w2))) / 0.3)
            if method != "implicit" and np.any(model.damping):
                rates.append(np.max(scipy.linalg.eigh(D, M, eigvals_only=True)))
        except (np.linalg.LinAlgError, ValueError):  # M singular (a dof without inertia)
            rates.append(1e7)
        h_new = _nice_floor(max(1e-7, 1.0 / max(r for r in rates if np.isfinite(r))))
        if h_new >= h or method != "implicit":
            return h_new
        h = h_new
    return h


def auto_method(model: Model, q0: ArrayLike | None = None, friction: bool = True) -> str:
    """The method ``"auto"`` stands for: ``"rk4"``, or ``"implicit"`` when the joint damping is
    what limits RK4's step (the implicit method's default step is longer) or the model has
    Coulomb friction (RK4 chatters on sign(v); the implicit step solves stick and slip)."""
    if not friction or model.nv == 0:
        return "rk4"
    if np.any(model.coulomb):
        return "implicit"
    if np.any(model.damping) and default_dt(model, q0, "implicit") > default_dt(model, q0, "rk4"):
        return "implicit"
    return "rk4"

def grids(model, Q, t_final, dt, method, t_eval, record_every):
    """(step grid, sample times, record_every, first dopri step)."""
    if method == "dopri5":
        if t_eval is not None:
            t_out = np.asarray(t_eval, dtype=float).ravel()
            if t_out.size < 2 or not np.all(np.isfinite(t_out)) or np.any(np.diff(t_out) <= 0) or t_out[0] != 0.0:
                raise InputError("simulate: t_eval must be finite, strictly increasing, start at 0 and hold at "
                                 "least 2 times")
        else:
            t_out = time_grid(t_final, 1e-3 if dt is None else dt)
        return t_out, t_out, 1, min(1e-3, t_out[1] - t_out[0])
    if t_eval is not None:
        raise InputError(f"simulate: t_eval is for the adaptive method 'dopri5'; method {method!r} samples every "
                         f"record_every steps")
    grid = time_grid(t_final, default_dt(model, Q[0], method) if dt is None else dt)
    if not isinstance(record_every, (int, np.integer)) or record_every < 1:
        raise InputError(f"simulate: record_every must be a positive integer, got {record_every!r}")
    n = grid.size - 1
    steps = np.unique(np.minimum(np.arange(0, n + record_every, record_every), n))
    return grid, grid[steps], int(record_every), 0.0

def record_bits(record):
    """The engine's bit mask for the ``record`` argument (q and v are always kept)."""
    bits = {"q": 1, "v": 2, "a": 4, "tau": 8, "energy": 16}
    try:
        items = (record,) if isinstance(record, str) else tuple(record)
    except TypeError:                               # a number: not a list of names
        items = ()
    unknown = [x for x in items if not isinstance(x, str) or x not in bits]
    if unknown or "q" not in items or "v" not in items:
        raise InputError(f"simulate: record must list 'q', 'v' and any of 'a', 'tau', 'energy'; got {record!r}")
    return sum(bits[x] for x in set(items))

def states(model, q0, v0):
    """(Q (N, nq), V (N, nv), N, single): the initial states as float batches, checked."""
    for name, x in (("q0", q0), ("v0", v0)):   # complex: the imaginary part would be dropped silently
        if x is not None and not callable(x) and np.iscomplexobj(x):
            raise InputError(f"simulate: {name} is complex; pass real numbers (the imaginary part would be dropped)")
    Q, single = as_q(model, q0, "q0")
    V, single_v = as_batch(model, np.zeros(model.nv) if v0 is None else v0, "v0", "nv")
    N = max(Q.shape[0], V.shape[0])
    if Q.shape[0] not in (1, N) or V.shape[0] not in (1, N):
        raise ShapeError(f"q0 has {Q.shape[0]} states and v0 {V.shape[0]}: they must match (or one be single)")
    Q = np.array(np.broadcast_to(Q, (N, model.nq)), dtype=float)
    V = np.array(np.broadcast_to(V, (N, model.nv)), dtype=float)
    return Q, V, N, single and single_v


def one_state(model, q0, v0, what):
    """(q, v): fresh float copies of a single initial state (v0 None: zero); an InputError
    naming ``what`` for a batch."""
    Q, V, _, single = states(model, q0, v0)
    if not single:
        raise InputError(f"{what} takes one state (q0 (nq,), v0 (nv,))")
    return Q[0], V[0]


def energy_scale(model, Q):
    """A floor for the energy-error check: m_total |g| (size of the robot + 0.1 m), or the joint
    springs' initial energy if larger; the engine raises it to the initial kinetic energy if that
    is larger."""
    from ..dynamics import spring_energy
    from ..kinematics import body_placements

    T = body_placements(model, Q[0])
    c = np.einsum("nij,nj->ni", T[1:, :3, :3], model.com[1:]) + T[1:, :3, 3]
    size = float(np.max(np.linalg.norm(c - c.mean(axis=0), axis=1))) if len(c) else 0.0
    springs = float(spring_energy(model, Q[0])) if np.any(model.stiffness) else 0.0
    return max(float(np.linalg.norm(model.gravity)) * float(model.total_mass) * (2 * size + 0.1), springs, 1e-12)

_LABELS = {("q", SPHERICAL): ("qx", "qy", "qz", "qw"), ("v", SPHERICAL): ("wx", "wy", "wz"),
           ("q", FREE): ("x", "y", "z", "qx", "qy", "qz", "qw"),
           ("v", FREE): ("wx", "wy", "wz", "vx", "vy", "vz"),
           ("q", CYLINDRICAL): ("angle", "d"), ("v", CYLINDRICAL): ("w", "v")}


def coordinate_names(model: Model, kind: str) -> list[str]:
    """Names of the entries of q (``kind="q"``) or v: the joint name, with ``.x``, ``.qw``, ``.wx``
    ... for the entries of spherical, free and cylindrical joints."""
    names = []
    for i in range(1, model.nb + 1):
        labels = _LABELS.get((kind, int(model.joint_type[i])))
        names += [model.joint_names[i]] if labels is None else [f"{model.joint_names[i]}.{s}" for s in labels]
    return names

