"""The Localize (D_loc) and Package (D_pkg) operators, and coverage, precision and recall against a gold patch."""

from swevis.localize.coverage import (
    coverage_bucket,
    evidence_coverage,
    gold_files,
    gold_hunks,
    gold_symbols,
    hit_rates,
)
from swevis.localize.hints import IssueHints, extract_hints
from swevis.localize.dloc import Candidate, bm25_baseline, by_kind, localize_issue, resolve_path
from swevis.localize.dpkg import pack_context
from swevis.localize.retrieval import retrieval_scores

__all__ = [
    "Candidate",
    "localize_issue",
    "pack_context",
    "bm25_baseline",
    "by_kind",
    "resolve_path",
    "extract_hints",
    "IssueHints",
    "gold_hunks",
    "gold_files",
    "gold_symbols",
    "hit_rates",
    "evidence_coverage",
    "coverage_bucket",
    "retrieval_scores",
]
