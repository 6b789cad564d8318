"""tasks.bundled_set and tasks.localized_sets: a bundled study may sample another set (the
polyglot set), and the embedded default indexes and localizes the polyglot set beside its
sample without any agent running it (results/localized_instances.jsonl; the localization
table by sample and language)."""

import math

import pytest

from swevis.analysis.localization import summary_by_language
from swevis.config import ConfigError
from swevis.paths import ResultsLayout
from swevis.tasks import write_instances
from swevis.tasks.bundled import load_bundled_instances, load_bundled_set
from swevis.tasks.instances import rows_of_layout
from swevis.tasks.sources import localized_instances, select_instances
from swevis.workflow import SampleIndex, check_bundled_sets

POLYGLOT = sorted(r["instance_id"] for r in load_bundled_set("polyglot", verify_commits=False))


def test_a_bundled_study_samples_the_named_set():
    rows = select_instances({"source": "bundled", "bundled_set": "polyglot", "n": None, "seed": 1})
    assert sorted(r["instance_id"] for r in rows) == POLYGLOT
    assert {r["language"] for r in rows} == {"java", "javascript"}
    java = select_instances({"source": "bundled", "bundled_set": "polyglot", "languages": ["java"], "seed": 1})
    assert {r["repo"] for r in java} == {"swevis-samples/verso"}


def test_localized_sets_are_tagged_and_leave_out_the_studys_set():
    rows = localized_instances(["polyglot"], {"source": "bundled"})
    assert sorted(r["instance_id"] for r in rows) == POLYGLOT
    assert {r["localized_set"] for r in rows} == {"polyglot"}
    assert localized_instances(["polyglot"], {"source": "bundled", "bundled_set": "polyglot"}) == []
    assert localized_instances([], {"source": "bundled"}) == []
    # a study of another source keeps them (they are the bundled sample's, not its own)
    assert len(localized_instances(["polyglot"], {"source": "file", "bundled_set": "polyglot"})) == len(POLYGLOT)


def test_unknown_set_names_are_config_errors_naming_the_key():
    with pytest.raises(ConfigError, match="tasks/bundled_set': 'nope' is not a set of the bundled sample"):
        check_bundled_sets({"tasks": {"source": "bundled", "bundled_set": "nope"}})
    with pytest.raises(ConfigError, match="tasks/localized_sets': 'nope'"):
        check_bundled_sets({"tasks": {"source": "bundled", "localized_sets": ["polyglot", "nope"]}})
    check_bundled_sets({"tasks": {"source": "file", "bundled_set": "ignored", "localized_sets": ["polyglot"]}})


def test_the_sample_index_keeps_localized_rows_out_of_the_study():
    layout = ResultsLayout("results")
    study = load_bundled_instances(verify_commits=False)
    localized = localized_instances(["polyglot"], {"source": "bundled"})
    plain = SampleIndex(study, layout, "instances.jsonl")
    both = SampleIndex(study, layout, "instances.jsonl", localized=localized)
    assert both.study == plain.study and both.mirrors == plain.mirrors and both.index_dbs == plain.index_dbs
    assert both.localized == POLYGLOT and plain.localized == []
    assert set(both.localization_dbs) - set(plain.index_dbs) == {both.index[i] for i in POLYGLOT}
    assert len(set(both.localization_dbs) - set(plain.index_dbs)) == 2  # verso and routelet, one commit each
    assert both.row(POLYGLOT[0])["localized_set"] == "polyglot"
    assert both.base[POLYGLOT[0]].startswith("swevis-samples/")


def test_mirror_and_checkout_jobs_find_localized_rows_beside_the_sample(tmp_path):
    study = load_bundled_instances(verify_commits=False)[:1]
    write_instances(study, tmp_path / "instances.jsonl")
    assert [r["instance_id"] for r in rows_of_layout(tmp_path / "instances.jsonl")] == [study[0]["instance_id"]]
    write_instances(localized_instances(["polyglot"], {"source": "bundled"}), tmp_path / "localized_instances.jsonl")
    ids = [r["instance_id"] for r in rows_of_layout(tmp_path / "instances.jsonl")]
    assert ids == [study[0]["instance_id"], *POLYGLOT]


def _per(sample, language, iid, dloc):
    return {"instance_id": iid, "k": 1, "level": "file", "dloc": dloc, "bm25": 0.0, "sample": sample, "language": language}


def test_the_summary_is_the_studys_then_each_sample_by_language():
    per = [_per("study", "python", "a", 1.0), _per("study", "python", "b", 0.0),
           _per("polyglot", "java", "c", 1.0), _per("polyglot", "javascript", "d", 0.0),
           _per("polyglot", "javascript", "e", math.nan)]
    rows = summary_by_language(per)
    got = [(r["sample"], r["language"], r["dloc"], r["n_instances"]) for r in rows]
    assert got[:2] == [("study", "all", 0.5, 2), ("study", "python", 0.5, 2)]
    assert got[2] == ("polyglot", "java", 1.0, 1)
    assert got[3] == ("polyglot", "javascript", 0.0, 1)  # the NaN case (no old-side hunk) is skipped
