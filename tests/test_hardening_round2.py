"""Hardening, second round (issue 35, items 3 and 6): bad inputs that were trusted (a result with
no word) or leaked an exception in numpy's, SymPy's or Python's own words now get an artidyn
error naming the function, the argument, the constraint or the symbol. One section per class:
servo statements and runs, constraint parameters, a joint without inertia under constraints,
gravity vectors, a progress bar without stderr, raw messages of the public functions."""
import io
import sys

import numpy as np
import pytest
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols

import artidyn as ad
from artidyn import servo
from artidyn.constraints import (Coupling, Distance, Hinge, JointPath, KnifeEdge, Point, RollingDisk, Weld,
                                 constrained_dynamics)
from artidyn.errors import InputError, ModelError, ShapeError
from artidyn.servo import examples as ex

t = sp.Symbol("t")
x, y = dynamicsymbols("x y")
xd, yd = x.diff(t), y.diff(t)
PLATE = dict(F=1.3, a=0.3, R=1.0, b=0.5, k=0.2, M=2.0, I1=1.5)          # Appell's plate (tests/test_servo.py)
URDF = ('<robot name="r"><link name="base"/><link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" '
        'ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link><joint name="j1" type="revolute">'
        '<parent link="base"/><child link="arm"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" '
        'velocity="1"/></joint></robot>')


@pytest.fixture(scope="module")
def arm():
    return ad.models.planar_2r()


# --- servo-constraints: the statement and the runs ------------------------------------------------

@pytest.mark.parametrize("T, match", [
    (-xd ** 2 / 2 + yd ** 2 / 2, r"not positive definite at q = .* smallest eigenvalue -1 "),    # falls upwards
    (sp.S(0), r"not positive definite at q = .* smallest eigenvalue 0 "),                    # singular
    (xd ** 2 / 2, r"not positive definite at q = .* smallest eigenvalue 0 "),                # y has no inertia
    (xd ** 3 + yd ** 2 / 2, r"quadratic in the velocities .* third derivative in \(xdot, xdot, xdot\) is 6"),
])
def test_servo_kinetic_energy_must_be_quadratic_and_positive(T, match):
    """An indefinite T was reported "determined", a singular one leaked SymPy's
    NonInvertibleMatrixError, a cubic one gave equations that are not Lagrange's."""
    with pytest.raises(InputError, match=r"ServoProblem \(bad T\): .*" + match):
        servo.ServoProblem([x, y], T, 9.81 * x, servo=[x - y], name="bad T").analyse()


def test_servo_negative_mass_plate_is_refused_at_the_state():
    """Appell's plate with a negative plate mass: M indefinite; the refusal names the state."""
    prob = ex.plate_on_turntable("motor", **{**PLATE, "M": -2.0})
    q, qd = np.array([0.4 + np.pi / 2, 0.4]), np.array([-0.7, -0.7])
    with pytest.raises(InputError, match=r"plate on a turntable \(motor\)\): the kinetic energy is not positive "
                                         r"definite at q = \[1\.970796, 0\.4\], qdot = \[-0\.7, -0\.7\], t = 0"):
        prob.accelerations(q, qd)


def test_servo_rheonomic_kinetic_energy_is_allowed():
    """T2 + T1 + T0 (a moving frame's linear and constant parts) is Lagrange's form: accepted."""
    prob = servo.ServoProblem([x, y], (xd ** 2 + yd ** 2) / 2 + t * xd + 1, servo=[x - y], directions=[[1, 0]])
    assert prob.status == "determined"


def test_servo_undeclared_symbol_is_named():
    """A symbol neither coordinate, velocity, t nor parameter leaked TypeError at the first call."""
    k, z = sp.Symbol("k"), dynamicsymbols("z")
    with pytest.raises(InputError, match=r"the kinetic energy contains k, which is not a coordinate.*parameters=\{k"):
        servo.ServoProblem([x, y], k * xd ** 2 / 2 + yd ** 2 / 2, servo=[x - y])
    with pytest.raises(InputError, match=r"servo relation 0 contains z\(t\)"):
        servo.ServoProblem([x, y], (xd ** 2 + yd ** 2) / 2, servo=[x - z])
    with pytest.raises(InputError, match=r"generalized force 1 contains g"):
        servo.ServoProblem([x, y], (xd ** 2 + yd ** 2) / 2, generalized_forces=[0, -sp.Symbol("g")], servo=[x - y])
    declared = servo.ServoProblem([x, y], k * xd ** 2 / 2 + yd ** 2 / 2, servo=[x - y], parameters={k: 2.0})
    assert declared.status == "determined"


