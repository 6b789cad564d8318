"""The page families obs-rN, hist-rN and both-rN (swevis.agents.observation.pages): a page once sent is
byte-identical in every later request (under both-rN an observation's until its call's block
freezes), never dearer per observation and per block, and refused by agents that do not
declare the family."""

from __future__ import annotations

import copy
import re
import subprocess
import sys

import pytest
import yaml

from swevis.agents.observation.observe import ObservationConfig, ObservationPipeline
from swevis.agents.observation.pages import HistoryPages, PageSettings, TextPages, legible_pieces, observing
from swevis.agents.registry import check_condition
from swevis.models import image_part
from swevis.render.core import blank_png
from swevis.conditions import Condition, ConditionError
from swevis.page_families import DEFAULT_FAMILY, FAMILIES, page_family
from swevis.config import ConfigError, SCHEMA_PATH
from swevis.workflow import check_config
from swevis.errors import SwevisError
from swevis.tokens import count_message_tokens

from helpers import PROJECT_ROOT, agent_conversation

TRACEBACK = "".join(
    f'  File "/testbed/pkg/module_{i}.py", line {10 * i + 3}, in function_{i}\n    result = compute(value_{i}, options)\n'
    for i in range(40)
) + "ValueError: the value was out of range for this operation\n"


def pipeline(condition: str, draw: bool = False, **pages) -> ObservationPipeline:
    config = ObservationConfig(condition=condition, tokenizer="qwen3", image_family="qwen3.5", draw_pages=draw, pages=pages)
    return ObservationPipeline(config, read_file=lambda path: None, observation_template="{{ output.output }}")


def images(content) -> list[str]:
    return [p["image_url"]["url"] for p in content if p.get("type") == "image_url"] if isinstance(content, list) else []


@pytest.mark.parametrize("name,family,code", [("obs-r3", "obs", 3.0), ("hist-r2.5", "hist", None), ("r3", "code", 3.0),
                                              ("both-r3", "both", 3.0)])
def test_family_names_parse_round_trip_and_say_what_observations_render(name, family, code):
    c = Condition.parse(name)
    assert (c.family, c.code_ratio, str(c)) == (family, code, name)


@pytest.mark.parametrize("name", ["obs-text", "hist-", "obs-r3.0", "mem-r3", "obs_r3"])
def test_bad_family_names_are_one_line_errors(name):
    with pytest.raises(ConditionError, match=repr(name)):
        Condition.parse(name)


def test_obs_renders_a_long_output_and_keeps_a_short_one_text():
    p = pipeline("obs-r3", obs_min_tokens=200)
    content, record = p.finish(TRACEBACK, {"kind": "text", "pages": 0, "tokens": 0})
    assert images(content) and record["pages"] == record["output_pages"] == len(images(content))
    assert record["tokens"] < p._text_tokens(TRACEBACK)
    short = "1 failed, 13 passed in 0.84s\n"
    assert p.finish(short, {"pages": 0}) == (short, {"pages": 0})
    assert pipeline("r3").finish(TRACEBACK, {"pages": 0})[0] == TRACEBACK  # code family: outputs stay text


def test_obs_is_never_dearer_per_observation():
    # a text far cheaper than any page (short lines of one token each would still need a page's floor)
    sparse = "x\n" * 210
    p = pipeline("obs-r3", obs_min_tokens=200)
    content, _ = p.finish(sparse, {"pages": 0})
    if images(content):
        assert p._prompt_tokens(content) < p._prompt_tokens(sparse)
    high = pipeline("obs-r0.5", obs_min_tokens=200)  # pages at twice the text's tokens: never sent
    assert high.finish(TRACEBACK, {"pages": 0})[0] == TRACEBACK


PYTEST_LOG = (
    "============================= test session starts ==============================\n"
    "tests/test_ledger.py ......F.....                                        [100%]\n"
    "=================================== FAILURES ===================================\n"
    "______________________________ test_balance_rounds ______________________________\n"
    + TRACEBACK
    + "    result = compute(value, options)\n             ^^^^^^^^^^^^^^^^^^^^^^^^\n"
    + TRACEBACK.replace("module_", "helper_")
    + "========================= 1 failed, 11 passed in 0.52s =========================\n"
)


