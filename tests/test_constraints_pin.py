"""artidyn.constraints against pinocchio's constrained dynamics (``pin.constraintDynamics``).

The same example-robot-data URDF is read by both libraries (tests/pin_utils.py maps q / v by
joint name; the free flyer's v is [omega; v] in artidyn, [v; omega] in pinocchio). Each artidyn
constraint has a pinocchio twin ``RigidConstraintModel`` in LOCAL_WORLD_ALIGNED, so that both
report the contact force in world axes at the contact frame's origin:

===============================  ===============================================================
artidyn                          pinocchio
===============================  ===============================================================
``Point(frame, at=q)``           CONTACT_3D, joint1 = the frame's joint, placement = the frame's
``Point(frame_a, frame_b)``      CONTACT_3D between the two frames' joints
``Weld(frame, at=q)``            CONTACT_6D
``res.forces[k]`` [moment; f]    ``contact_datas[k].contact_force`` (.angular; .linear)
===============================  ===============================================================

pinocchio is run with zero Baumgarte gains (its default) and ``mu = 0`` (a direct solve of the
KKT system, exact to rounding), except for redundant constraints, where its proximal iterations
(``mu > 0``) converge to the least-norm multipliers. pinocchio's algorithms ignore the URDF joint
damping / friction that artidyn reads, hence ``friction=False`` (one test puts it back by hand).

Convention difference (not an error of either side): for CONTACT_6D pinocchio constrains the
*spatial* acceleration of the contact frame (linear part ``a_O + alpha x p_c`` in world axes),
artidyn's ``Weld`` the second derivative of ``phi`` (the *classical* acceleration of the frame's
origin). The two differ by ``omega x v_c``, which vanishes when ``J v = 0``: the Weld tests use
velocities projected on ``J v = 0``; ``test_weld_off_manifold_needs_the_classical_term`` shows
the difference on random v and cancels it with pinocchio's desired contact acceleration. For
CONTACT_3D both use the classical acceleration, so the Point tests use unprojected random v.
"""
import functools

import numpy as np
import pytest

import artidyn as ad
from conftest import ERD
from pin_utils import from_pin_v, pin_model, repaired_links, to_pin_q, to_pin_v

pin = pytest.importorskip("pinocchio")
erd = pytest.importorskip("artidyn.models.erd")
from artidyn.constraints import Point, Weld, constrained_dynamics, constraint_terms  # noqa: E402

pytestmark = pytest.mark.skipif(ERD is None, reason="example-robot-data not installed")

TOL = 1e-8                # relative to the size of the compared vector (absolute below 1)
METHODS = ("sparse", "kkt", "schur", "nullspace")
SOLO_FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
TALOS = "talos_full_v2"
TALOS_SOLES = ("left_sole_link", "right_sole_link")
N_STATES = 3


@functools.lru_cache(maxsize=None)
def _robot(name):
    """(artidyn model, pinocchio model) of an example-robot-data URDF, floating base."""
    if name not in erd.example_robot_names():
        pytest.skip(f"{name} not in example-robot-data")
    model = erd.example_robot(name)
    assert model.has_floating_base
    pm = pin_model(erd.example_robot_path(name), True, inertias_from=model if repaired_links(model) else None)
    return model, pm


def _states(model, seed, n=N_STATES):
    """n random (q within the limits, v, tau), seeded."""
    rng = np.random.default_rng(seed)
    Q = ad.random_configuration(model, rng, size=n)
    return [(Q[k], rng.normal(size=model.nv), rng.normal(size=model.nv)) for k in range(n)]


def _project(model, q, v, constraints):
    """v with J v = 0 (least change): a velocity the constraints allow."""
    _, J, _ = constraint_terms(model, q, v, constraints)
    return v - np.linalg.pinv(J) @ (J @ v)


def _close(ours, theirs, what, tol=TOL):
    ours, theirs = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    assert ours.shape == theirs.shape, what
    assert np.all(np.isfinite(ours)), f"{what}: not finite"
    scale = max(1.0, float(np.max(np.abs(theirs))))
    err = float(np.max(np.abs(ours - theirs)))
    assert err <= tol * scale, f"{what}: max error {err:.3g} (scale {scale:.3g}, relative {err / scale:.3g})"
    return err / scale


