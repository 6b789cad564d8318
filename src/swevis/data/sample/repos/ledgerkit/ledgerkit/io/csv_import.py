"""Read journal entries from CSV in the layout written by :mod:`.csv_export`.

Rows sharing a ``reference`` form one journal entry. The ``date`` and
``description`` of an entry are taken from its first row.
"""

import csv
import datetime as _dt
from decimal import Decimal

from ..errors import CsvImportError, LedgerError
from ..journal import JournalEntry, Posting
from ..money import Money

REQUIRED = ("date", "reference", "account", "debit", "credit")


def _parse_date(text, line):
    try:
        return _dt.date.fromisoformat(text.strip())
    except ValueError:
        raise CsvImportError(f"invalid date {text!r}", line) from None


def _parse_amount(text) -> Decimal:
    """Parse a debit or credit cell; an empty cell is zero."""
    text = (text or "").strip()
    if not text:
        return Decimal(0)
    return Decimal(text)


def _row_to_posting(row, line, default_currency):
    debit = _parse_amount(row["debit"])
    credit = _parse_amount(row["credit"])
    if debit and credit:
        raise CsvImportError("a row must not have both a debit and a credit", line)
    currency = (row.get("currency") or "").strip() or default_currency
    try:
        amount = Money(debit - credit, currency)
    except LedgerError as exc:
        raise CsvImportError(str(exc), line) from None
    return Posting(row["account"].strip(), amount, (row.get("memo") or "").strip())


def read_journal(fileobj, ledger=None, default_currency="USD"):
    """Parse CSV rows into :class:`JournalEntry` objects.

    With a ``ledger`` every entry is also recorded into it. Returns the list of
    entries in file order.
    """
    reader = csv.DictReader(fileobj)
    missing = [c for c in REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise CsvImportError(f"missing column(s): {', '.join(missing)}", 1)
    if ledger is not None:
        default_currency = ledger.currency.code
    groups = {}
    for line, row in enumerate(reader, start=2):
        reference = row["reference"].strip()
        if reference not in groups:
            groups[reference] = {
                "date": _parse_date(row["date"], line),
                "description": (row.get("description") or "").strip(),
                "postings": [],
                "line": line,
            }
        groups[reference]["postings"].append(_row_to_posting(row, line, default_currency))
    entries = []
    for reference, group in groups.items():
        entry = JournalEntry(group["date"], group["description"], group["postings"], reference)
        try:
            entry.validate()
            if ledger is not None:
                ledger.record(entry)
        except LedgerError as exc:
            raise CsvImportError(str(exc), group["line"]) from None
        entries.append(entry)
    return entries


def read_journal_file(path, ledger=None, default_currency="USD"):
    """Open ``path`` and call :func:`read_journal` on it."""
    with open(path, newline="", encoding="utf-8") as fh:
        return read_journal(fh, ledger, default_currency)
