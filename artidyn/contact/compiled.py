"""The compiled contacts: packing the model's shapes for the kernels, and the stored contacts of a
compiled run (:mod:`artidyn.sim.pipeline`) read back as the reference route gives them.

:func:`unfit` says why a run cannot take the compiled route ("" when it can): the ADMM solver on
the exact cone with simultaneous impacts (the defaults of :class:`ContactSettings`) and collision
shapes among sphere, capsule, box, cylinder, convex mesh and
half-space. Everything else runs on the readable route, with the same results (the tests hold the
two routes equal) but for the pairs that the reference hands to coal's GJK/EPA (a cylinder or a
mesh with a bounded shape, a capsule and a box, two boxes edge to edge): there the compiled route
has its own GJK/EPA (:mod:`artidyn.kernels.gjk`, equal to coal's to its tolerances) and gives
several contacts for a face resting on a face (:mod:`artidyn.kernels.convex`), where the
reference gives coal's one.

A convex mesh is packed as its hull (:func:`.hull.hull_polygons`): vertices, and its triangles
merged into planar polygons (what the manifold clips).
"""
from collections.abc import Sequence

import numpy as np

from ..geometry import Box, Capsule, Cylinder, HalfSpace, Mesh, Sphere
from ..geometry.broadphase import collision_pairs
from .hull import hull_polygons
from .moreau_jean import ActiveContacts, ActiveLimits, StepResult

KINDS = {Sphere: 0, Capsule: 1, Box: 2, HalfSpace: 3, Cylinder: 4, Mesh: 5}
# the most contacts a pair may give: (kind a, kind b) unordered
_MOST = {frozenset([0, 3]): 1, frozenset([1, 3]): 2, frozenset([2, 3]): 8, frozenset([0]): 1, frozenset([0, 1]): 1,
         frozenset([1]): 1, frozenset([0, 2]): 1, frozenset([2]): 24, frozenset([1, 2]): 4,
         frozenset([4, 3]): 16, frozenset([5, 3]): 4}          # cylinder: 2 rims of 8; mesh: MESH_CONTACTS
_MOST.update({frozenset([a, b]): 4 for a in (4, 5) for b in (0, 1, 2, 4, 5)})   # a manifold: MANIFOLD


def unfit(model, settings):
    """Why the compiled route does not take this run ("" when it does)."""
    s = settings
    if s.solver not in ("admm", "pgs") or s.cone != "soc" or s.impacts != "simultaneous":
        return "solver / cone / impacts other than 'admm' or 'pgs' / 'soc' / 'simultaneous'"
    for c in getattr(model, "collisions", ()):
        if type(c.shape) not in KINDS:
            return f"collision shape '{c.name}' ({type(c.shape).__name__}: no compiled narrow phase)"
    return ""


def pack_shapes(shapes):
    """SH (ns, 15) and HULL (HV, HN, FO, FI, AO, AN) of ``shapes``: (body, shape) pairs
    (:mod:`artidyn.kernels.contact_rows`, :mod:`artidyn.kernels.gjk`); SH's columns 6 and 7,
    the shapes' own friction and restitution, are NaN (the settings' defaults); a mesh's row ends
    with its box and sphere in its own frame (the broad phase's bounds)."""
    from ..kernels.contact_rows import SE, SH_COLUMNS, SLB, SMU
    SH = np.zeros((len(shapes), SH_COLUMNS))
    SH[:, SMU] = SH[:, SE] = np.nan
    HV, HN, FO, FI = [np.zeros((0, 3))], [np.zeros((0, 4))], [0], []
    nv = nf = 0
    for i, (body, sh) in enumerate(shapes):
        SH[i, 0], SH[i, 1] = body, KINDS[type(sh)]
        if isinstance(sh, Sphere):
            SH[i, 2] = sh.radius
        elif isinstance(sh, (Capsule, Cylinder)):
            SH[i, 2:4] = sh.radius, sh.length
        elif isinstance(sh, Box):
            SH[i, 2:5] = sh.half
        elif isinstance(sh, Mesh):
            normals, offsets, polys = hull_polygons(sh)
            SH[i, 2:6] = nv, len(sh.vertices), nf, len(polys)
            V = np.asarray(sh.vertices, dtype=float)
            lo, hi = V.min(axis=0), V.max(axis=0)
            centre = 0.5 * (lo + hi)
            SH[i, SLB:SLB + 3], SH[i, SLB + 3:SLB + 6] = centre, 0.5 * (hi - lo)
            SH[i, SLB + 6] = np.sqrt(((V - centre) ** 2).sum(axis=1).max())
            HV.append(V)
            HN.append(np.column_stack([normals, offsets]))
            for p in polys:
                FI.extend(int(x) + nv for x in p)
                FO.append(len(FI))
            nv, nf = nv + len(sh.vertices), nf + len(polys)
        else:
            SH[i, 2:5], SH[i, 5] = sh.normal, sh.offset
    HULL = (np.ascontiguousarray(np.concatenate(HV)), np.ascontiguousarray(np.concatenate(HN)),
            np.array(FO, dtype=np.int64), np.array(FI, dtype=np.int64)) + _adjacency(shapes, nv)
    return SH, HULL


