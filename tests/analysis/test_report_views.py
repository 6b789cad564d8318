"""The report's HTML views of the tables (swevis.analysis.report_views) and its captions (report/*.rst)."""

import json

from helpers import PROJECT_ROOT

from swevis.analysis.report_views import table_view, validation_view

CAPTIONED = [
    "table1", "table1_long", "table2", "table2_long", "table3", "table4", "stats_mcnemar", "calibration",
    "frontier", "localization", "table_retrieval", "validation", "table_ablation", "figure2", "figure3", "figure4", "figure5",
    "figure6", "figure_ablation", "counterfactual_table", "counterfactual_decomposition", "counterfactual_figure",
]


def test_a_table_view_shows_the_cells_as_written_escaped_with_numbers_right_aligned(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text('agent,acc_text,note\nplb,42.9,"<b>a, b</b>"\nlet,,x\n')
    html = table_view(csv, tmp_path / "t.html", "Table 1").read_text()
    assert "<h1>Table 1</h1>" in html and f"{csv}: 2 rows, 3 columns" in html
    assert '<td class="num">42.9</td>' in html and '<td class="empty"></td>' in html
    assert "&lt;b&gt;a, b&lt;/b&gt;" in html and "<b>a" not in html
    (tmp_path / "empty.csv").write_text("")
    assert "No rows." in table_view(tmp_path / "empty.csv", tmp_path / "e.html", "Empty").read_text()


def test_the_validation_view_has_totals_and_one_row_per_instance(tmp_path):
    report = {"harness": "local", "environment": "local:py", "n": 2, "n_valid": 1, "n_invalid": 1, "invalid": ["b"],
              "instances": {"b": {"valid": False, "reason": "gold patch does not resolve", "cached": True,
                                  "gold": {"resolved": False}, "empty": {"resolved": False}},
                            "a": {"valid": True, "reason": None, "cached": False,
                                  "gold": {"resolved": True}, "empty": {"resolved": False}}}}
    (tmp_path / "v.json").write_text(json.dumps(report))
    html = validation_view(tmp_path / "v.json", tmp_path / "v.html", "Environment validation").read_text()
    assert html.index("<td>a</td>") < html.index("<td>b</td>") and "gold patch does not resolve" in html
    assert '<td class="num">2</td><td class="num">1</td><td class="num">1</td>' in html


def test_every_result_has_a_caption_saying_what_data_and_which_backend():
    for name in CAPTIONED:
        text = (PROJECT_ROOT / "report" / f"{name}.rst").read_text()
        assert "**Data**" in text and "**Backend**" in text, name
