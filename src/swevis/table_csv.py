"""Every results table is written here: floats rounded to the digits they carry, atomically.

A mean over tens of instances or a bootstrap interval does not carry 16 digits; printing them
suggests a precision the study does not have and makes the tables hard to read. The unit of a
column (its name) decides its decimals; any other float keeps 4 significant digits, and a
number of 10,000 or more keeps its whole part (token counts are not rounded to hundreds).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterable

import polars as pl

from swevis.fsutil import atomic_path

# (column-name pattern, decimals), first match wins: percentages (accuracy, shares in %,
# differences in percentage points) to 0.1; reductions and fractions in [0, 1] (OCR character
# accuracy, hit rates, retrieval precision and recall, shares of a gap) to 0.001 (the paper prints 2.76x, but the working
# memory's reductions lie within 1% of 1 and must not read as none); money (prices are per
# 1000 tokens, so a run costs fractions of a cent) to 0.0001.
DECIMALS: tuple[tuple[str, int], ...] = (
    (r"(^acc_|_pct$|^diff_pp$)", 1),
    (r"(reduction|^ocr_|_share$|_rate$|^dloc$|^bm25$|_precision|_recall)", 3),
    (r"(^cost_|^spend_|^base_spend_|_bill$)", 4),
)
SIGNIFICANT = 4
WHOLE_FROM = 10_000  # at or above: rounded to a whole number instead of to SIGNIFICANT digits


def column_decimals(name: str) -> int | None:
    """The decimals of column `name` by its unit, or None for SIGNIFICANT digits."""
    return next((d for pattern, d in DECIMALS if re.search(pattern, name)), None)


def rounded(df: pl.DataFrame) -> pl.DataFrame:
    """`df` with every float column rounded for a table (DECIMALS, else SIGNIFICANT digits)."""
    exprs = []
    for name, dtype in df.schema.items():
        if not dtype.is_float():
            continue
        col = pl.col(name)
        decimals = column_decimals(name)
        if decimals is not None:
            exprs.append(col.round(decimals))
        else:
            big = col.abs() >= WHOLE_FROM
            exprs.append(pl.when(big).then(col.round(0)).otherwise(col.round_sig_figs(SIGNIFICANT)).alias(name))
    return df.with_columns(exprs) if exprs else df


def write_table_csv(table: pl.DataFrame | Iterable[dict[str, Any]], path: str | Path) -> Path:
    """Write a table (a frame or rows) as CSV, rounded, atomically; no rows write an empty file."""
    df = table if isinstance(table, pl.DataFrame) else pl.DataFrame(list(table), infer_schema_length=None)
    with atomic_path(path) as tmp:
        if df.width:
            rounded(df).write_csv(tmp)
        else:
            Path(tmp).write_text("")
    return Path(path)
