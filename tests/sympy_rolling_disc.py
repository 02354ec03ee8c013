"""An independent oracle: the rolling disc by Kane's method in SymPy.

A thin uniform disc (mass m, radius r) rolls without slipping on the horizontal ground z = 0,
gravity g along -z. It is the classic example of Kane & Levinson, "Dynamics: Theory and
Applications" (1985), and of the SymPy documentation ("A rolling disc",
``sympy.physics.mechanics``); here the contact point's ground coordinates are kept as
coordinates and the rolling condition enters as two nonholonomic constraints, so the model is
the full 5-coordinate, 3-degree-of-freedom system.

Conventions
-----------
World frame N: origin on the ground, z up (N.z), gravity ``-g N.z``.

Coordinates ``q = (q1, q2, q3, x, y)``: three successive rotations about body-fixed axes
(intrinsic Z-X-Y), ``R_world_disc = Rz(q1) @ Rx(q2) @ Ry(q3)``:

* ``q1`` yaw (heading), about N.z: frame Y;
* ``q2`` lean, about Y.x: frame L (the disc's frame without its spin);
* ``q3`` spin, about L.y: frame D, fixed in the disc.

The disc axis (normal to its plane) is ``D.y = L.y``; in the world it is
``Rz(q1) Rx(q2) e_y = (-cos q2 sin q1, cos q2 cos q1, sin q2)``. ``q2 = 0`` is the upright disc
(axis horizontal); ``q2 > 0`` tilts the disc's top toward ``-Y.y``. ``L.x = Y.x =
(cos q1, sin q1, 0)`` is the horizontal rolling direction; ``L.z`` is the in-plane direction
from the contact point to the centre. ``(x, y)`` are the world coordinates of the contact point
on the ground; the centre is ``(x, y, 0) + r L.z = (x + r sin q2 sin q1, y - r sin q2 cos q1,
r cos q2)``.

Independent speeds ``u = (u1, u2, u3)``: the disc's angular velocity in N, in components along
L (as in the SymPy example), ``omega = u1 L.x + u2 L.y + u3 L.z``: u2 is the rate about the
disc axis, ``u1 = q2'``, ``u3 = q1' cos q2``, ``u2 = q3' + q1' sin q2``. The contact point's
velocity ``(x', y')`` is fixed by rolling (the dependent speeds u4, u5 of Kane's method):
``(x', y') = r q3' (cos q1, sin q1)``.

Disc body frame for a free-floating disc (:func:`disc_state_to_pose`): origin at the centre,
axes D (x, z in the disc plane, y the disc axis); rotational inertia ``diag(m r^2/4,
m r^2/2, m r^2/4)`` in D.

Steady turning (derived by Euler's equations about the centre in the non-spinning frame L, the
computation of Kane & Levinson's rolling-disc problem): with constant lean ``q2 = theta``, yaw
rate ``q1' = psi_d`` and ``u1 = 0``, the disc rolls on a circle if and only if::

    I_d psi_d^2 sin(theta) cos(theta) - (I_a + m r^2) u2 psi_d cos(theta) = m g r sin(theta),

with I_d = m r^2 / 4 (diameter), I_a = m r^2 / 2 (axis); for the thin disc
``(r/4) psi_d^2 sin cos - (3 r / 2) u2 psi_d cos = g sin``. The contact point then runs on a
circle of radius ``r q3' / psi_d``.

Upright straight rolling (``q2 = 0``, ``u = (0, Omega, 0)``) linearised: the lean obeys
``lambda^2 = (m g r I_d - I_a (I_a + m r^2) Omega^2) / (I_d (I_d + m r^2))``, for the thin disc
``lambda^2 = (4/5) (g/r - 3 Omega^2)``: stable (oscillating) iff ``Omega^2 > g / (3 r)``.
"""
import functools

import numpy as np
import sympy as sm
import sympy.physics.mechanics as me


@functools.lru_cache(maxsize=None)
def _symbolic_model():
    """Kane's equations of the rolling disc, with r, m, g symbolic; built once (a few seconds).

    Returns the symbols and the matrices of ``M_full(q, u) [q'; u'] = F_full(q, u)`` (all five
    speeds) and of the dependent speeds ``u_dep = A(q) u_ind``.
    """
    q1, q2, q3, x, y = me.dynamicsymbols("q1 q2 q3 x y")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1 u2 u3 u4 u5")
    r, m, g = sm.symbols("r m g", positive=True)

    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])       # yaw
    L = Y.orientnew("L", "Axis", [q2, Y.x])       # lean
    D = L.orientnew("D", "Axis", [q3, L.y])       # spin: the disc
    w_qd = D.ang_vel_in(N)
    D.set_ang_vel(N, u1 * L.x + u2 * L.y + u3 * L.z)
    kd = [me.dot(D.ang_vel_in(N) - w_qd, e) for e in L] + [x.diff() - u4, y.diff() - u5]

    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", x * N.x + y * N.y)       # geometric contact point, on the ground
    C.set_vel(N, u4 * N.x + u5 * N.y)
    G = C.locatenew("G", r * L.z)                 # centre of the disc
    G.set_vel(N, C.vel(N) + me.cross(L.ang_vel_in(N), r * L.z))
    P = G.locatenew("P", -r * L.z)                # the disc's material point in contact
    P.v2pt_theory(G, N, D)
    rolling = [me.dot(P.vel(N), N.x), me.dot(P.vel(N), N.y)]

    I = me.inertia(L, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4)
    disc = me.RigidBody("disc", G, D, m, (I, G))
    loads = [(G, -m * g * N.z)]
    KM = me.KanesMethod(N, q_ind=[q1, q2, q3, x, y], u_ind=[u1, u2, u3], u_dependent=[u4, u5],
                        kd_eqs=kd, velocity_constraints=rolling)
    KM.kanes_equations([disc], loads)

    q, u_ind, u_dep = [q1, q2, q3, x, y], [u1, u2, u3], [u4, u5]
    rolling_u = [sm.expand(c.subs(KM.kindiffdict())) for c in rolling]     # q' -> u
    A_rows = sm.linear_eq_to_matrix(rolling_u, u_dep)
    u_dep_expr = A_rows[0].LUsolve(A_rows[1])
    return dict(q=q, u_ind=u_ind, u_dep=u_dep, params=(r, m, g), u_dep_expr=u_dep_expr,
                M_full=KM.mass_matrix_full, F_full=KM.forcing_full)


