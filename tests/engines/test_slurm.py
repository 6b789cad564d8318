"""profiles/slurm on a real SLURM cluster (.ci/slurm-up's single node on this machine): one
condition of the bundled sample, summary.json and the nine jobs behind it, run once locally
and once through the profile with the slurm executor. The results are the same, and every
job of the profile run went through sbatch and completed as a SLURM job. Also: the profile's
`docker` cap bounds the Docker evaluations that run on the submitting host."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from helpers import PROJECT_ROOT, SNAKEMAKE, engine_unavailable, run_snakemake

PROFILE = PROJECT_ROOT / "profiles" / "slurm"
CONFIG = """
tasks:
  source: bundled
  instance_ids: [swevis-samples__tabulon-305]
models:
  qwen3.5: {backend: playback, model_id: qwen3.5-397b-a17b, tokenizer: qwen3, image_family: qwen3.5}
agents:
  matrix:
    - {agent: mini, scope: normal, conditions: [text]}
"""
CONDITION = "results/runs/qwen3.5/mini-normal/text"
RUN = f"{CONDITION}/swevis-samples__tabulon-305"
TARGET = f"{CONDITION}/summary.json"
# The JSON outputs compared, and the fields in them that legitimately differ between two runs:
# when a file was written and how long a step took. Both runs use the same folder (the local
# one is moved aside first): its absolute path is in the agent's observations, whose token
# counts would otherwise differ with the folder's name.
VOLATILE = {
    TARGET: {"provenance.created"},
    f"{CONDITION}/harness/harness_summary.json": set(),
    f"{CONDITION}/harness/evals/swevis-samples__tabulon-305/eval.json": {"duration_s"},
    f"{RUN}/traj.json": {"provenance.wall_time_s"},
    "results/validation/local.json": set(),
}
# the target's jobs, one each: on the cluster a run is a job (the profile's agents.jobs: run),
# locally a cell's runs are one job (agents.jobs: cell, the default)
RULES = sorted(["sample_instances", "mirror_repo", "checkout_instance", "all_checkouts", "index_repo",
                "run_agent", "validate_environments", "evaluate_condition", "summarize_condition"])
LOCAL_RULES = sorted("run_condition" if rule == "run_agent" else rule for rule in RULES)
SUBMITTED = re.compile(r"Job \d+ has been submitted with SLURM jobid (\d+) \(log: (\S+)\)")
FINISHED = re.compile(r"Finished jobid: \d+ \(Rule: (\w+)\)")


def _lines(*cmd: str) -> list[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return proc.stdout.split("\n") if proc.returncode == 0 else []


def cluster() -> dict:
    """The node that takes jobs and its partition, CPUs and MB; skips when there is none."""
    if shutil.which("sinfo") is None:
        engine_unavailable("no SLURM here: sinfo not found (.ci/slurm-up starts a single-node cluster)")
    nodes = [line.split() for line in _lines("sinfo", "-h", "-N", "-o", "%N %P %t %c %m") if line.strip()]
    up = [n for n in nodes if n[2] in ("idle", "mix", "alloc")]  # "*" after a state: not responding
    if not up:
        engine_unavailable(f"no SLURM node is up (sinfo: {nodes or 'no answer'}; .ci/slurm-up starts one)")
    name, partition, _, cpus, mem = up[0]
    no_accounting = any(re.match(r"AccountingStorageType\s*=\s*accounting_storage/none", line)
                        for line in _lines("scontrol", "show", "config"))
    # without accounting sacct has no jobs to report: the plugin must ask squeue
    return {"node": name, "partition": partition.rstrip("*"), "cpus": int(cpus), "mem_mb": int(mem),
            "status_command": "squeue" if no_accounting else "sacct"}


def capped_set_resources(node: dict) -> list[str]:
    """The profile's set-resources as --set-resources arguments, each capped to the node (a
    4-CPU index job does not fit a 2-CPU machine). On the command line they replace the
    profile's whole block, so every entry is passed, capped or not."""
    entries = yaml.safe_load((PROFILE / "config.yaml").read_text())["set-resources"]
    caps = {"cpus_per_task": node["cpus"], "mem_mb": node["mem_mb"]}
    return [
        f"{rule}:{key}={min(value, caps[key]) if key in caps else value}"
        for rule, resources in entries.items()
        for key, value in resources.items()
    ]


