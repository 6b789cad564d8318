"""The small hand-written cases: the bundled sample's 9 instances and the held-out sets
(devset/heldout_localization*/, 33 cases written without looking at the localizer).

A held-out case over a bundled sample repository is localized in that repository; a case
over an installed library (source.json: a bug injected into click, jinja2, rich or packaging)
rebuilds its buggy tree by reverse-applying the gold fix to the installed package. These 42
cases join every fit of the shipped weights (`synthetic_groups`), and `measure_small` reports
D_loc's hit rates on them (with the shipped weights: in-sample for the cases they were fitted
on).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from importlib import metadata
from pathlib import Path

import numpy as np

from swevis.errors import SwevisError
from swevis.index import build_index, open_index
from swevis.localize.coverage import gold_symbols
from swevis.localize.devset.caselists import CaseFiles
from swevis.localize.devset.features import ALL_NAMES
from swevis.localize.devset.scoring import KS
from swevis.localize.dloc import issue_evidence
from swevis.localize.evaluation import evaluate_instance, load_sample_instances, summarize
from swevis.localize.rerank import vector

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "data" / "sample"


def heldout_rows(folder: Path, sample_dir: Path = SAMPLE_DIR) -> list[dict]:
    """Cases `<set>__<repo>-hN/` with problem_statement.md and patch.diff: a case over a
    bundled sample repository gets its `repo_dir`, a case over an installed library keeps its
    source.json ({"package", "version", "root_contains"}) instead (case_index)."""
    rows = []
    for case in sorted(p for p in folder.iterdir() if p.is_dir()):
        repo = case.name.split("__", 1)[-1].rsplit("-", 1)[0]
        row = {
            "instance_id": case.name,
            "repo": repo,
            "problem_statement": (case / "problem_statement.md").read_text(),
            "patch": (case / "patch.diff").read_text(),
        }
        if (case / "source.json").exists():
            row["source"] = json.loads((case / "source.json").read_text())
        else:
            row["repo_dir"] = str(sample_dir / "repos" / repo)
        rows.append(row)
    return rows


def small_rows(files: CaseFiles, sample_dir: Path = SAMPLE_DIR) -> list[dict]:
    """The bundled sample and every held-out set, in that order."""
    rows = load_sample_instances(sample_dir)
    for folder in files.heldout_sets():
        rows += heldout_rows(folder, sample_dir)
    return rows


def small_files(files: CaseFiles, sample_dir: Path = SAMPLE_DIR) -> dict[str, Path]:
    """Every file the small cases are read from, by a name that does not depend on where the
    repository is (for the fit's provenance)."""
    named = {f"sample/{p.relative_to(sample_dir / 'instances').as_posix()}": p
             for p in (sample_dir / "instances").rglob("*") if p.is_file()}
    for folder in files.heldout_sets():
        named.update({f"{folder.name}/{p.relative_to(folder).as_posix()}": p for p in folder.rglob("*") if p.is_file()})
    return named


def injected_root(row: dict, dest: Path) -> Path:
    """The buggy tree of an injected-bug case: the installed package, gold fix reverse-applied."""
    src = row["source"]
    installed = metadata.version(src["package"])
    if installed != src["version"]:
        raise SwevisError(f"{row['instance_id']} was written against {src['package']} {src['version']}, "
                          f"but {installed} is installed (requirements.lock pins the version)")
    dist = metadata.distribution(src["package"])
    root = dest / row["instance_id"]
    shutil.rmtree(root, ignore_errors=True)
    for name in src["root_contains"]:
        shutil.copytree(Path(dist.locate_file(name)), root / name, ignore=shutil.ignore_patterns("__pycache__"))
    diff = dest / f"{row['instance_id']}.diff"
    diff.write_text(row["patch"])
    # its own repository: inside another git work tree, `git apply` would skip the paths
    # outside the current directory and still succeed, leaving the fixed tree
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    proc = subprocess.run(["git", "apply", "-R", str(diff)], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SwevisError(f"{row['instance_id']}: the gold fix does not reverse-apply: {proc.stderr.strip()}")
    check = subprocess.run(["git", "apply", "--check", str(diff)], cwd=root, capture_output=True, text=True)
    if check.returncode != 0:
        raise SwevisError(f"{row['instance_id']}: the buggy tree does not take the gold fix: {check.stderr.strip()}")
    return root


def case_index(row: dict, dbs: Path, opened: dict):
    """The opened index of a case's repository (built once per repository, or per injected case)."""
    if "source" in row:
        key, repo_dir = row["instance_id"], None
    else:
        key, repo_dir = Path(row["repo_dir"]).name, row["repo_dir"]
    if key not in opened:
        if repo_dir is None:
            repo_dir = injected_root(row, dbs / "roots")
        db = dbs / (key + ".sqlite")
        build_index(repo_dir, db)
        opened[key] = open_index(db)
    return opened[key]


def synthetic_groups(files: CaseFiles) -> list[tuple[np.ndarray, np.ndarray]]:
    """The small cases as (features by ALL_NAMES, gold labels): added to every fit with
    --synthetic (their candidates have no stored history: those columns are 0)."""
    out = []
    with tempfile.TemporaryDirectory(prefix="devset-small-") as tmp:
        opened: dict = {}
        try:
            for row in small_rows(files):
                index = case_index(row, Path(tmp), opened)
                sc, feats = issue_evidence(index, row["problem_statement"])
                gold = {(p, q) for p, names in gold_symbols(index, row["patch"]) for q in names}
                sids = sorted(feats)
                out.append((np.array([vector(feats[i], ALL_NAMES) for i in sids]).reshape(len(sids), len(ALL_NAMES)),
                            np.array([1.0 if (sc.syms[i].path, sc.syms[i].qualname) in gold else 0.0 for i in sids])))
        finally:
            for idx in opened.values():
                idx.close()
    return out


def measure_small(rows: list[dict], dbs: Path, options: dict | None = None,
                  model: dict | None = None) -> tuple[list[dict], list[dict]]:
    """(summary, per-instance rows) of D_loc and BM25 on small cases (swevis.localize.evaluation)."""
    opened: dict = {}
    try:
        per = [r for row in rows
               for r in evaluate_instance(case_index(row, dbs, opened), row, ks=KS, options=options, model=model)]
    finally:
        for idx in opened.values():
            idx.close()
    return summarize(per), per
