import io
from decimal import Decimal

import pytest

from ledgerkit import CsvImportError, Ledger
from ledgerkit.io import export_trial_balance, journal_to_csv, read_journal
from ledgerkit.reports import TrialBalance

HEADER = "date,reference,description,account,debit,credit,currency,memo\n"


def test_export_has_one_row_per_posting(ledger):
    text = journal_to_csv(ledger.journal)
    lines = text.splitlines()
    assert lines[0] == HEADER.strip()
    assert len(lines) == 1 + 14
    assert lines[1] == "2024-01-02,JE1,Owner investment,Assets:Bank:Checking,800.00,,USD,"


def test_import_groups_rows_by_reference():
    text = HEADER + (
        "2024-03-01,R1,Sale,Assets:Cash,25.00,,USD,\n"
        "2024-03-01,R1,Sale,Income:Sales,,25.00,USD,\n"
        "2024-03-02,R2,Rent,Expenses:Rent,10,,USD,march\n"
        "2024-03-02,R2,Rent,Assets:Cash,,10,USD,\n"
    )
    entries = read_journal(io.StringIO(text))
    assert [e.reference for e in entries] == ["R1", "R2"]
    assert entries[1].postings[0].memo == "march"
    assert entries[0].postings[1].amount.amount == Decimal("-25.00")


def test_roundtrip_into_new_ledger(ledger):
    text = journal_to_csv(ledger.journal)
    copy = Ledger("USD")
    for account in ledger.chart:
        copy.open_account(account.account_type, account.name)
    read_journal(io.StringIO(text), copy)
    assert copy.balance("Assets:Bank:Checking") == ledger.balance("Assets:Bank:Checking")
    assert len(copy.journal) == len(ledger.journal)


def test_import_reports_line_of_bad_date():
    text = HEADER + "2024-13-01,R1,x,Assets:Cash,1,,USD,\n"
    with pytest.raises(CsvImportError) as info:
        read_journal(io.StringIO(text))
    assert info.value.line == 2


def test_import_rejects_unbalanced_entry():
    text = HEADER + "2024-03-01,R1,x,Assets:Cash,1,,USD,\n2024-03-01,R1,x,Income:Sales,,2,USD,\n"
    with pytest.raises(CsvImportError, match="unbalanced"):
        read_journal(io.StringIO(text))


def test_import_missing_columns():
    with pytest.raises(CsvImportError, match="missing column"):
        read_journal(io.StringIO("date,account\n"))


def test_export_trial_balance(ledger):
    buffer = io.StringIO()
    export_trial_balance(TrialBalance(ledger), buffer)
    lines = buffer.getvalue().splitlines()
    assert lines[0] == "account,debit,credit"
    assert lines[-1] == "TOTAL,1446.75,1446.75"
