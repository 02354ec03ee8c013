"""Moreau-Jean time stepping: impacts, contacts and Coulomb friction in one velocity-level step.

Moreau (1988), Jean (1999); Acary & Brogliato, "Numerical Methods for Nonsmooth Dynamical
Systems" (2008), ch. 10. One step from (q_k, v_k), with the forces taken at the step's start::

    v_free = v_k + h M(q_k)^-1 (tau - h(q_k, v_k))              (h: Coriolis, gravity, friction)
    active = { i : g_i(q_k) + gamma h u_n,i(q_k, v_k) <= 0 }     (gamma = 1/2: Siconos' rule; 0 is
                                                                 taken as 1e-9 m, so that a face at
                                                                 rest keeps all its corners; 1e-6 m
                                                                 for a contact active at the step
                                                                 before, so that a loaded contact
                                                                 whose gap creeps up does not let go)
    v_k+1  = v_free + M^-1 J^T P                                 (P: the impulses of the step)
    u = J v_k+1,    u_n + e u_n,k >= 0  _|_  P_n >= 0            (Newton's impact law, per contact)
    Coulomb: P in the cone |P_t| <= mu P_n, De Saxce's complementarity on (u_n + e u_n,k + mu |u_t|, u_t)
    q_k+1  = q_k (+) h (theta v_k+1 + (1 - theta) v_k)

so that a contact that closes gets Newton's restitution, a resting contact keeps u_n = 0 (the
impacts accumulate without event location: a Zeno sequence ends in finite steps), and friction
sticks or slips inside the same problem. The one-step problem, in the impulses, is
``u = W P + b`` with the Delassus matrix ``W = J M^-1 J^T`` and ``b = J v_free + e u_n,k``
(normal rows), solved by :func:`artidyn.contact.solve_contacts`. The joints' viscous damping D is
implicit (as MuJoCo's "implicitfast"): M stands for ``M + h D`` throughout, so that a light link
with damping (a gripper's finger on talos: d h / M_ii = 5) is damped rather than driven unstable;
a PD controller's kd joins D the same way (``damping=``), so that the gains a light link needs
keep it stable at the step.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..configuration import integrate
from ..dynamics import crba, rnea
from ..geometry import contact_candidates
from ..kinematics import body_placements, body_velocities
from .jacobian import contact_frames, contact_jacobian, select_contacts
from .settings import ContactSettings
from .solvers import solve_contacts

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model


SLIP_TOL = 1e-9     # m/s: |u_t| below which a frictional contact counts as sticking (the events)
ACTIVE_TOL = 1e-9   # m: a predicted gap below this counts as closed (a resting face's corners, at 0 +- rounding)
KEEP_TOL = 1e-6     # m: ... and below this for a contact active at the previous step (hysteresis: a loaded
                    # contact whose gap creeps by rounding and the step's linearisation does not let go)


class ActiveContacts(NamedTuple):
    """The contacts of one step: body pairs, world witness points and frames (k, 3, 3: columns n,
    t1, t2), gaps, the impulses P (k, 3) in the contact frames, the contact velocity after the
    step (k, 3) and before it (k, 3)."""

    body_a: np.ndarray
    body_b: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray
    frames: np.ndarray
    gap: np.ndarray
    impulse: np.ndarray
    u_after: np.ndarray
    u_before: np.ndarray
    key: np.ndarray = None       # (k,) int: which contact this is, from step to step (see contact_keys)


class ActiveLimits(NamedTuple):
    """The joint limits active in a step: the dof index, the side (+1 lower, -1 upper), the gap
    and the impulse (a generalized force times dt, >= 0 pushing back into the range)."""

    dof: np.ndarray
    side: np.ndarray
    gap: np.ndarray
    impulse: np.ndarray


class StepResult(NamedTuple):
    q: np.ndarray
    v: np.ndarray
    contacts: ActiveContacts
    solver_status: str
    residual: float
    iterations: int
    limits: ActiveLimits = None
    bilateral: np.ndarray = None     # the impulses of the bilateral rows (m_b,)
    servo: np.ndarray = None         # the impulses of the servo-constraints along their directions (j,)


NO_LIMITS = ActiveLimits(np.zeros(0, int), np.zeros(0), np.zeros(0), np.zeros(0))


def limit_rows(model):
    """(dof (v index), q index, lower, upper) of the flat joint dofs (revolute, prismatic,
    cylindrical) with a finite limit; cached."""
    out = model._cache.get("contact.limits")
    if out is None:
        from ..joints import FLAT
        rows = []
        for i in range(1, model.nb + 1):
            for j in range(int(model.nv_joint[i]) if model.joint_type[i] in FLAT else 0):
                kq, kv = int(model.idx_q[i]) + j, int(model.idx_v[i]) + j
                lo, hi = float(model.lower[kq]), float(model.upper[kq])
                if np.isfinite(lo) or np.isfinite(hi):
                    rows.append((kv, kq, lo, hi))
        out = model._cache["contact.limits"] = rows
    return out


def contact_laws(model, shape_a, shape_b, s):
    """(mu (k,), e (k,)): the friction and restitution of contacts between collisions shape_a[i]
    and shape_b[i] (indices into ``model.collisions``): each shape's own coefficient, or the
    settings' where it has none, the larger of the pair's two
    (:func:`artidyn.geometry.shapes.pair_parameters`)."""
    from ..geometry.shapes import pair_parameters
    C = model.collisions
    out = np.array([pair_parameters(C[int(a)], C[int(b)], float(s.friction), float(s.restitution))
                    for a, b in zip(shape_a, shape_b)], dtype=float).reshape(-1, 2)
    return out[:, 0], out[:, 1]


def any_friction(model, s):
    """True when some pair of the run may have friction (the settings' or a shape's own)."""
    return s.friction > 0 or any(c.friction for c in getattr(model, "collisions", ()))


def initial_penetrations(model, q, s):
    """[(shape_a, shape_b, depth), ...]: the pairs of ``model.collisions`` that penetrate deeper than
    ``s.margin + PENETRATION_TOL`` at q (indices into ``model.collisions``; depth > 0, in m), the
    deepest contact of each pair, deepest pair first."""
    from ..geometry.broadphase import overlapping_pairs
    from .compiled import pair_depths
    from .settings import PENETRATION_TOL
    if not getattr(model, "collisions", ()):
        return []
    W, pairs = overlapping_pairs(model, body_placements(model, q), s.margin)
    depth = -pair_depths(model, W, pairs, s.margin)       # the compiled narrow phase, pair by pair
    deep = [(int(a), int(b), float(d)) for (a, b), d in zip(pairs, depth) if d > s.margin + PENETRATION_TOL]
    return sorted(deep, key=lambda x: -x[2])


def _active_limits(model, q, v, h, s):
    """Rows (l, nv) = side * e_dof, gaps, normal velocities, dofs, sides of the limits closing
    within half a step."""
    dofs, sides, gaps = [], [], []
    for kv, kq, lo, hi in limit_rows(model):
        for side, gap in ((1.0, q[kq] - lo), (-1.0, hi - q[kq])):
            if np.isfinite(gap) and gap + s.gamma * h * side * v[kv] <= ACTIVE_TOL:
                dofs.append(kv)
                sides.append(side)
                gaps.append(gap)
    return np.array(dofs, dtype=int), np.array(sides), np.array(gaps)


def _reach(model, q, v):
    """How far a point of a body may travel per second (m/s): |v_origin| + |omega| * 1 m, the most
    over the bodies; widens the detection margin so that no contact is missed within a step."""
    V = body_velocities(model, q, v)[1:]
    if V.size == 0:
        return 0.0
    return float(np.max(np.linalg.norm(V[:, 3:], axis=1) + np.linalg.norm(V[:, :3], axis=1)))


def _sequential_impacts(W, u, e, mu, s, max_sweeps=1000):
    """Impulses (3n) of binary impacts taken one at a time: while a contact approaches (u_n < 0),
    the most approaching one gets the single-contact impulse of Newton's law with its own current
    velocity (u_n+ = -e u_n, Coulomb's cone on the tangent); u is updated by W. A chain of touching
    bodies then passes the velocity from one to the next (Newton's cradle)."""
    n = u.size // 3
    u = u.copy()
    P = np.zeros_like(u)
    for _ in range(max_sweeps * max(n, 1)):
        un = u[0::3]
        i = int(np.argmin(un))
        if un[i] >= -1e-12:
            break
        sl = slice(3 * i, 3 * i + 3)
        b = u[sl].copy()
        b[0] += e[i] * u[3 * i]
        dP = np.asarray(solve_contacts(W[sl, sl], b, mu[i], method="pgs", tol=s.tol, max_iter=s.max_iter).lam)
        P[sl] += dP
        u += W[:, sl] @ dP
    return P


def contact_keys(model, shape_a, shape_b):
    """An integer per contact that names it from one step to the next: its pair of shapes and its
    rank among that pair's contacts, ``(shape_a * n_shapes + shape_b) * 64 + rank``."""
    ns = max(len(model.collisions), 1)
    pair = np.asarray(shape_a, dtype=np.int64) * ns + np.asarray(shape_b, dtype=np.int64)
    rank = np.zeros(pair.size, dtype=np.int64)
    for i in range(1, pair.size):
        if pair[i] == pair[i - 1]:
            rank[i] = rank[i - 1] + 1
    return pair * 64 + rank


def warm_start(warm, keys, ldof, lside):
    """The impulses (3 (k + l),) of the previous step's contacts and limits (a :class:`StepResult`)
    for those of this step with the same key (the others: zero)."""
    k, nl = len(keys), len(ldof)
    lam = np.zeros(3 * (k + nl))
    C, L = warm.contacts, warm.limits
    if C.key is not None and len(C.key):
        where = {int(x): i for i, x in enumerate(C.key)}
        for i, x in enumerate(keys):
            j = where.get(int(x))
            if j is not None:
                lam[3 * i:3 * i + 3] = C.impulse[j]
    if L is not None and len(L.dof):
        where = {(int(d), float(sd)): i for i, (d, sd) in enumerate(zip(L.dof, L.side))}
        for i, (d, sd) in enumerate(zip(ldof, lside)):
            j = where.get((int(d), float(sd)))
            if j is not None:
                lam[3 * (k + i)] = L.impulse[j]
    return lam


def moreau_jean_step(model: Model, q: Array, v: Array, tau: Array, h: float,
                     settings: ContactSettings | None = None, f_ext: ArrayLike | None = None, friction: bool = True,
                     warm: StepResult | None = None, constraints=None, t: float = 0.0,
                     damping: ArrayLike | None = None, servo=None) -> StepResult:
    """One Moreau-Jean step from (q, v) with torques tau over the step ``h``: a :class:`StepResult`.
    ``warm``: the previous step's result; its impulses start the solver for the contacts and
    limits found again (matched by :func:`contact_keys`). ``constraints``: bilateral constraints
    (closed loops, welds, couplings, rolling) whose rows join the step's problem as free rows,
    ``J_b v_k+1 + b_b = 0``: their impulses are eliminated by the Schur complement of their
    Delassus block, and the cone problem is solved on what remains (``StepResult.bilateral``).
    ``damping`` (nv): a damping implicit in the step beside the joints' (a PD controller's kd on
    its actuated dofs, whose torque in ``tau`` holds ``-kd v_k``): ``M + h (D + damping)``.
    ``servo``: (relations, D), servo-constraints (Appell; Béghin): the relations' rows E join the
    free rows with ``E v_k+1 + b_E(t_k+1) = 0`` (a moving relation's speed taken at the step's end:
    the projection that follows corrects along E, not along the servo's directions, so the step
    must not leave an O(h) velocity error for it), but their impulses act along the directions D (j, nv),
    ``M (v_k+1 - v_free) = J^T P + D^T P_s``; with D != E the eliminated problem is not symmetric,
    and the contacts are solved by Gauss-Seidel (:func:`artidyn.contact.friction.nsgs`)."""
    s = ContactSettings() if settings is None else settings
    T = body_placements(model, q)
    M = crba(model, q)
    nle = rnea(model, q, v, np.zeros(model.nv), f_ext, friction=friction)
    if friction:                      # joint damping implicit: (M + h D)(v_k+1 - v_k) = h (tau - h(q_k, v_k)) + J^T P
        M = M + h * np.diag(np.asarray(model.damping, dtype=float))
    if damping is not None:
        M = M + h * np.diag(np.asarray(damping, dtype=float))
    v_free = v + h * np.linalg.solve(M, tau - nle)
    cand = contact_candidates(model, T, margin=s.margin + s.gamma * h * _reach(model, q, v)) \
        if model.collisions else None
    k = 0 if cand is None else len(cand.distance)
    ldof, lside, lgap = _active_limits(model, q, v, h, s) if s.joint_limits else (np.zeros(0, int),) * 3
    empty = ActiveContacts(*(np.zeros((0,) + sh) for sh in ((), (), (3,), (3,), (3, 3), (), (3,), (3,), (3,))),
                           key=np.zeros(0, dtype=np.int64))
    if k:
        frames = contact_frames(cand.normal)
        J = contact_jacobian(model, q, cand, frames, T)
        u_before = (J @ v).reshape(k, 3)
        predicted = cand.distance + s.gamma * h * u_before[:, 0]
        active = predicted <= ACTIVE_TOL
        keys = contact_keys(model, cand.shape_a, cand.shape_b)
        if warm is not None and len(warm.contacts.key):
            active |= np.isin(keys, warm.contacts.key) & (predicted <= KEEP_TOL)
    if constraints:
        from ..constraints import constraint_rows
        rb = constraint_rows(model, q, v, constraints, t)
        Jb, bb = rb.J, rb.b
    else:
        Jb, bb = np.zeros((0, model.nv)), np.zeros(0)
    if servo is not None:
        from ..constraints import constraint_rows
        rs = constraint_rows(model, q, v, servo[0], t + h)     # the relation held at the step's end
        Es, bs, Ds = rs.J, rs.b, np.asarray(servo[1], dtype=float)
    else:
        Es, bs, Ds = np.zeros((0, model.nv)), np.zeros(0), np.zeros((0, model.nv))
    if (not k or not np.any(active)) and not ldof.size and not len(bb) and not len(bs):
        v_new = v_free
        q_new = integrate(model, q, h * (s.theta * v_new + (1.0 - s.theta) * v))
        return StepResult(q_new, v_new, empty, "no contact", 0.0, 0, NO_LIMITS)
    if k:
        keys = keys[active]
        rows = np.repeat(active, 3)
        J, frames, u_before = J[rows], frames[active], u_before[active]
        cand = select_contacts(cand, active)
        k = int(active.sum())
    else:
        J, frames, u_before = np.zeros((0, model.nv)), np.zeros((0, 3, 3)), np.zeros((0, 3))
        cand, keys = None, np.zeros(0, dtype=np.int64)
    n_l = ldof.size
    if n_l:                          # each active limit: a frictionless "contact" on its dof
        L = np.zeros((3 * n_l, model.nv))
        L[3 * np.arange(n_l), ldof] = lside
        J = np.vstack([J, L])
    mc, mb = J.shape[0], Jb.shape[0]
    J = np.vstack([J, Jb])
    if len(bs):                      # servo rows: the relations' rows, their impulses along D
        N = np.vstack([J, Ds])
        J, bb = np.vstack([J, Es]), np.concatenate([bb, bs])
        MinvJt = np.linalg.solve(M, N.T)        # M^-1 N^T: what each row's impulse does to v
    else:
        MinvJt = np.linalg.solve(M, J.T)
    W = J @ MinvJt
    mu_c, e_c = contact_laws(model, cand.shape_a, cand.shape_b, s) if k else (np.zeros(0), np.zeros(0))
    mu = np.concatenate([mu_c, np.zeros(n_l)])
    e = np.concatenate([e_c, np.full(n_l, float(s.limit_restitution))])
    P_seq = np.zeros(J.shape[0])
    if s.impacts == "sequential" and mc:   # the impacts first, one contact at a time, then a step with e = 0
        P_seq[:mc] = _sequential_impacts(W[:mc, :mc], J[:mc] @ v, e, mu, s)
        v_free = v_free + MinvJt @ P_seq
        e = np.zeros_like(e)
    b = J @ v_free
    b[mc:] += bb
    b[0:mc:3] += e * (J[:mc] @ v)[0::3]
    # free rows: P_b = -W_bb^+ (b_b + W_bc P_c); the cone problem on the Schur complement
    Wbb_pinv = np.linalg.pinv(W[mc:, mc:], rcond=1e-11) if J.shape[0] > mc else np.zeros((0, 0))
    X = Wbb_pinv @ np.hstack([W[mc:, :mc], b[mc:, None]])
    Wc, bc = W[:mc, :mc] - W[:mc, mc:] @ X[:, :mc], b[:mc] - W[:mc, mc:] @ X[:, mc]
    P = np.zeros(J.shape[0])
    sol = None
    if mc:
        lam0 = None if warm is None or s.impacts == "sequential" else warm_start(warm, keys, ldof, lside)
        if len(bs) and np.abs(Wc - Wc.T).max() > 1e-9 * max(1.0, np.abs(Wc).max()):
            sol = _gauss_seidel(Wc, bc, mu, s, lam0)      # a non-ideal servo: Wc is not symmetric
        else:
            sol = solve_contacts(Wc, bc, mu, method=s.solver, cone=s.cone, tol=s.tol, max_iter=s.max_iter,
                                 warm_start=lam0)
        P[:mc] = np.asarray(sol.lam, dtype=float)
    P[mc:] = -X[:, mc] - X[:, :mc] @ P[:mc]
    v_new = v_free + MinvJt @ P
    P = P + P_seq
    q_new = integrate(model, q, h * (s.theta * v_new + (1.0 - s.theta) * v))
    u_after = (J[:3 * k] @ v_new).reshape(k, 3)
    res = 0.0 if sol is None else max((float(x) for x in sol.residuals.values()), default=0.0)
    contacts = empty if not k else ActiveContacts(
        np.asarray(cand.body_a), np.asarray(cand.body_b), np.asarray(cand.point_a), np.asarray(cand.point_b), frames,
        np.asarray(cand.distance), P[:3 * k].reshape(k, 3), u_after, u_before, keys)
    limits = ActiveLimits(ldof, lside, lgap, P[3 * k:mc:3]) if n_l else NO_LIMITS
    return StepResult(q_new, v_new, contacts, "bilateral only" if sol is None else sol.status, res,
                      0 if sol is None else int(sol.iterations), limits, P[mc:mc + mb], P[mc + mb:])


def _gauss_seidel(W, b, mu, s, lam0):
    """The contact problem on a Delassus matrix that is not symmetric (a servo-constraint's
    directions differ from its rows): block Gauss-Seidel with each contact's 3x3 problem solved
    exactly (:func:`artidyn.contact.friction.nsgs`, which never assumes symmetry), as a
    ContactSolution."""
    from .friction import nsgs
    from .solvers import ContactSolution
    lam, u, res, it, status = nsgs(W, b, np.asarray(mu, dtype=float), s.tol, s.max_iter,
                                   None if lam0 is None else np.asarray(lam0, dtype=float))
    return ContactSolution(lam, u, res, it, status)
