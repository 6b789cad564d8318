"""Common machinery for text reports."""

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Optional

from ..money import Money, format_amount


@dataclass
class ReportLine:
    """One line of a report: a section header, an account line or a total."""

    label: str
    amount: Optional[Money] = None
    indent: int = 0
    kind: str = "line"  # "header", "line" or "total"

    def to_dict(self):
        return {
            "label": self.label,
            "amount": None if self.amount is None else str(self.amount.round().amount),
            "kind": self.kind,
        }


class Report(ABC):
    """Abstract report: subclasses produce :class:`ReportLine` objects."""

    title = "Report"

    def __init__(self, ledger):
        self.ledger = ledger

    @property
    def currency(self):
        return self.ledger.currency

    @abstractmethod
    def subtitle(self) -> str:
        """Second heading line, usually the reporting date or period."""

    @abstractmethod
    def lines(self):
        """Return the list of :class:`ReportLine` making up the report body."""

    def section(self, heading, account_type, amount_for):
        """Lines for every top-level account of ``account_type`` plus a total.

        ``amount_for`` maps an account name to its Money amount.
        """
        chart = self.ledger.chart
        lines = [ReportLine(heading, kind="header")]
        total = Money.zero(self.currency)
        for account in chart.by_type(account_type):
            amount = amount_for(account.name)
            nesting = sum(1 for other in chart if other is not account
                          and account.is_descendant_of(other.name))
            if nesting == 0:
                total = total + amount
            if amount or nesting == 0:
                lines.append(ReportLine(account.name, amount, indent=1 + nesting))
        lines.append(ReportLine(f"Total {heading}", total, indent=0, kind="total"))
        return lines, total

    def render(self, width: int = 56) -> str:
        """Render the report as fixed-width text."""
        out = [self.title.center(width).rstrip(), self.subtitle().center(width).rstrip(), ""]
        for line in self.lines():
            label = "  " * line.indent + line.label
            if line.amount is None:
                out.append(label)
                continue
            amount = format_amount(line.amount)
            if line.kind == "total":
                out.append(" " * (width - len(amount)) + "-" * len(amount))
            out.append(label + amount.rjust(width - len(label)))
        return "\n".join(out) + "\n"

    def to_dict(self):
        return {
            "title": self.title,
            "subtitle": self.subtitle(),
            "currency": self.currency.code,
            "lines": [line.to_dict() for line in self.lines()],
        }
