"""Compile every numba kernel of artidyn ahead of its first use (``artidyn compile``).

numba compiles artidyn's kernels for the machine it runs on and keeps them in its on-disk cache
(``__pycache__`` beside the sources, or ``NUMBA_CACHE_DIR``); a kernel loaded from that cache is
ready in a fraction of a second, a kernel compiled takes from 2 to 40 s. The installation
(``pip install -e .``) runs :func:`warm_up` once, so that a user's first call finds every kernel
compiled; ``artidyn compile`` (or ``python -m artidyn.warmup``) does the same by hand, e.g. after
an installation that could not (no numba in the build environment) or after an edit of a kernel.

The work is a list of :data:`JOBS`, each a few public calls on a small built-in model that reach
one family of kernels (dynamics, batches, derivatives, constrained dynamics, simulation, contacts,
inverse kinematics). They run in ``jobs`` processes at once (default: the number of cores, at
most 4): numba compiles on one thread, and the families share little, so two cores take about
half the time of one. A job that fails is reported and the others go on: its kernels compile at
their first call instead (with a line on stderr, :mod:`artidyn.firstuse`).

A marker file (:func:`marker`) records that a warm-up completed for the present sources and
numba version; :func:`is_warm` reads it. The test suite warms up once before its workers start.
"""
import hashlib
import os
import sys
import time

import numpy as np

__all__ = ["JOBS", "warm_up", "is_warm", "marker"]


# --- the jobs: public calls that reach each family of kernels ------------------------------------

def _arm():
    from .models import puma560
    return puma560()


def _floating():
    """A small floating-base tree (free, revolute, spherical and prismatic joints) with realistic
    inertias: the kernels are typed by their arrays, not by the model, but the calls must run."""
    import artidyn as ad
    b = ad.ModelBuilder("warm-up tree")
    inertia = np.diag([0.02, 0.03, 0.04])
    b.add_body("base", "world", "free", mass=5.0, inertia=inertia)
    b.add_body("arm", "base", "revolute", axis=(0, 0, 1), xyz=(0.2, 0, 0), mass=1.0, com=(0.1, 0, 0), inertia=inertia)
    b.add_body("wrist", "arm", "spherical", xyz=(0.2, 0, 0), mass=0.5, inertia=inertia)
    b.add_body("slide", "base", "prismatic", axis=(1, 0, 0), xyz=(0, 0.2, 0), mass=0.5, inertia=inertia)
    return b.build()


def _states(model, n, seed=0):
    from . import random_configuration
    rng = np.random.default_rng(seed)
    Q = random_configuration(model, rng=rng, size=n)
    V = rng.standard_normal((n, model.nv))
    return Q, V, rng.standard_normal((n, model.nv))


def job_dynamics():
    """One-state rnea / aba / crba / kinematics (numba and the C call entry points), energies, gaha,
    christoffel, hybrid dynamics."""
    import artidyn as ad
    from .kernels import ccall, ccall_bound  # noqa: F401  (the C entry points, with derivatives)
    for model in (_arm(), _floating()):
        Q, V, A = _states(model, 1)
        q, v, a = Q[0], V[0], A[0]
        f = np.zeros((model.nb + 1, 6))
        tau = ad.rnea(model, q, v, a)
        ad.rnea(model, q, v, a, f_ext=f)
        ad.aba(model, q, v, tau)
        ad.aba(model, q, v, tau, f_ext=f)
        ad.crba(model, q)
        name = model.body_names[-1]
        ad.frame_placement(model, q, name)
        ad.jacobian(model, q, name, expressed="world")
        ad.jacobian(model, q, name, expressed="local")
        ad.body_placements(model, q)
        ad.kinetic_energy(model, q, v)
        ad.potential_energy(model, q)
        dyn = ad.Dynamics(model)
        dyn.rnea(q, v, a)
        dyn.aba(q, v, tau)
        dyn.crba(q)
        ad.gaha(model, q)
        ad.christoffel(model, q)
        joint = model.joint_names[-1]
        ad.hybrid_dynamics(model, q, v, a, tau, joint)
        ad.hybrid_dynamics(model, q, v, a, tau, joint, f_ext=f)


