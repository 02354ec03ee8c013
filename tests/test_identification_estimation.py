"""Identification from data: named grouping rules (Gautier & Khalil), filtering and least squares,
physically consistent estimation, excitation trajectories, report and the ``identify`` CLI."""
import numpy as np
import pytest

import artidyn
from artidyn import cli
from artidyn.identification import (base_parameters, check_physical, grouped_parameters, identify,
                                    least_squares, model_to_parameters, n_parameters, regressor)
from artidyn.identification.base import random_states
from artidyn.identification.estimation import differentiate, parallel_decimate, weighted_least_squares
from artidyn.identification.excitation import FourierTrajectory, dof_names, optimize_excitation
from artidyn.identification.grouping import transfer_matrix
from artidyn.identification.parameters import body_columns
from artidyn.identification.physical import (log_cholesky_jacobian, log_cholesky_to_parameters,
                                             parameters_to_log_cholesky, physical_estimate, pseudo_inertia)
from artidyn.models.builtin import planar_2r


def with_friction(model, rng):
    return model.replace(armature=rng.uniform(0.05, 0.5, model.nv), damping=rng.uniform(0.1, 1, model.nv),
                         coulomb=rng.uniform(0.1, 1, model.nv))


def ur5():
    try:
        return artidyn.load("ur5_robot")
    except Exception as exc:  # example-robot-data missing: say so
        pytest.skip(f"example-robot-data's ur5_robot is not available ({exc})")


def fourier(model, rng, L=4, period=4.0, amplitude=0.6):
    """A random finite Fourier series about the middle of the joint ranges (Swevers et al.)."""
    lo, hi = np.where(np.isfinite(model.lower), model.lower, -np.pi), np.where(np.isfinite(model.upper), model.upper, np.pi)
    a, b = rng.standard_normal((2, model.nv, L)) * amplitude
    return FourierTrajectory(a, b, 0.5 * (lo + hi), 2 * np.pi / period)


# --- grouping rules --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["planar2r", "cart_pendulum", "puma560", "rx90", "ur5_robot"])
def test_grouping_spans_the_qr_base(name):
    m = artidyn.load(name) if name != "ur5_robot" else ur5()
    m = with_friction(m, np.random.default_rng(1))
    g = grouped_parameters(m)
    b = base_parameters(m, rng=3)
    assert g.unresolved == []
    assert g.rank == b.rank == len(g.names) == len(set(g.names))
    # the same row space: stacking the two grouping matrices adds no rank
    assert np.linalg.matrix_rank(np.vstack([g.G, b.G]), tol=1e-8) == b.rank
    # and the named base regressor reproduces the torques
    q, v, a = random_states(m, 6, np.random.default_rng(2))
    Y, pi = regressor(m, q, v, a), model_to_parameters(m)
    tau = artidyn.rnea(m, q, v, a)
    assert np.abs(g.regressor(Y) @ g.beta(pi) - tau).max() < 1e-10 * (1 + np.abs(tau).max())
    W = g.regressor(regressor(m, *random_states(m, 40, np.random.default_rng(4)))).reshape(-1, g.rank)
    assert np.linalg.matrix_rank(W) == g.rank


def test_grouping_refuses_what_its_rules_do_not_cover():
    from artidyn.errors import ModelError
    from artidyn.models.zoo import random_tree
    with pytest.raises(ModelError, match="not along a body-frame axis"):
        grouped_parameters(random_tree(1, nb=3, joint_types=("revolute",)))
    with pytest.raises(ModelError, match="root_joint.*one-dof"):
        grouped_parameters(random_tree(2, nb=3, floating=True, joint_types=("revolute",)))
    # a prismatic joint: its body's inertia moves to the parent (cart-pendulum: the cart keeps M1R)
    g = grouped_parameters(artidyn.load("cart_pendulum"))
    assert any(e.startswith("MR1 = M1 + M2") for e in g.expressions), g.expressions


def _standard(m, i):
    """Khalil's standard parameters of body i from the model's mass, com and inertia at the com."""
    mass, c, I_G = m.mass[i], np.asarray(m.com[i]), np.asarray(m.inertia_com[i])
    I_O = I_G + mass * (c @ c * np.eye(3) - np.outer(c, c))
    return dict(M=mass, MX=mass * c[0], MY=mass * c[1], MZ=mass * c[2], XX=I_O[0, 0], XY=I_O[0, 1],
                XZ=I_O[0, 2], YY=I_O[1, 1], YZ=I_O[1, 2], ZZ=I_O[2, 2])


