"""artidyn's MJCF reader held against MuJoCo 4's own compiler where it used to refuse or be
silently wrong (issue 34): ``<include>``, ``settotalmass``, ``<option>`` flags, mesh inertia modes,
``springdamper``, joint ``ref``, free-joint armature, unknown attributes (the schema), features
that are not modelled, plausibility of radian ranges; and every MJCF asset of the gymnasium
package against MuJoCo's mass matrix, bias forces and accelerations."""
import os
import pathlib
import re
import struct
import warnings

import numpy as np
import pytest
from peers import require
from test_mjcf import full_mass_matrix, random_state

import artidyn as ad
from artidyn.errors import ParseError, PlausibilityWarning
from artidyn.interop import MujocoConverter
from artidyn.io.mjcf import NotModelledWarning, UnknownAttributeWarning, load_mjcf
from artidyn.io.mjcf import schema as mjcf_schema

mujoco = require("mujoco")
OFF = mujoco.mjtDisableBit


@pytest.fixture(autouse=True)
def _mujoco_log_in_tmp(tmp_path, monkeypatch):
    """MuJoCo writes its warnings (settotalmass is deprecated) to MUJOCO_LOG.TXT in the current folder."""
    monkeypatch.chdir(tmp_path)


def load(path_or_text, **kw):
    """(model, warnings raised while loading it)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = load_mjcf(path_or_text, **kw)
    return m, caught


def of(caught, category):
    return [str(w.message) for w in caught if issubclass(w.category, category)]


def mj_model(path_or_text):
    if isinstance(path_or_text, pathlib.Path):
        return mujoco.MjModel.from_xml_path(str(path_or_text))
    return mujoco.MjModel.from_xml_string(path_or_text)


def check_dynamics(m, mj, seeds=(0, 1, 2), tol=1e-10, disable=OFF.mjDSBL_CONSTRAINT | OFF.mjDSBL_ACTUATION):
    """M, bias and qacc of artidyn against MuJoCo at random states (constraints and actuators off;
    passive forces: joint springs and dampers, as artidyn models them)."""
    mj.opt.disableflags |= disable
    d, cv = mujoco.MjData(mj), MujocoConverter(m, mj)
    np.testing.assert_allclose(m.total_mass, mj.body_mass.sum(), rtol=1e-12)
    for seed in seeds:
        q, v, _ = random_state(m, seed)
        d.qpos[:], d.qvel[:] = cv.to_mj_qpos(q), cv.to_mj_qvel(q, v)
        mujoco.mj_forward(mj, d)
        M = ad.crba(m, q)
        scale = max(1.0, np.abs(M).max())
        np.testing.assert_allclose(cv.from_mj_matrix(q, full_mass_matrix(mj, d)), M, rtol=0, atol=tol * scale)
        bias = ad.rnea(m, q, v, cv.from_mj_qacc(q, v, np.zeros(mj.nv)), friction=False) - ad.spring_torque(m, q)
        np.testing.assert_allclose(cv.from_mj_qfrc(q, d.qfrc_bias), bias, rtol=0, atol=tol * scale)
        a = ad.aba(m, q, v, -m.damping * v, friction=False)
        np.testing.assert_allclose(cv.from_mj_qacc(q, v, d.qacc), a, rtol=0, atol=tol * max(1.0, np.abs(a).max()))
    return cv


# --- gymnasium's MuJoCo assets ---------------------------------------------------------------------
def _gym_assets():
    try:
        import gymnasium
    except ImportError:
        return ["gymnasium not installed"]
    return sorted(p.name for p in (pathlib.Path(gymnasium.__file__).parent / "envs/mujoco/assets").glob("*.xml"))


@pytest.mark.parametrize("name", _gym_assets())
def test_gymnasium_asset_matches_mujoco(name):
    gym = require("gymnasium")
    path = pathlib.Path(gym.__file__).parent / "envs" / "mujoco" / "assets" / name
    m, caught = load(path)
    assert not of(caught, UnknownAttributeWarning)
    mj = mj_model(path)
    if mj.opt.density or mj.opt.viscosity:          # the swimmer: fluid forces, said and then turned off
        assert any("fluid forces" in w for w in of(caught, NotModelledWarning))
        mj.opt.density = mj.opt.viscosity = 0.0
    else:
        assert not of(caught, NotModelledWarning)
    check_dynamics(m, mj)
    if name == "half_cheetah.xml":                  # <compiler settotalmass="14">
        np.testing.assert_allclose(m.total_mass, 14.0, rtol=1e-12)


# --- <include> -------------------------------------------------------------------------------------
def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


BODY = '<body name="{0}" pos="0 0 1"><joint name="{0}_j" axis="0 1 0"/><geom size="0.1" pos="0.2 0 0"/></body>'


def test_include_resolves_as_mujoco(tmp_path):
    """Nested includes: first relative to the main file's folder, then to the including file's
    (MuJoCo's order); the included roots are removed and their children spliced in place."""
    main = write(tmp_path / "main.xml", '<mujoco><include file="sub/a.xml"/><worldbody>'
                 '<include file="sub/bodies.xml"/></worldbody></mujoco>')
    write(tmp_path / "sub/a.xml", '<mujoco><include file="deep/options.xml"/><include file="deep/defaults.xml"/>'
          '</mujoco>')
    write(tmp_path / "sub/deep/options.xml", '<mujoco><option gravity="0 0 -1"/></mujoco>')
    write(tmp_path / "deep/options.xml", '<mujoco><option gravity="0 0 -2"/></mujoco>')   # the main folder wins
    write(tmp_path / "sub/deep/defaults.xml", '<mujoco><default><joint damping="0.5"/></default></mujoco>')
    write(tmp_path / "sub/bodies.xml", "<mujoco>" + BODY.format("a") + BODY.format("b") + "</mujoco>")
    m, caught = load(main)
    mj = mj_model(main)
    assert not caught and m.joint_names[1:] == ["a_j", "b_j"]
    np.testing.assert_array_equal(m.gravity, mj.opt.gravity)
    np.testing.assert_array_equal(m.gravity, [0, 0, -2])
    np.testing.assert_array_equal(m.damping, mj.dof_damping)
    check_dynamics(m, mj, seeds=(0,))
    (tmp_path / "deep/options.xml").unlink()       # now only the including file's folder has it
    m, mj = load_mjcf(main), mj_model(main)
    np.testing.assert_array_equal(m.gravity, [0, 0, -1])
    np.testing.assert_array_equal(m.gravity, mj.opt.gravity)


def test_include_errors_name_the_file_and_the_chain(tmp_path):
    write(tmp_path / "a.xml", '<mujoco><include file="b.xml"/></mujoco>')
    write(tmp_path / "b.xml", '<mujoco><include file="a.xml"/></mujoco>')
    main = write(tmp_path / "main.xml", '<mujoco><include file="a.xml"/><worldbody/></mujoco>')
    with pytest.raises(ParseError, match=r"b\.xml:1: <include> attribute 'file': include cycle: .*main\.xml -> "
                                         r".*a\.xml -> .*b\.xml -> .*a\.xml"):
        load_mjcf(main)
    with pytest.raises(ValueError):
        mj_model(main)                              # MuJoCo: "File 'a.xml' already included"
    write(main, '<mujoco><include file="nope.xml"/><worldbody/></mujoco>')
    with pytest.raises(ParseError, match=r"main\.xml:1: <include> attribute 'file': included file 'nope\.xml' not "
                                         r"found \(looked for .*nope\.xml\)"):
        load_mjcf(main)
    write(tmp_path / "c.xml", "<mujoco><option/></mujoco>")
    write(main, '<mujoco><include file="c.xml"/><include file="c.xml"/><worldbody/></mujoco>')
    with pytest.raises(ParseError, match=r"'c\.xml' is already included"):
        load_mjcf(main)
    write(tmp_path / "bad.xml", "<mujoco><option></mujoco>")
    write(main, '<mujoco><include file="bad.xml"/><worldbody/></mujoco>')
    with pytest.raises(ParseError, match=r"bad\.xml, line 1, column \d+: malformed XML"):
        load_mjcf(main)


def test_hostile_includes_are_bounded(tmp_path, monkeypatch):
    """No device, pipe or folder is read; the limits of the safe XML reader hold over all files."""
    main = tmp_path / "main.xml"
    for target in ("/dev/zero", str(tmp_path)):
        write(main, f'<mujoco><include file="{target}"/><worldbody/></mujoco>')
        with pytest.raises(ParseError, match="is not a regular file"):
            load_mjcf(main)
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.xml")
        write(main, '<mujoco><include file="pipe.xml"/><worldbody/></mujoco>')
        with pytest.raises(ParseError, match="is not a regular file"):
            load_mjcf(main)
    nested = "<frame>" * 40 + "<include file='deep.xml'/>" + "</frame>" * 40
    write(tmp_path / "deep.xml", "<mujoco>" + "<frame>" * 40 + "</frame>" * 40 + "</mujoco>")
    write(main, f"<mujoco><worldbody>{nested}</worldbody></mujoco>")
    with pytest.raises(ParseError, match="nested deeper than 64 levels once the included files are assembled"):
        load_mjcf(main)
    from artidyn.io.mjcf import include
    write(tmp_path / "big.xml", "<mujoco>" + "<option/>" * 200 + "</mujoco>")
    write(main, '<mujoco><include file="big.xml"/><worldbody/></mujoco>')
    monkeypatch.setattr(include, "MAX_BYTES", 1000)
    with pytest.raises(ParseError, match="included files exceed 1000 bytes together"):
        load_mjcf(main)


# --- compiler and options ----------------------------------------------------------------------------
CHAIN = """<mujoco><compiler angle="radian" {compiler}/>{option}<worldbody>
  <body name="a" pos="0 0 1"><joint name="ja" axis="0 1 0" stiffness="3" springref="0.2" damping="0.4" range="-1 1"/>
    <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.05"/>
    <body name="b" pos="0.4 0 0"><joint name="jb" axis="1 0 0" damping="0.2" frictionloss="0.1"/>
      <geom type="box" size="0.2 0.05 0.03" pos="0.2 0 0" density="700"/><site name="tip" pos="0.4 0 0"/></body>
  </body>
  <body name="c" pos="1 0 1"><joint name="jc" type="slide" axis="0 0 1" stiffness="10"/><geom size="0.1"/></body>
</worldbody><equality><connect body1="b" body2="c" anchor="0.4 0 0"/></equality></mujoco>"""


def test_settotalmass_scales_every_body_as_mujoco():
    text = CHAIN.format(compiler='settotalmass="7.5"', option="")
    m, mj = load_mjcf(text), mj_model(text)
    np.testing.assert_allclose(m.total_mass, 7.5, rtol=1e-13)
    for name in ("a", "b", "c"):
        i = m.body_id(name)
        np.testing.assert_allclose(m.mass[i], mj.body(name).mass[0], rtol=1e-13)
        np.testing.assert_allclose(np.linalg.eigvalsh(m.inertia_com[i]), np.sort(mj.body(name).inertia), rtol=1e-12)
    check_dynamics(m, mj, seeds=(0,))


@pytest.mark.parametrize("flags, zero", [
    ('gravity="disable"', "gravity"),
    ('spring="disable"', "stiffness"),
    ('damper="disable"', "damping"),
    ('spring="disable" damper="disable" gravity="disable"', "stiffness damping gravity"),
    ('frictionloss="disable"', "coulomb"),
    ('limit="disable"', "limits"),
    ('constraint="disable"', "coulomb limits loops collisions"),
    ('equality="disable"', "loops"),
    ('contact="disable"', "collisions"),
])
def test_option_flags_are_read(flags, zero):
    """MuJoCo runs with these flags; artidyn's model leaves out what they turn off."""
    text = CHAIN.format(compiler="", option=f'<option gravity="0.3 0 -9"><flag {flags}/></option>')
    m, caught = load(text)
    base = load_mjcf(CHAIN.format(compiler="", option='<option gravity="0.3 0 -9"/>'))
    assert not caught
    got = {"gravity": not np.any(m.gravity), "stiffness": not np.any(m.stiffness),
           "damping": not np.any(m.damping), "coulomb": not np.any(m.coulomb),
           "limits": np.all(np.isinf(m.lower)), "loops": not m.constraint_specs, "collisions": not m.collisions}
    for key, off in got.items():
        assert off == (key in zero.split()), key
    assert np.any(base.gravity) and np.any(base.stiffness) and base.constraint_specs and base.collisions
    check_dynamics(m, mj_model(text), seeds=(0, 1))      # MuJoCo with the file's flags


def test_legacy_passive_flag_and_unmodelled_options():
    """``passive`` (MuJoCo 2's flag for springs and dampers) is read although MuJoCo 4 refuses it;
    fluid forces and filterparent='disable' are not modelled: warnings."""
    text = CHAIN.format(compiler="", option='<option><flag passive="disable"/></option>')
    m, caught = load(text)
    assert not caught and not np.any(m.stiffness) and not np.any(m.damping)
    with pytest.raises(ValueError, match="unrecognized attribute: 'passive'"):
        mj_model(text)
    text = CHAIN.format(compiler="", option='<option density="1.2" viscosity="2e-5"><flag filterparent="disable" '
                                            'warmstart="disable"/></option>')
    m, caught = load(text)
    msgs = of(caught, NotModelledWarning)
    assert len(msgs) == 2 and "fluid forces" in msgs[1] and "filterparent" in msgs[0]
    assert any("warmstart='disable': simulator settings" in n.message for n in m.load_report)
    with pytest.raises(ParseError, match="filterparent.*strict=True refuses it"):
        load_mjcf(text, strict=True)


# --- mesh inertia ------------------------------------------------------------------------------------
def l_prism(arm=0.3, width=0.05, height=0.1):
    """(vertices, outward triangles) of a closed L-shaped prism: a non-convex solid."""
    P = [(0, 0), (arm, 0), (arm, width), (width, width), (width, arm), (0, arm)]
    n = len(P)
    V = np.array([(x, y, 0.0) for x, y in P] + [(x, y, height) for x, y in P]) + (0.02, -0.03, 0.01)
    F = [(n, n + k, n + k + 1) for k in range(1, n - 1)] + [(0, k + 1, k) for k in range(1, n - 1)]
    F += [t for i in range(n) for t in ((i, (i + 1) % n, n + (i + 1) % n), (i, n + (i + 1) % n, n + i))]
    return V, np.array(F)


def write_stl(path, V, F):
    with open(path, "wb") as fh:
        fh.write(b"\0" * 80 + struct.pack("<I", len(F)))
        for t in F:
            fh.write(struct.pack("<12fH", 0, 0, 0, *V[t].ravel(), 0))
    return path


def write_obj(path, V, F):
    lines = [f"v {float(x)!r} {float(y)!r} {float(z)!r}" for x, y, z in V]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in F]
    path.write_text("\n".join(lines) + "\n")
    return path


