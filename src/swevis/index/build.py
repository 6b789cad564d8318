"""Build (or incrementally update) the index of one repository checkout into SQLite.

Cold build: written to a temporary file next to `<db>` and renamed into place, so a crash never leaves a
half-written database behind as if complete. Incremental build (the database exists and
has this schema): every file's content hash is compared; only new or changed files are
re-parsed, removed files are dropped, inside one transaction. Cross-file edges are then
re-resolved in SQL and the BM25 model is rebuilt from the stored per-document tokens
(cheap: nothing is re-read or re-tokenized except the changed files).

A bad file never stops the build: syntax errors / Python 2 code are parsed as far as
tree-sitter recovers (`partial`), non-UTF-8 bytes are decoded with replacement (`encoding`
= invalid-utf-8), files with NUL bytes (`binary`), above `max_file_bytes` or with lines
longer than `max_line_chars` (`too_large` / `generated`) keep a file row and a path-only
BM25 document, and an extractor exception is recorded as `error`. All are counted.
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
from swevis.index import store
from swevis.index.languages import FileExtract, language_for
from swevis.index.resolve import resolve_edges
from swevis.index.lexical import Lexical, tokenize
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
    n_bm25_docs: int = 0
    files_parsed: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    status_counts: dict = field(default_factory=dict)
    n_non_utf8: int = 0
    call_targets: dict = field(default_factory=dict)  # resolved call targets of this run, per `how`
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def n_bad(self) -> int:
        return sum(v for k, v in self.status_counts.items() if k != "ok")


def _options(options: dict | None) -> dict:
    """The `index` build options over the schema's defaults (keys of other sections ignored)."""
    defaults = schema_defaults("index")
    return with_defaults(defaults, {k: v for k, v in (options or {}).items() if k in defaults})


def is_test_path(path: str) -> bool:
    parts = path.split("/")
    base = parts[-1]
    if any(p in ("tests", "test", "testing") for p in parts[:-1]):
        return True
    return base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py"


def scan(repo_dir: Path, exclude_dirs: list[str]) -> list[str]:
    """Repository-relative POSIX paths of every file a registered language handles."""
    excl = set(exclude_dirs)
    out: list[str] = []
    for root, dirs, files in os.walk(repo_dir, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in excl and not d.endswith(".egg-info"))
        rel = os.path.relpath(root, repo_dir)
        for name in files:
            p = name if rel == "." else f"{rel}/{name}".replace(os.sep, "/")
            if language_for(p) is not None:
                out.append(p)
    out.sort()
    return out


def module_names(paths: list[str], root_name: str = "") -> dict[str, str]:
    """Dotted module name per Python file: climb while the folder is a package (__init__.py).

    When the indexed folder is itself a package (an installed package's source, say), its
    name (`root_name`) prefixes every module, so modules read as they are imported.
    """
    pkg_dirs = {p.rsplit("/", 1)[0] for p in paths if p.endswith("/__init__.py")}
    root_pkg = root_name if root_name and "__init__.py" in paths else ""
    out: dict[str, str] = {}
    for p in paths:
        if not (p.endswith(".py") or p.endswith(".pyi")):
            out[p] = ""
            continue
        parts = p.split("/")
        stem = parts[-1].rsplit(".", 1)[0]
        mod = [] if stem == "__init__" else [stem]
        i = len(parts) - 1
        while i > 0 and "/".join(parts[:i]) in pkg_dirs:
            mod.insert(0, parts[i - 1])
            i -= 1
        if i == 0 and root_pkg:
            mod.insert(0, root_pkg)
        out[p] = ".".join(mod)
    return out