def test_grouping_named_values_planar_2r():
    """Khalil's base parameters of the planar 2R: ZZR1 = ZZ1 + Ia1 + l1^2 M2, MXR1 = MX1 + l1 M2."""
    l1 = 0.7
    m = with_friction(planar_2r(l1=l1, l2=0.5), np.random.default_rng(5))
    g = grouped_parameters(m)
    beta = dict(zip(g.names, g.beta(model_to_parameters(m))))
    s1, s2 = _standard(m, 1), _standard(m, 2)
    assert sorted(n for n in g.names if not n[:2] in ("Fv", "Fc", "of")) == \
        ["Ia2", "MX2", "MXR1", "MY1", "MY2", "ZZ2", "ZZR1"]
    assert beta["ZZR1"] == pytest.approx(s1["ZZ"] + m.armature[0] + l1 ** 2 * s2["M"], rel=1e-12)
    assert beta["MXR1"] == pytest.approx(s1["MX"] + l1 * s2["M"], rel=1e-12)
    assert beta["ZZ2"] == pytest.approx(s2["ZZ"], rel=1e-12)
    assert beta["Ia2"] == pytest.approx(m.armature[1]) and beta["Fv1"] == pytest.approx(m.damping[0])
    assert "ZZR1 = ZZ1 + 0.49*M2 + Ia1" in g.expressions


def test_grouping_named_values_puma560():
    """Khalil's relations for the Puma 560 (axes 2 and 3 parallel at distance a2, a3 along x,
    d3 offset): MXR2, XXR2, ZZR2, XXR6, MYR5 from the model's masses and inertias."""
    m = artidyn.load("puma560")
    g = grouped_parameters(m)
    beta = dict(zip(g.names, g.beta(model_to_parameters(m))))
    s = [None] + [_standard(m, i) for i in range(1, 7)]
    a2 = m.joint_placement[3][0, 3]
    assert a2 == pytest.approx(0.4318)
    M36 = sum(s[i]["M"] for i in range(3, 7))
    assert beta["MXR2"] == pytest.approx(s[2]["MX"] + a2 * M36, rel=1e-12)
    assert beta["XXR2"] == pytest.approx(s[2]["XX"] - s[2]["YY"] - a2 ** 2 * M36, rel=1e-12)
    assert beta["ZZR2"] == pytest.approx(s[2]["ZZ"] + a2 ** 2 * M36 + m.armature[1], rel=1e-12)
    assert beta["XXR6"] == pytest.approx(s[6]["XX"] - s[6]["YY"], rel=1e-12, abs=1e-15)
    assert beta["ZZ6"] == pytest.approx(s[6]["ZZ"]) and beta["MX6"] == pytest.approx(s[6]["MX"], abs=1e-15)
    # joint 1 vertical: link 1 keeps only ZZR1, its first moments and other inertias have no effect
    assert [n for n in g.names if n.endswith("1") and n[:2] not in ("Fv", "Fc", "of")] == ["ZZR1"]
    assert "M1" not in g.names and "MY1" not in g.names


def test_transfer_matrix_moves_point_masses():
    """Parameters of point masses computed in the child frame and transported equal those
    computed directly in the parent frame."""
    rng = np.random.default_rng(6)
    from artidyn.spatial.rotations import rpy_to_matrix
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = rpy_to_matrix(rng.uniform(-2, 2, 3)), rng.standard_normal(3)
    masses, r = rng.uniform(0.1, 2, 5), rng.standard_normal((5, 3))

    def params(points):
        I = sum(mk * (p @ p * np.eye(3) - np.outer(p, p)) for mk, p in zip(masses, points))
        h = masses @ points
        return np.r_[masses.sum(), h, I[0, 0], I[0, 1], I[0, 2], I[1, 1], I[1, 2], I[2, 2]]

    assert np.allclose(transfer_matrix(T) @ params(r), params(r @ T[:3, :3].T + T[:3, 3]), atol=1e-12)


# --- physical parametrisation -----------------------------------------------------------------

