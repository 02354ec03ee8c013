"""Contact simulation speed: artidyn's Moreau-Jean step against MuJoCo's soft-contact step.

    python benchmarks/contact.py                 # 15-60 s on 2 cores (1 s of simulation per scene)
    python benchmarks/contact.py --t-final 0.3   # a shorter artidyn horizon

Scenes, the same in both libraries, dt = 1 ms, gravity (0, 0, -9.81), Coulomb mu = 0.8:

solo12 standing   example-robot-data's solo12 (floating base) from its URDF stripped as in
                  ``simulate.py`` (no visuals, collisions, damping ...), one sphere (r = 17.5 mm)
                  at each FOOT frame, a ground plane; knees bent (HFE / KFE = +-0.8 / -+1.6),
                  the base at the height where the four spheres touch the ground (from artidyn's
                  frame placements), zero velocity; constant torques that hold it: the joint
                  torques for vertical foot forces only (the least-norm vertical forces that
                  carry the weight; the torques are identical in MuJoCo, ``qfrc_applied``).
stack of 3 boxes  0.2 x 0.2 x 0.1, 0.15 x 0.15 x 0.1, 0.1 x 0.1 x 0.1 m (density 1000) stacked
                  on the ground, touching, at rest. MuJoCo: three free bodies. artidyn allows a
                  free joint on the first body only: boxes 2 and 3 hang from the world by three
                  massless prismatic joints (x, y, z) and a spherical joint (the same dynamics).

artidyn    ``artidyn.simulate(model, q0, v0, tau, t_final, dt=1e-3, contact=ContactSettings(
           friction=0.8))``: Moreau-Jean, rigid contacts (ADMM on the exact Coulomb cone,
           theta = 1/2); the whole run is one compiled call (``stats["route"]``, printed). Best of
           5 runs after a short warm-up run (numba compile cache); µs per step = the call's wall
           time (energies, events and the contact log included) / steps.
MuJoCo     a Python loop of ``mujoco.mj_step`` (mjINT_EULER, the default soft contacts: solref
           0.02 1, default solimp, pyramidal cone, condim 3), the same horizon; best of 5.
           Joint limits off (mjDSBL_LIMIT), as artidyn does not enforce them.

Columns: penetration = the deepest contact over the run (artidyn: -gap of the active contacts at
each step's start; MuJoCo: -min ``d.contact.dist``); drift = the height change over the run of
the solo12 base / of the top box; max |Δp| = the largest displacement of a body origin (the base,
or any box centre) over the run. The script asserts nothing.
"""
import argparse
import os
import sys
import tempfile
import time
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))              # this checkout's artidyn
sys.path.insert(1, str(HERE))

import artidyn as ad  # noqa: E402
from artidyn.contact import ContactSettings  # noqa: E402
from artidyn.geometry import Box, Collision, HalfSpace, Sphere  # noqa: E402
from simulate import erd_path, load_average, machine, pure_urdf_root, versions  # noqa: E402

DT = 1e-3
MU = 0.8
FOOT_RADIUS = 0.0175
FEET = ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT")
BOXES = ((0.2, 0.2, 0.1), (0.15, 0.15, 0.1), (0.1, 0.1, 0.1))
DENSITY = 1000.0


# ------------------------------------------------------------------------------------------
# solo12 standing

