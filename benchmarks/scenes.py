"""Scenes on the simulation pipeline, beside MuJoCo in the same run.

Each scene runs on artidyn's compiled pipeline (``simulate`` / ``rollout`` with ``contact=``) and on
MuJoCo (``mj_step`` in a Python loop, ``mujoco.rollout`` for batches), same models, same 1 ms step;
best of several runs; the load average is printed. The scenes:

- solo12 standing on four foot spheres under a compiled PD (feed-forward holding torques plus
  kp = 20, kd = 0.5 on the 12 joints) for 1 s; MuJoCo: the same PD as ``general`` actuators
  (force = kp ctrl - kp q - kd qdot) and the feed-forward in ``qfrc_applied``;
- the same with the PD written as a Python function ``tau(t, q, v)`` (artidyn calls it from the
  compiled loop; MuJoCo: a Python loop that sets ``qfrc_applied`` before each ``mj_step``);
- the stack of three boxes of ``contact.py``;
- the built-in four-bar (a closed chain) with a ball on its coupler falling onto a floor;
  MuJoCo: the same chain with a ``connect`` equality;
- 1000 solo12 contact rollouts of 0.2 s (perturbed joint angles) under the PD, against
  ``mujoco.rollout`` with the same actuators;
- talos_full_v2 standing on its own collision meshes for 5 s, the SRDF's ``half_sitting`` posture
  with the lowest collision vertex at z = 0, under a compiled PD (kp = M_ii (2 pi 7 Hz)^2,
  kd = 2 0.7 sqrt(kp M_ii), at least 2000 / 20 on the leg joints, none on the base) plus the
  feed-forward of a quasi-static support (two 6-D sole wrenches solving the base rows of g(q) by
  least squares), the 12 gripper mimic couplings as constraints (``constraints="model"``), mu =
  0.8, the SRDF's disabled pairs off. MuJoCo: the same URDF with the same STL meshes (it collides
  their convex hulls), a free joint, a floor; contacts robot-floor only (robot geoms contype 1 /
  conaffinity 2, floor 2 / 1), as the SRDF's pairs are not in MuJoCo; the URDF's ``<mimic>`` tags
  become MuJoCo joint equalities; the PD as ``general`` actuators on all 44 joints, the
  feed-forward in ``qfrc_applied``, the default solver. Best of 3; the notes give each side's
  largest base height change, its final xy drift and whether it stood (base within 5 cm of its
  start height).

- the gymnasium package's ant, hopper, walker2d and humanoid on their own geoms and floor, 1 s from
  their reset pose with zero torques at the file's time step (``gym_scenes.py``: the torso heights
  over time on both sides).

MuJoCo's contacts are soft (penetration of millimetres) and artidyn's rigid: the table prints the
largest penetration beside the time. The smooth single runs and rollouts are in ``simulate.py``.

Run: ``python benchmarks/scenes.py`` (about a minute and a half after the warm-up). The script
asserts nothing.
"""
import os
import sys
import tempfile
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import artidyn as ad  # noqa: E402
from artidyn.contact import ContactSettings  # noqa: E402
from artidyn.geometry import Collision, HalfSpace, Sphere  # noqa: E402
from artidyn.sim import PD  # noqa: E402
from contact import (DT, MU, floating_mjcf, holding_torques, run_mujoco, setup_mj,  # noqa: E402
                     solo12_artidyn, solo12_mj_state, solo12_mujoco, stack_artidyn, stack_mujoco, standing_state)
from gym_scenes import gym_rows  # noqa: E402
from simulate import best_of, best_of_pair, erd_path, load_average, machine, pure_urdf_root, versions  # noqa: E402

KP, KD = 20.0, 0.5


# --- solo12 under a PD ---------------------------------------------------------------------

def with_pd_actuators(m_xml_root, model, q_ref, kp=KP, kd=KD):
    """The MJCF with a PD ``general`` actuator on each joint (kp, kd: scalars or one per dof);
    (xml, ctrl)."""
    act = ET.SubElement(m_xml_root, "actuator")
    kp, kd = np.broadcast_to(kp, (model.nv,)), np.broadcast_to(kd, (model.nv,))
    ctrl = []
    for i in range(2, model.nb + 1):
        p, d = float(kp[model.idx_v[i]]), float(kd[model.idx_v[i]])
        ET.SubElement(act, "general", joint=model.joint_names[i], gainprm=f"{p!r}", biastype="affine",
                      biasprm=f"0 {-p!r} {-d!r}", ctrllimited="false")
        ctrl.append(q_ref[model.idx_q[i]])
    return ET.tostring(m_xml_root, encoding="unicode"), np.array(ctrl)


