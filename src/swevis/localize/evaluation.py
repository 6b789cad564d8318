"""D_loc against the BM25-only baseline on instances with a gold patch: hit rates at top-k.

`evaluate_instance` scores one instance (its issue text against its repo@commit index and
gold patch); `summarize` averages per (k, level). The localization table
(swevis.analysis.localization) and the development set (swevis.localize.devset) both
measure with these, so a number in either means the same thing. With `retrieval`, each row
also carries the retrieved context's precision and recall at k (swevis.localize.retrieval)
at the row's level: file -> files, symbol -> symbols, span -> lines.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from swevis.index.store import RepoIndex
from swevis.localize.coverage import gold_hunks, hit_rates
from swevis.localize.dloc import bm25_baseline, localize_issue
from swevis.localize.retrieval import candidate_windows, retrieval_scores
from swevis.tasks.bundled import load_bundled_instances, repo_tree

LEVELS = ("file", "symbol", "span")
RETRIEVAL_LEVEL = {"file": "files", "symbol": "symbols", "span": "lines"}  # hit level -> retrieval level


def evaluate_instance(index: RepoIndex, row: dict, ks=(1, 3, 5, 10), options: dict | None = None,
                      model: dict | None = None, *, retrieval: bool = False) -> list[dict]:
    """Per-instance rows: instance_id, k, level, dloc, bm25, n_gold_hunks (`model`: re-ranker weights;
    the row's `repo_dir`, when given, is where D_loc reads the lines of its symbol spans); with
    `retrieval` also {dloc,bm25}_{precision,recall} (None: undefined, see the module docstring)."""
    issue = row.get("problem_statement") or ""
    patch = row.get("patch") or ""
    kmax = max(ks)
    dloc = localize_issue(index, issue, top_k=kmax, options=options, model=model, repo_dir=row.get("repo_dir"))
    base = bm25_baseline(index, issue, top_k=kmax, repo_dir=row.get("repo_dir"), options=options)
    n_hunks = len(gold_hunks(patch))
    out = []
    for k in ks:
        hd = hit_rates(dloc, patch, k, index=index)
        hb = hit_rates(base, patch, k, index=index)
        scores = {
            who: retrieval_scores(candidate_windows(cands, k), patch, index=index)
            for who, cands in (("dloc", dloc), ("bm25", base))
        } if retrieval else {}
        for level in LEVELS:
            out.append(
                {
                    "instance_id": row.get("instance_id"),
                    "repo": row.get("repo"),
                    "base_commit": row.get("base_commit"),
                    "k": k,
                    "level": level,
                    "dloc": hd[level],
                    "bm25": hb[level],
                    "n_gold_hunks": n_hunks,
                }
            )
            out[-1].update({f"{who}_{m}": s[f"{RETRIEVAL_LEVEL[level]}_{m}"]
                            for who, s in scores.items() for m in ("precision", "recall")})
    return out


def summarize(rows: list[dict]) -> list[dict]:
    """Mean hit rate per (k, level) for D_loc and BM25 (instances without old-side hunks skipped)."""
    groups: dict[tuple[int, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["k"], r["level"]), []).append(r)
    out = []
    for (k, level), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], LEVELS.index(kv[0][1]))):
        ok = [r for r in rs if not (isinstance(r["dloc"], float) and math.isnan(r["dloc"]))]
        n = len(ok)
        out.append(
            {
                "k": k,
                "level": level,
                "dloc": round(sum(r["dloc"] for r in ok) / n, 4) if n else float("nan"),
                "bm25": round(sum(r["bm25"] for r in ok) / n, 4) if n else float("nan"),
                "n_instances": n,
            }
        )
    return out


def load_sample_instances(sample_dir: str | Path) -> list[dict]:
    """Instances of the bundled sample, read by the task source's own reader (no workflow
    needed), each with `repo_dir`: its repository's source tree (repos/<name>)."""
    sample_dir = Path(sample_dir)
    return [
        {**row, "repo_dir": str(repo_tree(row["repo"], sample_dir))}
        for row in load_bundled_instances(sample_dir, verify_commits=False)
    ]
