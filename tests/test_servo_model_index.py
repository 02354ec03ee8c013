"""ModelServo with relations of any index on models built with ModelBuilder: the overhead crane
(index 5, underactuated: the load hangs on a rope) and the spring chains (index 5 and 7: a force
on the first mass makes the last follow a path), written as SymPy relations in the model's
coordinates, against their SymPy statements (artidyn.servo.examples) and against RNEA."""
import numpy as np
import pytest
import sympy as sp

import artidyn as ad
from artidyn import servo
from artidyn.errors import InputError
from artidyn.servo import examples as ex

G = 9.81


def crane_model():
    """Altmann & Heiland's crane as bodies: a trolley on x (10 kg), a winch about y at the origin
    (J = 0.1), the load (100 kg) on an unactuated carriage along x (massless) and a slide along -z
    (z downwards): the coordinates [s, beta, x, z] of examples.overhead_crane."""
    b = ad.ModelBuilder("crane", gravity=(0, 0, -G))
    b.add_body("trolley", "world", "prismatic", axis=(1, 0, 0), mass=10.0, inertia=np.eye(3) * 0.01)
    b.add_body("winch", "world", "revolute", axis=(0, 1, 0), mass=1.0, inertia=np.diag([0.05, 0.1, 0.05]))
    b.add_body("carriage", "world", "prismatic", axis=(1, 0, 0), mass=0.0, actuated=False)
    b.add_body("load", "carriage", "prismatic", axis=(0, 0, -1), mass=100.0, inertia=np.eye(3) * 0.01,
               actuated=False)
    return b.build()


INERTIA = '<inertia ixx="{0}" iyy="{1}" izz="{0}" ixy="0" ixz="0" iyz="0"/>'
CRANE_URDF = f"""<robot name="crane">
  <link name="world"/>
  <link name="trolley"><inertial><mass value="10"/>{INERTIA.format(0.01, 0.01)}</inertial></link>
  <link name="winch"><inertial><mass value="1"/>{INERTIA.format(0.05, 0.1)}</inertial></link>
  <link name="carriage"/>
  <link name="load"><inertial><mass value="100"/>{INERTIA.format(0.01, 0.01)}</inertial></link>
  <joint name="trolley_joint" type="prismatic"><parent link="world"/><child link="trolley"/><axis xyz="1 0 0"/>
    <limit lower="-10" upper="10" effort="1e4" velocity="10"/></joint>
  <joint name="winch_joint" type="continuous"><parent link="world"/><child link="winch"/><axis xyz="0 1 0"/></joint>
  <joint name="carriage_joint" type="prismatic"><parent link="world"/><child link="carriage"/><axis xyz="1 0 0"/>
    <limit lower="-10" upper="10" effort="0" velocity="10"/></joint>
  <joint name="load_joint" type="prismatic"><parent link="carriage"/><child link="load"/><axis xyz="0 0 -1"/>
    <limit lower="-100" upper="100" effort="0" velocity="10"/></joint>
</robot>"""


def chain_model(masses, stiffness, rest):
    """Masses on a line, each on a prismatic joint relative to the previous one (joint k + 1 the
    spring k: stiffness, rest length), the first on the world, only the first actuated."""
    b = ad.ModelBuilder("chain", gravity=(0, 0, -G))
    parent = "world"
    for k, m in enumerate(masses):
        b.add_body(f"m{k + 1}", parent, "prismatic", axis=(1, 0, 0), mass=m, inertia=np.eye(3) * 0.01,
                   stiffness=0.0 if k == 0 else stiffness[k - 1], rest=0.0 if k == 0 else rest, actuated=k == 0)
        parent = f"m{k + 1}"
    return b.build()