def test_lines_with_runs_of_one_punctuation_character_are_cut_out_of_the_pages():
    pieces = legible_pieces(PYTEST_LOG, 4)
    assert "".join(p for _, p in pieces) == PYTEST_LOG  # nothing lost, nothing reordered
    assert [legible for legible, _ in pieces] == [False, True, False, True, False]
    assert pieces[1][1] == TRACEBACK and pieces[3][1] == TRACEBACK.replace("module_", "helper_")
    assert pieces[2][1].startswith("    result = compute(value, options)\n    ")  # the marked line stays above its marks
    assert legible_pieces("a -- b ... c\n", 4) == [(True, "a -- b ... c\n")]  # runs of 3 stay
    assert legible_pieces(PYTEST_LOG, 0) == [(True, PYTEST_LOG)]


def test_a_coloured_run_is_judged_as_the_page_shows_it():
    """pytest --color=yes writes each progress dot in its own colour codes: the page shows a
    run of dots, so the line stays text like an uncoloured one."""
    dots = "tests/test_a.py " + "\x1b[32m.\x1b[0m" * 12 + "\x1b[31m [100%]\x1b[0m\n"
    ruler = "\x1b[31m\x1b[1m" + "_" * 20 + " test_a \x1b[0m\n"
    pieces = legible_pieces("collected 12 items\n" + dots + ruler + "E   assert 1 == 2\n", 4)
    assert pieces == [(True, "collected 12 items\n"), (False, dots + ruler), (True, "E   assert 1 == 2\n")]


def test_obs_sends_every_line_in_order_the_rulers_as_text_between_pages():
    p = pipeline("obs-r3", obs_min_tokens=200, obs_run_chars=4)
    content, record = p.finish(PYTEST_LOG, {"pages": 0})
    kinds = ["image" if q["type"] == "image_url" else ("note" if q["text"].startswith("[output shown") else "text")
             for q in content]
    assert kinds == ["text", "note", "image", "text", "note", "image", "text"] and record["output_pages"] == 2
    texts = [q["text"] for q in content if q["type"] == "text" and not q["text"].startswith("[output shown")]
    assert texts[0].startswith("=====") and "^^^^" in texts[1] and texts[2].startswith("=====")
    whole = pipeline("obs-r3", obs_min_tokens=200, obs_run_chars=0).finish(PYTEST_LOG, {"pages": 0})[0]
    assert [q["type"] for q in whole] == ["text", "image_url"]  # 0: the whole log on its pages, rulers too


def test_obs_leaves_the_code_pages_of_an_observation_as_they_are():
    p = pipeline("obs-r3", obs_min_tokens=200, obs_run_chars=4)
    window = image_part(blank_png(64, 64), label="a code window")
    content, record = p.finish([{"type": "text", "text": PYTEST_LOG}, window, {"type": "text", "text": "ok\n"}],
                               {"pages": 1})
    assert content.count(window) == 1 and content[-1] == {"type": "text", "text": "ok\n"}
    assert content[-2] == window and record["pages"] == 1 + record["output_pages"] == 3


def test_the_capture_hook_sees_each_text_sent_as_pages_once_and_only_while_open():
    seen = []
    p = pipeline("obs-r3", obs_min_tokens=200, obs_run_chars=4)
    with observing(seen.append):
        content, record = p.finish(PYTEST_LOG, {"pages": 0})
        p.finish("1 failed, 13 passed in 0.84s\n", {"pages": 0})  # short: text, not seen
    assert [s.text for s in seen] == [TRACEBACK, TRACEBACK.replace("module_", "helper_")]
    assert sum(s.pages for s in seen) == record["output_pages"] and all(s.how.ratio == 3.0 for s in seen)
    assert [q for s in seen for q in s.parts] == [q for q in content if q["type"] == "image_url" or
                                                   q["text"].startswith("[output shown")]
    p.finish(PYTEST_LOG, {"pages": 0})
    assert len(seen) == 2  # closed: no longer called


