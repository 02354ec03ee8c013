"""A flexible link as a chain of rigid segments joined by torsional springs (lumped elements).

The clamped-free (cantilever) Euler-Bernoulli beam of length L, bending stiffness EI and mass
per unit length rho A is cut into n rigid segments of length h = L / n, each a uniform thin rod
(mass rho A h, inertia rho A h^3 / 12 about its centre), joined by revolute joints carrying
torsional springs: the lumped-parameter ("finite segment", Hencky bar-chain) discretisation of a
continuous beam (L. Meirovitch, "Fundamentals of Vibrations", McGraw-Hill 2001, ch. 8, lumped-
parameter models of distributed systems; R. L. Huston, "Multibody Dynamics", Butterworth-
Heinemann 1990, finite-segment modelling of flexible bodies).

Springs. The bending moment is EI times the curvature; a joint that concentrates the rotation
theta of a length h of beam has the curvature theta / h, hence the stiffness k = EI / h between
two segments. At the clamp only half a segment (h / 2, from the wall to the first segment's
centre) bends into the first joint, hence k_0 = 2 EI / h there. With k_0 = EI / h as well the
frequencies converge only as 1 / n (-4.8 % for the first one at n = 20); with 2 EI / h they
converge as 1 / n^2 (-0.11 % at n = 20): see ``clamp_stiffness``.

Reference. The natural frequencies of the continuous clamped-free beam are
omega_i = (beta_i L)^2 sqrt(EI / (rho A L^4)), beta_i L the roots of 1 + cos(x) cosh(x) = 0
(1.8751, 4.6941, 7.8548, ...; S. Timoshenko, D. H. Young, W. Weaver, "Vibration Problems in
Engineering", Wiley 1974, section 5.3; Meirovitch, op. cit., section 8.12):
:func:`cantilever_frequencies`. The chain's frequencies are those of the linearisation at rest
(no gravity), ``M(0) dq'' + K dq = 0`` with ``M = crba(model, 0)``, ``K = diag(model.stiffness)``.
"""
import numpy as np

from ..builder import ModelBuilder
from ..errors import InputError, check_count, check_number, check_vector


def cantilever_roots(count=3):
    """The first ``count`` roots beta_i L of ``1 + cos(x) cosh(x) = 0`` (clamped-free beam):
    1.8751041, 4.6940911, 7.8547574, ... (Newton from the asymptote (2 i - 1) pi / 2)."""
    count = check_count(count, "cantilever_roots: count", minimum=1, maximum=1000)
    x = (2 * np.arange(1, count + 1) - 1) * np.pi / 2
    x[0] = 1.875
    for _ in range(50):                          # f = cos x + 1 / cosh x (same roots, no overflow)
        f = np.cos(x) + 1 / np.cosh(x)
        df = -np.sin(x) - np.tanh(x) / np.cosh(x)
        x = x - f / df
    return x


def cantilever_frequencies(length, EI, mass_per_length, count=3):
    """Natural circular frequencies (rad/s) of the clamped-free Euler-Bernoulli beam:
    ``omega_i = (beta_i L)^2 sqrt(EI / (rho A L^4))``, beta_i L from :func:`cantilever_roots`
    (Timoshenko, Young and Weaver, "Vibration Problems in Engineering", section 5.3)."""
    where = "cantilever_frequencies"
    L = check_number(length, f"{where}: length", positive=True)
    EI = check_number(EI, f"{where}: EI", positive=True)
    mu = check_number(mass_per_length, f"{where}: mass_per_length", positive=True)
    return cantilever_roots(count) ** 2 * np.sqrt(EI / (mu * L**4))


