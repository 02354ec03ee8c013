"""Piles of boxes beside MuJoCo, in the same run: the same MJCF (free boxes and a floor plane, each
geom's friction 0.5) loaded by both, 1 ms steps, the load average printed.

- A table: N = 1, 2, 5, 10, 20, 50, 100 cubes (10 cm, 1 kg) resting in layers on the floor
  (a square grid, 2 mm apart), 0.2 s (fewer steps where artidyn's would take more than 20 s):
  microseconds per step, the active contacts per step on both sides and artidyn's ADMM iterations
  per step.
- 100 cubes (a 5 x 5 x 4 grid, jittered in x, y and yaw by a seeded generator, 4 cm apart and
  5 cm above each other) falling into a pile, 1 s: microseconds per step, the contacts per step
  (mean and most), the peak resident memory of the process after each side's run and artidyn's
  deepest penetration (MuJoCo's contacts are soft: its deepest is printed beside).

Run: ``python benchmarks/pile_scenes.py [--quick] [--solver pgs]``. Asserts nothing.
"""
import argparse
import os
import resource
import sys
import tempfile
import time
import warnings

import numpy as np

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.interop import MujocoConverter

SIZE, MU, DT = 0.1, 0.5, 1e-3
COUNTS = (1, 2, 5, 10, 20, 50, 100)


def pile_mjcf(poses, size=SIZE, mu=MU, dt=DT):
    """An MJCF text: a floor plane and one free cube (edge ``size``, 1 kg) per pose (x, y, z, yaw)."""
    h = size / 2
    bodies = "".join(
        f'<body name="box{k}" pos="{x!r} {y!r} {z!r}" euler="0 0 {yaw!r}"><freejoint name="free{k}"/>'
        f'<geom type="box" size="{h!r} {h!r} {h!r}" mass="1" friction="{mu!r} 0.005 0.0001"/></body>'
        for k, (x, y, z, yaw) in enumerate(poses))
    return (f'<mujoco model="pile of {len(poses)} boxes"><compiler angle="radian"/>'
            f'<option timestep="{dt!r}"/><worldbody>'
            f'<geom name="floor" type="plane" size="0 0 1" friction="{mu!r} 0.005 0.0001"/>{bodies}'
            f'</worldbody></mujoco>')


