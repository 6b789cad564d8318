"""The tasks stage through Snakemake itself: sampling checkpoint, mirrors, checkouts, reruns."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import PROJECT_ROOT, SNAKEMAKE
from helpers import run_snakemake as snakemake



@pytest.fixture
def file_source_workdir(tmp_path: Path, toy_task) -> Path:
    remotes = tmp_path / "remotes" / "toyorg"
    remotes.mkdir(parents=True)
    shutil.move(str(toy_task["repo_dir"]), remotes / "toy")
    row = toy_task["row"]
    rows = [{**row, "instance_id": f"toyorg__toy-{i}"} for i in (1, 2, 3)]
    work = tmp_path / "work"
    work.mkdir()
    (work / "tasks.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    (work / "config.yaml").write_text(
        "tasks:\n"
        "  source: file\n"
        "  path: tasks.jsonl\n"
        "  n: 2\n"
        "  seed: 3\n"
        f"  remote_url: 'file://{tmp_path}/remotes/{{repo}}'\n"
        "  repo_cache: cache/mirrors\n"
        "  checkout_root: cache/checkouts\n"
    )
    return work


@pytest.mark.slow
def test_sample_and_checkouts_through_snakemake(file_source_workdir: Path):
    work = file_source_workdir
    proc = snakemake(work, "results/checkouts/all.json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [json.loads(line) for line in (work / "results" / "instances.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    summary = json.loads((work / "results" / "instances.summary.json").read_text())
    assert summary["n"] == 2 and summary["per_repo"] == {"toyorg/toy": 2} and summary["swevis_version"]
    manifests = json.loads((work / "results" / "checkouts" / "all.json").read_text())
    assert [m["instance_id"] for m in manifests] == [r["instance_id"] for r in rows]
    for m in manifests:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=work / m["path"], capture_output=True, text=True).stdout.strip()
        assert head == m["base_commit"]
    # every rule wrote its log
    assert (work / "results" / "logs" / "tasks" / "sample_instances.log").exists()
    # an up-to-date rerun does nothing
    again = snakemake(work, "results/checkouts/all.json")
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr


@pytest.mark.slow
def test_bad_config_stops_the_workflow_naming_the_key(file_source_workdir: Path):
    (file_source_workdir / "config.yaml").write_text("tasks:\n  sample_size: 3\n")
    proc = snakemake(file_source_workdir, "-n")
    assert proc.returncode != 0
    assert "sample_size" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_missing_task_file_fails_with_a_clear_error(file_source_workdir: Path):
    (file_source_workdir / "tasks.jsonl").unlink()
    proc = snakemake(file_source_workdir, "results/instances.jsonl")
    assert proc.returncode != 0
    # the task file is the sampling rule's input: Snakemake names it before anything runs
    out = proc.stdout + proc.stderr
    assert "Missing input files for rule sample_instances" in out and "tasks.jsonl" in out, out[-2000:]
    assert not (file_source_workdir / "results" / "instances.jsonl").exists()


@pytest.mark.slow
def test_lint_is_clean():
    proc = subprocess.run([SNAKEMAKE, "--lint"], cwd=PROJECT_ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Congratulations" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_rules_are_snakefmt_formatted():
    snakefmt = str(Path(sys.executable).parent / "snakefmt")
    rules = [str(p) for p in sorted((PROJECT_ROOT / "rules").glob("*.smk"))]
    proc = subprocess.run([snakefmt, "--check", str(PROJECT_ROOT / "Snakefile"), *rules], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_sampling_rule_is_given_every_tasks_key_the_sample_reads():
    """sample_instances' `tasks` param is the tasks keys the sample is made of: a key that
    swevis.tasks.sources reads but the param leaves out would neither reach the script nor
    rerun the sample when it changes (tasks.languages once did)."""
    import re

    read = set(re.findall(r'tasks_cfg(?:\.get\(|\[)"(\w+)"', (PROJECT_ROOT / "src" / "swevis" / "tasks" / "sources.py").read_text()))
    rule = (PROJECT_ROOT / "rules" / "tasks.smk").read_text().split("sample_instances:", 1)[1].split("\nrule ", 1)[0]
    given = set(re.findall(r'"(\w+)"', rule.split("keys_of(", 1)[1].split(")", 1)[0])) - {"tasks"}
    assert read and read <= given, sorted(read - given)
