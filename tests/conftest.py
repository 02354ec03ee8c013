import os
import pathlib

# one BLAS thread per process: on a 2-core machine shared with numba's threads, OpenBLAS's own
# threads make small factorisations 50x slower (set before numpy loads BLAS)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pytest

# with ARTIDYN_REQUIRE_PEERS=1 (.ci/run), a skip for a missing peer (pinocchio, example-robot-data ...) fails
from peers import pytest_make_collect_report, pytest_runtest_makereport  # noqa: F401,E402


# --- compiled once, before the tests -------------------------------------------------------------
# The installation compiles every numba kernel (artidyn.warmup). Where it could not (sources edited
# since, another NUMBA_CACHE_DIR), the first process compiles them here, before xdist's workers
# start: once, in parallel, instead of once per worker inside the first tests that need them.
# Then no test may compile an artidyn kernel: a compilation means the warm-up misses a kernel (or
# a specialization), which a user's first call would then wait for; the test errors, naming it.

def pytest_sessionstart(session):
    if hasattr(session.config, "workerinput"):       # an xdist worker: the first process did it
        return
    from artidyn import warmup
    if not warmup.is_warm():
        warmup.warm_up()


_COMPILED = []


def _listen_to_compilations():
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev):
            dispatcher = (ev.data or {}).get("dispatcher")
            func = getattr(dispatcher, "py_func", None)
            module = getattr(func, "__module__", "") or ""
            args = str((ev.data or {}).get("args", ""))
            # an object-mode block (the call of a user's Python function from a compiled loop) is
            # lifted and compiled in every process (numba cannot cache it; ~50 ms): not a miss
            if module.startswith("artidyn.") and "ffi_forced_object" not in args:
                _COMPILED.append(f"{module}.{func.__qualname__}{ev.data.get('args', '')}")

        def on_end(self, ev):
            pass

    event.register("numba:compile", Listener())


_listen_to_compilations()


def pytest_configure(config):
    config.addinivalue_line("markers", "compiles: the test compiles numba code on purpose (not an error)")


@pytest.fixture(autouse=True)
def _no_compilation_in_tests(request):
    before = len(_COMPILED)
    yield
    new = _COMPILED[before:]
    if new and request.node.get_closest_marker("compiles") is None:
        pytest.fail(f"compiled at test time (the warm-up, artidyn.warmup, does not reach it): {new[:3]}"
                    + (f" and {len(new) - 3} more" if len(new) > 3 else ""), pytrace=False)


def example_robot_data_dir():
    """Folder of the URDFs shipped by the PyPI package example-robot-data (or None)."""
    try:
        from importlib.metadata import distribution
        dist = distribution("example-robot-data")
    except Exception:
        return None
    for f in dist.files or []:
        s = str(f)
        if s.endswith("package.xml") and "example-robot-data" in s:
            root = pathlib.Path(dist.locate_file(f)).parent / "robots"
            if root.is_dir():
                return root
    return None


ERD = example_robot_data_dir()
ERD_URDFS = sorted(ERD.rglob("*.urdf")) if ERD else []


def erd_urdf(stem):
    """Path of the example-robot-data URDF whose file name is ``stem``.urdf."""
    for p in ERD_URDFS:
        if p.stem == stem:
            return p
    pytest.skip(f"example-robot-data URDF {stem} not available")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def zoo():
    from artidyn.models import zoo as make
    return make(0)