def test_servo_relation_without_coordinate_is_refused():
    """A relation in t alone was called "indeterminate" (or "impossible")."""
    T = (xd ** 2 + yd ** 2) / 2
    with pytest.raises(InputError, match=r"servo relation 0 \(sin\(t\) = 0\) contains no coordinate"):
        servo.ServoProblem([x, y], T, servo=[sp.sin(t)], directions=[[1, 0]])
    with pytest.raises(InputError, match=r"rolling relation 0 \(t = 0\) contains no velocity"):
        servo.ServoProblem([x, y], T, servo=[x - y], rolling=[t])


def test_servo_runs_check_the_step_and_the_duration(arm):
    """dt = 0 gave ZeroDivisionError, t_final < 0 "not enough values to unpack"; t_final = 0 is
    one sample."""
    plate = ex.plate_on_turntable("motor", **PLATE)
    q0, qd0 = np.array([0.4 + np.pi / 2, 0.4]), np.array([-0.7, -0.7])
    with pytest.raises(InputError, match=r"ServoProblem\.simulate \(plate .*\): dt must be > 0, got 0"):
        plate.simulate(q0, qd0, t_final=1.0, dt=0.0)
    with pytest.raises(InputError, match=r"ServoProblem\.simulate \(plate .*\): t_final must be >= 0, got -1"):
        plate.simulate(q0, qd0, t_final=-1.0, dt=0.1)
    assert plate.simulate(q0, qd0, t_final=0.0, dt=0.1).t.tolist() == [0.0]
    motor = servo.ModelServo(arm, [JointPath(arm.joint_names[1], lambda s: 0.3 * np.sin(2.0 * s))],
                             directions=[arm.joint_names[1]])
    with pytest.raises(InputError, match=r"ModelServo\.simulate: dt must be > 0, got 0"):
        motor.simulate(np.zeros(2), np.array([0.6, 0.0]), 1.0, 0.0)
    with pytest.raises(InputError, match=r"ModelServo\.simulate: t_final must be >= 0, got -1"):
        motor.simulate(np.zeros(2), np.array([0.6, 0.0]), -1.0, 0.1)
    numeric = servo.NumericServo(lambda q, s: np.eye(2), lambda q, qd, s: np.zeros(2),
                                 E=lambda q, qd, s: np.array([[1.0, -1.0]]), gamma=lambda q, qd, s: np.zeros(1),
                                 D=lambda q, s: np.array([[1.0, 0.0]]))
    with pytest.raises(InputError, match=r"NumericServo\.simulate \(servo problem\): dt must be a finite real "
                                         r"number, got float nan"):
        numeric.simulate(np.zeros(2), np.zeros(2), 1.0, np.nan)


# --- constraints: parameters checked when the constraint is made ----------------------------------

def _reflection():
    T = np.eye(4)
    T[2, 2] = -1.0
    return T


def _scaled():
    T = np.eye(4)
    T[0, 0] = 2.0
    return T


def _bad_last_row():
    T = np.eye(4)
    T[3, 0] = 1.0
    return T


