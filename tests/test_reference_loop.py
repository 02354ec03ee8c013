"""The readable adaptive loop (``simulate(method="dopri5")`` with the kernels switched off) against
the compiled engine: the same steps (accepted, rejected, evaluations), the same samples, energies
and joint-limit events; and the report's free fall on it compiles nothing."""
import os
import subprocess
import sys

import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import SimulationError
from artidyn.models import random_tree
from artidyn.sim import simulate
from artidyn.sim.report_sections import report_posture

KW = dict(t_final=0.3, dt=1e-2, method="dopri5", rtol=1e-7, atol=1e-9)


def both(model, q0, v0=None, **kw):
    args = dict(KW, **kw)
    compiled = simulate(model, q0, v0, **args)
    with ad.kernels.reference_only():
        reference = simulate(model, q0, v0, **args)
    return compiled, reference


def assert_same_run(c, r):
    for k in ("accepted_steps", "rejected_steps", "dynamics_evaluations", "status"):
        assert c.stats[k] == r.stats[k], k
    assert c.stats["dynamics_evaluations"] > 20
    np.testing.assert_allclose(r.t, c.t, rtol=0, atol=0)
    np.testing.assert_allclose(r.q, c.q, atol=1e-11)
    np.testing.assert_allclose(r.v, c.v, atol=1e-10 * max(1.0, np.max(np.abs(c.v))))
    np.testing.assert_allclose(r.a, c.a, atol=1e-9 * max(1.0, np.max(np.abs(c.a))))
    np.testing.assert_allclose(r.tau, c.tau, atol=1e-12)
    np.testing.assert_allclose(r.energy.total, c.energy.total, atol=1e-10 * max(1.0, np.max(np.abs(c.energy.total))))
    assert r.stats["energy_error"] == pytest.approx(c.stats["energy_error"], rel=1e-4, abs=1e-14)
    assert [(e.joint, e.side) for e in r.limit_events] == [(e.joint, e.side) for e in c.limit_events]
    for er, ec in zip(r.limit_events, c.limit_events):   # step ends: the error estimate's last digits move h
        assert er.time == pytest.approx(ec.time, abs=1e-8)


def test_puma560_fall_with_a_limit_crossing():
    model = ad.load("puma560")
    c, r = both(model, report_posture(model, np.zeros(6)), t_final=0.4)
    assert c.limit_events, "the fall crosses joint3's limit: the events are compared"
    assert_same_run(c, r)


def test_floating_base_quaternions_and_spherical_joints(rng):
    model = random_tree(rng, nb=5, floating=True, joint_types=("spherical", "revolute", "prismatic"))
    q0, v0 = ad.random_configuration(model, rng), rng.normal(size=model.nv)
    assert_same_run(*both(model, q0, v0))


def test_damping_and_constant_torque(rng):
    model = random_tree(rng, nb=4, joint_types=("revolute", "prismatic"))
    model = model.replace(damping=np.full(model.nv, 0.3))
    q0, v0 = ad.random_configuration(model, rng), rng.normal(size=model.nv)
    c, r = both(model, q0, v0, tau=rng.normal(size=model.nv))
    assert not c.conservative
    assert_same_run(c, r)


def test_step_budget_failure_is_the_same(rng):
    model = random_tree(rng, nb=3)
    q0 = ad.random_configuration(model, rng)
    with pytest.raises(SimulationError) as ec:
        simulate(model, q0, max_steps=5, **KW)
    with ad.kernels.reference_only(), pytest.raises(SimulationError) as er:
        simulate(model, q0, max_steps=5, **KW)
    assert "step budget" in str(er.value)
    c, r = ec.value.result, er.value.result
    assert r.t.size == c.t.size > 1
    np.testing.assert_allclose(r.q, c.q, atol=1e-12)


def test_report_on_a_fresh_machine_compiles_nothing(tmp_path):
    # the README's main job with an empty numba cache: no kernel is compiled (none is written to the cache)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), ARTIDYN_QUIET="1")
    out = subprocess.run([sys.executable, "-m", "artidyn", "report", "puma560", "--no-files"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "## Free-fall simulation" in out.stdout and "accepted steps" in out.stdout
    cached = [f for _, _, files in os.walk(tmp_path / "cache") for f in files]
    assert cached == [], f"the report compiled {cached}"
