"""Nonholonomic (Pfaffian) constraints, linear in the velocities: ``A(q, t) v + b(q, t) = 0``.

They restrict the velocities without restricting the reachable configurations (rolling without
slipping, a knife edge; Appell, "Traité de mécanique rationnelle", t. II, the rolling relations;
Neimark & Fufaev, "Dynamics of Nonholonomic Systems"). Differentiated once::

    A v + b = 0,        A a + (Adot v + bdot) = 0

Each class gives ``jacobian(model, q, t)`` (A, rows x nv), ``offset(model, q, t)`` (b),
``bias(model, q, v, t)`` (``Adot v + bdot``, from the kinematics, not by differences) and
``phi(model, q)``: a rolling contact's normal row is the derivative of a holonomic relation (the
lowest point stays on the plane), whose value ``phi`` is reported on that row (``holonomic_rows``
marks it) so that drift can be measured and corrected; the other rows have no position form
(``phi`` = 0 there).

* :class:`Nonholonomic`: user functions ``A(q, t)``, ``b(q, t)`` (``Adot v + bdot`` by complex
  step along the motion when not given);
* :class:`RollingDisk`: a disk (wheel) rolling without slipping on a plane, possibly a plane that
  turns about its normal and slides in itself (a turntable, a conveyor);
* :class:`RollingSphere`: the same for a sphere;
* :class:`NoPivot`: rolling without pivoting, no spin about the plane's normal;
* :class:`KnifeEdge`: a point of a body cannot move sideways (the Chaplygin sleigh's blade, a
  wheel's lateral no-slip);
* :class:`FramePath`, :class:`JointPath`: time-dependent holonomic relations (a frame's origin
  or a joint following a given law of t), for driving constraints and servo relations; they
  share this interface because they need t (``phi`` included).

The multipliers are the reaction forces of the plane (world axes) in the rows' directions.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import integrate
from ..errors import InputError, as_real, check_number, check_vector
from ..kinematics import frame_placement, frame_velocity, jacobian, jacobian_bias
from ..spatial.motion import skew
from .models import Constraint, _unit, named

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from numpy.typing import ArrayLike

    from .._typing import Array, FrameLike


def _plane_basis(n):
    """(t1, t2, n): two unit tangents and the normal, a right-handed orthonormal triple."""
    t = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = t - (t @ n) * n
    t1 /= np.linalg.norm(t1)
    return np.stack([t1, np.cross(n, t1), n])


def qdot(model, q, v):
    """dq/dt for the velocity v (first-order tangent): quaternions ``1/2 q (x) [omega; 0]``, a
    free joint's position ``R v_body``; vector joints ``v``. Works on complex arrays."""
    from ..joints import FREE, SPHERICAL
    from ..spatial.rotations import quat_to_matrix

    q = np.asarray(q)
    out = np.zeros(q.shape, dtype=np.result_type(q, v, float))
    for i in range(1, model.nb + 1):
        iq, iv, t = int(model.idx_q[i]), int(model.idx_v[i]), model.joint_type[i]
        if t in (SPHERICAL, FREE):
            k = iq if t == SPHERICAL else iq + 3
            w = v[iv:iv + 3]
            x, y, z, s = q[k:k + 4]
            # q (x) [w; 0], scalar last: vector part s w + qv x w, scalar -qv . w
            qv = np.array([x, y, z])
            out[k:k + 3] = 0.5 * (s * w + np.cross(qv, w))
            out[k + 3] = -0.5 * (qv @ w)
            if t == FREE:
                out[iq:iq + 3] = quat_to_matrix(q[k:k + 4][None])[0] @ v[iv + 3:iv + 6]
        else:
            n = int(model.nq_joint[i])
            out[iq:iq + n] = v[iv:iv + n]
    return out


def directional(f, model, q, v, t=0.0, rate=1.0):
    """``d/ds f(q (+) s v, t + rate s)`` at s = 0: complex step when ``f`` takes complex arguments
    (exact to rounding), central differences on the manifold otherwise."""
    h = 1e-30
    try:
        out = f(np.asarray(q, dtype=float) + 1j * h * qdot(model, q, np.asarray(v, dtype=float)), t + 1j * h * rate)
        out = np.asarray(out)
        if np.iscomplexobj(out):
            return np.imag(out) / h
    except (TypeError, ValueError):
        pass
    v = np.asarray(v, dtype=float)
    s = 1e-6 / max(1.0, float(np.linalg.norm(v)), abs(rate))
    fp = np.asarray(f(integrate(model, q, s * v), t + rate * s), dtype=float)
    fm = np.asarray(f(integrate(model, q, -s * v), t - rate * s), dtype=float)
    return (fp - fm) / (2 * s)


