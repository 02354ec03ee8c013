"""Batched RNEA, ABA and CRBA on blocks of states side by side (artidyn.kernels.lanes).

The lane kernels are a second compiled implementation of the per-state kernels: they are held
to the readable reference code to 1e-12 on the model zoo (every joint type, branching trees),
with armature, friction and joint springs, at block boundaries; to pinocchio on robots of
example-robot-data through the public batch functions; and they must report the first invalid
state of a block as the per-state path does (the reference code then raises its error).
"""
import numba
import numpy as np
import pytest

import artidyn
from artidyn.configuration import random_configuration, random_velocity
from artidyn.dynamics.aba import _aba
from artidyn.dynamics.crba import _crba
from artidyn.dynamics.rnea import _rnea
from artidyn.errors import InputError
from artidyn.kernels import batch, lanes
from artidyn.kernels import dispatch as kd

from conftest import erd_urdf
from pin_utils import from_pin_matrix, from_pin_v, pin_model, to_pin_q, to_pin_v

L = lanes.LANES
KINDS = (batch.RNEA, batch.ABA, batch.CRBA)


def close(x, ref, label, tol=1e-12):
    scale = max(1.0, float(np.abs(ref).max()))
    err = float(np.abs(x - ref).max())
    assert err <= tol * scale, f"{label}: max error {err:.3g} (scale {scale:.3g})"


def dressed(model, rng):
    """The model with armature, viscous and Coulomb friction."""
    return model.replace(armature=rng.uniform(0, 0.5, model.nv), damping=rng.uniform(0, 1, model.nv),
                         coulomb=rng.uniform(0, 1, model.nv))


def every_joint(rng):
    """A floating tree with every joint type, springs on the flat joints, random inertias."""
    from artidyn.builder import ModelBuilder
    b = ModelBuilder("every_joint")

    def body(name, parent, joint, **kw):
        d = rng.uniform(0.02, 0.1, 3)
        m = rng.uniform(0.5, 2.0)
        inertia = m / 3 * np.diag([d[1] ** 2 + d[2] ** 2, d[0] ** 2 + d[2] ** 2, d[0] ** 2 + d[1] ** 2])
        axis = rng.normal(size=3)
        b.add_body(name, parent, joint, axis=axis / np.linalg.norm(axis), xyz=rng.uniform(-0.3, 0.3, 3),
                   rpy=rng.uniform(-3, 3, 3), mass=m, com=rng.uniform(-0.05, 0.05, 3), inertia=inertia,
                   armature=rng.uniform(0, 0.3), damping=rng.uniform(0, 1), coulomb=rng.uniform(0, 1), **kw)

    def spring():
        return dict(stiffness=rng.uniform(1, 20), rest=rng.uniform(-1, 1))

    body("base", "world", "free")
    body("cyl", "base", "cylindrical", **spring())
    body("screw", "cyl", "helical", pitch=0.05)
    body("ball", "base", "spherical")
    body("rev", "ball", "revolute", **spring())
    body("pri", "rev", "prismatic", **spring())
    body("rev2", "base", "revolute")
    return b.build()


def lane_run(model, kind, Q, X1=None, X2=None, opts=1, lo=0, hi=None, block=L):
    """run_lanes on states lo .. hi-1 in blocks of ``block`` states: (return code, out)."""
    B = kd._table(model)
    N = Q.shape[0]
    hi = N if hi is None else hi
    K = model.nv ** 2 if kind == batch.CRBA else model.nv
    out = np.full((N, K), -7.0)
    # a writable placeholder, of the same numba type as the arrays of the other kinds: one compilation
    # of run_lanes for the whole file, not a second one for CRBA (20 s)
    X1 = np.zeros((1, 1)) if X1 is None else X1
    X2 = np.zeros((1, 1)) if X2 is None else X2
    return lanes.run_lanes(B, kind, Q, X1, X2, opts, out, lo, hi, block), out


def reference(model, kind, Q, V, A, friction=True):
    if kind == batch.RNEA:
        return _rnea(model, Q, V, A, None, friction)
    if kind == batch.ABA:
        return _aba(model, Q, V, A, None, friction)
    return _crba(model, Q).reshape(Q.shape[0], -1)


