"""Base parameters with names: the grouping rules of Gautier & Khalil for serial chains (and trees)
of revolute and prismatic joints.

Gautier & Khalil, "Direct calculation of minimum set of inertial parameters of serial robots",
IEEE Trans. Robotics and Automation 6(3), 1990; Khalil & Dombre, "Modeling, identification and
control of robots", ch. 12.4. A parameter is grouped when its energy function is a linear
combination of others; the rules follow from the kinematics, without a regressor.

Names are Khalil's, numbered by body index j: ``M2, MX2, MY2, MZ2, XX2, XY2, XZ2, YY2, YZ2, ZZ2``
(the 10 standard parameters of :mod:`.parameters`, in body j's frame, about its origin), ``Ia2,
Fv2, Fc2, off2`` (joint j). A regrouped parameter takes an ``R``: ``XXR2 = XX2 - YY2``.

General rules (tip to base, j = nb .. 1, joint j about or along the body-frame axis e_k; (a, b, k)
cyclic, so k = z gives a = x, b = y):

* revolute j: the part of body j invariant under the joint rotation, a pseudo-body with mass
  ``M_j``, first moment ``MK_j e_k`` and inertia ``YY_j (1 - e_k e_k^T)`` (about O_j, on the
  axis), moves rigidly with the parent: it is removed from body j and added to the parent,
  transported by the joint placement (``I' = R I R^T - m[p]^2 - [p][R h] - [R h][p]``,
  ``h' = R h + m p``). Body j keeps ``XXR_j = XX_j - YY_j``; ``YY_j, MZ_j, M_j`` disappear
  (Khalil's relations, e.g. ``XXR_{j-1} = XX_{j-1} + YY_j + 2 r_j MZ_j + r_j^2 M_j``).
* prismatic j: body j does not rotate with respect to its parent, so its six inertia entries
  (about O_j) move to the parent, rotated: ``I_{j-1} += R I_j R^T``.
* a parent that is the world (fixed base) absorbs the moved parameters: they have no effect.

Particular cases near the base (Khalil & Dombre 12.4.3), from the kinematics at q = 0:

* every revolute joint from the base to body j parallel to j's axis (the angular velocity of j
  keeps one direction, e_k): only the inertia about the axis acts, ``XXR_j, XY_j, XZ_j, YZ_j``
  have no effect;
* the revolute joints before j all parallel to one another and perpendicular to j's axis (or
  none: then ``omega_j . e_k = qd_j`` for every motion): ``Ia_j`` adds to ``ZZR_j``;
  a prismatic body 1 (no rotation at all): ``Ia_1`` adds to ``MR_1``;
* the origin of body j fixed in the world (on every revolute axis before it, no prismatic
  joint) and gravity zero or parallel to that fixed rotation axis, or body j never rotating:
  its first moments have no effect.

The rules do not cover every particular case (e.g. Cartesian robots). :func:`grouped_parameters`
checks the result against a stacked regressor (rank and reproduction of tau); the names the
rules left although the data cannot separate them are listed in ``unresolved`` (empty for the
Puma 560, the UR arms, the planar 2R): the base then is :func:`~.base.base_parameters`.
"""
from typing import NamedTuple

import numpy as np

from ..errors import ModelError
from .parameters import NB_BODY, body_columns, dof_columns, n_parameters

KHALIL_BODY = ("M", "MX", "MY", "MZ", "XX", "XY", "XZ", "YY", "YZ", "ZZ")
KHALIL_DOF = ("Ia", "Fv", "Fc", "off")
_INERTIA = {(0, 0): 4, (0, 1): 5, (0, 2): 6, (1, 1): 7, (1, 2): 8, (2, 2): 9}


def _ii(a, b):
    """index in the 10 body parameters of the inertia entry (a, b)."""
    return _INERTIA[(min(a, b), max(a, b))]


class GroupedParameters(NamedTuple):
    """Result of :func:`grouped_parameters`: r named base parameters ``beta = G pi``."""

    rank: int                 # r, the number of base parameters
    names: list               # (r,) Khalil's names, "XXR2", "ZZR1", "MX3", "Fv2"
    expressions: list         # (r,) "XXR2 = XX2 - YY2 + ..." in standard names
    G: np.ndarray             # (r, p): beta = G pi
    columns: np.ndarray       # (r,) the regressor column of each: Y[..., columns] @ beta == Y @ pi
    unresolved: list          # names the rules kept but the regressor cannot separate (see module)
    standard_names: list      # (p,) Khalil's name of each entry of pi ("M2", "Ia3" ...)

    def beta(self, pi):
        """Base parameters beta = G pi of a standard parameter vector (or (M, p) batch)."""
        return np.asarray(pi) @ self.G.T

    def regressor(self, Y):
        """Base regressor Y[..., columns]: ``Y_b @ beta == Y @ pi``."""
        return np.asarray(Y)[..., self.columns]