class PfaffianConstraint(Constraint):
    """Base of the velocity constraints ``A(q, t) v + b(q, t) = 0`` (module docstring)."""

    nonholonomic = True

    @property
    def holonomic_rows(self):
        return np.zeros(self.rows, dtype=bool)

    def phi(self, model, q, t=0.0):
        return np.zeros(self.rows)

    def offset(self, model, q, t=0.0):
        return np.zeros(self.rows)

    def residual(self, model, q, v, t=0.0):
        """``A v + b``: zero on the constraint."""
        return self.jacobian(model, q, t) @ np.asarray(v, dtype=float) + self.offset(model, q, t)


class Nonholonomic(PfaffianConstraint):
    """``A(q, t) v + b(q, t) = 0`` from user functions (``rows`` from A's shape).

    ``A(q, t)`` returns (rows, nv); ``b(q, t)`` (rows,) or None (zero); ``bias(q, v, t)``, when
    given, returns ``Adot v + bdot``; without it, the derivative along the motion is taken by
    complex step (``A`` and ``b`` written with numpy operations accept complex q and t) or by
    central differences (about 1e-9 relative).
    """

    def __init__(self, A: Callable[[Array, float], ArrayLike], b: Callable[[Array, float], ArrayLike] | None = None,
                 bias: Callable[[Array, Array, float], ArrayLike] | None = None, name: str = "nonholonomic") -> None:
        if not callable(A) or (b is not None and not callable(b)) or (bias is not None and not callable(bias)):
            raise InputError("Nonholonomic: A, b and bias must be functions (A(q, t), b(q, t), bias(q, v, t))")
        self._A, self._b, self._bias, self.name = A, b, bias, name
        self.rows = None

    def check(self, model):
        from ..configuration import neutral
        if getattr(self, "_checked", None) is model:
            return
        A = np.asarray(self._A(neutral(model), 0.0), dtype=float)
        if A.ndim != 2 or A.shape[1] != model.nv:
            raise InputError(f"Nonholonomic {self.name}: A(q, t) must return (rows, nv = {model.nv}), got shape "
                             f"{A.shape}")
        self.rows = A.shape[0]
        if self._b is not None:
            b = np.asarray(self._b(neutral(model), 0.0))
            if b.shape != (self.rows,):
                raise InputError(f"Nonholonomic {self.name}: b(q, t) must return ({self.rows},), got shape {b.shape}")
        self._checked = model

    def _value(self, what, x):
        x = np.asarray(x, dtype=float)
        if not np.all(np.isfinite(x)):
            raise InputError(f"Nonholonomic {self.name}: {what} returned non-finite values")
        return x

    def jacobian(self, model, q, t=0.0):
        return self._value("A(q, t)", self._A(np.asarray(q, dtype=float), t))

    def offset(self, model, q, t=0.0):
        if self._b is None:
            return np.zeros(self.rows)
        return self._value("b(q, t)", self._b(np.asarray(q, dtype=float), t))

    def bias(self, model, q, v, t=0.0):
        v = np.asarray(v, dtype=float)
        if self._bias is not None:
            return self._value("bias(q, v, t)", self._bias(np.asarray(q, dtype=float), v, t))

        def g(qq, tt):
            out = np.asarray(self._A(qq, tt)) @ v
            return out if self._b is None else out + np.asarray(self._b(qq, tt))
        return self._value("the derivative of A v + b", directional(g, model, q, v, t))


