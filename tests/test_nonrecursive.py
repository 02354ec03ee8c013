"""Non-recursive Newton-Euler (seed 002): the seed's worked examples in closed form, and the
method against RNEA, the joint wrenches and the Lagrange terms on the random zoo."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.dynamics.crba import crba
from artidyn.dynamics.lagrange import coriolis_matrix, mass_matrix_derivative
from artidyn.dynamics.nonrecursive import (constraint_basis, newton_euler_nonrecursive,
                                           newton_euler_system, nonrecursive_terms)
from artidyn.dynamics.rnea import rnea
from artidyn.dynamics.wrenches import joint_wrenches

G = 9.81


def states(rng, n, N=5):
    return rng.uniform(-3, 3, (N, n)), rng.normal(size=(N, n)), rng.normal(size=(N, n))


# --- example 1: the 1-dof pendulum (slides 18-27), x axis pointing down -----------------------
m1, a1, I1 = 1.3, 0.4, (0.02, 0.03, 0.05)


def seed_pendulum():
    b = ad.ModelBuilder("seed_pendulum", gravity=(G, 0, 0))
    b.add_body("link1", "world", "revolute", axis=(0, 0, 1), mass=m1, com=(a1, 0, 0), inertia=np.diag(I1))
    return b.build()


def test_pendulum_equation_and_pin_reactions(rng):
    model = seed_pendulum()
    q, qd, qdd = (x[:, 0] for x in states(rng, 1))
    tau, r = newton_euler_nonrecursive(model, q[:, None], qd[:, None], qdd[:, None], reactions=True)
    # (I_1z + m_1 a_1^2) q'' + m_1 a_1 g sin q = u   (slide 24)
    np.testing.assert_allclose(tau[:, 0], (I1[2] + m1 * a1**2) * qdd + m1 * a1 * G * np.sin(q), rtol=1e-12)
    # rows 1, 2 of slide 23: X_O, Y_O, the force of the pin O on the link (world axes)
    X_O = -m1 * a1 * (np.sin(q) * qdd + np.cos(q) * qd**2) - m1 * G
    Y_O = m1 * a1 * (np.cos(q) * qdd - np.sin(q) * qd**2)
    np.testing.assert_allclose(r.reaction_world[:, 1, 3], X_O, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.reaction_world[:, 1, 4], Y_O, rtol=1e-12, atol=1e-12)
    # out of plane: no force along z, no moment about x, y (principal axes); u not in the reaction
    np.testing.assert_allclose(r.reaction_world[:, 1, [0, 1, 2, 5]], 0, atol=1e-12)


def test_pendulum_stacked_system(rng):
    """Slide 23: Mbar, k, and J^T = [-a sin q, a cos q, 1] on the non-zero rows (x, y, moment z)."""
    model = seed_pendulum()
    q, qd = rng.uniform(-3, 3, 4), rng.normal(size=4)
    sys = newton_euler_system(model, q[:, None], qd[:, None])
    rows = [0, 1, 5]
    s, c = np.sin(q), np.cos(q)
    np.testing.assert_allclose(sys.Mbar[:, rows, 0], np.stack([-m1 * a1 * s, m1 * a1 * c, I1[2] + 0 * q], 1),
                               atol=1e-12)
    np.testing.assert_allclose(sys.k[:, rows], np.stack([-m1 * a1 * qd**2 * c, -m1 * a1 * qd**2 * s, 0 * q], 1),
                               atol=1e-12)
    np.testing.assert_allclose(sys.J[:, rows, 0], np.stack([-a1 * s, a1 * c, 1 + 0 * q], 1), atol=1e-12)
    np.testing.assert_allclose(sys.Q_a[:, rows], [[m1 * G, 0, 0]] * 4, atol=1e-12)
    np.testing.assert_allclose(np.delete(sys.Mbar, rows, axis=1), 0, atol=1e-12)


# --- example 2: cart with a pendulum (slides 28-37), y axis up ----------------------------------
cm1, cm2, ca2, cd, I1c, I2c = 2.0, 0.7, 0.45, 0.15, (0.1, 0.2, 0.25), (0.01, 0.02, 0.03)


def seed_cart():
    b = ad.ModelBuilder("seed_cart", gravity=(0, -G, 0))
    b.add_body("cart", "world", "prismatic", axis=(1, 0, 0), mass=cm1, inertia=np.diag(I1c))  # origin = C_1
    b.add_body("pendulum", "cart", "revolute", axis=(0, 0, 1), xyz=(cd, 0, 0), mass=cm2, com=(ca2, 0, 0),
               inertia=np.diag(I2c))
    return b.build()


def test_cart_pendulum_closed_forms(rng):
    model = seed_cart()
    Q, Qd, Qdd = states(rng, 2)
    tau, r = newton_euler_nonrecursive(model, Q, Qd, Qdd, reactions=True)
    x_dd, phi, phi_d, phi_dd = Qdd[:, 0], Q[:, 1], Qd[:, 1], Qdd[:, 1]
    s, c = np.sin(phi), np.cos(phi)
    # slide 35: the reduced equations
    u1 = (cm1 + cm2) * x_dd - cm2 * ca2 * s * phi_dd - cm2 * ca2 * c * phi_d**2
    u2 = -cm2 * ca2 * s * x_dd + (I2c[2] + cm2 * ca2**2) * phi_dd + cm2 * G * ca2 * c
    np.testing.assert_allclose(tau, np.stack([u1, u2], 1), rtol=1e-12, atol=1e-12)
    # slide 33, rows 4-5 then 2-3: X_A, Y_A (cart on pendulum at A), N, n (ground on cart, n about C_1)
    X_A = cm2 * (x_dd - ca2 * s * phi_dd - ca2 * c * phi_d**2)
    Y_A = cm2 * (G + ca2 * c * phi_dd - ca2 * s * phi_d**2)
    N, n = cm1 * G + Y_A, u2 + cd * Y_A
    zero = 0 * N
    np.testing.assert_allclose(r.reaction_world[:, 2], np.stack([zero, zero, zero, X_A, Y_A, zero], 1),
                               atol=1e-12)
    np.testing.assert_allclose(r.reaction_world[:, 1], np.stack([zero, zero, n, zero, N, zero], 1), atol=1e-12)
    # the seed's lambda = (N, n, X_A, Y_A) of slide 36 spans the same constraint space
    assert r.lam.shape == (5, 5 + 5)


def test_cart_pendulum_reduced_matrices(rng):
    """Slide 35: M, C qd, g of the cart-pendulum; C is also the Christoffel one."""
    model = seed_cart()
    Q, Qd, _ = states(rng, 2)
    M, C, g = nonrecursive_terms(model, Q, Qd)
    s, c = np.sin(Q[:, 1]), np.cos(Q[:, 1])
    M_ref = np.stack([np.stack([cm1 + cm2 + 0 * s, -cm2 * ca2 * s], -1),
                      np.stack([-cm2 * ca2 * s, I2c[2] + cm2 * ca2**2 + 0 * s], -1)], -2)
    C_ref = np.zeros_like(M_ref)
    C_ref[:, 0, 1] = -cm2 * ca2 * c * Qd[:, 1]
    np.testing.assert_allclose(M, M_ref, atol=1e-12)
    np.testing.assert_allclose(C, C_ref, atol=1e-12)
    np.testing.assert_allclose(coriolis_matrix(model, Q, Qd), C_ref, atol=1e-12)
    np.testing.assert_allclose(g, np.stack([0 * c, cm2 * G * ca2 * c], 1), atol=1e-12)


# --- example 3: planar 2R arm (slides 38-40) ----------------------------------------------------
l1, r_m1, r_m2, r_a1, r_a2, Iz1, Iz2 = 0.8, 1.5, 1.1, 0.35, 0.3, 0.09, 0.05


def seed_2r():
    b = ad.ModelBuilder("seed_2r", gravity=(0, -G, 0))
    b.add_body("link1", "world", "revolute", axis=(0, 0, 1), mass=r_m1, com=(r_a1, 0, 0),
               inertia=np.diag([0.01, Iz1, Iz1]))
    b.add_body("link2", "link1", "revolute", axis=(0, 0, 1), xyz=(l1, 0, 0), mass=r_m2, com=(r_a2, 0, 0),
               inertia=np.diag([0.01, Iz2, Iz2]))
    return b.build()


def closed_2r(q, qd):
    """M, C (Christoffel), g of the 2R arm from the seed's J_T, J_R (slides 39-40)."""
    c2, s2 = np.cos(q[:, 1]), np.sin(q[:, 1])
    c1, c12 = np.cos(q[:, 0]), np.cos(q[:, 0] + q[:, 1])
    M11 = Iz1 + Iz2 + r_m1 * r_a1**2 + r_m2 * (l1**2 + r_a2**2 + 2 * l1 * r_a2 * c2)
    M12 = Iz2 + r_m2 * (r_a2**2 + l1 * r_a2 * c2)
    M22 = Iz2 + r_m2 * r_a2**2 + 0 * c2
    M = np.stack([np.stack([M11, M12], -1), np.stack([M12, M22], -1)], -2)
    h = -r_m2 * l1 * r_a2 * s2
    C = np.stack([np.stack([h * qd[:, 1], h * (qd[:, 0] + qd[:, 1])], -1),
                  np.stack([-h * qd[:, 0], 0 * h], -1)], -2)
    g = np.stack([(r_m1 * r_a1 + r_m2 * l1) * G * c1 + r_m2 * r_a2 * G * c12, r_m2 * r_a2 * G * c12], -1)
    return M, C, g


