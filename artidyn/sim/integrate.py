"""One time step of the equation of motion ``M(q) a + h(q, v) = tau``, on the configuration manifold.

The state is ``(q, v)`` with ``q`` on a manifold (unit quaternions of spherical and free joints)
and ``v`` in a vector space (body-frame velocities). Each step works in the local chart at the
step's start ``q_k``::

    q(xi) = integrate(q_k, xi),      xi in R^nv,  xi(t_k) = 0

where, joint by joint, ``integrate`` is ``q + xi`` (revolute, prismatic), ``R exp(xi)``
(spherical) or ``T exp6(xi)`` (free joint). In the chart the equations of motion are an ODE in a
vector space (Munthe-Kaas' RKMK idea)::

    d xi / dt = dexp_inv(xi, v) = v + 1/2 ad_xi v + 1/12 ad_xi^2 v - 1/720 ad_xi^4 v + ...
    d v  / dt = a = aba(q(xi), v, tau)

with ``ad_xi`` the Lie bracket of the joint: 0 for a vector joint, ``xi x`` for a spherical
joint and the motion cross product ``crm(xi)`` (the (.) of :mod:`artidyn.spatial.motion`) for a
free joint, whose chart coordinates are ``[omega; v]``. The series (Bernoulli numbers,
right-trivialised since ``integrate`` multiplies on the right) is cut after ``ad^8``: for a chart
rotation of 0.3 rad the first dropped term is ~1e-13 of ``v``.

Each ``*_step`` function takes ``f(t, Q, V) -> (A, Tau)`` (accelerations and the torques that
produced them, both (N, nv)) and returns ``(Q_next, V_next, A_k, Tau_k)`` with ``A_k, Tau_k``
those at the start of the step, so that a simulation loop records them without extra calls.
:func:`scipy_run` does a whole run with scipy's adaptive integrators.
"""
import numpy as np

from ..configuration import dexp_inv, integrate, lie_slices  # noqa: F401  (lie_slices: also used from here)

def rk4_step(model, f, t, Q, V, h):
    """Classical 4-stage Runge-Kutta in the chart at ``Q`` (RKMK4): O(h^4) global error."""
    A1, Tau1 = f(t, Q, V)
    k1x, k1v = V, A1
    x2, V2 = 0.5 * h * k1x, V + 0.5 * h * k1v
    A2, _ = f(t + 0.5 * h, integrate(model, Q, x2), V2)
    k2x, k2v = dexp_inv(model, x2, V2), A2
    x3, V3 = 0.5 * h * k2x, V + 0.5 * h * k2v
    A3, _ = f(t + 0.5 * h, integrate(model, Q, x3), V3)
    k3x, k3v = dexp_inv(model, x3, V3), A3
    x4, V4 = h * k3x, V + h * k3v
    A4, _ = f(t + h, integrate(model, Q, x4), V4)
    k4x, k4v = dexp_inv(model, x4, V4), A4
    xi = h / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
    V_next = V + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
    return integrate(model, Q, xi), V_next, A1, Tau1


def semi_implicit_step(model, f, t, Q, V, h):
    """Semi-implicit Euler: v+ = v + h a(q, v); q+ = q (+) h v+. First order, one aba call.

    Symplectic (bounded, oscillating energy error) when M is constant, e.g. a point mass or a
    single pendulum; with a configuration-dependent M (velocity coordinates are not canonical
    momenta) the energy error is O(h) and can drift slowly."""
    A, Tau = f(t, Q, V)
    V_next = V + h * A
    return integrate(model, Q, h * V_next), V_next, A, Tau