def job_batches():
    """The parallel batch entry point and its lanes (rnea, aba, crba, placements, frames, Jacobians,
    gaha, christoffel, hybrid dynamics)."""
    import artidyn as ad
    from .kernels import lanes
    for model in (_arm(), _floating()):
        Q, V, A = _states(model, 40)
        F = np.zeros((40, model.nb + 1, 6))
        T = ad.rnea(model, Q, V, A)
        ad.rnea(model, Q, V, A, f_ext=F)
        ad.aba(model, Q, V, T)
        ad.crba(model, Q)
        name = model.body_names[-1]
        ad.frame_placement(model, Q, name)
        ad.jacobian(model, Q, name)
        ad.body_placements(model, Q)
        ad.gaha(model, Q)
        ad.christoffel(model, Q)
        ad.hybrid_dynamics(model, Q, V, A, T, model.joint_names[-1])
        ad.hybrid_dynamics(model, Q, V, A, T, model.joint_names[-1], f_ext=F)
        B = model._cache.get("kernels.B")
        if B is not None:
            lanes.crba_pairs(B)


def job_derivatives():
    """rnea / aba derivatives (one state, batches, bound evaluator) and the regressor."""
    import artidyn as ad
    from .identification import regressor
    for model in (_arm(), _floating()):
        Q, V, A = _states(model, 3)
        ad.rnea_derivatives(model, Q[0], V[0], A[0])
        ad.aba_derivatives(model, Q[0], V[0], A[0])
        ad.rnea_derivatives(model, Q, V, A)
        ad.aba_derivatives(model, Q, V, A)
        dyn = ad.Dynamics(model)
        dyn.rnea_derivatives(Q[0], V[0], A[0])
        dyn.aba_derivatives(Q[0], V[0], A[0])
        regressor(model, Q[0], V[0], A[0])
        regressor(model, Q, V, A)


def job_constrained():
    """Constrained dynamics (one state, batches, the bound evaluator) and constrained runs."""
    import artidyn as ad
    from .constraints import ConstrainedDynamics, Point, assemble
    bar = ad.load("fourbar")
    loop = [Point("tool", target=(3.0, 0.0, 0.0))]
    start = assemble(bar, ad.neutral(bar) + 0.1, loop)
    zero = np.zeros(bar.nv)
    ad.constrained_dynamics(bar, start.q, start.v, zero, loop)
    ad.constrained_dynamics(bar, np.stack([start.q] * 3), np.zeros((3, bar.nv)), np.zeros((3, bar.nv)), loop)
    ConstrainedDynamics(bar, loop)(start.q, start.v, zero)
    for method in ("semi-implicit", "rk4"):
        ad.simulate(bar, start.q, start.v, t_final=0.01, dt=1e-3, constraints=loop, method=method)


def job_analytical():
    """The compiled analytical formulations (every method, one state and a batch)."""
    from . import analytical as an
    system = an.examples.rolling_disk()
    q, v = an.examples.rolling_disk_state(0.5, 3.0, lean=0.1)
    for method in an.METHODS:
        an.accelerations(system, q, v, method=method)
        an.accelerations(system, np.stack([q, q]), np.stack([v, v]), method=method)


