"""The compiled kernels (artidyn.kernels) against the readable reference code, to 1e-12.

Each kernel (single-state and parallel batch entry points, through artidyn.kernels.dispatch and
through the public functions) is compared with the reference batch functions (_rnea, _aba,
_crba, _placements, _jacobian) on the model zoo and on example-robot-data robots, with armature,
friction and external wrenches. Also: the kernels' own sin/cos and axis frames, the fallback to
the reference code for complex input and for invalid input (same errors), broadcasting.
"""
import numpy as np
import pytest

import artidyn
from artidyn import kernels
from artidyn.configuration import random_configuration, random_velocity
from artidyn.dynamics.aba import _aba
from artidyn.dynamics.crba import _crba
from artidyn.dynamics.rnea import _rnea
from artidyn.errors import InputError, ShapeError
from artidyn.kernels import dispatch as kd
from artidyn.kernels.pack import axis_frame
from artidyn.kinematics.jacobians import _jacobian
from artidyn.kinematics.placements import _frame_on_body, _placements

from conftest import erd_urdf

N = 4
ROBOTS = [("ur5_robot", False), ("panda", False), ("solo12", True), ("talos_full_v2", True)]


def close(x, ref, label):
    """|x - ref| <= 1e-12 max(1, max |ref|), entrywise."""
    x, ref = np.asarray(x), np.asarray(ref)
    assert x.shape == ref.shape, (label, x.shape, ref.shape)
    scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
    err = float(np.abs(x - ref).max()) if ref.size else 0.0
    assert err <= 1e-12 * scale, f"{label}: max error {err:.3g} (scale {scale:.3g})"


def with_friction(model, rng):
    return model.replace(armature=rng.uniform(0, 0.5, model.nv), damping=rng.uniform(0, 1, model.nv),
                         coulomb=rng.uniform(0, 1, model.nv))


@pytest.fixture(scope="module")
def models(zoo):
    rng = np.random.default_rng(7)
    out = [(label, with_friction(m, rng)) for label, m in zoo]
    for stem, floating in ROBOTS:
        out.append((stem, with_friction(artidyn.load_urdf(erd_urdf(stem), floating_base=floating), rng)))
    return out


def states(model, rng, n=N):
    Q = random_configuration(model, rng, n)
    V, A = random_velocity(model, rng, n), random_velocity(model, rng, n)
    F = rng.normal(size=(n, model.nb + 1, 6))
    return Q, V, A, F


def test_dynamics_kernels_equal_reference(models, rng):
    for label, m in models:
        Q, V, A, F = states(m, rng)
        for friction in (True, False):
            for f in (F, None):
                ref = _rnea(m, Q, V, A, f, friction)
                close(kd.rnea(m, Q, V, A, f, friction), ref, f"{label} rnea batch")
                for k in range(N):
                    close(kd.rnea(m, Q[k], V[k], A[k], None if f is None else f[k], friction), ref[k],
                          f"{label} rnea single")
                tau = ref
                ref = _aba(m, Q, V, tau, f, friction)
                close(ref, A, f"{label} aba(rnea) reference")
                close(kd.aba(m, Q, V, tau, f, friction), ref, f"{label} aba batch")
                for k in range(N):
                    close(kd.aba(m, Q[k], V[k], tau[k], None if f is None else f[k], friction), ref[k],
                          f"{label} aba single")
        ref = _crba(m, Q)
        close(kd.crba(m, Q), ref, f"{label} crba batch")
        close(kd.crba(m, Q[1]), ref[1], f"{label} crba single")
        Z = np.zeros_like(V)
        close(kd.gravity_torque(m, Q), _rnea(m, Q, Z, Z, None, False), f"{label} gravity")
        close(kd.nonlinear_effects(m, Q[0], V[0]), _rnea(m, Q[:1], V[:1], Z[:1], None, False)[0],
              f"{label} nonlinear effects")


