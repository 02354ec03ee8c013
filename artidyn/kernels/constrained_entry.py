"""Entry points of the compiled constrained dynamics (:mod:`.constrained`): one state with a
scratch kept between calls, and parallel batches. Compiled (explicit signatures) when this module
is first imported, cached on disk; the helpers' module compiles nothing on import, so the
kernels that share its helpers (contacts, derivatives) do not pay for these.
"""
import numba as nb
import numpy as np

from .constrained import BAD_INPUT, one_state, scratch, scratch_init, scratch_sizes, scratch_views
from .pack import IV
from .types import BUF, HAS_FEXT, I64, MAT, OUT1, OUT2, OUT3, TEN, VEC

F64 = nb.float64


@nb.njit(cache=True)
def new_scratch(B, K, m):
    """(buf, ints) for :func:`constrained_into`, set up (:func:`scratch_init`)."""
    nf, ni = scratch_sizes(int(B[0, IV]), m, K.shape[0])
    buf, ints = np.empty(nf), np.empty(ni, np.int64)
    scratch_init(B, K, m, buf, ints)
    return buf, ints


@nb.njit
def run_chunk(B, K, TF, Q, QD, TAU, Fext, opts, alpha, beta, QDD, LAM, PHI, WR, INFO, codes, lo, hi):
    Bc = B.copy()
    S = scratch(Bc, K, LAM.shape[1])
    for k in range(lo, hi):
        fk = Fext[k] if opts & HAS_FEXT else Fext[0]
        codes[k] = one_state(Bc, K, TF, Q[k], QD[k], TAU[k], fk, opts, alpha, beta, S, QDD[k], LAM[k], PHI[k], WR[k],
                             INFO[k])


@nb.njit(I64(BUF, MAT, TEN.copy(ndim=4), MAT, MAT, MAT, TEN, I64, F64, F64, OUT2, OUT2, OUT2, OUT3, OUT2,
             nb.int64[::1], I64, I64), cache=True, nogil=True)
def constrained_batch(B, K, TF, Q, QD, TAU, Fext, opts, alpha, beta, QDD, LAM, PHI, WR, INFO, codes, c, m):
    """Chunk c of m of N states, on a private copy of the table; codes (N) per state. The chunks
    run on threads at once (:func:`artidyn.threads.run_chunks`; it releases the GIL)."""
    N = Q.shape[0]
    run_chunk(B, K, TF, Q, QD, TAU, Fext, opts, alpha, beta, QDD, LAM, PHI, WR, INFO, codes, c * N // m,
              (c + 1) * N // m)
    return 0


@nb.njit(I64(BUF, MAT, TEN.copy(ndim=4), VEC, VEC, VEC, MAT, I64, F64, F64, OUT1, nb.int64[::1], I64, OUT1),
         cache=True)
def constrained_into(B, K, TF, q, qd, tau, fext, opts, alpha, beta, buf, ints, m, qdd):
    """One state with the scratch of :func:`new_scratch` (kept between calls): qdd (nv), and at
    the end of buf lam (m), phi (m), W (nc, 6), info (1) the residual; a return code."""
    nv, nc = int(B[0, IV]), K.shape[0]
    nf, ni = scratch_sizes(nv, m, nc)
    if buf.shape[0] != nf or ints.shape[0] != ni:
        return BAD_INPUT
    o = nf - 2 * m - 6 * nc - 1
    return one_state(B, K, TF, q, qd, tau, fext, opts, alpha, beta, scratch_views(nv, m, nc, buf, ints), qdd,
                     buf[o:o + m], buf[o + m:o + 2 * m], buf[o + 2 * m:o + 2 * m + 6 * nc].reshape((nc, 6)),
                     buf[nf - 1:])