def job_simulation():
    """The compiled engine: single runs of every fixed-step method, controllers, rollouts."""
    import artidyn as ad
    from .sim import PD, ComputedTorque, TimeTable
    for model in (_arm(), _floating()):
        Q, _, _ = _states(model, 3)
        V = np.zeros_like(Q[:, :model.nv])
        q, v = Q[0], V[0]
        for method in ("semi-implicit", "rk4", "implicit"):
            ad.simulate(model, q, v, t_final=0.01, dt=1e-3, method=method)
        zeros = np.zeros(model.nv)
        ad.simulate(model, q, v, t_final=0.01, dt=1e-3, controller=PD(5.0, 0.5, ad.neutral(model)))
        ad.simulate(model, q, v, t_final=0.01, dt=1e-3,
                    controller=ComputedTorque.tracking(model, q, ad.neutral(model), 0.01, kp=10.0, kd=2.0))
        ad.simulate(model, q, v, t_final=0.01, dt=1e-3,
                    tau=TimeTable(np.array([0.0, 0.01]), np.stack([zeros, zeros])),
                    f_ext=np.zeros((model.nb + 1, 6)))
        ad.rollout(model, Q, V, tau=np.zeros((3, model.nv)), t_final=0.01, dt=1e-3)
        last = model.body_names[-1]          # force elements (the same specialization; checked here)
        ad.simulate(model, q, v, t_final=0.01, dt=1e-3,
                    forces=[ad.Drag(last, 0.1, 0.1), ad.Spring(last, stiffness=1.0)])


def job_contact():
    """The compiled Moreau-Jean contact run: spheres, capsules, boxes, a cylinder and a convex mesh
    on the ground, a limit; the compiled narrow phase's own entry points (GJK/EPA, one pair); the
    compiled event-driven run."""
    import artidyn as ad
    from .contact import ContactSettings
    from .contact.compiled import compiled_contacts, compiled_distance
    from .geometry import Box, Capsule, Cylinder, HalfSpace, Mesh, Sphere
    b = ad.ModelBuilder("warm-up shapes")
    inertia = np.eye(3) * 1e-3
    corners = np.array([[x, y, z] for x in (-0.05, 0.05) for y in (-0.05, 0.05) for z in (-0.05, 0.05)])
    compiled_distance(Mesh(vertices=corners), np.eye(4), Cylinder(0.1, 0.1), np.eye(4))
    compiled_contacts(Mesh(vertices=corners), np.eye(4), Cylinder(0.1, 0.1), np.eye(4), 0.0)
    from .contact.compiled import pack_shapes
    from .kernels.broadphase import apart_of_pair
    SH, HULL = pack_shapes([(1, Mesh(vertices=corners)), (0, Cylinder(0.1, 0.1))])
    apart_of_pair(SH, HULL, 0, np.eye(4), 1, np.eye(4), 0.0, np.zeros(5))
    from .contact import solve_contacts
    solve_contacts(np.eye(3), np.array([-1.0, 2.0, 0.0]), 0.5, method="admm")
    from .kernels.contact_nsgs import solve_rows
    solve_rows(np.eye(3), np.array([[0, 1], [1, 2], [2, 3]]), np.array([-1.0, 2.0, 0.0]), np.array([0.5]), 1e-10, 10,
               np.zeros(3))
    for name, shape in (("ball", Sphere(0.05)), ("rod", Capsule(0.05, 0.3)), ("cube", Box((0.1, 0.1, 0.1))),
                        ("can", Cylinder(0.05, 0.1)), ("hull", Mesh(vertices=corners))):
        b.add_body(name, "world", "free", mass=1.0, inertia=inertia)
        b.add_collision(name, shape)
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    for j, x in ((1, 0.0), (2, 0.5), (3, 1.0), (4, 1.5), (5, 2.0)):
        q[model.q_slice(model.joint_names[j])][:3] = (x, 0.0, 0.2)
    ad.simulate(model, q, np.zeros(model.nv), t_final=0.01, dt=1e-3,
                contact=ContactSettings(friction=0.5, restitution=0.1))
    hinge = ad.ModelBuilder("warm-up stop")
    hinge.add_body("link", "world", "revolute", joint_name="hinge", axis=(0, 1, 0), mass=1.0, com=(0.5, 0, 0),
                   inertia=np.diag([1e-4, 1e-4, 1e-4]), lower=-2.0, upper=0.5)
    stop = hinge.build()
    ad.simulate(stop, np.array([0.49]), np.array([1.0]), t_final=0.01, dt=1e-3, contact=ContactSettings())
    # the pipeline's other inputs: a controller, a time table, a Python function, external
    # wrenches, a bilateral constraint beside the contacts, and a rollout
    from .constraints import Point
    from .sim import PD, TimeTable
    s = ContactSettings(friction=0.5)
    ad.simulate(model, q, None, t_final=0.005, dt=1e-3, contact=s, controller=PD(1.0, 0.1, q),
                f_ext=np.zeros((model.nb + 1, 6)))
    ad.simulate(model, q, None, TimeTable(np.array([0.0, 1.0]), np.zeros((2, model.nv))), t_final=0.005, dt=1e-3,
                contact=s)
    ad.simulate(model, q, None, lambda t, qq, vv: np.zeros(model.nv), t_final=0.005, dt=1e-3, contact=s)
    ad.simulate(model, q, None, t_final=0.005, dt=1e-3, contact=s,
                constraints=[Point(model.body_names[1], None, target=q[:3])])
    ad.rollout(model, np.stack([q, q]), None, t_final=0.005, dt=1e-3, contact=s, controller=PD(1.0, 0.1, q),
               forces=[ad.Drag(model.body_names[1], 0.1, 0.1)])
    ad.rollout(model, np.stack([q, q]), None, t_final=0.005, dt=1e-3, contact=s,
               constraints=[Point(model.body_names[1], None, target=q[:3])])
    # the compiled event-driven run (artidyn.kernels.event_run): a ball sliding on the ground
    ball = ad.ModelBuilder("warm-up ball")
    ball.add_body("ball", "world", "free", mass=1.0, inertia=inertia)
    ball.add_collision("ball", Sphere(0.05))
    ball.add_collision("world", HalfSpace())
    ad.simulate(ball.build(), np.array([0.0, 0.0, 0.05, 0.0, 0.0, 0.0, 1.0]), np.array([0, 0, 0, 1.0, 0, 0]),
                t_final=0.02, dt=1e-2, method="event_driven", contact=s)


