"""Public trajectory formats read and detected; the recorded-observation counterfactual over
them (windows, accounting, determinism); `swevis replay` on files and folders."""

import json
import re
import shutil
from pathlib import Path

import polars as pl
import pytest

from swevis.agents.observation.actions import classify_action
from swevis.counterfactual.replay import RepoFiles, recorded_costs, recorded_windows, replay_turns
from swevis.counterfactual.formats import TrajectoryFormatError, detect_format, read_trajectory
from swevis.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "trajectories"
REPO = ROOT / "src" / "swevis" / "data" / "sample" / "repos" / "ledgerkit"
CONFIG = str(ROOT / "config.yaml")
IID = "swevis-samples__ledgerkit-117"
PROFILE = {"backend": "playback", "model_id": "m", "tokenizer": "qwen3", "image_family": "qwen3.5"}

# file -> (format, model calls, calls with a command, recorded exit status)
FILES = {
    f"mini1__{IID}.traj.json": ("mini-swe-agent-1", 8, 7, "Submitted"),
    f"mini2__{IID}.traj.json": ("mini-swe-agent-2", 7, 7, "Submitted"),
    f"{IID}.traj": ("swe-agent", 7, 7, "submitted"),
    f"openhands__{IID}.json": ("openhands", 6, 5, "finished"),
}

# the windows every fixture shows (its commands over ledgerkit), as file:start-end
MONEY = ["ledgerkit/money.py:1-40", "ledgerkit/money.py:100-140"]
JPY = ["ledgerkit/currency.py:11-17", "ledgerkit/currency.py:41-47"]
INCOME = ["ledgerkit/reports/income_statement.py:1-30"]


@pytest.mark.parametrize("name", FILES)
def test_each_format_is_read_and_named(name):
    fmt, calls, parsed, status = FILES[name]
    traj = read_trajectory(FIXTURES / name)
    assert (traj.format, len(traj.steps), traj.parsed, traj.exit_status) == (fmt, calls, parsed, status)
    assert traj.instance_id == IID
    assert traj.steps[1].command.endswith("sed -n '1,40p' ledgerkit/money.py") or fmt == "openhands"
    assert [m["role"] for m in traj.prefix] == ["system", "user"] and "fractional yen" in traj.prefix[-1]["content"]


def test_mini_1x_bash_blocks_are_parsed():
    """mini-swe-agent 1.x writes ```bash blocks: the trial parsed 0 of 40 turns of such a file."""
    traj = read_trajectory(FIXTURES / f"mini1__{IID}.traj.json")
    assert traj.steps[0].command == "cd /testbed && grep -n 'def round' ledgerkit/money.py"
    assert traj.steps[6].command is None and "EXACTLY ONE" in traj.steps[6].observation  # its format error
    _, turns, _ = replay_turns(FIXTURES / f"mini1__{IID}.traj.json")  # --reexecute gets mini 2.x blocks
    assert "```mswea_bash_command\ncd /testbed && sed -n '1,40p' ledgerkit/money.py\n```" in turns["agent"][1]


@pytest.mark.parametrize("name", FILES)
def test_recorded_windows_are_identified_and_match_the_repository(name):
    traj = read_trajectory(FIXTURES / name)
    repo = RepoFiles(REPO)
    found = [w for ws in recorded_windows(traj, repo) for w in ws]
    refs = [f"{w.path.removeprefix('/workspace/ledgerkit/')}:{w.start}-{w.end}" for w in found]
    extra = {"swe-agent": ["ledgerkit/currency.py:1-99"], "openhands": ["ledgerkit/ledger.py:80-98"]}
    expected = MONEY + JPY + INCOME + extra.get(traj.format, [])
    assert sorted(refs) == sorted(expected)
    assert all(repo.matches(w) for w in found)


def test_recorded_costs_render_windows_under_visual_conditions():
    rows, steps, found = recorded_costs(FIXTURES / f"mini2__{IID}.traj.json", ["text", "r3"], model_name="qwen3.5",
                                        profile=PROFILE, repo_dir=REPO)
    by = {r["condition"]: r for r in rows}
    assert found == {"format": "mini-swe-agent-2", "instance_id": IID, "steps": 7, "parsed": 7, "windows": 5,
                     "windows_matching_repo": 5}
    assert by["text"]["calls"] == by["r3"]["calls"] == 7 and by["text"]["exit_status"] == "submitted"
    assert by["text"]["image_pages"] == 0 and by["r3"]["image_pages"] >= 4  # 5 windows; two of one output share a page
    assert by["r3"]["prompt_tokens"] < by["text"]["prompt_tokens"] and by["r3"]["reduction_vs_text"] > 1.0
    r3 = [s for s in steps if s["condition"] == "r3"]
    assert r3[1]["windows"] == ["ledgerkit/money.py:1-40"] and r3[1]["observation_kind"] == "image"
    assert r3[5]["action_class"] == "test" and r3[5]["observation_kind"] == "text"
    text = [s for s in steps if s["condition"] == "text"]  # the first call sees the same prompt in both
    assert text[0]["prompt_tokens"] == r3[0]["prompt_tokens"] and text[1]["prompt_tokens"] == r3[1]["prompt_tokens"]


