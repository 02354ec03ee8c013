"""The public functions really run the compiled kernels (a silent fall-back to the reference code
would give the same numbers 400x slower): each call is counted at the compiled entry point, no
timing involved."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.kernels import dispatch


class Counter:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args):
        self.calls += 1
        return self.fn(*args)


@pytest.fixture
def counted(monkeypatch):
    """Every compiled entry point of the dispatcher wrapped in a call counter; the C call objects
    of rnea, aba, crba (made per model) count into the same counters when they return a result."""
    out = {}
    for name in ("rnea", "aba", "crba", "placements", "frame", "jacobian", "batch"):
        c = Counter(getattr(dispatch._K, name))
        monkeypatch.setattr(dispatch._K, name, c)
        out[name] = c
    make = dispatch._c_single

    def c_single(model, name, opts):
        kernel = make(model, name, opts)
        if not kernel:
            return kernel

        def counted_kernel(*args):
            result = kernel(*args)
            out[name].calls += result is not None
            return result
        model._cache[dispatch._C_KEYS[name, opts]] = counted_kernel
        return counted_kernel
    monkeypatch.setattr(dispatch, "_c_single", c_single)
    return out


@pytest.mark.parametrize("robot", ["puma560", "solo12"])
def test_single_states_and_batches_run_compiled(counted, robot):
    model = ad.load(robot).replace()          # a fresh cache: its C call objects are made (and counted) here
    q = ad.random_configuration(model, rng=0)
    v, a = np.ones(model.nv), np.zeros(model.nv)
    calls = [("rnea", lambda: ad.rnea(model, q, v, a)), ("aba", lambda: ad.aba(model, q, v, a)),
             ("crba", lambda: ad.crba(model, q)), ("placements", lambda: ad.body_placements(model, q)),
             ("frame", lambda: ad.frame_placement(model, q, model.body_names[-1])),
             ("jacobian", lambda: ad.jacobian(model, q, model.body_names[-1]))]
    for name, f in calls:
        before = counted[name].calls
        with ad.kernels.reference_only():
            ref = f()
        np.testing.assert_allclose(f(), ref, rtol=0, atol=1e-10)
        assert counted[name].calls == before + 1, name       # the compiled call, once
    Q = ad.random_configuration(model, rng=1, size=5)
    before = counted["batch"].calls
    ad.rnea(model, Q, np.zeros((5, model.nv)), np.zeros((5, model.nv)))
    assert counted["batch"].calls == before + 1


def test_the_reference_switch_is_seen(counted):
    model = ad.load("puma560").replace()
    q = np.zeros(6)
    with ad.kernels.reference_only():
        ad.rnea(model, q, q, q)
    assert counted["rnea"].calls == 0


def test_simulations_run_compiled(monkeypatch):
    from artidyn.kernels import stepping
    seg = Counter(stepping.simulate_segment)
    monkeypatch.setattr(stepping, "simulate_segment", seg)
    model = ad.load("puma560")
    ad.simulate(model, np.zeros(6), t_final=0.01, dt=1e-3)
    assert seg.calls >= 1                                          # the whole run in the compiled engine
