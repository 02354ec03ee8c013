"""Compiled constrained forward dynamics: the tree-sparse route, one state (the entry points, one
state with a kept scratch and parallel batches, are in :mod:`.constrained_entry`: importing this
module for its helpers compiles nothing).

Mirrors :func:`artidyn.constraints.solve._sparse` (the readable reference)::

    M a + h = tau + J^T lambda,      J a = gamma = -Jdot v - 2 alpha J v - beta^2 phi

1. CRBA gives ``M`` and the world placements, inertias and joint twists; on them, in the same
   pass, the RNEA in world coordinates gives ``h`` (:func:`crba_bias_state`; the simulation,
   which also reads the energies off the RNEA, runs the body-frame RNEA instead).
2. The constraint rows: world Jacobians of the frames (:func:`.kinematics.jacobian_state`) and
   ``Jdot v`` from one pass of world spatial velocities and velocity-product accelerations
   (``V_i = V_p + S_i qd_i``, ``A_i = A_p + V_i x S_i qd_i``, both about the world origin; a
   point p of body i then has the classical acceleration ``a_O + alpha x p + w x (v_O + w x p)``).
3. ``M = U D U^T`` by the factorisation that follows the tree (Featherstone, "Rigid Body
   Dynamics Algorithms", sec. 6.5, with ``U = L^T``: no fill-in outside the ancestor pattern; in
   depth-first order a subtree is a contiguous range of dofs, so the inner products run over
   contiguous memory), then ``Y = D^-1/2 U^-1 J^T`` (one column per row of J, over the
   constraint's support: the dofs of its bodies and their ancestors, :func:`supports`, closed
   under U^-1), the Delassus matrix ``G = J M^-1 J^T = Y^T Y`` (over the supports), its Cholesky
   factors, and::

       z = D^-1/2 U^-1 (tau - h),   G lambda = gamma - Y^T z  (= gamma - J a0),
       a = U^-T D^-1/2 (z + Y lambda)            (= a0 + M^-1 J^T lambda)

A Cholesky pivot of G below ``1e-11`` times its largest diagonal entry (redundant or degenerate
constraints) returns ``SINGULAR``: the caller then takes the reference route, which finds the
rank and the least-norm multipliers.

The constraint table ``K`` (one row per constraint, columns below) is built by
:mod:`artidyn.constraints.compiled`; body 0 (the world) stands for "frame_b = None", its frame
placement being the target.
"""
import math

import numba as nb
import numpy as np

from .crba import crba_bodies, crba_matrix, crba_state, matrix_finite
from .energy import energy_after_dynamics
from .kinematics import frame_state, jacobian_state
from .pack import A, COUL, DAMP, F, GRAVITY, IA, IV, JTYPE, NVJ, P0, PARENT, PITCH, QN, R0, RA, REST, STIFF, U, V
from .rnea import rnea_state
from .spatial import HELICAL, all_finite, dof_axis, dof_slides, dot, rigid_inertia_apply
from .types import FRICTION, HAS_FEXT, inputs_ok

# --- the constraint table -------------------------------------------------------------------
POINT, WELD, DISTANCE, HINGE, COUPLING = 0, 1, 2, 3, 4
ROLL, KNIFE, NOPIVOT = 5, 6, 7       # nonholonomic, on a fixed plane (artidyn.constraints.nonholonomic)
KTYPE, KBA, KBB, KROW, KP0, KP1, KQA, KQB, KVA, KVB = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
KN = 10                        # hinge normals n1, n2 in frame_a's axes (6)
# ROLL: KP0 radius, KP1 plane offset, KQA rows (2, 3), KN.. the disk axis in the frame's axes
# (zero: a sphere), KN+3.. the plane normal n, KN+6.. and KN+9.. its tangents t1, t2 (world);
# KNIFE: KN.. the lateral direction (frame axes), KN+6.. the point (frame coordinates; TF holds
# the frame moved to it); NOPIVOT: KN+3.. n
KWIDTH = 22
# TF (nc, 2, 4, 4): the placements of frame_a in body a and of frame_b in body b (or the target)

OK, BAD_INPUT, SINGULAR, DEGENERATE = 0, 1, 2, 3   # return codes
# fused multiply-adds; no reassociation: a vectorised sum's order would depend on the alignment of
# its arrays in memory, and the same run would not give the same bits twice
FAST = {"contract"}


@nb.njit
def dof_parents(B, lam):
    """lam[k] <- the parent dof of dof k in the tree (-1 at a root): the previous dof of the same
    joint, or the last dof of the nearest ancestor joint with dofs."""
    for i in range(1, B.shape[0]):
        k, n = int(B[i, IV]), int(B[i, NVJ])
        if n == 0:
            continue
        p = int(B[i, PARENT])
        while p > 0 and int(B[p, NVJ]) == 0:
            p = int(B[p, PARENT])
        lam[k] = int(B[p, IV]) + int(B[p, NVJ]) - 1 if p > 0 else -1
        for j in range(1, n):
            lam[k + j] = k + j - 1


@nb.njit
def world_velocities(B, qd):
    """V, A columns <- world spatial velocity and velocity-product acceleration of every body
    (about the world origin, no gravity); needs the world twists U (``crba_state``)."""
    for r in range(6):
        B[0, V + r] = 0.0
        B[0, A + r] = 0.0
    for i in range(1, B.shape[0]):
        p, k = int(B[i, PARENT]), int(B[i, IV])
        s0 = s1 = s2 = s3 = s4 = s5 = 0.0
        for j in range(int(B[i, NVJ])):
            o, x = U + 6 * j, qd[k + j]
            s0 += B[i, o] * x
            s1 += B[i, o + 1] * x
            s2 += B[i, o + 2] * x
            s3 += B[i, o + 3] * x
            s4 += B[i, o + 4] * x
            s5 += B[i, o + 5] * x
        w0, w1, w2 = B[p, V] + s0, B[p, V + 1] + s1, B[p, V + 2] + s2
        v0, v1, v2 = B[p, V + 3] + s3, B[p, V + 4] + s4, B[p, V + 5] + s5
        B[i, V], B[i, V + 1], B[i, V + 2], B[i, V + 3], B[i, V + 4], B[i, V + 5] = w0, w1, w2, v0, v1, v2
        B[i, A] = B[p, A] + w1 * s2 - w2 * s1
        B[i, A + 1] = B[p, A + 1] + w2 * s0 - w0 * s2
        B[i, A + 2] = B[p, A + 2] + w0 * s1 - w1 * s0
        B[i, A + 3] = B[p, A + 3] + w1 * s5 - w2 * s4 + v1 * s2 - v2 * s1
        B[i, A + 4] = B[p, A + 4] + w2 * s3 - w0 * s5 + v2 * s0 - v0 * s2
        B[i, A + 5] = B[p, A + 5] + w0 * s4 - w1 * s3 + v0 * s1 - v1 * s0


