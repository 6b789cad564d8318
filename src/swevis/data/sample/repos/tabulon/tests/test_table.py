import datetime as dt

import pytest

from tabulon import BoolColumn, ColumnError, DateColumn, IntColumn, Table, TableError, TextColumn


def test_add_row_mapping_and_sequence():
    table = Table([TextColumn("a"), IntColumn("b")])
    table.add_row({"a": "x"}).add_row(["y", 2])
    assert table.rows == [["x", None], ["y", 2]]


def test_add_row_checks_length_and_names():
    table = Table([TextColumn("a")])
    with pytest.raises(TableError):
        table.add_row([1, 2])
    with pytest.raises(ColumnError):
        table.add_row({"zzz": 1})


def test_duplicate_column():
    with pytest.raises(ColumnError):
        Table([TextColumn("a"), TextColumn("a")])


def test_from_records_infers_types():
    table = Table.from_records([
        {"n": 1, "ok": True, "when": dt.date(2024, 1, 2), "x": 1.5},
        {"n": 2, "ok": False, "when": dt.date(2024, 1, 3), "x": 2},
    ])
    kinds = [type(c).__name__ for c in table.columns]
    assert kinds == ["IntColumn", "BoolColumn", "DateColumn", "FloatColumn"]


def test_sort_by_numbers(sales):
    ordered = sales.sort_by("units")
    assert ordered.values("region") == ["South", "West", "East", "North"]
    assert sales.values("region")[0] == "North"


def test_sort_by_reverse(sales):
    assert sales.sort_by("revenue", reverse=True).values("region")[0] == "North"


def test_group_by_keeps_first_appearance_order():
    table = Table([TextColumn("team"), IntColumn("n")]).extend(
        [["b", 1], ["a", 2], ["b", 3]]
    )
    groups = table.group_by("team")
    assert [g for g, _ in groups] == ["b", "a"]
    assert groups[0][1].values("n") == [1, 3]


def test_filter_and_total(sales):
    big = sales.filter(lambda r: r["units"] > 500)
    assert len(big) == 3
    assert big.total("units") == 2750


def test_column_formats():
    assert BoolColumn("b").format(True) == "yes"
    assert DateColumn("d", fmt="%d.%m.%Y").format("2024-03-01") == "01.03.2024"
    assert IntColumn("n").format(None) == ""
    with pytest.raises(ColumnError):
        IntColumn("n").format("abc")
