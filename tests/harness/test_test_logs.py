"""swevis's own log parsers (tap, status_lines): the statuses swebench's grading reads."""

from swevis.harness.local import resolve_log_parser
from swevis.harness.test_logs import parse_log_status_lines, parse_log_tap

NODE_TAP = """TAP version 13
# Subtest: query: pairs become keys
ok 1 - query: pairs become keys
  ---
  duration_ms: 1.8
  ...
# Subtest: query: plus decodes to a space
not ok 2 - query: plus decodes to a space
  ---
  error: |-
    Expected values to be strictly deep-equal:
  ...
# Subtest: group
    ok 1 - inner case
ok 3 - group
ok 4 - later # SKIP not on this platform
not ok 5 - pending # TODO write it
1..5
# tests 5
# pass 2
"""

STATUS_LINES = """PASS verso.VersionTest.parsesThreeNumbers
FAIL verso.VersionTest.parsesBuildMetadata: java.lang.NumberFormatException: For input string: "0+1"
  PASS verso.range.RangeTest.caret
ERROR verso.MissingTest: no such test class
PASSED is not a status line
25 passed, 1 failed
"""


def test_tap_maps_names_without_number_or_dash():
    statuses = parse_log_tap(NODE_TAP)
    assert statuses == {
        "query: pairs become keys": "PASSED",
        "query: plus decodes to a space": "FAILED",
        "inner case": "PASSED",
        "group": "PASSED",
        "later": "SKIPPED",
        "pending": "SKIPPED",
    }


def test_status_lines():
    assert parse_log_status_lines(STATUS_LINES) == {
        "verso.VersionTest.parsesThreeNumbers": "PASSED",
        "verso.VersionTest.parsesBuildMetadata": "FAILED",
        "verso.range.RangeTest.caret": "PASSED",
        "verso.MissingTest": "ERROR",
    }


def test_no_results_is_empty():
    assert parse_log_tap("SyntaxError: Unexpected token\n") == {}
    assert parse_log_status_lines("error: cannot find symbol\n") == {}


def test_rows_name_them():
    assert resolve_log_parser({"instance_id": "x", "repo": "o/r", "log_parser": "tap"}) is parse_log_tap
    assert resolve_log_parser({"instance_id": "x", "repo": "o/r", "log_parser": "status_lines"}) is parse_log_status_lines
    assert resolve_log_parser({"instance_id": "x", "repo": "o/r", "log_parser": "pytest"}).__name__ == "parse_log_pytest"
