"""The energy balance of the servo runs, and their stop with the run so far.

A servo run knows every force that works on its system: the servo forces ``D^T mu``, the
first-kind reactions ``A^T Lambda`` (zero work on fixed relations, not on moving ones), the given
forces and torques, and the explicit time dependence of its energies. With ``L = T - U`` and the
Jacobi energy ``H = qdot . dT/dqdot - T + U`` (``T + U`` when T is quadratic in the velocities and
T, U do not depend on t), Lagrange's equations give exactly::

    dH/dt = qdot . (Q + D^T mu + A^T Lambda) - dL/dt|explicit

so the run integrates that power with its own Runge-Kutta stages (the work ``W``) and checks,
after every step, ``H - H0 <= W`` up to ``energy_tol`` of the scale (the largest kinetic energy
so far, the absolute work so far, a floor): friction and damping only take energy out, an
integrator that has left its equations (a step too large for a stiff mode) puts energy in. A run
that fails it, or whose state or forces stop being finite, or which stops being determined,
raises :class:`~artidyn.errors.SimulationError` whose ``result`` is the
:class:`~artidyn.servo.problem.ServoRun` up to the last sound step.
"""
import numpy as np

from ..errors import InputError, SimulationError, check_number


class Stop(Exception):
    """Raised inside a servo run's loop: the reason it stops (turned into SimulationError)."""


class EnergyBalance:
    """``H - H0 <= W + energy_tol * scale`` step after step (module docstring); ``energy_tol``
    None switches it off. ``floor``: the smallest scale (J), e.g. a robot's weight times its size."""

    def __init__(self, energy_tol, where, floor=0.0):
        self.tol = None if energy_tol is None else check_number(energy_tol, f"{where}: energy_tol", positive=True)
        self.floor = float(floor)
        self.H0 = None
        self.kmax = self.hmax = self.excess = 0.0

    def check(self, t, H, kinetic, W, absW):
        """Stop (naming t) when the energy H outgrew the work W by more than the tolerance."""
        if self.tol is None:
            return
        if self.H0 is None:
            self.H0 = H
        self.kmax = max(self.kmax, abs(kinetic))
        self.hmax = max(self.hmax, abs(H) if np.isfinite(H) else 0.0)
        scale = max(self.kmax, absW, self.floor, 1e-9 * self.hmax, 1e-300)
        excess = (H - self.H0) - W
        ratio = excess / scale
        if not ratio <= self.tol:         # NaN fails too
            raise Stop(f"the energy grew beyond the work of the servo and the given forces (the energy balance "
                       f"failed: {excess:.3g} J more than they brought, tolerance energy_tol = {self.tol:g} of the "
                       f"scale {scale:.3g} J) at t = {t:.6g} s")
        self.excess = max(self.excess, ratio)


def finite(*arrays):
    return all(np.all(np.isfinite(np.asarray(a, dtype=float))) for a in arrays)


def run_of(rows, j):
    """The :class:`~artidyn.servo.problem.ServoRun` of the rows gathered so far (S >= 0)."""
    from .problem import ServoRun
    if not rows:
        return None
    t, Q, V, A, MU, LAM, E, P, W, DR = (np.array(x) for x in zip(*rows))
    return ServoRun(t, Q, V, A, MU.reshape(len(t), j), LAM.reshape(len(t), -1), E, P, W, DR)


def stopped(where, stop, rows, j, dt, balance=True):
    """The exception that ends a servo run stopped by ``stop`` (a :class:`Stop`, or an error of
    the solver). At its start, the inputs' fault: ``stop`` itself (a Stop as an InputError);
    later, a SimulationError with the run so far (``balance``: the run has an energy balance,
    which ``energy_tol=None`` switches off)."""
    if not rows:
        return InputError(f"{where}: {stop}") if isinstance(stop, Stop) else stop
    why = str(stop) if isinstance(stop, Stop) else f"the run stopped after t = {rows[-1][0]:.6g} s ({stop})"
    part = run_of(rows, j)
    off = " (or energy_tol=None if the energy balance does not hold here)" if balance else ""
    return SimulationError(f"{where}: {why} (dt = {dt:.3g} s); try a smaller dt{off}. The run up to "
                           f"t = {part.t[-1]:.6g} s is in error.result", result=part)
