"""`swevis index REPO_DIR`: build the index of a repository checkout, reusing the rows of
unchanged files, and of changed files' unchanged functions and text chunks, from an existing
index (--db itself, or --base: another version's)."""

from __future__ import annotations

import argparse
import hashlib
import json
import sqlite3
import sys
from pathlib import Path

from swevis.arguments import add_config_argument, input_folder, output_file, require_file
from swevis.errors import SwevisError
from swevis.fsutil import user_cache_dir


def default_db(repo_dir: str) -> str:
    """The index of a folder when no --db is given: in the user's cache, never inside the
    repository (a database in the checkout shows up in its `git status` and in the agent's
    diff). One file per folder: its name and a hash of its absolute path."""
    repo = Path(repo_dir).resolve()
    digest = hashlib.sha256(str(repo).encode()).hexdigest()[:12]
    return str(user_cache_dir("index") / f"{repo.name}-{digest}.sqlite")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo_dir", help="repository checkout (or any source folder) to index")
    parser.add_argument("--db", help="index database (default: ~/.cache/swevis/index/<folder>-<hash>.sqlite)")
    parser.add_argument("--repo", help="owner/name recorded in the index")
    parser.add_argument("--commit", help="commit recorded in the index (default: git HEAD, if any)")
    parser.add_argument("--base", help="index of another version of the repository: unchanged files' rows, and"
                        " the unchanged functions of changed Python files, are taken from it (the result equals"
                        " a cold build; the base is not modified)")
    parser.add_argument("--force", action="store_true", help="rebuild from scratch, ignoring an existing --db and --base")
    add_config_argument(parser, " whose `index` section gives build options")
    parser.add_argument("--json", action="store_true", help="print the build statistics as JSON")


def load_index_options(config_path: str | None, section: str = "index") -> dict:
    """One section of the config (`index` for the build, `localize` for D_loc / D_pkg):
    --config over the schema's defaults, else ./config.yaml, else the defaults."""
    from swevis.config import load_user_config

    return dict(load_user_config(config_path)[0].get(section, {}))


def index_path(db: str | None, repo_dir: str) -> str:
    """The index database to write, checked before any work: --db may name a new file in an
    existing folder or a swevis index (updated in place), never another file, which it would
    overwrite; without --db, the default in the user's cache (its folders are made)."""
    if db is None:
        path = default_db(repo_dir)
        output_file(path, "index database")
        return path
    path = output_file(db, "--db", new_folders=False)
    if path.exists() and not is_swevis_index(path):
        raise SwevisError(f"--db {path} exists and is not a swevis index: it is left untouched (choose another path)")
    return str(path)


def is_swevis_index(path: str | Path) -> bool:
    """Whether `path` is a SQLite database with swevis's `meta` table and a schema version
    (of any version: an old index is rebuilt in place)."""
    from swevis.index.store import open_read_only

    try:
        con = open_read_only(path)
        try:
            row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return False
    return row is not None


def run(args: argparse.Namespace) -> int:
    from swevis.index.build import build_index
    from swevis.index.progress import BuildProgress
    from swevis.paths import repo_slug

    input_folder(args.repo_dir, "repository folder")
    db = index_path(args.db, args.repo_dir)
    if args.repo:
        try:
            repo_slug(args.repo)
        except ValueError as exc:
            raise SwevisError(f"--repo: {exc}") from None
    base = require_file(args.base, "--base") if args.base else None
    opts = load_index_options(args.config)
    progress = BuildProgress(Path(args.repo_dir).resolve().name)
    stats = build_index(args.repo_dir, db, repo=args.repo, commit=args.commit, options=opts, force=args.force, base=base,
                        progress=progress)
    progress.finish(stats)
    if args.json:
        json.dump(stats.to_dict(), sys.stdout, indent=2)
        print()
    else:
        print(f"index: {db} ({stats.mode}, {stats.seconds:.2f}s)")
        print(
            f"  files {stats.n_files} ({stats.n_code_files} code, {stats.n_doc_files} docs);"
            f" parsed {stats.files_parsed}, unchanged {stats.files_unchanged}, removed {stats.files_removed}"
            + (f"; functions of changed files reused {stats.units_reused}" if stats.units_reused else "")
        )
        print(f"  symbols {stats.n_symbols}, edges {stats.n_edges} ({stats.n_edges_resolved} resolved),"
              f" doc chunks {stats.n_chunks}, bm25 docs {stats.n_bm25_docs}")
        bad = {k: v for k, v in stats.status_counts.items() if k != "ok"}
        if bad or stats.n_non_utf8:
            print(f"  bad files (indexed as far as possible): {bad}, non-UTF-8: {stats.n_non_utf8}")
        if stats.skipped_by_extension:
            print(f"  skipped (no registered language) {sum(stats.skipped_by_extension.values())}: "
                  + ", ".join(f"{ext} {n}" for ext, n in list(stats.skipped_by_extension.items())[:8])
                  + (", ..." if len(stats.skipped_by_extension) > 8 else ""))
    return 0
