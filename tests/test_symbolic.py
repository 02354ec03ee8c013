"""artidyn.symbolic: the customised Newton-Euler and the symbolic models against the numeric
algorithms (rnea, crba, placements, Jacobians, gravity, Coriolis), closed forms, SymPy's
KanesMethod, operation counts, and the generated code (NumPy, numba, C)."""
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

import artidyn as ad
from artidyn.symbolic import codegen, counts, models

TOL = 1e-12


def _states(model, n=4, seed=0):
    rng = np.random.default_rng(seed)
    Q = ad.random_configuration(model, rng=rng, size=n)
    return Q, rng.normal(size=(n, model.nv)), rng.normal(size=(n, model.nv))


@pytest.fixture(scope="module")
def loaded():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = ad.load(name)
        return cache[name]
    return get


@pytest.mark.parametrize("name", ["puma560", "rx90", "planar2r", "pendulum", "cart_pendulum", "ur5_robot", "panda"])
def test_models_equal_numeric(loaded, name):
    m = loaded(name)
    Q, V, A = _states(m)
    tau = models.inverse_dynamics(m).lambdify()
    assert np.abs(tau(Q, V, A) - ad.rnea(m, Q, V, A)).max() < TOL * 10
    assert np.abs(tau(Q[0], V[0], A[0]) - ad.rnea(m, Q[0], V[0], A[0])).max() < TOL * 10
    M = models.mass_matrix(m).lambdify()(Q)
    assert np.abs(M - ad.crba(m, Q)).max() < TOL
    assert np.abs(models.gravity(m).lambdify()(Q) - ad.gravity(m, Q)).max() < TOL * 10
    Cqd = models.coriolis(m, product=True).lambdify()(Q, V)
    assert np.abs(Cqd - np.einsum("nij,nj->ni", ad.coriolis_matrix(m, Q, V), V)).max() < TOL
    for frame in {m.body_names[-1], m.frames[-1].name}:
        assert np.abs(models.placement(m, frame).lambdify()(Q) - ad.frame_placement(m, Q, frame)).max() < TOL
        for how in ("world", "local"):
            J = models.jacobian(m, frame, how).lambdify()(Q)
            assert np.abs(J - ad.jacobian(m, Q, frame, how)).max() < TOL


@pytest.mark.parametrize("name", ["puma560", "cart_pendulum", "planar2r"])
def test_coriolis_matrix_and_lagrange(loaded, name):
    m = loaded(name)
    Q, V, A = _states(m, seed=3)
    C = models.coriolis(m).lambdify()(Q, V)
    assert np.abs(C - ad.coriolis_matrix(m, Q, V)).max() < TOL
    lag = models.lagrange(m)
    assert np.abs(lag.lambdify()(Q, V, A) - ad.rnea(m, Q, V, A)).max() < TOL * 10


def test_floating_base_and_friction(loaded):
    m = loaded("solo12")
    Q, V, A = _states(m, n=3, seed=5)
    assert np.abs(models.inverse_dynamics(m).lambdify()(Q, V, A) - ad.rnea(m, Q, V, A)).max() < TOL * 10
    assert np.abs(models.mass_matrix(m).lambdify()(Q) - ad.crba(m, Q)).max() < TOL
    with pytest.raises(ad.InputError, match="spherical/free"):
        models.coriolis(m)
    # friction and armature of a 1-dof chain, with Coulomb's sign
    p = loaded("puma560").replace(damping=np.linspace(0.1, 0.6, 6), coulomb=np.linspace(0.2, 0.7, 6))
    Q, V, A = _states(p, seed=7)
    assert np.abs(models.inverse_dynamics(p).lambdify()(Q, V, A) - ad.rnea(p, Q, V, A)).max() < TOL * 10


