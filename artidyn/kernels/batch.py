"""The one parallel entry point: any kernel over a batch of N states, chunks of states in parallel.

One compiled function for every algorithm (``kind``) keeps numba's costly parallel compilation
to a single instance. Each chunk works on a private copy of the packed table (its work columns
are the chunk's scratch) and runs the same per-state code as the single-state entry points;
RNEA, ABA and CRBA without external wrenches run on blocks of states side by side instead
(:mod:`.lanes`, vector instructions across states), whatever the chunk's size, so that a state's numbers
do not depend on how a batch is cut into chunks (Dask tasks, threads). Results go to
``out`` (N, K), K the flattened size of one state's result.
"""
import numba as nb
import numpy as np

from .aba import aba_state
from .crba import crba_state
from .kinematics import body_placements_out, frame_state, jacobian_state, placements_state
from .lanes import block_size, run_lanes
from .pack import IV
from .rnea import rnea_state
from .spatial import FMA, all_finite, load_q
from .types import BUF, HAS_FEXT, I64, MAT, OUT2, TEN, inputs_ok

RNEA, ABA, CRBA, PLACEMENTS, FRAME, JACOBIAN = 0, 1, 2, 3, 4, 5


@nb.njit(fastmath=FMA)
def result_size(B, kind):
    """K: the size of one state's result for ``kind``."""
    n, nv = B.shape[0], int(B[0, IV])
    if kind == RNEA or kind == ABA:
        return nv
    if kind == CRBA:
        return nv * nv
    if kind == PLACEMENTS:
        return 16 * n
    if kind == FRAME:
        return 16
    return 6 * nv


@nb.njit  # a compiled function of its own: inlined into the parallel loop it runs 2x slower
def run_chunk(B, kind, Q, X1, X2, Fext, body, Tf, opts, out, lo, hi):
    """States lo .. hi-1 on a private copy of the table; the first invalid state, or -1."""
    if kind <= CRBA and not opts & HAS_FEXT:
        return run_lanes(B, kind, Q, X1, X2, opts, out, lo, hi, block_size(B, kind))
    Bc = B.copy()
    T = np.empty((4, 4))
    n, nv = Bc.shape[0], int(Bc[0, IV])
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


@nb.njit(fastmath=FMA)
def shapes_ok(B, kind, Q, X1, X2, Fext, body, out):
    N, n, nv = Q.shape[0], B.shape[0], int(B[0, IV])
    if out.shape[0] != N or out.shape[1] != result_size(B, kind) or not (0 <= body < n):
        return False
    if kind <= ABA:
        return X1.shape[0] == N and X1.shape[1] == nv and X2.shape[0] == N and X2.shape[1] == nv
    return True


@nb.njit(I64(BUF, I64, MAT, MAT, MAT, TEN, I64, MAT, I64, OUT2, I64), cache=True, parallel=True)
def batch(B, kind, Q, X1, X2, Fext, body, Tf, opts, out, nchunk):
    """Run ``kind`` on N states (rows of Q, and of X1, X2 = v and a or tau for RNEA / ABA; Fext
    (N, nb+1, 6) when opts & HAS_FEXT; body, Tf for frames), ``nchunk`` chunks in parallel.

    Returns -1, or the first state whose inputs or result are not valid (0 for bad shapes).
    """
    N = Q.shape[0]
    if not shapes_ok(B, kind, Q, X1, X2, Fext, body, out):
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
