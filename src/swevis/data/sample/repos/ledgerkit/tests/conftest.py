import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ledgerkit import Ledger  # noqa: E402


@pytest.fixture
def ledger():
    """A small business ledger covering January and February 2024."""
    book = Ledger("USD")
    for kind, name in [
        ("asset", "Assets:Cash"),
        ("asset", "Assets:Bank:Checking"),
        ("asset", "Assets:Receivables"),
        ("liability", "Liabilities:CreditCard"),
        ("equity", "Equity:Capital"),
        ("income", "Income:Sales"),
        ("income", "Income:Interest"),
        ("expense", "Expenses:Rent"),
        ("expense", "Expenses:Supplies"),
    ]:
        book.open_account(kind, name)
    book.post("2024-01-02", "Owner investment",
              [("Assets:Bank:Checking", "800"), ("Equity:Capital", "-800")], "JE1")
    book.post("2024-01-15", "Consulting invoice",
              [("Assets:Receivables", "450"), ("Income:Sales", "-450")], "JE2")
    book.post("2024-01-20", "January rent",
              [("Expenses:Rent", "300"), ("Assets:Bank:Checking", "-300")], "JE3")
    book.post("2024-01-31", "Office supplies",
              [("Expenses:Supplies", "75.50"), ("Liabilities:CreditCard", "-75.50")], "JE4")
    book.post("2024-02-05", "Customer payment",
              [("Assets:Bank:Checking", "450"), ("Assets:Receivables", "-450")], "JE5")
    book.post("2024-02-10", "Cash sale",
              [("Assets:Cash", "120"), ("Income:Sales", "-120")], "JE6")
    book.post("2024-02-28", "Bank interest",
              [("Assets:Bank:Checking", "1.25"), ("Income:Interest", "-1.25")], "JE7")
    return book
