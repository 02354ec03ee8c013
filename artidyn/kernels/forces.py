"""Compiled force elements: the wrenches of drag, nonlinear springs and joint springs.

Mirrors :func:`artidyn.sim.forces.element_wrenches` on the packed table ``B`` (internal frames,
:mod:`.pack`) and the elements' float table ``FE`` (one row per element, the layout of
:mod:`.slots`). A body's frame is its internal frame turned by ``Ra``: a point ``p``
of the body frame is ``Ra^T p`` in internal axes, at the world point ``P0 + R0 Ra^T p``, moving at
``R0 (u + w x Ra^T p)`` for the twist ``[w; u]`` (internal axes). Forces are added to ``Fs`` (body
frames, about the body origins), which the dynamics stage reads as external wrenches.
"""
import math

import numba as nb
import numpy as np

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .kinematics import placements_state
from .pack import C as SCRATCH, P, PARENT, R, R0, P0, RA, V as TWIST
from .spatial import FMA, joint_motion, motion_to_child
from .slots import (FE_A1 as D_A1, FE_A2 as D_A2, FE_BODY_A as BODY_A, FE_BODY_B as BODY_B, FE_C1 as D_C1,
                    FE_C2 as D_C2, FE_DAMP as S_DAMP, FE_DATA as DATA, FE_DRAG as DRAG, FE_IQ as J_IQ, FE_IV as J_IV,
                    FE_KIND as KIND, FE_LAW as S_LAW, FE_N as S_N, FE_PA as S_PA, FE_PB as S_PB, FE_POINT as D_POINT,
                    FE_POLY as POLY, FE_REST as S_REST, FE_SLIDES as J_SLIDES, FE_SPRING as SPRING, FE_WIND as D_WIND)


@nb.njit(fastmath=FMA)
def twists_state(B, v):
    """B[i, V] <- the twist of every body (internal axes) for the state loaded by ``load_q``
    (joint transforms included)."""
    for r in range(6):
        B[0, TWIST + r] = 0.0
    for i in range(1, B.shape[0]):
        joint_motion(B, i, v, SCRATCH)
        motion_to_child(B, i, int(B[i, PARENT]), TWIST, TWIST)
        for r in range(6):
            B[i, TWIST + r] += B[i, SCRATCH + r]


@nb.njit(fastmath=FMA)
def point_state(B, i, FE, e, c, x):
    """x[0:3] <- world position, x[3:6] <- world velocity, x[6:9] <- the internal coordinates of the
    body-frame point FE[e, c:c+3] of body i (the world: a fixed world point)."""
    if i == 0:
        for r in range(3):
            x[r], x[3 + r], x[6 + r] = FE[e, c + r], 0.0, FE[e, c + r]
        return
    for r in range(3):                  # Ra^T p (Ra row-major: column r of Ra)
        x[6 + r] = B[i, RA + r] * FE[e, c] + B[i, RA + 3 + r] * FE[e, c + 1] + B[i, RA + 6 + r] * FE[e, c + 2]
    w0, w1, w2 = B[i, TWIST], B[i, TWIST + 1], B[i, TWIST + 2]
    p0, p1, p2 = x[6], x[7], x[8]
    u0 = B[i, TWIST + 3] + w1 * p2 - w2 * p1
    u1 = B[i, TWIST + 4] + w2 * p0 - w0 * p2
    u2 = B[i, TWIST + 5] + w0 * p1 - w1 * p0
    for r in range(3):
        a0, a1, a2 = B[i, R0 + 3 * r], B[i, R0 + 3 * r + 1], B[i, R0 + 3 * r + 2]
        x[r] = B[i, P0 + r] + a0 * p0 + a1 * p1 + a2 * p2
        x[3 + r] = a0 * u0 + a1 * u1 + a2 * u2


