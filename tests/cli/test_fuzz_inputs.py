"""Fuzzing the inputs a user or a crashed job can hand swevis: config files, instance rows and
trajectory files. Every malformed input must give swevis's own clear error (which names
the problem), never a traceback from deep inside, and never a partial output."""

import json
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swevis.analysis.load import AnalysisInputError, run_row
from swevis.config import ConfigError, schema_defaults, validate_config
from swevis.errors import SwevisError
from swevis.models import PlaybackSourceError, load_playback_source
from swevis.tasks.instances import write_instances
from swevis.tasks.schema import REQUIRED_FIELDS, validate_row
from swevis.tasks.sources import FileSource

COVERAGE = {f"coverage_{k}": v for k, v in schema_defaults("analysis")["coverage"].items()}
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
config_keys = st.sampled_from(["tasks", "models", "agents", "index", "single_read", "harness", "analysis", "results_dir", "bogus"])
inner_keys = st.sampled_from(["source", "n", "seed", "path", "matrix", "backend", "temperature", "kind", "repeats", "x"])


@FUZZ
@given(st.dictionaries(config_keys, st.dictionaries(inner_keys, json_values, max_size=3) | json_values, max_size=4))
@pytest.mark.slow
def test_config_fuzz_gives_schema_errors_naming_the_key(data):
    try:
        validate_config(json.loads(json.dumps(data)))
    except ConfigError as exc:
        assert str(exc).startswith("config key '")


def _valid_row() -> dict:
    return {
        "instance_id": "acme__widgets-1", "repo": "acme/widgets", "base_commit": "a" * 40,
        "problem_statement": "it breaks", "hints_text": "", "created_at": "2024-01-01T00:00:00Z",
        "patch": "diff --git a/x b/x\n", "test_patch": "diff --git a/t b/t\n", "FAIL_TO_PASS": ["t::a"],
        "PASS_TO_PASS": [], "version": "1.0", "environment_setup_commit": "b" * 40,
    }


@FUZZ
@given(st.sampled_from(REQUIRED_FIELDS), json_values | st.just("__delete__"))
def test_instance_row_fuzz_names_file_row_and_field(field, value):
    row = _valid_row()
    if value == "__delete__":
        del row[field]
    else:
        row[field] = value
    try:
        validate_row(row, "tasks.jsonl", 7)
    except SwevisError as exc:
        assert "tasks.jsonl, row 7" in str(exc)


@FUZZ
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_task_file_fuzz(tmp_path_factory, blob):
    path = tmp_path_factory.mktemp("tasks") / "t.jsonl"
    path.write_bytes(blob)
    try:
        FileSource(path).load()
    except SwevisError as exc:
        assert str(path) in str(exc)
    except UnicodeDecodeError:
        raise AssertionError("undecodable bytes must be a clear error, not a traceback")


@FUZZ
@given(st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()))
def test_trajectory_fuzz_is_reported_by_name(tmp_path_factory, blob):
    run = tmp_path_factory.mktemp("run") / "acme__widgets-1"
    run.mkdir()
    (run / "traj.json").write_bytes(blob)
    (run / "eval.json").write_text(json.dumps({"instance_id": "acme__widgets-1", "resolved": True, "patch_applied": True, "infra_failure": False, "error": None}))
    try:
        run_row(run / "traj.json", run / "eval.json", **COVERAGE)
    except AnalysisInputError as exc:
        assert "traj.json" in str(exc)


@FUZZ
@given(st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()))
def test_playback_source_fuzz(tmp_path_factory, blob):
    path = tmp_path_factory.mktemp("playback") / "demo.json"
    path.write_bytes(blob)
    try:
        load_playback_source(str(path))
    except PlaybackSourceError as exc:
        assert str(path) in str(exc)


