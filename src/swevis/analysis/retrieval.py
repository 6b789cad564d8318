"""results/table_retrieval.csv: the retrieved context's precision and recall against the gold
patch, at the file, symbol and line level (swevis.localize.retrieval defines them).

One row per (model, agent, scope, condition) whose agent records a retrieved context (LET's
locator, Prometheus's retrieval stage: swevis.analysis.load.records_retrieval), from the
retrieval columns of its summary's runs; then one row per cut-off k of D_loc (the offline
localizer: its top-k symbol and span candidates' lines), from the localization stage's
per-instance output (results/localization_instances.csv). Each metric is a mean over
instances (repeats averaged within an instance first; runs where it is undefined left out)
with a percentile bootstrap CI (`analysis.bootstrap`), as the long tables' cells.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import polars as pl

from swevis.analysis.load import AnalysisInputError, RETRIEVAL_COLUMNS, read_summaries, records_retrieval
from swevis.analysis.localization import STUDY_SAMPLE
from swevis.analysis.stats import bootstrap_ci
from swevis.localize.evaluation import RETRIEVAL_LEVEL
from swevis.localize.retrieval import METRICS
from swevis.table_csv import write_table_csv

DLOC = "D_loc"  # the agent column of D_loc's rows
KEYS = ["model", "backend", "agent", "scope", "condition", "k"]


def metric_stats(per_instance: dict[str, list[float | None]], bootstrap: dict[str, Any]) -> dict[str, float | None]:
    """{metric: mean, metric_ci_low, metric_ci_high} over the instances of METRICS' values
    (each instance's defined values averaged first; an instance with none is left out)."""
    out: dict[str, float | None] = {}
    for m in METRICS:
        values = []
        for runs in per_instance[m]:
            defined = [v for v in runs if v is not None]
            if defined:
                values.append(sum(defined) / len(defined))
        mean, low, high = bootstrap_ci(values, resamples=int(bootstrap["resamples"]), level=float(bootstrap["level"]),
                                       seed=int(bootstrap["seed"]))
        out.update({m: mean, f"{m}_ci_low": low, f"{m}_ci_high": high})
    return out


def _by_instance(rows: list[dict[str, Any]], column_of: dict[str, str]) -> dict[str, list[list[float | None]]]:
    """metric -> per instance (sorted by id) the values of its rows, read from column_of[metric]."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        grouped.setdefault(r["instance_id"], []).append(r)
    return {m: [[r.get(col) for r in grouped[iid]] for iid in sorted(grouped)] for m, col in column_of.items()}


def condition_row(summary: dict[str, Any], bootstrap: dict[str, Any]) -> dict[str, Any]:
    """The row of one condition summary whose agent records a retrieved context."""
    rows = summary["rows"]
    missing = [c for c in RETRIEVAL_COLUMNS if rows and c not in rows[0]]
    if missing:
        raise AnalysisInputError([f"{summary.get('condition_dir')}: summary rows lack {', '.join(missing)} "
                                  "(written before the retrieval columns: rerun its summary)"])
    columns = dict(zip(METRICS, RETRIEVAL_COLUMNS))
    return {
        "model": summary["model"],
        "backend": ",".join(summary.get("backend") or []),
        "agent": summary["agent"],
        "scope": summary["scope"],
        "condition": summary["condition"],
        "k": None,
        "n": len({r["instance_id"] for r in rows if r.get("retrieval_files_recall") is not None}),
        "n_runs": len(rows),
        "n_empty_runs": sum(1 for r in rows if r.get("retrieval_files_recall") is not None
                            and r.get("retrieval_files_precision") is None),
        **metric_stats(_by_instance(rows, columns), bootstrap),
    }


def dloc_rows(per_instance: pl.DataFrame, bootstrap: dict[str, Any]) -> list[dict[str, Any]]:
    """D_loc's row at each cut-off k of the localization stage's per-instance rows (long
    form: one row per instance, k and hit level, with dloc_precision and dloc_recall)."""
    need = {"instance_id", "k", "level", "dloc_precision", "dloc_recall"}
    if per_instance.height and not need <= set(per_instance.columns):
        raise AnalysisInputError([f"localization per-instance rows lack {', '.join(sorted(need - set(per_instance.columns)))}"])
    out = []
    for k in sorted(set(per_instance["k"].to_list())) if per_instance.height else []:
        wide: dict[str, dict[str, Any]] = {}
        for r in per_instance.filter(pl.col("k") == k).to_dicts():
            row = wide.setdefault(str(r["instance_id"]), {"instance_id": str(r["instance_id"])})
            level = RETRIEVAL_LEVEL[r["level"]]
            row[f"{level}_precision"], row[f"{level}_recall"] = r["dloc_precision"], r["dloc_recall"]
        rows = list(wide.values())
        out.append({
            "model": None, "backend": "offline", "agent": DLOC, "scope": None, "condition": None, "k": int(k),
            "n": sum(1 for r in rows if r.get("files_recall") is not None), "n_runs": len(rows),
            "n_empty_runs": sum(1 for r in rows if r.get("files_recall") is not None and r.get("files_precision") is None),
            **metric_stats(_by_instance(rows, {m: m for m in METRICS}), bootstrap),
        })
    return out


def retrieval_table(summaries: Iterable[dict[str, Any]], per_instance: pl.DataFrame, bootstrap: dict[str, Any]) -> pl.DataFrame:
    """The table's frame: the conditions of agents that record a retrieved context, in the
    summaries' order, then D_loc's rows by k."""
    rows = [condition_row(s, bootstrap) for s in summaries if records_retrieval(s.get("agent") or "")]
    rows += dloc_rows(per_instance, bootstrap)
    stats = [c for m in METRICS for c in (m, f"{m}_ci_low", f"{m}_ci_high")]
    schema = {**{c: pl.String for c in KEYS}, "k": pl.Int64, "n": pl.Int64, "n_runs": pl.Int64, "n_empty_runs": pl.Int64,
              **{c: pl.Float64 for c in stats}}
    return pl.DataFrame(rows, schema=schema)


def build_retrieval_table(summary_paths: Iterable[str | Path], per_instance_csv: str | Path,
                          bootstrap: dict[str, Any], out_path: str | Path) -> pl.DataFrame:
    """Read the condition summaries and the localization stage's per-instance CSV, write the table."""
    per_instance = pl.read_csv(per_instance_csv, infer_schema_length=None) if Path(per_instance_csv).stat().st_size else pl.DataFrame()
    if "sample" in per_instance.columns:  # the localized sets' rows are no study's
        per_instance = per_instance.filter(pl.col("sample") == STUDY_SAMPLE)
    table = retrieval_table(read_summaries(summary_paths), per_instance, bootstrap)
    write_table_csv(table, out_path)
    return table
