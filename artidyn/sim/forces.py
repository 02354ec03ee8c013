"""Force elements: drag on bodies, nonlinear point-to-point springs, nonlinear joint springs.

A list of elements passed to :func:`~artidyn.simulate` or :func:`~artidyn.rollout`
(``forces=[...]``) adds, at every evaluation of the dynamics, the wrenches the elements put on
the bodies (body frames, about the body origins, as ``f_ext``). Each element is evaluated from
the state alone::

    Drag          f = -(c1 + c2 |v_rel|) v_rel        at a point of the body, v_rel = v_point - v_fluid
                  m = -(a1 + a2 |omega|) omega        (rotational drag, body axes)
    Spring        T = F(l - l0) + c dl/dt             tension along the line between two points,
                  F(x) = k1 x + k2 x^2 + k3 x^3 + ... or a tabulated tension-length curve
    JointSpring   tau = -(k1 x + k2 x^2 + k3 x^3 + ...) - c qdot,  x = q - rest   (1-dof joints)

The drag laws are the linear (Stokes) and quadratic (Newton) drag of a body in a fluid at rest or
in a uniform wind (e.g. Hoerner, "Fluid-Dynamic Drag", ch. 1 and 3), the quadratic one with
``c2 = 1/2 rho C_d A``; the cubic spring is Duffing's (Nayfeh & Mook, "Nonlinear Oscillations",
sec. 4.1). A joint spring acts as a pair of opposite wrenches on the joint's two bodies, whose
generalized force is ``tau`` on the joint's dof alone.

This module holds the element classes with their checks, their packing into the float table the
compiled input stage reads (:mod:`artidyn.kernels.forces`), and the readable evaluation
(:func:`element_wrenches`, :func:`element_potential`) that the tests hold the compiled one against.
"""
import numpy as np

from ..errors import InputError
from ..joints import PRISMATIC, REVOLUTE

# the float table's layout (one row per element): artidyn.kernels.slots (numbers only, no numba)
from ..kernels.slots import (FE_A1 as D_A1, FE_A2 as D_A2, FE_BODY_A as BODY_A, FE_BODY_B as BODY_B,
                             FE_C1 as D_C1, FE_C2 as D_C2, FE_DAMP as S_DAMP, FE_DATA as DATA, FE_DRAG as DRAG,
                             FE_IQ as J_IQ, FE_IV as J_IV, FE_JOINT_SPRING as JOINT_SPRING, FE_KIND as KIND,
                             FE_LAW as S_LAW, FE_N as S_N, FE_PA as S_PA, FE_PB as S_PB, FE_POINT as D_POINT,
                             FE_POLY as POLY, FE_REST as S_REST, FE_SLIDES as J_SLIDES, FE_SPRING as SPRING,
                             FE_TABLE as TABLE, FE_WIND as D_WIND)


def _vec3(x, what, nonneg=False):
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{what}: a number or 3 numbers, got {x!r}") from None
    if a.ndim == 0:
        a = np.full(3, float(a))
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise InputError(f"{what}: a finite number or 3 finite numbers, got {x!r}")
    if nonneg and np.any(a < 0):
        raise InputError(f"{what}: must be >= 0 (a negative coefficient puts energy in), got {x!r}")
    return a


def _number(x, what, nonneg=True):
    try:
        a = float(x)
    except (TypeError, ValueError):
        raise InputError(f"{what}: a number, got {x!r}") from None
    if not np.isfinite(a) or (nonneg and a < 0):
        raise InputError(f"{what}: a finite number{' >= 0' if nonneg else ''}, got {x!r}")
    return a


def _coefficients(x, what):
    """k1, k2, ... of a polynomial law (a number: k1 alone); finite, k1 >= 0."""
    try:
        k = np.atleast_1d(np.asarray(x, dtype=float))
    except (TypeError, ValueError):
        raise InputError(f"{what}: a number or a sequence of numbers (k1, k2, k3, ...), got {x!r}") from None
    if k.ndim != 1 or k.size == 0 or not np.all(np.isfinite(k)):
        raise InputError(f"{what}: a number or a 1-D sequence of finite numbers (k1, k2, k3, ...), got {x!r}")
    if k[0] < 0:
        raise InputError(f"{what}: the linear coefficient k1 must be >= 0, got {k[0]:g}")
    return k


def _body(model, name, what, world=False):
    try:
        i = model.body_id(name)
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise InputError(f"{what}: {e.args[0] if e.args else e}") from None
    if i == 0 and not world:
        raise InputError(f"{what}: the world does not move; name a moving body of '{model.name}'")
    return i