def standard_names(model):
    """Khalil's name of each entry of pi: ``M1 .. ZZ1, M2 ..., Ia1, Fv1, Fc1, off1, ...``
    (bodies and joints numbered by body index)."""
    names = [f"{p}{i}" for i in range(1, model.nb + 1) for p in KHALIL_BODY]
    for i in range(1, model.nb + 1):
        k = int(model.nv_joint[i])
        names += [f"{p}{i}" if k == 1 else f"{p}{i}_{d}" for d in range(k) for p in KHALIL_DOF]
    return names


def _joint_axes(model):
    """(kind, k) per body: kind 'R' or 'P', k the body-frame axis index (0, 1, 2)."""
    out = [None]
    for j in range(1, model.nb + 1):
        S = np.asarray(model.S[j], dtype=float)
        name = model.joint_names[j]
        if S.shape[1] != 1:
            raise ModelError(f"model '{model.name}', joint '{name}': the grouping rules need one-dof "
                             f"joints, this one has {S.shape[1]} dofs (use base_parameters)")
        w, u = S[:3, 0], S[3:, 0]
        for kind, axis, other in (("R", w, u), ("P", u, w)):
            k = int(np.argmax(np.abs(axis)))
            if np.allclose(other, 0, atol=1e-12) and abs(abs(axis[k]) - 1) < 1e-12 and \
                    np.allclose(np.delete(axis, k), 0, atol=1e-12):
                out.append((kind, k))
                break
        else:
            raise ModelError(f"model '{model.name}', joint '{name}': axis {np.round(S[:, 0], 6).tolist()} is "
                             f"not along a body-frame axis x, y or z; the named grouping rules need such "
                             f"frames (Khalil's), use base_parameters for this model")
    return out


def transfer_matrix(T):
    """10 x 10 matrix: the standard parameters of a body in frame j -> the same body's in the parent
    frame, for the placement ``T`` (4x4, frame j in the parent): ``m' = m``, ``h' = R h + m p``,
    ``I' = R I R^T - m [p]^2 - [p][R h] - [R h][p]`` (parallel axis theorem, Khalil & Dombre 9)."""
    from ..spatial.motion import skew
    R, p = np.asarray(T, dtype=float)[:3, :3], np.asarray(T, dtype=float)[:3, 3]
    P = skew(p)
    M = np.zeros((NB_BODY, NB_BODY))
    for c in range(NB_BODY):
        x = np.zeros(NB_BODY)
        x[c] = 1.0
        m, h = x[0], x[1:4]
        I = np.array([[x[4], x[5], x[6]], [x[5], x[7], x[8]], [x[6], x[8], x[9]]])
        Rh = R @ h
        I2 = R @ I @ R.T - m * P @ P - P @ skew(Rh) - skew(Rh) @ P
        M[:, c] = np.r_[m, Rh + m * p, I2[0, 0], I2[0, 1], I2[0, 2], I2[1, 1], I2[1, 2], I2[2, 2]]
    return M


def _invariant_part(kind, k):
    """10 x 10 selector: the pseudo-body that moves with the parent (module docstring)."""
    B = np.zeros((NB_BODY, NB_BODY))
    if kind == "P":
        for c in range(4, 10):
            B[c, c] = 1.0
        return B
    a, b = (k + 1) % 3, (k + 2) % 3
    B[0, 0] = 1.0                      # M_j
    B[1 + k, 1 + k] = 1.0              # first moment along the axis
    B[_ii(a, a), _ii(b, b)] = 1.0      # YY_j (1 - e_k e_k^T): alpha on the a and b diagonal entries
    B[_ii(b, b), _ii(b, b)] = 1.0
    return B


def _path(model, j):
    out = []
    while j > 0:
        out.append(j)
        j = model.parent[j]
    return out[::-1]


def _world_axes(model, axes):
    """World placement (4x4) of each body and world direction of each joint axis, at q = 0."""
    T = [np.eye(4)]
    for j in range(1, model.nb + 1):
        T.append(T[model.parent[j]] @ np.asarray(model.joint_placement[j], dtype=float))
    u = [None] + [T[j][:3, axes[j][1]] for j in range(1, model.nb + 1)]
    return T, u