@functools.lru_cache(maxsize=None)
def _numeric_model():
    """lambdified ``u_dep(q, u_ind, r, m, g)``, ``M_full(q, u, r, m, g)``, ``F_full(...)``."""
    s = _symbolic_model()
    qs, us = sm.symbols("q1:6"), sm.symbols("u1:6")
    subs = dict(zip(s["q"], qs)) | dict(zip(s["u_ind"] + s["u_dep"], us))
    args = (qs, us, s["params"])
    num = {k: sm.lambdify(args, s[k].subs(subs), "numpy", cse=True) for k in ("u_dep_expr", "M_full", "F_full")}
    return num


@functools.lru_cache(maxsize=None)
def rolling_disc_oracle(r, m, g):
    """The equations of motion ``f(q, u) -> (qdot (5,), udot (3,))`` for given r, m, g (floats).

    ``q = (q1, q2, q3, x, y)``, ``u = (u1, u2, u3)``; see the module docstring. The SymPy
    derivation runs once per process, the lambdified functions once per (r, m, g).
    """
    num = _numeric_model()
    params = (float(r), float(m), float(g))

    def f(q, u):
        q, u = np.asarray(q, float), np.asarray(u, float)
        u_all = np.concatenate([u, np.ravel(num["u_dep_expr"](q, np.r_[u, 0.0, 0.0], params))])
        M = np.asarray(num["M_full"](q, u_all, params), float)
        F = np.ravel(np.asarray(num["F_full"](q, u_all, params), float))
        xd = np.linalg.solve(M, F)
        return xd[:5], xd[5:8]
    return f


def _rot(axis, angle):
    c, s = np.cos(angle), np.sin(angle)
    i, j = {"x": (1, 2), "y": (2, 0), "z": (0, 1)}[axis]
    R = np.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R


def disc_state_to_pose(q, r=1.0):
    """(R_world_disc (3, 3), centre_world (3,)) of the disc frame D.

    D: origin at the disc centre, y axis along the disc axis, x and z in the disc plane.
    ``R_world_disc = Rz(q1) Rx(q2) Ry(q3)`` (its columns are D's axes in world coordinates);
    the centre is the contact point ``(x, y, 0)`` plus ``r L.z``.
    """
    q1, q2, q3, x, y = np.asarray(q, float)
    R_L = _rot("z", q1) @ _rot("x", q2)
    return R_L @ _rot("y", q3), np.array([x, y, 0.0]) + r * R_L[:, 2]


def disc_velocity(q, u, r=1.0):
    """(omega_world (3,), v_centre_world (3,)): the disc's angular velocity and its centre's
    velocity, both in world coordinates, for the state (q, u) (rolling without slipping)."""
    q1, q2 = np.asarray(q, float)[:2]
    R_L = _rot("z", q1) @ _rot("x", q2)
    omega = R_L @ np.asarray(u, float)
    return omega, np.cross(omega, r * R_L[:, 2])   # the contact point of the disc is at rest


def disc_state_to_free_body(q, u, r=1.0):
    """The state of a free-floating disc as a free joint (D as the body frame).

    Returns ``(q7, v6)``: ``q7 = [centre_world (3), quaternion (x, y, z, w) of R_world_disc]`` and
    ``v6 = [omega_body (3), v_centre_body (3)]``, both in the disc frame D.
    """
    from scipy.spatial.transform import Rotation
    R, c = disc_state_to_pose(q, r)
    omega, v = disc_velocity(q, u, r)
    return np.r_[c, Rotation.from_matrix(R).as_quat()], np.r_[R.T @ omega, R.T @ v]


def disc_energy(q, u, r, m, g):
    """Kinetic plus potential energy ``m v_G^2 / 2 + omega.I.omega / 2 + m g z_G``."""
    _, c = disc_state_to_pose(q, r)
    omega, v = disc_velocity(q, u, r)
    w = np.asarray(u, float)    # omega in L, where I = diag(m r^2/4, m r^2/2, m r^2/4)
    I = m * r**2 * np.array([0.25, 0.5, 0.25])
    return 0.5 * m * v @ v + 0.5 * np.sum(I * w * w) + m * g * c[2]
