"""Mimic joints as reduced coordinates: joints whose value is an affine function of another's.

A URDF ``<mimic joint="b" multiplier="r" offset="o">`` on joint ``a`` (or a
:class:`~artidyn.constraints.Coupling` ``q_a = r q_b + o``) is a linear holonomic constraint. The
constraint route keeps ``q_a`` as a coordinate and imposes it with a multiplier; here it is
eliminated: the *independent* coordinates ``q_r`` (every flat dof but the mimicking ones) give
the tree's

    q = E q_r + o,   v = E v_r,   a = E a_r,

``E`` (nv x nv_r) a selection matrix with the multipliers in the mimicking rows. The reduced
equations of motion are the tree's projected on the constraint manifold (Lagrange's equations in
the independent coordinates; Featherstone, "Rigid Body Dynamics Algorithms", section 8.2, the
closed-loop systems of linear constraints, ``G``):

    M_r = E^T M(q) E,   tau_r = E^T rnea(q, E v_r, E a_r),   h_r = E^T rnea(q, E v_r, 0).

A torque ``tau_r`` acts on each independent coordinate; an actuator on a mimicking joint adds
``r`` times its torque to its master's. Only flat (revolute, continuous, prismatic) joints can
mimic or be mimicked here, and mimics may chain (``a`` mimics ``b`` mimics ``c``).
"""
import numpy as np

from .errors import InputError, ModelError
from .joints import FLAT


