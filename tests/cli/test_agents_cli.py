"""`swevis agent run`: one trajectory by hand, for the base agents, the configured LET variants
and Prometheus's ablations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from swevis.cli import main

ROOT = Path(__file__).resolve().parents[2]
IID = "swevis-samples__tabulon-305"


def test_unknown_agent_is_a_clear_error(tmp_path, capsys):
    code = main(["agent", "run", "--agent", "let-nope", "--instance", IID, "--config", str(ROOT / "config.yaml"),
                 "--cache", str(tmp_path / "cache"), "-o", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err
    assert "unknown agent 'let-nope'" in err and "let-mem" in err


def test_an_ablation_override_that_is_no_prometheus_key_is_one_line(tmp_path, capsys):
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    cfg["agents"]["prometheus"]["ablations"]["prometheus-odd"] = {"candiates": 1}
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))
    code = main(["agent", "run", "--agent", "prometheus-odd", "--instance", IID, "--config", str(config),
                 "--cache", str(tmp_path / "cache"), "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "config key 'agents/prometheus/ablations/prometheus-odd/candiates': not a key of agents.prometheus" in err


def test_a_finished_trajectory_that_did_not_submit_exits_0_with_its_status(tmp_path, capsys):
    """Exit 1 is an infrastructure failure's: a trajectory that ended without submitting is a result."""
    demo = tmp_path / "demo.yaml"
    demo.write_text(yaml.safe_dump({"format": "swevis-demo-1", "turns": {"agent": [
        "THOUGHT: look.\n\n```mswea_bash_command\nls\n```\n",  # then the demonstration runs out
    ]}}))
    out = tmp_path / "out"
    code = main(["agent", "run", "--agent", "mini", "--instance", "swevis-samples__ledgerkit-117", "--demo", str(demo),
                 "--config", str(ROOT / "config.yaml"), "--cache", str(tmp_path / "cache"), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    traj = json.loads((out / "traj.json").read_text())
    assert traj["exit_status"] != "submitted"
    assert json.loads(captured.out)["exit_status"] == traj["exit_status"]


@pytest.mark.slow
def test_a_variant_runs_by_hand_on_playback(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["agent", "run", "--agent", "let-mem", "--instance", IID, "--condition", "r3",
                 "--config", str(ROOT / "config.yaml"), "--cache", str(tmp_path / "cache"), "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    traj = json.loads((out / "traj.json").read_text())
    assert traj["agent"] == "let-mem" and traj["exit_status"] == "submitted"
    assert traj["variant"]["flags"]["memory"] is True and traj["variant"]["memory"]["lookups"] > 0
    assert (out / "patch.diff").read_text().startswith("diff --git")


@pytest.mark.slow
def test_a_hand_run_gets_the_workflows_journal_ledger_workspace_and_top_k(tmp_path, capsys, monkeypatch):
    import swevis.agents.run.runner as runner
    from swevis.localize import localize_issue as localize
    from swevis.paths import ResultsLayout, RunKey

    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    dirs = {k: str(tmp_path / k) for k in ("journal_dir", "ledger_dir", "workspace_dir")}
    cfg["agents"].update(dirs, top_k=2)
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))  # the first profile stays first
    asked: list[int] = []

    def spy(*args, top_k, **kw):
        asked.append(top_k)
        return localize(*args, top_k=top_k, **kw)

    monkeypatch.setattr(runner, "localize_issue", spy, raising=False)
    out = tmp_path / "out"
    code = main(["agent", "run", "--agent", "plb", "--instance", IID, "--config", str(config),
                 "--cache", str(tmp_path / "cache"), "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    traj = json.loads((out / "traj.json").read_text())
    layout, run = ResultsLayout(), RunKey("qwen3.5", "plb", "normal", "text", IID)
    assert traj["provenance"]["spend"]["ledger"] == layout.spend_ledger(dirs["ledger_dir"], run.cell)
    workspace = layout.run_workspace(dirs["workspace_dir"], run)
    assert workspace in json.dumps(traj["messages"])  # the run's fixed checkout folder, as in the workflow
    assert asked == [2]  # pre-localization used agents.top_k
    assert traj["provenance"]["agents_config"]["top_k"] == 2
    assert not Path(layout.run_journal(dirs["journal_dir"], run)).exists()  # completed: discarded


@pytest.mark.slow
def test_a_prometheus_ablation_runs_by_hand_with_its_overrides(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["agent", "run", "--agent", "prometheus-single", "--instance", "swevis-samples__tabulon-311",
                 "--config", str(ROOT / "config.yaml"), "--cache", str(tmp_path / "cache"), "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    traj = json.loads((out / "traj.json").read_text())
    assert traj["agent"] == "prometheus-single" and traj["exit_status"] == "submitted"
    assert traj["variant"]["settings"]["candidates"] == 1 and traj["variant"]["settings"]["memory"] is True
    assert traj["route"] == "unverified" and len(traj["candidates"]) == 1 and traj["vote"]["method"] == "single"
