"""The Package operator (D_pkg): the context an agent is handed for a ranked list of edit
sites (merged code windows, file summaries, search hints, test pointers)."""

from __future__ import annotations

from pathlib import Path

from swevis.index.store import RepoIndex
from swevis.localize.dloc import Candidate, by_kind, interleaved, localize_options, resolve_path
from swevis.localize.hints import extract_hints, reading_languages


def _read_lines(repo_dir: Path, path: str, cache: dict) -> list[str] | None:
    if path not in cache:
        try:
            cache[path] = (repo_dir / path).read_bytes().decode("utf-8", "replace").splitlines()
        except OSError:
            cache[path] = None
    return cache[path]


def _trim(lines: list[str], start: int, end: int) -> tuple[int, int]:
    while start < end and not lines[start - 1].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start, end


def pack_context(
    index: RepoIndex,
    candidates: list[Candidate],
    *,
    repo_dir: str | Path,
    max_windows: int | None = None,
    wide: bool = False,
    issue_text: str | None = None,
    options: dict | None = None,
) -> dict:
    """D_pkg: file summaries, code windows, search hints and test pointers (JSON-serializable)."""
    o = localize_options(options)
    repo_dir = Path(repo_dir)
    max_windows = max_windows or o["max_windows"]
    max_lines = o["window_max_lines"] * (2 if wide else 1)
    extra = o["wide_context"] if wide else 0
    cache: dict = {}

    ranked = interleaved(candidates)
    file_order: list[str] = []
    for c in by_kind(candidates, "file") + ranked:
        if c.path not in file_order:
            file_order.append(c.path)
    raw = _raw_windows(ranked, repo_dir, cache, max_windows, max_lines, extra)
    windows = _merged_windows(raw, max_windows)
    for w in windows:
        lines = _read_lines(repo_dir, w["path"], cache) or []
        if w["end"] - w["start"] + 1 > max_lines * 2:
            w["end"] = w["start"] + max_lines * 2 - 1
        w["text"] = "\n".join(lines[w["start"] - 1 : w["end"]])
    return {
        "files": _file_summaries(index, file_order[: max(max_windows, 5)]),
        "windows": windows,
        "search_hints": _search_hints(index, ranked, issue_text),
        "test_pointers": _test_pointers(index, ranked),
        "wide": wide,
    }


def _raw_windows(
    ranked: list[Candidate], repo_dir: Path, cache: dict, max_windows: int, max_lines: int, extra: int
) -> list[tuple[str, int, int, str, str]]:
    """(path, start, end, symbol, reason) around each symbol and span candidate, in rank order:
    `extra` lines of context, at most `max_lines` (centred on a span), blank edges trimmed."""
    raw: list[tuple[str, int, int, str, str]] = []
    for c in ranked:
        if c.kind == "file" or c.start_line is None:
            continue
        lines = _read_lines(repo_dir, c.path, cache)
        if not lines:
            continue
        start, end = max(1, c.start_line - extra), min(len(lines), (c.end_line or c.start_line) + extra)
        if end - start + 1 > max_lines:
            focus = None
            if c.kind == "span":
                focus = (c.start_line + (c.end_line or c.start_line)) // 2
            if focus is not None:
                start = max(1, focus - max_lines // 2)
                end = min(len(lines), start + max_lines - 1)
            else:
                end = start + max_lines - 1
        start, end = _trim(lines, start, end)
        raw.append((c.path, start, end, c.qualified_name or "", "; ".join(c.evidence[:2])))
        if len(raw) >= max_windows * 3:
            break
    return raw


def _merged_windows(raw: list[tuple[str, int, int, str, str]], max_windows: int) -> list[dict]:
    """Overlapping or adjacent windows of one file merged, up to `max_windows` windows."""
    windows: list[dict] = []
    for path, start, end, sym, why in raw:
        merged = False
        for w in windows:
            if w["path"] == path and start <= w["end"] + 1 and end >= w["start"] - 1:
                w["start"], w["end"] = min(w["start"], start), max(w["end"], end)
                if sym and sym not in w["symbols"]:
                    w["symbols"].append(sym)
                merged = True
                break
        if not merged and len(windows) < max_windows:
            windows.append({"path": path, "start": start, "end": end, "symbols": [sym] if sym else [], "reason": why})
    return windows


def _file_summaries(index: RepoIndex, paths: list[str]) -> list[dict]:
    """Location and import neighbourhood of each indexed file."""
    files = []
    for path in paths:
        f = index.file(path)
        if f is None:
            continue
        top_syms = [s.qualname for s in index.symbols_in_file(path) if s.parent_id is None][:15]
        files.append(
            {
                "path": path,
                "directory": f.directory,
                "module": f.module,
                "language": f.language,
                "lines": f.n_lines,
                "is_test": f.is_test,
                "imports": index.imports_of(f.id)[:15],
                "imported_by": index.imported_by(f.id, limit=15),
                "top_level_symbols": top_syms,
            }
        )
    return files


def _search_hints(index: RepoIndex, ranked: list[Candidate], issue_text: str | None) -> list[str]:
    """Identifiers and traceback anchors worth grepping for, deduplicated, at most 25."""
    hints_out: list[str] = []
    if issue_text:
        h = extract_hints(issue_text, reading_languages(index.languages()))
        for f in h.frames:
            p = resolve_path(index, f.path)
            if p:
                hints_out.append(f"{p}:{f.line}")
        hints_out.extend(h.dotted[:10])
        hints_out.extend(sorted(h.identifiers, key=lambda k: -h.identifiers[k])[:15])
        hints_out.extend(h.errors[:5])
    for c in ranked:
        if c.kind == "symbol" and c.qualified_name:
            hints_out.append(c.qualified_name.split(".")[-1])
    seen: set[str] = set()
    return [x for x in hints_out if not (x in seen or seen.add(x))][:25]


def _test_pointers(index: RepoIndex, ranked: list[Candidate]) -> list[dict]:
    """Tests that import or reference the selected symbols, those naming most of them first."""
    tests: dict[str, dict] = {}
    for c in ranked:
        if c.kind != "symbol" or not c.qualified_name:
            continue
        for s in index.symbols_by_qualname(c.qualified_name):
            if s.path != c.path:
                continue
            for t in index.tests_for(s, limit=5):
                entry = tests.setdefault(t["path"], {"path": t["path"], "symbols": [], "imports_module": False})
                if c.qualified_name not in entry["symbols"] and t["references"]:
                    entry["symbols"].append(c.qualified_name)
                entry["imports_module"] |= t["imports_module"]
        if len(tests) >= 10:
            break
    return sorted(tests.values(), key=lambda d: (-len(d["symbols"]), d["path"]))[:8]
