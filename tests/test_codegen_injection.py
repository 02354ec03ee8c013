"""Hostile names in every generator: a model, body, joint or frame name from a file reaches the
generated code and text only escaped (security, issue 35 item 1).

Each test builds the same small arm twice, once with benign names and once with names that carry
a payload (a newline followed by Python, ``*/`` followed by C, ``</script>``, Markdown and LaTeX
structure), then checks that the generated code still compiles, loads and gives the same numbers,
that the payload did not run (no marker file, no exported C symbol, the process lives on), and
that the name still shows, escaped, where it showed before.
"""
import ctypes
import io
import json
import re
import subprocess
import sys
from contextlib import redirect_stdout

import numpy as np
import pytest

import artidyn as ad
from artidyn import cli
from artidyn.symbolic import codegen, escape, models

# Bodies, joints and frames refuse control characters (readers and builder); model names do not.
PART = ("l */ int artidyn_injected = 1; /* \"\"\" ''' \\ $\\frac{$ </Script><b>x</b> | ` [a](b) # ~~s~~ "
        "\u2028\u202e\x85 é")
C_PAYLOAD = "*/ int artidyn_injected = 1; /*"


def model_name(marker):
    """A model name whose newline, in a Python comment, would run code that creates ``marker``
    (and whose ``*/``, in a C comment, would compile a global)."""
    return (f"arm {C_PAYLOAD} \"\"\" ''' \\ $\\frac$ </ScRiPt><script>alert(1)</script> <b>|` \x1b[31m "
            f"\u2028\u202e é\nopen({str(marker)!r}, 'w').close()  #\r# \\")


def arm(name="arm", part="l"):
    """A 2-dof arm (axes along y: gravity acts) with a tool frame; names built from ``part``."""
    b = ad.ModelBuilder(name=name)
    b.add_body(f"{part}1", "world", "revolute", joint_name=f"{part}j1", axis=(0, 1, 0), mass=1.0,
               com=(0.5, 0, 0), inertia=np.eye(3) * 0.02)
    b.add_body(f"{part}2", f"{part}1", "revolute", joint_name=f"{part}j2", axis=(0, 1, 0), xyz=(1.0, 0, 0),
               mass=0.5, com=(0.4, 0, 0.1), inertia=np.diag([0.01, 0.02, 0.03]))
    b.add_frame(f"{part}tool", f"{part}2", xyz=(0.8, 0, 0))
    return b.build()


def states(n=5):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 2)), rng.normal(size=(n, 2)), rng.normal(size=(n, 2))


def symbolic_models(m, part):
    """The symbolic models whose titles hold names: inverse dynamics (model name), placement and
    Jacobian (frame name too)."""
    return [models.inverse_dynamics(m), models.placement(m, f"{part}tool"), models.jacobian(m, f"{part}tool")]


def evaluate(f, sm):
    Q, V, A = states()
    return f(*[Q, V, A][:len(sm.inputs)])


def assert_comment_lines(src, prefix, benign_src):
    """The hostile source is the benign one but for its first (comment) line."""
    lines, benign = src.splitlines(), benign_src.splitlines()
    assert lines[0].startswith(prefix) and lines[1:] == benign[1:]


# --- the helpers ------------------------------------------------------------------------------

def test_escape_helpers():
    assert escape.one_line("a\nb\r\x00\u2028\u202e") == "a\\nb\\r\\x00\\u2028\\u202e"
    assert escape.one_line("é", ascii_only=True) == "\\xe9" and escape.one_line("é") == "é"
    c = escape.c_comment("x */ y /*/ z **/ é\n")
    assert "*/" not in c and "\n" not in c and c.isascii()
    md = escape.markdown("<script>|`$x_1$*[a](b)\\ &amp;\n# h")
    assert not re.search(r"[<>\n]", md) and not re.search(r"(?<!\\)[|`$*_\[\]]", md)
    assert "&lt;script&gt;" in md and "&amp;amp;" in md
    assert escape.markdown("- item").startswith("\\-") and escape.markdown("1. x").startswith("1\\.")
    assert escape.markdown_code("a ``b`` c") == "```a ``b`` c```" and escape.markdown_code("`x") == "`` `x ``"
    for text, ident in (("ur5 arm", "ur5_arm"), ("5dof", "_5dof"), ("for", "for_"), ("np", "np_"),
                        ("double", "double_"), ("__x", "f_x"), ("", "_")):
        assert escape.identifier(text) == ident
        assert escape.function_name(ident) == ident
    for bad in ("a b", "x;y", "../../evil", "for", "np", "double", "__x", "", 3):
        with pytest.raises(ad.InputError, match="identifier"):
            escape.function_name(bad)


