"""Contact solvers (artidyn.contact.solvers): LCPs with planted solutions, Lemke's ray
termination, a box on 4 corners (singular Delassus matrix), a block on a plane in closed form,
PGS against ADMM on random frictional problems, the pyramid inside the cone, warm starts, bad
input."""
import numpy as np
import pytest

from artidyn.contact.solvers import (contact_residuals, lcp_residual, lemke, pgs_lcp,
                                     project_cone, solve_contacts)
from artidyn.errors import InputError, ShapeError

TOL = 1e-10
KEYS = ("signorini", "cone", "dual", "natural map")


def planted_lcp(rng, n, kind):
    """(M, q, z, w) with z, w >= 0 complementary and q = w - M z."""
    A = rng.standard_normal((n, n))
    if kind == "spd":
        M = A @ A.T + 0.1 * np.eye(n)
    elif kind == "p":                                  # positive definite, not symmetric
        M = A @ A.T + 0.1 * np.eye(n) + (A - A.T)
    else:                                              # "psd": rank n // 2
        B = rng.standard_normal((n, max(1, n // 2)))
        M = B @ B.T
    support = rng.uniform(size=n) < 0.5
    z = np.where(support, rng.uniform(0.5, 2.0, n), 0.0)
    w = np.where(support, 0.0, rng.uniform(0.5, 2.0, n))
    return M, w - M @ z, z, w


def random_delassus(rng, k, extra=3):
    """G = J W J^T with J (3k, 3k + extra) (positive definite when extra >= 0), b pressing."""
    n = 3 * k + extra
    J = rng.standard_normal((3 * k, n))
    G = J @ np.diag(rng.uniform(0.5, 2.0, n)) @ J.T
    b = rng.standard_normal(3 * k)
    b[0::3] = -np.abs(b[0::3])
    return G, b


def skew(p):
    return np.array([[0, -p[2], p[1]], [p[2], 0, -p[0]], [-p[1], p[0], 0]])


def box_on_plane(m=2.0, a=0.3, c=0.2, h=0.1):
    """A free box (v = [omega; v] at its centre) on 4 corners: J (12, 6), M^-1, G of rank 6.
    Contact rows: normal z, then tangents x, y."""
    I = m / 12 * np.diag([(2 * c) ** 2 + (2 * h) ** 2, (2 * a) ** 2 + (2 * h) ** 2,
                          (2 * a) ** 2 + (2 * c) ** 2])
    Minv = np.zeros((6, 6))
    Minv[:3, :3], Minv[3:, 3:] = np.linalg.inv(I), np.eye(3) / m
    J = np.vstack([np.hstack([-skew(p), np.eye(3)])[[2, 0, 1]]
                   for p in ([a, c, -h], [a, -c, -h], [-a, c, -h], [-a, -c, -h])])
    return J, Minv, J @ Minv @ J.T


# --- linear complementarity ------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["spd", "p"])
def test_lemke_recovers_planted_solution(rng, kind):
    for n in (1, 2, 5, 8, 12):
        M, q, z, w = planted_lcp(rng, n, kind)
        sol = lemke(M, q)
        assert sol.status == "converged"
        np.testing.assert_allclose(sol.z, z, atol=1e-9)   # unique: M is a P-matrix
        np.testing.assert_allclose(sol.w, w, atol=1e-9)
        assert sol.residuals["natural map"] < 1e-9


def test_pgs_lcp_recovers_planted_solution_with_over_relaxation(rng):
    for n in (1, 4, 10):
        M, q, z, w = planted_lcp(rng, n, "spd")
        plain = pgs_lcp(M, q, tol=1e-12, max_iter=20000)
        sor = pgs_lcp(M, q, tol=1e-12, max_iter=20000, omega=1.3)
        for sol in (plain, sor):
            assert sol.status == "converged"
            np.testing.assert_allclose(sol.z, z, atol=1e-8)
            assert max(sol.residuals[k] for k in ("cone", "dual", "natural map")) <= 1e-12


def test_lcp_psd_singular_w_unique_z_free(rng):
    """Positive semi-definite M: w and M z are unique, z need not be."""
    for n in (4, 6, 9):
        M, q, z, w = planted_lcp(rng, n, "psd")
        for sol in (lemke(M, q), pgs_lcp(M, q, tol=1e-12, max_iter=50000)):
            assert sol.status == "converged"
            np.testing.assert_allclose(sol.w, w, atol=1e-8)
            np.testing.assert_allclose(M @ sol.z, M @ z, atol=1e-8)


def test_lemke_trivial_and_hand_computed():
    sol = lemke(np.eye(2), [1.0, 2.0])
    assert sol.iterations == 0 and np.all(sol.z == 0) and sol.status == "converged"
    # w1 = 2 z1 + z2 - 5, w2 = z1 + 2 z2 - 6: both active, z = (4/3, 7/3)
    sol = lemke([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0], cover=[1.0, 2.0])
    np.testing.assert_allclose(sol.z, [4 / 3, 7 / 3], atol=1e-14)
    res = lcp_residual([[2.0, 1.0], [1.0, 2.0]], [-5.0, -6.0], [1.0, 0.0])    # w = (-3, -5)
    assert res == {"complementarity": 3.0, "cone": 0.0, "dual": 5.0, "natural map": 5.0}


def test_lemke_is_scale_invariant(rng):
    M, q, z, w = planted_lcp(rng, 6, "spd")
    for s in (1e-8, 1e8):
        sol = lemke(s * M, q)
        assert sol.status == "converged"
        np.testing.assert_allclose(s * sol.z, z, rtol=1e-8, atol=1e-9)


def test_pgs_lcp_stalls_on_infeasible_psd_row():
    """Row 2 of M is zero and q_2 < 0: w_2 = -1 whatever z: reported once a sweep stalls."""
    sol = pgs_lcp(np.diag([1.0, 0.0]), [-1.0, -1.0])
    assert sol.status == "no_solution" and sol.iterations == 2
    np.testing.assert_allclose(sol.z, [1.0, 0.0])


@pytest.mark.parametrize("M, q", [([[-1.0]], [-1.0]),                    # w = -z - 1 < 0
                                  ([[1.0, -1.0], [-1.0, 1.0]], [-1.0, -1.0])])  # w1 + w2 = -2
def test_lemke_reports_infeasible_lcp(M, q):
    """No z >= 0 gives w >= 0: Lemke ends on a secondary ray, reported, not raised."""
    sol = lemke(M, q)
    assert sol.status == "no_solution"
    assert np.all(np.isfinite(sol.z)) and np.all(np.isfinite(sol.w))
    assert sol.residuals["natural map"] > 0


def test_lemke_may_miss_solutions_of_non_copositive_lcp():
    """M not copositive: z = (1, 2) solves the LCP but Lemke's path ends on a ray. The status
    says 'no_solution' (Lemke found none), which only proves infeasibility for copositive-plus M."""
    M, q = np.array([[-3.0, 3.0], [3.0, -1.0]]), np.array([-3.0, -1.0])
    assert lcp_residual(M, q, [1.0, 2.0])["natural map"] == 0.0
    assert lemke(M, q).status == "no_solution"


# --- the box on 4 corners: G singular (rank 6 of 12) ------------------------------------------

def box_step(vx, vy, dt=0.01, g=9.81):
    J, Minv, G = box_on_plane()
    v = np.array([0, 0, 0, vx, vy, -g * dt])
    return J, Minv, G, J @ v


@pytest.mark.parametrize("method", ["pgs", "admm", "lemke"])
def test_box_frictionless_redundant_contacts(method):
    """Resting box: u = 0 at the 4 corners, total normal impulse m g dt, no moment, whatever
    the split among the corners (not unique)."""
    J, Minv, G, b = box_step(0.3, -0.2)
    sol = solve_contacts(G, b, 0.0, method=method)
    assert sol.status == "converged"
    np.testing.assert_allclose(sol.u[0::3], 0.0, atol=1e-9)
    np.testing.assert_allclose(sol.u[1::3], 0.3, atol=1e-9)      # slides freely
    v_plus = (J @ np.array([0, 0, 0, 0.3, -0.2, -0.0981]) + G @ sol.lam)
    np.testing.assert_allclose(v_plus, sol.u, atol=1e-12)
    impulse = J.T @ sol.lam                                       # [moment; force] at the centre
    np.testing.assert_allclose(impulse, [0, 0, 0, 0, 0, 2.0 * 9.81 * 0.01], atol=1e-9)
    lcp = (lemke if method == "lemke" else pgs_lcp)(G[0::3, 0::3], b[0::3])
    np.testing.assert_allclose(lcp.w, sol.u[0::3], atol=1e-9)


@pytest.mark.parametrize("method", ["pgs", "admm"])
@pytest.mark.parametrize("vx, vy", [(0.5, 0.15), (-0.02, 0.03), (0.01, 0.0)])
def test_box_with_friction_slides_or_sticks_in_closed_form(method, vx, vy):
    """Box sliding at v_t: every corner keeps u_n = 0 and u_t = v_t (1 - mu g dt / |v_t|) when
    |v_t| > mu g dt, else sticks (u = 0); each corner's friction is mu lam_n against the slip."""
    mu, dt, g = 0.3, 0.01, 9.81
    J, Minv, G, b = box_step(vx, vy, dt, g)
    sol = solve_contacts(G, b, mu, method=method)
    assert sol.status == "converged"
    assert max(sol.residuals[k] for k in KEYS) <= TOL
    vt = np.array([vx, vy])
    speed = np.linalg.norm(vt)
    slip = vt * max(0.0, 1 - mu * g * dt / speed)
    U, L = sol.u.reshape(4, 3), sol.lam.reshape(4, 3)
    np.testing.assert_allclose(U[:, 0], 0.0, atol=1e-9)
    np.testing.assert_allclose(U[:, 1:], np.tile(slip, (4, 1)), atol=1e-9)
    np.testing.assert_allclose(L[:, 0].sum(), 2.0 * g * dt, rtol=1e-9)
    if speed > mu * g * dt:
        np.testing.assert_allclose(L[:, 1:], -mu * L[:, :1] * vt / speed, atol=1e-9)


# --- one contact, G = I / m: a block on a plane -----------------------------------------------

@pytest.mark.parametrize("method, cone", [("pgs", "soc"), ("admm", "soc"), ("lemke", "pyramid"),
                                          ("pgs", "pyramid")])
def test_block_on_plane_stick_and_slide(method, cone):
    """G = I / m, b = (b_n < 0, b_t): lam_n = -m b_n; stick (u = 0) when m |b_t| <= mu lam_n,
    else slide with lam_t = -mu lam_n b_t / |b_t| and u_t = b_t + lam_t / m (along b_t)."""
    m, mu, bn = 2.0, 0.5, -1.0
    G = np.eye(3) / m
    dirs = [np.array([1.0, 0.0]), np.array([0.0, -1.0])]
    if cone == "soc":
        dirs.append(np.array([0.6, 0.8]))
    for d in dirs:
        for speed in (0.2, 0.5, 3.0):                 # threshold: mu lam_n / m = 0.5
            bt = speed * d
            sol = solve_contacts(G, np.r_[bn, bt], mu, method=method, cone=cone)
            assert sol.status == "converged"
            lam_n = -m * bn
            if speed <= mu * lam_n / m:
                lam_t, u_t = -m * bt, 0 * bt
            else:
                lam_t = -mu * lam_n * d
                u_t = bt + lam_t / m
            np.testing.assert_allclose(sol.lam, np.r_[lam_n, lam_t], atol=1e-9)
            np.testing.assert_allclose(sol.u, np.r_[0.0, u_t], atol=1e-9)
    sol = solve_contacts(G, [0.3, 5.0, 1.0], mu, method=method, cone=cone)   # taking off
    np.testing.assert_allclose(sol.lam, 0.0, atol=1e-12)


def test_single_contact_general_block(rng):
    """A full 3x3 G (normal-tangent coupling): the exact local solver and ADMM agree."""
    for _ in range(20):
        A = rng.standard_normal((3, 3))
        G = A @ A.T + 0.2 * np.eye(3)
        b = np.r_[-rng.uniform(0.1, 1.0), rng.standard_normal(2)]
        mu = rng.uniform(0.1, 1.0)
        p = solve_contacts(G, b, mu, method="pgs")
        a = solve_contacts(G, b, mu, method="admm")
        assert p.status == a.status == "converged"
        assert max(p.residuals[k] for k in KEYS) <= 1e-12      # one exact local solve
        np.testing.assert_allclose(p.u, a.u, atol=1e-8)


# --- random frictional problems ---------------------------------------------------------------

def test_pgs_and_admm_agree_on_random_problems(rng):
    for trial in range(8):
        k = int(rng.integers(2, 7))
        G, b = random_delassus(rng, k)
        mu = rng.uniform(0.0, 0.9, k)
        mu[rng.uniform(size=k) < 0.2] = 0.0               # some frictionless contacts
        p = solve_contacts(G, b, mu, method="pgs", tol=TOL)
        a = solve_contacts(G, b, mu, method="admm", tol=TOL)
        for sol in (p, a):
            assert sol.status == "converged", (trial, sol.status, sol.residuals)
            assert max(sol.residuals[key] for key in KEYS) <= TOL
            assert sol.residuals["complementarity"] <= 1e-8
            chk = contact_residuals(G, b, mu, sol.lam)
            assert chk == pytest.approx(sol.residuals, abs=1e-14)
        np.testing.assert_allclose(p.u, a.u, atol=1e-6)
        np.testing.assert_allclose(p.lam, a.lam, atol=1e-6)   # G positive definite


def test_admm_on_redundant_random_problem(rng):
    """More contact rows than degrees of freedom (G singular): ADMM and PGS agree on u."""
    for k in (3, 5):
        G, b = random_delassus(rng, k, extra=-k)            # rank 2k of 3k
        p = solve_contacts(G, b, 0.0, method="pgs")
        a = solve_contacts(G, b, 0.0, method="admm")
        exact = solve_contacts(G, b, 0.0, method="lemke")
        for sol in (p, a, exact):
            assert sol.status == "converged"
            np.testing.assert_allclose(sol.u[0::3], exact.u[0::3], atol=1e-8)


def test_pyramid_solution_lies_in_the_cone(rng):
    for _ in range(10):
        k = int(rng.integers(1, 6))
        G, b = random_delassus(rng, k)
        mu = rng.uniform(0.0, 1.0, k)
        lem = solve_contacts(G, b, mu, cone="pyramid")
        pgs = solve_contacts(G, b, mu, cone="pyramid", method="pgs")
        for sol in (lem, pgs):
            assert sol.status == "converged"
            assert max(sol.residuals[key] for key in KEYS) <= 1e-9
            L = sol.lam.reshape(-1, 3)
            assert np.all(np.abs(L[:, 1]) + np.abs(L[:, 2]) <= mu * L[:, 0] + 1e-9)  # diamond
            assert contact_residuals(G, b, mu, sol.lam)["cone"] <= 1e-12           # in K_mu
            assert np.all(sol.u[0::3] >= -1e-9)
        np.testing.assert_allclose(lem.u, pgs.u, atol=1e-7)


def test_lemke_on_a_degenerate_pyramid_with_20_contacts():
    """z0 reaches 0 in a tie of the ratio test: it must leave then (this case ended on a false
    ray when another row was chosen)."""
    G, b = random_delassus(np.random.default_rng(0), 20, extra=20)
    lem = solve_contacts(G, b, 0.5, cone="pyramid")
    pgs = solve_contacts(G, b, 0.5, cone="pyramid", method="pgs")
    assert lem.status == pgs.status == "converged"
    assert max(lem.residuals.values()) < 1e-9
    np.testing.assert_allclose(lem.u, pgs.u, atol=1e-7)
    again = solve_contacts(G, b, 0.5, cone="pyramid", method="pgs", warm_start=lem.lam)
    assert again.iterations < pgs.iterations


def test_warm_start_reduces_iterations(rng):
    G, b = random_delassus(rng, 6)
    mu = 0.6
    for method in ("pgs", "admm"):
        first = solve_contacts(G, b, mu, method=method)
        again = solve_contacts(G, b, mu, method=method, warm_start=first.lam)
        assert again.status == "converged" and again.iterations <= 1
        b2 = b + 1e-4 * rng.standard_normal(b.size)          # the next time step
        cold = solve_contacts(G, b2, mu, method=method)
        warm = solve_contacts(G, b2, mu, method=method, warm_start=first.lam)
        assert cold.status == warm.status == "converged"
        assert warm.iterations < cold.iterations, (method, warm.iterations, cold.iterations)
        np.testing.assert_allclose(warm.u, cold.u, atol=1e-8)


# --- the cone ---------------------------------------------------------------------------------

def test_project_cone_cases_and_variational_inequality(rng):
    mu = 0.5
    np.testing.assert_allclose(project_cone([1.0, 0.3, 0.2], mu), [1.0, 0.3, 0.2])   # inside
    np.testing.assert_allclose(project_cone([-1.0, 0.3, 0.0], mu), 0.0)              # polar
    # boundary: n' = (n + mu |t|) / (1 + mu^2) = (1 + 1) / 1.25, t' = mu n' t / |t|
    np.testing.assert_allclose(project_cone([1.0, 0.0, 2.0], mu), [1.6, 0.0, 0.8])
    np.testing.assert_allclose(project_cone([-2.0, 1.0, 1.0], 0.0), 0.0)
    np.testing.assert_allclose(project_cone([2.0, 1.0, 1.0], 0.0), [2.0, 0.0, 0.0])
    X = 3 * rng.standard_normal((200, 3))
    mus = rng.uniform(0.0, 2.0, 200)
    P = project_cone(X, mus)
    assert P.shape == X.shape
    np.testing.assert_allclose(project_cone(P, mus), P, atol=1e-14)                  # idempotent
    assert np.all(np.linalg.norm(P[:, 1:], axis=1) <= mus * P[:, 0] + 1e-12)
    R = X - P                                        # in the polar cone, orthogonal to P
    np.testing.assert_allclose(np.sum(R * P, axis=1), 0.0, atol=1e-12)
    Y = project_cone(rng.standard_normal((200, 3)), mus)                              # in K
    assert np.all(np.sum(R * Y, axis=1) <= 1e-12)
    np.testing.assert_allclose(project_cone(X.ravel(), mus), P.ravel())


def test_contact_residuals_flag_each_violation():
    G, b, mu = np.eye(3), np.array([-1.0, 0.2, 0.0]), 0.5
    sol = solve_contacts(G, b, mu)
    assert max(contact_residuals(G, b, mu, sol.lam).values()) < 1e-14
    bad = contact_residuals(G, b, mu, [1.0, -1.0, 0.0])       # outside the cone
    assert bad["cone"] > 0.1 and bad["natural map"] > 0.1
    bad = contact_residuals(G, b, mu, [0.5, -0.2, 0.0])       # u_n = -0.5 < 0: penetrating
    assert bad["dual"] > 0.1 and bad["signorini"] > 0.1


# --- robustness -------------------------------------------------------------------------------

def test_no_solution_is_reported_never_nan():
    """A contact the bodies cannot push (G = 0) while b_n < 0."""
    G, b = np.zeros((3, 3)), np.array([-1.0, 0.0, 0.0])
    for method in ("pgs", "admm"):
        for mu in (0.0, 0.5):
            sol = solve_contacts(G, b, mu, method=method, max_iter=200)
            assert sol.status in ("no_solution", "max_iterations")
            assert np.all(np.isfinite(sol.lam)) and np.all(np.isfinite(sol.u))
            assert all(np.isfinite(v) for v in sol.residuals.values())
    assert solve_contacts(G, b, 0.0, method="lemke").status == "no_solution"


def test_empty_problem():
    sol = solve_contacts(np.zeros((0, 0)), np.zeros(0), 0.3)
    assert sol.lam.shape == (0,) and sol.status == "converged" and sol.iterations == 0


@pytest.mark.parametrize("kwargs, error, text", [
    (dict(G=np.full((3, 3), np.nan)), InputError, "G[0, 0] = nan"),
    (dict(b=[-1.0, np.inf, 0.0]), InputError, "b[1] = inf"),
    (dict(G=np.eye(4), b=np.zeros(4)), ShapeError, "3 per contact"),
    (dict(G=np.eye(6)), ShapeError, "expected G of shape (3, 3)"),
    (dict(G=np.eye(3)[:, :2]), ShapeError, "G has shape (3, 2)"),
    (dict(mu=-0.1), InputError, "mu[0] = -0.1"),
    (dict(mu=[0.1, 0.2]), ShapeError, "one per contact"),
    (dict(mu=np.nan), InputError, "mu"),
    (dict(G=[[1.0, 0.5, 0], [0, 1, 0], [0, 0, 1]]), InputError, "not symmetric"),
    (dict(method="newton"), InputError, "method = 'newton'"),
    (dict(cone="box"), InputError, "cone = 'box'"),
    (dict(method="lemke"), InputError, "cone='pyramid'"),
    (dict(method="admm", cone="pyramid"), InputError, "not 'admm'"),
    (dict(tol=0.0), InputError, "tol = 0.0"),
    (dict(max_iter=0), InputError, "max_iter = 0"),
    (dict(warm_start=np.zeros(6)), ShapeError, "warm_start has 6 entries"),
    (dict(G=-np.eye(3), method="admm"), InputError, "not positive semi-definite"),
])
def test_bad_input_raises_clear_errors(kwargs, error, text):
    args = dict(G=np.eye(3), b=np.array([-1.0, 0.0, 0.0]), mu=0.5) | kwargs
    with pytest.raises(error) as e:
        solve_contacts(args.pop("G"), args.pop("b"), args.pop("mu"), **args)
    assert text in str(e.value)
    assert isinstance(e.value, ValueError)


def test_bad_input_lcp_and_cone():
    with pytest.raises(ShapeError, match="expected M of shape"):
        lemke(np.eye(2), [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="q\\[0\\] = nan"):
        pgs_lcp(np.eye(1), [np.nan])
    with pytest.raises(InputError, match="omega"):
        pgs_lcp(np.eye(1), [-1.0], omega=2.0)
    with pytest.raises(InputError, match="non-negative diagonal"):
        pgs_lcp(-np.eye(1), [-1.0])
    with pytest.raises(InputError, match="cover"):
        lemke(np.eye(1), [-1.0], cover=[0.0])
    with pytest.raises(ShapeError, match="lam has shape"):
        project_cone(np.zeros(4), 0.5)
    with pytest.raises(ShapeError, match="z has 1 entries"):
        lcp_residual(np.eye(2), [1.0, 1.0], [0.0])
