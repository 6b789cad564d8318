"""D_loc features for misses seen on real issues, each behind a `localize` option."""

from __future__ import annotations

from swevis.index import build_index, open_index
from swevis.localize import by_kind, localize_issue


def _plugin_repo(root):
    """A test runner with its own `unittest` plugin module and a busier module beside it."""
    pkg = root / "src" / "_runner"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "unittest.py").write_text(
        "class UnitTestCase:\n"
        "    def collect(self):\n"
        "        return []\n\n\n"
        "class TestCaseFunction:\n"
        "    def runtest(self):\n"
        "        return None\n"
    )
    (pkg / "python.py").write_text(
        "class Function:\n"
        '    """A collected test function: setup, run and teardown of one test item."""\n\n'
        "    def setup(self):\n"
        "        return self.run_setup()\n\n"
        "    def run_setup(self):\n"
        "        return None\n"
    )
    return root


ISSUE = ("Skipped tests still run their teardown\n\n"
         "A `unittest.TestCase` subclass with a skipped test still runs teardown for that test item.\n")


def test_module_twin_links_a_library_name_to_the_projects_same_named_module(tmp_path):
    """`unittest.TestCase` names the standard library; the project's own unittest.py is where
    its support lives. Off (0) the name links nowhere; on, the file and UnitTestCase /
    TestCaseFunction get the evidence."""
    repo = _plugin_repo(tmp_path / "repo")
    db = tmp_path / "i.sqlite"
    build_index(repo, db)
    with open_index(db) as idx:
        off = localize_issue(idx, ISSUE, top_k=5, options={"w_module_twin": 0.0})
        on = localize_issue(idx, ISSUE, top_k=5, options={"w_module_twin": 2.0})
    assert not any("names module unittest" in e for c in off for e in c.evidence)
    files = by_kind(on, "file")
    assert files[0].path == "src/_runner/unittest.py"
    assert any("names module unittest, the project's src/_runner/unittest.py" in e for e in files[0].evidence)
    twins = {c.qualified_name for c in by_kind(on, "symbol")
             if any("names module unittest and TestCase" in e for e in c.evidence)}
    assert twins == {"UnitTestCase", "TestCaseFunction"}


def test_module_twin_leaves_a_dotted_name_that_is_a_module_or_names_none(tmp_path):
    """A dotted name that is itself a module (handled as a module mention) or whose prefixes
    end no module path adds no module-twin evidence."""
    repo = _plugin_repo(tmp_path / "repo")
    db = tmp_path / "i.sqlite"
    build_index(repo, db)
    issue = "Crash in `_runner.python` when `collections.OrderedDict` is passed\n"
    with open_index(db) as idx:
        cands = localize_issue(idx, issue, top_k=5, options={"w_module_twin": 2.0})
    assert not any("names module" in e for c in cands for e in c.evidence)


def test_frame_callee_lifts_the_producer_of_the_value_a_traceback_fails_on(tmp_path):
    """All frames are in one function; the bad value comes from a helper it calls. Off, the
    helper gets no traceback evidence; on, it does and scores higher, an unrelated function not."""
    pkg = tmp_path / "repo" / "calc"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "stats.py").write_text(
        "def summarize(values):\n"
        "    n = count_items(values)\n"
        "    return sum(values) / n\n\n\n"
        "def count_items(values):\n"
        "    return len([v for v in values if v])\n\n\n"
        "def unrelated_total(values):\n"
        "    return sum(values)\n"
    )
    db = tmp_path / "i.sqlite"
    build_index(tmp_path / "repo", db)
    issue = ("summarize crashes on a list of zeros\n\n```\nTraceback (most recent call last):\n"
             '  File "calc/stats.py", line 3, in summarize\n    return sum(values) / n\n'
             "ZeroDivisionError: division by zero\n```\n")
    with open_index(db) as idx:
        off = localize_issue(idx, issue, top_k=5, options={"w_frame_callee": 0.0})
        on = localize_issue(idx, issue, top_k=5, options={"w_frame_callee": 0.5})
    assert not any("called by traceback frame" in e for c in off for e in c.evidence)
    def symbol(cands, name):
        return next(c for c in by_kind(cands, "symbol") if c.qualified_name == name)

    helper = symbol(on, "count_items")
    assert any("called by traceback frame calc/stats.py:3 in summarize (summarize)" in e for e in helper.evidence)
    assert helper.score > symbol(off, "count_items").score
    assert symbol(on, "unrelated_total").score <= symbol(off, "unrelated_total").score


def test_class_member_finds_a_method_the_named_class_inherits_or_overrides(tmp_path):
    """The issue names `Schema` and `validate`; `validate` is defined on Schema's base class
    and overridden on a subclass, never on Schema itself. Off, neither gets class-member
    evidence; on, both do (with the relation), and a same-named method of an unrelated class
    does not."""
    pkg = tmp_path / "repo" / "forms"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(
        "class BaseSchema:\n"
        "    def validate(self, data):\n"
        "        return self._check(data)\n\n"
        "    def _check(self, data):\n"
        "        return []\n"
    )
    (pkg / "schema.py").write_text(
        "from .base import BaseSchema\n\n\n"
        "class Schema(BaseSchema):\n"
        "    def dump(self, obj):\n"
        "        return obj\n\n\n"
        "class StrictSchema(Schema):\n"
        "    def validate(self, data):\n"
        "        return super().validate(data)\n"
    )
    (pkg / "other.py").write_text("class Form:\n    def validate(self, data):\n        return True\n")
    db = tmp_path / "i.sqlite"
    build_index(tmp_path / "repo", db)
    issue = "Schema validate() returns errors for valid nested data\n\nCalling `validate` on a `Schema` fails.\n"
    with open_index(db) as idx:
        off = localize_issue(idx, issue, top_k=10, options={"w_class_member": 0.0})
        on = localize_issue(idx, issue, top_k=10, options={"w_class_member": 1.0})
    assert not any("of class `Schema` named in the issue" in e for c in off for e in c.evidence)
    ev = {c.qualified_name: [e for e in c.evidence if "of class `Schema` named in the issue" in e]
          for c in by_kind(on, "symbol")}
    assert ev["BaseSchema.validate"] == [
        "method `validate` of class `Schema` named in the issue: BaseSchema.validate (BaseSchema is a base class of Schema)"]
    assert ev["StrictSchema.validate"] == [
        "method `validate` of class `Schema` named in the issue: StrictSchema.validate (StrictSchema is a subclass of Schema)"]
    assert ev.get("Form.validate", []) == []
