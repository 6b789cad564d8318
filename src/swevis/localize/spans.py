"""Line spans inside candidate symbols: the lines of a symbol an issue most likely changes.

A traceback or file:line hint gives a span directly; most issues have neither. For every
symbol candidate D_loc also proposes the statement lines inside it that mention what the
issue mentions: its identifiers (a name rarer within the symbol weighs more), quoted strings
and error names. A symbol with no such line gets its head (signature and first lines), where
a fix of its arguments or early checks lands.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from swevis.index.languages import Language, registered
from swevis.localize.hints import IssueHints

_WORD = re.compile(r"[A-Za-z_]\w*")
_QUOTED = re.compile(r"'([^'\n]{2,80})'|\"([^\"\n]{2,80})\"")
# prose words too common to point at a line (the code languages' names and keywords join them)
_PROSE_STOP = frozenset(
    "the this that with from have when what which then than there their they them into does doesn "
    "should would could will been being were also only just like some such more most other about "
    "after before here same very over because where while using used make made need want expected "
    "actual behaviour behavior error issue problem example following code version".split()
)


@lru_cache(maxsize=8)
def _stop_words(languages: tuple[Language, ...]) -> frozenset[str]:
    code = [lang for lang in languages if lang.kind == "code"]
    return _PROSE_STOP | {lang.name for lang in code} | {k.lower() for lang in code for k in lang.keywords}


@lru_cache(maxsize=16)
def _block_openings(language: Language) -> tuple[tuple[re.Pattern, str], ...]:
    """A language's block comments (docstrings) as (compiled opening at a line's start, closing)."""
    return tuple((re.compile(r"^\s*" + opening), closing) for opening, closing in language.block_comments)


def issue_terms(text: str, hints: IssueHints,
                languages: tuple[Language, ...] | None = None) -> tuple[dict[str, float], list[str]]:
    """(word -> weight, quoted strings) the issue mentions: identifiers at their hint strength,
    other prose words of four letters or more weakly, error names fully; the stop words are
    `languages`' (swevis.localize.hints.reading_languages; default: every registered one)."""
    words: dict[str, float] = {}
    stop = _stop_words(registered() if languages is None else languages)
    for w in _WORD.findall(text):
        if len(w) >= 4 and w.lower() not in stop:
            words[w] = max(words.get(w, 0.0), 0.25)
    for name, strength in hints.identifiers.items():
        words[name] = max(words.get(name, 0.0), strength)
    for d in hints.dotted:
        for part in d.split("."):
            if len(part) >= 3:
                words[part] = max(words.get(part, 0.0), 0.6)
    for e in hints.errors:
        words[e] = 1.0
    quoted = []
    for m in _QUOTED.finditer(text):
        q = (m.group(1) or m.group(2)).strip()
        if len(q) >= 3 and q not in quoted:
            quoted.append(q)
    return words, quoted


def _statement_lines(lines: list[str], start: int, end: int, language: Language | None) -> list[tuple[int, str]]:
    """(line number, text) of the symbol's code lines: no blank, comment or docstring lines
    (by `language`'s comments; None: every non-blank line is code)."""
    openings = _block_openings(language) if language is not None else ()
    comments = language.line_comments if language is not None else ()
    out, in_block = [], None
    for no in range(start, min(end, len(lines)) + 1):
        text = lines[no - 1]
        stripped = text.strip()
        if in_block:
            if in_block in stripped:
                in_block = None
            continue
        opened = next(((m, closing) for opening, closing in openings if (m := opening.match(text))), None)
        if opened and no > start:  # the symbol's own first line is code
            m, closing = opened
            if closing not in text[m.end():]:
                in_block = closing
            continue
        if stripped and not stripped.startswith(comments):
            out.append((no, text))
    return out


def best_line(lines: list[str], start: int, end: int, name: str, words: dict[str, float],
              quoted: list[str], language: Language | None = None) -> tuple[int | None, list[str]]:
    """The statement line of lines[start..end] (1-based) scoring highest, and what it matched.

    A word scores its weight divided by the square root of the number of the symbol's lines
    that contain it (a name on every line says nothing about which one changes); a quoted
    string scores 1.5. The symbol's own name does not count. None when no line scores.
    `language`: the file's (its comments and docstrings are no statement lines).
    """
    stmts = _statement_lines(lines, start, end, language)
    # words in their order on the line (a set's order changes with the hash seed, and so would
    # the evidence text and a float sum's last bits)
    tokens = [(no, list(dict.fromkeys(_WORD.findall(text))), text) for no, text in stmts]
    df: dict[str, int] = {}
    for _, toks, _ in tokens:
        for t in toks:
            if t in words:
                df[t] = df.get(t, 0) + 1
    best, best_score, best_why = None, 0.0, []
    for no, toks, text in tokens:
        hits = [t for t in toks if t in words and t != name]
        score = sum(words[t] / math.sqrt(df[t]) for t in hits)
        quotes = [q for q in quoted if q in text]
        score += 1.5 * len(quotes)
        if score > best_score + 1e-9:
            best, best_score = no, score
            best_why = [f"`{t}`" for t in sorted(hits, key=lambda t: -words[t])[:3]] + [f"'{q}'" for q in quotes[:2]]
    return best, best_why


def symbol_span(lines: list[str] | None, start: int, end: int, name: str, words: dict[str, float],
                quoted: list[str], context: int, language: Language | None = None) -> tuple[int, int, str]:
    """(start, end, evidence) of the span proposed inside one symbol spanning start..end of a
    file in `language`."""
    line, why = (None, [])
    if lines:
        line, why = best_line(lines, start, end, name, words, quoted, language)
    if line is None:
        return start, min(end, start + 2 * context), "head of the symbol (no line mentions the issue)"
    return max(start, line - context), min(end, line + context), f"line {line} mentions " + ", ".join(why)
