"""results/table_probes.csv on a small results folder: one row a probe run, with the issue's
class, what the agent routed it as, the route, candidates, vote and verdict; a missing record is
named; the study's readers skip <condition>/probes/."""

import json
from pathlib import Path

import pytest

from swevis.analysis.class_probes import build_probes_table, probes_table
from swevis.analysis.load import AnalysisInputError, condition_traj_paths, instance_rows
from swevis.paths import ConditionKey, ResultsLayout, eval_path

KEY = ConditionKey("qwen3.5", "prometheus", "normal", "text")
ROWS = [
    {"instance_id": "o__a-1", "repo": "o/a"},
    {"instance_id": "o__a-2", "repo": "o/a", "probe_set": "classes", "issue_class": "question"},
    {"instance_id": "o__a-3", "repo": "o/a", "probe_set": "classes", "issue_class": "documentation"},
]


def _traj(iid: str, answer: str, route: str, candidates: int, method: str) -> dict:
    return {"instance_id": iid, "agent": "prometheus", "exit_status": "submitted", "backend": "playback",
            "classification": {"answer": answer, "class": answer, "warning": None}, "route": route,
            "candidates": [{"index": i + 1} for i in range(candidates)], "vote": {"method": method}}


def _write(path: str | Path, data: dict) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data))


@pytest.fixture
def results(tmp_path):
    layout = ResultsLayout(str(tmp_path / "results"))
    answered = {**_traj("o__a-2", "question", "answer", 0, None), "vote": None, "answer": {"text": "No: see x.py"}}
    runs = {"o__a-2": (answered, "", False),
            "o__a-3": (_traj("o__a-3", "bug", "verified", 0, "verified"), "diff --git a/x b/x\n+y\n", False)}
    for iid, (traj, patch, resolved) in runs.items():
        _write(layout.probe_run_file(KEY.run(iid), "traj.json"), traj)
        Path(layout.probe_run_file(KEY.run(iid), "patch.diff")).write_text(patch)
        _write(eval_path(layout.probe_dir(KEY), iid), {"instance_id": iid, "resolved": resolved})
    # a study run beside them
    _write(layout.run_file(KEY.run("o__a-1"), "traj.json"), _traj("o__a-1", "bug", "verified", 0, "verified"))
    return layout


def test_one_row_a_probe_run_with_class_route_candidates_vote_and_verdict(results):
    validation = {"instances": {"o__a-2": {}, "o__a-3": {}}, "invalid": {"o__a-3": "gold does not resolve"}}
    table = probes_table(results.root, [(*KEY, ["classes"])], ROWS, validation)
    rows = {r["instance_id"]: r for r in table.to_dicts()}
    assert set(rows) == {"o__a-2", "o__a-3"}
    assert rows["o__a-2"] == {
        "model": "qwen3.5", "agent": "prometheus", "scope": "normal", "condition": "text", "probe_set": "classes",
        "instance_id": "o__a-2", "issue_class": "question", "routed_as": "question", "class_answer": "question",
        "route": "answer", "candidates": 0, "vote_method": None, "answered": True, "patch_lines": 0,
        "resolved": False, "valid": True,
        "exit_status": "submitted", "backend": "playback",
    }
    assert (rows["o__a-3"]["routed_as"], rows["o__a-3"]["route"], rows["o__a-3"]["resolved"], rows["o__a-3"]["valid"]) == (
        "bug", "verified", False, False)
    assert (rows["o__a-3"]["answered"], rows["o__a-3"]["patch_lines"]) == (False, 2)
    # a condition without probe sets has no rows; without a validation report `valid` is empty
    assert probes_table(results.root, [], ROWS).height == 0
    assert probes_table(results.root, [(*KEY, ["classes"])], ROWS)["valid"].to_list() == [None, None]


def test_a_missing_record_is_named(results):
    Path(eval_path(results.probe_dir(KEY), "o__a-2")).unlink()
    Path(results.probe_run_file(KEY.run("o__a-3"), "patch.diff")).unlink()
    with pytest.raises(AnalysisInputError, match=r"(?s)probes/harness/evals/o__a-2/eval.json: missing.*probes/o__a-3/patch.diff: missing"):
        probes_table(results.root, [(*KEY, ["classes"])], ROWS)


def test_the_csv_is_written_from_instances_jsonl(results, tmp_path):
    instances = tmp_path / "instances.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = tmp_path / "table_probes.csv"
    build_probes_table(results.root, [(*KEY, ["classes"])], instances, None, out)
    assert out.read_text().splitlines()[0].startswith("model,agent,scope,condition,probe_set,instance_id,issue_class,routed_as")
    assert len(out.read_text().splitlines()) == 3


def test_the_study_readers_skip_the_probe_runs(results, tmp_path):
    cdir = results.condition_dir(KEY)
    assert [p.parent.name for p in condition_traj_paths(cdir)] == ["o__a-1"]
    instances = tmp_path / "instances.jsonl"
    instances.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    assert list(instance_rows(instances)) == ["o__a-1"]
