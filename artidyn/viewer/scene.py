"""Model (+ configurations) -> scene description: what the viewer page draws.

A :class:`Scene` holds, for each body, the shapes drawn in the body frame, and for each time
sample only the body placements (position and quaternion (x, y, z, w), float32): the page moves
each body's group of shapes, nothing else is stored per frame. Layers:

* ``visual``: the URDF ``<visual>`` shapes and meshes (:mod:`.visuals`, :mod:`.meshes`);
* ``collision``: ``model.collisions`` (primitives; meshes as the convex hulls used for contact);
* ``skeleton``: a rod from each body's origin to its parent's, a ball at each joint (drawn by
  default when the model has neither visuals nor collision shapes, e.g. a DH table);
* ``frames``: axes of every body and link frame; ``com``: each body's centre of mass (ball)
  and the whole robot's (per sample);
* ``contacts``: for a contact simulation, the contact points and forces of each sample.
"""
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, ShapeError, check_count, check_number, check_vector, shown

MAX_TRIANGLES = 250_000     # all distinct visual meshes of a page together
MIN_MESH_TRIANGLES = 300    # no mesh simplified below this
MAX_FRAMES = 5000           # time samples kept (longer runs are subsampled)


@dataclass
class Scene:
    """What the page draws (see the module docstring); arrays are float32 / uint32."""

    name: str
    body_names: list
    parent: list
    items: list = field(default_factory=list)     # shapes: layer, body, kind, placement, ...
    meshes: list = field(default_factory=list)    # (vertices (n, 3) f4, triangles (m, 3) u4, parts)
    frames: list = field(default_factory=list)    # {name, body, placement}
    coms: list = field(default_factory=list)      # {body, com, mass}
    t: np.ndarray = None                          # (S,)
    poses: np.ndarray = None                      # (S, nb + 1, 7): position, quaternion (x, y, z, w)
    com_total: np.ndarray = None                  # (S, 3)
    contacts: dict = None                         # offsets (S + 1,), points (K, 3), forces (K, 3)
    anchor: tuple = (0.0, 0.0, 0.0)               # the camera's horizontal aim (body 1 at sample 0)
    notes: list = field(default_factory=list)     # what was skipped, and why

    @property
    def n_frames(self):
        return int(self.t.size)


# --- configurations ----------------------------------------------------------------------
def trajectory(model, data=None, times=None, run=0, dt=0.04, max_frames=MAX_FRAMES):
    """``(t (S,), Q (S, nq), result or None, kept sample indices)`` from ``data``: None (the
    neutral configuration), one q (nq,), a list or array of q (S, nq), or a SimulationResult
    (its ``t`` and ``q``; run ``run`` of a batch). ``times``: the sample times of a list of q
    (default: every ``dt`` seconds)."""
    from ..configuration import neutral
    result = None
    if data is None:
        Q = neutral(model)[None]
    elif hasattr(data, "q") and hasattr(data, "t"):
        result = data
        Q = np.asarray(data.q, dtype=float)
        if Q.ndim == 3:
            if not 0 <= run < Q.shape[0]:
                raise InputError(f"view: run={run} but the result holds {Q.shape[0]} runs")
            Q = Q[run]
        elif run != 0:
            raise InputError(f"view: run={run} but the result holds one run (run is for a rollout's result)")
        times = np.asarray(data.t, dtype=float)
    else:
        try:
            Q = np.asarray(data, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"view: q must be numbers (a configuration, a list of them or a "
                             f"SimulationResult), got {type(data).__name__}") from None
        if Q.ndim == 1:
            Q = Q[None]
    if Q.ndim != 2 or Q.shape[1] != model.nq or Q.shape[0] == 0:
        raise ShapeError(f"view: q has shape {np.shape(Q)}, model '{model.name}' needs (nq,) or (S, nq) with "
                         f"nq = {model.nq}")
    if not np.all(np.isfinite(Q)):
        bad = int(np.argwhere(~np.all(np.isfinite(Q), axis=1))[0, 0])
        raise InputError(f"view: q: configuration {bad} holds NaN or infinite values")
    S = Q.shape[0]
    t = np.arange(S) * positive(dt, "dt") if times is None else _times(times, S)
    keep = np.arange(S)
    if S > max_frames:
        keep = np.unique(np.r_[np.arange(0, S, int(np.ceil(S / max_frames))), S - 1])
    return t[keep], Q[keep], result, keep


def positive(x, name, integer=False):
    """``x`` as a finite number > 0 (a whole number >= 1 when ``integer``), else InputError naming
    ``name`` (the shared checks of :mod:`artidyn.errors`)."""
    if integer:
        return check_count(x, f"view: {name}", minimum=1)
    return check_number(x, f"view: {name}", positive=True)


