"""`swevis agent run`: one trajectory by hand, for the base agents and the configured LET variants."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swevis.cli import main

ROOT = Path(__file__).resolve().parents[1]
IID = "swevis-samples__tabulon-305"


def test_unknown_agent_is_a_clear_error(tmp_path, capsys):
    code = main(["agent", "run", "--agent", "let-nope", "--instance", IID, "--config", str(ROOT / "config.yaml"),
                 "--cache", str(tmp_path / "cache"), "-o", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err
    assert "unknown agent 'let-nope'" in err and "let-mem" in err


@pytest.mark.slow
def test_a_variant_runs_by_hand_on_replay(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["agent", "run", "--agent", "let-mem", "--instance", IID, "--condition", "r3",
                 "--config", str(ROOT / "config.yaml"), "--cache", str(tmp_path / "cache"), "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    traj = json.loads((out / "traj.json").read_text())
    assert traj["agent"] == "let-mem" and traj["exit_status"] == "submitted"
    assert traj["variant"]["flags"]["memory"] is True and traj["variant"]["memory"]["lookups"] > 0
    assert (out / "patch.diff").read_text().startswith("diff --git")