def job_ik():
    """Inverse kinematics (numeric, one target and a batch; closed form), workspace, singularities."""
    import artidyn as ad
    model = _arm()
    name = model.body_names[-1]
    Q, _, _ = _states(model, 4)
    T = ad.frame_placement(model, Q[0], name)
    ad.ik(model, T, name)
    ad.ik(model, ad.frame_placement(model, Q, name), name)
    ad.ik_analytic(model, T, name)
    ad.workspace(model, name, n=50, rng=0)
    ad.manipulability(model, Q, name)
    ad.manipulability(model, Q[0], name)


JOBS = {"dynamics": job_dynamics, "batches": job_batches, "derivatives": job_derivatives,
        "constrained": job_constrained, "analytical": job_analytical, "simulation": job_simulation,
        "contact": job_contact, "ik": job_ik}
# the longest first, so that the last job to start is a short one (measured on 2 cores: contact
# 323 s, batches 171, constrained 104, analytical 84, simulation 67, ik 33, derivatives 5, dynamics 0)
ORDER = ("contact", "batches", "constrained", "analytical", "simulation", "ik", "derivatives", "dynamics")


# --- the marker ----------------------------------------------------------------------------------

def _fingerprint():
    """A hash of the compiled sources (their stamp, as the cache keys them), of this module (its
    jobs), of numba's version and of Python's."""
    import numba

    from .kernels import _cache
    with open(__file__, "rb") as fh:
        jobs = hashlib.sha256(fh.read()).hexdigest()
    h = hashlib.sha256(repr((_cache.package_stamp(), jobs, numba.__version__, sys.version_info[:2])).encode())
    return h.hexdigest()[:16]


