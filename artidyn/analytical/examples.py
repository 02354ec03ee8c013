"""Ready-made nonholonomic systems (each a :class:`~artidyn.analytical.System`):

* :func:`rolling_disk` (and :func:`rolling_disk_state`): a thin uniform disk on a floating base rolling without slipping on the
  ground (Appell's and Korteweg's problem; Kane & Levinson's rolling disc);
* :func:`rolling_sphere`: a uniform ball rolling on a fixed plane or a turntable;
* :func:`chaplygin_sleigh`: a rigid body on a planar base with a knife edge (Chaplygin 1911);
* :func:`differential_drive`: a chassis on a planar base with two wheels rolling without slipping;
* :func:`unicycle`: one upright wheel on a planar base.

A planar base is two prismatic joints (x, y, massless carriers) and a revolute joint about the
vertical: ``q = [x, y, theta, ...]``, ``v = [xdot, ydot, thetadot, ...]``.
"""
import numpy as np

from ..builder import ModelBuilder
from ..constraints.nonholonomic import KnifeEdge, RollingDisk, RollingSphere
from .system import System


def _planar_base(b, body, mass, inertia_z, com=(0.0, 0.0, 0.0), height=0.0):
    b.add_body("base_x", "world", "prismatic", axis=(1, 0, 0), joint_name="x")
    b.add_body("base_y", "base_x", "prismatic", axis=(0, 1, 0), joint_name="y")
    I = np.diag([inertia_z, inertia_z, inertia_z])
    b.add_body(body, "base_y", "revolute", axis=(0, 0, 1), joint_name="theta", xyz=(0.0, 0.0, height),
               mass=mass, com=com, inertia=I)


def rolling_disk(radius=0.5, mass=1.0, g=9.81, **kw):
    """A thin uniform disk (axial inertia ``m r^2 / 2``, diametral ``m r^2 / 4``) on a floating
    base; body "disk" with its origin at the centre and its axis along the body y axis; rolling
    without slipping on the plane z = 0 (3 rows: two tangential, the normal one holonomic)."""
    b = ModelBuilder("rolling_disk")
    I = mass * radius ** 2 * np.diag([0.25, 0.5, 0.25])
    b.add_body("disk", "world", "free", mass=mass, inertia=I)
    model = b.build().replace(gravity=np.array([0.0, 0.0, -g]))
    return System(model, [RollingDisk("disk", radius, axis=(0.0, 1.0, 0.0))], **kw)


def rolling_disk_state(radius, spin, lean=0.0):
    """``(q, v)`` of :func:`rolling_disk` rolling straight along the world x axis with the contact
    at the origin: leaning by ``lean`` (rad, about x) and spinning at ``spin`` (rad/s) about its
    axis, the contact point at rest."""
    from ..spatial.rotations import exp3, matrix_to_quat

    R = exp3(np.array([float(lean), 0.0, 0.0]))
    c = R @ np.array([0.0, 0.0, radius])
    w = R @ np.array([0.0, float(spin), 0.0])
    return np.concatenate([c, matrix_to_quat(R)]), np.concatenate([R.T @ w, R.T @ np.cross(w, c)])


def rolling_sphere(radius=0.1, mass=1.0, plane_omega=0.0, g=9.81, **kw):
    """A uniform solid ball (inertia ``2/5 m r^2``) on a floating base, body "ball", rolling
    without slipping on the plane z = 0, which turns at ``plane_omega`` (rad/s) about the
    vertical through the origin (a turntable)."""
    b = ModelBuilder("rolling_sphere")
    b.add_body("ball", "world", "free", mass=mass, inertia=0.4 * mass * radius ** 2 * np.eye(3))
    model = b.build().replace(gravity=np.array([0.0, 0.0, -g]))
    return System(model, [RollingSphere("ball", radius, plane_omega=plane_omega)], **kw)


def chaplygin_sleigh(mass=1.0, inertia=0.1, a=0.5, **kw):
    """The Chaplygin sleigh: a body on a planar base (``q = [x, y, theta]``: the blade's contact
    point and the heading) whose centre of mass lies ``a`` ahead of the blade along the body x
    axis; the blade (a :class:`KnifeEdge` at the origin of the body) forbids sliding along the
    body y axis. ``inertia``: about the centre of mass."""
    b = ModelBuilder("chaplygin_sleigh")
    _planar_base(b, "sleigh", mass, inertia, com=(a, 0.0, 0.0))
    return System(b.build(), [KnifeEdge("sleigh", lateral=(0.0, 1.0, 0.0))], **kw)


def differential_drive(radius=0.1, track=0.4, chassis_mass=4.0, chassis_inertia=0.2, com_offset=0.0,
                       wheel_mass=0.5, **kw):
    """A differential-drive robot: a chassis on a planar base and two wheels (radius ``radius``,
    ``track`` apart, on the body y axis at the base origin, axles along y) that roll without
    slipping. ``q = [x, y, theta, phi_left, phi_right]``; the chassis' centre of mass is
    ``com_offset`` ahead of the axle. Wheels: thin uniform disks. The four tangential rolling rows
    (two per wheel) have rank 3: the lateral rows of coaxial wheels coincide (redundant)."""
    b = ModelBuilder("differential_drive")
    _planar_base(b, "chassis", chassis_mass, chassis_inertia, com=(com_offset, 0.0, 0.0), height=radius)
    Iw = wheel_mass * radius ** 2 * np.diag([0.25, 0.5, 0.25])
    for side, y in (("left", 0.5 * track), ("right", -0.5 * track)):
        b.add_body(f"wheel_{side}", "chassis", "continuous", axis=(0, 1, 0), xyz=(0.0, y, 0.0),
                   joint_name=f"wheel_{side}_joint", mass=wheel_mass, inertia=Iw)
    model = b.build()
    rows = [RollingDisk(f"wheel_{s}", radius, axis=(0.0, 1.0, 0.0), normal_row=False) for s in ("left", "right")]
    return System(model, rows, **kw)


def unicycle(radius=0.3, mass=2.0, inertia=0.1, wheel_mass=1.0, **kw):
    """One upright wheel (radius ``radius``, axle along the body y axis) on a planar base: ``q =
    [x, y, theta, phi]``; rolling without slipping (2 tangential rows). The wheel rolls along the
    heading theta at ``radius * phidot``."""
    b = ModelBuilder("unicycle")
    _planar_base(b, "frame", mass, inertia, height=radius)
    b.add_body("wheel", "frame", "continuous", axis=(0, 1, 0), joint_name="wheel_joint", mass=wheel_mass,
               inertia=wheel_mass * radius ** 2 * np.diag([0.25, 0.5, 0.25]))
    return System(b.build(), [RollingDisk("wheel", radius, axis=(0.0, 1.0, 0.0), normal_row=False)], **kw)
