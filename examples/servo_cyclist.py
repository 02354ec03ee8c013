"""Appell's cyclist: the legs keep the rear wheel's angular speed, the trunk the frame's lean.

    python examples/servo_cyclist.py                   # plot to ./servo_cyclist.png
    python examples/servo_cyclist.py out.png --t-final 4 --slope 0.05

Appell ("Traité de mécanique rationnelle", t. II, §470) gives a cyclist as an example of
servo-constraints: the rider does not contract his muscles by a given amount but so that some
relations hold, "il réglera l'action de ses jambes de manière à réaliser une vitesse angulaire
constante, ou bien il contractera les muscles du corps de manière à réaliser une inclinaison du
cadre fonction de t". Here a bicycle runs straight on a road of slope ``--slope`` with rolling
wheels; the legs keep the rear wheel at ``--omega`` rad/s (their torque: M g a sin(slope), zero on
a flat road), and the trunk muscles make the frame lean as 0.05 sin(2 t) (the trunk swings the
other way). The script prints both torques and the energy balance (the servo work equals the
change of T + U) and plots the lean, the trunk angle and the torques.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's artidyn

from artidyn.servo import examples  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="?", default="servo_cyclist.png")
    p.add_argument("--t-final", type=float, default=3.0)
    p.add_argument("--slope", type=float, default=0.03)
    p.add_argument("--omega", type=float, default=6.0)
    args = p.parse_args(argv)
    import sympy as sp
    t = sp.Symbol("t")
    P = dict(wheel_radius=0.35, wheel_mass=2.0, bike_mass=10.0, bike_height=0.6, bike_inertia=0.5, rider_mass=50.0,
             hip_height=0.9, trunk=0.4, trunk_inertia=3.0, g=9.81)
    prob = examples.cyclist(("speed", "lean"), omega=args.omega, lean=0.05 * sp.sin(2 * t), slope=args.slope, **P)
    a, m, l, g, hs = P["wheel_radius"], P["rider_mass"], P["trunk"], P["g"], P["hip_height"]
    # the trunk starts at the rate that keeps it from drifting in the roll dynamics linearised about
    # the upright state (M11 thetadd + M12 betadd = g (A theta + m l (theta + beta)): beta ~ sin(2 t))
    M12 = P["trunk_inertia"] + m * l * l + m * hs * l
    M11 = P["bike_inertia"] + P["bike_mass"] * P["bike_height"] ** 2 + 3 * P["wheel_mass"] * a * a \
        + m * (hs + l) ** 2 + P["trunk_inertia"]
    A = P["bike_mass"] * P["bike_height"] + 2 * P["wheel_mass"] * a + m * hs
    k, c = g * m * l / M12, (g * (A + m * l) + M11 * 4.0) / M12
    v0 = np.array([a * args.omega, args.omega, args.omega, 0.1, -0.1 * c / (4.0 + k)])
    run = prob.simulate(np.zeros(5), v0, t_final=args.t_final, dt=2e-3)
    total = P["bike_mass"] + m + 2 * P["wheel_mass"]
    print(f"cyclist: {prob.status}; legs' torque {run.servo_forces[:, 0].min():+.4f} .. "
          f"{run.servo_forces[:, 0].max():+.4f} N m (M g a sin(slope) = {total * g * a * np.sin(args.slope):+.4f}), "
          f"trunk torque up to {np.abs(run.servo_forces[:, 1]).max():.3f} N m")
    print(f"servo work {run.servo_work[-1]:+.4f} J, T + U changed by {run.energy[-1] - run.energy[0]:+.4f} J")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    ax[0].plot(run.t, run.q[:, 3], label="frame lean theta")
    ax[0].plot(run.t, run.q[:, 4], label="trunk beta (relative)")
    ax[1].plot(run.t, run.servo_forces[:, 0], label="legs (rear wheel)")
    ax[1].plot(run.t, run.servo_forces[:, 1], label="trunk muscles")
    ax[0].set_ylabel("angle [rad]")
    ax[1].set_ylabel("torque [N m]")
    ax[1].set_xlabel("t [s]")
    for x in ax:
        x.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    return run


if __name__ == "__main__":
    main()