@nb.njit
def crba_bias_state(B, qd, fext, opts, M, h):
    """M (CRBA) and the bias forces ``h = rnea(q, qd, 0)`` in one pass, for the state loaded by
    ``load_q``; leaves the world velocities of :func:`world_velocities`. The RNEA in world
    coordinates (Featherstone, RBDA sec. 5.3 in the base frame; pinocchio's choice), on the
    CRBA's placements, world inertias and twists: about the world origin,
    ``a_i = [0; -g] + A_i`` (A: the velocity products), ``f_i = I_i a_i + V_i x* I_i V_i - f_ext_i``,
    ``f_p += f_i`` without transforms, ``h_k = s_k . f_i`` (+ springs, + friction with the option)."""
    crba_bodies(B)
    world_velocities(B, qd)
    g0, g1, g2 = B[0, GRAVITY], B[0, GRAVITY + 1], B[0, GRAVITY + 2]
    nb1 = B.shape[0]
    for i in range(1, nb1):
        w0, w1, w2, v0, v1, v2 = B[i, V], B[i, V + 1], B[i, V + 2], B[i, V + 3], B[i, V + 4], B[i, V + 5]
        f = rigid_inertia_apply(B, i, IA, (B[i, A], B[i, A + 1], B[i, A + 2], B[i, A + 3] - g0, B[i, A + 4] - g1,
                                           B[i, A + 5] - g2))
        p = rigid_inertia_apply(B, i, IA, (w0, w1, w2, v0, v1, v2))
        B[i, F] = f[0] + w1 * p[2] - w2 * p[1] + v1 * p[5] - v2 * p[4]
        B[i, F + 1] = f[1] + w2 * p[0] - w0 * p[2] + v2 * p[3] - v0 * p[5]
        B[i, F + 2] = f[2] + w0 * p[1] - w1 * p[0] + v0 * p[4] - v1 * p[3]
        B[i, F + 3] = f[3] + w1 * p[5] - w2 * p[4]
        B[i, F + 4] = f[4] + w2 * p[3] - w0 * p[5]
        B[i, F + 5] = f[5] + w0 * p[4] - w1 * p[3]
        if opts & HAS_FEXT:
            external_world_sub(B, i, fext)
    for i in range(nb1 - 1, 0, -1):
        k = int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            o = U + 6 * j
            x = (B[i, o] * B[i, F] + B[i, o + 1] * B[i, F + 1] + B[i, o + 2] * B[i, F + 2] + B[i, o + 3] * B[i, F + 3]
                 + B[i, o + 4] * B[i, F + 4] + B[i, o + 5] * B[i, F + 5])
            if B[i, STIFF + j] != 0.0:
                x += B[i, STIFF + j] * (B[i, QN + j] - B[i, REST + j])
            if opts & FRICTION:
                s = 1.0 if qd[k + j] > 0 else (-1.0 if qd[k + j] < 0 else 0.0)
                x += B[i, DAMP + j] * qd[k + j] + B[i, COUL + j] * s
            h[k + j] = x
        par = int(B[i, PARENT])
        if par > 0:
            for r in range(6):
                B[par, F + r] += B[i, F + r]
    crba_matrix(B, M)


@nb.njit
def external_world_sub(B, i, fext):
    """B[i, F] -= f_ext_i, the wrench of body i (body axes, about its origin) in world axes about
    the world origin: ``f = R0 Ra^T f_b``, ``n = R0 Ra^T n_b + p0 x f``."""
    n0 = n1 = n2 = f0 = f1 = f2 = 0.0
    for r in range(3):                 # internal axes: Ra^T (column r of Ra), then world: R0
        e0, e1, e2 = B[i, RA + r], B[i, RA + 3 + r], B[i, RA + 6 + r]
        ni = e0 * fext[i, 0] + e1 * fext[i, 1] + e2 * fext[i, 2]
        fi = e0 * fext[i, 3] + e1 * fext[i, 4] + e2 * fext[i, 5]
        n0 += B[i, R0 + r] * ni
        n1 += B[i, R0 + 3 + r] * ni
        n2 += B[i, R0 + 6 + r] * ni
        f0 += B[i, R0 + r] * fi
        f1 += B[i, R0 + 3 + r] * fi
        f2 += B[i, R0 + 6 + r] * fi
    p0, p1, p2 = B[i, P0], B[i, P0 + 1], B[i, P0 + 2]
    B[i, F] -= n0 + p1 * f2 - p2 * f1
    B[i, F + 1] -= n1 + p2 * f0 - p0 * f2
    B[i, F + 2] -= n2 + p0 * f1 - p1 * f0
    B[i, F + 3] -= f0
    B[i, F + 4] -= f1
    B[i, F + 5] -= f2


@nb.njit
def point_bias(B, i, T, out):
    """out (6) <- [alpha; classical acceleration] at a = 0 of the origin of T, a frame of body i."""
    x, y, z = T[0, 3], T[1, 3], T[2, 3]
    w0, w1, w2 = B[i, V], B[i, V + 1], B[i, V + 2]
    al0, al1, al2 = B[i, A], B[i, A + 1], B[i, A + 2]
    vp0 = B[i, V + 3] + w1 * z - w2 * y
    vp1 = B[i, V + 4] + w2 * x - w0 * z
    vp2 = B[i, V + 5] + w0 * y - w1 * x
    out[0], out[1], out[2] = al0, al1, al2
    out[3] = B[i, A + 3] + al1 * z - al2 * y + w1 * vp2 - w2 * vp1
    out[4] = B[i, A + 4] + al2 * x - al0 * z + w2 * vp0 - w0 * vp2
    out[5] = B[i, A + 5] + al0 * y - al1 * x + w0 * vp1 - w1 * vp0


@nb.njit
def log3(R, out):
    """out[0:3] <- the rotation vector of the rotation matrix R (3x3 block of a 4x4), through the
    unit quaternion of R (Shepperd's choice of the largest of w, x, y, z: accurate at every angle,
    including near pi, where arccos of the trace is not), ``theta = 2 atan2(|v|, w)``."""
    r00, r11, r22 = R[0, 0], R[1, 1], R[2, 2]
    tr = r00 + r11 + r22
    if tr >= r00 and tr >= r11 and tr >= r22:
        w = 0.5 * math.sqrt(max(1.0 + tr, 0.0))
        f = 0.25 / w
        x, y, z = (R[2, 1] - R[1, 2]) * f, (R[0, 2] - R[2, 0]) * f, (R[1, 0] - R[0, 1]) * f
    elif r00 >= r11 and r00 >= r22:
        x = 0.5 * math.sqrt(max(1.0 + r00 - r11 - r22, 0.0))
        f = 0.25 / x
        w, y, z = (R[2, 1] - R[1, 2]) * f, (R[0, 1] + R[1, 0]) * f, (R[0, 2] + R[2, 0]) * f
    elif r11 >= r22:
        y = 0.5 * math.sqrt(max(1.0 - r00 + r11 - r22, 0.0))
        f = 0.25 / y
        w, x, z = (R[0, 2] - R[2, 0]) * f, (R[0, 1] + R[1, 0]) * f, (R[1, 2] + R[2, 1]) * f
    else:
        z = 0.5 * math.sqrt(max(1.0 - r00 - r11 + r22, 0.0))
        f = 0.25 / z
        w, x, y = (R[1, 0] - R[0, 1]) * f, (R[0, 2] + R[2, 0]) * f, (R[1, 2] + R[2, 1]) * f
    if w < 0.0:
        w, x, y, z = -w, -x, -y, -z
    n = math.sqrt(x * x + y * y + z * z)
    g = 2.0 * math.atan2(n, w) / n if n > 1e-300 else 2.0 / w
    out[0], out[1], out[2] = g * x, g * y, g * z


