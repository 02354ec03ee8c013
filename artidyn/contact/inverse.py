"""Contact-aware inverse dynamics: the least-effort torques and contact forces of a motion.

Given a motion (q, v, a) with some contacts closed, find the actuated torques ``tau`` (zero on
the unactuated dofs, e.g. a floating base) and the contact forces ``lambda`` (3 per contact, in
the contact frames [n, t1, t2], n from body b to body a, forces on body a) with::

    M a + h(q, v) = B tau + J^T lambda,      lambda_i in K_mu  (|lambda_t| <= mu lambda_n)

The split between the motors and the ground is not unique in general (a box on four corners, a
robot on two feet); the one returned is the **least effort** one::

    min ||tau||^2 + w ||lambda||^2

Writing r = M a + h (rnea) and splitting the rows into actuated (a) and unactuated (u) dofs,
``tau_a = r_a - J_a^T lambda`` is eliminated and the problem in lambda is the small convex QP
over a product of cones::

    min 1/2 lambda^T (J_a J_a^T + w I) lambda - (J_a r_a)^T lambda
    s.t. J_u^T lambda = r_u,   lambda in K = K_mu x ... x K_mu

Method: ADMM with the split lambda = L x, x = z, z in K (Boyd et al., "Distributed optimization
and statistical learning via ADMM", 2011, sec. 5; OSQP's residual balancing of rho): the
x-step solves the equality-constrained quadratic by its KKT system (the equality rows reduced to
an independent set by an SVD first), the z-step is the exact projection on the cone
(:func:`project_cone` for cone="soc"; for cone="pyramid", lambda = L x with the 4 edges of the
pyramid |lambda_t1| + |lambda_t2| <= mu lambda_n as generators and x >= 0). A final polish
re-solves the equality-constrained QP on the active set found (forces zero, inside the cone, or
pyramid edges in use), which makes the answer exact to round-off when the active set is right;
on the second-order cone's curved boundary the ADMM answer (tolerance ~1e-12 on the scaled
problem) is kept.

Feasibility: ``status`` is "infeasible" when no cone-admissible forces realise the unactuated
rows (a block on a slope steeper than atan(mu), a foot that would have to pull); the forces
returned are then the closest the solver got, ``residual`` the rows it misses.
The complementarity with the motion (a separating contact carries no force) is not imposed: the
contacts given are taken as closed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..configuration import as_batch, as_q
from ..dynamics import rnea
from ..errors import InputError, ShapeError
from ..geometry import Contacts
from ..kinematics import body_placements
from .jacobian import closed_contacts, contact_frames, contact_jacobian
from .settings import ContactSettings
from .solvers import project_cone

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Model

MAX_ITER = 20000
RHO_FLOOR = 1e-6       # rho0 >= 1e-3 of H's largest eigenvalue: from the 1e-12 of H's (singular with no actuated dof) ADMM crawled


class ContactInverseResult(NamedTuple):
    """``tau`` (nv,): torques, zero on unactuated dofs; ``forces`` (k, 3): each contact's force on
    body a in its frame (n, t1, t2); ``frames`` (k, 3, 3); ``body_a``, ``body_b`` (k,);
    ``status``: "ok" or "infeasible"; ``residual``: max |unactuated row of M a + h - J^T lambda|;
    ``cone_violation``: max over contacts of max(-lambda_n, |lambda_t| - mu lambda_n) (|lambda_t|: the
    Euclidean norm for cone="soc", |lambda_t1| + |lambda_t2| for "pyramid"; 0 when admissible)."""

    tau: np.ndarray
    forces: np.ndarray
    frames: np.ndarray
    body_a: np.ndarray
    body_b: np.ndarray
    status: str
    residual: float
    cone_violation: float


def _state(model, q, v, a):
    Q, sq = as_q(model, q)
    V, sv = as_batch(model, v, "v", "nv")
    A, sa = as_batch(model, a, "a", "nv")
    if not (sq and sv and sa):
        raise ShapeError("contact_inverse_dynamics takes one state (q (nq,), v (nv,), a (nv,)); loop over a batch")
    for name, x in (("q", Q[0]), ("v", V[0]), ("a", A[0])):
        if not np.all(np.isfinite(x)):
            raise InputError(f"contact_inverse_dynamics: {name} has non-finite entries")
    return Q[0], V[0], A[0]


def _active_contacts(model, q, v, T, s, contacts, vel_tol=1e-9):
    """The contacts and their frames and Jacobian: the given ones, or the model's closed ones."""
    if contacts is None:
        return closed_contacts(model, q, v, T, s.margin, vel_tol)
    if not isinstance(contacts, Contacts):
        raise InputError(f"contact_inverse_dynamics: contacts must be an artidyn.geometry.Contacts (from "
                         f"contact_candidates), got {type(contacts).__name__}")
    if len(contacts.distance) == 0:
        return contacts, np.zeros((0, 3, 3)), np.zeros((0, model.nv))
    for name in ("normal", "point_a", "point_b"):
        x = np.asarray(getattr(contacts, name), dtype=float)
        if x.shape != (len(contacts.distance), 3) or not np.all(np.isfinite(x)):
            raise InputError(f"contact_inverse_dynamics: contacts.{name} must be finite, shape "
                             f"({len(contacts.distance)}, 3), got shape {x.shape}")
    frames = contact_frames(contacts.normal)
    return contacts, frames, contact_jacobian(model, q, contacts, frames, T)