def _particular(model, axes, E, alive):
    """Apply the particular cases near the base (module docstring) to E / alive."""
    T, u = _world_axes(model, axes)
    g = np.asarray(model.gravity, dtype=float)
    for j in range(1, model.nb + 1):
        path = _path(model, j)
        rev = [i for i in path if axes[i][0] == "R"]
        pri = [i for i in path if axes[i][0] == "P"]
        kind, k = axes[j]
        cols = body_columns(model, j)
        base = cols.start
        parallel = bool(rev) and all(abs(abs(u[i] @ u[rev[0]]) - 1) < 1e-9 for i in rev)
        if kind == "R" and parallel:
            for a in range(3):
                for b in range(a, 3):
                    if (a, b) != (k, k):
                        alive[base + _ii(a, b)] = False
        ia = dof_columns(model, "Ia")[model.idx_v[j]]
        before = [i for i in rev if i != j]
        if kind == "R" and all(abs(u[i] @ u[j]) < 1e-9 and abs(abs(u[i] @ u[before[0]]) - 1) < 1e-9
                               for i in before):
            E[base + _ii(k, k)] += E[ia]   # omega_j . s_j = qd_j: Ia_j and ZZ_j share their energy
            alive[ia] = False
        if kind == "P" and not rev and model.parent[j] == 0:
            E[base] += E[ia]
            alive[ia] = False
        origin = T[j][:3, 3]
        fixed = not pri and all(np.linalg.norm(np.cross(origin - T[i][:3, 3], u[i])) < 1e-9 for i in rev)
        vertical = parallel and (np.linalg.norm(g) == 0 or np.linalg.norm(np.cross(g, u[rev[0]])) < 1e-9 *
                                 np.linalg.norm(g))
        if not rev or (fixed and (vertical or np.linalg.norm(g) == 0)):
            alive[base + 1:base + 4] = False


def _expression(name, row, std_names, own):
    """"NAME = own + c1*P1 ..." (the slot's own standard parameter first, then pi's order)."""
    tol = 1e-12 * max(1.0, np.abs(row).max(initial=0.0))
    terms = []
    support = [c for c in np.flatnonzero(np.abs(row) > tol) if c != own]
    for c in ([own] if abs(row[own]) > tol else []) + support:
        coef = row[c]
        if abs(coef - 1) < 1e-12:
            terms.append(f"+ {std_names[c]}")
        elif abs(coef + 1) < 1e-12:
            terms.append(f"- {std_names[c]}")
        else:
            terms.append(f"{'-' if coef < 0 else '+'} {abs(coef):.6g}*{std_names[c]}")
    body = " ".join(terms) if terms else "0"
    return f"{name} = {body[2:] if body.startswith('+ ') else body}"


def grouped_parameters(model, check=True, n_samples=None, rng=0):
    """Named base parameters of a chain or tree of one-dof joints (module docstring).

    Parameters
    ----------
    model : Model (revolute and prismatic joints along body-frame axes; fixed base)
    check : bool
        stack the regressor over random states and list, in ``unresolved``, the kept names that
        are linear combinations of the others (the rules' particular cases missed)
    n_samples, rng : random states of that check (as :func:`~.base.base_parameters`)

    Returns
    -------
    GroupedParameters (rank, names, expressions, G, columns, unresolved, standard_names), with
    ``Y[..., columns] @ (G @ pi) == Y @ pi`` for every state.
    """
    axes = _joint_axes(model)
    p = n_parameters(model)
    E = np.eye(p)                       # row c: the current value of slot c as a combination of pi
    alive = np.ones(p, dtype=bool)
    for j in range(model.nb, 0, -1):
        cols = body_columns(model, j)
        B = _invariant_part(*axes[j])
        moved = B @ E[cols]
        E[cols] -= moved
        alive[cols.start + np.flatnonzero(np.diag(B) != 0)] = False
        lam = model.parent[j]
        if lam > 0:
            E[body_columns(model, lam)] += transfer_matrix(model.joint_placement[j]) @ moved
    _particular(model, axes, E, alive)
    E[np.abs(E) < 1e-12 * np.maximum(1.0, np.abs(E).max(axis=1, keepdims=True))] = 0.0
    std = standard_names(model)
    columns = np.flatnonzero(alive)
    G = E[columns]
    names = []
    for c in columns:
        unit = np.zeros(p)
        unit[c] = 1.0
        n = std[c]
        if not np.array_equal(E[c], unit):
            letters = n.rstrip("0123456789_")
            n = f"{letters}R{n[len(letters):]}"
        names.append(n)
    expressions = [_expression(n, G[k], std, c) for k, (n, c) in enumerate(zip(names, columns))]
    unresolved = _unresolved(model, columns, names, n_samples, rng) if check else []
    return GroupedParameters(len(columns), names, expressions, G, columns, unresolved, std)


def _unresolved(model, columns, names, n_samples, rng):
    """Names among the kept columns that the stacked regressor cannot separate (QR with pivoting)."""
    import scipy.linalg

    from .base import random_states
    from .regressor import _regressor

    if n_samples is None:
        n_samples = int(np.ceil(3 * len(columns) / max(model.nv, 1))) + 20
    q, v, a = random_states(model, n_samples, rng)
    W = _regressor(model, q, v, a)[..., columns].reshape(-1, len(columns))
    if W.size == 0:
        return []
    _, R, P = scipy.linalg.qr(W, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    tol = max(W.shape) * np.finfo(float).eps * d[0] if d.size else 0.0
    r = int(np.sum(d > tol))
    return sorted(names[c] for c in P[r:])