def _poly(k, x):
    """k1 x + k2 x^2 + ... (Horner)."""
    s = 0.0
    for c in k[::-1]:
        s = (s + c) * x
    return s


def _poly_integral(k, x):
    """k1 x^2 / 2 + k2 x^3 / 3 + ..."""
    return sum(c * x ** (n + 2) / (n + 2) for n, c in enumerate(k))


class Drag:
    """Linear and quadratic drag of a fluid on a body, at a point of it (and about it).

    ``f = -(c1 + c2 |v_rel|) v_rel`` with ``v_rel`` the velocity of ``point`` (body frame) relative
    to the fluid, whose velocity ``fluid_velocity`` (world frame, a uniform wind) defaults to rest;
    ``c1`` (N s/m, Stokes drag) and ``c2`` (N s^2/m^2, Newton drag: ``1/2 rho C_d A``) are numbers
    or 3 numbers per body axis (the law taken axis by axis in the body frame, with the common
    ``|v_rel|``). ``angular_linear`` and ``angular_quadratic`` (N m s, N m s^2) likewise give the
    moment ``-(a1 + a2 |omega|) omega`` on the body. Coefficients must be >= 0.
    """

    def __init__(self, body, linear=0.0, quadratic=0.0, point=(0.0, 0.0, 0.0), angular_linear=0.0,
                 angular_quadratic=0.0, fluid_velocity=(0.0, 0.0, 0.0)):
        what = f"Drag on {body!r}"
        self.body = body
        self.linear = _vec3(linear, f"{what}: linear", True)
        self.quadratic = _vec3(quadratic, f"{what}: quadratic", True)
        self.point = _vec3(point, f"{what}: point")
        self.angular_linear = _vec3(angular_linear, f"{what}: angular_linear", True)
        self.angular_quadratic = _vec3(angular_quadratic, f"{what}: angular_quadratic", True)
        self.fluid_velocity = _vec3(fluid_velocity, f"{what}: fluid_velocity")

    def __repr__(self):
        return f"Drag({self.body!r}, linear={self.linear.tolist()}, quadratic={self.quadratic.tolist()})"

    def row(self, model):
        r = np.zeros(DATA)
        r[KIND], r[BODY_A] = DRAG, _body(model, self.body, f"Drag on {self.body!r}: body")
        r[D_POINT:D_POINT + 3], r[D_C1:D_C1 + 3], r[D_C2:D_C2 + 3] = self.point, self.linear, self.quadratic
        r[D_A1:D_A1 + 3], r[D_A2:D_A2 + 3] = self.angular_linear, self.angular_quadratic
        r[D_WIND:D_WIND + 3] = self.fluid_velocity
        return r


