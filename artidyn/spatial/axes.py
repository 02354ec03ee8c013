"""Orientation of an axis (a line of sight) by two angles: azimuth and elevation.

J. Reuss ("Modélisation des robots", French Wikipedia draft, 2013) notes that an axis in space,
or a line of sight, needs only two parameters, two angles such as the azimuth and the elevation
("azimut et site ou hauteur"); the third angle of a full orientation (a roll about the axis)
does not move the axis. The convention here is the geographic one, in the fixed frame:

* ``azimuth``: angle about z from the x axis to the projection of the axis on the xy-plane,
  positive towards y, in (-pi, pi];
* ``elevation``: angle from the xy-plane up to the axis, positive towards +z, in [-pi/2, pi/2].

So ``u = (cos(el) cos(az), cos(el) sin(az), sin(el))``: the spherical coordinates of the unit
sphere with the latitude in place of the polar angle. At the poles (u = +/- z) the azimuth is not
defined; :func:`azimuth_elevation` returns 0 there.

The rotation of :func:`azimuth_elevation_to_matrix` is the pan-tilt (Cardan yaw-pitch) one,
``R = R_z(az) R_y(-el)``: it takes x onto the axis and keeps its y axis horizontal (no roll).
For a frame whose z axis is the axis (a joint axis in Denavit-Hartenberg style), use
``R @ roty(pi / 2)``. Functions accept leading batch axes.
"""
import numpy as np

from ..errors import InputError, ShapeError, as_real
from .rotations import roty, rotz

POLE_TOL = 1e-12  # |projection on the xy-plane| / |axis| below which an axis is at a pole


def _angles(azimuth, elevation, where):
    az = as_real(azimuth, f"{where}: azimuth", "angles in radians (real numbers)", finite=True)
    el = as_real(elevation, f"{where}: elevation", "angles in radians (real numbers)", finite=True)
    try:
        return np.broadcast_arrays(az, el)
    except ValueError:
        raise ShapeError(f"{where}: azimuth (shape {az.shape}) and elevation (shape {el.shape}) "
                         "must have the same shape or broadcast together") from None


def axis_from_azimuth_elevation(azimuth, elevation):
    """Unit vector of the axis of given azimuth and elevation (module docstring's convention).

    Parameters
    ----------
    azimuth : float or array (...)
        Angle about z from x (rad), towards y.
    elevation : float or array (...)
        Angle from the xy-plane (rad), towards +z. Values outside [-pi/2, pi/2] are accepted and
        read as the same formula (the axis then points the other way round).

    Returns
    -------
    u : array (..., 3)
        ``(cos(el) cos(az), cos(el) sin(az), sin(el))`` in the fixed frame.
    """
    az, el = _angles(azimuth, elevation, "axis_from_azimuth_elevation")
    ce = np.cos(el)
    return np.stack([ce * np.cos(az), ce * np.sin(az), np.sin(el)], -1)


def azimuth_elevation(axis, return_flag=False):
    """Azimuth and elevation of an axis (inverse of :func:`axis_from_azimuth_elevation`).

    Parameters
    ----------
    axis : array (..., 3)
        Direction vectors, not necessarily unit (each is normalised); a zero vector is refused.
    return_flag : bool
        Also return the boolean pole flags.

    Returns
    -------
    azimuth : array (...)
        In (-pi, pi]; 0 at the poles (axis along +/- z, within :data:`POLE_TOL` relative to its
        length), where any azimuth describes the same axis.
    elevation : array (...)
        In [-pi/2, pi/2].
    pole : bool array (...)
        Only with ``return_flag=True``.
    """
    where = "azimuth_elevation: axis"
    u = as_real(axis, where, "3-vectors (real numbers)", finite=True)
    if u.shape[-1:] != (3,):
        raise ShapeError(f"{where} must have shape (..., 3), got {u.shape}")
    rho = np.hypot(u[..., 0], u[..., 1])
    norm = np.hypot(rho, u[..., 2])
    if np.any(norm == 0):
        idx = np.argwhere(np.atleast_1d(norm == 0))[0]
        loc = f" (entry {tuple(int(i) for i in idx)})" if norm.ndim else ""
        raise InputError(f"{where} is a zero vector{loc}: it has no direction")
    pole = rho <= POLE_TOL * norm
    az = np.where(pole, 0.0, np.arctan2(u[..., 1], u[..., 0]))
    az = np.where(az == -np.pi, np.pi, az)      # (-pi, pi]: the -0.0 side of the negative x axis
    el = np.arctan2(u[..., 2], rho)
    az, el, pole = az[()], el[()], pole[()]     # numpy scalars for a single axis
    if return_flag:
        return az, el, pole
    return az, el


def azimuth_elevation_to_matrix(azimuth, elevation):
    """Rotation ``R = R_z(az) R_y(-el)`` taking the x axis onto the axis of given azimuth and
    elevation, with the rotated y axis horizontal (no roll): the pan-tilt orientation of a line
    of sight. ``R[..., :, 0]`` is :func:`axis_from_azimuth_elevation`; for a frame whose z axis
    is the axis, use ``R @ roty(pi / 2)``.

    Parameters
    ----------
    azimuth, elevation : float or array (...)
        As :func:`axis_from_azimuth_elevation` (rad).

    Returns
    -------
    R : array (..., 3, 3)
        Columns: the rotated frame's axes in the fixed frame.
    """
    az, el = _angles(azimuth, elevation, "azimuth_elevation_to_matrix")
    return rotz(az) @ roty(-el)
