"""The rows of the contacts in the compiled step: J (3 rows a contact: the relative velocity of
its point on body a against its point on body b, along the normal and two tangents), and the
rows ``Y = D^-1/2 U^-1 J^T`` the solvers use, both written on the dofs a contact can touch only:
the chains of its two bodies (their joints and all their ancestors'), a range of the depth-first
dof order that holds every nonzero and is closed under the parent dof. A pile's row then costs
with the dofs of its two bodies, not with every dof of the scene.

The rows' products with a velocity (``J v``: the contacts' velocities before and after the step,
and ``J v_free``) are taken from the bodies' twists instead, one pass over the tree and O(1) a
contact: the velocity of a point x of body i is ``v_i + w_i x (x - p_i)``, with (w_i, v_i) its
angular velocity and the velocity of its origin p_i (Featherstone, "Rigid Body Dynamics
Algorithms", sec. 2.8), the same sum over the chain's dofs as J's columns.
"""
import math

import numba as nb

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .constrained import add_jacobian, y_row
from .pack import IV, JTYPE, NVJ, P0, PARENT, PITCH, R0
from .spatial import HELICAL, dof_axis, dof_slides


@nb.njit
def _frame(n0, n1, n2):
    """t1, t2 completing n (as :func:`artidyn.contact.jacobian.contact_frames`)."""
    a0, a1, a2 = abs(n0), abs(n1), abs(n2)
    top = min(a0, min(a1, a2)) + 1e-12      # the first axis within AXIS_TIE of the least aligned
    k = 0 if a0 <= top else (1 if a1 <= top else 2)
    e0, e1, e2 = (1.0 if k == 0 else 0.0), (1.0 if k == 1 else 0.0), (1.0 if k == 2 else 0.0)
    t0, t1, t2 = n1 * e2 - n2 * e1, n2 * e0 - n0 * e2, n0 * e1 - n1 * e0
    s = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    t0, t1, t2 = t0 / s, t1 / s, t2 / s
    return t0, t1, t2, n1 * t2 - n2 * t1, n2 * t0 - n0 * t2, n0 * t1 - n1 * t0


@nb.njit
def _rows(B, body, p0, p1, p2, sign, Jst, r0, T4):
    """Jst rows r0 .. r0 + 2 += sign * the world linear Jacobian of the point p of ``body``."""
    if body == 0:
        return
    T4[0, 3], T4[1, 3], T4[2, 3] = p0, p1, p2
    add_jacobian(B, body, T4, sign, Jst, r0, 3)


@nb.njit
def contact_frame_rows(B, CC, CI, c, J, r0, T4):
    """J rows r0 .. r0 + 2 <- the rows of contact c (CC: gap, normal, point on a, point on b; CI:
    body_a, body_b) in its frame (n, t1, t2): the relative velocity u = J v of its point on a
    against its point on b, along the normal and the two tangents."""
    for r in range(3):
        J[r0 + r, :] = 0.0
    _frame_rows(B, CC, CI, c, J, r0, T4, 0, J.shape[1], 0, 0)


@nb.njit(_nrt=False)
def chain_range(B, body, lo, hi):
    """(lo, hi) widened to the dofs of ``body`` and its ancestors (in depth-first order: from its
    root's first dof to its own last one)."""
    first = True
    while body > 0:
        k, n = int(B[body, IV]), int(B[body, NVJ])
        if n > 0:
            if first:
                hi = max(hi, k + n)
                first = False
            lo = min(lo, k)
        body = int(B[body, PARENT])
    return lo, hi


@nb.njit
def segments(B, a, b, nv):
    """The dofs contact rows between bodies a and b can touch, as two ranges (lo1, hi1, lo2, hi2):
    each body's chain (empty for the world), merged into the first when they meet (one tree)."""
    lo1, hi1 = chain_range(B, a, nv, 0)
    lo2, hi2 = chain_range(B, b, nv, 0)
    if hi1 <= lo1:
        lo1, hi1, lo2, hi2 = lo2, hi2, nv, 0
    if hi2 <= lo2:
        return lo1, max(hi1, lo1), 0, 0
    if lo2 <= hi1 and lo1 <= hi2:
        return min(lo1, lo2), max(hi1, hi2), 0, 0
    return lo1, hi1, lo2, hi2


