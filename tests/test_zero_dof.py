"""Models without degrees of freedom (issue 34, item 4): a table, a tray, a plane.

Such a model (nq = nv = nb = 0: every link welded to the world) is scenery in a scene; every
public function gives the natural empty result on it: (0,) vectors, (0, 0) matrices, (6, 0)
Jacobians, placements of the welded links, zero energies, simulations of nothing with the right
samples. Built three ways (builder, URDF file, MJCF file) and checked against pinocchio, whose
model of the same URDF has nv = 0 too.
"""
import warnings

import numpy as np
import pytest

import artidyn as ad
from artidyn import cli
from artidyn.errors import InputError, ModelError
from artidyn.kernels.dispatch import reference_only
from artidyn.spatial import rpy_to_matrix

N = 4   # states in a batch

TABLE_URDF = """<?xml version="1.0"?>
<robot name="table">
  <link name="top">
    <inertial><origin xyz="0 0 0.7"/><mass value="10"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <collision><origin xyz="0 0 0.7"/><geometry><box size="1 1 0.05"/></geometry></collision>
  </link>
  <link name="leg">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
  <link name="tray"/>
  <joint name="leg_joint" type="fixed"><parent link="top"/><child link="leg"/>
    <origin xyz="0.4 0.4 0.3" rpy="0 0 0.5"/></joint>
  <joint name="tray_joint" type="fixed"><parent link="leg"/><child link="tray"/>
    <origin xyz="0 0 0.45" rpy="0.1 0 0"/></joint>
</robot>
"""

SCENE_MJCF = """<mujoco model="scene">
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="tray" pos="0.3 0 1" euler="0 0 30">
      <geom type="box" size="0.2 0.1 0.01" mass="0.5"/>
    </body>
  </worldbody>
</mujoco>
"""


def _T(xyz, R=np.eye(3)):
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, xyz
    return T


def _table_frames():
    leg = _T([0.4, 0.4, 0.3], rpy_to_matrix([0, 0, 0.5]))
    return {"top": np.eye(4), "leg": leg, "tray": leg @ _T([0, 0, 0.45], rpy_to_matrix([0.1, 0, 0]))}


def _builder():
    b = ad.ModelBuilder("trays")
    b.add_fixed_body("tray", "world", xyz=(0, 0, 1), mass=1.0, inertia=0.1 * np.eye(3))
    b.add_fixed_body("cup", "tray", xyz=(0.1, 0, 0.05), rpy=(0, 0, 0.3), mass=0.2, inertia=0.01 * np.eye(3))
    frames = {"tray": _T([0, 0, 1])}
    frames["cup"] = frames["tray"] @ _T([0.1, 0, 0.05], rpy_to_matrix([0, 0, 0.3]))
    return b.build(), frames


def _urdf(tmp_path):
    path = tmp_path / "table.urdf"
    path.write_text(TABLE_URDF)
    return ad.load_urdf(path), _table_frames()


def _mjcf(tmp_path):
    path = tmp_path / "scene.xml"
    path.write_text(SCENE_MJCF)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ad.load_mjcf(path)
    return model, {"tray": _T([0.3, 0, 1], rpy_to_matrix([0, 0, np.radians(30)]))}


@pytest.fixture(params=["builder", "urdf", "mjcf"])
def scenery(request, tmp_path):
    """(model without degrees of freedom, {frame name: expected world placement})."""
    if request.param == "builder":
        return _builder()
    return (_urdf if request.param == "urdf" else _mjcf)(tmp_path)


@pytest.fixture(params=[True, False], ids=["kernels", "reference"])
def kernels(request):
    """Run the test with the compiled kernels (and the C call path), then with the reference code."""
    if request.param:
        yield True
        return
    with reference_only():
        yield False


def _empty(x, shape):
    x = np.asarray(x)
    return x.shape == shape and x.dtype.kind == "f"


# --- configurations ----------------------------------------------------------------------------

