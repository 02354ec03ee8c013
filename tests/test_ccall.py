"""The bound evaluator's C call path (the extension artidyn._ccall and the kernels' C entry
points, artidyn.kernels.ccall): the numbers of numba's path bit for bit, and every input the C
path must not take (other dtypes, shapes, strides, read-only or foreign buffers) handed to the
checked path, which computes it or raises the public functions' errors; never a crash."""
import array

import numpy as np
import pytest

import artidyn as ad


@pytest.fixture(scope="module")
def pair():
    """(model, the evaluator on the C path, one on numba's dispatcher)."""
    model = ad.load("ur5_robot").replace(damping=np.full(6, 0.3), coulomb=np.full(6, 0.2))
    fast = ad.Dynamics(model)
    mp = pytest.MonkeyPatch()
    mp.setenv("ARTIDYN_NO_CCALL", "1")
    slow = ad.Dynamics(model)
    mp.undo()
    return model, fast, slow


def test_the_extension_is_built_and_used(pair):
    """CI builds the extension (a C compiler is there): the evaluator must take the C path."""
    model, fast, slow = pair
    assert fast.c_path and not slow.c_path


@pytest.mark.parametrize("name", ["ur5_robot", "panda", "solo12", "talos_full_v2"])
def test_same_numbers_as_numba_and_the_public_functions(name):
    model = ad.load(name)
    fast = ad.Dynamics(model)
    rng = np.random.default_rng(5)
    for _ in range(5):
        q = ad.random_configuration(model, rng)
        v, a = ad.random_velocity(model, rng), ad.random_velocity(model, rng)
        tau = fast.rnea(q, v, a)
        np.testing.assert_array_equal(tau, ad.rnea(model, q, v, a))
        np.testing.assert_array_equal(fast.aba(q, v, tau), ad.aba(model, q, v, tau))
        np.testing.assert_allclose(fast.aba(q, v, tau), a, rtol=0, atol=1e-8)
        np.testing.assert_array_equal(fast.crba(q), ad.crba(model, q))


def test_friction_and_out_in_place(pair):
    model, fast, slow = pair
    q, v, a = ad.random_configuration(model, rng=1), np.linspace(-1, 1, 6), np.ones(6)
    out, M = np.empty(6), np.empty((6, 6))
    assert fast.rnea(q, v, a, out=out) is out
    np.testing.assert_array_equal(out, slow.rnea(q, v, a))
    assert fast.aba(q, v, a, out=out) is out
    np.testing.assert_array_equal(out, slow.aba(q, v, a))
    assert fast.crba(q, out=M) is M
    np.testing.assert_array_equal(M, slow.crba(q))
    dry = ad.Dynamics(model, friction=False)
    np.testing.assert_allclose(fast.rnea(q, v, a) - dry.rnea(q, v, a), 0.3 * v + 0.2 * np.sign(v), atol=1e-12)