def test_log_cholesky_round_trip_and_jacobian():
    rng = np.random.default_rng(7)
    for _ in range(5):
        theta = rng.standard_normal(10)
        p = log_cholesky_to_parameters(theta)
        assert np.linalg.eigvalsh(pseudo_inertia(p))[0] > 0
        check_physical("log-Cholesky body", p)
        assert np.allclose(parameters_to_log_cholesky(p, floor=0.0), theta, atol=1e-10)
        e = 1e-6
        fd = np.array([(log_cholesky_to_parameters(theta + e * d) - log_cholesky_to_parameters(theta - e * d)) / (2 * e)
                       for d in np.eye(10)]).T
        assert np.allclose(log_cholesky_jacobian(theta), fd, atol=1e-7)


# --- estimation -----------------------------------------------------------------------------

def _data(m, rng, n=800, dt=0.005, **kw):
    t = np.arange(n) * dt
    q, qd, qdd = fourier(m, rng, **kw)(t)
    return t, q, qd, qdd, artidyn.rnea(m, q, qd, qdd)


@pytest.mark.parametrize("name", ["planar2r", "puma560", "ur5_robot"])
def test_noise_free_identification_is_exact(name):
    rng = np.random.default_rng(8)
    m = with_friction(artidyn.load(name) if name != "ur5_robot" else ur5(), rng)
    t, q, qd, qdd, tau = _data(m, rng, n=300, dt=0.01)
    for weighted in (False, True):
        ident = identify(m, q, tau, t=t, qd=qd, qdd=qdd, weighted=weighted, exclude=("offset",))
        truth = ident.G @ model_to_parameters(m)
        assert np.abs(ident.beta - truth).max() < 1e-8 * (1 + np.abs(truth).max()), (name, weighted)
        assert all(not n.startswith("off") for n in ident.names)
    assert ident.method.endswith("grouped base parameters")
    # the numerical QR base gives the same torques and the same fit
    qr = identify(m, q, tau, t=t, qd=qd, qdd=qdd, base="qr")
    assert np.abs(qr.beta - qr.G @ model_to_parameters(m)).max() < 1e-8 * (1 + np.abs(qr.beta).max())


def test_noisy_estimates_and_their_standard_deviations():
    """Noise on tau: estimates within a few std of the truth; the std agree with a Monte-Carlo over
    noise draws (OLS with one noise level; WLS with one per joint, which it finds)."""
    rng = np.random.default_rng(9)
    m = with_friction(artidyn.load("puma560"), rng)
    t, q, qd, qdd, tau = _data(m, rng, n=300, dt=0.01)
    g = grouped_parameters(m)
    W = regressor(m, q, qd, qdd)[..., g.columns]
    truth = g.beta(model_to_parameters(m))
    runs = [least_squares(W, tau + 0.3 * rng.standard_normal(tau.shape)) for _ in range(20)]
    first = runs[0]
    assert np.abs((first.beta - truth) / first.std).max() < 4.5
    emp = np.std([r.beta for r in runs], axis=0, ddof=1)
    ratio = emp / np.mean([r.std for r in runs], axis=0)
    assert np.all((ratio > 0.5) & (ratio < 2.0)), ratio
    # the ordinary LS std assumes one noise level: weighted LS estimates the per-joint ones
    sig = np.array([0.5, 0.8, 0.3, 0.05, 0.05, 0.02])
    ols = [least_squares(W, tau + sig * rng.standard_normal(tau.shape)) for _ in range(20)]
    emp = np.std([r.beta for r in ols], axis=0, ddof=1)
    wls = [weighted_least_squares(W, tau + sig * rng.standard_normal(tau.shape)) for _ in range(20)]
    assert np.allclose(np.mean([r.sigma for r in wls], axis=0), sig, rtol=0.1)
    emp_w = np.std([r.beta for r in wls], axis=0, ddof=1)
    ratio_w = emp_w / np.mean([r.std for r in wls], axis=0)
    assert np.all((ratio_w > 0.5) & (ratio_w < 2.0)), ratio_w
    assert np.median(emp_w / emp) < 0.8    # WLS is more accurate than OLS when noise levels differ
    z = (wls[0].beta - truth) / wls[0].std
    assert np.abs(z).max() < 4.5 and np.mean(np.abs(z) < 1.96) > 0.8
    assert first.cond == pytest.approx(np.linalg.cond(W.reshape(-1, g.rank)), rel=1e-8)
    assert np.allclose(first.rel_std, 100 * first.std / np.abs(first.beta))


