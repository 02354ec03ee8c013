"""Entry points of the compiled analytical formulations (:mod:`.formulations`): one state, and
parallel batches. Compiled (explicit signatures) when this module is first imported, cached on
disk; importing :mod:`.formulations` for its helpers compiles nothing.
"""
import numba as nb

from .formulations import formulation_state
from .types import BUF, I64, MAT, OUT1, OUT2, TEN, VEC

TEN4 = TEN.copy(ndim=4)
IVEC = nb.types.Array(nb.int64, 1, "A", readonly=True)


@nb.njit(I64(BUF, MAT, TEN4, I64, VEC, VEC, VEC, MAT, I64, TEN, MAT, MAT, VEC, IVEC, OUT1, OUT1, OUT1, OUT1, OUT1),
         cache=True)
def formulation_single(B, K, TF, method, q, v, tau, fext, opts, X, Y, J, g, named, wdot, a, lam, force, info):
    """One state in the table's own work columns (:func:`.formulations.formulation_state`)."""
    return formulation_state(B, K, TF, method, q, v, tau, fext, opts, X, Y, J, g, named, wdot, a, lam, force, info)


@nb.njit
def run_chunk(B, K, TF, method, Q, V, TAU, F, opts, X, Y, J, G, named, WDOT, A, LAM, FORCE, INFO, codes, lo, hi):
    Bc = B.copy()
    for k in range(lo, hi):     # per-state inputs, or one row for every state
        codes[k] = formulation_state(Bc, K, TF, method, Q[k], V[k], TAU[k], F[k if F.shape[0] > 1 else 0], opts,
                                     X[k if X.shape[0] > 1 else 0], Y[k if Y.shape[0] > 1 else 0],
                                     J[k if J.shape[0] > 1 else 0], G[k if G.shape[0] > 1 else 0], named, WDOT[k],
                                     A[k], LAM[k], FORCE[k], INFO[k])


@nb.njit(I64(BUF, MAT, TEN4, I64, MAT, MAT, MAT, TEN, I64, TEN4, TEN, TEN, MAT, IVEC, OUT2, OUT2, OUT2, OUT2, OUT2,
             nb.int64[::1], I64, I64), cache=True, nogil=True)
def formulation_batch(B, K, TF, method, Q, V, TAU, F, opts, X, Y, J, G, named, WDOT, A, LAM, FORCE, INFO, codes,
                      c, m):
    """Chunk c of m of N states (rows of Q, V, TAU; F, X, Y, J, G with N rows or one for all) on a
    private copy of the table; codes (N) per state. The chunks run on threads at once
    (:func:`artidyn.threads.run_chunks`; it releases the GIL)."""
    N = Q.shape[0]
    run_chunk(B, K, TF, method, Q, V, TAU, F, opts, X, Y, J, G, named, WDOT, A, LAM, FORCE, INFO, codes,
              c * N // m, (c + 1) * N // m)
    return 0