def test_planar_2r_jacobians(rng):
    """Slide 40: J_T2 and Jd_T2 qd (through k = m_2 Jd_T2 qd) of the 2R arm."""
    model = seed_2r()
    Q, Qd, _ = states(rng, 2)
    sys = newton_euler_system(model, Q, Qd)
    q1, q12, w1, w12 = Q[:, 0], Q[:, 0] + Q[:, 1], Qd[:, 0], Qd[:, 0] + Qd[:, 1]
    J_T2 = np.stack([np.stack([-l1 * np.sin(q1) - r_a2 * np.sin(q12), -r_a2 * np.sin(q12)], -1),
                     np.stack([l1 * np.cos(q1) + r_a2 * np.cos(q12), r_a2 * np.cos(q12)], -1)], -2)
    np.testing.assert_allclose(sys.J[:, 3:5], J_T2, atol=1e-12)
    Jd_T2 = np.stack([np.stack([-l1 * w1 * np.cos(q1) - r_a2 * np.cos(q12) * w12, -r_a2 * np.cos(q12) * w12], -1),
                      np.stack([-l1 * w1 * np.sin(q1) - r_a2 * np.sin(q12) * w12, -r_a2 * np.sin(q12) * w12], -1)],
                     -2)
    np.testing.assert_allclose(sys.k[:, 3:5], r_m2 * np.einsum("nij,nj->ni", Jd_T2, Qd), atol=1e-12)
    np.testing.assert_allclose(sys.J[:, 9:12], [[[0, 0], [0, 0], [1, 1]]] * len(Q), atol=1e-12)  # J_R2