def test_filtered_differentiation_and_decimation():
    t = np.arange(0, 4, 0.002)
    w = 2 * np.pi * np.array([0.5, 1.25])
    q = np.sin(np.outer(t, w))
    rng = np.random.default_rng(10)
    qf, qd, qdd = differentiate(t, q + 1e-5 * rng.standard_normal(q.shape), cutoff=10.0)
    inner = slice(100, -100)
    assert np.abs(qd - w * np.cos(np.outer(t, w)))[inner].max() < 5e-3 * w.max()
    assert np.abs(qdd + w ** 2 * np.sin(np.outer(t, w)))[inner].max() < 3e-2 * w.max() ** 2
    # without noise and filter, central differences are second-order accurate
    _, qd0, _ = differentiate(t, q)
    h = t[1] - t[0]   # error w^3 h^2 / 6
    assert np.abs(qd0 - w * np.cos(np.outer(t, w)))[1:-1].max() < 1.01 * w.max() ** 3 * h ** 2 / 6
    # parallel filtering keeps the linear relation tau = W beta
    m = with_friction(artidyn.load("planar2r"), rng)
    t, q, qd, qdd, tau = _data(m, rng, n=1000, dt=0.002)
    g = grouped_parameters(m)
    W = regressor(m, q, qd, qdd)[..., g.columns]
    Wd, taud = parallel_decimate(W, tau, 5)
    assert Wd.shape == (200, 2, g.rank) and taud.shape == (200, 2)
    assert np.abs(Wd @ g.beta(model_to_parameters(m)) - taud).max() < 1e-9 * np.abs(tau).max()


def test_identification_from_noisy_positions():
    """q measured with noise, qd / qdd from the filtered q, tau noisy and decimated: the
    identified model predicts held-out torques to within the noise."""
    rng = np.random.default_rng(11)
    m = with_friction(artidyn.load("planar2r"), rng)
    t, q, qd, qdd, tau = _data(m, rng, n=2000, dt=0.002)
    sig = 0.01
    ident = identify(m, q + 1e-5 * rng.standard_normal(q.shape), tau + sig * rng.standard_normal(tau.shape),
                     t=t, cutoff=8.0, decimate=4)
    truth = ident.G @ model_to_parameters(m)
    good = ident.rel_std < 5
    assert good.sum() >= 5
    assert np.abs(ident.beta - truth)[good].max() < 0.03 * np.abs(truth).max()
    t2, q2, qd2, qdd2, tau2 = _data(m, np.random.default_rng(12), n=400, dt=0.01)
    err = ident.predict(m, q2, qd2, qdd2) - tau2
    assert np.sqrt(np.mean(err ** 2)) < 0.02 * np.sqrt(np.mean(tau2 ** 2))


def test_identification_of_an_engine_simulation():
    """The engine integrates the planar 2R (RK4, 1 ms) under the feedforward torques of a Fourier
    trajectory; q recorded with noise, the applied torques with noise: the base parameters come
    back to a fraction of a percent (differentiation and errors in the variables leave a small
    bias of a few standard deviations, so the check is relative)."""
    from artidyn.sim import simulate
    rng = np.random.default_rng(3)
    m = artidyn.load("planar2r").replace(armature=np.array([0.1, 0.05]), damping=np.array([0.3, 0.2]))
    traj = fourier(m, rng, L=3, period=3.0, amplitude=1.0)
    t = np.arange(0, 3.0005, 0.001)
    res = simulate(m, traj(0.0)[0][0], traj(0.0)[1][0], tau=artidyn.rnea(m, *traj(t)), t_final=3.0, dt=0.001,
                   method="rk4")
    assert np.abs(res.q - traj(res.t)[0]).max() < 1e-3        # the open-loop motion follows the plan
    ident = identify(m, res.q + 1e-5 * rng.standard_normal(res.q.shape),
                     res.tau + 0.02 * rng.standard_normal(res.tau.shape), t=res.t, cutoff=8.0,
                     exclude=("coulomb", "offset"))
    assert ident.names == ["MXR1", "MY1", "ZZR1", "MX2", "MY2", "ZZ2", "Fv1", "Ia2", "Fv2"]
    truth = ident.G @ model_to_parameters(m)
    good = ident.rel_std < 5
    assert good.sum() == 7   # MY1 and MY2 (zero here) are the poorly excited ones
    assert np.all(np.abs(ident.beta - truth)[good] < 5e-3 * np.abs(truth)[good] + 1e-3)


# --- physically consistent estimation ---------------------------------------------------------

