"""Bilateral constraints: analytic cases, the three solution routes against each other, the
multipliers against the joint reactions of the same mechanism built as a tree, redundancy,
inverse dynamics and assembly. (Against pinocchio: tests/test_constraints_pin.py.)
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn import ModelBuilder
from artidyn.constraints import (Coupling, Distance, Hinge, Holonomic, Point, Weld, assemble, constrained_dynamics,
                                 constrained_inverse_dynamics, constraint_terms)
from artidyn.errors import InputError
from artidyn.models import random_tree
from artidyn.spatial import quat_to_matrix

G = 9.81
METHODS = ("sparse", "kkt", "schur", "nullspace")


def cartesian_point(m=2.0):
    """A point mass on two prismatic joints (x, y), gravity -y: the Cartesian pendulum's carrier."""
    b = ModelBuilder("xy_mass", gravity=(0.0, -G, 0.0))
    b.add_body("sx", "world", "prismatic", joint_name="x", axis=(1, 0, 0), mass=0.0)
    b.add_body("mass", "sx", "prismatic", joint_name="y", axis=(0, 1, 0), mass=m)
    return b.build()


# --- analytic cases ----------------------------------------------------------------------------------

@pytest.mark.parametrize("method", METHODS)
def test_cartesian_pendulum_rod_tension(method):
    # a point mass on a rod of length l from the origin: T = m (g cos th + l thdot^2), pulling inwards
    m, l, th, thd = 2.0, 0.8, 0.7, 1.3
    model = cartesian_point(m)
    q = np.array([l * np.sin(th), -l * np.cos(th)])
    v = np.array([l * np.cos(th), l * np.sin(th)]) * thd
    T = m * (G * np.cos(th) + l * thd**2)
    d = q / l
    thdd = -G / l * np.sin(th)
    a_exact = l * thdd * np.array([np.cos(th), np.sin(th)]) - l * thd**2 * d
    rod = Distance("mass", target=(0.0, 0.0, 0.0), length=l)
    r = constrained_dynamics(model, q, v, np.zeros(2), [rod], method=method)
    assert r.status == "ok" and r.rank == 1
    np.testing.assert_allclose(r.a, a_exact, atol=1e-12)
    np.testing.assert_allclose(r.lambdas, [-T], rtol=1e-12)            # negative: the rod pulls
    np.testing.assert_allclose(r.forces[0][3:5], -T * d, rtol=1e-12)
    # the same circle as a user function x^2 + y^2 - l^2 (Jacobian by complex step): J^T lam = force
    circle = Holonomic(lambda q: np.array([q[0] ** 2 + q[1] ** 2 - l**2]))
    h = constrained_dynamics(model, q, v, np.zeros(2), [circle], method=method)
    np.testing.assert_allclose(h.a, a_exact, atol=1e-7)
    np.testing.assert_allclose(h.lambdas, [-T / (2 * l)], rtol=1e-7)


@pytest.mark.parametrize("method", METHODS)
def test_planar_2r_with_its_tip_pinned(method):
    # at rest, a = 0 and the tip force is lambda = J^-T (g - tau) (in-plane rows of the Jacobian);
    # the pin's out-of-plane row is redundant for a planar arm: rank 2 of 3, least-norm lambda_z = 0
    model = ad.load("planar2r")
    q = np.array([0.4, 0.9])
    tau = np.array([3.0, -1.0])
    r = constrained_dynamics(model, q, np.zeros(2), tau, [Point("tool", at=q)], method=method)
    assert r.status == "redundant" and r.rank == 2 and r.rows == 3
    np.testing.assert_allclose(r.a, 0.0, atol=1e-12)
    J = ad.jacobian(model, q, "tool")[3:5]
    np.testing.assert_allclose(r.lambdas[:2], np.linalg.solve(J.T, ad.gravity_torque(model, q) - tau), rtol=1e-10)
    assert abs(r.lambdas[2]) < 1e-10