def test_text_condition_reuses_the_recorded_observations_as_they_are():
    traj = read_trajectory(FIXTURES / f"mini1__{IID}.traj.json")
    rows, steps, _ = recorded_costs(FIXTURES / f"mini1__{IID}.traj.json", ["text"], model_name="qwen3.5",
                                    profile=PROFILE, traj=traj)
    from swevis.tokens import count_message_tokens

    messages = traj.prefix + [m for s in traj.steps for m in
                              ([{"role": "assistant", "content": s.response}]
                               + ([{"role": "user", "content": s.observation}] if s.observation is not None else []))]
    last = steps[-1]["prompt_tokens"]  # the last call sees everything but its own answer and observation
    assert last == count_message_tokens(messages[:-1], "qwen3", "qwen3.5")


def test_the_same_trajectory_twice_gives_identical_counts(tmp_path):
    """Nothing random enters the prompts (the trial saw ~0.5% between two replays)."""
    copy = tmp_path / "again" / f"{IID}.traj"
    copy.parent.mkdir()
    shutil.copy(FIXTURES / f"{IID}.traj", copy)
    first = recorded_costs(FIXTURES / f"{IID}.traj", ["text", "r3"], model_name="qwen3.5", profile=PROFILE)
    second = recorded_costs(copy, ["text", "r3"], model_name="qwen3.5", profile=PROFILE)
    assert first == second


