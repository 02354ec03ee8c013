"""Energies and momenta: against the mass matrix, the gravity torques, the power and momentum
balances along a motion (central differences), and pinocchio."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.dynamics.energy import _kinetic_energy, _potential_energy
from artidyn.models.zoo import zoo as make_zoo
from artidyn.spatial.motion import force_apply

import pin_build as pb

TOL = 1e-9      # algebraic identities, pinocchio
FD_TOL = 1e-6   # central differences (step DT)
DT = 1e-5
ZOO_LABELS = [label for label, _ in make_zoo(0)]

try:
    import pinocchio as pin
except ImportError:  # pinocchio is a test peer, not a dependency
    pin = None
needs_pin = pytest.mark.skipif(pin is None, reason="pinocchio not installed")


@pytest.fixture(params=ZOO_LABELS)
def model(request, zoo):
    return dict(zoo)[request.param]


def close(x, y, tol=TOL):
    x, y = np.asarray(x), np.asarray(y)
    np.testing.assert_allclose(x, y, rtol=0, atol=tol * max(1.0, float(np.max(np.abs(y)))))


def with_friction(model, rng):
    return model.replace(armature=rng.uniform(0.05, 0.5, model.nv), damping=rng.uniform(0.1, 1.0, model.nv),
                         coulomb=rng.uniform(0.1, 1.0, model.nv))


def rate(fun, model, q, v, a, dt=DT):
    """d/dt fun(q, v) along q' = v, v' = a: central difference on the manifold."""
    return (fun(ad.integrate(model, q, v * dt), v + a * dt) - fun(ad.integrate(model, q, -v * dt), v - a * dt)) / (2 * dt)


def test_kinetic_energy_is_half_v_M_v(model, rng):
    m = model.replace(armature=rng.uniform(0.05, 0.5, model.nv))
    q = ad.random_configuration(m, rng, size=4)
    v = ad.random_velocity(m, rng, size=4)
    close(ad.kinetic_energy(m, q, v), 0.5 * np.einsum("ni,nij,nj->n", v, ad.crba(m, q), v))
    close(ad.mechanical_energy(m, q, v), ad.kinetic_energy(m, q, v) + ad.potential_energy(m, q))
    assert np.ndim(ad.kinetic_energy(m, q[0], v[0])) == 0


def test_potential_energy_gradient_is_gravity_torque(model, rng):
    """dV/dq along each velocity direction (through integrate) equals rnea(q, 0, 0)."""
    q = ad.random_configuration(model, rng)
    E = np.eye(model.nv) * DT
    grad = (ad.potential_energy(model, ad.integrate(model, q, E))
            - ad.potential_energy(model, ad.integrate(model, q, -E))) / (2 * DT)
    close(grad, ad.gravity_torque(model, q), FD_TOL)


def test_complex_step_energy_gradients(zoo, rng):
    """Complex step (no quaternion): dV/dq = g(q) and dT/dv = M(q) v to round-off."""
    m = dict(zoo)["chain_mixed6"].replace(armature=rng.uniform(0.05, 0.5, 6))
    q, v = ad.random_configuration(m, rng), ad.random_velocity(m, rng)
    h = 1e-30
    E = np.eye(m.nv) * 1j * h
    Q, V = np.tile(q, (m.nv, 1)), np.tile(v, (m.nv, 1))
    close(np.imag(_potential_energy(m, Q + E)) / h, ad.gravity_torque(m, q), 1e-12)
    close(np.imag(_kinetic_energy(m, Q, V + E)) / h, ad.crba(m, q) @ v, 1e-12)


def test_power_balance_along_forward_dynamics(model, rng):
    """d(T + V)/dt = v . (tau - friction) + sum_i v_i . f_ext_i along a = aba(q, v, tau, f_ext)."""
    m = with_friction(model, rng)
    q, v = ad.random_configuration(m, rng), ad.random_velocity(m, rng)
    tau = rng.normal(size=m.nv)
    f_ext = rng.normal(size=(m.nb + 1, 6))
    a = ad.aba(m, q, v, tau, f_ext)
    power = v @ (tau - ad.friction_torque(m, v)) + np.sum(ad.body_velocities(m, q, v)[1:] * f_ext[1:])
    close(rate(lambda q_, v_: ad.mechanical_energy(m, q_, v_), m, q, v, a), power, FD_TOL)


def test_momentum_rate_is_total_external_wrench(model, rng):
    """dh/dt = world reaction (row 0 of joint_wrenches) + weight at the com + f_ext, about O."""
    q, v, a = ad.random_configuration(model, rng), ad.random_velocity(model, rng), ad.random_velocity(model, rng)
    f_ext = rng.normal(size=(model.nb + 1, 6))
    reaction = ad.joint_wrenches(model, q, v, a, f_ext)[0]
    weight = model.total_mass * np.asarray(model.gravity)
    gravity = np.concatenate([np.cross(ad.center_of_mass(model, q), weight), weight])
    external = np.sum(force_apply(ad.body_placements(model, q)[1:], f_ext[1:]), axis=0)
    close(rate(lambda q_, v_: ad.momentum(model, q_, v_), model, q, v, a), reaction + gravity + external, FD_TOL)


def test_free_floating_momentum_is_conserved(zoo, rng):
    """No gravity, no base wrench: the momentum of a floating tree is constant under any joint torques."""
    m = dict(zoo)["floating_tree_6"].replace(gravity=np.zeros(3))
    q, v = ad.random_configuration(m, rng), ad.random_velocity(m, rng)
    tau = np.concatenate([np.zeros(6), rng.normal(size=m.nv - 6)])
    a = ad.aba(m, q, v, tau)
    h = ad.momentum(m, q, v)
    assert np.max(np.abs(h)) > 0.1
    close(rate(lambda q_, v_: ad.momentum(m, q_, v_), m, q, v, a), np.zeros(6), FD_TOL)


def test_momentum_and_centroidal_momentum(model, rng):
    q, v = ad.random_configuration(model, rng, size=3), ad.random_velocity(model, rng, size=3)
    h = ad.momentum(model, q, v)
    hg = ad.centroidal_momentum(model, q, v)
    c = ad.center_of_mass(model, q)
    close(h[:, 3:], model.total_mass * ad.com_velocity(model, q, v))
    close(hg[:, 3:], h[:, 3:])
    close(hg[:, :3], h[:, :3] - np.cross(c, h[:, 3:]))


def test_potential_energy_of_a_lifted_floating_base(zoo, rng):
    m = dict(zoo)["floating_chain_3"]
    q = ad.random_configuration(m, rng)
    d = rng.normal(size=3)
    q2 = q.copy()
    q2[:3] += d
    close(ad.potential_energy(m, q2) - ad.potential_energy(m, q), -m.total_mass * np.asarray(m.gravity) @ d)


# --- pinocchio on the zoo -----------------------------------------------------------------



@needs_pin
@pytest.mark.parametrize("label", ZOO_LABELS)
def test_zoo_energies_against_pinocchio(label, zoo, rng):
    m = dict(zoo)[label]
    pm = pb.pin_from_artidyn(m)
    data = pm.createData()
    for _ in range(2):
        q, v = ad.random_configuration(m, rng), ad.random_velocity(m, rng)
        vp = pb.v_to_pin(m, v)
        close(ad.kinetic_energy(m, q, v), pin.computeKineticEnergy(pm, data, q, vp))
        close(ad.potential_energy(m, q), pin.computePotentialEnergy(pm, data, q))
        hg = pin.computeCentroidalMomentum(pm, data, q, vp)
        close(ad.centroidal_momentum(m, q, v), pb.spatial_from_pin(hg.vector))
