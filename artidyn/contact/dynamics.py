"""Contact dynamics at the acceleration level: unilateral constraints with KKT multipliers.

For the contacts that are closed and not separating (gap <= margin, u_n <= 0), the normal
accelerations and forces are complementary (J. Reuss, "Modélisation des robots", French
Wikipedia draft, 2013, "Équations avec contraintes": psi(q) >= 0, psi > 0 => mu = 0, psi = 0 =>
mu >= 0; Pfeiffer & Glocker, "Multibody Dynamics with Unilateral Contacts", 1996)::

    M a + h = tau + J^T lambda,    acc = J a + Jdot v = G lambda + b,    G = J M^-1 J^T,
    b = J M^-1 (tau - h) + Jdot v,   0 <= lambda_n  _|_  acc_n >= 0

and Coulomb's law per contact: a **sticking** contact (tangential velocity zero) has its force
in the cone |lambda_t| <= mu lambda_n with zero tangential acceleration, or slips with the force
on the cone's edge against the tangential acceleration (the acceleration-level law, in De
Saxcé's complementarity form); a **sliding** contact (tangential velocity u_t != 0) has
``lambda_t = -mu lambda_n u_t / |u_t|``: its only unknown is lambda_n, and the normal problem
``acc_n = A lambda_n + c`` is an LCP whose matrix is no longer symmetric. When A is not a
P-matrix the LCP may have no solution or several: **Painlevé's paradoxes**, reported in
``status`` ("inconsistent": Lemke ends on a ray, no solution; "indeterminate": a solution found
but not the only one possible), never resolved silently.

``Jdot v`` is the relative classical acceleration of the two material points at a = 0 in the
contact frame; the term from the rotation of the normal is left out (exact against a flat
surface of the world; for two curved moving bodies it is the usual first-order model).
"""
from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..dynamics import crba, rnea
from ..kinematics import body_placements, jacobian_bias
from ..errors import InputError
from .inputs import torques, wrenches
from .jacobian import closed_contacts, select_contacts
from .settings import ContactSettings
from .solvers import lemke, project_cone, solve_contacts

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import ArrayLike

    from .._typing import Model
    from ..geometry.broadphase import Contacts


class ContactDynamicsResult(NamedTuple):
    """``a`` (nv); ``forces`` (k, 3): each active contact's force on body a in its frame (n, t1,
    t2); ``frames`` (k, 3, 3); ``body_a``, ``body_b``, ``point_a`` (k, 3) world; ``modes``: per
    contact "frictionless", "stick" or "slide"; ``status``: "ok", "inconsistent" (no solution)
    or "indeterminate" (several); ``residual``: the largest complementarity residual."""

    a: np.ndarray
    forces: np.ndarray
    frames: np.ndarray
    body_a: np.ndarray
    body_b: np.ndarray
    point_a: np.ndarray
    modes: list
    status: str
    residual: float
    limits: list = []        # (dof, side, force) of the active joint limits (side +1 lower, -1 upper)


def _bias(model, q, v, C, frames, T):
    """(k, 3): Jdot v of each contact in its frame (relative classical accelerations at a = 0)."""
    out = np.zeros((len(C.distance), 3))
    for i in range(len(C.distance)):
        acc = np.zeros(3)
        for body, p, sign in ((C.body_a[i], C.point_a[i], 1.0), (C.body_b[i], C.point_b[i], -1.0)):
            body = int(body)
            if body == 0:
                continue
            local = T[body, :3, :3].T @ (p - T[body, :3, 3])
            acc += sign * jacobian_bias(model, q, v, model.body_names[body], point=local)[3:]
        out[i] = frames[i].T @ acc
        out[i, 0] -= _rolling_term(model, q, v, C, i, T)
    return out


def _rolling_term(model, q, v, C, i, T):
    """The part of the gap's second derivative that the material points miss when a round shape
    rolls: its contact point moves over its surface. For a ball of radius R, ``g'' = n . a_P -
    R |omega_t|^2`` (omega_t: the relative angular velocity across the normal); a capsule's side
    counts across its axis only, a cap as a ball. Flat faces, vertices: zero."""
    from ..kinematics import frame_velocity

    n = np.asarray(C.normal[i], dtype=float)
    out = 0.0
    for shape_idx, body_idx in ((C.shape_a[i], C.body_a[i]), (C.shape_b[i], C.body_b[i])):
        col = model.collisions[int(shape_idx)]
        kind = getattr(col.shape, "kind", "")
        if kind not in ("sphere", "capsule"):
            continue
        w = np.zeros(3)
        for body, sign in ((int(C.body_a[i]), 1.0), (int(C.body_b[i]), -1.0)):
            if body:
                w += sign * frame_velocity(model, q, v, model.body_names[body])[:3]
        wt = w - (w @ n) * n
        if kind == "capsule":
            body = int(body_idx)
            Ts = T[body] @ col.placement
            p = np.asarray(C.point_a[i] if body == int(C.body_a[i]) else C.point_b[i])
            z = Ts[:3, 2] @ (p - Ts[:3, 3])
            if abs(z) < 0.5 * col.shape.length:             # on the side: round across the axis only
                ax = Ts[:3, 2]
                wt = wt - (wt @ ax) * ax
        out += float(col.shape.radius) * float(wt @ wt)
    return out


