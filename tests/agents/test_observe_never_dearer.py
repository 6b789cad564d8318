"""Never dearer: a code window goes out as pages only when the pages and their note cost
fewer prompt tokens than its text under the backbone's accounting; otherwise it stays text
and its record says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from swevis.agents.observation.actions import detect_code_read
from swevis.agents.run.demos import DEMOS_DIR, demo_commands, load_demo
from swevis.agents.observation.observe import ObservationConfig, ObservationPipeline, image_note
from swevis.agents.run.runner import mini_swebench_config
from swevis.tokens import count_message_tokens, message_overhead, reply_priming, text_tokens
from swevis.tokens.messages import data_url_size

TEMPLATE = mini_swebench_config()["model"]["observation_template"]
SAMPLE_REPOS = Path(__file__).resolve().parents[2] / "src" / "swevis" / "data" / "sample" / "repos"
SOURCE = "".join(f"def function_number_{i}(value):\n    return value * {i} + {i * 7}\n" for i in range(150))
BACKBONES = [("qwen3", "qwen3.5"), ("qwen3", "kimi-k2.5"), ("cl100k_base", "openai-patch"), ("cl100k_base", "claude")]


def _pipeline(condition: str, files: dict[str, str], tokenizer: str = "qwen3", family: str = "qwen3.5", draw: bool = True):
    cfg = ObservationConfig(condition=condition, tokenizer=tokenizer, image_family=family, draw_pages=draw)
    return ObservationPipeline(cfg, files.get, TEMPLATE)


def _output(text: str, start: int, end: int) -> dict:
    lines = text.splitlines()
    return {"output": "".join(f"{n:6d}\t{lines[n - 1]}\n" for n in range(start, end + 1)), "returncode": 0, "exception_info": ""}


def _prompt(content, tokenizer: str, family: str) -> int:
    return count_message_tokens([{"role": "user", "content": content}], tokenizer, family)


def test_note_is_short():
    for pages in (1, 2, 7):
        for tokenizer in ("qwen3", "cl100k_base"):
            assert text_tokens(image_note(pages), tokenizer) <= 12


def test_short_window_stays_text_at_r1_and_says_why():
    pipe = _pipeline("r1", {"m.py": SOURCE})
    content, record = pipe.observe("nl -ba m.py | sed -n '3,5p'", _output(SOURCE, 3, 5))
    assert isinstance(content, str) and "return value * 1" in content
    assert record["kind"] == "text" and record["pages"] == 0
    assert record["text_reason"] == "cheaper_as_text"
    assert record["window"] == {"path": "m.py", "start": 3, "end": 5}


def test_long_window_renders_and_costs_less_than_its_text():
    pipe = _pipeline("r3", {"m.py": SOURCE})
    out = _output(SOURCE, 1, 200)
    content, record = pipe.observe("nl -ba m.py | sed -n '1,200p'", out)
    assert record["kind"] == "image" and record["pages"] >= 1 and "text_reason" not in record
    assert image_note(record["pages"]) in content[0]["text"]
    text = pipe._text(out, None)
    assert _prompt(content, "qwen3", "qwen3.5") < _prompt(text, "qwen3", "qwen3.5")
    # the record's tokens are the content as the backbone counts it, without the message frame
    frame = message_overhead("qwen3.5") + reply_priming("qwen3.5")
    assert record["tokens"] == _prompt(content, "qwen3", "qwen3.5") - frame


def test_text_conditions_carry_no_reason():
    pipe = _pipeline("text", {"m.py": SOURCE})
    _, record = pipe.observe("nl -ba m.py | sed -n '3,5p'", _output(SOURCE, 3, 5))
    assert record["kind"] == "text" and "text_reason" not in record


def test_window_over_the_size_limit_says_why():
    cfg = ObservationConfig(condition="r3", tokenizer="qwen3", image_family="qwen3.5", max_window_chars=100)
    pipe = ObservationPipeline(cfg, {"m.py": SOURCE}.get, TEMPLATE)
    _, record = pipe.observe("nl -ba m.py | sed -n '1,40p'", _output(SOURCE, 1, 40))
    assert record["kind"] == "text" and record["text_reason"] == "over_max_window_chars"


def test_pack_context_keeps_a_short_window_as_text():
    lines = SOURCE.splitlines(keepends=True)
    windows = [
        {"path": "m.py", "start": 3, "end": 4, "text": "".join(lines[2:4]).rstrip("\n"), "symbols": []},
        {"path": "m.py", "start": 1, "end": 200, "text": "".join(lines[:200]).rstrip("\n"), "symbols": []},
    ]
    pipe = _pipeline("r3", {"m.py": SOURCE})
    content, record = pipe.observe_windows("== files\nm.py", windows)
    assert record["text_reasons"] == ["cheaper_as_text"]  # the short one; the long one renders
    assert record["kind"] == "image" and record["pages"] >= 1
    assert any(p.get("type") == "text" and "[window m.py:3-4]\n" in p["text"] for p in content)


def _fixture_reads():
    """Every code window the bundled demonstrations read, with the sample repository file."""
    cases = []
    for agent in ("mini", "plb"):
        for path in sorted((DEMOS_DIR / agent).glob("*.yaml")):
            repo = SAMPLE_REPOS / path.stem.split("__")[1].rsplit("-", 1)[0]
            for command in demo_commands(load_demo(path), "agent"):
                read = detect_code_read(command)
                if read is not None and (repo / read.path).is_file():
                    cases.append((command, (repo / read.path).read_text()))
    return cases


FIXTURE_READS = _fixture_reads()


@pytest.mark.slow
@pytest.mark.parametrize("condition", ["r1", "r3"])
@pytest.mark.parametrize("tokenizer, family", BACKBONES)
def test_no_fixture_observation_costs_more_rendered(condition, tokenizer, family):
    """Every window the demonstrations read, under each backbone's accounting. The pages are
    laid out, not drawn (draw_pages=False): the decision and the prompt tokens are the drawn
    pages' (test_undrawn_pages_account_exactly_as_drawn_ones), and drawing them was four
    fifths of this test's CPU (18 of 22 s over its eight cases). One pipeline observes them
    all, as in a run: compiling its template for each window was a third of the rest."""
    assert len(FIXTURE_READS) >= 10
    kinds = set()
    shown: dict[str, str] = {}  # the file of the window observed: one pipeline, its template compiled once
    pipe = _pipeline(condition, shown, tokenizer, family, draw=False)
    for command, source in FIXTURE_READS:
        read = detect_code_read(command)
        shown.clear()
        shown[read.path] = source
        lines = source.splitlines()
        start = max(1, len(lines) + read.start + 1) if read.start < 0 else read.start
        end = len(lines) if read.end is None else min(len(lines), read.end)
        if read.numbered:
            out = _output(source, start, end)
        else:
            out = {"output": "".join(f"{line}\n" for line in lines[start - 1 : end]), "returncode": 0, "exception_info": ""}
        content, record = pipe.observe(command, out)
        kinds.add(record["kind"])
        text = pipe._text(out, None)
        if record["kind"] == "image":
            assert _prompt(content, tokenizer, family) < _prompt(text, tokenizer, family), command
        else:
            assert content == text and record["text_reason"] in ("cheaper_as_text", "render_failed"), command


@pytest.mark.parametrize("condition", ["r1", "r3", "r7"])
def test_undrawn_pages_account_exactly_as_drawn_ones(condition):
    """draw_pages=False (the counterfactual replay's fast path): same decisions, records and
    prompt tokens as drawing the pages, and blank pages of the drawn pages' sizes."""
    checked = 0
    for command, source in FIXTURE_READS[:8] + [("nl -ba m.py | sed -n '1,200p'", SOURCE)]:
        read = detect_code_read(command)
        out = {"output": source, "returncode": 0, "exception_info": ""}
        results = []
        for draw in (True, False):
            cfg = ObservationConfig(condition=condition, tokenizer="qwen3", image_family="qwen3.5", draw_pages=draw)
            results.append(ObservationPipeline(cfg, {read.path: source}.get, TEMPLATE).observe(command, out))
        (drawn, drawn_record), (blank, blank_record) = results
        assert blank_record == drawn_record, command
        assert _prompt(blank, "qwen3", "qwen3.5") == _prompt(drawn, "qwen3", "qwen3.5"), command
        if drawn_record["kind"] == "image":
            sizes = [[data_url_size(p["image_url"]["url"]) for p in c if p["type"] == "image_url"] for c in (drawn, blank)]
            assert sizes[0] == sizes[1] and sizes[0], command
            checked += 1
    assert checked >= 2