class Spring:
    """A nonlinear spring-damper between a point of ``body_a`` and a point of ``body_b``.

    The tension along the line from one point to the other is ``T = F(l - rest_length) + damping
    dl/dt`` (positive: it pulls the points together), with ``F(x) = k1 x + k2 x^2 + k3 x^3 + ...``
    for ``stiffness=(k1, k2, k3, ...)`` (a number: a linear spring; ``(k1, 0, k3)``: Duffing's
    hardening spring) or, with ``table`` (n, 2) of rows ``(length, tension)`` at increasing
    lengths, the tension interpolated linearly in the length (held beyond the ends). ``body_b``
    may be ``"world"`` (then ``point_b`` is a fixed world point). Points are in the bodies' frames.
    At zero length the line has no direction and the spring gives no force. ``damping`` >= 0 and
    ``k1`` >= 0 (higher coefficients may be negative: a softening spring).
    """

    def __init__(self, body_a, point_a=(0.0, 0.0, 0.0), body_b="world", point_b=(0.0, 0.0, 0.0),
                 stiffness=0.0, rest_length=0.0, damping=0.0, table=None):
        what = f"Spring {body_a!r}-{body_b!r}"
        self.body_a, self.body_b = body_a, body_b
        self.point_a = _vec3(point_a, f"{what}: point_a")
        self.point_b = _vec3(point_b, f"{what}: point_b")
        self.rest_length = _number(rest_length, f"{what}: rest_length")
        self.damping = _number(damping, f"{what}: damping")
        self.table = None
        if table is not None:
            if np.any(np.atleast_1d(np.asarray(stiffness, dtype=object)) != 0):
                raise InputError(f"{what}: give either stiffness or table, not both")
            try:
                tb = np.asarray(table, dtype=float)
            except (TypeError, ValueError):
                raise InputError(f"{what}: table must be (n, 2) numbers (length, tension)") from None
            if tb.ndim != 2 or tb.shape[1] != 2 or tb.shape[0] < 2 or not np.all(np.isfinite(tb)):
                raise InputError(f"{what}: table must be (n, 2) finite rows (length, tension), n >= 2; got shape "
                                 f"{tb.shape}")
            if np.any(np.diff(tb[:, 0]) <= 0) or tb[0, 0] < 0:
                raise InputError(f"{what}: table lengths must be >= 0 and strictly increasing")
            self.table, self.stiffness = tb, None
        else:
            self.stiffness = _coefficients(stiffness, f"{what}: stiffness")

    def __repr__(self):
        law = f"table={self.table.shape[0]} rows" if self.table is not None else f"stiffness={self.stiffness.tolist()}"
        return f"Spring({self.body_a!r}, {self.body_b!r}, {law}, rest_length={self.rest_length:g})"

    def tension(self, length):
        """The elastic tension at a length (no damping)."""
        if self.table is None:
            return _poly(self.stiffness, length - self.rest_length)
        return float(np.interp(length, self.table[:, 0], self.table[:, 1]))

    def energy(self, length):
        """The elastic energy ``integral of F`` from the rest length (table: from its first length)."""
        if self.table is None:
            return _poly_integral(self.stiffness, length - self.rest_length)
        L, T = self.table[:, 0], self.table[:, 1]
        x = np.concatenate([L[L < length], [length]]) if length > L[0] else np.array([L[0], length])
        return float(np.trapezoid(np.interp(x, L, T), x))

    def row(self, model):
        what = f"Spring {self.body_a!r}-{self.body_b!r}"
        data = self.stiffness if self.table is None else np.concatenate([self.table[:, 0], self.table[:, 1]])
        r = np.zeros(DATA + data.size)
        r[KIND], r[BODY_A] = SPRING, _body(model, self.body_a, f"{what}: body_a")
        r[BODY_B] = _body(model, self.body_b, f"{what}: body_b", world=True)
        r[S_PA:S_PA + 3], r[S_PB:S_PB + 3] = self.point_a, self.point_b
        r[S_REST], r[S_DAMP] = self.rest_length, self.damping
        r[S_LAW] = POLY if self.table is None else TABLE
        r[S_N] = data.size if self.table is None else self.table.shape[0]
        r[DATA:] = data
        return r


class JointSpring:
    """A nonlinear spring-damper on a 1-dof joint (revolute, continuous or prismatic):
    ``tau = -(k1 x + k2 x^2 + k3 x^3 + ...) - damping qdot``, ``x = q - rest``
    (a Duffing joint for ``stiffness=(k1, 0, k3)``), beside the model's own linear joint springs."""

    def __init__(self, joint, stiffness=0.0, rest=0.0, damping=0.0):
        what = f"JointSpring on {joint!r}"
        self.joint = joint
        self.stiffness = _coefficients(stiffness, f"{what}: stiffness")
        self.rest = _number(rest, f"{what}: rest", nonneg=False)
        self.damping = _number(damping, f"{what}: damping")

    def __repr__(self):
        return f"JointSpring({self.joint!r}, stiffness={self.stiffness.tolist()}, rest={self.rest:g})"

    def torque(self, q, qd):
        return -_poly(self.stiffness, q - self.rest) - self.damping * qd

    def energy(self, q):
        return _poly_integral(self.stiffness, q - self.rest)

    def row(self, model):
        what = f"JointSpring on {self.joint!r}"
        try:
            i = model.joint_id(self.joint)
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise InputError(f"{what}: joint: {e.args[0] if e.args else e}") from None
        if i == 0 or model.joint_type[i] not in (REVOLUTE, PRISMATIC):
            raise InputError(f"{what}: joint: a revolute, continuous or prismatic joint, got "
                             f"{model.joint_kind[i] if i else 'the world'}")
        r = np.zeros(DATA + self.stiffness.size)
        r[KIND], r[BODY_A], r[BODY_B] = JOINT_SPRING, i, model.parent[i]
        r[J_IV], r[J_IQ], r[J_SLIDES] = model.idx_v[i], model.idx_q[i], model.joint_type[i] == PRISMATIC
        r[S_REST], r[S_DAMP], r[S_LAW], r[S_N] = self.rest, self.damping, POLY, self.stiffness.size
        r[DATA:] = self.stiffness
        return r


ELEMENTS = (Drag, Spring, JointSpring)