def _is_p_matrix(A):
    """All principal minors positive (small matrices: up to 10 rows)."""
    n = A.shape[0]
    return all(np.linalg.det(A[np.ix_(s, s)]) > 0 for r in range(1, n + 1) for s in combinations(range(n), r))


def active_limits(model, q, v, margin, vel_tol):
    """[(dof, side, gap)] of the joint position limits closed (gap <= margin) and not opening
    (side v_dof <= vel_tol); side +1 at a lower limit, -1 at an upper one."""
    from .moreau_jean import limit_rows
    out = []
    for kv, kq, lo, hi in limit_rows(model):
        for side, gap in ((1.0, q[kq] - lo), (-1.0, hi - q[kq])):
            if np.isfinite(gap) and gap <= margin and side * v[kv] <= vel_tol:
                out.append((kv, side, float(gap)))
    return out


def limit_jacobian(model, limits):
    """(3 l, nv): each limit as a frictionless contact, rows (side e_dof, 0, 0)."""
    L = np.zeros((3 * len(limits), model.nv))
    for j, lim in enumerate(limits):
        L[3 * j, int(lim[0])] = lim[1]
    return L


def contact_dynamics(model: Model, q: ArrayLike, v: ArrayLike, tau: ArrayLike, settings: ContactSettings | None = None,
                     f_ext: ArrayLike | None = None, friction: bool = True, vel_tol: float = 1e-9,
                     keep: Callable[[Contacts], ArrayLike] | None = None,
                     slides: Callable[[Contacts], tuple[ArrayLike, ArrayLike]] | None = None,
                     limits: list[tuple[int, float]] | None = None) -> ContactDynamicsResult:
    """Forward dynamics with the model's contacts at (q, v, tau): a :class:`ContactDynamicsResult`.

    Active contacts: gap <= ``settings.margin`` and normal velocity <= ``vel_tol`` (closed, not
    opening). Sliding (|u_t| > vel_tol, friction > 0) or sticking is decided by the velocity.
    ``keep``: optional function of the contacts within the margin (a
    :class:`~artidyn.geometry.Contacts`) giving a boolean mask of the ones to keep, opening or
    not (the event-driven integrator keeps a phase's contact set). ``slides``: optional function
    of the kept contacts giving ``(mask, directions (k, 2))``: the contacts that slide and the
    tangential direction of their sliding (the event-driven integrator holds them over a step);
    the others are then sticking (their slip can only start through the cone law).
    ``limits``: the joint position limits that act, [(dof, side), ...]; by default (None), with
    ``settings.joint_limits``, those closed within the margin and not opening: each one a
    frictionless unilateral constraint on its dof (``result.limits``: (dof, side, force)).
    """
    s = ContactSettings() if settings is None else settings
    if not isinstance(s, ContactSettings):
        raise InputError(f"contact_dynamics: settings must be an artidyn.contact.ContactSettings, got {type(s).__name__}")
    tau = np.broadcast_to(torques(model, tau, "contact_dynamics"), (model.nv,))
    f_ext = wrenches(model, f_ext, "contact_dynamics")
    q, v = (np.asarray(x, dtype=float) for x in (q, v))
    T = body_placements(model, q)
    M = crba(model, q)
    h = rnea(model, q, v, np.zeros(model.nv), f_ext, friction=friction)
    a_free = np.linalg.solve(M, tau - h)
    C, frames, J = closed_contacts(model, q, v, T, s.margin, np.inf if keep is not None else vel_tol)
    if keep is not None and len(C.distance):
        mask = np.asarray(keep(C), dtype=bool)
        C, frames, J = select_contacts(C, mask), frames[mask], J[np.repeat(mask, 3)]
    k = len(C.distance)
    if limits is None:
        limits = active_limits(model, q, v, s.margin, vel_tol) if s.joint_limits else []
    limits = [(int(x[0]), float(x[1])) for x in limits]
    nl = len(limits)
    if not k and not nl:
        z = np.zeros((0, 3))
        return ContactDynamicsResult(a_free, z, np.zeros((0, 3, 3)), np.zeros(0, int), np.zeros(0, int), z, [], "ok",
                                     0.0, [])
    u = np.vstack([(J @ v).reshape(k, 3), np.zeros((nl, 3))])
    J = np.vstack([J, limit_jacobian(model, limits)])          # a limit: a frictionless contact on its dof
    MinvJt = np.linalg.solve(M, J.T)
    G = J @ MinvJt
    b = J @ a_free + np.concatenate([_bias(model, q, v, C, frames, T).ravel(), np.zeros(3 * nl)])
    mu = float(s.friction)
    slide = (mu > 0) & (np.hypot(u[:, 1], u[:, 2]) > vel_tol)
    if slides is not None and mu > 0 and k:
        held, dirs = slides(C)
        held = np.concatenate([np.asarray(held, dtype=bool), np.zeros(nl, dtype=bool)])
        slide = held                  # the others stick, or start to slip through the cone law
        u[held, 1:] = np.asarray(dirs, dtype=float)[held[:k]]
    modes = ["frictionless" if mu == 0 else ("slide" if sl else "stick") for sl in slide[:k]]
    if not np.any(slide):
        mus = np.concatenate([np.full(k, mu), np.zeros(nl)])
        sol = solve_contacts(G, b, mus, method=s.solver, cone=s.cone, tol=s.tol, max_iter=s.max_iter)
        lam = np.asarray(sol.lam, dtype=float)
        status = "ok" if sol.status == "converged" else sol.status
        residual = max((float(x) for x in sol.residuals.values()), default=0.0)
    else:                             # a limit's tangential rows are zero: its force stays normal
        lam, status, residual = _with_sliding(G, b, mu, slide, u, s)
    a = a_free + MinvJt @ lam
    return ContactDynamicsResult(a, lam[:3 * k].reshape(k, 3), frames, np.asarray(C.body_a), np.asarray(C.body_b),
                                 np.asarray(C.point_a), modes, status, residual,
                                 [(d, sd, float(lam[3 * (k + j)])) for j, (d, sd) in enumerate(limits)])