@nb.njit(fastmath=FMA)
def push_force(B, i, x, f0, f1, f2, Fs):
    """Fs[i] += the wrench of the world force f applied at the point of :func:`point_state` (x)."""
    if i == 0:
        return
    # internal axes: g = R0^T f; moment (Ra^T p) x g; then to body axes with Ra
    g0 = B[i, R0] * f0 + B[i, R0 + 3] * f1 + B[i, R0 + 6] * f2
    g1 = B[i, R0 + 1] * f0 + B[i, R0 + 4] * f1 + B[i, R0 + 7] * f2
    g2 = B[i, R0 + 2] * f0 + B[i, R0 + 5] * f1 + B[i, R0 + 8] * f2
    m0 = x[7] * g2 - x[8] * g1
    m1 = x[8] * g0 - x[6] * g2
    m2 = x[6] * g1 - x[7] * g0
    for r in range(3):
        a0, a1, a2 = B[i, RA + 3 * r], B[i, RA + 3 * r + 1], B[i, RA + 3 * r + 2]
        Fs[i, r] += a0 * m0 + a1 * m1 + a2 * m2
        Fs[i, 3 + r] += a0 * g0 + a1 * g1 + a2 * g2


@nb.njit(fastmath=FMA)
def poly(FE, e, n, x):
    """k1 x + k2 x^2 + ... (Horner) with the coefficients FE[e, DATA:DATA+n]."""
    s = 0.0
    for k in range(n - 1, -1, -1):
        s = (s + FE[e, DATA + k]) * x
    return s


@nb.njit(fastmath=FMA)
def table_tension(FE, e, n, length):
    """The tension interpolated in the table (lengths FE[e, DATA:DATA+n], tensions after them),
    held beyond its ends."""
    if length <= FE[e, DATA]:
        return FE[e, DATA + n]
    if length >= FE[e, DATA + n - 1]:
        return FE[e, DATA + 2 * n - 1]
    k = 0
    while FE[e, DATA + k + 1] < length:
        k += 1
    l0, l1 = FE[e, DATA + k], FE[e, DATA + k + 1]
    s = (length - l0) / (l1 - l0)
    return (1.0 - s) * FE[e, DATA + n + k] + s * FE[e, DATA + n + k + 1]


@nb.njit(fastmath=FMA)
def drag(B, FE, e, x, Fs):
    """Fs += the drag wrench of element e (x: scratch of 9)."""
    i = int(FE[e, BODY_A])
    point_state(B, i, FE, e, D_POINT, x)
    r0, r1, r2 = x[3] - FE[e, D_WIND], x[4] - FE[e, D_WIND + 1], x[5] - FE[e, D_WIND + 2]
    # the relative velocity in body axes: Rb^T r = Ra R0^T r
    g0 = B[i, R0] * r0 + B[i, R0 + 3] * r1 + B[i, R0 + 6] * r2
    g1 = B[i, R0 + 1] * r0 + B[i, R0 + 4] * r1 + B[i, R0 + 7] * r2
    g2 = B[i, R0 + 2] * r0 + B[i, R0 + 5] * r1 + B[i, R0 + 8] * r2
    speed = math.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
    w0, w1, w2 = B[i, TWIST], B[i, TWIST + 1], B[i, TWIST + 2]
    spin = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
    for r in range(3):
        a0, a1, a2 = B[i, RA + 3 * r], B[i, RA + 3 * r + 1], B[i, RA + 3 * r + 2]
        Fs[i, 3 + r] -= (FE[e, D_C1 + r] + FE[e, D_C2 + r] * speed) * (a0 * g0 + a1 * g1 + a2 * g2)
        Fs[i, r] -= (FE[e, D_A1 + r] + FE[e, D_A2 + r] * spin) * (a0 * w0 + a1 * w1 + a2 * w2)
    # the force's moment about the origin, p x f (body axes), from the force just added
    f0 = -(FE[e, D_C1] + FE[e, D_C2] * speed) * (B[i, RA] * g0 + B[i, RA + 1] * g1 + B[i, RA + 2] * g2)
    f1 = -(FE[e, D_C1 + 1] + FE[e, D_C2 + 1] * speed) * (B[i, RA + 3] * g0 + B[i, RA + 4] * g1 + B[i, RA + 5] * g2)
    f2 = -(FE[e, D_C1 + 2] + FE[e, D_C2 + 2] * speed) * (B[i, RA + 6] * g0 + B[i, RA + 7] * g1 + B[i, RA + 8] * g2)
    p0, p1, p2 = FE[e, D_POINT], FE[e, D_POINT + 1], FE[e, D_POINT + 2]
    Fs[i, 0] += p1 * f2 - p2 * f1
    Fs[i, 1] += p2 * f0 - p0 * f2
    Fs[i, 2] += p0 * f1 - p1 * f0


