"""The compiled GAHA, Christoffel symbols and hybrid dynamics (artidyn.kernels.gaha, .christoffel,
.hybrid) against their readable references (artidyn.dynamics), to 1e-10 relative.

Each public function (``gaha``, ``christoffel``, ``hybrid_dynamics``) is called with the kernels on
(the compiled route: one state through the C call or numba's dispatcher, batches through the
parallel entry point) and inside ``artidyn.kernels.reference_only()`` (the reference code), on the
model zoo (chains, trees, spherical joints, floating bases), ur5, solo12 and talos, with armature,
friction, springs and external wrenches. Also: the compiled route does not call the reference
code, and the reference code still reports invalid input.
"""
import importlib

import numpy as np
import pytest

import artidyn as ad
from artidyn import kernels
from artidyn.configuration import random_configuration, random_velocity
from artidyn.errors import InputError
from artidyn.joints import FLAT

from conftest import ERD

gaha_module = importlib.import_module("artidyn.dynamics.gaha")       # the modules (the package
hybrid_module = importlib.import_module("artidyn.dynamics.hybrid")   # re-exports functions of the
lagrange_module = importlib.import_module("artidyn.dynamics.lagrange")  # same names)

TOL = 1e-10
ROBOTS = ["ur5_robot", "solo12", "talos"]
needs_erd = pytest.mark.skipif(ERD is None, reason="example-robot-data not installed")


def close(x, ref, label, tol=TOL):
    """|x - ref| <= tol max(1, max |ref|), entrywise, same shapes."""
    x, ref = np.asarray(x), np.asarray(ref)
    assert x.shape == ref.shape, (label, x.shape, ref.shape)
    scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
    err = float(np.abs(x - ref).max()) if ref.size else 0.0
    assert err <= tol * scale, f"{label}: max error {err:.3g} (scale {scale:.3g})"


def with_joint_terms(model, rng):
    """Armature, friction and springs (on the flat joints, the only ones that take a spring)."""
    flat = np.zeros(model.nv, dtype=bool)
    for i in range(1, model.nb + 1):
        if model.joint_type[i] in FLAT:
            flat[model.idx_v[i]:model.idx_v[i] + model.nv_joint[i]] = True
    return model.replace(armature=rng.uniform(0, 0.5, model.nv), damping=rng.uniform(0, 1, model.nv),
                         coulomb=rng.uniform(0, 1, model.nv),
                         stiffness=np.where(flat, rng.uniform(0, 5, model.nv), 0.0),
                         rest=np.where(flat, rng.uniform(-1, 1, model.nv), 0.0))


@pytest.fixture(scope="module")
def robots():
    if ERD is None:
        pytest.skip("example-robot-data not installed")
    from artidyn.models import example_robot
    rng = np.random.default_rng(3)
    return {name: with_joint_terms(example_robot(name), rng) for name in ROBOTS}


@pytest.fixture(scope="module")
def zoo_models(zoo):
    rng = np.random.default_rng(4)
    return {label: with_joint_terms(m, rng) for label, m in zoo}


def all_models(robots, zoo_models):
    return {**zoo_models, **robots}


def reference(f, *args, **kwargs):
    with kernels.reference_only():
        return f(*args, **kwargs)


def states(model, rng, n):
    Q = random_configuration(model, rng, n)
    return Q, random_velocity(model, rng, n), random_velocity(model, rng, n), rng.normal(size=(n, model.nv))


# --- GAHA ----------------------------------------------------------------------------------------

@needs_erd
def test_gaha_kernel_equals_reference(robots, zoo_models, rng):
    for label, model in all_models(robots, zoo_models).items():
        Q = random_configuration(model, rng, 4)
        M = ad.gaha(model, Q)
        close(M, reference(ad.gaha, model, Q), f"{label} gaha batch")
        close(M, ad.crba(model, Q), f"{label} gaha batch vs crba")
        for k in (0, 3):
            Mk = ad.gaha(model, Q[k])
            close(Mk, reference(ad.gaha, model, Q[k]), f"{label} gaha state {k}")
            close(Mk, M[k], f"{label} gaha state {k} vs batch")
            assert np.array_equal(Mk, Mk.T), label          # mirrored: exactly symmetric


# --- Christoffel symbols -------------------------------------------------------------------------

