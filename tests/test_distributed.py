"""artidyn.distributed on a local Dask cluster of 2 worker processes: the numbers of the in-process
batch, chunk by chunk (chunks that do not divide N), Dask arrays in and out, errors naming the chunk."""
import pickle

import numpy as np
import pytest

import artidyn as ad
import artidyn.distributed as dist

pytest.importorskip("distributed", reason="dask.distributed is the optional extra 'distributed'")
import dask  # noqa: E402
import dask.array as da  # noqa: E402

N = 257        # chunk=100: chunks of 100, 100, 57


@pytest.fixture(scope="module")
def client():
    c = dist.client(n_workers=2, threads_per_worker=1)
    yield c
    c.close()


@pytest.fixture(scope="module", params=["ur5_robot", "solo12"])
def states(request):
    m = ad.load(request.param)
    rng = np.random.default_rng(7)
    Q = ad.random_configuration(m, rng=rng, size=N)
    V, A = rng.normal(size=(N, m.nv)), rng.normal(size=(N, m.nv))
    return m, Q, V, A


def test_dynamics_equal_in_process(client, states):
    m, Q, V, A = states
    tau = dist.rnea(m, Q, V, A, chunk=100)
    assert isinstance(tau, np.ndarray) and tau.shape == (N, m.nv)
    np.testing.assert_array_equal(tau, ad.rnea(m, Q, V, A))
    np.testing.assert_array_equal(dist.aba(m, Q, V, tau, chunk=100), ad.aba(m, Q, V, tau))
    np.testing.assert_array_equal(dist.crba(m, Q, chunk=100), ad.crba(m, Q))
    # a cross-check of the gathered chunks: aba undoes rnea
    np.testing.assert_allclose(dist.aba(m, Q, V, tau, chunk=100), A, rtol=1e-9, atol=1e-9)


def test_derivatives_equal_in_process(client, states):
    m, Q, V, A = states
    Q, V, A = Q[:60], V[:60], A[:60]
    for got, ref in zip(dist.rnea_derivatives(m, Q, V, A, chunk=25), ad.rnea_derivatives(m, Q, V, A)):
        np.testing.assert_array_equal(got, ref)
    for got, ref in zip(dist.aba_derivatives(m, Q, V, A, chunk=25), ad.aba_derivatives(m, Q, V, A)):
        np.testing.assert_array_equal(got, ref)


def test_kinematics_and_regressor_equal_in_process(client):
    m = ad.load("ur5_robot")
    rng = np.random.default_rng(3)
    Q = ad.random_configuration(m, rng=rng, size=90)
    V, A = rng.normal(size=(90, m.nv)), rng.normal(size=(90, m.nv))
    np.testing.assert_array_equal(dist.body_placements(m, Q, chunk=40), ad.body_placements(m, Q))
    np.testing.assert_array_equal(dist.frame_placement(m, Q, "tool0", chunk=40), ad.frame_placement(m, Q, "tool0"))
    np.testing.assert_array_equal(dist.jacobian(m, Q, "tool0", expressed="local", chunk=40),
                                  ad.jacobian(m, Q, "tool0", expressed="local"))
    Y = dist.regressor(m, Q, V, A, chunk=40)
    np.testing.assert_array_equal(Y, ad.identification.regressor(m, Q, V, A))
    # a single state (no batch axis) goes to every chunk
    z = np.zeros(m.nv)
    np.testing.assert_array_equal(dist.rnea(m, Q, z, z, chunk=40), ad.rnea(m, Q, z, z))
    np.testing.assert_allclose(dist.rnea(m, Q, z, z, chunk=40), ad.gravity_torque(m, Q), rtol=1e-12, atol=1e-12)


def test_rollout_equal_in_process(client, states):
    m, Q, V, _ = states
    Q0, V0 = Q[:9], 0.1 * V[:9]
    tau = np.random.default_rng(1).normal(size=(9, m.nv))       # one constant torque per run
    # in process first: the engine compiled once and cached on disk, where the workers find it
    ref = ad.rollout(m, Q0, V0, tau=tau, t_final=0.05, dt=1e-3)
    got = dist.rollout(m, Q0, V0, tau=tau, t_final=0.05, dt=1e-3, chunk=4)
    np.testing.assert_array_equal(got.t, ref.t)
    for k in ("q", "v", "a", "tau"):
        np.testing.assert_array_equal(getattr(got, k), getattr(ref, k))
    np.testing.assert_array_equal(got.energy.total, ref.energy.total)
    np.testing.assert_array_equal(got.stats["dynamics_evaluations"], ref.stats["dynamics_evaluations"])
    assert got.method == ref.method and got.q.shape[:2] == (9, 51)


