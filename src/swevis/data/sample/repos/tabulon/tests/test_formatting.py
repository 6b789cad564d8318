import pytest

from tabulon.formatting import (
    display_width,
    format_bytes,
    format_number,
    format_percent,
    group_thousands,
    truncate,
)


@pytest.mark.parametrize("digits,expected", [
    ("1", "1"), ("123", "123"), ("1234", "1,234"), ("1234567", "1,234,567"),
])
def test_group_thousands(digits, expected):
    assert group_thousands(digits) == expected


def test_format_number_decimals():
    assert format_number(1234.567, 2) == "1,234.57"
    assert format_number(1234.567, 1, thousands=False) == "1234.6"


def test_format_number_small_negative():
    assert format_number(-42) == "-42"
    assert format_number(-1234) == "-1,234"


def test_format_percent():
    assert format_percent(0.1234) == "12.3%"


def test_format_bytes():
    assert format_bytes(512) == "512 B"
    assert format_bytes(1536) == "1.5 KiB"


def test_display_width_wide_and_combining():
    assert display_width("abc") == 3
    assert display_width("東京") == 4
    assert display_width("e\u0301") == 1


def test_truncate():
    assert truncate("abcdef", 4) == "abc…"
    assert truncate("abc", 4) == "abc"
    assert truncate("東京都庁", 5) == "東京…"
