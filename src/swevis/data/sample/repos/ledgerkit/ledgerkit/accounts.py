"""Accounts and the chart of accounts.

Account names are hierarchical and use ``:`` as separator, for example
``Assets:Bank:Checking``. Every account has a *normal side*: assets and
expenses grow with debits, liabilities, equity and income grow with credits.
"""

from abc import ABC, abstractmethod
from decimal import Decimal
from enum import Enum

from .currency import get_currency
from .errors import AccountError

SEPARATOR = ":"


class AccountType(Enum):
    ASSET = "asset"
    LIABILITY = "liability"
    EQUITY = "equity"
    INCOME = "income"
    EXPENSE = "expense"

    @classmethod
    def parse(cls, text) -> "AccountType":
        if isinstance(text, cls):
            return text
        key = str(text).strip().lower()
        aliases = {"assets": "asset", "liabilities": "liability", "revenue": "income",
                   "expenses": "expense", "incomes": "income"}
        key = aliases.get(key, key)
        for member in cls:
            if member.value == key:
                return member
        raise AccountError(f"unknown account type {text!r}")


def validate_name(name: str) -> str:
    """Check an account name and return it stripped of surrounding spaces."""
    name = name.strip()
    if not name:
        raise AccountError("account name must not be empty")
    if any(not part.strip() for part in name.split(SEPARATOR)):
        raise AccountError(f"account name {name!r} has an empty component")
    return name


class Account(ABC):
    """Abstract base of all accounts."""

    account_type: AccountType
    normal_side: str  # "debit" or "credit"

    def __init__(self, name: str, currency="USD", description: str = ""):
        self.name = validate_name(name)
        self.currency = get_currency(currency)
        self.description = description

    @property
    def parts(self):
        return self.name.split(SEPARATOR)

    @property
    def leaf(self) -> str:
        return self.parts[-1]

    @property
    def depth(self) -> int:
        return len(self.parts) - 1

    @property
    def parent_name(self):
        parts = self.parts
        return SEPARATOR.join(parts[:-1]) if len(parts) > 1 else None

    def is_descendant_of(self, name: str) -> bool:
        """True if this account equals ``name`` or sits below it."""
        return self.name == name or self.name.startswith(name + SEPARATOR)

    def signed_balance(self, debits: Decimal, credits: Decimal) -> Decimal:
        """Balance from the point of view of the account's normal side."""
        if self.normal_side == "debit":
            return debits - credits
        return credits - debits

    @property
    @abstractmethod
    def statement(self) -> str:
        """Which financial statement the account belongs to."""

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {self.currency.code!r})"


class DebitNormalAccount(Account):
    normal_side = "debit"


class CreditNormalAccount(Account):
    normal_side = "credit"


class AssetAccount(DebitNormalAccount):
    account_type = AccountType.ASSET
    statement = "balance_sheet"


class ExpenseAccount(DebitNormalAccount):
    account_type = AccountType.EXPENSE
    statement = "income_statement"


class LiabilityAccount(CreditNormalAccount):
    account_type = AccountType.LIABILITY
    statement = "balance_sheet"


class EquityAccount(CreditNormalAccount):
    account_type = AccountType.EQUITY
    statement = "balance_sheet"


class IncomeAccount(CreditNormalAccount):
    account_type = AccountType.INCOME
    statement = "income_statement"


ACCOUNT_CLASSES = {
    cls.account_type: cls
    for cls in (AssetAccount, ExpenseAccount, LiabilityAccount, EquityAccount, IncomeAccount)
}


def make_account(account_type, name, currency="USD", description="") -> Account:
    """Create an account of the given type (an AccountType or its name)."""
    cls = ACCOUNT_CLASSES[AccountType.parse(account_type)]
    return cls(name, currency, description)


class ChartOfAccounts:
    """An ordered collection of accounts, addressable by name."""

    def __init__(self, accounts=()):
        self._accounts = {}
        for account in accounts:
            self.add(account)

    def add(self, account: Account) -> Account:
        if account.name in self._accounts:
            raise AccountError(f"account {account.name!r} already exists")
        self._accounts[account.name] = account
        return account

    def get(self, name: str) -> Account:
        try:
            return self._accounts[name]
        except KeyError:
            raise AccountError(f"unknown account {name!r}") from None

    def __contains__(self, name):
        return name in self._accounts

    def __iter__(self):
        return iter(sorted(self._accounts.values(), key=lambda a: a.name))

    def __len__(self):
        return len(self._accounts)

    def by_type(self, account_type):
        account_type = AccountType.parse(account_type)
        return [a for a in self if a.account_type is account_type]

    def descendants(self, name: str):
        """Accounts equal to or below ``name`` in the hierarchy."""
        return [a for a in self if a.is_descendant_of(name)]
