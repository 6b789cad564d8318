"""Every user error of every `swevis` subcommand is one line on stderr and exit code 2.

The table has bad inputs for each argument the subcommands' add_arguments declare; a test
walks the parser so a new argument without a row here fails (flags and free text excepted).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
from pathlib import Path

import pytest

from swevis.cli import SUBCOMMANDS, build_parser, main

ROOT = Path(__file__).resolve().parents[2]
CONFIG = str(ROOT / "config.yaml")
IID = "swevis-samples__tabulon-305"
SRC = str(ROOT / "src" / "swevis" / "cli.py")  # a small real source file for `swevis render`

# (subcommand, argument dest, argv with {placeholders}, a fragment the error must contain)
CASES: list[tuple[str, str, list[str], str]] = [
    ("swevis", "command", ["bogus"], "invalid choice: 'bogus'"),
    ("swevis", "command", [], "required: command"),
    # tasks
    ("tasks", "action", ["tasks", "list"], "invalid choice: 'list'"),
    ("tasks", "instance_ids", ["tasks", "checkout", "nope__nope-1", IID, "acme__x-2", "--config", CONFIG],
     "unknown instance id(s) acme__x-2, nope__nope-1"),
    ("tasks", "instance_ids", ["tasks", "sample", IID, "--config", CONFIG], "are for `swevis tasks checkout`"),
    ("tasks", "config", ["tasks", "sample", "--config", "{missing}"], "missing does not exist"),
    ("tasks", "config", ["tasks", "sample", "--config", "{folder}"], "is not a file"),
    ("tasks", "config", ["tasks", "sample", "--config", "{bad_yaml}"], "not valid YAML at line 2"),
    ("tasks", "config", ["tasks", "sample", "--config", "{binary}"], "cannot be read"),
    ("tasks", "config", ["tasks", "sample", "--config", "{json_list}"], "the top level must be a mapping"),
    ("tasks", "config", ["tasks", "sample", "--config", "{bad_condition_config}"], '"r0" is not a condition: a condition is text, rN, obs-rN, hist-rN, both-rN, mask-kM or maskb-kM'),
    ("tasks", "output", ["tasks", "sample", "--config", CONFIG, "-o", "{file}/x.jsonl"], "is a file, not a folder"),
    ("tasks", "output", ["tasks", "checkout", "--config", CONFIG, "-o", "{missing}"], "-o/--output is for"),
    ("tasks", "output", ["tasks", "sample", "--config", CONFIG, "-o", "{long}"], "longer than"),
    ("tasks", "output", ["tasks", "sample", "--config", CONFIG, "-o", "{unwritable}/x.jsonl"], "is not writable"),
    # the config check (any subcommand reads it the same way)
    ("tasks", "config", ["tasks", "sample", "--config", "{empty}"], "is empty"),
    ("tasks", "config", ["tasks", "sample", "--config", "{blank}"], "is empty"),
    ("tasks", "config", ["tasks", "sample", "--config", "{comments}"], "is empty"),
    ("tasks", "config", ["tasks", "sample", "--config", "{twice_condition_config}"], "lists a condition twice"),
    ("tasks", "config", ["tasks", "sample", "--config", "{twice_cell_config}"], "plb/normal is already entry 1"),
    ("tasks", "config", ["tasks", "sample", "--config", "{family_config}"], '"nosuchfamily" is not an image family'),
    ("tasks", "config", ["tasks", "sample", "--config", "{empty_path_config}"], "'results_dir': \"\" is an empty path"),
    ("tasks", "config", ["tasks", "sample", "--config", "{replay_condition_config}"],
     '"mem+x" is not a replay condition: text, rN, obs-rN, hist-rN, mask-kM'),
    ("tasks", "config", ["tasks", "sample", "--config", "{frontier_sample_config}"],
     "sample_frontier_fonts': [5.75, 7] names none of frontier_fonts [9, 10]"),
    # evaluate
    ("evaluate", "instance_id", ["evaluate", "nope__x-1", "--config", CONFIG], "unknown instance id nope__x-1"),
    ("evaluate", "patch", ["evaluate", IID, "--patch", "{missing}", "--config", CONFIG], "patch file"),
    ("evaluate", "patch", ["evaluate", IID, "--patch", "{folder}", "--config", CONFIG], "is not a file"),
    ("evaluate", "patch", ["evaluate", IID, "--patch", "{binary}", "--config", CONFIG], "is not UTF-8 text"),
    ("evaluate", "instances", ["evaluate", IID, "--instances", "{missing}", "--config", CONFIG], "instances file"),
    ("evaluate", "instances", ["evaluate", IID, "--instances", "{not_json}", "--config", CONFIG], "invalid JSON"),
    ("evaluate", "instances", ["evaluate", IID, "--instances", "{binary}", "--config", CONFIG], "is not UTF-8 text"),
    ("evaluate", "instances", ["evaluate", IID, "--instances", "{empty}", "--config", CONFIG], "is empty"),
    ("evaluate", "instances", ["evaluate", IID, "--instances", "{blank}", "--config", CONFIG], "is empty"),
    ("evaluate", "config", ["evaluate", IID, "--config", "{bad_yaml}"], "not valid YAML"),
    ("evaluate", "log", ["evaluate", IID, "--log", "{file}/log.txt", "--config", CONFIG], "is a file, not a folder"),
    ("evaluate", "log", ["evaluate", IID, "--log", "{folder}", "--config", CONFIG], "is a folder, not a file"),
    ("evaluate", "log", ["evaluate", IID, "--log", "{long}", "--config", CONFIG], "longer than"),
    ("evaluate", "log", ["evaluate", IID, "--log", "{unwritable}/log.txt", "--config", CONFIG], "is not writable"),
    ("evaluate", "timeout", ["evaluate", IID, "--timeout", "0"], "argument --timeout"),
    ("evaluate", "timeout", ["evaluate", IID, "--timeout", "soon"], "argument --timeout"),
    # images
    ("images", "action", ["images", "pull"], "invalid choice: 'pull'"),
    ("images", "config", ["images", "build", "--config", "{missing}"], "missing does not exist"),
    ("images", "config", ["images", "build", "--config", "{bad_yaml}"], "not valid YAML"),
    ("images", "config", ["images", "build", "--config", "{null_namespace_config}"], "harness.namespace is null"),
    ("images", "instances", ["images", "build", "--config", CONFIG, "--instances", "nope__x-1"], "unknown instance id nope__x-1"),
    # estimate
    ("estimate", "config", ["estimate", "--config", "{missing}"], "missing does not exist"),
    ("estimate", "config", ["estimate", "--config", "{bad_yaml}"], "not valid YAML"),
    ("estimate", "results", ["estimate", "--config", CONFIG, "--results", "{missing}"], "is not a folder"),
    ("estimate", "results", ["estimate", "--config", CONFIG, "--results", "{file}"], "is not a folder"),
    ("estimate", "instances", ["estimate", "--config", CONFIG, "--instances", "{missing}"], "instances file"),
    ("estimate", "instances", ["estimate", "--config", CONFIG, "--instances", "{not_json}"], "invalid JSON"),
    ("estimate", "instances", ["estimate", "--config", CONFIG, "--instances", "{binary}"], "is not UTF-8 text"),
    ("estimate", "instances", ["estimate", "--config", CONFIG, "--instances", "{empty}"], "is empty"),
    # index
    ("index", "repo_dir", ["index", "{missing}"], "repository folder"),
    ("index", "repo_dir", ["index", "{file}"], "is not a folder"),
    ("index", "db", ["index", "{repo}", "--db", "{folder}"], "is a folder, not a file"),
    ("index", "db", ["index", "{repo}", "--db", "{file}/x.sqlite"], "is a file, not a folder"),
    ("index", "db", ["index", "{repo}", "--db", "{file}"], "is not a swevis index: it is left untouched"),
    ("index", "db", ["index", "{repo}", "--db", "{other_sqlite}"], "is not a swevis index: it is left untouched"),
    ("index", "db", ["index", "{repo}", "--db", "{missing}/x.sqlite"], "its folder"),
    ("index", "db", ["index", "{repo}", "--db", "{long}"], "longer than"),
    ("index", "db", ["index", "{repo}", "--db", "{unwritable}/x.sqlite"], "is not writable"),
    ("index", "repo", ["index", "{repo}", "--db", "{missing}", "--repo", "widgets"], "not of the form owner/name"),
    ("index", "config", ["index", "{repo}", "--db", "{missing}", "--config", "{bad_yaml}"], "not valid YAML"),
    ("index", "base", ["index", "{repo}", "--db", "{missing}", "--base", "{missing}"], "--base"),
    # devset (the development set)
    ("devset", "step", ["devset"], "required: STEP"),
    ("devset", "step", ["devset", "bogus"], "invalid choice: 'bogus'"),
    ("devset", "step", ["devset", "fit", "--config", "{missing}"], "missing does not exist"),
    ("devset", "step", ["devset", "fit", "--config", CONFIG, "--variant", "+ everything"], "unknown re-ranker variant '+ everything'"),
    ("devset", "step", ["devset", "fit", "--config", CONFIG, "--files", "9"], "invalid choice: 9"),
    ("devset", "step", ["devset", "cv", "--config", CONFIG, "--only", "+ everything"], "--only: unknown variant"),
    ("devset", "step", ["devset", "cv", "--config", CONFIG, "--l2", "0"], "must be a positive number"),
    ("devset", "step", ["devset", "measure", "--config", CONFIG, "--limit", "0"], "must be a positive integer"),
    ("devset", "step", ["devset", "measure", "--config", CONFIG, "--mirrors", "{missing}"], "clones folder"),
    ("devset", "step", ["devset", "report", "--config", CONFIG, "--out", "{file}"], "is not a folder"),
    ("devset", "step", ["devset", "prepare", "--config", CONFIG, "--mirrors", "{folder}"], "no case list there"),
    ("devset", "step", ["devset", "split-prepare", "--config", CONFIG], "required: --rows"),
    ("devset", "step", ["devset", "split-choose", "--config", CONFIG, "--option", "w=[", "--level", "file"], "with JSON values"),
    # localize
    ("localize", "repo_dir", ["localize", "{missing}", "--issue", "{file}"], "repository folder"),
    ("localize", "issue", ["localize", "{repo}", "--issue", "{missing}"], "issue file"),
    ("localize", "issue", ["localize", "{repo}", "--issue", "{folder}"], "is not a file"),
    ("localize", "issue", ["localize", "{repo}"], "required: --issue"),
    ("localize", "issue", ["localize", "{repo}", "--issue", "{empty}"], "is empty"),
    ("localize", "issue", ["localize", "{repo}", "--issue", "{blank}"], "is empty"),
    ("localize", "issue", ["localize", "{repo}", "--issue", "{binary}"], "is not UTF-8 text"),
    ("localize", "issue", ["localize", "{repo}", "--issue", "{nul}"], "is binary (NUL bytes)"),
    ("localize", "db", ["localize", "{repo}", "--issue", "{file}", "--db", "{other_sqlite}"], "is not a swevis index"),
    ("localize", "db", ["localize", "{repo}", "--issue", "{file}", "--db", "{missing}/x.sqlite"], "its folder"),
    ("localize", "db", ["localize", "{repo}", "--issue", "{file}", "--db", "{not_json}"], "is not a swevis index"),
    ("localize", "db", ["localize", "{repo}", "--issue", "{file}", "--db", "{folder}"], "is a folder"),
    ("localize", "top_k", ["localize", "{repo}", "--issue", "{file}", "--top-k", "0"], "argument --top-k"),
    ("localize", "top_k", ["localize", "{repo}", "--issue", "{file}", "--top-k", "ten"], "argument --top-k"),
    ("localize", "max_windows", ["localize", "{repo}", "--issue", "{file}", "--max-windows", "-1"], "--max-windows"),
    ("localize", "ranker", ["localize", "{repo}", "--issue", "{file}", "--ranker", "bm25"], "argument --ranker: invalid choice"),
    ("localize", "config", ["localize", "{repo}", "--issue", "{file}", "--db", "{missing}", "--config", "{binary}"],
     "cannot be read"),
    # agent
    ("agent", "action", ["agent", "go"], "invalid choice: 'go'"),
    ("agent", "agent", ["agent", "run", "--agent", "let-nope", "--instance", IID, "--config", CONFIG, "-o", "{out}"],
     "unknown agent 'let-nope'"),
    ("agent", "instance", ["agent", "run", "--agent", "plb", "--instance", "nope__x-1", "--config", CONFIG,
                           "--cache", "{out}", "-o", "{out}"], "unknown instance id nope__x-1"),
    ("agent", "condition", ["agent", "run", "--agent", "plb", "--instance", IID, "--condition", "r0", "-o", "{out}"],
     "unknown condition 'r0'"),
    ("agent", "condition", ["agent", "run", "--agent", "plb", "--instance", IID, "--condition", "rX", "-o", "{out}"],
     "unknown condition 'rX'"),
    ("agent", "condition", ["agent", "run", "--agent", "plb", "--instance", IID, "--condition", "R3", "-o", "{out}"],
     "write r3"),
    ("agent", "scope", ["agent", "run", "--agent", "plb", "--instance", IID, "--scope", "huge", "-o", "{out}"],
     "invalid choice: 'huge'"),
    ("agent", "model", ["agent", "run", "--agent", "plb", "--instance", IID, "--model", "gpt-0", "--config", CONFIG,
                        "-o", "{out}"], "no model profile 'gpt-0'"),
    ("agent", "demo", ["agent", "run", "--agent", "plb", "--instance", IID, "--demo", "{missing}", "--config", CONFIG,
                       "-o", "{out}"], "--demo"),
    ("agent", "config", ["agent", "run", "--agent", "plb", "--instance", IID, "--config", "{bad_yaml}", "-o", "{out}"],
     "not valid YAML"),
    ("agent", "cache", ["agent", "run", "--agent", "plb", "--instance", IID, "--config", CONFIG, "--cache", "{file}",
                        "-o", "{out}"], "--cache"),
    ("agent", "out", ["agent", "run", "--agent", "plb", "--instance", IID, "--config", CONFIG, "-o", "{file}"],
     "-o/--out"),
    ("agent", "out", ["agent", "run", "--agent", "plb", "--instance", IID, "--config", CONFIG, "-o", "{long}"],
     "longer than"),
    ("agent", "out", ["agent", "run", "--agent", "plb", "--instance", IID, "--config", CONFIG, "-o", "{unwritable}/o"],
     "is not writable"),
    # replay
    ("replay", "traj", ["replay", "{missing}", "--config", CONFIG], "trajectory"),
    ("replay", "traj", ["replay", "{not_json}", "--config", CONFIG], "is not JSON"),
    ("replay", "traj", ["replay", "{json_list}", "--config", CONFIG], "unknown format"),
    ("replay", "traj", ["replay", "{binary}", "--config", CONFIG], "is not UTF-8 text"),
    ("replay", "traj", ["replay", "{folder}/repo", "--config", CONFIG], "holds no *.traj.json"),
    ("replay", "traj", ["replay", "{traj_bad_scope}", "--config", CONFIG], "neither normal nor wide"),
    ("replay", "out", ["replay", "{traj}", "--out", "{file}", "--config", CONFIG], "--out"),
    ("replay", "out", ["replay", "{traj}", "--out", "{long}", "--config", CONFIG], "longer than"),
    ("replay", "out", ["replay", "{traj}", "--out", "{unwritable}/o", "--config", CONFIG], "is not writable"),
    ("replay", "conditions", ["replay", "{traj}", "--conditions", "text,,r3"], "an empty condition in 'text,,r3'"),
    ("replay", "conditions", ["replay", "{traj}", "--conditions", "text,r3,"], "an empty condition"),
    ("replay", "conditions", ["replay", "{traj}", "--conditions", "text,rX"], "unknown condition 'rX'"),
    ("replay", "conditions", ["replay", "{traj}", "--conditions", "r0"], "unknown condition 'r0'"),
    ("replay", "conditions", ["replay", "{traj}", "--conditions", ","], "no conditions given"),
    ("replay", "conditions", ["replay", "{traj}", "--conditions", "r3,r3"], "given more than once"),
    ("replay", "model", ["replay", "{traj}", "--model", "gpt-0", "--config", CONFIG], "no model profile 'gpt-0'"),
    ("replay", "repo", ["replay", "{traj}", "--repo", "{missing}", "--config", CONFIG], "--repo"),
    ("replay", "repo", ["replay", "{traj}", "--repo", "{file}", "--config", CONFIG], "is not a folder"),
    ("replay", "instance", ["replay", "{traj}", "--reexecute", "--config", CONFIG, "--cache", "{out}"],
     "unknown instance id nope__x-1"),
    ("replay", "instance", ["replay", "{traj}", "--reexecute", "--instance", "acme__x-2", "--config", CONFIG,
                            "--cache", "{out}"], "unknown instance id acme__x-2"),
    ("replay", "scope", ["replay", "{traj}", "--scope", "huge"], "invalid choice: 'huge'"),
    ("replay", "scope", ["replay", "{traj}", "--scope", "wide", "--config", CONFIG], "--scope wide needs --reexecute"),
    ("replay", "config", ["replay", "{traj}", "--config", "{bad_yaml}"], "not valid YAML"),
    ("replay", "cache", ["replay", "{traj}", "--reexecute", "--config", CONFIG, "--cache", "{file}"], "--cache"),
    # render
    ("render", "file", ["render", "{missing}", "--config", CONFIG], "missing"),
    ("render", "file", ["render", "{folder}", "--config", CONFIG], "cannot read"),
    ("render", "lines", ["render", SRC, "--lines", "x", "--config", CONFIG], "--lines must look like A-B"),
    ("render", "lines", ["render", SRC, "--lines", "9-2", "--config", CONFIG], "need 1 <= A <= B"),
    ("render", "lines", ["render", SRC, "--lines", "9000-9001", "--config", CONFIG], "the window starts at line 9000"),
    ("render", "ratio", ["render", SRC, "--ratio", "0"], "ratio must be a positive number"),
    ("render", "ratio", ["render", SRC, "--ratio", "nan"], "ratio must be a positive number"),
    ("render", "ratio", ["render", SRC, "--ratio", "rX"], "unknown condition 'rX'"),
    ("render", "ratio", ["render", SRC, "--ratio", "r0"], "unknown condition 'r0'"),
    ("render", "model", ["render", SRC, "--model", "gpt-0", "--config", CONFIG], "--model 'gpt-0' is neither"),
    ("render", "tokenizer", ["render", SRC, "--tokenizer", "nope", "--config", CONFIG], "unknown tokenizer 'nope'"),
    ("render", "family", ["render", SRC, "--family", "nope", "--config", CONFIG], "unknown image family 'nope'"),
    ("render", "config", ["render", SRC, "--config", "{missing}"], "config file"),
    ("render", "config", ["render", SRC, "--config", "{bad_yaml}"], "not valid YAML"),
    ("render", "min_font", ["render", SRC, "--min-font", "-3"], "argument --min-font"),
    ("render", "out", ["render", SRC, "--config", CONFIG, "-o", "{file}"], "-o/--out"),
    ("render", "out", ["render", SRC, "--config", CONFIG, "-o", "{long}"], "longer than"),
    ("render", "out", ["render", SRC, "--config", CONFIG, "-o", "{unwritable}/pages"], "is not writable"),
]

# A folder no one may write, root included (the tests may run as root, for whom a chmod'ed
# folder is writable): os.access says no, and mkdir below it fails.
UNWRITABLE = "/proc/self"
assert not os.access(UNWRITABLE, os.W_OK)

# Arguments with no bad value: free text recorded or searched as given.
FREE_TEXT = {("index", "commit"), ("localize", "query")}


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, str]:
    """Bad inputs of every kind, and a few good ones to reach the later checks."""
    (tmp_path / "file.txt").write_text("a plain file\n")
    (tmp_path / "binary").write_bytes(b"\xff\xfe\x00\x81 not utf-8")
    (tmp_path / "not.json").write_text("not json {\n")
    (tmp_path / "list.json").write_text("[1, 2]\n")
    (tmp_path / "bad.yaml").write_text("tasks: [\n")
    config = (ROOT / "config.yaml").read_text()
    (tmp_path / "r0.yaml").write_text(config.replace("conditions: [text, r1, r3, r5, r7]}", "conditions: [text, r0]}", 1))
    (tmp_path / "null-namespace.yaml").write_text("harness: {kind: docker, namespace: null}\n")
    (tmp_path / "empty").write_text("")
    (tmp_path / "blank").write_text("  \n\n   \n")
    (tmp_path / "comments.yaml").write_text("# results_dir: out\n")
    (tmp_path / "nul.txt").write_text("TypeError in f\x00\x00\x00")
    sqlite3.connect(tmp_path / "other.sqlite").execute("CREATE TABLE notes (body TEXT)").connection.commit()
    bad_configs = {
        "twice-condition": "agents: {matrix: [{agent: mini, scope: normal, conditions: [text, text]}]}",
        "twice-cell": "agents: {matrix: [{agent: mini, scope: normal, conditions: [text]},"
                      " {agent: plb, scope: normal, conditions: [text]}, {agent: plb, scope: normal, conditions: [r3]}]}",
        "family": "models: {qwen3.5: {image_family: nosuchfamily}}",
        "empty-path": 'results_dir: ""',
        "replay-condition": "counterfactual: {conditions: [text, mem+x]}",
        "frontier-sample": "single_read: {ocr: {frontier_fonts: [9, 10]}}",
    }
    for name, text in bad_configs.items():
        (tmp_path / f"{name}.yaml").write_text(text + "\n")
    (tmp_path / "traj.json").write_text(json.dumps({
        "trajectory_format": "mini-swe-agent-1.1", "instance_id": "nope__x-1",
        "messages": [{"role": "system", "content": "s"}, {"role": "assistant", "content": "x"}],
    }))
    (tmp_path / "scope.json").write_text(json.dumps({"format": "swevis-traj-1", "instance_id": IID, "scope": "huge"}))
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.py").write_text("def f():\n    return 1\n")
    return {
        "missing": str(tmp_path / "missing"), "folder": str(tmp_path), "file": str(tmp_path / "file.txt"),
        "binary": str(tmp_path / "binary"), "not_json": str(tmp_path / "not.json"),
        "json_list": str(tmp_path / "list.json"), "bad_yaml": str(tmp_path / "bad.yaml"),
        "bad_condition_config": str(tmp_path / "r0.yaml"),
        "null_namespace_config": str(tmp_path / "null-namespace.yaml"), "traj": str(tmp_path / "traj.json"),
        "traj_bad_scope": str(tmp_path / "scope.json"), "repo": str(tmp_path / "repo"), "out": str(tmp_path / "out"),
        "empty": str(tmp_path / "empty"), "blank": str(tmp_path / "blank"), "nul": str(tmp_path / "nul.txt"),
        "comments": str(tmp_path / "comments.yaml"),
        "other_sqlite": str(tmp_path / "other.sqlite"), "long": str(tmp_path / ("x" * 300)),
        "unwritable": UNWRITABLE,
        **{f"{name.replace('-', '_')}_config": str(tmp_path / f"{name}.yaml") for name in bad_configs},
    }


@pytest.mark.parametrize("sub,dest,argv,fragment", CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_user_errors_are_one_line_and_exit_2(sub, dest, argv, fragment, paths, capsys, monkeypatch):
    monkeypatch.chdir(paths["folder"])  # whatever a case writes by default lands in its tmp folder
    code = main([a.format(**paths) for a in argv])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err and fragment in err, err
    assert out == ""


def test_every_argument_of_every_subcommand_has_a_bad_input():
    """The table covers what add_arguments declares; a new argument needs a row."""
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    covered = {(sub, dest) for sub, dest, _, _ in CASES}
    missing = []
    assert set(subparsers.choices) == set(SUBCOMMANDS)  # every subcommand built in full, none left out
    for name, sp in subparsers.choices.items():
        assert len(sp._actions) > 1, f"{name}: built without its arguments (only -h)"
        for action in sp._actions:
            takes_value = action.nargs != 0 and not isinstance(action, argparse._HelpAction)
            if takes_value and (name, action.dest) not in covered | FREE_TEXT:
                missing.append(f"{name} {action.dest}")
    assert not missing, f"no bad-input row for: {', '.join(missing)}"


def test_help_and_version_still_exit_0(capsys):
    assert main(["--version"]) == 0 and main(["render", "--help"]) == 0
    assert "--ratio" in capsys.readouterr().out


def test_replay_refuses_an_unknown_condition_before_running_anything(paths, capsys):
    """It used to print a made-up 40.9x row for rX with exit 0."""
    code = main(["replay", paths["traj"], "--conditions", "text,rX", "--config", CONFIG, "--cache", paths["out"]])
    assert code == 2 and capsys.readouterr().out == "" and not Path(paths["out"]).exists()
