"""The :class:`Ledger`: a chart of accounts plus a journal, with balance queries."""

import datetime as _dt
from decimal import Decimal

from .accounts import ChartOfAccounts, make_account
from .errors import AccountError, CurrencyError
from .journal import Journal, JournalEntry, Posting
from .money import Money


def _as_date(value):
    if value is None or isinstance(value, _dt.date):
        return value
    return _dt.date.fromisoformat(str(value))


def _in_period(day, start=None, end=None) -> bool:
    """True if ``day`` falls in the reporting period ``start`` .. ``end``."""
    if start is not None and day < start:
        return False
    if end is not None and day >= end:
        return False
    return True


class Ledger:
    """A book of accounts kept in a single reporting currency."""

    def __init__(self, currency="USD"):
        self.currency = Money.zero(currency).currency
        self.chart = ChartOfAccounts()
        self.journal = Journal()

    # -- set up -----------------------------------------------------------------------
    def open_account(self, account_type, name, description=""):
        """Create and register an account in the ledger currency."""
        return self.chart.add(make_account(account_type, name, self.currency, description))

    def account(self, name):
        return self.chart.get(name)

    # -- recording -----------------------------------------------------------------
    def record(self, entry: JournalEntry) -> JournalEntry:
        """Validate ``entry`` against the chart and add it to the journal."""
        for posting in entry.postings:
            account = self.chart.get(posting.account)
            if posting.amount.currency != account.currency:
                raise CurrencyError(
                    f"posting to {account.name} is in {posting.amount.currency.code}, "
                    f"account is kept in {account.currency.code}"
                )
        return self.journal.add(entry)

    def post(self, date, description, lines, reference=None) -> JournalEntry:
        """Record an entry from ``(account, amount)`` pairs; positive amounts debit."""
        postings = [Posting(acc, Money(amount, self.currency)) for acc, amount in lines]
        return self.record(JournalEntry(date, description, postings, reference))

    # -- queries ---------------------------------------------------------------------
    def postings(self, name, start=None, end=None, include_children=True):
        """Yield ``(entry, posting)`` pairs touching account ``name`` in a period.

        ``start`` and ``end`` are both inclusive; either may be ``None``.
        """
        if name not in self.chart:
            raise AccountError(f"unknown account {name!r}")
        start, end = _as_date(start), _as_date(end)
        names = {a.name for a in self.chart.descendants(name)} if include_children else {name}
        for entry in self.journal:
            if not _in_period(entry.date, start, end):
                continue
            for posting in entry.postings:
                if posting.account in names:
                    yield entry, posting

    def totals(self, name, start=None, end=None, include_children=True):
        """Return ``(debits, credits)`` as Decimals for account ``name``."""
        debits = credits = Decimal(0)
        for _entry, posting in self.postings(name, start, end, include_children):
            debits += posting.debit
            credits += posting.credit
        return debits, credits

    def balance(self, name, as_of=None, start=None) -> Money:
        """Balance of ``name`` (and its sub-accounts) on its normal side.

        Entries dated ``as_of`` are included; with ``start`` the balance only
        covers the period ``start`` .. ``as_of``.
        """
        account = self.chart.get(name)
        debits, credits = self.totals(name, start, as_of)
        return Money(account.signed_balance(debits, credits), self.currency)

    def balances(self, as_of=None, account_type=None):
        """Mapping of account name to balance for every (or every typed) account."""
        accounts = self.chart.by_type(account_type) if account_type else list(self.chart)
        return {a.name: self.balance(a.name, as_of) for a in accounts}
