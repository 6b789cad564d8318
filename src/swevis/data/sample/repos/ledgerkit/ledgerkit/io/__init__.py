"""CSV import and export of journals and reports."""

from .csv_export import export_journal, export_trial_balance, journal_to_csv
from .csv_import import read_journal, read_journal_file

__all__ = [
    "export_journal",
    "export_trial_balance",
    "journal_to_csv",
    "read_journal",
    "read_journal_file",
]
