"""Masses and inertias of MJCF geoms and bodies, computed as MuJoCo's compiler computes them.

MuJoCo XML reference: ``compiler/inertiafromgeom`` (a body's inertia from its geoms, density 1000
unless ``density`` or ``mass`` says otherwise), ``geom/shellinertia`` (mass on the surface of a
primitive), ``asset/mesh/inertia`` (``convex``, ``exact``, ``legacy`` or ``shell``) and
``compiler/settotalmass`` (every body's mass and inertia scaled so that their sum is the given
total). MuJoCo's default for meshes is ``legacy``: the volume is a sum of pyramids from a
centre point to each triangle, each counted positive (``abs``), which overcounts the volume of a
non-convex mesh whose centre sees some triangles from behind. The formulas below reproduce that,
so that artidyn's masses are MuJoCo's, quirks included.
"""
import numpy as np

MINVAL = 1e-15          # MuJoCo's mjMINVAL: smaller triangles, volumes and masses count as zero
EPS = 1e-14             # MuJoCo's mjEPS: geoms lighter than this do not count in a body's inertia
EIG_EPS = 1e-12         # the tolerance of MuJoCo's principal-axes iteration (kEigEPS)
MESH_MODES = ("convex", "exact", "legacy", "shell")


# --- primitives ----------------------------------------------------------------------------------
def primitive_volume(gtype, s, shell=False):
    """Volume (``shell``: surface area) of a primitive geom of half sizes ``s`` (MuJoCo's sizes),
    written as MuJoCo's compiler writes it (the thin shell of an ellipsoid is a difference of two
    close numbers: the order of the operations shows in the last digits)."""
    r, h = s[0], 2 * s[1]
    if gtype == "sphere":
        return 4 * np.pi * r * r if shell else 4 * np.pi * r * r * r / 3
    if gtype == "capsule":
        return 4 * np.pi * r * r + 2 * np.pi * r * h if shell else np.pi * (r * r * h + 4 * r * r * r / 3)
    if gtype == "cylinder":
        return 2 * np.pi * r * r + 2 * np.pi * r * h if shell else np.pi * r * r * h
    if gtype == "ellipsoid":
        if not shell:
            return 4 * np.pi * s[0] * s[1] * s[2] / 3
        p = 1.6075              # Thomsen's approximation of the surface, as MuJoCo uses
        t = (s[0] * s[1]) ** p + (s[1] * s[2]) ** p + (s[2] * s[0]) ** p
        return 4 * np.pi * (t / 3) ** (1 / p)
    if gtype == "box":
        return 8 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0]) if shell else s[0] * s[1] * s[2] * 8
    return None


def primitive_inertia(gtype, s, m, shell=False):
    """Principal moments (3,) about the centre, in the geom axes, of a primitive geom of mass ``m``."""
    if shell:
        return _shell_inertia(gtype, s, m)
    a2, b2, c2 = s[0] * s[0], s[1] * s[1], s[2] * s[2]
    if gtype == "sphere":
        return np.full(3, 2 * m * a2 / 5)
    if gtype == "box":
        return np.array([m * (b2 + c2) / 3, m * (a2 + c2) / 3, m * (a2 + b2) / 3])
    if gtype == "ellipsoid":
        return np.array([m * (b2 + c2) / 5, m * (a2 + c2) / 5, m * (a2 + b2) / 5])
    r, h = s[0], 2 * s[1]
    if gtype == "cylinder":
        return np.array([m * (3 * r * r + h * h) / 12] * 2 + [m * r * r / 2])
    m_s = m * 4 * r / (4 * r + 3 * h)       # capsule: a cylinder and two hemispheres
    m_c = m - m_s
    Ixx = m_c * (3 * r * r + h * h) / 12 + 2 * m_s * r * r / 5 + m_s * h * (3 * r + 2 * h) / 8
    return np.array([Ixx, Ixx, m_c * r * r / 2 + 2 * m_s * r * r / 5])


