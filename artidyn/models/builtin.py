"""Built-in robots: Puma 560 and Staubli RX-90 (DH tables), and the planar examples of Nguyen Quang
Hoang's non-recursive Newton-Euler lectures (Hanoi University of Science and Technology).

==================  ==========================================================================
name                model
==================  ==========================================================================
``puma560``         Unimation Puma 560, classic DH, published kinematic and dynamic parameters
``rx90``            Staubli RX-90, modified DH (Khalil's table); ILLUSTRATIVE masses/inertias
``planar2r``        planar 2R arm in the x-y plane, gravity along -y (Nguyen Quang Hoang's lectures, example 3)
``pendulum``        1-dof pendulum, x axis pointing down, gravity along +x (Nguyen Quang Hoang's lectures, example 1)
``cart_pendulum``   cart on the x axis carrying a pendulum, gravity along -y (Nguyen Quang Hoang's lectures, example 2)
``fourbar``         planar crank-rocker four-bar linkage: a closed chain, the DH table file
                    ``data/fourbar.toml`` with a ``[[constraints]]`` point closing its loop
==================  ==========================================================================

``fourbar`` is a closed chain (``artidyn.constraints.from_model(model)`` gives its loop): it is
listed by ``names(closed_chains=True)`` only, so that ``names()`` stays the list of trees.
"""
import math
import pathlib

import numpy as np

from ..builder import ModelBuilder
from ..io.dh import Tx, from_dh

DEG = math.pi / 180

# --- Puma 560 ------------------------------------------------------------------------------
# Classic DH table and dynamic parameters as in the Robotics Toolbox's DH Puma560 model
# (P. Corke and B. Armstrong-Helouvry, "A search for consensus among model parameters reported
# for the PUMA 560 robot", ICRA 1994; B. Armstrong, O. Khatib, J. Burdick, "The explicit dynamic
# model and inertial parameters of the PUMA 560 arm", ICRA 1986; joint limits from Wang & Chen,
# IEEE Trans. RA 7(4), 1991). d1 = 26.45 inch includes the pedestal. com in F_i (m); inertia at
# the com in F_i axes (kg m^2, principal values: all products are zero); Jm rotor inertia
# (kg m^2) and G gear ratio per joint; B viscous and Tc = (tau_C+, tau_C-) Coulomb friction, both
# measured at the motor.
PUMA560_DH = (  # theta, d, a, alpha
    (0.0, 26.45 * 0.0254, 0.0, math.pi / 2),
    (0.0, 0.0, 0.4318, 0.0),
    (0.0, 0.15005, 0.0203, -math.pi / 2),
    (0.0, 0.4318, 0.0, math.pi / 2),
    (0.0, 0.0, 0.0, -math.pi / 2),
    (0.0, 0.0, 0.0, 0.0),
)
PUMA560_MASS = (0.0, 17.4, 4.8, 0.82, 0.34, 0.09)
PUMA560_COM = ((0, 0, 0), (-0.3638, 0.006, 0.2275), (-0.0203, -0.0141, 0.070), (0, 0.019, 0),
               (0, 0, 0), (0, 0, 0.032))
PUMA560_INERTIA = ((0.0, 0.35, 0.0), (0.13, 0.524, 0.539), (0.066, 0.086, 0.0125),
                   (1.8e-3, 1.3e-3, 1.8e-3), (0.3e-3, 0.4e-3, 0.3e-3), (0.15e-3, 0.15e-3, 0.04e-3))
PUMA560_JM = (200e-6, 200e-6, 200e-6, 33e-6, 33e-6, 33e-6)
PUMA560_G = (-62.6111, 107.815, -53.7063, 76.0364, 71.923, 76.686)
PUMA560_B = (1.48e-3, 0.817e-3, 1.38e-3, 71.2e-6, 82.6e-6, 36.7e-6)
PUMA560_TC = ((0.395, -0.435), (0.126, -0.071), (0.132, -0.105), (11.2e-3, -16.9e-3),
              (9.26e-3, -14.5e-3), (3.96e-3, -10.5e-3))
PUMA560_QLIM_DEG = ((-160, 160), (-45, 225), (-225, 45), (-110, 170), (-100, 100), (-266, 266))
# The published link 1 (m = 0 with I = diag(0, 0.35, 0)) and link 3 (Iyy = 0.086 > Ixx + Izz =
# 0.0785) are not rigid bodies, which the builder refuses. Completions, also in the load report:
# link 1 becomes a 10 kg thin disc normal to its y axis (the joint-1 axis): I = diag(0.175, 0.35,
# 0.175), com on the axis; no joint torque changes (link 1 only spins about y1). Link 3's Izz
# rises from 0.0125 to 0.020 = Iyy - Ixx, the smallest value meeting the triangle inequality.
PUMA560_COMPLETED = {1: (10.0, (0.175, 0.35, 0.175)), 3: (4.8, (0.066, 0.086, 0.020))}


