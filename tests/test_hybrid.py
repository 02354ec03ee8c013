"""Hybrid dynamics (Featherstone, "Rigid Body Dynamics Algorithms", section 9.2).

Its two limits (all joints prescribed: the RNEA; none: the ABA), mixed problems checked through
the RNEA and against a dense solve of the partitioned M a + h = tau, a flying humanoid whose
centre of mass must fall with g whatever its joints do, example-robot-data robots, batches,
complex step, and input errors.
"""
import numpy as np
import pytest

import artidyn as ad
from artidyn.dynamics.hybrid import prescribed_mask
from artidyn.errors import InputError, NameNotFound, ShapeError
from artidyn.models.zoo import zoo as make_zoo

from conftest import ERD

TOL = 1e-10
N_STATES = 3
ZOO_LABELS = [label for label, _ in make_zoo(0)]
needs_erd = pytest.mark.skipif(ERD is None, reason="example-robot-data not installed")


@pytest.fixture(params=ZOO_LABELS)
def model(request, zoo, rng):
    """A zoo model with armature and joint friction, so that both paths count them."""
    m = dict(zoo)[request.param]
    return m.replace(armature=rng.uniform(0.05, 0.5, m.nv), damping=rng.uniform(0.1, 1.0, m.nv),
                     coulomb=rng.uniform(0.1, 1.0, m.nv))


def states(model, rng, n=N_STATES):
    q = ad.random_configuration(model, rng, size=n)
    v = ad.random_velocity(model, rng, size=n)
    a = ad.random_velocity(model, rng, size=n)
    return q, v, a


def close(x, y, tol=TOL):
    x, y = np.asarray(x), np.asarray(y)
    scale = max(1.0, float(np.max(np.abs(y))))
    np.testing.assert_allclose(x, y, rtol=0, atol=tol * scale)


def random_joints(model, rng):
    """A random non-empty, non-complete subset of the joint names."""
    names = model.joint_names[1:]
    k = rng.integers(1, len(names))
    return sorted(rng.choice(names, size=k, replace=False).tolist())


def dense_hybrid(model, q, v, a, tau, mask, f_ext=None):
    """The same problem by dense linear algebra on one state: M a + h = tau partitioned.

    Unknowns a_f (free dofs) and tau_p (prescribed dofs):
    ``M_ff a_f = tau_f - h_f - M_fp a_p`` and ``tau_p = M_pf a_f + M_pp a_p + h_p``,
    with M from the CRBA (plus armature) and h = rnea(q, v, 0) (friction, f_ext included).
    """
    M = ad.crba(model, q)
    h = ad.rnea(model, q, v, np.zeros(model.nv), f_ext)
    p, f = mask, ~mask
    a_out, tau_out = np.array(a, float), np.array(tau, float)
    a_out[f] = np.linalg.solve(M[np.ix_(f, f)], tau[f] - h[f] - M[np.ix_(f, p)] @ a[p])
    tau_out[p] = M[p] @ a_out + h[p]
    return a_out, tau_out


def check_hybrid(model, q, v, a, tau, joints, f_ext=None):
    """Solve, then check: inputs kept, rnea(q, v, a_out) == tau_out."""
    mask = prescribed_mask(model, joints)
    res = ad.hybrid_dynamics(model, q, v, a, tau, joints, f_ext)
    close(res.a[..., mask], np.asarray(a)[..., mask], 0)
    close(res.tau[..., ~mask], np.asarray(tau)[..., ~mask], 0)
    close(ad.rnea(model, q, v, res.a, f_ext), res.tau)
    return res


# --- the two limits --------------------------------------------------------------------------

def test_all_prescribed_is_rnea(model, rng):
    q, v, a = states(model, rng)
    f = rng.normal(size=(N_STATES, model.nb + 1, 6))
    res = ad.hybrid_dynamics(model, q, v, a, None, model.joint_names[1:], f)
    close(res.tau, ad.rnea(model, q, v, a, f))
    close(res.a, a, 0)


