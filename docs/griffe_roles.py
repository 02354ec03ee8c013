"""Griffe extension for the API pages: Sphinx roles in docstrings become links or code.

The docstrings are numpydoc and refer to other objects with Sphinx roles
(``:func:`~artidyn.dynamics.rnea```, ``:class:`Model```, ``:mod:`.springs```). mkdocstrings does
not read roles, so each one is rewritten before rendering: resolved like Sphinx does (absolute,
then relative to the docstring's module and its parent packages), it becomes a cross-reference
``[`rnea`][artidyn.dynamics.rnea.rnea]`` when the API pages document the target, and plain code
(`` `rnea` ``) otherwise; so ``mkdocs build --strict`` never meets an unresolvable reference.
"""
import importlib
import inspect
import pathlib
import re
import sys

import griffe

DOCS = pathlib.Path(__file__).resolve().parent
ROOT = DOCS.parent
ROLE = re.compile(r":(?:py:)?(func|class|mod|meth|attr|data|exc|obj|const):`([^`]+)`")
DIRECTIVE = re.compile(r"^:::\s+(\S+)", re.M)


def documented_ids():
    """The identifiers the API pages render (their ``::: path`` lines)."""
    ids = set()
    for page in (DOCS / "api").glob("*.md"):
        ids.update(DIRECTIVE.findall(page.read_text(encoding="utf-8")))
    return ids


def _runtime(path, module_first=False):
    """The Python object at a dotted path, or None: attributes first (``artidyn.dynamics.rnea`` is
    the function the package exports, not its module), then modules already imported
    (``module_first``: the module when one has the path, for ``:mod:`` roles). Nothing new is
    imported (some kernel modules compile when imported), so a module no documented package
    imports resolves to None: it is not on the API pages anyway."""
    if module_first and path in sys.modules:
        return sys.modules[path]
    parts = path.split(".")
    obj = sys.modules.get(parts[0])
    if obj is None:
        return None
    for k, name in enumerate(parts[1:], start=2):
        try:
            obj = getattr(obj, name)
        except Exception:
            obj = sys.modules.get(".".join(parts[:k]))
            if obj is None:
                return None
    return obj


def _canonical(obj):
    """Where an object is defined: module.qualname (a module: its name)."""
    if inspect.ismodule(obj):
        return obj.__name__
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if module and qualname and "<" not in qualname:
        return f"{module}.{qualname}"
    return None


def _candidates(target, module_path):
    """Sphinx's search order: absolute, then from the module up (a leading dot: from the module up)."""
    if target.startswith("."):
        target = target.lstrip(".")
        packages = module_path.split(".")
        return [".".join(packages[:k] + [target]) for k in range(len(packages), 0, -1)]
    packages = module_path.split(".")
    return [target] + [".".join(packages[:k] + [target]) for k in range(len(packages), 0, -1)] + [f"artidyn.{target}"]


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles in every docstring into autorefs links or code spans."""

    def __init__(self):
        super().__init__()
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        importlib.import_module("artidyn")        # and with it every documented subpackage
        self.ids = documented_ids()
        self.cache = {}

    def _resolve(self, target, module_path, role="func"):
        key = (target, module_path, role)
        if key not in self.cache:
            found = None
            for path in _candidates(target, module_path):
                obj = _runtime(path, module_first=role == "mod")
                if obj is not None:
                    found = _canonical(obj) or path
                    break
            self.cache[key] = found
        return self.cache[key]

    def _rewrite(self, text, module_path):
        def replace(m):
            target = m.group(2).strip()
            shown = target.lstrip("~").lstrip(".")
            if target.startswith("~"):
                shown = shown.rsplit(".", 1)[-1]
            target = target.lstrip("~")
            path = self._resolve(target, module_path, m.group(1))
            if m.group(1) in ("func", "meth"):
                shown += "()" if not shown.endswith(")") else ""
            if path in self.ids:
                return f"[`{shown}`][{path}]"
            return f"`{shown}`"
        return ROLE.sub(replace, text)

    def on_object(self, *, obj, **kwargs):
        if obj.is_alias or obj.docstring is None:
            return
        module = obj if obj.is_module else obj.module
        obj.docstring.value = self._rewrite(obj.docstring.value, module.path)
