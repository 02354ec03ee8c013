"""Loop closures declared in model files: ``[[constraints]]`` of a DH table file, URDF ``<mimic>``,
``model.constraint_specs`` and :func:`artidyn.constraints.from_model`; the built-in four-bar."""
import math

import numpy as np
import pytest

import artidyn as ad
from artidyn.constraints import (Coupling, Distance, Hinge, Point, Weld, assemble, constrained_dynamics,
                                 constraint_terms, from_model)
from artidyn.io.dh import from_dh, to_toml
from artidyn.model import ConstraintSpec
from artidyn.models import builtin
from artidyn.spatial.rotations import rpy_to_matrix

G = 9.81
FOURBAR = builtin.DATA / "fourbar.toml"

# a spatial 3R arm (modified DH) with two extra frames: "tool" (on link3) and "base"
ARM = """name = "arm"
convention = "modified"
angle_unit = "deg"
[tool]
xyz = [0.3, 0.0, 0.0]
[[joint]]
joint = "revolute"
alpha = 0.0
a = 0.0
theta = 0.0
d = 0.2
mass = 1.0
com = [0.1, 0.0, 0.0]
inertia = [0.01, 0.01, 0.01]
[[joint]]
joint = "revolute"
alpha = -90.0
a = 0.1
theta = 0.0
d = 0.0
mass = 1.0
com = [0.2, 0.0, 0.0]
inertia = [0.01, 0.01, 0.01]
[[joint]]
joint = "prismatic"
alpha = 90.0
a = 0.4
theta = 0.0
d = 0.0
mass = 0.5
com = [0.1, 0.0, 0.0]
inertia = [0.01, 0.01, 0.01]
"""


def load(tmp_path, constraints, name="t.toml", head=ARM):
    path = tmp_path / name
    path.write_text(head + constraints)
    return ad.load(path)


def rows(text):
    """TOML of one [[constraints]] table from 'key = value' lines."""
    return "\n[[constraints]]\n" + text.strip() + "\n"


# --- parsing each type --------------------------------------------------------------------------
def test_point_between_frames_and_to_a_target(tmp_path):
    m = load(tmp_path, rows('type = "point"\nname = "pin"\nframe_a = "tool"\nframe_b = "dh1"')
             + rows('type = "point"\nframe_a = "link2"\ntarget = [0.1, 0.2, 0.3]'))
    a, b = m.constraint_specs
    assert a == ConstraintSpec("point", name="pin", frame_a="tool", frame_b="dh1")
    assert b == ConstraintSpec("point", frame_a="link2", target=(0.1, 0.2, 0.3))
    assert a.where == "constraint 1 ('pin')" and b.where == "constraint 2"
    pin, pt = from_model(m)
    assert type(pin) is Point and pin.name == "pin" and (pin.frame_a, pin.frame_b) == ("tool", "dh1")
    assert type(pt) is Point and pt.frame_b is None
    np.testing.assert_array_equal(pt.target, [0.1, 0.2, 0.3])


def test_weld_targets_point_rpy_matrix_and_frame(tmp_path):
    T = [[0.0, -1.0, 0.0, 1.0], [1.0, 0.0, 0.0, 2.0], [0.0, 0.0, 1.0, 3.0], [0.0, 0.0, 0.0, 1.0]]
    m = load(tmp_path, rows('type = "weld"\nframe_a = "tool"\ntarget = {xyz = [1, 2, 3], rpy = [0.1, 0.2, 0.3]}')
             + rows(f'type = "weld"\nframe_a = "tool"\ntarget = {T}')
             + rows('type = "weld"\nframe_a = "tool"\ntarget = [1, 2, 3]')
             + rows('type = "weld"\nframe_a = "tool"\nframe_b = "base"'))
    w = from_model(m)
    assert [type(c) for c in w] == [Weld] * 4
    np.testing.assert_allclose(np.array(w[0].target)[:3, :3], rpy_to_matrix(np.array([0.1, 0.2, 0.3])), atol=1e-15)
    np.testing.assert_allclose(np.array(w[0].target)[:3, 3], [1, 2, 3])
    np.testing.assert_array_equal(w[1].target, T)
    np.testing.assert_array_equal(w[2].target, [1, 2, 3])
    assert w[3].frame_b == "base" and w[3].target is None
    assert np.shape(m.constraint_specs[0].target) == (4, 4) and isinstance(m.constraint_specs[0].target, tuple)


