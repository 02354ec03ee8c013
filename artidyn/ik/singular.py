"""Singularities of a frame's Jacobian: manipulability, condition number, aligned axes.

The third case of the inverse geometric model in J. Reuss ("Modélisation des robots", French
Wikipedia draft, 2013), "configuration singulière": two prismatic axes becoming parallel, two
revolute axes becoming coincident ... At such a posture the 6 x n Jacobian J (world axes, rows
[angular; linear]) loses rank: some end-frame motions need infinite joint rates. Measures
(Yoshikawa): w = prod(sigma_i) = sqrt(det(J J^T)) when m <= n, and the condition number
sigma_max / sigma_min. Angular and linear rows have different units:
``length`` scales the angular rows (a characteristic length, 1 m by default).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from ..configuration import as_q, unbatch
from ..errors import check_choice, check_number
from ..joints import PRISMATIC, REVOLUTE
from ._batch import chain_fk_jac_many
from .chain import support_chain

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, FrameLike, Model

ROWS = {"all": slice(0, 6), "orientation": slice(0, 3), "position": slice(3, 6)}


def _scaled(J, part, length, where):
    """The Jacobian rows ``part`` (N, k, n), the angular ones times ``length`` (> 0, metres);
    ``where`` names the public function in the errors."""
    J = J[:, ROWS[check_choice(part, tuple(ROWS), f"{where}: part")]].copy()
    if part == "all":
        J[:, :3] *= check_number(length, f"{where}: length", positive=True)
    return J


def _chain_state(model, q, frame):
    """(chain, Q (N, nq), single, T (N, 4, 4), J (N, 6, nv_c) world axes, Rs, ps of each body)."""
    ch = support_chain(model, frame)
    Q, single = as_q(model, q)
    Qc = np.ascontiguousarray(Q[:, ch.q_index])
    T, J = np.empty((len(Qc), 4, 4)), np.empty((len(Qc), 6, ch.nv))
    chain_fk_jac_many(Qc, ch.jtype, ch.axis, ch.X, ch.iq, ch.iv, ch.tool, ch.nv, T, J)
    return ch, Q, single, T, J


def singular_values(model: Model, q: ArrayLike, frame: FrameLike, part: str = "all", length: float = 1.0,
                    where: str = "singular_values") -> Array:
    """Singular values (descending) of the frame's Jacobian rows ``part``; (k,) or (N, k).
    ``where``: the public function named in error messages."""
    ch, Q, single, T, J = _chain_state(model, q, frame)
    return unbatch(np.linalg.svd(_scaled(J, part, length, where), compute_uv=False), single)


def manipulability(model: Model, q: ArrayLike, frame: FrameLike, part: str = "all",
                   length: float = 1.0) -> float | Array:
    """Yoshikawa's manipulability w = prod of the singular values (sqrt(det(J J^T)) if m <= n)."""
    s = singular_values(model, q, frame, part, length, "manipulability")
    return np.prod(s, axis=-1)


def condition_number(model: Model, q: ArrayLike, frame: FrameLike, part: str = "all",
                     length: float = 1.0) -> float | Array:
    """sigma_max / sigma_min of the Jacobian rows ``part`` (inf at a singular posture)."""
    s = singular_values(model, q, frame, part, length, "condition_number")
    with np.errstate(divide="ignore"):
        return np.where(s[..., -1] > 0, s[..., 0] / np.where(s[..., -1] > 0, s[..., -1], 1.0), np.inf)


def is_singular(model: Model, q: ArrayLike, frame: FrameLike, part: str = "all", tol: float = 1e-6,
                length: float = 1.0) -> bool | Array:
    """True where sigma_min <= tol * sigma_max (the Jacobian rows ``part`` lose rank)."""
    tol = check_number(tol, "is_singular: tol", minimum=0.0)
    s = singular_values(model, q, frame, part, length, "is_singular")
    return s[..., -1] <= tol * s[..., 0]


@dataclass
class Singularity:
    """Diagnosis of one posture (:func:`singularity`).

    singular : bool; rank : int; sigma : singular values; lost : (k, 6) world-axes end-frame
    motions [omega; v] the joints cannot produce (left singular vectors of the small sigma);
    joints : names of the joints moving in the null motions; aligned : descriptions of the
    special axis arrangements found (coincident, parallel, concurrent, coplanar axes).
    """

    singular: bool
    rank: int
    sigma: np.ndarray
    lost: np.ndarray
    joints: list
    aligned: list = field(default_factory=list)

    def __str__(self):
        if not self.singular:
            return f"regular posture (rank {self.rank}, sigma_min {self.sigma[-1]:.3g})"
        lines = [f"singular posture: rank {self.rank}, sigma = {np.array2string(self.sigma, precision=3)}"]
        lines += [f"  {a}" for a in self.aligned] or ["  (no simple axis alignment found)"]
        if self.joints:
            lines.append(f"  joints of the null motion: {', '.join(self.joints)}")
        return "\n".join(lines)


