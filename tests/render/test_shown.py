"""The one rule for which characters a page shows (swevis.render.shown): what a terminal
shows of the text, read alike by the layout, the rasterizer, the OCR reference and the
page's token accounting."""

from __future__ import annotations

import pytest

from swevis.render import RenderError, prepare_lines, render_window
from swevis.render.core import MissingGlyphs, renderable_text
from swevis.render.raster import visible_rows
from swevis.render.shown import shown_text
from swevis.tokens import text_tokens

PYTEST_COLOURED = (
    "\x1b[1m============================= test session starts ==============================\x1b[0m\n"
    "collected 3 items\n\n"
    "tests/test_größe.py \x1b[32m.\x1b[0m\x1b[31mF\x1b[0m\x1b[32m.\x1b[0m\x1b[31m"
    "                                          [100%]\x1b[0m\n\n"
    "\x1b[31m\x1b[1m_________________________ test_größe_in_Zoll __________________________\x1b[0m\n\n"
    "    def test_größe_in_Zoll():\n"
    "\x1b[1m\x1b[31m>       assert größe(\"10 cm\") == \"3,94″\"\x1b[0m\n"
    "\x1b[1m\x1b[31mE       AssertionError: assert '3.94″' == '3,94″'\x1b[0m\n"
    "\x1b[31mFAILED\x1b[0m tests/test_größe.py::test_größe_in_Zoll - AssertionError: 3.94″ ≠ 3,94″\n"
    "\x1b[31m========================= \x1b[31m\x1b[1m1 failed\x1b[0m, \x1b[32m2 passed\x1b[0m\x1b[31m in 0.12s\x1b[0m"
    "\x1b[31m ==========================\x1b[0m\n"
)


def _plain(coloured: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", coloured)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred\x1b[0m plain", "red plain"),  # SGR colour
        ("a\x1b[2K\x1b[1Gb", "ab"),  # erase line, cursor to column 1
        ("\x1b]8;;https://example.org\x07link\x1b]8;;\x07", "link"),  # OSC 8 hyperlink, BEL-terminated
        ("\x1b]0;title\x1b\\x", "x"),  # OSC title, ST-terminated
        ("\x1b(Bx\x1b=", "x"),  # charset designation, keypad mode
        ("\x9b1mC1 CSI", "C1 CSI"),  # the one-byte CSI
        ("N\bNA\bAM\bME", "NAME"),  # overstruck bold
        ("_\bx_\by", "xy"),  # overstruck underline
        ("\bno cell before", "no cell before"),
        ("10%\r50%\r\n", "10%\n50%\n"),  # a bare CR ends a line, as splitlines does
        ("a\x07b\x0bc\x0cd\x7fe\x85f", "abcdef"),  # BEL, VT, FF, DEL, C1 NEL show nothing
        ("zero\u200bwidth\ufeff", "zerowidth"),  # invisible characters take no cell
        ("no\u00a0break\u2028sep", "no break sep"),
        ("wide\u3000space", "wide  space"),  # an ideographic space takes two cells
        ("tab\tstays", "tab\tstays"),
        ("\x1b", ""),  # a lone ESC at the end
        ("\x1b[", ""),  # a cut CSI
    ],
)
def test_a_page_shows_what_a_terminal_shows(raw, shown):
    assert shown_text(raw) == shown


def test_the_rule_is_stable_when_applied_twice():
    for raw in (PYTEST_COLOURED, "a\x1b\x1b[31m[b\x08\x08c\rd\x9bx", "\x1b]8;;x\x1b[31m"):
        assert shown_text(shown_text(raw)) == shown_text(raw)


def test_a_coloured_page_is_the_page_of_its_plain_text():
    """Colour codes change no pixel, no layout and no token of the page: the legibility of
    pages of coloured output is that of the same output uncoloured."""
    coloured = render_window("out.txt", 1, PYTEST_COLOURED, 3, "qwen3", "qwen3.5")
    plain = render_window("out.txt", 1, _plain(PYTEST_COLOURED), 3, "qwen3", "qwen3.5")
    assert coloured.png_bytes() == plain.png_bytes()
    assert coloured.layout == plain.layout
    assert coloured.text_tokens == text_tokens(_plain(PYTEST_COLOURED), "qwen3") < text_tokens(PYTEST_COLOURED, "qwen3")


def test_the_ocr_reference_is_the_shown_text():
    res = render_window("out.txt", 1, PYTEST_COLOURED, 1, "qwen3", "qwen3.5")
    lines = prepare_lines(PYTEST_COLOURED)
    rows = [r[res.plan.gutter :] for p in range(res.plan.pages) for c in range(len(res.plan.page_columns[p]))
            for r in visible_rows(lines, 1, res.plan, p, c)]
    assert "\x1b" not in "".join(rows) and "test_größe_in_Zoll" in "".join(rows)


@pytest.mark.parametrize(
    ("text", "error", "says"),
    [
        ("a\x00b\n", RenderError, "NUL"),
        ("\x1b[31m\x1b[0m\n\x07\n", RenderError, "shows nothing"),
        ("bad \udcff byte\n", MissingGlyphs, r"U\+DCFF"),  # invalid UTF-8 read with surrogateescape
        ("private \ue000 use\n", MissingGlyphs, r"U\+E000"),
    ],
)
def test_text_no_page_can_show_is_refused_in_one_line(text, error, says):
    with pytest.raises(error, match=says):
        renderable_text("out.txt:1", text)
    with pytest.raises(error, match=says):
        render_window("out.txt", 1, text, 3, "qwen3", "qwen3.5")
