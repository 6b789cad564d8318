"""What a new user meets first: nothing of theirs overwritten, no traceback when the reader
of stdout goes away, evaluate's three outcomes told apart, every subcommand working in a
folder with no config.yaml, and an estimate that says why a number is unknown."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from swevis.cli import BROKEN_PIPE, main
from swevis.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]
CONFIG = str(ROOT / "config.yaml")
IID = "swevis-samples__tabulon-305"
SRC = str(ROOT / "src" / "swevis" / "cli.py")
TRAJ = str(ROOT / "src" / "swevis" / "data" / "trajectories" / "mini1__swevis-samples__ledgerkit-117.traj.json")
SCHEMA = ROOT / "src" / "swevis" / "data" / "config.schema.yaml"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "money.py").write_text("def round_half(x):\n    return int(x + 0.5)\n")
    return repo


@pytest.fixture
def issue(tmp_path: Path) -> Path:
    path = tmp_path / "issue.md"
    path.write_text("round_half rounds -0.5 to 0 instead of -1\n")
    return path


# -- never overwrite what is not ours


@pytest.mark.parametrize("kind", ["text", "sqlite"])
def test_index_leaves_a_file_that_is_not_an_index_untouched(tmp_path, repo, capsys, kind):
    db = tmp_path / ("notes.md" if kind == "text" else "other.sqlite")
    if kind == "text":
        db.write_text("# my notes\n")
    else:
        with sqlite3.connect(db) as con:
            con.execute("CREATE TABLE notes (body TEXT)")
            con.execute("INSERT INTO notes VALUES ('keep me')")
        con.close()
    before = db.read_bytes()
    assert main(["index", str(repo), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "is not a swevis index: it is left untouched" in err and err.count("\n") == 1
    assert db.read_bytes() == before


def test_index_updates_its_own_index_and_makes_only_the_default_cache_folders(tmp_path, repo, monkeypatch, capsys):
    db = tmp_path / "repo.sqlite"
    assert main(["index", str(repo), "--db", str(db)]) == 0
    assert main(["index", str(repo), "--db", str(db)]) == 0  # ours: updated in place
    assert "(noop" in capsys.readouterr().out
    assert main(["index", str(repo), "--db", str(tmp_path / "no-such-folder" / "x.sqlite")]) == 2
    assert not (tmp_path / "no-such-folder").exists()
    monkeypatch.delenv("SWEVIS_CACHE_DIR", raising=False)  # the test session's own
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "fresh" / "cache"))  # the default: its folders are made
    assert main(["index", str(repo)]) == 0
    assert list((tmp_path / "fresh" / "cache" / "swevis" / "index").glob("repo-*.sqlite"))


# -- a closed pipe ends quietly


def _into_closed_pipe(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run `swevis argv` with a stdout whose reader is gone before it writes (`| head` that
    already quit), as a fresh process: the interpreter's own exit is part of what is tested."""
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from swevis.cli import main; sys.exit(main())", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd)
    proc.stdout.close()  # before the process has even started its imports
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return subprocess.CompletedProcess(argv, proc.wait(timeout=120), "", err)


def test_estimate_into_a_closed_pipe_ends_quietly(tmp_path):
    # one instance: the estimate of the whole default study took 2 CPU s, and one line shows the pipe
    (tmp_path / "one.yaml").write_text(f"tasks: {{source: bundled, instance_ids: [{IID}]}}\n")
    done = _into_closed_pipe(["estimate", "--config", str(tmp_path / "one.yaml")], tmp_path)
    assert done.stderr == "" and done.returncode == BROKEN_PIPE


def test_localize_into_a_closed_pipe_ends_quietly(tmp_path, repo, issue):
    done = _into_closed_pipe(["localize", str(repo), "--issue", str(issue), "--db", str(tmp_path / "i.sqlite")], tmp_path)
    # the first localize builds the index and says so in one summary line; nothing else
    assert [line for line in done.stderr.splitlines() if not line.startswith("indexed ")] == []
    assert done.returncode == BROKEN_PIPE


# -- evaluate: resolved 0, not resolved 1, could not grade 3


