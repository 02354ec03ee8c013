"""A thin disk rolling without slipping: stable upright above sqrt(g / 3r), falling below.

    python examples/rolling_disk.py                   # plot to ./rolling_disk.png
    python examples/rolling_disk.py out.png --t-final 3

A uniform disk (radius 0.5 m) on a floating base with a RollingDisk constraint (the contact
point's velocity zero: two tangential rows and the normal one), started upright with a 0.02 rad
lean at 1.3x and at 0.7x the critical spin of the literature (Appell; Neimark & Fufaev). The
compiled constrained run (RK4, projection onto the constraints after each step) is used; the
script prints the largest lean of each run, the energy drift and the constraint drift, and plots
the lean and the contact point's path.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's artidyn

import artidyn as ad  # noqa: E402
from artidyn.analytical import examples  # noqa: E402
from artidyn.spatial.rotations import quat_to_matrix  # noqa: E402


def run_at(factor, t_final, r=0.5, g=9.81):
    system = examples.rolling_disk(radius=r, g=g)
    q0, v0 = examples.rolling_disk_state(r, factor * np.sqrt(g / (3 * r)), lean=0.02)
    run = ad.simulate(system.model, q0, v0, constraints=system.constraints, t_final=t_final, dt=2e-3)
    lean = np.arcsin(np.array([quat_to_matrix(qq[3:][None])[0][2, 1] for qq in run.q]))
    return system, run, lean


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="?", default="rolling_disk.png")
    p.add_argument("--t-final", type=float, default=3.0)
    args = p.parse_args(argv)
    out = {}
    for factor in (1.3, 0.7):
        system, run, lean = run_at(factor, args.t_final)
        out[factor] = (run, lean)
        print(f"spin {factor:.1f} x critical: max lean {np.abs(lean).max():.3f} rad, energy drift "
              f"{np.ptp(run.energy.total):.2e} J, max |A v + b| {run.stats['max_drift_velocity']:.1e} "
              f"({run.stats['route']} route, {run.wall_time:.2f} s)")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for factor, (run, lean) in out.items():
        ax[0].plot(run.t, lean, label=f"{factor} x critical spin")
        ax[1].plot(run.q[:, 0], run.q[:, 1], label=f"{factor} x critical spin")
    ax[0].set_xlabel("t [s]")
    ax[0].set_ylabel("lean [rad]")
    ax[1].set_xlabel("x [m]")
    ax[1].set_ylabel("y [m]")
    ax[1].set_aspect("equal", adjustable="datalim")
    for a in ax:
        a.legend()
    fig.tight_layout()
    fig.savefig(args.out)
    print(f"plot: {args.out}")
    return out


if __name__ == "__main__":
    main()
