"""The provider prefix cache the counterfactual replay models (swevis.models.prefix_cache):
longest shared prefix with any earlier call, minimum length, block granularity, pages compared
by what they show, and the replay's rows and summary.csv reporting cached tokens and
cache-aware spend."""

from pathlib import Path

import polars as pl
import pytest

from swevis.config import schema_defaults
from swevis.models.prefix_cache import CacheRule, PrefixCache, cached_tokens, prompt_segments
from swevis.counterfactual.replay import recorded_costs
from swevis.errors import SwevisError
from swevis.models import image_part
from swevis.models.spend import call_cost
from swevis.render import render_window
from swevis.tokens import count_message_tokens

TRAJS = Path(__file__).resolve().parents[2] / "src" / "swevis" / "data" / "trajectories"
CONFIG = str(Path(__file__).resolve().parents[2] / "config.yaml")


def text(*ids: int) -> list:
    return [(("text", ids), len(ids))]


def test_a_call_gets_the_longest_prefix_it_shares_with_any_earlier_call_in_whole_blocks():
    rule = CacheRule("t", min_tokens=4, block_tokens=2)
    a, b, c = text(*range(10)), text(100, 101), text(200)
    prompts = [a + b, a + c, a + b + c, text(*range(3)), a + b, text(*range(7), 99) + b]
    # 1st: nothing seen; 2nd shares a (10); 3rd shares a+b with the 1st (12), not only a with the 2nd;
    # 4th shares 3 tokens: 1 block of 2, under the minimum of 4; 5th repeats the 1st whole;
    # 6th's first run differs from a's at its 8th token: 7 shared, 3 blocks
    assert cached_tokens(prompts, rule) == [0, 10, 12, 0, 12, 6]
    assert cached_tokens(prompts, None) == [0] * 6


def test_the_minimum_and_the_block_round_down():
    rule = CacheRule("t", min_tokens=1024, block_tokens=128)
    assert [rule.billable(n) for n in (0, 1023, 1024, 1100, 1151, 1152, 5000)] == [0, 0, 1024, 1024, 1024, 1152, 4992]


def test_a_page_matches_only_the_same_page_and_counts_its_tokens():
    rule = CacheRule("t", min_tokens=1, block_tokens=1)
    same = [(("image", "p1"), 300)]
    other = [(("image", "p2"), 300)]  # a page of the same size showing something else
    cache = PrefixCache(rule)
    assert [cache.serve(text(1, 2) + same + text(3)), cache.serve(text(1, 2) + same + text(4)),
            cache.serve(text(1, 2) + other + text(3))] == [0, 302, 2]


def page_message(code: str) -> dict:
    result = render_window("a.py", 1, code, 3, "qwen3", "qwen3.5", rasterize=False)
    return {"role": "user", "content": [{"type": "text", "text": "the file:"},
                                        *[image_part(png) for png in result.blank_png_bytes()]]}


def test_undrawn_pages_of_different_windows_are_different_images():
    one, two = page_message("def f(x):\n    return x\n" * 20), page_message("def g(y):\n    return y\n" * 20)
    assert [p["image_url"] for p in one["content"][1:]] != [p["image_url"] for p in two["content"][1:]]
    system = {"role": "system", "content": "You are a careful engineer. " * 30}
    first = prompt_segments([system, one], "qwen3", "qwen3.5")
    again = prompt_segments([system, one, {"role": "assistant", "content": "ok"}], "qwen3", "qwen3.5")
    swapped = prompt_segments([system, two], "qwen3", "qwen3.5")
    rule = CacheRule("t", min_tokens=1, block_tokens=1)
    cached = cached_tokens([first, again, swapped], rule)
    shown = sum(n for _, n in first) - sum(n for identity, n in first if identity == ("priming",))
    assert cached[1] == shown  # the whole earlier request but its reply priming
    before_pages = next(i for i, (identity, _) in enumerate(first) if isinstance(identity, tuple) and identity[0] == "image")
    assert cached[2] == sum(n for _, n in first[:before_pages])  # the other window's pages stop the match