@pytest.mark.parametrize("make, error, match", [
    (lambda: Coupling("joint1", "joint1"), InputError, r"Coupling joint1 = 1 joint1 \+ 0: joint_a and joint_b are "
                                                       r"the same joint 'joint1'"),
    (lambda: Coupling("joint1", "joint2", ratio=np.nan), InputError, r"Coupling joint1 - joint2: ratio must be a "
                                                                     r"finite"),
    (lambda: Coupling("joint1", "joint2", offset="1"), InputError, r"Coupling joint1 - joint2: offset must be a "
                                                                   r"finite"),
    (lambda: Weld("tool", target=_scaled()), InputError, r"Weld tool - world: target is not a rigid transform: "
                                                        r"rotation orthogonality error 3"),
    (lambda: Weld("tool", target=_reflection()), InputError, r"Weld tool - world: target is not a rigid transform: "
                                                            r".*det -1"),
    (lambda: Weld("tool", target=_bad_last_row()), InputError, r"Weld tool - world: target .* last row \[1\.0"),
    (lambda: Weld("tool", target=np.eye(3)), ShapeError, r"Weld tool - world: target must be a world point \(3,\) "
                                                         r"or a placement \(4, 4\)"),
    (lambda: Point("tool", target=[np.nan, 0, 0]), InputError, r"Point tool - world: target contains NaN"),
    (lambda: Point("tool", at=[0.1, np.inf]), InputError, r"Point tool - world: at contains NaN or infinite"),
    (lambda: Distance("tool", target=[1, 0, 0], length="2"), InputError, r"Distance tool - world: length must be a "
                                                                         r"finite real number"),
    (lambda: Hinge("tool", axis="z"), InputError, r"Hinge tool - world: axis must be a nonzero 3-vector"),
    (lambda: RollingDisk("tool", radius=np.nan), InputError, r"RollingDisk 'tool': radius must be a finite"),
    (lambda: RollingDisk("tool", 0.1, plane_point=[0, 0]), ShapeError, r"RollingDisk 'tool': plane_point must be 3 "
                                                                      r"numbers"),
    (lambda: KnifeEdge("tool", point=[0, np.nan, 0]), InputError, r"KnifeEdge 'tool': point contains NaN"),
    (lambda: JointPath("joint1", np.sin, velocity=3.0), InputError, r"JointPath joint1 on its path: the velocity must "
                                                                    r"be a function of t"),
])
def test_constraint_parameters_are_checked_at_construction(make, error, match):
    """A NaN ratio gave LinAlgError at the first solve; a joint coupled to itself was "redundant";
    a Weld target that is not a rigid transform and a NaN Point target were accepted."""
    with pytest.raises(error, match=match):
        make()


def test_coupling_of_a_joint_to_itself_by_name_and_number(arm):
    """The same joint named once and numbered once: refused when checked against the model."""
    with pytest.raises(InputError, match=r"Coupling joint1 = 2 1 \+ 0: joint_a and joint_b are the same joint "
                                         r"'joint1'"):
        constrained_dynamics(arm, np.zeros(2), np.zeros(2), np.zeros(2), [Coupling("joint1", 1, ratio=2.0)])


# --- a joint without inertia under constraints: named as aba names it ------------------------------

def _three_links_last_massless():
    b = ad.ModelBuilder("massless_tip")
    for k, parent in ((1, "world"), (2, "l1"), (3, "l2")):
        b.add_body(f"l{k}", parent=parent, axis=(0, 1, 0), xyz=(0, 0, 0) if k == 1 else (1, 0, 0), mass=1.0,
                   com=(0.5, 0, 0), inertia=np.eye(3) * 0.01)
    m = b.build()
    I = np.array(m.I)
    I[3] = 0.0                    # the leaf l3 carries nothing: joint l3_joint moves no inertia
    return m.replace(I=I)


def test_massless_joint_is_named_by_constrained_dynamics():
    """Redundant constraints that leave the massless joint free were reported "inconsistent"
    (blaming the constraints); every route now raises aba's diagnosis. A constraint that drives
    the massless joint (a massless coupler) still gives the motion."""
    m = _three_links_last_massless()
    q, v, tau = np.array([0.3, 0.2, 0.1]), np.zeros(3), np.array([0.0, 0.0, 1.0])
    with pytest.raises(ModelError) as by_aba:
        ad.aba(m, q, v, tau)
    path = JointPath("l1_joint", np.sin)
    for method in ("auto", "kkt", "schur", "nullspace", "sparse"):
        with pytest.raises(ModelError, match=r"joint\(s\) 'l3_joint' move\(s\) no inertia") as by_constraints:
            constrained_dynamics(m, q, v, tau, [path, path], method=method)
        assert str(by_constraints.value) == str(by_aba.value)
    driven = [constrained_dynamics(m, q, v, np.zeros(3), [Coupling("l2_joint", "l3_joint", 2.0)], method=method)
              for method in ("kkt", "nullspace")]
    assert driven[0].status == "ok" and np.allclose(driven[0].a, driven[1].a, atol=1e-10)
    assert abs(driven[0].a[1] - 2.0 * driven[0].a[2]) < 1e-10


