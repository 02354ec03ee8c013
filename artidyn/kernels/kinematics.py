"""Compiled placements, frame placements and frame Jacobians for one state.

Mirrors :mod:`artidyn.kinematics.placements` and :mod:`artidyn.kinematics.jacobians`: world
placements ``T_0i = T_0,lambda(i) T_up[i]`` (internal frames, :mod:`.pack`; body frames are
``T_0i diag(Ra_i^T, 1)``). Jacobian column of dof k of joint j on the path to the root, for a
frame at the world point p: ``[w; w x (p - o_j)]`` for a rotation about the unit world axis w
through o_j, ``[0; u]`` for a translation along u (DESIGN.md: "world" = LOCAL_WORLD_ALIGNED;
"local": both halves in the frame's axes).
"""
import numba as nb

from .pack import P, P0, PARENT, PITCH, R, R0, RA, IV, JTYPE, NVJ
from .spatial import FMA, HELICAL, dof_axis, dof_slides, joint_transform, load_q
from .types import BUF, I64, LOCAL, MAT, OUT2, OUT3, VEC


@nb.njit(_nrt=False, fastmath=FMA)
def placements_state(B, last):
    """R0, P0 of bodies 0 .. last (internal frames) for the state loaded by ``load_q``:
    ``R0_i = R0_p R_i``, ``P0_i = P0_p + R0_p p_i``. Every input is read into locals before the
    twelve results are stored (a store into B would otherwise make the compiled code load them again)."""
    for r in range(3):
        B[0, P0 + r] = 0.0
        for c in range(3):
            B[0, R0 + 3 * r + c] = 1.0 if r == c else 0.0
    for i in range(1, last + 1):
        par = int(B[i, PARENT])
        joint_transform(B, i)
        r00, r01, r02 = B[i, R], B[i, R + 1], B[i, R + 2]
        r10, r11, r12 = B[i, R + 3], B[i, R + 4], B[i, R + 5]
        r20, r21, r22 = B[i, R + 6], B[i, R + 7], B[i, R + 8]
        p0, p1, p2 = B[i, P], B[i, P + 1], B[i, P + 2]
        a00, a01, a02 = B[par, R0], B[par, R0 + 1], B[par, R0 + 2]
        a10, a11, a12 = B[par, R0 + 3], B[par, R0 + 4], B[par, R0 + 5]
        a20, a21, a22 = B[par, R0 + 6], B[par, R0 + 7], B[par, R0 + 8]
        o0, o1, o2 = B[par, P0], B[par, P0 + 1], B[par, P0 + 2]
        x = (a00 * r00 + a01 * r10 + a02 * r20, a00 * r01 + a01 * r11 + a02 * r21, a00 * r02 + a01 * r12 + a02 * r22,
             a10 * r00 + a11 * r10 + a12 * r20, a10 * r01 + a11 * r11 + a12 * r21, a10 * r02 + a11 * r12 + a12 * r22,
             a20 * r00 + a21 * r10 + a22 * r20, a20 * r01 + a21 * r11 + a22 * r21, a20 * r02 + a21 * r12 + a22 * r22,
             o0 + a00 * p0 + a01 * p1 + a02 * p2, o1 + a10 * p0 + a11 * p1 + a12 * p2,
             o2 + a20 * p0 + a21 * p1 + a22 * p2)
        for k in range(12):
            B[i, R0 + k] = x[k]          # R0 (9) and P0 (3) are contiguous


@nb.njit(fastmath=FMA)
def body_rotation(B, i, r, c):
    """Entry (r, c) of body i's world rotation in its body axes: (R0_i Ra_i^T)[r, c]."""
    return (B[i, R0 + 3 * r] * B[i, RA + 3 * c] + B[i, R0 + 3 * r + 1] * B[i, RA + 3 * c + 1]
            + B[i, R0 + 3 * r + 2] * B[i, RA + 3 * c + 2])