def resting(n, size=SIZE, gap=0.002):
    """Poses of n cubes resting in layers on the floor (square layers of side ceil(n^(1/3)))."""
    side = int(np.ceil(round(n ** (1 / 3), 9)))
    out = []
    for k in range(n):
        i, j, l = k % side, (k // side) % side, k // (side * side)
        out.append(((i - (side - 1) / 2) * (size + gap), (j - (side - 1) / 2) * (size + gap),
                    size / 2 + l * size, 0.0))
    return out


def falling(nx=5, ny=5, nz=4, size=SIZE, gap=0.04, drop=0.05, seed=0):
    """Poses of an nx x ny x nz grid of cubes above the floor, jittered in x, y (a tenth of the gap)
    and yaw (up to 0.3 rad), none touching another (a cube turned by 0.3 rad reaches 0.626 of its
    side from its centre along x or y)."""
    rng = np.random.default_rng(seed)
    out = []
    for l in range(nz):
        for j in range(ny):
            for i in range(nx):
                x = (i - (nx - 1) / 2) * (size + gap) + rng.uniform(-0.1, 0.1) * gap
                y = (j - (ny - 1) / 2) * (size + gap) + rng.uniform(-0.1, 0.1) * gap
                out.append((x, y, size / 2 + drop + l * (size + drop), rng.uniform(-0.3, 0.3)))
    return out


def scene(poses):
    """(artidyn model, MjModel, q0) of the pile."""
    import mujoco
    text = pile_mjcf(poses)
    mj = mujoco.MjModel.from_xml_string(text)
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = os.path.join(folder, "pile.xml")
        with open(path, "w") as f:
            f.write(text)
        model = ad.load_mjcf(path)
    return model, mj, MujocoConverter(model, mj).from_mj_qpos(mj.qpos0)


SOLVER = ["admm"]        # the contact solver of artidyn's runs (--solver)


def run_artidyn(model, q0, t_final):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ad.simulate(model, q0, None, t_final=t_final, dt=DT,
                           contact=ContactSettings(friction=MU, solver=SOLVER[0]))


def run_mujoco(mj, t_final):
    """MuJoCo from qpos0 at rest: (contacts per step, the deepest contact distance)."""
    import mujoco
    d = mujoco.MjData(mj)
    n = int(round(t_final / mj.opt.timestep))
    nc = np.empty(n, int)
    deep = 0.0
    for k in range(n):
        mujoco.mj_step(mj, d)
        nc[k] = d.ncon
        if d.ncon:
            deep = min(deep, float(d.contact.dist[:d.ncon].min()))
    return nc, deep


def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def table(counts=COUNTS, t_final=0.2, repeat=3, budget=20.0):
    """Rows (n, steps, artidyn us/step, contacts/step, MuJoCo us/step, MuJoCo contacts/step, artidyn
    ADMM iterations/step). A scene whose first steps show that its run would take more than
    ``budget`` seconds runs fewer steps (as many as the budget allows, at least 5), once."""
    from simulate import best_of       # benchmarks/ on sys.path (main)
    rows = []
    for n in counts:
        model, mj, q0 = scene(resting(n))
        run_artidyn(model, q0, 2 * DT)
        t0 = time.perf_counter()
        run_artidyn(model, q0, 5 * DT)
        per = (time.perf_counter() - t0) / 5
        steps, rep = int(round(t_final / DT)), repeat
        if per * steps * repeat > budget:
            steps, rep = max(5, min(steps, int(budget / per))), 1
        T = steps * DT
        t_a, r = best_of(lambda: run_artidyn(model, q0, T), rep)
        t_m, (nc_m, _) = best_of(lambda: run_mujoco(mj, T), repeat)
        nc_a = np.mean([len(c.gap) for c in r.contacts[1:]])
        rows.append((n, steps, t_a / steps * 1e6, nc_a, t_m / steps * 1e6, float(np.mean(nc_m)),
                     r.stats["solver_iterations"] / steps))
        print(f"N={n:4d} {steps:4d} steps  artidyn {rows[-1][2]:11.1f} us/step {nc_a:6.1f} contacts "
              f"{rows[-1][6]:6.1f} solver it/step   MuJoCo {rows[-1][4]:8.1f} us/step {rows[-1][5]:6.1f} contacts   "
              f"ratio {rows[-1][2] / rows[-1][4]:8.2f}", flush=True)
    return rows


def falling_pile(t_final=1.0, repeat=2):
    """The 100 falling cubes: a dict of the measures."""
    from simulate import best_of
    model, mj, q0 = scene(falling())
    steps = int(round(t_final / DT))
    before = rss_mb()
    run_artidyn(model, q0, 5 * DT)
    t_a, r = best_of(lambda: run_artidyn(model, q0, t_final), repeat)
    rss_a = rss_mb()
    t_m, (nc_m, deep_m) = best_of(lambda: run_mujoco(mj, t_final), repeat)
    nc = [len(c.gap) for c in r.contacts]
    deep = -min(min(c.gap, default=0.0) for c in r.contacts)
    out = dict(us_art=t_a / steps * 1e6, us_mj=t_m / steps * 1e6, nc_art=float(np.mean(nc)), nc_art_max=max(nc),
               nc_mj=float(np.mean(nc_m)), nc_mj_max=int(nc_m.max()), rss_before=before, rss_art=rss_a,
               rss_mj=rss_mb(), deep_art=deep, deep_mj=-deep_m, it=r.stats["solver_iterations"] / steps)
    print(f"100 cubes falling into a pile, {t_final:g} s at 1 ms: artidyn {out['us_art']:.0f} us/step, "
          f"MuJoCo {out['us_mj']:.0f} us/step (ratio {out['us_art'] / out['us_mj']:.2f}); contacts per step "
          f"artidyn {out['nc_art']:.0f} (most {out['nc_art_max']}, {out['it']:.0f} solver it/step), "
          f"MuJoCo {out['nc_mj']:.0f} (most "
          f"{out['nc_mj_max']}); peak RSS {before:.0f} MB before, {rss_a:.0f} MB after artidyn's runs, "
          f"{out['rss_mj']:.0f} MB after MuJoCo's; deepest penetration artidyn {deep * 1e3:.2f} mm, "
          f"MuJoCo {-deep_m * 1e3:.2f} mm", flush=True)
    return out


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--pile-time", type=float, default=1.0, help="seconds of the falling pile (1)")
    p.add_argument("--solver", choices=("admm", "pgs"), default="admm", help="artidyn's contact solver (admm)")
    a = p.parse_args(argv)
    SOLVER[0] = a.solver
    print(f"artidyn's contact solver: {a.solver}")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from simulate import load_average, machine, versions
    print(f"machine: {machine()}")
    print(f"versions: {versions()}")
    print(f"load average before: {load_average()}", flush=True)
    table((1, 2, 5, 10) if a.quick else COUNTS)
    print(f"load average: {load_average()}", flush=True)
    falling_pile(0.2 if a.quick else a.pile_time, 1)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