MESH_BODY = """<mujoco><compiler meshdir="{dir}"/>{default}<asset><mesh name="L" file="{file}" {mode}
  scale="{scale}"/></asset><worldbody><body name="arm" pos="0 0 1"><joint name="j" axis="0 1 0"/>
  <geom type="mesh" mesh="L" pos="0.1 0 0" euler="10 20 30" density="7800"/><geom size="0.02" pos="-0.05 0 0"/>
  </body></worldbody></mujoco>"""

@pytest.mark.parametrize("mode", ["", "legacy", "exact", "convex", "shell", "class-exact"])
@pytest.mark.parametrize("fmt", ["stl", "obj"])
def test_mesh_inertia_modes_match_mujoco(tmp_path, mode, fmt):
    """MuJoCo's four mesh inertia modes on a non-convex (L-shaped) closed mesh, its default
    (legacy) included, and a mode set by a default class; scaled, mirrored in the OBJ case."""
    V, F = l_prism()
    path = (write_stl if fmt == "stl" else write_obj)(tmp_path / f"L.{fmt}", V, F)
    default = '<default><mesh inertia="exact"/></default>' if mode == "class-exact" else ""
    attr = f'inertia="{mode}"' if mode in ("legacy", "exact", "convex", "shell") else ""
    scale = "1 1 1" if fmt == "stl" else "1.5 -1 0.8"
    text = MESH_BODY.format(dir=tmp_path, file=path.name, mode=attr, default=default, scale=scale)
    m, caught = load(text)
    mj = mj_model(text)
    assert not caught
    np.testing.assert_allclose(m.mass[1], mj.body_mass[1], rtol=1e-12)
    check_dynamics(m, mj, seeds=(0,))


