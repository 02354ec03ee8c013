"""Several free (floating) bodies in one model, each a child of the world (boxes on a table, a
robot and the object it grasps): the algorithms against pinocchio with several free-flyer joints."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import ModelError

pin = pytest.importorskip("pinocchio")


def scene(seed=0):
    rng = np.random.default_rng(seed)
    b = ad.ModelBuilder("three_boxes")
    for k in range(3):
        b.add_body(f"box{k}", "world", "free", mass=1.0 + k, com=rng.normal(size=3) * 0.05,
                   inertia=np.diag([0.01, 0.02, 0.03]) * (k + 1), xyz=(0.0, 0.0, 0.1 * k))
    b.add_body("arm", "box1", "revolute", axis=(0, 1, 0), xyz=(0.1, 0, 0), mass=0.5, com=(0.1, 0, 0),
               inertia=np.eye(3) * 1e-3)
    return b.build()


def pin_twin(model):
    pm = pin.Model()
    pm.gravity = pin.Motion(np.asarray(model.gravity, float), np.zeros(3))
    for i in range(1, model.nb + 1):
        T = model.joint_placement[i]
        jm = pin.JointModelFreeFlyer() if model.joint_kind[i] == "free" else pin.JointModelRY()
        j = pm.addJoint(int(model.parent[i]), jm, pin.SE3(T[:3, :3].copy(), T[:3, 3].copy()), model.joint_names[i])
        pm.appendBodyToJoint(j, pin.Inertia(float(model.mass[i]), model.com[i].copy(), model.inertia_com[i].copy()),
                             pin.SE3.Identity())
    return pm


def v_to_pin(model, v):
    out = np.array(v, dtype=float)
    for i in range(1, model.nb + 1):
        if model.joint_kind[i] == "free":
            k = int(model.idx_v[i])
            out[k:k + 3], out[k + 3:k + 6] = v[k + 3:k + 6], v[k:k + 3]   # [omega; v] -> [v; omega]
    return out


def test_names_and_layout():
    m = scene()
    assert m.joint_names[1:] == ["root_joint", "box1_joint", "arm_joint", "box2_joint"]
    assert (m.nq, m.nv) == (22, 19)
    with pytest.raises(ModelError, match="parent must be 'world'"):
        b = ad.ModelBuilder("bad")
        b.add_body("a", "world", "revolute", mass=1.0, inertia=np.eye(3))
        b.add_body("b", "a", "free", mass=1.0, inertia=np.eye(3))
        b.build()


def test_several_free_bodies_match_pinocchio():
    m = scene()
    pm = pin_twin(m)
    pd = pm.createData()
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = ad.random_configuration(m, rng=rng)
        v, a = rng.normal(size=m.nv), rng.normal(size=m.nv)
        pv, pa = v_to_pin(m, v), v_to_pin(m, a)
        tau = ad.rnea(m, q, v, a)
        np.testing.assert_allclose(v_to_pin(m, tau), pin.rnea(pm, pd, q, pv, pa), atol=1e-10)
        Mp = pin.crba(pm, pd, q)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        perm = v_to_pin(m, np.arange(m.nv)).astype(int)               # pinocchio index of each artidyn dof
        np.testing.assert_allclose(ad.crba(m, q), Mp[np.ix_(perm, perm)], atol=1e-10)
        np.testing.assert_allclose(v_to_pin(m, ad.aba(m, q, v, tau)), pa, atol=1e-9)
        with ad.kernels.reference_only():
            np.testing.assert_allclose(ad.rnea(m, q, v, a), tau, atol=1e-10)


def test_several_free_bodies_simulate_and_conserve_energy():
    m = scene()
    q = ad.random_configuration(m, rng=1)
    r = ad.simulate(m, q, np.random.default_rng(2).normal(size=m.nv), t_final=0.5, dt=1e-3, method="rk4")
    assert r.energy_drift() < 1e-9