def solo12_mujoco_pd(root, model, q_ref):
    import mujoco
    m = solo12_mujoco(root)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.xml")
        mujoco.mj_saveLastXML(path, m)
        xml = ET.parse(path).getroot()
    text, ctrl = with_pd_actuators(xml, model, q_ref)
    m = mujoco.MjModel.from_xml_string(text)
    setup_mj(m)
    return m, ctrl


def solo_scenes(rows):
    import mujoco
    with tempfile.TemporaryDirectory() as folder:
        root = pure_urdf_root(erd_path("solo12"))
        path = Path(folder) / "solo12.urdf"
        path.write_text(ET.tostring(root, encoding="unicode"))
        model = solo12_artidyn(path)
        q0 = standing_state(model)
        tau, _ = holding_torques(model, q0)
        mj, ctrl = solo12_mujoco_pd(root, model, q0)
    s = ContactSettings(friction=MU)
    pd = PD(KP, KD, q0)
    steps = 1000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ad.simulate(model, q0, None, tau, t_final=0.005, dt=DT, contact=s, controller=pd)
        t_art, res = best_of(lambda: ad.simulate(model, q0, None, tau, t_final=steps * DT, dt=DT, contact=s,
                                                 controller=pd), 5)
    act = np.asarray(model.actuated, dtype=float)

    def law(t, q, v):
        return tau + act * (KP * ad.difference(model, q, q0) - KD * v)

    def law_fast(t, q, v, _e=np.zeros(model.nv)):          # the same law without the manifold difference
        _e[6:] = q0[7:] - q[7:]
        return tau + act * (KP * _e - KD * v)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_py, res_py = best_of(lambda: ad.simulate(model, q0, None, law_fast, t_final=steps * DT, dt=DT,
                                                   contact=s), 3)
    qm, fm = solo12_mj_state(mj, model, q0, tau)
    d = mujoco.MjData(mj)

    def mj_run(python=False):
        mujoco.mj_resetData(mj, d)
        d.qpos[:], d.qfrc_applied[:], d.ctrl[:] = qm, fm, ctrl
        if python:
            d.ctrl[:] = 0.0
            mj.actuator_gainprm[:, 0] = 0.0
            mj.actuator_biasprm[:, 1:3] = 0.0
        z = np.empty(steps)
        for k in range(steps):
            if python:     # the PD in Python, as a MuJoCo user writes a controller
                e = ctrl - d.qpos[7:]
                d.qfrc_applied[6:] = fm[6:] + KP * e - KD * d.qvel[6:]
            mujoco.mj_step(mj, d)
            z[k] = d.qpos[2]
        return z

    g0, b0 = mj.actuator_gainprm.copy(), mj.actuator_biasprm.copy()
    t_mj, z_mj = best_of(mj_run, 5)
    t_mj_py, _ = best_of(lambda: mj_run(True), 5)
    mj.actuator_gainprm[:], mj.actuator_biasprm[:] = g0, b0
    drift = float(np.max(np.abs(res.q[:, 2] - q0[2])))
    rows.append(("solo12 standing, compiled PD", t_art / steps * 1e6, t_mj / steps * 1e6,
                 f"base height drift {drift * 1e3:.3f} mm (MuJoCo {np.max(np.abs(z_mj - q0[2])) * 1e3:.3f} mm)"))
    rows.append(("solo12 standing, PD as a Python function", t_py / steps * 1e6, t_mj_py / steps * 1e6,
                 f"{t_py / t_art:.2f}x the compiled PD's run; max |q - q_PD| {np.max(np.abs(res_py.q - res.q)):.2g}"))
    # 1000 rollouts
    N, n_roll = 1000, 200
    rng = np.random.default_rng(0)
    Q = np.repeat(q0[None], N, axis=0)
    Q[:, 7:] += rng.normal(0.0, 0.05, (N, 12))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ad.rollout(model, Q[:4], None, tau, t_final=0.005, dt=DT, contact=s, controller=pd)
        t_r, R = best_of(lambda: ad.rollout(model, Q, None, tau, t_final=n_roll * DT, dt=DT, contact=s, controller=pd,
                                            record=("q", "v")), 3)
    from mujoco import rollout as mjr
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    nstate = mujoco.mj_stateSize(mj, spec)
    X0 = np.zeros((N, nstate))
    for n in range(N):
        mujoco.mj_resetData(mj, d)
        qn, _ = solo12_mj_state(mj, model, Q[n], tau)
        d.qpos[:] = qn
        mujoco.mj_getState(mj, d, X0[n], spec)
    d.qfrc_applied[:] = fm
    ctrl_all = np.repeat(ctrl[None, None], N, axis=0)
    datas = [mujoco.MjData(mj) for _ in range(os.cpu_count() or 1)]
    for x in datas:
        x.qfrc_applied[:] = fm
    mjr.rollout(mj, datas, X0[:4], ctrl_all[:4], nstep=5)
    t_mr, _ = best_of(lambda: mjr.rollout(mj, datas, X0, ctrl_all, nstep=n_roll), 3)
    rows.append((f"{N} solo12 rollouts x {n_roll} steps, PD", t_r / (N * n_roll) * 1e6, t_mr / (N * n_roll) * 1e6,
                 f"per run-step; status all 0: {bool(np.all(R.stats['status'] == 0))}"))


