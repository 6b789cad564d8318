"""A row the configured harness cannot grade is refused before any checkout or container,
one line naming the instance, the repository and what is missing (swevis.harness.support)."""

from __future__ import annotations

import pytest

from swevis.harness.evaluate import evaluate_condition
from swevis.harness.support import UngradableError, check_gradable, grading_gap
from swevis.harness.validate import validate_environments
from swevis.paths import ConditionKey
from swevis.tasks.bundled import load_bundled_instances
from swevis.tasks.sources import FileSource

from helpers import FIXTURES


def _row(repo: str, version: str, **extra) -> dict:
    return {"instance_id": f"{repo.replace('/', '__')}-1", "repo": repo, "version": version, **extra}


def test_swebench_grades_multilingual_and_verified_repositories_in_docker():
    assert grading_gap(_row("google/gson", "2024"), "docker") is None  # SWE-bench Multilingual
    assert grading_gap(_row("sharkdp/bat", "2201"), "docker") is None
    assert grading_gap(_row("django/django", "4.0"), "docker") is None


@pytest.mark.parametrize("row, words", [
    (_row("acme/widgets", ""), "acme/widgets): the docker harness cannot grade it: swebench 4."),
    (_row("google/gson", "0.1"), "has no spec for version '0.1' (it knows "),
])
def test_a_row_swebench_cannot_grade_in_docker_is_refused_by_name(row, words):
    with pytest.raises(UngradableError) as info:
        check_gradable([row], "docker")
    message = str(info.value)
    assert "\n" not in message and f"instance {row['instance_id']} ({row['repo']})" in message and words in message
    assert "harness.kind local" in message


def test_polybench_rows_need_a_log_parser_to_be_graded_locally():
    rows = FileSource(FIXTURES / "tasks" / "polybench.jsonl").load()
    with pytest.raises(UngradableError, match=r"instance acme__widgets-101 \(acme/widgets\): the local harness cannot grade "
                                              r"it: no log_parser in the row and swebench 4\.\S+ has no log parser"):
        check_gradable(rows, "local")
    assert grading_gap({**rows[0], "log_parser": "pytest"}, "local") is None  # its test_cmd is the row's own
    assert "no test_cmd in the row" in grading_gap({**rows[0], "test_cmd": "", "log_parser": "pytest"}, "local")


def test_the_bundled_sample_is_gradable_by_both_backends():
    rows = load_bundled_instances(verify_commits=False)
    check_gradable(rows, "local")
    check_gradable(rows, "docker")


def test_evaluation_and_validation_refuse_before_any_work(tmp_path):
    row = FileSource(FIXTURES / "tasks" / "polybench.jsonl").load()[0]
    settings = {"kind": "docker"}  # nothing else is read before the refusal
    with pytest.raises(UngradableError, match="instance acme__widgets-101"):
        evaluate_condition(tmp_path, [row], ConditionKey("m", "mini", "normal", "text"), settings=settings, mirrors={},
                           client_factory=lambda: pytest.fail("no Docker client may be made"))
    with pytest.raises(UngradableError, match="instance acme__widgets-101"):
        validate_environments([row], settings, tmp_path, mirrors={}, client_factory=lambda: pytest.fail("no Docker client"))
    assert not any(tmp_path.iterdir())


def test_local_rows_with_their_own_test_cmd_and_parser_are_registered_with_swebench_when_first_graded(monkeypatch):
    """check_gradable passes them without swebench (~2 s to import, for a condition whose every
    patch may be cached); the grading registers them before it reads swebench's maps."""
    from swebench.harness.constants import MAP_REPO_TO_EXT, MAP_REPO_VERSION_TO_SPECS
    from swebench.harness.log_parsers import MAP_REPO_TO_PARSER

    from swevis.harness import support

    rows = [_row("swevis-samples/widgetkit", "0.1", test_cmd="pytest -q", log_parser="pytest")]
    monkeypatch.setattr(support, "_DEFERRED", [])
    for registry in (MAP_REPO_VERSION_TO_SPECS, MAP_REPO_TO_PARSER, MAP_REPO_TO_EXT):  # removed again afterwards
        monkeypatch.setitem(registry, "swevis-samples/widgetkit", None)
        del registry["swevis-samples/widgetkit"]
    check_gradable(rows, "local")
    assert support._DEFERRED == rows and "swevis-samples/widgetkit" not in MAP_REPO_VERSION_TO_SPECS
    support.register_deferred_specs()
    assert support._DEFERRED == [] and "0.1" in MAP_REPO_VERSION_TO_SPECS["swevis-samples/widgetkit"]
