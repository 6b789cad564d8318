"""The BM25 baseline ranks what D_loc may propose: code files outside tests, and their symbols."""

from __future__ import annotations

from swevis.localize import bm25_baseline, by_kind

from helpers import indexed_repo

ISSUE = "The totals line of render_report ignores the currency rounding of the report."

CODE = '''def render_report(rows, currency):
    total = sum(r.amount for r in rows)
    return f"Total: {total:.2f} {currency}"


def parse_amount(text):
    return float(text.strip())
'''

# each names the issue's words more often than the code does, as such files do
NOT_EDIT_SITES = {
    "README.md": "# Report\n\nrender_report renders the report: totals line, currency, rounding of the report.\n",
    "CHANGELOG.md": "## 1.2\n\n- render_report: totals line and currency rounding of the report fixed.\n",
    ".github/ISSUE_TEMPLATE/bug.md": "Describe the report: which totals line, which currency, which rounding.\n",
    "tests/test_report.py": (
        "from ledger.report import render_report\n\n\n"
        "def test_render_report_totals_line_currency_rounding():\n"
        "    assert render_report([], 'EUR').startswith('Total')  # the report's totals line and currency\n"
    ),
}


def test_the_baseline_ranks_code_files_outside_tests_only(tmp_path):
    repo, idx = indexed_repo(tmp_path, {"ledger/__init__.py": "", "ledger/report.py": CODE, **NOT_EDIT_SITES})
    with idx:
        plain = {h.path for h in idx.bm25_search(ISSUE, k=50)[:3]}
        assert plain & set(NOT_EDIT_SITES), "BM25 over every file ranks the documents and tests first"
        cands = bm25_baseline(idx, ISSUE, 5, repo_dir=repo)
        assert [c.path for c in by_kind(cands, "file")] == ["ledger/report.py"]
        assert {c.path for c in by_kind(cands, "symbol")} == {"ledger/report.py"}
        assert by_kind(cands, "symbol")[0].qualified_name == "render_report"
