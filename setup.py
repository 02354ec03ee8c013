"""The optional C extension artidyn._ccall (a low-overhead call of the compiled kernels); the
rest of the build is in pyproject.toml. Without a C compiler the package installs without it
and the bound evaluator calls the kernels through numba's dispatcher."""
from setuptools import Extension, setup

try:                            # numpy's headers: the extension makes its results with numpy's C API
    import numpy
except ImportError:
    numpy = None

setup(ext_modules=[Extension("artidyn._ccall", ["artidyn/_ccall.c"], include_dirs=[numpy.get_include()],
                             optional=True)] if numpy is not None else [])
