"""Bilateral constraint models: ``phi(q) = 0``, its Jacobian ``J`` (rows x nv) and ``Jdot v``.

Each constraint differentiates to the velocity and acceleration levels (Khalil & Dombre,
"Modeling, Identification and Control of Robots", ch. 7; Featherstone, "Rigid Body Dynamics
Algorithms", ch. 8)::

    phi(q) = 0,      J(q) v = 0,      J(q) a + Jdot v = 0

with the kinematics of :mod:`artidyn.kinematics` in world-aligned axes (rows [angular; linear],
pinocchio's LOCAL_WORLD_ALIGNED). The multipliers ``lambda`` of ``M a + h = tau + J^T lambda``
are the reactions the constraint exerts on frame_a (and their opposite on frame_b): for
``Point`` the force at frame_a's origin, for ``Weld`` the wrench [moment about frame_a's
origin; force], both in world axes (:meth:`Constraint.wrench` turns any constraint's multipliers
into that wrench).

A closed chain is a spanning tree plus such cut constraints (Khalil & Dombre, "Modeling,
Identification and Control of Robots", ch. 7: a tree and the cut joints that close its loops).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import integrate
from ..errors import InputError, ModelError, ShapeError, as_real, check_number, check_rigid, shown
from ..joints import PRISMATIC, REVOLUTE
from ..kinematics import frame_placement, frame_velocity, jacobian, jacobian_bias

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike

    from .._typing import Array, FrameLike


def _unit(x, what):
    """``x`` (3,) scaled to length 1; InputError naming ``what`` for anything else (NaN, zero)."""
    x = as_real(x, what, "a nonzero 3-vector")
    n = np.linalg.norm(x)
    if x.shape != (3,) or not n > 0:
        raise InputError(f"{what} must be a nonzero 3-vector, got {x.tolist()}")
    return x / n


def named(x, where, what="frame"):
    """``x`` when it can name a frame or joint of a model: a name (str), an index (int) or a
    Frame; InputError otherwise (a list or a float was only refused at the first use, in
    Python's words, or looked up as a number)."""
    from ..model import Frame
    if isinstance(x, (str, Frame)) or (isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))):
        return x
    raise InputError(f"{where} must be the name (str) or the index (int) of a {what}, got {shown(x)}")


def _world_target(target, where):
    """A constraint's world target, checked when the constraint is made (not at its first use,
    where a NaN would only show as a failed solve): a point (3,) of finite numbers, or a
    placement (4, 4) that is a rigid transform."""
    T = as_real(target, where, "a world point (3,) or a placement (4, 4)", finite=True)
    if T.shape == (4, 4):
        return check_rigid(T, where)
    if T.shape != (3,):
        raise ShapeError(f"{where} must be a world point (3,) or a placement (4, 4), got shape {T.shape}")
    return T


def _log3(R):
    """Rotation vector of a rotation matrix (angle in [0, pi]); float only, through the unit
    quaternion (scipy's ``Rotation``: accurate up to and at pi)."""
    from scipy.spatial.transform import Rotation
    return Rotation.from_matrix(R).as_rotvec()


class Constraint:
    """Base class: ``rows`` equations; ``phi(model, q)``, ``jacobian(model, q)``,
    ``bias(model, q, v)`` (``Jdot v``) and ``wrench(model, q, lam)``."""

    rows = 0
    name = ""
    nonholonomic = False     # True: jacobian / offset / bias take the time t (Pfaffian constraints)

    @property
    def holonomic_rows(self):
        """Which rows have a position form ``phi`` (all of them for a holonomic constraint)."""
        return np.ones(self.rows, dtype=bool)

    def offset(self, model, q, t=0.0):
        """``b`` of the velocity form ``J v + b = 0``: zero for scleronomic constraints."""
        return np.zeros(self.rows)

    def check(self, model):
        """Raise a clear error when the constraint does not fit ``model`` (unknown names...)."""

    def wrench(self, model, q, lam):
        """The reaction on frame_a as [moment about its origin; force] in world axes (6,), or the
        multipliers themselves for constraints that are not between frames."""
        return np.asarray(lam, dtype=float)

    def __repr__(self):
        return f"{type(self).__name__}({self.name})"


