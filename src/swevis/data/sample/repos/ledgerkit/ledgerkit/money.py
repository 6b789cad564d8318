"""Exact monetary amounts.

:class:`Money` wraps a :class:`decimal.Decimal` amount together with a
:class:`~ledgerkit.currency.Currency`. Arithmetic between two amounts of
different currencies raises :class:`~ledgerkit.errors.CurrencyError`.
"""

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

from .currency import Currency, get_currency
from .errors import CurrencyError

_CENT = Decimal("0.01")


def to_decimal(value) -> Decimal:
    """Convert ints, strings and Decimals to Decimal (floats go through ``str``)."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, float):
        value = repr(value)
    try:
        return Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        raise ValueError(f"not a valid amount: {value!r}") from None


class Money:
    """An amount of money in one currency."""

    __slots__ = ("amount", "currency")

    def __init__(self, amount=0, currency="USD"):
        self.amount = to_decimal(amount)
        self.currency = get_currency(currency)

    # -- construction helpers -------------------------------------------------
    @classmethod
    def zero(cls, currency="USD") -> "Money":
        return cls(0, currency)

    @classmethod
    def sum(cls, items, currency="USD") -> "Money":
        """Sum an iterable of Money; an empty iterable gives zero in ``currency``."""
        total = cls.zero(currency)
        for item in items:
            total = total + item
        return total

    # -- comparisons ------------------------------------------------------------
    def _check(self, other) -> "Money":
        if not isinstance(other, Money):
            raise TypeError(f"expected Money, got {type(other).__name__}")
        if other.currency != self.currency:
            raise CurrencyError(
                f"cannot combine {self.currency.code} and {other.currency.code}"
            )
        return other

    def __eq__(self, other):
        if not isinstance(other, Money):
            return NotImplemented
        return self.currency == other.currency and self.amount == other.amount

    def __hash__(self):
        return hash((self.amount, self.currency.code))

    def __lt__(self, other):
        return self.amount < self._check(other).amount

    def __le__(self, other):
        return self.amount <= self._check(other).amount

    def __gt__(self, other):
        return self.amount > self._check(other).amount

    def __ge__(self, other):
        return self.amount >= self._check(other).amount

    def __bool__(self):
        return bool(self.amount)

    # -- arithmetic ---------------------------------------------------------------
    def __add__(self, other):
        if other == 0:
            return self
        return Money(self.amount + self._check(other).amount, self.currency)

    __radd__ = __add__

    def __sub__(self, other):
        return Money(self.amount - self._check(other).amount, self.currency)

    def __neg__(self):
        return Money(-self.amount, self.currency)

    def __abs__(self):
        return Money(abs(self.amount), self.currency)

    def __mul__(self, factor):
        if isinstance(factor, Money):
            raise TypeError("cannot multiply Money by Money")
        return Money(self.amount * to_decimal(factor), self.currency)

    __rmul__ = __mul__

    def __truediv__(self, divisor):
        if isinstance(divisor, Money):
            return self.amount / self._check(divisor).amount
        return Money(self.amount / to_decimal(divisor), self.currency)

    def is_negative(self) -> bool:
        return self.amount < 0

    # -- rounding and splitting ---------------------------------------------------
    def round(self) -> "Money":
        """Round to the currency's minor unit using banker's rounding."""
        return Money(self.amount.quantize(_CENT, rounding=ROUND_HALF_EVEN), self.currency)

    def allocate(self, ratios):
        """Split into parts proportional to ``ratios`` without losing a minor unit.

        The remainder left by rounding each part down is handed out one minor
        unit at a time, starting with the first part.
        """
        ratios = [to_decimal(r) for r in ratios]
        if not ratios or any(r < 0 for r in ratios) or sum(ratios) == 0:
            raise ValueError("ratios must be non-negative and not all zero")
        quantum = self.currency.quantum
        total = sum(ratios)
        parts = [
            (self.amount * r / total).quantize(quantum, rounding="ROUND_DOWN")
            for r in ratios
        ]
        remainder = self.amount.quantize(quantum) - sum(parts)
        step = quantum if remainder >= 0 else -quantum
        i = 0
        while remainder != 0:
            parts[i % len(parts)] += step
            remainder -= step
            i += 1
        return [Money(p, self.currency) for p in parts]

    # -- display --------------------------------------------------------------------
    def __repr__(self):
        return f"Money('{self.amount}', '{self.currency.code}')"

    def __str__(self):
        return f"{format_amount(self)} {self.currency.code}"


def format_amount(money: Money, grouping: bool = True) -> str:
    """Format the amount of ``money`` rounded to its minor unit.

    >>> format_amount(Money("1234.5", "USD"))
    '1,234.50'
    """
    rounded = money.round().amount
    return f"{rounded:,f}" if grouping else f"{rounded:f}"


def same_currency(items) -> Currency:
    """Return the common currency of a non-empty iterable of Money."""
    currencies = {m.currency for m in items}
    if len(currencies) != 1:
        codes = ", ".join(sorted(c.code for c in currencies)) or "none"
        raise CurrencyError(f"expected a single currency, got {codes}")
    return currencies.pop()