def test_hinge_axis_normalised_and_default(tmp_path):
    m = load(tmp_path, rows('type = "hinge"\nframe_a = "tool"\nframe_b = "dh2"\naxis = [0, 2, 0]')
             + rows('type = "hinge"\nframe_a = "tool"\ntarget = [0, 0, 1]'))
    h1, h2 = from_model(m)
    assert type(h1) is Hinge and m.constraint_specs[0].axis == (0.0, 1.0, 0.0)
    np.testing.assert_array_equal(h1.axis, [0, 1, 0])
    assert m.constraint_specs[1].axis == (0.0, 0.0, 1.0)
    np.testing.assert_array_equal(h2.axis, [0, 0, 1])


def test_distance_declared_and_measured_at_neutral(tmp_path):
    m = load(tmp_path, rows('type = "distance"\nframe_a = "tool"\nframe_b = "dh1"\nlength = 0.5')
             + rows('type = "distance"\nframe_a = "tool"\nframe_b = "dh1"')
             + rows('type = "distance"\nframe_a = "tool"\ntarget = [1, 1, 1]'))
    assert m.constraint_specs[1].length is None
    d1, d2, d3 = from_model(m)
    assert [type(c) for c in (d1, d2, d3)] == [Distance] * 3 and d1.length == 0.5
    q0 = ad.neutral(m)
    expect = np.linalg.norm(ad.frame_placement(m, q0, "tool")[:3, 3] - ad.frame_placement(m, q0, "dh1")[:3, 3])
    assert d2.length == pytest.approx(expect, rel=1e-15) and expect > 0.1
    assert d3.length == pytest.approx(np.linalg.norm(ad.frame_placement(m, q0, "tool")[:3, 3] - 1.0), rel=1e-15)
    np.testing.assert_allclose(d2.phi(m, q0), 0.0, atol=1e-15)  # neutral is on it, by definition


def test_coupling_defaults_and_offset_in_angle_unit(tmp_path):
    m = load(tmp_path, rows('type = "coupling"\nname = "gear"\njoint_a = "joint2"\njoint_b = "joint1"\n'
                            'ratio = -2.0\noffset = 90.0')
             + rows('type = "coupling"\njoint_a = "joint3"\njoint_b = "joint1"\noffset = 0.05')
             + rows('type = "coupling"\njoint_a = "joint1"\njoint_b = "joint3"'))
    g, p, d = m.constraint_specs
    assert (g.ratio, g.offset) == (-2.0, pytest.approx(math.pi / 2))   # revolute joint_a: degrees
    assert (p.ratio, p.offset) == (1.0, 0.05)                          # prismatic joint_a: metres
    assert (d.ratio, d.offset) == (1.0, 0.0)
    cg, cp, cd = from_model(m)
    assert type(cg) is Coupling and cg.name == "gear" and (cg.joint_a, cg.joint_b) == ("joint2", "joint1")
    q = np.array([0.3, -2 * 0.3 + math.pi / 2, 0.35])
    np.testing.assert_allclose(cg.phi(m, q), 0.0, atol=1e-15)
    np.testing.assert_allclose(cp.phi(m, q), [0.35 - 0.3 - 0.05], atol=1e-15)
    assert cp.offset == 0.05 and cd.offset == 0.0


def test_yaml_constraints(tmp_path):
    yaml = pytest.importorskip("yaml")
    spec = {"name": "y", "convention": "modified",
            "joints": [dict(joint="revolute", alpha=0, a=0, theta=0, d=0, mass=1.0),
                       dict(joint="revolute", alpha=0, a=1.0, theta=0, d=0, mass=1.0)],
            "constraints": [dict(type="point", name="p", frame_a="dh2", target=[1.0, 0, 0]),
                            dict(type="coupling", joint_a="joint2", joint_b="joint1", ratio=0.5)]}
    path = tmp_path / "y.yaml"
    path.write_text(yaml.safe_dump(spec))
    m = ad.load(path)
    assert [s.type for s in m.constraint_specs] == ["point", "coupling"]
    assert [type(c) for c in from_model(m)] == [Point, Coupling]