def _generators(k, mu, cone):
    """L (3k, m) with lambda = L x, and the projection of x on its cone."""
    if cone == "soc":
        return np.eye(3 * k), lambda x: project_cone(x, mu)
    E = np.array([[1.0, 1.0, 1.0, 1.0], [mu, -mu, 0.0, 0.0], [0.0, 0.0, mu, -mu]])
    L = np.zeros((3 * k, 4 * k))
    for i in range(k):
        L[3 * i:3 * i + 3, 4 * i:4 * i + 4] = E
    return L, lambda x: np.maximum(x, 0.0)


def _reduce(A, b, tol=1e-12):
    """Independent equality rows (U_r^T A, U_r^T b) and the part of b no x can reach."""
    if A.shape[0] == 0:
        return A, b, 0.0
    U, sv, _ = np.linalg.svd(A, full_matrices=False)
    r = int(np.sum(sv > tol * max(sv[0] if sv.size else 0.0, 1.0)))
    Ur = U[:, :r]
    miss = b - Ur @ (Ur.T @ b)
    return Ur.T @ A, Ur.T @ b, float(np.max(np.abs(miss), initial=0.0))


def _kkt_solve(H, A, g, b):
    """argmin 1/2 x^T H x - g^T x s.t. A x = b (least squares when singular)."""
    n, m = H.shape[0], A.shape[0]
    K = np.block([[H, A.T], [A, np.zeros((m, m))]])
    rhs = np.concatenate([g, b])
    try:
        sol = np.linalg.solve(K, rhs)
        if not np.all(np.isfinite(sol)) or np.max(np.abs(K @ sol - rhs), initial=0.0) > 1e-9 * (
                1.0 + np.max(np.abs(rhs), initial=0.0)):
            raise np.linalg.LinAlgError
    except np.linalg.LinAlgError:
        sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
    return sol[:n]