def flat(value, prefix: str = "") -> dict:
    """Dotted key -> scalar: list items as key[i]."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in flat(item, f"{prefix}.{key}" if prefix else key).items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in flat(item, f"{prefix}[{i}]").items()}
    return {prefix: value}


def outputs(workdir: Path) -> dict[str, dict]:
    """The compared JSON outputs of a run, flattened, without their volatile fields."""
    return {
        name: {k: v for k, v in flat(json.loads((workdir / name).read_text())).items() if k not in volatile}
        for name, volatile in VOLATILE.items()
    }


def job_states(job_ids: list[str], status_command: str) -> dict[str, str]:
    ids = ",".join(job_ids)
    if status_command == "squeue":
        rows = _lines("squeue", "-h", "-t", "all", "-j", ids, "-o", "%i %T")
    else:
        rows = [r.replace("|", " ") for r in _lines("sacct", "-X", "-n", "-P", "-j", ids, "-o", "JobID,State")]
    return dict(r.split()[:2] for r in rows if r.strip())


@pytest.mark.slurm
@pytest.mark.slow
def test_one_condition_through_sbatch_equals_the_local_run(tmp_path: Path):
    node = cluster()
    slurm = tmp_path / "run"
    slurm.mkdir()
    (slurm / "config.yaml").write_text(CONFIG)
    first = run_snakemake(slurm, TARGET, timeout=600)
    assert first.returncode == 0, first.stderr[-4000:]
    local = slurm.rename(tmp_path / "local")
    slurm.mkdir()
    (slurm / "config.yaml").write_text(CONFIG)

    # a cluster without accounting takes any account; one with it, the caller's
    env = {"SWEVIS_SLURM_ACCOUNT": os.environ.get("SWEVIS_SLURM_ACCOUNT", "swevis"),
           "SWEVIS_SLURM_PARTITION": os.environ.get("SWEVIS_SLURM_PARTITION", node["partition"])}
    proc = run_snakemake(
        slurm, TARGET, "--workflow-profile", str(PROFILE),
        "--slurm-status-command", node["status_command"],
        # the first status check after 1 s, not 40 (the profile's), and the next ones every 2 s at
        # most: these jobs take 5-40 s, and the plugin's own back-off waits 10 s longer after each
        # check that finds a job still running (tests/slurm_poll.py caps it)
        "--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "1",
        "--slurm-keep-successful-logs",
        "--set-resources", *capped_set_resources(node),
        cores=None, env=env, timeout=1200, prelude="slurm_poll",
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-6000:]

    # every job of the DAG went through sbatch, and SLURM ran each to completion
    submitted = SUBMITTED.findall(log)
    assert sorted(FINISHED.findall(log)) == RULES
    assert sorted(FINISHED.findall(first.stdout + first.stderr)) == LOCAL_RULES
    assert len(submitted) == len(RULES), log[-6000:]
    for job_id, slurm_log in submitted:
        assert Path(slurm_log).is_file() and Path(slurm_log).is_relative_to(slurm / ".snakemake" / "slurm_logs")
    states = job_states([job_id for job_id, _ in submitted], node["status_command"])
    assert states == {job_id: "COMPLETED" for job_id, _ in submitted}

    assert outputs(slurm) == outputs(local)
    assert (slurm / RUN / "patch.diff").read_bytes() == (local / RUN / "patch.diff").read_bytes()


@pytest.mark.slurm
def test_slurm_up_again_starts_nothing():
    """With the cluster up, .ci/slurm-up is a no-op that succeeds (CI may call it twice)."""
    cluster()
    if os.geteuid() != 0:
        pytest.skip(".ci/slurm-up runs as root")
    proc = subprocess.run([str(PROJECT_ROOT / ".ci" / "slurm-up")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "started nothing" in proc.stdout and "wrote" not in proc.stdout, proc.stdout


CAPPED = """
rule all:
    input: expand("out/{i}.txt", i=range(N))
rule evaluate:
    output: "out/{i}.txt"
    resources: docker=1
    shell: "date +%s.%N > {output}; sleep 2; date +%s.%N >> {output}"
"""


@pytest.mark.slow
def test_the_docker_cap_bounds_concurrent_docker_jobs(tmp_path: Path):
    """Of one more docker=1 job than the profile's cap, exactly the cap run at once (a cap of 0
    would not forbid them: Snakemake lowers each job's request to it, and all start)."""
    cap = int(dict(r.split("=") for r in yaml.safe_load((PROFILE / "config.yaml").read_text())["resources"])["docker"])
    n = max(cap, 1) + 1
    (tmp_path / "Snakefile").write_text(CAPPED.replace("range(N)", f"range({n})"))
    proc = subprocess.run(
        [SNAKEMAKE, "-d", str(tmp_path), "-s", str(tmp_path / "Snakefile"), "--cores", str(n), "--resources", f"docker={cap}"],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    spans = [tuple(map(float, p.read_text().split())) for p in (tmp_path / "out").iterdir()]
    running_at_once = max(sum(start <= t < end for start, end in spans) for t, _ in spans)
    assert running_at_once == cap, f"{running_at_once} of {n} docker=1 jobs ran at once under docker={cap}"


def test_the_poll_cap_holds_the_plugins_back_off_to_two_seconds():
    """tests/slurm_poll.py caps the wait the plugin sets after each status check (no cluster
    needed): should a plugin release stop setting it there, this fails instead of the SLURM test
    slowing down unseen."""
    import inspect

    import slurm_poll
    from snakemake_executor_plugin_slurm import Executor

    assert "self.next_seconds_between_status_checks = min(" in inspect.getsource(Executor.check_active_jobs)
    executor = object.__new__(Executor)
    executor.next_seconds_between_status_checks = 40
    assert executor.next_seconds_between_status_checks == slurm_poll.POLL_S == 2
    executor.next_seconds_between_status_checks = 1
    assert executor.next_seconds_between_status_checks == 1
