"""Names from model files, made safe for the text the generators write.

A model, body, joint or frame name comes from a file (URDF, MJCF, DH table) or a builder and can
hold anything: a newline, ``*/``, ``</script>``, ``$``. Pasted as is into a comment of generated
code, a newline ends a Python or LaTeX comment and what follows runs (``lambdify("numpy")`` executes
the source); ``*/`` ends a C comment and what follows is compiled into the library that
``lambdify("c")`` loads. Every generator therefore passes names through one of these helpers:

* :func:`one_line` / :func:`comment`: a one-line, printable form (Python, numba, LaTeX comments);
* :func:`c_comment`: the same in ASCII, with ``*/`` and ``/*`` broken;
* :func:`markdown`, :func:`markdown_code`: text that cannot open HTML, links, emphasis, table cells
  or math;
* :func:`function_name`: the name of a generated function, a plain identifier or an error, with
  :func:`identifier` to make one from any text.

The escaped form stays readable: ``model 'arm\\n#x'`` shows where the newline was.
"""
import keyword
import re

from .._text import one_line  # noqa: F401  (one of this module's helpers)
from ..errors import InputError

# C keywords (C89 to C23) and the names the generated code itself uses: a generated function with
# one of these names would not compile or would shadow what its body calls.
C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch typedef union
unsigned void volatile while alignas alignof bool constexpr false nullptr static_assert thread_local true
typeof typeof_unqual asm fortran""".split())
CODE_NAMES = frozenset("np math numba range p out OUT n k q qd qdd qda qdda Q QD QDD QDA QDDA sin cos sqrt pow "
                       "main".split())

_MD_ENTITY = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_MD_PUNCT = set("\\`*_[]{}|$~#")


def comment(text):
    """For a Python, numba or LaTeX comment line: only a line end can leave those, so one line."""
    return one_line(text)


def c_comment(text):
    """For a C ``/* ... */`` comment: one line of ASCII with ``*/`` (which would end the comment)
    and ``/*`` (a nested-comment warning) broken by a backslash."""
    return one_line(text, ascii_only=True).replace("*/", "*\\/").replace("/*", "/\\*")


def markdown(text):
    """For Markdown text (headings, table cells, list items): one line, ``< > &`` as HTML
    entities (no tag, no entity), and the punctuation that opens code, emphasis, links, table
    cells, math or a heading (`` \\ ` * _ [ ] { } | $ ~ # ``) backslash-escaped; a leading list
    marker (``-``, ``+``, ``=``, ``1.``) is escaped too."""
    s = one_line(text)
    s = "".join(_MD_ENTITY.get(c) or ("\\" + c if c in _MD_PUNCT else c) for c in s)
    m = re.match(r"^(\d*)([-+=.)])", s)
    if m and (m.group(1) or m.group(2) in "-+="):
        s = f"{m.group(1)}\\{s[m.end(1):]}"
    return s


def markdown_cell(text):
    """For a Markdown table cell or heading that is also read as plain text (``artidyn report``
    prints it): one line, ``< > &`` as HTML entities, ``|`` and backticks escaped; names and
    numbers as written otherwise (``ur5_robot``, ``-0.5``)."""
    s = "".join(_MD_ENTITY.get(c, c) for c in one_line(text))
    return s.replace("|", "\\|").replace("`", "\\`")


def markdown_code(text):
    """A Markdown code span of ``text`` (one line): fenced by one backtick more than its longest
    run of backticks, padded with spaces when it starts or ends with one."""
    s = one_line(text)
    run = max((len(r) for r in re.findall("`+", s)), default=0)
    pad = " " if s[:1] == "`" or s[-1:] == "`" else ""
    return f"{'`' * (run + 1)}{pad}{s}{pad}{'`' * (run + 1)}"


def identifier(text):
    """A Python and C identifier made from ``text``: other characters as ``_``, a leading ``_``
    before a digit, a trailing ``_`` after a keyword or a name the generated code uses, ``f_``
    instead of the underscores of a name C reserves (``__x``, ``_X``)."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", str(text)) or "_"
    if s[0].isdigit():
        s = "_" + s
    if _reserved(s):
        s = "f_" + s.lstrip("_") if s.startswith("__") or re.match("_[A-Z]", s) else s + "_"
    return s


def _reserved(name):
    """A keyword of Python or C, a name of the generated code, or a name C reserves (``__x``, ``_X``)."""
    return (keyword.iskeyword(name) or name in C_KEYWORDS or name in CODE_NAMES
            or name.startswith("__") or re.match("_[A-Z]", name) is not None)


def function_name(name):
    """``name`` if it can name a generated function (and its files), else InputError."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or _reserved(name):
        raise InputError(f"generated function name {one_line(name)!r}: needs a Python/C identifier that is "
                         f"no keyword and no name the generated code uses, e.g. {identifier(name)!r}")
    return name
