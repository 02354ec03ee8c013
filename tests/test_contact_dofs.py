"""The contact problem's stick modes solved in the dofs' space (issue #32: piles of bodies without
the dense Delassus matrix): the block factor of ``Y_A^T Y_A + s I`` on its minimum degree order
against numpy's dense solve, and whole runs of resting piles (where the compiled step polishes the
warm start in the dofs' space) against the readable route, which forms the Delassus matrix.
"""
import numpy as np
import pytest

from artidyn.contact import ContactSettings
from test_broadphase_pile import _benchmark
from test_contact_compiled import assert_same, both

pile = _benchmark("broadphase_pile").pile


@pytest.mark.compiles      # the factor's kernels called alone (in a run they are inlined in the step)
@pytest.mark.parametrize("seed", range(4))
def test_block_factor_solves_as_numpy_on_random_supports(seed):
    """Nodes of 1, 3 or 6 dofs in a forest; contacts whose supports are the chains of one or two
    nodes; random rows on those dofs. The factor on the minimum degree order solves H x = g as
    numpy does (1e-10 relative), and its fill stays inside the blocks it laid out."""
    from artidyn.kernels.contact_dofs import assemble, factor, layout, order, solve
    rng = np.random.default_rng(seed)
    nn = 14
    size = rng.choice([1, 3, 6], nn)
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    nv = int(size.sum())
    parent = np.array([-1 if i == 0 or rng.random() < 0.3 else int(rng.integers(0, i)) for i in range(nn)])

    def chain(i):
        out = []
        while i >= 0:
            out.append(i)
            i = parent[i]
        return out

    k = 25
    SUP = np.zeros((k, 2 * nn + 1), np.int64)
    for c in range(k):
        s = list(dict.fromkeys(chain(int(rng.integers(nn))) + chain(int(rng.integers(nn)))))
        SUP[c, 0] = len(s)
        SUP[c, 1:1 + len(s)] = s
    Y = np.zeros((3 * k, nv))
    for r in range(3 * k):
        for i in SUP[r // 3, 1:1 + SUP[r // 3, 0]]:
            Y[r, first[i]:first[i] + size[i]] = rng.normal(size=size[i])
    active = rng.random(k) < 0.8
    rows = np.array([r for r in range(3 * k) if active[r // 3]], np.int64)
    pos, CP, CN, BLK = np.zeros(nn, np.int64), np.zeros(nn + 1, np.int64), np.zeros(nn * nn, np.int64), \
        np.zeros((nn, nn), np.int64)
    seq = order(nn, SUP, active, pos, CP, CN)
    assert sorted(seq) == list(range(nn)) and all(pos[seq] == np.arange(nn))
    L = np.zeros(layout(nn, seq, pos, size, CP, CN, BLK))
    s = 1e-3
    assemble(Y, rows, rows.size, SUP, np.arange(3 * k) // 3, first, size, pos, BLK, s, L)
    assert factor(nn, seq, size, CP, CN, BLK, L)
    H = Y[rows].T @ Y[rows] + s * np.eye(nv)
    g = rng.normal(size=nv)
    x = g.copy()
    solve(nn, seq, first, size, CP, CN, BLK, L, x)
    np.testing.assert_allclose(x, np.linalg.solve(H, g), rtol=0, atol=1e-10 * np.abs(np.linalg.solve(H, g)).max())


@pytest.mark.parametrize("n, gap", [(20, 0.002), (27, 0.0)])
def test_resting_piles_polished_in_the_dofs_space_equal_the_readable_route(n, gap):
    """20 cubes in layers (80 contacts: the step's warm start is polished in the dofs' space) and 27
    cubes touching their neighbours (108 contacts and more, side faces too): the same contacts,
    impulses and states as the readable route, which solves each step on the Delassus matrix."""
    model, q = pile(n, "box", gap=gap)
    c, r = both(model, q, np.zeros(model.nv), ContactSettings(friction=0.5), 0.02)
    assert max(len(x.gap) for x in c.contacts) >= 4 * n
    assert c.stats["max_solver_residual"] <= 1e-10
    assert_same(c, r)
