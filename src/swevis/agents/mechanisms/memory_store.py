"""The working memory's store (after Prometheus, seeds/prometheus-summary.md §2.2.2): records
of sub-queries, each with the context units that answered it, in one SQLite file.

A *record* is a sub-query in three parts (``essential_query``, ``extra_requirements``,
``purpose``), each kept as text and as a float32 embedding, with the stage that asked it,
the tool or source that answered it, the step it was made at and the run that made it. Its
*context units* (path, lines, content, kind) are the evidence it returned. A record and its
units are written in one transaction under an idempotency key: writing the same key again
is a no-op that returns the stored record, so a resumed run, which re-runs its journal's
steps, reaches the same memory state, never a duplicate.

Lookup is memory first: a record whose three texts equal the sub-query's is an exact match
(similarity 1); otherwise every record with embeddings is scored by the weighted cosine
``sum_i w_i cos(q_i, r_i) / sum_i w_i`` over the three parts (config ``agents.memory``:
``weights``, ``threshold``) and the best one at or above the threshold answers. An empty
part on both sides says nothing about either: it drops out and the other parts' weights are
renormalised (``cos = 1`` would make every pair of short sub-queries look alike in that
part, lowering the threshold for exactly those). A part empty on one side only scores 0.

Visibility: a run sees every record of other runs, and its own records made before the
step it asks at, so a step re-run from the journal sees exactly what it saw the first time.
On start a run forgets its own records from steps its journal does not hold (a fresh run: all of them).

The file uses SQLite's rollback journal (``journal_mode=DELETE``, ``synchronous=FULL``), not
WAL: a committed record survives a kill and an interrupted transaction rolls back on the next
open; the file is self-contained whenever no transaction is open (a results folder moves
between machines, and WAL's ``-wal``/``-shm`` companions would have to move with it); and
rollback locking works on the network file systems a cluster's results folder may live on,
where WAL's shared memory does not. Writes are one per tool call, so WAL's faster commits buy
nothing here. A damaged file (not SQLite, another schema version, truncated) is a one-line
:class:`MemoryStoreError` naming it.

By default the store is the run's own (``memory.sqlite`` in the run folder); with
``agents.memory.share_across_instances`` every run on the same repository@commit shares one
file under ``agents.memory.shared_dir`` (as Prometheus's memory service is keyed by
repository), and what a run finds then depends on which runs came before it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from swevis.agents.mechanisms.embedding import Embedder, load_embedder
from swevis.config import filled_section
from swevis.errors import InfrastructureError, SwevisError
from swevis.paths import repo_slug
from swevis.redaction import redact, redact_data

SCHEMA_VERSION = "1"
STORE_NAME = "memory.sqlite"  # the run's own store, in its run folder
PARTS = ("essential_query", "extra_requirements", "purpose")
WEIGHT_KEYS = ("essential", "extra", "purpose")  # config agents.memory.weights, in PARTS' order
BUSY_TIMEOUT_S = 30.0  # a shared store: wait this long for another run's write

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE records (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    run TEXT NOT NULL,
    stage TEXT NOT NULL,
    source TEXT NOT NULL,
    essential_query TEXT NOT NULL,
    extra_requirements TEXT NOT NULL,
    purpose TEXT NOT NULL,
    essential_query_embedding BLOB,
    extra_requirements_embedding BLOB,
    purpose_embedding BLOB,
    answer TEXT,
    created_step INTEGER NOT NULL,
    CHECK ((essential_query_embedding IS NULL) = (extra_requirements_embedding IS NULL)
           AND (essential_query_embedding IS NULL) = (purpose_embedding IS NULL))
);
CREATE INDEX records_source ON records(source, essential_query);
CREATE INDEX records_run ON records(run, created_step);
CREATE TABLE context_units (
    id INTEGER PRIMARY KEY,
    record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    path TEXT,
    start_line INTEGER,
    end_line INTEGER,
    content TEXT NOT NULL,
    kind TEXT NOT NULL
);
CREATE INDEX context_units_record ON context_units(record_id);
"""
TABLES = ("meta", "records", "context_units")


