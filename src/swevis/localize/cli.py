"""`swevis localize REPO_DIR --issue FILE`: ranked candidates (D_loc) and the package (D_pkg)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from swevis.arguments import (
    add_config_argument,
    input_folder,
    nonempty_text,
    positive_int,
    read_nonempty_text,
)
from swevis.errors import SwevisError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo_dir", help="repository checkout")
    parser.add_argument("--issue", required=True, help="file with the issue text ('-' reads stdin)")
    parser.add_argument("--query", help="an extra sub-query q (as the agents pass it)")
    parser.add_argument("--db", help="index database (default: the one `swevis index` writes in ~/.cache/swevis/index; built if missing)")
    parser.add_argument("--top-k", type=positive_int, default=10, help="candidates of each kind (files, symbols, spans) to list (default 10)")
    parser.add_argument("--max-windows", type=positive_int, default=None,
                        help="code windows in the package (default: the config's localize.max_windows)")
    parser.add_argument("--ranker", choices=["learned", "heuristic"], default=None,
                        help="symbol ranking: the fitted re-ranker or the hand-weighted heuristic alone (default: the config's localize.ranker)")
    parser.add_argument("--wide", action="store_true", help="wide scope: larger code windows")
    parser.add_argument("--baseline", action="store_true", help="rank with BM25 alone (code files outside tests, as D_loc proposes) instead of D_loc")
    add_config_argument(parser, " whose `index` section gives build options and `localize` section operator weights")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def read_issue(path: str) -> str:
    """The issue text ('-': stdin): UTF-8 text with something in it, or a one-line error (an
    empty or binary issue would give an arbitrary ranking)."""
    if path != "-":
        return read_nonempty_text(path, "issue file")
    try:
        text = sys.stdin.buffer.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SwevisError(f"the issue on stdin is not UTF-8 text (byte {exc.start})") from None
    return nonempty_text(text, "the issue on stdin")


def run(args: argparse.Namespace) -> int:
    from swevis.index.build import build_index
    from swevis.index.cli import index_path, load_index_options
    from swevis.index.progress import BuildProgress
    from swevis.index.store import open_index
    from swevis.localize.dloc import bm25_baseline, by_kind, localize_issue
    from swevis.localize.dpkg import pack_context

    input_folder(args.repo_dir, "repository folder")
    db = index_path(args.db, args.repo_dir)
    issue = read_issue(args.issue)
    opts = load_index_options(args.config, "localize")
    if args.ranker:
        opts = {**opts, "ranker": args.ranker}
    if not Path(db).exists():
        progress = BuildProgress(Path(args.repo_dir).resolve().name)
        progress.finish(build_index(args.repo_dir, db, options=load_index_options(args.config), progress=progress))
    with open_index(db) as index:
        if args.baseline:
            cands = bm25_baseline(index, issue, args.top_k, repo_dir=args.repo_dir, options=opts)
        else:
            cands = localize_issue(index, issue, query=args.query, top_k=args.top_k, options=opts,
                                   repo_dir=args.repo_dir)
        package = pack_context(
            index, cands, repo_dir=args.repo_dir, max_windows=args.max_windows, wide=args.wide, issue_text=issue,
            options=opts,
        )
    files = by_kind(cands, "file")
    syms = by_kind(cands, "symbol")
    spans = by_kind(cands, "span")
    if args.json:
        out = {
            "files": [{"path": c.path, "score": c.score, "evidence": c.evidence} for c in files],
            "symbols": [
                {"path": c.path, "qualified_name": c.qualified_name, "start_line": c.start_line,
                 "end_line": c.end_line, "score": c.score, "evidence": c.evidence}
                for c in syms
            ],
            "spans": [
                {"path": c.path, "start_line": c.start_line, "end_line": c.end_line, "score": c.score,
                 "evidence": c.evidence}
                for c in spans
            ],
            "package": package,
        }
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    print("== files")
    for i, c in enumerate(files, 1):
        print(f"{i:3d}. {c.path}  ({c.score:.2f})  " + "; ".join(c.evidence[:2]))
    print("== symbols")
    for i, c in enumerate(syms, 1):
        print(f"{i:3d}. {c.path}:{c.start_line}-{c.end_line} {c.qualified_name}  ({c.score:.2f})  " + "; ".join(c.evidence[:2]))
    if spans:
        print("== spans")
        for i, c in enumerate(spans, 1):
            print(f"{i:3d}. {c.path}:{c.start_line}-{c.end_line}  ({c.score:.2f})  " + "; ".join(c.evidence[:1]))
    print("== package")
    for f in package["files"]:
        print(f"  file {f['path']} (module {f['module']}); imports {len(f['imports'])}, imported by {len(f['imported_by'])}")
    for w in package["windows"]:
        print(f"  window {w['path']}:{w['start']}-{w['end']} {', '.join(w['symbols'])}")
    print("  search hints: " + ", ".join(package["search_hints"]))
    for t in package["test_pointers"]:
        print(f"  test {t['path']} -> {', '.join(t['symbols']) or '(imports module)'}")
    return 0
