"""The compiled event-driven run (:mod:`artidyn.kernels.event_run`): which runs it takes, its
inputs packed, its samples, contacts and events read back as the readable
:class:`~artidyn.contact.event_driven.EventDriven` loop gives them (the tests hold the two equal).

It takes the runs of the default solver (ADMM on the exact cone) with collision shapes that the
compiled narrow phase handles and torques given as a constant or a table; a torque function of
Python, another solver or cone, or a pair that the narrow phase hands on (two boxes edge to edge)
runs on the readable route. Inside ``artidyn.kernels.reference_only()`` every run takes the
readable route.
"""
import numpy as np

from ..errors import InputError, SimulationError
from .dynamics import ContactDynamicsResult

MAX_EVENTS = 100000                  # per grid interval, as EventDriven.advance
EVENT_ROOM = 1024                    # the event log's first size (doubled, and the run taken again, when full)
STATUS = ("ok", "max_iterations", "no_solution", "inconsistent", "indeterminate")
MODES = ("frictionless", "stick", "slide")
KINDS = ("impact", "limit", "stick")


def unfit(model, settings, tau):
    """Why the compiled route does not take this run ("" when it does)."""
    from ..kernels.dispatch import kernels_enabled
    from .compiled import KINDS as SHAPES

    if not kernels_enabled():
        return "artidyn.kernels.reference_only()"
    if callable(tau):
        return "tau is a Python function"
    if settings.solver != "admm" or settings.cone != "soc":
        return "solver / cone other than 'admm' / 'soc'"
    for c in getattr(model, "collisions", ()):
        if type(c.shape) not in SHAPES:
            return f"collision shape '{c.name}' ({type(c.shape).__name__}: no compiled narrow phase)"
    return ""


def shape_sizes(model):
    """Each collision shape's length that tells its contact points apart (as EventDriven's ``_size``)."""
    out = np.ones(len(model.collisions))
    for i, c in enumerate(model.collisions):
        r = getattr(c.shape, "radius", None)
        if r is not None:
            out[i] = float(r) + float(getattr(c.shape, "length", 0.0))
        elif getattr(c.shape, "size", None) is not None:
            out[i] = float(np.linalg.norm(c.shape.size))
    return out


def _inputs(model, settings, tau, f_ext, friction, t, event_driven):
    from ..kernels.pack import pack
    from ..kernels.types import FRICTION, HAS_FEXT
    from .compiled import packed_shapes
    from .moreau_jean import limit_rows

    s, ed = settings, event_driven
    B = model._cache.get("event.table")
    if B is None:
        B = model._cache["event.table"] = pack(model)
    SH, PL, HULL, PAIRS, cap = packed_shapes(model)
    LIM = np.array(limit_rows(model), dtype=float).reshape(-1, 4) if s.joint_limits else np.zeros((0, 4))
    table = np.asarray(tau, dtype=float)
    TAU = np.array(table if table.ndim == 2 else np.broadcast_to(table, (model.nv,))[None], dtype=float)
    FEXT = np.zeros((model.nb + 1, 6)) if f_ext is None else np.array(f_ext, dtype=float)
    opts = (FRICTION if friction else 0) | (0 if f_ext is None else HAS_FEXT)
    PR = np.array([s.friction, s.restitution, s.limit_restitution, s.tol, s.max_iter, 1.0 if s.joint_limits else 0.0,
                   float(t[1] - t[0]), ed.gap_tol, ed.vel_tol, ed.event_tol, ed.zeno_velocity, ed.slide_tol,
                   ed.s_smooth.margin, MAX_EVENTS])
    return (B.copy(), SH, PL, *HULL, PAIRS, LIM, shape_sizes(model), TAU, FEXT, PR, int(opts), int(cap))


def run_compiled(model, q, v, t, settings, tau, f_ext, friction, event_driven):
    """The compiled run over the grid t from (q, v): (q, v, a, tau samples, the contacts of each sample
    (:class:`ContactDynamicsResult`), the events after each sample [[(time, kind, a, b)], ...], the
    number of events); None when a pair needs the readable narrow phase."""
    from ..kernels import event_run as R
    from ..kernels.event_smooth import EVENTS_FULL, FALLBACK, NOT_PSD, OK, SINGULAR, TOO_MANY
    from .friction import NOT_PSD_MESSAGE

    X = _inputs(model, settings, tau, f_ext, friction, t, event_driven)
    S, nv, cap, nlim = t.size, model.nv, max(X[-1], 1), max(2 * X[10].shape[0], 1)
    room = EVENT_ROOM
    while True:
        OQ, OV, OA, OTAU = np.zeros((S, model.nq)), np.zeros((S, nv)), np.zeros((S, nv)), np.zeros((S, nv))
        OFF, LOFF = np.zeros(S + 1, np.int64), np.zeros(S + 1, np.int64)
        CRI, CRF, LR = np.zeros((S * cap, 3), np.int64), np.zeros((S * cap, 15)), np.zeros((S * nlim, 3))
        SST, SRES, EV, info = np.zeros(S, np.int64), np.zeros(S), np.zeros((room, 5)), np.zeros(3, np.int64)
        X[0][:] = model._cache["event.table"]
        t_end = R.run(*X, np.array(t, dtype=float), np.array(q, dtype=float), np.array(v, dtype=float),
                      OQ, OV, OA, OTAU, OFF, CRI, CRF, LOFF, LR, SST, SRES, EV, info)
        if info[0] != EVENTS_FULL:
            break
        room *= 4
    code = int(info[0])
    if code == FALLBACK:
        return None
    if code == NOT_PSD:
        raise InputError(NOT_PSD_MESSAGE)
    if code == TOO_MANY:
        raise SimulationError(f"event-driven: more than {MAX_EVENTS} events before t = {t_end:.6g} s; an "
                              f"accumulation that the Zeno rule does not close (raise zeno_velocity)")
    if code == SINGULAR:
        raise SimulationError(f"event-driven: the mass matrix is not positive definite at t = {t_end:.6g} s")
    if code != OK:
        raise SimulationError(f"event-driven: the state became non-finite at t = {t_end:.6g} s")
    contacts = []
    n = int(OFF[S])                  # views of the logs cut to what the run stored (one copy each)
    forces, frames, points = CRF[:n, :3].copy(), CRF[:n, 3:12].reshape(-1, 3, 3).copy(), CRF[:n, 12:15].copy()
    body_a, body_b, modes = CRI[:n, 0].copy(), CRI[:n, 1].copy(), [MODES[m] for m in CRI[:n, 2]]
    limits = [(int(d), float(sd), float(f)) for d, sd, f in LR[:int(LOFF[S])]]
    for k in range(S):
        o0, o1, l0, l1 = OFF[k], OFF[k + 1], LOFF[k], LOFF[k + 1]
        contacts.append(ContactDynamicsResult(OA[k], forces[o0:o1], frames[o0:o1], body_a[o0:o1], body_b[o0:o1],
                                              points[o0:o1], modes[o0:o1], STATUS[SST[k]], float(SRES[k]),
                                              limits[l0:l1]))
    after = [[] for _ in range(S)]
    nev = int(info[1])
    for te, kind, a, b, k in EV[:nev]:
        after[int(k)].append((float(te), KINDS[int(kind)], int(a), int(b)))
    return OQ, OV, OA, OTAU, contacts, after, nev