@nb.njit(_nrt=False)
def clear_rows(J, Y, r0, n, JR, lo1, hi1, lo2, hi2):
    """Rows r0 .. r0 + n - 1 of J and Y zeroed where they were last written (JR[r]), then J's on
    the new ranges; JR[r] <- the new ranges. J and Y stay zero off their row's ranges (on the same
    ranges, Y's row is left: :func:`ranged_y_rows` writes all of it)."""
    for r in range(r0, r0 + n):
        if not (JR[r, 0] == lo1 and JR[r, 1] == hi1 and JR[r, 2] == lo2 and JR[r, 3] == hi2):
            wy = r < Y.shape[0]
            for s in (0, 2):
                for k in range(JR[r, s], JR[r, s + 1]):
                    J[r, k] = 0.0
                    if wy:
                        Y[r, k] = 0.0
            JR[r, 0], JR[r, 1], JR[r, 2], JR[r, 3] = lo1, hi1, lo2, hi2
        for k in range(lo1, hi1):
            J[r, k] = 0.0
        for k in range(lo2, hi2):
            J[r, k] = 0.0


@nb.njit(_nrt=False)
def ranged_frame_rows(B, CC, CI, c, J, Y, r0, T4, JR):
    """:func:`contact_frame_rows` on the dofs the contact can touch only (its bodies' chains:
    :func:`segments`), written in JR[r0 .. r0 + 2]."""
    lo1, hi1, lo2, hi2 = segments(B, CI[c, 0], CI[c, 1], J.shape[1])
    clear_rows(J, Y, r0, 3, JR, lo1, hi1, lo2, hi2)
    _frame_rows(B, CC, CI, c, J, r0, T4, lo1, hi1, lo2, hi2)


@nb.njit(_nrt=False)
def _frame_rows(B, CC, CI, c, J, r0, T4, lo1, hi1, lo2, hi2):
    """J's rows r0 .. r0 + 2 (zero on the columns lo1 .. hi1 - 1 and lo2 .. hi2 - 1, which hold
    every nonzero) <- contact c's rows, in its frame."""
    _rows(B, CI[c, 0], CC[c, 4], CC[c, 5], CC[c, 6], 1.0, J, r0, T4)
    _rows(B, CI[c, 1], CC[c, 7], CC[c, 8], CC[c, 9], -1.0, J, r0, T4)
    n0, n1, n2 = CC[c, 1], CC[c, 2], CC[c, 3]     # turned from world axes to the contact's frame
    t0, t1, t2, s0, s1, s2 = _frame(n0, n1, n2)
    for lo, hi in ((lo1, hi1), (lo2, hi2)):
        for k in range(lo, hi):
            x, y, z = J[r0, k], J[r0 + 1, k], J[r0 + 2, k]
            J[r0, k] = n0 * x + n1 * y + n2 * z
            J[r0 + 1, k] = t0 * x + t1 * y + t2 * z
            J[r0 + 2, k] = s0 * x + s1 * y + s2 * z


@nb.njit(_nrt=False)
def ranged_y_rows(U, lam, Jst, JR, dis, Y, span):
    """:func:`.constrained.y_rows` on each row's ranges JR (each closed under the parent dof): Y's
    row is written there only (zero elsewhere), span[r] its first and last nonzero column."""
    for r in range(Y.shape[0]):
        f2 = l2 = 0
        if JR[r, 2] < JR[r, 3]:
            y_row(U, lam, Jst[r], JR[r, 2], JR[r, 3], dis, Y[r], span[r])
            f2, l2 = span[r, 0], span[r, 1]
        y_row(U, lam, Jst[r], JR[r, 0], JR[r, 1], dis, Y[r], span[r])
        if f2 < l2:
            if span[r, 0] < span[r, 1]:
                span[r, 0], span[r, 1] = min(span[r, 0], f2), max(span[r, 1], l2)
            else:
                span[r, 0], span[r, 1] = f2, l2


