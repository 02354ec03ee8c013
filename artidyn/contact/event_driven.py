"""Event-driven integration of contacts: smooth phases, located events, impacts between them.

Between events the motion is smooth: the accelerations come from the acceleration-level contact
problem (:func:`~artidyn.contact.dynamics.contact_dynamics`: the closed contacts' Signorini and
Coulomb conditions with KKT multipliers), integrated by classical Runge-Kutta on the
configuration manifold. Criterion functions mark the transitions (non-smooth mechanics, hybrid
systems: Pfeiffer & Glocker, "Multibody Dynamics with Unilateral Contacts", ch. 7):

* **impact**: the gap of an approaching contact reaches zero; located by bisection on the step
  to ``event_tol`` in time, then Newton's law with friction in one impulse problem
  (``M (v+ - v-) = J^T P``, ``u_n+ = -e u_n-`` where the impulse acts, Coulomb's cone on P);
* **stick**: a sliding contact's tangential velocity reaches zero (reverses) within a step;
  located the same way, its tangential velocity then set to zero (mass-weighted projection);
* **lift-off** and **slip** (the force leaving the cone's interior) happen continuously in the
  smooth problem and are recorded at the end of the step where the modes change.

**Accumulation of impacts (Zeno).** A bouncing ball's impacts come ever closer and accumulate
at a finite time; an impact whose approach speed is below ``zeno_velocity`` is taken as plastic
(e = 0): the contact closes and stays, so the run passes the accumulation point instead of
hanging on it (the classical treatment; the remaining bounces are shorter than the tolerance).

**Joint limits** (``ContactSettings(joint_limits=True)``, the default; 1-dof joints with finite
limits) are frictionless unilateral constraints on their dofs: a joint reaching its limit is an
event located like an impact (criterion: the gap ``q - lower`` or ``upper - q``), with Newton's law
and ``limit_restitution`` (recorded as "limit"); a limit at rest carries a force in the smooth
problem until it lets go.

This class is the readable reference; ``simulate(..., method="event_driven")`` runs its compiled
twin (the whole run, every event, in one call: :mod:`artidyn.kernels.event_run`) when the run fits
it, with the same events, times and states (see :mod:`artidyn.contact.event_compiled`).
"""
from typing import NamedTuple

import numpy as np

from ..configuration import integrate, rkmk4
from ..dynamics import crba
from ..errors import InputError, SimulationError
from ..kinematics import body_placements
from .dynamics import active_limits, contact_dynamics, limit_jacobian
from .jacobian import contact_frames, contact_jacobian
from .solvers import solve_contacts


class _Contacts(NamedTuple):
    C: object
    frames: np.ndarray
    J: np.ndarray
    u: np.ndarray          # (k, 3) relative velocity in the contact frames (n, t1, t2)
    local: np.ndarray      # (k, 3) the witness point on a, in body a's frame


def _key(C, i):
    return int(C.shape_a[i]), int(C.shape_b[i])


def _identify(entries, key, local):
    """The entry of ``entries`` ((key, local point, ...)) that is the same contact: the same shape
    pair and, among several points of one pair (a box's corners), the nearest in body a's frame."""
    same = [e for e in entries if e[0] == key]
    if len(same) <= 1:
        return same[0] if same else None
    return min(same, key=lambda e: float(np.linalg.norm(e[1] - local)))


def _contacts(model, q, v, margin):
    """Every candidate contact within ``margin`` at (q, v), with frames, Jacobian and velocity."""
    from ..geometry.broadphase import contact_candidates

    T = body_placements(model, q)
    C = contact_candidates(model, T, margin=margin)
    k = len(C.distance)
    if not k:
        return _Contacts(C, np.zeros((0, 3, 3)), np.zeros((0, model.nv)), np.zeros((0, 3)), np.zeros((0, 3)))
    frames = contact_frames(C.normal)
    J = contact_jacobian(model, q, C, frames, T)
    Ta = T[np.asarray(C.body_a, dtype=int)]
    local = np.einsum("kji,kj->ki", Ta[:, :3, :3], np.asarray(C.point_a) - Ta[:, :3, 3])
    return _Contacts(C, frames, J, (J @ v).reshape(k, 3), local)


