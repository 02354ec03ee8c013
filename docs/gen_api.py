"""Write the API reference pages (docs/api/*.md) from the packages' public names.

    python docs/gen_api.py          # rewrite the pages
    python docs/gen_api.py --check  # exit 1 if a page is out of date (tests/test_docs.py does this)

Each page documents one subpackage: its docstring, then every public function and class (the
names of ``__all__``, or the package's public attributes), by the path where it is defined
(``::: artidyn.dynamics.rnea.rnea``: a function named like its module is otherwise hidden by the
module), functions first. Aliases (``forward_dynamics = aba``) are left to the text. The
top-level page holds the model, the builder, the configuration functions and the errors, and a
table linking every re-exported name to its page.
"""
import importlib
import inspect
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "api"

PACKAGES = {"kinematics": "Kinematics", "dynamics": "Dynamics", "constraints": "Constraints", "contact": "Contact",
            "analytical": "Analytical mechanics", "servo": "Servo-constraints", "identification": "Identification",
            "sim": "Simulation", "ik": "Inverse kinematics", "io": "Model files", "geometry": "Collision geometry",
            "models": "Built-in robots", "spatial": "Spatial algebra", "symbolic": "Symbolic models",
            "interop": "pinocchio and MuJoCo", "viewer": "3D viewer", "distributed": "Distributed batches"}
EXTRA = {"io": [("artidyn.io.urdf", "load_urdf"), ("artidyn.io.urdf", "InertiaRepairWarning"),
                ("artidyn.io.dh", "from_dh"), ("artidyn.io.dh", "to_toml"), ("artidyn.io.srdf", "apply_srdf"),
                ("artidyn.io.srdf", "srdf_disabled_pairs"), ("artidyn.io.srdf", "srdf_configurations")]}
TOP = [("artidyn.model", "Model"), ("artidyn.model", "Frame"), ("artidyn.model", "LoadReport"),
       ("artidyn.builder", "ModelBuilder")]
CONFIGURATION = ["neutral", "random_configuration", "random_velocity", "integrate", "difference", "within_limits"]
ERRORS = ["ArtidynError", "InputError", "ShapeError", "ModelError", "ParseError", "NameNotFound", "SimulationError"]


def _object(module, name):
    return getattr(importlib.import_module(module), name)


def public_items(package):
    """[(defining module, name)] of a subpackage's public functions and classes, functions first."""
    m = importlib.import_module(f"artidyn.{package}")
    names = getattr(m, "__all__", None) or [n for n in dir(m) if not n.startswith("_")]
    items, seen = [], set()
    for n in names:
        o = getattr(m, n)
        if not (inspect.isfunction(o) or inspect.isclass(o)) or o.__name__ != n or id(o) in seen:
            continue
        if package == "io" and inspect.isclass(o) and issubclass(o, BaseException):
            continue                                   # the errors are on the top-level page
        if package == "models" and o.__module__ == "artidyn.builder":
            continue
        seen.add(id(o))
        items.append((o.__module__, n))
    items += EXTRA.get(package, [])
    return sorted(items, key=lambda it: (inspect.isclass(_object(*it)), it[1].lower()))


def package_page(package, items):
    head = (f"# {PACKAGES[package]}: `artidyn.{package}`\n\n[](){{#artidyn.{package}}}\n\n::: artidyn.{package}\n"
            "    options:\n      show_root_heading: false\n      show_root_toc_entry: false\n      members: false\n\n")
    return head + "".join(f"::: {module}.{name}\n\n" for module, name in items)


def top_page(documented):
    import artidyn
    rows = []
    for n in sorted(n for n in dir(artidyn) if not n.startswith("_")):
        o = getattr(artidyn, n)
        if inspect.ismodule(o) or id(o) not in documented:
            continue
        package, path = documented[id(o)]
        rows.append(f"| [`{n}`][{path}] | [{PACKAGES[package]}]({package}.md) |")
    h3 = "    options:\n      heading_level: 3\n\n"
    return ("# The `artidyn` package\n\n[](){#artidyn}\n\n```python\nimport artidyn as ad\n```\n\n"
            "The top-level package re-exports the names most programs need; each is documented on the page\n"
            "of the subpackage that defines it (table below). This page holds the model, its builder, the\n"
            "functions on configurations, and the errors.\n\n"
            "::: artidyn\n    options:\n      show_root_heading: false\n      show_root_toc_entry: false\n"
            "      members: false\n\n## Model and builder\n\n"
            + "".join(f"::: {module}.{name}\n{h3}" for module, name in TOP)
            + "## Loading a model\n\n[`load`][artidyn.io.load] (a file or a name), "
            "[`load_urdf`][artidyn.io.urdf.load_urdf] and [`from_dh`][artidyn.io.dh.from_dh]: see "
            "[Model files](io.md) and [Built-in robots](models.md).\n\n## Configurations\n\n"
            "Floating bases and spherical joints carry quaternions: move on configurations with "
            "`integrate` and `difference`, never `q + v dt`.\n\n"
            + "".join(f"::: artidyn.configuration.{name}\n{h3}" for name in CONFIGURATION)
            + "## Errors\n\nEvery error names the argument, file, line, body or joint and what is wrong.\n\n"
            + "".join(f"::: artidyn.errors.{name}\n{h3}" for name in ERRORS)
            + "## Re-exported names\n\n| name | documented in |\n| --- | --- |\n" + "\n".join(rows) + "\n")


def pages():
    """{file name: Markdown text} of every API page."""
    out, documented = {}, {}
    for package in PACKAGES:
        items = public_items(package)
        out[f"{package}.md"] = package_page(package, items)
        for module, name in items:
            documented.setdefault(id(_object(module, name)), (package, f"{module}.{name}"))
    out["index.md"] = top_page(documented)
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    stale = []
    for name, text in pages().items():
        path = API / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
            if "--check" not in argv:
                path.write_text(text, encoding="utf-8")
    if "--check" in argv and stale:
        print(f"API pages out of date: {', '.join(stale)}; run: python docs/gen_api.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
