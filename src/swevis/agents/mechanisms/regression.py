"""The regression set of a patch: which existing tests to run after a change, and the command
that runs them.

Prometheus retrieves the tests of the modified code regions and then lets a model select a
focused subset. Both steps live here, once, for every agent that verifies a patch:

* :func:`candidate_tests` is the retrieval: the test functions that the index's test
  pointers give for the symbols a diff modifies (LET's fixed rule: at most ``hops`` call
  edges from a modified symbol, at most ``limit`` tests).
* :func:`select_tests` is the selection: a model picks a focused subset of the candidates
  (:func:`selection_prompt`, :func:`parse_selection`); without a model, the candidates as
  retrieved, capped (LET's fixed rule).
* :func:`test_command` is the command that runs a set of test ids with a runner: the
  instance's own (:func:`runner_for`) or the language's default (:func:`default_runner`);
  :func:`regression_command` picks the runner for an instance's row, and the arguments it
  takes (test ids, files, module names) from what the row's own command shows.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from typing import Any

from swevis.agents.prompts import Choose, render_prompt
from swevis.errors import SwevisError
from swevis.index.languages import is_test_function, language_for, registered
from swevis.index.records import Language

# the block a selection answer lists its tests in, and a line of it that gives a number only
_SELECTED = re.compile(r"<selected>(.*?)(?:</selected>|\Z)", re.S | re.I)
_NUMBER_LINE = re.compile(r"^\s*#?(\d+)[.)]?\s*$")
# a trailing argument of a harness command that names a test file or a test id, not the runner
_WORD = r"[^\s;&|<>'\"]"
_TEST_PATH_ARG = re.compile(
    rf"(?:\s+(?:{_WORD}*(?:::|/){_WORD}*|{_WORD}+\.(?:py|js|jsx|mjs|cjs|ts|tsx|java|kt|scala|go|rs|rb|php|cs)))+\s*$"
)


def _changed_old_lines(diff: str) -> dict[str, list[int]]:
    """path -> old-file line numbers touched by the diff (for the index, which is pre-patch)."""
    out: dict[str, list[int]] = {}
    path = None
    for line in diff.splitlines():
        if line.startswith("--- "):
            path = line[4:].strip()
            path = path[2:] if path.startswith("a/") else (None if path == "/dev/null" else path)
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", line)
        if m and path:
            start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
            out.setdefault(path, []).extend(range(start, start + max(count, 1)))
    return out


def candidate_tests(index: Any, diff: str, read_file: Callable[[str], str | None], limit: int,
                    hops: int) -> dict[str, Any]:
    """The regression candidates of a patch, from the index's test pointers.

    For each modified symbol (the definitions enclosing the diff's old-side lines), the test
    files that reference it by name (``RepoIndex.tests_for``), narrowed to the test functions
    whose source names it. A symbol no test names (a private helper) is followed to its
    callers, up to ``hops`` call edges, until some test names one. Files that merely import
    the module are the fallback when no test function is found."""
    modified = {}
    for path, lines in _changed_old_lines(diff).items():
        for n in lines:
            sym = index.enclosing_symbol(path, n)
            if sym is not None:
                modified[sym.id] = sym
    nodes: list[str] = []
    weak_files: list[str] = []
    via: list[str] = []

    def tests_naming(sym: Any) -> list[str]:
        found = []
        for ptr in index.tests_for(sym, limit=10):
            if not ptr["references"]:
                weak_files.append(ptr["path"])
                continue
            lines = (read_file(ptr["path"]) or "").splitlines()
            for t in index.symbols_in_file(ptr["path"]):
                if t.kind not in ("function", "method") or not is_test_function(
                        ptr["path"], t.name, lines, t.start_line, t.end_line):
                    continue
                body = "\n".join(lines[t.start_line - 1 : t.end_line])
                if any(re.search(rf"\b{re.escape(n)}\b", body) for n in ptr["references"]):
                    found.append(f"{ptr['path']}::{t.qualname.replace('.', '::')}")
        return found

    for start in modified.values():  # each modified symbol on its own: itself, else its callers
        frontier, seen_ids = [start], {start.id}
        for depth in range(hops + 1):
            hit = False
            for sym in frontier:
                found = tests_naming(sym)
                if found:
                    hit = True
                    via.append(sym.qualname)
                    nodes.extend(n for n in found if n not in nodes)
            if hit or depth == hops:
                break
            nxt = []
            for sym in frontier:
                for _rel, other in index.neighbours(sym.id, ("called_by",), limit=20):
                    if other.id not in seen_ids and not other.name.startswith("test"):
                        seen_ids.add(other.id)
                        nxt.append(other)
            if not nxt:
                break
            frontier = nxt
    files = sorted(set(weak_files))[:3] if not nodes else []
    return {
        "symbols": sorted({s.qualname for s in modified.values()}),
        "via": sorted(set(via)),
        "tests": nodes[:limit],
        "files": files,
    }




def selection_prompt(issue: str, diff: str, candidates: Sequence[str], *, max_selected: int) -> list[dict[str, str]]:
    """The messages asking a model to pick at most ``max_selected`` of the candidate tests."""
    return [
        {"role": "system", "content": render_prompt("prometheus_regression_system")},
        {"role": "user", "content": render_prompt(
            "prometheus_regression_instance", issue=issue, diff=diff, candidates=list(candidates),
            max_selected=max_selected,
        )},
    ]


def _first_mention(text: str, test_id: str) -> int | None:
    """Where ``text`` names ``test_id`` as a whole id (not a prefix of a longer one), or None."""
    m = re.search(rf"(?<![\w./:\[-]){re.escape(test_id)}(?![\w\[:])", text)
    return m.start() if m else None


def _one_line(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def parse_selection(text: str, candidates: Sequence[str]) -> dict[str, Any]:
    """The tests a selection answer names, in the answer's order: only candidates count.

    The ids are read from the ``<selected>`` block when there is one, else from the whole
    answer; a line of the block that is only a number names the candidate of that number.
    Returns ``{"tests", "ignored", "reason"}``: ``ignored`` holds the block's lines that name
    no candidate, and ``reason`` says in one line why no test was selected (None otherwise)."""
    block = _SELECTED.search(text)
    scope = block.group(1) if block else text
    found: dict[str, int] = {}
    for test_id in candidates:
        at = _first_mention(scope, test_id)
        if at is not None:
            found[test_id] = at
    ignored = []
    offset = 0
    for line in scope.splitlines(keepends=True) if block else []:
        number = _NUMBER_LINE.match(line)
        if number and 1 <= int(number.group(1)) <= len(candidates):
            found.setdefault(candidates[int(number.group(1)) - 1], offset)
        elif line.strip() and not any(_first_mention(line, t) is not None for t in candidates):
            ignored.append(line.strip(" \t\r\n-*`'\""))
        offset += len(line)
    tests = sorted(found, key=lambda t: found[t])
    reason = None
    if not tests:
        after = text[block.end():].strip() if block else ""
        if not text.strip():
            reason = "the answer was empty"
        elif ignored:
            reason = "the answer named only tests that were not candidates: " + _one_line(", ".join(ignored))
        elif after:
            reason = _one_line(after.splitlines()[0])
        elif block:
            reason = "the model selected no test and gave no reason"
        else:
            reason = "the answer named no candidate test: " + _one_line(text.strip().splitlines()[0])
    return {"tests": tests, "ignored": ignored, "reason": reason}


def select_tests(candidates: Sequence[str], choose: Choose | None = None, *, max_selected: int,
                 issue: str, diff: str) -> dict[str, Any]:
    """The regression set of a patch, chosen from its candidate tests; a JSON-ready record.

    With ``choose`` (a model stage), the model's subset (``method: model``; an answer that
    names no candidate selects none, and ``reason`` says why). Without it, the candidates as
    retrieved (``method: rule``). Either way at most ``max_selected`` tests."""
    if max_selected < 1:
        raise ValueError(f"max_selected must be at least 1, got {max_selected}")
    record: dict[str, Any] = {"candidates": list(candidates)}
    if not candidates:
        return {**record, "method": "rule", "tests": [], "reason": "no candidate tests"}
    if choose is None:
        return {**record, "method": "rule", "tests": list(candidates[:max_selected]), "reason": None}
    answer = choose(selection_prompt(issue, diff, candidates, max_selected=max_selected))
    parsed = parse_selection(answer, candidates)
    return {
        **record, "method": "model", "tests": parsed["tests"][:max_selected],
        "over_cap": parsed["tests"][max_selected:], "ignored": parsed["ignored"], "reason": parsed["reason"],
        "answer": answer,
    }


def default_runner(language: str) -> str:
    """The test runner of a language when the instance names none: the language registry's
    (swevis.index.languages), which takes test ids as trailing arguments."""
    runners = {lang.name: lang.test_runner for lang in registered("code") if lang.test_runner}
    if language.lower() not in runners:
        known = ", ".join(sorted(runners))
        raise SwevisError(f"no default test runner for language {language!r} (known: {known}); "
                          "give the instance a test_cmd")
    return shlex.join(runners[language.lower()])


def language_of_tests(test_ids: Sequence[str]) -> str:
    """The language of the files a list of test ids names (``path::name`` or a path): the
    first one the registry knows, else python."""
    for test_id in test_ids:
        lang = language_for(test_id.split("::", 1)[0])
        if lang is not None and lang.kind == "code":
            return lang.name
    return "python"


def runner_for(row: dict[str, Any], language: str) -> str:
    """The runner of an instance's regression tests: its own ``test_cmd`` when the row gives
    one, else the language's default.

    A row's ``test_cmd`` is a harness command: the runner followed by the test files the
    grading runs (some added only by the test patch, so absent while an agent works). The
    runner is that command without its trailing test-file and test-id arguments; a
    command that ends in anything else (``npm test``) is the runner as it stands."""
    own = (row.get("test_cmd") or "").strip()
    if not own:
        return default_runner(language)
    runner = _TEST_PATH_ARG.sub("", " " + own).strip()
    if not runner:
        raise SwevisError(f"{row.get('instance_id', 'instance')}: test_cmd {own!r} names test files but no runner")
    return runner


def test_command(test_ids: Sequence[str], runner: str) -> str:
    """The shell command that runs exactly these tests with ``runner``."""
    if not test_ids:
        raise ValueError("test_command needs at least one test id (a bare runner would run the whole suite)")
    return " ".join([runner.strip(), *(shlex.quote(t) for t in test_ids)])


def reproduction_runner(row: dict[str, Any] | None) -> str | None:
    """The runner the reproduction stage's prompt names for an instance of a language other
    than Python: its own test command's (:func:`runner_for`), else its language's default;
    None for a Python row (the prompt's example is a Python script) or a language without a
    runner."""
    language = (row or {}).get("language") or "python"
    if language == "python":
        return None
    try:
        return runner_for(row or {}, language)
    except SwevisError:  # no runner is known for the language: the prompt names none
        return None


class NoRegressionCommand(SwevisError):
    """A row's test command shows no argument form its regression tests can be given in."""


def _without_trailing(command: str, is_argument: Callable[[str], bool]) -> str:
    """`command` without its trailing words that are arguments (`is_argument`), its first word
    kept: `bash run-tests.sh verso.VersionTest` -> `bash run-tests.sh` for test module names;
    unchanged when it ends in none."""
    runner = command.rstrip()
    while (last := re.search(r"\s+(\S+)$", runner)) and is_argument(last.group(1)):
        runner = runner[: last.start()]
    return runner


def _runs_language_runner(command: str, language: Language) -> bool:
    """The command runs the language's own runner (`go test ./...`, `cargo test`, `mvn test`),
    which takes its tests by the language's convention."""
    return bool(language.test_runner) and language.test_runner[0] in command.split()


def regression_command(test_ids: Sequence[str], row: dict[str, Any] | None) -> str:
    """The command that runs a patch's regression tests for the instance `row`, in the argument
    form the row's own test command shows:

    * a language whose runner takes test ids (Python, JavaScript): the runner of the row's own
      command (:func:`runner_for`), else the language's default, with the test ids;
    * a language whose module names come from project files (Go's packages, Rust's crates):
      the language's own convention (``Language.test_command``), whatever the row's command;
    * another language whose runner takes something else (``Language.test_arguments``:
      Maven's ``-Dtest=``): no row command, or one that runs the language's runner, the
      language's convention; a row command that ends in module names of test files (`bash
      run-tests.sh verso.VersionTest`), its runner with the module names of the tests' files;
      one that ends in test files, its runner with the tests' files.

    Raises NoRegressionCommand for a row command that shows none of these forms, or whose
    trailing names are an option's value (`--tests A`): what its runner takes is unknown."""
    if not test_ids:
        raise ValueError("regression_command needs at least one test id (a bare runner would run the whole suite)")
    language = language_for(test_ids[0].split("::", 1)[0])
    if language is None or language.kind != "code" or language.test_arguments is None:
        return test_command(test_ids, runner_for(row or {}, language_of_tests(test_ids)))
    files = list(dict.fromkeys(t.split("::", 1)[0] for t in test_ids))
    own = ((row or {}).get("test_cmd") or "").strip()
    if language.module_files or not own or _runs_language_runner(own, language):
        return language.test_command(files)
    runner = _without_trailing(own, language.is_test_module_name)
    if runner != own and not runner.split()[-1].startswith("-"):
        names = language.module_names(files)
        return " ".join([runner, *(shlex.quote(n) for n in dict.fromkeys(names[f] for f in files))])
    if runner == own and (runner := _without_trailing(own, language.is_test_path)) != own:
        return test_command(files, runner)
    raise NoRegressionCommand(
        f"{(row or {}).get('instance_id', 'instance')}: test_cmd {own!r} ends in no test file or {language.name} "
        f"module name it can be given, and does not run {' '.join(language.test_runner[:1]) or 'its runner'!r}: "
        "the arguments its runner takes are unknown")