def joint_lines(model, q, frame):
    """World lines of the chain's 1-dof joints at q: [(joint name, kind, point, direction)]."""
    ch = support_chain(model, frame)
    Q, _ = as_q(model, q)
    from ._kernels import fk_jac
    nj = ch.jtype.size
    Rs, ps = np.empty((nj + 1, 3, 3)), np.empty((nj + 1, 3))
    fk_jac(np.ascontiguousarray(Q[0, ch.q_index]), ch.jtype, ch.axis, ch.X, ch.iq, ch.iv, ch.tool,
           np.empty((4, 4)), np.empty((6, ch.nv)), Rs, ps, False)
    kinds = {REVOLUTE: "revolute", PRISMATIC: "prismatic"}
    return [(ch.joint_names[k], kinds[ch.jtype[k]], ps[k].copy(), Rs[k] @ ch.axis[k])
            for k in range(nj) if ch.jtype[k] in kinds]


def singularity(model: Model, q: ArrayLike, frame: FrameLike, part: str = "all", tol: float = 1e-6,
                length: float = 1.0, geom_tol: float = 1e-6) -> Singularity:
    """Is the posture ``q`` (one state) singular for ``frame``, and which axes align?

    The rank test is ``sigma_min <= tol * sigma_max``. The geometric checks (tolerance
    ``geom_tol`` in metres and radians) look for the arrangements that make joint twists linearly
    dependent: coincident revolute axes, parallel prismatic axes, four or more parallel revolute
    axes, three coplanar parallel ones, a point common to three axes lying on another axis or in
    the plane of two parallel ones (Puma: wrist centre on axis 1, arm stretched).
    """
    ch, Q, single, T, J = _chain_state(model, q, frame)
    if not single:
        raise ValueError("singularity takes one posture; use is_singular for a batch")
    tol = check_number(tol, "singularity: tol", minimum=0.0)
    A = _scaled(J, part, length, "singularity")[0]
    U, s, Vt = np.linalg.svd(A)
    small = s <= tol * s[0]
    m, n = A.shape
    rank = int(np.sum(~small))
    singular = rank < min(m, n)
    lost = U[:, :s.size][:, small].T if singular else np.zeros((0, A.shape[0]))
    joints = []
    if singular:
        w = np.abs(Vt[:s.size][small]).max(axis=0)  # right singular vectors of the small sigma
        joints = [ch.joint_names[k] for k in range(ch.jtype.size) if w[ch.iv[k]] > 1e-3]
    aligned = _alignments(joint_lines(model, Q[0], frame), geom_tol) if singular else []
    return Singularity(singular=singular, rank=rank, sigma=s, lost=lost, joints=joints, aligned=aligned)


def _dist_point_line(p, o, z):
    d = p - o
    return np.linalg.norm(d - z * np.dot(z, d))


def _alignments(lines, tol):
    rev = [(nm, o, z) for nm, kind, o, z in lines if kind == "revolute"]
    pri = [(nm, z) for nm, kind, o, z in lines if kind == "prismatic"]
    out = []
    par = lambda z1, z2: np.linalg.norm(np.cross(z1, z2)) < tol
    for (n1, o1, z1), (n2, o2, z2) in combinations(rev, 2):
        if par(z1, z2) and _dist_point_line(o2, o1, z1) < tol:
            out.append(f"axes of '{n1}' and '{n2}' coincide")
    for (n1, z1), (n2, z2) in combinations(pri, 2):
        if par(z1, z2):
            out.append(f"prismatic axes of '{n1}' and '{n2}' are parallel")
    # families of parallel revolute axes
    groups = []
    for nm, o, z in rev:
        for g in groups:
            if par(g[0][2], z):
                g.append((nm, o, z))
                break
        else:
            groups.append([(nm, o, z)])
    for g in groups:
        names = ", ".join(f"'{x[0]}'" for x in g)
        if len(g) >= 4:
            out.append(f"{len(g)} parallel axes ({names})")
        elif len(g) == 3 and _coplanar_parallel(g, tol):
            out.append(f"parallel axes {names} lie in one plane (arm stretched or folded)")
    # points common to three or more axes
    for trio in combinations(rev, 3):
        c, d = _meet(trio)
        if c is None or d >= tol:
            continue
        tn = ", ".join(f"'{x[0]}'" for x in trio)
        for nm, o, z in rev:
            if nm not in [x[0] for x in trio] and _dist_point_line(c, o, z) < tol:
                out.append(f"the common point of axes {tn} lies on the axis of '{nm}'")
        for g in groups:
            pair = [x for x in g if x[0] not in [t[0] for t in trio]]
            for a, b in combinations(pair, 2):
                nrm = np.cross(a[2], b[1] - a[1])
                if np.linalg.norm(nrm) > tol and abs(np.dot(unit_(nrm), c - a[1])) < tol:
                    out.append(f"parallel axes '{a[0]}', '{b[0]}' and the common point of axes {tn} are "
                               f"coplanar (arm stretched or folded)")
    return out


def unit_(v):
    return v / np.linalg.norm(v)


def _coplanar_parallel(g, tol):
    (_, o1, z), (_, o2, _), (_, o3, _) = g
    nrm = np.cross(z, o2 - o1)
    if np.linalg.norm(nrm) < tol:
        return True
    return abs(np.dot(unit_(nrm), o3 - o1)) < tol


def _meet(lines):
    """Least-squares common point of lines (name, o, z) and the largest distance to it."""
    P = [np.eye(3) - np.outer(z, z) for _, _, z in lines]
    A = sum(P)
    if np.linalg.matrix_rank(A, 1e-9) < 3:
        return None, np.inf
    c = np.linalg.solve(A, sum(Pk @ o for Pk, (_, o, _) in zip(P, lines)))
    return c, max(np.linalg.norm(Pk @ (c - o)) for Pk, (_, o, _) in zip(P, lines))