def test_constraints_keyword_of_from_dh_and_model_errors():
    table = [dict(joint="revolute", alpha=0, a=0, theta=0, d=0, mass=1.0),
             dict(joint="revolute", alpha=0, a=1.0, theta=0, d=0, mass=1.0)]
    m = from_dh(table, "modified", tool={"xyz": [1, 0, 0]},
                constraints=[dict(type="point", frame_a="tool", target=[1.5, 0, 0])])
    assert from_model(m)[0].frame_a == "tool"
    with pytest.raises(ad.ModelError, match=r"^constraint 1: unknown field 'axis' for a point constraint"):
        from_dh(table, "modified", constraints=[dict(type="point", frame_a="dh2", target=[0, 0, 0], axis=[0, 0, 1])])
    with pytest.raises(ad.ModelError, match=r"^constraint 1: frame_a: unknown frame 'dh3'.*did you mean"):
        from_dh(table, "modified", constraints=[dict(type="point", frame_a="dh3", target=[0, 0, 0])])


# --- errors: file, constraint index / name, what is wrong ----------------------------------------
@pytest.mark.parametrize("text, match", [
    (rows('type = "pont"\nframe_a = "tool"\ntarget = [0, 0, 0]'),
     r"t\.toml: constraint 1: unknown constraint type 'pont' \(known: point, weld, hinge, distance, coupling\); "
     r"did you mean 'point'"),
    (rows('name = "c"\nframe_a = "tool"\ntarget = [0, 0, 0]'), r"t\.toml: constraint 1 \('c'\): missing field 'type'"),
    (rows('type = "point"\nname = "c"\nframe_a = "tool"\ntarget = [0, 0, 0]\ntagret = 1'),
     r"t\.toml: constraint 1 \('c'\): unknown field 'tagret' for a point constraint; did you mean 'target'"),
    (rows('type = "point"\nframe_a = "tool"\ntarget = [0, 0, 0]\naxis = [0, 0, 1]'),
     r"constraint 1: unknown field 'axis' for a point constraint \(a field of hinge constraints\); "
     r"fields: type, name, frame_a, frame_b, target"),
    (rows('type = "coupling"\njoint_a = "joint1"\njoint_b = "joint2"\nlength = 1.0'),
     r"constraint 1: unknown field 'length' for a coupling constraint \(a field of distance constraints\)"),
    (rows('type = "point"\ntarget = [0, 0, 0]'), r"t\.toml: constraint 1: missing field 'frame_a'"),
    (rows('type = "weld"\nframe_a = "tool"'), r"constraint 1: missing field 'frame_b' or 'target'"),
    (rows('type = "point"\nframe_a = "tool"\nframe_b = "dh1"\ntarget = [0, 0, 0]'),
     r"constraint 1: give 'frame_b' or 'target' .*not both"),
    (rows('type = "coupling"\njoint_a = "joint1"'), r"t\.toml: constraint 1: missing field 'joint_b'"),
    (rows('type = "point"\nframe_a = "tool"\ntarget = [0, 0]'),
     r"constraint 1: 'target' must be a point \[x, y, z\], got \[0, 0\]"),
    (rows('type = "point"\nframe_a = "tool"\ntarget = {xyz = [0, 0, 0]}'),
     r"constraint 1: 'target' must be a point \[x, y, z\]"),  # only weld / hinge take placements
    (rows('type = "weld"\nframe_a = "tool"\ntarget = {xyz = [0, 0, 0], rpz = [0, 0, 0]}'),
     r"constraint 1: 'target': unknown key 'rpz' \(use xyz and rpy\)"),
    (rows('type = "weld"\nframe_a = "tool"\ntarget = [[2, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]'),
     r"constraint 1: 'target' is not a rigid transform"),
    (rows('type = "point"\nframe_a = "tool"\ntarget = [0, "x", 0]'), r"constraint 1: 'target'\[1\] must be a number"),
    (rows('type = "hinge"\nframe_a = "tool"\nframe_b = "dh1"\naxis = [0, 0, 0]'),
     r"constraint 1: 'axis' must be a nonzero 3-vector"),
    (rows('type = "distance"\nname = "rod"\nframe_a = "tool"\nframe_b = "dh1"\nlength = -1.0'),
     r"constraint 1 \('rod'\): 'length' must be positive, got -1.0"),
    (rows('type = "coupling"\njoint_a = "joint1"\njoint_b = "joint2"\nratio = "two"'),
     r"constraint 1: 'ratio' must be a number, got 'two'"),
    (rows('type = "point"\nframe_a = 3\ntarget = [0, 0, 0]'),
     r"constraint 1: 'frame_a' must be a non-empty name, got 3"),
    (rows('type = "point"\nname = "a"\nframe_a = "tool"\ntarget = [0, 0, 0]')
     + rows('type = "point"\nname = "a"\nframe_a = "dh1"\ntarget = [0, 0, 0]'),
     r"t\.toml: constraint 2 \('a'\): duplicate constraint name \(also constraint 1\)"),
    ('\nconstraints = 3\n', r"t\.toml: 'constraints' must be a list of tables"),
    ('\nconstraints = [3]\n', r"t\.toml: constraint 1: a constraint must be a table"),
    # names are checked against the built model
    (rows('type = "point"\nframe_a = "tool"\ntarget = [0, 0, 0]')
     + rows('type = "point"\nname = "loop"\nframe_a = "tol"\nframe_b = "dh1"'),
     r"t\.toml: constraint 2 \('loop'\): frame_a: unknown frame 'tol' in model 'arm'; did you mean 'tool'"),
    (rows('type = "hinge"\nframe_a = "tool"\nframe_b = "dh9"'),
     r"t\.toml: constraint 1: frame_b: unknown frame 'dh9' in model 'arm'; did you mean"),
    (rows('type = "coupling"\nname = "g"\njoint_a = "joint2"\njoint_b = "jiont1"'),
     r"t\.toml: constraint 1 \('g'\): joint_b: unknown joint 'jiont1' in model 'arm'; did you mean 'joint1'"),
    (rows('type = "coupling"\njoint_a = "joint2"\njoint_b = "joint2"'),
     r"constraint 1: joint_a and joint_b are the same joint 'joint2'"),
    (rows('type = "point"\nframe_a = "tool"\nframe_b = "tool"'),
     r"constraint 1: frame_a and frame_b are the same frame 'tool'"),
])
def test_errors_name_file_constraint_and_problem(tmp_path, text, match):
    path = tmp_path / "t.toml"
    top = text.startswith("\nconstraints =")  # a top-level key goes before the [[joint]] tables
    path.write_text(text.lstrip() + ARM if top else ARM + text)
    with pytest.raises(ad.ParseError, match=match):
        ad.load(path)