def test_the_capture_hook_sees_a_history_block_when_frozen_and_not_one_kept_as_text():
    seen = []
    h = history()
    with observing(seen.append):
        for n in range(1, 7):
            h.request(conversation(n))
    assert [s.label for s in seen] == ["history-1-2", "history-3-4"]  # each once, at its first request
    assert seen[0].result.pages and seen[0].pages == len(seen[0].result.pages)  # drawn as sent (draw_pages)
    dear = []
    with observing(dear.append):
        history(ratio=0.5).request(conversation(6))
    assert dear == []


def conversation(calls: int, output: str = TRACEBACK) -> list[dict]:
    return agent_conversation(calls, output)


def history(keep=2, block=2, policy="transcript", ratio=3.0, run_chars=0) -> HistoryPages:
    return HistoryPages(TextPages(ratio, "qwen3", "qwen3.5", {}, draw_pages=True), keep, block, policy, run_chars)


@pytest.mark.parametrize("policy,run_chars,output", [("transcript", 0, TRACEBACK), ("outputs", 0, TRACEBACK),
                                                     ("transcript", 4, PYTEST_LOG)],
                         ids=["transcript-traceback", "outputs-traceback", "transcript-pytest-log"])
def test_a_history_page_once_sent_is_byte_identical_in_every_later_request(policy, run_chars, output):
    h = history(policy=policy, run_chars=run_chars)
    previous: list[str] = []
    for n in range(1, 10):
        request = h.request(conversation(n, output))
        urls = [url for m in request for url in images(m.get("content"))]
        assert urls[: len(previous)] == previous  # every page sent before comes again, in order, unchanged
        previous = urls
    assert previous and h.rendered_blocks() == 3  # 9 calls, keep 2: blocks of calls 1-2, 3-4, 5-6


def test_the_request_before_the_first_block_is_the_conversation_and_the_prefix_stays():
    h = history(keep=2, block=2)
    messages = conversation(3)
    assert h.request(messages) == messages  # 3 calls, keep 2: one old call, no whole block yet
    request = h.request(conversation(4))
    assert request[:2] == conversation(0) and request[2]["role"] == "user" and images(request[2]["content"])
    assert request[-4:] == conversation(4)[-4:]  # the last two calls as text


def test_a_history_block_sends_every_line_in_order_its_rulers_as_text_between_pages():
    """hist_run_chars: a block's transcript is cut as an observation is (legible_pieces)."""
    seen = []
    with observing(seen.append):
        request = history(run_chars=4).request(conversation(4, PYTEST_LOG))
    block = request[2]["content"]
    texts = [q["text"] for q in block if q["type"] == "text" and not q["text"].startswith("[calls 1-2 of")]
    assert texts and all("=====" in t or "^^^^" in t for t in texts)  # only the cut lines stay text
    labels = [s.label for s in seen]
    assert len(labels) > 1 and len(set(labels)) == len(labels) and all(x.startswith("history-1-2.") for x in labels)
    transcript = "".join(f"[{m['role']}]\n{m['content']}\n" for m in conversation(2, PYTEST_LOG)[2:])
    sent = iter(seen)
    shown = "".join(q["text"] if not q["text"].startswith("[calls 1-2 of") else next(sent).text
                    for q in block if q["type"] == "text")
    assert shown == transcript  # every line, in its order, on a page or as text
    whole = history(run_chars=4).request(conversation(4))[2]["content"]  # no ruler: one page set, as before
    assert whole == history(run_chars=0).request(conversation(4))[2]["content"]


def test_a_history_block_is_drawn_at_its_guard_or_larger_or_stays_text():
    """hist_min_font_px: the layout at the ratio would draw the block smaller; the guard draws
    it at the guard, and a guard whose pages cost as much as the text keeps the block text."""
    pages = TextPages(3.0, "qwen3", "qwen3.5", {}, draw_pages=False)
    free = []
    with observing(free.append):
        pages.history(2, 2, "transcript", 0, None).request(conversation(4))
    guard = free[0].result.layout["font_px"] + 2  # the size the ratio alone would not draw
    guarded = []
    with observing(guarded.append):
        pages.history(2, 2, "transcript", 0, guard).request(conversation(4))
    assert guarded[0].result.layout["font_px"] >= guard and guarded[0].how.min_font_px == guard
    assert guarded[0].result.image_tokens > free[0].result.image_tokens
    messages = conversation(4)
    assert pages.history(2, 2, "transcript", 0, 40).request(messages) == messages  # dearer than its text


