"""The run key: ResultsLayout builds every results path from a key and reads keys back, and
nothing else in the package, its scripts or its rules takes a results path apart."""

import re
from pathlib import Path

import pytest

from swevis.paths import (
    WILDCARD_CONDITION,
    WILDCARD_REPEAT,
    ConditionKey,
    ResultsLayout,
    RunKey,
    eval_path,
    harness_summary_path,
    run_path,
)

ROOT = Path(__file__).resolve().parents[2]
KEY = ConditionKey("qwen3.5", "let-mem", "wide", "r3")


def test_a_condition_folder_round_trips_through_its_key():
    layout = ResultsLayout("out/results")
    folder = layout.condition_dir(KEY)
    assert folder == "out/results/runs/qwen3.5/let-mem-wide/r3"
    assert ResultsLayout.parse_condition_dir(folder) == KEY  # the agent keeps its own hyphen
    assert ResultsLayout.parse_condition_dir(Path("/abs") / folder) == KEY
    for bad in ("runs/qwen3.5/let-mem-narrow/r3", "runs/qwen3.5/mini-normal/r0.5x", "r3"):
        with pytest.raises(ValueError, match="is not a condition folder"):
            ResultsLayout.parse_condition_dir(bad)
    assert ResultsLayout.condition_key_or_none("elsewhere/cond") is None


def test_a_runs_files_round_trip_and_repeats_live_below_the_instance():
    layout = ResultsLayout()
    first, second = KEY.run("o__r-1"), KEY.run("o__r-1", 2)
    assert second == RunKey(*KEY, "o__r-1", 2) and second.cell == KEY
    cdir = layout.condition_dir(KEY)
    assert layout.run_file(first, "traj.json") == f"{cdir}/o__r-1/traj.json"
    assert layout.run_file(second, "traj.json") == f"{cdir}/o__r-1/repeat-2/traj.json"
    assert layout.run_file(first, "traj.json") == run_path(cdir, "o__r-1", 0, "traj.json").as_posix()
    for run in (first, second):
        assert ResultsLayout.parse_run_subdir(cdir, layout.run_file(run, "traj.json")) == (run.instance, run.repeat)
    with pytest.raises(ValueError, match="is not a run's file"):
        ResultsLayout.parse_run_subdir(cdir, f"{cdir}/o__r-1/extra/deep/traj.json")


def test_the_grading_jobs_files_are_in_its_declared_folder():
    layout = ResultsLayout()
    harness = layout.harness_dir(KEY)
    assert layout.eval_record(KEY.run("o__r-1", 1)).startswith(harness + "/evals/o__r-1/repeat-1/")
    assert layout.harness_summary(KEY) == harness_summary_path(layout.condition_dir(KEY)).as_posix()
    assert eval_path(layout.condition_dir(KEY), "o__r-1").as_posix().startswith(harness + "/")


def test_keys_name_runs_and_snakemake_templates():
    assert KEY.run_id == "swevis-qwen3.5-let-mem-wide-r3" and KEY.visual
    assert not ConditionKey("m", "mini", "normal", "text").visual
    assert ResultsLayout().run_file(WILDCARD_REPEAT, "traj.json") == (
        "results/runs/{model}/{agent}-{scope}/{condition}/{instance}/repeat-{rep}/traj.json"
    )
    assert ResultsLayout().condition_summary(WILDCARD_CONDITION).endswith("{condition}/summary.json")
    assert KEY.run("i", 0).flat_name == "i" and KEY.run("i", 3).flat_name == "i.repeat-3"


def test_condition_folders_are_discovered_as_keys(tmp_path):
    layout = ResultsLayout(str(tmp_path))
    for key in (KEY, ConditionKey("kimi", "mini", "normal", "text")):
        Path(layout.condition_dir(key)).mkdir(parents=True)
    (tmp_path / "runs" / "kimi" / "not-a-cell" / "x").mkdir(parents=True)  # not a scope: ignored
    assert layout.condition_dirs() == sorted([KEY, ConditionKey("kimi", "mini", "normal", "text")])
    assert layout.condition_dirs("qwen3.5") == [KEY]


# A results path taken apart by hand: parts[-k], .parent.parent, or an agent-scope split.
PATH_PARSING = re.compile(r"\.parts\[-\d|\.parent\.parent|agent_scope|rpartition\(\"-\"\)")


def test_no_module_outside_the_layout_parses_a_results_path():
    sources = [*sorted((ROOT / "src" / "swevis").rglob("*.py")), *sorted((ROOT / "scripts").glob("*.py")),
               *sorted((ROOT / "rules").glob("*.smk")), ROOT / "Snakefile"]
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sources
        if path.name != "paths.py" and "data" not in path.relative_to(ROOT).parts
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if PATH_PARSING.search(line)
    ]
    assert found == []
    assert PATH_PARSING.search('cdir = Path(out).parent.parent') and PATH_PARSING.search('p.parts[-3]')
