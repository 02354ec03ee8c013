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