def test_inputs_the_c_path_refuses(pair):
    """Each goes to the checked path: the right numbers, or the public functions' errors."""
    model, fast, _ = pair
    q = ad.random_configuration(model, rng=2)
    v, a = np.full(6, 0.5), np.full(6, -0.25)
    ref, Mref = ad.rnea(model, q, v, a), ad.crba(model, q)
    big_endian = q.astype(">f8")
    assert not big_endian.dtype.isnative
    # unaligned, then big-endian: numba 0.68's dispatcher, once it has seen an unaligned array, takes
    # a big-endian one as native (wrong numbers); the C call takes the first and declines the second
    unaligned = np.frombuffer(bytearray(49), dtype=float, offset=1, count=6)
    unaligned[:] = q
    assert not unaligned.flags.aligned
    frozen = q.copy()
    frozen.flags.writeable = False                                              # taken: inputs are only read
    for label, args in [("unaligned q", (unaligned, v, a)), ("read-only q", (frozen, v, a)),
                        ("list", (list(q), v, a)), ("int64 v", (q, np.array([1, 0, 0, 0, 0, 0]), a)),
                        ("strided q", (np.repeat(q, 2)[::2], v, a)), ("big-endian q", (big_endian, v, a)),
                        ("array.array", (array.array("d", q), v, a)), ("float32 a", (q, v, a.astype(np.float32)))]:
        got = fast.rnea(*args)
        want = ad.rnea(model, *(np.asarray(x, dtype=float) for x in args))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=label)
        if label in ("list", "strided q", "big-endian q", "array.array", "unaligned q", "read-only q"):
            np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12, err_msg=label)
    np.testing.assert_allclose(fast.rnea(q[None], v, a), ref[None], rtol=0, atol=1e-12)   # a batch of one
    with pytest.raises(ad.InputError, match="NaN"):
        fast.aba(q, np.full(6, np.nan), a)
    with pytest.raises(ad.ShapeError, match="nq = 6"):
        fast.crba(q[:5])
    qc = q + 1e-20j                                          # complex step: the reference code
    got = fast.rnea(qc, v, a)
    assert got.dtype == complex
    np.testing.assert_array_equal(got, ad.rnea(model, qc, v, a))
    # outputs: wrong length, read-only, a vector for a matrix, a matrix for a vector, Fortran order
    with pytest.raises(ad.ShapeError, match="out must be"):
        fast.rnea(q, v, a, out=np.empty(7))
    ro = np.empty(6)
    ro.flags.writeable = False
    with pytest.raises(ad.ShapeError, match="out must be"):
        fast.aba(q, v, a, out=ro)
    with pytest.raises(ad.ShapeError, match="out must be"):
        fast.crba(q, out=np.empty(36))
    with pytest.raises(ad.ShapeError, match="out must be"):
        fast.rnea(q, v, a, out=np.empty((6, 1)))
    with pytest.raises(ad.ShapeError, match="out must be"):
        fast.rnea(q, v, a, out=bytearray(48))
    F = np.empty((6, 6), order="F")
    assert fast.crba(q, out=F) is F
    np.testing.assert_array_equal(F, Mref)
    strided = np.empty(12)[::2]
    assert fast.rnea(q, v, a, out=strided) is strided
    np.testing.assert_array_equal(strided, ref)


def test_the_extension_checks_its_arguments():
    """Called directly (private): bad buffers give False, a bad address or arity an exception."""
    from artidyn._ccall import call
    from artidyn.kernels import ccall
    model = ad.load("ur5_robot")
    dyn = ad.Dynamics(model)
    q, z, out = ad.neutral(model), np.zeros(6), np.empty(6)
    addr = ccall.ADDRESSES["rnea"]
    assert call(addr, dyn._B, 0, q, z, z, out) is True
    np.testing.assert_allclose(out, ad.gravity_torque(model, q), atol=1e-12)
    assert call(addr, dyn._B, 0, q, z, z[:5], out) is False                 # the kernel checks lengths
    assert call(addr, dyn._B, 0, q, z, None, out) is False
    assert call(addr, dyn._B, 0, "abc", z, z, out) is False
    assert call(addr, dyn._B.T, 0, q, z, z, out) is False                    # B not C-contiguous
    assert call(addr, np.zeros(3), 0, q, z, z, out) is False                  # B not 2-D
    assert call(ccall.ADDRESSES["crba"], dyn._B, 0, q, None, None, out) is False   # crba wants a matrix
    with pytest.raises(TypeError):
        call(addr, dyn._B, 0, q, z, z)
    with pytest.raises(ValueError):
        call(0, dyn._B, 0, q, z, z, out)
    with pytest.raises(TypeError):
        call("x", dyn._B, 0, q, z, z, out)