def _shell_inertia(gtype, s, m):
    """Principal moments of a primitive whose mass lies on its surface (MuJoCo's formulas)."""
    if gtype == "sphere":
        return np.full(3, 2 / 3 * m * s[0] ** 2)
    r, hh = s[0], s[1]
    h = 2 * hh
    if gtype == "capsule":
        A_s, A_c = 4 * np.pi * r ** 2, 2 * np.pi * r * h
        m_s = m * A_s / (A_s + A_c)
        m_c = m - m_s
        pos, com = hh + r / 2, r / 2            # hemisphere: its centre of mass and its position
        Ixx = m_c * (6 * r ** 2 + h ** 2) / 12 + 2 * m_s * r ** 2 / 3 + m_s * (pos ** 2 - com ** 2)
        return np.array([Ixx, Ixx, m_c * r ** 2 + 2 * m_s * r ** 2 / 3])
    if gtype == "cylinder":
        A_d, A_c = np.pi * r ** 2, 2 * np.pi * r * h
        m_d = m * A_d / (2 * A_d + A_c)
        m_c = m - 2 * m_d
        Ixx = m_c * (6 * r ** 2 + h ** 2) / 12 + 2 * (m_d * r ** 2 / 4 + m_d * hh ** 2)
        return np.array([Ixx, Ixx, m_c * r ** 2 + m_d * r ** 2])
    if gtype == "ellipsoid":                    # a thin layer: expanded solid minus solid
        eps = 1e-6
        Va = 4 * np.pi * s[0] * s[1] * s[2] / 3
        e = np.asarray(s[:3]) + eps
        Vb = 4 * np.pi * e[0] * e[1] * e[2] / 3
        rho = m / (Vb - Va)
        return primitive_inertia("ellipsoid", e, Vb * rho) - primitive_inertia("ellipsoid", s, Va * rho)
    lx, ly, lz = 2 * np.asarray(s[:3])          # box: six plates
    A0, A1, A2 = lx * ly, ly * lz, lz * lx
    At = 2 * (A0 + A1 + A2)
    m0, m1, m2 = m * A0 / At, m * A1 / At, m * A2 / At
    sx, sy, sz = s[0] ** 2, s[1] ** 2, s[2] ** 2
    return 2 * np.array([m0 * sz + m2 * sy + (m0 * ly ** 2 + m1 * (ly ** 2 + lz ** 2) + m2 * lz ** 2) / 12,
                         m0 * sz + m1 * sx + (m0 * lx ** 2 + m1 * lz ** 2 + m2 * (lx ** 2 + lz ** 2)) / 12,
                         m1 * sx + m2 * sy + (m0 * (lx ** 2 + ly ** 2) + m1 * ly ** 2 + m2 * lx ** 2) / 12])


# --- meshes --------------------------------------------------------------------------------------
def _triangles(V, F):
    """(area (f,), unit normal (f, 3), centre (f, 3)) of the triangles F of vertices V; triangles
    smaller than MINVAL get area 0, as in MuJoCo."""
    a, b, c = V[F[:, 0]], V[F[:, 1]], V[F[:, 2]]
    n = np.cross(b - a, c - a)
    length = np.linalg.norm(n, axis=1)
    small = length < MINVAL
    area = np.where(small, 0.0, 0.5 * length)
    normal = n / np.where(small, 1.0, length)[:, None]
    return area, normal, (a + b + c) / 3


def mesh_inertia(V, F, mode):
    """(volume, com (3,), inertia per unit density (3, 3) about the com) of a triangle mesh.

    ``mode`` is MuJoCo's ``asset/mesh/inertia``: ``exact`` (signed pyramids: the exact solid of a
    closed, outward-oriented mesh), ``legacy`` (the same pyramids each counted positive),
    ``shell`` (the surface, "volume" being the area) or ``convex`` (give the hull's triangles and
    ``exact``). As in MuJoCo's compiler, the com is found with pyramids from the area-weighted
    centre of the triangles, then the inertia and the volume with pyramids from that com.
    """
    area, normal, centre = _triangles(V, F)
    if area.sum() < MINVAL:
        raise ValueError("mesh surface area is too small")
    facecen = area @ centre / area.sum()
    if mode == "shell":
        com = facecen
    else:
        vol = np.einsum("ij,ij->i", centre - facecen, normal) * area / 3
        if mode == "legacy":
            vol = np.abs(vol)
        total = vol.sum()
        if total < MINVAL:
            raise ValueError("mesh volume is negative (misoriented triangles)" if total < 0 else
                             "mesh volume is too small (try inertia='shell')")
        com = vol @ (0.75 * centre + 0.25 * facecen) / total
    Vc = V - com
    D, E, G = Vc[F[:, 0]], Vc[F[:, 1]], Vc[F[:, 2]]
    if mode == "shell":
        w = area / 12
    else:
        w = np.einsum("ij,ij->i", centre - com, normal) * area / 3
        if mode == "legacy":
            w = np.abs(w)
        w = w / 20
    S = D + E + G                   # second moments: sum over vertices and over the sum
    P = np.einsum("f,fi,fj->ij", w, D, D) + np.einsum("f,fi,fj->ij", w, E, E) \
        + np.einsum("f,fi,fj->ij", w, G, G) + np.einsum("f,fi,fj->ij", w, S, S)
    volume = w.sum() * (12 if mode == "shell" else 20)
    return volume, com, np.trace(P) * np.eye(3) - P


