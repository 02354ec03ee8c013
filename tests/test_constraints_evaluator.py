"""The bound evaluator ``artidyn.constraints.ConstrainedDynamics``: the numbers of
``constrained_dynamics`` (to 1e-12) and of pinocchio's ``constraintDynamics``, ``out=`` written in
place, and everything the compiled call does not take handed to the public function."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.constraints import ConstrainedDynamics, Coupling, Point, Weld, constrained_dynamics
from conftest import ERD

SOLO_FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")


def _same(cd, r):
    np.testing.assert_allclose(cd.lambdas, r.lambdas, rtol=0, atol=1e-12 * max(1.0, np.max(np.abs(r.lambdas))))
    assert len(cd.forces) == len(r.forces)
    for f, g in zip(cd.forces, r.forces):
        np.testing.assert_allclose(f, g, rtol=0, atol=1e-12 * max(1.0, np.max(np.abs(g))))
    assert cd.status == r.status and cd.rank == r.rank
    assert abs(cd.residual - r.residual) <= 1e-12 * max(1.0, r.residual)


@pytest.mark.skipif(ERD is None, reason="example-robot-data not installed")
@pytest.mark.parametrize("friction", [False, True])
def test_solo12_feet_same_numbers_as_constrained_dynamics(friction):
    model = ad.load("solo12")
    rng = np.random.default_rng(5)
    q0 = ad.random_configuration(model, rng)
    cons = [Point(f, at=q0) for f in SOLO_FEET]
    cd = ConstrainedDynamics(model, cons, friction=friction, baumgarte=(3.0, 2.0))
    out = np.empty(model.nv)
    for _ in range(3):
        q = ad.random_configuration(model, rng)
        v, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
        r = constrained_dynamics(model, q, v, tau, cons, friction=friction, baumgarte=(3.0, 2.0))
        assert cd(q, v, tau, out=out) is out
        np.testing.assert_allclose(out, r.a, rtol=0, atol=1e-12 * max(1.0, np.max(np.abs(r.a))))
        _same(cd, r)
        np.testing.assert_allclose(cd(q, v, tau), r.a, rtol=0, atol=1e-12 * max(1.0, np.max(np.abs(r.a))))


@pytest.mark.skipif(ERD is None, reason="example-robot-data not installed")
def test_talos_welded_feet_match_pinocchio():
    pin = pytest.importorskip("pinocchio")
    from pin_utils import from_pin_v, pin_model, repaired_links, to_pin_q, to_pin_v

    erd = pytest.importorskip("artidyn.models.erd")
    name = "talos_full_v2"
    if name not in erd.example_robot_names():
        pytest.skip(f"{name} not in example-robot-data")
    model = erd.example_robot(name)
    pm = pin_model(erd.example_robot_path(name), True, inertias_from=model if repaired_links(model) else None)
    rng = np.random.default_rng(0)
    q = ad.random_configuration(model, rng)
    soles = ("left_sole_link", "right_sole_link")
    cons = [Weld(f, at=q) for f in soles]
    _, J, _ = ad.constraint_terms(model, q, np.zeros(model.nv), cons)
    v = rng.normal(size=model.nv)
    v -= np.linalg.pinv(J) @ (J @ v)                  # J v = 0: where the two 6-D conventions agree
    tau = rng.normal(size=model.nv)
    cd = ConstrainedDynamics(model, cons, friction=False)
    a = cd(q, v, tau)
    r = constrained_dynamics(model, q, v, tau, cons, friction=False)
    np.testing.assert_allclose(a, r.a, rtol=0, atol=1e-12 * max(1.0, np.max(np.abs(r.a))))
    _same(cd, r)
    cms = pin.StdVec_RigidConstraintModel()
    for f in soles:
        F = pm.frames[pm.getFrameId(f)]
        cms.append(pin.RigidConstraintModel(pin.ContactType.CONTACT_6D, pm, F.parentJoint, F.placement,
                                            pin.ReferenceFrame.LOCAL_WORLD_ALIGNED))
    cds = pin.StdVec_RigidConstraintData()
    for cm in cms:
        cds.append(cm.createData())
    pd = pm.createData()
    pin.initConstraintDynamics(pm, pd, cms, cds)
    ap = from_pin_v(model, pm, pin.constraintDynamics(pm, pd, to_pin_q(model, pm, q), to_pin_v(model, pm, v),
                                                      to_pin_v(model, pm, tau), cms, cds,
                                                      pin.ProximalSettings(1e-12, 1e-12, 0.0, 1)))
    scale = max(1.0, np.max(np.abs(ap)))
    assert np.max(np.abs(a - ap)) <= 1e-8 * scale
    for f, cdata in zip(cd.forces, cds):
        g = np.concatenate([cdata.contact_force.angular, cdata.contact_force.linear])
        assert np.max(np.abs(f - g)) <= 1e-8 * max(1.0, np.max(np.abs(g)))


def test_other_inputs_go_to_the_public_function():
    model = ad.load("puma560")
    q = ad.random_configuration(model, rng=1)
    v, tau = np.ones(model.nv) * 0.1, np.zeros(model.nv)
    cons = [Coupling(model.joint_names[1], model.joint_names[2], ratio=2.0)]
    cd = ConstrainedDynamics(model, cons)
    r = constrained_dynamics(model, q, v, tau, cons)
    np.testing.assert_allclose(cd(list(q), list(v), list(tau)), r.a, atol=1e-12)      # lists: the public route
    _same(cd, r)
    np.testing.assert_allclose(cd(q, v, tau), r.a, atol=1e-12)                         # the compiled route
    _same(cd, r)
    strided = np.empty(2 * model.nv)[::2]
    assert np.allclose(cd(q, v, tau, out=strided), r.a, atol=1e-12) and np.allclose(strided, r.a, atol=1e-12)
    twice = ConstrainedDynamics(model, cons + cons)                                   # redundant: least norm
    np.testing.assert_allclose(twice(q, v, tau), r.a, atol=1e-8)
    assert twice.status == "redundant" and twice.rank == 1
    np.testing.assert_allclose(twice.lambdas, [r.lambdas[0] / 2] * 2, atol=1e-8)
    with pytest.raises(ad.InputError, match="NaN|finite"):
        cd(np.full(model.nq, np.nan), v, tau)
    with pytest.raises(ad.ShapeError, match="one state"):
        cd(np.stack([q, q]), np.stack([v, v]), np.stack([tau, tau]))
    with pytest.raises(ad.ShapeError, match="out must be"):
        cd(q, v, tau, out=np.empty(model.nv + 1))
    ro = np.empty(model.nv)
    ro.flags.writeable = False
    with pytest.raises(ad.ShapeError, match="read-only"):
        cd(q, v, tau, out=ro)
    with pytest.raises(ad.InputError, match="no state evaluated yet"):
        ConstrainedDynamics(model, cons).lambdas
    with pytest.raises(ad.NameNotFound, match="nowhere"):
        ConstrainedDynamics(model, [Point("nowhere")])


def test_the_compiled_result_reads_as_the_plain_one():
    """The public function's compiled single-state result forms ``forces`` on first access; it
    unpacks, indexes, prints, pickles and replaces as a plain ConstrainedResult."""
    import pickle

    model = ad.load("puma560")
    q = ad.random_configuration(model, rng=4)
    v, tau = np.full(model.nv, 0.2), np.ones(model.nv)
    cons = [Point("link6", at=ad.random_configuration(model, rng=5)), Coupling("joint4", "joint6", ratio=0.5)]
    first = constrained_dynamics(model, q, v, tau, cons)          # checked and packed: a plain result
    r = constrained_dynamics(model, q, v, tau, cons)              # the cached compiled route
    assert isinstance(r, ad.constraints.ConstrainedResult) and r.status == "ok"
    a, t, forces, lam, res, rank, rows, status = r
    np.testing.assert_array_equal(a, first.a)
    np.testing.assert_array_equal(lam, first.lambdas)
    assert len(forces) == 2 and forces[0].shape == (6,) and forces[1].shape == (1,)
    for f, g in zip(r.forces, first.forces):
        np.testing.assert_array_equal(f, g)
    np.testing.assert_array_equal(r[2][1], first.forces[1])
    np.testing.assert_array_equal(forces[1], lam[3:4])               # Coupling: its multiplier
    assert (res, rank, rows, status) == (first.residual, first.rank, first.rows, first.status)
    assert repr(r) == repr(first)
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is ad.constraints.ConstrainedResult
    np.testing.assert_array_equal(back.forces[0], first.forces[0])
    assert r._replace(status="x").status == "x" and list(r._asdict()) == list(first._asdict())