def test_physical_estimate_is_consistent_and_predicts_better_than_the_prior():
    rng = np.random.default_rng(13)
    true = with_friction(artidyn.load("puma560"), rng)
    t, q, qd, qdd, tau = _data(true, rng, n=300, dt=0.01)
    ident = identify(true, q, tau + 0.05 * rng.standard_normal(tau.shape), t=t, qd=qd, qdd=qdd,
                     exclude=("offset",))
    nominal = artidyn.load("puma560")               # no friction, other armature: the prior
    est = physical_estimate(nominal, ident, max_nfev=150)   # near the optimum long before ftol stops it
    for i in range(1, true.nb + 1):
        p = est.pi[body_columns(true, i)]
        check_physical(f"body {i}", p)
        J = pseudo_inertia(p)   # positive definite up to round-off (link 1 of the prior is massless)
        assert np.linalg.eigvalsh(J)[0] > -1e-12 * np.abs(J).max()
    assert est.model is not None
    truth = ident.G @ model_to_parameters(true)
    assert np.abs((est.beta - truth) / ident.std).max() < 5
    # held-out data: the physical model predicts better than the nominal one
    t2, q2, qd2, qdd2, tau2 = _data(true, np.random.default_rng(14), n=200, dt=0.01)
    err_phys = artidyn.rnea(est.model, q2, qd2, qdd2) - tau2
    err_nom = artidyn.rnea(nominal, q2, qd2, qdd2) - tau2
    assert np.sqrt(np.mean(err_phys ** 2)) < 0.2 * np.sqrt(np.mean(err_nom ** 2))
    # the report names what the data cannot determine
    assert "link1.m" in est.no_effect and "joint1.off" in est.no_effect
    assert "link3.m" in est.in_combinations and "MXR2" in est.in_combinations["link3.m"]
    assert "No effect on the torques" in est.report and "Weakest direction" in est.report


@pytest.mark.parametrize("seed", [22, 23])
def test_physical_estimate_when_least_squares_is_not_physical(seed):
    """Large noise and a short record on a planar 2R with a short second link: with seed 22 the
    least-squares ZZ2 is negative (not physical), the constrained estimate is not and says ZZ2
    moved; with seed 23 the least-squares estimate is physical and the constrained one equals it."""
    rng = np.random.default_rng(seed)
    m = planar_2r(l1=1.0, l2=0.2)
    t, q, qd, qdd, tau = _data(m, rng, n=60, dt=0.05)
    ident = identify(m, q, tau + 1.0 * rng.standard_normal(tau.shape), t=t, qd=qd, qdd=qdd,
                     exclude=("armature", "viscous", "coulomb", "offset"))
    assert ident.names == ["MXR1", "MY1", "ZZR1", "MX2", "MY2", "ZZ2"]
    est = physical_estimate(m, ident)
    for i in (1, 2):
        check_physical(f"body {i}", est.pi[body_columns(m, i)])
    assert est.pi[dof_cols(m)].min() >= 0
    if seed == 22:
        assert ident.beta[5] < 0 < est.beta[5]
        assert [c.split()[0] for c in est.constrained] == ["ZZ2"] and "ZZ2 (least squares" in est.report
    else:
        assert est.success and est.constrained == []
        assert np.abs((est.beta - ident.beta) / ident.std).max() < 0.01


def dof_cols(m):
    return np.arange(10 * m.nb, n_parameters(m))[np.arange(4 * m.nv) % 4 != 3]


# --- excitation ---------------------------------------------------------------------------

def test_excitation_respects_limits_and_lowers_the_condition_number():
    m = artidyn.load("planar2r")
    limits = dict(q_min=[-1.5, -2.0], q_max=[1.5, 2.0], qd_max=[2.0, 3.0], qdd_max=[6.0, 8.0], tau_max=[60.0, 20.0])
    res = optimize_excitation(m, n_harmonics=3, period=5.0, n_samples=50, limits=limits, max_time=4.0, maxiter=30)
    assert res.feasible and res.cond < res.cond_initial
    q, qd, qdd = res.trajectory(res.t)
    tau = artidyn.rnea(m, q, qd, qdd)
    assert np.all(q >= np.array(limits["q_min"])) and np.all(q <= np.array(limits["q_max"]))
    assert np.all(np.abs(qd) <= limits["qd_max"]) and np.all(np.abs(qdd) <= limits["qdd_max"])
    assert np.all(np.abs(tau) <= limits["tau_max"])
    # the reported condition number is that of the grouped base regressor on the grid
    g = grouped_parameters(m)
    assert res.cond == pytest.approx(np.linalg.cond(regressor(m, q, qd, qdd)[..., g.columns].reshape(-1, g.rank)),
                                     rel=1e-6)
    # periodic: the trajectory and its derivatives join at the period
    ends = [np.vstack(res.trajectory([0.0, res.trajectory.period])) for _ in range(1)][0]
    assert np.allclose(ends[0::2], ends[1::2], atol=1e-9)
    # qd and qdd are the derivatives of q
    h = 1e-5
    qp, qm = res.trajectory([1.0 + h])[0], res.trajectory([1.0 - h])[0]
    assert np.allclose((qp - qm) / (2 * h), res.trajectory([1.0])[1], atol=1e-6)


