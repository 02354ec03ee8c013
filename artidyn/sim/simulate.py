"""Forward simulation: integrate the articulated-body dynamics (ABA) over time.

``simulate`` runs ``M(q) a + h(q, v) + friction(v) = tau + J^T f_ext`` from ``(q0, v0)`` on a
uniform time grid, one state or a batch of states at once (every aba call is batched).
"""
import numpy as np

from ..configuration import as_batch, as_q
from ..dynamics import aba, actuation_matrix, kinetic_energy, potential_energy
from ..errors import InputError, ShapeError
from ..joints import FREE, SPHERICAL
from .integrate import STEPPERS, scipy_run
from .result import Energy, SimulationResult

METHODS = ("rk4", "semi-implicit", "scipy")
DEFAULT_IVP = {"method": "DOP853", "rtol": 1e-10, "atol": 1e-12}


def time_grid(t_final, dt):
    """Uniform grid 0 .. t_final with steps of at most ``dt``: (n_steps + 1,) array."""
    for name, val in (("t_final", t_final), ("dt", dt)):
        if not np.isfinite(val) or val <= 0:
            raise InputError(f"simulate: {name} must be a positive finite number of seconds, got {val!r}")
    n_steps = max(1, int(np.ceil(t_final / dt - 1e-9)))
    return np.linspace(0.0, float(t_final), n_steps + 1)


def _to_generalized(model, x, B, what):
    """Torques (..., nv) or actuator inputs (..., na) -> generalized torques (..., nv)."""
    nv, na = B.shape
    if x.shape[-1] == nv:
        return x
    if x.shape[-1] == na:
        return x @ B.T
    act = [model.joint_names[i] for i in range(1, model.nb + 1)
           if np.any(np.asarray(model.actuated)[model.v_slice(model.joint_names[i])])]
    raise ShapeError(f"{what} has {x.shape[-1]} entries per state; model '{model.name}' needs nv = {nv} "
                     f"(generalized torques) or na = {na} (one per actuated dof: {', '.join(act)})")


