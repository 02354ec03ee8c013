"""Safe XML reading for the model readers: defusedxml, size limits, line numbers.

DTDs, entity declarations and external references are forbidden (no billion laughs, no file or
network access through entities); documents above ``MAX_BYTES``, deeper than ``MAX_DEPTH`` or
with more than ``MAX_ELEMENTS`` elements are refused. Every element keeps the line of its
start tag so that readers can name it in their errors. Every error is a
:class:`artidyn.ParseError` naming the source and the line.
"""
import os
import pathlib
import re
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
    """TreeBuilder target recording the line of every start tag (expat's CurrentLineNumber, plus
    the lines of a blank skipped before the XML declaration)."""

    def __init__(self, source, line0=0):
        self.source, self.stack, self.root, self.count, self.expat = source, [], None, 0, None
        self.line0 = line0

    def start(self, tag, attrib):
        el = Element(tag, dict(attrib), self.expat.CurrentLineNumber + self.line0)
        if tag[:1] == "{" and "xacro" in tag[:tag.find("}")]:   # an element of the xacro namespace
            raise xacro_error(self.source, el.line, f"<xacro:{tag[tag.find('}') + 1:]}>")
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


_DECL = re.compile(rb"^\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)[\"']")
_BLANK_DECL = re.compile(rb"(?:\xef\xbb\xbf)?([ \t\r\n]+)<\?xml[ \t\r\n?]")


def blank_before_declaration(data):
    """The blank (spaces, tabs, line breaks; after a UTF-8 byte order mark) before the XML
    declaration ``<?xml ...?>``, b"" when there is none.

    XML wants the declaration first and expat refuses such a file; TinyXML (urdfdom, MuJoCo)
    reads it, and editors and templates leave such blanks, so :func:`parse_xml` skips it (the
    URDF reader notes it in the load report, and ``strict=True`` refuses it)."""
    m = _BLANK_DECL.match(data)
    return m.group(1) if m else b""


def line_breaks(blank):
    """The number of line breaks in ``blank`` (\\n, \\r\\n or a lone \\r, as XML counts them)."""
    return blank.count(b"\n") + blank.count(b"\r") - blank.count(b"\r\n")


XACRO_HINT = "run xacro first (e.g. `xacro robot.urdf.xacro > robot.urdf`) and load its output"


def xacro_error(source, line, what):
    """The ParseError for a xacro file (macros, ``xacro:`` elements): not a plain model file."""
    return ParseError(f"{source}, line {line}: this is a xacro file ({what}), not a plain URDF: {XACRO_HINT}")


def declared_encoding(data):
    """The encoding named by the XML declaration (lower case), or None."""
    m = _DECL.match(data)
    return m.group(1).decode("ascii").lower() if m else None


def _encoding_error(data, line, col):
    """A clearer message when the document's bytes are not valid in its declared encoding (expat
    says "not well-formed (invalid token)")."""
    import codecs
    enc = declared_encoding(data)
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return None
    name = enc or "utf-8"
    try:
        codecs.lookup(name)
        data.decode(name)
        return None
    except LookupError:
        return f"unknown encoding {enc!r} declared"
    except UnicodeDecodeError as exc:
        return (f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not valid {name.upper()}"
                f"{'' if enc else ' (no encoding declared: XML files are UTF-8 by default)'}")


def parse_xml(data, source):
    """Parse ``data`` (bytes) safely; return the root :class:`Element`. Raises ParseError.

    The bytes are decoded as the XML declaration says (UTF-8 by default; UTF-16, ISO-8859-1,
    US-ASCII and Python's single-byte codecs); bytes that are not valid in that encoding are
    refused with their line and column (never replaced). xacro files are refused (run xacro).
    A blank before the XML declaration is skipped (:func:`blank_before_declaration`); lines are
    still counted from the start of ``data``.
    """
    blank = blank_before_declaration(data)
    if blank:
        at = data.index(blank)              # after a byte order mark
        data = data[:at] + data[at + len(blank):]
    line0 = line_breaks(blank)
    target = _Target(source, line0)
    parser = DefusedXMLParser(target=target, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    target.expat = parser.parser
    try:
        parser.feed(data)
        root = parser.close()
    except _XMLSyntaxError as exc:
        line, col = getattr(exc, "position", (0, 0))
        line += line0
        msg = str(exc).split(":")[0]
        if "invalid token" in msg or "encoding" in msg:
            msg = _encoding_error(data, line, col) or msg
        if msg == "unbound prefix" and b"xacro:" in data:
            raise xacro_error(source, line, "'xacro:' elements") from None
        raise ParseError(f"{source}, line {line}, column {col}: malformed XML ({msg})") from None
    except DefusedXmlException as exc:
        raise ParseError(f"{source}, line {parser.parser.CurrentLineNumber + line0}: {type(exc).__name__}: "
                         f"DTDs, entities and external references are not allowed in a URDF") from None
    if root is None:
        raise ParseError(f"{source}, line 1: empty document")
    return root


def read_source(src, what="URDF"):
    """(bytes, source name) from a file name or from the document text (a string starting with '<')."""
    if not isinstance(src, (str, bytes, os.PathLike)):
        from ..errors import InputError
        raise InputError(f"expected a {what} file name or {what} text, got {type(src).__name__}")
    if isinstance(src, (str, bytes)) and not src.strip():
        from ..errors import InputError
        raise InputError(f"expected a {what} file name or {what} text, got an empty string")
    if isinstance(src, bytes):
        if src.lstrip()[:1] == b"<" or src[:2] in (b"\xff\xfe", b"\xfe\xff") or src[:3] == b"\xef\xbb\xbf":
            if len(src) > MAX_BYTES:
                raise ParseError(f"<bytes>: {what} text of {len(src)} bytes exceeds the limit of {MAX_BYTES} bytes")
            return src, "<string>"  # the bytes as given: expat decodes them as declared
        src = os.fsdecode(src)
    if isinstance(src, str) and src.lstrip().startswith("<"):
        enc = declared_encoding(src[:200].encode("ascii", "replace"))
        try:  # text whose declaration names an encoding: bytes in that encoding, as a file would hold
            data = src.encode(enc or "utf-8")
        except (LookupError, UnicodeEncodeError) as exc:
            raise ParseError(f"<string>: the XML declaration names encoding {enc!r}, which cannot hold this text "
                             f"({type(exc).__name__}); remove the declaration or fix it") from None
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
_XML_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", 256)  # re.ASCII


def xml_number(text):
    """The float of an XML number token (``1``, ``-0.5``, ``2.5e-3``...); ValueError for anything
    else (underscores, non-ASCII digits, hexadecimal, 'inf', 'nan', empty)."""
    if not isinstance(text, str) or _XML_NUMBER.fullmatch(text) is None:
        raise ValueError(f"not an XML number: {text!r}")
    return float(text)

