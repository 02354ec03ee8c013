"""Random models for tests: chains and trees with every joint type (a model zoo, as spatial_v2's
random-tree generators). Seeded by ``rng``; physically valid inertias."""
import numpy as np

from ..builder import ModelBuilder
from ..spatial.rotations import exp3


def _random_inertia(rng, scale=1.0):
    m = rng.uniform(0.5, 2.0) * scale
    R = exp3(rng.normal(size=3))
    d = rng.uniform(0.2, 1.0, size=3) * 0.05 * scale
    # principal moments from a box of half-sizes so the triangle inequality holds
    a, b, c = d
    moments = m / 3 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    return m, rng.uniform(-0.1, 0.1, size=3), R @ np.diag(moments) @ R.T


def _random_axis(rng):
    u = rng.normal(size=3)
    return u / np.linalg.norm(u)


def random_tree(rng=None, nb=6, floating=False, joint_types=("revolute", "prismatic", "spherical"),
                branching=0.5, fixed_frames=True, name=None):
    """A random tree of ``nb`` moving bodies (plus a floating base when ``floating``).

    ``branching`` in [0, 1]: 0 gives a chain, larger values attach bodies to random earlier ones.
    Placements, axes and inertias are random; an extra fixed body and an operational frame
    are added when ``fixed_frames``.
    """
    rng = np.random.default_rng(rng)
    b = ModelBuilder(name or f"random_{'tree' if branching else 'chain'}_{nb}")
    names = ["world"]
    if floating:
        m, c, I = _random_inertia(rng, 3.0)
        b.add_body("base", "world", "free", mass=m, com=c, inertia=I)
        names = ["base"]
    for k in range(nb):
        parent = names[-1] if rng.uniform() >= branching else names[rng.integers(len(names))]
        jt = joint_types[rng.integers(len(joint_types))]
        m, c, I = _random_inertia(rng)
        name = f"body{k + 1}"
        lim = {}
        if jt in ("revolute", "prismatic") and rng.uniform() < 0.5:
            lo = rng.uniform(-2, -0.5) if jt == "revolute" else rng.uniform(-0.5, -0.1)
            lim = dict(lower=lo, upper=-lo)
        b.add_body(name, parent, jt, axis=_random_axis(rng), xyz=rng.uniform(-0.3, 0.3, 3),
                   rpy=rng.uniform(-np.pi, np.pi, 3), mass=m, com=c, inertia=I, **lim)
        names.append(name)
    if fixed_frames and nb:
        m, c, I = _random_inertia(rng, 0.3)
        b.add_fixed_body("tool", names[-1], xyz=rng.uniform(-0.2, 0.2, 3), rpy=rng.uniform(-1, 1, 3),
                         mass=m, com=c, inertia=I)
        b.add_frame("tcp", "tool", xyz=(0, 0, 0.1))
    return b.build()


def random_chain(rng=None, nb=6, floating=False, joint_types=("revolute", "prismatic"), **kw):
    """A random serial chain (no branching)."""
    return random_tree(rng, nb, floating=floating, joint_types=joint_types, branching=0.0, **kw)


def zoo(seed=0):
    """The standard test zoo: a list of (label, model)."""
    rng = np.random.default_rng(seed)
    return [
        ("chain_rev7", random_chain(rng, 7, joint_types=("revolute",))),
        ("chain_mixed6", random_chain(rng, 6)),
        ("tree_8", random_tree(rng, 8)),
        ("tree_sph_5", random_tree(rng, 5, joint_types=("spherical", "revolute"))),
        ("floating_tree_6", random_tree(rng, 6, floating=True)),
        ("floating_chain_3", random_chain(rng, 3, floating=True)),
    ]
