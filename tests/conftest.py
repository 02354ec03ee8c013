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