def test_planar_2r_with_its_tip_on_a_horizontal_rail():
    # the tip keeps its height: one row, y_tip = const; the multiplier is the rail's vertical force
    model = ad.load("planar2r")
    q = np.array([0.4, 0.9])
    y0 = ad.frame_placement(model, q, "tool")[1, 3]
    rail = Holonomic(lambda q: np.array([ad.frame_placement(model, q.real, "tool")[1, 3] - y0]),
                     jacobian=lambda q: ad.jacobian(model, q, "tool")[4:5], rows=1)
    v = np.array([0.3, -0.2])
    v = v - np.linalg.lstsq(ad.jacobian(model, q, "tool")[4:5], ad.jacobian(model, q, "tool")[4:5] @ v,
                            rcond=None)[0]
    r = constrained_dynamics(model, q, v, np.array([1.0, 0.5]), [rail])
    # the tip's vertical acceleration is zero, and the equations of motion hold with J^T lambda
    acc = ad.frame_acceleration(model, q, v, r.a, "tool", kind="classical")
    assert abs(acc[4]) < 1e-7
    M, h = ad.crba(model, q), ad.nonlinear_effects(model, q, v)
    np.testing.assert_allclose(M @ r.a + h, [1.0, 0.5] + ad.jacobian(model, q, "tool")[4] * r.lambdas[0], atol=1e-9)


def test_coupling_gear_train():
    # two wheels, q_a = 2 q_b: (I_b + 4 I_a) qdd_b = tau_b, and the gear's torque on a is I_a qdd_a
    b = ModelBuilder("gears", gravity=(0.0, 0.0, 0.0))
    b.add_body("wa", "world", "revolute", joint_name="a", axis=(0, 0, 1), mass=1.0, inertia=np.diag([1, 1, 0.3]))
    b.add_body("wb", "world", "revolute", joint_name="b", axis=(0, 0, 1), xyz=(1, 0, 0), mass=1.0,
               inertia=np.diag([1, 1, 0.5]))
    model = b.build()
    for method in METHODS:
        r = constrained_dynamics(model, np.zeros(2), np.zeros(2), np.array([0.0, 2.0]), [Coupling("a", "b", 2.0)],
                                 method=method)
        qdd_b = 2.0 / (0.5 + 4 * 0.3)
        np.testing.assert_allclose(r.a, [2 * qdd_b, qdd_b], rtol=1e-12)
        np.testing.assert_allclose(r.lambdas, [0.3 * 2 * qdd_b], rtol=1e-12)


# --- multipliers are the reactions -------------------------------------------------------------------

def test_point_on_a_free_body_equals_a_spherical_joint(rng):
    com, I = np.array([0.1, -0.2, 0.3]), np.diag([0.2, 0.3, 0.25])
    b = ModelBuilder("ball")
    b.add_body("body", "world", "spherical", mass=1.5, com=com, inertia=I)
    tree = b.build()
    b = ModelBuilder("free")
    b.add_body("body", "world", "free", mass=1.5, com=com, inertia=I)
    free = b.build()
    quat = ad.random_configuration(tree, rng)
    w = rng.normal(size=3)
    tau = rng.normal(size=3)
    a_tree = ad.aba(tree, quat, w, tau)
    F = ad.joint_wrenches(tree, quat, w, a_tree)[1]                  # body axes, about its origin
    R = quat_to_matrix(quat)
    q = np.concatenate([np.zeros(3), quat])
    v = np.concatenate([w, np.zeros(3)])
    for method in METHODS:
        r = constrained_dynamics(free, q, v, np.concatenate([tau, np.zeros(3)]),
                                 [Point("body", target=(0.0, 0.0, 0.0))], method=method)
        np.testing.assert_allclose(r.a[:3], a_tree, atol=1e-10)
        np.testing.assert_allclose(r.a[3:], 0.0, atol=1e-10)
        np.testing.assert_allclose(r.forces[0][3:], R @ F[3:], atol=1e-10)


