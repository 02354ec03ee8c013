"""Big-endian inputs give the same numbers as native ones, even after numba has typed an unaligned
array of the same rank and layout.

numba 0.68 caches the numba type of an array that is not both aligned and native under a
fingerprint that holds neither its byte order nor its alignment: once an unaligned float64 array
has been typed (by any numba function in the process), a big-endian array of the same rank and
layout is taken for it and read as native. artidyn keeps non-native arrays away from numba's
dispatchers (``artidyn.kernels.dispatch.native``): the C path declines them, the batch path
converts them. Before that guard, 17 of these checks returned wrong numbers without an error.
"""
import warnings

import numba as nb
import numpy as np
import pytest

import artidyn as ad


def _unaligned_arrays_typed_by_numba(shapes):
    """Type unaligned float64 arrays of these shapes (C-contiguous and strided, writable and not)
    through a numba function: this fills numba's fingerprint cache as a user's code could."""
    @nb.njit
    def rank(x):
        return x.ndim

    seen = 0
    for shape in shapes:
        n = int(np.prod(shape))
        x = np.frombuffer(bytearray(8 * 2 * n + 1), dtype=float, offset=1, count=2 * n)
        for arr in (x[:n].reshape(shape), x[::2].reshape(shape)):
            for writable in (True, False):
                y = arr.view()
                y.flags.writeable = writable
                assert not y.flags.aligned
                rank(y)
                seen += 1
    return seen


def _flat(r):
    if isinstance(r, tuple):
        return np.concatenate([np.ravel(np.asarray(x, dtype=float)) for x in r])
    return np.ravel(np.asarray(r, dtype=float))


@pytest.mark.parametrize("robot", ["ur5_robot", "solo12"])
def test_big_endian_inputs_after_unaligned_ones(robot):
    m = ad.load(robot)
    q = ad.random_configuration(m, rng=2)
    v, a = np.linspace(-0.5, 0.5, m.nv), np.linspace(0.3, -0.2, m.nv)
    F = np.ones((m.nb + 1, 6))
    frame = m.frame_names[-1]
    dyn = ad.Dynamics(m)
    cases = {
        "rnea": lambda q, v, a: ad.rnea(m, q, v, a),
        "rnea f_ext": lambda q, v, a: ad.rnea(m, q, v, a, f_ext=F),
        "aba": lambda q, v, a: ad.aba(m, q, v, a),
        "aba f_ext": lambda q, v, a: ad.aba(m, q, v, a, f_ext=F),
        "crba": lambda q, v, a: ad.crba(m, q),
        "gravity_torque": lambda q, v, a: ad.gravity_torque(m, q),
        "nonlinear_effects": lambda q, v, a: ad.nonlinear_effects(m, q, v),
        "body_placements": lambda q, v, a: ad.body_placements(m, q),
        "frame_placement": lambda q, v, a: ad.frame_placement(m, q, frame),
        "jacobian": lambda q, v, a: ad.jacobian(m, q, frame),
        "rnea_derivatives": lambda q, v, a: ad.rnea_derivatives(m, q, v, a),
        "aba_derivatives f_ext": lambda q, v, a: ad.aba_derivatives(m, q, v, a, f_ext=F),
        "Dynamics.rnea": lambda q, v, a: dyn.rnea(q, v, a),
        "Dynamics.aba": lambda q, v, a: dyn.aba(q, v, a),
        "Dynamics.crba": lambda q, v, a: dyn.crba(q),
        "Dynamics.aba_derivatives": lambda q, v, a: dyn.aba_derivatives(q, v, a),
        "kinetic_energy": lambda q, v, a: ad.kinetic_energy(m, q, v),
        "simulate": lambda q, v, a: ad.simulate(m, q, v, 0.02, dt=1e-3).q[-1],
        "step_derivatives": lambda q, v, a: ad.sim.step_derivatives(m, q, v, a, 1e-3).A,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # joint-limit warnings of the short simulation
        want = {name: _flat(f(q, v, a)) for name, f in cases.items()}
        assert _unaligned_arrays_typed_by_numba([(m.nq,), (m.nv,), (m.nv, m.nv), (3, m.nv, m.nv), (m.nb + 1, 6),
                                                 (1, m.nq), (4, 4)]) == 28
        wrong = []
        for name, f in cases.items():
            for k in range(3):
                args = [q, v, a]
                args[k] = args[k].astype(">f8")
                assert not args[k].dtype.isnative
                got = _flat(f(*args))
                if not np.allclose(got, want[name], rtol=1e-12, atol=1e-12):
                    wrong.append(f"{name} (argument {k})")
    assert not wrong, wrong
