"""The rows of the contacts in the compiled step: J (3 rows a contact: the relative velocity of
its point on body a against its point on body b, along the normal and two tangents), and the
rows ``Y = D^-1/2 U^-1 J^T`` the solvers use, both written on the dofs a contact can touch only:
the chains of its two bodies (their joints and all their ancestors'), a range of the depth-first
dof order that holds every nonzero and is closed under the parent dof. A pile's row then costs
with the dofs of its two bodies, not with every dof of the scene.
"""
import math

import numba as nb

from . import _cache  # noqa: F401  (cache stamps cover every kernel file)
from .constrained import add_jacobian, y_row
from .pack import IV, NVJ, PARENT


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
    _frame_rows(B, CC, CI, c, J, r0, T4, 0, J.shape[1])


@nb.njit
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


@nb.njit
def clear_row(J, Y, r, JR, lo1, hi1, lo2, hi2):
    """Rows r of J and Y zeroed where they were last written (JR[r]), then J's on the new ranges;
    JR[r] <- the new ranges. J and Y stay zero off their row's ranges."""
    wy = r < Y.shape[0]
    for s in (0, 2):
        for k in range(JR[r, s], JR[r, s + 1]):
            J[r, k] = 0.0
            if wy:
                Y[r, k] = 0.0
    for k in range(lo1, hi1):
        J[r, k] = 0.0
    for k in range(lo2, hi2):
        J[r, k] = 0.0
    JR[r, 0], JR[r, 1], JR[r, 2], JR[r, 3] = lo1, hi1, lo2, hi2


@nb.njit
def ranged_frame_rows(B, CC, CI, c, J, Y, r0, T4, JR):
    """:func:`contact_frame_rows` on the dofs the contact can touch only (its bodies' chains:
    :func:`segments`), written in JR[r0 .. r0 + 2]."""
    lo1, hi1, lo2, hi2 = segments(B, CI[c, 0], CI[c, 1], J.shape[1])
    for r in range(r0, r0 + 3):
        clear_row(J, Y, r, JR, lo1, hi1, lo2, hi2)
    _frame_rows(B, CC, CI, c, J, r0, T4, lo1, hi1)
    _frame_rows_turn(CC, c, J, r0, lo2, hi2)


@nb.njit
def _frame_rows(B, CC, CI, c, J, r0, T4, lo, hi):
    _rows(B, CI[c, 0], CC[c, 4], CC[c, 5], CC[c, 6], 1.0, J, r0, T4)
    _rows(B, CI[c, 1], CC[c, 7], CC[c, 8], CC[c, 9], -1.0, J, r0, T4)
    _frame_rows_turn(CC, c, J, r0, lo, hi)


@nb.njit
def _frame_rows_turn(CC, c, J, r0, lo, hi):
    """Columns lo .. hi - 1 of J's rows r0 .. r0 + 2 turned from world axes to the contact's frame."""
    n0, n1, n2 = CC[c, 1], CC[c, 2], CC[c, 3]
    t0, t1, t2, s0, s1, s2 = _frame(n0, n1, n2)
    for k in range(lo, hi):
        x, y, z = J[r0, k], J[r0 + 1, k], J[r0 + 2, k]
        J[r0, k] = n0 * x + n1 * y + n2 * z
        J[r0 + 1, k] = t0 * x + t1 * y + t2 * z
        J[r0 + 2, k] = s0 * x + s1 * y + s2 * z


@nb.njit
def ranged_y_rows(U, lam, Jst, JR, dis, Y, span):
    """:func:`.constrained.y_rows` on each row's ranges JR (each closed under the parent dof): Y's
    row is written there only (zero elsewhere), span[r] its first and last nonzero column."""
    for r in range(Y.shape[0]):
        y_row(U, lam, Jst[r], JR[r, 2], JR[r, 3], dis, Y[r], span[r])
        f2, l2 = span[r, 0], span[r, 1]
        y_row(U, lam, Jst[r], JR[r, 0], JR[r, 1], dis, Y[r], span[r])
        if f2 < l2:
            if span[r, 0] < span[r, 1]:
                span[r, 0], span[r, 1] = min(span[r, 0], f2), max(span[r, 1], l2)
            else:
                span[r, 0], span[r, 1] = f2, l2


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
