"""Closed-form signed distances between primitive shapes (Ericson, "Real-Time Collision
Detection", Morgan Kaufmann 2005, chapter 5 "Basic primitive tests").

Every function takes ``(a, T_a, b, T_b)``: two shapes and their 4x4 world placements, and returns
``(d, n, p_a, p_b)``: the signed distance ``d`` (negative: penetration depth), the unit normal
``n`` in world axes pointing from b to a, and the witness points ``p_a`` on a and ``p_b`` on b
(world), with ``p_a - p_b = d n``. In penetration ``p_a`` is the point of a deepest inside b.

* sphere-sphere: the centre line (Ericson 4.3.1);
* sphere-capsule, capsule-capsule: closest points of a point and a segment, of two segments
  (Ericson 5.1.2 and 5.1.9), then two spheres;
* sphere-box: closest point of an oriented box (Ericson 5.1.4); a centre inside the box leaves
  through the nearest face;
* X-halfspace: the support point of X in the direction -n (Ericson 5.2.2 and 5.2.3 for the
  sphere and the box): the deepest point; for a mesh, the deepest vertex of its convex hull.

The ``*_points`` functions give several contacts for a flat face resting on a half-space (Ericson
5.2.3's corners): all box corners, hull vertices, capsule end spheres or cylinder rim points
within a margin, so that a box resting on the ground gets 4 contacts.
"""
import numpy as np

TINY = 1e-12           # below this, directions are undefined and a fixed choice is made
TIE = 1e-12            # relative depth tolerance for points "at the same depth" (a resting face)
RIM_POINTS = 8         # points per cap rim for a cylinder on a half-space
MESH_CONTACTS = 4      # at most this many hull vertices per mesh on a half-space
Z = np.array([0.0, 0.0, 1.0])


def _balls(c_a, r_a, c_b, r_b):
    """Two balls (also the inflated closest points of segments): d = |c_a - c_b| - r_a - r_b."""
    w = c_a - c_b
    dist = float(np.linalg.norm(w))
    n = w / dist if dist > TINY else Z.copy()
    return dist - r_a - r_b, n, c_a - r_a * n, c_b + r_b * n


def _plane(h, T):
    """World normal n and offset o of the half-space ``h`` placed at T: the solid n.x <= o."""
    n = T[:3, :3] @ np.asarray(h.normal)
    return n, h.offset + float(n @ T[:3, 3])


def _segment(c, T):
    """End points (2, 3) of a capsule's or cylinder's axis segment."""
    u = 0.5 * c.length * T[:3, 2]
    return np.array([T[:3, 3] - u, T[:3, 3] + u])


def closest_point_segment(x, p, q):
    """Closest point to x on the segment [p, q] (Ericson 5.1.2)."""
    d = q - p
    dd = float(d @ d)
    t = 0.0 if dd <= TINY * TINY else min(1.0, max(0.0, float((x - p) @ d) / dd))
    return p + t * d


def closest_points_segments(p1, q1, p2, q2):
    """Closest points of the segments [p1, q1] and [p2, q2] (Ericson 5.1.9, ClosestPtSegmentSegment)."""
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, f = float(d1 @ d1), float(d2 @ d2), float(d2 @ r)
    eps = TINY * TINY
    clamp = lambda x: min(1.0, max(0.0, x))  # noqa: E731
    if a <= eps and e <= eps:
        return p1.copy(), p2.copy()
    if a <= eps:
        return p1.copy(), p2 + clamp(f / e) * d2
    c = float(d1 @ r)
    if e <= eps:
        return p1 + clamp(-c / a) * d1, p2.copy()
    b = float(d1 @ d2)
    denom = a * e - b * b
    s = clamp((b * f - c * e) / denom) if denom > eps * a * e else 0.0  # parallel: any s
    t = (b * s + f) / e
    if t < 0.0:
        t, s = 0.0, clamp(-c / a)
    elif t > 1.0:
        t, s = 1.0, clamp((b - c) / a)
    return p1 + s * d1, p2 + t * d2


# --- pairs without a half-space ------------------------------------------------------------------
def sphere_sphere(a, T_a, b, T_b):
    return _balls(T_a[:3, 3], a.radius, T_b[:3, 3], b.radius)


def sphere_capsule(a, T_a, b, T_b):
    p, q = _segment(b, T_b)
    c = T_a[:3, 3]
    return _balls(c, a.radius, closest_point_segment(c, p, q), b.radius)


def capsule_capsule(a, T_a, b, T_b):
    p_a, q_a = _segment(a, T_a)
    p_b, q_b = _segment(b, T_b)
    x_a, x_b = closest_points_segments(p_a, q_a, p_b, q_b)
    return _balls(x_a, a.radius, x_b, b.radius)


def sphere_box(a, T_a, b, T_b):
    """Ericson 5.1.4 (ClosestPtPointOBB) in the box frame; inside: out through the nearest face."""
    R, t = T_b[:3, :3], T_b[:3, 3]
    c = T_a[:3, 3]
    h = b.half
    x = R.T @ (c - t)                      # sphere centre in the box frame
    if np.any(np.abs(x) > h):              # outside: clamp onto the box
        q = np.clip(x, -h, h)
        w = R @ (x - q)
        dist = float(np.linalg.norm(w))
        n = w / dist
        return dist - a.radius, n, c - a.radius * n, t + R @ q
    gap = h - np.abs(x)                    # inside (or on the surface): the nearest face
    k = int(np.argmin(gap))
    sign = 1.0 if x[k] >= 0 else -1.0
    q = x.copy()
    q[k] = sign * h[k]
    n = sign * R[:, k]
    return -float(gap[k]) - a.radius, n, c - a.radius * n, t + R @ q


