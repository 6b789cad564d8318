"""Currencies, their minor units, and exchange rates between them."""

from dataclasses import dataclass
from decimal import Decimal

from .errors import CurrencyError


@dataclass(frozen=True)
class Currency:
    """An ISO 4217 currency.

    ``exponent`` is the number of digits after the decimal point used for the
    minor unit (2 for USD cents, 0 for JPY, 3 for KWD fils).
    """

    code: str
    exponent: int = 2
    symbol: str = ""

    @property
    def quantum(self) -> Decimal:
        """The smallest representable amount, e.g. ``Decimal('0.01')``."""
        return Decimal(1).scaleb(-self.exponent)

    def __str__(self) -> str:
        return self.code


_REGISTRY = {}


def register_currency(currency: Currency) -> Currency:
    """Add ``currency`` to the registry (replacing one with the same code)."""
    _REGISTRY[currency.code.upper()] = currency
    return currency


for _cur in (
    Currency("USD", 2, "$"),
    Currency("EUR", 2, "€"),
    Currency("GBP", 2, "£"),
    Currency("CHF", 2, ""),
    Currency("JPY", 0, "¥"),
    Currency("KRW", 0, "₩"),
    Currency("KWD", 3, ""),
):
    register_currency(_cur)


def get_currency(code) -> Currency:
    """Return the registered currency for ``code`` (a string or a Currency)."""
    if isinstance(code, Currency):
        return code
    try:
        return _REGISTRY[str(code).upper()]
    except KeyError:
        raise CurrencyError(f"unknown currency {code!r}") from None


def known_currencies():
    """Sorted list of registered currency codes."""
    return sorted(_REGISTRY)


class ExchangeRates:
    """A table of exchange rates.

    ``set_rate("EUR", "USD", "1.10")`` means one euro buys 1.10 dollars. The
    inverse direction is derived automatically when it is not set explicitly.
    """

    def __init__(self):
        self._rates = {}

    def set_rate(self, base, quote, rate) -> None:
        base, quote = get_currency(base).code, get_currency(quote).code
        rate = Decimal(str(rate))
        if rate <= 0:
            raise CurrencyError(f"exchange rate must be positive, got {rate}")
        self._rates[(base, quote)] = rate

    def rate(self, base, quote) -> Decimal:
        base, quote = get_currency(base).code, get_currency(quote).code
        if base == quote:
            return Decimal(1)
        if (base, quote) in self._rates:
            return self._rates[(base, quote)]
        if (quote, base) in self._rates:
            return Decimal(1) / self._rates[(quote, base)]
        raise CurrencyError(f"no exchange rate from {base} to {quote}")

    def convert(self, money, to):
        """Convert a :class:`~ledgerkit.money.Money` into currency ``to``."""
        from .money import Money

        target = get_currency(to)
        amount = money.amount * self.rate(money.currency, target)
        return Money(amount, target).round()
