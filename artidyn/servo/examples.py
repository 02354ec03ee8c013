"""The servo problems of Appell's treatise and of the servo-constraint literature, as
:class:`~artidyn.servo.ServoProblem` builders.

* :func:`plate_on_turntable`: Appell's plate hinged on a turntable that a motor turns so that
  ``alpha - beta = pi / 2`` (``link="motor"``: D = [1, 0], equation (5); ``link="rigid"``: the
  same relation by a rigid link, D = E, equation (6));
* :func:`spring_chain`: masses joined by springs, driven at the first so that the last follows
  ``y(t)`` (flat; index 5 for two masses, 7 for three; Altmann & Heiland 2017);
* :func:`ship_stabiliser`: a mass moved across the deck so that its position is proportional to
  the roll rate (damping) or to the roll angle (period change);
* :func:`overhead_crane`: a trolley and a winch driven so that the load follows a path in the
  vertical plane (flat, index 5; Altmann & Heiland 2017's set-up);
* :func:`disc_and_ring`: Appell §470, a ring that a motor keeps in the plane of a disc (servo)
  versus a ring that the disc drives by contact;
* :func:`sphere_on_moving_plane`: a ball rolling without slipping on a horizontal plane that is
  translated so that the ball's centre describes a circle uniformly (a servo through a moving
  obstacle);
* :func:`cyclist`: Appell's cyclist, who keeps the rear wheel's angular speed constant with his
  legs and the frame's lean a function of t with the muscles of his body (rolling wheels).
"""
import numpy as np
import sympy as sp
from sympy.physics.mechanics import dynamicsymbols

from .problem import T_SYMBOL, ServoProblem

t = T_SYMBOL


def plate_on_turntable(link="motor", F=1.0, a=0.3, R=1.0, b=0.5, k=0.2, M=2.0, I1=1.5):
    """Appell §4xx: turntable (centre O, OC = R, inertia I1 about O, angle alpha of OC), plate
    hinged at C (mass M, radius of gyration k about its centre G, CG = b, angle beta of CG), a
    constant force F along +x at A on line CG (CA = a), horizontal plane. Kinetic energy
    ``2T = I1 alphadot^2 + M (R^2 alphadot^2 + (b^2 + k^2) betadot^2 + 2 R b alphadot betadot
    cos(alpha - beta))``; F as the potential ``-F x_A``; servo ``alpha - beta = pi / 2``. The
    acceleration energy, stated as Appell does from the accelerations of the bodies (the table
    turning about O, the plate moving in its plane), ``2S = I1 alphadd^2 + M |a_G|^2 + M k^2
    betadd^2``, serves ``method="gibbs_appell"``."""
    al, be = dynamicsymbols("alpha beta")
    ad_, bd = al.diff(t), be.diff(t)
    T = sp.Rational(1, 2) * (I1 * ad_ ** 2 + M * (R ** 2 * ad_ ** 2 + (b ** 2 + k ** 2) * bd ** 2
                                                   + 2 * R * b * ad_ * bd * sp.cos(al - be)))
    U = -F * (R * sp.cos(al) + a * sp.cos(be))
    G = sp.Matrix([R * sp.cos(al) + b * sp.cos(be), R * sp.sin(al) + b * sp.sin(be)])
    a_G = G.diff(t, 2)
    S = sp.Rational(1, 2) * (I1 * al.diff(t, 2) ** 2 + M * (a_G.T * a_G)[0] + M * k ** 2 * be.diff(t, 2) ** 2)
    D = [[1, 0]] if link == "motor" else [[1, -1]]
    return ServoProblem([al, be], T, U, servo=[al - be - sp.pi / 2], directions=D,
                        name=f"plate on a turntable ({link})", acceleration_energy=S)


def spring_chain(masses=(1.0, 2.0), stiffness=(1.0,), rest=0.5, path=None):
    """Masses on a line joined by springs (``stiffness[i]`` between masses i and i+1, rest length
    ``rest``), a force on the first so that the last follows ``path`` (a SymPy expression of t;
    default a smooth step)."""
    n = len(masses)
    xs = dynamicsymbols(f"x1:{n + 1}")
    T = sum(sp.Rational(1, 2) * m * x.diff(t) ** 2 for m, x in zip(masses, xs))
    U = sum(sp.Rational(1, 2) * k * (xs[i + 1] - xs[i] - rest) ** 2 for i, k in enumerate(stiffness))
    y = path if path is not None else sp.sin(t) / 2 + t ** 2 / 10
    return ServoProblem(xs, T, U, servo=[xs[-1] - y], directions=[[1] + [0] * (n - 1)],
                        name=f"{n}-mass spring chain")


