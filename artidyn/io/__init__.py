"""Readers (URDF, Denavit-Hartenberg tables) and writers; :func:`load` picks the right one."""
import pathlib

from ..errors import InputError, NameNotFound, ParseError

DH_EXTENSIONS = (".toml", ".yaml", ".yml")
EXTENSIONS = (".urdf",) + DH_EXTENSIONS


def _is_urdf_text(path):
    try:
        with open(path, "rb") as fh:
            return b"<robot" in fh.read(4096)
    except OSError:
        return False


def load(path_or_name, **kwargs):
    """Load a model from a file or by name.

    ``path_or_name``: a ``.urdf`` file (:func:`artidyn.io.urdf.load_urdf`), a DH table file
    ``.toml`` / ``.yaml`` / ``.yml`` (:func:`artidyn.io.dh.from_dh`), a built-in robot name
    (:func:`artidyn.models.get`: "puma560", "rx90", "planar2r", "pendulum", "cart_pendulum") or an
    example-robot-data URDF stem such as "ur5_robot". Keyword arguments go to the reader.

    Raises FileNotFoundError for a missing file, ParseError for an unknown file type and
    NameNotFound (with close names) for an unknown name.
    """
    if not isinstance(path_or_name, (str, pathlib.PurePath)):
        raise InputError(f"load: expected a model name or a file path, got {type(path_or_name).__name__}")
    text = str(path_or_name)
    if not text.strip() or any(ord(ch) < 32 for ch in text):
        raise InputError(f"load: {text!r} is not a model name or a file path (empty, or control characters)")
    path = pathlib.Path(text)
    ext = path.suffix.lower()
    if ext == ".xacro":
        from .safexml import XACRO_HINT
        raise ParseError(f"{text}: a xacro file is not a URDF: {XACRO_HINT}")
    if ext in EXTENSIONS or path.is_file() or "/" in text or "\\" in text:
        if not path.is_file():
            raise FileNotFoundError(f"{text}: no such model file")
        if ext == ".urdf" or (ext == ".xml" and _is_urdf_text(path)):
            from .urdf import load_urdf
            return _call(load_urdf, "a URDF file", path, kwargs)
        if ext in DH_EXTENSIONS:
            from .dh import from_dh
            return _call(from_dh, "a DH table (a fixed-base chain)", path, kwargs)
        raise ParseError(f"{text}: unknown model file type '{ext}' (known: {', '.join(EXTENSIONS)})")
    return _load_by_name(text, kwargs)


def _call(reader, what, path, kwargs):
    """reader(path, **kwargs), refusing options the reader does not have (InputError naming them)."""
    import inspect
    params = inspect.signature(reader).parameters
    known = [p for p in params if p not in ("path", "rows")]
    bad = [k for k in kwargs if k not in known]
    if bad:
        raise InputError(f"{path}: option {bad[0]!r} does not apply to {what} (its options: {', '.join(known)})")
    return reader(path, **kwargs)


def _load_by_name(name, kwargs):
    from .. import models
    from ..errors import unknown_name
    try:
        return models.get(name, **kwargs)
    except NameNotFound:
        pass
    except TypeError as exc:   # an option the built-in robot does not have (e.g. floating_base)
        if "unexpected keyword argument" not in str(exc):
            raise
        raise InputError(f"model {name!r}: {str(exc).split(')', 1)[-1].strip()} (a built-in robot; its options "
                         f"are its function's arguments, artidyn.models.{name})") from None
    known = list(models.names())
    try:
        from ..models import erd
    except ModuleNotFoundError as exc:
        if exc.name != "artidyn.models.erd":
            raise
        erd = None
    if erd is not None:
        try:
            known += erd.example_robot_names()
        except ImportError:  # example-robot-data not installed: built-in names only
            erd = None
    if erd is not None and (name in known or any(k.endswith("/" + name) for k in known)):
        return erd.example_robot(name, **kwargs)  # an ambiguous stem raises its own NameNotFound
    exc = unknown_name("model", name, known)
    raise NameNotFound(f"{exc} (a model is a built-in name, a .urdf / .toml / .yaml file or an "
                       f"example-robot-data stem)") from None