def test_mesh_modes_differ_on_a_non_convex_mesh(tmp_path):
    """The steel L (21.45 kg solid): legacy overcounts it (its pyramids from the centre are all counted
    positive), the hull fills the inner corner, exact is the solid; the old reader took the hull
    whatever the mode."""
    V, F = l_prism()
    write_stl(tmp_path / "L.stl", V, F)
    ball = 1000 * 4 * np.pi * 0.02 ** 3 / 3                  # the body's other geom
    mass = {}
    for mode in ("legacy", "exact", "convex", "shell"):
        text = MESH_BODY.format(dir=tmp_path, file="L.stl", mode=f'inertia="{mode}"', default="", scale="1 1 1")
        mass[mode] = load_mjcf(text).mass[1] - ball
        np.testing.assert_allclose(mass[mode], mj_model(text).body_mass[1] - ball, rtol=1e-12)
    np.testing.assert_allclose(mass["exact"], 7800 * (0.3 * 0.05 + 0.05 * 0.25) * 0.1, rtol=1e-6)
    assert mass["legacy"] > mass["exact"] * 1.05 and mass["convex"] > mass["exact"] * 1.5


def test_exact_mesh_inertia_refuses_a_misoriented_mesh(tmp_path):
    V, F = l_prism()
    F = F.copy()
    F[0] = F[0][::-1]
    write_stl(tmp_path / "L.stl", V, F)
    text = MESH_BODY.format(dir=tmp_path, file="L.stl", mode='inertia="exact"', default="", scale="1 1 1")
    with pytest.raises(ParseError, match=r"<mesh> 'L' attribute 'inertia': triangles with inconsistent orientation"):
        load_mjcf(text)
    with pytest.raises(ValueError, match="inconsistent orientation"):
        mj_model(text)