def test_unknown_top_key_lists_constraints(tmp_path):
    with pytest.raises(ad.ParseError, match=r"unknown key 'constraint'; did you mean 'constraints'"):
        load(tmp_path, rows('type = "point"\nframe_a = "tool"\ntarget = [0, 0, 0]')
             .replace("constraints", "constraint"))


def test_measured_length_zero_is_an_error(tmp_path):
    m = load(tmp_path, rows('type = "distance"\nname = "rod"\nframe_a = "tool"\nframe_b = "dh3"'),
             head=ARM.replace("[tool]\nxyz = [0.3, 0.0, 0.0]\n", ""))
    with pytest.raises(ad.ModelError, match=r"t\.toml: constraint 1 \('rod'\): no 'length' given and the two "
                                            r"points coincide at the neutral configuration"):
        from_model(m)


# --- the model carries the specs ---------------------------------------------------------------
def test_model_replace_keeps_and_checks_specs(tmp_path):
    m = load(tmp_path, rows('type = "point"\nframe_a = "tool"\ntarget = [0, 0, 0]'))
    assert m.replace(damping=0.1).constraint_specs == m.constraint_specs
    spec = ConstraintSpec("coupling", joint_a="joint2", joint_b="joint1", ratio=2.0, offset=0.0)
    m2 = m.replace(constraint_specs=[spec])
    assert m2.constraint_specs == (spec,) and type(from_model(m2)[0]) is Coupling
    with pytest.raises(ad.ModelError, match=r"constraint 1: joint_a: unknown joint 'j9'"):
        m.replace(constraint_specs=[ConstraintSpec("coupling", joint_a="j9", joint_b="joint1")])
    with pytest.raises(ad.ModelError, match="expected a ConstraintSpec, got dict"):
        m.replace(constraint_specs=[{"type": "point"}])
    with pytest.raises(AttributeError):
        m.constraint_specs = ()
    with pytest.raises(Exception):  # frozen record
        m.constraint_specs[0].frame_a = "dh1"
    assert ad.models.puma560().constraint_specs == () and from_model(ad.models.puma560()) == []


