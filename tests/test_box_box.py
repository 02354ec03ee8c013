"""Box-on-box contacts (issue #32, found by the pile of boxes): the corners over the faces of the
separating-axis test's best face axis and the crossings of the edges, on both routes. A cube resting
on a cube turned about the vertical gets the eight corners of the overlap octagon (before: one
corner and it sank), equal cubes stacked straight get four corners with vertical normals (before:
eight, each corner twice, with horizontal normals: the corners lie on the side faces too), and the
compiled narrow phase gives the reference's contacts, in the same order.
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.contact.compiled import compiled_contacts
from artidyn.geometry import Box, HalfSpace, contacts
from artidyn.sim.contact_run import simulate_contact
from artidyn.spatial.motion import homogeneous

H = 0.05
CUBE = Box((2 * H, 2 * H, 2 * H))


def rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def both_routes(T_a, T_b, margin=1e-3):
    ref = contacts(CUBE, T_a, CUBE, T_b, margin)
    com = compiled_contacts(CUBE, T_a, CUBE, T_b, margin)
    assert com is not None and len(com) == len(ref)
    for (d, n, pa, pb), (d2, n2, pa2, pb2) in zip(ref, com):
        assert d == pytest.approx(d2, abs=1e-12)
        np.testing.assert_allclose(n2, n, atol=1e-12)
        np.testing.assert_allclose(pa2, pa, atol=1e-12)
        np.testing.assert_allclose(pb2, pb, atol=1e-12)
    return ref


@pytest.mark.parametrize("yaw", [0.3, np.pi / 4, -1.0])
@pytest.mark.parametrize("sink", [0.0, 4e-4])
def test_a_cube_turned_on_a_cube_rests_on_the_overlap_octagon(yaw, sink):
    """The contacts are the eight corners of the overlap of the two squares: each on an edge of
    both squares (in each cube's own axes one coordinate is +-H), the normal vertical, the gap
    minus the sink."""
    T_a, T_b = homogeneous(rz(yaw), [0.0, 0.0, 2 * H - sink]), np.eye(4)
    C = both_routes(T_a, T_b)
    assert len(C) == 8
    for d, n, pa, pb in C:
        assert d == pytest.approx(-sink, abs=1e-12)
        np.testing.assert_allclose(n, [0.0, 0.0, 1.0], atol=1e-12)
        np.testing.assert_allclose(pb[2], H, atol=1e-12)                    # on b's top face
        assert np.max(np.abs(pb[:2])) == pytest.approx(H, abs=1e-12)        # on an edge of b's square
        xa = rz(yaw).T @ pa[:3] - [0.0, 0.0, 2 * H - sink]
        assert np.max(np.abs(xa[:2])) == pytest.approx(H, abs=1e-12)        # on an edge of a's square
        assert xa[2] == pytest.approx(-H, abs=1e-12)
    P = np.array([c[3][:2] for c in C])
    assert len({tuple(np.round(p, 9)) for p in P}) == 8                   # eight distinct points


def test_straight_and_shifted_cubes_rest_on_the_overlap_rectangle():
    """Equal cubes stacked straight: the four corners once each, normals vertical; shifted by
    (3, 2) cm: the corners of the overlap rectangle [-2, 5] x [-3, 5] cm (a corner of each cube and
    two edge crossings)."""
    C = both_routes(homogeneous(np.eye(3), [0.0, 0.0, 2 * H - 1e-4]), np.eye(4))
    assert len(C) == 4
    for d, n, pa, pb in C:
        assert d == pytest.approx(-1e-4, abs=1e-12)
        np.testing.assert_allclose(n, [0.0, 0.0, 1.0], atol=1e-12)
    assert {tuple(np.round(c[3][:2], 9)) for c in C} == {(sx * H, sy * H) for sx in (-1, 1) for sy in (-1, 1)}
    C = both_routes(homogeneous(np.eye(3), [0.03, 0.02, 2 * H - 1e-4]), np.eye(4))
    assert {tuple(np.round(c[3][:2], 9)) for c in C} == {(-0.02, -0.03), (0.05, -0.03), (-0.02, 0.05), (0.05, 0.05)}


def test_random_box_pairs_compiled_as_reference():
    """Random boxes near touching (a face, an edge or a corner first): the compiled narrow phase
    finds the reference's contacts in the same order (or hands the pair to the reference)."""
    rng = np.random.default_rng(3)
    a, b = Box((0.2, 0.1, 0.06)), Box((0.15, 0.15, 0.1))
    tried = 0
    for _ in range(400):
        w = rng.standard_normal(3)
        ang = np.linalg.norm(w)
        K = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]]) / ang
        R = np.eye(3) + np.sin(ang) * K + (1 - np.cos(ang)) * K @ K
        if rng.random() < 0.5:
            R = rz(rng.uniform(-np.pi, np.pi))
        T_a = homogeneous(R, rng.uniform(-0.05, 0.05, 3) + [0.0, 0.0, 0.05])
        # the box a dropped onto b: lowered until the boxes are within 1 mm
        lo = T_a.copy()
        for z in np.linspace(0.3, -0.05, 351):
            lo[2, 3] = z
            d = ad.geometry.distance(a, lo, b, np.eye(4))[0]
            if d <= 5e-4:
                break
        ref = contacts(a, lo, b, np.eye(4), 1e-3)
        com = compiled_contacts(a, lo, b, np.eye(4), 1e-3)
        if com is None:
            continue
        tried += 1
        assert len(com) == len(ref)
        for x, y in zip(ref, com):
            assert x[0] == pytest.approx(y[0], abs=1e-10)
            for u, v in zip(x[1:], y[1:]):
                np.testing.assert_allclose(v, u, atol=1e-10)
    assert tried > 300


