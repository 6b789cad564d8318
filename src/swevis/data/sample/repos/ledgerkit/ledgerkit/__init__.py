"""ledgerkit: a small double-entry bookkeeping library."""

from .accounts import (
    Account,
    AccountType,
    AssetAccount,
    ChartOfAccounts,
    EquityAccount,
    ExpenseAccount,
    IncomeAccount,
    LiabilityAccount,
    make_account,
)
from .currency import Currency, ExchangeRates, get_currency, register_currency
from .errors import (
    AccountError,
    CsvImportError,
    CurrencyError,
    LedgerError,
    UnbalancedEntryError,
)
from .journal import Journal, JournalEntry, Posting, credit, debit
from .ledger import Ledger
from .money import Money, format_amount

__version__ = "0.1"

__all__ = [
    "Account", "AccountError", "AccountType", "AssetAccount", "ChartOfAccounts",
    "CsvImportError", "Currency", "CurrencyError", "EquityAccount", "ExchangeRates",
    "ExpenseAccount", "IncomeAccount", "Journal", "JournalEntry", "Ledger", "LedgerError",
    "LiabilityAccount", "Money", "Posting", "UnbalancedEntryError", "credit", "debit",
    "format_amount", "get_currency", "make_account", "register_currency",
]
