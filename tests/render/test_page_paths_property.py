"""Every page path, with its pages drawn, over any text: code windows at every ratio, long
observations (obs-rN), old history (hist-rN) and the single-read study. Each text is either
drawn, every character of it from a font that has its glyph, or kept as text with its
reason (missing_glyph, render_failed, cheaper_as_text); nothing else is raised.

The text is drawn from every Unicode general category (lone surrogates, the Cs category,
included), ASCII and C1 control characters, ANSI escape sequences, invalid UTF-8 read with
surrogateescape, very long lines and empty lines."""

from __future__ import annotations

import io
import unicodedata

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings
from PIL import Image

from swevis.agents.observation.observe import ObservationConfig, ObservationPipeline
from swevis.agents.observation.pages import HistoryPages, TextPages
from swevis.analysis.single_read import layout_rows
from swevis.analysis.single_read_windows import sample_windows
from swevis.errors import SwevisError
from swevis.render import RenderSettings, render_window
from swevis.render.core import MissingGlyphs, RenderError, renderable_text
from swevis.render.fonts import font_index
from swevis.render.shown import shown_text

pytestmark = pytest.mark.slow

CATEGORIES = ["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf",
              "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"]
ANSI = ["\x1b[31m", "\x1b[0m", "\x1b[1;32m", "\x1b[38;5;208m", "\x1b[2K", "\x1b[1G", "\x1b[3A", "\x1b[?25l",
        "\x1b]8;;https://example.org\x07", "\x1b]0;title\x1b\\", "\x1b(B", "\x9b31m", "\x1b", "\x1b["]
CONTROLS = [chr(c) for c in range(0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)]
WORDS = ["def", "return", "x = 1", "FAILED", "passed", "größe", "€", "naïve", "测试", "テスト", "λ", "→", "  ", "\t"]

any_category = st.sampled_from(CATEGORIES).flatmap(lambda c: st.text(st.characters(categories=[c]), min_size=1,
                                                                       max_size=4))
invalid_utf8 = st.binary(min_size=1, max_size=6).map(lambda b: b.decode("utf-8", "surrogateescape"))
long_line = st.integers(min_value=500, max_value=4000).map(lambda n: ("word " * n)[:n] + "\n")
# what a terminal shows drawn, and what it does not show
drawable_piece = st.one_of(st.sampled_from(WORDS), st.sampled_from(ANSI), st.sampled_from(CONTROLS),
                           st.just("\n"), st.just("\n\n\n"), long_line)
any_piece = st.one_of(drawable_piece, any_category, invalid_utf8)
drawable_text = st.lists(drawable_piece, min_size=1, max_size=40).map("".join)
any_text = st.lists(any_piece, min_size=1, max_size=40).map("".join)
texts = st.one_of(drawable_text, any_text)

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
REASONS = {"missing_glyph", "render_failed", "cheaper_as_text"}


def expected_failure(text: str) -> str | None:
    """The reason no page can show `text`, or None."""
    try:
        renderable_text("t:1", text)
    except MissingGlyphs:
        return "missing_glyph"
    except RenderError:
        return "render_failed"
    return None


def assert_drawn(pngs: list[bytes], text: str) -> None:
    """Pages that are real PNG images, and every character the page shows has a glyph."""
    assert pngs
    for png in pngs:
        with Image.open(io.BytesIO(png)) as im:
            im.load()
            assert im.width > 0 and im.height > 0
    shown = shown_text(text)
    assert all(ch.isspace() or font_index(ch) is not None for ch in set(shown)), "a character drawn from no font"
    assert not any(unicodedata.category(ch) == "Cc" for ch in shown.replace("\n", "").replace("\t", ""))


def images(content) -> list[bytes]:
    import base64

    parts = content if isinstance(content, list) else []
    return [base64.b64decode(p["image_url"]["url"].split(",", 1)[1]) for p in parts if p.get("type") == "image_url"]


