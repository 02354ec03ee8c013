"""The build backend of artidyn: setuptools', plus the compilation of the numba kernels at an
editable installation (``pip install -e .``), so that a user's first call finds them compiled.

After setuptools has built the editable wheel, the source tree is the installed package: the
warm-up (:mod:`artidyn.warmup`, two processes on two cores) runs in it with the build
environment's numba, numpy and scipy (``[build-system] requires``) and writes numba's cache beside
the sources, where the installed package reads it. numba keys that cache on its own version: when
the build environment got the same numba as the installation (the usual case, both resolved from
the same index at the same moment), nothing compiles at first use; otherwise the kernels compile
then, with a line on stderr, or ahead with ``artidyn compile``.

A warm-up that fails never fails the installation. ``ARTIDYN_NO_WARMUP=1`` skips it. Its lines
go to stderr (pip shows them with ``-v``) and to the terminal when there is one, since pip keeps a
build's output to itself while it runs.
"""
import os
import subprocess
import sys
import time

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (every hook but build_editable as setuptools has it)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _terminal():
    try:
        tty = open("/dev/tty", "w")
        tty.write("\n")            # off the line of pip's spinner
        return tty
    except OSError:
        return None


def _tell(tty, line):
    print(line, file=sys.stderr, flush=True)
    if tty is not None:
        try:
            tty.write(line + "\n")
            tty.flush()
        except OSError:
            pass


def warm_up():
    """Run ``python -m artidyn.warmup`` on the source tree; never raises."""
    if os.environ.get("ARTIDYN_NO_WARMUP", "").strip().lower() not in ("", "0", "false", "no"):
        return
    tty = _terminal()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT] + [p for p in os.environ.get("PYTHONPATH", "")
                                                              .split(os.pathsep) if p]))
    t0 = time.perf_counter()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "artidyn.warmup"], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in proc.stdout:
            _tell(tty, line.rstrip())
        proc.wait()
        if proc.returncode:
            _tell(tty, f"artidyn: the warm-up stopped (exit {proc.returncode}); the kernels compile at their "
                       f"first call instead, or run `artidyn compile`")
    except Exception as exc:     # the installation goes on
        _tell(tty, f"artidyn: no warm-up ({type(exc).__name__}: {exc}); the kernels compile at first use, "
                   f"or run `artidyn compile`")
    else:
        _tell(tty, f"artidyn: warm-up done in {time.perf_counter() - t0:.0f} s")
    finally:
        if tty is not None:
            tty.close()


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    warm_up()
    return name
