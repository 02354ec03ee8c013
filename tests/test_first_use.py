"""First use: the warm-up that the installation runs, its groups and marker, the build backend that
calls it, and the messages a new user meets (a robot name without example-robot-data)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import artidyn as ad
from artidyn import warmup
from artidyn.errors import NameNotFound


def test_every_group_runs_and_the_suite_started_warm():
    # the conftest warmed up (or the installation did) for these very sources: nothing compiles now
    assert warmup.is_warm(), warmup.marker()
    out = warmup.warm_up(jobs=1, names=["dynamics", "ik"], stream=open(os.devnull, "w"))
    assert set(out) == {"dynamics", "ik"} and all(err is None for _, err in out.values())


def test_unknown_group_is_refused():
    with pytest.raises(ValueError, match="unknown job.*known: dynamics"):
        warmup.warm_up(names=["dynamcis"])


def test_marker_follows_the_sources(monkeypatch, tmp_path):
    # another cache folder is another marker; an edit of a compiled module is another fingerprint
    first = warmup.marker()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    assert warmup.marker().startswith(str(tmp_path)) and not warmup.is_warm()
    from artidyn.kernels import _cache
    stamp = _cache.package_stamp()
    monkeypatch.setattr(_cache, "package_stamp", lambda: stamp[:-1] + ((stamp[-1][0], 0.0, stamp[-1][2]),))
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert warmup.marker() != first


def test_a_failing_group_is_reported_and_writes_no_marker(monkeypatch, tmp_path):
    import io
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))

    def broken():
        raise RuntimeError("no luck")

    monkeypatch.setitem(warmup.JOBS, "ik", broken)
    err = io.StringIO()
    out = warmup.warm_up(jobs=1, names=["ik"], stream=err)
    assert out["ik"][1] == "RuntimeError: no luck"
    assert "FAILED (RuntimeError: no luck); these kernels compile at first use instead" in err.getvalue()
    assert not os.path.exists(warmup.marker())


def test_cli_compile_runs_the_warm_up():
    out = subprocess.run([sys.executable, "-m", "artidyn", "compile", "--only", "ik", "--jobs", "1"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "[1/1] ik           ready" in out.stderr


def test_build_backend_warms_up_an_editable_install(monkeypatch):
    # the backend's warm-up runs `python -m artidyn.warmup` on the source tree and never raises
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "buildtools"))
    try:
        import artidyn_build
    finally:
        sys.path.pop(0)
    calls = []

    class Proc:
        stdout = iter(["artidyn:   [1/1] ik ready\n"])
        returncode = 0

        def __init__(self, argv, **kw):
            calls.append((argv, kw["cwd"], kw["env"]["PYTHONPATH"]))

        def wait(self):
            return 0

    monkeypatch.setattr(artidyn_build.subprocess, "Popen", Proc)
    monkeypatch.setattr(artidyn_build, "_terminal", lambda: None)
    monkeypatch.delenv("ARTIDYN_NO_WARMUP", raising=False)
    artidyn_build.warm_up()
    (argv, cwd, path), = calls
    assert argv[1:] == ["-m", "artidyn.warmup"] and path.split(os.pathsep)[0] == cwd == artidyn_build.ROOT
    monkeypatch.setenv("ARTIDYN_NO_WARMUP", "1")
    artidyn_build.warm_up()
    assert len(calls) == 1

    def fail(*a, **k):
        raise OSError("no interpreter")

    monkeypatch.setattr(artidyn_build.subprocess, "Popen", fail)
    monkeypatch.delenv("ARTIDYN_NO_WARMUP")
    artidyn_build.warm_up()          # said, not raised


def test_pyproject_builds_with_the_backend_and_the_warm_up_needs():
    import tomllib
    with open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyproject.toml"), "rb") as fh:
        build = tomllib.load(fh)["build-system"]
    assert build["build-backend"] == "artidyn_build" and build["backend-path"] == ["buildtools"]
    needs = {r.split(">")[0].split(";")[0].strip() for r in build["requires"]}
    assert {"numba", "numpy", "scipy", "defusedxml"} <= needs


# --- robots by name --------------------------------------------------------------------------------
def test_example_robot_without_the_package_names_it_and_the_command(monkeypatch):
    from artidyn.models import erd

    def missing():
        raise ImportError("the example robots need the package example-robot-data")

    monkeypatch.setattr(erd, "example_robot_names", missing)
    with pytest.raises(NameNotFound, match=r"'ur5_robot' is a robot of the package example-robot-data, which is "
                                           r"not installed: pip install example-robot-data"):
        ad.load("ur5_robot")
    with pytest.raises(NameNotFound, match="anymal_c"):
        ad.load("anymal_c")
    with pytest.raises(NameNotFound, match=r"not_a_robot.*need `pip install example-robot-data`"):
        ad.load("not_a_robot")


def test_known_names_are_the_package_names():
    from artidyn.models import erd
    assert erd.KNOWN_NAMES == set(erd.example_robot_names())


def test_example_robots_are_named_as_asked():
    # solo12's URDF says robot name="solo", which is also the 8-dof robot's: the model says solo12
    solo12, solo = ad.load("solo12"), ad.load("solo")
    assert (solo12.name, solo.name) == ("solo12", "solo") and solo12.nv == 18 and solo.nv == 14
    assert ad.load("anymal_c").name == ad.load("anymal_c_simple_description/anymal").name == "anymal_c"
    assert ad.load("talos").name == "talos_reduced"
    assert np.isfinite(ad.crba(solo12, ad.neutral(solo12))).all()


# --- threads ---------------------------------------------------------------------------------------
def test_threads_settable_and_checked():
    n = ad.get_num_threads()
    try:
        ad.set_num_threads(1)
        assert ad.get_num_threads() == 1
        model = ad.load("puma560")
        Q = ad.random_configuration(model, rng=0, size=300)
        Z = np.zeros((300, model.nv))
        one = ad.rnea(model, Q, Z, Z)
    finally:
        ad.set_num_threads(n)
    assert np.array_equal(one, ad.rnea(model, Q, Z, Z))
    for bad in (0, 10_000, 1.5, "2"):
        with pytest.raises(ad.InputError, match="set_num_threads: n"):
            ad.set_num_threads(bad)


def test_run_chunks_on_threads_in_order_and_within_the_count():
    """The heavier batches run their chunks on Python threads (artidyn.threads.run_chunks): every
    chunk once, the results in chunk order, at most get_num_threads() threads at once (the caller
    one of them), a chunk's exception raised after the others stopped, one thread when set so."""
    import threading
    import time

    from artidyn import threads
    lock, busy, most, where = threading.Lock(), [0], [0], set()

    def chunk(scale, c, m):
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
            where.add(threading.get_ident())
        time.sleep(0.002)               # releases the GIL, as a compiled chunk does
        with lock:
            busy[0] -= 1
        return scale * c + m

    assert threads.run_chunks(chunk, 24, 10) == [10 * c + 24 for c in range(24)]     # ~50 ms: room for a late helper
    assert most[0] <= ad.get_num_threads()
    if ad.get_num_threads() > 1:
        assert most[0] >= 2 and len(where) >= 2      # the threads worked at once
    n = ad.get_num_threads()
    try:
        ad.set_num_threads(1)
        where.clear()
        assert threads.run_chunks(chunk, 5, 1) == [c + 5 for c in range(5)]
        assert where == {threading.get_ident()}
    finally:
        ad.set_num_threads(n)

    def faulty(c, m):
        time.sleep(0.001)
        if c == 3:
            raise ZeroDivisionError("chunk 3")
        return c

    with pytest.raises(ZeroDivisionError, match="chunk 3"):
        threads.run_chunks(faulty, 8)
    assert threads.chunks(1) == 1 and threads.chunks(10) == min(10, ad.get_num_threads())
    assert threads.chunks(10_000) == 4 * ad.get_num_threads()