def test_hinge_on_a_free_body_equals_a_revolute_joint(rng):
    com, I = np.array([0.3, 0.1, -0.2]), np.array([[0.2, 0.01, 0.0], [0.01, 0.3, 0.02], [0.0, 0.02, 0.25]])
    axis = np.array([0.0, 0.6, 0.8])
    b = ModelBuilder("hinge_tree")
    b.add_body("body", "world", "revolute", axis=axis, mass=1.5, com=com, inertia=I)
    tree = b.build()
    b = ModelBuilder("hinge_free")
    b.add_body("body", "world", "free", mass=1.5, com=com, inertia=I)
    free = b.build()
    th, thd, tau = 0.7, 1.9, 0.4
    a_tree = ad.aba(tree, np.array([th]), np.array([thd]), np.array([tau]))
    F = ad.joint_wrenches(tree, np.array([th]), np.array([thd]), a_tree)[1]
    R = ad.body_placements(tree, np.array([th]))[1][:3, :3]
    quat = ad.spatial.matrix_to_quat(R)
    q = np.concatenate([np.zeros(3), quat])
    v = np.concatenate([axis * thd, np.zeros(3)])                    # omega in the body frame (axis is fixed)
    hinge = Hinge("body", axis=axis, target=np.eye(4))
    for method in METHODS:
        r = constrained_dynamics(free, q, v, np.concatenate([axis * tau, np.zeros(3)]), [hinge], method=method)
        np.testing.assert_allclose(r.a[:3], axis * a_tree[0], atol=1e-10)
        np.testing.assert_allclose(r.a[3:], 0.0, atol=1e-10)
        # the joint wrench also carries the actuator's torque about the axis; the hinge does not
        np.testing.assert_allclose(r.forces[0] + np.concatenate([R @ axis * tau, np.zeros(3)]),
                                   np.concatenate([R @ F[:3], R @ F[3:]]), atol=1e-10)


def test_seed_pendulum_reactions_as_a_constrained_system():
    # the seed's pendulum (pivot at the origin, gravity along x) built as a free body held by a
    # hinge: the hinge force is the seed's (X_O, Y_O) from newton_euler_nonrecursive
    pend = ad.models.pendulum(m=1.0, l=1.0, g=G)
    th, thd = 0.6, 1.1
    a = ad.aba(pend, np.array([th]), np.array([thd]), np.zeros(1))
    _, reac = ad.newton_euler_nonrecursive(pend, np.array([th]), np.array([thd]), a, reactions=True)
    b = ModelBuilder("free_pendulum", gravity=(G, 0.0, 0.0))
    b.add_body("bob", "world", "free", mass=1.0, com=(1.0, 0.0, 0.0), inertia=np.zeros((3, 3)))
    free = b.build()
    quat = ad.spatial.matrix_to_quat(ad.spatial.axis_angle_to_matrix(np.array([0, 0, 1.0]), th))
    r = constrained_dynamics(free, np.concatenate([np.zeros(3), quat]), np.array([0, 0, thd, 0, 0, 0]),
                             np.zeros(6), [Hinge("bob", axis=(0, 0, 1), target=np.eye(4))])
    np.testing.assert_allclose(r.a[2], a[0], atol=1e-12)
    np.testing.assert_allclose(r.forces[0][3:5], reac.reaction_world[1, 3:5], atol=1e-10)


# --- closed chains, routes, redundancy ---------------------------------------------------------------

def four_bar(l1=1.0, l2=3.0, l3=2.5, l0=3.0):
    """Crank (l1) - coupler (l2) - rocker (l3), ground l0 along x; planar, gravity -y. The loop is cut
    at the coupler-rocker pin: Point(coupler tip, rocker tip)."""
    b = ModelBuilder("four_bar", gravity=(0.0, -G, 0.0))
    rod = lambda L: dict(mass=1.0, com=(L / 2, 0, 0), inertia=np.diag([1e-3, L**2 / 12, L**2 / 12]))  # noqa: E731
    b.add_body("crank", "world", "revolute", joint_name="crank_joint", axis=(0, 0, 1), **rod(l1))
    b.add_body("coupler", "crank", "revolute", joint_name="coupler_joint", axis=(0, 0, 1), xyz=(l1, 0, 0), **rod(l2))
    b.add_frame("coupler_tip", "coupler", xyz=(l2, 0, 0))
    b.add_body("rocker", "world", "revolute", joint_name="rocker_joint", axis=(0, 0, 1), xyz=(l0, 0, 0), **rod(l3))
    b.add_frame("rocker_tip", "rocker", xyz=(l3, 0, 0))
    return b.build(), (l1, l2, l3, l0)


