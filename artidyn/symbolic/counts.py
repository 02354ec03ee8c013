"""Operation counts: the n-link planar chain and the tables of the benchmark.

The n-link planar pendulum (point masses at the ends of massless unit links, joints about z,
gravity -y) is the case of SymPy's KanesMethod examples; its customised inverse dynamics grows
linearly in n (Khalil & Dombre, ch. 9: a fixed number of operations per link), while the closed
form expanded by computer algebra grows much faster.
"""


def planar_chain(n, length=1.0, mass=1.0, g=9.81):
    """An n-link planar pendulum: revolute joints about z, links of ``length`` along x, a point mass
    ``mass`` at the end of each link, gravity (0, -g, 0)."""
    from ..builder import ModelBuilder
    from ..errors import InputError
    if int(n) < 1:
        raise InputError(f"planar_chain: n must be >= 1, got {n}")
    b = ModelBuilder(f"planar{n}", gravity=(0.0, -g, 0.0))
    parent = "world"
    for k in range(1, int(n) + 1):
        parent = b.add_body(f"link{k}", parent, "revolute", joint_name=f"joint{k}", axis=(0, 0, 1),
                            xyz=(0.0 if k == 1 else length, 0, 0), mass=mass, com=(length, 0, 0))
    return b.build()


def operation_counts(ns=range(2, 13), what=("inverse_dynamics", "mass_matrix")):
    """{n: {what: ops}} for the planar chains of ``ns``."""
    from . import models
    out = {}
    for n in ns:
        m = planar_chain(n)
        out[n] = {w: getattr(models, w)(m).ops for w in what}
    return out


def kane_ops(n):
    """SymPy's KanesMethod on the n-link planar pendulum: count_ops of M and the forcing
    (the reference figure of the issue: 21 805 at n = 6). Slow beyond n = 4."""
    import sympy as sp
    import sympy.physics.mechanics as me
    q = me.dynamicsymbols(f"q:{n}")
    u = me.dynamicsymbols(f"u:{n}")
    m, l = sp.symbols(f"m:{n}"), sp.symbols(f"l:{n}")
    g = sp.Symbol("g")
    A = me.ReferenceFrame("A")
    P = me.Point("P")
    P.set_vel(A, 0)
    frames, particles, loads, kd = [], [], [], []
    prev = P
    for k in range(n):
        B = A.orientnew(f"B{k}", "Axis", [q[k], A.z])
        B.set_ang_vel(A, u[k] * A.z)
        Pk = prev.locatenew(f"P{k}", l[k] * B.x)
        Pk.v2pt_theory(prev, A, B)
        particles.append(me.Particle(f"Pa{k}", Pk, m[k]))
        loads.append((Pk, -m[k] * g * A.y))
        kd.append(q[k].diff() - u[k])
        frames.append(B)
        prev = Pk
    km = me.KanesMethod(A, q_ind=q, u_ind=u, kd_eqs=kd)
    km.kanes_equations(particles, loads)
    return sp.count_ops(km.mass_matrix) + sp.count_ops(km.forcing)
