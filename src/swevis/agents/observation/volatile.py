"""Volatile text in command output that the model's decision does not depend on, made stable.

The response cache is keyed by the exact request, so a rerun of a finished trajectory pays
for every call after the first test run if that run printed ``54 passed in 0.26s`` and the
rerun prints ``0.27s``. The observation pipeline passes every command output (never a code
window, which shows the file as it is) through :func:`normalize` before the model sees it,
under every condition alike, so conditions stay comparable.

The list is small and explicit; each rule names the runner and what varies:

- pytest's summary (``54 passed, 1 warning in 0.26s``, ``no tests ran in 0.01s``): the time;
  a centred ``=== ... ===`` line is centred again to its width, as pytest draws it.
- pytest ``--durations``: the section's lines (which tests, in which order, how many under
  the threshold all depend on the machine's load); a stray line loses its time.
- pytest ``console_output_style = times``: the per-file (or per-test) time column.
- pytest's ``tmp_path`` folders (``pytest-of-root/pytest-17``): the session counter.
- unittest and Django (``Ran 3 tests in 0.004s``): the time.
- sympy's bin/test (``tests finished: 5 passed, in 0.49 seconds``): the time, and the random
  seed and PYTHONHASHSEED it draws afresh for every run.
- the test runners of the other indexed languages: ``go test`` (``ok  pkg  0.003s`` or
  ``(cached)``, ``--- PASS: TestX (0.00s)``), ``cargo test`` (``finished in 0.00s``, cargo's
  ``Finished ... in 0.52s``), jest (``Time: 1.2 s``, a suite's ``(5.1 s)``, a test's ``(3 ms)``),
  mocha and node --test (``5 passing (12ms)``, ``duration_ms 45.1``), vitest (``Start at``,
  ``Duration``), Maven (``Time elapsed: 0.04 s``, ``Total time:``, ``Finished at:``) and
  Gradle (``BUILD SUCCESSFUL in 4s``): the time.
- ``ls -l`` / ``ls -la`` long listings (``-rw-r--r-- 1 root root 1234 Dec  1 10:05 x.py``,
  ``--time-style=long-iso`` too): the date column, which is when a checkout or an image was
  made, not anything of the code (a file the agent changed shows its size and content).
- Python's default reprs (``<Foo object at 0x7f3a2c1b5d90>``): the address, which moves with
  every process. Within one output each address keeps its own label (``<addr1>``,
  ``<addr2>``, ...), so the model still sees which objects are the same.

Timings a command was *asked* to measure (``time``, ``timeit``, a benchmark's own prints)
are left alone: a performance fix may depend on them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

TIME = "<time>"
COUNT = "<n>"
SEED = "<seed>"
DATE = "<date>"
DURATIONS_ELIDED = "(durations elided: they vary from run to run)"

_OUTCOME = r"(?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?|rerun|subtests? (?:passed|failed|skipped))"
_SESSION_TIME = r"\d+(?:\.\d+)?s(?: \((?:\d+ days?, )?\d+:\d\d:\d\d\))?"
_DURATION_LINE = r"\d+\.\d+s (?:setup|call|teardown) [^\n]*"
_HIDDEN_LINE = r"\(\d+ durations? < [^\n]*hidden\.[^\n]*\)"
_NODE_TIME = r"(?:\d+(?:\.\d+)?(?:us|ms|s)|\d+m \d+s|\d+h \d+m)"
_GO_TIME = r"\d+\.\d+s"
_JS_TIME = r"\d+(?:\.\d+)? ?(?:ms|s|m)"  # jest "1.234 s", "3 ms"; mocha "12ms", "1s", "2m"
_RUN_TIME = r"(?:\d+m )?\d+(?:\.\d+)?(?:ms|s)"  # cargo "0.52s", "1m 02s"; Gradle "4s", "1m 3s", "850ms"

# ls -l: mode (with an ACL/SELinux marker), links, owner, group, size (or a device's
# major, minor; -h sizes), then the date -- "Dec  1 10:05", "Jan 12  2024" or ISO
_LS_HEAD = r"[-bcdlps][-rwxsStT]{9}[.+@]?[^\S\n]+\d+[^\S\n]+\S+[^\S\n]+\S+[^\S\n]+(?:\d+,[^\S\n]*)?[\d.,]+[KMGTPE]?[^\S\n]+"
_LS_DATE = (
    r"(?:[A-Z][a-z]{2}[^\S\n]+\d{1,2}[^\S\n]+(?:\d{1,2}:\d\d|\d{4})"
    r"|\d{4}-\d\d-\d\d(?:[^\S\n]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[^\S\n][+-]\d{4})?)?)"
)

_SUMMARY = re.compile(rf"(?P<counts>(?:\d+ {_OUTCOME}, )*\d+ {_OUTCOME}|no tests ran) in {_SESSION_TIME}")


def _summary_time(match: re.Match[str]) -> str:
    """pytest's summary within a line that has " in <digit>" (a search of every line for the
    summary itself took most of the time of normalizing a large output)."""
    return _SUMMARY.sub(rf"\g<counts> in {TIME}", match[0])


def _right_aligned_time(match: re.Match[str]) -> str:
    """pytest right-aligns the time column to the terminal width: so does the placeholder."""
    return match["head"] + TIME.rjust(max(len(match[0]) - len(match["head"]), len(TIME) + 1))


# (pattern, replacement), applied in order; only the durations section spans lines.
RULES: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    # pytest summary: "1 failed, 53 passed, 2 warnings in 0.31s", "no tests ran in 0.01s"
    (re.compile(r"^[^\n]* in \d[^\n]*$", re.M), _summary_time),
    # pytest --durations: which tests pass the threshold, their order and times all vary with
    # the machine's load, so the section keeps its header and says it was elided; lines
    # outside a whole section ("0.26s call     tests/test_x.py::test_y") lose their time
    (re.compile(rf"^(?P<head>=+ slowest (?:\d+ )?durations =+)\n(?:(?:{_DURATION_LINE}|{_HIDDEN_LINE}|)\n)*", re.M),
     rf"\g<head>\n{DURATIONS_ELIDED}\n"),
    (re.compile(r"^\d+\.\d+s (?=(?:setup|call|teardown) )", re.M), f"{TIME} "),
    # pytest console_output_style=times: "tests/test_money.py ......      3.479ms"
    (re.compile(rf"^(?P<head>[^\s:]+\.py(?:::\S+)?(?:[^\S\n].*?)?)[^\S\n]+{_NODE_TIME}$", re.M), _right_aligned_time),
    # pytest tmp_path: /tmp/pytest-of-root/pytest-17/test_x0
    (re.compile(r"(?<=/pytest-of-)(?P<user>[^/\s]+)/pytest-\d+(?=/)"), rf"\g<user>/pytest-{COUNT}"),
    # unittest, Django: "Ran 3 tests in 0.004s"
    (re.compile(r"^Ran (?P<n>\d+ tests?) in \d+\.\d+s$", re.M), rf"Ran \g<n> in {TIME}"),
    # sympy bin/test
    (re.compile(r"(?P<head>tests finished: .*?) in \d+\.\d+ seconds"), rf"\g<head> in {TIME}"),
    (re.compile(r"^(?P<head>random seed:[^\S\n]+)\d+$", re.M), rf"\g<head>{SEED}"),
    (re.compile(r"(?P<head>hash randomization: on \(PYTHONHASHSEED=)\d+\)"), rf"\g<head>{SEED})"),
    # go test: "ok  \texample.com/geo/shapes\t0.003s" (or "(cached)"), "--- PASS: TestArea (0.00s)"
    (re.compile(rf"^(?P<head>(?:ok|FAIL)[^\S\n]+\S+[^\S\n]+)(?:{_GO_TIME}|\(cached\))", re.M), rf"\g<head>{TIME}"),
    (re.compile(r"^(?P<head>[^\S\n]*--- (?:PASS|FAIL|SKIP): \S+ \()\d+\.\d+s\)", re.M), rf"\g<head>{TIME})"),
    # cargo: "test result: ok. 3 passed; ...; finished in 0.00s", "Finished `test` profile ... in 0.52s"
    (re.compile(r"(?P<head>^test result: [^\n]*; finished in )\d+\.\d+s$", re.M), rf"\g<head>{TIME}"),
    (re.compile(rf"^(?P<head>[^\S\n]*Finished [^\n]* in ){_RUN_TIME}$", re.M), rf"\g<head>{TIME}"),
    # jest: "Time:        1.234 s, estimated 2 s", "PASS src/a.test.js (5.1 s)", "  ✓ adds (3 ms)";
    # mocha and node --test: "  5 passing (12ms)", "✔ adds (0.52ms)", "ℹ duration_ms 45.12"
    # (jest's Time line only below its Tests line: a program's own "Time: 1.2 s" stays)
    (re.compile(rf"^(?P<head>Tests:[^\n]*\n(?:Snapshots:[^\n]*\n)?Time:[^\S\n]+){_JS_TIME}(?:, estimated {_JS_TIME})?$",
                re.M), rf"\g<head>{TIME}"),
    (re.compile(rf"^(?P<head>(?:PASS|FAIL) \S+ \(){_JS_TIME}\)", re.M), rf"\g<head>{TIME})"),
    (re.compile(rf"^(?P<head>[^\S\n]*(?:[✓✔√]|\d+ passing) [^\n]*?\(){_JS_TIME}\)$", re.M), rf"\g<head>{TIME})"),
    (re.compile(r"^(?P<head>\S+ duration_ms )\d+(?:\.\d+)?$", re.M), rf"\g<head>{TIME}"),
    # vitest: "   Start at  10:05:03", "   Duration  1.23s (transform 20ms, ...)"
    (re.compile(rf"^(?P<start>[^\S\n]+Start at[^\S\n]+)\d\d:\d\d:\d\d\n(?P<head>[^\S\n]+Duration[^\S\n]+)"
                rf"{_JS_TIME}(?: \([^\n]*\))?$", re.M), rf"\g<start>{DATE}\n\g<head>{TIME}"),
    # Maven (surefire) and Gradle
    (re.compile(r"(?P<head>Time elapsed: )\d+(?:\.\d+)? s"), rf"\g<head>{TIME}"),
    (re.compile(r"^(?P<head>\[INFO\] Total time:[^\S\n]+)[^\n]+$", re.M), rf"\g<head>{TIME}"),
    (re.compile(r"^(?P<head>\[INFO\] Finished at: )\S+$", re.M), rf"\g<head>{DATE}"),
    (re.compile(rf"^(?P<head>BUILD (?:SUCCESSFUL|FAILED) in ){_RUN_TIME}$", re.M), rf"\g<head>{TIME}"),
    # ls -l: "-rw-r--r-- 1 root root 1234 Dec  1 10:05 money.py"
    (re.compile(rf"^(?P<head>{_LS_HEAD}){_LS_DATE}(?=[^\S\n])", re.M), rf"\g<head>{DATE}"),
)

_ADDRESS = re.compile(r"(?<= at )0x[0-9a-fA-F]{6,16}\b")

# A line pytest or sympy draws centred in a run of one character: "===== 54 passed in 0.26s ====="
_CENTRED = re.compile(r"^(?P<fill>[=_*!-])(?P=fill)* (?P<title>.+?) (?P=fill)+$", re.M)


def _substitute(text: str) -> str:
    for pattern, replacement in RULES:
        text = pattern.sub(replacement, text)
    return text


def _label_addresses(text: str) -> str:
    labels: dict[str, str] = {}
    return _ADDRESS.sub(lambda m: labels.setdefault(m[0].lower(), f"<addr{len(labels) + 1}>"), text)


def _recentre(match: re.Match[str]) -> str:
    """The centred line with its title normalized, centred again to the same width (as
    pytest's write_sep: the fill took up whatever the original title did not)."""
    title = _substitute(match["title"])
    if title == match["title"]:
        return match[0]
    line, fill = match[0], match["fill"]
    if line.startswith(f"{fill} ") and not line.startswith(f"{fill}{fill}"):
        return f"{fill} {title} {fill}"  # the title overflowed the width: one fill each side
    n = max((len(line) - len(title) - 2) // 2, 1)
    out = f"{fill * n} {title} {fill * n}"
    return out + fill if len(out) < len(line) else out


def normalize(text: str) -> str:
    """`text` with the volatile parts of RULES replaced by fixed placeholders."""
    if not text:
        return text
    return _label_addresses(_substitute(_CENTRED.sub(_recentre, text)))