class MemoryStoreError(SwevisError):
    """A memory store that cannot be used: not SQLite, another schema, damaged, or a key reused."""


@dataclass(frozen=True)
class MemorySettings:
    """Config ``agents.memory`` (with a variant's ``memory_options`` over it), typed."""

    weights: dict[str, float]
    threshold: float
    embedding: str  # minilm | lexical
    embedding_model_dir: str | None
    semantic: bool
    share_across_instances: bool
    shared_dir: str

    @classmethod
    def from_config(cls, options: dict[str, Any] | None) -> MemorySettings:
        """Filled through the schema; partial weights keep the schema's other weights."""
        given = dict(options or {})
        filled = filled_section("agents", {"memory": given})["memory"]
        weights = {**filled_section("agents", {"memory": {}})["memory"]["weights"], **(given.get("weights") or {})}
        if sum(float(weights[k]) for k in WEIGHT_KEYS) <= 0:
            raise SwevisError("config key 'agents/memory/weights': at least one weight must be positive")
        return cls(
            weights={k: float(weights[k]) for k in WEIGHT_KEYS},
            threshold=float(filled["threshold"]),
            embedding=str(filled["embedding"]),
            embedding_model_dir=filled["embedding_model_dir"],
            semantic=bool(filled["semantic"]),
            share_across_instances=bool(filled["share_across_instances"]),
            shared_dir=str(filled["shared_dir"]),
        )


def store_path(out_dir: str | Path, settings: MemorySettings, *, repo: str, commit: str) -> Path:
    """Where a run's memory lives: ``memory.sqlite`` in its run folder, or, with
    ``share_across_instances``, ``<shared_dir>/<owner>__<name>@<commit>.sqlite``, one file per
    repository@commit shared by every run on it."""
    if not settings.share_across_instances:
        return Path(out_dir) / STORE_NAME
    return Path(settings.shared_dir) / f"{repo_slug(repo)}@{commit}.sqlite"


def record_key(*parts: Any) -> str:
    """An idempotency key from what identifies a write (run, stage, step, source, query...)."""
    return hashlib.sha256(json.dumps([str(p) for p in parts]).encode()).hexdigest()


@dataclass(frozen=True)
class SubQuery:
    """A sub-query in Prometheus's three parts (extra requirements and purpose may be empty)."""

    essential_query: str
    extra_requirements: str = ""
    purpose: str = ""

    def texts(self) -> tuple[str, str, str]:
        return self.essential_query, self.extra_requirements, self.purpose


@dataclass(frozen=True)
class ContextUnit:
    """A piece of evidence: code lines of a file (path, 1-based inclusive lines) or a text."""

    content: str
    kind: str  # e.g. code | window | answer | text
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    id: int | None = None  # set once stored
    record_id: int | None = None


@dataclass(frozen=True)
class MemoryRecord:
    id: int
    key: str
    run: str
    stage: str
    source: str
    query: SubQuery
    step: int
    answer: Any  # the source's answer as JSON data, when it is more than its units (or None)
    units: tuple[ContextUnit, ...]


@dataclass(frozen=True)
class MemoryMatch:
    record: MemoryRecord
    similarity: float
    exact: bool  # the three texts are equal


def _vector_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def weighted_similarity(query_vectors: np.ndarray, query_texts: Sequence[str], record_vectors: np.ndarray,
                        record_texts: Sequence[Sequence[str]], weights: Sequence[float]) -> np.ndarray:
    """The weighted cosine of one sub-query (3, d) against n records (n, 3, d), with the
    empty-part rule of the module doc: a part empty on both sides drops out (the other weights
    renormalised), a part empty on one side scores 0. Vectors are L2-normalised. (n,) floats."""
    q_empty = np.array([not t.strip() for t in query_texts])
    r_empty = np.array([[not t.strip() for t in row] for row in record_texts], dtype=bool).reshape(-1, 3)
    cos = np.einsum("nkd,kd->nk", record_vectors.astype(np.float32), query_vectors.astype(np.float32)).astype(np.float64)
    cos = np.where(q_empty[None, :] | r_empty, 0.0, cos)
    counted = np.asarray(weights, dtype=np.float64)[None, :] * ~(q_empty[None, :] & r_empty)
    total = counted.sum(axis=1)
    score = (counted * cos).sum(axis=1) / np.where(total > 0, total, 1.0)
    return np.where(total > 0, score, 1.0)  # every part empty on both sides: the same (empty) query