def test_evaluate_tells_its_three_outcomes_apart(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the mirror and the eval cache go to ./.swevis-cache
    assert main(["evaluate", IID, "--config", CONFIG]) == 0
    assert json.loads(capsys.readouterr().out)["resolved"] is True
    (tmp_path / "empty.diff").write_text("")
    assert main(["evaluate", IID, "--patch", str(tmp_path / "empty.diff"), "--config", CONFIG]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["resolved"] is False and err == ""
    assert main(["evaluate", IID, "--timeout", "0.01", "--config", CONFIG]) == 3
    out, err = capsys.readouterr()
    assert json.loads(out)["infra_failure"] is True
    assert err.startswith(f"swevis: could not grade {IID}: test command timed out") and err.count("\n") == 1


# -- outside the workflow folder, with no config file


OUTSIDE = [
    (["tasks", "sample"], 0, "instances in all"),
    (["estimate"], 0, "runs per cell"),
    (["render", SRC, "--lines", "1-20"], 0, "realized ratio"),
    (["replay", TRAJ, "--conditions", "text,r3"], 0, "counterfactual cost, accounted as qwen3.5"),
    (["evaluate", "nope__x-1"], 2, "not in the task source of the schema's defaults"),
    (["agent", "run", "--agent", "plb", "--instance", "nope__x-1", "-o", "out"], 2, "unknown instance id nope__x-1"),
    (["images", "build", "--instances", "nope__x-1"], 2, "unknown instance id nope__x-1"),
]


@pytest.mark.parametrize("argv,code,fragment", OUTSIDE, ids=[a[0] for a, _, _ in OUTSIDE])
def test_every_subcommand_runs_where_there_is_no_config_file(tmp_path, monkeypatch, capsys, argv, code, fragment):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert fragment in (out if code == 0 else err), err
    assert "does not exist" not in err  # once: config file config.yaml does not exist


def test_index_and_localize_run_where_there_is_no_config_file(tmp_path, repo, issue, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["index", str(repo)]) == 0
    assert main(["localize", str(repo), "--issue", str(issue)]) == 0
    assert "round_half" in capsys.readouterr().out


def test_replay_without_out_prints_the_table_and_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["replay", TRAJ, "--conditions", "text,r3"]) == 0
    out = capsys.readouterr().out
    assert "ledgerkit-117" in out and " r3 " in out
    assert list(tmp_path.iterdir()) == []
    assert main(["replay", TRAJ, "--conditions", "text,r3", "--out", "replayed"]) == 0
    assert sorted(p.name for p in (tmp_path / "replayed").iterdir()) == ["ceiling.csv", "per_step.parquet", "summary.csv"]


def test_a_config_file_adds_to_the_schema_defaults(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.yaml").write_text("tasks: {instance_ids: [swevis-samples__tabulon-305]}\n")
    assert main(["tasks", "sample", "--config", "mine.yaml"]) == 0
    assert "1  instances in all" in capsys.readouterr().out


# -- the config check, the workflow's too


def test_the_workflow_refuses_what_the_cli_refuses(tmp_path):
    from swevis.workflow import check_config

    for text, fragment in [('results_dir: ""', "is an empty path"),
                           ("agents: {matrix: [{agent: mini, scope: normal, conditions: [text, text]}]}", "twice")]:
        with pytest.raises(ConfigError, match=fragment):
            check_config(yaml.safe_load(text), SCHEMA)


def test_the_validator_accepts_exactly_the_image_families_swevis_accounts():
    """The schema names no family by hand: the validator fills the enum from swevis.tokens."""
    from swevis.config import load_schema, validate_config
    from swevis.tokens import FAMILIES

    raw = yaml.safe_load(SCHEMA.read_text())["properties"]["models"]["additionalProperties"]["properties"]
    assert "enum" not in raw["image_family"]
    family = load_schema()["properties"]["models"]["additionalProperties"]["properties"]["image_family"]
    assert family["enum"] == list(FAMILIES)
    for name in FAMILIES:
        assert validate_config({"models": {"p": {"image_family": name}}})["models"]["p"]["image_family"] == name
    with pytest.raises(ConfigError, match=r'"openai-patch:nope" is not an image family; known: qwen3.5, '):
        validate_config({"models": {"p": {"image_family": "openai-patch:nope"}}})


def test_the_repository_config_still_loads():
    assert load_config(CONFIG)["results_dir"] == "results"


# -- estimate: why a number is unknown


def test_estimate_says_per_row_why_a_number_is_unknown(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    config = {"models": {"qwen3.5": {}, "live": {"backend": "openai", "model_id": "m"}},
              "agents": {"matrix": [{"agent": "mini", "scope": "normal", "conditions": ["text"]}]}}
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(config))
    assert main(["estimate", "--config", "plan.yaml"]) == 0
    out = capsys.readouterr().out
    assert "?" not in out
    rows = out.splitlines()
    playback_row = rows.index(next(r for r in rows if r.startswith("qwen3.5/mini-normal/text")))
    assert rows[playback_row + 1].strip().startswith("prompt tokens unknown: no past runs of qwen3.5 under results/runs/")
    assert "a demonstration run of this cell" in rows[playback_row + 1]
    assert rows[playback_row + 2].strip().startswith("spend unknown: models.qwen3.5 sets no prices")
    live_row = rows.index(next(r for r in rows if r.startswith("live/mini-normal/text")))
    assert "under the playback profile qwen3.5" in rows[live_row + 1]
    assert main(["estimate", "--config", "plan.yaml", "--json"]) == 0
    cells = json.loads(capsys.readouterr().out)["cells"]
    assert set(cells[0]["unknown"]) == {"prompt_tokens", "cost"}