def _adjacency(shapes, total):
    """(AO (total + 1), AN): each hull vertex's neighbours along the hull's edges, in compressed rows
    (global vertex indices): the graph the compiled support function climbs."""
    nbrs = [set() for _ in range(total)]
    o = 0
    for _, sh in shapes:
        if isinstance(sh, Mesh):
            for a, b, c in np.asarray(sh.faces, dtype=np.int64) + o:
                nbrs[a] |= {b, c}
                nbrs[b] |= {a, c}
                nbrs[c] |= {a, b}
            o += len(sh.vertices)
    AO = np.zeros(total + 1, dtype=np.int64)
    AO[1:] = np.cumsum([len(x) for x in nbrs])
    AN = np.array([j for x in nbrs for j in sorted(x)], dtype=np.int64)
    return AO, AN


def packed_shapes(model):
    """SH (ns, 8: columns 6, 7 the shapes' own friction and restitution, NaN where a shape has
    none), PL (ns, 4, 4), HULL, PAIRS (np, 2) and the most contacts of a step; cached."""
    out = model._cache.get("contact.compiled")
    if out is not None:
        return out
    cols = model.collisions
    SH, HULL = pack_shapes([(c.body, c.shape) for c in cols])
    PL = np.zeros((len(cols), 4, 4))
    for i, c in enumerate(cols):
        PL[i] = c.placement
        SH[i, 6] = np.nan if c.friction is None else c.friction
        SH[i, 7] = np.nan if c.restitution is None else c.restitution
    pairs = np.ascontiguousarray(collision_pairs(model), dtype=np.int64).reshape(-1, 2)
    cap = sum(_MOST[frozenset([int(SH[a, 1]), int(SH[b, 1])])] for a, b in pairs)
    out = model._cache["contact.compiled"] = (SH, PL, HULL, pairs, int(cap))
    return out


def _two(shape_a, T_a, shape_b, T_b):
    SH, HULL = pack_shapes([(1, shape_a), (0, shape_b)])
    Ta, Tb = (np.ascontiguousarray(np.asarray(T, dtype=float)[:4, :4]) for T in (T_a, T_b))
    return SH, HULL, Ta, Tb


def compiled_distance(shape_a, T_a, shape_b, T_b):
    """``(d, n, p_a, p_b)`` of two bounded shapes by the compiled GJK/EPA (:mod:`artidyn.kernels.gjk`),
    as :func:`artidyn.geometry.distance` gives it."""
    from ..kernels.gjk import distance_of_pair
    SH, HULL, Ta, Tb = _two(shape_a, T_a, shape_b, T_b)
    out = np.empty(10)
    distance_of_pair(SH, 0, Ta, 1, Tb, HULL, out)
    return float(out[0]), out[1:4].copy(), out[4:7].copy(), out[7:10].copy()


