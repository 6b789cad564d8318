"""Localization quality over task instances: D_loc vs the BM25-only baseline at top-k.

Each instance is scored by swevis.localize.evaluation.evaluate_instance (its issue text
against its repo@commit index and gold patch) and `summarize` averages per (k, level) into
the rows of results/localization.csv: the study's sample over all its languages, then each
sample (the study's, each localized set of tasks.localized_sets) by language. The per-instance rows (results/localization_instances.csv)
also carry the retrieved context's precision and recall at each k (swevis.localize.retrieval),
which results/table_retrieval.csv averages.
"""

from __future__ import annotations

from pathlib import Path

from swevis.index.store import open_index
from swevis.localize.evaluation import evaluate_instance, summarize
from swevis.table_csv import write_table_csv
from swevis.tasks.languages import row_language


# the `sample` of the study's instances; a localized set's rows carry their set's name
STUDY_SAMPLE = "study"
ALL_LANGUAGES = "all"


def localization_table(rows: list[dict], db_for, ks=(1, 3, 5, 10), options: dict | None = None):
    """(summary rows, per-instance rows) over instances; db_for(row) gives its index database.

    Each per-instance row says its `sample` (study, or the localized set of a row tagged
    `localized_set`) and its `language`. The summary has, per cut-off and level, the study's
    rows over every language (language `all`, what the table held before it had languages),
    then one group per sample and language."""
    per: list[dict] = []
    opened: dict[str, object] = {}
    try:
        for row in rows:
            db = str(db_for(row))
            if db not in opened:
                opened[db] = open_index(db)
            tags = {"sample": row.get("localized_set") or STUDY_SAMPLE, "language": row_language(row)}
            per.extend({**r, **tags} for r in evaluate_instance(opened[db], row, ks=ks, options=options, retrieval=True))
    finally:
        for idx in opened.values():
            idx.close()
    return summary_by_language(per), per


def summary_by_language(per: list[dict]) -> list[dict]:
    """summarize() over the study's rows (language all), then over each (sample, language)."""
    study = [r for r in per if r["sample"] == STUDY_SAMPLE]
    out = [{"sample": STUDY_SAMPLE, "language": ALL_LANGUAGES, **r} for r in summarize(study)]
    for sample, language in sorted({(r["sample"], r["language"]) for r in per}, key=lambda g: (g[0] != STUDY_SAMPLE, g)):
        group = [r for r in per if (r["sample"], r["language"]) == (sample, language)]
        out += [{"sample": sample, "language": language, **r} for r in summarize(group)]
    return out


def write_csv(rows: list[dict], path: str | Path, extra: dict | None = None) -> None:
    """Write rows (plus constant provenance columns) to CSV atomically, rounded as every table."""
    write_table_csv([{**r, **(extra or {})} for r in rows], path)
