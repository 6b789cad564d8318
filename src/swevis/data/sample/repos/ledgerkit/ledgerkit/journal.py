"""Journal entries and the journal that stores them."""

import datetime as _dt
import itertools

from .errors import UnbalancedEntryError
from .money import Money, same_currency


class Posting:
    """One line of a journal entry.

    A positive amount is a debit, a negative amount is a credit.
    """

    __slots__ = ("account", "amount", "memo")

    def __init__(self, account: str, amount: Money, memo: str = ""):
        if not isinstance(amount, Money):
            raise TypeError("posting amount must be Money")
        self.account = account
        self.amount = amount
        self.memo = memo

    @property
    def is_debit(self) -> bool:
        return self.amount.amount > 0

    @property
    def debit(self):
        return self.amount.amount if self.amount.amount > 0 else 0

    @property
    def credit(self):
        return -self.amount.amount if self.amount.amount < 0 else 0

    def __repr__(self):
        return f"Posting({self.account!r}, {self.amount!r})"


def debit(account, amount, currency="USD", memo=""):
    """Shorthand for a debit posting."""
    return Posting(account, abs(Money(amount, currency)), memo)


def credit(account, amount, currency="USD", memo=""):
    """Shorthand for a credit posting."""
    return Posting(account, -abs(Money(amount, currency)), memo)


class JournalEntry:
    """A dated, balanced set of postings."""

    _ids = itertools.count(1)

    def __init__(self, date, description, postings, reference=None):
        if isinstance(date, str):
            date = _dt.date.fromisoformat(date)
        self.date = date
        self.description = description
        self.postings = list(postings)
        self.reference = reference or f"JE{next(self._ids):05d}"

    @property
    def currency(self):
        return same_currency(p.amount for p in self.postings)

    def total_debits(self) -> Money:
        return Money.sum((p.amount for p in self.postings if p.is_debit), self.currency)

    def total_credits(self) -> Money:
        return -Money.sum((p.amount for p in self.postings if not p.is_debit), self.currency)

    def validate(self) -> None:
        """Raise if the entry has fewer than two postings or does not balance."""
        if len(self.postings) < 2:
            raise UnbalancedEntryError(self, "a single posting")
        difference = self.total_debits() - self.total_credits()
        if difference.amount != 0:
            raise UnbalancedEntryError(self, difference)

    def accounts(self):
        return sorted({p.account for p in self.postings})

    def __repr__(self):
        return f"JournalEntry({self.date.isoformat()}, {self.description!r}, {len(self.postings)} postings)"


class Journal:
    """Entries ordered by date (stable for entries on the same day)."""

    def __init__(self):
        self._entries = []

    def add(self, entry: JournalEntry) -> JournalEntry:
        entry.validate()
        self._entries.append(entry)
        self._entries.sort(key=lambda e: e.date)
        return entry

    def __iter__(self):
        return iter(self._entries)

    def __len__(self):
        return len(self._entries)

    def find(self, reference):
        for entry in self._entries:
            if entry.reference == reference:
                return entry
        return None

    def for_account(self, account_name):
        return [e for e in self._entries if account_name in e.accounts()]
