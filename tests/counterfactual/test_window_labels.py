"""Window finding against a hand-labelled set: recall and precision of identify_windows.

tests/fixtures/windows_labelled/cases.tsv holds commands shaped as agents type them in public
trajectories outside SWE-bench Verified (mini-swe-agent, SWE-agent and OpenHands), over a
fixture repository written for this test; each was labelled by hand (which windows its output
shows) before the finder ran. observations.jsonl holds the outputs, produced by running the
commands for real (make_observations.py beside the cases). A window counts as found when
path, first and last line agree; a diff hunk when path and its new side's first line agree.
"""

import json
from pathlib import Path

import pytest

from swevis.agents.observation.output_windows import identify_windows
from swevis.index.languages import language_for

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "windows_labelled"
ROWS = [json.loads(line) for line in (FIXTURE / "observations.jsonl").read_text().splitlines()]


def expected(row: dict) -> set[str]:
    return set() if row["expected"] == "-" else set(row["expected"].split(";"))


def found(row: dict) -> set[str]:
    windows = identify_windows(row["command"], row["observation"], returncode=row["returncode"])
    return {f"{w.path}@{w.start}:diff" if w.kind == "diff" else f"{w.path}:{w.start}-{w.end}" for w in windows}


def scores(rows: list[dict]) -> tuple[int, int, int]:
    """(windows labelled, windows found, windows found that are labelled)."""
    labelled = found_n = right = 0
    for row in rows:
        want, got = expected(row), found(row)
        labelled, found_n, right = labelled + len(want), found_n + len(got), right + len(want & got)
    return labelled, found_n, right


def test_the_labelled_set_is_varied():
    assert len(ROWS) >= 90
    assert {r["style"] for r in ROWS} == {"mini", "swe", "oh"}
    assert sum(r["expected"] == "-" for r in ROWS) >= 30  # test logs, tracebacks, listings, search hits
    assert sum(len(expected(r)) for r in ROWS) >= 80


def test_recall_and_precision_are_at_least_95_percent():
    labelled, found_n, right = scores(ROWS)
    misses = [(r["command"][:70], sorted(expected(r) - found(r))) for r in ROWS if expected(r) - found(r)]
    wrong = [(r["command"][:70], sorted(found(r) - expected(r))) for r in ROWS if found(r) - expected(r)]
    assert right / labelled >= 0.95, f"recall {right}/{labelled}; missed {misses}"
    assert right / found_n >= 0.95, f"precision {right}/{found_n}; wrong {wrong}"


@pytest.mark.parametrize("row", [r for r in ROWS if r["expected"] == "-"], ids=lambda r: r["command"][:40])
def test_output_that_is_not_code_stays_text(row):
    assert found(row) == set()


LANGUAGES = {"java": ".java", "javascript": ".js", "typescript": ".ts", "go": ".go", "rust": ".rs"}


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_windows_of_each_language_are_found_with_their_language(name):
    """Each non-Python language has labelled reads (cat/sed/nl/head, grep with context) and
    the finder returns every one of them, its file of the right language by the registry."""
    rows = [r for r in ROWS if any((lang := language_for(w.split(":")[0])) and lang.name == name for w in expected(r))]
    assert len(rows) >= 4 and any("grep" in r["command"] for r in rows)
    for row in rows:
        assert found(row) == expected(row), row["command"]
        assert name in {language_for(w.split(":")[0]).name for w in found(row)}


def test_tsx_windows_are_typescript():
    rows = [r for r in ROWS if ".tsx:" in r["expected"]]
    assert rows and all(found(r) == expected(r) for r in rows)
    assert language_for("ports/ts/LedgerView.tsx").name == "typescript"
