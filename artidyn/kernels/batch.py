"""The one parallel entry point: any kernel over a batch of N states, chunks of states in parallel.

One compiled function for every algorithm (``kind``) keeps numba's costly parallel compilation
to a single instance. Each chunk works on a private copy of the packed table (its work columns
are the chunk's scratch) and runs the same per-state code as the single-state entry points;
RNEA, ABA and CRBA without external wrenches run on blocks of states side by side instead
(:mod:`.lanes`, vector instructions across states), whatever the chunk's size, so that a state's numbers
do not depend on how a batch is cut into chunks (Dask tasks, threads). Results go to
``out`` (N, K), K the flattened size of one state's result. GAHA, the Christoffel symbols and the
hybrid dynamics (:mod:`.gaha`, :mod:`.christoffel`, :mod:`.hybrid`) run state by state, with their
work arrays made once per chunk.
"""
import numba as nb
import numpy as np

from .aba import aba_state
from .christoffel import christoffel_state, christoffel_work
from .crba import crba_state
from .gaha import gaha_state, gaha_work
from .hybrid import hybrid_inputs_ok, hybrid_state
from .kinematics import body_placements_out, frame_state, jacobian_state, placements_state
from .lanes import block_size, run_lanes
from .pack import IV
from .rnea import rnea_state
from .spatial import FMA, all_finite, load_q
from .types import BUF, HAS_FEXT, I64, MAT, OUT2, TEN, inputs_ok

RNEA, ABA, CRBA, PLACEMENTS, FRAME, JACOBIAN, GAHA, CHRISTOFFEL, HYBRID = 0, 1, 2, 3, 4, 5, 6, 7, 8


@nb.njit(fastmath=FMA)
def result_size(B, kind):
    """K: the size of one state's result for ``kind``."""
    n, nv = B.shape[0], int(B[0, IV])
    if kind == RNEA or kind == ABA:
        return nv
    if kind == CRBA or kind == GAHA:
        return nv * nv
    if kind == CHRISTOFFEL:
        return nv * nv * nv
    if kind == HYBRID:
        return 2 * nv
    if kind == PLACEMENTS:
        return 16 * n
    if kind == FRAME:
        return 16
    return 6 * nv  # JACOBIAN


@nb.njit  # a compiled function of its own: inlined into the parallel loop it runs 2x slower
def run_chunk(B, kind, Q, X1, X2, Fext, body, Tf, opts, out, lo, hi):
    """States lo .. hi-1 on a private copy of the table; the first invalid state, or -1."""
    if kind <= CRBA and not opts & HAS_FEXT:
        return run_lanes(B, kind, Q, X1, X2, opts, out, lo, hi, block_size(B, kind))
    Bc = B.copy()
    n, nv = Bc.shape[0], int(Bc[0, IV])
    if kind >= GAHA:
        return run_chunk_formulations(Bc, kind, Q, X1, X2, Fext, Tf, opts, out, lo, hi)
    T = np.empty((4, 4))
    for k in range(lo, hi):
        q, o = Q[k], out[k]
        if kind <= ABA:
            fk = Fext[k] if opts & HAS_FEXT else Fext[0]
            if not inputs_ok(Bc, q, X1[k], X2[k], fk, opts, o):
                return k
            if kind == RNEA:
                rnea_state(Bc, X1[k], X2[k], fk, opts, o)
            else:
                aba_state(Bc, X1[k], X2[k], fk, opts, o)
        elif not load_q(Bc, q):
            return k
        elif kind == CRBA:
            crba_state(Bc, o.reshape((nv, nv)))
        elif kind == PLACEMENTS:
            placements_state(Bc, n - 1)
            body_placements_out(Bc, o.reshape((n, 4, 4)))
        elif kind == FRAME:
            placements_state(Bc, body)
            frame_state(Bc, body, Tf, o.reshape((4, 4)))
        else:
            placements_state(Bc, body)
            jacobian_state(Bc, body, Tf, opts, T, o.reshape((6, nv)))
        if not all_finite(o):
            return k
    return -1