def _git_head(repo_dir: Path) -> str | None:
    if not (repo_dir / ".git").exists():
        return None
    try:
        r = subprocess.run(["git", "-C", str(repo_dir), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=20)
        return r.stdout.strip() or None if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def _existing_ok(db_path: Path) -> bool:
    if not db_path.exists():
        return False
    try:
        con = sqlite3.connect(str(db_path))
        try:
            row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        finally:
            con.close()
        return bool(row) and row[0] == store.SCHEMA_VERSION
    except sqlite3.DatabaseError:
        return False


def _delete_file_rows(con: sqlite3.Connection, file_id: int) -> None:
    for table, col in (("symbols", "file_id"), ("edges", "src_file"), ("chunks", "file_id"), ("bm25_docs", "file_id"),
                       ("targets", "src_file"), ("attrs", "file_id")):
        con.execute(f"DELETE FROM {table} WHERE {col} = ?", (file_id,))


def _extract(path: str, data: bytes, module: str, opts: dict) -> tuple[FileExtract | None, str, str]:
    """(extract or None, status, error) for one file; never raises."""
    spec = language_for(path)
    if b"\x00" in data[:8192]:
        return None, "binary", "NUL bytes: not a text file"
    if len(data) > opts["max_file_bytes"]:
        return None, "too_large", f"{len(data)} bytes > max_file_bytes {opts['max_file_bytes']}"
    if data and max(map(len, data.split(b"\n"))) > opts["max_line_chars"]:
        return None, "generated", f"a line longer than max_line_chars {opts['max_line_chars']}"
    try:
        fx = spec.extract(path, data, module, {"is_test": is_test_path(path), "chunk_chars": opts["chunk_chars"]})
    except Exception as exc:  # noqa: BLE001 - a bad file must not stop the build
        log.warning("could not index %s: %s", path, exc)
        return None, "error", f"{type(exc).__name__}: {exc}"
    return fx, fx.status, fx.error


def _insert_file(con, path: str, data: bytes, digest: str, module: str, opts: dict, ids_from: list) -> tuple[int, str, bool]:
    """Insert one file's rows; `ids_from` = [next free symbol id] (symbols are inserted in bulk)."""
    spec = language_for(path)
    try:
        data.decode("utf-8")
        encoding = "utf-8"
    except UnicodeDecodeError:
        encoding = "invalid-utf-8"
    fx, status, error = _extract(path, data, module, opts)
    n_lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    cur = con.execute(
        "INSERT INTO files(path, language, kind, size, sha256, module, is_test, n_lines, status, n_errors,"
        " encoding, error, imports, module_doc, names) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (path, spec.name, spec.kind, len(data), digest, module, int(is_test_path(path)), n_lines, status,
         fx.n_errors if fx else 0, encoding, error, json.dumps(fx.imports if fx else []), fx.module_doc if fx else "",
         json.dumps(fx.names) if fx and fx.names else ""),
    )
    file_id = cur.lastrowid
    path_tokens = tokenize(path.replace("/", " ").replace(".", " ")) + tokenize(module.replace(".", " "))
    docs: list[tuple] = []
    if fx is None:
        docs.append((file_id, None, None, 1, max(n_lines, 1), " ".join(path_tokens)))
        con.executemany(
            "INSERT INTO bm25_docs(file_id, symbol_id, chunk_id, start_line, end_line, tokens) VALUES (?,?,?,?,?,?)", docs
        )
        return file_id, status, encoding != "utf-8"
    first = ids_from[0]
    ids = list(range(first, first + len(fx.symbols)))
    ids_from[0] = first + len(fx.symbols)
    con.executemany(
        "INSERT INTO symbols(id, file_id, name, qualname, kind, start_line, end_line, signature, doc, parent_id)"
        " VALUES (?,?,?,?,?,?,?,?,?,?)",
        [(sid, file_id, s.name, s.qualname, s.kind, s.start_line, s.end_line, s.signature, s.doc,
          ids[s.parent] if s.parent is not None else None) for sid, s in zip(ids, fx.symbols)],
    )
    edge_rows = []
    for e in fx.edges:
        base, _, leaf = e.dst_name.rpartition(".")
        recv_key = e.recv.partition(":")[2].rsplit(".", 1)[-1] if ":" in e.recv else ""
        edge_rows.append((e.kind, file_id, ids[e.src_symbol] if e.src_symbol is not None else None, e.dst_name,
                          base, leaf, e.line, e.recv, recv_key))
    con.executemany(
        "INSERT INTO edges(kind, src_file, src_symbol, dst_name, dst_base, dst_leaf, line, recv, recv_key)"
        " VALUES (?,?,?,?,?,?,?,?,?)",
        edge_rows,
    )
    if fx.attrs:
        con.executemany(
            "INSERT INTO attrs(file_id, class_id, name, type) VALUES (?,?,?,?)",
            [(file_id, ids[c], name, te) for c, name, te in fx.attrs],
        )
    prev = None
    chunk_ids = []
    for seq, c in enumerate(fx.chunks):
        cur = con.execute(
            "INSERT INTO chunks(file_id, seq, start_line, end_line, text) VALUES (?,?,?,?,?)",
            (file_id, seq, c.start_line, c.end_line, c.text),
        )
        if prev is not None:
            con.execute("UPDATE chunks SET next_id = ? WHERE id = ?", (cur.lastrowid, prev))
        prev = cur.lastrowid
        chunk_ids.append(cur.lastrowid)
    if spec.kind == "code":
        mod_tokens = path_tokens + tokenize(fx.module_text)
        docs.append((file_id, None, None, 1, max(n_lines, 1), " ".join(mod_tokens)))
    elif not fx.chunks:
        docs.append((file_id, None, None, 1, max(n_lines, 1), " ".join(path_tokens)))
    for sid, s in zip(ids, fx.symbols):
        toks = tokenize(s.qualname.replace(".", " ")) + path_tokens[-3:] + tokenize(s.own_text)
        docs.append((file_id, sid, None, s.start_line, s.end_line, " ".join(toks)))
    for cid, c in zip(chunk_ids, fx.chunks):
        docs.append((file_id, None, cid, c.start_line, c.end_line, " ".join(path_tokens + tokenize(c.text))))
    con.executemany(
        "INSERT INTO bm25_docs(file_id, symbol_id, chunk_id, start_line, end_line, tokens) VALUES (?,?,?,?,?,?)", docs
    )
    return file_id, status, encoding != "utf-8"