class _OnPlane(PfaffianConstraint):
    """A body touching the plane ``n . x = offset`` (world), which may turn at ``plane_omega``
    (rad/s, parallel to n) about ``plane_point`` and slide at ``plane_velocity`` (in the plane)."""

    def __init__(self, frame: FrameLike, normal: ArrayLike = (0.0, 0.0, 1.0), offset: float = 0.0,
                 plane_omega: ArrayLike = 0.0, plane_point: ArrayLike = (0.0, 0.0, 0.0),
                 plane_velocity: ArrayLike = (0.0, 0.0, 0.0)) -> None:
        self.frame = named(frame, f"{type(self).__name__}: frame")
        where = f"{type(self).__name__} '{frame}'"
        self.n = _unit(normal, f"{where}: normal")
        self.d = check_number(offset, f"{where}: offset")
        W = as_real(plane_omega, f"{where}: plane_omega", "a number or a 3-vector (rad/s)", finite=True)
        self.Omega = W * self.n if W.ndim == 0 else check_vector(W, 3, f"{where}: plane_omega")
        self.p0 = check_vector(plane_point, 3, f"{where}: plane_point")
        self.V = check_vector(plane_velocity, 3, f"{where}: plane_velocity")
        if np.linalg.norm(np.cross(self.Omega, self.n)) > 1e-12 * (1 + np.linalg.norm(self.Omega)) \
                or abs(self.V @ self.n) > 1e-12 * (1 + np.linalg.norm(self.V)):
            raise InputError(f"{type(self).__name__} '{frame}': the plane must move in itself (plane_omega parallel "
                             f"to the normal, plane_velocity in the plane)")
        self.R = _plane_basis(self.n)          # rows: t1, t2, n (world)
        self.name = f"{frame} on plane"

    def check(self, model):
        model.frame(self.frame)

    @property
    def static(self):
        """True when the plane does not move (then the compiled kernels take the constraint)."""
        return not (np.any(self.Omega) or np.any(self.V))

    def plane_point_velocity(self, c):
        return self.V + np.cross(self.Omega, c - self.p0)


class _Rolling(_OnPlane):
    """Rolling without slipping: the body's material point at the contact moves with the plane
    (3 rows: two tangential, then the normal one, which is holonomic; ``normal_row=False`` keeps the
    two tangential rows, for a wheel whose height a planar base already fixes)."""

    def __init__(self, frame: FrameLike, normal_row: bool = True, **plane: Any) -> None:
        super().__init__(frame, **plane)
        self.normal_row = bool(normal_row)
        self.rows = 3 if self.normal_row else 2
        self.R = self.R if self.normal_row else self.R[:2]

    @property
    def holonomic_rows(self):
        return np.array([False, False, True][:self.rows])

    def _geometry(self, model, q):
        """(R_frame, centre p, u, s): the contact point is p + radius u."""
        raise NotImplementedError

    def _udot(self, R, u, s, omega):
        raise NotImplementedError

    def contact_point(self, model, q):
        _, p, u, _ = self._geometry(model, q)
        return p + self.radius * u

    def phi(self, model, q, t=0.0):
        return np.array([0.0, 0.0, self.n @ self.contact_point(model, q) - self.d])[:self.rows]

    def jacobian(self, model, q, t=0.0):
        _, _, u, _ = self._geometry(model, q)
        J = jacobian(model, q, self.frame)
        return self.R @ (J[3:] - skew(self.radius * u) @ J[:3])

    def offset(self, model, q, t=0.0):
        return -self.R @ self.plane_point_velocity(self.contact_point(model, q))

    def bias(self, model, q, v, t=0.0):
        Rf, p, u, s = self._geometry(model, q)
        tw = frame_velocity(model, q, v, self.frame)
        jb = jacobian_bias(model, q, v, self.frame)
        omega, vp = tw[:3], tw[3:]
        udot = self._udot(Rf, u, s, omega)
        cdot = vp + self.radius * udot             # the geometric contact point's velocity
        return self.R @ (jb[3:] + np.cross(jb[:3], self.radius * u) + np.cross(omega, self.radius * udot)
                         - np.cross(self.Omega, cdot))

    def wrench(self, model, q, lam):
        """The plane's force on the body (world axes) at the contact: [moment about the centre; force]."""
        _, _, u, _ = self._geometry(model, q)
        F = self.R.T @ np.asarray(lam, dtype=float)
        return np.concatenate([np.cross(self.radius * u, F), F])


