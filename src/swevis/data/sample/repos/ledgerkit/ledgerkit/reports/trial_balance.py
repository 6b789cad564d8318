"""Trial balance: debit and credit totals of every leaf account."""

from decimal import Decimal

from ..money import Money, format_amount
from .base import Report


class TrialBalance(Report):
    """List every account with a non-zero balance in a debit or credit column."""

    title = "Trial Balance"

    def __init__(self, ledger, as_of=None):
        super().__init__(ledger)
        self.as_of = as_of

    def subtitle(self):
        return f"as of {self.as_of}" if self.as_of else "all entries"

    def rows(self):
        """``(account_name, debit, credit)`` tuples of Money, one per account."""
        rows = []
        for account in self.ledger.chart:
            debits, credits = self.ledger.totals(
                account.name, end=self.as_of, include_children=False
            )
            net = debits - credits
            if net == 0:
                continue
            zero = Decimal(0)
            debit = Money(net if net > 0 else zero, self.currency)
            credit = Money(-net if net < 0 else zero, self.currency)
            rows.append((account.name, debit, credit))
        return rows

    def totals(self):
        rows = self.rows()
        debit = Money.sum((r[1] for r in rows), self.currency)
        credit = Money.sum((r[2] for r in rows), self.currency)
        return debit, credit

    def is_balanced(self) -> bool:
        debit, credit = self.totals()
        return debit == credit

    def lines(self):
        from .base import ReportLine

        lines = [ReportLine(name, debit - credit, indent=1) for name, debit, credit in self.rows()]
        debit, credit = self.totals()
        lines.append(ReportLine("Difference", debit - credit, kind="total"))
        return lines

    def render(self, width: int = 64) -> str:
        col = 14
        label_width = width - 2 * col
        out = [self.title.center(width).rstrip(), self.subtitle().center(width).rstrip(), ""]
        out.append("Account".ljust(label_width) + "Debit".rjust(col) + "Credit".rjust(col))
        for name, debit, credit in self.rows():
            d = format_amount(debit) if debit else ""
            c = format_amount(credit) if credit else ""
            out.append(name[:label_width].ljust(label_width) + d.rjust(col) + c.rjust(col))
        debit, credit = self.totals()
        out.append(" " * label_width + ("-" * (col - 2)).rjust(col) * 2)
        out.append("Total".ljust(label_width) + format_amount(debit).rjust(col)
                   + format_amount(credit).rjust(col))
        return "\n".join(out) + "\n"
