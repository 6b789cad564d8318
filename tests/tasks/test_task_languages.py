"""Rows of SWE-bench Multilingual and SWE-PolyBench: normalized to the SWE-bench row, each with
its language, refused when the index cannot read that language; sampling by language and repo."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from swevis.errors import TaskSourceError, TaskValidationError
from swevis.index import languages as registry
from swevis.index.records import FileExtract, Language
from swevis.tasks.languages import known_languages, row_language
from swevis.tasks.sampling import stratified_sample
from swevis.tasks.sources import FileSource, select_instances

from helpers import FIXTURES

POLYBENCH = FIXTURES / "tasks" / "polybench.jsonl"
MULTILINGUAL = FIXTURES / "tasks" / "multilingual.jsonl"


@pytest.fixture
def toy_language():
    """A language registered for one test, as a new language module would register it."""
    toy = Language(name="toy", extensions=(".toy",), extract=lambda path, data, module, options: FileExtract(language="toy"),
                   test_runner=("toyrun",))
    registry.register(toy)
    yield toy
    registry.unregister("toy")


def _by_id(rows):
    return {r["instance_id"]: r for r in rows}


def test_polybench_rows_become_swebench_rows():
    rows = _by_id(FileSource(POLYBENCH).load())
    ts = rows["acme__widgets-101"]
    assert ts["FAIL_TO_PASS"] == ["test/spinner.test.ts > Spinner > accepts an empty label"]
    assert ts["PASS_TO_PASS"] == ["test/spinner.test.ts > Spinner > renders"]
    assert ts["test_cmd"] == "npx jest test/spinner.test.ts"  # the row's own command is kept
    assert ts["language"] == "typescript"
    assert ts["hints_text"] == "" and ts["version"] == ""
    assert ts["environment_setup_commit"] == ts["base_commit"]
    assert ts["Dockerfile"] == "FROM node:20\n"  # other columns stay
    assert not {"F2P", "P2P", "test_command"} & set(ts)
    java = rows["acme__gears-7"]
    assert java["language"] == "java" and java["PASS_TO_PASS"] == [] and java["test_cmd"] == "mvn test -B -Dtest=GearTest"


def test_multilingual_rows_take_the_language_swebench_lists_for_their_repository():
    rows = _by_id(FileSource(MULTILINGUAL).load())
    assert rows["google__gson-9001"]["language"] == "java"
    assert rows["sharkdp__bat-9002"]["language"] == "rust"
    assert rows["faker-ruby__faker-9003"]["language"] == "ruby"
    # Python rows stay without the field (as SWE-bench Verified's always were): Python
    assert "language" not in rows["psf__requests-9004"]
    assert row_language(rows["psf__requests-9004"]) == "python"


def test_a_malformed_polybench_test_list_names_the_row_and_its_column(tmp_path: Path):
    rows = [json.loads(line) for line in POLYBENCH.read_text().splitlines()]
    rows[1]["F2P"] = "['unclosed"
    path = tmp_path / "poly.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(TaskValidationError, match=r"row 2, field 'F2P': not a list literal"):
        FileSource(path).load()


def test_a_row_of_a_language_swevis_cannot_index_is_refused_by_name():
    # of the fixture's languages only python is registered before the new language modules
    # (ruby never is): the first row in file order of a language the registry lacks is named
    cfg = {"source": "file", "path": str(MULTILINGUAL), "seed": 1}
    first = next((iid, lang) for iid, lang in [("google__gson-9001", "java"), ("sharkdp__bat-9002", "rust"),
                                                ("faker-ruby__faker-9003", "ruby")] if lang not in known_languages())
    with pytest.raises(TaskSourceError) as info:
        select_instances(cfg)
    message = str(info.value)
    assert "\n" not in message
    assert f"{MULTILINGUAL}, instance {first[0]}: language {first[1]!r} is not one swevis can index" in message
    assert f"known: {', '.join(known_languages())}" in message and "tasks.languages" in message


def test_tasks_languages_leaves_out_the_other_languages_rows():
    rows = select_instances({"source": "file", "path": str(MULTILINGUAL), "seed": 1, "languages": ["Python"]})
    assert [r["instance_id"] for r in rows] == ["psf__requests-9004"]


def test_tasks_languages_naming_an_unknown_language_is_refused():
    with pytest.raises(TaskSourceError, match=r"tasks.languages: cobol is not a language swevis can index \(known: "):
        select_instances({"source": "file", "path": str(MULTILINGUAL), "seed": 1, "languages": ["cobol"]})


def test_the_known_languages_are_the_registry_s(toy_language, tmp_path: Path):
    assert "toy" in known_languages() and "python" in known_languages()
    rows = [json.loads(line) for line in POLYBENCH.read_text().splitlines()]
    for row in rows:
        row["language"] = "Toy"
    path = tmp_path / "toy.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    taken = select_instances({"source": "file", "path": str(path), "seed": 1})
    assert {r["language"] for r in taken} == {"toy"}
    registry.unregister("toy")
    with pytest.raises(TaskSourceError, match=r"instance acme__widgets-101: language 'toy' is not one swevis can index"):
        select_instances({"source": "file", "path": str(path), "seed": 1})


def _rows(language: str | None, repo: str, count: int) -> list[dict]:
    out = []
    for i in range(1, count + 1):
        row = {"instance_id": f"{repo.replace('/', '__')}-{i}", "repo": repo}
        if language:
            row["language"] = language
        out.append(row)
    return out


def test_sampling_is_stratified_by_language_then_repository():
    rows = (_rows(None, "a/py1", 40) + _rows(None, "a/py2", 20)  # python: 60
            + _rows("java", "b/j1", 30)  # java: 30
            + _rows("go", "c/g1", 5) + _rows("go", "c/g2", 5))  # go: 10
    sample = stratified_sample(rows, 20, seed=3)
    per_language = Counter(row_language(r) for r in sample)
    # one per repository (5), the other 15 by language size: 9, 4.5, 1.5 -> 9, 5, 1 (largest remainder, ties by size)
    assert per_language == {"python": 2 + 9, "java": 1 + 5, "go": 2 + 1}
    assert {r["repo"] for r in sample} == {"a/py1", "a/py2", "b/j1", "c/g1", "c/g2"}
    assert sample == stratified_sample(list(reversed(rows)), 20, seed=3)  # the same seed, the same sample
    assert sample != stratified_sample(rows, 20, seed=4)


def test_one_language_samples_as_stratifying_by_repository_alone():
    rows = _rows(None, "a/x", 30) + _rows(None, "a/y", 10)
    as_java = [{**r, "language": "java"} for r in rows]
    ids = [r["instance_id"] for r in stratified_sample(rows, 8, seed=5)]
    assert ids == [r["instance_id"] for r in stratified_sample(as_java, 8, seed=5)]


def test_a_repository_of_two_languages_is_one_stratum_per_language():
    rows = _rows("javascript", "m/mixed", 6) + [
        {"instance_id": f"m__mixed-{i}", "repo": "m/mixed", "language": "typescript"} for i in range(7, 13)
    ]
    sample = stratified_sample(rows, 4, seed=0)
    assert Counter(r["language"] for r in sample) == {"javascript": 2, "typescript": 2}


def test_too_small_a_sample_for_every_repository_is_refused():
    rows = _rows(None, "a/x", 3) + _rows("java", "b/y", 3) + _rows("go", "c/z", 3)
    with pytest.raises(TaskSourceError, match="n must be at least 3"):
        stratified_sample(rows, 2, seed=0)
