"""The working memory's store (swevis.agents.mechanisms.memory_store): one transaction a record, the same
key a no-op, a killed run resumed to the uninterrupted run's state, the weighted three-part
match with its empty-part rule, damaged files, the store's place, and LET's memory on it."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from swevis.agents.mechanisms.memory import WorkingMemory
from swevis.agents.mechanisms.memory_store import (
    STORE_NAME,
    ContextUnit,
    MemorySettings,
    MemoryStore,
    MemoryStoreError,
    SubQuery,
    store_path,
    weighted_similarity,
)
from swevis.agents.run.resume import ResumingRecorder
from swevis.agents.run.trajectory import StepRecorder
from swevis.agents.builtin.let_variants import variant_flags
from swevis.agents.mechanisms.memory import make_memory
from swevis.errors import InfrastructureError, SwevisError

LEXICAL = {"embedding": "lexical"}

# One run's memory traffic, as a retrieval stage makes it: at each step look a sub-query up
# (memory first, seeing only what earlier steps stored) and store it with its units on a
# miss. Run in a child process so that it can be killed for real, in the middle of a write.
PLAY = r"""
import json, os, sys
from swevis.agents.mechanisms.memory_store import ContextUnit, MemorySettings, MemoryStore, SubQuery, record_key

path, forget_from, die_in, stop_after = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
other_answer = sys.argv[5] == "other"  # the killed run's last step asked something else
QUERIES = [
    ("Where is Money.round defined", "the whole method", "find the rounding bug"),
    ("Show the definition of Money.round", "the whole method", "find the rounding bug"),
    ("How does the ledger compute an account balance", "", ""),
    ("Where are CSV rows imported into a journal", "imports of the module too", "reproduce the import failure"),
    ("How does the ledger compute the balance of an account", "", ""),
    ("Which tests cover the trial balance report", "test names and their files", "choose regression tests"),
    ("Where is Money.round defined", "the whole method", "find the rounding bug"),
    ("What does BalanceSheet._net_income return", "", "check the period bounds"),
    ("List the currency conversion helpers", "signatures only", ""),
    ("Which tests cover the trial balance report", "test names and their files", "choose regression tests"),
]
store = MemoryStore(path, MemorySettings.from_config({"embedding": "lexical"}), run="run-1")
store.forget_from_step(forget_from)
step_now = [0]
def trace(sql):  # a kill between the record's INSERT and its units' (one transaction)
    if step_now[0] == die_in and sql.startswith("INSERT INTO context_units"):
        os._exit(9)
store._con.set_trace_callback(trace)
decisions = []
for step, parts in enumerate(QUERIES):
    step_now[0] = step
    if other_answer and step == stop_after:
        parts = ("What does Journal.post validate", "", "")
    query = SubQuery(*parts)
    hit = store.lookup(query, before_step=step)
    if hit is not None:
        decisions.append(["hit", hit.record.step, round(hit.similarity, 4)])
    else:
        units = [ContextUnit(content=f"lines for {parts[0]}", kind="code", path=f"ledgerkit/m{step}.py",
                             start_line=step + 1, end_line=step + 9),
                 ContextUnit(content=f"why: {parts[2]}", kind="text")]
        rec = store.add_record(record_key("run-1", "retrieval", step, *parts), query, units,
                               stage="retrieval", source="kg", step=step)
        decisions.append(["miss", rec.id])
    if step == stop_after:
        os._exit(0)  # killed after the step's commit, before its journal line
print(json.dumps(decisions))
"""


def play(path: Path, *, forget_from: int = 0, die_in: int = -1, stop_after: int = -1, last: str = "same") -> list | None:
    args = [str(path), str(forget_from), str(die_in), str(stop_after), last]
    proc = subprocess.run([sys.executable, "-c", PLAY, *args], capture_output=True, text=True, timeout=120)
    if die_in >= 0:
        assert proc.returncode == 9, proc.stderr
        return None
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if stop_after < 0 else None


def tables(path: Path) -> dict[str, list[tuple]]:
    """The full contents of the store's tables, ids and embeddings included."""
    with sqlite3.connect(path) as con:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in ("meta", "records", "context_units")}


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    path = tmp_path_factory.mktemp("whole") / STORE_NAME
    decisions = play(path)
    return decisions, tables(path)


