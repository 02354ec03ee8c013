"""A constrained system with optional quasi-velocities, and the terms every formulation shares.

A :class:`System` is a model, constraints (holonomic ones differentiated, and nonholonomic
``A(q, t) v + b(q, t) = 0``), optional quasi-velocities ``w = B(q) v`` and an optional non-ideal
constraint force. The kinematic equation is ``qdot = G(q) w`` with ``G = B^-1`` followed by the
configuration's own map (quaternions). Without ``B`` the quasi-velocities are the model's ``v``:
for a floating base that is already the choice of J. Reuss ("Modélisation des robots", French
Wikipedia draft, 2013) for Boltzmann-Hamel, the base's angular velocity in body axes ("taking the
components of the base's rotation vector as quasi-velocities").

Velocity and acceleration in quasi-velocities::

    v = G w,      a = G wdot - G Bdot v          (Bdot v: the rate of B along the motion)
    A v + b = 0   ->   A_w w + b = 0,  A_w = A G,   A_w wdot = gamma + A G Bdot v
"""
import numpy as np

from ..configuration import as_batch, as_q
from ..constraints.nonholonomic import directional, qdot
from ..constraints.solve import _check, constraint_rows
from ..dynamics import rnea
from ..errors import InputError, ShapeError


class System:
    """A model with constraints, quasi-velocities and non-ideal constraint forces.

    Parameters
    ----------
    model : Model
    constraints : list of constraints (holonomic :mod:`artidyn.constraints` and nonholonomic
        :mod:`artidyn.constraints.nonholonomic`)
    quasi_velocities : None, "base", "world" or a function ``B(q) -> (nv, nv)``
        None or "base": the model's own ``v`` (a floating base's angular and linear velocity in
        body axes); "world": a floating base's angular velocity and origin velocity in world axes
        (the other dofs unchanged); a function: ``w = B(q) v``, B invertible (written with numpy
        operations it accepts complex q, and its rate along the motion is exact; otherwise taken
        by central differences).
    nonideal : function ``C(q, v, t) -> (nv,)``, optional
        Non-ideal constraints (Udwadia & Kalaba 2002): the constraint forces do the work
        ``C . delta q`` on every virtual displacement that satisfies the constraints.
    independent : list of dof indices, optional
        The independent quasi-velocities for the methods that eliminate the multipliers (Kane,
        Gibbs-Appell); default: chosen by QR with column pivoting at each state.
    """

    def __init__(self, model, constraints=(), quasi_velocities=None, nonideal=None, independent=None):
        self.model = model
        self.constraints = _check(model, constraints)
        if quasi_velocities == "base":
            quasi_velocities = None
        if quasi_velocities == "world":
            quasi_velocities = _world_base(model)
        if quasi_velocities is not None and not callable(quasi_velocities):
            raise InputError(f"System: quasi_velocities must be None, 'base', 'world' or a function B(q), got "
                             f"{quasi_velocities!r}")
        if nonideal is not None and not callable(nonideal):
            raise InputError("System: nonideal must be a function C(q, v, t) returning (nv,)")
        self.B_of, self.nonideal = quasi_velocities, nonideal
        self.independent = None if independent is None else np.asarray(independent, dtype=int)
        if self.independent is not None and (self.independent.ndim != 1 or np.any(self.independent < 0)
                                             or np.any(self.independent >= model.nv)):
            raise InputError(f"System: independent must be dof indices in [0, {model.nv}), got {independent!r}")
        self._m0 = model.replace(gravity=np.zeros(3))
        self._cache = {}              # what the compiled route keeps (analytical.compiled)

    @property
    def quasi(self):
        """True when the system has its own quasi-velocities ``w = B(q) v``."""
        return self.B_of is not None

    def B(self, q):
        if self.B_of is None:
            return np.eye(self.model.nv)
        B = np.asarray(self.B_of(np.asarray(q, dtype=float)), dtype=float)
        if B.shape != (self.model.nv,) * 2 or not np.all(np.isfinite(B)):
            raise InputError(f"System: B(q) must return a finite ({self.model.nv}, {self.model.nv}) matrix, got "
                             f"shape {B.shape}")
        return B

    def G(self, q):
        B = self.B(q)
        if np.linalg.cond(B) > 1e12:
            raise InputError("System: B(q) is singular at this q (the quasi-velocities are not independent)")
        return np.linalg.inv(B)

    def Bdot_v(self, q, v):
        """``Bdot v``: the rate of ``B(q)`` along the motion, times v."""
        if self.B_of is None:
            return np.zeros(self.model.nv)
        return directional(lambda qq, tt: np.asarray(self.B_of(qq)) @ v, self.model, q, v)

    def quasi_velocities(self, q, v):
        """``w = B(q) v``."""
        return self.B(q) @ np.asarray(v, dtype=float)

    def velocities(self, q, w):
        """``v = G(q) w``."""
        return self.G(q) @ np.asarray(w, dtype=float)

    def qdot(self, q, w):
        """The kinematic equation ``qdot = G(q) w`` (nq,): quaternion rates for spherical and free
        joints, a free joint's position rate in world axes."""
        return qdot(self.model, np.asarray(q, dtype=float), self.velocities(q, w))