@pytest.mark.parametrize("content,fragment", [
    ({"some": "thing"}, "unknown format"),
    ([1, 2], "unknown format"),
    ({"trajectory_format": "mini-swe-agent-1", "messages": "no"}, "'messages' must be a list"),
    ({"trajectory_format": "mini-swe-agent-1.1", "messages": [{"role": "system", "content": "s"}]}, "no model calls"),
    ({"trajectory": [{"observation": "x"}]}, "must be a list of steps with an action"),
    ([{"action": "message", "source": "user", "args": {"content": "fix it"}}], "has no agent actions"),
])
def test_unknown_or_malformed_files_are_one_line_errors_exit_2(tmp_path, capsys, content, fragment):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(content))
    with pytest.raises(TrajectoryFormatError, match=fragment.replace("(", r"\(")):
        read_trajectory(bad)
    code = main(["replay", str(bad), "--config", CONFIG, "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and err.count("\n") == 1 and fragment in err
    assert not (tmp_path / "out").exists()


def test_detect_format_names_each_layout():
    assert detect_format({"format": "swevis-traj-1"}) == "swevis"
    assert detect_format({"history": [{"id": 0, "action": "run"}]}) == "openhands"
    assert detect_format({"history": [{"role": "user"}]}) is None


def test_cli_replays_a_folder_and_keeps_the_step_records(tmp_path, capsys):
    trajs = tmp_path / "trajs"
    shutil.copytree(FIXTURES, trajs)
    out = tmp_path / "out"
    code = main(["replay", str(trajs), "--out", str(out), "--conditions", "text,r3", "--config", CONFIG,
                 "--repo", str(REPO)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    for fmt in ("mini-swe-agent-1", "mini-swe-agent-2", "swe-agent", "openhands"):
        assert fmt in stdout and f": {fmt}, " in err  # the detected format, in the table and the progress line
    assert err.count("replay ") == 6 and "7/8 steps parsed, 5 windows, 5 match --repo" in err
    summary = pl.read_csv(out / "summary.csv")
    assert summary.height == 12 and set(summary["mode"]) == {"recorded"}
    mini1 = summary.filter(pl.col("format") == "mini-swe-agent-1").row(0, named=True)
    assert (mini1["steps_parsed"], mini1["steps_recorded"], mini1["windows"], mini1["windows_matching_repo"]) == (7, 8, 5, 5)
    steps = pl.read_parquet(out / "per_step.parquet")
    assert steps.height == 2 * (8 + 7 + 7 + 6 + 10 + 4)
    assert {"trajectory", "format", "condition", "step", "windows", "prompt_tokens", "pages"} <= set(steps.columns)
    ceiling = pl.read_csv(out / "ceiling.csv").row(0, named=True)  # the code-window ceiling, reported
    assert ceiling["condition"] == "r3" and 0 < ceiling["code_share"] < 1
    assert ceiling["code_ceiling_reduction"] > 1 and ceiling["realized_share"] > 0.5  # above 1: below the budget
    assert f"code windows are {ceiling['code_share']:.1%} of the cumulative prompt" in stdout
    assert f"{ceiling['realized_share']:.1%}" in stdout.split("in shares of that saving:")[1]
    text = (out / "summary.csv").read_text() + (out / "ceiling.csv").read_text()  # rounded as every table
    assert not re.search(r"\d\.\d{5,}", text), "a table printed more digits than it carries"


def test_a_bare_list_of_mini_messages_is_read_by_its_blocks(tmp_path):
    """Early mini-swe-agent releases (and its test data) write the messages alone."""
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "task"},
                {"role": "assistant", "content": "THOUGHT: look\n\n```bash\nsed -n '1,3p' a.py\n```"},
                {"role": "user", "content": "<returncode>0</returncode>\n<output>\na\nb\nc\n</output>"}]
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps(messages))
    traj = read_trajectory(path)
    assert (traj.format, traj.parsed, traj.instance_id) == ("mini-swe-agent-1", 1, "run")
    assert [(w.path, w.start, w.end) for w in recorded_windows(traj)[0]] == [("a.py", 1, 3)]


def test_openhands_file_views_are_windows(tmp_path):
    """OpenHands reads files with its viewer ("read" actions): `cat -n` lines after a header."""
    lines = (REPO / "ledgerkit" / "money.py").read_text().splitlines()
    shown = "".join(f"{n:6d}\t{lines[n - 1]}\n" for n in range(10, 21))
    events = [
        {"id": 1, "source": "user", "action": "message", "args": {"content": "fix the yen rounding"}},
        {"id": 2, "source": "agent", "action": "read", "args": {"path": "/workspace/ledgerkit/ledgerkit/money.py",
                                                                "view_range": [10, 20], "thought": "look"}},
        {"id": 3, "source": "agent", "cause": 2, "observation": "read", "extras": {"path": "x"},
         "content": "Here's the result of running `cat -n` on /workspace/ledgerkit/ledgerkit/money.py:\n" + shown},
    ]
    path = tmp_path / "oh.json"
    path.write_text(json.dumps(events))
    traj = read_trajectory(path)
    assert traj.steps[0].command == "str_replace_editor view /workspace/ledgerkit/ledgerkit/money.py --view_range 10 20"
    repo = RepoFiles(REPO)
    [window] = recorded_windows(traj, repo)[0]
    assert (window.start, window.end, repo.matches(window)) == (10, 20, True)


def _refs(traj, repo):
    return [(w.path.removeprefix("/workspace/ledgerkit/"), w.start, w.end, repo.matches(w))
            for ws in recorded_windows(traj, repo) for w in ws]


def test_an_openhands_2025_log_reads_edits_views_and_skips_bookkeeping():
    """The shapes of OpenHands' 2025 evaluation logs (multi-swe-bench output): string ids,
    a recall event (neither prompt nor call), views with a range, a bad range answered by an
    error, a folder view, edits whose subcommand is in the args or only in the recorded tool
    call, a think action. Edits were unparsed (classed "other") and the recall was a
    second task message in the prompt."""
    traj = read_trajectory(FIXTURES / f"openhands-2025__{IID}.json")
    assert (traj.instance_id, traj.exit_status, len(traj.steps), traj.parsed) == (IID, "finished", 10, 8)
    assert [m["role"] for m in traj.prefix] == ["system", "user"] and "fractional yen" in traj.prefix[1]["content"]
    commands = [s.command for s in traj.steps]
    assert commands[6] == ("str_replace_editor str_replace /workspace/ledgerkit/ledgerkit/reports/income_statement.py"
                           " --old_str 'f\"{amount:.2f}\"' --new_str 'str(amount.round())'")
    assert commands[7].startswith("str_replace_editor create /workspace/ledgerkit/repro_jpy.py --file_text 'from ledgerkit")
    assert commands[5] is None and commands[9] is None  # think, finish
    assert traj.steps[1].thought == "Reading the module head."  # the model's text beside its tool call
    assert [classify_action(c) for c in commands] == [
        "search", "read", "read", "read", "search", "other", "edit", "edit", "test", "other"]
    assert traj.steps[2].observation.startswith("ERROR:\nInvalid `view_range`")
    repo = RepoFiles(REPO)
    assert _refs(traj, repo) == [("ledgerkit/money.py", 1, 40, True), ("ledgerkit/currency.py", 11, 17, True)]


def test_an_early_openhands_log_without_sources_or_args_is_read():
    """OpenHands' 2024 logs (e.g. the resolver's output) name no source and no args: the
    first message is the task, the exit code sits on the observation, and the shell prompt
    ends a command's output. Such a log had "no agent actions"."""
    traj = read_trajectory(FIXTURES / f"openhands-early__{IID}.json")
    assert (len(traj.steps), traj.parsed, traj.exit_status) == (4, 2, "finished")
    assert [m["role"] for m in traj.prefix] == ["user"] and "fractional yen" in traj.prefix[0]["content"]
    assert [s.returncode for s in traj.steps[:2]] == [0, 2]
    assert "root@" not in traj.steps[0].observation and traj.steps[2].command is None  # an IPython cell
    assert _refs(traj, RepoFiles(REPO)) == [("ledgerkit/money.py", 100, 140, True)]


def test_openhands_json_lines_hold_one_instance_a_file(tmp_path):
    record = json.loads((FIXTURES / f"openhands-early__{IID}.json").read_text())
    one = tmp_path / "output.jsonl"
    one.write_text(json.dumps(record) + "\n")
    assert read_trajectory(one).parsed == 2
    many = tmp_path / "many.jsonl"
    many.write_text((json.dumps(record) + "\n") * 3)
    with pytest.raises(TrajectoryFormatError, match="JSON Lines with 3 records: write one instance a file"):
        read_trajectory(many)


def test_tool_calling_mini_2x_trajectories_count_their_calls(tmp_path):
    """mini 2.x with a tool-calling model: the command is in tool_calls, the output in a "tool"
    message; the calls are part of the prompt the next call sees."""
    lines = (REPO / "ledgerkit" / "money.py").read_text().splitlines()
    command = "nl -ba ledgerkit/money.py | sed -n '30,45p'"
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": command})}}
    output = "".join(f"{n:6d}\t{lines[n - 1]}\n" for n in range(30, 46))
    messages = [
        {"role": "system", "content": "s"}, {"role": "user", "content": "fix the yen rounding"},
        {"role": "assistant", "content": "Reading.", "tool_calls": [call], "extra": {"actions": [{"command": command}]}},
        {"role": "tool", "tool_call_id": "c1", "content": f"<returncode>0</returncode>\n<output>\n{output}</output>"},
        {"role": "assistant", "content": "Done.", "tool_calls": [{**call, "function": {
            "name": "bash", "arguments": json.dumps({"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"})}}]},
        {"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}},
    ]
    path = tmp_path / f"{IID}.traj.json"
    path.write_text(json.dumps({"trajectory_format": "mini-swe-agent-1.1", "info": {"exit_status": "Submitted"},
                                "messages": messages}))
    traj = read_trajectory(path)
    assert [s.command for s in traj.steps] == [command, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"]
    rows, steps, found = recorded_costs(path, ["text", "r3"], model_name="qwen3.5", profile=PROFILE, repo_dir=REPO)
    assert found["windows"] == found["windows_matching_repo"] == 1
    from swevis.tokens import count_message_tokens

    seen = [{"role": "system", "content": "s"}, {"role": "user", "content": "fix the yen rounding"},
            {"role": "assistant", "content": "Reading.", "tool_calls": [{"type": "function", "function": call["function"]}]},
            {"role": "user", "content": messages[3]["content"]}]
    assert steps[1]["prompt_tokens"] == count_message_tokens(seen, "qwen3", "qwen3.5")  # the text condition's 2nd call


def test_a_swe_agent_history_alone_is_read_from_its_messages(tmp_path):
    """Some SWE-agent files hold only `history`: chat messages whose assistant turns carry
    their `action` (and were once taken for an OpenHands event log)."""
    lines = (REPO / "ledgerkit" / "money.py").read_text().splitlines()
    shown = "".join(f"{n}:{lines[n - 1]}\n" for n in range(1, 41))
    history = [
        {"role": "system", "content": "SETTING: you are an autonomous programmer", "agent": "main"},
        {"role": "user", "content": "fix the yen rounding", "agent": "main"},
        {"role": "assistant", "content": "Open it.", "thought": "Open it.", "action": "open ledgerkit/money.py",
         "agent": "main", "message_type": "action"},
        {"role": "user", "content": f"[File: /testbed/ledgerkit/money.py ({len(lines)} lines total)]\n{shown}"
                                    f"({len(lines) - 40} more lines below)\n", "agent": "main", "message_type": "observation"},
        {"role": "assistant", "content": "Done.", "action": "submit", "agent": "main", "message_type": "action"},
    ]
    path = tmp_path / f"{IID}.traj"
    path.write_text(json.dumps({"history": history}))
    assert detect_format({"history": history}) == "swe-agent"
    traj = read_trajectory(path)
    assert (traj.format, [s.command for s in traj.steps]) == ("swe-agent", ["open ledgerkit/money.py", "submit"])
    repo = RepoFiles(REPO)
    [window] = recorded_windows(traj, repo)[0]
    assert (window.path, window.start, window.end, repo.matches(window)) == ("ledgerkit/money.py", 1, 40, True)


def test_swe_agent_observations_are_accounted_as_its_history_shows_them(tmp_path):
    """SWE-agent's history wraps each output in its template (open file, directory, prompt):
    the replay accounts that text, and finds the code window inside the output alone."""
    lines = (REPO / "ledgerkit" / "money.py").read_text().splitlines()
    output = "".join(f"{lines[n - 1]}\n" for n in range(1, 41))
    command = "sed -n '1,40p' ledgerkit/money.py"
    template = "{output}\n(Open file: /testbed/ledgerkit/money.py)\n(Current directory: /testbed)\nbash-$"
    history = [
        {"role": "system", "content": "SETTING: you are an autonomous programmer"},
        {"role": "user", "content": "fix the yen rounding"},
        {"role": "assistant", "content": f"Read it.\n\n```\n{command}\n```", "action": command},
        {"role": "user", "content": template.format(output=output)},
        {"role": "assistant", "content": "Done.\n\n```\nsubmit\n```", "action": "submit"},
    ]
    trajectory = [{"action": command, "thought": "Read it.", "response": history[2]["content"], "observation": output},
                  {"action": "submit", "thought": "Done.", "response": history[4]["content"], "observation": None}]
    path = tmp_path / f"{IID}.traj"
    path.write_text(json.dumps({"trajectory": trajectory, "history": history}))
    traj = read_trajectory(path)
    step = traj.steps[0]
    assert step.observation == template.format(output=output)
    assert step.observation[slice(*step.output_span)] == output
    [window] = recorded_windows(traj, RepoFiles(REPO))[0]
    assert (window.path, window.start, window.end) == ("ledgerkit/money.py", 1, 40)
    assert step.observation[window.span[0] : window.span[1]].startswith(lines[0])
    rows, steps, _ = recorded_costs(path, ["text", "r3"], model_name="m", profile=PROFILE)
    text_obs = next(s["observation_tokens"] for s in steps if s["condition"] == "text" and s["step"] == 0)
    bare = recorded_costs_of_output(tmp_path, trajectory)
    assert text_obs > bare  # the template's tokens are in the prompt, as the model read them
    assert next(s for s in steps if s["condition"] == "r3" and s["step"] == 0)["pages"] >= 1



def test_an_empty_swe_agent_output_is_accounted_as_the_words_the_history_shows(tmp_path):
    said = "Your command ran successfully and did not produce any output.\n(Current directory: /testbed)\nbash-$"
    history = [{"role": "system", "content": "SETTING"}, {"role": "user", "content": "fix it"},
               {"role": "assistant", "content": "```\ntouch a.py\n```", "action": "touch a.py"},
               {"role": "user", "content": said}]
    path = tmp_path / f"{IID}.traj"
    path.write_text(json.dumps({"history": history, "trajectory": [
        {"action": "touch a.py", "thought": "", "response": history[2]["content"], "observation": ""}]}))
    [step] = read_trajectory(path).steps
    assert (step.observation, step.output_span) == (said, (0, 0))
    assert recorded_windows(read_trajectory(path)) == [[]]


def recorded_costs_of_output(tmp_path, trajectory) -> int:
    """The same step's observation tokens when the file has no history (raw output alone)."""
    path = tmp_path / "bare" / f"{IID}.traj"
    path.parent.mkdir()
    path.write_text(json.dumps({"trajectory": trajectory}))
    _, steps, _ = recorded_costs(path, ["text"], model_name="m", profile=PROFILE)
    return next(s["observation_tokens"] for s in steps if s["step"] == 0)