@SETTINGS
@given(text=texts)
def test_a_code_window_is_drawn_or_refused_with_its_reason_at_every_ratio(text):
    expected = expected_failure(text)
    for ratio in (1, 3, 5, 7):
        try:
            res = render_window("module.py", 10, text, ratio, "qwen3", "qwen3.5")
        except MissingGlyphs:
            assert expected == "missing_glyph"
        except RenderError:
            assert expected == "render_failed"
        else:
            assert expected is None
            assert_drawn(res.png_bytes(), text)


@SETTINGS
@given(text=texts)
def test_a_code_window_in_an_observation_is_drawn_or_kept_with_its_reason(text):
    body = text if text.endswith("\n") else text + "\n"
    lines = body.split("\n")[:-1]
    output = "".join(f"{n:6d}\t{line}\n" for n, line in enumerate(lines, 1))
    cfg = ObservationConfig(condition="r3", tokenizer="qwen3", image_family="qwen3.5")
    pipe = ObservationPipeline(cfg, {"m.py": body}.get, "{{ output.output }}")
    content, record = pipe.observe(f"nl -ba m.py | sed -n '1,{len(lines)}p'", {"output": output, "returncode": 0})
    if record.get("kind") == "image":
        assert_drawn(images(content), body)
    elif record.get("window"):  # a code window kept as text says why
        assert record.get("text_reason") in REASONS | {"over_max_window_chars"}


@SETTINGS
@given(text=texts)
def test_a_long_observation_is_drawn_or_kept_with_its_reason(text):
    output = text * 3 + "\n" + "x = compute(value) + other\n" * 40  # long enough to be rendered under obs-r3
    cfg = ObservationConfig(condition="obs-r3", tokenizer="qwen3", image_family="qwen3.5")
    pipe = ObservationPipeline(cfg, {}.get, "{{ output.output }}")
    content, record = pipe.finish(output, {"kind": "text", "pages": 0})
    assert set(record.get("output_text_reasons", [])) <= {"missing_glyph", "render_failed"}
    if expected_failure(output) is None:
        assert "missing_glyph" not in record.get("output_text_reasons", [])
    pngs = images(content)
    if pngs:
        assert record["output_pages"] == len(pngs)
        for png in pngs:
            Image.open(io.BytesIO(png)).load()
    else:
        assert content == output  # kept as text: the bytes the tool printed


@SETTINGS
@given(text=texts)
def test_old_history_is_drawn_or_kept_with_its_reason(text):
    messages = [{"role": "system", "content": "You fix bugs."}, {"role": "user", "content": "Fix it."}]
    for i in range(4):
        messages.append({"role": "assistant", "content": f"Step {i}.\n```mswea_bash_command\npytest -x\n```"})
        messages.append({"role": "user", "content": text + "\n" + "E   assert total == 42\n" * 30})
    history = HistoryPages(TextPages(3.0, "qwen3", "qwen3.5", {}, draw_pages=True), keep=1, block=2, policy="transcript")
    request = history.request(messages)
    failed = history.kept_as_text()
    block = request[2]
    if images(block.get("content")):
        for png in images(block["content"]):
            Image.open(io.BytesIO(png)).load()
        assert failed == {}
    else:  # kept as text, unchanged, and why when it could not be drawn
        assert request == messages
        assert set(failed.values()) <= {"missing_glyph", "render_failed"}
        if "missing_glyph" in failed.values():
            assert any(expected_failure(m["content"]) == "missing_glyph" for m in messages[3:7:2])


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_the_single_read_study_draws_every_window_it_samples(tmp_path_factory, text):
    root = tmp_path_factory.mktemp("tree")
    source = ("def f(x):\n    return x\n" + text + "\n") * 3
    (root / "m.py").write_bytes(source.encode("utf-8", "surrogateescape"))
    try:
        windows = sample_windows([root], [8], 2, seed=1)
    except SwevisError as exc:  # no window of the file can be shown (or read): the study says so
        assert "could not draw" in str(exc) or "no readable" in str(exc) or "no source file" in str(exc)
        return
    for w in windows:
        assert expected_failure(w["text"]) is None
    backbones = {"qwen3.5": {"tokenizer": "qwen3", "image_family": "qwen3.5"}}
    rows, _ = layout_rows(windows, [1, 3], backbones, RenderSettings(), rasterize_all=True)
    assert len(rows) == 2 * len(windows)
