"""The regression set of a patch: the candidate tests the index points at for the modified
code (LET's fixed rule), the model's selection among them, and the command that runs them
(the instance's own runner, else the language's default)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from swevis.agents.mechanisms import regression  # the module, not its test_command: pytest would collect that
from swevis.agents.mechanisms.regression import candidate_tests, default_runner, parse_selection, runner_for, select_tests
from swevis.errors import SwevisError
from swevis.index.store import open_index
from swevis.tasks.bundled import load_bundled_instances
from helpers import git


@dataclass(frozen=True)
class Sym:
    id: int
    name: str
    qualname: str
    kind: str
    start_line: int
    end_line: int


class FakeIndex:
    """What candidate_tests asks of a RepoIndex, over a small made-up repository:
    pkg/core.py has a private helper no test names, called by a public function that
    tests/test_core.py tests; tests/test_imports.py only imports the module."""

    helper = Sym(1, "_helper", "_helper", "function", 1, 5)
    public = Sym(2, "public_api", "public_api", "function", 7, 12)
    orphan = Sym(3, "orphan", "orphan", "function", 14, 16)
    tests = {"tests/test_core.py": [Sym(10, "test_public", "test_public", "function", 3, 5),
                                    Sym(11, "test_twice", "TestCore.test_twice", "method", 8, 10),
                                    Sym(12, "test_other", "test_other", "function", 12, 13)]}
    test_source = ("from pkg.core import public_api\n\ndef test_public():\n    assert public_api()\n\n\n"
                   "class TestCore:\n    def test_twice(self):\n        public_api(); public_api()\n\n\n"
                   "def test_other():\n    assert True\n")

    def enclosing_symbol(self, path, line):
        if path != "pkg/core.py":
            return None
        return next((s for s in (self.helper, self.public, self.orphan) if s.start_line <= line <= s.end_line), None)

    def tests_for(self, sym, limit=10):
        if sym is self.public:
            return [{"path": "tests/test_core.py", "references": ["public_api"]}]
        if sym is self.orphan:
            return [{"path": "tests/test_imports.py", "references": []}]
        return []

    def symbols_in_file(self, path):
        return self.tests.get(path, [])

    def neighbours(self, sym_id, rels, limit=20):
        assert rels == ("called_by",)
        return [("called_by", self.public)] if sym_id == self.helper.id else []

    def read_file(self, path):
        return self.test_source if path == "tests/test_core.py" else None


def _diff(start: int, count: int = 1) -> str:
    return f"--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -{start},{count} +{start},{count} @@\n-old\n+new\n"


def test_candidates_are_the_tests_that_name_a_modified_symbol_or_its_caller():
    index = FakeIndex()
    direct = candidate_tests(index, _diff(8), index.read_file, limit=20, hops=2)
    assert direct == {"symbols": ["public_api"], "via": ["public_api"], "files": [],
                      "tests": ["tests/test_core.py::test_public", "tests/test_core.py::TestCore::test_twice"]}
    via_caller = candidate_tests(index, _diff(2), index.read_file, limit=20, hops=1)
    assert via_caller["symbols"] == ["_helper"] and via_caller["via"] == ["public_api"]
    assert via_caller["tests"] == direct["tests"]
    no_hops = candidate_tests(index, _diff(2), index.read_file, limit=20, hops=0)
    assert no_hops["tests"] == [] and no_hops["via"] == []
    assert candidate_tests(index, _diff(8), index.read_file, limit=1, hops=2)["tests"] == ["tests/test_core.py::test_public"]
    # only a file importing the module: the file itself is the fallback
    assert candidate_tests(index, _diff(15), index.read_file, limit=20, hops=2)["files"] == ["tests/test_imports.py"]


CANDIDATES = ["tests/test_a.py::test_x", "tests/test_a.py::test_x_y", "tests/test_b.py::TestB::test_z[1-2]"]


@pytest.mark.parametrize("answer,tests", [
    ("<selected>\ntests/test_a.py::test_x_y\n</selected>", ["tests/test_a.py::test_x_y"]),  # not test_x, its prefix
    ("<selected>\n- `tests/test_b.py::TestB::test_z[1-2]`\n1\n</selected>", [CANDIDATES[2], CANDIDATES[0]]),
    ("I would run tests/test_a.py::test_x only.", ["tests/test_a.py::test_x"]),  # no block: the whole answer
    ("<selected>\n2.\ntests/test_a.py::test_x_y\n</selected>", ["tests/test_a.py::test_x_y"]),  # named twice: once
])
def test_parse_selection_reads_candidate_ids_in_the_answers_order(answer, tests):
    assert parse_selection(answer, CANDIDATES)["tests"] == tests


@pytest.mark.parametrize("answer,reason", [
    ("<selected>\n</selected>\nNone of them calls the changed parser.\nMore text.", "None of them calls the changed parser."),
    ("<selected></selected>", "the model selected no test and gave no reason"),
    ("<selected>\ntests/test_c.py::test_q\n7\n</selected>",
     "the answer named only tests that were not candidates: tests/test_c.py::test_q, 7"),
    ("Sorry, I cannot\nhelp with that.", "the answer named no candidate test: Sorry, I cannot"),
    ("  ", "the answer was empty"),
])
def test_parse_selection_says_in_one_line_why_none_was_selected(answer, reason):
    parsed = parse_selection(answer, CANDIDATES)
    assert parsed["tests"] == [] and parsed["reason"] == reason and "\n" not in parsed["reason"]


def test_select_tests_model_subset_or_capped_candidates():
    calls = []

    def model(messages):
        calls.append(messages)
        return f"<selected>\n{CANDIDATES[2]}\ntests/test_zzz.py::nope\n{CANDIDATES[1]}\n{CANDIDATES[0]}\n</selected>"

    picked = select_tests(CANDIDATES, model, max_selected=2, issue="the parser drops the last row", diff=_diff(3))
    assert picked["method"] == "model" and picked["tests"] == [CANDIDATES[2], CANDIDATES[1]]
    assert picked["over_cap"] == [CANDIDATES[0]] and picked["ignored"] == ["tests/test_zzz.py::nope"]
    assert picked["reason"] is None and picked["answer"].startswith("<selected>")
    system, user = calls[0]
    assert "<selected>" in system["content"]
    assert "the parser drops the last row" in user["content"] and "+new" in user["content"]
    assert f"3. {CANDIDATES[2]}" in user["content"] and "at most 2 of these 3 tests" in user["content"]
    rule = select_tests(CANDIDATES, max_selected=2, issue="", diff="")
    assert rule["method"] == "rule" and rule["tests"] == CANDIDATES[:2]
    none = select_tests([], model, max_selected=2, issue="", diff="")
    assert none["tests"] == [] and none["reason"] == "no candidate tests" and len(calls) == 1
    empty = select_tests(CANDIDATES, lambda m: "<selected></selected>\nAll are slow.", max_selected=2, issue="", diff="")
    assert empty["method"] == "model" and empty["tests"] == [] and empty["reason"] == "All are slow."


def test_test_command_with_the_default_runner_is_lets_command():
    cmd = regression.test_command(["tests/a.py::test_x", "tests/b.py::test_y[a b]"], default_runner("python"))
    assert cmd == "python -m pytest -q -p no:cacheprovider tests/a.py::test_x 'tests/b.py::test_y[a b]'"
    with pytest.raises(ValueError, match="at least one test id"):
        regression.test_command([], default_runner("python"))
    with pytest.raises(SwevisError, match="no default test runner for language 'cobol'"):
        default_runner("cobol")


@pytest.mark.parametrize("test_cmd,runner", [
    ("python -m pytest -rA -p no:cacheprovider tests/test_a.py tests/test_b.py", "python -m pytest -rA -p no:cacheprovider"),
    ("npx jest src/__tests__/a.test.ts", "npx jest"),
    ("npm test", "npm test"),
    ("cd sub && pytest tests/unit/ tests/a.py::T::test_x[1]", "cd sub && pytest"),
    ("", default_runner("python")),
    (None, default_runner("python")),
])
def test_runner_for_takes_the_rows_command_without_its_test_files(test_cmd, runner):
    assert runner_for({"instance_id": "o__r-1", "test_cmd": test_cmd}, "python") == runner


def test_runner_for_the_bundled_rows_and_a_command_of_test_files_only():
    for row in load_bundled_instances(verify_commits=False):
        assert runner_for(row, "python") == "python -m pytest -rA -p no:cacheprovider", row["instance_id"]
    with pytest.raises(SwevisError, match="o__r-1: test_cmd 'tests/a.py' names test files but no runner"):
        runner_for({"instance_id": "o__r-1", "test_cmd": "tests/a.py"}, "python")


BROKEN = "swevis-samples__ledgerkit-101"


@pytest.mark.slow
def test_a_patch_that_breaks_a_passing_test_is_caught_on_the_bundled_index(bundled_checkout, tmp_path):
    """On a real checkout and index: the candidates of a patch include the PASS_TO_PASS test
    it breaks, and their command fails; on the unpatched code the same command passes."""
    setup = bundled_checkout(BROKEN, tmp_path, index=True)
    repo = Path(setup["pristine"])
    sheet = repo / "ledgerkit/reports/balance_sheet.py"
    text = sheet.read_text()
    old_import, old_filter = "from ..ledger import _as_date\n", "            if self.as_of is not None and entry.date >= self.as_of:\n"
    assert old_import in text and old_filter in text
    sheet.write_text(text.replace(old_import, "from ..ledger import _as_date, _in_period\n")
                     .replace(old_filter, "            if not _in_period(entry.date, self.as_of):\n"))
    diff = git(repo, "diff") + "\n"  # the diff as git prints it (helpers.git strips it)
    found = candidate_tests(open_index(setup["db"]), diff, lambda p: (repo / p).read_text(), limit=20, hops=2)
    assert found["symbols"] == ["BalanceSheet._net_income"]
    broken = "tests/test_reports.py::test_balance_sheet_mid_period"
    assert broken in found["tests"] and broken in setup["row"]["PASS_TO_PASS"]
    cmd = regression.test_command(found["tests"], runner_for(setup["row"], "python"))
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(["bash", "-c", cmd], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "FAILED tests/test_reports.py::test_balance_sheet_mid_period" in run.stdout
    git(repo, "checkout", "--", ".")
    run = subprocess.run(["bash", "-c", cmd], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:]


def test_regression_command_runs_the_tests_with_the_rows_own_runner():
    ids = ["tests/a.py::test_x", "tests/b.py::test_y"]
    row = {"instance_id": "o__r-1", "test_cmd": "python -m pytest -rA -p no:cacheprovider tests/a.py"}
    assert regression.regression_command(ids, row) == "python -m pytest -rA -p no:cacheprovider tests/a.py::test_x tests/b.py::test_y"
    # a row without a test command, or no row: the language's default runner
    assert regression.regression_command(ids, {"instance_id": "o__r-1"}) == regression.test_command(ids, default_runner("python"))
    assert regression.regression_command(ids, None) == regression.test_command(ids, default_runner("python"))


def test_regression_command_of_a_runner_that_takes_packages_follows_its_language():
    from swevis.index import languages
    from swevis.index.records import FileExtract, Language

    toy = Language(name="toypkg", extensions=(".tpk",), extract=lambda p, d, m, o: FileExtract(language="toypkg"),
                   test_files=("*_test.tpk",), test_runner=("toyrun", "check"),
                   test_arguments=lambda files: sorted({"./" + f.rsplit("/", 1)[0] for f in files}))
    ids = ["pkg/a_test.tpk::TestA", "pkg/b_test.tpk::TestB"]
    languages.register(toy)
    try:
        # no test command, or one that runs the language's runner: its convention
        assert regression.regression_command(ids, None) == "toyrun check ./pkg"
        assert regression.regression_command(ids, {"test_cmd": "toyrun check -v ./other"}) == "toyrun check ./pkg"
        # a command ending in test files: its runner with the tests' files
        assert regression.regression_command(ids, {"test_cmd": "sh ci.sh pkg/c_test.tpk"}) == \
            "sh ci.sh pkg/a_test.tpk pkg/b_test.tpk"
        # a command that shows none of the forms: no command, and the reason
        with pytest.raises(regression.NoRegressionCommand, match="o__r-1: test_cmd 'make check' ends in no test file"):
            regression.regression_command(ids, {"instance_id": "o__r-1", "test_cmd": "make check"})
        # a script in a folder, or alone, is no test file: no command (not the ids run as a script)
        for own in ("bash scripts/run.sh", "./run.sh"):
            with pytest.raises(regression.NoRegressionCommand):
                regression.regression_command(ids, {"test_cmd": own})
    finally:
        languages.unregister("toypkg")


def test_regression_command_of_a_language_with_module_files_keeps_its_convention():
    """Go's packages and Rust's crates come from project files: their convention, whatever the
    row's command (as before the row's argument form was read)."""
    from swevis.index import languages
    from swevis.index.records import FileExtract, Language

    toy = Language(name="toymod", extensions=(".tmd",), extract=lambda p, d, m, o: FileExtract(language="toymod"),
                   test_files=("*_test.tmd",), test_runner=("toyrun", "check"), module_files=("toy.mod",),
                   module_names=lambda paths, *_: {p: p for p in paths},
                   test_arguments=lambda files: sorted({"./" + f.rsplit("/", 1)[0] for f in files}))
    languages.register(toy)
    try:
        for own in (None, "make test", "bash ci.sh pkg/b_test.tmd", "./run.sh"):
            assert regression.regression_command(["pkg/a_test.tmd::TestA"], {"test_cmd": own}) == "toyrun check ./pkg"
    finally:
        languages.unregister("toymod")


VERSO_CMD = "bash run-tests.sh verso.VersionTest verso.VersionsTest verso.range.RangeTest"


def test_regression_command_of_a_row_whose_command_takes_module_names_gives_them():
    """verso's run-tests.sh takes test classes: the regression tests run with it, given the
    classes of their files; without the row's command, Java's default (Maven)."""
    row = {"instance_id": "swevis-samples__verso-12", "test_cmd": VERSO_CMD}
    version = "src/test/java/verso/VersionTest.java::VersionTest::parsesThreeNumbers"
    assert regression.regression_command([version], row) == "bash run-tests.sh verso.VersionTest"
    both = [version, "src/test/java/verso/range/RangeTest.java::RangeTest::wildcards",
            "src/test/java/verso/VersionTest.java::VersionTest::acceptsLeadingV"]
    assert regression.regression_command(both, row) == "bash run-tests.sh verso.VersionTest verso.range.RangeTest"
    assert regression.regression_command([version], None).startswith("mvn -q test ")
    # a class that is no test file's (verso.Version) shows no argument form: no command
    with pytest.raises(regression.NoRegressionCommand, match="'bash run-tests.sh verso.Version' ends in no test file"):
        regression.regression_command([version], {"test_cmd": "bash run-tests.sh verso.Version"})
    # a script named like a dotted name is no test class; an option's value (Gradle's --tests)
    # is not a list of classes to append to
    for own in ("bash test.sh", "sh tests.sh", "./gradlew test --tests verso.VersionTest"):
        with pytest.raises(regression.NoRegressionCommand):
            regression.regression_command([version], {"test_cmd": own})


def test_regression_command_of_the_bundled_polyglot_rows():
    from swevis.tasks.bundled import load_bundled_set

    rows = {r["instance_id"]: r for r in load_bundled_set("polyglot", verify_commits=False)}
    for instance in ("swevis-samples__verso-12", "swevis-samples__verso-27"):
        assert rows[instance]["test_cmd"] == VERSO_CMD
        cmd = regression.regression_command(["src/test/java/verso/range/RangeTest.java::RangeTest::wildcards"], rows[instance])
        assert cmd == "bash run-tests.sh verso.range.RangeTest"


def test_verification_runs_the_regression_tests_with_the_instances_runner():
    """LET's and Prometheus's verification (Verification.run_regression) run the selected
    tests with the runner of the task row's test_cmd."""
    from types import SimpleNamespace

    from swevis.agents.mechanisms.verification import Verification

    ran: list[str] = []
    env = SimpleNamespace(run=lambda cmd: ran.append(cmd) or {"returncode": 0, "output": "1 passed"})
    check = Verification(reproduction=None, task_row={"instance_id": "o__r-1", "test_cmd": "python -m pytest -rA tests/test_a.py"},
                         verify_rounds=1, regression_limit=5, output_chars=200)
    reg = check.run_regression(env, {"tests": ["tests/test_a.py::test_x"], "files": [], "symbols": ["f"]})
    assert ran == ["python -m pytest -rA tests/test_a.py::test_x"]
    assert reg["command"] == ran[0] and reg["passed"]
    check.task_row = {"instance_id": "o__r-1"}
    check.run_regression(env, {"tests": ["tests/test_a.py::test_x"], "files": [], "symbols": ["f"]})
    assert ran[1] == "python -m pytest -q -p no:cacheprovider tests/test_a.py::test_x"