@nb.njit
def frame_rows(B, body, Tf, T, J, b):
    """J (6, nv) <- world Jacobian of the frame Tf of ``body``, T its placement, b (6) its
    ``Jdot v``; the world (body 0): T = Tf, J and b zero."""
    if body == 0:
        for r in range(4):
            for c in range(4):
                T[r, c] = Tf[r, c]
        J[:, :] = 0.0
        b[:] = 0.0
    else:
        jacobian_state(B, body, Tf, 0, T, J)
        point_bias(B, body, T, b)


@nb.njit
def add_jacobian(B, body, T, sign, Jst, r0, o):
    """Jst rows r0.. += sign * the world Jacobian of the frame at T on ``body``: rows [angular;
    linear] from row o (o = 3: the linear rows only, into r0 .. r0 + 2). Needs R0, P0."""
    x, y, z = T[0, 3], T[1, 3], T[2, 3]
    l = body
    while l > 0:
        t, k = int(B[l, JTYPE]), int(B[l, IV])
        for j in range(int(B[l, NVJ])):
            a = dof_axis(t, j)
            u0, u1, u2 = sign * B[l, R0 + a], sign * B[l, R0 + 3 + a], sign * B[l, R0 + 6 + a]
            if dof_slides(t, j):
                Jst[r0 + 3 - o, k + j] += u0
                Jst[r0 + 4 - o, k + j] += u1
                Jst[r0 + 5 - o, k + j] += u2
            else:
                d0, d1, d2 = x - B[l, P0], y - B[l, P0 + 1], z - B[l, P0 + 2]
                if o == 0:
                    Jst[r0, k + j] += u0
                    Jst[r0 + 1, k + j] += u1
                    Jst[r0 + 2, k + j] += u2
                Jst[r0 + 3 - o, k + j] += u1 * d2 - u2 * d1
                Jst[r0 + 4 - o, k + j] += u2 * d0 - u0 * d2
                Jst[r0 + 5 - o, k + j] += u0 * d1 - u1 * d0
                if t == HELICAL:  # the screw's slide: + p u
                    h = B[l, PITCH]
                    Jst[r0 + 3 - o, k + j] += h * u0
                    Jst[r0 + 4 - o, k + j] += h * u1
                    Jst[r0 + 5 - o, k + j] += h * u2
        l = int(B[l, PARENT])


@nb.njit
def frame_at(B, body, Tf, T):
    """T <- the world placement of the frame Tf of ``body`` (the world: Tf itself)."""
    if body == 0:
        for r in range(4):
            for c in range(4):
                T[r, c] = Tf[r, c]
    else:
        frame_state(B, body, Tf, T)


@nb.njit
def world_normal(K, c, h, Ta):
    """Hinge normal n_h (h = 0, 1) of constraint c in world axes."""
    m0, m1, m2 = K[c, KN + 3 * h], K[c, KN + 3 * h + 1], K[c, KN + 3 * h + 2]
    return (Ta[0, 0] * m0 + Ta[0, 1] * m1 + Ta[0, 2] * m2, Ta[1, 0] * m0 + Ta[1, 1] * m1 + Ta[1, 2] * m2,
            Ta[2, 0] * m0 + Ta[2, 1] * m1 + Ta[2, 2] * m2)


@nb.njit
def constraint_rows(B, K, TF, q, qd, Jst, bias, phi, aux, Ja, Jb, T2, sm):
    """Jst (m, nv), bias (m) = Jdot v, phi (m) of every constraint, and aux (nc, 6) what the
    wrenches need (Distance: the unit direction; Hinge: n1, n2 in world axes). Needs R0, P0, U
    (CRBA) and the world velocities; Ja, Jb (6, nv), T2 (2, 4, 4), sm (21) scratch. False when a
    Distance's two points coincide."""
    nv = Jst.shape[1]
    ba, bb, Rr = sm[0:6], sm[6:12], sm[12:21].reshape((3, 3))
    Ta, Tb = T2[0], T2[1]
    for c in range(K.shape[0]):
        t, r0 = int(K[c, KTYPE]), int(K[c, KROW])
        if t == COUPLING:
            qa, qb, va, vb = int(K[c, KQA]), int(K[c, KQB]), int(K[c, KVA]), int(K[c, KVB])
            for k in range(nv):
                Jst[r0, k] = 0.0
            Jst[r0, va] += 1.0
            Jst[r0, vb] -= K[c, KP0]
            bias[r0] = 0.0
            phi[r0] = q[qa] - K[c, KP0] * q[qb] - K[c, KP1]
            continue
        if t >= ROLL:
            frame_rows(B, int(K[c, KBA]), TF[c, 0], Ta, Ja, ba)
            if not nonholonomic_rows(K, c, r0, t, Ta, Ja, ba, qd, Jst, bias, phi, aux):
                return False
            continue
        ia, ib = int(K[c, KBA]), int(K[c, KBB])
        if t == POINT or t == WELD:   # straight into the rows: no 6 x nv temporaries
            o = 3 if t == POINT else 0
            frame_at(B, ia, TF[c, 0], Ta)
            frame_at(B, ib, TF[c, 1], Tb)
            for r in range(r0, r0 + 6 - o):
                for k in range(nv):
                    Jst[r, k] = 0.0
            add_jacobian(B, ia, Ta, 1.0, Jst, r0, o)
            add_jacobian(B, ib, Tb, -1.0, Jst, r0, o)
            point_bias(B, ia, Ta, ba)
            if ib != 0:
                point_bias(B, ib, Tb, bb)
                for r in range(6):
                    ba[r] -= bb[r]
            for r in range(o, 6):
                bias[r0 + r - o] = ba[r]
            phi[r0 + 3 - o] = Ta[0, 3] - Tb[0, 3]
            phi[r0 + 4 - o] = Ta[1, 3] - Tb[1, 3]
            phi[r0 + 5 - o] = Ta[2, 3] - Tb[2, 3]
            if t == WELD:
                for x in range(3):
                    for y in range(3):
                        Rr[x, y] = Ta[x, 0] * Tb[y, 0] + Ta[x, 1] * Tb[y, 1] + Ta[x, 2] * Tb[y, 2]
                log3(Rr, phi[r0:r0 + 3])
            continue
        frame_rows(B, int(K[c, KBA]), TF[c, 0], Ta, Ja, ba)
        frame_rows(B, int(K[c, KBB]), TF[c, 1], Tb, Jb, bb)
        if int(K[c, KBB]) != 0:
            for r in range(6):        # Ja <- Ja - Jb: relative twist of a with respect to b
                for k in range(nv):
                    Ja[r, k] -= Jb[r, k]
                ba[r] -= bb[r]
        d0, d1, d2 = Ta[0, 3] - Tb[0, 3], Ta[1, 3] - Tb[1, 3], Ta[2, 3] - Tb[2, 3]
        if t == DISTANCE:
            n = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            if not n > 1e-12:
                return False
            e0, e1, e2 = d0 / n, d1 / n, d2 / n
            aux[c, 0], aux[c, 1], aux[c, 2] = e0, e1, e2
            rd0 = rd1 = rd2 = 0.0
            for k in range(nv):
                Jst[r0, k] = e0 * Ja[3, k] + e1 * Ja[4, k] + e2 * Ja[5, k]
                rd0 += Ja[3, k] * qd[k]
                rd1 += Ja[4, k] * qd[k]
                rd2 += Ja[5, k] * qd[k]
            er = e0 * rd0 + e1 * rd1 + e2 * rd2
            bias[r0] = e0 * ba[3] + e1 * ba[4] + e2 * ba[5] + (rd0 * rd0 + rd1 * rd1 + rd2 * rd2 - er * er) / n
            phi[r0] = n - K[c, KP0]
        else:  # HINGE: the Point rows, then the relative rotation rate along n1, n2 (world)
            for r in range(3):
                for k in range(nv):
                    Jst[r0 + r, k] = Ja[3 + r, k]
                bias[r0 + r] = ba[3 + r]
            phi[r0], phi[r0 + 1], phi[r0 + 2] = d0, d1, d2
            wa0 = wa1 = wa2 = 0.0     # omega_a (world): (Ja - Jb + Jb) qd
            wr0 = wr1 = wr2 = 0.0     # relative: (Ja - Jb) qd
            for k in range(nv):
                wr0 += Ja[0, k] * qd[k]
                wr1 += Ja[1, k] * qd[k]
                wr2 += Ja[2, k] * qd[k]
            wa0, wa1, wa2 = wr0, wr1, wr2
            if int(K[c, KBB]) != 0:
                for k in range(nv):
                    wa0 += Jb[0, k] * qd[k]
                    wa1 += Jb[1, k] * qd[k]
                    wa2 += Jb[2, k] * qd[k]
            for h in range(2):
                n0, n1, n2 = world_normal(K, c, h, Ta)
                aux[c, 3 * h], aux[c, 3 * h + 1], aux[c, 3 * h + 2] = n0, n1, n2
                for k in range(nv):
                    Jst[r0 + 3 + h, k] = n0 * Ja[0, k] + n1 * Ja[1, k] + n2 * Ja[2, k]
                nd0, nd1, nd2 = wa1 * n2 - wa2 * n1, wa2 * n0 - wa0 * n2, wa0 * n1 - wa1 * n0
                bias[r0 + 3 + h] = n0 * ba[0] + n1 * ba[1] + n2 * ba[2] + nd0 * wr0 + nd1 * wr1 + nd2 * wr2
            # phi = [n2 . axis_b, -n1 . axis_b], axis_b = R_b axis (axis = n1 x n2 in frame_a's axes)
            p0, p1, p2 = K[c, KN], K[c, KN + 1], K[c, KN + 2]
            p3, p4, p5 = K[c, KN + 3], K[c, KN + 4], K[c, KN + 5]
            x0, x1, x2 = p1 * p5 - p2 * p4, p2 * p3 - p0 * p5, p0 * p4 - p1 * p3
            ab0 = Tb[0, 0] * x0 + Tb[0, 1] * x1 + Tb[0, 2] * x2
            ab1 = Tb[1, 0] * x0 + Tb[1, 1] * x1 + Tb[1, 2] * x2
            ab2 = Tb[2, 0] * x0 + Tb[2, 1] * x1 + Tb[2, 2] * x2
            phi[r0 + 3] = aux[c, 3] * ab0 + aux[c, 4] * ab1 + aux[c, 5] * ab2
            phi[r0 + 4] = -(aux[c, 0] * ab0 + aux[c, 1] * ab1 + aux[c, 2] * ab2)
    return True