def test_planar_2r_closed_form_matrices(rng):
    model = seed_2r()
    Q, Qd, Qdd = states(rng, 2)
    M_ref, C_ref, g_ref = closed_2r(Q, Qd)
    M, C, g = nonrecursive_terms(model, Q, Qd)
    np.testing.assert_allclose(M, M_ref, atol=1e-12)
    np.testing.assert_allclose(C, C_ref, atol=1e-12)   # J_T^T m Jd_T: the Christoffel C (planar)
    np.testing.assert_allclose(g, g_ref, atol=1e-12)
    tau, r = newton_euler_nonrecursive(model, Q, Qd, Qdd, reactions=True)
    np.testing.assert_allclose(tau, np.einsum("nij,nj->ni", M_ref, Qdd) + np.einsum("nij,nj->ni", C_ref, Qd) + g_ref,
                               atol=1e-12)
    # Newton for link 2 and for both links: reaction forces = m (a_C - g), summed
    sys = newton_euler_system(model, Q, Qd)
    a_C = np.einsum("nij,nj->ni", sys.J[:, :6], Qdd) + sys.k[:, :6] / np.repeat([r_m1, r_m2], 3)
    f2 = r_m2 * (a_C[:, 3:6] - [0, -G, 0])
    f1 = r_m1 * (a_C[:, 0:3] - [0, -G, 0]) + f2
    np.testing.assert_allclose(r.reaction_world[:, 2, 3:], f2, atol=1e-12)
    np.testing.assert_allclose(r.reaction_world[:, 1, 3:], f1, atol=1e-12)