def test_none_prescribed_is_aba(model, rng):
    q, v, _ = states(model, rng)
    tau = rng.normal(size=(N_STATES, model.nv))
    f = rng.normal(size=(N_STATES, model.nb + 1, 6))
    res = ad.hybrid_dynamics(model, q, v, None, tau, [], f)
    close(res.a, ad.aba(model, q, v, tau, f))
    close(res.tau, tau, 0)


def test_friction_off_matches_rnea_without_friction(model, rng):
    q, v, a = states(model, rng)
    joints = random_joints(model, rng)
    tau = rng.normal(size=(N_STATES, model.nv))
    res = ad.hybrid_dynamics(model, q, v, a, tau, joints, friction=False)
    close(ad.rnea(model, q, v, res.a, friction=False), res.tau)
    # with friction the answer differs (v is random, so the friction torque is not zero)
    assert np.max(np.abs(ad.hybrid_dynamics(model, q, v, a, tau, joints).a - res.a)) > 1e-6


def test_joint_springs_count(zoo, rng):
    """Joint springs K (q - rest) enter like friction: the limits still equal rnea and aba."""
    model = dict(zoo)["chain_mixed6"]
    if not hasattr(model, "stiffness"):
        pytest.skip("this version of artidyn has no joint springs")
    model = model.replace(stiffness=rng.uniform(2.0, 5.0, model.nv), rest=rng.uniform(-0.5, 0.5, model.nv))
    q, v, a = states(model, rng)
    tau = ad.rnea(model, q, v, a)
    close(ad.hybrid_dynamics(model, q, v, a, None, model.joint_names[1:]).tau, tau)
    close(ad.hybrid_dynamics(model, q, v, None, tau, []).a, a)
    res = check_hybrid(model, q, v, a, tau, model.joint_names[2::2])
    close(res.a, a)


# --- mixed problems --------------------------------------------------------------------------

@pytest.mark.parametrize("trial", range(3))
def test_mixed_reproduces_rnea(model, rng, trial):
    q, v, a = states(model, rng)
    tau = rng.normal(size=(N_STATES, model.nv))
    f = rng.normal(size=(N_STATES, model.nb + 1, 6))
    check_hybrid(model, q, v, a, tau, random_joints(model, rng), f)


def test_mixed_matches_dense_solve(model, rng):
    q, v, a = states(model, rng, 1)
    q, v, a = q[0], v[0], a[0]
    tau = rng.normal(size=model.nv)
    f = rng.normal(size=(model.nb + 1, 6))
    joints = random_joints(model, rng)
    mask = prescribed_mask(model, joints)
    res = ad.hybrid_dynamics(model, q, v, a, tau, joints, f)
    a_ref, tau_ref = dense_hybrid(model, q, v, a, tau, mask, f)
    close(res.a, a_ref)
    close(res.tau, tau_ref)


def test_mask_equals_names_and_ignored_entries_unread(model, rng):
    q, v, a = states(model, rng)
    tau = rng.normal(size=(N_STATES, model.nv))
    joints = random_joints(model, rng)
    mask = prescribed_mask(model, joints)
    assert mask.sum() == sum(model.nv_joint[model.joint_id(j)] for j in joints)
    by_name = ad.hybrid_dynamics(model, q, v, a, tau, joints)
    by_mask = ad.hybrid_dynamics(model, q, v, np.where(mask, a, np.nan), np.where(mask, np.nan, tau), mask)
    close(by_mask.a, by_name.a, 0)
    close(by_mask.tau, by_name.tau, 0)