def test_a_frozen_block_refuses_a_rewritten_history():
    h = history()
    h.request(conversation(4))
    changed = copy.deepcopy(conversation(5))
    changed[2]["content"] = "another turn"
    with pytest.raises(RuntimeError, match="changed after"):
        h.request(changed)


def test_a_block_dearer_as_pages_stays_text():
    h = history(ratio=0.5)  # pages at twice the text's tokens
    messages = conversation(6)
    assert h.request(messages) == messages and h.rendered_blocks() == 0


def test_transcript_blocks_cost_less_than_their_text():
    h = history()
    messages = conversation(8)
    count = lambda m: count_message_tokens(m, "qwen3", "qwen3.5")  # noqa: E731
    assert count(h.request(messages)) < count(messages)


def test_agents_that_do_not_declare_a_family_refuse_it_in_one_line():
    for agent in ("mini", "plb"):
        check_condition(agent, "obs-r3")
        check_condition(agent, "hist-r3")
        check_condition(agent, "both-r3")
    for agent, condition in (("let", "obs-r3"), ("prometheus", "hist-r3"), ("let", "both-r3"), ("prometheus", "both-r3")):
        with pytest.raises(SwevisError, match=rf"agent {agent} takes no .*-rN condition \({condition}\)") as exc:
            check_condition(agent, condition)
        assert "\n" not in str(exc.value)
    check_condition("let", "r3")  # the code family: every agent


def test_the_config_refuses_a_family_an_agent_does_not_take_by_key():
    config = yaml.safe_load((PROJECT_ROOT / "config.yaml").read_text())
    config["agents"]["matrix"] = [{"agent": "mini", "scope": "normal", "conditions": ["text", "obs-r3", "hist-r3"]},
                                  {"agent": "let", "scope": "normal", "conditions": ["text", "hist-r3"]}]
    with pytest.raises(ConfigError, match=r"config key 'agents/matrix/1/conditions/1': agent let takes no hist-rN"):
        check_config(config, SCHEMA_PATH)


def test_a_run_spec_refuses_a_family_its_agent_does_not_take():
    from swevis.agents.run.spec import RunSpec

    with pytest.raises(SwevisError, match="agent let takes no obs-rN"):
        RunSpec("m", {}, "let", "normal", "obs-r3", {}, "", "/tmp/none")


def test_a_run_reads_only_the_page_keys_of_its_family():
    from swevis.conditions import pages_read

    pages = {"obs_min_tokens": 200, "obs_run_chars": 4, "hist_run_chars": 4, "hist_keep": 2, "hist_block": 4,
             "hist_policy": "transcript"}
    assert pages_read(["text", "r3", "mem", "mem+r3"], pages) == {}
    assert pages_read(["obs-r3"], pages) == {"obs_min_tokens": 200, "obs_run_chars": 4}
    assert pages_read(["text", "hist-r5"], {**pages, "hist_min_font_px": 7}) == {
        "hist_keep": 2, "hist_block": 4, "hist_policy": "transcript", "hist_run_chars": 4, "hist_min_font_px": 7}
    assert pages_read(["both-r3"], {**pages, "hist_min_font_px": 7}) == {**pages, "hist_min_font_px": 7}


def test_a_mixed_marker_line_keeps_the_code_line_it_marks_with_it():
    """Python 3.11's `~~~~^^^^` under a traceback's code: both lines stay text together."""
    text = "Traceback:\n  File \"a.py\", line 3\n    x = foo(bar)\n        ~~~^^^^^\nValueError: bad\n"
    assert legible_pieces(text, 4) == [
        (True, "Traceback:\n  File \"a.py\", line 3\n"),
        (False, "    x = foo(bar)\n        ~~~^^^^^\n"),
        (True, "ValueError: bad\n"),
    ]


