"""Appell's plate on a servo-driven turntable: the same relation, a motor or a rigid link.

    python examples/servo_turntable.py                # plot to ./servo_turntable.png
    python examples/servo_turntable.py out.png --t-final 4

A turntable (centre O, OC = R, inertia I1) carries a plate hinged at C (mass M, radius of gyration
k about its centre G, CG = b); a constant force F along +x pulls the point A of line CG (CA = a).
The relation alpha - beta = pi/2 (Appell, "Traité de mécanique rationnelle", t. II, §4xx) is
realised either by a motor on the turntable that is regulated to keep it (a servo-constraint,
D = [1, 0]: Appell's equation (5), which does not contain I1) or by a rigid link (D = E:
equation (6)). The same solver gives both; the script prints the motion of each, the motor
torque and the work it does, and plots beta(t) and the torque.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's artidyn

from artidyn.servo import examples  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="?", default="servo_turntable.png")
    p.add_argument("--t-final", type=float, default=4.0)
    args = p.parse_args(argv)
    q0, qd0 = np.array([0.4 + np.pi / 2, 0.4]), np.array([-0.7, -0.7])
    runs = {}
    for link in ("motor", "rigid"):
        prob = examples.plate_on_turntable(link)
        run = prob.simulate(q0, qd0, t_final=args.t_final, dt=2e-3)
        runs[link] = run
        print(f"{link:5s}: {prob.status}; beta from {run.q[0, 1]:+.3f} to {run.q[-1, 1]:+.3f} rad, "
              f"servo work {run.servo_work[-1]:+.4f} J, T + U from {run.energy[0]:.4f} to {run.energy[-1]:.4f} J")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for link, run in runs.items():
        ax[0].plot(run.t, run.q[:, 1], label=f"beta, {link}")
        ax[1].plot(run.t, run.servo_forces[:, 0], label=f"servo force, {link}")
    ax[0].set_ylabel("beta [rad]")
    ax[1].set_ylabel("torque [N m]")
    ax[1].set_xlabel("t [s]")
    for a in ax:
        a.legend()
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"plot: {args.out}")
    return runs


if __name__ == "__main__":
    main()