def test_tests_no_command_can_run_are_recorded_as_not_run_not_as_passed():
    """A Java row whose command shows no argument form (`./gradlew test`): nothing runs, before
    the fix or after; the record says why, `passed` is None, and the patch is not failed for it."""
    from types import SimpleNamespace

    from swevis.agents.mechanisms.verification import Verification, passing_before_fix, report

    ran: list[str] = []
    env = SimpleNamespace(run=lambda cmd: ran.append(cmd) or {"returncode": 0, "output": ""})
    check = Verification(reproduction=None, task_row={"instance_id": "o__r-1", "test_cmd": "./gradlew test"},
                         verify_rounds=1, regression_limit=5, output_chars=200)
    test_id = "src/test/java/a/ATest.java::ATest::works"
    assert passing_before_fix(env, check, [test_id], {}) == [test_id]
    reg = check.run_regression(env, {"tests": [test_id], "files": [], "symbols": ["A.f"]})
    assert reg["command"] is None and reg["passed"] is None
    assert reg["not_run"].startswith("o__r-1: test_cmd './gradlew test' ends in no test file or java module name")
    assert not any("gradlew" in cmd or "mvn" in cmd for cmd in ran)
    assert "regression tests: not run (o__r-1: test_cmd" in report({"regression": reg}, 0)
    check.task_row = {"instance_id": "o__r-1", "test_cmd": VERSO_CMD}
    reg = check.run_regression(env, {"tests": [test_id], "files": [], "symbols": ["A.f"]})
    assert ran[-1] == reg["command"] == "bash run-tests.sh a.ATest" and reg["passed"] and "not_run" not in reg


def test_the_reproduction_prompt_names_the_runner_of_an_instance_in_another_language():
    from swevis.agents.prompts import render_prompt

    assert regression.reproduction_runner({"instance_id": "o__r-1", "test_cmd": "pytest tests/a.py"}) is None  # Python
    assert regression.reproduction_runner(None) is None
    row = {"instance_id": "o__r-1", "language": "typescript", "test_cmd": "npx jest test/spinner.test.ts"}
    assert regression.reproduction_runner(row) == "npx jest"
    assert regression.reproduction_runner({"instance_id": "o__r-1", "language": "cobol"}) is None  # no runner known
    python = render_prompt("let_repro_system", repo_root="/testbed", scope="normal", test_runner=None)
    other = render_prompt("let_repro_system", repo_root="/testbed", scope="normal", test_runner="npx jest")
    assert "tests run with" not in python  # a Python instance's prompt is as it was
    assert "This repository's tests run with `npx jest`" in other
    assert other.replace("\n\nThis repository's tests run with `npx jest`: the reproduction may be a test you write and "
                         "run with it.", "") == python
