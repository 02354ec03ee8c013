"""Numeric inverse geometric model q = G(X) (seed, "Modélisation géométrique inverse").

The seed's three cases: infinitely many solutions (redundant arm: a secondary objective picks
one in the null space), one or several (:func:`ik_all` collects distinct ones by multi-start),
none (out of reach or singular: an honest ``status`` says which).

Levenberg-Marquardt on the SE(3) error log6(T(q)^-1 T*) (kernels in :mod:`._lm`), joint limits
kept by an active set, random restarts when a start fails. "unreachable" is decided, never
guessed: the target lies beyond an upper bound of the chain's reach (:mod:`.chain`), or every
stop is a stationary point of the error with a full-rank Jacobian and a non-zero residual.
"""
import numpy as np

from ..configuration import as_q, neutral
from ..errors import InputError
from . import _kernels as K
from ._lm import solve_many
from .chain import support_chain
from .results import IKResult, IKSolutions
from .targets import parse_target

_STATUS = np.array(["converged", "unreachable", "singular", "joint_limits", "max_iterations"])
TOL = 1e-10


def _problem(model, target, frame, q0, kind, weights, respect_limits):
    ch = support_chain(model, frame)
    Tt, single, kind, mode, w = parse_target(target, kind, weights)
    N = Tt.shape[0]
    if q0 is None:
        Qfull = _neutral(model)[None]
        use_q0 = False
    else:
        Qfull, _ = as_q(model, q0, "q0")
        if Qfull.shape[0] not in (1, N):
            raise InputError(f"q0 has {Qfull.shape[0]} states for {N} targets")
        use_q0 = True
    lo, hi = (ch.lo, ch.hi) if respect_limits else (np.full(ch.nq, -np.inf), np.full(ch.nq, np.inf))
    return ch, Tt, single, kind, mode, w, Qfull, use_q0, lo, hi


def _neutral(model):
    if "ik_neutral" not in model._cache:
        model._cache["ik_neutral"] = neutral(model)
    return model._cache["ik_neutral"]


def _beyond_reach(ch, Tt, kind):
    """Targets whose position is beyond the chain's reach bound (decided, no iteration)."""
    if kind == "orientation" or ch.reach is None:
        return None, None
    centre, radius = ch.reach
    d = np.sqrt(((Tt[:, :3, 3] - centre) ** 2).sum(axis=1))
    far = d > radius * (1 + 1e-9) + 1e-12
    return (far if far.any() else None), d


def _run(ch, Tt, Q0c, use_q0, mode, w, lo, hi, tol, max_iterations, n_attempts, seed, Qref, w_ref, w_lim):
    N = Tt.shape[0]
    out_q = np.empty((N, ch.nq))
    out_code = np.empty(N, dtype=np.int64)
    out_it, out_att = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)
    perr, rerr = np.empty(N), np.empty(N)
    if N:
        solve_many(Tt, np.ascontiguousarray(Q0c, dtype=float), use_q0, mode, w, ch.jtype, ch.axis,
                   ch.X, ch.iq, ch.iv, ch.vq, ch.tool, lo, hi, ch.rlo, ch.rhi, ch.wrap, float(tol),
                   int(max_iterations), int(n_attempts), int(seed), np.ascontiguousarray(Qref, dtype=float),
                   float(w_ref), float(w_lim), out_q, out_code, out_it, out_att, perr, rerr)
    return out_q, out_code, out_it, out_att, perr, rerr


def ik(model, target, frame, q0=None, *, kind=None, weights=None, tol=TOL, max_iterations=100,
       restarts=30, seed=0, respect_limits=True, q_ref=None, avoid_limits=0.0):
    """Inverse geometric model of one target or a batch of targets (leading axis N).

    Parameters
    ----------
    model : Model
    target : (4, 4) pose, (3,) position or (3, 3) orientation (``kind="orientation"``), in the
        world frame, or a batch (N, ...) of them
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
    IKResult
    """
    ch, Tt, single, kind, mode, w, Qfull, use_q0, lo, hi = _problem(model, target, frame, q0, kind, weights,
                                                                      respect_limits)
    N = Tt.shape[0]
    if q_ref is not None:
        Qref, _ = as_q(model, q_ref, "q_ref")
        Qref, w_ref = np.broadcast_to(Qref[:, ch.q_index], (N, ch.nq)), 1.0
    else:
        Qref, w_ref = np.zeros((1, ch.nq)), 0.0
    if not (np.isfinite(avoid_limits) and avoid_limits >= 0):
        raise InputError(f"avoid_limits must be a finite weight >= 0, got {avoid_limits}")
    far, dist = _beyond_reach(ch, Tt, kind)
    Q = np.array(np.broadcast_to(Qfull, (N, model.nq)), dtype=float)
    todo = np.arange(N) if far is None else np.flatnonzero(~far)
    Qc0 = Q[todo][:, ch.q_index]
    Qref = np.broadcast_to(Qref, (N, ch.nq))[todo]
    qc, code, its, att, perr, rerr = _run(ch, Tt[todo] if far is not None else Tt, Qc0, use_q0, mode, w, lo, hi,
                                          tol, max_iterations, 1 + int(restarts), seed, Qref, w_ref, avoid_limits)
    if kind != "pose":
        perr, rerr = _mask(kind, perr, rerr)
    notes = None
    if far is None:
        Q[:, ch.q_index] = qc
    else:
        Q[np.ix_(todo, ch.q_index)] = qc
        codes, qc = np.full(N, K.UNREACHABLE), None
        codes[todo] = code
        its_all, att_all = np.zeros(N, dtype=np.int64), np.zeros(N, dtype=np.int64)
        its_all[todo], att_all[todo] = its, att
        pe, re = np.zeros(N), np.zeros(N)
        pe[todo], re[todo] = perr, rerr
        pe[far], re[far] = _errors_of(ch, Tt[far], Q[far], kind)
        code, its, att, perr, rerr = codes, its_all, att_all, pe, re
        centre, radius = ch.reach
        notes = [None] * N
        for k in np.flatnonzero(far):
            notes[k] = (f"the target position is {dist[k]:.6g} m from {np.round(centre, 6).tolist()} but the "
                        f"chain of frame '{ch.frame}' reaches at most {radius:.6g} m from there")
    if single:
        return IKResult(q=Q[0], success=bool(code[0] == K.CONVERGED), status=str(_STATUS[code[0]]),
                        position_error=float(perr[0]), orientation_error=float(rerr[0]), iterations=int(its[0]),
                        attempts=int(att[0]), frame=ch.frame, kind=kind, notes=None if notes is None else notes[0])
    return IKResult(q=Q, success=code == K.CONVERGED, status=_STATUS[code], position_error=perr,
                    orientation_error=rerr, iterations=its, attempts=att, frame=ch.frame, kind=kind, notes=notes)