@nb.njit(_nrt=False, fastmath=FMA)
def frame_state(B, body, Tf, T):
    """T (4x4) <- world placement of the frame Tf (4x4, in body ``body``'s frame); needs R0, P0."""
    for r in range(3):
        e0, e1, e2 = body_rotation(B, body, r, 0), body_rotation(B, body, r, 1), body_rotation(B, body, r, 2)
        for c in range(4):
            T[r, c] = e0 * Tf[0, c] + e1 * Tf[1, c] + e2 * Tf[2, c]
        T[r, 3] += B[body, P0 + r]
    T[3, 0] = T[3, 1] = T[3, 2] = 0.0
    T[3, 3] = 1.0


@nb.njit(fastmath=FMA)
def jacobian_state(B, body, Tf, opts, T, J):
    """J (6, nv) <- Jacobian of the frame Tf on ``body``; T (4x4) <- its placement. Needs R0, P0."""
    frame_state(B, body, Tf, T)
    for r in range(6):
        for c in range(J.shape[1]):
            J[r, c] = 0.0
    l = body
    while l > 0:
        t, k = int(B[l, JTYPE]), int(B[l, IV])
        for j in range(int(B[l, NVJ])):
            # unit axis u (world) of dof j: internal z for flat joints, x, y, z otherwise
            a = dof_axis(t, j)
            u0, u1, u2 = B[l, R0 + a], B[l, R0 + 3 + a], B[l, R0 + 6 + a]
            if dof_slides(t, j):
                J[3, k + j], J[4, k + j], J[5, k + j] = u0, u1, u2
            else:
                d0, d1, d2 = T[0, 3] - B[l, P0], T[1, 3] - B[l, P0 + 1], T[2, 3] - B[l, P0 + 2]
                J[0, k + j], J[1, k + j], J[2, k + j] = u0, u1, u2
                J[3, k + j] = u1 * d2 - u2 * d1
                J[4, k + j] = u2 * d0 - u0 * d2
                J[5, k + j] = u0 * d1 - u1 * d0
                if t == HELICAL:  # the screw's slide: + p u
                    h = B[l, PITCH]
                    J[3, k + j] += h * u0
                    J[4, k + j] += h * u1
                    J[5, k + j] += h * u2
        l = int(B[l, PARENT])
    if opts & LOCAL:
        for c in range(J.shape[1]):
            for h in range(0, 6, 3):
                x0, x1, x2 = J[h, c], J[h + 1, c], J[h + 2, c]
                for r in range(3):
                    J[h + r, c] = T[0, r] * x0 + T[1, r] * x1 + T[2, r] * x2


@nb.njit(fastmath=FMA)
def body_placements_out(B, T):
    """T (nb+1, 4, 4) <- body frames in the world, from R0, P0 of all bodies."""
    for i in range(B.shape[0]):
        for r in range(3):
            for c in range(3):
                T[i, r, c] = body_rotation(B, i, r, c) if i > 0 else (1.0 if r == c else 0.0)
            T[i, r, 3] = B[i, P0 + r]
            T[i, 3, r] = 0.0
        T[i, 3, 3] = 1.0


@nb.njit(nb.boolean(BUF, VEC, OUT3), cache=True)
def placements_single(B, q, T):
    """Body placements (nb+1, 4, 4) for one state; False when q is not valid."""
    if T.shape[0] != B.shape[0] or not load_q(B, q):
        return False
    placements_state(B, B.shape[0] - 1)
    body_placements_out(B, T)
    return True


@nb.njit(nb.boolean(BUF, VEC, I64, MAT, OUT2), cache=True)
def frame_single(B, q, body, Tf, T):
    """Placement (4, 4) of the frame Tf of ``body`` for one state; False when q is not valid."""
    if not (0 <= body < B.shape[0]) or not load_q(B, q):
        return False
    placements_state(B, body)
    frame_state(B, body, Tf, T)
    return True


@nb.njit(nb.boolean(BUF, VEC, I64, MAT, I64, OUT2, OUT2), cache=True)
def jacobian_single(B, q, body, Tf, opts, T, J):
    """Jacobian (6, nv) of the frame Tf of ``body`` (opts & LOCAL: in frame axes) and the frame
    placement T (4, 4), for one state; False when q is not valid."""
    if not (0 <= body < B.shape[0]) or J.shape[1] != int(B[0, IV]) or not load_q(B, q):
        return False
    placements_state(B, body)
    jacobian_state(B, body, Tf, opts, T, J)
    return True
