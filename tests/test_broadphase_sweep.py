"""The compiled broad phase's sweep and its separating-axis cache, and bilateral rows beside the
contacts (issue #32: a robot's own collision meshes at a cost that follows the pairs that come
close, mimic couplings without a Delassus matrix at each step).

- :func:`artidyn.kernels.broadphase.candidates` (sweep and prune, from the order of the step
  before) gives exactly the pairs the all-pairs box test gives, in the same order, step after step
  as the shapes move, half-spaces included;
- :func:`artidyn.kernels.broadphase.apart` skips a pair only when the axis of the step before
  still proves it further apart than the margin (against GJK's distance), and does skip pairs that
  stay apart;
- a gripper of two mimic-coupled fingers on a floating palm dropped on the ground runs on the
  compiled route as on the readable one (which forms the whole Delassus matrix at each step).
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.constraints import Coupling
from artidyn.contact import ContactSettings
from artidyn.geometry import Box, Capsule, Cylinder, HalfSpace, Mesh, Sphere
from artidyn.sim.contact_run import simulate_contact
from artidyn.spatial import rpy_to_matrix
from test_contact_compiled import assert_same


def _hull(rng, n=40):
    """A random convex hull of n points on an ellipsoid (a link-like mesh)."""
    x = rng.normal(size=(n, 3))
    x /= np.linalg.norm(x, axis=1)[:, None]
    return Mesh(vertices=x * rng.uniform(0.03, 0.12, 3))


def _shapes(rng):
    return [Sphere(0.05), Capsule(0.04, 0.2), Box((0.1, 0.06, 0.14)), Cylinder(0.05, 0.12), _hull(rng), _hull(rng)]


def _placed(rng, n, spread):
    W = np.repeat(np.eye(4)[None], n, axis=0)
    for i in range(n):
        W[i, :3, :3] = rpy_to_matrix(rng.uniform(-3, 3, 3))
        W[i, :3, 3] = rng.uniform(-spread, spread, 3)
    return W


@pytest.mark.compiles      # the broad phase's kernels called alone (in a run they are inlined)
def test_sweep_gives_the_pairs_of_the_all_pairs_test_step_after_step():
    from artidyn.contact.compiled import pack_shapes
    from artidyn.kernels.broadphase import candidates, overlap, sweep_table, world_bounds
    rng = np.random.default_rng(5)
    shapes = [s for _ in range(5) for s in _shapes(rng)] + [HalfSpace(), HalfSpace((0.0, 1.0, 0.0), -0.3)]
    ns = len(shapes)
    SH, HULL = pack_shapes([(1, s) for s in shapes[:-2]] + [(0, s) for s in shapes[-2:]])
    # every pair but a few (as a model's exclusions leave them out), both half-spaces' pair included
    PAIRS = np.array([(a, b) for a in range(ns) for b in range(a + 1, ns) if (a + 2 * b) % 7], np.int64)
    LOOK, order = sweep_table(PAIRS, ns)
    out, AB = np.zeros(len(PAIRS), np.int64), np.zeros((ns, 6))
    W = _placed(rng, ns, 0.4)
    W[-2:] = np.eye(4)
    found = []
    for step in range(30):            # the shapes drift: the sort starts from the step before's order
        W[:-2, :3, 3] += rng.normal(0.0, 0.02, (ns - 2, 3))
        world_bounds(SH, W, AB)
        margin = 0.01 * (step % 3)
        n = candidates(SH, AB, margin, PAIRS, LOOK, order, out)
        every = [p for p in range(len(PAIRS)) if overlap(SH, AB, PAIRS[p, 0], PAIRS[p, 1], margin)]
        assert out[:n].tolist() == every
        assert all(sorted(order[r].tolist()) == list(range(ns)) for r in range(3))
        found.append(n)
    assert 10 < min(found) and max(found) < len(PAIRS) // 2       # neither none nor all
    for ax in (1, 2, 0):              # the shapes strung out along one axis: the sweep goes along it, same pairs
        W[:-2, :3, 3] = rng.uniform(-0.1, 0.1, (ns - 2, 3))
        W[:-2, ax, 3] = np.linspace(-2.0, 2.0, ns - 2)
        world_bounds(SH, W, AB)
        n = candidates(SH, AB, 0.0, PAIRS, LOOK, order, out)
        assert int(order[3, 0]) == ax
        assert out[:n].tolist() == [p for p in range(len(PAIRS)) if overlap(SH, AB, PAIRS[p, 0], PAIRS[p, 1], 0.0)]
    # more shapes than the table holds: every pair read, the same answer
    n = candidates(SH, AB, 0.0, PAIRS, np.zeros((0, 0), np.int32), order, out)
    assert out[:n].tolist() == [p for p in range(len(PAIRS)) if overlap(SH, AB, PAIRS[p, 0], PAIRS[p, 1], 0.0)]


def test_separating_axis_of_the_step_before_skips_only_pairs_apart():
    from artidyn.contact.compiled import pack_shapes
    from artidyn.kernels.broadphase import apart_of_pair as apart     # the entry points, compiled at installation
    from artidyn.kernels.contact_geometry import contacts_of_pair
    from artidyn.kernels.gjk import distance_of_pair
    rng = np.random.default_rng(8)
    margin, skipped, apart_pairs, tried = 0.005, 0, 0, 0
    for trial in range(300):
        a, b = rng.choice(6, 2, replace=False)
        pair = [_shapes(rng)[a], _shapes(rng)[b]]
        SH, HULL = pack_shapes([(1, pair[0]), (2, pair[1])])
        W = _placed(rng, 2, 0.12)
        axis, CC = np.zeros(5), np.zeros((16, 10))
        k = contacts_of_pair(CC, SH, 0, W[0], 1, W[1], margin, HULL, axis)
        if k > 0:
            assert not axis[:3].any()                  # in contact: no axis kept
            continue
        if not isinstance(pair[0], (Mesh, Cylinder)) and not isinstance(pair[1], (Mesh, Cylinder)):
            continue                                   # closed forms (no GJK): no axis, never skipped
        assert abs(np.linalg.norm(axis[:3]) - 1.0) < 1e-12
        for _ in range(3):            # the next steps: the pair moved a little
            W[1, :3, 3] += rng.normal(0.0, 0.004, 3)
            W[1, :3, :3] = W[1, :3, :3] @ rpy_to_matrix(rng.normal(0.0, 0.03, 3))
            out = np.zeros(10)
            distance_of_pair(SH, 0, W[0], 1, W[1], HULL, out)
            tried += 1
            apart_pairs += out[0] > margin + 0.01
            if apart(SH, HULL, 0, W[0], 1, W[1], margin, axis):
                skipped += 1
                assert out[0] > margin                 # never a pair within the margin
    assert tried > 150
    assert skipped > 0.6 * apart_pairs                 # and most pairs well apart are skipped


def gripper():
    """A palm (free body, a box) with two fingers on revolute joints, the second coupled to the
    first (URDF <mimic>: q2 = -q1), the second finger longer: dropped 1 cm onto the ground with
    the fingers opening, it lands on that finger, and the coupling carries the first's weight."""
    b = ad.ModelBuilder("gripper")
    b.add_body("palm", "world", "free", mass=1.0, inertia=np.diag([2e-3, 2e-3, 3e-3]))
    b.add_collision("palm", Box((0.16, 0.08, 0.04)))
    for k, x, length in ((1, 0.05, 0.06), (2, -0.05, 0.1)):
        b.add_body(f"finger{k}", "palm", "revolute", joint_name=f"j{k}", axis=(0, 1, 0), xyz=(x, 0.0, -0.02),
                   mass=0.1, com=(0.0, 0.0, -0.04), inertia=np.eye(3) * 1e-4, lower=-1.0, upper=1.0)
        b.add_collision(f"finger{k}", Capsule(0.01, length), xyz=(0.0, 0.0, -0.01 - length / 2))
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    q[2] = 0.15            # the long finger's tip 1 cm above the ground
    v = np.zeros(model.nv)
    v[6], v[7] = 0.5, -0.5
    return model, q, v


def test_mimic_fingers_on_the_ground_compiled_equals_reference():
    model, q, v = gripper()
    mimic = [Coupling("j2", "j1", ratio=-1.0)]
    s = ContactSettings(friction=0.6)
    c = simulate_contact(model, q, v, 0.0, 0.3, 1e-3, s, route="compiled", constraints=mimic)
    r = simulate_contact(model, q, v, 0.0, 0.3, 1e-3, s, route="reference", constraints=mimic)
    assert c.stats["route"] == "compiled" and r.stats["route"] == "reference"
    assert_same(c, r, atol=1e-9)
    np.testing.assert_allclose(c.constraint_forces, r.constraint_forces, atol=1e-6)
    assert np.abs(c.q[:, 8] + c.q[:, 7]).max() < 1e-12                 # the coupling holds
    assert max(len(x.gap) for x in c.contacts) >= 2                     # the fingers touch the ground
    assert np.abs(c.constraint_forces).max() > 1e-3                     # and the coupling carries load
