"""``<include file="..."/>``: MJCF files assembled from several files, as MuJoCo assembles them.

MuJoCo XML reference, "include": the included file is a valid XML file with a unique top-level
element; that element is removed and its children take the place of the ``<include>``, which may
stand wherever an element may. Nested includes are allowed; a given file is included at most
once in the whole model (a cycle is a file included twice). The file name is relative to the main
model file's folder, as the reference says; when no such file exists MuJoCo (4.0.1, checked on a
nested tree) tries the including file's folder, and so does artidyn. The included file's root
may have any name (usually ``<mujoco>``); it must hold at least one element.

Included files are read by the same safe XML reader as the main file, and the limits of
:mod:`artidyn.io.safexml` hold for the assembled model: ``MAX_BYTES`` over all the files,
``MAX_ELEMENTS`` over all the elements, ``MAX_DEPTH`` for the nesting after assembly. Devices,
pipes and folders are not files and are refused, so that a hostile include can neither hang the
reader nor grow without bound.
"""
import os
import pathlib

from ...errors import ParseError
from ..safexml import MAX_BYTES, MAX_DEPTH, MAX_ELEMENTS, parse_xml, read_source


class _Assembly:
    """What the files read so far weigh, and which they are."""

    def __init__(self, r, model_dir, nbytes, nelements):
        self.r, self.model_dir = r, pathlib.Path(model_dir)
        self.nbytes, self.nelements = nbytes, nelements
        self.included = set()


def expand_includes(r, root, data_size):
    """Replace every ``<include>`` of ``root``'s tree by the children of the included file's root
    (recursively). ``r.origin`` records the file of every element that came from an included file.
    Raises ParseError naming the file, line and the chain of includes for a missing, repeated or
    cyclic include and for an assembled model over the limits."""
    main = _identity(r.source) if r.source != "<string>" else None
    acc = _Assembly(r, r.base_dir, data_size, _count(root))
    if main is not None:
        acc.included.add(main)
    _expand_children(acc, root, 0, r.base_dir, [r.source])


def _expand_children(acc, el, depth, here, chain):
    """Expand the includes among the children of ``el`` (at nesting ``depth``) of a file in ``here``."""
    out = []
    for c in el.children:
        out.extend(_expanded(acc, c, depth + 1, here, chain))
    el.children = out


def _expanded(acc, el, depth, here, chain):
    """The elements that stand for ``el``: itself (its includes expanded), or an include's elements."""
    if depth > MAX_DEPTH:
        raise ParseError(f"{acc.r.where(el)}: elements nested deeper than {MAX_DEPTH} levels once the included "
                         f"files are assembled ({' -> '.join(chain)})")
    if el.tag != "include":
        _expand_children(acc, el, depth, here, chain)
        return [el]
    path, inc_root = _read_included(acc, el, here, chain)
    out = []
    for c in inc_root.children:
        out.extend(_expanded(acc, c, depth, path.parent, chain + [str(path)]))
    return out


def _read_included(acc, inc, here, chain):
    """(path, root element) of the file an ``<include>`` names, checked against the limits."""
    r = acc.r
    if inc.children:
        raise r.error(inc, "an <include> has no child elements")
    name = inc.attrib.get("file")
    if not name:
        raise r.error(inc, "missing file", "file")
    path = _locate(acc, inc, name, here)
    key = _identity(path)
    if key in {_identity(f) for f in chain if f != "<string>"}:
        loop = " -> ".join(chain + [str(path)])
        raise r.error(inc, f"include cycle: {loop}", "file")
    if key in acc.included:
        raise r.error(inc, f"'{name}' is already included (MuJoCo includes a file at most once)", "file")
    acc.included.add(key)
    data, source = read_source(path, "MJCF")
    acc.nbytes += len(data)
    if acc.nbytes > MAX_BYTES:
        raise r.error(inc, f"the included files exceed {MAX_BYTES} bytes together (artidyn.io.safexml.MAX_BYTES)",
                      "file")
    root = parse_xml(data, source)
    acc.nelements += _count(root) - 1
    if acc.nelements > MAX_ELEMENTS:
        raise r.error(inc, f"more than {MAX_ELEMENTS} elements once '{name}' is included", "file")
    if not root.children:
        raise r.error(inc, f"'{name}' includes nothing (its <{root.tag}> has no child element)", "file")
    _mark(r.origin, root, source)
    return path, root


def _locate(acc, inc, name, here):
    """The included file: relative to the main model's folder, else to the including file's."""
    p = pathlib.Path(name)
    tried = [p] if p.is_absolute() else [acc.model_dir / p, pathlib.Path(here) / p]
    for cand in tried:
        if cand.exists():
            if not cand.is_file():
                raise acc.r.error(inc, f"'{cand}' is not a regular file", "file")
            return cand
    where = " or ".join(str(c) for c in dict.fromkeys(tried))
    raise acc.r.error(inc, f"included file '{name}' not found (looked for {where})", "file")


def _identity(path):
    """A file's identity: its resolved absolute path (links followed)."""
    return os.path.normcase(str(pathlib.Path(path).resolve()))


def _count(root):
    n, stack = 0, [root]
    while stack:
        el = stack.pop()
        n += 1
        stack.extend(el.children)
    return n


def _mark(origin, root, source):
    stack = list(root.children)
    while stack:
        el = stack.pop()
        origin[id(el)] = source
        stack.extend(el.children)