def test_to_toml_round_trip_keeps_constraints(tmp_path):
    m = load(tmp_path, rows('type = "weld"\nname = "w"\nframe_a = "tool"\n'
                            'target = {xyz = [1, 2, 3], rpy = [0.1, 0.2, 0.3]}')
             + rows('type = "hinge"\nframe_a = "tool"\nframe_b = "dh1"\naxis = [1, 0, 0]')
             + rows('type = "distance"\nframe_a = "tool"\ntarget = [1, 1, 1]')
             + rows('type = "coupling"\njoint_a = "joint2"\njoint_b = "joint1"\nratio = 3.0\noffset = 10.0'))
    path = tmp_path / "back.toml"
    path.write_text(to_toml(m))
    back = ad.load(path)
    assert len(back.constraint_specs) == 4
    for a, b in zip(m.constraint_specs, back.constraint_specs):
        assert a.as_dict().keys() == b.as_dict().keys()
        for key, val in a.as_dict().items():
            if isinstance(val, str):
                assert val == b.as_dict()[key]
            else:
                np.testing.assert_allclose(np.array(val, float), np.array(b.as_dict()[key], float), atol=1e-14)


# --- the built-in four-bar ---------------------------------------------------------------------
L1, L2, L3, L0 = 1.0, 3.0, 2.5, 3.0


def tree_four_bar():
    """The same linkage as a tree (as in tests/test_constraints.py): crank - coupler from the ground
    pivot A0, rocker from B0 = (L0, 0, 0), the loop cut at the coupler-rocker pin B."""
    b = ad.ModelBuilder("four_bar", gravity=(0.0, -G, 0.0))
    rod = lambda L: dict(mass=1.0, com=(L / 2, 0, 0), inertia=np.diag([1e-3, L**2 / 12, L**2 / 12]))  # noqa: E731
    b.add_body("crank", "world", "revolute", joint_name="crank_joint", axis=(0, 0, 1), **rod(L1))
    b.add_body("coupler", "crank", "revolute", joint_name="coupler_joint", axis=(0, 0, 1), xyz=(L1, 0, 0), **rod(L2))
    b.add_frame("coupler_tip", "coupler", xyz=(L2, 0, 0))
    b.add_body("rocker", "world", "revolute", joint_name="rocker_joint", axis=(0, 0, 1), xyz=(L0, 0, 0), **rod(L3))
    b.add_frame("rocker_tip", "rocker", xyz=(L3, 0, 0))
    return b.build()


def model_theta(model):
    """The DH theta offsets of the serial chain (q = 0 is the assembled configuration)."""
    return np.array([r["theta"] for r in model.dh])


def test_fourbar_loads_by_path_and_name():
    m = ad.load(FOURBAR)
    assert ad.load("fourbar").constraint_specs == m.constraint_specs == ad.models.fourbar().constraint_specs
    assert "fourbar" in ad.models.names(closed_chains=True) and "fourbar" not in ad.models.names()
    assert (m.nq, m.joint_kind[1:], m.total_mass) == (3, ["revolute"] * 3, 3.0)
    np.testing.assert_array_equal(m.gravity, [0, -G, 0])
    (pin,) = from_model(m)
    assert type(pin) is Point and pin.name == "ground_pivot" and pin.frame_a == "tool"
    np.testing.assert_array_equal(pin.target, [L0, 0, 0])
    np.testing.assert_allclose(pin.phi(m, ad.neutral(m)), 0.0, atol=1e-14)  # q = 0 is on the loop


def test_fourbar_assembles_and_closes_the_loop(rng):
    m = ad.load("fourbar")
    loop = from_model(m)
    for _ in range(5):
        q0 = rng.uniform(-0.3, 0.3, 3)
        asm = assemble(m, q0, loop, v=np.array([1.0, 0.0, 0.0]))
        assert asm.status == "converged" and asm.residual < 1e-12
        th = model_theta(m) + asm.q
        a1, a2, a3 = np.cumsum(th)  # absolute link angles
        # Freudenstein loop: L1 e^{i a1} + L2 e^{i a2} + L3 e^{i a3} = L0
        np.testing.assert_allclose(L1 * np.exp(1j * a1) + L2 * np.exp(1j * a2) + L3 * np.exp(1j * a3), L0, atol=1e-12)
        _, J, _ = constraint_terms(m, asm.q, asm.v, loop)
        np.testing.assert_allclose(J @ asm.v, 0.0, atol=1e-12)