def test_the_play_hits_and_misses(uninterrupted):
    decisions, contents = uninterrupted
    kinds = [d[0] for d in decisions]
    assert kinds.count("hit") >= 3 and kinds.count("miss") >= 5  # repeats and paraphrases are answered
    assert decisions[6][:2] == ["hit", 0] and decisions[6][2] == 1.0  # the same sub-query: exact
    assert len(contents["records"]) == kinds.count("miss") and len(contents["context_units"]) == 2 * kinds.count("miss")


@pytest.mark.parametrize("killed", ["mid-transaction", "after-commit", "after-commit-other"])
def test_a_killed_run_resumed_reaches_the_uninterrupted_state(tmp_path, uninterrupted, killed):
    """Killed at step 5 (inside its write, or after it committed but before its journal line;
    "other": that step had asked something else, as a live model may when asked again), then
    resumed: the journal holds steps 0-4, so the run forgets its records from step 5 on and
    re-runs steps 0-9. Decisions and every table equal the uninterrupted run's."""
    path = tmp_path / STORE_NAME
    if killed == "mid-transaction":
        play(path, die_in=5)
        journal = Path(f"{path}-journal")
        assert journal.exists() and journal.stat().st_size > 0  # a hot journal: the write was cut short
    else:
        play(path, stop_after=5, last="other" if killed.endswith("other") else "same")
    with MemoryStore(path, MemorySettings.from_config(LEXICAL), run="run-1") as store:  # rolls a hot journal back
        assert all(r.units for r in store.records())  # never a record without its units
        kept = uninterrupted[0][: 5 if killed == "mid-transaction" else 6]
        assert len(store.records()) == [d[0] for d in kept].count("miss")
    decisions = play(path, forget_from=5)
    assert decisions == uninterrupted[0]
    assert tables(path) == uninterrupted[1]


def test_the_same_key_again_is_a_no_op(tmp_path):
    store = MemoryStore(tmp_path / "m.sqlite", MemorySettings.from_config(LEXICAL), run="r")
    query = SubQuery("Where is Money.round defined", "the whole method", "fix rounding")
    units = [ContextUnit(content="def round(self): ...", kind="code", path="ledgerkit/money.py", start_line=40, end_line=52)]
    first = store.add_record("k1", query, units, stage="locator", source="kg", step=3)
    again = store.add_record("k1", query, units, stage="locator", source="kg", step=3)
    assert again == first and len(store.records()) == 1 and len(tables(tmp_path / "m.sqlite")["context_units"]) == 1
    assert first.units[0].path == "ledgerkit/money.py" and (first.units[0].start_line, first.units[0].end_line) == (40, 52)
    with pytest.raises(MemoryStoreError, match="k1 was stored for another sub-query"):
        store.add_record("k1", SubQuery("something else"), units, stage="locator", source="kg", step=3)
    assert len(store.records()) == 1


def test_the_text_columns_and_float32_embeddings(tmp_path):
    path = tmp_path / "m.sqlite"
    store = MemoryStore(path, MemorySettings.from_config(LEXICAL))
    store.add_record("k", SubQuery("essential", "extra", "why"), [], stage="s", source="kg", step=0)
    with sqlite3.connect(path) as con:
        row = con.execute("SELECT essential_query, extra_requirements, purpose, essential_query_embedding, "
                          "purpose_embedding FROM records").fetchone()
        meta = dict(con.execute("SELECT key, value FROM meta"))
    assert row[:3] == ("essential", "extra", "why")
    vector = np.frombuffer(row[3], dtype="<f4")
    assert vector.shape == (2048,) and abs(float(np.linalg.norm(vector)) - 1) < 1e-5
    assert meta == {"schema_version": "1", "embedder": "lexical", "dimension": "2048"}