# --- the box stack ----------------------------------------------------------------------------

def stack_scene(rows, repeat=5):
    import mujoco
    model, q0 = stack_artidyn()
    bodies = ["box0", "box1", "box2"]
    qpos = np.r_[[0, 0, 0.05, 1, 0, 0, 0], [0, 0, 0.15, 1, 0, 0, 0], [0, 0, 0.25, 1, 0, 0, 0]]
    mj = stack_mujoco()
    muj = run_mujoco(mj, qpos, 0.0, 1000, bodies, repeat=1)     # MuJoCo's penetration (its timing: below)
    s = ContactSettings(friction=MU)
    d = mujoco.MjData(mj)

    def art_run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ad.simulate(model, q0, np.zeros(model.nv), t_final=1000 * DT, dt=DT, contact=s)

    def mj_run():
        mujoco.mj_resetData(mj, d)
        d.qpos[:] = qpos
        mujoco.mj_forward(mj, d)
        for _ in range(1000):
            mujoco.mj_step(mj, d)

    art_run()
    t_art, t_mj, res, _ = best_of_pair(art_run, mj_run, repeat)     # alternated: the same spells
    pen = max([float(np.max(-c.gap)) for c in res.contacts if len(c.gap)] + [0.0])
    rows.append(("stack of three boxes", t_art / 1000 * 1e6, t_mj / 1000 * 1e6,
                 f"penetration {pen * 1e3:.2g} mm (MuJoCo {muj[1] * 1e3:.2g} mm)"))


# --- a closed chain touching the ground -----------------------------------------------------------

FOURBAR_MJCF = """<mujoco model="fourbar">
  <option timestep="0.001" gravity="0 -9.81 0" integrator="Euler"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1" zaxis="0 1 0" pos="0 {floor} 0" friction="0.5 0.005 0.0001"/>
    <body name="crank" euler="0 0 90">
      <joint name="crank" type="hinge" axis="0 0 1"/>
      <inertial pos="0.5 0 0" mass="1" diaginertia="0.001 0.08333333 0.08333333"/>
      <body name="coupler" pos="1 0 0" euler="0 0 {th2}">
        <joint name="coupler" type="hinge" axis="0 0 1"/>
        <inertial pos="1.5 0 0" mass="1" diaginertia="0.001 0.75 0.75"/>
        <geom name="knob" type="sphere" size="0.1" pos="1.5 0 0" friction="0.5 0.005 0.0001"/>
        <body name="rocker" pos="3 0 0" euler="0 0 {th3}">
          <joint name="rocker" type="hinge" axis="0 0 1"/>
          <inertial pos="1.25 0 0" mass="1" diaginertia="0.001 0.52083333 0.52083333"/>
          <site name="tool" pos="2.5 0 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <equality><connect site1="tool" site2="pivot"/></equality>
</mujoco>"""


