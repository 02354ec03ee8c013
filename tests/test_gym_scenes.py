"""The legged and humanoid MJCF scenes of the gymnasium package (ant, hopper, walker2d, humanoid) on
their own geoms and floor (issue #32 item 7): each loads, runs on the compiled contact pipeline from
its reset pose with zero torques, and its torso comes to rest at MuJoCo's height (MuJoCo's contacts
are soft and its ant geoms carry a 1 cm margin: within a few cm, not equal). The humanoid's thighs
start inside its pelvis (the file's geoms overlap by about 10 cm at the reset pose): artidyn keeps
such an overlap, so the penetration bound is on the floor contacts. And a small pile of boxes falling
on the floor (the benchmark's 100-box pile, smaller): bounded memory and penetration. Not timed.
"""
import pathlib

import numpy as np
import pytest

import artidyn as ad


def _benchmark(name):
    """A module of benchmarks/ by its path (benchmarks/ is not put on sys.path)."""
    import importlib.util
    path = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gym = _benchmark("gym_scenes")

# (file, shapes)
CASES = {"ant": ("ant.xml", 14), "hopper": ("hopper.xml", 5), "walker2d": ("walker2d_v5.xml", 8),
         "humanoid": ("humanoid.xml", 18)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gym_scene_settles_at_mujocos_height(name):
    file, shapes = CASES[name]
    model, mj, q0, dt = gym.gym_scene(file)
    assert len(model.collisions) == shapes                   # every geom a shape, the floor a half-space
    assert any(isinstance(c.shape, ad.geometry.HalfSpace) for c in model.collisions)
    assert ad.within_limits(model, q0)
    n = int(round(0.4 / dt))
    t_final = n * dt
    res = gym.run_artidyn(model, q0, dt, t_final)
    assert res.q.shape[0] == n + 1 and np.all(np.isfinite(res.q))
    z = gym.torso_heights(model, res.q)
    from artidyn.interop import MujocoConverter
    z_mj = gym.run_mujoco(mj, MujocoConverter(model, mj).to_mj_qpos(q0), t_final)
    assert z[0] == pytest.approx(z_mj[0], abs=1e-12)          # the same start
    assert z[-1] < z[0] - 0.03                               # it fell onto the floor ...
    c = res.contacts[-1]
    floor = c.gap[(c.body_a == 0) | (c.body_b == 0)]
    assert len(floor) > 0                                    # ... and stands on it
    assert floor.min() > -0.015             # penetration: Moreau-Jean's drift, about a step's fall (ant: 10 ms)
    assert abs(z[-1] - z_mj[-1]) < 0.04                      # MuJoCo's height within a few cm


# --- a pile of boxes (issue #32 item 7): bounded memory, bounded penetration --------------------

piles = _benchmark("pile_scenes")


def test_27_cubes_fall_into_a_pile_in_bounded_memory_within_the_margin():
    """27 cubes (a 3 x 3 x 3 grid, jittered in x, y and yaw, none touching) falling into a pile on
    the compiled route, 0.25 s: the run's resident memory grows by less than 200 MB, every step's
    contacts stay within what the touching pairs can give, no pair sinks deeper into another than
    the margin (1 mm; Moreau-Jean's impact drift, half a step of the landing speed, is about 0.5 mm
    at 1 m/s and 1 ms: no position correction), the bottom layer rests on the floor and no step
    went to the reference route."""
    import resource
    model, mj, q0 = piles.scene(piles.falling(3, 3, 3))
    assert model.nv == 27 * 6 and len(model.collisions) == 28
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    res = piles.run_artidyn(model, q0, 0.25)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200
    assert res.stats["route"] == "compiled" and res.stats["reference_steps"] == []
    n = [len(c.gap) for c in res.contacts]
    assert n[0] == 0 and 9 * 4 <= max(n) <= 27 * 8 + 27 * 13 * 8     # the floor's 9, and at most 8 a neighbour
    assert min(min(c.gap, default=0.0) for c in res.contacts) > -1e-3
    z = res.q[-1].reshape(-1, 7)[:, 2]
    assert np.sum(np.abs(z - 0.05) < 1e-3) >= 9                       # the bottom layer on the floor
    assert np.all(z > 0.05 - 1e-3)
