from decimal import Decimal

import pytest

from ledgerkit import CurrencyError, Money, format_amount


def test_money_from_string_and_int():
    assert Money("12.50").amount == Decimal("12.50")
    assert Money(3, "EUR").currency.code == "EUR"


def test_float_goes_through_repr():
    assert Money(0.1).amount == Decimal("0.1")


def test_invalid_amount_raises_value_error():
    with pytest.raises(ValueError):
        Money("twelve")


def test_addition_and_subtraction():
    assert Money("1.10") + Money("2.20") == Money("3.30")
    assert Money("5") - Money("7.25") == Money("-2.25")


def test_sum_builtin_works():
    assert sum([Money("1"), Money("2")]) == Money("3")


def test_mixing_currencies_raises():
    with pytest.raises(CurrencyError):
        Money("1", "USD") + Money("1", "EUR")


def test_round_half_even_usd():
    assert Money("2.345").round() == Money("2.34")
    assert Money("2.355").round() == Money("2.36")


def test_allocate_keeps_every_cent():
    parts = Money("100.00").allocate([1, 1, 1])
    assert [p.amount for p in parts] == [Decimal("33.34"), Decimal("33.33"), Decimal("33.33")]
    assert sum(parts) == Money("100.00")


def test_allocate_in_yen():
    parts = Money("1000", "JPY").allocate([1, 2])
    assert [p.amount for p in parts] == [Decimal("334"), Decimal("666")]


def test_allocate_rejects_zero_ratios():
    with pytest.raises(ValueError):
        Money("1").allocate([0, 0])


def test_format_amount_groups_thousands():
    assert format_amount(Money("1234567.5")) == "1,234,567.50"
    assert format_amount(Money("1234.5"), grouping=False) == "1234.50"


def test_str_contains_code():
    assert str(Money("-3.5", "EUR")) == "-3.50 EUR"