def fourbar_scene(rows):
    import mujoco
    model = ad.load("fourbar")
    q = ad.neutral(model)
    at = np.eye(4)
    at[:3, 3] = (1.5, 0.0, 0.0)
    y = (ad.body_placements(model, q)[2] @ at)[1, 3]
    floor = y - 0.1 - 0.02
    model = model.replace(collisions=[Collision("floor", 0, HalfSpace((0.0, 1.0, 0.0), floor), np.eye(4)),
                                      Collision("knob", 2, Sphere(0.1), at)])
    loop = ad.constraints.from_model(model)
    s = ContactSettings(friction=0.5)
    steps = 1000
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ad.simulate(model, q, None, t_final=0.005, dt=DT, contact=s, constraints=loop)
        t_art, res = best_of(lambda: ad.simulate(model, q, None, t_final=steps * DT, dt=DT, contact=s,
                                                 constraints=loop), 5)
    phi = max(float(np.abs(ad.constraints.constraint_rows(model, x, np.zeros(3), loop).phi).max()) for x in res.q)
    xml = FOURBAR_MJCF.format(floor=floor, th2=np.degrees(-1.0586351336087465), th3=np.degrees(-1.9283674304404068))
    xml = xml.replace('<worldbody>', '<worldbody>\n    <site name="pivot" pos="3 0 0"/>')
    mj = mujoco.MjModel.from_xml_string(xml)
    mj.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_AUTORESET)
    d = mujoco.MjData(mj)

    def run():
        mujoco.mj_resetData(mj, d)
        worst = 0.0
        for _ in range(steps):
            mujoco.mj_step(mj, d)
        return worst
    t_mj, _ = best_of(run, 5)
    mujoco.mj_resetData(mj, d)
    gap = 0.0
    for _ in range(steps):
        mujoco.mj_step(mj, d)
        gap = max(gap, float(np.linalg.norm(d.efc_pos[:3])) if d.nefc else 0.0)
    rows.append(("four-bar with its coupler on the floor", t_art / steps * 1e6, t_mj / steps * 1e6,
                 f"loop residual {phi:.1e} m (MuJoCo's soft loop: up to {gap:.1e})"))


# --- talos_full_v2 standing on its collision meshes -------------------------------------------------

TALOS_T = 5.0
TALOS_MU = 0.8


def talos_artidyn():
    """talos_full_v2 (collision meshes, SRDF pairs off) plus a ground; q at ``half_sitting`` with the lowest
    collision vertex at z = 0; feed-forward torques and PD gains. (model, q, tau_ff, kp, kd)."""
    from artidyn.io.srdf import load_postures
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ad.load("talos_full_v2")
    model = model.replace(collisions=list(model.collisions) + [Collision("ground", 0, HalfSpace(), np.eye(4))])
    q = load_postures(model)["half_sitting"]
    W = ad.geometry.world_placements(model, ad.body_placements(model, q))
    low = min(float((c.shape.vertices @ T[:3, :3].T + T[:3, 3])[:, 2].min())
              for c, T in zip(model.collisions[:-1], W) if hasattr(c.shape, "vertices"))
    q[2] -= low
    # quasi-static support: two 6-D sole wrenches carrying the base rows of g(q) (least squares)
    g = ad.gravity_torque(model, q)
    Js = [ad.jacobian(model, q, f) for f in ("left_sole_link", "right_sole_link")]
    w, *_ = np.linalg.lstsq(np.hstack([J[:, :6].T for J in Js]), g[:6], rcond=None)
    tau = np.zeros(model.nv)
    tau[6:] = g[6:] - sum(J[:, 6:].T @ w[6 * i:6 * i + 6] for i, J in enumerate(Js))
    # PD: kp = M_ii (2 pi 7 Hz)^2, kd = 2 0.7 sqrt(kp M_ii); at least 2000 / 20 on the legs; none on the base
    Mii = np.diag(ad.crba(model, q)).copy()
    kp = Mii * (2 * np.pi * 7.0) ** 2
    kd = 2 * 0.7 * np.sqrt(kp * Mii)
    for j in range(2, model.nb + 1):
        if model.joint_names[j].startswith("leg_"):
            iv = model.idx_v[j]
            kp[iv], kd[iv] = max(kp[iv], 2000.0), max(kd[iv], 20.0)
    kp[:6] = kd[:6] = 0.0
    return model, q, tau, kp, kd