def test_four_bar_assembly_and_freudenstein():
    model, (l1, l2, l3, l0) = four_bar()
    loop = [Point("coupler_tip", "rocker_tip")]
    asm = assemble(model, np.array([0.5, -0.3, 1.8]), loop, v=np.array([1.0, 0.0, 0.0]))
    assert asm.status == "converged" and asm.residual < 1e-12
    th2, th3, th4 = asm.q[0], asm.q[0] + asm.q[1], asm.q[2]
    # Freudenstein: the coupler closes the loop: l1 e^{i th2} + l2 e^{i th3} = l0 + l3 e^{i th4}
    np.testing.assert_allclose(l1 * np.exp(1j * th2) + l2 * np.exp(1j * th3), l0 + l3 * np.exp(1j * th4), atol=1e-12)
    _, J, _ = constraint_terms(model, asm.q, asm.v, loop)
    np.testing.assert_allclose(J @ asm.v, 0.0, atol=1e-12)
    # planar loop: the out-of-plane row of the pin is redundant
    r = [constrained_dynamics(model, asm.q, asm.v, np.array([2.0, 0.0, 0.0]), loop, method=m) for m in METHODS]
    assert all(x.status == "redundant" and x.rank == 2 for x in r)
    for x in r[1:]:
        np.testing.assert_allclose(x.a, r[0].a, atol=1e-9)
        np.testing.assert_allclose(x.lambdas, r[0].lambdas, atol=1e-8)
    # the same loop given twice: same motion, the force shared (least norm: half each)
    twice = constrained_dynamics(model, asm.q, asm.v, np.array([2.0, 0.0, 0.0]), loop + loop)
    np.testing.assert_allclose(twice.a, r[0].a, atol=1e-9)
    np.testing.assert_allclose(twice.forces[0] + twice.forces[1], r[0].forces[0], atol=1e-8)


@pytest.mark.parametrize("seed", range(3))
def test_routes_agree_on_a_random_tree_with_a_loop(seed):
    rng = np.random.default_rng(seed)
    model = random_tree(rng, nb=6, floating=True, joint_types=("revolute", "spherical", "prismatic"))
    q = ad.random_configuration(model, rng)
    names = model.body_names
    loop = [Weld(names[-1], names[-3], at=q), Distance(names[2], target=(0.3, 0.2, 0.1), at=q)]
    _, J, _ = constraint_terms(model, q, np.zeros(model.nv), loop)
    v = rng.normal(size=model.nv)
    v = v - np.linalg.pinv(J) @ (J @ v)
    tau = rng.normal(size=model.nv)
    r = [constrained_dynamics(model, q, v, tau, loop, method=m) for m in METHODS]
    for x in r:   # the weld may be redundant when fewer than 6 dofs lie between its bodies
        assert x.status in ("ok", "redundant") and x.residual < 1e-8 and x.status == r[0].status
        np.testing.assert_allclose(x.a, r[0].a, atol=1e-8 * (1 + np.abs(r[0].a).max()))
        np.testing.assert_allclose(x.lambdas, r[0].lambdas, atol=1e-7 * (1 + np.abs(r[0].lambdas).max()))
    # the acceleration constraint holds: d/dt (J v) = J a + Jdot v = 0, checked by finite differences
    eps = 1e-6
    qp, qm = ad.integrate(model, q, eps * v), ad.integrate(model, q, -eps * v)
    vp, vm = v + eps * r[0].a, v - eps * r[0].a
    Jp = constraint_terms(model, qp, vp, loop)[1]
    Jm = constraint_terms(model, qm, vm, loop)[1]
    np.testing.assert_allclose((Jp @ vp - Jm @ vm) / (2 * eps), 0.0, atol=1e-6)


# --- inverse dynamics --------------------------------------------------------------------------------