@pytest.mark.parametrize("name", ["ur5_robot", "solo12"])
def test_derivatives_on_both_paths(name):
    """Dynamics.rnea_derivatives / aba_derivatives: the public functions' numbers on the C path
    and on numba's, views of out, and the refusals handed to the public functions."""
    model = ad.load(name).replace(damping=np.full(ad.load(name).nv, 0.2))
    rng = np.random.default_rng(8)
    q = ad.random_configuration(model, rng)
    v, a = ad.random_velocity(model, rng), ad.random_velocity(model, rng)
    tau = ad.rnea(model, q, v, a)
    ref_r, ref_a = ad.rnea_derivatives(model, q, v, a), ad.aba_derivatives(model, q, v, tau)
    mp = pytest.MonkeyPatch()
    mp.setenv("ARTIDYN_NO_CCALL", "1")
    slow = ad.Dynamics(model)
    mp.undo()
    fast = ad.Dynamics(model)
    assert fast.c_path and not slow.c_path
    for dyn in (fast, slow):
        r = dyn.rnea_derivatives(q, v, a)
        assert type(r) is type(ref_r)
        for got, want in zip(r, ref_r):
            np.testing.assert_array_equal(got, want)
        out = np.empty((3, model.nv, model.nv))
        d = dyn.aba_derivatives(q, v, tau, out=out)
        assert type(d) is type(ref_a) and np.shares_memory(d.da_dq, out)
        for got, want in zip(d, ref_a):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_allclose(d.Minv @ ad.crba(model, q), np.eye(model.nv), atol=1e-9)
        # refused by the fast paths: a list, a strided out, the wrong out, NaN
        for got, want in zip(dyn.rnea_derivatives(list(q), v, a), ref_r):
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        F = np.empty((3, model.nv, model.nv), order="F")
        dyn.aba_derivatives(q, v, tau, out=F)
        np.testing.assert_allclose(F[2], ref_a.Minv, rtol=0, atol=1e-12)
        with pytest.raises(ad.ShapeError, match="out must be"):
            dyn.rnea_derivatives(q, v, a, out=np.empty((2, model.nv, model.nv)))
        with pytest.raises(ad.InputError, match="NaN"):
            dyn.aba_derivatives(q, np.full(model.nv, np.nan), tau)


