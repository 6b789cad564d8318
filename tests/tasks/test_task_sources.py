import json
from pathlib import Path

import polars as pl
import pytest

from swevis.errors import TaskSourceError, TaskValidationError
from swevis.tasks import load_instances, write_instances
from swevis.tasks.sources import FileSource, HuggingFaceSource, open_source, select_instances


def _row(i: int, repo: str = "acme/widgets") -> dict:
    return {
        "instance_id": f"{repo.replace('/', '__')}-{i}",
        "repo": repo,
        "base_commit": "a" * 40,
        "problem_statement": "Widgets break when spun.",
        "hints_text": "",
        "created_at": "2024-01-01T00:00:00Z",
        "patch": "diff --git a/w.py b/w.py\n",
        "test_patch": "diff --git a/t.py b/t.py\n",
        "FAIL_TO_PASS": json.dumps(["t.py::test_spin"]),  # as Hugging Face stores it
        "PASS_TO_PASS": "[]",
        "version": "1.0",
        "environment_setup_commit": "b" * 40,
    }


@pytest.fixture
def rows():
    return [_row(i) for i in range(1, 6)] + [_row(i, "acme/gears") for i in range(1, 4)]


def test_json_jsonl_and_parquet_give_the_same_rows(tmp_path: Path, rows):
    (tmp_path / "t.json").write_text(json.dumps(rows))
    (tmp_path / "t.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    pl.DataFrame(rows).write_parquet(tmp_path / "t.parquet")
    loaded = [FileSource(tmp_path / f"t.{ext}").load() for ext in ("json", "jsonl", "parquet")]
    assert loaded[0] == loaded[1] == loaded[2]
    assert loaded[0][0]["FAIL_TO_PASS"] == ["t.py::test_spin"]  # JSON strings become lists


def test_parquet_with_real_list_columns(tmp_path: Path, rows):
    for r in rows:
        r["FAIL_TO_PASS"], r["PASS_TO_PASS"] = ["t.py::a", "t.py::b"], ["t.py::c"]
    pl.DataFrame(rows).write_parquet(tmp_path / "t.parquet")
    assert FileSource(tmp_path / "t.parquet").load()[0]["FAIL_TO_PASS"] == ["t.py::a", "t.py::b"]


@pytest.mark.parametrize(
    "field, value, words",
    [
        ("base_commit", None, "missing"),
        ("base_commit", "abc", "40-hex"),
        ("repo", "no-slash", "owner/name"),
        ("FAIL_TO_PASS", "not json", "JSON list"),
        ("FAIL_TO_PASS", "[]", "empty"),
        ("patch", 7, "must be a string"),
        ("instance_id", "weird id", "owner__name-NUMBER"),
    ],
)
def test_malformed_row_names_file_row_and_field(tmp_path: Path, rows, field, value, words):
    if value is None:
        del rows[2][field]
    else:
        rows[2][field] = value
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(TaskValidationError) as info:
        FileSource(path).load()
    message = str(info.value)
    assert str(path) in message and "row 3" in message and f"field '{field}'" in message and words in message


def test_missing_file_and_bad_suffix(tmp_path: Path):
    with pytest.raises(TaskSourceError, match="does not exist"):
        FileSource(tmp_path / "nope.jsonl").load()
    (tmp_path / "t.csv").write_text("x")
    with pytest.raises(TaskSourceError, match="unsupported format"):
        FileSource(tmp_path / "t.csv").load()
    with pytest.raises(TaskSourceError, match="tasks.path is not set"):
        open_source({"source": "file", "path": None})


def test_invalid_jsonl_line_is_named(tmp_path: Path, rows):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(rows[0]) + "\n{oops\n")
    with pytest.raises(TaskSourceError, match=r"t\.jsonl, row 2: invalid JSON"):
        FileSource(path).load()


def test_huggingface_source_through_datasets_offline(tmp_path: Path, rows):
    # The `json` builder with local data_files exercises the same datasets.load_dataset path
    # as a hub dataset, without a network.
    path = tmp_path / "verified.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    loaded = HuggingFaceSource("json", "train", data_files={"train": str(path)}).load()
    assert [r["instance_id"] for r in loaded] == [r["instance_id"] for r in rows]
    assert loaded[0]["FAIL_TO_PASS"] == ["t.py::test_spin"]


def test_huggingface_unknown_split_is_a_clear_error(tmp_path: Path, rows):
    path = tmp_path / "verified.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(TaskSourceError, match="split"):
        HuggingFaceSource("json", "validation", data_files={"train": str(path)}).load()


def test_huggingface_unreachable_dataset_is_a_clear_error():
    with pytest.raises(TaskSourceError, match="no-such-org/no-such-dataset"):
        HuggingFaceSource("no-such-org/no-such-dataset", "test").load()


def test_n_larger_than_source_and_listed_ids(tmp_path: Path, rows):
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    cfg = {"source": "file", "path": str(path), "seed": 1, "n": 9}
    with pytest.raises(TaskSourceError, match="asked for 9 instances but the source has only 8"):
        select_instances(cfg)
    picked = select_instances({**cfg, "n": None, "instance_ids": ["acme__gears-2"]})
    assert [r["instance_id"] for r in picked] == ["acme__gears-2"]
    with pytest.raises(TaskSourceError, match="no instance"):
        select_instances({**cfg, "instance_ids": ["acme__gears-99"]})


def test_instances_file_round_trip(tmp_path: Path, rows):
    rows = FileSource(_write(tmp_path, rows)).load()
    out = tmp_path / "results" / "instances.jsonl"
    write_instances(rows, out)
    assert load_instances(out) == rows
    assert not list(out.parent.glob(".*.tmp"))


def _write(tmp_path: Path, rows) -> Path:
    path = tmp_path / "src.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    return path