def solo12_artidyn(urdf_path):
    """artidyn model of the stripped URDF with one sphere per foot and the ground."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ad.load(str(urdf_path), floating_base=True)
    cols = [Collision("ground", 0, HalfSpace((0.0, 0.0, 1.0), 0.0), np.eye(4))]
    for f in FEET:
        fr = model.frames[[x.name for x in model.frames].index(f)]
        cols.append(Collision(f"{f}_sphere", fr.body, Sphere(FOOT_RADIUS), np.asarray(fr.placement)))
    return model.replace(collisions=cols)


def standing_state(model):
    """Knees bent (front HFE/KFE = 0.8/-1.6, hind -0.8/1.6), base at the height where the feet touch."""
    q = ad.neutral(model)
    for leg, s in (("FL", 1), ("FR", 1), ("HL", -1), ("HR", -1)):
        q[model.idx_q[model.joint_id(leg + "_HFE")]] = 0.8 * s
        q[model.idx_q[model.joint_id(leg + "_KFE")]] = -1.6 * s
    q[2] = 0.0
    lowest = min(ad.frame_placement(model, q, f)[2, 3] for f in FEET)
    q[2] = FOOT_RADIUS - lowest
    return q


def holding_torques(model, q):
    """Joint torques that hold q at rest on vertical foot forces f (least-norm f carrying the weight):
    g(q) = S^T tau + sum_i J_z,i^T f_i. Returns (tau (nv,), f (4,))."""
    g = ad.gravity_torque(model, q)
    Jz = np.array([ad.jacobian(model, q, f)[5] for f in FEET])      # vertical rows at the sphere centres
    f, *_ = np.linalg.lstsq(Jz[:, :6].T, g[:6], rcond=None)
    tau = np.zeros(model.nv)
    tau[6:] = g[6:] - Jz[:, 6:].T @ f
    return tau, f


def floating_mjcf(urdf_root, **compiler):
    """(mjcf root, its worldbody): the URDF compiled by MuJoCo (visuals discarded, static bodies kept;
    ``compiler``: more attributes of its ``<compiler>``), saved as MJCF, with a free joint
    ``root_joint`` on its single root body."""
    import mujoco
    root = ET.fromstring(ET.tostring(urdf_root))
    ext = ET.SubElement(root, "mujoco")
    ET.SubElement(ext, "compiler", discardvisual="true", fusestatic="false", **compiler)
    m = mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.xml")
        mujoco.mj_saveLastXML(path, m)
        mjcf = ET.parse(path).getroot()
    world = mjcf.find("worldbody")
    base = world.findall("body")
    assert len(base) == 1, "one root body expected"
    base[0].insert(0, ET.Element("freejoint", name="root_joint"))
    return mjcf, world


def solo12_mujoco(urdf_root):
    """MjModel: the stripped URDF (compiled as simulate.py does for a floating base), a sphere in each
    FOOT body, a floor plane, friction 0.8 on every geom."""
    import mujoco
    mjcf, world = floating_mjcf(urdf_root)
    fric = f"{MU} 0.005 0.0001"
    for body in mjcf.iter("body"):
        if body.get("name") in FEET:
            ET.SubElement(body, "geom", name=body.get("name") + "_sphere", type="sphere",
                          size=f"{FOOT_RADIUS}", pos="0 0 0", friction=fric)
    world.insert(0, ET.Element("geom", name="floor", type="plane", size="0 0 1", friction=fric))
    compiler = mjcf.find("compiler")
    if compiler is None:
        compiler = ET.SubElement(mjcf, "compiler")
    compiler.set("fusestatic", "true")
    m = mujoco.MjModel.from_xml_string(ET.tostring(mjcf, encoding="unicode"))
    setup_mj(m)
    return m


def solo12_mj_state(m, model, q, tau):
    """MuJoCo qpos, qfrc_applied from artidyn's q and tau (joints by name; free q = [p, quat wxyz])."""
    import mujoco
    qm, fm = np.zeros(m.nq), np.zeros(m.nv)
    qm[:3], qm[3], qm[4:7] = q[:3], q[6], q[3:6]
    for i in range(2, model.nb + 1):
        name = model.joint_names[i]
        j = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, name)
        qm[m.jnt_qposadr[j]] = q[model.idx_q[i]]
        fm[m.jnt_dofadr[j]] = tau[model.idx_v[i]]
    return qm, fm


# ------------------------------------------------------------------------------------------
# stack of boxes

def box_inertia(size):
    x, y, z = size
    m = DENSITY * x * y * z
    return m, np.array([y * y + z * z, x * x + z * z, x * x + y * y]) * m / 12


def box_centres():
    z, out = 0.0, []
    for s in BOXES:
        out.append(z + s[2] / 2)
        z += s[2]
    return out


def stack_artidyn():
    b = ad.ModelBuilder("box_stack")
    for i, size in enumerate(BOXES):
        m, I = box_inertia(size)
        if i == 0:
            b.add_body("box0", "world", "free", mass=m, inertia=np.diag(I))
        else:
            parent = "world"
            for ax, e in zip("xyz", np.eye(3)):
                b.add_body(f"box{i}_{ax}", parent, "prismatic", axis=e, joint_name=f"box{i}_{ax}", mass=0.0)
                parent = f"box{i}_{ax}"
            b.add_body(f"box{i}", parent, "spherical", joint_name=f"box{i}_ball", mass=m, inertia=np.diag(I))
        b.add_collision(f"box{i}", Box(size))
    b.add_collision("world", HalfSpace((0.0, 0.0, 1.0), 0.0))
    model = b.build()
    q = ad.neutral(model)
    zc = box_centres()
    q[2] = zc[0]
    for i in (1, 2):
        q[model.idx_q[model.joint_id(f"box{i}_z")]] = zc[i]
    return model, q


