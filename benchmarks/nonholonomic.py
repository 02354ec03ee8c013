"""Nonholonomic simulation: artidyn's compiled run against the SymPy route people write today.

    python benchmarks/nonholonomic.py           # the table (about a minute on 2 cores)

The rolling disk (a thin uniform disk, radius 0.4 m, mass 1.3 kg, rolling without slipping),
1 s of motion from the same state (yaw 0.3, lean 0.25, spin rates (0.4, -0.3, 5.0) rad/s):

======================  ==========================================================================
artidyn compiled        ``artidyn.simulate(model, q0, v0, constraints=[RollingDisk(...)], dt=1e-3)``
                        (the whole run in one compiled call: RK4, projection onto the constraints)
                        (and at dt = 1e-2: the accuracy of the smooth motion allows it)
artidyn readable        the same with ``route="reference"`` (Python at every stage)
SymPy + RK4 loop        ``KanesMethod`` equations of SymPy's rolling-disc example, lambdified, the
                        same fixed-step RK4 in a Python loop (dt = 1e-3)
SymPy + solve_ivp       the lambdified equations with ``scipy.integrate.solve_ivp`` (DOP853,
                        rtol = atol = 1e-10, adaptive steps)
======================  ==========================================================================

Printed: wall time per simulated second and per step, and the distance between the final
centre positions (artidyn against the DOP853 reference).
"""
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import artidyn as ad  # noqa: E402
from artidyn.analytical import examples  # noqa: E402
from sympy_rolling_disc import disc_state_to_free_body, disc_state_to_pose, rolling_disc_oracle  # noqa: E402


def best(f, repeat=3):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = f()
        out.append(time.perf_counter() - t0)
    return min(out), res


def main():
    import scipy.integrate

    r, m, g, T, dt = 0.4, 1.3, 9.81, 1.0, 1e-3
    system = examples.rolling_disk(radius=r, mass=m, g=g)
    q0, u0 = np.array([0.3, 0.25, 0.1, 0.2, -0.1]), np.array([0.4, -0.3, 5.0])
    x0, v0 = disc_state_to_free_body(q0, u0, r)
    f = rolling_disc_oracle(r, m, g)
    rhs = lambda t, x: np.concatenate(f(x[:5], x[5:]))  # noqa: E731
    ref = scipy.integrate.solve_ivp(rhs, (0, T), np.r_[q0, u0], rtol=1e-12, atol=1e-12, method="DOP853")
    c_ref = disc_state_to_pose(ref.y[:5, -1], r)[1]

    ad.simulate_constrained(system.model, x0, v0, system.constraints, t_final=0.01, dt=dt)      # compile
    t_c, run_c = best(lambda: ad.simulate_constrained(system.model, x0, v0, system.constraints, t_final=T, dt=dt))
    t_c10, run_c10 = best(lambda: ad.simulate_constrained(system.model, x0, v0, system.constraints, t_final=T,
                                                          dt=10 * dt))
    t_r, run_r = best(lambda: ad.simulate_constrained(system.model, x0, v0, system.constraints, t_final=T, dt=dt,
                                                      route="reference"), repeat=1)

    def rk4():
        x = np.r_[q0, u0]
        for k in range(int(round(T / dt))):
            k1 = rhs(0, x)
            k2 = rhs(0, x + 0.5 * dt * k1)
            k3 = rhs(0, x + 0.5 * dt * k2)
            k4 = rhs(0, x + dt * k3)
            x = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return x
    t_s, x_s = best(rk4, repeat=1)
    t_i, sol = best(lambda: scipy.integrate.solve_ivp(rhs, (0, T), np.r_[q0, u0], rtol=1e-10, atol=1e-10,
                                                       method="DOP853"))
    n = int(round(T / dt))
    rows = [("artidyn compiled", t_c, n, np.linalg.norm(run_c.q[-1, :3] - c_ref)),
            ("  the same, dt x 10", t_c10, n // 10, np.linalg.norm(run_c10.q[-1, :3] - c_ref)),
            ("artidyn readable", t_r, n, np.linalg.norm(run_r.q[-1, :3] - c_ref)),
            ("SymPy + RK4 loop", t_s, n, np.linalg.norm(disc_state_to_pose(x_s[:5], r)[1] - c_ref)),
            ("SymPy + solve_ivp", t_i, sol.t.size - 1, np.linalg.norm(disc_state_to_pose(sol.y[:5, -1], r)[1] - c_ref))]
    print(f"rolling disk, {T:g} s of motion (dt = {dt:g} s for the fixed-step runs)")
    print(f"{'':20s} {'wall [ms]':>10s} {'steps':>7s} {'us/step':>9s} {'vs compiled':>12s} {'centre error [m]':>17s}")
    for name, t, steps, err in rows:
        print(f"{name:20s} {1e3 * t:10.2f} {steps:7d} {1e6 * t / steps:9.1f} {t / t_c:11.1f}x {err:17.2e}")


if __name__ == "__main__":
    main()