@pytest.fixture(scope="module")
def zoo_models(zoo):
    rng = np.random.default_rng(11)
    return [(label, dressed(m, rng)) for label, m in zoo] + [("every_joint", every_joint(rng))]


@pytest.mark.compiles  # the lanes called from Python with their own block sizes, as no public call does
def test_lanes_equal_the_reference_on_the_zoo(zoo_models, rng):
    """Every zoo model (free, spherical, revolute, prismatic joints, branching) and a tree with
    every joint type and springs; a full block and a partial one, friction on and off."""
    N = L + 5
    for label, m in zoo_models:
        Q = random_configuration(m, rng, N)
        V, A = random_velocity(m, rng, N), random_velocity(m, rng, N)
        for kind in KINDS:
            for friction in (True, False):
                if kind == batch.CRBA and not friction:
                    continue
                X1, X2 = (None, None) if kind == batch.CRBA else (V, 10 * A)
                code, out = lane_run(m, kind, Q, X1, X2, opts=1 if friction else 0)
                assert code == -1, (label, kind)
                close(out, reference(m, kind, Q, V, 10 * A, friction), f"{label} kind {kind} friction {friction}")


def test_block_boundaries_and_offsets(zoo_models, rng):
    """Runs that start inside the array and end inside a block: only rows lo .. hi-1 written."""
    label, m = zoo_models[1]
    N = 3 * L + 2
    Q = random_configuration(m, rng, N)
    V, A = random_velocity(m, rng, N), random_velocity(m, rng, N)
    ref = _rnea(m, Q, V, A, None, True)
    for lo, hi in [(0, 1), (3, 3 + L - 1), (0, L), (5, 5 + L + 1), (1, N)]:
        code, out = lane_run(m, batch.RNEA, Q, V, A, lo=lo, hi=hi)
        assert code == -1
        close(out[lo:hi], ref[lo:hi], f"rows {lo}..{hi}")
        assert np.all(out[:lo] == -7.0) and np.all(out[hi:] == -7.0)


def test_first_invalid_state_is_reported(zoo_models, rng):
    floating = dict(zoo_models)["floating_tree_6"]
    N = 2 * L
    Q = random_configuration(floating, rng, N)
    V, A = random_velocity(floating, rng, N), random_velocity(floating, rng, N)
    Vb = V.copy()
    Vb[L + 3, 2] = np.nan
    assert lane_run(floating, batch.RNEA, Q, Vb, A)[0] == L + 3
    assert lane_run(floating, batch.ABA, Q, V, np.where(np.arange(N)[:, None] == 9, np.inf, A))[0] == 9
    Qb = Q.copy()
    Qb[L + 1, 3:7] *= 1.1        # a quaternion far from unit
    assert lane_run(floating, batch.CRBA, Qb)[0] == L + 1
    Qn = Q.copy()
    Qn[4, 3:7] *= 1 + 1e-8       # within tolerance: normalised, as the reference does
    code, out = lane_run(floating, batch.CRBA, Qn)
    assert code == -1
    close(out, _crba(floating, Qn).reshape(N, -1), "near-unit quaternion")
    Vh = V.copy()
    Vh[7] = 1e200                # a finite input whose result overflows
    assert lane_run(floating, batch.RNEA, Q, Vh, A)[0] == 7
    # through the public batch functions: the reference code raises its error
    with pytest.raises(InputError):
        artidyn.rnea(floating, Q, Vb, A)
    with pytest.raises(InputError):
        artidyn.crba(floating, Qb)