def test_symbolic_parameters_linear(loaded):
    """tau is linear in the inertial and friction parameters: doubling them all doubles tau; the
    defaults give rnea."""
    m = loaded("puma560").replace(damping=np.full(6, 0.3), coulomb=np.full(6, 0.2))
    sm = models.inverse_dynamics(m, parameters=["inertial", "friction"])
    assert len(sm.parameters) == 6 * 10 + 6 * 3 and "M3" in {s.name for s in sm.parameters}
    f = sm.lambdify()
    Q, V, A = _states(m, seed=2)
    ref = ad.rnea(m, Q, V, A)
    assert np.abs(f(Q, V, A) - ref).max() < TOL * 10
    p2 = {k: 2 * v for k, v in sm.parameter_values.items()}
    assert np.abs(f(Q, V, A, params=p2) - 2 * ref).max() < TOL * 100
    with pytest.raises(ad.InputError, match="unknown parameter"):
        models.inverse_dynamics(m, parameters=["XX9"])


def test_pendulum_and_2r_closed_forms(loaded):
    """Lagrange's equations and the customised Newton-Euler, all parameters symbolic, equal the
    textbook closed forms (seed 002 examples 1 and 3)."""
    q1, q2, qd1, qd2, qdd1, qdd2 = (sp.Symbol(n, real=True) for n in ("q1", "q2", "qd1", "qd2", "qdd1", "qdd2"))
    P = lambda n: sp.Symbol(n, real=True)  # noqa: E731
    pend = loaded("pendulum")
    expected = P("ZZ1") * qdd1 + P("MX1") * P("G1") * sp.sin(q1)
    for sm in (models.lagrange(pend, parameters=["ZZ1", "MX1", "G1"]),
               models.inverse_dynamics(pend, parameters=["ZZ1", "MX1", "G1"])):
        assert sp.simplify(sm.expression()[0] - expected) == 0
    arm = loaded("planar2r")
    l1, G = P("PX2"), P("G")
    c2, s2, c1, s1 = sp.cos(q2), sp.sin(q2), sp.cos(q1), sp.sin(q1)
    c12, s12 = sp.cos(q1 + q2), sp.sin(q1 + q2)
    a = l1 * (P("MX2") * c2 - P("MY2") * s2)
    b = l1 * (P("MX2") * s2 + P("MY2") * c2)
    tau1 = ((P("ZZ1") + P("ZZ2") + P("M2") * l1 ** 2 + 2 * a) * qdd1 + (P("ZZ2") + a) * qdd2
            - b * (2 * qd1 * qd2 + qd2 ** 2)
            + G * (P("MX1") * c1 - P("MY1") * s1 + P("M2") * l1 * c1 + P("MX2") * c12 - P("MY2") * s12))
    tau2 = (P("ZZ2") + a) * qdd1 + P("ZZ2") * qdd2 + b * qd1 ** 2 + G * (P("MX2") * c12 - P("MY2") * s12)
    for sm in (models.lagrange(arm, parameters=["inertial", "PX2", "G"], friction=False),
               models.inverse_dynamics(arm, parameters=["inertial", "PX2", "G"], friction=False)):
        e = sm.expression()
        for got, want in zip(e, (tau1, tau2)):
            assert sp.simplify(sp.expand(sp.expand_trig(got - want))) == 0


def test_cart_pendulum_closed_form(loaded):
    """Seed 002 example 2: M = [[m1 + m2, -m2 a2 sin phi], [., I_2z + m2 a2^2]], g = (0, m2 g a2 cos phi),
    here with the general first moments MX2, MY2 of the pendulum."""
    x, ph, xd, phd, xdd, phdd = (sp.Symbol(n, real=True) for n in ("q1", "q2", "qd1", "qd2", "qdd1", "qdd2"))
    P = lambda n: sp.Symbol(n, real=True)  # noqa: E731
    S, C = sp.sin(ph), sp.cos(ph)
    m12 = -(P("MX2") * S + P("MY2") * C)
    dm12 = -(P("MX2") * C - P("MY2") * S)
    tau = [(P("M1") + P("M2")) * xdd + m12 * phdd + dm12 * phd ** 2,
           m12 * xdd + P("ZZ2") * phdd + P("G") * (P("MX2") * C - P("MY2") * S)]
    params = ["M1", "M2", "MX2", "MY2", "ZZ2", "G"]
    for sm in (models.lagrange(loaded("cart_pendulum"), parameters=params),
               models.inverse_dynamics(loaded("cart_pendulum"), parameters=params)):
        for got, want in zip(sm.expression(), tau):
            assert sp.simplify(got - want) == 0