@nb.njit
def run_chunk_formulations(Bc, kind, Q, X1, X2, Fext, Tf, opts, out, lo, hi):
    """GAHA, Christoffel symbols, hybrid dynamics for states lo .. hi-1 (Bc: the chunk's table);
    the first invalid state, or -1. Hybrid: X1 = v, X2 = a on the prescribed dofs and tau on the
    others, Tf (1, nv) the mask of the prescribed dofs (nonzero), out = [qdd, tau]."""
    if kind == GAHA:
        return gaha_chunk(Bc, Q, out, lo, hi)
    if kind == CHRISTOFFEL:
        return christoffel_chunk(Bc, Q, out, lo, hi)
    return hybrid_chunk(Bc, Q, X1, X2, Fext, Tf, opts, out, lo, hi)


@nb.njit
def gaha_chunk(Bc, Q, out, lo, hi):
    n, nv = Bc.shape[0], int(Bc[0, IV])
    T, P, Y, dofs, depth, L = gaha_work(n, nv)
    for k in range(lo, hi):
        if not load_q(Bc, Q[k]) or not gaha_state(Bc, T, P, Y, dofs, depth, L, out[k].reshape((nv, nv))):
            return k
    return -1


@nb.njit
def christoffel_chunk(Bc, Q, out, lo, hi):
    n, nv = Bc.shape[0], int(Bc[0, IV])
    T, G, dofs, start, depth, E = christoffel_work(n, nv)
    for k in range(lo, hi):
        if not load_q(Bc, Q[k]) or not christoffel_state(Bc, T, G, dofs, start, depth, E,
                                                          out[k].reshape((nv, nv, nv))):
            return k
    return -1


@nb.njit
def hybrid_chunk(Bc, Q, X1, X2, Fext, Tf, opts, out, lo, hi):
    nv = int(Bc[0, IV])
    for k in range(lo, hi):
        fk = Fext[k] if opts & HAS_FEXT else Fext[0]
        o = out[k]
        qdd, tau = o[:nv], o[nv:]
        if not hybrid_inputs_ok(Bc, Q[k], X1[k], X2[k], X2[k], Tf[0], fk, opts, qdd, tau):
            return k
        hybrid_state(Bc, X1[k], X2[k], X2[k], Tf[0], fk, opts, qdd, tau)
        if not all_finite(o):
            return k
    return -1


@nb.njit(fastmath=FMA)
def shapes_ok(B, kind, Q, X1, X2, Fext, body, Tf, out):
    N, n, nv = Q.shape[0], B.shape[0], int(B[0, IV])
    if out.shape[0] != N or out.shape[1] != result_size(B, kind) or not (0 <= body < n):
        return False
    if kind <= ABA or kind == HYBRID:
        if kind == HYBRID and (Tf.shape[0] != 1 or Tf.shape[1] != nv):
            return False
        return X1.shape[0] == N and X1.shape[1] == nv and X2.shape[0] == N and X2.shape[1] == nv
    return True


@nb.njit(I64(BUF, I64, MAT, MAT, MAT, TEN, I64, MAT, I64, OUT2, I64), cache=True, parallel=True)
def batch(B, kind, Q, X1, X2, Fext, body, Tf, opts, out, nchunk):
    """Run ``kind`` on N states (rows of Q, and of X1, X2 = v and a or tau for RNEA / ABA; Fext
    (N, nb+1, 6) when opts & HAS_FEXT; body, Tf for frames), ``nchunk`` chunks in parallel.

    Returns -1, or the first state whose inputs or result are not valid (0 for bad shapes).
    """
    N = Q.shape[0]
    if not shapes_ok(B, kind, Q, X1, X2, Fext, body, Tf, out):
        return 0
    if opts & HAS_FEXT and (Fext.shape[0] != N or Fext.shape[1] != B.shape[0] or Fext.shape[2] != 6):
        return 0
    m = max(1, min(N, nchunk))
    first = np.empty(m, np.int64)
    for c in nb.prange(m):
        first[c] = run_chunk(B, kind, Q, X1, X2, Fext, body, Tf, opts, out, c * N // m, (c + 1) * N // m)
    for c in range(m):
        if first[c] >= 0:
            return first[c]
    return -1