# --- the Python and numba backends ------------------------------------------------------------

@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_python_backends_with_hostile_builder_names(tmp_path, backend):
    marker = tmp_path / "payload-ran"
    hostile, benign = arm(model_name(marker), PART), arm()
    to_source = {"numpy": "to_python", "numba": "to_numba"}[backend]
    for sm, ref in zip(symbolic_models(hostile, PART), symbolic_models(benign, "l")):
        np.testing.assert_array_equal(evaluate(sm.lambdify(backend), sm), evaluate(ref.lambdify(backend), ref))
        assert not marker.exists()
        src = getattr(sm, to_source)()
        assert_comment_lines(src, "# ", getattr(ref, to_source)())
        assert escape.comment(hostile.name) in src.splitlines()[0]
    assert escape.comment(f"{PART}tool") in symbolic_models(hostile, PART)[2].to_python()


def test_lambdify_survives_a_newline_payload_in_a_subprocess(tmp_path):
    """``os._exit(3)`` after a newline in an MJCF model name: the process must finish normally."""
    path = tmp_path / "exit.xml"
    write_mjcf(path, "m&#10;import os; os._exit(3)  #")
    code = (f"import artidyn as ad\nfrom artidyn.symbolic import models\nm = ad.load({str(path)!r})\n"
            "sm = models.inverse_dynamics(m)\n"
            "for b in ('numpy', 'numba'):\n    sm.lambdify(b)([0.1], [0.2], [0.3])\n"
            "exec(sm.to_python(), {})\nprint('survived')\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and "survived" in res.stdout, res.stderr[-2000:]


# --- the C backend ----------------------------------------------------------------------------

def test_c_backend_with_hostile_names(tmp_path, monkeypatch):
    """One C build holding every hostile name (model and frame): ``*/`` must not end the comment,
    so ``artidyn_injected`` is not a symbol of the library."""
    monkeypatch.setenv("ARTIDYN_CACHE", str(tmp_path / "cache"))
    hostile, benign = arm(model_name(tmp_path / "m"), PART), arm()
    sm, ref = models.jacobian(hostile, f"{PART}tool"), models.jacobian(benign, "ltool")
    fn = codegen.load_c(sm)
    with pytest.raises(AttributeError):
        fn._lib.artidyn_injected
    np.testing.assert_array_equal(evaluate(sm.lambdify("c"), sm), evaluate(ref.lambdify("numpy"), ref))
    src = sm.to_c()
    assert_comment_lines(src, "/* ", ref.to_c())
    head = src.splitlines()[0]
    assert head.endswith(" */") and head.count("*/") == 1 and head.isascii()
    assert escape.c_comment(hostile.name) in head and escape.c_comment(f"{PART}tool") in head


def test_function_name_is_checked(tmp_path, monkeypatch):
    """The generated function's name becomes code and a file name in the cache: identifiers only."""
    monkeypatch.setenv("ARTIDYN_CACHE", str(tmp_path / "cache"))
    sm = models.gravity(arm())
    for bad in ("f(){} int x", "../../f", "np", "void"):
        for make in (sm.to_python, sm.to_numba, sm.to_c):
            with pytest.raises(ad.InputError, match="identifier"):
                make(bad)
        with pytest.raises(ad.InputError, match="identifier"):
            codegen.compile_c("int x;", bad)
    assert "def arm_2(" in sm.to_python("arm_2") and "void arm_2_batch(" in sm.to_c("arm_2")


# --- LaTeX and Markdown -----------------------------------------------------------------------

def test_latex_and_markdown_with_hostile_names(tmp_path):
    hostile, benign = arm(model_name(tmp_path / "m"), PART), arm()
    for sm, ref in zip(symbolic_models(hostile, PART), symbolic_models(benign, "l")):
        tex = sm.to_latex()
        assert_comment_lines(tex, "% ", ref.to_latex())
        assert escape.comment(hostile.name) in tex.splitlines()[0]
        md = sm.to_markdown()
        assert_comment_lines(md, "### ", ref.to_markdown())
        title = md.splitlines()[0]
        assert not re.search(r"[<>]", title) and not re.search(r"(?<!\\)[|`$\[\]]", title)
        assert escape.markdown(hostile.name) in title and "&lt;/ScRiPt&gt;" in title
    assert escape.markdown(f"{PART}tool") in symbolic_models(hostile, PART)[1].to_markdown()


# --- names read from files, and the command line ------------------------------------------------

def write_urdf(path, robot, part):
    """A 1-dof URDF; ``robot`` and ``part`` are XML attribute text (escaped by the caller)."""
    path.write_text(f"""<robot name="{robot}">
  <link name="base"/>
  <link name="{part}">
    <inertial><mass value="1"/><origin xyz="0.5 0 0"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="j {part}" type="revolute"><parent link="base"/><child link="{part}"/>
    <axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="10" velocity="5"/></joint>
</robot>
""")
    return path


def write_mjcf(path, model):
    """A 1-dof MJCF whose ``<mujoco model>`` is ``model`` (XML attribute text)."""
    path.write_text(f"""<mujoco model="{model}">
  <worldbody><body name="b1"><joint name="j1" type="hinge" axis="0 1 0"/>
    <geom type="sphere" size="0.1" mass="1" pos="0.5 0 0"/></body></worldbody>
</mujoco>
""")
    return path


XML_PART = "l */ int artidyn_injected = 1; /* &quot;&quot;&quot; \\ $\\frac$ &lt;/Script&gt; | ` é"


def test_readers_accept_the_names_they_should(tmp_path):
    """URDF names keep ``*/``, quotes, ``</script>``, ``$`` and ``\\``; a newline is refused in URDF
    names but kept in an MJCF model name, the path the newline payloads take."""
    m = ad.load(write_urdf(tmp_path / "a.urdf", XML_PART, XML_PART))
    part = XML_PART.replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
    assert m.name == part and part in m.body_names and f"j {part}" in m.joint_names
    with pytest.raises(ad.ParseError, match="control character"):
        ad.load(write_urdf(tmp_path / "nl.urdf", "r&#10;x", "l"))
    assert ad.load(write_mjcf(tmp_path / "m.xml", "m&#10;x")).name == "m\nx"


def run_cli(argv):
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(argv) == 0
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["python", "numba", "c", "latex", "markdown", "ops"])
def test_cli_symbolic_formats_with_hostile_file_names(tmp_path, monkeypatch, fmt):
    """`artidyn symbolic FILE --format F` prints what the (tested) generators write: the names
    escaped, the printed Python harmless to run, the printed C free of injected code."""
    monkeypatch.setenv("ARTIDYN_CACHE", str(tmp_path / "cache"))
    marker = tmp_path / "payload-ran"
    mjcf = write_mjcf(tmp_path / "m.xml", f"m {C_PAYLOAD}&#10;open({str(marker)!r}, 'w').close()  #")
    urdf = write_urdf(tmp_path / "u.urdf", XML_PART, XML_PART)
    for path, what in ((mjcf, "id"), (urdf, "fk")):
        m = ad.load(path)
        sm = models.inverse_dynamics(m) if what == "id" else models.placement(m, m.body_names[-1])
        text = run_cli(["symbolic", str(path), "--what", what, "--format", fmt])
        expected = {"python": sm.to_python, "numba": sm.to_numba, "c": sm.to_c, "latex": sm.to_latex,
                    "markdown": sm.to_markdown}.get(fmt)
        if expected is not None:
            assert text == expected() + "\n"
        else:
            assert text.count("\n") == 1 and escape.one_line(m.name) in text
        assert not re.search(r"^(open|\*/)", text, re.M)          # no payload starts a line
        if fmt == "python":
            exec(text, {})
        if fmt == "c":
            lib = ctypes.CDLL(codegen.compile_c(text))
            with pytest.raises(AttributeError):
                lib.artidyn_injected
    assert not marker.exists()