@needs_erd
def test_christoffel_kernel_equals_reference(robots, zoo_models, rng):
    for label, model in all_models(robots, zoo_models).items():
        n = 2 if label == "talos" else 3
        Q = random_configuration(model, rng, n)
        G = ad.christoffel(model, Q)
        close(G, reference(ad.christoffel, model, Q), f"{label} christoffel batch")
        Gk = ad.christoffel(model, Q[1])
        close(Gk, reference(ad.christoffel, model, Q[1]), f"{label} christoffel state")
        close(Gk, G[1], f"{label} christoffel state vs batch")
        close(G, np.swapaxes(G, 2, 3), f"{label} christoffel symmetric in (j, k)")


@needs_erd
def test_other_argument_forms(robots, rng):
    """Lists, float32, big-endian and strided inputs take the batch route or the reference: same numbers."""
    model = robots["solo12"]
    Q = random_configuration(model, rng, 3)
    for q in (list(Q[0]), Q[0].astype(np.float32), np.repeat(Q, 2, axis=0)[::2], Q[:, None][:, 0], Q[1].astype(">f8")):
        close(ad.gaha(model, q), reference(ad.gaha, model, q), f"gaha {type(q)}")
        close(ad.christoffel(model, q), reference(ad.christoffel, model, q), f"christoffel {type(q)}")
    v, a = random_velocity(model, rng), random_velocity(model, rng)
    joint = model.joint_names[3]
    for x in (v, v.astype(">f8")):
        for args in ((Q[0].astype(">f8"), v, a, x), (Q[0], x, x, a), (Q, v, x, a)):
            out = ad.hybrid_dynamics(model, *args, joint)
            ref = reference(ad.hybrid_dynamics, model, *args, joint)
            close(out.a, ref.a, "hybrid a, byte order")
            close(out.tau, ref.tau, "hybrid tau, byte order")


def test_christoffel_kernel_gives_coriolis_on_flat_joints(zoo_models, rng):
    """1-dof joints: C = Gamma v is the Coriolis matrix (the recursive construction of lagrange)."""
    for label, model in zoo_models.items():
        if lagrange_module._has_quasi_velocities(model):
            continue
        q, v = random_configuration(model, rng), random_velocity(model, rng)
        close(ad.christoffel(model, q) @ v, ad.coriolis_matrix(model, q, v), f"{label} Gamma v = C")


# --- hybrid dynamics -----------------------------------------------------------------------------

def random_prescribed(model, rng):
    """Joint names: a random part of the joints (some none, some all)."""
    names = model.joint_names[1:]
    return [n for n in names if rng.random() < 0.5]


@needs_erd
def test_hybrid_kernel_equals_reference(robots, zoo_models, rng):
    for label, model in all_models(robots, zoo_models).items():
        Q, V, A, T = states(model, rng, 4)
        F = rng.normal(size=(4, model.nb + 1, 6))
        choices = [random_prescribed(model, rng) for _ in range(3)] + [[], list(model.joint_names[1:])]
        for prescribed in choices:
            for kw in ({}, {"f_ext": F}, {"friction": False}):
                out = ad.hybrid_dynamics(model, Q, V, A, T, prescribed, **kw)
                ref = reference(ad.hybrid_dynamics, model, Q, V, A, T, prescribed, **kw)
                close(out.a, ref.a, f"{label} hybrid a batch {prescribed} {list(kw)}")
                close(out.tau, ref.tau, f"{label} hybrid tau batch {prescribed} {list(kw)}")
                kw1 = {"f_ext": F[2]} if "f_ext" in kw else kw
                one = ad.hybrid_dynamics(model, Q[2], V[2], A[2], T[2], prescribed, **kw1)
                ref1 = reference(ad.hybrid_dynamics, model, Q[2], V[2], A[2], T[2], prescribed, **kw1)
                close(one.a, ref1.a, f"{label} hybrid a state {prescribed} {list(kw)}")
                close(one.tau, ref1.tau, f"{label} hybrid tau state {prescribed} {list(kw)}")
                close(one.a, out.a[2], f"{label} hybrid state vs batch")


