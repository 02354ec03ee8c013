"""Which coordinates share a panel: joints grouped into limbs, units, and the angles shown for
quaternion-based joints.

A plot of a 50-dof humanoid is readable when each panel holds one limb. The limbs come from the
kinematic tree (the *subtrees* of Featherstone, "Rigid Body Dynamics Algorithms", sec. 4.1.2):

- the subtree under each branch of the root is one group when it holds at most ``max_size``
  coordinates (a quadruped's four legs);
- a bigger subtree is cut at its first branching body: the chain from its root to that body is a
  group (cut into near-equal pieces of at most ``max_size``: a torso, a 7-dof arm), and the
  subtrees of the branching body are grouped again the same way, all together when they fit
  in one group (the fingers of a gripper), each on its own otherwise (a humanoid's head and arms),
  consecutive one-joint branches sharing a group (a mobile base's wheels).

A panel holds one unit: a group whose coordinates mix angles and lengths (a prismatic lift
under revolute joints, a cylindrical joint) gives two rows. Quaternion-based joints are never
shown as raw quaternion entries: a free flyer gives an orientation row (roll-pitch-yaw, or the
rotation vector, unwrapped over time) and a position row; a spherical joint an orientation row.
Roll-pitch-yaw angles (phi, theta, psi) are those of Khalil & Dombre, "Modeling, Identification
and Control of Robots", sec. 2.12: ``R = rot(z, psi) rot(y, theta) rot(x, phi)``.

Without a model (a result read from a file), :func:`rows_from_names` groups the coordinates by
the common prefixes of their names (``FL_HAA``, ``FL_HFE`` ... -> ``FL``).
"""
import re
from typing import NamedTuple

import numpy as np

ANGULAR, LINEAR, UNKNOWN = "angular", "linear", "unknown"
MAX_SIZE = 7                      # coordinates per panel: a 7-dof arm stays on one panel

UNITS = {
    "q": {ANGULAR: "rad", LINEAR: "m", UNKNOWN: "rad | m"},
    "v": {ANGULAR: "rad/s", LINEAR: "m/s", UNKNOWN: "rad/s | m/s"},
    "a": {ANGULAR: "rad/s²", LINEAR: "m/s²", UNKNOWN: "rad/s² | m/s²"},
    "tau": {ANGULAR: "N m", LINEAR: "N", UNKNOWN: "N m | N"},
}
SYMBOLS = {"q": "q", "v": "v", "a": "a", "tau": "τ"}
ANGLE_NAMES = {"rpy": ("roll", "pitch", "yaw"), "rotvec": ("rx", "ry", "rz")}

_FREE_Q = ("x", "y", "z", "qx", "qy", "qz", "qw")
_FREE_V = ("wx", "wy", "wz", "vx", "vy", "vz")


class Row(NamedTuple):
    """One row of panels: the same coordinates seen as q, v, a and tau.

    ``q_index`` / ``v_index`` pick the columns of q and v (``quat``: the index in q of a
    quaternion (x, y, z, w) shown as three angles instead); ``labels[w]`` names each line of
    quantity ``w``; ``ylabels[w]`` is the axis label with its unit; ``limits[w]`` is a
    (k, 2) array of (lower, upper) bounds per line (+-inf when none).
    """

    name: str
    kind: str
    joints: tuple
    q_index: tuple
    v_index: tuple
    quat: object
    labels: dict
    ylabels: dict
    limits: dict