def puma560(motors=True, friction=False):
    """Unimation Puma 560 (classic DH, 6 revolute joints), parameters of the sources above.

    ``motors``: armature = Jm G^2 (rotor inertia seen at the joint, as the toolbox's ``rne``).
    ``friction``: damping = B G^2 and coulomb = |G| (|tau_C+| + |tau_C-|) / 2 (the published
    Coulomb friction is asymmetric; artidyn's is symmetric, so the mean is used).
    """
    rows = []
    for i in range(6):
        theta, d, a, alpha = PUMA560_DH[i]
        m, I = PUMA560_COMPLETED.get(i + 1, (PUMA560_MASS[i], PUMA560_INERTIA[i]))
        G = PUMA560_G[i]
        row = dict(joint="revolute", theta=theta, d=d, a=a, alpha=alpha, mass=m, com=PUMA560_COM[i],
                   inertia=I, lower=PUMA560_QLIM_DEG[i][0] * DEG, upper=PUMA560_QLIM_DEG[i][1] * DEG)
        if motors:
            row["armature"] = PUMA560_JM[i] * G**2
        if friction:
            row["damping"] = PUMA560_B[i] * G**2
            row["coulomb"] = abs(G) * (abs(PUMA560_TC[i][0]) + abs(PUMA560_TC[i][1])) / 2
        rows.append(row)
    model = from_dh(rows, "classic", name="puma560")
    model.load_report.add("default", "link1", "published m = 0, I = diag(0, 0.35, 0) is not a rigid body: "
                          "completed as a 10 kg thin disc about the joint axis (no joint torque changes)")
    model.load_report.add("default", "link3", "published inertia (0.066, 0.086, 0.0125) breaks the triangle "
                          "inequality: Izz raised to 0.020")
    return model


# --- Staubli RX-90 -------------------------------------------------------------------------
# Modified DH (Khalil & Dombre, "Modeling, identification and control of robots", Staubli RX-90
# table; Khalil's d_j / r_j are a / d here): alpha = (0, -pi/2, 0, pi/2, -pi/2, pi/2),
# a = (0, 0, D3, 0, 0, 0), d = (0, 0, 0, RL4, 0, 0), theta = 0, with D3 = RL4 = 0.5 m. F_0 is at
# the shoulder (no base height). The masses, centres of mass and inertias below are ILLUSTRATIVE
# (plausible orders of magnitude for a 0.5 m + 0.5 m arm), not identified values.
RX90_DH = (  # alpha, a, theta, d
    (0.0, 0.0, 0.0, 0.0),
    (-math.pi / 2, 0.0, 0.0, 0.0),
    (0.0, 0.5, 0.0, 0.0),
    (math.pi / 2, 0.0, 0.0, 0.5),
    (-math.pi / 2, 0.0, 0.0, 0.0),
    (math.pi / 2, 0.0, 0.0, 0.0),
)
RX90_MASS = (25.0, 20.0, 10.0, 8.0, 2.0, 0.5)
RX90_COM = ((0, 0, -0.1), (0.25, 0, 0), (0, -0.1, 0), (0, 0, -0.25), (0, 0, 0), (0, 0, 0.05))
RX90_INERTIA = ((0.5, 0.5, 0.4), (0.1, 0.45, 0.45), (0.2, 0.05, 0.2), (0.18, 0.18, 0.03),
                (0.005, 0.005, 0.004), (5e-4, 5e-4, 4e-4))


def rx90():
    """Staubli RX-90 (modified DH, 6 revolute joints); illustrative inertial parameters."""
    rows = [dict(joint="revolute", alpha=al, a=a, theta=th, d=d, mass=m, com=c, inertia=I)
            for (al, a, th, d), m, c, I in zip(RX90_DH, RX90_MASS, RX90_COM, RX90_INERTIA)]
    model = from_dh(rows, "modified", name="rx90")
    model.load_report.add("info", "rx90", "kinematics from Khalil's table; masses and inertias are illustrative")
    return model


# --- Nguyen Quang Hoang's lecture examples (planar, revolute axes along z) ------------------------------------
def _rod(izz):
    """Inertia at the com of a thin rod along x (or a point mass when izz = 0)."""
    return np.diag([0.0, izz, izz])


def planar_2r(l1=1.0, l2=1.0, m1=1.0, m2=1.0, a1=None, a2=None, i1z=None, i2z=None, g=9.81):
    """Planar 2R arm in the x-y plane (Nguyen Quang Hoang's lectures, example 3), modified DH with a2 = l1.

    Link k has length l_k, mass m_k, centre of mass at a_k along its x axis (default l_k / 2)
    and inertia I_kz about the com (default m_k l_k^2 / 12: uniform thin rods). Gravity is
    (0, -g, 0) so that it acts in the plane. Tip position:
    x = l1 cos q1 + l2 cos(q1 + q2), y = l1 sin q1 + l2 sin(q1 + q2); frame "tool" is the tip.
    """
    a1 = l1 / 2 if a1 is None else a1
    a2 = l2 / 2 if a2 is None else a2
    i1z = m1 * l1**2 / 12 if i1z is None else i1z
    i2z = m2 * l2**2 / 12 if i2z is None else i2z
    rows = [dict(joint="revolute", alpha=0.0, a=0.0, theta=0.0, d=0.0, mass=m1, com=(a1, 0, 0), inertia=_rod(i1z)),
            dict(joint="revolute", alpha=0.0, a=l1, theta=0.0, d=0.0, mass=m2, com=(a2, 0, 0), inertia=_rod(i2z))]
    return from_dh(rows, "modified", name="planar2r", gravity=(0.0, -g, 0.0), tool=Tx(l2))