def _world_base(model):
    """B(q) for a floating base's twist in world axes: blockdiag(R, R) on its 6 dofs."""
    from ..joints import FREE
    from ..spatial.rotations import quat_to_matrix

    free = [i for i in range(1, model.nb + 1) if model.joint_type[i] == FREE]
    if not free:
        raise InputError(f"System: quasi_velocities='world' needs a floating base; model '{model.name}' has none")

    def B(q):
        out = np.eye(model.nv, dtype=np.result_type(q, float))
        for i in free:
            iq, iv = int(model.idx_q[i]), int(model.idx_v[i])
            R = quat_to_matrix(q[iq + 3:iq + 7][None])[0]
            out[iv:iv + 3, iv:iv + 3] = R
            out[iv + 3:iv + 6, iv + 3:iv + 6] = R
        return out
    return B


class Terms:
    """The quantities of one state ``(q, v, tau, t)`` that the formulations share.

    ``Q_app``: the applied generalized forces other than inertia (nv,): ``tau`` + the non-ideal
    term + gravity + external wrenches - friction - springs, i.e. ``tau + C - (h - c)`` with
    ``h = rnea(q, v, 0)`` and ``c`` its velocity-product part; ``rows``: the constraint rows;
    ``gamma = -(Adot v + bdot)``; ``B, G, Bdot_v`` of the quasi-velocities.
    """

    def __init__(self, system, q, v, tau, t=0.0, f_ext=None, friction=True):
        model = system.model
        Q, sq = as_q(model, q)
        V, sv = as_batch(model, v, "v", "nv")
        T, st = as_batch(model, tau, "tau", "nv")
        if not (sq and sv and st):
            raise ShapeError("the analytical formulations take one state (q (nq,), v (nv,), tau (nv,))")
        self.system, self.model = system, model
        self.q, self.v, self.tau, self.t = Q[0], V[0], T[0], float(t)
        self.f_ext, self.friction = f_ext, friction
        zero = np.zeros(model.nv)
        self.h = rnea(model, self.q, self.v, zero, f_ext, friction=friction)
        spring = rnea(system._m0, self.q, zero, zero, friction=False)
        self.c = rnea(system._m0, self.q, self.v, zero, friction=False) - spring
        C = zero if system.nonideal is None else np.asarray(system.nonideal(self.q, self.v, self.t), dtype=float)
        if C.shape != (model.nv,) or not np.all(np.isfinite(C)):
            raise InputError(f"System: nonideal(q, v, t) must return {model.nv} finite numbers, got shape {C.shape}")
        self.C = C
        self.Q_app = self.tau + C - (self.h - self.c)
        self.rows = constraint_rows(model, self.q, self.v, system.constraints, self.t)
        self.A, self.gamma = self.rows.J, -self.rows.bias
        self.B, self.G = system.B(self.q), system.G(self.q)
        self.Bdot_v = system.Bdot_v(self.q, self.v)
        self.w = self.B @ self.v

    def to_quasi(self, a):
        """``wdot = B a + Bdot v``."""
        return self.B @ a + self.Bdot_v

    def from_quasi(self, wdot):
        """``a = G (wdot - Bdot v)``."""
        return self.G @ (wdot - self.Bdot_v)

    def quasi_rows(self):
        """``(A_w, gamma_w)``: the constraints on the quasi-accelerations, ``A_w wdot = gamma_w``."""
        A_w = self.A @ self.G
        return A_w, self.gamma + A_w @ self.Bdot_v

    def partition(self, rank_tol=1e-10):
        """Independent and dependent quasi-velocities: ``wdot = N wdot_i + wdot_0`` for all
        ``wdot_i`` (``wdot_0``: the quasi-accelerations with ``wdot_i = 0``), and ``w = N w_i +
        w_0``. Returns ``(ind, N, wdot_0)``; ``ind`` from QR with column pivoting of ``A_w``
        (the dependent ones are the pivots) unless the system names them; redundant rows are
        resolved by least squares."""
        import scipy.linalg

        A_w, gamma_w = self.quasi_rows()
        n = self.model.nv
        if A_w.shape[0] == 0:
            return np.arange(n), np.eye(n), np.zeros(n)
        _, R, piv = scipy.linalg.qr(A_w, pivoting=True, mode="economic")
        d = np.abs(np.diag(R))
        r = int(np.sum(d > rank_tol * max(d[0], 1e-300)))
        if self.system.independent is not None:
            ind = np.sort(self.system.independent)
            if ind.size != n - r:
                raise InputError(f"System: {ind.size} independent quasi-velocities named, the constraints leave "
                                 f"{n - r}")
        else:
            ind = np.sort(piv[r:])
        dep = np.setdiff1d(np.arange(n), ind)
        Ad, Ai = A_w[:, dep], A_w[:, ind]
        if np.linalg.matrix_rank(Ad, tol=rank_tol * max(np.abs(Ad).max(initial=0.0), 1e-300)) < dep.size:
            raise InputError("System: the named independent quasi-velocities do not determine the others (the "
                             "constraints do not fix the dependent ones)")
        Ad_pinv = np.linalg.pinv(Ad, rcond=rank_tol)
        N = np.zeros((n, ind.size))
        N[ind, np.arange(ind.size)] = 1.0
        N[dep] = -Ad_pinv @ Ai
        wdot0 = np.zeros(n)
        wdot0[dep] = Ad_pinv @ gamma_w
        return ind, N, wdot0
