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
from functools import lru_cache

from swevis.index.languages import is_root_package, language_for
from swevis.localize.hints import IssueHints

# a quoted run of 4-80 characters on one line: an error message, an option value, a key
_QUOTED = re.compile(r"""(?<![\w'"])(?:'([^'\n]{4,80})'|"([^"\n]{4,80})")""")
_WORD = re.compile(r"[A-Za-z_]\w*")
TEXT_FEATURES = ("body_ident", "body_quote", "named", "class_named", "size")
NAME_FEATURES = ("name_words", "name_in_text", "class_words", "file_named", "outside_package")
SET_FEATURES = ("body_terms", "file_rank", "file_best", "file_cands")
_SUBWORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+")
# words of commit messages and issues that say nothing about where: not matched against names
_STOP = frozenset(
    "the and for with from this that when not are was were has have but into also use used using does than then"
    " them they their its can should would could will fix fixed fixes add added adds make made now only more"
    " some other test tests self none true false return def class".split()
)
# top-level folders of scripts, docs, vendored and build code beside a project's package
_OUTSIDE = frozenset({"bin", "scripts", "tools", "examples", "doc", "docs", "benchmarks", "ci", "asv_bench",
                      ".github", "devtools", "maint_tools", "build_tools", "utils", "extern", "external",
                      "_vendor", "vendor"})
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


@lru_cache(maxsize=4096)
def body_words(body: str) -> frozenset[str]:
    """The words of a symbol's lines; cached, as text_features and body_terms both read them."""
    return frozenset(_WORD.findall(body))


def text_features(hints: IssueHints, quoted: list[str], qualname: str, kind: str, body: str) -> dict[str, float]:
    """body_ident: the issue identifiers' strength found as words of the symbol's own lines,
    over all of it; body_quote: the share of quoted strings found there; named: the issue
    names the symbol; class_named: the issue names the class a method belongs to; size: its
    number of lines, on a log scale (fixes land in longer definitions more often)."""
    words = body_words(body)
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


@lru_cache(maxsize=65536)
def subwords(name: str) -> frozenset[str]:
    """The lower-cased words of an identifier of three letters or more: `RelatedOnlyFieldListFilter`
    -> related, only, field, list, filter; `_group_parentheses` -> group, parentheses. Cached:
    the same names recur in every candidate's lines."""
    return frozenset(w.lower() for part in name.split("_") for w in _SUBWORD.findall(part) if len(w) >= 3)


class IssueWords:
    """The issue's words, once per issue: as written, lower-cased, and their sub-words."""

    def __init__(self, text: str):
        words = _WORD.findall(text)
        self.exact = set(words)
        self.lower = {w.lower() for w in words}
        self.sub = {w for word in words for w in subwords(word)} - _STOP
        self.terms = {w for w in self.lower | self.sub if len(w) >= 3} - _STOP


def name_features(words: IssueWords, path: str, qualname: str, kind: str) -> dict[str, float]:
    """What the symbol's and its file's names share with the issue's words. name_words: the
    share of the name's sub-words the issue uses (a commit or issue says "grouping parentheses"
    for `_group_parentheses`); name_in_text: the name written anywhere in the issue, not only
    where a hint saw code; class_words: the same share for a method's class; file_named: the
    module's name (its folder's for a package file such as __init__.py) is a word of the issue;
    outside_package: the file sits at the top level (unless its language keeps library code
    there: Go's root package) or in a scripts/docs/tools folder, beside the library."""
    parts = qualname.split(".")
    name = parts[-1]
    own = subwords(name)
    cls = subwords(parts[-2]) if kind == "method" and len(parts) > 1 else set()
    folders = path.split("/")
    stem = folders[-1].rsplit(".", 1)[0]
    language = language_for(path)
    if language is not None and folders[-1] in language.package_files and len(folders) > 1:
        stem = folders[-2]
    return {
        "name_words": len(own & words.sub) / len(own) if own else 0.0,
        "name_in_text": 1.0 if len(name.strip("_")) >= 4 and name in words.exact else 0.0,
        "class_words": len(cls & words.sub) / len(cls) if cls else 0.0,
        "file_named": 1.0 if len(stem) >= 3 and stem.lower() in words.lower else 0.0,
        "outside_package": 1.0 if (len(folders) == 1 and not is_root_package(path)) or folders[0] in _OUTSIDE else 0.0,
    }


def body_terms(text: str) -> set[str]:
    """A symbol's words and their sub-words, lower-cased (matched against IssueWords.terms)."""
    words = body_words(text)
    out = {w.lower() for w in words}
    for w in words:
        out |= subwords(w)
    return out


def found_terms(words: IssueWords, body: str) -> frozenset[str]:
    """The issue's words (and sub-words) found in a symbol's own lines."""
    return frozenset(body_terms(body) & words.terms)


def set_features(paths: list[str], heuristic: list[float], file_score: list[float],
                 found: list[frozenset[str]]) -> dict[str, list[float]]:
    """Features of each candidate against the others of its issue (the files and symbols ranked
    together). body_terms: the issue's words found in its own lines (`found`), each weighted by
    how few candidates contain it (idf over this candidate set: a misspelt word or a rare option
    name in one body says more than `value` in all of them), over all such weight; file_rank:
    1 / its file's rank by file score; file_best: the best heuristic score among its file's
    candidates (a symbol of a file much else points into); file_cands: how many candidates its
    file has (log, 99 -> 1)."""
    df: dict[str, int] = {}
    for f in found:
        for w in f:
            df[w] = df.get(w, 0) + 1
    idf = {w: math.log(1 + len(paths) / d) for w, d in df.items()}
    total = sum(idf.values()) or 1.0
    score: dict[str, float] = {}
    best: dict[str, float] = {}
    count: dict[str, int] = {}
    for p, f, h in zip(paths, file_score, heuristic):
        score[p] = max(score.get(p, 0.0), f)
        best[p] = max(best.get(p, 0.0), h)
        count[p] = count.get(p, 0) + 1
    rank = {p: i for i, p in enumerate(sorted(score, key=lambda p: (-score[p], p)), 1)}
    return {
        "body_terms": [sum(idf[w] for w in f) / total for f in found],
        "file_rank": [1.0 / rank[p] for p in paths],
        "file_best": [best[p] for p in paths],
        "file_cands": [math.log1p(count[p]) / math.log(100) for p in paths],
    }


def frame_features(hints: IssueHints, paths: list[str], spans: list[tuple[int, int]]) -> list[float]:
    """in_frame for candidates known only by path and lines (the development set's stored
    results): 1.0 when a traceback frame or file:line hint of the issue names a line inside
    it, its path matched by its last two components (the file name alone when the frame has
    one). D_loc sets it where it resolves the frame against the index (the enclosing
    definition, or the one the frame's function names), so the two can differ when a frame's
    path is ambiguous or names a function elsewhere in the file."""
    frames = [("/".join(f.path.replace("\\", "/").split("/")[-2:]), f.line) for f in hints.frames]
    return [1.0 if any((p == fp or p.endswith("/" + fp)) and s <= line <= e for fp, line in frames) else 0.0
            for p, (s, e) in zip(paths, spans)]
