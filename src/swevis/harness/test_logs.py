"""swevis's own test-log parsers, for rows whose `log_parser` swebench does not have.

The bundled Java and JavaScript repositories run their tests with the JDK and Node.js alone
(no Maven, no npm install: the harness runs offline), so their logs are not in a format
swebench parses:

- `tap`: Node's built-in runner (`node --test`), which prints TAP: `ok 3 - name`,
  `not ok 4 - name`, maybe indented (subtests) and with a `# SKIP`/`# TODO` directive. The
  test's id is its name, without TAP's number and dash (swebench's parse_log_tap keeps the dash).
- `status_lines`: one line a test, `PASS <id>` or `FAIL <id>: <reason>` (the bundled Java
  repository's runner; any runner can print it).

Each parser maps a test id to swebench's status strings, as swebench's parsers do.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from swebench.harness.constants import TestStatus

_TAP = re.compile(r"^\s*(ok|not ok)\s+\d+(?:\s+-)?\s*(.*?)\s*$")
_DIRECTIVE = re.compile(r"\s+#\s*(SKIP|TODO)\b.*$", re.I)
_STATUS_LINE = re.compile(r"^(PASS|FAIL|ERROR|SKIP)\s+(\S+?)(?::\s.*)?$")
_STATUS = {"PASS": TestStatus.PASSED, "FAIL": TestStatus.FAILED, "ERROR": TestStatus.ERROR, "SKIP": TestStatus.SKIPPED}


def parse_log_tap(log: str, test_spec: Any = None) -> dict[str, str]:
    """TAP result lines -> {test name: status}; a skipped or TODO test is SKIPPED."""
    statuses: dict[str, str] = {}
    for line in log.splitlines():
        match = _TAP.match(line)
        if not match or not match.group(2):
            continue
        outcome, name = match.groups()
        directive = _DIRECTIVE.search(name)
        if directive:
            name = name[: directive.start()]
            statuses[name] = TestStatus.SKIPPED.value
        else:
            statuses[name] = (TestStatus.PASSED if outcome == "ok" else TestStatus.FAILED).value
    return statuses


def parse_log_status_lines(log: str, test_spec: Any = None) -> dict[str, str]:
    """`PASS <id>` / `FAIL <id>: <reason>` lines -> {id: status}."""
    statuses: dict[str, str] = {}
    for line in log.splitlines():
        match = _STATUS_LINE.match(line.strip())
        if match:
            statuses[match.group(2)] = _STATUS[match.group(1)].value
    return statuses


PARSERS: dict[str, Callable[[str, Any], dict[str, str]]] = {
    "tap": parse_log_tap,
    "status_lines": parse_log_status_lines,
}