# --- gravity vectors -------------------------------------------------------------------------------

@pytest.mark.parametrize("gravity, error, match", [
    ([np.nan, 0.0, -9.81], InputError, r"gravity contains NaN or infinite values \(first at \[0\]\)"),
    ([0.0, -9.81], ShapeError, r"gravity must be 3 numbers, got 2"),
    ("down", InputError, r"gravity must be 3 real numbers, got str 'down'"),
])
def test_gravity_is_three_finite_numbers(gravity, error, match):
    """A NaN gravity gave NaN torques later; a 2-entry one a broadcast error at the first call."""
    with pytest.raises(error, match="load_urdf: " + match):
        ad.load_urdf(URDF, gravity=gravity)
    with pytest.raises(error, match="ModelBuilder: " + match):
        ad.ModelBuilder("g", gravity=gravity)


# --- a progress bar without stderr -----------------------------------------------------------------

class _BrokenStream(io.TextIOBase):
    """A stderr whose file descriptor is gone: every write raises OSError."""

    def write(self, s):
        raise OSError(9, "Bad file descriptor")

    def isatty(self):
        return True


def _closed_stream():
    s = io.StringIO()
    s.close()
    return s


@pytest.mark.parametrize("stream", [None, _closed_stream, _BrokenStream])
@pytest.mark.parametrize("progress", [None, True])
def test_progress_bar_without_a_usable_stderr(arm, monkeypatch, stream, progress):
    """stderr absent (None), closed or refusing writes crashed the run (AttributeError, OSError);
    the run goes on without a bar and gives the same samples."""
    q0 = np.array([0.3, -0.2])
    ref = ad.simulate(arm, q0, t_final=0.1, dt=1e-3, progress=False)
    monkeypatch.setattr(sys, "stderr", stream() if stream else None)
    res = ad.simulate(arm, q0, t_final=0.1, dt=1e-3, progress=progress)
    monkeypatch.undo()
    assert np.array_equal(res.q, ref.q)


# --- raw numpy / Python messages of the public functions -------------------------------------------

def _pose(m):
    return ad.frame_placement(m, np.array([0.3, -0.2]), "tool")


def _puma_case():
    p = ad.models.puma560()
    frame = p.frame_names[-1]
    return p, ad.frame_placement(p, np.full(6, 0.3), frame), frame


