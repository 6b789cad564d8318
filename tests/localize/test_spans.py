"""D_loc's spans inside candidate symbols (swevis.localize.spans), on small repositories written here."""

from __future__ import annotations

import os
import subprocess
import sys

from swevis.index.languages import language_for
from swevis.localize import by_kind, hit_rates, localize_issue
from swevis.localize.spans import best_line

from helpers import indexed_repo

REPORT = '''"""Report formatting."""


def render_report(rows, currency):
    """Render rows as a report.

    The currency symbol and the totals line are part of the output.
    """
    header = "Report"
    lines = [header]
    for row in rows:
        lines.append(f"{row.name}: {row.amount}")
    total = sum(r.amount for r in rows)
    lines.append(f"Total: {total:.2f}")
    lines.append("-" * 20)
    lines.append(f"Currency: {currency}")
    return "\\n".join(lines)


def parse_amount(text):
    value = text.strip()
    return float(value)
'''

# the fix: the totals line rounds to the currency's digits (line 14)
PATCH = """diff --git a/ledger/report.py b/ledger/report.py
--- a/ledger/report.py
+++ b/ledger/report.py
@@ -13,3 +13,3 @@ def render_report(rows, currency):
     total = sum(r.amount for r in rows)
-    lines.append(f"Total: {total:.2f}")
+    lines.append(f"Total: {total:.{currency.digits}f}")
     lines.append("-" * 20)
"""

ISSUE = """render_report prints the wrong total for JPY

With a currency without decimals the report still says "Total: 1200.00" where
I expect "Total: 1200". `render_report` should use the currency's digits.
"""


def test_every_symbol_candidate_gets_a_span_on_the_line_the_issue_mentions(tmp_path):
    """No traceback, yet the span hit is measured: the span inside render_report is the totals
    line the issue quotes, not the function's head or its docstring."""
    repo, idx = indexed_repo(tmp_path, {"ledger/__init__.py": "", "ledger/report.py": REPORT})
    with idx:
        for ranker in ("learned", "heuristic"):
            cands = localize_issue(idx, ISSUE, top_k=5, options={"ranker": ranker}, repo_dir=repo)
            spans = by_kind(cands, "span")
            assert spans, ranker
            top = spans[0]
            assert top.qualified_name == "render_report"
            assert top.start_line <= 14 <= top.end_line and top.start_line > 8, (top, ranker)
            assert "line 14" in top.evidence[0]
            # one span per symbol candidate
            assert {c.qualified_name for c in spans} == {c.qualified_name for c in by_kind(cands, "symbol")}
            assert hit_rates(cands, PATCH, 1, index=idx)["span"] == 1.0


def test_a_symbol_whose_lines_say_nothing_of_the_issue_gets_its_head(tmp_path):
    repo, idx = indexed_repo(tmp_path, {"ledger/__init__.py": "", "ledger/report.py": REPORT})
    with idx:
        cands = localize_issue(idx, "`parse_amount` is wrong", top_k=5, repo_dir=repo, options={"span_context": 1})
        span = next(c for c in by_kind(cands, "span") if c.qualified_name == "parse_amount")
        assert (span.start_line, span.end_line) == (20, 22)
        assert "head" in span.evidence[0]


def test_spans_are_read_from_the_folder_the_index_was_built_from(tmp_path, monkeypatch):
    """Without repo_dir, the index's recorded folder is read (the agents' tools pass none)."""
    repo, idx = indexed_repo(tmp_path, {"ledger/__init__.py": "", "ledger/report.py": REPORT})
    monkeypatch.chdir(tmp_path)
    with idx:
        top = by_kind(localize_issue(idx, ISSUE, top_k=5), "span")[0]
        assert top.start_line <= 14 <= top.end_line and top.start_line > 8


def test_a_symbol_extent_alone_is_no_span_hit(tmp_path):
    """Span hit counts span candidates only: a symbol candidate spanning the hunk is a symbol hit."""
    from swevis.localize.dloc import Candidate

    cands = [Candidate("symbol", "ledger/report.py", "render_report", 4, 17, 0.9),
             Candidate("span", "ledger/report.py", "render_report", 4, 8, 0.5)]
    assert hit_rates(cands, PATCH, 1) == {"file": 0.0, "symbol": 1.0, "span": 0.0}


def test_best_line_weighs_rare_names_and_skips_docstrings_and_own_name():
    lines = REPORT.splitlines()
    python = language_for("ledger/report.py")
    words = {"currency": 1.0, "render_report": 1.0, "Total": 0.7, "total": 0.25}
    line, why = best_line(lines, 4, 17, "render_report", words, ["Total: 1200"], python)
    assert line == 14 and "`Total`" in why
    assert best_line(lines, 4, 17, "render_report", {"render_report": 1.0}, [], python) == (None, [])
    # "symbol" is only in the docstring: no statement line of Python's, a line of a file of no language
    assert best_line(lines, 4, 17, "render_report", {"symbol": 1.0}, [], python) == (None, [])
    assert best_line(lines, 4, 17, "render_report", {"symbol": 1.0}, [], None) == (7, ["`symbol`"])


