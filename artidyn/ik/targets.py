"""Targets of the inverse geometric model: a 4x4 pose, a position, or an orientation.

Every target becomes a batch ``Tt`` (N, 4, 4) plus a kernel ``mode`` and row weights ``w``
(6,) on the error ``[rotation; position]``: see :mod:`artidyn.ik._kernels`.
"""
import numpy as np

from ..errors import InputError, ShapeError, as_real, check_choice
from ._kernels import pose_defects

KINDS = ("pose", "position", "orientation")
ROT_TOL = 1e-6


def _check(Tt, kind, single):
    """Refuse non-finite targets and rotation parts that are not rotations (one compiled pass)."""
    orth, det, row, bad = pose_defects(Tt)
    if bad:
        raise InputError(f"{kind} target contains NaN or infinite values")
    if kind == "pose" and row > 1e-12:
        raise InputError("pose target: the last row of a 4x4 transform must be (0, 0, 0, 1)")
    if orth > ROT_TOL or det > ROT_TOL:
        k = ""
        if not single:  # error path: name the first bad target
            R = Tt[:, :3, :3]
            err = np.abs(np.swapaxes(R, 1, 2) @ R - np.eye(3)).max(axis=(1, 2))
            err = np.maximum(err, np.abs(np.linalg.det(R) - 1))
            k = f" (first in target {int(np.argmax(err > ROT_TOL))})"
        raise InputError(f"{kind} target: the rotation part is not a rotation matrix "
                         f"(|R^T R - I| up to {orth:.3g}, |det R - 1| up to {det:.3g}){k}")


def parse_target(target, kind=None, weights=None):
    """Return (Tt (N, 4, 4), single, kind, mode, w (6,)).

    ``kind`` None infers it from the shape: (..., 4, 4) pose, (3,) or (N, 3) position,
    (N, 3, 3) orientation; a lone (3, 3) array is ambiguous (three positions or one rotation)
    and needs ``kind``. ``weights``: (w_rotation, w_position) or 6 row weights.
    """
    T = as_real(target, "target", "a pose (4, 4), a position (3,) or an orientation (3, 3) of real numbers, or a "
                "batch of them")
    if kind is None:
        if T.ndim in (2, 3) and T.shape[-2:] == (4, 4):
            kind = "pose"
        elif T.shape == (3, 3):
            raise InputError("a (3, 3) target is ambiguous: pass kind='orientation' for a rotation matrix "
                             "or kind='position' for three positions")
        elif T.ndim == 3 and T.shape[-2:] == (3, 3):
            kind = "orientation"
        elif T.ndim in (1, 2) and T.shape[-1] == 3:
            kind = "position"
        else:
            raise ShapeError(f"target of shape {T.shape}: expected a pose (4, 4), a position (3,), an "
                             f"orientation (3, 3) with kind='orientation', or a batch of them")
    check_choice(kind, KINDS, "kind")
    need = {"pose": (4, 4), "position": (3,), "orientation": (3, 3)}[kind]
    nd = len(need)
    if T.shape[-nd:] != need or T.ndim not in (nd, nd + 1):
        raise ShapeError(f"{kind} target must have shape {need} or (N, {', '.join(map(str, need))}), got {T.shape}")
    single = T.ndim == nd
    T = T[None] if single else T
    N = T.shape[0]
    if kind == "pose":
        Tt = np.ascontiguousarray(T)
    else:
        Tt = np.zeros((N, 4, 4))
        Tt[:, 3, 3] = 1.0
        if kind == "position":
            Tt[:, 0, 0] = Tt[:, 1, 1] = Tt[:, 2, 2] = 1.0
            Tt[:, :3, 3] = T
        else:
            Tt[:, :3, :3] = T
    _check(Tt, kind, single)
    w = _weights(weights, kind)
    # log6 couples position and rotation: a pose with a zero-weighted row uses the split error
    mode = 0 if kind == "pose" and (weights is None or w.min() > 0) else 1
    return Tt, single, kind, mode, w


_DEFAULT_W = {"pose": np.ones(6), "position": np.repeat([0.0, 1.0], 3), "orientation": np.repeat([1.0, 0.0], 3)}


def _weights(weights, kind):
    """Row weights (6,) [rotation; position]; rows a kind does not target are zero."""
    if weights is None:
        return _DEFAULT_W[kind]
    wa = as_real(weights, "weights", "(w_rotation, w_position) or 6 row weights [rotation; position]").ravel()
    if wa.size not in (2, 6):
        raise ShapeError(f"weights must be (w_rotation, w_position) or 6 row weights "
                         f"[rotation; position], got {wa.size} values")
    w = np.repeat(wa, 3) if wa.size == 2 else wa.copy()
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise InputError(f"weights must be finite and >= 0, got {w.tolist()}")
    w *= _DEFAULT_W[kind]
    if not np.any(w > 0):
        raise InputError(f"the weights {wa.tolist()} leave nothing to solve for a {kind} target")
    return w
