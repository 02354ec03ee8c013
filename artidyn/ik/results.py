"""Result objects of the inverse geometric model: :class:`IKResult` and :class:`IKSolutions`.

``success`` is computed on the exact q returned (after wrapping continuous joints), and
requires the joint limits to hold: a solution that only exists past a limit is reported as
``"joint_limits"``, never as converged.
"""
from dataclasses import dataclass, field

import numpy as np

STATUSES = ("converged", "unreachable", "singular", "joint_limits", "max_iterations")

_EXPLAIN = {
    "converged": "converged: the frame reaches the target within the tolerance",
    "unreachable": "unreachable: the iteration stopped at a stationary point of the error with a "
                   "full-rank Jacobian and a non-zero residual (no descent direction: the target is "
                   "outside what the chain reaches near there)",
    "singular": "singular: the iteration stopped at a posture where the Jacobian loses rank with a "
                "non-zero residual (the target may be on or beyond the workspace boundary)",
    "joint_limits": "joint_limits: the error decreases only past a joint limit",
    "max_iterations": "max_iterations: no attempt converged within the iteration budget",
}


@dataclass
class IKResult:
    """Outcome of :func:`artidyn.ik` for one target (scalars) or a batch (leading axis N).

    Attributes
    ----------
    q : (nq,) or (N, nq) configuration (the best attempt when not converged; never uninitialised)
    success : bool or (N,) bool, ``status == "converged"``
    status : str or (N,) str, one of ``STATUSES``
    position_error : float or (N,) [m], |p* - p(q)| (0 when the target has no position)
    orientation_error : float or (N,) [rad], angle of R(q)^T R* (0 when it has no orientation)
    iterations : int or (N,), over all attempts
    attempts : int or (N,), starts used (0 when decided without iterating)
    frame, kind : the target frame and kind ("pose", "position", "orientation")
    """

    q: np.ndarray
    success: object
    status: object
    position_error: object
    orientation_error: object
    iterations: object
    attempts: object
    frame: str = ""
    kind: str = "pose"
    notes: object = field(default=None, repr=False)

    @property
    def residual(self):
        """(position error, orientation error), shape (2,) or (N, 2)."""
        return np.stack([np.asarray(self.position_error, float), np.asarray(self.orientation_error, float)], -1)

    @property
    def message(self):
        """Human-readable explanation of the status (a list for a batch)."""
        if np.ndim(self.status) == 0:
            return self._message(self.status, self.position_error, self.orientation_error,
                                 self.iterations, self.attempts, self.notes)
        notes = self.notes if self.notes is not None else [None] * len(self.status)
        return [self._message(*a) for a in zip(self.status, self.position_error, self.orientation_error,
                                               self.iterations, self.attempts, notes)]

    @staticmethod
    def _message(status, perr, rerr, its, att, note):
        if str(status) == "unreachable" and att == 0:  # decided by the reach bound, no iteration
            return f"unreachable: decided without iterating: {note}"
        text = (f"{_EXPLAIN[str(status)]}; residual {perr:.3g} m, {rerr:.3g} rad after {its} iterations, "
                f"{att} attempt(s)")
        return text + (f"; {note}" if note else "")

    def __bool__(self):
        if np.ndim(self.success):
            raise ValueError("the truth value of a batch IKResult is ambiguous; use result.success.all()")
        return bool(self.success)

    def __repr__(self):
        if np.ndim(self.status) == 0:
            return (f"IKResult(status='{self.status}', frame='{self.frame}', position_error={self.position_error:.3g}, "
                    f"orientation_error={self.orientation_error:.3g}, iterations={self.iterations}, "
                    f"attempts={self.attempts}, q={np.array2string(self.q, precision=5)})")
        counts = {s: int(np.sum(self.status == s)) for s in STATUSES if np.any(self.status == s)}
        return f"IKResult(batch of {len(self.status)}, frame='{self.frame}', {counts})"


@dataclass
class IKSolutions:
    """Several distinct solutions for one target (:func:`ik_all`, :func:`ik_analytic`).

    Attributes
    ----------
    q : (k, nq) solutions (k may be 0)
    position_error, orientation_error : (k,)
    within_limits : (k,) bool (angles wrapped by 2 pi into the limits where possible)
    branch : list of k labels (analytic: shoulder / elbow / wrist choices)
    status : "converged" when k > 0 (for ik_analytic: at least one solution), else why not
    family : analytic family ("spherical_wrist", "parallel_axes") or "numeric"
    message : str
    """

    q: np.ndarray
    position_error: np.ndarray
    orientation_error: np.ndarray
    within_limits: np.ndarray
    branch: list
    status: str
    family: str
    frame: str = ""
    message: str = ""

    def __len__(self):
        return self.q.shape[0]

    def __iter__(self):
        return iter(self.q)

    def __getitem__(self, k):
        return self.q[k]

    @property
    def residual(self):
        return np.stack([self.position_error, self.orientation_error], -1)

    def __repr__(self):
        return (f"IKSolutions({len(self)} solution(s), family='{self.family}', status='{self.status}', "
                f"frame='{self.frame}', within_limits={int(np.sum(self.within_limits))}/{len(self)})")
