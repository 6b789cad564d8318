"""Entry functions the Snakemake rules call: summaries in, CSVs and PNGs out.

Every CSV is written atomically (temporary file + rename) and carries a `backend` column:
playback results are token accounting over demonstrations, not model accuracy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import polars as pl

from swevis.agents.registry import action_figures
from swevis.analysis.figures import coverage_figure, action_figure
from swevis.analysis.load import read_summaries
from swevis.table_csv import write_table_csv
from swevis.analysis.tables import calibration_table, frame, main_table, mcnemar_table, settings_from_config, table3

TABLE_OUTPUTS = ("table1", "table1_long", "table2", "table2_long", "table3", "stats_mcnemar", "calibration")


def rows_from_summaries(summary_paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    return [row for s in read_summaries(summary_paths) for row in s["rows"]]


def default_out_paths(results_dir: str | Path = "results") -> dict[str, str]:
    r = Path(results_dir)
    return {name: str(r / f"{name}.csv") for name in TABLE_OUTPUTS}


def build_tables(
    summary_paths: Iterable[str | Path],
    config: dict[str, Any],
    out_paths: dict[str, str | Path],
    retired: Iterable[str | Path] = (),
) -> dict[str, pl.DataFrame]:
    """Tables 1-3, McNemar and calibration from condition summaries.

    `out_paths` maps any of TABLE_OUTPUTS to a CSV path (missing keys are not written).
    Table 1 is the first model of `analysis.table_models` (default: the first two
    profiles of `models`), Table 2 the second; Table 3 and the statistics cover all models.
    Rows and columns of Tables 1/2 come from agents.matrix. `retired` lists tables this
    config no longer makes (Table 2 with one model): they are deleted, so no table of an
    earlier config sits next to the new ones as if current.
    """
    s = settings_from_config(config)
    rows = rows_from_summaries(summary_paths)
    df = frame(rows)
    models = [m for m in s["model_order"] if m in set(df["model"].to_list())] + sorted(set(df["model"].to_list()) - set(s["model_order"]))
    tables: dict[str, pl.DataFrame] = {}
    for k, model in enumerate(s["table_models"][:2], start=1):
        wide, long = main_table(df, model, s)
        tables[f"table{k}"], tables[f"table{k}_long"] = wide, long
    t3 = [table3(df, m, s) for m in models]
    tables["table3"] = pl.concat(t3) if t3 else table3(df, "", s).clear()
    tables["stats_mcnemar"] = mcnemar_table(df, s)
    tables["calibration"] = calibration_table(rows, models)
    for name, df_out in tables.items():
        if name in out_paths:
            write_table_csv(df_out, out_paths[name])
    for path in retired:
        Path(path).unlink(missing_ok=True)
    return tables


def build_figures(summary_paths: Iterable[str | Path], config: dict[str, Any], out_dir: str | Path) -> list[Path]:
    """The action-class figure of each agent that declares one (figure2/4/5: mini, PLB, LET)
    and figure6 (coverage vs resolution)."""
    s = settings_from_config(config)
    rows = rows_from_summaries(summary_paths)
    present = {r["model"] for r in rows}
    models = [m for m in s["model_order"] if m in present] + sorted(present - set(s["model_order"]))
    out_dir = Path(out_dir)
    paths = []
    for name, kind in action_figures().items():
        paths.append(action_figure(rows, kind.name, kind.title, models, out_dir / name, bins=int(s["trajectory_bins"]), dpi=int(s["figure_dpi"])))
    paths.append(coverage_figure(rows, models, out_dir / "figure6.png", agent=s["table3_agent"], dpi=int(s["figure_dpi"]), seed=int(s["bootstrap"]["seed"])))
    return paths


