"""Polishing in the ADMM contact solver (artidyn.contact.polish and its compiled twin): the modes
guessed from an iterate, Newton's method on their equations, the result checked by the residuals.
Closed forms (a block sliding, a box resting on four corners), the compiled solver
against the readable one on random problems, and a warm start that the polish finishes."""
import numpy as np
import pytest

from artidyn.contact import polish as P
from artidyn.contact.friction import converged, residuals
from artidyn.contact.solvers import contact_residuals, solve_contacts
from artidyn.kernels import reference_only
from test_contact_solvers import KEYS, random_delassus


@pytest.mark.parametrize("compiled", [True, False])
def test_block_pushed_beyond_friction_slides_without_admm_iterations(compiled):
    """G = I, b = (-1, 2, 1): sticking would need |lam_t| = sqrt(5) > mu lam_n = 0.5, so the block
    slides: lam = (1, -0.5 (2, 1) / sqrt 5), found from a cold start by the polish alone."""
    b = np.array([-1.0, 2.0, 1.0])
    if compiled:
        sol = solve_contacts(np.eye(3), b, 0.5, method="admm")
    else:
        with reference_only():
            sol = solve_contacts(np.eye(3), b, 0.5, method="admm")
    expected = np.r_[1.0, -0.5 * np.array([2.0, 1.0]) / np.sqrt(5.0)]
    np.testing.assert_allclose(sol.lam, expected, atol=1e-13)
    assert sol.status == "converged" and sol.iterations == 0
    assert sol.u[0] == pytest.approx(0.0, abs=1e-13)
    np.testing.assert_allclose(sol.u[1:] / np.linalg.norm(sol.u[1:]), np.array([2.0, 1.0]) / np.sqrt(5.0))


def test_modes_and_corrections_of_one_contact():
    mu = np.array([0.5])
    mode, theta = P.modes(np.array([[1.0, 0.1, 0.0]]), mu)
    assert mode[0] == P.STICK
    mode, theta = P.modes(np.array([[1.0, 0.0, -0.5]]), mu)
    assert mode[0] == P.SLIDE and theta[0] == pytest.approx(-np.pi / 2)
    mode, _ = P.modes(np.array([[0.0, 0.0, 0.0]]), mu)
    assert mode[0] == P.SEPARATED
    mode, _ = P.modes(np.array([[2.0, 0.0, 0.0]]), np.array([0.0]))
    assert mode[0] == P.NORMAL
    # a separated contact that penetrates sticks; a negative normal force separates
    mode = np.array([P.SEPARATED])
    assert P.correct(np.zeros((1, 3)), np.array([[-1.0, 0.0, 0.0]]), mu, mode, np.zeros(1), 1e-10)
    assert mode[0] == P.STICK
    assert P.correct(np.array([[-1.0, 0.0, 0.0]]), np.zeros((1, 3)), mu, mode, np.zeros(1), 1e-10)
    assert mode[0] == P.SEPARATED
    # a slip along the friction force (theta = 0, u_t1 > 0) contradicts sliding: stick
    mode = np.array([P.SLIDE])
    assert P.correct(np.array([[1.0, 0.5, 0.0]]), np.array([[0.0, 1.0, 0.0]]), mu, mode, np.zeros(1), 1e-10)
    assert mode[0] == P.STICK


def test_box_on_four_corners_keeps_the_warm_starts_distribution():
    """A unit cube on four corners (G of rank 6 for 12 rows): the normal forces carry the weight
    (the sum fixed by the equations), and a warm start that splits it unevenly but correctly is
    kept by the polish (the regularised Newton step changes only what the equations fix)."""
    corners = np.array([[x, y, -0.5] for x in (-0.5, 0.5) for y in (-0.5, 0.5)])
    m, inertia = 1.0, np.eye(3) / 6.0
    rows = []
    for c in corners:
        for d in np.eye(3)[[2, 0, 1]]:                      # normal z, tangents x, y
            rows.append(np.r_[d, np.cross(c, d)])
    J = np.array(rows)
    Minv = np.diag(np.r_[np.full(3, 1 / m), 1 / np.diag(inertia)])
    G = J @ Minv @ J.T
    h, g = 1e-3, 9.81
    b = J @ np.r_[0.0, 0.0, -g * h, 0.0, 0.0, 0.0]          # the free velocity after one step of gravity
    warm = np.zeros(12)
    warm[0::3] = m * g * h * np.array([0.4, 0.1, 0.1, 0.4])  # the weight, no moment about x or y
    for compiled in (True, False):
        if compiled:
            sol = solve_contacts(G, b, 0.8, method="admm", warm_start=warm)
        else:
            with reference_only():
                sol = solve_contacts(G, b, 0.8, method="admm", warm_start=warm)
        assert sol.status == "converged" and sol.iterations == 0
        assert sol.lam[0::3].sum() == pytest.approx(m * g * h, rel=1e-10)
        np.testing.assert_allclose(sol.u, 0.0, atol=1e-12)
        assert max(sol.residuals[k] for k in KEYS) <= 1e-10


def test_compiled_and_readable_solvers_agree_on_random_problems():
    rng = np.random.default_rng(3)
    polished = 0
    for trial in range(30):
        k = int(rng.integers(1, 8))
        G, b = random_delassus(rng, k)
        mu = rng.uniform(0.0, 1.0, k)
        mu[rng.uniform(size=k) < 0.2] = 0.0
        warm = None if trial % 2 else np.abs(rng.standard_normal(3 * k))
        c = solve_contacts(G, b, mu, method="admm", warm_start=warm)
        with reference_only():
            r = solve_contacts(G, b, mu, method="admm", warm_start=warm)
        assert c.status == r.status == "converged", (trial, c.status, r.status)
        assert max(c.residuals[key] for key in KEYS) <= 1e-10
        assert contact_residuals(G, b, mu, c.lam) == pytest.approx(c.residuals, abs=1e-14)
        np.testing.assert_allclose(c.lam, r.lam, atol=1e-8)   # G positive definite: one solution
        polished += c.iterations < 8
    assert polished >= 10           # most of them end at the start's polish


def test_polish_refuses_what_it_cannot_solve():
    """An iterate whose modes are wrong beyond what the corrections reach, or a problem without a
    solution (b pulls apart a contact whose G row is zero), returns None: ADMM goes on."""
    G = np.zeros((3, 3))
    b = np.array([-1.0, 0.0, 0.0])                          # no force can stop it: no solution
    assert P.polish(G, b, np.array([0.5]), np.zeros(3), 1e-10, residuals, converged) is None
