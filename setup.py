"""The optional C extension artidyn._ccall (a low-overhead call of the compiled kernels); the
rest of the build is in pyproject.toml. Without a C compiler the package installs without it
and the bound evaluator calls the kernels through numba's dispatcher."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("artidyn._ccall", ["artidyn/_ccall.c"], optional=True)])