def test_a_turned_cube_stays_on_a_cube():
    """A cube turned by 0.3 rad about the vertical, resting on a cube on the ground, 0.3 s: it stays
    (before: one contact, it sank 3.5 mm and tilted), on both routes alike."""
    from test_contact_compiled import assert_same
    b = ad.ModelBuilder("two cubes")
    for k in range(2):
        b.add_body(f"cube{k}", "world", "free", mass=1.0, inertia=np.eye(3) * (2 * H) ** 2 / 6)
        b.add_collision(f"cube{k}", CUBE)
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    q[:3] = 0.0, 0.0, H
    q[7:10] = 0.0, 0.0, 3 * H
    q[10:14] = 0.0, 0.0, np.sin(0.15), np.cos(0.15)
    s = ContactSettings(friction=0.5)
    c = simulate_contact(model, q, np.zeros(12), 0.0, 0.3, 1e-3, s, route="compiled")
    r = simulate_contact(model, q, np.zeros(12), 0.0, 0.3, 1e-3, s, route="reference")
    assert_same(c, r)
    assert c.stats["reference_steps"] == []
    np.testing.assert_allclose(c.q[-1], q, atol=1e-6)
    assert len(c.contacts[-1].gap) == 4 + 8
    F = c.contact_forces[-1]
    np.testing.assert_allclose(F[1:, 2], 9.81, rtol=1e-6)          # the net contact force on each: its weight


@pytest.mark.parametrize("yaw", [3e-9, 3e-7, 2e-6])
def test_nearly_parallel_edges_neither_divide_by_zero_nor_invent_crossings(yaw):
    """A cube on a cube shifted by a quarter side and turned by a hair: its x edges run nearly
    along the lower cube's, where |e|^2 |f|^2 - (e.f)^2 cancels to zero (a division by zero inside
    the compiled kernel, found by a 100-cube pile). The contacts are a corner of each cube over the
    other's face and the two crossings of perpendicular edges: four, vertical, at the sink, equal on
    both routes."""
    ref = both_routes(homogeneous(rz(yaw), [H / 2, H / 2, 2 * H - 4e-4]), np.eye(4))
    assert len(ref) == 4
    for d, n, pa, pb in ref:
        assert d == pytest.approx(-4e-4, abs=1e-9) and abs(n[2]) == pytest.approx(1.0, abs=1e-9)
