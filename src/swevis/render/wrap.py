"""Where a long source line wraps: before a token, never inside an identifier or operator.

Break opportunities of a line are the starts of its Pygments tokens that do not begin with
whitespace (so "a == b" may wrap before "==" or "b", never between "=" and "=") and, inside
one token (a long string or comment), the first character after a run of whitespace. A row
is filled greedily up to the wrap width and ends at the last opportunity that fits; only a
single token longer than the row is cut at the width. Layout search, rasterizer and OCR
reference all take their rows from `segments`, so the three agree by construction.
"""

from __future__ import annotations

import functools

from pygments.lexers import TextLexer, get_lexer_for_filename
from pygments.lexers.python import PythonLexer
from pygments.util import ClassNotFound

CONTINUATION_MARK = "\u21aa"  # drawn in the gutter of a continuation row instead of a number


def lexer_for(path: str):
    """The Pygments lexer of a file name (plain text when none matches); shared with raster.py."""
    return _lexer((path or "x.txt").rsplit("/", 1)[-1])


@functools.lru_cache(maxsize=64)
def _lexer(name: str):
    # Python files skip Pygments' filename search, which matches the name against every
    # lexer's globs (~0.1 s on first use, paid again by every agent job); it returns this
    # same lexer class for them (tests/render check it).
    if name.endswith((".py", ".pyi")):
        return PythonLexer(stripnl=False, stripall=False, ensurenl=False)
    try:
        return get_lexer_for_filename(name, stripnl=False, stripall=False, ensurenl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=False)


@functools.lru_cache(maxsize=256)
def break_points(lines: tuple[str, ...], path: str) -> tuple[tuple[int, ...], ...]:
    """Per line, the sorted columns (> 0) a row may start at (cached: a study renders one
    window at every ratio and backbone)."""
    token_starts: list[set[int]] = [set() for _ in lines]
    li, col = 0, 0
    for _, value in lexer_for(path).get_tokens("\n".join(lines)):
        for k, part in enumerate(value.split("\n")):
            if k:
                li, col = li + 1, 0
            if li >= len(lines):
                break
            if part and not part[0].isspace():
                token_starts[li].add(col)
            col += len(part)
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