RAW = [  # (call on the planar arm, error, message) - the raw message before in the comment
    (lambda m: ad.load_urdf(URDF, gravity="0 0 -9.81"), InputError, r"load_urdf: gravity must be 3 real numbers"),
    (lambda m: ad.frame_placement(m, np.zeros(2), ["tool"]), InputError,    # unhashable type: 'list'
     r"frame: expected the name \(str\) of a frame of model 'planar2r'.*got list \['tool'\]"),
    (lambda m: ad.jacobian(m, np.zeros(2), np.zeros(3)), InputError, r"frame: expected the name"),
    (lambda m: ad.jacobian(m, np.zeros(2), "tool", point="abc"), InputError,   # could not convert string to float
     r"point must be 3 finite coordinates in frame 'tool', got str 'abc'"),
    (lambda m: ad.external_wrench(m, np.zeros(2), "tool", np.ones(6), point=np.zeros(2)), InputError,
     r"point must be 3 finite coordinates in frame 'tool'"),            # could not broadcast
    (lambda m: ad.ik(m, _pose(m), "tool", q0="abc"), InputError, r"q0: cannot convert to numbers"),
    (lambda m: ad.ik(m, "pose", "tool"), InputError, r"target must be a pose \(4, 4\)"),
    (lambda m: ad.ik(m, _pose(m), "tool", weights=["a", "b"]), InputError, r"weights must be \(w_rotation"),
    (lambda m: ad.ik(m, _pose(m), "tool", respect_limits="yes"), InputError,    # invalid literal for int()
     r"respect_limits must be True or False, got str 'yes'"),
    (lambda m: ad.ik_all(m, _pose(m), "tool", max_solutions="3"), InputError,
     r"ik_all: max_solutions must be a whole number >= 0, got str '3'"),
    (lambda m: ad.ik_all(m, _pose(m), "tool", distinct_tol=np.zeros(3)), InputError,   # operands could not be broadcast
     r"ik_all: distinct_tol must be a finite real number"),
    (lambda m: ad.ik_analytic(*_puma_case(), tol="1e-9"), InputError,   # numba TypingError (a compilation try)
     r"ik_analytic: tol must be a finite real number"),
    (lambda m: ad.manipulability(m, np.zeros(2), "tool", part=["all"]), InputError,   # unhashable type
     r"manipulability: part must be one of 'all', 'orientation', 'position', got list"),
    (lambda m: ad.singularity(m, np.zeros(2), "tool", length=np.zeros((2, 2, 2))), InputError,
     r"singularity: length must be a finite real number"),
    (lambda m: ad.random_configuration(m, size=-1), InputError,         # negative dimensions are not allowed
     r"random_configuration: size must be >= 0, got -1"),
    (lambda m: ad.random_velocity(m, size="3"), InputError,             # invalid literal for int()
     r"random_velocity: size must be a whole number >= 0, got str '3'"),
    (lambda m: ad.random_velocity(m, rng="seed"), InputError, r"random_velocity: rng must be None, an integer seed"),
    (lambda m: ad.rnea(m, np.zeros(2), np.zeros(2), np.zeros(2), f_ext="abc"), InputError,
     r"f_ext must be numbers, one wrench \[moment; force\] per body, got str 'abc'"),
    (lambda m: constrained_dynamics(m, np.zeros(2), np.zeros(2), np.zeros(2), [], f_ext=[["a"] * 6] * 3), InputError,
     r"f_ext must be numbers"),
    (lambda m: constrained_dynamics(m, np.zeros(2), np.zeros(2), np.zeros(2), None), InputError,
     r"constraints must be a constraint or a list of them, got NoneType None"),   # 'NoneType' object is not iterable
    (lambda m: constrained_dynamics(m, np.zeros(2), np.zeros(2), np.zeros(2), [], friction=[1]), InputError,
     r"constrained_dynamics: friction must be True or False"),           # unhashable type: 'list'
    (lambda m: ad.assemble(m, np.zeros(2), [], max_iter=-1), InputError, r"assemble: max_iter must be >= 0, got -1"),
    (lambda m: ad.assemble(m, np.zeros(2), [], v="abc"), InputError, r"v: cannot convert to numbers"),
    (lambda m: ad.quintic("abc", [1.0], 1.0, 0.5), InputError, r"quintic: q0 must be a number or an array"),
    (lambda m: ad.quintic([0.0], [1.0], "1", 0.5), InputError, r"quintic: the duration T \(seconds\) must be a finite"),
    (lambda m: ad.default_dt(m, q="abc"), InputError, r"default_dt: q: cannot convert to numbers"),
    (lambda m: ad.within_limits(m, np.zeros(2), tol="0.1"), InputError, r"within_limits: tol must be a finite"),
    (lambda m: ad.simulate(m, np.zeros(2), t_final=0.01, dt=1e-3, max_steps="many"), InputError,
     r"simulate: max_steps must be a whole number >= 1, got str 'many'"),
    (lambda m: ad.simulate(m, np.zeros(2), tau="abc", t_final=0.01, dt=1e-3), InputError,
     r"tau must be torques \(numbers\), a TimeTable or a function"),
    (lambda m: ad.workspace(m, "tool", n="100"), InputError, r"workspace: n must be a whole number >= 1"),
]


