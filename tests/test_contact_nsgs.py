"""The compiled non-smooth Gauss-Seidel on the blocks of the Delassus matrix (``solver="pgs"``):
its blocks are those of J M^-1 J^T, its sweeps are the readable ones (the same number, the same
forces), and a contact run with it equals the readable run step for step."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.contact.friction import nsgs as readable_nsgs
from artidyn.kernels.contact_nsgs import solve_rows
from test_contact import ball, box, state
from test_contact_compiled import assert_same, both


def _problem(rng, k, nv, drop=0.3):
    """Rows Y (3k, nv) with some dofs unused by each contact, their spans, and (G, b, mu)."""
    Y = rng.standard_normal((3 * k, nv))
    for c in range(k):                       # a contact touches only some dofs (its bodies')
        Y[3 * c:3 * c + 3, rng.random(nv) < drop] = 0.0
    span = np.zeros((3 * k, 2), np.int64)
    for r in range(3 * k):
        nz = np.nonzero(Y[r])[0]
        span[r] = (nz[0], nz[-1] + 1) if nz.size else (0, 0)
    return Y, span, Y @ Y.T, rng.standard_normal(3 * k), rng.choice([0.0, 0.4, 1.0], k)


def test_blocks_are_those_of_the_delassus_matrix():
    rng = np.random.default_rng(0)
    for trial in range(20):
        k, nv = 1 + trial % 7, 4 + trial % 9
        Y, span, G, b, mu = _problem(rng, k, nv, drop=0.6)
        *_, BO, BC, BV = solve_rows(Y, span, b, mu, 1e-10, 1, np.zeros(3 * k))
        dense = np.zeros_like(G)
        for c in range(k):
            assert BC[BO[c]] == c                     # the diagonal block first
            for e in range(BO[c], BO[c + 1]):
                d = BC[e]
                dense[3 * c:3 * c + 3, 3 * d:3 * d + 3] = BV[e]
        np.testing.assert_allclose(dense, G, atol=1e-13)
        used = [set(np.nonzero(np.any(Y[3 * c:3 * c + 3] != 0, axis=0))[0]) for c in range(k)]
        for c in range(k):                            # a block exactly where the supports meet
            assert set(BC[BO[c]:BO[c + 1]]) == {d for d in range(k) if used[c] & used[d]} | {c}


def test_sweeps_equal_the_readable_ones():
    rng = np.random.default_rng(2)
    statuses = set()
    for trial in range(30):
        k, nv = 1 + trial % 6, 4 + trial % 5
        Y, span, G, b, mu = _problem(rng, k, nv)
        lam = np.zeros(3 * k)
        status, sweeps, u, *_ = solve_rows(Y, span, b, mu, 1e-10, 500, lam)
        ref_lam, ref_u, _, ref_it, ref_status = readable_nsgs(G, b, mu, 1e-10, 500)
        assert sweeps == ref_it
        assert ("converged", "max_iterations", "no_solution")[status] == ref_status
        np.testing.assert_allclose(lam, ref_lam, atol=1e-9 * (1 + np.abs(ref_lam).max()))
        np.testing.assert_allclose(u, ref_u, atol=1e-9 * (1 + np.abs(ref_u).max()))
        statuses.add(ref_status)
    assert statuses == {"converged", "max_iterations"}      # both endings met


@pytest.mark.parametrize("scene", ["box thrown spinning", "bouncing ball"])
def test_contact_run_with_pgs_equals_the_readable_run(scene):
    if scene == "box thrown spinning":
        model = box()
        q, v = state(model, 0.2, v_lin=(1.0, 0.0, 0.0), omega=(0.5, 1.0, 0.3))
        s, t_final = ContactSettings(friction=0.5, solver="pgs"), 0.6
    else:
        model = ball()
        q, v = state(model, 0.5)
        s, t_final = ContactSettings(restitution=0.8, solver="pgs"), 1.0
    c, r = both(model, q, v, s, t_final)
    assert_same(c, r)
    assert c.stats["solver_iterations"] > 0
    a = ad.simulate(model, q, v, t_final=t_final, contact=ContactSettings(friction=s.friction,
                                                                          restitution=s.restitution))
    # the ADMM's motion: the same problems; a box on four corners (redundant contacts, the force
    # distribution not unique) ends within 0.1 mm of it after 0.6 s of sliding and tumbling
    np.testing.assert_allclose(c.q[-1], a.q[-1], atol=1e-4 if scene == "box thrown spinning" else 1e-9)


def test_pgs_with_constraints_is_refused_on_the_compiled_route():
    from artidyn.constraints import Point
    model = ball()
    q, v = state(model, 0.3)
    with pytest.raises(ad.InputError, match="pgs"):
        ad.rollout(model, np.stack([q, q]), None, t_final=0.01, contact=ContactSettings(solver="pgs"),
                   constraints=[Point(model.body_names[1], None, target=q[:3])])


def test_a_slide_whose_polynomial_loses_its_leading_terms():
    """An isotropic contact (A = diag(1, 2, 2)) pushed sideways beyond its cone: the sliding
    direction's quartic has zero leading and trailing terms (its degree drops), which the
    readable solver's numpy.roots strips; the compiled one must too (it raised a division by zero)."""
    A, c, mu = np.diag([1.0, 2.0, 2.0]), np.array([-1.0, 3.0, 0.0]), np.array([0.5])
    Y = np.linalg.cholesky(A)
    lam = np.zeros(3)
    status, sweeps, u, res, *_ = solve_rows(Y, np.array([[0, 1], [0, 2], [0, 3]]), c, mu, 1e-12, 50, lam)
    ref_lam, *_ = readable_nsgs(A, c, mu, 1e-12, 50)
    np.testing.assert_allclose(lam, ref_lam, atol=1e-12)
    np.testing.assert_allclose(lam, [1.0, -0.5, 0.0], atol=1e-12)        # sliding: |lam_t| = mu lam_n, against u_t
    assert status == 0 and u[0] == pytest.approx(0.0, abs=1e-12) and u[1] > 0


def test_a_fault_inside_the_compiled_run_is_a_simulation_error(monkeypatch):
    """numba turns a float division by zero into Python's ZeroDivisionError and leaves it as a
    bare SystemError: the pipeline names the model, the time and the readable route instead."""
    from artidyn.kernels import scene_run

    def faulty(*args):
        try:
            raise ZeroDivisionError("division by zero")
        except ZeroDivisionError as e:
            raise SystemError("CPUDispatcher returned a result with an exception set") from e

    model = ball()
    q, v = state(model, 0.3)
    monkeypatch.setattr(scene_run, "contact_chunk", faulty)
    with pytest.raises(ad.SimulationError, match=r"'ball'.*t = 0 s \(ZeroDivisionError: division by zero\).*"
                                                 r"route='reference'"):
        ad.simulate(model, q, v, t_final=0.01, contact=ContactSettings())