def _mask(kind, perr, rerr):
    if kind == "position":
        return perr, np.zeros_like(rerr)
    return np.zeros_like(perr), rerr


def _errors_of(ch, Tt, Q, kind):
    """Position and orientation errors of the frame at Q against the targets (compiled FK)."""
    N = Tt.shape[0]
    pe, re = np.zeros(N), np.zeros(N)
    Tf = chain_placements(ch, Q[:, ch.q_index])
    if kind != "orientation":
        pe = np.linalg.norm(Tt[:, :3, 3] - Tf[:, :3, 3], axis=1)
    if kind != "position":
        from ..spatial.rotations import log3
        re = np.linalg.norm(log3(np.swapaxes(Tf[:, :3, :3], 1, 2) @ Tt[:, :3, :3]), axis=-1)
    return pe, re


def chain_placements(ch, Qc):
    """Placements (N, 4, 4) of the chain's frame for chain configurations Qc (N, nq_c)."""
    from ._lm import chain_fk_many
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


def ik_all(model, target, frame, q0=None, *, kind=None, weights=None, tol=TOL, starts=100, seed=0,
           max_iterations=100, respect_limits=True, distinct_tol=1e-6, max_solutions=None):
    """Distinct solutions of one target found by multi-start (``starts`` random postures, solved
    together in the compiled loop), de-duplicated on the manifold (angles mod 2 pi).

    For a redundant chain the solutions form continua: this returns a sample of them. Solutions
    are sorted by their distance to ``q0`` when it is given. Returns :class:`IKSolutions`.
    """
    ch, Tt, single, kind, mode, w, Qfull, _, lo, hi = _problem(model, target, frame, q0, kind, weights,
                                                               respect_limits)
    if not single:
        raise InputError("ik_all takes one target; use ik for a batch of targets")
    base = Qfull[0]
    far, dist = _beyond_reach(ch, Tt, kind)
    S = int(starts)
    if far is not None or S <= 0:
        msg = (f"the target position is {dist[0]:.6g} m from the centre of the reach bound, beyond its "
               f"radius {ch.reach[1]:.6g} m" if far is not None else "no starts")
        return _solutions(model, ch, base, np.zeros((0, ch.nq)), Tt, kind,
                          "unreachable" if far is not None else "max_iterations", msg)
    TT = np.broadcast_to(Tt, (S, 4, 4))
    Q0c = np.broadcast_to(base[ch.q_index], (S, ch.nq))
    qc, code, its, att, perr, rerr = _run(ch, TT, Q0c, False, mode, w, lo, hi, tol, max_iterations, 1, seed,
                                          np.zeros((S, ch.nq)), 0.0, 0.0)
    ok = code == K.CONVERGED
    sols = qc[ok]
    sols = sols[distinct(ch, sols, distinct_tol)] if len(sols) else sols
    if q0 is not None and len(sols):
        d = np.abs((sols - base[ch.q_index] + np.pi) % (2 * np.pi) - np.pi).sum(axis=1)
        sols = sols[np.argsort(d, kind="stable")]
    if max_solutions is not None:
        sols = sols[:int(max_solutions)]
    if len(sols):
        status, msg = "converged", f"{len(sols)} distinct solution(s) from {S} starts"
    else:
        counts = np.bincount(code, minlength=5)
        status = str(_STATUS[int(np.argmax(counts))])
        msg = f"no start converged ({S} starts; outcomes {dict(zip(_STATUS.tolist(), counts.tolist()))})"
    return _solutions(model, ch, base, sols, Tt, kind, status, msg)


def _solutions(model, ch, base, sols, Tt, kind, status, msg, family="numeric", branch=None):
    Q = np.repeat(base[None], len(sols), axis=0)
    Q[:, ch.q_index] = sols
    k = len(sols)
    pe, re = _errors_of(ch, np.broadcast_to(Tt, (k, 4, 4)), Q, kind) if k else (np.zeros(0), np.zeros(0))
    within = np.all((sols >= ch.lo) & (sols <= ch.hi), axis=1) if k else np.zeros(0, dtype=bool)
    return IKSolutions(q=Q, position_error=pe, orientation_error=re, within_limits=within,
                       branch=branch if branch is not None else [""] * k, status=status, family=family,
                       frame=ch.frame, message=msg)
