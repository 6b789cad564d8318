"""The bundled probe sets: a set is a folder of the bundled sample beside the study's
instances/; `classes` holds one issue of each class the study's bugs leave out, on the frozen
repositories; the sampling checkpoint adds a set's rows to instances.jsonl tagged probe_set,
and the study's readers leave them out."""

import json

import pytest

from swevis.errors import TaskSourceError, TaskValidationError
from swevis.tasks import load_instances, probe_rows, study_rows, write_instances
from swevis.tasks.bundled import (
    SAMPLE_DIR, bundled_set_names, load_bundled_instances, load_bundled_set, probe_set_names,
)
from swevis.tasks.sources import probe_instances, sample_summary, select_instances

CLASSES = {"swevis-samples__tabulon-340": "refactoring", "swevis-samples__ledgerkit-150": "documentation",
           "swevis-samples__stratconf-240": "question"}


def test_the_sets_are_the_folders_beside_repos():
    assert bundled_set_names() == ["classes", "instances", "polyglot"]
    assert probe_set_names() == ["classes", "polyglot"]


def test_the_classes_set_has_one_issue_of_each_missing_class_on_the_frozen_repositories():
    rows = load_bundled_set("classes")  # verifies every base_commit against the frozen trees
    assert {r["instance_id"]: r["issue_class"] for r in rows} == CLASSES
    study = {r["repo"]: r["base_commit"] for r in load_bundled_instances(verify_commits=False)}
    for row in rows:
        assert row["base_commit"] == study[row["repo"]] == row["environment_setup_commit"]
        assert row["FAIL_TO_PASS"] and row["PASS_TO_PASS"] and row["patch"].startswith("diff --git")
        assert set(json.loads((SAMPLE_DIR / "classes" / row["instance_id"] / "meta.json").read_text())) >= {
            "issue_class", "FAIL_TO_PASS", "test_cmd"}


def test_the_study_sample_is_unchanged_by_the_probe_sets():
    rows = load_bundled_instances(verify_commits=False)
    assert len(rows) == 9 and not set(CLASSES) & {r["instance_id"] for r in rows}
    assert rows == load_bundled_set("instances", verify_commits=False)
    assert not any("issue_class" in r for r in rows)


@pytest.mark.parametrize("name", ["nope", "repos"])
def test_an_unknown_set_is_an_error_naming_it(name):
    with pytest.raises(TaskValidationError, match=f"no instance set '{name}'"):
        load_bundled_set(name, verify_commits=False)


def test_a_probe_set_is_tagged_and_written_after_the_study_sample(tmp_path):
    tasks = {"source": "bundled", "n": None, "seed": 1, "instance_ids": ["swevis-samples__ledgerkit-117"]}
    study = select_instances(tasks)
    probes = probe_instances(["classes"], study)
    assert [r["probe_set"] for r in probes] == ["classes"] * 3
    assert {r["instance_id"] for r in probes} == set(CLASSES)
    path = tmp_path / "instances.jsonl"
    write_instances(study + probes, path)
    rows = load_instances(path)
    assert [r["instance_id"] for r in study_rows(rows)] == ["swevis-samples__ledgerkit-117"]
    assert {r["instance_id"]: r["issue_class"] for r in probe_rows(rows)} == CLASSES
    summary = sample_summary(tasks, study, probes)
    assert summary["n"] == 1 and summary["instance_ids"] == ["swevis-samples__ledgerkit-117"]
    assert summary["probe_sets"] == {"classes": sorted(CLASSES)}
    assert probe_instances([], study) == []


def test_a_probe_instance_in_the_study_sample_too_is_refused():
    study = [{**load_bundled_set("classes", verify_commits=False)[0]}]
    with pytest.raises(TaskSourceError, match="probe set classes: instance .* is in the study's sample too"):
        probe_instances(["classes"], study)
