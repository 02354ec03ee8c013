"""Locomotion beyond walking: examples/differential_drive.py (two wheels and a caster) against the
unicycle kinematics ``v = r (wR + wL) / 2``, ``yaw rate = r (wR - wL) / track``, and
examples/crawler.py (a sled pulled by an arm whose tip grips the ground) against its stroke."""
import importlib.util
import pathlib

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def wheeled(tmp_path_factory):
    example = load("differential_drive")
    out = tmp_path_factory.mktemp("dd") / "dd.png"
    return example, example.main([str(out), "--t-final", "1.0", "--omega", "6"]), out


def test_equal_wheel_speeds_drive_straight_at_r_omega(wheeled):
    example, runs, out = wheeled
    assert out.stat().st_size > 0
    r = runs["straight"]
    late = r["result"].t > 0.3                     # after the servo's transient (about 10 ms)
    np.testing.assert_allclose(r["omega_left"][late], 6.0, rtol=1e-4)
    np.testing.assert_allclose(r["omega_right"][late], 6.0, rtol=1e-4)
    np.testing.assert_allclose(r["forward"][late], example.R * 6.0, rtol=1e-4)    # v = r omega
    assert np.abs(r["yaw"]).max() < 1e-6 and np.abs(r["y"]).max() < 1e-6          # straight
    t = r["result"].t
    travelled = r["x"][-1] - r["x"][np.searchsorted(t, 0.3)]
    assert travelled == pytest.approx(example.R * 6.0 * (t[-1] - 0.3), rel=1e-3)


def test_opposite_wheel_speeds_turn_in_place(wheeled):
    example, runs, _ = wheeled
    r = runs["turn"]
    late = r["result"].t > 0.3
    wl, wr = r["omega_left"][late], r["omega_right"][late]
    # the unicycle kinematics with the wheels' actual speeds (rolling without slip) ...
    np.testing.assert_allclose(r["yaw_rate"][late], example.R * (wr - wl) / example.TRACK, rtol=1e-4)
    np.testing.assert_allclose(r["forward"][late], example.R * (wr + wl) / 2, atol=1e-5)
    # ... and with the references: 2 r omega / track, to the servo's error (the centripetal force
    # of the chassis' centre of mass, ahead of the axle, loads the wheels: about 1 %)
    np.testing.assert_allclose(r["yaw_rate"][late], 2 * example.R * 6.0 / example.TRACK, rtol=0.01)
    turned = r["yaw"][-1] - r["yaw"][np.searchsorted(r["result"].t, 0.3)]
    assert turned == pytest.approx(2 * example.R * 6.0 / example.TRACK * 0.7, rel=0.01)
    assert np.hypot(r["x"], r["y"]).max() < 0.01              # it stays (nearly) where it was


@pytest.fixture(scope="module")
def crawling(tmp_path_factory):
    example = load("crawler")
    out = tmp_path_factory.mktemp("cr") / "cr.png"
    return example, example.main([str(out), "--cycles", "4"]), out


def _stances(example, run):
    """(start, end) sample indices of the tip's contact in each cycle."""
    res, model = run["result"], run["model"]
    touching = res.contact_forces[:, model.body_id("forearm"), 2] > 0
    n = int(round(example.PERIOD / example.DT))
    out = []
    for k in range(int(round(res.t[-1] / example.PERIOD))):
        s = np.flatnonzero(touching[k * n:(k + 1) * n]) + k * n
        out.append((k * n, s[0], s[-1], (k + 1) * n))
    return out


def test_crawler_advances_by_its_stroke(crawling):
    """Each cycle the sled advances by the tip's backward sweep in the sled's frame during the
    stance plus the tip's rolling, r times the forearm's pitch change (the tip's contact point
    stays put while it sticks); it does not move during the swing."""
    import artidyn as ad

    example, run, out = crawling
    res, model, tip = run["result"], run["model"], run["tip"]
    assert out.stat().st_size > 0
    x = res.q[:, 0]
    stroke = example.FRONT - example.BACK
    assert 0.5 * 4 * stroke < x[-1] < 1.2 * 4 * stroke
    T = np.array([ad.frame_placement(model, q, "sled") for q in res.q])
    rel = np.einsum("kji,kj->ki", T[:, :3, :3], tip - T[:, :3, 3])          # the tip in the sled frame
    R = np.array([ad.frame_placement(model, q, "tip")[:3, :3] for q in res.q])
    pitch = np.unwrap(np.arctan2(R[:, 0, 2], R[:, 0, 0]))
    advances = []
    for a, i0, i1, b in _stances(example, run):
        sweep = -(rel[i1, 0] - rel[i0, 0]) + example.R_TIP * (pitch[i1] - pitch[i0])
        advances.append(x[b] - x[a])
        assert x[b] - x[a] == pytest.approx(sweep, abs=1.5e-3)      # the tip slips < 1.5 mm at touchdown
        assert np.ptp(x[a:i0 + 1]) < 1e-4 and np.ptp(x[i1 + 1:b + 1]) < 1e-4   # the swing leaves it in place
        assert sweep > 0.9 * stroke
    np.testing.assert_allclose(advances, advances[0], atol=5e-4)            # a periodic gait
    assert np.abs(res.q[:, 1]).max() < 1e-6                                 # straight ahead


def test_crawler_friction_and_energy(crawling):
    import artidyn as ad

    example, run, _ = crawling
    res, model = run["result"], run["model"]
    mu = {model.body_id("sled"): example.MU_SLED, model.body_id("forearm"): example.MU_TIP}
    slips = {body: 0 for body in mu}
    for c in res.contacts[1:]:                  # each step's active contacts: impulses [n, t1, t2]
        m = np.array([mu[b] for b in c.body_a])
        P, u = c.impulse, c.u_after
        Pt, ut = np.hypot(P[:, 1], P[:, 2]), np.hypot(u[:, 1], u[:, 2])
        assert np.all(P[:, 0] >= 0) and np.all(Pt <= m * P[:, 0] * (1 + 1e-9) + 1e-12)    # inside the cone
        s = ut > 1e-6                           # sliding: on the cone's edge, against the slip
        np.testing.assert_allclose(P[s, 1:], -(m * P[:, 0])[s, None] * u[s, 1:] / ut[s, None], rtol=1e-6, atol=1e-9)
        for b in c.body_a[s]:
            slips[b] += 1
    assert slips[model.body_id("sled")] > 1000                  # the skids slide during every stance
    assert slips[model.body_id("forearm")] < 0.02 * len(res.t)  # the tip grips (slips only at touchdown)
    f = res.contact_forces[:, model.body_id("sled")]
    tw = np.array([ad.jacobian(model, q, "sled", "world") @ v for q, v in zip(res.q, res.v)])
    # the skids' lowest points (HEIGHT below the sled's origin, the sled nearly level) slide at
    # v - HEIGHT (omega x z): the sled also rocks about them
    slide = np.stack([tw[:, 3] - example.HEIGHT * tw[:, 1], tw[:, 4] + example.HEIGHT * tw[:, 0]], axis=1)
    # energy balance: what the motors put in, minus the energy gained, is dissipated (>= 0, growing)
    dissipated = res.input_work - (res.energy.total - res.energy.total[0])
    assert dissipated.min() > -1e-6 and np.diff(dissipated).min() > -1e-5
    by_friction = np.sum(-(f[:, :2] * slide).sum(axis=1)) * example.DT             # the sled's skids alone
    assert 0.5 * dissipated[-1] < by_friction < dissipated[-1]