class MimicReduced:
    """A tree :class:`~artidyn.Model` ``full`` with its coupled joints eliminated.

    Attributes: ``full`` (the tree, every joint a coordinate), ``nq``, ``nv`` (independent
    coordinates), ``E`` (full nv x nv), ``offset`` (full nq), ``independent`` (the full-model
    index of each independent coordinate), ``joint_names`` (their joints), ``mimic``
    (``{joint: (master, multiplier, offset)}`` resolved to independent masters).

    ``rnea``, ``aba``, ``crba``, ``body_placements``, ``jacobian`` take and return reduced
    quantities (a Jacobian maps ``v_r``); ``expand_q``, ``expand_v``, ``reduce_q`` convert;
    ``simulate`` integrates the reduced equations (classical RK4, fixed step).
    The full model has no quaternion (a mimicking model with a floating base: the free joint is
    an independent block like any other, since E is the identity there).
    """

    def __init__(self, full, couplings):
        self.full = full
        rel = {}
        for a, b, r, o in couplings:
            for j in (a, b):
                i = full.joint_id(j)
                if full.joint_type[i] not in FLAT or full.nv_joint[i] != 1:
                    raise ModelError(f"mimic reduction: joint '{j}' is {full.joint_kind[i]}; only 1-dof "
                                     f"revolute, continuous and prismatic joints can mimic or be mimicked")
            if a in rel:
                raise ModelError(f"mimic reduction: joint '{a}' mimics two joints ('{rel[a][0]}', '{b}')")
            rel[a] = (b, float(r), float(o))
        resolved = {}
        for a in rel:           # follow chains a -> b -> c to an independent master
            b, r, o = rel[a]
            seen = {a}
            while b in rel:
                if b in seen:
                    raise ModelError(f"mimic reduction: the mimic joints {sorted(seen)} form a cycle")
                seen.add(b)
                b2, r2, o2 = rel[b]
                b, r, o = b2, r * r2, r * o2 + o
            resolved[a] = (b, r, o)
        self.mimic = resolved
        dof_q = {full.joint_names[i]: int(full.idx_q[i]) for i in range(1, full.nb + 1)}
        dof_v = {full.joint_names[i]: int(full.idx_v[i]) for i in range(1, full.nb + 1)}
        dependent = {dof_v[a] for a in resolved}
        self.independent = np.array([k for k in range(full.nv) if k not in dependent], dtype=int)
        self.nv = len(self.independent)
        column = {int(k): c for c, k in enumerate(self.independent)}
        E = np.zeros((full.nv, self.nv))
        E[self.independent, np.arange(self.nv)] = 1.0
        off = np.zeros(full.nq)
        for a, (b, r, o) in resolved.items():
            E[dof_v[a], column[dof_v[b]]] = r
            off[dof_q[a]] = o
        self.E, self.offset = E, off
        # q and v indices coincide on flat joints; the free joint (q 7, v 6) shifts the rest alike
        if full.nq != full.nv:
            qv = np.zeros(full.nq, dtype=bool)
            for i in range(1, full.nb + 1):
                if full.joint_type[i] in FLAT:
                    qv[full.idx_q[i]:full.idx_q[i] + full.nq_joint[i]] = True
            self._q_independent = np.array([k for k in range(full.nq)
                                            if not (qv[k] and k in {dof_q[a] for a in resolved})], dtype=int)
        else:
            self._q_independent = self.independent.copy()
        self.nq = len(self._q_independent)
        self._Eq = np.zeros((full.nq, self.nq))
        self._Eq[self._q_independent, np.arange(self.nq)] = 1.0
        qcol = {int(k): c for c, k in enumerate(self._q_independent)}
        for a, (b, r, o) in resolved.items():
            self._Eq[dof_q[a], qcol[dof_q[b]]] = r
        names = []
        for k in self.independent:
            i = next(i for i in range(1, full.nb + 1) if full.idx_v[i] <= k < full.idx_v[i] + full.nv_joint[i])
            names.append(full.joint_names[i])
        self.joint_names = names
        self.name = full.name

    def __repr__(self):
        return (f"MimicReduced('{self.name}': nq {self.nq}, nv {self.nv} of the tree's {self.full.nq}, "
                f"{self.full.nv}; mimic {', '.join(self.mimic) or 'none'})")

    # -- coordinates -----------------------------------------------------------------------
    def expand_q(self, q_r):
        """The tree's q (nq_full) of the reduced q_r (one state or a batch)."""
        return np.asarray(q_r) @ self._Eq.T + self.offset

    def expand_v(self, v_r):
        return np.asarray(v_r) @ self.E.T

    def reduce_q(self, q):
        """The independent entries of a tree configuration (the mimic relations not checked)."""
        return np.asarray(q)[..., self._q_independent]

    def reduce_v(self, v):
        return np.asarray(v)[..., self.independent]

    def reduce_tau(self, tau):
        """E^T tau: a tree generalized force (nv_full) on the independent coordinates."""
        return np.asarray(tau) @ self.E

    # -- dynamics ---------------------------------------------------------------------------
    def rnea(self, q_r, v_r, a_r, **kw):
        """tau_r = E^T rnea(q, E v_r, E a_r) (keywords as :func:`artidyn.rnea`)."""
        from .dynamics.rnea import rnea
        return self.reduce_tau(rnea(self.full, self.expand_q(q_r), self.expand_v(v_r), self.expand_v(a_r), **kw))

    def crba(self, q_r):
        """M_r = E^T M(q) E."""
        from .dynamics.crba import crba
        M = crba(self.full, self.expand_q(q_r))
        return np.swapaxes(self.E.T @ M, -1, -2) @ self.E if M.ndim == 3 else self.E.T @ M @ self.E

    def aba(self, q_r, v_r, tau_r, **kw):
        """a_r solving M_r a_r = tau_r - E^T rnea(q, E v_r, 0) (keywords as :func:`artidyn.rnea`)."""
        h = self.rnea(q_r, v_r, np.zeros_like(np.asarray(v_r, dtype=float)), **kw)
        M = self.crba(q_r)
        rhs = np.asarray(tau_r, dtype=float) - h
        return np.linalg.solve(M, rhs[..., None])[..., 0] if M.ndim == 3 else np.linalg.solve(M, rhs)

    def body_placements(self, q_r):
        from .kinematics.placements import body_placements
        return body_placements(self.full, self.expand_q(q_r))

    def jacobian(self, q_r, frame, **kw):
        """The frame Jacobian in the reduced velocities: J E (keywords as :func:`artidyn.jacobian`)."""
        from . import jacobian
        return jacobian(self.full, self.expand_q(q_r), frame, **kw) @ self.E

    def energy(self, q_r, v_r):
        """Kinetic plus gravity potential energy of the tree at the expanded state."""
        from .dynamics.energy import kinetic_energy, potential_energy
        q, v = self.expand_q(q_r), self.expand_v(v_r)
        return kinetic_energy(self.full, q, v) + potential_energy(self.full, q)


    def simulate(self, q0, v0, t_final=1.0, dt=1e-3, tau=None, friction=True):
        """Integrate ``M_r a_r + h_r = tau_r`` with the classical fourth-order Runge-Kutta method at
        the fixed step ``dt`` (joint limits are not applied; ``tau``: a constant (nv_r,) or a
        function ``tau(t, q_r, v_r)``). Returns ``(t, q, v, energy)`` arrays, ``q`` (S, nq_r),
        the energy (kinetic + gravity potential) of each sample. Models without quaternions
        (a mimic gripper on a fixed base) only."""
        if self.full.quaternion_slices:
            raise InputError(f"MimicReduced.simulate: model '{self.name}' has quaternion joints; reduced "
                             f"simulation handles flat coordinates only (simulate the full model with "
                             f"artidyn.constraints.from_model instead)")
        steps = int(round(float(t_final) / float(dt)))
        if steps < 1 or not np.isclose(steps * dt, t_final, rtol=1e-9, atol=0.0):
            raise InputError(f"MimicReduced.simulate: t_final = {t_final} is not a whole number of steps dt = {dt}")
        force = (lambda t, q, v: np.zeros(self.nv)) if tau is None else (
            tau if callable(tau) else (lambda t, q, v, c=np.asarray(tau, dtype=float): c))

        def acc(t, q, v):
            return self.aba(q, v, force(t, q, v), friction=friction)
        q, v = np.array(q0, dtype=float), np.array(v0, dtype=float)
        Q, V = np.zeros((steps + 1, self.nq)), np.zeros((steps + 1, self.nv))
        Q[0], V[0] = q, v
        for k in range(steps):
            t = k * dt
            k1q, k1v = v, acc(t, q, v)
            k2q, k2v = v + 0.5 * dt * k1v, acc(t + 0.5 * dt, q + 0.5 * dt * k1q, v + 0.5 * dt * k1v)
            k3q, k3v = v + 0.5 * dt * k2v, acc(t + 0.5 * dt, q + 0.5 * dt * k2q, v + 0.5 * dt * k2v)
            k4q, k4v = v + dt * k3v, acc(t + dt, q + dt * k3q, v + dt * k3v)
            q = q + dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q)
            v = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
            Q[k + 1], V[k + 1] = q, v
        return np.arange(steps + 1) * dt, Q, V, self.energy(Q, V)


def reduce_mimic(model):
    """:class:`MimicReduced` of ``model`` from its coupling specs (URDF ``<mimic>``: see
    :func:`artidyn.io.urdf.load_urdf`), every coupling eliminated."""
    couplings = [(s.joint_a, s.joint_b, s.ratio, s.offset) for s in model.constraint_specs if s.type == "coupling"]
    return MimicReduced(model, couplings)