def test_inverse_dynamics_recovers_the_forward_solution():
    model = ad.load("planar2r").replace(actuated=[True, False])
    q = np.array([0.4, 0.9])
    y0 = ad.frame_placement(model, q, "tool")[1, 3]
    rail = Holonomic(lambda q: np.array([ad.frame_placement(model, q.real, "tool")[1, 3] - y0]),
                     jacobian=lambda q: ad.jacobian(model, q, "tool")[4:5], rows=1)
    fwd = constrained_dynamics(model, q, np.zeros(2), np.array([4.0, 0.0]), [rail])
    inv = constrained_inverse_dynamics(model, q, np.zeros(2), fwd.a, [rail])
    np.testing.assert_allclose(inv.tau, [4.0, 0.0], atol=1e-9)        # unique: 2 unknowns, 2 equations
    np.testing.assert_allclose(inv.lambdas, fwd.lambdas, atol=1e-9)
    with pytest.raises(InputError, match="violates the constraints"):
        constrained_inverse_dynamics(model, q, np.zeros(2), fwd.a + 1.0, [rail])
    with pytest.raises(InputError, match="not reachable"):               # unactuated, unconstrained: no way
        constrained_inverse_dynamics(model, q, np.zeros(2), np.array([1.0, 2.0]), [])


def test_humanoid_like_split_is_least_norm(rng):
    # a floating body welded to the ground: any wrench split works; least norm over [tau; lambda]
    b = ModelBuilder("box")
    b.add_body("box", "world", "free", mass=2.0, com=(0.0, 0.0, 0.1), inertia=np.eye(3) * 0.1)
    model = b.build().replace(actuated=[False] * 6)
    q = ad.neutral(model)
    res = constrained_inverse_dynamics(model, q, np.zeros(6), np.zeros(6), [Weld("box", at=q)])
    np.testing.assert_allclose(res.forces[0][3:], [0, 0, 2.0 * G], atol=1e-10)   # the ground holds the weight
    np.testing.assert_allclose(res.forces[0][:3], np.cross([0, 0, 0.1], [0, 0, 2.0 * G]) * 0, atol=1e-10)


def test_bad_constraints():
    model = ad.load("planar2r")
    with pytest.raises(ad.NameNotFound):
        constrained_dynamics(model, np.zeros(2), np.zeros(2), np.zeros(2), [Point("nope", at=np.zeros(2))])
    with pytest.raises(InputError, match="target"):
        constrained_dynamics(model, np.zeros(2), np.zeros(2), np.zeros(2), [Point("tool")])
    with pytest.raises(InputError, match="not a constraint"):
        constrained_dynamics(model, np.zeros(2), np.zeros(2), np.zeros(2), ["tool"])
    with pytest.raises(InputError, match="method"):
        constrained_dynamics(model, np.zeros(2), np.zeros(2), np.zeros(2), [], method="magic")
    with pytest.raises(ad.ShapeError, match="different sizes"):
        constrained_dynamics(model, np.zeros((2, 2)), np.zeros((3, 2)), np.zeros(2), [])


# --- simulation -------------------------------------------------------------------------------------

def test_four_bar_simulation_stays_closed_for_10_s():
    model, (l1, l2, l3, l0) = four_bar()
    loop = [Point("coupler_tip", "rocker_tip")]
    asm = assemble(model, np.array([0.5, -0.3, 1.8]), loop)
    r = ad.simulate_constrained(model, asm.q, np.array([2.0, 0.0, 0.0]), loop, t_final=10.0, dt=1e-2)
    assert r.stats["route"] == "compiled"                    # the planar pin's z row is dropped (dependent)
    th2, th3, th4 = r.q[:, 0], r.q[:, 0] + r.q[:, 1], r.q[:, 2]
    gap = l1 * np.exp(1j * th2) + l2 * np.exp(1j * th3) - (l0 + l3 * np.exp(1j * th4))
    assert np.max(np.abs(gap)) < 1e-10                       # the closed-form coupler relation
    assert r.stats["max_drift_position"] < 1e-5              # what one RK4 step lets it drift before projection
    assert r.energy_drift() < 1e-4                           # frictionless: energy kept (projection is mass-weighted)
    assert r.constraint_forces.shape == (r.t.size, 3) and np.all(np.isfinite(r.constraint_forces))
    # with Baumgarte alone (no projection) the loop drifts, but stays closed to a few 1e-6
    b = ad.simulate_constrained(model, asm.q, np.array([2.0, 0.0, 0.0]), loop, t_final=2.0, dt=5e-3,
                                baumgarte=(20.0, 20.0), projection=False)
    assert 1e-12 < np.max(np.abs(b.drift[:, 0])) < 1e-4


