"""A flexible link as a chain of lumped elements (artidyn.models.flexible) against Euler-Bernoulli beam theory."""
import numpy as np
import pytest
import scipy.linalg

import artidyn as ad
from artidyn.models import cantilever_frequencies, cantilever_roots, flexible_beam

L, EI, MU = 2.0, 3.0, 0.5


def chain_frequencies(model):
    """sqrt of the eigenvalues of M^-1 K: the linearisation at rest (q = 0, no gravity)."""
    M = ad.crba(model, np.zeros(model.nq))
    return np.sqrt(scipy.linalg.eigh(np.diag(model.stiffness), M, eigvals_only=True))


def test_cantilever_roots_and_frequencies():
    x = cantilever_roots(5)
    assert np.allclose(x[:3], (1.8751041, 4.6940911, 7.8547574), atol=1e-7)
    assert np.allclose(1 + np.cos(x) * np.cosh(x), 0, atol=1e-9 * np.cosh(x))
    assert np.allclose(cantilever_frequencies(L, EI, MU), x[:3] ** 2 * np.sqrt(EI / (MU * L**4)))


def test_model_layout():
    m = flexible_beam(L, 4, MU, EI, gravity=(0, 0, 0))
    assert m.nq == m.nv == 4 and m.nb == 4
    assert np.allclose(m.stiffness, EI / (L / 4) * np.array([2, 1, 1, 1]))
    assert np.isclose(sum(m.mass[1:]), MU * L)
    assert np.allclose(ad.frame_placement(m, np.zeros(4), "tip")[:3, 3], (L, 0, 0))
    # a uniform bend q_i = theta puts the tip on a polygon; every joint turns about y (tip goes to -z)
    assert ad.frame_placement(m, np.full(4, 0.1), "tip")[2, 3] < 0


def test_frequencies_converge_to_euler_bernoulli():
    ref = cantilever_frequencies(L, EI, MU)
    err = {n: chain_frequencies(flexible_beam(L, n, MU, EI, gravity=(0, 0, 0)))[:3] / ref - 1 for n in (10, 20, 40)}
    assert np.all(np.abs(err[20]) < [0.002, 0.005, 0.008])          # first frequency 0.11 % at n = 20
    assert np.all(np.abs(err[40]) < [0.0005, 0.0012, 0.002])
    assert np.all(np.abs(err[10] / err[20]) > 3.9) and np.all(np.abs(err[20] / err[40]) > 3.9)   # O(1 / n^2)
    # the plain k = EI / h at the clamp too: first order only (-4.8 % at n = 20)
    e1 = chain_frequencies(flexible_beam(L, 20, MU, EI, clamp_stiffness=1.0, gravity=(0, 0, 0)))[0] / ref[0] - 1
    assert -0.05 < e1 < -0.045


def test_tip_impulse_oscillates_at_the_first_frequency():
    n = 10
    m = flexible_beam(L, n, MU, EI, gravity=(0, 0, 0))
    q0 = np.zeros(n)
    J = ad.jacobian(m, q0, "tip")
    v0 = np.linalg.solve(ad.crba(m, q0), J[5] * 0.01)   # velocity just after a vertical tip impulse of 0.01 N s
    res = ad.simulate(m, q0, v0, t_final=20.0, dt=5e-4, method="rk4")
    z = ad.frame_placement(m, res.q, "tip")[:, 2, 3]
    assert 0.01 < np.abs(z).max() < 0.05                  # small: the linear regime
    zz = (z - z.mean()) * np.hanning(z.size)
    f = np.fft.rfftfreq(16 * z.size, res.t[1] - res.t[0])
    w = 2 * np.pi * f[np.argmax(np.abs(np.fft.rfft(zz, 16 * z.size)))]
    assert abs(w / chain_frequencies(m)[0] - 1) < 0.005
    assert abs(w / cantilever_frequencies(L, EI, MU, 1)[0] - 1) < 0.01


def test_a_beam_bending_in_both_planes_has_both_sets_of_frequencies():
    """planes=2 with EI = (EI_y, EI_z): the linearised chain's frequencies are the union of the two
    planar chains' (exactly: the planes decouple at rest), each near Euler-Bernoulli's; a tip load
    along y bends it about z (the second plane), which the one-plane beam cannot."""
    n = 20
    both = flexible_beam(L, n, MU, (EI, 4 * EI), planes=2, gravity=(0, 0, 0))
    assert both.nq == 2 * n and both.nb == 2 * n and np.isclose(sum(both.mass[1:]), MU * L)
    planar = [chain_frequencies(flexible_beam(L, n, MU, e, gravity=(0, 0, 0))) for e in (EI, 4 * EI)]
    np.testing.assert_allclose(chain_frequencies(both), np.sort(np.concatenate(planar)), rtol=1e-9)
    np.testing.assert_allclose(planar[1][:3] / cantilever_frequencies(L, 4 * EI, MU), 1.0, atol=0.008)
    J = ad.jacobian(both, np.zeros(2 * n), "tip")
    assert np.allclose(J[4, 0::2], 0.0) and np.all(J[4, 1::2] != 0)     # y at the tip: the second joints only
    assert ad.load("flexible_beam").nv == 10 and "flexible_beam" in ad.models.names()


@pytest.mark.parametrize("kwargs, match", [
    (dict(length=0.0), "length must be > 0"),
    (dict(n_elements=0), "n_elements must be >= 1"),
    (dict(n_elements=2.5), "n_elements must be a whole number"),
    (dict(EI=-1.0), "EI must be > 0"),
    (dict(mass_per_length=np.nan), "mass_per_length must be a finite"),
    (dict(bending_axis=(1, 0, 0)), "bending_axis must be a nonzero vector perpendicular"),
    (dict(bending_axis=(0, 1)), "bending_axis must be 3 numbers"),
    (dict(damping=-0.1), "damping must be >= 0"),
    (dict(planes=3), "planes must be 1 or 2"),
    (dict(EI=(1.0, 2.0)), "EI must be a number, got"),
    (dict(EI=(1.0, -2.0), planes=2), "EI must be > 0"),
])
def test_bad_input_names_the_argument(kwargs, match):
    with pytest.raises((ad.InputError, ad.ShapeError), match=match):
        flexible_beam(**kwargs)