def test_segments_add_up_to_the_token_estimate():
    messages = [
        {"role": "system", "content": "sys prompt"},
        page_message("x = 1\n" * 40),
        {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "bash", "arguments": "{\"cmd\": \"ls\"}"}}]},
        {"role": "user", "content": "done"},
    ]
    for family in ("qwen3.5", "kimi-k2.5", "openai-patch"):
        assert sum(n for _, n in prompt_segments(messages, "qwen3", family)) == count_message_tokens(messages, "qwen3", family)


def test_the_schema_names_each_family_and_an_unknown_one_is_an_error():
    families = schema_defaults()["counterfactual"]["prompt_cache"]
    assert families["openai"] == {"min_tokens": 1024, "block_tokens": 128}
    assert CacheRule.from_config("openai") == CacheRule("openai", 1024, 128)
    assert CacheRule.from_config(None) is None
    with pytest.raises(SwevisError, match=r"models\.q\.prompt_cache.*'nope'.*deepseek, kimi, openai, qwen"):
        CacheRule.from_config("nope", families, "q")


def test_the_workflow_refuses_a_family_the_config_does_not_define():
    from swevis.config import load_config
    from swevis.workflow import backbone_profiles

    cfg = load_config(CONFIG)
    assert backbone_profiles(cfg)["qwen3.5"]["prompt_cache"] == "qwen"
    cfg["models"]["kimi-k2.5"]["prompt_cache"] = "anthropic"
    with pytest.raises(SwevisError, match=r"models\.kimi-k2\.5\.prompt_cache.*'anthropic'"):
        backbone_profiles(cfg)


def test_the_replay_reports_cached_tokens_and_cache_aware_spend_per_condition():
    profile = {"tokenizer": "qwen3", "image_family": "qwen3.5", "prompt_cache": "qwen",
               "cost_per_1k_prompt": 2.0, "cost_per_1k_cached_prompt": 0.4, "cost_per_1k_completion": 8.0}
    families = {"qwen": {"min_tokens": 256, "block_tokens": 1}}
    rows, steps, _ = recorded_costs(TRAJS / "mini1__swevis-samples__tabulon-305.traj.json", ["text", "r3"],
                                    model_name="q", profile=profile, prompt_cache=families)
    for row in rows:
        calls = [s for s in steps if s["condition"] == row["condition"]]
        assert calls[0]["cached_prompt_tokens"] == 0  # the first call finds nothing cached
        # an agent's conversation only grows: each call holds the whole prompt before it (less its priming)
        assert all(0 < s["cached_prompt_tokens"] < s["prompt_tokens"] for s in calls[1:])
        assert row["cached_prompt_tokens"] == sum(s["cached_prompt_tokens"] for s in calls)
        expected = sum(call_cost(profile, s["prompt_tokens"], s["completion_tokens"], s["cached_prompt_tokens"]) for s in calls)
        assert row["spend_cache_aware"] == pytest.approx(expected)
        assert row["spend_cache_aware"] < sum(call_cost(profile, s["prompt_tokens"], s["completion_tokens"]) for s in calls)
    unpriced, _, _ = recorded_costs(TRAJS / "mini1__swevis-samples__tabulon-305.traj.json", ["text"], model_name="q",
                                    profile={"tokenizer": "qwen3", "image_family": "qwen3.5", "prompt_cache": None})
    assert unpriced[0]["cached_prompt_tokens"] == 0 and unpriced[0]["spend_cache_aware"] is None


def test_the_replay_summary_has_cache_columns(tmp_path, capsys):
    from swevis.cli import main

    out = tmp_path / "out"
    traj = TRAJS / "mini2__swevis-samples__ledgerkit-117.traj.json"
    assert main(["replay", str(traj), "--out", str(out), "--conditions", "text,r3", "--config", CONFIG]) == 0
    summary = pl.read_csv(out / "summary.csv")
    assert {"cached_prompt_tokens", "spend_cache_aware"} <= set(summary.columns)
    assert (summary["cached_prompt_tokens"] > 0).all()  # the bundled profile's family: qwen (config.yaml)
    assert "prefix cache: qwen" in capsys.readouterr().out
    steps = pl.read_parquet(out / "per_step.parquet")
    assert steps["cached_prompt_tokens"].sum() == summary["cached_prompt_tokens"].sum()
