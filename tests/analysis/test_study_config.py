"""A user's config defines the study: `--configfile` replaces the embedded default (nothing
of config.yaml leaks in), the tables take their rows and columns from agents.matrix, and a
name that points at no profile or cell stops the DAG build with one line naming the key."""

import os
import subprocess
from pathlib import Path

import polars as pl
import pytest
import snakemake_fork
from helpers import PROJECT_ROOT

from swevis.analysis.build import build_tables
from swevis.analysis.load import SUMMARY_FORMAT
from swevis.analysis.tables import settings_from_config, table_layout
from swevis.config import validate_config
from swevis.errors import SwevisError
from swevis.workflow import check_study

MY = """
tasks: {source: bundled, instance_ids: [swevis-samples__tabulon-305]}
models:
  mine: {backend: playback, model_id: m, tokenizer: qwen3, image_family: qwen3.5}
analysis:
  baseline: {agent: plb, scope: normal, condition: text}   # no mini cell: PLB text is the reference
agents:
  matrix:
    - {agent: plb, scope: normal, conditions: [text, r2]}
"""
BASELINE = {"agent": "mini", "scope": "normal", "condition": "text"}


def dry_run(workdir: Path, configfile: Path, *overrides: str, target: str = "all") -> subprocess.CompletedProcess:
    """A dry run of the workflow as a user starts it: from the project folder, whose
    config.yaml is the embedded default, results written under `workdir`."""
    return snakemake_fork.run(
        [target, "-n", "--cores", "1", "--configfile", str(configfile), "--config", f"results_dir={workdir}/results",
         *overrides],
        env={**os.environ, "HF_DATASETS_OFFLINE": "1"}, cwd=PROJECT_ROOT,
    )


def study(text: str) -> dict:
    import yaml

    return validate_config(yaml.safe_load(text))


@pytest.mark.slow
def test_configfile_replaces_the_embedded_default(tmp_path: Path):
    (tmp_path / "my.yaml").write_text(MY)
    proc = dry_run(tmp_path, tmp_path / "my.yaml")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "model=mine" in out
    # the embedded profiles, matrix and ablation are gone
    for leaked in ("qwen3.5", "kimi-k2.5", "rule ablation", "agent=let", "agent=mini"):
        assert leaked not in out, leaked


@pytest.mark.slow
def test_config_overrides_apply_on_top_of_a_configfile(tmp_path: Path):
    (tmp_path / "my.yaml").write_text(MY)
    proc = dry_run(tmp_path, tmp_path / "my.yaml", "analysis={table_models: [nomodel]}")
    assert proc.returncode != 0
    assert "config key 'analysis/table_models': 'nomodel' is not a profile in models (mine)" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_embedded_ablation_model_is_checked_against_the_users_models(tmp_path: Path):
    (tmp_path / "my.yaml").write_text(MY + "  variants: {let-mem: {memory: true}}\n  ablation: {models: [qwen3.5]}\n")
    proc = dry_run(tmp_path, tmp_path / "my.yaml")
    assert proc.returncode != 0
    assert "config key 'agents/ablation/models': 'qwen3.5' is not a profile in models (mine)" in proc.stdout + proc.stderr
    assert "KeyError" not in proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "extra, message",
    [
        ("analysis: {table_models: [nomodel]}", "config key 'analysis/table_models': 'nomodel' is not a profile"),
        ("single_read: {backbones: [m, other]}", "single_read.backbones: 'other' is not a profile in models"),
        ("agents: {variants: {let-mem: {}}, ablation: {models: [x]}, matrix: [{agent: let, scope: normal, conditions: [text, r3]}]}",
         "config key 'agents/ablation/models': 'x' is not a profile"),
        ("agents: {variants: {let-mem: {}}, ablation: {conditions: [r5]}, matrix: [{agent: let, scope: normal, conditions: [text]}]}",
         "config key 'agents/ablation/conditions': 'r5' is not a condition of the let normal cell"),
        ("agents: {variants: {let-mem: {}}, ablation: {scopes: [wide]}, matrix: [{agent: let, scope: normal, conditions: [text, r3]}]}",
         "config key 'agents/ablation/scopes': 'wide' has no let cell"),
        ("agents: {matrix: [{agent: plb, scope: normal, conditions: [text]}]}",
         "config key 'analysis/baseline': mini/normal/text is not a cell of agents.matrix"),
        ("models: {live: {backend: openai, base_url: 'http://127.0.0.1:9/v1'}}",
         "config key 'models/live/model_id': a live profile"),
        ("models: {live: {backend: openai, model_id: x}}\nagents: {environment: local}",
         "config key 'agents/allow_live_on_host': profile 'live' is live"),
        ("models: {live: {backend: openai, model_id: x, api_key_env: K}}\n"
         "agents: {environment: docker, env_passthrough: [K]}",
         "config key 'agents/env_passthrough': K is profile 'live'"),
    ],
)
def test_names_without_a_profile_or_cell_are_config_errors(extra, message):
    cfg = study(extra if extra.startswith("models:") else "models: {m: {}}\n" + extra)
    with pytest.raises(SwevisError, match=message.replace("(", r"\(")):
        check_study(cfg)


