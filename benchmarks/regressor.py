"""Regressor speed: the compiled kernel against the readable reference (and pinocchio's
``computeJointTorqueRegressor`` when pinocchio is installed), measured in one run.

    python benchmarks/regressor.py            # ur5_robot and talos_full_v2 (~1 min)
    python benchmarks/regressor.py --quick    # fewer repeats

Columns (microseconds per state; "batch" = one call on N states, divided by N):

==============  ===========================================================================
ref single      ``artidyn.identification.regressor(model, q, v, a)`` under ``reference_only()``
ref batch       the same with Q (N_ref, nq) ..., N_ref = 200 (numpy, vectorised over states)
single          ``regressor(model, q, v, a)``: one compiled call from Python (result allocated)
batch           ``regressor(model, Q, V, A)``, Q (N, nq), all cores; N = 10 000, fewer when the
                result (N, nv, n_params) would pass --max-mb (default 256 MiB; talos: 50 x 650
                numbers, 260 kB a state, so N = 1032: past ~1 GB the time is the memory's)
pin single      ``pin.computeJointTorqueRegressor(model, data, q, v, a)``: the 10 inertial
                columns per joint only (no friction, armature or offset columns)
==============  ===========================================================================

The script asserts nothing: it prints the numbers and the machine.
"""
import argparse
import os
import platform
import sys

import numpy as np

import artidyn as ad
from artidyn.identification import n_parameters, regressor
from artidyn.kernels import reference_only

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dynamics import best_times, erd_path  # noqa: E402

N_BATCH, N_REF = 10_000, 200
ROBOTS = (("ur5_robot", "ur5_robot", False), ("talos_full_v2", "talos_full_v2", True))


def pin_call(stem, floating):
    """A pinocchio regressor call on the same URDF, or None when pinocchio is not installed."""
    try:
        import pinocchio as pin
    except ImportError:
        return None, "pinocchio not installed"
    if not hasattr(pin, "computeJointTorqueRegressor"):
        return None, f"pinocchio {pin.__version__} has no computeJointTorqueRegressor"
    path = str(erd_path(stem))
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer()) if floating else pin.buildModelFromUrdf(path)
    data = pm.createData()
    rng = np.random.default_rng(0)
    q = pin.neutral(pm)
    v, a = rng.normal(size=pm.nv), rng.normal(size=pm.nv)
    return (lambda: pin.computeJointTorqueRegressor(pm, data, q, v, a)), f"pinocchio {pin.__version__}"


def measure(name, stem, floating, max_mb, repeat):
    model = ad.load(name)
    rng = np.random.default_rng(1)
    per_state = model.nv * n_parameters(model) * 8
    n = max(1, min(N_BATCH, int(max_mb * 2**20 // per_state)))
    Q = ad.random_configuration(model, rng=rng, size=n)
    V, A = rng.normal(size=(n, model.nv)), rng.normal(size=(n, model.nv))
    q, v, a = Q[0], V[0], A[0]
    Qr, Vr, Ar = Q[:N_REF], V[:N_REF], A[:N_REF]

    def ref_single():
        with reference_only():
            regressor(model, q, v, a)

    def ref_batch():
        with reference_only():
            regressor(model, Qr, Vr, Ar)

    fs = [ref_single, ref_batch, lambda: regressor(model, q, v, a), lambda: regressor(model, Q, V, A)]
    pin_f, pin_note = pin_call(stem, floating)
    if pin_f is not None:
        fs.append(pin_f)
    t = best_times(fs, 0.05 if repeat < 5 else 0.2, repeat)
    t[1] /= len(Qr)
    t[3] /= n
    return (name, model.nv, n_parameters(model), n, t + ([float("nan")] if pin_f is None else [])), pin_note


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--max-mb", type=float, default=256, help="largest batch result in MiB (default 256)")
    args = parser.parse_args()
    repeat = 3 if args.quick else 7
    rows, notes = [], set()
    for name, stem, floating in ROBOTS:
        row, note = measure(name, stem, floating, args.max_mb, repeat)
        rows.append(row)
        notes.add(note)
    import numba
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, numba {numba.__version__} "
          f"(threads: {numba.get_num_threads()}), numpy {np.__version__}, {', '.join(sorted(notes))}")
    print(f"times in microseconds per state (best of {repeat} interleaved rounds); ref batch: N = {N_REF}\n")
    head = (f"{'model':<16}{'nv':>4}{'params':>8}{'N':>7} {'ref single':>11} {'ref batch':>10} {'single':>8} "
            f"{'batch':>8} {'pin single':>11} {'ref/single':>11}")
    print(head)
    print("-" * len(head))
    for name, nv, npar, n, (rs, rb, s, b, p) in rows:
        print(f"{name:<16}{nv:>4}{npar:>8}{n:>7} {rs * 1e6:11.1f} {rb * 1e6:10.1f} {s * 1e6:8.2f} {b * 1e6:8.2f} "
              f"{p * 1e6:11.2f} {rs / s:11.0f}")


if __name__ == "__main__":
    main()