# --- a shape on a half-space (b is the half-space) -----------------------------------------------
def _deepest(points, s, n, radius=0.0):
    """Witness of the deepest of ``points`` (depths ``s`` above the plane); a tie is averaged."""
    s_min = float(s.min())
    tie = s <= s_min + TIE * max(1.0, float(np.abs(s).max()))
    x = points[tie].mean(axis=0)
    return s_min - radius, n, x - radius * n, x - (s_min * n)


def sphere_halfspace(a, T_a, b, T_b):
    n, o = _plane(b, T_b)
    c = T_a[:3, 3]
    s = float(n @ c) - o
    return s - a.radius, n, c - a.radius * n, c - s * n


def capsule_halfspace(a, T_a, b, T_b):
    n, o = _plane(b, T_b)
    E = _segment(a, T_a)
    return _deepest(E, E @ n - o, n, a.radius)


def box_corners(a, T_a):
    """The 8 corners (8, 3) of a box placed at T_a."""
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    return T_a[:3, 3] + (signs * a.half) @ T_a[:3, :3].T


def box_halfspace(a, T_a, b, T_b):
    n, o = _plane(b, T_b)
    C = box_corners(a, T_a)
    return _deepest(C, C @ n - o, n)


def mesh_halfspace(a, T_a, b, T_b):
    n, o = _plane(b, T_b)
    V = a.vertices @ T_a[:3, :3].T + T_a[:3, 3]
    return _deepest(V, V @ n - o, n)


def cylinder_halfspace(a, T_a, b, T_b):
    """The support point in -n: the deeper cap's rim point furthest along -n (its centre if flat)."""
    n, o = _plane(b, T_b)
    u, c = T_a[:3, 2], T_a[:3, 3]
    nu = float(n @ u)
    w = n - nu * u                           # n's component across the axis
    wn = float(np.linalg.norm(w))
    axial = 0.0 if abs(nu) <= TIE else -np.sign(nu) * 0.5 * a.length
    x = c + axial * u - (a.radius * w / wn if wn > TIE else 0.0)
    s = float(n @ x) - o
    return s, n, x, x - s * n


# --- several contacts of a flat face on a half-space ---------------------------------------------
def _within(points, s, n, margin, radius=0.0):
    keep = s - radius <= margin
    return [(float(si - radius), n, x - radius * n, x - si * n) for x, si in zip(points[keep], s[keep])]


def _spread(points, s, k):
    """Indices of at most k of ``points``: the deepest, then each the furthest from those chosen."""
    chosen = [int(np.argmin(s))]
    gap = np.linalg.norm(points - points[chosen[0]], axis=1)
    while len(chosen) < min(k, len(points)):
        j = int(np.argmax(gap))
        if gap[j] <= TINY:
            break
        chosen.append(j)
        gap = np.minimum(gap, np.linalg.norm(points - points[j], axis=1))
    return np.array(chosen)


def capsule_halfspace_points(a, T_a, b, T_b, margin):
    n, o = _plane(b, T_b)
    E = _segment(a, T_a)
    return _within(E, E @ n - o, n, margin, a.radius)


def box_halfspace_points(a, T_a, b, T_b, margin):
    n, o = _plane(b, T_b)
    C = box_corners(a, T_a)
    return _within(C, C @ n - o, n, margin)


def mesh_halfspace_points(a, T_a, b, T_b, margin):
    n, o = _plane(b, T_b)
    V = a.vertices @ T_a[:3, :3].T + T_a[:3, 3]
    s = V @ n - o
    near = s <= margin
    V, s = V[near], s[near]
    if len(V) > MESH_CONTACTS:
        pick = _spread(V, s, MESH_CONTACTS)
        V, s = V[pick], s[pick]
    return _within(V, s, n, margin)


def cylinder_halfspace_points(a, T_a, b, T_b, margin):
    """RIM_POINTS points on each cap rim, the first at the deepest direction; those within margin."""
    n, o = _plane(b, T_b)
    u, c = T_a[:3, 2], T_a[:3, 3]
    w = n - float(n @ u) * u
    wn = float(np.linalg.norm(w))
    if wn > TIE:
        e1 = -w / wn
    else:                                  # standing on a cap: any direction across the axis
        k = int(np.argmin(np.abs(u)))
        e1 = np.cross(u, np.eye(3)[k])
        e1 /= np.linalg.norm(e1)
    e2 = np.cross(u, e1)
    th = 2 * np.pi * np.arange(RIM_POINTS) / RIM_POINTS
    ring = a.radius * (np.outer(np.cos(th), e1) + np.outer(np.sin(th), e2))
    P = np.concatenate([c - 0.5 * a.length * u + ring, c + 0.5 * a.length * u + ring])
    return _within(P, P @ n - o, n, margin)
