"""Income statement (profit and loss) for a period."""

from ..accounts import AccountType
from .base import Report, ReportLine


class IncomeStatement(Report):
    """Income minus expenses between ``start`` and ``end`` (both inclusive)."""

    title = "Income Statement"

    def __init__(self, ledger, start=None, end=None):
        super().__init__(ledger)
        self.start = start
        self.end = end

    def subtitle(self):
        if self.start and self.end:
            return f"{self.start} to {self.end}"
        if self.end:
            return f"up to {self.end}"
        return "all periods"

    def _amount(self, name):
        return self.ledger.balance(name, as_of=self.end, start=self.start)

    def income(self):
        return self.section("Income", AccountType.INCOME, self._amount)

    def expenses(self):
        return self.section("Expenses", AccountType.EXPENSE, self._amount)

    def net_income(self):
        _, income = self.income()
        _, expenses = self.expenses()
        return income - expenses

    def lines(self):
        income_lines, income = self.income()
        expense_lines, expenses = self.expenses()
        label = "Net Income" if income >= expenses else "Net Loss"
        return income_lines + [ReportLine("")] + expense_lines + [
            ReportLine(""),
            ReportLine(label, income - expenses, kind="total"),
        ]