def _admm(H, g, A, b, proj, tol, max_iter):
    """min 1/2 x^T H x - g^T x, A x = b, x in K: ADMM with residual balancing of rho."""
    n = H.shape[0]
    ev = np.linalg.eigvalsh(H)
    rho = float(np.sqrt(max(ev[0], RHO_FLOOR * ev[-1]) * ev[-1])) if ev[-1] > 0 else 1.0
    rho_lo, rho_hi = rho * 1e-6, rho * 1e6
    x = z = u = np.zeros(n)
    r_p_old = np.inf
    for it in range(max_iter):
        x = _kkt_solve(H + rho * np.eye(n), A, g + rho * (z - u), b)
        z_old = z
        z = proj(x + u)
        u = u + x - z
        r_p = float(np.max(np.abs(x - z)))
        r_d = float(rho * np.max(np.abs(z - z_old)))
        scale = 1.0 + float(np.max(np.abs(z)))
        if r_p <= tol * scale and r_d <= tol * scale * max(rho, 1e-300) and it > 10:
            break
        if it % 200 == 199:                                # infeasible: x - z stalls away from 0
            if r_p > 1e-8 * scale and abs(r_p - r_p_old) <= 1e-9 * r_p:
                break
            r_p_old = r_p
        if it % 25 == 24:                                  # residual balancing (OSQP)
            ratio = np.sqrt(r_p / max(r_d / rho, 1e-300)) if r_d > 0 else 10.0
            if ratio > 5 or ratio < 0.2:
                f = float(np.clip(ratio, 1e-3, 1e3))
                f = float(np.clip(rho * f, rho_lo, rho_hi)) / rho
                rho *= f
                u = u / f
    return z


def _polish(H, g, A, b, z, cone, mu, k):
    """Re-solve on the active set of z; None when it does not apply or leaves the cone."""
    tiny = 1e-9 * (1.0 + float(np.max(np.abs(z), initial=0.0)))
    if cone == "pyramid":
        free = z > tiny
    else:
        Z = z.reshape(k, 3)
        nt = np.hypot(Z[:, 1], Z[:, 2])
        zero = np.abs(Z[:, 0]) <= tiny
        inside = (~zero) & (mu * Z[:, 0] - nt > 1e-7 * (1.0 + Z[:, 0]))
        if not np.all(zero | inside):
            return None                                    # on the curved boundary: keep ADMM's
        free = np.repeat(inside, 3)
    if not np.any(free):
        return np.zeros_like(z)
    x = np.zeros_like(z)
    x[free] = _kkt_solve(H[np.ix_(free, free)], A[:, free], g[free], b)
    if cone == "pyramid":
        return x if np.all(x >= -1e-12) else None
    X = x.reshape(k, 3)
    ok = np.all(mu * X[:, 0] - np.hypot(X[:, 1], X[:, 2]) >= -1e-12 * (1.0 + np.abs(X[:, 0])))
    return x if ok else None


def cone_violation(forces, mu, cone="soc"):
    """max over contacts of how far (k, 3) forces leave the cone: max(-lambda_n, |lambda_t| - mu
    lambda_n) (soc) or with |lambda_t1| + |lambda_t2| (pyramid); 0 when admissible."""
    F = np.asarray(forces, dtype=float).reshape(-1, 3)
    if F.shape[0] == 0:
        return 0.0
    t = np.hypot(F[:, 1], F[:, 2]) if cone == "soc" else np.abs(F[:, 1]) + np.abs(F[:, 2])
    return float(max(0.0, np.max(-F[:, 0]), np.max(t - mu * F[:, 0])))


