"""Compiled views on the packed buffer (:mod:`.pack`): named tables, no copies.

``model_views(buf)`` gives the model tables, ``work_views(ws, nb, nq, nv)`` one state's scratch;
both are reshaped slices of the flat buffer. Also the input checks every kernel starts with.
"""
from collections import namedtuple

import numba as nb
import numpy as np

from .pack import HEADER

ModelViews = namedtuple("ModelViews", "nb nq nv parent jtype idx_q idx_v nv_joint PR Pp Ra mass h Ibar "
                        "armature damping coulomb gravity")
WorkViews = namedtuple("WorkViews", "qn R p v a f c IA U Dinv u R0 p0 cm ch cI tmp blk")

QUAT_TOL = 1e-6  # as artidyn.spatial.rotations.QUAT_TOL: |q| - 1 allowed before refusing


@nb.njit(cache=True)
def model_views(buf):
    """The model tables of a packed buffer (see :mod:`artidyn.kernels.pack`)."""
    head = buf[:HEADER].view(np.int64)
    nbod, nq, nv = head[0], head[1], head[2]
    n = nbod + 1
    ints = buf[HEADER: HEADER + 5 * n].view(np.int64)
    o = HEADER + 5 * n
    PR = buf[o: o + 9 * n].reshape((n, 3, 3))
    o += 9 * n
    Pp = buf[o: o + 3 * n].reshape((n, 3))
    o += 3 * n
    Ra = buf[o: o + 9 * n].reshape((n, 3, 3))
    o += 9 * n
    mass = buf[o: o + n]
    o += n
    h = buf[o: o + 3 * n].reshape((n, 3))
    o += 3 * n
    Ibar = buf[o: o + 9 * n].reshape((n, 3, 3))
    o += 9 * n
    armature = buf[o: o + nv]
    damping = buf[o + nv: o + 2 * nv]
    coulomb = buf[o + 2 * nv: o + 3 * nv]
    gravity = buf[o + 3 * nv: o + 3 * nv + 3]
    return ModelViews(nbod, nq, nv, ints[:n], ints[n: 2 * n], ints[2 * n: 3 * n], ints[3 * n: 4 * n],
                      ints[4 * n: 5 * n], PR, Pp, Ra, mass, h, Ibar, armature, damping, coulomb, gravity)


@nb.njit(cache=True)
def work_views(ws, nbod, nq, nv):
    """One state's scratch carved out of ``ws`` (length :func:`artidyn.kernels.pack.work_size`).

    qn (nq): q with normalised quaternions; R, p (n,3,3), (n,3): body i in its parent (internal
    frames); v, a, f, c (n,6): velocity, acceleration, wrench / bias force, velocity-product
    acceleration; IA, U, Dinv (n,6,6): articulated (or composite) inertia, I_A S, D^-1; u (n,6);
    R0, p0: world placements; cm, ch, cI (n,), (n,3), (n,3,3): composite rigid-body inertias
    (mass, h, Ibar); tmp (nv, 6): a few wrenches; blk (3,3,3): 3x3 blocks.
    """
    n = nbod + 1
    qn = ws[:nq]
    o = nq
    R = ws[o: o + 9 * n].reshape((n, 3, 3))
    o += 9 * n
    p = ws[o: o + 3 * n].reshape((n, 3))
    o += 3 * n
    v = ws[o: o + 6 * n].reshape((n, 6))
    o += 6 * n
    a = ws[o: o + 6 * n].reshape((n, 6))
    o += 6 * n
    f = ws[o: o + 6 * n].reshape((n, 6))
    o += 6 * n
    c = ws[o: o + 6 * n].reshape((n, 6))
    o += 6 * n
    IA = ws[o: o + 36 * n].reshape((n, 6, 6))
    o += 36 * n
    U = ws[o: o + 36 * n].reshape((n, 6, 6))
    o += 36 * n
    Dinv = ws[o: o + 36 * n].reshape((n, 6, 6))
    o += 36 * n
    u = ws[o: o + 6 * n].reshape((n, 6))
    o += 6 * n
    R0 = ws[o: o + 9 * n].reshape((n, 3, 3))
    o += 9 * n
    p0 = ws[o: o + 3 * n].reshape((n, 3))
    o += 3 * n
    cm = ws[o: o + n]
    o += n
    ch = ws[o: o + 3 * n].reshape((n, 3))
    o += 3 * n
    cI = ws[o: o + 9 * n].reshape((n, 3, 3))
    o += 9 * n
    tmp = ws[o: o + 6 * nv].reshape((nv, 6))
    o += 6 * nv
    blk = ws[o: o + 27].reshape((3, 3, 3))
    return WorkViews(qn, R, p, v, a, f, c, IA, U, Dinv, u, R0, p0, cm, ch, cI, tmp, blk)


@nb.njit(cache=True)
def single_work(buf):
    """The scratch kept at the end of the packed buffer, for the single-state kernels."""
    head = buf[:HEADER].view(np.int64)
    return work_views(buf[head[4]: head[3]], head[0], head[1], head[2])


@nb.njit(cache=True)
def all_finite(x):
    """True when every entry of the 1-D array ``x`` is finite (x - x is NaN for NaN and inf)."""
    for k in range(x.shape[0]):
        if x[k] - x[k] != 0.0:
            return False
    return True


@nb.njit(cache=True)
def all_finite2(x):
    """all_finite for a 2-D array."""
    for k in range(x.shape[0]):
        if not all_finite(x[k]):
            return False
    return True


@nb.njit(cache=True)
def load_q(M, q, qn):
    """Copy q into qn, normalising the quaternions (spherical, free joints) as ``as_q`` does.

    Returns False (qn unusable) for a non-finite entry or a quaternion whose norm is off by more
    than QUAT_TOL: the caller then lets the reference checks raise the error.
    """
    for k in range(M.nq):
        x = q[k]
        if x - x != 0.0:
            return False
        qn[k] = x
    for i in range(1, M.nb + 1):
        t = M.jtype[i]
        if t == 2 or t == 3:
            k = M.idx_q[i] + (3 if t == 3 else 0)
            s = np.sqrt(qn[k] ** 2 + qn[k + 1] ** 2 + qn[k + 2] ** 2 + qn[k + 3] ** 2)
            if abs(s - 1.0) > QUAT_TOL:
                return False
            for j in range(4):
                qn[k + j] /= s
    return True
