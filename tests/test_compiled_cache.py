"""Numba's on-disk cache never serves stale code: one stamp covers every compiled module of every
package, so that an edit of a callee (in another file than the cached caller) is seen."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import artidyn
from artidyn.kernels import _cache

PKG = pathlib.Path(artidyn.__file__).parent


def test_every_module_that_caches_compiled_code_is_in_the_stamp():
    def caches(text):
        return "numba" in text and re.search(r"cache\s*=\s*True", text) is not None

    cached = sorted(str(p) for p in PKG.rglob("*.py")
                    if p.name != "_cache.py" and caches(p.read_text(encoding="utf-8")))
    assert len(cached) >= 10                                   # the kernels and the IK modules
    covered = set(_cache.compiled_files())
    assert [p for p in cached if p not in covered] == []
    assert {os.path.relpath(p, PKG) for p in covered} >= {"ik/_lm.py", "ik/_batch.py", "kernels/rnea.py"}


PROBE_CALLEE = '''

@njit(cache=True)
def _probe_value():
    return {value}
'''
PROBE_CALLER = '''

@njit(cache=True)
def _probe():
    return _probe_value() + 0


from ._lm import _probe_value  # noqa: E402
'''


def _run(root):
    code = "from artidyn.ik._batch import _probe; print(_probe())"
    env = dict(os.environ, PYTHONPATH=str(root), NUMBA_CACHE_DIR="")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return int(out.stdout.split()[-1])


def test_an_edit_of_a_callee_in_another_file_is_picked_up(tmp_path):
    """A cached caller in ik/_batch.py calls a function of ik/_lm.py: after an edit of _lm.py alone,
    the next process gets the new value (numba alone would load the stale caller from the cache)."""
    root = tmp_path / "copy"
    shutil.copytree(PKG, root / "artidyn", ignore=shutil.ignore_patterns("__pycache__"))
    lm, batch = root / "artidyn" / "ik" / "_lm.py", root / "artidyn" / "ik" / "_batch.py"
    base = lm.read_text(encoding="utf-8")
    lm.write_text(base + PROBE_CALLEE.format(value=1), encoding="utf-8")
    batch.write_text(batch.read_text(encoding="utf-8") + PROBE_CALLER, encoding="utf-8")
    assert _run(root) == 1
    assert any((root / "artidyn" / "ik" / "__pycache__").glob("_batch._probe*.nbi"))   # cached on disk
    assert _run(root) == 1                                                           # served from the cache
    lm.write_text(base + PROBE_CALLEE.format(value=22), encoding="utf-8")             # only the callee's file
    assert _run(root) == 22