@nb.njit
def nonholonomic_rows(K, c, r0, t, Ta, Ja, ba, qd, Jst, bias, phi, aux):
    """The rows of a rolling contact (ROLL), a knife edge (KNIFE) or a no-pivot condition
    (NOPIVOT) from the frame's world Jacobian Ja and ``Jdot v`` ba (mirrors
    :mod:`artidyn.constraints.nonholonomic`). False when a disk lies flat."""
    nv = Jst.shape[1]
    w0 = w1 = w2 = 0.0
    v0 = v1 = v2 = 0.0
    for k in range(nv):
        w0 += Ja[0, k] * qd[k]
        w1 += Ja[1, k] * qd[k]
        w2 += Ja[2, k] * qd[k]
        v0 += Ja[3, k] * qd[k]
        v1 += Ja[4, k] * qd[k]
        v2 += Ja[5, k] * qd[k]
    n0, n1, n2 = K[c, KN + 3], K[c, KN + 4], K[c, KN + 5]
    if t == NOPIVOT:
        for k in range(nv):
            Jst[r0, k] = n0 * Ja[0, k] + n1 * Ja[1, k] + n2 * Ja[2, k]
        bias[r0] = n0 * ba[0] + n1 * ba[1] + n2 * ba[2]
        phi[r0] = 0.0
        aux[c, 0], aux[c, 1], aux[c, 2] = n0, n1, n2
        return True
    if t == KNIFE:
        x0, x1, x2 = K[c, KN], K[c, KN + 1], K[c, KN + 2]
        l0 = Ta[0, 0] * x0 + Ta[0, 1] * x1 + Ta[0, 2] * x2
        l1 = Ta[1, 0] * x0 + Ta[1, 1] * x1 + Ta[1, 2] * x2
        l2 = Ta[2, 0] * x0 + Ta[2, 1] * x1 + Ta[2, 2] * x2
        for k in range(nv):
            Jst[r0, k] = l0 * Ja[3, k] + l1 * Ja[4, k] + l2 * Ja[5, k]
        # d/dt (l . v_P) - l . a_P(a) = (omega x l) . v_P + l . (Jdot v)_P
        bias[r0] = ((w1 * l2 - w2 * l1) * v0 + (w2 * l0 - w0 * l2) * v1 + (w0 * l1 - w1 * l0) * v2
                    + l0 * ba[3] + l1 * ba[4] + l2 * ba[5])
        phi[r0] = 0.0
        p0, p1, p2 = K[c, KN + 6], K[c, KN + 7], K[c, KN + 8]     # the point from the frame's origin
        aux[c, 0], aux[c, 1], aux[c, 2] = l0, l1, l2
        aux[c, 3] = Ta[0, 0] * p0 + Ta[0, 1] * p1 + Ta[0, 2] * p2
        aux[c, 4] = Ta[1, 0] * p0 + Ta[1, 1] * p1 + Ta[1, 2] * p2
        aux[c, 5] = Ta[2, 0] * p0 + Ta[2, 1] * p1 + Ta[2, 2] * p2
        return True
    # ROLL: the contact point p + r u, u the unit vector of the disk's plane most along -n (a
    # sphere: -n); rows e_k . (v_p + omega x r u), bias e_k . (a_p + alpha x r u + omega x r udot)
    r = K[c, KP0]
    x0, x1, x2 = K[c, KN], K[c, KN + 1], K[c, KN + 2]
    if x0 == 0.0 and x1 == 0.0 and x2 == 0.0:
        u0, u1, u2 = -n0, -n1, -n2
        ud0 = ud1 = ud2 = 0.0
    else:
        a0 = Ta[0, 0] * x0 + Ta[0, 1] * x1 + Ta[0, 2] * x2
        a1 = Ta[1, 0] * x0 + Ta[1, 1] * x1 + Ta[1, 2] * x2
        a2 = Ta[2, 0] * x0 + Ta[2, 1] * x1 + Ta[2, 2] * x2
        na = n0 * a0 + n1 * a1 + n2 * a2
        m0, m1, m2 = n0 - na * a0, n1 - na * a1, n2 - na * a2       # w = n - (n . a) a
        sn = math.sqrt(m0 * m0 + m1 * m1 + m2 * m2)
        if not sn > 1e-9:
            return False
        u0, u1, u2 = -m0 / sn, -m1 / sn, -m2 / sn
        ad0, ad1, ad2 = w1 * a2 - w2 * a1, w2 * a0 - w0 * a2, w0 * a1 - w1 * a0   # adot = omega x a
        nad = n0 * ad0 + n1 * ad1 + n2 * ad2
        md0, md1, md2 = -nad * a0 - na * ad0, -nad * a1 - na * ad1, -nad * a2 - na * ad2
        h0, h1, h2 = m0 / sn, m1 / sn, m2 / sn
        hm = h0 * md0 + h1 * md1 + h2 * md2
        ud0, ud1, ud2 = -(md0 - hm * h0) / sn, -(md1 - hm * h1) / sn, -(md2 - hm * h2) / sn
    p0, p1, p2 = r * u0, r * u1, r * u2                              # rho = r u
    c0 = ba[3] + ba[1] * p2 - ba[2] * p1 + r * (w1 * ud2 - w2 * ud1)
    c1 = ba[4] + ba[2] * p0 - ba[0] * p2 + r * (w2 * ud0 - w0 * ud2)
    c2 = ba[5] + ba[0] * p1 - ba[1] * p0 + r * (w0 * ud1 - w1 * ud0)
    rows = int(K[c, KQA])
    for h in range(rows):
        if h == 2:
            e0, e1, e2 = n0, n1, n2
        else:
            e0, e1, e2 = K[c, KN + 6 + 3 * h], K[c, KN + 7 + 3 * h], K[c, KN + 8 + 3 * h]
        for k in range(nv):
            j0 = Ja[3, k] + Ja[1, k] * p2 - Ja[2, k] * p1
            j1 = Ja[4, k] + Ja[2, k] * p0 - Ja[0, k] * p2
            j2 = Ja[5, k] + Ja[0, k] * p1 - Ja[1, k] * p0
            Jst[r0 + h, k] = e0 * j0 + e1 * j1 + e2 * j2
        bias[r0 + h] = e0 * c0 + e1 * c1 + e2 * c2
        phi[r0 + h] = 0.0
    if rows == 3:
        phi[r0 + 2] = n0 * (Ta[0, 3] + p0) + n1 * (Ta[1, 3] + p1) + n2 * (Ta[2, 3] + p2) - K[c, KP1]
    aux[c, 0], aux[c, 1], aux[c, 2] = p0, p1, p2
    return True


