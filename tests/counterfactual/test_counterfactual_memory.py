"""The working memory as a counterfactual replay condition (mem, mem+r<N>): recorded windows
through the live agents' memory, on a small trajectory that reads one file twice, once partly
and once after an edit, with the expected notes and token counts written out by hand."""

import argparse
import functools
import json
import re
from pathlib import Path

import polars as pl
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from swevis.counterfactual.replay import REPLAY_PATTERN, ReplayCondition, recorded_costs, replay_conditions_arg
from swevis.conditions import ConditionError
from swevis.config import ConfigError, load_schema, validate_config
from swevis.tokens import count_message_tokens

from helpers import PROJECT_ROOT

PROFILE = {"backend": "playback", "model_id": "m", "tokenizer": "qwen3", "image_family": "qwen3.5"}
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trajectories"
LINES = [f"value_{n} = compute({n}, scale={n * 7})\n" for n in range(1, 81)]
EDITED = [*LINES[:9], "value_10 = compute(10, scale=700)\n", *LINES[10:]]
SYSTEM, TASK = "You fix bugs.", "fix the scale of value_10"
SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def _output(text: str) -> str:
    return f"<returncode>0</returncode>\n<output>\n{text}</output>"


# (command, what it printed): read 1-60, read it again, read 41-80, edit line 10, read 1-60, submit
STEPS = [
    ("sed -n '1,60p' calc.py", "".join(LINES[:60])),
    ("sed -n '1,60p' calc.py", "".join(LINES[:60])),
    ("sed -n '41,80p' calc.py", "".join(LINES[40:80])),
    ("sed -i 's/scale=70)/scale=700)/' calc.py", ""),
    ("sed -n '1,60p' calc.py", "".join(EDITED[:60])),
]


def _numbered(lines: list[str], start: int) -> str:
    return "".join(f"{start + i:6d}\t{line}" for i, line in enumerate(lines))


# the same outputs as the memory answers them (its note, then only the lines not shown before)
MEMORY_OUTPUTS = [
    STEPS[0][1],
    "[memory: calc.py lines 1-60 shown at step 0 (text), unchanged; not resent]\n",
    "[memory: calc.py lines 41-60 shown at step 0 (text), unchanged; not resent]\n\n"
    f"[window calc.py:61-80]\n{_numbered(LINES[60:80], 61)}",
    "",
    "[memory: calc.py lines 1-9, 11-60 shown at step 0 (text), unchanged; not resent]\n\n"
    f"[window calc.py:10-10]\n{_numbered(EDITED[9:10], 10)}",
]


def _turn(command: str) -> str:
    return f"THOUGHT: next.\n\n```mswea_bash_command\n{command}\n```"


def write_trajectory(path: Path) -> Path:
    """The trajectory in mini-swe-agent 1.1's file format."""
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    for command, printed in STEPS:
        messages.append({"role": "assistant", "content": _turn(command), "extra": {"actions": [{"command": command}]}})
        messages.append({"role": "user", "content": _output(printed), "extra": {"returncode": 0}})
    messages.append({"role": "assistant", "content": _turn(SUBMIT), "extra": {"actions": [{"command": SUBMIT}]}})
    messages.append({"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}})
    path.write_text(json.dumps({"trajectory_format": "mini-swe-agent-1.1", "instance_id": "x__calc-1",
                                "info": {"exit_status": "Submitted"}, "messages": messages}))
    return path


def expected_prompt_tokens(outputs: list[str]) -> int:
    """Every call's prompt: the prefix and all the turns and observations before it."""
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    total = 0
    for (command, _), output in zip([*STEPS, (SUBMIT, None)], [*outputs, None]):
        total += count_message_tokens(messages, "qwen3", "qwen3.5")
        messages.append({"role": "assistant", "content": _turn(command)})
        if output is not None:
            messages.append({"role": "user", "content": _output(output)})
    return total


@pytest.fixture(scope="module")
def traj(tmp_path_factory):
    return write_trajectory(tmp_path_factory.mktemp("mem") / "calc.traj.json")


def test_the_memory_answers_rereads_with_its_note_and_the_unseen_lines(traj):
    rows, steps, found = recorded_costs(traj, ["text", "mem"], model_name="q", profile=PROFILE)
    assert found["windows"] == 4  # the edit shows no window
    by = {r["condition"]: r for r in rows}
    text_tokens = expected_prompt_tokens([printed for _, printed in STEPS])
    memory_tokens = expected_prompt_tokens(MEMORY_OUTPUTS)
    assert by["text"]["prompt_tokens"] == text_tokens
    assert by["mem"]["prompt_tokens"] == memory_tokens
    assert by["mem"]["reduction_vs_text"] == round(text_tokens / memory_tokens, 3) > 1
    mem = [s for s in steps if s["condition"] == "mem"]
    assert [[c["memory"] for c in s["window_costs"]] for s in mem] == [["miss"], ["exact"], ["overlap"], [], ["overlap"], []]
    assert [s["memory_hits"] for s in mem] == [0, 1, 1, 0, 1, 0]
    text = [s for s in steps if s["condition"] == "text"]
    for t, m in zip(text, mem):  # what the memory saved is the observation's difference, step by step
        assert t["observation_tokens"] - m["observation_tokens"] == pytest.approx(m["memory_saved_tokens"], abs=2)
    assert mem[1]["memory_saved_tokens"] > mem[4]["memory_saved_tokens"] > mem[2]["memory_saved_tokens"] > 0
    assert all(s["memory_saved_tokens"] == 0 for s in text)


def test_under_a_visual_condition_the_memory_sends_no_page_twice(traj):
    rows, steps, _ = recorded_costs(traj, ["r3", "mem+r3"], model_name="q", profile=PROFILE)
    by = {r["condition"]: r for r in rows}
    assert by["mem+r3"]["prompt_tokens"] < by["r3"]["prompt_tokens"]
    assert by["mem+r3"]["image_pages"] < by["r3"]["image_pages"]
    again = [s for s in steps if s["condition"] == "mem+r3"][1]
    assert again["pages"] == 0 and again["window_costs"][0]["memory"] == "exact"
    assert again["window_costs"][0]["kind"] == "image"  # r3 alone showed that window as pages
    assert again["memory_saved_tokens"] > 0


def test_lines_an_edit_moved_are_new_again(tmp_path):
    """As live: the memory compares each line's text, so a line inserted at the top makes
    every line after it new, and the re-read is sent whole (nothing saved)."""
    path = write_trajectory(tmp_path / "moved.traj.json")
    data = json.loads(path.read_text())
    moved = ["import math\n", *LINES][:60]
    data["messages"][8]["content"] = _turn("sed -i '1i import math' calc.py")
    data["messages"][8]["extra"] = {"actions": [{"command": "sed -i '1i import math' calc.py"}]}
    data["messages"][11]["content"] = _output("".join(moved))
    path.write_text(json.dumps(data))
    _, steps, _ = recorded_costs(path, ["text", "mem"], model_name="q", profile=PROFILE)
    text, mem = ([s for s in steps if s["condition"] == c] for c in ("text", "mem"))
    assert [c["memory"] for c in mem[4]["window_costs"]] == ["miss"]
    assert mem[4]["memory_saved_tokens"] == 0 and mem[4]["observation_tokens"] == text[4]["observation_tokens"]


def test_the_same_trajectory_twice_gives_identical_counts(traj, tmp_path):
    conditions = ["text", "mem", "r3", "mem+r3"]
    first = recorded_costs(traj, conditions, model_name="q", profile=PROFILE)
    second = recorded_costs(write_trajectory(tmp_path / "again.traj.json"), conditions, model_name="q", profile=PROFILE)
    assert first[0] == second[0] and first[1] == second[1]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir() if p.name.endswith((".json", ".traj"))))
