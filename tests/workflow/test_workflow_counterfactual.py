"""The counterfactual replay as a workflow target: a tiny trajectory set through Snakemake into
results/counterfactual/<set>/, and what reruns when the set or its table's settings change."""

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from helpers import FIXTURES
from helpers import run_snakemake as snakemake

TINY = """
tasks: {source: bundled, instance_ids: [swevis-samples__ledgerkit-117]}
models:
  q: {backend: playback, model_id: q, tokenizer: qwen3, image_family: qwen3.5}
counterfactual:
  sets: {tiny: {path: traj}}
  conditions: [text, r3, mem]
  bootstrap: {resamples: 50, seed: SEED}
"""
OUT = "results/counterfactual/tiny"
TARGETS = [f"{OUT}/{n}" for n in ("per_step.parquet", "table.csv", "decomposition.csv", "figure.png")]
FILES = ["mini1__swevis-samples__ledgerkit-117.traj.json", "openhands__swevis-samples__ledgerkit-117.json",
         "swevis-samples__ledgerkit-117.traj"]


def finished_rules(proc: subprocess.CompletedProcess) -> Counter:
    return Counter(re.findall(r"Finished jobid: \d+ \(Rule: (\w+)\)", proc.stdout + proc.stderr))


def build(workdir: Path, seed: int) -> subprocess.CompletedProcess:
    (workdir / "config.yaml").write_text(TINY.replace("SEED", str(seed)))
    proc = snakemake(workdir, *TARGETS, cores=1)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return proc


@pytest.mark.slow
def test_a_trajectory_set_builds_its_table_decomposition_and_figure(tmp_path: Path):
    (tmp_path / "traj").mkdir()
    for name in FILES[:2]:
        shutil.copy(FIXTURES / "trajectories" / name, tmp_path / "traj" / name)
    first = build(tmp_path, 1)
    assert finished_rules(first) == Counter({"counterfactual_replay": 1, "counterfactual_table": 1})
    steps = pl.read_parquet(tmp_path / OUT / "per_step.parquet")
    assert steps["trajectory"].n_unique() == 2 and set(steps["condition"]) == {"text", "r3", "mem"}
    table = pl.read_csv(tmp_path / OUT / "table.csv")
    r3 = table.filter(pl.col("condition") == "r3").row(0, named=True)
    assert r3["trajectories"] == 2 and r3["aggregate_ci_low"] <= r3["aggregate_reduction"] <= r3["aggregate_ci_high"]
    assert 1 < r3["aggregate_reduction"] < r3["ceiling_reduction"]
    decomposition = pl.read_csv(tmp_path / OUT / "decomposition.csv")
    assert decomposition["condition"].to_list() == ["r3", "mem"]
    assert (tmp_path / OUT / "figure.png").read_bytes()[:4] == b"\x89PNG"

    # another bootstrap seed: the table only; a trajectory added: the replay and the table
    assert finished_rules(build(tmp_path, 2)) == Counter({"counterfactual_table": 1})
    shutil.copy(FIXTURES / "trajectories" / FILES[2], tmp_path / "traj" / FILES[2])
    assert finished_rules(build(tmp_path, 2)) == Counter({"counterfactual_replay": 1, "counterfactual_table": 1})
    steps = pl.read_parquet(tmp_path / OUT / "per_step.parquet")
    assert steps["trajectory"].n_unique() == 3
    assert steps.filter(pl.col("condition") == "mem")["memory_saved_tokens"].sum() > 0  # SWE-agent's re-read
    mem = pl.read_csv(tmp_path / OUT / "table.csv").filter(pl.col("condition") == "mem").row(0, named=True)
    assert mem["trajectories"] == 3 and mem["aggregate_reduction"] > 1