def test_slider_crank_follows_its_closed_form():
    r_c, l_c = 0.3, 1.0
    b = ModelBuilder("slider_crank", gravity=(0.0, -G, 0.0))
    b.add_body("crank", "world", "revolute", joint_name="crank_joint", axis=(0, 0, 1), mass=1.0, com=(r_c / 2, 0, 0),
               inertia=np.diag([1e-3, 0.01, 0.01]))
    b.add_body("rod", "crank", "revolute", joint_name="rod_joint", axis=(0, 0, 1), xyz=(r_c, 0, 0), mass=0.5,
               com=(l_c / 2, 0, 0), inertia=np.diag([1e-3, 0.04, 0.04]))
    b.add_frame("rod_tip", "rod", xyz=(l_c, 0, 0))
    b.add_body("slider", "world", "prismatic", joint_name="slide", axis=(1, 0, 0), mass=2.0)
    model = b.build()
    loop = [Point("rod_tip", "slider")]
    asm = assemble(model, np.array([0.4, -0.5, 1.2]), loop)
    res = ad.simulate_constrained(model, asm.q, np.array([5.0, 0.0, 0.0]), loop, tau=np.array([0.5, 0, 0]),
                                  t_final=1.0, dt=2e-3)
    th, x = res.q[:, 0], res.q[:, 2]
    np.testing.assert_allclose(x, r_c * np.cos(th) + np.sqrt(l_c**2 - (r_c * np.sin(th)) ** 2), atol=1e-10)
    assert np.ptp(th) > 0.5                                    # it did turn


# --- the compiled run against the readable one -----------------------------------------------------

def _same_run(model, q0, v0, constraints, atol=1e-9, **kw):
    c = ad.simulate_constrained(model, q0, v0, constraints, **kw)
    r = ad.simulate_constrained(model, q0, v0, constraints, route="reference", **kw)
    assert (c.stats["route"], r.stats["route"]) == ("compiled", "reference")
    for name in ("t", "q", "v", "a", "tau", "constraint_forces", "drift", "energy.kinetic", "energy.potential"):
        x, y = c, r
        for part in name.split("."):
            x, y = getattr(x, part), getattr(y, part)
        assert x.shape == y.shape, name
        scale = max(1.0, float(np.max(np.abs(y))))
        assert np.max(np.abs(x - y)) <= atol * scale, f"{name}: {np.max(np.abs(x - y)):.3g} (scale {scale:.3g})"
    return c


@pytest.mark.parametrize("method", ["rk4", "semi-implicit"])
@pytest.mark.parametrize("stab", [dict(), dict(baumgarte=(10.0, 10.0), projection=False),
                                  dict(baumgarte=(5.0, 5.0))])
def test_compiled_run_equals_reference_four_bar(method, stab):
    model, _ = four_bar()
    loop = [Point("coupler_tip", "rocker_tip")]
    asm = assemble(model, np.array([0.5, -0.3, 1.8]), loop)
    _same_run(model, asm.q, np.array([2.0, 0.0, 0.0]), loop, t_final=0.5, dt=1e-2, method=method, **stab)


