"""A playback model bills its calls through the profile's provider prefix cache (so the
default's tables show cached tokens and a cache-aware spend), and a run whose profile fails
validation leaves no journal behind."""

import pytest

from swevis.agents.run.chat import open_chat_stack
from swevis.agents.run.spec import RunSpec
from swevis.errors import SwevisError
from swevis.models import make_model
from swevis.models.prefix_cache import CacheRule, cached_tokens, prompt_segments
from swevis.models.spend import spend_of_usage

PROFILE = {"backend": "playback", "tokenizer": "qwen3", "image_family": "qwen3.5", "prompt_cache": "qwen",
           "cost_per_1k_prompt": 0.0006, "cost_per_1k_cached_prompt": 0.00012, "cost_per_1k_completion": 0.0036}
TURNS = ["THOUGHT: look.\n\n```mswea_bash_command\nls\n```", "THOUGHT: done.\n\n```mswea_bash_command\necho ok\n```"]
SYSTEM = {"role": "system", "content": "You fix bugs in repositories. " * 60}  # past qwen's 256-token minimum


def requests() -> list[list[dict]]:
    first = [SYSTEM, {"role": "user", "content": "Fix the rounding of yen amounts."}]
    return [first, first + [{"role": "assistant", "content": TURNS[0]}, {"role": "user", "content": "a.py\nb.py"}]]


def usages(profile: dict) -> list[dict]:
    model = make_model("qwen3.5", profile, playback_source=TURNS)
    return [model.complete(messages, purpose="agent").record()["usage"] for messages in requests()]


def test_playback_serves_the_repeated_prefix_from_the_profiles_cache():
    first, second = usages(PROFILE)
    expected = cached_tokens([prompt_segments(m, "qwen3", "qwen3.5") for m in requests()], CacheRule("qwen", 256, 1))
    assert [first["cached_prompt_tokens"], second["cached_prompt_tokens"]] == expected
    assert expected[0] == 0 and expected[1] > 256  # the second call repeats the whole first prompt
    # the cached part is billed at the cached-input price
    full = spend_of_usage(PROFILE, {**second, "cached_prompt_tokens": 0}).cost
    assert spend_of_usage(PROFILE, second).cost == pytest.approx(full - second["cached_prompt_tokens"] / 1000 * (0.0006 - 0.00012))


def test_a_profile_without_a_cache_family_caches_nothing():
    assert [u["cached_prompt_tokens"] for u in usages({**PROFILE, "prompt_cache": None})] == [0, 0]


@pytest.mark.parametrize("bad", [{"cost_per_1k_cached_prompt": 0.001}, {"prompt_cache": "nope"}])
def test_a_run_whose_profile_fails_validation_leaves_no_journal(bad, tmp_path):
    journal = tmp_path / "journal.jsonl"
    with pytest.raises(SwevisError, match="cost_per_1k_cached_prompt|prompt_cache"):
        open_chat_stack(RunSpec(model_name="qwen3.5", profile={**PROFILE, **bad}, agent="mini", scope="normal",
                                condition="text", row={"instance_id": "x"}, mirror="", out_dir=str(tmp_path / "out"),
                                playback_source=TURNS, journal_path=str(journal)))
    assert not journal.exists()
