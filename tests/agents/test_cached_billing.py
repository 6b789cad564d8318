"""Cache-aware billing of a live run: a scripted OpenAI-compatible server on 127.0.0.1 reports
usage.prompt_tokens_details.cached_tokens; the trajectory records the cached tokens per call
and in its totals, and bills them at the profile's cached-input price."""

import pytest

from swevis.agents.run.runner import RunSpec, run_instance
from swevis.models.spend import call_cost
from scripted_server import Reply, assistant_turns

TURNS = [
    "THOUGHT: find it.\n\n```mswea_bash_command\ngrep -n 'def round' ledgerkit/money.py\n```",
    "THOUGHT: done.\n\n```mswea_bash_command\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
]
# turn n: (prompt_tokens, cached_tokens); the first call finds nothing cached
USAGE = [(3000, 0), (3400, 2944)]
COMPLETION = 50
PRICES = {"cost_per_1k_prompt": 2.0, "cost_per_1k_cached_prompt": 0.5, "cost_per_1k_completion": 8.0}


def cached_usage(index, request):
    turn = min(assistant_turns(request), len(TURNS) - 1)
    prompt, cached = USAGE[turn]
    return Reply(TURNS[turn], usage={
        "prompt_tokens": prompt, "completion_tokens": COMPLETION, "total_tokens": prompt + COMPLETION,
        "prompt_tokens_details": {"cached_tokens": cached},
    })


def test_cached_tokens_are_recorded_and_billed_at_the_cached_price(instance, scripted_server, tmp_path, monkeypatch):
    row, mirror = instance
    monkeypatch.setenv("SWEVIS_TEST_KEY", "sk-test-sentinel")
    server = scripted_server(responder=cached_usage)
    profile = {"backend": "openai", "base_url": server.base_url, "model_id": "m", "api_key_env": "SWEVIS_TEST_KEY",
               "tokenizer": "qwen3", "image_family": "qwen3.5", "max_retries": 0, **PRICES}
    traj = run_instance(RunSpec(
        "live", profile, "mini", "normal", "text", row, mirror, str(tmp_path / "run"),
        agents_cfg={"environment": "local", "allow_live_on_host": True}, workspace=str(tmp_path / "ws"),
    ))
    assert traj["exit_status"] == "submitted" and len(server.chat_requests) == 2
    calls = [s["usage"] for s in traj["steps"] if s["usage"].get("source") == "server"]
    assert [(u["prompt_tokens"], u["cached_prompt_tokens"]) for u in calls] == USAGE
    assert all(u["server_cached_prompt_tokens"] == c for u, (_, c) in zip(calls, USAGE))
    totals = traj["totals"]
    assert (totals["prompt_tokens"], totals["cached_prompt_tokens"]) == (6400, 2944)
    # 3456 uncached at 2.0, 2944 cached at 0.5, 100 completion at 8.0 (per 1000)
    expected = (6400 - 2944) / 1000 * 2.0 + 2944 / 1000 * 0.5 + 2 * COMPLETION / 1000 * 8.0
    assert totals["cost"] == pytest.approx(expected)
    assert totals["cost"] < call_cost(profile, 6400, 2 * COMPLETION)  # what it cost billed as if nothing was cached
    assert traj["phases"]["main"]["cached_prompt_tokens"] == 2944


def test_deepseek_and_moonshot_report_their_cached_tokens_elsewhere():
    from swevis.models.openai_backend import reported_cached_tokens

    assert reported_cached_tokens({"prompt_tokens_details": {"cached_tokens": 7}}) == 7
    assert reported_cached_tokens({"prompt_cache_hit_tokens": 64, "prompt_cache_miss_tokens": 10}) == 64
    assert reported_cached_tokens({"cached_tokens": 12}) == 12
    assert reported_cached_tokens({"prompt_tokens": 5}) is None
    assert reported_cached_tokens({"prompt_tokens_details": None, "cached_tokens": True}) is None


def test_a_cached_price_left_null_bills_cached_tokens_as_uncached():
    profile = {"cost_per_1k_prompt": 2.0, "cost_per_1k_cached_prompt": None, "cost_per_1k_completion": 8.0}
    assert call_cost(profile, 2000, 0, 1000) == call_cost(profile, 2000, 0) == 4.0
    assert call_cost({**profile, "cost_per_1k_cached_prompt": 0.2}, 2000, 0, 1000) == pytest.approx(2.2)
