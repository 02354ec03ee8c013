"""The documentation: the site builds with ``mkdocs build --strict`` (any warning fails), the
API pages list every public name (docs/gen_api.py writes them), and every ```python block of
README.md and of the docs pages runs.

Each page's blocks run in order in one namespace, in a temporary working directory (files a
block writes do not land in the checkout); the tutorials end with assertions against closed
forms, so running them checks their numbers. A block is left out only when its first line is
the visible marker ``# docs-test: skip -- <reason>`` (the reason is required).
"""
import importlib.util
import inspect
import os
import pathlib
import re
import subprocess
import sys
import traceback

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
SKIP = re.compile(r"#\s*docs-test:\s*skip\b\s*(?:--|:)?\s*(.*)")
PAGES = [ROOT / "README.md"] + sorted(DOCS.rglob("*.md"))


def code_blocks(path):
    """(first line number, source) of each ```python block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start()) + 2, m.group(1)) for m in FENCE.finditer(text)]


def skip_reason(source):
    """The reason given by a block's skip marker (its first line), None when it has none."""
    first = source.lstrip("\n").split("\n", 1)[0]
    m = SKIP.match(first.strip())
    if m is None:
        return None
    assert len(m.group(1).strip()) >= 10, f"skip marker without a reason: {first!r}"
    return m.group(1).strip()


def _env():
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def test_site_builds_strict(tmp_path):
    missing = [m for m in ("mkdocs", "material", "mkdocstrings_handlers") if importlib.util.find_spec(m) is None]
    assert not missing, f"{missing} not installed: install the test extra (pip install -e '.[test]') to build the docs"
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(site)], cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    log = proc.stdout + proc.stderr
    warnings = [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert proc.returncode == 0 and not warnings, "mkdocs build --strict failed:\n" + log[-6000:]
    # every page of the navigation was written, and the API pages hold the docstrings
    for page in ("conventions", "benchmarks", "tutorials/pendulum", "api/dynamics"):
        assert (site / page / "index.html").is_file(), page
    api = (site / "api" / "dynamics" / "index.html").read_text(encoding="utf-8")
    assert 'id="artidyn.dynamics.rnea.rnea"' in api and "Inverse dynamics" in api


def test_api_pages_list_every_public_name():
    """The API pages are written by docs/gen_api.py from the packages' public names."""
    spec = importlib.util.spec_from_file_location("gen_api", DOCS / "gen_api.py")
    gen_api = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_api)
    stale = [name for name, text in gen_api.pages().items()
             if not (DOCS / "api" / name).is_file() or (DOCS / "api" / name).read_text(encoding="utf-8") != text]
    assert not stale, f"API pages out of date: {stale}; run: python docs/gen_api.py"


def test_public_names_stay_what_they_are_after_their_modules_load():
    """A public name that shares its module's name (a function ``f`` in ``pkg/f.py``) becomes the
    module once that module is imported (Python binds a submodule on its package): every public
    name of every subpackage must be the same object on first and second access, and never a
    module, after all of the subpackage's modules are imported."""
    import pkgutil

    spec = importlib.util.spec_from_file_location("gen_api", DOCS / "gen_api.py")
    gen_api = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen_api)
    for package in gen_api.PACKAGES:
        m = importlib.import_module(f"artidyn.{package}")
        names = getattr(m, "__all__", None) or [n for n in dir(m) if not n.startswith("_")]
        first = {n: getattr(m, n) for n in names}
        for info in pkgutil.iter_modules(m.__path__):
            importlib.import_module(f"artidyn.{package}.{info.name}")
        for n in names:
            again = getattr(m, n)
            assert again is first[n] or inspect.ismodule(first[n]), f"artidyn.{package}.{n} changed on import"
            assert not inspect.ismodule(again) or inspect.ismodule(first[n]), f"artidyn.{package}.{n} is a module"


def test_skip_marker_needs_a_reason():
    assert skip_reason("x = 1\n") is None
    assert skip_reason("# docs-test: skip -- needs a robot arm on the network\nconnect()\n") == \
        "needs a robot arm on the network"
    with pytest.raises(AssertionError, match="without a reason"):
        skip_reason("# docs-test: skip\nx = 1\n")


def test_every_page_has_a_title_and_tutorials_assert():
    for page in sorted(DOCS.rglob("*.md")):
        assert page.read_text(encoding="utf-8").startswith("# "), f"{page}: no title on the first line"
    for page in sorted((DOCS / "tutorials").glob("*.md")):
        if page.name == "index.md":
            continue
        blocks = [src for _, src in code_blocks(page)]
        assert blocks and "assert " in blocks[-1], f"{page.name}: the last block checks no number"


@pytest.mark.parametrize("page", [p for p in PAGES if code_blocks(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_code_blocks_run(page, tmp_path, monkeypatch):
    blocks = code_blocks(page)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.syspath_prepend(str(ROOT))
    namespace = {"__name__": "__docs__"}
    name = page.relative_to(ROOT)
    for line, source in blocks:
        if skip_reason(source) is not None:
            continue
        try:
            exec(compile(source, f"{name}:{line}", "exec"), namespace)
        except Exception:
            pytest.fail(f"{name}: the block at line {line} fails:\n{traceback.format_exc(limit=-4)}", pytrace=False)
