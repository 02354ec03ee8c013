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


# dense output (same source, sec. II.6): y(t + theta h) = y0 + theta (r2 + (1 - theta) (r3 + theta (r4 +
# (1 - theta) r5))) with r2 = y1 - y0, r3 = h k1 - r2, r4 = r2 - h k7 - r3, r5 = h sum_i d_i k_i
DP_D = (-12715105075 / 11282082432, 0.0, 87487479700 / 32700410799, -10690763975 / 1880347072,
        701980252875 / 199316789632, -1453857185 / 822651844, 69997945 / 29380423)
OK, NONFINITE, ENERGY, UNDERFLOW, MAX_STEPS = range(5)   # as the compiled engine's status codes
DIVERGED = 8


def dopri5_run(model, f, t_out, q, v, rtol, atol, h, max_steps, sample, step_done, balance=None):
    """A whole adaptive Dormand-Prince 5(4) run of one state: the readable twin of the compiled
    engine's adaptive loop (same steps, same acceptance test, same samples).

    ``f(t, q, v) -> (a, tau)`` (one state, or None when it cannot be evaluated); ``h`` the first step
    size. A step is accepted when the RMS of ``h sum_i e_i k_i`` over ``atol + rtol |y|`` (xi and v
    together) is at most 1; the next size is ``h min(5, max(0.2, 0.9 err^(-1/5)))`` (not larger after
    a rejection); a step is stretched onto the end when it would stop within 1 % of it. Samples
    ``t_out[j]`` inside an accepted step come from the continuous extension, with a and tau
    evaluated there: ``sample(j, q, v, a, tau) -> bool`` records them (False stops the run: energy
    tolerance); ``step_done(q_prev, q, t)`` is called after each accepted step. ``balance(q, v,
    work, abs_work) -> bool`` (optional) checks the energy balance at the start and at the end of
    each accepted step, with the inputs' work over it by the weights b of the stages' powers
    ``tau . v`` (False stops the run: DIVERGED, before the step's samples).

    Returns ``(status, counts, t, h)``: the status code, ``[accepted, rejected, evaluations, samples]``,
    the time reached and the proposed next step size.
    """
    counts = [0, 0, 0, 0]        # accepted, rejected, dynamics evaluations, samples written
    t, t_end = float(t_out[0]), float(t_out[-1])
    first = f(t, q, v)
    counts[2] += 1
    if first is None:
        return NONFINITE, counts, t, h
    A, Tau = first
    if balance is not None and not balance(q, v, 0.0, 0.0):
        return DIVERGED, counts, t, h
    counts[3] = 1
    if not sample(0, q, v, A, Tau):
        return ENERGY, counts, t, h
    rejected_last, tiny = False, 0
    while counts[3] < t_out.size:
        if counts[0] + counts[1] >= max_steps:
            return MAX_STEPS, counts, t, h
        step, at_end = h, False
        if t + 1.01 * step >= t_end:
            step, at_end = t_end - t, True
        if not step > 1e-14 * max(1.0, abs(t)):
            return UNDERFLOW, counts, t, h
        kx, kv, good, power = [v], [A], True, [float(np.dot(Tau, v))]
        for s in range(1, 7):          # stage s in the chart at q: xi = h sum_l a_sl kx_l
            xi = step * sum(a * k for a, k in zip(DP_A[s], kx))
            vs = v + step * sum(a * k for a, k in zip(DP_A[s], kv))
            counts[2] += 1
            stage = f(t + DP_C[s] * step, integrate(model, q, xi), vs)
            if stage is None:
                good = False
                break
            kv.append(stage[0])
            kx.append(dexp_inv(model, xi, vs))
            power.append(float(np.dot(stage[1], vs)))
        err = _dopri_error(step, kx, kv, xi, v, vs, atol, rtol) if good else np.inf
        if not err <= 1.0:
            counts[1] += 1
            h = step * (0.2 if not good or not err < np.inf else max(0.2, 0.9 * err ** -0.2))
            rejected_last = True
            if not h > 1e-14 * max(1.0, abs(t)):
                return UNDERFLOW if good else NONFINITE, counts, t, h
            continue
        if balance is not None and not balance(integrate(model, q, xi), vs, step * sum(b * p for b, p in zip(DP_A[6], power)),
                                               step * sum(abs(b * p) for b, p in zip(DP_A[6], power))):
            return DIVERGED, counts, t, h
        t_new = t_end if at_end else t + step
        tiny = 0 if step > 1e-12 * (t_end - t_out[0]) else tiny + 1
        if tiny > 1000:                # a stalled run is an underflow too
            return UNDERFLOW, counts, t, h
        while counts[3] < t_out.size and t_out[counts[3]] <= t_new + 1e-12 * max(1.0, abs(t_new)):
            j = counts[3]
            theta = min(1.0, (t_out[j] - t) / step)
            xs = _dense(theta, step, np.zeros_like(xi), xi, kx)
            qs, vs_j = integrate(model, q, xs), _dense(theta, step, v, vs, kv)
            counts[2] += 1
            out = f(t_out[j], qs, vs_j)
            if out is None:
                return NONFINITE, counts, t, h
            counts[3] = j + 1
            if not sample(j, qs, vs_j, *out):
                return ENERGY, counts, t, h
        q_prev, q, v = q, integrate(model, q, xi), vs
        A, Tau = kv[6], stage[1]   # FSAL: stage 7 is the state at t + h
        if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
            return NONFINITE, counts, t, h
        counts[0] += 1
        step_done(q_prev, q, t_new)
        t = t_new
        fac = min(5.0, max(0.2, 0.9 * err ** -0.2)) if err > 0.0 else 5.0
        if rejected_last:
            fac = min(fac, 1.0)
        rejected_last = False
        h = h if at_end and h > step else step * fac
    return OK, counts, t, h


def _dopri_error(h, kx, kv, xi, v0, v1, atol, rtol):
    """RMS over xi and v of the local error estimate h sum_i e_i k_i scaled by atol + rtol |y|."""
    ex = h * sum(e * k for e, k in zip(DP_E, kx))
    ev = h * sum(e * k for e, k in zip(DP_E, kv))
    sx = atol + rtol * np.abs(xi)
    sv = atol + rtol * np.maximum(np.abs(v0), np.abs(v1))
    return float(np.sqrt((np.sum((ex / sx) ** 2) + np.sum((ev / sv) ** 2)) / (2 * v0.size))) if v0.size else 0.0


def _dense(theta, h, y0, y1, k):
    """The continuous extension at t + theta h of one component block (Hairer et al. sec. II.6)."""
    r2 = y1 - y0
    r3 = h * k[0] - r2
    r4 = r2 - h * k[6] - r3
    r5 = h * sum(d * kk for d, kk in zip(DP_D, k))
    return y0 + theta * (r2 + (1.0 - theta) * (r3 + theta * (r4 + (1.0 - theta) * r5)))


STEPPERS = {"rk4": rk4_step, "semi-implicit": semi_implicit_step}
