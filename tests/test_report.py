"""The model report (``artidyn report MODEL``, :mod:`artidyn.report`).

* every section on every loadable example-robot-data URDF, fixed base, and floating base for the
  robots that walk or fly (:func:`artidyn.models.erd.default_floating`), with the free fall's
  numbers checked (energy conserved; a floating robot falls by g t²/2 and keeps its shape);
* a section that raises is reported in its place, the rest of the report and report.md survive;
* the free fall's failure handling (the partial result of a SimulationError).
"""
import re
import sys

import numpy as np
import pytest

import artidyn as ad
from artidyn import cli, report
from artidyn.errors import ArtidynError, SimulationError
from artidyn.sim import report_sections as rs
from conftest import ERD

erd = pytest.importorskip("artidyn.models.erd")
simulate_module = sys.modules["artidyn.sim.simulate"]  # the module (``artidyn.sim.simulate`` is the function)

# URDFs of example-robot-data that do not load, on purpose: skipped by name, never silently.
KNOWN_UNLOADABLE = {"ur3": "ur3.urdf (example-robot-data 6.0.0) is an empty xacro left-over: no <link>"}
# Free falls that cannot reach FALL_T: the mass matrix becomes singular on the way (measured).
KNOWN_SINGULAR_FALLS = {
    ("romeo", False): "finger links repaired from zero mass (1e-6 kg, 1e-9 kg m²): M singular at t ~ 0.048 s",
    ("icub", False): "neck: M singular at t ~ 0.0415 s, neck_yaw past 190 rad/s",
}
TITLES = ["Model", "Geometric model at the neutral configuration", "Dynamics at the neutral configuration",
          "Torques along a quintic motion", "Free-fall simulation"]
MUST_WORK = TITLES[2:]

NAMES = erd.example_robot_names() if ERD else []
CASES = [(n, False) for n in NAMES if n not in KNOWN_UNLOADABLE] + \
        [(n, True) for n in NAMES if n not in KNOWN_UNLOADABLE and erd.default_floating(n)]


def number_after(text, label):
    m = re.search(re.escape(label) + r"\s*([-+0-9.e]+|inf)", text)
    assert m, f"'{label}' not in the report"
    return float(m.group(1))


def headings(text):
    return re.findall(r"^## (.*)$", text, flags=re.M)


def free_fall_part(text):
    return text[text.index("## Free-fall simulation"):]


def test_example_robot_list():
    if not ERD:
        pytest.skip("example-robot-data not installed")
    assert set(KNOWN_UNLOADABLE) <= set(NAMES)
    assert len(CASES) >= 90, len(CASES)  # 68 fixed + the floating ones (example-robot-data 6.0.0)


