"""Numeric inverse geometric model q = G(X) (Khalil & Dombre, "Modeling, Identification and
Control of Robots", ch. 4).

The three cases of J. Reuss ("Modélisation des robots", French Wikipedia draft, 2013,
"Modélisation géométrique inverse"): infinitely many solutions (redundant arm: a secondary
objective picks one in the null space), one or several (:func:`ik_all` collects distinct ones by
multi-start), none (out of reach or singular: an honest ``status`` says which).

Levenberg-Marquardt on the SE(3) error log6(T(q)^-1 T*) (kernels in :mod:`._lm`), joint limits
kept by an active set, random restarts when a start fails; every other random attempt iterates
without limits, then moves its angles by 2 pi into the limits and, if still outside, goes on with
the limits from the clipped posture (a solution across a forbidden region is still found).
"unreachable" is decided, never guessed: the target lies beyond an upper bound of the chain's
reach (:mod:`.chain`), or the best attempt stopped at a stationary point of the error with a
full-rank Jacobian and a non-zero residual. The status of a failed target is that of its best
attempt (lowest residual), whose q is returned (within the limits).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..checks import as_model, real_array
from ..configuration import as_q, neutral
from ..errors import InputError, check_count, check_flag, check_number
from ..spatial.rotations import log3
from . import _kernels as K
from ._batch import chain_fk_many, solve_many
from .chain import support_chain
from .results import IKResult, IKSolutions
from .targets import parse_target

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import FrameLike, Model

# kernel codes -> status (REACH: beyond the reach bound, decided without iterating)
_STATUS = np.array(["converged", "unreachable", "singular", "joint_limits", "max_iterations", "unreachable"])
TOL = 1e-10


def _neutral(model):
    if "ik_neutral" not in model._cache:
        model._cache["ik_neutral"] = neutral(model)
    return model._cache["ik_neutral"]


def _real_inputs(model, **values):
    """Refuse a string for the model (hint: artidyn.load), and complex values (the imaginary part
    would be dropped silently) or object arrays of non-numbers for the arrays, naming them."""
    as_model(model)
    for name, x in values.items():
        if x is None or isinstance(x, str):
            continue
        if np.iscomplexobj(x):
            raise InputError(f"{name} is complex; inverse kinematics takes real numbers (the imaginary part would "
                             f"be dropped)")
        arr = np.asarray(x) if not isinstance(x, np.ndarray) else x
        if arr.dtype == object:
            real_array(arr, name)


def _count(name, x):
    """An integer argument (iterations, restarts, starts): InputError naming it otherwise."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or not -2**31 < int(x) < 2**31:
        raise InputError(f"{name} must be an integer (below 2**31), got {x!r}")
    return int(x)


def _configurations(model, q, name, N):
    """(rows, nq) float array of configurations (rows 1 or N), checked."""
    has_quat = model._cache.get("ik_quat")
    if has_quat is None:
        has_quat = model._cache["ik_quat"] = bool(model.quaternion_slices)
    try:
        Q = None if has_quat else np.asarray(q, dtype=float)
    except (TypeError, ValueError, OverflowError):   # not numbers: as_q says so, naming the argument
        Q = None
    if Q is None or Q.ndim not in (1, 2) or Q.shape[-1] != model.nq or not np.isfinite(Q).all():
        Q, _ = as_q(model, q, name)  # checks, normalises quaternions, raises the standard errors
    Q = Q[None] if Q.ndim == 1 else Q
    if Q.shape[0] not in (1, N):
        raise InputError(f"{name} has {Q.shape[0]} states for {N} targets")
    return Q


def _run(model, ch, Tt, Q0, Qref, mode, w, tol, max_iterations, n_attempts, seed, use_q0, respect_limits,
         w_ref=0.0, w_lim=0.0):
    """One call of the compiled solver for all targets; returns (Q (N, nq), out_i, out_e)."""
    if isinstance(tol, (bool, np.bool_)) or not isinstance(tol, (int, float, np.integer, np.floating)) \
            or not (np.isfinite(tol) and tol > 0):
        raise InputError(f"tol must be a positive number, got {tol!r}")
    _count("max_iterations", max_iterations)
    if int(max_iterations) < 1 or int(n_attempts) < 1:
        raise InputError(f"max_iterations must be >= 1 and restarts >= 0, got {max_iterations}, {n_attempts - 1}")
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**62:
        raise InputError(f"seed must be an integer in 0 .. 2**62 - 1 (the random starts of target k use seed + k), "
                         f"got {seed!r}")
    N = Tt.shape[0]
    out_q = np.empty((N, model.nq))
    out_i = np.empty((N, 3), dtype=np.int64)
    out_e = np.empty((N, 2))
    pf = np.concatenate(((tol, w_ref, w_lim), w))
    pi = np.array((mode, max_iterations, n_attempts, seed, use_q0, check_flag(respect_limits, "respect_limits")),
                  dtype=np.int64)
    solve_many(Tt, Q0, Qref, ch.ci, ch.cf, pf, pi, out_q, out_i, out_e)
    return out_q, out_i, out_e


