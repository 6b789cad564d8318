"""The execution profiles parse, and a dry run with each builds the workflow's DAG on a tiny
config (no cluster needed: a dry run never submits). With the sampled instances already on
disk the DAG reaches the agent jobs, whose per-rule resources come from the profile."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from helpers import PROJECT_ROOT, run_snakemake

PROFILES = PROJECT_ROOT / "profiles"
TINY = """
tasks:
  source: bundled
  instance_ids: [swevis-samples__ledgerkit-117]
models:
  qwen3.5: {backend: playback, model_id: qwen3.5-397b-a17b, tokenizer: qwen3, image_family: qwen3.5}
agents:
  matrix:
    - {agent: plb, scope: normal, conditions: [text, r3]}
analysis:
  baseline: {agent: plb, scope: normal, condition: text}   # no mini cell: PLB text is the reference
"""


def load(name: str) -> dict:
    return yaml.safe_load((PROFILES / name / "config.yaml").read_text())


@pytest.mark.parametrize("name", ["default", "slurm", "kubernetes"])
def test_profile_parses_with_known_keys(name):
    prof = load(name)
    assert isinstance(prof, dict)
    caps = dict(r.split("=") for r in prof["resources"])
    assert int(caps["llm"]) >= 1  # the global cap on concurrent model calls
    assert prof["rerun-triggers"] == ["mtime", "params", "input"]  # paid work never re-runs on code edits
    # every rule named under set-resources exists
    rules = set(re.findall(r"^\s*(?:rule|checkpoint) (\w+):", "\n".join(
        p.read_text() for p in (PROJECT_ROOT / "rules").glob("*.smk")), re.M))
    assert set(prof.get("set-resources", {})) <= rules


def test_default_profile_job_rate_limit_never_binds_and_wakes_rarely():
    """The local profile's rate limit, read by Snakemake's own parser: no local run comes near
    its count, and its timespan is long enough that the scheduler's re-evaluation chains (one
    more per finished job) wake rarely, yet short enough not to hold a finished run long."""
    from snakemake.settings.types import MaxJobsPerTimespan

    limit = MaxJobsPerTimespan.parse_choice(load("default")["max-jobs-per-timespan"])
    assert limit.max_jobs >= 1000
    assert 2 <= limit.timespan <= 10


def test_slurm_profile_contents():
    prof = load("slurm")
    assert prof["executor"] == "slurm"
    assert prof["default-resources"]["slurm_account"] == "'$SWEVIS_SLURM_ACCOUNT'"
    assert prof["default-resources"]["slurm_partition"] == "'$SWEVIS_SLURM_PARTITION'"
    agent = prof["set-resources"]["run_agent"]
    assert {"runtime", "mem_mb", "cpus_per_task"} <= set(agent)


def test_kubernetes_profile_contents():
    prof = load("kubernetes")
    assert prof["executor"] == "kubernetes"
    assert prof["default-storage-provider"] == "fs" and prof["default-storage-prefix"]
    assert dict(r.split("=") for r in prof["resources"])["docker"] == "2"


def dry_run(workdir: Path, profile: str, *extra: str, env: dict | None = None) -> str:
    proc = run_snakemake(
        workdir, "-n", "--workflow-profile", str(PROFILES / profile), *extra, "results/table1.csv",
        cores=None, env=env, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A tiny config with its sampled instances already written (the checkpoint's outputs),
    so the dry run's DAG reaches the agent and evaluation jobs."""
    from swevis.config import validate_config
    from swevis.provenance import write_json_atomic
    from swevis.tasks import write_instances
    from swevis.tasks.sources import sample_summary, select_instances

    d = tmp_path_factory.mktemp("profiles")
    (d / "config.yaml").write_text(TINY)
    tasks = validate_config(yaml.safe_load(TINY))["tasks"]
    rows = select_instances(tasks)
    (d / "results").mkdir()
    write_json_atomic(sample_summary(tasks, rows), d / "results" / "instances.summary.json")
    write_instances(rows, d / "results" / "instances.jsonl")
    return d


def job_resources(out: str, rule: str) -> str:
    m = re.search(rf"rule {rule}:\n(?:.*\n)*?\s+resources: (.*)", out)
    assert m, f"no {rule} job in the dry run"
    return m.group(1)


@pytest.mark.slow
def test_slurm_dry_run_builds_the_dag(workdir):
    out = dry_run(workdir, "slurm", env={"SWEVIS_SLURM_ACCOUNT": "proj123", "SWEVIS_SLURM_PARTITION": "cpu"})
    res = job_resources(out, "run_agent")
    assert "slurm_account=proj123" in res and "slurm_partition=cpu" in res
    assert "runtime=720" in res and "mem_mb=8000" in res and "cpus_per_task=2" in res
    assert "llm=1" in res
    assert "slurm_account=proj123" in job_resources(out, "tables")
    assert job_counts(out)["run_agent"] == 2  # two conditions of one instance


def job_counts(out: str) -> dict[str, int]:
    stats = out[out.index("Job stats:"):]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M)}


@pytest.mark.slow
def test_kubernetes_dry_run_builds_the_dag(workdir):
    # The fs storage provider with a folder of this machine as the "claim". The sampled
    # instances are put in storage, and in Snakemake's local copy of it: a dry run does not
    # retrieve a checkpoint's output (a real run's checkpoint job writes both).
    storage = workdir / "storage"
    local_copy = workdir / ".snakemake" / "storage" / "fs" / str(storage).lstrip("/")
    for root in (storage, local_copy):
        (root / "results").mkdir(parents=True, exist_ok=True)
        for f in (workdir / "results").iterdir():
            (root / "results" / f.name).write_bytes(f.read_bytes())
    out = dry_run(workdir, "kubernetes", "--default-storage-prefix", str(storage))
    jobs = job_counts(out)
    assert jobs["run_agent"] == 2 and jobs["evaluate_condition"] == 2 and jobs["tables"] == 1
    assert "mem_mb=8000" in job_resources(out, "run_agent")
    # with the Docker harness: one evaluate_condition job per condition, holding the docker cap
    (workdir / "docker.yaml").write_text("harness: {kind: docker}\n")
    out = dry_run(workdir, "kubernetes", "--default-storage-prefix", str(storage),
                  "--configfile", str(workdir / "config.yaml"), str(workdir / "docker.yaml"), "--")
    jobs = job_counts(out)
    assert jobs["run_agent"] == 2 and jobs["evaluate_condition"] == 2
    assert "docker=1" in job_resources(out, "evaluate_condition")