# --- report and CLI -----------------------------------------------------------------------

def _write_csv(path, m, t, q, tau, qd=None):
    names = dof_names(m)
    cols = ["t"] + [f"q_{n}" for n in names] + ([f"qd_{n}" for n in names] if qd is not None else []) \
        + [f"tau_{n}" for n in names]
    data = np.column_stack([t, q] + ([qd] if qd is not None else []) + [tau])
    np.savetxt(path, data, delimiter=",", header=",".join(cols), comments="", fmt="%.17g")


def test_cli_identify_end_to_end(tmp_path, capsys, monkeypatch):
    if "artidyn.identification.commands" not in cli.COMMAND_MODULES:
        monkeypatch.setattr(cli, "COMMAND_MODULES", cli.COMMAND_MODULES + ["artidyn.identification.commands"])
    rng = np.random.default_rng(16)
    m = with_friction(artidyn.load("planar2r"), rng)
    t, q, qd, qdd, tau = _data(m, rng, n=1500, dt=0.002)
    data = tmp_path / "data.csv"
    _write_csv(data, m, t, q, tau)
    out = tmp_path / "rep"
    assert cli.main(["identify", "planar2r", str(data), "--out", str(out), "--physical", "--exclude", "offset"]) == 0
    text = capsys.readouterr().out
    assert "ZZR1" in text and "condition number" in text and "report:" in text
    md = (out / "identification.md").read_text()
    assert "| ZZR1 |" in md and "95 % interval" in md and "Physically consistent" in md
    for png in ("parameters.png", "residuals.png", "torques.png"):
        assert (out / png).stat().st_size > 1000
    rows = np.genfromtxt(out / "base_parameters.csv", delimiter=",", names=True, dtype=None, encoding=None)
    g = grouped_parameters(m)
    truth = dict(zip(g.names, g.beta(model_to_parameters(m))))
    for row in rows:   # q differentiated by central differences (dt 2 ms): close, not exact
        assert abs(row["estimate"] - truth[row["name"]]) < max(0.02 * abs(truth[row["name"]]), 4 * row["std"]), row


def test_cli_identify_errors_name_file_line_column(tmp_path, capsys, monkeypatch):
    if "artidyn.identification.commands" not in cli.COMMAND_MODULES:
        monkeypatch.setattr(cli, "COMMAND_MODULES", cli.COMMAND_MODULES + ["artidyn.identification.commands"])
    m = artidyn.load("planar2r")
    t = np.arange(10) * 0.01
    bad = tmp_path / "bad.csv"
    _write_csv(bad, m, t, np.zeros((10, 2)), np.zeros((10, 2)))
    lines = bad.read_text().splitlines()
    fields = lines[4].split(",")
    lines[4] = ",".join(fields[:2] + ["abc"] + fields[3:])
    bad.write_text("\n".join(lines) + "\n")
    assert cli.main(["identify", "planar2r", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv, line 5, column 'q_joint2'" in err and "'abc' is not a number" in err
    missing = tmp_path / "missing.csv"
    missing.write_text("t,q_joint1,q_joint2,tau_joint1\n0,0,0,0\n0.1,0,0,0\n0.2,0,0,0\n")
    assert cli.main(["identify", "planar2r", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "missing.csv" in err and "no column 'tau_joint2' for joint 'joint2'" in err
    backwards = tmp_path / "back.csv"
    backwards.write_text("t,q_joint1,q_joint2,tau_joint1,tau_joint2\n0,0,0,0,0\n0.1,0,0,0,0\n0.1,0,0,0,0\n")
    assert cli.main(["identify", "planar2r", str(backwards)]) == 2
    assert "back.csv, line 4: t = 0.1 does not increase" in capsys.readouterr().err