def test_the_memory_never_costs_more_than_its_condition_alone(name):
    rows, _, _ = recorded_costs(FIXTURES / name, ["text", "mem", "r3", "mem+r3"], model_name="q", profile=PROFILE)
    by = {r["condition"]: r["prompt_tokens"] for r in rows}
    assert by["mem"] <= by["text"] and by["mem+r3"] <= by["r3"]


def test_replay_conditions_have_one_spelling():
    for name in ("text", "r3", "r2.5", "mem", "mem+r3", "mem+r0.5"):
        assert str(ReplayCondition.parse(name)) == name
    assert ReplayCondition.parse("mem+r3").observation.ratio == 3.0 and ReplayCondition.parse("mem").memory
    assert not ReplayCondition.parse("r3").memory
    for name, message in [("mem+text", "write mem"), ("mem+r3.0", "'mem\\+r3.0'"), ("memory", "'memory'"),
                          ("r3+mem", "'r3\\+mem'")]:
        with pytest.raises(ConditionError, match=message):
            ReplayCondition.parse(name)
    assert [str(c) for c in replay_conditions_arg("text, mem,mem+r3")] == ["text", "mem", "mem+r3"]
    with pytest.raises(argparse.ArgumentTypeError, match="condition mem given more than once"):
        replay_conditions_arg("mem,text,mem")


def test_cli_replays_the_memory_and_refuses_it_for_a_re_execution(traj, tmp_path, capsys):
    from swevis.cli import main

    config = str(Path(__file__).resolve().parents[2] / "config.yaml")
    out = tmp_path / "out"
    assert main(["replay", str(traj), "--out", str(out), "--conditions", "text,mem", "--config", config]) == 0
    summary = pl.read_csv(out / "summary.csv")
    assert summary["condition"].to_list() == ["text", "mem"]
    steps = pl.read_parquet(out / "per_step.parquet").filter(pl.col("condition") == "mem")
    assert steps["memory_hits"].to_list() == [0, 1, 1, 0, 1, 0] and steps["memory_saved_tokens"].sum() > 0
    assert "mem " in capsys.readouterr().out
    code = main(["replay", str(traj), "--out", str(out), "--conditions", "text,mem", "--config", config, "--reexecute"])
    assert code == 2 and "condition mem replays the memory over recorded observations only" in capsys.readouterr().err
    assert main(["replay", str(traj), "--out", str(out), "--conditions", "text,mem+text", "--config", config]) == 2
    assert "write mem" in capsys.readouterr().err


@functools.cache
@functools.cache
def _counterfactual_pattern() -> str:
    return load_schema()["properties"]["counterfactual"]["properties"]["conditions"]["items"]["pattern"]


def test_the_schema_and_the_replay_parser_share_one_grammar():
    assert _counterfactual_pattern() == f"^({REPLAY_PATTERN})$"
    config = yaml.safe_load((PROJECT_ROOT / "config.yaml").read_text())
    config["counterfactual"] = {"conditions": ["text", "mem", "r3", "mem+r3"]}
    validate_config(config)
    config["counterfactual"] = {"conditions": ["text", "mem+text"]}
    with pytest.raises(ConfigError, match=r"config key 'counterfactual/conditions/1'"):
        validate_config(config)


@given(st.text(alphabet="rtexm+R0123456789.-X ", max_size=9))
def test_schema_and_parser_agree_on_every_replay_name(name):
    try:
        parsed = ReplayCondition.parse(name)
    except ConditionError:
        parsed = None
    assert (parsed is not None) == bool(re.search(_counterfactual_pattern(), name))
    if parsed is not None:
        assert str(parsed) == name
