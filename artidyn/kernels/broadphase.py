"""Compiled broad phase: the world axis-aligned bounding box of every shape, once per step, and the
overlap test that keeps a candidate pair away from the narrow phase (mirrors
:func:`artidyn.geometry.aabb` and :func:`artidyn.geometry.broadphase.contact_candidates`' culling).

A pair goes on to :func:`.contact_geometry.pair_contacts` only when its boxes, each widened by the
step's margin, overlap on every axis (a half-space: when the other shape's box reaches within the
margin of its plane). The test is conservative (a box holds its shape), so no contact within the
margin is lost and a run finds the same contacts, in the same order, as without it; the narrow phase
then costs with the shapes that are close, not with every candidate pair.

``AB`` (ns, 12): lo x, y, z, hi x, y, z in world axes; a half-space's row holds its world plane
(n (3), offset, 0, 0). A mesh's box is exact: its extreme vertices along the six directions, each
found by :func:`.gjk.climb` from the one of the step before (a few vertices read, not all).
"""
import math

import numba as nb

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .contact_rows import BOX, CAPSULE, CYLINDER, HALFSPACE, MESH, SK, SP, SPHERE
from .gjk import climb

SLACK = 1e-9        # m: added to the margin (the narrow phase's own rounding)


@nb.njit
def world_bounds(SH, Wsh, HULL, AB):
    """AB <- the world boxes of the shapes placed at Wsh (ns, 4, 4); HULL: the packed hulls
    (:mod:`.gjk`). AB (ns, 12): columns 6 .. 11 keep, for a mesh, the vertex rows of its box's
    sides (lo x, hi x, lo y, ...), where the next step's climbs start."""
    HV, AO, AN = HULL[0], HULL[4], HULL[5]
    for s in range(SH.shape[0]):
        kind = int(SH[s, SK])
        T = Wsh[s]
        if kind == HALFSPACE:
            m0, m1, m2 = SH[s, SP], SH[s, SP + 1], SH[s, SP + 2]
            n0 = T[0, 0] * m0 + T[0, 1] * m1 + T[0, 2] * m2
            n1 = T[1, 0] * m0 + T[1, 1] * m1 + T[1, 2] * m2
            n2 = T[2, 0] * m0 + T[2, 1] * m1 + T[2, 2] * m2
            AB[s, 0], AB[s, 1], AB[s, 2] = n0, n1, n2
            AB[s, 3] = SH[s, SP + 3] + n0 * T[0, 3] + n1 * T[1, 3] + n2 * T[2, 3]
            AB[s, 4] = AB[s, 5] = 0.0
            continue
        if kind == MESH:            # the extreme vertices along the world axes, each climbed to from
            v0, nv = int(SH[s, SP]), int(SH[s, SP + 1])      # the last step's (AB columns 6 .. 11)
            for r in range(3):
                for side in range(2):
                    sg = 1.0 if side else -1.0
                    k = int(AB[s, 6 + 2 * r + side])
                    if not v0 <= k < v0 + nv:
                        k = v0
                    k = climb(HV, AO, AN, k, sg * T[r, 0], sg * T[r, 1], sg * T[r, 2])
                    AB[s, 6 + 2 * r + side] = k
                    AB[s, 3 * side + r] = T[r, 3] + T[r, 0] * HV[k, 0] + T[r, 1] * HV[k, 1] + T[r, 2] * HV[k, 2]
            continue
        for r in range(3):
            if kind == SPHERE:
                e = SH[s, SP]
            elif kind == BOX:
                e = abs(T[r, 0]) * SH[s, SP] + abs(T[r, 1]) * SH[s, SP + 1] + abs(T[r, 2]) * SH[s, SP + 2]
            elif kind == CAPSULE or kind == CYLINDER:      # the axis' half length, then the radius
                e = 0.5 * abs(T[r, 2]) * SH[s, SP + 1] + SH[s, SP]
            else:
                e = math.inf
            AB[s, r], AB[s, 3 + r] = T[r, 3] - e, T[r, 3] + e


@nb.njit
def _below(AB, box, plane, margin):
    """True when box's lowest point along the plane's normal is within margin of the plane."""
    d = -AB[plane, 3]
    for r in range(3):
        n = AB[plane, r]
        d += n * (AB[box, r] if n > 0 else AB[box, 3 + r])
    return d <= margin + SLACK


@nb.njit
def overlap(SH, AB, a, b, margin):
    """True when shapes a and b may be within ``margin`` of each other (their boxes say so)."""
    ha, hb = int(SH[a, SK]) == HALFSPACE, int(SH[b, SK]) == HALFSPACE
    if ha and hb:
        return True                   # the narrow phase says what it says of two planes
    if hb:
        return _below(AB, a, b, margin)
    if ha:
        return _below(AB, b, a, margin)
    w = margin + SLACK
    for r in range(3):
        if AB[a, r] - AB[b, 3 + r] > w or AB[b, r] - AB[a, 3 + r] > w:
            return False
    return True
