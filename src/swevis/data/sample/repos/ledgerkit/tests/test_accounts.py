from decimal import Decimal

import pytest

from ledgerkit import AccountError, AccountType, ChartOfAccounts, make_account
from ledgerkit.accounts import AssetAccount, IncomeAccount


def test_make_account_picks_subclass():
    account = make_account("Revenue", "Income:Sales")
    assert isinstance(account, IncomeAccount)
    assert account.account_type is AccountType.INCOME
    assert account.statement == "income_statement"


def test_hierarchy_properties():
    account = AssetAccount("Assets:Bank:Checking")
    assert account.leaf == "Checking"
    assert account.depth == 2
    assert account.parent_name == "Assets:Bank"


def test_is_descendant_of_requires_separator():
    account = AssetAccount("Assets:Bankruptcy")
    assert not account.is_descendant_of("Assets:Bank")
    assert account.is_descendant_of("Assets")


def test_signed_balance_normal_side():
    assert AssetAccount("A").signed_balance(Decimal(10), Decimal(4)) == Decimal(6)
    assert IncomeAccount("I").signed_balance(Decimal(10), Decimal(4)) == Decimal(-6)


def test_invalid_names():
    with pytest.raises(AccountError):
        AssetAccount("Assets::Cash")
    with pytest.raises(AccountError):
        make_account("stuff", "Assets:Cash")


def test_chart_rejects_duplicates_and_sorts():
    chart = ChartOfAccounts([AssetAccount("B"), AssetAccount("A")])
    assert [a.name for a in chart] == ["A", "B"]
    with pytest.raises(AccountError):
        chart.add(AssetAccount("A"))