def test_contact_rollout_over_dask_equals_in_process(client):
    """A contact scene (balls dropped on the ground under a PD) in chunks on the workers: the numbers
    of the in-process rollout (to the rounding of the compiled Delassus products)."""
    from artidyn.contact import ContactSettings
    from artidyn.geometry import HalfSpace, Sphere
    from artidyn.sim import PD
    b = ad.ModelBuilder("ball")
    b.add_body("ball", "world", "free", mass=1.0, inertia=np.eye(3) * 4e-3)
    b.add_collision("ball", Sphere(0.1))
    b.add_collision("world", HalfSpace())
    m = b.build()
    Q = np.repeat(ad.neutral(m)[None], 7, axis=0)
    Q[:, 2] = np.linspace(0.11, 0.3, 7)
    kw = dict(t_final=0.05, contact=ContactSettings(friction=0.5), controller=PD(10.0, 1.0, Q[0]))
    ref = ad.rollout(m, Q, None, **kw)
    got = dist.rollout(m, Q, None, chunk=3, **kw)
    np.testing.assert_allclose(got.q, ref.q, atol=1e-12, rtol=0)
    np.testing.assert_allclose(got.contact_forces, ref.contact_forces, atol=1e-8, rtol=0)
    np.testing.assert_array_equal(got.stats["status"], 0)
    assert got.method == "moreau_jean" and got.q.shape == (7, 51, 7)


def test_rollout_limit_events_counted_in_the_batch(client):
    m = ad.load("ur5_robot")
    Q0 = np.tile(ad.neutral(m), (5, 1))
    V0 = np.zeros((5, m.nv))
    Q0[[1, 3], 2] = m.upper[2] - 1e-3                 # the elbow starts just below its limit, moving up
    V0[[1, 3], 2] = 1.0
    with pytest.warns(ad.sim.JointLimitWarning) as got_w:
        got = dist.rollout(m, Q0, V0, t_final=0.02, dt=1e-3, friction=False, chunk=2)
    with pytest.warns(ad.sim.JointLimitWarning) as ref_w:
        ref = ad.rollout(m, Q0, V0, t_final=0.02, dt=1e-3, friction=False)
    assert sorted({e.run for e in got.limit_events}) == [1, 3]
    assert got.limit_events == ref.limit_events
    assert str(got_w[0].message) == str(ref_w[0].message)


def test_scheduler_address_and_model_sent_once(client):
    m = ad.load("ur5_robot")
    Q = ad.random_configuration(m, rng=6, size=30)
    V = np.zeros((30, m.nv))
    from artidyn.distributed._core import model_future

    f = model_future(client, m)
    assert model_future(client, m) is f and f.status == "finished"
    other = dist.client(address=client.scheduler.address, set_as_default=False)
    try:
        np.testing.assert_array_equal(dist.rnea(m, Q, V, V, chunk=7, client=other), ad.rnea(m, Q, V, V))
        assert model_future(other, m).key != f.key      # one copy per client
    finally:
        other.close()
    assert len(client.scheduler_info()["workers"]) == 2   # the cluster outlives the second client


def test_dask_in_dask_out(client, states):
    m, Q, V, A = states
    dQ, dV, dA = da.from_array(Q, chunks=70), da.from_array(V, chunks=(70, -1)), da.from_array(A, chunks=128)
    tau = dist.rnea(m, dQ, dV, dA)
    assert dask.is_dask_collection(tau)
    assert tau.chunks == ((70, 70, 70, 47), (m.nv,))              # the chunks of q (v, a rechunked)
    np.testing.assert_array_equal(tau.compute(), ad.rnea(m, Q, V, A))
    M = dist.crba(m, dQ, chunk=100)                                 # chunk= rechunks
    assert M.chunks == ((100, 100, 57), (m.nv,), (m.nv,))
    dq, dv, Mr = dask.compute(*dist.rnea_derivatives(m, dQ[:80], dV[:80], dA[:80]))
    for got, ref in zip((dq, dv, Mr), ad.rnea_derivatives(m, Q[:80], V[:80], A[:80])):
        np.testing.assert_array_equal(got, ref)