# --- rotations ---------------------------------------------------------------------------------
def quaternion_angles(quat, representation="rpy", unwrap=True):
    """Three angles (rad) from quaternions (x, y, z, w) of shape (..., S, 4) -> (..., S, 3).

    ``"rpy"``: roll, pitch, yaw with ``R = rot(z, yaw) rot(y, pitch) rot(x, roll)``;
    ``"rotvec"``: the rotation vector (axis times angle). With ``unwrap`` the angles are made
    continuous along the time axis (-2): yaw keeps growing past pi, and the rotation vector
    keeps its direction when the angle passes pi.
    """
    from scipy.spatial.transform import Rotation

    if representation not in ANGLE_NAMES:
        raise ValueError(f"angles: unknown representation {representation!r}; choose 'rpy' or 'rotvec'")
    Q = np.asarray(quat, dtype=float)
    flat = Q.reshape(-1, 4)
    norm = np.linalg.norm(flat, axis=1)
    bad = ~(np.isfinite(norm) & (norm > 0))
    safe = np.where(bad[:, None], [0.0, 0.0, 0.0, 1.0], flat)
    R = Rotation.from_quat(safe)
    angles = R.as_euler("xyz") if representation == "rpy" else R.as_rotvec()
    angles[bad] = np.nan
    angles = angles.reshape(Q.shape[:-1] + (3,))
    if unwrap and angles.ndim >= 2:
        angles = np.unwrap(angles, axis=-2) if representation == "rpy" else _unwrap_rotvec(angles)
    return angles


def _unwrap_rotvec(r):
    """Rotation vectors made continuous in time: among ``u (theta + 2 pi k)`` (the same rotation)
    keep the one nearest the previous sample."""
    r = np.array(r, dtype=float)
    lead = r.reshape(-1, r.shape[-2], 3)
    for series in lead:
        for s in range(1, series.shape[0]):
            theta = np.linalg.norm(series[s])
            if not np.isfinite(theta) or theta == 0.0:
                continue
            u = series[s] / theta
            candidates = u[None, :] * (theta + 2 * np.pi * np.arange(-3, 4))[:, None]
            best = np.argmin(np.linalg.norm(candidates - series[s - 1], axis=1))
            series[s] = candidates[best]
    return lead.reshape(r.shape)


# --- groups from the kinematic tree -------------------------------------------------------------
def _is_vector_joint(model, i):
    return model.joint_kind[i] in ("free", "spherical")


def _flat_count(model, bodies):
    return sum(int(model.nv_joint[i]) for i in bodies if not _is_vector_joint(model, i))