# ------------------------------------------------------------------ matching


def test_the_weighted_cosine_and_the_empty_part_rule():
    """cos per part from orthonormal vectors, worked out by hand; weights 0.6/0.2/0.2."""
    e = np.eye(4, dtype=np.float32)
    q = np.stack([e[0], e[1], e[2]])
    half = (e[0] + e[3]) / np.sqrt(2)  # cos 0.7071 with e[0]
    records = np.stack([
        np.stack([e[0], e[1], e[2]]),  # all three parts the same: 1
        np.stack([half, e[1], e[3]]),  # 0.6 * 0.7071 + 0.2 * 1 + 0.2 * 0 = 0.6243
        np.stack([half, e[1], e[2]]),  # 0.6 * 0.7071 + 0.4 = 0.8243
    ])
    texts = [("a", "b", "c")] * 3
    got = weighted_similarity(q, ("a", "b", "c"), records, texts, [0.6, 0.2, 0.2])
    assert np.allclose(got, [1.0, 0.6243, 0.8243], atol=1e-4)
    # empty extra and purpose on both sides drop out: the essential part alone (0.7071), not
    # 0.6 * 0.7071 + 0.4 (= 0.8243) as if two empty parts were the same
    both_empty = weighted_similarity(q, ("a", "", ""), records[1:2], [("a", "", "")], [0.6, 0.2, 0.2])
    assert np.allclose(both_empty, [0.7071], atol=1e-4)
    # empty on one side only: that part scores 0 (0.6 * 0.7071 + 0.2 * 1) / 1
    one_side = weighted_similarity(q, ("a", "b", "c"), records[2:3], [("a", "b", "")], [0.6, 0.2, 0.2])
    assert np.allclose(one_side, [0.6 * 0.7071 + 0.2], atol=1e-4)
    # only the purpose dropped: (0.6 * 0.7071 + 0.2 * 1) / 0.8
    purpose_empty = weighted_similarity(q, ("a", "b", ""), records[2:3], [("a", "b", "")], [0.6, 0.2, 0.2])
    assert np.allclose(purpose_empty, [(0.6 * 0.7071 + 0.2) / 0.8], atol=1e-4)


def test_lookup_uses_all_three_parts_and_the_configured_threshold(tmp_path):
    store = MemoryStore(tmp_path / "m.sqlite", MemorySettings.from_config({**LEXICAL, "threshold": 0.75}))
    stored = SubQuery("Where is the end date of the balance filter compared", "the comparison line and its function",
                      "find why the end date is excluded")
    store.add_record("a", stored, [ContextUnit(content="if d < end:", kind="code", path="ledgerkit/ledger.py",
                                               start_line=88, end_line=88)], stage="retrieval", source="kg", step=0)
    same_intent = SubQuery("Where is the balance filter's end date compared", "the comparison line and its function",
                           "find why the end date is excluded")
    hit = store.lookup(same_intent)
    assert hit is not None and not hit.exact and 0.75 <= hit.similarity < 1 and hit.record.units[0].start_line == 88
    other_needs = SubQuery(same_intent.essential_query, "every test that calls it", "choose regression tests")
    worse = store.best_match(other_needs)
    assert worse is not None and worse.similarity < hit.similarity - 0.2  # extra and purpose count
    assert store.lookup(other_needs) is None
    assert store.lookup(SubQuery("How are yen amounts rounded")) is None
    exact = store.lookup(stored)
    assert exact is not None and exact.exact and exact.similarity == 1.0
    strict = MemoryStore(tmp_path / "m.sqlite", MemorySettings.from_config({**LEXICAL, "threshold": 0.99}))
    assert strict.lookup(same_intent) is None and strict.lookup(stored) is not None
    weights = MemorySettings.from_config({**LEXICAL, "weights": {"essential": 1, "extra": 0, "purpose": 0}})
    essential_only = MemoryStore(tmp_path / "m.sqlite", weights).best_match(other_needs)
    assert essential_only is not None and essential_only.similarity == pytest.approx(hit.similarity, abs=0.2)
    assert essential_only.similarity > worse.similarity + 0.2