def test_prescribed_floating_base_free_joints(zoo, rng):
    """The base's motion given (a free joint with its 6 dofs prescribed), the joints free."""
    model = dict(zoo)["floating_tree_6"]
    q, v, a = states(model, rng)
    tau = rng.normal(size=(N_STATES, model.nv))
    res = check_hybrid(model, q, v, a, tau, ["root_joint"])
    a_ref, tau_ref = dense_hybrid(model, q[0], v[0], a[0], tau[0], prescribed_mask(model, ["root_joint"]))
    close(res.a[0], a_ref)
    close(res.tau[0], tau_ref)


def test_batch_equals_single_states(model, rng):
    q, v, a = states(model, rng)
    tau = rng.normal(size=(N_STATES, model.nv))
    joints = random_joints(model, rng)
    batch = ad.hybrid_dynamics(model, q, v, a, tau, joints)
    assert batch.a.shape == batch.tau.shape == (N_STATES, model.nv)
    for n in range(N_STATES):
        one = ad.hybrid_dynamics(model, q[n], v[n], a[n], tau[n], joints)
        assert one.a.shape == one.tau.shape == (model.nv,)
        close(one.a, batch.a[n], 1e-13)
        close(one.tau, batch.tau[n], 1e-13)
    # one state broadcast against a batch of velocities
    res = ad.hybrid_dynamics(model, q[0], v, a[0], tau[0], joints)
    close(res.tau[1], ad.hybrid_dynamics(model, q[0], v[1], a[0], tau[0], joints).tau, 1e-13)


def test_complex_step_derivative(zoo, rng):
    """dtype-generic: d a_free / d q by complex step equals central finite differences."""
    model = dict(zoo)["chain_rev7"]
    q, v, a = (x[0] for x in states(model, rng, 1))
    tau = rng.normal(size=model.nv)
    joints = ["body2_joint", "body5_joint"]
    h, k = 1e-30, 3
    dq = np.eye(model.nq)[k]
    cs = ad.hybrid_dynamics(model, q + 1j * h * dq, v, a, tau, joints).a.imag / h
    e = 1e-6
    fd = (ad.hybrid_dynamics(model, q + e * dq, v, a, tau, joints).a
          - ad.hybrid_dynamics(model, q - e * dq, v, a, tau, joints).a) / (2 * e)
    close(cs, fd, 1e-6)
    assert np.max(np.abs(cs)) > 1e-3


# --- real robots -----------------------------------------------------------------------------

@needs_erd
@pytest.mark.parametrize("name", ["ur5_robot", "panda", "solo12", "talos_reduced"])
def test_example_robots_mixed(name, rng):
    model = ad.models.example_robot(name)
    q, v, a = states(model, rng)
    tau = rng.normal(size=(N_STATES, model.nv))
    joints = random_joints(model, rng)
    res = check_hybrid(model, q, v, a, tau, joints)
    a_ref, tau_ref = dense_hybrid(model, q[0], v[0], a[0], tau[0], prescribed_mask(model, joints))
    close(res.a[0], a_ref)
    close(res.tau[0], tau_ref)


@needs_erd
@pytest.mark.parametrize("name", ["talos_reduced", "solo12"])
def test_flying_robot_base_from_joint_motion(name, rng):
    """All actuated joints prescribed, base free with zero wrench (a jump's flight phase).

    The base acceleration must solve the 6 base rows of M a + h = 0, and whatever the joints do,
    the centre of mass falls with g (no external force but gravity).
    """
    model = ad.models.example_robot(name)
    assert model.has_floating_base
    joints = model.joint_names[2:]
    mask = prescribed_mask(model, joints)
    assert mask.tolist() == [False] * 6 + [True] * (model.nv - 6)
    q, v, a = states(model, rng)
    a[:, :6] = np.nan                       # unknown: the base acceleration
    tau = np.full((N_STATES, model.nv), np.nan)
    tau[:, :6] = 0.0                        # no wrench on the base
    res = check_hybrid(model, q, v, np.nan_to_num(a), np.nan_to_num(tau), joints)
    close(res.tau[:, :6], np.zeros((N_STATES, 6)), 0)
    for n in range(N_STATES):
        M = ad.crba(model, q[n])
        h = ad.rnea(model, q[n], v[n], np.zeros(model.nv))
        a_base = np.linalg.solve(M[:6, :6], -h[:6] - M[:6, 6:] @ a[n, 6:])
        close(res.a[n, :6], a_base)
        close(res.tau[n, 6:], M[6:] @ res.a[n] + h[6:])
    close(ad.com_acceleration(model, q, v, res.a), np.broadcast_to(model.gravity, (N_STATES, 3)))
    # the same call with NaN in the ignored entries
    again = ad.hybrid_dynamics(model, q, v, a, tau, joints)
    close(again.a, res.a, 0)