class RollingDisk(_Rolling):
    """A thin disk (a wheel) of ``radius`` rolling without slipping on a plane.

    ``frame``: at the disk's centre; ``axis``: the disk's axis in that frame's axes. The contact
    is the disk's lowest point, ``p + radius u`` with ``u`` the unit vector of the disk's plane
    pointing most along ``-n``. Rows (world): the contact point's velocity relative to the plane
    along the two tangents, then along the normal. Undefined when the disk lies flat.
    """

    def __init__(self, frame: FrameLike, radius: float, axis: ArrayLike = (0.0, 1.0, 0.0), normal_row: bool = True,
                 **plane: Any) -> None:
        super().__init__(frame, normal_row, **plane)
        self.radius = check_number(radius, f"RollingDisk '{frame}': radius", positive=True)
        self.axis = _unit(axis, f"RollingDisk '{frame}': axis")
        self.name = f"disk {frame} rolling"

    def _geometry(self, model, q):
        T = frame_placement(model, q, self.frame)
        a = T[:3, :3] @ self.axis
        w = self.n - (self.n @ a) * a
        s = np.linalg.norm(w)
        if not s > 1e-9:
            raise InputError(f"RollingDisk '{self.frame}': the disk lies flat on the plane; the contact point is "
                             f"undefined")
        return T[:3, :3], T[:3, 3], -w / s, s

    def _udot(self, R, u, s, omega):
        a = R @ self.axis
        adot = np.cross(omega, a)
        w = -s * u
        wdot = -(self.n @ adot) * a - (self.n @ a) * adot
        what = w / s
        return -(wdot - (what @ wdot) * what) / s


class RollingSphere(_Rolling):
    """A sphere of ``radius`` (centre at ``frame``'s origin) rolling without slipping on a plane;
    the contact is ``p - radius n``. Rows as :class:`RollingDisk`."""

    def __init__(self, frame: FrameLike, radius: float, normal_row: bool = True, **plane: Any) -> None:
        super().__init__(frame, normal_row, **plane)
        self.radius = check_number(radius, f"RollingSphere '{frame}': radius", positive=True)
        self.name = f"sphere {frame} rolling"

    def _geometry(self, model, q):
        T = frame_placement(model, q, self.frame)
        return T[:3, :3], T[:3, 3], -self.n, 1.0

    def _udot(self, R, u, s, omega):
        return np.zeros(3)


class NoPivot(_OnPlane):
    """Rolling without pivoting: the body's angular velocity relative to the plane has no
    component along the normal (1 row, ``n . (omega - Omega_plane) = 0``)."""

    rows = 1

    def __init__(self, frame: FrameLike, **plane: Any) -> None:
        super().__init__(frame, **plane)
        self.name = f"{frame} without pivoting"

    def jacobian(self, model, q, t=0.0):
        return (self.n @ jacobian(model, q, self.frame)[:3])[None]

    def offset(self, model, q, t=0.0):
        return np.array([-(self.n @ self.Omega)])

    def bias(self, model, q, v, t=0.0):
        return np.array([self.n @ jacobian_bias(model, q, v, self.frame)[:3]])

    def wrench(self, model, q, lam):
        return np.concatenate([lam[0] * self.n, np.zeros(3)])


class KnifeEdge(PfaffianConstraint):
    """A knife edge: the point ``point`` (frame coordinates, default the origin) of ``frame``
    has no velocity along ``lateral`` (a direction fixed in the frame, normal to the blade).
    1 row: ``(R l) . v_P = 0``. The Chaplygin sleigh's blade; a wheel's lateral no-slip."""

    rows = 1

    def __init__(self, frame: FrameLike, lateral: ArrayLike = (0.0, 1.0, 0.0), point: ArrayLike | None = None) -> None:
        self.frame = named(frame, "KnifeEdge: frame")
        self.lateral = _unit(lateral, f"KnifeEdge '{frame}': lateral")
        self.point = None if point is None else check_vector(point, 3, f"KnifeEdge '{frame}': point")
        self.name = f"knife edge {frame}"

    def check(self, model):
        model.frame(self.frame)

    def _l(self, model, q):
        return frame_placement(model, q, self.frame)[:3, :3] @ self.lateral

    def jacobian(self, model, q, t=0.0):
        return (self._l(model, q) @ jacobian(model, q, self.frame, point=self.point)[3:])[None]

    def bias(self, model, q, v, t=0.0):
        l = self._l(model, q)
        tw = frame_velocity(model, q, v, self.frame, point=self.point)
        jb = jacobian_bias(model, q, v, self.frame, point=self.point)
        return np.array([np.cross(tw[:3], l) @ tw[3:] + l @ jb[3:]])

    def wrench(self, model, q, lam):
        """The force on the body (world axes) at the point: [moment about the frame's origin; force]."""
        F = lam[0] * self._l(model, q)
        r = np.zeros(3) if self.point is None else frame_placement(model, q, self.frame)[:3, :3] @ self.point
        return np.concatenate([np.cross(r, F), F])


