"""The examples run: examples/quadruped_stand_fall.py over a short horizon (standing only)."""
import importlib.util
import pathlib

import numpy as np

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