def marker():
    """Path of the file that records a completed warm-up for the present sources (in the kernels'
    ``__pycache__``, or under ``NUMBA_CACHE_DIR`` when that is set)."""
    root = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             "kernels", "__pycache__")
    return os.path.join(root, f"artidyn-warm-{_fingerprint()}")


def is_warm():
    """True when a warm-up completed for the present sources, numba and Python."""
    try:
        return os.path.exists(marker())
    except Exception:
        return False


# --- running them --------------------------------------------------------------------------------

def _run_job(name):
    """Run job ``name`` in this process: (name, seconds, error text or None)."""
    t0 = time.perf_counter()
    os.environ.setdefault("ARTIDYN_QUIET", "1")      # the warm-up itself says what it does
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            JOBS[name]()
    except Exception as exc:  # reported by the caller; the other jobs go on
        return name, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}"
    return name, time.perf_counter() - t0, None


def warm_up(jobs=None, names=None, stream=None):
    """Compile (or load from numba's cache) every kernel, ``jobs`` processes at a time.

    ``names``: the jobs to run (default all of :data:`JOBS`). Prints a line per job on ``stream``
    (default stderr) and returns ``{name: (seconds, error or None)}``. Writes the marker file when
    every job succeeded."""
    stream = sys.stderr if stream is None else stream
    unknown = set(names or ()) - set(JOBS)
    if unknown:
        raise ValueError(f"warm_up: unknown job(s) {sorted(unknown)}; known: {', '.join(JOBS)}")
    names = [n for n in ORDER if names is None or n in names]
    if jobs is None:
        jobs = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()))
    t0 = time.perf_counter()
    _say(stream, f"artidyn: compiling the numba kernels for this machine, or loading those already in the "
                 f"cache ({len(names)} groups, {jobs} process{'es' if jobs > 1 else ''}; 4 to 10 minutes on 2 "
                 f"cores the first time)")
    if not _c_extension():
        _say(stream, "artidyn: note: the optional C extension artidyn._ccall is not built (no C compiler at "
                     "installation?): everything works, one-state calls (ad.rnea, ad.aba, ad.crba, their "
                     "derivatives, ad.Dynamics) go through numba's dispatcher instead, about 0.5 us slower a call")
    results = {}
    if jobs == 1:
        outcomes = map(_run_job, names)
        outcomes = _report(outcomes, results, stream, len(names), t0)
    else:
        import multiprocessing
        ctx = multiprocessing.get_context("spawn")    # no fork of a process that may hold numba's threads
        with ctx.Pool(jobs, maxtasksperchild=None) as pool:
            _report(pool.imap_unordered(_run_job, names, chunksize=1), results, stream, len(names), t0)
    if all(err is None for _, err in results.values()):
        path = marker()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(f"warm-up completed in {time.perf_counter() - t0:.1f} s\n")
    return results


def _c_extension():
    try:
        from . import _ccall  # noqa: F401
    except ImportError:
        return False
    return True


def _report(outcomes, results, stream, total, t0):
    for name, seconds, err in outcomes:
        results[name] = (seconds, err)
        state = "ready" if err is None else f"FAILED ({err}); these kernels compile at first use instead"
        _say(stream, f"artidyn:   [{len(results)}/{total}] {name:12s} {state} ({seconds:.1f} s, "
                     f"{time.perf_counter() - t0:.0f} s in all)")


def _say(stream, text):
    try:
        print(text, file=stream, flush=True)
    except (OSError, ValueError, AttributeError):   # no stream to say it on
        pass


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(prog="artidyn compile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", "-j", type=int, default=None, help="processes at once (default: cores, at most 4)")
    parser.add_argument("--only", nargs="+", choices=list(JOBS), help="only these groups of kernels")
    args = parser.parse_args(argv)
    results = warm_up(args.jobs, args.only)
    return 0 if all(err is None for _, err in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