@nb.njit(_nrt=False)
def twists(B, qd, TW):
    """TW[i] <- body i's twist at the dof velocities qd, in world axes: its angular velocity w_i
    and the velocity v_i of its origin p_i (B's P0), from its parent's (v_i = v_p + w_p x (p_i -
    p_p)) and its joint's dofs (the world columns of :func:`.constrained.add_jacobian`). Needs R0, P0."""
    for r in range(6):
        TW[0, r] = 0.0
    for i in range(1, B.shape[0]):
        par = int(B[i, PARENT])
        w0, w1, w2, v0, v1, v2 = TW[par, 0], TW[par, 1], TW[par, 2], TW[par, 3], TW[par, 4], TW[par, 5]
        if par > 0:
            d0, d1, d2 = B[i, P0] - B[par, P0], B[i, P0 + 1] - B[par, P0 + 1], B[i, P0 + 2] - B[par, P0 + 2]
            v0, v1, v2 = v0 + w1 * d2 - w2 * d1, v1 + w2 * d0 - w0 * d2, v2 + w0 * d1 - w1 * d0
        t, k = int(B[i, JTYPE]), int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            a, x = dof_axis(t, j), qd[k + j]
            u0, u1, u2 = B[i, R0 + a] * x, B[i, R0 + 3 + a] * x, B[i, R0 + 6 + a] * x
            if dof_slides(t, j):
                v0, v1, v2 = v0 + u0, v1 + u1, v2 + u2
            else:
                w0, w1, w2 = w0 + u0, w1 + u1, w2 + u2
                if t == HELICAL:        # the screw's slide: + p u
                    h = B[i, PITCH]
                    v0, v1, v2 = v0 + h * u0, v1 + h * u1, v2 + h * u2
        TW[i, 0], TW[i, 1], TW[i, 2], TW[i, 3], TW[i, 4], TW[i, 5] = w0, w1, w2, v0, v1, v2


@nb.njit
def _point_velocity(B, TW, body, x0, x1, x2):
    """The world velocity of the world point x carried by ``body`` (the world: zero)."""
    if body == 0:
        return 0.0, 0.0, 0.0
    d0, d1, d2 = x0 - B[body, P0], x1 - B[body, P0 + 1], x2 - B[body, P0 + 2]
    w0, w1, w2 = TW[body, 0], TW[body, 1], TW[body, 2]
    return TW[body, 3] + w1 * d2 - w2 * d1, TW[body, 4] + w2 * d0 - w0 * d2, TW[body, 5] + w0 * d1 - w1 * d0


@nb.njit(_nrt=False)
def relative_velocity(B, CC, CI, c, TW):
    """Contact c's point on body a against its point on body b, world axes."""
    a0, a1, a2 = _point_velocity(B, TW, CI[c, 0], CC[c, 4], CC[c, 5], CC[c, 6])
    b0, b1, b2 = _point_velocity(B, TW, CI[c, 1], CC[c, 7], CC[c, 8], CC[c, 9])
    return a0 - b0, a1 - b1, a2 - b2


@nb.njit(_nrt=False)
def normal_velocity(B, CC, CI, c, TW):
    """u_n of contact c (its first row of J times the velocity of the twists TW)."""
    w0, w1, w2 = relative_velocity(B, CC, CI, c, TW)
    return CC[c, 1] * w0 + CC[c, 2] * w1 + CC[c, 3] * w2


@nb.njit(_nrt=False)
def contact_velocity(B, CC, CI, c, TW):
    """(u_n, u_t1, u_t2) of contact c: its three rows of J (:func:`ranged_frame_rows`) times the
    velocity of the twists TW (:func:`twists`)."""
    w0, w1, w2 = relative_velocity(B, CC, CI, c, TW)
    n0, n1, n2 = CC[c, 1], CC[c, 2], CC[c, 3]
    t0, t1, t2, s0, s1, s2 = _frame(n0, n1, n2)
    return n0 * w0 + n1 * w1 + n2 * w2, t0 * w0 + t1 * w1 + t2 * w2, s0 * w0 + s1 * w1 + s2 * w2


@nb.njit(_nrt=False)
def rows_velocity(B, CC, CI, na, ldof, lside, nl, TW, x, u):
    """u (3 (na + nl)) <- J x for the rows of contacts 0 .. na - 1 (:func:`contact_velocity`, TW
    the twists at x) and then of nl joint limits (a limit's rows: ``side e_dof``, then two zeros)."""
    for c in range(na):
        u[3 * c], u[3 * c + 1], u[3 * c + 2] = contact_velocity(B, CC, CI, c, TW)
    for l in range(nl):
        r = 3 * (na + l)
        u[r], u[r + 1], u[r + 2] = lside[l] * x[ldof[l]], 0.0, 0.0


