"""Build the index of one repository checkout into SQLite, reusing an earlier index's rows.

Every build writes a whole new database to a temporary file next to `<db>` and renames it
into place, so a crash never leaves a half-written database behind as if complete. When an
earlier index exists (`<db>` itself, or `base`: another version's index), the rows of every
file whose content hash and module are unchanged are copied from it instead of parsed and
tokenized; ids are numbered in path order either way (swevis.index.rows), and edges and the
BM25 model are rebuilt over the whole tree, so an update is row for row the cold build. When
nothing changed at all, only the statistics are rewritten (`noop`).

Which files are indexed, how, and their module names and test flags come from the language
registry (swevis.index.languages); files of no registered language are counted by extension
(`skipped_by_extension`) and not indexed. A bad file never stops the build: syntax errors
(Python 2 code, say) are parsed as far as the extractor recovers (`partial`), non-UTF-8
bytes are decoded with replacement (`encoding` = invalid-utf-8), files with NUL bytes
(`binary`), above `max_file_bytes` or with lines longer than `max_line_chars` (`too_large` /
`generated`) keep a file row and a path-only BM25 document, and an extractor exception is
recorded as `error`. All are counted.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from swevis import __version__
from swevis.config import schema_defaults, with_defaults
from swevis.fsutil import atomic_path
from swevis.index import rows, store
from swevis.index.languages import FileExtract, extension_of, is_test_path, language_for, module_names, registered
from swevis.index.lexical import Lexical, tokenize
from swevis.index.treesitter_util import GrammarError
from swevis.index.resolve import resolve_edges, resolve_names
from swevis.index.reuse import OldFile
from swevis.paths import portable

log = logging.getLogger(__name__)


@dataclass
class IndexStats:
    db_path: str
    mode: str  # cold | incremental | noop
    repo: str | None = None
    commit: str | None = None
    n_files: int = 0
    n_code_files: int = 0
    n_doc_files: int = 0
    n_symbols: int = 0
    n_edges: int = 0
    n_edges_resolved: int = 0
    n_chunks: int = 0
    n_dirs: int = 0
    n_bm25_docs: int = 0
    files_parsed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    units_reused: int = 0  # functions of changed files whose rows came from the earlier index
    status_counts: dict = field(default_factory=dict)
    n_non_utf8: int = 0
    skipped_by_extension: dict = field(default_factory=dict)  # files of no registered language: not indexed
    call_targets: dict = field(default_factory=dict)  # resolved call targets of this run, per `how`
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def _options(options: dict | None) -> dict:
    """The `index` build options over the schema's defaults (keys of other sections ignored)."""
    defaults = schema_defaults("index")
    return with_defaults(defaults, {k: v for k, v in (options or {}).items() if k in defaults})


def scan(repo_dir: Path, exclude_dirs: list[str]) -> tuple[list[str], dict[str, int], dict[str, bytes]]:
    """Repository-relative POSIX paths of every file a registered language handles, the number
    of the other files by extension (not indexed), and the languages' project files (tsconfig.json,
    Cargo.toml: `Language.project_files`) by path with their bytes."""
    excl = set(exclude_dirs)
    wanted = {name for lang in registered() for name in lang.project_files}
    out: list[str] = []
    skipped: dict[str, int] = {}
    project: dict[str, bytes] = {}
    for root, dirs, files in os.walk(repo_dir, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in excl and not d.endswith(".egg-info"))
        rel = os.path.relpath(root, repo_dir)
        for name in files:
            p = name if rel == "." else f"{rel}/{name}".replace(os.sep, "/")
            if name in wanted:
                project[p] = _digest(repo_dir, p)[0]
            if language_for(p) is not None:
                out.append(p)
            else:
                ext = extension_of(p)
                skipped[ext] = skipped.get(ext, 0) + 1
    out.sort()
    return out, dict(sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0]))), dict(sorted(project.items()))