def test_openmp_waits_briefly_unless_the_environment_says(monkeypatch):
    from artidyn import threads
    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    threads.configure_openmp()
    assert os.environ["GOMP_SPINCOUNT"] == threads.SPINCOUNT
    monkeypatch.delenv("GOMP_SPINCOUNT")
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")
    threads.configure_openmp()
    assert "GOMP_SPINCOUNT" not in os.environ
    monkeypatch.setenv("GOMP_SPINCOUNT", "12")
    threads.configure_openmp()
    assert os.environ["GOMP_SPINCOUNT"] == "12"


def test_warm_up_says_when_the_c_extension_is_missing(monkeypatch):
    import io
    err = io.StringIO()
    monkeypatch.setattr(warmup, "_c_extension", lambda: False)
    warmup.warm_up(jobs=1, names=["ik"], stream=err)
    assert "C extension artidyn._ccall is not built" in err.getvalue() and "numba's dispatcher" in err.getvalue()
    monkeypatch.setattr(warmup, "_c_extension", lambda: True)
    err = io.StringIO()
    warmup.warm_up(jobs=1, names=["ik"], stream=err)
    assert "C extension" not in err.getvalue()


def test_reported_run_time_leaves_the_compilation_out(monkeypatch):
    # a listener that says 5 s of compiling happened during the run: the run's wall time (which the
    # CLI prints) is the elapsed time less those 5 s
    import time

    from artidyn import firstuse

    class Compiled5s:
        calls = 0

        def seconds(self):
            Compiled5s.calls += 1
            return 0.0 if Compiled5s.calls == 1 else 5.0

    monkeypatch.setattr(firstuse, "_LISTENER", [Compiled5s()])
    model = ad.load("pendulum")
    t0 = time.perf_counter()
    res = ad.simulate(model, np.array([0.5]), t_final=0.1, dt=1e-3)
    elapsed = time.perf_counter() - t0
    assert Compiled5s.calls >= 2
    assert res.wall_time <= elapsed - 5.0 + 1e-9
