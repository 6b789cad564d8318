"""Localization quality over task instances: D_loc vs the BM25-only baseline at top-k.

Each instance is scored by swevis.localize.evaluation.evaluate_instance (its issue text
against its repo@commit index and gold patch) and `summarize` averages per (k, level) into
the rows of results/localization.csv. The per-instance rows (results/localization_instances.csv)
also carry the retrieved context's precision and recall at each k (swevis.localize.retrieval),
which results/table_retrieval.csv averages.
"""

from __future__ import annotations

from pathlib import Path

from swevis.index.store import open_index
from swevis.localize.evaluation import evaluate_instance, summarize
from swevis.table_csv import write_table_csv


def localization_table(rows: list[dict], db_for, ks=(1, 3, 5, 10), options: dict | None = None):
    """(summary rows, per-instance rows) over instances; db_for(row) gives its index database."""
    per: list[dict] = []
    opened: dict[str, object] = {}
    try:
        for row in rows:
            db = str(db_for(row))
            if db not in opened:
                opened[db] = open_index(db)
            per.extend(evaluate_instance(opened[db], row, ks=ks, options=options, retrieval=True))
    finally:
        for idx in opened.values():
            idx.close()
    return summarize(per), per


def write_csv(rows: list[dict], path: str | Path, extra: dict | None = None) -> None:
    """Write rows (plus constant provenance columns) to CSV atomically, rounded as every table."""
    write_table_csv([{**r, **(extra or {})} for r in rows], path)