@pytest.mark.parametrize("name", ["pendulum", "cart_pendulum", "planar_2r"])
def test_builtin_seed_models_match_builder_models(name, rng):
    """The built-in models (artidyn.models) agree with the seed's closed forms."""
    make = getattr(ad.models, name, None)
    if make is None:
        pytest.skip(f"artidyn.models.{name} not available")
    if name == "pendulum":
        model, (q, qd, qdd) = make(m=m1, l=a1, izz=I1[2]), states(rng, 1)
        ref = (I1[2] + m1 * a1**2) * qdd + m1 * a1 * G * np.sin(q)
    elif name == "cart_pendulum":
        model, (q, qd, qdd) = make(m1=cm1, m2=cm2, a2=ca2, d=cd, i2z=I2c[2]), states(rng, 2)
        ref = newton_euler_nonrecursive(seed_cart(), q, qd, qdd)
    else:
        model, (q, qd, qdd) = make(l1=l1, m1=r_m1, m2=r_m2, a1=r_a1, a2=r_a2, i1z=Iz1, i2z=Iz2), states(rng, 2)
        M, C, g = closed_2r(q, qd)
        ref = np.einsum("nij,nj->ni", M, qdd) + np.einsum("nij,nj->ni", C, qd) + g
    np.testing.assert_allclose(newton_euler_nonrecursive(model, q, qd, qdd), ref, atol=1e-10)


# --- the method on the zoo -------------------------------------------------------------------
def zoo_states(model, rng, N=3):
    q = ad.random_configuration(model, rng, size=N)
    return q, ad.random_velocity(model, rng, size=N), ad.random_velocity(model, rng, size=N)


def with_friction(model, rng):
    return model.replace(armature=rng.uniform(0, 0.5, model.nv), damping=rng.uniform(0, 0.5, model.nv),
                         coulomb=rng.uniform(0, 0.5, model.nv))