def test_failed_instances_write_leaves_no_partial_file(tmp_path: Path):
    out = tmp_path / "instances.jsonl"

    def rows():
        yield _valid_row()
        raise RuntimeError("crash mid-write")

    try:
        write_instances(rows(), out)
    except RuntimeError:
        pass
    assert not out.exists() and not list(tmp_path.glob(".*.tmp"))


traj_like = st.fixed_dictionaries(
    {
        "format": st.just("swevis-traj-1"),
        "instance_id": st.just("acme__widgets-1"),
        "model": json_values, "agent": json_values, "scope": json_values, "condition": json_values,
        "exit_status": json_values,
        "steps": json_values | st.lists(st.dictionaries(st.sampled_from(
            ["phase", "action_class", "usage", "observation", "format_error"]), json_values, max_size=5), max_size=4),
        "totals": st.fixed_dictionaries({"prompt_tokens": json_values, "completion_tokens": json_values}),
        "phases": json_values,
        "evidence": json_values,
    }
)


@FUZZ
@given(traj_like)
@pytest.mark.slow
def test_trajectory_shaped_fuzz_is_reported_by_name(tmp_path_factory, traj):
    run = tmp_path_factory.mktemp("run") / "acme__widgets-1"
    run.mkdir()
    (run / "traj.json").write_text(json.dumps(traj))
    (run / "eval.json").write_text(json.dumps({"instance_id": "acme__widgets-1", "resolved": True, "patch_applied": True, "infra_failure": False, "error": None}))
    try:
        run_row(run / "traj.json", run / "eval.json", "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n", **COVERAGE)
    except AnalysisInputError as exc:
        assert "traj.json" in str(exc)


# ---- the same inputs handed to the CLI: exit 2 and one line on stderr, never a traceback

CLI_FUZZ = settings(FUZZ, max_examples=25)
CONFIG = str(Path(__file__).resolve().parents[2] / "config.yaml")
yaml_like = st.text(alphabet=":-[]{}#&*!|>'\"%@`,? \n\tabx01", max_size=60).map(str.encode)


def _assert_one_line_error(code: int, err: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("swevis") and "Traceback" not in err, err


@CLI_FUZZ
@given(st.binary(max_size=200) | yaml_like | json_values.map(lambda v: json.dumps(v).encode()))
@pytest.mark.slow
def test_config_file_fuzz_through_the_cli(tmp_path_factory, capsys, blob):
    from swevis.cli import main

    path = tmp_path_factory.mktemp("cfg") / "config.yaml"
    path.write_bytes(blob)
    capsys.readouterr()
    code = main(["tasks", "sample", "--config", str(path)])
    if code != 0:  # an empty or all-default config is a valid one
        _assert_one_line_error(code, capsys.readouterr().err)


@CLI_FUZZ
@given(st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()) | traj_like.map(lambda t: json.dumps(t).encode()))
@pytest.mark.slow
def test_trajectory_file_fuzz_through_replay(tmp_path_factory, capsys, blob):
    from swevis.cli import main

    folder = tmp_path_factory.mktemp("replay")
    (folder / "t.json").write_bytes(blob)
    capsys.readouterr()
    code = main(["replay", str(folder / "t.json"), "--config", CONFIG, "--cache", str(folder / "cache")])
    _assert_one_line_error(code, capsys.readouterr().err)


@CLI_FUZZ
@given(st.text(max_size=12))
def test_condition_fuzz_through_the_cli(tmp_path_factory, capsys, name):
    """Only text and r<positive number> pass; the rest stop at the argument, before any work."""
    from swevis.cli import main
    from swevis.conditions import Condition, ConditionError

    try:
        Condition.parse(name)
        return
    except ConditionError:
        pass
    out = tmp_path_factory.mktemp("agent")
    capsys.readouterr()
    code = main(["agent", "run", "--agent", "plb", "--instance", "acme__widgets-1", f"--condition={name}", "-o", str(out)])
    _assert_one_line_error(code, capsys.readouterr().err)