@pytest.mark.parametrize("environment", ["auto", "docker"])
def test_a_live_model_in_docker_needs_no_host_acknowledgement(environment):
    """auto (the default) puts a live model's commands in Docker, never on this host."""
    cfg = study(f"models: {{live: {{backend: openai, model_id: x}}}}\nagents: {{environment: {environment}}}")
    assert cfg["agents"]["allow_live_on_host"] is False
    check_study(cfg)


@pytest.mark.parametrize("render, fails", [
    ({"font_mode": "bilevel", "highlight": False, "line_height": 1.5}, True),  # never measured
    ({"font_mode": "bilevel", "highlight": False, "line_height": 1.5, "min_font_px": 8}, False),
    ({"font_mode": "supersample"}, False),  # measured: 6.0 px
    ({"ratio_tolerance": 0.2}, False),  # how glyphs are drawn is the default's
])
def test_a_drawing_without_a_measured_guard_stops_the_study_before_it_renders(render, fails):
    cfg = study("models: {m: {}}\n")
    cfg["single_read"]["render"].update(render)
    if fails:
        with pytest.raises(SwevisError, match=r"^config key 'single_read/render': render.min_font_px: no measured"):
            check_study(cfg)
    else:
        check_study(cfg)


def test_the_workflow_names_the_renderers_drawing_keys():
    """The check skips a config that sets no drawing key: the default drawing is measured."""
    from swevis import workflow
    from swevis.render.guards import DRAWING_KEYS
    from swevis.render.settings import RenderSettings

    assert workflow.DRAWING_KEYS == DRAWING_KEYS
    assert RenderSettings().guard_px() == 5.75


def test_the_bundled_default_is_a_consistent_study():
    check_study(study((PROJECT_ROOT / "config.yaml").read_text()))


def test_table_rows_and_columns_come_from_the_matrix():
    matrix = [
        {"agent": "mini", "scope": "normal", "conditions": ["text"]},
        {"agent": "let", "scope": "wide", "conditions": ["r3", "text"]},
        {"agent": "plb", "scope": "normal", "conditions": ["text", "r2"]},
    ]
    assert table_layout(matrix, BASELINE) == ([("let", "wide"), ("plb", "normal")], ["text", "r3", "r2"])
    assert table_layout(matrix[:1], BASELINE) == ([("mini", "normal")], ["text"])
    s = settings_from_config({"models": {"m": {}}, "agents": {"matrix": matrix}})
    assert s["conditions"] == ["text", "r3", "r2"] and s["table_models"] == ["m"]


def _summary(tmp_path: Path, model: str, agent: str, condition: str) -> Path:
    import json

    row = {
        "model": model, "agent": agent, "scope": "normal", "condition": condition, "instance_id": "i1",
        "repeat": 0, "resolved": True, "prompt_tokens": 1000, "backend": "playback", "infra_failure": False,
        "locator_prompt_tokens": 0, "editor_prompt_tokens": 0, "coverage_bucket": None, "path": str(tmp_path),
    }
    path = tmp_path / model / f"{agent}-{condition}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": SUMMARY_FORMAT, "rows": [row]}))
    return path


def test_a_condition_added_to_the_matrix_reaches_table1_and_a_stale_table2_goes(tmp_path: Path):
    matrix = [{"agent": "mini", "scope": "normal", "conditions": ["text"]},
              {"agent": "plb", "scope": "normal", "conditions": ["text", "r2"]}]
    summaries = [_summary(tmp_path, "mine", "mini", "text"), _summary(tmp_path, "mine", "plb", "text"),
                 _summary(tmp_path, "mine", "plb", "r2")]
    stale = tmp_path / "table2.csv"
    stale.write_text("model\nkimi-k2.5\n")
    config = {"models": {"mine": {}}, "agents": {"matrix": matrix}, "analysis": {"bootstrap": {"resamples": 10}}}
    out = tmp_path / "table1.csv"
    build_tables(summaries, config, {"table1": out}, retired=[stale])
    table = pl.read_csv(out)
    assert table["model"].to_list() == ["mine"]
    assert table.select("acc_text", "acc_r2").row(0) == (100.0, 100.0)
    assert not stale.exists()