class _Frames(Constraint):
    """Between two frames (frame_b None: the world, at ``target``)."""

    def __init__(self, frame_a: FrameLike, frame_b: FrameLike | None = None, target: ArrayLike | None = None,
                 at: ArrayLike | None = None) -> None:
        kind = type(self).__name__
        self.frame_a = named(frame_a, f"{kind}: frame_a")
        self.frame_b = None if frame_b is None else named(frame_b, f"{kind}: frame_b")
        self.name = f"{frame_a} - {frame_b if frame_b is not None else 'world'}"
        where = f"{type(self).__name__} {self.name}"
        self.target = None if target is None else _world_target(target, f"{where}: target")
        self.at = None if at is None else as_real(at, f"{where}: at", "a configuration q (numbers)", finite=True)

    def check(self, model):
        model.frame(self.frame_a)
        if self.frame_b is not None:
            model.frame(self.frame_b)

    def _target(self, model):
        """The world placement (4x4) frame_a is held to when frame_b is None."""
        if self.target is not None:                 # checked when made: a point (3,) or a rigid (4, 4)
            if self.target.shape == (4, 4):
                return self.target
            out = np.eye(4)
            out[:3, 3] = self.target
            return out
        if self.at is None:
            raise InputError(f"{type(self).__name__} {self.name}: with frame_b=None give target= (a world point "
                             f"or placement) or at=q (where frame_a is held)")
        return frame_placement(model, self.at, self.frame_a)

    def _placements(self, model, q):
        Ta = frame_placement(model, q, self.frame_a)
        Tb = self._target(model) if self.frame_b is None else frame_placement(model, q, self.frame_b)
        return Ta, Tb

    def _rel_jacobian(self, model, q):
        """J_a - J_b (6 x nv, world-aligned, each at its frame's origin): d/dt (p_a - p_b) and
        omega_a - omega_b."""
        Ja = jacobian(model, q, self.frame_a)
        return Ja if self.frame_b is None else Ja - jacobian(model, q, self.frame_b)

    def _rel_bias(self, model, q, v):
        """Jdot v of the same: the difference of the frames' classical accelerations at a = 0."""
        ba = jacobian_bias(model, q, v, self.frame_a)
        return ba if self.frame_b is None else ba - jacobian_bias(model, q, v, self.frame_b)


class Point(_Frames):
    """The origins of two frames coincide (3 rows: a ball joint, or a point contact that sticks).

    ``Point(frame_a, frame_b)``; ``Point(frame_a, target=(x, y, z))`` pins frame_a's origin to a
    world point, ``Point(frame_a, at=q)`` to where it is at configuration q. The multipliers are
    the force on frame_a's origin, world axes (the opposite acts on frame_b's origin).
    """

    rows = 3

    def phi(self, model, q):
        Ta, Tb = self._placements(model, q)
        return Ta[:3, 3] - Tb[:3, 3]

    def jacobian(self, model, q):
        return self._rel_jacobian(model, q)[3:]

    def bias(self, model, q, v):
        return self._rel_bias(model, q, v)[3:]

    def wrench(self, model, q, lam):
        return np.concatenate([np.zeros(3), lam])


class Weld(_Frames):
    """The two frames coincide (6 rows: a foot fixed on the ground, a loop cut at a rigid joint).

    ``phi = [log(R_a R_b^T); p_a - p_b]`` (world axes), ``J = J_a - J_b``: relative angular
    velocity and origin velocity. Multipliers: the wrench [moment about frame_a's origin; force]
    on frame_a, world axes.
    """

    rows = 6

    def phi(self, model, q):
        Ta, Tb = self._placements(model, q)
        return np.concatenate([_log3(Ta[:3, :3] @ Tb[:3, :3].T), Ta[:3, 3] - Tb[:3, 3]])

    def jacobian(self, model, q):
        return self._rel_jacobian(model, q)

    def bias(self, model, q, v):
        return self._rel_bias(model, q, v)

    def wrench(self, model, q, lam):
        return np.asarray(lam, dtype=float)


