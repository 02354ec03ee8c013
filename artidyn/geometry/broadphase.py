"""Collision detection over a model: pair filtering, broad phase (AABB), narrow phase.

``contact_candidates(model, T_bodies, margin)`` takes the world placements of all bodies
(``(nb + 1, 4, 4)``, as :func:`artidyn.body_placements` returns them; this module does not
compute kinematics) and returns the :class:`Contacts` with ``distance <= margin``.

Pairs of ``model.collisions`` considered (fixed per model, cached):

* not on the same body (the world, body 0, included: fixed scenery never collides with itself);
* not a parent and its child (adjacent bodies, MuJoCo's default filter), except when the parent
  is the world: a floating base still touches the ground;
* not a pair of ``model.collision_exclusions``;
* not two half-spaces;
* the two shapes' bit masks agree (MuJoCo's rule): ``(contype_a & conaffinity_b) or
  (contype_b & conaffinity_a)`` is nonzero (every shape has 1 and 1 unless told otherwise).

Broad phase: each shape's world AABB, inflated by ``margin``, must overlap the other's (a
half-space's box is unbounded, so it is always a candidate). Narrow phase:
:func:`artidyn.geometry.contacts` (several points for a face on a half-space). Each pair is
ordered so that ``body_a > body_b``: b is nearer the root, and the world, when involved, is b.
"""
from typing import NamedTuple

import numpy as np

from ..errors import InputError, ShapeError
from .collision import contacts
from .shapes import HalfSpace, aabb


class Contacts(NamedTuple):
    """Contacts found by :func:`contact_candidates` (k of them; arrays, world axes).

    body_a, body_b : (k,) int, body indices (b may be 0, the world); body_a > body_b
    shape_a, shape_b : (k,) int, indices in ``model.collisions``
    distance : (k,) signed distance (< 0: penetration)
    normal : (k, 3) unit normal from b to a
    point_a, point_b : (k, 3) witness points on a and on b, ``point_a - point_b = distance * normal``
    """

    body_a: np.ndarray
    body_b: np.ndarray
    shape_a: np.ndarray
    shape_b: np.ndarray
    distance: np.ndarray
    normal: np.ndarray
    point_a: np.ndarray
    point_b: np.ndarray


def collision_pairs(model):
    """(p, 2) int: the pairs (a, b) of collision indices that may touch, body[a] > body[b].

    Same body, parent-child (parent not the world), excluded pairs, two half-spaces and pairs
    whose ``contype`` / ``conaffinity`` masks forbid them are left out. Cached on the model.
    """
    cache = getattr(model, "_cache", None)
    if cache is not None and "collision_pairs" in cache:
        return cache["collision_pairs"]
    cols = getattr(model, "collisions", ())
    excluded = set(map(tuple, getattr(model, "collision_exclusions", ())))
    parent = np.asarray(model.parent)
    pairs = []
    for i, ci in enumerate(cols):
        for j in range(i + 1, len(cols)):
            cj = cols[j]
            a, b = (i, j) if ci.body > cj.body else (j, i)
            ba, bb = cols[a].body, cols[b].body
            if ba == bb or (bb, ba) in excluded or (bb != 0 and parent[ba] == bb):
                continue
            if isinstance(ci.shape, HalfSpace) and isinstance(cj.shape, HalfSpace):
                continue
            if not ((ci.contype & cj.conaffinity) or (cj.contype & ci.conaffinity)):
                continue
            pairs.append((a, b))
    out = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    out.flags.writeable = False
    if cache is not None:
        cache["collision_pairs"] = out
    return out


def world_placements(model, T_bodies):
    """(k, 4, 4): the world placement of each of ``model.collisions``."""
    cols = model.collisions
    if not cols:
        return np.zeros((0, 4, 4))
    body = np.array([c.body for c in cols])
    P = np.array([c.placement for c in cols])
    return np.einsum("kij,kjl->kil", T_bodies[body], P)


def _check_placements(model, T_bodies, margin):
    T = np.asarray(T_bodies, dtype=float)
    if T.shape != (model.nb + 1, 4, 4):
        raise ShapeError(f"T_bodies must have shape ({model.nb + 1}, 4, 4) (the placements of model "
                         f"'{model.name}''s bodies, world first), got {T.shape}; a batch is not accepted: "
                         f"call once per state")
    if not np.all(np.isfinite(T)):
        raise InputError("T_bodies is not finite")
    margin = float(margin)
    if not np.isfinite(margin) or margin < 0:
        raise InputError(f"margin must be finite and >= 0, got {margin}")
    return T, margin


def overlapping_pairs(model, T_bodies, margin=0.0):
    """(W, pairs): the world placements of ``model.collisions`` (:func:`world_placements`) and the
    pairs of :func:`collision_pairs` whose world AABBs, inflated by ``margin``, overlap (the broad
    phase of :func:`contact_candidates`; T_bodies and margin as there, not checked again)."""
    pairs = collision_pairs(model)
    if not len(pairs):
        return np.zeros((len(getattr(model, "collisions", ())), 4, 4)), pairs
    W = world_placements(model, T_bodies)
    boxes = [aabb(c.shape, Tk) for c, Tk in zip(model.collisions, W)]
    lo = np.array([b[0] for b in boxes]) - margin
    hi = np.array([b[1] for b in boxes]) + margin
    a, b = pairs[:, 0], pairs[:, 1]
    return W, pairs[np.all((lo[a] <= hi[b]) & (lo[b] <= hi[a]), axis=1)]


def contact_candidates(model, T_bodies, margin=0.0):
    """The :class:`Contacts` of ``model.collisions`` at the body placements ``T_bodies``.

    Parameters
    ----------
    model : Model with ``collisions`` (and ``collision_exclusions``)
    T_bodies : (nb + 1, 4, 4) world placement of each body (row 0: the world), e.g.
        ``artidyn.body_placements(model, q)``
    margin : float >= 0; contacts with ``distance <= margin`` are returned (AABBs are inflated by it)
    """
    T, margin = _check_placements(model, T_bodies, margin)
    W, near = overlapping_pairs(model, T, margin)
    rows = []
    cols = model.collisions
    for i, j in near:
        for d, n, p_a, p_b in contacts(cols[i].shape, W[i], cols[j].shape, W[j], margin):
            rows.append((cols[i].body, cols[j].body, i, j, d, n, p_a, p_b))
    if not rows:
        empty_i, empty_3 = np.zeros(0, dtype=np.int64), np.zeros((0, 3))
        return Contacts(empty_i, empty_i.copy(), empty_i.copy(), empty_i.copy(), np.zeros(0), empty_3,
                        empty_3.copy(), empty_3.copy())
    cols_ = list(zip(*rows))
    ints = [np.array(c, dtype=np.int64) for c in cols_[:4]]
    return Contacts(*ints, np.array(cols_[4], dtype=float), np.array(cols_[5]), np.array(cols_[6]),
                    np.array(cols_[7]))
