"""The contacts of the compiled event-driven run (:mod:`.event_run`) at one state: candidates, frames,
Jacobian rows, velocities, the witness point in body a's frame, the bias ``Jdot v`` (with the rolling
term of round shapes), and the identities that tie a contact of one state to the same contact at
another. Mirrors the helpers of :mod:`artidyn.contact.event_driven` and
:func:`artidyn.contact.dynamics.contact_dynamics`'s bias.

A contact set is the tuple ``(k, CC, CI, J, U, LOC, WSH)``: k candidates; CC (cap, 10) distance,
normal (3), point a (3), point b (3) as :func:`.contact_geometry.pair_contacts` gives them; CI
(cap, 4) body a, body b, shape a, shape b; J (3 cap, nv) rows (n, t1, t2) per contact; U (cap, 3)
the velocity in the contact frame; LOC (cap, 3) point a in body a's frame; WSH the shapes' world
placements. The state must be placed first (:func:`place`, or ``crba_bias_state`` after
``load_q``).
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .broadphase import overlap, place_shapes, world_bounds
from .constrained import point_bias
from .contact_geometry import CAPSULE, FALLBACK, FULL, SB, SK, SP, SPHERE, pair_contacts
from .contact_jacobian import _frame, contact_frame_rows
from .kinematics import body_rotation, placements_state
from .pack import IV, P0, V
from .spatial import load_q

BAD = -3        # the contact set could not be built: FALLBACK or FULL of the narrow phase, or a bad q


@nb.njit
def place(B, q):
    """Load q and the world placements of every body; False for a bad q."""
    if not load_q(B, q):
        return False
    placements_state(B, B.shape[0] - 1)
    return True


@nb.njit
def local_point(B, body, p0, p1, p2):
    """The world point p in the frame of ``body`` (the world: p itself)."""
    if body == 0:
        return p0, p1, p2
    d0, d1, d2 = p0 - B[body, P0], p1 - B[body, P0 + 1], p2 - B[body, P0 + 2]
    out = np.zeros(3)
    for c in range(3):
        out[c] = body_rotation(B, body, 0, c) * d0 + body_rotation(B, body, 1, c) * d1 + \
            body_rotation(B, body, 2, c) * d2
    return out[0], out[1], out[2]


@nb.njit
def contact_set(B, SH, PL, HULL, PAIRS, cap, v, margin):
    """The contacts within ``margin`` of the placed state, with their rows and velocities; k = BAD
    when the narrow phase hands a pair on (the caller runs the readable route)."""
    nv, ns = int(B[0, IV]), SH.shape[0]
    cap = max(cap, 1)
    CC, CI = np.zeros((cap, 10)), np.zeros((cap, 4), np.int64)
    J, U, LOC = np.zeros((3 * cap, nv)), np.zeros((cap, 3)), np.zeros((cap, 3))
    WSH, AB, T4 = np.zeros((ns, 4, 4)), np.zeros((ns, 6)), np.eye(4)
    place_shapes(B, SH, PL, WSH)
    world_bounds(SH, WSH, AB)
    k = 0
    axis = np.zeros(5)
    for p in range(PAIRS.shape[0]):
        a, b = PAIRS[p, 0], PAIRS[p, 1]
        if not overlap(SH, AB, a, b, margin):
            continue
        k1 = pair_contacts(CC, k, SH, a, WSH[a], b, WSH[b], margin, HULL, axis)
        if k1 == FULL or k1 == FALLBACK:
            return BAD, CC, CI, J, U, LOC, WSH
        for c in range(k, k1):
            CI[c, 0], CI[c, 1], CI[c, 2], CI[c, 3] = int(SH[a, SB]), int(SH[b, SB]), a, b
        k = k1
    for c in range(k):
        r0 = 3 * c
        contact_frame_rows(B, CC, CI, c, J, r0, T4)
        for r in range(3):
            x = 0.0
            for j in range(nv):
                x += J[r0 + r, j] * v[j]
            U[c, r] = x
        LOC[c, 0], LOC[c, 1], LOC[c, 2] = local_point(B, CI[c, 0], CC[c, 4], CC[c, 5], CC[c, 6])
    return k, CC, CI, J, U, LOC, WSH


@nb.njit
def contacts_at(B, SH, PL, HULL, PAIRS, cap, q, v, margin):
    """:func:`contact_set` at (q, v), placing q first."""
    if not place(B, q):
        nv, ns = int(B[0, IV]), SH.shape[0]
        return (BAD, np.zeros((1, 10)), np.zeros((1, 4), np.int64), np.zeros((3, nv)), np.zeros((1, 3)),
                np.zeros((1, 3)), np.zeros((ns, 4, 4)))
    return contact_set(B, SH, PL, HULL, PAIRS, cap, v, margin)


@nb.njit
def frame_of(CC, c):
    """(3, 3): the contact frame, columns n, t1, t2."""
    F = np.zeros((3, 3))
    t0, t1, t2, s0, s1, s2 = _frame(CC[c, 1], CC[c, 2], CC[c, 3])
    F[0, 0], F[1, 0], F[2, 0] = CC[c, 1], CC[c, 2], CC[c, 3]
    F[0, 1], F[1, 1], F[2, 1] = t0, t1, t2
    F[0, 2], F[1, 2], F[2, 2] = s0, s1, s2
    return F


@nb.njit
def bias(B, SH, CC, CI, WSH, c, out):
    """out (3) <- Jdot v of contact c in its frame (needs the world velocities of
    ``crba_bias_state``), the normal row less the rolling term (as the readable ``_bias``)."""
    acc, T, tmp = np.zeros(3), np.eye(4), np.zeros(6)
    for side in range(2):
        body = CI[c, side]
        if body == 0:
            continue
        sign = 1.0 if side == 0 else -1.0
        T[0, 3], T[1, 3], T[2, 3] = CC[c, 4 + 3 * side], CC[c, 5 + 3 * side], CC[c, 6 + 3 * side]
        point_bias(B, body, T, tmp)
        for r in range(3):
            acc[r] += sign * tmp[3 + r]
    F = frame_of(CC, c)
    for r in range(3):
        out[r] = F[0, r] * acc[0] + F[1, r] * acc[1] + F[2, r] * acc[2]
    out[0] -= rolling_term(B, SH, CC, CI, WSH, c)


@nb.njit
def rolling_term(B, SH, CC, CI, WSH, c):
    """R |omega_t|^2 of the round shapes of contact c (a capsule's side: across its axis only)."""
    n0, n1, n2 = CC[c, 1], CC[c, 2], CC[c, 3]
    out = 0.0
    for side in range(2):
        s = CI[c, 2 + side]
        kind = int(SH[s, SK])
        if kind != SPHERE and kind != CAPSULE:
            continue
        w = np.zeros(3)
        for o in range(2):
            body = CI[c, o]
            if body:
                sg = 1.0 if o == 0 else -1.0
                for r in range(3):
                    w[r] += sg * B[body, V + r]
        wn = w[0] * n0 + w[1] * n1 + w[2] * n2
        w0, w1, w2 = w[0] - wn * n0, w[1] - wn * n1, w[2] - wn * n2
        if kind == CAPSULE:
            body = int(SH[s, SB])
            Ts = WSH[s]
            o = 0 if body == CI[c, 0] else 1
            p0, p1, p2 = CC[c, 4 + 3 * o], CC[c, 5 + 3 * o], CC[c, 6 + 3 * o]
            z = Ts[0, 2] * (p0 - Ts[0, 3]) + Ts[1, 2] * (p1 - Ts[1, 3]) + Ts[2, 2] * (p2 - Ts[2, 3])
            if abs(z) < 0.5 * SH[s, SP + 1]:
                wa = w0 * Ts[0, 2] + w1 * Ts[1, 2] + w2 * Ts[2, 2]
                w0, w1, w2 = w0 - wa * Ts[0, 2], w1 - wa * Ts[1, 2], w2 - wa * Ts[2, 2]
        out += SH[s, SP] * (w0 * w0 + w1 * w1 + w2 * w2)
    return out


@nb.njit
def identify(ID, n, sa, sb, l0, l1, l2):
    """The row of ID[:n] (columns shape a, shape b, local point (3), ...) that is the same contact:
    the only one of the same shape pair, or the nearest in body a's frame among several; -1."""
    first, count, best, bd = -1, 0, -1, np.inf
    for j in range(n):
        if int(ID[j, 0]) == sa and int(ID[j, 1]) == sb:
            count += 1
            d = math.sqrt((ID[j, 2] - l0) ** 2 + (ID[j, 3] - l1) ** 2 + (ID[j, 4] - l2) ** 2)
            if first < 0:
                first = j
            if d < bd:
                bd, best = d, j
    return first if count <= 1 else best


@nb.njit
def identities(k, CI, U, LOC, ID, with_ut):
    """ID[:k] <- (shape a, shape b, local point, u_t) of the contacts of a set; returns k."""
    for c in range(k):
        ID[c, 0], ID[c, 1] = CI[c, 2], CI[c, 3]
        ID[c, 2], ID[c, 3], ID[c, 4] = LOC[c, 0], LOC[c, 1], LOC[c, 2]
        if with_ut:
            ID[c, 5], ID[c, 6] = U[c, 1], U[c, 2]
    return k