def check_camera(camera):
    """The camera dict of :func:`artidyn.view`: ``azimuth``, ``elevation`` (degrees, finite),
    ``target`` (3 finite numbers), ``distance`` (> 0); InputError naming the key otherwise."""
    if camera is None:
        return {}
    if not isinstance(camera, dict):
        raise InputError(f"view: camera must be a dict (azimuth, elevation, target, distance), got {shown(camera)}")
    out = {}
    for key, value in camera.items():
        where = f"view: camera[{key!r}]"
        if key in ("azimuth", "elevation"):
            out[key] = check_number(value, f"{where} (degrees)")
        elif key == "distance":
            out[key] = check_number(value, f"{where} (m)", positive=True)
        elif key == "target":
            out[key] = check_vector(value, 3, f"{where} (a point in the world, m)").tolist()
        else:
            raise InputError(f"view: camera has no key {key!r}; it takes azimuth, elevation, target, distance")
    return out


def _times(times, S):
    """The sample times of S configurations: S finite, strictly increasing numbers."""
    try:
        t = np.asarray(times, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise InputError(f"view: times must be numbers, got {type(times).__name__}") from None
    if t.shape != (S,):
        raise ShapeError(f"view: {t.size} times for {S} configurations")
    if not np.all(np.isfinite(t)):
        raise InputError(f"view: time {int(np.argmax(~np.isfinite(t)))} is NaN or infinite")
    steps = np.diff(t)
    if np.any(steps <= 0):
        k = int(np.argmax(steps <= 0))
        raise InputError(f"view: the times must increase: t[{k + 1}] = {t[k + 1]:g} after t[{k}] = {t[k]:g}")
    return t


def poses(model, Q):
    """Body placements per sample, (S, nb + 1, 7): position and quaternion (x, y, z, w)."""
    from ..kinematics import body_placements
    from ..spatial.rotations import matrix_to_quat
    T = np.asarray(body_placements(model, Q)).reshape(len(Q), model.nb + 1, 4, 4)
    return np.concatenate([T[..., :3, 3], matrix_to_quat(T[..., :3, :3])], axis=-1), T


# --- shapes ------------------------------------------------------------------------------
def _flat(T):
    return np.round(np.asarray(T, dtype=float), 7).reshape(-1).tolist()


def _primitive(rec, layer, body, T, rgba):
    item = {"layer": layer, "body": int(body), "kind": rec["kind"], "placement": _flat(T),
            "rgba": None if rgba is None else [round(float(c), 4) for c in rgba]}
    for key in ("size", "radius", "length"):
        if key in rec:
            v = rec[key]
            item[key] = [float(x) for x in v] if key == "size" else float(v)
    return item


class _MeshTable:
    """Distinct meshes of a page, each stored once (keyed by file and scale)."""

    def __init__(self):
        self.keys, self.data = {}, []

    def add(self, key, V, F, parts=None):
        if key not in self.keys:
            self.keys[key] = len(self.data)
            self.data.append((V, F, parts or [(0, len(F), None)]))
        return self.keys[key]


def _budget(counts, total):
    """Largest per-mesh triangle cap c with sum(min(n, c)) <= total (water filling)."""
    n = np.sort(np.asarray(counts))
    if n.sum() <= total:
        return int(n[-1]) if len(n) else total
    for k in range(len(n)):
        c = (total - n[:k].sum()) / (len(n) - k)
        if c <= n[k]:
            return max(int(c), MIN_MESH_TRIANGLES)
    return int(n[-1])


def visual_items(model, table, notes, max_triangles=MAX_TRIANGLES):
    """The URDF visuals as items (layer 'visual'), their meshes added to ``table``."""
    from ..io.mesh_paths import resolve_mesh
    from .meshes import read_mesh, regroup, scaled, simplify
    from .visuals import model_visuals
    records, vnotes, base = model_visuals(model)
    notes += vnotes
    items, pending = [], []
    for rec in records:
        try:
            frame = model.frame(rec["link"])
        except KeyError:
            notes.append(f"visual of link '{rec['link']}': no such frame in the model, skipped")
            continue
        T = np.asarray(frame.placement) @ rec["placement"]
        if rec["kind"] != "mesh":
            items.append(_primitive(rec, "visual", frame.body, T, rec["rgba"]))
            continue
        try:
            path = resolve_mesh(rec["filename"], base)
            V, F, parts = read_mesh(path)
        except (FileNotFoundError, ValueError) as exc:
            notes.append(f"visual of link '{rec['link']}': {exc}; skipped")
            continue
        pending.append((rec, frame.body, T, (str(path), tuple(rec["scale"])), V, F, parts))
    cap = _budget([len(p[5]) for p in {p[3]: p for p in pending}.values()], max_triangles)
    simplified = {}
    for rec, body, T, key, V, F, parts in pending:
        if key not in simplified:
            W, G, kept = simplify(V, F, cap)
            W, G = scaled(W, G, key[1])
            if len(G) < len(F):
                notes.append(f"mesh '{key[0]}': {len(F)} triangles simplified to {len(G)}")
            simplified[key] = table.add(key, W.astype(np.float32), G.astype(np.uint32), regroup(parts, kept))
        item = _primitive(rec, "visual", body, T, rec["rgba"])
        item["mesh"] = simplified[key]
        items.append(item)
    return items


def collision_items(model, table, notes):
    """``model.collisions`` as items (layer 'collision'); mesh shapes as their convex hulls."""
    items = []
    for k, c in enumerate(model.collisions):
        kind = c.shape.kind
        if kind == "halfspace":
            notes.append(f"collision '{c.name}': a half-space (the ground grid stands for it), not drawn")
            continue
        rec = {"kind": kind}
        if kind == "box":
            rec["size"] = c.shape.size
        elif kind == "sphere":
            rec["radius"] = c.shape.radius
        elif kind in ("cylinder", "capsule"):
            rec["radius"], rec["length"] = c.shape.radius, c.shape.length
        item = _primitive(rec, "collision", c.body, c.placement, None)
        if kind == "mesh":
            key = ("hull", c.shape.path, c.shape.scale, len(c.shape.vertices), k if c.shape.path is None else 0)
            item["mesh"] = table.add(key, np.asarray(c.shape.vertices, np.float32), np.asarray(c.shape.faces, np.uint32))
        items.append(item)
    return items


def _contacts(result, keep):
    """Contact points and forces per kept sample (world), from a contact simulation, or None."""
    seq = getattr(result, "contacts", None) if result is not None else None
    if not seq or getattr(result, "batch", None):
        return None
    offsets, points, forces = [0], [], []
    dt = float(getattr(result, "dt", 0.0) or 0.0)
    for k in keep:
        C = seq[k] if k < len(seq) else None
        n = 0
        if C is not None and hasattr(C, "point_a") and hasattr(C, "frames") and len(C.point_a):
            pts = 0.5 * (np.asarray(C.point_a) + np.asarray(C.point_b))
            f = np.einsum("kij,kj->ki", np.asarray(C.frames), np.asarray(C.impulse)) / dt if dt > 0 else 0 * pts
            points.append(pts)
            forces.append(f)
            n = len(pts)
        offsets.append(offsets[-1] + n)
    if offsets[-1] == 0:
        return None
    return {"offsets": np.array(offsets, dtype=np.uint32), "points": np.concatenate(points).astype(np.float32),
            "forces": np.concatenate(forces).astype(np.float32)}


def build_scene(model, data=None, times=None, run=0, dt=0.04, max_frames=MAX_FRAMES, visuals=True,
                collisions=True, max_triangles=MAX_TRIANGLES):
    """The :class:`Scene` of ``model`` at the configurations ``data`` (see :func:`trajectory`).

    ``visuals`` / ``collisions``: read the URDF visuals / ``model.collisions`` (False: leave them
    out of the page). ``max_triangles``: budget of all distinct visual meshes together (larger
    meshes are simplified, each change noted in ``scene.notes``).
    """
    t, Q, result, keep = trajectory(model, data, times, run, dt, max_frames)
    P, T = poses(model, Q)
    scene = Scene(model.name, list(model.body_names), [int(p) for p in model.parent])
    table = _MeshTable()
    if visuals:
        scene.items += visual_items(model, table, scene.notes, max_triangles)
    if collisions:
        scene.items += collision_items(model, table, scene.notes)
    scene.meshes = table.data
    scene.frames = [{"name": f.name, "body": int(f.body), "placement": _flat(f.placement)}
                    for f in model.frames if f.kind in ("body", "link")]
    mass = np.asarray(model.mass, dtype=float)
    com = np.asarray(model.com, dtype=float)
    scene.coms = [{"body": i, "com": [float(x) for x in com[i]], "mass": float(mass[i])}
                  for i in range(1, model.nb + 1) if mass[i] > 0]
    M = mass[1:].sum()
    if M > 0:
        world = np.einsum("sbij,bj->sbi", T[:, 1:, :3, :3], com[1:]) + T[:, 1:, :3, 3]
        scene.com_total = (np.einsum("b,sbi->si", mass[1:], world) / M).astype(np.float32)
    scene.t = t.astype(np.float64)
    scene.poses = P.astype(np.float32)
    scene.anchor = tuple(float(x) for x in (P[0, 1, :3] if model.nb else np.zeros(3)))
    scene.contacts = _contacts(result, keep)
    return scene