def talos_mujoco(model, q_ref, kp, kd):
    """MjModel of talos_full_v2's URDF with its collision meshes (absolute paths; MuJoCo collides their
    convex hulls), a free joint, a floor, robot-floor contacts only, a PD ``general`` actuator on each joint.
    The URDF's <mimic> tags become MuJoCo joint equalities. (MjModel, ctrl)."""
    import mujoco
    from artidyn.models.erd import example_robot_path
    src = Path(example_robot_path("talos_full_v2"))
    root = ET.parse(src).getroot()
    for child in list(root):
        if child.tag in ("gazebo", "transmission"):
            root.remove(child)
    for parent in list(root.iter()):
        for child in list(parent):
            if child.tag in ("visual", "dynamics", "safety_controller", "calibration"):
                parent.remove(child)
    for mesh in root.iter("mesh"):     # package://example-robot-data/robots/talos_data/meshes/... -> a file
        mesh.set("filename", str(src.parents[1] / mesh.get("filename").split("talos_data/", 1)[1]))
    mjcf, world = floating_mjcf(root, strippath="false")
    fric = f"{TALOS_MU} 0.005 0.0001"
    for geom in world.iter("geom"):    # robot geoms touch the floor only (the SRDF's pairs are not in MuJoCo)
        geom.set("contype", "1")
        geom.set("conaffinity", "2")
        geom.set("friction", fric)
    world.insert(0, ET.Element("geom", name="floor", type="plane", size="0 0 1", friction=fric,
                               contype="2", conaffinity="1"))
    text, ctrl = with_pd_actuators(mjcf, model, q_ref, kp, kd)
    m = mujoco.MjModel.from_xml_string(text)
    setup_mj(m)
    return m, ctrl


def talos_scene(rows, repeat=5):
    import mujoco
    model, q0, tau, kp, kd = talos_artidyn()
    s = ContactSettings(friction=TALOS_MU)
    pd = PD(kp, kd, q0)
    steps = int(round(TALOS_T / DT))

    def art_run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ad.simulate(model, q0, None, tau, t_final=steps * DT, dt=DT, contact=s, controller=pd,
                               constraints="model")

    mj, ctrl = talos_mujoco(model, q0, kp, kd)
    qm, fm = solo12_mj_state(mj, model, q0, tau)
    d = mujoco.MjData(mj)

    def mj_run():
        mujoco.mj_resetData(mj, d)
        d.qpos[:], d.qfrc_applied[:], d.ctrl[:] = qm, fm, ctrl
        z = np.empty(steps)
        for k in range(steps):
            mujoco.mj_step(mj, d)
            z[k] = d.qpos[2]
        return z, d.qpos[:2] - qm[:2]

    art_run()
    mj_run()
    t_art, t_mj, res, (z_mj, xy_mj) = best_of_pair(art_run, mj_run, repeat)     # alternated: the same spells
    dz_art = float(np.max(np.abs(res.q[:, 2] - q0[2])))
    dz_mj = float(np.max(np.abs(z_mj - q0[2]))) if np.all(np.isfinite(z_mj)) else np.inf
    up = lambda dz, z_end: "stood" if dz < 0.05 and np.isfinite(z_end) else "fell"  # noqa: E731
    rows.append((f"talos_full_v2 standing on its meshes, PD, {TALOS_T:g} s", t_art / steps * 1e6,
                 t_mj / steps * 1e6,
                 f"base height change up to {dz_art * 1e3:.2f} mm, xy drift "
                 f"{np.linalg.norm(res.q[-1, :2] - q0[:2]) * 1e3:.2f} mm, {up(dz_art, res.q[-1, 2])} (MuJoCo "
                 f"{dz_mj * 1e3:.2f} mm, {np.linalg.norm(xy_mj) * 1e3:.2f} mm, {up(dz_mj, z_mj[-1])})"))


def main():
    print(f"machine: {machine()}")
    print(f"versions: {versions()}")
    print(f"load average before: {load_average()}")
    rows = []
    solo_scenes(rows)
    stack_scene(rows)
    fourbar_scene(rows)
    talos_scene(rows)
    gym_rows(rows)
    print(f"load average after: {load_average()}")
    print()
    print(f"{'scene':46s} {'artidyn us/step':>16s} {'MuJoCo us/step':>15s} {'ratio':>7s}  notes")
    for name, a, m, note in rows:
        print(f"{name:46s} {a:16.2f} {m:15.2f} {a / m:7.2f}  {note}")


if __name__ == "__main__":
    main()