def test_dask_rollout_is_lazy(client):
    m = ad.load("ur5_robot")
    Q0 = ad.random_configuration(m, rng=5, size=6)
    lazy = dist.rollout(m, da.from_array(Q0, chunks=4), None, tau=0.0, t_final=0.02, dt=1e-3)
    assert dask.is_dask_collection(lazy.q) and lazy.q.chunks[0] == (4, 2)
    ref = ad.rollout(m, Q0, None, tau=0.0, t_final=0.02, dt=1e-3)
    got = dist.compute(lazy)
    np.testing.assert_array_equal(got.q, ref.q)
    np.testing.assert_array_equal(got.energy.kinetic, ref.energy.kinetic)


def test_bad_input_names_the_chunk(client):
    m = ad.load("solo12")
    Q = ad.random_configuration(m, rng=2, size=50)
    V = np.zeros((50, m.nv))
    Q[33, 9] = np.nan                                               # chunk 3 of chunks of 10
    with pytest.raises(ad.InputError) as ref:
        ad.rnea(m, Q, V, V)
    with pytest.raises(ad.InputError) as got:
        dist.rnea(m, Q, V, V, chunk=10)
    assert "chunk 3 (states 30 to 39 of 50)" in str(got.value)
    assert str(ref.value) in str(got.value)                         # state 33, counted in the whole batch
    with pytest.raises(ad.InputError) as got_dask:
        dist.rnea(m, da.from_array(Q, chunks=10), V, V).compute()
    assert "chunk 3" in str(got_dask.value) and str(ref.value) in str(got_dask.value)
    Q[33, 9] = 0.0
    Q[45, 3:7] *= 2.0                                               # not a unit quaternion, chunk 4
    with pytest.raises(ad.InputError) as ref:
        ad.crba(m, Q)
    with pytest.raises(ad.InputError) as got:
        dist.crba(m, Q, chunk=10)
    assert "chunk 4" in str(got.value) and str(ref.value) in str(got.value)


def test_arguments_checked_before_sending(client):
    m = ad.load("ur5_robot")
    Q = ad.random_configuration(m, rng=0, size=20)
    with pytest.raises(ad.NameNotFound):
        dist.frame_placement(m, Q, "no_such_frame", chunk=5)
    with pytest.raises(ad.ShapeError):
        dist.rnea(m, Q, np.zeros((19, m.nv)), np.zeros((20, m.nv)))
    with pytest.raises(ad.ShapeError):
        dist.crba(m, np.zeros((20, m.nq + 1)))
    with pytest.raises(ad.InputError):
        dist.crba(m, Q, chunk=0)


def test_lean_model_pickles_small_and_computes_the_same():
    m = ad.load("solo12")
    ad.crba(m, ad.neutral(m))                                       # fills the model's caches
    lean = dist.lean_model(m)
    assert lean.collisions == () and (m.nq, m.nv, m.body_names) == (lean.nq, lean.nv, lean.body_names)
    assert len(pickle.dumps(lean)) < len(pickle.dumps(m)) / 4
    Q = ad.random_configuration(m, rng=4, size=5)
    np.testing.assert_array_equal(ad.crba(pickle.loads(pickle.dumps(lean)), Q), ad.crba(m, Q))


def test_unreachable_scheduler_fails_fast_naming_it():
    import socket
    with socket.socket() as s:                       # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConnectionError, match=rf"no Dask scheduler answered at 'tcp://127.0.0.1:{port}' within 0.5 s"):
        dist.client(address=f"tcp://127.0.0.1:{port}", timeout=0.5)
    with pytest.raises(ad.InputError, match=r"client: timeout \(seconds\) must be > 0, got -1"):
        dist.client(address=f"tcp://127.0.0.1:{port}", timeout=-1)


def test_a_worker_dying_under_a_chunk_is_retried(client, tmp_path):
    # the first time a chunk runs, its worker process dies (os._exit): the batch is computed again
    from artidyn.distributed import _core
    marker = str(tmp_path / "died-once")

    def dies_once(model, Q):
        import os
        if not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)
        return 2.0 * Q

    Q = np.arange(12.0).reshape(6, 2)
    parts = _core.run_numpy(client, dies_once, ad.load("planar2r"), {"Q": (Q, 0)}, {}, 6, 3, "doubling")
    np.testing.assert_array_equal(np.concatenate(parts), 2.0 * Q)
    import os
    assert os.path.exists(marker)
    client.wait_for_workers(2, timeout=60)            # the nanny restarted it, for the tests after this one


def test_lost_worker_errors_are_recognised():
    from distributed import KilledWorker

    from artidyn.distributed import _core

    class FuturesCancelledError(Exception):
        pass

    assert _core._worker_lost(KilledWorker("task", "worker", 3))
    assert _core._worker_lost(FuturesCancelledError("cancelled"))
    assert not _core._worker_lost(ad.InputError("bad input"))