def test_a_run_sees_its_own_records_only_from_earlier_steps_and_every_other_runs(tmp_path):
    path = tmp_path / "shared.sqlite"
    settings = MemorySettings.from_config(LEXICAL)
    a = MemoryStore(path, settings, run="a")
    query = SubQuery("Where is Money.round defined")
    a.add_record("a-7", query, [], stage="s", source="kg", step=7)
    assert a.lookup(query, before_step=7) is None and a.lookup(query, before_step=8) is not None
    b = MemoryStore(path, settings, run="b")
    assert b.lookup(query, before_step=0) is not None  # another run's record, whatever its step
    b.add_record("b-0", SubQuery("How is a balance computed"), [], stage="s", source="kg", step=0)
    assert b.forget_from_step(0) == 1 and [r.run for r in a.records()] == ["a"]  # b forgets its own only
    assert a.lookup(query, source="other tool") is None


def test_the_embedder_of_the_stored_vectors_is_checked(tmp_path, monkeypatch):
    path = tmp_path / "m.sqlite"
    MemoryStore(path, MemorySettings.from_config(LEXICAL)).add_record(
        "k", SubQuery("q"), [], stage="s", source="kg", step=0)
    other = SimpleNamespace(name="another model", key="another", encode=lambda texts: np.ones((len(texts), 8), np.float32))
    monkeypatch.setattr("swevis.agents.mechanisms.memory_store.load_embedder", lambda *a: other)
    with pytest.raises(MemoryStoreError, match=r"vectors come from lexical \(2048 dimensions\), this run embeds with another model \(8\)"):
        MemoryStore(path, MemorySettings.from_config(LEXICAL)).lookup(SubQuery("q2"))


def test_a_store_locked_by_another_run_past_the_timeout_is_the_machinery(tmp_path, monkeypatch):
    monkeypatch.setattr("swevis.agents.mechanisms.memory_store.BUSY_TIMEOUT_S", 0.2)
    path = tmp_path / "shared.sqlite"
    store = MemoryStore(path, MemorySettings.from_config({**LEXICAL, "semantic": False}), run="a")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another run in the middle of its write
    with pytest.raises(InfrastructureError, match=f"memory store {path}: database is locked after 0.2 s"):
        store.add_record("k", SubQuery("q"), [], stage="s", source="kg", step=0)
    other.execute("ROLLBACK")
    assert store.add_record("k", SubQuery("q"), [], stage="s", source="kg", step=0).id == 1


# ------------------------------------------------------------------ damaged files


def _one_line_naming(exc: pytest.ExceptionInfo, path: Path) -> str:
    message = str(exc.value)
    assert isinstance(exc.value, SwevisError) and "\n" not in message and str(path) in message
    return message


def test_a_file_that_is_not_sqlite(tmp_path):
    path = tmp_path / "memory.sqlite"
    path.write_text("records\n" * 200)
    with pytest.raises(MemoryStoreError) as exc:
        MemoryStore(path, MemorySettings.from_config(LEXICAL))
    assert "file is not a database" in _one_line_naming(exc, path)


def test_another_schema_version(tmp_path):
    path = tmp_path / "memory.sqlite"
    MemoryStore(path, MemorySettings.from_config(LEXICAL)).close()
    with sqlite3.connect(path) as con:
        con.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    with pytest.raises(MemoryStoreError) as exc:
        MemoryStore(path, MemorySettings.from_config(LEXICAL))
    assert "schema version 0, this swevis reads 1" in _one_line_naming(exc, path)


def test_another_sqlite_database(tmp_path):
    path = tmp_path / "index.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE files(id INTEGER PRIMARY KEY)")
    with pytest.raises(MemoryStoreError) as exc:
        MemoryStore(path, MemorySettings.from_config(LEXICAL))
    assert "not a memory store (tables files)" in _one_line_naming(exc, path)


