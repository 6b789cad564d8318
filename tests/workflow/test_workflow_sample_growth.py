"""Growing the sample reruns only what the new instances need. The sampling checkpoint rewrites
instances.jsonl whenever the sample changes; before the per-instance rules read it as
ancient(), its new mtime reran every mirror, checkout, index, pre-localization and agent run
of the study (at study scale with a live model: every paid trajectory).

The study of FIRST is the tiny study (conftest.py) narrowed to two of its cells: a copy of its
first run is already up to date for it, so the tests start from that instead of a run of their own."""

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from swevis.tasks.sources import select_instances

from helpers import run_snakemake as snakemake

STUDY = """
tasks:
  source: bundled
  instance_ids: [{ids}]
models:
  qwen3.5: {{backend: playback, model_id: qwen3.5-397b-a17b, tokenizer: qwen3, image_family: qwen3.5}}
agents:
  matrix:
    - {{agent: mini, scope: normal, conditions: [text]}}
    - {{agent: plb, scope: normal, conditions: [text]}}
"""
CELLS = ("mini-normal", "plb-normal")
CONDITIONS = [f"results/runs/qwen3.5/{cell}/text/summary.json" for cell in CELLS]
FIRST = ["swevis-samples__ledgerkit-117", "swevis-samples__tabulon-305"]
# one more instance at ledgerkit's sampled commit (142 sorts after 117: the index of that
# repo@commit stays built from 117's checkout; README names the case where it does not) and
# one of a repository not sampled before
ADDED = ["swevis-samples__ledgerkit-142", "swevis-samples__stratconf-203"]


def finished(proc) -> Counter:
    return Counter(re.findall(r"Finished jobid: \d+ \(Rule: (\w+)\)", proc.stdout + proc.stderr))


def cell_logs(workdir: Path) -> list[str]:
    """The last line of each cell's run_condition log that counts its runs, by cell."""
    logs = [workdir / "results" / "logs" / "runs" / "qwen3.5" / cell / "text.log" for cell in CELLS]
    return [[line for line in p.read_text().splitlines() if "runs made" in line][-1] for p in logs]


def cell_runs(workdir: Path, instance: str = "*") -> list[Path]:
    """The traj.json of the two cells' runs (of one instance, or all)."""
    runs = workdir / "results" / "runs" / "qwen3.5"
    return [p for cell in CELLS for p in sorted(runs.glob(f"{cell}/text/{instance}/traj.json"))]


def run_study(workdir: Path, ids: list[str]):
    (workdir / "config.yaml").write_text(STUDY.format(ids=", ".join(ids)))
    proc = snakemake(workdir, *CONDITIONS)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return proc


@pytest.fixture
def study_of_first(tiny_study) -> Path:
    """A copy of the tiny study's first run (mtimes and Snakemake's records kept) as the study of
    FIRST: with STUDY as its config it has nothing to do, which a dry run shows."""
    work = tiny_study[0]
    (work / "config.yaml").write_text(STUDY.format(ids=", ".join(FIRST)))
    dry = snakemake(work, *CONDITIONS, "-n")
    assert dry.returncode == 0 and "Nothing to be done" in dry.stdout + dry.stderr, (dry.stdout + dry.stderr)[-4000:]
    return work


@pytest.mark.slow
@pytest.mark.xdist_group("tiny_study")
def test_a_grown_sample_runs_only_the_new_instances(study_of_first: Path):
    tmp_path = study_of_first
    kept = {p: p.stat().st_mtime_ns for p in cell_runs(tmp_path)}
    assert len(kept) == 4

    grown = finished(run_study(tmp_path, FIRST + ADDED))
    assert grown == Counter({
        "sample_instances": 1,
        "mirror_repo": 1,  # stratconf's (a commit new to a mirrored repo: its checkout fetches it)
        "checkout_instance": 2,
        "all_checkouts": 1,
        "index_repo": 1,  # stratconf@commit; ledgerkit's index is built from 117's checkout still
        "prelocalize": 2,
        "run_condition": 2,  # both cells: the two new instances' runs, none of the four before
        "validate_environments": 1,
        "evaluate_condition": 2,
        "summarize_condition": 2,
    })
    assert {p: p.stat().st_mtime_ns for p in kept} == kept
    assert len(cell_runs(tmp_path)) == 8
    assert all(line.endswith("2 runs made, 2 current") for line in cell_logs(tmp_path))


@pytest.mark.slow
@pytest.mark.xdist_group("tiny_study")
def test_an_edited_task_file_reruns_the_changed_instance_only(study_of_first: Path):
    """A local task file is the sampling rule's input, and the per-instance rules take the
    digest of their row as a param: editing one row's problem statement resamples and reruns
    that instance's pre-localization and runs, not its checkout and nothing of the others.
    The study of FIRST moves to a task file of the same rows first: that only resamples."""
    tmp_path = study_of_first
    rows = select_instances({"source": "bundled", "instance_ids": FIRST})
    task_file = tmp_path / "tasks.jsonl"
    task_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    study = STUDY.replace("source: bundled\n  instance_ids: [{ids}]", f"source: file\n  path: {task_file}")
    (tmp_path / "config.yaml").write_text(study.replace("{{", "{").replace("}}", "}"))
    first = snakemake(tmp_path, *CONDITIONS)
    assert first.returncode == 0, (first.stdout + first.stderr)[-4000:]
    assert finished(first) == Counter({"sample_instances": 1}), (first.stdout + first.stderr)[-4000:]
    kept = {p: p.stat().st_mtime_ns for p in cell_runs(tmp_path, FIRST[0])}
    assert len(kept) == 2

    rows[1]["problem_statement"] += "\nAlso: the totals are off by one."
    task_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    second = snakemake(tmp_path, *CONDITIONS)
    assert second.returncode == 0, (second.stdout + second.stderr)[-4000:]
    assert finished(second) == Counter({
        "sample_instances": 1, "prelocalize": 1, "run_condition": 2,  # both cells: tabulon-305's runs
        "validate_environments": 1, "evaluate_condition": 2, "summarize_condition": 2,
    })
    assert {p: p.stat().st_mtime_ns for p in kept} == kept  # ledgerkit-117's runs are not made again
    assert all(line.endswith("1 runs made, 1 current") for line in cell_logs(tmp_path))
