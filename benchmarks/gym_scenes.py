"""The legged and humanoid MJCF scenes of the ``gymnasium`` package (ant, hopper, walker2d,
humanoid) on their own geoms and floor, beside MuJoCo loading the same files, in the same run.

Each scene starts from its reset pose (gymnasium's ``init_qpos`` is MuJoCo's ``qpos0``, turned
into artidyn's q by :class:`artidyn.interop.MujocoConverter`) at rest, with zero torques (the
environments' zero action), and runs 1 s at the file's own time step on both sides: artidyn's
compiled Moreau-Jean pipeline (rigid contacts, the geoms' own friction, each pair's the larger)
and MuJoCo's ``mj_step`` with the file's own options (integrator, solver, margins). MuJoCo's
contacts are soft, so the torso heights are compared over time (a few sample times and the
largest difference) rather than expected equal.

Run: ``python benchmarks/gym_scenes.py``; ``benchmarks/scenes.py`` prints the same rows in its
table. Asserts nothing.
"""
import os
import sys
import warnings

import numpy as np

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.interop import MujocoConverter

SCENES = (("ant", "ant.xml"), ("hopper", "hopper.xml"), ("walker2d", "walker2d_v5.xml"),
          ("humanoid", "humanoid.xml"))
SAMPLES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0)


def asset(file):
    """The path of a gymnasium MuJoCo asset."""
    import gymnasium
    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", file)


def gym_scene(file):
    """(artidyn model, MjModel, q0 artidyn's reset pose, dt the file's time step). Joints whose
    ``qpos0`` lies outside their range (the ant's ankles, 0 against 30 .. 70 degrees; the humanoid's
    knees, 0 against -160 .. -2) start at the nearest end on both sides: MuJoCo's soft limits push
    them there in the first steps, while artidyn's velocity-level limits hold a violation where it
    is (they stop it growing, they do not undo it)."""
    import mujoco
    path = asset(file)
    mj = mujoco.MjModel.from_xml_path(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ad.load(path)
    q0 = MujocoConverter(model, mj).from_mj_qpos(mj.qpos0)
    for i in range(1, model.nb + 1):          # the ant's ankles and the humanoid's knees: onto their ranges
        if model.nq_joint[i] == 1:
            k = int(model.idx_q[i])
            q0[k] = min(max(q0[k], model.lower[k]), model.upper[k])
    return model, mj, q0, float(mj.opt.timestep)


def torso_heights(model, Q):
    """The world height of the body 'torso' (its frame's origin) along the rows of Q."""
    return ad.body_placements(model, Q)[:, model.body_names.index("torso"), 2, 3]


def run_artidyn(model, q0, dt, t_final=1.0):
    """The compiled run from rest at q0 with zero torques; the SimulationResult."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # the ant's ankles start outside their ranges
        return ad.simulate(model, q0, None, t_final=t_final, dt=dt, contact=ContactSettings())


def run_mujoco(mj, qpos, t_final=1.0):
    """MuJoCo from qpos at rest, zero ctrl: the torso heights after each step (and at t = 0)."""
    import mujoco
    d = mujoco.MjData(mj)
    d.qpos[:] = qpos
    torso = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, "torso")
    n = int(round(t_final / mj.opt.timestep))
    z = np.empty(n + 1)
    mujoco.mj_forward(mj, d)
    z[0] = d.xpos[torso, 2]
    for k in range(n):
        mujoco.mj_step(mj, d)
        z[k + 1] = d.xpos[torso, 2]
    return z


def gym_rows(rows, repeat=3, t_final=1.0, verbose=True):
    """One row per scene: (name, artidyn us/step, MuJoCo us/step, note); prints the torso heights."""
    from simulate import best_of       # benchmarks/ on sys.path: run as a script or from scenes.py
    for name, file in SCENES:
        model, mj, q0, dt = gym_scene(file)
        steps = int(round(t_final / dt))
        t_final = steps * dt
        run_artidyn(model, q0, dt, 5 * dt)            # compiled once
        t_art, res = best_of(lambda: run_artidyn(model, q0, dt, t_final), repeat)
        qpos = MujocoConverter(model, mj).to_mj_qpos(q0)
        t_mj, z_mj = best_of(lambda: run_mujoco(mj, qpos, t_final), repeat)
        z_art = torso_heights(model, res.q)
        n = min(len(z_art), len(z_mj))
        diff = np.abs(z_art[:n] - z_mj[:n])
        nc = np.mean([len(c.gap) for c in res.contacts])
        deep = -min(min(c.gap, default=0.0) for c in res.contacts)
        k = [min(int(round(t / dt)), n - 1) for t in SAMPLES]
        if verbose:
            print(f"{name}: {model.nv} dofs, {len(model.collisions)} shapes, dt {dt * 1e3:g} ms, {steps} steps")
            print("  t (s)        " + " ".join(f"{t:8.2f}" for t in SAMPLES))
            print("  torso z art  " + " ".join(f"{z_art[i]:8.4f}" for i in k))
            print("  torso z mj   " + " ".join(f"{z_mj[i]:8.4f}" for i in k), flush=True)
        T = round(t_final, 2)
        rows.append((f"gymnasium {name}, zero torques, {T:g} s", t_art / steps * 1e6, t_mj / steps * 1e6,
                     f"dt {dt * 1e3:g} ms, {nc:.1f} contacts/step; torso z at {T:g} s {z_art[n - 1]:.3f} m "
                     f"(MuJoCo {z_mj[n - 1]:.3f}), largest difference {diff.max() * 1e3:.0f} mm; artidyn's deepest "
                     f"penetration {deep * 1e3:.1f} mm"))
    return rows


def main():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from simulate import load_average, machine, versions
    print(f"machine: {machine()}")
    print(f"versions: {versions()}")
    print(f"load average before: {load_average()}")
    rows = gym_rows([])
    print(f"load average after: {load_average()}")
    print(f"{'scene':46s} {'artidyn us/step':>16s} {'MuJoCo us/step':>15s} {'ratio':>7s}  notes")
    for name, a, m, note in rows:
        print(f"{name:46s} {a:16.2f} {m:15.2f} {a / m:7.2f}  {note}")


if __name__ == "__main__":
    main()