# --- the viewer page and the identification report ---------------------------------------------

def test_viewer_page_with_hostile_names(tmp_path):
    """Names are JSON inside an inline <script>: ``</Script>`` in any case must not end it."""
    m = ad.load(write_urdf(tmp_path / "a.urdf", "r &lt;/ScRiPt&gt;&lt;script&gt;alert(1)&lt;/script&gt;",
                           "l &lt;/SCRIPT&gt; &lt;!-- &lt;script&gt; &amp;amp;"))
    text = ad.view(m, path=tmp_path / "v.html").read_text(encoding="utf-8")
    block = re.search(r'<script id="artidyn-scene" type="application/json">(.*?)</script', text, re.S | re.I)
    data = json.loads(block.group(1))
    assert data["name"] == m.name and data["bodies"] == list(m.body_names)
    assert "<" not in block.group(1)
    title = re.search(r"<title>(.*?)</title>", text, re.S).group(1)
    assert "<" not in title and "&lt;/ScRiPt&gt;" in title
    assert len(re.findall(r"<script\b", text, re.I)) == 3 == len(re.findall(r"</script", text, re.I))


def test_identification_report_with_hostile_names(tmp_path):
    """The report is Markdown: names in headings, table cells, the fenced expressions and the
    physical estimate's list stay text; the plots show ``$\\frac$`` names instead of failing."""
    from artidyn.identification import FourierTrajectory, identify, physical_estimate
    from artidyn.identification.excitation import dof_names
    from artidyn.identification.report import write_report
    m = arm(model_name(tmp_path / "m"), PART)
    rng = np.random.default_rng(0)
    traj = FourierTrajectory(rng.normal(0, .5, (2, 3)), rng.normal(0, .5, (2, 3)), np.zeros(2), 2 * np.pi / 4)
    t = np.arange(0, 4, 0.01)
    q, qd, qdd = traj(t)
    ident = identify(m, q, ad.rnea(m, q, qd, qdd), qd=qd, qdd=qdd, base="qr", exclude=("offset",))
    physical = physical_estimate(m, ident)
    path = write_report(ident, tmp_path / "rep", dof_names(m), physical, source="data `x`\n<b>.csv")
    md = path.read_text()
    data_line = escape.markdown_code("data `x`\n<b>.csv")          # a code span: its text is literal
    fence = md.split("```")                                        # a code block: literal too
    assert data_line in md and len(fence) == 3
    assert all(ln.startswith("beta") for ln in fence[1].strip().splitlines())
    assert not re.search("<(b|/?script)", (fence[0] + fence[2]).replace(data_line, ""), re.I)
    assert md.splitlines()[0] == f"# Identification of '{escape.markdown(m.name)}'"
    assert f"| {escape.markdown(f'{PART}j1')} |" in md
    rows = [ln for ln in md.splitlines() if ln.startswith("| ")]
    for table in (rows[:2 + len(ident.names)], rows[2 + len(ident.names):]):
        cells = {len(re.findall(r"(?<!\\)\|", ln)) for ln in table}
        assert len(cells) == 1, table
    assert escape.one_line(f"{PART}1.mcx") in fence[1]
    assert any(escape.markdown(f"{PART}1.{p}") in fence[2] for p in ("m", "mcx", "mcy", "mcz", "XX", "ZZ"))
    for png in ("parameters.png", "residuals.png", "torques.png"):
        assert (tmp_path / "rep" / png).stat().st_size > 1000


