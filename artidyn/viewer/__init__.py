"""A 3D viewer in the browser: one self-contained HTML page per robot, posture or trajectory.

>>> page = ad.view(model, q)                       # one posture
>>> page = ad.view(model, result, "run.html")      # a simulation: time slider, play / pause
>>> page = ad.view(model, [q0, q1, q2], dt=0.5)    # a list of postures, every 0.5 s

The page (three.js and our viewer script inlined, the scene embedded: no server, no network)
shows the URDF visual meshes (STL, OBJ, DAE) or primitive shapes, and on request the collision
shapes, a skeleton (joint to joint), the link frames and the centres of mass; for a contact
simulation, the contact points and forces. Only the body placements are stored per sample.
:func:`view` returns a :class:`ViewerPage`, the path of the file; in a Jupyter notebook it
displays inline.
"""
from __future__ import annotations

import os
import pathlib
import re
import tempfile
import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError, check_flag, shown

from .teach import Teach, teach  # noqa: F401  (viser is imported by teach() only)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

    from .._typing import Model
    from ..sim.result import SimulationResult

_PathBase = type(pathlib.Path())


class ViewerWarning(UserWarning):
    """Something of the model the page cannot show (a missing or unreadable visual mesh)."""


class ViewerPage(_PathBase):
    """The path of a viewer page (a ``pathlib.Path``); shown inline by Jupyter."""

    height = 480

    def _repr_html_(self):
        import html
        text = self.read_text(encoding="utf-8")
        return (f'<iframe srcdoc="{html.escape(text, quote=True)}" style="width: 100%; height: {self.height}px; '
                f'border: 1px solid #ddd;" sandbox="allow-scripts"></iframe>')


def _default_path(name):
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "robot"
    fd, path = tempfile.mkstemp(prefix=f"artidyn-{safe}-", suffix=".html")
    os.close(fd)
    return path


def _check_path(path):
    """The page's path: a file name whose folder exists (InputError naming it otherwise)."""
    try:
        p = os.fspath(path)
    except TypeError:
        raise InputError(f"view: path must be a file name (str or os.PathLike), got {shown(path)}") from None
    if os.path.isdir(p):
        raise InputError(f"view: path {p!r} is a folder; give a file name such as {os.path.join(p, 'robot.html')!r}")
    folder = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(folder):
        raise InputError(f"view: path {p!r}: the folder {folder!r} does not exist")


def view(model: Model, q: ArrayLike | Sequence[ArrayLike] | SimulationResult | None = None,
         path: str | os.PathLike[str] | None = None, *, times: ArrayLike | None = None, dt: float = 0.04,
         run: int = 0, visuals: bool | None = True, collisions: bool | None = None, skeleton: bool | None = None,
         frames: bool | None = False, com: bool | None = False, contacts: bool | None = None,
         camera: dict[str, Any] | None = None, autoplay: bool = True, speed: float = 1.0,
         max_triangles: int | None = None, max_frames: int | None = None, grid: bool = True) -> ViewerPage:
    """Write the viewer page of ``model`` and return its path (a :class:`ViewerPage`).

    Parameters
    ----------
    model : artidyn.Model
    q : None (the neutral configuration), (nq,), a list or (S, nq) array of configurations, or
        a :class:`artidyn.sim.SimulationResult` (its ``t`` and ``q``; run ``run`` of a batch).
    path : file to write (``.html``); default a new file in the temporary folder.
    times : (S,) sample times of a list of configurations (default every ``dt`` seconds).
    visuals, collisions, skeleton, frames, com, contacts : bool or None
        Layers shown when the page opens (each has a check box in the page). None: the visual
        meshes if any, else the collision shapes, else the skeleton; contacts when recorded.
    camera : dict, optional
        ``azimuth`` (degrees, 0: looking along +y, x to the right; default 35), ``elevation``
        (degrees above the horizon, default 20), ``target`` (3,), ``distance`` (m).
    autoplay : bool, start playing a trajectory when the page opens. ``speed``: 1.0 = real time.
    max_triangles : budget of all distinct visual meshes (default 250 000; larger meshes are
        simplified so that pages stay below about 10 MB). ``max_frames``: samples kept
        (default 5000; longer runs are subsampled).
    grid : draw the ground grid (z = 0).
    """
    from ..model import Model
    from . import html as page_html
    from .scene import MAX_FRAMES, MAX_TRIANGLES, build_scene, check_camera, positive
    if not isinstance(model, Model):
        raise InputError(f"view: model must be an artidyn Model (ad.load(...)), got {shown(model)}")
    max_frames = MAX_FRAMES if max_frames is None else positive(max_frames, "max_frames", integer=True)
    max_triangles = MAX_TRIANGLES if max_triangles is None else positive(max_triangles, "max_triangles", integer=True)
    speed = positive(speed, "speed")
    if isinstance(run, bool) or not isinstance(run, (int, np.integer)):
        raise InputError(f"view: run must be the index of a run (an int), got {run!r}")
    layers = {name: None if x is None else check_flag(x, f"view: {name}") for name, x in
              (("visuals", visuals), ("collisions", collisions), ("skeleton", skeleton), ("frames", frames),
               ("com", com), ("contacts", contacts))}
    autoplay, grid = check_flag(autoplay, "view: autoplay"), check_flag(grid, "view: grid")
    cam = check_camera(camera)
    if path is not None:
        _check_path(path)
    scene = build_scene(model, q, times=times, run=run, dt=dt, max_frames=max_frames, max_triangles=max_triangles)
    missing = [n for n in scene.notes if "skipped" in n]
    if missing:     # said in the page too; a user who only runs the script must hear it
        warnings.warn(f"view '{model.name}': {len(missing)} visual(s) not drawn: " + "; ".join(missing[:3])
                      + (" ..." if len(missing) > 3 else "") + " (the page lists them)", ViewerWarning, stacklevel=2)
    show = page_html.default_show(scene, visual=layers["visuals"], collision=layers["collisions"],
                                  skeleton=layers["skeleton"], frames=layers["frames"], com=layers["com"],
                                  contacts=layers["contacts"])
    cam["grid"] = grid
    text = page_html.page(scene, show=show, camera=cam, autoplay=autoplay, speed=speed)
    out = path if path is not None else _default_path(model.name)
    page_html.write(text, out)
    return ViewerPage(os.fspath(out))


__all__ = ["view", "ViewerPage", "ViewerWarning", "teach", "Teach"]
