"""The one rule for which characters a page shows: what a terminal shows of the text.

Tool output is full of bytes that print nothing (pytest, npm, cargo and go test colour their
output, progress bars return to the line's start, tools write backspaces). A page draws what
a terminal would show of them, and the layout, the rasterizer, the OCR reference text and
the page's token accounting all read this same shown text; the text condition still sends
the bytes the tool printed.

- An ANSI escape sequence (CSI: colours and cursor moves; OSC: titles and links; a two-byte
  ESC sequence) shows nothing.
- A backspace steps back over the character before it on its line: the next character
  takes its cell (`_\\bx` shows `x`, as an overstruck man page does).
- CR LF and a bare CR end a line (as str.splitlines, which counts a file's lines).
- Every other control character (C0 but tab and newline, DEL, C1) shows nothing.
- A whitespace character other than space, tab and newline (a no-break or ideographic
  space, a line separator) shows as spaces, one a cell.
- A format character or variation selector (a BOM, a zero-width space) takes no cell.
- A lone surrogate (invalid UTF-8 read with surrogateescape) is kept: no font draws it, so
  the caller keeps that text as text (MissingGlyphs), for the reason `missing_glyph`.

NUL is not shown either way: a text holding it is binary, and the renderer refuses it.
"""

from __future__ import annotations

import re
import unicodedata

# CSI (ESC [ or C1 0x9B) params, intermediates, a final byte; OSC (ESC ] or C1 0x9D) up to BEL
# or ST; DCS/SOS/PM/APC strings likewise; any other ESC and the byte after it (ESC ( B, ESC =)
ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"
)


def invisible(ch: str) -> bool:
    """A format character or variation selector: it has no glyph of its own (a BOM, a
    zero-width joiner, the emoji presentation selector), so no cell shows it."""
    return unicodedata.category(ch) == "Cf" or 0xFE00 <= ord(ch) <= 0xFE0F


_NOT_PLAIN = re.compile(r"[^\t\n\x20-\x7e]")


def _is_plain(text: str) -> bool:
    """Printable ASCII, tabs and newlines only: shown as it is (the common case)."""
    return _NOT_PLAIN.search(text) is None


def shown_text(text: str) -> str:
    """`text` as a page shows it (module docstring): lines joined by newlines."""
    if _is_plain(text):
        return text
    text = ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(_shown_line(line) for line in text.split("\n"))


def _shown_line(line: str) -> str:
    if _is_plain(line):
        return line
    out: list[str] = []
    for ch in line:
        if ch == "\b":
            if out:
                out.pop()
        elif ch == "\t" or ch == " ":
            out.append(ch)
        elif unicodedata.category(ch) == "Cc" or invisible(ch):
            continue
        elif ch.isspace():
            out.append(" " * (2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1))
        else:
            out.append(ch)
    return "".join(out)
