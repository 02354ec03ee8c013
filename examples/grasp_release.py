"""A gripper grasps a box on the ground, lifts it, lets it go: the box drops and lands.

    python examples/grasp_release.py                 # plot to ./grasp.png (about 10 s)
    python examples/grasp_release.py out.png --t-final 1.5

The gripper is a carriage on a vertical slide with two fingers on horizontal slides, each ending
in a box pad; the object is a free box (0.2 kg) resting on the ground. Coulomb friction
mu = 0.8 between everything. The torques are a Python function of (t, q, v), held over each step:

    0.00 - 0.25 s   the fingers close, each pushed toward the box by 6 N
    0.25 - 0.75 s   the carriage lifts 10 cm (a PD on its slide, gravity compensated), fingers still
                    squeezing: friction carries the box (2 x 0.8 x 6 N = 9.6 N > m g = 1.96 N)
    0.75 s -        the fingers open (pulled apart): the box slips out, falls and lands

Moreau-Jean time stepping (``artidyn.simulate(..., contact=ContactSettings(friction=0.8))``,
dt = 1 ms; the landing leaves the box about 1 mm into the ground: the velocity-level scheme has
no position correction, theta = 1/2 lets an impact step close half a step's travel). It prints the contact events and saves a plot of the heights of the box and the
carriage and of the contact forces. ``main(argv)`` returns the result and the model.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's artidyn

import artidyn as ad  # noqa: E402
from artidyn.contact import ContactSettings  # noqa: E402
from artidyn.geometry import Box, HalfSpace  # noqa: E402

DT = 1e-3
BOX = (0.06, 0.06, 0.06)          # the object
PAD = (0.02, 0.04, 0.04)          # a finger pad
SQUEEZE, LIFT = 6.0, 0.10         # N per finger, m
T_CLOSE, T_OPEN = 0.25, 0.75


def scene():
    b = ad.ModelBuilder("grasp")
    b.add_body("object", "world", "free", mass=0.2, inertia=np.eye(3) * 0.2 * 0.06 ** 2 / 6)
    b.add_collision("object", Box(BOX))
    b.add_body("carriage", "world", "prismatic", joint_name="lift", axis=(0, 0, 1), xyz=(0, 0, 0.03), mass=1.0,
               inertia=np.eye(3) * 1e-3)
    for side, s in (("left", -1.0), ("right", 1.0)):
        b.add_body(f"{side}_finger", "carriage", "prismatic", joint_name=f"{side}_slide", axis=(-s, 0, 0),
                   xyz=(s * 0.06, 0, 0), mass=0.1, inertia=np.eye(3) * 1e-4)
        b.add_collision(f"{side}_finger", Box(PAD))
    b.add_collision("world", HalfSpace())
    return b.build()


def start(model):
    q = ad.neutral(model)
    q[model.q_slice("root_joint")][:3] = (0.0, 0.0, BOX[2] / 2)      # on the ground
    return q


def controller(model):
    iv = {n: model.v_slice(n).start for n in ("lift", "left_slide", "right_slide")}
    iq = {n: model.q_slice(n).start for n in ("lift", "left_slide", "right_slide")}
    carried = 1.0 + 2 * 0.1 + 0.2                                    # carriage, fingers, and the box once held

    def tau(t, q, v):
        out = np.zeros(model.nv)
        grip = SQUEEZE if t < T_OPEN else -SQUEEZE                   # the slides' axes point toward the box
        out[iv["left_slide"]] = out[iv["right_slide"]] = grip
        target = 0.0 if t < T_CLOSE else min(LIFT, LIFT * (t - T_CLOSE) / 0.3)
        out[iv["lift"]] = carried * 9.81 + 400.0 * (target - q[iq["lift"]]) - 40.0 * v[iv["lift"]]
        return out

    return tau


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="?", default="grasp.png")
    p.add_argument("--t-final", type=float, default=1.3)
    args = p.parse_args(argv)
    model = scene()
    q0 = start(model)
    t0 = time.perf_counter()
    run = ad.simulate(model, q0, np.zeros(model.nv), tau=controller(model), t_final=args.t_final, dt=DT,
                      contact=ContactSettings(friction=0.8))
    print(f"{run.t.size - 1} steps in {time.perf_counter() - t0:.1f} s")
    for e in run.events:
        if e.kind in ("impact", "lift-off", "limit"):
            print(f"  t = {e.time:.3f} s  {e.kind:8s} {e.body_a} / {e.body_b}")
    z = run.q[:, 2]
    print(f"box height: start {z[0]:.4f} m, highest {z.max():.4f} m, end {z[-1]:.4f} m")
    fig = run.plot(None, what=("contact",))
    ax = fig.axes[0]
    ax2 = ax.twinx()
    ax2.plot(run.t, z, "k--", label="box height")
    ax2.set_ylabel("height [m]")
    ax2.legend(loc="upper right", fontsize=7)
    fig.savefig(args.out, dpi=110)
    print(f"plot: {args.out}")
    return {"result": run, "model": model}


if __name__ == "__main__":
    main()
