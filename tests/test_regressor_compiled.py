"""The compiled regressor (artidyn.kernels.regressor) against the readable reference and against
the RNEA: Y equal to 1e-11, batch rows equal to single states, Y pi = rnea - spring torque; the
public ``regressor`` shown to run the kernel (call counters), and to fall back to the reference
for complex input and for input the kernel refuses."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.dynamics import spring_torque
from artidyn.errors import ArtidynError
from artidyn.identification import model_to_parameters, n_parameters, regressor
from artidyn.kernels import reference_only
from artidyn.kernels import regressor as kernel
from artidyn.models.zoo import random_tree
from artidyn.kernels.dispatch import _chunks

N = 4


class Counter:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args):
        self.calls += 1
        return self.fn(*args)


def with_friction(model, rng):
    """The model with random armature, viscous and Coulomb friction and springs on every dof."""
    flat = np.ones(model.nv, bool)
    for i in range(1, model.nb + 1):
        if model.nv_joint[i] != int(model.nq_joint[i]):            # spherical / free: no spring
            flat[model.idx_v[i]:model.idx_v[i] + model.nv_joint[i]] = False
    return model.replace(armature=rng.uniform(0.01, 0.5, model.nv), damping=rng.uniform(0, 1, model.nv),
                         coulomb=rng.uniform(0, 1, model.nv), stiffness=np.where(flat, rng.uniform(0, 5, model.nv), 0),
                         rest=np.where(flat, rng.uniform(-1, 1, model.nv), 0))


def states(model, rng, n=N):
    Q = ad.random_configuration(model, rng=rng, size=n)
    return Q, rng.normal(size=(n, model.nv)), rng.normal(size=(n, model.nv))


@pytest.fixture(scope="module")
def models(zoo):
    rng = np.random.default_rng(3)
    cylindrical = [random_tree(5, nb=6, floating=True, branching=0.5,
                               joint_types=("revolute", "prismatic", "spherical", "cylindrical"))]
    robots = [ad.load(name) for name in ("puma560", "ur5_robot", "solo12")]
    return [(label, with_friction(m, rng)) for label, m in
            list(zoo) + [("cylindrical_tree", cylindrical[0])] + [(m.name, m) for m in robots]]


def test_compiled_equals_reference_and_batch_equals_single(models):
    rng = np.random.default_rng(0)
    kinds = set()
    for label, model in models:
        kinds |= set(int(t) for t in model.joint_type[1:])
        Q, V, A = states(model, rng)
        Y = regressor(model, Q, V, A)
        with reference_only():
            Y_ref = regressor(model, Q, V, A)
        assert Y.shape == Y_ref.shape == (N, model.nv, n_parameters(model)), label
        scale = max(1.0, np.abs(Y_ref).max())
        np.testing.assert_allclose(Y, Y_ref, rtol=0, atol=1e-11 * scale, err_msg=label)
        for k in range(N):
            np.testing.assert_allclose(regressor(model, Q[k], V[k], A[k]), Y[k], rtol=0, atol=1e-14 * scale,
                                       err_msg=label)
    assert kinds >= {0, 1, 2, 3, 4}      # revolute, prismatic, spherical, free, cylindrical all met


def test_regressor_times_parameters_is_rnea_minus_springs(models):
    rng = np.random.default_rng(1)
    for label, model in models:
        Q, V, A = states(model, rng)
        tau = ad.rnea(model, Q, V, A) - spring_torque(model, Q)
        Y_pi = regressor(model, Q, V, A) @ model_to_parameters(model)
        np.testing.assert_allclose(Y_pi, tau, rtol=0, atol=1e-9 * max(1.0, np.abs(tau).max()), err_msg=label)


def test_broadcasting_and_lists_as_the_reference(models):
    label, model = models[-1]                     # solo12: floating base
    rng = np.random.default_rng(2)
    Q, V, A = states(model, rng, 3)
    cases = [(Q[0], V, A), (Q, V[0], A[1]), (Q[0].tolist(), V[0].tolist(), A[0].tolist()),
             (Q[:, :].astype(np.float32), V, A)]
    for q, v, a in cases:
        Y = regressor(model, q, v, a)
        with reference_only():
            Y_ref = regressor(model, q, v, a)
        assert Y.shape == Y_ref.shape
        np.testing.assert_allclose(Y, Y_ref, rtol=0, atol=1e-11 * max(1.0, np.abs(Y_ref).max()))


@pytest.fixture
def counted(monkeypatch):
    out = {}
    for name in ("regressor_single", "regressor_batch"):
        out[name] = Counter(getattr(kernel, name))
        monkeypatch.setattr(kernel, name, out[name])
    return out


def test_public_regressor_runs_the_kernel(counted, models):
    label, model = models[-2]                     # ur5
    rng = np.random.default_rng(4)
    Q, V, A = states(model, rng)
    regressor(model, Q[0], V[0], A[0])
    assert (counted["regressor_single"].calls, counted["regressor_batch"].calls) == (1, 0)
    regressor(model, Q, V, A)
    parts = _chunks(len(Q))                   # the batch kernel runs once per chunk of states
    assert (counted["regressor_single"].calls, counted["regressor_batch"].calls) == (1, parts)
    with reference_only():
        regressor(model, Q, V, A)
        regressor(model, Q[0], V[0], A[0])
    assert (counted["regressor_single"].calls, counted["regressor_batch"].calls) == (1, parts)


def test_complex_and_bad_inputs_go_to_the_reference(counted, models):
    label, model = models[-1]                     # solo12
    rng = np.random.default_rng(5)
    Q, V, A = states(model, rng, 2)
    # complex step: the reference's dtype-generic code, dY/dv_0 from the imaginary part
    h = 1e-30
    Vc = V[0] + 0j
    Vc[0] += 1j * h
    Yc = regressor(model, Q[0], Vc, A[0])
    assert np.iscomplexobj(Yc) and counted["regressor_single"].calls == 1   # tried, refused (TypeError)
    np.testing.assert_allclose(Yc.real, regressor(model, Q[0], V[0], A[0]), rtol=0, atol=1e-11)
    # bad input: the kernel returns False, the reference raises its error (same with kernels off)
    bad = [(Q[0], V[0][:-1], A[0]), (np.where(np.arange(model.nq) == 0, np.nan, Q[0]), V[0], A[0]),
           (Q, V[:1].repeat(3, 0), A), (Q[0] * np.r_[np.ones(3), 2 * np.ones(4), np.ones(model.nq - 7)], V[0], A[0])]
    for q, v, a in bad:
        with pytest.raises(ArtidynError) as on:
            regressor(model, q, v, a)
        with reference_only(), pytest.raises(ArtidynError) as off:
            regressor(model, q, v, a)
        assert type(on.value) is type(off.value) and str(on.value) == str(off.value)


def test_helical_joints_in_the_compiled_regressor():
    """A screw joint's motion subspace [a; p a] (turn and slide): the kernel equals the reference."""
    b = ad.ModelBuilder("screws")
    b.add_body("nut", "world", "helical", axis=(0, 0, 1), pitch=0.01, mass=1.0, com=(0.1, 0, 0),
               inertia=np.diag([1e-3, 2e-3, 3e-3]))
    b.add_body("arm", "nut", "revolute", axis=(1, 0, 0), xyz=(0.2, 0, 0), mass=0.5, com=(0, 0.1, 0),
               inertia=np.diag([1e-3, 1e-3, 1e-3]))
    b.add_body("tip", "arm", "helical", axis=(0, 1, 0), pitch=-0.02, xyz=(0, 0.3, 0), mass=0.2, com=(0, 0, 0.05),
               inertia=np.diag([2e-4, 1e-4, 3e-4]))
    m = b.build()
    rng = np.random.default_rng(4)
    Q, V, A = rng.normal(size=(3, 5, m.nv))
    Y = regressor(m, Q, V, A)
    with reference_only():
        Yr = regressor(m, Q, V, A)
    np.testing.assert_allclose(Y, Yr, rtol=0, atol=1e-11)
    np.testing.assert_allclose(Y @ model_to_parameters(m), ad.rnea(m, Q, V, A) - ad.spring_torque(m, Q), atol=1e-10)