@pytest.mark.parametrize("name", sorted(KNOWN_UNLOADABLE))
def test_known_unloadable_robots_exit_2_with_one_line(name, capsys):
    if not ERD:
        pytest.skip("example-robot-data not installed")
    with pytest.raises(ArtidynError):
        erd.example_robot(name)
    assert cli.main(["report", name, "--no-files"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("artidyn: error: ") and err.count("\n") == 1 and "no <link>" in err


@pytest.mark.parametrize("name, floating", CASES, ids=[f"{n}-{'floating' if f else 'fixed'}" for n, f in CASES])
def test_report_every_example_robot(name, floating, monkeypatch):
    # the falls of the small robots run on the compiled engine here (the readable loop would add a minute to
    # the suite); the two routes give the same text: test_report_text_is_the_same_on_both_fall_routes
    monkeypatch.setattr(rs, "REFERENCE_FALL_NV", 0)
    model = erd.example_robot(name, floating_base=floating)
    failed = []
    text = report.build_report(model, failed=failed)
    assert failed == [] and report.FAILED not in text
    found = headings(text)
    for title in TITLES:
        assert any(h.startswith(title) for h in found), (title, found)
    fall = free_fall_part(text)
    if model.nv == 0:
        assert "no degree of freedom" in fall
        return
    assert f"method '{rs.FALL_METHOD}'" in fall and "rtol = 1e-07, atol = 1e-09" in fall
    assert "sampled every 0.01 s" in fall
    stopped = "The integration stopped" in fall
    if stopped:
        assert (name, floating) in KNOWN_SINGULAR_FALLS, fall
        assert "Shown: the samples it completed" in fall and "condition number" in fall
    else:
        assert "41 samples to t = 0.4 s" in fall
    assert number_after(fall, "J,") < 1e-5  # max |E - E0| / max kinetic energy
    if floating:
        assert number_after(fall, "(difference") < 1e-6       # base origin vs g t^2 / 2
        if model.nv > 6:
            assert number_after(fall, "largest displacement of the other joints:") < 1e-6
        else:
            assert "largest displacement of the other joints: none (no other joint)" in fall
    if np.any(model.damping) or np.any(model.coulomb):
        assert "joint friction" in fall and "is left out" in fall


@pytest.mark.parametrize("name, floating", [("ur5_robot", False), ("solo12", True), ("solo12", False)])
def test_report_text_is_the_same_on_both_fall_routes(name, floating, monkeypatch):
    model = erd.example_robot(name, floating_base=floating)
    assert model.nv <= rs.REFERENCE_FALL_NV or floating
    text = report.build_report(model)
    monkeypatch.setattr(rs, "REFERENCE_FALL_NV", 0 if model.nv <= rs.REFERENCE_FALL_NV else 100)  # the other route
    other = report.build_report(model)
    # the same words and the same numbers, but for round-off (the energy error of a free fall is round-off)
    number = r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
    assert re.split(number, other) == re.split(number, text)
    for a, b in zip(re.findall(number, other), re.findall(number, text)):
        assert float(a) == pytest.approx(float(b), rel=1e-5, abs=1e-12), (a, b)


@pytest.mark.parametrize("name", ["z1", "talos_full_v2"])
def test_cli_report_writes_plots(name, tmp_path, capsys):
    """Two robots whose report failed before (fixed 0.01 s RK4 step): z1 fixed, TALOS floating."""
    if not ERD:
        pytest.skip("example-robot-data not installed")
    assert cli.main(["report", name, "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "warning" not in captured.err and "Traceback" not in captured.err
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == captured.out
    for png in ("torques_quintic.png", "free_fall_energy.png"):
        assert (tmp_path / png).read_bytes()[:4] == b"\x89PNG"
        assert f"![{png}]({png})" in captured.out


def test_failing_section_reported_in_place(monkeypatch, tmp_path, capsys):
    def broken(model, ctx):
        raise ZeroDivisionError("boom in the middle")
    broken.title = "Broken thing"

    def untitled(model, ctx):
        """Untitled section.

        More text."""
        raise KeyError("no such frame 'x'")

    sections = report.SECTIONS[:1] + [broken] + report.SECTIONS[1:] + [
        untitled, "artidyn.not_written_yet:section", "artidyn.report:no_such_function"]
    monkeypatch.setattr(report, "SECTIONS", sections)
    assert cli.main(["report", "puma560", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "## Broken thing\n\nThis section failed: ZeroDivisionError: boom in the middle\n" in out
    assert "## Untitled section\n\nThis section failed: KeyError: no such frame 'x'\n" in out
    assert "## no_such_function\n\nThis section failed: AttributeError:" in out
    assert headings(out)[:2] == ["Model", "Broken thing"]
    for title in TITLES:  # every real section is still there, complete
        assert any(h.startswith(title) for h in headings(out))
    assert "| tool " in out and "41 samples to t = 0.4 s" in out
    assert (tmp_path / "report.md").read_text(encoding="utf-8") == out
    assert (tmp_path / "free_fall_energy.png").exists()
    err = captured.err
    assert "Traceback" not in err
    warning = [ln for ln in err.splitlines() if ln.startswith("artidyn: warning:")]
    assert len(warning) == 1 and "3 report section(s) failed" in warning[0]
    assert "'Broken thing' (ZeroDivisionError)" in warning[0] and "'no_such_function' (AttributeError)" in warning[0]

    assert cli.main(["report", "puma560", "--no-files", "--traceback"]) == 0
    err = capsys.readouterr().err
    assert "Traceback" in err and "boom in the middle" in err and "--- section 'Broken thing'" in err


def test_build_report_failed_list(monkeypatch):
    def broken(model, ctx):
        raise RuntimeError("nope")
    monkeypatch.setattr(report, "SECTIONS", [broken, "artidyn.report:model_section"])
    failed = []
    text = report.build_report(ad.models.pendulum(), failed=failed)
    assert [(f.title, type(f.error)) for f in failed] == [("broken", RuntimeError)]
    assert "RuntimeError: nope" in failed[0].traceback
    assert "## broken\n\nThis section failed: RuntimeError: nope" in text and "## Model" in text


def test_free_fall_failure_names_the_section(monkeypatch):
    def exploding(*args, **kwargs):
        raise RuntimeError("solver exploded")
    monkeypatch.setattr(simulate_module, "simulate", exploding)
    failed = []
    text = report.build_report(ad.models.puma560(), failed=failed)
    assert [f.title for f in failed] == ["Free-fall simulation"]
    assert "## Free-fall simulation\n\nThis section failed: RuntimeError: solver exploded" in text
    assert "`artidyn simulate MODEL`" in text
    assert "## Torques along a quintic motion" in text


def test_model_that_cannot_load(monkeypatch, capsys):
    def missing(name):
        raise ImportError("the example robots need the package example-robot-data")
    monkeypatch.setattr(cli, "model_from", missing)
    assert cli.main(["report", "solo12", "--no-files"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("artidyn: error: cannot load model 'solo12': ImportError: ") and err.count("\n") == 1


# --- the free fall's handling of integration failures --------------------------------------------
def test_free_fall_partial_result(monkeypatch):
    """An error carrying the samples done so far (the simulator's SimulationError): shown, and why."""
    real = simulate_module.simulate
    model = ad.models.puma560()

    def stops_at_0_1(m, q0, t_final=1.0, **kwargs):
        partial = real(m, q0, t_final=0.1, **kwargs)
        raise SimulationError("simulate: the state became NaN at t = 0.105 s", result=partial)
    monkeypatch.setattr(simulate_module, "simulate", stops_at_0_1)
    text = free_fall_part(report.build_report(model))
    assert "**The integration stopped before t = 0.4 s**: SimulationError: simulate: the state became NaN" in text
    assert "11 samples to t = 0.1 s" in text and "Shown: the samples it completed, to t = 0.1 s" in text
    assert "condition number" in text and report.FAILED not in text


def test_free_fall_gives_up_on_other_errors(monkeypatch):
    def typo(*args, **kwargs):
        raise TypeError("simulate() got an unexpected keyword argument 'rtol'")
    monkeypatch.setattr(simulate_module, "simulate", typo)
    failed = []
    report.build_report(ad.models.pendulum(), failed=failed)
    assert [(f.title, type(f.error)) for f in failed] == [("Free-fall simulation", TypeError)]


def test_free_fall_drops_friction_and_says_so():
    model = ad.models.pendulum(m=1.0, l=1.0, g=9.81)
    model = model.replace(damping=np.full(model.nv, 2.0), coulomb=np.full(model.nv, 0.5))
    text = free_fall_part(report.build_report(model))
    assert "viscous damping up to 2 N·m·s/rad, Coulomb friction up to 0.5 N·m) is left out" in text
    assert number_after(text, "J,") < 1e-6  # no dissipation: the friction is out


def test_no_degree_of_freedom():
    if not ERD:
        pytest.skip("example-robot-data not installed")
    text = report.build_report(erd.example_robot("iris_simple", floating_base=False))
    for title in MUST_WORK:
        assert f"## {title}\n\nThe model has no degree of freedom (nv = 0)" in text