def test_fourbar_dynamics_declared_equals_hand_built_and_tree_topology():
    m = ad.load("fourbar")
    loop = from_model(m)
    asm = assemble(m, np.array([0.2, -0.1, 0.1]), loop, v=np.array([1.5, 0.0, 0.0]))
    tau = np.array([2.0, 0.0, 0.0])
    res = constrained_dynamics(m, asm.q, asm.v, tau, loop)
    hand = constrained_dynamics(m, asm.q, asm.v, tau, [Point("tool", target=(L0, 0.0, 0.0))])
    np.testing.assert_array_equal(res.a, hand.a)
    np.testing.assert_array_equal(res.lambdas, hand.lambdas)
    assert res.status == "redundant" and res.rank == 2 and res.residual < 1e-9  # planar: z row redundant
    # an independent model of the same mechanism (tree crank-coupler + rocker, cut at pin B)
    tree = tree_four_bar()
    th = np.cumsum(model_theta(m) + asm.q)           # absolute angles of crank, coupler, rocker (B -> B0)
    w = np.cumsum(asm.v)
    q_t = np.array([th[0], th[1] - th[0], th[2] + np.pi])  # the tree's rocker points B0 -> B
    v_t = np.array([w[0], w[1] - w[0], w[2]])
    pin = [Point("coupler_tip", "rocker_tip")]
    np.testing.assert_allclose(pin[0].phi(tree, q_t), 0.0, atol=1e-12)
    np.testing.assert_allclose(constraint_terms(tree, q_t, v_t, pin)[1] @ v_t, 0.0, atol=1e-12)
    r_t = constrained_dynamics(tree, q_t, v_t, tau, pin)
    alpha = np.cumsum(res.a)
    np.testing.assert_allclose([r_t.a[0], r_t.a[0] + r_t.a[1], r_t.a[2]], alpha, rtol=1e-9, atol=1e-9)
    # constrained inverse dynamics with only the crank actuated gives back the crank torque
    inv = ad.constrained_inverse_dynamics(m, asm.q, asm.v, res.a, loop, actuated=[True, False, False])
    np.testing.assert_allclose(inv.tau, tau, atol=1e-8)


# --- URDF <mimic> -> Coupling -------------------------------------------------------------------
LINK = ('<link name="{n}"><inertial><mass value="1"/>'
        '<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>')


def urdf(*joints):
    links = "".join(LINK.format(n=n) for n in ("base", "a", "b", "c"))
    return f'<?xml version="1.0"?>\n<robot name="m">\n{links}\n' + "\n".join(joints) + "\n</robot>\n"


def J(name, parent, child, kind="revolute", extra=""):
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
            f'<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="5" velocity="2"/>{extra}</joint>')


def test_urdf_mimic_is_declared_as_coupling(tmp_path):
    text = urdf(J("ja", "base", "a"), J("jb", "a", "b", extra='<mimic joint="ja" multiplier="-2" offset="0.1"/>'),
                J("jc", "b", "c", "prismatic", '<mimic joint="ja"/>'))
    path = tmp_path / "m.urdf"
    path.write_text(text)
    m = ad.load(path)
    line = text[:text.index("<mimic")].count("\n") + 1
    assert m.constraint_specs == (ConstraintSpec("coupling", joint_a="jb", joint_b="ja", ratio=-2.0, offset=0.1),
                                  ConstraintSpec("coupling", joint_a="jc", joint_b="ja", ratio=1.0, offset=0.0))
    assert m.constraint_specs[0].where == f"joint 'jb' <mimic> (line {line})"
    notes = [n for n in m.load_report if n.element == "joint 'jb'" and "mimic" in n.message]
    assert len(notes) == 1 and notes[0].line == line and "declared as a Coupling constraint" in notes[0].message
    assert m.nv == 3  # the tree keeps the joint as a degree of freedom
    cb, cc = from_model(m)
    assert type(cb) is Coupling and (cb.joint_a, cb.joint_b, cb.ratio, cb.offset) == ("jb", "ja", -2.0, 0.1)
    # imposed: the accelerations follow the coupling
    q = np.array([0.3, -0.5, 0.3])
    v = np.array([0.7, -1.4, 0.7])
    res = constrained_dynamics(m, q, v, np.array([1.0, 0.0, 0.0]), [cb, cc])
    np.testing.assert_allclose([cb.phi(m, q)[0], cc.phi(m, q)[0]], 0.0, atol=1e-15)
    np.testing.assert_allclose(res.a[1], -2.0 * res.a[0], atol=1e-12)
    np.testing.assert_allclose(res.a[2], res.a[0], atol=1e-12)
    # strict mode refuses it, as before (the tree itself does not apply it)
    with pytest.raises(ad.ParseError, match=rf"m\.urdf, line {line}: joint 'jb': <mimic joint='ja'>.*strict=True"):
        ad.load_urdf(path, strict=True)


