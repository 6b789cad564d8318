"""`swevis replay`: the counterfactual cost of a recorded trajectory in mini-swe-agent's own
format (built here with its DeterministicModel, so the format is real, not hand-written)."""

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")

from swevis.agents.run.spec import RunInputs  # noqa: E402
from swevis.counterfactual.replay import counterfactual_costs, replay_turns  # noqa: E402

IID = "swevis-samples__ledgerkit-117"
PROFILE = {"backend": "playback", "model_id": "m", "tokenizer": "qwen3", "image_family": "qwen3.5"}


@pytest.fixture(scope="module")
def instance(tmp_path_factory, bundled_checkout):
    task = bundled_checkout(IID, tmp_path_factory.mktemp("cf"))
    return {**task, "checkout": task["pristine"]}


@pytest.fixture(scope="module")
def mini_traj(instance):
    """A trajectory written by mini-swe-agent itself: DefaultAgent + DeterministicModel."""
    from minisweagent.agents.default import DefaultAgent
    from minisweagent.environments.local import LocalEnvironment
    from minisweagent.models.test_models import DeterministicModel, make_output

    commands = [
        "grep -n 'def round' ledgerkit/money.py",
        "sed -n '1,60p' ledgerkit/money.py",
        "nl -ba ledgerkit/money.py | sed -n '100,160p'",
        "python -m pytest -q tests/test_money.py",
        "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
    ]
    model = DeterministicModel(outputs=[make_output(f"Step {i}.", [{"command": c}]) for i, c in enumerate(commands)])
    env = LocalEnvironment(cwd=instance["checkout"])
    path = instance["root"] / f"{IID}.traj.json"
    agent = DefaultAgent(model, env, system_template="You fix bugs.", instance_template="{{task}}", step_limit=20, cost_limit=0,
                         output_path=path)
    result = agent.run("fix the yen rounding")
    assert result["exit_status"] == "Submitted"
    return path


@pytest.mark.slow
def test_reads_mini_swe_agent_trajectories(mini_traj):
    data = json.loads(mini_traj.read_text())
    assert data["trajectory_format"].startswith("mini-swe-agent")
    agent, turns, _ = replay_turns(mini_traj)
    assert agent == "mini" and len(turns["agent"]) == 5
    assert "```mswea_bash_command\nsed -n '1,60p' ledgerkit/money.py\n```" in turns["agent"][1]


def replay_inputs(instance: dict) -> RunInputs:
    return RunInputs(model="qwen3.5", profile=PROFILE, row=instance["row"], mirror=instance["mirror"],
                     pristine_dir=instance["checkout"])


@pytest.mark.slow
def test_counterfactual_costs_per_condition(mini_traj, instance):
    rows = counterfactual_costs(mini_traj, ["text", "r3"], replay_inputs(instance))
    by = {r["condition"]: r for r in rows}
    assert by["text"]["exit_status"] == by["r3"]["exit_status"] == "submitted"
    assert by["text"]["calls"] == by["r3"]["calls"] == 5
    assert by["r3"]["image_pages"] >= 2 and by["text"]["image_pages"] == 0
    assert by["r3"]["prompt_tokens"] < by["text"]["prompt_tokens"]
    assert by["text"]["reduction_vs_text"] == 1.0 and by["r3"]["reduction_vs_text"] > 1.0


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trajectories"


@pytest.mark.slow
def test_reexecuting_a_mini_1x_trajectory_twice_gives_identical_counts(instance):
    """mini 1.x's ```bash turns replay to the submission (they ended in format_errors after 3
    calls), its /testbed commands run in the local checkout, and no random folder name enters
    the prompts: the trial saw ~0.5% between two replays of one trajectory."""
    traj = FIXTURES / "mini1__swevis-samples__ledgerkit-117.traj.json"

    def costs():
        return counterfactual_costs(traj, ["text", "r3"], replay_inputs(instance))

    first, second = costs(), costs()
    assert first == second
    by = {r["condition"]: r for r in first}
    assert by["text"]["exit_status"] == "submitted" and by["text"]["calls"] == 8
    assert by["r3"]["image_pages"] >= 2 and by["r3"]["prompt_tokens"] < by["text"]["prompt_tokens"]
    sed = next(s for s in by["r3"]["steps"] if "sed -n '1,40p'" in s["command"])
    assert sed["windows"] == ["ledgerkit/money.py:1-40"] and sed["observation_kind"] == "image"


def swevis_traj(path: Path, commands: list[str]) -> Path:
    """A swevis traj.json holding the fields a re-execution reads: one assistant turn a command."""
    turns = [{"role": "assistant", "content": f"THOUGHT: step {i}.\n\n```mswea_bash_command\n{c}\n```"}
             for i, c in enumerate(commands)]
    path.write_text(json.dumps({"format": "swevis-traj-1", "instance_id": IID, "agent": "mini", "scope": "normal",
                                "condition": "text", "exit_status": "submitted", "messages": turns}))
    return path


@pytest.mark.slow
def test_a_swevis_trajectory_cut_short_is_truncated(instance, tmp_path):
    """Its recorded turns run out before the agent submits: the row says truncated."""
    commands = ["ls", "grep -n 'def round' ledgerkit/money.py", "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]
    whole = counterfactual_costs(swevis_traj(tmp_path / "whole.traj.json", commands), ["text"], replay_inputs(instance))
    cut = counterfactual_costs(swevis_traj(tmp_path / "cut.traj.json", commands[:2]), ["text"], replay_inputs(instance))
    assert (whole[0]["exit_status"], whole[0]["truncated"]) == ("submitted", False)
    assert (cut[0]["exit_status"], cut[0]["truncated"], cut[0]["calls"]) == ("error", True, 2)