def scipy_run(model, f, t, Q, V, per_step, options, max_chart_angle=0.3):
    """Whole run with scipy.integrate.solve_ivp; returns q (n+1, N, nq), v (n+1, N, nv).

    The state ``[xi; v]`` (flattened over the batch) is integrated in the chart at the last
    accepted grid point. Models without spherical or free joints keep one chart (one solve_ivp
    call for the run); otherwise a terminal event re-centres the chart at the last grid point
    once a rotation in the chart exceeds ``max_chart_angle`` rad, which keeps the truncated
    dexp_inv series exact to rounding. ``per_step``: restart at every grid point (torque tables
    held over each step). ``f(k, t, Q, V) -> (A, Tau)`` gets the index of the chart's grid point.
    """
    from scipy.integrate import solve_ivp

    N, nv = V.shape
    n_steps = t.size - 1
    q_out = np.empty((n_steps + 1, N, model.nq))
    v_out = np.empty((n_steps + 1, N, nv))
    q_out[0], v_out[0] = Q, V
    rot = [s for s, _ in lie_slices(model)]  # their first 3 chart coordinates are a rotation vector

    def chart_event(s, y):
        xi = y[:N * nv].reshape(N, nv)
        return max_chart_angle - max(np.max(np.linalg.norm(xi[:, r][:, :3], axis=1)) for r in rot)
    chart_event.terminal = True
    events = chart_event if rot else None

    k = 0
    while k < n_steps:
        stop = k + 1 if per_step else n_steps
        Qc = q_out[k]

        def rhs(s, y, k=k, Qc=Qc):
            xi, v = y[:N * nv].reshape(N, nv), y[N * nv:].reshape(N, nv)
            a, _ = f(k, s, integrate(model, Qc, xi), v)
            return np.concatenate([dexp_inv(model, xi, v).ravel(), a.ravel()])

        y0 = np.concatenate([np.zeros(N * nv), v_out[k].ravel()])
        sol = solve_ivp(rhs, (t[k], t[stop]), y0, t_eval=t[k + 1:stop + 1],
                        events=events if stop > k + 1 else None, **options)
        if sol.status != -1 and np.size(sol.t) == 0:  # the chart event fired within one grid step
            sol = solve_ivp(rhs, (t[k], t[k + 1]), y0, t_eval=t[k + 1:k + 2], **options)
        if sol.status == -1:
            from ..errors import InputError

            raise InputError(f"scipy.integrate.solve_ivp failed after t = {t[k]:.6g} s: {sol.message}")
        m = sol.y.shape[1]
        xi = sol.y[:N * nv].T.reshape(m, N, nv)
        q_out[k + 1:k + 1 + m] = integrate(model, np.broadcast_to(Qc, (m, N, model.nq)).reshape(-1, model.nq),
                                           xi.reshape(-1, nv)).reshape(m, N, model.nq)
        v_out[k + 1:k + 1 + m] = sol.y[N * nv:].T.reshape(m, N, nv)
        k += m
    return q_out, v_out


# Dormand-Prince 5(4) (Hairer, Norsett & Wanner, "Solving Ordinary Differential Equations I", table 5.2)
DP_C = (0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
DP_A = ((), (1 / 5,), (3 / 40, 9 / 40), (44 / 45, -56 / 15, 32 / 9),
        (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
        (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
        (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84))
DP_E = (71 / 57600, 0.0, -71 / 16695, 71 / 1920, -17253 / 339200, 22 / 525, -1 / 40)


def dopri5_step(model, f, t, Q, V, h):
    """One Dormand-Prince 5(4) step of size h in the chart at Q (no step-size control).

    Returns ``(Q_next, V_next, A_k, Tau_k, err)`` with ``err`` the embedded 4th-order solution's
    difference ``h sum_i (b_i - b^_i) k_i`` as ``(err_xi, err_v)``: the compiled engine scales it by
    ``atol + rtol |y|`` to accept or reject the step.
    """
    A1, Tau1 = f(t, Q, V)
    kx, kv = [V], [A1]
    for s in range(1, 7):
        xi = h * sum(a * k for a, k in zip(DP_A[s], kx))
        Vs = V + h * sum(a * k for a, k in zip(DP_A[s], kv))
        As, _ = f(t + DP_C[s] * h, integrate(model, Q, xi), Vs)
        kx.append(dexp_inv(model, xi, Vs))
        kv.append(As)
    err = (h * sum(e * k for e, k in zip(DP_E, kx)), h * sum(e * k for e, k in zip(DP_E, kv)))
    return integrate(model, Q, xi), Vs, A1, Tau1, err


STEPPERS = {"rk4": rk4_step, "semi-implicit": semi_implicit_step}