def test_shell_inertia_of_primitives_and_inline_meshes_match_mujoco():
    text = """<mujoco><asset><mesh name="tet" vertex="0 0 0 0.2 0 0 0 0.3 0 0 0 0.1" refpos="0.05 0 0"
        refquat="0.9 0.1 0.3 0.2" inertia="shell"/></asset><worldbody><body name="b" pos="0 0 1">
      <joint axis="1 1 0"/><geom type="sphere" size="0.1" shellinertia="true"/>
      <geom type="box" size="0.1 0.2 0.05" pos="0.3 0 0" shellinertia="true" euler="10 0 0"/>
      <geom type="capsule" fromto="0 0 0 0.2 0.1 0" size="0.03" shellinertia="true"/>
      <geom type="cylinder" size="0.05 0.1" pos="0 0.2 0" shellinertia="true" mass="0.4"/>
      <geom type="ellipsoid" size="0.1 0.05 0.08" pos="0 -0.2 0" shellinertia="true"/>
      <geom type="mesh" mesh="tet" pos="0 0 0.2"/></body></worldbody></mujoco>"""
    m, mj = load_mjcf(text), mj_model(text)
    np.testing.assert_allclose(m.mass[1], mj.body_mass[1], rtol=1e-12)
    check_dynamics(m, mj, seeds=(0,))


