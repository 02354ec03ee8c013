"""Numbers in model files are XML numbers, nothing else (hardening): Python's float() would take
'1_5' (as 15), non-ASCII digits, 'inf' and 'nan'; the readers refuse them with the place. DH
tables refuse strings where booleans are meant, lists where names are meant, negative limits."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.errors import ModelError, ParseError
from artidyn.io.safexml import xml_number

URDF = """<robot name="r">
  <link name="base"/>
  <link name="arm"><inertial><mass value="{mass}"/><origin xyz="0 0 {z}"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="{upper}" effort="10" velocity="2"/></joint>
</robot>"""


@pytest.mark.parametrize("token", ["1", "-0.5", "+2", ".5", "5.", "2.5e-3", "1E+2", "-1.25E-02"])
def test_plain_numbers_read(token):
    assert xml_number(token) == float(token)
    m = ad.load_urdf(URDF.format(mass="1", z=token, upper="1"))
    assert m.nv == 1


@pytest.mark.parametrize("token", ["1_5", "\u0661", "\uff11", "inf", "-Infinity", "nan", "NaN", "0x10", "1,5",
                                   "1.5.2", "e3", "", "1e", "\u00b2"])
def test_other_tokens_refused_with_the_place(token):
    with pytest.raises(ValueError):
        xml_number(token)
    if not token:
        return
    with pytest.raises(ParseError) as exc:
        ad.load_urdf(URDF.format(mass=token, z="0", upper="1"))
    msg = str(exc.value)
    assert "mass value=" in msg and "line 3" in msg and "not a number" in msg     # element, attribute, line
    with pytest.raises(ParseError, match="limit upper="):
        ad.load_urdf(URDF.format(mass="1", z="0", upper=token))


def test_srdf_values_are_xml_numbers(tmp_path):
    from artidyn.io.srdf import srdf_configurations
    m = ad.load_urdf(URDF.format(mass="1", z="0", upper="1"))
    good = tmp_path / "good.srdf"
    good.write_text('<robot name="r"><group_state name="home" group="all"><joint name="j1" value="0.25"/>'
                    '</group_state></robot>')
    assert srdf_configurations(m, good)["home"][0] == 0.25
    bad = tmp_path / "bad.srdf"
    bad.write_text('<robot name="r"><group_state name="home" group="all"><joint name="j1" value="2_5"/>'
                   '</group_state></robot>')
    with pytest.raises(ParseError, match="bad.srdf:1: posture 'home': joint 'j1': value '2_5' is not a list of numbers"):
        srdf_configurations(m, bad)


ROW = dict(a=0.0, alpha=0.0, d=0.1, theta=0.0, joint="revolute")


@pytest.mark.parametrize("extra, match", [({"actuated": "false"}, "'actuated' must be true or false"),
                                          ({"actuated": 0}, "'actuated' must be true or false"),
                                          ({"name": ["a"]}, "'name' must be a string"),
                                          ({"joint_name": 3}, "'joint_name' must be a string"),
                                          ({"velocity": -1.0}, "'velocity' limit must be >= 0"),
                                          ({"effort": -5.0}, "'effort' limit must be >= 0")])
def test_dh_fields_have_their_types(extra, match):
    with pytest.raises(ModelError, match=match):
        ad.from_dh([{**ROW, **extra}], convention="modified")
    m = ad.from_dh([{**ROW, "actuated": False, "name": "a", "velocity": 1.0}], convention="modified")
    assert not m.actuated[0] and np.isclose(m.velocity_limit[0], 1.0)


@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
def test_a_joint_that_moves_no_inertia_is_named():
    """A point mass on a revolute axis (no rotational inertia): aba (single, batch, reference,
    the bound evaluator, the derivatives), simulate, rollout and constrained_dynamics raise a
    ModelError naming the joint, never a ZeroDivisionError, a SystemError out of a kernel, a
    LinAlgError or inf; and the C entry points leave no 'Exception ignored' behind."""
    from artidyn.kernels.dispatch import reference_only
    b = ad.ModelBuilder("pm")
    b.add_body("l1", "world", "revolute", axis=(0, 0, 1), mass=1.0, com=(0, 0, 0.5), inertia=np.zeros((3, 3)))
    b.add_body("l2", "world", "revolute", axis=(1, 0, 0), xyz=(0, 0, 1), mass=1.0, com=(0, 0.3, 0),
               inertia=np.eye(3) * 0.01)
    m = b.build()
    calls = [lambda: ad.aba(m, np.zeros(2), np.zeros(2), np.ones(2)),
             lambda: ad.aba(m, np.zeros((4, 2)), np.zeros((4, 2)), np.ones((4, 2))),
             lambda: ad.simulate(m, np.zeros(2), np.zeros(2), t_final=0.01),
             lambda: ad.rollout(m, np.zeros((3, 2)), np.zeros((3, 2)), t_final=0.01, dt=1e-3),
             lambda: ad.constrained_dynamics(m, np.zeros(2), np.zeros(2), np.ones(2), [], method="kkt"),
             lambda: ad.Dynamics(m).aba(np.zeros(2), np.zeros(2), np.ones(2))]
    for call in calls:
        with pytest.raises(ModelError, match="'l1_joint' move"):
            call()
    with reference_only():
        with pytest.raises(ModelError, match="'l1_joint' move"):
            ad.aba(m, np.zeros(2), np.zeros(2), np.ones(2))
