"""The compiled analytical formulations (artidyn.kernels.formulations, the default route of
``analytical.accelerations``) against their readable references (``artidyn.kernels.reference_only()``),
to 1e-9 relative: talos with both soles welded (armature, friction, springs, external wrenches),
solo12 with its four feet held, the nonholonomic examples of ``analytical.examples`` with the
model's velocities, world-axes and user quasi-velocities (rows compiled, or readable for a moving
plane, redundant rows); batches; named independent quasi-velocities; a non-ideal term; the
compiled route runs without the reference; errors are still reported."""
import importlib

import numpy as np
import pytest

from artidyn import analytical as an
from artidyn import kernels
from artidyn.analytical import examples as ex
from artidyn.configuration import random_configuration, random_velocity
from artidyn.constraints import Point, Weld, assemble
from artidyn.errors import InputError

from conftest import ERD
from test_fast_formulations import with_joint_terms

results_module = importlib.import_module("artidyn.analytical.results")
ALL = ("gibbs_appell", "kane", "maggi", "boltzmann_hamel", "udwadia_kalaba", "lagrange")
TOL = 1e-9
needs_erd = pytest.mark.skipif(ERD is None, reason="example-robot-data not installed")


def close(x, ref, label, tol=TOL):
    x, ref = np.asarray(x), np.asarray(ref)
    assert x.shape == ref.shape, (label, x.shape, ref.shape)
    scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
    err = float(np.abs(x - ref).max()) if ref.size else 0.0
    assert err <= tol * scale, f"{label}: max error {err:.3g} (scale {scale:.3g})"


def reference(*args, **kw):
    with kernels.reference_only():
        return an.accelerations(*args, **kw)


def same(out, ref, label):
    close(out.a, ref.a, f"{label} a")
    close(out.dv, ref.dv, f"{label} dv")
    close(out.constraint_force, ref.constraint_force, f"{label} constraint force")
    assert (out.multipliers is None) == (ref.multipliers is None), label
    if ref.multipliers is not None:
        close(out.multipliers, ref.multipliers, f"{label} multipliers")
    assert np.all(np.asarray(out.residual) <= TOL * max(1.0, np.abs(ref.dv).max())), label
    assert out.method == ref.method


def compare(system, q, v, tau, method, label, **kw):
    out = an.accelerations(system, q, v, tau, method=method, **kw)
    same(out, reference(system, q, v, tau, method=method, **kw), f"{label} {method}")
    return out


@pytest.fixture(scope="module")
def talos():
    from artidyn.models import example_robot
    rng = np.random.default_rng(36)
    model = with_joint_terms(example_robot("talos"), rng)
    q = random_configuration(model, rng)
    return an.System(model, [Weld(f, at=q) for f in ("left_sole_link", "right_sole_link")]), q, rng


# --- real robots ---------------------------------------------------------------------------------

@needs_erd
@pytest.mark.parametrize("method", ALL)
def test_talos_welded_soles(talos, method):
    system, q, rng = talos
    m = system.model
    v, tau = random_velocity(m, rng), rng.normal(size=m.nv)
    compare(system, q, v, tau, method, "talos")
    F = rng.normal(size=(m.nb + 1, 6))
    compare(system, q, v, tau, method, "talos f_ext, no friction", f_ext=F, friction=False)