# --- joints --------------------------------------------------------------------------------------------
JOINTS = """<mujoco><compiler angle="degree"/><worldbody>
  <body name="a" pos="0 0 1"><joint name="h1" axis="0 1 0" ref="30" springref="50" stiffness="2" range="-20 80"
      armature="0.1" damping="0.05"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
    <body name="b" pos="0.3 0 0"><joint name="s1" type="slide" axis="1 0 0" ref="0.1" springref="0.3"
        range="-0.2 0.4" stiffness="5" damping="0.3"/>
      <joint name="h2" axis="0 0 1" pos="0.1 0 0" ref="-15" range="-40 40"/>
      <geom type="box" size="0.1 0.05 0.02" pos="0.1 0 0"/></body></body></worldbody></mujoco>"""


def test_ref_shifts_limits_and_springs_as_mujoco():
    """q = qpos - ref: the limits are range - ref, the spring rest springref - ref, in radians under
    angle='degree'; the spring force is MuJoCo's at random states."""
    m, mj = load_mjcf(JOINTS), mj_model(JOINTS)
    d, cv = mujoco.MjData(mj), MujocoConverter(m, mj)
    for j in range(mj.njnt):
        name, a = mj.joint(j).name, int(mj.jnt_qposadr[j])
        qs, vs = m.q_slice(name), m.v_slice(name)
        np.testing.assert_allclose([m.lower[qs][0], m.upper[qs][0]], mj.jnt_range[j] - mj.qpos0[a], rtol=1e-14)
        np.testing.assert_allclose(m.rest[vs], mj.qpos_spring[a] - mj.qpos0[a], rtol=1e-14)
    for seed in range(3):
        q = ad.random_configuration(m, rng=seed)
        qpos = cv.to_mj_qpos(q)
        assert np.all((mj.jnt_range[:, 0] <= qpos) & (qpos <= mj.jnt_range[:, 1]))     # within MuJoCo's limits
        d.qpos[:] = qpos
        mujoco.mj_forward(mj, d)
        np.testing.assert_allclose(cv.from_mj_qfrc(q, d.qfrc_spring), -ad.spring_torque(m, q), atol=1e-13)
    check_dynamics(m, mj)