def _project_digest(project: dict[str, bytes]) -> str:
    """One hash of the project files' paths and contents ("" when there is none, so an index of
    a tree without any stays reusable by one built before project files were read)."""
    if not project:
        return ""
    h = hashlib.sha256()
    for path, data in project.items():
        h.update(f"{path}\0{hashlib.sha256(data).hexdigest()}\0".encode())
    return h.hexdigest()


def git_head(repo_dir: Path) -> str | None:
    """The commit checked out in `repo_dir`, or None when it is no git checkout."""
    if not (repo_dir / ".git").exists():
        return None
    try:
        r = subprocess.run(["git", "-C", str(repo_dir), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=20)
        return r.stdout.strip() or None if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _existing_ok(db_path: Path, opts: dict) -> bool:
    """Whether `db_path` is an index of this schema built with these options (rows reusable)."""
    if not db_path.exists():
        return False
    try:
        con = store.open_read_only(db_path)
        try:
            meta = dict(con.execute("SELECT key, value FROM meta WHERE key IN ('schema_version', 'options')"))
        finally:
            con.close()
    except sqlite3.DatabaseError:
        return False
    return meta.get("schema_version") == store.SCHEMA_VERSION and meta.get("options") == _options_json(opts)


def _options_json(opts: dict) -> str:
    """The options as the index records them: without the project files' bytes (their digest
    is `project_files`)."""
    return json.dumps({k: v for k, v in opts.items() if k != "project"}, sort_keys=True)


def _extract(path: str, data: bytes, module: str, opts: dict, reuse=None) -> tuple[FileExtract | None, str, str]:
    """(extract or None, status, error) for one file; never raises. `reuse`: the units of its
    previous version (swevis.index.reuse), if any."""
    language = language_for(path)
    if b"\x00" in data[:8192]:
        return None, "binary", "NUL bytes: not a text file"
    if len(data) > opts["max_file_bytes"]:
        return None, "too_large", f"{len(data)} bytes > max_file_bytes {opts['max_file_bytes']}"
    if data and max(map(len, data.split(b"\n"))) > opts["max_line_chars"]:
        return None, "generated", f"a line longer than max_line_chars {opts['max_line_chars']}"
    try:
        fx = language.extract(path, data, module, {"is_test": is_test_path(path), "chunk_chars": opts["chunk_chars"],
                                                   "reuse": reuse, "project": opts["project"]})
    except GrammarError:  # a broken install, not a bad file: stop the build
        raise
    except Exception as exc:  # noqa: BLE001 - a bad file must not stop the build
        if reuse is not None:  # the earlier index's rows, not the file: extract it as cold would
            log.warning("could not reuse the earlier index's rows of %s (%s): extracting it afresh", path, exc)
            return _extract(path, data, module, opts, None)
        log.warning("could not index %s: %s", path, exc)
        return None, "error", f"{type(exc).__name__}: {exc}"
    return fx, fx.status, fx.error


def _parse_rows(path: str, data: bytes, digest: str, module: str, opts: dict, reuse=None) -> rows.FileRows:
    """Parse one file into its rows (reusing the units of its previous version, `reuse`)."""
    language = language_for(path)
    try:
        data.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        encoding = "invalid-utf-8"
    fx, status, error = _extract(path, data, module, opts, reuse)
    n_lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    file = rows.file_row(path, language.name, language.kind, data, digest, module, is_test_path(path), n_lines,
                         status, encoding, error, fx)
    path_tokens = tokenize(path.replace("/", " ").replace(".", " ")) + tokenize(module.replace(".", " "))
    return rows.from_extract(file, fx, language.kind == "code", path_tokens, n_lines, reuse.chunk if reuse else None)


def _resolve(con: sqlite3.Connection, opts: dict) -> dict:
    """Resolve every edge against the whole index (resolution is global: one new definition can
    move the target of a call in a file that did not change, so an update resolves it all too)."""
    resolve_names(con)
    return dict(resolve_edges(con, max_name_targets=int(opts["max_name_targets"])))


def _rebuild_bm25(con: sqlite3.Connection, opts: dict) -> int:
    groups = con.execute("SELECT terms, counts FROM doc_tokens ORDER BY file_id")
    lex = Lexical.from_counts((rows.unpack_counts(t, c) for t, c in groups), **opts["bm25"])
    lex.save(con)
    return lex.num_docs


def build_index(
    repo_dir: str | Path,
    db_path: str | Path,
    *,
    repo: str | None = None,
    commit: str | None = None,
    options: dict | None = None,
    force: bool = False,
    base: str | Path | None = None,
    progress=None,
) -> IndexStats:
    """Index `repo_dir` into `db_path`.

    The rows of files whose content is unchanged are copied from an earlier index (`base`,
    say another version's; else `db_path` itself when it exists) instead of parsed; the result
    is row for row the cold build's. `force` ignores both. `progress(done, total, parsed)`, when
    given, is called after each file (swevis.index.progress draws it).
    """
    t0 = time.perf_counter()
    repo_dir = Path(repo_dir).resolve()
    if not repo_dir.is_dir():
        raise store.IndexError_(f"repository folder {repo_dir} does not exist")
    if base is not None and not Path(base).is_file():
        raise store.IndexError_(f"base index {base} does not exist")
    db_path = Path(db_path)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    opts = _options(options)
    commit = commit or git_head(repo_dir)
    t = time.perf_counter()
    paths, stats_skipped, project = scan(repo_dir, opts["exclude_dirs"])
    if project:  # recorded with the options: an index built under other project files is not reused
        opts["project_files"] = _project_digest(project)
    opts["project"] = project  # for the extractors; not recorded (see _options_json)
    source = None if force else Path(base) if base is not None else db_path
    if source is not None and not _existing_ok(source, opts):
        if base is not None:
            log.info("base index %s is of another schema or options: building %s cold", base, db_path)
        source = None
    stats = IndexStats(db_path=str(db_path), mode="incremental" if source else "cold", repo=repo, commit=commit)
    stats.skipped_by_extension = stats_skipped
    modules = module_names(paths, repo_dir.name if repo_dir.name.isidentifier() else "",
                           lambda path: _read_text(repo_dir, path))
    timings = {"scan": time.perf_counter() - t}
    if source == db_path and _unchanged(source, repo_dir, paths, modules):
        stats.mode = "noop"
        stats.files_unchanged = len(paths)
        _finish_noop(db_path, repo_dir, opts, stats, timings, t0)
    else:
        with atomic_path(db_path) as target:
            _index_into(target, source, repo_dir, paths, modules, opts, stats, timings, t0, progress)
    log.info(
        "indexed %s (%s): %d files (%d parsed, %d unchanged, %d removed), %d symbols, %d edges, %.2fs",
        repo_dir, stats.mode, stats.n_files, stats.files_parsed, stats.files_unchanged, stats.files_removed,
        stats.n_symbols, stats.n_edges, stats.seconds,
    )
    return stats


def _read_text(repo_dir: Path, path: str) -> str | None:
    """A repository file's text (a go.mod, for module names), or None when it cannot be read."""
    try:
        return (repo_dir / path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _old_files(con: sqlite3.Connection, schema: str = "main") -> dict[str, tuple[int, str, str]]:
    return {p: (i, h, m) for i, p, h, m in con.execute(f"SELECT id, path, sha256, module FROM {schema}.files")}


def _digest(repo_dir: Path, path: str) -> tuple[bytes, str]:
    try:
        data = (repo_dir / path).read_bytes()
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc)
        data = b""
    return data, hashlib.sha256(data).hexdigest()


def _unchanged(db_path: Path, repo_dir: Path, paths: list[str], modules: dict[str, str]) -> bool:
    """Whether the index at `db_path` has exactly these files, contents and modules."""
    con = store.open_read_only(db_path)
    try:
        old = _old_files(con)
    finally:
        con.close()
    if set(old) != set(paths):
        return False
    return all(old[p][1] == _digest(repo_dir, p)[1] and old[p][2] == modules[p] for p in paths)


def _finish_noop(db_path: Path, repo_dir: Path, opts: dict, stats: IndexStats, timings: dict, t0: float) -> None:
    """Nothing changed: only the statistics and provenance are rewritten."""
    con = sqlite3.connect(str(db_path), isolation_level=None)
    try:
        con.execute("BEGIN")
        _finish(con, stats, timings, t0, opts, repo_dir)
    finally:
        con.close()


def _finish(con: sqlite3.Connection, stats: IndexStats, timings: dict, t0: float, opts: dict, repo_dir: Path) -> None:
    """Count the rows, write statistics and provenance, and commit the build's transaction."""
    _count_rows(con, stats)
    stats.timings = {k: round(v, 4) for k, v in timings.items()}
    stats.seconds = round(time.perf_counter() - t0, 4)
    _write_meta(con, stats, opts, repo_dir)
    con.execute("COMMIT")


def _index_into(target: Path, source: Path | None, repo_dir: Path, paths: list[str], modules: dict[str, str],
                opts: dict, stats: IndexStats, timings: dict, t0: float, progress=None) -> None:
    """Write a whole index into `target`: every file's rows (copied from `source` when its
    content is unchanged), then the indexes, resolved edges and BM25 model, then statistics
    and provenance."""
    con = sqlite3.connect(str(target), isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode = OFF")  # a temporary file: renamed into place only when complete
        con.execute("PRAGMA synchronous = OFF")
        con.executescript(store.TABLES)
        if source:
            con.execute("ATTACH DATABASE ? AS old", (str(source),))  # only read
        con.execute("BEGIN")
        t, c = time.perf_counter(), time.process_time()
        _write_files(con, source, repo_dir, paths, modules, opts, stats, progress)
        t, c = _phase(timings, "parse", t, c)
        _write_dirs(con)
        _create(con, store.INDEXES)
        stats.call_targets = _resolve(con, opts)
        _create(con, store.GRAPH_INDEXES)
        t, c = _phase(timings, "resolve", t, c)
        _rebuild_bm25(con, opts)
        _phase(timings, "bm25", t, c)
        _finish(con, stats, timings, t0, opts, repo_dir)
    finally:
        con.close()


def _phase(timings: dict, name: str, t: float, c: float) -> tuple[float, float]:
    """Record a phase's wall and CPU seconds (`name`, `name_cpu`: CPU is what compares on a
    loaded machine); returns the clocks' readings for the next phase."""
    now, cpu = time.perf_counter(), time.process_time()
    timings[name], timings[f"{name}_cpu"] = now - t, cpu - c
    return now, cpu


def _create(con: sqlite3.Connection, indexes: str) -> None:
    for stmt in indexes.split(";"):  # inside the transaction (executescript would commit)
        if stmt.strip():
            con.execute(stmt)


def _write_files(con: sqlite3.Connection, source: Path | None, repo_dir: Path, paths: list[str],
                 modules: dict[str, str], opts: dict, stats: IndexStats, progress=None) -> None:
    """Every file's rows in path order: copied from the index at `source` (attached as `old`)
    when its content and module are the same there, a run of such files at a time, else parsed."""
    before = _old_files(con, "old") if source else {}
    edges = rows.edge_ranges(con, "old") if source else {}
    writer = rows.Writer(con)
    run: list[int] = []  # old ids of unchanged files consecutive in both indexes
    for n, p in enumerate(paths):
        if progress is not None:
            progress(n, len(paths), stats.files_parsed)
        data, digest = _digest(repo_dir, p)
        prev = before.pop(p, None)
        if prev is not None and prev[1] == digest and prev[2] == modules[p]:
            if run and prev[0] != run[-1] + 1:
                writer.copy(run[0], run[-1], edges)
                run = []
            run.append(prev[0])
            stats.files_unchanged += 1
            continue
        if run:
            writer.copy(run[0], run[-1], edges)
            run = []
        # the same path and module: its unchanged functions' and chunks' rows are the same
        # (python_units, reuse); else none is reused
        reuse = OldFile(con, prev[0], edges.get(prev[0])) if prev is not None and prev[2] == modules[p] else None
        file_rows = _parse_rows(p, data, digest, modules[p], opts, reuse)
        writer.write(file_rows)
        stats.files_parsed += 1
        stats.units_reused += file_rows.n_reused
    if run:
        writer.copy(run[0], run[-1], edges)
    if progress is not None:
        progress(len(paths), len(paths), stats.files_parsed)
    stats.files_removed = len(before)


def _write_dirs(con: sqlite3.Connection) -> None:
    """The folders and HAS_FILE edges, derived from the files' paths (so an update, whose file
    rows equal a cold build's, writes the same ones): every folder holding an indexed file and
    its ancestors up to the root "."; ids in path order; each folder's child folders, then its
    files, in path order."""
    files = con.execute("SELECT id, path FROM files ORDER BY path").fetchall()
    parent_of: dict[str, str] = {}
    for _, path in files:
        child = path
        while child != ".":
            folder = child.rsplit("/", 1)[0] if "/" in child else "."
            if child in parent_of:
                break
            parent_of[child] = folder
            child = folder
    folders = sorted({".", *(parent_of[p] for p in parent_of)}, key=lambda p: "" if p == "." else p)
    dir_id = {p: i for i, p in enumerate(folders, 1)}
    con.executemany("INSERT INTO dirs(id, path, parent_id) VALUES (?, ?, ?)",
                    [(dir_id[p], p, dir_id.get(parent_of.get(p, ""))) for p in folders])
    edges = [(dir_id[parent_of[p]], dir_id[p], None, 0, p) for p in folders if p != "."]
    edges += [(dir_id[parent_of[path]], None, fid, 1, path) for fid, path in files]
    edges.sort(key=lambda e: (e[0], e[3], e[4]))
    con.executemany("INSERT INTO has_file(dir_id, child_dir, child_file) VALUES (?, ?, ?)", [e[:3] for e in edges])


def _count_rows(con: sqlite3.Connection, stats: IndexStats) -> None:
    """The index's size, per table and file status, into `stats`."""
    def q(sql: str) -> int:
        return con.execute(sql).fetchone()[0]

    stats.n_files = q("SELECT count(*) FROM files")
    stats.n_code_files = q("SELECT count(*) FROM files WHERE kind = 'code'")
    stats.n_doc_files = q("SELECT count(*) FROM files WHERE kind = 'doc'")
    stats.n_symbols = q("SELECT count(*) FROM symbols")
    stats.n_edges = q("SELECT count(*) FROM edges")
    stats.n_edges_resolved = q("SELECT count(*) FROM edges WHERE dst_symbol IS NOT NULL OR dst_file IS NOT NULL")
    stats.n_chunks = q("SELECT count(*) FROM chunks")
    stats.n_dirs = q("SELECT count(*) FROM dirs")
    stats.n_bm25_docs = q("SELECT count(*) FROM bm25_docs")
    stats.n_non_utf8 = q("SELECT count(*) FROM files WHERE encoding != 'utf-8'")
    stats.status_counts = dict(con.execute("SELECT status, count(*) FROM files GROUP BY status").fetchall())


def _write_meta(con: sqlite3.Connection, stats: IndexStats, opts: dict, repo_dir: Path) -> None:
    """Provenance: schema and package version, repository, commit, options and statistics."""
    meta = {
        "schema_version": store.SCHEMA_VERSION,
        "swevis_version": __version__,
        "repo": stats.repo or "",
        "commit": stats.commit or "",
        "repo_dir": portable(repo_dir),  # relative: the results folder moves between machines
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "options": _options_json(opts),
        # rows in source order since the extractor sorted tree-sitter's captures (builds
        # before that are valid but not reproducible row for row)
        "row_order": "source",
        "stats": json.dumps(stats.to_dict(), sort_keys=True),
    }
    con.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", list(meta.items()))