def test_a_page_is_drawn_as_plain_text_whatever_its_label_ends_with():
    """A piece labelled `...#0.1` is no Groff file (Pygments' `*.[1-9]`): the same pixels as `.0`."""
    text = ".TH TITLE 1\n\\fBbold\\fR and .B macro lines\n" * 30
    pages = TextPages(3, "qwen3", "qwen3.5", {}, draw_pages=True)
    one, zero = pages.pages(text, "output of step 3#0.1", "output"), pages.pages(text, "output of step 3#0.0", "output")
    assert one is not None and zero is not None
    assert one.result.png_bytes() == zero.result.png_bytes()


def test_each_family_is_registered_once_with_a_prefix_of_its_own():
    assert [f.prefix for f in FAMILIES][0] == "" and DEFAULT_FAMILY is FAMILIES[0]  # r<N>
    assert len({f.name for f in FAMILIES}) == len({f.prefix for f in FAMILIES}) == len(FAMILIES)
    assert all(re.fullmatch(r"[a-z]+-", f.prefix) for f in FAMILIES[1:])  # a plain word in the grammar
    for f in FAMILIES:
        c = Condition.parse(f"{f.prefix}r3")
        assert c.page_family is f and page_family(f.name) is f and str(c) == f"{f.prefix}r3"
        assert set(f.settings) <= set(PageSettings.__dataclass_fields__)  # keys of agents.pages


def test_a_new_family_is_a_module_and_a_registry_entry():
    """A family added to the registry before swevis.conditions is imported is in the grammar,
    the schema's pattern, the config keys its runs read and the refusals of agents."""
    probe = (
        "from swevis import page_families\n"
        "from swevis.page_families.record import PageFamily\n"
        "page_families.FAMILIES += (PageFamily(name='toy', prefix='toy-', settings=('hist_keep',)),)\n"
        "from swevis.conditions import Condition, pages_read\n"
        "from swevis.config import load_schema, validate_config\n"
        "from swevis.agents.registry import check_condition\n"
        "c = Condition.parse('toy-r2.5')\n"
        "schema = load_schema()['properties']['analysis']['properties']['baseline']['properties']['condition']\n"
        "validate_config({'analysis': {'baseline': {'condition': 'toy-r3'}}})\n"
        "print(c.family, c, 'toy-' in schema['pattern'], 'toy-rN' in schema['errorMessage']['pattern'],\n"
        "      pages_read(['toy-r3'], {'hist_keep': 2, 'hist_block': 4}))\n"
        "check_condition('mini', 'toy-r3')\n"
        "try:\n"
        "    check_condition('let', 'toy-r3')\n"
        "except Exception as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["toy toy-r2.5 True True {'hist_keep': 2}",
                                        "agent let takes no toy-rN condition (toy-r3); it takes rN"]


# -- both-rN: observations as obs-rN renders them, old history frozen as hist-rN freezes it

# a turn long enough that its text on a page costs less than as text
THOUGHT = "".join(f"The traceback shows frame {i} of pkg.module_{i} failing in function_{i}; check the options. "
                  for i in range(12))


def observed_conversation(p: ObservationPipeline, calls: int, output: str = TRACEBACK) -> tuple[list[dict], list[list[dict]]]:
    """A conversation whose observations went through `p` as a live agent's do, and the
    request `p` sent for each call."""
    messages, requests = conversation(0), []
    for i in range(calls):
        requests.append(p.request(messages))
        messages.append({"role": "assistant", "content": f"Step {i}: {THOUGHT}\n```mswea_bash_command\npytest -x\n```"})
        content, _ = p.finish(output.replace("module_", f"module_{i}_"), {"pages": 0}, f"output of step {i + 1}")
        messages.append({"role": "user", "content": content})
    return messages, requests


def is_subsequence(earlier: list[str], later: list[str]) -> bool:
    rest = iter(later)
    return all(url in rest for url in earlier)


