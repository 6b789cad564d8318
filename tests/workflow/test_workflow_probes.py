"""Probe sets in the workflow: agents.matrix `probe_sets` is checked against the bundled sets;
the sampling checkpoint writes the probe rows into instances.jsonl tagged probe_set; only the
conditions of the entry that names a set run its instances (in <condition>/probes/), graded
there; no study table, summary or localization row counts them; results/table_probes.csv
reports them."""

import csv
import json
from pathlib import Path

import pytest
import yaml

from helpers import run_snakemake
from swevis.config import SCHEMA_PATH, ConfigError
from swevis.paths import ConditionKey, ResultsLayout
from swevis.workflow import SampleIndex, cell_probe_sets, check_config, matrix_probe_sets, probe_cells

MATRIX = [
    {"agent": "mini", "scope": "normal", "conditions": ["text"]},
    {"agent": "prometheus", "scope": "normal", "conditions": ["text", "r3"], "probe_sets": ["classes"]},
]
PROBES = {"swevis-samples__ledgerkit-150": "documentation", "swevis-samples__stratconf-240": "question",
          "swevis-samples__tabulon-340": "refactoring"}


def _config(matrix) -> dict:
    return check_config({"agents": {"matrix": matrix}}, SCHEMA_PATH)


def test_an_unknown_probe_set_is_a_one_line_error_naming_the_entry():
    bad = [MATRIX[0], {**MATRIX[1], "probe_sets": ["classes", "kinds"]}]
    with pytest.raises(ConfigError) as info:
        _config(bad)
    message = str(info.value)
    assert "\n" not in message
    assert "config key 'agents/matrix/1/probe_sets'" in message and "prometheus-normal" in message
    assert "'kinds'" in message and "(classes, polyglot)" in message


def test_the_probe_sets_of_the_matrix_and_of_each_condition():
    config = _config(MATRIX)
    assert config["agents"]["matrix"][0]["probe_sets"] == []  # the schema's default
    assert matrix_probe_sets(config) == ["classes"]
    assert cell_probe_sets(config, "prometheus", "normal", "r3") == ["classes"]
    assert cell_probe_sets(config, "prometheus", "normal", "r5") == []
    assert cell_probe_sets(config, "mini", "normal", "text") == []
    assert cell_probe_sets(config, "prometheus-nomem", "normal", "text") == []  # an ablation is no entry
    models = list(config["models"])
    assert probe_cells(config) == [(m, "prometheus", "normal", c) for m in models for c in ("text", "r3")]


def test_the_sample_index_keeps_the_study_sample_apart_from_the_probes():
    rows = [{"instance_id": "a__x-1", "repo": "a/x", "base_commit": "1" * 40},
            {"instance_id": "a__x-2", "repo": "a/x", "base_commit": "1" * 40, "probe_set": "classes"}]
    sample = SampleIndex(rows, ResultsLayout("results"), "results/instances.jsonl")
    assert sample.study == ["a__x-1"] and sample.probes == {"classes": ["a__x-2"]}
    assert sample.probe_ids(["classes"]) == ["a__x-2"] and sample.probe_ids([]) == []
    # a probe instance is checked out and indexed like any other
    assert set(sample.mirror) == set(sample.digest) == {"a__x-1", "a__x-2"}


def test_the_embedded_default_runs_the_classes_set_with_prometheus_only():
    config = yaml.safe_load((Path(__file__).resolve().parents[2] / "config.yaml").read_text())
    entries = [c for c in config["agents"]["matrix"] if c.get("probe_sets")]
    assert entries == [{"agent": "prometheus", "scope": "normal", "conditions": ["text", "r3"], "probe_sets": ["classes"]}]


TINY = {
    "tasks": {"source": "bundled", "instance_ids": ["swevis-samples__ledgerkit-117"]},
    "models": {"qwen3.5": {"backend": "playback", "model_id": "qwen3.5-397b-a17b", "tokenizer": "qwen3",
                           "image_family": "qwen3.5"}},
    "agents": {"matrix": [MATRIX[0], {**MATRIX[1], "conditions": ["text"]}], "variants": {},
               "prometheus": {"ablations": {}}},
}


def _rows(path: Path) -> list[dict]:
    with path.open() as fh:
        return list(csv.DictReader(fh))


@pytest.mark.slow
def test_a_study_with_a_probe_set_runs_grades_and_reports_the_probes_apart(tmp_path):
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(TINY))
    targets = ["results/table1.csv", "results/localization.csv", "results/table_probes.csv"]
    run = run_snakemake(tmp_path, *targets)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    results = tmp_path / "results"
    rows = [json.loads(line) for line in (results / "instances.jsonl").read_text().splitlines()]
    assert {r["instance_id"]: r.get("probe_set") for r in rows} == {
        "swevis-samples__ledgerkit-117": None, **dict.fromkeys(PROBES, "classes")}
    layout = ResultsLayout(str(results))
    prometheus, mini = ConditionKey("qwen3.5", "prometheus", "normal", "text"), ConditionKey("qwen3.5", "mini", "normal", "text")
    # the probes run only in the entry naming the set, below its condition folder
    for iid in PROBES:
        assert Path(layout.probe_run_file(prometheus.run(iid), "traj.json")).is_file()
        assert not (Path(layout.condition_dir(prometheus)) / iid).exists()
        assert not (Path(layout.condition_dir(mini)) / iid).exists()
    assert not Path(layout.probe_dir(mini)).exists()
    # no study summary, table or localization row counts a probe instance
    for key in (prometheus, mini):
        summary = json.loads(Path(layout.condition_summary(key)).read_text())
        assert summary["n"] == 1 and {r["instance_id"] for r in summary["rows"]} == {"swevis-samples__ledgerkit-117"}
        graded = json.loads((Path(layout.harness_dir(key)) / "harness_summary.json").read_text())
        assert graded["n"] == 1
    assert not set(PROBES) & {r["instance_id"] for r in _rows(results / "localization_instances.csv")}
    assert all(not set(PROBES) & set(row.values()) for row in _rows(results / "table1_long.csv"))
    # the probe table: the class each issue is, what Prometheus made of it (its class's
    # workflow), graded like every run: the question's answer has no patch, so it is unresolved
    table = {r["instance_id"]: r for r in _rows(results / "table_probes.csv")}
    assert set(table) == set(PROBES)
    workflows = {"refactoring": ("unverified", "false"), "documentation": ("single_edit", "false"),
                 "question": ("answer", "true")}
    for iid, cls in PROBES.items():
        row = table[iid]
        assert (row["model"], row["agent"], row["condition"], row["probe_set"]) == ("qwen3.5", "prometheus", "text", "classes")
        assert row["issue_class"] == row["routed_as"] == cls
        assert (row["route"], row["answered"]) == workflows[cls], row
        if cls == "refactoring":
            assert int(row["candidates"]) >= 3 and row["vote_method"] in ("majority", "model")
        assert (row["patch_lines"] == "0") == (cls == "question"), row
        assert row["resolved"] == ("false" if cls == "question" else "true") and row["valid"] == "true", row