def contact_inverse_dynamics(model: Model, q: ArrayLike, v: ArrayLike, a: ArrayLike,
                             settings: ContactSettings | None = None, contacts: Contacts | None = None,
                             actuated: ArrayLike | None = None, f_ext: ArrayLike | None = None, friction: bool = True,
                             weight: float = 1e-6) -> ContactInverseResult:
    """Least-effort torques and contact forces realising the motion (q, v, a).

    ``settings`` (:class:`ContactSettings`): ``friction`` (mu), ``margin`` (which contacts are
    closed by default) and ``cone`` ("soc" or "pyramid"). ``contacts``: a
    :class:`artidyn.geometry.Contacts` to use instead of the model's closed contacts (those from
    :func:`contact_candidates` within the margin with normal velocity <= 0, as in
    :func:`contact_dynamics`). ``actuated``: (nv,) booleans, default ``model.actuated``.
    ``f_ext``, ``friction``: as in :func:`artidyn.rnea`. ``weight``: w > 0 in the objective
    ``||tau||^2 + w ||lambda||^2`` (keeps lambda unique; with no actuated dof it picks the least
    norm forces). Solved by ADMM plus an active-set polish (see the module docstring).

    Returns a :class:`ContactInverseResult`; ``status`` is "infeasible" when no cone-admissible
    forces give the unactuated rows. Never NaN.
    """
    s = ContactSettings() if settings is None else settings
    if not isinstance(s, ContactSettings):
        raise InputError(f"contact_inverse_dynamics: settings must be a ContactSettings, got {type(s).__name__}")
    if not (isinstance(weight, (int, float, np.integer, np.floating)) and np.isfinite(weight) and weight > 0):
        raise InputError(f"contact_inverse_dynamics: weight must be a finite number > 0, got {weight!r}")
    weight = float(weight)
    q, v, a = _state(model, q, v, a)
    act = np.asarray(model.actuated if actuated is None else actuated)
    if act.shape != (model.nv,) or act.dtype != bool:
        raise ShapeError(f"contact_inverse_dynamics: actuated must be {model.nv} booleans, got "
                         f"{act.dtype} of shape {act.shape}")
    if f_ext is not None:
        F = np.asarray(f_ext, dtype=float)
        if F.shape != (model.nb + 1, 6) or not np.all(np.isfinite(F)):
            raise ShapeError(f"contact_inverse_dynamics: f_ext must be finite, shape ({model.nb + 1}, 6) (one "
                             f"wrench per body, row 0 ignored), got {F.shape}")
    T = body_placements(model, q)
    C, frames, J = _active_contacts(model, q, v, T, s, contacts)
    k = frames.shape[0]
    mu = float(s.friction)
    r = rnea(model, q, v, a, f_ext, friction=friction)         # M a + h
    if not np.all(np.isfinite(r)):
        raise InputError("contact_inverse_dynamics: M a + h is not finite (a non-finite input)")
    un = ~act
    scale = 1.0 + float(np.max(np.abs(r), initial=0.0))
    if k:
        L, proj = _generators(k, mu, s.cone)
        JL = J.T @ L                                           # (nv, m): J^T lambda = JL x
        Ja, Ju = JL[act], JL[un]                             # x = lambda / scale
        ra, ru = r[act] / scale, r[un] / scale
        H = Ja.T @ Ja + weight * (L.T @ L)
        g = Ja.T @ ra
        A, b, _ = _reduce(Ju, ru)
        x = _admm(H, g, A, b, proj, tol=1e-13, max_iter=MAX_ITER)
        xp = _polish(H, g, A, b, x, s.cone, mu, k)
        if xp is not None:
            obj = lambda y: 0.5 * y @ H @ y - g @ y + 1e3 * np.sum(np.abs(Ju @ y - ru))    # noqa: E731
            if obj(xp) <= obj(x) + 1e-12:
                x = xp
        lam = scale * (L @ x)
    else:
        lam = np.zeros(0)
    rest = r - J.T @ lam
    tau = np.where(act, rest, 0.0)
    residual = float(np.max(np.abs(rest[un]), initial=0.0))
    forces = lam.reshape(k, 3)
    viol = cone_violation(forces, mu, s.cone)
    if not (np.all(np.isfinite(tau)) and np.all(np.isfinite(forces))):
        raise InputError("contact_inverse_dynamics: the result is not finite (a non-finite input)")
    status = "ok" if residual <= 1e-7 * scale and viol <= 1e-9 * scale else "infeasible"
    return ContactInverseResult(tau, forces, frames, np.asarray(C.body_a), np.asarray(C.body_b), status,
                                residual, viol)