def ship_stabiliser(kind="damping", gain=0.5, inertia=4.0, stiffness=10.0, mass=0.5, height=0.0, g=9.81):
    """A ship rolling (angle phi, inertia and hydrostatic stiffness about the roll axis) with a
    mass on a rail across the deck (position p, the rail ``height`` above the roll axis), moved
    so that ``p = gain * phidot`` (``kind="damping"``) or ``p = gain * phi`` (``"period"``)."""
    ph, p = dynamicsymbols("phi p")
    X = p * sp.cos(ph) - height * sp.sin(ph)
    Z = p * sp.sin(ph) + height * sp.cos(ph)
    T = sp.Rational(1, 2) * inertia * ph.diff(t) ** 2 + sp.Rational(1, 2) * mass * (X.diff(t) ** 2 + Z.diff(t) ** 2)
    U = sp.Rational(1, 2) * stiffness * ph ** 2 + mass * g * Z
    rel = p - gain * (ph.diff(t) if kind == "damping" else ph)
    return ServoProblem([ph, p], T, U, servo=[rel], directions=[[0, 1]], name=f"ship stabiliser ({kind})")


def disc_and_ring(I_disc=2.0, I_ring=1.0, spring_torque=0.1, link="servo"):
    """Appell §470: a disc (azimuth alpha) and a concentric ring (alpha_1) turning about the same
    diameter; the relation ``alpha_1 = alpha``, realised by a motor on the ring (``"servo"``,
    D = [0, 1]) or by contact (``"contact"``, D = E); a small spring fixed on the ring presses on
    the disc (torque ``spring_torque`` on the disc, its opposite on the ring). Under the servo the
    system turns uniformly accelerated (alpha'' = spring_torque / I_disc); by contact it stays at
    rest."""
    al, al1 = dynamicsymbols("alpha alpha_1")
    T = sp.Rational(1, 2) * (I_disc * al.diff(t) ** 2 + I_ring * al1.diff(t) ** 2)
    D = [[0, 1]] if link == "servo" else [[1, -1]]
    # rotations about a fixed axis
    S = sp.Rational(1, 2) * (I_disc * al.diff(t, 2) ** 2 + I_ring * al1.diff(t, 2) ** 2)
    return ServoProblem([al, al1], T, generalized_forces=[spring_torque, -spring_torque], servo=[al1 - al],
                        directions=D, name=f"disc and ring ({link})", acceleration_energy=S)