@pytest.mark.parametrize("output,run_chars", [(TRACEBACK, 0), (PYTEST_LOG, 4)], ids=["traceback", "pytest-log"])
def test_both_sends_every_page_byte_identical_in_every_later_request_until_its_block_freezes(output, run_chars):
    """A frozen block's pages, and everything before the newest block, are the same bytes in
    every later request; an observation's pages are, until the block of its call freezes and
    draws it again with the turns (the request changes from that block on, as under hist-rN)."""
    p = pipeline("both-r3", draw=True, obs_min_tokens=200, obs_run_chars=run_chars, hist_run_chars=run_chars,
                 hist_keep=1, hist_block=2)
    messages, requests = observed_conversation(p, 9, output)
    observed = [images(messages[3 + 2 * i]["content"]) for i in range(9)]  # each call's observation pages
    frozen = lambda n: max(0, n - 1) // 2  # noqa: E731  blocks of 2 with n calls before the request, keep 1
    previous: list[str] = []
    for n, request in enumerate(requests):
        urls = [url for m in request for url in images(m.get("content"))]
        redrawn = {url for b in range(frozen(n - 1) if n else 0, frozen(n)) for c in (2 * b, 2 * b + 1) for url in observed[c]}
        assert set(previous) - set(urls) <= redrawn  # only the calls of the block frozen now are drawn again
        assert is_subsequence([u for u in previous if u in urls], urls)  # the rest unchanged, in order
        for later in requests[n + 1:]:
            assert later[: 2 + frozen(n)] == request[: 2 + frozen(n)]  # the frozen blocks: the same messages
        previous = urls
    assert any(observed) and p.history.rendered_blocks() == 3 and p.history.new_pages == 0  # the last froze nothing


def test_both_draws_a_frozen_block_again_from_its_text_and_keeps_pages_whose_text_it_does_not_know():
    p = pipeline("both-r3", obs_min_tokens=200, hist_keep=1, hist_block=2)
    messages, _ = observed_conversation(p, 3)
    sent = [q for m in messages[2:6] for q in (m["content"] if isinstance(m["content"], list) else [])
            if q["type"] == "image_url"]
    seen = []
    with observing(seen.append):
        block = p.request(messages)[2]["content"]
    assert sent and not [q for q in block if q in sent]  # the observations' pages are drawn again with the turns
    assert len(seen) == 1 and seen[0].label == "history-1-2" and seen[0].pages == p.history.new_pages
    shown = "".join(f"[{m['role']}]\n{m['content']}\n" for m in conversation(0)[:0] + [
        messages[2], {"role": "user", "content": TRACEBACK.replace("module_", "module_0_")},
        messages[4], {"role": "user", "content": TRACEBACK.replace("module_", "module_1_")}])
    assert seen[0].text == shown  # every line of the two calls, as text condition would send them
    window = image_part(blank_png(64, 64), label="a code window")  # a page with no note saying what it shows
    kept = HistoryPages(TextPages(3.0, "qwen3", "qwen3.5", {}, draw_pages=False), 1, 2, "transcript", 0)
    with_window = messages[:3] + [{"role": "user", "content": [{"type": "text", "text": "[code]\n"}, window]}] + messages[4:]
    assert window in kept.request(with_window)[2]["content"]  # kept as it was sent


def test_both_is_never_dearer_per_observation_and_per_block():
    p = pipeline("both-r0.5", obs_min_tokens=200, hist_keep=1, hist_block=2)  # pages at twice the text's tokens
    messages, requests = observed_conversation(p, 6)
    assert all(isinstance(m["content"], str) for m in messages) and requests[-1] == messages[:-2]
    assert p.history.rendered_blocks() == 0
    cheap = pipeline("both-r3", obs_min_tokens=200, hist_keep=1, hist_block=2)
    messages, requests = observed_conversation(cheap, 6)
    count = lambda m: count_message_tokens(m, "qwen3", "qwen3.5")  # noqa: E731
    assert count(cheap.request(messages)) < count(pipeline("obs-r3", obs_min_tokens=200).request(messages))


def test_both_ceiling_renders_old_calls_whole_and_recent_observations_as_obs():
    both, settings = page_family("both"), PageSettings(200, 4, 4, 7, 1, 4, "transcript", 8)
    calls = [(500, 300), (400, 0), (250, 120)]  # (the call whole, its observation as obs's ceiling renders it)
    assert both.eligible(calls, settings) == 500 + 400 + 120
    assert both.eligible(calls[:1], settings) == 300 and both.eligible([], settings) == 0
