"""The bound evaluator ``artidyn.Dynamics``: the same numbers as the public functions, ``out=``
written in place, and everything the compiled call does not take handed to the public functions."""
import numpy as np
import pytest

import artidyn as ad


@pytest.mark.parametrize("name", ["puma560", "ur5_robot", "solo12"])
def test_same_numbers_as_the_public_functions(name):
    model = ad.load(name)
    dyn = ad.Dynamics(model)
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = ad.random_configuration(model, rng)
        v, a = ad.random_velocity(model, rng), ad.random_velocity(model, rng)
        tau = ad.rnea(model, q, v, a)
        np.testing.assert_allclose(dyn.rnea(q, v, a), tau, rtol=0, atol=1e-12)
        np.testing.assert_allclose(dyn.aba(q, v, tau), a, rtol=0, atol=1e-8)
        np.testing.assert_allclose(dyn.crba(q), ad.crba(model, q), rtol=0, atol=1e-12)
        np.testing.assert_allclose(dyn.gravity(q), ad.gravity_torque(model, q), rtol=0, atol=1e-12)
        np.testing.assert_allclose(dyn.nonlinear_effects(q, v), ad.nonlinear_effects(model, q, v), rtol=0, atol=1e-12)


def test_out_is_written_in_place_and_friction_follows_the_option():
    model = ad.load("ur5_robot").replace(damping=np.full(6, 0.7))
    q, v, a = ad.random_configuration(model, rng=1), np.ones(6), np.zeros(6)
    out, M = np.empty(6), np.empty((6, 6))
    dyn = ad.Dynamics(model)
    assert dyn.rnea(q, v, a, out=out) is out
    np.testing.assert_allclose(out, ad.rnea(model, q, v, a), rtol=0, atol=1e-12)
    assert dyn.crba(q, out=M) is M
    dry = ad.Dynamics(model, friction=False)
    np.testing.assert_allclose(dyn.rnea(q, v, a) - dry.rnea(q, v, a), 0.7 * v, rtol=0, atol=1e-12)


def test_other_inputs_go_to_the_public_functions():
    model = ad.load("puma560")
    dyn = ad.Dynamics(model)
    q = ad.random_configuration(model, rng=2)
    v = a = np.zeros(6)
    ref = ad.rnea(model, q, v, a)
    np.testing.assert_allclose(dyn.rnea(list(q), v, a), ref, atol=1e-12)          # a list
    np.testing.assert_allclose(dyn.rnea(q.astype(np.float32).astype(float), v, a), ad.rnea(model, q.astype(np.float32).astype(float), v, a))
    strided = np.empty(12)[::2]
    np.testing.assert_allclose(dyn.rnea(q, v, a, out=strided), ref, atol=1e-12)   # not contiguous: copied into
    np.testing.assert_allclose(strided, ref, atol=1e-12)
    with pytest.raises(ad.ShapeError, match="nq = 6"):
        dyn.rnea(q[:3], v, a)
    with pytest.raises(ad.InputError, match="NaN"):
        dyn.aba(np.full(6, np.nan), v, a)
    with pytest.raises(ad.ShapeError, match="out must be"):
        dyn.rnea(q, v, a, out=np.empty(5))
    with pytest.raises(ad.InputError, match="artidyn.load"):
        ad.Dynamics("puma560")
