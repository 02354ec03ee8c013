"""Moreau-Jean with convex meshes and cylinders: the compiled route (artidyn.kernels.gjk, .convex)
against the readable one (coal's GJK/EPA and numpy closed forms, a Python loop over steps).

    python benchmarks/mesh_contact.py                # about a minute on 2 cores

Scenes, dt = 1 ms, gravity (0, 0, -9.81), Coulomb mu = 0.6:

hulls on the ground  a rock (hull of 40 random points), a cylinder and a mesh cube dropped on the
                     ground half-space (pairs with the ground only: the two routes give the same
                     contacts and the same run)
cubes on a slab      four mesh cubes (8-vertex hulls) resting on a fixed mesh slab: GJK/EPA and
                     the clipped 4-point manifold on the compiled route (coal's one point each on
                     the reference route)
solo12 hulls         example-robot-data's solo12 with its 17 mesh hulls (360 to 672 vertices),
                     robot-ground pairs only, dropped 1 cm with no torque (it folds onto its belly)

Columns: µs per step on each route (the compiled run: best of 3 after a warm-up call, over
``--t-final`` s; the reference: one run over a tenth of it), their ratio, and the contacts of
the last step on each route. Prints a table; asserts nothing.
"""
import argparse
import dataclasses
import time

import numpy as np
from scipy.spatial.transform import Rotation

import artidyn as ad
from artidyn.contact import ContactSettings
from artidyn.geometry import Collision, Cylinder, HalfSpace, Mesh
from artidyn.sim.contact_run import simulate_contact

CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)


def hulls():
    b = ad.ModelBuilder("hulls")
    rock = Mesh(vertices=np.random.default_rng(7).standard_normal((40, 3)) * (0.1, 0.07, 0.05))
    for name, shape in (("rock", rock), ("can", Cylinder(0.05, 0.12)), ("cube", Mesh(vertices=0.05 * CORNERS))):
        b.add_body(name, "world", "free", mass=1.0, inertia=np.diag([2e-3, 3e-3, 4e-3]))
        b.add_collision(name, shape)
    b.add_collision("world", HalfSpace())
    model = b.build()
    q = ad.neutral(model)
    for j, (p, rpy) in enumerate((((0.0, 0.0, 0.2), (0.3, 0.2, 0.0)), ((1.0, 0.0, 0.1), (1.2, 0.0, 0.0)),
                                  ((2.0, 0.0, 0.05), (0.0, 0.0, 0.0)))):
        sl = model.q_slice(model.joint_names[j + 1])
        q[sl][:3], q[sl][3:] = p, Rotation.from_euler("xyz", rpy).as_quat()
    return model, q


def cubes_on_slab():
    b = ad.ModelBuilder("cubes_on_slab")
    for k in range(4):
        b.add_body(f"cube{k}", "world", "free", mass=1.0, inertia=np.eye(3) * 1e-3 * 5 / 3)
        b.add_collision(f"cube{k}", Mesh(vertices=0.05 * CORNERS))
    b.add_collision("world", Mesh(vertices=CORNERS * (1.0, 1.0, 0.05) - (0.0, 0.0, 0.05)))
    model = b.build()
    q = ad.neutral(model)
    for k in range(4):
        sl = model.q_slice(model.joint_names[k + 1])
        q[sl][:3], q[sl][3:] = (0.3 * k - 0.45, 0.0, 0.05), Rotation.from_euler("z", 0.3 * k).as_quat()
    return model, q


def solo12():
    model = ad.load("solo12")
    cols = [dataclasses.replace(c, contype=1, conaffinity=2) for c in model.collisions]
    cols.append(Collision("ground", 0, HalfSpace(), np.eye(4), contype=2, conaffinity=1))
    model = model.replace(collisions=cols)
    q = ad.neutral(model)
    for leg, sg in (("FL", 1), ("FR", 1), ("HL", -1), ("HR", -1)):
        q[model.idx_q[model.joint_id(leg + "_HFE")]] = 0.8 * sg
        q[model.idx_q[model.joint_id(leg + "_KFE")]] = -1.6 * sg
    W = ad.geometry.world_placements(model, ad.body_placements(model, q))
    low = min(float((c.shape.vertices @ T[:3, :3].T + T[:3, 3])[:, 2].min()) for c, T in zip(cols[:-1], W))
    q[2] += 0.01 - low
    return model, q


def timed(model, q, t_final, route, repeat):
    s = ContactSettings(friction=0.6)
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        run = simulate_contact(model, q, np.zeros(model.nv), 0.0, t_final, 1e-3, s, route=route)
        best = min(best, time.perf_counter() - t0)
    assert run.stats["route"] == route
    return 1e6 * best / (run.t.size - 1), len(run.contacts[-1].gap)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--t-final", type=float, default=1.0, help="seconds simulated on the compiled route")
    args = parser.parse_args()
    print(f"{'scene':<20} {'compiled µs/step':>17} {'reference µs/step':>18} {'ratio':>7} {'contacts (end)':>15}")
    for name, make in (("hulls on the ground", hulls), ("cubes on a slab", cubes_on_slab), ("solo12 hulls", solo12)):
        model, q = make()
        timed(model, q, 0.01, "compiled", 1)                    # packing and numba cache
        c, nc = timed(model, q, args.t_final, "compiled", 3)
        r, nr = timed(model, q, args.t_final / 10, "reference", 1)
        print(f"{name:<20} {c:>17.1f} {r:>18.1f} {r / c:>7.1f} {nc:>6} / {nr:<6}")


if __name__ == "__main__":
    main()
