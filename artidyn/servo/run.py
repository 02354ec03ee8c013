"""The RK4 run of a servo problem (:meth:`artidyn.servo.ServoProblem.simulate`): Lagrange's
equations with the servo forces integrated by the classical Runge-Kutta scheme, the energy balance
of :mod:`.balance` checked at every step."""
import numpy as np

from ..errors import InputError, check_number
from . import balance, checks, core


def simulate(problem, q0, qd0, t_final, dt, stabilization=0.0, tol=1e-8, allow_unstable=False, energy_tol=0.1,
             method="lagrange"):
    """The run of :meth:`artidyn.servo.ServoProblem.simulate` (see there). Stated in quasi-velocities,
    ``qd0`` is ``w0`` and the state integrated is ``(q, w)``, ``qdot = G(q) w``."""
    where = f"ServoProblem.simulate ({problem.name})"
    q, w, _ = problem._state(q0, qd0, 0.0)
    quasi = problem.quasi is not None
    qd = problem.velocities(q, w)
    t_final, dt = checks.check_times(t_final, dt, where)
    stabilization = check_number(stabilization, f"{where}: stabilization")
    # the balance's smallest scale: a millionth of the kinetic energy of a motion across max(1, |q0|) in
    # the run's time (a run that hardly moves must not be judged on its rounding noise)
    lam = float(np.linalg.eigvalsh(problem._mass_matrix(q, qd, 0.0))[-1])
    reach = max(1.0, float(np.max(np.abs(q), initial=0.0))) / max(t_final, dt)
    bal = balance.EnergyBalance(energy_tol, where, 1e-6 * 0.5 * lam * reach ** 2)
    start = problem.accelerations(q, w, 0.0, stabilization, method)
    if start.status != core.DETERMINED:
        raise InputError(f"{where}: {start.why}")
    if not allow_unstable and problem._underactuated(start):
        problem._check_internal(q)
    err = problem.relation_errors(q, qd, 0.0)
    if err > tol:
        raise InputError(f"{where}: the initial state does not satisfy the servo relations and their derivatives "
                         f"below the servo forces' order (error {err:.3g}); use consistent_state()")
    n_steps = int(np.ceil(t_final / dt - 1e-9))

    def f(tt, x, u):
        """(result, servo power, power of every force that is not in H, qdot, rate of u) at a stage."""
        if not balance.finite(x, u):
            raise balance.Stop(f"the state became non-finite near t = {tt:.6g} s")
        r = problem.accelerations(x, u, tt, stabilization, method)
        v = problem.velocities(x, u, tt)
        if not balance.finite(r.qdd, r.mu, r.Lambda):
            raise balance.Stop(f"the accelerations or forces became non-finite near t = {tt:.6g} s")
        p = float(r.mu @ (problem._mats(x, v, tt)[2] @ v))
        other = float(problem.Pg_f(x, v, tt))
        if problem.rolling:
            other += float(r.Lambda @ (np.asarray(problem.A_f(x, v, tt), dtype=float).reshape(-1, problem.n) @ v))
        return r, p, p + other, v, (r.wdot if quasi else r.qdd)
    rows, quasi_rows, work, W, absW = [], [], 0.0, 0.0, 0.0
    try:
        for k in range(n_steps + 1):
            t = k * dt
            r1, p1, P1, qd, k1v = f(t, q, w)
            if k and r1.status != core.DETERMINED:
                raise balance.Stop(f"the problem is no longer determined at t = {t:.6g} s: {r1.why}")
            bal.check(t, float(problem.H_f(q, qd, t)), float(problem.T_f(q, qd, t)), W, absW)
            rows.append((t, q.copy(), qd.copy(), r1.qdd, r1.mu, r1.Lambda, problem.energy(q, qd, t), p1, work,
                         problem.relation_errors(q, qd, t)))
            quasi_rows.append((w.copy(), k1v))
            if k == n_steps:
                break
            # RK4 on (q, qdot or w, servo work, work of all the forces); qdot = G w in quasi-velocities
            k1q = qd
            _, p2, P2, k2q, k2v = f(t + 0.5 * dt, q + 0.5 * dt * k1q, w + 0.5 * dt * k1v)
            _, p3, P3, k3q, k3v = f(t + 0.5 * dt, q + 0.5 * dt * k2q, w + 0.5 * dt * k2v)
            _, p4, P4, k4q, k4v = f(t + dt, q + dt * k3q, w + dt * k3v)
            q = q + dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q)
            w = w + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
            work += dt / 6 * (p1 + 2 * p2 + 2 * p3 + p4)
            W += dt / 6 * (P1 + 2 * P2 + 2 * P3 + P4)
            absW += dt / 6 * (abs(P1) + 2 * abs(P2) + 2 * abs(P3) + abs(P4))
    except (balance.Stop, InputError, ArithmeticError, np.linalg.LinAlgError) as stop:
        raise balance.stopped(where, stop, rows, problem.j, dt) from None
    run = balance.run_of(rows, problem.j)
    if quasi:
        run = run._replace(w=np.array([x[0] for x in quasi_rows]), wdot=np.array([x[1] for x in quasi_rows]))
    return run