# Resolution runs over dirty edges only: new edges of re-parsed files, plus edges whose
# target name or module was defined in a changed or removed file (marked by _mark_dirty).
RESOLVE_SQL = [
    "UPDATE edges SET dst_file = NULL, dst_symbol = NULL WHERE dirty = 1",
    # imports: the module itself ...
    "UPDATE edges SET dst_file = (SELECT id FROM files WHERE module = edges.dst_name AND language = 'python' LIMIT 1)"
    " WHERE dirty = 1 AND kind = 'imports'",
    # ... or a name defined at the top level of a module (from m import Name)
    "UPDATE edges SET dst_file = (SELECT id FROM files WHERE module = edges.dst_base AND language = 'python' LIMIT 1)"
    " WHERE dirty = 1 AND kind = 'imports' AND dst_file IS NULL AND dst_base != ''",
    "UPDATE edges SET dst_symbol = (SELECT s.id FROM symbols s WHERE s.file_id = edges.dst_file"
    " AND s.name = edges.dst_leaf AND s.parent_id IS NULL LIMIT 1)"
    " WHERE dirty = 1 AND kind = 'imports' AND dst_file IS NOT NULL",
    "DROP TABLE IF EXISTS temp.uniq",
    "CREATE TEMP TABLE uniq AS SELECT name, min(id) AS id FROM symbols GROUP BY name HAVING count(*) = 1",
    "CREATE INDEX temp.uniq_name ON uniq(name)",
    # references from tests: the only definition of that name in the repository
    # (calls and bases are resolved type-aware in swevis.index.resolve)
    "UPDATE edges SET dst_symbol = (SELECT u.id FROM uniq u WHERE u.name = edges.dst_leaf)"
    " WHERE dirty = 1 AND kind = 'references' AND dst_symbol IS NULL",
    "UPDATE edges SET dst_file = (SELECT s.file_id FROM symbols s WHERE s.id = edges.dst_symbol)"
    " WHERE dirty = 1 AND kind = 'references' AND dst_symbol IS NOT NULL AND dst_file IS NULL",
    "DROP TABLE IF EXISTS temp.uniq",
]


