"""The compiled contact step's polish on a held Delassus matrix (artidyn.kernels.contact_chord): a
step that the warm start does not solve is polished with Newton's matrix formed on the Delassus
matrix of the last step that formed it, the step's own velocities evaluated through the rows. The
readable route forms the matrix at every step; the two runs are held equal, and the count of such
steps (``stats["chord_steps"]``) shows that the compiled run took them."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.geometry import Capsule, HalfSpace
from artidyn.sim.contact_run import simulate_contact
from test_contact import G
from test_contact_compiled import assert_same, stack


def leaning_rods(n, lean, length=1.0, radius=0.02, m=1.0, spacing=2.0):
    """n rods (capsules) on a circle of radius ``spacing``, rod i turned by ``lean`` from the
    vertical about the horizontal axis at angle 2 pi i / n, its lower end on the ground."""
    b = ad.ModelBuilder("rods")
    inertia = np.diag([m * length ** 2 / 12] * 2 + [m * radius ** 2 / 2])
    for i in range(n):
        b.add_body(f"rod{i}", "world", "free", mass=m, inertia=inertia)
        b.add_collision(f"rod{i}", Capsule(radius, length))
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    for i in range(n):
        phi = 2 * np.pi * i / n
        axis = np.array([np.cos(phi), np.sin(phi), 0.0])
        qi = q[model.q_slice(model.joint_names[i + 1])]
        qi[:3] = (spacing * np.cos(phi), spacing * np.sin(phi), 0.5 * length * np.cos(lean) + radius)
        qi[3:7] = np.r_[np.sin(lean / 2) * axis, np.cos(lean / 2)]
    return model, q


@pytest.mark.parametrize("mu", [0.1, 0.3])
def test_falling_rods_whose_feet_slide_are_solved_on_the_held_matrix(mu):
    """Eight rods released from rest at a = 30 degrees from the vertical, each leaning its own way,
    each on one end. A rod's foot would need mu >= 3 sin a cos a / (4 - 3 sin^2 a) = 0.40 to stick
    (the rod turning about its foot: the foot's horizontal force (3/4) m g sin a cos a over the
    normal one m g (1 - (3/4) sin^2 a)), so every foot slides, under a normal force that changes as
    its rod turns: the impulses change at every step and the warm start solves none. The compiled
    run equals the readable one, each rod's ground force stays on its cone's edge, and the held
    matrix solved most of the steps."""
    n = 8
    model, q = leaning_rods(n, np.radians(30.0))
    s = ContactSettings(friction=mu)
    c = simulate_contact(model, q, np.zeros(model.nv), 0.0, 0.25, 1e-3, s, route="compiled")
    r = simulate_contact(model, q, np.zeros(model.nv), 0.0, 0.25, 1e-3, s, route="reference")
    assert_same(c, r, atol=1e-9)
    touching = np.zeros((c.t.size - 1, n), bool)         # (a rolling end's gap creeps past 1e-6 m now
    for k, x in enumerate(c.contacts[:-1]):             # and then: that rod lets go for a step)
        assert len(set(x.body_a.tolist())) == len(x.gap)            # one contact a rod
        touching[k, np.asarray(x.body_a) - 1] = True
    assert touching.mean() > 0.8
    for i in range(n):
        f = c.contact_forces[:-1, i + 1][touching[:, i]]            # the ground's force on rod i
        assert np.all(f[:, 2] > 0.1 * G)
        np.testing.assert_allclose(np.hypot(f[:, 0], f[:, 1]), mu * f[:, 2], rtol=1e-6)
        foot = np.array([x.point_a[list(x.body_a).index(i + 1)] for x in c.contacts if i + 1 in x.body_a])
        phi = 2 * np.pi * i / n                 # the rod's top leans towards (sin phi, -cos phi): its foot slides away
        assert (foot[-1, :2] - foot[0, :2]) @ np.array([-np.sin(phi), np.cos(phi)]) > 1e-3
    assert c.stats["chord_steps"] > 0.6 * (c.t.size - 1)      # (a rod touching again: its W is formed)
    assert "chord_steps" not in r.stats


def test_a_resting_stack_stays_at_rest_on_the_warm_start():
    """Three boxes stacked at rest for 2 s (12 face contacts). Each box on its corners under the
    previous step's impulses is an inverted pendulum (forces fixed at points below its centre of
    mass): a drift within the solver's tolerance grows e-fold in about sqrt(a / 3 g) = 58 ms (the
    top cube, a = 0.1 m), until a step is polished. The polished step's impulses hold the one that
    stopped the drift; the next step's warm start leaves it out (one Newton step of the polished
    modes on the next step's problem, :func:`artidyn.kernels.contact_chord.predict`). Without that,
    the reused impulse set the boxes moving again and from then on every other step took the polish
    (451 of 2000). The stack stays at rest, each box's contacts carry its weight, and a handful of
    steps are polished."""
    model, q = stack(drop=0.0)
    masses = np.array([3.0, 2.0, 1.0])
    c = simulate_contact(model, q, np.zeros(model.nv), 0.0, 2.0, 1e-3, ContactSettings(friction=0.8),
                         route="compiled")
    assert c.stats["chord_steps"] <= 20
    assert np.abs(c.v).max() < 1e-9
    assert np.abs(c.q - q).max() < 1e-9
    for k in (1, 1000, 1999):           # each box's contacts (ground and boxes) carry its weight
        np.testing.assert_allclose(c.contact_forces[k, 1:4], np.c_[np.zeros((3, 2)), G * masses], rtol=0,
                                   atol=1e-6)