@pytest.mark.parametrize("source", ["builder", "urdf"])
def test_crane_on_a_model_matches_its_sympy_statement(source):
    """The crane built with ModelBuilder or loaded from URDF text. The rope an ideal relation (its
    gradient the third direction), the load's path the servo relations: determined, index 5; the
    model's energies give M = CRBA; the run equals examples.overhead_crane's to 1e-8 in motion and
    forces, and RNEA on the motion leaves exactly D(q)^T mu (the trolley force, the winch torque,
    the rope tension's)."""
    from artidyn.io.urdf import load_urdf
    model = crane_model() if source == "builder" else load_urdf(CRANE_URDF)
    s, be, x, z = servo.coordinates(model)
    rope = (x - s) ** 2 + z ** 2 - (0.1 * be) ** 2
    path = [ex.smooth_step(0, 6.0, 0.0, 1.0), ex.smooth_step(0, 6.0, 4.0, 5.0)]
    directions = ["trolley_joint", "winch_joint", [rope.diff(c) for c in (s, be, x, z)]]
    ms = servo.ModelServo(model, [z - path[1], x - path[0], rope], directions=directions)
    assert ms.problem.status == "determined" and max(ms.problem.analyse().index) == 5
    rng = np.random.default_rng(8)
    for _ in range(3):
        q, v = rng.uniform(0.2, 2.0, 4), rng.normal(size=4)
        assert np.abs(ms.problem.M_f(q, v, 0.0) - ad.crba(model, q)).max() < 1e-12
    ref = ex.overhead_crane()
    q0, v0 = np.array([0.0, 40.0, 0.0, 4.0]), np.zeros(4)
    run, want = ms.simulate(q0, v0, 6.0, 1e-2), ref.simulate(q0, v0, t_final=6.0, dt=1e-2)
    assert np.abs(run.q - want.q).max() < 1e-8 and np.abs(run.v - want.v).max() < 1e-8
    assert np.abs(run.servo_forces - want.servo_forces).max() < 1e-8 * np.abs(want.servo_forces).max()
    assert np.abs(run.q[:, 2] - np.array([ref.path[0](t) for t in run.t])).max() < 1e-8
    for k in range(0, run.t.size, 60):
        D = ms.directions_at(run.q[k], run.v[k], run.t[k])
        left = ad.rnea(model, run.q[k], run.v[k], run.qdd[k])
        assert np.abs(left - D.T @ run.servo_forces[k]).max() < 1e-8 * (1 + np.abs(left).max())
    res = ad.simulate(model, q0, v0, t_final=1.0, dt=1e-2, servo=ms)
    assert np.abs(res.q - run.q[:res.q.shape[0]]).max() == 0
    assert np.abs(res.tau[:, 0] - res.servo_forces[:, 0] - res.servo_forces[:, 2]
                  * np.array([ms.directions_at(a, b_, c)[2, 0] for a, b_, c in zip(res.q, res.v, res.t)])).max() < 1e-9


@pytest.mark.parametrize("n", [2, 3])
def test_spring_chain_on_a_model_matches_its_sympy_statement(n):
    """The chain with relative coordinates (d_k = x_{k+1} - x_k, the springs as joint springs), the
    last mass's position x_1 + d_1 + ... following y(t) by a force on the first joint only (index
    2n + 1): the motion is examples.spring_chain's in absolute coordinates to 1e-8 and the servo
    force the same (the flat-output input); RNEA leaves it on joint 1 and nothing elsewhere."""
    ts = sp.Symbol("t")
    masses, stiffness = ((1.0, 2.0), (1.0,)) if n == 2 else ((1.0, 2.0, 1.5), (1.0, 3.0))
    rest, y = 0.5, sp.sin(ts) / 2 + ts ** 2 / 10
    model = chain_model(masses, stiffness, rest)
    q = servo.coordinates(model)
    ms = servo.ModelServo(model, [sum(q, sp.S(0)) - y])
    assert ms.j == 1 and np.abs(ms.D - np.eye(n)[:1]).max() == 0
    assert ms.problem.analyse().index == (2 * n + 1,)
    ref = ex.spring_chain(masses, stiffness, rest, path=y)
    x0, xd0 = _flat_start(masses, stiffness, rest, y)
    want = ref.simulate(x0, xd0, t_final=2.0, dt=2e-3)
    rel = lambda x: np.concatenate([x[..., :1], np.diff(x, axis=-1)], axis=-1)     # noqa: E731 absolute -> joints
    run = ms.simulate(rel(x0), rel(xd0), 2.0, 2e-3)
    assert np.abs(run.q - rel(want.q)).max() < 1e-8 and np.abs(run.v - rel(want.v)).max() < 1e-8
    assert np.abs(run.servo_forces - want.servo_forces).max() < 1e-8
    for k in range(0, run.t.size, 200):
        left = ad.rnea(model, run.q[k], run.v[k], run.qdd[k])
        assert abs(left[0] - run.servo_forces[k, 0]) < 1e-8 and np.abs(left[1:]).max() < 1e-8


