"""First use: each public function's first call in a new process, import included.

    python benchmarks/first_use.py             # as installed (the installation compiled the kernels)
    python benchmarks/first_use.py --cold      # the same with an empty numba cache (minutes: compiles)

Each row runs ``python -c "<the call>"`` in a fresh process and times it from the process's
start to its end (import, model loading and the call; best of ``--repeat`` processes). After
``pip install -e .`` every row should stay within about 2 s. The last row runs the command line's
``artidyn simulate ur5_robot`` and prints the wall time the command reports (compilation left out).
Needs example-robot-data (ur5_robot).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

PRE = ("import numpy as np, artidyn as ad, warnings; warnings.simplefilter('ignore'); "
       "m = ad.load('ur5_robot'); q = ad.neutral(m); z = np.zeros(m.nv)")
CALLS = [
    ("import artidyn", "import artidyn"),
    ("import + load ur5_robot", PRE),
    ("rnea, one state", PRE + "; ad.rnea(m, q, z, z)"),
    ("rnea, batch of 100", PRE + "; Q = ad.random_configuration(m, rng=0, size=100); Z = np.zeros((100, m.nv)); "
                                 "ad.rnea(m, Q, Z, Z)"),
    ("aba + crba", PRE + "; ad.aba(m, q, z, z); ad.crba(m, q)"),
    ("rnea/aba derivatives", PRE + "; ad.rnea_derivatives(m, q, z, z); ad.aba_derivatives(m, q, z, z)"),
    ("simulate 0.1 s", PRE + "; ad.simulate(m, q, z, t_final=0.1)"),
    ("rollout of 8", PRE + "; Q = ad.random_configuration(m, rng=0, size=8); "
                           "ad.rollout(m, Q, np.zeros((8, m.nv)), t_final=0.1)"),
    ("constrained (four-bar)", "import numpy as np, artidyn as ad; from artidyn.constraints import Point, assemble; "
                               "bar = ad.load('fourbar'); loop = [Point('tool', target=(3.0, 0.0, 0.0))]; "
                               "s = assemble(bar, ad.neutral(bar) + 0.1, loop); "
                               "ad.constrained_dynamics(bar, s.q, s.v, np.zeros(bar.nv), loop); "
                               "ad.simulate(bar, s.q, s.v, t_final=0.1, constraints=loop)"),
    ("contact run (a ball)", "import numpy as np, artidyn as ad; from artidyn.geometry import Sphere, HalfSpace; "
                             "from artidyn.contact import ContactSettings; b = ad.ModelBuilder('ball'); "
                             "b.add_body('ball', 'world', 'free', mass=1.0, inertia=np.eye(3) * 4e-3); "
                             "b.add_collision('ball', Sphere(0.1)); b.add_collision('world', HalfSpace()); "
                             "m = b.build(); q = ad.neutral(m); q[2] = 0.5; "
                             "ad.simulate(m, q, np.zeros(6), t_final=0.5, dt=1e-3, "
                             "contact=ContactSettings(friction=0.3, restitution=0.8))"),
    ("event-driven run (a ball)", "import numpy as np, artidyn as ad; from artidyn.geometry import Sphere, HalfSpace; "
                                  "from artidyn.contact import ContactSettings; b = ad.ModelBuilder('ball'); "
                                  "b.add_body('ball', 'world', 'free', mass=1.0, inertia=np.eye(3) * 4e-3); "
                                  "b.add_collision('ball', Sphere(0.1)); b.add_collision('world', HalfSpace()); "
                                  "m = b.build(); q = ad.neutral(m); q[2] = 0.5; "
                                  "ad.simulate(m, q, np.zeros(6), t_final=0.5, dt=1e-2, method='event_driven', "
                                  "contact=ContactSettings(friction=0.3, restitution=0.8))"),
    ("prescribed motion + drag", "import numpy as np, artidyn as ad; from artidyn.sim import Prescribed; "
                                 "m = ad.models.cart_pendulum(); t = np.linspace(0, 0.1, 201); "
                                 "x = np.stack([0.1 * np.sin(6 * t), 0 * t], 1); "
                                 "ad.simulate(m, [0.0, 0.3], t_final=0.1, dt=1e-3, controller=Prescribed('slider', x, "
                                 "t_ref=t), forces=[ad.Drag(m.body_names[2], quadratic=0.1)])"),
    ("contact run, PD + Python tau", "import numpy as np, artidyn as ad; "
                                     "from artidyn.geometry import Sphere, HalfSpace; "
                                     "from artidyn.contact import ContactSettings; from artidyn.sim import PD; "
                                     "b = ad.ModelBuilder('ball'); "
                                     "b.add_body('ball', 'world', 'free', mass=1.0, inertia=np.eye(3) * 4e-3); "
                                     "b.add_collision('ball', Sphere(0.1)); b.add_collision('world', HalfSpace()); "
                                     "m = b.build(); q = ad.neutral(m); q[2] = 0.2; "
                                     "ad.simulate(m, q, None, lambda t, qq, vv: np.zeros(6), t_final=0.1, "
                                     "contact=ContactSettings(), controller=PD(1.0, 0.1, q)); "
                                     "ad.rollout(m, np.stack([q, q]), None, t_final=0.1, contact=ContactSettings())"),
    ("gaha, christoffel, hybrid", PRE + "; ad.gaha(m, q); ad.christoffel(m, q); "
                                        "ad.hybrid_dynamics(m, q, z, z, z, [m.joint_names[1]])"),
    ("analytical (5 methods), disk", "import numpy as np; from artidyn import analytical; "
                                     "from artidyn.analytical import examples as E; s = E.rolling_disk(); "
                                     "q, v = E.rolling_disk_state(0.5, 3.0, 0.1); "
                                     "[analytical.accelerations(s, q, v, method=k) for k in "
                                     "('gibbs_appell', 'kane', 'maggi', 'boltzmann_hamel', 'udwadia_kalaba')]"),
    ("contact solver (admm)", "from artidyn.contact import solve_contacts; "
                              "solve_contacts([[1.0, 0, 0], [0, 1, 0], [0, 0, 1]], [-1.0, 2.0, 0.0], 0.5, method='admm')"),
    ("ik", PRE + "; T = ad.frame_placement(m, ad.random_configuration(m, rng=1), 'tool0'); ad.ik(m, T, 'tool0')"),
]


def timed(argv, env, cwd):
    t0 = time.perf_counter()
    out = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - t0, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cold", action="store_true", help="an empty numba cache (NUMBA_CACHE_DIR)")
    parser.add_argument("--repeat", type=int, default=2, help="processes per row (best kept)")
    args = parser.parse_args()
    env = dict(os.environ, ARTIDYN_QUIET="1")
    cwd = tempfile.mkdtemp()          # not the repository: the installed package is what a user gets
    print(f"load average (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'first call (new process, import included)':45s} {'seconds':>8s}")
    for label, code in CALLS:
        best = float("inf")
        for _ in range(1 if args.cold else args.repeat):
            if args.cold:
                env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp()
            seconds, out = timed([sys.executable, "-c", code], env, cwd)
            if out.returncode:
                print(f"{label:45s}   failed: {out.stderr.strip().splitlines()[-1:]}")
                break
            best = min(best, seconds)
        else:
            print(f"{label:45s} {best:8.2f}")
    cli = [sys.executable, "-m", "artidyn", "simulate", "ur5_robot", "--out", os.path.join(cwd, "run"), "--force"]
    seconds, out = timed(cli, env, cwd)
    wall = next((line for line in out.stdout.splitlines() if line.startswith("wall time")), out.stderr[-200:])
    print(f"{'artidyn simulate ur5_robot':45s} {seconds:8.2f}   (it reports: {wall})")


if __name__ == "__main__":
    main()
