"""Prometheus's bad inputs and its regression filter, without a model: a sub-query with an empty
essential query is a tool error; the regression set keeps only the tests that pass before the
fix, with the patch set aside while they run and restored after; the aggregation is asked the
authors' number of times by default."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from swevis.agents.mechanisms.context_engine import ContextEngine, subquery
from swevis.agents.mechanisms.verification import Verification, passing_before_fix
from swevis.config import validate_config


class Env:
    """The tool environment's face the context engine and the filter use: parts, and `run` in
    a repository (a subprocess)."""

    def __init__(self, root: Path | None = None, parts: tuple = ()):
        self.root, self.parts, self.commands = root, parts, []

    def part(self, kind):
        return next(p for p in self.parts if isinstance(p, kind))

    def run(self, command: str) -> dict:
        self.commands.append(command)
        out = subprocess.run(command, shell=True, cwd=self.root, capture_output=True, text=True)
        return {"returncode": out.returncode, "output": out.stdout + out.stderr}


@pytest.mark.parametrize("essential", ["", "   ", None])
def test_a_subquery_with_an_empty_essential_query_is_a_tool_error(essential):
    import json

    engine = ContextEngine(memory=None)
    body = json.dumps({"essential_query": essential, "purpose": "fix it"})
    out = subquery(Env(parts=(engine,)), f"subquery <<'Q'\n{body}\nQ")
    assert out["returncode"] == 1 and "the essential query is empty" in out["output"]
    assert engine.open_query is None  # nothing was opened for `remember`


def test_a_subquery_without_the_field_is_a_format_error():
    from minisweagent.exceptions import FormatError

    with pytest.raises(FormatError):
        subquery(Env(parts=(ContextEngine(memory=None),)), "subquery <<'Q'\n{\"purpose\": \"x\"}\nQ")


@pytest.fixture
def repo(tmp_path):
    """A git repository with one test that passes and one that already fails."""
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_it.py").write_text("def test_good():\n    pass\n\n\ndef test_broken():\n    assert False\n")
    (root / "lib.py").write_text("X = 1\n")
    for cmd in ("git init -q", "git add -A", "git -c user.email=a@b -c user.name=t commit -qm base"):
        subprocess.run(cmd, shell=True, cwd=root, check=True)
    return root


def test_only_the_tests_that_pass_before_the_fix_are_kept(repo):
    check = Verification(reproduction=None, task_row={"test_cmd": "python -m pytest -q -p no:cacheprovider"},
                         verify_rounds=0, regression_limit=5, output_chars=500)
    env = Env(repo, parts=(check,))
    # the patch under test: a tracked change and a new file, both set aside and restored
    (repo / "lib.py").write_text("X = 2\n")
    (repo / "new.py").write_text("Y = 1\n")
    good, broken = "tests/test_it.py::test_good", "tests/test_it.py::test_broken"
    baseline: dict[str, bool] = {}
    assert passing_before_fix(env, check, [broken, good], baseline) == [good]
    assert baseline == {broken: False, good: True}
    assert (repo / "lib.py").read_text() == "X = 2\n" and (repo / "new.py").read_text() == "Y = 1\n"
    assert env.run("git stash list")["output"] == ""
    # known targets do not run again
    ran = len(env.commands)
    assert passing_before_fix(env, check, [good], baseline) == [good] and len(env.commands) == ran


def test_the_filter_runs_on_a_clean_tree_without_stashing(repo):
    check = Verification(reproduction=None, task_row={"test_cmd": "python -m pytest -q -p no:cacheprovider"},
                         verify_rounds=0, regression_limit=5, output_chars=500)
    env = Env(repo, parts=(check,))
    assert passing_before_fix(env, check, ["tests/test_it.py::test_good"], {}) == ["tests/test_it.py::test_good"]
    assert not any("stash" in c for c in env.commands)


def test_the_aggregation_is_asked_the_authors_number_of_times_by_default():
    assert validate_config({})["agents"]["prometheus"]["aggregation_votes"] == 10
