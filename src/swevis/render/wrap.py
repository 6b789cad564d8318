"""Where a long source line wraps: before a token, never inside an identifier or operator.

Break opportunities of a line are the starts of its Pygments tokens that do not begin with
whitespace (so "a == b" may wrap before "==" or "b", never between "=" and "=") and, inside
one token (a long string or comment), the first character after a run of whitespace. A string
literal is one token, whatever pieces the lexer gives it: its prefix, quotes, escapes and
interpolations (`${x}` in a JavaScript template, `{x}` in an f-string) are never break
points, so a row does not end after an opening quote. A row is filled greedily up to the wrap
width and ends at the last opportunity that fits; only a single token longer than the row is
cut at the width. Layout search, rasterizer and OCR reference all take their rows from
`segments`, so the three agree by construction.

The lexer of a file comes from the language registry (swevis.index.languages: its language's
Pygments lexer name), else from Pygments' own search by file name, else plain text.
"""

from __future__ import annotations

import functools

from pygments.lexers import TextLexer, get_lexer_by_name, get_lexer_for_filename
from pygments.token import String
from pygments.util import ClassNotFound

CONTINUATION_MARK = "\u21aa"  # drawn in the gutter of a continuation row instead of a number


def lexer_for(path: str):
    """The Pygments lexer of a file name (plain text when none matches); shared with raster.py."""
    return _lexer((path or "x.txt").rsplit("/", 1)[-1])


@functools.lru_cache(maxsize=64)
def _lexer(name: str):
    # Imported on first use, not with the renderer: the registry loads every language's
    # grammar (about a second once per process, which an agent run has already paid).
    from swevis.index.languages import language_for

    options = {"stripnl": False, "stripall": False, "ensurenl": False}
    language = language_for(name)
    lexer = language.lexer_name(name) if language is not None else ""
    try:
        return get_lexer_by_name(lexer, **options) if lexer else get_lexer_for_filename(name, **options)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


def _token_starts(path: str, text: str):
    """(line, column) of each token start that may begin a row: not a piece inside a string
    literal (after its prefix or opening quote, an escape, an interpolation and its insides)."""
    li, col, depth, in_string = 0, 0, 0, False
    for ttype, value in lexer_for(path).get_tokens(text):
        is_string = ttype in String
        inside = depth > 0 or (is_string and in_string)
        if ttype in String.Interpol:  # `${` / `{` opens an interpolation, `}` (`!r}`) closes it
            depth = depth + 1 if value.endswith("{") else max(0, depth - 1) if value.endswith("}") else depth
        elif not is_string and "\n" in value:
            depth = 0  # a lexer's unclosed interpolation ends with its line
        in_string = is_string or depth > 0
        for k, part in enumerate(value.split("\n")):
            if k:
                li, col = li + 1, 0
            if part and not part[0].isspace() and not (inside and k == 0):
                yield li, col
            col += len(part)


@functools.lru_cache(maxsize=256)
def break_points(lines: tuple[str, ...], path: str) -> tuple[tuple[int, ...], ...]:
    """Per line, the sorted columns (> 0) a row may start at (cached: a study renders one
    window at every ratio and backbone)."""
    token_starts: list[set[int]] = [set() for _ in lines]
    for li, col in _token_starts(path, "\n".join(lines)):
        if li < len(lines):
            token_starts[li].add(col)
    out = []
    for line, starts in zip(lines, token_starts):
        # a lexer may drop or alter characters: keep only starts that fit the line
        ok = {c for c in starts if 0 < c < len(line)}
        ok |= {i for i in range(1, len(line)) if line[i - 1].isspace() and not line[i].isspace()}
        out.append(tuple(sorted(ok)))
    return tuple(out)


def segments(length: int, breaks: tuple[int, ...], width: int) -> list[tuple[int, int]]:
    """The rows of one line as (start, end) columns: greedy up to `width`, ending at a break
    point when one fits, cut at `width` only when a single token is longer than the row."""
    if length <= width:
        return [(0, length)]
    out = []
    start, k = 0, 0
    while length - start > width:
        limit = start + width
        while k < len(breaks) and breaks[k] <= start:
            k += 1
        j, end = k, None
        while j < len(breaks) and breaks[j] <= limit:
            end = breaks[j]
            j += 1
        end = end if end is not None else limit
        out.append((start, end))
        start = end
    out.append((start, length))
    return out


def row_counts(lengths: list[int], breaks, width: int) -> list[int]:
    """Rows each line takes at wrap width `width`."""
    return [1 if n <= width else len(segments(n, b, width)) for n, b in zip(lengths, breaks)]