@nb.njit
def wrenches(K, aux, lam, W):
    """W (nc, 6) <- the reaction on frame_a of each constraint, [moment about its origin; force]
    in world axes (Coupling: its multiplier in W[c, 0], the rest zero)."""
    for c in range(K.shape[0]):
        t, r0 = int(K[c, KTYPE]), int(K[c, KROW])
        for r in range(6):
            W[c, r] = 0.0
        if t == POINT:
            W[c, 3], W[c, 4], W[c, 5] = lam[r0], lam[r0 + 1], lam[r0 + 2]
        elif t == WELD:
            for r in range(6):
                W[c, r] = lam[r0 + r]
        elif t == DISTANCE:
            for r in range(3):
                W[c, 3 + r] = lam[r0] * aux[c, r]
        elif t == HINGE:
            for r in range(3):
                W[c, r] = aux[c, r] * lam[r0 + 3] + aux[c, 3 + r] * lam[r0 + 4]
                W[c, 3 + r] = lam[r0 + r]
        elif t == ROLL:           # the force on the body at the contact, moment about the centre
            for h in range(int(K[c, KQA])):
                for r in range(3):
                    W[c, 3 + r] += lam[r0 + h] * (K[c, KN + 3 + r] if h == 2 else K[c, KN + 6 + 3 * h + r])
            W[c, 0] = aux[c, 1] * W[c, 5] - aux[c, 2] * W[c, 4]
            W[c, 1] = aux[c, 2] * W[c, 3] - aux[c, 0] * W[c, 5]
            W[c, 2] = aux[c, 0] * W[c, 4] - aux[c, 1] * W[c, 3]
        elif t == KNIFE:          # the force at the point, moment about the frame's origin
            for r in range(3):
                W[c, 3 + r] = lam[r0] * aux[c, r]
            W[c, 0] = aux[c, 4] * W[c, 5] - aux[c, 5] * W[c, 4]
            W[c, 1] = aux[c, 5] * W[c, 3] - aux[c, 3] * W[c, 5]
            W[c, 2] = aux[c, 3] * W[c, 4] - aux[c, 4] * W[c, 3]
        elif t == NOPIVOT:
            for r in range(3):
                W[c, r] = lam[r0] * aux[c, r]
        else:
            W[c, 0] = lam[r0]


@nb.njit
def subtree_sizes(lam, sub):
    """sub[k] <- the number of dofs in the subtree of dof k (k included): in depth-first order
    they are k .. k + sub[k] - 1."""
    for k in range(lam.shape[0]):
        sub[k] = 1
    for k in range(lam.shape[0] - 1, -1, -1):
        if lam[k] >= 0:
            sub[lam[k]] += sub[k]


@nb.njit(_nrt=False, fastmath=FAST)
def utdu(M, lam, sub, D, du):
    """M = U D U^T in place: U (unit upper triangular) in M's upper triangle, U[i, k] nonzero
    only for k in the subtree of i; D (nv) out; du (nv) scratch. Featherstone's L^T D L (RBDA
    Table 6.3) with U = L^T, ordered so that the inner products run over contiguous subtrees;
    ``du = D U[j, :]^T`` over the subtree is formed once per column, and one division per pivot.
    False when a pivot is not positive."""
    n = M.shape[0]
    for j in range(n - 1, -1, -1):
        e = j + sub[j]
        d = M[j, j]
        for k in range(j + 1, e):
            x = D[k] * M[j, k]
            du[k] = x
            d -= M[j, k] * x
        if not d > 0.0:
            return False
        D[j] = d
        dinv = 1.0 / d
        i = lam[j]
        while i >= 0:
            x = M[i, j]
            for k in range(j + 1, e):
                x -= M[i, k] * du[k]
            M[i, j] = x * dinv
            i = lam[i]
    return True


@nb.njit(fastmath=FAST)
def solve_u(U, sub, x):
    """x <- U^-1 x (backward, one inner product over each subtree)."""
    for i in range(x.shape[0] - 1, -1, -1):
        s = x[i]
        for k in range(i + 1, i + sub[i]):
            s -= U[i, k] * x[k]
        x[i] = s


@nb.njit(_nrt=False, fastmath=FAST)
def solve_ut(U, sub, x):
    """x <- U^-T x (forward, one update of each subtree)."""
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for k in range(i + 1, i + sub[i]):
                x[k] -= U[i, k] * xi


@nb.njit(_nrt=False)
def solve_m(U, sub, D, x):
    """x <- M^-1 x with M = U D U^T factored by ``utdu``."""
    solve_u(U, sub, x)
    for i in range(x.shape[0]):
        x[i] /= D[i]
    solve_ut(U, sub, x)