@pytest.mark.parametrize("call, error, match", RAW)
def test_raw_messages_now_name_the_function_and_the_argument(arm, call, error, match):
    with pytest.raises(error, match=match):
        call(arm)


# --- contact runs: the same input checks as the smooth engine, on every route ---------------------------
def _ball():
    from artidyn.geometry import HalfSpace, Sphere
    b = ad.ModelBuilder("ball")
    b.add_body("ball", "world", "free", mass=1.0, inertia=np.eye(3) * 4e-3)
    b.add_collision("ball", Sphere(0.1))
    b.add_collision("world", HalfSpace())
    m = b.build()
    q = ad.neutral(m)
    q[2] = 0.5
    return m, q


@pytest.mark.parametrize("route, method", [("auto", "moreau_jean"), ("reference", "moreau_jean"),
                                           ("auto", "event_driven")])
@pytest.mark.parametrize("kw, error, match", [
    (dict(tau=np.full(6, np.nan)), ad.InputError, "simulate with contact: tau contains NaN or infinite values"),
    (dict(tau=np.zeros(3)), ad.ShapeError, "simulate with contact: tau has 3 entries per state; model 'ball' needs nv = 6"),
    (dict(tau=np.zeros((50, 6))), ad.ShapeError, "simulate with contact: tau has 50 rows for 10 steps"),
    (dict(tau="abc"), ad.InputError, r"simulate with contact: tau must be a number, \(6,\), \(10, 6\) one row per step"),
    (dict(f_ext=np.zeros((1, 6))), ad.ShapeError, r"simulate with contact: f_ext has shape \(1, 6\); expected \(2, 6\)"),
    (dict(f_ext=np.full((2, 6), np.nan)), ad.InputError, "simulate with contact: f_ext contains NaN or infinite values"),
])
def test_contact_runs_check_their_inputs_on_every_route(route, method, kw, error, match):
    from artidyn.contact import ContactSettings
    from artidyn.sim.contact_run import simulate_contact
    m, q = _ball()
    with pytest.raises(error, match=match):
        simulate_contact(m, q, np.zeros(6), t_final=0.01, dt=1e-3, contact=ContactSettings(friction=0.3),
                         route=route, method=method, **kw)


def test_contact_dynamics_checks_its_inputs():
    from artidyn.contact import ContactSettings, contact_dynamics
    m, q = _ball()
    with pytest.raises(ad.InputError, match="contact_dynamics: tau contains NaN"):
        contact_dynamics(m, q, np.zeros(6), np.full(6, np.nan), ContactSettings())
    with pytest.raises(ad.ShapeError, match="contact_dynamics: tau has 3 entries"):
        contact_dynamics(m, q, np.zeros(6), np.zeros(3), ContactSettings())
    with pytest.raises(ad.InputError, match="settings must be an artidyn.contact.ContactSettings, got dict"):
        contact_dynamics(m, q, np.zeros(6), np.zeros(6), {"friction": 0.3})
    res = contact_dynamics(m, q, np.zeros(6), 0.0, ContactSettings())        # a number is every dof's torque
    np.testing.assert_allclose(res.a[3:], [0.0, 0.0, -9.81], atol=1e-12)    # in the air: free fall


def test_model_replace_refuses_nan():
    m = ad.load("planar2r")
    with pytest.raises(ad.InputError, match=r"Model.replace: gravity of model 'planar2r' contains NaN or infinite"):
        m.replace(gravity=[np.nan, 0.0, -9.81])
    with pytest.raises(ad.InputError, match=r"Model.replace: gravity .* NaN or infinite values: \[0.0, 0.0, -inf\]"):
        m.replace(gravity=[0.0, 0.0, -np.inf])
    with pytest.raises(ad.InputError, match="Model.replace: upper of model 'planar2r' contains NaN"):
        m.replace(upper=[1.0, np.nan])
    assert m.replace(upper=[np.inf, np.inf]).upper[0] == np.inf          # no limit stays allowed