def compiled_contacts(shape_a, T_a, shape_b, T_b, margin=0.0):
    """The contacts ``[(d, n, p_a, p_b), ...]`` of two shapes as the compiled route finds them
    (:func:`artidyn.kernels.contact_geometry.pair_contacts`), in the format of
    :func:`artidyn.geometry.contacts`; None for a pair handed to the reference (FALLBACK)."""
    from ..kernels.contact_geometry import FALLBACK, contacts_of_pair
    SH, HULL, Ta, Tb = _two(shape_a, T_a, shape_b, T_b)
    CC = np.empty((64, 10))
    k = contacts_of_pair(CC, SH, 0, Ta, 1, Tb, float(margin), HULL, np.zeros(5))
    if k == FALLBACK:
        return None
    return [(float(r[0]), r[1:4].copy(), r[4:7].copy(), r[7:10].copy()) for r in CC[:k]]


def pair_depths(model, W, pairs, margin):
    """The deepest contact distance of each of ``pairs`` (rows of shape indices into
    ``model.collisions``) at the world placements W of the shapes, on the compiled narrow phase
    (:func:`artidyn.kernels.contact_geometry.pair_contacts`, the shapes packed once per model), the
    readable :func:`artidyn.geometry.contacts` for a pair it hands back (FALLBACK) or a model with
    a shape it has no kind for: (len(pairs),) distances, +inf where a pair has no contact within
    ``margin``."""
    from ..geometry.collision import contacts
    from ..kernels.contact_geometry import FALLBACK, contacts_of_pair
    out = np.full(len(pairs), np.inf)
    cols = model.collisions
    compiled = all(type(c.shape) in KINDS for c in cols)
    if compiled and len(pairs):
        SH, _, HULL, _, _ = packed_shapes(model)
        CC, axis = np.empty((64, 10)), np.zeros(5)
        Wc = np.ascontiguousarray(W, dtype=float)
    margin = float(margin)
    for r, (a, b) in enumerate(pairs):
        k = contacts_of_pair(CC, SH, a, Wc[a], b, Wc[b], margin, HULL, axis) if compiled else FALLBACK
        if k == FALLBACK:
            found = [d for d, *_ in contacts(cols[a].shape, W[a], cols[b].shape, W[b], margin)]
            out[r] = min(found, default=np.inf)
        elif k > 0:
            out[r] = float(CC[:k, 0].min())
    return out


class ContactLog(Sequence):
    """The contacts of every sample of a compiled run, one :class:`ActiveContacts` per sample,
    made when asked for (a run stores them packed)."""

    def __init__(self, OFF, CI, CF):
        self._off, self._ci, self._cf = OFF, CI, CF

    def __len__(self):
        return self._off.size - 1

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        n = len(self)
        if not -n <= k < n:
            raise IndexError(f"sample {k} out of range ({n} samples)")
        k = k % n
        lo, hi = int(self._off[k]), int(self._off[k + 1])
        CI, CF = self._ci[lo:hi], self._cf[lo:hi]
        return ActiveContacts(CI[:, 0].copy(), CI[:, 1].copy(), CF[:, 0:3].copy(), CF[:, 3:6].copy(),
                              CF[:, 6:15].reshape(-1, 3, 3).copy(), CF[:, 15].copy(), CF[:, 16:19].copy(),
                              CF[:, 19:22].copy(), CF[:, 22:25].copy(), CI[:, 2].copy())


def _stored_step(OFF, CI, CF, LOFF, LI, LF, k):
    """Step k's contacts and limits as a :class:`StepResult` (what a warm start reads)."""
    C = ContactLog(OFF[:k + 2], CI, CF)[k]
    lo, hi = int(LOFF[k]), int(LOFF[k + 1])
    L = ActiveLimits(LI[lo:hi].copy(), LF[lo:hi, 0].copy(), LF[lo:hi, 1].copy(), LF[lo:hi, 2].copy())
    return StepResult(None, None, C, "", 0.0, 0, L)
