"""Mesh file names of model files -> files on disk (URDF ``<mesh filename=...>``).

* ``file:///abs/path.stl``: that file;
* ``package://pkg/sub/path.stl`` (ROS): ``sub/path.stl`` inside the folder of package ``pkg``,
  looked up without ROS: a parent folder of the model file named ``pkg`` or holding a folder
  ``pkg``, then the folders of ``ROS_PACKAGE_PATH`` and ``AMENT_PREFIX_PATH/share``, and last
  ``sub/path.stl`` in the parent folders of the model file (package folders renamed on install);
* a relative name: relative to the model file's folder, then to its parent folders; an absolute
  name: itself.

The model file's folder is the current directory for model text given as a string.
"""
import os
import pathlib


def _ancestors(base):
    base = pathlib.Path(base).resolve()
    return [base, *base.parents]


def candidates(filename, base_dir):
    """Paths tried, in order, for the mesh name ``filename`` of a model file in ``base_dir``."""
    name = str(filename).strip()
    up = _ancestors(base_dir)
    if name.startswith("file://"):
        return [pathlib.Path(name[len("file://"):])]
    if name.startswith("package://"):
        pkg, _, sub = name[len("package://"):].lstrip("/").partition("/")
        out = []
        for a in up:
            if a.name == pkg:
                out.append(a / sub)
            out.append(a / pkg / sub)
        for root in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep):
            if root:
                root = pathlib.Path(root)
                out += [root / pkg / sub] + ([root / sub] if root.name == pkg else [])
        for prefix in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
            if prefix:
                out.append(pathlib.Path(prefix) / "share" / pkg / sub)
        return out + [a / sub for a in up]
    p = pathlib.Path(name)
    if p.is_absolute():
        return [p]
    return [a / p for a in up]


def resolve_mesh(filename, base_dir):
    """The existing file for ``filename`` (a pathlib.Path); FileNotFoundError saying where it looked."""
    tried = candidates(filename, base_dir)
    for p in tried:
        if p.is_file():
            return p
    name = str(filename)
    if name.startswith("package://"):
        pkg = name[len("package://"):].lstrip("/").partition("/")[0]
        where = (f"package '{pkg}' looked up in the parent folders of the model file, ROS_PACKAGE_PATH and "
                 f"AMENT_PREFIX_PATH")
    elif name.startswith("file://") or pathlib.Path(name).is_absolute():
        where = "no such file"
    else:
        where = f"looked up from {pathlib.Path(base_dir).resolve()} and its parent folders"
    raise FileNotFoundError(f"mesh file '{name}' not found ({where})")
