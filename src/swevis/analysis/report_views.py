"""HTML views of the results tables for Snakemake's report (`make report`).

Snakemake's report shows images and HTML pages in the page but offers a CSV only as a
download, so a table could not be read there. Its recommended table viewer (datavzrd) is a
separate program outside PyPI; a view here is the CSV as one self-contained HTML page, with
Jinja2 (already a dependency). Cells are shown exactly as the CSV writes them
(swevis.table_csv has rounded them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jinja2
import polars as pl

from swevis.fsutil import write_atomic

NUMBER = re.compile(r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$")

PAGE = jinja2.Template(
    """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 16px; color: #1f2937; }
h1 { font-size: 18px; margin: 0 0 4px; }
p.source { color: #4b5563; margin: 0 0 12px; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #d1d5db; padding: 3px 8px; white-space: nowrap; }
th { background: #f3f4f6; position: sticky; top: 0; text-align: left; }
tr:nth-child(even) td { background: #f9fafb; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.empty { color: #9ca3af; }
</style></head>
<body>
<h1>{{ title }}</h1>
<p class="source">{{ source }}</p>
{% for caption, header, rows in tables %}
{% if caption %}<h2 style="font-size:15px">{{ caption }}</h2>{% endif %}
{% if rows %}
<table><thead><tr>{% for h in header %}<th>{{ h }}</th>{% endfor %}</tr></thead>
<tbody>{% for row in rows %}<tr>{% for cell in row %}{% set cls = cell_class(cell) %}<td{% if cls %} class="{{ cls }}"{% endif %}>{{ cell if cell is not none else "" }}</td>{% endfor %}</tr>
{% endfor %}</tbody></table>
{% else %}<p>No rows.</p>{% endif %}
{% endfor %}
</body></html>
""",
    autoescape=True,
)


def cell_class(cell: str | None) -> str:
    """'num' right-aligns a number, 'empty' greys a missing value."""
    if cell is None or cell == "":
        return "empty"
    return "num" if NUMBER.match(cell) else ""


def write_page(out_path: str | Path, title: str, source: str, tables: list[tuple[str, list, list]]) -> Path:
    """One HTML page of titled tables (caption, header, rows of strings)."""
    html = PAGE.render(title=title, source=source, tables=tables, cell_class=cell_class)
    return write_atomic(out_path, html)


def table_view(csv_path: str | Path, out_path: str | Path, title: str) -> Path:
    """The CSV at `csv_path` as an HTML page titled `title`, cells as written."""
    text = Path(csv_path).read_text()
    df = pl.read_csv(csv_path, infer_schema=False) if text.strip() else pl.DataFrame()
    rows = [list(r) for r in df.iter_rows()]
    source = f"{csv_path}: {df.height} rows, {df.width} columns"
    return write_page(out_path, title, source, [("", df.columns, rows)])


def validation_view(json_path: str | Path, out_path: str | Path, title: str) -> Path:
    """The environment validation report (swevis.harness.validate) as an HTML page: its
    totals, then one row per instance with the gold and the empty patch's verdicts."""
    report = json.loads(Path(json_path).read_text())
    totals = [[str(report.get(k, "")) for k in ("harness", "environment", "n", "n_valid", "n_invalid")]]
    header = ["instance", "valid", "gold patch resolves", "empty patch resolves", "reason", "cached"]
    rows = []
    for iid, v in sorted(report.get("instances", {}).items()):
        gold, empty = v.get("gold") or {}, v.get("empty") or {}
        rows.append([iid, str(v.get("valid")), str(gold.get("resolved")), str(empty.get("resolved")),
                     v.get("reason") or "", str(v.get("cached"))])
    tables = [("Totals", ["harness", "environment", "instances", "valid", "invalid"], totals),
              ("Per instance", header, rows)]
    return write_page(out_path, title, f"{json_path}", tables)