@needs_erd
def test_hybrid_kernel_inputs(robots, rng):
    """A mask, ignored entries holding NaN, a or tau None, one state with a batch, the limits."""
    model = robots["talos"]
    Q, V, A, T = states(model, rng, 3)
    legs = [n for n in model.joint_names if n.startswith("leg_")]
    mask = hybrid_module.prescribed_mask(model, legs)
    An, Tn = np.where(mask, A, np.nan), np.where(mask, np.nan, T)
    for args in ((Q[0], V[0], An[0], Tn[0]), (Q, V, An, Tn), (Q[0], V, A[0], None), (Q, V[0], None, T[1]),
                 (Q[1], V[1], list(A[1]), T[1].astype(np.float32))):
        for prescribed in (legs, mask):
            out = ad.hybrid_dynamics(model, *args, prescribed)
            ref = reference(ad.hybrid_dynamics, model, *args, prescribed)
            close(out.a, ref.a, "hybrid a")
            close(out.tau, ref.tau, "hybrid tau")
            assert np.all(np.isfinite(out.a)) and np.all(np.isfinite(out.tau))
    F = rng.normal(size=(model.nb + 1, 6))                      # one wrench set for every state
    out = ad.hybrid_dynamics(model, Q, V, A, T, legs, f_ext=F)
    ref = reference(ad.hybrid_dynamics, model, Q, V, A, T, legs, f_ext=F)
    close(out.a, ref.a, "hybrid a, f_ext broadcast")
    close(out.tau, ref.tau, "hybrid tau, f_ext broadcast")
    q, v, a, tau = Q[0], V[0], A[0], T[0]
    everything = ad.hybrid_dynamics(model, q, v, a, None, model.joint_names[1:])
    close(everything.tau, ad.rnea(model, q, v, a), "all prescribed: the RNEA")
    nothing = ad.hybrid_dynamics(model, q, v, None, tau, [])
    close(nothing.a, ad.aba(model, q, v, tau), "none prescribed: the ABA")


# --- the compiled route is taken; the reference code still reports errors -----------------------

def test_compiled_route_does_not_call_the_reference(zoo_models, rng, monkeypatch):
    def refused(*args, **kwargs):
        raise AssertionError("the reference code ran")
    for module, name in ((gaha_module, "_gaha"), (lagrange_module, "_christoffel"), (hybrid_module, "_hybrid")):
        monkeypatch.setattr(module, name, refused)
    model = zoo_models["floating_tree_6"]
    Q, V, A, T = states(model, rng, 3)
    joint = model.joint_names[2]
    for q, v, a, tau in ((Q[0], V[0], A[0], T[0]), (Q, V, A, T)):
        ad.gaha(model, q)
        ad.christoffel(model, q)
        ad.hybrid_dynamics(model, q, v, a, tau, joint)
        ad.hybrid_dynamics(model, q, v, a, tau, joint, f_ext=np.zeros((model.nb + 1, 6)))


def test_invalid_input_reaches_the_reference_errors(zoo_models, rng):
    model = zoo_models["floating_tree_6"]
    q, v = random_configuration(model, rng), random_velocity(model, rng)
    bad = q.copy()
    bad[0] = np.nan
    joint = model.joint_names[2]
    calls = [lambda x: ad.gaha(model, x), lambda x: ad.christoffel(model, x),
             lambda x: ad.hybrid_dynamics(model, x, v, v, v, joint)]
    for f in calls:
        with pytest.raises(InputError) as on:
            f(bad)
        with kernels.reference_only(), pytest.raises(InputError) as off:
            f(bad)
        assert str(on.value) == str(off.value)
    with pytest.raises(InputError):
        ad.hybrid_dynamics(model, q, np.where(np.arange(model.nv) == 0, np.nan, v), v, v, joint)


# --- pinocchio as a peer -------------------------------------------------------------------------

@needs_erd
@pytest.mark.parametrize("stem", ["ur5_robot", "panda"])
def test_christoffel_and_gaha_kernels_vs_pinocchio(stem, rng):
    """Fixed-base arms (1-dof joints, v = qd): the compiled Gamma v is pinocchio's
    computeCoriolisMatrix, the compiled GAHA its crba (by joint name, tests/pin_utils.py)."""
    pin = pytest.importorskip("pinocchio")
    from conftest import erd_urdf
    from pin_utils import from_pin_matrix, pin_model, to_pin_q, to_pin_v
    path = erd_urdf(stem)
    model = ad.load_urdf(path)
    pm = pin_model(path, False, inertias_from=model)
    data = pm.createData()
    for _ in range(3):
        q, v = random_configuration(model, rng), random_velocity(model, rng)
        qp = to_pin_q(model, pm, q)
        C_pin = from_pin_matrix(model, pm, pin.computeCoriolisMatrix(pm, data, qp, to_pin_v(model, pm, v)))
        close(ad.christoffel(model, q) @ v, C_pin, f"{stem} Gamma v vs pinocchio")
        M_pin = from_pin_matrix(model, pm, pin.crba(pm, data, qp))
        close(ad.gaha(model, q), np.triu(M_pin) + np.triu(M_pin, 1).T, f"{stem} gaha vs pinocchio")
