import pytest

from ledgerkit import AccountError, CurrencyError, JournalEntry, Money, credit, debit


def test_balance_of_leaf_account(ledger):
    assert ledger.balance("Assets:Bank:Checking") == Money("951.25")


def test_parent_balance_includes_children(ledger):
    ledger.open_account("asset", "Assets")
    assert ledger.balance("Assets") == Money("1071.25")


def test_income_balance_is_positive(ledger):
    assert ledger.balance("Income:Sales") == Money("570")


def test_balance_as_of_before_later_entries(ledger):
    assert ledger.balance("Income:Sales", as_of="2024-02-01") == Money("450")


def test_balance_for_period(ledger):
    assert ledger.balance("Income:Sales", start="2024-02-01", as_of="2024-02-20") == Money("120")


def test_unknown_account(ledger):
    with pytest.raises(AccountError):
        ledger.balance("Assets:Petty")


def test_record_checks_currency(ledger):
    entry = JournalEntry("2024-03-01", "x",
                         [debit("Assets:Cash", 5, "EUR"), credit("Income:Sales", 5, "EUR")])
    with pytest.raises(CurrencyError):
        ledger.record(entry)


def test_balances_by_type(ledger):
    assert ledger.balances(account_type="expense") == {
        "Expenses:Rent": Money("300"),
        "Expenses:Supplies": Money("75.50"),
    }
