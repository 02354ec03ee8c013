"""Analytical derivatives of RNEA and ABA (artidyn.dynamics.derivatives).

Held against: complex-step differentiation of the dtype-generic reference rnea / aba (q moved
on the manifold along q + i h qdot(q, unit_k), the first-order map of integrate), the CRBA and
its inverse, and pinocchio's computeRNEADerivatives / computeABADerivatives.
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.constraints.nonholonomic import qdot
from artidyn.dynamics.aba import _aba
from artidyn.dynamics.rnea import _rnea
from artidyn.errors import InputError, ShapeError
from artidyn.models.zoo import random_tree

import pin_build as pb
import pin_utils as pu
from conftest import erd_urdf

CS_TOL = 1e-10      # complex step, relative to the largest entry
PIN_TOL = 1e-9      # against pinocchio
H = 1e-30
JOINTS = ("revolute", "prismatic", "spherical", "cylindrical")

try:
    import pinocchio as pin
except ImportError:  # pinocchio is a test peer, not a dependency
    pin = None
needs_pin = pytest.mark.skipif(pin is None, reason="pinocchio not installed")


def close(x, y, tol):
    x, y = np.asarray(x), np.asarray(y)
    scale = max(1.0, float(np.max(np.abs(y))))
    np.testing.assert_allclose(x, y, rtol=0, atol=tol * scale)


def tangent_steps(model, q):
    """(nv, nq) complex configurations q + i H qdot(q, unit_k), one per velocity dof k."""
    return np.array([q + 1j * H * qdot(model, q, e) for e in np.eye(model.nv)])


def cs_jacobians(fn, model, q, v, x, F=None):
    """Complex-step d fn / dq (tangent), d fn / dv and d fn / dx of fn(model, Q, V, X, F): (nv, nv) each."""
    nv = model.nv
    c = lambda y: np.broadcast_to(np.asarray(y, complex), (nv, y.size)).copy()  # noqa: E731
    Fc = None if F is None else np.broadcast_to(np.asarray(F, complex), (nv,) + F.shape).copy()
    eye = 1j * H * np.eye(nv)
    d_q = fn(model, tangent_steps(model, q), c(v), c(x), Fc).imag.T / H
    d_v = fn(model, c(q), c(v) + eye, c(x), Fc).imag.T / H
    d_x = fn(model, c(q), c(v), c(x) + eye, Fc).imag.T / H
    return d_q, d_v, d_x


def state(model, rng):
    return ad.random_configuration(model, rng), rng.normal(size=model.nv), rng.normal(size=model.nv)


def with_extras(model, rng):
    """Armature, viscous damping and springs on the flat dofs (Coulomb left out: nonsmooth)."""
    flat = np.zeros(model.nv, bool)
    for i in range(1, model.nb + 1):
        if model.joint_type[i] in ad.joints.FLAT:
            flat[model.idx_v[i]: model.idx_v[i] + model.nv_joint[i]] = True
    return model.replace(armature=rng.uniform(0.05, 0.5, model.nv), damping=rng.uniform(0.1, 1.0, model.nv),
                         stiffness=np.where(flat, rng.uniform(1, 10, model.nv), 0.0),
                         rest=np.where(flat, rng.uniform(-0.5, 0.5, model.nv), 0.0))


@pytest.fixture(scope="module")
def trees():
    rng = np.random.default_rng(7)
    return {(fl, branching): random_tree(rng, nb=8, floating=fl, joint_types=JOINTS, branching=branching)
            for fl in (False, True) for branching in (0.0, 0.6)}


@pytest.mark.parametrize("floating", [False, True])
@pytest.mark.parametrize("branching", [0.0, 0.6])
@pytest.mark.parametrize("extras", [False, True])
def test_rnea_derivatives_complex_step_random_trees(trees, floating, branching, extras, rng):
    m = trees[floating, branching]
    if extras:
        m = with_extras(m, rng)
    q, v, a = state(m, rng)
    F = rng.normal(size=(m.nb + 1, 6)) if extras else None
    d = ad.rnea_derivatives(m, q, v, a, F)
    cs_q, cs_v, cs_a = cs_jacobians(_rnea, m, q, v, a, F)
    close(d.dtau_dq, cs_q, CS_TOL)
    close(d.dtau_dv, cs_v, CS_TOL)
    close(d.M, cs_a, CS_TOL)
    close(d.M, ad.crba(m, q), CS_TOL)
    assert np.max(np.abs(d.dtau_dq)) > 1e-3 and np.max(np.abs(d.dtau_dv)) > 1e-3


@pytest.mark.parametrize("name", ["ur5_robot", "panda", "solo12", "talos_reduced"])
def test_rnea_derivatives_complex_step_robots(name, rng):
    m = ad.models.example_robot(name)
    q, v, a = state(m, rng)
    F = rng.normal(size=(m.nb + 1, 6))
    d = ad.rnea_derivatives(m, q, v, a, F, friction=False)
    cs_q, cs_v, _ = cs_jacobians(lambda *x: _rnea(*x, friction=False), m, q, v, a, F)
    close(d.dtau_dq, cs_q, CS_TOL)
    close(d.dtau_dv, cs_v, CS_TOL)
    close(d.M, ad.crba(m, q), CS_TOL)


@pytest.mark.parametrize("floating", [False, True])
def test_aba_derivatives_complex_step(trees, floating, rng):
    m = with_extras(trees[floating, 0.6], rng)
    q, v, tau = state(m, rng)
    F = rng.normal(size=(m.nb + 1, 6))
    d = ad.aba_derivatives(m, q, v, tau, F)
    cs_q, cs_v, cs_tau = cs_jacobians(_aba, m, q, v, tau, F)
    close(d.da_dq, cs_q, CS_TOL)
    close(d.da_dv, cs_v, CS_TOL)
    close(d.Minv, cs_tau, CS_TOL)
    close(d.Minv @ ad.crba(m, q), np.eye(m.nv), CS_TOL)
    # Carpentier & Mansard's identity, spelled out
    a = ad.aba(m, q, v, tau, F)
    r = ad.rnea_derivatives(m, q, v, a, F)
    close(r.M @ d.da_dq, -r.dtau_dq, CS_TOL)


def test_coulomb_friction_has_zero_derivative(trees, rng):
    m = trees[False, 0.0]
    q, v, a = state(m, rng)
    mc = m.replace(coulomb=rng.uniform(0.1, 1.0, m.nv), damping=rng.uniform(0.1, 1.0, m.nv))
    d0 = ad.rnea_derivatives(m, q, v, a)
    d1 = ad.rnea_derivatives(mc, q, v, a)
    close(d1.dtau_dv - d0.dtau_dv, np.diag(mc.damping), 1e-12)
    close(ad.rnea_derivatives(mc, q, v, a, friction=False).dtau_dv, d0.dtau_dv, 1e-12)
    close(d1.dtau_dq, d0.dtau_dq, 1e-12)
    # and aba: Coulomb shifts a, not the derivative formula; check against complex step in v
    da = ad.aba_derivatives(mc, q, v, a)
    _, cs_v, _ = cs_jacobians(_aba, mc, q, v, a)
    close(da.da_dv, cs_v, CS_TOL)


def test_batches_equal_single_calls(trees, rng):
    m = with_extras(trees[True, 0.6], rng)
    N = 3
    q = ad.random_configuration(m, rng, size=N)
    v, a = rng.normal(size=(N, m.nv)), rng.normal(size=(N, m.nv))
    F = rng.normal(size=(N, m.nb + 1, 6))
    rb, ab = ad.rnea_derivatives(m, q, v, a, F), ad.aba_derivatives(m, q, v, a, F)
    assert rb.dtau_dq.shape == (N, m.nv, m.nv) and ab.Minv.shape == (N, m.nv, m.nv)
    for n in range(N):
        for x, y in zip(rb, ad.rnea_derivatives(m, q[n], v[n], a[n], F[n])):
            close(x[n], y, 1e-13)
        for x, y in zip(ab, ad.aba_derivatives(m, q[n], v[n], a[n], F[n])):
            close(x[n], y, 1e-13)
    # one configuration with a batch of velocities, one f_ext for all states
    r1 = ad.rnea_derivatives(m, q[0], v, a, F[0])
    close(r1.M[2], rb.M[0], 1e-13)
    close(r1.dtau_dv[1], ad.rnea_derivatives(m, q[0], v[1], a[1], F[0]).dtau_dv, 1e-13)


def test_bad_inputs(trees):
    m = trees[True, 0.0]
    q, z = ad.neutral(m), np.zeros(m.nv)
    with pytest.raises(ShapeError):
        ad.rnea_derivatives(m, q[:-1], z, z)
    with pytest.raises(ShapeError):
        ad.aba_derivatives(m, q, z[:-1], z)
    with pytest.raises(ShapeError):
        ad.rnea_derivatives(m, q, z, z, f_ext=np.zeros((m.nb, 6)))
    with pytest.raises(InputError):
        ad.rnea_derivatives(m, q, z, np.full(m.nv, np.nan))
    bad = q.copy()
    bad[3:7] = [0, 0, 0, 2.0]
    with pytest.raises(InputError, match="unit quaternion"):
        ad.aba_derivatives(m, bad, z, z)


# --- pinocchio ----------------------------------------------------------------------------------

URDF_ROBOTS = [("ur5_robot", False), ("panda", False), ("solo12", True)]


def pin_forces(m, pm, f_ext):
    """artidyn f_ext (nb+1, 6) -> pinocchio forces per joint id, in the joint (= body) frame."""
    out = pin.StdVec_Force()
    for _ in range(pm.njoints):
        out.append(pin.Force.Zero())
    for i, jid, _ in pu.joint_map(m, pm):
        out[jid] = pin.Force(f_ext[i, 3:].copy(), f_ext[i, :3].copy())
    return out


@needs_pin
@pytest.mark.parametrize("stem, floating", URDF_ROBOTS)
def test_against_pinocchio_urdf_robots(stem, floating, rng):
    path = erd_urdf(stem)
    m = ad.load_urdf(path, floating_base=floating)
    pm = pu.pin_model(path, floating, inertias_from=m if pu.repaired_links(m) else None)
    data = pm.createData()
    q, v, a = state(m, rng)
    F = rng.normal(size=(m.nb + 1, 6))
    qp, vp, ap, fp = pu.to_pin_q(m, pm, q), pu.to_pin_v(m, pm, v), pu.to_pin_v(m, pm, a), pin_forces(m, pm, F)
    d = ad.rnea_derivatives(m, q, v, a, F, friction=False)
    pin.computeRNEADerivatives(pm, data, qp, vp, ap, fp)
    close(d.dtau_dq, pu.from_pin_matrix(m, pm, data.dtau_dq), PIN_TOL)
    close(d.dtau_dv, pu.from_pin_matrix(m, pm, data.dtau_dv), PIN_TOL)
    Mp = data.M
    close(d.M, pu.from_pin_matrix(m, pm, np.triu(Mp) + np.triu(Mp, 1).T), PIN_TOL)
    tau = rng.normal(size=m.nv)
    da = ad.aba_derivatives(m, q, v, tau, F, friction=False)
    pin.computeABADerivatives(pm, data, qp, vp, pu.to_pin_v(m, pm, tau), fp)
    close(da.da_dq, pu.from_pin_matrix(m, pm, data.ddq_dq), PIN_TOL)
    close(da.da_dv, pu.from_pin_matrix(m, pm, data.ddq_dv), PIN_TOL)
    Minv = data.Minv
    close(da.Minv, pu.from_pin_matrix(m, pm, np.triu(Minv) + np.triu(Minv, 1).T), PIN_TOL)


@needs_pin
@pytest.mark.parametrize("floating", [False, True])
def test_against_pinocchio_spherical_trees(floating):
    """Random trees of revolute, prismatic and spherical joints (pinocchio has no twin of the
    cylindrical joint here), floating or not: the spherical tangent convention agrees."""
    rng = np.random.default_rng(11)
    m = random_tree(rng, nb=8, floating=floating, joint_types=("revolute", "prismatic", "spherical"), branching=0.6)
    pm = pb.pin_from_artidyn(m)
    data = pm.createData()
    q, v, a = state(m, rng)
    F = rng.normal(size=(m.nb + 1, 6))
    perm = pb.v_to_pin(m, np.arange(m.nv)).astype(int)          # v_pin = v[perm]
    inv = np.argsort(perm)
    back = lambda X: np.asarray(X)[np.ix_(inv, inv)]            # noqa: E731
    d = ad.rnea_derivatives(m, q, v, a, F, friction=False)
    pin.computeRNEADerivatives(pm, data, q, v[perm], a[perm], pb.forces_to_pin(m, F))
    close(d.dtau_dq, back(data.dtau_dq), PIN_TOL)
    close(d.dtau_dv, back(data.dtau_dv), PIN_TOL)
    da = ad.aba_derivatives(m, q, v, a, F, friction=False)
    pin.computeABADerivatives(pm, data, q, v[perm], a[perm], pb.forces_to_pin(m, F))
    close(da.da_dq, back(data.ddq_dq), PIN_TOL)
    close(da.da_dv, back(data.ddq_dv), PIN_TOL)


def test_symbolic_dtype_generic():
    """The same passes run on SymPy objects: d tau/dq of a 2-joint arm equals sympy's diff of
    the symbolic reference rnea."""
    sp = pytest.importorskip("sympy")
    rng = np.random.default_rng(3)
    m = random_tree(rng, nb=2, floating=False, joint_types=("revolute", "prismatic"), branching=0.0)
    qs = np.array(sp.symbols("q0 q1"), dtype=object)
    v, a = rng.normal(size=2), rng.normal(size=2)
    obj = lambda x: np.asarray(x, dtype=object)[None]           # noqa: E731
    d = ad.dynamics.derivatives._rnea_derivatives(m, qs[None], obj(v), obj(a))
    tau = _rnea(m, qs[None], obj(v), obj(a))[0]
    q0 = {qs[0]: 0.3, qs[1]: -0.2}
    ref = np.array([[float(sp.diff(tau[r], qs[c]).subs(q0)) for c in range(2)] for r in range(2)])
    got = np.array([[float(sp.sympify(d[0][0, r, c]).subs(q0)) for c in range(2)] for r in range(2)])
    close(got, ref, 1e-12)
    close(got, ad.rnea_derivatives(m, [0.3, -0.2], v, a).dtau_dq, 1e-12)
