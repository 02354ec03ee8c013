"""Orientation of an axis by azimuth and elevation (artidyn.spatial.axes)."""
import numpy as np
import pytest

import artidyn as ad
from artidyn.spatial import (axis_from_azimuth_elevation, azimuth_elevation, azimuth_elevation_to_matrix, roty,
                             rpy_to_matrix)


def test_known_values():
    s = np.sqrt(0.5)
    cases = [((0, 0), (1, 0, 0)), ((np.pi / 2, 0), (0, 1, 0)), ((np.pi, 0), (-1, 0, 0)), ((-np.pi / 2, 0), (0, -1, 0)),
             ((0, np.pi / 2), (0, 0, 1)), ((0, -np.pi / 2), (0, 0, -1)), ((np.pi / 4, np.pi / 4), (0.5, 0.5, s))]
    for (az, el), u in cases:
        assert np.allclose(axis_from_azimuth_elevation(az, el), u, atol=1e-15)
        assert np.allclose(azimuth_elevation(u), (az, el), atol=1e-15)


def test_round_trips_on_a_batch(rng):
    az = rng.uniform(-np.pi, np.pi, (7, 5))
    el = rng.uniform(-np.pi / 2, np.pi / 2, (7, 5))
    u = axis_from_azimuth_elevation(az, el)
    assert u.shape == (7, 5, 3) and np.allclose(np.linalg.norm(u, axis=-1), 1, atol=1e-15)
    az2, el2 = azimuth_elevation(3.7 * u)              # any length: the direction counts
    assert np.abs(az2 - az).max() < 1e-13 and np.abs(el2 - el).max() < 1e-13
    w = rng.normal(size=(20, 3))
    assert np.allclose(axis_from_azimuth_elevation(*azimuth_elevation(w)), w / np.linalg.norm(w, axis=-1)[:, None],
                       atol=1e-15)


def test_ranges_and_broadcast():
    az, el = azimuth_elevation([[-1, 0, 0], [-1, -0.0, 0.5], [0, -1, 0]])
    assert np.allclose(az, (np.pi, np.pi, -np.pi / 2)) and np.all(az > -np.pi)
    assert axis_from_azimuth_elevation(np.zeros(4), 0.3).shape == (4, 3)
    assert np.allclose(axis_from_azimuth_elevation(5 * np.pi / 2, 0), (0, 1, 0))


def test_poles_give_azimuth_zero_and_the_flag():
    az, el, pole = azimuth_elevation([[0, 0, 2], [0, 0, -1], [1e-14, 0, 1], [1e-9, 1e-9, 1]], return_flag=True)
    assert np.array_equal(pole, [True, True, True, False])
    assert np.array_equal(az[:3], [0, 0, 0]) and np.isclose(az[3], np.pi / 4)
    assert np.allclose(el[:2], (np.pi / 2, -np.pi / 2))
    a, e = azimuth_elevation((0, 0, 1))
    assert np.ndim(a) == 0 and a == 0 and e == np.pi / 2


def test_matrix_takes_x_onto_the_axis_and_keeps_y_horizontal(rng):
    az = rng.uniform(-np.pi, np.pi, 10)
    el = rng.uniform(-np.pi / 2, np.pi / 2, 10)
    R = azimuth_elevation_to_matrix(az, el)
    assert np.allclose(R @ R.transpose(0, 2, 1), np.eye(3), atol=1e-14) and np.allclose(np.linalg.det(R), 1)
    assert np.allclose(R[:, :, 0], axis_from_azimuth_elevation(az, el), atol=1e-15)
    assert np.allclose(R[:, 2, 1], 0, atol=1e-15)                     # y axis in the xy-plane
    # pan-tilt = URDF rpy (roll 0, pitch -elevation, yaw azimuth); z onto the axis with R @ roty(pi/2)
    assert np.allclose(R, rpy_to_matrix(np.stack([0 * az, -el, az], -1)), atol=1e-14)
    assert np.allclose((R @ roty(np.pi / 2))[:, :, 2], R[:, :, 0], atol=1e-15)


@pytest.mark.parametrize("call, match", [
    (lambda: azimuth_elevation([0, 0, 0]), "zero vector"),
    (lambda: azimuth_elevation([[1, 0, 0], [0, 0, 0]]), r"zero vector \(entry \(1,\)\)"),
    (lambda: azimuth_elevation([1, 2]), r"axis must have shape \(\.\.\., 3\)"),
    (lambda: azimuth_elevation([1, np.nan, 0]), "axis contains NaN"),
    (lambda: azimuth_elevation("x"), "axis must be 3-vectors"),
    (lambda: axis_from_azimuth_elevation(np.inf, 0), "azimuth contains NaN or infinite"),
    (lambda: axis_from_azimuth_elevation(0, "up"), "elevation must be angles"),
    (lambda: axis_from_azimuth_elevation(np.zeros(3), np.zeros(4)), "azimuth .* and elevation .* broadcast"),
    (lambda: azimuth_elevation_to_matrix(0, 1j), "azimuth_elevation_to_matrix: elevation"),
])
def test_bad_input_names_the_argument(call, match):
    with pytest.raises((ad.InputError, ad.ShapeError), match=match):
        call()


def test_shape_errors_are_shape_errors():
    with pytest.raises(ad.ShapeError):
        azimuth_elevation(np.zeros((2, 4)))
    with pytest.raises(ad.ShapeError):
        axis_from_azimuth_elevation([1, 2], [1, 2, 3])