def orientation_error(F):
    """The first directed edge used twice (two triangles with opposite orientations), or None:
    MuJoCo's ``exact`` inertia refuses such meshes."""
    edges = np.concatenate([F[:, [0, 1]], F[:, [1, 2]], F[:, [2, 0]]])
    uniq, counts = np.unique(edges, axis=0, return_counts=True)
    twice = uniq[counts > 1]
    return None if len(twice) == 0 else tuple(int(k) for k in twice[0])


# --- principal axes, as MuJoCo finds them ------------------------------------------------------
def mujoco_principal(I):
    """The 3x3 inertia ``I`` of a mesh as MuJoCo's compiler keeps it: principal moments and axes
    found by its Jacobi iteration (``mjuu_eig3``), put back together.

    MuJoCo moves every mesh to its principal axes; the iteration stops when a rotation is below
    about 1e-6 rad (or an off-diagonal term below 1e-12), so the mesh's inertia differs from the
    exact one by up to about 1e-6 relative (the mesh's own principal moments do not: a mesh
    alone in its body is exact). artidyn takes the same axes, so that a body holding a mesh and
    other geoms has MuJoCo's inertia to rounding. (Bodies and ``fullinertia`` are decomposed
    exactly by MuJoCo 4, and artidyn keeps their tensors as they are.)
    """
    q = np.array([1.0, 0.0, 0.0, 0.0])
    for _ in range(500):
        R = _quat_matrix(q)
        D = R.T @ I @ R
        if abs(D[0, 1]) > abs(D[0, 2]) and abs(D[0, 1]) > abs(D[1, 2]):
            rk, ck, rotk = 0, 1, 2
        elif abs(D[0, 2]) > abs(D[1, 2]):
            rk, ck, rotk = 0, 2, 1
        else:
            rk, ck, rotk = 1, 2, 0
        if abs(D[rk, ck]) < EIG_EPS:
            break
        tau = (D[ck, ck] - D[rk, rk]) / (2 * D[rk, ck])        # 2x2 symmetric Schur decomposition
        t = 1.0 / (tau + np.sqrt(1 + tau * tau)) if tau >= 0 else -1.0 / (-tau + np.sqrt(1 + tau * tau))
        c = 1.0 / np.sqrt(1 + t * t)
        if c > 1.0 - EIG_EPS:
            break
        turn = np.zeros(4)
        turn[rotk + 1] = -np.sqrt(0.5 - 0.5 * c) if tau >= 0 else np.sqrt(0.5 - 0.5 * c)
        if rotk == 1:
            turn[rotk + 1] = -turn[rotk + 1]
        turn[0] = np.sqrt(1.0 - turn[rotk + 1] ** 2)
        q = _quat_product(q, turn / np.linalg.norm(turn))
        q = q / np.linalg.norm(q)
    return R @ np.diag(np.diag(D)) @ R.T


def _quat_matrix(q):
    """Rotation matrix of a unit quaternion (w, x, y, z)."""
    w, x, y, z = q
    return np.array([[w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z]])


def _quat_product(a, b):
    return np.array([a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                     a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                     a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                     a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]])


# --- bodies --------------------------------------------------------------------------------------
def combine(parts):
    """(mass, com, inertia at com) of rigid parts [(m, placement 4x4, I at the part origin in its axes)]."""
    M = sum(p[0] for p in parts)
    if M <= 0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    if len(parts) == 1:
        m, T, Ig = parts[0]
        return m, T[:3, 3].copy(), T[:3, :3] @ Ig @ T[:3, :3].T
    c = sum(m * T[:3, 3] for m, T, _ in parts) / M
    I = np.zeros((3, 3))
    for m, T, Ig in parts:
        d = T[:3, 3] - c
        I += T[:3, :3] @ Ig @ T[:3, :3].T + m * (np.dot(d, d) * np.eye(3) - np.outer(d, d))
    return M, c, I


def total_mass_scale(masses, total):
    """MuJoCo's ``settotalmass`` factor (``mj_setTotalmass``): total / sum of the body masses."""
    return max(MINVAL, total / max(MINVAL, float(sum(masses))))
