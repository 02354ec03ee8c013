"""The examples run: examples/quadruped_stand_fall.py over a short horizon (standing only)."""
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


def test_quadruped_stand_fall_runs_and_stands(tmp_path, capsys):
    example = load("quadruped_stand_fall")
    out = tmp_path / "quadruped.png"
    run = example.main([str(out), "--t-final", "0.2"])
    res = run["result"]
    assert out.is_file() and out.stat().st_size > 0
    assert res.t[-1] == 0.2 and np.all(np.isfinite(res.q))
    assert run["stand_drift"] < 1e-3                                   # the base stays within 1 mm
    assert np.max(np.abs(res.q[:, 2] - run["q0"][2])) < 1e-3
    weight = float(np.sum(run["model"].mass)) * 9.81
    np.testing.assert_allclose(example.normal_force(res)[1:-1], weight, rtol=1e-3)   # the feet carry it
    assert "standing phase" in capsys.readouterr().out


def test_grasp_lift_release(tmp_path, capsys):
    """The box is carried up ~10 cm by friction alone, falls when the fingers open, and lands
    after the free-fall time sqrt(2 h / g)."""
    example = load("grasp_release")
    out = tmp_path / "grasp.png"
    run = example.main([str(out), "--t-final", "1.3"])
    res = run["result"]
    z = res.q[:, 2]
    assert out.is_file() and out.stat().st_size > 0
    held = (res.t > 0.7) & (res.t < example.T_OPEN)
    assert z[held].min() > 0.03 + 0.09                                  # lifted, not slipping out
    k_open = int(example.T_OPEN / example.DT)
    drop = z[k_open] - 0.03
    landings = [e.time for e in res.events if e.kind == "impact" and e.body_b == "world" and e.time > example.T_OPEN]
    assert landings[0] == pytest.approx(example.T_OPEN + np.sqrt(2 * drop / 9.81), abs=0.01)
    assert abs(z[-1] - 0.03) < 2e-3 and np.max(np.abs(res.v[-1, 3:6])) < 1e-6   # at rest on the ground
    assert "impact" in capsys.readouterr().out


def test_servo_turntable_example(tmp_path, capsys):
    """The motor (a servo) does work on the plate; the rigid link does none."""
    runs = load("servo_turntable").main([str(tmp_path / "t.png"), "--t-final", "1.0"])
    assert (tmp_path / "t.png").stat().st_size > 0
    assert abs(runs["motor"].servo_work[-1]) > 1e-2
    assert np.ptp(runs["rigid"].energy) < 1e-9
    assert "determined" in capsys.readouterr().out


def test_rolling_disk_example(tmp_path, capsys):
    out = load("rolling_disk").main([str(tmp_path / "d.png"), "--t-final", "2.0"])
    assert (tmp_path / "d.png").stat().st_size > 0
    assert np.abs(out[1.3][1]).max() < 0.1 and np.abs(out[0.7][1]).max() > 0.2
    assert "compiled route" in capsys.readouterr().out


def test_servo_cyclist_example(tmp_path, capsys):
    """The legs hold the rear wheel at omega with M g a sin(slope), the frame follows its lean, and the
    servo work is the change of T + U."""
    run = load("servo_cyclist").main([str(tmp_path / "c.png"), "--t-final", "1.0", "--slope", "0.05"])
    assert (tmp_path / "c.png").stat().st_size > 0
    assert np.abs(run.servo_forces[:, 0] - 64 * 9.81 * 0.35 * np.sin(0.05)).max() < 1e-9
    assert np.abs(run.q[:, 3] - 0.05 * np.sin(2 * run.t)).max() < 1e-9
    assert np.abs(run.energy - run.energy[0] - run.servo_work).max() < 1e-6 * np.ptp(run.energy)
    assert "determined" in capsys.readouterr().out
