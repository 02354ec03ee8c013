"""Compiled joint controllers for :func:`artidyn.sim.simulate`: PD and computed torque; and
prescribed motions (:class:`Prescribed`), which the engine follows exactly by hybrid dynamics.

Both act on the actuated dofs only (``model.actuated``) and add to the ``tau`` input::

    PD                 tau = kp (q_ref (-) q) + kd (v_ref - v)
    computed torque    tau = rnea(q, v, a_ref + kd (v_ref - v) + kp (q_ref (-) q))

with ``q_ref (-) q`` = :func:`artidyn.difference` ``(q, q_ref)`` (on the manifold). The reference
is a constant posture or a table over time ``t_ref`` (K,), ``q_ref`` (K, nq), ``v_ref``,
``a_ref`` (K, nv), read by linear interpolation (``q`` along the manifold): sample it finely
(e.g. :func:`artidyn.sim.quintic_motion` every millisecond). Computed torque with exact model
knowledge gives the error dynamics ``e'' + kd e' + kp e = 0`` (Khalil & Dombre, "Modeling,
Identification and Control of Robots", sec. 14.4); the torque-free dofs of a floating base
cannot follow it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..configuration import as_q
from ..errors import InputError, ShapeError, as_real

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Model

PD_CODE, COMPUTED_TORQUE_CODE, PRESCRIBED_CODE = 1, 2, 3   # as artidyn.kernels.slots


class _Tracking:
    code = 0

    def __init__(self, kp, kd, q_ref, v_ref=None, a_ref=None, t_ref=None):
        self.kp, self.kd = kp, kd
        self.q_ref, self.v_ref, self.a_ref, self.t_ref = q_ref, v_ref, a_ref, t_ref

    def __repr__(self):
        ref = "constant" if self.t_ref is None else f"{np.size(self.t_ref)} samples"
        return f"{type(self).__name__}(kp={self.kp!r}, kd={self.kd!r}, reference {ref})"

    def tables(self, model):
        """(gains (5, nv), t_ref (K,), q_ref (K, nq), v_ref (K, nv), a_ref (K, nv)) for the engine;
        gains rows: kp, kd, actuated (0/1), joint damping, Coulomb friction."""
        nv = model.nv
        gains = np.zeros((5, nv))
        for row, (name, g) in enumerate((("kp", self.kp), ("kd", self.kd))):
            where = f"{type(self).__name__}: {name}"
            g = as_real(g, where, f"a number or {nv} numbers (gains)")
            arr = np.broadcast_to(g, (nv,)) if g.ndim in (0, 1) and g.size in (1, nv) else None
            if arr is None:
                raise ShapeError(f"{where} must be a number or {nv} numbers (one per dof of '{model.name}'), got shape "
                                 f"{g.shape}")
            if not np.all(np.isfinite(arr)):
                raise InputError(f"{where} contains NaN or infinite values")
            if np.any(arr < 0):
                k = int(np.flatnonzero(arr < 0)[0])
                raise InputError(f"{where} must be >= 0 (a negative gain drives away from the reference), got "
                                 f"{arr[k]:g} for dof {k}")
            gains[row] = arr
        gains[2] = np.asarray(model.actuated, dtype=float)
        gains[3], gains[4] = model.damping, model.coulomb
        single = self.t_ref is None
        Q, _ = as_q(model, self.q_ref, "q_ref")
        K = Q.shape[0]
        if single and K != 1:
            raise ShapeError(f"{type(self).__name__}: q_ref has {K} rows; give t_ref (one time per row)")
        t = np.zeros(1) if single else np.asarray(self.t_ref, dtype=float).ravel()
        if t.size != K:
            raise ShapeError(f"{type(self).__name__}: t_ref has {t.size} times for {K} rows of q_ref")
        if not single and (not np.all(np.isfinite(t)) or np.any(np.diff(t) <= 0)):
            raise InputError(f"{type(self).__name__}: t_ref must be finite and strictly increasing")
        out = [gains, t, np.ascontiguousarray(Q, dtype=float)]
        for name, x in (("v_ref", self.v_ref), ("a_ref", self.a_ref)):
            x = np.zeros((K, nv)) if x is None else np.asarray(x, dtype=float).reshape(-1, nv) \
                if np.size(x) == K * nv else None
            if x is None:
                raise ShapeError(f"{type(self).__name__}: {name} must have {K} rows of nv = {nv} entries")
            if not np.all(np.isfinite(x)):
                raise InputError(f"{type(self).__name__}: {name} contains NaN or infinite values")
            out.append(np.ascontiguousarray(x))
        return tuple(out)


class PD(_Tracking):
    """Joint PD control towards ``q_ref`` (and ``v_ref``): ``tau = kp (q_ref (-) q) + kd (v_ref - v)``.

    ``kp``, ``kd``: numbers or (nv,) gains (N·m/rad, N·m·s/rad). ``q_ref`` (nq,) or (K, nq) with
    ``t_ref`` (K,); ``v_ref`` (K, nv) optional (zero). With ``method="implicit"`` the damping
    ``kd`` is integrated implicitly, like the joint damping.
    """

    code = PD_CODE

    def __init__(self, kp: ArrayLike, kd: ArrayLike, q_ref: ArrayLike, v_ref: ArrayLike | None = None,
                 t_ref: ArrayLike | None = None) -> None:
        super().__init__(kp, kd, q_ref, v_ref, None, t_ref)


class ComputedTorque(_Tracking):
    """Computed-torque (inverse dynamics) control: ``tau = rnea(q, v, a_ref + kd (v_ref - v) +
    kp (q_ref (-) q))``, friction compensated when the simulation has friction.

    ``q_ref`` (nq,) or (K, nq) with ``t_ref`` (K,); ``v_ref``, ``a_ref`` (K, nv) optional (zero).
    """

    code = COMPUTED_TORQUE_CODE

    @classmethod
    def tracking(cls, model: Model, q_start: ArrayLike, q_goal: ArrayLike, duration: float, kp: ArrayLike,
                 kd: ArrayLike, t_final: float | None = None, dt: float = 1e-3) -> ComputedTorque:
        """Track the rest-to-rest quintic from ``q_start`` to ``q_goal`` in ``duration`` s,
        sampled every ``dt`` up to ``t_final`` (default: the duration), then hold the goal."""
        from .trajectories import quintic_motion

        t_final = duration if t_final is None else max(t_final, duration)
        t = np.linspace(0.0, t_final, int(round(t_final / dt)) + 1)
        q, v, a = quintic_motion(model, q_start, q_goal, duration, np.minimum(t, duration))
        return cls(kp, kd, q, v, a, t)


class Prescribed(_Tracking):
    """A prescribed motion of some joints, the others free: the engine sets the named joints'
    ``(q, v)`` to the motion's at every stage and integrates the rest by hybrid dynamics
    (Featherstone, "Rigid Body Dynamics Algorithms", sec. 9.2: ``a`` given on the prescribed
    dofs, ``tau`` on the others), so that ``result.tau`` holds, on the prescribed dofs, the
    torques their motion needs. The classic uses: a pendulum on a driven cart or a shaken base; a
    floating robot whose joints follow a planned motion while its base floats (a space robot, a
    cat turning in the air).

    ``joints``: the prescribed joints' names (each wholly; a floating base ``root_joint`` too).
    ``q_ref`` (nq,) (the joints held there) or (K, nq) with ``t_ref`` (K,): configurations of the
    whole model, of which only the prescribed joints' entries are read; ``v_ref``, ``a_ref``
    (K, nv): their velocities and accelerations (by default from ``q_ref`` by finite
    differences, :func:`artidyn.sim.velocities_from_positions`; give them exact when known, e.g.
    from :func:`artidyn.sim.quintic_motion`). Between samples q moves along the manifold and v, a
    linearly. Runs with ``method`` "rk4", "semi-implicit" or "dopri5", without ``contact=`` or
    ``constraints=``; the torque input ``tau`` acts on the free dofs.
    """

    code = PRESCRIBED_CODE

    def __init__(self, joints, q_ref: ArrayLike, v_ref: ArrayLike | None = None, a_ref: ArrayLike | None = None,
                 t_ref: ArrayLike | None = None) -> None:
        names = [joints] if isinstance(joints, str) else list(joints) if isinstance(joints, (list, tuple)) else []
        if not names or not all(isinstance(n, str) for n in names):
            raise InputError(f"Prescribed: joints must be a joint name or a list of joint names, got {joints!r}")
        self.joints = names
        super().__init__(0.0, 0.0, q_ref, v_ref, a_ref, t_ref)

    def __repr__(self):
        ref = "constant" if self.t_ref is None else f"{np.size(self.t_ref)} samples"
        return f"Prescribed({self.joints!r}, reference {ref})"

    def tables(self, model):
        """As the controllers' (gains' actuated row: 1 on the prescribed dofs)."""
        mask = np.zeros(model.nv)
        for name in self.joints:
            if name not in model.joint_names[1:]:
                from ..errors import unknown_name
                raise unknown_name("Prescribed: joint", name, model.joint_names[1:], model.name)
            mask[model.v_slice(name)] = 1.0
        v_ref, a_ref = self.v_ref, self.a_ref
        if self.t_ref is not None and (v_ref is None or a_ref is None):
            from .trajectories import velocities_from_positions
            Q, _ = as_q(model, self.q_ref, "Prescribed: q_ref")
            t = np.asarray(self.t_ref, dtype=float).ravel()
            if t.size != Q.shape[0] or t.size < 3:
                raise ShapeError(f"Prescribed: t_ref has {t.size} times for {Q.shape[0]} rows of q_ref (at least 3 "
                                 f"samples to estimate v_ref and a_ref; or give them)")
            v_est, a_est = velocities_from_positions(model, t, Q)
            v_ref = v_est if v_ref is None else v_ref
            a_ref = a_est if a_ref is None else a_ref
        gains, *ref = _Tracking(0.0, 0.0, self.q_ref, v_ref, a_ref, self.t_ref).tables(model)
        gains[2] = mask
        return (gains, *ref)