def ik(model: Model, target: ArrayLike, frame: FrameLike, q0: ArrayLike | None = None, *, kind: str | None = None,
       weights: ArrayLike | None = None, tol: float = TOL, max_iterations: int = 100, restarts: int = 30,
       seed: int = 0, respect_limits: bool = True, q_ref: ArrayLike | None = None,
       avoid_limits: float = 0.0) -> IKResult:
    """Inverse geometric model of one target or a batch of targets (leading axis N).

    Parameters
    ----------
    model : Model
    target : (4, 4) pose, (3,) position or (3, 3) orientation (``kind="orientation"``), in the
        world frame, or a batch (N, ...) of them (solved in one compiled loop)
    frame : str, the frame (or body) to place
    q0 : (nq,) or (N, nq) first start; None: random starts only. Entries of joints that do not
        move the frame are returned as given (neutral when q0 is None).
    kind : "pose" | "position" | "orientation", inferred from the shape when None
    weights : (w_rotation, w_position) or 6 weights of the error rows [rotation; position]
    tol : convergence threshold on |e| (e = log6(T(q)^-1 T*) for a pose; [log3(R^T R*); R^T (p* - p)]
        restricted to the targeted rows otherwise)
    max_iterations : per attempt; restarts : random restarts after the first attempt fails
    seed : random starts of target k are seeded by ``seed + k`` (deterministic)
    respect_limits : keep every 1-dof joint within its limits (active set); False ignores them
    q_ref : (nq,) or (N, nq) reference posture for the null space of redundant chains
    avoid_limits : weight of the null-space objective that keeps joints away from their limits

    Returns
    -------
    IKResult (scalars for one target, arrays for a batch)
    """
    _real_inputs(model, target=target, q0=q0, q_ref=q_ref, weights=weights)
    ch = support_chain(model, frame)
    Tt, single, kind, mode, w = parse_target(target, kind, weights)
    N = Tt.shape[0]
    Q0 = _neutral(model)[None] if q0 is None else _configurations(model, q0, "q0", N)
    if q_ref is not None:
        Qref, w_ref = _configurations(model, q_ref, "q_ref", N)[:, ch.q_index], 1.0
    else:
        Qref, w_ref = np.zeros((1, ch.nq)), 0.0
    avoid_limits = check_number(avoid_limits, "ik: avoid_limits", minimum=0.0)
    Q, out_i, out_e = _run(model, ch, Tt, Q0, Qref, mode, w, tol, max_iterations, 1 + _count("restarts", restarts), seed,
                           q0 is not None, respect_limits, w_ref, avoid_limits)
    code = out_i[:, 0]
    if single:
        c = int(code[0])
        notes = None if c < K.LIMITS or c == K.MAX_ITER else (
            _reach_notes(ch, Tt, code) if c == K.REACH else _limit_notes(ch, Q, code, None))
        return IKResult(q=Q[0], success=c == K.CONVERGED, status=str(_STATUS[c]), position_error=float(out_e[0, 0]),
                        orientation_error=float(out_e[0, 1]), iterations=int(out_i[0, 1]),
                        attempts=int(out_i[0, 2]), frame=ch.frame, kind=kind, notes=notes and notes[0])
    notes = _reach_notes(ch, Tt, code) if (code == K.REACH).any() else None
    if (code == K.LIMITS).any():
        notes = _limit_notes(ch, Q, code, notes)
    return IKResult(q=Q, success=code == K.CONVERGED, status=_STATUS[code], position_error=out_e[:, 0],
                    orientation_error=out_e[:, 1], iterations=out_i[:, 1], attempts=out_i[:, 2], frame=ch.frame,
                    kind=kind, notes=notes)


def _reach_notes(ch, Tt, code):
    centre, radius = ch.reach
    d = np.linalg.norm(Tt[:, :3, 3] - centre, axis=1)
    return [(f"the target position is {d[k]:.6g} m from {np.round(centre, 6).tolist()} but the chain of "
             f"frame '{ch.frame}' reaches at most {radius:.6g} m from there") if code[k] == K.REACH else None
            for k in range(len(code))]


def _limit_notes(ch, Q, code, notes):
    """Name the joints resting on a limit in the targets that stopped there."""
    notes = list(notes) if notes is not None else [None] * len(code)
    Qc = Q[:, ch.q_index]
    at = (np.isclose(Qc, ch.lo, rtol=0, atol=1e-9) | np.isclose(Qc, ch.hi, rtol=0, atol=1e-9))
    for k in np.flatnonzero(code == K.LIMITS):
        names = [f"'{ch.joint_names[j]}'" for j in range(ch.jtype.size)
                 if ch.jtype[j] in (K.REVOLUTE, K.PRISMATIC) and at[k, ch.iq[j]]]
        notes[k] = f"joints at a limit: {', '.join(names) or 'none'}"
    return notes