def test_sizes_and_configurations(scenery):
    model, _ = scenery
    assert (model.nq, model.nv, model.nb) == (0, 0, 0)
    q = ad.neutral(model)
    assert _empty(q, (0,))
    assert _empty(ad.random_configuration(model), (0,))
    assert _empty(ad.random_velocity(model), (0,))
    assert _empty(ad.integrate(model, q, np.zeros(0)), (0,))
    assert _empty(ad.difference(model, q, q), (0,))
    Q = np.zeros((N, 0))
    assert _empty(ad.integrate(model, Q, Q), (N, 0)) and _empty(ad.difference(model, Q, Q), (N, 0))
    assert ad.within_limits(model, q)


# --- dynamics ----------------------------------------------------------------------------------

def test_dynamics_are_empty(scenery, kernels):
    model, _ = scenery
    q = v = np.zeros(0)
    f = np.zeros((model.nb + 1, 6))
    assert _empty(ad.crba(model, q), (0, 0))
    for tau in (ad.rnea(model, q, v, v), ad.rnea(model, q, v, v, f_ext=f), ad.aba(model, q, v, v),
                ad.aba(model, q, v, v, f_ext=f), ad.nonlinear_effects(model, q, v), ad.gravity_torque(model, q),
                ad.gravity(model, q), ad.friction_torque(model, v), ad.spring_torque(model, q),
                ad.newton_euler_nonrecursive(model, q, v, v)):
        assert _empty(tau, (0,))
    assert _empty(ad.coriolis_matrix(model, q, v), (0, 0))
    assert _empty(ad.mass_matrix_derivative(model, q, v), (0, 0))
    assert _empty(ad.christoffel(model, q), (0, 0, 0))
    assert _empty(ad.gaha(model, q), (0, 0))
    assert _empty(ad.actuation_matrix(model), (0, 0))
    tau, reactions = ad.newton_euler_nonrecursive(model, q, v, v, reactions=True)
    assert _empty(tau, (0,)) and reactions.wrench.shape == (1, 6) and not np.any(reactions.wrench)
    assert _empty(ad.joint_wrenches(model, q, v, v), (1, 6))


def test_batches_are_empty_with_their_leading_axis(scenery, kernels):
    model, _ = scenery
    Q = np.zeros((N, 0))
    assert _empty(ad.crba(model, Q), (N, 0, 0))
    for tau in (ad.rnea(model, Q, Q, Q), ad.aba(model, Q, Q, Q), ad.nonlinear_effects(model, Q, Q),
                ad.gravity_torque(model, Q), ad.newton_euler_nonrecursive(model, Q, Q, Q)):
        assert _empty(tau, (N, 0))
    for d in (ad.rnea_derivatives(model, Q, Q, Q), ad.aba_derivatives(model, Q, Q, Q)):
        assert all(_empty(x, (N, 0, 0)) for x in d)
    assert _empty(ad.body_placements(model, Q), (N, 1, 4, 4))
    assert _empty(ad.jacobian(model, Q, 0), (N, 6, 0))
    assert _empty(ad.kinetic_energy(model, Q, Q), (N,))


def test_derivatives_are_empty_blocks(scenery, kernels):
    model, _ = scenery
    z = np.zeros(0)
    for d in (ad.rnea_derivatives(model, z, z, z), ad.aba_derivatives(model, z, z, z),
              ad.rnea_derivatives(model, z, z, z, f_ext=np.zeros((1, 6)))):
        assert len(d) == 3 and all(_empty(x, (0, 0)) for x in d)


def test_dynamics_evaluator(scenery):
    model, _ = scenery
    dyn = ad.Dynamics(model)
    z = np.zeros(0)
    assert _empty(dyn.rnea(z, z, z), (0,)) and _empty(dyn.aba(z, z, z), (0,))
    assert _empty(dyn.crba(z), (0, 0))
    assert _empty(dyn.nonlinear_effects(z, z), (0,)) and _empty(dyn.gravity(z), (0,))
    out = np.empty(0)
    assert dyn.rnea(z, z, z, out=out) is out
    for d in (dyn.rnea_derivatives(z, z, z), dyn.aba_derivatives(z, z, z),
              dyn.aba_derivatives(z, z, z, out=np.empty((3, 0, 0)))):
        assert all(_empty(x, (0, 0)) for x in d)