def stack_mujoco():
    import mujoco
    fric = f"{MU} 0.005 0.0001"
    bodies = []
    for i, (size, zc) in enumerate(zip(BOXES, box_centres())):
        m, I = box_inertia(size)
        half = " ".join(f"{s / 2:g}" for s in size)
        bodies.append(f'<body name="box{i}" pos="0 0 {zc:g}"><freejoint/>'
                      f'<inertial pos="0 0 0" mass="{m:g}" diaginertia="{I[0]:.10g} {I[1]:.10g} {I[2]:.10g}"/>'
                      f'<geom type="box" size="{half}" friction="{fric}"/></body>')
    xml = (f'<mujoco model="box_stack"><worldbody><geom name="floor" type="plane" size="0 0 1" friction="{fric}"/>'
           f'{"".join(bodies)}</worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(xml)
    setup_mj(m)
    return m


# ------------------------------------------------------------------------------------------
# running

def setup_mj(m):
    import mujoco
    m.opt.timestep = DT
    m.opt.gravity[:] = (0.0, 0.0, -9.81)
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_LIMIT) | int(mujoco.mjtDisableBit.mjDSBL_AUTORESET)


def run_artidyn(model, q0, tau, t_final, bodies):
    """(µs per step, penetration, height drift of the last body, max |Δp| of the body origins, time its height
    first moved by 1 mm (None: never), steps, result)."""
    kw = dict(tau=tau, dt=DT, contact=ContactSettings(friction=MU))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ad.simulate(model, q0, np.zeros(model.nv), t_final=5 * DT, **kw)           # warm-up
        seconds = np.inf
        for _ in range(5):
            t0 = time.perf_counter()
            res = ad.simulate(model, q0, np.zeros(model.nv), t_final=t_final, **kw)
            seconds = min(seconds, time.perf_counter() - t0)
    steps = len(res.t) - 1
    pen = max([float(np.max(-c.gap)) for c in res.contacts if len(c.gap)] + [0.0])
    p0 = np.array([ad.frame_placement(model, q0, b)[:3, 3] for b in bodies])
    p1 = np.array([ad.frame_placement(model, res.q[-1], b)[:3, 3] for b in bodies])
    z = np.asarray(ad.frame_placement(model, res.q, bodies[-1]))[:, 2, 3]
    off = np.nonzero(np.abs(z - z[0]) > 1e-3)[0]
    t_off = float(res.t[off[0]]) if off.size else None
    return seconds / steps * 1e6, pen, float(p1[-1, 2] - p0[-1, 2]), float(np.max(np.linalg.norm(p1 - p0, axis=1))), \
        t_off, steps, res


def run_mujoco(m, qpos, qfrc, steps, bodies, repeat=5):
    import mujoco
    d = mujoco.MjData(m)
    ids = [mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, b) for b in bodies]
    step = mujoco.mj_step
    best, best_half, pen, t_off = float("inf"), float("inf"), 0.0, None
    half = steps // 2
    for _ in range(repeat):
        mujoco.mj_resetData(m, d)
        d.qpos[:] = qpos
        d.qfrc_applied[:] = qfrc
        mujoco.mj_forward(m, d)
        p0 = d.xpos[ids].copy()
        t0 = time.perf_counter()
        for _ in range(half):
            step(m, d)
        t1 = time.perf_counter()
        for _ in range(steps - half):
            step(m, d)
        best, best_half = min(best, time.perf_counter() - t0), min(best_half, t1 - t0)
    # a separate pass for the penetration (reading d.contact costs time)
    mujoco.mj_resetData(m, d)
    d.qpos[:] = qpos
    d.qfrc_applied[:] = qfrc
    mujoco.mj_forward(m, d)
    z0 = float(d.xpos[ids[-1], 2])
    for k in range(steps):
        step(m, d)
        if d.ncon:
            pen = max(pen, float(-np.min(d.contact.dist[:d.ncon])))
        if t_off is None and abs(float(d.xpos[ids[-1], 2]) - z0) > 1e-3:
            t_off = k * DT          # xpos is computed at the step's start (the state at t = k dt)
    mujoco.mj_forward(m, d)
    p1 = d.xpos[ids].copy()
    return best / steps * 1e6, pen, float(p1[-1, 2] - p0[-1, 2]), float(np.max(np.linalg.norm(p1 - p0, axis=1))), \
        t_off, int(d.ncon), best_half / half * 1e6


