"""Contact frames and the contact Jacobian: relative velocity of the two material points.

For contact i between body a and body b, with unit normal ``n`` (world axes, from b to a) and
witness points ``p_a`` on a, ``p_b`` on b, the contact frame is ``C_i = [n, t1, t2]`` and the
contact velocity is the relative velocity of the two material points in that frame::

    u_i = C_i^T (v_a(p_a) - v_b(p_b)) = J_i v,      v_k(p) = v_k(o_k) + omega_k x (p - o_k)

so ``J_i = C_i^T (J_a,lin(p_a) - J_b,lin(p_b))`` with ``J_lin(p) = J_lin(o) - [p - o]x J_ang``
from each body's world Jacobian at its origin (rows [angular; linear], world axes). ``u_n > 0``
separates; a point contact constrains the linear velocity only (the angular rows stay free).
The impulses / forces ``lambda_i = (lambda_n, lambda_t1, lambda_t2)`` act on a at p_a (and the
opposite on b at p_b): ``M dv = J^T lambda``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..geometry import contact_candidates
from ..kinematics import body_placements, jacobian

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model
    from ..geometry.broadphase import Contacts


AXIS_TIE = 1e-12      # components of n within this of the smallest count as equal (the first is taken)


def _least_aligned(N):
    """Index of the world axis least aligned with each row of N (k, 3): the first whose |n_i| is
    within AXIS_TIE of the smallest, so that round-off in a normal never flips the tangents."""
    A = np.abs(N)
    return np.argmax(A <= A.min(axis=1, keepdims=True) + AXIS_TIE, axis=1)


def tangents(n):
    """Two unit tangents (t1, t2) completing the unit normal n to a right-handed frame [n, t1, t2];
    t1 is made from the world axis least aligned with n (deterministic)."""
    n = np.asarray(n, dtype=float)
    e = np.zeros(3)
    e[int(_least_aligned(n[None])[0])] = 1.0
    t1 = np.cross(n, e)
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def contact_frames(normals: ArrayLike) -> Array:
    """(k, 3, 3): the columns n, t1, t2 of each contact frame (as :func:`tangents`, vectorised)."""
    n = np.asarray(normals, dtype=float).reshape(-1, 3)
    e = np.zeros_like(n)
    e[np.arange(n.shape[0]), _least_aligned(n)] = 1.0
    t1 = np.cross(n, e)
    t1 /= np.linalg.norm(t1, axis=1, keepdims=True)
    return np.stack([n, t1, np.cross(n, t1)], axis=2)


def _point_jacobians(model, q, T, bodies, points):
    """(k, 3, nv): the world linear Jacobian of the material point ``points[i]`` of ``bodies[i]``."""
    out = np.zeros((len(bodies), 3, model.nv))
    cache = {}
    for i, (k, p) in enumerate(zip(bodies, points)):
        k = int(k)
        if k == 0:
            continue
        if k not in cache:
            cache[k] = jacobian(model, q, model.body_names[k])
        Jk = cache[k]
        r = p - T[k, :3, 3]
        skew = np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])
        out[i] = Jk[3:] - skew @ Jk[:3]
    return out


def contact_jacobian(model: Model, q: ArrayLike, contacts: Contacts, frames: Array | None = None,
                     T: Array | None = None) -> Array:
    """The contact Jacobian (3k, nv), rows (n, t1, t2) per contact, of the contacts (a
    :class:`artidyn.geometry.Contacts`) at configuration q; ``frames`` (k, 3, 3) as
    :func:`contact_frames` gives them, computed when not given."""
    k = len(contacts.distance)
    if k == 0:
        return np.zeros((0, model.nv))
    T = body_placements(model, q) if T is None else T
    C = contact_frames(contacts.normal) if frames is None else frames
    Ja = _point_jacobians(model, q, T, contacts.body_a, contacts.point_a)
    Jb = _point_jacobians(model, q, T, contacts.body_b, contacts.point_b)
    return np.einsum("kji,kjn->kin", C, Ja - Jb).reshape(3 * k, model.nv)


def select_contacts(C, mask):
    """The contacts of ``C`` (a :class:`artidyn.geometry.Contacts`) where ``mask`` is true."""
    return type(C)(*(np.asarray(x)[mask] for x in C))


def closed_contacts(model, q, v, T, margin, vel_tol=1e-9):
    """The model's contacts at (q, v) within ``margin`` whose normal velocity is <= ``vel_tol``
    (closed, not opening), with their frames (k, 3, 3) and Jacobian (3k, nv); T: the body
    placements at q."""
    C = contact_candidates(model, T, margin=margin)
    if len(C.distance) == 0:
        return C, np.zeros((0, 3, 3)), np.zeros((0, model.nv))
    frames = contact_frames(C.normal)
    J = contact_jacobian(model, q, C, frames, T)
    keep = (J @ v)[0::3] <= vel_tol
    return select_contacts(C, keep), frames[keep], J[np.repeat(keep, 3)]
