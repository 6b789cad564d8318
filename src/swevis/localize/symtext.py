"""What tells the edited symbol from its neighbours in the same file: features of a symbol
candidate read from the issue and the symbol's own text.

The heuristic scores a symbol mostly through its file and its name; inside a well-found file
the other definitions then tie with the one the fix edits. These features look at each
candidate's own lines instead: which of the issue's identifiers and quoted strings (error
messages, literal values) occur there, whether the issue names the symbol or the class it is a
method of, and where it stands among its file's candidates. One function computes them from
plain text, so the development-set script (reading the symbol's lines from a git clone) and
D_loc (reading them from the checkout) compute the same numbers.
"""

from __future__ import annotations

import math
import re

from swevis.localize.hints import IssueHints

# a quoted run of 4-80 characters on one line: an error message, an option value, a key
_QUOTED = re.compile(r"""(?<![\w'"])(?:'([^'\n]{4,80})'|"([^"\n]{4,80})")""")
_WORD = re.compile(r"[A-Za-z_]\w*")
TEXT_FEATURES = ("body_ident", "body_quote", "named", "class_named", "size")
_SIZE_SCALE = math.log(1000)  # a 1,000-line definition scores 1


def quoted_strings(text: str) -> list[str]:
    """The issue's quoted strings, lower-cased, without those that are only an identifier
    (those are matched as identifiers)."""
    out = []
    for m in _QUOTED.finditer(text):
        s = (m.group(1) or m.group(2)).strip().lower()
        if s and not _WORD.fullmatch(s) and s not in out:
            out.append(s)
    return out


def _named_words(hints: IssueHints) -> set[str]:
    words = set(hints.identifiers)
    for d in hints.dotted:
        words.update(p for p in d.split(".") if p)
    return words


def text_features(hints: IssueHints, quoted: list[str], qualname: str, kind: str, body: str) -> dict[str, float]:
    """body_ident: the issue identifiers' strength found as words of the symbol's own lines,
    over all of it; body_quote: the share of quoted strings found there; named: the issue
    names the symbol; class_named: the issue names the class a method belongs to; size: its
    number of lines, on a log scale (fixes land in longer definitions more often)."""
    words = set(_WORD.findall(body))
    total = sum(hints.identifiers.values())
    found = sum(w for name, w in hints.identifiers.items() if name in words)
    low = body.lower()
    named = _named_words(hints)
    parts = qualname.split(".")
    return {
        "body_ident": found / total if total else 0.0,
        "body_quote": sum(1 for q in quoted if q in low) / len(quoted) if quoted else 0.0,
        "named": 1.0 if parts[-1] in named else 0.0,
        "class_named": 1.0 if kind == "method" and len(parts) > 1 and parts[-2] in named else 0.0,
        "size": math.log1p(len(body.splitlines())) / _SIZE_SCALE,
    }


def file_context(paths: list[str], heuristic: list[float]) -> list[float]:
    """in_file_rank per candidate: 1 / its rank by heuristic score among the candidates of its
    own file (ties by order given)."""
    order = sorted(range(len(paths)), key=lambda i: -heuristic[i])
    seen: dict[str, int] = {}
    out = [0.0] * len(paths)
    for i in order:
        seen[paths[i]] = seen.get(paths[i], 0) + 1
        out[i] = 1.0 / seen[paths[i]]
    return out
