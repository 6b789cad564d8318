from ledgerkit import Money
from ledgerkit.reports import BalanceSheet, IncomeStatement, TrialBalance


def test_trial_balance_is_balanced(ledger):
    tb = TrialBalance(ledger)
    assert tb.is_balanced()
    debit, credit = tb.totals()
    assert debit == Money("1446.75")


def test_trial_balance_rows(ledger):
    rows = {name: (d, c) for name, d, c in TrialBalance(ledger).rows()}
    assert rows["Liabilities:CreditCard"] == (Money("0"), Money("75.50"))
    assert "Assets:Receivables" not in rows


def test_trial_balance_render(ledger):
    text = TrialBalance(ledger).render()
    assert "Trial Balance" in text
    assert "Expenses:Supplies" in text
    assert "1,446.75" in text


def test_income_statement_net_income(ledger):
    report = IncomeStatement(ledger)
    assert report.net_income() == Money("195.75")


def test_income_statement_period(ledger):
    report = IncomeStatement(ledger, start="2024-02-01", end="2024-02-29")
    assert report.net_income() == Money("121.25")
    assert report.subtitle() == "2024-02-01 to 2024-02-29"


def test_income_statement_render(ledger):
    text = IncomeStatement(ledger).render()
    lines = text.splitlines()
    assert lines[0].strip() == "Income Statement"
    assert lines[-1].startswith("Net Income")
    assert lines[-1].endswith("195.75")


def test_balance_sheet_balances(ledger):
    sheet = BalanceSheet(ledger)
    assert sheet.is_balanced()
    _, equity = sheet.equity()
    assert equity == Money("995.75")


def test_balance_sheet_mid_period(ledger):
    sheet = BalanceSheet(ledger, as_of="2024-02-01")
    assert sheet.is_balanced()
    assert sheet._net_income() == Money("74.50")


def test_report_to_dict(ledger):
    data = IncomeStatement(ledger).to_dict()
    assert data["currency"] == "USD"
    assert data["lines"][-1] == {"label": "Net Income", "amount": "195.75", "kind": "total"}
