"""A live teach pendant in the browser: one slider per joint, the robot moving as they move (viser).

>>> pendant = ad.viewer.teach(model)        # prints the address to open (http://localhost:8080)
>>> pendant.q                               # the configuration the sliders show
>>> pendant.set_q(q)                        # move the sliders (and the robot) from Python
>>> pendant.close()

The bridge to `viser <https://viser.studio>`_ (``pip install viser``, or ``artidyn[viser]``): a
local web server that the browser keeps in sync with Python objects. The robot is drawn with the
shapes of the static viewer (:func:`artidyn.view`: URDF visual meshes and primitives, optionally the
collision shapes, or a skeleton when the model has neither), each body's shapes under one scene
node whose placement is the body's (:func:`artidyn.body_placements`); moving a slider recomputes the
placements. Sliders: revolute, continuous, helical and cylindrical angles in degrees (``deg=True``,
the default) or radians, prismatic and cylindrical slides in metres, within the joint limits
(a joint without limits: +/-180 degrees or +/-1 m); a free base gets x, y, z (within 2 m of the
start) and roll, pitch, yaw sliders, a spherical joint roll, pitch, yaw; the SRDF postures
(``model.postures``) and the neutral configuration are one click away. On the command line: ``artidyn view MODEL --teach``.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .._typing import Array, Model

_GREY = (160, 165, 175)
_COLLISION = (230, 120, 40)


def _rgb(rgba, default):
    return default if rgba is None else tuple(int(round(255 * float(c))) for c in rgba[:3])


def _wxyz(R):
    from ..spatial.rotations import matrix_to_quat
    x, y, z, w = matrix_to_quat(np.asarray(R, dtype=float))
    return (float(w), float(x), float(y), float(z))


def _cylinder(radius, length, n=24):
    """A closed cylinder along z, centred at the origin: (vertices, faces)."""
    a = 2 * np.pi * np.arange(n) / n
    ring = np.column_stack([radius * np.cos(a), radius * np.sin(a)])
    V = np.vstack([np.column_stack([ring, np.full(n, -length / 2)]), np.column_stack([ring, np.full(n, length / 2)]),
                   [[0, 0, -length / 2], [0, 0, length / 2]]])
    k, k1 = np.arange(n), (np.arange(n) + 1) % n
    F = np.vstack([np.column_stack([k, k1, n + k1]), np.column_stack([k, n + k1, n + k]),
                   np.column_stack([np.full(n, 2 * n), k1, k]), np.column_stack([np.full(n, 2 * n + 1), n + k, n + k1])])
    return V.astype(np.float32), F.astype(np.uint32)


class _Slider:
    """One slider: which entries of the configuration it drives, and how."""

    def __init__(self, label, kind, index, lo, hi, scale):
        self.label, self.kind, self.index, self.lo, self.hi, self.scale = label, kind, index, lo, hi, scale
        self.handle = None


def _sliders(model, q0, deg):
    """The sliders of ``model``: (label, kind, q index, lower, upper, display scale)."""
    from ..joints import CYLINDRICAL, FREE, HELICAL, PRISMATIC, REVOLUTE, SPHERICAL

    angle = 180.0 / math.pi if deg else 1.0
    out = []
    for i in range(1, model.nb + 1):
        name, t, k = model.joint_names[i], int(model.joint_type[i]), int(model.idx_q[i])
        lo, up = np.asarray(model.lower, dtype=float), np.asarray(model.upper, dtype=float)

        def bounds(j, default):
            a, b = lo[j], up[j]
            return (a, b) if np.isfinite(a) and np.isfinite(b) and b > a else (-default, default)
        if t in (REVOLUTE, HELICAL):
            out.append(_Slider(name, "flat", k, *bounds(k, math.pi), angle))
        elif t == PRISMATIC:
            out.append(_Slider(name, "flat", k, *bounds(k, 1.0), 1.0))
        elif t == CYLINDRICAL:
            out.append(_Slider(f"{name} angle", "flat", k, *bounds(k, math.pi), angle))
            out.append(_Slider(f"{name} slide", "flat", k + 1, *bounds(k + 1, 1.0), 1.0))
        elif t == FREE:
            for c, axis in enumerate("xyz"):
                out.append(_Slider(f"{name} {axis}", "flat", k + c, q0[k + c] - 2.0, q0[k + c] + 2.0, 1.0))
            for c, axis in enumerate(("roll", "pitch", "yaw")):
                out.append(_Slider(f"{name} {axis}", f"rpy{c}", k + 3, -math.pi, math.pi, angle))
        elif t == SPHERICAL:
            for c, axis in enumerate(("roll", "pitch", "yaw")):
                out.append(_Slider(f"{name} {axis}", f"rpy{c}", k, -math.pi, math.pi, angle))
    return out


class Teach:
    """The live pendant of one model (see the module docstring); ``server`` is the viser server."""

    def __init__(self, model: Model, q: ArrayLike | None = None, *, host: str = "127.0.0.1", port: int = 8080,
                 deg: bool = True, visuals: bool = True, collisions: bool | None = None,
                 skeleton: bool | None = None, verbose: bool = False) -> None:
        try:
            import viser
        except ImportError:
            raise InputError("teach: the live pendant needs viser (pip install viser, or artidyn[viser]); "
                             "artidyn.view(model) writes a static page without it") from None
        from ..checks import as_model
        from ..configuration import neutral
        from .html import default_show
        from .scene import build_scene

        self.model = model = as_model(model)
        q0 = neutral(model) if q is None else np.array(q, dtype=float).reshape(-1)
        scene = build_scene(model, q0, visuals=visuals, collisions=collisions is not False, max_frames=1)
        show = default_show(scene, collisions=collisions, skeleton=skeleton)
        self.server = viser.ViserServer(host=host, port=port, verbose=verbose)
        self._rods = False
        self.nodes = [self.server.scene.add_frame(f"/{self._node(i)}", show_axes=False)
                      for i in range(model.nb + 1)]
        self._draw(scene, show)
        self.sliders = _sliders(model, q0, deg)
        self._q = q0.copy()
        self._quiet = False
        with self.server.gui.add_folder("joints"):
            for s in self.sliders:
                lo, hi = s.lo * s.scale, s.hi * s.scale
                s.handle = self.server.gui.add_slider(s.label, min=lo, max=hi, step=(hi - lo) / 1000.0,
                                                      initial_value=float(np.clip(self._value(s, q0), lo, hi)))
                s.handle.on_update(lambda _event: self._from_sliders())
        with self.server.gui.add_folder("postures"):
            for name, posture in [("neutral", neutral(model))] + sorted(getattr(model, "postures", {}).items()):
                button = self.server.gui.add_button(name)
                button.on_click(lambda _event, p=np.asarray(posture, dtype=float): self.set_q(p))
        self._place(q0)

    # -- the scene ---------------------------------------------------------------------------
    def _node(self, i):
        return f"body{i}"

    def _draw(self, scene, show):
        """Each drawn item under its body's node, at its placement in the body frame."""
        add = self.server.scene
        self.shapes = []                         # the drawn shapes' names
        for k, it in enumerate(scene.items):
            if not show.get(it["layer"], False):
                continue
            T = np.asarray(it["placement"], dtype=float).reshape(4, 4)
            name = f"/{self._node(it['body'])}/{it['layer']}{k}"
            pose = dict(wxyz=_wxyz(T[:3, :3]), position=tuple(float(x) for x in T[:3, 3]))
            color = _rgb(it["rgba"], _GREY if it["layer"] == "visual" else _COLLISION)
            kind = it["kind"]
            self.shapes.append(name)
            if kind == "mesh":
                V, F, _parts = scene.meshes[it["mesh"]]
                add.add_mesh_simple(name, np.asarray(V, np.float32), np.asarray(F, np.uint32), color=color, **pose)
            elif kind == "box":
                add.add_box(name, color=color, dimensions=tuple(float(x) for x in it["size"]), **pose)
            elif kind == "sphere":
                add.add_icosphere(name, radius=float(it["radius"]), color=color, **pose)
            elif kind in ("cylinder", "capsule"):
                add.add_mesh_simple(name, *_cylinder(it["radius"], it["length"]), color=color, **pose)
                if kind == "capsule":
                    for s in (-1.0, 1.0):
                        end = T @ np.array([0.0, 0.0, s * it["length"] / 2, 1.0])
                        add.add_icosphere(f"{name}_end{int(s)}", radius=float(it["radius"]), color=color,
                                          position=tuple(float(x) for x in end[:3]))
        if show.get("skeleton"):
            self._skeleton()

    def _skeleton(self):
        """A ball at each joint; the rods (joint to parent joint) follow the placements (:meth:`_place`)."""
        for i in range(1, self.model.nb + 1):
            self.server.scene.add_icosphere(f"/{self._node(i)}/joint", radius=0.02, color=_GREY)
        self._rods = True

    # -- configurations ----------------------------------------------------------------------
    @staticmethod
    def _value(s, q):
        """The slider's displayed value at q."""
        if s.kind == "flat":
            return float(q[s.index]) * s.scale
        from ..spatial.rotations import matrix_to_rpy, quat_to_matrix
        rpy = matrix_to_rpy(quat_to_matrix(q[s.index:s.index + 4]))
        return float(rpy[int(s.kind[-1])]) * s.scale

    def _from_sliders(self):
        if self._quiet:
            return
        from ..spatial.rotations import matrix_to_quat, rpy_to_matrix
        q = self._q.copy()
        rpy = {}
        for s in self.sliders:
            x = float(s.handle.value) / s.scale
            if s.kind == "flat":
                q[s.index] = x
            else:
                rpy.setdefault(s.index, [0.0, 0.0, 0.0])[int(s.kind[-1])] = x
        for k, angles in rpy.items():
            q[k:k + 4] = matrix_to_quat(rpy_to_matrix(angles))
        self._place(q)

    def _place(self, q):
        from ..kinematics import body_placements
        T = np.asarray(body_placements(self.model, q))
        with self.server.atomic():
            for i, node in enumerate(self.nodes):
                node.position = tuple(float(x) for x in T[i, :3, 3])
                node.wxyz = _wxyz(T[i, :3, :3])
            if self._rods and self.model.nb:
                ends = np.array([[T[int(self.model.parent[i]), :3, 3], T[i, :3, 3]] for i in range(1, self.model.nb + 1)])
                self.server.scene.add_line_segments("/skeleton", ends.astype(np.float32), colors=_GREY, thickness=0.01)
        self._q = np.array(q, dtype=float)

    @property
    def q(self) -> Array:
        """The configuration shown (a copy)."""
        return self._q.copy()

    def set_q(self, q: ArrayLike) -> None:
        """Show ``q`` (nq): move the robot and the sliders."""
        from ..configuration import as_q
        q, _ = as_q(self.model, q)
        q = np.asarray(q, dtype=float).reshape(-1)
        self._quiet = True
        try:
            for s in self.sliders:
                s.handle.value = float(np.clip(self._value(s, q), s.handle.min, s.handle.max))
        finally:
            self._quiet = False
        self._place(q)

    @property
    def url(self) -> str:
        return f"http://{self.server.get_host()}:{self.server.get_port()}"

    def close(self) -> None:
        """Stop the server."""
        self.server.stop()


def teach(model: Model, q: ArrayLike | None = None, **options) -> Teach:
    """Start a live teach pendant for ``model`` (see :class:`Teach` and the module docstring) and
    return it; open its :attr:`Teach.url` in a browser."""
    return Teach(model, q, **options)
