"""Coverage of a gold patch by localization output (Prometheus Table 4; paper Fig. 6, Table 3).

A gold hunk is its old-side span of changed lines: removed lines, and for a pure insertion
the two old lines around the insertion point. Files created by the patch have no old side
and are left out.
  file hit   share of gold files among the top-k file candidates
  symbol hit share of gold hunks whose enclosing symbol (innermost definition overlapping the
             hunk; module-level hunks: their file) is among the top-k symbol candidates
  span hit   share of gold hunks overlapping a top-k span candidate's lines (a span is a few
             lines: a traceback line's or the lines D_loc proposes inside a symbol)
  evidence coverage  share of gold hunks overlapping the union of windows viewed/committed
"""

from __future__ import annotations

import re

from swevis.localize.dloc import by_kind

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def norm_path(path: str) -> str:
    """A path as a diff or a window names it -> repository-relative (no a/, b/, ./ prefix)."""
    path = path.strip().split("\t")[0]
    for prefix in ("a/", "b/", "./"):
        if path.startswith(prefix):
            path = path[len(prefix) :]
    return path


def hunk_changes(patch_text: str) -> list[tuple[str, list[int], list[int]]]:
    """Per hunk of a unified diff with an old side: (path, removed old lines, insertion points).

    An insertion point is the old line a pure addition (added lines not replacing removed
    ones) is inserted before; an addition at the end of the file has the line after the last.
    Hunks of files the patch creates (old side /dev/null) are left out."""
    out: list[tuple[str, list[int], list[int]]] = []
    path: str | None = None
    old_line = 0
    removed: list[int] = []
    inserted: list[int] = []

    def flush():
        if path is not None and (removed or inserted):
            out.append((path, list(removed), list(inserted)))

    in_hunk = False
    replacing = False
    for line in (patch_text or "").splitlines():
        if line.startswith("--- "):
            flush()
            removed, inserted = [], []
            in_hunk = False
            src = line[4:]
            path = None if src.strip().startswith("/dev/null") else norm_path(src)
            continue
        if line.startswith("+++ ") and not in_hunk:
            continue
        if line.startswith("diff --git"):
            flush()
            removed, inserted = [], []
            in_hunk = False
            path = None
            continue
        m = _HUNK.match(line)
        if m:
            flush()
            removed, inserted = [], []
            in_hunk = True
            replacing = False
            old_line = int(m.group(1))
            continue
        if not in_hunk or path is None:
            continue
        if line.startswith("-"):
            removed.append(old_line)
            old_line += 1
            replacing = True
        elif line.startswith("+"):
            if not replacing and old_line not in inserted:
                inserted.append(old_line)
        elif line.startswith("\\"):
            continue
        else:
            old_line += 1
            replacing = False
    flush()
    return out


def gold_hunks(patch_text: str) -> list[tuple[str, int, int]]:
    """(path, old_start, old_end) per hunk of a unified diff, old-side changed lines only (a
    pure insertion: the old lines either side of its insertion point)."""
    out = []
    for path, removed, inserted in hunk_changes(patch_text):
        changed = removed + [x for p in inserted for x in (max(1, p - 1), p)]
        out.append((path, min(changed), max(changed)))
    return out


def gold_files(patch_text: str) -> list[str]:
    seen: list[str] = []
    for p, _, _ in gold_hunks(patch_text):
        if p not in seen:
            seen.append(p)
    return seen


def _overlaps(a0: int, a1: int, b0: int, b1: int) -> bool:
    return a0 <= b1 and b0 <= a1


def gold_symbols(index, patch_text: str) -> list[tuple[str, list[str]]]:
    """Per gold hunk: (path, qualified names of the innermost definitions it touches; [] = module level)."""
    out = []
    for path, s, e in gold_hunks(patch_text):
        names: list[str] = []
        syms = index.symbols_in_file(path) if index is not None else []
        touching = [x for x in syms if _overlaps(x.start_line, x.end_line, s, e)]
        by_id = {x.id: x for x in syms}
        for x in touching:  # innermost: no touching child of x also touches the hunk
            if not any(y.parent_id == x.id for y in touching):
                # a local function is not addressable: count its enclosing function/method
                while x.kind == "function" and x.parent_id in by_id and by_id[x.parent_id].kind in ("function", "method"):
                    x = by_id[x.parent_id]
                if x.qualname not in names:
                    names.append(x.qualname)
        out.append((path, names))
    return out


def hit_rates(candidates, patch_text: str, k: int, index=None) -> dict[str, float]:
    """file / symbol / span hit at k (shares in [0, 1]; NaN when the patch has no old-side hunk)."""
    hunks = gold_hunks(patch_text)
    if not hunks:
        nan = float("nan")
        return {"file": nan, "symbol": nan, "span": nan}
    files = [c.path for c in by_kind(candidates, "file")[:k]]
    syms = by_kind(candidates, "symbol")[:k]
    spans = by_kind(candidates, "span")[:k]
    gfiles = gold_files(patch_text)
    file_hit = sum(1 for f in gfiles if f in files) / len(gfiles)

    sym_keys = {(c.path, c.qualified_name) for c in syms}
    if index is not None:
        gsyms = gold_symbols(index, patch_text)
    else:  # without an index: a symbol candidate whose span overlaps the hunk
        gsyms = [
            (p, [c.qualified_name for c in syms if c.path == p and _overlaps(c.start_line, c.end_line, s, e)] or ["?"])
            for p, s, e in hunks
        ]
    sym_hits = 0
    for path, names in gsyms:
        if not names:
            sym_hits += path in files
        elif any((path, n) in sym_keys for n in names):
            sym_hits += 1
    symbol_hit = sym_hits / len(hunks)

    regions = [(c.path, c.start_line, c.end_line) for c in spans if c.start_line is not None]
    span_hit = sum(
        1 for p, s, e in hunks if any(rp == p and _overlaps(rs, re_ or rs, s, e) for rp, rs, re_ in regions)
    ) / len(hunks)
    return {"file": file_hit, "symbol": symbol_hit, "span": span_hit}


def evidence_coverage(windows, patch_text: str) -> float:
    """Share of gold hunks overlapping the union of (path, start, end) windows; NaN if no hunk."""
    hunks = gold_hunks(patch_text)
    if not hunks:
        return float("nan")
    norm = []
    for w in windows:
        if isinstance(w, dict):
            p, s, e = w["path"], w["start"], w["end"]
        else:
            p, s, e = w
        norm.append((norm_path(str(p)), int(s), int(e)))
    covered = sum(1 for p, s, e in hunks if any(wp == p and _overlaps(ws, we, s, e) for wp, ws, we in norm))
    return covered / len(hunks)


def coverage_bucket(value: float, high: float = 0.8, mid: float = 0.3) -> str:
    """Table 3 bucket of an evidence coverage: high >= high, mid >= mid, else low (NaN -> low)."""
    if value is None or value != value:
        return "low"
    if value >= high:
        return "high"
    if value >= mid:
        return "mid"
    return "low"