def test_springdamper_gives_mujocos_stiffness_and_damping():
    """springdamper (timeconst, dampratio) from the joint inertia at the reference configuration:
    a hinge with armature, an offset hinge, a slide, a hinge under a free body; a ball joint's
    damping is read, its spring is not modelled (a warning)."""
    text = """<mujoco><worldbody><body name="a" pos="0 0 1">
      <joint name="h1" axis="0 1 0" springdamper="0.2 0.7" armature="0.1" ref="0.3"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <body name="b" pos="0.3 0 0"><joint name="s1" type="slide" axis="1 0 0" springdamper="0.3 0.9"/>
        <joint name="h2" axis="0 0 1" pos="0.1 0 0" springdamper="0.5 1.2"/><geom type="box" size="0.1 0.05 0.02"/>
        <body name="c" pos="0.2 0 0"><joint name="bl" type="ball" springdamper="0.3 1"/>
          <geom size="0.05" pos="0.05 0 0"/></body></body></body>
      <body name="f" pos="1 0 1"><freejoint/><geom type="box" size="0.1 0.2 0.3"/>
        <body pos="0.1 0 0"><joint name="h3" axis="1 0 0" springdamper="0.1 0.5"/><geom size="0.05"/></body></body>
    </worldbody></mujoco>"""
    m, caught = load(text)
    mj = mj_model(text)
    assert len(caught) == 1 and "springdamper gives this spherical joint a spring" in str(caught[0].message)
    for name in ("h1", "s1", "h2", "bl", "h3"):
        j = mj.joint(name).id
        dofs = slice(int(mj.jnt_dofadr[j]), int(mj.jnt_dofadr[j]) + int(m.nv_joint[m.joint_id(name)]))
        np.testing.assert_allclose(m.damping[m.v_slice(name)], mj.dof_damping[dofs], rtol=1e-12)
        if name != "bl":
            np.testing.assert_allclose(m.stiffness[m.v_slice(name)], mj.jnt_stiffness[j], rtol=1e-12)
    assert mj.jnt_stiffness[mj.joint("bl").id] > 0 and not np.any(m.stiffness[m.v_slice("bl")])