def test_hybrid_and_constrained_dynamics_without_constraints(scenery):
    model, _ = scenery
    z = np.zeros(0)
    assert _empty(ad.hybrid_dynamics(model, z, z, z, z, []).a, (0,))
    r = ad.constrained_dynamics(model, z, z, z, [])
    assert _empty(r.a, (0,))
    assert _empty(ad.constrained_dynamics(model, np.zeros((N, 0)), np.zeros((N, 0)), np.zeros((N, 0)), []).a, (N, 0))
    assert _empty(ad.constrained_inverse_dynamics(model, z, z, z, []).tau, (0,))
    assert _empty(ad.assemble(model, z, []).q, (0,))


# --- kinematics --------------------------------------------------------------------------------

def test_placements_of_the_welded_links(scenery, kernels):
    model, frames = scenery
    q = np.zeros(0)
    assert np.array_equal(ad.body_placements(model, q), np.eye(4)[None])
    for name, T in frames.items():
        assert np.allclose(ad.frame_placement(model, q, name), T, atol=1e-12), name
        assert np.allclose(ad.frame_placement(model, np.zeros((N, 0)), name), T, atol=1e-12), name


def test_jacobians_and_velocities(scenery, kernels):
    model, frames = scenery
    q = v = np.zeros(0)
    for name in frames:
        for expressed in ("world", "local"):
            assert _empty(ad.jacobian(model, q, name, expressed=expressed), (6, 0))
        assert _empty(ad.jacobian_derivative(model, q, v, name), (6, 0))
        assert np.array_equal(ad.frame_velocity(model, q, v, name), np.zeros(6))
        assert np.array_equal(ad.frame_acceleration(model, q, v, v, name), np.zeros(6))
        assert np.array_equal(ad.jacobian_bias(model, q, v, name), np.zeros(6))
    assert np.array_equal(ad.body_velocities(model, q, v), np.zeros((1, 6)))
    assert np.array_equal(ad.body_accelerations(model, q, v, v), np.zeros((1, 6)))
    name = next(iter(frames))
    assert _empty(ad.external_wrench(model, q, name, np.ones(6)), (1, 6))     # on the world row, which rnea ignores


def test_energies_momenta_and_centre_of_mass(scenery):
    model, _ = scenery
    q = v = np.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no 0 / 0 on the way
        assert ad.kinetic_energy(model, q, v) == 0 and ad.potential_energy(model, q) == 0
        assert ad.mechanical_energy(model, q, v) == 0 and ad.spring_energy(model, q) == 0
        assert np.array_equal(ad.momentum(model, q, v), np.zeros(6))
        assert np.array_equal(ad.centroidal_momentum(model, q, v), np.zeros(6))
        assert np.array_equal(ad.centroidal_momentum(model, np.zeros((N, 0)), np.zeros((N, 0))), np.zeros((N, 6)))
        assert _empty(ad.com_jacobian(model, q), (3, 0))
        assert _empty(ad.com_jacobian(model, np.zeros((N, 0))), (N, 3, 0))
    # the centre of mass of no moving body is undefined: an error naming the model, not NaN
    with pytest.raises(ModelError, match=f"model '{model.name}' has no moving mass"):
        ad.center_of_mass(model, q)


# --- simulation ----------------------------------------------------------------------------------

def _pendulum():
    b = ad.ModelBuilder("pendulum")
    b.add_body("l1", "world", "revolute", axis=(0, 1, 0), com=(0, 0, -0.5), mass=1.0, inertia=0.01 * np.eye(3))
    return b.build()