class MemoryStore:
    """The working memory's records and context units in one SQLite file (module doc).

    ``path`` is a file (created with its folders) or ``":memory:"``; ``run`` names the run
    writing through this connection (its records' owner, see the module doc's visibility)."""

    def __init__(self, path: str | Path, settings: MemorySettings, *, run: str = "run"):
        self.path = str(path)
        self.settings = settings
        self.run = run
        self._embedder: Embedder | None = None
        self._con = self._open()

    # ------------------------------------------------------------ opening
    def _fail(self, what: str) -> MemoryStoreError:
        return MemoryStoreError(f"memory store {self.path}: {what}")

    def _sqlite_error(self, exc: sqlite3.DatabaseError, what: str = "") -> SwevisError:
        """SQLite's error as one line naming the file: another run holding the lock past the
        timeout is the machinery (a shared store), anything else the file."""
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc)):
            return InfrastructureError(f"memory store {self.path}: {exc} after {BUSY_TIMEOUT_S:g} s")
        return self._fail(what.format(exc=exc) if what else str(exc))

    def _open(self) -> sqlite3.Connection:
        existed = self.path != ":memory:" and Path(self.path).exists() and Path(self.path).stat().st_size > 0
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        try:
            con.execute("PRAGMA foreign_keys = ON")
            if self.path != ":memory:":
                con.execute("PRAGMA journal_mode = DELETE")
                con.execute("PRAGMA synchronous = FULL")
            if existed:
                problems = [r[0] for r in con.execute("PRAGMA quick_check(3)")]
                if problems != ["ok"]:
                    raise self._fail(f"damaged ({'; '.join(problems)}); delete it to start the memory afresh")
            self._create_or_check(con)
        except sqlite3.DatabaseError as exc:
            con.close()
            raise self._sqlite_error(exc, "not a readable memory store ({exc}); delete it to start the memory afresh") from None
        except MemoryStoreError:
            con.close()
            raise
        return con

    def _create_or_check(self, con: sqlite3.Connection) -> None:
        con.execute("BEGIN IMMEDIATE")  # two runs opening a new shared store: one creates it
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables:
                for statement in SCHEMA.split(";"):  # one by one: executescript would commit
                    if statement.strip():
                        con.execute(statement)
                con.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            elif not set(TABLES) <= tables:
                raise self._fail(f"not a memory store (tables {', '.join(sorted(tables))})")
            else:
                row = con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                if row is None or row[0] != SCHEMA_VERSION:
                    found = row[0] if row else "none"
                    raise self._fail(f"schema version {found}, this swevis reads {SCHEMA_VERSION}; delete it to start afresh")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @contextmanager
    def _transaction(self, immediate: bool = False) -> Iterator[sqlite3.Connection]:
        """One transaction (a write takes the lock up front: no other writer between its read
        and its write); SQLite errors become one line naming the file."""
        try:
            self._con.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
            try:
                yield self._con
            except BaseException:
                self._con.execute("ROLLBACK")
                raise
            self._con.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            raise self._sqlite_error(exc) from None

    # ------------------------------------------------------------ embeddings
    @property
    def embedder_name(self) -> str | None:
        """The embedder's name once it is loaded (it is loaded only when a part is embedded)."""
        return self._embedder.name if self._embedder is not None else None

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._embedder is None:
            embedder = load_embedder(self.settings.embedding, self.settings.embedding_model_dir)
            self._check_embedder(embedder.key, str(embedder.encode([""]).shape[1]), embedder.name)
            self._embedder = embedder
        return self._embedder.encode(list(texts))

    def _check_embedder(self, key: str, dimension: str, name: str) -> None:
        """The store's vectors come from one embedder: record it (meta `embedder`,
        `dimension`), or refuse another one while vectors of the first are stored."""
        with self._transaction(immediate=True) as con:
            meta = dict(con.execute("SELECT key, value FROM meta WHERE key IN ('embedder', 'dimension')"))
            embedded = con.execute("SELECT 1 FROM records WHERE essential_query_embedding IS NOT NULL LIMIT 1").fetchone()
            if meta and (meta.get("embedder"), meta.get("dimension")) != (key, dimension) and embedded is not None:
                raise self._fail(
                    f"its vectors come from {meta.get('embedder')} ({meta.get('dimension')} dimensions), this run "
                    f"embeds with {name} ({dimension}); set agents.memory.embedding as it was, or delete the file"
                )
            con.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder', ?)", (key,))
            con.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('dimension', ?)", (dimension,))

    # ------------------------------------------------------------ writing
    def add_record(self, key: str, query: SubQuery, units: Sequence[ContextUnit], *, stage: str, source: str,
                   step: int, answer: Any = None, embed: bool = True) -> MemoryRecord:
        """Store a record and its units in one transaction and return it; a key stored before
        is a no-op returning the stored record (it must be the same sub-query). `embed`
        (with config ``semantic``) stores the three parts' embeddings for semantic lookup."""
        query = SubQuery(*(redact(t) for t in query.texts()))
        vectors = self._embed(query.texts()) if embed and self.settings.semantic else None
        with self._transaction(immediate=True) as con:
            row = con.execute("SELECT id, stage, source, essential_query, extra_requirements, purpose FROM records "
                              "WHERE key = ?", (key,)).fetchone()
            if row is not None:
                if tuple(row[1:]) != (stage, source, *query.texts()):
                    raise self._fail(f"key {key} was stored for another sub-query ({row[1]}/{row[2]}: {row[3]!r})")
                return self._load(con, row[0])
            blobs = [None] * 3 if vectors is None else [_vector_blob(v) for v in vectors]
            cur = con.execute(
                "INSERT INTO records(key, run, stage, source, essential_query, extra_requirements, purpose, "
                "essential_query_embedding, extra_requirements_embedding, purpose_embedding, answer, created_step) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, self.run, stage, source, *query.texts(), *blobs,
                 None if answer is None else json.dumps(redact_data(answer), sort_keys=True), int(step)),
            )
            con.executemany(
                "INSERT INTO context_units(record_id, path, start_line, end_line, content, kind) VALUES (?, ?, ?, ?, ?, ?)",
                [(cur.lastrowid, u.path, u.start_line, u.end_line, redact(u.content), u.kind) for u in units],
            )
            return self._load(con, cur.lastrowid)

    def forget_from_step(self, step: int) -> int:
        """Delete this run's records made at `step` or later (with their units): on start, what
        the journal does not hold (0 for a fresh run). Returns how many."""
        with self._transaction(immediate=True) as con:
            return con.execute("DELETE FROM records WHERE run = ? AND created_step >= ?", (self.run, int(step))).rowcount

    # ------------------------------------------------------------ reading
    def _load(self, con: sqlite3.Connection, record_id: int) -> MemoryRecord:
        row = con.execute(
            "SELECT id, key, run, stage, source, essential_query, extra_requirements, purpose, created_step, answer "
            "FROM records WHERE id = ?", (record_id,),
        ).fetchone()
        units = tuple(
            ContextUnit(content=u[4], kind=u[5], path=u[1], start_line=u[2], end_line=u[3], id=u[0], record_id=record_id)
            for u in con.execute("SELECT id, path, start_line, end_line, content, kind FROM context_units "
                                 "WHERE record_id = ? ORDER BY id", (record_id,))
        )
        return MemoryRecord(
            id=row[0], key=row[1], run=row[2], stage=row[3], source=row[4], query=SubQuery(row[5], row[6], row[7]),
            step=row[8], answer=None if row[9] is None else json.loads(row[9]), units=units,
        )

    def _visible(self, source: str | None, before_step: int | None) -> tuple[str, list[Any]]:
        """The WHERE clause of the records a lookup may see (module doc: visibility)."""
        clauses, args = ["1"], []
        if source is not None:
            clauses.append("source = ?")
            args.append(source)
        if before_step is not None:
            clauses.append("(run != ? OR created_step < ?)")
            args += [self.run, int(before_step)]
        return " AND ".join(clauses), args

    def first_with_query(self, essential_query: str, *, source: str | None = None,
                         before_step: int | None = None) -> MemoryRecord | None:
        """The first record whose essential query is exactly this one (the other parts aside)."""
        where, args = self._visible(source, before_step)
        with self._transaction() as con:
            row = con.execute(f"SELECT id FROM records WHERE {where} AND essential_query = ? ORDER BY id LIMIT 1",
                              [*args, redact(essential_query)]).fetchone()
            return None if row is None else self._load(con, row[0])

    def best_match(self, query: SubQuery, *, source: str | None = None,
                   before_step: int | None = None) -> MemoryMatch | None:
        """The visible record most like `query`, at any similarity: an exact one (the three
        texts equal) first, else the highest weighted cosine (the first of equals), or None
        when no record can be compared (none visible, or none embedded). The embedder is
        loaded only when there is a record to compare with."""
        query = SubQuery(*(redact(t) for t in query.texts()))
        where, args = self._visible(source, before_step)
        with self._transaction() as con:
            row = con.execute(
                f"SELECT id FROM records WHERE {where} AND essential_query = ? AND extra_requirements = ? AND purpose = ? "
                "ORDER BY id LIMIT 1", [*args, *query.texts()],
            ).fetchone()
            if row is not None:
                return MemoryMatch(self._load(con, row[0]), 1.0, True)
            rows = [] if not self.settings.semantic else con.execute(
                f"SELECT id, essential_query, extra_requirements, purpose, essential_query_embedding, "
                f"extra_requirements_embedding, purpose_embedding FROM records "
                f"WHERE {where} AND essential_query_embedding IS NOT NULL ORDER BY id", args,
            ).fetchall()
        if not rows:
            return None
        q = self._embed(query.texts())
        r = np.stack([np.stack([np.frombuffer(b, dtype="<f4") for b in row[4:7]]) for row in rows])
        if r.shape[-1] != q.shape[-1]:
            raise self._fail(f"its vectors have {r.shape[-1]} dimensions, this run's embedder {q.shape[-1]}")
        weights = [self.settings.weights[k] for k in WEIGHT_KEYS]
        scores = weighted_similarity(q, query.texts(), r, [row[1:4] for row in rows], weights)
        best = int(np.argmax(scores))
        with self._transaction() as con:
            if con.execute("SELECT 1 FROM records WHERE id = ?", (rows[best][0],)).fetchone() is None:
                return None  # forgotten meanwhile by the run that made it (a shared store)
            return MemoryMatch(self._load(con, rows[best][0]), float(scores[best]), False)

    def lookup(self, query: SubQuery, *, source: str | None = None, before_step: int | None = None) -> MemoryMatch | None:
        """Memory first: the best visible record at or above the threshold, with its units, or None."""
        match = self.best_match(query, source=source, before_step=before_step)
        return match if match is not None and match.similarity >= self.settings.threshold else None

    def records(self, sources: Sequence[str] | None = None, *, run: str | None = None) -> list[MemoryRecord]:
        """Every record (of these sources; of this run), in the order they were stored."""
        with self._transaction() as con:
            ids = [
                r[0] for r in con.execute("SELECT id, source, run FROM records ORDER BY id")
                if (sources is None or r[1] in sources) and (run is None or r[2] == run)
            ]
            return [self._load(con, i) for i in ids]
