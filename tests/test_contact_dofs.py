"""Piles of bodies without the whole dense Delassus matrix (issue #32): the contact problem's stick
modes solved in the dofs' space (the block factor of ``Y_A^T Y_A + s I`` on its minimum degree
order against numpy's dense solve) and the ADMM island by island (the islands a union of the
trees the contacts link; their solution against the whole problem's); whole runs of resting
piles and of cubes landing and sliding against the readable route, which solves each step on the
whole Delassus matrix.
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


@pytest.mark.compiles      # the islands' kernels called alone
def test_islands_link_trees_through_contacts_not_through_the_world():
    """A forest: bodies 1-2 (a chain), 3, 4, 5. Contacts 1-world, 2-3, 4-world, 5-4 and a limit on
    body 2's joint: islands {1-world, 2-3, limit}, {4-world, 5-4}; the world links nothing."""
    import artidyn as ad
    from artidyn.kernels.contact_islands import islands
    from artidyn.kernels.pack import packed
    b = ad.ModelBuilder("forest")
    b.add_body("a", "world", "free", mass=1.0, inertia=np.eye(3))
    b.add_body("a2", "a", "revolute", axis=(0, 0, 1), mass=1.0, inertia=np.eye(3))
    for name in ("c", "d", "e"):
        b.add_body(name, "world", "free", mass=1.0, inertia=np.eye(3))
    model = b.build()
    B = packed(model)
    CI = np.array([[1, 0, 0], [2, 3, 0], [4, 0, 0], [5, 4, 0]], np.int64)
    ldof = np.array([model.idx_v[2]], np.int64)
    isl = np.zeros(5, np.int64)
    assert islands(B, CI, 4, ldof, 1, isl) == 2
    assert list(isl) == [0, 0, 1, 1, 0]


def test_cubes_landing_on_a_pile_island_by_island_equal_the_readable_route():
    """Seven cubes, rolled by 0.4 rad and moving sideways at 0.3 m/s, dropped 1 cm onto seven
    resting ones: they land on an edge, tip and slide (sliding modes: the dofs' space polish hands
    the step to the ADMM, here island by island, a column of two cubes each): the same contacts and
    states as the readable route, which runs its ADMM on the whole matrix (states compared: the
    velocities are unique where the forces of redundant contacts are not)."""
    model, q = pile(16, "box", gap=0.04)
    v = np.zeros(model.nv)
    roll = 0.4
    for k in range(9, 16):
        sl = model.q_slice(model.joint_names[k + 1])
        q[sl][2] = 0.1 + 0.05 * (np.cos(roll) + np.sin(roll)) + 0.01
        q[sl][3:] = (np.sin(roll / 2), 0.0, 0.0, np.cos(roll / 2))
        v[model.v_slice(model.joint_names[k + 1])][3] = 0.3          # [omega; v], body frame: x stays x
    c, r = both(model, q, v, ContactSettings(friction=0.3), 0.12)
    assert max(len(x.gap) for x in c.contacts) >= 40
    assert c.stats["max_solver_residual"] <= 1e-10 and r.stats["max_solver_residual"] <= 1e-10
    np.testing.assert_allclose(c.q, r.q, atol=1e-7, rtol=0)
    np.testing.assert_allclose(c.v, r.v, atol=1e-5, rtol=0)