def sphere_on_moving_plane(radius=0.1, mass=1.0, plane_mass=3.0, rho=0.3, omega=1.0, quasi=False):
    """A uniform ball (radius r, inertia 2/5 m r^2) rolling without slipping on a horizontal plane
    that translates (X, Y; mass ``plane_mass``), the plane driven (servo forces on X and Y) so
    that the ball's centre (x, y) describes the circle of radius ``rho`` at the rate ``omega``.
    Coordinates ``[X, Y, x, y, psi, theta, phi]``, the ball's orientation by Z-Y-X angles (its
    angular velocity in world axes: psid z + thetad R_z(psi) y + phid R_z(psi) R_y(theta) x).
    Rolling: ``xd - r omega_y = Xd``, ``yd + r omega_x = Yd``. Acceleration energy (a
    homogeneous ball: ``omegad . (omega x I omega) = 0``): ``2S = m_p (Xdd^2 + Ydd^2) + m (xdd^2 +
    ydd^2) + I |omegad|^2``.

    ``quasi=True``: the same problem stated as Appell states it, in the quasi-velocities ``w =
    [Xd, Yd, xd, yd, omega_x, omega_y, omega_z]`` (the ball's angular velocity in world axes, not
    the rates of any coordinates): ``2T = m_p (w1^2 + w2^2) + m (w3^2 + w4^2) + I |omega|^2``,
    ``2S`` the same in the ``wdot``, the rolling relations ``w3 - r w6 = w1``, ``w4 + r w5 = w2``;
    :meth:`~artidyn.servo.ServoProblem.accelerations` then takes ``(q, w)``."""
    X, Y, x, y, ps, th, ph = dynamicsymbols("X Y x y psi theta phi")
    I = sp.Rational(2, 5) * mass * radius ** 2
    cps, sps, cth, sth = sp.cos(ps), sp.sin(ps), sp.cos(th), sp.sin(th)
    w = sp.Matrix([0, 0, ps.diff(t)]) + th.diff(t) * sp.Matrix([-sps, cps, 0]) \
        + ph.diff(t) * sp.Matrix([cps * cth, sps * cth, -sth])
    T = sp.Rational(1, 2) * plane_mass * (X.diff(t) ** 2 + Y.diff(t) ** 2) \
        + sp.Rational(1, 2) * mass * (x.diff(t) ** 2 + y.diff(t) ** 2) + sp.Rational(1, 2) * I * (w.T * w)[0]
    rolling = [x.diff(t) - radius * w[1] - X.diff(t), y.diff(t) + radius * w[0] - Y.diff(t)]
    servo = [x - rho * sp.cos(omega * t), y - rho * sp.sin(omega * t)]
    D = [[1, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0]]
    if quasi:
        W = dynamicsymbols("w1:8")
        rates = [X.diff(t), Y.diff(t), x.diff(t), y.diff(t), w[0], w[1], w[2]]
        Tw = sp.Rational(1, 2) * (plane_mass * (W[0] ** 2 + W[1] ** 2) + mass * (W[2] ** 2 + W[3] ** 2)
                                  + I * (W[4] ** 2 + W[5] ** 2 + W[6] ** 2))
        Sw = Tw.xreplace({v: v.diff(t) for v in W})
        prob = ServoProblem([X, Y, x, y, ps, th, ph], Tw, servo=servo, directions=D,
                            rolling=[W[2] - radius * W[5] - W[0], W[3] + radius * W[4] - W[1]],
                            name="sphere on a moving plane (quasi-velocities)", acceleration_energy=Sw,
                            quasi_velocities=dict(zip(W, rates)))
        prob.angular_velocity = lambda angles, w_: np.asarray(w_, dtype=float)[-3:]
        return prob
    wd = w.diff(t)
    S = sp.Rational(1, 2) * (plane_mass * (X.diff(t, 2) ** 2 + Y.diff(t, 2) ** 2)
                             + mass * (x.diff(t, 2) ** 2 + y.diff(t, 2) ** 2) + I * (wd.T * wd)[0])
    prob = ServoProblem([X, Y, x, y, ps, th, ph], T, servo=servo, directions=D, rolling=rolling,
                        name="sphere on a moving plane", acceleration_energy=S)
    prob.angular_velocity = sp.lambdify(((ps, th, ph), (ps.diff(t), th.diff(t), ph.diff(t))),
                                        list(w), modules="numpy")
    return prob


def smooth_step(t0, t1, start, end):
    """A SymPy path from ``start`` to ``end`` over [t0, t1] whose first four derivatives vanish at
    both ends (the degree-9 polynomial of the 'minimum-snap' kind); constant outside."""
    tau = (t - t0) / (t1 - t0)
    sigma = 126 * tau ** 5 - 420 * tau ** 6 + 540 * tau ** 7 - 315 * tau ** 8 + 70 * tau ** 9
    return sp.Piecewise((start, t <= t0), (end, t >= t1), (start + (end - start) * sigma, True))


def overhead_crane(trolley_mass=10.0, winch_inertia=0.1, load_mass=100.0, winch_radius=0.1, g=9.81,
                   start=(0.0, 4.0), end=(1.0, 5.0), duration=6.0):
    """An overhead crane in the coordinates of Altmann & Heiland (2017): trolley position s,
    winch angle beta (rope length r beta), load position (x, z) with z measured downwards; the
    rope ``(x - s)^2 + z^2 = (r beta)^2`` an ideal relation (D = E: its multiplier is the third
    servo force, the rope tension's), the trolley force and the winch torque the servo forces
    that make the load follow a smooth path from ``start`` to ``end``. Index 5."""
    s, be, x, z = dynamicsymbols("s beta x z")
    r = winch_radius
    T = sp.Rational(1, 2) * (trolley_mass * s.diff(t) ** 2 + winch_inertia * be.diff(t) ** 2
                             + load_mass * (x.diff(t) ** 2 + z.diff(t) ** 2))
    U = -load_mass * g * z
    rope = (x - s) ** 2 + z ** 2 - (r * be) ** 2
    path = [smooth_step(0, duration, start[0], end[0]), smooth_step(0, duration, start[1], end[1])]
    D = [[1, 0, 0, 0], [0, 1, 0, 0], [rope.diff(c) for c in (s, be, x, z)]]
    # the vertical relation first: the structure algorithm keeps earlier rows and carries a later
    # dependent one further; the tension reaches z directly even when the load hangs straight
    prob = ServoProblem([s, be, x, z], T, U, servo=[z - path[1], x - path[0], rope], directions=D,
                        name="overhead crane")
    prob.path = [sp.lambdify(t, p_, modules="numpy") for p_ in path]
    return prob