@nb.njit
def generalized_forces(B, CC, CI, na, lam, WR, tau):
    """tau (nv) <- J^T lam for the rows of contacts 0 .. na - 1 (impulses lam (3 na), each in its
    frame): each contact's force on its two bodies, summed per body as a wrench about its origin
    (WR (nb + 1, 6): moment, force), then passed from child to parent (the moment shifted by
    (p_i - p_p) x f), each dof taking its axis' share (u . m turning, u . f sliding; the adjoint
    of :func:`twists`, Featherstone's RNEA backward pass)."""
    for i in range(B.shape[0]):
        for r in range(6):
            WR[i, r] = 0.0
    for c in range(na):
        n0, n1, n2 = CC[c, 1], CC[c, 2], CC[c, 3]
        t0, t1, t2, s0, s1, s2 = _frame(n0, n1, n2)
        P0_, P1_, P2_ = lam[3 * c], lam[3 * c + 1], lam[3 * c + 2]
        f0, f1, f2 = n0 * P0_ + t0 * P1_ + s0 * P2_, n1 * P0_ + t1 * P1_ + s1 * P2_, n2 * P0_ + t2 * P1_ + s2 * P2_
        _wrench_add(B, WR, CI[c, 0], CC[c, 4], CC[c, 5], CC[c, 6], f0, f1, f2)
        _wrench_add(B, WR, CI[c, 1], CC[c, 7], CC[c, 8], CC[c, 9], -f0, -f1, -f2)
    for i in range(B.shape[0] - 1, 0, -1):
        m0, m1, m2, f0, f1, f2 = WR[i, 0], WR[i, 1], WR[i, 2], WR[i, 3], WR[i, 4], WR[i, 5]
        t, k = int(B[i, JTYPE]), int(B[i, IV])
        for j in range(int(B[i, NVJ])):
            a = dof_axis(t, j)
            u0, u1, u2 = B[i, R0 + a], B[i, R0 + 3 + a], B[i, R0 + 6 + a]
            if dof_slides(t, j):
                tau[k + j] = u0 * f0 + u1 * f1 + u2 * f2
            else:
                tau[k + j] = u0 * m0 + u1 * m1 + u2 * m2
                if t == HELICAL:
                    tau[k + j] += B[i, PITCH] * (u0 * f0 + u1 * f1 + u2 * f2)
        par = int(B[i, PARENT])
        if par > 0:
            d0, d1, d2 = B[i, P0] - B[par, P0], B[i, P0 + 1] - B[par, P0 + 1], B[i, P0 + 2] - B[par, P0 + 2]
            WR[par, 0] += m0 + d1 * f2 - d2 * f1
            WR[par, 1] += m1 + d2 * f0 - d0 * f2
            WR[par, 2] += m2 + d0 * f1 - d1 * f0
            WR[par, 3] += f0
            WR[par, 4] += f1
            WR[par, 5] += f2


@nb.njit
def _wrench_add(B, WR, body, x0, x1, x2, f0, f1, f2):
    """WR[body] += the force f at the world point x, as a wrench about the body's origin."""
    if body == 0:
        return
    d0, d1, d2 = x0 - B[body, P0], x1 - B[body, P0 + 1], x2 - B[body, P0 + 2]
    WR[body, 0] += d1 * f2 - d2 * f1
    WR[body, 1] += d2 * f0 - d0 * f2
    WR[body, 2] += d0 * f1 - d1 * f0
    WR[body, 3] += f0
    WR[body, 4] += f1
    WR[body, 5] += f2


@nb.njit
def ranged_dot(X, r, JR, g):
    """X[r] . g over row r's ranges (X: J or Y)."""
    s = 0.0
    for k in range(JR[r, 0], JR[r, 1]):
        s += X[r, k] * g[k]
    for k in range(JR[r, 2], JR[r, 3]):
        s += X[r, k] * g[k]
    return s


@nb.njit
def ranged_add(X, r, JR, f, g):
    """g += f X[r] over row r's ranges."""
    for k in range(JR[r, 0], JR[r, 1]):
        g[k] += X[r, k] * f
    for k in range(JR[r, 2], JR[r, 3]):
        g[k] += X[r, k] * f
