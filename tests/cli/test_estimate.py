"""`swevis estimate` on the bundled sample: history means per cell, demonstrations' turns
for cells without history, spend from recorded costs or the profile's prices, never 0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from helpers import PROJECT_ROOT
from swevis.agents.run.demos import DEMOS_DIR, load_demo
from swevis.cli import main

IDS = ["swevis-samples__ledgerkit-117", "swevis-samples__tabulon-305"]


def _config(tmp_path: Path, **agents) -> Path:
    config = {
        "results_dir": str(tmp_path / "results"),
        "tasks": {"source": "bundled", "instance_ids": IDS},
        "models": {
            "qwen3.5": {"backend": "playback", "model_id": "qwen3.5-397b-a17b", "cost_per_1k_prompt": 0.001, "cost_per_1k_completion": 0.004},
            "live": {"backend": "openai", "model_id": "some-model"},
        },
        "agents": {"repeats": 2, "matrix": [{"agent": "mini", "scope": "normal", "conditions": ["text"]},
                                            {"agent": "plb", "scope": "normal", "conditions": ["r3"]}], **agents},
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _past_run(tmp_path: Path, iid: str, calls: int, prompt: int, completion: int, cost: float, model: str = "qwen3.5") -> None:
    run = tmp_path / "results" / "runs" / model / "mini-normal" / "text" / iid
    run.mkdir(parents=True)
    totals = {"calls": calls, "prompt_tokens": prompt, "completion_tokens": completion, "cost": cost}
    (run / "traj.json").write_text(json.dumps({"totals": totals}))


def _estimate(tmp_path: Path, capsys, **agents) -> dict:
    assert main(["estimate", "--config", str(_config(tmp_path, **agents)), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _cell(report: dict, model: str, agent: str) -> dict:
    return next(r for r in report["cells"] if r["model"] == model and r["agent"] == agent)


def test_history_means_scale_to_the_planned_runs(tmp_path, capsys):
    _past_run(tmp_path, IDS[0], 10, 40_000, 1_000, 0.044)
    _past_run(tmp_path, IDS[1], 20, 60_000, 3_000, 0.072)
    report = _estimate(tmp_path, capsys)
    assert report["instances"] == 2 and report["runs_per_cell"] == 4  # 2 instances x 2 repeats
    mini = _cell(report, "qwen3.5", "mini")
    assert mini["basis"] == "history (2 runs)"
    assert mini["calls_per_run"] == 15 and mini["expected_calls"] == 60
    assert mini["expected_prompt_tokens"] == 4 * 50_000 and mini["expected_completion_tokens"] == 4 * 2_000
    assert mini["expected_cost"] == pytest.approx(4 * 0.058)


def test_cells_without_history_use_demonstrations_or_say_so(tmp_path, capsys):
    report = _estimate(tmp_path, capsys)
    plb = _cell(report, "qwen3.5", "plb")
    turns = [sum(len(t) for t in load_demo(DEMOS_DIR / "plb" / f"{iid}.yaml")["turns"].values()) for iid in IDS]
    assert plb["basis"] == "demonstrations (calls only)"
    assert plb["calls_per_run"] == pytest.approx(sum(turns) / 2) and plb["expected_calls"] == pytest.approx(2 * sum(turns))
    assert plb["expected_prompt_tokens"] is None and plb["expected_cost"] is None
    live = _cell(report, "live", "mini")  # a live profile without history: the demonstrations' turns too
    assert live["basis"] == "demonstrations (calls only)" and live["expected_calls"] is not None
    assert report["no_history"] == ["live/mini-normal/text", "live/plb-normal/r3", "qwen3.5/mini-normal/text", "qwen3.5/plb-normal/r3"]
    assert report["totals"]["expected_cost"] is None and report["totals"]["cells_without_cost"] == 4


def test_unrecorded_cost_comes_from_the_profile_prices(tmp_path, capsys):
    _past_run(tmp_path, IDS[0], 10, 40_000, 1_000, 0.0)  # run before prices were configured
    mini = _cell(_estimate(tmp_path, capsys), "qwen3.5", "mini")
    assert mini["cost_per_run"] == pytest.approx(40 * 0.001 + 1 * 0.004)


def test_text_output_names_the_cells_without_history(tmp_path, capsys):
    _past_run(tmp_path, IDS[0], 10, 40_000, 1_000, 0.044)
    assert main(["estimate", "--config", str(_config(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "qwen3.5/mini-normal/text" in out and "history (1 runs)" in out
    assert out.rstrip().endswith(
        "no history of their own (no past runs of their profile under the results dir): "
        "live/mini-normal/text, live/plb-normal/r3, qwen3.5/plb-normal/r3"
    )


def test_the_ablation_cells_are_planned_too(tmp_path, capsys):
    # the ablation compares let-mem with LET's own cells, so the matrix has them (the workflow refuses it otherwise)
    matrix = [{"agent": "mini", "scope": "normal", "conditions": ["text"]},
              {"agent": "let", "scope": "normal", "conditions": ["text", "r3"]}]
    report = _estimate(tmp_path, capsys, matrix=matrix, variants={"let-mem": {"memory": True}},
                       ablation={"models": ["qwen3.5"], "conditions": ["text", "r3"]})
    names = [f"{r['model']}/{r['agent']}-{r['scope']}/{r['condition']}" for r in report["cells"]]
    ablation = ["qwen3.5/let-mem-normal/text", "qwen3.5/let-mem-normal/r3"]
    assert names[-2:] == ablation and len(names) == 6 + 2  # the matrix under both profiles, then the ablation's variant
    mem = _cell(report, "qwen3.5", "let-mem")
    turns = [sum(len(t) for t in load_demo(DEMOS_DIR / "let-mem" / f"{iid}.yaml")["turns"].values()) for iid in IDS]
    assert mem["basis"] == "demonstrations (calls only)" and mem["calls_per_run"] == pytest.approx(sum(turns) / 2)


def test_a_new_profile_borrows_another_profiles_history_at_its_own_prices(tmp_path, capsys):
    _past_run(tmp_path, IDS[0], 10, 40_000, 1_000, 0.044)
    _past_run(tmp_path, IDS[1], 20, 60_000, 3_000, 0.072)
    config = tmp_path / "my-endpoint.yaml"
    endpoint = yaml.safe_load((PROJECT_ROOT / "examples" / "my-endpoint.yaml").read_text())
    endpoint["models"]["my-endpoint"].update(cost_per_1k_prompt=0.002, cost_per_1k_completion=0.01)
    config.write_text(yaml.safe_dump(endpoint))
    assert main(["estimate", "--config", str(config), "--results", str(tmp_path / "results"), "--json"]) == 0
    cell = _cell(json.loads(capsys.readouterr().out), "my-endpoint", "mini")
    assert cell["basis"] == "history of qwen3.5 (2 runs; tokens as qwen3.5's tokenizer counts them)"
    assert cell["runs"] == 1 and cell["expected_prompt_tokens"] == 50_000 and cell["expected_calls"] == 15
    assert cell["expected_cost"] == pytest.approx(50 * 0.002 + 2 * 0.01)  # not qwen3.5's recorded 0.058


def test_a_cell_with_probe_sets_also_pays_for_its_probe_runs(tmp_path, capsys):
    """agents.matrix `probe_sets`: the Prometheus cell runs the three class probes besides the
    study's two instances; the other cells do not, and an instances.jsonl that holds the
    tagged probe rows counts them once, for that cell only."""
    matrix = [{"agent": "mini", "scope": "normal", "conditions": ["text"]},
              {"agent": "prometheus", "scope": "normal", "conditions": ["text"], "probe_sets": ["classes"]}]
    report = _estimate(tmp_path, capsys, matrix=matrix)
    runs = {(r["model"], r["agent"]): r["runs"] for r in report["cells"]}
    assert runs[("qwen3.5", "mini")] == 4 and runs[("qwen3.5", "prometheus")] == 4 + 2 * 3
    sample = tmp_path / "instances.jsonl"
    from swevis.tasks.bundled import load_bundled_instances, load_bundled_set

    rows = [r for r in load_bundled_instances(verify_commits=False) if r["instance_id"] in IDS]
    rows += [{**r, "probe_set": "classes"} for r in load_bundled_set("classes", verify_commits=False)]
    sample.write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = _config(tmp_path, matrix=matrix)
    assert main(["estimate", "--config", str(config), "--instances", str(sample), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["instances"] == 2
    assert {(r["model"], r["agent"]): r["runs"] for r in again["cells"]} == runs