# --- errors ----------------------------------------------------------------------------------

def test_unknown_joint_is_named(zoo):
    model = dict(zoo)["chain_rev7"]
    q = ad.neutral(model)
    z = np.zeros(model.nv)
    with pytest.raises(NameNotFound, match="no_such_joint"):
        ad.hybrid_dynamics(model, q, z, z, z, ["no_such_joint"])
    with pytest.raises(InputError, match="joint names or a boolean mask"):
        ad.hybrid_dynamics(model, q, z, z, z, [1, 2])


def test_partly_prescribed_joint_refused(zoo):
    model = dict(zoo)["floating_chain_3"]
    mask = np.zeros(model.nv, dtype=bool)
    mask[:3] = True                         # the base's angular dofs only
    z = np.zeros(model.nv)
    with pytest.raises(InputError, match="root_joint.*partly prescribed"):
        ad.hybrid_dynamics(model, ad.neutral(model), z, z, z, mask)


def test_wrong_shapes(zoo):
    model = dict(zoo)["tree_8"]
    q, z = ad.neutral(model), np.zeros(model.nv)
    joints = model.joint_names[1:3]
    with pytest.raises(ShapeError, match="mask"):
        ad.hybrid_dynamics(model, q, z, z, z, np.ones(model.nv + 1, dtype=bool))
    with pytest.raises(ShapeError, match="^a has"):
        ad.hybrid_dynamics(model, q, z, np.zeros(model.nv + 1), z, joints)
    with pytest.raises(ShapeError, match="^tau has"):
        ad.hybrid_dynamics(model, q, z, z, np.zeros((2, model.nv - 1)), joints)
    with pytest.raises(ShapeError, match="batch sizes"):
        ad.hybrid_dynamics(model, q, np.zeros((2, model.nv)), np.zeros((3, model.nv)), z, joints)
    with pytest.raises(ShapeError, match="f_ext"):
        ad.hybrid_dynamics(model, q, z, z, z, joints, f_ext=np.zeros((model.nb, 6)))
    with pytest.raises(InputError, match="NaN"):   # NaN where the entry is read
        ad.hybrid_dynamics(model, q, z, np.full(model.nv, np.nan), z, model.joint_names[1:])


def test_symbolic_equals_numeric(rng):
    """dtype-generic: SymPy configuration symbols, then substituted, give the numeric answer."""
    sympy = pytest.importorskip("sympy")
    model = ad.models.random_chain(rng, 2)
    q, v, a = (x[0] for x in states(model, rng, 1))
    tau = rng.normal(size=model.nv)
    joints = [model.joint_names[1]]             # the root prescribed, the tip free
    theta = sympy.symbols(f"theta0:{model.nq}")
    sym = ad.hybrid_dynamics(model, np.array(theta, dtype=object), v, a, tau, joints)
    num = ad.hybrid_dynamics(model, q, v, a, tau, joints)
    values = {t: sympy.Float(x, 30) for t, x in zip(theta, q)}
    for sym_x, num_x in ((sym.a, num.a), (sym.tau, num.tau)):
        close(np.array([float(sympy.sympify(e).xreplace(values)) for e in sym_x]), num_x, 1e-12)