def _flat_start(masses, stiffness, rest, y):
    """The chain's state at t = 0 from its flat output (the last mass follows y)."""
    ts = sp.Symbol("t")
    n = len(masses)
    xs = [None] * n
    xs[-1] = y
    for i in range(n - 2, -1, -1):
        nxt = stiffness[i + 1] * (xs[i + 2] - xs[i + 1] - rest) if i + 2 < n else 0
        xs[i] = xs[i + 1] - rest - (nxt - masses[i + 1] * sp.diff(xs[i + 1], ts, 2)) / stiffness[i]
    return (np.array([float(x.subs(ts, 0.0)) for x in xs]), np.array([float(sp.diff(x, ts).subs(ts, 0.0)) for x in xs]))


def test_sympy_relations_on_a_model_are_checked():
    """Constraint objects mixed with SymPy relations, per-call torques on the SymPy route, a
    directions row of the wrong length and a model with a spherical joint are refused by name."""
    model = crane_model()
    s, be, x, z = servo.coordinates(model)
    from artidyn.constraints import JointPath
    with pytest.raises(InputError, match="constraint objects among SymPy"):
        servo.ModelServo(model, [x - 1, JointPath("trolley_joint", lambda t: 0.0 * t)])
    ms = servo.ModelServo(model, [z - 4.0 - 0.1 * sp.sin(sp.Symbol("t"))], directions=["winch_joint"])
    with pytest.raises(InputError, match="tau and f_ext are not taken"):
        ms.accelerations(np.array([0.0, 40.0, 0.0, 4.0]), np.zeros(4), tau=np.ones(4))
    with pytest.raises(InputError, match="3 entries, the model 4"):
        servo.ModelServo(model, [x - 1], directions=[[1, 0, 0]])
    ball = ad.ModelBuilder("ball")
    ball.add_body("b", "world", "spherical", mass=1.0, inertia=np.eye(3))
    with pytest.raises(InputError, match="spherical or free joints"):
        servo.coordinates(ball.build())


def test_model_energies_carry_armature_damping_and_springs():
    """A three-mass chain with a rotor inertia on the driven joint and viscous damping on the
    springs (which lower the index from 7 to 5: the dampers pass velocities, the springs only
    positions): at random states the SymPy route's mass matrix is CRBA's (armature included) and RNEA
    (damping and springs included) on its accelerations leaves exactly the servo force on joint 1."""
    b = ad.ModelBuilder("damped chain", gravity=(0, 0, -G))
    b.add_body("m1", "world", "prismatic", axis=(1, 0, 0), mass=1.0, armature=0.05)
    b.add_body("m2", "m1", "prismatic", axis=(1, 0, 0), mass=2.0, stiffness=1.0, rest=0.5, damping=0.3,
               actuated=False)
    b.add_body("m3", "m2", "prismatic", axis=(1, 0, 0), mass=1.5, stiffness=3.0, rest=0.5, damping=0.1,
               actuated=False)
    model = b.build()
    q = servo.coordinates(model)
    ms = servo.ModelServo(model, [q[0] + q[1] + q[2] - sp.sin(sp.Symbol("t"))])
    assert ms.problem.analyse().index == (5,)       # 7 without damping: a damper passes the force a rate sooner
    rng = np.random.default_rng(4)
    for _ in range(3):
        x, v, t = rng.uniform(-1, 1, 3), rng.normal(size=3), rng.uniform(0, 2)
        assert np.abs(ms.problem.M_f(x, v, t) - ad.crba(model, x)).max() < 1e-14
        out = ms.accelerations(x, v, t=t)
        left = ad.rnea(model, x, v, out.qdd)
        assert np.abs(left - np.array([out.mu[0], 0.0, 0.0])).max() < 1e-10 * (1 + np.abs(left).max())
