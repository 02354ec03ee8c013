"""Every robot of example-robot-data on the ground, on its own collision geometry, under a PD.

For each URDF of the package: load it (a floating base for the legged robots and humanoids, as
:func:`artidyn.load` chooses), add a ground half-space, take the SRDF's standing posture when the
SRDF has one (``half_sitting``, ``standing``, ``straight_standing``...; else the neutral
configuration), and

- floating base: lower the robot until its lowest collision point touches the ground (z = 0);
- fixed base: put the ground 1 cm below its lowest collision point,

then run 0.2 s at 1 ms on the compiled pipeline (``simulate(..., contact=ContactSettings(
friction=0.8, penetration="exclude_self"), controller=PD(kp, kd, q0), constraints="model" when the
file declares couplings)``): the pairs of a robot's own bodies whose hulls overlap in that posture
(at the joints: not contacts, as MoveIt's "default collision" pairs) are left out of its run
with the gravity torques of the start as feed-forward, ``kp = M_ii (2 pi 5 Hz)^2``,
``kd = 2 0.7 sqrt(kp M_ii)`` on the joints (none on a floating base). Each robot runs in its own
process with a time limit. Printed per robot: load time, collision shapes, dofs, microseconds per
step, the contacts at the end, the base height change (floating bases) and the outcome (an error's
class and first words).

Run: ``python benchmarks/robots_on_ground.py [names...] [--t 0.2] [--timeout 300] [--keep-self]``. Asserts
nothing.
"""
import argparse
import multiprocessing as mp
import os
import sys
import time
import traceback
import warnings

import numpy as np

POSTURES = ("half_sitting", "standing", "straight_standing", "stand", "home", "neutral")


def lowest(model, q):
    import artidyn as ad
    from artidyn.geometry.shapes import HalfSpace, aabb
    W = ad.geometry.world_placements(model, ad.body_placements(model, q))
    zs = [aabb(c.shape, T)[0][2] for c, T in zip(model.collisions, W) if not isinstance(c.shape, HalfSpace)]
    return min(zs) if zs else None


def scene(name):
    import artidyn as ad
    from artidyn.geometry import Collision, HalfSpace
    t0 = time.perf_counter()
    model = ad.load(name)
    load_s = time.perf_counter() - t0
    q = ad.neutral(model)
    posture = "neutral"
    try:
        from artidyn.io.srdf import load_postures
        post = load_postures(model)
        for p in POSTURES:
            if p in post:
                q, posture = np.array(post[p], float), p
                break
    except Exception:   # noqa: BLE001 - no SRDF, or one without postures
        pass
    floating = model.nb > 0 and model.joint_names[1] == "root_joint"
    z = lowest(model, q)
    if z is None:
        return model, q, None, load_s, posture, floating
    if floating:
        q[2] -= z
        ground = Collision("ground", 0, HalfSpace(), np.eye(4))
    else:
        ground = Collision("ground", 0, HalfSpace((0.0, 0.0, 1.0), z - 0.01), np.eye(4))
    model = model.replace(collisions=list(model.collisions) + [ground])
    return model, q, ground, load_s, posture, floating


def run_one(name, t_final, queue, pen="exclude_self"):
    warnings.simplefilter("ignore")
    out = {"name": name}
    try:
        import artidyn as ad
        from artidyn.contact import ContactSettings
        from artidyn.sim import PD
        model, q, ground, out["load_s"], out["posture"], floating = scene(name)
        out["shapes"], out["nv"] = len(model.collisions), model.nv
        if ground is None:
            out["outcome"] = "no collision geometry"
            queue.put(out)
            return
        g = ad.gravity_torque(model, q)
        d = np.diag(ad.crba(model, q))
        kp = d * (2 * np.pi * 5.0) ** 2
        kd = 2 * 0.7 * np.sqrt(kp * d)
        ff = g.copy()
        if floating:
            kp[:6] = kd[:6] = ff[:6] = 0.0
        cons = "model" if getattr(model, "constraint_specs", ()) else None
        for tf in (0.002, t_final):   # the first call of a process loads the compiled code: not timed
            s = ContactSettings(friction=0.8, penetration=pen)
            r = ad.simulate(model, q, None, ff, t_final=tf, dt=1e-3, contact=s,
                            controller=PD(kp, kd, q), constraints=cons, progress=False)
        steps = len(r.t) - 1
        out["us_step"] = 1e6 * r.wall_time / steps
        out["route"] = r.stats.get("route")
        out["fallback"] = len(r.stats.get("reference_steps", ()) or ())
        out["contacts"] = len(r.contacts[-1].body_a) if r.contacts else 0
        out["dz_mm"] = 1e3 * float(np.max(np.abs(r.q[:, 2] - q[2]))) if floating else None
        out["outcome"] = "ok"
    except Exception as e:   # noqa: BLE001 - reported, the sweep goes on
        out["outcome"] = f"{type(e).__name__}: {str(e)[:160]}"
        out["trace"] = traceback.format_exc()[-800:]
    queue.put(out)


def main():
    import artidyn.models.erd as erd
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="*")
    p.add_argument("--t", type=float, default=0.2)
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument("--keep-self", action="store_true", help="keep the own pairs that overlap at the start (warned)")
    a = p.parse_args()
    names = a.names or erd.example_robot_names()
    print(f"# load average {os.getloadavg()}", flush=True)
    print(f"{'robot':40s} {'load s':>7s} {'shapes':>6s} {'nv':>4s} {'us/step':>9s} {'contacts':>8s} "
          f"{'dz mm':>7s} {'fallback':>8s}  outcome", flush=True)
    ctx = mp.get_context("spawn")
    for name in names:
        queue = ctx.Queue()
        proc = ctx.Process(target=run_one, args=(name, a.t, queue, "warn" if a.keep_self else "exclude_self"))
        proc.start()
        proc.join(a.timeout)
        if proc.is_alive():
            proc.kill()
            out = {"name": name, "outcome": f"timeout ({a.timeout:g} s)"}
        else:
            out = queue.get() if not queue.empty() else {"name": name, "outcome": f"crashed (exit {proc.exitcode})"}
        f = lambda k, fmt: (fmt % out[k]) if out.get(k) is not None else "-"  # noqa: E731
        print(f"{name:40s} {f('load_s', '%7.2f')} {f('shapes', '%6d')} {f('nv', '%4d')} {f('us_step', '%9.1f')} "
              f"{f('contacts', '%8d')} {f('dz_mm', '%7.2f')} {f('fallback', '%8d')}  {out['outcome']}", flush=True)
        if "trace" in out and os.environ.get("TRACE"):
            print(out["trace"], file=sys.stderr)
    print(f"# load average {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
