import datetime as dt

import pytest

from ledgerkit import CurrencyError, Journal, JournalEntry, UnbalancedEntryError, credit, debit


def test_balanced_entry_validates():
    entry = JournalEntry("2024-03-01", "Sale", [debit("Cash", "10"), credit("Sales", "10")])
    entry.validate()
    assert entry.date == dt.date(2024, 3, 1)
    assert entry.accounts() == ["Cash", "Sales"]


def test_unbalanced_entry_raises():
    entry = JournalEntry("2024-03-01", "Oops", [debit("Cash", "10"), credit("Sales", "9.99")])
    with pytest.raises(UnbalancedEntryError) as info:
        entry.validate()
    assert "0.01" in str(info.value)


def test_single_posting_is_rejected():
    with pytest.raises(UnbalancedEntryError):
        JournalEntry("2024-03-01", "x", [debit("Cash", "0")]).validate()


def test_mixed_currency_entry():
    entry = JournalEntry("2024-03-01", "x", [debit("Cash", "1", "EUR"), credit("Sales", "1")])
    with pytest.raises(CurrencyError):
        entry.validate()


def test_journal_keeps_date_order():
    journal = Journal()
    journal.add(JournalEntry("2024-03-05", "b", [debit("A", 1), credit("B", 1)], "R2"))
    journal.add(JournalEntry("2024-03-01", "a", [debit("A", 1), credit("B", 1)], "R1"))
    assert [e.reference for e in journal] == ["R1", "R2"]
    assert journal.find("R2").description == "b"
    assert len(journal.for_account("A")) == 2