@nb.njit(fastmath=FAST)
def cholesky(G, strict, dropped):
    """G <- its lower Cholesky factor in place. A pivot below 1e-11 of the largest diagonal entry
    (a redundant or degenerate row): ``strict``, return -1; otherwise drop the row (its multiplier
    will be zero: dropped[j] = 1, a basic rather than least-norm solution) and go on. Returns the
    number of rows dropped, or -1."""
    m = G.shape[0]
    top = 0.0
    for r in range(m):
        top = max(top, G[r, r])
    tol = 1e-11 * top
    n = 0
    for j in range(m):
        dropped[j] = 0
        d = G[j, j]
        for k in range(j):
            d -= G[j, k] * G[j, k]
        if not d > tol:
            if strict or not d - d == 0.0:
                return -1
            dropped[j] = 1
            n += 1
            for k in range(j):
                G[j, k] = 0.0
            for r in range(j + 1, m):
                G[r, j] = 0.0
            G[j, j] = 1.0
            continue
        d = np.sqrt(d)
        G[j, j] = d
        for r in range(j + 1, m):
            s = G[r, j]
            for k in range(j):
                s -= G[r, k] * G[j, k]
            G[r, j] = s / d
    return n


@nb.njit(_nrt=False, fastmath=FAST)
def cholesky_solve(G, dropped, x):
    """x <- (G G^T)^-1 x with G the lower factor; dropped rows get zero."""
    m = G.shape[0]
    for r in range(m):
        if dropped[r]:
            x[r] = 0.0
            continue
        s = x[r]
        for k in range(r):
            s -= G[r, k] * x[k]
        x[r] = s / G[r, r]
    for r in range(m - 1, -1, -1):
        if dropped[r]:
            x[r] = 0.0
            continue
        s = x[r]
        for k in range(r + 1, m):
            s -= G[k, r] * x[k]
        x[r] = s / G[r, r]


@nb.njit(fastmath=FAST)
def y_rows(U, lam, Jst, dis, Y, span):
    """Y (m, nv) <- D^-1/2 U^-1 J^T row by row (dis = D^-1/2): the entries of row r flow from
    J's nonzero columns to their ancestors only, and span[r] = (first, last) nonzero column."""
    for r in range(Jst.shape[0]):
        y_row(U, lam, Jst[r], 0, Jst.shape[1], dis, Y[r], span[r])


@nb.njit(_nrt=False, fastmath=FAST)
def y_row(U, lam, j, lo, hi, dis, y, span):
    """One row of :func:`y_rows` on the columns lo .. hi - 1 (a range closed under the parent
    dof, holding j's nonzeros): y written there only, span <- its first and last nonzero column."""
    for k in range(lo, hi):
        y[k] = j[k]
    top = lo - 1
    for k in range(hi - 1, lo - 1, -1):
        yk = y[k]
        if yk != 0.0:
            if top < lo:
                top = k
            i = lam[k]
            while i >= 0:
                y[i] -= U[i, k] * yk
                i = lam[i]
    first = top + 1
    for k in range(lo, top + 1):
        y[k] *= dis[k]
        if first > k and y[k] != 0.0:
            first = k
    span[0], span[1] = first, top + 1


@nb.njit
def delassus(U, lam, Jst, dis, Y, span, G):
    """Y and span as :func:`y_rows`; G (m, m) <- Y Y^T, the Delassus matrix J M^-1 J^T, over the
    overlapping spans (:func:`gram`)."""
    y_rows(U, lam, Jst, dis, Y, span)
    gram(Y, span, G)


@nb.njit
def gram(Y, span, G):
    """G (m, m) <- Y Y^T over the overlapping spans of the rows (``span`` as :func:`y_rows`)."""
    bordered_gram(Y, span, G, Y.shape[0])


@nb.njit(_nrt=False)
def bordered_gram(Y, span, G, mc):
    """:func:`gram` but for the block of the rows from mc on with each other (left as it is: a
    bilateral block factored already)."""
    m = Y.shape[0]
    for r in range(m):
        yr = Y[r]
        for s in range(min(r + 1, mc)):
            lo = max(span[r, 0], span[s, 0])
            x = dot(yr[lo:], Y[s, lo:], min(span[r, 1], span[s, 1]) - lo)
            G[r, s] = x
            G[s, r] = x


@nb.njit
def supports(B, K, lam, m, path):
    """path[c] <- (count, dofs...) the dofs constraint c's rows can touch, ascending: the dofs of
    its bodies' joints and of all their ancestors (Coupling: its two dofs and their ancestors).
    The set is closed under taking the parent dof, so U^-1 keeps a row of J inside it."""
    nv = lam.shape[0]
    mark = np.zeros(nv, np.int64)
    for c in range(K.shape[0]):
        for k in range(nv):
            mark[k] = 0
        if int(K[c, KTYPE]) == COUPLING:
            starts = (int(K[c, KVA]), int(K[c, KVB]))
        else:
            starts = (last_dof(B, int(K[c, KBA])), last_dof(B, int(K[c, KBB])))
        for k0 in starts:
            k = k0
            while k >= 0 and mark[k] == 0:
                mark[k] = 1
                k = lam[k]
        n = 0
        for k in range(nv):
            if mark[k]:
                n += 1
                path[c, n] = k
        path[c, 0] = n


@nb.njit
def last_dof(B, i):
    """The last dof of body i's joint, or of its nearest ancestor joint with dofs (-1: none)."""
    while i > 0 and int(B[i, NVJ]) == 0:
        i = int(B[i, PARENT])
    return int(B[i, IV]) + int(B[i, NVJ]) - 1 if i > 0 else -1


@nb.njit
def row_end(K, c, m):
    """One past the last row of constraint c."""
    return int(K[c + 1, KROW]) if c + 1 < K.shape[0] else m


