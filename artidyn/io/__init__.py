"""Readers (URDF, MJCF, Denavit-Hartenberg tables) and writers; :func:`load` picks the right one."""
import pathlib
import re

from ..errors import InputError, NameNotFound, ParseError, check_flag

DH_EXTENSIONS = (".toml", ".yaml", ".yml")
XML_EXTENSIONS = (".urdf", ".xml", ".mjcf")
EXTENSIONS = XML_EXTENSIONS + DH_EXTENSIONS

FLOATING_RULE = ("floating base: when floating_base=True (CLI --floating-base), or when the model is an "
                 "example-robot-data robot that walks or flies (solo12, talos..., by name or by the path of its "
                 "URDF file alike); floating_base=False (CLI --fixed-base) fixes it; other URDF files are fixed")


def _root_tag(path):
    """The name of the first element of an XML file (prolog, comments and DOCTYPE skipped), or ''."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192).decode("utf-8", "replace")
    except OSError:
        return ""
    head = re.sub(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", "", head, flags=re.S)
    m = re.search(r"<\s*([A-Za-z_][\w.-]*)", head)
    return m.group(1) if m else ""


def load(path_or_name, floating_base=None, **kwargs):
    """Load a model from a file or by name.

    ``path_or_name``: a URDF file (``.urdf``, or ``.xml`` whose root is ``<robot>``:
    :func:`artidyn.io.urdf.load_urdf`), an MJCF file (``.xml`` / ``.mjcf`` whose root is
    ``<mujoco>``: :func:`artidyn.io.mjcf.load_mjcf`), a DH table file ``.toml`` / ``.yaml`` /
    ``.yml`` (:func:`artidyn.io.dh.from_dh`), a built-in robot name (:func:`artidyn.models.get`:
    "puma560", "rx90", "planar2r", "pendulum", "cart_pendulum") or an example-robot-data name
    such as "ur5_robot", "solo12" or "anymal_c_simple_description/anymal". Keyword arguments go
    to the reader.

    ``floating_base``: None (default) gives a floating base to the example-robot-data robots that
    walk or fly (:func:`artidyn.models.erd.default_floating`), by name or by the path of their
    URDF file alike (the same model either way), and a fixed base to other URDF files; True adds
    a free root joint to a URDF tree; False keeps the base fixed. A DH table, a built-in robot or
    an MJCF file (whose ``<freejoint>`` says it) refuses True.

    ``model.postures`` holds the reference postures of the robot's SRDF (an example-robot-data
    robot, or a URDF with an SRDF next to it: :func:`artidyn.io.srdf.find_srdf`); an SRDF that
    cannot be read is a load-report note, not an error.

    Raises FileNotFoundError for a missing file, ParseError for an unknown file type and
    NameNotFound (with close names) for an unknown name.
    """
    if not isinstance(path_or_name, (str, pathlib.PurePath)):
        raise InputError(f"load: expected a model name or a file path, got {type(path_or_name).__name__}")
    if floating_base is not None:
        kwargs["floating_base"] = check_flag(floating_base, "load: floating_base (or None)")
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
            if not isinstance(path_or_name, pathlib.PurePath) and ext not in EXTENSIONS and _erd_name(text):
                return _load_by_name(text, kwargs)      # "anymal_c_simple_description/anymal"
            raise FileNotFoundError(f"{text}: no such model file")
        return _load_file(text, path, ext, kwargs)
    return _load_by_name(text, kwargs)


def _load_file(text, path, ext, kwargs):
    root = _root_tag(path) if ext in (".xml", ".mjcf", "") else ""
    if ext == ".urdf" or root == "robot":
        name = _erd_path_name(path)
        if name is not None:        # a file of example-robot-data: the same model as by its name
            from ..models import erd
            return erd.example_robot(name, **kwargs)
        from .urdf import load_urdf
        return _with_srdf(_call(load_urdf, "a URDF file", path, kwargs))
    if root == "mujoco":
        from .mjcf import load_mjcf
        model = _call(load_mjcf, "an MJCF file", path, {k: v for k, v in kwargs.items()
                                                          if not (k == "floating_base" and v is False)})
        return model
    if ext in (".xml", ".mjcf"):
        raise ParseError(f"{text}: the root element is <{root or '?'}>: a URDF file has <robot>, an MJCF "
                         f"file <mujoco>")
    if ext in DH_EXTENSIONS:
        from .dh import from_dh
        return _call(from_dh, "a DH table (a fixed-base chain)", path,
                     {k: v for k, v in kwargs.items() if not (k == "floating_base" and v is False)})
    raise ParseError(f"{text}: unknown model file type '{ext}' (known: {', '.join(EXTENSIONS)})")


def _with_srdf(model):
    """``model`` (read from a URDF file) with the postures of the SRDF found next to it, if any."""
    from .srdf import find_srdf
    srdf = find_srdf(model)
    if srdf is None:
        return model
    from ..models.erd import with_postures
    return with_postures(model, srdf)


def _erd_path_name(path):
    try:
        from ..models import erd
    except ImportError:
        return None
    return erd.name_of_path(path)


def _erd_name(text):
    """True when ``text`` names an example-robot-data robot (or an alias of one)."""
    try:
        from ..models import erd
        erd.example_robot_path(text)
        return True
    except (ImportError, NameNotFound):
        return False


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
        return models.get(name, **{k: v for k, v in kwargs.items() if not (k == "floating_base" and v is False)})
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
    missing = ""
    if erd is not None:
        try:
            known += erd.example_robot_names()
        except ImportError:  # example-robot-data not installed: built-in names only, and say which package
            if name in erd.KNOWN_NAMES or name in erd.ALIASES or any(k.endswith("/" + name) for k in erd.KNOWN_NAMES):
                raise NameNotFound(f"model {name!r} is a robot of the package example-robot-data, which is not "
                                   f"installed: {erd.INSTALL_HINT} (the URDFs of 69 real robots; artidyn never "
                                   f"downloads at run time)") from None
            missing = f"; the example-robot-data robots (ur5_robot, solo12, talos ...) need `{erd.INSTALL_HINT}`"
            erd = None
    if erd is not None and (name in known or name in erd.ALIASES or any(k.endswith("/" + name) for k in known)):
        return erd.example_robot(name, **kwargs)  # an ambiguous stem raises its own NameNotFound
    exc = unknown_name("model", name, known)
    raise NameNotFound(f"{exc} (a model is a built-in name, a .urdf / .xml / .mjcf / .toml / "
                       f".yaml file or an example-robot-data name: `artidyn robots` lists them{missing})") from None