def test_compiled_run_equals_reference_with_torque_table_f_ext_and_sampling():
    """A floating box held by a Weld to a pendulum link through a Hinge, torques as a table, an
    external wrench, one sample every 3 steps."""
    b = ModelBuilder("hinged", gravity=(0.0, 0.0, -G))
    b.add_body("box", "world", "free", mass=2.0, inertia=np.diag([0.01, 0.02, 0.03]))
    b.add_body("arm", "world", "revolute", joint_name="shoulder", axis=(0, 1, 0), mass=1.0, com=(0.25, 0, 0),
               inertia=np.diag([1e-3, 0.02, 0.02]), damping=0.1)
    b.add_frame("arm_tip", "arm", xyz=(0.5, 0, 0))
    model = b.build()
    q = ad.neutral(model)
    q[model.q_slice("root_joint")][:3] = (0.5, 0.0, 0.0)
    loop = [Hinge("box", "arm_tip", axis=(0, 1, 0))]
    asm = assemble(model, q, loop)
    n = 30
    rng = np.random.default_rng(3)
    tau = rng.normal(size=(n, model.nv))
    f_ext = np.zeros((model.nb + 1, 6))
    f_ext[model.body_id("box")] = (0.0, 0.1, 0.0, 1.0, 0.0, 2.0)
    c = _same_run(model, asm.q, np.zeros(model.nv), loop, t_final=n * 5e-3, dt=5e-3, tau=tau, f_ext=f_ext,
                  record_every=3)
    assert c.t.size == n // 3 + 1 and c.constraint_forces.shape == (c.t.size, 5)
    np.testing.assert_allclose(c.tau[:-1], tau[::3][:c.t.size - 1])


def test_compiled_run_on_a_quadruped_standing_on_four_points():
    """solo12-like: a random floating tree whose four leaf bodies are pinned (12 rows)."""
    model = random_tree(11, nb=13, floating=True)
    leaves = [model.body_names[i] for i in range(1, model.nb + 1) if i not in set(model.parent[1:])][:4]
    q = ad.random_configuration(model, rng=1)
    feet = [Point(f, at=q) for f in leaves]
    _same_run(model, q, np.zeros(model.nv), feet, t_final=0.05, dt=1e-3, atol=1e-8)


def test_simulate_takes_constraints():
    model, (l1, l2, l3, l0) = four_bar()
    loop = [Point("coupler_tip", "rocker_tip")]
    asm = assemble(model, np.array([0.5, -0.3, 1.8]), loop)
    r = ad.simulate(model, asm.q, np.array([2.0, 0.0, 0.0]), t_final=0.2, dt=1e-2, constraints=loop)
    d = ad.simulate_constrained(model, asm.q, np.array([2.0, 0.0, 0.0]), loop, t_final=0.2, dt=1e-2)
    np.testing.assert_array_equal(r.q, d.q)
    assert r.method == "rk4" and r.constraint_forces.shape == (21, 3)
    with pytest.raises(InputError, match="method"):
        ad.simulate(model, asm.q, constraints=loop, method="implicit")
    with pytest.raises(InputError, match="Holonomic"):
        ad.simulate_constrained(model, asm.q, None, [Holonomic(lambda q: np.array([q[0] - q[2]]))], route="compiled")


def test_compiled_run_with_a_holonomic_constraint_takes_the_reference_route():
    model, _ = four_bar()
    loop = [Point("coupler_tip", "rocker_tip"), Holonomic(lambda q: np.array([q[0] - 0.5]), name="crank fixed")]
    asm = assemble(model, np.array([0.5, -0.3, 1.8]), loop)
    r = ad.simulate_constrained(model, asm.q, None, loop, t_final=0.05, dt=1e-2)
    assert r.stats["route"] == "reference"
    np.testing.assert_allclose(r.q, np.broadcast_to(asm.q, r.q.shape), atol=1e-10)   # locked: no motion


def test_simulate_uses_the_loops_the_model_file_declares():
    from artidyn.constraints import from_model
    model = ad.load("fourbar")
    asm = assemble(model, ad.neutral(model) + 0.01, from_model(model))
    r = ad.simulate(model, asm.q, np.array([1.0, 0.0, 0.0]), t_final=0.1, dt=1e-3, constraints="model")
    tip = np.array([ad.frame_placement(model, q, "tool")[:3, 3] for q in r.q])
    np.testing.assert_allclose(tip, np.broadcast_to([3.0, 0.0, 0.0], tip.shape), atol=1e-10)   # the pivot holds
    model = ad.load("fourbar")
    with pytest.warns(UserWarning, match="declares 1 loop closure"):
        ad.simulate(model, asm.q, t_final=0.01, dt=1e-3)
    with pytest.raises(InputError, match="'model'"):
        ad.simulate(model, asm.q, t_final=0.01, dt=1e-3, constraints="declared")
