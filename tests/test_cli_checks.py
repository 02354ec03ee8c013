"""The command line catches mistakes: joint values outside the limits (a --deg hint), --deg and
--floating-base / --fixed-base on every command that needs them, one rule for example-robot-data
names and paths, helpful --help, the first-use compile notice; and ``artidyn.load`` of MJCF."""
import argparse
import io

import numpy as np
import pytest

import artidyn as ad
from artidyn import cli, firstuse
from artidyn.report import default_posture


def run(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def subcommands():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


# --- joint limits -----------------------------------------------------------------------------
def test_degrees_given_as_radians_are_refused_naming_joint_limits_and_deg(capsys):
    m = ad.load("puma560")
    status, out, err = run(capsys, "fk", "puma560", "--q", "0", "45", "-90", "0", "0", "0")
    assert status == 2 and out == ""
    lo, up = np.degrees(m.lower[1]), np.degrees(m.upper[1])          # joint2: [-45, 225] deg
    assert "joint 'joint2' = 45 rad" in err
    assert f"[{m.lower[1]:.6g}, {m.upper[1]:.6g}] rad" in err
    assert "pass --deg" in err and err.count("\n") == 1
    assert lo <= 45 <= up                                             # ... which --deg fixes


def test_deg_value_outside_limits_names_limits_in_degrees(capsys):
    status, _, err = run(capsys, "fk", "puma560", "--deg", "--q", "0", "250", "0", "0", "0", "0")
    assert status == 2
    assert "joint 'joint2' = 250 deg" in err and "[-45, 225] deg" in err and "--deg" not in err.split("deg]")[-1]


def test_margin_is_1e6_plus_2_percent_of_the_range():
    m = ad.load("puma560")
    lo, up = m.lower[0], m.upper[0]
    tol = cli.LIMIT_MARGIN[0] + cli.LIMIT_MARGIN[1] * (up - lo)
    q = default_posture(m)
    q[0] = up + 0.99 * tol
    cli.check_limits(m, q)                                            # inside the margin: accepted
    q[0] = up + 1.01 * tol
    with pytest.raises(ad.errors.InputError, match="joint1"):
        cli.check_limits(m, q)
    q[0] = lo - 1.01 * tol
    with pytest.raises(ad.errors.InputError, match="joint1"):
        cli.check_limits(m, q)


def test_deg_is_accepted_and_converted_by_fk(capsys):
    m = ad.load("puma560")
    q_deg = [10, 45, -90, 20, 30, 40]
    status, out, _ = run(capsys, "fk", "puma560", "--deg", "--q", *map(str, q_deg))
    assert status == 0
    T = ad.frame_placement(m, np.radians(q_deg), "link6")
    xyz = np.array(out.split("xyz (m):")[1].split("[")[1].split("]")[0].split(), dtype=float)
    assert np.allclose(xyz, T[:3, 3], atol=1e-6)


def test_ignore_limits_accepts_values_outside(capsys):
    status, out, _ = run(capsys, "fk", "puma560", "--ignore-limits", "--q", "0", "4", "0", "0", "0", "0")
    assert status == 0 and "q = [0. 4. 0. 0. 0. 0.]" in out


def test_every_angle_command_takes_deg_and_checks_limits(capsys, tmp_path):
    cmds = subcommands()
    for name in ("fk", "ik", "simulate", "view"):
        assert "--deg" in cmds[name]._option_string_actions, name
    # ik --q0 and simulate --q0 refuse degrees given as radians, before any computation
    status, _, err = run(capsys, "ik", "puma560", "--xyz", "0.5", "0", "0.3", "--q0", "0", "45", "-90", "0", "0", "0")
    assert status == 2 and "--q0: joint 'joint2'" in err and "--deg" in err
    status, _, err = run(capsys, "simulate", "puma560", "--q", "0", "45", "0", "0", "0", "0", "--out", str(tmp_path / "x"))
    assert status == 2 and "--q0: joint 'joint2'" in err and "--deg" in err
    assert not (tmp_path / "x").exists()                  # a refused command leaves no empty folder


def test_simulate_deg_converts_q0_and_v0():
    m = ad.load("cart_pendulum")           # prismatic then revolute: only the angle is converted
    args = cli.build_parser().parse_args(["simulate", "cart_pendulum", "--deg", "--q", "0.5", "90", "--v", "0.1", "180"])
    assert args.deg and args.q0 == ["0.5", "90"] and args.v0 == [0.1, 180]
    assert np.allclose(cli.parse_q(m, args.q0, args.deg), [0.5, np.pi / 2])
    assert np.allclose(cli.parse_v(m, args.v0, args.deg), [0.1, np.pi])


def test_ik_rpy_in_degrees_with_deg():
    from artidyn.ik.commands import _target
    args = cli.build_parser().parse_args(["ik", "puma560", "--xyz", "0.4", "0", "0.3", "--rpy", "90", "0", "0", "--deg"])
    T, kind = _target(args)
    Rx90 = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    assert kind == "pose" and np.allclose(T[:3, :3], Rx90)


def test_panda_default_posture_is_within_its_limits():
    m = ad.load("panda")
    q = default_posture(m)
    assert np.all(q >= m.lower) and np.all(q <= m.upper)
    n = ad.neutral(m)
    outside = (n < m.lower) | (n > m.upper)
    assert outside.sum() == 1 and m.joint_names[1 + int(np.argmax(outside))] == "panda_joint4"
    assert np.allclose(q[outside], (m.lower[outside] + m.upper[outside]) / 2) and np.all(q[~outside] == n[~outside])
    cli.check_limits(m, cli.parse_q(m, None))        # the CLI default is accepted by the CLI's own check


# --- one MODEL argument, one rule for floating bases -----------------------------------------
def test_every_model_command_has_floating_and_fixed_base():
    cmds = subcommands()
    with_model = [n for n, p in cmds.items() if any(a.dest == "model" for a in p._actions)]
    assert {"info", "fk", "ik", "report", "simulate", "torques", "view"} <= set(with_model)
    for name in with_model:
        actions = cmds[name]._option_string_actions
        assert "--floating-base" in actions and "--fixed-base" in actions, name


def test_solo12_by_name_and_by_path_is_the_same_model():
    from artidyn.models import erd
    path = str(erd.example_robot_path("solo12"))
    for fb, nq in ((None, 19), (True, 19), (False, 12)):
        a, b = ad.load("solo12", floating_base=fb), ad.load(path, floating_base=fb)
        assert a.nq == b.nq == nq and a.body_names == b.body_names and a.joint_kind == b.joint_kind
        assert np.array_equal(a.mass, b.mass) and np.array_equal(a.lower, b.lower)
        assert a.postures.keys() == b.postures.keys() and all(np.array_equal(a.postures[k], b.postures[k])
                                                                  for k in a.postures)


def test_cli_floating_flags_reach_every_command(capsys):
    status, out, _ = run(capsys, "info", "solo12", "--fixed-base")
    assert status == 0 and "nq = 12" in out
    status, out, _ = run(capsys, "info", "solo12")
    assert status == 0 and "nq = 19" in out
    from artidyn.models import erd
    status, out, _ = run(capsys, "info", str(erd.example_robot_path("solo12")))
    assert status == 0 and "nq = 19" in out
    status, _, err = run(capsys, "info", "puma560", "--floating-base")       # a DH robot refuses it
    assert status == 2 and "floating_base" in err


def test_a_copied_urdf_follows_the_flag_only(tmp_path):
    from artidyn.models import erd
    copy = tmp_path / "solo12.urdf"
    copy.write_bytes(erd.example_robot_path("solo12").read_bytes())
    assert ad.load(copy).nq == 12 and ad.load(copy, floating_base=True).nq == 19


def test_package_qualified_and_short_names(capsys):
    a = ad.load("anymal_c_simple_description/anymal")
    assert a.nq == 19 and "anymal_c" in str(a.source)
    assert ad.load("anymal_c").source == a.source
    with pytest.raises(ad.errors.NameNotFound, match="anymal_b_simple_description/anymal"):
        ad.load("anymal")
    status, out, _ = run(capsys, "info", "anymal_c_simple_description/anymal")
    assert status == 0


def test_models_is_robots(capsys):
    _, a, _ = run(capsys, "robots")
    _, b, _ = run(capsys, "models")
    assert a == b and "puma560" in a and "solo12 *" in a


def test_every_help_has_a_description_and_an_example(capsys):
    for name, parser in subcommands().items():
        text = parser.format_help()
        assert parser.description, name
        assert "examples:\n  artidyn" in text, name
    ik = subcommands()["ik"].format_help()
    assert ik.count("--xyz X Y Z [--rpy R P Y]") == 0 and ik.count("usage:") == 1


# --- MJCF through artidyn.load ------------------------------------------------------------------
MJCF = """<mujoco model="two">
  <compiler angle="radian"/>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" type="hinge" axis="0 1 0" range="-2 2" limited="true"/>
      <inertial pos="0 0 -0.25" mass="2" diaginertia="0.05 0.04 0.01"/>
      <body name="lower" pos="0 0 -0.5">
        <joint name="elbow" type="hinge" axis="1 0 0"/>
        <inertial pos="0.1 0 -0.2" mass="1" diaginertia="0.02 0.03 0.01"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("suffix", [".xml", ".mjcf"])
def test_load_reads_mjcf_as_mujoco_does(tmp_path, suffix):
    mujoco = pytest.importorskip("mujoco")
    path = tmp_path / f"two{suffix}"
    path.write_text(MJCF)
    m = ad.load(path)
    assert m.nq == 2 and m.joint_names[1:] == ["shoulder", "elbow"] and np.allclose(m.upper[0], 2)
    mj = mujoco.MjModel.from_xml_string(MJCF)
    d = mujoco.MjData(mj)
    q = np.array([0.3, -0.7])
    d.qpos[:] = q
    mujoco.mj_forward(mj, d)
    M = np.zeros((2, 2))
    if hasattr(d, "qM"):          # MuJoCo 3 takes the sparse d.qM, MuJoCo 4 the data
        mujoco.mj_fullM(mj, M, d.qM)
    else:
        mujoco.mj_fullM(mj, d, M)
    assert np.allclose(ad.crba(m, q), M, atol=1e-12)
    assert np.allclose(ad.rnea(m, q, np.zeros(2), np.zeros(2)), d.qfrc_bias, atol=1e-12)


def test_load_refuses_an_xml_file_of_another_kind(tmp_path):
    path = tmp_path / "x.xml"
    path.write_text("<?xml version='1.0'?>\n<!-- c -->\n<scene/>")
    with pytest.raises(ad.errors.ParseError, match="<scene>"):
        ad.load(path)


# --- first use ------------------------------------------------------------------------------------
def test_compile_listener_says_once_after_the_delay_in_all_unless_quiet(monkeypatch):
    import threading
    import time
    monkeypatch.setattr(firstuse, "_said", threading.Event())
    monkeypatch.delenv("ARTIDYN_QUIET", raising=False)
    err = io.StringIO()
    listener = firstuse._Listener(0.2, err)
    for _ in range(3):                                  # three compilations of 0.1 s: 0.3 s in all
        listener.on_start(None)
        listener.on_start(None)                         # a nested compilation (a callee) counts once
        time.sleep(0.1)
        listener.on_end(None)
        listener.on_end(None)
    for _ in range(100):
        if firstuse._said.is_set():
            break
        time.sleep(0.01)
    assert err.getvalue() == firstuse.MESSAGE + "\n"
    assert 0.3 <= listener.seconds() < 1.0
    monkeypatch.setattr(firstuse, "_said", threading.Event())
    monkeypatch.setenv("ARTIDYN_QUIET", "1")
    err = io.StringIO()
    quiet = firstuse._Listener(0.0, err)
    quiet.on_start(None)
    time.sleep(0.05)
    quiet.on_end(None)
    assert err.getvalue() == "" and not firstuse._said.is_set()


def test_clock_stops_while_numba_compiles(monkeypatch):
    import time
    listener = firstuse._Listener(100.0, io.StringIO())
    monkeypatch.setattr(firstuse, "_LISTENER", [listener])
    t0, c0 = time.perf_counter(), firstuse.clock()
    listener.on_start(None)
    time.sleep(0.3)                                     # "compiling"
    listener.on_end(None)
    elapsed, clocked = time.perf_counter() - t0, firstuse.clock() - c0
    assert elapsed >= 0.3 and clocked < elapsed - 0.29


def test_first_compilation_says_so_on_stderr(tmp_path):
    # an empty compile cache: importing the RNEA kernel compiles it (a few seconds) and says so once
    import subprocess
    import sys
    env = {k: v for k, v in __import__("os").environ.items() if k != "ARTIDYN_QUIET"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, "-c", "import artidyn.kernels.rnea"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stderr.count(firstuse.MESSAGE) == 1, out.stderr