def _time_derivative(f, t, what):
    """d f / dt at t by complex step (f written with numpy operations), else central differences."""
    try:
        out = np.asarray(f(t + 1e-30j))
        if np.iscomplexobj(out):
            return np.imag(out) / 1e-30
    except (TypeError, ValueError):
        pass
    h = 1e-6 * max(1.0, abs(t))
    return (np.asarray(f(t + h), dtype=float) - np.asarray(f(t - h), dtype=float)) / (2 * h)


class _Path(PfaffianConstraint):
    """A time-dependent holonomic relation ``phi(q) = target(t)`` (rheonomic): the velocity form
    ``J v - target'(t) = 0``, the bias ``Jdot v - target''(t)``; ``velocity`` and
    ``acceleration`` (functions of t) default to complex-step derivatives of ``target``."""

    def _init_path(self, target, velocity, acceleration, rows):
        for what, f in (("target", target), ("velocity", velocity), ("acceleration", acceleration)):
            if not (callable(f) or (f is None and what != "target")):
                raise InputError(f"{type(self).__name__} {self.name}: the {what} must be a function of t, got "
                                 f"{type(f).__name__} {f!r:.40}")
        self._p, self.rows = target, rows
        self._pd = velocity or (lambda t: _time_derivative(self._p, t, "velocity"))
        self._pdd = acceleration or (lambda t: _time_derivative(self._pd, t, "acceleration"))

    @property
    def holonomic_rows(self):
        return np.ones(self.rows, dtype=bool)

    def _vec(self, f, t):
        x = np.atleast_1d(as_real(f(t), f"{self.name}: the target (or its derivatives) at t = {t}",
                                  f"{self.rows} numbers"))
        if x.shape != (self.rows,) or not np.all(np.isfinite(x)):
            raise InputError(f"{self.name}: the target (or its derivatives) must give {self.rows} finite numbers at "
                             f"t = {t}, got {x!r}")
        return x

    def phi(self, model, q, t=0.0):
        return self._value(model, q) - self._vec(self._p, t)

    def offset(self, model, q, t=0.0):
        return -self._vec(self._pd, t)


class FramePath(_Path):
    """The origin of ``frame`` follows the world point ``target(t)`` (3 rows): an end-effector
    path, as a servo relation or a driving constraint."""

    def __init__(self, frame: FrameLike, target: Callable[[float], ArrayLike],
                 velocity: Callable[[float], ArrayLike] | None = None,
                 acceleration: Callable[[float], ArrayLike] | None = None) -> None:
        self.frame, self.name = named(frame, "FramePath: frame"), f"{frame} on its path"
        self._init_path(target, velocity, acceleration, 3)

    def check(self, model):
        model.frame(self.frame)

    def _value(self, model, q):
        return frame_placement(model, q, self.frame)[:3, 3]

    def jacobian(self, model, q, t=0.0):
        return jacobian(model, q, self.frame)[3:]

    def bias(self, model, q, v, t=0.0):
        return jacobian_bias(model, q, v, self.frame)[3:] - self._vec(self._pdd, t)

    def wrench(self, model, q, lam):
        return np.concatenate([np.zeros(3), lam])


class JointPath(_Path):
    """A 1-dof joint follows ``target(t)`` (1 row): a driven joint, a motor's angle law."""

    def __init__(self, joint: str | int, target: Callable[[float], ArrayLike],
                 velocity: Callable[[float], ArrayLike] | None = None,
                 acceleration: Callable[[float], ArrayLike] | None = None) -> None:
        self.joint, self.name = named(joint, "JointPath: joint", "joint"), f"{joint} on its path"
        self._init_path(target, velocity, acceleration, 1)

    def _dofs(self, model):
        from ..joints import PRISMATIC, REVOLUTE
        i = model.joint_id(self.joint)
        if model.joint_type[i] not in (REVOLUTE, PRISMATIC):
            raise InputError(f"JointPath: joint '{self.joint}' is {model.joint_kind[i]}; a path needs a 1-dof joint")
        return int(model.idx_q[i]), int(model.idx_v[i])

    def check(self, model):
        self._dofs(model)

    def _value(self, model, q):
        return np.array([np.asarray(q, dtype=float)[self._dofs(model)[0]]])

    def jacobian(self, model, q, t=0.0):
        J = np.zeros((1, model.nv))
        J[0, self._dofs(model)[1]] = 1.0
        return J

    def bias(self, model, q, v, t=0.0):
        return -self._vec(self._pdd, t)
