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
from test_contact_compiled import assert_same


def leaning_rod(lean, length=1.0, radius=0.02, m=1.0):
    """A rod (a capsule) turned by ``lean`` about x from the vertical (its top towards -y), its
    lower end on the ground at y = length sin(lean) / 2."""
    b = ad.ModelBuilder("rod")
    i = m * length ** 2 / 12
    b.add_body("rod", "world", "free", mass=m, inertia=np.diag([i, i, m * radius ** 2 / 2]))
    b.add_collision("rod", Capsule(radius, length))
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    q[:3] = (0.0, 0.0, 0.5 * length * np.cos(lean) + radius)
    q[3:7] = (np.sin(lean / 2), 0.0, 0.0, np.cos(lean / 2))
    return model, q


@pytest.mark.parametrize("mu", [0.1, 0.3])
def test_a_falling_rod_whose_foot_slides_is_solved_on_the_held_matrix(mu):
    """Released from rest at a = 30 degrees from the vertical, the rod's foot would need
    mu >= 3 sin a cos a / (4 - 3 sin^2 a) = 0.40 to stick (the rod turning about its foot: the
    foot's horizontal force (3/4) m g sin a cos a over the normal one m g (1 - (3/4) sin^2 a)),
    so it slides away from the lean, under a normal force that changes as the rod turns: the
    impulses change at every step and the warm start solves none. The compiled run equals the
    readable one, the ground's force stays on the cone's edge, and the held matrix solved most of
    the steps."""
    model, q = leaning_rod(np.radians(30.0))
    s = ContactSettings(friction=mu)
    c = simulate_contact(model, q, np.zeros(6), 0.0, 0.25, 1e-3, s, route="compiled")
    r = simulate_contact(model, q, np.zeros(6), 0.0, 0.25, 1e-3, s, route="reference")
    assert_same(c, r, atol=1e-9)
    touching = np.array([len(x.gap) for x in c.contacts[:-1]])
    assert touching.max() == 1 and touching.sum() > 0.8 * touching.size      # (a rolling end's gap creeps past
    foot_y = [x.point_a[0][1] for x in c.contacts if len(x.gap)]             # 1e-6 m now and then: let go, closed)
    assert foot_y[-1] > foot_y[0] + 1e-3                      # the foot slid away from the lean (towards +y)
    f = c.contact_forces[:-1, 1][touching == 1]               # the ground's force on the rod
    assert np.all(f[:, 2] > 0.1 * G)
    np.testing.assert_allclose(np.hypot(f[:, 0], f[:, 1]), mu * f[:, 2], rtol=1e-6)
    assert c.stats["chord_steps"] > 0.75 * touching.sum()
    assert "chord_steps" not in r.stats
