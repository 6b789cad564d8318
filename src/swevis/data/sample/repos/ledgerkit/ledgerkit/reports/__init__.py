"""Financial reports built from a :class:`~ledgerkit.ledger.Ledger`."""

from .balance_sheet import BalanceSheet
from .base import Report, ReportLine
from .income_statement import IncomeStatement
from .trial_balance import TrialBalance

__all__ = ["BalanceSheet", "IncomeStatement", "Report", "ReportLine", "TrialBalance"]