def _errors_of(ch, Tt, Q, kind):
    """Position and orientation errors of the frame at Q against the targets (compiled FK)."""
    N = Tt.shape[0]
    pe, re = np.zeros(N), np.zeros(N)
    Tf = chain_placements(ch, Q[:, ch.q_index])
    if kind != "orientation":
        pe = np.linalg.norm(Tt[:, :3, 3] - Tf[:, :3, 3], axis=1)
    if kind != "position":
        re = np.linalg.norm(log3(np.swapaxes(Tf[:, :3, :3], 1, 2) @ Tt[:, :3, :3]), axis=-1)
    return pe, re


def chain_placements(ch, Qc):
    """Placements (N, 4, 4) of the chain's frame for chain configurations Qc (N, nq_c)."""
    Qc = np.ascontiguousarray(np.atleast_2d(Qc), dtype=float)
    out = np.empty((Qc.shape[0], 4, 4))
    chain_fk_many(Qc, ch.jtype, ch.axis, ch.X, ch.iq, ch.iv, ch.tool, out)
    return out


def distinct(ch, Qc, tol=1e-6):
    """Indices of the distinct rows of Qc (chain configurations), angles compared mod 2 pi."""
    D = Qc[:, None, :] - Qc[None, :, :]
    rev = np.zeros(ch.nq, dtype=bool)
    rev[ch.iq[ch.jtype == K.REVOLUTE]] = True
    D[..., rev] = (D[..., rev] + np.pi) % (2 * np.pi) - np.pi
    close = np.abs(D).max(axis=-1) <= tol
    keep = []
    for i in range(Qc.shape[0]):
        if not any(close[i, j] for j in keep):
            keep.append(i)
    return np.array(keep, dtype=np.int64)


def ik_all(model: Model, target: ArrayLike, frame: FrameLike, q0: ArrayLike | None = None, *,
           kind: str | None = None, weights: ArrayLike | None = None, tol: float = TOL, starts: int = 100,
           seed: int = 0, max_iterations: int = 100, respect_limits: bool = True, distinct_tol: float = 1e-6,
           max_solutions: int | None = None) -> IKSolutions:
    """Distinct solutions of one target found by multi-start (``starts`` random postures, solved
    together in the compiled loop), de-duplicated on the manifold (angles mod 2 pi).

    For a redundant chain the solutions form continua: this returns a sample of them. Solutions
    are sorted by their distance to ``q0`` when it is given (q0 also gives the entries of the
    joints that do not move the frame). Returns :class:`IKSolutions`.
    """
    _real_inputs(model, target=target, q0=q0, weights=weights)
    distinct_tol = check_number(distinct_tol, "ik_all: distinct_tol", minimum=0.0)
    if max_solutions is not None:
        max_solutions = check_count(max_solutions, "ik_all: max_solutions")
    ch = support_chain(model, frame)
    Tt, single, kind, mode, w = parse_target(target, kind, weights)
    if not single:
        raise InputError("ik_all takes one target; use ik for a batch of targets")
    base = _neutral(model) if q0 is None else _configurations(model, q0, "q0", 1)[0]
    S = _count("starts", starts)
    if S <= 0:
        raise InputError(f"starts must be a positive number of random starts, got {starts}")
    TT = np.ascontiguousarray(np.broadcast_to(Tt, (S, 4, 4)))
    Q, out_i, out_e = _run(model, ch, TT, base[None], np.zeros((1, ch.nq)), mode, w, tol, max_iterations, 1, seed,
                           False, respect_limits)
    code = out_i[:, 0]
    sols = Q[code == K.CONVERGED][:, ch.q_index]
    sols = sols[distinct(ch, sols, distinct_tol)] if len(sols) else sols
    if q0 is not None and len(sols):
        d = np.abs((sols - base[ch.q_index] + np.pi) % (2 * np.pi) - np.pi).sum(axis=1)
        sols = sols[np.argsort(d, kind="stable")]
    if max_solutions is not None:
        sols = sols[:max_solutions]
    if len(sols):
        status, msg = "converged", f"{len(sols)} distinct solution(s) from {S} starts"
    elif (code == K.REACH).all():
        status, msg = "unreachable", _reach_notes(ch, Tt, code[:1])[0]
    else:
        counts = np.bincount(code, minlength=6)
        counts[K.UNREACHABLE] += counts[K.REACH]
        status = str(_STATUS[int(np.argmax(counts[:5]))])
        msg = f"no start converged ({S} starts; outcomes {dict(zip(_STATUS[:5].tolist(), counts[:5].tolist()))})"
    return _solutions(ch, base, sols, Tt, kind, status, msg)


def _solutions(ch, base, sols, Tt, kind, status, msg, family="numeric", branch=None):
    Q = np.repeat(base[None], len(sols), axis=0)
    Q[:, ch.q_index] = sols
    k = len(sols)
    pe, re = _errors_of(ch, np.broadcast_to(Tt, (k, 4, 4)), Q, kind) if k else (np.zeros(0), np.zeros(0))
    within = np.all((sols >= ch.lo) & (sols <= ch.hi), axis=1) if k else np.zeros(0, dtype=bool)
    return IKSolutions(q=Q, position_error=pe, orientation_error=re, within_limits=within,
                       branch=branch if branch is not None else [""] * k, status=status, family=family,
                       frame=ch.frame, message=msg)