def test_free_joint_armature_rule():
    """MuJoCo's free-joint armature acts on the world-frame linear acceleration: the mass matrices
    agree, the accelerations agree once artidyn gets the force -armature (omega x v) on the free
    joint's linear rows; a warning says so."""
    text = """<mujoco><worldbody><body name="b" pos="0 0 1" euler="10 20 30">
      <joint name="root" type="free" armature="0.3"/><inertial pos="0.1 0.05 -0.02" mass="2" diaginertia="0.3 0.2 0.1"/>
      <body name="c" pos="0.2 0 0"><joint name="h" axis="0 1 0"/>
        <inertial pos="0.1 0 0" mass="1" diaginertia="0.01 0.02 0.03"/></body></body></worldbody></mujoco>"""
    m, caught = load(text)
    assert "free-joint armature" in of(caught, NotModelledWarning)[0]
    assert any("free-joint armature" in n.message for n in m.load_report)
    mj = mj_model(text)
    mj.opt.disableflags |= OFF.mjDSBL_CONSTRAINT
    d, cv = mujoco.MjData(mj), MujocoConverter(m, mj)
    for seed in range(3):
        q, v, _ = random_state(m, seed)
        d.qpos[:], d.qvel[:] = cv.to_mj_qpos(q), cv.to_mj_qvel(q, v)
        mujoco.mj_forward(mj, d)
        np.testing.assert_allclose(cv.from_mj_matrix(q, full_mass_matrix(mj, d)), ad.crba(m, q), atol=1e-13)
        extra = np.zeros(m.nv)
        extra[3:6] = -0.3 * np.cross(v[:3], v[3:6])
        a_mj = cv.from_mj_qacc(q, v, d.qacc)
        assert np.abs(a_mj - ad.aba(m, q, v, np.zeros(m.nv))).max() > 1e-3          # the rules differ
        np.testing.assert_allclose(a_mj, ad.aba(m, q, v, extra), atol=1e-12)      # and this is the difference


# --- what MJCF does not have, what artidyn does not model ----------------------------------------------
MISSPELT = """<mujoco model="m"><default><geom densty="5"/></default>
<worldbody>
  <body name="b"><joint name="j" armture="1"/><geom size="0.1"/><goem size="0.2"/></body>
</worldbody></mujoco>"""


def test_unknown_attributes_and_elements_warn_with_the_closest_name(tmp_path):
    path = write(tmp_path / "m.xml", MISSPELT)
    m, caught = load(path)
    msgs = of(caught, UnknownAttributeWarning)
    assert len(msgs) == 3
    assert "<geom> attribute 'densty'" in msgs[0] and "did you mean 'density'?" in msgs[0]
    assert msgs[1] == f"{path}:3: <joint> 'j' attribute 'armture': unknown attribute, not read (MuJoCo refuses it); " \
                      f"did you mean 'armature'?"
    assert msgs[2].startswith(f"{path}:3: <goem>: unknown element") and "did you mean 'geom'?" in msgs[2]
    assert m.armature[0] == 0 and sum("unknown" in n.message for n in m.load_report) == 3
    with pytest.raises(ParseError, match=re.escape(f"{path}:1: <geom> attribute 'densty': unknown attribute, "
                                                   f"not read (MuJoCo refuses it); did you mean 'density'? "
                                                   f"(strict=True refuses it)")):
        load_mjcf(path, strict=True)
    path.write_text(MISSPELT.replace(' densty="5"', ""))
    with pytest.raises(ParseError, match=re.escape(f"{path}:3: <joint> 'j' attribute 'armture': unknown attribute, "
                                                   f"not read (MuJoCo refuses it); did you mean 'armature'? "
                                                   f"(strict=True refuses it)")):
        ad.load(path, strict=True)
    with pytest.raises(ValueError, match="unrecognized attribute: 'armture'"):
        mj_model(path)


