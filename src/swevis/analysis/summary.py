"""The per-condition summary rule's entry: summary.json of one condition.

Its own module (not analysis.build) so that each of the workflow's per-condition jobs
imports only the readers and the config settings, not matplotlib, polars and the table code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from swevis.analysis.load import write_condition_summary
from swevis.config import schema_defaults, with_defaults
from swevis.provenance import provenance


def summarize_condition(
    condition_dir: str | Path,
    instances_path: str | Path,
    config: dict[str, Any],
    out_path: str | Path | None = None,
    validation: str | Path | None = None,
    indexes: Iterable[str | Path] | None = None,
) -> dict[str, Any]:
    """The per-condition rule: summary.json from the condition's run folders, with the
    Table 3 coverage thresholds of `analysis.coverage` (recorded as the provenance), the
    environment validation report (invalid instances leave accuracy) and the index databases
    of the sampled instances (the symbol level of the retrieval columns)."""
    coverage = with_defaults(schema_defaults()["analysis"], config.get("analysis"))["coverage"]
    return write_condition_summary(
        condition_dir,
        instances_path,
        out_path,
        coverage_high=float(coverage["high"]),
        coverage_mid=float(coverage["mid"]),
        provenance=provenance({"analysis": {"coverage": coverage}}),
        validation=validation,
        indexes=indexes,
    )
