"""A crawling robot: a sled that pulls itself forward with one arm, whose tip grips the ground.

    python examples/crawler.py                       # plot to ./crawler.png (a few seconds)
    python examples/crawler.py out.png --cycles 6

Crawling with isotropic Coulomb friction needs the contacts to alternate between sticking and
sliding. Here the body is a sled on three small skids (friction mu = 0.2 against the ground) with
a two-link arm at its front whose spherical tip grips (mu = 1): the arm's joints track, with a
PD, a gait in which the tip, in the sled's frame, swings forward 8 cm through the air and then
strokes back along the ground, aimed 1.5 cm below it (the PD presses it down), each in half a
period of 1.5 s. While the tip is on the ground it sticks (its normal force times 1 exceeds the
pull that drags the sled, 0.2 times the sled's normal force, plus the sled's inertia) and the
sled slides forward by the tip's backward sweep, plus the tip's rolling (r times the forearm's
pitch change); while it is in the air the sled stays (its friction holds it against the arm's
swing). The gait of a crutching crawler (a mudskipper on its pectoral fins, a person on crutches).

The floating base (free joint) of the sled and the arm's two pitch joints (revolute about y) are
built with ModelBuilder; Moreau-Jean time stepping, dt = 1 ms, the arm's PD compiled
(``controller=PD(..., t_ref=...)``, the joint references from the tip's path by the two-link
arm's inverse geometric model). ``main(argv)`` returns the result, the model and the tip's path.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's artidyn

import artidyn as ad  # noqa: E402
from artidyn.contact import ContactSettings  # noqa: E402
from artidyn.geometry import HalfSpace, Sphere  # noqa: E402
from artidyn.sim import PD  # noqa: E402

DT = 1e-3
MU_SLED, MU_TIP = 0.2, 1.0
R_SKID, R_TIP = 0.01, 0.015
HEIGHT = 0.04                        # m: the sled's origin above the ground
SHOULDER = np.array([0.12, 0.03])    # (x, z) in the sled frame
L1, L2 = 0.15, 0.15                  # m: upper arm, forearm
BACK, FRONT = 0.22, 0.30             # m: the tip's stroke along x in the sled frame (from the front to the back)
LOW = -HEIGHT + R_TIP - 0.015        # the tip centre's height in stance: 1.5 cm below the ground
LIFT = 0.05                          # m: how high the swing lifts it above LOW
PERIOD = 1.5
KP, KD = 60.0, 1.5


def scene():
    b = ad.ModelBuilder("crawler")
    b.add_body("sled", "world", "free", mass=2.0, inertia=np.diag([0.004, 0.01, 0.012]))
    for k, (x, y) in enumerate(((-0.1, 0.07), (-0.1, -0.07), (0.1, 0.0))):
        b.add_collision("sled", Sphere(R_SKID), xyz=(x, y, R_SKID - HEIGHT), name=f"skid_{k}", friction=MU_SLED)
    b.add_body("upper_arm", "sled", "revolute", joint_name="shoulder", axis=(0, 1, 0),
               xyz=(SHOULDER[0], 0, SHOULDER[1]),
               mass=0.2, com=(L1 / 2, 0, 0), inertia=np.diag([1e-5, 0.2 * L1 ** 2 / 12, 0.2 * L1 ** 2 / 12]))
    b.add_body("forearm", "upper_arm", "revolute", joint_name="elbow", axis=(0, 1, 0), xyz=(L1, 0, 0),
               mass=0.2, com=(L2 / 2, 0, 0), inertia=np.diag([1e-5, 0.2 * L2 ** 2 / 12, 0.2 * L2 ** 2 / 12]))
    b.add_frame("tip", "forearm", xyz=(L2, 0, 0))
    b.add_collision("forearm", Sphere(R_TIP), xyz=(L2, 0, 0), name="tip", friction=MU_TIP)
    for body in ("upper_arm", "forearm"):
        b.exclude_collision(body, "sled")
    b.add_collision("world", HalfSpace())
    return b.build()


def _quintic(u):
    return u ** 3 * (10 - 15 * u + 6 * u * u)


def tip_target(t):
    """The tip's path in the sled frame, (x, z) (..., 2): per period a swing (forwards, lifted by a
    half sine) then a stance (backwards along z = LOW, pressed into the ground), each half a
    period with a rest-to-rest quintic time law along x; the run starts in the middle of a swing."""
    u = np.mod(np.asarray(t, dtype=float) / PERIOD + 0.25, 1.0)
    swing = u < 0.5
    w = np.where(swing, 2 * u, 2 * u - 1)
    s = _quintic(w)
    x = np.where(swing, BACK + (FRONT - BACK) * s, FRONT + (BACK - FRONT) * s)
    z = np.where(swing, LOW + LIFT * np.sin(np.pi * w), LOW)
    return np.stack([x, z], axis=-1)


def arm_angles(p):
    """The two-link arm's inverse geometric model (elbow up): (shoulder, elbow) angles about y for
    tip positions p (..., 2) = (x, z) in the sled frame. A rotation theta about y turns a link
    along x to (cos theta, -sin theta) in (x, z)."""
    d = p - SHOULDER
    x, down = d[..., 0], -d[..., 1]
    c2 = (x ** 2 + down ** 2 - L1 ** 2 - L2 ** 2) / (2 * L1 * L2)
    t2 = np.arccos(np.clip(c2, -1.0, 1.0))
    t1 = np.arctan2(down, x) - np.arctan2(L2 * np.sin(t2), L1 + L2 * np.cos(t2))
    return np.stack([t1, t2], axis=-1)


def start(model):
    q = ad.neutral(model)
    q[model.q_slice("root_joint")][2] = HEIGHT
    q[model.q_slice("shoulder")], q[model.q_slice("elbow")] = arm_angles(tip_target(0.0))
    return q


def gait(model, q0, t_final):
    """The arm's PD tracking the joint references of the tip's path, sampled every step."""
    t = np.arange(0.0, t_final + DT / 2, DT)
    ang = arm_angles(tip_target(t))
    rate = np.gradient(ang, t, axis=0)
    Q, V = np.tile(q0, (t.size, 1)), np.zeros((t.size, model.nv))
    kp, kd = np.zeros(model.nv), np.zeros(model.nv)
    for k, name in enumerate(("shoulder", "elbow")):
        Q[:, model.q_slice(name).start], V[:, model.v_slice(name).start] = ang[:, k], rate[:, k]
        kp[model.v_slice(name)], kd[model.v_slice(name)] = KP, KD
    return PD(kp, kd, Q, v_ref=V, t_ref=t)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="?", default="crawler.png")
    p.add_argument("--cycles", type=int, default=4)
    args = p.parse_args(argv)
    model = scene()
    q0 = start(model)
    t_final = args.cycles * PERIOD
    run = ad.simulate(model, q0, np.zeros(model.nv), controller=gait(model, q0, t_final), t_final=t_final, dt=DT,
                      contact=ContactSettings())
    tip = np.array([ad.frame_placement(model, q, "tip")[:3, 3] for q in run.q])
    x = run.q[:, 0]
    per_cycle = [x[int(round(k * PERIOD / DT))] for k in range(args.cycles + 1)]
    print(f"{run.t.size - 1} steps in {run.wall_time:.2f} s; sled x per cycle: "
          + ", ".join(f"{v:.4f}" for v in per_cycle) + f" m (stroke {FRONT - BACK:.3f} m)")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    a1.plot(run.t, x, label="sled x")
    a1.plot(run.t, tip[:, 0], label="tip x")
    a1.plot(run.t, tip[:, 2], label="tip z")
    a1.set_ylabel("[m]")
    a1.legend(fontsize=7)
    f = run.contact_forces
    a2.plot(run.t, f[:, model.body_id("forearm"), 2], label="tip normal force")
    a2.plot(run.t, f[:, model.body_id("sled"), 2], label="sled normal force")
    a2.set_ylabel("[N]")
    a2.set_xlabel("t [s]")
    a2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    plt.close(fig)
    print(f"plot: {args.out}")
    return {"result": run, "model": model, "tip": tip}


if __name__ == "__main__":
    main()
