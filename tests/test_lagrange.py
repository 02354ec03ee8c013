"""GAHA and the Lagrange terms: cross-checks between independent routes (CRBA, RNEA, the
acceleration energy, finite differences, complex step), closed forms, and pinocchio."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.dynamics.crba import crba
from artidyn.dynamics.gaha import acceleration_energy, gaha
from artidyn.dynamics.lagrange import (christoffel, coriolis_matrix, gravity, mass_matrix_derivative,
                                       nonlinear_effects)
from artidyn.dynamics.rnea import rnea
from artidyn.joints import FREE, SPHERICAL

from conftest import erd_urdf

G = 9.81


def zoo_states(model, rng, N=3):
    return ad.random_configuration(model, rng, size=N), ad.random_velocity(model, rng, size=N)


def one_dof_only(model):
    return not any(model.joint_type[i] in (SPHERICAL, FREE) for i in range(1, model.nb + 1))


def mv(M, x):
    return np.einsum("...ij,...j->...i", M, x)


@pytest.fixture(scope="module")
def urdf_models():
    out = []
    for stem, floating in (("ur5_robot", False), ("solo12", True)):
        try:
            out.append((stem, ad.load_urdf(str(erd_urdf(stem)), floating_base=floating)))
        except pytest.skip.Exception:
            pass
    return out


# --- GAHA -----------------------------------------------------------------------------------
def test_gaha_equals_crba(zoo, urdf_models, rng):
    for label, model in list(zoo) + urdf_models:
        model = model.replace(armature=rng.uniform(0, 0.3, model.nv))
        q = ad.random_configuration(model, rng, size=4)
        M = gaha(model, q)
        Mc = crba(model, q)
        scale = np.abs(Mc).max()
        np.testing.assert_allclose(M, Mc, atol=1e-12 * max(1.0, scale), err_msg=label)
        np.testing.assert_allclose(gaha(model, q[1]), M[1], atol=1e-14 * max(1.0, scale))


def test_gaha_is_the_hessian_of_the_acceleration_energy(zoo, rng):
    """S is quadratic in qdd: M_jk = S(e_j + e_k) - S(e_j) - S(e_k) + S(0) exactly, and the
    Gibbs-Appell equations dS/dqdd = M a + C v (= RNEA without gravity) hold."""
    for label, model in zoo:
        model = model.replace(armature=rng.uniform(0, 0.3, model.nv), gravity=np.zeros(3))
        q, v = zoo_states(model, rng, 1)
        q, v = q[0], v[0]
        n = model.nv
        E = np.eye(n)
        # all pairs in one batch: a = e_j + e_k, e_j, 0
        pairs = (E[:, None, :] + E[None, :, :]).reshape(-1, n)
        S_pairs = acceleration_energy(model, q, np.zeros(n), pairs).reshape(n, n)
        S_single = acceleration_energy(model, q, np.zeros(n), E)
        S0 = acceleration_energy(model, q, np.zeros(n), np.zeros(n))
        H = S_pairs - S_single[:, None] - S_single[None, :] + S0
        np.testing.assert_allclose(H, gaha(model, q), atol=1e-10, err_msg=label)
        a = rng.normal(size=n)
        h = 1e-3
        grad = (acceleration_energy(model, q, v, a + h * E) - acceleration_energy(model, q, v, a - h * E)) / (2 * h)
        np.testing.assert_allclose(grad, rnea(model, q, v, a, friction=False), atol=1e-8, err_msg=label)


def test_gaha_complex_step_and_symbolic():
    """dtype-generic: complex-step dM/dq_k = Mdot(q, e_k); SymPy gives the 2R closed form."""
    sympy = pytest.importorskip("sympy")
    model = planar_2r()
    q = np.array([0.4, -1.1])
    h = 1e-20
    for k in range(2):
        dM = gaha(model, q + 1j * h * np.eye(2)[k]).imag / h
        np.testing.assert_allclose(dM, mass_matrix_derivative(model, q, np.eye(2)[k]), atol=1e-14)
    q1, q2 = sympy.symbols("q1 q2")
    M = gaha(model, np.array([q1, q2], dtype=object))
    M_ref, _, _ = closed_2r(q[None], np.zeros((1, 2)))
    M_num = np.array([[float(sympy.sympify(x).subs({q1: q[0], q2: q[1]})) for x in row] for row in M])
    np.testing.assert_allclose(M_num, M_ref[0], atol=1e-12)


# --- Mdot, C, g ------------------------------------------------------------------------------
def test_mass_matrix_derivative_vs_finite_differences(zoo, rng):
    """Central differences through integrate: Mdot = (M(q (+) h v) - M(q (+) -h v)) / 2h."""
    for label, model in zoo:
        q, v = zoo_states(model, rng)
        h = 1e-5
        fd = (crba(model, ad.integrate(model, q, h * v)) - crba(model, ad.integrate(model, q, -h * v))) / (2 * h)
        Md = mass_matrix_derivative(model, q, v)
        assert np.abs(fd - Md).max() <= 1e-6 * np.abs(Md).max(), label
        np.testing.assert_allclose(Md, np.swapaxes(Md, 1, 2), atol=1e-12)


def test_coriolis_gravity_and_rnea(zoo, rng):
    for label, model in zoo:
        model = model.replace(damping=rng.uniform(0.1, 1, model.nv), coulomb=rng.uniform(0.1, 1, model.nv))
        q, v = zoo_states(model, rng)
        C, g = coriolis_matrix(model, q, v), gravity(model, q)
        h = rnea(model, q, v, 0 * v, friction=False)
        np.testing.assert_allclose(mv(C, v) + g, h, atol=1e-11, err_msg=label)
        np.testing.assert_allclose(nonlinear_effects(model, q, v), h, atol=1e-12, err_msg=label)
        np.testing.assert_allclose(g, rnea(model, q, 0 * v, 0 * v, friction=False), atol=1e-11, err_msg=label)
        N = mass_matrix_derivative(model, q, v) - 2 * C
        np.testing.assert_allclose(N, -np.swapaxes(N, 1, 2), atol=1e-11, err_msg=label)
        np.testing.assert_allclose(coriolis_matrix(model, q[2], v[2]), C[2], atol=1e-13)


def test_gravity_is_the_gradient_of_the_potential_energy(zoo, rng):
    for label, model in zoo:
        q, _ = zoo_states(model, rng, 1)
        h, E = 1e-6, np.eye(model.nv)
        fd = (ad.potential_energy(model, ad.integrate(model, q, h * E)) -
              ad.potential_energy(model, ad.integrate(model, q, -h * E))) / (2 * h)
        np.testing.assert_allclose(gravity(model, q[0]), fd, atol=1e-7, err_msg=label)


def test_christoffel(zoo, rng):
    for label, model in zoo:
        q, v = zoo_states(model, rng, 2)
        Gm = christoffel(model, q)
        np.testing.assert_allclose(Gm, np.swapaxes(Gm, 2, 3), atol=1e-13, err_msg=label)  # symmetric in j, k
        # dM_ij/dq_k = Gamma_ijk + Gamma_jik, and dM/dq_k from finite differences through integrate
        dM = Gm + np.transpose(Gm, (0, 2, 1, 3))
        k = model.nv - 1
        e = np.eye(model.nv)[k]
        fd = (crba(model, ad.integrate(model, q, 1e-5 * e)) - crba(model, ad.integrate(model, q, -1e-5 * e))) / 2e-5
        assert np.abs(dM[..., k] - fd).max() <= 1e-6 * np.abs(fd).max() + 1e-9, label
        if one_dof_only(model):
            C = np.einsum("nijk,nk->nij", Gm, v)
            np.testing.assert_allclose(C, coriolis_matrix(model, q, v), atol=1e-12, err_msg=label)
            np.testing.assert_allclose(coriolis_matrix(model, q, v, method="christoffel"), C, atol=1e-14)
        else:
            with pytest.raises(ad.InputError, match="recursive"):
                coriolis_matrix(model, q, v, method="christoffel")


# --- planar 2R arm (seed 002, example 3) ---------------------------------------------------------
l1, m1, m2, a1, a2, Iz1, Iz2 = 0.8, 1.5, 1.1, 0.35, 0.3, 0.09, 0.05


def planar_2r():
    b = ad.ModelBuilder("seed_2r", gravity=(0, -G, 0))
    b.add_body("link1", "world", "revolute", axis=(0, 0, 1), mass=m1, com=(a1, 0, 0), inertia=np.diag([0.01, Iz1, Iz1]))
    b.add_body("link2", "link1", "revolute", axis=(0, 0, 1), xyz=(l1, 0, 0), mass=m2, com=(a2, 0, 0),
               inertia=np.diag([0.01, Iz2, Iz2]))
    return b.build()


def closed_2r(q, qd):
    c2, s2 = np.cos(q[:, 1]), np.sin(q[:, 1])
    c1, c12 = np.cos(q[:, 0]), np.cos(q[:, 0] + q[:, 1])
    M11 = Iz1 + Iz2 + m1 * a1**2 + m2 * (l1**2 + a2**2 + 2 * l1 * a2 * c2)
    M12 = Iz2 + m2 * (a2**2 + l1 * a2 * c2)
    M = np.stack([np.stack([M11, M12], -1), np.stack([M12, Iz2 + m2 * a2**2 + 0 * c2], -1)], -2)
    h = -m2 * l1 * a2 * s2
    C = np.stack([np.stack([h * qd[:, 1], h * (qd[:, 0] + qd[:, 1])], -1), np.stack([-h * qd[:, 0], 0 * h], -1)], -2)
    g = np.stack([(m1 * a1 + m2 * l1) * G * c1 + m2 * a2 * G * c12, m2 * a2 * G * c12], -1)
    return M, C, g


def test_planar_2r_closed_forms(rng):
    model = planar_2r()
    q, qd = rng.uniform(-3, 3, (5, 2)), rng.normal(size=(5, 2))
    M, C, g = closed_2r(q, qd)
    np.testing.assert_allclose(gaha(model, q), M, atol=1e-12)
    np.testing.assert_allclose(coriolis_matrix(model, q, qd), C, atol=1e-12)
    np.testing.assert_allclose(gravity(model, q), g, atol=1e-12)
    # Christoffel: Gamma_112 = Gamma_121 = Gamma_122 = h = -m2 l1 a2 sin q2, Gamma_211 = -h, others 0
    h = -m2 * l1 * a2 * np.sin(q[:, 1])
    Gm = np.zeros((5, 2, 2, 2))
    Gm[:, 0, 0, 1] = Gm[:, 0, 1, 0] = Gm[:, 0, 1, 1] = h
    Gm[:, 1, 0, 0] = -h
    np.testing.assert_allclose(christoffel(model, q), Gm, atol=1e-12)
    # Mdot = [[2h qd2, h qd2], [h qd2, 0]]
    Md = np.zeros((5, 2, 2))
    Md[:, 0, 0], Md[:, 0, 1], Md[:, 1, 0] = 2 * h * qd[:, 1], h * qd[:, 1], h * qd[:, 1]
    np.testing.assert_allclose(mass_matrix_derivative(model, q, qd), Md, atol=1e-12)


def test_bad_method(zoo):
    model = zoo[0][1]
    with pytest.raises(ad.InputError, match="method"):
        coriolis_matrix(model, ad.neutral(model), np.zeros(model.nv), method="numeric")


# --- pinocchio as a peer -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def pin_pairs(urdf_models):
    pin = pytest.importorskip("pinocchio")
    out = []
    for stem, model in urdf_models:
        path = str(erd_urdf(stem))
        pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if model.has_floating_base \
            else pin.buildModelFromUrdf(path)
        out.append((stem, model, pm))
    return out


def _to_pin(model, pm, q, v):
    """artidyn (q, v) -> pinocchio (q, v) by joint name; returns them and the v permutation P
    (v_pin = v[P]), free joint [omega; v] -> [v; omega], continuous joints (cos, sin)."""
    qp, P = np.zeros(pm.nq), np.zeros(pm.nv, dtype=int)
    for i in range(1, model.nb + 1):
        name = model.joint_names[i]
        j = pm.getJointId(name) if model.joint_type[i] != FREE else pm.getJointId("root_joint")
        iq, iv, nqp = pm.idx_qs[j], pm.idx_vs[j], pm.nqs[j]
        sq, sv = model.q_slice(name), model.v_slice(name)
        if model.joint_type[i] == FREE:
            qp[iq:iq + 7] = q[sq]
            P[iv:iv + 6] = np.r_[np.arange(sv.start + 3, sv.start + 6), np.arange(sv.start, sv.start + 3)]
        elif nqp == 2:
            qp[iq:iq + 2] = np.cos(q[sq.start]), np.sin(q[sq.start])
            P[iv] = sv.start
        else:
            qp[iq:iq + nqp] = q[sq]
            P[iv:iv + pm.nvs[j]] = np.arange(sv.start, sv.stop)
    return qp, v[P], P


def test_gravity_and_coriolis_vs_pinocchio(pin_pairs, rng):
    import pinocchio as pin
    for stem, model, pm in pin_pairs:
        data = pm.createData()
        for _ in range(3):
            q, v = ad.random_configuration(model, rng), ad.random_velocity(model, rng)
            qp, vp, P = _to_pin(model, pm, q, v)
            g_pin = pin.computeGeneralizedGravity(pm, data, qp)
            np.testing.assert_allclose(gravity(model, q)[P], g_pin, atol=1e-10, err_msg=stem)
            C_pin = pin.computeCoriolisMatrix(pm, data, qp, vp)
            C = coriolis_matrix(model, q, v)
            np.testing.assert_allclose(C[np.ix_(P, P)], C_pin, atol=1e-10, err_msg=stem)
            Md = mass_matrix_derivative(model, q, v)
            np.testing.assert_allclose(Md[np.ix_(P, P)], C_pin + C_pin.T, atol=1e-10, err_msg=stem)


def test_coriolis_vs_pinocchio_on_zoo(zoo, rng):
    """Spherical joints, trees and floating bases (pinocchio twin built by tests/pin_build.py)."""
    pin = pytest.importorskip("pinocchio")
    import pin_build as pb
    for label, model in zoo:
        pm = pb.pin_from_artidyn(model)
        data = pm.createData()
        P = pb.v_to_pin(model, np.arange(model.nv, dtype=float)).astype(int)  # v_pin = v[P]
        q, v = zoo_states(model, rng, 2)
        C, g = coriolis_matrix(model, q, v), gravity(model, q)
        for n in range(2):
            C_pin = pin.computeCoriolisMatrix(pm, data, q[n], v[n][P])
            np.testing.assert_allclose(C[n][np.ix_(P, P)], C_pin, atol=1e-10, err_msg=label)
            np.testing.assert_allclose(g[n][P], pin.computeGeneralizedGravity(pm, data, q[n]), atol=1e-10,
                                       err_msg=label)
