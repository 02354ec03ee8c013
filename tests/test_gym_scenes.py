"""The legged and humanoid MJCF scenes of the gymnasium package (ant, hopper, walker2d, humanoid) on
their own geoms and floor (issue #32 item 7): each loads, runs on the compiled contact pipeline from
its reset pose with zero torques, and its torso comes to rest at MuJoCo's height (MuJoCo's contacts
are soft and its ant geoms carry a 1 cm margin: within a few cm, not equal). The humanoid's thighs
overlap its pelvis by about 10 cm at the reset pose, a pair MuJoCo's parent filter leaves out (the
thigh's three hinges are a chain of bodies in artidyn, and the filter is kept by an exclusion): the
pairs artidyn tests are MuJoCo's, checked against its contact list. And a small pile of boxes falling
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


@pytest.mark.parametrize("name", ["humanoid", "ant"])
def test_the_pairs_in_contact_are_mujocos(name):
    """At the reset pose and at random poses of the joints (limbs crossing each other and the floor),
    the geom pairs overlapping by more than 2 mm in artidyn are in MuJoCo's contact list, and those
    MuJoCo finds overlapping by more than 2 mm artidyn finds in contact: the same filters (bit masks,
    parent and child on the MJCF bodies, a body with several joints included)."""
    import mujoco
    from artidyn.geometry import contact_candidates
    from artidyn.interop import MujocoConverter
    model, mj, q0, _ = gym.gym_scene(CASES[name][0])
    conv = MujocoConverter(model, mj)
    names = [c.name for c in model.collisions]
    d = mujoco.MjData(mj)
    rng = np.random.default_rng(5)
    lo, hi = np.asarray(model.lower, float), np.asarray(model.upper, float)
    seen = 0
    for trial in range(12):
        q = q0.copy()
        if trial:
            for i in range(2, model.nb + 1):           # the joints: uniform within their limits
                iv, iq = model.idx_v[i], model.idx_q[i]
                for k in range(model.nv_joint[i]):
                    a, b = lo[iq + k], hi[iq + k]
                    if np.isfinite(a) and np.isfinite(b):
                        q[iq + k] = rng.uniform(a, b)
            q[2] = rng.uniform(0.2, 0.6)                 # low: the limbs reach the floor
        d.qpos[:] = conv.to_mj_qpos(q)
        mujoco.mj_forward(mj, d)
        theirs_all = set()
        theirs_deep = set()
        for c in d.contact[:d.ncon]:
            pair = frozenset((mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_GEOM, c.geom1) or "floor",
                              mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_GEOM, c.geom2) or "floor"))
            theirs_all.add(pair)
            if c.dist < -2e-3:
                theirs_deep.add(pair)
        C = contact_candidates(model, ad.body_placements(model, q), margin=0.0)
        ours_all = {frozenset((names[a], names[b])) for a, b in zip(C.shape_a, C.shape_b)}
        ours_deep = {frozenset((names[a], names[b])) for a, b, g in zip(C.shape_a, C.shape_b, C.distance)
                     if g < -2e-3}
        assert ours_deep <= theirs_all, (trial, ours_deep - theirs_all)
        assert theirs_deep <= ours_all, (trial, theirs_deep - ours_all)
        seen += len(ours_deep)
    assert seen >= 5                                     # the poses did cross limbs and reach the floor


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
