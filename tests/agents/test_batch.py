"""One job per cell (swevis.agents.run.batch): a run is made again only when it is missing, made
with other settings, or older than one of its inputs; one run's infrastructure failure
leaves the cell's other runs made and fails the job naming it."""

import os
from pathlib import Path

import pytest

from swevis.agents.run.batch import STAMP_NAME, run_cell, run_is_current, run_stamp
from swevis.errors import InfrastructureError


def _make(run: dict) -> None:
    out = Path(run["out_dir"])
    out.mkdir(parents=True, exist_ok=True)
    (out / "traj.json").write_text("{}")
    (out / "patch.diff").write_text("")


def _runs(tmp_path: Path, names: list[str], stamp: str = "s") -> list[dict]:
    demo = tmp_path / "demo.yaml"
    demo.write_text("steps: []")
    os.utime(demo, (1_000, 1_000))
    return [{"out_dir": str(tmp_path / n), "stamp": stamp, "inputs": [str(demo)]} for n in names]


def test_the_stamp_follows_settings_row_and_repeat_not_key_order():
    base = run_stamp({"agents": {"a": 1, "b": 2}}, "d1", 0)
    assert base == run_stamp({"agents": {"b": 2, "a": 1}}, "d1", 0)
    assert base != run_stamp({"agents": {"a": 1, "b": 3}}, "d1", 0)
    assert base != run_stamp({"agents": {"a": 1, "b": 2}}, "d2", 0)
    assert base != run_stamp({"agents": {"a": 1, "b": 2}}, "d1", 1)


def test_a_run_is_current_only_when_made_stamped_and_newer_than_its_inputs(tmp_path):
    [run] = _runs(tmp_path, ["i1"])
    assert not run_is_current(run["out_dir"], "s", run["inputs"])  # never made
    assert run_cell([run], _make)["ran"] == [run["out_dir"]]
    assert run_is_current(run["out_dir"], "s", run["inputs"])
    assert not run_is_current(run["out_dir"], "other settings", run["inputs"])
    os.utime(run["inputs"][0])  # an edited demonstration: newer than the run's outputs
    assert not run_is_current(run["out_dir"], "s", run["inputs"])
    os.utime(run["inputs"][0], (1_000, 1_000))
    (Path(run["out_dir"]) / "patch.diff").unlink()
    assert not run_is_current(run["out_dir"], "s", run["inputs"])


def test_a_cell_makes_only_the_runs_that_are_not_current(tmp_path):
    runs = _runs(tmp_path, ["i1", "i2"])
    made = []
    assert run_cell(runs, lambda r: (made.append(r["out_dir"]), _make(r)))["ran"] == [r["out_dir"] for r in runs]
    grown = runs + _runs(tmp_path, ["i3"])
    done = run_cell(grown, lambda r: (made.append(r["out_dir"]), _make(r)))
    assert done == {"ran": [grown[2]["out_dir"]], "current": [r["out_dir"] for r in runs], "failed": []}
    assert made == [r["out_dir"] for r in grown]  # i1 and i2 once each


def test_one_failed_run_fails_the_cell_after_the_others_are_made(tmp_path):
    runs = _runs(tmp_path, ["i1", "i2", "i3"])

    def run_one(run):
        if run["out_dir"].endswith("i2"):
            raise InfrastructureError("endpoint down")
        _make(run)

    with pytest.raises(InfrastructureError, match=r"1 of 3 runs failed: .*i2: endpoint down"):
        run_cell(runs, run_one)
    assert [(Path(r["out_dir"]) / STAMP_NAME).exists() for r in runs] == [True, False, True]
    retried = []
    run_cell(runs, lambda r: (retried.append(r["out_dir"]), _make(r)))
    assert retried == [runs[1]["out_dir"]]  # the next job makes only the failed run