@nb.njit(fastmath=FMA)
def spring(B, FE, e, x, y, Fs):
    """Fs += the wrenches of the point-to-point spring e on its two bodies (x, y: scratch of 9)."""
    ia, ib = int(FE[e, BODY_A]), int(FE[e, BODY_B])
    point_state(B, ia, FE, e, S_PA, x)
    point_state(B, ib, FE, e, S_PB, y)
    d0, d1, d2 = y[0] - x[0], y[1] - x[1], y[2] - x[2]
    length = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    if length < 1e-12:
        return
    u0, u1, u2 = d0 / length, d1 / length, d2 / length
    rate = u0 * (y[3] - x[3]) + u1 * (y[4] - x[4]) + u2 * (y[5] - x[5])
    n = int(FE[e, S_N])
    if int(FE[e, S_LAW]) == POLY:
        tension = poly(FE, e, n, length - FE[e, S_REST])
    else:
        tension = table_tension(FE, e, n, length)
    tension += FE[e, S_DAMP] * rate
    push_force(B, ia, x, tension * u0, tension * u1, tension * u2, Fs)
    push_force(B, ib, y, -tension * u0, -tension * u1, -tension * u2, Fs)


@nb.njit(fastmath=FMA)
def joint_spring(B, FE, e, q, v, Fs):
    """Fs += the joint spring's pair of wrenches: ``tau S`` on the child (internal axes: S = e_z,
    turning or sliding), ``-tau S`` carried to the parent (A_i: R_i, and p_i x for a force)."""
    i, par = int(FE[e, BODY_A]), int(FE[e, BODY_B])
    tau = -poly(FE, e, int(FE[e, S_N]), q[int(FE[e, J_IQ])] - FE[e, S_REST]) - FE[e, S_DAMP] * v[int(FE[e, J_IV])]
    o = 3 if FE[e, J_SLIDES] != 0.0 else 0
    for r in range(3):                       # Ra e_z: the joint axis in the child's body axes
        Fs[i, o + r] += tau * B[i, RA + 3 * r + 2]
    if par == 0:
        return
    z0, z1, z2 = tau * B[i, R + 2], tau * B[i, R + 5], tau * B[i, R + 8]    # R_i (tau e_z), parent internal
    m0, m1, m2 = z0, z1, z2
    if o == 3:
        p0, p1, p2 = B[i, P], B[i, P + 1], B[i, P + 2]
        m0, m1, m2 = p1 * z2 - p2 * z1, p2 * z0 - p0 * z2, p0 * z1 - p1 * z0
    for r in range(3):
        a0, a1, a2 = B[par, RA + 3 * r], B[par, RA + 3 * r + 1], B[par, RA + 3 * r + 2]
        Fs[par, r] -= a0 * m0 + a1 * m1 + a2 * m2
        if o == 3:
            Fs[par, 3 + r] -= a0 * z0 + a1 * z1 + a2 * z2


@nb.njit(fastmath=FMA)
def element_wrenches(B, FE, q, v, Fs):
    """Fs += the wrenches of every element at (q, v), for the state loaded by ``load_q``
    (placements and twists computed here)."""
    placements_state(B, B.shape[0] - 1)
    twists_state(B, v)
    x = np.zeros(9)
    y = np.zeros(9)
    for e in range(FE.shape[0]):
        kind = int(FE[e, KIND])
        if kind == DRAG:
            drag(B, FE, e, x, Fs)
        elif kind == SPRING:
            spring(B, FE, e, x, y, Fs)
        else:
            joint_spring(B, FE, e, q, v, Fs)
