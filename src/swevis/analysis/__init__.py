"""Tables 1-3, figures 2/4/5/6 and the statistics beyond the paper (polars + matplotlib).

Flow: per condition, `write_condition_summary` -> summary.json; then `build_tables` and
`build_figures` read the summaries present (see docs/DESIGN.md: a deleted condition changes the
set, so the tables rebuild with it).
"""

from swevis.analysis.build import build_figures, build_tables, default_out_paths, rows_from_summaries, summarize_condition
from swevis.analysis.figures import CAPTIONS, action_bins, coverage_bins
from swevis.analysis.load import (
    AnalysisInputError,
    condition_summary,
    load_condition,
    load_runs,
    read_summaries,
    run_row,
    write_condition_summary,
)
from swevis.analysis.stats import bootstrap_ci, mcnemar_exact, spread
from swevis.analysis.tables import calibration_table, main_table, mcnemar_table, settings_from_config, table3

__all__ = [
    "AnalysisInputError",
    "CAPTIONS",
    "action_bins",
    "bootstrap_ci",
    "build_figures",
    "build_tables",
    "calibration_table",
    "condition_summary",
    "coverage_bins",
    "default_out_paths",
    "load_condition",
    "load_runs",
    "main_table",
    "mcnemar_exact",
    "mcnemar_table",
    "read_summaries",
    "rows_from_summaries",
    "run_row",
    "settings_from_config",
    "spread",
    "summarize_condition",
    "table3",
    "write_condition_summary",
]