def test_equals_rnea_and_joint_wrenches_on_zoo(zoo, rng):
    for label, model in zoo:
        model = with_friction(model, rng)
        q, v, a = zoo_states(model, rng)
        f_ext = rng.normal(size=(len(q), model.nb + 1, 6))
        tau, r = newton_euler_nonrecursive(model, q, v, a, f_ext, reactions=True)
        np.testing.assert_allclose(tau, rnea(model, q, v, a, f_ext), atol=1e-10, err_msg=label)
        np.testing.assert_allclose(r.wrench[:, 1:], joint_wrenches(model, q, v, a, f_ext)[:, 1:], atol=1e-10,
                                   err_msg=label)
        for i in range(1, model.nb + 1):
            S = model.S[i]
            np.testing.assert_allclose(r.reaction[:, i] @ S, 0, atol=1e-10, err_msg=label)   # does no work
            np.testing.assert_allclose(r.wrench[:, i] - r.reaction[:, i],
                                       (r.wrench[:, i] @ S) @ S.T, atol=1e-10, err_msg=label)
            Ti = constraint_basis(model, i)
            np.testing.assert_allclose(Ti.T @ Ti, np.eye(6 - S.shape[1]), atol=1e-12)
        # world axes: same wrench rotated
        R = ad.body_placements(model, q)[:, :, :3, :3]
        np.testing.assert_allclose(np.einsum("nkij,nkj->nki", R, r.reaction[..., 3:]), r.reaction_world[..., 3:],
                                   atol=1e-10)
        # batch and single agree
        t0, r0 = newton_euler_nonrecursive(model, q[0], v[0], a[0], f_ext[0], reactions=True)
        np.testing.assert_allclose(t0, tau[0], atol=1e-12)
        np.testing.assert_allclose(r0.wrench, r.wrench[0], atol=1e-12)


def test_virtual_work_and_reduced_terms_on_zoo(zoo, rng):
    """Slides 11-16: J^T H = 0, J^T B = 1, M = J^T Mbar = crba, C v + g = h, Mdot - 2C skew."""
    for label, model in zoo:
        q, v, _ = zoo_states(model, rng)
        sys = newton_euler_system(model, q, v)
        Jt = np.swapaxes(sys.J, 1, 2)
        np.testing.assert_allclose(Jt @ sys.H, 0, atol=1e-12, err_msg=label)
        np.testing.assert_allclose(Jt @ sys.B, np.broadcast_to(np.eye(model.nv), (len(q),) + (model.nv,) * 2),
                                   atol=1e-12, err_msg=label)
        M, C, g = nonrecursive_terms(model, q, v)
        np.testing.assert_allclose(M, crba(model, q), atol=1e-12, err_msg=label)
        np.testing.assert_allclose(Jt @ sys.Mbar, M, atol=1e-12, err_msg=label)
        np.testing.assert_allclose(np.einsum("nij,nj->ni", C, v) + g, rnea(model, q, v, 0 * v, friction=False),
                                   atol=1e-11, err_msg=label)
        N = mass_matrix_derivative(model, q, v) - 2 * C
        np.testing.assert_allclose(N, -np.swapaxes(N, 1, 2), atol=1e-11, err_msg=label)


def test_symbolic_pendulum():
    """The same code on SymPy objects reproduces slide 24's equation and slide 23's X_O."""
    sympy = pytest.importorskip("sympy")
    q, qd, qdd = sympy.symbols("q qd qdd")
    model = seed_pendulum()
    tau, r = newton_euler_nonrecursive(model, np.array([q], dtype=object), np.array([qd], dtype=object),
                                       np.array([qdd], dtype=object), reactions=True)
    vals = {q: 0.7, qd: -1.3, qdd: 2.1}
    ref = (I1[2] + m1 * a1**2) * 2.1 + m1 * a1 * G * np.sin(0.7)
    assert abs(float(tau[0].subs(vals)) - ref) < 1e-12
    X_O = -m1 * a1 * (np.sin(0.7) * 2.1 + np.cos(0.7) * 1.3**2) - m1 * G
    assert abs(float(sympy.sympify(r.reaction_world[1, 3]).subs(vals)) - X_O) < 1e-12


def test_bad_input(zoo):
    model = zoo[0][1]
    with pytest.raises(ad.ShapeError):
        newton_euler_nonrecursive(model, np.zeros(model.nq + 1), np.zeros(model.nv), np.zeros(model.nv))
    with pytest.raises(ad.ShapeError):
        newton_euler_nonrecursive(model, np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv),
                                  f_ext=np.zeros((model.nb, 6)))
    with pytest.raises(ad.InputError):
        newton_euler_nonrecursive(model, np.full(model.nq, np.nan), np.zeros(model.nv), np.zeros(model.nv))
