"""Numba's on-disk cache, keyed on every compiled source file of artidyn rather than on one.

Numba (``cache=True``) revalidates a cached function against the modification stamp of the file
that defines it, not of the files that define the functions it calls: after an edit of
``spatial.py``, the cached ``rnea_single`` (in ``rnea.py``) would load, stale; after an edit of
``ik/_lm.py``, the cached batch IK of ``ik/_batch.py`` would. Every function of the compiled
modules below is therefore cached with one stamp made of all of them: an edit of any compiled
module recompiles every kernel once.

The compiled modules: every module of this package (but the Python-side ones), and those of
:data:`ELSEWHERE` (a test checks that every artidyn module that caches numba code is covered).
"""
import os

from numba.core import caching

_DIR = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_DIR)
_NOT_COMPILED = {"__init__.py", "dispatch.py", "_cache.py"}
ELSEWHERE = ("ik/_kernels.py", "ik/_lm.py", "ik/_batch.py")   # relative to the artidyn package


def compiled_files():
    """Absolute paths of every compiled module covered by the stamp, sorted."""
    out = [os.path.join(_DIR, n) for n in os.listdir(_DIR) if n.endswith(".py") and n not in _NOT_COMPILED]
    out += [os.path.join(_ROOT, *rel.split("/")) for rel in ELSEWHERE]
    return sorted(out)


_COVERED = frozenset(compiled_files())


def package_stamp():
    """(name, mtime, size) of every compiled module."""
    out = []
    for path in compiled_files():
        st = os.stat(path)
        out.append((os.path.relpath(path, _ROOT), st.st_mtime, st.st_size))
    return tuple(out)


def _for_this_package(base):
    class Locator(base):
        artidyn_kernels = True

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.abspath(py_file) not in _COVERED:
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return package_stamp()

    Locator.__name__ = Locator.__qualname__ = f"ArtidynKernels{base.__name__}"
    return Locator


def install():
    """Put the package-wide locators ahead of numba's own (once), and the listener that says so on
    stderr when a kernel compiles rather than loads (:mod:`artidyn.firstuse`)."""
    from ..firstuse import install_listener
    install_listener()
    classes = caching.CacheImpl._locator_classes
    if not any(getattr(k, "artidyn_kernels", False) for k in classes):
        bases = (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator)
        classes[:0] = [_for_this_package(b) for b in bases]


install()
