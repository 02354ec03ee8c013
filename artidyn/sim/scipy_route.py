"""The readable reference route of :func:`~artidyn.sim.simulate` (``method="scipy"``): the reference
:func:`~artidyn.dynamics.aba` integrated by ``scipy.integrate.solve_ivp``, restarted at every step
for held inputs. Slow, and independent of the compiled engine: the engine's tests compare with it.
"""
import numpy as np

from ..firstuse import clock
from .inputs import CONSTANT, HOLD, LINEAR, NONE, torque_table, wrench_table
from .result import Energy, SimulationResult
from .setup import coordinate_names, time_grid
from .smooth import python_torque

DEFAULT_IVP = {"method": "DOP853", "rtol": 1e-10, "atol": 1e-12}


def simulate_scipy(model, Q, V, N, single, tau, f_ext, t_final, dt, ivp_options):
    """The reference route: reference aba in solve_ivp, restarted at every step for held tables."""
    from ..dynamics import aba, actuation_matrix, kinetic_energy, potential_energy
    from .integrate import scipy_run

    t = time_grid(t_final, 1e-3 if dt is None else dt)
    n_steps = t.size - 1
    mode, tt, tv = torque_table(model, tau, t, N, single)
    fmode, ft, fv = wrench_table(model, f_ext, t, N, single)

    def table_at(mode, tt, tv, k, s):
        if mode == "python":
            return None
        if mode in (NONE, CONSTANT):
            return tv[:, 0]
        if mode == HOLD:
            return tv[:, min(k, tv.shape[1] - 1)]
        return np.stack([np.array([np.interp(s, tt, tv[r, :, c]) for c in range(tv.shape[2])])
                         for r in range(tv.shape[0])]) if tv.ndim == 3 else None

    def f(k, s, Qs, Vs):
        if mode == "python":
            Tau = np.broadcast_to(python_torque(model, actuation_matrix(model), np.asarray(tau(s, Qs[0], Vs[0]),
                                                                                          dtype=float)), (N, model.nv))
        else:
            Tau = np.broadcast_to(table_at(mode, tt, tv, k, s), (N, model.nv))
        if fmode == "python":
            F = f_ext(s, Qs[0], Vs[0])
        elif fmode == NONE:
            F = None
        elif fmode == LINEAR:
            F = np.apply_along_axis(lambda col: np.interp(s, ft, col), 1, fv.reshape(fv.shape[0], fv.shape[1], -1)
                                    ).reshape((fv.shape[0],) + fv.shape[2:])
        else:
            F = fv[:, 0] if fmode == CONSTANT else fv[:, min(k, fv.shape[1] - 1)]
        return aba(model, Qs, Vs, Tau, F), Tau

    options = dict(DEFAULT_IVP, **(ivp_options or {}))
    start = clock()
    held = mode in (HOLD, "python") or fmode in (HOLD, "python")
    q_out, v_out = scipy_run(model, f, t, Q, V, held, options)
    a_out = np.empty((n_steps + 1, N, model.nv))
    tau_out = np.empty((n_steps + 1, N, model.nv))
    for k in range(n_steps + 1):
        a_out[k], tau_out[k] = f(k, t[k], q_out[k], v_out[k])
    flat_q, flat_v = q_out.reshape(-1, model.nq), v_out.reshape(-1, model.nv)
    T = np.asarray(kinetic_energy(model, flat_q, flat_v)).reshape(n_steps + 1, N)
    U = np.asarray(potential_energy(model, flat_q)).reshape(n_steps + 1, N)
    lay = (lambda x: x[:, 0]) if single else (lambda x: np.swapaxes(x, 0, 1))
    return SimulationResult(
        t=t, q=lay(q_out), v=lay(v_out), a=lay(a_out), tau=lay(tau_out), energy=Energy(lay(T), lay(U), lay(T + U)),
        model_name=model.name, q_names=coordinate_names(model, "q"), v_names=coordinate_names(model, "v"),
        method="scipy", dt=t[1] - t[0], wall_time=clock() - start)
