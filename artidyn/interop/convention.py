"""Does a configuration vector look like another library's convention? A warning, not an error.

The mistakes a user coming from pinocchio or MuJoCo makes silently, and the signs they leave in q:

- pinocchio's continuous joints take (cos, sin): q has ``nq + n_continuous`` entries;
- a quaternion in the wrong slot (MuJoCo's free joint [p, w, x, y, z], a hand-built vector):
  the 4 entries artidyn reads as a quaternion do not have norm 1 while another 4-block does;
- MuJoCo's identity quaternion (1, 0, 0, 0) in (w, x, y, z) order reads here, in (x, y, z, w),
  as a half turn about x;
- a vector in another library's joint order lands its values on the wrong joints, which often
  puts some of them outside their limits.

:func:`check_configuration` returns the messages and issues one :class:`ConventionWarning`;
:class:`artidyn.interop.Converter` calls it on what it converts.
"""
import warnings

import numpy as np

from ..errors import ShapeError
from ..joints import FREE, SPHERICAL


class ConventionWarning(UserWarning):
    """A configuration vector looks like it follows another library's convention."""


def _quaternion_slots(model):
    """[(joint name, slice of q holding its quaternion (x, y, z, w))]."""
    out = []
    for i in range(1, model.nb + 1):
        a = int(model.idx_q[i])
        if model.joint_type[i] == SPHERICAL:
            out.append((model.joint_names[i], slice(a, a + 4)))
        elif model.joint_type[i] == FREE:
            out.append((model.joint_names[i], slice(a + 3, a + 7)))
    return out


def _unit_blocks(q, tol):
    """Start indices k with |q[k:k+4]| = 1 within tol (any row of a batch)."""
    n = q.shape[-1]
    return [k for k in range(n - 3) if np.all(np.abs(np.linalg.norm(q[:, k:k + 4], axis=-1) - 1) < tol)]


def check_configuration(model, q, *, warn=True, tol=1e-3, limit_margin=1e-6):
    """Messages (a list of str, empty when q looks right) about a q that seems to follow another
    library's convention; with ``warn`` (default) they are also issued as one ConventionWarning.

    ``q``: (nq,) or a batch (N, nq); a vector of pinocchio's size ``nq + n_continuous`` is
    reported (not converted) as such. ``tol``: tolerance on quaternion norms; ``limit_margin``:
    how far outside the joint limits a value may lie before it is reported. Raises ShapeError
    when q matches neither artidyn's nor pinocchio's size.
    """
    q = np.asarray(q, dtype=float)
    qb = q.reshape(-1, q.shape[-1]) if q.ndim else q.reshape(1, 1)
    n_cont = sum(1 for k in model.joint_kind if k == "continuous")
    msgs = []
    if qb.shape[-1] != model.nq:
        if n_cont and qb.shape[-1] == model.nq + n_cont:
            msgs.append(f"q has {qb.shape[-1]} entries, model '{model.name}' takes nq={model.nq}: this is pinocchio's "
                        f"layout, where each of the {n_cont} continuous joint(s) takes (cos, sin); artidyn takes one "
                        f"angle; convert with artidyn.interop.Converter(model, pin_model).from_pin_q")
        else:
            raise ShapeError(f"q has {qb.shape[-1]} entries, model '{model.name}' takes nq={model.nq}")
    else:
        msgs += _quaternion_messages(model, qb, tol)
        msgs += _limit_messages(model, qb, limit_margin)
    if msgs and warn:
        warnings.warn("; ".join(msgs), ConventionWarning, stacklevel=2)
    return msgs


def _quaternion_messages(model, qb, tol):
    msgs = []
    slots = _quaternion_slots(model)
    unit = _unit_blocks(qb, tol)
    for name, sl in slots:
        norms = np.linalg.norm(qb[:, sl], axis=-1)
        if np.any(np.abs(norms - 1) > tol):
            other = [k for k in unit if k != sl.start]
            hint = (f"; q[{other[0]}:{other[0] + 4}] has norm 1: is the quaternion in another slot "
                    f"(MuJoCo's free joint is [p, w, x, y, z], artidyn's [p, x, y, z, w])?" if other else "")
            msgs.append(f"joint '{name}': the quaternion q[{sl.start}:{sl.stop}] has norm {norms.max():.6g}, "
                        f"not 1{hint}")
        elif np.any((np.abs(np.abs(qb[:, sl.start]) - 1) < tol) & (np.abs(qb[:, sl.stop - 1]) < tol)):
            msgs.append(f"joint '{name}': the quaternion q[{sl.start}:{sl.stop}] is (+-1, 0, 0, 0): in artidyn's "
                        f"(x, y, z, w) order a half turn about x; if it is the identity in MuJoCo's (w, x, y, z) "
                        f"order, write (0, 0, 0, 1)")
    return msgs


def _limit_messages(model, qb, margin):
    lower, upper = np.asarray(model.lower), np.asarray(model.upper)
    bad = np.any((qb < lower - margin) | (qb > upper + margin), axis=0)
    quat = np.zeros(model.nq, dtype=bool)
    for _, sl in _quaternion_slots(model):
        quat[sl] = True
    bad &= ~quat
    if not np.any(bad):
        return []
    names = []
    for i in range(1, model.nb + 1):
        a = int(model.idx_q[i])
        if np.any(bad[a:a + int(model.nq_joint[i])]):
            names.append(model.joint_names[i])
    return [f"{len(names)} joint(s) outside their limits ({', '.join(names[:6])}{' ...' if len(names) > 6 else ''}): "
            f"is q in another library's joint order? (artidyn's order is model.joint_names; pinocchio's "
            f"differs on branched robots: use artidyn.interop.Converter)"]