def _mujoco_schema():
    """{element path: attributes} from MuJoCo's own schema (``mujoco.mj_printSchema``)."""
    out, stack, cur = {}, [], None
    for line in mujoco.mj_printSchema(False, False).splitlines():
        hit = re.match(r"^( *)(?:\(world\))?([a-z_0-9]+) \(.\)\s*(.*)$", line)
        if hit:
            stack = stack[:len(hit.group(1)) // 3] + [hit.group(2)]
            cur = tuple(stack)
            out[cur] = set(hit.group(3).split())
        elif line.strip():
            out[cur] |= set(line.split())
    return out


def test_schema_is_not_stricter_than_mujoco():
    """Every attribute and child element MuJoCo accepts where artidyn checks is known to artidyn."""
    theirs = _mujoco_schema()
    checked = 0
    for path, attrs in theirs.items():
        if len(path) > 3:
            continue                            # below a geom, a flexcomp or a tendon: not read
        if len(path) == 1:
            key = "mujoco"
        elif path == ("mujoco", "body"):        # MuJoCo prints <worldbody> and <body> as one "(world)body"
            key = "body"
        else:
            key = mjcf_schema.child_key("body" if path[-2] == "body" else path[-2], path[-1])
        if key in mjcf_schema.KNOWN:
            assert attrs <= mjcf_schema.KNOWN[key], (path, attrs - mjcf_schema.KNOWN[key])
            checked += 1
        if key in mjcf_schema.CHILDREN:
            kids = {p[-1] for p in theirs if len(p) == len(path) + 1 and p[:len(path)] == path}
            kids = {"worldbody" if key == "mujoco" and k == "body" else k for k in kids}
            assert kids <= mjcf_schema.CHILDREN[key], (path, kids - mjcf_schema.CHILDREN[key])
    assert checked >= 15


@pytest.mark.parametrize("snippet, where, what", [
    ('<equality><joint joint1="ja" joint2="jb" polycoef="0 1 0.5 0 0"/></equality>', "<joint> attribute 'polycoef'",
     "a nonlinear joint equality"),
    ('<tendon><fixed stiffness="10"><joint joint="ja" coef="1"/></fixed></tendon>', "<fixed>",
     "tendon spring not modelled"),
    ('<default><tendon damping="1"/></default><tendon><fixed range="-1 1"><joint joint="ja" coef="1"/></fixed>'
     '</tendon>', "<fixed>", "tendon damping, limits not modelled"),
    ('<worldbody><body><composite type="cable" count="4 1 1" size="1"/></body></worldbody>', "<composite>",
     "a <composite> makes bodies"),
    ('<worldbody><flexcomp name="f" type="grid" count="3 3 1" spacing="0.1 0.1 0.1" dim="2"/></worldbody>',
     "<flexcomp> 'f'", "a <flexcomp> makes a deformable flex"),
    ('<worldbody><body name="g" gravcomp="1"><joint/><geom size="0.1"/></body></worldbody>', "<body> 'g' attribute "
     "'gravcomp'", "gravity compensation"),
    ('<worldbody><body><joint type="ball" range="0 30"/><geom size="0.1"/></body></worldbody>',
     "<joint> attribute 'range'", "the range of a ball joint (a cone around its reference orientation)"),
    ('<worldbody><replicate count="2" offset="0 0.1 0"><body><joint/><geom size="0.1"/></body></replicate>'
     '</worldbody>', "<replicate>", "the bodies a <replicate> repeats"),
])
def test_not_modelled_features_warn_and_strict_refuses(snippet, where, what):
    text = CHAIN.format(compiler="", option="").replace("</mujoco>", snippet + "</mujoco>")
    m, caught = load(text)
    msgs = of(caught, NotModelledWarning)
    assert len(msgs) == 1 and f"{where}: {what}" in msgs[0], msgs
    assert any(what in n.message and n.kind == "ignored" for n in m.load_report)
    with pytest.raises(ParseError, match=re.escape(what) + r".*\(strict=True refuses it\)"):
        load_mjcf(text, strict=True)


def test_radian_range_that_looks_like_degrees():
    text = '<mujoco><compiler angle="radian"/><worldbody><body><joint name="j" range="-170 170"/>' \
           '<geom size="0.1"/></body></worldbody></mujoco>'
    m, caught = load(text)
    msg = of(caught, PlausibilityWarning)
    assert len(msg) == 1 and "revolute range -170 .. 170 rad looks like degrees" in msg[0]
    assert [n.kind for n in m.load_report if "looks like degrees" in n.message] == ["plausibility"]
    with pytest.raises(ParseError, match="looks like degrees"):
        load_mjcf(text, strict=True)
    m, caught = load(text.replace("radian", "degree"))
    assert not caught and np.isclose(m.upper[0], np.radians(170))