def test_model_report_escapes_names_in_its_markdown():
    import re

    from artidyn.report import build_report
    b = ad.ModelBuilder("rep|<b>ort\n# injected")
    b.add_body("l|nk<img>", "world", "revolute", joint_name="j|`x`", axis=(0, 0, 1), mass=1.0,
               inertia=np.eye(3) * 1e-2)
    text = build_report(b.build(), out_dir=None)
    outside, fenced = [], False                      # inside ``` fences, HTML is shown as text
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            outside.append(line)
        assert not line.startswith("# injected")
    assert not fenced and not any("<b>" in x or "<img>" in x for x in outside)
    assert text.splitlines()[0] == r"# artidyn report: rep\|&lt;b&gt;ort\n# injected"
    pipes = lambda line: len(re.findall(r"(?<!\\)\|", line))      # noqa: E731  (unescaped ones)
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    named = [t for t in tables if any("nk&lt;img&gt;" in row for row in t)]
    assert named, "the body's table"
    for t in tables:
        assert len({pipes(row) for row in t}) == 1, t          # no name adds a column


def test_plots_show_names_with_dollars_as_text(tmp_path):
    # a joint named like TeX math: drawn as its text, not parsed (which failed the figure)
    from artidyn.sim.plots import plot_result, plot_torques
    b = ad.ModelBuilder("tex")
    b.add_body("l1", "world", "revolute", joint_name=r"j$\frac$1", axis=(0, 0, 1), mass=1.0, com=(0.1, 0, 0),
               inertia=np.eye(3) * 1e-2)
    model = b.build()
    run = ad.simulate(model, np.array([0.3]), t_final=0.05, dt=1e-3)
    plot_result(run, tmp_path / "run.png", model=model)
    plot_torques(run.t, run.tau, [r"j$\frac$1"], tmp_path / "tau.png", model=model)
    assert (tmp_path / "run.png").stat().st_size > 0 and (tmp_path / "tau.png").stat().st_size > 0