def test_the_bm25_baseline_proposes_spans_the_same_way(tmp_path):
    """BM25 alone gets a span inside each of its symbols too, so span hit compares rankings."""
    from swevis.localize import bm25_baseline

    repo, idx = indexed_repo(tmp_path, {"ledger/__init__.py": "", "ledger/report.py": REPORT})
    with idx:
        cands = bm25_baseline(idx, ISSUE, 5, repo_dir=repo)
        syms, spans = by_kind(cands, "symbol"), by_kind(cands, "span")
        assert [c.qualified_name for c in spans] == [c.qualified_name for c in syms]
        report = next(c for c in spans if c.qualified_name == "render_report")
        assert report.start_line <= 14 <= report.end_line


def test_w_file_symbol_lets_the_best_symbol_lift_its_file(tmp_path):
    """A file the heuristic ranks second but whose symbol ranks first comes first with
    w_file_symbol > 0; 0 keeps the heuristic file order."""
    from swevis.localize.dloc import _file_scores, localize_options, _Scores
    from swevis.index.source import SourceLines

    repo, idx = indexed_repo(tmp_path, {"ledger/__init__.py": "", "ledger/report.py": REPORT})
    with idx:
        render = next(iter(idx.symbols_by_name("render_report")))
        sc = _Scores(idx, localize_options(None), SourceLines(repo))
        sc.syms[render.id] = render
        sc.file = {"ledger/__init__.py": 2.0, "ledger/report.py": 1.5}
        sym = {render.id: 0.9}
        assert _file_scores(sc, sym, localize_options({"w_file_symbol": 0.0})) == sc.file
        lifted = _file_scores(sc, sym, localize_options({"w_file_symbol": 1.0}))
        assert max(lifted, key=lifted.get) == "ledger/report.py"


def test_a_class_does_not_repeat_its_members_span(tmp_path):
    """Class and method both ranked: the class's best line is the method's, so one span, and
    keywords and `self` in the issue's code point at no line."""
    code = ("class Formatter:\n    width = 10\n\n    def render(self, value):\n        if value is None:\n"
            "            return 'missing value'\n        return str(value).rjust(self.width)\n")
    repo, idx = indexed_repo(tmp_path, {"fmt/__init__.py": "", "fmt/core.py": code})
    with idx:
        issue = "`Formatter.render` prints 'missing value' for zero\n```\nimport fmt\nif True: self\n```"
        cands = localize_issue(idx, issue, top_k=5, repo_dir=repo, options={"span_context": 0})
        spans = by_kind(cands, "span")
        assert {c.qualified_name for c in by_kind(cands, "symbol")} >= {"Formatter", "Formatter.render"}
        assert [(c.start_line, c.end_line) for c in spans if c.path == "fmt/core.py"] == [(6, 6)]


def test_the_cli_reads_spans_from_the_repository_it_is_given(tmp_path, monkeypatch, capsys):
    """An index built with a relative folder, used from elsewhere: `swevis localize REPO` still
    reads REPO's lines for its spans (not only the symbols' heads)."""
    import json

    from swevis.cli import main

    repo = tmp_path / "repo"
    (repo / "ledger").mkdir(parents=True)
    (repo / "ledger" / "__init__.py").write_text("")
    (repo / "ledger" / "report.py").write_text(REPORT)
    monkeypatch.chdir(tmp_path)
    assert main(["index", "repo", "--db", "i.sqlite"]) == 0
    (tmp_path / "issue.md").write_text(ISSUE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    capsys.readouterr()
    assert main(["localize", str(repo), "--db", "../i.sqlite", "--issue", "../issue.md", "--json"]) == 0
    spans = json.loads(capsys.readouterr().out)["spans"]
    top = next(s for s in spans if s["path"] == "ledger/report.py")
    assert top["start_line"] <= 14 <= top["end_line"] and "line 14" in top["evidence"][0]


def test_without_environment_drops_template_headings_and_version_sections():
    from swevis.localize.hints import without_environment

    issue = ("Totals are wrong\n**Describe the bug**\nrender_report rounds\n```\n# not a heading\n```\n"
             "**TypeError: a bytes-like object is required, not 'MultiValue'**\n"
             "## Versions\nnumpy 1.2\nPython 3.9\n### Expected behavior\nno rounding\n")
    assert without_environment(issue).splitlines() == [
        "Totals are wrong", "render_report rounds", "```", "# not a heading", "```",
        "**TypeError: a bytes-like object is required, not 'MultiValue'**", "no rounding"]


def test_a_span_names_the_words_it_matched_in_the_same_order_under_every_hash_seed():
    # the words were a set: their order, and so the evidence text the agents' packages and
    # trajectories carry, changed from run to run with Python's string hash seed
    script = ("from swevis.localize.spans import best_line\n"
              "lines = ['def f(x):', '    return name + start + as_of + income + Income', '']\n"
              "w = dict.fromkeys(['as_of', 'name', 'start', 'income', 'Income'], 1.0)\n"
              "print(best_line(lines, 1, 3, 'f', w, []))\n")
    outs = {subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONHASHSEED": str(seed)},
                           capture_output=True, text=True, check=True).stdout for seed in range(6)}
    assert outs == {"(2, ['`name`', '`start`', '`as_of`'])\n"}, outs