def when(t):
    return "never" if t is None else f"{t:.3f} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-final", type=float, default=1.0, help="simulated seconds per scene (1.0)")
    args = parser.parse_args()
    steps = int(round(args.t_final / DT))
    t_start = time.perf_counter()
    print(f"machine: {machine()}")
    print(f"versions: {versions()}")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        root = pure_urdf_root(erd_path("solo12"))
        path = Path(folder) / "solo12.urdf"
        path.write_text(ET.tostring(root, encoding="unicode"))
        model = solo12_artidyn(path)
        q0 = standing_state(model)
        tau, f = holding_torques(model, q0)
        mj = solo12_mujoco(root)
    print(f"solo12: nq {model.nq}, nv {model.nv}, mass {float(np.sum(model.mass)):.4f} kg (MuJoCo "
          f"{float(np.sum(mj.body_mass)):.4f}), base height {q0[2]:.5f} m, foot forces {np.round(f, 4).tolist()} N, "
          f"max |tau| {np.max(np.abs(tau)):.4f} N m")
    art = run_artidyn(model, q0, tau, args.t_final, ["base_link"])
    qm, fm = solo12_mj_state(mj, model, q0, tau)
    muj = run_mujoco(mj, qm, fm, steps, ["base_link"])
    rows.append(("solo12 standing (4 foot spheres)", art, muj))
    ev = art[6].events
    print(f"solo12 artidyn: {len(ev)} contact events, max solver residual {art[6].stats['max_solver_residual']:.1e}, "
          f"active contacts at the end {len(art[6].contacts[-1].gap)}; MuJoCo contacts at the end {muj[5]}, "
          f"MuJoCo µs/step over the first half of the run {muj[6]:.1f}")
    sys.stdout.flush()

    model, q0 = stack_artidyn()
    boxes = ["box0", "box1", "box2"]
    art = run_artidyn(model, q0, 0.0, args.t_final, boxes)
    mj = stack_mujoco()
    qm = np.zeros(mj.nq)
    for i, zc in enumerate(box_centres()):
        qm[7 * i:7 * i + 7] = (0.0, 0.0, zc, 1.0, 0.0, 0.0, 0.0)
    muj = run_mujoco(mj, qm, np.zeros(mj.nv), steps, boxes)
    rows.append(("stack of 3 boxes", art, muj))
    ncon = [len(c.gap) for c in art[6].contacts]
    print(f"boxes artidyn: nq {model.nq}, nv {model.nv}; active contacts per step {min(ncon)}..{max(ncon)} "
          f"(4 box-ground corners + the 4 corners of each box resting on the one below); "
          f"{len(art[6].events)} contact events, first {art[6].events[0] if art[6].events else None}; "
          f"MuJoCo contacts at the end {muj[5]}, MuJoCo µs/step over the first half of the run {muj[6]:.1f}")

    art_route = "/".join(sorted({r[1][6].stats["route"] for r in rows}))
    print(f"\n{steps} steps at dt = 1 ms (t = {args.t_final:g} s), mu = {MU}; artidyn: artidyn.simulate (Moreau-Jean, "
          f"rigid; best of 5 runs, route {art_route}); MuJoCo: best of 5 Python loops of mj_step (soft contacts, "
          f"defaults)\n")
    print("| scene | artidyn µs/step | MuJoCo µs/step | ratio | artidyn penetration (mm) | MuJoCo penetration (mm) "
          "| artidyn drift (mm) | MuJoCo drift (mm) | artidyn max \\|Δp\\| (mm) | MuJoCo max \\|Δp\\| (mm) "
          "| artidyn t(\\|Δz\\| > 1 mm) | MuJoCo t(\\|Δz\\| > 1 mm) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, a, mu in rows:
        print(f"| {name} | {a[0]:.1f} | {mu[0]:.1f} | {a[0] / mu[0]:.2f} | {a[1] * 1e3:.2g} | {mu[1] * 1e3:.2g} "
              f"| {a[2] * 1e3:+.2g} | {mu[2] * 1e3:+.2g} | {a[3] * 1e3:.2g} | {mu[3] * 1e3:.2g} "
              f"| {when(a[4])} | {when(mu[4])} |")
    print(f"\ntotal time {time.perf_counter() - t_start:.0f} s; at the end: {load_average()}")


if __name__ == "__main__":
    main()