def pendulum(m=1.0, l=1.0, izz=0.0, g=9.81, rod=False):
    """The 1-dof pendulum of Nguyen Quang Hoang's non-recursive Newton-Euler lectures (example 1):
    revolute about z, x axis pointing down.

    The centre of mass is at a = l on the body's x axis (a point mass, plus ``izz`` about it);
    ``rod=True``: a uniform rod of length l (a = l / 2, izz = m l^2 / 12). Gravity is (g, 0, 0)
    as in the lecture's figure, so q = 0 hangs down and (I_z + m a^2) q'' + m a g sin q = u.
    Frame "tool" is the tip (l, 0, 0).
    """
    a, izz = (l / 2, m * l**2 / 12) if rod else (l, izz)
    row = dict(name="pendulum", joint_name="pivot", joint="revolute", alpha=0.0, a=0.0, theta=0.0, d=0.0,
               mass=m, com=(a, 0, 0), inertia=_rod(izz))
    return from_dh([row], "modified", name="pendulum", gravity=(g, 0.0, 0.0), tool=Tx(l))


def cart_pendulum(m1=1.0, m2=1.0, a2=1.0, d=0.0, i2z=0.0, g=9.81, l2=None):
    """Cart with a pendulum (Nguyen Quang Hoang's lectures, example 2): q = (x, phi).

    The cart (mass m1) slides along the world x axis; the pendulum is hinged at A, a distance
    ``d`` along x from the cart's centre, turns about z by phi measured from x, and has its
    centre of mass at a2 from A (mass m2, inertia I_2z about it). Gravity (0, -g, 0). Then
    M = [[m1 + m2, -m2 a2 sin phi], [-m2 a2 sin phi, I_2z + m2 a2^2]], g(q) = (0, m2 g a2 cos phi).
    The cart only translates, so its rotational inertia plays no part (taken as zero). Frame
    "tool" is the pendulum tip at ``l2`` (default a2).
    """
    b = ModelBuilder("cart_pendulum", gravity=(0.0, -g, 0.0))
    b.add_body("cart", "world", "prismatic", joint_name="slider", axis=(1, 0, 0), mass=m1)
    b.add_body("pendulum", "cart", "revolute", joint_name="hinge", axis=(0, 0, 1), xyz=(d, 0, 0),
               mass=m2, com=(a2, 0, 0), inertia=_rod(i2z))
    b.add_frame("tool", "pendulum", xyz=(a2 if l2 is None else l2, 0, 0))
    return b.build()


DATA = pathlib.Path(__file__).parent / "data"


def fourbar():
    """Planar crank-rocker four-bar linkage (``data/fourbar.toml``): ground 3.0, crank 1.0,
    coupler 3.0, rocker 2.5 m, 1 kg rods, gravity -y. A serial chain crank - coupler - rocker
    whose loop is closed by the declared ``point`` constraint "ground_pivot" (frame "tool" at
    (3, 0, 0)); q = 0 is on the loop. Get the constraint with
    ``artidyn.constraints.from_model(model)``.
    """
    return from_dh(DATA / "fourbar.toml")


def _flexible_beam(**kwargs):
    from .flexible import flexible_beam
    return flexible_beam(**kwargs)


BUILTINS = {"puma560": puma560, "rx90": rx90, "planar2r": planar_2r, "pendulum": pendulum,
            "cart_pendulum": cart_pendulum, "flexible_beam": _flexible_beam}
CLOSED_CHAINS = {"fourbar": fourbar}  # models that declare loop closures (model.constraint_specs)


def names(closed_chains=False):
    """Names of the built-in robots (trees); ``closed_chains=True`` adds the closed-chain examples."""
    return list(BUILTINS) + (list(CLOSED_CHAINS) if closed_chains else [])


def get(name, **kwargs):
    """The built-in robot ``name`` (keyword arguments go to its function); NameNotFound else."""
    from ..errors import unknown_name
    key = str(name).strip().lower().replace("-", "_")
    aliases = {"planar_2r": "planar2r", "puma": "puma560", "puma_560": "puma560", "rx_90": "rx90",
               "cartpendulum": "cart_pendulum", "four_bar": "fourbar", "beam": "flexible_beam"}
    key = aliases.get(key, key)
    table = {**BUILTINS, **CLOSED_CHAINS}
    if key not in table:
        raise unknown_name("built-in robot", name, names(closed_chains=True))
    return table[key](**kwargs)
