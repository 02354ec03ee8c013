"""Compiled broad phase: the world axis-aligned bounding box of every shape, once per step, and the
overlap test that keeps a candidate pair away from the narrow phase (mirrors
:func:`artidyn.geometry.aabb` and :func:`artidyn.geometry.broadphase.contact_candidates`' culling).

A pair goes on to :func:`.contact_geometry.pair_contacts` only when its boxes, each widened by the
step's margin, overlap on every axis (a half-space: when the other shape's box reaches within the
margin of its plane). The test is conservative (a box holds its shape), so no contact within the
margin is lost and a run finds the same contacts, in the same order, as without it; the narrow phase
then costs with the shapes that are close, not with every candidate pair.

The pairs whose boxes overlap come from a sweep along the axis where the fewest boxes overlap
(:func:`candidates`), not from a test of every pair: 53 collision meshes of a humanoid make 929
candidate pairs, of which about 10 overlap; the sweep tests 42 pairs (along x it tested 659).
A pair that GJK found apart at the step before is tested first on the axis that separated it
(:func:`apart`): two links side by side (a robot's arm, its gripper's fingers) whose boxes always
overlap cost two support points a step, not a GJK. Both are exact: a pair is left out only when it
is proved further apart than the margin.

``AB`` (ns, 6): lo x, y, z, hi x, y, z in world axes; a half-space's row holds its world plane
(n (3), offset, 0, 0). A mesh is bounded by its own box turned with it, each side held within the
sphere about the box's centre (MuJoCo bounds its geoms likewise, by a box in the geom's frame): O(1)
a mesh, looser than its extreme vertices by up to sqrt(3), which costs a few more pairs for
:func:`apart`, never a contact.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .contact_rows import BOX, CAPSULE, CYLINDER, HALFSPACE, MESH, SB, SK, SLB, SP, SPHERE
from .gjk import radius, support_from
from .kinematics import frame_state

SLACK = 1e-9        # m: added to the margin (the narrow phase's own rounding)


@nb.njit(_nrt=False)
def place_shapes(B, SH, PL, Wsh):
    """Wsh[s] <- shape s placed in the world (its body's frame, B placed, times its placement
    PL[s]; a shape of the world: PL[s] itself)."""
    for s in range(SH.shape[0]):
        body = int(SH[s, SB])
        if body == 0:
            for r in range(4):
                for c in range(4):
                    Wsh[s, r, c] = PL[s, r, c]
        else:
            frame_state(B, body, PL[s], Wsh[s])


@nb.njit(_nrt=False)
def world_bounds(SH, Wsh, AB):
    """AB (ns, 6) <- the world boxes of the shapes placed at Wsh (ns, 4, 4); a mesh's from its own
    box and sphere (SH's columns SLB ..)."""
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
        if kind == MESH:            # its own box turned, R c + p +- |R| e, each side at most its radius
            for r in range(3):
                c = T[r, 3] + T[r, 0] * SH[s, SLB] + T[r, 1] * SH[s, SLB + 1] + T[r, 2] * SH[s, SLB + 2]
                e = abs(T[r, 0]) * SH[s, SLB + 3] + abs(T[r, 1]) * SH[s, SLB + 4] + abs(T[r, 2]) * SH[s, SLB + 5]
                e = min(e, SH[s, SLB + 6])
                AB[s, r], AB[s, 3 + r] = c - e, c + e
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


@nb.njit(_nrt=False)
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


@nb.njit(_nrt=False)
def apart(SH, HULL, a, Ta, b, Tb, margin, axis):
    """True when the axis (world, unit, from b to a) that separated shapes a and b at the step
    before, axis[:3] (:func:`.contact_geometry.pair_contacts` leaves it; zero: none), still
    separates them by more than the margin: the gap along it, from a's core point furthest along
    -axis to b's furthest along +axis less the radii, is a lower bound of their distance (the
    separating-axis test GJK itself ends on). Two support points, each climbed to from the vertex
    of the step before (axis[3:]), in place of a GJK: a pair of links that stay close but apart
    (a robot's self-collision pairs) costs little. Conservative: a pair skipped is one the narrow
    phase finds apart."""
    n0, n1, n2 = axis[0], axis[1], axis[2]
    if n0 == 0.0 and n1 == 0.0 and n2 == 0.0:
        return False
    x0, x1, x2, ka = support_from(SH, a, Ta, HULL, -n0, -n1, -n2, int(axis[3]))
    y0, y1, y2, kb = support_from(SH, b, Tb, HULL, n0, n1, n2, int(axis[4]))
    axis[3], axis[4] = ka, kb
    gap = n0 * (x0 - y0) + n1 * (x1 - y1) + n2 * (x2 - y2) - radius(SH, a) - radius(SH, b)
    return gap > margin + SLACK


@nb.njit(cache=True)
def apart_of_pair(SH, HULL, a, Ta, b, Tb, margin, axis):
    """:func:`apart` called alone (its entry point, compiled at installation)."""
    return apart(SH, HULL, a, Ta, b, Tb, margin, axis)


SWEEP_MAX = 1024    # shapes: up to this many, the pairs come from a sweep (its table is ns x ns)


@nb.njit
def sweep_table(PAIRS, ns):
    """(LOOK, order): LOOK (ns, ns) the row of PAIRS of each pair of shapes (-1: not a candidate);
    order (4, ns): rows 0-2 the shapes sorted along x, y, z for :func:`candidates`' sweep, row 3
    [0] the axis it swept at the step before. LOOK empty for more than SWEEP_MAX shapes (then it
    reads every pair)."""
    n = ns if ns <= SWEEP_MAX else 0
    LOOK = np.full((n, n), -1, np.int32)
    if n > 0:
        for p in range(PAIRS.shape[0]):
            a, b = PAIRS[p, 0], PAIRS[p, 1]
            LOOK[a, b] = LOOK[b, a] = p
    order = np.zeros((4, ns), np.int64)
    for r in range(3):
        order[r] = np.arange(ns)
    return LOOK, order


@nb.njit(_nrt=False)     # (numba's inline="always" here: the sorts take 8x longer, counting references in the loop)
def _low(SH, AB, s, ax):
    """The low end of shape s's box along axis ax; a half-space's (its row holds its plane): -inf."""
    return AB[s, ax] if int(SH[s, SK]) != HALFSPACE else -math.inf


@nb.njit(_nrt=False)
def _sort(SH, AB, order, ax):
    """order[ax] sorted by the low ends of the boxes along ax: an insertion sort from the step
    before's order (a few swaps: the shapes move little in a step)."""
    row = order[ax]
    for t in range(1, row.shape[0]):
        s = row[t]
        x = _low(SH, AB, s, ax)
        u = t - 1
        while u >= 0 and _low(SH, AB, row[u], ax) > x:
            row[u + 1] = row[u]
            u -= 1
        row[u + 1] = s


@nb.njit(_nrt=False)
def _crossings(SH, AB, row, ax, w, most):
    """How many pairs of bounded shapes the sweep along ax would test (their boxes overlap along
    it), counted up to ``most``."""
    n = 0
    for t in range(row.shape[0]):
        s = row[t]
        if int(SH[s, SK]) == HALFSPACE:
            continue
        hi = AB[s, 3 + ax]
        for u in range(t + 1, row.shape[0]):
            if AB[row[u], ax] - hi > w:
                break
            n += 1
        if n >= most:
            return n
    return n


@nb.njit(_nrt=True)        # (explicit: its caller, the step, counts no references; the sort allocates)
def candidates(SH, AB, margin, PAIRS, LOOK, order, out):
    """out[:n] <- the rows of PAIRS whose shapes may be within the margin (:func:`overlap`), in
    ascending order (the contacts come in the order of the pairs); returns n. Sweep and prune
    (Baraff, "Dynamic simulation of non-penetrating rigid bodies", 1992, sec. 7.3; Cohen et al.,
    I-COLLIDE, 1995): the bounded shapes sorted by the low ends of their boxes along an axis, each
    paired with those after it whose low end lies within its box; half-spaces are tested against
    every shape. The axis is the one along which the fewest boxes overlap, recounted at each step
    (a standing humanoid's 53 meshes: 659 pairs to test along x, 308 along z, 42 along y, its
    arms held apart); Ericson, "Real-Time Collision Detection", 2005, sec. 7.5.2, sweeps along the
    axis of greatest spread instead, which here is z. The cost follows the shapes and the pairs
    that overlap along the axis, not all the pairs."""
    ns = SH.shape[0]
    if LOOK.shape[0] != ns:
        n = 0
        for p in range(PAIRS.shape[0]):
            if overlap(SH, AB, PAIRS[p, 0], PAIRS[p, 1], margin):
                out[n] = p
                n += 1
        return n
    w = margin + SLACK
    ax = int(order[3, 0])                     # the axis of the step before first: the others stop at its count
    _sort(SH, AB, order, ax)
    best = _crossings(SH, AB, order[ax], ax, w, ns * ns)
    for k in range(1, 3):
        r = (int(order[3, 0]) + k) % 3
        _sort(SH, AB, order, r)
        c = _crossings(SH, AB, order[r], r, w, best)
        if c < best:
            ax, best = r, c
    order[3, 0] = ax
    row = order[ax]
    n = 0
    for t in range(ns):
        s = row[t]
        if int(SH[s, SK]) == HALFSPACE:       # (first in the order)
            for r in range(ns):
                if r == s or LOOK[s, r] < 0 or (int(SH[r, SK]) == HALFSPACE and r < s):
                    continue                  # (a pair of half-spaces once)
                if overlap(SH, AB, s, r, margin):
                    out[n] = LOOK[s, r]
                    n += 1
            continue
        hi = AB[s, 3 + ax]
        for u in range(t + 1, ns):
            r = row[u]
            if AB[r, ax] - hi > w:
                break
            if LOOK[s, r] >= 0 and overlap(SH, AB, s, r, margin):
                out[n] = LOOK[s, r]
                n += 1
    out[:n].sort()
    return n
