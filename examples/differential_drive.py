"""A differential-drive robot: two driven wheels and a caster, straight ahead then turning in place.

    python examples/differential_drive.py            # plot to ./differential_drive.png (a few seconds)
    python examples/differential_drive.py out.png --omega 8

A chassis on a floating base (free joint) carries two wheels on revolute joints (axis y, at
y = +-TRACK/2) and, ahead of them, a caster ball fixed to the chassis. The wheels are spheres of
radius r (a sphere touches a plane at one point straight below its centre whatever its spin, so
rolling is exact; a cylinder of 2 cm tread touches at the two ends of its tread line, which scrub
when the robot turns: it also drives straight at r omega, but turns in place 1.3 % slower than
the formula below); Coulomb friction mu = 1 between the wheels and the ground, none at the caster
(a frictionless ball: an ideal omnidirectional caster).
Each wheel has a velocity servo ``tau = k (omega_ref - omega)`` (artidyn's compiled PD controller
with kp = 0).

Rolling without slipping, each wheel's centre moves at ``r omega`` along the heading; the chassis
moves with the kinematics of the unicycle (e.g. Siegwart & Nourbakhsh, "Introduction to
Autonomous Mobile Robots", sec. 3.2)::

    v = r (omega_R + omega_L) / 2,        yaw rate = r (omega_R - omega_L) / TRACK

so that equal wheel speeds omega drive straight at ``v = r omega`` and opposite ones
(omega_R = -omega_L = omega) turn the robot in place at ``2 r omega / TRACK``.

Moreau-Jean time stepping, dt = 1 ms. ``main(argv)`` returns the two runs and the model.
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
R, TRACK = 0.05, 0.30           # m: wheel radius, distance between the wheels' contact points
R_CASTER, CASTER_X = 0.02, 0.20
GAIN = 0.5                      # N m s/rad: the wheels' velocity servo


def scene():
    b = ad.ModelBuilder("diff_drive")
    b.add_body("chassis", "world", "free", mass=3.0, com=(0.08, 0, 0.02),
               inertia=np.diag([0.02, 0.03, 0.04]))
    for side, y in (("left", TRACK / 2), ("right", -TRACK / 2)):
        b.add_body(f"{side}_wheel", "chassis", "revolute", joint_name=f"{side}_axle", axis=(0, 1, 0),
                   xyz=(0, y, 0), mass=0.3, inertia=np.diag([1.0, 2.0, 1.0]) * 0.3 * R ** 2 / 4)
        b.add_collision(f"{side}_wheel", Sphere(R), friction=1.0)
        b.exclude_collision(f"{side}_wheel", "chassis")
    b.add_collision("chassis", Sphere(R_CASTER), xyz=(CASTER_X, 0, R_CASTER - R), name="caster")
    b.add_collision("world", HalfSpace())
    return b.build()


def start(model):
    q = ad.neutral(model)
    q[model.q_slice("root_joint")][2] = R           # the wheels and the caster on the ground
    return q


def servo(model, q0, omega_left, omega_right):
    """The wheels' velocity servo (PD with kp = 0 on the axles, nothing on the floating base)."""
    kd, v_ref = np.zeros(model.nv), np.zeros(model.nv)
    for name, w in (("left_axle", omega_left), ("right_axle", omega_right)):
        kd[model.v_slice(name)], v_ref[model.v_slice(name)] = GAIN, w
    return PD(0.0, kd, q0, v_ref=v_ref[None])


def planar_motion(model, run):
    """(x, y, yaw, forward speed, yaw rate) of the chassis per sample (world axes)."""
    T = np.array([ad.frame_placement(model, q, "chassis") for q in run.q])
    tw = np.array([ad.jacobian(model, q, "chassis", "world") @ v for q, v in zip(run.q, run.v)])
    yaw = np.unwrap(np.arctan2(T[:, 1, 0], T[:, 0, 0]))
    forward = np.einsum("ki,ki->k", tw[:, 3:], T[:, :3, 0])
    return T[:, 0, 3], T[:, 1, 3], yaw, forward, tw[:, 2]


def drive(model, omega_left, omega_right, t_final):
    q0 = start(model)
    return ad.simulate(model, q0, np.zeros(model.nv), controller=servo(model, q0, omega_left, omega_right),
                       t_final=t_final, dt=DT, contact=ContactSettings())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="?", default="differential_drive.png")
    p.add_argument("--t-final", type=float, default=1.0)
    p.add_argument("--omega", type=float, default=6.0, help="wheel speed [rad/s]")
    args = p.parse_args(argv)
    model = scene()
    w = args.omega
    iL, iR = model.v_slice("left_axle").start, model.v_slice("right_axle").start
    runs = {}
    for label, (wl, wr) in (("straight", (w, w)), ("turn", (-w, w))):
        run = drive(model, wl, wr, args.t_final)
        x, y, yaw, fwd, rate = planar_motion(model, run)
        late = run.t > args.t_final / 2
        runs[label] = {"result": run, "x": x, "y": y, "yaw": yaw, "forward": fwd, "yaw_rate": rate,
                       "omega_left": run.v[:, iL], "omega_right": run.v[:, iR]}
        print(f"{label}: wheels {run.v[-1, iL]:+.4f}, {run.v[-1, iR]:+.4f} rad/s (ref {wl:+g}, {wr:+g}); "
              f"speed {fwd[late].mean():+.5f} m/s (r (wR + wL) / 2 = {R * (wr + wl) / 2:+.5f}); yaw rate "
              f"{rate[late].mean():+.5f} rad/s (r (wR - wL) / track = {R * (wr - wl) / TRACK:+.5f})")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for label, r in runs.items():
        ax[0].plot(r["result"].t, r["forward"], label=f"{label}: forward speed [m/s]")
        ax[0].plot(r["result"].t, r["yaw_rate"], "--", label=f"{label}: yaw rate [rad/s]")
        ax[1].plot(r["x"], r["y"], label=label)
    ax[0].set_xlabel("t [s]")
    ax[1].set_xlabel("x [m]")
    ax[1].set_ylabel("y [m]")
    ax[1].set_aspect("equal", adjustable="datalim")
    for a in ax:
        a.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    plt.close(fig)
    print(f"plot: {args.out}")
    return {"model": model, **runs}


if __name__ == "__main__":
    main()