class Distance(_Frames):
    """The origins of two frames stay ``length`` apart (1 row: a rod with ball joints at its ends).

    ``phi = |p_a - p_b| - length``; frame_b None: a world point (``target``). The multiplier is
    the force along ``d = (p_a - p_b) / |p_a - p_b|`` on frame_a (positive: pushes a away from b).
    """

    rows = 1

    def __init__(self, frame_a: FrameLike, frame_b: FrameLike | None = None, length: float | None = None,
                 target: ArrayLike | None = None, at: ArrayLike | None = None) -> None:
        super().__init__(frame_a, frame_b, target, at)
        self.length = None if length is None else check_number(length, f"Distance {self.name}: length", positive=True)

    def _r(self, model, q):
        Ta, Tb = self._placements(model, q)
        r = Ta[:3, 3] - Tb[:3, 3]
        n = np.linalg.norm(r)
        if not n > 1e-12:
            raise InputError(f"Distance {self.name}: the two points coincide, the direction is undefined")
        return r, n

    def _length(self, model):
        if self.length is None:
            if self.at is None:
                raise InputError(f"Distance {self.name}: give length= or at=q")
            return float(np.linalg.norm(np.subtract(*[frame_placement(model, self.at, f)[:3, 3] if f is not None
                                                     else self._target(model)[:3, 3]
                                                     for f in (self.frame_a, self.frame_b)])))
        return self.length

    def _target(self, model):
        if self.target is None and self.frame_b is None:
            raise InputError(f"Distance {self.name}: with frame_b=None give target= (a world point)")
        return super()._target(model)

    def phi(self, model, q):
        _, n = self._r(model, q)
        return np.array([n - self._length(model)])

    def jacobian(self, model, q):
        r, n = self._r(model, q)
        return ((r / n) @ self._rel_jacobian(model, q)[3:])[None]

    def bias(self, model, q, v):
        r, n = self._r(model, q)
        d = r / n
        acc = self._rel_bias(model, q, v)[3:]
        rdot = self._rel_jacobian(model, q)[3:] @ v
        return np.array([d @ acc + (rdot @ rdot - (d @ rdot) ** 2) / n])

    def wrench(self, model, q, lam):
        r, n = self._r(model, q)
        return np.concatenate([np.zeros(3), lam[0] * r / n])