class EventDriven:
    """The integrator's state and its parameters (see the module docstring)."""

    def __init__(self, model, settings, tau_of, f_ext, friction, gap_tol=1e-9, vel_tol=1e-7, event_tol=1e-11,
                 zeno_velocity=1e-3, slide_tol=1e-6):
        self.model, self.s, self.tau_of, self.f_ext, self.friction = model, settings, tau_of, f_ext, friction
        self.slide_tol = slide_tol            # a sticking contact slides when |u_t| exceeds it
        self.gap_tol, self.vel_tol, self.event_tol, self.zeno_velocity = gap_tol, vel_tol, event_tol, zeno_velocity
        from dataclasses import replace
        # the stages of an RKMK step leave the chart by O(h^2) (a rolling ball rises and sinks ~1e-4):
        # the phase's contacts are kept within a wide margin, ``keep`` decides which
        self.s_smooth = replace(settings, margin=0.05)
        self.events = []

    # --- the smooth problem ---------------------------------------------------------------------
    def dynamics(self, t, q, v, keep=None, slides=None, limits=None):
        if limits is None:
            limits = self.closed_limits(q, v) if self.s.joint_limits else []
        return contact_dynamics(self.model, q, v, self.tau_of(t, q, v), self.s_smooth, f_ext=self.f_ext,
                                friction=self.friction, vel_tol=self.vel_tol, keep=keep, slides=slides,
                                limits=limits)

    def closed_limits(self, q, v):
        """[(dof, side)] of the joint limits at their bound and not opening at (q, v)."""
        if not self.s.joint_limits:
            return []
        return [(d, sd) for d, sd, _ in active_limits(self.model, q, v, self.gap_tol, self.vel_tol)]

    def limit_gap(self, q, v, closed=()):
        """The smallest gap among the limits approached (side v < -vel_tol) that were not closed at
        the step's start; +inf when none."""
        if not self.s.joint_limits:
            return np.inf
        gaps = [g for d, sd, g in active_limits(self.model, q, v, np.inf, -self.vel_tol) if (d, sd) not in closed]
        return float(min(gaps)) if gaps else np.inf

    def phase(self, q, v):
        """The contacts closed at (q, v), as a ``keep`` filter for the stages of a step: a contact
        that opens at a stage may leave, one that was open cannot enter (its closing is an event)."""
        c = _contacts(self.model, q, v, self.gap_tol)
        closed = [(_key(c.C, i), c.local[i]) for i in range(len(c.C.distance)) if c.u[i, 0] <= self.vel_tol]
        model = self.model

        def keep(C):
            if not closed:
                return np.zeros(len(C.distance), dtype=bool)
            T = body_placements(model, q_stage[0])
            out = np.zeros(len(C.distance), dtype=bool)
            for i in range(len(C.distance)):
                Ta = T[int(C.body_a[i])]
                local = Ta[:3, :3].T @ (np.asarray(C.point_a[i]) - Ta[:3, 3])
                e = _identify(closed, _key(C, i), local)
                out[i] = e is not None and np.linalg.norm(e[1] - local) < 0.5 * _size(model, C, i)
            return out
        q_stage = [q]
        self._stage = q_stage
        sliding = self.sliding(q, v) if self.s.friction > 0 else []

        def slides(C):
            """The contacts sliding at the step's start keep sliding the same way over the step
            (a reversal inside it is the 'stick' event, located)."""
            T = body_placements(model, q_stage[0])
            mask, dirs = np.zeros(len(C.distance), dtype=bool), np.zeros((len(C.distance), 2))
            for i in range(len(C.distance)):
                Ta = T[int(C.body_a[i])]
                local = Ta[:3, :3].T @ (np.asarray(C.point_a[i]) - Ta[:3, 3])
                e = _identify(sliding, _key(C, i), local)
                if e is not None:
                    mask[i], dirs[i] = True, e[2]
            return mask, dirs
        self._slides = slides
        return keep

    def rk4(self, t, q, v, h):
        """One RKMK4 step with the contact set (and the closed joint limits) of the step's start."""
        keep = self.phase(q, v)
        stage = self._stage
        limits = self.closed_limits(q, v)
        slides = self._slides

        def accel(tt, qq, vv):
            stage[0] = qq
            return self.dynamics(tt, qq, vv, keep, slides, limits).a
        return rkmk4(self.model, accel, t, q, v, h)

    # --- criterion functions ----------------------------------------------------------------------
    def _reach(self, v, h):
        return self.gap_tol + 2.0 * h * (1.0 + float(np.max(np.abs(v), initial=0.0))) + 0.05

    def impact_gap(self, q, v, margin, closed=()):
        """The smallest gap among the approaching contacts (u_n < -vel_tol) that were not closed
        at the step's start (``closed``: their identities); +inf when none."""
        c = _contacts(self.model, q, v, margin)
        gaps = [c.C.distance[i] for i in range(len(c.C.distance))
                if c.u[i, 0] < -self.vel_tol and not _is_in(closed, _key(c.C, i), c.local[i])]
        return float(min(gaps)) if gaps else np.inf

    def closed(self, q, v):
        """Identities (key, local point) of the contacts closed at (q, v)."""
        c = _contacts(self.model, q, v, self.gap_tol)
        return [(_key(c.C, i), c.local[i]) for i in range(len(c.C.distance)) if c.u[i, 0] <= self.vel_tol]

    def sliding(self, q, v):
        """[(key, u_t)] of the closed contacts that slide."""
        c = _contacts(self.model, q, v, self.gap_tol)
        out = []
        for i in range(len(c.C.distance)):
            ut = c.u[i, 1:]
            if abs(c.u[i, 0]) <= 1e-6 and np.hypot(*ut) > self.slide_tol:
                out.append((_key(c.C, i), c.local[i], ut))
        return out

    @staticmethod
    def _match(entry, others):
        return _identify(others, entry[0], entry[1])

    def _reversal(self, start, q, v, margin=1e-3):
        """The smallest of u_t(now) . u_t(start) / |u_t(start)|^2 over the contacts sliding at the
        start, found again by identity (+inf when none slid)."""
        if not start:
            return np.inf
        c = _contacts(self.model, q, v, margin)
        now = [(_key(c.C, i), c.local[i], c.u[i, 1:]) for i in range(len(c.C.distance))]
        vals = []
        for e in start:
            o = self._match(e, now)
            vals.append(np.inf if o is None else float(o[2] @ e[2]) / float(e[2] @ e[2]))
        return min(vals)

    # --- events -----------------------------------------------------------------------------------
    def locate(self, t, q, v, h, crossed):
        """The smallest s in (0, h] at which ``crossed(q(s), v(s))`` turns True (bisection to
        event_tol), and the state there."""
        lo, hi = 0.0, h
        qh, vh = self.rk4(t, q, v, h)
        while hi - lo > self.event_tol:
            mid = 0.5 * (lo + hi)
            qm, vm = self.rk4(t, q, v, mid)
            if crossed(qm, vm):
                hi, qh, vh = mid, qm, vm
            else:
                lo = mid
        return hi, qh, vh

    def impact(self, t, q, v):
        """Newton's law with Coulomb friction on the closed contacts that approach, and on the joint
        limits reached (frictionless, ``limit_restitution``), in one impulse problem: v+."""
        m, s = self.model, self.s
        c = _contacts(m, q, v, 10 * self.gap_tol)
        act = c.u[:, 0] < -self.vel_tol
        lim = active_limits(m, q, v, 10 * self.gap_tol, np.inf) if s.joint_limits else []
        L = limit_jacobian(m, lim)
        lu = L[0::3] @ v if lim else np.zeros(0)          # a limit's normal velocity (side v_dof)
        if not np.any(act) and not np.any(lu < -self.vel_tol):
            return v
        closed = c.C.distance <= 10 * self.gap_tol
        rows = np.repeat(closed, 3)
        J, un = np.vstack([c.J[rows], L]), np.concatenate([c.u[closed, 0], lu])
        k = int(closed.sum())
        M = crba(m, q)
        MinvJt = np.linalg.solve(M, J.T)
        W = J @ MinvJt
        speed = float(np.max(-un, initial=0.0))
        plastic = speed < self.zeno_velocity
        e = np.concatenate([np.full(k, 0.0 if plastic else float(s.restitution)),
                            np.full(len(lim), 0.0 if plastic else float(s.limit_restitution))])
        b = J @ v
        b[0::3] += e * np.minimum(un, 0.0)
        mus = np.concatenate([np.full(k, float(s.friction)), np.zeros(len(lim))])
        sol = solve_contacts(W, b, mus, method=s.solver, cone=s.cone, tol=s.tol, max_iter=s.max_iter)
        v_new = v + MinvJt @ np.asarray(sol.lam, dtype=float)
        for i in np.flatnonzero(closed & act):
            self.events.append((t, "impact", int(c.C.body_a[i]), int(c.C.body_b[i])))
        for (d, sd, _), uj in zip(lim, lu):
            if uj < -self.vel_tol:
                self.events.append((t, "limit", int(d), int(sd)))
        return v_new

    def stick(self, t, q, v, start):
        """Set to zero the tangential velocity of the contacts that stopped sliding (mass-weighted)."""
        m = self.model
        c = _contacts(m, q, v, self.gap_tol)
        rows = []
        for i in range(len(c.C.distance)):
            e = self._match((_key(c.C, i), c.local[i], None), start)
            if e is not None and float(c.u[i, 1:] @ e[2]) <= 0.05 * float(e[2] @ e[2]):
                rows += [3 * i + 1, 3 * i + 2]
                self.events.append((t, "stick", int(c.C.body_a[i]), int(c.C.body_b[i])))
        if not rows:
            return v
        J = c.J[rows]
        MinvJt = np.linalg.solve(crba(m, q), J.T)
        return v - MinvJt @ np.linalg.lstsq(J @ MinvJt, J @ v, rcond=1e-12)[0]

    def settle(self, q, v, closed, closed_limits=()):
        """Close the drift of the contacts (and joint limits) that stayed closed over the step
        (``closed``: their identities at its start): gaps to zero, normal velocities to zero
        unless opening."""
        if not closed and not closed_limits:
            return q, v
        m = self.model
        slow = 1e-3 * (1.0 + float(np.max(np.abs(v), initial=0.0)))
        lim = [x for x in active_limits(m, q, v, 1e-3, slow) if (x[0], x[1]) in closed_limits]
        c = _contacts(m, q, v, 1e-3)
        rows = [i for i in range(len(c.C.distance)) if _is_in(closed, _key(c.C, i), c.local[i])
                and c.u[i, 0] <= slow]
        if not rows and not lim:
            return q, v
        Jn = np.vstack([c.J[3 * np.asarray(rows, dtype=int)], limit_jacobian(m, lim)[0::3]])
        g = np.concatenate([np.asarray(c.C.distance)[rows], [x[2] for x in lim]])
        MinvJt = np.linalg.solve(crba(m, q), Jn.T)
        q = integrate(m, q, -MinvJt @ np.linalg.lstsq(Jn @ MinvJt, g, rcond=1e-12)[0])
        # the normal velocities to zero, and the tangential ones of sticking contacts (below
        # slide_tol: the drift of the step, not a slip that starts)
        sel = [3 * i for i in rows] + [3 * i + j for i in rows for j in (1, 2)
                                       if self.s.friction > 0 and np.hypot(*c.u[i, 1:]) <= self.slide_tol]
        Js = np.vstack([c.J[np.asarray(sel, dtype=int)], limit_jacobian(m, lim)[0::3]])
        MinvJt = np.linalg.solve(crba(m, q), Js.T)
        v = v - MinvJt @ np.linalg.lstsq(Js @ MinvJt, Js @ v, rcond=1e-12)[0]
        return q, v

    # --- one grid interval ----------------------------------------------------------------------
    def advance(self, t, q, v, t_end, max_events=100000):
        """Integrate from t to t_end, handling every event on the way: (q, v)."""
        n_events = 0
        while t_end - t > 1e-15:
            h = t_end - t
            margin = self._reach(v, h)
            closed = self.closed(q, v)
            closed_lim = self.closed_limits(q, v)
            slide0 = self.sliding(q, v) if self.s.friction > 0 else []
            q1, v1 = self.rk4(t, q, v, h)

            def gap(qq, vv):
                return min(self.impact_gap(qq, vv, margin, closed), self.limit_gap(qq, vv, closed_lim))
            hit = gap(q1, v1) < -self.gap_tol
            rev = self._reversal(slide0, q1, v1) <= 0.0
            if not (hit or rev):
                q, v = self.settle(q1, v1, closed, closed_lim)
                t = t_end
                break
            crossed = (lambda qq, vv: gap(qq, vv) < -self.gap_tol or (self._reversal(slide0, qq, vv) <= 0.0))
            s, qe, ve = self.locate(t, q, v, h, crossed)
            t = t + s
            hit = gap(qe, ve) <= self.gap_tol
            rev = bool(slide0) and self._reversal(slide0, qe, ve) <= 0.0
            if rev:
                ve = self.stick(t, qe, ve, slide0)
            qe, ve = self.settle(qe, ve, closed, closed_lim)
            if hit:
                ve = self.impact(t, qe, ve)
            q, v = qe, ve
            n_events += 1
            if n_events > max_events:
                raise SimulationError(f"event-driven: more than {max_events} events before t = {t_end:.6g} s; an "
                                      f"accumulation that the Zeno rule does not close (raise zeno_velocity)")
            if not (np.all(np.isfinite(q)) and np.all(np.isfinite(v))):
                raise SimulationError(f"event-driven: the state became non-finite at t = {t:.6g} s")
        return q, v


def _is_in(entries, key, local, tol=None):
    e = _identify(entries, key, local)
    return e is not None and (tol is None or np.linalg.norm(e[1] - local) < tol)


def _size(model, C, i):
    """A length of shape a (its bounding radius), to tell its contact points apart."""
    shape = model.collisions[int(C.shape_a[i])].shape
    r = getattr(shape, "radius", None)
    if r is not None:
        return float(r) + float(getattr(shape, "length", 0.0))
    size = getattr(shape, "size", None)
    return float(np.linalg.norm(size)) if size is not None else 1.0


def check_supported(model, settings):
    if settings.impacts != "simultaneous":
        raise InputError("simulate(method='event_driven'): impacts='sequential' is Moreau-Jean's option; the "
                         "event-driven integrator applies Newton's law to the contacts that close together")
