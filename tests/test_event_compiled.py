"""The compiled event-driven run (artidyn.kernels.event_run) against the readable one
(artidyn.contact.event_driven inside reference_only()): the same events at the same times, the same
samples, forces and modes, on the cases of the event-driven tests; and against the closed form of a
dropped ball."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.constraints import Weld
from artidyn.contact import ContactSettings
from artidyn.errors import InputError
from artidyn.geometry import Capsule, HalfSpace
from artidyn.sim import PD
from test_event_driven import _ball, _puck, _stop_pendulum

G = 9.81
TOL = 1e-10


def _capsule():
    b = ad.ModelBuilder("capsule")
    b.add_body("capsule", "world", "free", mass=1.0, inertia=np.diag([0.01, 0.01, 0.004]))
    b.add_collision("capsule", Capsule(0.05, 0.3))
    b.add_collision("world", HalfSpace(normal=(0, 0, 1)))
    return b.build()


def _lying_capsule_q():
    c, s = np.cos(np.pi / 4), np.sin(np.pi / 4)              # the axis along x, resting on its side
    return np.array([0.0, 0.0, 0.05, 0.0, s, 0.0, c])


# (name, model, q0, v0, t_final, settings): the cases of tests/test_event_driven.py, and a capsule
CASES = {
    "bouncing ball": (_ball, np.array([0.0, 0.0, 1.1, 0.0, 0.0, 0.0, 1.0]), np.zeros(6), 2.5,
                      ContactSettings(restitution=0.8)),
    "Siconos' ball": (_ball, np.array([0.0, 0.0, 1.1, 0.0, 0.0, 0.0, 1.0]), np.zeros(6), 3.0,   # e = 0.9, gap 1
                      ContactSettings(restitution=0.9)),
    "elastic ball": (_ball, np.array([0.0, 0.0, 0.6, 0.0, 0.0, 0.0, 1.0]), np.array([0, 0, 0, 0.3, 0, 0.0]), 1.5,
                     ContactSettings(restitution=1.0)),
    "sliding puck": (_puck, np.array([0.0, 0.0, 0.025, 0.0, 0.0, 0.0, 1.0]), np.array([0, 0, 0, 2.0, 0, 0.0]), 1.0,
                     ContactSettings(friction=0.3)),
    "rolling ball": (_ball, np.array([0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 1.0]), np.array([0, 0, 0, 2.0, 0, 0.0]), 0.5,
                     ContactSettings(friction=0.3)),
    "stop e=0": (_stop_pendulum, np.zeros(1), np.zeros(1), 0.6, ContactSettings(limit_restitution=0.0)),
    "stop e=0.5": (_stop_pendulum, np.zeros(1), np.zeros(1), 0.6, ContactSettings(limit_restitution=0.5)),
    "pushed ball": (_ball, np.array([0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 1.0]), np.array([0, 0, 0, 0.5, 0, 0.0]), 0.25,
                    ContactSettings(friction=0.2)),
    "tumbling box": (_puck, np.array([0.0, 0.0, 0.15, 0.0, np.sin(0.15), 0.0, np.cos(0.15)]),
                     np.array([0, 0, 0, 0.6, 0, 0.0]), 0.6, ContactSettings(friction=0.5, restitution=0.2)),
    "dropped capsule": (_capsule, _lying_capsule_q() + np.array([0, 0, 0.2, 0, 0, 0, 0]),
                        np.array([0, 0, 0, 0.5, 0, 0.0]), 1.0, ContactSettings(friction=0.5, restitution=0.3)),
}


# the pushed ball: a constant wrench on the ball (its own axes; it rolls, so the force turns with it)
# and a constant torque about the vertical
INPUTS = {"pushed ball": dict(tau=np.array([0.0, 0.0, 0.02, 0.0, 0.0, 0.0]),
                              f_ext=np.array([[0.0] * 6, [0.0, 0.0, 0.0, 1.5, 0.5, 0.0]]))}


def run_case(name, reference):
    make, q0, v0, tf, s = CASES[name]
    model = make()
    kw = INPUTS.get(name, {})
    if reference:
        with ad.kernels.reference_only():
            return ad.simulate(model, q0, v0, t_final=tf, dt=1e-2, method="event_driven", contact=s, **kw)
    return ad.simulate(model, q0, v0, t_final=tf, dt=1e-2, method="event_driven", contact=s, **kw)


@pytest.mark.parametrize("name", list(CASES))
def test_compiled_equals_readable(name):
    """The same events (kind, bodies) at the same times, the same samples (q, v, a), contact forces,
    modes and statuses, to 1e-10."""
    ref, run = run_case(name, True), run_case(name, False)
    assert ref.stats["route"] == "reference" and run.stats["route"] == "compiled"
    assert [(e.kind, e.body_a, e.body_b) for e in run.events] == [(e.kind, e.body_a, e.body_b) for e in ref.events]
    assert len(ref.events) > 0 and run.stats["events"] == ref.stats["events"]
    np.testing.assert_allclose([e.time for e in run.events], [e.time for e in ref.events], rtol=0, atol=TOL)
    for key in ("q", "v", "a", "tau"):
        np.testing.assert_allclose(getattr(run, key), getattr(ref, key), rtol=0, atol=TOL, err_msg=key)
    np.testing.assert_allclose(run.contact_forces, ref.contact_forces, rtol=0, atol=1e-8)
    for cr, cf in zip(run.contacts, ref.contacts):
        assert cr.modes == cf.modes and cr.status == cf.status
        assert [x[:2] for x in cr.limits] == [x[:2] for x in cf.limits]
        np.testing.assert_allclose(cr.frames, cf.frames, rtol=0, atol=TOL)
        np.testing.assert_allclose(cr.point_a, cf.point_a, rtol=0, atol=TOL)
        np.testing.assert_array_equal(cr.body_a, cf.body_a)


def test_dropped_ball_closed_form():
    """Dropped from h with restitution e: the impacts at t1 = sqrt(2 h / g), then 2 t1 e^k apart;
    the apex between the impacts k and k + 1 at e^(2k) h above the ground (closed forms)."""
    R, h, e = 0.1, 1.0, 0.8
    model = _ball(R)
    run = ad.simulate(model, np.array([0.0, 0.0, R + h, 0.0, 0.0, 0.0, 1.0]), np.zeros(6), t_final=2.5, dt=1e-3,
                      method="event_driven", contact=ContactSettings(restitution=e))
    assert run.stats["route"] == "compiled"
    impacts = np.array([ev.time for ev in run.events if ev.kind == "impact"])
    t1 = np.sqrt(2 * h / G)
    exact = t1 + np.concatenate([[0.0], np.cumsum(2 * t1 * e ** np.arange(1, impacts.size))])
    assert impacts.size == 4             # 0.45, 1.17, 1.75, 2.21 s
    np.testing.assert_allclose(impacts, exact, rtol=0, atol=1e-8)
    for k in range(1, 4):                                    # the apex between impacts k - 1 and k
        inside = (run.t > impacts[k - 1]) & (run.t < impacts[k])
        apex = run.q[inside, 2].max() - R
        assert abs(apex - e ** (2 * k) * h) < 0.5 * G * 1e-3 ** 2 + 1e-12, (k, apex)   # the grid within 1 ms


def test_compiled_route_refusals_and_fallbacks():
    """A torque function runs on the readable route (same refusals as before); impacts='sequential'
    is refused on both routes."""
    model = _ball()
    q0 = np.array([0.0, 0.0, 0.3, 0.0, 0.0, 0.0, 1.0])
    run = ad.simulate(model, q0, np.zeros(6), lambda t, q, v: np.zeros(6), t_final=0.05, dt=1e-2,
                      method="event_driven", contact=ContactSettings())
    assert run.stats["route"] == "reference"
    with pytest.raises(InputError, match="sequential"):
        ad.simulate(model, q0, np.zeros(6), t_final=0.1, dt=1e-2, method="event_driven",
                    contact=ContactSettings(impacts="sequential"))
    with pytest.raises(InputError, match="constraints="):
        ad.simulate(model, q0, np.zeros(6), t_final=0.1, dt=1e-2, method="event_driven",
                    contact=ContactSettings(), constraints=[Weld("ball", at=q0)])
    with_pd = ad.simulate(model, q0, np.zeros(6), t_final=0.05, dt=1e-2, method="event_driven",
                          contact=ContactSettings(), controller=PD(1.0, 0.1, q0))       # a controller: readable
    assert with_pd.stats["route"] == "reference"


@pytest.mark.compiles
@pytest.mark.parametrize("mask", [(1, 1, 1), (1, 0, 1), (0, 1, 0)])
def test_sliding_problems_equal_the_readable_ones(mask):
    """The smooth problem with sliding contacts (Lemke on the normal LCP when all slide, projected
    Gauss-Seidel when some stick) compiled (event_lcp.with_sliding) and readable
    (contact.dynamics._with_sliding) on a Delassus matrix J M^-1 J^T of three contacts."""
    from artidyn.contact.dynamics import _with_sliding
    from artidyn.kernels.event_lcp import with_sliding

    rng = np.random.default_rng(7)
    J = rng.normal(size=(9, 12))
    A = rng.normal(size=(12, 12))
    Gm = J @ np.linalg.solve(A @ A.T + 12 * np.eye(12), J.T)
    b = np.array([-1.0, 0.3, -0.2, -0.5, 0.1, 0.4, -0.8, -0.3, 0.2])
    u = rng.normal(size=(3, 3))
    slide = np.array(mask, dtype=bool)
    s = ContactSettings(friction=0.4)
    lam, status, residual = _with_sliding(Gm, b, 0.4, slide, u, s)
    lam_c, st_c, res_c = with_sliding(Gm, b, 0.4, slide, u, s.tol, s.max_iter)
    np.testing.assert_allclose(lam_c, lam, rtol=0, atol=1e-12)
    assert ("ok", "no_solution", "max_iterations", "inconsistent", "indeterminate")[[0, 2, 1, 3, 4][st_c]] == status
    assert abs(res_c - residual) < 1e-12 and np.abs(lam).max() > 0.1