def cyclist(relations=("speed", "lean"), omega=8.0, lean=None, slope=0.0, wheel_radius=0.35, wheel_mass=2.0,
            bike_mass=10.0, bike_height=0.6, bike_inertia=0.5, rider_mass=50.0, hip_height=0.9, trunk=0.4,
            trunk_inertia=3.0, g=9.81):
    """Appell's cyclist (§470: "le cycliste ... réglera l'action de ses jambes de manière à réaliser
    une vitesse angulaire constante, ou bien il contractera les muscles du corps de manière à réaliser
    une inclinaison du cadre fonction de t"): a bicycle running straight on a road of slope ``slope``.

    Coordinates ``[x, phi_r, phi_f, theta, beta]``: the distance along the road, the rear and front
    wheel angles, the frame's lean about the contact line (from the road's normal) and the rider's
    trunk lean relative to the frame (hinged at the hips, ``hip_height`` above the contact line,
    its centre ``trunk`` above the hips). The wheels are thin hoops (axial inertia m a^2, diametral
    half of it) rolling without slipping, ``xdot = a phi_rdot = a phi_fdot`` (first-kind relations:
    their reactions are the road's traction forces); the heading is held straight, so the road plane
    and the roll plane decouple (a leaning hoop's angular velocity ``phidot e_axle + thetadot e_x``
    has ``|omega|^2 = phidot^2 + thetadot^2``). The legs and the rest of the rider are part of the
    frame.

    Servo relations (``relations``, any of the two):

    * ``"speed"``: ``phi_rdot = omega``, realised by the legs: a torque between the frame and the rear
      wheel, which works only on ``phi_r`` (the frame does not pitch): direction ``[0, 1, 0, 0, 0]``;
    * ``"lean"``: ``theta = lean(t)`` (a SymPy expression of t; default ``0.05 sin(2 t)``), realised
      by the muscles of the body: a torque between frame and trunk, which works only on ``beta``:
      direction ``[0, 0, 0, 0, 1]``.
    """
    x, pr, pf, th, be = dynamicsymbols("x phi_r phi_f theta beta")
    a, mw = wheel_radius, wheel_mass
    Ia, Id = mw * a ** 2, mw * a ** 2 / 2
    up = lambda ang: sp.Matrix([-sp.sin(ang), sp.cos(ang)])       # noqa: E731 (lateral, normal) of a lean
    frame_c, hips = bike_height * up(th), hip_height * up(th)
    trunk_c = hips + trunk * up(th + be)
    wheel_c = a * up(th)
    roll = lambda p: (p.diff(t).T * p.diff(t))[0]                  # noqa: E731 squared speed in the roll plane
    total = bike_mass + rider_mass + 2 * mw
    xd = x.diff(t)
    T = sp.Rational(1, 2) * (total * xd ** 2 + bike_mass * roll(frame_c) + bike_inertia * th.diff(t) ** 2
                             + rider_mass * roll(trunk_c) + trunk_inertia * (th.diff(t) + be.diff(t)) ** 2
                             + 2 * mw * roll(wheel_c) + 2 * Id * th.diff(t) ** 2
                             + Ia * (pr.diff(t) ** 2 + pf.diff(t) ** 2))
    gn = g * sp.cos(slope)
    U = total * g * sp.sin(slope) * x + gn * (bike_mass * frame_c[1] + rider_mass * trunk_c[1] + 2 * mw * wheel_c[1])
    lean = 0.05 * sp.sin(2 * t) if lean is None else sp.sympify(lean)
    table = {"speed": (pr.diff(t) - omega, [0, 1, 0, 0, 0]), "lean": (th - lean, [0, 0, 0, 0, 1])}
    if isinstance(relations, str):
        relations = (relations,)
    unknown = [r for r in relations if r not in table]
    if unknown or not relations:
        from ..errors import InputError
        raise InputError(f"cyclist: relations must be 'speed' and/or 'lean', got {relations!r}")
    prob = ServoProblem([x, pr, pf, th, be], T, U, servo=[table[r][0] for r in relations],
                        directions=[table[r][1] for r in relations],
                        rolling=[xd - a * pr.diff(t), xd - a * pf.diff(t)], name="cyclist")
    prob.lean = sp.lambdify(t, lean, modules="numpy")
    return prob