@needs_erd
def test_solo12_feet_held():
    from artidyn.models import example_robot
    rng = np.random.default_rng(12)
    model = example_robot("solo12")
    q = random_configuration(model, rng)
    system = an.System(model, [Point(f, at=q) for f in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")])
    v, tau = random_velocity(model, rng), rng.normal(size=model.nv)
    for method in ALL:
        compare(system, q, v, tau, method, "solo12")


# --- the nonholonomic examples, quasi-velocities ---------------------------------------------------

SYSTEMS = {"disk": ex.rolling_disk, "sphere": ex.rolling_sphere,
           "turntable": lambda: ex.rolling_sphere(plane_omega=1.5), "sleigh": ex.chaplygin_sleigh, "diffdrive": lambda: ex.differential_drive(com_offset=0.08),
           "unicycle": ex.unicycle}


def user_quasi_velocities(m, rng):
    K = rng.normal(size=(m.nv, m.nv)) * 0.3

    def B(q):
        return np.eye(m.nv) + K * np.sin(q[0] + 0.3) * 0.5 + np.diag(np.cos(q[1]) * 0.2 * np.ones(m.nv))
    return B


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_nonholonomic_examples(name):
    """Rolling disk and sphere (rows compiled), a sphere on a turntable (moving plane: readable rows
    handed to the kernel), the Chaplygin sleigh, a differential drive (four rows of rank 3:
    least-norm multipliers) and a unicycle; each with the model's velocities, world-axes
    quasi-velocities where there is a floating base, and a configuration-dependent B(q)."""
    rng = np.random.default_rng(sorted(SYSTEMS).index(name))
    base = SYSTEMS[name]()
    m = base.model
    choices = [None, user_quasi_velocities(m, rng)] + (["world"] if m.nq >= 7 else [])
    for quasi in choices:
        system = an.System(m, base.constraints, quasi_velocities=quasi)
        q = random_configuration(m, rng)
        if m.nq >= 7:
            q[2] = 0.3
        asm = assemble(m, q, system.constraints, v=rng.normal(size=m.nv))
        tau = rng.normal(size=m.nv)
        for method in ALL:
            compare(system, asm.q, asm.v, tau, method, f"{name} {quasi}")
        if system.quasi:          # the quasi-velocities given instead of v
            w = system.quasi_velocities(asm.q, asm.v)
            out = an.accelerations(system, asm.q, w=w, tau=tau, method="boltzmann_hamel")
            same(out, reference(system, asm.q, w=w, tau=tau, method="boltzmann_hamel"), f"{name} w=")


def test_named_independent_and_nonideal():
    """The sleigh with its independent quasi-velocities named (Gibbs-Appell, Kane) and a drag
    along the blade as a non-ideal term (every method); a wrong choice is the reference's error."""
    s = ex.chaplygin_sleigh()
    rng = np.random.default_rng(5)

    def C(q, v, t):
        d = np.array([np.cos(q[2]), np.sin(q[2]), 0.0])
        return -0.7 * (d @ v) * d
    for system in (an.System(s.model, s.constraints, independent=[0, 2], nonideal=C),
                   an.System(s.model, s.constraints, independent=[1, 2])):
        asm = assemble(s.model, np.array([0.1, -0.2, 0.6]), system.constraints, v=rng.normal(size=3))
        for method in ALL:
            compare(system, asm.q, asm.v, rng.normal(size=3), method, f"sleigh {system.independent}")
    for named, message in (([2], "1 independent quasi-velocities named, the constraints leave 2"),
                           ([0, 0], "do not determine the others")):
        wrong = an.System(s.model, s.constraints, independent=named)
        for compiled in (True, False):
            previous = kernels.use_kernels(compiled)
            try:
                with pytest.raises(InputError, match=message):
                    an.accelerations(wrong, np.zeros(3), np.zeros(3), method="kane")
            finally:
                kernels.use_kernels(previous)


# --- batches ---------------------------------------------------------------------------------------

@needs_erd
def test_batches_equal_the_states(talos):
    """(N, nq) states give (N, nv) results, each the reference's for its state: per-state or one
    shared q, tau and wrenches; a quasi-velocity system with readable rows; a state the kernel
    declines (NaN) raises the reference's error."""
    system, q0, rng = talos
    m = system.model
    Q = np.stack([q0, q0, q0])
    Q[1, 7:] += 0.01 * rng.normal(size=m.nq - 7)
    V, T = random_velocity(m, rng, 3), rng.normal(size=(3, m.nv))
    F = rng.normal(size=(3, m.nb + 1, 6))
    for method in ("gibbs_appell", "boltzmann_hamel", "udwadia_kalaba"):
        for args, kw in (((Q, V, T), {"f_ext": F}), ((q0, V, T[0]), {})):
            out = an.accelerations(system, *args, method=method, **kw)
            assert out.dv.shape == (3, m.nv) and out.residual.shape == (3,)
            for k in range(3):
                one = [x if np.ndim(x) == 1 else x[k] for x in args]
                ref = reference(system, *one, method=method, **({"f_ext": F[k]} if kw else {}))
                close(out.dv[k], ref.dv, f"{method} batch state {k}")
                close(out.constraint_force[k], ref.constraint_force, f"{method} batch state {k} force")
                if ref.multipliers is not None:
                    close(out.multipliers[k], ref.multipliers, f"{method} batch state {k} multipliers")
    turn = SYSTEMS["turntable"]()
    system = an.System(turn.model, turn.constraints, quasi_velocities="world")
    Q = random_configuration(turn.model, rng, 2)
    Q[:, 2] = 0.1
    V = np.stack([assemble(turn.model, q, turn.constraints, v=rng.normal(size=6)).v for q in Q])
    for method in ALL:
        out = an.accelerations(system, Q, V, method=method)
        with kernels.reference_only():
            ref = an.accelerations(system, Q, V, method=method)
        same(out, ref, f"turntable batch {method}")
    bad = np.array(V)
    bad[1, 0] = np.nan
    with pytest.raises(InputError) as on:
        an.accelerations(system, Q, bad, method="kane")
    with pytest.raises(InputError) as off:
        reference(system, Q[1], bad[1], method="kane")
    assert str(on.value) == str(off.value)


# --- the route taken -------------------------------------------------------------------------------

def test_compiled_route_does_not_call_the_reference(monkeypatch, rng):
    def refused(*args, **kwargs):
        raise AssertionError("the reference code ran")
    monkeypatch.setattr(results_module, "Terms", refused)
    system = ex.rolling_disk()
    q, v = ex.rolling_disk_state(0.5, 3.0, lean=0.2)
    for method in ALL:
        an.accelerations(system, q, v, method=method)
        an.accelerations(system, np.stack([q, q]), np.stack([v, v]), method=method)
    with pytest.raises(AssertionError, match="reference code ran"):
        with kernels.reference_only():
            an.accelerations(system, q, v)


def test_invalid_input_reaches_the_reference_errors():
    system = ex.rolling_disk()
    q, v = ex.rolling_disk_state(0.5, 3.0, lean=0.2)
    for bad_q in (np.where(np.arange(7) == 0, np.nan, q), q * 1.1):
        with pytest.raises(InputError) as on:
            an.accelerations(system, bad_q, v, method="maggi")
        with kernels.reference_only(), pytest.raises(InputError) as off:
            an.accelerations(system, bad_q, v, method="maggi")
        assert str(on.value) == str(off.value)
