"""A UR5 arm pushes on a table with 20 N while its spherical tip slides 15 cm along it.

    python examples/force_control.py                 # plot to ./force_control.png (a few seconds)
    python examples/force_control.py out.png --mu 0.5

Hybrid position/force control (Raibert & Craig, 1981) in the operational space (Khatib, 1987):
:class:`artidyn.sim.HybridForceControl`. The UR5 (example-robot-data) carries a 2 cm sphere at its
flange, pointing down; its mesh collision shapes are replaced by that sphere and a table (a
half-space 10 cm above the robot's base). Coulomb friction mu = 0.3 between tip and table.

    0.0 - 0.2 s   the normal force command ramps from 0 to 20 N (the tip starts on the table)
    0.4 - 1.4 s   the tip follows a straight line of 15 cm along x (quintic time law), pushing
                  with 20 N (force PI on the measured contact force), the tool held vertical
    1.4 - 1.6 s   it rests at the end, still pushing

While it slides, friction opposes the motion with mu x 20 N = 6 N: a disturbance of the motion
loop, which the stiffness Lambda kp holds to a fraction of a millimetre.

The tip starts 1 micrometre into the table. From an exactly zero gap, the velocity-level
Moreau-Jean scheme drifts during a long stick phase (the tip held by friction while the motion
command grows; with kp = 400, kd = 40 it lasts 0.1 s and the gap drifts up by 1 nm). A new
contact activates within 1 nm, but one active the step before stays active to 1 micrometre, so
that drift no longer lifts the contact off for a step (which read 0 N, then 50 N at the next
step's impact): the preload is kept as a margin. While it slides, the same scheme lets the tip
sink about 45 micrometres into the table over the 15 cm slide (no position correction).

Moreau-Jean time stepping, dt = 1 ms, the controller called from the compiled loop once per step
with the contact forces of the previous step. ``main(argv)`` returns the result, the model, the
controller and the tip's trajectory and reference.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's artidyn

import artidyn as ad  # noqa: E402
from artidyn.contact import ContactSettings  # noqa: E402
from artidyn.geometry import Collision, HalfSpace, Sphere  # noqa: E402
from artidyn.sim import HybridForceControl, straight_path  # noqa: E402

DT = 1e-3
R_TIP, TABLE = 0.02, 0.10               # m: tip radius, table height
FORCE, RAMP = 20.0, 0.2                 # N, s
START = np.array([0.40, 0.10, TABLE + R_TIP])       # the tip's centre
STROKE, T_MOVE, DURATION = 0.15, 0.4, 1.0
DOWN = np.diag([1.0, -1.0, -1.0])      # the tool's orientation: its z axis down
PRELOAD = 1e-6                          # m: the tip starts this far into the table (see above)


def scene(mu=0.3):
    """The UR5 with a spherical tip on its flange (tool0) and a table; the other shapes dropped."""
    model = ad.load("ur5_robot")
    tool = next(f for f in model.frames if f.name == "tool0")
    tip = tool.placement @ np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, R_TIP], [0, 0, 0, 1.0]])
    return model.replace(collisions=[Collision("tip", tool.body, Sphere(R_TIP), tip, friction=mu),
                                     Collision("table", 0, HalfSpace((0, 0, 1), TABLE + PRELOAD), np.eye(4))])


def start(model):
    """The posture with the tip's centre at START, the tool vertical (inverse kinematics)."""
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = DOWN, START - DOWN @ (0, 0, R_TIP)
    sol = ad.ik(model, T, "tool0", np.array([0.0, -1.2, 1.6, -2.0, -1.57, 0.0]))
    assert sol.success
    return sol.q


def controller(model):
    path = straight_path(START, START + (STROKE, 0, 0), DURATION, T_MOVE)
    return HybridForceControl(model, "tool0", (0, 0, 1), lambda t: FORCE * min(1.0, t / RAMP), path,
                              point=(0, 0, R_TIP), orientation=DOWN, kp=2500.0, kd=100.0, kf=0.5, ki=200.0)


def tip_positions(model, q):
    return np.array([ad.frame_placement(model, x, "tool0") @ (0, 0, R_TIP, 1.0) for x in q])[:, :3]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="?", default="force_control.png")
    p.add_argument("--t-final", type=float, default=1.6)
    p.add_argument("--mu", type=float, default=0.3)
    args = p.parse_args(argv)
    model = scene(args.mu)
    q0 = start(model)
    ctl = controller(model)
    t0 = time.perf_counter()
    run = ad.simulate(model, q0, np.zeros(model.nv), tau=ctl, t_final=args.t_final, dt=DT,
                      contact=ContactSettings())
    print(f"{run.t.size - 1} steps in {time.perf_counter() - t0:.1f} s")
    f = run.contact_forces[:, ctl.body]                   # on the tool body, world axes
    tip = tip_positions(model, run.q)
    ref = np.array([ctl.path(t)[0] for t in run.t])
    settled = run.t >= 2 * RAMP
    moving = (run.t > T_MOVE + 0.1) & (run.t < T_MOVE + DURATION - 0.1)
    print(f"normal force after {2 * RAMP:.1f} s: {f[settled, 2].min():.3f} .. {f[settled, 2].max():.3f} N "
          f"(command {FORCE:g} N)")
    print(f"tracking error along x, y: {1e3 * np.abs(tip - ref)[settled, :2].max():.3f} mm; "
          f"friction while sliding {f[moving, 0].mean():+.3f} N (mu f_n = {args.mu * FORCE:.3f} N)")
    for e in run.events:
        print(f"  t = {e.time:.3f} s  {e.kind:8s} {e.body_a} / {e.body_b}")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a1, a2) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    a1.plot(run.t, f[:, 2], label="normal force")
    a1.plot(run.t, -f[:, 0], label="friction (-x)")
    a1.axhline(FORCE, color="k", ls=":", lw=0.8)
    a1.set_ylabel("force [N]")
    a1.legend(fontsize=7)
    a2.plot(run.t, 1e3 * (tip[:, 0] - ref[:, 0]), label="x error")
    a2.plot(run.t, 1e3 * (tip[:, 1] - ref[:, 1]), label="y error")
    a2.set_ylabel("tip error [mm]")
    a2.set_xlabel("t [s]")
    a2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    plt.close(fig)
    print(f"plot: {args.out}")
    return {"result": run, "model": model, "controller": ctl, "tip": tip, "reference": ref}


if __name__ == "__main__":
    main()
