import pytest

from tabulon.wrap import wrap_text


def test_wrap_words():
    assert wrap_text("the quick brown fox", 10) == ["the quick", "brown fox"]


def test_wrap_keeps_newlines():
    assert wrap_text("a\nb c", 10) == ["a", "b c"]


def test_long_words_are_broken():
    assert wrap_text("abcdefghij", 4) == ["abcd", "efgh", "ij"]


def test_wrap_wide_characters():
    assert wrap_text("東京都庁舎", 4) == ["東京", "都庁", "舎"]


def test_empty_string():
    assert wrap_text("", 5) == [""]


def test_invalid_width():
    with pytest.raises(ValueError):
        wrap_text("x", 0)