@nb.njit(fastmath=FAST)
def delassus_paths(U, K, path, Jst, dis, Y, G, Uc):
    """As :func:`delassus` with the supports of :func:`supports`, in compact rows: for a row r of
    constraint c with support ``idx = path[c, 1:n + 1]``, ``Y[r, t]`` (t < n) <- the entry idx[t]
    of D^-1/2 U^-1 J^T (Y's other entries are zero and not stored). U restricted to the support
    is gathered once per constraint (``Uc[t, s] = U[idx[s], idx[t]]``, zero where idx[s] is not
    an ancestor of idx[t]), so each row's solve runs over contiguous memory. G <- Y Y^T: within
    a constraint contiguous inner products; between two constraints over the dofs of both
    supports, their common leading dofs (the shared ancestors: all of them when each support is
    one path to the root) and then any others (a merge of the two ascending lists)."""
    m = Jst.shape[0]
    nc = K.shape[0]
    for c in range(nc):
        n = path[c, 0]
        r0, r1 = int(K[c, KROW]), row_end(K, c, m)
        idx = path[c, 1:n + 1]
        for t in range(n):
            k = idx[t]
            for s in range(t):
                Uc[t, s] = U[idx[s], k]
        for r in range(r0, r1):
            y = Y[r]
            for t in range(n):
                y[t] = Jst[r, idx[t]]
            for t in range(n - 1, 0, -1):
                yk = y[t]
                ut = Uc[t]
                for s in range(t):
                    y[s] -= ut[s] * yk
            for t in range(n):
                y[t] *= dis[idx[t]]
    for c in range(nc):
        n = path[c, 0]
        r0, r1 = int(K[c, KROW]), row_end(K, c, m)
        for r in range(r0, r1):
            yr = Y[r]
            for s in range(r0, r + 1):
                ys = Y[s]
                x = 0.0
                for t in range(n):
                    x += yr[t] * ys[t]
                G[r, s] = x
                G[s, r] = x
        for c2 in range(c):
            n2 = path[c2, 0]
            s0, s1 = int(K[c2, KROW]), row_end(K, c2, m)
            p = 0
            while p < n and p < n2 and path[c, 1 + p] == path[c2, 1 + p]:
                p += 1
            for r in range(r0, r1):
                yr = Y[r]
                for s in range(s0, s1):
                    ys = Y[s]
                    x = 0.0
                    for t in range(p):
                        x += yr[t] * ys[t]
                    G[r, s] = x
            t, t2 = p, p
            while t < n and t2 < n2:       # common dofs after the leading ones (supports of two bodies)
                k, k2 = path[c, 1 + t], path[c2, 1 + t2]
                if k == k2:
                    for r in range(r0, r1):
                        y = Y[r, t]
                        for s in range(s0, s1):
                            G[r, s] += y * Y[s, t2]
                    t += 1
                    t2 += 1
                elif k < k2:
                    t += 1
                else:
                    t2 += 1
            for r in range(r0, r1):
                for s in range(s0, s1):
                    G[s, r] = G[r, s]


@nb.njit(fastmath=FAST)
def rows_times(K, path, Jst, x, out):
    """out (m) <- J x over each constraint's support (J's rows dense, nv wide)."""
    m = Jst.shape[0]
    for c in range(K.shape[0]):
        n = path[c, 0]
        for r in range(int(K[c, KROW]), row_end(K, c, m)):
            s = 0.0
            for t in range(1, n + 1):
                k = path[c, t]
                s += Jst[r, k] * x[k]
            out[r] = s


@nb.njit(fastmath=FAST)
def compact_times(K, path, Y, x, out):
    """out (m) <- Y x with Y's compact rows (:func:`delassus_paths`)."""
    m = Y.shape[0]
    for c in range(K.shape[0]):
        n = path[c, 0]
        for r in range(int(K[c, KROW]), row_end(K, c, m)):
            s = 0.0
            for t in range(n):
                s += Y[r, t] * x[path[c, 1 + t]]
            out[r] = s


@nb.njit(_nrt=False, fastmath=FAST)
def correction(Y, span, lam, dis, y):
    """y <- D^-1/2 Y^T lam."""
    for k in range(y.shape[0]):
        y[k] = 0.0
    for r in range(Y.shape[0]):
        yr, x = Y[r], lam[r]
        for k in range(span[r, 0], span[r, 1]):
            y[k] += yr[k] * x
    for k in range(y.shape[0]):
        y[k] *= dis[k]


@nb.njit(fastmath=FAST)
def add_rows_t(K, path, Y, lam, y):
    """y += Y^T lam with Y's compact rows (:func:`delassus_paths`)."""
    m = Y.shape[0]
    for c in range(K.shape[0]):
        n = path[c, 0]
        for r in range(int(K[c, KROW]), row_end(K, c, m)):
            x = lam[r]
            for t in range(n):
                y[path[c, 1 + t]] += Y[r, t] * x


@nb.njit
def factor_state(B, K, TF, q, qd, S, phi, strict):
    """The factors at the configuration loaded by ``load_q``: M = U D U^T (U in S.M, D in
    work[4], D^-1/2 in work[3]), the rows J (S.Jst), their ``Jdot v`` (work[2]) and phi, Y and the
    Cholesky factor of the Delassus matrix (S.G; ``strict``: see :func:`constrained_state`)."""
    crba_state(B, S[3])
    world_velocities(B, qd)
    return factor_rows(B, K, TF, q, qd, S, phi, strict)


@nb.njit
def factor_bias_state(B, K, TF, q, qd, fext, opts, S, phi, strict):
    """:func:`factor_state` with the bias forces h = rnea(q, qd, 0) in work[0] from the same
    pass (:func:`crba_bias_state`), for :func:`solve_state` with ``have_h``."""
    crba_bias_state(B, qd, fext, opts, S[3], S[9][0, :S[3].shape[0]])
    return factor_rows(B, K, TF, q, qd, S, phi, strict)


@nb.njit
def factor_rows(B, K, TF, q, qd, S, phi, strict):
    """The rest of :func:`factor_state` once M and the world velocities are in place."""
    lam_dof, sub, span, M, Jst, Y, Ja, Jb, G, work, T2, sm, aux, path, Uc = S
    nv, m = M.shape[0], G.shape[0]
    if not constraint_rows(B, K, TF, q, qd, Jst, work[2, :m], phi, aux, Ja, Jb, T2, sm):
        return DEGENERATE
    if not matrix_finite(M):
        return BAD_INPUT
    D = work[4, :nv]
    if not utdu(M, lam_dof, sub, D, work[3, :nv]):       # work[3]: scratch until D^-1/2 below
        return SINGULAR
    for k in range(nv):
        work[3, k] = 1.0 / math.sqrt(D[k])
    delassus_paths(M, K, path, Jst, work[3, :nv], Y, G, Uc)
    if cholesky(G, strict, span[:, 2]) < 0:       # span[:, 2]: the rows dropped (strict: none)
        return SINGULAR
    return OK


@nb.njit
def solve_state(B, K, TF, q, qd, tau, fext, opts, alpha, beta, S, qdd, lam, phi, W, energy, refresh=True,
                have_h=False):
    """The constrained accelerations at (q, qd) with the factors of :func:`factor_state` at q
    (any qd): RNEA for h (``have_h``: h already in work[0], from :func:`factor_bias_state`; and,
    unless energy is None, the kinetic and potential energy read off that pass into energy[0:2]),
    the rows' ``Jdot v`` for this qd (``refresh``; False: the qd of the factorisation, its rows
    kept), then a0, lambda and a. work[5, 0] <- max |J a - gamma|."""
    lam_dof, sub, span, M, Jst, Y, Ja, Jb, G, work, T2, sm, aux, path, Uc = S
    nv, m = M.shape[0], G.shape[0]
    h = work[0, :nv]
    if not have_h:
        rnea_state(B, qd, work[1, :nv], fext, opts, h)       # work[1] holds zeros (qdd = 0)
    if energy is not None:
        energy[0], energy[1] = energy_after_dynamics(B, qd)
    gamma = work[2, :m]
    if refresh:                   # the rows again, for this qd's Jdot v (J and phi are unchanged)
        world_velocities(B, qd)
        if not constraint_rows(B, K, TF, q, qd, Jst, gamma, phi, aux, Ja, Jb, T2, sm):
            return DEGENERATE
    jv = work[5, 1:m + 1]
    rows_times(K, path, Jst, qd, jv)
    for r in range(m):              # gamma = -Jdot v - 2 alpha J v - beta^2 phi
        gamma[r] = -gamma[r] - 2.0 * alpha * jv[r] - beta * beta * phi[r]
    if not (all_finite(h) and all_finite(gamma)):
        return BAD_INPUT
    dis = work[3, :nv]
    for k in range(nv):             # z = D^-1/2 U^-1 (tau - h): a0 = U^-T D^-1/2 z, J a0 = Y z
        qdd[k] = tau[k] - h[k]
    solve_u(M, sub, qdd)
    for k in range(nv):
        qdd[k] *= dis[k]
    compact_times(K, path, Y, qdd, lam)
    for r in range(m):
        lam[r] = gamma[r] - lam[r]
    cholesky_solve(G, span[:, 2], lam)
    add_rows_t(K, path, Y, lam, qdd)  # a = U^-T D^-1/2 (z + Y^T lambda)
    for k in range(nv):
        qdd[k] *= dis[k]
    solve_ut(M, sub, qdd)
    rows_times(K, path, Jst, qdd, jv)
    res = 0.0
    for r in range(m):
        res = max(res, abs(jv[r] - gamma[r]))
    work[5, 0] = res
    wrenches(K, aux, lam, W)
    return OK if all_finite(qdd) and all_finite(lam) else BAD_INPUT


