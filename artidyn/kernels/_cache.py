"""Numba's on-disk cache, keyed on every kernel source file rather than on one.

Numba (``cache=True``) revalidates a cached function against the modification stamp of the file
that defines it, not of the files that define the functions it calls: after an edit of
``spatial.py``, the cached ``rnea_single`` (in ``rnea.py``) would load, stale. Functions of this
package are therefore cached with a stamp made of all the package's compiled modules: an edit of
any of them recompiles every kernel once.
"""
import os

from numba.core import caching

_DIR = os.path.dirname(os.path.abspath(__file__))
_NOT_COMPILED = {"__init__.py", "dispatch.py", "_cache.py"}


def package_stamp():
    """(name, mtime, size) of every compiled module of the package."""
    out = []
    for name in sorted(os.listdir(_DIR)):
        if name.endswith(".py") and name not in _NOT_COMPILED:
            st = os.stat(os.path.join(_DIR, name))
            out.append((name, st.st_mtime, st.st_size))
    return tuple(out)


def _for_this_package(base):
    class Locator(base):
        artidyn_kernels = True

        @classmethod
        def from_function(cls, py_func, py_file):
            if os.path.dirname(os.path.abspath(py_file)) != _DIR:
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return package_stamp()

    Locator.__name__ = Locator.__qualname__ = f"ArtidynKernels{base.__name__}"
    return Locator


def install():
    """Put the package-wide locators ahead of numba's own (once)."""
    classes = caching.CacheImpl._locator_classes
    if not any(getattr(k, "artidyn_kernels", False) for k in classes):
        bases = (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator, caching.UserWideCacheLocator)
        classes[:0] = [_for_this_package(b) for b in bases]


install()