def check_forces(forces, where="simulate"):
    """The elements as a tuple (None or [] -> ()); InputError for anything else."""
    if forces is None:
        return ()
    if isinstance(forces, ELEMENTS):
        forces = [forces]
    try:
        items = tuple(forces)
    except TypeError:
        raise InputError(f"{where}: forces must be a list of Drag, Spring or JointSpring elements, got "
                         f"{type(forces).__name__}") from None
    for k, e in enumerate(items):
        if not isinstance(e, ELEMENTS):
            raise InputError(f"{where}: forces[{k}] must be a Drag, Spring or JointSpring (artidyn.sim.forces), got "
                             f"{type(e).__name__}")
    return items


def pack_forces(model, forces):
    """The float table (n, width) of the elements for the compiled input stage (rows padded with
    zeros to the widest); (0, DATA) without elements (one compiled specialization either way)."""
    rows = [e.row(model) for e in check_forces(forces)]
    width = max([DATA] + [r.size for r in rows])
    FE = np.zeros((len(rows), width))
    for k, r in enumerate(rows):
        FE[k, :r.size] = r
    return FE


# --- the readable evaluation ----------------------------------------------------------------------

def _point(T, twist, p):
    """World position and world velocity of the body-frame point p (T: placement; twist: body frame)."""
    R = T[:3, :3]
    return T[:3, 3] + R @ p, R @ (twist[3:] + np.cross(twist[:3], p))


def element_wrenches(model, forces, q, v):
    """F (nb+1, 6): the elements' wrenches on every body (body frames, about their origins) at (q, v)."""
    from ..kinematics import body_placements, body_velocities

    items = check_forces(forces)
    F = np.zeros((model.nb + 1, 6))
    if not items:
        return F
    T, Vb = body_placements(model, q), body_velocities(model, q, v)

    def push(i, p, f_world):
        if i == 0:
            return
        fb = T[i, :3, :3].T @ f_world
        F[i, :3] += np.cross(p, fb)
        F[i, 3:] += fb

    for e in items:
        if isinstance(e, Drag):
            i = model.body_id(e.body)
            R = T[i, :3, :3]
            _, vp = _point(T[i], Vb[i], e.point)
            vr = R.T @ (vp - e.fluid_velocity)
            fb = -(e.linear + e.quadratic * np.linalg.norm(vr)) * vr
            w = Vb[i, :3]
            F[i, :3] += np.cross(e.point, fb) - (e.angular_linear + e.angular_quadratic * np.linalg.norm(w)) * w
            F[i, 3:] += fb
        elif isinstance(e, Spring):
            ia, ib = model.body_id(e.body_a), model.body_id(e.body_b)
            xa, va = _point(T[ia], Vb[ia], e.point_a)
            xb, vb = _point(T[ib], Vb[ib], e.point_b)
            d = xb - xa
            length = np.linalg.norm(d)
            if length < 1e-12:
                continue
            u = d / length
            tension = e.tension(length) + e.damping * float(u @ (vb - va))
            push(ia, e.point_a, tension * u)
            push(ib, e.point_b, -tension * u)
        else:
            i = model.joint_id(e.joint)
            k, kq = model.idx_v[i], model.idx_q[i]
            tau = e.torque(q[kq], v[k])
            S = np.zeros(6)
            slides = model.joint_type[i] == PRISMATIC
            S[3 if slides else 0:6 if slides else 3] = model.joint_axis[i]
            F[i] += tau * S                              # on the child, in its frame
            p = model.parent[i]
            if p > 0:                                    # the reaction on the parent, in its frame
                Tup = np.linalg.inv(T[p]) @ T[i]
                R, o = Tup[:3, :3], Tup[:3, 3]
                m, f = R @ (tau * S[:3]), R @ (tau * S[3:])
                F[p, :3] -= m + np.cross(o, f)
                F[p, 3:] -= f
    return F


def element_potential(model, forces, q):
    """The elastic energy stored in the springs and joint springs at q (drag stores none)."""
    from ..kinematics import body_placements

    items = check_forces(forces)
    if not items:
        return 0.0
    T = body_placements(model, q)
    U = 0.0
    for e in items:
        if isinstance(e, Spring):
            ia, ib = model.body_id(e.body_a), model.body_id(e.body_b)
            xa = T[ia, :3, 3] + T[ia, :3, :3] @ e.point_a
            xb = T[ib, :3, 3] + T[ib, :3, :3] @ e.point_b
            U += e.energy(float(np.linalg.norm(xb - xa)))
        elif isinstance(e, JointSpring):
            U += e.energy(q[model.idx_q[model.joint_id(e.joint)]])
    return U


def element_power(model, forces, q, v):
    """The power of the elements' wrenches at (q, v): ``sum_i F_i . twist_i``."""
    from ..kinematics import body_velocities

    F = element_wrenches(model, forces, q, v)
    return float(np.sum(F * body_velocities(model, q, v)))
