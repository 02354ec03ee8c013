"""The packed model: one float64 table ``B`` (nb+1 rows, one per body), all the kernels read.

MuJoCo-style flat arrays (``body_parent``, ``jnt_qposadr`` ...) laid side by side as the columns
of one C-contiguous table, so that a kernel call passes a single array for the whole model (each
numba argument costs ~0.1 us to unbox) and the compiled code needs no views or reshapes (they
make numba's compilation slow). Row 0 is the world. Column groups, named by the constants below:

=============  ====  ==================================================================================
columns        size  holds (row i: body i and the joint that moves it)
=============  ====  ==================================================================================
PARENT         1     lambda(i) (-1 for the world); integers are stored exactly as floats
JTYPE          1     joint type code of :mod:`artidyn.joints` (-1 for the world)
IQ, IV         1, 1  first entry of joint i in q and in v;  row 0: nq and nv
NVJ, NQJ       1, 1  nv_i, nq_i
PR, PP         9, 3  joint placement in the parent (rotation row-major, translation), internal axes;
                     row 0: PP holds the gravity vector
RA             9     the internal axes of body i in its body frame (see below)
MASS, H, IBAR  1+3+9 inertia about the body origin, internal axes: ``[[Ibar, [h]], [[h]^T, mass]]``
ARM, DAMP,     6 x 3 armature, viscous and Coulomb friction of the joint's dofs
COUL
-------------  ----  ----------------------------------------------------------------------------------
QN             7     work: the joint's q, quaternions normalised
R, P           9, 3  work: body i in its parent (R row-major, p)
V, A, F, C     6 x 4 work: velocity, acceleration, wrench (or bias force), velocity product / S qd
IA, U, DINV    36 x3 work: ABA's articulated inertia I_A, U = I_A S, D^-1 (6x6 row-major);
                     CRBA's world composite inertia (13 numbers) and world joint twists (in U)
UU             6     work: u = tau - S^T p_A
R0, P0         9, 3  work: world placement
STIFF, REST    6, 6  joint springs: stiffness and rest position of the joint's dofs (flat joints)
PITCH          1     helical joints: the pitch p (m/rad), S = [e_z; p e_z] in internal axes; else 0
=============  ====  ==================================================================================

The single-state kernels use the work columns of the cached table; a batch gives every chunk of
states its own copy of the table.

Internal frames. Every revolute, prismatic, cylindrical and helical joint axis ``a_i`` becomes the local z axis: the
internal frame of body i is its body frame turned by ``Ra_i`` (``Ra_i e_z = a_i``, same origin),
so that ``Rot(a, q) = Ra Rz(q) Ra^T`` and ``S = [e_z; 0]``, ``[0; e_z]`` or both: the kernels need no
axis and a joint rotation costs four products. Placements and inertias are re-expressed once
here (``PR'_i = Ra_p^T PR_i Ra_i``, ``Pp'_i = Ra_p^T Pp_i``, ``Ibar' = Ra^T Ibar Ra``,
``h' = Ra^T h``). Joint-space results (tau, qdd, M) do not depend on the body axes; placements,
frames and external wrenches are turned back and forth with ``Ra``. Spherical and free joints
keep ``Ra = 1``.
"""
import numpy as np

from ..joints import FLAT, FREE, SPHERICAL, pitch_of

# --- column layout of the table ------------------------------------------------------------
# numpy integers, not Python ints: numba types a Python int constant passed to a compiled helper
# as a literal and would compile one copy of the helper per column.
PARENT, JTYPE, IQ, IV, NVJ, NQJ = np.arange(6)
PR, PP, RA = np.int64(6), np.int64(15), np.int64(18)
MASS, H, IBAR = np.int64(27), np.int64(28), np.int64(31)
ARM, DAMP, COUL = np.int64(40), np.int64(46), np.int64(52)
QN, R, P = np.int64(58), np.int64(65), np.int64(74)
V, A, F, C = np.int64(77), np.int64(83), np.int64(89), np.int64(95)
IA, U, DINV, UU = np.int64(101), np.int64(137), np.int64(173), np.int64(209)
R0, P0 = np.int64(215), np.int64(224)
STIFF, REST = np.int64(227), np.int64(233)
PITCH = np.int64(239)
WIDTH = 240
GRAVITY = PP  # row 0