def frames_of(model):
    """A few frames: the last operational/link frames, a body name, a body in the middle."""
    names = [f.name for f in model.frames if f.kind in ("op", "link")][-2:]
    return names + [model.body_names[-1], model.body_names[(model.nb + 1) // 2]]


def test_kinematics_kernels_equal_reference(models, rng):
    for label, m in models:
        Q = random_configuration(m, rng, N)
        T = _placements(m, Q)
        close(kd.body_placements(m, Q), T, f"{label} placements batch")
        close(kd.body_placements(m, Q[2]), T[2], f"{label} placements single")
        for name in frames_of(m):
            body, P = _frame_on_body(m, name)
            close(kd.frame_placement(m, Q, body, P), T[:, body] @ P, f"{label} frame {name}")
            close(kd.frame_placement(m, Q[0], body, P), T[0, body] @ P, f"{label} frame {name}")
            for expressed in ("world", "local"):
                for point in (None, np.array([0.1, -0.2, 0.3])):
                    ref = _jacobian(m, Q, T, name, expressed, point)
                    body, P = _frame_on_body(m, name, point)
                    close(kd.jacobian(m, Q, body, P, expressed), ref, f"{label} J {name} {expressed}")
                    close(kd.jacobian(m, Q[3], body, P, expressed), ref[3], f"{label} J {name} {expressed}")


def test_public_functions_use_the_kernels_and_match_reference(models, rng):
    label, m = models[4]  # a floating tree
    Q, V, A, F = states(m, rng, 3)
    calls = [
        lambda q, v, a: artidyn.rnea(m, q, v, a, F[0]),
        lambda q, v, a: artidyn.aba(m, q, v, a),
        lambda q, v, a: artidyn.crba(m, q),
        lambda q, v, a: artidyn.gravity_torque(m, q),
        lambda q, v, a: artidyn.nonlinear_effects(m, q, v),
        lambda q, v, a: artidyn.body_placements(m, q),
        lambda q, v, a: artidyn.frame_placement(m, q, "tcp"),
        lambda q, v, a: artidyn.jacobian(m, q, "tcp", "local", point=[0.1, 0, 0]),
    ]
    for k, call in enumerate(calls):
        for args in ((Q, V, A), (Q[0], V[0], A[0]), (Q[0], V, A)):  # batch, single, broadcast
            fast = call(*args)
            with kernels.reference_only():
                ref = call(*args)
            close(fast, ref, f"public function {k}")


def test_single_and_batch_paths_are_the_compiled_ones(models):
    label, m = models[0]
    q = random_configuration(m, 0)
    z = np.zeros(m.nv)
    assert kd.rnea(m, q, z, z) is not None and kd.rnea(m, q[None], z, z[None]) is not None
    assert kd.crba(m, [float(x) for x in q]) is not None  # a list converts
    kd.use_kernels(False)
    try:
        assert kd.rnea(m, q, z, z) is None and not kernels.kernels_enabled()
    finally:
        kd.use_kernels(True)


def test_batch_chunks_cover_every_state(models, rng):
    from artidyn.kernels import batch
    label, m = models[2]
    Q, V, A, _ = states(m, rng, 37)
    ref = _rnea(m, Q, V, A, None, True)
    for nchunk in (1, 3, 8, 100):
        out = np.empty((37, m.nv))
        assert batch.batch(kd._table(m), batch.RNEA, Q, V, A, kd._NO_F3, 0, kd._EYE4, 1, out, nchunk) == -1
        close(out, ref, f"nchunk {nchunk}")


def test_complex_and_invalid_inputs_take_the_reference_path(models, rng):
    label, m = models[4]
    q = random_configuration(m, rng)
    v, a = random_velocity(m, rng), random_velocity(m, rng)
    # complex step: the reference runs (kernels refuse complex), imaginary part = directional derivative
    h = 1e-30
    tau_c = artidyn.rnea(m, q, v, a + 1j * h * np.eye(m.nv)[0], friction=False)
    M = artidyn.crba(m, q)
    np.testing.assert_allclose(tau_c.imag / h, M[:, 0], atol=1e-10)
    bad = v.copy()
    bad[1] = np.nan
    with pytest.raises(InputError):
        artidyn.rnea(m, q, bad, a)
    with pytest.raises(InputError):
        artidyn.aba(m, np.stack([q, q]), np.stack([v, bad]), np.stack([a, a]))
    with pytest.raises(ShapeError):
        artidyn.crba(m, q[:-1])
    with pytest.raises(ShapeError):
        artidyn.rnea(m, q, v, a[:-1])
    with pytest.raises(ShapeError):
        artidyn.rnea(m, q, v, a, f_ext=np.zeros((m.nb, 6)))
    q_bad = q.copy()
    q_bad[3:7] *= 1.1  # floating base quaternion far from unit
    with pytest.raises(InputError):
        artidyn.body_placements(m, q_bad)
    q_near = q.copy()
    q_near[3:7] *= 1 + 1e-8  # within tolerance: normalised, as the reference does
    with kernels.reference_only():
        ref = artidyn.jacobian(m, q_near, "tcp")
    close(artidyn.jacobian(m, q_near, "tcp"), ref, "near-unit quaternion")


@pytest.mark.compiles  # a numba helper called from Python, as no public call does
def test_sin_cos():
    import numba

    from artidyn.kernels import spatial

    @numba.njit
    def both(x):
        s, c = np.empty_like(x), np.empty_like(x)
        for k in range(x.shape[0]):
            s[k], c[k] = spatial.sin_cos(x[k])
        return s, c

    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-40, 40, 20000), np.linspace(-7, 7, 2001) * np.pi / 4,
                        [0.0, -0.0, 1e-300, 3e5, 2e6, -1e7]])
    s, c = both(x)
    assert np.abs(s - np.sin(x)).max() <= 4e-16
    assert np.abs(c - np.cos(x)).max() <= 4e-16
    # the Cody-Waite split of pi/2: 33-bit heads, sum equal to pi/2 to ~1e-37
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 60
    parts = [spatial.PIO2_1, spatial.PIO2_2, spatial.PIO2_3]
    assert abs(sum(mpmath.mpf(p) for p in parts) - mpmath.pi / 2) < 1e-36
    for p in parts[:2]:  # k * p exact for |k| < 2^20
        assert p.as_integer_ratio()[0].bit_length() <= 33


def test_axis_frame_maps_z_to_the_axis(rng):
    axes = [np.eye(3)[k] * s for k in range(3) for s in (1, -1)] + list(rng.normal(size=(20, 3)))
    for a in axes:
        a = a / np.linalg.norm(a)
        Ra = axis_frame(a)
        np.testing.assert_allclose(Ra @ Ra.T, np.eye(3), atol=1e-15)
        assert abs(np.linalg.det(Ra) - 1) < 1e-14
        np.testing.assert_allclose(Ra[:, 2], a, atol=1e-15)
    assert np.array_equal(axis_frame([0, 0, 1]), np.eye(3))