def _pin_constrained(model, pm, q, v, tau, specs, mu=0.0, max_iter=10, desired=None, step_tol=1e-14):
    """pinocchio's constraintDynamics for specs [(ContactType, frame_a, frame_b or None)].

    Returns (a in artidyn's v order, [wrench [moment; force] in world axes, about frame_a's
    origin, per constraint], proximal settings after the solve). ``desired``: optional list of
    pin.Motion set as each constraint data's desired contact acceleration; ``step_tol``: the
    proximal iterations stop when the multipliers change by less (max norm).
    """
    cms = pin.StdVec_RigidConstraintModel()
    for ctype, fa, fb in specs:
        a_id = pm.getFrameId(fa)
        assert a_id < pm.nframes, f"frame {fa} not in pinocchio's model"
        A = pm.frames[a_id]
        if fb is None:
            cm = pin.RigidConstraintModel(ctype, pm, A.parentJoint, A.placement,
                                          pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        else:
            B = pm.frames[pm.getFrameId(fb)]
            cm = pin.RigidConstraintModel(ctype, pm, A.parentJoint, A.placement, B.parentJoint, B.placement,
                                          pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
        assert cm.m_baumgarte_parameters.Kp == 0 and cm.m_baumgarte_parameters.Kd == 0
        cms.append(cm)
    cds = pin.StdVec_RigidConstraintData()
    for cm in cms:
        cds.append(cm.createData())
    if desired is not None:
        for cd, d in zip(cds, desired):
            cd.contact_acceleration_desired = d
    pd = pm.createData()
    pin.initConstraintDynamics(pm, pd, cms, cds)
    prox = pin.ProximalSettings(1e-12, step_tol, mu, max_iter)
    ap = pin.constraintDynamics(pm, pd, to_pin_q(model, pm, q), to_pin_v(model, pm, v), to_pin_v(model, pm, tau),
                                cms, cds, prox)
    forces = [np.concatenate([cd.contact_force.angular, cd.contact_force.linear]) for cd in cds]
    return from_pin_v(model, pm, ap), forces, prox


def _compare(model, pm, q, v, tau, constraints, specs, method, **pin_kw):
    res = constrained_dynamics(model, q, v, tau, constraints, method=method, friction=False)
    assert res.status == "ok" and res.rank == res.rows == sum(c.rows for c in constraints), res.status
    a_pin, f_pin, _ = _pin_constrained(model, pm, q, v, tau, specs, **pin_kw)
    errs = {"a": _close(res.a, a_pin, f"{method}: accelerations")}
    for c, ours, theirs in zip(constraints, res.forces, f_pin):
        errs[c.name] = _close(ours, theirs, f"{method}: force of {c!r}")
    return res, errs


# --- solo12: four 3-D point contacts -------------------------------------------------------

@pytest.mark.parametrize("method", METHODS)
def test_solo12_four_point_contacts_match_pinocchio(method):
    model, pm = _robot("solo12")
    assert set(SOLO_FEET) <= set(model.frame_names)
    for q, v, tau in _states(model, 0):
        constraints = [Point(f, at=q) for f in SOLO_FEET]
        res, _ = _compare(model, pm, q, v, tau, constraints,
                          [(pin.ContactType.CONTACT_3D, f, None) for f in SOLO_FEET], method)
        for w in res.forces:
            assert np.all(w[:3] == 0)   # a point contact carries no moment about its point
        # the multipliers are the forces themselves, in constraint order
        np.testing.assert_array_equal(res.lambdas, np.concatenate([w[3:] for w in res.forces]))


@pytest.mark.parametrize("method", METHODS)
def test_solo12_point_between_two_frames_matches_pinocchio(method):
    """A loop closure (Point between two moving frames) next to a ground contact; random v."""
    model, pm = _robot("solo12")
    for q, v, tau in _states(model, 1, n=2):
        constraints = [Point("FL_FOOT", "HR_FOOT"), Point("FR_FOOT", at=q)]
        _compare(model, pm, q, v, tau, constraints,
                 [(pin.ContactType.CONTACT_3D, "FL_FOOT", "HR_FOOT"), (pin.ContactType.CONTACT_3D, "FR_FOOT", None)],
                 method)


# --- talos: both soles welded ----------------------------------------------------------------

@pytest.mark.parametrize("method", METHODS)
def test_talos_welded_soles_match_pinocchio(method):
    model, pm = _robot(TALOS)
    assert set(TALOS_SOLES) <= set(model.frame_names)
    for q, v, tau in _states(model, 2):
        constraints = [Weld(f, at=q) for f in TALOS_SOLES]
        v = _project(model, q, v, constraints)
        _compare(model, pm, q, v, tau, constraints, [(pin.ContactType.CONTACT_6D, f, None) for f in TALOS_SOLES],
                 method)


def test_weld_off_manifold_needs_the_classical_term():
    """Random v (J v != 0): pinocchio's CONTACT_6D holds the spatial acceleration of the sole at
    zero, artidyn's Weld the classical one (d^2 phi / dt^2); asking pinocchio for the spatial
    acceleration ``-omega x v_c`` (world axes) makes the two problems the same."""
    model, pm = _robot(TALOS)
    specs = [(pin.ContactType.CONTACT_6D, f, None) for f in TALOS_SOLES]
    (q, v, tau), = _states(model, 3, n=1)
    constraints = [Weld(f, at=q) for f in TALOS_SOLES]
    res = constrained_dynamics(model, q, v, tau, constraints, friction=False)
    a_pin, _, _ = _pin_constrained(model, pm, q, v, tau, specs)
    scale = np.max(np.abs(a_pin))
    assert np.max(np.abs(res.a - a_pin)) > 1e-6 * scale      # the conventions do differ here
    twists = [ad.frame_velocity(model, q, v, f) for f in TALOS_SOLES]   # [omega; v] world axes
    desired = [pin.Motion(-np.cross(t[:3], t[3:]), np.zeros(3)) for t in twists]
    a_pin, f_pin, _ = _pin_constrained(model, pm, q, v, tau, specs, desired=desired)
    _close(res.a, a_pin, "accelerations")
    for k in range(2):
        _close(res.forces[k], f_pin[k], f"wrench {k}")


def test_talos_friction_is_subtracted_from_tau():
    """friction=True: the URDF damping / friction torque is taken off tau (pinocchio has none)."""
    model, pm = _robot(TALOS)
    assert np.max(model.damping) > 0
    (q, v, tau), = _states(model, 4, n=1)
    constraints = [Weld(f, at=q) for f in TALOS_SOLES]
    v = _project(model, q, v, constraints)
    res = constrained_dynamics(model, q, v, tau, constraints)
    a_pin, f_pin, _ = _pin_constrained(model, pm, q, v, tau - ad.friction_torque(model, v),
                                       [(pin.ContactType.CONTACT_6D, f, None) for f in TALOS_SOLES])
    _close(res.a, a_pin, "accelerations")
    for k in range(2):
        _close(res.forces[k], f_pin[k], f"wrench {k}")


# --- redundant constraints ---------------------------------------------------------------------



@pytest.mark.parametrize("method", METHODS)
def test_same_point_twice_is_redundant_with_least_norm_split(method):
    """FL_FOOT held twice: rank 12 of 15 rows; the motion is the one of the four contacts, the
    pair of forces sums to the single force and, least norm, splits it in two halves; pinocchio's
    proximal solver (mu > 0) converges to the same least-norm multipliers."""
    model, pm = _robot("solo12")
    for q, v, tau in _states(model, 5, n=2):
        base = [Point(f, at=q) for f in SOLO_FEET]
        ref = constrained_dynamics(model, q, v, tau, base, method="kkt", friction=False)
        assert ref.status == "ok"
        res = constrained_dynamics(model, q, v, tau, base + [Point("FL_FOOT", at=q)], method=method, friction=False)
        assert (res.status, res.rank, res.rows) == ("redundant", 12, 15)
        _close(res.a, ref.a, "accelerations")
        _close(res.forces[0] + res.forces[4], ref.forces[0], "summed FL_FOOT force")
        _close(res.forces[0], res.forces[4], "the two halves")
        for k in (1, 2, 3):
            _close(res.forces[k], ref.forces[k], f"force {SOLO_FEET[k]}")
        specs = [(pin.ContactType.CONTACT_3D, f, None) for f in SOLO_FEET + ("FL_FOOT",)]
        a_pin, f_pin, prox = _pin_constrained(model, pm, q, v, tau, specs, mu=1e-2, max_iter=200,
                                              step_tol=1e-11)
        assert prox.iter < 200, "pinocchio's proximal iterations did not converge"
        _close(res.a, a_pin, "accelerations vs pinocchio")
        for k in range(5):
            _close(res.forces[k], f_pin[k], f"force {k} vs pinocchio (proximal)", tol=1e-7)


@pytest.mark.parametrize("method", METHODS)
def test_weld_and_point_on_the_same_foot_is_redundant(method):
    """A Weld on FL_FOOT plus the four Points: the Point's 3 rows repeat the Weld's force rows."""
    model, pm = _robot("solo12")
    for q, v, tau in _states(model, 6, n=2):
        weld, others = Weld("FL_FOOT", at=q), [Point(f, at=q) for f in SOLO_FEET[1:]]
        v = _project(model, q, v, [weld] + others)   # J v = 0: the Weld conventions agree (module doc)
        ref = constrained_dynamics(model, q, v, tau, [weld] + others, method=method, friction=False)
        assert ref.status == "ok" and ref.rank == ref.rows == 15
        a_pin, f_pin, _ = _pin_constrained(model, pm, q, v, tau, [(pin.ContactType.CONTACT_6D, "FL_FOOT", None)]
                                           + [(pin.ContactType.CONTACT_3D, f, None) for f in SOLO_FEET[1:]])
        _close(ref.a, a_pin, "non-redundant accelerations vs pinocchio")
        for k in range(4):
            _close(ref.forces[k], f_pin[k], f"non-redundant force {k} vs pinocchio")
        res = constrained_dynamics(model, q, v, tau, [weld, Point("FL_FOOT", at=q)] + others, method=method,
                                   friction=False)
        assert (res.status, res.rank, res.rows) == ("redundant", 15, 18)
        _close(res.a, ref.a, "accelerations")
        _close(res.forces[0] + res.forces[1], ref.forces[0], "summed FL_FOOT wrench")
        _close(res.forces[0][3:], res.forces[1][3:], "the two halves of the force")
        for k in range(3):
            _close(res.forces[k + 2], ref.forces[k + 1], f"force {SOLO_FEET[k + 1]}")