def test_constrained_evaluator_on_both_paths():
    """ConstrainedDynamics through call_bound: the numbers of numba's path and of the public
    function bit for bit (multipliers, wrenches, residual), Baumgarte gains and friction carried
    in its context, and the inputs it refuses handed to the public function."""
    from artidyn.constraints import ConstrainedDynamics, Point, constrained_dynamics

    model = ad.load("solo12").replace(damping=np.full(ad.load("solo12").nv, 0.1))
    rng = np.random.default_rng(3)
    q0 = ad.random_configuration(model, rng)
    cons = [Point(f, at=q0) for f in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")]
    mp = pytest.MonkeyPatch()
    mp.setenv("ARTIDYN_NO_CCALL", "1")
    slow = ConstrainedDynamics(model, cons, baumgarte=(3.0, 7.0))
    mp.undo()
    fast = ConstrainedDynamics(model, cons, baumgarte=(3.0, 7.0))
    assert fast.c_path and not slow.c_path
    for _ in range(4):
        q = ad.random_configuration(model, rng)
        v, tau = ad.random_velocity(model, rng), rng.normal(size=model.nv)
        ref = constrained_dynamics(model, q, v, tau, cons, baumgarte=(3.0, 7.0))
        out = np.empty(model.nv)
        assert fast(q, v, tau, out=out) is out
        np.testing.assert_array_equal(out, slow(q, v, tau))
        np.testing.assert_array_equal(out, ref.a)
        np.testing.assert_array_equal(fast.lambdas, slow.lambdas)
        np.testing.assert_array_equal(fast.lambdas, ref.lambdas)
        for got, want in zip(fast.forces, ref.forces):
            np.testing.assert_array_equal(got, want)
        assert fast.residual == ref.residual and fast.status == "ok" and fast.rank == 12
    dry = ConstrainedDynamics(model, cons, friction=False, baumgarte=(3.0, 7.0))
    np.testing.assert_array_equal(dry(q, v, tau), constrained_dynamics(model, q, v, tau, cons, friction=False,
                                                                     baumgarte=(3.0, 7.0)).a)
    # refused by the C path: the public function's numbers or its errors
    np.testing.assert_allclose(fast(list(q), v, tau), ref.a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast(q, v, tau.astype(np.float32)),
                               constrained_dynamics(model, q, v, tau.astype(np.float32).astype(float), cons,
                                                    baumgarte=(3.0, 7.0)).a, rtol=0, atol=1e-12)
    strided = np.empty(2 * model.nv)[::2]
    assert fast(q, v, tau, out=strided) is strided
    np.testing.assert_allclose(strided, ref.a, rtol=0, atol=1e-12)
    with pytest.raises(ad.ShapeError, match="out must be"):
        fast(q, v, tau, out=np.empty(model.nv - 1))
    with pytest.raises(ad.InputError, match="NaN|finite"):
        fast(q, np.full(model.nv, np.nan), tau)
    with pytest.raises(ad.ShapeError):
        fast(q[:-1], v, tau)


def test_call_bound_checks_its_arguments():
    """call_bound directly (private): a context that is not int64 1-D of the kernel's length, or
    bad state buffers, give False; a bad address or arity an exception."""
    from artidyn._ccall import call_bound
    from artidyn.constraints import ConstrainedDynamics, Point

    model = ad.load("ur5_robot")
    q = ad.random_configuration(model, rng=1)
    cd = ConstrainedDynamics(model, [Point("tool0", at=q)])
    z, out = np.zeros(6), np.empty(6)
    assert call_bound(cd._addr, cd._ctx, q, z, z, out) is True
    np.testing.assert_array_equal(out, ad.constraints.constrained_dynamics(model, q, z, z, [Point("tool0", at=q)]).a)
    assert call_bound(cd._addr, cd._ctx[:-1], q, z, z, out) is False                   # context length
    assert call_bound(cd._addr, cd._ctx.astype(np.float64), q, z, z, out) is False     # context dtype
    assert call_bound(cd._addr, cd._ctx.astype(np.int32), q, z, z, out) is False
    assert call_bound(cd._addr, cd._ctx, q, z, z[:5], out) is False                    # the kernel checks lengths
    assert call_bound(cd._addr, cd._ctx, q, z, z, out[:5]) is False
    assert call_bound(cd._addr, cd._ctx, q, z, None, out) is False
    assert call_bound(cd._addr, cd._ctx, q, z, z, out.reshape(2, 3)) is False          # out 1-D only
    with pytest.raises(TypeError):
        call_bound(cd._addr, cd._ctx, q, z, z)
    with pytest.raises(ValueError):
        call_bound(0, cd._ctx, q, z, z, out)


def test_public_constrained_dynamics_with_many_gains():
    """The public function's C contexts are cached per (table, friction, gains) up to 16; beyond,
    the dispatcher: the same numbers, and nothing kept per call."""
    from artidyn.constraints import Point, compiled, constrained_dynamics

    model = ad.load("ur5_robot")
    q = ad.random_configuration(model, rng=3)
    cons = [Point("tool0", at=ad.random_configuration(model, rng=4))]
    v, tau = np.full(6, 0.1), np.zeros(6)
    ref = [constrained_dynamics(model, q, v, tau, cons, baumgarte=(float(k), 1.0), method="kkt").a for k in range(20)]
    for k in range(20):
        np.testing.assert_allclose(constrained_dynamics(model, q, v, tau, cons, baumgarte=(float(k), 1.0)).a, ref[k],
                                   rtol=0, atol=1e-9)
    w = compiled.packed(model, cons)._work
    assert len(w.ctx) == 16 and len(w._keep) == 32


def test_the_bound_methods_are_c_objects_with_checked_fallbacks(pair):
    """dyn.rnea / aba / crba are artidyn._ccall.Kernel objects: every call shape of the method
    (out by position, by keyword, None), the method's doc, the method itself for what C refuses,
    and no reference cycle that outlives the evaluator."""
    import gc
    import weakref

    from artidyn._ccall import Kernel
    model, fast, slow = pair
    q, v, a = ad.random_configuration(model, rng=3), np.linspace(-1, 1, 6), np.full(6, 0.25)
    ref = slow.rnea(q, v, a)
    assert type(fast.rnea) is Kernel and type(slow.rnea) is not Kernel
    assert fast.rnea.__doc__ == ad.Dynamics.rnea.__doc__ and "compiled" in repr(fast.crba)
    assert fast.aba.fallback.__func__ is ad.Dynamics.aba
    out = np.empty(6)
    for call in (lambda: fast.rnea(q, v, a), lambda: fast.rnea(q, v, a, None), lambda: fast.rnea(q, v, a, out=None),
                 lambda: fast.rnea(q, v, a, out), lambda: fast.rnea(q, v, a, out=out), lambda: fast.rnea(q=q, v=v, a=a)):
        got = call()
        np.testing.assert_array_equal(got, ref)
    assert fast.rnea(q, v, a, out) is out and fast.crba(q, np.empty((6, 6))).shape == (6, 6)
    with pytest.raises(TypeError):
        fast.rnea(q, v, a, nope=out)            # the method's own error
    with pytest.raises(TypeError):
        fast.crba()
    with pytest.raises(ad.ShapeError, match="nq = 6"):
        fast.rnea(q[:4], v, a)
    # the evaluator and its C objects are collected with it
    dyn = ad.Dynamics(model)
    dyn.crba(q)
    gone = weakref.ref(dyn)
    del dyn
    gc.collect()
    assert gone() is None
    # the constructor's checks (private)
    from artidyn.kernels.ccall import ADDRESSES
    with pytest.raises(ValueError, match="nin"):
        Kernel(ADDRESSES["rnea"], fast._B, 0, 2, (6,), print)
    for shape in [None, (), (0,), (6, -1), (3, 6, 0), (2, 3, 4, 5), 6]:
        with pytest.raises(ValueError, match="shape"):
            Kernel(ADDRESSES["rnea"], fast._B, 0, 3, shape, print)
    for result, shape in [(list, (3, 6, 6)), (tuple, (6,)), (3, (3, 6, 6))]:
        with pytest.raises(TypeError, match="result"):
            Kernel(ADDRESSES["rnea"], fast._B, 0, 3, shape, print, None, result)
    with pytest.raises(TypeError, match="callable"):
        Kernel(ADDRESSES["rnea"], fast._B, 0, 3, (6,), None)
    with pytest.raises(TypeError, match="B must be"):
        Kernel(ADDRESSES["rnea"], fast._B.T, 0, 3, (6,), print)
    with pytest.raises(ValueError):
        Kernel(0, fast._B, 0, 3, (6,), print)


def test_derivatives_into_the_same_out_twice(pair):
    """A repeated out returns the same named views, holding the new state's numbers."""
    model, fast, slow = pair
    out = np.empty((3, 6, 6))
    rng = np.random.default_rng(4)
    first = None
    for _ in range(3):
        q, v, a = ad.random_configuration(model, rng), ad.random_velocity(model, rng), ad.random_velocity(model, rng)
        d = fast.rnea_derivatives(q, v, a, out=out)
        first = d if first is None else first
        assert d is first and np.shares_memory(d.dtau_dq, out)
        for got, want in zip(d, slow.rnea_derivatives(q, v, a)):
            np.testing.assert_array_equal(got, want)
        e = fast.aba_derivatives(q, v, a, out=out)
        assert type(e).__name__ == "AbaDerivatives"
        for got, want in zip(e, slow.aba_derivatives(q, v, a)):
            np.testing.assert_array_equal(got, want)


def test_public_functions_take_the_c_path_per_model(pair):
    """artidyn.rnea / aba / crba with one state: a C call object per model and kernel on
    model._cache (numba's numbers bit for bit, friction on and off); other inputs still reach the
    batch path or the reference code; a pickled or copied model leaves the objects behind."""
    import copy
    import pickle

    from artidyn._ccall import Kernel, call
    model, fast, slow = pair
    m = model.replace()                                   # a fresh cache
    q, v, a = ad.random_configuration(m, rng=6), np.linspace(-1, 1, 6), np.full(6, 0.5)
    np.testing.assert_array_equal(ad.rnea(m, q, v, a), slow.rnea(q, v, a))
    np.testing.assert_array_equal(ad.aba(m, q, v, a), slow.aba(q, v, a))
    np.testing.assert_array_equal(ad.crba(m, q), slow.crba(q))
    dry = ad.Dynamics(m, friction=False)
    np.testing.assert_array_equal(ad.rnea(m, q, v, a, friction=False), dry.rnea(q, v, a))
    np.testing.assert_array_equal(ad.gravity_torque(m, q), dry.rnea(q, np.zeros(6), np.zeros(6)))
    for got, want in zip(ad.rnea_derivatives(m, q, v, a), slow.rnea_derivatives(q, v, a)):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(ad.aba_derivatives(m, q, v, a), slow.aba_derivatives(q, v, a)):
        np.testing.assert_array_equal(got, want)
    kinds = {k: type(x) for k, x in m._cache.items() if k.startswith("kernels.c.")}
    assert set(kinds) == {"kernels.c.rnea.1", "kernels.c.rnea.0", "kernels.c.aba.1", "kernels.c.crba.0",
                          "kernels.c.derivatives.0.1", "kernels.c.derivatives.1.1"}
    assert set(kinds.values()) == {Kernel}
    d = ad.aba_derivatives(m, q, v, a)       # the named tuple made in C: views of one (3, nv, nv) array
    assert type(d) is ad.dynamics.derivatives.AbaDerivatives and d.Minv.base is d.da_dq.base
    assert d.da_dq.base.shape == (3, 6, 6) and d.Minv.flags.writeable and d.Minv.flags.c_contiguous
    k, D = m._cache["kernels.c.derivatives.1.1"], np.empty((3, 6, 6))
    e = k(q, v, a, out=D)                     # views of a given out
    assert type(e) is type(d) and e.Minv.base is D
    np.testing.assert_array_equal(D, np.stack(d))
    assert k(q, v, a, out=bytearray(8 * 108)) is None and k(q, v, a, np.empty((3, 36))) is None   # declined
    Q = np.stack([q, q])
    np.testing.assert_allclose(ad.rnea(m, Q, v, a), np.stack([slow.rnea(q, v, a)] * 2), atol=1e-12)
    np.testing.assert_allclose(ad.rnea(m, list(q), v, a), slow.rnea(q, v, a), atol=1e-12)
    with pytest.raises(ad.InputError, match="NaN"):
        ad.aba(m, q, np.full(6, np.nan), a)
    for twin in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert twin._cache == {}
        np.testing.assert_array_equal(ad.crba(twin, q), slow.crba(q))
    mp = pytest.MonkeyPatch()
    mp.setenv("ARTIDYN_NO_CCALL", "1")
    try:
        plain = model.replace()
        np.testing.assert_array_equal(ad.rnea(plain, q, v, a), slow.rnea(q, v, a))
        assert plain._cache["kernels.c.rnea.1"] is False  # numba's dispatcher for this model
        ad.aba_derivatives(plain, q, v, a)
        assert plain._cache["kernels.c.derivatives.1.1"] is False
    finally:
        mp.undo()
