"""Reachable workspace of a frame, sampled: a point cloud of frame origins over random postures
within the joint limits (one compiled pass of the chain's direct geometric model), its bounds,
and a plot. The analytic bound of :mod:`artidyn.ik.chain` (a ball) contains every point.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..configuration import random_configuration
from ..errors import check_count, check_vector
from .chain import support_chain
from .numeric import chain_placements

if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

    from numpy.typing import ArrayLike

    from .._typing import FrameLike, Model


@dataclass
class Workspace:
    """Sampled reachable workspace of ``frame``.

    points : (n, 3) frame origins in the world; lower, upper : (3,) axis-aligned bounds;
    centre : (3,) centre of the reach bound; radius : largest sampled distance from it;
    reach_bound : the analytic bound on that distance (None with a floating base or an
    unlimited prismatic joint); manipulability : (n,) of the frame's Jacobian at each sample.
    """

    frame: str
    points: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    centre: np.ndarray
    radius: float
    reach_bound: float | None
    manipulability: np.ndarray

    def __repr__(self):
        b = "none" if self.reach_bound is None else f"{self.reach_bound:.4g} m"
        return (f"Workspace(frame='{self.frame}', {len(self.points)} points, lower={np.round(self.lower, 4).tolist()}, "
                f"upper={np.round(self.upper, 4).tolist()}, sampled radius {self.radius:.4g} m, bound {b})")

    def plot(self, ax: Any = None, colour_by_manipulability: bool = True, path: str | PathLike[str] | None = None,
             **scatter: Any) -> Any:
        """3-D scatter of the points (coloured by manipulability) with the bounding box; returns the Axes.

        ``path`` saves the figure (PNG) there.
        """
        if ax is None:
            import matplotlib.pyplot as plt
            fig = plt.figure(figsize=(6, 5))
            ax = fig.add_subplot(projection="3d")
        p = self.points
        kw = dict(s=2, alpha=0.5)
        kw.update(scatter)
        if colour_by_manipulability:
            kw.setdefault("c", self.manipulability)
            kw.setdefault("cmap", "viridis")
        sc = ax.scatter(p[:, 0], p[:, 1], p[:, 2], **kw)
        lo, hi = self.lower, self.upper
        for a in (0, 1, 2):  # the 12 edges of the bounding box
            b, c = [k for k in (0, 1, 2) if k != a]
            for vb in (lo[b], hi[b]):
                for vc in (lo[c], hi[c]):
                    seg = np.zeros((2, 3))
                    seg[:, a] = lo[a], hi[a]
                    seg[:, b], seg[:, c] = vb, vc
                    ax.plot(seg[:, 0], seg[:, 1], seg[:, 2], color="0.5", lw=0.6)
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.set_zlabel("z (m)")
        ax.set_title(f"reachable workspace of '{self.frame}' ({len(p)} samples)")
        if colour_by_manipulability:
            ax.figure.colorbar(sc, ax=ax, shrink=0.6, pad=0.12, label="manipulability")
        if path is not None:
            ax.figure.savefig(path, dpi=100)
        return ax


def workspace(model: Model, frame: FrameLike, n: int = 20000, rng: int | np.random.Generator | None = None,
              q: ArrayLike | None = None) -> Workspace:
    """Sample the reachable workspace of ``frame`` with ``n`` random postures within the limits.

    ``q`` (nq,) gives the entries of the joints that do not move the frame (neutral by default).
    """
    from .singular import manipulability
    ch = support_chain(model, frame)
    Q = random_configuration(model, rng, size=check_count(n, "workspace: n", minimum=1))
    if q is not None:
        keep = np.setdiff1d(np.arange(model.nq), ch.q_index)
        Q[:, keep] = check_vector(q, model.nq, "workspace: q")[keep]
    P = chain_placements(ch, Q[:, ch.q_index])[:, :3, 3]
    centre = ch.reach[0] if ch.reach is not None else np.zeros(3)
    r = np.linalg.norm(P - centre, axis=1)
    return Workspace(frame=ch.frame, points=P, lower=P.min(axis=0), upper=P.max(axis=0), centre=centre,
                     radius=float(r.max()), reach_bound=None if ch.reach is None else ch.reach[1],
                     manipulability=manipulability(model, Q, frame))
