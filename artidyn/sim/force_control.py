"""Hybrid position/force control of a tool in contact, as a Python torque law for
:func:`artidyn.simulate` (``tau=HybridForceControl(...)``, called once per step with the contact
forces of the previous step).

The task is the tool point's position and (optionally) the tool's orientation, in world axes. A
selection splits the translations: along the unit normal ``n`` of the surface the tool pushes with
a force, in the plane orthogonal to ``n`` (``S = I - n n^T``) it follows a path (M. H. Raibert and
J. J. Craig, "Hybrid position/force control of manipulators", ASME J. Dyn. Sys. Meas. Control
103(2), 1981). The task force is built in the operational space (O. Khatib, "A unified approach
for motion and force control of robot manipulators: the operational space formulation", IEEE J.
Robotics and Automation 3(1), 1987)::

    Lambda = (J M^-1 J^T)^-1                                      task-space inertia
    a*     = S (a_d + kd (v_d - v) + kp (p_d - p))                 motion, free directions
             [+ kd_r (0 - omega) + kp_r log3(R_d R^T)]             orientation, when held
    f_n    = f_d + kf (f_d - f_m) + ki integral (f_d - f_m) dt     force law (PI), along -n
    F      = Lambda (a* - Jdot v) - f_n n
    tau    = J^T F + rnea(q, v, 0) - (I - J^T Jbar^T) D v,         Jbar = M^-1 J^T Lambda

``f_m = n . f_contact`` is the normal force the surface exerts on the tool body, measured at the
previous step (the simulator's per-body contact forces); ``rnea(q, v, 0)`` compensates gravity and
the Coriolis and centrifugal torques; the last term damps the joint motions that do not move the
task (the null space of the dynamically consistent inverse ``Jbar``; zero when the task has as many
rows as the robot has dofs). With an exact model and a rigid surface the normal force equals the
command ``f_n`` up to the motion's inertial coupling, which the PI removes; the free directions obey
``e'' + kd e' + kp e = (friction) / Lambda``: the friction of the sliding tool is a disturbance that
the stiffness ``Lambda kp`` keeps small (Siciliano, Sciavicco, Villani & Oriolo, "Robotics:
Modelling, Planning and Control", ch. 9).
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError, ShapeError


def _unit(n, what):
    n = np.asarray(n, dtype=float)
    if n.shape != (3,) or not np.all(np.isfinite(n)) or np.linalg.norm(n) < 1e-12:
        raise InputError(f"{what} must be a finite nonzero 3-vector, got {n!r}")
    return n / np.linalg.norm(n)


def _gain(x, what):
    x = float(x)
    if not np.isfinite(x) or x < 0:
        raise InputError(f"HybridForceControl: {what} must be a finite number >= 0, got {x!r}")
    return x


def straight_path(start, end, duration, t0=0.0):
    """A rest-to-rest straight line from ``start`` to ``end`` (world, m) in ``duration`` s from
    ``t0``, with the quintic time law ``s = 10 u^3 - 15 u^4 + 6 u^5``: ``path(t) -> (p, v, a)``."""
    start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    if start.shape != (3,) or end.shape != (3,):
        raise ShapeError(f"straight_path: start and end must be 3-vectors, got shapes {start.shape}, {end.shape}")
    if not duration > 0:
        raise InputError(f"straight_path: duration must be > 0, got {duration!r}")
    d = end - start

    def path(t):
        u = min(1.0, max(0.0, (t - t0) / duration))
        s = u ** 3 * (10 - 15 * u + 6 * u * u)
        ds = 30 * u * u * (1 - u) ** 2 / duration if 0.0 < u < 1.0 else 0.0
        dds = 60 * u * (1 - u) * (1 - 2 * u) / duration ** 2 if 0.0 < u < 1.0 else 0.0
        return start + s * d, ds * d, dds * d

    return path


class HybridForceControl:
    """Hybrid position/force control of a tool point pushing on a surface while it moves along it.

    The instance is the torque law ``tau(t, q, v, contact_forces)`` (the forces (nb+1, 3) on each
    body, world axes, from the previous step); it keeps the force error's integral, so use a fresh
    one per run (or call :meth:`reset`). ``log`` lists ``(t, f_measured, f_command)`` per call.

    Parameters
    ----------
    model : Model
    frame : str, the tool frame (or body); ``point`` (3,): the controlled point in that frame
        (e.g. the centre of a spherical tip); default its origin.
    normal : (3,) the surface's outward normal ``n`` (world): the force-controlled direction.
    force : float or callable ``force(t)``: the desired normal force ``f_d`` (N, >= 0) that the
        tool exerts on the surface.
    path : callable ``path(t) -> (p_d, v_d, a_d)`` (world, (3,) each; e.g. :func:`straight_path`):
        the point's reference; only its components orthogonal to ``n`` are used.
    kp, kd : the motion gains (1/s^2, 1/s), per unit of task inertia.
    kf, ki : the force law's proportional (dimensionless) and integral (1/s) gains. The loop closes
        once per simulator step h on a force measured a step late: on a rigid surface the force
        error obeys ``e_k+1 = -kf e_k - ki h sum(e)`` (plus the disturbance), whose characteristic
        polynomial ``z^2 + (kf - 1 + ki h) z - kf`` is stable (Jury) for ``0 <= kf < 1`` and
        ``0 < ki h < 2 (1 - kf)``.
    orientation : (3, 3) rotation to hold (world), or None: the orientation is free (then damped in
        the null space); ``kp_r``, ``kd_r``: its gains (1/s^2, 1/s).
    damping : the null-space joint damping D (N m s/rad, a number or (nv,)).
    """

    def __init__(self, model, frame, normal, force, path, *, point=None, kp=2500.0, kd=100.0, kf=0.5, ki=100.0,
                 orientation=None, kp_r=400.0, kd_r=40.0, damping=1.0):
        from ..kinematics.placements import _frame_on_body

        self.model, self.frame = model, frame
        self.body = _frame_on_body(model, frame)[0]
        self.point = np.zeros(3) if point is None else np.asarray(point, dtype=float)
        if self.point.shape != (3,):
            raise ShapeError(f"HybridForceControl: point must be a 3-vector (frame coordinates), got shape "
                             f"{self.point.shape}")
        self.n = _unit(normal, "HybridForceControl: normal")
        self.S = np.eye(3) - np.outer(self.n, self.n)
        if not callable(path):
            raise InputError("HybridForceControl: path must be a callable path(t) -> (p, v, a)")
        self.force = force if callable(force) else (lambda t, f=_gain(force, "force"): f)
        self.path = path
        self.kp, self.kd, self.kf, self.ki = (_gain(x, k) for x, k in ((kp, "kp"), (kd, "kd"), (kf, "kf"), (ki, "ki")))
        self.kp_r, self.kd_r = _gain(kp_r, "kp_r"), _gain(kd_r, "kd_r")
        self.R_d = None if orientation is None else np.asarray(orientation, dtype=float)
        if self.R_d is not None and self.R_d.shape != (3, 3):
            raise ShapeError(f"HybridForceControl: orientation must be a 3x3 rotation, got {self.R_d.shape}")
        self.D = np.broadcast_to(np.asarray(damping, dtype=float), (model.nv,)).copy()
        self.reset()

    def reset(self):
        """Forget the force integral and the log (a new run)."""
        self.integral, self.t_last, self.log = 0.0, None, []

    def task(self, q, v):
        """(J (m, nv), Jdot v (m,), p, R, omega): the task rows [angular (when the orientation is held);
        linear] at the point, world axes."""
        from ..kinematics import frame_placement, jacobian
        from ..kinematics.velocities import jacobian_bias

        J = jacobian(self.model, q, self.frame, "world", point=self.point)
        b = jacobian_bias(self.model, q, v, self.frame, "world", point=self.point)
        T = frame_placement(self.model, q, self.frame)
        p = T[:3, 3] + T[:3, :3] @ self.point
        rows = slice(0, 6) if self.R_d is not None else slice(3, 6)
        return J[rows], b[rows], p, T[:3, :3], J[:3] @ v

    def measured(self, contact_forces):
        """The normal force the surface exerts on the tool's body: ``n . f_contact[body]``."""
        return float(self.n @ np.asarray(contact_forces)[self.body])

    def __call__(self, t, q, v, contact_forces):
        from ..dynamics import crba, rnea
        from ..spatial.rotations import log3

        J, Jdv, p, R, omega = self.task(q, v)
        p_d, v_d, a_d = (np.asarray(x, dtype=float) for x in self.path(t))
        f_d = float(self.force(t))
        f_m = self.measured(contact_forces)
        if self.t_last is not None:                 # the integral over the step that ended at t
            self.integral += (f_d - f_m) * (t - self.t_last)
        self.t_last = t
        f_n = f_d + self.kf * (f_d - f_m) + self.ki * self.integral
        lin = J[-3:] @ v
        a_lin = self.S @ (a_d + self.kd * (v_d - lin) + self.kp * (p_d - p))
        a_star = a_lin if self.R_d is None else np.concatenate(
            [self.kp_r * log3(self.R_d @ R.T) - self.kd_r * omega, a_lin])
        M = crba(self.model, q)
        MiJt = np.linalg.solve(M, J.T)
        Lam = np.linalg.pinv(J @ MiJt)              # the inverse; rank-deficient tasks (planar arms): pinv
        F = Lam @ (a_star - Jdv)
        F[-3:] -= f_n * self.n
        null = np.eye(self.model.nv) - J.T @ (Lam @ MiJt.T)       # I - J^T Jbar^T
        tau = J.T @ F + rnea(self.model, q, v, np.zeros(self.model.nv)) - null @ (self.D * v)
        self.log.append((t, f_m, f_n))
        return tau
