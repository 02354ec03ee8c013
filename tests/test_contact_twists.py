"""The compiled step's contact velocities and forces without rows: ``J v`` from the bodies'
twists and ``J^T lam`` from their wrenches passed to the root
(:mod:`artidyn.kernels.contact_jacobian`), against the readable contact Jacobian
(:func:`artidyn.contact.contact_jacobian`), on a chain of every joint type (a planar joint: three
dofs) and on talos's floating base, with random contacts between random bodies."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.geometry.broadphase import Contacts


def every_joint():
    b = ad.ModelBuilder("every_joint")
    rng = np.random.default_rng(7)
    kw = lambda: dict(mass=1.0 + rng.random(), inertia=np.diag(0.3 + 0.1 * rng.random(3)),      # noqa: E731
                      com=rng.normal(size=3) * 0.1)
    b.add_body("f", "world", "free", **kw())
    b.add_body("r", "f", "revolute", axis=(0.3, 0.5, 0.8), xyz=(0.1, 0.2, 0.3), rpy=(0.4, -0.2, 1.0), **kw())
    b.add_body("p", "r", "planar", axis=(1.0, 0.0, 0.2), xyz=(0.0, 0.3, 0.0), **kw())
    b.add_body("p2", "p", "prismatic", axis=(1.0, 0.0, 0.2), xyz=(0.0, 0.3, 0.0), **kw())
    b.add_body("s", "p2", "spherical", xyz=(0.2, 0.0, 0.1), **kw())
    b.add_body("c", "s", "cylindrical", axis=(0.0, 1.0, 0.0), xyz=(0.1, 0.1, 0.0), **kw())
    b.add_body("h", "c", "helical", axis=(0.6, 0.0, 0.8), pitch=0.2, xyz=(0.0, 0.0, 0.2), **kw())
    b.add_body("r2", "world", "revolute", axis=(0.0, 0.0, 1.0), xyz=(1.0, 0.0, 0.0), **kw())
    return b.build()


@pytest.mark.compiles      # the helpers called alone (in a run they are inlined in the step)
@pytest.mark.parametrize("name", ["every_joint", "talos_full_v2"])
def test_twists_and_wrenches_are_j_and_j_transpose(name):
    from artidyn.kernels.contact_jacobian import contact_velocity, generalized_forces, twists
    from artidyn.kernels.crba import crba_bodies
    from artidyn.kernels.pack import packed
    from artidyn.kernels.spatial import load_q
    model = every_joint() if name == "every_joint" else ad.load(name)
    rng = np.random.default_rng(3)
    B = packed(model).copy()
    for trial in range(3):
        q = ad.integrate(model, ad.neutral(model), rng.normal(size=model.nv) * 0.7)
        v = rng.normal(size=model.nv)
        k = 12
        body_a = rng.integers(1, model.nb + 1, k)
        body_b = np.where(rng.random(k) < 0.4, 0, rng.integers(0, model.nb + 1, k))
        n = rng.normal(size=(k, 3))
        n /= np.linalg.norm(n, axis=1)[:, None]
        n[0] = (0.0, 0.0, 1.0)                  # on an axis: the tangents' tie-break
        pa, pb = rng.normal(size=(k, 3)), rng.normal(size=(k, 3))
        C = Contacts(body_a, body_b, np.zeros(k, int), np.zeros(k, int), np.zeros(k), n, pa, pb)
        J = ad.contact.contact_jacobian(model, q, C)
        CC = np.zeros((k, 10))
        CC[:, 1:4], CC[:, 4:7], CC[:, 7:10] = n, pa, pb
        CI = np.zeros((k, 3), np.int64)
        CI[:, 0], CI[:, 1] = body_a, body_b
        assert load_q(B, q)
        crba_bodies(B)
        TW = np.zeros((model.nb + 1, 6))
        twists(B, v, TW)
        u = np.array([contact_velocity(B, CC, CI, c, TW) for c in range(k)]).ravel()
        scale = np.abs(J).max() * np.abs(v).max()
        np.testing.assert_allclose(u, J @ v, atol=1e-13 * scale * model.nv, rtol=0, err_msg=f"{name} trial {trial}")
        lam = rng.normal(size=3 * k)
        tau = np.full(model.nv, np.nan)
        generalized_forces(B, CC, CI, k, lam, np.zeros((model.nb + 1, 6)), tau)
        np.testing.assert_allclose(tau, J.T @ lam, atol=1e-13 * np.abs(J).max() * np.abs(lam).sum(), rtol=0,
                                   err_msg=f"{name} trial {trial}")
        assert np.abs(J @ v).max() > 0.1 and np.abs(J.T @ lam).max() > 0.1      # not trivially zero
