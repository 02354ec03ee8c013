"""Seed 002 (Nguyen Quang Hoang's non-recursive Newton-Euler lecture) on tree models: the joint
reactions without the accelerations (slide 13's projected formula) and the forward augmented
solve (slide 14), directly on a model's joints; Example 2's 6 x 6 system (slides 28-37) rebuilt
entry by entry from the tree model and solved; real robots against aba (compiled), rnea's joint
wrenches and pinocchio."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.dynamics.nonrecursive import constraint_basis, newton_euler_nonrecursive, newton_euler_system
from artidyn.dynamics.reactions import newton_euler_forward, newton_euler_reactions
from artidyn.errors import InputError

import pin_utils as pu
from conftest import erd_urdf

try:
    import pinocchio as pin
except ImportError:            # pragma: no cover - the peer is optional
    pin = None

G = 9.81


def close(x, y, rel=1e-10):
    x, y = np.asarray(x), np.asarray(y)
    assert x.shape == y.shape, (x.shape, y.shape)
    err = np.abs(x - y).max(initial=0.0)
    assert err <= rel * (1.0 + np.abs(y).max(initial=0.0)), err


# --- Example 2: a cart (x) with a pendulum (phi) hinged at A, y axis up (slides 28-37) -------------
m1, m2, a2, d, I1z, I2z = 2.0, 0.7, 0.45, 0.15, 0.25, 0.03


def seed_cart():
    b = ad.ModelBuilder("seed_cart", gravity=(0, -G, 0))
    b.add_body("cart", "world", "prismatic", axis=(1, 0, 0), mass=m1, inertia=np.diag([0.1, 0.2, I1z]))  # O_1 = C_1
    b.add_body("pendulum", "cart", "revolute", axis=(0, 0, 1), xyz=(d, 0, 0), mass=m2, com=(a2, 0, 0),
               inertia=np.diag([0.01, 0.02, I2z]))
    return b.build()


def seed_six(phi, phid, u):
    """The lecture's planar system, rows (f_x, f_y, m_z) of the cart then of the pendulum:
    Mbar (6x2), k (6), Q_a (6) with the drive force u1 and the motor torque u2 (on the pendulum,
    its opposite on the cart), and the matrix of slide 36, Q_c = [..] (N, n, X_A, Y_A)^T."""
    s, c = np.sin(phi), np.cos(phi)
    Mbar = np.array([[m1, 0], [0, 0], [0, 0], [m2, -m2 * a2 * s], [0, m2 * a2 * c], [0, I2z]])
    k = np.array([0, 0, 0, -m2 * a2 * phid ** 2 * c, -m2 * a2 * phid ** 2 * s, 0])
    Q_a = np.array([u[0], -m1 * G, -u[1], 0, -m2 * G, u[1]])
    Qc = np.array([[0, 0, -1, 0], [1, 0, 0, -1], [0, 1, 0, -d], [0, 0, 1, 0], [0, 0, 0, 1],
                   [0, 0, a2 * s, -a2 * c]])
    return Mbar, k, Q_a, Qc


ROWS = [0, 1, 8, 3, 4, 11]        # the tree's rows (translations of bodies 1, 2, then rotations) in the seed's order


def seed_lambda(model, q, lam):
    """The seed's (N, n, X_A, Y_A) from the tree's reaction components: world axes, about O_i."""
    T1, T2 = constraint_basis(model, 1), constraint_basis(model, 2)
    w1 = T1 @ lam[:T1.shape[1]]                                   # the cart does not turn: world axes
    c, s = np.cos(q[1]), np.sin(q[1])
    R2 = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    w2 = T2 @ lam[T1.shape[1]:]
    return np.array([w1[4], w1[2], (R2 @ w2[3:])[0], (R2 @ w2[3:])[1]])


def test_example2_six_by_six_rebuilt_from_the_tree_model(rng):
    """Slide 37: [Mbar H] [qdd; lambda] = Q_a - k, 6 x 6 with lambda = (N, n, X_A, Y_A) and H =
    -(slide 36's matrix). The tree model's stacked system gives Mbar, k, Q_a + B u row by row
    and H on the in-plane reaction components; the 6 x 6 solved numerically gives aba's
    accelerations and the reactions of newton_euler_forward; slide 13's projected formula on the
    6 x 6 (W = diag(m1, m1, I1z, m2, m2, I2z)) gives the same lambda without qdd, as does
    newton_euler_reactions on the tree."""
    model = seed_cart()
    for _ in range(4):
        q, v, u = rng.uniform(-3, 3, 2), rng.normal(size=2), rng.normal(size=2) * 5
        Mbar6, k6, Qa6, Qc6 = seed_six(q[1], v[1], u)
        sys = newton_euler_system(model, q, v)
        close(sys.Mbar[ROWS], Mbar6, 1e-14)
        close(sys.k[ROWS], k6, 1e-14)
        close((sys.Q_a + sys.B @ u)[ROWS], Qa6, 1e-14)
        for _ in range(3):                                        # Q_c = -H lambda, in the seed's components
            lam = rng.normal(size=sys.H.shape[1])
            close((-sys.H @ lam)[ROWS], Qc6 @ seed_lambda(model, q, lam), 1e-14)
        H6 = -Qc6
        x = np.linalg.solve(np.hstack([Mbar6, H6]), Qa6 - k6)
        close(x[:2], ad.aba(model, q, v, u), 1e-12)
        a, r = newton_euler_forward(model, q, v, u)
        close(a, x[:2], 1e-12)
        close(seed_lambda(model, q, r.lam), x[2:], 1e-12)
        Winv = np.diag(1 / np.array([m1, m1, I1z, m2, m2, I2z]))
        lam13 = np.linalg.solve(H6.T @ Winv @ H6, H6.T @ Winv @ (Qa6 - k6))
        close(lam13, x[2:], 1e-12)
        close(seed_lambda(model, q, newton_euler_reactions(model, q, v, u).lam), x[2:], 1e-12)


def test_example2_reactions_in_closed_form(rng):
    """Slides 33 and 35: with qdd from the reduced equations M qdd + C qd + g = u (slide 35,
    solved here by hand), X_A = m2 (xdd - a2 s phidd - a2 c phid^2), Y_A = m2 (g + a2 c phidd -
    a2 s phid^2), N = m1 g + Y_A, n = u2 + d Y_A: newton_euler_reactions gives them from (q, qd,
    u) alone, batched."""
    model = seed_cart()
    Q, V, U = rng.uniform(-3, 3, (6, 2)), rng.normal(size=(6, 2)), rng.normal(size=(6, 2)) * 4
    r = newton_euler_reactions(model, Q, V, U)
    for n in range(6):
        phi, phid = Q[n, 1], V[n, 1]
        s, c = np.sin(phi), np.cos(phi)
        M = np.array([[m1 + m2, -m2 * a2 * s], [-m2 * a2 * s, I2z + m2 * a2 ** 2]])
        xdd, phidd = np.linalg.solve(M, U[n] - np.array([-m2 * a2 * c * phid ** 2, m2 * G * a2 * c]))
        X_A = m2 * (xdd - a2 * s * phidd - a2 * c * phid ** 2)
        Y_A = m2 * (G + a2 * c * phidd - a2 * s * phid ** 2)
        close(r.reaction_world[n, 2, 3:5], [X_A, Y_A], 1e-12)
        close(r.reaction_world[n, 1, [4, 2]], [m1 * G + Y_A, U[n, 1] + d * Y_A], 1e-12)
        close(r.reaction_world[n, :, 5], np.zeros(3), 1e-12)      # nothing out of the plane


def test_example1_pin_reactions_without_accelerations(rng):
    """Slides 18-27, the pendulum (x down, gravity along x): (I1z + m a^2) qdd + m a g sin q = u,
    X_O = -m a (sin q qdd + cos q qd^2) - m g, Y_O = m a (cos q qdd - sin q qd^2) (slide 23's rows
    1-2), from (q, qd, u) by the projected formula."""
    m, a, Iz = 1.3, 0.4, 0.05
    b = ad.ModelBuilder("seed_pendulum", gravity=(G, 0, 0))
    b.add_body("link1", "world", "revolute", axis=(0, 0, 1), mass=m, com=(a, 0, 0), inertia=np.diag([0.02, 0.03, Iz]))
    model = b.build()
    q, qd, u = rng.uniform(-3, 3, 5), rng.normal(size=5), rng.normal(size=5)
    r = newton_euler_reactions(model, q[:, None], qd[:, None], u[:, None])
    qdd = (u - m * a * G * np.sin(q)) / (Iz + m * a * a)
    close(r.reaction_world[:, 1, 3], -m * a * (np.sin(q) * qdd + np.cos(q) * qd ** 2) - m * G, 1e-12)
    close(r.reaction_world[:, 1, 4], m * a * (np.cos(q) * qdd - np.sin(q) * qd ** 2), 1e-12)
    close(r.wrench[:, 1, 2], u, 1e-12)                             # the joint's torque is u itself


# --- real robots and the random zoo --------------------------------------------------------------

ROBOTS = [("ur5_robot", False), ("solo12", False), ("solo12", True), ("panda", False)]


@pytest.fixture(scope="module")
def robots():
    return {(stem, fl): ad.load_urdf(erd_urdf(stem), floating_base=fl) for stem, fl in ROBOTS}


@pytest.mark.parametrize("key", ROBOTS, ids=[f"{s}{'_floating' if f else '_fixed'}" for s, f in ROBOTS])
def test_real_robots_against_aba_and_joint_wrenches(key, robots, rng):
    """ur5, solo12 (fixed base and floating), panda (with its joint friction): the forward
    augmented solve equals aba (compiled) and its joint wrenches rnea's recursion (joint_wrenches
    at those accelerations), external wrenches included; the projected formula gives the same
    wrenches and components without the accelerations; the inverse route of the lecture
    (newton_euler_nonrecursive with reactions) at aba's accelerations gives tau and lambda back.
    Batches and single states agree."""
    model = robots[key]
    N = 4
    q = ad.random_configuration(model, rng, size=N)
    v, tau = rng.normal(size=(N, model.nv)), 5 * rng.normal(size=(N, model.nv))
    f_ext = rng.normal(size=(N, model.nb + 1, 6))
    a_ref = ad.aba(model, q, v, tau, f_ext)
    W_ref = ad.joint_wrenches(model, q, v, a_ref, f_ext)
    a, r = newton_euler_forward(model, q, v, tau, f_ext)
    close(a, a_ref, 1e-9)
    close(r.wrench[:, 1:], W_ref[:, 1:], 1e-9)
    p = newton_euler_reactions(model, q, v, tau, f_ext)
    close(p.wrench[:, 1:], W_ref[:, 1:], 1e-9)
    close(p.lam, r.lam, 1e-9)
    tau_back, inv = newton_euler_nonrecursive(model, q, v, a_ref, f_ext, reactions=True)
    close(tau_back, tau, 1e-9)
    close(inv.lam, p.lam, 1e-9)
    for i in range(1, model.nb + 1):                              # reactions do no work on the joint's motions
        close(r.reaction[:, i] @ model.S[i], np.zeros((N, model.nv_joint[i])), 1e-9)
    a1, r1 = newton_euler_forward(model, q[1], v[1], tau[1], f_ext[1])
    close(a1, a[1], 1e-12)
    close(r1.wrench, r.wrench[1], 1e-12)
    close(newton_euler_reactions(model, q[1], v[1], tau[1], f_ext[1]).wrench, p.wrench[1], 1e-12)


@pytest.mark.skipif(pin is None, reason="pinocchio not installed")
def test_ur5_joint_wrenches_against_pinocchio(robots, rng):
    """The wrench each joint transmits (pinocchio's data.f after rnea, [force; moment] in the
    joint frame, which for a URDF is the child link's frame) equals the projected formula's at
    pinocchio's own aba accelerations."""
    model = robots[("ur5_robot", False)]
    pm = pu.pin_model(erd_urdf("ur5_robot"), False)
    data = pm.createData()
    for _ in range(3):
        q = ad.random_configuration(model, rng)
        v, tau = rng.normal(size=model.nv), 5 * rng.normal(size=model.nv)
        qp, vp, tp = pu.to_pin_q(model, pm, q), pu.to_pin_v(model, pm, v), pu.to_pin_v(model, pm, tau)
        ap = pin.aba(pm, data, qp, vp, tp)
        pin.rnea(pm, data, qp, vp, ap)
        r = newton_euler_reactions(model, q, v, tau)
        for i, jid, _ in pu.joint_map(model, pm):
            close(r.wrench[i], pu.from_pin_spatial(data.f[jid].vector), 1e-9)


def test_zoo_trees(zoo, rng):
    """Random chains and trees (prismatic, spherical, floating bases): forward augmented solve =
    aba, projected reactions = joint_wrenches at aba's accelerations."""
    for name, model in zoo:
        q = ad.random_configuration(model, rng, size=3)
        v, tau = rng.normal(size=(3, model.nv)), rng.normal(size=(3, model.nv))
        a_ref = ad.aba(model, q, v, tau)
        a, r = newton_euler_forward(model, q, v, tau)
        close(a, a_ref, 1e-9)
        W_ref = ad.joint_wrenches(model, q, v, a_ref)
        close(newton_euler_reactions(model, q, v, tau).wrench[:, 1:], W_ref[:, 1:], 1e-9)
        close(r.wrench[:, 1:], W_ref[:, 1:], 1e-9)


def arm(armature=0.0, mass=1.0, stiffness=0.0):
    b = ad.ModelBuilder("arm", gravity=(0, 0, -G))
    b.add_body("l1", "world", "revolute", axis=(0, 0, 1), mass=2.0, com=(0, 0, 0.1), inertia=np.diag([.02, .03, .01]))
    b.add_body("l2", "l1", "revolute", axis=(0, 1, 0), xyz=(0, 0, 0.3), mass=mass, com=(0.2, 0, 0),
               inertia=np.diag([.01, .02, .03]) * (mass > 0), armature=armature, stiffness=stiffness, rest=0.1,
               damping=0.3)
    b.add_body("l3", "l2", "prismatic", axis=(1, 0, 0), xyz=(0.4, 0, 0), mass=1.0, com=(0.1, 0.01, 0),
               inertia=np.diag([.01, .015, .02]))
    return b.build()


def test_rotor_inertia_springs_friction_and_refusals(rng):
    """Rotor inertia, a joint spring and viscous friction: the forward solve still equals aba and
    its wrenches joint_wrenches (which leave the rotor's torque out); the projected formula, the
    rotor a body of its own, gives the same wrenches without qdd (on the puma560 too, whose six
    joints have rotors). A massless body (W singular) is refused by name; the forward solve takes
    it."""
    model = arm(armature=0.07, stiffness=4.0)
    q, v, tau = rng.uniform(-1, 1, 3), rng.normal(size=3), rng.normal(size=3)
    a, r = newton_euler_forward(model, q, v, tau)
    close(a, ad.aba(model, q, v, tau), 1e-12)
    close(r.wrench[1:], ad.joint_wrenches(model, q, v, a)[1:], 1e-12)
    close(newton_euler_reactions(model, q, v, tau).wrench[1:], r.wrench[1:], 1e-12)
    puma = ad.load("puma560")
    assert np.all(puma.armature > 0)
    Q, V, T = ad.random_configuration(puma, rng, size=3), rng.normal(size=(3, 6)), 10 * rng.normal(size=(3, 6))
    W_ref = ad.joint_wrenches(puma, Q, V, ad.aba(puma, Q, V, T))
    close(newton_euler_reactions(puma, Q, V, T).wrench[:, 1:], W_ref[:, 1:], 1e-9)
    close(newton_euler_forward(puma, Q, V, T)[1].wrench[:, 1:], W_ref[:, 1:], 1e-9)
    springy = arm(stiffness=4.0)
    close(newton_euler_reactions(springy, q, v, tau).wrench[1:],
          ad.joint_wrenches(springy, q, v, ad.aba(springy, q, v, tau))[1:], 1e-12)
    light = arm(mass=0.0)
    with pytest.raises(InputError, match="'l2'.*newton_euler_forward"):
        newton_euler_reactions(light, q, v, tau)
    a, r = newton_euler_forward(light, q, v, tau)
    close(a, ad.aba(light, q, v, tau), 1e-10)