def test_crba_pairs_and_small_blocks(rng):
    """CRBA's structural nonzeros on a branching 102-dof tree (two long arms on a floating base):
    the pairs are exactly the entries the reference matrix can fill (ancestor dofs), every entry
    of M is a pair or a structural zero, a block of 32 states for so many pairs, and blocks of
    16 states give the reference matrices."""
    from artidyn.builder import ModelBuilder
    b = ModelBuilder("two_arms")
    b.add_body("base", "world", "free", mass=3.0, inertia=np.diag([0.1, 0.2, 0.3]))
    for arm in ("l", "r"):
        parent = "base"
        for k in range(48):
            b.add_body(f"{arm}{k}", parent, "revolute", axis=rng.normal(size=3), xyz=rng.uniform(-0.2, 0.2, 3),
                       mass=rng.uniform(0.5, 1.5), com=rng.uniform(-0.05, 0.05, 3), inertia=np.diag([0.01, 0.02, 0.03]),
                       armature=0.1)
            parent = f"{arm}{k}"
    m = b.build()
    assert m.nv == 102
    B = kd._table(m)
    R, C, where = lanes.crba_pairs(B)
    # the pairs: (6 + 1) * 6 / 2 for the base, then each arm dof sees the base and its arm's dofs
    assert len(R) == 21 + 2 * sum(6 + k + 1 for k in range(48))
    assert np.all(R <= C) and len(set(zip(R.tolist(), C.tolist()))) == len(R)
    assert lanes.block_size(B, batch.CRBA) == 32 and lanes.block_size(B, batch.RNEA) == L
    N = 37
    Q = random_configuration(m, rng, N)
    ref = _crba(m, Q)
    zero = where.reshape(m.nv, m.nv) == len(R)
    assert zero.sum() == 2 * 48 * 48                    # left arm against right arm
    assert np.all(ref[:, zero] == 0.0) and np.all(ref[:, ~zero] != 0.0)
    code, out = lane_run(m, batch.CRBA, Q, block=16)
    assert code == -1
    close(out, ref.reshape(N, -1), "blocks of 16")
    close(artidyn.crba(m, Q), ref, "public batch")


@pytest.mark.compiles  # the lanes called from Python with their own block sizes, as no public call does
def test_sin_cos_lanes():
    @numba.njit
    def run(x):
        W = np.empty((1, lanes.WCOLS, x.shape[0]))
        lanes.sin_cos_lanes(W, 0, x, x.shape[0])
        return W[0, lanes.WS].copy(), W[0, lanes.WS + 1].copy()

    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-40, 40, 20000), np.linspace(-7, 7, 2001) * np.pi / 4,
                        [0.0, -0.0, 1e-300, 3e5, 2e6, -1e7, 1e300]])
    s, c = run(x)
    assert np.abs(s - np.sin(x)).max() <= 4e-16
    assert np.abs(c - np.cos(x)).max() <= 4e-16


ROBOTS = [("ur5_robot", False), ("panda", False), ("solo12", True), ("talos_full_v2", True)]


@pytest.mark.parametrize("stem,floating", ROBOTS)
def test_public_batches_against_pinocchio(stem, floating, rng):
    """artidyn.rnea / aba / crba on 3 blocks of states (the lanes) against pinocchio's rnea, aba
    and crba state by state, mapped through the state conversions."""
    import pinocchio as pin
    path = erd_urdf(stem)
    m = artidyn.load_urdf(path, floating_base=floating)
    pm = pin_model(path, floating, inertias_from=m)
    pd = pm.createData()
    N = 3 * L
    Q = random_configuration(m, rng, N)
    V, A = random_velocity(m, rng, N), random_velocity(m, rng, N)
    tau = artidyn.rnea(m, Q, V, A, friction=False)
    qdd = artidyn.aba(m, Q, V, tau, friction=False)
    M = artidyn.crba(m, Q)
    close(qdd, A, f"{stem}: aba(rnea(a)) = a", tol=1e-9)
    for k in range(0, N, 17):
        qp, vp, ap = to_pin_q(m, pm, Q[k]), to_pin_v(m, pm, V[k]), to_pin_v(m, pm, A[k])
        close(tau[k], from_pin_v(m, pm, pin.rnea(pm, pd, qp, vp, ap)), f"{stem} rnea state {k}", tol=1e-10)
        close(qdd[k], from_pin_v(m, pm, pin.aba(pm, pd, qp, vp, to_pin_v(m, pm, tau[k]))), f"{stem} aba {k}",
              tol=1e-9)
        Mp = pin.crba(pm, pd, qp)
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        close(M[k], from_pin_matrix(m, pm, Mp), f"{stem} crba state {k}", tol=1e-10)
