"""Write journals and trial balances as CSV.

The journal layout has one row per posting::

    date,reference,description,account,debit,credit,currency,memo
"""

import csv
import io

from ..money import Money, format_amount

JOURNAL_COLUMNS = ["date", "reference", "description", "account", "debit", "credit",
                   "currency", "memo"]


def _amount_cell(value, currency) -> str:
    if not value:
        return ""
    return format_amount(Money(value, currency))


def export_journal(journal, fileobj) -> int:
    """Write every posting of ``journal`` to ``fileobj``; return the row count."""
    writer = csv.writer(fileobj, lineterminator="\n")
    writer.writerow(JOURNAL_COLUMNS)
    rows = 0
    for entry in journal:
        for posting in entry.postings:
            currency = posting.amount.currency
            writer.writerow([
                entry.date.isoformat(),
                entry.reference,
                entry.description,
                posting.account,
                _amount_cell(posting.debit, currency),
                _amount_cell(posting.credit, currency),
                currency.code,
                posting.memo,
            ])
            rows += 1
    return rows


def journal_to_csv(journal) -> str:
    """Return the CSV text produced by :func:`export_journal`."""
    buffer = io.StringIO()
    export_journal(journal, buffer)
    return buffer.getvalue()


def export_trial_balance(trial_balance, fileobj) -> None:
    """Write the rows of a :class:`~ledgerkit.reports.TrialBalance` plus a total row."""
    writer = csv.writer(fileobj, lineterminator="\n")
    writer.writerow(["account", "debit", "credit"])
    for name, debit, credit in trial_balance.rows():
        writer.writerow([name, debit.round().amount, credit.round().amount])
    debit, credit = trial_balance.totals()
    writer.writerow(["TOTAL", debit.round().amount, credit.round().amount])
