"""Balance sheet at a date, with current earnings folded into equity."""

from decimal import Decimal

from ..accounts import AccountType
from ..ledger import _as_date
from ..money import Money
from .base import Report, ReportLine


class BalanceSheet(Report):
    """Assets = Liabilities + Equity as of a date (inclusive)."""

    title = "Balance Sheet"

    def __init__(self, ledger, as_of=None):
        super().__init__(ledger)
        self.as_of = _as_date(as_of)

    def subtitle(self):
        return f"as of {self.as_of}" if self.as_of else "all entries"

    def _amount(self, name):
        return self.ledger.balance(name, as_of=self.as_of)

    def _net_income(self) -> Money:
        """Income minus expenses of every entry up to the report date.

        Walks the journal once instead of querying every income and expense
        account separately.
        """
        kinds = {}
        for account in self.ledger.chart:
            kinds[account.name] = account.account_type
        total = Decimal(0)
        for entry in self.ledger.journal:
            if self.as_of is not None and entry.date >= self.as_of:
                continue
            for posting in entry.postings:
                if kinds[posting.account] in (AccountType.INCOME, AccountType.EXPENSE):
                    total -= posting.amount.amount
        return Money(total, self.currency)

    def assets(self):
        return self.section("Assets", AccountType.ASSET, self._amount)

    def liabilities(self):
        return self.section("Liabilities", AccountType.LIABILITY, self._amount)

    def equity(self):
        lines, total = self.section("Equity", AccountType.EQUITY, self._amount)
        earnings = self._net_income()
        lines.insert(-1, ReportLine("Current Earnings", earnings, indent=1))
        total = total + earnings
        lines[-1] = ReportLine("Total Equity", total, kind="total")
        return lines, total

    def is_balanced(self) -> bool:
        _, assets = self.assets()
        _, liabilities = self.liabilities()
        _, equity = self.equity()
        return assets == liabilities + equity

    def lines(self):
        asset_lines, _ = self.assets()
        liability_lines, liabilities = self.liabilities()
        equity_lines, equity = self.equity()
        return asset_lines + [ReportLine("")] + liability_lines + [ReportLine("")] + equity_lines + [
            ReportLine(""),
            ReportLine("Total Liabilities and Equity", liabilities + equity, kind="total"),
        ]
