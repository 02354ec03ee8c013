"""Text from model files shown on one line (names hold whatever a file or a builder gave them)."""


def one_line(text, ascii_only=False):
    """``text`` on one line of printable characters: the others as Python writes them in a
    string literal (newline -> ``\\n``, NUL -> ``\\x00``, U+2028 -> ``\\u2028``, right-to-left
    overrides too); with ``ascii_only`` also every non-ASCII character (``é`` -> ``\\xe9``)."""
    out = []
    for ch in str(text):
        if ch.isprintable() and (ch.isascii() or not ascii_only):
            out.append(ch)
        else:
            out.append(ascii(ch)[1:-1])
    return "".join(out)
