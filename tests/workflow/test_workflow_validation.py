"""Through Snakemake: an instance whose environment fails validation is reported in
summary.json and the tables and left out of accuracy, never counted as unresolved."""

import json
from pathlib import Path

import polars as pl
import pytest

from helpers import run_snakemake
from swevis.tasks.bundled import load_bundled_instances

GOOD, BAD = "swevis-samples__ledgerkit-117", "swevis-samples__tabulon-305"


@pytest.mark.slow
def test_an_invalid_environment_is_named_and_excluded_end_to_end(tmp_path: Path):
    rows = {r["instance_id"]: r for r in load_bundled_instances(verify_commits=False)}
    bad = dict(rows[BAD])
    # tests that already pass on the base commit: the empty patch "resolves", so no verdict
    # on this instance can tell a fix from no fix
    bad["FAIL_TO_PASS"], bad["PASS_TO_PASS"] = bad["PASS_TO_PASS"][:2], bad["PASS_TO_PASS"][2:]
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(r) + "\n" for r in (rows[GOOD], bad)))
    (tmp_path / "config.yaml").write_text(
        f"tasks: {{source: file, path: {tasks}}}\n"
        "models:\n  qwen3.5: {backend: playback, model_id: qwen3.5-397b-a17b, tokenizer: qwen3, image_family: qwen3.5}\n"
        "agents:\n  matrix:\n    - {agent: mini, scope: normal, conditions: [text]}\n"
        "    - {agent: plb, scope: normal, conditions: [text]}\n"
    )
    proc = run_snakemake(tmp_path, "results/table1.csv")
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads((tmp_path / "results" / "validation" / "local.json").read_text())
    assert report["n_valid"] == 1 and list(report["invalid"]) == [BAD]
    summary = json.loads((tmp_path / "results" / "runs" / "qwen3.5" / "plb-normal" / "text" / "summary.json").read_text())
    assert summary["n_runs"] == 2 and summary["n"] == 1 and summary["invalid_instances"] == [BAD]
    assert summary["accuracy"] == 1.0  # the valid instance is resolved; the invalid one is not a failure
    table = pl.read_csv(tmp_path / "results" / "table1.csv").filter(pl.col("agent") == "plb").row(0, named=True)
    assert table["n_invalid"] == 1 and table["n_max"] == 1 and table["acc_text"] == 100.0
    long = pl.read_csv(tmp_path / "results" / "table1_long.csv")
    ran = long.filter(pl.col("n_runs") > 0)  # the cells of the matrix (2 cells x 2 metrics)
    assert ran.height == 4 and (ran["n_invalid"] == 1).all()
    assert {"spend_cache_aware_total", "spend_cache_aware_mean", "prompt_tokens_total", "cached_prompt_tokens_total",
            "uncached_prompt_tokens_total", "completion_tokens_total"} <= set(long.columns)