def _kane_torque(particles_fn, q_syms, u_syms, values, Q, V, A):
    """M(q) qdd - forcing(q, u) of a KanesMethod system, evaluated numerically."""
    import sympy.physics.mechanics as me
    km, particles, loads = particles_fn()
    km.kanes_equations(particles, loads)
    subs = dict(values)
    dyn = {**{q: sp.Symbol(f"x{k}") for k, q in enumerate(q_syms)},
           **{u: sp.Symbol(f"y{k}") for k, u in enumerate(u_syms)}}
    Mk = me.msubs(km.mass_matrix, dyn, subs)
    Fk = me.msubs(km.forcing, dyn, subs)
    args = list(dyn.values())
    fM, fF = sp.lambdify(args, Mk, "numpy"), sp.lambdify(args, Fk, "numpy")
    out = []
    for q, v, a in zip(Q, V, A):
        out.append(np.array(fM(*q, *v), dtype=float) @ a - np.array(fF(*q, *v), dtype=float).ravel())
    return np.array(out)


def test_kane_double_pendulum_and_cart_pole():
    import sympy.physics.mechanics as me
    rng = np.random.default_rng(11)
    # double pendulum: point masses at the ends of two links (relative angles, gravity -y)
    q, u = me.dynamicsymbols("q:2"), me.dynamicsymbols("u:2")
    m0, m1, l0, l1, g = sp.symbols("m0 m1 l0 l1 g")

    def double():
        A = me.ReferenceFrame("A")
        O = me.Point("O")
        O.set_vel(A, 0)
        B0 = A.orientnew("B0", "Axis", [q[0], A.z])
        B0.set_ang_vel(A, u[0] * A.z)
        B1 = B0.orientnew("B1", "Axis", [q[1], B0.z])
        B1.set_ang_vel(A, (u[0] + u[1]) * A.z)
        P0 = O.locatenew("P0", l0 * B0.x)
        P0.v2pt_theory(O, A, B0)
        P1 = P0.locatenew("P1", l1 * B1.x)
        P1.v2pt_theory(P0, A, B1)
        parts = [me.Particle("a", P0, m0), me.Particle("b", P1, m1)]
        loads = [(P0, -m0 * g * A.y), (P1, -m1 * g * A.y)]
        km = me.KanesMethod(A, q_ind=q, u_ind=u, kd_eqs=[q[0].diff() - u[0], q[1].diff() - u[1]])
        return km, parts, loads
    vals = {m0: 1.3, m1: 0.7, l0: 0.9, l1: 1.1, g: 9.81}
    b = ad.ModelBuilder("double", gravity=(0, -9.81, 0))
    b.add_body("a", "world", "revolute", axis=(0, 0, 1), mass=1.3, com=(0.9, 0, 0))
    b.add_body("b", "a", "revolute", axis=(0, 0, 1), xyz=(0.9, 0, 0), mass=0.7, com=(1.1, 0, 0))
    m = b.build()
    Q, V, A = rng.uniform(-3, 3, (4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    ref = _kane_torque(double, q, u, vals, Q, V, A)
    assert np.abs(models.inverse_dynamics(m).lambdify()(Q, V, A) - ref).max() < 1e-10
    # cart-pole: cart along x, pendulum angle from x about z, point mass at a2
    x, p = me.dynamicsymbols("x p")
    ux, up = me.dynamicsymbols("ux up")
    mc, mp, a2 = sp.symbols("mc mp a2")

    def cartpole():
        N = me.ReferenceFrame("N")
        O = me.Point("O")
        O.set_vel(N, 0)
        C = O.locatenew("C", x * N.x)
        C.set_vel(N, ux * N.x)
        B = N.orientnew("B", "Axis", [p, N.z])
        B.set_ang_vel(N, up * N.z)
        P = C.locatenew("P", a2 * B.x)
        P.v2pt_theory(C, N, B)
        parts = [me.Particle("c", C, mc), me.Particle("p", P, mp)]
        loads = [(C, -mc * g * N.y), (P, -mp * g * N.y)]
        km = me.KanesMethod(N, q_ind=[x, p], u_ind=[ux, up], kd_eqs=[x.diff() - ux, p.diff() - up])
        return km, parts, loads
    vals = {mc: 2.0, mp: 0.4, a2: 0.8, g: 9.81}
    cp = ad.models.cart_pendulum(m1=2.0, m2=0.4, a2=0.8)
    ref = _kane_torque(cartpole, [x, p], [ux, up], vals, Q, V, A)
    assert np.abs(models.inverse_dynamics(cp).lambdify()(Q, V, A) - ref).max() < 1e-10


def test_operation_counts_linear_and_small(loaded):
    ns = range(2, 13)
    for params in (None, ["all", "lengths"]):
        tot = [sum(models.inverse_dynamics(counts.planar_chain(n), parameters=params).ops.values()) for n in ns]
        assert np.all(np.diff(tot, 2) == 0), tot          # linear in n
        assert tot[6 - 2] <= 21805 / 20                     # KanesMethod: 21 805 at n = 6
    puma = models.inverse_dynamics(loaded("puma560")).ops
    assert puma["mul"] <= 300 and puma["add"] <= 250, puma


def test_generated_code_c_numba(loaded, tmp_path, monkeypatch):
    monkeypatch.setenv("ARTIDYN_CACHE", str(tmp_path))
    m = loaded("puma560")
    sm = models.inverse_dynamics(m)
    Q, V, A = _states(m, n=50, seed=4)
    ref = ad.rnea(m, Q, V, A)
    for backend in ("c", "numba", "numpy"):
        f = sm.lambdify(backend)
        assert np.abs(f(Q, V, A) - ref).max() < TOL * 10
        assert np.abs(f(Q[1], V[1], A[1]) - ref[1]).max() < TOL * 10
    libs = list(tmp_path.rglob("*.so"))
    assert libs and all("artidyn/symbolic" not in str(p.parent) for p in libs)
    src = sm.to_c()
    assert "f_batch" in src and "sin(q2)" in src
    monkeypatch.setattr(codegen.shutil, "which", lambda name: None)
    with pytest.raises(ad.InputError, match="no C compiler"):
        models.inverse_dynamics(loaded("planar2r")).lambdify("c")


def test_printing_and_cli(loaded, capsys):
    import argparse
    from artidyn.symbolic import commands
    sm = models.inverse_dynamics(loaded("puma560"))
    tex = sm.to_latex()
    assert "\\begin{align*}" in tex and "WI" in tex and "\\dot{q}_{1}" in tex
    md = sm.to_markdown()
    assert f"{sm.ops['mul']} multiplications" in md
    ns = {}
    exec(sm.to_python(), ns)
    Q, V, A = _states(loaded("puma560"), n=2)
    assert np.abs(ns["f"](Q, V, A, np.zeros(0)) - ad.rnea(loaded("puma560"), Q, V, A)).max() < TOL * 10
    parser = argparse.ArgumentParser()
    commands.register(parser.add_subparsers())
    for what, fmt in (("id", "c"), ("M", "latex"), ("fk", "python"), ("jacobian", "markdown"), ("g", "ops")):
        args = parser.parse_args(["symbolic", "planar2r", "--what", what, "--format", fmt, "--parameters", "M2"])
        assert args.func(args) == 0
        out = capsys.readouterr().out
        assert "multiplications" in out
    args = parser.parse_args(["symbolic", "fourbar", "--what", "closed", "--format", "ops"])
    assert args.func(args) == 0 and "closed_loop" in capsys.readouterr().out
    S23 = models.placement(loaded("puma560"), loaded("puma560").body_names[-1])
    assert any(s.name == "C23" for s, _ in S23.assignments)   # parallel axes 2, 3: cos(q2 + q3)


def test_sympy_stays_lazy():
    code = "import sys, artidyn, artidyn.symbolic; assert 'sympy' not in sys.modules, 'sympy imported'"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def _five_bar():
    b = ad.ModelBuilder("fivebar", gravity=(0, -9.81, 0))
    b.add_body("a1", "world", "revolute", joint_name="ja1", mass=1.0, com=(0.5, 0, 0), inertia=np.eye(3) * 0.02)
    b.add_body("a2", "a1", "revolute", joint_name="ja2", xyz=(1.0, 0, 0), mass=0.8, com=(0.6, 0.05, 0),
               inertia=np.diag([0.01, 0.02, 0.03]))
    b.add_body("b1", "world", "revolute", joint_name="jb1", xyz=(1.0, 0, 0), mass=1.2, com=(0.5, 0, 0))
    b.add_body("b2", "b1", "revolute", joint_name="jb2", xyz=(1.0, 0, 0), mass=0.9, com=(0.4, 0, 0.1),
               armature=0.05, damping=0.2)
    b.add_frame("tip_a", "a2", xyz=(1.2, 0, 0))
    b.add_frame("tip_b", "b2", xyz=(1.2, 0, 0))
    return b.build()


@pytest.mark.parametrize("case", ["fourbar", "fivebar"])
def test_closed_loop_reduced_model(loaded, case):
    """tau_a of the symbolic reduced model equals constrained_inverse_dynamics with the
    independent joints actuated (the loop's reactions carry the rest)."""
    from artidyn.constraints import Point, assemble, constraint_terms, from_model
    from artidyn.symbolic.loops import closed_loop
    if case == "fourbar":
        m = loaded("fourbar")
        cons = from_model(m)
        sm = closed_loop(m)
    else:
        m = _five_bar()
        cons = [Point("tip_a", "tip_b")]
        sm = closed_loop(m, cons, independent=["ja1", "jb1"], q_sample=[1.2, 1.5, 1.9, -1.5])
        assert sm.independent == [0, 2]
    ind, dep = sm.independent, sm.dependent
    f = sm.lambdify()
    rng = np.random.default_rng(8)
    q0 = np.zeros(m.nq) if case == "fourbar" else np.array([1.2, 1.5, 1.9, -1.5])
    for _ in range(3):
        q = assemble(m, q0 + rng.normal(scale=0.1, size=m.nq), cons).q
        qda, qdda = rng.normal(size=len(ind)), rng.normal(size=len(ind))
        J = constraint_terms(m, q, np.zeros(m.nv), cons)[1]
        keep = np.abs(J).max(axis=1) > 1e-9                     # planar loops: the z row is 0
        v = np.zeros(m.nv)
        v[ind] = qda
        v[dep] = np.linalg.lstsq(J[keep][:, dep], -J[keep][:, ind] @ qda, rcond=None)[0]
        Jdv = constraint_terms(m, q, v, cons)[2]
        a = np.zeros(m.nv)
        a[ind] = qdda
        a[dep] = np.linalg.lstsq(J[keep][:, dep], -(J[keep][:, ind] @ qdda + Jdv[keep]), rcond=None)[0]
        act = np.zeros(m.nv, bool)
        act[ind] = True
        ref = ad.constrained_inverse_dynamics(m, q, v, a, cons, actuated=act).tau[ind]
        assert np.abs(f(q, qda, qdda) - ref).max() < 1e-9


def test_zoo_all_joint_types():
    """Random trees and chains (revolute with oblique axes, prismatic, spherical, cylindrical,
    floating base, fixed bodies lumped, an operational frame) against the numeric algorithms."""
    from artidyn.models.zoo import random_tree, zoo
    z = dict(zoo(0))
    cases = [z["chain_mixed6"], z["tree_sph_5"], z["floating_chain_3"],
             random_tree(rng=5, nb=4, joint_types=("cylindrical", "revolute", "prismatic"))]
    for m in cases:
        Q, V, A = _states(m, n=3, seed=6)
        scale = 1 + np.abs(ad.rnea(m, Q, V, A)).max()
        assert np.abs(models.inverse_dynamics(m).lambdify()(Q, V, A) - ad.rnea(m, Q, V, A)).max() < TOL * scale, m
        assert np.abs(models.mass_matrix(m).lambdify()(Q) - ad.crba(m, Q)).max() < TOL * 10, m
        J = models.jacobian(m, "tcp").lambdify()(Q)
        assert np.abs(J - ad.jacobian(m, Q, "tcp")).max() < TOL, m
    flat = cases[-1]                                  # cylindrical, revolute, prismatic: C and Lagrange
    Q, V, A = _states(flat, n=2, seed=9)
    assert np.abs(models.coriolis(flat).lambdify()(Q, V) - ad.coriolis_matrix(flat, Q, V)).max() < TOL * 10
    assert np.abs(models.lagrange(flat).lambdify()(Q, V, A) - ad.rnea(flat, Q, V, A)).max() < TOL * 100