class Hinge(_Frames):
    """A revolute loop joint (5 rows): the origins coincide and ``axis`` (3-vector in frame_a's
    axes) of frame_a stays aligned with the same axis of frame_b; turning about it is free.

    Rows: the 3 of :class:`Point`, then the relative angular velocity along two unit vectors
    ``n1, n2`` normal to the axis (world). Multipliers: force (3), then the moments along n1, n2;
    :meth:`wrench` assembles the wrench [moment; force] on frame_a, world axes.
    """

    rows = 5

    def __init__(self, frame_a: FrameLike, frame_b: FrameLike | None = None, axis: ArrayLike = (0.0, 0.0, 1.0),
                 target: ArrayLike | None = None, at: ArrayLike | None = None) -> None:
        super().__init__(frame_a, frame_b, target, at)
        self.axis = _unit(axis, f"Hinge {self.name}: axis")
        a = self.axis
        t = np.array([1.0, 0.0, 0.0]) if abs(a[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
        n1 = np.cross(a, t)
        n1 /= np.linalg.norm(n1)
        self._n_local = np.stack([n1, np.cross(a, n1)])   # in frame_a's axes

    def _normals(self, model, q):
        Ta = frame_placement(model, q, self.frame_a)
        return self._n_local @ Ta[:3, :3].T              # rows n1, n2 in world axes

    def phi(self, model, q):
        # [n2 . a_b, -n1 . a_b] with a_b the axis as frame_b carries it: zero when aligned, and its
        # derivative there is [n1; n2] . (omega_a - omega_b), the rows of the Jacobian
        Ta, Tb = self._placements(model, q)
        N = self._normals(model, q)
        axis_b = Tb[:3, :3] @ self.axis
        return np.concatenate([Ta[:3, 3] - Tb[:3, 3], [N[1] @ axis_b, -(N[0] @ axis_b)]])

    def jacobian(self, model, q):
        J = self._rel_jacobian(model, q)
        return np.vstack([J[3:], self._normals(model, q) @ J[:3]])

    def bias(self, model, q, v):
        b = self._rel_bias(model, q, v)
        J = self._rel_jacobian(model, q)
        N = self._normals(model, q)
        wa = frame_velocity(model, q, v, self.frame_a)[:3]
        Ndot = np.cross(wa, N)                           # d/dt n_k = omega_a x n_k
        return np.concatenate([b[3:], N @ b[:3] + Ndot @ (J[:3] @ v)])

    def wrench(self, model, q, lam):
        N = self._normals(model, q)
        return np.concatenate([N.T @ lam[3:], lam[:3]])


class Coupling(Constraint):
    """``q_a = ratio q_b + offset`` between two 1-dof joints (1 row): gears, belts, URDF ``<mimic>``.

    The multiplier is the generalized force on joint_a (and ``-ratio`` times it on joint_b).
    """

    rows = 1

    def __init__(self, joint_a: str | int, joint_b: str | int, ratio: float = 1.0, offset: float = 0.0) -> None:
        self.joint_a, self.joint_b = named(joint_a, "Coupling: joint_a", "joint"), named(joint_b, "Coupling: joint_b",
                                                                                        "joint")
        self.ratio = check_number(ratio, f"Coupling {joint_a} - {joint_b}: ratio")
        self.offset = check_number(offset, f"Coupling {joint_a} - {joint_b}: offset")
        self.name = f"{joint_a} = {self.ratio:g} {joint_b} + {self.offset:g}"
        if isinstance(joint_a, type(joint_b)) and isinstance(joint_a, (str, int)) and joint_a == joint_b:
            self._same_joint(joint_a)

    def _same_joint(self, joint):
        """A joint coupled to itself is no relation between two joints: with ratio 1 its row is
        zero (a redundant constraint), otherwise it silently pins the joint."""
        raise InputError(f"Coupling {self.name}: joint_a and joint_b are the same joint '{joint}'; a coupling "
                         f"relates two different 1-dof joints (to hold one joint, use JointPath)")

    def _dofs(self, model):
        out = []
        for j in (self.joint_a, self.joint_b):
            i = model.joint_id(j)
            if model.joint_type[i] not in (REVOLUTE, PRISMATIC):
                raise ModelError(f"Coupling {self.name}: joint '{j}' is {model.joint_kind[i]}; a coupling needs "
                                 f"1-dof (revolute, continuous or prismatic) joints")
            out.append((int(model.idx_q[i]), int(model.idx_v[i])))
        return out

    def check(self, model):
        (qa, _), (qb, _) = self._dofs(model)
        if qa == qb:                                 # a name and a number of the same joint
            self._same_joint(model.joint_names[model.joint_id(self.joint_a)])

    def phi(self, model, q):
        (qa, _), (qb, _) = self._dofs(model)
        q = np.asarray(q, dtype=float)
        return np.array([q[qa] - self.ratio * q[qb] - self.offset])

    def jacobian(self, model, q):
        (_, va), (_, vb) = self._dofs(model)
        J = np.zeros((1, model.nv))
        J[0, va] += 1.0
        J[0, vb] -= self.ratio
        return J

    def bias(self, model, q, v):
        return np.zeros(1)


class Holonomic(Constraint):
    """A user constraint ``phi(q) = 0`` (m rows) with an optional ``jacobian(q)`` (m x nv).

    Without it, J is taken by complex step on the vector entries of q (exact to rounding for an
    analytic phi) and by central differences along the manifold for spherical and free joints;
    ``Jdot v`` by central differences of ``J v`` along ``q (+) s v`` (about 1e-8 relative).
    """

    def __init__(self, phi: Callable[[Array], ArrayLike], jacobian: Callable[[Array], ArrayLike] | None = None,
                 rows: int | None = None, name: str = "holonomic") -> None:
        if not callable(phi):
            raise InputError("Holonomic: phi must be a function of q")
        self._phi, self._jac, self.name = phi, jacobian, name
        self.rows = rows

    def check(self, model):
        from ..configuration import neutral
        if self.rows is None:
            self.rows = int(np.size(self._phi(neutral(model))))

    def phi(self, model, q):
        return np.atleast_1d(as_real(self._phi(np.asarray(q, dtype=float)), f"Holonomic {self.name}: phi(q)",
                                     "numbers (the constraint's values)"))

    def jacobian(self, model, q):
        if self._jac is not None:
            return np.atleast_2d(as_real(self._jac(np.asarray(q, dtype=float)), f"Holonomic {self.name}: jacobian(q)",
                                         "numbers (m x nv)"))
        q = np.asarray(q, dtype=float)
        m = self.phi(model, q).size
        J = np.zeros((m, model.nv))
        flat = _flat_dofs(model)
        h = 1e-20
        for k in range(model.nv):
            if k in flat:
                qc = q.astype(complex)
                qc[flat[k]] += 1j * h
                try:
                    J[:, k] = np.imag(np.asarray(self._phi(qc))) / h
                    continue
                except (TypeError, ValueError):
                    pass
            e = np.zeros(model.nv)
            e[k] = 1e-6
            J[:, k] = (self.phi(model, integrate(model, q, e)) - self.phi(model, integrate(model, q, -e))) / 2e-6
        return J

    def bias(self, model, q, v):
        v = np.asarray(v, dtype=float)
        s = 1e-5 / max(1.0, float(np.linalg.norm(v)))
        qp, qm = integrate(model, q, s * v), integrate(model, q, -s * v)
        return (self.jacobian(model, qp) @ v - self.jacobian(model, qm) @ v) / (2 * s)


def _flat_dofs(model):
    """{v index: q index} of the revolute / prismatic dofs (where q and v entries agree)."""
    out = {}
    for i in range(1, model.nb + 1):
        if model.joint_type[i] in (REVOLUTE, PRISMATIC):
            out[int(model.idx_v[i])] = int(model.idx_q[i])
    return out
