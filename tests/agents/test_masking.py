"""Observation masking (mask-kM, maskb-kM; swevis.agents.observation.masking): the grammar,
the placeholder, the naive masking's broken prefix against the frozen blocks' byte-identical
one, hist over masked history, and the agents that refuse it."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from swevis.agents.observation.masking import MaskedHistory, placeholder
from swevis.agents.observation.observe import ObservationConfig, ObservationPipeline
from swevis.agents.observation.pages import observing
from swevis.agents.registry import check_condition
from swevis.conditions import Condition, ConditionError, Mask, pages_read
from swevis.config import SCHEMA_PATH, ConfigError
from swevis.errors import SwevisError
from swevis.tokens import count_message_tokens
from swevis.workflow import check_config

from helpers import PROJECT_ROOT, agent_conversation

OUTPUT = "".join(f"tests/test_module_{i}.py::test_case_{i} FAILED - AssertionError: {i} != {i + 1}\n" for i in range(30))


def conversation(calls: int, output: str = OUTPUT) -> list[dict]:
    return agent_conversation(calls, output, "pytest -x tests/{i}")


def pipeline(condition: str, **pages) -> ObservationPipeline:
    config = ObservationConfig(condition=condition, tokenizer="qwen3", image_family="qwen3.5", draw_pages=True, pages=pages)
    return ObservationPipeline(config, read_file=lambda path: None, observation_template="{{ output.output }}")


def requests(condition: str, calls: int, **pages) -> list[list[dict]]:
    """The requests under `condition` after 0..calls calls, from one pipeline (as a run sends them)."""
    p = pipeline(condition, **pages)
    full = conversation(calls)
    return [p.request(full[: 2 + 2 * k]) for k in range(calls + 1)]


def is_placeholder(message: dict) -> bool:
    return isinstance(message.get("content"), str) and message["content"].startswith("[output of")


@pytest.mark.parametrize("name,keep,blocks,family,kind", [
    ("mask-k5", 5, False, "code", "mask"), ("maskb-k10", 10, True, "code", "maskb"),
    ("maskb-k2+hist-r3", 2, True, "hist", "maskb+hist"), ("mask-k1+hist-r2.5", 1, False, "hist", "mask+hist"),
])
def test_masking_names_parse_round_trip_and_say_what_they_do(name, keep, blocks, family, kind):
    c = Condition.parse(name)
    assert (c.mask, c.family, c.kind, str(c)) == (Mask(keep, blocks), family, kind, name)
    assert c.visual == (family == "hist") and c.code_ratio is None  # masking renders nothing; hist no fresh output


@pytest.mark.parametrize("name,hint", [("mask-k0", ""), ("mask-k05", "write mask-k5"), ("maskb-K3", "write maskb-k3"),
                                       ("mask-k5+text", ""), ("maskb-k5+r3", ""), ("maskb-k5+obs-r3", ""),
                                       ("mask-5", ""), ("mem+mask-k5", "")])
def test_bad_masking_names_are_one_line_errors(name, hint):
    with pytest.raises(ConditionError, match=re.escape(repr(name))) as exc:
        Condition.parse(name)
    assert "\n" not in str(exc.value) and hint in str(exc.value) and "mask-k<M>" in str(exc.value)


def test_the_placeholder_names_the_command_its_lines_and_tokens():
    turn = {"role": "assistant", "content": "Look.\n```mswea_bash_command\nnl -ba src/a.py | sed -n '1,80p'\n```"}
    assert placeholder(turn, "a\nb\nc\n", 42) == "[output of `nl -ba src/a.py | sed -n '1,80p'` omitted: 3 lines, 42 tokens]"
    assert placeholder(None, "x", 7) == "[earlier output omitted: 1 line, 7 tokens]"
    long = {"role": "assistant", "content": "```bash\n" + "x" * 200 + "\nsecond line\n```"}
    assert placeholder(long, "", 0).startswith("[output of `" + "x" * 77 + "...`")


def test_naive_masking_keeps_the_last_m_observations_and_never_changes_the_conversation():
    full = conversation(6)
    before = copy.deepcopy(full)
    sent = MaskedHistory(2, None, "qwen3", "qwen3.5").request(full)
    assert full == before  # only what is sent changes
    observations = [m for m in sent[2:] if m["role"] == "user"]
    assert [is_placeholder(m) for m in observations] == [True] * 4 + [False] * 2
    assert observations[0]["content"].startswith("[output of `pytest -x tests/0` omitted: 30 lines, ")
    assert [m for m in sent if m["role"] == "assistant"] == [m for m in full if m["role"] == "assistant"]


def test_a_short_observation_stays_when_its_placeholder_is_no_cheaper():
    sent = MaskedHistory(1, None, "qwen3", "qwen3.5").request(conversation(3, "ok\n"))
    assert sent == conversation(3, "ok\n")


def test_naive_masking_breaks_the_prefix_every_call():
    """mask-kM: each request changes the message of the observation that just became old, so
    no request is a prefix of the next once masking starts."""
    sent = requests("mask-k2", 8)
    for before, after in zip(sent[2:], sent[3:]):
        changed = next(i for i, (a, b) in enumerate(zip(before, after)) if a != b)
        assert is_placeholder(after[changed]) and not is_placeholder(before[changed])


def test_blocked_masking_sends_every_masked_message_byte_identical_in_every_later_request():
    """maskb-kM: a request's messages up to its last masked one come again, unchanged, in
    every later request; the prefix breaks only when a new block is masked (after 4, 6, 8 and
    10 calls here: keep 2, blocks of 2)."""
    sent = requests("maskb-k2", 10, mask_block=2)
    breaks = []
    for k, request in enumerate(sent):
        masked = [i for i, m in enumerate(request) if is_placeholder(m)]
        for later in sent[k + 1 :]:
            assert masked == [] or later[: masked[-1] + 1] == request[: masked[-1] + 1]
        if k and request[: len(sent[k - 1])] != sent[k - 1]:
            breaks.append(k)
    assert breaks == [4, 6, 8, 10] and sum(is_placeholder(m) for m in sent[-1]) == 8


def test_blocked_masking_sends_fewer_tokens_than_text_and_more_than_naive():
    count = lambda m: count_message_tokens(m, "qwen3", "qwen3.5")  # noqa: E731
    full = conversation(9)
    text, naive, blocked = (pipeline(c, mask_block=4).request(full) for c in ("text", "mask-k2", "maskb-k2"))
    assert count(naive) < count(blocked) < count(text)


def test_hist_over_masked_history_draws_its_blocks_from_the_masked_calls_and_keeps_them():
    """maskb-kM+hist-rN: a history block freezes only once its calls are masked, so its pages
    show the placeholders, and every page comes again byte-identical in every later request."""
    seen = []
    with observing(seen.append):
        sent = requests("maskb-k2+hist-r3", 9, mask_block=2, hist_block=2, hist_keep=1, hist_run_chars=0)
    urls = [[p["image_url"]["url"] for m in r if isinstance(m["content"], list) for p in m["content"]
             if p.get("type") == "image_url"] for r in sent]
    for before, after in zip(urls, urls[1:]):
        assert after[: len(before)] == before
    assert urls[-1] and seen and all("omitted:" in s.text and "[assistant]" in s.text for s in seen)
    assert not any(is_placeholder(m) for m in sent[-1])  # masked calls went out as pages, never as masked text


def test_agents_that_refuse_hist_refuse_masking_in_one_line():
    for agent in ("mini", "plb"):
        for condition in ("mask-k5", "maskb-k5", "maskb-k5+hist-r3"):
            check_condition(agent, condition)
    for agent in ("let", "prometheus"):
        with pytest.raises(SwevisError, match=rf"agent {agent} takes no mask-kM condition \(mask-k5\)") as exc:
            check_condition(agent, "mask-k5")
        assert "\n" not in str(exc.value)


def test_the_config_refuses_masking_for_an_agent_that_does_not_take_it_by_key():
    config = yaml.safe_load((PROJECT_ROOT / "config.yaml").read_text())
    config["agents"]["matrix"] = [{"agent": "mini", "scope": "normal", "conditions": ["text", "maskb-k5"]},
                                  {"agent": "let", "scope": "normal", "conditions": ["text", "maskb-k5"]}]
    with pytest.raises(ConfigError, match=r"config key 'agents/matrix/1/conditions/1': agent let takes no maskb-kM"):
        check_config(config, SCHEMA_PATH)


def test_only_blocked_masking_reads_its_block_setting():
    pages = {"mask_block": 8, "hist_keep": 1, "hist_block": 4, "obs_min_tokens": 200}
    assert pages_read(["text", "mask-k5"], pages) == {}
    assert pages_read(["maskb-k5"], pages) == {"mask_block": 8}
    assert pages_read(["maskb-k5+hist-r3"], pages) == {"hist_keep": 1, "hist_block": 4, "mask_block": 8}