def flexible_beam(length=1.0, n_elements=10, mass_per_length=1.0, EI=1.0, *, bending_axis=(0, 1, 0),
                  clamp_stiffness=2.0, damping=0.0, gravity=(0.0, 0.0, -9.81), name="flexible_beam", planes=1):
    """A clamped cantilever beam along the world x axis as ``n_elements`` rigid segments.

    Parameters
    ----------
    length : float
        L (m).
    n_elements : int
        n >= 1 rigid segments of length h = L / n; bodies ``segment_1`` .. ``segment_n``, joints
        ``bend_1`` (at the clamp, x = 0) .. ``bend_n`` (at x = (n - 1) h).
    mass_per_length : float
        rho A (kg/m); each segment is a uniform thin rod of mass rho A h.
    EI : float, or a pair with ``planes=2``
        Bending stiffness (N m^2): joint springs k = EI / h, and ``clamp_stiffness * EI / h`` at
        the clamp (module docstring: 2 gives second-order convergence of the frequencies,
        1 the plain k = EI / h everywhere). With ``planes=2``: (EI about the bending axis, EI
        about the third axis), or one value for both (a round section).
    bending_axis : 3-vector
        Axis of the revolute joints, perpendicular to x (default y: the beam bends in the x-z
        plane, against the default gravity).
    clamp_stiffness : float
        Factor of EI / h for the joint at the clamp.
    damping : float
        Viscous damping of every joint (N m s/rad), 0 by default.
    gravity : 3-vector
        The model's gravity; (0, 0, 0) for free vibrations about q = 0.
    planes : 1 or 2
        1: the beam bends in the plane normal to ``bending_axis`` (one revolute joint per node).
        2: in both planes (two revolute joints per node, about ``bending_axis`` then about
        ``x x bending_axis``, joined by a massless link: ``bend_i`` and ``bend_i_b``), for a beam
        loaded out of its plane or whirling; nq = nv = 2 n.

    Returns
    -------
    Model
        nq = nv = n; q = 0 is the straight beam, the spring rest position. Frame ``tip`` (and
        ``tool``, as on the other built-ins) is the free end (L, 0, 0) at rest.
    """
    where = "flexible_beam"
    L = check_number(length, f"{where}: length", positive=True)
    n = check_count(n_elements, f"{where}: n_elements", minimum=1, maximum=100_000)
    mu = check_number(mass_per_length, f"{where}: mass_per_length", positive=True)
    if planes not in (1, 2) or isinstance(planes, bool):
        raise InputError(f"{where}: planes must be 1 or 2, got {planes!r}")
    EIs = np.atleast_1d(np.asarray(EI, dtype=float)) if not isinstance(EI, (int, float)) else np.array([EI], float)
    if EIs.shape not in ((1,), (planes,)):
        raise InputError(f"{where}: EI must be a number{' or a pair' if planes == 2 else ''}, got {EI!r}")
    EIs = np.array([check_number(x, f"{where}: EI", positive=True) for x in np.broadcast_to(EIs, (planes,))])
    c0 = check_number(clamp_stiffness, f"{where}: clamp_stiffness", positive=True)
    d = check_number(damping, f"{where}: damping", minimum=0.0)
    axis = check_vector(bending_axis, 3, f"{where}: bending_axis")
    g = check_vector(gravity, 3, f"{where}: gravity")
    norm = np.linalg.norm(axis)
    if norm == 0 or abs(axis[0]) > 1e-9 * norm:
        raise InputError(f"{where}: bending_axis must be a nonzero vector perpendicular to the beam (x), "
                         f"got {axis.tolist()}")
    h = L / n
    m = mu * h
    I = m * h**2 / 12
    axes = [axis / norm, np.cross((1.0, 0.0, 0.0), axis / norm)]
    b = ModelBuilder(name, gravity=g)
    parent = "world"
    for i in range(1, n + 1):
        body = f"segment_{i}"
        k = (c0 if i == 1 else 1.0) * EIs / h
        xyz = (0.0 if i == 1 else h, 0.0, 0.0)
        if planes == 2:                 # the first bend on a massless link, the second on the segment
            b.add_body(f"{body}_a", parent, "revolute", joint_name=f"bend_{i}", axis=axes[0], xyz=xyz, mass=0.0,
                       inertia=np.zeros((3, 3)), stiffness=k[0], damping=d)
            parent, xyz = f"{body}_a", (0.0, 0.0, 0.0)
        b.add_body(body, parent, "revolute", joint_name=f"bend_{i}_b" if planes == 2 else f"bend_{i}",
                   axis=axes[planes - 1], xyz=xyz, mass=m, com=(h / 2, 0.0, 0.0),
                   inertia=np.diag([0.0, I, I]), stiffness=k[planes - 1], damping=d)
        parent = body
    b.add_frame("tip", parent, xyz=(h, 0.0, 0.0))
    b.add_frame("tool", parent, xyz=(h, 0.0, 0.0))        # the built-ins' end frame: the tip
    return b.build()