@nb.njit
def constrained_state(B, K, TF, q, qd, tau, fext, opts, alpha, beta, S, qdd, lam, phi, W, strict=True,
                      energy=None):
    """Constrained forward dynamics for the state loaded by ``load_q``; a return code.

    S: the scratch of :func:`scratch`; out: qdd (nv), lam (m), phi (m), W (nc, 6) the wrenches.
    ``strict``: a singular Delassus matrix returns SINGULAR; otherwise its dependent rows are
    dropped (zero multipliers, see :func:`cholesky`) and S's span[:, 2] marks them.
    The factors stay in S (:func:`factor_state`), for a caller that needs them; work[5, 0] <-
    max |J a - gamma|.
    """
    NO, YES = np.bool_(False), np.bool_(True)   # not literals: a literal argument is a compile of its own
    if energy is None:              # h from the CRBA's pass (world coordinates)
        code = factor_bias_state(B, K, TF, q, qd, fext, opts, S, phi, strict)
        if code != OK:
            return code
        return solve_state(B, K, TF, q, qd, tau, fext, opts, alpha, beta, S, qdd, lam, phi, W, energy, NO, YES)
    code = factor_state(B, K, TF, q, qd, S, phi, strict)      # the energies read off the RNEA's pass
    if code != OK:
        return code
    return solve_state(B, K, TF, q, qd, tau, fext, opts, alpha, beta, S, qdd, lam, phi, W, energy, NO, NO)


@nb.njit
def scratch_sizes(nv, m, nc):
    """(floats, ints) of the scratch of ``constrained_state``; the floats end with the outputs
    of :func:`constrained_into` (lam (m), phi (m), W (nc, 6), info (1))."""
    w = max(nv, m + 1, 1)
    tot = 2 * nv * nv + 2 * m * nv + 12 * nv + m * m + 6 * w + 32 + 21 + 6 * nc
    return tot + 2 * m + 6 * nc + 1, 2 * nv + 3 * m + nc * (nv + 1)


@nb.njit
def scratch_views(nv, m, nc, buf, ints):
    """The scratch as views of ``buf`` and ``ints`` (sizes of :func:`scratch_sizes`): lam_dof,
    sub, span, M, Jst, Y, Ja, Jb, G, work, T2, sm, aux, path, Uc."""
    w = max(nv, m + 1, 1)
    o = 0
    M = buf[o:o + nv * nv].reshape((nv, nv))
    o += nv * nv
    Jst = buf[o:o + m * nv].reshape((m, nv))
    o += m * nv
    Y = buf[o:o + m * nv].reshape((m, nv))
    o += m * nv
    Ja = buf[o:o + 6 * nv].reshape((6, nv))
    o += 6 * nv
    Jb = buf[o:o + 6 * nv].reshape((6, nv))
    o += 6 * nv
    G = buf[o:o + m * m].reshape((m, m))
    o += m * m
    work = buf[o:o + 6 * w].reshape((6, w))
    o += 6 * w
    T2 = buf[o:o + 32].reshape((2, 4, 4))
    o += 32
    sm = buf[o:o + 21]
    o += 21
    aux = buf[o:o + 6 * nc].reshape((nc, 6))
    o += 6 * nc
    Uc = buf[o:o + nv * nv].reshape((nv, nv))
    lam_dof, sub = ints[:nv], ints[nv:2 * nv]
    span = ints[2 * nv:2 * nv + 3 * m].reshape((m, 3))
    path = ints[2 * nv + 3 * m:2 * nv + 3 * m + nc * (nv + 1)].reshape((nc, nv + 1))
    return lam_dof, sub, span, M, Jst, Y, Ja, Jb, G, work, T2, sm, aux, path, Uc


@nb.njit
def scratch_init(B, K, m, buf, ints):
    """Views of ``buf``, ``ints`` (:func:`scratch_views`) set up for the model B and the
    constraints K: the dof tree, the supports, Y zero off them, work[1] zero (the RNEA's qdd)."""
    S = scratch_views(int(B[0, IV]), m, K.shape[0], buf, ints)
    lam_dof, sub, Y, work, path = S[0], S[1], S[5], S[9], S[13]
    dof_parents(B, lam_dof)
    subtree_sizes(lam_dof, sub)
    supports(B, K, lam_dof, m, path)
    Y[:, :] = 0.0
    work[1, :] = 0.0
    return S


@nb.njit
def scratch(B, K, m):
    """The scratch of ``constrained_state`` for the constraints K with m rows: views of one
    buffer, the dof tree, and each constraint's support (:func:`supports`)."""
    nf, ni = scratch_sizes(int(B[0, IV]), m, K.shape[0])
    return scratch_init(B, K, m, np.empty(nf), np.empty(ni, np.int64))


@nb.njit
def unconstrained_state(B, qd, tau, fext, opts, S, qdd):
    """No constraint: a = M^-1 (tau - h) by the same factorisation."""
    sub, M, work = S[1], S[3], S[9]
    nv = M.shape[0]
    h, D = work[0, :nv], work[4, :nv]
    rnea_state(B, qd, work[1, :nv], fext, opts, h)
    crba_state(B, M)
    if not (matrix_finite(M) and all_finite(h)):
        return BAD_INPUT
    if not utdu(M, S[0], sub, D, work[2, :nv]):
        return SINGULAR
    for k in range(nv):
        qdd[k] = tau[k] - h[k]
    solve_m(M, sub, D, qdd)
    return OK if all_finite(qdd) else BAD_INPUT


@nb.njit
def one_state(B, K, TF, q, qd, tau, fext, opts, alpha, beta, S, qdd, lam, phi, W, info):
    """One state with the scratch S; info[0] <- max |J a - gamma|. A return code."""
    info[0] = 0.0
    if not inputs_ok(B, q, qd, tau, fext, opts, qdd):
        return BAD_INPUT
    if lam.shape[0] == 0:
        return unconstrained_state(B, qd, tau, fext, opts, S, qdd)
    code = constrained_state(B, K, TF, q, qd, tau, fext, opts, alpha, beta, S, qdd, lam, phi, W, np.bool_(True),
                             None)
    info[0] = S[9][5, 0]
    return code