def _with_sliding(G, b, mu, slide, u, s):
    """Sliding contacts: lambda_i = E_i lambda_n,i with E_i = (1, -mu d_i); sticking ones keep 3
    unknowns. Only sliding: the normal LCP by Lemke, with Painlevé's cases detected; mixed:
    projected Gauss-Seidel on the reduced (non-symmetric) problem."""
    k = slide.size
    cols, E = [], []
    for i in range(k):
        if slide[i]:
            d = u[i, 1:] / np.hypot(u[i, 1], u[i, 2])
            e = np.zeros(3 * k)
            e[3 * i:3 * i + 3] = (1.0, -mu * d[0], -mu * d[1])
            E.append(e)
            cols.append(("slide", i))
        else:
            for j in range(3):
                e = np.zeros(3 * k)
                e[3 * i + j] = 1.0
                E.append(e)
                cols.append(("stick", i))
    E = np.array(E).T                                   # (3k, m'): lambda = E x
    rows = [3 * i for i in range(k) if slide[i]] if np.all(slide) else None
    if rows is not None:                                # pure sliding: acc_n = A x + c
        A, c = G[rows] @ E, b[rows]
        sol = lemke(A, c)
        if sol.status != "converged":
            return np.zeros(3 * k), "inconsistent", float("inf")
        x = np.asarray(sol.z, dtype=float)
        w = A @ x + c
        residual = float(max(np.max(np.abs(np.minimum(x, w))), 0.0))
        status = "ok" if _is_p_matrix(A) else "indeterminate"
        return E @ x, status, residual
    return _mixed_pgs(G, b, E, cols, mu, k, s)


def _mixed_pgs(G, b, E, cols, mu, k, s):
    """Projected Gauss-Seidel over contacts on lambda = E x (sticking: the cone, sliding: x_n >= 0).
    A sliding contact's unknown is its normal force (E's column has 1 in the normal row), read off
    lambda."""
    slide_col = {}
    for j, (kind, i) in enumerate(cols):
        if kind == "slide":
            slide_col[i] = j
    lam = np.zeros(3 * k)
    GE = G @ E
    for it in range(s.max_iter):
        old = lam.copy()
        for i in range(k):
            sl = slice(3 * i, 3 * i + 3)
            acc = G[sl] @ lam + b[sl]
            j = slide_col.get(i)
            if j is not None:
                lam[sl] = E[sl, j] * max(0.0, lam[3 * i] - acc[0] / max(GE[3 * i, j], 1e-300))
            else:
                r = 1.0 / max(np.max(np.abs(np.diag(G[sl, sl]))), 1e-300)
                ut = np.hypot(acc[1], acc[2])
                lam[sl] = project_cone(lam[sl] - r * (acc + np.array([mu * ut, 0.0, 0.0])), mu)
        if np.max(np.abs(lam - old)) <= s.tol * (1.0 + np.max(np.abs(lam))):
            break
    acc = G @ lam + b
    residual = float(np.max(np.abs(np.minimum(lam[0::3], acc[0::3]))))
    return lam, ("ok" if residual < 1e-6 else "indeterminate"), residual