def _affected(con: sqlite3.Connection, file_id: int) -> tuple[set[str], set[str]]:
    """Names defined in (symbols, class attributes) and module of a file, read before its rows change.

    Call edges with a target in this file are marked dirty here, before the file's rows go.
    """
    con.execute("UPDATE edges SET dirty = 1 WHERE id IN (SELECT edge_id FROM targets WHERE dst_file = ?)", (file_id,))
    con.execute("UPDATE edges SET dirty = 1 WHERE kind = 'inherits' AND dst_file = ?", (file_id,))
    names = {r[0] for r in con.execute("SELECT DISTINCT name FROM symbols WHERE file_id = ?", (file_id,))}
    names |= {r[0] for r in con.execute("SELECT DISTINCT name FROM attrs WHERE file_id = ?", (file_id,))}
    mods = {r[0] for r in con.execute("SELECT module FROM files WHERE id = ? AND module != ''", (file_id,))}
    return names, mods


def _mark_dirty(con: sqlite3.Connection, names: set[str], modules: set[str]) -> None:
    """Edges whose resolution may change because these names or modules changed."""
    con.execute("CREATE TEMP TABLE IF NOT EXISTS aff_names(name TEXT PRIMARY KEY)")
    con.execute("CREATE TEMP TABLE IF NOT EXISTS aff_mods(name TEXT PRIMARY KEY)")
    con.execute("DELETE FROM aff_names")
    con.execute("DELETE FROM aff_mods")
    con.executemany("INSERT OR IGNORE INTO aff_names VALUES (?)", [(n,) for n in names])
    con.executemany("INSERT OR IGNORE INTO aff_mods VALUES (?)", [(m,) for m in modules])
    con.execute("UPDATE edges SET dirty = 1 WHERE dst_leaf IN (SELECT name FROM aff_names)")
    con.execute("UPDATE edges SET dirty = 1 WHERE recv_key IN (SELECT name FROM aff_names)")
    con.execute("UPDATE edges SET dirty = 1 WHERE dst_name IN (SELECT name FROM aff_mods)")
    con.execute("UPDATE edges SET dirty = 1 WHERE dst_base IN (SELECT name FROM aff_mods)")


def _resolve(con: sqlite3.Connection, opts: dict) -> dict:
    for sql in RESOLVE_SQL:
        con.execute(sql)
    counts = resolve_edges(con, max_name_targets=int(opts["max_name_targets"]))
    con.execute("UPDATE edges SET dirty = 0 WHERE dirty = 1")
    return dict(counts)


def _rebuild_bm25(con: sqlite3.Connection, opts: dict) -> int:
    rows = con.execute("SELECT id, tokens FROM bm25_docs ORDER BY id").fetchall()
    corpus = [t.split() if t else [] for _, t in rows]
    con.executemany("UPDATE bm25_docs SET doc_idx = ? WHERE id = ?", [(i, r[0]) for i, r in enumerate(rows)])
    lex = Lexical.build(corpus, **opts["bm25"])
    lex.save(con)
    return len(rows)


def build_index(
    repo_dir: str | Path,
    db_path: str | Path,
    *,
    repo: str | None = None,
    commit: str | None = None,
    options: dict | None = None,
    force: bool = False,
) -> IndexStats:
    """Index `repo_dir` into `db_path`; incremental when a database of this schema exists."""
    t0 = time.perf_counter()
    repo_dir = Path(repo_dir).resolve()
    if not repo_dir.is_dir():
        raise store.IndexError_(f"repository folder {repo_dir} does not exist")
    db_path = Path(db_path)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    opts = _options(options)
    commit = commit or _git_head(repo_dir)
    incremental = not force and _existing_ok(db_path)
    stats = IndexStats(db_path=str(db_path), mode="incremental" if incremental else "cold", repo=repo, commit=commit)
    if incremental:
        _index_into(db_path, repo_dir, opts, stats, t0)
    else:
        with atomic_path(db_path) as target:
            _index_into(target, repo_dir, opts, stats, t0)
    log.info(
        "indexed %s (%s): %d files (%d parsed, %d unchanged, %d removed), %d symbols, %d edges, %.2fs",
        repo_dir, stats.mode, stats.n_files, stats.files_parsed, stats.files_unchanged, stats.files_removed,
        stats.n_symbols, stats.n_edges, stats.seconds,
    )
    return stats


