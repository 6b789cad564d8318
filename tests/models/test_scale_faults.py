"""Model-side faults against the scripted server on 127.0.0.1: an error every n-th request,
slow responses (one past the request timeout), truncated JSON -- the trajectory completes
with exact accounting -- and spend caps that stop a runaway cleanly (exit status cost_limit),
per trajectory and per condition through a shared, locked ledger."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest
from helpers import money_turns

from swevis.agents.run.runner import RunSpec, prelocalize_run, run_instance
from swevis.index import build_index
from swevis.models.spend import CostLimitExceeded, Spend, SpendCaps, SpendLedger
from swevis.tasks.bundled import load_bundled_instances
from swevis.tasks.repos import checkout_instance, ensure_mirror
from scripted_server import Fail, Reply, ScriptedServer, Truncate, assistant_turns, auto_usage

IID = "swevis-samples__ledgerkit-117"
KEY_ENV = "SWEVIS_FAULTS_TEST_KEY"


TURNS = money_turns("X = 1")


def turn_for(request) -> str:
    return TURNS[min(assistant_turns(request), len(TURNS) - 1)]


def profile(server, **over):
    return {
        "backend": "openai", "base_url": server.base_url, "model_id": "live-model", "api_key_env": KEY_ENV,
        "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 3, "retry_backoff_s": 0.01,
        "retry_backoff_max_s": 0.05, "request_timeout_s": 10, **over,
    }


def spec(row, mirror, tmp: Path, prof: dict, *, name="out", cfg=None, instance_dir=None) -> RunSpec:
    d = tmp / (instance_dir or name)
    return RunSpec(
        "live", prof, "mini", "normal", "text", row, mirror, str(d / "out"),
        agents_cfg={"environment": "local", "allow_live_on_host": True, **(cfg or {})},
        journal_path=str(d / "journal.jsonl"), workspace=str(d / "ws"), ledger_path=str(tmp / "ledger.json"),
    )


@pytest.mark.slow
def test_errors_slow_and_truncated_responses_complete_with_exact_accounting(instance, tmp_path, monkeypatch):
    """Request i (0-based): i % 3 == 1 -> HTTP 503 (retried by the client), i % 7 == 2 -> a
    body cut short (retried by us), i == 5 -> held until the client gave up on it and asked
    again (past the request timeout), otherwise a reply delayed 0.1 s. Only the replies the
    client kept are billed."""
    row, mirror = instance
    monkeypatch.setenv(KEY_ENV, "sk-faults")
    # turn -> (request index, usage) of the last intact reply for that turn: the client asks a
    # turn again until a reply reaches it, so the last one is the one it kept, even when the
    # machine is so loaded that a plain reply, too, outlasts the timeout
    kept = {}

    def respond(i, request):
        if i % 3 == 1:
            return Fail(503, "overloaded")
        if i % 7 == 2:
            return Truncate(turn_for(request), keep=0.6)
        if i == 5:
            return Reply(turn_for(request), held=True)  # sent only after the client's retry arrived
        kept[assistant_turns(request)] = (i, auto_usage(request.body, turn_for(request)))
        return Reply(turn_for(request), delay=0.1)

    with ScriptedServer(responder=respond) as server:
        traj = run_instance(spec(row, mirror, tmp_path, profile(server, request_timeout_s=2)))
        http = len(server.chat_requests)
    assert traj["exit_status"] == "submitted", traj["error"]
    assert [s["action"] for s in traj["steps"]] == [t.split("\n")[3] for t in TURNS]
    assert traj["totals"]["calls"] == 5 and http > 5  # faults cost requests, not steps
    # the timed-out reply (i == 5) was sent but never read: the client asked its turn again
    assert server.chat_requests[6].body["messages"] == server.chat_requests[5].body["messages"]
    delivered = [u for i, u in kept.values() if i != 5]
    assert len(kept) == 5 and len(delivered) == 5
    assert traj["totals"]["prompt_tokens"] == sum(u["prompt_tokens"] for u in delivered)
    assert traj["totals"]["completion_tokens"] == sum(u["completion_tokens"] for u in delivered)
    assert all(s["usage"]["source"] == "server" for s in traj["steps"])
    ledger = json.loads((tmp_path / "ledger.json").read_text())
    assert ledger["total"]["calls"] == 5
    assert ledger["total"]["prompt_tokens"] == traj["totals"]["prompt_tokens"]
    print(f"\nFAULTS: {http} HTTP requests for 5 steps; billed {traj['totals']['prompt_tokens']} prompt tokens")


@pytest.mark.slow
def test_trajectory_call_cap_stops_cleanly_and_a_raised_cap_continues(instance, tmp_path, monkeypatch):
    row, mirror = instance
    monkeypatch.setenv(KEY_ENV, "sk-faults")
    with ScriptedServer(responder=lambda i, r: Reply(turn_for(r))) as server:
        capped = run_instance(spec(row, mirror, tmp_path, profile(server), cfg={"max_trajectory_calls": 2}))
        assert capped["exit_status"] == "cost_limit"
        assert "max_trajectory_calls=2" in capped["error"]
        assert len(server.chat_requests) == 2 and len(capped["steps"]) == 2
        assert (tmp_path / "out" / "out" / "traj.json").exists()
        assert Path(tmp_path / "out" / "journal.jsonl").exists()  # kept: a raised cap continues
        more = run_instance(spec(row, mirror, tmp_path, profile(server), cfg={"max_trajectory_calls": 10}))
        assert more["exit_status"] == "submitted" and len(more["steps"]) == 5
        assert len(server.chat_requests) == 5  # the first two steps were not paid again
        assert more["provenance"]["resume"]["resumed_steps"] == 2


@pytest.mark.slow
def test_trajectory_cost_and_token_caps(instance, tmp_path, monkeypatch):
    row, mirror = instance
    monkeypatch.setenv(KEY_ENV, "sk-faults")
    priced = {"cost_per_1k_prompt": 2.0, "cost_per_1k_completion": 8.0}
    with ScriptedServer(responder=lambda i, r: Reply(turn_for(r))) as server:
        full = run_instance(spec(row, mirror, tmp_path, profile(server, **priced), name="full"))
        steps_cost = [s["usage"]["prompt_tokens"] * 2.0 / 1000 + s["usage"]["completion_tokens"] * 8.0 / 1000
                      for s in full["steps"]]
        assert full["totals"]["cost"] == pytest.approx(sum(steps_cost))
        cap = sum(steps_cost[:3]) + 0.0001  # room for three calls, not a fourth
        cost = run_instance(spec(row, mirror, tmp_path, profile(server, **priced), name="cost",
                                 cfg={"max_trajectory_cost": cap}))
        assert cost["exit_status"] == "cost_limit" and "max_trajectory_cost" in cost["error"]
        # the check uses the prompt's estimate, so it may stop one call earlier; never over the cap
        assert 2 <= len(cost["steps"]) <= 3 and cost["totals"]["cost"] <= cap
        tok_cap = sum(s["usage"]["total_tokens"] for s in full["steps"][:2]) + 10
        tokens = run_instance(spec(row, mirror, tmp_path, profile(server), name="tok",
                                   cfg={"max_trajectory_tokens": tok_cap}))
        assert tokens["exit_status"] == "cost_limit" and "max_trajectory_tokens" in tokens["error"]
        assert 1 <= len(tokens["steps"]) <= 2
        assert tokens["totals"]["prompt_tokens"] + tokens["totals"]["completion_tokens"] <= tok_cap


@pytest.mark.slow
def test_condition_cap_through_the_shared_ledger(instance, tmp_path, monkeypatch):
    """Two jobs of one condition share the ledger: the first spends 5 calls, the second may
    spend 2 more under max_condition_calls: 7, then stops with cost_limit."""
    row, mirror = instance
    monkeypatch.setenv(KEY_ENV, "sk-faults")
    cfg = {"max_condition_calls": 7}
    with ScriptedServer(responder=lambda i, r: Reply(turn_for(r))) as server:
        a = run_instance(spec(row, mirror, tmp_path, profile(server), instance_dir="a", cfg=cfg))
        b = run_instance(spec(row, mirror, tmp_path, profile(server), instance_dir="b", cfg=cfg))
        assert len(server.chat_requests) == 7
    assert a["exit_status"] == "submitted"
    assert b["exit_status"] == "cost_limit" and "condition spend cap agents.max_condition_calls=7" in b["error"]
    ledger = json.loads((tmp_path / "ledger.json").read_text())
    assert ledger["total"]["calls"] == 7 and ledger["by_instance"][IID]["calls"] == 7


def _add_many(path: str, n: int) -> None:
    ledger = SpendLedger(path)
    for _ in range(n):
        ledger.add(Spend(1, 10, 2, 0.5), "x")


def test_ledger_is_exact_under_concurrent_writers(tmp_path):
    path = str(tmp_path / "l" / "ledger.json")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_add_many, args=(path, 40)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    total = SpendLedger(path).read()
    assert total == Spend(160, 1600, 320, 80.0)


def test_caps_check_before_the_request():
    caps = SpendCaps.from_config("trajectory", {"max_trajectory_tokens": 100, "max_trajectory_calls": 3})
    caps.check(Spend(2, 50, 10), next_prompt_tokens=30, profile={})
    with pytest.raises(CostLimitExceeded, match="max_trajectory_tokens=100"):
        caps.check(Spend(2, 50, 10), next_prompt_tokens=41, profile={})
    with pytest.raises(CostLimitExceeded, match="max_trajectory_calls=3"):
        caps.check(Spend(3, 1, 1), next_prompt_tokens=1, profile={})
    with pytest.raises(Exception, match="agents/max_trajectory_cost"):
        SpendCaps.from_config("trajectory", {"max_trajectory_cost": "lots"})


@pytest.fixture(scope="module")
def preloc_inputs(instance, tmp_path_factory):
    """(pristine checkout, index) that PLB's pre-localization reads."""
    row, mirror = instance
    root = tmp_path_factory.mktemp("preloc")
    co = checkout_instance(row, mirror, root / "checkouts")
    build_index(co["path"], root / "index.sqlite")
    return co["path"], str(root / "index.sqlite")