@pytest.mark.parametrize("method", ["rk4", "semi-implicit", "dopri5"])
def test_simulate_nothing_gives_the_samples(scenery, method):
    model, _ = scenery
    res = ad.simulate(model, np.zeros(0), t_final=0.05, dt=0.01, method=method)
    ref = ad.simulate(_pendulum(), [0.1], t_final=0.05, dt=0.01, method=method)   # same time grid
    S = ref.t.size
    assert np.allclose(res.t, ref.t)
    assert res.q.shape == res.v.shape == (S, 0)
    assert np.array_equal(res.energy.total, np.zeros(S))


def test_rollout_and_batched_simulate(scenery):
    model, _ = scenery
    res = ad.rollout(model, np.zeros((3, 0)), t_final=0.05, dt=0.01)
    assert res.q.shape == res.v.shape == (3, res.t.size, 0) and res.t.size == 6
    assert ad.simulate(model, np.zeros((2, 0)), t_final=0.05, dt=0.01).q.shape == (2, 6, 0)


# --- inverse kinematics refuses: nothing moves -----------------------------------------------------

def test_ik_refuses_nothing_to_move(scenery):
    model, frames = scenery
    name = next(iter(frames))
    for solve in (ad.ik, ad.ik_all):
        with pytest.raises(InputError, match=f"frame '{name}' is attached to the world of model '{model.name}'.*"
                                             f"no degree of freedom"):
            solve(model, frames[name], name)


# --- the command line ----------------------------------------------------------------------------

def test_cli_info_report_simulate_on_a_zero_dof_urdf(tmp_path, capsys, monkeypatch):
    path = tmp_path / "table.urdf"
    path.write_text(TABLE_URDF)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "nq=0, nv=0" in out and "dof (nv) = 0" in out
    assert cli.main(["report", str(path), "--out", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    assert "no degree of freedom (nv = 0)" in out and "| tray " in out
    assert cli.main(["simulate", str(path), "--t-final", "0.05", "--dt", "0.01", "--out", str(tmp_path / "sim")]) == 0
    out = capsys.readouterr().out
    assert "total 0 -> 0 J" in out
    data = np.load(tmp_path / "sim" / "simulation.npz")
    assert data["q"].shape == (6, 0)


# --- pinocchio: its model of the same URDF has nv = 0 too --------------------------------------

def test_against_pinocchio(tmp_path):
    pin = pytest.importorskip("pinocchio")
    model, frames = _urdf(tmp_path)
    pm = pin.buildModelFromUrdf(str(tmp_path / "table.urdf"))
    pd = pm.createData()
    assert (pm.nq, pm.nv) == (model.nq, model.nv) == (0, 0)
    q = v = np.zeros(0)
    assert ad.crba(model, q).shape == pin.crba(pm, pd, q).shape
    assert ad.rnea(model, q, v, v).shape == pin.rnea(pm, pd, q, v, v).shape
    assert ad.aba(model, q, v, v).shape == pin.aba(pm, pd, q, v, v).shape
    assert ad.neutral(model).shape == pin.neutral(pm).shape == pin.randomConfiguration(pm).shape
    assert ad.potential_energy(model, q) == pin.computePotentialEnergy(pm, pd, q)
    assert ad.kinetic_energy(model, q, v) == pin.computeKineticEnergy(pm, pd, q, v)
    assert ad.com_jacobian(model, q).shape == pin.jacobianCenterOfMass(pm, pd, q).shape
    pin.framesForwardKinematics(pm, pd, q)
    for name, T in frames.items():
        fid = pm.getFrameId(name)
        assert np.allclose(ad.frame_placement(model, q, name), pd.oMf[fid].homogeneous, atol=1e-12), name
        assert np.allclose(T, pd.oMf[fid].homogeneous, atol=1e-12), name
        J = pin.computeFrameJacobian(pm, pd, q, fid, pin.LOCAL_WORLD_ALIGNED)
        assert ad.jacobian(model, q, name).shape == J.shape == (6, 0)
