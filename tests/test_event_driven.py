"""The event-driven contact integrator: impacts located in time, Zeno's accumulation passed,
stick events located, against the closed forms."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.errors import InputError
from artidyn.geometry import Box, HalfSpace, Sphere
from artidyn.spatial.rotations import quat_to_matrix

G = 9.81


def _ball(R=0.1, m=1.0):
    b = ad.ModelBuilder("ball")
    b.add_body("ball", "world", "free", mass=m, inertia=np.eye(3) * 0.4 * m * R * R)
    b.add_collision("ball", Sphere(R))
    b.add_collision("world", HalfSpace(normal=(0, 0, 1)))
    return b.build()


def _puck():
    b = ad.ModelBuilder("puck")
    b.add_body("puck", "world", "free", mass=1.0, inertia=np.eye(3) * 0.01)
    b.add_collision("puck", Box((0.2, 0.2, 0.05)))
    b.add_collision("world", HalfSpace(normal=(0, 0, 1)))
    return b.build()


def test_bouncing_ball_impact_times_and_zeno():
    """Dropped from h with restitution e: impacts at t1 = sqrt(2h/g), then every 2 t1 e^k later
    (closed form) to 1e-8 s; they accumulate at t1 (1 + e) / (1 - e); the run passes that time
    (the impacts slower than 1 mm/s are plastic) and the ball then rests on the ground."""
    R, h, e = 0.1, 1.0, 0.8
    model = _ball(R)
    q0 = np.array([0.0, 0.0, R + h, 0.0, 0.0, 0.0, 1.0])
    run = ad.simulate(model, q0, np.zeros(6), t_final=4.5, dt=1e-2, method="event_driven",
                      contact=ContactSettings(restitution=e))
    impacts = [ev.time for ev in run.events if ev.kind == "impact"]
    t1 = np.sqrt(2 * h / G)
    exact = t1 + np.concatenate([[0.0], np.cumsum(2 * t1 * e ** np.arange(1, len(impacts)))])
    assert np.abs(np.array(impacts[:12]) - exact[:12]).max() < 1e-8
    t_inf = t1 * (1 + e) / (1 - e)
    assert impacts[-1] < t_inf and t_inf - impacts[-1] < 2e-3
    after = run.t > t_inf + 0.01
    assert np.abs(run.q[after, 2] - R).max() < 1e-9 and np.abs(run.v[after]).max() < 1e-9
    assert np.diff(run.energy.total).max() < 1e-9                  # never created


def test_elastic_impacts_conserve_energy():
    model = _ball()
    run = ad.simulate(model, np.array([0.0, 0.0, 0.6, 0.0, 0.0, 0.0, 1.0]), np.array([0, 0, 0, 0.3, 0, 0.0]),
                      t_final=1.5, dt=1e-2, method="event_driven", contact=ContactSettings(restitution=1.0))
    assert sum(ev.kind == "impact" for ev in run.events) >= 2
    assert np.ptp(run.energy.total) < 1e-9


def test_puck_stops_at_the_closed_form_time_and_distance():
    """A box (four corner contacts) launched at v0 slides with a = -mu g and sticks at v0 / (mu g),
    after v0^2 / (2 mu g): the stick events are located there and it stays."""
    mu, v0 = 0.3, 2.0
    run = ad.simulate(_puck(), np.array([0.0, 0.0, 0.025, 0.0, 0.0, 0.0, 1.0]), np.array([0, 0, 0, v0, 0, 0.0]),
                      t_final=1.0, dt=1e-2, method="event_driven", contact=ContactSettings(friction=mu))
    sticks = [ev.time for ev in run.events if ev.kind == "stick"]
    assert len(sticks) == 4 and np.abs(np.array(sticks) - v0 / (mu * G)).max() < 1e-9
    assert abs(run.q[-1, 0] - v0 ** 2 / (2 * mu * G)) < 1e-9
    assert np.abs(run.v[-1]).max() < 1e-12 and abs(run.q[-1, 2] - 0.025) < 1e-12


def test_sphere_starts_rolling_at_the_closed_form_time():
    """A ball launched sliding without spin: kinetic friction until t = 2 v0 / (7 mu g) (the stick
    event), then rolling at 5 v0 / 7 with omega = v / R."""
    mu, v0, R = 0.3, 2.0, 0.1
    run = ad.simulate(_ball(R), np.array([0.0, 0.0, R, 0.0, 0.0, 0.0, 1.0]), np.array([0, 0, 0, v0, 0, 0.0]),
                      t_final=0.5, dt=1e-2, method="event_driven", contact=ContactSettings(friction=mu))
    sticks = [ev.time for ev in run.events if ev.kind == "stick"]
    assert len(sticks) == 1 and abs(sticks[0] - 2 * v0 / (7 * mu * G)) < 1e-6
    Rw = quat_to_matrix(run.q[-1, 3:][None])[0]
    v, w = Rw @ run.v[-1, 3:], Rw @ run.v[-1, :3]
    assert abs(v[0] - 5 * v0 / 7) < 1e-5 and abs(w[1] - v[0] / R) < 1e-9
    assert abs(run.q[-1, 2] - R) < 1e-9


def test_event_driven_refusals():
    model = _ball()
    q0 = np.array([0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0])
    with pytest.raises(InputError, match="sequential"):
        ad.simulate(model, q0, np.zeros(6), t_final=0.1, dt=1e-2, method="event_driven",
                    contact=ContactSettings(impacts="sequential"))


def _stop_pendulum():
    """A pendulum (1 kg at 0.5 m, about y) released horizontally swings down onto a stop at +30 deg,
    with a sphere far above the ground (so the run has a collision shape)."""
    b = ad.ModelBuilder("pendulum_stop")
    b.add_body("link", "world", "revolute", joint_name="hinge", axis=(0, 1, 0), mass=1.0, com=(0.5, 0, 0),
               inertia=np.diag([1e-4, 1e-4, 1e-4]), lower=-np.radians(120.0), upper=np.radians(30.0))
    b.add_collision("link", Sphere(0.05), xyz=(0.5, 0.0, 0.0))
    b.add_collision("world", HalfSpace(normal=(0, 0, 1), offset=-2.0))
    return b.build()


@pytest.mark.parametrize("e", [0.0, 0.5])
def test_joint_limit_reached_is_a_located_event(e):
    """The stop is reached at the time of the free swing (solve_ivp's event on I th'' = m g l cos th,
    an independent integrator), located to ~1e-9 s; Newton's law with limit_restitution there; with
    e = 0 the pendulum stays on the stop, pressed by its weight, the stop never crossed."""
    from scipy.integrate import solve_ivp
    model = _stop_pendulum()
    I, th_stop = 0.25 + 1e-4, np.radians(30.0)
    hit = lambda t, y: y[0] - th_stop                                       # noqa: E731
    hit.terminal = True
    ref = solve_ivp(lambda t, y: [y[1], 9.81 * 0.5 * np.cos(y[0]) / I], (0, 2), [0.0, 0.0], events=hit,
                    rtol=1e-12, atol=1e-14)
    t_hit, w_hit = float(ref.t_events[0][0]), float(ref.y_events[0][0][1])
    run = ad.simulate(model, np.zeros(1), np.zeros(1), t_final=0.6, dt=1e-2, method="event_driven",
                      contact=ContactSettings(limit_restitution=e))
    lim = [ev for ev in run.events if ev.kind == "limit"]
    assert lim and lim[0].body_a == "hinge" and lim[0].body_b == "upper"
    assert abs(lim[0].time - t_hit) < 1e-8
    assert run.q[:, 0].max() <= th_stop + 1e-9
    k = int(np.searchsorted(run.t, t_hit))                                   # the first sample after it
    if e == 0.0:
        np.testing.assert_allclose(run.q[k:, 0], th_stop, atol=1e-9)
        np.testing.assert_allclose(run.v[k:, 0], 0.0, atol=1e-9)
        assert len(lim) == 1
    else:
        # leaves the stop at e times the arrival speed; back on it after the free flight of that speed
        w_out = -e * w_hit
        back = lambda t, y: y[0] - th_stop                                  # noqa: E731
        back.terminal, back.direction = True, 1.0                           # reaching the stop again
        free = solve_ivp(lambda t, y: [y[1], 9.81 * 0.5 * np.cos(y[0]) / I], (0, 2), [th_stop, w_out],
                         events=back, rtol=1e-12, atol=1e-14)
        t2 = [ev.time for ev in lim]
        assert len(t2) >= 2 and abs(t2[1] - (t_hit + float(free.t_events[0][-1]))) < 1e-7