def _index_into(target: Path, repo_dir: Path, opts: dict, stats: IndexStats, t0: float) -> None:
    """One transaction over `target`: sync the files, re-resolve edges and rebuild BM25 when
    anything changed, record statistics and provenance; rolled back on any error."""
    incremental = stats.mode == "incremental"
    timings: dict[str, float] = {}
    con = sqlite3.connect(str(target), isolation_level=None)
    try:
        if incremental:
            con.execute("PRAGMA synchronous = NORMAL")
        else:
            con.execute("PRAGMA journal_mode = OFF")
            con.execute("PRAGMA synchronous = OFF")
        con.executescript(store.SCHEMA if incremental else store.TABLES)
        con.execute("BEGIN")
        changed, aff_names, aff_mods = _sync_files(con, repo_dir, opts, stats, timings, incremental)
        if changed or not incremental:
            t = time.perf_counter()
            if incremental:
                _mark_dirty(con, aff_names, aff_mods)
            else:
                for stmt in store.INDEXES.split(";"):  # inside the transaction (executescript would commit)
                    if stmt.strip():
                        con.execute(stmt)
            stats.call_targets = _resolve(con, opts)
            timings["resolve"] = time.perf_counter() - t
            t = time.perf_counter()
            _rebuild_bm25(con, opts)
            timings["bm25"] = time.perf_counter() - t
        else:
            stats.mode = "noop"
        _count_rows(con, stats)
        stats.timings = {k: round(v, 4) for k, v in timings.items()}
        stats.seconds = round(time.perf_counter() - t0, 4)
        _write_meta(con, stats, opts, repo_dir)
        con.execute("COMMIT")
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        con.close()
        raise
    con.close()


def _sync_files(
    con: sqlite3.Connection, repo_dir: Path, opts: dict, stats: IndexStats, timings: dict[str, float],
    incremental: bool,
) -> tuple[bool, set[str], set[str]]:
    """Parse new and changed files and drop removed ones: (anything changed, names and modules
    whose edges must be re-resolved)."""
    next_sym = [(con.execute("SELECT coalesce(max(id), 0) FROM symbols").fetchone()[0] or 0) + 1]
    t = time.perf_counter()
    paths = scan(repo_dir, opts["exclude_dirs"])
    modules = module_names(paths, repo_dir.name if repo_dir.name.isidentifier() else "")
    timings["scan"] = time.perf_counter() - t
    old = {p: (i, h, m) for i, p, h, m in con.execute("SELECT id, path, sha256, module FROM files")}
    changed = False
    aff_names: set[str] = set()
    aff_mods: set[str] = set()
    t = time.perf_counter()
    for p in paths:
        try:
            data = (repo_dir / p).read_bytes()
        except OSError as exc:
            log.warning("cannot read %s: %s", p, exc)
            data = b""
        digest = hashlib.sha256(data).hexdigest()
        prev = old.pop(p, None)
        if prev is not None:
            if prev[1] == digest and prev[2] == modules[p]:
                stats.files_unchanged += 1
                continue
            _drop_file(con, prev[0], aff_names, aff_mods)
        fid, _, _ = _insert_file(con, p, data, digest, modules[p], opts, next_sym)
        if incremental:
            n, m = _affected(con, fid)
            aff_names |= n
            aff_mods |= m
        stats.files_parsed += 1
        changed = True
    for fid, _, _ in old.values():  # files that are gone
        _drop_file(con, fid, aff_names, aff_mods)
        stats.files_removed += 1
        changed = True
    timings["parse"] = time.perf_counter() - t
    return changed, aff_names, aff_mods


def _drop_file(con: sqlite3.Connection, file_id: int, aff_names: set[str], aff_mods: set[str]) -> None:
    """Delete a file's rows, first adding what it defined to the affected names and modules."""
    n, m = _affected(con, file_id)
    aff_names |= n
    aff_mods |= m
    _delete_file_rows(con, file_id)
    con.execute("DELETE FROM files WHERE id = ?", (file_id,))


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
        "options": json.dumps(opts, sort_keys=True),
        # rows in source order since the extractor sorted tree-sitter's captures (builds
        # before that are valid but not reproducible row for row)
        "row_order": "source",
        "stats": json.dumps(stats.to_dict(), sort_keys=True),
    }
    con.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", list(meta.items()))
