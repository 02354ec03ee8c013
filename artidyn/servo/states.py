"""The states of a servo problem beside its motion (:class:`~artidyn.servo.ServoProblem`'s
:meth:`~artidyn.servo.ServoProblem.internal_dynamics`, :meth:`~artidyn.servo.ServoProblem.consistent_state`
and :meth:`~artidyn.servo.ServoProblem.equilibria`, documented there): the zero dynamics linearised at an
equilibrium, a consistent initial state, Appell's equilibrium conditions. All in the coordinates and
their velocities ``qdot``.
"""
import numpy as np

from ..errors import InputError
from .problem import ServoEquilibrium


def internal_dynamics(problem, q, qd, t=0.0):
    """:meth:`ServoProblem.internal_dynamics`."""
    import scipy.linalg

    q, qd, t = problem._state(q, qd, t)
    n = problem.n
    fs = [f for d in problem._relative_degrees() for f in d[1]] if not problem.rolling else \
        [problem._fn(s) for s in problem.servo]
    x0 = np.concatenate([q, qd])

    def C(x):
        return np.array([float(f(x[:n], x[n:], t)) for f in fs])

    def F(x):
        return np.concatenate([x[n:], problem._accelerations_q(x[:n], x[n:], t, 0.0, "lagrange").qdd])
    h = 1e-6
    Jc = np.column_stack([(C(x0 + h * e) - C(x0 - h * e)) / (2 * h) for e in np.eye(2 * n)])
    Z = scipy.linalg.null_space(Jc, rcond=1e-9)
    if Z.shape[1] == 0:
        return np.zeros(0, dtype=complex)
    Jf = np.column_stack([(F(x0 + h * e) - F(x0 - h * e)) / (2 * h) for e in np.eye(2 * n)])
    return np.linalg.eigvals(Z.T @ Jf @ Z)


def check_internal(problem, q):
    """:meth:`ServoProblem._check_internal`."""
    try:
        qe = problem.equilibria(q).q
    except InputError:
        return                        # no equilibrium to linearise about: nothing to decide
    eig = problem.internal_dynamics(qe, np.zeros(problem.n), 0.0)
    if eig.size and np.max(eig.real) > 1e-6:
        worst = eig[np.argmax(eig.real)]
        raise InputError(f"ServoProblem.simulate ({problem.name}): the internal dynamics are unstable (eigenvalue "
                         f"{worst:.4g} of the zero dynamics linearised at the equilibrium q = "
                         f"{np.round(qe, 6).tolist()}): the relations can be held only while the rest of the "
                         f"motion diverges; pass allow_unstable=True to run it anyway")


def consistent_state(problem, q, qd, t=0.0, tol=1e-12, max_iter=50):
    """:meth:`ServoProblem.consistent_state`."""
    x = np.concatenate([np.asarray(q, dtype=float), np.asarray(qd, dtype=float)])
    n = problem.n
    fs = [f for d in problem._relative_degrees() for f in d[1]] if not problem.rolling else \
        [problem._fn(s) for s in problem.servo]

    def res(x):
        return np.array([float(f(x[:n], x[n:], t)) for f in fs])
    for _ in range(max_iter):
        r = res(x)
        if np.max(np.abs(r), initial=0.0) <= tol:
            break
        J = np.zeros((r.size, 2 * n))
        for k in range(2 * n):
            e = np.zeros(2 * n)
            e[k] = 1e-7
            J[:, k] = (res(x + e) - res(x - e)) / 2e-7
        x = x - np.linalg.lstsq(J, r, rcond=None)[0]
    return x[:n], x[n:]


def equilibria(problem, q_guess, t=0.0, tol=1e-9, max_iter=100):
    """:meth:`ServoProblem.equilibria`."""
    n, j = problem.n, problem.j
    zero = np.zeros(n)
    s_f = [problem._fn(s) for s in problem.servo]
    p = len(problem.rolling)

    def forces(q):
        """(h - Q at rest, [D^T A^T], a(q, t))."""
        _, h, D = problem._mats(q, zero, t)
        A = np.asarray(problem.A_f(q, zero, t), dtype=float).reshape(p, n)
        a = np.asarray(problem.a_f(q, zero, t), dtype=float).reshape(p)
        return h, np.vstack([D, A]).T, a

    def F(q):
        h, G, a = forces(q)
        unbalanced = h - G @ np.linalg.lstsq(G, h, rcond=None)[0] if G.size else h
        return np.concatenate([unbalanced, [float(f(q, zero, t)) for f in s_f], a])
    q = np.asarray(q_guess, dtype=float).reshape(-1)
    if q.shape != (n,) or not np.all(np.isfinite(q)):
        raise InputError(f"ServoProblem.equilibria ({problem.name}): q_guess needs {n} finite entries, "
                         f"got {q_guess!r}")
    r = F(q)
    for _ in range(max_iter):
        if np.max(np.abs(r), initial=0.0) <= 1e-13:
            break
        Jac = np.column_stack([(F(q + 1e-7 * e) - F(q - 1e-7 * e)) / 2e-7 for e in np.eye(n)])
        step = np.linalg.lstsq(Jac, -r, rcond=None)[0]
        for _halving in range(30):                     # damped: accept the first step that reduces |F|
            trial = F(q + step)
            if np.all(np.isfinite(trial)) and np.linalg.norm(trial) < np.linalg.norm(r):
                break
            step = step / 2
        else:
            break
        q, r = q + step, trial
    if not (np.all(np.isfinite(q)) and np.max(np.abs(r), initial=0.0) <= tol):
        raise InputError(f"ServoProblem.equilibria ({problem.name}): no equilibrium found from {q_guess!r} "
                         f"(residual {np.max(np.abs(r)):.3g} of the force balance and the relations)")
    h, G, _ = forces(q)
    x = np.linalg.lstsq(G, h, rcond=None)[0] if G.size else np.zeros(0)
    return ServoEquilibrium(q, x[:j], x[j:])
