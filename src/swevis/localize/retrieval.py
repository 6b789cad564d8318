"""Precision and recall of a retrieved context against a gold patch (Prometheus §3.2.2, §4.2).

The hit rates of `coverage` ask whether the gold locations are among the top k; these ask
how much of a retrieved context is gold (precision) and how much of the gold it holds
(recall), at three levels. The retrieved context is a list of windows (path, start, end),
lines 1-based and inclusive: an agent's localization evidence (the windows it viewed in its
evidence phases plus the snippets it committed) or D_loc's top-k candidates' spans
(`candidate_windows`).

The gold side is the patch's old side; files the patch creates have none and are left out:
  gold lines    the removed lines, plus the insertion point of each pure addition (added
                lines that replace no removed line): the old line just before the added lines
                (line 1 for an addition at the top of a file)
  gold files    the paths with a gold line
  gold symbols  the symbol of each gold line (below)
The retrieved side:
  lines         every line of every window
  files         the windows' paths (a window of no line, start > end, still names its file)
  symbols       the symbol of each retrieved line
A line's symbol is the innermost definition (class, function, method) whose span holds it in
the repository index at the patch's base commit; a function local to a function or method
counts as that function or method (it is not addressable on its own, as in
coverage.gold_symbols), and a line outside every definition counts as its file's module
(MODULE).

    precision = |retrieved & gold| / |retrieved|   None when nothing is retrieved at the level
    recall    = |retrieved & gold| / |gold|        0 when nothing is retrieved

A patch without an old side leaves both None at every level; so does the symbol level
without an index.
"""

from __future__ import annotations

from typing import Any, Iterable

from swevis.localize.coverage import hunk_changes, norm_path
from swevis.localize.dloc import by_kind

LEVELS = ("files", "symbols", "lines")
METRICS = tuple(f"{level}_{m}" for level in LEVELS for m in ("precision", "recall"))
MODULE = "<module>"  # the symbol of a line outside every definition of its file


def gold_lines(patch_text: str) -> set[tuple[str, int]]:
    """(path, old line) of every removed line and every pure addition's insertion point."""
    out: set[tuple[str, int]] = set()
    for path, removed, inserted in hunk_changes(patch_text):
        out.update((path, line) for line in removed)
        out.update((path, max(1, before - 1)) for before in inserted)
    return out


def window_tuple(window: Any) -> tuple[str, int, int]:
    """A window as (path, start, end) from a [path, start, end] or a {path, start, end}."""
    if isinstance(window, dict):
        path, start, end = window["path"], window["start"], window["end"]
    else:
        path, start, end = window
    return norm_path(str(path)), int(start), int(end)


def retrieved_lines(windows: Iterable[tuple[str, int, int]]) -> set[tuple[str, int]]:
    return {(path, line) for path, start, end in windows for line in range(start, end + 1)}


def _file_symbols(index: Any, path: str) -> dict[int, str]:
    """line -> qualified name of its innermost addressable definition in `path` (absent: module level)."""
    syms = index.symbols_in_file(path)
    by_id = {s.id: s for s in syms}

    def local(s: Any) -> bool:
        parent = by_id.get(s.parent_id)
        return s.kind == "function" and parent is not None and parent.kind in ("function", "method")

    painted: dict[int, str] = {}
    # outer definitions first: an inner one, starting later or ending sooner, paints over them
    for s in sorted(syms, key=lambda s: (s.start_line, -s.end_line)):
        if not local(s):
            painted.update((line, s.qualname) for line in range(s.start_line, s.end_line + 1))
    return painted


def line_symbols(index: Any, lines: Iterable[tuple[str, int]], cache: dict[str, dict[int, str]]) -> set[tuple[str, str]]:
    """(path, symbol) of each line; `cache` keeps each file's line map across calls."""
    out = set()
    for path, line in lines:
        if path not in cache:
            cache[path] = _file_symbols(index, path)
        out.add((path, cache[path].get(line, MODULE)))
    return out


def _precision_recall(retrieved: set, gold: set) -> tuple[float | None, float]:
    hit = len(retrieved & gold)
    return (hit / len(retrieved) if retrieved else None), hit / len(gold)


def retrieval_scores(windows: Iterable[Any], patch_text: str, index: Any = None) -> dict[str, float | None]:
    """{<level>_precision, <level>_recall} for LEVELS (the module docstring defines them)."""
    scores: dict[str, float | None] = dict.fromkeys(METRICS)
    gold = gold_lines(patch_text)
    if not gold:
        return scores
    wins = [window_tuple(w) for w in windows]
    lines = retrieved_lines(wins)
    levels = {
        "files": ({path for path, _, _ in wins}, {path for path, _ in gold}),
        "lines": (lines, gold),
    }
    if index is not None:
        cache: dict[str, dict[int, str]] = {}
        levels["symbols"] = (line_symbols(index, lines, cache), line_symbols(index, gold, cache))
    for level, (retrieved, gold_set) in levels.items():
        scores[f"{level}_precision"], scores[f"{level}_recall"] = _precision_recall(retrieved, gold_set)
    return scores


def candidate_windows(candidates: list[Any], k: int) -> list[tuple[str, int, int]]:
    """D_loc's retrieved context at k: the line spans of its top-k symbol and top-k span
    candidates (file candidates carry no lines; a span without an end is its first line)."""
    out = []
    for kind in ("symbol", "span"):
        for c in by_kind(candidates, kind)[:k]:
            if c.start_line is not None:
                out.append((norm_path(c.path), int(c.start_line), int(c.end_line or c.start_line)))
    return out