def _chunks(items, max_size):
    """Split a chain into ceil(n / max_size) pieces of near-equal length."""
    n = len(items)
    k = max(1, -(-n // max_size))
    bounds = np.linspace(0, n, k + 1).round().astype(int)
    return [items[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _group_subtrees(model, roots, max_size):
    """Groups (lists of bodies) for the subtrees under the sibling bodies ``roots``."""
    subtrees = [model.subtree(r) for r in roots]
    if len(roots) > 1 and _flat_count(model, sum(subtrees, [])) <= max_size:
        return [sorted(sum(subtrees, []))]
    groups, singles = [], False          # singles: the last group gathers one-joint siblings
    for r, sub in zip(roots, subtrees):
        single = len(sub) == 1 and _flat_count(model, sub) == 1
        if single and singles and _flat_count(model, groups[-1]) < max_size:
            groups[-1] = groups[-1] + sub            # wheels, a lone tilt joint: one panel together
            continue
        singles = single
        if _flat_count(model, sub) <= max_size:
            groups.append(sub)
            continue
        chain = [r]
        while len(model.children[chain[-1]]) == 1:
            chain.append(model.children[chain[-1]][0])
        groups += _chunks(chain, max_size)
        if model.children[chain[-1]]:
            groups += _group_subtrees(model, list(model.children[chain[-1]]), max_size)
    return groups


def joint_groups(model, max_size=MAX_SIZE):
    """Groups of bodies (hence of joints) that share a panel, in tree order.

    A free-flyer root is left out of the groups (it gets rows of its own) and its children play
    the part of the root's branches. Groups hold at most ``max_size`` coordinates of flat
    joints (spherical joints are counted apart: they get an orientation row).
    """
    if model.nb == 0:
        return []
    roots = list(model.children[0])
    if len(roots) == 1 and model.joint_kind[roots[0]] == "free":
        roots = list(model.children[roots[0]])
    return [g for g in _group_subtrees(model, roots, max(1, int(max_size))) if g]


def group_name(names):
    """A short name for a group of joints: the common prefix of their names (``FL_HAA``,
    ``FL_KFE`` -> ``FL``; ``arm_left_1_joint`` ... -> ``arm_left``), else the names (up to 3) or
    ``first … last``."""
    names = list(names)
    if not names:
        return ""
    if len(names) == 1:
        return names[0]
    tokens = [re.split(r"[_\-.\s]+", n) for n in names]
    prefix = []
    for parts in zip(*tokens):
        if len(set(parts)) != 1:
            break
        prefix.append(parts[0])
    while prefix and (prefix[-1].lower() == "joint" or prefix[-1].isdigit() or not prefix[-1]):
        prefix.pop()
    if prefix:
        return "_".join(prefix)
    return ", ".join(names) if len(names) <= 3 else f"{names[0]} … {names[-1]}"


# --- rows --------------------------------------------------------------------------------------
def _limits(lo, hi):
    return np.column_stack([np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)]).reshape(-1, 2)


def _flat_row(name, kind, joints, q_index, v_index, labels, model=None, q_labels=None):
    ylabels = {w: f"{SYMBOLS[w]} [{UNITS[w][kind]}]" for w in UNITS}
    k = len(v_index)
    inf = np.full(k, np.inf)
    limits = {w: _limits(-inf, inf) for w in UNITS}
    if model is not None:
        qi, vi = list(q_index), list(v_index)
        limits["q"] = _limits(model.lower[qi], model.upper[qi])
        limits["v"] = _limits(-model.velocity_limit[vi], model.velocity_limit[vi])
        limits["tau"] = _limits(-model.effort_limit[vi], model.effort_limit[vi])
    labels = {w: tuple(labels) for w in UNITS}
    if q_labels is not None:
        labels["q"] = tuple(q_labels)
    return Row(name, kind, tuple(joints), tuple(q_index), tuple(v_index), None, labels, ylabels, limits)


def _orientation_row(joint, quat, v_index, angles, base=False, effort=None):
    """Angles of a quaternion (q entries ``quat .. quat+3``) next to omega (body frame)."""
    where = "base frame" if base else "body frame"
    label = "roll-pitch-yaw" if angles == "rpy" else "rotation vector"
    ylabels = {"q": f"{label} [rad]", "v": f"ω ({where}) [rad/s]", "a": f"ω̇ ({where}) [rad/s²]",
               "tau": "moment [N m]"}
    labels = {"q": ANGLE_NAMES[angles], "v": ("ωx", "ωy", "ωz"), "a": ("ω̇x", "ω̇y", "ω̇z"),
              "tau": ("τx", "τy", "τz")}
    inf = np.full(3, np.inf)
    limits = {w: _limits(-inf, inf) for w in UNITS}
    if effort is not None:
        limits["tau"] = _limits(-effort, effort)
    name = f"{joint}: orientation" if base else f"{joint} (spherical): orientation"
    return Row(name, ANGULAR, (joint,), (), tuple(v_index), int(quat), labels, ylabels, limits)


def _position_row(joint, q_index, v_index, effort=None):
    ylabels = {"q": "position (world) [m]", "v": "v (base frame) [m/s]", "a": "v̇ (base frame) [m/s²]",
               "tau": "force [N]"}
    labels = {"q": ("x", "y", "z"), "v": ("vx", "vy", "vz"), "a": ("v̇x", "v̇y", "v̇z"), "tau": ("fx", "fy", "fz")}
    inf = np.full(3, np.inf)
    limits = {w: _limits(-inf, inf) for w in UNITS}
    if effort is not None:
        limits["tau"] = _limits(-effort, effort)
    return Row(f"{joint}: position", LINEAR, (joint,), tuple(q_index), tuple(v_index), None, labels, ylabels, limits)


def _coordinate_kinds(model, i):
    """ANGULAR or LINEAR for each v entry of the flat joint i (from its motion subspace S: a
    column with an angular part moves an angle, the others a length)."""
    S = np.asarray(model.S[i], dtype=float).reshape(6, -1)
    return [ANGULAR if np.linalg.norm(S[:3, k]) > 0 else LINEAR for k in range(S.shape[1])]


def _vector_rows(model, i, angles):
    joint = model.joint_names[i]
    q0, v0 = int(model.idx_q[i]), int(model.idx_v[i])
    effort = np.asarray(model.effort_limit[v0:v0 + int(model.nv_joint[i])], dtype=float)
    if model.joint_kind[i] == "free":
        return [_orientation_row(joint, q0 + 3, range(v0, v0 + 3), angles, base=True, effort=effort[:3]),
                _position_row(joint, range(q0, q0 + 3), range(v0 + 3, v0 + 6), effort=effort[3:])]
    return [_orientation_row(joint, q0, range(v0, v0 + 3), angles, effort=effort)]


def rows_from_model(model, angles="rpy", max_size=MAX_SIZE):
    """The rows of panels of a model: free-flyer rows first, then one row per group of
    :func:`joint_groups` and unit (a spherical joint's orientation row right before the group
    that holds it). Every coordinate of the model is on exactly one row."""
    from .setup import coordinate_names

    if angles not in ANGLE_NAMES:
        raise ValueError(f"angles: unknown representation {angles!r}; choose 'rpy' or 'rotvec'")
    names_q, names_v = coordinate_names(model, "q"), coordinate_names(model, "v")
    rows = []
    for i in range(1, model.nb + 1):
        if model.joint_kind[i] == "free" and (i == 1 or model.parent[i] == 0):
            rows += _vector_rows(model, i, angles)
    free_roots = {r.joints[0] for r in rows}
    for bodies in joint_groups(model, max_size):
        by_kind = {ANGULAR: [], LINEAR: []}
        for i in bodies:
            if _is_vector_joint(model, i):
                if model.joint_names[i] not in free_roots:
                    rows += _vector_rows(model, i, angles)
                continue
            q0, v0 = int(model.idx_q[i]), int(model.idx_v[i])
            for k, kind in enumerate(_coordinate_kinds(model, i)):
                if model.nq_joint[i] == model.nv_joint[i]:
                    by_kind[kind].append((model.joint_names[i], q0 + k, v0 + k, names_v[v0 + k], names_q[q0 + k]))
        flat_joints = [model.joint_names[i] for i in bodies if not _is_vector_joint(model, i)]
        name = group_name(flat_joints)
        for kind, coords in by_kind.items():
            if not coords:
                continue
            suffix = "" if not all(by_kind.values()) else (" (angles)" if kind == ANGULAR else " (lengths)")
            rows.append(_flat_row(name + suffix, kind, [c[0] for c in coords], [c[1] for c in coords], [c[2] for c in coords],
                                  [c[3] for c in coords], model, q_labels=[c[4] for c in coords]))
        rows += _raw_rows(model, bodies, names_q, names_v, name)
    return _unique_names(rows)


def _raw_rows(model, bodies, names_q, names_v, name):
    """Joints of other kinds with nq != nv (none today): their q and v entries as they are."""
    rows = []
    for i in bodies:
        if _is_vector_joint(model, i) or model.nq_joint[i] == model.nv_joint[i]:
            continue
        q0, v0 = int(model.idx_q[i]), int(model.idx_v[i])
        qi, vi = range(q0, q0 + int(model.nq_joint[i])), range(v0, v0 + int(model.nv_joint[i]))
        row = _flat_row(f"{name}: {model.joint_names[i]}", UNKNOWN, (model.joint_names[i],), qi, vi,
                        [names_v[k] for k in vi])
        rows.append(row._replace(labels={**row.labels, "q": tuple(names_q[k] for k in qi)},
                                 limits={**row.limits, "q": _limits(model.lower[list(qi)], model.upper[list(qi)])}))
    return rows


def _unique_names(rows):
    seen = {}
    for r in rows:
        seen[r.name] = seen.get(r.name, 0) + 1
    count, out = {}, []
    for r in rows:
        if seen[r.name] > 1:
            count[r.name] = count.get(r.name, 0) + 1
            r = r._replace(name=f"{r.name} ({count[r.name]}/{seen[r.name]})")
        out.append(r)
    return out


# --- rows from coordinate names only ------------------------------------------------------------
def _split_name(name, suffixes):
    head, dot, tail = name.rpartition(".")
    return (head, tail) if dot and tail in suffixes else (name, None)


def _prefix_groups(names, max_size):
    """Consecutive names sharing a common token prefix, at most ``max_size`` each."""
    if len(names) <= max_size:
        return [list(names)] if names else []
    groups, prefix = [], []
    for n in names:
        tokens = re.split(r"[_\-.\s]+", n)[:-1]          # the last token tells the joints apart
        if groups:
            common = []
            for a, b in zip(prefix, tokens):
                if a != b:
                    break
                common.append(a)
            if common and len(common) >= (len(prefix) if len(groups[-1]) > 1 else 1):
                groups[-1].append(n)
                prefix = common
                continue
        groups.append([n])
        prefix = tokens
    return [piece for g in groups for piece in _chunks(g, max_size)]


def rows_from_names(q_names, v_names, angles="rpy", max_size=MAX_SIZE, limits=None):
    """Rows when no model is at hand: the coordinate names of
    :func:`artidyn.sim.setup.coordinate_names` tell free flyers (``.x`` ... ``.qw``),
    spherical joints (``.qx`` ... ``.qw``) and cylindrical joints (``.angle``, ``.d``) apart; the
    other coordinates are grouped by name prefix, their unit unknown (``rad | m``).

    ``q_names`` may be None (torques only). ``limits`` (nv,) are effort limits, drawn at +-limit.
    """
    v_names = list(v_names)
    q_pos = {n: k for k, n in enumerate(q_names or [])}
    joints = {}                                      # joint -> {suffix: v index}
    order = []
    for k, n in enumerate(v_names):
        head, tail = _split_name(n, _FREE_V + ("w", "v"))
        if tail is None:
            head = n
        if head not in joints:
            joints[head] = {}
            order.append(head)
        joints[head][tail] = k
    effort = None if limits is None else np.asarray(limits, dtype=float)
    rows, flat = [], []
    for j in order:
        entries = joints[j]
        vi = lambda keys: [entries[s] for s in keys]  # noqa: E731
        if set(entries) == set(_FREE_V):
            q0 = q_pos.get(f"{j}.qx")
            rows.append(_orientation_row(j, -1 if q0 is None else q0, vi(_FREE_V[:3]), angles, base=True,
                                         effort=None if effort is None else effort[vi(_FREE_V[:3])]))
            rows.append(_position_row(j, [q_pos.get(f"{j}.{s}", -1) for s in "xyz"], vi(_FREE_V[3:]),
                                      effort=None if effort is None else effort[vi(_FREE_V[3:])]))
        elif set(entries) == set(_FREE_V[:3]):
            q0 = q_pos.get(f"{j}.qx")
            rows.append(_orientation_row(j, -1 if q0 is None else q0, vi(_FREE_V[:3]), angles,
                                         effort=None if effort is None else effort[vi(_FREE_V[:3])]))
        else:
            for s, k in entries.items():
                kind = {"w": ANGULAR, "v": LINEAR}.get(s, UNKNOWN)
                flat.append((v_names[k], k, kind))
    for names in _prefix_groups([f[0] for f in flat], max_size):
        coords = [f for f in flat if f[0] in set(names)]
        name = group_name([_split_name(n, ("w", "v"))[0] for n in names])
        for kind in (UNKNOWN, ANGULAR, LINEAR):
            sub = [c for c in coords if c[2] == kind]
            if not sub:
                continue
            same = q_names is not None and len(q_names) == len(v_names)    # nq == nv: q entry k is v entry k
            qi = [q_pos.get(_q_name(c[0]), c[1] if same else -1) for c in sub]
            suffix = {ANGULAR: " (angles)", LINEAR: " (lengths)"}.get(kind, "") if len({c[2] for c in coords}) > 1 else ""
            row = _flat_row(name + suffix, kind, tuple(_split_name(c[0], ("w", "v"))[0] for c in sub), qi,
                            [c[1] for c in sub], [c[0] for c in sub], q_labels=[_q_name(c[0]) for c in sub])
            if effort is not None:
                e = effort[[c[1] for c in sub]]
                row.limits["tau"] = _limits(-e, e)
            rows.append(row)
    return _unique_names(rows)


def _q_name(v_name):
    head, tail = _split_name(v_name, ("w", "v"))
    return v_name if tail is None else f"{head}.{'angle' if tail == 'w' else 'd'}"


def row_values(row, w, q=None, v=None, a=None, tau=None, angles="rpy"):
    """The lines of quantity ``w`` on a row, (S, k), from the arrays of one run (time first)."""
    if w == "q":
        if row.quat is not None:
            if row.quat < 0:
                raise ValueError(f"row '{row.name}': the quaternion entries are not among the q names")
            return quaternion_angles(q[..., row.quat:row.quat + 4], angles)
        if any(k < 0 for k in row.q_index):
            raise ValueError(f"row '{row.name}': no q entry for {row.joints}")
        return q[..., list(row.q_index)]
    data = {"v": v, "a": a, "tau": tau}[w]
    return data[..., list(row.v_index)]


# --- rows cut by size --------------------------------------------------------------------------
def _subset(row, idx, name):
    idx = list(idx)
    return row._replace(
        name=name, joints=tuple(row.joints[j] for j in idx) if len(row.joints) == len(row.v_index) else row.joints,
        q_index=tuple(row.q_index[j] for j in idx) if row.q_index else row.q_index,
        v_index=tuple(row.v_index[j] for j in idx),
        labels={w: tuple(lab[j] for j in idx) for w, lab in row.labels.items()},
        limits={w: lim[idx] for w, lim in row.limits.items()})


def split_by_size(rows, tau, ratio=10.0, depth=2):
    """Rows whose torques differ by more than ``ratio`` (a 40 N m shoulder next to a 0.1 N m
    wrist) cut into rows of torques of similar size, so that none of them looks flat.

    ``tau`` (S, nv) of one run. Orientation and position rows of vector joints are kept whole.
    A row is cut at most ``depth`` times (into at most ``depth + 1`` rows).
    """
    out = []
    for row in rows:
        out += _split_row(row, np.max(np.abs(np.asarray(tau)[:, list(row.v_index)]), axis=0, initial=0.0),
                          ratio, depth)
    return _unique_names(out)


def _split_row(row, peak, ratio, depth):
    top = float(np.max(peak, initial=0.0))
    small = [j for j in range(len(peak)) if 0.0 < peak[j] * ratio < top]      # zero lines stay: not small
    if row.quat is not None or depth == 0 or not small:
        return [row]
    big = [j for j in range(len(peak)) if j not in small]
    unit = UNITS["tau"][row.kind]
    base = row.name.split(" (|τ|", 1)[0]

    def name(idx, size):
        labels = [row.labels["tau"][j] for j in idx]
        what = ", ".join(labels) if len(labels) <= 3 else (base if "…" not in base else group_name(labels))
        return f"{what} (|τ| up to {size:.2g} {unit})"

    first = _subset(row, big, name(big, top))
    rest = _subset(row, small, name(small, float(np.max(peak[small]))))
    return [first] + _split_row(rest, peak[small], ratio, depth - 1)
