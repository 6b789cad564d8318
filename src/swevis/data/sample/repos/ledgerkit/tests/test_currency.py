from decimal import Decimal

import pytest

from ledgerkit import Currency, CurrencyError, ExchangeRates, Money, get_currency, register_currency


def test_lookup_is_case_insensitive():
    assert get_currency("usd").code == "USD"


def test_quantum_follows_exponent():
    assert get_currency("USD").quantum == Decimal("0.01")
    assert get_currency("JPY").quantum == Decimal("1")
    assert get_currency("KWD").quantum == Decimal("0.001")


def test_unknown_currency():
    with pytest.raises(CurrencyError):
        get_currency("XYZ")


def test_register_currency():
    register_currency(Currency("BTN", 2))
    assert get_currency("btn").exponent == 2


def test_rates_inverse_direction():
    rates = ExchangeRates()
    rates.set_rate("EUR", "USD", "1.25")
    assert rates.rate("USD", "EUR") == Decimal("0.8")


def test_convert_rounds_to_target():
    rates = ExchangeRates()
    rates.set_rate("EUR", "USD", "1.0837")
    assert rates.convert(Money("10", "EUR"), "USD") == Money("10.84", "USD")


def test_missing_rate():
    with pytest.raises(CurrencyError):
        ExchangeRates().rate("EUR", "GBP")