def torque_source(model, tau, n_steps, N, single):
    """``(source, held)``: ``source(k, t, Q, V) -> Tau (N, nv)`` from the ``tau`` argument of
    :func:`simulate`; ``held`` is True for a table over time (changes at every grid point).

    ``tau`` is a number, an array for the whole run ((nv,) / (na,) or per state (N, nv) / (N, na)),
    an array over time held constant over each step ((n_steps, k), (n_steps + 1, k) or with a
    batch axis (n_steps[+1], N, k), k = nv or na), or a callable ``tau(t, q, v)``.
    """
    B = actuation_matrix(model)
    nv = model.nv
    if callable(tau):
        def from_callable(k, t, Q, V):
            out = np.asarray(tau(t, Q[0] if single else Q, V[0] if single else V), dtype=float)
            out = _to_generalized(model, out, B, "tau(t, q, v)")
            if out.ndim > 2 or (out.ndim == 2 and out.shape[0] not in (1, N)):
                raise ShapeError(f"tau(t, q, v) returned shape {out.shape}; expected ({nv},) or ({N}, {nv})")
            return np.broadcast_to(out, (N, nv))
        return from_callable, False

    arr = np.asarray(tau, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise InputError("simulate: tau contains NaN or infinite values")
    if arr.ndim == 0:
        const = np.full((N, nv), float(arr))
        return (lambda k, t, Q, V: const), False
    arr = _to_generalized(model, arr, B, "tau")
    rows = arr.shape[0]
    over_time = arr.ndim in (2, 3) and rows in (n_steps, n_steps + 1)
    expected = (f"expected ({nv},) or ({N}, {nv}) constant, or ({n_steps}, {nv}) / ({n_steps + 1}, {nv}) "
                f"/ ({n_steps}, {N}, {nv}) over the {n_steps} time steps (or na = {B.shape[1]} columns)")
    if arr.ndim == 1 or (arr.ndim == 2 and not single and rows == N and not over_time):
        const = np.broadcast_to(arr, (N, nv))
        return (lambda k, t, Q, V: const), False
    if arr.ndim == 2 and not single and rows == N:
        raise ShapeError(f"tau of shape {arr.shape} is ambiguous ({N} states, {n_steps} steps): "
                         f"pass ({rows}, {N}, {nv}) for torques over time")
    if not over_time or (arr.ndim == 3 and arr.shape[1] not in (1, N)):
        raise ShapeError(f"tau has shape {arr.shape}: {expected}")
    table = arr.reshape(rows, -1, nv)
    return (lambda k, t, Q, V: np.broadcast_to(table[min(k, rows - 1)], (N, nv))), True


def simulate(model, q0, v0=None, tau=0.0, t_final=1.0, dt=1e-3, method="rk4", f_ext=None,
             ivp_options=None):
    """Simulate the model from ``(q0, v0)`` under torques ``tau`` and external wrenches ``f_ext``.

    Parameters
    ----------
    model : Model
    q0 : (nq,) or (N, nq)
        Initial configuration(s); quaternions are checked and normalised.
    v0 : (nv,) or (N, nv), optional
        Initial velocity (zero by default).
    tau : float, array or callable
        Generalized torques (nv entries) or actuator inputs (na entries, mapped through
        :func:`~artidyn.dynamics.actuation_matrix`): a constant, an array over time held over each
        step (``(n_steps, k)`` or ``(n_steps + 1, k)``, optionally ``(n_steps, N, k)``), or a
        function ``tau(t, q, v)`` called at every stage (a controller). The model's joint friction
        is subtracted by :func:`~artidyn.dynamics.aba`.
    t_final, dt : float
        Horizon and largest step (s); the grid has ``n_steps = ceil(t_final / dt)`` equal steps.
    method : {"rk4", "semi-implicit", "scipy"}
        ``"rk4"``: classical Runge-Kutta on the manifold (RKMK4, 4 aba calls per step).
        ``"semi-implicit"``: symplectic Euler (1 call per step).
        ``"scipy"``: ``scipy.integrate.solve_ivp`` restarted at every step in the local chart
        ``q = integrate(q_k, xi)`` (so quaternions never leave the sphere and torque tables are
        honoured step by step); ``ivp_options`` default to DOP853, rtol 1e-10, atol 1e-12.
    f_ext : array (nb+1, 6) or (N, nb+1, 6), or callable ``f_ext(t, q, v)``, optional
        Wrenches [moment; force] on each body, body frame, about the body origin.

    Returns
    -------
    SimulationResult
        ``t`` (n_steps + 1,), ``q``, ``v``, ``a``, ``tau`` with a leading time axis (then the
        batch axis when ``q0`` is a batch), and ``energy`` (kinetic, potential, total).

    Examples
    --------
    A computed-torque controller tracking a quintic motion is a few lines::

        from artidyn.dynamics import rnea
        from artidyn.sim import quintic, simulate

        def controller(t, q, v, kp=100.0, kd=20.0):
            qr, vr, ar = quintic(q_start, q_goal, 1.0, t)
            return rnea(model, q, v, ar + kd * (vr - v) + kp * (qr - q))

        result = simulate(model, q_start, tau=controller, t_final=1.5, dt=1e-3)
    """
    if method not in METHODS:
        raise InputError(f"simulate: unknown method {method!r}; choose one of {', '.join(METHODS)}")
    Q, single = as_q(model, q0, "q0")
    V, single_v = as_batch(model, np.zeros(model.nv) if v0 is None else v0, "v0", "nv")
    N = max(Q.shape[0], V.shape[0])
    if Q.shape[0] not in (1, N) or V.shape[0] not in (1, N):
        raise ShapeError(f"q0 has {Q.shape[0]} states and v0 {V.shape[0]}: they must match (or one be single)")
    single = single and single_v
    Q = np.array(np.broadcast_to(Q, (N, model.nq)), dtype=float)
    V = np.array(np.broadcast_to(V, (N, model.nv)), dtype=float)
    t = time_grid(t_final, dt)
    n_steps, h = t.size - 1, t[1] - t[0]
    tau_of, held = torque_source(model, tau, n_steps, N, single)

    def f_ext_at(s, Qs, Vs):
        if callable(f_ext):
            return f_ext(s, Qs[0] if single else Qs, Vs[0] if single else Vs)
        return f_ext

    def f(k, s, Qs, Vs):
        Tau = tau_of(k, s, Qs, Vs)
        return aba(model, Qs, Vs, Tau, f_ext_at(s, Qs, Vs)), Tau

    a_out = np.empty((n_steps + 1, N, model.nv))
    tau_out = np.empty((n_steps + 1, N, model.nv))
    if method == "scipy":
        options = dict(DEFAULT_IVP, **(ivp_options or {}))
        q_out, v_out = scipy_run(model, f, t, Q, V, held, options)
        for k in range(n_steps + 1):
            a_out[k], tau_out[k] = f(k, t[k], q_out[k], v_out[k])
    else:
        step = STEPPERS[method]
        q_out = np.empty((n_steps + 1, N, model.nq))
        v_out = np.empty((n_steps + 1, N, model.nv))
        for k in range(n_steps):
            q_out[k], v_out[k] = Q, V
            Q, V, a_out[k], tau_out[k] = step(model, lambda s, Qs, Vs, k=k: f(k, s, Qs, Vs), t[k], Q, V, h)
            if not (np.all(np.isfinite(Q)) and np.all(np.isfinite(V))):
                raise InputError(f"simulate: the state became non-finite at t = {t[k + 1]:.6g} s "
                                 f"(method {method!r}, dt = {h:.3g} s): reduce dt or check the torques")
        q_out[n_steps], v_out[n_steps] = Q, V
        a_out[n_steps], tau_out[n_steps] = f(n_steps, t[n_steps], Q, V)

    flat_q, flat_v = q_out.reshape(-1, model.nq), v_out.reshape(-1, model.nv)
    T = np.asarray(kinetic_energy(model, flat_q, flat_v)).reshape(n_steps + 1, N)
    U = np.asarray(potential_energy(model, flat_q)).reshape(n_steps + 1, N)
    squeeze = (lambda x: x[:, 0]) if single else (lambda x: x)
    return SimulationResult(
        t=t, q=squeeze(q_out), v=squeeze(v_out), a=squeeze(a_out), tau=squeeze(tau_out),
        energy=Energy(squeeze(T), squeeze(U), squeeze(T + U)),
        model_name=model.name, q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
        method=method, dt=h,
    )


_LABELS = {("q", SPHERICAL): ("qx", "qy", "qz", "qw"), ("v", SPHERICAL): ("wx", "wy", "wz"),
           ("q", FREE): ("x", "y", "z", "qx", "qy", "qz", "qw"),
           ("v", FREE): ("wx", "wy", "wz", "vx", "vy", "vz")}


def coordinate_names(model, kind):
    """Names of the entries of q (``kind="q"``) or v: the joint name, with ``.x``, ``.qw``, ``.wx``
    ... for the entries of spherical and free joints."""
    names = []
    for i in range(1, model.nb + 1):
        labels = _LABELS.get((kind, int(model.joint_type[i])))
        names += [model.joint_names[i]] if labels is None else [f"{model.joint_names[i]}.{s}" for s in labels]
    return names
