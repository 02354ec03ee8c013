"""The command line: info, fk, report (in-process), errors, plug-in subcommands, python -m."""
import subprocess
import sys

import numpy as np
import pytest

import artidyn as ad
from artidyn import cli, report
from artidyn.io.dh import to_toml


def numbers_after(out, label):
    line = next(ln for ln in out.splitlines() if ln.startswith(label))
    return np.array(line.split("[", 1)[1].split("]", 1)[0].split(), dtype=float)


def test_info_puma560(capsys):
    assert cli.main(["info", "puma560"]) == 0
    out = capsys.readouterr().out
    for text in ("joint6", "link6", "Denavit-Hartenberg table (classic", "0.4318", "Load report", "-2.79253"):
        assert text in out, text


def test_fk_matches_frame_placement(capsys):
    assert cli.main(["fk", "puma560", "--q", "0", "90", "-90", "0", "45", "10", "--deg"]) == 0
    out = capsys.readouterr().out
    model = ad.models.puma560()
    q = np.radians([0, 90, -90, 0, 45, 10])
    T = ad.frame_placement(model, q, "link6")
    assert "frame 'link6'" in out
    assert np.allclose(numbers_after(out, "xyz"), T[:3, 3], atol=1e-6)
    R = ad.spatial.rpy_to_matrix(numbers_after(out, "rpy (rad)"))
    assert np.allclose(R, T[:3, :3], atol=1e-5)
    assert np.allclose(ad.spatial.quat_to_matrix(numbers_after(out, "quaternion")), T[:3, :3], atol=1e-5)


def test_fk_planar2r_tool_analytic(capsys):
    assert cli.main(["fk", "planar2r", "--q", "0.3,0.4", "--frame", "tool"]) == 0
    xyz = numbers_after(capsys.readouterr().out, "xyz")
    assert np.allclose(xyz, [np.cos(0.3) + np.cos(0.7), np.sin(0.3) + np.sin(0.7), 0], atol=1e-6)


def test_report_in_process_and_out_dir(capsys, tmp_path):
    assert cli.main(["report", "puma560", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    model = ad.models.puma560()
    assert out.startswith("# artidyn report: puma560") and "## Geometric model" in out
    for f in model.frames:
        assert f"| {f.name} " in out
    assert (tmp_path / "report.md").read_text() == out
    # the tool frame at q = 0 (values printed with 6 digits)
    T = ad.frame_placement(model, np.zeros(6), "tool")
    row = next(ln for ln in out.splitlines() if ln.startswith("| tool "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert np.allclose([float(c) for c in cells[3:6]], T[:3, 3], atol=1e-5)


def test_commands_on_a_toml_file(capsys, tmp_path):
    path = tmp_path / "rx.toml"
    path.write_text(to_toml(ad.models.rx90()))
    assert cli.main(["info", str(path)]) == 0
    assert "Denavit-Hartenberg table (modified" in capsys.readouterr().out
    assert cli.main(["fk", str(path), "--q", "0 0 0 0 0 0", "--frame", "dh4"]) == 0
    assert np.allclose(numbers_after(capsys.readouterr().out, "xyz"), [0.5, 0, 0.5], atol=1e-9)
    assert cli.main(["report", str(path), "--no-files"]) == 0
    assert "# artidyn report: rx90" in capsys.readouterr().out


@pytest.mark.parametrize("argv, match", [
    (["info", "puma56"], "did you mean 'puma560'"),
    (["fk", "puma560", "--q", "1", "2"], "--q has 2 values, model 'puma560' needs nq = 6"),
    (["fk", "puma560", "--q", "1", "2", "x", "4", "5", "6"], "numbers expected"),
    (["fk", "puma560", "--frame", "tol"], "did you mean 'tool'"),
    (["info", "missing_file.toml"], "missing_file.toml: no such model file"),
])
def test_errors_one_line_exit_2(capsys, argv, match):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("artidyn: error: ") and match in err and err.count("\n") == 1 and "Traceback" not in err


def test_plugin_registry(tmp_path, monkeypatch, capsys):
    (tmp_path / "fake_cmds_ok.py").write_text(
        "def register(sub):\n"
        "    p = sub.add_parser('hello')\n"
        "    p.set_defaults(func=lambda args: print('hello from plugin'))\n")
    (tmp_path / "fake_cmds_broken.py").write_text("import not_a_module_artidyn_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli, "COMMAND_MODULES", ["artidyn.not_written_yet.commands", "fake_cmds_ok"])
    assert cli.main(["hello"]) == 0 and "hello from plugin" in capsys.readouterr().out
    monkeypatch.setattr(cli, "COMMAND_MODULES", ["fake_cmds_broken"])
    with pytest.raises(ModuleNotFoundError, match="not_a_module_artidyn_xyz"):
        cli.main(["info", "pendulum"])


def test_report_sections_extend(monkeypatch, tmp_path):
    def extra(model, ctx):
        (ctx.out_dir / "extra.txt").write_text(model.name)
        ctx.files.append("extra.txt")
        return f"## Extra\n\nnb = {model.nb}"
    monkeypatch.setattr(report, "SECTIONS", report.SECTIONS + [extra, "artidyn.not_written_yet:section"])
    text = report.build_report(ad.models.pendulum(), tmp_path)
    assert text.rstrip().endswith("## Extra\n\nnb = 1")
    assert (tmp_path / "extra.txt").read_text() == "pendulum"


def test_python_dash_m_report(tmp_path):
    """The README's main job, as a user runs it: writes report.md and the PNG plots in ./artidyn-report."""
    res = subprocess.run([sys.executable, "-m", "artidyn", "report", "puma560"], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("# artidyn report: puma560") and "| dh6 " in res.stdout
    out = tmp_path / "artidyn-report"
    assert (out / "report.md").read_text(encoding="utf-8") == res.stdout
    for png in ("torques_quintic.png", "free_fall_energy.png"):
        assert (out / png).stat().st_size > 1000


def test_robots_lists_every_name_load_accepts(capsys):
    """`artidyn robots` lists the built-ins and the example-robot-data robots (floating marked);
    each listed name loads."""
    from artidyn.models import builtin, erd
    assert cli.main(["robots"]) == 0
    out = capsys.readouterr().out
    names = erd.example_robot_names()
    assert len(names) > 0 and f"example-robot-data ({len(names)} robots" in out
    for name in builtin.names():
        assert f"  {name}\n" in out
        assert ad.load(name).nv > 0
    for name in names[:5]:
        assert (f"  {name} *\n" if erd.default_floating(name) else f"  {name}\n") in out
    assert "  solo12 *\n" in out


def test_a_closed_pipe_is_not_an_error():
    """`artidyn robots | head -1`: the reader leaves early; no 'Broken pipe' message, status 0."""
    script = ("import sys, artidyn.cli as c\n"
              "def big(args):\n    for i in range(100000): print('x' * 60)\n"     # far more than a pipe holds
              "c.cmd_robots = big\nsys.exit(c.main(['robots']))\n")
    p = subprocess.run(f"{sys.executable} -c \"{script}\" | head -1", shell=True, capture_output=True, text=True)
    assert p.stdout.startswith("x") and p.stderr == ""
