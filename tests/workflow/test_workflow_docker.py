"""Through Snakemake with `harness.kind: docker`: validation and one condition graded by the
official harness in the images `swevis images build` makes, on a real engine."""

import json
from pathlib import Path

import pytest

from helpers import run_snakemake
from swevis.paths import eval_path

IID = "swevis-samples__ledgerkit-117"

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_a_condition_graded_in_docker_end_to_end(tmp_path: Path, sample_images):
    (tmp_path / "config.yaml").write_text(
        f"tasks: {{source: bundled, instance_ids: [{IID}]}}\n"
        "models:\n  qwen3.5: {backend: playback, model_id: qwen3.5-397b-a17b, tokenizer: qwen3, image_family: qwen3.5}\n"
        "agents:\n  matrix:\n    - {agent: mini, scope: normal, conditions: [text]}\n"
        "harness: {kind: docker, namespace: swevis, timeout_s: 300}\n"
    )
    condition = tmp_path / "results" / "runs" / "qwen3.5" / "mini-normal" / "text"
    proc = run_snakemake(tmp_path, str(condition.relative_to(tmp_path) / "summary.json"))
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads((tmp_path / "results" / "validation" / "docker.json").read_text())
    assert report["harness"] == "docker" and report["n_valid"] == 1, report["invalid"]
    assert report["instances"][IID]["gold"]["resolved"] and not report["instances"][IID]["empty"]["resolved"]
    record = json.loads(eval_path(condition, IID).read_text())
    assert record["harness"] == "docker" and record["run_id"] == "swevis-qwen3.5-mini-normal-text"
    image = sample_images["report"][[line["image"] for line in sample_images["report"]].index(IID)]
    summary = json.loads((condition / "harness" / "harness_summary.json").read_text())
    assert summary["images"][IID] == f"docker:{image['name']}@{image['id']}"  # graded in the image built here
    assert json.loads((condition / "summary.json").read_text())["n"] == 1