def test_prelocalization_is_counted_in_the_condition_ledger_and_stopped_by_the_caps(instance, preloc_inputs, tmp_path,
                                                                                     monkeypatch):
    row, mirror = instance
    pristine, db = preloc_inputs
    monkeypatch.setenv(KEY_ENV, "sk-faults")

    def plb_spec(server, **cfg) -> RunSpec:
        return RunSpec("live", profile(server), "plb", "normal", "text", row, mirror, str(tmp_path / "out"),
                       agents_cfg={"environment": "local", "allow_live_on_host": True, **cfg}, ledger_path=str(tmp_path / "ledger.json"),
                       index_db=db, pristine_dir=pristine)

    with ScriptedServer(responder=lambda i, r: Reply("Likely root cause: ledgerkit/money.py round.")) as server:
        pre = prelocalize_run(plb_spec(server))
        ledger = json.loads((tmp_path / "ledger.json").read_text())
        assert ledger["total"]["calls"] == 1 and ledger["by_instance"][IID]["calls"] == 1
        assert ledger["total"]["prompt_tokens"] == pre["usage"]["usage"]["prompt_tokens"] > 0
        for cap in ("max_trajectory_calls", "max_trajectory_tokens", "max_condition_calls", "max_condition_tokens"):
            with pytest.raises(CostLimitExceeded, match=f"agents.{cap}=0"):
                prelocalize_run(plb_spec(server, **{cap: 0}))
        assert len(server.chat_requests) == 1  # a cap stops the call before its request
