"""Results tables are written rounded to the digits they carry (swevis.table_csv)."""

import polars as pl

from swevis.table_csv import column_decimals, rounded, write_table_csv


def test_a_column_is_rounded_by_its_unit_and_others_to_four_significant_digits():
    df = pl.DataFrame({
        "acc_text": [42.92040785090021], "aggregate_reduction": [1.6026724040312534],
        "ocr_median": [0.7713625866050808], "cost_total": [19.2241], "mean": [0.040390999999999996],
        "gap_tokens": [1697.0000000000005], "text_prompt_tokens": [123456.78], "n": [3], "model": ["q"],
    })
    row = rounded(df).row(0, named=True)
    assert row == {
        "acc_text": 42.9, "aggregate_reduction": 1.603, "ocr_median": 0.771, "cost_total": 19.2241, "mean": 0.04039,
        "gap_tokens": 1697.0, "text_prompt_tokens": 123457.0, "n": 3, "model": "q",
    }
    assert column_decimals("share_pct") == 1 and column_decimals("not_code_window_share") == 3
    assert column_decimals("p_value") is None


def test_the_csv_carries_no_long_floats_and_missing_values_stay_missing(tmp_path):
    out = write_table_csv([{"reduction_text_x": 2.757142857142857, "p_value": None}, {"reduction_text_x": None, "p_value": 0.0312500001}], tmp_path / "t.csv")
    assert out.read_text() == "reduction_text_x,p_value\n2.757,\n,0.03125\n"
    assert write_table_csv([], tmp_path / "empty.csv").read_text() == ""