@pytest.mark.parametrize("keep", [0.5, 0.1])
def test_a_truncated_store(tmp_path, keep):
    path = tmp_path / "memory.sqlite"
    with MemoryStore(path, MemorySettings.from_config(LEXICAL)) as store:
        for i in range(40):
            store.add_record(f"k{i}", SubQuery(f"where is f{i} defined"), [ContextUnit(content="x" * 3000, kind="code")],
                             stage="s", source="kg", step=i)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(MemoryStoreError) as exc:
        MemoryStore(path, MemorySettings.from_config(LEXICAL))
    assert "malformed" in _one_line_naming(exc, path)


# ------------------------------------------------------------------ where it lives


def test_the_store_path_is_the_run_folder_unless_shared(tmp_path):
    own = MemorySettings.from_config({})
    assert own.share_across_instances is False  # the schema's default: never shared
    out = tmp_path / "runs" / "q" / "let-mem-normal" / "text" / "o__r-1"
    assert store_path(out, own, repo="o/r", commit="c" * 40) == out / "memory.sqlite"
    shared = MemorySettings.from_config({"share_across_instances": True, "shared_dir": str(tmp_path / "mem")})
    assert store_path(out, shared, repo="o/r", commit="c" * 40) == tmp_path / "mem" / f"o__r@{'c' * 40}.sqlite"
    with pytest.raises(SwevisError, match="weights"):
        MemorySettings.from_config({"weights": {"essential": 0, "extra": 0, "purpose": 0}})


def _spec(out: Path, memory: dict | None = None) -> SimpleNamespace:
    row = {"instance_id": "o__r-1", "repo": "o/r", "base_commit": "c" * 40, "problem_statement": "dates are exclusive"}
    return SimpleNamespace(out_dir=str(out), row=row, model_name="q", agent="let-mem", scope="normal",
                           condition="text", repeat=0, agents_cfg={"memory": {**LEXICAL, **(memory or {})}})


def test_let_memory_lives_in_the_run_folder_and_a_resumed_run_keeps_its_journaled_steps(tmp_path):
    spec = _spec(tmp_path / "out")
    flags = variant_flags("let-mem", {"variants": {"let-mem": {"memory": True}}})
    out = {"output": "== files\n1. ledgerkit/ledger.py", "returncode": 0}
    mem = make_memory(flags.memory, "dates are exclusive", spec.agents_cfg, spec=spec, recorder=StepRecorder(None))
    assert mem.store.path == str(tmp_path / "out" / "memory.sqlite") and mem.run == "q/let-mem-normal/text/o__r-1"
    for step, query in enumerate(["inclusive end date", "balance as of", "csv import"]):
        mem.store_query("localize_issue", query, "locator", step, out)
    mem.store.close()
    resumed = make_memory(flags.memory, "dates are exclusive", spec.agents_cfg, spec=spec, recorder=ResumingRecorder(None, [{}, {}]))
    assert [r.query for r in resumed.records] == ["inclusive end date", "balance as of"]  # step 2 was not journaled
    # re-running step 0 from the journal sees nothing stored at or after step 0; step 2 sees steps 0 and 1
    assert resumed.lookup_query("localize_issue", "inclusive end date", "locator", step=0)[0] == "miss"
    assert resumed.lookup_query("localize_issue", "balance as of", "editor", step=2)[0] == "exact"
    resumed.store.close()
    fresh = make_memory(flags.memory, "dates are exclusive", spec.agents_cfg, spec=spec, recorder=StepRecorder(None))
    assert fresh.records == [] and fresh.units == []  # a fresh run starts with an empty memory


def test_in_memory_without_a_path():
    mem = WorkingMemory(LEXICAL)
    assert mem.store.path == ":memory:"
    mem.store_query("pack_context", "Ledger.balance", "locator", 0, {"output": "x", "returncode": 0, "extra": {"windows": [
        {"path": "ledgerkit/ledger.py", "start": 10, "end": 12, "text": "a\nb\nc", "symbols": []}]}})
    assert [u.kind for u in mem.units] == ["answer", "window"] and len(mem.records) == 1