def test_simulate_warns_that_mimic_couplings_are_left_free_unless_enforced(tmp_path):
    """A run without constraints= leaves a <mimic> joint free: warned once (naming the coupling),
    on the smooth and the contact routes; constraints='model' enforces it and says nothing."""
    import warnings

    from artidyn.contact import ContactSettings
    path = tmp_path / "m.urdf"
    path.write_text(urdf(J("ja", "base", "a"), J("jb", "a", "b", extra='<mimic joint="ja" multiplier="-2"/>'),
                         J("jc", "b", "c")))
    for kw in ({}, {"contact": ContactSettings()}):
        m = ad.load(path)
        with pytest.warns(UserWarning, match=r"declares 1 joint coupling\(s\) \(joint 'jb' <mimic>.*leaves free"):
            ad.simulate(m, np.zeros(3), None, np.array([1.0, 0.0, 0.0]), t_final=0.01, dt=1e-3, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ad.simulate(m, np.zeros(3), None, np.array([1.0, 0.0, 0.0]), t_final=0.01, dt=1e-3, **kw)  # once
    m = ad.load(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = ad.simulate(m, np.zeros(3), None, np.array([1.0, 0.0, 0.0]), t_final=0.05, dt=1e-3,
                        constraints="model")
    np.testing.assert_allclose(r.q[:, 1], -2.0 * r.q[:, 0], atol=1e-9)


@pytest.mark.parametrize("joints, why", [
    ((J("ja", "base", "a"), J("jb", "a", "b", "fixed", '<mimic joint="ja"/>')), "on a fixed joint"),
    ((J("ja", "base", "a"), J("jb", "a", "b", extra='<mimic joint="jz"/>')), "unknown joint 'jz'"),
    ((J("ja", "base", "a", "fixed"), J("jb", "a", "b", extra='<mimic joint="ja"/>')), "joint 'ja' is fixed"),
    ((J("ja", "base", "a"), J("jb", "a", "b", extra='<mimic joint="jb"/>')), "names the joint itself"),
])
def test_urdf_unusable_mimic_is_reported_not_declared(tmp_path, joints, why):
    """Real files carry such mimics (reduced models with fixed grippers, renamed joints): still load."""
    path = tmp_path / "m.urdf"
    path.write_text(urdf(*joints, J("jc", "b", "c")))
    m = ad.load(path)
    assert m.constraint_specs == () and from_model(m) == []
    (note,) = [n for n in m.load_report.ignored if "mimic" in n.message]
    assert note.element == "joint 'jb'" and "not modelled" in note.message and why in note.message


def test_urdf_mimic_bad_attributes(tmp_path):
    path = tmp_path / "m.urdf"
    path.write_text(urdf(J("ja", "base", "a"), J("jb", "a", "b", extra='<mimic joint="ja" multiplier="two"/>')))
    with pytest.raises(ad.ParseError, match=r"m\.urdf, line \d+: joint 'jb': <mimic multiplier=\"two\">: 'two' is not a number"):
        ad.load(path)
    path.write_text(urdf(J("ja", "base", "a"), J("jb", "a", "b", extra='<mimic multiplier="2"/>')))
    with pytest.raises(ad.ParseError, match=r"joint 'jb': <mimic> has no 'joint' attribute"):
        ad.load(path)
