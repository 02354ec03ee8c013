"""Safe XML reading for the model readers: defusedxml, size limits, line numbers.

DTDs, entity declarations and external references are forbidden (no billion laughs, no file or
network access through entities); documents above ``MAX_BYTES``, deeper than ``MAX_DEPTH`` or
with more than ``MAX_ELEMENTS`` elements are refused. Every element keeps the line of its
start tag so that readers can name it in their errors. Every error is a
:class:`artidyn.ParseError` naming the source and the line.
"""
import os
import pathlib
from xml.etree.ElementTree import ParseError as _XMLSyntaxError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from ..errors import ParseError

MAX_BYTES = 50 * 2**20      # largest document accepted (bytes)
MAX_DEPTH = 64              # deepest element nesting accepted (a URDF needs 5)
MAX_ELEMENTS = 1_000_000    # most elements accepted


class Element:
    """A parsed XML element: tag, attributes, line of its start tag, children."""
    __slots__ = ("tag", "attrib", "line", "children")

    def __init__(self, tag, attrib, line):
        self.tag, self.attrib, self.line, self.children = tag, attrib, line, []


class _Target:
    """TreeBuilder target recording the line of every start tag (expat's CurrentLineNumber)."""

    def __init__(self, source):
        self.source, self.stack, self.root, self.count, self.expat = source, [], None, 0, None

    def start(self, tag, attrib):
        el = Element(tag, dict(attrib), self.expat.CurrentLineNumber)
        self.count += 1
        if len(self.stack) >= MAX_DEPTH:
            raise ParseError(f"{self.source}, line {el.line}: elements nested deeper than {MAX_DEPTH} levels")
        if self.count > MAX_ELEMENTS:
            raise ParseError(f"{self.source}, line {el.line}: more than {MAX_ELEMENTS} elements")
        if self.stack:
            self.stack[-1].children.append(el)
        else:
            self.root = el
        self.stack.append(el)

    def end(self, tag):
        self.stack.pop()

    def data(self, text):
        pass

    def close(self):
        return self.root


def parse_xml(data, source):
    """Parse ``data`` (bytes) safely; return the root :class:`Element`. Raises ParseError."""
    target = _Target(source)
    parser = DefusedXMLParser(target=target, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    target.expat = parser.parser
    try:
        parser.feed(data)
        root = parser.close()
    except _XMLSyntaxError as exc:
        line, col = getattr(exc, "position", (0, 0))
        msg = str(exc).split(":")[0]
        raise ParseError(f"{source}, line {line}, column {col}: malformed XML ({msg})") from None
    except DefusedXmlException as exc:
        raise ParseError(f"{source}, line {parser.parser.CurrentLineNumber}: {type(exc).__name__}: "
                         f"DTDs, entities and external references are not allowed in a URDF") from None
    if root is None:
        raise ParseError(f"{source}, line 1: empty document")
    return root


def read_source(src, what="URDF"):
    """(bytes, source name) from a file name or from the document text (a string starting with '<')."""
    if isinstance(src, bytes):
        src = src.decode("utf-8", errors="replace") if src.lstrip()[:1] == b"<" else os.fsdecode(src)
    if isinstance(src, str) and src.lstrip().startswith("<"):
        data = src.encode("utf-8")
        if len(data) > MAX_BYTES:
            raise ParseError(f"<string>: {what} text of {len(data)} bytes exceeds the limit of {MAX_BYTES} bytes")
        return data, "<string>"
    path = pathlib.Path(src)
    if not path.is_file():
        raise FileNotFoundError(f"{what} file not found: {path}" + (" (it is a directory)" if path.is_dir() else ""))
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise ParseError(f"{path}: file of {size} bytes exceeds the limit of {MAX_BYTES} bytes "
                         f"(artidyn.io.safexml.MAX_BYTES)")
    return path.read_bytes(), str(path)


# An XML Schema decimal / double in its lexical form, ASCII digits only: Python's float() also
# takes "1_5" (as 15), non-ASCII digits and surrounding spaces, which a model file must not.
_XML_NUMBER = __import__("re").compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", 256)  # re.ASCII


def xml_number(text):
    """The float of an XML number token (``1``, ``-0.5``, ``2.5e-3``...); ValueError for anything
    else (underscores, non-ASCII digits, hexadecimal, 'inf', 'nan', empty)."""
    if not isinstance(text, str) or _XML_NUMBER.fullmatch(text) is None:
        raise ValueError(f"not an XML number: {text!r}")
    return float(text)