def axis_frame(a):
    """A rotation ``Ra`` whose third column is the unit vector ``a`` (``Ra e_z = a``).

    Rodrigues' rotation taking e_z to a, ``1 + [k] + [k]^2 / (1 + a_z)`` with ``k = e_z x a``
    (exact for the coordinate axes); for a_z < 0 the same for -a, then a half turn about x.
    """
    a = np.asarray(a, dtype=float)
    flip = a[2] < 0
    b = -a if flip else a
    K = np.array([[0.0, 0.0, b[0]], [0.0, 0.0, b[1]], [-b[0], -b[1], 0.0]])  # [e_z x b]
    Ra = np.eye(3) + K + K @ K / (1.0 + b[2])
    return Ra @ np.diag([1.0, -1.0, -1.0]) if flip else Ra


def pack(model):
    """Build the table of ``model``: float64 (nb+1, WIDTH), C-contiguous."""
    n = model.nb + 1
    B = np.zeros((n, WIDTH))
    parent = np.asarray(model.parent, dtype=int)
    jtype = np.asarray(model.joint_type, dtype=int).copy()
    jtype[0] = -1
    B[:, PARENT], B[:, JTYPE] = parent, jtype
    B[:, IQ], B[:, IV] = model.idx_q, model.idx_v
    B[:, NVJ], B[:, NQJ] = model.nv_joint, model.nq_joint
    B[0, [PARENT, JTYPE, IQ, IV, NVJ, NQJ]] = (-1, -1, model.nq, model.nv, 0, 0)
    B[0, GRAVITY:GRAVITY + 3] = model.gravity
    B[0, RA:RA + 9] = np.eye(3).ravel()

    Ra = np.tile(np.eye(3), (n, 1, 1))
    for i in range(1, n):
        if jtype[i] in FLAT:
            Ra[i] = axis_frame(model.joint_axis[i])
        elif jtype[i] not in (SPHERICAL, FREE):
            raise ValueError(f"kernels: unknown joint type {jtype[i]} for {model.describe_joint(i)}")
    T = np.asarray(model.joint_placement, dtype=float)
    I6 = np.asarray(model.I, dtype=float)
    h = np.stack([I6[:, 2, 4], I6[:, 0, 5], I6[:, 1, 3]], -1)  # I[:3, 3:] = [h]
    for i in range(1, n):
        Rp, Ri = Ra[parent[i]], Ra[i]
        B[i, PR:PR + 9] = (Rp.T @ T[i, :3, :3] @ Ri).ravel()
        B[i, PP:PP + 3] = Rp.T @ T[i, :3, 3]
        B[i, RA:RA + 9] = Ri.ravel()
        B[i, MASS] = I6[i, 5, 5]
        B[i, H:H + 3] = Ri.T @ h[i]
        B[i, IBAR:IBAR + 9] = (Ri.T @ I6[i, :3, :3] @ Ri).ravel()
        dofs = slice(int(model.idx_v[i]), int(model.idx_v[i] + model.nv_joint[i]))
        k = int(model.nv_joint[i])
        B[i, ARM:ARM + k] = model.armature[dofs]
        B[i, DAMP:DAMP + k] = model.damping[dofs]
        B[i, COUL:COUL + k] = model.coulomb[dofs]
        B[i, STIFF:STIFF + k] = model.stiffness[dofs]
        B[i, REST:REST + k] = model.rest[dofs]
        B[i, PITCH] = pitch_of(jtype[i], model.S[i])
    return B


def packed(model):
    """The table of ``model``, built on first use and cached on ``model._cache``."""
    B = model._cache.get("kernels.B")
    if B is None:
        B = model._cache["kernels.B"] = pack(model)
    return B
