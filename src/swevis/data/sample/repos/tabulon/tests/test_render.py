import pytest

from tabulon import IntColumn, RenderError, Table, TextColumn
from tabulon.layout import compute_widths


def test_plain_render(sales):
    text = sales.render()
    assert text == (
        "region  units    revenue  share\n"
        "------  -----  ---------  -----\n"
        "North   1,200  15,300.50  41.0%\n"
        "South     310   4,100.00  11.0%\n"
        "East      950  12,000.25  32.0%\n"
        "West      600   6,020.00  16.0%\n"
    )


def test_plain_without_header(sales):
    text = sales.render(show_header=False)
    assert text.splitlines()[0].startswith("North")


def test_markdown_alignment_row(sales):
    lines = sales.render("markdown").splitlines()
    assert lines[0] == "| region | units |   revenue | share |"
    assert lines[1] == "| ------ | ----: | --------: | ----: |"
    assert lines[2] == "| North  | 1,200 | 15,300.50 | 41.0% |"


def test_markdown_escapes_pipes():
    table = Table([TextColumn("cmd")]).add_row(["a | b"])
    assert "a \\| b" in table.render("md")


def test_rst_render():
    table = Table([TextColumn("name"), IntColumn("size")]).extend([["alpha", 12]])
    assert table.render("rst") == (
        "=====  ====\n"
        "name   size\n"
        "=====  ====\n"
        "alpha    12\n"
        "=====  ====\n"
    )


def test_wrapping_under_max_width():
    table = Table([TextColumn("id"), TextColumn("note", wrap=True)])
    table.add_row(["1", "a fairly long note that needs wrapping"])
    lines = table.render(max_width=20).splitlines()
    assert all(len(line) <= 20 for line in lines)
    assert lines[2] == "1   a fairly long"


def test_truncation_with_max_width_column():
    table = Table([TextColumn("name", max_width=5)]).add_row(["abcdefgh"])
    assert table.render().splitlines()[2] == "abcd…"


def test_unknown_format(sales):
    with pytest.raises(RenderError, match="unknown format"):
        sales.render("html")


def test_table_too_wide():
    with pytest.raises(RenderError):
        compute_widths([TextColumn("a")], ["a"], [["xxxxxxxxxx"]], max_total=5)
